/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-blur"

/* xv's blur, the general path: 32-bit running sums for every format and window (the
 * specialised rows take most cases, lb-xv-blur.c). */

#include "lb-xv-blur-private.h"

/* col[i] += (or -=) sample i of the region part of a source row; alpha is summed too (the
 * loop stays contiguous and vectorises) and simply never used. */
LB_XV_INLINE void
col_update (guint32 *restrict col, const guint8 *restrict row, int n, gboolean add,
            const int depth)
{
  if (add)
    for (int i = 0; i < n; i++)
      col[i] += lb_xv_get (row, i, depth);
  else
    for (int i = 0; i < n; i++)
      col[i] -= lb_xv_get (row, i, depth);
}

LB_XV_INLINE void
blur_fast_rows (const LbXvBlur    *self,
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
  const int rw = R->x1 - R->x0;
  const int rh = R->y1 - R->y0;
  const int n = rw * ch;
  const gsize xoff = (gsize) R->x0 * ch * (depth / 8);
  const double nmax = (double) MIN (self->size, rw) * (double) MIN (self->size, rh);
  /* float has a 24-bit mantissa: (s + 0.5) · (1/N) stays within 0.5/N of the exact quotient
   * (so truncation gives floor(s/N)) while s + 0.5 < 2^21; double covers 16 bits. */
  const gboolean use_float = depth == 8 && 255.0 * nmax < 2097152.0;
  g_autofree guint32 *col = NULL;
  g_autofree guint32 *pre = NULL;
  g_autofree guint32 *winbuf = NULL;

  col = g_new0 (guint32, n);
  winbuf = g_new (guint32, n);
  /* pre[i + ch] = pre[i] + col[i]: a window sum is a difference of two prefix sums. The
   * prefix may wrap modulo 2^32; the difference (a real window sum < 2^32) is still exact. */
  pre = g_new0 (guint32, n + ch);

  for (int yy = MAX (R->y0, ya - r); yy <= MIN (R->y1 - 1, ya + r); yy++)
    col_update (col, lb_xv_row (src, yy) + xoff, n, TRUE, depth);

  for (int y = ya; y < yb; y++)
    {
      const int wy0 = MAX (R->y0, y - r), wy1 = MIN (R->y1 - 1, y + r);
      const guint32 ny = (guint32) (wy1 - wy0 + 1);
      guint8 *out = lb_xv_row_mut (dst, y) + xoff;
      int jlo, jhi;

      if (y > ya)
        {
          if (y + r <= R->y1 - 1)
            col_update (col, lb_xv_row (src, y + r) + xoff, n, TRUE, depth);
          if (y - r - 1 >= R->y0)
            col_update (col, lb_xv_row (src, y - r - 1) + xoff, n, FALSE, depth);
        }

      switch (ch)
        {
        case 1: prefix_sums (pre, col, rw, 1); break;
        case 2: prefix_sums (pre, col, rw, 2); break;
        case 3: prefix_sums (pre, col, rw, 3); break;
        case 4:
        default: prefix_sums (pre, col, rw, 4); break;
        }

      /* Columns whose window is not clipped horizontally: [jlo, jhi). */
      jlo = MIN (r, rw);
      jhi = MAX (jlo, rw - r);
      if (jhi > jlo)
        {
          const guint32 count = (guint32) self->size * ny;
          const int a = (r + 1) * ch, b = r * ch;
          const int i0 = jlo * ch, i1 = jhi * ch;
          guint32 *restrict win = winbuf;

          /* Window sums of the unclipped columns: three loads for n = 3, else the prefix. */
          if (r == 1)
            for (int i = i0; i < i1; i++)
              win[i] = col[i - ch] + col[i] + col[i + ch];
          else
            for (int i = i0; i < i1; i++)
              win[i] = pre[i + a] - pre[i - b];

          if (nc == ch && use_float)
            {
              const float inv = 1.0f / (float) count;

              for (int i = i0; i < i1; i++)
                {
                  const guint32 s = win[i];
                  lb_xv_put (out, i, (guint) (((float) s + 0.5f) * inv), depth);
                }
            }
          else if (nc == ch)
            {
              const double inv = 1.0 / (double) count;

              for (int i = i0; i < i1; i++)
                {
                  const guint32 s = win[i];
                  lb_xv_put (out, i, (guint) (((double) s + 0.5) * inv), depth);
                }
            }
          else
            {
              const double inv = 1.0 / (double) count;

              for (int j = jlo; j < jhi; j++)
                for (int c = 0; c < nc; c++)
                  {
                    const int i = j * ch + c;
                    const guint32 s = win[i];
                    lb_xv_put (out, i, (guint) (((double) s + 0.5) * inv), depth);
                  }
            }
        }

      /* Clipped columns at the left and right: exact integer division. */
      for (int j = 0; j < rw; j++)
        {
          int lo, hi;

          if (j == jlo && jhi > jlo)
            j = jhi;
          if (j >= rw)
            break;
          lo = MAX (0, j - r);
          hi = MIN (rw - 1, j + r);
          for (int c = 0; c < nc; c++)
            {
              const guint32 s = pre[(hi + 1) * ch + c] - pre[lo * ch + c];
              lb_xv_put (out, (gsize) j * ch + c, s / ((guint32) (hi - lo + 1) * ny), depth);
            }
        }
    }
}

LB_KERNEL_CLONES static void
blur_fast_rows_8 (const LbXvBlur *self, const LbKernelBuf *src, LbKernelBuf *dst, int ya, int yb)
{
  blur_fast_rows (self, src, dst, ya, yb, 8);
}

/* The general path on rows [@ya, @yb) of the region (the 16-bit instance without clones, as
 * it ran inlined in the dispatcher). */
void
_lb_xv_blur_sums_rows (const LbXvBlur *self, const LbKernelBuf *src, LbKernelBuf *dst, int ya,
                       int yb)
{
  if (src->depth == 8)
    blur_fast_rows_8 (self, src, dst, ya, yb);
  else
    blur_fast_rows (self, src, dst, ya, yb, 16);
}
