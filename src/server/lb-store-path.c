/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-store-path"

#include "lb-store-path.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static LbStorePathStatus
check_segment (const char *seg)
{
  if (strchr (seg, '\\') != NULL || !g_utf8_validate (seg, -1, NULL))
    return LB_STORE_PATH_BAD_REQUEST;
  /* Control characters (CR, LF, ESC, …) in a name end up in listings, logs and terminals:
   * a name like "a\r\nX-Header: 1" is an injection waiting for a careless consumer. */
  for (const char *c = seg; *c != '\0'; c++)
    if ((guchar) *c < 0x20 || *c == 0x7f)
      return LB_STORE_PATH_BAD_REQUEST;
  if (strcmp (seg, ".") == 0 || strcmp (seg, "..") == 0)
    return LB_STORE_PATH_FORBIDDEN;
  return LB_STORE_PATH_OK;
}

static LbStorePathStatus
split_path (const char *path, gboolean decode, char **rel_out, gboolean *trailing_slash_out)
{
  g_auto(GStrv) segments = NULL;
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);

  *rel_out = NULL;
  *trailing_slash_out = FALSE;

  if (path == NULL || path[0] != '/')
    return LB_STORE_PATH_BAD_REQUEST;
  /* A backslash is a separator on some systems and in some clients' minds: never a name. */
  if (strchr (path, '\\') != NULL)
    return LB_STORE_PATH_BAD_REQUEST;

  segments = g_strsplit (path, "/", -1);
  for (guint i = 0; segments[i] != NULL; i++)
    {
      char *seg;
      LbStorePathStatus st;

      if (segments[i][0] == '\0')
        continue;
      if (decode)
        {
          /* NULL when the segment holds %00 or %2F (NUL and '/' are illegal here), or a
           * malformed escape. */
          seg = g_uri_unescape_segment (segments[i], NULL, "/");
          if (seg == NULL)
            return LB_STORE_PATH_BAD_REQUEST;
        }
      else
        seg = g_strdup (segments[i]);
      st = check_segment (seg);
      if (st != LB_STORE_PATH_OK)
        {
          g_free (seg);
          return st;
        }
      g_ptr_array_add (parts, seg);
    }
  g_ptr_array_add (parts, NULL);

  *trailing_slash_out = g_str_has_suffix (path, "/");
  *rel_out = g_strjoinv ("/", (char **) parts->pdata);
  return LB_STORE_PATH_OK;
}

/*
 * lb_store_path_decode:
 * @encoded_path: a path still percent-encoded (as in a Destination header)
 * @rel_out: (out): the decoded path relative to the root, segments joined by '/', "" for the root
 * @trailing_slash_out: (out): whether the path ended in '/'
 *
 * Each segment is decoded on its own, so "%2f" can never create a separator. Empty segments
 * ("//") are folded; '.' and '..' (also encoded) are refused. Returns LB_STORE_PATH_OK or the
 * HTTP status the request deserves.
 */
LbStorePathStatus
lb_store_path_decode (const char *encoded_path, char **rel_out, gboolean *trailing_slash_out)
{
  return split_path (encoded_path, TRUE, rel_out, trailing_slash_out);
}

/*
 * lb_store_path_check_decoded:
 * @decoded_path: a request path as libsoup's SoupServer hands it over: percent-decoded, dot
 *   segments already resolved (RFC 3986 §5.2.4), so it cannot climb above "/"
 *
 * The same rules as lb_store_path_decode() without decoding again (a literal "%2e%2e" name
 * stays a name).
 */
LbStorePathStatus
lb_store_path_check_decoded (const char *decoded_path, char **rel_out, gboolean *trailing_slash_out)
{
  return split_path (decoded_path, FALSE, rel_out, trailing_slash_out);
}

/* TRUE for the filter repository itself and the .lbfilter files directly in it. */
gboolean
lb_store_path_is_in_filter_repo (const char *rel)
{
  const char *rest;

  if (strcmp (rel, ".lightbox") == 0 || strcmp (rel, LB_STORE_FILTER_DIR) == 0)
    return TRUE;
  if (!g_str_has_prefix (rel, LB_STORE_FILTER_DIR "/"))
    return FALSE;
  rest = rel + strlen (LB_STORE_FILTER_DIR "/");
  return rest[0] != '\0' && rest[0] != '.' && strchr (rest, '/') == NULL;
}

/* A path is hidden when any segment is a dotfile, except the filter repository. */
gboolean
lb_store_path_is_hidden (const char *rel)
{
  const char *p = rel;

  if (lb_store_path_is_in_filter_repo (rel))
    return FALSE;
  while (*p != '\0')
    {
      if (*p == '.')
        return TRUE;
      p = strchr (p, '/');
      if (p == NULL)
        break;
      p++;
    }
  return FALSE;
}

/* Absolute, percent-encoded URL path for @rel; collections get a trailing slash. */
char *
lb_store_path_encode (const char *rel, gboolean collection)
{
  g_autofree char *escaped = g_uri_escape_string (rel, "/", FALSE);
  gboolean slash = collection && rel[0] != '\0';

  return g_strconcat ("/", escaped, slash ? "/" : "", NULL);
}

gboolean
lb_store_path_is_inside (const char *parent, const char *child)
{
  size_t n = strlen (parent);

  if (strcmp (parent, child) == 0)
    return TRUE;
  if (n == 1 && parent[0] == '/')
    return child[0] == '/';
  return strncmp (parent, child, n) == 0 && child[n] == '/';
}

/*
 * lb_store_path_is_contained:
 * @root_real: realpath() of the store root
 * @abs_path: a path below the root, which may not exist yet
 *
 * Resolves the deepest existing ancestor of @abs_path (following symlinks) and checks that
 * it still lies inside the root, so a symlink can never lead a read or a write out of it.
 */
gboolean
lb_store_path_is_contained (const char *root_real, const char *abs_path)
{
  g_autofree char *probe = g_strdup (abs_path);

  for (;;)
    {
      char *resolved = realpath (probe, NULL);

      if (resolved != NULL)
        {
          gboolean inside = lb_store_path_is_inside (root_real, resolved);
          free (resolved);
          return inside;
        }
      if (errno != ENOENT && errno != ENOTDIR)
        return FALSE;
      {
        struct stat st;

        /* A dangling symlink: its target is unknown ground, never inside. */
        if (lstat (probe, &st) == 0 && S_ISLNK (st.st_mode))
          return FALSE;
      }
      {
        char *dir = g_path_get_dirname (probe);
        gboolean same = strcmp (dir, probe) == 0;

        g_free (probe);
        probe = dir;
        if (same)
          return FALSE;
      }
    }
}

/* The protected skeleton of the filter repository: never deleted, moved or replaced. */
gboolean
lb_store_path_is_filter_repo_dir (const char *rel)
{
  return strcmp (rel, ".lightbox") == 0 || strcmp (rel, LB_STORE_FILTER_DIR) == 0;
}

/* Whether a new resource may be created at @rel (names only: dotfiles, filter repository). */
LbStorePathStatus
lb_store_path_check_creatable (const char *rel, gboolean collection)
{
  if (rel[0] == '\0' || lb_store_path_is_filter_repo_dir (rel))
    return LB_STORE_PATH_FORBIDDEN;
  if (lb_store_path_is_in_filter_repo (rel))
    return (!collection && g_str_has_suffix (rel, LB_STORE_FILTER_SUFFIX)) ? LB_STORE_PATH_OK
                                                                           : LB_STORE_PATH_FORBIDDEN;
  if (lb_store_path_is_hidden (rel))
    return LB_STORE_PATH_FORBIDDEN;
  return LB_STORE_PATH_OK;
}
