/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-xv-emboss-simd"

/* Emboss's optimised rows against its reference: lb_xv_emboss_process() (hand-written AVX2
 * rows at 8 bits when the CPU has AVX2) and _lb_xv_emboss_process_portable() (the
 * compiler-vectorised loops) in GRAY8, GRAYA8, RGB8, RGBA8 and their 16-bit forms, at every
 * width from 1 to 70 and a few wide ones (the vector loops' tails and their early stop),
 * with and without selections, over random band splits. The destination's colour samples in
 * the region start as garbage: the kernel must write every one of them. */

#include <string.h>

#include "lb-test-kernel.h"
#include "lb-xv-emboss.h"

typedef void (*EmbossFunc) (const LbXvEmboss *, const LbKernelBuf *, LbKernelBuf *, int, int);

/* dst = src with the colour samples of @r set to @v, then @process over rows y0..y1 in
 * random bands. */
static LbKernelBuf *
run_on_garbage (EmbossFunc process, const LbXvEmboss *st, const LbKernelBuf *src,
                const LbXvRegion *r, int v, GRand *rand)
{
  LbKernelBuf *dst = kb_copy (src);
  const int nc = lb_xv_colour_channels (src->channels);
  int y = 0;

  for (int yy = r->y0; yy < r->y1; yy++)
    for (int x = r->x0; x < r->x1; x++)
      for (int c = 0; c < nc; c++)
        {
          const gsize i = (gsize) x * src->channels + c;
          guint8 *row = dst->data + (gsize) yy * dst->stride;

          if (src->depth == 8)
            row[i] = (guint8) v;
          else
            ((guint16 *) (void *) row)[i] = (guint16) (v * 257);
        }
  while (y < src->height)
    {
      const int y1 = MIN (src->height, y + g_rand_int_range (rand, 1, 7));

      process (st, src, dst, y, y1);
      y = y1;
    }
  return dst;
}

static void
check_one (const LbKernelBuf *src, const LbKernelRect *sel, GRand *rand)
{
  LbXvEmboss st;
  g_autoptr (GError) error = NULL;
  g_autoptr (LbKernelBuf) want = NULL;

  g_assert_true (lb_xv_emboss_prepare (&st, src, sel, &error));
  g_assert_no_error (error);
  want = run_on_garbage (lb_xv_emboss_process_ref, &st, src, &st.region, 0x5a, rand);
  for (int k = 0; k < 2; k++)
    {
      EmbossFunc f = k == 0 ? lb_xv_emboss_process : _lb_xv_emboss_process_portable;
      g_autoptr (LbKernelBuf) got = run_on_garbage (f, &st, src, &st.region, 0xa5, rand);
      int worst = 0;
      const gsize n = kb_compare (got, want, &worst);

      if (n != 0)
        g_error ("%s, %d×%d, %d channels, %d bits, selection %s: %" G_GSIZE_FORMAT
                 " samples differ (up to %d)", k == 0 ? "optimised" : "portable", src->width,
                 src->height, src->channels, src->depth, sel ? "yes" : "no", n, worst);
    }
}

static void
test_widths (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (0x3b0ce5);
  static const int wide[] = { 95, 96, 97, 127, 128, 129, 133, 255, 257, 600 };

  for (int depth = 8; depth <= 16; depth += 8)
    for (int ch = 1; ch <= 4; ch++)
      for (int i = 0; i < 70 + (int) G_N_ELEMENTS (wide); i++)
        {
          const int w = i < 70 ? i + 1 : wide[i - 70];
          const int h = g_rand_int_range (rand, 1, 9);
          g_autoptr (LbKernelBuf) src = kb_new (w, h, ch, depth);

          kb_fill_random (src, rand, i % 3);
          check_one (src, NULL, rand);
        }
}

static void
test_selections (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (0xe3b055);

  for (int iter = 0; iter < 400; iter++)
    {
      const int depth = iter % 2 ? 16 : 8, ch = 1 + (iter / 2) % 4;
      const int w = g_rand_int_range (rand, 1, 140), h = g_rand_int_range (rand, 1, 30);
      g_autoptr (LbKernelBuf) src = kb_new (w, h, ch, depth);
      LbKernelRect sel = { g_rand_int_range (rand, 0, w), g_rand_int_range (rand, 0, h), 0, 0 };

      sel.width = g_rand_int_range (rand, 1, w - sel.x + 1);
      sel.height = g_rand_int_range (rand, 1, h - sel.y + 1);
      kb_fill_random (src, rand, iter % 4);
      check_one (src, &sel, rand);
    }
}

/* Extreme samples: the largest positive and negative sums (|q| = 127 at 8 bits). */
static void
test_extremes (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);

  for (int ch = 1; ch <= 4; ch++)
    for (int pattern = 0; pattern < 4; pattern++)
      {
        g_autoptr (LbKernelBuf) src = kb_new (77, 9, ch, 8);

        for (int y = 0; y < src->height; y++)
          for (gsize i = 0; i < (gsize) src->width * ch; i++)
            {
              const gboolean on = pattern == 0 ? (y + (int) (i / ch)) % 2
                                  : pattern == 1 ? (int) (i / ch) > y * 8
                                  : pattern == 2 ? y > 4 : g_rand_boolean (rand);

              src->data[(gsize) y * src->stride + i] = on ? 255 : 0;
            }
        check_one (src, NULL, rand);
      }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/xv-emboss-simd/widths", test_widths);
  g_test_add_func ("/xv-emboss-simd/selections", test_selections);
  g_test_add_func ("/xv-emboss-simd/extremes", test_extremes);
  return g_test_run ();
}
