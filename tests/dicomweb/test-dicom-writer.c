/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of the DICOM Part 10 writer and the Secondary Capture builder: independent
 * readers (dcmtk's dcmdump, pydicom, dicom3tools' dciodvfy when installed) must accept what
 * we write and find the values we meant. */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "lb-dicom-dataset.h"
#include "lb-dicom-frame.h"
#include "lb-dicom-writer.h"
#include "lb-error.h"
#include "lb-test-dicom.h"
#include "lb-test-files.h"
#include "lb-test-image.h"
#include "lb-test-process.h"

static void
test_uid (void)
{
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  char *uid;

  /* The worked example of PS3.5 §B.2 / ITU-T X.667. */
  uid = lb_dicom_uid_from_uuid ("f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
  g_assert_cmpstr (uid, ==, "2.25.329800735698586629295641978511506172918");
  g_free (uid);
  uid = lb_dicom_uid_from_uuid ("00000000-0000-0000-0000-000000000000");
  g_assert_cmpstr (uid, ==, "2.25.0");
  g_free (uid);
  uid = lb_dicom_uid_from_uuid ("ffffffff-ffff-ffff-ffff-ffffffffffff");
  g_assert_cmpstr (uid, ==, "2.25.340282366920938463463374607431768211455"); /* 2^128 - 1 */
  g_free (uid);
  g_assert_null (lb_dicom_uid_from_uuid ("not-a-uuid"));
  g_assert_null (lb_dicom_uid_from_uuid (NULL));

  for (guint i = 0; i < 1000; i++)
    {
      uid = lb_dicom_generate_uid ();
      g_assert_true (g_str_has_prefix (uid, "2.25."));
      g_assert_cmpuint (strlen (uid), <=, 64);
      g_assert_true (uid[5] != '0' || uid[6] == '\0'); /* no leading zero in a component */
      for (const char *p = uid + 5; *p; p++)
        g_assert_true (g_ascii_isdigit (*p));
      g_assert_true (g_hash_table_add (seen, uid));
    }
}

static LbImage *
decode_ct_small (LbDicomDataset **out_md)
{
  g_autoptr(LbDicomDataset) md = lb_test_dicom_load_metadata ("CT_small.json");
  g_autoptr(GBytes) frame = lb_test_dicom_load ("CT_small.frame");
  g_autoptr(GError) error = NULL;
  LbImage *img = lb_dicom_decode_frame (md, NULL, frame, "CT_small", NULL, &error);

  g_assert_no_error (error);
  *out_md = g_steal_pointer (&md);
  return img;
}

static void
test_secondary_capture (void)
{
  g_autoptr(LbDicomDataset) md = NULL;
  g_autoptr(LbImage) img = decode_ct_small (&md);
  g_autoptr(LbDicomDataset) sc = NULL;
  g_autoptr(GBytes) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = lb_test_make_tmpdir ("dicom-writer");
  g_autofree char *path = NULL, *dump = NULL, *err = NULL, *v = NULL;
  const guint8 *data;
  gsize len;
  int status;

  sc = lb_dicom_build_secondary_capture (img, md, "invert() \\ median(size=3)", 7, &error);
  g_assert_no_error (error);
  file = lb_dicom_write_part10 (sc, &error);
  g_assert_no_error (error);
  data = g_bytes_get_data (file, &len);
  g_assert_cmpuint (len, >, 132 + 128 * 128 * 2);
  for (guint i = 0; i < 128; i++)
    g_assert_cmpuint (data[i], ==, 0);
  g_assert_cmpmem (data + 128, 4, "DICM", 4);
  g_assert_cmpuint (len % 2, ==, 0);

  path = g_build_filename (dir, "sc.dcm", NULL);
  g_file_set_contents (path, (const char *) data, (gssize) len, &error);
  g_assert_no_error (error);

  /* dcmtk: +f = must be a Part 10 file; -E = stop on any parse error; -Un = UIDs as numbers;
   * warnings go to stderr. */
  {
    const char *argv[] = { "dcmdump", "+f", "-E", "-Un", path, NULL };

    dump = lb_test_run_tool (argv, &err, &status);
    g_test_message ("dcmdump:\n%s\n%s", dump, err);
    g_assert_cmpint (status, ==, 0);
    g_assert_cmpstr (err, ==, "");
  }
#define CHECK(tag, want)                                                                        \
  do {                                                                                          \
    g_free (v);                                                                                 \
    v = lb_test_dcmdump_value (dump, tag);                                                                 \
    g_assert_cmpstr (v, ==, want);                                                              \
  } while (0)
  CHECK ("(0002,0002)", LB_DICOM_SOP_CLASS_SECONDARY_CAPTURE);
  CHECK ("(0002,0003)", lb_dicom_dataset_get_string (sc, LB_TAG_SOP_INSTANCE_UID, 0));
  CHECK ("(0002,0010)", LB_DICOM_TS_EXPLICIT_LE);
  CHECK ("(0008,0005)", "ISO_IR 192");
  CHECK ("(0008,0008)", "DERIVED\\SECONDARY");
  CHECK ("(0008,0016)", LB_DICOM_SOP_CLASS_SECONDARY_CAPTURE);
  CHECK ("(0008,0060)", "OT");
  CHECK ("(0008,0064)", "WSD");
  CHECK ("(0008,103e)", "Lightbox: invert() / median(size=3)");
  CHECK ("(0010,0010)", lb_dicom_dataset_get_string (md, LB_TAG_PATIENT_NAME, 0));
  CHECK ("(0010,0020)", lb_dicom_dataset_get_string (md, LB_TAG_PATIENT_ID, 0));
  CHECK ("(0020,000d)", lb_dicom_dataset_get_string (md, LB_TAG_STUDY_INSTANCE_UID, 0));
  CHECK ("(0020,0011)", "7");
  CHECK ("(0020,0013)", "1");
  CHECK ("(0028,0004)", "MONOCHROME2");
  CHECK ("(0028,0010)", "128");
  CHECK ("(0028,0011)", "128");
  CHECK ("(0028,0100)", "16");
  CHECK ("(0028,0103)", "1");
  CHECK ("(0028,1052)", "-1024");
  CHECK ("(0028,1053)", "1");
  CHECK ("(0028,1054)", "HU");
  /* the series is new, the source is referenced */
  g_free (v);
  v = lb_test_dcmdump_value (dump, "(0020,000e)");
  g_assert_nonnull (v);
  g_assert_cmpstr (v, !=, lb_dicom_dataset_get_string (md, LB_TAG_SERIES_INSTANCE_UID, 0));
  g_assert_true (g_str_has_prefix (v, "2.25."));
  g_assert_nonnull (strstr (dump, lb_dicom_dataset_get_string (md, LB_TAG_SOP_INSTANCE_UID, 0)));
#undef CHECK

  /* pydicom reads the same pixels back (the writer's little-endian OW layout). */
  if (g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      const char *script =
        "import sys, hashlib\n"
        "try:\n"
        "    import pydicom, numpy\n"
        "except ImportError:\n"
        "    print('skip'); sys.exit(0)\n"
        "ds = pydicom.dcmread(sys.argv[1])\n"
        "a = ds.pixel_array\n"
        "print(hashlib.sha256(a.astype('<i2' if ds.PixelRepresentation else '<u2').tobytes())"
        ".hexdigest())\n";
      const char *argv[] = { "/usr/bin/python3", "-c", script, path, NULL };
      g_autofree char *out = NULL, *perr = NULL, *mine = lb_test_stored_sha256 (img);

      out = lb_test_run_tool (argv, &perr, &status);
      g_assert_cmpint (status, ==, 0);
      g_strstrip (out);
      if (g_strcmp0 (out, "skip") != 0)
        g_assert_cmpstr (out, ==, mine);
    }

  lb_test_check_dciodvfy (path);

  g_unlink (path);
  g_rmdir (dir);
}

static void
test_rgb_and_alpha (void)
{
  g_autoptr(LbDicomDataset) src = lb_dicom_dataset_new ();
  g_autoptr(LbDicomDataset) sc = NULL;
  g_autoptr(LbImage) img = NULL;
  g_autoptr(LbImage) back = NULL;
  g_autoptr(GBytes) file = NULL;
  g_autoptr(GError) error = NULL;
  guint8 *px;
  gsize stride;
  GBytes *pd;

  lb_dicom_dataset_set_string (src, LB_TAG_STUDY_INSTANCE_UID, "UI", "1.2.3.4");
  /* 3×2 RGBA: the alpha must go, the colour must stay. */
  px = lb_image_alloc_pixels (3, 2, LB_FORMAT_RGBA8, NULL, &stride, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 6 * 4; i++)
    px[i] = (guint8) (i * 7 + 1);
  img = lb_image_new_take (3, 2, LB_FORMAT_RGBA8, stride, px, NULL);
  sc = lb_dicom_build_secondary_capture (img, src, NULL, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (lb_dicom_dataset_get_string (sc, LB_TAG_PHOTOMETRIC, 0), ==, "RGB");
  g_assert_cmpstr (lb_dicom_dataset_get_string (sc, LB_TAG_SAMPLES_PER_PIXEL, 0), ==, "3");
  g_assert_cmpstr (lb_dicom_dataset_get_vr (sc, LB_TAG_PIXEL_DATA), ==, "OB");
  /* empty type-2 attributes are present */
  g_assert_true (lb_dicom_dataset_has (sc, LB_TAG_PATIENT_NAME));
  g_assert_null (lb_dicom_dataset_get_string (sc, LB_TAG_PATIENT_NAME, 0));
  g_assert_false (lb_dicom_dataset_has (sc, LB_TAG_RESCALE_SLOPE));

  /* decoding what we would send gives the pixels without alpha */
  pd = lb_dicom_dataset_get_bytes (sc, LB_TAG_PIXEL_DATA);
  g_assert_cmpuint (g_bytes_get_size (pd), ==, 18);
  back = lb_dicom_decode_frame (sc, NULL, pd, "sc", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (lb_image_get_format (back), ==, LB_FORMAT_RGB8);
  for (guint i = 0; i < 6; i++)
    for (guint c = 0; c < 3; c++)
      g_assert_cmpuint (lb_image_get_data (back)[i * 3 + c], ==,
                        lb_image_get_data (img)[i * 4 + c]);

  file = lb_dicom_write_part10 (sc, &error);
  g_assert_no_error (error);
  /* odd-length pixel data (18 is even; 3×1 would be 9) is covered by the writer's padding:
   * the total length stays even */
  g_assert_cmpuint (g_bytes_get_size (file) % 2, ==, 0);
}

static void
test_writer_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LbDicomDataset) ds = lb_dicom_dataset_new ();
  g_autoptr(LbDicomDataset) nostudy = lb_dicom_dataset_new ();
  g_autoptr(GBytes) out = NULL;
  g_autoptr(LbImage) img = NULL;
  g_autoptr(LbDicomDataset) sc = NULL;
  g_autofree char *long_text = g_strnfill (70000, 'x');
  guint8 *px;
  gsize stride;

  out = lb_dicom_write_part10 (ds, &error);
  g_assert_null (out);
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  lb_dicom_dataset_set_string (ds, LB_TAG_SOP_CLASS_UID, "UI", "1.2");
  lb_dicom_dataset_set_string (ds, LB_TAG_SOP_INSTANCE_UID, "UI", "1.2.3");
  lb_dicom_dataset_set_string (ds, LB_TAG_ROWS, "US", "abc");
  out = lb_dicom_write_part10 (ds, &error);
  g_assert_null (out);
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "(0028,0010)"));
  g_clear_error (&error);

  lb_dicom_dataset_set_string (ds, LB_TAG_ROWS, "US", "70000");
  out = lb_dicom_write_part10 (ds, &error);
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "out of range"));
  g_clear_error (&error);
  lb_dicom_dataset_remove (ds, LB_TAG_ROWS);

  lb_dicom_dataset_set_string (ds, LB_TAG_STUDY_DESCRIPTION, "LO", long_text);
  out = lb_dicom_write_part10 (ds, &error);
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "(0008,1030)"));
  g_clear_error (&error);

  px = lb_image_alloc_pixels (1, 1, LB_FORMAT_GRAY8, NULL, &stride, &error);
  px[0] = 0;
  img = lb_image_new_take (1, 1, LB_FORMAT_GRAY8, stride, px, NULL);
  sc = lb_dicom_build_secondary_capture (img, nostudy, "x", 1, &error);
  g_assert_null (sc);
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "StudyInstanceUID"));
}

static void
test_format_ds (void)
{
  static const double values[] = { 0, 1, -1024, 0.661468, 0.1, 1e-300, -123456789.123456789,
                                   3.14159265358979 };

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autofree char *s = lb_dicom_format_ds (values[i]);

      g_assert_cmpuint (strlen (s), <=, 16);
      /* within what 16 characters can hold */
      g_assert_cmpfloat_with_epsilon (g_ascii_strtod (s, NULL), values[i],
                                      MAX (1e-9, fabs (values[i]) * 1e-10));
    }
  {
    g_autofree char *s = lb_dicom_format_ds (0.661468);

    g_assert_cmpstr (s, ==, "0.661468");
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/dicom/writer/uid", test_uid);
  g_test_add_func ("/dicom/writer/secondary-capture", test_secondary_capture);
  g_test_add_func ("/dicom/writer/rgb-alpha", test_rgb_and_alpha);
  g_test_add_func ("/dicom/writer/errors", test_writer_errors);
  g_test_add_func ("/dicom/writer/format-ds", test_format_ds);
  return g_test_run ();
}
