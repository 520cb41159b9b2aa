/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-listing-parser"

#include "lb-listing-parser.h"

#include <json-glib/json-glib.h>
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <string.h>

#include "lb-error.h"
#include "lb-http.h"
#include "lb-store.h"

#define DAV_NS "DAV:"

/* ---- href classification ------------------------------------------------------------------ */

/* Characters allowed through unescaped when normalising an href: everything reserved plus
 * '%' (existing escapes stay as they are). Spaces, quotes, raw UTF-8 get escaped. */
#define HREF_KEEP "!$&'()*+,;=:@/?#[]%~"

static gboolean
same_origin (GUri *a, GUri *b)
{
  return g_ascii_strcasecmp (g_uri_get_scheme (a), g_uri_get_scheme (b)) == 0
         && g_uri_get_host (a) != NULL && g_uri_get_host (b) != NULL
         && g_ascii_strcasecmp (g_uri_get_host (a), g_uri_get_host (b)) == 0
         && g_uri_get_port (a) == g_uri_get_port (b);
}

/* Percent-decoded path, or NULL if it hides a NUL or a dot segment ("/a/%2e%2e/b"). */
static char *
decoded_path (const char *path)
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

LbListingHrefKind
lb_listing_classify_href (const LbListingContext *ctx, const char *href, char **out_uri,
                          char **out_name, gboolean *out_is_dir)
{
  g_autofree char *normalised = NULL;
  g_autofree char *resolved = NULL;
  g_autoptr(GUri) uri = NULL;
  g_autoptr(GUri) base = NULL;
  g_autoptr(GUri) root = NULL;
  g_autofree char *path = NULL;
  g_autofree char *base_path = NULL;
  g_autofree char *root_path = NULL;
  g_autofree char *path_stripped = NULL;
  g_autofree char *base_stripped = NULL;
  const char *raw_path;
  const char *rest;
  gboolean is_dir;

  if (out_uri != NULL)
    *out_uri = NULL;
  if (out_name != NULL)
    *out_name = NULL;
  if (out_is_dir != NULL)
    *out_is_dir = FALSE;
  if (href == NULL)
    return LB_LISTING_HREF_REJECT;
  while (g_ascii_isspace (*href))
    href++;
  if (*href == '\0' || *href == '#' || *href == '?')
    return LB_LISTING_HREF_REJECT;

  normalised = g_uri_escape_string (href, HREF_KEEP, FALSE);
  resolved = g_uri_resolve_relative (ctx->base_uri, normalised, G_URI_FLAGS_ENCODED, NULL);
  if (resolved == NULL)
    return LB_LISTING_HREF_REJECT;
  uri = g_uri_parse (resolved, G_URI_FLAGS_ENCODED, NULL);
  base = g_uri_parse (ctx->base_uri, G_URI_FLAGS_ENCODED, NULL);
  root = g_uri_parse (ctx->root_uri, G_URI_FLAGS_ENCODED, NULL);
  if (uri == NULL || base == NULL || root == NULL)
    return LB_LISTING_HREF_REJECT;
  if (g_uri_get_query (uri) != NULL || g_uri_get_fragment (uri) != NULL)
    return LB_LISTING_HREF_REJECT;
  if (!same_origin (uri, root) || !same_origin (base, root))
    return LB_LISTING_HREF_REJECT;

  raw_path = g_uri_get_path (uri);
  path = decoded_path (raw_path);
  base_path = decoded_path (g_uri_get_path (base));
  root_path = decoded_path (g_uri_get_path (root));
  if (path == NULL || base_path == NULL || root_path == NULL || *path != '/')
    return LB_LISTING_HREF_REJECT;
  if (!g_str_has_prefix (base_path, root_path) && !g_str_equal (base_path, root_path))
    return LB_LISTING_HREF_REJECT;

  is_dir = g_str_has_suffix (raw_path, "/");
  path_stripped = strip_slashes (path);
  base_stripped = strip_slashes (base_path);
  if (g_str_equal (path_stripped, base_stripped))
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
  if (!g_str_has_prefix (path_stripped, base_stripped)
      || path_stripped[strlen (base_stripped)] != '/')
    return LB_LISTING_HREF_REJECT;
  rest = path_stripped + strlen (base_stripped) + 1;
  if (*rest == '\0' || strchr (rest, '/') != NULL)
    return LB_LISTING_HREF_REJECT;
  /* and still below the root (base is, so a child is; checked again for clarity) */
  if (!g_str_has_prefix (path_stripped, root_path))
    return LB_LISTING_HREF_REJECT;

  if (out_uri != NULL)
    {
      g_autoptr(GUri) clean = g_uri_build (G_URI_FLAGS_ENCODED, g_uri_get_scheme (root),
                                           g_uri_get_userinfo (root), g_uri_get_host (root),
                                           g_uri_get_port (root), raw_path, NULL, NULL);
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

/* ---- HTML --------------------------------------------------------------------------------- */

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

/* Details printed after the link: nginx puts "date time size" in the following text node of
 * the <pre>; Apache's HTMLTable puts them in the next <td>s. */
static void
read_html_details (xmlNodePtr anchor, LbStoreEntry *entry)
{
  g_autoptr(GDateTime) mtime = NULL;
  char *size_text = NULL;

  if (anchor->next != NULL && anchor->next->type == XML_TEXT_NODE && anchor->next->content != NULL)
    {
      g_auto(GStrv) fields = NULL;
      g_autofree char *joined = NULL;
      g_autofree char *line = g_strdup ((const char *) anchor->next->content);
      char *nl = strchr (line, '\n');
      guint n;

      if (nl != NULL)
        *nl = '\0';
      fields = g_strsplit_set (g_strstrip (line), " \t", -1);
      /* drop empty fields from runs of spaces */
      {
        GPtrArray *kept = g_ptr_array_new ();
        for (guint i = 0; fields[i] != NULL; i++)
          if (*fields[i] != '\0')
            g_ptr_array_add (kept, fields[i]);
        n = kept->len;
        if (n >= 2)
          {
            joined = g_strdup_printf ("%s %s", (char *) kept->pdata[0], (char *) kept->pdata[1]);
            mtime = parse_index_time (joined);
          }
        if (n >= 3)
          size_text = g_strdup (kept->pdata[2]);
        g_ptr_array_free (kept, TRUE);
      }
    }
  else if (anchor->parent != NULL && anchor->parent->name != NULL
           && xmlStrcasecmp (anchor->parent->name, BAD_CAST "td") == 0)
    {
      xmlNodePtr td = anchor->parent->next;
      guint column = 0;

      for (; td != NULL && column < 2; td = td->next)
        {
          g_autofree char *text = NULL;
          xmlChar *content;

          if (td->type != XML_ELEMENT_NODE || xmlStrcasecmp (td->name, BAD_CAST "td") != 0)
            continue;
          content = xmlNodeGetContent (td);
          text = g_strstrip (g_strdup (content != NULL ? (const char *) content : ""));
          xmlFree (content);
          if (column == 0)
            mtime = parse_index_time (text);
          else
            size_text = g_strdup (text);
          column++;
        }
    }

  if (mtime != NULL)
    lb_store_entry_set_mtime (entry, mtime);
  if (size_text != NULL && all_digits (size_text) && !lb_store_entry_is_container (entry))
    lb_store_entry_set_size (entry, g_ascii_strtoll (size_text, NULL, 10));
  g_free (size_text);
}

static gboolean
collect_anchors (xmlNodePtr node, const LbListingContext *ctx, GPtrArray *entries,
                 GHashTable *seen, GError **error)
{
  for (; node != NULL; node = node->next)
    {
      if (node->type == XML_ELEMENT_NODE && node->name != NULL
          && xmlStrcasecmp (node->name, BAD_CAST "a") == 0)
        {
          xmlChar *href = xmlGetProp (node, BAD_CAST "href");
          g_autofree char *uri = NULL;
          g_autofree char *name = NULL;
          gboolean is_dir = FALSE;

          if (href != NULL
              && lb_listing_classify_href (ctx, (const char *) href, &uri, &name, &is_dir)
                   == LB_LISTING_HREF_CHILD
              && !g_hash_table_contains (seen, name))
            {
              LbStoreEntry *entry = lb_store_entry_new (
                uri, name, is_dir ? LB_STORE_ENTRY_DIRECTORY
                                  : lb_store_entry_guess_file_kind (name, NULL));
              g_hash_table_add (seen, g_strdup (name));
              read_html_details (node, entry);
              g_ptr_array_add (entries, entry);
              if (!check_cap (entries, ctx, error))
                {
                  xmlFree (href);
                  return FALSE;
                }
            }
          xmlFree (href);
        }
      if (node->children != NULL && !collect_anchors (node->children, ctx, entries, seen, error))
        return FALSE;
    }
  return TRUE;
}

GPtrArray *
lb_listing_parse_html (const char *data, gsize len, const LbListingContext *ctx, GError **error)
{
  g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  htmlDocPtr doc;

  if (len > G_MAXINT)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_TOO_LARGE, "%s: listing too large", ctx->base_uri);
      return NULL;
    }
  /* UTF-8 unless the document says otherwise; no network, never abort on bad markup */
  doc = htmlReadMemory (data, (int) len, ctx->base_uri, "UTF-8",
                        HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING
                        | HTML_PARSE_NONET | HTML_PARSE_COMPACT);
  if (doc == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "%s: not an HTML listing", ctx->base_uri);
      return NULL;
    }
  if (!collect_anchors (xmlDocGetRootElement (doc), ctx, entries, seen, error))
    {
      xmlFreeDoc (doc);
      return NULL;
    }
  xmlFreeDoc (doc);
  return g_steal_pointer (&entries);
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
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
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
      if (lb_listing_classify_href (ctx, child, &uri, &decoded, NULL) != LB_LISTING_HREF_CHILD)
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
        return NULL;
    }
  return g_steal_pointer (&entries);
}

/* ---- WebDAV multistatus ------------------------------------------------------------------- */

static gboolean
is_dav (xmlNodePtr node, const char *name)
{
  return node != NULL && node->type == XML_ELEMENT_NODE && node->ns != NULL
         && node->ns->href != NULL && xmlStrcmp (node->ns->href, BAD_CAST DAV_NS) == 0
         && xmlStrcmp (node->name, BAD_CAST name) == 0;
}

static xmlNodePtr
dav_child (xmlNodePtr parent, const char *name)
{
  for (xmlNodePtr c = parent->children; c != NULL; c = c->next)
    if (is_dav (c, name))
      return c;
  return NULL;
}

static char *
node_text (xmlNodePtr node)
{
  xmlChar *content = node != NULL ? xmlNodeGetContent (node) : NULL;
  char *text;

  if (content == NULL)
    return NULL;
  text = g_strstrip (g_strdup ((const char *) content));
  xmlFree (content);
  return text;
}

/* "HTTP/1.1 200 OK" → 200 */
static guint
status_code (const char *status_line)
{
  const char *space = status_line != NULL ? strchr (status_line, ' ') : NULL;

  return space != NULL ? (guint) g_ascii_strtoull (space + 1, NULL, 10) : 0;
}

static void
apply_props (xmlNodePtr prop, LbStoreEntry *entry, gboolean *is_collection)
{
  for (xmlNodePtr p = prop->children; p != NULL; p = p->next)
    {
      g_autofree char *text = NULL;

      if (p->type != XML_ELEMENT_NODE)
        continue;
      if (is_dav (p, "resourcetype"))
        {
          if (dav_child (p, "collection") != NULL)
            *is_collection = TRUE;
          continue;
        }
      text = node_text (p);
      if (text == NULL || *text == '\0')
        continue;
      if (is_dav (p, "getcontentlength"))
        {
          char *end = NULL;
          gint64 size = g_ascii_strtoll (text, &end, 10);
          if (end != NULL && *end == '\0' && size >= 0)
            lb_store_entry_set_size (entry, size);
        }
      else if (is_dav (p, "getlastmodified"))
        {
          g_autoptr(GDateTime) mtime = lb_http_parse_date (text);
          lb_store_entry_set_mtime (entry, mtime);
        }
      else if (is_dav (p, "getetag"))
        lb_store_entry_set_etag (entry, text);
      else if (is_dav (p, "getcontenttype"))
        {
          char *semi = strchr (text, ';');
          if (semi != NULL)
            *semi = '\0';
          lb_store_entry_set_content_type (entry, g_strstrip (text));
        }
      else if (is_dav (p, "displayname"))
        lb_store_entry_set_display_name (entry, text);
    }
}

GPtrArray *
lb_listing_parse_multistatus (const char *data, gsize len, const LbListingContext *ctx,
                              LbStoreEntry **out_self, GError **error)
{
  g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  xmlDocPtr doc;
  xmlNodePtr root;

  if (out_self != NULL)
    *out_self = NULL;
  if (len > G_MAXINT)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_TOO_LARGE, "%s: listing too large", ctx->base_uri);
      return NULL;
    }
  /* no entity expansion, no DTD loading, no network: hostile XML stays inert */
  doc = xmlReadMemory (data, (int) len, ctx->base_uri, NULL,
                       XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  root = doc != NULL ? xmlDocGetRootElement (doc) : NULL;
  if (root == NULL || !is_dav (root, "multistatus"))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "%s: not a WebDAV multistatus response",
                   ctx->base_uri);
      if (doc != NULL)
        xmlFreeDoc (doc);
      return NULL;
    }

  for (xmlNodePtr response = root->children; response != NULL; response = response->next)
    {
      g_autofree char *href = NULL;
      g_autofree char *uri = NULL;
      g_autofree char *name = NULL;
      g_autoptr(LbStoreEntry) entry = NULL;
      gboolean is_dir = FALSE;
      gboolean is_collection = FALSE;
      gboolean have_props = FALSE;
      LbListingHrefKind kind;

      if (!is_dav (response, "response"))
        continue;
      href = node_text (dav_child (response, "href"));
      kind = lb_listing_classify_href (ctx, href, &uri, &name, &is_dir);
      if (kind == LB_LISTING_HREF_REJECT)
        continue;
      if (kind == LB_LISTING_HREF_SELF)
        name = lb_store_uri_display_name (uri);
      entry = lb_store_entry_new (uri, name, LB_STORE_ENTRY_FILE);
      for (xmlNodePtr ps = response->children; ps != NULL; ps = ps->next)
        {
          g_autofree char *status = NULL;
          xmlNodePtr prop;
          guint code;

          if (!is_dav (ps, "propstat"))
            continue;
          status = node_text (dav_child (ps, "status"));
          code = status_code (status);
          prop = dav_child (ps, "prop");
          if (code < 200 || code >= 300 || prop == NULL)
            continue;
          apply_props (prop, entry, &is_collection);
          have_props = TRUE;
        }
      if (!have_props)
        continue;
      if (is_collection)
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
          if (out_self != NULL && *out_self == NULL)
            *out_self = g_steal_pointer (&entry);
          continue;
        }
      if (g_hash_table_contains (seen, name))
        continue;
      g_hash_table_add (seen, g_strdup (name));
      g_ptr_array_add (entries, g_steal_pointer (&entry));
      if (!check_cap (entries, ctx, error))
        {
          if (out_self != NULL)
            g_clear_object (out_self);
          xmlFreeDoc (doc);
          return NULL;
        }
    }
  xmlFreeDoc (doc);
  return g_steal_pointer (&entries);
}
