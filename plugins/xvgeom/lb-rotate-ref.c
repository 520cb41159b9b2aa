/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-rotate"

/* Rotate's exact path, the reference: xv's polar maths (libm atan, cos, sin, sqrt) for every
 * pixel. */

#include "lb-rotate-private.h"

static G_ALWAYS_INLINE inline void
process_exact (const LbRotate    *st,
               const LbKernelBuf *src,
               LbKernelBuf       *dst,
               int                y0,
               int                y1,
               int                depth)
{
  int nc = lb_kbuf_color_channels (src);

  for (int y = MAX (y0, 0); y < MIN (y1, dst->height); y++)
    {
      guint8 *drow = lb_kbuf_row (dst, y);

      if (!_lb_rotate_band_setup (st, src, dst, y))
        continue;
      for (int x = st->bx0; x < st->bx1; x++)
        {
          double xf, yf;

          rot_xv (st, x, y, -st->rad, &xf, &yf);
          sample_xv (st, src, drow, x, xf, yf, nc, depth);
        }
    }
}

void
lb_rotate_process_reference (const LbRotate    *st,
                             const LbKernelBuf *src,
                             LbKernelBuf       *dst,
                             int                y0,
                             int                y1)
{
  if (!st->active)
    return;
  if (src->depth == 16)
    process_exact (st, src, dst, y0, y1, 16);
  else
    process_exact (st, src, dst, y0, y1, 8);
}
