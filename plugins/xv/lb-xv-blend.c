/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-blend"

#include "lb-xv-blend.h"

#include <math.h>

gboolean
lb_xv_blend_prepare (LbXvBlend          *self,
                     const LbKernelBuf  *src,
                     const LbKernelRect *selection,
                     GError            **error)
{
  const LbXvRegion *R;
  int ch, nc, sw, sh;

  g_return_val_if_fail (self != NULL, FALSE);

  if (!_lb_xv_region_init (&self->region, src, selection, "blend", error))
    return FALSE;
  R = &self->region;
  ch = src->channels;
  nc = lb_xv_colour_channels (ch);
  sw = R->x1 - R->x0;
  sh = R->y1 - R->y0;
  self->active = sw >= 3 && sh >= 3;
  self->centre[0] = self->centre[1] = self->centre[2] = 0;

  for (int c = 0; c < nc; c++)
    {
      const int depth = src->depth;
      double sum = 0.0;

      /* Integers below 2^53 add exactly in double, so the order does not matter. */
      for (int x = R->x0; x < R->x1; x++)
        sum += (double) lb_xv_get (lb_xv_row (src, R->y0), (gsize) x * ch + c, depth)
               + (double) lb_xv_get (lb_xv_row (src, R->y1 - 1), (gsize) x * ch + c, depth);
      for (int y = R->y0; y < R->y1; y++)
        sum += (double) lb_xv_get (lb_xv_row (src, y), (gsize) R->x0 * ch + c, depth)
               + (double) lb_xv_get (lb_xv_row (src, y), (gsize) (R->x1 - 1) * ch + c, depth);
      self->centre[c] = (int) (sum / (double) (2 * sw + 2 * sh));
    }
  return TRUE;
}

LB_XV_INLINE void
blend_ref_rows (const LbXvBlend   *self,
                const LbKernelBuf *src,
                LbKernelBuf       *dst,
                int                ya,
                int                yb,
                const int          depth)
{
  const LbXvRegion *R = &self->region;
  const int ch = src->channels;
  const int nc = lb_xv_colour_channels (ch);
  const int sx = R->x0, sy = R->y0, sw = R->x1 - R->x0, sh = R->y1 - R->y0;
  const int cx = sx + sw / 2, cy = sy + sh / 2;
  const double dslope = (double) sh / (double) sw;
  const int top = (int) lb_xv_max_value (depth);

  for (int y = MAX (ya, sy + 1); y < MIN (yb, sy + sh - 1); y++)
    {
      guint8 *out = lb_xv_row_mut (dst, y);

      for (int x = sx + 1; x < sx + sw - 1; x++)
        {
          const int dx = x - cx, dy = y - cy;
          int ex, ey;
          double d, d1, ratio;

          if (dx == 0 && dy == 0)
            {
              for (int c = 0; c < nc; c++)
                lb_xv_put (out, (gsize) x * ch + c, (guint) self->centre[c], depth);
              continue;
            }
          if (dx == 0)
            {
              ex = cx;
              ey = dy < 0 ? sy : sy + sh - 1;
            }
          else if (dy == 0)
            {
              ex = dx < 0 ? sx : sx + sw - 1;
              ey = cy;
            }
          else if (fabs ((double) dy / (double) dx) > fabs (dslope))
            {
              ey = dy < 0 ? sy : sy + sh - 1;
              ex = cx + ((ey - cy) * dx) / dy;
            }
          else
            {
              ex = dx < 0 ? sx : sx + sw - 1;
              ey = cy + ((ex - cx) * dy) / dx;
            }
          ex = CLAMP (ex, sx, sx + sw - 1);
          ey = CLAMP (ey, sy, sy + sh - 1);

          d = sqrt ((double) (dx * dx + dy * dy));
          d1 = sqrt ((double) ((ex - cx) * (ex - cx) + (ey - cy) * (ey - cy)));
          ratio = pow (d / d1, 2.0);

          for (int c = 0; c < nc; c++)
            {
              const int e = (int) lb_xv_get (lb_xv_row (src, ey), (gsize) ex * ch + c, depth);
              const int v = self->centre[c] + (int) ((e - self->centre[c]) * ratio);
              lb_xv_put (out, (gsize) x * ch + c, (guint) CLAMP (v, 0, top), depth);
            }
        }
    }
}

void
lb_xv_blend_process_ref (const LbXvBlend   *self,
                         const LbKernelBuf *src,
                         LbKernelBuf       *dst,
                         int                y0,
                         int                y1)
{
  g_return_if_fail (self != NULL && _lb_xv_same_geometry (src, dst));

  if (!self->active)
    return;
  if (src->depth == 8)
    blend_ref_rows (self, src, dst, y0, y1, 8);
  else
    blend_ref_rows (self, src, dst, y0, y1, 16);
}

/* Pass 1 of a row at dy from the centre, branch-free: the border point (exs, eys) and the
 * ratio for each of the n interior columns. Doubles without contraction (the AVX2 clone does
 * the same IEEE operations on more lanes). no-trapping-math lets GCC if-convert the loop (it
 * may then evaluate both arms of a select); it changes no value, unlike -ffast-math. */
LB_XV_CLONES __attribute__ ((optimize ("no-trapping-math"))) static void
blend_points (int sx, int sy, int sw, int sh, int cx, int cy, int dy, int n,
              int *restrict exs, int *restrict eys, double *restrict ratios)
{
  const gint64 ady = dy < 0 ? -dy : dy;
  /* The border row the ray meets when it is steep, and its offset from the centre. */
  const int ey_steep = dy < 0 ? sy : sy + sh - 1;

  for (int j = 0; j < n; j++)
    {
      const int dx = sx + 1 + j - cx;
      const int ex_flat = dx < 0 ? sx : sx + sw - 1;
      const gint64 adx = dx < 0 ? -dx : dx;
      /* dx == 0 counts as steep, dy == 0 as flat, as in the reference; the comparison
       * |dy/dx| > sh/sw is made exactly in integers (the reference's doubles decide the
       * same way: two different quotients of numbers below 2^16 are further apart than
       * their rounding errors). */
      const int steep = (dx == 0) | ((dy != 0) & (ady * (gint64) sw > (gint64) sh * adx));
      const int na = steep ? ey_steep - cy : ex_flat - cx, nb = steep ? dx : dy;
      const int di = steep ? (dy != 0 ? dy : 1) : dx;
      const double num = (double) na * (double) nb;
      const double den = di;
      /* A truncated quotient from doubles is exact (see the header). */
      const int q = (int) (num / den);
      int ex = steep ? cx + q : ex_flat;
      int ey = steep ? ey_steep : cy + q;
      double d1;

      ex = ex < sx ? sx : (ex > sx + sw - 1 ? sx + sw - 1 : ex);
      ey = ey < sy ? sy : (ey > sy + sh - 1 ? sy + sh - 1 : ey);
      d1 = (double) ((ex - cx) * (ex - cx) + (ey - cy) * (ey - cy));
      exs[j] = ex;
      eys[j] = ey;
      /* (d / d1)² as a ratio of squared distances: no square roots; within an ulp or two
       * of the reference's value, so a sample may differ by 1 where the product is within
       * that of an integer. */
      ratios[j] = (double) (dx * dx + dy * dy) / d1;
    }
}

/* Pass 2 for RGB8: the n interior pixels of a row from their border points and ratios (the
 * centre pixel is the caller's). */
LB_XV_CLONES __attribute__ ((optimize ("no-trapping-math"))) static void
blend_samples_rgb8 (const guint8 *restrict data, gsize stride, const int *restrict exs,
                    const int *restrict eys, const double *restrict ratios,
                    const int *restrict centre, guint8 *restrict out, int n)
{
  const int c0 = centre[0], c1 = centre[1], c2 = centre[2];

  for (int j = 0; j < n; j++)
    {
      const guint8 *e = data + (gsize) eys[j] * stride + (gsize) exs[j] * 3;
      const double r = ratios[j];
      const int v0 = c0 + (int) ((e[0] - c0) * r);
      const int v1 = c1 + (int) ((e[1] - c1) * r);
      const int v2 = c2 + (int) ((e[2] - c2) * r);

      out[3 * j] = (guint8) (v0 < 0 ? 0 : (v0 > 255 ? 255 : v0));
      out[3 * j + 1] = (guint8) (v1 < 0 ? 0 : (v1 > 255 ? 255 : v1));
      out[3 * j + 2] = (guint8) (v2 < 0 ? 0 : (v2 > 255 ? 255 : v2));
    }
}

LB_XV_INLINE void
blend_fast_rows (const LbXvBlend   *self,
                 const LbKernelBuf *src,
                 LbKernelBuf       *dst,
                 int                ya,
                 int                yb,
                 const int          depth)
{
  const LbXvRegion *R = &self->region;
  const int ch = src->channels;
  const int nc = lb_xv_colour_channels (ch);
  const int sx = R->x0, sy = R->y0, sw = R->x1 - R->x0, sh = R->y1 - R->y0;
  const int cx = sx + sw / 2, cy = sy + sh / 2;
  const int top = (int) lb_xv_max_value (depth);
  const int n = sw - 2;
  g_autofree int *exs = g_new (int, n);
  g_autofree int *eys = g_new (int, n);
  g_autofree double *ratios = g_new (double, n);

  for (int y = MAX (ya, sy + 1); y < MIN (yb, sy + sh - 1); y++)
    {
      const int dy = y - cy;
      guint8 *out = lb_xv_row_mut (dst, y);

      /* Pass 1, branch-free: border point and ratio for every interior column. */
      blend_points (sx, sy, sw, sh, cx, cy, dy, n, exs, eys, ratios);

      /* Pass 2: the samples. */
      if (depth == 8 && ch == 3)
        {
          blend_samples_rgb8 (src->data, src->stride, exs, eys, ratios, self->centre,
                              out + (gsize) (sx + 1) * 3, n);
          if (y == cy && cx > sx && cx < sx + sw - 1)
            for (int c = 0; c < 3; c++)
              out[(gsize) cx * 3 + c] = (guint8) self->centre[c];
          continue;
        }
      for (int j = 0; j < n; j++)
        {
          const int x = sx + 1 + j;
          const guint8 *erow = lb_xv_row (src, eys[j]);

          if (x == cx && y == cy)
            {
              for (int c = 0; c < nc; c++)
                lb_xv_put (out, (gsize) x * ch + c, (guint) self->centre[c], depth);
              continue;
            }
          for (int c = 0; c < nc; c++)
            {
              const int e = (int) lb_xv_get (erow, (gsize) exs[j] * ch + c, depth);
              const int v = self->centre[c] + (int) ((e - self->centre[c]) * ratios[j]);
              lb_xv_put (out, (gsize) x * ch + c, (guint) CLAMP (v, 0, top), depth);
            }
        }
    }
}

void
lb_xv_blend_process (const LbXvBlend   *self,
                     const LbKernelBuf *src,
                     LbKernelBuf       *dst,
                     int                y0,
                     int                y1)
{
  g_return_if_fail (self != NULL && _lb_xv_same_geometry (src, dst));

  if (!self->active)
    return;
  if (src->depth == 8)
    blend_fast_rows (self, src, dst, y0, y1, 8);
  else
    blend_fast_rows (self, src, dst, y0, y1, 16);
}
