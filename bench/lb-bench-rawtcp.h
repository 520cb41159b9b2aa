/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A tiny TTCP in C over 127.0.0.1: the raw-socket baseline of lightbox-bench net.
 *
 * Protocol, per exchange on one keep-alive connection: the client sends a 16-byte header
 * (four little-endian guint32: magic, up, down, buffer), then `up` bytes written in
 * `buffer`-byte write() calls; the server reads them with `buffer`-byte read() calls, then
 * answers with `down` bytes in `buffer`-byte writes, or a 1-byte acknowledgement when
 * down = 0 (so the client's clock stops when the data has arrived, as TTCP's does). */

typedef struct _LbRawServer LbRawServer;

/* Listens on 127.0.0.1, port chosen by the kernel; one thread per connection. */
LbRawServer *lb_raw_server_start    (GError      **error);
guint16      lb_raw_server_get_port (LbRawServer  *server);
void         lb_raw_server_stop     (LbRawServer  *server);

/* A connected socket (TCP_NODELAY, as HTTP clients set it), or -1 with @error. */
int          lb_raw_connect         (guint16       port,
                                     GError      **error);
/* One exchange; @buffer bytes at a time (≥ 1). */
gboolean     lb_raw_exchange        (int           fd,
                                     guint64       up,
                                     guint64       down,
                                     gsize         buffer,
                                     GError      **error);

G_END_DECLS
