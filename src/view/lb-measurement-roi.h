/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-image.h"
#include "lb-measurement.h"

G_BEGIN_DECLS

/**
 * LbMeasurementRoi:
 *
 * The region of a rectangle, ellipse or freehand measurement, prepared once for counting the
 * pixels inside it, row by row.
 *
 * The inside rule: pixel (column c, row r) is inside when its centre (c + 0.5, r + 0.5)
 * (lb-measurement.h) is inside the shape:
 * - rectangle: x0 ≤ x ≤ x1 and y0 ≤ y ≤ y1 (the border counts as inside);
 * - ellipse with centre (cx, cy) and semi-axes rx, ry (half the box's sides):
 *   ((x − cx) / rx)² + ((y − cy) / ry)² ≤ 1; an ellipse with a zero axis holds no pixel;
 * - freehand polygon: the even-odd rule on a ray towards +x: the centre is inside when an odd
 *   number of edges cross the row's line y at an x beyond the centre's, an edge from (xi, yi)
 *   to (xj, yj) crossing it when exactly one of yi, yj is above y (yi > y differs from yj > y),
 *   at xi + (y − yi) (xj − xi) / (yj − yi). A self-intersecting outline counts its overlaps
 *   out, as the even-odd rule does.
 * The rule is on image coordinates, so it is the same at any zoom, rotation or flip.
 *
 * lb_measurement_roi_contains() applies the rule to one point: it is the reference.
 * lb_measurement_roi_row_spans() gives each row's inside columns as runs, with the ends of
 * every run checked by the same test, so both always agree. A freehand ROI keeps one row's
 * crossings in the ROI itself: use one ROI from one thread at a time.
 */
typedef struct _LbMeasurementRoi LbMeasurementRoi;

/* A run of inside columns of one row: [start, end). */
typedef struct {
  guint start;
  guint end;
} LbMeasurementSpan;

/**
 * LbMeasurementStats:
 * @n_pixels: pixels inside and not padding: the pixels counted
 * @n_padding: pixels inside that are pixel padding (PS3.3 C.7.5.1.1.2), left out
 * @mean: the mean of the real-world values (the Modality LUT applied)
 * @sd: their standard deviation over the counted pixels, dividing by @n_pixels (the
 *   population's, as numpy.std() with ddof=0)
 * @min: the least value
 * @max: the greatest value
 *
 * Statistics over the stored samples, never the displayed bytes. With no pixel counted, the
 * values are 0 and @n_pixels is 0.
 */
typedef struct {
  guint64 n_pixels;
  guint64 n_padding;
  double  mean;
  double  sd;
  double  min;
  double  max;
} LbMeasurementStats;

/* @measurement must be a complete, valid ROI (lb_measurement_tool_is_roi()); else
 * %LB_ERROR_INVALID_ARGUMENT. The ROI copies what it needs. */
LbMeasurementRoi *lb_measurement_roi_new       (LbMeasurement          *measurement,
                                                GError                **error);
void              lb_measurement_roi_free      (LbMeasurementRoi       *roi);
/* The rule above for the point (@x, @y) in image coordinates. */
gboolean          lb_measurement_roi_contains  (const LbMeasurementRoi *roi,
                                                double                  x,
                                                double                  y);
/* The shape's own area in square pixels: the rectangle's, π rx ry, or the polygon's by the
 * shoelace formula (for an outline that crosses itself, the signed parts add up). */
double            lb_measurement_roi_get_area  (const LbMeasurementRoi *roi);
/* The rows that may hold inside pixels, clipped to @height: [*first, *end). FALSE when none. */
gboolean          lb_measurement_roi_get_rows  (const LbMeasurementRoi *roi,
                                                guint                   height,
                                                guint                  *first,
                                                guint                  *end);
/* Replaces the contents of @spans (#LbMeasurementSpan) with the runs of @row's inside
 * columns within [0, @width), left to right. Returns the number of runs. */
guint             lb_measurement_roi_row_spans (const LbMeasurementRoi *roi,
                                                guint                   row,
                                                guint                   width,
                                                GArray                 *spans);

/**
 * lb_measurement_roi_stats:
 * @image: grey samples (gray or gray+alpha, 8 or 16 bits); the alpha channel is ignored
 *
 * The statistics of @roi over @image's real-world values: the value model of @image's
 * metadata (lb_image_meta_get_value_model_for()) gives the Modality LUT and the padding; an
 * image without one has its samples as values. One pass over the region counts its samples
 * (a histogram); each sample value that occurs is then mapped once, rescale or Modality LUT
 * Sequence alike, and mean and deviation are taken over the bins in two passes. Colour images
 * fail with %LB_ERROR_UNSUPPORTED.
 */
gboolean          lb_measurement_roi_stats     (const LbMeasurementRoi *roi,
                                                LbImage                *image,
                                                LbMeasurementStats     *stats,
                                                GError                **error);
/* The same by the plain definition: every pixel of the bounding rows and columns tested with
 * lb_measurement_roi_contains(), each value from lb_value_model_to_value(), two passes for the
 * deviation. Slow; the reference the tests hold the fast path to. */
gboolean          lb_measurement_roi_stats_reference (const LbMeasurementRoi *roi,
                                                      LbImage                *image,
                                                      LbMeasurementStats     *stats,
                                                      GError                **error);

/**
 * lb_measurement_sample_value:
 * @x: column
 * @y: row
 * @value: (out): the real-world value of the pixel's (first) sample
 *
 * One pixel's value as the statistics see it (the probe tool). FALSE when (@x, @y) is outside
 * the image, the image is not grey, or the pixel is padding (then *@value is the stored
 * sample's value all the same, and *@padding is TRUE).
 */
gboolean          lb_measurement_sample_value  (LbImage                *image,
                                                guint                   x,
                                                guint                   y,
                                                double                 *value,
                                                gboolean               *padding);

/* The unit of @image's real-world values: the value model's ("HU" for CT), else "stored value"
 * when the values are the stored samples, else "" (a rescale that names no unit). */
const char       *lb_measurement_value_unit    (LbImage                *image);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LbMeasurementRoi, lb_measurement_roi_free)

G_END_DECLS
