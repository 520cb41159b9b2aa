/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-xv-radius"

/* Oil's optimised paths: xv's 4×4 window on its vector path, the histogram path (one 8-bit
 * channel), the palette and count-table paths and the winner cache, against the reference. */

#include "test-xv-radius.h"

/* Oil's xv window (4×4) on its vector path: widths around its 16- and 32-column steps and
 * the smallest regions it takes (4 columns, 4 rows), every format, with and without a
 * selection, against the reference (compare_one: one band, one row per band, random bands,
 * three threads). */
void
test_oil_xv_shapes (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (2024);
  static const int shapes[][2] = { { 4, 4 }, { 5, 6 }, { 6, 5 }, { 7, 9 }, { 15, 8 },
                                   { 16, 7 }, { 17, 6 }, { 31, 8 }, { 32, 7 }, { 33, 6 },
                                   { 34, 5 }, { 65, 9 }, { 97, 7 } };

  for (gsize i = 0; i < G_N_ELEMENTS (shapes); i++)
    for (gsize f = 0; f < G_N_ELEMENTS (formats); f++)
      for (int sel = 0; sel <= 1; sel++)
        compare_one (rand, F_OIL, 0, shapes[i][0], shapes[i][1], formats[f][0], formats[f][1],
                     sel);
}

/* Oil on one 8-bit colour channel (GRAY8, GRAYA8) takes the histogram path from the 3×3
 * window up: at 3×3 (the crossover from the all-pairs network), radius 15 and radius 31,
 * against the reference with every band split (compare_one). */
void
test_oil_histogram (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (808);
  static const int sizes[] = { 3, 31, 63 };

  for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
    for (int channels = 1; channels <= 2; channels++)
      for (int sel = 0; sel <= 1; sel++)
        compare_one (rand, F_OIL, sizes[i], sizes[i] == 63 ? 41 : 47, sizes[i] == 63 ? 38 : 43,
                     channels, 8, sel);
}

/* The histogram path keeps column counts in bytes: a flat column of 255 rows (window 255)
 * reaches 255, the most a byte holds. Flat and two-colour images, one band and one row per
 * band, against the reference. */
void
test_oil_histogram_full_column (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (31);

  for (int kind = 0; kind < 2; kind++)
    {
      Job job = { F_OIL, 255, { { { 0 } } }, NULL };
      LbKernelBuf *src = NULL;
      int cuts[MAX_CUTS];
      const int w = 2, h = 270, ncuts = make_cuts (rand, h, 1, cuts);

      src = kb_new_padded (w, h, 1, 8, 1);
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          kb_set (src, x, y, 0, kind == 0 ? 77 : (y > 200 && x == 1 ? 9 : 200));
      g_assert_true (job_prepare (&job, src, NULL, NULL));
      compare_one_band_and_rows (&job, src, cuts, ncuts);
      g_clear_pointer (&src, kb_free);
    }
}

/* Oil's symmetric 3×3 window runs eight output pixels per vector step (oil_sym3_keys in
 * lb-xv-oil.c) from the second column to the last whole step, and mode_small on the rest:
 * every width from 1 to 40 (no step below 10, then every remainder), RGB8, RGBA8, GRAY16,
 * GRAYA16, RGB16 and RGBA16 (whose keys are palette numbers, mapped back to colours; GRAY8
 * takes the histogram path), with and without a selection; compare_one's images tie often
 * (five colours plus noise). */
void
test_oil_sym3_widths (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (0x5e3);
  static const int fmts[][2] = { { 3, 8 }, { 4, 8 }, { 1, 16 }, { 2, 16 }, { 3, 16 }, { 4, 16 } };

  for (int w = 1; w <= 40; w++)
    for (gsize f = 0; f < G_N_ELEMENTS (fmts); f++)
      compare_one (rand, F_OIL, 3, w, 7 + w % 4, fmts[f][0], fmts[f][1], (w + (int) f) % 2 == 1);
}

/* Oil's count-table path remembers its last answer along a row (WinnerCache in
 * lb-xv-oil.c) while the top count and the colours having it stay the same. Images where the
 * top colour set changes often but not at every step: vertical stripes of @bw columns, each
 * drawing from @v colours of its own, and a new set of colours every 5 rows (so the rows a
 * band reads hold far more than 256 colours and the histogram path stays out), with the
 * same colour planted now and then in the next column; RGB8 (hashed below 9×9, numbered
 * from it) and GRAY16 (direct), windows 5 to 21, with and without a selection, against the
 * reference on one band, one row per band and random bands. */
void
test_oil_winner_cache (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (0x0111);
  static const int shapes[][2] = { { 2, 13 }, { 3, 4 }, { 6, 3 }, { 1, 40 } };
  static const int sizes[] = { 5, 9, 15, 21 };
  const int w = 70, h = 44;

  for (gsize sh = 0; sh < G_N_ELEMENTS (shapes); sh++)
    for (gsize z = 0; z < G_N_ELEMENTS (sizes); z++)
      for (int depth = 8; depth <= 16; depth += 8)
        {
          const int bw = shapes[sh][0], v = shapes[sh][1], channels = depth == 8 ? 3 : 1;
          Job job = { F_OIL, sizes[z], { { { 0 } } }, NULL };
          const LbKernelRect rect = { 4, 3, w - 9, h - 5 };
          int cuts[MAX_CUTS];
          const int ncuts = make_cuts (rand, h, 0, cuts);
          LbKernelBuf *src = NULL;

          src = kb_new_padded (w, h, channels, depth, 1);
          for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
              {
                int idx = (y / 5) * 2000 + (x / bw) * v + g_rand_int_range (rand, 0, v);

                if (x > 0 && g_rand_int_range (rand, 0, 6) == 0)
                  idx = (y / 5) * 2000 + ((x - 1) / bw) * v + g_rand_int_range (rand, 0, v);
                if (depth == 8)
                  for (int c = 0; c < 3; c++)
                    kb_set (src, x, y, c, (guint) ((idx >> (8 * c)) & 0xff));
                else
                  kb_set (src, x, y, 0, (guint) (idx * 3 % 65536));
              }
          g_assert_true (job_prepare (&job, src, (sh + z) % 2 == 1 ? &rect : NULL, NULL));
          compare_one_band_and_rows (&job, src, cuts, ncuts);
          g_clear_pointer (&src, kb_free);
        }
}

/* RGB oil from 5×5 up numbers a band's colours (16-bit RGB at every window); a palette holds
 * 4 windows' worth of rows and then starts again from the rows still in the window. Bands of
 * 120 rows at windows 9 and 11 start again several times (rows of 20 or 23 pixels, noise:
 * nearly every colour new), against the reference with every band split, RGB8, RGBA8, RGB16
 * and RGBA16; at 16 bits also the windows of xv (4×4), 1 and 3, which count numbers too. */
void
test_oil_palette_restart (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (4096);
  static const int sizes[] = { 9, 11, 0, 1, 3 };

  for (gsize z = 0; z < G_N_ELEMENTS (sizes); z++)
    for (int depth = 8; depth <= 16; depth += 8)
      for (int channels = 3; channels <= 4; channels++)
        for (int sel = 0; sel <= 1; sel++)
          if (sizes[z] >= 9 || depth == 16)
            compare_one (rand, F_OIL, sizes[z], sizes[z] == 11 ? 23 : 20, 120, channels, depth,
                         sel);
}

/* 16-bit RGB colours are 48 bits: every path compares 32-bit keys, so they count palette
 * numbers. Colours that any packing into 32 bits would merge: equal but for blue's high
 * byte, or for red's, and pairs such as (256, 0, 0) and (0, 1, 0), which 8-bit-apart
 * packing (a | b << 8 | c << 16) makes one; counts tie. xv's window and 1, 3, 5, 9 and 31,
 * RGB16 and RGBA16, with and without a selection, one band and one row per band, against
 * the reference and the table path. */
void
test_oil_rgb16_keys (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (0x48);
  static const guint colours[][3] = {
    { 256, 0, 0 }, { 0, 1, 0 }, { 1, 256, 0 }, { 257, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0x8000 },
    { 0, 0, 0x0080 }, { 0x8000, 0, 0 }, { 0x0080, 0, 0 }, { 0, 0x100, 1 }, { 0, 0, 0x101 },
    { 0xffff, 0xffff, 0xffff }, { 0xffff, 0xffff, 0x7fff },
  };
  static const int sizes[] = { 0, 1, 3, 5, 9, 31 };
  const int w = 41, h = 35;
  const LbKernelRect rect = { 3, 2, 35, 30 };

  for (gsize z = 0; z < G_N_ELEMENTS (sizes); z++)
    for (int channels = 3; channels <= 4; channels++)
      for (int sel = 0; sel <= 1; sel++)
        {
          Job job = { F_OIL, sizes[z], { { { 0 } } }, NULL };
          int cuts[MAX_CUTS];
          const int ncuts = make_cuts (rand, h, 1, cuts);
          LbKernelBuf *src = NULL;

          src = kb_new_padded (w, h, channels, 16, 1);
          for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
              {
                /* runs of a colour and noise among few colours, so windows tie */
                const int i = (x / 2 + y / 3) % 2 == 0
                                ? g_rand_int_range (rand, 0, G_N_ELEMENTS (colours))
                                : (x / 3 + y) % (int) G_N_ELEMENTS (colours);

                for (int c = 0; c < 3; c++)
                  kb_set (src, x, y, c, colours[i][c]);
                if (channels == 4)
                  kb_set (src, x, y, 3, (guint) g_rand_int_range (rand, 0, 65536));
              }
          g_assert_true (job_prepare (&job, src, sel ? &rect : NULL, NULL));
          compare_one_band_and_rows (&job, src, cuts, ncuts);
          g_clear_pointer (&src, kb_free);
        }
}

/* Oil on images of few colours in the other formats (RGB8, RGBA8, GRAY16, GRAYA16): the
 * histogram path numbers the colours when a band's rows hold at most 256, and falls back to
 * the count table past that. Palettes of 2, 7, 256 and 300 colours (blocks and noise, so
 * counts tie), windows 5 and 31, with and without a selection, one band and one row per
 * band, against the reference. */
void
test_oil_palette (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (256);
  static const int palette_formats[][2] = { { 3, 8 }, { 4, 8 }, { 1, 16 }, { 2, 16 },
                                            { 3, 16 }, { 4, 16 } };
  static const int colours[] = { 2, 7, 256, 300 };
  static const int sizes[] = { 5, 31 };

  for (gsize f = 0; f < G_N_ELEMENTS (palette_formats); f++)
    for (gsize p = 0; p < G_N_ELEMENTS (colours); p++)
      for (gsize z = 0; z < G_N_ELEMENTS (sizes); z++)
        {
          const int channels = palette_formats[f][0], depth = palette_formats[f][1], w = 33;
          const int h = 27;
          const int ncol = colours[p];
          Job job = { F_OIL, sizes[z], { { { 0 } } }, NULL };
          const LbKernelRect rect = { 3, 2, 27, 23 };
          g_autofree guint *pal = g_new (guint, (gsize) ncol * 3);
          int cuts[MAX_CUTS];
          const int ncuts = make_cuts (rand, h, 1, cuts);
          LbKernelBuf *src = NULL;

          /* Distinct palette colours: RGB (i mod 256, i / 256, 0), or gray i · 211 at 16 bits
           * (below 65536 for i < 310). */
          for (int i = 0; i < ncol; i++)
            {
              pal[i * 3] = channels >= 3 ? (guint) i % 256 : (guint) i * 211;
              pal[i * 3 + 1] = (guint) i / 256;
              pal[i * 3 + 2] = 0;
            }
          src = kb_new_padded (w, h, channels, depth, 2);
          for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
              {
                /* Every colour appears (a ramp over the pixels), blocks give runs. */
                const int i = (x / 3 + y / 2) % 3 == 0 ? g_rand_int_range (rand, 0, ncol)
                                                       : (x / 4 + (y / 3) * 10) % ncol;

                for (int c = 0; c < channels; c++)
                  kb_set (src, x, y, c,
                           (c == channels - 1 && (channels == 2 || channels == 4))
                             ? (guint) g_rand_int_range (rand, 0, 256)
                             : pal[i * 3 + c]);
              }
          for (int sel = 0; sel <= 1; sel++)
            {
              g_assert_true (job_prepare (&job, src, sel ? &rect : NULL, NULL));
              compare_one_band_and_rows (&job, src, cuts, ncuts);
            }
          g_clear_pointer (&src, kb_free);
        }
}
