/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-http-body-stream"

#include "lb-http-body-stream.h"

#include <string.h>

#include "lb-error.h"

struct _LbHttpBodyStream {
  GFilterInputStream     parent_instance;
  SoupMessage           *msg;       /* owned: its metrics count the bytes off the network */
  GSocket               *socket;    /* owned, nullable: the connection's */
  char                  *uri;       /* owned, for messages */
  gint64                 expected;  /* bytes, -1 unknown */
  gint64                 encoded_length; /* Content-Length of a content-coded body, -1 */
  gint64                 received;  /* bytes (decoded) */
  gboolean               encoded;   /* a Content-Encoding libsoup decodes */
  gboolean               chunked;
  GChecksum             *digest;    /* owned, nullable: what the body must hash to */
  guint8                 digest_expected[64];
  gsize                  digest_len;
  const char            *digest_header;
  GError                *end_error; /* owned, nullable: the verdict on the end, once seen */
  gboolean               ended;
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

  g_clear_object (&self->msg);
  g_clear_object (&self->socket);
  g_clear_pointer (&self->digest, g_checksum_free);
  g_clear_error (&self->end_error);
  g_free (self->uri);
  G_OBJECT_CLASS (lb_http_body_stream_parent_class)->finalize (object);
}

/* ---- the end of a chunked body ------------------------------------------------------------ */

/*
 * libsoup before 3.6.5 ends a chunked body cleanly when the connection closes at a chunk
 * boundary, before the last chunk ("0\r\n\r\n"): half a file passes for all of it. Fixed
 * upstream by "[http1][chunked] Report an error in case of unexpected stream end" (libsoup
 * commit 1e32b5e1, in 3.6.5), which reports G_IO_ERROR_PARTIAL_INPUT instead.
 *
 * Older versions give no sign, so the connection itself is looked at when the body ends: a
 * server that sent the last chunk and keeps the connection alive has not closed it, while a
 * body cut short by a closed connection leaves the socket at end of file (libsoup only saw the
 * end because the socket reached it). A server that announced "Connection: close" closes
 * either way: that case cannot be told apart before 3.6.5 and is accepted.
 */
static gboolean
libsoup_reports_cut_chunks (void)
{
  guint major = soup_get_major_version (), minor = soup_get_minor_version ();

  return major > 3 || (major == 3 && (minor > 6 || (minor == 6 && soup_get_micro_version () >= 5)));
}

/* Whether the peer closed @socket (or it failed): peeks one byte without taking it. */
static gboolean
peer_closed (GSocket *socket)
{
  guint8 byte;
  GInputVector vector = { &byte, 1 };
  gint flags = G_SOCKET_MSG_PEEK;
  gboolean blocking = g_socket_get_blocking (socket);
  g_autoptr(GError) error = NULL;
  gssize n;

  if (g_socket_is_closed (socket))
    return TRUE;
  if (g_socket_condition_check (socket, G_IO_IN | G_IO_HUP | G_IO_ERR) == 0)
    return FALSE;
  g_socket_set_blocking (socket, FALSE);
  n = g_socket_receive_message (socket, NULL, &vector, 1, NULL, NULL, &flags, NULL, &error);
  g_socket_set_blocking (socket, blocking);
  if (n > 0 || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
    return FALSE;
  return TRUE;
}

/* ---- digests ------------------------------------------------------------------------------ */

typedef struct {
  const char    *name;   /* as RFC 9530 registers it; RFC 3230 spells it in capitals */
  GChecksumType  type;
  gsize          len;
} DigestAlgorithm;

/* strongest first */
static const DigestAlgorithm digest_algorithms[] = {
  { "sha-512", G_CHECKSUM_SHA512, 64 },
  { "sha-256", G_CHECKSUM_SHA256, 32 },
  { "md5", G_CHECKSUM_MD5, 16 },
};

/* Picks the strongest digest @value offers: "sha-256=:B64:, …" (RFC 9530 Content-Digest and
 * Repr-Digest, @sf), "SHA-256=B64, …" (RFC 3230 Digest), or the bare base64 MD5 of
 * Content-MD5 (@algorithm "md5"). */
static gboolean
pick_digest (LbHttpBodyStream *self, const char *header, const char *value, gboolean sf,
             const char *algorithm)
{
  g_auto(GStrv) items = algorithm != NULL ? g_strdupv ((char *[]) { (char *) value, NULL })
                                           : g_strsplit (value, ",", -1);

  for (guint a = 0; a < G_N_ELEMENTS (digest_algorithms); a++)
    for (guint i = 0; items[i] != NULL; i++)
      {
        g_autofree char *item = g_strstrip (g_strdup (items[i]));
        g_autofree guchar *raw = NULL;
        char *b64 = item;
        gsize len = 0;

        if (algorithm == NULL)
          {
            char *eq = strchr (item, '=');

            if (eq == NULL)
              continue;
            *eq = '\0';
            if (g_ascii_strcasecmp (g_strstrip (item), digest_algorithms[a].name) != 0)
              continue;
            b64 = g_strstrip (eq + 1);
            if (sf)
              {
                gsize n = strlen (b64);

                if (n < 2 || b64[0] != ':' || b64[n - 1] != ':')
                  continue;
                b64[n - 1] = '\0';
                b64++;
              }
          }
        else if (!g_str_equal (algorithm, digest_algorithms[a].name))
          continue;
        raw = g_base64_decode (b64, &len);
        if (len != digest_algorithms[a].len)
          continue;
        memcpy (self->digest_expected, raw, len);
        self->digest_len = len;
        self->digest = g_checksum_new (digest_algorithms[a].type);
        self->digest_header = header;
        return TRUE;
      }
  return FALSE;
}

/* A digest of the body as sent, when the server gives one: only for a whole body that libsoup
 * did not decode (the digests cover the bytes with their content coding). */
static void
find_digest (LbHttpBodyStream *self, SoupMessageHeaders *headers, guint status)
{
  const char *value;

  if (status != 200 || self->encoded)
    return;
  if ((value = soup_message_headers_get_list (headers, "Content-Digest")) != NULL
      && pick_digest (self, "Content-Digest", value, TRUE, NULL))
    return;
  if ((value = soup_message_headers_get_list (headers, "Repr-Digest")) != NULL
      && pick_digest (self, "Repr-Digest", value, TRUE, NULL))
    return;
  if ((value = soup_message_headers_get_list (headers, "Digest")) != NULL
      && pick_digest (self, "Digest", value, FALSE, NULL))
    return;
  if ((value = soup_message_headers_get_one (headers, "Content-MD5")) != NULL)
    pick_digest (self, "Content-MD5", value, FALSE, "md5");
}

/* ---- reading ------------------------------------------------------------------------------ */

/* Bytes of the body that came off the network (content-coded), or -1 when libsoup does not
 * count them (a message made without lb_http_message_new()). */
static gint64
network_bytes (LbHttpBodyStream *self)
{
  SoupMessageMetrics *metrics = soup_message_get_metrics (self->msg);

  return metrics != NULL ? (gint64) soup_message_metrics_get_response_body_bytes_received (metrics)
                         : -1;
}

/* The body ended (a read returned 0): the verdict on whether all of it came. */
static GError *
judge_end (LbHttpBodyStream *self)
{
  if (self->expected >= 0 && self->received < self->expected)
    return g_error_new (LB_ERROR, LB_ERROR_TRUNCATED,
                        "%s: truncated after %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " bytes",
                        self->uri, self->received, self->expected);
  /* libsoup reads a Content-Length body of a response that closes the connection up to the
   * end of file, short or not: for a content-coded one the count is of network bytes */
  if (self->encoded_length >= 0 && network_bytes (self) >= 0
      && network_bytes (self) < self->encoded_length)
    return g_error_new (LB_ERROR, LB_ERROR_TRUNCATED,
                        "%s: truncated after %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT
                        " bytes (content-coded)", self->uri, network_bytes (self),
                        self->encoded_length);
  if (self->chunked && self->socket != NULL && !libsoup_reports_cut_chunks ()
      && soup_message_is_keepalive (self->msg) && peer_closed (self->socket))
    return g_error_new (LB_ERROR, LB_ERROR_TRUNCATED,
                        "%s: truncated after %" G_GINT64_FORMAT " bytes: the server closed the "
                        "connection before the last chunk of the body", self->uri, self->received);
  if (self->digest != NULL)
    {
      guint8 got[64];
      gsize len = sizeof got;

      g_checksum_get_digest (self->digest, got, &len);
      if (len != self->digest_len || memcmp (got, self->digest_expected, len) != 0)
        return g_error_new (LB_ERROR, LB_ERROR_CORRUPT,
                            "%s: the body (%" G_GINT64_FORMAT " bytes) does not match its %s",
                            self->uri, self->received, self->digest_header);
    }
  return NULL;
}

/* Turns what the wrapped stream said into our verdict. @nread: its return value. */
static gssize
account (LbHttpBodyStream *self, gssize nread, const void *buffer, GError **error)
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
  if (nread == 0)
    {
      if (!self->ended)
        {
          self->ended = TRUE;
          self->end_error = judge_end (self);
        }
      if (self->end_error != NULL)
        {
          g_propagate_error (error, g_error_copy (self->end_error));
          return -1;
        }
      return 0;
    }
  self->received += nread;
  if (self->expected >= 0 && self->received > self->expected)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "%s: body longer than its Content-Length (%" G_GINT64_FORMAT " bytes)",
                   self->uri, self->expected);
      return -1;
    }
  if (self->encoded && self->received > LB_HTTP_MAX_EXPANSION_FLOOR)
    {
      gint64 network = network_bytes (self);

      if (network >= 0 && self->received - LB_HTTP_MAX_EXPANSION_FLOOR
                            > network * (gint64) LB_HTTP_MAX_EXPANSION)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_TOO_LARGE,
                       "%s: %" G_GINT64_FORMAT " bytes decompressed from %" G_GINT64_FORMAT
                       " (Content-Encoding %s): more than %u to 1 is refused as a "
                       "decompression bomb", self->uri, self->received, network,
                       soup_message_headers_get_list (soup_message_get_response_headers (self->msg),
                                                      "Content-Encoding"),
                       LB_HTTP_MAX_EXPANSION);
          return -1;
        }
    }
  if (self->digest != NULL)
    g_checksum_update (self->digest, buffer, nread);
  if (self->progress != NULL)
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

/* The end of every read of @base that returned @nread into @buffer (@local set if it failed):
 * our verdict (account()), its error in @error, and the body's end read once it is due
 * (consume_end()). */
static gssize
finish_read (LbHttpBodyStream *self, GInputStream *base, gssize nread, const void *buffer,
             GError *local, GError **error)
{
  nread = account (self, nread, buffer, &local);
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

  return finish_read (self, base, n, buffer, local, error);
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
  self->encoded_length = -1;
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

  return finish_read (self, base, n, buffer, local, error);
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
lb_http_body_stream_new (GInputStream *base, SoupMessage *msg, GSocket *socket)
{
  LbHttpBodyStream *self = g_object_new (LB_TYPE_HTTP_BODY_STREAM, "base-stream", base, NULL);
  SoupMessageHeaders *headers = soup_message_get_response_headers (msg);
  const char *encoding = soup_message_headers_get_list (headers, "Content-Encoding");
  guint status = soup_message_get_status (msg);
  gboolean has_body = !g_str_equal (soup_message_get_method (msg), "HEAD")
                      && status != 204 && status != 304;

  self->msg = g_object_ref (msg);
  self->socket = socket != NULL ? g_object_ref (socket) : NULL;
  self->uri = g_uri_to_string_partial (soup_message_get_uri (msg),
                                       G_URI_HIDE_USERINFO | G_URI_HIDE_AUTH_PARAMS);
  self->encoded = encoding != NULL && g_ascii_strcasecmp (encoding, "identity") != 0;
  self->chunked = has_body && soup_message_headers_get_encoding (headers) == SOUP_ENCODING_CHUNKED;
  /* Content-Length counts encoded bytes; libsoup hands us decoded ones if it decompressed. */
  if (has_body && soup_message_headers_get_encoding (headers) == SOUP_ENCODING_CONTENT_LENGTH)
    {
      if (self->encoded)
        self->encoded_length = soup_message_headers_get_content_length (headers);
      else
        self->expected = soup_message_headers_get_content_length (headers);
    }
  if (has_body)
    find_digest (self, headers, status);
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
