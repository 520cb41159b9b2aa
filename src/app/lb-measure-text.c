/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-measure"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-measure-text.h"

const char *
lb_measure_text_tool_name (LbMeasurementTool tool)
{
  switch (tool)
    {
    case LB_MEASUREMENT_LENGTH: return _("Length");
    case LB_MEASUREMENT_ANGLE: return _("Angle");
    case LB_MEASUREMENT_POLYLINE: return _("Polyline");
    case LB_MEASUREMENT_RECTANGLE: return _("Rectangle");
    case LB_MEASUREMENT_ELLIPSE: return _("Ellipse");
    case LB_MEASUREMENT_FREEHAND: return _("Freehand");
    case LB_MEASUREMENT_PROBE: return _("Probe");
    case LB_MEASUREMENT_ARROW: return _("Arrow");
    default: return "?";
    }
}

/* How far a length can be trusted, after its unit (docs/measurements.md, Spacing); NULL when
 * the spacing is calibrated. */
static const char *
spacing_hint (const LbMeasurementSpacing *spacing)
{
  switch (spacing->kind)
    {
    case LB_MEASUREMENT_SPACING_UNKNOWN:
      /* TRANSLATORS: after a length in pixels: the image gives no pixel spacing */
      return _("no pixel spacing");
    case LB_MEASUREMENT_SPACING_ESTIMATED:
      /* TRANSLATORS: after a length in mm: corrected by the estimated magnification */
      return _("estimated");
    case LB_MEASUREMENT_SPACING_DETECTOR:
      /* TRANSLATORS: after a length in mm: measured at the detector, not in the patient */
      return _("at detector");
    case LB_MEASUREMENT_SPACING_UNVERIFIED:
      /* TRANSLATORS: after a length in mm: the spacing may not be calibrated */
      return _("uncalibrated");
    case LB_MEASUREMENT_SPACING_CALIBRATED:
    default:
      return NULL;
    }
}

static void
append_quantity (GString                    *s,
                 double                      value,
                 const char                 *unit,
                 const LbMeasurementSpacing *spacing)
{
  const char *hint = spacing_hint (spacing);

  g_string_append_printf (s, "%.1f %s", value, unit);
  if (hint != NULL)
    g_string_append_printf (s, " (%s)", hint);
}

/* The unit of real-world values as shown ("HU" and "stored value" translated). */
static const char *
value_unit (const LbMeasurementValues *values)
{
  if (values->value_unit == NULL)
    return "";
  if (g_str_equal (values->value_unit, "HU"))
    return _("HU");
  if (g_str_equal (values->value_unit, "stored value"))
    /* TRANSLATORS: the unit of an image's values that have no real-world meaning */
    return _("stored value");
  return values->value_unit;
}

static char *
describe (LbMeasurement             *measurement,
          const LbMeasurementValues *v,
          const char                *separator)
{
  GString *s = g_string_new (NULL);
  const LbMeasurementSpacing *sp = &v->spacing;
  const char *text = lb_measurement_get_text (measurement);

  switch (v->tool)
    {
    case LB_MEASUREMENT_LENGTH:
    case LB_MEASUREMENT_POLYLINE:
      append_quantity (s, v->length, lb_measurement_spacing_length_unit (sp), sp);
      break;
    case LB_MEASUREMENT_ARROW:
      if (text != NULL && *text != '\0')
        g_string_append (s, text);
      else
        append_quantity (s, v->length, lb_measurement_spacing_length_unit (sp), sp);
      break;
    case LB_MEASUREMENT_ANGLE:
      g_string_append_printf (s, "%.1f°", v->angle);
      break;
    case LB_MEASUREMENT_PROBE:
      if (v->padding)
        /* TRANSLATORS: the probed pixel is pixel padding: it has no value */
        g_string_append (s, _("padding"));
      else if (v->has_value)
        g_string_append_printf (s, "%.6g %s", v->value, value_unit (v));
      break;
    case LB_MEASUREMENT_RECTANGLE:
    case LB_MEASUREMENT_ELLIPSE:
    case LB_MEASUREMENT_FREEHAND:
    default:
      /* TRANSLATORS: the area of a region of interest */
      g_string_append_printf (s, "%s ", _("Area"));
      append_quantity (s, v->area, lb_measurement_spacing_area_unit (sp), sp);
      if (v->has_stats && v->stats.n_pixels > 0)
        {
          const char *unit = value_unit (v);
          g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, v->stats.n_pixels);

          g_string_append (s, separator);
          /* TRANSLATORS: mean and standard deviation of a region's values, then the unit */
          g_string_append_printf (s, _("Mean %.1f SD %.1f %s"), v->stats.mean, v->stats.sd, unit);
          g_string_append (s, separator);
          /* TRANSLATORS: least and greatest value of a region, then the pixels counted */
          g_string_append_printf (s, _("Min %.6g Max %.6g (%s pixels)"), v->stats.min,
                                  v->stats.max, count);
        }
      break;
    }
  return g_string_free (s, FALSE);
}

char *
lb_measure_text_label (LbMeasurement             *measurement,
                       const LbMeasurementValues *values)
{
  return describe (measurement, values, "\n");
}

char *
lb_measure_text_summary (LbMeasurement             *measurement,
                         const LbMeasurementValues *values)
{
  return describe (measurement, values, " · ");
}
