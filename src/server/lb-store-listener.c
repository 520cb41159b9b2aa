/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-store-server"

#include "lb-store-listener.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include <gio/gnetworking.h>

#define LISTEN_BACKLOG   128 /* connections the kernel queues while we are busy or backing off */
#define ACCEPT_BURST     32  /* accepts per wake-up, so a flood does not starve the rest */
#define BACKOFF_FIRST_MS 10
#define BACKOFF_MAX_MS   1000
/* TLS record header (RFC 8446 §5.1): type, legacy version (2), length (2). */
#define TLS_RECORD_HEADER 5
#define TLS_HANDSHAKE_RECORD 0x16
#define TLS_MAX_RECORD   (16384 + 2048) /* plaintext limit plus the TLS 1.2 expansion allowance */

/* What a connection over the limit gets: written on the raw socket, without libsoup. */
static const char busy_reply[] =
  "HTTP/1.1 503 Service Unavailable\r\n"
  "Retry-After: 1\r\n"
  "Connection: close\r\n"
  "Content-Type: text/plain; charset=utf-8\r\n"
  "Content-Length: 45\r\n"
  "\r\n"
  "503 Service Unavailable: too many connections";

typedef struct _Handshake Handshake;

struct _LbStoreListener
{
  GObject                  parent_instance;

  GMainContext            *context;
  GSocket                 *socket;
  GSocketAddress          *address;
  GSource                 *accept_source; /* (nullable) none while backing off */
  GSource                 *retry_source;  /* (nullable) */
  guint                    backoff_ms;    /* 0 when accepting normally */
  guint                    errors;        /* accept errors since the last success */
  int                      reserve_fd;    /* -1 while spent */
  GTlsCertificate         *certificate;   /* (nullable) */
  guint                    max_connections;
  guint                    hello_timeout_s;     /* accept() to a complete ClientHello */
  guint                    handshake_timeout_s; /* complete ClientHello to the end of the handshake */
  LbStoreListenerReadyFunc ready;
  gpointer                 ready_data;
  GHashTable              *conns;         /* (element-type LbStoreConn) (owned) open connections */
  GHashTable              *handshakes;    /* (element-type Handshake) connections not ready yet */
  GQueue                   waiting;       /* handshakes with their ClientHello, waiting for a slot */
  guint                    running;       /* handshakes in a thread */
  gboolean                 stopped;
};

G_DEFINE_FINAL_TYPE (LbStoreListener, lb_store_listener, G_TYPE_OBJECT)

static gboolean on_accept (GSocket *socket, GIOCondition condition, gpointer user_data);

guint
lb_store_listener_default_max_connections (void)
{
  struct rlimit rl;

  if (getrlimit (RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 1 << 20)
    return 1 << 16;
  /* A connection may hold a second descriptor (an upload's temporary, a file being read), and
   * the process needs a few dozen of its own (standard streams, main context, log, ...). */
  if (rl.rlim_cur <= 40)
    return 4;
  return (guint) ((rl.rlim_cur - 32) / 2);
}

static void
start_accepting (LbStoreListener *self)
{
  self->accept_source = g_socket_create_source (self->socket, G_IO_IN, NULL);
  g_source_set_static_name (self->accept_source, "lb-store accept");
  g_source_set_callback (self->accept_source, G_SOURCE_FUNC (on_accept), self, NULL);
  g_source_attach (self->accept_source, self->context);
}

static void
stop_accepting (LbStoreListener *self)
{
  if (self->accept_source != NULL)
    {
      g_source_destroy (self->accept_source);
      g_clear_pointer (&self->accept_source, g_source_unref);
    }
  if (self->retry_source != NULL)
    {
      g_source_destroy (self->retry_source);
      g_clear_pointer (&self->retry_source, g_source_unref);
    }
}

/* Answers 503 on a raw accepted socket and closes it. What the client already sent is read
 * first: closing with unread bytes would send a reset, which may destroy the answer before
 * the client reads it. */
static void
refuse_busy (int fd)
{
  char scratch[4096];

  for (guint i = 0; i < 4 && recv (fd, scratch, sizeof scratch, MSG_DONTWAIT) > 0; i++)
    ;
  (void) send (fd, busy_reply, sizeof busy_reply - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
  shutdown (fd, SHUT_WR);
  close (fd);
}

static void
on_conn_closed (LbStoreConn *conn, gpointer user_data)
{
  LbStoreListener *self = user_data;

  g_hash_table_remove (self->conns, conn);
}

/* ------------------------------------------------------------------------------------------ */
/* TLS handshakes                                                                              */

struct _Handshake
{
  LbStoreListener *self;        /* (unowned) a handshake never outlives its listener's stop */
  LbStoreConn     *conn;        /* (owned) */
  GSocketAddress  *remote;      /* (owned) */
  GSource         *wait;        /* (nullable) the socket (or a pause), until the ClientHello is
                                 * complete */
  GSource         *deadline;    /* (nullable) */
  GCancellable    *cancellable;
  GIOStream       *tls;         /* (nullable) once the handshake runs */
  guint            lowat;       /* bytes the socket waits for before it is readable */
  gboolean         running;     /* in a thread: only cancellation ends it early */
};

static void
handshake_free (Handshake *hs)
{
  if (hs->wait != NULL)
    {
      g_source_destroy (hs->wait);
      g_source_unref (hs->wait);
    }
  if (hs->deadline != NULL)
    {
      g_source_destroy (hs->deadline);
      g_source_unref (hs->deadline);
    }
  g_clear_object (&hs->cancellable);
  g_clear_object (&hs->tls);
  g_clear_object (&hs->remote);
  g_clear_object (&hs->conn);
  g_free (hs);
}

/* Ends a handshake that is not running in a thread: closes the connection. */
static void
handshake_fail (Handshake *hs)
{
  LbStoreListener *self = hs->self;

  g_hash_table_remove (self->handshakes, hs);
  g_queue_remove (&self->waiting, hs);
  lb_store_conn_close (hs->conn);
  handshake_free (hs);
}

static void run_handshake (Handshake *hs);

static void
run_waiting_handshakes (LbStoreListener *self)
{
  while (self->running < LB_STORE_LISTENER_MAX_HANDSHAKES && !g_queue_is_empty (&self->waiting))
    run_handshake (g_queue_pop_head (&self->waiting));
}

static void
on_handshake_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Handshake *hs = user_data;
  LbStoreListener *self = hs->self;
  g_autoptr(GError) error = NULL;
  gboolean ok = g_tls_connection_handshake_finish (G_TLS_CONNECTION (source), result, &error);

  hs->running = FALSE;
  self->running--;
  if (!ok || self->stopped)
    {
      g_debug ("TLS handshake failed: %s", error != NULL ? error->message : "the server stopped");
      handshake_fail (hs);
    }
  else
    {
      g_hash_table_remove (self->handshakes, hs);
      self->ready (self, hs->tls, hs->conn, hs->remote, self->ready_data);
      handshake_free (hs);
    }
  if (!self->stopped)
    run_waiting_handshakes (self);
}

static void
run_handshake (Handshake *hs)
{
  LbStoreListener *self = hs->self;
  static const char *const protocols[] = { "http/1.1", "http/1.0", NULL };
  g_autoptr(GError) error = NULL;

  hs->tls = g_tls_server_connection_new (G_IO_STREAM (hs->conn), self->certificate, &error);
  if (hs->tls == NULL)
    {
      g_warning ("Cannot start TLS: %s", error->message);
      return handshake_fail (hs);
    }
  /* As libsoup's own listener: HTTP frames its messages, a missing close_notify is no
   * truncation attack here. */
  g_tls_connection_set_require_close_notify (G_TLS_CONNECTION (hs->tls), FALSE);
  g_tls_connection_set_advertised_protocols (G_TLS_CONNECTION (hs->tls), protocols);
  hs->running = TRUE;
  self->running++;
  g_tls_connection_handshake_async (G_TLS_CONNECTION (hs->tls), G_PRIORITY_DEFAULT, hs->cancellable,
                                    on_handshake_done, hs);
}

static gboolean
on_handshake_deadline (gpointer user_data)
{
  Handshake *hs = user_data;

  g_debug ("TLS handshake not done in time (%s): closing", hs->wait != NULL ? "ClientHello" : "handshake");
  g_clear_pointer (&hs->deadline, g_source_unref);
  /* A running handshake is cancelled and ends in on_handshake_done(): its thread still uses
   * the socket, which is closed only then. */
  if (hs->running)
    g_cancellable_cancel (hs->cancellable);
  else
    handshake_fail (hs);
  return G_SOURCE_REMOVE;
}

/* Replaces the deadline of @hs by one @seconds from now. */
static void
set_deadline (Handshake *hs, guint seconds)
{
  if (hs->deadline != NULL)
    {
      g_source_destroy (hs->deadline);
      g_source_unref (hs->deadline);
    }
  hs->deadline = g_timeout_source_new_seconds (seconds);
  g_source_set_callback (hs->deadline, on_handshake_deadline, hs, NULL);
  g_source_attach (hs->deadline, hs->self->context);
}

static gboolean on_client_hello (GSocket *socket, GIOCondition condition, gpointer user_data);

static void
watch_client_hello (Handshake *hs)
{
  hs->wait = g_socket_create_source (lb_store_conn_get_socket (hs->conn), G_IO_IN, NULL);
  g_source_set_callback (hs->wait, G_SOURCE_FUNC (on_client_hello), hs, NULL);
  g_source_attach (hs->wait, hs->self->context);
}

static gboolean
on_client_hello_pause (gpointer user_data)
{
  Handshake *hs = user_data;

  g_clear_pointer (&hs->wait, g_source_unref);
  watch_client_hello (hs);
  return G_SOURCE_REMOVE;
}

/* TRUE when the client shut its side down (end-of-file behind the bytes still unread). */
static gboolean
peer_closed (int fd)
{
  struct pollfd p = { fd, POLLRDHUP, 0 };

  return poll (&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

/*
 * Waits, on the main loop, until the client's first TLS record is complete, so that a client
 * that sends part of a ClientHello and stalls costs one socket and no thread (glib-networking
 * runs every handshake in a GTask thread that blocks on the socket, and GLib's pool of those
 * threads is small: a hundred stalled clients locked every new TLS client out). SO_RCVLOWAT
 * makes the socket readable only once the awaited number of bytes has arrived (or at
 * end-of-file), so partial data does not wake the loop again and again. Linux still reports a
 * socket readable short of it when its receive window or memory runs low
 * (tcp_epollin_ready()): then the socket is looked at again after a pause, not in a loop.
 */
static gboolean
on_client_hello (GSocket *socket, GIOCondition condition, gpointer user_data)
{
  Handshake *hs = user_data;
  LbStoreListener *self = hs->self;
  int fd = g_socket_get_fd (socket);
  guint8 head[TLS_RECORD_HEADER];
  gssize n = recv (fd, head, sizeof head, MSG_PEEK | MSG_DONTWAIT);
  guint length, needed = TLS_RECORD_HEADER;
  int avail = 0;

  if (n < 0 && (errno == EAGAIN || errno == EINTR))
    return G_SOURCE_CONTINUE;
  if (n <= 0 || head[0] != TLS_HANDSHAKE_RECORD)
    {
      g_debug ("TLS: no ClientHello (%s)", n < 0 ? g_strerror (errno) : n == 0 ? "end-of-file" : "not TLS");
      goto fail; /* plain HTTP on a TLS port gets no answer */
    }
  if (n == (gssize) sizeof head)
    {
      length = (guint) head[3] << 8 | head[4];
      if (head[1] != 3 || length == 0 || length > TLS_MAX_RECORD)
        {
          g_debug ("TLS: not a TLS record header");
          goto fail;
        }
      needed = TLS_RECORD_HEADER + length;
      if (ioctl (fd, FIONREAD, &avail) != 0)
        goto fail;
      if ((guint) avail >= needed)
        {
          g_socket_set_option (socket, SOL_SOCKET, SO_RCVLOWAT, 1, NULL);
          g_clear_pointer (&hs->wait, g_source_unref);
          /* From here a thread may be held: the shorter deadline. */
          set_deadline (hs, self->handshake_timeout_s);
          g_queue_push_tail (&self->waiting, hs);
          run_waiting_handshakes (self);
          return G_SOURCE_REMOVE;
        }
    }
  if (peer_closed (fd))
    {
      g_debug ("TLS: end-of-file within the ClientHello");
      goto fail;
    }
  if (hs->lowat != needed)
    {
      hs->lowat = needed;
      g_socket_set_option (socket, SOL_SOCKET, SO_RCVLOWAT, (gint) needed, NULL);
      return G_SOURCE_CONTINUE;
    }
  g_clear_pointer (&hs->wait, g_source_unref);
  hs->wait = g_timeout_source_new (10);
  g_source_set_callback (hs->wait, on_client_hello_pause, hs, NULL);
  g_source_attach (hs->wait, self->context);
  return G_SOURCE_REMOVE;

fail:
  g_clear_pointer (&hs->wait, g_source_unref);
  handshake_fail (hs);
  return G_SOURCE_REMOVE;
}

static void
start_handshake (LbStoreListener *self, LbStoreConn *conn, GSocketAddress *remote)
{
  Handshake *hs = g_new0 (Handshake, 1);

  hs->self = self;
  hs->conn = g_object_ref (conn);
  hs->remote = g_object_ref (remote);
  hs->cancellable = g_cancellable_new ();
  g_hash_table_add (self->handshakes, hs);
  set_deadline (hs, self->hello_timeout_s);
  hs->lowat = TLS_RECORD_HEADER;
  g_socket_set_option (lb_store_conn_get_socket (conn), SOL_SOCKET, SO_RCVLOWAT, (gint) hs->lowat, NULL);
  watch_client_hello (hs);
}

/* ------------------------------------------------------------------------------------------ */
/* accepting                                                                                   */

/* A new connection, counted from here until it is closed. */
static void
take_connection (LbStoreListener *self, int fd, const struct sockaddr_storage *peer, socklen_t peer_len)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocket) socket = g_socket_new_from_fd (fd, &error);
  g_autoptr(GSocketAddress) remote = NULL;
  g_autoptr(LbStoreConn) conn = NULL;

  if (socket == NULL)
    {
      g_warning ("Cannot take a new connection: %s", error->message);
      close (fd);
      return;
    }
  remote = g_socket_address_new_from_native ((gpointer) peer, peer_len);
  if (remote == NULL)
    {
      g_socket_close (socket, NULL);
      return;
    }
  /* As libsoup's listener: answers go out without waiting for more to send (Nagle). */
  g_socket_set_option (socket, IPPROTO_TCP, TCP_NODELAY, TRUE, NULL);
  conn = lb_store_conn_new (socket, self->context, on_conn_closed, g_object_ref (self), g_object_unref);
  g_hash_table_add (self->conns, g_object_ref (conn));
  if (self->certificate != NULL)
    start_handshake (self, conn, remote);
  else
    self->ready (self, G_IO_STREAM (conn), conn, remote, self->ready_data);
}

static gboolean
on_retry (gpointer user_data)
{
  LbStoreListener *self = user_data;

  g_clear_pointer (&self->retry_source, g_source_unref);
  start_accepting (self);
  return G_SOURCE_REMOVE;
}

/* accept() failed for want of a resource: logs once per episode, answers the clients waiting
 * in the listen queue 503 with the descriptor kept for that (rather than leave them to time
 * out), and pauses accepting, twice as long each time. */
static void
back_off (LbStoreListener *self, int err)
{
  self->backoff_ms = self->backoff_ms == 0 ? BACKOFF_FIRST_MS : MIN (self->backoff_ms * 2, BACKOFF_MAX_MS);
  if (self->errors++ == 0)
    g_warning ("Cannot accept connections: %s; retrying with a pause of up to %u ms",
               g_strerror (err), BACKOFF_MAX_MS);
  for (guint i = 0; i < ACCEPT_BURST && (err == EMFILE || err == ENFILE) && self->reserve_fd >= 0; i++)
    {
      int fd;

      close (self->reserve_fd);
      fd = accept4 (g_socket_get_fd (self->socket), NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd >= 0)
        refuse_busy (fd);
      self->reserve_fd = open ("/dev/null", O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        break;
    }
  stop_accepting (self);
  self->retry_source = g_timeout_source_new (self->backoff_ms);
  g_source_set_callback (self->retry_source, on_retry, self, NULL);
  g_source_attach (self->retry_source, self->context);
}

static gboolean
on_accept (GSocket *socket, GIOCondition condition, gpointer user_data)
{
  LbStoreListener *self = user_data;

  for (guint i = 0; i < ACCEPT_BURST; i++)
    {
      struct sockaddr_storage peer;
      socklen_t peer_len = sizeof peer;
      int fd = accept4 (g_socket_get_fd (socket), (struct sockaddr *) &peer, &peer_len,
                        SOCK_CLOEXEC | SOCK_NONBLOCK);

      if (fd < 0)
        {
          int err = errno;

          if (err == EAGAIN || err == EINTR)
            break;
          if (err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM)
            {
              back_off (self, err); /* destroys this source */
              return G_SOURCE_REMOVE;
            }
          /* The client's connection failed (ECONNABORTED, EPROTO, a firewall's EPERM): it
           * alone is lost. */
          g_debug ("accept: %s", g_strerror (err));
          continue;
        }
      if (self->backoff_ms != 0)
        {
          g_message ("Accepting connections again (%u accept errors)", self->errors);
          self->backoff_ms = 0;
          self->errors = 0;
        }
      if (g_hash_table_size (self->conns) >= self->max_connections)
        refuse_busy (fd);
      else
        take_connection (self, fd, &peer, peer_len);
    }
  return G_SOURCE_CONTINUE;
}

/* ------------------------------------------------------------------------------------------ */

static void
lb_store_listener_dispose (GObject *object)
{
  lb_store_listener_stop (LB_STORE_LISTENER (object));
  G_OBJECT_CLASS (lb_store_listener_parent_class)->dispose (object);
}

static void
lb_store_listener_finalize (GObject *object)
{
  LbStoreListener *self = LB_STORE_LISTENER (object);

  g_hash_table_unref (self->conns);
  g_hash_table_unref (self->handshakes);
  g_clear_object (&self->certificate);
  g_clear_object (&self->address);
  g_clear_object (&self->socket);
  g_main_context_unref (self->context);
  G_OBJECT_CLASS (lb_store_listener_parent_class)->finalize (object);
}

static void
lb_store_listener_class_init (LbStoreListenerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = lb_store_listener_dispose;
  object_class->finalize = lb_store_listener_finalize;
}

static void
lb_store_listener_init (LbStoreListener *self)
{
  self->conns = g_hash_table_new_full (NULL, NULL, g_object_unref, NULL);
  self->handshakes = g_hash_table_new (NULL, NULL);
  g_queue_init (&self->waiting);
  self->reserve_fd = -1;
}

/*
 * lb_store_listener_new:
 * @address: where to listen (port 0: a free one)
 * @certificate: (nullable): serve TLS with it
 * @max_connections: 0 for lb_store_listener_default_max_connections()
 * @hello_timeout_s: longest wait for a TLS client's ClientHello, from accept() on (> 0); it
 *   costs no thread
 * @handshake_timeout_s: longest TLS handshake once the ClientHello is there (> 0): it may
 *   hold a thread
 * @ready: called with each connection ready to serve, in the thread-default main context
 *
 * Listens at once; connections are accepted in the thread-default main context of this call.
 */
LbStoreListener *
lb_store_listener_new (GSocketAddress          *address,
                       GTlsCertificate         *certificate,
                       guint                    max_connections,
                       guint                    hello_timeout_s,
                       guint                    handshake_timeout_s,
                       LbStoreListenerReadyFunc ready,
                       gpointer                 user_data,
                       GError                 **error)
{
  g_autoptr(LbStoreListener) self = g_object_new (LB_TYPE_STORE_LISTENER, NULL);
  GSocketFamily family = g_socket_address_get_family (address);

  g_return_val_if_fail (hello_timeout_s > 0 && handshake_timeout_s > 0, NULL);

  self->context = g_main_context_ref_thread_default ();
  self->certificate = certificate != NULL ? g_object_ref (certificate) : NULL;
  self->max_connections = max_connections > 0 ? max_connections : lb_store_listener_default_max_connections ();
  self->hello_timeout_s = hello_timeout_s;
  self->handshake_timeout_s = handshake_timeout_s;
  self->ready = ready;
  self->ready_data = user_data;
  self->socket = g_socket_new (family, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, error);
  if (self->socket == NULL)
    return NULL;
  if (family == G_SOCKET_FAMILY_IPV6)
    g_socket_set_option (self->socket, IPPROTO_IPV6, IPV6_V6ONLY, TRUE, NULL);
  g_socket_set_listen_backlog (self->socket, LISTEN_BACKLOG);
  if (!g_socket_bind (self->socket, address, TRUE, error) || !g_socket_listen (self->socket, error))
    return NULL;
  self->address = g_socket_get_local_address (self->socket, error);
  if (self->address == NULL)
    return NULL;
  self->reserve_fd = open ("/dev/null", O_RDONLY | O_CLOEXEC);
  start_accepting (self);
  return g_steal_pointer (&self);
}

/* The address listened on, with the port chosen when 0 was asked for. */
GSocketAddress *
lb_store_listener_get_address (LbStoreListener *self)
{
  return self->address;
}

/* Open connections, those still in their TLS handshake included. */
guint
lb_store_listener_get_n_connections (LbStoreListener *self)
{
  return g_hash_table_size (self->conns);
}

/* Closes the listening socket and every connection; idempotent. */
void
lb_store_listener_stop (LbStoreListener *self)
{
  g_autoptr(GPtrArray) handshakes = NULL;
  g_autoptr(GPtrArray) conns = NULL;
  g_autoptr(GHashTable) running = NULL;
  GHashTableIter iter;
  gpointer key;

  if (self->stopped)
    return;
  self->stopped = TRUE;
  stop_accepting (self);
  if (self->socket != NULL)
    g_socket_close (self->socket, NULL);
  handshakes = g_ptr_array_new ();
  g_hash_table_iter_init (&iter, self->handshakes);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (handshakes, key);
  running = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < handshakes->len; i++)
    {
      Handshake *hs = g_ptr_array_index (handshakes, i);

      if (hs->running)
        {
          /* Its thread still uses the socket: it ends, and is closed, in on_handshake_done(). */
          g_cancellable_cancel (hs->cancellable);
          g_hash_table_add (running, hs->conn);
        }
      else
        handshake_fail (hs);
    }
  /* Copied with references: closing one removes it from the table. */
  conns = g_ptr_array_new_with_free_func (g_object_unref);
  g_hash_table_iter_init (&iter, self->conns);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (!g_hash_table_contains (running, key))
      g_ptr_array_add (conns, g_object_ref (key));
  for (guint i = 0; i < conns->len; i++)
    lb_store_conn_close (g_ptr_array_index (conns, i));
  if (self->reserve_fd >= 0)
    {
      close (self->reserve_fd);
      self->reserve_fd = -1;
    }
}
