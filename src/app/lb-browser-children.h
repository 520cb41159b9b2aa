/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "lb-browser-node.h"
#include "lb-store-browser.h"

G_BEGIN_DECLS

/**
 * LbBrowserChildren:
 *
 * The rows of one container of the store tree (a GListModel of LbBrowserNode), listed the
 * first time GTK asks how many there are, that is when the row is expanded: GtkTreeListModel
 * only calls its create function to learn if a row is expandable, and only queries the child
 * model once it is expanded.
 *
 * A listing goes: store list (the store's own thread or HTTP I/O) → worker thread (nodes,
 * keys, sort) → main thread in batches from an idle, so the main loop keeps painting while
 * 100 000 rows arrive. Every step carries the generation it was started for: a result for
 * an older generation (the row was collapsed, the store closed, the list re-listed or
 * re-sorted meanwhile) is dropped and never reaches the model.
 *
 * The browser it belongs to gives the store, the order, and counts the listings that run.
 */
#define LB_TYPE_BROWSER_CHILDREN (lb_browser_children_get_type ())
G_DECLARE_FINAL_TYPE (LbBrowserChildren, lb_browser_children, LB, BROWSER_CHILDREN, GObject)

/* @parent: (nullable): the row whose children these are; NULL for the store's root. */
LbBrowserChildren *lb_browser_children_new             (LbStoreBrowser    *browser,
                                                        LbBrowserNode     *parent);
/* A pass-through model of @self for one expansion of the parent row: the tree model drops it
 * when the row collapses (or the tree goes), which is how the list learns that nobody shows
 * it any more (a listing still running is then cancelled). (transfer full) */
GListModel        *lb_browser_children_new_view        (LbBrowserChildren *self);
/* Starts the listing from an idle, unless it started already. */
void               lb_browser_children_start           (LbBrowserChildren *self);
/* Lists again (Retry, refresh): the rows go back to one spinner row until it is done. */
void               lb_browser_children_relist          (LbBrowserChildren *self);
/* Sorts a listed container again by the browser's order (it changed). */
void               lb_browser_children_resort          (LbBrowserChildren *self);
/* The store goes: nothing of this list runs or starts any more. */
void               lb_browser_children_shutdown        (LbBrowserChildren *self);
/* Calls @func on @self and every listed list below it, depth first. */
void               lb_browser_children_foreach         (LbBrowserChildren *self,
                                                        void             (*func) (LbBrowserChildren *));
/* (nullable) (transfer none): the listed list at @uri (NULL: the root) among @self and the
 * lists below it */
LbBrowserChildren *lb_browser_children_find            (LbBrowserChildren *self,
                                                        const char        *uri);
gboolean           lb_browser_children_is_started      (LbBrowserChildren *self);
/* Whether @pred holds for a row delivered to @self or to a listed list below it. */
gboolean           lb_browser_children_any             (LbBrowserChildren *self,
                                                        gboolean         (*pred) (LbBrowserNode *,
                                                                                  gpointer),
                                                        gpointer           data);
/* (nullable) (transfer none): the cancellable of the listing or sort running, NULL if none */
GCancellable      *lb_browser_children_get_cancellable (LbBrowserChildren *self);

G_END_DECLS
