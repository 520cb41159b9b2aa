/* SPDX-License-Identifier: GPL-3.0-or-later */
/* PNG decoding and encoding: every PngSuite file against netpbm's independent decoder,
 * corrupt files, truncation at every offset, round trips, and decompression bombs. */
#include <string.h>
#include <sys/resource.h>
#include <zlib.h>

#include <glib/gstdio.h>

#include "lb-error.h"
#include "lb-image-loader.h"
#include "lb-png.h"
#include "lb-test-files.h"
#include "lb-test-image.h"
#include "lb-test-process.h"

static char *suite_dir;

typedef struct {
  guint width, height, depth, maxval;
  guint8 *data; /* owned; samples big-endian 1 or 2 bytes */
  gsize len;
} Pam;

/* Decodes @path with netpbm's pngtopam, which has its own libpng-independent transform logic
 * (expansion, tRNS → alpha), into a PAM with an alpha channel always present. */
static gboolean
run_pngtopam (const char *path, Pam *pam, GError **error)
{
  const char *argv[] = { "pngtopam", "-alphapam", path, NULL };
  gsize out_len = 0;
  g_autoptr (GBytes) bytes = NULL;
  const char *p, *end;
  char *hdr_end;

  {
    g_autoptr (GSubprocess) sp = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                                           | G_SUBPROCESS_FLAGS_STDERR_SILENCE, error);
    if (sp == NULL || !g_subprocess_communicate (sp, NULL, NULL, &bytes, NULL, error))
      return FALSE;
  }
  p = g_bytes_get_data (bytes, &out_len);
  end = p + out_len;
  hdr_end = g_strstr_len (p, MIN (out_len, 512), "ENDHDR\n");
  g_assert_nonnull (hdr_end);
  {
    g_autofree char *hdr = g_strndup (p, hdr_end - p);
    g_auto (GStrv) lines = g_strsplit (hdr, "\n", -1);
    memset (pam, 0, sizeof *pam);
    for (guint i = 0; lines[i]; i++)
      {
        if (g_str_has_prefix (lines[i], "WIDTH "))
          pam->width = atoi (lines[i] + 6);
        else if (g_str_has_prefix (lines[i], "HEIGHT "))
          pam->height = atoi (lines[i] + 7);
        else if (g_str_has_prefix (lines[i], "DEPTH "))
          pam->depth = atoi (lines[i] + 6);
        else if (g_str_has_prefix (lines[i], "MAXVAL "))
          pam->maxval = atoi (lines[i] + 7);
      }
  }
  p = hdr_end + strlen ("ENDHDR\n");
  pam->len = end - p;
  pam->data = g_memdup2 (p, pam->len);
  return TRUE;
}

/* Decodes @path with ImageMagick (its own PNG coder on top of libpng, with its own transform
 * choices) into 16-bit RGBA, gray replicated, opaque alpha where the file has none. */
static guint16 *
run_imagemagick (const char *path, gsize *n_samples, GError **error)
{
  g_autofree char *arg = g_strdup_printf ("png:%s", path);
  const char *argv[] = { lb_test_imagemagick (), arg, "-depth", "16", "-endian", "MSB", "RGBA:-", NULL };
  g_autoptr (GSubprocess) sp = NULL;
  g_autoptr (GBytes) bytes = NULL;
  gsize len;
  const guint8 *p;
  guint16 *out;

  sp = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE, error);
  if (sp == NULL || !g_subprocess_communicate (sp, NULL, NULL, &bytes, NULL, error))
    return NULL;
  p = g_bytes_get_data (bytes, &len);
  *n_samples = len / 2;
  out = g_new (guint16, *n_samples);
  for (gsize i = 0; i < *n_samples; i++)
    out[i] = (p[2 * i] << 8) | p[2 * i + 1];
  return out;
}

static guint
pam_sample (const Pam *pam, gsize index)
{
  if (pam->maxval > 255)
    return (pam->data[2 * index] << 8) | pam->data[2 * index + 1];
  return pam->data[index];
}

static void
compare_with_pngtopam (const char *name)
{
  g_autofree char *path = g_build_filename (suite_dir, name, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (LbImage) image = lb_image_load_file (path, NULL, &error);
  Pam pam = { 0 };
  LbSampleFormat fmt;
  guint ch, our_max, color_ch, mismatches = 0, im_mismatches = 0;

  g_assert_no_error (error);
  g_assert_nonnull (image);
  g_assert_true (run_pngtopam (path, &pam, &error));
  g_assert_no_error (error);

  fmt = lb_image_get_format (image);
  ch = lb_sample_format_get_channels (fmt);
  our_max = lb_sample_format_get_bit_depth (fmt) == 16 ? 65535 : 255;
  color_ch = lb_sample_format_has_alpha (fmt) ? ch - 1 : ch;

  g_assert_cmpuint (lb_image_get_width (image), ==, pam.width);
  g_assert_cmpuint (lb_image_get_height (image), ==, pam.height);
  g_assert_cmpuint (pam.depth, ==, color_ch + 1); /* -alphapam always adds alpha */
  g_assert_cmpuint (pam.len, >=, (gsize) pam.width * pam.height * pam.depth * (pam.maxval > 255 ? 2 : 1));
  /* Low-depth gray is widened by us to 8 bits; netpbm keeps the file's maxval. Both scalings
   * are exact (×255/1, ×255/3, ×255/15). */
  g_assert_cmpuint (our_max % pam.maxval, ==, 0);

  for (guint y = 0; y < pam.height; y++)
    for (guint x = 0; x < pam.width; x++)
      for (guint c = 0; c < pam.depth; c++)
        {
          gsize idx = ((gsize) y * pam.width + x) * pam.depth + c;
          guint expect = pam_sample (&pam, idx) * (our_max / pam.maxval);
          guint got;

          if (c == color_ch) /* alpha: see below */
            continue;
          got = lb_test_image_sample (image, x, y, c);
          if (got != expect && mismatches++ < 5)
            g_test_message ("%s: (%u,%u) channel %u: ours %u, pngtopam %u", name, x, y, c, got, expect);
        }
  g_free (pam.data);

  /* Second oracle for alpha. netpbm 11.1 ignores tRNS on truecolor and gray images (it
   * reports the transparent colour, then writes opaque alpha), so alpha is checked against
   * ImageMagick. Colour is not: ImageMagick applies gAMA to some files on export. */
  {
    gsize n = 0;
    g_autofree guint16 *im = run_imagemagick (path, &n, &error);
    guint scale = our_max == 255 ? 257 : 1;

    g_assert_no_error (error);
    g_assert_cmpuint (n, ==, (gsize) pam.width * pam.height * 4);
    for (guint y = 0; y < pam.height; y++)
      for (guint x = 0; x < pam.width; x++)
        {
          guint expect = im[((gsize) y * pam.width + x) * 4 + 3];
          guint got = lb_sample_format_has_alpha (fmt) ? lb_test_image_sample (image, x, y, ch - 1) * scale : 65535;

          if (got != expect && im_mismatches++ < 5)
            g_test_message ("%s: (%u,%u) alpha: ours %u, ImageMagick %u (16-bit scale)", name, x, y, got, expect);
        }
  }
  if (mismatches || im_mismatches)
    g_test_fail_printf ("%s: %u samples differ from pngtopam, %u from ImageMagick", name, mismatches, im_mismatches);
}

static GPtrArray *
suite_files (gboolean corrupt)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) dir = g_dir_open (suite_dir, 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)))
    if (g_str_has_suffix (name, ".png") && (name[0] == 'x') == corrupt)
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
  return names;
}

static void
test_suite_valid (void)
{
  g_autoptr (GPtrArray) names = suite_files (FALSE);

  g_assert_cmpuint (names->len, >, 150);
  for (guint i = 0; i < names->len; i++)
    compare_with_pngtopam (names->pdata[i]);
}

static void
test_suite_corrupt (void)
{
  g_autoptr (GPtrArray) names = suite_files (TRUE);

  g_assert_cmpuint (names->len, ==, 14);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *path = g_build_filename (suite_dir, names->pdata[i], NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (LbImage) image = lb_image_load_file (path, NULL, &error);

      g_assert_null (image);
      g_assert_error (error, LB_ERROR, error->code);
      /* The message names the file. */
      g_assert_nonnull (strstr (error->message, names->pdata[i]));
      g_test_message ("%s: %s", (char *) names->pdata[i], error->message);
    }
}

static void
test_truncated (void)
{
  const char *files[] = { "basn6a16.png", "basi0g16.png", "basn3p04.png", "basi6a08.png" };

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autofree char *path = g_build_filename (suite_dir, files[f], NULL);
      g_autofree guint8 *data = NULL;
      gsize len;

      g_assert_true (g_file_get_contents (path, (char **) &data, &len, NULL));
      /* Every cut short of the IEND chunk's last byte must be refused: the last 12 bytes are
       * IEND itself (length, type, CRC). */
      for (gsize cut = 0; cut < len - 12; cut++)
        {
          g_autoptr (GBytes) bytes = g_bytes_new_static (data, cut);
          g_autoptr (GError) error = NULL;
          g_autoptr (LbImage) image = lb_image_load_bytes (bytes, files[f], NULL, &error);

          if (image != NULL)
            g_error ("%s cut at %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " bytes was accepted", files[f], cut, len);
          g_assert_nonnull (error);
          g_assert_true (error->domain == LB_ERROR);
        }
      /* Streaming through GInputStream gives the same verdict. */
      {
        g_autoptr (GInputStream) in = g_memory_input_stream_new_from_data (data, len / 2, NULL);
        g_autoptr (GError) error = NULL;
        g_autoptr (LbImage) image = lb_image_load_stream (in, files[f], NULL, NULL, &error);
        g_assert_null (image);
        g_assert_error (error, LB_ERROR, LB_ERROR_TRUNCATED);
      }
    }
}

/* Everything a value model can say, for samples of @bits. */
static LbValueModel *
rich_model (guint bits)
{
  g_autoptr (LbValueModelBuilder) b = lb_value_model_builder_new (NULL, bits);
  const guint16 voi[] = { 0, 100, 4000, 4095 };

  lb_value_model_builder_set_source (b, bits == 16, bits == 16 ? 12 : 8);
  lb_value_model_builder_set_rescale (b, 0.5, -1024.25);
  lb_value_model_builder_set_units (b, "HU");
  lb_value_model_builder_set_padding (b, 3, bits == 16 ? 30000 : 5);
  lb_value_model_builder_add_window (b, 40.0, 400.0, "Soft tissue — UTF-8");
  lb_value_model_builder_add_window (b, -600, 1500, NULL);
  lb_value_model_builder_set_voi_function (b, LB_VOI_SIGMOID);
  lb_value_model_builder_add_voi_lut (b, &(LbValueLut) { -2, 4, 12, voi, "steps" });
  lb_value_model_builder_set_monochrome1 (b, TRUE);
  lb_value_model_builder_set_lossy (b, TRUE, "10\\2.5", "ISO_10918_1\\ISO_15444_1");
  return lb_value_model_builder_end (g_steal_pointer (&b));
}

static LbImage *
random_image (LbSampleFormat format, guint w, guint h, GRand *rand)
{
  gsize stride;
  guint8 *px = lb_image_alloc_pixels (w, h, format, NULL, &stride, NULL);
  g_autoptr (LbImageMeta) meta = lb_image_meta_new ();

  for (gsize i = 0; i < stride * h; i++)
    px[i] = g_rand_int_range (rand, 0, 256);
  lb_image_meta_set_text (meta, "Title", "Round trip");
  lb_image_meta_set_text (meta, "Comment", "Ünïcödé — UTF-8 goes to iTXt");
  lb_image_meta_set_pixel_spacing (meta, 0.661468, 0.25);
  if (lb_sample_format_is_gray (format))
    {
      g_autoptr (LbValueModel) model = rich_model (lb_sample_format_get_bit_depth (format));

      lb_image_meta_set_value_model (meta, model);
    }
  return lb_image_new_take (w, h, format, stride, px, meta);
}

static void
test_round_trip (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (42);

  for (guint f = 0; f < LB_N_FORMATS; f++)
    {
      g_autoptr (LbImage) image = random_image (f, 37, 23, rand);
      g_autoptr (GError) error = NULL;
      g_autoptr (GBytes) png = lb_png_save_to_bytes (image, &error);
      g_autoptr (LbImage) back = NULL;
      const LbImageMeta *meta;
      double a, b;

      g_assert_no_error (error);
      back = lb_png_load_bytes (png, "round trip", NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpint (lb_image_get_format (back), ==, f);
      g_assert_true (lb_image_equal_pixels (image, back));
      meta = lb_image_get_meta (back);
      g_assert_cmpstr (lb_image_meta_get_text (meta, "Title"), ==, "Round trip");
      g_assert_cmpstr (lb_image_meta_get_text (meta, "Comment"), ==, "Ünïcödé — UTF-8 goes to iTXt");
      g_assert_true (lb_image_meta_get_pixel_spacing (meta, &a, &b));
      g_assert_cmpfloat (a, ==, 0.661468); /* exact, not pHYs's whole pixels per metre */
      g_assert_cmpfloat (b, ==, 0.25);
      /* the whole value model, exactly, for grey; none for colour */
      g_assert_true (lb_value_model_equal (lb_image_meta_get_value_model (meta),
                                           lb_image_meta_get_value_model (
                                             lb_image_get_meta (image))));
      g_assert_true ((lb_image_meta_get_value_model (meta) != NULL)
                     == lb_sample_format_is_gray (f));
    }
}

/* Files from before the value model: "lightbox:signed" 1 meant two's-complement samples. They
 * are read as offset binary with the same real-world values. */
static void
test_legacy_value_keys (void)
{
  gsize stride;
  guint8 *px = lb_image_alloc_pixels (4, 1, LB_FORMAT_GRAY16, NULL, &stride, NULL);
  const gint16 stored[] = { -2000, -1, 0, 1200 };
  g_autoptr (LbImageMeta) meta = lb_image_meta_new ();
  g_autoptr (LbImage) old = NULL, back = NULL;
  g_autoptr (GBytes) png = NULL;
  g_autoptr (GError) error = NULL;
  LbValueModel *model;
  double c, w;

  for (guint i = 0; i < 4; i++)
    ((guint16 *) px)[i] = (guint16) stored[i];
  lb_image_meta_set_text (meta, "Modality", "CT");
  lb_image_meta_set_text (meta, "lightbox:signed", "1");
  lb_image_meta_set_text (meta, "lightbox:rescale", "1 -1024");
  lb_image_meta_set_text (meta, "lightbox:window", "40 400");
  old = lb_image_new_take (4, 1, LB_FORMAT_GRAY16, stride, px, meta);
  png = lb_png_save_to_bytes (old, &error);
  g_assert_no_error (error);
  back = lb_png_load_bytes (png, "legacy", NULL, &error);
  g_assert_no_error (error);
  model = lb_image_meta_get_value_model (lb_image_get_meta (back));
  g_assert_nonnull (model);
  g_assert_null (lb_image_meta_get_text (lb_image_get_meta (back), "lightbox:signed"));
  for (guint i = 0; i < 4; i++)
    {
      guint16 sample = ((const guint16 *) lb_image_get_row (back, 0))[i];

      g_assert_cmpuint (sample, ==, stored[i] + 32768);
      g_assert_cmpint (lb_value_model_sample_to_stored (model, sample), ==, stored[i]);
      g_assert_cmpfloat (lb_value_model_to_value (model, sample), ==, stored[i] - 1024.0);
    }
  g_assert_cmpstr (lb_value_model_get_units (model), ==, "HU");
  g_assert_true (lb_value_model_get_window (model, 0, &c, &w, NULL));
  g_assert_cmpfloat (c, ==, 40);
  g_assert_cmpfloat (w, ==, 400);
}

/* A value model that cannot be trusted is an error, not a silently different image. */
static void
test_bad_value_model (void)
{
  gsize stride;
  guint8 *px = lb_image_alloc_pixels (2, 2, LB_FORMAT_GRAY8, NULL, &stride, NULL);
  g_autoptr (LbImageMeta) meta = lb_image_meta_new ();
  g_autoptr (LbImage) img = NULL, back = NULL;
  g_autoptr (GBytes) png = NULL;
  g_autoptr (GError) error = NULL;

  memset (px, 0, stride * 2);
  /* a 16-bit model on 8-bit samples, and a padding beyond them */
  lb_image_meta_set_text (meta, "lightbox:values",
                          "{'version': <uint32 1>, 'sample-bits': <uint32 8>, "
                          "'padding': <(uint32 3, uint32 300)>}");
  img = lb_image_new_take (2, 2, LB_FORMAT_GRAY8, stride, px, meta);
  png = lb_png_save_to_bytes (img, &error);
  g_assert_no_error (error);
  back = lb_png_load_bytes (png, "bad model", NULL, &error);
  g_assert_null (back);
  g_assert_error (error, LB_ERROR, LB_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, "padding"));
}

static void
test_save_file_atomic (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  g_autoptr (LbImage) image = random_image (LB_FORMAT_GRAY16, 64, 64, rand);
  g_autoptr (LbImageMeta) bad_meta = lb_image_meta_new ();
  g_autoptr (LbImage) bad = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = lb_test_make_tmpdir ("png");
  g_autofree char *path = g_build_filename (dir, "out.png", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr (GDir) d = NULL;
  guint entries = 0;

  g_assert_true (lb_png_save_to_file (image, path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &before, NULL, NULL));

  /* A write that fails half-way (an invalid text keyword is detected before any byte, so use
   * a keyword libpng rejects: too long) must leave the old file and no temporary behind. */
  lb_image_meta_set_text (bad_meta, "this keyword is far too long to be a PNG keyword because PNG allows at most seventy-nine", "x");
  bad = lb_image_with_meta (image, bad_meta);
  g_assert_false (lb_png_save_to_file (bad, path, &error));
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_cmpstr (before, ==, after);
  d = g_dir_open (dir, 0, NULL);
  while (g_dir_read_name (d))
    entries++;
  g_assert_cmpuint (entries, ==, 1);
  g_unlink (path);
  g_rmdir (dir);
}

/* A PNG whose IHDR claims @w×@h, with valid CRCs and a tiny IDAT. */
static GBytes *
make_bomb (guint32 w, guint32 h)
{
  GByteArray *a = g_byte_array_new ();
  static const guint8 sig[] = { 137, 80, 78, 71, 13, 10, 26, 10 };
  guint8 ihdr[13];
  guint32 v;

  g_byte_array_append (a, sig, 8);
  v = GUINT32_TO_BE (w);
  memcpy (ihdr, &v, 4);
  v = GUINT32_TO_BE (h);
  memcpy (ihdr + 4, &v, 4);
  ihdr[8] = 8, ihdr[9] = 0, ihdr[10] = 0, ihdr[11] = 0, ihdr[12] = 0;
  {
    guint8 chunk[4 + 4 + 13 + 4];
    guint32 len = GUINT32_TO_BE (13), crc;
    memcpy (chunk, &len, 4);
    memcpy (chunk + 4, "IHDR", 4);
    memcpy (chunk + 8, ihdr, 13);
    crc = GUINT32_TO_BE (crc32 (0, chunk + 4, 17));
    memcpy (chunk + 21, &crc, 4);
    g_byte_array_append (a, chunk, sizeof chunk);
  }
  {
    /* zlib stream of a few zero bytes: a bomb's IDAT would inflate hugely; ours stops at IHDR. */
    guint8 raw[64] = { 0 }, comp[128];
    uLongf clen = sizeof comp;
    guint8 head[8];
    guint32 len, crc;
    compress (comp, &clen, raw, sizeof raw);
    len = GUINT32_TO_BE ((guint32) clen);
    memcpy (head, &len, 4);
    memcpy (head + 4, "IDAT", 4);
    g_byte_array_append (a, head, 8);
    g_byte_array_append (a, comp, clen);
    crc = crc32 (0, (const guint8 *) "IDAT", 4);
    crc = GUINT32_TO_BE (crc32 (crc, comp, clen));
    g_byte_array_append (a, (guint8 *) &crc, 4);
  }
  return g_byte_array_free_to_bytes (a);
}

static void
test_bomb (void)
{
  g_autoptr (GBytes) bomb = make_bomb (100000, 100000);
  g_autoptr (GError) error = NULL;
  g_autoptr (LbImage) image = NULL;
  LbLimits small = { 1 << 20, 1 << 22 };

  image = lb_image_load_bytes (bomb, "bomb.png", NULL, &error);
  g_assert_null (image);
  g_assert_error (error, LB_ERROR, LB_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "bomb.png"));
  g_clear_error (&error);

  /* Configurable limits: 2000×2000 passes the defaults but not a 1 Mpx cap. */
  g_clear_pointer (&bomb, g_bytes_unref);
  bomb = make_bomb (2000, 2000);
  image = lb_image_load_bytes (bomb, "big.png", &small, &error);
  g_assert_null (image);
  g_assert_error (error, LB_ERROR, LB_ERROR_TOO_LARGE);
}

/* Proves that the refusal happens before allocation: in a child whose address space is capped
 * at 256 MiB, the 10 GB claim still fails with TOO_LARGE (an attempted allocation would fail
 * with NO_MEMORY or abort), and lifting our limit turns it into a clean NO_MEMORY. */
static void
test_bomb_no_allocation (void)
{
#if defined(__SANITIZE_ADDRESS__)
  g_test_skip ("address-space limits do not mix with ASan's shadow memory");
#else
  if (g_test_subprocess ())
    {
      struct rlimit rl = { 256u << 20, 256u << 20 };
      g_autoptr (GBytes) bomb = make_bomb (100000, 100000);
      g_autoptr (GError) error = NULL;
      LbLimits huge = { G_MAXUINT64, G_MAXUINT64 };
      g_autoptr (LbImage) a = NULL;
      g_autoptr (LbImage) b = NULL;

      g_assert_cmpint (setrlimit (RLIMIT_AS, &rl), ==, 0);
      a = lb_image_load_bytes (bomb, "bomb.png", NULL, &error);
      g_assert_null (a);
      g_assert_error (error, LB_ERROR, LB_ERROR_TOO_LARGE);
      g_clear_error (&error);
      b = lb_image_load_bytes (bomb, "bomb.png", &huge, &error);
      g_assert_null (b);
      g_assert_error (error, LB_ERROR, LB_ERROR_NO_MEMORY);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
#endif
}

static void
count_rows (LbPngDecoder *decoder, guint y0, guint y1, gpointer user_data)
{
  g_assert_cmpuint (y0, <, y1);
  g_assert_cmpuint (y1, <=, lb_png_decoder_get_height (decoder));
  (*(guint *) user_data)++;
}

static void
test_progressive (void)
{
  guint updates = 0;
  gsize header_at = 0;
  g_autofree char *path = g_build_filename (suite_dir, "basi2c16.png", NULL);
  g_autofree guint8 *data = NULL;
  gsize len;
  g_autoptr (LbPngDecoder) dec = lb_png_decoder_new ("basi2c16.png", NULL);
  g_autoptr (LbImage) whole = NULL;
  g_autoptr (LbImage) image = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_true (g_file_get_contents (path, (char **) &data, &len, NULL));
  whole = lb_image_load_file (path, NULL, &error);
  g_assert_no_error (error);
  lb_png_decoder_set_rows_func (dec, count_rows, &updates);
  /* One byte at a time: the decoder must cope with any split of the stream, and it must know
   * the size and show rows well before the end (libpng reports the header at the first IDAT). */
  for (gsize i = 0; i < len; i++)
    {
      g_assert_true (lb_png_decoder_feed (dec, data + i, 1, &error));
      if (lb_png_decoder_has_header (dec) && header_at == 0)
        header_at = i + 1;
    }
  g_assert_cmpuint (header_at, >, 0);
  g_assert_cmpuint (header_at, <, len / 2);
  g_assert_cmpuint (lb_png_decoder_get_width (dec), ==, 32);
  /* Adam7: every pass updates rows, so there are many updates long before the last byte. */
  g_assert_cmpuint (updates, >, 7);
  image = lb_png_decoder_finish (dec, &error);
  g_assert_no_error (error);
  g_assert_true (lb_image_equal_pixels (image, whole));
}

static void
test_pixbuf_formats (void)
{
  /* Lossless formats written by netpbm (an independent encoder) from a PngSuite image must
   * decode to exactly its pixels through the GdkPixbuf path. */
  const struct { const char *src; const char *cmd; const char *ext; } encoders[] = {
    { "basn3p08.png", "pamtogif", "gif" }, /* GIF holds at most 256 colours: a palette image */
    { "basn2c08.png", "ppmtobmp", "bmp" },
    { "basn2c08.png", "pnmtotiff", "tiff" },
    { "basn0g08.png", "pnmtotiff", "tiff" }, /* gray TIFF stays gray */
  };
  g_autofree char *dir = lb_test_make_tmpdir ("pixbuf");

  for (guint i = 0; i < G_N_ELEMENTS (encoders); i++)
    {
      g_autofree char *src = g_build_filename (suite_dir, encoders[i].src, NULL);
      g_autoptr (LbImage) ref = lb_image_load_file (src, NULL, NULL);
      g_autofree char *out = g_strdup_printf ("%s/t.%s", dir, encoders[i].ext);
      g_autofree char *cmd = g_strdup_printf ("cd '%s' && pngtopam %s | %s > '%s' 2>/dev/null", suite_dir,
                                              encoders[i].src, encoders[i].cmd, out);
      const char *argv[] = { "sh", "-c", cmd, NULL };
      g_autoptr (GError) error = NULL;
      g_autoptr (LbImage) image = NULL;
      int status;

      g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, &error));
      g_assert_true (g_spawn_check_wait_status (status, NULL));
      image = lb_image_load_file (out, NULL, &error);
      g_assert_no_error (error);
      if (!lb_image_equal_pixels (image, ref))
        g_test_fail_printf ("%s decoded differently from the PNG it was made from", encoders[i].ext);
      g_unlink (out);
    }
  /* JPEG: lossy, so compare with libjpeg's own decoder as netpbm runs it. */
  {
    g_autofree char *jpg = g_strdup_printf ("%s/t.jpg", dir);
    g_autofree char *ppm = g_strdup_printf ("%s/t.ppm", dir);
    g_autofree char *cmd = g_strdup_printf ("cd '%s' && pngtopam basn2c08.png | pnmtojpeg > '%s' 2>/dev/null && jpegtopnm '%s' > '%s' 2>/dev/null && pnmtopng '%s' > '%s.png'",
                                            suite_dir, jpg, jpg, ppm, ppm, ppm);
    const char *argv[] = { "sh", "-c", cmd, NULL };
    g_autofree char *ref_png = g_strdup_printf ("%s.png", ppm);
    g_autoptr (LbImage) jref = NULL;
    g_autoptr (LbImage) image = NULL;
    g_autoptr (GError) error = NULL;
    int status;

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, &error));
    g_assert_true (g_spawn_check_wait_status (status, NULL));
    image = lb_image_load_file (jpg, NULL, &error);
    g_assert_no_error (error);
    jref = lb_image_load_file (ref_png, NULL, &error);
    g_assert_no_error (error);
    g_assert_true (lb_image_equal_pixels (image, jref));
    g_unlink (jpg);
    g_unlink (ppm);
    g_unlink (ref_png);
  }
  /* Garbage that is no image at all is refused with UNSUPPORTED and the name. */
  {
    g_autoptr (GBytes) junk = g_bytes_new_static ("this is not an image\n", 21);
    g_autoptr (GError) error = NULL;
    g_autoptr (LbImage) image = lb_image_load_bytes (junk, "notes.txt", NULL, &error);
    g_assert_null (image);
    g_assert_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED);
    g_assert_nonnull (strstr (error->message, "notes.txt"));
  }
  g_rmdir (dir);
}

/* Files the fuzzer found that made GdkPixbuf's loaders allocate gigabytes from a header field
 * (tests/data/regressions). They must be refused from their headers, before any loader runs:
 * in a child capped at 512 MiB of address space the error must be CORRUPT/TOO_LARGE, never an
 * allocation failure, whether the bytes come in one piece or streamed. */
static void
test_hostile_headers (void)
{
#if defined(__SANITIZE_ADDRESS__)
  g_test_skip ("address-space limits do not mix with ASan's shadow memory");
#else
  const char *files[] = { "fuzz-image-bmp-4gib-offset.bin", "fuzz-image-gif-16gb-screen.bin",
                          "fuzz-image-bmp-4gib-colour-table.bin" };
  /* Our header checks' words, so that a loader failing on its own does not pass the test. */
  const char *reasons[] = { "points past the end", "GIF screen", "colour table" };

  if (g_test_subprocess ())
    {
      struct rlimit rl = { 512u << 20, 512u << 20 };

      g_assert_cmpint (setrlimit (RLIMIT_AS, &rl), ==, 0);
      for (guint i = 0; i < G_N_ELEMENTS (files); i++)
        {
          g_autofree char *path = g_build_filename (g_getenv ("LB_TEST_DATA"), "regressions", files[i], NULL);
          g_autofree char *data = NULL;
          gsize len;
          g_autoptr (GBytes) bytes = NULL;
          g_autoptr (GError) error = NULL;
          g_autoptr (GError) error2 = NULL;
          g_autoptr (LbImage) a = NULL;
          g_autoptr (LbImage) b = NULL;
          g_autoptr (GInputStream) in = NULL;

          g_assert_true (g_file_get_contents (path, &data, &len, NULL));
          bytes = g_bytes_new (data, len);
          a = lb_image_load_bytes (bytes, files[i], NULL, &error);
          g_assert_null (a);
          g_assert_true (g_error_matches (error, LB_ERROR, LB_ERROR_CORRUPT)
                         || g_error_matches (error, LB_ERROR, LB_ERROR_TOO_LARGE));
          g_assert_nonnull (strstr (error->message, reasons[i]));
          in = g_memory_input_stream_new_from_bytes (bytes);
          b = lb_image_load_stream (in, files[i], NULL, NULL, &error2);
          g_assert_null (b);
          g_assert_cmpint (error2->code, ==, error->code);
        }
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
#endif
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  suite_dir = g_build_filename (g_getenv ("LB_TEST_DATA"), "pngsuite", NULL);

  g_test_add_func ("/png/suite/valid", test_suite_valid);
  g_test_add_func ("/png/suite/corrupt", test_suite_corrupt);
  g_test_add_func ("/png/truncated", test_truncated);
  g_test_add_func ("/png/round-trip", test_round_trip);
  g_test_add_func ("/png/legacy-value-keys", test_legacy_value_keys);
  g_test_add_func ("/png/bad-value-model", test_bad_value_model);
  g_test_add_func ("/png/save-file-atomic", test_save_file_atomic);
  g_test_add_func ("/png/bomb", test_bomb);
  g_test_add_func ("/png/bomb-no-allocation", test_bomb_no_allocation);
  g_test_add_func ("/png/progressive", test_progressive);
  g_test_add_func ("/loader/pixbuf-formats", test_pixbuf_formats);
  g_test_add_func ("/loader/hostile-headers", test_hostile_headers);
  return g_test_run ();
}
