/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-store-server"

#include "lb-store-reply.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <glib-unix.h>

#include "lb-store-conn.h"
#include "lb-store-request.h"

/* libsoup 3.2 has no name for 429 (RFC 6585 §4): it would say "Unknown Error". */
static const char *
status_phrase (guint status)
{
  return status == LB_STORE_STATUS_TOO_MANY_REQUESTS ? "Too Many Requests" : soup_status_get_phrase (status);
}

void
lb_store_reply_error (SoupServerMessage *msg, guint status, const char *detail)
{
  g_autofree char *text = g_strdup_printf ("%u %s%s%s\n", status, status_phrase (status),
                                           detail ? ": " : "", detail ? detail : "");

  soup_server_message_set_status (msg, status, status_phrase (status));
  soup_server_message_set_response (msg, "text/plain; charset=utf-8", SOUP_MEMORY_COPY,
                                    text, strlen (text));
}

/* Answers @msg with @status and the XML document @body. */
void
lb_store_reply_xml (SoupServerMessage *msg, guint status, GBytes *body)
{
  gsize len;
  const char *data = g_bytes_get_data (body, &len);

  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "application/xml; charset=utf-8", SOUP_MEMORY_COPY,
                                    data, len);
}

/* The status that answers a request failed by the file-system error @err. */
guint
lb_store_reply_errno_status (int err)
{
  switch (err)
    {
    case ENOSPC:
    case EDQUOT:
      return SOUP_STATUS_INSUFFICIENT_STORAGE;
    case ENOENT:
    case ENOTDIR:
      return SOUP_STATUS_CONFLICT;
    case EACCES:
    case EPERM:
    case EROFS:
      return SOUP_STATUS_FORBIDDEN;
    case EEXIST:
    case ENOTEMPTY:
      return SOUP_STATUS_CONFLICT;
    default:
      return SOUP_STATUS_INTERNAL_SERVER_ERROR;
    }
}

/* Answers @msg with the status and text of the file-system error @err. */
void
lb_store_reply_errno (SoupServerMessage *msg, int err)
{
  lb_store_reply_error (msg, lb_store_reply_errno_status (err), g_strerror (err));
}

/* Bytes of a refused body of unknown or excessive length read before the connection is cut. */
#define LB_STORE_REFUSED_BODY_MAX (4 * 1024 * 1024)

typedef struct
{
  guint64 seen;  /* bytes */
  guint64 limit; /* bytes */
} RefusedBody;

static void
on_refused_chunk (SoupServerMessage *msg, GBytes *chunk, gpointer user_data)
{
  RefusedBody *rb = user_data;
  GSocket *socket;

  rb->seen += g_bytes_get_size (chunk);
  if (rb->seen <= rb->limit)
    return;
  /* Closed, not only shut down: the unread bytes make the kernel reset the connection, so
   * the client stops sending at once instead of filling the window and waiting. libsoup's
   * next read fails on the closed socket and it drops the request its usual way. */
  socket = lb_store_conn_socket_for_message (msg);
  if (socket != NULL)
    {
      g_socket_shutdown (socket, TRUE, TRUE, NULL);
      g_socket_close (socket, NULL);
    }
}

/* A lingering close (as Apache's and nginx's): how long, and how many bytes, the client's
 * last bytes are drained after the answer to a refused request. */
#define LB_STORE_LINGER_US (2 * G_USEC_PER_SEC)
#define LB_STORE_LINGER_MAX (1024 * 1024)

typedef struct
{
  int     fd;       /* our own duplicate of the connection's descriptor */
  guint64 drained;  /* bytes */
} Linger;

static gboolean
linger_drain (int fd, GIOCondition condition, gpointer user_data)
{
  Linger *l = user_data;
  char buf[16384];

  for (;;)
    {
      ssize_t n = read (fd, buf, sizeof buf);

      if (n > 0)
        {
          l->drained += (guint64) n;
          if (l->drained > LB_STORE_LINGER_MAX)
            return G_SOURCE_REMOVE;
          continue;
        }
      /* more may come until the deadline (the source's ready time, condition 0) */
      if (n < 0 && errno == EAGAIN && condition != 0) /* (EWOULDBLOCK is EAGAIN on Linux) */
        return G_SOURCE_CONTINUE;
      if (n < 0 && errno == EINTR)
        continue;
      return G_SOURCE_REMOVE; /* end of stream, error, or the deadline */
    }
}

static void
linger_free (gpointer data)
{
  Linger *l = data;

  close (l->fd);
  g_free (l);
}

/* Keeps the connection of @socket open through a duplicate descriptor after its answer was
 * written: the sending side is shut down (the client sees the answer, then end of stream) and
 * what still arrives is read and dropped, for at most LB_STORE_LINGER_US or
 * LB_STORE_LINGER_MAX bytes. Closing a socket with unread bytes in it makes the kernel answer
 * with a reset, which can reach the client before it has read the answer, so it would see
 * "connection reset" instead of the status. libsoup's own close then only drops its
 * descriptor. Returns FALSE if that could not be set up (no descriptor to spare). */
static gboolean
linger_start (GSocket *socket)
{
  GSource *source;
  Linger *l;
  int fd;

  if (socket == NULL || g_socket_is_closed (socket))
    return FALSE;
  fd = dup (g_socket_get_fd (socket));
  if (fd < 0)
    return FALSE;
  if (!g_unix_set_fd_nonblocking (fd, TRUE, NULL) || shutdown (fd, SHUT_WR) != 0)
    {
      close (fd);
      return FALSE;
    }
  l = g_new0 (Linger, 1);
  l->fd = fd;
  source = g_unix_fd_source_new (fd, G_IO_IN | G_IO_HUP | G_IO_ERR);
  g_source_set_ready_time (source, g_get_monotonic_time () + LB_STORE_LINGER_US);
  g_source_set_callback (source, G_SOURCE_FUNC (linger_drain), l, linger_free);
  g_source_attach (source, NULL);
  g_source_unref (source);
  return TRUE;
}

/*
 * A refused request with a chunked body (and no Expect: 100-continue) is answered here, on the
 * socket, and its body is never read: libsoup 3.2.3 reads a chunk-size line into a stack
 * buffer it does not terminate, and strtoul() skips the line end, so an empty size line reads
 * as whatever hexadecimal digits follow on the stack (soup-body-input-stream.c,
 * read_chunked()): the server would then wait until --timeout for chunk data that never
 * comes, and the client would get no answer. The answer goes out whole (it is a few hundred
 * bytes, a fresh connection's send buffer takes it), the connection lingers (linger_start())
 * and libsoup's socket is closed, so its next read fails and it drops the request the way it
 * drops a cut connection. Returns FALSE, having changed nothing, if the answer could not be
 * written at once, or if the connection is TLS (the answer would have to be a TLS record).
 */
static gboolean
refuse_chunked_on_socket (SoupServerMessage *msg, guint status, const char *detail)
{
  GSocket *socket = lb_store_conn_socket_for_message (msg);
  GUri *uri = soup_server_message_get_uri (msg);
  g_autofree char *body = g_strdup_printf ("%u %s%s%s\n", status, soup_status_get_phrase (status),
                                           detail ? ": " : "", detail ? detail : "");
  g_autofree char *answer = g_strdup_printf ("HTTP/1.1 %u %s\r\n"
                                             "Content-Type: text/plain; charset=utf-8\r\n"
                                             "Content-Length: %zu\r\n"
                                             "Connection: close\r\n\r\n%s",
                                             status, soup_status_get_phrase (status),
                                             strlen (body), body);
  gsize len = strlen (answer);

  if (socket == NULL || g_socket_is_closed (socket)
      || g_strcmp0 (g_uri_get_scheme (uri), "https") == 0
      || g_socket_send (socket, answer, len, NULL, NULL) != (gssize) len)
    return FALSE;
  linger_start (socket);
  g_socket_close (socket, NULL);
  return TRUE;
}

/*
 * A refusal decided from the request head, before the body was read: the connection cannot be
 * reused. A client that sent Expect: 100-continue gets the answer at once and never sends the
 * body. For any other one the body is read and dropped first, since libsoup (3.2 and later)
 * writes an answer only after the whole request. So that the answer still reaches the client
 * (the Lightbox client sends no Expect: a refused large upload must get its 412 or 403, not a
 * reset), a Content-Length body is read to its end when it is no longer than what the store
 * accepts (--max-upload, at least LB_STORE_REFUSED_BODY_MAX; all of it without a limit). A
 * chunked body, or a longer one, is cut after LB_STORE_REFUSED_BODY_MAX bytes: an endless or
 * huge body the store would never take costs it no more than that.
 */
void
lb_store_reply_refuse (SoupServerMessage *msg, guint status, const char *detail)
{
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);
  LbStoreRequest *req = lb_store_request_get (msg);
  guint64 accepted = G_MAXUINT64;
  RefusedBody *rb;

  lb_store_reply_error (msg, status, detail);
  if (!lb_store_request_has_body (msg))
    return;
  if (soup_message_headers_get_encoding (h) == SOUP_ENCODING_CHUNKED
      && !(soup_message_headers_get_expectations (h) & SOUP_EXPECTATION_CONTINUE)
      && refuse_chunked_on_socket (msg, status, detail))
    return;
  soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                "Connection", "close");
  if (req != NULL && req->max_upload > 0)
    accepted = MAX (req->max_upload, LB_STORE_REFUSED_BODY_MAX);
  if (soup_message_headers_get_encoding (h) == SOUP_ENCODING_CONTENT_LENGTH &&
      (guint64) soup_message_headers_get_content_length (h) <= accepted)
    return;
  rb = g_new0 (RefusedBody, 1);
  rb->limit = LB_STORE_REFUSED_BODY_MAX;
  g_object_set_data_full (G_OBJECT (msg), "lb-refused-body", rb, g_free);
  g_signal_connect (msg, "got-chunk", G_CALLBACK (on_refused_chunk), rb);
}
