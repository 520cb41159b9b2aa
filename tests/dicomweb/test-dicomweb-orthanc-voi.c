/* SPDX-License-Identifier: GPL-3.0-or-later */
/* VOI LUT Sequences whose LUT Data the server gives only by BulkDataURI (Orthanc's metadata
 * does so for every binary element, so for every LUT): the store fetches the tables with the
 * frame, and the canvas displays the image through each of them as through an inline table,
 * byte for byte what pydicom and numpy make of the Part 10 file (display-reference.py, PS3.3
 * C.11.2.1.1). A table bigger than any LUT can be is refused by size, naming the limit. The
 * variants come from tests/dicom/make-variants.py: a 3000-entry 12-bit table, and a
 * 65536-entry 16-bit one beside it. */
#include <string.h>
#include <libsoup/soup.h>

#include "display-check.h"
#include "lb-dicom-tags.h"
#include "lb-dicom-writer.h"
#include "lb-error.h"
#include "lb-test-dicom.h"
#include "lb-test-files.h"
#include "test-dicomweb-orthanc.h"

/* Stores @bytes (a Part 10 file) in its study; returns the instance's store URI. */
static char *
upload_part10 (LbStore *store, const LbDicomDataset *md, GBytes *bytes, const char *name)
{
  g_autofree char *target = g_strdup_printf (
    "%s/studies/%s/%s.dcm", store_url, lb_dicom_dataset_get_string (md, LB_TAG_STUDY_INSTANCE_UID, 0),
    name);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStoreEntry) entry = write_bytes (store, target, bytes, "application/dicom",
                                               LB_STORE_WRITE_CREATE, &error);

  g_assert_no_error (error);
  return g_strdup (lb_store_entry_get_uri (entry));
}

/* The instance's metadata as the server sends it (GET …/metadata, no credentials: this
 * subtest does not run against the authenticating server). */
static LbDicomDataset *
server_metadata (const LbDicomDataset *md)
{
  g_autoptr(SoupSession) session = soup_session_new ();
  g_autofree char *url = g_strdup_printf (
    "%s/studies/%s/series/%s/instances/%s/metadata", http_url,
    lb_dicom_dataset_get_string (md, LB_TAG_STUDY_INSTANCE_UID, 0),
    lb_dicom_dataset_get_string (md, LB_TAG_SERIES_INSTANCE_UID, 0),
    lb_dicom_dataset_get_string (md, LB_TAG_SOP_INSTANCE_UID, 0));
  g_autoptr(SoupMessage) msg = soup_message_new ("GET", url);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) body = soup_session_send_and_read (session, msg, NULL, &error);
  g_autoptr(GPtrArray) arr = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (soup_message_get_status (msg), ==, 200);
  arr = lb_dicom_json_parse_array (g_bytes_get_data (body, NULL), g_bytes_get_size (body),
                                   &error);
  g_assert_no_error (error);
  g_assert_cmpuint (arr->len, ==, 1);
  return lb_dicom_dataset_ref (arr->pdata[0]);
}

static void
check_variant (LbStore *store, const char *dir, const char *name, guint n_luts)
{
  g_autoptr(LbDicomDataset) md = lb_test_variant_metadata (dir, name);
  g_autoptr(GBytes) bytes = lb_test_variant_bytes (dir, name, ".dcm");
  g_autofree char *path = lb_test_variant_path (dir, name, ".dcm");
  g_autofree char *uri = upload_part10 (store, md, bytes, name);
  g_autoptr(LbDicomDataset) served = server_metadata (md);
  g_autoptr(LbDicomDataset) fetched = NULL;
  g_autoptr(LbImage) img = NULL;
  g_autoptr(GError) error = NULL;
  LbValueModel *model;

  /* the server gives every table by reference only: the store must fetch them */
  g_assert_cmpuint (lb_dicom_dataset_get_n_items (served, LB_TAG_VOI_LUT_SEQUENCE), ==, n_luts);
  for (guint k = 0; k < n_luts; k++)
    {
      LbDicomDataset *item = lb_dicom_dataset_get_item (served, LB_TAG_VOI_LUT_SEQUENCE, k);

      g_test_message ("%s: LUT %u at %s", name, k,
                      lb_dicom_dataset_get_bulk_data_uri (item, LB_TAG_LUT_DATA));
      g_assert_nonnull (lb_dicom_dataset_get_bulk_data_uri (item, LB_TAG_LUT_DATA));
      g_assert_null (lb_dicom_dataset_get_bytes (item, LB_TAG_LUT_DATA));
    }

  img = fetch_image (store, uri, &fetched, &error);
  g_assert_no_error (error);
  model = lb_image_meta_get_value_model_for (lb_image_get_meta (img), 16);
  g_assert_nonnull (model);
  g_assert_cmpuint (lb_value_model_get_n_voi_luts (model), ==, n_luts);
  for (guint k = 0; k < n_luts; k++)
    {
      LbVoi voi = { LB_VOI_LINEAR, 0, 1, lb_value_model_get_voi_lut (model, k) };
      g_autofree char *spec = g_strdup_printf ("lut:%u", k);
      g_autofree char *what = g_strdup_printf ("%s over DICOMweb", name);

      g_assert_nonnull (lb_dicom_dataset_get_bytes (
                          lb_dicom_dataset_get_item (fetched, LB_TAG_VOI_LUT_SEQUENCE, k),
                          LB_TAG_LUT_DATA));
      g_test_message ("%s: %u pixels displayed as PS3.3 says", what,
                      lb_test_check_display (img, &voi, path, spec, what));
    }
}

/* A LUT Data of 100000 entries (the descriptor says 3000): more than any table can hold. */
static void
check_oversize (LbStore *store, const char *dir)
{
  g_autoptr(LbDicomDataset) md = lb_test_variant_metadata (dir, "ct-voi-lut");
  g_autoptr(GBytes) frame = lb_test_variant_bytes (dir, "ct-voi-lut", ".frame");
  g_autofree guint8 *huge = g_malloc0 (200000);
  g_autoptr(GBytes) lut = g_bytes_new_take (g_steal_pointer (&huge), 200000);
  g_autofree char *sop = lb_dicom_generate_uid ();
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *uri = NULL;
  g_autoptr(LbImage) img = NULL;
  g_autoptr(GError) error = NULL;

  lb_dicom_dataset_set_string (md, LB_TAG_SOP_INSTANCE_UID, "UI", sop);
  lb_dicom_dataset_set_bytes (lb_dicom_dataset_get_item (md, LB_TAG_VOI_LUT_SEQUENCE, 0),
                              LB_TAG_LUT_DATA, "OW", lut);
  lb_dicom_dataset_set_bytes (md, LB_TAG_PIXEL_DATA, "OW", frame);
  bytes = lb_dicom_write_part10 (md, &error);
  g_assert_no_error (error);
  uri = upload_part10 (store, md, bytes, "ct-voi-lut-oversize");
  img = fetch_image (store, uri, NULL, &error);
  g_assert_null (img);
  g_test_message ("%s", error->message);
  g_assert_error (error, LB_ERROR, LB_ERROR_TOO_LARGE);
}

void
test_voi_lut_bulk (void)
{
  g_autoptr(LbStore) store = open_store ();
  g_autofree char *dir = lb_test_make_dicom_variants ("dicomweb-voi");

  if (dir == NULL)
    {
      g_test_skip ("make-variants.py needs pydicom and numpy");
      return;
    }
  check_variant (store, dir, "ct-voi-lut", 1);
  check_variant (store, dir, "ct-voi-lut-large", 2);
  check_oversize (store, dir);
  lb_test_remove_tree (dir);
}
