/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* LbStore calls for the tests, run to completion on the default main context. */

#include "lb-store.h"
#include "lb-store-sync.h"

G_BEGIN_DECLS

/* lb_store_new_for_uri() that must succeed. */
LbStore      *lb_test_store_open     (const char     *uri,
                                      LbStoreOptions *options);
/* lb_store_list_sync() */
GPtrArray    *lb_test_store_list     (LbStore        *store,
                                      const char     *uri,
                                      GError        **error);
/* The entry called @name in @entries (an array lb_test_store_list() returned), or NULL. */
LbStoreEntry *lb_test_store_find     (GPtrArray      *entries,
                                      const char     *name);
/* The whole entry, read through lb_store_read_async() and the stream it returns (async
 * reads); NULL with @error on failure. */
GBytes       *lb_test_store_read_all (LbStore        *store,
                                      const char     *uri,
                                      LbStoreEntry  **out_entry,
                                      GError        **error);

G_END_DECLS
