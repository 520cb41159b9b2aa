/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-pixelize-fast"

/* Pixelize's optimised paths against its reference on random images in every format: the
 * 8-bit path (each block width it specialises, 1 to 12, wide blocks whose mean needs a
 * division, blocks taller than its 16-bit column sums allow), the 16-bit path, xv's bug
 * form, selections and random band splits. The destination's region rows start as garbage,
 * alpha included: pixelize declares LB_FILTER_FLAG_OVERWRITES, so both paths must write
 * every sample there (alpha = the source's). */

#include <string.h>

#include "lb-test-kernel.h"
#include "lb-xvgeom.h"

typedef void (*PixelizeFunc) (const LbPixelize *, const LbKernelBuf *, LbKernelBuf *, int, int);

/* @process over random bands of 1 to 11 rows, in order, on a copy of @src whose region @r
 * (if not %NULL) is filled with @v first. */
static LbKernelBuf *
run_pixelize (PixelizeFunc process, const LbPixelize *st, const LbKernelBuf *src,
              const LbKernelRect *r, guint8 v, GRand *rand)
{
  LbKernelBuf *dst = kb_copy (src);
  const gsize bps = (gsize) src->depth / 8;

  for (int yy = r ? r->y : 0; r != NULL && yy < r->y + r->height; yy++)
    memset (dst->data + (gsize) yy * dst->stride + (gsize) r->x * src->channels * bps, v,
            (gsize) r->width * src->channels * bps);
  for (int y = 0, y1; y < src->height; y = y1)
    {
      y1 = MIN (src->height, y + g_rand_int_range (rand, 1, 12));
      process (st, src, dst, y, y1);
    }
  return dst;
}

static void
check_one (const LbKernelBuf *src, const LbKernelRect *sel, const LbPixelizeParams *p,
           GRand *rand)
{
  g_autoptr (GError) error = NULL;
  LbPixelize *st = lb_pixelize_prepare (src, sel, p, &error);
  LbKernelRect r = { 0, 0, src->width, src->height };
  g_autoptr (LbKernelBuf) want = NULL;
  g_autoptr (LbKernelBuf) got = NULL;
  g_autoptr (LbKernelBuf) plain = NULL;
  int worst = 0;
  gsize n;

  g_assert_no_error (error);
  if (sel != NULL)
    {
      r.x = CLAMP (sel->x, 0, src->width);
      r.y = CLAMP (sel->y, 0, src->height);
      r.width = CLAMP (sel->x + sel->width, 0, src->width) - r.x;
      r.height = CLAMP (sel->y + sel->height, 0, src->height) - r.y;
    }
  /* the reference on a true copy (the kernel contract's start) */
  plain = run_pixelize (lb_pixelize_process_reference, st, src, NULL, 0, rand);
  want = run_pixelize (lb_pixelize_process_reference, st, src, &r, 0x5a, rand);
  got = run_pixelize (lb_pixelize_process, st, src, &r, 0xa5, rand);
  g_assert_cmpuint (kb_compare (want, plain, NULL), ==, 0);
  n = kb_compare (got, want, &worst);
  if (n != 0)
    g_error ("%d×%d, %d channels, %d bits, block %d×%d%s, selection %s: %" G_GSIZE_FORMAT
             " samples differ (up to %d)", src->width, src->height, src->channels, src->depth,
             p->width, p->height, p->xv_bug ? " (xv bug)" : "", sel ? "yes" : "no", n, worst);
  lb_pixelize_free (st);
}

static const int channels_depths[][2] = {
  { 1, 8 }, { 2, 8 }, { 3, 8 }, { 4, 8 }, { 1, 16 }, { 2, 16 }, { 3, 16 }, { 4, 16 },
};

static void
test_block_widths (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (0x91e1);

  for (gsize f = 0; f < G_N_ELEMENTS (channels_depths); f++)
    for (int bw = 1; bw <= 12; bw++)
      for (int iter = 0; iter < 4; iter++)
        {
          const int w = g_rand_int_range (rand, 1, 150), h = g_rand_int_range (rand, 1, 40);
          g_autoptr (LbKernelBuf) src = kb_new (w, h, channels_depths[f][0], channels_depths[f][1]);
          LbPixelizeParams p = { bw, g_rand_int_range (rand, 1, 10), iter == 3 };
          LbKernelRect sel = { g_rand_int_range (rand, -2, w), g_rand_int_range (rand, -2, h),
                               g_rand_int_range (rand, 1, w + 3), g_rand_int_range (rand, 1, h + 3) };

          kb_fill_random (src, rand, iter);
          check_one (src, iter >= 2 ? &sel : NULL, &p, rand);
        }
}

/* Blocks of more than 4104 pixels (the mean by a division, not the reciprocal) and blocks
 * taller than 257 rows (32-bit column sums), with bright samples so the sums are large. */
static void
test_large_blocks (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (0x1a26e);
  static const LbPixelizeParams ps[] = {
    { 64, 64, FALSE }, { 65, 64, FALSE }, { 80, 80, TRUE }, { 3, 300, FALSE }, { 1, 600, TRUE },
  };

  for (gsize f = 0; f < G_N_ELEMENTS (channels_depths); f++)
    for (gsize i = 0; i < G_N_ELEMENTS (ps); i++)
      {
        g_autoptr (LbKernelBuf) src = kb_new (211, 620, channels_depths[f][0], channels_depths[f][1]);
        const gsize n = src->stride * (gsize) src->height;

        kb_fill_random (src, rand, 2);
        /* mostly the largest value, so sums approach 255·n (65535·n) */
        for (gsize k = 0; k < n; k++)
          if (g_rand_int_range (rand, 0, 4) != 0)
            src->data[k] = 0xff;
        check_one (src, NULL, &ps[i], rand);
      }
}

/* The reciprocal (s · ⌈2^32/n⌉) >> 32 is exact for n ≤ 4104 (the 8-bit path's limit) and
 * first wrong at n = 4178, s = 1031965 (found by trying every s ≤ 255·n): one block of
 * 2089 × 2 = 4178 pixels, all 247 but one 246, must give 246, not 247. */
static void
test_reciprocal_limit (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (4178);
  const LbPixelizeParams p = { 2089, 2, FALSE };

  for (int ch = 1; ch <= 4; ch++)
    {
      g_autoptr (LbKernelBuf) src = kb_new (2089, 2, ch, 8);
      g_autoptr (GError) error = NULL;
      g_autoptr (LbKernelBuf) got = NULL;
      LbPixelize *st;

      for (int y = 0; y < 2; y++)
        memset (src->data + (gsize) y * src->stride, 247, (gsize) 2089 * ch);
      for (int c = 0; c < ch; c++)
        src->data[(gsize) 1000 * ch + c] = 246;
      check_one (src, NULL, &p, rand);
      st = lb_pixelize_prepare (src, NULL, &p, &error);
      g_assert_no_error (error);
      got = run_pixelize (lb_pixelize_process, st, src, NULL, 0, rand);
      g_assert_cmpint (kb_get (got, 2088, 1, 0), ==, 246);
      lb_pixelize_free (st);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pixelize-fast/block-widths", test_block_widths);
  g_test_add_func ("/pixelize-fast/large-blocks", test_large_blocks);
  g_test_add_func ("/pixelize-fast/reciprocal-limit", test_reciprocal_limit);
  return g_test_run ();
}
