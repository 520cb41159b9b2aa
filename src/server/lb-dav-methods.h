/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <libsoup/soup.h>

#include "lb-store-request.h"
#include "lb-store-server.h"

G_BEGIN_DECLS

/*
 * The WebDAV methods (RFC 4918, class 1), run once a request's body is complete: OPTIONS, GET
 * and HEAD (files, and HTML listings of collections), PROPPATCH, MKCOL, DELETE, COPY and MOVE.
 * PUT is in lb-store-upload.c, PROPFIND in lb-dav-propfind.c. Each handler sets the status and
 * body of @msg.
 */

#define LB_DAV_ALLOW_METHODS "OPTIONS, GET, HEAD, PUT, DELETE, MKCOL, COPY, MOVE, PROPFIND, PROPPATCH"

void lb_dav_handle_options   (LbStoreServer     *self,
                              SoupServerMessage *msg);
void lb_dav_handle_get       (LbStoreServer     *self,
                              SoupServerMessage *msg,
                              LbStoreRequest    *req);
void lb_dav_handle_proppatch (LbStoreServer     *self,
                              SoupServerMessage *msg,
                              LbStoreRequest    *req);
void lb_dav_handle_mkcol     (LbStoreServer     *self,
                              SoupServerMessage *msg,
                              LbStoreRequest    *req);
void lb_dav_handle_delete    (LbStoreServer     *self,
                              SoupServerMessage *msg,
                              LbStoreRequest    *req);
void lb_dav_handle_copy_move (LbStoreServer     *self,
                              SoupServerMessage *msg,
                              LbStoreRequest    *req,
                              gboolean           move);

G_END_DECLS
