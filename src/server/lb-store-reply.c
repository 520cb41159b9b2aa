/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-store-server"

#include "lb-store-reply.h"

#include <errno.h>
#include <string.h>

#include "lb-store-request.h"

void
lb_store_reply_error (SoupServerMessage *msg, guint status, const char *detail)
{
  g_autofree char *text = g_strdup_printf ("%u %s%s%s\n", status, soup_status_get_phrase (status),
                                           detail ? ": " : "", detail ? detail : "");

  soup_server_message_set_status (msg, status, NULL);
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
  socket = soup_server_message_get_socket (msg);
  if (socket != NULL)
    {
      g_socket_shutdown (socket, TRUE, TRUE, NULL);
      g_socket_close (socket, NULL);
    }
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
