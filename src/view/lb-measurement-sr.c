/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-view"

#include "config.h"

#include "lb-measurement-sr.h"

#include <math.h>
#include <string.h>

#include "lb-dicom-sr.h"
#include "lb-dicom-tags.h"
#include "lb-dicom-writer.h"
#include "lb-error.h"
#include "lb-measurement-geometry.h"

/* Points that differ by less than this (pixels) are the same: a closed outline's last point,
 * an axis that follows a row. Far below a pixel, far above single-precision rounding. */
#define SAME_POINT 1e-3
/* A rotated ellipse becomes a polygon of this many points. */
#define ELLIPSE_POLYGON_POINTS 64

/* ---- writing ------------------------------------------------------------------------------ */

LbMeasurement *
lb_measurement_sr_round (LbMeasurement *measurement)
{
  LbMeasurement *copy = lb_measurement_copy (measurement);
  guint n = lb_measurement_get_n_points (copy);

  for (guint i = 0; i < n; i++)
    {
      LbMeasurementPoint p = lb_measurement_get_point (copy, i);

      lb_measurement_set_point (copy, i, (float) p.x, (float) p.y);
    }
  return copy;
}

static LbDicomCode
length_unit (const LbMeasurementSpacing *spacing)
{
  return spacing->kind == LB_MEASUREMENT_SPACING_UNKNOWN ? LB_CODE_UNIT_PIXEL : LB_CODE_UNIT_MM;
}

static LbDicomCode
area_unit (const LbMeasurementSpacing *spacing)
{
  return spacing->kind == LB_MEASUREMENT_SPACING_UNKNOWN ? LB_CODE_UNIT_PIXEL2 : LB_CODE_UNIT_MM2;
}

/* The UCUM code of a value unit (lb_measurement_value_unit()): Hounsfield units, no unit, or
 * the rescale's own name as a UCUM annotation; @buf holds it. */
static LbDicomCode
value_unit (const char *unit, char *buf, gsize size)
{
  if (g_strcmp0 (unit, "HU") == 0)
    return LB_CODE_UNIT_HU;
  if (unit == NULL || *unit == '\0' || strcmp (unit, "stored value") == 0 || strlen (unit) > 14
      || strpbrk (unit, "{}\\") != NULL || !g_str_is_ascii (unit))
    return LB_CODE_UNIT_NONE;
  g_snprintf (buf, size, "{%s}", unit);
  return LB_DICOM_CODE (buf, "UCUM", unit);
}

/* The SCOORD of @m: its graphic type, and its points in @xy (2 doubles each). */
static const char *
scoord_of (LbMeasurement *m, GArray *xy)
{
  const LbMeasurementPoint *p = lb_measurement_get_points (m);
  guint n = lb_measurement_get_n_points (m);

#define PUT(x_, y_) G_STMT_START { double v_[2] = { (x_), (y_) }; g_array_append_vals (xy, v_, 2); } G_STMT_END
  switch (lb_measurement_get_tool (m))
    {
    case LB_MEASUREMENT_PROBE:
      PUT (p[0].x, p[0].y);
      return "POINT";
    case LB_MEASUREMENT_RECTANGLE:
      /* a closed polygon repeats its first point (C.18.6.1.1) */
      PUT (p[0].x, p[0].y);
      PUT (p[1].x, p[0].y);
      PUT (p[1].x, p[1].y);
      PUT (p[0].x, p[1].y);
      PUT (p[0].x, p[0].y);
      return "POLYLINE";
    case LB_MEASUREMENT_ELLIPSE:
      {
        /* the major axis' end points, then the minor axis' (C.18.6.1.1); they are the box's
         * sides' midpoints, so the box comes back from them exactly */
        double cx = (p[0].x + p[1].x) / 2, cy = (p[0].y + p[1].y) / 2;

        if (fabs (p[1].x - p[0].x) >= fabs (p[1].y - p[0].y))
          {
            PUT (p[0].x, cy);
            PUT (p[1].x, cy);
            PUT (cx, p[0].y);
            PUT (cx, p[1].y);
          }
        else
          {
            PUT (cx, p[0].y);
            PUT (cx, p[1].y);
            PUT (p[0].x, cy);
            PUT (p[1].x, cy);
          }
        return "ELLIPSE";
      }
    case LB_MEASUREMENT_FREEHAND:
      for (guint i = 0; i < n; i++)
        PUT (p[i].x, p[i].y);
      PUT (p[0].x, p[0].y);
      return "POLYLINE";
    case LB_MEASUREMENT_LENGTH:
    case LB_MEASUREMENT_ANGLE:
    case LB_MEASUREMENT_POLYLINE:
    case LB_MEASUREMENT_ARROW:
    default:
      for (guint i = 0; i < n; i++)
        PUT (p[i].x, p[i].y);
      return "POLYLINE";
    }
#undef PUT
}

static LbDicomDataset *
scoord_item (LbMeasurement *m, const char *relationship, const LbDicomCode *concept,
             const LbDicomDataset *ds, gint frame)
{
  g_autoptr(GArray) xy = g_array_new (FALSE, FALSE, sizeof (double));
  const char *type = scoord_of (m, xy);
  LbDicomDataset *item = lb_dicom_sr_scoord_new (relationship, concept, type,
                                                 (const double *) xy->data, xy->len / 2);

  lb_dicom_sr_take (item, lb_dicom_sr_image_new (
    "SELECTED FROM", NULL, lb_dicom_dataset_get_string (ds, LB_TAG_SOP_CLASS_UID, 0),
    lb_dicom_dataset_get_string (ds, LB_TAG_SOP_INSTANCE_UID, 0),
    frame >= 0 ? (guint) frame + 1 : 0));
  return item;
}

static void
add_num (LbDicomDataset *group, LbDicomCode concept, double value, LbDicomCode unit)
{
  lb_dicom_sr_take (group, lb_dicom_sr_num_new ("CONTAINS", &concept, value, unit));
}

/* One Measurement Group: TID 1410 (a region, or a probe: the SCOORD "Image Region" in the
 * group, the values beside it) or TID 1501 (a length or angle: the NUM, INFERRED FROM its
 * SCOORD). */
static gboolean
add_group (LbDicomDataset *report, const LbMeasurementSrImage *img, LbMeasurement *given,
           guint index, GError **error)
{
  g_autoptr(LbMeasurement) m = lb_measurement_sr_round (given);
  LbMeasurementTool tool = lb_measurement_get_tool (m);
  LbMeasurementValues v;
  LbDicomCode region = LB_CODE_IMAGE_REGION, comment = LB_CODE_COMMENT;
  g_autofree char *tracking_id = NULL, *tracking_uid = lb_dicom_generate_uid ();
  LbDicomDataset *group;
  char unit_buf[24];
  LbDicomCode vunit;

  if (!lb_measurement_validate (m, error)
      || !lb_measurement_compute (m, img->spacing, img->image, &v, error))
    {
      g_prefix_error (error, "measurement %u: ", index + 1);
      return FALSE;
    }
  vunit = value_unit (v.value_unit, unit_buf, sizeof unit_buf);
  tracking_id = g_strdup_printf ("Lightbox %s %u", lb_measurement_tool_to_string (tool), index + 1);
  group = lb_dicom_tid1500_add_group (report, tracking_id, tracking_uid);
  if (lb_measurement_get_text (m) != NULL && *lb_measurement_get_text (m) != '\0')
    lb_dicom_sr_take (group, lb_dicom_sr_text_new ("CONTAINS", &comment,
                                                   lb_measurement_get_text (m)));

  switch (tool)
    {
    case LB_MEASUREMENT_LENGTH:
    case LB_MEASUREMENT_POLYLINE:
    case LB_MEASUREMENT_ANGLE:
      {
        LbDicomCode concept = tool == LB_MEASUREMENT_ANGLE ? LB_CODE_ANGLE : LB_CODE_LENGTH;
        LbDicomDataset *num = tool == LB_MEASUREMENT_ANGLE
          ? lb_dicom_sr_num_new ("CONTAINS", &concept, v.angle, LB_CODE_UNIT_DEGREE)
          : lb_dicom_sr_num_new ("CONTAINS", &concept, v.length, length_unit (&v.spacing));

        lb_dicom_sr_take (num, scoord_item (m, "INFERRED FROM", NULL, img->dataset, img->frame));
        lb_dicom_sr_take (group, num);
        break;
      }
    case LB_MEASUREMENT_ARROW:
      lb_dicom_sr_take (group, scoord_item (m, "CONTAINS", &region, img->dataset, img->frame));
      add_num (group, LB_CODE_LENGTH, v.length, length_unit (&v.spacing));
      break;
    case LB_MEASUREMENT_PROBE:
      lb_dicom_sr_take (group, scoord_item (m, "CONTAINS", &region, img->dataset, img->frame));
      /* a pixel's value has a concept only for CT (PS3.16 CID 7180 "Attenuation
       * Coefficient"); elsewhere the point is kept and the value recomputed on reading */
      if (v.has_value && g_strcmp0 (v.value_unit, "HU") == 0)
        add_num (group, LB_CODE_ATTENUATION_COEFFICIENT, v.value, vunit);
      break;
    case LB_MEASUREMENT_RECTANGLE:
    case LB_MEASUREMENT_ELLIPSE:
    case LB_MEASUREMENT_FREEHAND:
    default:
      lb_dicom_sr_take (group, scoord_item (m, "CONTAINS", &region, img->dataset, img->frame));
      add_num (group, LB_CODE_AREA, v.area, area_unit (&v.spacing));
      if (v.has_stats && v.stats.n_pixels > 0)
        {
          add_num (group, LB_CODE_MEAN, v.stats.mean, vunit);
          add_num (group, LB_CODE_STANDARD_DEVIATION, v.stats.sd, vunit);
          add_num (group, LB_CODE_MINIMUM, v.stats.min, vunit);
          add_num (group, LB_CODE_MAXIMUM, v.stats.max, vunit);
        }
      break;
    }
  return TRUE;
}

LbDicomDataset *
lb_measurement_sr_build (const LbMeasurementSrImage *images, guint n_images, guint series_number,
                         GError **error)
{
  g_autoptr(GPtrArray) evidence = g_ptr_array_new ();
  g_autoptr(GArray) frames = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(LbDicomDataset) report = NULL;
  guint n_measurements = 0, index = 0;

  for (guint i = 0; i < n_images; i++)
    {
      guint frame = images[i].frame >= 0 ? (guint) images[i].frame + 1 : 0;

      g_return_val_if_fail (images[i].dataset != NULL && images[i].spacing != NULL, NULL);
      n_measurements += images[i].measurements ? images[i].measurements->len : 0;
      g_ptr_array_add (evidence, (gpointer) images[i].dataset);
      g_array_append_val (frames, frame);
    }
  if (n_measurements == 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "there are no measurements to save");
      return NULL;
    }
  report = lb_dicom_tid1500_new (evidence, frames, LB_DICOM_IMPLEMENTATION_CLASS_UID);
  for (guint i = 0; i < n_images; i++)
    for (guint j = 0; images[i].measurements && j < images[i].measurements->len; j++)
      if (!add_group (report, &images[i], images[i].measurements->pdata[j], index++, error))
        return NULL;
  return lb_dicom_sr_document_new (images[0].dataset, report, evidence, series_number,
                                   "Lightbox measurements", error);
}

/* ---- reading ------------------------------------------------------------------------------ */

void
lb_measurement_sr_entry_free (LbMeasurementSrEntry *entry)
{
  if (entry == NULL)
    return;
  g_clear_object (&entry->measurement);
  g_free (entry->sop_instance_uid);
  g_free (entry->tracking_id);
  g_free (entry->tracking_uid);
  g_clear_pointer (&entry->values, g_array_unref);
  g_free (entry);
}

static void
value_clear (LbMeasurementSrValue *v)
{
  g_free (v->name);
  g_free (v->unit);
}

/* Lightbox's name of a NUM's concept: the concept itself (Mean, …, as dcmjs writes them), or
 * the Derivation it names (TID 1419: a quantity with HAS CONCEPT MOD Derivation = Mean). */
static char *
value_name (const LbDicomDataset *num)
{
  static const struct { LbDicomCode code; const char *name; } known[] = {
    { LB_CODE_LENGTH, "length" },
    { LB_DICOM_CODE ("81827009", "SCT", "Diameter"), "length" },
    { LB_DICOM_CODE ("103339001", "SCT", "Long Axis"), "length" },
    { LB_DICOM_CODE ("103340004", "SCT", "Short Axis"), "length" },
    { LB_DICOM_CODE ("121206", "DCM", "Distance"), "length" },
    { LB_DICOM_CODE ("121211", "DCM", "Path length"), "length" },
    { LB_CODE_AREA, "area" },
    { LB_CODE_ANGLE, "angle" },
    { LB_DICOM_CODE ("110859", "DCM", "Angle"), "angle" },
    { LB_CODE_MEAN, "mean" },
    { LB_CODE_STANDARD_DEVIATION, "sd" },
    { LB_DICOM_CODE ("113061", "DCM", "Standard Deviation"), "sd" },
    { LB_CODE_MINIMUM, "min" },
    { LB_CODE_MAXIMUM, "max" },
    { LB_CODE_ATTENUATION_COEFFICIENT, "value" },
  };
  LbDicomDataset *derivation = lb_dicom_sr_find_child (num, LB_CODE_DERIVATION, "CODE");
  LbDicomCode code;

  if (derivation != NULL
      && lb_dicom_dataset_get_code (derivation, LB_TAG_CONCEPT_CODE_SEQUENCE, &code))
    for (guint i = 0; i < G_N_ELEMENTS (known); i++)
      if (lb_dicom_code_equal (code, known[i].code))
        return g_strdup (known[i].name);
  if (!lb_dicom_dataset_get_code (num, LB_TAG_CONCEPT_NAME_CODE_SEQUENCE, &code))
    return g_strdup ("value");
  for (guint i = 0; i < G_N_ELEMENTS (known); i++)
    if (lb_dicom_code_equal (code, known[i].code))
      return g_strdup (known[i].name);
  return g_strdup (code.meaning ? code.meaning : code.value);
}

static void
add_value (GArray *values, const LbDicomDataset *num)
{
  LbMeasurementSrValue v = { 0 };
  LbDicomCode unit = { 0 };

  if (!lb_dicom_sr_get_num (num, &v.value, &unit))
    return;
  v.name = value_name (num);
  v.unit = g_strdup (unit.value ? unit.value : "");
  g_array_append_val (values, v);
}

static gboolean
has_value (GArray *values, const char *name)
{
  for (guint i = 0; i < values->len; i++)
    if (strcmp (g_array_index (values, LbMeasurementSrValue, i).name, name) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
same (double a, double b)
{
  return fabs (a - b) < SAME_POINT;
}

/* The tool and points of a SCOORD; FALSE (nothing to show, no error) for shapes Lightbox has
 * no tool for. */
static gboolean
shape_of (const char *type, const double *xy, guint n, gboolean in_group, GArray *values,
          LbMeasurementTool *tool, GArray *points)
{
#define PUT(x_, y_) G_STMT_START { LbMeasurementPoint p_ = { (x_), (y_) }; g_array_append_val (points, p_); } G_STMT_END
  if (strcmp (type, "POINT") == 0 || (strcmp (type, "MULTIPOINT") == 0 && n == 1))
    {
      *tool = LB_MEASUREMENT_PROBE;
      PUT (xy[0], xy[1]);
      return TRUE;
    }
  if (strcmp (type, "CIRCLE") == 0)
    {
      double r = hypot (xy[2] - xy[0], xy[3] - xy[1]);

      *tool = LB_MEASUREMENT_ELLIPSE;
      PUT (xy[0] - r, xy[1] - r);
      PUT (xy[0] + r, xy[1] + r);
      return TRUE;
    }
  if (strcmp (type, "ELLIPSE") == 0)
    {
      /* the axes' end points: a, b (major), c, d (minor) */
      double ax = xy[0], ay = xy[1], bx = xy[2], by = xy[3], cx = xy[4], cy = xy[5];
      double dx = xy[6], dy = xy[7];

      if (same (ay, by) && same (cx, dx))
        {
          *tool = LB_MEASUREMENT_ELLIPSE;
          PUT (ax, cy);
          PUT (bx, dy);
        }
      else if (same (ax, bx) && same (cy, dy))
        {
          *tool = LB_MEASUREMENT_ELLIPSE;
          PUT (cx, ay);
          PUT (dx, by);
        }
      else
        {
          double mx = (ax + bx) / 2, my = (ay + by) / 2;
          double ux = (bx - ax) / 2, uy = (by - ay) / 2, vx = (dx - cx) / 2, vy = (dy - cy) / 2;

          *tool = LB_MEASUREMENT_FREEHAND;
          for (guint i = 0; i < ELLIPSE_POLYGON_POINTS; i++)
            {
              double t = 2 * G_PI * i / ELLIPSE_POLYGON_POINTS;

              PUT (mx + ux * cos (t) + vx * sin (t), my + uy * cos (t) + vy * sin (t));
            }
        }
      return TRUE;
    }
  if (strcmp (type, "MULTIPOINT") == 0)
    {
      if (n != 3)
        return FALSE;
      *tool = LB_MEASUREMENT_ANGLE;
      for (guint i = 0; i < n; i++)
        PUT (xy[2 * i], xy[2 * i + 1]);
      return TRUE;
    }
  /* POLYLINE */
  if (n >= 4 && same (xy[0], xy[2 * (n - 1)]) && same (xy[1], xy[2 * (n - 1) + 1]))
    {
      n--;    /* closed: the last point repeats the first */
      /* four corners along the rows and columns, the first side along a row or a column */
      if (n == 4
          && ((same (xy[1], xy[3]) && same (xy[2], xy[4]) && same (xy[5], xy[7])
               && same (xy[6], xy[0]))
              || (same (xy[0], xy[2]) && same (xy[3], xy[5]) && same (xy[4], xy[6])
                  && same (xy[7], xy[1]))))
        {
          *tool = LB_MEASUREMENT_RECTANGLE;
          PUT (xy[0], xy[1]);
          PUT (xy[4], xy[5]);
          return TRUE;
        }
      *tool = LB_MEASUREMENT_FREEHAND;
    }
  else if (n == 1)
    *tool = LB_MEASUREMENT_PROBE;
  else if (n == 2)
    *tool = in_group ? LB_MEASUREMENT_ARROW : LB_MEASUREMENT_LENGTH;
  else if (n == 3 && has_value (values, "angle"))
    *tool = LB_MEASUREMENT_ANGLE;
  else
    *tool = LB_MEASUREMENT_POLYLINE;
  for (guint i = 0; i < n; i++)
    PUT (xy[2 * i], xy[2 * i + 1]);
  return TRUE;
#undef PUT
}

/* One SCOORD of a group: appends its entry to @out, or nothing when it shows no tool. */
static gboolean
read_scoord (const LbDicomDataset *scoord, const LbDicomDataset *group, GArray *values,
             gboolean in_group, guint group_index, GPtrArray *out, GError **error)
{
  LbDicomDataset *image = NULL;
  const char *type, *cls = NULL, *sop = NULL;
  guint n = 0, frame = 0;
  g_autofree double *xy = NULL;
  g_autoptr(GArray) points = g_array_new (FALSE, FALSE, sizeof (LbMeasurementPoint));
  LbMeasurementTool tool;
  LbMeasurementSrEntry *entry;
  LbDicomDataset *item;
  g_autoptr(LbMeasurement) m = NULL;
  g_autoptr(GError) invalid = NULL;

  for (guint i = 0; i < lb_dicom_sr_get_n_children (scoord); i++)
    {
      LbDicomDataset *child = lb_dicom_sr_get_child (scoord, i);

      if (g_strcmp0 (lb_dicom_sr_get_value_type (child), "IMAGE") == 0)
        {
          image = child;
          break;
        }
    }
  if (image == NULL || !lb_dicom_sr_get_image (image, &cls, &sop, &frame))
    return TRUE;
  xy = lb_dicom_sr_get_scoord (scoord, &type, &n, error);
  if (xy == NULL)
    {
      g_prefix_error (error, "measurement group %u: ", group_index + 1);
      return FALSE;
    }
  if (!shape_of (type, xy, n, in_group, values, &tool, points))
    return TRUE;
  m = lb_measurement_new_with_points (tool, (const LbMeasurementPoint *) points->data,
                                      points->len, &invalid);
  if (m == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "measurement group %u: %s", group_index + 1,
                   invalid->message);
      return FALSE;
    }
  item = lb_dicom_sr_find_child (group, LB_CODE_COMMENT, "TEXT");
  if (item != NULL)
    lb_measurement_set_text (m, lb_dicom_dataset_get_string (item, LB_TAG_TEXT_VALUE, 0));

  entry = g_new0 (LbMeasurementSrEntry, 1);
  entry->measurement = g_steal_pointer (&m);
  entry->sop_instance_uid = g_strdup (sop);
  entry->frame = frame > 0 ? (gint) frame - 1 : -1;
  item = lb_dicom_sr_find_child (group, LB_CODE_TRACKING_IDENTIFIER, "TEXT");
  entry->tracking_id = item ? g_strdup (lb_dicom_dataset_get_string (item, LB_TAG_TEXT_VALUE, 0))
                            : NULL;
  item = lb_dicom_sr_find_child (group, LB_CODE_TRACKING_UID, "UIDREF");
  entry->tracking_uid = item ? g_strdup (lb_dicom_dataset_get_string (item, LB_TAG_UID, 0)) : NULL;
  entry->values = g_array_ref (values);
  g_ptr_array_add (out, entry);
  return TRUE;
}

static GArray *
values_new (void)
{
  GArray *values = g_array_new (FALSE, TRUE, sizeof (LbMeasurementSrValue));

  g_array_set_clear_func (values, (GDestroyNotify) value_clear);
  return values;
}

GPtrArray *
lb_measurement_sr_read (const LbDicomDataset *sr, GError **error)
{
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func (
    (GDestroyNotify) lb_measurement_sr_entry_free);
  g_autoptr(GPtrArray) groups = lb_dicom_tid1500_get_groups (sr);

  for (guint g = 0; g < groups->len; g++)
    {
      const LbDicomDataset *group = groups->pdata[g];
      guint n = lb_dicom_sr_get_n_children (group);
      g_autoptr(GArray) group_values = values_new ();

      /* the values beside a region belong to it */
      for (guint i = 0; i < n; i++)
        {
          LbDicomDataset *child = lb_dicom_sr_get_child (group, i);

          if (g_strcmp0 (lb_dicom_sr_get_value_type (child), "NUM") == 0)
            add_value (group_values, child);
        }
      for (guint i = 0; i < n; i++)
        {
          LbDicomDataset *child = lb_dicom_sr_get_child (group, i);
          const char *type = lb_dicom_sr_get_value_type (child);

          if (g_strcmp0 (type, "SCOORD") == 0)
            {
              if (!read_scoord (child, group, group_values, TRUE, g, out, error))
                return NULL;
            }
          else if (g_strcmp0 (type, "NUM") == 0)
            {
              /* TID 300: a NUM INFERRED FROM the SCOORD it was measured on */
              for (guint j = 0; j < lb_dicom_sr_get_n_children (child); j++)
                {
                  LbDicomDataset *sc = lb_dicom_sr_get_child (child, j);
                  g_autoptr(GArray) values = NULL;

                  if (g_strcmp0 (lb_dicom_sr_get_value_type (sc), "SCOORD") != 0)
                    continue;
                  values = values_new ();
                  add_value (values, child);
                  if (!read_scoord (sc, group, values, FALSE, g, out, error))
                    return NULL;
                }
            }
        }
    }
  return g_steal_pointer (&out);
}

GPtrArray *
lb_measurement_sr_for_image (GPtrArray *entries, const char *sop_instance_uid, gint frame)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; entries != NULL && i < entries->len; i++)
    {
      LbMeasurementSrEntry *e = entries->pdata[i];

      if (g_strcmp0 (e->sop_instance_uid, sop_instance_uid) != 0)
        continue;
      if (frame >= 0 && e->frame >= 0 && e->frame != frame)
        continue;
      g_ptr_array_add (out, lb_measurement_copy (e->measurement));
    }
  return out;
}
