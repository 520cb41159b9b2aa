/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Multi-frame instances over DICOMweb: a 5-frame CT and an Enhanced CT (make-variants.py, with
 * each frame's values from pydicom and numpy) stored in Orthanc; LbFrameSource, what the
 * workstation steps frames with, gets every frame through WADO-RS …/frames/N with the values
 * pydicom gives it, refuses a frame past the last naming it and the count; an image derived
 * from frame 3 and stored back references frame 3 and keeps its values (pydicom, dciodvfy).
 * Runs last: it adds instances the tree and paging tests do not expect. */
#include <string.h>

#include "lb-dicom-frame.h"
#include "lb-dicom-tags.h"
#include "lb-dicom-writer.h"
#include "lb-error.h"
#include "lb-frame-source.h"
#include "lb-test-dicom.h"
#include "lb-test-files.h"
#include "lb-test-loop.h"
#include "test-dicomweb-orthanc.h"

static LbImage *
load_frame (LbFrameSource *src, guint n, GError **error)
{
  GAsyncResult *res = NULL;
  LbImage *img;

  lb_frame_source_load_async (src, n, NULL, lb_test_keep_result, &res);
  img = lb_frame_source_load_finish (src, lb_test_wait_result (&res), error);
  g_object_unref (res);
  return img;
}

/* Stores @name's Part 10 file in its study; returns the instance's store URI and its UIDs. */
static char *
upload (LbStore *store, const char *dir, const char *name, char **study, char **series,
        char **instance)
{
  g_autoptr(GBytes) bytes = lb_test_variant_bytes (dir, name, ".dcm");
  g_autoptr(LbDicomDataset) md = lb_test_variant_metadata (dir, name);
  g_autofree char *target = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStoreEntry) entry = NULL;
  *study = g_strdup (lb_dicom_dataset_get_string (md, LB_TAG_STUDY_INSTANCE_UID, 0));
  *series = g_strdup (lb_dicom_dataset_get_string (md, LB_TAG_SERIES_INSTANCE_UID, 0));
  *instance = g_strdup (lb_dicom_dataset_get_string (md, LB_TAG_SOP_INSTANCE_UID, 0));
  target = g_strdup_printf ("%s/studies/%s/%s.dcm", store_url, *study, name);
  entry = write_bytes (store, target, bytes, "application/dicom", LB_STORE_WRITE_CREATE, &error);
  g_assert_no_error (error);
  return g_strdup (lb_store_entry_get_uri (entry));
}

void
test_frames (void)
{
  g_autoptr(LbStore) store = open_store ();
  g_autofree char *dir = lb_test_make_dicom_variants ("dicomweb-frames");
  const char *names[] = { "mf-ct", "enhanced-ct" };
  const guint counts[] = { 5, 3 };

  if (dir == NULL)
    {
      g_test_skip ("make-variants.py needs pydicom and numpy");
      return;
    }
  for (guint k = 0; k < G_N_ELEMENTS (names); k++)
    {
      g_autofree char *st = NULL, *se = NULL, *in = NULL;
      g_autofree char *uri = upload (store, dir, names[k], &st, &se, &in);
      g_autoptr(LbFrameSource) frames = NULL;
      g_autoptr(LbImage) first = NULL, past = NULL;
      g_autoptr(GError) error = NULL;

      /* what the workstation does: the first frame as any image, then frames on demand */
      first = fetch_image (store, uri, NULL, &error);
      g_assert_no_error (error);
      frames = lb_frame_source_new_for_image (store, uri, first);
      g_assert_nonnull (frames);
      g_assert_cmpuint (lb_frame_source_get_n_frames (frames), ==, counts[k]);
      for (guint n = 1; n <= counts[k]; n++)
        {
          g_autoptr(LbImage) img = load_frame (frames, n, &error);
          g_autofree char *num = g_strdup_printf ("%u", n);

          g_assert_no_error (error);
          g_assert_cmpstr (lb_image_meta_get_text (lb_image_get_meta (img),
                                                   LB_DICOM_META_FRAME_NUMBER), ==, num);
          g_autofree char *suffix = g_strdup_printf ("-f%u.values", n);
          g_autofree char *values = lb_test_variant_path (dir, names[k], suffix);
          g_autofree char *what = g_strdup_printf ("%s frame %u over DICOMweb", names[k], n);

          lb_test_check_real_values (img, values, what);
        }
      past = load_frame (frames, counts[k] + 1, &error);
      g_assert_null (past);
      g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
      g_assert_nonnull (strstr (error->message, "frames"));
      g_clear_error (&error);

      if (k == 1)
        {
          /* write-back: frame 3 of the Enhanced CT, derived and stored, references it and
           * means what frame 3 means (pydicom on the file Orthanc gives back) */
          g_autoptr(LbDicomDataset) md = NULL, sc = NULL;
          g_autoptr(LbImage) f3 = NULL;
          g_autoptr(GBytes) file = NULL;
          g_autoptr(LbStoreEntry) entry = NULL;
          g_autoptr(GHashTable) kv = NULL;
          g_autofree char *frame_uri = g_strdup_printf ("%s/frames/3", uri);
          g_autofree char *target = g_strdup_printf ("%s/studies/%s/frame3.dcm", store_url, st);
          g_autofree char *alone = lb_test_variant_path (dir, names[k], "-f3.dcm");
          g_autofree char *back = NULL;

          f3 = fetch_image (store, frame_uri, &md, &error);
          g_assert_no_error (error);
          sc = lb_dicom_build_secondary_capture (f3, md, "frame 3", 7, &error);
          g_assert_no_error (error);
          file = lb_dicom_write_part10 (sc, &error);
          g_assert_no_error (error);
          entry = write_bytes (store, target, file, "application/dicom", LB_STORE_WRITE_CREATE,
                               &error);
          g_assert_no_error (error);
          back = retrieve_instance_file (store, st,
                                         lb_dicom_dataset_get_string (
                                           sc, LB_TAG_SERIES_INSTANCE_UID, 0),
                                         lb_dicom_dataset_get_string (
                                           sc, LB_TAG_SOP_INSTANCE_UID, 0), "frame3.dcm");
          lb_test_check_dciodvfy (back);
          kv = lb_test_check_derived (back, alone);
          g_assert_cmpstr (g_hash_table_lookup (kv, "frame"), ==, "3");
        }
    }
  lb_test_remove_tree (dir);
}
