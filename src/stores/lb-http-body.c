/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-http"

/* Request bodies of lb-http.h (lb_http_message_set_body() and _stream()): kept with their
 * message and handed to libsoup again for every attempt and every restart. */

#include "config.h"

#include "lb-http.h"
#include "lb-http-body.h"

#define BODY_KEY "lb-http-request-body"

/*
 * libsoup 3 forgets a request body whenever it restarts a message (soup_message_restarted():
 * after a 401 or 407 challenge, a redirect that keeps the method, or a keep-alive connection the
 * server closed before answering; PUT and DELETE count as idempotent there) and sends it again
 * with "Content-Length: 0" or no body at all; and a message sent again after a complete
 * exchange (lb_http_send_async()'s retries) would send what is left of a consumed stream. So the
 * body is kept here and set again before every attempt and on every restart.
 */
typedef struct {
  char         *method;       /* owned: the method the body belongs to */
  char         *content_type; /* owned, nullable */
  GBytes       *bytes;        /* owned, nullable */
  GInputStream *stream;       /* owned, nullable */
  gboolean      seekable;     /* @stream can be read again from @start */
  goffset       start;        /* where the body starts in @stream */
  gint64        size;         /* bytes of @stream to send, -1 unknown */
  gboolean      fresh;        /* set and not sent yet */
  gboolean      spent;        /* asked for again, but @stream could not be read again */
} RequestBody;

static void
request_body_free (gpointer data)
{
  RequestBody *body = data;

  g_free (body->method);
  g_free (body->content_type);
  g_clear_pointer (&body->bytes, g_bytes_unref);
  g_clear_object (&body->stream);
  g_free (body);
}

/* Hands @body to @msg from its first byte. */
static void
request_body_install (SoupMessage *msg, RequestBody *body)
{
  if (body->bytes != NULL)
    {
      soup_message_set_request_body_from_bytes (msg, body->content_type, body->bytes);
      return;
    }
  if (!body->seekable)
    {
      /* Sent as it is, once. Asked for again, it is closed first: libsoup then fails the
       * attempt when it reads it (lb_http_map_transport_error() says why), where an empty
       * body would have gone out under the announced Content-Length. */
      if (!body->fresh)
        {
          g_input_stream_close (body->stream, NULL, NULL);
          body->spent = TRUE;
        }
      soup_message_set_request_body (msg, body->content_type, body->stream, body->size);
      return;
    }
  {
    /* libsoup closes the stream it was given once the body is written: it gets a wrapper of
     * its own each time, which leaves @stream open. A failed seek leaves @stream where it was:
     * the server then gets fewer bytes than the Content-Length announces, and commits none. */
    g_autoptr(GInputStream) attempt = g_buffered_input_stream_new (body->stream);

    g_filter_input_stream_set_close_base_stream (G_FILTER_INPUT_STREAM (attempt), FALSE);
    if (!body->fresh)
      g_seekable_seek (G_SEEKABLE (body->stream), body->start, G_SEEK_SET, NULL, NULL);
    soup_message_set_request_body (msg, body->content_type, attempt, body->size);
  }
}

static void
on_restarted_resend_body (SoupMessage *msg, RequestBody *body)
{
  /* a redirect that turned the request into a GET dropped the body on purpose (only safe
   * methods are redirected, and they keep their method: lb_http_message_new()) */
  if (g_str_equal (soup_message_get_method (msg), body->method))
    {
      body->fresh = FALSE;
      request_body_install (msg, body);
    }
}

static void
request_body_attach (SoupMessage *msg, RequestBody *body)
{
  body->method = g_strdup (soup_message_get_method (msg));
  body->fresh = TRUE;
  request_body_install (msg, body);
  g_object_set_data_full (G_OBJECT (msg), BODY_KEY, body, request_body_free);
  g_signal_connect (msg, "restarted", G_CALLBACK (on_restarted_resend_body), body);
}

void
lb_http_message_set_body (SoupMessage *msg, const char *content_type, GBytes *bytes)
{
  RequestBody *body = g_new0 (RequestBody, 1);

  g_return_if_fail (SOUP_IS_MESSAGE (msg) && bytes != NULL);
  g_return_if_fail (g_object_get_data (G_OBJECT (msg), BODY_KEY) == NULL);
  body->content_type = g_strdup (content_type);
  body->bytes = g_bytes_ref (bytes);
  request_body_attach (msg, body);
}

void
lb_http_message_set_body_stream (SoupMessage *msg, const char *content_type, GInputStream *stream,
                                 gint64 size)
{
  RequestBody *body = g_new0 (RequestBody, 1);

  g_return_if_fail (SOUP_IS_MESSAGE (msg) && G_IS_INPUT_STREAM (stream));
  g_return_if_fail (g_object_get_data (G_OBJECT (msg), BODY_KEY) == NULL);
  body->content_type = g_strdup (content_type);
  body->stream = g_object_ref (stream);
  body->seekable = G_IS_SEEKABLE (stream) && g_seekable_can_seek (G_SEEKABLE (stream));
  body->start = body->seekable ? g_seekable_tell (G_SEEKABLE (stream)) : 0;
  body->size = size;
  request_body_attach (msg, body);
}

void
_lb_http_request_body_rewind (SoupMessage *msg)
{
  RequestBody *body = g_object_get_data (G_OBJECT (msg), BODY_KEY);

  if (body == NULL)
    return;
  if (!body->fresh)
    request_body_install (msg, body);
  body->fresh = FALSE;
}

gboolean
_lb_http_request_body_spent (SoupMessage *msg)
{
  RequestBody *body = g_object_get_data (G_OBJECT (msg), BODY_KEY);

  return body != NULL && body->spent;
}
