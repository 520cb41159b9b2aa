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
/* The IPv4 TCP sockets of /proc/net/tcp whose local end (or, with @either_end, either end)
 * is port @port, in the state @state (as the kernel writes it: "08" is CLOSE_WAIT) or, for a
 * NULL @state, in any state but LISTEN ("0A"). A connection closed stays there in TIME_WAIT
 * for a while, so the count also says how many were opened. */
guint           lb_test_count_tcp      (guint16     port,
                                        gboolean    either_end,
                                        const char *state);

G_END_DECLS
