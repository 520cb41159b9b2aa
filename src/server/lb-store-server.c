/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-store-server"

#include "config.h"

#include "lb-store-server.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "lb-dav-xml.h"
#include "lb-declarative.h"
#include "lb-error.h"
#include "lb-store-path.h"

/*
 * LbStoreServer: a directory served as a WebDAV class-1 store (RFC 4918) by libsoup 3.
 *
 * Request flow: an early handler (run once the headers are read) authenticates, maps the
 * path, and for PUT checks preconditions and opens the upload temporary, so refused requests
 * never have their body read and accepted uploads stream to disk chunk by chunk. The normal
 * handler runs once the body is complete and does the work. Per-request state hangs on the
 * SoupServerMessage; freeing it removes an upload temporary that was never committed, so an
 * aborted upload leaves nothing behind.
 */

#define LB_PUT_BLOCK (256 * 1024)
#define LB_GET_COPY_MAX (64 * 1024) /* bytes: GET reads files up to this size, maps larger ones */

typedef enum {
  LB_HTTP_RANGE_NONE,          /* all of the representation: 200 */
  LB_HTTP_RANGE_PARTIAL,       /* one satisfiable range: 206 */
  LB_HTTP_RANGE_UNSATISFIABLE, /* 416 */
} LbHttpRange;

#define LB_DAV_ALLOW_METHODS "OPTIONS, GET, HEAD, PUT, DELETE, MKCOL, COPY, MOVE, PROPFIND, PROPPATCH"

struct _LbStoreServer
{
  GObject parent_instance;

  char            *root;       /* as configured, absolute */
  char            *root_real;  /* realpath (root): the containment boundary */
  gboolean         read_only;
  guint64          max_upload; /* bytes, 0 = unlimited */
  LbStoreAuth     *auth;       /* (nullable) */
  LbAccessLog     *log;        /* (nullable) */
  SoupServer      *soup;
  GHashTable      *temps;      /* in-flight upload temporaries (owned paths) */
  GHashTable      *idle_watches; /* (element-type GSource) keep-alive connections between requests */
  char            *url;
  mode_t           umask;
  guint            timeout_s;  /* header deadline and longest I/O wait, 0 = none */
  gboolean         stopped;
};

G_DEFINE_FINAL_TYPE (LbStoreServer, lb_store_server, G_TYPE_OBJECT)

typedef struct
{
  GHashTable    *temps;    /* (owned) the server's in-flight temporaries; shared, as a
                            * message may outlive its server */
  guint64        max_upload;
  gint64         start_us; /* monotonic */
  GDateTime     *start;
  char          *user;     /* authenticated user, NULL when anonymous */
  char          *client;   /* remote address, taken while the connection is surely up */
  char          *rel;      /* decoded path relative to the root */
  char          *abs;      /* file-system path */
  gboolean       slash;    /* request path ended in '/' */
  guint64        bytes_in;
  /* PUT */
  int            fd;
  char          *temp_path;
  gboolean       existed;
  gboolean       too_large;
  int            write_errno;
  gboolean       committing; /* a worker thread is finishing this PUT */
  GByteArray    *wbuf;     /* body bytes not yet written: libsoup hands over ~8 KiB chunks,
                            * written in blocks of LB_PUT_BLOCK to save system calls */
  /* other methods with a body */
  GByteArray    *body;
  GSource       *header_deadline; /* (nullable) closes a connection whose headers are late */
} LbStoreRequest;

static void
lb_store_request_drop_temp (LbStoreRequest *req)
{
  /* A commit thread owns the temporary until it reports back. */
  if (req->committing)
    return;
  if (req->fd >= 0)
    {
      close (req->fd);
      req->fd = -1;
    }
  if (req->temp_path != NULL)
    {
      g_unlink (req->temp_path);
      g_hash_table_remove (req->temps, req->temp_path);
      g_clear_pointer (&req->temp_path, g_free);
    }
}

static void
lb_store_request_free (LbStoreRequest *req)
{
  lb_store_request_drop_temp (req);
  if (req->header_deadline != NULL)
    {
      g_source_destroy (req->header_deadline);
      g_clear_pointer (&req->header_deadline, g_source_unref);
    }
  g_clear_pointer (&req->start, g_date_time_unref);
  g_hash_table_unref (req->temps);
  g_free (req->user);
  g_free (req->client);
  g_free (req->rel);
  g_free (req->abs);
  if (req->body != NULL)
    g_byte_array_unref (req->body);
  if (req->wbuf != NULL)
    g_byte_array_unref (req->wbuf);
  g_free (req);
}

/* Creates the state of a request that has just started and hangs it on @msg, which frees it;
 * @temps is the server's table of upload temporaries, @max_upload its limit in bytes. */
static LbStoreRequest *
lb_store_request_attach (SoupServerMessage *msg, GHashTable *temps, guint64 max_upload)
{
  LbStoreRequest *req = g_new0 (LbStoreRequest, 1);

  req->temps = g_hash_table_ref (temps);
  req->max_upload = max_upload;
  req->fd = -1;
  req->start_us = g_get_monotonic_time ();
  req->start = g_date_time_new_now_utc ();
  g_object_set_data_full (G_OBJECT (msg), "lb-request", req, (GDestroyNotify) lb_store_request_free);
  return req;
}

/* The state lb_store_request_attach() hung on @msg; NULL if there is none. */
static LbStoreRequest *
lb_store_request_get (SoupServerMessage *msg)
{
  return g_object_get_data (G_OBJECT (msg), "lb-request");
}

/* ---------------------------------------------------------------------------------------- */
/* helpers                                                                                  */

static void
lb_store_reply_error (SoupServerMessage *msg, guint status, const char *detail)
{
  g_autofree char *text = g_strdup_printf ("%u %s%s%s\n", status, soup_status_get_phrase (status),
                                           detail ? ": " : "", detail ? detail : "");

  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "text/plain; charset=utf-8", SOUP_MEMORY_COPY,
                                    text, strlen (text));
}

/* Answers @msg with @status and the XML document @body. */
static void
lb_store_reply_xml (SoupServerMessage *msg, guint status, GBytes *body)
{
  gsize len;
  const char *data = g_bytes_get_data (body, &len);

  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "application/xml; charset=utf-8", SOUP_MEMORY_COPY,
                                    data, len);
}

/* The status that answers a request failed by the file-system error @err. */
static guint
lb_store_reply_errno_status (int err)
{
  switch (err)
    {
    case ENOSPC:
    case EDQUOT:
      return SOUP_STATUS_INSUFFICIENT_STORAGE;
    case ENOENT:
    case ENOTDIR:
      return SOUP_STATUS_CONFLICT;
    case EACCES:
    case EPERM:
    case EROFS:
      return SOUP_STATUS_FORBIDDEN;
    case EEXIST:
    case ENOTEMPTY:
      return SOUP_STATUS_CONFLICT;
    default:
      return SOUP_STATUS_INTERNAL_SERVER_ERROR;
    }
}

/* Answers @msg with the status and text of the file-system error @err. */
static void
lb_store_reply_errno (SoupServerMessage *msg, int err)
{
  lb_store_reply_error (msg, lb_store_reply_errno_status (err), g_strerror (err));
}

static char *
lb_http_make_etag (const struct stat *st)
{
  gint64 mtime_ns = (gint64) st->st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + st->st_mtim.tv_nsec;

  /* Strong: a new inode (every PUT renames a new file in), size or mtime gives a new tag. */
  return g_strdup_printf ("\"%" G_GINT64_MODIFIER "x-%" G_GINT64_MODIFIER "x-%" G_GINT64_MODIFIER "x\"",
                          (gint64) st->st_ino, (gint64) st->st_size, mtime_ns);
}

static gboolean
etag_list_matches (const char *list, const char *etag, gboolean weak)
{
  g_auto(GStrv) items = NULL;

  if (etag == NULL)
    return FALSE;
  items = g_strsplit (list, ",", -1);
  for (guint i = 0; items[i] != NULL; i++)
    {
      const char *t = g_strstrip (items[i]);

      if (g_str_has_prefix (t, "W/"))
        {
          if (!weak)
            continue; /* strong comparison: weak tags never match */
          t += 2;
        }
      if (strcmp (t, etag) == 0)
        return TRUE;
    }
  return FALSE;
}

static gboolean
header_is_star (const char *value)
{
  g_autofree char *v = g_strstrip (g_strdup (value));

  return strcmp (v, "*") == 0;
}

/*
 * The preconditions of request headers @h, in RFC 7232 §6 evaluation order. @st is NULL when
 * the resource does not exist. Returns 0, 304 (only for GET/HEAD) or 412.
 */
static guint
lb_http_evaluate_preconditions (SoupMessageHeaders *h, const struct stat *st, gboolean safe_method)
{
  const char *if_match = soup_message_headers_get_one (h, "If-Match");
  const char *if_none = soup_message_headers_get_one (h, "If-None-Match");
  const char *if_unmod = soup_message_headers_get_one (h, "If-Unmodified-Since");
  const char *if_mod = soup_message_headers_get_one (h, "If-Modified-Since");
  g_autofree char *etag = (st != NULL && S_ISREG (st->st_mode)) ? lb_http_make_etag (st) : NULL;

  if (if_match != NULL)
    {
      if (st == NULL)
        return SOUP_STATUS_PRECONDITION_FAILED;
      if (!header_is_star (if_match) && !etag_list_matches (if_match, etag, FALSE))
        return SOUP_STATUS_PRECONDITION_FAILED;
    }
  else if (if_unmod != NULL && st != NULL)
    {
      g_autoptr(GDateTime) d = soup_date_time_new_from_http_string (if_unmod);
      if (d != NULL && (gint64) st->st_mtim.tv_sec > g_date_time_to_unix (d))
        return SOUP_STATUS_PRECONDITION_FAILED;
    }

  if (if_none != NULL)
    {
      gboolean hit = st != NULL &&
                     (header_is_star (if_none) || etag_list_matches (if_none, etag, TRUE));
      if (hit)
        return safe_method ? SOUP_STATUS_NOT_MODIFIED : SOUP_STATUS_PRECONDITION_FAILED;
    }
  else if (if_mod != NULL && st != NULL && safe_method)
    {
      g_autoptr(GDateTime) d = soup_date_time_new_from_http_string (if_mod);
      if (d != NULL && (gint64) st->st_mtim.tv_sec <= g_date_time_to_unix (d))
        return SOUP_STATUS_NOT_MODIFIED;
    }
  return 0;
}

/* If-Range (RFC 9110 §13.1.5): a Range applies only while the representation is unchanged, that
 * is while the validator is its current strong ETag @etag or exactly its date @mtime_s. */
static gboolean
if_range_holds (SoupMessageHeaders *h, const char *etag, gint64 mtime_s)
{
  const char *if_range = soup_message_headers_get_one (h, "If-Range");
  g_autofree char *ir = NULL;

  if (if_range == NULL)
    return TRUE;
  ir = g_strstrip (g_strdup (if_range));
  if (ir[0] == '"' || g_str_has_prefix (ir, "W/"))
    return strcmp (ir, etag) == 0;
  else
    {
      g_autoptr(GDateTime) d = soup_date_time_new_from_http_string (ir);

      return d != NULL && g_date_time_to_unix (d) == mtime_s;
    }
}

/*
 * What part of a representation of @size bytes (validators @etag, @mtime_s) a GET with request
 * headers @h asks for (RFC 9110 §14): PARTIAL, with the byte range [@start, @end] clipped to the
 * representation; UNSATISFIABLE when the range starts at or beyond its end; NONE (all of it,
 * 200) without a usable Range, when If-Range does not hold, or for several ranges (§14.2 lets a
 * server ignore Range: one 200 is simpler than a multipart/byteranges body).
 *
 * The header is parsed by libsoup (soup_message_headers_get_ranges()), whose reading is taken
 * where it is more lenient than the grammar of §14.1.1: white space around "=" and a "+" before
 * a position are accepted, empty list elements are skipped (as §5.6.1 asks), and overlapping
 * ranges are merged, so "bytes=0-5,3-9" is the one range 0-9 (§15.3.7.2 allows coalescing).
 * It reads positions with g_ascii_strtoull() into a signed goffset: a first position of 2^63
 * or more wraps negative and is served like an over-long suffix, from byte 0 (a 416 by the
 * letter of the RFC), and a last position of 2^63 or more makes the range invalid (200, all of
 * it). No test depends on these cases, and nothing outside the file is ever sent.
 */
static LbHttpRange
lb_http_select_range (SoupMessageHeaders *h, goffset size, const char *etag, gint64 mtime_s,
                      goffset *start, goffset *end)
{
  SoupRange *ranges = NULL;
  int n = 0;
  LbHttpRange result = LB_HTTP_RANGE_NONE;

  if (!if_range_holds (h, etag, mtime_s) || !soup_message_headers_get_ranges (h, size, &ranges, &n))
    return LB_HTTP_RANGE_NONE;
  if (n == 1)
    {
      /* A suffix range "-N" comes back as start = size - N, negative when N is longer than the
       * representation: then all of it is the range (§14.1.2). */
      goffset first = MAX (ranges[0].start, 0);
      goffset last = MIN (ranges[0].end, size - 1);

      if (first >= size || last < first)
        result = LB_HTTP_RANGE_UNSATISFIABLE;
      else
        {
          *start = first;
          *end = last;
          result = LB_HTTP_RANGE_PARTIAL;
        }
    }
  soup_message_headers_free_ranges (h, ranges);
  return result;
}

static const char *
content_type_for (const char *name, char **owned)
{
  g_autofree char *guess = NULL;
  gboolean uncertain = FALSE;

  if (g_str_has_suffix (name, LB_STORE_FILTER_SUFFIX))
    return "text/plain; charset=utf-8";
  guess = g_content_type_guess (name, NULL, 0, &uncertain);
  *owned = guess != NULL ? g_content_type_get_mime_type (guess) : NULL;
  if (*owned == NULL || uncertain)
    {
      g_clear_pointer (owned, g_free);
      return "application/octet-stream";
    }
  return *owned;
}

/* fsync of a directory so a rename or creation in it survives a crash. */
static void
lb_store_fs_sync_dir_of (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd >= 0)
    {
      fsync (fd);
      close (fd);
    }
}

static gboolean
lb_store_fs_parent_is_dir (const char *abs)
{
  g_autofree char *dir = g_path_get_dirname (abs);
  struct stat st;

  return stat (dir, &st) == 0 && S_ISDIR (st.st_mode);
}

/* Entries that are part of the DAV namespace: no dotfiles, no symlinks leading out. The
 * directory itself is known to lie inside the root, so only symlinks need resolving. */
static gboolean
entry_is_public (const char *root_real, const char *dir_abs, const char *name, struct stat *st_out)
{
  g_autofree char *child = NULL;

  if (name[0] == '.')
    return FALSE;
  child = g_build_filename (dir_abs, name, NULL);
  if (lstat (child, st_out) != 0)
    return FALSE;
  if (S_ISLNK (st_out->st_mode) &&
      (!lb_store_path_is_contained (root_real, child) || stat (child, st_out) != 0))
    return FALSE;
  return S_ISREG (st_out->st_mode) || S_ISDIR (st_out->st_mode);
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Sorted public child names of a directory below @root_real; NULL with errno set on failure. */
static GPtrArray *
lb_store_fs_list_children (const char *root_real, const char *dir_abs)
{
  GPtrArray *names;
  DIR *d = opendir (dir_abs);
  struct dirent *e;

  if (d == NULL)
    return NULL;
  names = g_ptr_array_new_with_free_func (g_free);
  while ((e = readdir (d)) != NULL)
    {
      struct stat st;

      if (entry_is_public (root_real, dir_abs, e->d_name, &st))
        g_ptr_array_add (names, g_strdup (e->d_name));
    }
  closedir (d);
  g_ptr_array_sort (names, compare_strings);
  return names;
}

/* rm -rf that never follows symlinks; returns 0 or an errno. */
static int
remove_tree_at (int parent_fd, const char *name)
{
  struct stat st;
  int fd;
  DIR *d;
  struct dirent *e;
  int err = 0;

  if (fstatat (parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return errno;
  if (!S_ISDIR (st.st_mode))
    return unlinkat (parent_fd, name, 0) == 0 ? 0 : errno;

  fd = openat (parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return errno;
  d = fdopendir (fd);
  if (d == NULL)
    {
      err = errno;
      close (fd);
      return err;
    }
  while ((e = readdir (d)) != NULL)
    {
      if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0)
        continue;
      err = remove_tree_at (dirfd (d), e->d_name);
      if (err != 0)
        break;
    }
  closedir (d);
  if (err != 0)
    return err;
  return unlinkat (parent_fd, name, AT_REMOVEDIR) == 0 ? 0 : errno;
}

static int
lb_store_fs_remove_tree (const char *abs)
{
  return remove_tree_at (AT_FDCWD, abs);
}

/* Writes all @len bytes of @data to @fd, again after a signal; 0, or the errno of the write
 * that failed. */
static int
lb_store_fs_write_all (int fd, const void *data, gsize len)
{
  const guint8 *p = data;

  while (len > 0)
    {
      ssize_t n = write (fd, p, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return errno;
      p += n;
      len -= (gsize) n;
    }
  return 0;
}

/* Creates an upload temporary (mode 0600) in the directory of @target, where it can later be
 * renamed onto @target. Returns 0 and sets @fd_out and @path_out, or returns an errno. */
static int
lb_store_fs_open_temp (const char *target, int *fd_out, char **path_out)
{
  g_autofree char *dir = g_path_get_dirname (target);
  g_autofree char *tmpl = g_build_filename (dir, LB_STORE_TEMP_PREFIX "XXXXXX", NULL);
  int fd = g_mkstemp_full (tmpl, O_WRONLY | O_CLOEXEC, 0600);

  if (fd < 0)
    return errno;
  *fd_out = fd;
  *path_out = g_steal_pointer (&tmpl);
  return 0;
}

/* Copies one regular file through a temporary in the destination directory, fsynced and
 * renamed into place, like PUT; the temporary is listed in @temps while it exists. Returns 0
 * or an errno. */
static int
copy_file_atomic (GHashTable *temps, const char *src, const char *dst)
{
  g_autofree char *tmpl = NULL;
  int in, out, err = 0;
  struct stat st;
  char buf[64 * 1024];

  in = open (src, O_RDONLY | O_CLOEXEC);
  if (in < 0)
    return errno;
  if (fstat (in, &st) != 0)
    {
      err = errno;
      close (in);
      return err;
    }
  err = lb_store_fs_open_temp (dst, &out, &tmpl);
  if (err != 0)
    {
      close (in);
      return err;
    }
  g_hash_table_add (temps, g_strdup (tmpl));
  for (;;)
    {
      ssize_t n = read (in, buf, sizeof buf);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          err = errno;
          break;
        }
      if (n == 0)
        break;
      err = lb_store_fs_write_all (out, buf, (gsize) n);
      if (err != 0)
        break;
    }
  if (err == 0 && fsync (out) != 0)
    err = errno;
  if (err == 0)
    fchmod (out, st.st_mode & 07777);
  close (in);
  if (close (out) != 0 && err == 0)
    err = errno;
  if (err == 0 && rename (tmpl, dst) != 0)
    err = errno;
  if (err != 0)
    g_unlink (tmpl);
  g_hash_table_remove (temps, tmpl);
  return err;
}

/* Recursive COPY of a collection below @root_real; dotfiles are not part of the namespace and
 * stay behind. File copies go through temporaries listed in @temps. Returns 0 or an errno. */
static int
lb_store_fs_copy_tree (const char *root_real, GHashTable *temps, const char *src, const char *dst,
                       gboolean recursive)
{
  struct stat st;
  g_autoptr(GPtrArray) names = NULL;

  if (stat (src, &st) != 0)
    return errno;
  if (S_ISREG (st.st_mode))
    return copy_file_atomic (temps, src, dst);
  if (mkdir (dst, (st.st_mode & 07777) | S_IRWXU) != 0)
    return errno;
  if (!recursive)
    return 0;
  names = lb_store_fs_list_children (root_real, src);
  if (names == NULL)
    return errno;
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *s = g_build_filename (src, g_ptr_array_index (names, i), NULL);
      g_autofree char *d = g_build_filename (dst, g_ptr_array_index (names, i), NULL);
      int err = lb_store_fs_copy_tree (root_real, temps, s, d, TRUE);

      if (err != 0)
        return err;
    }
  return 0;
}

static gboolean
method_is (SoupServerMessage *msg, const char *m)
{
  return strcmp (soup_server_message_get_method (msg), m) == 0;
}

static gboolean
method_writes (const char *m)
{
  return strcmp (m, "PUT") == 0 || strcmp (m, "DELETE") == 0 || strcmp (m, "MKCOL") == 0 ||
         strcmp (m, "COPY") == 0 || strcmp (m, "MOVE") == 0 || strcmp (m, "PROPPATCH") == 0;
}

static gboolean
method_known (const char *m)
{
  return method_writes (m) || strcmp (m, "GET") == 0 || strcmp (m, "HEAD") == 0 ||
         strcmp (m, "OPTIONS") == 0 || strcmp (m, "PROPFIND") == 0;
}

static gboolean
lb_store_request_has_body (SoupServerMessage *msg)
{
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);
  SoupEncoding enc = soup_message_headers_get_encoding (h);

  if (enc == SOUP_ENCODING_CHUNKED || enc == SOUP_ENCODING_EOF)
    return TRUE;
  return enc == SOUP_ENCODING_CONTENT_LENGTH && soup_message_headers_get_content_length (h) > 0;
}

/* The protected skeleton of the filter repository: never deleted, moved or replaced. */
static gboolean
lb_store_path_is_filter_repo_dir (const char *rel)
{
  return strcmp (rel, ".lightbox") == 0 || strcmp (rel, LB_STORE_FILTER_DIR) == 0;
}

/* Whether a new resource may be created at @rel (names only: dotfiles, filter repository). */
static LbStorePathStatus
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

/* ---------------------------------------------------------------------------------------- */
/* body streaming                                                                           */

/* Writes the buffered body bytes to the temporary; on failure remembers errno and removes
 * the temporary at once, so a full disk does not stay full because of us. */
static gboolean
flush_upload (LbStoreRequest *req)
{
  if (req->fd >= 0)
    {
      int err = lb_store_fs_write_all (req->fd, req->wbuf->data, req->wbuf->len);

      if (err != 0)
        {
          req->write_errno = err;
          lb_store_request_drop_temp (req);
        }
    }
  g_byte_array_set_size (req->wbuf, 0);
  return req->write_errno == 0;
}

static void
lb_store_upload_got_chunk (SoupServerMessage *msg, GBytes *chunk, gpointer user_data)
{
  LbStoreRequest *req = user_data;
  gsize len = 0;
  const guint8 *data = g_bytes_get_data (chunk, &len);

  req->bytes_in += len;

  if (req->body != NULL)
    {
      if (req->body->len + len > LB_STORE_MAX_XML_BODY)
        req->too_large = TRUE;
      else
        g_byte_array_append (req->body, data, (guint) len);
      return;
    }
  if (req->fd < 0 || req->write_errno != 0 || req->too_large)
    return; /* already failed: the rest of the body is drained and dropped */

  if (req->max_upload > 0 && req->bytes_in > req->max_upload)
    {
      /* Chunked uploads announce no length: the limit is enforced on the bytes counted. */
      req->too_large = TRUE;
      lb_store_request_drop_temp (req);
      return;
    }
  g_byte_array_append (req->wbuf, data, (guint) len);
  if (req->wbuf->len >= LB_PUT_BLOCK)
    flush_upload (req);
}

/* ---------------------------------------------------------------------------------------- */
/* early handler: authentication, path mapping, PUT set-up                                  */

static void
challenge (LbStoreServer *self, SoupServerMessage *msg)
{
  lb_store_reply_error (msg, SOUP_STATUS_UNAUTHORIZED, "credentials required");
  lb_store_auth_add_challenges (self->auth, soup_server_message_get_response_headers (msg));
}

/* A refusal sent before the body was read: the connection cannot be reused. */
static void
lb_store_reply_refuse (SoupServerMessage *msg, guint status, const char *detail)
{
  lb_store_reply_error (msg, status, detail);
  if (lb_store_request_has_body (msg))
    soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                  "Connection", "close");
}

static void
lb_store_upload_begin (LbStoreServer *self, SoupServerMessage *msg, LbStoreRequest *req)
{
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);
  struct stat st;
  gboolean exists;
  guint status;
  int err;

  if ((status = lb_store_path_check_creatable (req->rel, FALSE)) != 0)
    return lb_store_reply_refuse (msg, status, "this name cannot be written");
  if (req->slash)
    return lb_store_reply_refuse (msg, SOUP_STATUS_CONFLICT, "PUT to a collection URL");
  /* RFC 7231 §4.3.4: a partial PUT must be refused, not applied as a whole. */
  if (soup_message_headers_get_one (h, "Content-Range") != NULL)
    return lb_store_reply_refuse (msg, SOUP_STATUS_BAD_REQUEST, "Content-Range on PUT is not supported");
  if (self->max_upload > 0 &&
      soup_message_headers_get_encoding (h) == SOUP_ENCODING_CONTENT_LENGTH &&
      (guint64) soup_message_headers_get_content_length (h) > self->max_upload)
    return lb_store_reply_refuse (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, "over the upload limit");

  exists = stat (req->abs, &st) == 0;
  if (exists && S_ISDIR (st.st_mode))
    return lb_store_reply_refuse (msg, SOUP_STATUS_CONFLICT, "a collection has this name");
  if ((status = lb_http_evaluate_preconditions (h, exists ? &st : NULL, FALSE)) != 0)
    return lb_store_reply_refuse (msg, status, "precondition failed");
  if (!lb_store_fs_parent_is_dir (req->abs))
    return lb_store_reply_refuse (msg, SOUP_STATUS_CONFLICT, "parent collection does not exist");

  err = lb_store_fs_open_temp (req->abs, &req->fd, &req->temp_path);
  if (err != 0)
    return lb_store_reply_refuse (msg, lb_store_reply_errno_status (err), g_strerror (err));
  req->wbuf = g_byte_array_sized_new (LB_PUT_BLOCK + 64 * 1024);
  g_hash_table_add (self->temps, g_strdup (req->temp_path));
  req->existed = exists;
}

typedef struct
{
  const char *name;
  guint       n;
} HeaderCount;

static void
count_header_cb (const char *name, const char *value, gpointer user_data)
{
  HeaderCount *c = user_data;

  if (g_ascii_strcasecmp (name, c->name) == 0)
    c->n++;
}

static guint
count_headers (SoupMessageHeaders *h, const char *name)
{
  HeaderCount c = { name, 0 };

  soup_message_headers_foreach (h, count_header_cb, &c);
  return c.n;
}

static void
early_handler (SoupServer        *soup,
               SoupServerMessage *msg,
               const char        *path,
               GHashTable        *query,
               gpointer           user_data)
{
  LbStoreServer *self = user_data;
  LbStoreRequest *req = lb_store_request_get (msg);
  const char *method = soup_server_message_get_method (msg);
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);
  GUri *uri = soup_server_message_get_uri (msg);
  LbStorePathStatus ps;

  if (req == NULL)
    return;
  req->client = g_strdup (soup_server_message_get_remote_host (msg));

  /* Two Authorization fields are ambiguous (RFC 9110 §5.3: not a list field): which one a
   * proxy in front checked and which one we would check could differ. */
  if (count_headers (h, "Authorization") > 1)
    return lb_store_reply_refuse (msg, SOUP_STATUS_BAD_REQUEST, "more than one Authorization field");
  /* Both framings at once is the request-smuggling pattern (RFC 9112 §6.1): refuse it rather
   * than pick one, since a proxy in front may have picked the other. */
  if (soup_message_headers_get_one (h, "Transfer-Encoding") != NULL &&
      soup_message_headers_get_one (h, "Content-Length") != NULL)
    return lb_store_reply_refuse (msg, SOUP_STATUS_BAD_REQUEST, "both Content-Length and Transfer-Encoding");
  if (count_headers (h, "Content-Length") > 1)
    return lb_store_reply_refuse (msg, SOUP_STATUS_BAD_REQUEST, "more than one Content-Length field");

  if (lb_store_auth_is_enabled (self->auth))
    {
      LbStoreAuthResult r = lb_store_auth_check (self->auth,
                                                 soup_message_headers_get_one (h, "Authorization"),
                                                 &req->user);
      if (r == LB_STORE_AUTH_DENIED)
        return challenge (self, msg);
    }
  else if (soup_message_headers_get_one (h, "Authorization") != NULL)
    {
      /* No authentication configured: credentials are ignored, the request is anonymous. */
    }

  if (!method_known (method))
    {
      lb_store_reply_refuse (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, NULL);
      soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                    "Allow", LB_DAV_ALLOW_METHODS);
      return;
    }
  if (method_writes (method))
    {
      if (self->read_only)
        return lb_store_reply_refuse (msg, SOUP_STATUS_FORBIDDEN, "this store is read-only");
      if (lb_store_auth_is_enabled (self->auth) && req->user == NULL)
        return challenge (self, msg);
    }

  if (strcmp (method, "OPTIONS") == 0 && soup_server_message_is_options_ping (msg))
    return;
  if (g_uri_get_fragment (uri) != NULL)
    return lb_store_reply_refuse (msg, SOUP_STATUS_BAD_REQUEST, "a request URI has no fragment");

  /* libsoup hands the path over percent-decoded with dot segments resolved; it is checked
   * again here (backslashes, stray dot segments, UTF-8) and never decoded twice. */
  ps = lb_store_path_check_decoded (g_uri_get_path (uri), &req->rel, &req->slash);
  if (ps != LB_STORE_PATH_OK)
    return lb_store_reply_refuse (msg, ps, "path refused");
  req->abs = g_build_filename (self->root, req->rel, NULL);
  if (!lb_store_path_is_contained (self->root_real, req->abs))
    return lb_store_reply_refuse (msg, SOUP_STATUS_FORBIDDEN, "path leads out of the store");
  if (lb_store_path_is_hidden (req->rel) && strcmp (method, "PUT") != 0 &&
      strcmp (method, "MKCOL") != 0)
    return lb_store_reply_refuse (msg, SOUP_STATUS_NOT_FOUND, NULL);

  /* Bodies are never accumulated by libsoup: PUT streams to disk, others are capped. */
  soup_message_body_set_accumulate (soup_server_message_get_request_body (msg), FALSE);
  g_signal_connect (msg, "got-chunk", G_CALLBACK (lb_store_upload_got_chunk), req);

  if (strcmp (method, "PUT") == 0)
    return lb_store_upload_begin (self, msg, req);

  if (soup_message_headers_get_encoding (h) == SOUP_ENCODING_CONTENT_LENGTH &&
      soup_message_headers_get_content_length (h) > LB_STORE_MAX_XML_BODY)
    return lb_store_reply_refuse (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, "request body too large");
  req->body = g_byte_array_new ();
}

/* ---------------------------------------------------------------------------------------- */
/* methods                                                                                  */

static void
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

static void
lb_dav_handle_get (LbStoreServer *self, SoupServerMessage *msg, LbStoreRequest *req)
{
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);
  SoupMessageHeaders *rh = soup_server_message_get_response_headers (msg);
  g_autoptr(GMappedFile) map = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *etag = NULL;
  g_autofree char *lastmod = NULL;
  g_autofree char *ct_owned = NULL;
  g_autoptr(GError) error = NULL;
  struct stat st;
  guint status;
  goffset start = 0, end = 0;
  LbHttpRange range;
  int fd;

  fd = open (req->abs, O_RDONLY | O_CLOEXEC);
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
      gsize len = (gsize) st.st_size, got = 0;
      guint8 *data = g_malloc (len);

      while (got < len)
        {
          ssize_t k = pread (fd, data + got, len - got, (off_t) got);
          if (k < 0 && errno == EINTR)
            continue;
          if (k <= 0)
            break;
          got += (gsize) k;
        }
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

  soup_message_headers_set_content_type (rh, content_type_for (req->rel, &ct_owned), NULL);
  /* libsoup would apply Range to a complete 200 body on its own, ignoring If-Range; ranges
   * are decided above, so its automatic handling is switched off. */
  soup_message_body_set_accumulate (soup_server_message_get_response_body (msg), FALSE);
  if (g_bytes_get_size (bytes) > 0)
    soup_message_body_append_bytes (soup_server_message_get_response_body (msg), bytes);
  soup_server_message_set_status (msg, status, NULL);
}

static void
fill_resource (LbDavResource *res, const char *href, const char *name, const struct stat *st,
               char **etag_owned, char **ct_owned)
{
  memset (res, 0, sizeof *res);
  res->href = href;
  res->displayname = name;
  res->collection = S_ISDIR (st->st_mode);
  res->size = (guint64) st->st_size;
  res->mtime_s = st->st_mtim.tv_sec;
  res->ctime_s = st->st_mtim.tv_sec;
  if (res->collection)
    res->content_type = "httpd/unix-directory";
  else
    {
      *etag_owned = lb_http_make_etag (st);
      res->etag = *etag_owned;
      res->content_type = content_type_for (name, ct_owned);
    }
}

/* Birth time where the file system records one (statx), else the modification time. */
static gint64
birth_time (const char *abs, const struct stat *st)
{
  struct statx sx;

  if (statx (AT_FDCWD, abs, 0, STATX_BTIME, &sx) == 0 && (sx.stx_mask & STATX_BTIME))
    return sx.stx_btime.tv_sec;
  return st->st_mtim.tv_sec;
}

static void
add_propfind_entry (xmlDocPtr doc, const char *rel, const char *abs, const struct stat *st,
                    LbDavPropfindKind kind, GPtrArray *names, const char *root_name)
{
  g_autofree char *href = lb_store_path_encode (rel, S_ISDIR (st->st_mode));
  g_autofree char *base = rel[0] ? g_path_get_basename (rel) : g_strdup (root_name);
  g_autofree char *etag = NULL;
  g_autofree char *ct = NULL;
  LbDavResource res;

  fill_resource (&res, href, base, st, &etag, &ct);
  res.ctime_s = birth_time (abs, st);
  lb_dav_multistatus_add (doc, &res, kind, names);
}

static void
lb_dav_handle_propfind (LbStoreServer *self, SoupServerMessage *msg, LbStoreRequest *req)
{
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);
  const char *depth = soup_message_headers_get_one (h, "Depth");
  g_autoptr(GPtrArray) names = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) out = NULL;
  g_autofree char *root_name = g_path_get_basename (self->root);
  LbDavPropfindKind kind;
  xmlDocPtr doc;
  struct stat st;
  int d;

  if (depth == NULL || g_ascii_strcasecmp (depth, "infinity") == 0)
    {
      /* RFC 4918 §9.1: a server may refuse infinite depth, with this precondition code. */
      g_autoptr(GBytes) body = lb_dav_error_body ("propfind-finite-depth");
      lb_store_reply_xml (msg, SOUP_STATUS_FORBIDDEN, body);
      return;
    }
  if (strcmp (depth, "0") == 0)
    d = 0;
  else if (strcmp (depth, "1") == 0)
    d = 1;
  else
    return lb_store_reply_error (msg, SOUP_STATUS_BAD_REQUEST, "Depth must be 0, 1 or infinity");

  if (!lb_dav_parse_propfind ((const char *) req->body->data, req->body->len, &kind, &names, &error))
    return lb_store_reply_error (msg, SOUP_STATUS_BAD_REQUEST, error->message);

  if (stat (req->abs, &st) != 0 || !(S_ISDIR (st.st_mode) || S_ISREG (st.st_mode)))
    return lb_store_reply_error (msg, SOUP_STATUS_NOT_FOUND, NULL);
  if (req->slash && !S_ISDIR (st.st_mode))
    return lb_store_reply_error (msg, SOUP_STATUS_NOT_FOUND, NULL);

  doc = lb_dav_multistatus_new ();
  add_propfind_entry (doc, req->rel, req->abs, &st, kind, names, root_name);
  if (d == 1 && S_ISDIR (st.st_mode))
    {
      g_autoptr(GPtrArray) children = lb_store_fs_list_children (self->root_real, req->abs);

      for (guint i = 0; children != NULL && i < children->len; i++)
        {
          const char *name = g_ptr_array_index (children, i);
          g_autofree char *crel = req->rel[0] ? g_strconcat (req->rel, "/", name, NULL) : g_strdup (name);
          g_autofree char *cabs = g_build_filename (req->abs, name, NULL);
          struct stat cst;

          if (stat (cabs, &cst) == 0)
            add_propfind_entry (doc, crel, cabs, &cst, kind, names, root_name);
        }
      /* The filter repository is published although dotfiles are hidden elsewhere. */
    }
  out = lb_dav_doc_to_bytes (doc);
  xmlFreeDoc (doc);
  lb_store_reply_xml (msg, SOUP_STATUS_MULTI_STATUS, out);
}

/*
 * PROPPATCH: the store keeps no dead properties and its live properties are computed from the
 * file system, so every change is refused — per property, in a 207, as RFC 4918 §9.2 asks
 * (all-or-nothing, so one refusal refuses all).
 */
static void
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
    return lb_store_reply_error (msg, SOUP_STATUS_BAD_REQUEST, error->message);
  href = lb_store_path_encode (req->rel, S_ISDIR (st.st_mode));
  doc = lb_dav_multistatus_new ();
  lb_dav_multistatus_add_propstat (doc, href, names, SOUP_STATUS_FORBIDDEN,
                                   "cannot-modify-protected-property");
  out = lb_dav_doc_to_bytes (doc);
  xmlFreeDoc (doc);
  lb_store_reply_xml (msg, SOUP_STATUS_MULTI_STATUS, out);
}

/*
 * The end of a PUT: write the last buffered bytes, fsync, check the preconditions again (the
 * target may have changed while the body streamed in, and If-Match must still protect against
 * a concurrent writer), rename into place, fsync the directory. fsync of a large file can take
 * a long time, so this runs in a worker thread while the message is paused; the thread touches
 * only the file system and this struct, never the server's tables.
 */
typedef struct
{
  SoupServerMessage *msg;     /* (owned) paused until the commit is done */
  LbStoreServer     *server;  /* (owned) */
  int                fd;      /* (owned) the temporary, closed by the thread */
  char              *temp;
  char              *abs;
  GByteArray        *pending; /* (owned) bytes not yet written */
  mode_t             umask;
  char              *filter_origin; /* (nullable) set for .lbfilter uploads, which are parsed */
  /* results */
  guint              status;
  const char        *detail;
  char              *detail_owned;
  int                err;
  gboolean           renamed;
  gboolean           existed;
  char              *etag;
  char              *lastmod;
} LbPutCommit;

static void
lb_put_commit_free (LbPutCommit *pc)
{
  if (pc->fd >= 0)
    close (pc->fd);
  g_object_unref (pc->msg);
  g_object_unref (pc->server);
  g_free (pc->temp);
  g_free (pc->abs);
  g_byte_array_unref (pc->pending);
  g_free (pc->etag);
  g_free (pc->lastmod);
  g_free (pc->filter_origin);
  g_free (pc->detail_owned);
  g_free (pc);
}

static guint
status_for_write_errno (int err)
{
  return lb_store_reply_errno_status (err) == SOUP_STATUS_INSUFFICIENT_STORAGE
           ? SOUP_STATUS_INSUFFICIENT_STORAGE
           : SOUP_STATUS_INTERNAL_SERVER_ERROR;
}

static void
put_commit_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  LbPutCommit *pc = task_data;
  struct stat st;
  int err = lb_store_fs_write_all (pc->fd, pc->pending->data, pc->pending->len);
  guint status;

  if (err == 0 && fsync (pc->fd) != 0)
    err = errno;
  pc->existed = stat (pc->abs, &st) == 0;
  if (err == 0 && fchmod (pc->fd, pc->existed ? (st.st_mode & 07777) : (0666 & ~pc->umask)) != 0)
    err = errno;
  if (close (pc->fd) != 0 && err == 0)
    err = errno;
  pc->fd = -1;
  if (err != 0)
    {
      pc->err = err;
      pc->status = status_for_write_errno (err);
      pc->detail = g_strerror (err);
      return;
    }
  if (pc->existed && S_ISDIR (st.st_mode))
    {
      pc->status = SOUP_STATUS_CONFLICT;
      pc->detail = "a collection has this name";
      return;
    }
  if (pc->filter_origin != NULL)
    {
      /* The repository only publishes filters the engine accepts: parsed strictly here (chain
       * steps are checked where they run, against the filters installed there). */
      g_autoptr(GError) error = NULL;
      g_autoptr(LbFilter) filter = NULL;
      char *text = NULL;
      gsize text_len = 0;

      if (stat (pc->temp, &st) == 0 && st.st_size > LB_STORE_MAX_XML_BODY)
        {
          pc->status = SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE;
          pc->detail = "a declarative filter is at most 1 MiB";
          return;
        }
      if (g_file_get_contents (pc->temp, &text, &text_len, &error))
        {
          g_autoptr(GBytes) bytes = g_bytes_new_take (text, text_len);
          filter = lb_declarative_parse (bytes, pc->filter_origin, NULL, NULL, &error);
        }
      if (filter == NULL)
        {
          pc->status = SOUP_STATUS_UNPROCESSABLE_ENTITY;
          pc->detail = pc->detail_owned = g_strdup (error->message);
          return;
        }
    }
  if ((status = lb_http_evaluate_preconditions (soup_server_message_get_request_headers (pc->msg),
                                                pc->existed ? &st : NULL, FALSE)) != 0)
    {
      pc->status = status;
      pc->detail = "precondition failed";
      return;
    }
  if (rename (pc->temp, pc->abs) != 0)
    {
      pc->err = errno;
      pc->status = lb_store_reply_errno_status (pc->err);
      pc->detail = g_strerror (pc->err);
      return;
    }
  pc->renamed = TRUE;
  lb_store_fs_sync_dir_of (pc->abs);
  if (stat (pc->abs, &st) == 0)
    {
      pc->etag = lb_http_make_etag (&st);
      pc->lastmod = lb_dav_format_rfc1123 (st.st_mtim.tv_sec);
    }
  pc->status = pc->existed ? SOUP_STATUS_NO_CONTENT : SOUP_STATUS_CREATED;
}

static void
put_commit_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  LbPutCommit *pc = g_task_get_task_data (G_TASK (result));
  LbStoreRequest *req = lb_store_request_get (pc->msg);
  SoupMessageHeaders *rh = soup_server_message_get_response_headers (pc->msg);

  if (req != NULL)
    {
      req->committing = FALSE;
      if (pc->renamed)
        {
          g_hash_table_remove (req->temps, req->temp_path);
          g_clear_pointer (&req->temp_path, g_free);
        }
      else
        lb_store_request_drop_temp (req);
    }
  if (pc->status == SOUP_STATUS_CREATED || pc->status == SOUP_STATUS_NO_CONTENT)
    {
      if (pc->etag != NULL)
        {
          soup_message_headers_replace (rh, "ETag", pc->etag);
          soup_message_headers_replace (rh, "Last-Modified", pc->lastmod);
        }
      if (pc->status == SOUP_STATUS_CREATED && req != NULL)
        {
          g_autofree char *loc = lb_store_path_encode (req->rel, FALSE);
          soup_message_headers_replace (rh, "Location", loc);
        }
      soup_server_message_set_status (pc->msg, pc->status, NULL);
    }
  else
    lb_store_reply_error (pc->msg, pc->status, pc->detail);
  /* A stopped server has dropped its connections: nothing left to resume. */
  if (!pc->server->stopped)
    soup_server_message_unpause (pc->msg);
}

static void
lb_store_upload_finish (LbStoreServer *self, SoupServerMessage *msg, LbStoreRequest *req)
{
  g_autoptr(GTask) task = NULL;
  LbPutCommit *pc;

  if (req->too_large)
    {
      lb_store_request_drop_temp (req);
      return lb_store_reply_error (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, "over the upload limit");
    }
  if (req->write_errno != 0)
    {
      lb_store_request_drop_temp (req);
      return lb_store_reply_error (msg, status_for_write_errno (req->write_errno),
                                   g_strerror (req->write_errno));
    }
  if (req->fd < 0 || req->temp_path == NULL)
    return lb_store_reply_error (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, "upload lost");

  pc = g_new0 (LbPutCommit, 1);
  pc->msg = g_object_ref (msg);
  pc->server = g_object_ref (self);
  pc->fd = req->fd;
  req->fd = -1;
  pc->temp = g_strdup (req->temp_path);
  pc->abs = g_strdup (req->abs);
  pc->pending = g_steal_pointer (&req->wbuf);
  pc->umask = self->umask;
  if (lb_store_path_is_in_filter_repo (req->rel))
    pc->filter_origin = g_path_get_basename (req->rel);
  req->committing = TRUE;

  soup_server_message_pause (msg);
  task = g_task_new (self, NULL, put_commit_done, NULL);
  g_task_set_source_tag (task, lb_store_upload_finish);
  g_task_set_task_data (task, pc, (GDestroyNotify) lb_put_commit_free);
  g_task_run_in_thread (task, put_commit_thread);
}

static void
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

static void
lb_dav_handle_delete (LbStoreServer *self, SoupServerMessage *msg, LbStoreRequest *req)
{
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);
  const char *depth = soup_message_headers_get_one (h, "Depth");
  struct stat st;
  guint status;
  int err;

  if (lstat (req->abs, &st) != 0)
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

/* Maps the Destination header of COPY/MOVE to a path below the root; returns 0 or a status. */
static guint
resolve_destination (LbStoreServer *self, SoupServerMessage *msg, char **rel_out, char **abs_out,
                     gboolean *slash_out)
{
  const char *dest = soup_message_headers_get_one (soup_server_message_get_request_headers (msg),
                                                   "Destination");
  GUri *req_uri = soup_server_message_get_uri (msg);
  g_autoptr(GUri) duri = NULL;
  const char *path;
  LbStorePathStatus ps;

  if (dest == NULL)
    return SOUP_STATUS_BAD_REQUEST;
  if (dest[0] == '/')
    path = dest;
  else
    {
      duri = g_uri_parse (dest, G_URI_FLAGS_ENCODED | G_URI_FLAGS_SCHEME_NORMALIZE, NULL);
      if (duri == NULL || g_uri_get_host (duri) == NULL)
        return SOUP_STATUS_BAD_REQUEST;
      /* RFC 4918 §9.8.5: a destination on another server is a 502. */
      if (g_ascii_strcasecmp (g_uri_get_host (duri), g_uri_get_host (req_uri)) != 0 ||
          g_uri_get_port (duri) != g_uri_get_port (req_uri))
        return SOUP_STATUS_BAD_GATEWAY;
      if (g_uri_get_fragment (duri) != NULL)
        return SOUP_STATUS_BAD_REQUEST;
      path = g_uri_get_path (duri);
    }
  {
    g_autofree char *p = g_strdup (path);
    char *q = strchr (p, '?');
    if (q != NULL)
      *q = '\0';
    ps = lb_store_path_decode (p, rel_out, slash_out);
  }
  if (ps != LB_STORE_PATH_OK)
    return ps;
  *abs_out = g_build_filename (self->root, *rel_out, NULL);
  if (!lb_store_path_is_contained (self->root_real, *abs_out))
    return SOUP_STATUS_FORBIDDEN;
  return 0;
}

static void
lb_dav_handle_copy_move (LbStoreServer *self, SoupServerMessage *msg, LbStoreRequest *req,
                         gboolean move)
{
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);
  const char *depth = soup_message_headers_get_one (h, "Depth");
  const char *overwrite_h = soup_message_headers_get_one (h, "Overwrite");
  g_autofree char *drel = NULL;
  g_autofree char *dabs = NULL;
  gboolean dslash = FALSE, overwrite = TRUE, recursive = TRUE, dexists;
  struct stat st, dst;
  guint status;
  int err;

  if (lstat (req->abs, &st) != 0)
    return lb_store_reply_error (msg, SOUP_STATUS_NOT_FOUND, NULL);
  if (move && (req->rel[0] == '\0' || lb_store_path_is_filter_repo_dir (req->rel)))
    return lb_store_reply_error (msg, SOUP_STATUS_FORBIDDEN, "this collection cannot be moved");
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
      if (lb_store_path_is_inside (dabs, req->abs))
        return lb_store_reply_error (msg, SOUP_STATUS_FORBIDDEN, "source lies inside the destination");
      /* A file replacing a file goes in atomically by rename below; anything else first
       * removes the destination (RFC 4918 §9.8.4: delete before copy). */
      if (S_ISDIR (dst.st_mode) || S_ISDIR (st.st_mode))
        {
          err = lb_store_fs_remove_tree (dabs);
          if (err != 0)
            return lb_store_reply_errno (msg, err);
        }
    }

  if (move)
    {
      if (rename (req->abs, dabs) != 0)
        {
          err = errno;
          if (err != EXDEV)
            return lb_store_reply_errno (msg, err);
          /* Another file system below the root: copy, then delete the source. */
          err = lb_store_fs_copy_tree (self->root_real, self->temps, req->abs, dabs, TRUE);
          if (err == 0)
            err = lb_store_fs_remove_tree (req->abs);
          if (err != 0)
            return lb_store_reply_errno (msg, err);
        }
      lb_store_fs_sync_dir_of (req->abs);
    }
  else
    {
      err = lb_store_fs_copy_tree (self->root_real, self->temps, req->abs, dabs, recursive);
      if (err != 0)
        {
          if (S_ISDIR (st.st_mode))
            lb_store_fs_remove_tree (dabs);
          return lb_store_reply_errno (msg, err);
        }
    }
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

static void
main_handler (SoupServer        *soup,
              SoupServerMessage *msg,
              const char        *path,
              GHashTable        *query,
              gpointer           user_data)
{
  LbStoreServer *self = user_data;
  LbStoreRequest *req = lb_store_request_get (msg);

  if (req == NULL)
    return lb_store_reply_error (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, NULL);
  if (method_is (msg, "OPTIONS"))
    return lb_dav_handle_options (self, msg);
  if (req->rel == NULL)
    return lb_store_reply_error (msg, SOUP_STATUS_BAD_REQUEST, NULL);
  if (req->too_large && !method_is (msg, "PUT"))
    return lb_store_reply_error (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, "request body too large");

  if (method_is (msg, "GET") || method_is (msg, "HEAD"))
    lb_dav_handle_get (self, msg, req);
  else if (method_is (msg, "PROPFIND"))
    lb_dav_handle_propfind (self, msg, req);
  else if (method_is (msg, "PROPPATCH"))
    lb_dav_handle_proppatch (self, msg, req);
  else if (method_is (msg, "PUT"))
    lb_store_upload_finish (self, msg, req);
  else if (method_is (msg, "MKCOL"))
    lb_dav_handle_mkcol (self, msg, req);
  else if (method_is (msg, "DELETE"))
    lb_dav_handle_delete (self, msg, req);
  else if (method_is (msg, "COPY"))
    lb_dav_handle_copy_move (self, msg, req, FALSE);
  else if (method_is (msg, "MOVE"))
    lb_dav_handle_copy_move (self, msg, req, TRUE);
  else
    lb_store_reply_error (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, NULL);
}

/* ---------------------------------------------------------------------------------------- */
/* request life cycle: state, access log                                                    */

/* Slow clients (slowloris): the socket timeout bounds every single wait for the peer, the
 * deadline bounds the whole request head, so a client trickling one byte a second cannot hold
 * a connection for longer than timeout_s. Shutting the socket down makes libsoup's pending read
 * see end-of-file and drop the connection the usual way. */
static gboolean
on_header_deadline (gpointer user_data)
{
  g_socket_shutdown (G_SOCKET (user_data), TRUE, TRUE, NULL);
  return G_SOURCE_REMOVE;
}

static void
on_got_headers_deadline (SoupServerMessage *msg, gpointer user_data)
{
  LbStoreRequest *req = lb_store_request_get (msg);

  if (req != NULL && req->header_deadline != NULL)
    {
      g_source_destroy (req->header_deadline);
      g_clear_pointer (&req->header_deadline, g_source_unref);
    }
}

/*
 * Keep-alive after 204 and 304 (libsoup 3.2): these responses have no body by definition
 * (RFC 9110 §6.4.1) and carry no Content-Length, and libsoup's keep-alive test then takes the
 * response for one delimited by end-of-file and closes the connection. Every overwriting PUT,
 * DELETE, COPY and MOVE answered 204 and so cost the client a new TCP connection (see
 * bench/README.md, net). Declaring the framing explicitly (no body) changes nothing on the
 * wire: libsoup already writes 204/304 without a body and without Content-Length.
 */
static void
on_wrote_headers (SoupServerMessage *msg, gpointer user_data)
{
  guint status = soup_server_message_get_status (msg);

  if (status == SOUP_STATUS_NO_CONTENT || status == SOUP_STATUS_NOT_MODIFIED)
    soup_message_headers_set_encoding (soup_server_message_get_response_headers (msg),
                                       SOUP_ENCODING_NONE);
}

/* Sets up the connection side of a request that has just started: keep-alive after 204 and
 * 304, and with a timeout, the socket timeout and the deadline of the request head. */
static void
lb_store_conn_start_request (LbStoreServer *self, SoupServerMessage *msg, LbStoreRequest *req)
{
  g_signal_connect (msg, "wrote-headers", G_CALLBACK (on_wrote_headers), NULL);
  if (self->timeout_s > 0)
    {
      GSocket *sock = soup_server_message_get_socket (msg);

      if (sock != NULL)
        {
          g_socket_set_timeout (sock, self->timeout_s);
          req->header_deadline = g_timeout_source_new_seconds (self->timeout_s);
          g_source_set_callback (req->header_deadline, on_header_deadline, g_object_ref (sock),
                                 g_object_unref);
          g_source_attach (req->header_deadline, g_main_context_get_thread_default ());
          g_signal_connect (msg, "got-headers", G_CALLBACK (on_got_headers_deadline), NULL);
        }
    }
}

static void
on_request_started (SoupServer *soup, SoupServerMessage *msg, gpointer user_data)
{
  LbStoreServer *self = user_data;
  LbStoreRequest *req = lb_store_request_attach (msg, self->temps, self->max_upload);

  lb_store_conn_start_request (self, msg, req);
}

static void
log_request (LbStoreServer *self, SoupServerMessage *msg, gboolean aborted)
{
  LbStoreRequest *req = lb_store_request_get (msg);
  GUri *uri = soup_server_message_get_uri (msg);
  const char *method = soup_server_message_get_method (msg);
  guint64 out = 0;
  g_autofree char *logged_path = NULL;

  if (req == NULL)
    return;
  /* An upload whose connection died never reaches the handler: drop its temporary now. */
  lb_store_request_drop_temp (req);
  if (self->log == NULL)
    return;
  /* Re-encoded: the log shows each path in one canonical, unambiguous form. */
  if (uri != NULL)
    logged_path = g_uri_escape_string (g_uri_get_path (uri), "/", FALSE);
  if (!aborted && method != NULL && strcmp (method, "HEAD") != 0)
    out = (guint64) soup_server_message_get_response_body (msg)->length;
  lb_access_log_write (self->log, req->start,
                       req->client, req->user, method,
                       logged_path,
                       aborted && soup_server_message_get_status (msg) == 0 ? 0
                                                                           : soup_server_message_get_status (msg),
                       out, req->bytes_in,
                       g_get_monotonic_time () - req->start_us);
}

/*
 * Keep-alive connections closed by the client between requests.
 *
 * libsoup 3.2 (Debian 12 ships 3.2.3) reads the EOF of an idle keep-alive connection and then
 * forgets the connection without closing it: every such client leaves a socket in CLOSE_WAIT
 * and the process runs out of descriptors (fixed upstream in 3.3). Until then the server
 * watches each idle connection itself: readable with MSG_PEEK showing EOF means the client
 * left, and the server closes the socket. Bytes of a next request end the watch and leave
 * everything to libsoup.
 *
 * The watch also enforces the idle timeout: libsoup's own wait for the next request times out
 * with the socket timeout (timeout_s) and then leaves the connection half torn down: it never
 * reads the next request (the client waits forever) and stealing the connection from the
 * finished message then crashed inside libsoup (SIGSEGV, a NULL I/O structure). So the watch
 * never steals: it shuts the socket down and closes it when the client left or when the
 * connection stayed idle for timeout_s; libsoup's pending read then fails on the closed
 * socket and libsoup drops the connection its usual way. The client sees an orderly close,
 * which HTTP/1.1 allows for idle connections at any time (RFC 9112 §9.8).
 */
typedef struct
{
  LbStoreServer     *server; /* (unowned) the watch is destroyed before the server */
  SoupServerMessage *msg;    /* the request that finished (kept for its lifetime only) */
  GSocket           *socket;
  gint64             idle_since_us; /* monotonic time the connection went idle */
} LbIdleWatch;

static void
lb_idle_watch_free (LbIdleWatch *w)
{
  g_object_unref (w->msg);
  g_object_unref (w->socket);
  g_free (w);
}

static gboolean
on_idle_connection_io (GSocket *socket, GIOCondition cond, gpointer user_data)
{
  LbIdleWatch *w = user_data;
  guint timeout_s = w->server->timeout_s;
  char c;
  ssize_t n;

  if (g_socket_is_closed (socket))
    goto done; /* libsoup closed it itself */
  n = recv (g_socket_get_fd (socket), &c, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n > 0)
    goto done; /* the next request: libsoup reads it */
  if (n < 0 && (errno == EAGAIN || errno == EINTR))
    {
      /* The socket timeout wakes this source after timeout_s without traffic. */
      if (timeout_s == 0
          || g_get_monotonic_time () - w->idle_since_us < (gint64) timeout_s * G_USEC_PER_SEC)
        return G_SOURCE_CONTINUE;
      g_debug ("closing a keep-alive connection idle for %u s", timeout_s);
    }
  /* EOF or a reset from the client, or idle too long: close it for libsoup. */
  g_socket_shutdown (socket, TRUE, TRUE, NULL);
  g_socket_close (socket, NULL);

done:
  g_hash_table_remove (w->server->idle_watches, g_main_current_source ());
  return G_SOURCE_REMOVE;
}

static void
lb_store_conn_watch_idle (LbStoreServer *self, SoupServerMessage *msg)
{
  GSocket *socket = soup_server_message_get_socket (msg);
  const char *conn_hdr = soup_message_headers_get_list (soup_server_message_get_response_headers (msg),
                                                        "Connection");
  LbIdleWatch *w;
  GSource *source;

  if (socket == NULL || g_socket_is_closed (socket))
    return;
  if (conn_hdr != NULL && soup_header_contains (conn_hdr, "close"))
    return; /* libsoup closes this one itself */
  if (soup_server_message_get_http_version (msg) == SOUP_HTTP_1_0)
    return;
  w = g_new0 (LbIdleWatch, 1);
  w->server = self;
  w->msg = g_object_ref (msg);
  w->socket = g_object_ref (socket);
  w->idle_since_us = g_get_monotonic_time ();
  /* With timeout_s set on the socket (on_request_started), this source also fires after that
   * long without traffic: the idle timeout below. */
  source = g_socket_create_source (socket, G_IO_IN | G_IO_HUP | G_IO_ERR, NULL);
  g_source_set_callback (source, G_SOURCE_FUNC (on_idle_connection_io), w,
                         (GDestroyNotify) lb_idle_watch_free);
  g_source_attach (source, g_main_context_get_thread_default ());
  g_hash_table_add (self->idle_watches, source); /* the table owns the reference */
}

static void
on_request_finished (SoupServer *soup, SoupServerMessage *msg, gpointer user_data)
{
  log_request (user_data, msg, FALSE);
  lb_store_conn_watch_idle (user_data, msg);
}

static void
on_request_aborted (SoupServer *soup, SoupServerMessage *msg, gpointer user_data)
{
  log_request (user_data, msg, TRUE);
}

/* ---------------------------------------------------------------------------------------- */
/* object                                                                                   */

static void
lb_store_server_dispose (GObject *object)
{
  LbStoreServer *self = LB_STORE_SERVER (object);

  lb_store_server_stop (self);
  g_clear_object (&self->soup);
  g_clear_object (&self->auth);
  g_clear_object (&self->log);
  G_OBJECT_CLASS (lb_store_server_parent_class)->dispose (object);
}

static void
lb_store_server_finalize (GObject *object)
{
  LbStoreServer *self = LB_STORE_SERVER (object);

  g_free (self->root);
  g_free (self->root_real);
  g_free (self->url);
  g_hash_table_unref (self->temps);
  g_hash_table_unref (self->idle_watches);
  G_OBJECT_CLASS (lb_store_server_parent_class)->finalize (object);
}

static void
lb_store_server_class_init (LbStoreServerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = lb_store_server_dispose;
  object_class->finalize = lb_store_server_finalize;
}

static void
destroy_source (gpointer source)
{
  g_source_destroy (source);
  g_source_unref (source);
}

static void
lb_store_server_init (LbStoreServer *self)
{
  self->temps = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->idle_watches = g_hash_table_new_full (NULL, NULL, NULL, destroy_source);
  self->umask = umask (022);
  umask (self->umask);
}

/*
 * lb_store_server_new:
 * @root: the directory to serve
 *
 * The server is idle until lb_store_server_listen(); it serves from the thread-default main
 * context current at that call.
 */
LbStoreServer *
lb_store_server_new (const char *root, GError **error)
{
  g_autoptr(LbStoreServer) self = NULL;
  g_autofree char *abs = NULL;
  char *real;
  struct stat st;

  g_return_val_if_fail (root != NULL, NULL);

  abs = g_canonicalize_filename (root, NULL);
  if (stat (abs, &st) != 0 || !S_ISDIR (st.st_mode))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_NOT_FOUND, "Store root %s is not a directory", root);
      return NULL;
    }
  real = realpath (abs, NULL);
  if (real == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_FAILED, "Cannot resolve store root %s: %s", root,
                   g_strerror (errno));
      return NULL;
    }
  self = g_object_new (LB_TYPE_STORE_SERVER, NULL);
  self->root = g_strdup (real);
  self->timeout_s = LB_STORE_DEFAULT_TIMEOUT;
  self->root_real = g_strdup (real);
  free (real);
  self->soup = soup_server_new ("server-header", "lightbox-store/" PACKAGE_VERSION " ", NULL);
  soup_server_add_early_handler (self->soup, NULL, early_handler, self, NULL);
  soup_server_add_handler (self->soup, NULL, main_handler, self, NULL);
  g_signal_connect (self->soup, "request-started", G_CALLBACK (on_request_started), self);
  g_signal_connect (self->soup, "request-finished", G_CALLBACK (on_request_finished), self);
  g_signal_connect (self->soup, "request-aborted", G_CALLBACK (on_request_aborted), self);
  return g_steal_pointer (&self);
}

/*
 * lb_store_server_set_timeout:
 * @seconds: 0 for none
 *
 * A request head must arrive completely within @seconds, and no single wait for the peer (for
 * body bytes, or for it to read the response) may last longer; otherwise the connection is
 * closed. Defaults to %LB_STORE_DEFAULT_TIMEOUT.
 */
void
lb_store_server_set_timeout (LbStoreServer *self, guint seconds)
{
  g_return_if_fail (LB_IS_STORE_SERVER (self));
  self->timeout_s = seconds;
}

void
lb_store_server_set_read_only (LbStoreServer *self, gboolean read_only)
{
  g_return_if_fail (LB_IS_STORE_SERVER (self));
  self->read_only = read_only;
}

void
lb_store_server_set_max_upload (LbStoreServer *self, guint64 max_bytes)
{
  g_return_if_fail (LB_IS_STORE_SERVER (self));
  self->max_upload = max_bytes;
}

void
lb_store_server_set_auth (LbStoreServer *self, LbStoreAuth *auth)
{
  g_return_if_fail (LB_IS_STORE_SERVER (self));
  g_set_object (&self->auth, auth);
}

void
lb_store_server_set_access_log (LbStoreServer *self, LbAccessLog *log)
{
  g_return_if_fail (LB_IS_STORE_SERVER (self));
  g_set_object (&self->log, log);
}

void
lb_store_server_set_tls_certificate (LbStoreServer *self, GTlsCertificate *cert)
{
  g_return_if_fail (LB_IS_STORE_SERVER (self));
  g_object_set (self->soup, "tls-certificate", cert, NULL);
}

static guint stale_removed; /* nftw() passes no user data */

static int
remove_stale_cb (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  const char *base = path + ftw->base;

  if (flag == FTW_F && g_str_has_prefix (base, LB_STORE_TEMP_PREFIX) && g_unlink (path) == 0)
    stale_removed++;
  return 0;
}

/* Removes the upload temporaries below @root (not crossing mounts nor following symlinks);
 * returns how many. */
static guint
lb_store_fs_remove_stale_temps (const char *root)
{
  stale_removed = 0;
  nftw (root, remove_stale_cb, 32, FTW_PHYS | FTW_MOUNT);
  return stale_removed;
}

/*
 * lb_store_server_remove_stale_temps:
 *
 * Removes upload temporaries left by a server that was killed mid-upload. Returns how many.
 */
guint
lb_store_server_remove_stale_temps (LbStoreServer *self)
{
  g_return_val_if_fail (LB_IS_STORE_SERVER (self), 0);

  return lb_store_fs_remove_stale_temps (self->root);
}

/*
 * lb_store_server_listen:
 * @address: (nullable): a literal IP address or "localhost"; NULL means 127.0.0.1
 * @port: 0 picks a free port
 *
 * Refuses a non-loopback address unless authentication is configured.
 */
gboolean
lb_store_server_listen (LbStoreServer *self, const char *address, guint port, GError **error)
{
  g_autoptr(GInetAddress) inet = NULL;
  g_autoptr(GSocketAddress) sa = NULL;
  g_autoptr(GTlsCertificate) cert = NULL;
  GSList *uris;
  SoupServerListenOptions opts = 0;

  g_return_val_if_fail (LB_IS_STORE_SERVER (self), FALSE);

  if (address == NULL || g_ascii_strcasecmp (address, "localhost") == 0)
    address = "127.0.0.1";
  inet = g_inet_address_new_from_string (address);
  if (inet == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "Bind address %s is not an IP address", address);
      return FALSE;
    }
  if (!g_inet_address_get_is_loopback (inet) && !lb_store_auth_is_enabled (self->auth))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PERMISSION,
                   "Refusing to serve on %s without authentication: use --token-file or "
                   "--passwd-file, or bind a loopback address", address);
      return FALSE;
    }
  if (port > 65535)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT, "Port %u out of range", port);
      return FALSE;
    }
  g_object_get (self->soup, "tls-certificate", &cert, NULL);
  if (cert != NULL)
    opts |= SOUP_SERVER_LISTEN_HTTPS;
  sa = g_inet_socket_address_new (inet, (guint16) port);
  if (!soup_server_listen (self->soup, sa, opts, error))
    {
      g_prefix_error (error, "Cannot listen on %s port %u: ", address, port);
      return FALSE;
    }
  uris = soup_server_get_uris (self->soup);
  if (uris != NULL)
    {
      g_free (self->url);
      self->url = g_uri_to_string (uris->data);
    }
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  return TRUE;
}

const char *
lb_store_server_get_url (LbStoreServer *self)
{
  g_return_val_if_fail (LB_IS_STORE_SERVER (self), NULL);
  return self->url;
}

const char *
lb_store_server_get_root (LbStoreServer *self)
{
  g_return_val_if_fail (LB_IS_STORE_SERVER (self), NULL);
  return self->root;
}

/*
 * lb_store_server_stop:
 *
 * Closes the listening sockets and connections and removes every in-flight upload temporary.
 */
void
lb_store_server_stop (LbStoreServer *self)
{
  GHashTableIter iter;
  gpointer key;

  g_return_if_fail (LB_IS_STORE_SERVER (self));

  self->stopped = TRUE;
  if (self->soup != NULL)
    soup_server_disconnect (self->soup);
  g_hash_table_remove_all (self->idle_watches);
  g_hash_table_iter_init (&iter, self->temps);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_unlink (key);
  g_hash_table_remove_all (self->temps);
}
