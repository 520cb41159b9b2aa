/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-http-store"

#include "lb-http-store-private.h"

#include "lb-error.h"
#include "lb-http-body-stream.h"
#include "lb-http.h"
#include "lb-store-private.h"

/* ---- list --------------------------------------------------------------------------------- */

static void list_read_next (GTask *task);

static void
list_finish_thread (GTask *finish, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  GError *error = NULL;
  GPtrArray *entries = lb_listing_parser_finish (task_data, NULL, &error);

  if (entries == NULL)
    g_task_return_error (finish, error);
  else
    g_task_return_pointer (finish, entries, (GDestroyNotify) g_ptr_array_unref);
}

static void
on_list_parsed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  GError *error = NULL;
  GPtrArray *entries = g_task_propagate_pointer (G_TASK (result), &error);

  if (entries == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, entries, (GDestroyNotify) g_ptr_array_unref);
  g_object_unref (task);
}

static void
on_list_chunk (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  LbHttpStore *self = lb_http_store_from_task (task);
  LbHttpStoreOp *op = lb_http_store_op (task);
  GError *error = NULL;
  g_autoptr(GBytes) chunk = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, &error);

  if (chunk == NULL)
    {
      lb_store_task_fail (task, lb_http_map_read_error (op->uri, error));
      return;
    }
  if (g_bytes_get_size (chunk) > 0)
    {
      op->written += g_bytes_get_size (chunk); /* bytes of the listing received */
      if ((guint64) op->written > self->options->max_listing_bytes)
        {
          g_task_return_new_error (task, LB_ERROR, LB_ERROR_TOO_LARGE,
                                   "%s: listing too large (more than %" G_GUINT64_FORMAT " bytes)",
                                   op->uri, self->options->max_listing_bytes);
          g_object_unref (task);
          return;
        }
      if (!lb_listing_parser_feed (op->parser, g_bytes_get_data (chunk, NULL),
                                   g_bytes_get_size (chunk), &error))
        {
          lb_store_task_fail (task, error);
          return;
        }
      if (op->progress != NULL)
        op->progress (op->written, op->size, op->progress_data);
      list_read_next (task);
      return;
    }
  /* The end of the document is parsed on a worker thread: a JSON listing is parsed in one
   * piece there (json-glib has no push parser), and 200 000 entries (the default cap) take
   * seconds, which on the caller's main loop would freeze a window. Nothing else touches
   * op->parser meanwhile; @task is held until on_list_parsed. */
  {
    GTask *finish = g_task_new (NULL, g_task_get_cancellable (task), on_list_parsed, task);

    g_task_set_source_tag (finish, on_list_chunk);
    g_task_set_task_data (finish, op->parser, NULL);
    g_task_run_in_thread (finish, list_finish_thread);
    g_object_unref (finish);
  }
}

static void
list_read_next (GTask *task)
{
  LbHttpStoreOp *op = lb_http_store_op (task);

  g_input_stream_read_bytes_async (op->body, 64 * 1024, G_PRIORITY_DEFAULT,
                                   g_task_get_cancellable (task), on_list_chunk, task);
}

static void
on_list_sent (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  LbHttpStore *self = lb_http_store_from_task (task);
  LbHttpStoreOp *op = lb_http_store_op (task);
  g_autoptr(GInputStream) body = lb_http_store_op_sent (task, result, TRUE);
  guint status;
  gint64 total;

  if (body == NULL)
    return;
  status = soup_message_get_status (op->msg);
  if (self->dialect == LB_HTTP_DIALECT_WEBDAV && status != 207)
    {
      g_input_stream_close (body, NULL, NULL);
      g_task_return_new_error (task, LB_ERROR, LB_ERROR_HTTP,
                               "PROPFIND %s: expected 207 Multi-Status, got %u", op->uri, status);
      g_object_unref (task);
      return;
    }
  total = lb_http_body_stream_get_expected (LB_HTTP_BODY_STREAM (body));
  if (total >= 0 && (guint64) total > self->options->max_listing_bytes)
    {
      g_input_stream_close (body, NULL, NULL);
      g_task_return_new_error (task, LB_ERROR, LB_ERROR_TOO_LARGE,
                               "%s: listing too large (%" G_GINT64_FORMAT " bytes, the limit is %"
                               G_GUINT64_FORMAT ")", op->uri, total, self->options->max_listing_bytes);
      g_object_unref (task);
      return;
    }
  {
    g_autofree char *base = NULL;
    const char *content_type =
      soup_message_headers_get_content_type (soup_message_get_response_headers (op->msg), NULL);
    LbListingContext ctx;
    LbListingFormat format;

    /* after a redirect (nginx: /CT → /CT/), hrefs are relative to where we ended up */
    base = g_uri_to_string_partial (soup_message_get_uri (op->msg),
                                    G_URI_HIDE_FRAGMENT | G_URI_HIDE_QUERY);
    if (!g_str_has_suffix (base, "/"))
      {
        char *with_slash = g_strconcat (base, "/", NULL);
        g_free (base);
        base = with_slash;
      }
    if (self->dialect == LB_HTTP_DIALECT_WEBDAV)
      format = LB_LISTING_MULTISTATUS;
    else if (content_type != NULL && (g_str_equal (content_type, "application/json")
                                      || g_str_has_suffix (content_type, "+json")))
      {
        self->json_listing = TRUE;
        format = LB_LISTING_JSON;
      }
    else if (content_type == NULL || g_str_equal (content_type, "text/html")
             || g_str_equal (content_type, "application/xhtml+xml"))
      format = LB_LISTING_HTML;
    else
      {
        g_input_stream_close (body, NULL, NULL);
        g_task_return_new_error (task, LB_ERROR, LB_ERROR_UNSUPPORTED,
                                 "%s: not a directory listing (Content-Type %s)", op->uri,
                                 content_type);
        g_object_unref (task);
        return;
      }
    ctx.base_uri = base;
    ctx.root_uri = self->root;
    ctx.max_entries = self->options->max_listing_entries;
    ctx.cancellable = g_task_get_cancellable (task);
    op->parser = lb_listing_parser_new (format, &ctx);
    op->size = total;
    op->written = 0;
    op->body = g_steal_pointer (&body);
    list_read_next (task);
  }
}

static void
list_start (GTask *task)
{
  LbHttpStore *self = lb_http_store_from_task (task);
  LbHttpStoreOp *op = lb_http_store_op (task);
  GError *error = NULL;
  g_autoptr(SoupMessage) msg = NULL;

  if (self->dialect == LB_HTTP_DIALECT_WEBDAV)
    msg = lb_http_store_propfind_new (self, op->uri, "1", &error);
  else
    {
      msg = lb_http_message_new ("GET", op->uri, self->options, &error);
      if (msg != NULL)
        soup_message_headers_replace (soup_message_get_request_headers (msg), "Accept",
                                      "application/json, text/html;q=0.9, */*;q=0.1");
    }
  lb_http_store_op_send (task, msg, error, self->options->max_retries, on_list_sent);
}

static void
lb_http_store_list_async (LbStore *store, const char *uri, GCancellable *cancellable,
                          GFileProgressCallback progress, gpointer progress_data,
                          GAsyncReadyCallback callback, gpointer user_data)
{
  LbHttpStore *self = LB_HTTP_STORE (store);
  GTask *task = lb_http_store_op_task_new (self, uri, TRUE, cancellable, callback, user_data,
                                           lb_http_store_list_async);

  if (task == NULL)
    return;
  lb_http_store_op (task)->progress = progress;
  lb_http_store_op (task)->progress_data = progress_data;
  lb_http_store_with_dialect (task, list_start);
}

/* ---- stat --------------------------------------------------------------------------------- */

static void
on_stat_propfind (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  LbHttpStoreOp *op = lb_http_store_op (task);
  GError *error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GPtrArray) children = NULL;
  LbStoreEntry *self_entry = NULL;
  LbListingContext ctx = { op->uri, lb_http_store_from_task (task)->root, 0 };

  g_clear_object (&op->msg);
  bytes = lb_http_request_finish (SOUP_SESSION (source), result, &op->msg, &error);
  if (bytes == NULL || !lb_http_check_status (op->msg, &error))
    {
      lb_store_task_fail (task, error);
      return;
    }
  children = lb_listing_parse_multistatus (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                                           &ctx, &self_entry, &error);
  if (children == NULL)
    g_task_return_error (task, error);
  else if (self_entry == NULL)
    g_task_return_new_error (task, LB_ERROR, LB_ERROR_NOT_FOUND,
                             "PROPFIND %s: the server did not describe it", op->uri);
  else
    g_task_return_pointer (task, self_entry, g_object_unref);
  g_object_unref (task);
}

static void
on_stat_sent (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  g_autoptr(GInputStream) body = lb_http_store_op_sent (task, result, TRUE);
  LbStoreEntry *entry;

  if (body == NULL)
    return;
  entry = lb_http_store_op_entry (lb_http_store_op (task));
  if (g_str_has_suffix (lb_store_entry_get_uri (entry), "/"))
    {
      lb_store_entry_set_kind (entry, LB_STORE_ENTRY_DIRECTORY);
      lb_store_entry_set_size (entry, -1);
    }
  lb_http_store_op_return_entry (task, body, entry);
}

static void
stat_start (GTask *task)
{
  LbHttpStore *self = lb_http_store_from_task (task);
  LbHttpStoreOp *op = lb_http_store_op (task);
  GError *error = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  gboolean propfind = self->dialect == LB_HTTP_DIALECT_WEBDAV && g_str_has_suffix (op->uri, "/");

  /* Files: HEAD (nginx's PROPFIND has no getetag, its HEAD does). Containers on WebDAV:
   * PROPFIND depth 0, whose whole answer is parsed. */
  if (propfind)
    msg = lb_http_store_propfind_new (self, op->uri, "0", &error);
  else
    msg = lb_http_message_new ("HEAD", op->uri, self->options, &error);
  if (msg == NULL || !propfind)
    lb_http_store_op_send (task, msg, error, self->options->max_retries, on_stat_sent);
  else
    lb_http_request_async (self->session, msg, self->options->max_retries,
                           self->options->max_listing_bytes, g_task_get_cancellable (task), NULL,
                           NULL, on_stat_propfind, task);
}

static void
lb_http_store_stat_async (LbStore *store, const char *uri, GCancellable *cancellable,
                          GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = lb_http_store_op_task_new (LB_HTTP_STORE (store), uri, FALSE, cancellable, callback,
                                           user_data, lb_http_store_stat_async);

  if (task != NULL)
    lb_http_store_with_dialect (task, stat_start);
}

/* ---- read --------------------------------------------------------------------------------- */

static void
on_read_sent (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  LbHttpStoreOp *op = lb_http_store_op (task);
  g_autoptr(GInputStream) body = lb_http_store_op_sent (task, result, TRUE);

  if (body == NULL)
    return;
  op->entry = lb_http_store_op_entry (op);
  lb_http_body_stream_set_progress (LB_HTTP_BODY_STREAM (body), op->progress, op->progress_data);
  g_task_return_pointer (task, g_steal_pointer (&body), g_object_unref);
  g_object_unref (task);
}

static void
read_start (GTask *task)
{
  LbHttpStore *self = lb_http_store_from_task (task);
  LbHttpStoreOp *op = lb_http_store_op (task);
  GError *error = NULL;
  g_autoptr(SoupMessage) msg = lb_http_message_new ("GET", op->uri, self->options, &error);

  lb_http_store_op_send (task, msg, error, self->options->max_retries, on_read_sent);
}

static void
lb_http_store_read_async (LbStore *store, const char *uri, GCancellable *cancellable,
                          GFileProgressCallback progress, gpointer progress_data,
                          GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = lb_http_store_op_task_new (LB_HTTP_STORE (store), uri, FALSE, cancellable, callback,
                                           user_data, lb_http_store_read_async);

  if (task == NULL)
    return;
  lb_http_store_op (task)->progress = progress;
  lb_http_store_op (task)->progress_data = progress_data;
  /* a GET works the same for both dialects: no need to wait for detection */
  read_start (task);
}

static GInputStream *
lb_http_store_read_finish (LbStore *store, GAsyncResult *result, LbStoreEntry **out_entry,
                           GError **error)
{
  GInputStream *stream = g_task_propagate_pointer (G_TASK (result), error);
  LbHttpStoreOp *op = lb_http_store_op (G_TASK (result));

  if (stream != NULL && out_entry != NULL)
    *out_entry = g_object_ref (op->entry);
  return stream;
}

void
lb_http_store_read_iface_init (LbStoreInterface *iface)
{
  iface->list_async = lb_http_store_list_async;
  iface->stat_async = lb_http_store_stat_async;
  iface->read_async = lb_http_store_read_async;
  iface->read_finish = lb_http_store_read_finish;
}
