/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-oil"

/* xv's oil, the reference path: every window pixel counted against every other, O(N²) per
 * output pixel (lb-xv-oil.h). */

#include "lb-xv-oil-private.h"

LB_XV_INLINE void
oil_ref_rows (const LbXvOil     *self,
              const LbKernelBuf *src,
              LbKernelBuf       *dst,
              int                ya,
              int                yb,
              const int          depth)
{
  const LbXvRegion *R = &self->region;
  const int ch = src->channels;
  const int nc = lb_xv_colour_channels (ch);
  const int side = self->up + self->down + 1;
  g_autofree guint64 *keys = g_new (guint64, (gsize) side * side);
  g_autofree int *xs = g_new (int, (gsize) side * side);
  g_autofree int *ys = g_new (int, (gsize) side * side);

  for (int y = ya; y < yb; y++)
    {
      guint8 *out = lb_xv_row_mut (dst, y);

      for (int x = R->x0; x < R->x1; x++)
        {
          int n = 0, best = 0, best_count = 0;

          /* The window in raster order, clipped to the region. */
          for (int yy = MAX (R->y0, y - self->up); yy <= MIN (R->y1 - 1, y + self->down); yy++)
            for (int xx = MAX (R->x0, x - self->up); xx <= MIN (R->x1 - 1, x + self->down); xx++)
              {
                keys[n] = colour_key (lb_xv_row (src, yy), (gsize) xx * ch, nc, depth);
                xs[n] = xx;
                ys[n] = yy;
                n++;
              }
          /* Only a strictly larger count replaces the best: ties keep the earliest. */
          for (int i = 0; i < n; i++)
            {
              int count = 0;

              for (int j = 0; j < n; j++)
                count += keys[j] == keys[i];
              if (count > best_count)
                best_count = count, best = i;
            }
          copy_colour (src, xs[best], ys[best], out, x, depth);
        }
    }
}

LB_XV_DEFINE_PROCESS (lb_xv_oil_process_ref, LbXvOil, oil_ref_rows)
