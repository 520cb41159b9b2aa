/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Bad DICOM input gets a clear error that names the attribute and the value, and nothing else
 * happens: no crash, no allocation of what a file merely claims (run it under ASan). The files
 * come from make-bad-files.py (pydicom variants of a good CT, and bombs built byte by byte);
 * a good CT cut at every 37th byte must be refused cleanly at every cut. */
#include <gio/gio.h>
#include <string.h>
#include <sys/wait.h>

#include "lb-test-files.h"
#include "lb-dicom-file.h"
#include "lb-error.h"
#include "lb-image-loader.h"

static char *bad_dir;

typedef enum {
  AT_OPEN,    /* lb_dicom_file_new_for_path() refuses the file */
  AT_PIXELS,  /* the object reads, its frames do not (lb_dicom_file_check_pixels()) */
  GOOD,       /* valid: @code is the number of frames, @message the bytes of each */
} Stage;

typedef struct {
  const char *file;
  Stage       stage;
  int         code;
  const char *message;
} Case;

static const Case cases[] = {
  { "bits-stored-17.dcm", AT_PIXELS, LB_ERROR_CORRUPT,
    "BitsStored 17 is greater than BitsAllocated 16" },
  { "high-bit-16.dcm", AT_PIXELS, LB_ERROR_CORRUPT,
    "HighBit 16 does not fit BitsStored 16 in BitsAllocated 16" },
  { "short-pixel-data.dcm", AT_PIXELS, LB_ERROR_TRUNCATED,
    "PixelData has 1000 bytes, 128×128×1 frames of 16 bits need 32768" },
  { "absurd-size.dcm", AT_PIXELS, LB_ERROR_TOO_LARGE,
    "Rows 65535 × Columns 65535: Image of 65535×65535 pixels is larger than the limit" },
  { "absurd-frames.dcm", AT_PIXELS, LB_ERROR_TRUNCATED,
    "PixelData has 32768 bytes, 128×128×2147483647 frames of 16 bits need 70368744144896" },
  { "no-rows.dcm", AT_PIXELS, LB_ERROR_CORRUPT, "Rows (0028,0010) is missing" },
  { "unknown-transfer-syntax.dcm", AT_OPEN, LB_ERROR_UNSUPPORTED,
    "unknown transfer syntax 1.2.3" },
  { "nesting-bomb.dcm", AT_OPEN, LB_ERROR_TOO_LARGE,
    "sequence (0040,A730) is nested more than 64 levels deep" },
  { "item-bomb.dcm", AT_OPEN, LB_ERROR_TOO_LARGE, "more than 500000 data elements and items" },
  { "value-bomb.dcm", AT_OPEN, LB_ERROR_TOO_LARGE,
    "more than 4000000 values in the data set (at (0028,0010))" },
  { "huge-length.dcm", AT_OPEN, LB_ERROR_TRUNCATED,
    "element (0009,1010) UN has 4294967280 bytes, only 64 are left" },
  { "deflate-bomb.dcm", AT_OPEN, LB_ERROR_TOO_LARGE,
    "the deflated data set inflates to more than the limit of 1048576 bytes" },
  { "too-few-fragments.dcm", AT_PIXELS, LB_ERROR_CORRUPT,
    "NumberOfFrames 5, but PixelData holds 3 fragments" },
  { "bad-offset-table.dcm", AT_PIXELS, LB_ERROR_CORRUPT,
    "Basic Offset Table entry 1 (offset 12) is not the start of a fragment" },
  { "fragments-unterminated.dcm", AT_OPEN, LB_ERROR_TRUNCATED,
    "PixelData fragment item 3 has 99 bytes, only 0 are left" },
  { "not-dicom.dcm", AT_OPEN, LB_ERROR_UNSUPPORTED, "not a DICOM file" },
  /* valid: which fragments make which frame */
  { "bad-offset-table-markers.dcm", GOOD, 2, "32" },
  { "frames-by-markers.dcm", GOOD, 2, "32" },
  { "frames-by-offset-table.dcm", GOOD, 2, "32" },
  { "frames-by-extended-table.dcm", GOOD, 2, "32" },
};

/* 1 MiB: the deflate bomb inflates to 20 MB */
static const LbLimits small_limits = { 1 << 20, 1 << 20 };

static void
test_case (gconstpointer data)
{
  const Case *c = data;
  g_autofree char *path = g_build_filename (bad_dir, c->file, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbDicomFile) file = lb_dicom_file_new_for_path (path, LB_DICOM_READ_DEFAULT,
                                                            &small_limits, &error);
  g_autoptr(LbImage) image = NULL;
  g_autoptr(GError) load_error = NULL;

  if (c->stage == AT_OPEN)
    {
      g_assert_null (file);
      g_assert_error (error, LB_ERROR, c->code);
    }
  else
    {
      g_assert_no_error (error);
      g_assert_nonnull (file);
      if (c->stage == AT_PIXELS)
        {
          g_assert_false (lb_dicom_file_check_pixels (file, &error));
          g_assert_error (error, LB_ERROR, c->code);
          g_assert_cmpuint (lb_dicom_file_get_n_frames (file), ==, 0);
        }
      else
        {
          g_assert_true (lb_dicom_file_check_pixels (file, &error));
          g_assert_cmpuint (lb_dicom_file_get_n_frames (file), ==, (guint) c->code);
          for (guint f = 0; f < (guint) c->code; f++)
            {
              g_autoptr(GBytes) frame = lb_dicom_file_dup_frame (file, f, &error);

              g_assert_no_error (error);
              g_assert_cmpuint (g_bytes_get_size (frame), ==, g_ascii_strtoull (c->message, NULL, 10));
              /* each frame starts with its codestream's start marker (make-bad-files.py) */
              if (strcmp (c->file, "frames-by-extended-table.dcm") != 0)
                g_assert_cmpmem (g_bytes_get_data (frame, NULL), 2, "\xff\xd8", 2);
            }
          return;
        }
    }
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, c->file));
  g_assert_nonnull (strstr (error->message, c->message));

  /* the image loader (files, stores, CLI) reports the same; with the default limits, as the
   * small ones cap the file it reads into memory first (except where they are the point) */
  image = lb_image_load_file (path, c->code == LB_ERROR_TOO_LARGE
                                    && strstr (c->file, "deflate") ? &small_limits : NULL,
                              &load_error);
  g_assert_null (image);
  g_assert_error (load_error, LB_ERROR, c->code);
  g_assert_nonnull (strstr (load_error->message, c->message));
}

/* A good CT cut short anywhere: refused with an error in LB_ERROR, never decoded from bytes that
 * are not there. */
static void
test_cuts (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("LB_TEST_DATA"), "dicom", "CT_small.dcm",
                                            NULL);
  g_autofree char *whole = NULL;
  gsize len;
  g_autoptr(GError) error = NULL;
  guint refused = 0, read_without_pixels = 0;

  g_assert_true (g_file_get_contents (path, &whole, &len, &error));
  for (gsize cut = 0; cut < len; cut += 37)
    {
      /* an exact-size copy, so that ASan sees any read past the end */
      g_autoptr(GBytes) bytes = g_bytes_new (whole, cut);
      g_autoptr(GError) e1 = NULL;
      g_autoptr(GError) e2 = NULL;
      g_autoptr(LbDicomFile) file = lb_dicom_file_new_from_bytes (bytes, "cut.dcm",
                                                                  LB_DICOM_READ_DEFAULT, NULL, &e1);
      g_autoptr(LbImage) image = lb_image_load_bytes (bytes, "cut.dcm", NULL, &e2);
      g_autoptr(LbDicomFile) header = lb_dicom_file_new_from_bytes (bytes, "cut.dcm",
                                                                    LB_DICOM_READ_HEADER_ONLY,
                                                                    NULL, NULL);

      g_assert_null (image);
      g_assert_nonnull (e2);
      g_assert_true (e2->domain == LB_ERROR);
      g_assert_nonnull (strstr (e2->message, "cut.dcm"));
      if (file == NULL)
        {
          g_assert_true (e1->domain == LB_ERROR);
          refused++;
        }
      else
        {
          /* cut at an element boundary before the pixel data: the rest is simply not there */
          g_assert_false (lb_dicom_file_has_pixel_data (file));
          read_without_pixels++;
        }
      (void) header; /* a prefix is what header-only reads take: it must not crash either */
    }
  g_test_message ("%u cuts refused, %u read without pixel data", refused, read_without_pixels);
  g_assert_cmpuint (refused, >, 0);
}

int
main (int argc, char **argv)
{
  g_autofree char *script = NULL;
  g_autofree char *source = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0, rc;

  g_test_init (&argc, &argv, NULL);
  lb_dicom_register_image_loader ();
  script = g_build_filename (g_getenv ("LB_SOURCE_ROOT"), "tests", "dicom", "make-bad-files.py",
                             NULL);
  source = g_build_filename (g_getenv ("LB_TEST_DATA"), "dicom", "CT_small.dcm", NULL);
  bad_dir = g_dir_make_tmp ("lb-dicom-bad-XXXXXX", &error);
  g_assert_no_error (error);
  {
    const char *argv_py[] = { "/usr/bin/python3", script, bad_dir, source, NULL };

    if (!g_spawn_sync (NULL, (char **) argv_py, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL,
                       &status, &error))
      g_error ("cannot run make-bad-files.py: %s", error->message);
  }
  g_test_add_func ("/dicom/bad-input/cuts", test_cuts);
  if (WIFEXITED (status) && WEXITSTATUS (status) == 77)
    g_test_message ("pydicom is missing: only the cut files are tested");
  else
    {
      g_assert_true (g_spawn_check_wait_status (status, &error));
      for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
        {
          g_autofree char *name = g_strconcat ("/dicom/bad-input/", cases[i].file, NULL);

          g_test_add_data_func (name, &cases[i], test_case);
        }
    }
  rc = g_test_run ();
  lb_test_remove_tree (bad_dir);
  return rc;
}
