/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "lb-dicom-dataset.h"

G_BEGIN_DECLS

/* What a reader must always see on a slice: the four corner texts and the orientation markers
 * at the four edges (issue: reading a study). GTK-free; the workstation draws the strings. */

/* The view state the texts depend on. The transform applies to the image in this order: a
 * rotation by @rotation quarter turns clockwise, then a horizontal flip (left ↔ right on the
 * screen), then a vertical flip (top ↔ bottom); lb-render's LbViewTransform is the same with
 * @flip_v FALSE. */
typedef struct {
  guint    rotation;       /* quarter turns clockwise (0…3; taken modulo 4) */
  gboolean flip_h;
  gboolean flip_v;
  double   zoom;           /* display pixels per image pixel; ≤ 0: not shown */
  gboolean has_window;
  double   window_center;  /* in real-world units (HU for CT) */
  double   window_width;
  const char *window_units; /* the unit of the window's values ("HU"), NULL when unknown */
  guint    slice_index;    /* 0-based */
  guint    n_slices;       /* 0: no slice line */
  gboolean has_location;   /* the series' slice location (LbDicomSeries), else SliceLocation */
  double   location;       /* mm */
} LbOverlayView;

typedef enum {
  LB_OVERLAY_TOP_LEFT,      /* patient: name, ID, sex and age */
  LB_OVERLAY_TOP_RIGHT,     /* study: date and description */
  LB_OVERLAY_BOTTOM_LEFT,   /* series number and description; slice N/M, location, thickness */
  LB_OVERLAY_BOTTOM_RIGHT,  /* W/L and zoom */
} LbOverlayCorner;

typedef enum {
  LB_OVERLAY_EDGE_TOP,
  LB_OVERLAY_EDGE_RIGHT,
  LB_OVERLAY_EDGE_BOTTOM,
  LB_OVERLAY_EDGE_LEFT,
} LbOverlayEdge;

/* The text of @corner, lines separated by '\n'; lines whose attributes are absent are left
 * out. Never NULL (possibly ""). */
char    *lb_overlay_corner_text (const LbDicomDataset *ds,
                                 const LbOverlayView  *view,
                                 LbOverlayCorner       corner) G_GNUC_MALLOC;

/**
 * lb_overlay_direction_letters:
 * @direction: a direction in the patient coordinate system (PS3.3 C.7.6.2.1.1: x towards the
 *   patient's left, y posterior, z head)
 * @out: at least 3 bytes
 *
 * The letters of @direction: L/R for x, P/A for y, H/F for z, the dominant one first, then the
 * second when the direction is oblique (its component above 1e-3 of the length). FALSE (and
 * "") for a zero direction.
 */
gboolean lb_overlay_direction_letters (const double direction[3],
                                       char         out[3]);

/**
 * lb_overlay_edge_markers:
 * @iop: ImageOrientationPatient: the row (towards increasing column) and column (towards
 *   increasing row) direction cosines
 * @out: the letters of the direction from the centre towards each edge of the screen,
 *   indexed by #LbOverlayEdge
 *
 * Follows @view's rotation and flips. FALSE when @iop does not span a plane.
 */
gboolean lb_overlay_edge_markers (const double         iop[6],
                                  const LbOverlayView *view,
                                  char                 out[4][3]);
/* The same from the data set's ImageOrientationPatient (top level, else the shared or first
 * per-frame functional group's Plane Orientation). FALSE without one. */
gboolean lb_overlay_dataset_markers (const LbDicomDataset *ds,
                                     const LbOverlayView  *view,
                                     char                  out[4][3]);

/* Whether the view is not the image as stored (a rotation or a flip): the UI marks it. */
gboolean lb_overlay_view_is_transformed (const LbOverlayView *view);

G_END_DECLS
