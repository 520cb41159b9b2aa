/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-store-server"

/* Content-Type on the in-process lightbox-store: the same answer from GET, HEAD, a Range of
 * the file and PROPFIND's getcontenttype, where the name settles the type and where only the
 * data does (shared-mime-info 2.4 maps *.png to image/png and image/apng). */

#include <string.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

#include "lb-test-files.h"
#include "lb-test-image.h"
#include "test-store-server.h"

/* getcontenttype of every file in a Depth 1 PROPFIND of the root, by href. */
static GHashTable *
propfind_content_types (Store *s)
{
  g_autoptr(Reply) r = request (s, "PROPFIND", "/", NULL, "Depth", "1", NULL);
  GHashTable *types = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  xmlDocPtr doc;
  xmlXPathContextPtr xc;
  xmlXPathObjectPtr responses;

  g_assert_cmpuint (r->status, ==, 207);
  doc = xmlReadMemory (g_bytes_get_data (r->body, NULL), (int) g_bytes_get_size (r->body),
                       "ms.xml", NULL, XML_PARSE_NONET);
  g_assert_nonnull (doc);
  xc = xmlXPathNewContext (doc);
  xmlXPathRegisterNs (xc, BAD_CAST "d", BAD_CAST "DAV:");
  responses = xmlXPathEvalExpression (BAD_CAST "/d:multistatus/d:response[not(.//d:collection)]", xc);
  g_assert_nonnull (responses);
  for (int i = 0; responses->nodesetval != NULL && i < responses->nodesetval->nodeNr; i++)
    {
      xmlNodePtr response = responses->nodesetval->nodeTab[i];
      xmlXPathObjectPtr href = xmlXPathNodeEval (response, BAD_CAST "string(d:href)", xc);
      xmlXPathObjectPtr type = xmlXPathNodeEval (response, BAD_CAST "string(.//d:getcontenttype)", xc);

      g_hash_table_insert (types, g_strdup ((const char *) href->stringval),
                           g_strdup ((const char *) type->stringval));
      xmlXPathFreeObject (href);
      xmlXPathFreeObject (type);
    }
  xmlXPathFreeObject (responses);
  xmlXPathFreeContext (xc);
  xmlFreeDoc (doc);
  return types;
}

void
test_content_type (void)
{
  g_autoptr(Store) s = store_new ();
  g_autofree char *png_path = lb_test_build_path ("LB_TEST_DATA", "pngsuite", "basn6a16.png", NULL);
  g_autoptr(GBytes) png = lb_test_read_file (png_path);
  /* Not text (invalid UTF-8, control bytes) and no file signature. */
  g_autoptr(GBytes) noise = lb_test_bytes (600, 21);
  g_autoptr(GBytes) text = g_bytes_new_static ("plain words\n", 12);
  g_autoptr(GBytes) empty = g_bytes_new_static ("", 0);
  g_autoptr(GHashTable) listed = NULL;
  static const struct {
    const char *name;
    const char *type;
  } files[] = {
    { "x.png", "image/png" },      /* a PNG under an ambiguous name: its signature decides */
    { "noext", "image/png" },      /* no name to go by: the signature alone */
    { "noise.png", "image/png" },  /* ambiguous name, data that decides nothing: the name's first type */
    { "noise", "application/octet-stream" }, /* nothing to go by */
    { "notes.txt", "text/plain" }, /* the name alone */
    { "empty.png", "image/png" },  /* no data: the name */
  };

  g_assert_cmpuint (g_bytes_get_size (png), >, 200);
  put_file (s, "x.png", png);
  put_file (s, "noext", png);
  put_file (s, "noise.png", noise);
  put_file (s, "noise", noise);
  put_file (s, "notes.txt", text);
  put_file (s, "empty.png", empty);
  store_run (s);

  listed = propfind_content_types (s);
  g_assert_cmpuint (g_hash_table_size (listed), ==, G_N_ELEMENTS (files));
  for (gsize i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_strconcat ("/", files[i].name, NULL);
      g_autoptr(Reply) get = request (s, "GET", path, NULL, NULL);
      g_autoptr(Reply) head = request (s, "HEAD", path, NULL, NULL);

      g_test_message ("%s", files[i].name);
      g_assert_cmpuint (get->status, ==, 200);
      g_assert_cmpstr (soup_message_headers_get_content_type (get->headers, NULL), ==, files[i].type);
      g_assert_cmpuint (head->status, ==, 200);
      g_assert_cmpstr (soup_message_headers_get_content_type (head->headers, NULL), ==, files[i].type);
      g_assert_cmpstr (g_hash_table_lookup (listed, path), ==, files[i].type);
      if (g_bytes_get_size (get->body) > 200)
        {
          /* A slice past the signature: typed from the file's start all the same. */
          g_autoptr(Reply) part = request (s, "GET", path, NULL, "Range", "bytes=100-199", NULL);

          g_assert_cmpuint (part->status, ==, 206);
          g_assert_cmpstr (soup_message_headers_get_content_type (part->headers, NULL), ==, files[i].type);
        }
    }
}
