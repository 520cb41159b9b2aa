/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-measurement-geometry.h"

G_BEGIN_DECLS

/**
 * LbMeasurementCsvRow:
 * @image: (nullable): which image (a file name, a series and instance)
 * @slice: the slice or frame as the reader counts it, from 1; 0 when there is none
 * @measurement: the measurement (its tool, text and points)
 * @values: what lb_measurement_compute() gave for it
 * @series: (nullable): the series it is on, when the list holds several
 *
 * One row of the measurement list.
 */
typedef struct {
  const char                *image;
  guint                      slice;
  LbMeasurement             *measurement;
  const LbMeasurementValues *values;
  const char                *series;
} LbMeasurementCsvRow;

/**
 * lb_measurement_csv:
 *
 * The measurement list as CSV (RFC 4180: a header line, fields separated by commas, lines
 * ended by CRLF, a field with a comma, a quote or a line break quoted, quotes doubled), one
 * line per row, with the columns image, slice, tool, text, length, length_unit, angle_deg,
 * area, area_unit, pixels, padding, mean, sd, min, max, value, value_unit, spacing, points, series
 * (last, so that readers of the earlier columns by position are unchanged).
 * A column that does not apply to a tool is empty. Numbers have up to 10 significant digits
 * and a '.' whatever the locale; points are "x y" pairs separated by ';'. A text field that a
 * spreadsheet would take for a formula (it starts with '=', '+', '-' or '@') gets a leading
 * apostrophe, so opening the file never runs what a label says.
 */
char *lb_measurement_csv (const LbMeasurementCsvRow *rows,
                          guint                      n_rows) G_GNUC_MALLOC;

G_END_DECLS
