/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-spread"

/* Spread, the reference path: xv's swaps one pixel at a time, as the spec has them. */

#include "lb-spread-private.h"

static inline void
swap_pixels (LbKernelBuf *buf,
             int          x,
             int          y,
             int          x1,
             int          y1,
             gsize        color_bytes)
{
  gsize pb = (gsize) buf->channels * (buf->depth / 8);
  guint8 *a = lb_kbuf_row (buf, y) + (gsize) x * pb;
  guint8 *b = lb_kbuf_row (buf, y1) + (gsize) x1 * pb;

  for (gsize i = 0; i < color_bytes; i++)
    {
      guint8 t = a[i];

      a[i] = b[i];
      b[i] = t;
    }
}

void
lb_spread_process_reference (const LbSpread    *st,
                             const LbKernelBuf *src,
                             LbKernelBuf       *dst,
                             int                y0,
                             int                y1)
{
  LbXvRandom rng;
  int sx = st->r.x, sy = st->r.y, ex = st->r.x + st->r.width - 1, ey = st->r.y + st->r.height - 1;
  gsize cb = (gsize) lb_kbuf_color_channels (dst) * (dst->depth / 8);

  g_return_if_fail (y0 <= 0 && y1 >= dst->height);
  if (!st->active)
    return;
  lb_xv_random_seed (&rng, st->seed);
  for (int y = sy; y <= ey; y++)
    for (int x = sx; x <= ex; x++)
      {
        int lo, hi, x1, y1p;

        if (st->rectangle)
          {
            lo = MAX (sx, x - st->px);
            hi = MIN (ex, x + st->px);
            x1 = lo + (int) (lb_xv_random_next (&rng) % (guint32) (hi - lo + 1));
            lo = MAX (sy, y - st->py);
            hi = MIN (ey, y + st->py);
            y1p = lo + (int) (lb_xv_random_next (&rng) % (guint32) (hi - lo + 1));
          }
        else
          {
            int d = st->px, rd;

            lo = MAX (sx, x - d);
            hi = MIN (ex, x + d);
            x1 = lo + (int) (lb_xv_random_next (&rng) % (guint32) (hi - lo + 1));
            rd = d - abs (x1 - x);
            lo = MAX (MAX (sy, y - d), y - rd);
            hi = MIN (MIN (ey, y + d), y + rd);
            y1p = lo + (int) (lb_xv_random_next (&rng) % (guint32) (hi - lo + 1));
          }
        swap_pixels (dst, x, y, x1, y1p, cb);
      }
}
