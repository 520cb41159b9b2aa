/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <libsoup/soup.h>

#include "lb-store-request.h"
#include "lb-store-server.h"

G_BEGIN_DECLS

/*
 * Request bodies. PUT streams its body into an upload temporary beside the target, and a worker
 * thread commits it (fsync, then preconditions again and rename under the path's lock, fsync
 * of the directory) while the message is paused; a chunked PUT is refused (411). The bodies of
 * the other methods are kept in memory up to LB_STORE_MAX_XML_BODY. Whatever enters the
 * filter repository is checked by lb_store_upload_check_filter().
 */

void  lb_store_upload_begin        (LbStoreServer     *self,
                                    SoupServerMessage *msg,
                                    LbStoreRequest    *req);
void  lb_store_upload_got_chunk    (SoupServerMessage *msg,
                                    GBytes            *chunk,
                                    gpointer           user_data);
void  lb_store_upload_finish       (LbStoreServer     *self,
                                    SoupServerMessage *msg,
                                    LbStoreRequest    *req);
guint lb_store_upload_check_filter (const char        *path,
                                    const char        *name,
                                    char             **detail);

G_END_DECLS
