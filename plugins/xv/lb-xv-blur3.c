/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-blur"

/* xv's blur on the 3×3 window (the default size): three-row column sums and an exact
 * division by 9. */

#include "lb-xv-blur-private.h"

/* Blur 3 at 8 bits (alpha, if any, blurred as a channel and put back after), interior rows:
 * the three-row column sums in 16 bits (≤ 765), the 3×3 window sums (≤ 2295) and the exact
 * division by 9 as a multiply-high, over the row as a flat array of samples (neighbours at
 * ±ch). Columns 1 .. rw-2 of @out; @col receives all n column sums (the clipped end columns
 * use them). */
LB_KERNEL_CLONES static void
blur3_row_8 (const guint8 *restrict up, const guint8 *restrict in, const guint8 *restrict down,
             guint8 *restrict out, guint16 *restrict col, int n, int ch)
{
  for (int i = 0; i < n; i++)
    col[i] = (guint16) (up[i] + in[i] + down[i]);
  for (int i = ch; i < n - ch; i++)
    out[i] = (guint8) lb_xv_div9_u16 ((guint16) (col[i - ch] + col[i] + col[i + ch]));
}

/* Blur 3 at 16 bits without alpha (GRAY16, the medical images', and RGB16): the same, column
 * sums in 32 bits (≤ 196605) and the window's (≤ 589815) divided by 9 by the compiler's
 * multiply-high. */
LB_KERNEL_CLONES static void
blur3_row_16 (const guint16 *restrict up, const guint16 *restrict in,
              const guint16 *restrict down, guint16 *restrict out, guint32 *restrict col, int n,
              int ch)
{
  for (int i = 0; i < n; i++)
    col[i] = (guint32) up[i] + in[i] + down[i];
  for (int i = ch; i < n - ch; i++)
    out[i] = (guint16) ((col[i - ch] + col[i] + col[i + ch]) / 9u);
}

/* Blur 3, region at least 3×3, 8 bits (alpha runs through the sums and is put back) or 16
 * bits without alpha: rows with the full three-row window take blur3_row_8 or blur3_row_16
 * (and the two clipped end columns, 6-pixel windows, here); the region's first and last rows
 * take the general path of their depth, one row at a time (it starts afresh for any band). */
static G_ALWAYS_INLINE inline void
blur3_fast (const LbXvBlur *self, const LbKernelBuf *src, LbKernelBuf *dst, int ya, int yb,
            const int depth)
{
  const LbXvRegion *R = &self->region;
  const int ch = src->channels;
  const int rw = R->x1 - R->x0;
  const int n = rw * ch;
  const gsize xoff = (gsize) R->x0 * ch * (depth / 8);
  /* the column sums: guint16 at 8 bits (the first half of the buffer), guint32 at 16 */
  g_autofree guint32 *col = g_new (guint32, n);
  const guint16 *col16 = (const guint16 *) (const void *) col;

  for (int y = ya; y < yb; y++)
    {
      guint8 *out = lb_xv_row_mut (dst, y) + xoff;

      if (y == R->y0 || y == R->y1 - 1)
        {
          if (depth == 8)
            _lb_xv_blur_sums_rows (self, src, dst, y, y + 1);
          else
            _lb_xv_blur_rows16 (self, src, dst, y, y + 1, FALSE);
          continue;
        }
      if (depth == 8)
        blur3_row_8 (lb_xv_row (src, y - 1) + xoff, lb_xv_row (src, y) + xoff,
                     lb_xv_row (src, y + 1) + xoff, out, (guint16 *) (void *) col, n, ch);
      else
        blur3_row_16 ((const guint16 *) (const void *) (lb_xv_row (src, y - 1) + xoff),
                      (const guint16 *) (const void *) (lb_xv_row (src, y) + xoff),
                      (const guint16 *) (const void *) (lb_xv_row (src, y + 1) + xoff),
                      (guint16 *) (void *) out, col, n, ch);
      for (int c = 0; c < ch; c++)
        {
          const guint32 first = depth == 8 ? (guint32) col16[c] + col16[ch + c] : col[c] + col[ch + c];
          const guint32 last = depth == 8 ? (guint32) col16[n - 2 * ch + c] + col16[n - ch + c]
                                          : col[n - 2 * ch + c] + col[n - ch + c];

          lb_xv_put (out, (gsize) c, first / 6u, depth);
          lb_xv_put (out, (gsize) (n - ch + c), last / 6u, depth);
        }
      if (ch != lb_xv_colour_channels (ch))
        lb_kernel_restore_alpha (src, dst, y, R->x0, R->x1);
    }
}

static void
blur3_fast_8 (const LbXvBlur *self, const LbKernelBuf *src, LbKernelBuf *dst, int ya, int yb)
{
  blur3_fast (self, src, dst, ya, yb, 8);
}

static void
blur3_fast_16 (const LbXvBlur *self, const LbKernelBuf *src, LbKernelBuf *dst, int ya, int yb)
{
  blur3_fast (self, src, dst, ya, yb, 16);
}

void
_lb_xv_blur3_rows (const LbXvBlur *self, const LbKernelBuf *src, LbKernelBuf *dst, int ya, int yb)
{
  if (src->depth == 8)
    blur3_fast_8 (self, src, dst, ya, yb);
  else
    blur3_fast_16 (self, src, dst, ya, yb);
}
