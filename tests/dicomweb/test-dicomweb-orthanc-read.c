/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reading through the DICOMweb store: opening it, the patient/study/series/instance tree and
 * its errors, images against pydicom's pixels and geometry, the raw stream, a missing
 * instance, HTTP Basic authentication, cancellation, paged listings. */

#include <string.h>

#include "lb-error.h"
#include "lb-http.h"
#include "lb-image-loader.h"
#include "lb-store-sync.h"
#include "lb-test-loop.h"
#include "lb-test-stores.h"
#include "test-dicomweb-orthanc.h"

void
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

void
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

void
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

void
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
      if (!exp_bool (groups[i], "lightbox_supported"))
        {
          /* the 32-bit RT dose: a clear refusal, not garbage */
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
void
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
void
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

void
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
void
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

void
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
