/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-view"

#include "lb-measurement-geometry.h"

#include <math.h>

/* The step from @a to @b in millimetres (pixels when the spacing is unknown: it is 1 × 1). */
static void
mm_vector (const LbMeasurementSpacing *spacing, LbMeasurementPoint a, LbMeasurementPoint b,
           double *dx, double *dy)
{
  *dx = (b.x - a.x) * spacing->column_mm;
  *dy = (b.y - a.y) * spacing->row_mm;
}

double
lb_measurement_distance (const LbMeasurementSpacing *spacing,
                         LbMeasurementPoint          a,
                         LbMeasurementPoint          b)
{
  double dx, dy;

  g_return_val_if_fail (spacing != NULL, 0);
  mm_vector (spacing, a, b, &dx, &dy);
  return hypot (dx, dy);
}

double
lb_measurement_angle (const LbMeasurementSpacing *spacing,
                      LbMeasurementPoint          a,
                      LbMeasurementPoint          vertex,
                      LbMeasurementPoint          b)
{
  double ux, uy, wx, wy;

  g_return_val_if_fail (spacing != NULL, 0);
  mm_vector (spacing, vertex, a, &ux, &uy);
  mm_vector (spacing, vertex, b, &wx, &wy);
  if ((ux == 0 && uy == 0) || (wx == 0 && wy == 0))
    return 0;
  /* atan2 of the cross and dot products: accurate near 0° and 180°, where acos is not */
  return atan2 (fabs (ux * wy - uy * wx), ux * wx + uy * wy) * (180.0 / G_PI);
}

gboolean
lb_measurement_compute (LbMeasurement              *measurement,
                        const LbMeasurementSpacing *spacing,
                        LbImage                    *image,
                        LbMeasurementValues        *values,
                        GError                    **error)
{
  const LbMeasurementPoint *p;
  guint n;

  g_return_val_if_fail (LB_IS_MEASUREMENT (measurement), FALSE);
  g_return_val_if_fail (spacing != NULL && values != NULL, FALSE);
  g_return_val_if_fail (image == NULL || LB_IS_IMAGE (image), FALSE);

  *values = (LbMeasurementValues) { 0 };
  values->tool = lb_measurement_get_tool (measurement);
  values->spacing = *spacing;
  if (!lb_measurement_validate (measurement, error))
    return FALSE;
  p = lb_measurement_get_points (measurement);
  n = lb_measurement_get_n_points (measurement);
  if (image != NULL)
    values->value_unit = lb_measurement_value_unit (image);

  switch (values->tool)
    {
    case LB_MEASUREMENT_LENGTH:
    case LB_MEASUREMENT_ARROW:
    case LB_MEASUREMENT_POLYLINE:
      for (guint i = 0; i + 1 < n; i++)
        values->length += lb_measurement_distance (spacing, p[i], p[i + 1]);
      return TRUE;
    case LB_MEASUREMENT_ANGLE:
      values->angle = lb_measurement_angle (spacing, p[0], p[1], p[2]);
      return TRUE;
    case LB_MEASUREMENT_PROBE:
      if (image != NULL && p[0].x >= 0 && p[0].y >= 0)
        values->has_value = lb_measurement_sample_value (image, (guint) floor (p[0].x),
                                                         (guint) floor (p[0].y),
                                                         &values->value, &values->padding);
      if (!values->has_value)
        values->value = 0;
      return TRUE;
    case LB_MEASUREMENT_RECTANGLE:
    case LB_MEASUREMENT_ELLIPSE:
    case LB_MEASUREMENT_FREEHAND:
      {
        g_autoptr(LbMeasurementRoi) roi = lb_measurement_roi_new (measurement, error);

        if (roi == NULL)
          return FALSE;
        values->area = lb_measurement_roi_get_area (roi) * spacing->column_mm * spacing->row_mm;
        if (image != NULL)
          {
            if (!lb_measurement_roi_stats (roi, image, &values->stats, error))
              return FALSE;
            values->has_stats = TRUE;
          }
        return TRUE;
      }
    default:
      g_return_val_if_reached (FALSE);
    }
}
