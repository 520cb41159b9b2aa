/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Multi-frame objects as stacks of frames (tests/dicom/make-variants.py makes them from
 * pydicom's CT_small at test time; multiframe.ini and NAME-fN.values hold what each frame means,
 * computed by pydicom and numpy): every frame of a Part 10 file and of a DICOMweb-style
 * metadata + frame pair decodes to the values pydicom gives; an Enhanced CT's rescale, window
 * and pixel spacing come from its Shared and Per-frame Functional Groups (stored 175 is
 * −849 HU); a missing functional group or frame number is an error naming it; an image
 * derived from frame N references it (ReferencedFrameNumber) and means what the frame means
 * to pydicom, and passes dciodvfy. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lb-dicom-file.h"
#include "lb-dicom-frame.h"
#include "lb-dicom-multiframe.h"
#include "lb-dicom-tags.h"
#include "lb-dicom-writer.h"
#include "lb-error.h"
#include "lb-test-dicom.h"
#include "lb-test-files.h"

static char *dir;       /* the objects */
static GKeyFile *ini;   /* multiframe.ini */

static char *
path_of (const char *name, const char *suffix)
{
  return lb_test_variant_path (dir, name, suffix);
}

static GBytes *
bytes_of (const char *name, const char *suffix)
{
  return lb_test_variant_bytes (dir, name, suffix);
}

static double
expect_double (const char *name, guint frame, const char *key)
{
  g_autofree char *k = g_strdup_printf ("frame.%u.%s", frame, key);
  g_autoptr (GError) error = NULL;
  double v = g_key_file_get_double (ini, name, k, &error);

  g_assert_no_error (error);
  return v;
}

static LbDicomDataset *
metadata_of (const char *name)
{
  return lb_test_variant_metadata (dir, name);
}

/* Frame @n of @name: every pixel's value, the window, the pixel spacing and the frame's place,
 * against pydicom's. */
static void
check_frame (const char *name, guint n, guint n_frames, LbImage *img)
{
  g_autofree char *fname = g_strdup_printf ("-f%u.values", n);
  g_autofree char *values = path_of (name, fname);
  g_autofree char *what = g_strdup_printf ("%s frame %u", name, n);
  const LbImageMeta *meta = lb_image_get_meta (img);
  LbValueModel *model = lb_image_meta_get_value_model_for (meta, 16);
  g_autofree char *num = g_strdup_printf ("%u", n), *total = g_strdup_printf ("%u", n_frames);
  double wc, ww, sx, sy;

  lb_test_check_real_values (img, values, what);
  g_assert_cmpuint (lb_value_model_get_n_windows (model), ==, 1);
  g_assert_true (lb_value_model_get_window (model, 0, &wc, &ww, NULL));
  g_assert_cmpfloat (wc, ==, expect_double (name, n, "window_center"));
  g_assert_cmpfloat (ww, ==, expect_double (name, n, "window_width"));
  g_assert_true (lb_image_meta_get_pixel_spacing (meta, &sx, &sy));
  g_assert_cmpfloat_with_epsilon (sx, expect_double (name, n, "spacing_x"), 1e-12);
  g_assert_cmpfloat_with_epsilon (sy, expect_double (name, n, "spacing_y"), 1e-12);
  g_assert_cmpstr (lb_image_meta_get_text (meta, LB_DICOM_META_FRAME_NUMBER), ==, num);
  g_assert_cmpstr (lb_image_meta_get_text (meta, LB_DICOM_META_NUMBER_OF_FRAMES), ==, total);
}

/* Every frame, from the Part 10 file and from the JSON metadata with the frame's bytes (what
 * WADO-RS gives). */
static void
test_frames (gconstpointer data)
{
  const char *name = data;
  g_autofree char *path = path_of (name, ".dcm");
  g_autoptr (GError) error = NULL;
  g_autoptr (LbDicomFile) file = lb_dicom_file_new_for_path (path, LB_DICOM_READ_DEFAULT, NULL,
                                                             &error);
  g_autoptr (LbDicomDataset) md = metadata_of (name);
  guint n_frames = (guint) g_key_file_get_integer (ini, name, "frames", NULL);

  g_assert_no_error (error);
  g_assert_cmpuint (lb_dicom_file_get_n_frames (file), ==, n_frames);
  g_assert_cmpuint (lb_dicom_get_n_frames (md), ==, n_frames);
  for (guint n = 1; n <= n_frames; n++)
    {
      g_autoptr (LbImage) a = lb_dicom_file_decode_frame (file, n - 1, NULL, &error);
      g_autofree char *fname = g_strdup_printf ("-f%u.frame", n);
      g_autoptr (GBytes) bytes = bytes_of (name, fname);
      g_autoptr (LbImage) b = NULL;

      g_assert_no_error (error);
      check_frame (name, n, n_frames, a);
      b = lb_dicom_decode_frame_number (md, NULL, bytes, n, name, NULL, &error);
      g_assert_no_error (error);
      check_frame (name, n, n_frames, b);
    }
}

/* The case: an Enhanced CT whose stored 175 means −849 HU only through the shared
 * Pixel Value Transformation; frame 3's own rescale maps it elsewhere. */
static void
test_enhanced_ct_175 (void)
{
  g_autofree char *path = path_of ("enhanced-ct", ".dcm");
  g_autoptr (GError) error = NULL;
  g_autoptr (LbDicomFile) file = lb_dicom_file_new_for_path (path, LB_DICOM_READ_DEFAULT, NULL,
                                                             &error);
  g_autoptr (LbImage) f1 = NULL, f3 = NULL;
  double want = g_key_file_get_double (ini, "enhanced-ct", "stored_175", NULL);

  g_assert_no_error (error);
  f1 = lb_dicom_file_decode_frame (file, 0, NULL, &error);
  g_assert_no_error (error);
  f3 = lb_dicom_file_decode_frame (file, 2, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (lb_value_model_to_value (lb_image_meta_get_value_model_for (
                                                lb_image_get_meta (f1), 16), 175), ==, want);
  g_assert_cmpstr (lb_value_model_get_units (lb_image_meta_get_value_model_for (
                                               lb_image_get_meta (f1), 16)), ==, "HU");
  g_assert_cmpfloat (lb_value_model_to_value (lb_image_meta_get_value_model_for (
                                                lb_image_get_meta (f3), 16), 175), ==,
                     175 * expect_double ("enhanced-ct", 3, "slope")
                     + expect_double ("enhanced-ct", 3, "intercept"));
}

/* A functional group missing for a frame: that frame fails naming the frame and the
 * attribute, the others decode. */
static void
test_missing_group (gconstpointer data)
{
  const char *name = data;
  g_autofree char *bad = g_key_file_get_string (ini, name, "bad", NULL);
  g_auto (GStrv) parts = g_strsplit (bad, ":", 2);
  guint frame = (guint) atoi (parts[0]);
  g_autofree char *path = path_of (name, ".dcm");
  g_autofree char *frame_words = g_strdup_printf ("frame %u", frame);
  g_autoptr (GError) error = NULL;
  g_autoptr (LbDicomFile) file = lb_dicom_file_new_for_path (path, LB_DICOM_READ_DEFAULT, NULL,
                                                             &error);
  g_autoptr (LbImage) img = NULL;

  g_assert_no_error (error);
  for (guint n = 1; n < frame; n++)
    {
      g_autoptr (LbImage) ok = lb_dicom_file_decode_frame (file, n - 1, NULL, &error);

      g_assert_no_error (error);
      g_assert_nonnull (ok);
    }
  img = lb_dicom_file_decode_frame (file, frame - 1, NULL, &error);
  g_assert_null (img);
  g_assert_error (error, LB_ERROR, LB_ERROR_CORRUPT);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, frame_words));
  g_assert_nonnull (strstr (error->message, parts[1]));
}

static void
test_frame_out_of_range (void)
{
  g_autofree char *path = path_of ("mf-ct", ".dcm");
  g_autoptr (GError) error = NULL;
  g_autoptr (LbDicomFile) file = lb_dicom_file_new_for_path (path, LB_DICOM_READ_DEFAULT, NULL,
                                                             &error);
  g_autoptr (LbDicomDataset) md = metadata_of ("mf-ct");
  g_autoptr (GBytes) bytes = bytes_of ("mf-ct", "-f1.frame");
  g_autoptr (LbImage) img = NULL;

  g_assert_no_error (error);
  img = lb_dicom_file_decode_frame (file, 5, NULL, &error);
  g_assert_null (img);
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "6"));
  g_assert_nonnull (strstr (error->message, "5 frames"));
  g_clear_error (&error);
  for (guint n = 0; n <= 6; n += 6)
    {
      img = lb_dicom_decode_frame_number (md, NULL, bytes, n, "mf-ct", NULL, &error);
      g_assert_null (img);
      g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
      g_assert_nonnull (strstr (error->message, n == 0 ? "no frame 0" : "no frame 6"));
      g_assert_nonnull (strstr (error->message, "5 frames"));
      g_clear_error (&error);
    }
}

/* Cine speed: FrameTime 40 ms. */
static void
test_frame_interval (void)
{
  g_autoptr (LbDicomDataset) md = metadata_of ("mf-ct");
  g_autoptr (LbDicomDataset) enhanced = metadata_of ("enhanced-ct");

  g_assert_cmpfloat_with_epsilon (lb_dicom_get_frame_interval (md), 0.040, 1e-12);
  g_assert_cmpfloat (lb_dicom_get_frame_interval (enhanced), ==, 0);
}

/* Write-back: a derived image of frame 3 of the Enhanced CT references frame 3 of its source
 * and holds, to pydicom, the real-world values of that frame (frame 3's own rescale). */
static void
test_derived_from_frame (void)
{
  g_autofree char *path = path_of ("enhanced-ct", ".dcm");
  g_autofree char *alone = path_of ("enhanced-ct", "-f3.dcm");
  g_autofree char *out = path_of ("enhanced-ct", "-derived-f3.dcm");
  g_autoptr (GError) error = NULL;
  g_autoptr (LbDicomFile) file = lb_dicom_file_new_for_path (path, LB_DICOM_READ_DEFAULT, NULL,
                                                             &error);
  g_autoptr (LbImage) img = NULL;
  g_autoptr (LbDicomDataset) sc = NULL;
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GHashTable) kv = NULL;

  g_assert_no_error (error);
  img = lb_dicom_file_decode_frame (file, 2, NULL, &error);
  g_assert_no_error (error);
  sc = lb_dicom_build_secondary_capture (img, lb_dicom_file_get_dataset (file), "frame 3", 5,
                                         &error);
  g_assert_no_error (error);
  g_assert_cmpstr (lb_dicom_dataset_get_string (lb_dicom_dataset_get_item (
                                                  sc, LB_TAG_SOURCE_IMAGE_SEQUENCE, 0),
                                                LB_TAG_REFERENCED_FRAME_NUMBER, 0), ==, "3");
  bytes = lb_dicom_write_part10 (sc, &error);
  g_assert_no_error (error);
  g_file_set_contents (out, g_bytes_get_data (bytes, NULL), (gssize) g_bytes_get_size (bytes),
                       &error);
  g_assert_no_error (error);
  lb_test_check_dciodvfy (out);
  kv = lb_test_check_derived (out, alone);
  g_assert_cmpstr (g_hash_table_lookup (kv, "frame"), ==, "3");
  g_assert_cmpstr (g_hash_table_lookup (kv, "same_as_source"), ==, "1");
}

int
main (int argc, char **argv)
{
  g_autofree char *ini_path = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) names = NULL;
  int rc;

  g_test_init (&argc, &argv, NULL);
  dir = lb_test_make_dicom_variants ("dicom-multiframe");
  if (dir == NULL)
    {
      g_print ("1..0 # SKIP needs /usr/bin/python3 with numpy and pydicom\n");
      return 77;
    }
  ini = g_key_file_new ();
  ini_path = g_build_filename (dir, "multiframe.ini", NULL);
  g_key_file_load_from_file (ini, ini_path, G_KEY_FILE_NONE, &error);
  g_assert_no_error (error);

  names = g_key_file_get_groups (ini, NULL);
  for (guint i = 0; names[i]; i++)
    {
      g_autofree char *test = g_strdup_printf ("/dicom/multiframe/%s/%s",
                                               g_key_file_has_key (ini, names[i], "bad", NULL)
                                               ? "missing" : "frames", names[i]);

      g_test_add_data_func (test, names[i], g_key_file_has_key (ini, names[i], "bad", NULL)
                                            ? test_missing_group : test_frames);
    }
  g_test_add_func ("/dicom/multiframe/enhanced-ct-175", test_enhanced_ct_175);
  g_test_add_func ("/dicom/multiframe/out-of-range", test_frame_out_of_range);
  g_test_add_func ("/dicom/multiframe/frame-interval", test_frame_interval);
  g_test_add_func ("/dicom/multiframe/derived-from-frame", test_derived_from_frame);
  rc = g_test_run ();
  g_key_file_unref (ini);
  lb_test_remove_tree (dir);
  g_free (dir);
  return rc;
}
