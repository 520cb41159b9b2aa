/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-spread"

/* xv's Spread, the fast paths against the scalar reference: the "% m" multiplication, the AVX2
 * and portable loops, the banded form run on 1–3 real threads (bands, then the pixels they
 * leave to earlier bands), every format, both forms, selections, seeds and band heights; and
 * xv's golden files through the threaded form. */

#include <string.h>

#include "lb-test-kernel.h"
#include "lb-xv-random.h"
#include "lb-xvgeom.h"

/* ------------------------------------------------------------------------------------------ */
/* "% m" (lb_xv_random_mod) */

/* both forms of the multiplication (scalar, and the vector path's ((2a · M) >> 32) >> ℓ)
 * against the division */
static void
check_mod (guint32 a,
           guint32 m,
           guint32 magic,
           guint32 shift)
{
  guint32 want = a % m;
  guint32 q2 = (guint32) ((((guint64) (a << 1) * magic) >> 32) >> shift);

  if (lb_xv_random_mod (a, m, magic, shift) != want || a - q2 * m != want)
    g_error ("%u %% %u: %u, got %u and %u", a, m, want, lb_xv_random_mod (a, m, magic, shift),
             a - q2 * m);
}

static void
check_modulus (guint32 m,
               GRand  *rand)
{
  guint32 magic, shift;
  guint64 e;

  lb_xv_random_mod_magic (m, &magic, &shift);
  /* the premises of the exactness argument (lb-xv-random.h): 2^(ℓ−1) < m ≤ 2^ℓ and
   * 0 ≤ e = M·m − 2^(31+ℓ) < 2^ℓ, so the error a·e / (m · 2^(31+ℓ)) < 1/m for a < 2³¹ */
  g_assert_cmpuint (G_GUINT64_CONSTANT (1) << shift, >=, m);
  if (shift > 0)
    g_assert_cmpuint (G_GUINT64_CONSTANT (1) << (shift - 1), <, m);
  e = (guint64) magic * m - (G_GUINT64_CONSTANT (1) << (31 + shift));
  g_assert_cmpuint ((guint64) magic * m, >=, G_GUINT64_CONSTANT (1) << (31 + shift));
  g_assert_cmpuint (e, <, G_GUINT64_CONSTANT (1) << shift);
  /* the error grows with a and is largest at the top of a residue class (a = q·m + m − 1):
   * the classes just below 2³¹, the bottom of the range, random values */
  for (guint64 k = 0, qtop = G_MAXINT32 / m; k <= qtop && k < 64; k++)
    {
      guint64 q = qtop - k;

      check_mod ((guint32) MIN (q * m + m - 1, (guint64) G_MAXINT32), m, magic, shift);
      check_mod ((guint32) (q * m), m, magic, shift);
    }
  for (guint32 a = 0; a < 64; a++)
    check_mod (a, m, magic, shift);
  check_mod (G_MAXINT32, m, magic, shift);
  for (int i = 0; i < 16; i++)
    check_mod (g_rand_int (rand) >> 1, m, magic, shift);
}

/* every modulus up to 2²⁰ (far beyond any draw range of an image below 2²⁰ pixels across),
 * powers of two and their neighbours up to 2³¹, a sample of the rest */
static void
test_mod (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (5);

  for (guint32 m = 1; m <= (1u << 20); m++)
    check_modulus (m, rand);
  for (int l = 20; l <= 31; l++)
    for (gint64 dm = -3; dm <= 3; dm++)
      {
        gint64 m = (G_GINT64_CONSTANT (1) << l) + dm;

        if (m >= 1 && m <= (G_GINT64_CONSTANT (1) << 31))
          check_modulus ((guint32) m, rand);
      }
  for (int i = 0; i < 20000; i++)
    check_modulus (g_rand_int_range (rand, 1 << 20, G_MAXINT32) + 1u, rand);
}

/* ------------------------------------------------------------------------------------------ */
/* The banded form on real threads */

typedef struct {
  const LbSpread *st;
  const LbKernelBuf *src;
  LbKernelBuf *dst;
  int n_items;
  gint next;
} Run;

static gpointer
run_worker (gpointer data)
{
  Run *r = data;
  int i;

  while ((i = g_atomic_int_add (&r->next, 1)) < r->n_items)
    lb_spread_process_band (r->st, r->src, r->dst, i);
  return NULL;
}

static void
run_threads (Run *r,
             int  n_threads)
{
  GThread *threads[3];

  g_assert_cmpint (n_threads, <=, 3);
  for (int t = 0; t < n_threads; t++)
    threads[t] = g_thread_new ("spread-test", run_worker, r);
  for (int t = 0; t < n_threads; t++)
    g_thread_join (threads[t]);
}

/* A copy of @src whose region @sel (clipped; NULL: the whole image) holds noise instead: the
 * plugin declares LB_FILTER_FLAG_OVERWRITES, so the host no longer copies the region into the
 * destination and spread must write every sample of it itself (alpha included). */
static LbKernelBuf *
copy_scribbled (const LbKernelBuf  *src,
                const LbKernelRect *sel)
{
  LbKernelBuf *dst = kb_copy (src);
  gsize pb = (gsize) src->channels * (src->depth / 8);
  int x0 = sel ? MAX (sel->x, 0) : 0, y0 = sel ? MAX (sel->y, 0) : 0;
  int x1 = sel ? MIN (sel->x + sel->width, src->width) : src->width;
  int y1 = sel ? MIN (sel->y + sel->height, src->height) : src->height;
  guint32 noise = 0x9e3779b9u ^ (guint32) (src->width * 7919 + src->height);

  for (int y = y0; y < y1; y++)
    for (gsize i = (gsize) x0 * pb; i < (gsize) x1 * pb; i++)
      {
        noise = noise * 1664525u + 1013904223u;
        dst->data[(gsize) y * dst->stride + i] = (guint8) (noise >> 24);
      }
  return dst;
}

/* lb_spread_process() on a destination whose region holds noise */
static LbKernelBuf *
spread_whole (const LbSpread     *st,
              const LbKernelBuf  *src,
              const LbKernelRect *sel)
{
  LbKernelBuf *dst = copy_scribbled (src, sel);

  lb_spread_process (st, src, dst, 0, src->height);
  return dst;
}

/* like the plugin: the bands concurrently (each settles what the bands before it decide, on
 * whichever thread finds it ready), on a destination whose region holds noise; a spread that
 * moves nothing has no bands, and process() copies the region */
static LbKernelBuf *
spread_threaded (LbSpread           *st,
                 const LbKernelBuf  *src,
                 const LbKernelRect *sel,
                 int                 n_threads)
{
  LbKernelBuf *dst = copy_scribbled (src, sel);
  Run bands = { st, src, dst, lb_spread_get_n_bands (st), 0 };

  if (bands.n_items == 0)
    {
      lb_spread_process (st, src, dst, 0, src->height);
      return dst;
    }
  run_threads (&bands, n_threads);
  return dst;
}

/* the reference as a KbProcessFunc (the fast form runs through spread_whole () instead, on a
 * destination whose region holds noise) */
static void
spread_ref (gconstpointer      s,
            const LbKernelBuf *a,
            LbKernelBuf       *b,
            int                y0,
            int                y1)
{
  lb_spread_process_reference ((const LbSpread *) s, a, b, y0, y1);
}

/* every format: GRAY8, GRAY16, RGB8, RGBA8, GRAYA8, RGB16, RGBA16, GRAYA16 */
static const struct { int channels, depth; } formats[] = {
  { 1, 8 }, { 1, 16 }, { 3, 8 }, { 4, 8 }, { 2, 8 }, { 3, 16 }, { 4, 16 }, { 2, 16 },
};

/* Every format, both forms, selections or not, distances up to 20 (lookups in registers and
 * through memory), band heights from 1 row to the whole region, AVX2 and portable loops, 1–3
 * threads, against the reference; images up to 300 × 320 so that bands span several chunks of
 * rows and their windows slide, and rows several steps of 8 pixels. */
static void
test_threads_formats (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (29);

  for (gsize f = 0; f < G_N_ELEMENTS (formats); f++)
    for (int iter = 0; iter < 10; iter++)
      {
        gboolean big = iter < 3;
        int w = big ? g_rand_int_range (rand, 150, 300) : g_rand_int_range (rand, 1, 80);
        int h = big ? g_rand_int_range (rand, 200, 320) : g_rand_int_range (rand, 1, 90);
        g_autoptr (LbKernelBuf) src = kb_new (w, h, formats[f].channels, formats[f].depth);
        LbKernelRect sel = { g_rand_int_range (rand, -3, w / 2 + 1), g_rand_int_range (rand, -3, h / 2 + 1),
                             g_rand_int_range (rand, 1, w + 3), g_rand_int_range (rand, 1, h + 3) };
        LbSpreadParams p = { iter & 1, g_rand_int_range (rand, 0, iter == 4 ? 21 : 9),
                             g_rand_int_range (rand, 0, 9), g_rand_int (rand) };
        static const int band_rows[] = { 0, 1, 3, 17, 150 };
        g_autoptr (LbKernelBuf) want = NULL;
        g_autoptr (LbKernelBuf) whole = NULL;
        LbSpread *st;

        kb_fill_random (src, rand, 0);
        st = lb_spread_prepare (src, iter % 3 == 2 ? &sel : NULL, &p, NULL);
        g_assert_nonnull (st);
        want = kb_run_whole (spread_ref, st, src);
        whole = spread_whole (st, src, iter % 3 == 2 ? &sel : NULL);
        g_assert_cmpuint (kb_compare (want, whole, NULL), ==, 0);
        for (gsize k = 0; k < G_N_ELEMENTS (band_rows); k++)
          for (int simd = 0; simd < 2; simd++)
            {
              int n_threads = 1 + (int) ((k + simd) % 3);
              g_autoptr (LbKernelBuf) got = NULL;

              if (band_rows[k] > 0)
                lb_spread_set_band_rows (st, band_rows[k]);
              lb_spread_set_simd (st, simd);
              got = spread_threaded (st, src, iter % 3 == 2 ? &sel : NULL, n_threads);
              if (kb_compare (want, got, NULL) != 0)
                g_error ("%d×%d ch %d depth %d sel %d rect %d %d×%d seed %u band rows %d bands %d "
                         "simd %d threads %d: %" G_GSIZE_FORMAT " samples differ", w, h,
                         formats[f].channels, formats[f].depth, iter % 3 == 2, p.rectangle,
                         p.width, p.height, p.seed, band_rows[k], lb_spread_get_n_bands (st),
                         simd, n_threads, kb_compare (want, got, NULL));
              kb_assert_alpha_kept (src, got);
            }
        lb_spread_free (st);
      }
}

/* xv's own output (srandom(1)) through the threaded form and the one-thread form, AVX2 and
 * portable draws */
static void
test_golden_threads (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (kb_golden_sizes); i++)
    for (int mode = 0; mode < 2; mode++)
      {
        g_autoptr (LbKernelBuf) src = kb_load_goldenf ("in_%s.png", kb_golden_sizes[i]);
        g_autoptr (LbKernelBuf) want = kb_load_goldenf ("%s_spread_%s_seed1.png", kb_golden_sizes[i],
                                                        mode ? "1x5" : "5");
        LbSpreadParams p = mode ? (LbSpreadParams) { TRUE, 1, 5, 1 }
                                : (LbSpreadParams) { FALSE, 5, 0, 1 };
        LbSpread *st = lb_spread_prepare (src, NULL, &p, NULL);

        for (int simd = 0; simd < 2; simd++)
          {
            g_autoptr (LbKernelBuf) whole = NULL;

            lb_spread_set_simd (st, simd);
            whole = spread_whole (st, src, NULL);
            g_assert_cmpuint (kb_compare (whole, want, NULL), ==, 0);
            for (int n_threads = 1; n_threads <= 3; n_threads++)
              {
                g_autoptr (LbKernelBuf) got = spread_threaded (st, src, NULL, n_threads);

                g_assert_cmpuint (kb_compare (got, want, NULL), ==, 0);
              }
          }
        lb_spread_free (st);
      }
}

/* Large regions: 9 Mpx GRAY8 runs banded whatever its size (a band's scratch is a window of
 * rows and its seam), exactly as the reference, one thread or two, the bands also run one
 * after another; with distance 400 (a window of over 800 rows per band: 39 MB of scratch, over
 * 32 MiB and 90 % of the image) there is no banded form: xv's swaps in place, exactly as the
 * reference. */
static void
test_large (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (31);
  g_autoptr (LbKernelBuf) big = kb_new (3000, 3000, 1, 8);
  g_autoptr (LbKernelBuf) want = NULL;
  g_autoptr (LbKernelBuf) got = NULL;
  g_autoptr (LbKernelBuf) threaded = NULL;
  LbSpreadParams p = { FALSE, 5, 0, 7 };
  int n_proc = (int) CLAMP (g_get_num_processors (), 1, 64);
  LbSpread *st;

  kb_fill_random (big, rand, 0);
  st = lb_spread_prepare (big, NULL, &p, NULL);
  g_assert_nonnull (st);
  g_assert_cmpint (lb_spread_get_n_bands (st), ==, n_proc);
  want = kb_run_whole (spread_ref, st, big);
  got = spread_whole (st, big, NULL);
  g_assert_cmpuint (kb_compare (want, got, NULL), ==, 0);
  threaded = spread_threaded (st, big, NULL, 2);
  g_assert_cmpuint (kb_compare (want, threaded, NULL), ==, 0);
  /* many bands, one thread after another */
  g_clear_pointer (&threaded, kb_free);
  lb_spread_set_band_rows (st, 97);
  threaded = spread_threaded (st, big, NULL, 1);
  g_assert_cmpuint (kb_compare (want, threaded, NULL), ==, 0);
  lb_spread_free (st);

  p.width = 400;
  st = lb_spread_prepare (big, NULL, &p, NULL);
  g_assert_nonnull (st);
  g_assert_cmpint (lb_spread_get_n_bands (st), ==, 1);
  g_clear_pointer (&want, kb_free);
  g_clear_pointer (&got, kb_free);
  want = kb_run_whole (spread_ref, st, big);
  got = spread_whole (st, big, NULL);
  g_assert_cmpuint (kb_compare (want, got, NULL), ==, 0);
  lb_spread_free (st);
}

/* "0" and "0x0" move nothing (and have no bands): the region is still written (a copy of the
 * source) by process(), in every format */
static void
test_inactive_writes_region (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (37);

  for (gsize f = 0; f < G_N_ELEMENTS (formats); f++)
    for (int rect = 0; rect < 2; rect++)
      {
        g_autoptr (LbKernelBuf) src = kb_new (37, 23, formats[f].channels, formats[f].depth);
        LbKernelRect sel = { 5, 3, 20, 30 };
        LbSpreadParams p = { rect, 0, 0, 3 };
        g_autoptr (LbKernelBuf) whole = NULL;
        LbSpread *st;

        kb_fill_random (src, rand, 0);
        st = lb_spread_prepare (src, &sel, &p, NULL);
        g_assert_nonnull (st);
        g_assert_cmpint (lb_spread_get_n_bands (st), ==, 0);
        whole = spread_whole (st, src, &sel);
        g_assert_cmpuint (kb_compare (src, whole, NULL), ==, 0);
        lb_spread_free (st);
      }
}

/* A state serves pass after pass: passes of growing and shrinking sizes in turn, two states
 * alive at once, a state whose bands change between passes, and a pass too large for the
 * banded form in between: each against the reference. */
static void
test_reuse (void)
{
  static const struct { int w, h, ch, depth; } sizes[] = {
    { 300, 320, 3, 8 }, { 40, 30, 1, 16 }, { 260, 300, 1, 8 }, { 500, 420, 4, 8 },
    { 7, 5, 3, 8 }, { 3000, 3000, 1, 8 }, { 280, 310, 1, 16 },
  };
  g_autoptr (GRand) rand = g_rand_new_with_seed (41);
  LbSpread *held = NULL;
  LbKernelBuf *held_src = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      g_autoptr (LbKernelBuf) src = kb_new (sizes[i].w, sizes[i].h, sizes[i].ch, sizes[i].depth);
      gboolean huge = sizes[i].w * sizes[i].h >= 9000000;
      /* the 9 Mpx pass with distances of 400 rows has no banded form (test_large) */
      LbSpreadParams p = { i & 1, huge ? 400 : 3 + (int) i, huge ? 400 : 2, g_rand_int (rand) };
      g_autoptr (LbKernelBuf) want = NULL;
      g_autoptr (LbKernelBuf) got = NULL;
      LbSpread *st;

      kb_fill_random (src, rand, 0);
      st = lb_spread_prepare (src, NULL, &p, NULL);
      g_assert_nonnull (st);
      want = kb_run_whole (spread_ref, st, src);
      if (!huge)
        {
          got = spread_threaded (st, src, NULL, 2);
          g_assert_cmpuint (kb_compare (want, got, NULL), ==, 0);
          /* other bands */
          g_clear_pointer (&got, kb_free);
          lb_spread_set_band_rows (st, 1 + (int) i * 5);
          got = spread_threaded (st, src, NULL, 2);
          g_assert_cmpuint (kb_compare (want, got, NULL), ==, 0);
          g_clear_pointer (&got, kb_free);
        }
      got = spread_whole (st, src, NULL);
      g_assert_cmpuint (kb_compare (want, got, NULL), ==, 0);
      if (held == NULL)
        {
          /* keep this state alive through the next passes */
          held = st;
          held_src = kb_copy (src);
        }
      else
        lb_spread_free (st);
    }
  /* the held state was never shared: it still gives its own image */
  {
    g_autoptr (LbKernelBuf) want = kb_run_whole (spread_ref, held, held_src);
    g_autoptr (LbKernelBuf) got = spread_threaded (held, held_src, NULL, 3);

    g_assert_cmpuint (kb_compare (want, got, NULL), ==, 0);
  }
  lb_spread_free (held);
  kb_free (held_src);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/spread/mod", test_mod);
  g_test_add_func ("/spread/threads-formats", test_threads_formats);
  g_test_add_func ("/spread/golden-threads", test_golden_threads);
  g_test_add_func ("/spread/large", test_large);
  g_test_add_func ("/spread/inactive-writes-region", test_inactive_writes_region);
  g_test_add_func ("/spread/reuse", test_reuse);
  return g_test_run ();
}
