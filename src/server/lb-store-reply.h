/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <libsoup/soup.h>

G_BEGIN_DECLS

/*
 * The answers every handler of the server gives: a status with a one-line text body, an XML
 * body, the status for a file-system error, and a refusal before the request body was read.
 */

/* RFC 6585 §4; libsoup has no SOUP_STATUS_ name for it (nor a reason phrase, 3.2 to 3.7). */
#define LB_STORE_STATUS_TOO_MANY_REQUESTS 429

void  lb_store_reply_error        (SoupServerMessage *msg,
                                   guint              status,
                                   const char        *detail);
void  lb_store_reply_xml          (SoupServerMessage *msg,
                                   guint              status,
                                   GBytes            *body);
guint lb_store_reply_errno_status (int                err);
void  lb_store_reply_errno        (SoupServerMessage *msg,
                                   int                err);
void  lb_store_reply_refuse       (SoupServerMessage *msg,
                                   guint              status,
                                   const char        *detail);

G_END_DECLS
