/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-view"

#include "lb-measurement.h"

#include <math.h>
#include <string.h>

#include "lb-error.h"

struct _LbMeasurement
{
  GObject            parent_instance;
  LbMeasurementTool  tool;
  GArray            *points;  /* LbMeasurementPoint */
  char              *text;
};

G_DEFINE_FINAL_TYPE (LbMeasurement, lb_measurement, G_TYPE_OBJECT)

static const struct {
  const char *name;
  guint       min_points;
  guint       max_points;
} tools[LB_MEASUREMENT_N_TOOLS] = {
  [LB_MEASUREMENT_LENGTH] = { "length", 2, 2 },
  [LB_MEASUREMENT_ANGLE] = { "angle", 3, 3 },
  [LB_MEASUREMENT_POLYLINE] = { "polyline", 2, G_MAXUINT },
  [LB_MEASUREMENT_RECTANGLE] = { "rectangle", 2, 2 },
  [LB_MEASUREMENT_ELLIPSE] = { "ellipse", 2, 2 },
  [LB_MEASUREMENT_FREEHAND] = { "freehand", 3, G_MAXUINT },
  [LB_MEASUREMENT_PROBE] = { "probe", 1, 1 },
  [LB_MEASUREMENT_ARROW] = { "arrow", 2, 2 },
};

const char *
lb_measurement_tool_to_string (LbMeasurementTool tool)
{
  g_return_val_if_fail ((guint) tool < LB_MEASUREMENT_N_TOOLS, NULL);
  return tools[tool].name;
}

gboolean
lb_measurement_tool_from_string (const char *text, LbMeasurementTool *tool)
{
  g_return_val_if_fail (tool != NULL, FALSE);
  if (text == NULL)
    return FALSE;
  for (guint i = 0; i < LB_MEASUREMENT_N_TOOLS; i++)
    if (strcmp (text, tools[i].name) == 0)
      {
        *tool = (LbMeasurementTool) i;
        return TRUE;
      }
  return FALSE;
}

gboolean
lb_measurement_tool_is_roi (LbMeasurementTool tool)
{
  return tool == LB_MEASUREMENT_RECTANGLE || tool == LB_MEASUREMENT_ELLIPSE
         || tool == LB_MEASUREMENT_FREEHAND;
}

void
lb_measurement_tool_get_n_points (LbMeasurementTool tool, guint *min_points, guint *max_points)
{
  g_return_if_fail ((guint) tool < LB_MEASUREMENT_N_TOOLS);
  if (min_points)
    *min_points = tools[tool].min_points;
  if (max_points)
    *max_points = tools[tool].max_points;
}

static void
lb_measurement_finalize (GObject *object)
{
  LbMeasurement *self = LB_MEASUREMENT (object);

  g_array_unref (self->points);
  g_free (self->text);
  G_OBJECT_CLASS (lb_measurement_parent_class)->finalize (object);
}

static void
lb_measurement_class_init (LbMeasurementClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = lb_measurement_finalize;
}

static void
lb_measurement_init (LbMeasurement *self)
{
  self->points = g_array_new (FALSE, FALSE, sizeof (LbMeasurementPoint));
}

LbMeasurement *
lb_measurement_new (LbMeasurementTool tool)
{
  LbMeasurement *self;

  g_return_val_if_fail ((guint) tool < LB_MEASUREMENT_N_TOOLS, NULL);
  self = g_object_new (LB_TYPE_MEASUREMENT, NULL);
  self->tool = tool;
  return self;
}

LbMeasurement *
lb_measurement_new_with_points (LbMeasurementTool         tool,
                                const LbMeasurementPoint *points,
                                guint                     n_points,
                                GError                  **error)
{
  g_autoptr(LbMeasurement) self = lb_measurement_new (tool);

  g_return_val_if_fail (points != NULL || n_points == 0, NULL);
  g_array_append_vals (self->points, points, n_points);
  if (!lb_measurement_validate (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

LbMeasurement *
lb_measurement_copy (LbMeasurement *self)
{
  LbMeasurement *copy;

  g_return_val_if_fail (LB_IS_MEASUREMENT (self), NULL);
  copy = lb_measurement_new (self->tool);
  g_array_append_vals (copy->points, self->points->data, self->points->len);
  copy->text = g_strdup (self->text);
  return copy;
}

LbMeasurementTool
lb_measurement_get_tool (LbMeasurement *self)
{
  g_return_val_if_fail (LB_IS_MEASUREMENT (self), LB_MEASUREMENT_LENGTH);
  return self->tool;
}

guint
lb_measurement_get_n_points (LbMeasurement *self)
{
  g_return_val_if_fail (LB_IS_MEASUREMENT (self), 0);
  return self->points->len;
}

const LbMeasurementPoint *
lb_measurement_get_points (LbMeasurement *self)
{
  g_return_val_if_fail (LB_IS_MEASUREMENT (self), NULL);
  return (const LbMeasurementPoint *) self->points->data;
}

LbMeasurementPoint
lb_measurement_get_point (LbMeasurement *self, guint index)
{
  LbMeasurementPoint none = { 0, 0 };

  g_return_val_if_fail (LB_IS_MEASUREMENT (self), none);
  g_return_val_if_fail (index < self->points->len, none);
  return g_array_index (self->points, LbMeasurementPoint, index);
}

void
lb_measurement_add_point (LbMeasurement *self, double x, double y)
{
  LbMeasurementPoint p = { x, y };

  g_return_if_fail (LB_IS_MEASUREMENT (self));
  g_array_append_val (self->points, p);
}

void
lb_measurement_set_point (LbMeasurement *self, guint index, double x, double y)
{
  g_return_if_fail (LB_IS_MEASUREMENT (self));
  g_return_if_fail (index < self->points->len);
  g_array_index (self->points, LbMeasurementPoint, index) = (LbMeasurementPoint) { x, y };
}

void
lb_measurement_remove_last_point (LbMeasurement *self)
{
  g_return_if_fail (LB_IS_MEASUREMENT (self));
  if (self->points->len > 0)
    g_array_set_size (self->points, self->points->len - 1);
}

const char *
lb_measurement_get_text (LbMeasurement *self)
{
  g_return_val_if_fail (LB_IS_MEASUREMENT (self), NULL);
  return self->text;
}

void
lb_measurement_set_text (LbMeasurement *self, const char *text)
{
  g_return_if_fail (LB_IS_MEASUREMENT (self));
  g_free (self->text);
  self->text = g_strdup (text);
}

gboolean
lb_measurement_is_complete (LbMeasurement *self)
{
  g_return_val_if_fail (LB_IS_MEASUREMENT (self), FALSE);
  return self->points->len >= tools[self->tool].min_points
         && self->points->len <= tools[self->tool].max_points;
}

gboolean
lb_measurement_validate (LbMeasurement *self, GError **error)
{
  const char *name;

  g_return_val_if_fail (LB_IS_MEASUREMENT (self), FALSE);
  name = tools[self->tool].name;
  if (!lb_measurement_is_complete (self))
    {
      if (tools[self->tool].max_points == G_MAXUINT)
        g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                     "“%s” needs at least %u points, not %u", name,
                     tools[self->tool].min_points, self->points->len);
      else
        g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                     "“%s” needs %u point%s, not %u", name, tools[self->tool].min_points,
                     tools[self->tool].min_points == 1 ? "" : "s", self->points->len);
      return FALSE;
    }
  for (guint i = 0; i < self->points->len; i++)
    {
      LbMeasurementPoint p = g_array_index (self->points, LbMeasurementPoint, i);

      if (!isfinite (p.x) || !isfinite (p.y) || fabs (p.x) > LB_MEASUREMENT_MAX_COORDINATE
          || fabs (p.y) > LB_MEASUREMENT_MAX_COORDINATE)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                       "“%s” point %u (%g, %g) is not a coordinate within %g pixels", name,
                       i + 1, p.x, p.y, LB_MEASUREMENT_MAX_COORDINATE);
          return FALSE;
        }
    }
  return TRUE;
}
