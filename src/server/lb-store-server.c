/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-store-server"

#include "config.h"

#include "lb-store-server.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "lb-dav-methods.h"
#include "lb-dav-propfind.h"
#include "lb-error.h"
#include "lb-store-conn.h"
#include "lb-store-fs.h"
#include "lb-store-listener.h"
#include "lb-store-path.h"
#include "lb-store-reply.h"
#include "lb-store-request.h"
#include "lb-store-server-private.h"
#include "lb-store-upload.h"
#include "lb-store-verify.h"

/*
 * LbStoreServer: a directory served as a WebDAV class-1 store (RFC 4918) by libsoup 3.
 *
 * Request flow: an early handler (run once the headers are read) authenticates, maps the
 * path, and for PUT checks preconditions and opens the upload temporary, so refused requests
 * never have their body read and accepted uploads stream to disk chunk by chunk
 * (lb-store-upload.c). The normal handler runs once the body is complete and hands the request
 * to its method (lb-dav-methods.c; PUT: lb-store-upload.c). Per-request state
 * (lb-store-request.c) hangs on the SoupServerMessage; freeing it removes an upload temporary
 * that was never committed, so an aborted upload leaves nothing behind. Connections are
 * accepted, counted and (for TLS) handshaken by lb-store-listener.c, which hands them to
 * libsoup ready to serve; the connection side of each request (timeouts, keep-alive, idle
 * connections) is lb-store-conn.c's.
 *
 * This file holds the object, its setters and listener set-up, the early and normal handlers
 * (the routing) and the request life cycle signals, which write the access log.
 */

G_DEFINE_FINAL_TYPE (LbStoreServer, lb_store_server, G_TYPE_OBJECT)

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

static void
challenge (LbStoreServer *self, SoupServerMessage *msg)
{
  lb_store_reply_error (msg, SOUP_STATUS_UNAUTHORIZED, "credentials required");
  lb_store_auth_add_challenges (self->auth, soup_server_message_get_response_headers (msg));
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

static void early_route (LbStoreServer *self, SoupServerMessage *msg, LbStoreRequest *req);

/* The verdict on Basic credentials checked in a worker thread (lb-store-verify.c). */
static void
on_verified (LbStoreServer *self, SoupServerMessage *msg, LbStoreAuthResult result, char *user)
{
  LbStoreRequest *req = lb_store_request_get (msg);

  if (req != NULL && result == LB_STORE_AUTH_OK)
    {
      req->user = user;
      early_route (self, msg, req);
    }
  else
    {
      g_free (user);
      challenge (self, msg);
    }
  soup_server_message_unpause (msg);
}

static void
early_handler (SoupServer        *soup,
               SoupServerMessage *msg,
               const char        *path,
               GHashTable        *query,
               gpointer           user_data)
{
  LbStoreServer *self = user_data;
  LbStoreRequest *req = lb_store_request_get (msg);
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);
  const char *authorization = soup_message_headers_get_one (h, "Authorization");

  if (req == NULL)
    return;
  req->client = g_strdup (soup_server_message_get_remote_host (msg));

  /* Two Authorization fields are ambiguous (RFC 9110 §5.3: not a list field): which one a
   * proxy in front checked and which one we would check could differ. */
  if (count_headers (h, "Authorization") > 1)
    return lb_store_reply_refuse (msg, SOUP_STATUS_BAD_REQUEST, "more than one Authorization field");
  /* Both framings at once is the request-smuggling pattern (RFC 9112 §6.1): refuse it rather
   * than pick one, since a proxy in front may have picked the other. */
  if (soup_message_headers_get_one (h, "Transfer-Encoding") != NULL &&
      soup_message_headers_get_one (h, "Content-Length") != NULL)
    return lb_store_reply_refuse (msg, SOUP_STATUS_BAD_REQUEST, "both Content-Length and Transfer-Encoding");
  if (count_headers (h, "Content-Length") > 1)
    return lb_store_reply_refuse (msg, SOUP_STATUS_BAD_REQUEST, "more than one Content-Length field");

  /* Without authentication configured, credentials are ignored: the request is anonymous. */
  if (lb_store_auth_is_enabled (self->auth))
    {
      switch (lb_store_auth_check_cached (self->auth, authorization, &req->user))
        {
        case LB_STORE_AUTH_DENIED:
          return challenge (self, msg);
        case LB_STORE_AUTH_PENDING:
          /* A password hash: in a worker, the request paused; on_verified() goes on. */
          lb_store_verifier_start (self->verifier, self, msg, authorization, on_verified);
          return;
        case LB_STORE_AUTH_OK:
        case LB_STORE_AUTH_ANONYMOUS:
        default:
          break;
        }
    }
  early_route (self, msg, req);
}

/* The rest of the early handler, once the client is known: method, path and body set-up. */
static void
early_route (LbStoreServer *self, SoupServerMessage *msg, LbStoreRequest *req)
{
  const char *method = soup_server_message_get_method (msg);
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);
  GUri *uri = soup_server_message_get_uri (msg);
  LbStorePathStatus ps;

  if (!method_known (method))
    {
      lb_store_reply_refuse (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, NULL);
      soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                    "Allow", LB_DAV_ALLOW_METHODS);
      return;
    }
  if (method_writes (method))
    {
      if (self->read_only)
        return lb_store_reply_refuse (msg, SOUP_STATUS_FORBIDDEN, "this store is read-only");
      if (lb_store_auth_is_enabled (self->auth) && req->user == NULL)
        return challenge (self, msg);
    }

  if (strcmp (method, "OPTIONS") == 0 && soup_server_message_is_options_ping (msg))
    return;
  if (g_uri_get_fragment (uri) != NULL)
    return lb_store_reply_refuse (msg, SOUP_STATUS_BAD_REQUEST, "a request URI has no fragment");

  /* libsoup hands the path over percent-decoded with dot segments resolved; it is checked
   * again here (backslashes, stray dot segments, UTF-8) and never decoded twice. */
  ps = lb_store_path_check_decoded (g_uri_get_path (uri), &req->rel, &req->slash);
  if (ps != LB_STORE_PATH_OK)
    return lb_store_reply_refuse (msg, ps, "path refused");
  req->abs = g_build_filename (self->root, req->rel, NULL);
  if (!lb_store_path_is_contained (self->root_real, req->abs))
    return lb_store_reply_refuse (msg, SOUP_STATUS_FORBIDDEN, "path leads out of the store");
  if (lb_store_path_is_hidden (req->rel) && strcmp (method, "PUT") != 0 &&
      strcmp (method, "MKCOL") != 0)
    return lb_store_reply_refuse (msg, SOUP_STATUS_NOT_FOUND, NULL);

  /* Bodies are never accumulated by libsoup: PUT streams to disk, others are capped. */
  soup_message_body_set_accumulate (soup_server_message_get_request_body (msg), FALSE);
  g_signal_connect (msg, "got-chunk", G_CALLBACK (lb_store_upload_got_chunk), req);

  if (strcmp (method, "PUT") == 0)
    return lb_store_upload_begin (self, msg, req);

  if (soup_message_headers_get_encoding (h) == SOUP_ENCODING_CONTENT_LENGTH &&
      soup_message_headers_get_content_length (h) > LB_STORE_MAX_XML_BODY)
    return lb_store_reply_refuse (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, "request body too large");
  req->body = g_byte_array_new ();
}

static void
main_handler (SoupServer        *soup,
              SoupServerMessage *msg,
              const char        *path,
              GHashTable        *query,
              gpointer           user_data)
{
  LbStoreServer *self = user_data;
  LbStoreRequest *req = lb_store_request_get (msg);

  if (req == NULL)
    return lb_store_reply_error (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, NULL);
  if (method_is (msg, "OPTIONS"))
    return lb_dav_handle_options (self, msg);
  if (req->rel == NULL)
    return lb_store_reply_error (msg, SOUP_STATUS_BAD_REQUEST, NULL);
  if (req->too_large && !method_is (msg, "PUT"))
    return lb_store_reply_error (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, "request body too large");

  if (method_is (msg, "GET") || method_is (msg, "HEAD"))
    lb_dav_handle_get (self, msg, req);
  else if (method_is (msg, "PROPFIND"))
    lb_dav_handle_propfind (self, msg, req);
  else if (method_is (msg, "PROPPATCH"))
    lb_dav_handle_proppatch (self, msg, req);
  else if (method_is (msg, "PUT"))
    lb_store_upload_finish (self, msg, req);
  else if (method_is (msg, "MKCOL"))
    lb_dav_handle_mkcol (self, msg, req);
  else if (method_is (msg, "DELETE"))
    lb_dav_handle_delete (self, msg, req);
  else if (method_is (msg, "COPY"))
    lb_dav_handle_copy_move (self, msg, req, FALSE);
  else if (method_is (msg, "MOVE"))
    lb_dav_handle_copy_move (self, msg, req, TRUE);
  else
    lb_store_reply_error (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, NULL);
}

static void
on_request_started (SoupServer *soup, SoupServerMessage *msg, gpointer user_data)
{
  LbStoreServer *self = user_data;
  LbStoreRequest *req = lb_store_request_attach (msg, self->temps, self->max_upload);

  lb_store_conn_start_request (self, msg, req);
}

static void
log_request (LbStoreServer *self, SoupServerMessage *msg, gboolean aborted)
{
  LbStoreRequest *req = lb_store_request_get (msg);
  GUri *uri = soup_server_message_get_uri (msg);
  const char *method = soup_server_message_get_method (msg);
  guint64 out = 0;
  g_autofree char *logged_path = NULL;

  if (req == NULL)
    return;
  /* An upload whose connection died never reaches the handler: drop its temporary now. */
  lb_store_request_drop_temp (req);
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

static void
on_request_finished (SoupServer *soup, SoupServerMessage *msg, gpointer user_data)
{
  log_request (user_data, msg, FALSE);
  lb_store_conn_watch_idle (user_data, msg);
}

static void
on_request_aborted (SoupServer *soup, SoupServerMessage *msg, gpointer user_data)
{
  log_request (user_data, msg, TRUE);
}

static void
lb_store_server_dispose (GObject *object)
{
  LbStoreServer *self = LB_STORE_SERVER (object);

  lb_store_server_stop (self);
  g_clear_object (&self->soup);
  g_clear_object (&self->listener);
  g_clear_object (&self->tls_cert);
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
  lb_store_verifier_free (self->verifier);
  lb_store_locks_free (self->locks);
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
lb_store_server_init (LbStoreServer *self)
{
  self->temps = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->anchor_peer = -1;
  self->verifier = lb_store_verifier_new ();
  self->locks = lb_store_locks_new ();
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

/* Serves HTTPS with @cert (a certificate with its private key) from the next listen on. */
void
lb_store_server_set_tls_certificate (LbStoreServer *self, GTlsCertificate *cert)
{
  g_return_if_fail (LB_IS_STORE_SERVER (self));
  g_set_object (&self->tls_cert, cert);
}

/*
 * lb_store_server_set_max_connections:
 * @max_connections: 0 for the default, derived from the descriptor limit (RLIMIT_NOFILE)
 *
 * Connections beyond this many at once (TLS handshakes included) are answered 503 with
 * Retry-After and closed. Takes effect at the next lb_store_server_listen().
 */
void
lb_store_server_set_max_connections (LbStoreServer *self, guint max_connections)
{
  g_return_if_fail (LB_IS_STORE_SERVER (self));
  self->max_connections = max_connections;
}

/* The limit in force: the one set, or the default derived from the descriptor limit. */
guint
lb_store_server_get_max_connections (LbStoreServer *self)
{
  g_return_val_if_fail (LB_IS_STORE_SERVER (self), 0);
  return self->max_connections > 0 ? self->max_connections
                                   : lb_store_listener_default_max_connections ();
}

/* Connections open now, TLS handshakes included. */
guint
lb_store_server_get_n_connections (LbStoreServer *self)
{
  g_return_val_if_fail (LB_IS_STORE_SERVER (self), 0);
  return self->listener != NULL ? lb_store_listener_get_n_connections (self->listener) : 0;
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

  return lb_store_fs_remove_stale_temps (self->root);
}

/* A connection accepted (and handshaken) by the listener: libsoup serves it from here. */
static void
on_connection_ready (LbStoreListener *listener, GIOStream *stream, LbStoreConn *conn,
                     GSocketAddress *remote, gpointer user_data)
{
  LbStoreServer *self = user_data;
  g_autoptr(GSocketAddress) local = g_socket_get_local_address (lb_store_conn_get_socket (conn), NULL);

  if (local == NULL || self->stopped)
    return lb_store_conn_close (conn);
  /* Before libsoup sees it: its first request starts at once. */
  lb_store_conn_set_address (conn, remote);
  soup_server_accept_iostream (self->soup, stream, local, remote, NULL);
}

/*
 * libsoup keeps a connection open after an answer only while it has a listener of its own:
 * request_finished() in soup-server.c tests priv->listeners (libsoup 3.2 and upstream to this
 * day), so every connection given with soup_server_accept_iostream() would be closed after its
 * first answer. libsoup therefore gets a listener that never hears of a connection: one end
 * of a socket pair (libsoup takes connected sockets too) whose other end never writes.
 */
static gboolean
anchor_keepalive (LbStoreServer *self, GError **error)
{
  g_autoptr(GSocket) end = NULL;
  int fds[2];

  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    {
      int err = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (err), "socketpair: %s", g_strerror (err));
      return FALSE;
    }
  end = g_socket_new_from_fd (fds[0], error);
  if (end == NULL || !soup_server_listen_socket (self->soup, end, 0, error))
    {
      if (end == NULL)
        close (fds[0]);
      close (fds[1]);
      return FALSE;
    }
  self->anchor_peer = fds[1];
  return TRUE;
}

/*
 * lb_store_server_listen:
 * @address: (nullable): a literal IP address or "localhost"; NULL means 127.0.0.1
 * @port: 0 picks a free port
 *
 * Refuses a non-loopback address unless authentication is configured. Listens once.
 */
gboolean
lb_store_server_listen (LbStoreServer *self, const char *address, guint port, GError **error)
{
  g_autoptr(GInetAddress) inet = NULL;
  g_autoptr(GSocketAddress) sa = NULL;
  g_autofree char *host = NULL;
  GInetSocketAddress *bound;
  guint hello_s = LB_STORE_DEFAULT_TIMEOUT;
  guint handshake_s = LB_STORE_HANDSHAKE_TIMEOUT;

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
  if (self->listener != NULL || self->stopped)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT, "This server listens once");
      return FALSE;
    }
  /* The wait for a ClientHello costs no thread: the request head's time. A running handshake
   * may hold one of a few threads: less. */
  if (self->timeout_s > 0)
    {
      hello_s = self->timeout_s;
      handshake_s = MIN (handshake_s, self->timeout_s);
    }
  sa = g_inet_socket_address_new (inet, (guint16) port);
  self->listener = lb_store_listener_new (sa, self->tls_cert, self->max_connections, hello_s,
                                          handshake_s, on_connection_ready, self, error);
  if (self->listener == NULL)
    {
      g_prefix_error (error, "Cannot listen on %s port %u: ", address, port);
      return FALSE;
    }
  if (!anchor_keepalive (self, error))
    {
      g_prefix_error (error, "Cannot set up keep-alive: ");
      lb_store_listener_stop (self->listener);
      g_clear_object (&self->listener);
      return FALSE;
    }
  bound = G_INET_SOCKET_ADDRESS (lb_store_listener_get_address (self->listener));
  host = g_inet_address_to_string (g_inet_socket_address_get_address (bound));
  g_free (self->url);
  self->url = g_uri_join (G_URI_FLAGS_NONE, self->tls_cert != NULL ? "https" : "http", NULL, host,
                          g_inet_socket_address_get_port (bound), "/", NULL, NULL);
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
  /* The connections libsoup does not know of (TLS handshakes) or forgot (see lb-store-conn.c). */
  if (self->listener != NULL)
    lb_store_listener_stop (self->listener);
  if (self->anchor_peer >= 0)
    {
      close (self->anchor_peer);
      self->anchor_peer = -1;
    }
  g_hash_table_iter_init (&iter, self->temps);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_unlink (key);
  g_hash_table_remove_all (self->temps);
}
