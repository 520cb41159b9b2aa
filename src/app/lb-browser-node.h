/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>

#include "lb-store.h"

G_BEGIN_DECLS

typedef enum {
  LB_BROWSER_NODE_ENTRY,
  LB_BROWSER_NODE_LOADING,
  LB_BROWSER_NODE_ERROR,
} LbBrowserNodeKind;

/* The sort columns, in the order of the view's columns and of the GSettings choices. */
typedef enum {
  LB_BROWSER_SORT_NAME,
  LB_BROWSER_SORT_SIZE,
  LB_BROWSER_SORT_MODIFIED,
  LB_BROWSER_N_SORT_COLUMNS,
} LbBrowserSortColumn;

typedef struct {
  LbBrowserSortColumn column;
  gboolean            descending;
} LbBrowserSort;

/* lb-browser-children.h declares it; a row only points at the list it is in. */
typedef struct _LbBrowserChildren LbBrowserChildren;

/**
 * LbBrowserNode:
 *
 * One row of the store tree: an entry, a "Loading…" spinner, or an error with Retry.
 * Everything a row shows or sorts by is computed when the node is made, which for entries
 * happens in the listing worker (GLib only, no GTK), so binding a row and sorting cost no
 * formatting on the main thread; only the size and date texts wait for the first row that
 * shows them.
 */
#define LB_TYPE_BROWSER_NODE (lb_browser_node_get_type ())
G_DECLARE_FINAL_TYPE (LbBrowserNode, lb_browser_node, LB, BROWSER_NODE, GObject)

/* GLib only: the listing worker makes these. @owner is the list the row goes into. */
LbBrowserNode     *lb_browser_node_new_entry      (LbStoreEntry        *entry,
                                                   LbBrowserChildren   *owner);
LbBrowserNode     *lb_browser_node_new_loading    (LbBrowserChildren   *owner);
/* @message: what failed, in plain words; @detail: (nullable) the technical text (method, URL,
 * status), shown as the row's tooltip */
LbBrowserNode     *lb_browser_node_new_error      (const char          *message,
                                                   const char          *detail,
                                                   LbBrowserChildren   *owner);
LbBrowserNodeKind  lb_browser_node_get_kind       (LbBrowserNode       *self);
/* (nullable): NULL for spinner and error rows */
LbStoreEntry      *lb_browser_node_get_entry      (LbBrowserNode       *self);
gboolean           lb_browser_node_is_container   (LbBrowserNode       *self);
/* (nullable): the error of an error row */
const char        *lb_browser_node_get_message    (LbBrowserNode       *self);
/* (nullable): the entry's URI, or the error's detail (else its message) */
const char        *lb_browser_node_get_tooltip    (LbBrowserNode       *self);
/* (nullable): the entry's symbolic icon */
const char        *lb_browser_node_get_icon_name  (LbBrowserNode       *self);
/* (nullable): "12.3 MB" for files of known size, formatted on the first call */
const char        *lb_browser_node_get_size_text  (LbBrowserNode       *self);
/* (nullable): "2024-05-01 13:45" in local time, formatted on the first call */
const char        *lb_browser_node_get_date_text  (LbBrowserNode       *self);
/* (nullable) (transfer none): the list this row is in */
LbBrowserChildren *lb_browser_node_get_owner      (LbBrowserNode       *self);
/* (nullable) (transfer none): a container's children, once it was expanded */
LbBrowserChildren *lb_browser_node_get_children   (LbBrowserNode       *self);
/* @children: (transfer full) */
void               lb_browser_node_set_children   (LbBrowserNode       *self,
                                                   LbBrowserChildren   *children);
/* One column, ascending, no folders-first: what a column's GtkSorter compares. */
int                lb_browser_node_compare_column (LbBrowserNode       *a,
                                                   LbBrowserNode       *b,
                                                   LbBrowserSortColumn  column);
/* Within one container: folders first whatever the direction, then @sort's column in its
 * direction, then the name ascending. */
int                lb_browser_node_compare        (LbBrowserNode       *a,
                                                   LbBrowserNode       *b,
                                                   const LbBrowserSort *sort);

G_END_DECLS
