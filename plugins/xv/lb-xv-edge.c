/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-edge"

#include "lb-xv-edge.h"

gboolean
lb_xv_edge_prepare (LbXvEdge           *self,
                    const LbKernelBuf  *src,
                    const LbKernelRect *selection,
                    gboolean            correct_ring,
                    GError            **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  self->correct_ring = correct_ring ? TRUE : FALSE;
  return _lb_xv_region_init (&self->region, src, selection, "edge", error);
}

/* e for channel @c of pixel (x, y), neighbours clamped to the region (which changes nothing
 * for interior pixels). */
LB_XV_INLINE guint
edge_at (const LbKernelBuf *src, const LbXvRegion *R, int x, int y, int c, const int depth)
{
  const int ch = src->channels;
  const int xl = MAX (x - 1, R->x0), xr = MIN (x + 1, R->x1 - 1);
  const int yt = MAX (y - 1, R->y0), yb = MIN (y + 1, R->y1 - 1);
  const guint8 *rows[3] = { lb_xv_row (src, yt), lb_xv_row (src, y), lb_xv_row (src, yb) };
  const int xs[3] = { xl, x, xr };
  int hg = 0, vg = 0;

  for (int k = 0; k < 3; k++)
    {
      hg += (int) lb_xv_get (rows[k], (gsize) xr * ch + c, depth)
            - (int) lb_xv_get (rows[k], (gsize) xl * ch + c, depth);
      vg += (int) lb_xv_get (rows[2], (gsize) xs[k] * ch + c, depth)
            - (int) lb_xv_get (rows[0], (gsize) xs[k] * ch + c, depth);
    }
  return (guint) (MAX (ABS (hg), ABS (vg)) / 3);
}

LB_XV_INLINE void
edge_ref_rows (const LbXvEdge    *self,
               const LbKernelBuf *src,
               LbKernelBuf       *dst,
               int                ya,
               int                yb,
               const int          depth)
{
  const LbXvRegion *R = &self->region;
  const int ch = src->channels;
  const int nc = lb_xv_colour_channels (ch);

  for (int y = ya; y < yb; y++)
    {
      const guint8 *in = lb_xv_row (src, y);
      guint8 *out = lb_xv_row_mut (dst, y);

      for (int x = R->x0; x < R->x1; x++)
        {
          const gboolean ring = x == R->x0 || x == R->x1 - 1 || y == R->y0 || y == R->y1 - 1;

          for (int c = 0; c < nc; c++)
            {
              const gsize i = (gsize) x * ch + c;

              if (ring && !self->correct_ring)
                lb_xv_put (out, i, lb_xv_get (in, i, depth), depth);
              else
                lb_xv_put (out, i, edge_at (src, R, x, y, c, depth), depth);
            }
        }
    }
}

LB_XV_DEFINE_PROCESS (lb_xv_edge_process_ref, LbXvEdge, edge_ref_rows)

/* 8 bits: samples ch .. n−ch−1 of one row straight into @out, the row as a flat array of
 * samples (neighbours at ±ch; alpha, if any, computed too and put back by the caller), 16-bit
 * lanes (|Hg|, |Vg| ≤ 765), the exact /3 as a multiply-high. */
LB_KERNEL_CLONES static void
edge_row_8_direct (const guint8 *restrict up, const guint8 *restrict in,
                   const guint8 *restrict down, guint8 *restrict out, int n, int ch)
{
  for (int i = ch; i < n - ch; i++)
    {
      const gint16 hg = (gint16) ((up[i + ch] + in[i + ch] + down[i + ch])
                                  - (up[i - ch] + in[i - ch] + down[i - ch]));
      const gint16 vg = (gint16) ((down[i - ch] + down[i] + down[i + ch])
                                  - (up[i - ch] + up[i] + up[i + ch]));
      const gint16 ahg = hg < 0 ? (gint16) -hg : hg, avg = vg < 0 ? (gint16) -vg : vg;
      out[i] = (guint8) lb_xv_div3_u16 ((guint16) (ahg > avg ? ahg : avg));
    }
}

/* 16 bits (the medical images' gray): the same, 32-bit lanes (|Hg|, |Vg| ≤
 * 3 · 65535), the exact /3 as the compiler's multiply-high. */
LB_KERNEL_CLONES static void
edge_row_16_direct (const guint16 *restrict up, const guint16 *restrict in,
                    const guint16 *restrict down, guint16 *restrict out, int n, int ch)
{
  for (int i = ch; i < n - ch; i++)
    {
      const gint32 hg = ((gint32) up[i + ch] + in[i + ch] + down[i + ch])
                        - ((gint32) up[i - ch] + in[i - ch] + down[i - ch]);
      const gint32 vg = ((gint32) down[i - ch] + down[i] + down[i + ch])
                        - ((gint32) up[i - ch] + up[i] + up[i + ch]);
      const guint32 ahg = (guint32) (hg < 0 ? -hg : hg), avg = (guint32) (vg < 0 ? -vg : vg);

      out[i] = (guint16) ((ahg > avg ? ahg : avg) / 3u);
    }
}

LB_XV_INLINE void
edge_fast_rows (const LbXvEdge    *self,
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

  for (int y = ya; y < yb; y++)
    {
      const gboolean ring_row = y == R->y0 || y == R->y1 - 1;
      const guint8 *in = lb_xv_row (src, y) + xoff;
      guint8 *out = lb_xv_row_mut (dst, y) + xoff;

      if (!self->correct_ring && (ring_row || rw < 3))
        {
          for (int j = 0; j < rw; j++)
            for (int c = 0; c < nc; c++)
              lb_xv_put (out, (gsize) j * ch + c, lb_xv_get (in, (gsize) j * ch + c, depth), depth);
          lb_kernel_restore_alpha (src, dst, y, R->x0, R->x1);
          continue;
        }

      {
        /* Rows clamped to the region: only the corrected mode reaches the ring rows. */
        const guint8 *restrict up = lb_xv_row (src, MAX (y - 1, R->y0)) + xoff;
        const guint8 *restrict down = lb_xv_row (src, MIN (y + 1, R->y1 - 1)) + xoff;

        if (depth == 8)
          edge_row_8_direct (up, in, down, out, n, ch);
        else
          edge_row_16_direct ((const guint16 *) (const void *) up, (const guint16 *) (const void *) in,
                              (const guint16 *) (const void *) down, (guint16 *) (void *) out, n, ch);
      }

      /* The first and last column: the source (xv) or the clamped window (corrected). */
      for (int k = 0; k < (rw > 1 ? 2 : 1); k++)
        {
          const int j = k == 0 ? 0 : rw - 1;

          for (int c = 0; c < nc; c++)
            {
              const gsize i = (gsize) j * ch + c;

              if (self->correct_ring)
                lb_xv_put (out, i, edge_at (src, R, R->x0 + j, y, c, depth), depth);
              else
                lb_xv_put (out, i, lb_xv_get (in, i, depth), depth);
            }
        }
      /* alpha, computed as a channel by the row kernels and left unwritten at the ends: the
       * source's, over the whole region row (so the plugin need not copy it again) */
      lb_kernel_restore_alpha (src, dst, y, R->x0, R->x1);
    }
}

LB_XV_DEFINE_PROCESS (lb_xv_edge_process, LbXvEdge, edge_fast_rows)

/* Largest MONO over columns [x0, x1) of one row; @ch is a constant at each call site. */
LB_XV_INLINE guint
row_max_mono (const guint8 *row, int x0, int x1, const int ch, const int nc, const int depth)
{
  guint maxv = 0;

  for (int x = x0; x < x1; x++)
    {
      const gsize i = (gsize) x * ch;
      const guint m = nc == 3 ? lb_xv_mono (lb_xv_get (row, i, depth),
                                            lb_xv_get (row, i + 1, depth),
                                            lb_xv_get (row, i + 2, depth))
                              : lb_xv_get (row, i, depth);
      maxv = m > maxv ? m : maxv;
    }
  return maxv;
}

/* Largest MONO of an RGB8 or RGBA8 (@ch 3 or 4, alpha skipped) row part of n pixels, 16-bit
 * lanes (11 r + 16 g + 5 b ≤ 8160). */
LB_XV_INLINE guint
row_max_mono_c8 (const guint8 *restrict row, int n, const int ch)
{
  guint16 maxv = 0;

  for (int x = 0; x < n; x++)
    {
      const guint16 m = (guint16) ((11 * row[ch * x] + 16 * row[ch * x + 1]
                                    + 5 * row[ch * x + 2]) >> 5);
      maxv = m > maxv ? m : maxv;
    }
  return maxv;
}

LB_KERNEL_CLONES static guint
row_max_mono_rgb8 (const guint8 *restrict row, int n)
{
  return row_max_mono_c8 (row, n, 3);
}

LB_KERNEL_CLONES static guint
row_max_mono_rgba8 (const guint8 *restrict row, int n)
{
  return row_max_mono_c8 (row, n, 4);
}

LB_XV_INLINE guint
edge_reduce_rows (const LbXvEdge *self, const LbKernelBuf *dst, int ya, int yb, const int depth)
{
  const LbXvRegion *R = &self->region;
  guint maxv = 0;

  for (int y = ya; y < yb; y++)
    {
      const guint8 *row = lb_xv_row (dst, y);
      guint m;

      switch (dst->channels)
        {
        case 1: m = row_max_mono (row, R->x0, R->x1, 1, 1, depth); break;
        case 2: m = row_max_mono (row, R->x0, R->x1, 2, 1, depth); break;
        case 3:
          m = depth == 8 ? row_max_mono_rgb8 (row + (gsize) R->x0 * 3, R->x1 - R->x0)
                         : row_max_mono (row, R->x0, R->x1, 3, 3, depth);
          break;
        case 4:
        default:
          m = depth == 8 ? row_max_mono_rgba8 (row + (gsize) R->x0 * 4, R->x1 - R->x0)
                         : row_max_mono (row, R->x0, R->x1, 4, 3, depth);
          break;
        }
      maxv = MAX (maxv, m);
    }
  return maxv;
}

/* Step 1 and this band's share of step 2 in one pass: chunks of rows are reduced right after
 * they are written, while they are still in cache, which saves the host a second parallel
 * pass over the whole destination. */
#define EDGE_REDUCE_CHUNK 16

guint
lb_xv_edge_process_reduce (const LbXvEdge    *self,
                           const LbKernelBuf *src,
                           LbKernelBuf       *dst,
                           int                y0,
                           int                y1)
{
  guint maxv = 0;

  g_return_val_if_fail (self != NULL && _lb_xv_same_geometry (src, dst), 0);

  _lb_xv_clip_rows (&self->region, &y0, &y1);
  for (int y = y0; y < y1; y += EDGE_REDUCE_CHUNK)
    {
      const int yb = MIN (y + EDGE_REDUCE_CHUNK, y1);
      guint m;

      if (src->depth == 8)
        {
          edge_fast_rows (self, src, dst, y, yb, 8);
          m = edge_reduce_rows (self, dst, y, yb, 8);
        }
      else
        {
          edge_fast_rows (self, src, dst, y, yb, 16);
          m = edge_reduce_rows (self, dst, y, yb, 16);
        }
      maxv = MAX (maxv, m);
    }
  return maxv;
}

guint
lb_xv_edge_reduce (const LbXvEdge    *self,
                   const LbKernelBuf *dst,
                   int                y0,
                   int                y1)
{
  g_return_val_if_fail (self != NULL && dst != NULL, 0);

  if (!_lb_xv_clip_rows (&self->region, &y0, &y1))
    return 0;
  return dst->depth == 8 ? edge_reduce_rows (self, dst, y0, y1, 8)
                         : edge_reduce_rows (self, dst, y0, y1, 16);
}

LB_XV_INLINE void
edge_finish_ref_rows (const LbXvEdge *self, LbKernelBuf *dst, guint maxv, int ya, int yb,
                      const int depth)
{
  const LbXvRegion *R = &self->region;
  const int ch = dst->channels;
  const int nc = lb_xv_colour_channels (ch);
  const guint64 top = lb_xv_max_value (depth);

  for (int y = ya; y < yb; y++)
    {
      guint8 *row = lb_xv_row_mut (dst, y);

      for (int x = R->x0; x < R->x1; x++)
        for (int c = 0; c < nc; c++)
          {
            const gsize i = (gsize) x * ch + c;
            const guint64 v = (guint64) lb_xv_get (row, i, depth) * top / maxv;
            lb_xv_put (row, i, (guint) MIN (v, top), depth);
          }
    }
}

void
lb_xv_edge_finish_ref (const LbXvEdge *self,
                       LbKernelBuf    *dst,
                       guint           maxv,
                       int             y0,
                       int             y1)
{
  g_return_if_fail (self != NULL && dst != NULL);

  if (!_lb_xv_clip_rows (&self->region, &y0, &y1) || maxv == 0)
    return;
  if (dst->depth == 8)
    edge_finish_ref_rows (self, dst, maxv, y0, y1, 8);
  else
    edge_finish_ref_rows (self, dst, maxv, y0, y1, 16);
}

/* row[i] = ⌊(row[i] · 65535 + 0.5) · inv⌋, at most 65535, over n samples: the 16-bit
 * scaling of lb_xv_edge_finish, the same double operations, in vectors. */
LB_KERNEL_CLONES static void
scale_row_16 (guint16 *restrict row, int n, double inv)
{
  for (int i = 0; i < n; i++)
    {
      const double q = ((double) row[i] * 65535.0 + 0.5) * inv;

      row[i] = (guint16) (q >= 65535.0 ? 65535.0 : q);
    }
}

/* row[i] = min((row[i] · mul) >> 16, 255) over n samples (see lb_xv_edge_finish); with
 * alpha (@ch 2 or 4, a power of two: alpha is every sample i with i & (ch − 1) = ch − 1)
 * those keep their value, a select the compiler still vectorises. */
LB_XV_INLINE void
scale_row_8_body (guint8 *restrict row, int n, guint32 mul, const int ch)
{
  for (int i = 0; i < n; i++)
    {
      const guint32 v = row[i], q = (v * mul) >> 16;
      const guint32 scaled = q < 255u ? q : 255u;

      row[i] = (guint8) ((ch == 2 || ch == 4) && (i & (ch - 1)) == ch - 1 ? v : scaled);
    }
}

LB_KERNEL_CLONES static void
scale_row_8 (guint8 *restrict row, int n, guint32 mul)
{
  scale_row_8_body (row, n, mul, 1);
}

LB_KERNEL_CLONES static void
scale_row_8_a4 (guint8 *restrict row, int n, guint32 mul)
{
  scale_row_8_body (row, n, mul, 4);
}

LB_KERNEL_CLONES static void
scale_row_8_a2 (guint8 *restrict row, int n, guint32 mul)
{
  scale_row_8_body (row, n, mul, 2);
}

void
lb_xv_edge_finish (const LbXvEdge *self,
                   LbKernelBuf    *dst,
                   guint           maxv,
                   int             y0,
                   int             y1)
{
  const LbXvRegion *R;
  int ch, nc;

  g_return_if_fail (self != NULL && dst != NULL);

  R = &self->region;
  y0 = MAX (y0, R->y0);
  y1 = MIN (y1, R->y1);
  if (y0 >= y1 || maxv == 0)
    return;
  ch = dst->channels;
  nc = lb_xv_colour_channels (ch);

  if (dst->depth == 8)
    {
      /* A table of the 256 possible results: one load per sample. */
      guint8 lut[256];

      /* Or one multiply: ⌊255 v / maxv⌋ = (v · mul) >> 16 with mul = ⌊255 · 2^16 / maxv⌋ + 1
       * (v · mul < 2^32), used only when it matches the table for all 256 values (checked
       * here, for this maxv). */
      const guint32 mul = 255u * 65536u / maxv + 1u;
      gboolean exact = TRUE;

      for (guint v = 0; v < 256; v++)
        {
          lut[v] = (guint8) MIN (v * 255u / maxv, 255u);
          exact = exact && MIN ((v * mul) >> 16, 255u) == lut[v];
        }
      if (exact)
        {
          void (*scale) (guint8 *, int, guint32) = ch == 4 ? scale_row_8_a4
                                                   : ch == 2 ? scale_row_8_a2 : scale_row_8;

          for (int y = y0; y < y1; y++)
            scale (lb_xv_row_mut (dst, y) + (gsize) R->x0 * ch, (R->x1 - R->x0) * ch, mul);
          return;
        }
      for (int y = y0; y < y1; y++)
        {
          guint8 *row = lb_xv_row_mut (dst, y) + (gsize) R->x0 * ch;

          if (nc == ch)
            for (int i = 0; i < (R->x1 - R->x0) * ch; i++)
              row[i] = lut[row[i]];
          else
            for (int j = 0; j < R->x1 - R->x0; j++)
              for (int c = 0; c < nc; c++)
                row[j * ch + c] = lut[row[j * ch + c]];
        }
    }
  else
    {
      /* ⌊s / maxv⌋ for s = v·65535 < 2^32: (s + 0.5)·(1/maxv) in double is within 2^-40 of
       * the exact quotient, far less than the 0.5/maxv that separates it from an integer. */
      const double inv = 1.0 / (double) maxv;

      for (int y = y0; y < y1; y++)
        {
          guint16 *row = (guint16 *) (void *) (lb_xv_row_mut (dst, y)) + (gsize) R->x0 * ch;

          if (nc == ch)
            {
              scale_row_16 (row, (R->x1 - R->x0) * ch, inv);
              continue;
            }
          for (int j = 0; j < R->x1 - R->x0; j++)
            for (int c = 0; c < nc; c++)
              {
                const double s = (double) row[j * ch + c] * 65535.0 + 0.5;
                const double q = s * inv;
                row[j * ch + c] = (guint16) (q >= 65535.0 ? 65535.0 : q);
              }
        }
    }
}
