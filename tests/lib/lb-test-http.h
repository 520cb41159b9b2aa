/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* HTTP to a server on 127.0.0.1 byte for byte, below any client library. */

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct {
  guint       status;
  GHashTable *headers; /* lower-case name → value */
  GBytes     *body;
} LbTestRawReply;

void            lb_test_raw_reply_free (LbTestRawReply *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LbTestRawReply, lb_test_raw_reply_free)

/* Sends @request_head (request line and headers, "\r\n"-separated, without the final empty
 * line; "Connection: close" is added) and @body exactly as given to 127.0.0.1:@port, and
 * reads the whole reply. */
LbTestRawReply *lb_test_raw_request    (guint16     port,
                                        const char *request_head,
                                        GBytes     *body,
                                        GError    **error);
/* The port of @url. */
guint16         lb_test_url_port       (const char *url);

G_END_DECLS
