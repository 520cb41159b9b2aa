/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-xv-blend"

/* xv's Blend, optimised path (at most 1 off per sample, exact border points):
 *  - the border points of the AVX2 rows and of the portable loops equal the reference's
 *    (xv's integer formulas with its double steepness test), and their ratios are within
 *    2^-22 (relative) of the reference's (d / d1)², for every interior pixel of regions of
 *    many shapes: small, odd and even, tall and wide (the steep/flat switch), off-centre,
 *    large (1400×1000, 4000×3000) and too large for the AVX2 rows;
 *  - the samples of both paths against the reference, every format, random selections and
 *    band splits: no sample off by more than 1, the count of those off by 1 reported, band
 *    splits byte-identical, alpha and everything outside the region untouched. */

#include <math.h>

#include "lb-error.h"
#include "lb-test-kernel.h"
#include "lb-xv-blend.h"

/* Checks every interior pixel's border point and ratio, both paths; returns how many rows
 * the AVX2 rows handled. */
static int
check_points (int w, int h, const LbKernelRect *sel)
{
  g_autoptr (GError) error = NULL;
  LbXvBlend st;
  g_autoptr (LbKernelBuf) src = kb_new_padded (w, h, 1, 8, 0);
  int simd_rows = 0;

  g_assert_true (lb_xv_blend_prepare (&st, src, sel, &error));
  g_assert_no_error (error);
  if (st.active)
    {
      const LbXvRegion *R = &st.region;
      const int n = R->x1 - R->x0 - 2, cx = R->x0 + (R->x1 - R->x0) / 2;
      const int cy = R->y0 + (R->y1 - R->y0) / 2;
      g_autofree int *ex = g_new (int, n);
      g_autofree int *ey = g_new (int, n);
      g_autofree double *ratio = g_new (double, n);

      for (int simd = 0; simd <= 1; simd++)
        for (int y = R->y0 + 1; y < R->y1 - 1; y++)
          {
            simd_rows += _lb_xv_blend_row_points (&st, y, simd, ex, ey, ratio);
            for (int j = 0; j < n; j++)
              {
                const int x = R->x0 + 1 + j;
                int rex, rey;
                double rr;

                if (x == cx && y == cy)
                  continue;
                _lb_xv_blend_ref_point (&st, x, y, &rex, &rey, &rr);
                if (ex[j] != rex || ey[j] != rey || fabs (ratio[j] - rr) > rr * ldexp (1.0, -22))
                  g_error ("region %d,%d-%d,%d, %s, pixel (%d,%d): border point (%d,%d) ratio "
                           "%.17g, reference (%d,%d) %.17g", R->x0, R->y0, R->x1, R->y1,
                           simd ? "AVX2" : "portable", x, y, ex[j], ey[j], ratio[j], rex, rey, rr);
              }
          }
    }
  return simd_rows;
}

static void
test_points (void)
{
  static const int sizes[][2] = {
    { 3, 3 }, { 3, 4 }, { 4, 3 }, { 4, 4 }, { 5, 5 }, { 9, 3 }, { 3, 9 }, { 10, 11 },
    { 11, 10 }, { 16, 16 }, { 17, 9 }, { 33, 7 }, { 7, 33 }, { 64, 48 }, { 61, 37 },
    { 200, 3 }, { 3, 200 }, { 150, 7 }, { 7, 150 }, { 257, 255 }, { 1000, 13 }, { 13, 1000 },
  };
  g_autoptr (GRand) rand = g_rand_new_with_seed (3);
  int simd_rows = 0;

  for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      const int w = sizes[i][0], h = sizes[i][1];

      /* The whole image, then an off-centre selection inside a larger one, then a selection
       * that the image clips. */
      const LbKernelRect inner = { g_rand_int_range (rand, 0, 9), g_rand_int_range (rand, 0, 9), w, h };
      const LbKernelRect clipped = { -2, 3, w + 5, h };

      simd_rows += check_points (w, h, NULL);
      simd_rows += check_points (w + 17, h + 11, &inner);
      simd_rows += check_points (w + 1, h + 3, &clipped);
    }
  /* Large regions: the benchmark's 1400×1000, 4000×3000 (AVX2, dividends up to 2^22) and one
   * too wide for the AVX2 rows' exact floats (the portable loops take it). */
  simd_rows += check_points (1400, 1000, NULL);
  simd_rows += check_points (4000, 3000, NULL);
  g_assert_cmpint (check_points (8300, 5, NULL), ==, 0);
  if (simd_rows == 0)
    g_test_message ("no AVX2 on this CPU: only the portable loops were checked");
  else
    g_test_message ("%d rows checked on the AVX2 rows", simd_rows);
}

/* Pure noise: neighbouring border pixels differ a lot, so a wrong border point shows. */
static LbKernelBuf *
noise_image (GRand *rand, int w, int h, int channels, int depth)
{
  const gint32 top = depth == 8 ? 256 : 65536;
  LbKernelBuf *buf = kb_new_padded (w, h, channels, depth, g_rand_int_range (rand, 0, 4));

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < channels; c++)
        kb_set (buf, x, y, c, g_rand_int_range (rand, 0, top));
  return buf;
}

static LbKernelBuf *
run (const LbXvBlend *proto, const LbKernelBuf *src, gboolean ref, gboolean no_simd,
     const int *cuts, int ncuts)
{
  LbXvBlend st = *proto;
  LbKernelBuf *dst = kb_copy_padded (src, 3);

  st.no_simd = no_simd;
  for (int k = ncuts - 1; k >= 0; k--)
    (ref ? lb_xv_blend_process_ref : lb_xv_blend_process) (&st, src, dst, cuts[k], cuts[k + 1]);
  return dst;
}

/* Samples of @a and @b that differ; fails on any difference above @limit or outside the
 * colour channels of the region. */
static gsize
diff_samples (const LbKernelBuf *a, const LbKernelBuf *b, const LbXvRegion *R, guint limit,
              const char *what)
{
  const int ch = a->channels, nc = (ch == 2 || ch == 4) ? ch - 1 : ch;
  gsize n = 0;

  for (int y = 0; y < a->height; y++)
    for (int x = 0; x < a->width; x++)
      for (int c = 0; c < ch; c++)
        {
          const guint va = (guint) kb_get (a, x, y, c), vb = (guint) kb_get (b, x, y, c);
          const gboolean inside = x > R->x0 && x < R->x1 - 1 && y > R->y0 && y < R->y1 - 1
                                  && c < nc;

          if (va == vb)
            continue;
          if (!inside || (va > vb ? va - vb : vb - va) > limit)
            g_error ("%s: (%d,%d) channel %d: %u vs %u (region %d,%d-%d,%d, %d channels, "
                     "%d bits)", what, x, y, c, va, vb, R->x0, R->y0, R->x1, R->y1, ch,
                     a->depth);
          n++;
        }
  return n;
}

static void
test_samples (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (77);
  gsize off[2] = { 0, 0 }, total = 0;

  for (int iter = 0; iter < 320; iter++)
    {
      const int channels = 1 + iter % 4, depth = (iter / 4) % 2 ? 16 : 8;
      /* Small and odd widths (every remainder of eight columns), tall and wide shapes. */
      const int shape = (iter / 8) % 4;
      const int w = shape == 1 ? g_rand_int_range (rand, 3, 12)
                    : shape == 3 ? g_rand_int_range (rand, 3, 400) : g_rand_int_range (rand, 3, 90);
      const int h = shape == 2 ? g_rand_int_range (rand, 3, 12)
                    : shape == 3 ? g_rand_int_range (rand, 3, 300) : g_rand_int_range (rand, 3, 70);
      const LbKernelRect sel = { g_rand_int_range (rand, -2, w - 2), g_rand_int_range (rand, -2, h - 2),
                                 g_rand_int_range (rand, 3, w + 3), g_rand_int_range (rand, 3, h + 3) };
      g_autoptr (GError) error = NULL;
      LbXvBlend st;
      g_autoptr (LbKernelBuf) src = noise_image (rand, w, h, channels, depth);
      g_autoptr (LbKernelBuf) ref = NULL;
      int cuts[128];
      int ncuts = 0;
      const int one[2] = { 0, h };

      if (!lb_xv_blend_prepare (&st, src, shape == 3 ? NULL : &sel, &error))
        {
          g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
          continue;
        }
      cuts[0] = 0;
      while (cuts[ncuts] < h)
        cuts[ncuts + 1] = MIN (h, cuts[ncuts] + g_rand_int_range (rand, 1, 7)), ncuts++;

      ref = run (&st, src, TRUE, FALSE, one, 1);
      for (int no_simd = 0; no_simd <= 1; no_simd++)
        {
          g_autoptr (LbKernelBuf) out = run (&st, src, FALSE, no_simd, one, 1);
          g_autoptr (LbKernelBuf) banded = run (&st, src, FALSE, no_simd, cuts, ncuts);

          off[no_simd] += diff_samples (out, ref, &st.region, 1,
                                        no_simd ? "portable vs reference" : "AVX2 vs reference");
          g_assert_cmpuint (diff_samples (banded, out, &st.region, 0, "banded vs one band"), ==, 0);
        }
      /* The reference leaves everything but the interior colour samples as they were. */
      diff_samples (ref, src, &st.region, G_MAXUINT, "reference vs source");
      if (st.active)
        total += (gsize) (st.region.x1 - st.region.x0 - 2) * (st.region.y1 - st.region.y0 - 2)
                 * (channels == 2 || channels == 4 ? channels - 1 : channels);
    }
  g_test_message ("%" G_GSIZE_FORMAT " interior samples: %" G_GSIZE_FORMAT " (AVX2 rows or "
                  "their fallback) and %" G_GSIZE_FORMAT " (portable loops) differ by 1 from "
                  "the reference", total, off[0], off[1]);
}

static void
test_golden (void)
{
  /* The selections of MANIFEST.txt. */
  static const struct {
    const char *size;
    LbKernelRect sel;
  } cases[] = {
    { "64x48", { 10, 7, 30, 25 } },
    { "61x37", { 9, 5, 33, 21 } },
    { "512x512", { 100, 150, 257, 201 } },
  };
  gsize off[2] = { 0, 0 }, total = 0;

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    for (int use_sel = 0; use_sel <= 1; use_sel++)
      {
        g_autoptr (LbKernelBuf) src = kb_load_goldenf ("in_%s.png", cases[i].size);
        g_autofree char *gold = g_strdup_printf ("%s_blend_%s.png", cases[i].size,
                                                 use_sel ? "sel" : "full");
        g_autoptr (LbKernelBuf) want = kb_load_golden (gold);
        g_autoptr (LbKernelBuf) out = NULL;
        g_autoptr (GError) error = NULL;
        const int cuts[2] = { 0, src->height };
        LbXvBlend st;
        gsize n[2];

        g_assert_true (lb_xv_blend_prepare (&st, src, use_sel ? &cases[i].sel : NULL, &error));
        out = run (&st, src, TRUE, FALSE, cuts, 1);
        g_assert_cmpuint (diff_samples (out, want, &st.region, 0, "reference vs xv"), ==, 0);
        for (int no_simd = 0; no_simd <= 1; no_simd++)
          {
            g_clear_pointer (&out, kb_free);
            out = run (&st, src, FALSE, no_simd, cuts, 1);
            n[no_simd] = diff_samples (out, want, &st.region, 1,
                                       no_simd ? "portable vs xv" : "AVX2 vs xv");
            off[no_simd] += n[no_simd];
          }
        total += (gsize) (st.region.x1 - st.region.x0 - 2) * (st.region.y1 - st.region.y0 - 2) * 3;
        g_test_message ("%s: %" G_GSIZE_FORMAT " (AVX2 rows) and %" G_GSIZE_FORMAT
                        " (portable loops) samples differ by 1 from xv", gold, n[0], n[1]);
      }
  g_test_message ("golden files, %" G_GSIZE_FORMAT " interior samples: %" G_GSIZE_FORMAT
                  " (AVX2 rows) and %" G_GSIZE_FORMAT " (portable loops) differ by 1 from xv",
                  total, off[0], off[1]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/xv-blend/points", test_points);
  g_test_add_func ("/xv-blend/samples", test_samples);
  g_test_add_func ("/xv-blend/golden", test_golden);
  return g_test_run ();
}
