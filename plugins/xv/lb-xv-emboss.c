/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-emboss"

#include "lb-xv-emboss.h"

gboolean
lb_xv_emboss_prepare (LbXvEmboss         *self,
                      const LbKernelBuf  *src,
                      const LbKernelRect *selection,
                      GError            **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return _lb_xv_region_init (&self->region, src, selection, "emboss", error);
}

/* Writes the gray value @m into all colour channels of pixel @x. */
LB_XV_INLINE void
put_gray (guint8 *out, int x, int ch, int nc, guint m, const int depth)
{
  for (int c = 0; c < nc; c++)
    lb_xv_put (out, (gsize) x * ch + c, m, depth);
}

LB_XV_INLINE void
emboss_ref_rows (const LbXvEmboss  *self,
                 const LbKernelBuf *src,
                 LbKernelBuf       *dst,
                 int                ya,
                 int                yb,
                 const int          depth)
{
  const LbXvRegion *R = &self->region;
  const int ch = src->channels;
  const int nc = lb_xv_colour_channels (ch);
  const int mid = depth == 8 ? 128 : 32768;

  for (int y = ya; y < yb; y++)
    {
      guint8 *out = lb_xv_row_mut (dst, y);

      for (int x = R->x0; x < R->x1; x++)
        {
          guint t[3] = { (guint) mid, (guint) mid, (guint) mid };

          if (x > R->x0 && x < R->x1 - 1 && y > R->y0 && y < R->y1 - 1)
            {
              const guint8 *up = lb_xv_row (src, y - 1);
              const guint8 *row = lb_xv_row (src, y);
              const guint8 *down = lb_xv_row (src, y + 1);

              for (int c = 0; c < nc; c++)
                {
                  const gsize l = (gsize) (x - 1) * ch + c, m = (gsize) x * ch + c,
                              rr = (gsize) (x + 1) * ch + c;
                  const int s = -2 * (int) lb_xv_get (up, l, depth) - (int) lb_xv_get (up, m, depth)
                                - (int) lb_xv_get (row, l, depth) + (int) lb_xv_get (row, rr, depth)
                                + (int) lb_xv_get (down, m, depth)
                                + 2 * (int) lb_xv_get (down, rr, depth);
                  /* C division truncates toward zero, as xv's does. */
                  const int q = s / 8 + mid;

                  t[c] = (guint) CLAMP (q, 0, (int) lb_xv_max_value (depth));
                }
            }
          put_gray (out, x, ch, nc, nc == 3 ? lb_xv_mono (t[0], t[1], t[2]) : t[0], depth);
        }
    }
}

void
lb_xv_emboss_process_ref (const LbXvEmboss  *self,
                          const LbKernelBuf *src,
                          LbKernelBuf       *dst,
                          int                y0,
                          int                y1)
{
  g_return_if_fail (self != NULL && _lb_xv_same_geometry (src, dst));

  y0 = MAX (y0, self->region.y0);
  y1 = MIN (y1, self->region.y1);
  if (y0 >= y1)
    return;
  if (src->depth == 8)
    emboss_ref_rows (self, src, dst, y0, y1, 8);
  else
    emboss_ref_rows (self, src, dst, y0, y1, 16);
}

/* MONO of the embossed colours into R, G and B of columns 1..rw-2; @ch (3 or 4) is a
 * constant at each call site so that the strided loop vectorises. */
LB_XV_INLINE void
mono_span (const gint32 *restrict t, guint8 *restrict out, int rw, const int ch,
           const int depth)
{
  for (int j = 1; j < rw - 1; j++)
    {
      const guint m = lb_xv_mono ((guint) t[j * ch], (guint) t[j * ch + 1],
                                  (guint) t[j * ch + 2]);
      lb_xv_put (out, (gsize) j * ch, m, depth);
      lb_xv_put (out, (gsize) j * ch + 1, m, depth);
      lb_xv_put (out, (gsize) j * ch + 2, m, depth);
    }
}

/* 8 bits: the embossed samples ch .. n−ch−1 of one row as a flat array (neighbours at ±ch),
 * in 16-bit lanes (|s| ≤ 1530): C's truncation toward zero of s / 8 is the arithmetic shift
 * of s + 7 for negative s. */
LB_XV_CLONES static void
emboss_row_8 (const guint8 *restrict up, const guint8 *restrict in, const guint8 *restrict down,
              gint16 *restrict t, int n, int ch)
{
  for (int i = ch; i < n - ch; i++)
    {
      const gint16 s = (gint16) (-2 * up[i - ch] - up[i] - in[i - ch] + in[i + ch] + down[i]
                                 + 2 * down[i + ch]);
      const gint16 q = (gint16) ((gint16) (s + ((s >> 15) & 7)) >> 3);
      t[i] = (gint16) (q + 128);
    }
}

/* RGB8: the emboss of every sample as one flat run (no deinterleaving: 16-bit lanes over
 * consecutive samples, as emboss_row_8), each weighted by its channel's MONO weight
 * (11, 16, 5: @wt repeats them); then every sample of pixel j gets
 * (u[3j] + u[3j+1] + u[3j+2]) >> 5, which for sample i is the three-sample sum centred on
 * i + 1, i or i − 1 for channel 0, 1 or 2 (@sel0, @sel1, @sel2: all-ones where i is that
 * channel). Writes samples 3 .. 3·rw − 4 (pixels 1 .. rw−2); u needs 3·rw entries. */
LB_XV_CLONES static void
emboss_mono_rgb8 (const guint8 *restrict up, const guint8 *restrict in,
                  const guint8 *restrict down, guint8 *restrict out, int rw,
                  const gint16 *restrict wt, const guint16 *restrict sel0,
                  const guint16 *restrict sel1, const guint16 *restrict sel2,
                  gint16 *restrict u)
{
  const int n = 3 * rw;

  u[0] = u[1] = u[2] = u[n - 3] = u[n - 2] = u[n - 1] = 0;
  for (int i = 3; i < n - 3; i++)
    {
      const gint16 s = (gint16) (-2 * up[i - 3] - up[i] - in[i - 3] + in[i + 3] + down[i]
                                 + 2 * down[i + 3]);
      const gint16 q = (gint16) ((gint16) (s + ((s >> 15) & 7)) >> 3);
      u[i] = (gint16) (wt[i] * (q + 128));
    }
  for (int i = 3; i < n - 3; i++)
    {
      /* ≤ 32 · 255: fits 16 bits unsigned. */
      const guint16 c0 = (guint16) (u[i] + u[i + 1] + u[i + 2]);
      const guint16 c1 = (guint16) (u[i - 1] + u[i] + u[i + 1]);
      const guint16 c2 = (guint16) (u[i - 2] + u[i - 1] + u[i]);
      out[i] = (guint8) (((c0 & sel0[i]) | (c1 & sel1[i]) | (c2 & sel2[i])) >> 5);
    }
}

LB_XV_INLINE void
emboss_fast_rows (const LbXvEmboss  *self,
                  const LbKernelBuf *src,
                  LbKernelBuf       *dst,
                  int                ya,
                  int                yb,
                  const int          depth)
{
  const LbXvRegion *R = &self->region;
  const int ch = src->channels;
  const int nc = lb_xv_colour_channels (ch);
  const int rw = R->x1 - R->x0;
  const int n = rw * ch;
  const gsize xoff = (gsize) R->x0 * ch * (depth / 8);
  const int mid = depth == 8 ? 128 : 32768;
  g_autofree gint32 *t = g_new (gint32, n);
  g_autofree gint16 *pattern = NULL;

  for (int y = ya; y < yb; y++)
    {
      guint8 *out = lb_xv_row_mut (dst, y) + xoff;

      if (y == R->y0 || y == R->y1 - 1 || rw < 3)
        {
          for (int j = 0; j < rw; j++)
            put_gray (out, j, ch, nc, (guint) mid, depth);
          continue;
        }

      if (depth == 8 && (ch == 1 || ch == 3))
        {
          gint16 *t16 = (gint16 *) (void *) t;

          put_gray (out, 0, ch, nc, (guint) mid, depth);
          put_gray (out, rw - 1, ch, nc, (guint) mid, depth);
          if (ch == 3)
            {
              if (pattern == NULL)
                {
                  /* The MONO weights and channel masks of emboss_mono_rgb8, and its u. */
                  static const gint16 w3[3] = { 11, 16, 5 };

                  pattern = g_new (gint16, 5 * (gsize) n);
                  for (int i = 0; i < n; i++)
                    {
                      pattern[i] = w3[i % 3];
                      for (int c = 0; c < 3; c++)
                        pattern[(gsize) (1 + c) * n + i] = (gint16) (i % 3 == c ? -1 : 0);
                    }
                }
              emboss_mono_rgb8 (lb_xv_row (src, y - 1) + xoff, lb_xv_row (src, y) + xoff,
                                lb_xv_row (src, y + 1) + xoff, out, rw, pattern,
                                (const guint16 *) (pattern + n),
                                (const guint16 *) (pattern + 2 * (gsize) n),
                                (const guint16 *) (pattern + 3 * (gsize) n),
                                pattern + 4 * (gsize) n);
              continue;
            }
          emboss_row_8 (lb_xv_row (src, y - 1) + xoff, lb_xv_row (src, y) + xoff,
                        lb_xv_row (src, y + 1) + xoff, t16, n, ch);
          for (int i = 1; i < n - 1; i++)
            out[i] = (guint8) t16[i];
          continue;
        }

      {
        const guint8 *restrict up = lb_xv_row (src, y - 1) + xoff;
        const guint8 *restrict row = lb_xv_row (src, y) + xoff;
        const guint8 *restrict down = lb_xv_row (src, y + 1) + xoff;

        /* Sample-wise over the interior columns, every channel at once (alpha included, never
         * used): the loop has no dependencies and vectorises. */
        for (int i = ch; i < n - ch; i++)
          {
            const int s = -2 * (int) lb_xv_get (up, i - ch, depth) - (int) lb_xv_get (up, i, depth)
                          - (int) lb_xv_get (row, i - ch, depth)
                          + (int) lb_xv_get (row, i + ch, depth) + (int) lb_xv_get (down, i, depth)
                          + 2 * (int) lb_xv_get (down, i + ch, depth);
            t[i] = s / 8 + mid;
          }
      }

      put_gray (out, 0, ch, nc, (guint) mid, depth);
      put_gray (out, rw - 1, ch, nc, (guint) mid, depth);
      if (ch == 3)
        mono_span (t, out, rw, 3, depth);
      else if (ch == 4)
        mono_span (t, out, rw, 4, depth);
      else
        for (int j = 1; j < rw - 1; j++)
          lb_xv_put (out, (gsize) j * ch, (guint) t[j * ch], depth);
    }
}

void
lb_xv_emboss_process (const LbXvEmboss  *self,
                      const LbKernelBuf *src,
                      LbKernelBuf       *dst,
                      int                y0,
                      int                y1)
{
  g_return_if_fail (self != NULL && _lb_xv_same_geometry (src, dst));

  y0 = MAX (y0, self->region.y0);
  y1 = MIN (y1, self->region.y1);
  if (y0 >= y1)
    return;
  if (src->depth == 8)
    emboss_fast_rows (self, src, dst, y0, y1, 8);
  else
    emboss_fast_rows (self, src, dst, y0, y1, 16);
}
