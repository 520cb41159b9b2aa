/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Integration test of the DICOMweb store against a real Orthanc (orthanc-dicomweb) on
 * 127.0.0.1, started and seeded by orthanc-run.sh. Every expected value comes from pydicom's
 * reading of the seeded files (expected-values.py), nothing is hard-coded. */
#include <glib/gstdio.h>
#include <string.h>

#include "lb-dicom-dataset.h"
#include "lb-dicom-frame.h"
#include "lb-dicom-multipart.h"
#include "lb-dicom-writer.h"
#include "lb-dicomweb-store.h"
#include "lb-error.h"
#include "lb-http.h"
#include "lb-image-loader.h"
#include "lb-png.h"
#include "lb-store-sync.h"
#include "lb-store.h"
#include "lb-test-dicom.h"
#include "lb-test-image.h"
#include "lb-test-loop.h"
#include "lb-test-process.h"
#include "lb-test-stores.h"
#include "lb-write-back.h"

static GKeyFile *expected;
static char *store_url;   /* dicomweb+http://127.0.0.1:PORT/dicom-web */
static char *http_url;    /* http://127.0.0.1:PORT/dicom-web */
static char *run_dir;
static gboolean gdcm;     /* the server can transcode compressed frames */
static char *auth_user;   /* set when the server requires HTTP Basic authentication */
static char *auth_pass;

/* ---- helpers ------------------------------------------------------------------------------ */

/* lb_store_write_bytes_async() (no ETag) run to its end. */
static LbStoreEntry *
write_bytes (LbStore *store, const char *uri, GBytes *bytes, const char *content_type,
             LbStoreWriteMode mode, GError **error)
{
  GAsyncResult *res = NULL;
  LbStoreEntry *entry;

  lb_store_write_bytes_async (store, uri, bytes, content_type, mode, NULL, NULL, NULL, NULL,
                              lb_test_keep_result, &res);
  entry = lb_store_write_finish (store, lb_test_wait_result (&res), error);
  g_object_unref (res);
  return entry;
}

static LbStore *
open_store (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStoreOptions) options = lb_store_options_new ();
  LbStore *store;

  options->username = g_strdup (auth_user);
  options->password = g_strdup (auth_pass);
  store = lb_store_new_for_uri (store_url, options, &error);

  g_assert_no_error (error);
  g_assert_true (LB_IS_DICOMWEB_STORE (store));
  return store;
}

static char *
exp_str (const char *group, const char *key)
{
  return g_key_file_get_string (expected, group, key, NULL);
}

static gboolean
exp_bool (const char *group, const char *key)
{
  g_autofree char *v = g_key_file_get_string (expected, group, key, NULL);

  return g_strcmp0 (v, "true") == 0;
}

static double
exp_double (const char *group, const char *key)
{
  g_autoptr(GError) error = NULL;
  double v = g_key_file_get_double (expected, group, key, &error);

  g_assert_no_error (error);
  return v;
}

static char **
instance_groups (void)
{
  char **groups = g_key_file_get_groups (expected, NULL);
  GPtrArray *out = g_ptr_array_new ();

  for (guint i = 0; groups[i]; i++)
    if (g_str_has_prefix (groups[i], "instance "))
      g_ptr_array_add (out, g_strdup (groups[i]));
  g_strfreev (groups);
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}

static char *
group_for_file (const char *basename)
{
  g_auto(GStrv) groups = instance_groups ();

  for (guint i = 0; groups[i]; i++)
    {
      g_autofree char *file = exp_str (groups[i], "file");

      if (g_str_has_suffix (file, basename))
        return g_strdup (groups[i]);
    }
  return NULL;
}

static char *
instance_uri_for (const char *group)
{
  g_autofree char *st = exp_str (group, "StudyInstanceUID");
  g_autofree char *se = exp_str (group, "SeriesInstanceUID");
  g_autofree char *in = exp_str (group, "SOPInstanceUID");

  return g_strdup_printf ("%s/studies/%s/series/%s/instances/%s", store_url, st, se, in);
}

static LbImage *
fetch_image (LbStore *store, const char *uri, LbDicomDataset **md, GError **error)
{
  GAsyncResult *res = NULL;
  LbImage *img;

  lb_dicomweb_store_fetch_image_async (LB_DICOMWEB_STORE (store), uri, NULL, NULL, lb_test_keep_result, &res);
  img = lb_dicomweb_store_fetch_image_finish (LB_DICOMWEB_STORE (store),
                                              lb_test_wait_result (&res), md,
                                              error);
  g_object_unref (res);
  return img;
}

/* @spacing_tol: mm; PNG's pHYs chunk holds whole pixels per metre, so after a PNG round trip
 * the spacing is only good to about spacing² / 1000 mm. */
static void
check_image_against_tol (LbImage *img, const char *group, double spacing_tol)
{
  g_autofree char *sha = exp_str (group, "pixels_sha256");
  g_autofree char *signed_s = exp_str (group, "signed");
  g_autofree char *mine = lb_test_pixel_sha256 (img);
  const LbImageMeta *meta = lb_image_get_meta (img);
  double a, b;

  g_assert_cmpuint (lb_image_get_width (img), ==, g_key_file_get_integer (expected, group, "columns", NULL));
  g_assert_cmpuint (lb_image_get_height (img), ==, g_key_file_get_integer (expected, group, "rows", NULL));
  g_assert_cmpstr (mine, ==, sha);
  g_assert_cmpint (lb_image_meta_get_signed (meta), ==, g_str_equal (signed_s, "true"));
  if (g_key_file_has_key (expected, group, "rescale_slope", NULL))
    {
      g_assert_true (lb_image_meta_get_rescale (meta, &a, &b));
      g_assert_cmpfloat (a, ==, exp_double (group, "rescale_slope"));
      g_assert_cmpfloat (b, ==, exp_double (group, "rescale_intercept"));
    }
  else
    g_assert_false (lb_image_meta_get_rescale (meta, NULL, NULL));
  if (g_key_file_has_key (expected, group, "window_center", NULL))
    {
      g_assert_true (lb_image_meta_get_window (meta, &a, &b));
      g_assert_cmpfloat (a, ==, exp_double (group, "window_center"));
      g_assert_cmpfloat (b, ==, exp_double (group, "window_width"));
    }
  if (g_key_file_has_key (expected, group, "spacing_x", NULL))
    {
      g_assert_true (lb_image_meta_get_pixel_spacing (meta, &a, &b));
      g_assert_cmpfloat_with_epsilon (a, exp_double (group, "spacing_x"), spacing_tol);
      g_assert_cmpfloat_with_epsilon (b, exp_double (group, "spacing_y"), spacing_tol);
    }
}

static void
check_image_against (LbImage *img, const char *group)
{
  check_image_against_tol (img, group, 1e-12);
}

/* ---- tests -------------------------------------------------------------------------------- */

static void
test_open (void)
{
  g_autoptr(LbStore) store = open_store ();
  g_autoptr(LbStoreOptions) options = lb_store_options_new ();
  g_autoptr(LbStore) typed = NULL;
  g_autoptr(LbStore) bad = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *root = g_strconcat (store_url, "/", NULL);

  g_assert_cmpstr (lb_store_get_backend_name (store), ==, "dicomweb");
  g_assert_cmpstr (lb_store_get_uri (store), ==, root);
  g_assert_cmpstr (lb_dicomweb_store_get_base_url (LB_DICOMWEB_STORE (store)), ==, http_url);
  g_assert_true (lb_store_get_capabilities (store) & LB_STORE_CAN_WRITE);

  /* an explicit type turns a plain http URL into a DICOMweb store */
  options->type = g_strdup ("dicomweb");
  typed = lb_store_new_for_uri (http_url, options, &error);
  g_assert_no_error (error);
  g_assert_true (LB_IS_DICOMWEB_STORE (typed));
  g_assert_cmpstr (lb_dicomweb_store_get_base_url (LB_DICOMWEB_STORE (typed)), ==, http_url);

  /* opened at a study (as `lightbox-cli ls URL` does): NULL lists that study's series, and
   * the entries are the same as when walking from the root */
  {
    g_autofree char *group = group_for_file ("CT_small.dcm");
    g_autofree char *st = exp_str (group, "StudyInstanceUID");
    g_autofree char *se = exp_str (group, "SeriesInstanceUID");
    g_autofree char *study = g_strdup_printf ("%s/studies/%s", store_url, st);
    g_autofree char *study_slash = g_strconcat (study, "/", NULL);
    g_autoptr(LbStore) sub = lb_store_new_for_uri (study, NULL, &error);
    g_autoptr(GPtrArray) list = NULL;
    g_autoptr(GPtrArray) list2 = NULL;

    g_assert_no_error (error);
    g_assert_cmpstr (lb_store_get_uri (sub), ==, study_slash);
    list = lb_store_list_sync (sub, NULL, NULL, &error);
    g_assert_no_error (error);
    g_assert_nonnull (lb_test_store_find (list, se));
    list2 = lb_store_list_sync (store, study_slash, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (list->len, ==, list2->len);
    for (guint i = 0; i < list->len; i++)
      g_assert_cmpstr (lb_store_entry_get_uri (list->pdata[i]), ==,
                       lb_store_entry_get_uri (list2->pdata[i]));
  }

  bad = lb_dicomweb_store_new ("ftp://127.0.0.1/x", NULL, &error);
  g_assert_null (bad);
  g_assert_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED);
}

static void
test_tree (void)
{
  g_autoptr(LbStore) store = open_store ();
  g_auto(GStrv) groups = instance_groups ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) patients = lb_store_list_sync (store, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (patients);
  for (guint i = 0; groups[i]; i++)
    {
      const char *g = groups[i];
      g_autofree char *pid = exp_str (g, "PatientID"), *st = exp_str (g, "StudyInstanceUID");
      g_autofree char *se = exp_str (g, "SeriesInstanceUID"), *in = exp_str (g, "SOPInstanceUID");
      g_autofree char *pl = exp_str (g, "patient_label"), *stl = exp_str (g, "study_label");
      g_autofree char *sel = exp_str (g, "series_label"), *inl = exp_str (g, "instance_label");
      g_autoptr(GPtrArray) studies = NULL, series = NULL, instances = NULL;
      g_autoptr(LbStoreEntry) stat = NULL;
      LbStoreEntry *p, *s, *r, *n;

      g_test_message ("%s: %s / %s / %s / %s", g, pl, stl, sel, inl);
      p = lb_test_store_find (patients, pid);
      g_assert_nonnull (p);
      g_assert_cmpint (lb_store_entry_get_kind (p), ==, LB_STORE_ENTRY_DICOM_PATIENT);
      g_assert_true (lb_store_entry_is_container (p));
      g_assert_cmpstr (lb_store_entry_get_display_name (p), ==, pl);

      studies = lb_store_list_sync (store, lb_store_entry_get_uri (p), NULL, &error);
      g_assert_no_error (error);
      s = lb_test_store_find (studies, st);
      g_assert_nonnull (s);
      g_assert_cmpint (lb_store_entry_get_kind (s), ==, LB_STORE_ENTRY_DICOM_STUDY);
      g_assert_cmpstr (lb_store_entry_get_display_name (s), ==, stl);
      /* every study under a patient belongs to that patient */
      for (guint k = 0; k < studies->len; k++)
        g_assert_cmpstr (lb_store_entry_get_attribute (studies->pdata[k], "PatientID"), ==, pid);

      series = lb_store_list_sync (store, lb_store_entry_get_uri (s), NULL, &error);
      g_assert_no_error (error);
      r = lb_test_store_find (series, se);
      g_assert_nonnull (r);
      g_assert_cmpint (lb_store_entry_get_kind (r), ==, LB_STORE_ENTRY_DICOM_SERIES);
      g_assert_cmpstr (lb_store_entry_get_display_name (r), ==, sel);

      instances = lb_store_list_sync (store, lb_store_entry_get_uri (r), NULL, &error);
      g_assert_no_error (error);
      n = lb_test_store_find (instances, in);
      g_assert_nonnull (n);
      g_assert_cmpint (lb_store_entry_get_kind (n), ==, LB_STORE_ENTRY_DICOM_INSTANCE);
      g_assert_false (lb_store_entry_is_container (n));
      g_assert_cmpstr (lb_store_entry_get_display_name (n), ==, inl);
      g_assert_cmpstr (lb_store_entry_get_attribute (n, "SOPInstanceUID"), ==, in);

      /* stat agrees with the listing at every level */
      stat = lb_store_stat_sync (store, lb_store_entry_get_uri (n), NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (lb_store_entry_get_display_name (stat), ==, inl);
      g_clear_object (&stat);
      stat = lb_store_stat_sync (store, lb_store_entry_get_uri (r), NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (lb_store_entry_get_display_name (stat), ==, sel);
      g_clear_object (&stat);
      stat = lb_store_stat_sync (store, lb_store_entry_get_uri (s), NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (lb_store_entry_get_display_name (stat), ==, stl);
      g_clear_object (&stat);
      stat = lb_store_stat_sync (store, lb_store_entry_get_uri (p), NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (lb_store_entry_get_display_name (stat), ==, pl);
    }
}

static void
test_tree_errors (void)
{
  g_autoptr(LbStore) store = open_store ();
  g_autoptr(GError) error = NULL;
  g_autofree char *missing = g_strdup_printf ("%s/studies/1.2.3.4.5.6.7.8.9/", store_url);
  g_autofree char *outside = g_strdup ("dicomweb+http://127.0.0.1:1/elsewhere/studies/1/");
  g_autofree char *junk = g_strdup_printf ("%s/junk/x", store_url);
  g_autofree char *group = group_for_file ("CT_small.dcm");
  g_autofree char *inst = instance_uri_for (group);
  GPtrArray *list;
  LbStoreEntry *e;

  e = lb_store_stat_sync (store, missing, NULL, &error);
  g_assert_null (e);
  g_assert_error (error, LB_ERROR, LB_ERROR_NOT_FOUND);
  g_clear_error (&error);

  list = lb_store_list_sync (store, outside, NULL, &error);
  g_assert_null (list);
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  list = lb_store_list_sync (store, junk, NULL, &error);
  g_assert_null (list);
  g_assert_error (error, LB_ERROR, LB_ERROR_NOT_FOUND);
  g_clear_error (&error);

  list = lb_store_list_sync (store, inst, NULL, &error);
  g_assert_null (list);
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
}

static void
test_fetch_images (void)
{
  g_autoptr(LbStore) store = open_store ();
  g_auto(GStrv) groups = instance_groups ();

  for (guint i = 0; groups[i]; i++)
    {
      g_autofree char *uri = instance_uri_for (groups[i]);
      g_autofree char *sha = exp_str (groups[i], "pixels_sha256");
      g_autoptr(GError) error = NULL;
      g_autoptr(LbDicomDataset) md = NULL;
      g_autoptr(LbImage) img = fetch_image (store, uri, &md, &error);

      g_test_message ("%s: %s", groups[i], uri);
      if (!exp_bool (groups[i], "lightbox_supported")
          || (exp_bool (groups[i], "needs_gdcm") && !gdcm))
        {
          /* the 32-bit RT dose; JPEG 2000 without a transcoder: a clear refusal, not garbage */
          g_test_message ("refused: %s", error ? error->message : "(no error)");
          g_assert_null (img);
          g_assert_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED);
          g_assert_nonnull (strstr (error->message, uri));
          continue;
        }
      if (sha == NULL)
        {
          /* no independent decoder in this Python: at least the geometry must match */
          g_autofree char *why = exp_str (groups[i], "pixels_error");

          g_test_message ("%s: no pydicom reference (%s)", groups[i], why);
          g_assert_no_error (error);
          g_assert_cmpuint (lb_image_get_width (img), ==,
                            g_key_file_get_integer (expected, groups[i], "columns", NULL));
          continue;
        }
      g_assert_no_error (error);
      check_image_against (img, groups[i]);
      {
        g_autofree char *pid = exp_str (groups[i], "PatientID");
        g_autofree char *mod = exp_str (groups[i], "Modality");

        /* empty attributes are left out of the text metadata */
        g_assert_cmpstr (lb_image_meta_get_text (lb_image_get_meta (img), "Patient ID"), ==,
                         *pid ? pid : NULL);
        g_assert_cmpstr (lb_image_meta_get_text (lb_image_get_meta (img), "Modality"), ==, mod);
      }
    }
}

/* Through the generic LbStore read: a PNG stream that decodes to the same full-fidelity image. */
static void
test_read_stream (void)
{
  g_autoptr(LbStore) store = open_store ();
  g_autofree char *group = group_for_file ("CT_small.dcm");
  g_autofree char *uri = instance_uri_for (group);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStoreEntry) entry = NULL;
  g_autoptr(LbImage) img = NULL, img2 = NULL;
  g_autoptr(GInputStream) stream = NULL;
  GAsyncResult *res = NULL;

  lb_store_read_async (store, uri, NULL, NULL, NULL, lb_test_keep_result, &res);
  stream = lb_store_read_finish (store, lb_test_wait_result (&res), &entry, &error);
  g_object_unref (res);
  g_assert_no_error (error);
  g_assert_cmpstr (lb_store_entry_get_content_type (entry), ==, "image/png");
  g_assert_cmpint (lb_store_entry_get_size (entry), >, 0);
  img = lb_image_load_stream (stream, uri, NULL, NULL, &error);
  g_assert_no_error (error);
  check_image_against_tol (img, group, 1e-3);

  /* the command-line path (lightbox-cli get/filter) ends in the same pixels */
  img2 = lb_store_fetch_image_sync (uri, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  check_image_against_tol (img2, group, 1e-3);
}

/* The derived image: CT_small with its values negated around the centre of the stored range,
 * a real change that keeps the modality scale (signed int16, same rescale). */
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
        gint16 v = (gint16) ((const guint16 *) lb_image_get_row (src, y))[x];

        ((guint16 *) (px + y * stride))[x] = (guint16) (gint16) (3000 - v);
      }
  return lb_image_new_take (w, h, LB_FORMAT_GRAY16, stride, px, meta);
}

/* GET …/instances/{uid} as application/dicom (WADO-RS retrieve instance) into a file. */
static char *
retrieve_instance_file (LbStore *store, const char *st, const char *se, const char *in)
{
  g_autoptr(SoupSession) session = soup_session_new ();
  g_autofree char *url = g_strdup_printf ("%s/studies/%s/series/%s/instances/%s", http_url, st,
                                          se, in);
  g_autoptr(SoupMessage) msg = soup_message_new ("GET", url);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) body = NULL;
  g_autoptr(GPtrArray) parts = NULL;
  char *path;

  soup_message_headers_replace (soup_message_get_request_headers (msg), "Accept",
                                "multipart/related; type=\"application/dicom\"");
  if (auth_user)
    {
      g_autofree char *pair = g_strdup_printf ("%s:%s", auth_user, auth_pass);
      g_autofree char *b64 = g_base64_encode ((const guchar *) pair, strlen (pair));
      g_autofree char *value = g_strdup_printf ("Basic %s", b64);

      soup_message_headers_replace (soup_message_get_request_headers (msg), "Authorization",
                                    value);
    }
  body = soup_session_send_and_read (session, msg, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (soup_message_get_status (msg), ==, 200);
  parts = lb_dicom_multipart_parse (soup_message_headers_get_one (
                                      soup_message_get_response_headers (msg), "Content-Type"),
                                    body, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (((LbDicomPart *) parts->pdata[0])->content_type, ==, "application/dicom");
  path = g_build_filename (run_dir, "stored.dcm", NULL);
  g_file_set_contents (path, g_bytes_get_data (((LbDicomPart *) parts->pdata[0])->body, NULL),
                       (gssize) g_bytes_get_size (((LbDicomPart *) parts->pdata[0])->body), &error);
  g_assert_no_error (error);
  return path;
}

static void
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

    g_assert_true (lb_image_meta_get_signed (lb_image_get_meta (back)));
    g_assert_true (lb_image_meta_get_rescale (lb_image_get_meta (back), &a, &b));
    g_assert_true (lb_image_meta_get_rescale (lb_image_get_meta (src), &c, &d));
    g_assert_cmpfloat (a, ==, c);
    g_assert_cmpfloat (b, ==, d);
  }

  /* dcmtk reads the stored instance: SC class, fresh series, the source's study */
  path = retrieve_instance_file (store, st, new_series, new_sop);
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
static void
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
  g_assert_true (lb_image_meta_get_signed (lb_image_get_meta (back)));
  /* the PNG in between carried the spacing in whole pixels per metre; the stored instance has
   * the source's exact value again */
  {
    double x, y;

    g_assert_true (lb_image_meta_get_pixel_spacing (lb_image_get_meta (back), &x, &y));
    g_assert_cmpfloat (x, ==, exp_double (group, "spacing_x"));
    g_assert_cmpfloat (y, ==, exp_double (group, "spacing_y"));
  }
}

static void
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
static void
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
static void
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

static void
on_credentials (LbCredentialsRequest *request, gpointer user_data)
{
  guint *calls = user_data;

  (*calls)++;
  g_assert_cmpstr (lb_credentials_request_get_scheme (request), ==, "Basic");
  if (lb_credentials_request_is_retrying (request))
    lb_credentials_request_cancel (request);   /* a wrong answer is not repeated forever */
  else
    lb_credentials_request_set_password (request, auth_user, *calls > 1 ? auth_pass : "wrong");
}

/* Authentication goes through the shared HTTP layer: no credentials → PERMISSION; the
 * credentials callback is asked, and its answer is used. */
static void
test_auth (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStore) anon = NULL, asking = NULL;
  g_autoptr(LbStoreOptions) options = lb_store_options_new ();
  g_autoptr(GPtrArray) list = NULL;
  guint calls = 0;

  if (auth_user == NULL)
    {
      g_test_skip ("server started without authentication");
      return;
    }
  anon = lb_store_new_for_uri (store_url, NULL, &error);
  g_assert_no_error (error);
  list = lb_store_list_sync (anon, NULL, NULL, &error);
  g_assert_null (list);
  g_assert_error (error, LB_ERROR, LB_ERROR_PERMISSION);
  g_clear_error (&error);

  /* first answer wrong, refused; the retry is cancelled → still PERMISSION */
  lb_store_options_set_credentials_func (options, on_credentials, &calls, NULL);
  asking = lb_store_new_for_uri (store_url, options, &error);
  g_assert_no_error (error);
  list = lb_store_list_sync (asking, NULL, NULL, &error);
  g_assert_null (list);
  g_assert_error (error, LB_ERROR, LB_ERROR_PERMISSION);
  g_clear_error (&error);
  g_assert_cmpuint (calls, >=, 1);

  /* now the callback gives the right password at once */
  calls = 1;
  list = lb_store_list_sync (asking, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (list->len, >, 0);
}

static void
test_cancelled (void)
{
  g_autoptr(LbStore) store = open_store ();
  g_autofree char *group = group_for_file ("CT_small.dcm");
  g_autofree char *uri = instance_uri_for (group);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(LbImage) img = NULL;
  GAsyncResult *res = NULL;

  g_cancellable_cancel (cancellable);
  lb_dicomweb_store_fetch_image_async (LB_DICOMWEB_STORE (store), uri, NULL, cancellable,
                                       lb_test_keep_result, &res);
  img = lb_dicomweb_store_fetch_image_finish (LB_DICOMWEB_STORE (store),
                                              lb_test_wait_result (&res), NULL, &error);
  g_object_unref (res);
  g_assert_null (img);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

static void
check_same_listing (GPtrArray *a, GPtrArray *b)
{
  g_assert_cmpuint (a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++)
    {
      g_assert_cmpstr (lb_store_entry_get_uri (a->pdata[i]), ==, lb_store_entry_get_uri (b->pdata[i]));
      g_assert_cmpstr (lb_store_entry_get_display_name (a->pdata[i]), ==,
                       lb_store_entry_get_display_name (b->pdata[i]));
    }
}

/* QIDO paging (limit/offset) gives the same listings as one request, page by page. */
static void
test_paging (void)
{
  g_autoptr(LbStore) whole = open_store ();
  g_autoptr(LbStore) paged = open_store ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) a = NULL, b = NULL, pa = NULL, pb = NULL;
  g_autofree char *group = group_for_file ("CT_small.dcm");
  g_autofree char *st = exp_str (group, "StudyInstanceUID");
  g_autofree char *study = g_strdup_printf ("%s/studies/%s/", store_url, st);

  lb_dicomweb_store_set_page_size (LB_DICOMWEB_STORE (paged), 2);
  a = lb_store_list_sync (whole, NULL, NULL, &error);
  g_assert_no_error (error);
  b = lb_store_list_sync (paged, NULL, NULL, &error);
  g_assert_no_error (error);
  check_same_listing (a, b);
  /* more studies than one page: several requests were needed */
  {
    guint studies = 0;

    for (guint i = 0; i < a->len; i++)
      studies += (guint) g_ascii_strtoull (lb_store_entry_get_attribute (a->pdata[i],
                                                                        "NumberOfStudies"),
                                           NULL, 10);
    g_assert_cmpuint (studies, >, 2);
  }
  lb_dicomweb_store_set_page_size (LB_DICOMWEB_STORE (paged), 1);
  pa = lb_store_list_sync (whole, study, NULL, &error);
  g_assert_no_error (error);
  pb = lb_store_list_sync (paged, study, NULL, &error);
  g_assert_no_error (error);
  check_same_listing (pa, pb);
}

static void
test_missing_instance (void)
{
  g_autoptr(LbStore) store = open_store ();
  g_autofree char *group = group_for_file ("CT_small.dcm");
  g_autofree char *st = exp_str (group, "StudyInstanceUID");
  g_autofree char *se = exp_str (group, "SeriesInstanceUID");
  g_autofree char *uri = g_strdup_printf ("%s/studies/%s/series/%s/instances/1.2.3.999", store_url,
                                          st, se);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbImage) img = fetch_image (store, uri, NULL, &error);

  g_assert_null (img);
  g_assert_error (error, LB_ERROR, LB_ERROR_NOT_FOUND);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  const char *url, *exp;

  g_test_init (&argc, &argv, NULL);
  url = g_getenv ("LB_DICOMWEB_URL");
  exp = g_getenv ("LB_DICOMWEB_EXPECTED");
  run_dir = g_strdup (g_getenv ("LB_DICOMWEB_RUNDIR"));
  if (url == NULL || exp == NULL || run_dir == NULL)
    {
      g_printerr ("run through orthanc-run.sh (LB_DICOMWEB_URL, LB_DICOMWEB_EXPECTED unset)\n");
      return 77;
    }
  http_url = g_strdup (url);
  gdcm = g_strcmp0 (g_getenv ("LB_ORTHANC_GDCM"), "1") == 0;
  if (g_getenv ("LB_DICOMWEB_AUTH") && strchr (g_getenv ("LB_DICOMWEB_AUTH"), ':'))
    {
      const char *a = g_getenv ("LB_DICOMWEB_AUTH");

      auth_user = g_strndup (a, strchr (a, ':') - a);
      auth_pass = g_strdup (strchr (a, ':') + 1);
    }
  store_url = g_strconcat ("dicomweb+", url, NULL);
  expected = g_key_file_new ();
  if (!g_key_file_load_from_file (expected, exp, G_KEY_FILE_NONE, &error))
    g_error ("%s: %s", exp, error->message);

  g_test_add_func ("/dicomweb/open", test_open);
  g_test_add_func ("/dicomweb/tree", test_tree);
  g_test_add_func ("/dicomweb/tree-errors", test_tree_errors);
  g_test_add_func ("/dicomweb/fetch-images", test_fetch_images);
  g_test_add_func ("/dicomweb/read-stream", test_read_stream);
  g_test_add_func ("/dicomweb/missing-instance", test_missing_instance);
  g_test_add_func ("/dicomweb/stow-derived", test_stow_derived);
  g_test_add_func ("/dicomweb/write-back", test_write_back);
  g_test_add_func ("/dicomweb/write-refusals", test_write_refusals);
  g_test_add_func ("/dicomweb/write-raw-dicom", test_write_raw_dicom);
  g_test_add_func ("/dicomweb/empty-patient", test_empty_patient);
  g_test_add_func ("/dicomweb/auth", test_auth);
  g_test_add_func ("/dicomweb/cancelled", test_cancelled);
  g_test_add_func ("/dicomweb/paging", test_paging);
  return g_test_run ();
}
