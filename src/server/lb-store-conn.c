/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-store-server"

#include "lb-store-conn.h"

#include <errno.h>
#include <sys/socket.h>

#include "lb-store-server-private.h"

struct _LbStoreConn
{
  GTcpConnection         parent_instance;

  GMainContext          *context;  /* (owned) where @closed runs */
  LbStoreConnClosedFunc  closed;
  gpointer               closed_data;
  GDestroyNotify         closed_destroy;
  gint                   reported; /* (atomic) @closed was scheduled */
  /* main thread */
  GSource               *idle_watch;  /* (nullable) between two requests of a keep-alive connection */
  gpointer               idle_fd_tag; /* the socket in @idle_watch, until the next request shows */
  guint                  idle_timeout_s; /* the server's timeout when the watch started, 0 = none */
};

G_DEFINE_FINAL_TYPE (LbStoreConn, lb_store_conn, G_TYPE_TCP_CONNECTION)

static GQuark
conn_quark (void)
{
  return g_quark_from_static_string ("lb-store-conn");
}

typedef struct
{
  LbStoreConn          *conn; /* (owned) */
  LbStoreConnClosedFunc closed;
  gpointer              data;
  GDestroyNotify        destroy;
} ClosedCall;

static gboolean
closed_call_run (gpointer data)
{
  ClosedCall *c = data;

  c->closed (c->conn, c->data);
  return G_SOURCE_REMOVE;
}

static void
closed_call_free (gpointer data)
{
  ClosedCall *c = data;

  if (c->destroy != NULL)
    c->destroy (c->data);
  g_object_unref (c->conn);
  g_free (c);
}

/* Tells the listener, once, whichever way the connection was closed. A TLS connection may be
 * closed from another thread, so the call goes through the listener's main context. */
static void
report_closed (LbStoreConn *self)
{
  ClosedCall *c;

  if (!g_atomic_int_compare_and_exchange (&self->reported, 0, 1) || self->closed == NULL)
    return;
  c = g_new0 (ClosedCall, 1);
  c->conn = g_object_ref (self);
  c->closed = self->closed;
  c->data = g_steal_pointer (&self->closed_data);
  c->destroy = g_steal_pointer (&self->closed_destroy);
  g_main_context_invoke_full (self->context, G_PRIORITY_DEFAULT, closed_call_run, c, closed_call_free);
}

static void
cancel_idle_watch (LbStoreConn *self)
{
  if (self->idle_watch == NULL)
    return;
  g_source_destroy (self->idle_watch);
  g_clear_pointer (&self->idle_watch, g_source_unref);
  self->idle_fd_tag = NULL;
}

/* Every close of the stream ends here: libsoup's (g_io_stream_close() when it drops the
 * connection, or through the TLS connection above), and lb_store_conn_close(). */
static gboolean
lb_store_conn_close_fn (GIOStream *stream, GCancellable *cancellable, GError **error)
{
  gboolean ok = G_IO_STREAM_CLASS (lb_store_conn_parent_class)->close_fn (stream, cancellable, error);

  report_closed (LB_STORE_CONN (stream));
  return ok;
}

static void
lb_store_conn_dispose (GObject *object)
{
  LbStoreConn *self = LB_STORE_CONN (object);

  if (self->idle_watch != NULL)
    cancel_idle_watch (self);
  G_OBJECT_CLASS (lb_store_conn_parent_class)->dispose (object);
}

static void
lb_store_conn_finalize (GObject *object)
{
  LbStoreConn *self = LB_STORE_CONN (object);

  /* Never reported (closed_data still here): nobody closed it. */
  if (self->closed_destroy != NULL)
    self->closed_destroy (self->closed_data);
  g_main_context_unref (self->context);
  G_OBJECT_CLASS (lb_store_conn_parent_class)->finalize (object);
}

static void
lb_store_conn_class_init (LbStoreConnClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = lb_store_conn_dispose;
  object_class->finalize = lb_store_conn_finalize;
  G_IO_STREAM_CLASS (klass)->close_fn = lb_store_conn_close_fn;
}

static void
lb_store_conn_init (LbStoreConn *self)
{
}

/*
 * lb_store_conn_new:
 * @socket: an accepted TCP socket
 * @context: the main context @closed is called in
 * @closed: (nullable): called once when the connection is closed
 */
LbStoreConn *
lb_store_conn_new (GSocket              *socket,
                   GMainContext         *context,
                   LbStoreConnClosedFunc closed,
                   gpointer              user_data,
                   GDestroyNotify        destroy)
{
  LbStoreConn *self = g_object_new (LB_TYPE_STORE_CONN, "socket", socket, NULL);

  self->context = g_main_context_ref (context);
  self->closed = closed;
  self->closed_data = user_data;
  self->closed_destroy = destroy;
  return self;
}

GSocket *
lb_store_conn_get_socket (LbStoreConn *self)
{
  return g_socket_connection_get_socket (G_SOCKET_CONNECTION (self));
}

/* Shuts the socket down and closes it (the peer sees an orderly end-of-file); idempotent. */
void
lb_store_conn_close (LbStoreConn *self)
{
  GSocket *socket = lb_store_conn_get_socket (self);

  cancel_idle_watch (self);
  if (!g_socket_is_closed (socket))
    g_socket_shutdown (socket, TRUE, TRUE, NULL);
  g_io_stream_close (G_IO_STREAM (self), NULL, NULL);
  /* Closed even if the stream had an operation pending, and counted either way. */
  g_socket_close (socket, NULL);
  report_closed (self);
}

/* Makes the connection findable from its requests: libsoup hands every request the remote
 * address object it was given with the stream (soup_server_accept_iostream()). */
void
lb_store_conn_set_address (LbStoreConn *self, GSocketAddress *remote)
{
  g_object_set_qdata_full (G_OBJECT (remote), conn_quark (), g_object_ref (self), g_object_unref);
}

/* The connection of @msg; NULL for a stream that did not come from lb-store-listener.c. */
LbStoreConn *
lb_store_conn_for_message (SoupServerMessage *msg)
{
  GSocketAddress *remote = soup_server_message_get_remote_address (msg);

  return remote != NULL ? g_object_get_qdata (G_OBJECT (remote), conn_quark ()) : NULL;
}

/* The TCP socket under @msg, TLS or not: soup_server_message_get_socket() is NULL for the
 * connections handed over with soup_server_accept_iostream(), so theirs comes from the
 * LbStoreConn. NULL if there is none. */
GSocket *
lb_store_conn_socket_for_message (SoupServerMessage *msg)
{
  LbStoreConn *conn = lb_store_conn_for_message (msg);

  return conn != NULL ? lb_store_conn_get_socket (conn) : soup_server_message_get_socket (msg);
}

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

/* Sets up the connection side of a request that has just started (libsoup emits
 * request-started when a connection is accepted, and on a keep-alive connection when the
 * first bytes of the next request arrive): keep-alive after 204 and 304, the end of the idle
 * watch, and with a timeout, the socket timeout and the deadline of the request head. */
void
lb_store_conn_start_request (LbStoreServer *server, SoupServerMessage *msg, LbStoreRequest *req)
{
  LbStoreConn *conn = lb_store_conn_for_message (msg);
  GSocket *sock;

  g_signal_connect (msg, "wrote-headers", G_CALLBACK (on_wrote_headers), NULL);
  if (conn == NULL)
    return;
  cancel_idle_watch (conn);
  if (server->timeout_s == 0)
    return;
  sock = lb_store_conn_get_socket (conn);
  g_socket_set_timeout (sock, server->timeout_s);
  req->header_deadline = g_timeout_source_new_seconds (server->timeout_s);
  g_source_set_callback (req->header_deadline, on_header_deadline, g_object_ref (sock),
                         g_object_unref);
  g_source_attach (req->header_deadline, g_main_context_get_thread_default ());
  g_signal_connect (msg, "got-headers", G_CALLBACK (on_got_headers_deadline), NULL);
}

/*
 * Keep-alive connections between two requests.
 *
 * libsoup 3.2 (Debian 12 ships 3.2.3) reads the EOF of an idle keep-alive connection and then
 * forgets the connection without closing it: every such client leaves a socket in CLOSE_WAIT
 * and the process runs out of descriptors (fixed upstream in 3.3.0, commit d20c6601). The
 * server watches each idle connection itself: readable with MSG_PEEK showing EOF means the
 * client left, and the server closes the connection.
 *
 * The watch also enforces the idle timeout, and it alone: the socket timeout is switched off
 * while the connection is idle. libsoup 3.2 waits for the next request with a socket source,
 * and when the socket timeout expires there GSocket marks the socket timed out and libsoup's
 * next read fails; for a request not yet begun libsoup then neither answers nor closes (the
 * same missing completion as above). A watch using the socket timeout set the same mark, so a
 * request sent exactly at the timeout, when both fired, hung with its connection in
 * CLOSE_WAIT for ever. Now nothing times the socket out between requests: at the deadline the
 * watch closes the connection unless bytes of a request are waiting, which libsoup then reads
 * (its request-started ends the watch; if none comes within another timeout, as when a TLS
 * client sends only its close_notify, the connection is closed then). The client sees an
 * orderly close, which HTTP/1.1 allows for idle connections at any time (RFC 9112 §9.8).
 */
static gboolean
on_idle_watch (gpointer user_data)
{
  LbStoreConn *self = user_data;
  GSocket *socket = lb_store_conn_get_socket (self);
  gint64 deadline = g_source_get_ready_time (self->idle_watch);
  char c;
  ssize_t n;

  if (g_socket_is_closed (socket))
    {
      g_clear_pointer (&self->idle_watch, g_source_unref);
      return G_SOURCE_REMOVE;
    }
  if (self->idle_fd_tag != NULL)
    {
      n = recv (g_socket_get_fd (socket), &c, 1, MSG_PEEK | MSG_DONTWAIT);
      if (n > 0)
        {
          /* The next request: libsoup reads it, and its request-started ends this watch. */
          guint grace = self->idle_timeout_s > 0 ? self->idle_timeout_s : LB_STORE_DEFAULT_TIMEOUT;

          g_source_remove_unix_fd (self->idle_watch, self->idle_fd_tag);
          self->idle_fd_tag = NULL;
          g_source_set_ready_time (self->idle_watch, g_get_monotonic_time () + grace * G_USEC_PER_SEC);
          return G_SOURCE_CONTINUE;
        }
      if (n == 0 || (errno != EAGAIN && errno != EINTR))
        goto close; /* end-of-file or a reset from the client */
    }
  if (deadline < 0 || g_source_get_time (self->idle_watch) < deadline)
    return G_SOURCE_CONTINUE;
  g_debug ("closing a keep-alive connection at its idle deadline");

close:
  g_clear_pointer (&self->idle_watch, g_source_unref);
  lb_store_conn_close (self);
  return G_SOURCE_REMOVE;
}

static gboolean
idle_watch_dispatch (GSource *source, GSourceFunc callback, gpointer user_data)
{
  return callback (user_data);
}

static GSourceFuncs idle_watch_funcs = { NULL, NULL, idle_watch_dispatch, NULL, NULL, NULL };

void
lb_store_conn_watch_idle (LbStoreServer *server, SoupServerMessage *msg)
{
  LbStoreConn *self = lb_store_conn_for_message (msg);
  const char *conn_hdr = soup_message_headers_get_list (soup_server_message_get_response_headers (msg),
                                                        "Connection");
  GSocket *socket;

  if (self == NULL)
    return;
  socket = lb_store_conn_get_socket (self);
  if (g_socket_is_closed (socket))
    return;
  if (conn_hdr != NULL && soup_header_contains (conn_hdr, "close"))
    return; /* libsoup closes this one itself */
  if (soup_server_message_get_http_version (msg) == SOUP_HTTP_1_0)
    return;
  /* Before libsoup starts waiting for the next request (it does once request-finished has
   * run): its wait must never time out (see above). */
  g_socket_set_timeout (socket, 0);
  cancel_idle_watch (self);
  self->idle_timeout_s = server->timeout_s;
  self->idle_watch = g_source_new (&idle_watch_funcs, sizeof (GSource));
  g_source_set_static_name (self->idle_watch, "lb-store idle connection");
  self->idle_fd_tag = g_source_add_unix_fd (self->idle_watch, g_socket_get_fd (socket),
                                            G_IO_IN | G_IO_HUP | G_IO_ERR);
  if (server->timeout_s > 0)
    g_source_set_ready_time (self->idle_watch,
                             g_get_monotonic_time () + (gint64) server->timeout_s * G_USEC_PER_SEC);
  g_source_set_callback (self->idle_watch, on_idle_watch, self, NULL);
  g_source_attach (self->idle_watch, g_main_context_get_thread_default ());
}
