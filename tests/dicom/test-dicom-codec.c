/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The codecs of the compressed transfer syntaxes and the colour models, against independent
 * decoders: codec-reference.py decodes pydicom's compressed test files and files it makes
 * with DCMTK, GDCM and pydicom (JPEG baseline/extended/lossless, JPEG-LS, JPEG 2000, RLE;
 * YBR and palette colour) with DCMTK's and GDCM's decoders and pydicom's colour functions;
 * every sample Lightbox decodes must equal theirs, from the frame's bytes (as WADO-RS hands
 * them over) and from the Part 10 file (as a local file opens), where the value model must
 * also say what the file does (signedness, MONOCHROME1, padding, lossy compression). Then
 * damaged and hostile input: each must end in a clear error naming the transfer syntax, never
 * a crash. */
#include <string.h>

#include "lb-dicom-codec.h"
#include "lb-dicom-colour.h"
#include "lb-dicom-file.h"
#include "lb-dicom-frame.h"
#include "lb-dicom-tags.h"
#include "lb-error.h"
#include "lb-image-loader.h"
#include "lb-test-files.h"
#include "lb-test-image.h"
#include "lb-test-process.h"

static char *case_dir;        /* what codec-reference.py wrote */
static GKeyFile *cases;

static LbDicomDataset *
load_case_md (const char *name)
{
  g_autofree char *path = g_strdup_printf ("%s/%s.json", case_dir, name);
  g_autoptr(GBytes) json = lb_test_read_file (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) arr = lb_dicom_json_parse_array (g_bytes_get_data (json, NULL),
                                                        g_bytes_get_size (json), &error);

  g_assert_no_error (error);
  g_assert_cmpuint (arr->len, ==, 1);
  return lb_dicom_dataset_ref (arr->pdata[0]);
}

static GBytes *
load_case_file (const char *name, const char *ext)
{
  g_autofree char *path = g_strdup_printf ("%s/%s.%s", case_dir, name, ext);

  return lb_test_read_file (path);
}

static guint32
sample_at (const guint8 *p, guint bits, gsize i)
{
  if (bits == 8)
    return p[i];
  if (bits == 16)
    return (guint32) p[2 * i] | (guint32) p[2 * i + 1] << 8;
  return (guint32) p[4 * i] | (guint32) p[4 * i + 1] << 8 | (guint32) p[4 * i + 2] << 16
         | (guint32) p[4 * i + 3] << 24;
}

/* Compares @got with the reference samples of @name, masked to @mask_bits; returns the number
 * of samples further apart than the case's tolerance. */
static guint
compare_samples (const char *name, GBytes *got, guint bits, guint mask_bits)
{
  g_autoptr(GBytes) want = load_case_file (name, "expected");
  guint tolerance = (guint) g_key_file_get_integer (cases, name, "tolerance", NULL);
  guint64 mask = mask_bits >= 32 ? G_MAXUINT32 : (G_GUINT64_CONSTANT (1) << mask_bits) - 1;
  gsize n = g_bytes_get_size (want) / (bits / 8);
  const guint8 *g = g_bytes_get_data (got, NULL), *w = g_bytes_get_data (want, NULL);
  guint bad = 0, max_diff = 0;

  g_assert_cmpuint (g_bytes_get_size (got), ==, g_bytes_get_size (want));
  for (gsize i = 0; i < n; i++)
    {
      guint32 a = sample_at (g, bits, i) & mask, b = sample_at (w, bits, i) & mask;
      guint d = a > b ? a - b : b - a;

      max_diff = MAX (max_diff, d);
      if (d > tolerance)
        {
          if (bad < 3)
            g_test_message ("%s: sample %" G_GSIZE_FORMAT ": %u, reference %u", name, i, a, b);
          bad++;
        }
    }
  g_test_message ("%s: %" G_GSIZE_FORMAT " samples, largest difference %u (tolerance %u)", name,
                  n, max_diff, tolerance);
  return bad;
}

static void
check_decompress_case (const char *name, LbDicomDataset *md, const char *ts, GBytes *frame)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) out = lb_dicom_decompress_frame (md, ts, frame, NULL, &error);
  gint64 bits = 0, stored = 0;

  g_assert_no_error (error);
  g_assert_true (lb_dicom_dataset_get_int (md, LB_TAG_BITS_ALLOCATED, 0, &bits));
  if (!lb_dicom_dataset_get_int (md, LB_TAG_BITS_STORED, 0, &stored))
    stored = bits;
  g_assert_cmpint (g_key_file_get_integer (cases, name, "bits", NULL), ==, bits);
  g_assert_cmpuint (compare_samples (name, out, (guint) bits, (guint) stored), ==, 0);
}

/* The colour step through both entry points: lb_dicom_prepare_frame(), and
 * lb_dicom_decode_frame() which ends in an RGB8/RGB16 image of the same samples. */
static void
check_rgb_case (const char *name, LbDicomDataset *md, const char *ts, GBytes *frame)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LbDicomDataset) rgb_md = NULL;
  g_autoptr(GBytes) rgb = NULL;
  g_autoptr(LbImage) img = NULL;
  g_autoptr(GByteArray) rows = g_byte_array_new ();
  g_autoptr(GBytes) packed = NULL;
  const char *out_ts = NULL;
  guint bits = (guint) g_key_file_get_integer (cases, name, "bits", NULL);
  gint64 v;

  g_assert_true (lb_dicom_prepare_frame (md, ts, frame, NULL, &rgb_md, &rgb, &out_ts, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (out_ts, ==, LB_DICOM_TS_EXPLICIT_LE);
  g_assert_cmpstr (lb_dicom_dataset_get_string (rgb_md, LB_TAG_PHOTOMETRIC, 0), ==, "RGB");
  g_assert_true (lb_dicom_dataset_get_int (rgb_md, LB_TAG_BITS_ALLOCATED, 0, &v));
  g_assert_cmpint (v, ==, bits);
  g_assert_cmpuint (compare_samples (name, rgb, bits, bits), ==, 0);

  img = lb_dicom_decode_frame (md, ts, frame, name, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (lb_image_get_format (img), ==, bits == 8 ? LB_FORMAT_RGB8 : LB_FORMAT_RGB16);
  for (guint y = 0; y < lb_image_get_height (img); y++)
    for (guint x = 0; x < lb_image_get_width (img); x++)
      for (guint c = 0; c < 3; c++)
        {
          guint s = lb_test_image_sample (img, x, y, c);
          guint8 le[2] = { (guint8) s, (guint8) (s >> 8) };

          g_byte_array_append (rows, le, bits / 8);
        }
  packed = g_byte_array_free_to_bytes (g_steal_pointer (&rows));
  g_assert_cmpuint (compare_samples (name, packed, bits, bits), ==, 0);
}

static void
test_references (void)
{
  g_auto(GStrv) groups = g_key_file_get_groups (cases, NULL);
  guint n_cases = 0;
  g_autoptr(GHashTable) syntaxes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; groups[i]; i++)
    {
      const char *name = groups[i];
      g_autofree char *kind = g_key_file_get_string (cases, name, "kind", NULL);
      g_autofree char *ts = g_key_file_get_string (cases, name, "transfer_syntax", NULL);
      g_autofree char *ref = g_key_file_get_string (cases, name, "reference", NULL);
      g_autoptr(LbDicomDataset) md = NULL;
      g_autoptr(GBytes) frame = NULL;

      if (strcmp (name, "skipped") == 0)
        continue;
      g_test_message ("%s: %s, %s, against %s", name, kind, ts, ref);
      md = load_case_md (name);
      frame = load_case_file (name, "frame");
      if (strcmp (kind, "decompress") == 0)
        check_decompress_case (name, md, ts, frame);
      else
        check_rgb_case (name, md, ts, frame);
      g_hash_table_add (syntaxes, g_steal_pointer (&ts));
      n_cases++;
    }
  g_test_message ("%u cases in %u transfer syntaxes", n_cases, g_hash_table_size (syntaxes));
  /* every syntax the codecs take has a case (the near-lossless one only unsigned: DCMTK
   * refuses signed near-lossless), and the colour ones too */
  for (const char *const *ts = (const char *const[]) { LB_DICOM_TS_JPEG_BASELINE,
                                                        LB_DICOM_TS_JPEG_EXTENDED,
                                                        LB_DICOM_TS_JPEG_LOSSLESS,
                                                        LB_DICOM_TS_JPEG_LOSSLESS_SV1,
                                                        LB_DICOM_TS_JPEG_LS_LOSSLESS,
                                                        LB_DICOM_TS_JPEG_LS_NEAR,
                                                        LB_DICOM_TS_J2K_LOSSLESS, LB_DICOM_TS_J2K,
                                                        LB_DICOM_TS_RLE, NULL }; *ts; ts++)
    g_assert_true (g_hash_table_contains (syntaxes, *ts));
  g_assert_cmpuint (n_cases, >=, 60);
}

/* --- the same cases as Part 10 files ------------------------------------------------------- */

/* The image's samples as little-endian words of @bits, in the stored-value domain for grey
 * images (sample − the value model's offset), masked to @mask_bits. */
static GBytes *
image_samples (LbImage *img, guint bits, guint mask_bits)
{
  LbValueModel *model = lb_image_meta_get_value_model (lb_image_get_meta (img));
  guint channels = lb_sample_format_get_channels (lb_image_get_format (img));
  guint32 mask = mask_bits >= 32 ? G_MAXUINT32 : (1u << mask_bits) - 1;
  GByteArray *out = g_byte_array_new ();

  for (guint y = 0; y < lb_image_get_height (img); y++)
    for (guint x = 0; x < lb_image_get_width (img); x++)
      for (guint c = 0; c < channels; c++)
        {
          guint s = lb_test_image_sample (img, x, y, c);
          guint32 v = (guint32) (channels == 1 && model != NULL
                                 ? lb_value_model_sample_to_stored (model, s) : (gint32) s) & mask;
          guint8 le[2] = { (guint8) v, (guint8) (v >> 8) };

          g_byte_array_append (out, le, bits / 8);
        }
  return g_byte_array_free_to_bytes (out);
}

/* What the value model of a grey image says against what codec-reference.py read from the file
 * with pydicom and the PS3.3 table of lossy methods. */
static void
check_value_model (const char *name, LbImage *img)
{
  LbValueModel *model = lb_image_meta_get_value_model (lb_image_get_meta (img));
  g_autofree char *padding = g_key_file_get_string (cases, name, "padding", NULL);
  g_autofree char *method = g_key_file_get_string (cases, name, "lossy_method", NULL);
  const char *ratios = NULL, *methods = NULL;
  guint lo, hi;

  g_assert_nonnull (model);
  g_assert_cmpint (lb_value_model_get_source_signed (model), ==,
                   g_key_file_get_integer (cases, name, "signed", NULL));
  g_assert_cmpint (lb_value_model_get_monochrome1 (model), ==,
                   g_key_file_get_integer (cases, name, "monochrome1", NULL));
  if (padding != NULL)
    {
      g_autofree char *got = NULL;

      g_assert_true (lb_value_model_get_padding (model, &lo, &hi));
      got = g_strdup_printf ("%u %u", lo, hi);
      g_assert_cmpstr (got, ==, padding);
    }
  else
    g_assert_false (lb_value_model_get_padding (model, &lo, &hi));
  if (method != NULL)
    {
      g_assert_true (lb_value_model_get_lossy (model, &ratios, &methods));
      g_assert_cmpstr (methods ? methods : "", ==, method);
    }
  else
    g_assert_false (lb_value_model_get_lossy (model, &ratios, &methods));
}

/* Every case again, from its Part 10 file: lb_dicom_file_decode_frame() (the reader) and, for
 * frame 1, lb_image_load_file() (the image loader that the CLI, the local-folder store and the
 * workstation use) give the reference samples, and grey images the value model the file
 * describes. Compressed frames whose colour model is converted (YBR, PALETTE COLOR) are checked
 * by their "rgb" case. */
static void
test_part10 (void)
{
  g_auto(GStrv) groups = g_key_file_get_groups (cases, NULL);
  guint n_files = 0, n_models = 0, n_lossy = 0;

  for (guint i = 0; groups[i]; i++)
    {
      const char *name = groups[i];
      g_autofree char *kind = g_key_file_get_string (cases, name, "kind", NULL);
      g_autofree char *path = g_key_file_get_string (cases, name, "file", NULL);
      g_autofree char *pi = g_key_file_get_string (cases, name, "photometric", NULL);
      guint bits = (guint) g_key_file_get_integer (cases, name, "bits", NULL);
      guint frame = (guint) g_key_file_get_integer (cases, name, "frame", NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(LbDicomFile) dcm = NULL;
      g_autoptr(LbImage) img = NULL;
      g_autoptr(GBytes) got = NULL;
      guint mask_bits = bits;
      gboolean grey;

      if (strcmp (name, "skipped") == 0
          || (strcmp (kind, "decompress") == 0
              && (g_str_has_prefix (pi, "YBR") || strcmp (pi, "PALETTE COLOR") == 0)))
        continue;
      dcm = lb_dicom_file_new_for_path (path, LB_DICOM_READ_DEFAULT, NULL, &error);
      g_assert_no_error (error);
      img = lb_dicom_file_decode_frame (dcm, frame, NULL, &error);
      if (bits == 32)
        {
          /* the codec decodes 32-bit RLE; images hold 8 and 16 bits */
          g_assert_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED);
          continue;
        }
      g_assert_no_error (error);
      grey = lb_sample_format_get_channels (lb_image_get_format (img)) == 1;
      if (grey)
        {
          gint64 stored = bits;

          lb_dicom_dataset_get_int (lb_dicom_file_get_dataset (dcm), LB_TAG_BITS_STORED, 0,
                                    &stored);
          mask_bits = (guint) stored;
          check_value_model (name, img);
          n_models++;
          if (g_key_file_has_key (cases, name, "lossy_method", NULL))
            n_lossy++;
        }
      got = image_samples (img, bits, mask_bits);
      g_assert_cmpuint (compare_samples (name, got, bits, mask_bits), ==, 0);
      if (frame == 0)
        {
          g_autoptr(LbImage) loaded = lb_image_load_file (path, NULL, &error);

          g_assert_no_error (error);
          g_assert_true (lb_image_equal_pixels (loaded, img));
        }
      n_files++;
    }
  g_test_message ("%u Part 10 files, %u grey with their value model (%u lossy)", n_files,
                  n_models, n_lossy);
  g_assert_cmpuint (n_files, >=, 50);
  g_assert_cmpuint (n_lossy, >=, 5);
}

/* --- bad input ----------------------------------------------------------------------------- */

static LbDicomDataset *
copy_with_size (LbDicomDataset *md, guint rows, guint cols)
{
  LbDicomDataset *c = lb_dicom_dataset_new ();
  guint n;
  g_autofree guint32 *tags = lb_dicom_dataset_get_tags (md, &n);

  for (guint i = 0; i < n; i++)
    lb_dicom_dataset_copy_element (c, md, tags[i]);
  lb_dicom_dataset_set_uint (c, LB_TAG_ROWS, "US", rows);
  lb_dicom_dataset_set_uint (c, LB_TAG_COLUMNS, "US", cols);
  return c;
}

static void
expect_error (LbDicomDataset *md, const char *ts, GBytes *frame, const LbLimits *limits,
              int code, const char *what)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) out = lb_dicom_decompress_frame (md, ts, frame, limits, &error);

  g_test_message ("%s: %s", what, error ? error->message : "(decoded)");
  g_assert_null (out);
  if (code >= 0)
    g_assert_error (error, LB_ERROR, code);
  else
    g_assert_true (error != NULL && error->domain == LB_ERROR);
  /* the message names the transfer syntax */
  g_assert_nonnull (strstr (error->message, ts));
}

/* Damage a decoder may read past (IJG skips junk before a marker, as DCMTK's and GDCM's do):
 * either a clear error, or exactly the reference samples. */
static void
expect_error_or_same (const char *name, LbDicomDataset *md, const char *ts, GBytes *frame,
                      const char *what)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) out = lb_dicom_decompress_frame (md, ts, frame, NULL, &error);
  gint64 bits = 0, stored = 0;

  g_test_message ("%s: %s", what, error ? error->message : "(decoded)");
  if (out == NULL)
    {
      g_assert_true (error != NULL && error->domain == LB_ERROR);
      g_assert_nonnull (strstr (error->message, ts));
      return;
    }
  g_assert_true (lb_dicom_dataset_get_int (md, LB_TAG_BITS_ALLOCATED, 0, &bits));
  if (!lb_dicom_dataset_get_int (md, LB_TAG_BITS_STORED, 0, &stored))
    stored = bits;
  g_assert_cmpuint (compare_samples (name, out, (guint) bits, (guint) stored), ==, 0);
}

/* One case of each syntax: its frame cut short, its size contradicted, over the limits, and
 * its bytes replaced by noise. */
static void
test_damaged (void)
{
  static const char *const names[] = {
    "JPEG-lossy", "SC_rgb_jpeg_dcmtk", "CT_small_jpeg_lossless_sv1",
    "CT_small_jpeg_lossless_p14_sv6", "CT12_jpeg_extended", "MR_small_jpeg_ls_lossless",
    "CT12_jpegls_near2", "MR_small_jp2klossless", "693_J2KI", "MR_small_RLE", "SC_rgb_rle",
    "RGB_jpegls_none",
  };
  LbLimits small = { 1000, 1 << 20 };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *ts = NULL;
      g_autoptr(LbDicomDataset) md = NULL, wrong = NULL;
      g_autoptr(GBytes) frame = NULL, half = NULL, noise = NULL, stray = NULL;
      gsize len;

      if (!g_key_file_has_group (cases, names[i]))
        continue;
      ts = g_key_file_get_string (cases, names[i], "transfer_syntax", NULL);
      md = load_case_md (names[i]);
      frame = load_case_file (names[i], "frame");
      len = g_bytes_get_size (frame);
      half = g_bytes_new_from_bytes (frame, 0, len / 2);
      expect_error (md, ts, half, NULL, -1, "cut in half");
      /* RLE does not record the size: its segments then run short */
      wrong = copy_with_size (md, 300, 280);
      expect_error (wrong, ts, frame, NULL,
                    strcmp (ts, LB_DICOM_TS_RLE) == 0 ? LB_ERROR_TRUNCATED : LB_ERROR_CORRUPT,
                    "another size");
      expect_error (md, ts, frame, &small, LB_ERROR_TOO_LARGE, "over the limits");
      noise = lb_test_bytes (len, 7 + i);
      expect_error (md, ts, noise, NULL, -1, "noise");
      /* two stray bytes after the first marker: GDCM's C++ JPEG codec asserts on this */
      {
        const guint8 *d = g_bytes_get_data (frame, NULL);
        guint8 *s = g_malloc (len + 2);

        memcpy (s, d, 2);
        s[2] = 0x12;
        s[3] = 0x34;
        memcpy (s + 4, d + 2, len - 2);
        stray = g_bytes_new_take (s, len + 2);
        expect_error_or_same (names[i], md, ts, stray, "stray bytes");
      }
    }
}

/* A scan that names one component twice leaves another undecoded: IJG 6b would hand out its
 * uninitialised buffers as that component (fuzzing, under valgrind). */
static void
test_jpeg_scan_components (void)
{
  g_autoptr(LbDicomDataset) md = load_case_md ("RGB_jpeg_lossless");
  g_autoptr(GBytes) frame = load_case_file ("RGB_jpeg_lossless", "frame");
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) out = NULL, bad = NULL;
  gsize len, sos = 2;
  const guint8 *orig = g_bytes_get_data (frame, &len);
  guint8 *d = g_memdup2 (orig, len);

  while (sos + 6 < len && !(d[sos] == 0xFF && d[sos + 1] == 0xDA))
    sos++;
  g_assert_cmpuint (sos + 6, <, len);
  g_assert_cmpuint (d[sos + 4], ==, 3);   /* Ns: one scan of the three components */
  d[sos + 7] = d[sos + 5];                /* the second selector repeats the first */
  bad = g_bytes_new_take (d, len);
  out = lb_dicom_decompress_frame (md, LB_DICOM_TS_JPEG_LOSSLESS_SV1, bad, NULL, &error);
  g_test_message ("%s", error ? error->message : "(decoded)");
  g_assert_null (out);
  g_assert_error (error, LB_ERROR, LB_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, "twice"));
}

static void
test_unsupported (void)
{
  g_autoptr(LbDicomDataset) md = load_case_md ("MR_small_RLE");
  g_autoptr(GBytes) frame = load_case_file ("MR_small_RLE", "frame");
  g_autoptr(GError) error = NULL;
  g_autoptr(LbImage) img = NULL;
  /* MPEG2 Main Profile @ Main Level: valid DICOM, not decoded by Lightbox */
  g_autoptr(GBytes) out = lb_dicom_decompress_frame (md, "1.2.840.10008.1.2.4.100", frame, NULL,
                                                     &error);

  g_assert_null (out);
  g_assert_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "1.2.840.10008.1.2.4.100"));
  g_clear_error (&error);
  img = lb_dicom_decode_frame (md, "1.2.840.10008.1.2.4.100", frame, "mpeg", NULL, &error);
  g_assert_null (img);
  g_assert_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED);
  g_assert_true (g_str_has_prefix (error->message, "mpeg: "));
  g_assert_true (lb_dicom_codec_supports (LB_DICOM_TS_RLE));
  g_assert_false (lb_dicom_codec_supports (LB_DICOM_TS_EXPLICIT_LE));
  g_assert_nonnull (strstr (error->message, "MPEG2 Main Profile / Main Level"));
}

typedef struct {
  LbDicomDataset *md;
  GBytes *frame;
  int code;
  const char *why;
} ColourCase;

static void
test_colour_errors (void)
{
  g_autoptr(LbDicomDataset) pal = load_case_md ("PALETTE_hotiron_8bit");
  g_autoptr(GBytes) pal_frame = load_case_file ("PALETTE_hotiron_8bit", "frame");
  g_autoptr(LbDicomDataset) ybr = load_case_md ("SC_ybr_full_422_uncompressed");
  g_autoptr(GBytes) ybr_frame = load_case_file ("SC_ybr_full_422_uncompressed", "frame");
  ColourCase cases_[6];
  guint n = 0;
  GBytes *table = lb_dicom_dataset_get_bytes (pal, LB_TAG_GREEN_PALETTE_DATA);

  g_assert_nonnull (table);
  /* no green table */
  cases_[n] = (ColourCase) { copy_with_size (pal, 64, 80), g_bytes_ref (pal_frame),
                                     LB_ERROR_CORRUPT, "no green table" };
  lb_dicom_dataset_remove (cases_[n++].md, LB_TAG_GREEN_PALETTE_DATA);
  /* a table shorter than its descriptor */
  cases_[n] = (ColourCase) { copy_with_size (pal, 64, 80), g_bytes_ref (pal_frame),
                                     LB_ERROR_TRUNCATED, "short table" };
  {
    g_autoptr(GBytes) short_table = g_bytes_new_from_bytes (table, 0, 100);

    lb_dicom_dataset_set_bytes (cases_[n++].md, LB_TAG_BLUE_PALETTE_DATA, "OW", short_table);
  }
  /* descriptor with 24-bit entries */
  cases_[n] = (ColourCase) { copy_with_size (pal, 64, 80), g_bytes_ref (pal_frame),
                                     LB_ERROR_CORRUPT, "24-bit entries" };
  lb_dicom_dataset_set_string (cases_[n++].md, LB_TAG_RED_PALETTE_DESCRIPTOR, "US", "256\\0\\24");
  /* a short index frame */
  cases_[n] = (ColourCase) { copy_with_size (pal, 64, 80),
                                     g_bytes_new_from_bytes (pal_frame, 0, 99),
                                     LB_ERROR_TRUNCATED, "short frame" };
  n++;
  /* 4:2:2 with an odd number of columns */
  cases_[n] = (ColourCase) { copy_with_size (ybr, 100, 99), g_bytes_ref (ybr_frame),
                                     LB_ERROR_CORRUPT, "odd 4:2:2" };
  n++;
  /* 4:2:2 frame of half the size it needs */
  cases_[n] = (ColourCase) { copy_with_size (ybr, 100, 100),
                                     g_bytes_new_from_bytes (ybr_frame, 0,
                                                             g_bytes_get_size (ybr_frame) / 2),
                                     LB_ERROR_TRUNCATED, "short 4:2:2" };
  n++;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(LbImage) img = lb_dicom_decode_frame (cases_[i].md, NULL, cases_[i].frame,
                                                      "colour", NULL, &error);

      g_test_message ("%s: %s", cases_[i].why, error ? error->message : "(decoded)");
      g_assert_null (img);
      g_assert_error (error, LB_ERROR, cases_[i].code);
      lb_dicom_dataset_unref (cases_[i].md);
      g_bytes_unref (cases_[i].frame);
    }
}

int
main (int argc, char **argv)
{
  g_autofree char *script = NULL;
  g_autofree char *out = NULL, *err = NULL;
  int status = 1, rc;

  g_test_init (&argc, &argv, NULL);
  lb_dicom_register_image_loader ();
  script = lb_test_build_path ("LB_SOURCE_ROOT", "tests", "dicom", "codec-reference.py", NULL);
  if (!g_file_test ("/usr/lib/python3/dist-packages/pydicom/data/test_files/CT_small.dcm",
                    G_FILE_TEST_EXISTS) || !lb_test_have_program ("dcmdjpeg"))
    {
      g_print ("SKIP: python3-pydicom's test files or DCMTK are not installed\n");
      return 77;
    }
  case_dir = lb_test_make_tmpdir ("codec");
  out = lb_test_run_tool ((const char *const[]) { "/usr/bin/python3", script, case_dir, NULL },
                          &err, &status);
  if (status != 0)
    g_error ("codec-reference.py failed:\n%s\n%s", out, err);
  g_test_message ("codec-reference.py: %s", out);
  cases = g_key_file_new ();
  {
    g_autofree char *ini = g_build_filename (case_dir, "cases.ini", NULL);
    g_autoptr(GError) error = NULL;

    g_key_file_load_from_file (cases, ini, G_KEY_FILE_NONE, &error);
    g_assert_no_error (error);
  }

  g_test_add_func ("/dicom-codec/references", test_references);
  g_test_add_func ("/dicom-codec/part10", test_part10);
  g_test_add_func ("/dicom-codec/damaged", test_damaged);
  g_test_add_func ("/dicom-codec/jpeg-scan-components", test_jpeg_scan_components);
  g_test_add_func ("/dicom-codec/unsupported", test_unsupported);
  g_test_add_func ("/dicom-codec/colour-errors", test_colour_errors);
  rc = g_test_run ();
  g_key_file_free (cases);
  if (g_getenv ("LB_KEEP_CODEC_CASES") == NULL)
    lb_test_remove_tree (case_dir);
  g_free (case_dir);
  return rc;
}
