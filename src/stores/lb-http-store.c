/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-http-store"

#include "lb-http-store.h"

#include <string.h>

#include "lb-error.h"
#include "lb-http-body-stream.h"
#include "lb-http.h"
#include "lb-listing-parser.h"
#include "lb-store-private.h"

typedef enum {
  DIALECT_UNKNOWN,
  DIALECT_WEBDAV,
  DIALECT_LISTING,
} Dialect;

struct _LbHttpStore {
  GObject         parent_instance;
  char           *root;        /* owned: normalised, ends in '/' */
  LbStoreOptions *options;     /* owned (ref) */
  SoupSession    *session;     /* owned */
  Dialect         dialect;
  gboolean        forced;      /* dialect set by options->type */
  gboolean        dav_locking; /* DAV compliance class 2 advertised */
  gboolean        lightbox_server;
  gboolean        conditionals_ignored;  /* learned: a create-only PUT replaced a file */
  gboolean        conditionals_enforced; /* learned: the server answered 412 */
  gboolean        json_listing;          /* learned: GET listings come as JSON */
  gboolean        detecting;
  GPtrArray      *waiters;     /* owned: Waiter*, tasks waiting for detection */
};

static void lb_http_store_iface_init (LbStoreInterface *iface);

G_DEFINE_TYPE_WITH_CODE (LbHttpStore, lb_http_store, G_TYPE_OBJECT,
                         G_IMPLEMENT_INTERFACE (LB_TYPE_STORE, lb_http_store_iface_init))

static const char propfind_body[] =
  "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
  "<D:propfind xmlns:D=\"DAV:\"><D:prop>"
  "<D:resourcetype/><D:getcontentlength/><D:getlastmodified/><D:getetag/>"
  "<D:getcontenttype/><D:displayname/>"
  "</D:prop></D:propfind>\n";

/* ---- per-operation state ------------------------------------------------------------------ */

typedef void (*Continuation) (GTask *task);

typedef struct {
  GTask        *task;   /* owned */
  Continuation  next;
} Waiter;

typedef struct {
  char                  *uri;          /* owned: target, normalised */
  GFileProgressCallback  progress;
  gpointer               progress_data;
  SoupMessage           *msg;          /* owned, nullable: the message that answered */
  GInputStream          *body;         /* owned, nullable */
  /* write */
  GInputStream          *source;       /* owned, nullable */
  gint64                 size;
  char                  *content_type; /* owned, nullable */
  LbStoreWriteMode       mode;
  char                  *etag;         /* owned, nullable */
  gint64                 written;      /* bytes */
  LbStoreEntry          *entry;        /* owned, nullable */
  LbListingParser       *parser;       /* owned, nullable: list */
} Op;

static void
op_free (gpointer data)
{
  Op *op = data;

  g_free (op->uri);
  g_clear_object (&op->msg);
  g_clear_object (&op->body);
  g_clear_object (&op->source);
  g_free (op->content_type);
  g_free (op->etag);
  g_clear_object (&op->entry);
  g_clear_pointer (&op->parser, lb_listing_parser_free);
  g_free (op);
}

static Op *
task_op (GTask *task)
{
  return g_task_get_task_data (task);
}

static LbHttpStore *
task_store (GTask *task)
{
  return LB_HTTP_STORE (g_task_get_source_object (task));
}

/* ---- URIs --------------------------------------------------------------------------------- */

/* NULL → root; otherwise @uri must be on the store's origin and at or below its root. */
static char *
resolve_in_store (LbHttpStore *self, const char *uri, gboolean container, GError **error)
{
  g_autoptr(GUri) parsed = NULL;
  g_autoptr(GUri) root = NULL;
  g_autofree char *path = NULL;
  g_autofree char *root_path = NULL;
  g_autofree char *root_stripped = NULL;
  char *result;

  if (uri == NULL)
    return g_strdup (self->root);
  parsed = g_uri_parse (uri, G_URI_FLAGS_ENCODED, NULL);
  root = g_uri_parse (self->root, G_URI_FLAGS_ENCODED, NULL);
  if (parsed == NULL || root == NULL || !lb_listing_same_origin (parsed, root))
    goto outside;
  path = lb_listing_decoded_path (g_uri_get_path (parsed));
  root_path = lb_listing_decoded_path (g_uri_get_path (root));
  if (path == NULL || root_path == NULL)
    goto outside;
  root_stripped = g_strndup (root_path, strlen (root_path) - (g_str_has_suffix (root_path, "/") ? 1 : 0));
  if (!g_str_equal (path, root_stripped) && !g_str_has_prefix (path, root_path))
    goto outside;
  result = g_uri_to_string_partial (parsed, G_URI_HIDE_FRAGMENT);
  if (container && !g_str_has_suffix (result, "/"))
    {
      char *with_slash = g_strconcat (result, "/", NULL);
      g_free (result);
      result = with_slash;
    }
  return result;

outside:
  g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT, "%s is not inside the store %s", uri,
               self->root);
  return NULL;
}

/* ---- detection ---------------------------------------------------------------------------- */

static void
run_waiters (LbHttpStore *self, const GError *error)
{
  g_autoptr(GPtrArray) waiters = g_steal_pointer (&self->waiters);

  self->waiters = g_ptr_array_new ();
  self->detecting = FALSE;
  for (guint i = 0; i < waiters->len; i++)
    {
      Waiter *w = waiters->pdata[i];

      if (error != NULL)
        {
          g_task_return_error (w->task, g_error_copy (error));
          g_object_unref (w->task);
        }
      else if (g_task_return_error_if_cancelled (w->task))
        g_object_unref (w->task);
      else
        w->next (w->task); /* takes the reference */
      g_free (w);
    }
}

static void
note_server (LbHttpStore *self, SoupMessage *msg)
{
  SoupMessageHeaders *headers = soup_message_get_response_headers (msg);
  const char *dav = soup_message_headers_get_list (headers, "DAV");
  const char *server = soup_message_headers_get_one (headers, "Server");

  if (dav != NULL && soup_header_contains (dav, "2"))
    self->dav_locking = TRUE;
  if (server != NULL && g_str_has_prefix (server, "lightbox-store"))
    self->lightbox_server = TRUE;
}

static void
on_detect_propfind (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(LbHttpStore) self = user_data;
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GInputStream) body = lb_http_send_finish (SOUP_SESSION (source), result, &msg, &error);

  if (body == NULL)
    {
      run_waiters (self, error);
      return;
    }
  g_input_stream_close (body, NULL, NULL);
  note_server (self, msg);
  self->dialect = soup_message_get_status (msg) == 207 ? DIALECT_WEBDAV : DIALECT_LISTING;
  g_debug ("%s: PROPFIND → %u: %s", self->root, soup_message_get_status (msg),
           self->dialect == DIALECT_WEBDAV ? "WebDAV" : "listing");
  run_waiters (self, NULL);
}

/* A PROPFIND for @uri at @depth ("0": the resource itself, "1": with its members) asking for
 * the properties the listing parser reads. */
static SoupMessage *
propfind_new (LbHttpStore *self, const char *uri, const char *depth, GError **error)
{
  g_autoptr(GBytes) request = NULL;
  SoupMessage *msg = lb_http_message_new ("PROPFIND", uri, self->options, error);

  if (msg == NULL)
    return NULL;
  request = g_bytes_new_static (propfind_body, sizeof propfind_body - 1);
  soup_message_headers_replace (soup_message_get_request_headers (msg), "Depth", depth);
  soup_message_set_request_body_from_bytes (msg, "application/xml; charset=utf-8", request);
  return msg;
}

/* Sends @msg for @task (@max_retries as lb_http_send_async() takes them) with @callback; or,
 * when building @msg failed (NULL), fails @task with @error. */
static void
op_send (GTask *task, SoupMessage *msg, GError *error, guint max_retries,
         GAsyncReadyCallback callback)
{
  if (msg == NULL)
    lb_store_task_fail (task, error);
  else
    lb_http_send_async (task_store (task)->session, msg, max_retries, NULL, NULL,
                        g_task_get_cancellable (task), callback, task);
}

/* Finishes what op_send() sent: the answer's body, op->msg the message that got it. NULL when
 * there was no answer, or (with @need_2xx) when it was not a 2xx one, whose body is closed:
 * @task has then returned the error, and its Op is gone with it. Signal handlers that point at
 * the Op (upload progress) are disconnected first. */
static GInputStream *
op_sent (GTask *task, GAsyncResult *result, gboolean need_2xx)
{
  Op *op = task_op (task);
  GError *error = NULL;
  GInputStream *body;

  g_clear_object (&op->msg);
  body = lb_http_send_finish (task_store (task)->session, result, &op->msg, &error);
  if (op->msg != NULL)
    g_signal_handlers_disconnect_by_data (op->msg, op);
  if (body != NULL && need_2xx && !lb_http_check_status (op->msg, &error))
    {
      g_input_stream_close (body, NULL, NULL);
      g_clear_object (&body);
    }
  if (body == NULL)
    lb_store_task_fail (task, error);
  return body;
}

/* The entry the answer's headers describe, under the URI it came from (after redirects). */
static LbStoreEntry *
op_entry (Op *op)
{
  g_autofree char *final_uri = g_uri_to_string_partial (soup_message_get_uri (op->msg),
                                                        G_URI_HIDE_FRAGMENT);

  return lb_http_entry_from_headers (final_uri, soup_message_get_response_headers (op->msg));
}

static void
on_detect_options (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(LbHttpStore) self = user_data;
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GInputStream) body = lb_http_send_finish (SOUP_SESSION (source), result, &msg, &error);
  g_autoptr(SoupMessage) propfind = NULL;
  const char *dav;

  if (body == NULL)
    {
      run_waiters (self, error);
      return;
    }
  g_input_stream_close (body, NULL, NULL);
  if (soup_message_get_status (msg) == 401)
    {
      lb_http_check_status (msg, &error);
      run_waiters (self, error);
      return;
    }
  note_server (self, msg);
  dav = soup_message_headers_get_list (soup_message_get_response_headers (msg), "DAV");
  if (soup_message_get_status (msg) < 300 && dav != NULL && soup_header_contains (dav, "1"))
    {
      self->dialect = DIALECT_WEBDAV;
      g_debug ("%s: OPTIONS DAV: %s → WebDAV", self->root, dav);
      run_waiters (self, NULL);
      return;
    }

  /* no DAV header: a server may still answer PROPFIND (or hide OPTIONS behind a proxy) */
  propfind = propfind_new (self, self->root, "0", &error);
  if (propfind == NULL)
    {
      run_waiters (self, error);
      return;
    }
  lb_http_send_async (self->session, propfind, self->options->max_retries, NULL, NULL, NULL,
                      on_detect_propfind, g_object_ref (self));
}

/* Runs @next once the dialect is known (or fails @task if detection failed). */
static void
with_dialect (GTask *task, Continuation next)
{
  LbHttpStore *self = task_store (task);
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GError) error = NULL;
  Waiter *w;

  if (self->dialect != DIALECT_UNKNOWN)
    {
      next (task);
      return;
    }
  w = g_new0 (Waiter, 1);
  w->task = task;
  w->next = next;
  g_ptr_array_add (self->waiters, w);
  if (self->detecting)
    return;
  self->detecting = TRUE;
  msg = lb_http_message_new ("OPTIONS", self->root, self->options, &error);
  if (msg == NULL)
    {
      run_waiters (self, error);
      return;
    }
  /* detection is not tied to one caller's cancellable: others may be waiting on it */
  lb_http_send_async (self->session, msg, self->options->max_retries, NULL, NULL, NULL,
                      on_detect_options, g_object_ref (self));
}

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
  LbHttpStore *self = task_store (task);
  Op *op = task_op (task);
  GError *error = NULL;
  g_autoptr(GBytes) chunk = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, &error);

  if (chunk == NULL)
    {
      if (error->domain != LB_ERROR && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          GError *mapped = g_error_new (LB_ERROR, LB_ERROR_NETWORK, "%s: %s", op->uri, error->message);
          g_error_free (error);
          error = mapped;
        }
      lb_store_task_fail (task, error);
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
  Op *op = task_op (task);

  g_input_stream_read_bytes_async (op->body, 64 * 1024, G_PRIORITY_DEFAULT,
                                   g_task_get_cancellable (task), on_list_chunk, task);
}

static void
on_list_sent (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  LbHttpStore *self = task_store (task);
  Op *op = task_op (task);
  g_autoptr(GInputStream) body = op_sent (task, result, TRUE);
  guint status;
  gint64 total;

  if (body == NULL)
    return;
  status = soup_message_get_status (op->msg);
  if (self->dialect == DIALECT_WEBDAV && status != 207)
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
    if (self->dialect == DIALECT_WEBDAV)
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
  LbHttpStore *self = task_store (task);
  Op *op = task_op (task);
  GError *error = NULL;
  g_autoptr(SoupMessage) msg = NULL;

  if (self->dialect == DIALECT_WEBDAV)
    msg = propfind_new (self, op->uri, "1", &error);
  else
    {
      msg = lb_http_message_new ("GET", op->uri, self->options, &error);
      if (msg != NULL)
        soup_message_headers_replace (soup_message_get_request_headers (msg), "Accept",
                                      "application/json, text/html;q=0.9, */*;q=0.1");
    }
  op_send (task, msg, error, self->options->max_retries, on_list_sent);
}

static GTask *
new_op_task (LbHttpStore *self, const char *uri, gboolean container, GCancellable *cancellable,
             GAsyncReadyCallback callback, gpointer user_data, gpointer tag)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  GError *error = NULL;
  Op *op = g_new0 (Op, 1);

  g_task_set_source_tag (task, tag);
  g_task_set_task_data (task, op, op_free);
  op->size = -1;
  op->uri = resolve_in_store (self, uri, container, &error);
  if (op->uri == NULL)
    {
      lb_store_task_fail (task, error);
      return NULL;
    }
  return task;
}

static void
lb_http_store_list_async (LbStore *store, const char *uri, GCancellable *cancellable,
                          GFileProgressCallback progress, gpointer progress_data,
                          GAsyncReadyCallback callback, gpointer user_data)
{
  LbHttpStore *self = LB_HTTP_STORE (store);
  GTask *task = new_op_task (self, uri, TRUE, cancellable, callback, user_data,
                             lb_http_store_list_async);

  if (task == NULL)
    return;
  task_op (task)->progress = progress;
  task_op (task)->progress_data = progress_data;
  with_dialect (task, list_start);
}

/* ---- stat --------------------------------------------------------------------------------- */

static void
on_stat_propfind (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Op *op = task_op (task);
  GError *error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GPtrArray) children = NULL;
  LbStoreEntry *self_entry = NULL;
  LbListingContext ctx = { op->uri, task_store (task)->root, 0 };

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

/* The answer is complete and op->entry holds the result: the (empty) rest of the body is read
 * before the stream is closed, so libsoup 3.2 keeps the connection (lb_http_drain_async). */
static void
on_entry_drained (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Op *op = task_op (task);

  lb_http_drain_finish (G_INPUT_STREAM (source), result);
  g_task_return_pointer (task, g_steal_pointer (&op->entry), g_object_unref);
  g_object_unref (task);
}

static void
return_entry_after_drain (GTask *task, GInputStream *body, LbStoreEntry *entry)
{
  Op *op = task_op (task);

  g_clear_object (&op->entry);
  op->entry = entry;
  lb_http_drain_async (body, g_task_get_cancellable (task), on_entry_drained, task);
}

static void
on_stat_sent (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  g_autoptr(GInputStream) body = op_sent (task, result, TRUE);
  LbStoreEntry *entry;

  if (body == NULL)
    return;
  entry = op_entry (task_op (task));
  if (g_str_has_suffix (lb_store_entry_get_uri (entry), "/"))
    {
      lb_store_entry_set_kind (entry, LB_STORE_ENTRY_DIRECTORY);
      lb_store_entry_set_size (entry, -1);
    }
  return_entry_after_drain (task, body, entry);
}

static void
stat_start (GTask *task)
{
  LbHttpStore *self = task_store (task);
  Op *op = task_op (task);
  GError *error = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  gboolean propfind = self->dialect == DIALECT_WEBDAV && g_str_has_suffix (op->uri, "/");

  /* Files: HEAD (nginx's PROPFIND has no getetag, its HEAD does). Containers on WebDAV:
   * PROPFIND depth 0, whose whole answer is parsed. */
  if (propfind)
    msg = propfind_new (self, op->uri, "0", &error);
  else
    msg = lb_http_message_new ("HEAD", op->uri, self->options, &error);
  if (msg == NULL || !propfind)
    op_send (task, msg, error, self->options->max_retries, on_stat_sent);
  else
    lb_http_request_async (self->session, msg, self->options->max_retries,
                           self->options->max_listing_bytes, g_task_get_cancellable (task), NULL,
                           NULL, on_stat_propfind, task);
}

static void
lb_http_store_stat_async (LbStore *store, const char *uri, GCancellable *cancellable,
                          GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = new_op_task (LB_HTTP_STORE (store), uri, FALSE, cancellable, callback, user_data,
                             lb_http_store_stat_async);

  if (task != NULL)
    with_dialect (task, stat_start);
}

/* ---- read --------------------------------------------------------------------------------- */

static void
on_read_sent (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Op *op = task_op (task);
  g_autoptr(GInputStream) body = op_sent (task, result, TRUE);

  if (body == NULL)
    return;
  op->entry = op_entry (op);
  lb_http_body_stream_set_progress (LB_HTTP_BODY_STREAM (body), op->progress, op->progress_data);
  g_task_return_pointer (task, g_steal_pointer (&body), g_object_unref);
  g_object_unref (task);
}

static void
read_start (GTask *task)
{
  LbHttpStore *self = task_store (task);
  Op *op = task_op (task);
  GError *error = NULL;
  g_autoptr(SoupMessage) msg = lb_http_message_new ("GET", op->uri, self->options, &error);

  op_send (task, msg, error, self->options->max_retries, on_read_sent);
}

static void
lb_http_store_read_async (LbStore *store, const char *uri, GCancellable *cancellable,
                          GFileProgressCallback progress, gpointer progress_data,
                          GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = new_op_task (LB_HTTP_STORE (store), uri, FALSE, cancellable, callback, user_data,
                             lb_http_store_read_async);

  if (task == NULL)
    return;
  task_op (task)->progress = progress;
  task_op (task)->progress_data = progress_data;
  /* a GET works the same for both dialects: no need to wait for detection */
  read_start (task);
}

static GInputStream *
lb_http_store_read_finish (LbStore *store, GAsyncResult *result, LbStoreEntry **out_entry,
                           GError **error)
{
  GInputStream *stream = g_task_propagate_pointer (G_TASK (result), error);
  Op *op = task_op (G_TASK (result));

  if (stream != NULL && out_entry != NULL)
    *out_entry = g_object_ref (op->entry);
  return stream;
}

/* ---- write -------------------------------------------------------------------------------- */

static void
on_wrote_body_data (SoupMessage *msg, guint chunk_size, gpointer user_data)
{
  Op *op = user_data;

  op->written += chunk_size;
  if (op->progress != NULL)
    op->progress (op->written, op->size, op->progress_data);
}

static void
on_write_sent (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  LbHttpStore *self = task_store (task);
  Op *op = task_op (task);
  GError *error = NULL;
  g_autoptr(GInputStream) body = op_sent (task, result, FALSE);
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
  return_entry_after_drain (task, body, entry);
}

static void
write_start (GTask *task)
{
  LbHttpStore *self = task_store (task);
  Op *op = task_op (task);
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
  soup_message_set_request_body (msg, op->content_type != NULL ? op->content_type
                                                               : "application/octet-stream",
                                  op->source, op->size);
  g_signal_connect (msg, "wrote-body-data", G_CALLBACK (on_wrote_body_data), op);
  /* never retried: a PUT body is a stream that cannot be rewound */
  lb_http_send_async (self->session, msg, 0, NULL, NULL, g_task_get_cancellable (task),
                      on_write_sent, task);
}

static void
lb_http_store_write_async (LbStore *store, const char *uri, GInputStream *source, gint64 size,
                           const char *content_type, LbStoreWriteMode mode, const char *etag,
                           GCancellable *cancellable, GFileProgressCallback progress,
                           gpointer progress_data, GAsyncReadyCallback callback,
                           gpointer user_data)
{
  GTask *task = new_op_task (LB_HTTP_STORE (store), uri, FALSE, cancellable, callback, user_data,
                             lb_http_store_write_async);
  Op *op;

  if (task == NULL)
    return;
  op = task_op (task);
  if (g_str_has_suffix (op->uri, "/"))
    {
      g_task_return_new_error (task, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                               "%s: cannot write to a folder", op->uri);
      g_object_unref (task);
      return;
    }
  op->source = g_object_ref (source);
  op->size = size;
  op->content_type = g_strdup (content_type);
  op->mode = mode;
  op->etag = g_strdup (etag);
  op->progress = progress;
  op->progress_data = progress_data;
  with_dialect (task, write_start);
}

/* ---- mkdir -------------------------------------------------------------------------------- */

static void
on_mkdir_sent (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Op *op = task_op (task);
  GError *error = NULL;
  g_autoptr(GInputStream) body = op_sent (task, result, FALSE);
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
  return_entry_after_drain (task, body, lb_store_entry_new (op->uri, name, LB_STORE_ENTRY_DIRECTORY));
}

static void
mkdir_start (GTask *task)
{
  LbHttpStore *self = task_store (task);
  Op *op = task_op (task);
  GError *error = NULL;
  g_autoptr(SoupMessage) msg = NULL;

  if (self->dialect != DIALECT_WEBDAV)
    {
      g_task_return_new_error (task, LB_ERROR, LB_ERROR_UNSUPPORTED,
                               "%s: this server offers a read-only listing, not WebDAV: cannot create folders",
                               op->uri);
      g_object_unref (task);
      return;
    }
  msg = lb_http_message_new ("MKCOL", op->uri, self->options, &error);
  op_send (task, msg, error, 0, on_mkdir_sent);
}

static void
lb_http_store_mkdir_async (LbStore *store, const char *uri, GCancellable *cancellable,
                           GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = new_op_task (LB_HTTP_STORE (store), uri, TRUE, cancellable, callback, user_data,
                             lb_http_store_mkdir_async);

  if (task != NULL)
    with_dialect (task, mkdir_start);
}

/* ---- object ------------------------------------------------------------------------------- */

static const char *
lb_http_store_get_uri (LbStore *store)
{
  return LB_HTTP_STORE (store)->root;
}

static const char *
lb_http_store_get_backend_name (LbStore *store)
{
  switch (LB_HTTP_STORE (store)->dialect)
    {
    case DIALECT_WEBDAV: return "webdav";
    case DIALECT_LISTING: return "listing";
    case DIALECT_UNKNOWN:
    default: return "http";
    }
}

static LbStoreCapabilities
lb_http_store_get_capabilities (LbStore *store)
{
  LbHttpStore *self = LB_HTTP_STORE (store);
  LbStoreCapabilities caps = LB_STORE_HAS_ETAGS;

  if (self->dialect == DIALECT_WEBDAV)
    {
      caps |= LB_STORE_CAN_WRITE | LB_STORE_HAS_SIZES;
      /* RFC 4918 servers with locking (class 2) must evaluate If-* preconditions; nginx is
       * class 1 and ignores them on PUT. What we saw beats what was advertised. */
      if ((self->dav_locking || self->lightbox_server || self->conditionals_enforced)
          && !self->conditionals_ignored)
        caps |= LB_STORE_CONDITIONAL_WRITES;
    }
  else if (self->json_listing)
    caps |= LB_STORE_HAS_SIZES;
  return caps;
}

static void
lb_http_store_finalize (GObject *object)
{
  LbHttpStore *self = LB_HTTP_STORE (object);

  g_assert (self->waiters->len == 0); /* waiters hold a reference on the store */
  g_ptr_array_unref (self->waiters);
  g_free (self->root);
  g_clear_pointer (&self->options, lb_store_options_unref);
  g_clear_object (&self->session);
  G_OBJECT_CLASS (lb_http_store_parent_class)->finalize (object);
}

static void
lb_http_store_class_init (LbHttpStoreClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = lb_http_store_finalize;
}

static void
lb_http_store_init (LbHttpStore *self)
{
  self->waiters = g_ptr_array_new ();
}

static void
lb_http_store_iface_init (LbStoreInterface *iface)
{
  iface->get_uri = lb_http_store_get_uri;
  iface->get_backend_name = lb_http_store_get_backend_name;
  iface->get_capabilities = lb_http_store_get_capabilities;
  iface->list_async = lb_http_store_list_async;
  iface->stat_async = lb_http_store_stat_async;
  iface->read_async = lb_http_store_read_async;
  iface->read_finish = lb_http_store_read_finish;
  iface->write_async = lb_http_store_write_async;
  iface->mkdir_async = lb_http_store_mkdir_async;
}

LbStore *
lb_http_store_new (const char *uri, LbStoreOptions *options, GError **error)
{
  g_autoptr(GUri) parsed = NULL;
  g_autoptr(LbHttpStore) self = NULL;
  g_autoptr(GError) local = NULL;
  const char *scheme;
  char *root;

  parsed = g_uri_parse (uri, G_URI_FLAGS_ENCODED, &local);
  if (parsed == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT, "%s: not a valid URL: %s", uri,
                   local->message);
      return NULL;
    }
  scheme = g_uri_get_scheme (parsed);
  if ((g_ascii_strcasecmp (scheme, "http") != 0 && g_ascii_strcasecmp (scheme, "https") != 0)
      || g_uri_get_host (parsed) == NULL || *g_uri_get_host (parsed) == '\0')
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT, "%s: not an http(s) URL with a host",
                   uri);
      return NULL;
    }

  self = g_object_new (LB_TYPE_HTTP_STORE, NULL);
  self->options = options != NULL ? lb_store_options_ref (options) : lb_store_options_new ();
  root = g_uri_to_string_partial (parsed, G_URI_HIDE_FRAGMENT | G_URI_HIDE_QUERY);
  if (*g_uri_get_path (parsed) == '\0')
    self->root = g_strconcat (root, "/", NULL);
  else if (!g_str_has_suffix (root, "/"))
    self->root = g_strconcat (root, "/", NULL);
  else
    self->root = g_strdup (root);
  g_free (root);

  if (self->options->type != NULL)
    {
      if (g_ascii_strcasecmp (self->options->type, "webdav") == 0)
        self->dialect = DIALECT_WEBDAV;
      else if (g_ascii_strcasecmp (self->options->type, "listing") == 0)
        self->dialect = DIALECT_LISTING;
      self->forced = self->dialect != DIALECT_UNKNOWN;
    }
  self->session = lb_http_session_new (self->options, error);
  if (self->session == NULL)
    return NULL;
  return LB_STORE (g_steal_pointer (&self));
}
