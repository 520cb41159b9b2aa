/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <libsoup/soup.h>

#include "lb-store-request.h"
#include "lb-store-server.h"

G_BEGIN_DECLS

/*
 * The connections behind the requests: the socket timeout and the deadline of a request head
 * (slow clients), keep-alive after 204 and 304, and the watch that closes keep-alive
 * connections the client dropped or left idle too long, which libsoup 3.2 does not.
 */

void lb_store_conn_start_request (LbStoreServer     *self,
                                  SoupServerMessage *msg,
                                  LbStoreRequest    *req);
void lb_store_conn_watch_idle    (LbStoreServer     *self,
                                  SoupServerMessage *msg);

G_END_DECLS
