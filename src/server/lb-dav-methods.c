/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-store-server"

#include "lb-dav-methods.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lb-dav-xml.h"
#include "lb-error.h"
#include "lb-http-conditions.h"
#include "lb-store-fs.h"
#include "lb-store-lock.h"
#include "lb-store-mime.h"
#include "lb-store-path.h"
#include "lb-store-reply.h"
#include "lb-store-server-private.h"
#include "lb-store-upload.h"

#define LB_GET_COPY_MAX (64 * 1024) /* bytes: GET reads files up to this size, maps larger ones */

void
lb_dav_handle_options (LbStoreServer *self, SoupServerMessage *msg)
{
  SoupMessageHeaders *rh = soup_server_message_get_response_headers (msg);

  soup_message_headers_replace (rh, "DAV", "1");
  soup_message_headers_replace (rh, "MS-Author-Via", "DAV");
  soup_message_headers_replace (rh, "Allow", LB_DAV_ALLOW_METHODS);
  soup_message_headers_replace (rh, "Accept-Ranges", "bytes");
  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
}

static void
send_listing (LbStoreServer *self, SoupServerMessage *msg, LbStoreRequest *req)
{
  g_autoptr(GPtrArray) names = lb_store_fs_list_children (self->root_real, req->abs);
  g_autoptr(GString) html = g_string_new (NULL);
  g_autofree char *title = g_markup_escape_text (req->rel[0] ? req->rel : "", -1);
  gsize len;

  if (names == NULL)
    return lb_store_reply_errno (msg, errno);

  /* Relative hrefs, each name percent-encoded as one segment, collections ending in '/'. */
  g_string_append_printf (html,
                          "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n"
                          "<title>Index of /%s%s</title>\n</head>\n<body>\n"
                          "<h1>Index of /%s%s</h1>\n<table>\n"
                          "<tr><th>Name</th><th>Last modified</th><th>Size</th></tr>\n",
                          title, req->rel[0] ? "/" : "", title, req->rel[0] ? "/" : "");
  if (req->rel[0] != '\0')
    g_string_append (html, "<tr><td><a href=\"../\">../</a></td><td></td><td>-</td></tr>\n");
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autofree char *child = g_build_filename (req->abs, name, NULL);
      g_autofree char *href = g_uri_escape_string (name, NULL, FALSE);
      g_autofree char *text = g_markup_escape_text (name, -1);
      g_autofree char *when = NULL;
      struct stat st;
      gboolean dir;

      if (stat (child, &st) != 0)
        continue;
      dir = S_ISDIR (st.st_mode);
      when = lb_dav_format_iso8601 (st.st_mtim.tv_sec);
      if (dir)
        g_string_append_printf (html, "<tr><td><a href=\"%s/\">%s/</a></td><td>%s</td><td>-</td></tr>\n",
                                href, text, when);
      else
        g_string_append_printf (html,
                                "<tr><td><a href=\"%s\">%s</a></td><td>%s</td><td>%" G_GINT64_FORMAT "</td></tr>\n",
                                href, text, when, (gint64) st.st_size);
    }
  g_string_append (html, "</table>\n</body>\n</html>\n");
  len = html->len;
  soup_message_body_set_accumulate (soup_server_message_get_response_body (msg), FALSE);
  soup_server_message_set_response (msg, "text/html; charset=utf-8", SOUP_MEMORY_TAKE,
                                    g_string_free (g_steal_pointer (&html), FALSE), len);
  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
}

void
lb_dav_handle_get (LbStoreServer *self, SoupServerMessage *msg, LbStoreRequest *req)
{
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);
  SoupMessageHeaders *rh = soup_server_message_get_response_headers (msg);
  g_autoptr(GMappedFile) map = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *etag = NULL;
  g_autofree char *lastmod = NULL;
  g_autofree char *ct_owned = NULL;
  const char *content_type;
  g_autoptr(GError) error = NULL;
  struct stat st;
  guint status;
  goffset start = 0, end = 0;
  LbHttpRange range;
  int fd;

  /* Without blocking: a FIFO (or a device) in the root would otherwise hold the main loop in
   * open() until a writer appears. Only files and collections are served (fstat below). */
  fd = open (req->abs, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    return lb_store_reply_error (msg, errno == ENOENT || errno == ENOTDIR ? SOUP_STATUS_NOT_FOUND
                                                                          : lb_store_reply_errno_status (errno),
                                 NULL);
  if (fstat (fd, &st) != 0)
    {
      close (fd);
      return lb_store_reply_error (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, g_strerror (errno));
    }
  if (S_ISDIR (st.st_mode))
    {
      close (fd);
      if (!req->slash && req->rel[0] != '\0')
        {
          g_autofree char *to = lb_store_path_encode (req->rel, TRUE);
          soup_server_message_set_redirect (msg, SOUP_STATUS_MOVED_PERMANENTLY, to);
          return;
        }
      if ((status = lb_http_evaluate_preconditions (h, &st, TRUE)) != 0)
        return soup_server_message_set_status (msg, status, NULL);
      return send_listing (self, msg, req);
    }
  if (!S_ISREG (st.st_mode))
    {
      close (fd);
      return lb_store_reply_error (msg, SOUP_STATUS_NOT_FOUND, NULL);
    }
  if (req->slash)
    {
      close (fd);
      return lb_store_reply_error (msg, SOUP_STATUS_NOT_FOUND, NULL);
    }

  etag = lb_http_make_etag (&st);
  lastmod = lb_dav_format_rfc1123 (st.st_mtim.tv_sec);
  soup_message_headers_replace (rh, "ETag", etag);
  soup_message_headers_replace (rh, "Last-Modified", lastmod);
  soup_message_headers_replace (rh, "Accept-Ranges", "bytes");

  status = lb_http_evaluate_preconditions (h, &st, TRUE);
  if (status != 0)
    {
      close (fd);
      return soup_server_message_set_status (msg, status, NULL);
    }

  if (st.st_size > 0 && st.st_size <= LB_GET_COPY_MAX)
    {
      /* Small files are read: a mapping costs mmap, a page fault per page and munmap (with a
       * TLB flush), more than copying a few pages once. */
      gsize len = (gsize) st.st_size, got;
      guint8 *data = g_malloc (len);

      got = lb_store_fs_read_head (fd, data, len);
      close (fd);
      if (got != len)
        {
          g_free (data);
          /* Truncated under us by something outside the server (its own PUTs rename a new
           * inode in): an error, never a short body under the full Content-Length. */
          return lb_store_reply_error (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, "short read");
        }
      bytes = g_bytes_new_take (data, len);
    }
  else if (st.st_size > 0)
    {
      /* A mapping, not a copy: a PUT renames a new inode in, so these pages never change. */
      map = g_mapped_file_new_from_fd (fd, FALSE, &error);
      close (fd);
      if (map == NULL)
        return lb_store_reply_error (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, error->message);
      bytes = g_mapped_file_get_bytes (map);
    }
  else
    {
      close (fd);
      bytes = g_bytes_new (NULL, 0);
    }

  /* From the file's start, before a Range takes a slice of it. */
  content_type = lb_store_mime_type (req->rel, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), &ct_owned);
  range = lb_http_select_range (h, st.st_size, etag, st.st_mtim.tv_sec, &start, &end);
  if (range == LB_HTTP_RANGE_UNSATISFIABLE)
    {
      g_autofree char *cr = g_strdup_printf ("bytes */%" G_GINT64_FORMAT, (gint64) st.st_size);

      soup_message_headers_replace (rh, "Content-Range", cr);
      return lb_store_reply_error (msg, SOUP_STATUS_REQUESTED_RANGE_NOT_SATISFIABLE, NULL);
    }
  if (range == LB_HTTP_RANGE_PARTIAL)
    {
      g_autofree char *cr = g_strdup_printf ("bytes %" G_GOFFSET_FORMAT "-%" G_GOFFSET_FORMAT "/%" G_GINT64_FORMAT,
                                             start, end, (gint64) st.st_size);
      g_autoptr(GBytes) part = g_bytes_new_from_bytes (bytes, (gsize) start, (gsize) (end - start + 1));

      soup_message_headers_replace (rh, "Content-Range", cr);
      g_clear_pointer (&bytes, g_bytes_unref);
      bytes = g_steal_pointer (&part);
      status = SOUP_STATUS_PARTIAL_CONTENT;
    }
  else
    status = SOUP_STATUS_OK;

  soup_message_headers_set_content_type (rh, content_type, NULL);
  /* libsoup would apply Range to a complete 200 body on its own, ignoring If-Range; ranges
   * are decided above, so its automatic handling is switched off. */
  soup_message_body_set_accumulate (soup_server_message_get_response_body (msg), FALSE);
  if (g_bytes_get_size (bytes) > 0)
    soup_message_body_append_bytes (soup_server_message_get_response_body (msg), bytes);
  soup_server_message_set_status (msg, status, NULL);
}

/*
 * PROPPATCH: the store keeps no dead properties and its live properties are computed from the
 * file system, so every change is refused — per property, in a 207, as RFC 4918 §9.2 asks
 * (all-or-nothing, so one refusal refuses all).
 */
void
lb_dav_handle_proppatch (LbStoreServer *self, SoupServerMessage *msg, LbStoreRequest *req)
{
  g_autoptr(GPtrArray) names = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) out = NULL;
  g_autofree char *href = NULL;
  struct stat st;
  xmlDocPtr doc;

  if (stat (req->abs, &st) != 0)
    return lb_store_reply_error (msg, SOUP_STATUS_NOT_FOUND, NULL);
  if (!lb_dav_parse_propertyupdate ((const char *) req->body->data, req->body->len, &names, &error))
    return lb_store_reply_error (msg, g_error_matches (error, LB_ERROR, LB_ERROR_TOO_LARGE)
                                       ? SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE : SOUP_STATUS_BAD_REQUEST,
                                 error->message);
  href = lb_store_path_encode (req->rel, S_ISDIR (st.st_mode));
  doc = lb_dav_multistatus_new ();
  lb_dav_multistatus_add_propstat (doc, href, names, SOUP_STATUS_FORBIDDEN,
                                   "cannot-modify-protected-property");
  out = lb_dav_doc_to_bytes (doc);
  xmlFreeDoc (doc);
  lb_store_reply_xml (msg, SOUP_STATUS_MULTI_STATUS, out);
}

void
lb_dav_handle_mkcol (LbStoreServer *self, SoupServerMessage *msg, LbStoreRequest *req)
{
  guint status;
  struct stat st;

  if (req->bytes_in > 0 || lb_store_request_has_body (msg))
    return lb_store_reply_error (msg, SOUP_STATUS_UNSUPPORTED_MEDIA_TYPE, "MKCOL with a body");
  if (lstat (req->abs, &st) == 0)
    {
      soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Allow",
                                    LB_DAV_ALLOW_METHODS);
      return lb_store_reply_error (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, "the resource exists");
    }
  if ((status = lb_store_path_check_creatable (req->rel, TRUE)) != 0)
    return lb_store_reply_error (msg, status, "this name cannot be created");
  if (!lb_store_fs_parent_is_dir (req->abs))
    return lb_store_reply_error (msg, SOUP_STATUS_CONFLICT, "parent collection does not exist");
  if (mkdir (req->abs, 0777 & ~self->umask) != 0)
    return lb_store_reply_errno (msg, errno);
  lb_store_fs_sync_dir_of (req->abs);
  soup_server_message_set_status (msg, SOUP_STATUS_CREATED, NULL);
}

/* Whether @abs is part of the DAV namespace: a file or a collection (followed through a
 * symlink), not a FIFO, socket or device. @lst gets lstat(), the entry itself. */
static gboolean
in_namespace (const char *abs, struct stat *lst)
{
  struct stat st;

  if (lstat (abs, lst) != 0)
    return FALSE;
  if (!S_ISLNK (lst->st_mode))
    return S_ISREG (lst->st_mode) || S_ISDIR (lst->st_mode);
  return stat (abs, &st) == 0 && (S_ISREG (st.st_mode) || S_ISDIR (st.st_mode));
}

void
lb_dav_handle_delete (LbStoreServer *self, SoupServerMessage *msg, LbStoreRequest *req)
{
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);
  const char *depth = soup_message_headers_get_one (h, "Depth");
  g_autofree char *key = lb_store_lock_key (req->abs);
  g_autoptr(LbStoreLock) lock = NULL;
  struct stat st;
  guint status;
  int err;

  /* Under the path's lock: a PUT with the same If-Match commits before or after, not
   * between the check and the removal. */
  lock = lb_store_lock_acquire (self->locks, key, NULL);
  if (!in_namespace (req->abs, &st))
    return lb_store_reply_error (msg, SOUP_STATUS_NOT_FOUND, NULL);
  if (req->rel[0] == '\0' || lb_store_path_is_filter_repo_dir (req->rel))
    return lb_store_reply_error (msg, SOUP_STATUS_FORBIDDEN, "this collection cannot be deleted");
  if (S_ISDIR (st.st_mode) && depth != NULL && g_ascii_strcasecmp (depth, "infinity") != 0)
    return lb_store_reply_error (msg, SOUP_STATUS_BAD_REQUEST, "DELETE of a collection needs Depth: infinity");
  if ((status = lb_http_evaluate_preconditions (h, &st, FALSE)) != 0)
    return lb_store_reply_error (msg, status, "precondition failed");
  err = lb_store_fs_remove_tree (req->abs);
  if (err != 0)
    return lb_store_reply_errno (msg, err);
  lb_store_fs_sync_dir_of (req->abs);
  soup_server_message_set_status (msg, SOUP_STATUS_NO_CONTENT, NULL);
}

/*
 * Maps the Destination header of COPY/MOVE to a path below the root; returns 0 or a status.
 * RFC 4918 §10.3: Destination = Simple-ref, an absolute URI or an absolute path (an optional
 * query is dropped; this store has none). Anything else is 400, including "//host/x" (a
 * network-path reference, not a path) and userinfo (RFC 9110 §4.2.4). An absolute URI must
 * name this server's namespace: the request's scheme, host and port, else 502 (§9.8.5).
 */
static guint
resolve_destination (LbStoreServer *self, SoupServerMessage *msg, char **rel_out, char **abs_out,
                     gboolean *slash_out)
{
  const char *dest = soup_message_headers_get_one (soup_server_message_get_request_headers (msg),
                                                   "Destination");
  GUri *req_uri = soup_server_message_get_uri (msg);
  g_autoptr(GUri) duri = NULL;
  g_autofree char *path = NULL;
  LbStorePathStatus ps;
  char *q;

  if (dest == NULL)
    return SOUP_STATUS_BAD_REQUEST;
  if (dest[0] == '/')
    {
      if (dest[1] == '/')
        return SOUP_STATUS_BAD_REQUEST;
      path = g_strdup (dest);
    }
  else
    {
      duri = g_uri_parse (dest, G_URI_FLAGS_ENCODED | G_URI_FLAGS_SCHEME_NORMALIZE, NULL);
      if (duri == NULL || g_uri_get_host (duri) == NULL || g_uri_get_userinfo (duri) != NULL ||
          g_uri_get_fragment (duri) != NULL)
        return SOUP_STATUS_BAD_REQUEST;
      if (g_ascii_strcasecmp (g_uri_get_scheme (duri), g_uri_get_scheme (req_uri)) != 0 ||
          g_ascii_strcasecmp (g_uri_get_host (duri), g_uri_get_host (req_uri)) != 0 ||
          g_uri_get_port (duri) != g_uri_get_port (req_uri))
        return SOUP_STATUS_BAD_GATEWAY;
      path = g_strdup (g_uri_get_path (duri));
    }
  if ((q = strchr (path, '?')) != NULL)
    *q = '\0';
  ps = lb_store_path_decode (path, rel_out, slash_out);
  if (ps != LB_STORE_PATH_OK)
    return ps;
  *abs_out = g_build_filename (self->root, *rel_out, NULL);
  if (!lb_store_path_is_contained (self->root_real, *abs_out))
    return SOUP_STATUS_FORBIDDEN;
  return 0;
}

/* The status of a failed commit of COPY or MOVE: EEXIST means something took the name since
 * the check, which Overwrite: F forbids replacing. */
static guint
commit_status (int err)
{
  return err == EEXIST ? SOUP_STATUS_PRECONDITION_FAILED : lb_store_reply_errno_status (err);
}

/* COPY: the copy is built beside the destination, then put in its place (swapped in where it
 * replaces a collection). Returns 0 or an errno; on failure the destination is as it was and
 * no partial copy is left. */
static int
copy_into_place (LbStoreServer *self, const char *src, const char *dst, gboolean recursive,
                 gboolean replace)
{
  g_autofree char *tmp = NULL;
  int err = lb_store_fs_copy_beside (self->root_real, src, dst, recursive, &tmp);

  if (err != 0)
    return err;
  err = lb_store_fs_install (tmp, dst, replace);
  if (err != 0)
    lb_store_fs_remove_tree (tmp);
  return err;
}

/* MOVE: one rename on the same file system (a collection swapped in whole where it replaces
 * one); across file systems a COPY, and only once it is in place is the source discarded.
 * Same contract as copy_into_place(), and the source stays too. */
static int
move_into_place (LbStoreServer *self, const char *src, const char *dst, gboolean replace)
{
  int err = lb_store_fs_install (src, dst, replace);

  if (err == EXDEV && (err = copy_into_place (self, src, dst, TRUE, replace)) == 0)
    lb_store_fs_discard (src);
  return err;
}

void
lb_dav_handle_copy_move (LbStoreServer *self, SoupServerMessage *msg, LbStoreRequest *req,
                         gboolean move)
{
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);
  const char *depth = soup_message_headers_get_one (h, "Depth");
  const char *overwrite_h = soup_message_headers_get_one (h, "Overwrite");
  g_autofree char *drel = NULL;
  g_autofree char *dabs = NULL;
  g_autofree char *src_key = NULL;
  g_autofree char *dst_key = NULL;
  g_autoptr(LbStoreLock) lock = NULL;
  gboolean dslash = FALSE, overwrite = TRUE, recursive = TRUE, dexists, is_link;
  struct stat st, dst;
  guint status;
  int err;

  if ((status = resolve_destination (self, msg, &drel, &dabs, &dslash)) != 0)
    return lb_store_reply_error (msg, status, "bad Destination");
  if (overwrite_h != NULL)
    {
      if (g_ascii_strcasecmp (overwrite_h, "T") == 0)
        overwrite = TRUE;
      else if (g_ascii_strcasecmp (overwrite_h, "F") == 0)
        overwrite = FALSE;
      else
        return lb_store_reply_error (msg, SOUP_STATUS_BAD_REQUEST, "Overwrite must be T or F");
    }
  if (depth != NULL)
    {
      if (g_ascii_strcasecmp (depth, "infinity") == 0)
        recursive = TRUE;
      else if (strcmp (depth, "0") == 0 && !move)
        recursive = FALSE;
      else
        return lb_store_reply_error (msg, SOUP_STATUS_BAD_REQUEST,
                                     move ? "MOVE needs Depth: infinity" : "COPY needs Depth 0 or infinity");
    }

  /* From here to the end under the locks of both paths: the checks (source preconditions,
   * Overwrite) hold until the commit, and no PUT lands in between. */
  src_key = lb_store_lock_key (req->abs);
  dst_key = lb_store_lock_key (dabs);
  lock = lb_store_lock_acquire (self->locks, src_key, dst_key);

  if (!in_namespace (req->abs, &st))
    return lb_store_reply_error (msg, SOUP_STATUS_NOT_FOUND, NULL);
  if (move && (req->rel[0] == '\0' || lb_store_path_is_filter_repo_dir (req->rel)))
    return lb_store_reply_error (msg, SOUP_STATUS_FORBIDDEN, "this collection cannot be moved");
  is_link = S_ISLNK (st.st_mode);
  if (is_link && stat (req->abs, &st) != 0)
    return lb_store_reply_error (msg, SOUP_STATUS_NOT_FOUND, NULL);
  if ((status = lb_store_path_check_creatable (drel, S_ISDIR (st.st_mode))) != 0)
    return lb_store_reply_error (msg, status, "this destination cannot be written");
  if (strcmp (drel, req->rel) == 0)
    return lb_store_reply_error (msg, SOUP_STATUS_FORBIDDEN, "source and destination are the same");
  if (S_ISDIR (st.st_mode) && lb_store_path_is_inside (req->abs, dabs))
    return lb_store_reply_error (msg, SOUP_STATUS_FORBIDDEN, "destination lies inside the source");
  if (!lb_store_fs_parent_is_dir (dabs))
    return lb_store_reply_error (msg, SOUP_STATUS_CONFLICT, "destination parent does not exist");
  if ((status = lb_http_evaluate_preconditions (h, &st, FALSE)) != 0)
    return lb_store_reply_error (msg, status, "precondition failed");

  dexists = lstat (dabs, &dst) == 0;
  if (dexists)
    {
      if (!overwrite)
        return lb_store_reply_error (msg, SOUP_STATUS_PRECONDITION_FAILED, "destination exists");
      if (!in_namespace (dabs, &dst))
        return lb_store_reply_error (msg, SOUP_STATUS_CONFLICT,
                                     "something other than a file has the destination's name");
      if (lb_store_path_is_inside (dabs, req->abs))
        return lb_store_reply_error (msg, SOUP_STATUS_FORBIDDEN, "source lies inside the destination");
    }
  if (lb_store_path_is_in_filter_repo (drel))
    {
      g_autofree char *name = g_path_get_basename (drel);
      g_autofree char *detail = NULL;

      /* A symlink moved in would publish whatever its target becomes, unchecked. */
      if (move && is_link)
        return lb_store_reply_error (msg, SOUP_STATUS_FORBIDDEN,
                                     "only files can be published as filters");
      if ((status = lb_store_upload_check_filter (req->abs, name, &detail)) != 0)
        return lb_store_reply_error (msg, status, detail);
    }

  /* RFC 4918 §9.8.4 and §9.9.4: what the destination was is replaced whole, never merged; it
   * stays as it was if the copy fails (a full disk: 507). */
  if (move)
    err = move_into_place (self, req->abs, dabs, overwrite);
  else
    err = copy_into_place (self, req->abs, dabs, recursive, overwrite);
  if (err != 0)
    return lb_store_reply_error (msg, commit_status (err), g_strerror (err));
  if (move)
    lb_store_fs_sync_dir_of (req->abs);
  lb_store_fs_sync_dir_of (dabs);
  if (dexists)
    soup_server_message_set_status (msg, SOUP_STATUS_NO_CONTENT, NULL);
  else
    {
      g_autofree char *loc = lb_store_path_encode (drel, S_ISDIR (st.st_mode));
      soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Location", loc);
      soup_server_message_set_status (msg, SOUP_STATUS_CREATED, NULL);
    }
}
