/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Measurement reports (DICOM SR, TID 1500) through the store API against Orthanc: a report
 * built on an instance's WADO-RS metadata is saved in a new series numbered after the study's
 * highest; saving the same report again, or one that names an existing series (another
 * reader's), is refused with LB_ERROR_CONFLICT before anything is sent; finding the study's
 * reports from the instance or the study returns it with its content tree, which reads back
 * into the measurements; a URI outside any study is refused. The values and the checks by
 * dciodvfy, dcmdump and pydicom are test-measure-sr.sh's. */
#include <string.h>

#include "lb-dicom-tags.h"
#include "lb-dicomweb-reports.h"
#include "lb-error.h"
#include "lb-measurement-sr.h"
#include "lb-test-loop.h"
#include "lb-store-sync.h"
#include "test-dicomweb-orthanc.h"

static LbStoreEntry *
save (LbStore *store, LbDicomDataset *report, GError **error)
{
  GAsyncResult *res = NULL;
  LbStoreEntry *entry;

  lb_dicomweb_store_save_report_async (LB_DICOMWEB_STORE (store), report, NULL,
                                       lb_test_keep_result, &res);
  entry = lb_dicomweb_store_save_report_finish (LB_DICOMWEB_STORE (store),
                                                lb_test_wait_result (&res), error);
  g_object_unref (res);
  return entry;
}

static GPtrArray *
find (LbStore *store, const char *uri, GError **error)
{
  GAsyncResult *res = NULL;
  GPtrArray *found;

  lb_dicomweb_store_find_reports_async (LB_DICOMWEB_STORE (store), uri, NULL,
                                        lb_test_keep_result, &res);
  found = lb_dicomweb_store_find_reports_finish (LB_DICOMWEB_STORE (store),
                                                 lb_test_wait_result (&res), error);
  g_object_unref (res);
  return found;
}

static LbDicomDataset *
build (LbDicomDataset *md, LbImage *image, const LbMeasurementSpacing *spacing)
{
  static const LbMeasurementPoint length[] = { { 10.5, 12.25 }, { 50.75, 60.5 } };
  static const LbMeasurementPoint ellipse[] = { { 20, 20 }, { 44.5, 40.5 } };
  g_autoptr(GPtrArray) list = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GError) error = NULL;
  LbMeasurementSrImage img = { md, -1, image, spacing, list };
  LbDicomDataset *report;

  g_ptr_array_add (list, lb_measurement_new_with_points (LB_MEASUREMENT_LENGTH, length, 2, NULL));
  g_ptr_array_add (list, lb_measurement_new_with_points (LB_MEASUREMENT_ELLIPSE, ellipse, 2,
                                                         NULL));
  report = lb_measurement_sr_build (&img, 1, 1, &error);
  g_assert_no_error (error);
  return report;
}

void
test_save_report (void)
{
  g_autoptr(LbStore) store = open_store ();
  g_autofree char *group = group_for_file ("CT_small.dcm");
  g_autofree char *src_uri = instance_uri_for (group);
  g_autofree char *st = exp_str (group, "StudyInstanceUID");
  g_autofree char *src_series = exp_str (group, "SeriesInstanceUID");
  g_autofree char *src_sop = exp_str (group, "SOPInstanceUID");
  g_autofree char *study_uri = g_strdup_printf ("%s/studies/%s/", store_url, st);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbDicomDataset) md = NULL, report = NULL, intruder = NULL;
  g_autoptr(LbImage) image = fetch_image (store, src_uri, &md, &error);
  g_autoptr(LbStoreEntry) entry = NULL, again = NULL, joined = NULL;
  g_autoptr(GPtrArray) before = NULL, after = NULL, from_study = NULL, entries = NULL;
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GPtrArray) series = NULL;
  LbMeasurementSpacing spacing;
  const LbDicomDataset *ours = NULL;
  gint64 max_number = 0;

  g_assert_no_error (error);
  lb_measurement_spacing_from_dataset (md, &spacing);
  before = find (store, src_uri, &error);
  g_assert_no_error (error);
  series = lb_store_list_sync (store, study_uri, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < series->len; i++)
    {
      const char *n = lb_store_entry_get_attribute (series->pdata[i], "SeriesNumber");

      if (n)
        max_number = MAX (max_number, g_ascii_strtoll (n, NULL, 10));
    }

  report = build (md, image, &spacing);
  entry = save (store, report, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (lb_store_entry_get_attribute (entry, "StudyInstanceUID"), ==, st);
  g_assert_cmpstr (lb_store_entry_get_attribute (entry, "SeriesInstanceUID"), ==,
                   lb_dicom_dataset_get_string (report, LB_TAG_SERIES_INSTANCE_UID, 0));
  g_assert_cmpstr (lb_store_entry_get_attribute (entry, "SOPClassUID"), ==,
                   "1.2.840.10008.5.1.4.1.1.88.33");

  /* the same report again: its series and instance exist, nothing is sent */
  again = save (store, report, &error);
  g_assert_null (again);
  g_assert_error (error, LB_ERROR, LB_ERROR_CONFLICT);
  g_clear_error (&error);
  /* a report that would join the image's own series (another reader's) */
  intruder = build (md, image, &spacing);
  lb_dicom_dataset_set_string (intruder, LB_TAG_SERIES_INSTANCE_UID, "UI", src_series);
  joined = save (store, intruder, &error);
  g_assert_null (joined);
  g_assert_error (error, LB_ERROR, LB_ERROR_CONFLICT);
  g_clear_error (&error);

  /* found from the instance and from the study, numbered after the study's series */
  after = find (store, src_uri, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (after->len, ==, before->len + 1);
  from_study = find (store, study_uri, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (from_study->len, ==, after->len);
  for (guint i = 0; i < after->len; i++)
    if (g_strcmp0 (lb_dicom_dataset_get_string (after->pdata[i], LB_TAG_SOP_INSTANCE_UID, 0),
                   lb_store_entry_get_attribute (entry, "SOPInstanceUID")) == 0)
      ours = after->pdata[i];
  g_assert_nonnull (ours);
  {
    gint64 number = 0;

    g_assert_true (lb_dicom_dataset_get_int (ours, LB_TAG_SERIES_NUMBER, 0, &number));
    g_assert_cmpint (number, ==, max_number + 1);
  }
  entries = lb_measurement_sr_read (ours, &error);
  g_assert_no_error (error);
  list = lb_measurement_sr_for_image (entries, src_sop, -1);
  g_assert_cmpuint (list->len, ==, 2);
  g_assert_cmpint (lb_measurement_get_tool (list->pdata[0]), ==, LB_MEASUREMENT_LENGTH);
  g_assert_cmpfloat (lb_measurement_get_point (list->pdata[0], 1).x, ==, 50.75);
  g_assert_cmpint (lb_measurement_get_tool (list->pdata[1]), ==, LB_MEASUREMENT_ELLIPSE);
  g_assert_cmpfloat (lb_measurement_get_point (list->pdata[1], 1).y, ==, 40.5);

  /* reports belong to a study */
  g_clear_pointer (&after, g_ptr_array_unref);
  after = find (store, NULL, &error);
  g_assert_null (after);
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
}
