/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-xv-kernels-a"

/* Sharpen's optimised paths are exact (lb-xv-sharpen.c): the 8-bit integer path for every
 * case it can meet in gray, on random colours, at every region width of the AVX2 row; the
 * 16-bit path on random images. Each against the reference path, byte for byte. */

#include "test-xv-kernels-a.h"

/* Sharpen at @strength on @src (@sel: NULL for the whole image): the optimised path on one
 * band, on the bands @cuts (unless NULL) and, with @portable, its portable loops (on @cuts, or
 * one band) must give the reference's bytes; alpha comes back untouched. */
static void
check_sharpen (int                 strength,
               const LbKernelBuf  *src,
               const LbKernelRect *sel,
               const int          *cuts,
               int                 ncuts,
               gboolean            portable,
               const char         *what)
{
  const Spec spec = { F_SHARPEN, strength, FALSE }, loops = { F_SHARPEN, strength, TRUE };
  g_autoptr (LbKernelBuf) ref = NULL;
  g_autoptr (LbKernelBuf) fast = NULL;

  run_ok (&spec, src, &ref, sel, FALSE, NULL, 0);
  run_ok (&spec, src, &fast, sel, TRUE, NULL, 0);
  assert_same (fast, ref, what);
  if (src->channels == 2 || src->channels == 4)
    g_assert_cmpuint (count_diff (fast, src, src->channels - 1, src->channels, "alpha"), ==, 0);
  if (cuts != NULL)
    {
      g_autoptr (LbKernelBuf) banded = NULL;
      g_autofree char *in_bands = g_strconcat (what, " in bands", NULL);

      run_ok (&spec, src, &banded, sel, TRUE, cuts, ncuts);
      assert_same (banded, ref, in_bands);
    }
  if (portable)
    {
      g_autoptr (LbKernelBuf) port = NULL;
      g_autofree char *in_loops = g_strconcat (what, ", portable loops", NULL);

      run_ok (&loops, src, &port, sel, TRUE, cuts, ncuts);
      assert_same (port, ref, in_loops);
    }
}

/* Sharpen's 8-bit path computes from integers (K, S) what xv computes in doubles (see
 * lb-xv-sharpen.c). Gray: every strength, every centre Value K and every 3×3 sum S
 * (K ≤ S ≤ K + 8·255), each case in its own 3×3 block of one image (blocks are 3 columns
 * apart, so neighbourhoods do not overlap); the optimised output must equal the reference
 * on every pixel of the image (the cases and the pixels between them). */
static void
test_sharpen_gray_exhaustive (void)
{
  const int per_row = 8 * 255 + 1; /* S − K = 0 .. 2040 */
  LbKernelBuf *src = NULL;

  src = kb_new_padded (3 * per_row, 3 * 256, 1, 8, 0);
  for (int k = 0; k < 256; k++)
    for (int i = 0; i < per_row; i++)
      {
        static const int nb[8] = { 0, 1, 2, 3, 5, 6, 7, 8 };
        int rest = i;

        /* The 8 neighbours share S − K: the first ones 255, one the remainder, then 0; the
         * rotation by k varies which positions carry the large values. */
        kb_set (src, 3 * i + 1, 3 * k + 1, 0, (guint) k);
        for (int m = 0; m < 8; m++)
          {
            const int pos = nb[(m + k) % 8], v = MIN (rest, 255);

            rest -= v;
            kb_set (src, 3 * i + pos % 3, 3 * k + pos / 3, 0, (guint) v);
          }
      }
  /* Every strength with -m slow (about a minute here); a spread of them otherwise, odd and
   * even (an even strength makes B even, which allows more exact ties). */
  for (int n = 0; n <= 99; n += g_test_slow () ? 1 : n < 3 || n > 96 || (n >= 49 && n <= 51) || (n >= 74 && n <= 76) ? 1 : 11)
    check_sharpen (n, src, NULL, NULL, 0, TRUE, "sharpen gray, every (K, S)");
  g_clear_pointer (&src, kb_free);
}

/* Colour: the optimised 8-bit path against the reference on random colours (uniform, and
 * near-gray, dark and saturated ones, where hue and saturation are extreme), every strength,
 * RGB8 and RGBA8. */
static void
test_sharpen_colour (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (99);

  for (int n = 0; n <= 99; n++)
    for (int channels = 3; channels <= 4; channels++)
      {
        const int w = 257, h = 61;
        g_autoptr (LbKernelBuf) src = NULL;

        src = kb_new_padded (w, h, channels, 8, 1);
        for (int y = 0; y < h; y++)
          for (int x = 0; x < w; x++)
            {
              const int kind = g_rand_int_range (rand, 0, 4);
              const int base = g_rand_int_range (rand, 0, 256);

              for (int c = 0; c < channels; c++)
                {
                  int v;

                  switch (kind)
                    {
                    case 0: v = g_rand_int_range (rand, 0, 256); break;
                    case 1: v = base + g_rand_int_range (rand, -2, 3); break;
                    case 2: v = g_rand_int_range (rand, 0, 8); break;
                    default: v = g_rand_boolean (rand) ? 255 : g_rand_int_range (rand, 0, 256); break;
                    }
                  kb_set (src, x, y, c, (guint) CLAMP (v, 0, 255));
                }
            }
        check_sharpen (n, src, NULL, NULL, 0, TRUE, "sharpen colour, random");
      }
}

/* Sharpen's 8-bit AVX2 row takes eight pixels per step, the last step overlapping the one
 * before, and lists the pixels its float pass cannot decide: every region width from 1 to
 * 41 (odd and even, so every remainder of eight), at an offset, in 1–4 channels, on
 * near-gray and dark pixels (many exact ties) and random ones, in random bands; the AVX2
 * row, the portable loops and the reference must give the same bytes, alpha untouched. */
static void
test_sharpen_widths (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (4242);

  for (int rw = 1; rw <= 41; rw++)
    for (int channels = 1; channels <= 4; channels++)
      {
        const int w = rw + 5, h = 13;
        const LbKernelRect sel = { 3, 1, rw, 11 };
        const int strength = rw % 2 ? 75 : g_rand_int_range (rand, 0, 100);
        int cuts[64];
        const int ncuts = random_cuts (rand, h, cuts, G_N_ELEMENTS (cuts));
        g_autoptr (LbKernelBuf) src = NULL;

        src = kb_new_padded (w, h, channels, 8, 1);
        for (int y = 0; y < h; y++)
          for (int x = 0; x < w; x++)
            {
              const int kind = g_rand_int_range (rand, 0, 3);
              const int base = g_rand_int_range (rand, 0, 256);

              for (int c = 0; c < channels; c++)
                {
                  const int v = kind == 0 ? g_rand_int_range (rand, 0, 256)
                                : kind == 1 ? base + g_rand_int_range (rand, -1, 2)
                                : g_rand_int_range (rand, 0, 4);

                  kb_set (src, x, y, c, (guint) CLAMP (v, 0, 255));
                }
            }
        check_sharpen (strength, src, &sel, cuts, ncuts, TRUE, "sharpen widths");
      }
}

/* Sharpen at 16 bits (GRAY16, the medical images', and RGB16/RGBA16): the optimised path runs
 * the reference's double operations (gray rows as flat vector loops), so it must give the
 * same samples exactly: every region width from 1 to 19 at an offset, random strengths, in
 * random bands, alpha untouched. */
static void
test_sharpen_16 (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (1616);

  for (int rw = 1; rw <= 19; rw++)
    for (int channels = 1; channels <= 4; channels++)
      {
        const int w = rw + 5, h = 11;
        const LbKernelRect sel = { 2, 1, rw, 9 };
        const int strength = g_rand_int_range (rand, 0, 100);
        int cuts[64];
        const int ncuts = random_cuts (rand, h, cuts, G_N_ELEMENTS (cuts));
        g_autoptr (LbKernelBuf) src = NULL;

        src = kb_new_padded (w, h, channels, 16, 1);
        for (int y = 0; y < h; y++)
          for (int x = 0; x < w; x++)
            {
              const int base = g_rand_int_range (rand, 0, 65536);
              const gboolean gray = g_rand_boolean (rand);

              for (int c = 0; c < channels; c++)
                {
                  const int v = gray ? base + g_rand_int_range (rand, -1, 2)
                                     : g_rand_int_range (rand, 0, 65536);

                  kb_set (src, x, y, c, (guint) CLAMP (v, 0, 65535));
                }
            }
        check_sharpen (strength, src, &sel, cuts, ncuts, FALSE, "sharpen 16 bits");
      }
}

void
test_xv_kernels_a_add_sharpen_exact (void)
{
  g_test_add_func ("/xv-a/sharpen-exact/gray-every-case", test_sharpen_gray_exhaustive);
  g_test_add_func ("/xv-a/sharpen-exact/colour", test_sharpen_colour);
  g_test_add_func ("/xv-a/sharpen-exact/widths", test_sharpen_widths);
  g_test_add_func ("/xv-a/sharpen-exact/16-bit", test_sharpen_16);
}
