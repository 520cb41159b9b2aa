/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-http-store"

#include "lb-http-store-private.h"

#include <string.h>

#include "lb-error.h"
#include "lb-http.h"
#include "lb-store-private.h"

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

typedef struct {
  GTask                   *task;  /* owned */
  LbHttpStoreContinuation  next;
} Waiter;

static void
op_free (gpointer data)
{
  LbHttpStoreOp *op = data;

  g_free (op->uri);
  g_clear_object (&op->msg);
  g_clear_object (&op->body);
  g_clear_object (&op->source);
  g_clear_pointer (&op->bytes, g_bytes_unref);
  g_free (op->content_type);
  g_free (op->etag);
  g_clear_object (&op->entry);
  g_clear_pointer (&op->parser, lb_listing_parser_free);
  g_free (op);
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
  self->dialect = soup_message_get_status (msg) == 207 ? LB_HTTP_DIALECT_WEBDAV
                                                       : LB_HTTP_DIALECT_LISTING;
  g_debug ("%s: PROPFIND → %u: %s", self->root, soup_message_get_status (msg),
           self->dialect == LB_HTTP_DIALECT_WEBDAV ? "WebDAV" : "listing");
  run_waiters (self, NULL);
}

/* A PROPFIND for @uri at @depth ("0": the resource itself, "1": with its members) asking for
 * the properties the listing parser reads. */
SoupMessage *
lb_http_store_propfind_new (LbHttpStore *self, const char *uri, const char *depth, GError **error)
{
  g_autoptr(GBytes) request = NULL;
  SoupMessage *msg = lb_http_message_new ("PROPFIND", uri, self->options, error);

  if (msg == NULL)
    return NULL;
  request = g_bytes_new_static (propfind_body, sizeof propfind_body - 1);
  soup_message_headers_replace (soup_message_get_request_headers (msg), "Depth", depth);
  lb_http_message_set_body (msg, "application/xml; charset=utf-8", request);
  return msg;
}

/* Sends @msg for @task (@max_retries as lb_http_send_async() takes them) with @callback; or,
 * when building @msg failed (NULL), fails @task with @error. */
void
lb_http_store_op_send (GTask *task, SoupMessage *msg, GError *error, guint max_retries,
                       GAsyncReadyCallback callback)
{
  if (msg == NULL)
    lb_store_task_fail (task, error);
  else
    lb_http_send_async (lb_http_store_from_task (task)->session, msg, max_retries, NULL, NULL,
                        g_task_get_cancellable (task), callback, task);
}

/* Finishes what lb_http_store_op_send() sent: the answer's body, op->msg the message that got
 * it. NULL when there was no answer, or (with @need_2xx) when it was not a 2xx one, whose body is
 * closed: @task has then returned the error, and its LbHttpStoreOp is gone with it. Signal
 * handlers that point at the Op (upload progress) are disconnected first. */
GInputStream *
lb_http_store_op_sent (GTask *task, GAsyncResult *result, gboolean need_2xx)
{
  LbHttpStoreOp *op = lb_http_store_op (task);
  GError *error = NULL;
  GInputStream *body;

  g_clear_object (&op->msg);
  body = lb_http_send_finish (lb_http_store_from_task (task)->session, result, &op->msg, &error);
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
LbStoreEntry *
lb_http_store_op_entry (LbHttpStoreOp *op)
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
      self->dialect = LB_HTTP_DIALECT_WEBDAV;
      g_debug ("%s: OPTIONS DAV: %s → WebDAV", self->root, dav);
      run_waiters (self, NULL);
      return;
    }

  /* no DAV header: a server may still answer PROPFIND (or hide OPTIONS behind a proxy) */
  propfind = lb_http_store_propfind_new (self, self->root, "0", &error);
  if (propfind == NULL)
    {
      run_waiters (self, error);
      return;
    }
  lb_http_send_async (self->session, propfind, self->options->max_retries, NULL, NULL, NULL,
                      on_detect_propfind, g_object_ref (self));
}

/* Runs @next once the dialect is known (or fails @task if detection failed). */
void
lb_http_store_with_dialect (GTask *task, LbHttpStoreContinuation next)
{
  LbHttpStore *self = lb_http_store_from_task (task);
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GError) error = NULL;
  Waiter *w;

  if (self->dialect != LB_HTTP_DIALECT_UNKNOWN)
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

GTask *
lb_http_store_op_task_new (LbHttpStore *self, const char *uri, gboolean container,
                           GCancellable *cancellable, GAsyncReadyCallback callback,
                           gpointer user_data, gpointer tag)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  GError *error = NULL;
  LbHttpStoreOp *op = g_new0 (LbHttpStoreOp, 1);

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

/* The answer is complete and op->entry holds the result: the (empty) rest of the body is read
 * before the stream is closed, so libsoup 3.2 keeps the connection (lb_http_drain_async). */
static void
on_entry_drained (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  LbHttpStoreOp *op = lb_http_store_op (task);

  lb_http_drain_finish (G_INPUT_STREAM (source), result);
  g_task_return_pointer (task, g_steal_pointer (&op->entry), g_object_unref);
  g_object_unref (task);
}

void
lb_http_store_op_return_entry (GTask *task, GInputStream *body, LbStoreEntry *entry)
{
  LbHttpStoreOp *op = lb_http_store_op (task);

  g_clear_object (&op->entry);
  op->entry = entry;
  lb_http_drain_async (body, g_task_get_cancellable (task), on_entry_drained, task);
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
    case LB_HTTP_DIALECT_WEBDAV: return "webdav";
    case LB_HTTP_DIALECT_LISTING: return "listing";
    case LB_HTTP_DIALECT_UNKNOWN:
    default: return "http";
    }
}

static LbStoreCapabilities
lb_http_store_get_capabilities (LbStore *store)
{
  LbHttpStore *self = LB_HTTP_STORE (store);
  LbStoreCapabilities caps = LB_STORE_HAS_ETAGS;

  if (self->dialect == LB_HTTP_DIALECT_WEBDAV)
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
  lb_http_store_read_iface_init (iface);
  lb_http_store_write_iface_init (iface);
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
        self->dialect = LB_HTTP_DIALECT_WEBDAV;
      else if (g_ascii_strcasecmp (self->options->type, "listing") == 0)
        self->dialect = LB_HTTP_DIALECT_LISTING;
      self->forced = self->dialect != LB_HTTP_DIALECT_UNKNOWN;
    }
  self->session = lb_http_session_new (self->options, error);
  if (self->session == NULL)
    return NULL;
  return LB_STORE (g_steal_pointer (&self));
}
