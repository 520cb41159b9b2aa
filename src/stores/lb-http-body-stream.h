/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <libsoup/soup.h>

G_BEGIN_DECLS

/**
 * LbHttpBodyStream:
 *
 * Wraps a response body so that nothing partial passes for complete: a body that ends
 * before its Content-Length, or a connection that drops, fails the read with
 * %LB_ERROR_TRUNCATED ("URL: truncated after N of M bytes"), a timeout with
 * %LB_ERROR_NETWORK. Also reports progress (bytes read so far, Content-Length or -1) from
 * the thread that reads. Pollable when the wrapped stream is, so async reads stay on the
 * caller's main context (libsoup streams must not move to another thread).
 */
#define LB_TYPE_HTTP_BODY_STREAM (lb_http_body_stream_get_type ())
G_DECLARE_FINAL_TYPE (LbHttpBodyStream, lb_http_body_stream, LB, HTTP_BODY_STREAM, GFilterInputStream)

GInputStream *lb_http_body_stream_new          (GInputStream          *base,
                                                SoupMessage           *msg,
                                                GFileProgressCallback  progress,
                                                gpointer               progress_data);
void          lb_http_body_stream_set_progress (LbHttpBodyStream      *self,
                                                GFileProgressCallback  progress,
                                                gpointer               progress_data);
/* Content-Length of the body, or -1 (chunked, compressed, or no body expected). */
gint64        lb_http_body_stream_get_expected (LbHttpBodyStream      *self);

G_END_DECLS
