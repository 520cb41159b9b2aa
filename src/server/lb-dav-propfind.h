/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <libsoup/soup.h>

#include "lb-store-request.h"
#include "lb-store-server.h"

G_BEGIN_DECLS

/*
 * PROPFIND (RFC 4918 §9.1), Depth 0 and 1. A Depth 1 answer on a collection is streamed: the
 * directory is read and the entries are written in worker threads, a slice of about
 * LB_DAV_WRITER_CHUNK bytes at a time, and each slice is sent as one chunk of a chunked body
 * before the next is made. The main loop only hands the slices to libsoup, and at most two
 * are waiting to be sent, so neither the time the main loop is held nor the memory depends
 * on the size of the collection.
 */

void lb_dav_handle_propfind (LbStoreServer     *self,
                             SoupServerMessage *msg,
                             LbStoreRequest    *req);

G_END_DECLS
