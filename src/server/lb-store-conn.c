/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-store-server"

#include "lb-store-conn.h"

#include <errno.h>
#include <sys/socket.h>

#include "lb-store-server-private.h"

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
void
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

void
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
