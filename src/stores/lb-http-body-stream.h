/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <libsoup/soup.h>

G_BEGIN_DECLS

/**
 * LbHttpBodyStream:
 *
 * Wraps a response body so that nothing partial passes for complete: a body that ends before
 * its Content-Length, a chunked body whose connection closed before the last chunk, or a
 * connection that drops, fails the read with %LB_ERROR_TRUNCATED ("URL: truncated after N of
 * M bytes"); a body that does not match the digest the server gave (Content-Digest,
 * Repr-Digest, Digest: SHA-512, SHA-256 or MD5; Content-MD5) with %LB_ERROR_CORRUPT; a
 * timeout with %LB_ERROR_NETWORK. A content-coded body that decompresses to more than
 * LB_HTTP_MAX_EXPANSION times the bytes that came, past LB_HTTP_MAX_EXPANSION_FLOOR, fails with
 * %LB_ERROR_TOO_LARGE. Also reports progress (bytes read so far, Content-Length or -1) from the
 * thread that reads. Pollable when the wrapped stream is, so async reads stay on the caller's
 * main context (libsoup streams must not move to another thread).
 */
#define LB_TYPE_HTTP_BODY_STREAM (lb_http_body_stream_get_type ())
G_DECLARE_FINAL_TYPE (LbHttpBodyStream, lb_http_body_stream, LB, HTTP_BODY_STREAM, GFilterInputStream)

/* Decompression (gzip, deflate, br) may multiply the bytes that came by at most this much once
 * the body is past the floor. Text compresses 5-20 to 1 and images hardly at all; deflate
 * cannot exceed about 1032 to 1, so a larger ratio is a bomb in layers or in brotli, and a 1 MB
 * body that inflates to 1 GiB stops after some 70 MiB. */
#define LB_HTTP_MAX_EXPANSION 100u
#define LB_HTTP_MAX_EXPANSION_FLOOR (G_GINT64_CONSTANT (64) << 20)

/* @msg: the message whose response @base is (its headers and metrics are read); @socket:
 * (nullable): its connection's socket, looked at when a chunked body ends */
GInputStream *lb_http_body_stream_new          (GInputStream          *base,
                                                SoupMessage           *msg,
                                                GSocket               *socket);
void          lb_http_body_stream_set_progress (LbHttpBodyStream      *self,
                                                GFileProgressCallback  progress,
                                                gpointer               progress_data);
/* Content-Length of the body, or -1 (chunked, compressed, or no body expected). */
gint64        lb_http_body_stream_get_expected (LbHttpBodyStream      *self);

G_END_DECLS
