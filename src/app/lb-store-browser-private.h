/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-browser-node.h"
#include "lb-store-browser.h"

G_BEGIN_DECLS

/* What the tree's lists (lb-browser-children.c) need of their browser. */

/* The order every container's rows are sorted by. */
const LbBrowserSort *_lb_store_browser_get_sort        (LbStoreBrowser *self);
/* (nullable) (transfer none): the flattened tree, NULL while no store is open */
GtkTreeListModel    *_lb_store_browser_get_tree        (LbStoreBrowser *self);
/* Listings running (the ::pending property) and calls whose callbacks have not come back. */
void                 _lb_store_browser_count_pending   (LbStoreBrowser *self,
                                                        int             delta);
void                 _lb_store_browser_count_in_flight (LbStoreBrowser *self,
                                                        int             delta);
/* Emits ::listing-failed. */
void                 _lb_store_browser_listing_failed  (LbStoreBrowser *self,
                                                        const GError   *error);

/* Refresh keeps the tree as it was: the folders expanded below a list that is listed again
 * are remembered by address (@uri), and each is expanded again when its new row arrives
 * (lb-browser-children.c calls _lb_store_browser_row_arrived() for every row it feeds while
 * any is remembered); so is the selected row selected again. */
void                 _lb_store_browser_remember_expanded (LbStoreBrowser *self,
                                                          const char     *uri);
gboolean             _lb_store_browser_remembers       (LbStoreBrowser *self);
void                 _lb_store_browser_row_arrived     (LbStoreBrowser *self,
                                                        GtkTreeListRow *row,
                                                        LbBrowserNode  *node);
/* Emits ::root-listed. */
void                 _lb_store_browser_root_listed     (LbStoreBrowser *self);

G_END_DECLS
