/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-enhance"

/* Gaussian blur, unsharp mask and median kernels: median against xv's DeSpeckle golden files,
 * reference vs optimised paths on random images in every format, band-split invariance,
 * Gaussian against an independent double-precision 2-D evaluation, alpha pass-through. */

#include <math.h>

#include "lb-test-kernel.h"
#include "lb-enhance.h"
#include "lb-error.h"

KB_WRAP (gaussian, LbGaussian)
KB_WRAP (unsharp, LbUnsharp)
KB_WRAP (median, LbMedian)

/* ------------------------------------------------------------------------------------------ */
/* Median */

static void
test_median_despeckle_golden (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (kb_golden_sizes); i++)
    for (int n = 3; n <= 5; n += 2)
      {
        g_autoptr (LbKernelBuf) src = kb_load_goldenf ("in_%s.png", kb_golden_sizes[i]);
        g_autoptr (LbKernelBuf) want = kb_load_goldenf ("%s_despeckle_%d.png", kb_golden_sizes[i],
                                                        n);
        LbMedianParams p = { n / 2 };
        LbMedian *st = lb_median_prepare (src, NULL, &p, NULL);
        g_autoptr (LbKernelBuf) fast = kb_run_whole (median_fast, st, src);
        g_autoptr (LbKernelBuf) ref = NULL;

        g_assert_cmpuint (kb_compare (fast, want, NULL), ==, 0);
        if (src->width < 100)   /* the sorting reference is slow */
          {
            ref = kb_run_whole (median_ref, st, src);
            g_assert_cmpuint (kb_compare (ref, want, NULL), ==, 0);
          }
        lb_median_free (st);
      }
}

static void
test_median_formats (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (17);
  static const int radii[] = { 1, 2, 3, 5, 8, 15, 0 };

  for (gsize f = 0; f < G_N_ELEMENTS (kb_formats); f++)
    for (int iter = 0; iter < 14; iter++)
      {
        int w = g_rand_int_range (rand, 1, 60) | 1, h = g_rand_int_range (rand, 1, 45) | 1;
        g_autoptr (LbKernelBuf) src = kb_new (w, h, kb_formats[f].channels, kb_formats[f].depth);
        LbKernelRect sel;
        LbMedianParams p = { radii[iter % G_N_ELEMENTS (radii)] };
        g_autoptr (GError) error = NULL;
        LbMedian *st;
        g_autoptr (LbKernelBuf) ref = NULL;
        g_autoptr (LbKernelBuf) fast = NULL;
        g_autoptr (LbKernelBuf) bands = NULL;

        sel = kb_random_rect (rand, w, h, 3);
        kb_fill_random (src, rand, iter % 4);
        st = lb_median_prepare (src, iter & 1 ? &sel : NULL, &p, &error);
        g_assert_no_error (error);
        ref = kb_run_whole (median_ref, st, src);
        fast = kb_run_whole (median_fast, st, src);
        bands = kb_run_bands (median_fast, st, src, rand);
        g_assert_cmpuint (kb_compare (ref, fast, NULL), ==, 0);
        g_assert_cmpuint (kb_compare (ref, bands, NULL), ==, 0);
        kb_assert_alpha_kept (src, fast);
        lb_median_free (st);
      }
}

/* ------------------------------------------------------------------------------------------ */
/* Gaussian */

/* Independent evaluation: the renormalised 2-D sampled Gaussian over the window clipped to
 * the region, in double. */
static double
gauss2d (const LbKernelBuf  *src,
         const LbKernelRect *r,
         double              sigma,
         int                 x,
         int                 y,
         int                 c)
{
  int rad = (int) ceil (3 * sigma);
  double num = 0, den = 0;

  for (int yy = MAX (r->y, y - rad); yy <= MIN (r->y + r->height - 1, y + rad); yy++)
    for (int xx = MAX (r->x, x - rad); xx <= MIN (r->x + r->width - 1, x + rad); xx++)
      {
        double w = exp (-(double) (xx - x) * (xx - x) / (2 * sigma * sigma))
                   * exp (-(double) (yy - y) * (yy - y) / (2 * sigma * sigma));

        num += w * kb_get (src, xx, yy, c);
        den += w;
      }
  return num / den;
}

static void
test_gaussian_formats (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (19);
  static const double sigmas[] = { 0.1, 0.5, 1.0, 1.7, 3.0, 5.0, 12.0 };

  for (gsize f = 0; f < G_N_ELEMENTS (kb_formats); f++)
    for (int iter = 0; iter < 14; iter++)
      {
        int w = g_rand_int_range (rand, 1, 60) | 1, h = g_rand_int_range (rand, 1, 45) | 1;
        g_autoptr (LbKernelBuf) src = kb_new (w, h, kb_formats[f].channels, kb_formats[f].depth);
        LbKernelRect sel, clipped;
        LbGaussianParams p = { sigmas[iter % G_N_ELEMENTS (sigmas)] };
        g_autoptr (GError) error = NULL;
        LbGaussian *st;
        g_autoptr (LbKernelBuf) ref = NULL;
        g_autoptr (LbKernelBuf) fast = NULL;
        g_autoptr (LbKernelBuf) bands = NULL;
        int nc = (src->channels == 2 || src->channels == 4) ? src->channels - 1 : src->channels;
        int maxv = kb_formats[f].depth == 16 ? 65535 : 255;
        gsize off_by_one = 0;

        sel = kb_random_rect (rand, w, h, 3);
        kb_fill_random (src, rand, iter % 3);
        st = lb_gaussian_prepare (src, iter & 1 ? &sel : NULL, &p, &error);
        g_assert_no_error (error);
        ref = kb_run_whole (gaussian_ref, st, src);
        fast = kb_run_whole (gaussian_fast, st, src);
        bands = kb_run_bands (gaussian_fast, st, src, rand);
        g_assert_cmpuint (kb_compare (ref, fast, NULL), ==, 0);
        g_assert_cmpuint (kb_compare (ref, bands, NULL), ==, 0);
        kb_assert_alpha_kept (src, fast);

        /* against the double-precision 2-D Gaussian; pixels outside the region untouched */
        clipped.x = CLAMP (sel.x, 0, w);
        clipped.y = CLAMP (sel.y, 0, h);
        clipped.width = CLAMP (sel.x + sel.width, 0, w) - clipped.x;
        clipped.height = CLAMP (sel.y + sel.height, 0, h) - clipped.y;
        if (!(iter & 1))
          clipped = (LbKernelRect) { 0, 0, w, h };
        for (int y = 0; y < h; y++)
          for (int x = 0; x < w; x++)
            for (int c = 0; c < nc; c++)
              {
                gboolean in = x >= clipped.x && x < clipped.x + clipped.width
                              && y >= clipped.y && y < clipped.y + clipped.height;
                int got = kb_get (fast, x, y, c);

                if (!in)
                  g_assert_cmpint (got, ==, kb_get (src, x, y, c));
                else
                  {
                    double want = floor (gauss2d (src, &clipped, p.sigma, x, y, c) + 0.5);
                    int d = abs (got - (int) CLAMP (want, 0, maxv));

                    g_assert_cmpint (d, <=, 1);
                    off_by_one += d;
                  }
              }
        if (off_by_one)
          g_test_message ("gaussian σ=%g %d×%d: %" G_GSIZE_FORMAT " samples ±1 from double",
                          p.sigma, w, h, off_by_one);
        lb_gaussian_free (st);
      }
}

/* Per-channel filters: an RGB image with R = G = B gives the gray result in every channel. */
static void
test_gray_equals_rgb (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (23);
  g_autoptr (LbKernelBuf) gray = kb_new (37, 29, 1, 8);
  g_autoptr (LbKernelBuf) rgb = kb_new (37, 29, 3, 8);
  LbGaussianParams gp = { 2.2 };
  LbMedianParams mp = { 3 };
  LbUnsharpParams up = { 1.5, 1.2, 3 };
  LbGaussian *g1, *g3;
  LbMedian *m1, *m3;
  LbUnsharp *u1, *u3;
  KbProcessFunc funcs[3] = { gaussian_fast, median_fast, unsharp_fast };

  kb_fill_random (gray, rand, 1);
  for (int y = 0; y < 29; y++)
    for (int x = 0; x < 37; x++)
      for (int c = 0; c < 3; c++)
        rgb->data[y * rgb->stride + x * 3 + c] = gray->data[y * gray->stride + x];
  g1 = lb_gaussian_prepare (gray, NULL, &gp, NULL);
  g3 = lb_gaussian_prepare (rgb, NULL, &gp, NULL);
  m1 = lb_median_prepare (gray, NULL, &mp, NULL);
  m3 = lb_median_prepare (rgb, NULL, &mp, NULL);
  u1 = lb_unsharp_prepare (gray, NULL, &up, NULL);
  u3 = lb_unsharp_prepare (rgb, NULL, &up, NULL);
  {
    gconstpointer s1[3] = { g1, m1, u1 }, s3[3] = { g3, m3, u3 };

    for (int k = 0; k < 3; k++)
      {
        g_autoptr (LbKernelBuf) o1 = kb_run_whole (funcs[k], s1[k], gray);
        g_autoptr (LbKernelBuf) o3 = kb_run_whole (funcs[k], s3[k], rgb);

        g_assert_cmpuint (kb_compare (o1, gray, NULL), >, 0);
        for (int y = 0; y < 29; y++)
          for (int x = 0; x < 37; x++)
            for (int c = 0; c < 3; c++)
              g_assert_cmpint (kb_get (o3, x, y, c), ==, kb_get (o1, x, y, 0));
      }
  }
  lb_gaussian_free (g1);
  lb_gaussian_free (g3);
  lb_median_free (m1);
  lb_median_free (m3);
  lb_unsharp_free (u1);
  lb_unsharp_free (u3);
}

/* ------------------------------------------------------------------------------------------ */
/* Unsharp */

static void
test_unsharp_formats (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (29);

  for (gsize f = 0; f < G_N_ELEMENTS (kb_formats); f++)
    for (int iter = 0; iter < 10; iter++)
      {
        int w = g_rand_int_range (rand, 1, 60) | 1, h = g_rand_int_range (rand, 1, 45) | 1;
        g_autoptr (LbKernelBuf) src = kb_new (w, h, kb_formats[f].channels, kb_formats[f].depth);
        LbUnsharpParams p = { g_rand_double_range (rand, 0.3, 6.0),
                              g_rand_double_range (rand, 0.0, 3.0),
                              iter % 3 == 0 ? 0.0 : g_rand_double_range (rand, 0.0, 40.0) };
        g_autoptr (GError) error = NULL;
        LbUnsharp *st;
        g_autoptr (LbKernelBuf) ref = NULL;
        g_autoptr (LbKernelBuf) fast = NULL;
        g_autoptr (LbKernelBuf) bands = NULL;
        int nc = (src->channels == 2 || src->channels == 4) ? src->channels - 1 : src->channels;
        int maxv = kb_formats[f].depth == 16 ? 65535 : 255;
        double scale = kb_formats[f].depth == 16 ? 257.0 : 1.0;

        /* unsharp runs on the whole image; the selection is drawn for the seeded sequence */
        (void) kb_random_rect (rand, w, h, 3);
        kb_fill_random (src, rand, iter % 3);
        st = lb_unsharp_prepare (src, NULL, &p, &error);
        g_assert_no_error (error);
        ref = kb_run_whole (unsharp_ref, st, src);
        fast = kb_run_whole (unsharp_fast, st, src);
        bands = kb_run_bands (unsharp_fast, st, src, rand);
        g_assert_cmpuint (kb_compare (ref, fast, NULL), ==, 0);
        g_assert_cmpuint (kb_compare (ref, bands, NULL), ==, 0);
        kb_assert_alpha_kept (src, fast);

        /* against double maths; where |s − blur| is within float error of the threshold
         * either outcome is right */
        for (int y = 0; y < h; y++)
          for (int x = 0; x < w; x++)
            for (int c = 0; c < nc; c++)
              {
                LbKernelRect all = { 0, 0, w, h };
                double s = kb_get (src, x, y, c);
                double g = gauss2d (src, &all, p.radius, x, y, c);
                double d = s - g, thr = p.threshold * scale;
                int got = kb_get (fast, x, y, c);
                double want = s + p.amount * d;

                if (fabs (fabs (d) - thr) < 0.01 * scale)
                  continue;
                if (fabs (d) < thr)
                  g_assert_cmpint (got, ==, (int) s);
                else
                  g_assert_cmpfloat (fabs (got - CLAMP (want, 0, maxv)), <=,
                                     0.5 + (1 + p.amount) * 0.01 * scale + 1e-9);
              }
        lb_unsharp_free (st);
      }
}

/* ------------------------------------------------------------------------------------------ */

static void
test_bad_params (void)
{
  g_autoptr (LbKernelBuf) src = kb_new (10, 10, 3, 8);
  const LbGaussianParams gaussian_bad[] = { { 0.0 }, { 1e9 }, { NAN } };
  const LbMedianParams median_bad[] = { { -1 }, { LB_MEDIAN_RADIUS_MAX + 1 } };
  const LbUnsharpParams unsharp_bad[] = { { 2, -1, 0 }, { 2, 1, 300 } };

  KB_ASSERT_ALL_INVALID (lb_gaussian_prepare, src, gaussian_bad);
  KB_ASSERT_ALL_INVALID (lb_median_prepare, src, median_bad);
  KB_ASSERT_ALL_INVALID (lb_unsharp_prepare, src, unsharp_bad);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/enhance/median/despeckle-golden", test_median_despeckle_golden);
  g_test_add_func ("/enhance/median/formats", test_median_formats);
  g_test_add_func ("/enhance/gaussian/formats", test_gaussian_formats);
  g_test_add_func ("/enhance/unsharp/formats", test_unsharp_formats);
  g_test_add_func ("/enhance/gray-equals-rgb", test_gray_equals_rgb);
  g_test_add_func ("/enhance/bad-params", test_bad_params);
  return g_test_run ();
}
