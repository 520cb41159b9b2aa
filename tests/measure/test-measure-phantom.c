/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Every measurement tool on digital CT phantoms of known geometry (measure-reference.py:
 * pydicom writes them, numpy computes from millimetres what each tool must report): a disc of
 * radius 20 mm at 0.7 mm spacing (area within 1 % of π·20² by its pixels, mean, SD, min, max
 * in HU as numpy has them with the same pixel-centre rule, padding left out), a concave
 * pentagon and a rectangle; lengths, a polyline and an angle between markers within half a
 * pixel; the same on anisotropic pixels (rows 0.9 mm, columns 0.7 mm) with another rescale;
 * and the same statistics on the image turned and flipped, the points turned with it.
 * Skips without pydicom/numpy. */
#include <math.h>
#include <string.h>
#include <sys/wait.h>

#include <json-glib/json-glib.h>

#include "lb-dicom-file.h"
#include "lb-measurement-geometry.h"
#include "lb-test-files.h"
#include "lb-test-process.h"

typedef struct {
  LbImage              *image;
  LbMeasurementSpacing  spacing;
  JsonObject           *ref;
} Phantom;

static LbImage *
load_image (const char *path, LbMeasurementSpacing *spacing)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LbDicomFile) file = lb_dicom_file_new_for_path (path, 0, NULL, &error);
  LbImage *image;

  g_assert_no_error (error);
  image = lb_dicom_file_decode_frame (file, 0, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (lb_measurement_spacing_from_dataset (lb_dicom_file_get_dataset (file),
                                                      spacing));
  return image;
}

static double
member_double (JsonObject *o, const char *name)
{
  return json_object_get_double_member (o, name);
}

static LbMeasurementPoint
marker (Phantom *p, const char *value)
{
  JsonArray *m = json_object_get_array_member (json_object_get_object_member (p->ref, "markers"),
                                               value);
  LbMeasurementPoint pt = { json_array_get_int_element (m, 0) + 0.5,
                            json_array_get_int_element (m, 1) + 0.5 };
  double v;
  gboolean padding;

  /* the marker is where the file says: the image holds its value there */
  g_assert_true (lb_measurement_sample_value (p->image, (guint) pt.x, (guint) pt.y, &v,
                                              &padding));
  return pt;
}

static void
check_stats (const char *what, const LbMeasurementValues *v, JsonObject *ref)
{
  g_test_message ("%s: %" G_GUINT64_FORMAT " pixels, mean %.6f sd %.6f min %g max %g", what,
                  v->stats.n_pixels, v->stats.mean, v->stats.sd, v->stats.min, v->stats.max);
  g_assert_true (v->has_stats);
  g_assert_cmpuint (v->stats.n_pixels, ==, json_object_get_int_member (ref, "n_pixels"));
  g_assert_cmpuint (v->stats.n_padding, ==, json_object_get_int_member (ref, "n_padding"));
  g_assert_cmpfloat_with_epsilon (v->stats.mean, member_double (ref, "mean"), 1e-9);
  g_assert_cmpfloat_with_epsilon (v->stats.sd, member_double (ref, "sd"), 1e-9);
  g_assert_cmpfloat (v->stats.min, ==, member_double (ref, "min"));
  g_assert_cmpfloat (v->stats.max, ==, member_double (ref, "max"));
  g_assert_cmpstr (v->value_unit, ==, "HU");
}

static LbMeasurement *
ellipse_of_disc (JsonObject *disc)
{
  JsonArray *c = json_object_get_array_member (disc, "centre_px");
  JsonArray *r = json_object_get_array_member (disc, "radius_px");
  double cx = json_array_get_double_element (c, 0), cy = json_array_get_double_element (c, 1);
  double rx = json_array_get_double_element (r, 0), ry = json_array_get_double_element (r, 1);
  LbMeasurementPoint pts[2] = { { cx - rx, cy - ry }, { cx + rx, cy + ry } };
  g_autoptr(GError) error = NULL;
  LbMeasurement *m = lb_measurement_new_with_points (LB_MEASUREMENT_ELLIPSE, pts, 2, &error);

  g_assert_no_error (error);
  return m;
}

static LbMeasurement *
from_points (LbMeasurementTool tool, JsonArray *points)
{
  LbMeasurement *m = lb_measurement_new (tool);

  for (guint i = 0; i < json_array_get_length (points); i++)
    {
      JsonArray *xy = json_array_get_array_element (points, i);

      lb_measurement_add_point (m, json_array_get_double_element (xy, 0),
                                json_array_get_double_element (xy, 1));
    }
  g_assert_true (lb_measurement_validate (m, NULL));
  return m;
}

static void
measure (Phantom *p, LbMeasurement *m, LbMeasurementValues *v)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (lb_measurement_compute (m, &p->spacing, p->image, v, &error));
  g_assert_no_error (error);
}

static void
check_phantom (Phantom *p)
{
  const char *name = json_object_get_string_member (p->ref, "name");
  double col = member_double (p->ref, "column_mm"), row = member_double (p->ref, "row_mm");
  double half_pixel = 0.5 * MIN (col, row);
  JsonObject *disc = json_object_get_object_member (p->ref, "disc");
  JsonObject *pent = json_object_get_object_member (p->ref, "pentagon");
  JsonObject *rect = json_object_get_object_member (p->ref, "rectangle");
  JsonObject *probe = json_object_get_object_member (p->ref, "probe");
  JsonArray *probe_px = json_object_get_array_member (probe, "pixel");
  JsonArray *pad_px = json_object_get_array_member (p->ref, "padding_pixel");
  LbMeasurementPoint a, b, c;
  LbMeasurementValues v;
  double arm, angle_tol, pixel_area;
  g_autoptr(LbMeasurement) ellipse = ellipse_of_disc (disc);
  g_autoptr(LbMeasurement) pentagon = from_points (
    LB_MEASUREMENT_FREEHAND, json_object_get_array_member (pent, "points_px"));
  g_autoptr(LbMeasurement) rectangle = from_points (
    LB_MEASUREMENT_RECTANGLE, json_object_get_array_member (rect, "corners_px"));
  g_autoptr(LbMeasurement) length = lb_measurement_new (LB_MEASUREMENT_LENGTH);
  g_autoptr(LbMeasurement) polyline = lb_measurement_new (LB_MEASUREMENT_POLYLINE);
  g_autoptr(LbMeasurement) angle = lb_measurement_new (LB_MEASUREMENT_ANGLE);
  g_autoptr(LbMeasurement) probe_m = lb_measurement_new (LB_MEASUREMENT_PROBE);
  g_autoptr(LbMeasurement) pad_m = lb_measurement_new (LB_MEASUREMENT_PROBE);

  g_test_message ("phantom %s: %g × %g mm pixels", name, col, row);
  g_assert_cmpint (p->spacing.kind, ==, LB_MEASUREMENT_SPACING_CALIBRATED);
  g_assert_cmpfloat (p->spacing.column_mm, ==, col);
  g_assert_cmpfloat (p->spacing.row_mm, ==, row);
  pixel_area = col * row;

  /* the disc: by its pixels within 1 % of π·20², by its shape exactly */
  measure (p, ellipse, &v);
  check_stats ("disc", &v, disc);
  g_assert_cmpfloat (fabs ((v.stats.n_pixels + v.stats.n_padding) * pixel_area
                           - member_double (disc, "area_mm2")),
                     <, 0.01 * member_double (disc, "area_mm2"));
  g_assert_cmpfloat_with_epsilon (v.area, member_double (disc, "area_mm2"),
                                  1e-9 * member_double (disc, "area_mm2"));
  g_assert_cmpuint (v.stats.n_padding, >, 0);

  measure (p, pentagon, &v);
  check_stats ("pentagon", &v, pent);
  g_assert_cmpfloat_with_epsilon (v.area, member_double (pent, "area_mm2"), 1e-9);

  measure (p, rectangle, &v);
  check_stats ("rectangle", &v, rect);
  g_assert_cmpfloat_with_epsilon (v.area, member_double (rect, "area_mm2"), 1e-9);

  /* markers: A, the vertex B, C */
  a = marker (p, "3001");
  b = marker (p, "3002");
  c = marker (p, "3003");
  lb_measurement_add_point (length, a.x, a.y);
  lb_measurement_add_point (length, b.x, b.y);
  measure (p, length, &v);
  g_test_message ("length %.6f mm, reference %.6f", v.length, member_double (p->ref, "length_mm"));
  g_assert_cmpfloat (fabs (v.length - member_double (p->ref, "length_mm")), <=, half_pixel);

  lb_measurement_add_point (polyline, a.x, a.y);
  lb_measurement_add_point (polyline, b.x, b.y);
  lb_measurement_add_point (polyline, c.x, c.y);
  measure (p, polyline, &v);
  g_assert_cmpfloat (fabs (v.length - member_double (p->ref, "polyline_mm")), <=, half_pixel);

  lb_measurement_add_point (angle, a.x, a.y);
  lb_measurement_add_point (angle, b.x, b.y);
  lb_measurement_add_point (angle, c.x, c.y);
  measure (p, angle, &v);
  /* half a pixel at the end of the shorter arm turns the ray by at most this much */
  arm = MIN (lb_measurement_distance (&p->spacing, a, b),
             lb_measurement_distance (&p->spacing, c, b));
  angle_tol = atan (half_pixel / arm) * 180 / G_PI;
  g_test_message ("angle %.6f°, reference %.6f° (±%.4f°; in pixel units %.4f°)", v.angle,
                  member_double (p->ref, "angle_deg"), angle_tol,
                  member_double (p->ref, "angle_px_deg"));
  g_assert_cmpfloat (fabs (v.angle - member_double (p->ref, "angle_deg")), <=, angle_tol);

  /* probe: a disc pixel, and a padding pixel, which has no value */
  lb_measurement_add_point (probe_m, json_array_get_int_element (probe_px, 0) + 0.5,
                            json_array_get_int_element (probe_px, 1) + 0.5);
  measure (p, probe_m, &v);
  g_assert_true (v.has_value);
  g_assert_cmpfloat (v.value, ==, member_double (probe, "value"));
  lb_measurement_add_point (pad_m, json_array_get_int_element (pad_px, 0) + 0.25,
                            json_array_get_int_element (pad_px, 1) + 0.75);
  measure (p, pad_m, &v);
  g_assert_false (v.has_value);
  g_assert_true (v.padding);
}

/* @image turned a quarter clockwise (@quarter) or flipped left-right (@flip): grey 16-bit. */
static LbImage *
transformed (LbImage *image, gboolean quarter, gboolean flip)
{
  guint w = lb_image_get_width (image), h = lb_image_get_height (image);
  guint ow = quarter ? h : w, oh = quarter ? w : h;
  gsize stride = (gsize) ow * 2;
  guint16 *px = g_malloc ((gsize) oh * stride);

  g_assert_cmpint (lb_image_get_format (image), ==, LB_FORMAT_GRAY16);
  for (guint y = 0; y < h; y++)
    {
      const guint16 *row = (const guint16 *) lb_image_get_row (image, y);

      for (guint x = 0; x < w; x++)
        {
          guint ox = quarter ? h - 1 - y : (flip ? w - 1 - x : x);
          guint oy = quarter ? x : y;

          px[(gsize) oy * ow + ox] = row[x];
        }
    }
  return lb_image_new_take (ow, oh, LB_FORMAT_GRAY16, stride, (guint8 *) px,
                            lb_image_get_meta (image));
}

/* The point (x, y) moved with the image, as above. */
static LbMeasurementPoint
move_point (LbMeasurementPoint p, guint w, guint h, gboolean quarter, gboolean flip)
{
  if (quarter)
    return (LbMeasurementPoint) { h - p.y, p.x };
  if (flip)
    return (LbMeasurementPoint) { w - p.x, p.y };
  return p;
}

static LbMeasurement *
moved (LbMeasurement *m, guint w, guint h, gboolean quarter, gboolean flip)
{
  LbMeasurement *copy = lb_measurement_copy (m);

  for (guint i = 0; i < lb_measurement_get_n_points (m); i++)
    {
      LbMeasurementPoint q = move_point (lb_measurement_get_point (m, i), w, h, quarter, flip);

      lb_measurement_set_point (copy, i, q.x, q.y);
    }
  return copy;
}

/* The statistics belong to the image, not to how it is shown: on the isotropic phantom turned
 * or flipped, with the ROI's points moved along, they are numpy's again. */
static void
check_turned (Phantom *p)
{
  guint w = lb_image_get_width (p->image), h = lb_image_get_height (p->image);
  JsonObject *disc = json_object_get_object_member (p->ref, "disc");
  JsonObject *pent = json_object_get_object_member (p->ref, "pentagon");
  g_autoptr(LbMeasurement) ellipse = ellipse_of_disc (disc);
  g_autoptr(LbMeasurement) pentagon = from_points (
    LB_MEASUREMENT_FREEHAND, json_object_get_array_member (pent, "points_px"));

  for (int t = 0; t < 2; t++)
    {
      gboolean quarter = t == 0, flip = t == 1;
      Phantom turned = { transformed (p->image, quarter, flip), p->spacing, p->ref };
      g_autoptr(LbMeasurement) e = moved (ellipse, w, h, quarter, flip);
      g_autoptr(LbMeasurement) f = moved (pentagon, w, h, quarter, flip);
      LbMeasurementValues v;

      measure (&turned, e, &v);
      check_stats (quarter ? "disc turned" : "disc flipped", &v, disc);
      measure (&turned, f, &v);
      check_stats (quarter ? "pentagon turned" : "pentagon flipped", &v, pent);
      g_object_unref (turned.image);
    }
}

static void
test_phantoms (void)
{
  g_autofree char *dir = lb_test_make_tmpdir ("measure");
  g_autofree char *out = lb_test_run_reference ("measure", "measure-reference.py", dir);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonArray *cases;

  if (out == NULL)
    {
      lb_test_remove_tree (dir);
      g_test_skip ("pydicom and numpy are needed for the reference");
      return;
    }
  root = json_from_string (out, &error);
  g_assert_no_error (error);
  cases = json_node_get_array (root);
  g_assert_cmpuint (json_array_get_length (cases), ==, 2);
  for (guint i = 0; i < json_array_get_length (cases); i++)
    {
      Phantom p = { NULL };

      p.ref = json_array_get_object_element (cases, i);
      p.image = load_image (json_object_get_string_member (p.ref, "file"), &p.spacing);
      check_phantom (&p);
      if (i == 0)
        check_turned (&p);
      else
        /* anisotropic pixels: measuring in pixel units would be off by far more than the
         * tolerance, so the test above tells the two apart */
        g_assert_cmpfloat (fabs (member_double (p.ref, "angle_deg")
                                 - member_double (p.ref, "angle_px_deg")), >, 5);
      g_object_unref (p.image);
    }
  lb_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/measure/phantoms", test_phantoms);
  return g_test_run ();
}
