/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-http"

#include "config.h"

#include "lb-http.h"
#include "lb-http-body.h"

#include <string.h>

#include "lb-error.h"
#include "lb-http-body-stream.h"
#include "lb-store-private.h"

#define OPTIONS_KEY "lb-http-options"
#define AUTH_ATTEMPTS_KEY "lb-http-auth-attempts"
#define PENDING_TOKEN_KEY "lb-http-pending-token"
#define SESSION_TOKEN_KEY "lb-http-bearer-token"
/* Answers to a credentials callback before we give up on a message: a user who mistypes a
 * password gets a few tries, a callback that always returns the same wrong answer does not
 * loop forever. */
#define MAX_AUTH_ATTEMPTS 3

/* ---- session and messages ----------------------------------------------------------------- */

SoupSession *
lb_http_session_new (LbStoreOptions *options, GError **error)
{
  return lb_http_session_new_full (options, 0, error);
}

SoupSession *
lb_http_session_new_full (LbStoreOptions *options, guint max_conns_per_host, GError **error)
{
  g_autofree char *ua = NULL;
  guint timeout_s = options != NULL && options->timeout_s > 0 ? options->timeout_s
                                                              : LB_STORE_DEFAULT_TIMEOUT_S;

  if (options != NULL && options->pinned_cert_file != NULL)
    {
      g_autoptr(GTlsCertificate) cert = g_tls_certificate_new_from_file (options->pinned_cert_file, error);
      if (cert == NULL)
        {
          g_prefix_error (error, "pinned certificate %s: ", options->pinned_cert_file);
          return NULL;
        }
    }
  if (options != NULL && options->ca_file != NULL)
    {
      g_autoptr(GTlsDatabase) db = g_tls_file_database_new (options->ca_file, error);
      if (db == NULL)
        {
          g_prefix_error (error, "CA file %s: ", options->ca_file);
          return NULL;
        }
    }
  ua = g_strdup_printf ("Lightbox/%s", PACKAGE_VERSION);
  return soup_session_new_with_options ("max-conns-per-host",
                                        max_conns_per_host ? max_conns_per_host : 2u,
                                        "timeout", timeout_s,
                                        "idle-timeout", 60u,
                                        "user-agent",
                                        options != NULL && options->user_agent != NULL
                                          ? options->user_agent : ua,
                                        NULL);
}

static gboolean
on_accept_certificate (SoupMessage *msg, GTlsCertificate *cert, GTlsCertificateFlags errors,
                       LbStoreOptions *options)
{
  GUri *uri = soup_message_get_uri (msg);

  if (options->pinned_cert_file != NULL)
    {
      g_autoptr(GTlsCertificate) pinned =
        g_tls_certificate_new_from_file (options->pinned_cert_file, NULL);
      return pinned != NULL && g_tls_certificate_is_same (pinned, cert);
    }
  if (options->ca_file != NULL)
    {
      g_autoptr(GTlsDatabase) db = g_tls_file_database_new (options->ca_file, NULL);
      g_autoptr(GSocketConnectable) identity = NULL;
      GTlsCertificateFlags flags;

      if (db == NULL)
        return FALSE;
      identity = g_network_address_new (g_uri_get_host (uri), g_uri_get_port (uri));
      flags = g_tls_database_verify_chain (db, cert, G_TLS_DATABASE_PURPOSE_AUTHENTICATE_SERVER,
                                           identity, NULL, G_TLS_DATABASE_VERIFY_NONE, NULL, NULL);
      return flags == 0;
    }
  return FALSE;
}

typedef struct {
  SoupMessage *msg;   /* owned */
  SoupAuth    *auth;  /* owned */
} AuthWait;

static void
auth_wait_free (gpointer data)
{
  AuthWait *wait = data;

  g_clear_object (&wait->msg);
  g_clear_object (&wait->auth);
  g_free (wait);
}

static void
on_credentials_answer (const char *username, const char *password, const char *token,
                       gpointer user_data)
{
  AuthWait *wait = user_data;

  if (username != NULL)
    soup_auth_authenticate (wait->auth, username, password != NULL ? password : "");
  else
    {
      /* a token for a Basic/Digest challenge: libsoup cannot send it, so the 401 comes
       * back and lb_http_send_async() retries with "Authorization: Bearer" */
      if (token != NULL)
        g_object_set_data_full (G_OBJECT (wait->msg), PENDING_TOKEN_KEY, g_strdup (token), g_free);
      soup_auth_cancel (wait->auth);
    }
}

static gboolean
on_authenticate (SoupMessage *msg, SoupAuth *auth, gboolean retrying, LbStoreOptions *options)
{
  guint attempts = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (msg), AUTH_ATTEMPTS_KEY));
  gboolean have_static = options->username != NULL;
  g_autofree char *uri = NULL;
  LbCredentialsRequest *request;
  AuthWait *wait;

  g_object_set_data (G_OBJECT (msg), AUTH_ATTEMPTS_KEY, GUINT_TO_POINTER (attempts + 1));
  if (have_static && attempts == 0)
    {
      soup_auth_authenticate (auth, options->username,
                              options->password != NULL ? options->password : "");
      return TRUE;
    }
  if (options->credentials_func == NULL || attempts >= MAX_AUTH_ATTEMPTS + (have_static ? 1 : 0))
    return FALSE; /* the 401 becomes the final answer → LB_ERROR_PERMISSION */

  uri = g_uri_to_string (soup_message_get_uri (msg));
  wait = g_new0 (AuthWait, 1);
  wait->msg = g_object_ref (msg);
  wait->auth = g_object_ref (auth);
  request = lb_credentials_request_new (soup_auth_get_scheme_name (auth), soup_auth_get_realm (auth),
                                        uri, retrying || attempts > 0, on_credentials_answer, wait,
                                        auth_wait_free);
  options->credentials_func (request, options->credentials_data);
  lb_credentials_request_unref (request);
  return TRUE;
}

/*
 * Keep-alive after 204 and 304 (libsoup 3.2): these responses have no body by definition
 * (RFC 9112 §6.3 rule 1) and libsoup reads none, but its keep-alive test looks at the headers
 * alone, finds neither Content-Length nor Transfer-Encoding, takes the response for one
 * delimited by end-of-file and drops the connection. Every PUT that replaced a file (204) then
 * cost a new TCP connection (lightbox-bench net: a small GET + PUT If-Match took 1.8-7 ms on
 * loopback, 0.9-1.5 ms with the connection kept; bench/README.md). Declaring the framing
 * libsoup already used keeps the connection.
 */
static void
on_got_headers_keepalive (SoupMessage *msg, gpointer user_data)
{
  guint status = soup_message_get_status (msg);

  if (status == SOUP_STATUS_NO_CONTENT || status == SOUP_STATUS_NOT_MODIFIED)
    soup_message_headers_set_encoding (soup_message_get_response_headers (msg),
                                       SOUP_ENCODING_NONE);
}

SoupMessage *
lb_http_message_new (const char *method, const char *uri, LbStoreOptions *options, GError **error)
{
  SoupMessage *msg;

  g_return_val_if_fail (method != NULL && uri != NULL, NULL);
  msg = soup_message_new (method, uri);
  if (msg == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT, "%s: not a valid http(s) URL", uri);
      return NULL;
    }
  g_signal_connect (msg, "got-headers", G_CALLBACK (on_got_headers_keepalive), NULL);
  /* the bytes of the body off the network, against which decompression is measured
   * (lb-http-body-stream.c) */
  soup_message_add_flags (msg, SOUP_MESSAGE_COLLECT_METRICS);
  /* libsoup follows a 302 or 303 (a 301 after POST) to an unsafe request by sending a GET
   * without the body (RFC 9110 §15.4.3, §15.4.4 allow it): a PUT, POST, MKCOL or DELETE would
   * then "succeed" with the answer to a GET. Such a redirect is an answer of its own. (The
   * methods lb_http_method_is_idempotent() names are the safe ones, which keep theirs.) */
  if (!lb_http_method_is_idempotent (method))
    soup_message_add_flags (msg, SOUP_MESSAGE_NO_REDIRECT);
  if (options == NULL)
    return msg;

  g_object_set_data_full (G_OBJECT (msg), OPTIONS_KEY, lb_store_options_ref (options),
                          (GDestroyNotify) lb_store_options_unref);
  if (options->token != NULL)
    {
      g_autofree char *value = g_strdup_printf ("Bearer %s", options->token);
      soup_message_headers_replace (soup_message_get_request_headers (msg), "Authorization", value);
    }
  g_signal_connect (msg, "authenticate", G_CALLBACK (on_authenticate), options);
  if (options->pinned_cert_file != NULL || options->ca_file != NULL)
    g_signal_connect (msg, "accept-certificate", G_CALLBACK (on_accept_certificate), options);
  return msg;
}

/* ---- errors ------------------------------------------------------------------------------- */

static char *
message_uri (SoupMessage *msg)
{
  GUri *uri = soup_message_get_uri (msg);

  /* never print credentials that may be in the userinfo */
  return g_uri_to_string_partial (uri, G_URI_HIDE_USERINFO | G_URI_HIDE_AUTH_PARAMS);
}

gboolean
lb_http_check_status (SoupMessage *msg, GError **error)
{
  guint status = soup_message_get_status (msg);
  const char *reason = soup_message_get_reason_phrase (msg);
  g_autofree char *uri = NULL;
  LbError code;

  if (status >= 200 && status < 300)
    return TRUE;

  switch (status)
    {
    case 401: case 403: code = LB_ERROR_PERMISSION; break;
    case 404: case 410: code = LB_ERROR_NOT_FOUND; break;
    case 409: case 412: code = LB_ERROR_CONFLICT; break;
    case 413: case 507: code = LB_ERROR_TOO_LARGE; break;
    case 415: code = LB_ERROR_UNSUPPORTED; break;
    default: code = LB_ERROR_HTTP; break;
    }
  uri = message_uri (msg);
  g_set_error (error, LB_ERROR, code, "%s %s: %u %s", soup_message_get_method (msg), uri, status,
               reason != NULL && *reason != '\0' ? reason : soup_status_get_phrase (status));
  return FALSE;
}

GError *
lb_http_map_transport_error (SoupMessage *msg, GError *error)
{
  g_autofree char *uri = message_uri (msg);
  GError *mapped;
  const char *what;

  if (_lb_http_request_body_spent (msg)
      && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      mapped = g_error_new (LB_ERROR, LB_ERROR_FAILED,
                            "%s %s: the server asked for the body again (an authentication "
                            "challenge or a closed connection), and its source cannot be read "
                            "twice: nothing was sent in its place", soup_message_get_method (msg),
                            uri);
      g_error_free (error);
      return mapped;
    }

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || error->domain == LB_ERROR)
    {
      if (error->domain == LB_ERROR && strstr (error->message, uri) == NULL)
        g_prefix_error (&error, "%s: ", uri);
      return error;
    }
  if (error->domain == G_TLS_ERROR)
    what = "TLS failure (certificate not trusted or handshake failed)";
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
    what = "timed out";
  else if (g_error_matches (error, SOUP_SESSION_ERROR, SOUP_SESSION_ERROR_TOO_MANY_REDIRECTS))
    what = "redirect loop";
  else if (g_error_matches (error, G_RESOLVER_ERROR, G_RESOLVER_ERROR_NOT_FOUND)
           || g_error_matches (error, G_RESOLVER_ERROR, G_RESOLVER_ERROR_TEMPORARY_FAILURE))
    what = "host not found";
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED))
    what = "connection refused";
  else
    what = "network error";
  mapped = g_error_new (LB_ERROR, LB_ERROR_NETWORK, "%s %s: %s: %s", soup_message_get_method (msg),
                        uri, what, error->message);
  g_error_free (error);
  return mapped;
}

GError *
lb_http_map_read_error (const char *uri, GError *error)
{
  GError *mapped;

  if (error->domain == LB_ERROR || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return error;
  mapped = g_error_new (LB_ERROR, LB_ERROR_NETWORK, "%s: %s", uri, error->message);
  g_error_free (error);
  return mapped;
}

gboolean
lb_http_method_is_idempotent (const char *method)
{
  return g_str_equal (method, "GET") || g_str_equal (method, "HEAD")
         || g_str_equal (method, "PROPFIND") || g_str_equal (method, "OPTIONS");
}

/* ---- connections -------------------------------------------------------------------------- */

#define SOCKETS_KEY "lb-http-sockets"

/* Which socket a message's answer came on: a session's connection ids (soup_message_get_
 * connection_id(), unique in a session) → GSocket, learnt when each connection is made, held
 * weakly. A chunked body is judged by its connection when it ends (lb-http-body-stream.c). */
typedef struct {
  GHashTable *sockets;  /* owned (ref) */
  guint64     id;
} SocketEntry;

static void
forget_socket (gpointer data, GObject *where_the_socket_was)
{
  SocketEntry *entry = data;

  g_hash_table_remove (entry->sockets, &entry->id);
  g_hash_table_unref (entry->sockets);
  g_free (entry);
}

static void
on_network_event (SoupMessage *msg, GSocketClientEvent event, GIOStream *connection,
                  gpointer user_data)
{
  SoupSession *session = user_data;
  GHashTable *sockets = g_object_get_data (G_OBJECT (session), SOCKETS_KEY);
  SocketEntry *entry;
  GSocket *socket;

  /* CONNECTED: the TCP connection, before any TLS on it */
  if (event != G_SOCKET_CLIENT_CONNECTED || !G_IS_SOCKET_CONNECTION (connection))
    return;
  if (sockets == NULL)
    {
      sockets = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, NULL);
      g_object_set_data_full (G_OBJECT (session), SOCKETS_KEY, sockets,
                              (GDestroyNotify) g_hash_table_unref);
    }
  socket = g_socket_connection_get_socket (G_SOCKET_CONNECTION (connection));
  entry = g_new (SocketEntry, 1);
  entry->sockets = g_hash_table_ref (sockets);
  entry->id = soup_message_get_connection_id (msg);
  g_hash_table_replace (sockets, &entry->id, socket);
  g_object_weak_ref (G_OBJECT (socket), forget_socket, entry);
}

/* The socket of the connection @msg's answer came on, or NULL if unknown. */
static GSocket *
message_socket (SoupSession *session, SoupMessage *msg)
{
  GHashTable *sockets = g_object_get_data (G_OBJECT (session), SOCKETS_KEY);
  guint64 id = soup_message_get_connection_id (msg);

  return sockets != NULL ? g_hash_table_lookup (sockets, &id) : NULL;
}

/* ---- send with retries -------------------------------------------------------------------- */

/*
 * Cancellation and libsoup 3.3.1 to 3.6.5 (Debian 13 ships 3.6.5). If the cancellable given to
 * soup_session_send_async() fires after the response headers were read but before libsoup's
 * own callback for them has run, libsoup finishes its queue item twice (run_until_read_done():
 * soup_message_io_finished() has already finished and unqueued it, and it is finished again),
 * dropping one reference too many: soup_session_send_finish() then reads the freed item.
 * Fixed upstream by "fix 'heap-use-after-free' caused by 'finishing' queue item twice" (libsoup
 * commit 9ba1243a; 794e089a in 3.6.6).
 *
 * So libsoup gets a cancellable of its own for each attempt, and the caller's cancellation is
 * passed on only while no response headers are in (the status is SOUP_STATUS_NONE: the request
 * is being connected, sent or waited for). A cancellation that comes later is acted on by
 * on_send_done(), which closes the body and reports it; and when libsoup restarts the message
 * (a 401 challenge answered: the status is NONE again) the watch is set up once more, so a
 * cancellation that came while the challenge was being answered stops the new attempt too.
 */
typedef struct {
  SoupSession       *session;  /* owned */
  SoupMessage       *msg;      /* owned */
  GCancellable      *soup_cancellable; /* owned, nullable: libsoup's, for this attempt */
  GSource           *cancel_watch;     /* owned, nullable: on the caller's cancellable */
  gulong             restarted_id;     /* on @msg: watch again after a restart */
  gulong             network_id;       /* on @msg: learn its connections' sockets */
  GInputStream      *held;     /* owned, nullable: a 401 body kept while asking for a token */
  guint              bearer_attempts;
  LbHttpRebuildFunc  rebuild;
  gpointer           rebuild_data;
  guint              retries_left;
  guint              attempt;
  GSource           *sleep;    /* owned, nullable */
  /* lb_http_request_async(): the task returns the whole body instead of the stream */
  gboolean               read_body;
  char                  *uri;            /* owned: the request URL without userinfo */
  guint64                max_bytes;
  GFileProgressCallback  progress;
  gpointer               progress_data;
} SendData;

static void
send_data_free (gpointer data)
{
  SendData *d = data;

  if (d->sleep != NULL)
    {
      g_source_destroy (d->sleep);
      g_source_unref (d->sleep);
    }
  if (d->cancel_watch != NULL)
    {
      g_source_destroy (d->cancel_watch);
      g_source_unref (d->cancel_watch);
    }
  g_clear_object (&d->soup_cancellable);
  g_clear_signal_handler (&d->restarted_id, d->msg);
  g_clear_signal_handler (&d->network_id, d->msg);
  g_clear_object (&d->session);
  g_clear_object (&d->msg);
  g_clear_object (&d->held);
  g_free (d->uri);
  g_free (d);
}

static void send_attempt (GTask *task);
static void return_response (GTask *task, GInputStream *stream);
static gboolean try_bearer (GTask *task, GInputStream *stream);

static gboolean
retry_after_sleep (gpointer user_data)
{
  GTask *task = user_data;
  SendData *d = g_task_get_task_data (task);

  g_clear_pointer (&d->sleep, g_source_unref);
  if (g_task_return_error_if_cancelled (task))
    {
      g_object_unref (task);
      return G_SOURCE_REMOVE;
    }
  if (d->rebuild != NULL)
    {
      SoupMessage *fresh = d->rebuild (d->msg, d->rebuild_data);

      g_clear_signal_handler (&d->restarted_id, d->msg);
      g_clear_signal_handler (&d->network_id, d->msg);
      g_object_unref (d->msg);
      d->msg = fresh;
    }
  send_attempt (task); /* keeps the reference */
  return G_SOURCE_REMOVE;
}

/* Exponential backoff: 250 ms × 2^n, capped at 4 s. */
static void
schedule_retry (GTask *task)
{
  SendData *d = g_task_get_task_data (task);
  guint delay_ms = MIN (250u << MIN (d->attempt, 4u), 4000u);
  GCancellable *cancellable = g_task_get_cancellable (task);
  GSource *timeout = g_timeout_source_new (delay_ms);

  d->retries_left--;
  d->attempt++;
  if (cancellable != NULL)
    {
      /* wake up as soon as the caller cancels instead of sleeping the whole backoff */
      GSource *cancel_source = g_cancellable_source_new (cancellable);
      g_source_set_dummy_callback (cancel_source);
      g_source_add_child_source (timeout, cancel_source);
      g_source_unref (cancel_source);
    }
  g_source_set_callback (timeout, retry_after_sleep, task, NULL);
  g_source_attach (timeout, g_task_get_context (task));
  d->sleep = timeout;
}

static gboolean
is_retryable_transport_error (const GError *error)
{
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return FALSE;
  if (error->domain == G_TLS_ERROR)
    return FALSE; /* a bad certificate does not get better by asking again */
  if (error->domain == SOUP_SESSION_ERROR)
    return FALSE; /* redirect loops, unparsable responses */
  return TRUE;
}

static void
on_send_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  SendData *d = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(GInputStream) stream = soup_session_send_finish (d->session, result, &error);
  gboolean idempotent = lb_http_method_is_idempotent (soup_message_get_method (d->msg));

  if (stream != NULL && g_cancellable_is_cancelled (g_task_get_cancellable (task)))
    {
      /* cancelled once the headers were in (see SendData): closing the body before its end
       * makes libsoup drop the connection */
      g_input_stream_close (stream, NULL, NULL);
      g_task_return_error_if_cancelled (task);
      g_object_unref (task);
      return;
    }
  if (stream == NULL)
    {
      if (idempotent && d->retries_left > 0 && is_retryable_transport_error (error)
          && !g_cancellable_is_cancelled (g_task_get_cancellable (task)))
        {
          g_debug ("retrying %s after: %s", soup_message_get_method (d->msg), error->message);
          g_error_free (error);
          schedule_retry (task);
          return;
        }
      g_task_return_error (task, lb_http_map_transport_error (d->msg, error));
      g_object_unref (task);
      return;
    }

  {
    guint status = soup_message_get_status (d->msg);

    if ((status == 502 || status == 503 || status == 504) && idempotent && d->retries_left > 0)
      {
        g_input_stream_close (stream, NULL, NULL);
        schedule_retry (task);
        return;
      }
  }
  if (soup_message_get_status (d->msg) == 401 && try_bearer (task, stream))
    return;
  return_response (task, g_steal_pointer (&stream));
}

static void
set_bearer (SoupMessage *msg, const char *token)
{
  g_autofree char *value = g_strdup_printf ("Bearer %s", token);

  soup_message_headers_replace (soup_message_get_request_headers (msg), "Authorization", value);
}

static void
on_bearer_answer (const char *username, const char *password, const char *token, gpointer user_data)
{
  GTask *task = user_data;
  SendData *d = g_task_get_task_data (task);

  if (token != NULL)
    {
      /* the whole store uses it from now on */
      g_object_set_data_full (G_OBJECT (d->session), SESSION_TOKEN_KEY, g_strdup (token), g_free);
      set_bearer (d->msg, token);
      g_clear_object (&d->held);
      send_attempt (task);
      return;
    }
  /* cancelled (a password is no answer to a Bearer challenge): the 401 stands */
  return_response (task, g_steal_pointer (&d->held));
}

/* After a 401: resend with a token the user gave for a Basic/Digest challenge, or ask the
 * credentials callback for a token when the server wants Bearer (libsoup has no Bearer
 * support). Only bodiless or byte-bodied requests can be resent, so only idempotent ones. */
static gboolean
try_bearer (GTask *task, GInputStream *stream)
{
  SendData *d = g_task_get_task_data (task);
  LbStoreOptions *options = g_object_get_data (G_OBJECT (d->msg), OPTIONS_KEY);
  const char *pending = g_object_get_data (G_OBJECT (d->msg), PENDING_TOKEN_KEY);
  const char *challenge = soup_message_headers_get_list (soup_message_get_response_headers (d->msg),
                                                         "WWW-Authenticate");
  g_autofree char *uri = NULL;
  g_autofree char *realm = NULL;
  LbCredentialsRequest *request;

  if (!lb_http_method_is_idempotent (soup_message_get_method (d->msg)) || d->bearer_attempts >= MAX_AUTH_ATTEMPTS)
    return FALSE;
  if (pending != NULL)
    {
      g_autofree char *token = g_strdup (pending);

      d->bearer_attempts++;
      g_object_set_data (G_OBJECT (d->msg), PENDING_TOKEN_KEY, NULL);
      g_object_set_data_full (G_OBJECT (d->session), SESSION_TOKEN_KEY, g_strdup (token), g_free);
      set_bearer (d->msg, token);
      g_input_stream_close (stream, NULL, NULL);
      send_attempt (task);
      return TRUE;
    }
  if (options == NULL || options->credentials_func == NULL || challenge == NULL
      || g_ascii_strncasecmp (challenge, "Bearer", 6) != 0)
    return FALSE;

  d->bearer_attempts++;
  {
    g_autoptr(GHashTable) params = soup_header_parse_param_list (challenge + 6);
    realm = g_strdup (g_hash_table_lookup (params, "realm"));
  }
  uri = g_uri_to_string_partial (soup_message_get_uri (d->msg), G_URI_HIDE_USERINFO);
  d->held = g_object_ref (stream);
  request = lb_credentials_request_new ("Bearer", realm, uri, d->bearer_attempts > 1,
                                        on_bearer_answer, task, NULL);
  options->credentials_func (request, options->credentials_data);
  lb_credentials_request_unref (request);
  return TRUE;
}

static void
on_request_body (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  SendData *d = g_task_get_task_data (task);
  GError *error = NULL;
  GBytes *body = lb_http_read_all_finish (G_INPUT_STREAM (source), result, &error);

  if (body != NULL)
    g_task_return_pointer (task, body, (GDestroyNotify) g_bytes_unref);
  else if (g_error_matches (error, LB_ERROR, LB_ERROR_TOO_LARGE))
    {
      /* a response, not any stream */
      g_task_return_new_error (task, LB_ERROR, LB_ERROR_TOO_LARGE,
                               "%s: response larger than %" G_GUINT64_FORMAT " bytes", d->uri,
                               d->max_bytes);
      g_error_free (error);
    }
  else
    g_task_return_error (task, error);
  g_object_unref (task);
}

/* Completes @task with the final response's body @stream (taking it and the task's reference):
 * as a stream that fails when the body is cut short, or read whole for lb_http_request_async(). */
static void
return_response (GTask *task, GInputStream *stream)
{
  SendData *d = g_task_get_task_data (task);
  g_autoptr(GInputStream) raw = stream;
  g_autoptr(GInputStream) body = lb_http_body_stream_new (raw, d->msg,
                                                          message_socket (d->session, d->msg));

  if (!d->read_body)
    {
      g_task_return_pointer (task, g_steal_pointer (&body), g_object_unref);
      g_object_unref (task);
      return;
    }
  lb_http_read_all_async (body, d->uri,
                          lb_http_body_stream_get_expected (LB_HTTP_BODY_STREAM (body)),
                          d->max_bytes, g_task_get_cancellable (task), d->progress,
                          d->progress_data, on_request_body, task);
}

/* The caller cancelled: passed on to libsoup only while no response headers are in (see
 * SendData). Runs in the task's context, whichever thread cancelled. */
static gboolean
on_caller_cancelled (GCancellable *cancellable, gpointer user_data)
{
  GTask *task = user_data;
  SendData *d = g_task_get_task_data (task);

  g_clear_pointer (&d->cancel_watch, g_source_unref);  /* G_SOURCE_REMOVE destroys it */
  if (d->soup_cancellable != NULL && soup_message_get_status (d->msg) == SOUP_STATUS_NONE)
    g_cancellable_cancel (d->soup_cancellable);
  return G_SOURCE_REMOVE;
}

/* Watches the caller's cancellable unless that is already done. */
static void
watch_cancellable (GTask *task)
{
  SendData *d = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);

  if (cancellable == NULL || d->cancel_watch != NULL)
    return;
  d->cancel_watch = g_cancellable_source_new (cancellable);
  g_source_set_callback (d->cancel_watch, G_SOURCE_FUNC (on_caller_cancelled), task, NULL);
  g_source_attach (d->cancel_watch, g_task_get_context (task));
}

/* libsoup restarts the message (the status is NONE again): a cancellation that came while it
 * answered a challenge now stops the new attempt (see SendData). */
static void
on_restarted_watch (SoupMessage *msg, gpointer user_data)
{
  watch_cancellable (user_data);
}

static void
send_attempt (GTask *task)
{
  SendData *d = g_task_get_task_data (task);
  const char *token = g_object_get_data (G_OBJECT (d->session), SESSION_TOKEN_KEY);

  if (g_task_return_error_if_cancelled (task))
    {
      g_object_unref (task);
      return;
    }
  if (d->restarted_id == 0)
    d->restarted_id = g_signal_connect (d->msg, "restarted", G_CALLBACK (on_restarted_watch), task);
  if (d->network_id == 0)
    d->network_id = g_signal_connect (d->msg, "network-event", G_CALLBACK (on_network_event),
                                      d->session);
  watch_cancellable (task);
  g_clear_object (&d->soup_cancellable);
  d->soup_cancellable = g_cancellable_new ();
  if (token != NULL
      && soup_message_headers_get_one (soup_message_get_request_headers (d->msg), "Authorization") == NULL)
    set_bearer (d->msg, token);
  _lb_http_request_body_rewind (d->msg);

  soup_session_send_async (d->session, d->msg, G_PRIORITY_DEFAULT, d->soup_cancellable,
                           on_send_done, task);
}

static GTask *
send_task_new (SoupSession *session, SoupMessage *msg, guint max_retries, gpointer tag,
               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = g_task_new (session, cancellable, callback, user_data);
  SendData *d = g_new0 (SendData, 1);

  g_task_set_source_tag (task, tag);
  d->session = g_object_ref (session);
  d->msg = g_object_ref (msg);
  d->retries_left = max_retries;
  g_task_set_task_data (task, d, send_data_free);
  return task;
}

void
lb_http_send_async (SoupSession *session, SoupMessage *msg, guint max_retries,
                    LbHttpRebuildFunc rebuild, gpointer rebuild_data, GCancellable *cancellable,
                    GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = send_task_new (session, msg, max_retries, lb_http_send_async, cancellable,
                               callback, user_data);
  SendData *d = g_task_get_task_data (task);

  d->rebuild = rebuild;
  d->rebuild_data = rebuild_data;
  send_attempt (task);
}

void
lb_http_request_async (SoupSession *session, SoupMessage *msg, guint max_retries,
                       guint64 max_bytes, GCancellable *cancellable,
                       GFileProgressCallback progress, gpointer progress_data,
                       GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = send_task_new (session, msg, max_retries, lb_http_request_async, cancellable,
                               callback, user_data);
  SendData *d = g_task_get_task_data (task);

  d->read_body = TRUE;
  d->uri = message_uri (msg);
  d->max_bytes = max_bytes;
  d->progress = progress;
  d->progress_data = progress_data;
  send_attempt (task);
}

/* The result of a send task, and in @out_msg the message that got the final response (NULL
 * for a task reported without one). */
static gpointer
propagate_with_msg (GTask *task, SoupMessage **out_msg, GError **error)
{
  SendData *d = g_task_get_task_data (task);

  if (out_msg != NULL)
    *out_msg = d != NULL && d->msg != NULL ? g_object_ref (d->msg) : NULL;
  return g_task_propagate_pointer (task, error);
}

GInputStream *
lb_http_send_finish (SoupSession *session, GAsyncResult *result, SoupMessage **out_msg,
                     GError **error)
{
  return propagate_with_msg (G_TASK (result), out_msg, error);
}

GBytes *
lb_http_request_finish (SoupSession *session, GAsyncResult *result, SoupMessage **out_msg,
                        GError **error)
{
  return propagate_with_msg (G_TASK (result), out_msg, error);
}
