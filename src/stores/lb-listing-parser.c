/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-listing-parser"

#include "lb-listing-parser.h"

#include <json-glib/json-glib.h>
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/SAX2.h>
#include <libxml/tree.h>
#include <string.h>

#include "lb-error.h"
#include "lb-json-depth.h"
#include "lb-http.h"
#include "lb-store.h"

#define DAV_NS "DAV:"

/* ---- href classification ------------------------------------------------------------------ */

/* Characters allowed through unescaped when normalising an href: everything reserved plus
 * '%' (existing escapes stay as they are). Spaces, quotes, raw UTF-8 get escaped. */
#define HREF_KEEP "!$&'()*+,;=:@/?#[]%~"

gboolean
lb_listing_same_origin (GUri *a, GUri *b)
{
  return g_ascii_strcasecmp (g_uri_get_scheme (a), g_uri_get_scheme (b)) == 0
         && g_uri_get_host (a) != NULL && g_uri_get_host (b) != NULL
         && g_ascii_strcasecmp (g_uri_get_host (a), g_uri_get_host (b)) == 0
         && g_uri_get_port (a) == g_uri_get_port (b);
}

char *
lb_listing_decoded_path (const char *path)
{
  g_autofree char *decoded = g_uri_unescape_string (path, NULL);
  g_auto(GStrv) segments = NULL;

  if (decoded == NULL)
    return NULL;
  segments = g_strsplit (decoded, "/", -1);
  for (guint i = 0; segments[i] != NULL; i++)
    if (g_str_equal (segments[i], ".") || g_str_equal (segments[i], ".."))
      return NULL;
  return g_steal_pointer (&decoded);
}

static char *
strip_slashes (const char *path)
{
  char *copy = g_strdup (path);
  gsize len = strlen (copy);

  while (len > 0 && copy[len - 1] == '/')
    copy[--len] = '\0';
  return copy;
}

/* The base and root of a listing, parsed and decoded once for all its hrefs. */
typedef struct {
  const LbListingContext *ctx;
  GUri *base;           /* owned, nullable if unparsable */
  GUri *root;           /* owned, nullable */
  char *root_path;      /* owned: decoded */
  char *base_stripped;  /* owned: decoded, without trailing '/' */
  gboolean valid;       /* base on the root's origin and below its path */
} Prepared;

static void
prepared_init (Prepared *pp, const LbListingContext *ctx)
{
  g_autofree char *base_path = NULL;

  memset (pp, 0, sizeof *pp);
  pp->ctx = ctx;
  pp->base = g_uri_parse (ctx->base_uri, G_URI_FLAGS_ENCODED, NULL);
  pp->root = g_uri_parse (ctx->root_uri, G_URI_FLAGS_ENCODED, NULL);
  if (pp->base == NULL || pp->root == NULL || !lb_listing_same_origin (pp->base, pp->root))
    return;
  base_path = lb_listing_decoded_path (g_uri_get_path (pp->base));
  pp->root_path = lb_listing_decoded_path (g_uri_get_path (pp->root));
  if (base_path == NULL || pp->root_path == NULL)
    return;
  if (!g_str_has_prefix (base_path, pp->root_path) && !g_str_equal (base_path, pp->root_path))
    return;
  pp->base_stripped = strip_slashes (base_path);
  pp->valid = TRUE;
}

static void
prepared_clear (Prepared *pp)
{
  g_clear_pointer (&pp->base, g_uri_unref);
  g_clear_pointer (&pp->root, g_uri_unref);
  g_clear_pointer (&pp->root_path, g_free);
  g_clear_pointer (&pp->base_stripped, g_free);
}

static LbListingHrefKind
classify_prepared (const Prepared *pp, const char *href, char **out_uri, char **out_name,
                   gboolean *out_is_dir)
{
  g_autofree char *normalised = NULL;
  g_autoptr(GUri) uri = NULL;
  g_autofree char *path = NULL;
  g_autofree char *path_stripped = NULL;
  const char *raw_path;
  const char *rest;
  gsize base_len;
  gboolean is_dir;

  if (out_uri != NULL)
    *out_uri = NULL;
  if (out_name != NULL)
    *out_name = NULL;
  if (out_is_dir != NULL)
    *out_is_dir = FALSE;
  if (href == NULL || !pp->valid)
    return LB_LISTING_HREF_REJECT;
  while (g_ascii_isspace (*href))
    href++;
  if (*href == '\0' || *href == '#' || *href == '?')
    return LB_LISTING_HREF_REJECT;

  normalised = g_uri_escape_string (href, HREF_KEEP, FALSE);
  uri = g_uri_parse_relative (pp->base, normalised, G_URI_FLAGS_ENCODED, NULL);
  if (uri == NULL)
    return LB_LISTING_HREF_REJECT;
  if (g_uri_get_query (uri) != NULL || g_uri_get_fragment (uri) != NULL)
    return LB_LISTING_HREF_REJECT;
  if (!lb_listing_same_origin (uri, pp->root))
    return LB_LISTING_HREF_REJECT;

  raw_path = g_uri_get_path (uri);
  path = lb_listing_decoded_path (raw_path);
  if (path == NULL || *path != '/')
    return LB_LISTING_HREF_REJECT;

  is_dir = g_str_has_suffix (raw_path, "/");
  path_stripped = strip_slashes (path);
  if (g_str_equal (path_stripped, pp->base_stripped))
    {
      if (out_uri != NULL)
        {
          g_autoptr(GUri) clean = g_uri_build (G_URI_FLAGS_ENCODED, g_uri_get_scheme (uri), NULL,
                                               g_uri_get_host (uri), g_uri_get_port (uri),
                                               raw_path, NULL, NULL);
          *out_uri = g_uri_to_string (clean);
        }
      if (out_is_dir != NULL)
        *out_is_dir = is_dir;
      return LB_LISTING_HREF_SELF;
    }

  /* a direct child: base path + one non-empty segment (+ optional trailing '/') */
  base_len = strlen (pp->base_stripped);
  if (!g_str_has_prefix (path_stripped, pp->base_stripped) || path_stripped[base_len] != '/')
    return LB_LISTING_HREF_REJECT;
  rest = path_stripped + base_len + 1;
  if (*rest == '\0' || strchr (rest, '/') != NULL)
    return LB_LISTING_HREF_REJECT;
  /* and still below the root (the base is, so a child is; checked again for clarity) */
  if (!g_str_has_prefix (path_stripped, pp->root_path))
    return LB_LISTING_HREF_REJECT;

  if (out_uri != NULL)
    {
      g_autoptr(GUri) clean = g_uri_build (G_URI_FLAGS_ENCODED, g_uri_get_scheme (pp->root),
                                           g_uri_get_userinfo (pp->root), g_uri_get_host (pp->root),
                                           g_uri_get_port (pp->root), raw_path, NULL, NULL);
      *out_uri = g_uri_to_string (clean);
    }
  if (out_name != NULL)
    {
      if (g_utf8_validate (rest, -1, NULL))
        *out_name = g_strdup (rest);
      else
        {
          g_autofree char *stripped_raw = strip_slashes (raw_path);
          const char *slash = strrchr (stripped_raw, '/');
          *out_name = g_strdup (slash != NULL ? slash + 1 : stripped_raw);
        }
    }
  if (out_is_dir != NULL)
    *out_is_dir = is_dir;
  return LB_LISTING_HREF_CHILD;
}

LbListingHrefKind
lb_listing_classify_href (const LbListingContext *ctx, const char *href, char **out_uri,
                          char **out_name, gboolean *out_is_dir)
{
  Prepared pp;
  LbListingHrefKind kind;

  prepared_init (&pp, ctx);
  kind = classify_prepared (&pp, href, out_uri, out_name, out_is_dir);
  prepared_clear (&pp);
  return kind;
}

static gboolean
check_cap (GPtrArray *entries, const LbListingContext *ctx, GError **error)
{
  if (ctx->max_entries > 0 && entries->len > ctx->max_entries)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_TOO_LARGE,
                   "%s: listing too large (more than %u entries)", ctx->base_uri, ctx->max_entries);
      return FALSE;
    }
  return TRUE;
}

/* ---- JSON (nginx) ------------------------------------------------------------------------- */

GPtrArray *
lb_listing_parse_json (const char *data, gsize len, const LbListingContext *ctx, GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GError) local = NULL;
  JsonNode *root;
  JsonArray *array;
  Prepared pp;

  if (len == 0)
    {
      /* (data may then be NULL, which json-glib refuses with a critical warning) */
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "%s: empty JSON listing", ctx->base_uri);
      return NULL;
    }
  if (!lb_json_check_depth (data, len, LB_JSON_MAX_DEPTH, "JSON listing", error))
    {
      g_prefix_error (error, "%s: ", ctx->base_uri);
      return NULL;
    }
  if (len > G_MAXSSIZE || !json_parser_load_from_data (parser, data, (gssize) len, &local))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "%s: bad JSON listing: %s", ctx->base_uri,
                   local != NULL ? local->message : "too large");
      return NULL;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_ARRAY (root))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "%s: JSON listing is not an array",
                   ctx->base_uri);
      return NULL;
    }
  array = json_node_get_array (root);
  prepared_init (&pp, ctx);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      /* every 1024 entries (≈ 1 ms here): a cancelled listing stops promptly */
      if (i % 1024 == 0 && g_cancellable_set_error_if_cancelled (ctx->cancellable, error))
        {
          g_prefix_error (error, "%s: ", ctx->base_uri);
          prepared_clear (&pp);
          return NULL;
        }
      JsonNode *node = json_array_get_element (array, i);
      JsonObject *object;
      const char *name, *type, *mtime_text;
      g_autofree char *child = NULL;
      g_autofree char *uri = NULL;
      g_autofree char *decoded = NULL;
      gboolean is_dir;
      LbStoreEntry *entry;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      object = json_node_get_object (node);
      name = json_object_get_string_member_with_default (object, "name", NULL);
      type = json_object_get_string_member_with_default (object, "type", "file");
      if (name == NULL || *name == '\0' || strchr (name, '/') != NULL
          || g_str_equal (name, ".") || g_str_equal (name, "..")
          || !g_utf8_validate (name, -1, NULL))
        continue;
      is_dir = g_strcmp0 (type, "directory") == 0;
      /* nginx names are raw: encode, then run through the same containment checks */
      child = g_uri_escape_string (name, NULL, FALSE);
      if (is_dir)
        {
          char *with_slash = g_strconcat (child, "/", NULL);
          g_free (child);
          child = with_slash;
        }
      if (classify_prepared (&pp, child, &uri, &decoded, NULL) != LB_LISTING_HREF_CHILD)
        continue;
      entry = lb_store_entry_new (uri, name, is_dir ? LB_STORE_ENTRY_DIRECTORY
                                                    : lb_store_entry_guess_file_kind (name, NULL));
      if (!is_dir && json_object_has_member (object, "size"))
        lb_store_entry_set_size (entry, json_object_get_int_member_with_default (object, "size", -1));
      mtime_text = json_object_get_string_member_with_default (object, "mtime", NULL);
      if (mtime_text != NULL)
        {
          g_autoptr(GDateTime) mtime = lb_http_parse_date (mtime_text);
          lb_store_entry_set_mtime (entry, mtime);
        }
      g_ptr_array_add (entries, entry);
      if (!check_cap (entries, ctx, error))
        {
          prepared_clear (&pp);
          return NULL;
        }
    }
  prepared_clear (&pp);
  return g_steal_pointer (&entries);
}

/* ---- details after a link (mtime, size) ----------------------------------------------- */

static GDateTime *
parse_index_time (const char *text)
{
  static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
  int d, y, h, mi, mo = -1;
  char mon[4] = { 0 };

  /* nginx: 29-Nov-2026 20:22 */
  if (sscanf (text, "%2d-%3[A-Za-z]-%4d %2d:%2d", &d, mon, &y, &h, &mi) == 5)
    {
      for (int i = 0; i < 12; i++)
        if (g_ascii_strcasecmp (mon, months[i]) == 0)
          mo = i + 1;
      if (mo < 0)
        return NULL;
      return g_date_time_new_utc (y, mo, d, h, mi, 0);
    }
  /* Apache: 2026-11-29 20:22 */
  if (sscanf (text, "%4d-%2d-%2d %2d:%2d", &y, &mo, &d, &h, &mi) == 5)
    return g_date_time_new_utc (y, mo, d, h, mi, 0);
  return NULL;
}

static gboolean
all_digits (const char *s)
{
  if (*s == '\0')
    return FALSE;
  for (; *s; s++)
    if (!g_ascii_isdigit (*s))
      return FALSE;
  return TRUE;
}

/* @text: what followed the link up to the next link or row end. nginx prints
 * "   29-Nov-2026 20:22     163521\n" in the <pre>; Apache's HTMLTable puts the date and a
 * rounded size in the next cells, which arrive here separated by '\t'. Sizes are used only
 * when they are exact byte counts. */
static void
apply_details (LbStoreEntry *entry, const char *text)
{
  g_autoptr(GDateTime) mtime = NULL;
  g_autofree char *size_text = NULL;

  if (strchr (text, '\t') != NULL)
    {
      g_auto(GStrv) cells = g_strsplit (text, "\t", 4);

      if (cells[0] != NULL && cells[1] != NULL)
        {
          mtime = parse_index_time (g_strstrip (cells[1]));
          if (cells[2] != NULL)
            size_text = g_strdup (g_strstrip (cells[2]));
        }
    }
  else
    {
      g_autofree char *line = g_strdup (text);
      /* nginx ends its lines with CRLF */
      char *nl = strpbrk (line, "\r\n");
      g_auto(GStrv) fields = NULL;
      const char *kept[3] = { NULL, NULL, NULL };
      guint n = 0;

      if (nl != NULL)
        *nl = '\0';
      fields = g_strsplit_set (line, " \t\r\n", -1);
      for (guint i = 0; fields[i] != NULL && n < 3; i++)
        if (*fields[i] != '\0')
          kept[n++] = fields[i];
      if (n >= 2)
        {
          g_autofree char *joined = g_strdup_printf ("%s %s", kept[0], kept[1]);
          mtime = parse_index_time (joined);
        }
      if (n >= 3)
        size_text = g_strdup (kept[2]);
    }
  if (mtime != NULL)
    lb_store_entry_set_mtime (entry, mtime);
  if (size_text != NULL && all_digits (size_text) && !lb_store_entry_is_container (entry))
    lb_store_entry_set_size (entry, g_ascii_strtoll (size_text, NULL, 10));
}

/* ---- the streaming parser ----------------------------------------------------------------- */

/* Cap on the text kept after one link while waiting for the next: details are short. */
#define MAX_DETAIL_CHARS 512
/* Cap on one text value in a multistatus response (hrefs of very long names fit). */
#define MAX_TEXT_CHARS (64 * 1024)

struct _LbListingParser {
  LbListingFormat   format;
  char             *base_uri;   /* owned */
  char             *root_uri;   /* owned */
  LbListingContext  ctx;        /* points at the copies above */
  Prepared          prepared;   /* ctx's base and root, parsed once */
  xmlParserCtxtPtr  xml;        /* owned, nullable (JSON) */
  xmlSAXHandler     sax;
  GByteArray       *json;       /* owned, JSON only */
  GPtrArray        *entries;    /* owned */
  GHashTable       *seen;       /* owned: names already listed */
  GError           *error;      /* owned, sticky */
  gboolean          finished;

  /* HTML */
  guint             anchor_depth;
  LbStoreEntry     *pending;    /* owned, nullable: last entry, waiting for its details */
  GString          *details;

  /* multistatus */
  guint             depth;
  guint             response_depth;  /* 0 = outside a response */
  GString          *text;            /* text of the current leaf element */
  gboolean          collecting;
  char             *href;            /* owned */
  gboolean          in_propstat;
  gboolean          in_prop;
  gboolean          in_resourcetype;
  gboolean          is_collection;
  GPtrArray        *props;           /* owned: (name, value) pairs from 2xx propstats */
  GPtrArray        *pending_props;   /* owned: (name, value) pairs of the current propstat */
  gboolean          pending_collection;
  guint             propstat_status;
  gboolean          have_props;
  LbStoreEntry     *current;         /* owned, nullable: the response being read */
  LbStoreEntry     *self_entry;      /* owned, nullable */
  gboolean          is_multistatus;
  gboolean          saw_root;
};

static void
fail (LbListingParser *p, GError *error)
{
  if (p->error == NULL)
    p->error = error;
  else
    g_error_free (error);
  if (p->xml != NULL)
    xmlStopParser (p->xml);
}

static void
add_entry (LbListingParser *p, LbStoreEntry *entry)
{
  g_ptr_array_add (p->entries, entry);
  if (p->ctx.max_entries > 0 && p->entries->len > p->ctx.max_entries)
    fail (p, g_error_new (LB_ERROR, LB_ERROR_TOO_LARGE,
                          "%s: listing too large (more than %u entries)", p->ctx.base_uri,
                          p->ctx.max_entries));
}

/* HTML SAX ------------------------------------------------------------------------------------ */

static void
flush_pending (LbListingParser *p)
{
  if (p->pending == NULL)
    return;
  apply_details (p->pending, p->details->str);
  add_entry (p, g_steal_pointer (&p->pending));
  g_string_truncate (p->details, 0);
}

static void
html_start (void *user_data, const xmlChar *name, const xmlChar **attrs)
{
  LbListingParser *p = user_data;

  if (p->error != NULL)
    return;
  if (xmlStrcasecmp (name, BAD_CAST "a") == 0)
    {
      const char *href = NULL;
      g_autofree char *uri = NULL;
      g_autofree char *entry_name = NULL;
      gboolean is_dir = FALSE;

      flush_pending (p);
      p->anchor_depth++;
      for (guint i = 0; attrs != NULL && attrs[i] != NULL; i += 2)
        if (xmlStrcasecmp (attrs[i], BAD_CAST "href") == 0)
          href = (const char *) attrs[i + 1];
      if (href != NULL
          && classify_prepared (&p->prepared, href, &uri, &entry_name, &is_dir) == LB_LISTING_HREF_CHILD
          && !g_hash_table_contains (p->seen, entry_name))
        {
          g_hash_table_add (p->seen, g_strdup (entry_name));
          p->pending = lb_store_entry_new (uri, entry_name,
                                           is_dir ? LB_STORE_ENTRY_DIRECTORY
                                                  : lb_store_entry_guess_file_kind (entry_name, NULL));
          g_string_truncate (p->details, 0);
        }
    }
  else if (p->pending != NULL && xmlStrcasecmp (name, BAD_CAST "td") == 0)
    g_string_append_c (p->details, '\t');
}

static void
html_end (void *user_data, const xmlChar *name)
{
  LbListingParser *p = user_data;

  if (p->error != NULL)
    return;
  if (xmlStrcasecmp (name, BAD_CAST "a") == 0)
    {
      if (p->anchor_depth > 0)
        p->anchor_depth--;
    }
  else if (xmlStrcasecmp (name, BAD_CAST "tr") == 0 || xmlStrcasecmp (name, BAD_CAST "pre") == 0
           || xmlStrcasecmp (name, BAD_CAST "li") == 0 || xmlStrcasecmp (name, BAD_CAST "table") == 0)
    flush_pending (p);
}

static void
html_characters (void *user_data, const xmlChar *chars, int len)
{
  LbListingParser *p = user_data;

  /* link text is never used: it is truncated and escaped by the servers */
  if (p->error != NULL || p->pending == NULL || p->anchor_depth > 0)
    return;
  if (p->details->len + len <= MAX_DETAIL_CHARS)
    g_string_append_len (p->details, (const char *) chars, len);
}

/* multistatus SAX ----------------------------------------------------------------------------- */

static gboolean
is_dav_name (const xmlChar *uri, const xmlChar *localname, const char *name)
{
  return uri != NULL && xmlStrcmp (uri, BAD_CAST DAV_NS) == 0
         && xmlStrcmp (localname, BAD_CAST name) == 0;
}

static void
apply_prop (LbStoreEntry *entry, const char *name, char *text)
{
  g_strstrip (text);
  if (*text == '\0')
    return;
  if (g_str_equal (name, "getcontentlength"))
    {
      char *end = NULL;
      gint64 size = g_ascii_strtoll (text, &end, 10);
      if (end != NULL && *end == '\0' && size >= 0)
        lb_store_entry_set_size (entry, size);
    }
  else if (g_str_equal (name, "getlastmodified"))
    {
      g_autoptr(GDateTime) mtime = lb_http_parse_date (text);
      lb_store_entry_set_mtime (entry, mtime);
    }
  else if (g_str_equal (name, "getetag"))
    lb_store_entry_set_etag (entry, text);
  else if (g_str_equal (name, "getcontenttype"))
    {
      char *semi = strchr (text, ';');
      if (semi != NULL)
        *semi = '\0';
      lb_store_entry_set_content_type (entry, g_strstrip (text));
    }
  else if (g_str_equal (name, "displayname"))
    lb_store_entry_set_display_name (entry, text);
}

static const char *const wanted_props[] = {
  "getcontentlength", "getlastmodified", "getetag", "getcontenttype", "displayname",
};

static void
dav_start (void *user_data, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri,
           int nb_namespaces, const xmlChar **namespaces, int nb_attributes, int nb_defaulted,
           const xmlChar **attributes)
{
  LbListingParser *p = user_data;

  if (p->error != NULL)
    return;
  p->depth++;
  if (!p->saw_root)
    {
      p->saw_root = TRUE;
      p->is_multistatus = is_dav_name (uri, localname, "multistatus");
      if (!p->is_multistatus)
        fail (p, g_error_new (LB_ERROR, LB_ERROR_PARSE, "%s: not a WebDAV multistatus response",
                              p->ctx.base_uri));
      return;
    }
  if (p->response_depth == 0)
    {
      if (p->depth == 2 && is_dav_name (uri, localname, "response"))
        {
          p->response_depth = p->depth;
          g_clear_pointer (&p->href, g_free);
          p->have_props = FALSE;
          p->is_collection = FALSE;
          g_ptr_array_set_size (p->props, 0);
        }
      return;
    }
  if (p->depth == p->response_depth + 1 && is_dav_name (uri, localname, "href"))
    {
      p->collecting = TRUE;
      g_string_truncate (p->text, 0);
    }
  else if (p->depth == p->response_depth + 1 && is_dav_name (uri, localname, "propstat"))
    {
      p->in_propstat = TRUE;
      p->propstat_status = 0;
      p->pending_collection = FALSE;
      g_ptr_array_set_size (p->pending_props, 0);
    }
  else if (p->in_propstat && p->depth == p->response_depth + 2 && is_dav_name (uri, localname, "prop"))
    p->in_prop = TRUE;
  else if (p->in_propstat && p->depth == p->response_depth + 2 && is_dav_name (uri, localname, "status"))
    {
      p->collecting = TRUE;
      g_string_truncate (p->text, 0);
    }
  else if (p->in_prop && p->depth == p->response_depth + 3)
    {
      if (is_dav_name (uri, localname, "resourcetype"))
        p->in_resourcetype = TRUE;
      else
        for (guint i = 0; i < G_N_ELEMENTS (wanted_props); i++)
          if (is_dav_name (uri, localname, wanted_props[i]))
            {
              p->collecting = TRUE;
              g_string_truncate (p->text, 0);
            }
    }
  else if (p->in_resourcetype && p->depth == p->response_depth + 4
           && is_dav_name (uri, localname, "collection"))
    p->pending_collection = TRUE;
}

/* Only 2xx propstats count (Apache adds a 404 propstat for properties it lacks). */
static void
end_propstat (LbListingParser *p)
{
  if (p->propstat_status < 200 || p->propstat_status >= 300)
    return;
  p->have_props = TRUE;
  if (p->pending_collection)
    p->is_collection = TRUE;
  for (guint i = 0; i < p->pending_props->len; i++)
    g_ptr_array_add (p->props, g_strdup (p->pending_props->pdata[i]));
}

static void
finish_response (LbListingParser *p)
{
  g_autofree char *uri = NULL;
  g_autofree char *name = NULL;
  g_autoptr(LbStoreEntry) entry = NULL;
  gboolean is_dir = FALSE;
  LbListingHrefKind kind;

  kind = classify_prepared (&p->prepared, p->href, &uri, &name, &is_dir);
  if (kind == LB_LISTING_HREF_REJECT || !p->have_props)
    return;
  if (kind == LB_LISTING_HREF_SELF)
    name = lb_store_uri_display_name (uri);
  entry = lb_store_entry_new (uri, name, LB_STORE_ENTRY_FILE);
  for (guint i = 0; i + 1 < p->props->len; i += 2)
    apply_prop (entry, p->props->pdata[i], p->props->pdata[i + 1]);
  if (p->is_collection)
    {
      lb_store_entry_set_kind (entry, LB_STORE_ENTRY_DIRECTORY);
      lb_store_entry_set_size (entry, -1);
      lb_store_entry_set_content_type (entry, NULL);
      if (!g_str_has_suffix (uri, "/"))
        {
          /* Orthanc lists collections without the trailing slash */
          g_autofree char *with_slash = g_strconcat (uri, "/", NULL);
          lb_store_entry_set_uri (entry, with_slash);
        }
    }
  else
    lb_store_entry_set_kind (entry, lb_store_entry_guess_file_kind (
                                      name, lb_store_entry_get_content_type (entry)));
  if (kind == LB_LISTING_HREF_SELF)
    {
      if (p->self_entry == NULL)
        p->self_entry = g_steal_pointer (&entry);
      return;
    }
  if (g_hash_table_contains (p->seen, name))
    return;
  g_hash_table_add (p->seen, g_strdup (name));
  add_entry (p, g_steal_pointer (&entry));
}

static void
dav_end (void *user_data, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri)
{
  LbListingParser *p = user_data;

  if (p->error != NULL)
    return;
  if (p->response_depth > 0)
    {
      if (p->depth == p->response_depth)
        {
          finish_response (p);
          p->response_depth = 0;
          g_ptr_array_set_size (p->props, 0);
        }
      else if (p->depth == p->response_depth + 1 && is_dav_name (uri, localname, "href"))
        {
          /* A response may carry several hrefs (RFC 4918 §14.24): the last one counts. */
          g_free (p->href);
          p->href = g_strdup (p->text->str);
          p->collecting = FALSE;
        }
      else if (p->depth == p->response_depth + 1 && is_dav_name (uri, localname, "propstat"))
        {
          end_propstat (p);
          p->in_propstat = FALSE;
        }
      else if (p->in_propstat && p->depth == p->response_depth + 2
               && is_dav_name (uri, localname, "prop"))
        p->in_prop = FALSE;
      else if (p->in_propstat && p->depth == p->response_depth + 2
               && is_dav_name (uri, localname, "status"))
        {
          const char *space = strchr (p->text->str, ' ');
          p->propstat_status = space != NULL ? (guint) g_ascii_strtoull (space + 1, NULL, 10) : 0;
          p->collecting = FALSE;
        }
      else if (p->in_prop && p->depth == p->response_depth + 3)
        {
          if (p->in_resourcetype)
            p->in_resourcetype = FALSE;
          else if (p->collecting)
            {
              g_ptr_array_add (p->pending_props, g_strdup ((const char *) localname));
              g_ptr_array_add (p->pending_props, g_strdup (p->text->str));
              p->collecting = FALSE;
            }
        }
    }
  if (p->depth > 0)
    p->depth--;
}

static void
dav_characters (void *user_data, const xmlChar *chars, int len)
{
  LbListingParser *p = user_data;

  if (p->error != NULL || !p->collecting)
    return;
  if (p->text->len + len > MAX_TEXT_CHARS)
    {
      fail (p, g_error_new (LB_ERROR, LB_ERROR_TOO_LARGE, "%s: a value in the listing is too long",
                            p->ctx.base_uri));
      return;
    }
  g_string_append_len (p->text, (const char *) chars, len);
}

static void
silent_error (void *user_data, const char *msg, ...)
{
}

static void
silent_structured_error (void *user_data, xmlErrorPtr error)
{
}

/* Zeroes @sax (no comment, processing-instruction or entity handling: nothing the caller does
 * not set) and silences its warnings and errors; the caller sets the callbacks it wants. */
static void
sax_init_silent (xmlSAXHandler *sax)
{
  memset (sax, 0, sizeof *sax);
  sax->warning = silent_error;
  sax->error = silent_error;
  sax->fatalError = silent_error;
}

LbListingParser *
lb_listing_parser_new (LbListingFormat format, const LbListingContext *ctx)
{
  LbListingParser *p = g_new0 (LbListingParser, 1);

  p->format = format;
  p->base_uri = g_strdup (ctx->base_uri);
  p->root_uri = g_strdup (ctx->root_uri);
  p->ctx.base_uri = p->base_uri;
  p->ctx.root_uri = p->root_uri;
  p->ctx.max_entries = ctx->max_entries;
  p->ctx.cancellable = ctx->cancellable != NULL ? g_object_ref (ctx->cancellable) : NULL;
  prepared_init (&p->prepared, &p->ctx);
  p->entries = g_ptr_array_new_with_free_func (g_object_unref);
  p->seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  p->details = g_string_new (NULL);
  p->text = g_string_new (NULL);
  p->props = g_ptr_array_new_with_free_func (g_free);
  p->pending_props = g_ptr_array_new_with_free_func (g_free);

  switch (format)
    {
    case LB_LISTING_HTML:
      /* only our callbacks: libxml2's defaults would build a tree (and expect the parser
       * context as their user data) */
      sax_init_silent (&p->sax);
      p->sax.startElement = html_start;
      p->sax.endElement = html_end;
      p->sax.characters = html_characters;
      p->sax.ignorableWhitespace = html_characters;
      p->xml = htmlCreatePushParserCtxt (&p->sax, p, NULL, 0, p->base_uri, XML_CHAR_ENCODING_UTF8);
      htmlCtxtUseOptions (p->xml, HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING
                                  | HTML_PARSE_NONET | HTML_PARSE_NOBLANKS);
      break;
    case LB_LISTING_MULTISTATUS:
      sax_init_silent (&p->sax);
      p->sax.initialized = XML_SAX2_MAGIC;
      p->sax.startElementNs = dav_start;
      p->sax.endElementNs = dav_end;
      p->sax.characters = dav_characters;
      p->sax.cdataBlock = dav_characters;
      p->sax.ignorableWhitespace = dav_characters;
      p->sax.reference = NULL;       /* entity references are not expanded into text */
      p->sax.externalSubset = NULL;  /* no external DTD */
      p->sax.resolveEntity = NULL;
      p->sax.serror = silent_structured_error;
      p->xml = xmlCreatePushParserCtxt (&p->sax, p, NULL, 0, p->base_uri);
      /* no entity substitution, no DTD loading, no network: hostile XML stays inert */
      xmlCtxtUseOptions (p->xml, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
      break;
    case LB_LISTING_JSON:
    default:
      p->json = g_byte_array_new ();
      break;
    }
  return p;
}

void
lb_listing_parser_free (LbListingParser *p)
{
  if (p == NULL)
    return;
  if (p->xml != NULL)
    {
      if (p->xml->myDoc != NULL)
        xmlFreeDoc (p->xml->myDoc);
      p->xml->myDoc = NULL;
      if (p->format == LB_LISTING_HTML)
        htmlFreeParserCtxt (p->xml);
      else
        xmlFreeParserCtxt (p->xml);
    }
  g_clear_pointer (&p->json, g_byte_array_unref);
  g_ptr_array_unref (p->entries);
  g_hash_table_unref (p->seen);
  g_clear_error (&p->error);
  g_clear_object (&p->pending);
  g_string_free (p->details, TRUE);
  g_string_free (p->text, TRUE);
  g_free (p->href);
  g_ptr_array_unref (p->props);
  g_ptr_array_unref (p->pending_props);
  g_clear_object (&p->current);
  g_clear_object (&p->self_entry);
  prepared_clear (&p->prepared);
  g_free (p->base_uri);
  g_free (p->root_uri);
  g_clear_object (&p->ctx.cancellable);
  g_free (p);
}

gboolean
lb_listing_parser_feed (LbListingParser *p, const char *data, gsize len, GError **error)
{
  while (p->error == NULL && len > 0)
    {
      /* libxml2 takes int-sized chunks */
      int chunk = (int) MIN (len, (gsize) (1 << 20));

      if (p->json != NULL)
        g_byte_array_append (p->json, (const guint8 *) data, chunk);
      else if (p->format == LB_LISTING_HTML)
        htmlParseChunk (p->xml, data, chunk, 0);
      else if (xmlParseChunk (p->xml, data, chunk, 0) != 0 && p->error == NULL)
        fail (p, g_error_new (LB_ERROR, LB_ERROR_PARSE, "%s: malformed WebDAV response",
                              p->ctx.base_uri));
      data += chunk;
      len -= chunk;
    }
  if (p->error != NULL)
    {
      g_set_error_literal (error, p->error->domain, p->error->code, p->error->message);
      return FALSE;
    }
  return TRUE;
}

GPtrArray *
lb_listing_parser_finish (LbListingParser *p, LbStoreEntry **out_self, GError **error)
{
  if (out_self != NULL)
    *out_self = NULL;
  if (p->error == NULL && !p->finished)
    {
      p->finished = TRUE;
      if (p->format == LB_LISTING_HTML)
        {
          htmlParseChunk (p->xml, NULL, 0, 1);
          if (p->error == NULL)
            flush_pending (p);
        }
      else if (p->format == LB_LISTING_MULTISTATUS)
        {
          if (xmlParseChunk (p->xml, NULL, 0, 1) != 0 && p->error == NULL)
            fail (p, g_error_new (LB_ERROR, LB_ERROR_PARSE, "%s: malformed WebDAV response",
                                  p->ctx.base_uri));
          if (p->error == NULL && !p->is_multistatus)
            fail (p, g_error_new (LB_ERROR, LB_ERROR_PARSE,
                                  "%s: not a WebDAV multistatus response", p->ctx.base_uri));
        }
      else
        {
          GPtrArray *parsed = lb_listing_parse_json ((const char *) p->json->data, p->json->len,
                                                     &p->ctx, &p->error);
          if (parsed != NULL)
            {
              g_ptr_array_unref (p->entries);
              p->entries = parsed;
            }
        }
    }
  if (p->error != NULL)
    {
      g_set_error_literal (error, p->error->domain, p->error->code, p->error->message);
      return NULL;
    }
  if (out_self != NULL)
    *out_self = g_steal_pointer (&p->self_entry);
  return g_ptr_array_ref (p->entries);
}

static GPtrArray *
parse_whole (LbListingFormat format, const char *data, gsize len, const LbListingContext *ctx,
             LbStoreEntry **out_self, GError **error)
{
  g_autoptr(LbListingParser) p = lb_listing_parser_new (format, ctx);

  if (!lb_listing_parser_feed (p, data, len, error))
    return NULL;
  return lb_listing_parser_finish (p, out_self, error);
}

GPtrArray *
lb_listing_parse_html (const char *data, gsize len, const LbListingContext *ctx, GError **error)
{
  return parse_whole (LB_LISTING_HTML, data, len, ctx, NULL, error);
}

GPtrArray *
lb_listing_parse_multistatus (const char *data, gsize len, const LbListingContext *ctx,
                              LbStoreEntry **out_self, GError **error)
{
  return parse_whole (LB_LISTING_MULTISTATUS, data, len, ctx, out_self, error);
}

