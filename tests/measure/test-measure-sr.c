/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Measurements as a DICOM SR (TID 1500), without a server: every tool written and read back
 * (the points to single precision, the text, the tool), through the data set and through a
 * Part 10 file Lightbox's reader parses; the values in the report are those
 * lb_measurement_compute() gives for the rounded points; the frame of a multi-frame image
 * (ReferencedFrameNumber, from 1) and lb_measurement_sr_for_image()'s choice by instance and
 * frame; and bad input: no measurement, no StudyInstanceUID, an image of another study, a
 * malformed SCOORD, a point past the coordinate limit, a document that is no report, and a
 * report the DICOMweb store refuses before any request. The report as other tools write it,
 * dciodvfy and the round trip through Orthanc are test-measure-sr.sh's. */
#include <math.h>
#include <string.h>

#include "lb-dicom-file.h"
#include "lb-dicom-sr.h"
#include "lb-dicom-tags.h"
#include "lb-dicom-writer.h"
#include "lb-dicomweb-reports.h"
#include "lb-error.h"
#include "lb-measurement-geometry.h"
#include "lb-measurement-sr.h"
#include "lb-test-image.h"
#include "lb-test-loop.h"

#define STUDY "1.2.826.0.1.3680043.8.498.100"
#define SERIES "1.2.826.0.1.3680043.8.498.101"
#define SOP "1.2.826.0.1.3680043.8.498.102"
#define CT_IMAGE "1.2.840.10008.5.1.4.1.1.2"

static LbDicomDataset *
source_dataset (const char *study, const char *sop)
{
  LbDicomDataset *ds = lb_dicom_dataset_new ();

  lb_dicom_dataset_set_string (ds, LB_TAG_SOP_CLASS_UID, "UI", CT_IMAGE);
  lb_dicom_dataset_set_string (ds, LB_TAG_SOP_INSTANCE_UID, "UI", sop);
  if (study)
    lb_dicom_dataset_set_string (ds, LB_TAG_STUDY_INSTANCE_UID, "UI", study);
  lb_dicom_dataset_set_string (ds, LB_TAG_SERIES_INSTANCE_UID, "UI", SERIES);
  lb_dicom_dataset_set_string (ds, LB_TAG_PATIENT_NAME, "PN", "Doe^Jane");
  lb_dicom_dataset_set_string (ds, LB_TAG_PATIENT_ID, "LO", "SR-1");
  lb_dicom_dataset_set_string (ds, LB_TAG_MODALITY, "CS", "CT");
  return ds;
}

/* One measurement of every tool, with points that single precision cannot hold exactly. */
static GPtrArray *
every_tool (void)
{
  static const struct { LbMeasurementTool tool; guint n; double xy[10]; } defs[] = {
    { LB_MEASUREMENT_LENGTH, 2, { 1.1, 2.2, 30.3, 20.7 } },
    { LB_MEASUREMENT_ANGLE, 3, { 5.1, 5.3, 20.5, 20.7, 40.9, 3.3 } },
    { LB_MEASUREMENT_POLYLINE, 4, { 1.5, 1.5, 9.1, 3.3, 17.7, 1.9, 25.1, 8.8 } },
    { LB_MEASUREMENT_RECTANGLE, 2, { 40.3, 30.1, 10.7, 5.9 } },
    { LB_MEASUREMENT_ELLIPSE, 2, { 10.1, 10.3, 30.7, 40.9 } },     /* taller than wide */
    { LB_MEASUREMENT_ELLIPSE, 2, { 5.1, 20.3, 55.7, 30.9 } },      /* wider than tall */
    { LB_MEASUREMENT_FREEHAND, 5, { 10.1, 10.2, 40.3, 12.4, 30.5, 20.6, 45.7, 40.8, 8.9, 35.1 } },
    { LB_MEASUREMENT_PROBE, 1, { 12.5, 17.5 } },
    { LB_MEASUREMENT_ARROW, 2, { 3.3, 4.4, 20.1, 30.2 } },
  };
  GPtrArray *list = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < G_N_ELEMENTS (defs); i++)
    {
      g_autoptr(GError) error = NULL;
      LbMeasurement *m = lb_measurement_new_with_points (defs[i].tool,
                                                         (const LbMeasurementPoint *) defs[i].xy,
                                                         defs[i].n, &error);

      g_assert_no_error (error);
      g_ptr_array_add (list, m);
    }
  lb_measurement_set_text (list->pdata[list->len - 1], "nodule \\ see “report”");
  lb_measurement_set_text (list->pdata[0], "long axis");
  return list;
}

static double
value_of (LbMeasurementSrEntry *e, const char *name, const char **unit)
{
  for (guint i = 0; i < e->values->len; i++)
    {
      LbMeasurementSrValue *v = &g_array_index (e->values, LbMeasurementSrValue, i);

      if (strcmp (v->name, name) == 0)
        {
          if (unit)
            *unit = v->unit;
          return v->value;
        }
    }
  g_assert_not_reached ();
  return NAN;
}

static void
check_entries (GPtrArray *entries, GPtrArray *list, LbImage *image,
               const LbMeasurementSpacing *spacing, gint frame)
{
  g_assert_cmpuint (entries->len, ==, list->len);
  for (guint i = 0; i < list->len; i++)
    {
      LbMeasurementSrEntry *e = entries->pdata[i];
      g_autoptr(LbMeasurement) want = lb_measurement_sr_round (list->pdata[i]);
      LbMeasurementValues v;
      g_autoptr(GError) error = NULL;
      const char *unit = NULL;

      g_assert_cmpint (lb_measurement_get_tool (e->measurement), ==,
                       lb_measurement_get_tool (want));
      g_assert_cmpuint (lb_measurement_get_n_points (e->measurement), ==,
                        lb_measurement_get_n_points (want));
      for (guint j = 0; j < lb_measurement_get_n_points (want); j++)
        {
          LbMeasurementPoint a = lb_measurement_get_point (e->measurement, j);
          LbMeasurementPoint b = lb_measurement_get_point (want, j);

          /* the same bits: single precision, and the ellipse's box from its axes */
          g_assert_cmpfloat (a.x, ==, b.x);
          g_assert_cmpfloat (a.y, ==, b.y);
        }
      g_assert_cmpstr (lb_measurement_get_text (e->measurement), ==,
                       lb_measurement_get_text (want));
      g_assert_cmpstr (e->sop_instance_uid, ==, SOP);
      g_assert_cmpint (e->frame, ==, frame);
      g_assert_nonnull (e->tracking_uid);
      g_assert_true (g_str_has_prefix (e->tracking_id, "Lightbox "));

      /* the report's values are those of the rounded points */
      g_assert_true (lb_measurement_compute (want, spacing, image, &v, &error));
      g_assert_no_error (error);
      switch (lb_measurement_get_tool (want))
        {
        case LB_MEASUREMENT_LENGTH:
        case LB_MEASUREMENT_POLYLINE:
        case LB_MEASUREMENT_ARROW:
          g_assert_cmpfloat (value_of (e, "length", &unit), ==, v.length);
          g_assert_cmpstr (unit, ==, "mm");
          break;
        case LB_MEASUREMENT_ANGLE:
          g_assert_cmpfloat (value_of (e, "angle", &unit), ==, v.angle);
          g_assert_cmpstr (unit, ==, "deg");
          break;
        case LB_MEASUREMENT_PROBE:
          g_assert_true (v.has_value);
          g_assert_cmpfloat (value_of (e, "value", &unit), ==, v.value);
          g_assert_cmpstr (unit, ==, "[hnsf'U]");
          break;
        case LB_MEASUREMENT_RECTANGLE:
        case LB_MEASUREMENT_ELLIPSE:
        case LB_MEASUREMENT_FREEHAND:
        default:
          g_assert_cmpfloat (value_of (e, "area", &unit), ==, v.area);
          g_assert_cmpstr (unit, ==, "mm2");
          g_assert_true (v.has_stats && v.stats.n_pixels > 0);
          g_assert_cmpfloat (value_of (e, "mean", &unit), ==, v.stats.mean);
          g_assert_cmpstr (unit, ==, "[hnsf'U]");
          g_assert_cmpfloat (value_of (e, "sd", NULL), ==, v.stats.sd);
          g_assert_cmpfloat (value_of (e, "min", NULL), ==, v.stats.min);
          g_assert_cmpfloat (value_of (e, "max", NULL), ==, v.stats.max);
          break;
        }
    }
}

static void
test_round_trip (void)
{
  g_autoptr(LbDicomDataset) src = source_dataset (STUDY, SOP);
  g_autoptr(LbImage) image = lb_test_ct_image_new (64, 48, 7);
  g_autoptr(GPtrArray) list = every_tool ();
  LbMeasurementSpacing spacing = { LB_MEASUREMENT_SPACING_CALIBRATED, 0.7, 0.9, 1 };
  LbMeasurementSrImage img = { src, -1, image, &spacing, list };
  g_autoptr(GError) error = NULL;
  g_autoptr(LbDicomDataset) sr = lb_measurement_sr_build (&img, 1, 4, &error);
  g_autoptr(GPtrArray) entries = NULL, again = NULL;
  g_autoptr(GBytes) part10 = NULL;
  g_autoptr(LbDicomFile) file = NULL;

  g_assert_no_error (error);
  g_assert_true (lb_dicom_sr_is_sr (sr));
  g_assert_cmpstr (lb_dicom_dataset_get_string (sr, LB_TAG_STUDY_INSTANCE_UID, 0), ==, STUDY);
  g_assert_cmpstr (lb_dicom_dataset_get_string (sr, LB_TAG_MODALITY, 0), ==, "SR");
  g_assert_cmpstr (lb_dicom_dataset_get_string (sr, LB_TAG_SERIES_NUMBER, 0), ==, "4");
  g_assert_cmpstr (lb_dicom_dataset_get_string (sr, LB_TAG_SERIES_INSTANCE_UID, 0), !=, SERIES);
  g_assert_cmpstr (lb_dicom_dataset_get_string (sr, LB_TAG_PATIENT_ID, 0), ==, "SR-1");

  entries = lb_measurement_sr_read (sr, &error);
  g_assert_no_error (error);
  check_entries (entries, list, image, &spacing, -1);

  /* the same from the Part 10 file, parsed by Lightbox's reader (FL, FD, UT from bytes) */
  part10 = lb_dicom_write_part10 (sr, &error);
  g_assert_no_error (error);
  file = lb_dicom_file_new_from_bytes (part10, "sr.dcm", LB_DICOM_READ_DEFAULT, NULL, &error);
  g_assert_no_error (error);
  again = lb_measurement_sr_read (lb_dicom_file_get_dataset (file), &error);
  g_assert_no_error (error);
  check_entries (again, list, image, &spacing, -1);
}

static void
test_frames (void)
{
  g_autoptr(LbDicomDataset) src = source_dataset (STUDY, SOP);
  g_autoptr(GPtrArray) list = every_tool ();
  LbMeasurementSpacing spacing;
  LbMeasurementSrImage img = { src, 2, NULL, &spacing, list };
  g_autoptr(GError) error = NULL;
  g_autoptr(LbDicomDataset) sr = NULL;
  g_autoptr(GPtrArray) entries = NULL, on2 = NULL, on1 = NULL, any = NULL, other = NULL;
  g_autoptr(GPtrArray) groups = NULL;
  LbDicomDataset *num, *scoord, *image_item;
  const char *cls, *sop;
  guint frame = 0;

  lb_measurement_spacing_init_unknown (&spacing);
  sr = lb_measurement_sr_build (&img, 1, 1, &error);
  g_assert_no_error (error);
  /* frame 2 from 0 is ReferencedFrameNumber 3 (PS3.3 C.18.4, from 1) */
  groups = lb_dicom_tid1500_get_groups (sr);
  g_assert_cmpuint (groups->len, ==, list->len);
  num = lb_dicom_sr_find_child (groups->pdata[0], LB_CODE_LENGTH, "NUM");
  g_assert_nonnull (num);
  scoord = lb_dicom_sr_get_child (num, 0);
  g_assert_cmpstr (lb_dicom_sr_get_relationship (scoord), ==, "INFERRED FROM");
  image_item = lb_dicom_sr_get_child (scoord, 0);
  g_assert_cmpstr (lb_dicom_sr_get_relationship (image_item), ==, "SELECTED FROM");
  g_assert_true (lb_dicom_sr_get_image (image_item, &cls, &sop, &frame));
  g_assert_cmpstr (cls, ==, CT_IMAGE);
  g_assert_cmpuint (frame, ==, 3);
  /* without a spacing, lengths are in pixels */
  {
    double v;
    LbDicomCode unit;

    g_assert_true (lb_dicom_sr_get_num (num, &v, &unit));
    g_assert_cmpstr (unit.value, ==, "{px}");
  }

  entries = lb_measurement_sr_read (sr, &error);
  g_assert_no_error (error);
  g_assert_cmpint (((LbMeasurementSrEntry *) entries->pdata[0])->frame, ==, 2);
  on2 = lb_measurement_sr_for_image (entries, SOP, 2);
  on1 = lb_measurement_sr_for_image (entries, SOP, 1);
  any = lb_measurement_sr_for_image (entries, SOP, -1);
  other = lb_measurement_sr_for_image (entries, "1.2.3", 2);
  g_assert_cmpuint (on2->len, ==, list->len);
  g_assert_cmpuint (on1->len, ==, 0);
  g_assert_cmpuint (any->len, ==, list->len);
  g_assert_cmpuint (other->len, ==, 0);
}

/* The first SCOORD of the report's first group. */
static LbDicomDataset *
first_scoord (LbDicomDataset *sr)
{
  g_autoptr(GPtrArray) groups = lb_dicom_tid1500_get_groups (sr);
  LbDicomDataset *num = lb_dicom_sr_find_child (groups->pdata[0], LB_CODE_LENGTH, "NUM");

  return lb_dicom_sr_get_child (num, 0);
}

static void
test_bad_input (void)
{
  g_autoptr(LbDicomDataset) src = source_dataset (STUDY, SOP);
  g_autoptr(LbDicomDataset) no_study = source_dataset (NULL, SOP);
  g_autoptr(LbDicomDataset) other_study = source_dataset ("1.2.3.4", "1.2.3.5");
  g_autoptr(GPtrArray) empty = g_ptr_array_new ();
  g_autoptr(GPtrArray) list = every_tool ();
  LbMeasurementSpacing spacing;
  LbMeasurementSrImage img = { src, -1, NULL, &spacing, empty };
  LbMeasurementSrImage two[2] = { { src, -1, NULL, &spacing, list },
                                  { other_study, -1, NULL, &spacing, list } };
  g_autoptr(GError) error = NULL;
  g_autoptr(LbDicomDataset) sr = NULL;
  g_autoptr(GPtrArray) entries = NULL;
  LbDicomDataset *scoord;
  GPtrArray *values;

  lb_measurement_spacing_init_unknown (&spacing);
  g_assert_null (lb_measurement_sr_build (&img, 1, 1, &error));
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  img.measurements = list;
  img.dataset = no_study;
  g_assert_null (lb_measurement_sr_build (&img, 1, 1, &error));
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (lb_measurement_sr_build (two, 2, 1, &error));
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "not in the report's study"));
  g_clear_error (&error);

  /* an odd number of GraphicData values: the whole report fails, naming the group */
  img.dataset = src;
  sr = lb_measurement_sr_build (&img, 1, 1, &error);
  g_assert_no_error (error);
  scoord = first_scoord (sr);
  values = g_ptr_array_new ();
  g_ptr_array_add (values, g_strdup ("1"));
  g_ptr_array_add (values, g_strdup ("2"));
  g_ptr_array_add (values, g_strdup ("3"));
  lb_dicom_dataset_take_values (scoord, LB_TAG_GRAPHIC_DATA, "FL", values);
  g_assert_null (lb_measurement_sr_read (sr, &error));
  g_assert_error (error, LB_ERROR, LB_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "measurement group 1"));
  g_clear_error (&error);

  /* a point past the coordinate limit */
  values = g_ptr_array_new ();
  g_ptr_array_add (values, g_strdup ("1"));
  g_ptr_array_add (values, g_strdup ("2"));
  g_ptr_array_add (values, g_strdup ("3e9"));
  g_ptr_array_add (values, g_strdup ("4"));
  lb_dicom_dataset_take_values (scoord, LB_TAG_GRAPHIC_DATA, "FL", values);
  g_assert_null (lb_measurement_sr_read (sr, &error));
  g_assert_error (error, LB_ERROR, LB_ERROR_PARSE);
  g_clear_error (&error);

  /* an unknown graphic type */
  lb_dicom_dataset_set_string (scoord, LB_TAG_GRAPHIC_TYPE, "CS", "SPLINE");
  g_assert_null (lb_measurement_sr_read (sr, &error));
  g_assert_error (error, LB_ERROR, LB_ERROR_PARSE);
  g_clear_error (&error);

  /* a document that is no measurement report: nothing, no error */
  entries = lb_measurement_sr_read (src, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (entries->len, ==, 0);
}

static void
test_store_refuses (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStore) store = lb_store_new_for_uri ("dicomweb+http://127.0.0.1:9/dicom-web", NULL,
                                                   &error);
  g_autoptr(LbDicomDataset) not_sr = source_dataset (STUDY, SOP);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(LbStoreEntry) entry = NULL;

  g_assert_no_error (error);
  /* no SR: refused before any request (port 9 would fail with a network error) */
  lb_dicomweb_store_save_report_async (LB_DICOMWEB_STORE (store), not_sr, NULL,
                                       lb_test_keep_result, &result);
  entry = lb_dicomweb_store_save_report_finish (LB_DICOMWEB_STORE (store),
                                                lb_test_wait_result (&result), &error);
  g_assert_null (entry);
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/measure/sr/round-trip", test_round_trip);
  g_test_add_func ("/measure/sr/frames", test_frames);
  g_test_add_func ("/measure/sr/bad-input", test_bad_input);
  g_test_add_func ("/measure/sr/store-refuses", test_store_refuses);
  return g_test_run ();
}
