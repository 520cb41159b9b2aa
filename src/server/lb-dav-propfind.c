/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-store-server"

#include "lb-dav-propfind.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "lb-dav-xml.h"
#include "lb-error.h"
#include "lb-http-conditions.h"
#include "lb-store-fs.h"
#include "lb-store-mime.h"
#include "lb-store-path.h"
#include "lb-store-reply.h"
#include "lb-store-server-private.h"

/* Birth time where the file system records one (statx), else the modification time. */
static gint64
birth_time (const char *abs, const struct stat *st)
{
  struct statx sx;

  if (statx (AT_FDCWD, abs, 0, STATX_BTIME, &sx) == 0 && (sx.stx_mask & STATX_BTIME))
    return sx.stx_btime.tv_sec;
  return st->st_mtim.tv_sec;
}

/* Writes the DAV:response of the resource at @abs (@rel below the root, "" for the root,
 * which is named @root_name). Touches only the file system: runs in worker threads. */
static void
write_entry (LbDavWriter *w, const char *rel, const char *abs, const struct stat *st,
             const char *root_name)
{
  g_autofree char *href = lb_store_path_encode (rel, S_ISDIR (st->st_mode));
  g_autofree char *base = rel[0] ? g_path_get_basename (rel) : g_strdup (root_name);
  g_autofree char *etag = NULL;
  g_autofree char *ct = NULL;
  LbDavResource res = { 0 };

  res.href = href;
  res.displayname = base;
  res.collection = S_ISDIR (st->st_mode);
  res.size = (guint64) st->st_size;
  res.mtime_s = st->st_mtim.tv_sec;
  res.ctime_s = birth_time (abs, st);
  if (res.collection)
    res.content_type = "httpd/unix-directory";
  else
    {
      etag = lb_http_make_etag (st);
      res.etag = etag;
      res.content_type = lb_store_mime_type_of_file (base, abs, &ct);
    }
  lb_dav_writer_add (w, &res);
}

/*
 * The streamed Depth 1 answer of one request. The main thread owns the fields marked (main);
 * the others belong to the one slice being made while @producing, and to the main thread
 * otherwise (GTask orders the two).
 */
typedef struct
{
  guint              ref;       /* (main) one for the message, one per slice in flight */
  SoupServerMessage *msg;       /* (main) (unowned) NULL once the message is gone */
  LbStoreServer     *server;    /* (owned) */
  gboolean           gone;      /* (main) the message finished or went: make nothing more */
  gboolean           producing; /* (main) a slice is being made */
  guint              unsent;    /* (main) slices handed to libsoup and not written yet */
  char              *root_real;
  char              *dir_abs;
  char              *dir_rel;
  LbDavWriter       *writer;
  GPtrArray         *children;  /* (nullable) the collection's public names, read by the first slice */
  guint              next;      /* index in @children of the next entry to write */
  gboolean           done;      /* the document is complete */
} PropfindJob;

static void
propfind_job_unref (PropfindJob *job)
{
  if (--job->ref > 0)
    return;
  g_object_unref (job->server);
  g_free (job->root_real);
  g_free (job->dir_abs);
  g_free (job->dir_rel);
  lb_dav_writer_free (job->writer);
  if (job->children != NULL)
    g_ptr_array_unref (job->children);
  g_free (job);
}

/* The message is being freed (it holds its reference to the job as object data). */
static void
propfind_job_message_gone (gpointer data)
{
  PropfindJob *job = data;

  job->gone = TRUE;
  job->msg = NULL;
  propfind_job_unref (job);
}

/* Worker thread: reads the collection (first slice only), then writes entries until about
 * LB_DAV_WRITER_CHUNK bytes are ready or the collection is done. */
static void
propfind_slice_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  PropfindJob *job = data;
  g_autofree char *root_name = g_path_get_basename (job->root_real);

  if (job->children == NULL)
    {
      job->children = lb_store_fs_list_children (job->root_real, job->dir_abs);
      /* Gone since the request was checked: the answer holds the collection alone. */
      if (job->children == NULL)
        job->children = g_ptr_array_new ();
    }
  while (job->next < job->children->len && lb_dav_writer_pending (job->writer) < LB_DAV_WRITER_CHUNK)
    {
      const char *name = g_ptr_array_index (job->children, job->next++);
      g_autofree char *crel = job->dir_rel[0] ? g_strconcat (job->dir_rel, "/", name, NULL) : g_strdup (name);
      g_autofree char *cabs = g_build_filename (job->dir_abs, name, NULL);
      struct stat st;

      if (stat (cabs, &st) == 0)
        write_entry (job->writer, crel, cabs, &st, root_name);
    }
  if (job->next >= job->children->len)
    {
      lb_dav_writer_finish (job->writer);
      job->done = TRUE;
    }
  g_task_return_pointer (task, lb_dav_writer_take (job->writer), (GDestroyNotify) g_bytes_unref);
}

static void propfind_slice_done (GObject *source, GAsyncResult *result, gpointer data);

/* Starts the next slice unless one is being made or two wait to be sent: the answer never
 * runs ahead of the client by more than about three slices. */
static void
propfind_job_produce (PropfindJob *job)
{
  g_autoptr(GTask) task = NULL;

  if (job->gone || job->done || job->producing || job->unsent >= 2)
    return;
  job->producing = TRUE;
  job->ref++;
  task = g_task_new (NULL, NULL, propfind_slice_done, job);
  g_task_set_source_tag (task, propfind_job_produce);
  g_task_set_task_data (task, job, NULL);
  g_task_run_in_thread (task, propfind_slice_thread);
}

/* Main thread: hands a slice to libsoup and resumes the message. */
static void
propfind_job_send (PropfindJob *job, GBytes *bytes)
{
  SoupMessageBody *body = soup_server_message_get_response_body (job->msg);

  if (g_bytes_get_size (bytes) > 0)
    {
      soup_message_body_append_bytes (body, bytes);
      job->unsent++;
    }
  if (job->done)
    soup_message_body_complete (body);
}

static void
propfind_slice_done (GObject *source, GAsyncResult *result, gpointer data)
{
  PropfindJob *job = data;
  g_autoptr(GBytes) bytes = g_task_propagate_pointer (G_TASK (result), NULL);

  job->producing = FALSE;
  /* A stopped server has dropped its connections: nothing left to resume. */
  if (!job->gone && !job->server->stopped)
    {
      propfind_job_send (job, bytes);
      /* libsoup paused the message when it ran out of body to write. */
      soup_server_message_unpause (job->msg);
      propfind_job_produce (job);
    }
  propfind_job_unref (job);
}

static void
on_wrote_chunk (SoupServerMessage *msg, gpointer data)
{
  PropfindJob *job = data;

  if (job->unsent > 0)
    job->unsent--;
  propfind_job_produce (job);
}

static void
on_finished (SoupServerMessage *msg, gpointer data)
{
  PropfindJob *job = data;

  job->gone = TRUE;
}

/* Answers a Depth 1 PROPFIND on a collection, whose own entry is already in @w: sends that
 * much with the headers and streams the children. */
static void
propfind_stream (LbStoreServer *self, SoupServerMessage *msg, LbStoreRequest *req, LbDavWriter *w)
{
  SoupMessageHeaders *rh = soup_server_message_get_response_headers (msg);
  g_autoptr(GBytes) first = NULL;
  PropfindJob *job = g_new0 (PropfindJob, 1);

  job->ref = 1; /* the message's, dropped when it is freed */
  job->msg = msg;
  job->server = g_object_ref (self);
  job->root_real = g_strdup (self->root_real);
  job->dir_abs = g_strdup (req->abs);
  job->dir_rel = g_strdup (req->rel);
  job->writer = w;
  g_object_set_data_full (G_OBJECT (msg), "lb-propfind-job", job, propfind_job_message_gone);
  g_signal_connect (msg, "wrote-chunk", G_CALLBACK (on_wrote_chunk), job);
  g_signal_connect (msg, "finished", G_CALLBACK (on_finished), job);

  soup_server_message_set_status (msg, SOUP_STATUS_MULTI_STATUS, NULL);
  soup_message_headers_set_content_type (rh, "application/xml; charset=utf-8", NULL);
  /* HTTP/1.0 has no chunked coding: the end of the answer is the end of the connection. */
  soup_message_headers_set_encoding (rh, soup_server_message_get_http_version (msg) == SOUP_HTTP_1_0
                                           ? SOUP_ENCODING_EOF : SOUP_ENCODING_CHUNKED);
  soup_message_body_set_accumulate (soup_server_message_get_response_body (msg), FALSE);
  first = lb_dav_writer_take (w);
  propfind_job_send (job, first);
  propfind_job_produce (job);
}

void
lb_dav_handle_propfind (LbStoreServer *self, SoupServerMessage *msg, LbStoreRequest *req)
{
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);
  const char *depth = soup_message_headers_get_one (h, "Depth");
  g_autoptr(GPtrArray) names = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(LbDavWriter) w = NULL;
  g_autoptr(GBytes) out = NULL;
  g_autofree char *root_name = g_path_get_basename (self->root_real);
  LbDavPropfindKind kind;
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
    return lb_store_reply_error (msg, g_error_matches (error, LB_ERROR, LB_ERROR_TOO_LARGE)
                                        ? SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE : SOUP_STATUS_BAD_REQUEST,
                                 error->message);

  if (stat (req->abs, &st) != 0 || !(S_ISDIR (st.st_mode) || S_ISREG (st.st_mode)))
    return lb_store_reply_error (msg, SOUP_STATUS_NOT_FOUND, NULL);
  if (req->slash && !S_ISDIR (st.st_mode))
    return lb_store_reply_error (msg, SOUP_STATUS_NOT_FOUND, NULL);

  w = lb_dav_writer_new (kind, names);
  write_entry (w, req->rel, req->abs, &st, root_name);
  if (d == 1 && S_ISDIR (st.st_mode))
    return propfind_stream (self, msg, req, g_steal_pointer (&w));
  lb_dav_writer_finish (w);
  out = lb_dav_writer_take (w);
  lb_store_reply_xml (msg, SOUP_STATUS_MULTI_STATUS, out);
}
