/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-store-server"

#include "lb-store-reply.h"

#include <errno.h>
#include <string.h>

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

/* A refusal sent before the body was read: the connection cannot be reused. */
void
lb_store_reply_refuse (SoupServerMessage *msg, guint status, const char *detail)
{
  lb_store_reply_error (msg, status, detail);
  if (lb_store_request_has_body (msg))
    soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                  "Connection", "close");
}
