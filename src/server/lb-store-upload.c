/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-store-server"

#include "lb-store-upload.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lb-dav-xml.h"
#include "lb-declarative.h"
#include "lb-http-conditions.h"
#include "lb-store-fs.h"
#include "lb-store-lock.h"
#include "lb-store-path.h"
#include "lb-store-reply.h"
#include "lb-store-server-private.h"

#define LB_PUT_BLOCK (256 * 1024)

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

void
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

void
lb_store_upload_begin (LbStoreServer *self, SoupServerMessage *msg, LbStoreRequest *req)
{
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);
  struct stat st;
  gboolean exists;
  guint status;
  int err;

  /* A chunked body is refused from the head (RFC 9110 §15.5.12): libsoup 3.2 cannot tell a
   * complete one from a cut one, so a truncated or malformed upload would replace the file.
   * libsoup 3.2.3's chunked decoder (soup-body-input-stream.c) reads the chunk size with
   * strtoul() and takes anything that is not a positive number ("zz", "-5", an empty line,
   * 18 hex digits) for the last chunk; it takes end-of-file at a chunk boundary for the end of
   * the body; and it accepts any line after a chunk and after the last chunk. A PUT body then
   * looks complete to the server whether the client sent it all or died half-way. Upstream:
   * end-of-file is an error since 3.6.5 (GNOME/libsoup#153, #381), the line ends and trailers
   * are read correctly since 3.6.6, and bad chunk sizes are a 400 in 3.7.1 (#508). The
   * Lightbox client always sends Content-Length. */
  if (soup_message_headers_get_encoding (h) == SOUP_ENCODING_CHUNKED)
    return lb_store_reply_refuse (msg, SOUP_STATUS_LENGTH_REQUIRED,
                                  "chunked uploads are not accepted: send Content-Length");
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
  if (exists && !S_ISREG (st.st_mode))
    return lb_store_reply_refuse (msg, SOUP_STATUS_CONFLICT,
                                  "something other than a file has this name");
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

/*
 * lb_store_upload_check_filter:
 * @path: a regular file
 * @name: the name it is to be published under in the filter repository
 * @detail: (out): why not, for the answer
 *
 * Whether @path may be published as a declarative filter: at most LB_STORE_MAX_XML_BODY bytes
 * (else 413), and text the engine's strict parser accepts (else 422, with the parser's
 * "file:line: reason"). Chain steps are checked where they run, against the filters installed
 * there. Every way into the repository (PUT, COPY, MOVE) goes through here. Returns 0 or the
 * status.
 */
guint
lb_store_upload_check_filter (const char *path, const char *name, char **detail)
{
  g_autoptr(GError) error = NULL;
  gboolean valid = FALSE;
  char *text = NULL;
  gsize text_len = 0;
  struct stat st;

  if (stat (path, &st) == 0 && st.st_size > LB_STORE_MAX_XML_BODY)
    {
      *detail = g_strdup ("a declarative filter is at most 1 MiB");
      return SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE;
    }
  if (g_file_get_contents (path, &text, &text_len, &error))
    {
      g_autoptr(GBytes) bytes = g_bytes_new_take (text, text_len);
      valid = lb_declarative_check (bytes, name, &error);
    }
  if (!valid)
    {
      *detail = g_strdup (error->message);
      return SOUP_STATUS_UNPROCESSABLE_ENTITY;
    }
  return 0;
}

/*
 * The end of a PUT: write the last buffered bytes, fsync, then, under the lock of the target
 * path (lb-store-lock.h), check the preconditions again against the file that is there now
 * and rename into place, so that no other writer of this server can come between the check
 * and the rename; If-None-Match: * renames without replacing (the kernel refuses if anything
 * has the name). Then fsync the directory. fsync of a large file can take a long time, so this
 * runs in a worker thread while the message is paused; the thread touches only the file
 * system, the locks and this struct (the preconditions are copied out of the request first),
 * never the message or the server's tables.
 */
typedef struct
{
  SoupServerMessage   *msg;     /* (owned) paused until the commit is done */
  LbStoreServer       *server;  /* (owned) */
  int                  fd;      /* (owned) the temporary, closed by the thread */
  char                *temp;
  char                *abs;
  GByteArray          *pending; /* (owned) bytes not yet written */
  LbHttpPreconditions *cond;    /* (owned) the request's preconditions */
  mode_t               umask;
  char                *filter_origin; /* (nullable) set for .lbfilter uploads, which are parsed */
  /* results */
  guint                status;
  const char          *detail;
  char                *detail_owned;
  int                  err;
  gboolean             renamed;
  gboolean             existed;
  char                *etag;
  char                *lastmod;
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
  lb_http_preconditions_free (pc->cond);
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

/* Under the target's lock: the preconditions against the file there now, then the rename.
 * Sets pc->status on refusal and returns FALSE. */
static gboolean
put_commit_locked (LbPutCommit *pc)
{
  g_autofree char *key = lb_store_lock_key (pc->abs);
  g_autoptr(LbStoreLock) lock = NULL;
  struct stat st;
  guint status;
  int err;

  lock = lb_store_lock_acquire (pc->server->locks, key, NULL);
  pc->existed = stat (pc->abs, &st) == 0;
  if (pc->existed && !S_ISREG (st.st_mode))
    {
      pc->status = SOUP_STATUS_CONFLICT;
      pc->detail = S_ISDIR (st.st_mode) ? "a collection has this name"
                                        : "something other than a file has this name";
      return FALSE;
    }
  if ((status = lb_http_preconditions_evaluate (pc->cond, pc->existed ? &st : NULL, FALSE)) != 0)
    {
      pc->status = status;
      pc->detail = "precondition failed";
      return FALSE;
    }
  if (lb_http_preconditions_forbid_any (pc->cond))
    err = lb_store_fs_rename_noreplace (pc->temp, pc->abs);
  else
    err = rename (pc->temp, pc->abs) == 0 ? 0 : errno;
  if (err == EEXIST)
    {
      /* Created behind the server's back since the check: If-None-Match: * fails. */
      pc->status = SOUP_STATUS_PRECONDITION_FAILED;
      pc->detail = "precondition failed";
      return FALSE;
    }
  if (err != 0)
    {
      pc->err = err;
      pc->status = lb_store_reply_errno_status (err);
      pc->detail = g_strerror (err);
      return FALSE;
    }
  pc->renamed = TRUE;
  return TRUE;
}

static void
put_commit_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  LbPutCommit *pc = task_data;
  struct stat st, own;
  int err = lb_store_fs_write_all (pc->fd, pc->pending->data, pc->pending->len);

  if (err == 0 && fsync (pc->fd) != 0)
    err = errno;
  /* The mode of the file it replaces, else the one a new file gets. */
  if (err == 0 &&
      fchmod (pc->fd, stat (pc->abs, &st) == 0 ? (st.st_mode & 07777) : (0666 & ~pc->umask)) != 0)
    err = errno;
  /* The new file's ETag: a rename keeps the inode, size and mtime it is made of. */
  if (err == 0 && fstat (pc->fd, &own) != 0)
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
  if (pc->filter_origin != NULL &&
      (pc->status = lb_store_upload_check_filter (pc->temp, pc->filter_origin, &pc->detail_owned)) != 0)
    {
      pc->detail = pc->detail_owned;
      return;
    }
  if (!put_commit_locked (pc))
    return;
  lb_store_fs_sync_dir_of (pc->abs);
  pc->etag = lb_http_make_etag (&own);
  pc->lastmod = lb_dav_format_rfc1123 (own.st_mtim.tv_sec);
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

void
lb_store_upload_finish (LbStoreServer *self, SoupServerMessage *msg, LbStoreRequest *req)
{
  g_autoptr(GTask) task = NULL;
  LbHttpPreconditions cond;
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
  /* Copied now: the thread must not read the headers of a message the main loop owns. */
  lb_http_preconditions_read (&cond, soup_server_message_get_request_headers (msg));
  pc->cond = lb_http_preconditions_dup (&cond);
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
