/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "lb-store.h"

G_BEGIN_DECLS

/**
 * LbStoreBrowser:
 *
 * The store tree: a GtkColumnView (name, size, modified) over a GtkTreeListModel whose
 * containers list their children lazily and asynchronously when first expanded. While a
 * listing runs the container shows a spinner row; a failed listing shows an error row with a
 * Retry button. Emits ::entry-activated for images and for DICOM series, which also expand
 * (Enter, double click), ::listing-failed with the error of a failed listing, and
 * ::root-listed each time the store's root was listed (the store answers).
 *
 * Listings are turned into rows and sorted in a worker thread and reach the model in batches
 * from an idle, so the main loop keeps running while a large folder arrives. Collapsing a
 * row, closing or switching the store cancels its listing; nothing of it lands later.
 * Each container's children are sorted within it, folders first, by the column whose header
 * was clicked (or tree.sort, Alt+1/2/3); the order is kept in GSettings
 * (tree-sort-column, tree-sort-descending).
 *
 * Actions: tree.sort("name"|"size"|"modified"), tree.refresh (F5: lists again the folder of
 * the selected row) and tree.open (what Enter does to the selected row).
 *
 * The widget is ui/lb-store-browser.ui; its rows are the list-item templates
 * ui/lb-browser-*-cell.ui over LbBrowserNode items (lb-browser-node.h), listed by
 * LbBrowserChildren (lb-browser-children.h).
 */
#define LB_TYPE_STORE_BROWSER (lb_store_browser_get_type ())
G_DECLARE_FINAL_TYPE (LbStoreBrowser, lb_store_browser, LB, STORE_BROWSER, GtkWidget)

GtkWidget    *lb_store_browser_new          (void);
/* @store: (nullable) */
void          lb_store_browser_set_store    (LbStoreBrowser *self,
                                             LbStore        *store);
LbStore      *lb_store_browser_get_store    (LbStoreBrowser *self);
/* Rows currently in the flattened tree (expanded containers included). */
GListModel   *lb_store_browser_get_rows     (LbStoreBrowser *self);
/* Expands the container row at @position (starts its listing). */
gboolean      lb_store_browser_expand_row   (LbStoreBrowser *self,
                                             guint           position,
                                             gboolean        expand);
/* The entry at @position, NULL for spinner/error rows. (transfer none) */
LbStoreEntry *lb_store_browser_get_entry    (LbStoreBrowser *self,
                                             guint           position);
/* Position of the first row whose name is @name, G_MAXUINT if none. */
guint         lb_store_browser_find_row     (LbStoreBrowser *self,
                                             const char     *name);
/* Type-to-search: selects and scrolls to the next row (from the selection on) whose name
 * starts with @text, else contains it (case-insensitive). FALSE if none. */
gboolean      lb_store_browser_search       (LbStoreBrowser *self,
                                             const char     *text,
                                             gboolean        next);
/* Positions are the tree's (lb_store_browser_get_rows()), whatever the filter shows. */
void          lb_store_browser_select_row   (LbStoreBrowser *self,
                                             guint           position);
/* The selected row's position in the tree, G_MAXUINT when none. */
guint         lb_store_browser_get_selected (LbStoreBrowser *self);
/* The search's filter: only rows whose name contains @text (case-insensitive) and the
 * folders above them stay in the view; NULL or "" shows every row. */
void          lb_store_browser_set_filter   (LbStoreBrowser *self,
                                             const char     *text);
/* Activates the row at @position: images emit ::entry-activated, containers toggle. */
void          lb_store_browser_activate_row (LbStoreBrowser *self,
                                             guint           position);
/* Number of listings still running. */
guint         lb_store_browser_get_pending  (LbStoreBrowser *self);
/* Store listings and worker passes whose callbacks have not come back yet, cancelled ones
 * included (their results are dropped when they do). */
guint         lb_store_browser_get_in_flight (LbStoreBrowser *self);
/* The cancellable of the listing running for the container at @position, NULL if none
 * runs (yet). (transfer none) */
GCancellable *lb_store_browser_get_listing_cancellable (LbStoreBrowser *self,
                                                        guint           position);
/* Re-lists the container that holds @uri (after an upload). */
void          lb_store_browser_refresh_parent (LbStoreBrowser *self,
                                               const char     *uri);
GtkWidget    *lb_store_browser_get_view     (LbStoreBrowser *self);

G_END_DECLS
