/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-blur"

/* xv's blur, the reference path: the spec's loops, O(n²) per sample (lb-xv-blur.h). */

#include "lb-xv-blur-private.h"

LB_XV_INLINE void
blur_ref_rows (const LbXvBlur    *self,
               const LbKernelBuf *src,
               LbKernelBuf       *dst,
               int                ya,
               int                yb,
               const int          depth)
{
  const LbXvRegion *R = &self->region;
  const int r = self->size / 2;
  const int ch = src->channels;
  const int nc = lb_xv_colour_channels (ch);

  /* a 1×1 window is the identity: the destination already holds the source */
  if (self->size == 1)
    return;

  for (int y = ya; y < yb; y++)
    {
      const int wy0 = MAX (R->y0, y - r), wy1 = MIN (R->y1 - 1, y + r);
      guint8 *out = lb_xv_row_mut (dst, y);

      for (int x = R->x0; x < R->x1; x++)
        {
          const int wx0 = MAX (R->x0, x - r), wx1 = MIN (R->x1 - 1, x + r);
          const guint64 count = (guint64) (wx1 - wx0 + 1) * (guint64) (wy1 - wy0 + 1);

          for (int c = 0; c < nc; c++)
            {
              guint64 sum = 0;

              for (int yy = wy0; yy <= wy1; yy++)
                {
                  const guint8 *row = lb_xv_row (src, yy);

                  for (int xx = wx0; xx <= wx1; xx++)
                    sum += lb_xv_get (row, (gsize) xx * ch + c, depth);
                }
              lb_xv_put (out, (gsize) x * ch + c, (guint) (sum / count), depth);
            }
        }
    }
}

LB_XV_DEFINE_PROCESS (lb_xv_blur_process_ref, LbXvBlur, blur_ref_rows)
