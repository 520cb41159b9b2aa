/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-xv-radius"

/* Blur's optimised paths at their limits: the 16-bit sums, the float division and its
 * correction, widths around the AVX2 rows' steps, the double-precision path, and the window
 * scans of RGB8 and GRAY16, against the reference. */

#include "test-xv-radius.h"

/* Blur's 8-bit path keeps column sums in 16 bits up to n = 257 (257 · 255 = 65535): bright
 * images tall enough for full columns at n = 255, 257 (the limit) and 259 (the 32-bit path),
 * against the reference, one band and one row per band. */
void
test_blur_u16_limit (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (99);

  for (int channels = 1; channels <= 3; channels += 2)
    for (int size = 255; size <= 259; size += 2)
      {
        Job job = { F_BLUR, size, { { { 0 } } }, NULL };
        LbKernelBuf *src = NULL;
        int cuts[MAX_CUTS];
        const int ncuts = make_cuts (rand, 300, 1, cuts);

        src = kb_new_padded (23, 300, channels, 8, 1);
        for (int y = 0; y < 300; y++)
          for (int x = 0; x < 23; x++)
            for (int c = 0; c < channels; c++)
              kb_set (src, x, y, c, (guint) g_rand_int_range (rand, 240, 256));
        g_assert_true (job_prepare (&job, src, NULL, NULL));
        compare_one_band_and_rows (&job, src, cuts, ncuts);
        g_clear_pointer (&src, kb_free);
      }
}

/* Blur's fast paths divide a window sum s by its pixel count N as (int) ((float) s · inv)
 * with inv = 1/N rounded up (lb-xv-blur.c): exact for s < 2^22. Every s an 8-bit window can
 * reach (s ≤ 255 N) for N ≤ 1100, and every s < 2^22 for the counts the 16-bit float path
 * takes (65535 N < 2^22, N ≤ 64) and a few larger ones. */
void
test_blur_div_float (void)
{
  static const guint32 more[] = { 961, 1023, 1024, 1025, 4095, 16383, 16384, 16447 };

  for (guint32 count = 1; count <= 1100; count++)
    for (guint32 s = 0; s <= 255 * count; s++)
      if (_lb_xv_blur_div_float (s, count) != s / count)
        g_error ("floor(%u / %u): %u, not %u", s, count, _lb_xv_blur_div_float (s, count),
                 s / count);
  for (guint32 count = 1; count <= 64; count++)
    for (guint32 s = 0; s < 4194304; s += (count <= 16 ? 1 : 7))
      if (_lb_xv_blur_div_float (s, count) != s / count)
        g_error ("floor(%u / %u): %u, not %u", s, count, _lb_xv_blur_div_float (s, count),
                 s / count);
  for (gsize k = 0; k < G_N_ELEMENTS (more); k++)
    for (guint32 s = 0; s < 4194304; s++)
      if (_lb_xv_blur_div_float (s, more[k]) != s / more[k])
        g_error ("floor(%u / %u): %u, not %u", s, more[k], _lb_xv_blur_div_float (s, more[k]),
                 s / more[k]);
}

/* The 16-bit path's interior division (float, one correction by the remainder) for every
 * window count it serves (65535 N < 2^31: N ≤ 32768): quotients around every multiple of N at
 * the ends of the range and at random, where the float product errs most (quotients near
 * 65535) and where it is exact; and every s for a few counts (3×3 … 31×31, the largest). */
void
test_blur_div_corrected (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (65535);
  static const guint32 every[] = { 9, 961, 32767, 32768 };

  for (guint32 count = 1; count <= 32768; count++)
    for (int k = 0; k < 96; k++)
      {
        const guint32 q = k < 32 ? (guint32) k : k < 64 ? 65535u - (guint32) (k - 32)
                                                         : (guint32) g_rand_int_range (rand, 0, 65536);
        const guint32 base = q * count;
        const guint32 offs[] = { 0, 1, count / 2, count - 1 };

        for (gsize o = 0; o < G_N_ELEMENTS (offs); o++)
          {
            const guint32 s = base + offs[o];

            if (offs[o] >= count || s >= 2147483648u)
              continue;
            if (_lb_xv_blur_div_corrected (s, count) != s / count)
              g_error ("floor(%u / %u): %u, not %u", s, count,
                       _lb_xv_blur_div_corrected (s, count), s / count);
          }
      }
  for (gsize k = 0; k < G_N_ELEMENTS (every); k++)
    for (guint32 s = 0; s < 65536 * every[k] && s < 2147483648u; s += (every[k] > 1000 ? 61 : 1))
      if (_lb_xv_blur_div_corrected (s, every[k]) != s / every[k])
        g_error ("floor(%u / %u): %u, not %u", s, every[k], _lb_xv_blur_div_corrected (s, every[k]),
                 s / every[k]);
}

/* Blur's vector loops (32 samples per step in the AVX2 rows, 4-sample prefix scans) and their
 * tails: every width from 1 to 70 and a few wide ones, n = 5 and 31, GRAY8, RGB8, RGBA8, GRAY16
 * and RGB16, with and without a selection; compare_one runs the optimised and the portable
 * paths over one band, one row per band, random bands and three threads. */
void
test_blur_widths (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (0xb1a5);
  static const int wide[] = { 95, 96, 97, 128, 129, 130, 257 };
  static const int fmts[][2] = { { 1, 8 }, { 3, 8 }, { 4, 8 }, { 1, 16 }, { 3, 16 } };

  for (int k = 0; k < 70 + (int) G_N_ELEMENTS (wide); k++)
    {
      const int w = k < 70 ? k + 1 : wide[k - 70];

      for (gsize f = 0; f < G_N_ELEMENTS (fmts); f++)
        {
          compare_one (rand, F_BLUR, 5, w, 13, fmts[f][0], fmts[f][1], k % 2 == 1);
          if (k % 3 == 0 || k >= 70)
            compare_one (rand, F_BLUR, 31, w, 9 + k % 30, fmts[f][0], fmts[f][1], k % 2 == 0);
        }
    }
}

/* Blur at 8 bits where window sums reach 2^22 (255 · 129² ≥ 2^22): the double division of the
 * fast path, against the reference, one band and one row per band, GRAY8 and RGB8 (with a
 * selection); and n = 127, the last size on the float path there. */
void
test_blur_double_path (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (129);
  static const int sizes[] = { 127, 129 };

  for (gsize k = 0; k < G_N_ELEMENTS (sizes); k++)
    for (int channels = 1; channels <= 3; channels += 2)
      {
        Job job = { F_BLUR, sizes[k], { { { 0 } } }, NULL };
        const LbKernelRect rect = { 2, 1, 130, 129 };
        LbKernelBuf *src = NULL;
        int cuts[MAX_CUTS];
        const int h = 131, ncuts = make_cuts (rand, h, 1, cuts);

        src = kb_new_padded (133, h, channels, 8, 3);
        for (int y = 0; y < h; y++)
          for (int x = 0; x < 133; x++)
            for (int c = 0; c < channels; c++)
              kb_set (src, x, y, c, (guint) g_rand_int_range (rand, 200, 256));
        g_assert_true (job_prepare (&job, src, channels == 3 ? &rect : NULL, NULL));
        compare_one_band_and_rows (&job, src, cuts, ncuts);
        g_clear_pointer (&src, kb_free);
      }
}

/* Blur's RGB8 AVX2 rows (blur_row_c3_avx2 in lb-xv-blur.c) read the differences d of column
 * sums in 16 bits and add them three pixels at a time: in 16 bits for n ≤ 41 rows (|d| ≤
 * 255 · 41, three of them at most 765 · 41 = 31365), in 32 bits up to n = 127 (|d| ≤ 255 · 127
 * fits 16 bits; 255 · 129 does not). Pixel columns entirely 0 or 255 (at random per column
 * and channel) reach both extremes; n = 39, 41, 43 (the 16-bit form's last and the 32-bit
 * form's first) and 125, 127, 129 (the 32-bit form's last, then the prefix path), widths
 * around the rows' 48-sample steps and two lanes, with and without a selection, against the
 * reference: one band, random bands, and the portable path on random bands. */
void
test_blur_rgb8_scan_range (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (31365);
  static const int widths[] = { 14, 31, 47, 64, 97, 130, 200 };
  /* sizes on both sides of the 16-bit form's bound (41 rows) in 47 rows, and of the 32-bit
   * form's (127 rows: d = 255 · 128 still fits 16 bits, 255 · 129 does not) in 131 rows */
  static const struct { int size, h; } cases[] = {
    { 39, 47 }, { 41, 47 }, { 43, 47 }, { 125, 131 }, { 127, 131 }, { 129, 131 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    for (gsize k = 0; k < G_N_ELEMENTS (widths); k++)
      {
        const int size = cases[i].size, h = cases[i].h;
        Job job = { F_BLUR, size, { { { 0 } } }, NULL };
        const LbKernelRect rect = { 3, 2, widths[k] - 5, h - 2 };
        LbKernelBuf *src = NULL;
        int cuts[MAX_CUTS];
        const int ncuts = make_cuts (rand, h, 0, cuts);

        src = kb_new_padded (widths[k], h, 3, 8, 2);
        for (int x = 0; x < widths[k]; x++)
          for (int c = 0; c < 3; c++)
            {
              const guint v = g_rand_boolean (rand) ? 255 : 0;

              for (int y = 0; y < h; y++)
                kb_set (src, x, y, c, v);
            }
        g_assert_true (job_prepare (&job, src, k % 2 == 1 ? &rect : NULL, NULL));
        compare_one_band_and_rows (&job, src, cuts, ncuts);
        g_clear_pointer (&src, kb_free);
      }
}

/* Blur's GRAY16 AVX2 rows (blur_row_c1_avx2 in lb-xv-blur.c: a running window sum per
 * 128-bit lane, straight into the division, where the windows are whole horizontally).
 * - One-row regions, where windows up to 63 pixels stay on the float division without a
 *   correction (65535 · 63 < 2^22): there the reciprocal must be rounded up. Rows of one
 *   value v make every window sum N·v, and for N = 41, 47, 55, 61 the nearest float to 1/N
 *   gives v − 1 for some v (v = 1 already for each of them; found by trying every s).
 * - Pixel columns all 0, all 65535 or random (at random per column), so window sums reach
 *   both extremes on the corrected division (n ≥ 9) and the correction itself is needed, in a
 *   selection or not, at widths from the first that takes the AVX2 rows (32 whole windows)
 *   past two of their 16-sample steps.
 * Against the reference: one band, random bands, and the portable path on random bands. */
void
test_blur_gray16_scan (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (0x16c1);
  static const int one_row_sizes[] = { 41, 47, 55, 61 };
  static const guint values[] = { 1, 2, 3, 7, 255, 4097, 65534, 65535 };
  static const int sizes[] = { 5, 9, 31, 61 };

  for (gsize i = 0; i < G_N_ELEMENTS (one_row_sizes); i++)
    for (gsize k = 0; k < G_N_ELEMENTS (values); k++)
      {
        Job job = { F_BLUR, one_row_sizes[i], { { { 0 } } }, NULL };
        const int w = one_row_sizes[i] + 40 + (int) k;
        LbKernelBuf *src = NULL;
        int cuts[MAX_CUTS];
        const int ncuts = make_cuts (rand, 1, 1, cuts);

        src = kb_new_padded (w, 1, 1, 16, 1);
        for (int x = 0; x < w; x++)
          kb_set (src, x, 0, 0, values[k]);
        g_assert_true (job_prepare (&job, src, NULL, NULL));
        compare_one_band_and_rows (&job, src, cuts, ncuts);
        g_clear_pointer (&src, kb_free);
      }

  for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
    for (int extra = 0; extra < 34; extra += 3)
      {
        const int size = sizes[i], w = size - 1 + 32 + extra, h = size + 6;
        Job job = { F_BLUR, size, { { { 0 } } }, NULL };
        const LbKernelRect rect = { 1, 2, w - 1, h - 3 };
        LbKernelBuf *src = NULL;
        int cuts[MAX_CUTS];
        const int ncuts = make_cuts (rand, h, 0, cuts);

        src = kb_new_padded (w, h, 1, 16, 2);
        for (int x = 0; x < w; x++)
          {
            const int kind = g_rand_int_range (rand, 0, 3);
            const guint v = kind == 0 ? 0 : 65535;

            for (int y = 0; y < h; y++)
              kb_set (src, x, y, 0, kind < 2 ? v : (guint) g_rand_int_range (rand, 0, 65536));
          }
        g_assert_true (job_prepare (&job, src, extra % 2 == 1 ? &rect : NULL, NULL));
        compare_one_band_and_rows (&job, src, cuts, ncuts);
        g_clear_pointer (&src, kb_free);
      }
}
