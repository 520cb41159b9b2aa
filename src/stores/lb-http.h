/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <libsoup/soup.h>

#include "lb-store.h"

G_BEGIN_DECLS

/**
 * SECTION:lb-http
 *
 * HTTP plumbing shared by the HTTP-based backends (listing/WebDAV, DICOMweb): one
 * #SoupSession per store configured from #LbStoreOptions (timeouts, TLS trust, user agent,
 * credentials), status → %LB_ERROR mapping, and sending with bounded, cancellable retries.
 * Everything runs on the thread-default main context the session was created on.
 */

/* A session configured from @options: I/O timeout, user agent, TLS trust (system CAs plus
 * options->ca_file, or exactly options->pinned_cert_file), no automatic cookies. */
SoupSession *lb_http_session_new          (LbStoreOptions  *options,
                                           GError         **error);
/* The same with at most @max_conns_per_host connections to one server (0: libsoup's 2). */
SoupSession *lb_http_session_new_full     (LbStoreOptions  *options,
                                           guint            max_conns_per_host,
                                           GError         **error);

/**
 * lb_http_message_new:
 *
 * A message with Lightbox's defaults: Authorization from options (bearer token, or Basic
 * from static username/password is left to libsoup's auth manager), certificate pinning,
 * the credentials callback hooked to SoupMessage::authenticate. @uri must be absolute.
 * Redirects are followed only for the safe methods (lb_http_method_is_idempotent()): libsoup
 * would turn an unsafe request into a GET without its body; the 3xx is the answer instead.
 */
SoupMessage *lb_http_message_new          (const char      *method,
                                           const char      *uri,
                                           LbStoreOptions  *options,
                                           GError         **error);

/**
 * lb_http_message_set_body:
 *
 * Sets @msg's request body so that every attempt sends all of it: libsoup forgets a body when
 * it restarts a message (a 401 or 407 challenge, a redirect, a keep-alive connection closed
 * before the answer) and a retry of lb_http_send_async() would send what is left of a consumed
 * stream. Use this instead of soup_message_set_request_body*() for every message sent here.
 */
void         lb_http_message_set_body     (SoupMessage     *msg,
                                           const char      *content_type,
                                           GBytes          *bytes);
/* The same for @size bytes (-1: to its end, chunked) of @stream from where it is now, sent
 * again from there if @stream can seek (g_seekable_can_seek()); one that cannot is sent once,
 * and an attempt that needs it again fails with %LB_ERROR_FAILED (never an empty body). */
void         lb_http_message_set_body_stream (SoupMessage  *msg,
                                              const char   *content_type,
                                              GInputStream *stream,
                                              gint64        size);

/**
 * lb_http_set_error_from_status:
 *
 * Maps a final HTTP status to %LB_ERROR: 401/403 → PERMISSION, 404/410 → NOT_FOUND,
 * 409/412 → CONFLICT, 413/507 → TOO_LARGE, 415 → UNSUPPORTED, anything else ≥ 300 → HTTP.
 * The message names the method, the URL, the status and the reason phrase, e.g.
 * "PUT http://…/a.png: 412 Precondition Failed". Returns FALSE (and sets @error) for
 * failures, TRUE for 2xx.
 */
gboolean     lb_http_check_status         (SoupMessage     *msg,
                                           GError         **error);

/* Maps a transport error (GIO, GTlsError, SoupSessionError) to %LB_ERROR_NETWORK with the
 * URL in the message; cancellation stays G_IO_ERROR_CANCELLED. Takes ownership of @error. */
GError      *lb_http_map_transport_error  (SoupMessage     *msg,
                                           GError          *error);

/* Maps an error reading a response body to %LB_ERROR_NETWORK with @uri in the message; errors
 * already in %LB_ERROR (truncation) and cancellation pass as they are. Takes ownership. */
GError      *lb_http_map_read_error       (const char      *uri,
                                           GError          *error);

/* TRUE for idempotent methods that lb_http_send_async() may retry. */
gboolean     lb_http_method_is_idempotent (const char      *method);

/**
 * lb_http_send_async:
 * @max_retries: retries after transport errors or 502/503/504 (idempotent methods only;
 *   others are sent once); backoff 250 ms × 2^n, capped at 4 s, cancellable
 * @rebuild: (nullable): for retries of a message with a body, or any message: returns a
 *   fresh copy of the request (libsoup cannot resend a consumed body); NULL resends @msg
 *
 * Sends @msg and completes once response headers are in. Finish returns the body stream
 * (wrapped so that a body shorter than Content-Length fails with %LB_ERROR_TRUNCATED) and
 * the message that produced the final response (which differs from @msg after a rebuild).
 * The status is NOT checked: call lb_http_check_status() on the returned message.
 */
typedef SoupMessage *(*LbHttpRebuildFunc) (SoupMessage *previous,
                                           gpointer     user_data);

void          lb_http_send_async  (SoupSession         *session,
                                   SoupMessage         *msg,
                                   guint                max_retries,
                                   LbHttpRebuildFunc    rebuild,
                                   gpointer             rebuild_data,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data);
GInputStream *lb_http_send_finish (SoupSession         *session,
                                   GAsyncResult        *result,
                                   SoupMessage        **out_msg,
                                   GError             **error);

/**
 * lb_http_read_all_async:
 * @max_bytes: fail with %LB_ERROR_TOO_LARGE past this many bytes (0, or more than 2 GiB:
 *   2 GiB, the most a GByteArray can grow to without asking for 4 GiB)
 *
 * Reads @stream to its end into a GBytes, reporting progress (total = @total or -1).
 * Truncation and transport errors carry @uri.
 */
void     lb_http_read_all_async  (GInputStream          *stream,
                                  const char            *uri,
                                  gint64                 total,
                                  guint64                max_bytes,
                                  GCancellable          *cancellable,
                                  GFileProgressCallback  progress,
                                  gpointer               progress_data,
                                  GAsyncReadyCallback    callback,
                                  gpointer               user_data);
GBytes  *lb_http_read_all_finish (GInputStream          *stream,
                                  GAsyncResult          *result,
                                  GError               **error);

/**
 * lb_http_request_async:
 * @max_retries: as for lb_http_send_async() (only idempotent methods are retried)
 * @max_bytes: fail with %LB_ERROR_TOO_LARGE past this many bytes of body (0 = no cap)
 *
 * Sends @msg (lb_http_send_async(), no rebuild) and reads the whole response body
 * (lb_http_read_all_async(), with progress against Content-Length when the response has
 * one). Finish returns the body and the message that produced the final response. The
 * status is NOT checked: the caller decides, since an error answer may carry a body worth
 * reading (STOW-RS failures list their reasons in it). Transport and truncation errors, and
 * a body over @max_bytes, carry the request URL (without userinfo).
 */
void    lb_http_request_async  (SoupSession *session, SoupMessage *msg, guint max_retries,
                                guint64 max_bytes, GCancellable *cancellable,
                                GFileProgressCallback progress, gpointer progress_data,
                                GAsyncReadyCallback callback, gpointer user_data);
/* @out_msg: (out) (optional) (transfer full): the message that got the final response */
GBytes *lb_http_request_finish (SoupSession *session, GAsyncResult *result,
                                SoupMessage **out_msg, GError **error);

/**
 * lb_http_drain_async:
 *
 * Reads what is left of a response body (up to 64 KiB, discarded) and closes @stream. libsoup
 * 3.2 drops the connection when a response stream is closed before its end, so a PUT or MKCOL
 * answered with an empty body would otherwise cost the next request a new TCP connection.
 * Finishes TRUE when the body ended (the connection can be reused); FALSE when it was longer,
 * the read failed or @cancellable fired (the stream is closed either way and the connection
 * dropped, which is harmless: the answer was already complete). Never an error.
 */
void     lb_http_drain_async     (GInputStream          *stream,
                                  GCancellable          *cancellable,
                                  GAsyncReadyCallback    callback,
                                  gpointer               user_data);
gboolean lb_http_drain_finish    (GInputStream          *stream,
                                  GAsyncResult          *result);

/**
 * lb_http_entry_from_headers:
 *
 * An entry for @uri filled from response headers: Content-Length (size), ETag,
 * Last-Modified (mtime), Content-Type (without parameters); kind guessed from the name and
 * type.
 */
LbStoreEntry *lb_http_entry_from_headers (const char         *uri,
                                          SoupMessageHeaders *headers);

/* Parses RFC 1123 / RFC 850 / asctime HTTP dates and ISO 8601 (Orthanc's getlastmodified).
 * Returns NULL if neither matches. */
GDateTime    *lb_http_parse_date         (const char *text);

G_END_DECLS
