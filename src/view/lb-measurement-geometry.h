/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-image.h"
#include "lb-measurement.h"
#include "lb-measurement-roi.h"
#include "lb-measurement-spacing.h"

G_BEGIN_DECLS

/*
 * What a measurement measures, in real-world units. Every quantity is computed from
 * millimetre vectors: a step of (dx, dy) pixels is (dx × column spacing, dy × row spacing) mm,
 * so anisotropic pixels give correct lengths and angles. With an unknown spacing the unit is
 * the pixel.
 */

/* The distance from @a to @b: mm, or pixels when the spacing is unknown. */
double lb_measurement_distance (const LbMeasurementSpacing *spacing,
                                LbMeasurementPoint          a,
                                LbMeasurementPoint          b);

/* The angle at @vertex between the rays to @a and @b, degrees in [0, 180]; 0 when either ray
 * has no length. */
double lb_measurement_angle    (const LbMeasurementSpacing *spacing,
                                LbMeasurementPoint          a,
                                LbMeasurementPoint          vertex,
                                LbMeasurementPoint          b);

/**
 * LbMeasurementValues:
 * @tool: the measurement's tool
 * @spacing: the spacing used (its kind says how far lengths can be trusted)
 * @length: LENGTH, ARROW: the distance between the points; POLYLINE: the sum over its
 *   segments; in lb_measurement_spacing_length_unit()
 * @angle: ANGLE: degrees
 * @area: ROIs: the shape's area (lb_measurement_roi_get_area() × column × row spacing), in
 *   lb_measurement_spacing_area_unit()
 * @has_stats: ROIs measured on an image: @stats is set
 * @stats: the ROI's statistics over real-world values
 * @has_value: PROBE on an image, inside it: @value is set
 * @value: the probed pixel's real-world value
 * @padding: PROBE: the pixel is padding (it has no value; @has_value is FALSE)
 * @value_unit: (nullable): the unit of @stats and @value (lb_measurement_value_unit()); NULL
 *   without an image
 */
typedef struct {
  LbMeasurementTool    tool;
  LbMeasurementSpacing spacing;
  double               length;
  double               angle;
  double               area;
  gboolean             has_stats;
  LbMeasurementStats   stats;
  gboolean             has_value;
  double               value;
  gboolean             padding;
  const char          *value_unit;
} LbMeasurementValues;

/**
 * lb_measurement_compute:
 * @image: (nullable): the image measured; without it, ROIs get their area only and the probe
 *   no value
 *
 * Fails like lb_measurement_validate() for an incomplete measurement, and with
 * %LB_ERROR_UNSUPPORTED for statistics of a colour image.
 */
gboolean lb_measurement_compute (LbMeasurement              *measurement,
                                 const LbMeasurementSpacing *spacing,
                                 LbImage                    *image,
                                 LbMeasurementValues        *values,
                                 GError                    **error);

G_END_DECLS
