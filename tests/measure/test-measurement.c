/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The measurement model without images from outside: tools and their points; the spacing as
 * PS3.3 10.7.1 resolves it, from data sets and from a PNG's lightbox:spacing; lengths and
 * angles on anisotropic pixels against values worked out by hand; the row runs of every ROI
 * shape against the point rule, pixel by pixel, on random shapes; the fast statistics against
 * the plain reference path for a rescale with padding, a Modality LUT Sequence, 8-bit samples
 * without a model and grey+alpha; colour refused; the units. */
#include <math.h>
#include <string.h>

#include "lb-dicom-tags.h"
#include "lb-error.h"
#include "lb-image-loader.h"
#include "lb-measurement-geometry.h"
#include "lb-png.h"
#include "lb-test-image.h"

static void
test_tools (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LbMeasurement) m = lb_measurement_new (LB_MEASUREMENT_LENGTH);
  g_autoptr(LbMeasurement) copy = NULL;
  LbMeasurementPoint bad[2] = { { 1, 2 }, { NAN, 3 } };
  LbMeasurementPoint far[2] = { { 1, 2 }, { 2e7, 3 } };
  LbMeasurement *none;

  for (guint t = 0; t < LB_MEASUREMENT_N_TOOLS; t++)
    {
      LbMeasurementTool back;
      guint lo, hi;

      g_assert_true (lb_measurement_tool_from_string (lb_measurement_tool_to_string (t), &back));
      g_assert_cmpint (back, ==, t);
      lb_measurement_tool_get_n_points (t, &lo, &hi);
      g_assert_cmpuint (lo, >=, 1);
      g_assert_cmpuint (hi, >=, lo);
    }
  {
    LbMeasurementTool t;

    g_assert_false (lb_measurement_tool_from_string ("Length", &t));
    g_assert_false (lb_measurement_tool_from_string ("", &t));
  }

  g_assert_false (lb_measurement_is_complete (m));
  lb_measurement_add_point (m, 1.5, 2.5);
  g_assert_false (lb_measurement_validate (m, &error));
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  lb_measurement_add_point (m, 10.5, 2.5);
  g_assert_true (lb_measurement_validate (m, &error));
  lb_measurement_add_point (m, 11, 2);
  g_assert_false (lb_measurement_is_complete (m));
  lb_measurement_remove_last_point (m);
  g_assert_true (lb_measurement_is_complete (m));

  /* a copy is independent: the undo history keeps the state before a drag */
  lb_measurement_set_text (m, "a");
  copy = lb_measurement_copy (m);
  lb_measurement_set_point (m, 0, 7, 8);
  lb_measurement_set_text (m, "b");
  g_assert_cmpfloat (lb_measurement_get_point (copy, 0).x, ==, 1.5);
  g_assert_cmpstr (lb_measurement_get_text (copy), ==, "a");

  none = lb_measurement_new_with_points (LB_MEASUREMENT_LENGTH, bad, 2, &error);
  g_assert_null (none);
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  none = lb_measurement_new_with_points (LB_MEASUREMENT_LENGTH, far, 2, &error);
  g_assert_null (none);
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  none = lb_measurement_new_with_points (LB_MEASUREMENT_FREEHAND, far, 2, &error);
  g_assert_null (none);
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
}

/* ---- spacing ----------------------------------------------------------------------------- */

#define TAG_ERMF        LB_DICOM_TAG (0x0018, 0x1114)
#define TAG_CALIBRATION LB_DICOM_TAG (0x0028, 0x0A02)

static void
test_spacing_dataset (void)
{
  /* what PS3.3 10.7.1 says each combination means; NULL: absent */
  static const struct {
    const char *modality, *ps, *ips, *ermf, *calibration;
    LbMeasurementSpacingKind kind;
    double column, row, magnification;
  } cases[] = {
    { "CT", "0.8\\0.7", NULL, NULL, NULL, LB_MEASUREMENT_SPACING_CALIBRATED, 0.7, 0.8, 1 },
    { "MR", "0.5\\0.5", NULL, NULL, NULL, LB_MEASUREMENT_SPACING_CALIBRATED, 0.5, 0.5, 1 },
    { "CR", NULL, "0.2\\0.15", NULL, NULL, LB_MEASUREMENT_SPACING_DETECTOR, 0.15, 0.2, 1 },
    { "DX", NULL, "0.2\\0.2", "1.25", NULL, LB_MEASUREMENT_SPACING_ESTIMATED, 0.16, 0.16, 1.25 },
    /* PixelSpacing equal to ImagerPixelSpacing: not corrected, so the factor applies */
    { "DX", "0.2\\0.2", "0.2\\0.2", "1.1", NULL, LB_MEASUREMENT_SPACING_ESTIMATED,
      0.2 / 1.1, 0.2 / 1.1, 1.1 },
    { "DX", "0.2\\0.2", "0.2\\0.2", NULL, NULL, LB_MEASUREMENT_SPACING_DETECTOR, 0.2, 0.2, 1 },
    /* differing from it: corrected or calibrated (10.7.1.1) */
    { "DX", "0.16\\0.17", "0.2\\0.2", "1.25", NULL, LB_MEASUREMENT_SPACING_CALIBRATED,
      0.17, 0.16, 1 },
    { "MG", "0.1\\0.1", "0.1\\0.1", "1.08", "GEOMETRY", LB_MEASUREMENT_SPACING_CALIBRATED,
      0.1, 0.1, 1 },
    { "CR", "0.14\\0.14", NULL, NULL, NULL, LB_MEASUREMENT_SPACING_UNVERIFIED, 0.14, 0.14, 1 },
    { "CR", "0.14\\0.14", NULL, NULL, "FIDUCIAL", LB_MEASUREMENT_SPACING_CALIBRATED,
      0.14, 0.14, 1 },
    { "DX", NULL, "0.2\\0.2", "0", NULL, LB_MEASUREMENT_SPACING_DETECTOR, 0.2, 0.2, 1 },
    { "CT", NULL, NULL, NULL, NULL, LB_MEASUREMENT_SPACING_UNKNOWN, 1, 1, 1 },
    { "CT", "0\\0.5", NULL, NULL, NULL, LB_MEASUREMENT_SPACING_UNKNOWN, 1, 1, 1 },
    { "CT", "abc\\0.5", NULL, NULL, NULL, LB_MEASUREMENT_SPACING_UNKNOWN, 1, 1, 1 },
    { "CT", "0.5", NULL, NULL, NULL, LB_MEASUREMENT_SPACING_UNKNOWN, 1, 1, 1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(LbDicomDataset) ds = lb_dicom_dataset_new ();
      LbMeasurementSpacing s;

      lb_dicom_dataset_set_string (ds, LB_TAG_MODALITY, "CS", cases[i].modality);
      if (cases[i].ps)
        lb_dicom_dataset_set_string (ds, LB_TAG_PIXEL_SPACING, "DS", cases[i].ps);
      if (cases[i].ips)
        lb_dicom_dataset_set_string (ds, LB_TAG_IMAGER_PIXEL_SPACING, "DS", cases[i].ips);
      if (cases[i].ermf)
        lb_dicom_dataset_set_string (ds, TAG_ERMF, "DS", cases[i].ermf);
      if (cases[i].calibration)
        lb_dicom_dataset_set_string (ds, TAG_CALIBRATION, "CS", cases[i].calibration);
      g_assert_cmpint (lb_measurement_spacing_from_dataset (ds, &s), ==,
                       cases[i].kind != LB_MEASUREMENT_SPACING_UNKNOWN);
      g_test_message ("case %u: %s %g × %g", i, lb_measurement_spacing_kind_to_string (s.kind),
                      s.column_mm, s.row_mm);
      g_assert_cmpint (s.kind, ==, cases[i].kind);
      g_assert_cmpfloat_with_epsilon (s.column_mm, cases[i].column, 1e-12);
      g_assert_cmpfloat_with_epsilon (s.row_mm, cases[i].row, 1e-12);
      g_assert_cmpfloat_with_epsilon (s.magnification, cases[i].magnification, 1e-12);
      g_assert_cmpstr (lb_measurement_spacing_length_unit (&s), ==,
                       cases[i].kind == LB_MEASUREMENT_SPACING_UNKNOWN ? "px" : "mm");
    }
}

/* The PNG path: the exact spacing travels in lightbox:spacing (pHYs would round 0.61 mm to
 * whole pixels per metre), the kind follows the DICOM provenance kept in text chunks. */
static void
test_spacing_png (void)
{
  static const struct {
    const char *modality, *how;
    gboolean has_spacing;
    LbMeasurementSpacingKind kind;
  } cases[] = {
    { "CT", NULL, TRUE, LB_MEASUREMENT_SPACING_CALIBRATED },
    { "DX", "at the detector (ImagerPixelSpacing)", TRUE, LB_MEASUREMENT_SPACING_DETECTOR },
    { "CR", NULL, TRUE, LB_MEASUREMENT_SPACING_UNVERIFIED },
    { NULL, NULL, TRUE, LB_MEASUREMENT_SPACING_UNVERIFIED },
    { "CT", NULL, FALSE, LB_MEASUREMENT_SPACING_UNKNOWN },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(LbImage) src = lb_test_image_new (8, 6, LB_FORMAT_GRAY16, 3);
      g_autoptr(LbImageMeta) meta = lb_image_meta_new ();
      g_autoptr(LbImage) image = NULL, back = NULL;
      g_autoptr(GBytes) png = NULL;
      g_autoptr(GError) error = NULL;
      LbMeasurementSpacing s;

      if (cases[i].has_spacing)
        lb_image_meta_set_pixel_spacing (meta, 0.61, 0.83);
      lb_image_meta_set_text (meta, "Modality", cases[i].modality);
      lb_image_meta_set_text (meta, "Pixel spacing", cases[i].how);
      image = lb_image_with_meta (src, meta);
      png = lb_png_save_to_bytes (image, &error);
      g_assert_no_error (error);
      back = lb_image_load_bytes (png, "spacing.png", NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpint (lb_measurement_spacing_from_meta (lb_image_get_meta (back), &s), ==,
                       cases[i].has_spacing);
      g_assert_cmpint (s.kind, ==, cases[i].kind);
      if (cases[i].has_spacing)
        {
          g_assert_cmpfloat (s.column_mm, ==, 0.61);
          g_assert_cmpfloat (s.row_mm, ==, 0.83);
        }
    }
}

/* ---- geometry ---------------------------------------------------------------------------- */

static void
test_geometry (void)
{
  LbMeasurementSpacing aniso = { LB_MEASUREMENT_SPACING_CALIBRATED, 0.5, 2, 1 };
  LbMeasurementSpacing px;
  LbMeasurementPoint o = { 10, 10 }, r = { 14, 10 }, d = { 10, 11 }, rd = { 11, 11 };
  LbMeasurementPoint l = { 6, 10 };
  LbMeasurementPoint poly[3] = { { 0, 0 }, { 4, 0 }, { 4, 3 } };
  LbMeasurementValues v;
  g_autoptr(LbMeasurement) m = NULL;
  g_autoptr(GError) error = NULL;

  lb_measurement_spacing_init_unknown (&px);
  /* four columns of 0.5 mm, one row of 2 mm */
  g_assert_cmpfloat_with_epsilon (lb_measurement_distance (&aniso, o, r), 2, 1e-12);
  g_assert_cmpfloat_with_epsilon (lb_measurement_distance (&aniso, o, d), 2, 1e-12);
  g_assert_cmpfloat_with_epsilon (lb_measurement_distance (&px, o, r), 4, 1e-12);
  /* the diagonal of one pixel: 45° in pixels, atan(2 / 0.5) in mm */
  g_assert_cmpfloat_with_epsilon (lb_measurement_angle (&px, r, o, rd), 45, 1e-9);
  g_assert_cmpfloat_with_epsilon (lb_measurement_angle (&aniso, r, o, rd),
                                  atan (4.0) * 180 / G_PI, 1e-9);
  g_assert_cmpfloat_with_epsilon (lb_measurement_angle (&aniso, r, o, d), 90, 1e-9);
  g_assert_cmpfloat_with_epsilon (lb_measurement_angle (&aniso, r, o, l), 180, 1e-9);
  g_assert_cmpfloat (lb_measurement_angle (&aniso, o, o, l), ==, 0);

  m = lb_measurement_new_with_points (LB_MEASUREMENT_POLYLINE, poly, 3, &error);
  g_assert_no_error (error);
  g_assert_true (lb_measurement_compute (m, &aniso, NULL, &v, &error));
  g_assert_cmpfloat_with_epsilon (v.length, 2 + 6, 1e-12);
  g_clear_object (&m);
  m = lb_measurement_new_with_points (LB_MEASUREMENT_FREEHAND, poly, 3, &error);
  g_assert_true (lb_measurement_compute (m, &aniso, NULL, &v, &error));
  g_assert_cmpfloat_with_epsilon (v.area, 6 * 0.5 * 2, 1e-12);
  g_assert_false (v.has_stats);
  g_clear_object (&m);
  m = lb_measurement_new_with_points (LB_MEASUREMENT_ELLIPSE, poly, 2, &error);
  g_assert_true (lb_measurement_compute (m, &aniso, NULL, &v, &error));
  g_assert_cmpfloat (v.area, ==, 0);
  g_clear_object (&m);
  m = lb_measurement_new (LB_MEASUREMENT_ANGLE);
  g_assert_false (lb_measurement_compute (m, &aniso, NULL, &v, &error));
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
}

/* ---- the inside rule --------------------------------------------------------------------- */

static double
coordinate (GRand *rand, double max)
{
  switch (g_rand_int_range (rand, 0, 4))
    {
    case 0:  /* on a pixel centre or a pixel edge: the cases rounding could decide */
      return g_rand_int_range (rand, -8, (gint32) max * 2 + 8) / 2.0;
    case 1:
      return g_rand_int_range (rand, -40, (gint32) max * 8 + 40) / 8.0;
    default:
      return g_rand_double_range (rand, -5, max + 5);
    }
}

static void
check_spans (LbMeasurement *m, guint width, guint height)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LbMeasurementRoi) roi = lb_measurement_roi_new (m, &error);
  g_autoptr(GArray) spans = g_array_new (FALSE, FALSE, sizeof (LbMeasurementSpan));
  guint first = 0, end = 0;
  gboolean any_rows;

  g_assert_no_error (error);
  any_rows = lb_measurement_roi_get_rows (roi, height, &first, &end);
  for (guint r = 0; r < height; r++)
    {
      g_autofree gboolean *mask = g_new0 (gboolean, width);

      lb_measurement_roi_row_spans (roi, r, width, spans);
      for (guint k = 0; k < spans->len; k++)
        {
          LbMeasurementSpan s = g_array_index (spans, LbMeasurementSpan, k);

          g_assert_cmpuint (s.start, <, s.end);
          g_assert_cmpuint (s.end, <=, width);
          if (k > 0)
            g_assert_cmpuint (s.start, >=, g_array_index (spans, LbMeasurementSpan, k - 1).end);
          for (guint c = s.start; c < s.end; c++)
            mask[c] = TRUE;
        }
      for (guint c = 0; c < width; c++)
        {
          gboolean inside = lb_measurement_roi_contains (roi, c + 0.5, r + 0.5);

          if (inside != mask[c])
            g_error ("%s: pixel (%u, %u): rule says %d, runs say %d",
                     lb_measurement_tool_to_string (lb_measurement_get_tool (m)), c, r, inside,
                     mask[c]);
          if (inside)
            g_assert_true (any_rows && r >= first && r < end);
        }
    }
}

static void
test_spans (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (27);
  const guint width = 41, height = 29;
  guint n_inside = 0;

  for (guint i = 0; i < 3000; i++)
    {
      LbMeasurementTool tool = i % 3 == 0 ? LB_MEASUREMENT_RECTANGLE
                             : i % 3 == 1 ? LB_MEASUREMENT_ELLIPSE : LB_MEASUREMENT_FREEHAND;
      guint n = tool == LB_MEASUREMENT_FREEHAND ? (guint) g_rand_int_range (rand, 3, 12) : 2;
      g_autoptr(LbMeasurement) m = lb_measurement_new (tool);

      for (guint k = 0; k < n; k++)
        lb_measurement_add_point (m, coordinate (rand, width), coordinate (rand, height));
      check_spans (m, width, height);
      n_inside++;
    }
  g_assert_cmpuint (n_inside, ==, 3000);
}

/* A square with a square hole (the outline goes round the hole backwards through a slit), a
 * bow tie that crosses itself, and a thin ellipse: hand-counted pixels. */
static void
test_rule_by_hand (void)
{
  static const LbMeasurementPoint ring[] = {
    { 0, 0 }, { 10, 0 }, { 10, 10 }, { 0, 10 }, { 0, 5 }, { 3, 5 }, { 3, 7 }, { 7, 7 },
    { 7, 3 }, { 3, 3 }, { 3, 5 }, { 0, 5 },
  };
  static const LbMeasurementPoint bow[] = { { 0, 0 }, { 8, 8 }, { 8, 0 }, { 0, 8 } };
  static const LbMeasurementPoint thin[] = { { 2, 4.2 }, { 12, 4.8 } };
  static const LbMeasurementPoint rect[] = { { 9.5, 3.5 }, { 2.5, 1.5 } };
  g_autoptr(GError) error = NULL;
  struct { const LbMeasurementPoint *p; guint n; LbMeasurementTool tool; guint64 count; } cases[] = {
    /* 100 pixels less the 4 × 4 hole */
    { ring, G_N_ELEMENTS (ring), LB_MEASUREMENT_FREEHAND, 100 - 16 },
    /* two triangles meeting at (4, 4); a centre on a diagonal counts when the edge crosses
     * its row beyond it (x < crossing), so the left triangle has 12, the right one 20 */
    { bow, G_N_ELEMENTS (bow), LB_MEASUREMENT_FREEHAND, 32 },
    /* one row (centre y 4.5), centres 2.5 … 11.5 */
    { thin, G_N_ELEMENTS (thin), LB_MEASUREMENT_ELLIPSE, 10 },
    /* centres 2.5 … 9.5 by 1.5 … 3.5, borders included */
    { rect, G_N_ELEMENTS (rect), LB_MEASUREMENT_RECTANGLE, 8 * 3 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(LbMeasurement) m = lb_measurement_new_with_points (cases[i].tool, cases[i].p,
                                                                   cases[i].n, &error);
      g_autoptr(LbMeasurementRoi) roi = lb_measurement_roi_new (m, &error);
      guint64 count = 0;

      g_assert_no_error (error);
      for (guint r = 0; r < 20; r++)
        for (guint c = 0; c < 20; c++)
          count += lb_measurement_roi_contains (roi, c + 0.5, r + 0.5);
      g_test_message ("case %u: %" G_GUINT64_FORMAT " pixels", i, count);
      g_assert_cmpuint (count, ==, cases[i].count);
      check_spans (m, 20, 20);
    }
}

/* ---- statistics -------------------------------------------------------------------------- */

static void
compare_stats (const LbMeasurementStats *a, const LbMeasurementStats *b)
{
  g_assert_cmpuint (a->n_pixels, ==, b->n_pixels);
  g_assert_cmpuint (a->n_padding, ==, b->n_padding);
  g_assert_cmpfloat (a->min, ==, b->min);
  g_assert_cmpfloat (a->max, ==, b->max);
  g_assert_cmpfloat_with_epsilon (a->mean, b->mean, 1e-9 * MAX (1, fabs (b->mean)));
  g_assert_cmpfloat_with_epsilon (a->sd, b->sd, 1e-9 * MAX (1, fabs (b->sd)));
}

static LbImage *
with_model (LbImage *image, LbValueModel *model)
{
  g_autoptr(LbImageMeta) meta = lb_image_meta_new ();

  lb_image_meta_set_value_model (meta, model);
  return lb_image_with_meta (image, meta);
}

static void
check_fast_against_reference (LbImage *image, GRand *rand, guint n_shapes)
{
  guint w = lb_image_get_width (image), h = lb_image_get_height (image);
  guint64 counted = 0;

  for (guint i = 0; i < n_shapes; i++)
    {
      LbMeasurementTool tool = i % 3 == 0 ? LB_MEASUREMENT_RECTANGLE
                             : i % 3 == 1 ? LB_MEASUREMENT_ELLIPSE : LB_MEASUREMENT_FREEHAND;
      guint n = tool == LB_MEASUREMENT_FREEHAND ? (guint) g_rand_int_range (rand, 3, 9) : 2;
      g_autoptr(LbMeasurement) m = lb_measurement_new (tool);
      g_autoptr(LbMeasurementRoi) roi = NULL;
      g_autoptr(GError) error = NULL;
      LbMeasurementStats fast, ref;

      for (guint k = 0; k < n; k++)
        lb_measurement_add_point (m, coordinate (rand, w), coordinate (rand, h));
      roi = lb_measurement_roi_new (m, &error);
      g_assert_no_error (error);
      g_assert_true (lb_measurement_roi_stats (roi, image, &fast, &error));
      g_assert_no_error (error);
      g_assert_true (lb_measurement_roi_stats_reference (roi, image, &ref, &error));
      compare_stats (&fast, &ref);
      counted += fast.n_pixels;
    }
  g_assert_cmpuint (counted, >, 0);
}

static void
test_stats (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (2027);
  g_autoptr(LbImage) grey16 = lb_test_image_new (48, 40, LB_FORMAT_GRAY16, 11);
  g_autoptr(LbImage) grey8 = lb_test_image_new (48, 40, LB_FORMAT_GRAY8, 12);
  g_autoptr(LbImage) greya = lb_test_image_new (48, 40, LB_FORMAT_GRAYA16, 13);
  g_autoptr(LbImage) rgb = lb_test_image_new (16, 16, LB_FORMAT_RGB8, 14);
  g_autoptr(LbValueModel) rescale = NULL, lut_model = NULL;
  g_autoptr(LbImage) rescaled = NULL, lut_image = NULL, greya_model = NULL;
  g_autoptr(LbMeasurement) m = NULL;
  g_autoptr(LbMeasurementRoi) roi = NULL;
  g_autoptr(GError) error = NULL;
  LbMeasurementPoint corners[2] = { { 0, 0 }, { 16, 16 } };
  LbMeasurementStats st;
  g_autofree guint16 *table = g_new (guint16, 4096);

  {
    LbValueModelBuilder *b = lb_value_model_builder_new (NULL, 16);

    lb_value_model_builder_set_source (b, TRUE, 16);
    lb_value_model_builder_set_rescale (b, -0.5, 100.25);
    lb_value_model_builder_set_units (b, "HU");
    /* samples 20000 … 30000 are padding: a good share of the noise */
    lb_value_model_builder_set_padding (b, 20000, 30000);
    rescale = lb_value_model_builder_end (b);
  }
  {
    LbValueModelBuilder *b = lb_value_model_builder_new (NULL, 16);
    LbValueLut lut = { -100, 4096, 16, table, "OD" };

    for (guint i = 0; i < 4096; i++)
      table[i] = (guint16) ((i * i) % 60001);
    lb_value_model_builder_set_source (b, FALSE, 16);
    lb_value_model_builder_set_modality_lut (b, &lut);
    lb_value_model_builder_set_padding (b, 0, 99);
    lut_model = lb_value_model_builder_end (b);
  }
  rescaled = with_model (grey16, rescale);
  lut_image = with_model (grey16, lut_model);
  greya_model = with_model (greya, rescale);

  check_fast_against_reference (rescaled, rand, 300);
  check_fast_against_reference (lut_image, rand, 300);
  check_fast_against_reference (grey8, rand, 300);
  check_fast_against_reference (greya_model, rand, 300);
  check_fast_against_reference (grey16, rand, 100);

  m = lb_measurement_new_with_points (LB_MEASUREMENT_RECTANGLE, corners, 2, &error);
  roi = lb_measurement_roi_new (m, &error);
  g_assert_no_error (error);
  g_assert_false (lb_measurement_roi_stats (roi, rgb, &st, &error));
  g_assert_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED);
  g_clear_error (&error);
  g_assert_false (lb_measurement_roi_stats_reference (roi, rgb, &st, &error));
  g_assert_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED);
  g_clear_error (&error);

  /* entirely outside the image: nothing counted */
  lb_measurement_set_point (m, 0, -30, -30);
  lb_measurement_set_point (m, 1, -2, -2);
  g_clear_pointer (&roi, lb_measurement_roi_free);
  roi = lb_measurement_roi_new (m, &error);
  g_assert_true (lb_measurement_roi_stats (roi, rescaled, &st, &error));
  g_assert_cmpuint (st.n_pixels, ==, 0);
  g_assert_cmpfloat (st.mean, ==, 0);

  /* a probe of a length is no region */
  g_clear_object (&m);
  m = lb_measurement_new_with_points (LB_MEASUREMENT_LENGTH, corners, 2, &error);
  g_assert_null (lb_measurement_roi_new (m, &error));
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
}

/* One known pixel: 16-bit signed source, stored −1000 (sample 31768) × 2 − 24 = −2024 HU. */
static void
test_probe_and_units (void)
{
  guint16 px[4] = { 31768, 32768, 32769, 0 };
  g_autoptr(LbImage) plain = lb_image_new_take (2, 2, LB_FORMAT_GRAY16, 4,
                                                g_memdup2 (px, sizeof px), NULL);
  g_autoptr(LbValueModel) ct = NULL, unnamed = NULL;
  g_autoptr(LbImage) image = NULL, unnamed_image = NULL;
  g_autoptr(LbMeasurement) probe = lb_measurement_new (LB_MEASUREMENT_PROBE);
  LbMeasurementSpacing s;
  LbMeasurementValues v;

  {
    LbValueModelBuilder *b = lb_value_model_builder_new (NULL, 16);

    lb_value_model_builder_set_source (b, TRUE, 16);
    lb_value_model_builder_set_rescale (b, 2, -24);
    lb_value_model_builder_set_units (b, "HU");
    lb_value_model_builder_set_padding (b, 0, 0);
    ct = lb_value_model_builder_end (b);
    b = lb_value_model_builder_new (NULL, 16);
    lb_value_model_builder_set_rescale (b, 2, -24);
    unnamed = lb_value_model_builder_end (b);
  }
  image = with_model (plain, ct);
  unnamed_image = with_model (plain, unnamed);
  lb_measurement_spacing_init_unknown (&s);

  lb_measurement_add_point (probe, 0.99, 0.01);
  g_assert_true (lb_measurement_compute (probe, &s, image, &v, NULL));
  g_assert_true (v.has_value);
  g_assert_cmpfloat (v.value, ==, -2024);
  g_assert_cmpstr (v.value_unit, ==, "HU");
  lb_measurement_set_point (probe, 0, 1.5, 1.5);
  g_assert_true (lb_measurement_compute (probe, &s, image, &v, NULL));
  g_assert_false (v.has_value);
  g_assert_true (v.padding);
  lb_measurement_set_point (probe, 0, 2.5, 0.5);
  g_assert_true (lb_measurement_compute (probe, &s, image, &v, NULL));
  g_assert_false (v.has_value);
  g_assert_false (v.padding);
  lb_measurement_set_point (probe, 0, -0.5, 0.5);
  g_assert_true (lb_measurement_compute (probe, &s, image, &v, NULL));
  g_assert_false (v.has_value);

  g_assert_cmpstr (lb_measurement_value_unit (plain), ==, "stored value");
  g_assert_cmpstr (lb_measurement_value_unit (unnamed_image), ==, "");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/measurement/tools", test_tools);
  g_test_add_func ("/measurement/spacing/dataset", test_spacing_dataset);
  g_test_add_func ("/measurement/spacing/png", test_spacing_png);
  g_test_add_func ("/measurement/geometry", test_geometry);
  g_test_add_func ("/measurement/rule/spans", test_spans);
  g_test_add_func ("/measurement/rule/by-hand", test_rule_by_hand);
  g_test_add_func ("/measurement/stats", test_stats);
  g_test_add_func ("/measurement/probe", test_probe_and_units);
  return g_test_run ();
}
