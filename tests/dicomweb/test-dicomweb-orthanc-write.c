/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Writing through the DICOMweb store: a derived image stored (STOW-RS) as a new series,
 * write-back, the writes it refuses, raw Part 10 files, a patient with an empty ID. */

#include <glib/gstdio.h>
#include <string.h>
#include <libsoup/soup.h>

#include "lb-dicom-frame.h"
#include "lb-dicom-multipart.h"
#include "lb-dicom-writer.h"
#include "lb-error.h"
#include "lb-png.h"
#include "lb-store-sync.h"
#include "lb-test-dicom.h"
#include "lb-test-loop.h"
#include "lb-test-process.h"
#include "lb-test-stores.h"
#include "lb-write-back.h"
#include "test-dicomweb-orthanc.h"

/* The derived image: CT_small with its stored values negated around 1500, a real change that
 * keeps the modality scale (same value model: offset-binary samples of signed stored values). */
static LbImage *
make_derived (LbImage *src)
{
  g_autoptr(GError) error = NULL;
  guint w = lb_image_get_width (src), h = lb_image_get_height (src);
  gsize stride;
  guint8 *px = lb_image_alloc_pixels (w, h, LB_FORMAT_GRAY16, NULL, &stride, &error);
  g_autoptr(LbImageMeta) meta = lb_image_dup_meta (src);

  g_assert_no_error (error);
  for (guint y = 0; y < h; y++)
    for (guint x = 0; x < w; x++)
      {
        gint32 v = ((const guint16 *) lb_image_get_row (src, y))[x] - 32768;

        ((guint16 *) (px + y * stride))[x] = (guint16) (3000 - v + 32768);
      }
  return lb_image_new_take (w, h, LB_FORMAT_GRAY16, stride, px, meta);
}

void
test_stow_derived (void)
{
  g_autoptr(LbStore) store = open_store ();
  g_autofree char *group = group_for_file ("CT_small.dcm");
  g_autofree char *src_uri = instance_uri_for (group);
  g_autofree char *st = exp_str (group, "StudyInstanceUID");
  g_autofree char *src_series = exp_str (group, "SeriesInstanceUID");
  g_autofree char *study_uri = g_strdup_printf ("%s/studies/%s/", store_url, st);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbImage) src = fetch_image (store, src_uri, NULL, &error);
  g_autoptr(LbImage) derived = NULL, back = NULL;
  g_autoptr(LbStoreEntry) entry = NULL;
  g_autoptr(GPtrArray) before = NULL, after = NULL, instances = NULL;
  g_autoptr(LbDicomDataset) back_md = NULL;
  GAsyncResult *res = NULL;
  const char *new_series, *new_sop;
  LbStoreEntry *series_entry = NULL;
  g_autofree char *path = NULL, *dump = NULL, *err = NULL, *v = NULL;
  int status;

  g_assert_no_error (error);
  derived = make_derived (src);
  before = lb_store_list_sync (store, study_uri, NULL, &error);
  g_assert_no_error (error);

  lb_dicomweb_store_store_derived_async (LB_DICOMWEB_STORE (store), derived, src_uri,
                                         "negate(offset=3000)", NULL, lb_test_keep_result, &res);
  entry = lb_dicomweb_store_store_derived_finish (LB_DICOMWEB_STORE (store),
                                                  lb_test_wait_result (&res), &error);
  g_object_unref (res);
  g_assert_no_error (error);
  g_assert_cmpstr (lb_store_entry_get_attribute (entry, "StudyInstanceUID"), ==, st);
  new_series = lb_store_entry_get_attribute (entry, "SeriesInstanceUID");
  new_sop = lb_store_entry_get_attribute (entry, "SOPInstanceUID");
  g_assert_cmpstr (new_series, !=, src_series);

  /* a new series in the same study, with a readable label */
  after = lb_store_list_sync (store, study_uri, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (after->len, ==, before->len + 1);
  for (guint i = 0; i < before->len; i++)
    g_assert_cmpstr (lb_store_entry_get_name (before->pdata[i]), !=, new_series);
  series_entry = lb_test_store_find (after, new_series);
  g_assert_nonnull (series_entry);
  /* numbered after every series the study had */
  {
    gint64 max_number = 0;

    for (guint i = 0; i < before->len; i++)
      {
        const char *n = lb_store_entry_get_attribute (before->pdata[i], "SeriesNumber");

        if (n)
          max_number = MAX (max_number, g_ascii_strtoll (n, NULL, 10));
      }
    g_assert_cmpint (g_ascii_strtoll (lb_store_entry_get_attribute (series_entry, "SeriesNumber"),
                                      NULL, 10), ==, max_number + 1);
  }
  g_assert_true (g_str_has_prefix (lb_store_entry_get_display_name (series_entry), "OT #"));
  g_assert_true (g_str_has_suffix (lb_store_entry_get_display_name (series_entry),
                                   " Lightbox: negate(offset=3000)"));
  instances = lb_store_list_sync (store, lb_store_entry_get_uri (series_entry), NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (instances->len, ==, 1);
  g_assert_cmpstr (lb_store_entry_get_uri (instances->pdata[0]), ==, lb_store_entry_get_uri (entry));

  /* retrievable, and the pixels round-trip exactly with their value mapping */
  back = fetch_image (store, lb_store_entry_get_uri (entry), &back_md, &error);
  g_assert_no_error (error);
  g_assert_true (lb_image_equal_pixels (back, derived));
  {
    double a, b, c, d;

    LbValueModel *bm = lb_image_meta_get_value_model (lb_image_get_meta (back));
    LbValueModel *sm = lb_image_meta_get_value_model (lb_image_get_meta (src));

    g_assert_true (lb_value_model_get_source_signed (bm));
    g_assert_true (lb_value_model_get_stored_rescale (bm, &a, &b));
    g_assert_true (lb_value_model_get_stored_rescale (sm, &c, &d));
    g_assert_cmpstr (lb_value_model_get_units (bm), ==, "HU");
    g_assert_cmpfloat (a, ==, c);
    g_assert_cmpfloat (b, ==, d);
  }

  /* dcmtk reads the stored instance: SC class, fresh series, the source's study */
  path = retrieve_instance_file (store, st, new_series, new_sop, "stored.dcm");
  {
    const char *argv[] = { "dcmdump", "+f", "-E", "-Un", path, NULL };

    dump = lb_test_run_tool (argv, &err, &status);
    g_test_message ("dcmdump:\n%s%s", dump, err);
    g_assert_cmpint (status, ==, 0);
  }
  v = lb_test_dcmdump_value (dump, "(0008,0016)");
  g_assert_cmpstr (v, ==, LB_DICOM_SOP_CLASS_SECONDARY_CAPTURE);
  g_free (v);
  v = lb_test_dcmdump_value (dump, "(0020,000d)");
  g_assert_cmpstr (v, ==, st);
  g_free (v);
  v = lb_test_dcmdump_value (dump, "(0020,000e)");
  g_assert_cmpstr (v, ==, new_series);
  g_assert_cmpstr (v, !=, src_series);
  g_free (v);
  v = lb_test_dcmdump_value (dump, "(0008,0018)");
  g_assert_cmpstr (v, ==, new_sop);
  g_free (v);
  v = lb_test_dcmdump_value (dump, "(0008,0060)");
  g_assert_cmpstr (v, ==, "OT");
  g_free (v);
  v = lb_test_dcmdump_value (dump, "(0010,0020)");
  {
    g_autofree char *pid = exp_str (group, "PatientID");
    g_autofree char *src_sop = exp_str (group, "SOPInstanceUID");
    g_autofree char *src_class = exp_str (group, "SOPClassUID");

    g_assert_cmpstr (v, ==, pid);
    g_free (v);
    v = lb_test_dcmdump_value (dump, "(0008,2111)");
    g_assert_cmpstr (v, ==, "Lightbox: negate(offset=3000)");
    g_free (v);
    /* SourceImageSequence > ReferencedSOPInstanceUID / ReferencedSOPClassUID */
    v = lb_test_dcmdump_value (dump, "    (0008,1155)");
    g_assert_cmpstr (v, ==, src_sop);
    g_free (v);
    v = lb_test_dcmdump_value (dump, "    (0008,1150)");
    g_assert_cmpstr (v, ==, src_class);
  }
  if (!lb_test_check_dciodvfy (path))
    {
      const char *argv[] = { "dcmdump", "+f", "+E", path, NULL };
      g_autofree char *out = NULL, *e2 = NULL;

      out = lb_test_run_tool (argv, &e2, &status);
      g_assert_cmpint (status, ==, 0);
      g_assert_null (strstr (e2, "E:"));
    }
  g_unlink (path);
}

/* The generic path: safe write-back of a PNG with provenance into the source's container. */
void
test_write_back (void)
{
  g_autoptr(LbStore) store = open_store ();
  g_autofree char *group = group_for_file ("CT_small.dcm");
  g_autofree char *src_uri = instance_uri_for (group);
  g_autofree char *st = exp_str (group, "StudyInstanceUID");
  g_autofree char *study_uri = g_strdup_printf ("%s/studies/%s/", store_url, st);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbImage) src = lb_store_fetch_image_sync (src_uri, NULL, NULL, NULL, NULL, &error);
  g_autoptr(LbImage) derived = NULL, back = NULL;
  g_autoptr(LbWriteBackResult) wb = NULL;
  g_autoptr(GPtrArray) before = NULL, after = NULL, instances = NULL;
  LbWriteBackOptions opts = { .filter_label = "negate", .filter_chain = "negate(offset=3000)" };
  GAsyncResult *res = NULL;
  LbStoreEntry *added = NULL;

  g_assert_no_error (error);
  derived = make_derived (src);
  before = lb_store_list_sync (store, study_uri, NULL, &error);
  g_assert_no_error (error);

  lb_write_back_async (store, src_uri, derived, &opts, NULL, NULL, NULL, lb_test_keep_result, &res);
  wb = lb_write_back_finish (store, lb_test_wait_result (&res), &error);
  g_object_unref (res);
  g_assert_no_error (error);
  g_test_message ("write-back: %s", wb->message);
  /* Verified against the instance the upload created (a DICOM object, not the PNG sent). */
  g_assert_true (wb->verified);
  g_assert_nonnull (strstr (wb->message, "present on the server"));

  after = lb_store_list_sync (store, study_uri, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (after->len, ==, before->len + 1);
  for (guint i = 0; i < after->len && added == NULL; i++)
    if (lb_test_store_find (before, lb_store_entry_get_name (after->pdata[i])) == NULL)
      added = after->pdata[i];
  g_assert_nonnull (added);
  g_assert_true (g_str_has_suffix (lb_store_entry_get_display_name (added),
                                   "Lightbox: negate(offset=3000)"));
  instances = lb_store_list_sync (store, lb_store_entry_get_uri (added), NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (instances->len, ==, 1);
  back = fetch_image (store, lb_store_entry_get_uri (instances->pdata[0]), NULL, &error);
  g_assert_no_error (error);
  g_assert_true (lb_image_equal_pixels (back, derived));
  g_assert_true (lb_value_model_get_source_signed (lb_image_meta_get_value_model (
                                                     lb_image_get_meta (back))));
  /* the PNG in between carried the spacing in whole pixels per metre; the stored instance has
   * the source's exact value again */
  {
    double x, y;

    g_assert_true (lb_image_meta_get_pixel_spacing (lb_image_get_meta (back), &x, &y));
    g_assert_cmpfloat (x, ==, exp_double (group, "spacing_x"));
    g_assert_cmpfloat (y, ==, exp_double (group, "spacing_y"));
  }
}

void
test_write_refusals (void)
{
  g_autoptr(LbStore) store = open_store ();
  g_autofree char *group = group_for_file ("CT_small.dcm");
  g_autofree char *src_uri = instance_uri_for (group);
  g_autofree char *other = group_for_file ("MR_small.dcm");
  g_autofree char *other_st = exp_str (other, "StudyInstanceUID");
  g_autofree char *other_study = g_strdup_printf ("%s/studies/%s/x.png", store_url, other_st);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbImage) src = fetch_image (store, src_uri, NULL, &error);
  g_autoptr(GBytes) png = NULL;
  g_autoptr(LbImage) plain = NULL;
  g_autoptr(GBytes) plain_png = NULL;
  GAsyncResult *res = NULL;
  LbStoreEntry *e;

  g_assert_no_error (error);
  png = lb_png_save_to_bytes (src, &error);
  g_assert_no_error (error);

  /* replacing is never possible */
  e = write_bytes (store, src_uri, png, "image/png", LB_STORE_WRITE_REPLACE, &error);
  g_assert_null (e);
  g_assert_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED);
  g_clear_error (&error);

  /* into another study than the source's */
  e = write_bytes (store, other_study, png, "image/png", LB_STORE_WRITE_CREATE, &error);
  g_assert_null (e);
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  /* an image that does not say where it came from */
  {
    g_autoptr(LbImageMeta) empty = lb_image_meta_new ();

    plain = lb_image_with_meta (src, empty);
  }
  plain_png = lb_png_save_to_bytes (plain, &error);
  g_assert_no_error (error);
  e = write_bytes (store, other_study, plain_png, "image/png", LB_STORE_WRITE_CREATE, &error);
  g_assert_null (e);
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  /* mkdir has no meaning here */
  lb_store_mkdir_async (store, other_study, NULL, lb_test_keep_result, &res);
  e = lb_store_mkdir_finish (store, lb_test_wait_result (&res), &error);
  g_clear_object (&res);
  g_assert_null (e);
  g_assert_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED);
}

/* A ready Part 10 file (here one our writer made) goes up as it is; a second copy is refused. */
void
test_write_raw_dicom (void)
{
  g_autoptr(LbStore) store = open_store ();
  g_autofree char *group = group_for_file ("CT_small.dcm");
  g_autofree char *src_uri = instance_uri_for (group);
  g_autofree char *st = exp_str (group, "StudyInstanceUID");
  g_autofree char *target = g_strdup_printf ("%s/studies/%s/upload.dcm", store_url, st);
  g_autofree char *other = group_for_file ("MR_small.dcm");
  g_autofree char *other_st = exp_str (other, "StudyInstanceUID");
  g_autofree char *wrong = g_strdup_printf ("%s/studies/%s/upload.dcm", store_url, other_st);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbDicomDataset) md = NULL, sc = NULL, sc2 = NULL;
  g_autoptr(LbImage) src = fetch_image (store, src_uri, &md, &error);
  g_autoptr(GBytes) file = NULL, file2 = NULL;
  g_autoptr(LbStoreEntry) entry = NULL, stat = NULL;
  g_autoptr(LbImage) back = NULL;
  LbStoreEntry *again;

  g_assert_no_error (error);
  sc = lb_dicom_build_secondary_capture (src, md, "raw upload", 99, &error);
  g_assert_no_error (error);
  file = lb_dicom_write_part10 (sc, &error);
  g_assert_no_error (error);

  entry = write_bytes (store, target, file, "application/dicom", LB_STORE_WRITE_CREATE, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (lb_store_entry_get_attribute (entry, "SOPInstanceUID"), ==,
                   lb_dicom_dataset_get_string (sc, LB_TAG_SOP_INSTANCE_UID, 0));
  g_assert_cmpstr (lb_store_entry_get_attribute (entry, "SeriesInstanceUID"), ==,
                   lb_dicom_dataset_get_string (sc, LB_TAG_SERIES_INSTANCE_UID, 0));
  stat = lb_store_stat_sync (store, lb_store_entry_get_uri (entry), NULL, &error);
  g_assert_no_error (error);
  back = fetch_image (store, lb_store_entry_get_uri (entry), NULL, &error);
  g_assert_no_error (error);
  g_assert_true (lb_image_equal_pixels (back, src));

  /* the same instance again: CREATE never replaces */
  again = write_bytes (store, target, file, "application/dicom", LB_STORE_WRITE_CREATE, &error);
  g_assert_null (again);
  g_assert_error (error, LB_ERROR, LB_ERROR_CONFLICT);
  g_clear_error (&error);

  /* a file of one study posted to another study is refused by the server */
  sc2 = lb_dicom_build_secondary_capture (src, md, "raw upload", 98, &error);
  g_assert_no_error (error);
  file2 = lb_dicom_write_part10 (sc2, &error);
  g_assert_no_error (error);
  again = write_bytes (store, wrong, file2, "application/dicom", LB_STORE_WRITE_CREATE, &error);
  g_test_message ("wrong study: %s", error ? error->message : "(accepted)");
  g_assert_null (again);
  g_assert_nonnull (error);
}

/* A patient without ID or name (as in anonymised or broken exports): the store still shows
 * and walks it, with fallback labels. The instance is made by our writer from a source that
 * has nothing but a study UID, and uploaded as a ready DICOM file. */
void
test_empty_patient (void)
{
  g_autoptr(LbStore) store = open_store ();
  g_autofree char *group = group_for_file ("MR_small.dcm");
  g_autofree char *src_uri = instance_uri_for (group);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbImage) src = fetch_image (store, src_uri, NULL, &error);
  g_autoptr(LbDicomDataset) bare = lb_dicom_dataset_new ();
  g_autoptr(LbDicomDataset) sc = NULL;
  g_autoptr(GBytes) file = NULL;
  g_autoptr(LbStoreEntry) entry = NULL;
  g_autoptr(GPtrArray) patients = NULL, studies = NULL, series = NULL;
  g_autofree char *study = lb_dicom_generate_uid ();
  g_autofree char *target = g_strdup_printf ("%s/studies/%s/anon.dcm", store_url, study);
  LbStoreEntry *p, *s;

  g_assert_no_error (error);
  lb_dicom_dataset_set_string (bare, LB_TAG_STUDY_INSTANCE_UID, "UI", study);
  sc = lb_dicom_build_secondary_capture (src, bare, "anonymous", 1, &error);
  g_assert_no_error (error);
  file = lb_dicom_write_part10 (sc, &error);
  g_assert_no_error (error);
  entry = write_bytes (store, target, file, "application/dicom", LB_STORE_WRITE_CREATE, &error);
  g_assert_no_error (error);

  patients = lb_store_list_sync (store, NULL, NULL, &error);
  g_assert_no_error (error);
  p = lb_test_store_find (patients, "");
  g_assert_nonnull (p);
  /* the group of all studies without an ID (the seeded big-endian file has none either) */
  g_assert_true (g_str_has_suffix (lb_store_entry_get_display_name (p), " (no ID)"));
  studies = lb_store_list_sync (store, lb_store_entry_get_uri (p), NULL, &error);
  g_assert_no_error (error);
  s = lb_test_store_find (studies, study);
  g_assert_nonnull (s);
  /* no date, no description: the UID is the label */
  g_assert_cmpstr (lb_store_entry_get_display_name (s), ==, study);
  series = lb_store_list_sync (store, lb_store_entry_get_uri (s), NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (series->len, ==, 1);
  g_assert_cmpstr (lb_store_entry_get_display_name (series->pdata[0]), ==,
                   "OT #1 Lightbox: anonymous");
}
