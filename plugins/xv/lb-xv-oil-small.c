/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-oil"

/* xv's oil on windows of at most 16 pixels: all pairs at once (mode_small, in
 * lb-xv-oil-private.h), and the symmetric 3×3 window eight output pixels per vector step. */

#include "lb-xv-oil-private.h"

/* The symmetric 3×3 window on rows whose three window rows are all in the region, output
 * columns j0 .. j1 − 1 (region-relative, each with a whole window: j0 ≥ 1, j1 ≤ rw − 1),
 * eight output pixels as vector lanes: the nine window keys K_i (i = 3a + b, raster order)
 * are vector loads at column offsets −1..1 of the three key rows, each of the 36 pairs is
 * compared once and its mask (−1 if equal) added to both counts, and the score
 * (count − 1) · 16 + (15 − i) is largest for the highest count and, among equal counts, the
 * earliest pixel, as in mode_small. The winning pixel's key, the OR of the keys masked by
 * score = max, is the colour itself (fill_keys: 24-bit RGB or the one channel). Writes the
 * winners' keys to win[j] and returns the first column it left (the caller finishes the
 * last, fewer than eight, with mode_small). kernels-a-timing test card, 1 thread, three
 * alternating runs, where mode_small ran every pixel: RGB8 40.7–41.0 → 6.8–7.0 ms, GRAY16
 * 40.1–40.3 → 6.2–6.6. */
typedef guint32 OilVec8 __attribute__ ((vector_size (32)));
typedef gint32 OilIVec8 __attribute__ ((vector_size (32)));

LB_KERNEL_CLONES static int
oil_sym3_keys (const guint32 *const kr[3], guint32 *restrict win, int j0, int j1)
{
  int j = j0;

  for (; j + 8 <= j1; j += 8)
    {
      OilVec8 k[9], res = { 0 };
      OilIVec8 c[9], score[9], m;

      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
          memcpy (&k[3 * a + b], kr[a] + j - 1 + b, sizeof k[0]);
      for (int i = 0; i < 9; i++)
        c[i] = (OilIVec8) { 0 };
      /* all 36 pairs unrolled: as loops, GCC kept them rolled and the counts in memory
       * (RGB8 9.2 → 7.0 ms on the test card) */
#pragma GCC unroll 9
      for (int i = 0; i < 9; i++)
#pragma GCC unroll 9
        for (int i2 = i + 1; i2 < 9; i2++)
          {
            const OilIVec8 e = (OilIVec8) (k[i] == k[i2]);

            c[i] += e;
            c[i2] += e;
          }
      for (int i = 0; i < 9; i++)
        score[i] = (15 - i) - c[i] * 16;
      m = score[0];
      for (int i = 1; i < 9; i++)
        {
          const OilIVec8 gt = (OilIVec8) (score[i] > m);

          m = (score[i] & gt) | (m & ~gt);
        }
      for (int i = 0; i < 9; i++)
        res |= k[i] & (OilVec8) (score[i] == m);
      memcpy (win + j, &res, sizeof res);
    }
  return j;
}

/* The colour of key @key (see fill_keys) into pixel @x of @out. */
LB_XV_INLINE void
put_key (guint8 *out, int x, guint32 key, const int ch, const int depth)
{
  if (lb_xv_colour_channels (ch) == 3)
    for (int c = 0; c < 3; c++)
      lb_xv_put (out, (gsize) x * ch + c, (key >> (8 * c)) & 0xff, depth);
  else
    lb_xv_put (out, (gsize) x * ch, key, depth);
}

/* The 16-bit colour @key (colour_key) into pixel @x of @out. */
static inline void
put_colour_key (guint8 *out, int x, guint64 key, const int ch)
{
  for (int c = 0; c < 3; c++)
    lb_xv_put (out, (gsize) x * ch + c, (guint) (key >> (16 * c)) & 0xffff, 16);
}

/* Output row @out on windows of at most 16 pixels, on the key rows @wy0 .. @wy1 of @ring.
 * @win: region width keys of scratch (the symmetric 3×3 window); @colours: the colour of
 * each number when the keys are a wide palette's numbers, else unused. */
LB_XV_INLINE void
oil_small_row (const LbXvOil *self, const LbKernelBuf *src, const KeyRing *ring, guint32 *win,
               const guint64 *colours, guint8 *out, int wy0, int wy1, const int depth)
{
  const LbXvRegion *R = &self->region;
  const int rw = R->x1 - R->x0;
  const int side = self->up + self->down + 1;
  const int nrows = wy1 - wy0 + 1;
  const gboolean wide = depth == 16 && lb_xv_colour_channels (src->channels) == 3;
  const guint32 *kr[16];
  int jv0 = 0, jv1 = 0; /* columns the vector path did */

  for (int k = 0; k < nrows; k++)
    kr[k] = ring_row (ring, wy0 + k);
  if (side == 3 && nrows == 3 && rw >= 10)
    {
      const gsize px = (gsize) R->x0 * src->channels * (depth / 8);

      jv0 = 1;
      jv1 = oil_sym3_keys (kr, win, 1, rw - 1);
      if (wide)
        {
          /* the winners are numbers: their colours from the palette */
          for (int j = jv0; j < jv1; j++)
            put_colour_key (out + px, j, colours[win[j]], src->channels);
        }
      else
        switch (src->channels)
        {
        case 1:
          for (int j = jv0; j < jv1; j++)
            put_key (out + px, j, win[j], 1, depth);
          break;
        case 2:
          for (int j = jv0; j < jv1; j++)
            put_key (out + px, j, win[j], 2, depth);
          break;
        case 3:
          for (int j = jv0; j < jv1; j++)
            put_key (out + px, j, win[j], 3, depth);
          break;
        default:
          for (int j = jv0; j < jv1; j++)
            put_key (out + px, j, win[j], 4, depth);
          break;
        }
    }
  for (int j = 0; j < rw; j = j + 1 == jv0 ? MAX (jv1, j + 1) : j + 1)
    {
      const int jx0 = MAX (0, j - self->up), jx1 = MIN (rw - 1, j + self->down);
      const int best = mode_small (kr, nrows, jx0, jx1);
      const int wcols = jx1 - jx0 + 1;

      copy_colour (src, R->x0 + jx0 + best % wcols, wy0 + best / wcols, out, R->x0 + j, depth);
    }
}

/* One function per depth, each with its own inlining budget, as oil_fast_rows8 and
 * oil_fast_rows16 (lb-xv-oil.c) have: with both depths' loops in the entry, GCC may
 * call out of line what it inlines for one depth alone. */
static __attribute__ ((noinline)) void
oil_small_row8 (const LbXvOil *self, const LbKernelBuf *src, const KeyRing *ring, guint32 *win,
                const guint64 *colours, guint8 *out, int wy0, int wy1)
{
  oil_small_row (self, src, ring, win, colours, out, wy0, wy1, 8);
}

static __attribute__ ((noinline)) void
oil_small_row16 (const LbXvOil *self, const LbKernelBuf *src, const KeyRing *ring, guint32 *win,
                 const guint64 *colours, guint8 *out, int wy0, int wy1)
{
  oil_small_row (self, src, ring, win, colours, out, wy0, wy1, 16);
}

void
_lb_xv_oil_small_row (const LbXvOil *self, const LbKernelBuf *src, const KeyRing *ring,
                      guint32 *win, const guint64 *colours, guint8 *out, int wy0, int wy1)
{
  if (src->depth == 8)
    oil_small_row8 (self, src, ring, win, colours, out, wy0, wy1);
  else
    oil_small_row16 (self, src, ring, win, colours, out, wy0, wy1);
}
