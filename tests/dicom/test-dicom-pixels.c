/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The Part 10 reader's frames and decoded pixels against pydicom + numpy, for every file in
 * tests/data/dicom: pixel-reference.py writes what pydicom finds (each frame's fragments, the
 * pixel array as stored, the stored values masked and sign-extended by PS3.5 §8.1.1), and each
 * test compares one file:
 *   - pydicom finds no frames: the reader gives none either, with an error that names the file;
 *   - encapsulated: each frame's bytes equal pydicom's generate_pixel_data_frame();
 *   - native: each frame's bytes, unpacked here by BitsAllocated, byte order and planar
 *     configuration, equal pydicom's pixel_array;
 *   - every frame decodes to the stored values (or is refused as unsupported: no codec yet,
 *     1-bit and 32-bit samples, YBR), and lb_image_load_file() gives what frame 1 decodes to. */
#include <gio/gio.h>
#include <string.h>
#include <sys/wait.h>

#include "lb-test-files.h"
#include "lb-dicom-file.h"
#include "lb-dicom-tags.h"
#include "lb-dicom-transfer-syntax.h"
#include "lb-error.h"
#include "lb-image-loader.h"

static char *ref_dir;    /* pixel-reference.py's output */
static char *data_dir;   /* tests/data/dicom */

/* The stored value a decoded sample stands for: a signed source is held with the value
 * model's sample offset (lb-value-model.h). */
static gint64
sample_to_stored (LbImage *image, guint32 sample)
{
  LbValueModel *model = lb_image_meta_get_value_model (lb_image_get_meta (image));

  return model ? lb_value_model_sample_to_stored (model, sample) : sample;
}

static GBytes *
load (const char *dir, const char *name, const char *ext)
{
  g_autofree char *base = g_strconcat (name, ext, NULL);
  g_autofree char *path = g_build_filename (dir, base, NULL);
  g_autoptr(GMappedFile) mapped = g_mapped_file_new (path, FALSE, NULL);

  return mapped ? g_mapped_file_get_bytes (mapped) : NULL;
}

static guint
ini_uint (GKeyFile *ini, const char *key)
{
  g_autoptr(GError) error = NULL;
  guint v = (guint) g_key_file_get_uint64 (ini, "pixels", key, &error);

  g_assert_no_error (error);
  return v;
}

/* Sample @i (pixel-major, samples interleaved) of a native frame as stored, unsigned. */
static guint64
native_sample (const guint8 *d, gsize len, guint64 i, GKeyFile *ini, gboolean big)
{
  guint alloc = ini_uint (ini, "bits_allocated");
  guint spp = ini_uint (ini, "samples");
  guint64 npix = (guint64) ini_uint (ini, "rows") * ini_uint (ini, "columns");
  g_autofree char *pi = g_key_file_get_string (ini, "pixels", "photometric", NULL);
  guint64 idx = i;
  guint bytes = alloc / 8;
  guint64 v = 0;

  if (alloc == 1)
    {
      g_assert_cmpuint (i / 8, <, len);
      return (d[i / 8] >> (i % 8)) & 1; /* first pixel in the least significant bit */
    }
  if (spp == 3 && g_str_has_suffix (pi, "_422"))
    {
      /* Y0 Y1 Cb Cr for each pair of pixels; pydicom gives each pixel its pair's Cb Cr */
      guint64 pixel = i / 3, c = i % 3, pair = pixel / 2;

      idx = c == 0 ? pair * 4 + pixel % 2 : pair * 4 + 1 + c;
    }
  else if (spp > 1 && ini_uint (ini, "planar") == 1)
    idx = (i % spp) * npix + i / spp;
  g_assert_cmpuint ((idx + 1) * bytes, <=, len);
  for (guint k = 0; k < bytes; k++)
    v |= (guint64) d[idx * bytes + (big ? bytes - 1 - k : k)] << (8 * k);
  return v;
}

static guint64
raw_at (const guint8 *raw, guint64 i, guint alloc)
{
  guint bytes = alloc <= 8 ? 1 : alloc / 8;
  guint64 v = 0;

  for (guint k = 0; k < bytes; k++)
    v |= (guint64) raw[i * bytes + k] << (8 * k);
  return v;
}

static gboolean
lossless (const char *ts)
{
  LbDicomTransferSyntaxFlags flags;
  static const char *const lossless_encapsulated[] = {
    "1.2.840.10008.1.2.4.57", "1.2.840.10008.1.2.4.70", "1.2.840.10008.1.2.4.80",
    "1.2.840.10008.1.2.4.90", "1.2.840.10008.1.2.5", "1.2.840.10008.1.2.1.98",
  };

  if (lb_dicom_transfer_syntax_lookup (ts, &flags) && !(flags & LB_DICOM_TS_ENCAPSULATED))
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (lossless_encapsulated); i++)
    if (strcmp (ts, lossless_encapsulated[i]) == 0)
      return TRUE;
  return FALSE;
}

static void
check_decoded (LbImage *image, GBytes *values, guint frame, GKeyFile *ini)
{
  guint rows = ini_uint (ini, "rows"), cols = ini_uint (ini, "columns");
  guint spp = ini_uint (ini, "samples");
  guint64 per_frame = (guint64) rows * cols * spp;
  const gint64 *want = g_bytes_get_data (values, NULL);
  LbSampleFormat format = lb_image_get_format (image);
  guint channels = lb_sample_format_get_channels (format);
  guint depth = lb_sample_format_get_bit_depth (format);
  guint wrong = 0;

  g_assert_cmpuint (g_bytes_get_size (values), >=, (frame + 1) * per_frame * sizeof (gint64));
  g_assert_cmpuint (lb_image_get_width (image), ==, cols);
  g_assert_cmpuint (lb_image_get_height (image), ==, rows);
  g_assert_cmpuint (channels, ==, spp);
  for (guint y = 0; y < rows; y++)
    {
      const guint8 *row = lb_image_get_row (image, y);

      for (guint x = 0; x < cols; x++)
        for (guint c = 0; c < spp; c++)
          {
            gsize k = (gsize) x * channels + c;
            guint32 s = depth == 8 ? row[k] : ((const guint16 *) row)[k];
            gint64 w = want[frame * per_frame + ((guint64) y * cols + x) * spp + c];

            if (sample_to_stored (image, s) != w && wrong++ < 5)
              g_test_message ("frame %u (%u,%u) sample %u: decoded %" G_GINT64_FORMAT
                              ", pydicom %" G_GINT64_FORMAT, frame + 1, x, y, c,
                              sample_to_stored (image, s), w);
          }
    }
  g_assert_cmpuint (wrong, ==, 0);
}

static void
test_file (gconstpointer data)
{
  const char *file = data;
  g_autofree char *name = g_strndup (file, strlen (file) - 4);
  g_autofree char *path = g_build_filename (data_dir, file, NULL);
  g_autofree char *ini_name = g_strconcat (name, ".ini", NULL);
  g_autofree char *ini_path = g_build_filename (ref_dir, ini_name, NULL);
  g_autoptr(GKeyFile) ini = g_key_file_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(LbDicomFile) dcm = NULL;
  g_autoptr(GBytes) frames = load (ref_dir, name, ".frames");
  g_autoptr(GBytes) raw = load (ref_dir, name, ".raw");
  g_autoptr(GBytes) values = load (ref_dir, name, ".values");
  g_autoptr(LbImage) first = NULL;
  g_autoptr(LbImage) loaded = NULL;
  g_autoptr(GError) first_error = NULL;
  g_autoptr(GError) load_error = NULL;
  g_autofree char *ts = NULL;
  guint n_frames, decoded = 0, refused = 0;
  gsize frames_off = 0;

  g_assert_true (g_key_file_load_from_file (ini, ini_path, G_KEY_FILE_NONE, &error));
  dcm = lb_dicom_file_new_for_path (path, LB_DICOM_READ_DEFAULT, NULL, &error);

  if (g_key_file_has_key (ini, "pixels", "error", NULL)
      || (raw == NULL && frames == NULL))
    {
      /* pydicom finds no frames (or cannot read the pixel data at all) */
      if (dcm == NULL)
        {
          g_assert_nonnull (error);
          g_assert_true (error->domain == LB_ERROR);
          g_test_message ("refused: %s", error->message);
          g_assert_nonnull (strstr (error->message, file));
        }
      else if (!lb_dicom_file_check_pixels (dcm, &error))
        {
          g_test_message ("no frames: %s", error->message);
          g_assert_true (error->domain == LB_ERROR);
          g_assert_nonnull (strstr (error->message, file));
          g_assert_cmpuint (lb_dicom_file_get_n_frames (dcm), ==, 0);
        }
      else
        g_error ("%s: pydicom finds no frames, the reader finds %u", file,
                 lb_dicom_file_get_n_frames (dcm));
      return;
    }

  g_assert_no_error (error);
  g_assert_nonnull (dcm);
  g_assert_true (lb_dicom_file_check_pixels (dcm, &error));
  n_frames = lb_dicom_file_get_n_frames (dcm);
  g_assert_cmpuint (n_frames, ==, ini_uint (ini, "frames"));
  ts = g_strdup (lb_dicom_file_get_transfer_syntax (dcm));

  for (guint f = 0; f < n_frames; f++)
    {
      g_autoptr(GBytes) frame = lb_dicom_file_dup_frame (dcm, f, &error);
      g_autoptr(LbImage) image = NULL;
      g_autoptr(GError) decode_error = NULL;
      gsize len;
      const guint8 *d;

      g_assert_no_error (error);
      d = g_bytes_get_data (frame, &len);
      if (frames != NULL)
        {
          /* encapsulated: the same fragments make the same frame */
          g_autofree char *list = g_key_file_get_string (ini, "pixels", "frame_lengths", NULL);
          g_auto(GStrv) lengths = g_strsplit (list, ",", -1);
          gsize want;

          g_assert_cmpuint (f, <, g_strv_length (lengths));
          want = g_ascii_strtoull (lengths[f], NULL, 10);

          g_assert_true (lb_dicom_file_is_encapsulated (dcm));
          g_assert_cmpuint (len, ==, want);
          g_assert_cmpmem (d, len, (const guint8 *) g_bytes_get_data (frames, NULL) + frames_off,
                           want);
          frames_off += want;
        }
      else
        {
          guint64 per_frame = (guint64) ini_uint (ini, "rows") * ini_uint (ini, "columns")
                              * ini_uint (ini, "samples");
          guint alloc = ini_uint (ini, "bits_allocated");
          gboolean big = strcmp (ts, "1.2.840.10008.1.2.2") == 0;
          const guint8 *r = g_bytes_get_data (raw, NULL);

          g_assert_false (lb_dicom_file_is_encapsulated (dcm));
          for (guint64 i = 0; i < per_frame; i++)
            {
              guint64 mine = native_sample (d, len, i, ini, big);
              guint64 theirs = raw_at (r, f * per_frame + i, alloc);

              if (mine != theirs)
                g_error ("%s frame %u sample %" G_GUINT64_FORMAT ": the reader %" G_GUINT64_FORMAT
                         ", pydicom %" G_GUINT64_FORMAT, file, f + 1, i, mine, theirs);
            }
        }

      image = lb_dicom_file_decode_frame (dcm, f, NULL, &decode_error);
      if (image == NULL)
        {
          /* what no decoder handles yet must say so, never fail otherwise */
          g_assert_error (decode_error, LB_ERROR, LB_ERROR_UNSUPPORTED);
          g_assert_nonnull (strstr (decode_error->message, file));
          if (f == 0)
            g_test_message ("frame 1 not decoded: %s", decode_error->message);
          refused++;
          continue;
        }
      decoded++;
      {
        g_autofree char *pi = g_key_file_get_string (ini, "pixels", "photometric", NULL);

        /* pydicom leaves YBR as YBR; a decoder converts it to RGB */
        if (values != NULL && lossless (ts) && !g_str_has_prefix (pi, "YBR")
            && ini_uint (ini, "decoded_samples") == ini_uint (ini, "samples"))
          check_decoded (image, values, f, ini);
      }
    }
  g_test_message ("%u frames: %u decoded, %u refused as unsupported", n_frames, decoded, refused);

  /* the image loader path (files, stores, the CLI) gives frame 1 */
  first = lb_dicom_file_decode_frame (dcm, 0, NULL, &first_error);
  loaded = lb_image_load_file (path, NULL, &load_error);
  g_assert_true ((first == NULL) == (loaded == NULL));
  if (first != NULL)
    g_assert_true (lb_image_equal_pixels (first, loaded));
  else
    g_assert_cmpint (first_error->code, ==, load_error->code);
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

int
main (int argc, char **argv)
{
  g_autofree char *script = NULL;
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GError) error = NULL;
  const char *entry;
  int status = 0, rc;

  g_test_init (&argc, &argv, NULL);
  lb_dicom_register_image_loader ();
  data_dir = g_build_filename (g_getenv ("LB_TEST_DATA"), "dicom", NULL);
  script = g_build_filename (g_getenv ("LB_SOURCE_ROOT"), "tests", "dicom", "pixel-reference.py",
                             NULL);
  ref_dir = g_dir_make_tmp ("lb-dicom-pixels-XXXXXX", &error);
  g_assert_no_error (error);

  dir = g_dir_open (data_dir, 0, &error);
  g_assert_no_error (error);
  while ((entry = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (entry, ".dcm"))
      g_ptr_array_add (names, g_strdup (entry));
  g_ptr_array_sort (names, compare_names);

  g_ptr_array_add (args, g_strdup ("/usr/bin/python3"));
  g_ptr_array_add (args, g_strdup (script));
  g_ptr_array_add (args, g_strdup (ref_dir));
  for (guint i = 0; i < names->len; i++)
    g_ptr_array_add (args, g_build_filename (data_dir, names->pdata[i], NULL));
  g_ptr_array_add (args, NULL);
  if (!g_spawn_sync (NULL, (char **) args->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL,
                     &status, &error))
    {
      g_test_skip_printf ("cannot run pixel-reference.py: %s", error->message);
      return g_test_run ();
    }
  if (WIFEXITED (status) && WEXITSTATUS (status) == 77)
    {
      g_print ("1..0 # SKIP pydicom and numpy are needed for the reference values\n");
      return 77;
    }
  g_assert_true (g_spawn_check_wait_status (status, &error));

  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *test = g_strconcat ("/dicom/pixels/", (char *) names->pdata[i], NULL);

      g_test_add_data_func (test, names->pdata[i], test_file);
    }
  rc = g_test_run ();

  lb_test_remove_tree (ref_dir);
  return rc;
}
