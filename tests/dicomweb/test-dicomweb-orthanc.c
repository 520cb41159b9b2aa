/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The helpers of test-dicomweb-orthanc (see test-dicomweb-orthanc.h) and its main(): the
 * subtests in the order they always ran. */
#include <string.h>
#include <libsoup/soup.h>

#include "lb-dicom-multipart.h"
#include "lb-test-dicom.h"
#include "lb-test-image.h"
#include "lb-test-loop.h"
#include "test-dicomweb-orthanc.h"

GKeyFile *expected;
char *store_url;
char *http_url;
char *run_dir;
gboolean gdcm;
char *auth_user;
char *auth_pass;

LbStoreEntry *
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

LbStore *
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

char *
exp_str (const char *group, const char *key)
{
  return g_key_file_get_string (expected, group, key, NULL);
}

gboolean
exp_bool (const char *group, const char *key)
{
  g_autofree char *v = g_key_file_get_string (expected, group, key, NULL);

  return g_strcmp0 (v, "true") == 0;
}

double
exp_double (const char *group, const char *key)
{
  g_autoptr(GError) error = NULL;
  double v = g_key_file_get_double (expected, group, key, &error);

  g_assert_no_error (error);
  return v;
}

char **
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

char *
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

char *
instance_uri_for (const char *group)
{
  g_autofree char *st = exp_str (group, "StudyInstanceUID");
  g_autofree char *se = exp_str (group, "SeriesInstanceUID");
  g_autofree char *in = exp_str (group, "SOPInstanceUID");

  return g_strdup_printf ("%s/studies/%s/series/%s/instances/%s", store_url, st, se, in);
}

LbImage *
fetch_image (LbStore *store, const char *uri, LbDicomDataset **md, GError **error)
{
  GAsyncResult *res = NULL;
  LbImage *img;

  lb_dicomweb_store_fetch_image_async (LB_DICOMWEB_STORE (store), uri, NULL, NULL,
                                       lb_test_keep_result, &res);
  img = lb_dicomweb_store_fetch_image_finish (LB_DICOMWEB_STORE (store),
                                              lb_test_wait_result (&res), md, error);
  g_object_unref (res);
  return img;
}

void
check_image_against_tol (LbImage *img, const char *group, double spacing_tol)
{
  g_autofree char *sha = exp_str (group, "pixels_sha256");
  g_autofree char *signed_s = exp_str (group, "signed");
  g_autofree char *mine = lb_test_stored_sha256 (img);
  const LbImageMeta *meta = lb_image_get_meta (img);
  LbValueModel *model = lb_image_meta_get_value_model (meta);
  double a, b;

  g_assert_cmpuint (lb_image_get_width (img), ==, g_key_file_get_integer (expected, group, "columns", NULL));
  g_assert_cmpuint (lb_image_get_height (img), ==, g_key_file_get_integer (expected, group, "rows", NULL));
  g_assert_cmpstr (mine, ==, sha);
  /* every image carries its value model; a colour one only its lossy history */
  g_assert_nonnull (model);
  g_assert_cmpint (lb_value_model_get_colour (model), ==,
                   !lb_sample_format_is_gray (lb_image_get_format (img)));
  g_assert_cmpint (lb_value_model_get_source_signed (model), ==, g_str_equal (signed_s, "true"));
  /* a frame stored lossy (decoded on the client) is marked lossy, with its method, colour
   * included */
  {
    g_autofree char *lossy = exp_str (group, "lossy_method");
    const char *methods = NULL;

    g_assert_cmpint (lb_value_model_get_lossy (model, NULL, &methods), ==, lossy != NULL);
    if (lossy != NULL)
      g_assert_cmpstr (methods ? methods : "", ==, lossy);
  }
  if (g_key_file_has_key (expected, group, "rescale_slope", NULL))
    {
      g_assert_true (lb_value_model_get_stored_rescale (model, &a, &b));
      g_assert_cmpfloat (a, ==, exp_double (group, "rescale_slope"));
      g_assert_cmpfloat (b, ==, exp_double (group, "rescale_intercept"));
    }
  else
    g_assert_true (model == NULL || !lb_value_model_get_stored_rescale (model, NULL, NULL));
  if (g_key_file_has_key (expected, group, "window_center", NULL))
    {
      g_assert_true (lb_value_model_get_window (model, 0, &a, &b, NULL));
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

void
check_image_against (LbImage *img, const char *group)
{
  check_image_against_tol (img, group, 1e-12);
}

/* GET …/instances/{uid} as application/dicom (WADO-RS retrieve instance) into a file. */
char *
retrieve_instance_file (LbStore *store, const char *st, const char *se, const char *in,
                        const char *name)
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
  path = g_build_filename (run_dir, name, NULL);
  g_file_set_contents (path, g_bytes_get_data (((LbDicomPart *) parts->pdata[0])->body, NULL),
                       (gssize) g_bytes_get_size (((LbDicomPart *) parts->pdata[0])->body), &error);
  g_assert_no_error (error);
  return path;
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
  g_test_add_func ("/dicomweb/values-round-trip", test_values_round_trip);
  g_test_add_func ("/dicomweb/voi-lut-bulk", test_voi_lut_bulk);
  g_test_add_func ("/dicomweb/empty-patient", test_empty_patient);
  g_test_add_func ("/dicomweb/auth", test_auth);
  g_test_add_func ("/dicomweb/cancelled", test_cancelled);
  g_test_add_func ("/dicomweb/paging", test_paging);
  g_test_add_func ("/dicomweb/save-report", test_save_report);
  g_test_add_func ("/dicomweb/frames", test_frames);
  return g_test_run ();
}
