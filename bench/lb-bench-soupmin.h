/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A minimal libsoup 3 server on 127.0.0.1 (port chosen by the kernel), running on its own
 * thread and main context: PUT bodies are counted and dropped, GET /N answers N bytes from
 * memory. It is the floor of what libsoup itself costs, measured beside lightbox-store and
 * raw sockets in the same run. */
typedef struct _LbSoupMinServer LbSoupMinServer;

LbSoupMinServer *lb_soup_min_server_start    (gsize max_body, GError **error);
guint16          lb_soup_min_server_get_port (LbSoupMinServer *self);
void             lb_soup_min_server_stop     (LbSoupMinServer *self);

G_END_DECLS
