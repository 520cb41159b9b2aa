/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-store.h"

G_BEGIN_DECLS

/**
 * LbHttpStore:
 *
 * An http(s) store: WebDAV (PROPFIND depth 1, PUT, MKCOL) or a plain web listing (Apache
 * and nginx HTML autoindex, nginx JSON autoindex, python http.server; read-only unless the
 * server accepts PUT). The dialect is detected on the first call (OPTIONS DAV header, then
 * PROPFIND 207) unless forced by #LbStoreOptions.type "webdav" / "listing".
 */
#define LB_TYPE_HTTP_STORE (lb_http_store_get_type ())
G_DECLARE_FINAL_TYPE (LbHttpStore, lb_http_store, LB, HTTP_STORE, GObject)

LbStore *lb_http_store_new (const char      *uri,
                            LbStoreOptions  *options,
                            GError         **error);

G_END_DECLS
