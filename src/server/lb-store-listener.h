/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "lb-store-conn.h"

G_BEGIN_DECLS

/*
 * LbStoreListener: lightbox-store's listening socket, which accepts the connections itself and
 * hands each one, ready to serve (after its TLS handshake when there is a certificate), to a
 * callback that gives it to libsoup (soup_server_accept_iostream()).
 *
 * libsoup 3.2's own listener stops accepting for good on the first accept() error (EMFILE:
 * out of descriptors), and its TLS handshakes each hold a GTask thread for as long as the
 * client stalls, so a few stalled clients lock everyone out (both unchanged upstream as of
 * libsoup 3.7.1: listen_watch() in soup-listener.c, soup_server_connection_accepted()). This
 * one:
 * - counts connections, from accept() until they are closed, and answers those beyond
 *   max_connections with a 503 written on the raw socket;
 * - on EMFILE, ENFILE, ENOBUFS and ENOMEM logs, answers one waiting client 503 with a
 *   descriptor kept in reserve for that, and retries after a pause that doubles up to 1 s, so
 *   it recovers by itself once descriptors are free again;
 * - waits for a TLS client's whole first record (the ClientHello) on the main loop, without a
 *   thread, for at most the hello timeout; then runs at most LB_STORE_LISTENER_MAX_HANDSHAKES
 *   handshakes at once, and closes a connection whose handshake is not done within the
 *   (shorter) handshake timeout.
 */

#define LB_TYPE_STORE_LISTENER (lb_store_listener_get_type ())
G_DECLARE_FINAL_TYPE (LbStoreListener, lb_store_listener, LB, STORE_LISTENER, GObject)

/* TLS handshakes run at once, each in a thread of GLib's GTask pool (glib-networking). */
#define LB_STORE_LISTENER_MAX_HANDSHAKES 4

/* @stream is @conn, or the TLS connection over it, @remote the client's address; the callback
 * takes its own references. */
typedef void (*LbStoreListenerReadyFunc) (LbStoreListener *self,
                                          GIOStream       *stream,
                                          LbStoreConn     *conn,
                                          GSocketAddress  *remote,
                                          gpointer         user_data);

guint            lb_store_listener_default_max_connections (void);
LbStoreListener *lb_store_listener_new             (GSocketAddress           *address,
                                                    GTlsCertificate          *certificate,
                                                    guint                     max_connections,
                                                    guint                     hello_timeout_s,
                                                    guint                     handshake_timeout_s,
                                                    LbStoreListenerReadyFunc  ready,
                                                    gpointer                  user_data,
                                                    GError                  **error);
GSocketAddress  *lb_store_listener_get_address     (LbStoreListener          *self);
guint            lb_store_listener_get_n_connections (LbStoreListener        *self);
void             lb_store_listener_stop            (LbStoreListener          *self);

G_END_DECLS
