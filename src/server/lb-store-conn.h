/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include <libsoup/soup.h>

#include "lb-store-request.h"
#include "lb-store-server.h"

G_BEGIN_DECLS

/*
 * LbStoreConn: one client connection of lightbox-store, from accept() until it is closed,
 * whoever closes it (libsoup, the server's idle watch, a TLS handshake that failed or ran out
 * of time, lb_store_server_stop()). It is the TCP stream handed to libsoup (directly, or under
 * TLS), and it tells its listener once when it is closed, so that connections are counted
 * exactly. With it go the connection side of each request: the socket timeout and the
 * deadline of a request head (slow clients), keep-alive after 204 and 304, and the watch that
 * closes keep-alive connections the client dropped or left idle too long, which libsoup 3.2
 * does not.
 */

#define LB_TYPE_STORE_CONN (lb_store_conn_get_type ())
G_DECLARE_FINAL_TYPE (LbStoreConn, lb_store_conn, LB, STORE_CONN, GTcpConnection)

/* Called once when @conn is closed, in the main context given to lb_store_conn_new(). */
typedef void (*LbStoreConnClosedFunc) (LbStoreConn *conn,
                                       gpointer     user_data);

LbStoreConn *lb_store_conn_new            (GSocket               *socket,
                                           GMainContext          *context,
                                           LbStoreConnClosedFunc  closed,
                                           gpointer               user_data,
                                           GDestroyNotify         destroy);
GSocket     *lb_store_conn_get_socket     (LbStoreConn           *self);
void         lb_store_conn_close          (LbStoreConn           *self);
void         lb_store_conn_set_address    (LbStoreConn           *self,
                                           GSocketAddress        *remote);
LbStoreConn *lb_store_conn_for_message    (SoupServerMessage     *msg);
GSocket     *lb_store_conn_socket_for_message (SoupServerMessage *msg);

void         lb_store_conn_start_request  (LbStoreServer         *server,
                                           SoupServerMessage     *msg,
                                           LbStoreRequest        *req);
void         lb_store_conn_watch_idle     (LbStoreServer         *server,
                                           SoupServerMessage     *msg);

G_END_DECLS
