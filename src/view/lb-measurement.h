/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/**
 * LbMeasurementTool:
 * @LB_MEASUREMENT_LENGTH: a straight line: 2 points
 * @LB_MEASUREMENT_ANGLE: 3 points, the vertex in the middle
 * @LB_MEASUREMENT_POLYLINE: an open polyline: 2 or more points
 * @LB_MEASUREMENT_RECTANGLE: 2 opposite corners of a rectangle whose sides follow the image's
 *   rows and columns
 * @LB_MEASUREMENT_ELLIPSE: 2 opposite corners of the box around an ellipse whose axes follow
 *   the image's rows and columns
 * @LB_MEASUREMENT_FREEHAND: a closed polygon: 3 or more points, the last joined to the first
 * @LB_MEASUREMENT_PROBE: 1 point: the value of the pixel under it
 * @LB_MEASUREMENT_ARROW: 2 points, the tail then the head, with a text label
 *
 * The rectangle, ellipse and freehand tools are regions of interest (ROIs): they have an area
 * and statistics over the pixels inside them (lb-measurement-roi.h).
 */
typedef enum {
  LB_MEASUREMENT_LENGTH,
  LB_MEASUREMENT_ANGLE,
  LB_MEASUREMENT_POLYLINE,
  LB_MEASUREMENT_RECTANGLE,
  LB_MEASUREMENT_ELLIPSE,
  LB_MEASUREMENT_FREEHAND,
  LB_MEASUREMENT_PROBE,
  LB_MEASUREMENT_ARROW,
} LbMeasurementTool;

#define LB_MEASUREMENT_N_TOOLS (LB_MEASUREMENT_ARROW + 1)

/**
 * LbMeasurementPoint:
 *
 * A point in image pixel coordinates, continuous: x grows along a row (to the next column), y
 * down the columns (to the next row), both from the image's top left corner, in pixels of the
 * stored image (never of the screen: zoom, pan, rotation and flip do not change them). Pixel
 * (column c, row r) covers [c, c + 1) × [r, r + 1), so its centre is (c + 0.5, r + 0.5). This
 * is the convention of lb_view_to_image() (src/view/lb-render.h), whose result the canvas
 * floors to find the pixel under the pointer.
 */
typedef struct {
  double x;
  double y;
} LbMeasurementPoint;

/* "length", "angle", "polyline", "rectangle", "ellipse", "freehand", "probe", "arrow": the
 * names the JSON sidecar uses. Parsing is exact; FALSE for anything else. */
const char *lb_measurement_tool_to_string   (LbMeasurementTool  tool);
gboolean    lb_measurement_tool_from_string (const char        *text,
                                             LbMeasurementTool *tool);
/* TRUE for the rectangle, ellipse and freehand tools. */
gboolean    lb_measurement_tool_is_roi      (LbMeasurementTool  tool);
/* The number of points the tool needs: @min_points, and @max_points (G_MAXUINT: no limit). */
void        lb_measurement_tool_get_n_points (LbMeasurementTool tool,
                                              guint            *min_points,
                                              guint            *max_points);

/* Coordinates further than this from the image (in pixels) are refused: no image is that
 * large, and it keeps every sum of coordinates far from overflow and loss of precision. */
#define LB_MEASUREMENT_MAX_COORDINATE 1.0e7

/**
 * LbMeasurement:
 *
 * One measurement or annotation on one image (one frame): its tool, its points
 * (#LbMeasurementPoint), and for the arrow a text label. What it measures depends on the
 * image's spacing and values and is computed on demand (lb-measurement-geometry.h), never
 * stored in the object, so editing a point can never leave a stale value.
 *
 * Mutable: the workstation adds points while the user draws and moves them when a handle is
 * dragged; lb_measurement_copy() gives the undo history its own copy.
 */
#define LB_TYPE_MEASUREMENT (lb_measurement_get_type ())
G_DECLARE_FINAL_TYPE (LbMeasurement, lb_measurement, LB, MEASUREMENT, GObject)

LbMeasurement            *lb_measurement_new          (LbMeasurementTool         tool);
/* A measurement with @n_points points; fails like lb_measurement_validate(). */
LbMeasurement            *lb_measurement_new_with_points (LbMeasurementTool         tool,
                                                          const LbMeasurementPoint *points,
                                                          guint                     n_points,
                                                          GError                  **error);
LbMeasurement            *lb_measurement_copy         (LbMeasurement            *self);
LbMeasurementTool         lb_measurement_get_tool     (LbMeasurement            *self);
guint                     lb_measurement_get_n_points (LbMeasurement            *self);
/* (transfer none): the points, valid until the next change */
const LbMeasurementPoint *lb_measurement_get_points   (LbMeasurement            *self);
LbMeasurementPoint        lb_measurement_get_point    (LbMeasurement            *self,
                                                       guint                     index);
void                      lb_measurement_add_point    (LbMeasurement            *self,
                                                       double                    x,
                                                       double                    y);
/* Moves point @index (a handle dragged). */
void                      lb_measurement_set_point    (LbMeasurement            *self,
                                                       guint                     index,
                                                       double                    x,
                                                       double                    y);
void                      lb_measurement_remove_last_point (LbMeasurement       *self);
/* (nullable): the arrow's label (any tool may carry one) */
const char               *lb_measurement_get_text     (LbMeasurement            *self);
void                      lb_measurement_set_text     (LbMeasurement            *self,
                                                       const char               *text);
/* TRUE when the tool has as many points as it needs. */
gboolean                  lb_measurement_is_complete  (LbMeasurement            *self);
/* %LB_ERROR_INVALID_ARGUMENT when the number of points does not suit the tool, or a
 * coordinate is not finite or beyond %LB_MEASUREMENT_MAX_COORDINATE. */
gboolean                  lb_measurement_validate     (LbMeasurement            *self,
                                                       GError                  **error);

G_END_DECLS
