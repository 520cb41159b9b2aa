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

#define ALLOW_METHODS "OPTIONS, GET, HEAD, PUT, DELETE, MKCOL, COPY, MOVE, PROPFIND, PROPPATCH"

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
} LbRequest;

static void
lb_request_drop_temp (LbRequest *req)
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
lb_request_free (LbRequest *req)
{
  lb_request_drop_temp (req);
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

static LbRequest *
get_request (SoupServerMessage *msg)
{
  return g_object_get_data (G_OBJECT (msg), "lb-request");
}

/* ---------------------------------------------------------------------------------------- */
/* helpers                                                                                  */

static void
set_error_status (SoupServerMessage *msg, guint status, const char *detail)
{
  g_autofree char *text = g_strdup_printf ("%u %s%s%s\n", status, soup_status_get_phrase (status),
                                           detail ? ": " : "", detail ? detail : "");

  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "text/plain; charset=utf-8", SOUP_MEMORY_COPY,
                                    text, strlen (text));
}

/* Answers @msg with @status and the XML document @body. */
static void
set_xml_response (SoupServerMessage *msg, guint status, GBytes *body)
{
  gsize len;
  const char *data = g_bytes_get_data (body, &len);

  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "application/xml; charset=utf-8", SOUP_MEMORY_COPY,
                                    data, len);
}

static guint
status_for_errno (int err)
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

static char *
make_etag (const struct stat *st)
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
 * RFC 7232 §6 evaluation order. @st is NULL when the resource does not exist. Returns 0, 304
 * (only for GET/HEAD) or 412.
 */
static guint
evaluate_preconditions (SoupServerMessage *msg, const struct stat *st, gboolean safe_method)
{
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);
  const char *if_match = soup_message_headers_get_one (h, "If-Match");
  const char *if_none = soup_message_headers_get_one (h, "If-None-Match");
  const char *if_unmod = soup_message_headers_get_one (h, "If-Unmodified-Since");
  const char *if_mod = soup_message_headers_get_one (h, "If-Modified-Since");
  g_autofree char *etag = (st != NULL && S_ISREG (st->st_mode)) ? make_etag (st) : NULL;

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
sync_dir_of (const char *path)
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
parent_is_dir (const char *abs)
{
  g_autofree char *dir = g_path_get_dirname (abs);
  struct stat st;

  return stat (dir, &st) == 0 && S_ISDIR (st.st_mode);
}

/* Entries that are part of the DAV namespace: no dotfiles, no symlinks leading out. The
 * directory itself is known to lie inside the root, so only symlinks need resolving. */
static gboolean
entry_is_public (LbStoreServer *self, const char *dir_abs, const char *name, struct stat *st_out)
{
  g_autofree char *child = NULL;

  if (name[0] == '.')
    return FALSE;
  child = g_build_filename (dir_abs, name, NULL);
  if (lstat (child, st_out) != 0)
    return FALSE;
  if (S_ISLNK (st_out->st_mode) &&
      (!lb_store_path_is_contained (self->root_real, child) || stat (child, st_out) != 0))
    return FALSE;
  return S_ISREG (st_out->st_mode) || S_ISDIR (st_out->st_mode);
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Sorted public child names of a directory; NULL with errno set on failure. */
static GPtrArray *
list_children (LbStoreServer *self, const char *dir_abs)
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

      if (entry_is_public (self, dir_abs, e->d_name, &st))
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
remove_tree (const char *abs)
{
  return remove_tree_at (AT_FDCWD, abs);
}

/* Writes all @len bytes of @data to @fd, again after a signal; 0, or the errno of the write
 * that failed. */
static int
write_all (int fd, const void *data, gsize len)
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

/* Copies one regular file through a temporary in the destination directory, fsynced and
 * renamed into place, like PUT. Returns 0 or an errno. */
static int
copy_file_atomic (LbStoreServer *self, const char *src, const char *dst)
{
  g_autofree char *dir = g_path_get_dirname (dst);
  g_autofree char *tmpl = g_build_filename (dir, LB_STORE_TEMP_PREFIX "XXXXXX", NULL);
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
  out = g_mkstemp_full (tmpl, O_WRONLY | O_CLOEXEC, 0600);
  if (out < 0)
    {
      err = errno;
      close (in);
      return err;
    }
  g_hash_table_add (self->temps, g_strdup (tmpl));
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
      err = write_all (out, buf, (gsize) n);
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
  g_hash_table_remove (self->temps, tmpl);
  return err;
}

/* Recursive COPY of a collection; dotfiles are not part of the namespace and stay behind. */
static int
copy_tree (LbStoreServer *self, const char *src, const char *dst, gboolean recursive)
{
  struct stat st;
  g_autoptr(GPtrArray) names = NULL;

  if (stat (src, &st) != 0)
    return errno;
  if (S_ISREG (st.st_mode))
    return copy_file_atomic (self, src, dst);
  if (mkdir (dst, (st.st_mode & 07777) | S_IRWXU) != 0)
    return errno;
  if (!recursive)
    return 0;
  names = list_children (self, src);
  if (names == NULL)
    return errno;
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *s = g_build_filename (src, g_ptr_array_index (names, i), NULL);
      g_autofree char *d = g_build_filename (dst, g_ptr_array_index (names, i), NULL);
      int err = copy_tree (self, s, d, TRUE);

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
request_has_body (SoupServerMessage *msg)
{
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);
  SoupEncoding enc = soup_message_headers_get_encoding (h);

  if (enc == SOUP_ENCODING_CHUNKED || enc == SOUP_ENCODING_EOF)
    return TRUE;
  return enc == SOUP_ENCODING_CONTENT_LENGTH && soup_message_headers_get_content_length (h) > 0;
}

/* The protected skeleton of the filter repository: never deleted, moved or replaced. */
static gboolean
is_filter_repo_dir (const char *rel)
{
  return strcmp (rel, ".lightbox") == 0 || strcmp (rel, LB_STORE_FILTER_DIR) == 0;
}

/* Whether a new resource may be created at @rel (names only: dotfiles, filter repository). */
static guint
check_creatable (const char *rel, gboolean collection)
{
  if (rel[0] == '\0' || is_filter_repo_dir (rel))
    return SOUP_STATUS_FORBIDDEN;
  if (lb_store_path_is_in_filter_repo (rel))
    return (!collection && g_str_has_suffix (rel, LB_STORE_FILTER_SUFFIX)) ? 0 : SOUP_STATUS_FORBIDDEN;
  if (lb_store_path_is_hidden (rel))
    return SOUP_STATUS_FORBIDDEN;
  return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* body streaming                                                                           */

/* Writes the buffered body bytes to the temporary; on failure remembers errno and removes
 * the temporary at once, so a full disk does not stay full because of us. */
static gboolean
flush_upload (LbRequest *req)
{
  if (req->fd >= 0)
    {
      int err = write_all (req->fd, req->wbuf->data, req->wbuf->len);

      if (err != 0)
        {
          req->write_errno = err;
          lb_request_drop_temp (req);
        }
    }
  g_byte_array_set_size (req->wbuf, 0);
  return req->write_errno == 0;
}

static void
on_got_chunk (SoupServerMessage *msg, GBytes *chunk, gpointer user_data)
{
  LbRequest *req = user_data;
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
      lb_request_drop_temp (req);
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
  set_error_status (msg, SOUP_STATUS_UNAUTHORIZED, "credentials required");
  lb_store_auth_add_challenges (self->auth, soup_server_message_get_response_headers (msg));
}

/* A refusal sent before the body was read: the connection cannot be reused. */
static void
refuse_early (SoupServerMessage *msg, guint status, const char *detail)
{
  set_error_status (msg, status, detail);
  if (request_has_body (msg))
    soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                  "Connection", "close");
}

static void
early_put (LbStoreServer *self, SoupServerMessage *msg, LbRequest *req)
{
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);
  struct stat st;
  gboolean exists;
  guint status;
  g_autofree char *dir = NULL;
  g_autofree char *tmpl = NULL;

  if ((status = check_creatable (req->rel, FALSE)) != 0)
    return refuse_early (msg, status, "this name cannot be written");
  if (req->slash)
    return refuse_early (msg, SOUP_STATUS_CONFLICT, "PUT to a collection URL");
  /* RFC 7231 §4.3.4: a partial PUT must be refused, not applied as a whole. */
  if (soup_message_headers_get_one (h, "Content-Range") != NULL)
    return refuse_early (msg, SOUP_STATUS_BAD_REQUEST, "Content-Range on PUT is not supported");
  if (self->max_upload > 0 &&
      soup_message_headers_get_encoding (h) == SOUP_ENCODING_CONTENT_LENGTH &&
      (guint64) soup_message_headers_get_content_length (h) > self->max_upload)
    return refuse_early (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, "over the upload limit");

  exists = stat (req->abs, &st) == 0;
  if (exists && S_ISDIR (st.st_mode))
    return refuse_early (msg, SOUP_STATUS_CONFLICT, "a collection has this name");
  if ((status = evaluate_preconditions (msg, exists ? &st : NULL, FALSE)) != 0)
    return refuse_early (msg, status, "precondition failed");
  if (!parent_is_dir (req->abs))
    return refuse_early (msg, SOUP_STATUS_CONFLICT, "parent collection does not exist");

  dir = g_path_get_dirname (req->abs);
  tmpl = g_build_filename (dir, LB_STORE_TEMP_PREFIX "XXXXXX", NULL);
  req->fd = g_mkstemp_full (tmpl, O_WRONLY | O_CLOEXEC, 0600);
  if (req->fd < 0)
    return refuse_early (msg, status_for_errno (errno), g_strerror (errno));
  req->temp_path = g_steal_pointer (&tmpl);
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
  LbRequest *req = get_request (msg);
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
    return refuse_early (msg, SOUP_STATUS_BAD_REQUEST, "more than one Authorization field");
  /* Both framings at once is the request-smuggling pattern (RFC 9112 §6.1): refuse it rather
   * than pick one, since a proxy in front may have picked the other. */
  if (soup_message_headers_get_one (h, "Transfer-Encoding") != NULL &&
      soup_message_headers_get_one (h, "Content-Length") != NULL)
    return refuse_early (msg, SOUP_STATUS_BAD_REQUEST, "both Content-Length and Transfer-Encoding");
  if (count_headers (h, "Content-Length") > 1)
    return refuse_early (msg, SOUP_STATUS_BAD_REQUEST, "more than one Content-Length field");

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
      refuse_early (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, NULL);
      soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                    "Allow", ALLOW_METHODS);
      return;
    }
  if (method_writes (method))
    {
      if (self->read_only)
        return refuse_early (msg, SOUP_STATUS_FORBIDDEN, "this store is read-only");
      if (lb_store_auth_is_enabled (self->auth) && req->user == NULL)
        return challenge (self, msg);
    }

  if (strcmp (method, "OPTIONS") == 0 && soup_server_message_is_options_ping (msg))
    return;
  if (g_uri_get_fragment (uri) != NULL)
    return refuse_early (msg, SOUP_STATUS_BAD_REQUEST, "a request URI has no fragment");

  /* libsoup hands the path over percent-decoded with dot segments resolved; it is checked
   * again here (backslashes, stray dot segments, UTF-8) and never decoded twice. */
  ps = lb_store_path_check_decoded (g_uri_get_path (uri), &req->rel, &req->slash);
  if (ps != LB_STORE_PATH_OK)
    return refuse_early (msg, ps, "path refused");
  req->abs = g_build_filename (self->root, req->rel, NULL);
  if (!lb_store_path_is_contained (self->root_real, req->abs))
    return refuse_early (msg, SOUP_STATUS_FORBIDDEN, "path leads out of the store");
  if (lb_store_path_is_hidden (req->rel) && strcmp (method, "PUT") != 0 &&
      strcmp (method, "MKCOL") != 0)
    return refuse_early (msg, SOUP_STATUS_NOT_FOUND, NULL);

  /* Bodies are never accumulated by libsoup: PUT streams to disk, others are capped. */
  soup_message_body_set_accumulate (soup_server_message_get_request_body (msg), FALSE);
  g_signal_connect (msg, "got-chunk", G_CALLBACK (on_got_chunk), req);

  if (strcmp (method, "PUT") == 0)
    return early_put (self, msg, req);

  if (soup_message_headers_get_encoding (h) == SOUP_ENCODING_CONTENT_LENGTH &&
      soup_message_headers_get_content_length (h) > LB_STORE_MAX_XML_BODY)
    return refuse_early (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, "request body too large");
  req->body = g_byte_array_new ();
}

/* ---------------------------------------------------------------------------------------- */
/* methods                                                                                  */

static void
do_options (LbStoreServer *self, SoupServerMessage *msg)
{
  SoupMessageHeaders *rh = soup_server_message_get_response_headers (msg);

  soup_message_headers_replace (rh, "DAV", "1");
  soup_message_headers_replace (rh, "MS-Author-Via", "DAV");
  soup_message_headers_replace (rh, "Allow", ALLOW_METHODS);
  soup_message_headers_replace (rh, "Accept-Ranges", "bytes");
  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
}

static void
send_listing (LbStoreServer *self, SoupServerMessage *msg, LbRequest *req)
{
  g_autoptr(GPtrArray) names = list_children (self, req->abs);
  g_autoptr(GString) html = g_string_new (NULL);
  g_autofree char *title = g_markup_escape_text (req->rel[0] ? req->rel : "", -1);
  gsize len;

  if (names == NULL)
    return set_error_status (msg, status_for_errno (errno), g_strerror (errno));

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

/* Parses a single "bytes=" range; FALSE means no usable Range (serve the whole file). Sets
 * *unsatisfiable for a syntactically valid range that lies beyond the end. */
static gboolean
parse_single_range (const char *value, guint64 size, guint64 *start, guint64 *end,
                    gboolean *unsatisfiable)
{
  const char *p;
  char *endp;
  guint64 a, b;

  *unsatisfiable = FALSE;
  if (value == NULL || !g_str_has_prefix (value, "bytes="))
    return FALSE;
  p = value + 6;
  while (*p == ' ')
    p++;
  if (strchr (p, ',') != NULL)
    return FALSE; /* several ranges: RFC 7233 lets a server answer 200 with the whole file */
  if (*p == '-')
    {
      if (!g_ascii_isdigit (p[1]))
        return FALSE;
      b = g_ascii_strtoull (p + 1, &endp, 10);
      if (*g_strstrip (endp) != '\0')
        return FALSE;
      if (b == 0 || size == 0)
        {
          *unsatisfiable = TRUE;
          return TRUE;
        }
      *start = b >= size ? 0 : size - b;
      *end = size - 1;
      return TRUE;
    }
  if (!g_ascii_isdigit (*p))
    return FALSE;
  a = g_ascii_strtoull (p, &endp, 10);
  if (*endp != '-')
    return FALSE;
  p = endp + 1;
  if (*p == '\0')
    b = size > 0 ? size - 1 : 0;
  else
    {
      if (!g_ascii_isdigit (*p))
        return FALSE;
      b = g_ascii_strtoull (p, &endp, 10);
      if (*endp != '\0' || b < a)
        return FALSE;
    }
  if (a >= size)
    {
      *unsatisfiable = TRUE;
      return TRUE;
    }
  *start = a;
  *end = MIN (b, size - 1);
  return TRUE;
}

static void
do_get (LbStoreServer *self, SoupServerMessage *msg, LbRequest *req)
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
  guint64 start = 0, end = 0;
  gboolean unsatisfiable = FALSE;
  const char *range;
  const char *if_range;
  int fd;

  fd = open (req->abs, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return set_error_status (msg, errno == ENOENT || errno == ENOTDIR ? SOUP_STATUS_NOT_FOUND
                                                                        : status_for_errno (errno),
                             NULL);
  if (fstat (fd, &st) != 0)
    {
      close (fd);
      return set_error_status (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, g_strerror (errno));
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
      if ((status = evaluate_preconditions (msg, &st, TRUE)) != 0)
        return soup_server_message_set_status (msg, status, NULL);
      return send_listing (self, msg, req);
    }
  if (!S_ISREG (st.st_mode))
    {
      close (fd);
      return set_error_status (msg, SOUP_STATUS_NOT_FOUND, NULL);
    }
  if (req->slash)
    {
      close (fd);
      return set_error_status (msg, SOUP_STATUS_NOT_FOUND, NULL);
    }

  etag = make_etag (&st);
  lastmod = lb_dav_format_rfc1123 (st.st_mtim.tv_sec);
  soup_message_headers_replace (rh, "ETag", etag);
  soup_message_headers_replace (rh, "Last-Modified", lastmod);
  soup_message_headers_replace (rh, "Accept-Ranges", "bytes");

  status = evaluate_preconditions (msg, &st, TRUE);
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
          return set_error_status (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, "short read");
        }
      bytes = g_bytes_new_take (data, len);
    }
  else if (st.st_size > 0)
    {
      /* A mapping, not a copy: a PUT renames a new inode in, so these pages never change. */
      map = g_mapped_file_new_from_fd (fd, FALSE, &error);
      close (fd);
      if (map == NULL)
        return set_error_status (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, error->message);
      bytes = g_mapped_file_get_bytes (map);
    }
  else
    {
      close (fd);
      bytes = g_bytes_new (NULL, 0);
    }

  range = soup_message_headers_get_one (h, "Range");
  if_range = soup_message_headers_get_one (h, "If-Range");
  if (range != NULL && if_range != NULL)
    {
      /* If-Range: the range only applies while the representation is unchanged. */
      g_autofree char *ir = g_strstrip (g_strdup (if_range));
      if (ir[0] == '"' || g_str_has_prefix (ir, "W/"))
        {
          if (strcmp (ir, etag) != 0)
            range = NULL;
        }
      else
        {
          g_autoptr(GDateTime) d = soup_date_time_new_from_http_string (ir);
          if (d == NULL || g_date_time_to_unix (d) != st.st_mtim.tv_sec)
            range = NULL;
        }
    }
  if (range != NULL && parse_single_range (range, (guint64) st.st_size, &start, &end, &unsatisfiable))
    {
      g_autofree char *cr = NULL;

      if (unsatisfiable)
        {
          cr = g_strdup_printf ("bytes */%" G_GINT64_FORMAT, (gint64) st.st_size);
          soup_message_headers_replace (rh, "Content-Range", cr);
          return set_error_status (msg, SOUP_STATUS_REQUESTED_RANGE_NOT_SATISFIABLE, NULL);
        }
      cr = g_strdup_printf ("bytes %" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT "/%" G_GINT64_FORMAT,
                            start, end, (gint64) st.st_size);
      soup_message_headers_replace (rh, "Content-Range", cr);
      {
        g_autoptr(GBytes) part = g_bytes_new_from_bytes (bytes, (gsize) start, (gsize) (end - start + 1));
        g_clear_pointer (&bytes, g_bytes_unref);
        bytes = g_steal_pointer (&part);
      }
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
      *etag_owned = make_etag (st);
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
do_propfind (LbStoreServer *self, SoupServerMessage *msg, LbRequest *req)
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
      set_xml_response (msg, SOUP_STATUS_FORBIDDEN, body);
      return;
    }
  if (strcmp (depth, "0") == 0)
    d = 0;
  else if (strcmp (depth, "1") == 0)
    d = 1;
  else
    return set_error_status (msg, SOUP_STATUS_BAD_REQUEST, "Depth must be 0, 1 or infinity");

  if (!lb_dav_parse_propfind ((const char *) req->body->data, req->body->len, &kind, &names, &error))
    return set_error_status (msg, SOUP_STATUS_BAD_REQUEST, error->message);

  if (stat (req->abs, &st) != 0 || !(S_ISDIR (st.st_mode) || S_ISREG (st.st_mode)))
    return set_error_status (msg, SOUP_STATUS_NOT_FOUND, NULL);
  if (req->slash && !S_ISDIR (st.st_mode))
    return set_error_status (msg, SOUP_STATUS_NOT_FOUND, NULL);

  doc = lb_dav_multistatus_new ();
  add_propfind_entry (doc, req->rel, req->abs, &st, kind, names, root_name);
  if (d == 1 && S_ISDIR (st.st_mode))
    {
      g_autoptr(GPtrArray) children = list_children (self, req->abs);

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
  set_xml_response (msg, SOUP_STATUS_MULTI_STATUS, out);
}

/*
 * PROPPATCH: the store keeps no dead properties and its live properties are computed from the
 * file system, so every change is refused — per property, in a 207, as RFC 4918 §9.2 asks
 * (all-or-nothing, so one refusal refuses all).
 */
static void
do_proppatch (LbStoreServer *self, SoupServerMessage *msg, LbRequest *req)
{
  g_autoptr(GPtrArray) names = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) out = NULL;
  g_autofree char *href = NULL;
  struct stat st;
  xmlDocPtr doc;

  if (stat (req->abs, &st) != 0)
    return set_error_status (msg, SOUP_STATUS_NOT_FOUND, NULL);
  if (!lb_dav_parse_propertyupdate ((const char *) req->body->data, req->body->len, &names, &error))
    return set_error_status (msg, SOUP_STATUS_BAD_REQUEST, error->message);
  href = lb_store_path_encode (req->rel, S_ISDIR (st.st_mode));
  doc = lb_dav_multistatus_new ();
  lb_dav_multistatus_add_propstat (doc, href, names, SOUP_STATUS_FORBIDDEN,
                                   "cannot-modify-protected-property");
  out = lb_dav_doc_to_bytes (doc);
  xmlFreeDoc (doc);
  set_xml_response (msg, SOUP_STATUS_MULTI_STATUS, out);
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
  return status_for_errno (err) == SOUP_STATUS_INSUFFICIENT_STORAGE ? SOUP_STATUS_INSUFFICIENT_STORAGE
                                                                     : SOUP_STATUS_INTERNAL_SERVER_ERROR;
}

static void
put_commit_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  LbPutCommit *pc = task_data;
  struct stat st;
  int err = write_all (pc->fd, pc->pending->data, pc->pending->len);
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
      gboolean valid = FALSE;
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
          valid = lb_declarative_check (bytes, pc->filter_origin, &error);
        }
      if (!valid)
        {
          pc->status = SOUP_STATUS_UNPROCESSABLE_ENTITY;
          pc->detail = pc->detail_owned = g_strdup (error->message);
          return;
        }
    }
  if ((status = evaluate_preconditions (pc->msg, pc->existed ? &st : NULL, FALSE)) != 0)
    {
      pc->status = status;
      pc->detail = "precondition failed";
      return;
    }
  if (rename (pc->temp, pc->abs) != 0)
    {
      pc->err = errno;
      pc->status = status_for_errno (pc->err);
      pc->detail = g_strerror (pc->err);
      return;
    }
  pc->renamed = TRUE;
  sync_dir_of (pc->abs);
  if (stat (pc->abs, &st) == 0)
    {
      pc->etag = make_etag (&st);
      pc->lastmod = lb_dav_format_rfc1123 (st.st_mtim.tv_sec);
    }
  pc->status = pc->existed ? SOUP_STATUS_NO_CONTENT : SOUP_STATUS_CREATED;
}

static void
put_commit_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  LbPutCommit *pc = g_task_get_task_data (G_TASK (result));
  LbRequest *req = get_request (pc->msg);
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
        lb_request_drop_temp (req);
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
    set_error_status (pc->msg, pc->status, pc->detail);
  /* A stopped server has dropped its connections: nothing left to resume. */
  if (!pc->server->stopped)
    soup_server_message_unpause (pc->msg);
}

static void
do_put (LbStoreServer *self, SoupServerMessage *msg, LbRequest *req)
{
  g_autoptr(GTask) task = NULL;
  LbPutCommit *pc;

  if (req->too_large)
    {
      lb_request_drop_temp (req);
      return set_error_status (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, "over the upload limit");
    }
  if (req->write_errno != 0)
    {
      lb_request_drop_temp (req);
      return set_error_status (msg, status_for_write_errno (req->write_errno), g_strerror (req->write_errno));
    }
  if (req->fd < 0 || req->temp_path == NULL)
    return set_error_status (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, "upload lost");

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
  g_task_set_source_tag (task, do_put);
  g_task_set_task_data (task, pc, (GDestroyNotify) lb_put_commit_free);
  g_task_run_in_thread (task, put_commit_thread);
}

static void
do_mkcol (LbStoreServer *self, SoupServerMessage *msg, LbRequest *req)
{
  guint status;
  struct stat st;

  if (req->bytes_in > 0 || request_has_body (msg))
    return set_error_status (msg, SOUP_STATUS_UNSUPPORTED_MEDIA_TYPE, "MKCOL with a body");
  if (lstat (req->abs, &st) == 0)
    {
      soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Allow",
                                    ALLOW_METHODS);
      return set_error_status (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, "the resource exists");
    }
  if ((status = check_creatable (req->rel, TRUE)) != 0)
    return set_error_status (msg, status, "this name cannot be created");
  if (!parent_is_dir (req->abs))
    return set_error_status (msg, SOUP_STATUS_CONFLICT, "parent collection does not exist");
  if (mkdir (req->abs, 0777 & ~self->umask) != 0)
    return set_error_status (msg, status_for_errno (errno), g_strerror (errno));
  sync_dir_of (req->abs);
  soup_server_message_set_status (msg, SOUP_STATUS_CREATED, NULL);
}

static void
do_delete (LbStoreServer *self, SoupServerMessage *msg, LbRequest *req)
{
  const char *depth = soup_message_headers_get_one (soup_server_message_get_request_headers (msg), "Depth");
  struct stat st;
  guint status;
  int err;

  if (lstat (req->abs, &st) != 0)
    return set_error_status (msg, SOUP_STATUS_NOT_FOUND, NULL);
  if (req->rel[0] == '\0' || is_filter_repo_dir (req->rel))
    return set_error_status (msg, SOUP_STATUS_FORBIDDEN, "this collection cannot be deleted");
  if (S_ISDIR (st.st_mode) && depth != NULL && g_ascii_strcasecmp (depth, "infinity") != 0)
    return set_error_status (msg, SOUP_STATUS_BAD_REQUEST, "DELETE of a collection needs Depth: infinity");
  if ((status = evaluate_preconditions (msg, &st, FALSE)) != 0)
    return set_error_status (msg, status, "precondition failed");
  err = remove_tree (req->abs);
  if (err != 0)
    return set_error_status (msg, status_for_errno (err), g_strerror (err));
  sync_dir_of (req->abs);
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
do_copy_move (LbStoreServer *self, SoupServerMessage *msg, LbRequest *req, gboolean move)
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
    return set_error_status (msg, SOUP_STATUS_NOT_FOUND, NULL);
  if (move && (req->rel[0] == '\0' || is_filter_repo_dir (req->rel)))
    return set_error_status (msg, SOUP_STATUS_FORBIDDEN, "this collection cannot be moved");
  if ((status = resolve_destination (self, msg, &drel, &dabs, &dslash)) != 0)
    return set_error_status (msg, status, "bad Destination");

  if (overwrite_h != NULL)
    {
      if (g_ascii_strcasecmp (overwrite_h, "T") == 0)
        overwrite = TRUE;
      else if (g_ascii_strcasecmp (overwrite_h, "F") == 0)
        overwrite = FALSE;
      else
        return set_error_status (msg, SOUP_STATUS_BAD_REQUEST, "Overwrite must be T or F");
    }
  if (depth != NULL)
    {
      if (g_ascii_strcasecmp (depth, "infinity") == 0)
        recursive = TRUE;
      else if (strcmp (depth, "0") == 0 && !move)
        recursive = FALSE;
      else
        return set_error_status (msg, SOUP_STATUS_BAD_REQUEST,
                                 move ? "MOVE needs Depth: infinity" : "COPY needs Depth 0 or infinity");
    }

  if ((status = check_creatable (drel, S_ISDIR (st.st_mode))) != 0)
    return set_error_status (msg, status, "this destination cannot be written");
  if (strcmp (drel, req->rel) == 0)
    return set_error_status (msg, SOUP_STATUS_FORBIDDEN, "source and destination are the same");
  if (S_ISDIR (st.st_mode) && lb_store_path_is_inside (req->abs, dabs))
    return set_error_status (msg, SOUP_STATUS_FORBIDDEN, "destination lies inside the source");
  if (!parent_is_dir (dabs))
    return set_error_status (msg, SOUP_STATUS_CONFLICT, "destination parent does not exist");
  if ((status = evaluate_preconditions (msg, &st, FALSE)) != 0)
    return set_error_status (msg, status, "precondition failed");

  dexists = lstat (dabs, &dst) == 0;
  if (dexists)
    {
      if (!overwrite)
        return set_error_status (msg, SOUP_STATUS_PRECONDITION_FAILED, "destination exists");
      if (lb_store_path_is_inside (dabs, req->abs))
        return set_error_status (msg, SOUP_STATUS_FORBIDDEN, "source lies inside the destination");
      /* A file replacing a file goes in atomically by rename below; anything else first
       * removes the destination (RFC 4918 §9.8.4: delete before copy). */
      if (S_ISDIR (dst.st_mode) || S_ISDIR (st.st_mode))
        {
          err = remove_tree (dabs);
          if (err != 0)
            return set_error_status (msg, status_for_errno (err), g_strerror (err));
        }
    }

  if (move)
    {
      if (rename (req->abs, dabs) != 0)
        {
          err = errno;
          if (err != EXDEV)
            return set_error_status (msg, status_for_errno (err), g_strerror (err));
          /* Another file system below the root: copy, then delete the source. */
          err = copy_tree (self, req->abs, dabs, TRUE);
          if (err == 0)
            err = remove_tree (req->abs);
          if (err != 0)
            return set_error_status (msg, status_for_errno (err), g_strerror (err));
        }
      sync_dir_of (req->abs);
    }
  else
    {
      err = copy_tree (self, req->abs, dabs, recursive);
      if (err != 0)
        {
          if (S_ISDIR (st.st_mode))
            remove_tree (dabs);
          return set_error_status (msg, status_for_errno (err), g_strerror (err));
        }
    }
  sync_dir_of (dabs);
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
  LbRequest *req = get_request (msg);

  if (req == NULL)
    return set_error_status (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, NULL);
  if (method_is (msg, "OPTIONS"))
    return do_options (self, msg);
  if (req->rel == NULL)
    return set_error_status (msg, SOUP_STATUS_BAD_REQUEST, NULL);
  if (req->too_large && !method_is (msg, "PUT"))
    return set_error_status (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, "request body too large");

  if (method_is (msg, "GET") || method_is (msg, "HEAD"))
    do_get (self, msg, req);
  else if (method_is (msg, "PROPFIND"))
    do_propfind (self, msg, req);
  else if (method_is (msg, "PROPPATCH"))
    do_proppatch (self, msg, req);
  else if (method_is (msg, "PUT"))
    do_put (self, msg, req);
  else if (method_is (msg, "MKCOL"))
    do_mkcol (self, msg, req);
  else if (method_is (msg, "DELETE"))
    do_delete (self, msg, req);
  else if (method_is (msg, "COPY"))
    do_copy_move (self, msg, req, FALSE);
  else if (method_is (msg, "MOVE"))
    do_copy_move (self, msg, req, TRUE);
  else
    set_error_status (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, NULL);
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
  LbRequest *req = get_request (msg);

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

static void
on_request_started (SoupServer *soup, SoupServerMessage *msg, gpointer user_data)
{
  LbStoreServer *self = user_data;
  LbRequest *req = g_new0 (LbRequest, 1);

  req->temps = g_hash_table_ref (self->temps);
  req->max_upload = self->max_upload;
  req->fd = -1;
  req->start_us = g_get_monotonic_time ();
  req->start = g_date_time_new_now_utc ();
  g_object_set_data_full (G_OBJECT (msg), "lb-request", req, (GDestroyNotify) lb_request_free);
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
log_request (LbStoreServer *self, SoupServerMessage *msg, gboolean aborted)
{
  LbRequest *req = get_request (msg);
  GUri *uri = soup_server_message_get_uri (msg);
  const char *method = soup_server_message_get_method (msg);
  guint64 out = 0;
  g_autofree char *logged_path = NULL;

  if (req == NULL)
    return;
  /* An upload whose connection died never reaches the handler: drop its temporary now. */
  lb_request_drop_temp (req);
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
watch_idle_connection (LbStoreServer *self, SoupServerMessage *msg)
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
  watch_idle_connection (user_data, msg);
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

static guint stale_removed;

static int
remove_stale_cb (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  const char *base = path + ftw->base;

  if (flag == FTW_F && g_str_has_prefix (base, LB_STORE_TEMP_PREFIX) && g_unlink (path) == 0)
    stale_removed++;
  return 0;
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

  stale_removed = 0;
  nftw (self->root, remove_stale_cb, 32, FTW_PHYS | FTW_MOUNT);
  return stale_removed;
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
