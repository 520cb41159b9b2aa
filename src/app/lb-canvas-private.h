/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-canvas.h"
#include "lb-render.h"

G_BEGIN_DECLS

#define MIN_ZOOM (1.0 / 64.0)
#define MAX_ZOOM 64.0
#define ZOOM_STEP 1.25
#define PAN_STEP 48.0 /* widget pixels per arrow key */

struct _LbCanvas {
  GtkWidget parent_instance;

  /* Owned */
  LbImage        *image;
  LbImage        *before;
  LbImageMeta    *meta;          /* of what is shown (image or progressive) */
  LbRenderSource  src;           /* what is shown: image pixels or a decoder's buffer */
  gboolean        have_src;
  LbRenderSource  before_src;
  LbValueModel   *model;         /* what the shown samples mean (NULL: plain samples) */
  LbLut           lut;
  LbLut           before_lut;
  guint64        *hist;          /* 65536 or 256 bins of the first channel */
  guint           hist_bins;
  gboolean        hist_valid;
  GdkTexture     *texture;       /* the last rendered view, device pixels */
  GBytes         *display;       /* its pixels */
  guint           display_w, display_h;

  /* View state */
  LbViewTransform view;          /* zoom in logical pixels; scaled when rendering */
  gboolean        fit_mode;      /* refit on resize until the user zooms */
  double          wl_center, wl_width;
  int             voi_lut;       /* the model's VOI LUT shown instead of the window, or -1 */
  gboolean        wl_user;       /* the user chose the window: keep it */
  gboolean        progressive;   /* showing a decoder's buffer that is still filling */
  guint64         progress_rows; /* rows added to the histogram while progressive */
  gboolean        invert;
  gboolean        split;
  double          split_pos;     /* 0..1 of the width */
  gboolean        dirty;
  gboolean        stack_navigation; /* the wheel and Up/Down page through a stack */
  char           *loading_text;  /* a stack's frame not loaded yet: drawn instead of pixels */

  /* Gestures */
  double          pointer_x, pointer_y;
  gboolean        pointer_inside;
  double          drag_center_x, drag_center_y;
  double          drag_wl_center, drag_wl_width;
  char           *probe_text;
  double          scroll_steps;  /* wheel deltas not yet turned into a page step */

  LbCanvasOverlayFunc overlay_func; /* drawn over the image: the measurements */
  gpointer        overlay_data;
};

/* lb-canvas.c */
/* Recomputes the probe text for the pointer position and notifies "probe-text". */
void   _lb_canvas_update_probe     (LbCanvas       *self);
/* Modality units per widget pixel of a window/level drag. */
double _lb_canvas_wl_sensitivity   (LbCanvas       *self);

/* lb-canvas-input.c */
/* The keyboard bindings. */
void   _lb_canvas_class_init_input (GtkWidgetClass *wc);
/* The pointer gestures. */
void   _lb_canvas_init_input       (LbCanvas       *self);

G_END_DECLS
