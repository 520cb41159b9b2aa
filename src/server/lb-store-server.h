/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "lb-access-log.h"
#include "lb-store-auth.h"

G_BEGIN_DECLS

#define LB_TYPE_STORE_SERVER (lb_store_server_get_type ())
G_DECLARE_FINAL_TYPE (LbStoreServer, lb_store_server, LB, STORE_SERVER, GObject)

/* Bodies of methods other than PUT (PROPFIND, …) are held in memory up to this size. */
#define LB_STORE_MAX_XML_BODY (1024 * 1024)
/* Seconds a client may take for a request head, or stay silent mid-transfer. */
#define LB_STORE_DEFAULT_TIMEOUT 60
/* Seconds a TLS handshake may take at most once the client's ClientHello is there (less with
 * a shorter timeout); the ClientHello itself may take the timeout. */
#define LB_STORE_HANDSHAKE_TIMEOUT 10

LbStoreServer *lb_store_server_new             (const char      *root,
                                                GError         **error);
void           lb_store_server_set_read_only   (LbStoreServer   *self,
                                                gboolean         read_only);
void           lb_store_server_set_timeout     (LbStoreServer   *self,
                                                guint            seconds);
void           lb_store_server_set_max_upload  (LbStoreServer   *self,
                                                guint64          max_bytes);
void           lb_store_server_set_auth        (LbStoreServer   *self,
                                                LbStoreAuth     *auth);
void           lb_store_server_set_access_log  (LbStoreServer   *self,
                                                LbAccessLog     *log);
void           lb_store_server_set_tls_certificate (LbStoreServer   *self,
                                                    GTlsCertificate *cert);
void           lb_store_server_set_max_connections (LbStoreServer   *self,
                                                    guint            max_connections);
guint          lb_store_server_get_max_connections (LbStoreServer   *self);
guint          lb_store_server_get_n_connections   (LbStoreServer   *self);
guint          lb_store_server_remove_stale_temps  (LbStoreServer   *self);
gboolean       lb_store_server_listen          (LbStoreServer   *self,
                                                const char      *address,
                                                guint            port,
                                                GError         **error);
const char    *lb_store_server_get_url         (LbStoreServer   *self);
const char    *lb_store_server_get_root        (LbStoreServer   *self);
void           lb_store_server_stop            (LbStoreServer   *self);

G_END_DECLS
