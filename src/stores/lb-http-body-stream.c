/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-http-body-stream"

#include "lb-http-body-stream.h"

#include "lb-error.h"

struct _LbHttpBodyStream {
  GFilterInputStream     parent_instance;
  char                  *uri;       /* owned, for messages */
  gint64                 expected;  /* bytes, -1 unknown */
  gint64                 received;  /* bytes */
  GFileProgressCallback  progress;
  gpointer               progress_data;
};

static void pollable_iface_init (GPollableInputStreamInterface *iface);

G_DEFINE_TYPE_WITH_CODE (LbHttpBodyStream, lb_http_body_stream, G_TYPE_FILTER_INPUT_STREAM,
                         G_IMPLEMENT_INTERFACE (G_TYPE_POLLABLE_INPUT_STREAM, pollable_iface_init))

static void
lb_http_body_stream_finalize (GObject *object)
{
  LbHttpBodyStream *self = LB_HTTP_BODY_STREAM (object);

  g_free (self->uri);
  G_OBJECT_CLASS (lb_http_body_stream_parent_class)->finalize (object);
}

/* Turns what the wrapped stream said into our verdict. @nread: its return value. */
static gssize
account (LbHttpBodyStream *self, gssize nread, GError **error)
{
  if (nread < 0)
    {
      GError *inner = error != NULL ? *error : NULL;

      if (inner == NULL || g_error_matches (inner, G_IO_ERROR, G_IO_ERROR_CANCELLED)
          || g_error_matches (inner, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
        return nread;
      if (g_error_matches (inner, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
        {
          GError *mapped = g_error_new (LB_ERROR, LB_ERROR_NETWORK,
                                        "%s: timed out after %" G_GINT64_FORMAT " bytes of the body",
                                        self->uri, self->received);
          g_error_free (inner);
          *error = mapped;
          return -1;
        }
      {
        GError *mapped;

        if (self->expected >= 0)
          mapped = g_error_new (LB_ERROR, LB_ERROR_TRUNCATED,
                                "%s: truncated after %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT
                                " bytes (%s)", self->uri, self->received, self->expected,
                                inner->message);
        else
          mapped = g_error_new (LB_ERROR, LB_ERROR_TRUNCATED,
                                "%s: truncated after %" G_GINT64_FORMAT " bytes (%s)",
                                self->uri, self->received, inner->message);
        g_error_free (inner);
        *error = mapped;
      }
      return -1;
    }
  if (nread == 0 && self->expected >= 0 && self->received < self->expected)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_TRUNCATED,
                   "%s: truncated after %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " bytes",
                   self->uri, self->received, self->expected);
      return -1;
    }
  self->received += nread;
  if (self->expected >= 0 && self->received > self->expected)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "%s: body longer than its Content-Length (%" G_GINT64_FORMAT " bytes)",
                   self->uri, self->expected);
      return -1;
    }
  if (nread > 0 && self->progress != NULL)
    self->progress (self->received, self->expected, self->progress_data);
  return nread;
}

/* Once the last byte of a Content-Length body has been handed out, read its end from libsoup
 * right away (no I/O: the length is exhausted). libsoup 3.2 drops the connection of a response
 * stream that is closed before its end, and callers that read exactly the announced length and
 * close would otherwise cost the next request a new TCP connection. */
static void
consume_end (LbHttpBodyStream *self, GInputStream *base, gssize nread)
{
  guint8 probe;

  if (nread <= 0 || self->expected < 0 || self->received != self->expected
      || !G_IS_POLLABLE_INPUT_STREAM (base)
      || !g_pollable_input_stream_can_poll (G_POLLABLE_INPUT_STREAM (base)))
    return;
  g_pollable_input_stream_read_nonblocking (G_POLLABLE_INPUT_STREAM (base), &probe, 1, NULL, NULL);
}

/* The end of every read of @base that returned @nread (@local set if it failed): our verdict
 * (account()), its error in @error, and the body's end read once it is due (consume_end()). */
static gssize
finish_read (LbHttpBodyStream *self, GInputStream *base, gssize nread, GError *local,
             GError **error)
{
  nread = account (self, nread, &local);
  if (nread < 0)
    g_propagate_error (error, local);
  consume_end (self, base, nread);
  return nread;
}

static gssize
lb_http_body_stream_read (GInputStream *stream, void *buffer, gsize count,
                          GCancellable *cancellable, GError **error)
{
  LbHttpBodyStream *self = LB_HTTP_BODY_STREAM (stream);
  GInputStream *base = g_filter_input_stream_get_base_stream (G_FILTER_INPUT_STREAM (stream));
  GError *local = NULL;
  gssize n = g_input_stream_read (base, buffer, count, cancellable, &local);

  return finish_read (self, base, n, local, error);
}

static void
lb_http_body_stream_class_init (LbHttpBodyStreamClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GInputStreamClass *stream_class = G_INPUT_STREAM_CLASS (klass);

  object_class->finalize = lb_http_body_stream_finalize;
  stream_class->read_fn = lb_http_body_stream_read;
}

static void
lb_http_body_stream_init (LbHttpBodyStream *self)
{
  self->expected = -1;
}

static gboolean
pollable_can_poll (GPollableInputStream *stream)
{
  GInputStream *base = g_filter_input_stream_get_base_stream (G_FILTER_INPUT_STREAM (stream));

  return G_IS_POLLABLE_INPUT_STREAM (base)
         && g_pollable_input_stream_can_poll (G_POLLABLE_INPUT_STREAM (base));
}

static gboolean
pollable_is_readable (GPollableInputStream *stream)
{
  GInputStream *base = g_filter_input_stream_get_base_stream (G_FILTER_INPUT_STREAM (stream));

  return g_pollable_input_stream_is_readable (G_POLLABLE_INPUT_STREAM (base));
}

static GSource *
pollable_create_source (GPollableInputStream *stream, GCancellable *cancellable)
{
  GInputStream *base = g_filter_input_stream_get_base_stream (G_FILTER_INPUT_STREAM (stream));
  GSource *base_source = g_pollable_input_stream_create_source (G_POLLABLE_INPUT_STREAM (base),
                                                                cancellable);
  GSource *source = g_pollable_source_new_full (stream, base_source, cancellable);

  g_source_unref (base_source);
  return source;
}

static gssize
pollable_read_nonblocking (GPollableInputStream *stream, void *buffer, gsize count,
                           GError **error)
{
  LbHttpBodyStream *self = LB_HTTP_BODY_STREAM (stream);
  GInputStream *base = g_filter_input_stream_get_base_stream (G_FILTER_INPUT_STREAM (stream));
  GError *local = NULL;
  gssize n = g_pollable_input_stream_read_nonblocking (G_POLLABLE_INPUT_STREAM (base), buffer,
                                                       count, NULL, &local);

  return finish_read (self, base, n, local, error);
}

static void
pollable_iface_init (GPollableInputStreamInterface *iface)
{
  iface->can_poll = pollable_can_poll;
  iface->is_readable = pollable_is_readable;
  iface->create_source = pollable_create_source;
  iface->read_nonblocking = pollable_read_nonblocking;
}

GInputStream *
lb_http_body_stream_new (GInputStream *base, SoupMessage *msg, GFileProgressCallback progress,
                         gpointer progress_data)
{
  LbHttpBodyStream *self = g_object_new (LB_TYPE_HTTP_BODY_STREAM, "base-stream", base, NULL);
  SoupMessageHeaders *headers = soup_message_get_response_headers (msg);
  const char *encoding = soup_message_headers_get_one (headers, "Content-Encoding");
  guint status = soup_message_get_status (msg);

  self->uri = g_uri_to_string_partial (soup_message_get_uri (msg),
                                       G_URI_HIDE_USERINFO | G_URI_HIDE_AUTH_PARAMS);
  /* Content-Length counts encoded bytes; libsoup hands us decoded ones if it decompressed. */
  if (soup_message_headers_get_encoding (headers) == SOUP_ENCODING_CONTENT_LENGTH
      && !g_str_equal (soup_message_get_method (msg), "HEAD")
      && status != 204 && status != 304
      && (encoding == NULL || g_ascii_strcasecmp (encoding, "identity") == 0))
    self->expected = soup_message_headers_get_content_length (headers);
  self->progress = progress;
  self->progress_data = progress_data;
  return G_INPUT_STREAM (self);
}

void
lb_http_body_stream_set_progress (LbHttpBodyStream *self, GFileProgressCallback progress,
                                  gpointer progress_data)
{
  g_return_if_fail (LB_IS_HTTP_BODY_STREAM (self));
  self->progress = progress;
  self->progress_data = progress_data;
}

gint64
lb_http_body_stream_get_expected (LbHttpBodyStream *self)
{
  g_return_val_if_fail (LB_IS_HTTP_BODY_STREAM (self), -1);
  return self->expected;
}
