/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-xvgeom"

/* xv's Copy/Clear Rotate, Pixelize and Spread kernels: golden files made by xv's own code
 * (tests/data/golden, see MANIFEST.txt), reference vs optimised paths on random images in
 * every format, band-split invariance, alpha pass-through, parameter errors. */

#include <stdlib.h>
#include <string.h>

#include "lb-test-kernel.h"
#include "lb-error.h"
#include "lb-xv-random.h"
#include "lb-xvgeom.h"

KB_WRAP (rotate, LbRotate)
KB_WRAP (pixelize, LbPixelize)
KB_WRAP (spread, LbSpread)

/* ------------------------------------------------------------------------------------------ */
/* Rotate */

static void
check_rotate_golden (const char *input,
                     const char *golden,
                     double      angle,
                     gboolean    clear)
{
  g_autoptr (LbKernelBuf) src = kb_load_golden (input);
  g_autoptr (LbKernelBuf) want = kb_load_golden (golden);
  g_autoptr (GError) error = NULL;
  LbRotateParams p = { .angle = angle, .clear = clear };
  LbRotate *st = lb_rotate_prepare (src, NULL, &p, &error);
  g_autoptr (LbKernelBuf) ref = NULL;
  g_autoptr (LbKernelBuf) fast = NULL;
  int maxd;
  gsize n;

  g_assert_no_error (error);
  ref = kb_run_whole (rotate_ref, st, src);
  n = kb_compare (ref, want, &maxd);
  g_test_message ("%s: scalar path differs from xv in %" G_GSIZE_FORMAT " samples", golden, n);
  g_assert_cmpuint (n, ==, 0);
  fast = kb_run_whole (rotate_fast, st, src);
  n = kb_compare (fast, want, &maxd);
  g_printerr ("# rotate %s: fast path differs from xv in %" G_GSIZE_FORMAT " of %d samples "
              "(max %d)\n", golden, n, src->width * src->height * 3, maxd);
  g_assert_cmpint (maxd, <=, 1);
  lb_rotate_free (st);
}

static void
test_rotate_golden (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (kb_golden_sizes); i++)
    {
      g_autofree char *in = g_strdup_printf ("in_%s.png", kb_golden_sizes[i]);
      g_autofree char *copy = g_strdup_printf ("%s_rotate_copy_30.png", kb_golden_sizes[i]);
      g_autofree char *clear = g_strdup_printf ("%s_rotate_clear_m12.5.png", kb_golden_sizes[i]);

      check_rotate_golden (in, copy, 30.0, FALSE);
      check_rotate_golden (in, clear, -12.5, TRUE);
    }
}

static void
test_rotate_formats (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  static const double angles[] = { 30.0, -12.5, 90.0, 180.0, 7.25, -135.0, 1e-3 };

  for (gsize f = 0; f < G_N_ELEMENTS (kb_formats); f++)
    for (int iter = 0; iter < 8; iter++)
      {
        int w = g_rand_int_range (rand, 1, 60) | 1, h = g_rand_int_range (rand, 1, 50) | 1;
        g_autoptr (LbKernelBuf) src = kb_new (w, h, kb_formats[f].channels, kb_formats[f].depth);
        LbKernelRect sel = kb_random_rect (rand, w, h, 5);
        LbRotateParams p = { .angle = angles[iter % G_N_ELEMENTS (angles)],
                             .clear = iter & 1,
                             .clear_color = { 12, 200, 77 } };
        g_autoptr (GError) error = NULL;
        LbRotate *st;
        g_autoptr (LbKernelBuf) ref = NULL;
        g_autoptr (LbKernelBuf) ref_bands = NULL;
        g_autoptr (LbKernelBuf) fast = NULL;
        g_autoptr (LbKernelBuf) fast_bands = NULL;
        int maxd;
        gsize n;

        kb_fill_random (src, rand, iter % 3);
        st = lb_rotate_prepare (src, iter < 4 ? &sel : NULL, &p, &error);
        g_assert_no_error (error);
        ref = kb_run_whole (rotate_ref, st, src);
        ref_bands = kb_run_bands (rotate_ref, st, src, rand);
        fast = kb_run_whole (rotate_fast, st, src);
        fast_bands = kb_run_bands (rotate_fast, st, src, rand);
        g_assert_cmpuint (kb_compare (ref, ref_bands, NULL), ==, 0);
        g_assert_cmpuint (kb_compare (fast, fast_bands, NULL), ==, 0);
        n = kb_compare (ref, fast, &maxd);
        if (n)
          g_printerr ("# rotate %d×%d ch %d depth %d angle %g: fast differs in %" G_GSIZE_FORMAT
                      " samples\n", w, h, kb_formats[f].channels, kb_formats[f].depth, p.angle, n);
        g_assert_cmpint (maxd, <=, 1);
        kb_assert_alpha_kept (src, fast);
        if (p.angle == 0.0 || iter >= 4)
          {
            /* whole image, not a multiple of 360°: something must have changed */
            if (w > 2 && h > 2 && p.angle != 1e-3)
              g_assert_cmpuint (kb_compare (src, ref, NULL), >, 0);
          }
        lb_rotate_free (st);
      }
}

static void
rotate_fast_nosimd (gconstpointer      s,
                    const LbKernelBuf *a,
                    LbKernelBuf       *b,
                    int                y0,
                    int                y1)
{
  /* the state is the test's own: switching its inner loop is safe between runs */
  lb_rotate_set_simd ((LbRotate *) s, FALSE);
  lb_rotate_process ((const LbRotate *) s, a, b, y0, y1);
  lb_rotate_set_simd ((LbRotate *) s, TRUE);
}

/* The fast path against xv's scalar maths on many angles, RGB8, RGBA8, GRAY16 and GRAY8 (the
 * AVX2 inner loops' formats; GRAY8 also with a selection at the image's last rows, where its
 * 4-byte reads meet the end of the buffer): the vector and portable inner loops give identical bytes, and
 * the number of samples that differ from the scalar path is reported (expected 0: the fast
 * path differs only where xv's blended value lies within ~1e-9 of a rounding step). */
static void
test_rotate_angles (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (99);
  static const double angles[] = { 30, -30, 0.5, -0.5, 1e-3, 15, 45, 60, 89.9, 90, 90.1,
                                   120, 135, 179.99, 180, -180, 210, 270, 300, 359.5, 12.34,
                                   -77.7, 7.25, 200.125 };
  static const struct { int channels, depth; LbKernelRect sel; } cases[] = {
    { 3, 8, { 0, 0, 0, 0 } }, { 4, 8, { 0, 0, 0, 0 } }, { 1, 8, { 0, 0, 0, 0 } },
    { 3, 8, { 17, 9, 120, 77 } }, { 1, 16, { 0, 0, 0, 0 } }, { 1, 16, { 11, 6, 150, 101 } },
    { 1, 8, { 11, 6, 150, 101 } }, { 1, 8, { 0, 100, 203, 51 } },
  };
  gsize total = 0, samples = 0;

  for (gsize c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr (LbKernelBuf) src = kb_new (203, 151, cases[c].channels, cases[c].depth);

      kb_fill_random (src, rand, (int) c % 3);
      for (gsize i = 0; i < G_N_ELEMENTS (angles) + 8; i++)
        {
          double angle = i < G_N_ELEMENTS (angles) ? angles[i] : g_rand_double_range (rand, -360, 360);
          LbRotateParams p = { .angle = angle, .clear = i & 1, .clear_color = { 9, 99, 199 } };
          LbRotate *st = lb_rotate_prepare (src, cases[c].sel.width ? &cases[c].sel : NULL, &p, NULL);
          g_autoptr (LbKernelBuf) ref = kb_run_whole (rotate_ref, st, src);
          g_autoptr (LbKernelBuf) fast = kb_run_whole (rotate_fast, st, src);
          g_autoptr (LbKernelBuf) bands = kb_run_bands (rotate_fast, st, src, rand);
          g_autoptr (LbKernelBuf) portable = kb_run_bands (rotate_fast_nosimd, st, src, rand);
          int maxd;
          gsize n;

          g_assert_cmpuint (kb_compare (fast, bands, NULL), ==, 0);
          g_assert_cmpuint (kb_compare (fast, portable, NULL), ==, 0);
          n = kb_compare (fast, ref, &maxd);
          g_assert_cmpint (maxd, <=, 1);
          if (cases[c].channels == 4)
            g_assert_true (kb_channel_equal (src, fast, 3));
          total += n;
          samples += (gsize) src->width * src->height * cases[c].channels;
          lb_rotate_free (st);
        }
    }
  g_printerr ("# rotate angles: fast path differs from the scalar path in %" G_GSIZE_FORMAT
              " of %" G_GSIZE_FORMAT " samples\n", total, samples);
}

static void
test_rotate_exact_param (void)
{
  g_autoptr (LbKernelBuf) src = kb_load_golden ("in_61x37.png");
  g_autoptr (LbKernelBuf) want = kb_load_golden ("61x37_rotate_copy_30.png");
  LbRotateParams p = { .angle = 30.0, .exact = TRUE };
  LbRotate *st = lb_rotate_prepare (src, NULL, &p, NULL);
  g_autoptr (LbKernelBuf) got = kb_run_whole (rotate_fast, st, src);

  g_assert_cmpuint (kb_compare (got, want, NULL), ==, 0);
  lb_rotate_free (st);
}

/* ------------------------------------------------------------------------------------------ */
/* Pixelize */

static LbKernelBuf *
pixelize (const LbKernelBuf  *src,
          const LbKernelRect *sel,
          int                 pw,
          int                 ph,
          gboolean            bug,
          KbProcessFunc       func)
{
  LbPixelizeParams p = { pw, ph, bug };
  g_autoptr (GError) error = NULL;
  LbPixelize *st = lb_pixelize_prepare (src, sel, &p, &error);
  LbKernelBuf *out;

  g_assert_no_error (error);
  out = kb_run_whole (func, st, src);
  lb_pixelize_free (st);
  return out;
}

/* golden file: size, block, selection (w = 0: none), whether xv's bug shows in it */
static const struct {
  const char *size, *file;
  int pw, ph;
  LbKernelRect sel;
  gboolean bug_shows;
} pixelize_cases[] = {
  { "64x48", "64x48_pixelize_4.png", 4, 4, { 0 }, FALSE },
  { "64x48", "64x48_pixelize_5x8.png", 5, 8, { 0 }, FALSE },
  { "64x48", "64x48_pixelize_4_sel.png", 4, 4, { 10, 7, 30, 25 }, TRUE },
  { "61x37", "61x37_pixelize_4.png", 4, 4, { 0 }, TRUE },
  { "61x37", "61x37_pixelize_5x8.png", 5, 8, { 0 }, TRUE },
  { "61x37", "61x37_pixelize_4_sel.png", 4, 4, { 9, 5, 33, 21 }, TRUE },
  { "512x512", "512x512_pixelize_4.png", 4, 4, { 0 }, FALSE },
  { "512x512", "512x512_pixelize_5x8.png", 5, 8, { 0 }, TRUE },
  { "512x512", "512x512_pixelize_4_sel.png", 4, 4, { 100, 150, 257, 201 }, TRUE },
};

static void
test_pixelize_golden (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (pixelize_cases); i++)
    {
      const LbKernelRect *sel = pixelize_cases[i].sel.width ? &pixelize_cases[i].sel : NULL;
      int pw = pixelize_cases[i].pw, ph = pixelize_cases[i].ph;
      g_autofree char *in = g_strdup_printf ("in_%s.png", pixelize_cases[i].size);
      g_autoptr (LbKernelBuf) src = kb_load_golden (in);
      g_autoptr (LbKernelBuf) want = kb_load_golden (pixelize_cases[i].file);
      KbProcessFunc funcs[2] = { pixelize_ref, pixelize_fast };

      for (int f = 0; f < 2; f++)
        {
          g_autoptr (LbKernelBuf) fixed = pixelize (src, sel, pw, ph, FALSE, funcs[f]);
          g_autoptr (LbKernelBuf) bug = pixelize (src, sel, pw, ph, TRUE, funcs[f]);
          int rx = sel ? sel->x : 0, rw = sel ? sel->width : src->width;
          int nw = (rw + pw - 1) / pw, stx = rx - (nw * pw - rw) / 2;
          /* the first block column ends here; xv's bug touches nothing to its right */
          int first_col_end = stx + pw;
          gsize outside = 0, n;

          /* xv_bug = TRUE reproduces xv exactly, in front-of-buffer reads (read as 0) too */
          n = kb_compare (bug, want, NULL);
          g_assert_cmpuint (n, ==, 0);
          for (int y = 0; y < src->height; y++)
            for (int x = 0; x < src->width; x++)
              for (int c = 0; c < 3; c++)
                if (kb_get (fixed, x, y, c) != kb_get (want, x, y, c))
                  {
                    g_assert_cmpint (x, <, first_col_end);
                    outside++;
                  }
          if (!pixelize_cases[i].bug_shows)
            g_assert_cmpuint (outside, ==, 0);
          else
            g_assert_cmpuint (kb_compare (fixed, bug, NULL), >, 0);
        }
    }
}

static void
test_pixelize_fixed_golden (void)
{
  static const struct { const char *in, *file; int pw, ph; } cases[] = {
    { "in_61x37.png", "61x37_pixelize_4_FIXED.png", 4, 4 },
    { "in_61x37.png", "61x37_pixelize_5x8_FIXED.png", 5, 8 },
    { "in_512x512.png", "512x512_pixelize_5x8_FIXED.png", 5, 8 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (LbKernelBuf) src = kb_load_golden (cases[i].in);
      g_autoptr (LbKernelBuf) want = kb_load_golden (cases[i].file);
      g_autoptr (LbKernelBuf) ref = pixelize (src, NULL, cases[i].pw, cases[i].ph, FALSE,
                                              pixelize_ref);
      g_autoptr (LbKernelBuf) fast = pixelize (src, NULL, cases[i].pw, cases[i].ph, FALSE,
                                               pixelize_fast);

      g_assert_cmpuint (kb_compare (ref, want, NULL), ==, 0);
      g_assert_cmpuint (kb_compare (fast, want, NULL), ==, 0);
    }
}

static void
test_pixelize_formats (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (11);

  for (gsize f = 0; f < G_N_ELEMENTS (kb_formats); f++)
    for (int iter = 0; iter < 10; iter++)
      {
        int w = g_rand_int_range (rand, 1, 70) | 1, h = g_rand_int_range (rand, 1, 50) | 1;
        g_autoptr (LbKernelBuf) src = kb_new (w, h, kb_formats[f].channels, kb_formats[f].depth);
        LbKernelRect sel = kb_random_rect (rand, w, h, 3);
        LbPixelizeParams p = { g_rand_int_range (rand, 1, 9), g_rand_int_range (rand, 1, 9),
                               iter & 1 };
        g_autoptr (GError) error = NULL;
        LbPixelize *st;
        g_autoptr (LbKernelBuf) ref = NULL;
        g_autoptr (LbKernelBuf) fast = NULL;
        g_autoptr (LbKernelBuf) fast_bands = NULL;

        kb_fill_random (src, rand, 0);
        st = lb_pixelize_prepare (src, iter < 6 ? &sel : NULL, &p, &error);
        g_assert_no_error (error);
        ref = kb_run_whole (pixelize_ref, st, src);
        fast = kb_run_whole (pixelize_fast, st, src);
        fast_bands = kb_run_bands (pixelize_fast, st, src, rand);
        g_assert_cmpuint (kb_compare (ref, fast, NULL), ==, 0);
        g_assert_cmpuint (kb_compare (ref, fast_bands, NULL), ==, 0);
        kb_assert_alpha_kept (src, fast);
        lb_pixelize_free (st);
      }
}

/* ------------------------------------------------------------------------------------------ */
/* Spread */

/* The golden case of size kb_golden_sizes[@i] in @mode (0: distance 5, 1: a 1×5 rectangle;
 * seed 1): its input, the expected output and the kernel prepared for the whole image. */
static LbSpread *
spread_golden_prepare (gsize         i,
                       int           mode,
                       LbKernelBuf **src,
                       LbKernelBuf **want)
{
  LbSpreadParams p = mode ? (LbSpreadParams) { TRUE, 1, 5, 1 }
                          : (LbSpreadParams) { FALSE, 5, 0, 1 };

  *src = kb_load_goldenf ("in_%s.png", kb_golden_sizes[i]);
  *want = kb_load_goldenf ("%s_spread_%s_seed1.png", kb_golden_sizes[i], mode ? "1x5" : "5");
  return lb_spread_prepare (*src, NULL, &p, NULL);
}

static void
test_spread_golden (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (kb_golden_sizes); i++)
    for (int mode = 0; mode < 2; mode++)
      {
        g_autoptr (LbKernelBuf) src = NULL;
        g_autoptr (LbKernelBuf) want = NULL;
        LbSpread *st = spread_golden_prepare (i, mode, &src, &want);
        g_autoptr (LbKernelBuf) ref = kb_run_whole (spread_ref, st, src);
        g_autoptr (LbKernelBuf) fast = kb_run_whole (spread_fast, st, src);

        g_assert_cmpuint (kb_compare (ref, want, NULL), ==, 0);
        g_assert_cmpuint (kb_compare (fast, want, NULL), ==, 0);
        lb_spread_free (st);
      }
}

/* The banded (parallel) form: bands in shuffled order, then their deferred pixels in 1–4 parts
 * in shuffled order (test-spread.c checks that they write every sample of the region). @band_rows ≤ 0 keeps the
 * kernel's own choice. */
static void
shuffle (int   *order,
         int    n,
         GRand *rand)
{
  for (int i = 0; i < n; i++)
    order[i] = i;
  for (int i = n; i > 1; i--)
    {
      int j = g_rand_int_range (rand, 0, i), t = order[i - 1];

      order[i - 1] = order[j];
      order[j] = t;
    }
}

static LbKernelBuf *
spread_banded (LbSpread          *st,
               const LbKernelBuf *src,
               int                band_rows,
               GRand             *rand)
{
  int n;
  g_autofree int *order = NULL;
  LbKernelBuf *dst = kb_copy (src);

  if (band_rows > 0)
    lb_spread_set_band_rows (st, band_rows);
  n = lb_spread_get_n_bands (st);
  order = g_new (int, MAX (n, 4));
  shuffle (order, n, rand);
  /* in shuffled order: a band settles what it kept only after the bands before it */
  for (int i = 0; i < n; i++)
    lb_spread_process_band (st, src, dst, order[i]);
  return dst;
}

static void
test_spread_banded_golden (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (17);
  static const int band_rows[] = { 0, 1, 3, 7, 10, 21 };

  for (gsize i = 0; i < G_N_ELEMENTS (kb_golden_sizes); i++)
    for (int mode = 0; mode < 2; mode++)
      for (gsize k = 0; k < G_N_ELEMENTS (band_rows); k++)
        {
          g_autoptr (LbKernelBuf) src = NULL;
          g_autoptr (LbKernelBuf) want = NULL;
          LbSpread *st = spread_golden_prepare (i, mode, &src, &want);
          g_autoptr (LbKernelBuf) got = spread_banded (st, src, band_rows[k], rand);

          if (band_rows[k] > 0)
            g_assert_cmpint (lb_spread_get_n_bands (st), ==, (src->height + band_rows[k] - 1) / band_rows[k]);
          else
            g_assert_cmpint (lb_spread_get_n_bands (st), >, 1);
          g_assert_cmpuint (kb_compare (got, want, NULL), ==, 0);
          lb_spread_free (st);
        }
}

/* Spread against its scalar reference in every format: @iters random images per format
 * smaller than @max_w × @max_h (the first half with a selection), both modes, distances
 * below @max_dist. The whole-image form is checked on odd sizes; the banded form (if
 * @banded) with band heights from 1 row (far below the distance) to the whole region. */
static void
check_spread_formats (guint32  seed,
                      int      iters,
                      int      max_w,
                      int      max_h,
                      int      max_dist,
                      gboolean banded)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  const int odd = banded ? 0 : 1;

  for (gsize f = 0; f < G_N_ELEMENTS (kb_formats); f++)
    for (int iter = 0; iter < iters; iter++)
      {
        int w = g_rand_int_range (rand, 1, max_w) | odd, h = g_rand_int_range (rand, 1, max_h) | odd;
        g_autoptr (LbKernelBuf) src = kb_new (w, h, kb_formats[f].channels, kb_formats[f].depth);
        LbKernelRect sel = kb_random_rect (rand, w, h, 3);
        LbSpreadParams p = { iter & 1, g_rand_int_range (rand, 0, max_dist),
                             g_rand_int_range (rand, 0, max_dist), g_rand_int (rand) };
        int band_rows = banded && iter % 3 != 0 ? g_rand_int_range (rand, 1, 40) : 0;
        LbSpread *st;
        g_autoptr (GError) error = NULL;
        g_autoptr (LbKernelBuf) ref = NULL;
        g_autoptr (LbKernelBuf) got = NULL;

        kb_fill_random (src, rand, 0);
        st = lb_spread_prepare (src, iter < iters / 2 ? &sel : NULL, &p, &error);
        g_assert_no_error (error);
        ref = kb_run_whole (spread_ref, st, src);
        got = banded ? spread_banded (st, src, band_rows, rand) : kb_run_whole (spread_fast, st, src);
        if (kb_compare (ref, got, NULL) != 0)
          g_printerr ("# %s spread %d×%d ch %d depth %d sel %d,%d %d×%d rect %d %d×%d seed %u band rows %d (%d bands)\n",
                      banded ? "banded" : "whole", w, h, kb_formats[f].channels,
                      kb_formats[f].depth, sel.x, sel.y, sel.width, sel.height, p.rectangle,
                      p.width, p.height, p.seed, band_rows, lb_spread_get_n_bands (st));
        g_assert_cmpuint (kb_compare (ref, got, NULL), ==, 0);
        kb_assert_alpha_kept (src, got);
        lb_spread_free (st);
      }
}

static void
test_spread_formats (void)
{
  check_spread_formats (13, 12, 70, 50, 12, FALSE);
}

static void
test_spread_banded_formats (void)
{
  check_spread_formats (23, 24, 90, 120, 14, TRUE);
}

/* The kernel limits distances to the region's size; spec §10 with 64-bit arithmetic and no
 * limit must give the same image for distances near INT_MAX. */
static void
spread_unlimited (LbKernelBuf *img,
                  gboolean     rect,
                  gint64       px,
                  gint64       py,
                  guint32      seed)
{
  LbXvRandom rng;
  gint64 ex = img->width - 1, ey = img->height - 1;

  lb_xv_random_seed (&rng, seed);
  for (gint64 y = 0; y <= ey; y++)
    for (gint64 x = 0; x <= ex; x++)
      {
        gint64 lo = MAX (0, x - px), hi = MIN (ex, x + px), x1, y1, rd;
        guint8 *a, *b, t[3];

        x1 = lo + lb_xv_random_next (&rng) % (hi - lo + 1);
        rd = rect ? py : px - ABS (x1 - x);
        lo = MAX (0, y - rd);
        hi = MIN (ey, y + rd);
        y1 = lo + lb_xv_random_next (&rng) % (hi - lo + 1);
        a = img->data + y * img->stride + x * 3;
        b = img->data + y1 * img->stride + x1 * 3;
        memcpy (t, a, 3);
        memcpy (a, b, 3);
        memcpy (b, t, 3);
      }
}

static void
test_spread_huge_distance (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (31);
  g_autoptr (LbKernelBuf) src = kb_new (23, 17, 3, 8);

  kb_fill_random (src, rand, 0);
  for (int rect = 0; rect < 2; rect++)
    {
      LbSpreadParams p = { rect, G_MAXINT, G_MAXINT, 77 };
      LbSpread *st = lb_spread_prepare (src, NULL, &p, NULL);
      g_autoptr (LbKernelBuf) got = kb_run_whole (spread_fast, st, src);
      g_autoptr (LbKernelBuf) want = kb_copy (src);

      spread_unlimited (want, rect, G_MAXINT, G_MAXINT, 77);
      g_assert_cmpuint (kb_compare (got, want, NULL), ==, 0);
      g_assert_cmpuint (kb_compare (got, src, NULL), >, 0);
      lb_spread_free (st);
    }
}

/* ------------------------------------------------------------------------------------------ */

static void
test_bad_params (void)
{
  g_autoptr (LbKernelBuf) src = kb_new (10, 10, 3, 8);
  g_autoptr (GError) error = NULL;
  const LbPixelizeParams pixelize_bad[] = { { 0, 4, FALSE } };
  const LbSpreadParams spread_bad[] = { { TRUE, -1, 2, 1 } };
  const LbRotateParams rotate_bad[] = {
    { .angle = 1.0 / 0.0 },
    { .angle = 10, .clear = TRUE, .clear_color = { 256, 0, 0 } },
  };
  LbKernelRect bad = { 0, 0, -4, 3 };
  LbPixelizeParams ok = { 4, 4, FALSE };
  LbKernelBuf weird = *src;

  KB_ASSERT_ALL_INVALID (lb_pixelize_prepare, src, pixelize_bad);
  KB_ASSERT_ALL_INVALID (lb_spread_prepare, src, spread_bad);
  KB_ASSERT_ALL_INVALID (lb_rotate_prepare, src, rotate_bad);
  kb_assert_prepare_fails (lb_pixelize_prepare (src, &bad, &ok, &error), &error,
                           LB_ERROR_INVALID_ARGUMENT);
  weird.depth = 12;
  kb_assert_prepare_fails (lb_pixelize_prepare (&weird, NULL, &ok, &error), &error,
                           LB_ERROR_UNSUPPORTED);
  weird = *src;
  weird.stride = 5;
  kb_assert_prepare_fails (lb_pixelize_prepare (&weird, NULL, &ok, &error), &error,
                           LB_ERROR_INVALID_ARGUMENT);
}

/* A selection entirely outside the image clips to nothing: prepare succeeds, nothing changes. */
static void
test_empty_region (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (3);
  g_autoptr (LbKernelBuf) src = kb_new (9, 7, 3, 8);
  LbKernelRect sel = { 20, 20, 5, 5 };
  LbRotateParams rp = { .angle = 30, .clear = TRUE };
  LbPixelizeParams pp = { 3, 3, TRUE };
  LbSpreadParams sp = { FALSE, 5, 0, 1 };
  LbRotate *r;
  LbPixelize *p;
  LbSpread *s;
  g_autoptr (LbKernelBuf) o1 = NULL;
  g_autoptr (LbKernelBuf) o2 = NULL;
  g_autoptr (LbKernelBuf) o3 = NULL;

  kb_fill_random (src, rand, 0);
  r = lb_rotate_prepare (src, &sel, &rp, NULL);
  p = lb_pixelize_prepare (src, &sel, &pp, NULL);
  s = lb_spread_prepare (src, &sel, &sp, NULL);
  g_assert_nonnull (r);
  g_assert_nonnull (p);
  g_assert_nonnull (s);
  o1 = kb_run_whole (rotate_fast, r, src);
  o2 = kb_run_whole (pixelize_fast, p, src);
  o3 = kb_run_whole (spread_fast, s, src);
  g_assert_cmpuint (kb_compare (src, o1, NULL), ==, 0);
  g_assert_cmpuint (kb_compare (src, o2, NULL), ==, 0);
  g_assert_cmpuint (kb_compare (src, o3, NULL), ==, 0);
  lb_rotate_free (r);
  lb_pixelize_free (p);
  lb_spread_free (s);
}

/* Rotate's AVX2 loop (8-bit RGB and RGBA) on rows without padding: it reads each pair of
 * horizontal neighbours with one 8-byte load, so at the last pixels of the buffer it must
 * hand the pixel to the scalar loop instead of reading past the end. Small tight images
 * (every width from 9 to 26, so every remainder of its eight-pixel steps), small angles (the
 * bottom-right source pixels are read by many destination pixels) and others: the AVX2 and
 * portable loops give the same bytes, the fast path stays within 1 of the scalar path, and
 * alpha is kept. */
static void
test_rotate_tight_rows (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (2024);
  static const double angles[] = { 0.5, -0.5, 1e-3, 2.5, -3.75, 30, -60, 90.25, 179.5 };
  static const int heights[] = { 3, 4, 5, 9, 16 };
  gsize differ = 0;

  for (int ch = 3; ch <= 4; ch++)
    for (int w = 9; w <= 26; w++)
      for (gsize hi = 0; hi < G_N_ELEMENTS (heights); hi++)
        {
          const int h = heights[hi];
          g_autoptr (LbKernelBuf) src = g_new0 (LbKernelBuf, 1);

          src->width = w;
          src->height = h;
          src->channels = ch;
          src->depth = 8;
          src->stride = (gsize) w * ch;
          src->data = g_malloc0 (src->stride * h); /* the exact size: no slack after the last row */
          kb_fill_random (src, rand, (w + h) % 3);
          for (gsize a = 0; a < G_N_ELEMENTS (angles); a++)
            {
              LbRotateParams p = { .angle = angles[a], .clear = (w + a) & 1,
                                   .clear_color = { 3, 30, 250 } };
              LbRotate *st = lb_rotate_prepare (src, NULL, &p, NULL);
              g_autoptr (LbKernelBuf) ref = NULL;
              g_autoptr (LbKernelBuf) fast = NULL;
              g_autoptr (LbKernelBuf) portable = NULL;
              int maxd;

              g_assert_nonnull (st);
              ref = kb_run_whole (rotate_ref, st, src);
              fast = kb_run_bands (rotate_fast, st, src, rand);
              portable = kb_run_whole (rotate_fast_nosimd, st, src);
              g_assert_cmpuint (kb_compare (fast, portable, NULL), ==, 0);
              differ += kb_compare (fast, ref, &maxd);
              g_assert_cmpint (maxd, <=, 1);
              kb_assert_alpha_kept (src, fast);
              lb_rotate_free (st);
            }
        }
  g_printerr ("# rotate tight rows: fast path differs from the scalar path in %" G_GSIZE_FORMAT
              " samples\n", differ);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/xvgeom/rotate/golden", test_rotate_golden);
  g_test_add_func ("/xvgeom/rotate/exact-param", test_rotate_exact_param);
  g_test_add_func ("/xvgeom/rotate/formats", test_rotate_formats);
  g_test_add_func ("/xvgeom/rotate/angles", test_rotate_angles);
  g_test_add_func ("/xvgeom/pixelize/golden", test_pixelize_golden);
  g_test_add_func ("/xvgeom/pixelize/fixed-golden", test_pixelize_fixed_golden);
  g_test_add_func ("/xvgeom/pixelize/formats", test_pixelize_formats);
  g_test_add_func ("/xvgeom/spread/golden", test_spread_golden);
  g_test_add_func ("/xvgeom/spread/formats", test_spread_formats);
  g_test_add_func ("/xvgeom/spread/huge-distance", test_spread_huge_distance);
  g_test_add_func ("/xvgeom/spread/banded-golden", test_spread_banded_golden);
  g_test_add_func ("/xvgeom/spread/banded-formats", test_spread_banded_formats);
  g_test_add_func ("/xvgeom/bad-params", test_bad_params);
  g_test_add_func ("/xvgeom/empty-region", test_empty_region);
  g_test_add_func ("/xvgeom/rotate/tight-rows", test_rotate_tight_rows);
  return g_test_run ();
}
