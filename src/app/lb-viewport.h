/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "lb-canvas.h"
#include "lb-frame-source.h"
#include "lb-history.h"

G_BEGIN_DECLS

/**
 * LbViewport:
 *
 * One view of the viewport grid: a canvas with its overlay (the four corner texts, the
 * orientation markers at the edges, the scale bar, a spinner and the empty-view hint), the
 * reference line of another viewport's slice, and the border that marks the active viewport.
 *
 * The window works on the active viewport through its own fields (history, frames, frame),
 * as it did with its single canvas; a viewport that is not active keeps them in its
 * #LbViewportState, and can show another slice of its stack by itself
 * (lb_viewport_show_slice(): synchronised scrolling).
 *
 * Signals: ::request-active when the user clicks, scrolls or focuses it (the window decides);
 * ::open-uri when a string (a store or study panel row's URI) is dropped on it;
 * ::slice-shown when lb_viewport_show_slice() has put its slice on the canvas.
 */
#define LB_TYPE_VIEWPORT (lb_viewport_get_type ())
G_DECLARE_FINAL_TYPE (LbViewport, lb_viewport, LB, VIEWPORT, GtkWidget)

/* What the window holds for the active viewport and a viewport holds while it is not. */
typedef struct {
  LbHistory     *history;     /* the image shown and its filter steps; NULL: none */
  char          *image_name;  /* for the title */
  LbFrameSource *frames;      /* the stack (series or multi-frame object), NULL for one image */
  guint          frame;       /* the frame or slice shown, from 1; 0 while none is */
} LbViewportState;

GtkWidget       *lb_viewport_new              (void);
/* (transfer none) */
LbCanvas        *lb_viewport_get_canvas       (LbViewport   *self);
LbViewportState *lb_viewport_get_state        (LbViewport   *self);
/* Drops what the state holds. */
void             lb_viewport_clear_state      (LbViewport   *self);

/* The overlay labels (by LbOverlayCorner and LbOverlayEdge), the hint and the spinner. */
GtkWidget       *lb_viewport_get_corner       (LbViewport   *self,
                                               guint         corner);
GtkWidget       *lb_viewport_get_edge         (LbViewport   *self,
                                               guint         edge);
GtkWidget       *lb_viewport_get_empty_label  (LbViewport   *self);
GtkWidget       *lb_viewport_get_spinner      (LbViewport   *self);
/* A widget of the viewport by its name ("overlay_top_left", "marker_top", "scale_bar", …). */
GtkWidget       *lb_viewport_find_child       (LbViewport   *self,
                                               const char   *name);

/* @marked: draw the border (only when several viewports show). */
void             lb_viewport_set_active       (LbViewport   *self,
                                               gboolean      active,
                                               gboolean      marked);
gboolean         lb_viewport_get_active       (LbViewport   *self);

/* The scale bar: shown with the overlay (@on) when the image has a pixel spacing; its length
 * follows the zoom and the viewport's width. The drawing area and its length in mm (0: none). */
void             lb_viewport_update_scale_bar (LbViewport   *self,
                                               gboolean      on);
GtkWidget       *lb_viewport_get_scale_bar    (LbViewport   *self,
                                               double       *mm);

/* The reference line from (@ij[0], @ij[1]) to (@ij[2], @ij[3]) in the pixel positions of the
 * image shown (pixel centres at integers, PS3.3 C.7.6.2.1.1); NULL: none. */
void             lb_viewport_set_reference_line (LbViewport   *self,
                                                 const double *ij);
gboolean         lb_viewport_get_reference_line (LbViewport   *self,
                                                 double        ij[4]);
/* The widget point (canvas coordinates) of continuous image position (@x, @y). FALSE while
 * the canvas shows nothing. */
gboolean         lb_viewport_image_to_widget  (LbViewport   *self,
                                               double        x,
                                               double        y,
                                               double       *wx,
                                               double       *wy);

/* Shows slice @number of the state's stack (not while active: the window steps that one).
 * The view (zoom, pan, W/L) stays. A newer call or lb_viewport_cancel_slice() drops an older
 * one. */
void             lb_viewport_show_slice       (LbViewport   *self,
                                               guint         number);
/* Cancels the slice being loaded, if any: TRUE with its number in @pending. */
gboolean         lb_viewport_cancel_slice     (LbViewport   *self,
                                               guint        *pending);

G_END_DECLS
