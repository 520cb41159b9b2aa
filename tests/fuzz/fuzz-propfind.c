/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer harness: both ends of PROPFIND, each input used twice.
 *  1. As a 207 Multi-Status answer: the client's parser (namespace-aware, libxml2), in one
 *     piece and streamed in uneven chunks. Entries must stay direct children of the base.
 *  2. As a PROPFIND request body: lightbox-store's parser (SAX2, with the limits on names), then
 *     the streamed answer (LbDavWriter) for a collection of six resources whose names need
 *     escaping, taken in pieces at points the input picks. Checks: a body is refused only as
 *     malformed (400) or over the limits (413); accepted names stay within the limits; the
 *     pieces joined equal the answer taken whole; the answer is well-formed, no larger than
 *     the limits allow, and (when DAV:resourcetype is among the properties) the client's parser
 *     reads the six entries back from it. */
#include <string.h>
#include <libxml/parser.h>

#include "fuzz-listing-check.h"
#include "lb-dav-xml.h"
#include "lb-error.h"
#include "lb-store-path.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

#define BASE "http://127.0.0.1:8080/dir/"

static void
fuzz_client (const guint8 *data, size_t size)
{
  const LbListingContext ctx = { BASE, "http://127.0.0.1:8080/", 64 };
  g_autoptr (GPtrArray) entries = NULL;
  g_autoptr (LbStoreEntry) self = NULL;
  g_autoptr (LbStoreEntry) self2 = NULL;
  g_autoptr (GError) error = NULL;

  entries = lb_listing_parse_multistatus ((const char *) data, size, &ctx, &self, &error);
  fuzz_check_entries (&ctx, entries, error, FALSE);
  fuzz_check_streamed (LB_LISTING_MULTISTATUS, &ctx, data, size, &self2, FALSE);
}

/* The collection /dir/ and its children: name, collection?, size. */
static const struct {
  const char *name;
  gboolean    dir;
  guint64     size;
} resources[] = {
  { "", TRUE, 0 },
  { "a.png", FALSE, 1234 },
  { "sub", TRUE, 0 },
  { "x&y <z> \"q\".tif", FALSE, 0 },
  { "ünï cödé.dcm", FALSE, 99 },
  { "100%.raw", FALSE, 1 },
  { "]]>&amp;", FALSE, 7 },
};

static void
write_resource (LbDavWriter *w, guint i)
{
  g_autofree char *rel = resources[i].name[0] ? g_strconcat ("dir/", resources[i].name, NULL) : g_strdup ("dir");
  g_autofree char *href = lb_store_path_encode (rel, resources[i].dir);
  LbDavResource res = { 0 };

  res.href = href;
  res.displayname = resources[i].name[0] ? resources[i].name : "dir";
  res.collection = resources[i].dir;
  res.size = resources[i].size;
  res.mtime_s = 1700000000 + i;
  res.ctime_s = 1600000000 + i;
  res.etag = resources[i].dir ? NULL : "\"1a-2b-3c\"";
  res.content_type = resources[i].dir ? "httpd/unix-directory" : "application/octet-stream";
  lb_dav_writer_add (w, &res);
}

static gboolean
asks_resourcetype (GPtrArray *names)
{
  for (guint i = 0; i < names->len; i++)
    {
      const LbDavPropName *p = g_ptr_array_index (names, i);

      if (strcmp (p->ns, LB_DAV_NS) == 0 && strcmp (p->name, "resourcetype") == 0)
        return TRUE;
    }
  return FALSE;
}

static void
fuzz_server (const guint8 *data, size_t size)
{
  const LbListingContext ctx = { BASE, "http://127.0.0.1:8080/", 64 };
  g_autoptr (GPtrArray) names = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (LbDavWriter) whole = NULL;
  g_autoptr (LbDavWriter) pieces = NULL;
  g_autoptr (GBytes) all = NULL;
  g_autoptr (GByteArray) joined = g_byte_array_new ();
  g_autoptr (GPtrArray) entries = NULL;
  g_autoptr (LbStoreEntry) self = NULL;
  LbDavPropfindKind kind;
  gsize name_bytes = 0, bound;
  xmlDocPtr doc;

  if (!lb_dav_parse_propfind ((const char *) data, size, &kind, &names, &error))
    {
      g_assert (names == NULL);
      g_assert (g_error_matches (error, LB_ERROR, LB_ERROR_PARSE) ||
                g_error_matches (error, LB_ERROR, LB_ERROR_TOO_LARGE));
      return;
    }
  g_assert (error == NULL && names != NULL);
  g_assert (names->len <= LB_DAV_MAX_PROPS);
  g_assert (kind == LB_DAV_PROPFIND_PROP || names->len == 0);
  for (guint i = 0; i < names->len; i++)
    {
      const LbDavPropName *p = g_ptr_array_index (names, i);
      name_bytes += strlen (p->ns) + strlen (p->name);
    }
  g_assert (name_bytes <= LB_DAV_MAX_PROP_BYTES);

  whole = lb_dav_writer_new (kind, names);
  pieces = lb_dav_writer_new (kind, names);
  for (guint i = 0; i < G_N_ELEMENTS (resources); i++)
    {
      write_resource (whole, i);
      write_resource (pieces, i);
      /* Taken where the input says: the answer must not depend on where it is cut. */
      if (size > 0 && (data[i % size] & 1))
        {
          g_autoptr (GBytes) b = lb_dav_writer_take (pieces);
          g_byte_array_append (joined, g_bytes_get_data (b, NULL), (guint) g_bytes_get_size (b));
        }
    }
  lb_dav_writer_finish (whole);
  lb_dav_writer_finish (pieces);
  all = lb_dav_writer_take (whole);
  {
    g_autoptr (GBytes) b = lb_dav_writer_take (pieces);
    g_byte_array_append (joined, g_bytes_get_data (b, NULL), (guint) g_bytes_get_size (b));
  }
  g_assert (g_bytes_get_size (all) == joined->len);
  g_assert (memcmp (g_bytes_get_data (all, NULL), joined->data, joined->len) == 0);

  /* Each entry: at most 1 KiB of its own, plus each requested name echoed once with its
   * namespace declared: the limits on names bound the answer per entry. */
  bound = 256 + G_N_ELEMENTS (resources) * (1024 + name_bytes + 48 * names->len);
  g_assert (joined->len <= bound);

  doc = xmlReadMemory ((const char *) joined->data, (int) joined->len, "answer.xml", NULL,
                       XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  g_assert (doc != NULL);
  xmlFreeDoc (doc);

  /* The client tells entries by their DAV:resourcetype: read back when it was asked for. */
  if (kind == LB_DAV_PROPFIND_PROP && !asks_resourcetype (names))
    return;
  entries = lb_listing_parse_multistatus ((const char *) joined->data, joined->len, &ctx, &self, &error);
  g_assert_no_error (error);
  fuzz_check_entries (&ctx, entries, error, FALSE);
  g_assert (entries->len == G_N_ELEMENTS (resources) - 1);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  fuzz_client (data, size);
  fuzz_server (data, size);
  return 0;
}
