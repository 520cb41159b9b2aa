/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-http-store"

#include "lb-http-store-private.h"

#include "lb-error.h"
#include "lb-http.h"
#include "lb-store-private.h"

/* ---- write -------------------------------------------------------------------------------- */

static void
on_wrote_body_data (SoupMessage *msg, guint chunk_size, gpointer user_data)
{
  LbHttpStoreOp *op = user_data;

  op->written += chunk_size;
  if (op->progress != NULL)
    op->progress (op->written, op->size, op->progress_data);
}

/* libsoup restarted the message (a 401 challenge answered, a dropped keep-alive connection):
 * lb-http sends the whole body again, so progress starts again from zero. */
static void
on_write_restarted (SoupMessage *msg, gpointer user_data)
{
  LbHttpStoreOp *op = user_data;

  op->written = 0;
}

static void
on_write_sent (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  LbHttpStore *self = lb_http_store_from_task (task);
  LbHttpStoreOp *op = lb_http_store_op (task);
  GError *error = NULL;
  g_autoptr(GInputStream) body = lb_http_store_op_sent (task, result, FALSE);
  guint status;
  LbStoreEntry *entry;

  if (body == NULL)
    return;
  status = soup_message_get_status (op->msg);
  if (!SOUP_STATUS_IS_SUCCESSFUL (status))
    g_input_stream_close (body, NULL, NULL);
  if (status == 412)
    {
      self->conditionals_enforced = TRUE;
      g_task_return_new_error (task, LB_ERROR, LB_ERROR_CONFLICT,
                               op->mode == LB_STORE_WRITE_CREATE
                                 ? "PUT %s: 412 Precondition Failed: it already exists"
                                 : "PUT %s: 412 Precondition Failed: it changed since it was read",
                               op->uri);
      g_object_unref (task);
      return;
    }
  if (!lb_http_check_status (op->msg, &error))
    {
      if (status == 405 || status == 501)
        g_prefix_error (&error, "the server does not accept uploads: ");
      lb_store_task_fail (task, error);
      return;
    }

  entry = lb_http_entry_from_headers (op->uri, soup_message_get_response_headers (op->msg));
  lb_store_entry_set_size (entry, op->written);
  lb_store_entry_set_content_type (entry, op->content_type);
  if (status != 201 && op->mode == LB_STORE_WRITE_CREATE)
    {
      /* 200/204 answer a PUT that replaced something: If-None-Match: * was ignored */
      self->conditionals_ignored = TRUE;
      lb_store_entry_set_attribute (entry, "lb:replaced-existing", "true");
    }
  lb_http_store_op_return_entry (task, body, entry);
}

static void
write_start (GTask *task)
{
  LbHttpStore *self = lb_http_store_from_task (task);
  LbHttpStoreOp *op = lb_http_store_op (task);
  GError *error = NULL;
  g_autoptr(SoupMessage) msg = lb_http_message_new ("PUT", op->uri, self->options, &error);
  SoupMessageHeaders *headers;

  if (msg == NULL)
    {
      lb_store_task_fail (task, error);
      return;
    }
  headers = soup_message_get_request_headers (msg);
  switch (op->mode)
    {
    case LB_STORE_WRITE_CREATE:
      soup_message_headers_replace (headers, "If-None-Match", "*");
      break;
    case LB_STORE_WRITE_IF_MATCH:
      soup_message_headers_replace (headers, "If-Match", op->etag);
      break;
    case LB_STORE_WRITE_REPLACE:
    default:
      break;
    }
  if (op->bytes != NULL)
    lb_http_message_set_body (msg, op->content_type != NULL ? op->content_type
                                                            : "application/octet-stream",
                              op->bytes);
  else
    lb_http_message_set_body_stream (msg, op->content_type != NULL ? op->content_type
                                                                   : "application/octet-stream",
                                     op->source, op->size);
  g_signal_connect (msg, "wrote-body-data", G_CALLBACK (on_wrote_body_data), op);
  g_signal_connect (msg, "restarted", G_CALLBACK (on_write_restarted), op);
  /* not retried after an answer (a PUT is not repeated behind the caller's back); libsoup's
   * own restarts (a 401 challenge) send the whole body again where it can be read again
   * (lb_http_message_set_body*) */
  lb_http_send_async (self->session, msg, 0, NULL, NULL, g_task_get_cancellable (task),
                      on_write_sent, task);
}

/* The task of a write to @uri (NULL, and the callback gets the error, when @uri is no place
 * to write to), its LbHttpStoreOp filled but for the content. */
static GTask *
write_task_new (LbStore *store, const char *uri, gint64 size, const char *content_type,
                LbStoreWriteMode mode, const char *etag, GCancellable *cancellable,
                GFileProgressCallback progress, gpointer progress_data,
                GAsyncReadyCallback callback, gpointer user_data, gpointer tag)
{
  GTask *task = lb_http_store_op_task_new (LB_HTTP_STORE (store), uri, FALSE, cancellable, callback,
                                           user_data, tag);
  LbHttpStoreOp *op;

  if (task == NULL)
    return NULL;
  op = lb_http_store_op (task);
  if (g_str_has_suffix (op->uri, "/"))
    {
      g_task_return_new_error (task, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                               "%s: cannot write to a folder", op->uri);
      g_object_unref (task);
      return NULL;
    }
  op->size = size;
  op->content_type = g_strdup (content_type);
  op->mode = mode;
  op->etag = g_strdup (etag);
  op->progress = progress;
  op->progress_data = progress_data;
  return task;
}

static void
lb_http_store_write_async (LbStore *store, const char *uri, GInputStream *source, gint64 size,
                           const char *content_type, LbStoreWriteMode mode, const char *etag,
                           GCancellable *cancellable, GFileProgressCallback progress,
                           gpointer progress_data, GAsyncReadyCallback callback,
                           gpointer user_data)
{
  GTask *task = write_task_new (store, uri, size, content_type, mode, etag, cancellable, progress,
                                progress_data, callback, user_data, lb_http_store_write_async);

  if (task == NULL)
    return;
  lb_http_store_op (task)->source = g_object_ref (source);
  lb_http_store_with_dialect (task, write_start);
}

/* Content in memory: sent whole again if libsoup restarts the PUT (lb_http_message_set_body). */
static void
lb_http_store_write_bytes_async (LbStore *store, const char *uri, GBytes *bytes,
                                 const char *content_type, LbStoreWriteMode mode,
                                 const char *etag, GCancellable *cancellable,
                                 GFileProgressCallback progress, gpointer progress_data,
                                 GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = write_task_new (store, uri, (gint64) g_bytes_get_size (bytes), content_type, mode,
                                etag, cancellable, progress, progress_data, callback, user_data,
                                lb_http_store_write_async);

  if (task == NULL)
    return;
  lb_http_store_op (task)->bytes = g_bytes_ref (bytes);
  lb_http_store_with_dialect (task, write_start);
}

/* ---- mkdir -------------------------------------------------------------------------------- */

static void
on_mkdir_sent (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  LbHttpStoreOp *op = lb_http_store_op (task);
  GError *error = NULL;
  g_autoptr(GInputStream) body = lb_http_store_op_sent (task, result, FALSE);
  g_autofree char *name = NULL;
  guint status;

  if (body == NULL)
    return;
  status = soup_message_get_status (op->msg);
  if (!SOUP_STATUS_IS_SUCCESSFUL (status))
    g_input_stream_close (body, NULL, NULL);
  if (status == 405)
    error = g_error_new (LB_ERROR, LB_ERROR_CONFLICT, "MKCOL %s: 405: it already exists", op->uri);
  else if (status == 409)
    error = g_error_new (LB_ERROR, LB_ERROR_CONFLICT, "MKCOL %s: 409: the parent folder is missing",
                         op->uri);
  else
    lb_http_check_status (op->msg, &error);
  if (error != NULL)
    {
      lb_store_task_fail (task, error);
      return;
    }
  name = lb_store_uri_display_name (op->uri);
  lb_http_store_op_return_entry (task, body,
                                 lb_store_entry_new (op->uri, name, LB_STORE_ENTRY_DIRECTORY));
}

static void
mkdir_start (GTask *task)
{
  LbHttpStore *self = lb_http_store_from_task (task);
  LbHttpStoreOp *op = lb_http_store_op (task);
  GError *error = NULL;
  g_autoptr(SoupMessage) msg = NULL;

  if (self->dialect != LB_HTTP_DIALECT_WEBDAV)
    {
      g_task_return_new_error (task, LB_ERROR, LB_ERROR_UNSUPPORTED,
                               "%s: this server offers a read-only listing, not WebDAV: cannot create folders",
                               op->uri);
      g_object_unref (task);
      return;
    }
  msg = lb_http_message_new ("MKCOL", op->uri, self->options, &error);
  lb_http_store_op_send (task, msg, error, 0, on_mkdir_sent);
}

static void
lb_http_store_mkdir_async (LbStore *store, const char *uri, GCancellable *cancellable,
                           GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = lb_http_store_op_task_new (LB_HTTP_STORE (store), uri, TRUE, cancellable, callback,
                                           user_data, lb_http_store_mkdir_async);

  if (task != NULL)
    lb_http_store_with_dialect (task, mkdir_start);
}

void
lb_http_store_write_iface_init (LbStoreInterface *iface)
{
  iface->write_async = lb_http_store_write_async;
  iface->write_bytes_async = lb_http_store_write_bytes_async;
  iface->mkdir_async = lb_http_store_mkdir_async;
}
