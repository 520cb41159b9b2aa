/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Write-back keeps the meaning, through the real server: variants of CT_small made by
 * tests/dicom/make-variants.py are stored in Orthanc, filtered with `lightbox-cli filter`
 * from their DICOMweb URL back into their study, retrieved as Part 10 files and read by
 * pydicom (tests/dicom/check-derived.py). A blurred signed CT has, pixel for pixel, the
 * real-world values of the same image stored unsigned and blurred the same way; MONOCHROME1,
 * padding and lossy history survive with unchanged pixel meaning; dciodvfy finds no error. */

#include <glib/gstdio.h>
#include <string.h>

#include "lb-test-dicom.h"
#include "lb-test-process.h"
#include "test-dicomweb-orthanc.h"

typedef struct {
  char *study, *series, *instance;
} Uids;

static void
uids_clear (Uids *u)
{
  g_free (u->study);
  g_free (u->series);
  g_free (u->instance);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Uids, uids_clear)

/* study/series/instance UIDs of a DICOMweb instance URL. */
static void
parse_instance_url (const char *url, Uids *u)
{
  g_auto (GStrv) parts = g_strsplit (strstr (url, "/studies/"), "/", -1);

  /* "", "studies", ST, "series", SE, "instances", IN */
  g_assert_cmpuint (g_strv_length (parts), >=, 7);
  g_assert_cmpstr (parts[3], ==, "series");
  g_assert_cmpstr (parts[5], ==, "instances");
  u->study = g_strdup (parts[2]);
  u->series = g_strdup (parts[4]);
  u->instance = g_strdup (parts[6]);
}

/* The UIDs of a variant's file, read by pydicom. */
static void
file_uids (const char *path, Uids *u)
{
  const char *argv[] = { "/usr/bin/python3", "-c",
                         "import sys, pydicom\n"
                         "d = pydicom.dcmread(sys.argv[1])\n"
                         "print(d.StudyInstanceUID, d.SeriesInstanceUID, d.SOPInstanceUID)\n",
                         path, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_auto (GStrv) f = NULL;
  int status;

  out = lb_test_run_tool (argv, &err, &status);
  g_assert_cmpint (status, ==, 0);
  f = g_strsplit (g_strstrip (out), " ", 3);
  g_assert_cmpuint (g_strv_length (f), ==, 3);
  u->study = g_strdup (f[0]);
  u->series = g_strdup (f[1]);
  u->instance = g_strdup (f[2]);
}

/* Stores the variant's file as it is (a raw Part 10 upload into its study). */
static void
upload (LbStore *store, const char *dir, const char *name, Uids *u)
{
  g_autofree char *file = g_strconcat (name, ".dcm", NULL);
  g_autofree char *path = g_build_filename (dir, file, NULL);
  g_autofree char *target = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (LbStoreEntry) entry = NULL;
  g_autoptr (GBytes) bytes = NULL;
  char *data;
  gsize len;

  file_uids (path, u);
  target = g_strdup_printf ("%s/studies/%s/%s", store_url, u->study, file);
  g_file_get_contents (path, &data, &len, &error);
  g_assert_no_error (error);
  bytes = g_bytes_new_take (data, len);
  entry = write_bytes (store, target, bytes, "application/dicom", LB_STORE_WRITE_CREATE, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (lb_store_entry_get_attribute (entry, "SOPInstanceUID"), ==, u->instance);
}

/* `lightbox-cli filter SOURCE-URL STUDY-URL/NAME.png STEP`: the derived instance's file. */
static char *
filter_into_study (LbStore *store, const Uids *src, const char *name, const char *step)
{
  g_autofree char *cli = g_build_filename (g_getenv ("LB_BUILD_ROOT"), "src", "cli",
                                           "lightbox-cli", NULL);
  g_autofree char *in = g_strdup_printf ("%s/studies/%s/series/%s/instances/%s", store_url,
                                         src->study, src->series, src->instance);
  g_autofree char *out = g_strdup_printf ("%s/studies/%s/%s.png", store_url, src->study, name);
  g_autofree char *file = g_strconcat (name, ".dcm", NULL);
  const char *argv[] = { cli, "filter", in, out, step, NULL };
  g_autofree char *text = NULL, *err = NULL;
  g_auto (GStrv) lines = NULL;
  g_auto (Uids) made = { 0 };
  int status;

  text = lb_test_run_tool (argv, &err, &status);
  g_test_message ("lightbox-cli filter %s → %s", step, text);
  if (status != 0)
    g_error ("lightbox-cli filter %s %s: %s", in, step, err);
  lines = g_strsplit (text, "\n", 2);
  parse_instance_url (lines[0], &made);
  g_assert_cmpstr (made.study, ==, src->study);
  g_assert_cmpstr (made.series, !=, src->series);
  return retrieve_instance_file (store, made.study, made.series, made.instance, file);
}

void
test_values_round_trip (void)
{
  g_autoptr (LbStore) store = open_store ();
  g_autofree char *dir = g_build_filename (run_dir, "variants", NULL);
  g_autofree char *script = g_build_filename (g_getenv ("LB_SOURCE_ROOT"), "tests", "dicom",
                                              "make-variants.py", NULL);
  g_autofree char *data = g_build_filename (g_getenv ("LB_SOURCE_ROOT"), "tests", "data",
                                            "dicom", NULL);
  const char *make[] = { "/usr/bin/python3", script, data, dir, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_auto (Uids) sgn = { 0 }, uns = { 0 }, mono1 = { 0 }, pad = { 0 }, lossy = { 0 };
  int status;

  out = lb_test_run_tool (make, &err, &status);
  if (status != 0)
    {
      g_test_skip ("make-variants.py needs /usr/bin/python3 with numpy and pydicom");
      return;
    }
  upload (store, dir, "ct-signed-negative", &sgn);
  upload (store, dir, "ct-unsigned-shifted", &uns);
  upload (store, dir, "cr-monochrome1", &mono1);
  upload (store, dir, "ct-padding", &pad);
  upload (store, dir, "ct-lossy", &lossy);

  /* the signed CT blurred has the values of the unsigned one blurred */
  {
    g_autofree char *a = filter_into_study (store, &sgn, "blurred-signed", "blur:size=3");
    g_autofree char *b = filter_into_study (store, &uns, "blurred-unsigned", "blur:size=3");
    g_autoptr (GHashTable) ka = lb_test_check_derived (a, b);
    g_autoptr (GHashTable) kb = lb_test_check_derived (b, NULL);

    g_assert_cmpstr (g_hash_table_lookup (ka, "same_as_source"), ==, "1");
    /* written signed again, with the source's BitsStored, in HU */
    g_assert_cmpstr (g_hash_table_lookup (ka, "signed"), ==, "1");
    g_assert_cmpstr (g_hash_table_lookup (kb, "signed"), ==, "0");
    g_assert_cmpstr (g_hash_table_lookup (ka, "bits_stored"), ==, "12");
    g_assert_cmpstr (g_hash_table_lookup (ka, "units"), ==, "HU");
    lb_test_check_dciodvfy (a);
    lb_test_check_dciodvfy (b);
  }

  /* identity filters: MONOCHROME1, padding and lossy history keep their pixel meaning */
  {
    static const char *const names[] = { "cr-monochrome1", "ct-padding", "ct-lossy" };
    Uids *srcs[] = { &mono1, &pad, &lossy };

    for (guint i = 0; i < G_N_ELEMENTS (names); i++)
      {
        g_autofree char *derived_name = g_strconcat (names[i], "-median0", NULL);
        g_autofree char *d = filter_into_study (store, srcs[i], derived_name, "median:radius=0");
        g_autofree char *file = g_strconcat (names[i], ".dcm", NULL);
        g_autofree char *src = g_build_filename (dir, file, NULL);
        g_autoptr (GHashTable) kv = lb_test_check_derived (d, src);
        g_autoptr (GHashTable) ks = lb_test_check_derived (src, NULL);

        g_assert_cmpstr (g_hash_table_lookup (kv, "same_as_source"), ==, "1");
        g_assert_cmpstr (g_hash_table_lookup (kv, "photometric"), ==,
                         g_hash_table_lookup (ks, "photometric"));
        g_assert_cmpstr (g_hash_table_lookup (kv, "padding_pixels"), ==,
                         g_hash_table_lookup (ks, "padding_pixels"));
        g_assert_cmpstr (g_hash_table_lookup (kv, "lossy"), ==,
                         g_hash_table_lookup (ks, "lossy"));
        g_assert_cmpstr (g_hash_table_lookup (kv, "lossy_ratios"), ==,
                         g_hash_table_lookup (ks, "lossy_ratios"));
        g_assert_cmpstr (g_hash_table_lookup (kv, "lossy_methods"), ==,
                         g_hash_table_lookup (ks, "lossy_methods"));
        g_assert_cmpstr (g_hash_table_lookup (kv, "windows"), ==,
                         g_hash_table_lookup (ks, "windows"));
        lb_test_check_dciodvfy (d);
      }
  }
}
