/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "lb-viewport.h"

G_BEGIN_DECLS

#define LB_VIEWPORT_GRID_MAX 4

/**
 * LbViewportGrid:
 *
 * The viewports of the window in a layout of rows × columns (1×1, 1×2, 2×1, 2×2). It always
 * holds four viewports; a layout shows the first rows × columns of them, row by row, and the
 * others keep what they show for a later layout. One is active (property "active"); its border
 * is marked while more than one shows.
 */
#define LB_TYPE_VIEWPORT_GRID (lb_viewport_grid_get_type ())
G_DECLARE_FINAL_TYPE (LbViewportGrid, lb_viewport_grid, LB, VIEWPORT_GRID, GtkWidget)

GtkWidget  *lb_viewport_grid_new          (void);
/* @index < LB_VIEWPORT_GRID_MAX. (transfer none) */
LbViewport *lb_viewport_grid_get_viewport (LbViewportGrid *self,
                                           guint           index);
/* The index of @viewport, -1 if it is not one of the grid's. */
int         lb_viewport_grid_index_of     (LbViewportGrid *self,
                                           LbViewport     *viewport);
LbViewport *lb_viewport_grid_get_active   (LbViewportGrid *self);
/* Marks @viewport active (it must show) and notifies "active". */
void        lb_viewport_grid_set_active   (LbViewportGrid *self,
                                           LbViewport     *viewport);
/* @rows and @columns 1 or 2. The active viewport stays if it still shows, else the first
 * becomes active. */
void        lb_viewport_grid_set_layout   (LbViewportGrid *self,
                                           guint           rows,
                                           guint           columns);
void        lb_viewport_grid_get_layout   (LbViewportGrid *self,
                                           guint          *rows,
                                           guint          *columns);
/* The number of viewports the layout shows. */
guint       lb_viewport_grid_get_n_shown  (LbViewportGrid *self);

G_END_DECLS
