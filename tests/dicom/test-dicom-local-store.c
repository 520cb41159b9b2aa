/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The local-folder store shows the DICOM objects it holds by patient, study and series, as the
 * DICOMweb store does: a 300-slice CT series made by pydicom (make-series.py), beside a PNG and
 * a subfolder; pydicom's DICOMDIR file-set, whose records replace the folders they point into;
 * a DICOMDIR given as the store's URI. The listing times are printed (no threshold). */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

#include "lb-test-files.h"
#include "lb-dicom-file.h"
#include "lb-error.h"
#include "lb-image-loader.h"
#include "lb-local-store.h"
#include "lb-store-sync.h"

#define N_SLICES 300

static char *series_dir;
static GKeyFile *series_ini;

static LbStoreEntry *
find (GPtrArray *entries, LbStoreEntryKind kind, const char *name)
{
  for (guint i = 0; i < entries->len; i++)
    {
      LbStoreEntry *e = entries->pdata[i];

      if (lb_store_entry_get_kind (e) == kind
          && (name == NULL || strcmp (lb_store_entry_get_name (e), name) == 0))
        return e;
    }
  return NULL;
}

static guint
count_kind (GPtrArray *entries, LbStoreEntryKind kind)
{
  guint n = 0;

  for (guint i = 0; i < entries->len; i++)
    n += lb_store_entry_get_kind (entries->pdata[i]) == kind;
  return n;
}

static GPtrArray *
list (LbStore *store, const char *uri)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *entries = lb_store_list_sync (store, uri, NULL, &error);

  g_assert_no_error (error);
  return entries;
}

static char *
ini (const char *key)
{
  return g_key_file_get_string (series_ini, "series", key, NULL);
}

static void
test_series (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStore) store = lb_local_store_new (series_dir, NULL, &error);
  g_autoptr(GPtrArray) root = NULL, studies = NULL, series = NULL, instances = NULL;
  g_autofree char *study_uid = ini ("study"), *series_uid = ini ("series");
  g_autofree char *patient_id = ini ("patient_id");
  LbStoreEntry *patient, *study, *ser;
  gint64 t0, t1, t2;

  g_assert_no_error (error);
  t0 = g_get_monotonic_time ();
  root = list (store, NULL);
  t1 = g_get_monotonic_time ();

  /* the files became one patient; the PNG and the folder stay as they are */
  g_assert_cmpuint (root->len, ==, 3);
  g_assert_nonnull (find (root, LB_STORE_ENTRY_DIRECTORY, "sub"));
  g_assert_nonnull (find (root, LB_STORE_ENTRY_IMAGE, "notes.png"));
  patient = find (root, LB_STORE_ENTRY_DICOM_PATIENT, patient_id);
  g_assert_nonnull (patient);
  g_assert_cmpstr (lb_store_entry_get_display_name (patient), ==, "Müller, Anna (P-0042)");
  g_assert_cmpstr (lb_store_entry_get_attribute (patient, "NumberOfStudies"), ==, "1");
  g_assert_true (lb_store_entry_is_container (patient));

  studies = list (store, lb_store_entry_get_uri (patient));
  g_assert_cmpuint (studies->len, ==, 1);
  study = studies->pdata[0];
  g_assert_cmpint (lb_store_entry_get_kind (study), ==, LB_STORE_ENTRY_DICOM_STUDY);
  g_assert_cmpstr (lb_store_entry_get_name (study), ==, study_uid);
  g_assert_cmpstr (lb_store_entry_get_display_name (study), ==, "2024-01-31 Thorax");

  series = list (store, lb_store_entry_get_uri (study));
  g_assert_cmpuint (series->len, ==, 1);
  ser = series->pdata[0];
  g_assert_cmpint (lb_store_entry_get_kind (ser), ==, LB_STORE_ENTRY_DICOM_SERIES);
  g_assert_cmpstr (lb_store_entry_get_name (ser), ==, series_uid);
  g_assert_cmpstr (lb_store_entry_get_display_name (ser), ==, "CT #3 Lung 1.0");
  g_assert_cmpstr (lb_store_entry_get_attribute (ser, "NumberOfSeriesRelatedInstances"), ==,
                   G_STRINGIFY (N_SLICES));

  instances = list (store, lb_store_entry_get_uri (ser));
  t2 = g_get_monotonic_time ();
  g_assert_cmpuint (instances->len, ==, N_SLICES);
  for (guint i = 0; i < instances->len; i++)
    {
      LbStoreEntry *e = instances->pdata[i];
      g_autofree char *label = g_strdup_printf ("#%u", i + 1);
      g_autoptr(GFile) f = g_file_new_for_uri (lb_store_entry_get_uri (e));

      /* in InstanceNumber order; each is the file itself */
      g_assert_cmpint (lb_store_entry_get_kind (e), ==, LB_STORE_ENTRY_DICOM_INSTANCE);
      g_assert_cmpstr (lb_store_entry_get_display_name (e), ==, label);
      g_assert_cmpstr (lb_store_entry_get_name (e), ==,
                       lb_store_entry_get_attribute (e, "SOPInstanceUID"));
      g_assert_true (g_file_query_exists (f, NULL));
      g_assert_cmpint (lb_store_entry_get_size (e), >, 128 * 128 * 2);
    }
  g_test_message ("%d-file series: root listed in %.0f ms, patient → study → series → %d "
                  "instances in %.0f ms more", N_SLICES, (t1 - t0) / 1000.0, N_SLICES,
                  (t2 - t1) / 1000.0);

  /* the levels stat as themselves; reading one is refused, reading an instance reads its file */
  {
    g_autoptr(LbStoreEntry) again = lb_store_stat_sync (store, lb_store_entry_get_uri (ser),
                                                        NULL, &error);
    g_autoptr(LbImage) image = NULL;
    g_autoptr(LbImage) direct = NULL;
    g_autoptr(GFile) f = g_file_new_for_uri (lb_store_entry_get_uri (instances->pdata[9]));

    g_assert_no_error (error);
    g_assert_cmpstr (lb_store_entry_get_display_name (again), ==, "CT #3 Lung 1.0");
    image = lb_store_fetch_image_sync (lb_store_entry_get_uri (ser), NULL, NULL, NULL, NULL,
                                       &error);
    g_assert_null (image);
    g_assert_nonnull (error);
    g_clear_error (&error);
    image = lb_store_fetch_image_sync (lb_store_entry_get_uri (instances->pdata[9]), NULL, NULL,
                                       NULL, NULL, &error);
    g_assert_no_error (error);
    direct = lb_image_load_file (g_file_peek_path (f), NULL, &error);
    g_assert_no_error (error);
    g_assert_true (lb_image_equal_pixels (image, direct));
    g_assert_cmpstr (lb_image_meta_get_text (lb_image_get_meta (image), "Instance number"), ==,
                     "10");
  }

  /* a level that is not there */
  {
    g_autofree char *bad = g_strconcat (lb_store_get_uri (store), "/?study=1.2.3", NULL);
    g_autoptr(GPtrArray) none = lb_store_list_sync (store, bad, NULL, &error);

    g_assert_null (none);
    g_assert_error (error, LB_ERROR, LB_ERROR_NOT_FOUND);
  }
}

static void
test_cancel (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStore) store = lb_local_store_new (series_dir, NULL, &error);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GPtrArray) entries = NULL;

  g_cancellable_cancel (cancellable);
  entries = lb_store_list_sync (store, NULL, cancellable, &error);
  g_assert_null (entries);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

/* pydicom's file-set: the DICOMDIR's patients replace the folders its records point into */
static void
test_dicomdir (gconstpointer data)
{
  gboolean open_dicomdir = GPOINTER_TO_INT (data);
  g_autofree char *dir = g_build_filename (g_getenv ("LB_TEST_DATA"), "dicom", "dicomdirtests",
                                           NULL);
  g_autofree char *dicomdir = g_build_filename (dir, "DICOMDIR", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStore) store = lb_local_store_new (open_dicomdir ? dicomdir : dir, NULL, &error);
  g_autoptr(GPtrArray) root = NULL;
  guint images = 0;

  g_assert_no_error (error);
  g_assert_true (g_str_has_suffix (lb_store_get_uri (store), "/dicomdirtests"));
  root = list (store, NULL);
  g_assert_cmpuint (count_kind (root, LB_STORE_ENTRY_DICOM_PATIENT), ==, 2);
  g_assert_null (find (root, LB_STORE_ENTRY_DIRECTORY, "77654033"));
  g_assert_null (find (root, LB_STORE_ENTRY_DIRECTORY, "98892001"));
  g_assert_nonnull (find (root, LB_STORE_ENTRY_DIRECTORY, "TINY_ALPHA")); /* a file-set of its own */
  g_assert_nonnull (find (root, LB_STORE_ENTRY_FILE, "README.txt"));
  g_assert_null (find (root, LB_STORE_ENTRY_DICOM_FILE, "DICOMDIR"));

  /* every image record of the DICOMDIR (31, dicomdir test) is an instance under its series */
  for (guint p = 0; p < root->len; p++)
    {
      g_autoptr(GPtrArray) studies = NULL;

      if (lb_store_entry_get_kind (root->pdata[p]) != LB_STORE_ENTRY_DICOM_PATIENT)
        continue;
      studies = list (store, lb_store_entry_get_uri (root->pdata[p]));
      for (guint s = 0; s < studies->len; s++)
        {
          g_autoptr(GPtrArray) series = list (store, lb_store_entry_get_uri (studies->pdata[s]));

          for (guint r = 0; r < series->len; r++)
            {
              g_autoptr(GPtrArray) inst = list (store, lb_store_entry_get_uri (series->pdata[r]));

              images += inst->len;
              g_assert_cmpuint (count_kind (inst, LB_STORE_ENTRY_DICOM_INSTANCE), ==, inst->len);
            }
        }
    }
  g_assert_cmpuint (images, ==, 31);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *script = NULL;
  g_autofree char *out = NULL;
  g_autofree char *sub = NULL;
  g_autofree char *png = NULL;
  int status, rc;

  g_test_init (&argc, &argv, NULL);
  lb_dicom_register_image_loader ();
  g_test_add_data_func ("/dicom/local-store/dicomdir-folder", GINT_TO_POINTER (FALSE),
                        test_dicomdir);
  g_test_add_data_func ("/dicom/local-store/dicomdir-file", GINT_TO_POINTER (TRUE),
                        test_dicomdir);

  series_dir = g_dir_make_tmp ("lb-dicom-series-XXXXXX", &error);
  g_assert_no_error (error);
  script = g_build_filename (g_getenv ("LB_SOURCE_ROOT"), "tests", "dicom", "make-series.py",
                             NULL);
  {
    const char *args[] = { "/usr/bin/python3", script, series_dir, G_STRINGIFY (N_SLICES), "128",
                           NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) args, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
                                 NULL, &status, &error));
  }
  if (WIFEXITED (status) && WEXITSTATUS (status) == 77)
    g_test_message ("pydicom is missing: no series to list");
  else
    {
      g_assert_true (g_spawn_check_wait_status (status, &error));
      series_ini = g_key_file_new ();
      g_assert_true (g_key_file_load_from_data (series_ini, out, -1, G_KEY_FILE_NONE, &error));
      sub = g_build_filename (series_dir, "sub", NULL);
      png = g_build_filename (series_dir, "notes.png", NULL);
      g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
      g_assert_true (g_file_set_contents (png, "\x89PNG\r\n\x1a\n", 8, NULL));
      g_test_add_func ("/dicom/local-store/series", test_series);
      g_test_add_func ("/dicom/local-store/cancel", test_cancel);
    }
  rc = g_test_run ();

  lb_test_remove_tree (series_dir);
  g_clear_pointer (&series_ini, g_key_file_unref);
  return rc;
}
