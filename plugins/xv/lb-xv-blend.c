/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-blend"

#include "lb-xv-blend.h"

#include <math.h>

#if LB_XV_HAVE_AVX2_PATH
#include <immintrin.h>
#endif

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
  self->no_simd = FALSE;
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

/* xv's border point (ex, ey) and ratio (d / d1)² for interior pixel (x, y) of region @R,
 * (x, y) not the centre: its integer formulas, its double steepness test, its sqrt and pow */
static inline void
ref_point (const LbXvRegion *R,
           int               x,
           int               y,
           int              *pex,
           int              *pey,
           double           *pratio)
{
  const int sx = R->x0, sy = R->y0, sw = R->x1 - R->x0, sh = R->y1 - R->y0;
  const int cx = sx + sw / 2, cy = sy + sh / 2;
  const double dslope = (double) sh / (double) sw;
  const int dx = x - cx, dy = y - cy;
  int ex, ey;
  double d, d1;

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
  *pex = ex;
  *pey = ey;
  *pratio = pow (d / d1, 2.0);
}

void
_lb_xv_blend_ref_point (const LbXvBlend *self,
                        int              x,
                        int              y,
                        int             *ex,
                        int             *ey,
                        double          *ratio)
{
  ref_point (&self->region, x, y, ex, ey, ratio);
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
  const int top = (int) lb_xv_max_value (depth);

  for (int y = MAX (ya, sy + 1); y < MIN (yb, sy + sh - 1); y++)
    {
      guint8 *out = lb_xv_row_mut (dst, y);

      for (int x = sx + 1; x < sx + sw - 1; x++)
        {
          int ex, ey;
          double ratio;

          if (x == cx && y == cy)
            {
              for (int c = 0; c < nc; c++)
                lb_xv_put (out, (gsize) x * ch + c, (guint) self->centre[c], depth);
              continue;
            }
          ref_point (R, x, y, &ex, &ey, &ratio);
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

/* GCC's per-function option; clang has none (it warns "unknown attribute", and its loops
 * vectorise without it) */
#if defined(__GNUC__) && !defined(__clang__)
#define BLEND_NO_TRAPPING_MATH __attribute__ ((optimize ("no-trapping-math")))
#else
#define BLEND_NO_TRAPPING_MATH
#endif

/* Pass 1 of a row at dy from the centre, branch-free: the border point (exs, eys) and the
 * ratio for each of the n interior columns. Doubles without contraction (the AVX2 clone does
 * the same IEEE operations on more lanes). no-trapping-math lets GCC if-convert the loop (it
 * may then evaluate both arms of a select); it changes no value, unlike -ffast-math. */
LB_KERNEL_CLONES BLEND_NO_TRAPPING_MATH static void
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
LB_KERNEL_CLONES BLEND_NO_TRAPPING_MATH static void
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

/* Pass 2 for 16-bit gray (the medical images' format), the same operations as the generic
 * loop below. */
LB_KERNEL_CLONES BLEND_NO_TRAPPING_MATH static void
blend_samples_gray16 (const guint8 *restrict data, gsize stride, const int *restrict exs,
                      const int *restrict eys, const double *restrict ratios, int centre,
                      guint16 *restrict out, int n)
{
  for (int j = 0; j < n; j++)
    {
      const int e = ((const guint16 *) (const void *) (data + (gsize) eys[j] * stride))[exs[j]];
      const int v = centre + (int) ((e - centre) * ratios[j]);

      out[j] = (guint16) (v < 0 ? 0 : (v > 65535 ? 65535 : v));
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
      if (depth == 16 && ch == 1)
        {
          guint16 *out16 = (guint16 *) (void *) out;

          blend_samples_gray16 (src->data, src->stride, exs, eys, ratios, self->centre[0],
                                out16 + sx + 1, n);
          if (y == cy && cx > sx && cx < sx + sw - 1)
            out16[cx] = (guint16) self->centre[0];
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

/* ---- AVX2 rows: every format (vector products for 8-bit gray, RGB, RGBA and 16-bit gray) --
 *
 * Per row two passes over the n = sw − 2 interior columns, eight at a time:
 *
 * 1. Border points and ratios. The row splits into the steep columns, |dx| ≤ amax with
 *    amax = ⌊(|dy|·sw − 1) / sh⌋ (the integers of |dy/dx| > sh/sw, dx = 0 included), where
 *    E is on the top or bottom row, and the flat columns on either side, where E is on the
 *    left or right column. Both cases need one truncated quotient: steep ex − cx =
 *    sign(dx)·⌊|K|·|dx| / |dy|⌋ with K = ey − cy (K has the sign of dy), flat ey − cy =
 *    sign(dy)·⌊|Kx|·|dy| / |dx|⌋ with Kx = ex − cx (the sign of dx). The quotient is
 *    estimated in float from the dividend (exact: below 2^24) times the float reciprocal of
 *    the divisor: relative error below 2^-23, so for quotients below 2^22 the truncated
 *    estimate is off by at most 1, and one integer step on each side (the remainder
 *    A − q·B must lie in [0, B)) makes it exact. E is clamped to the region as in the
 *    reference, then stored as an index into a table of the region's border pixels (top
 *    row, bottom row, left column, right column). The ratio (dx² + dy²) / d1² is one float
 *    division of exact integers: relative error at most 2^-24 from the exact rational.
 *
 * 2. Samples: the border pixels gathered from the table, per channel
 *    C + (int) ((float) (E − C) · ratio): the product is within 255 · 2^-22 of the exact
 *    one, and the reference's double value is within 10^-13 of it, so the truncations can
 *    only differ where an integer lies between them, by 1. The packs saturate to [0, 255].
 *    16-bit gray (the medical images') the same way: E − C is exact in float (|E − C| ≤
 *    65535 < 2^24) and the product within 65535 · 2^-22 < 0.016 of the exact one, so again
 *    at most 1 off where an integer lies between; the pack saturates to [0, 65535].
 *
 * Each chunk of eight columns is computed in whole: a chunk may run past the end of its
 * segment; the next segment (processed after it) rewrites those columns, the last chunk of
 * a row ends at n (it may overlap the one before: the same values are written twice). */

#if LB_XV_HAVE_AVX2_PATH

/* The region is small enough for pass 1's float arithmetic to be exact as described:
 * dividends, squared distances and dx² + dy² all stay at most (sw/2)² + (sh/2)² ≤ 2^24. */
static gboolean
blend_avx2_fits (const LbXvBlend *self)
{
  const gint64 hw = (self->region.x1 - self->region.x0) / 2 + 1;
  const gint64 hh = (self->region.y1 - self->region.y0) / 2 + 1;

  return hw * hw + hh * hh <= ((gint64) 1 << 24);
}

/* The formats pass 2 has vector rows for; the others (GRAYA8, GRAYA16, RGB16, RGBA16) take
 * blend_samples_any, the same float operations one sample at a time, so that a channel comes
 * out the same whatever the format around it: GRAYA8's gray is GRAY8's, RGB16's red is the
 * GRAY16 result of the red plane. */
static inline gboolean
blend_avx2_samples_fit (int depth, int channels)
{
  return (depth == 8 && (channels == 1 || channels == 3 || channels == 4))
         || (depth == 16 && channels == 1);
}

/* The reciprocals of the quotient estimates are scaled by 1 − 2^-22 (BLEND_RCP_LOW): with the
 * float roundings of 1/B, of that product and of A times it (each relative 2^-24 at most),
 * the estimate stays strictly below A / B and above A / B − 1 (for A / B < 2^21), so its
 * truncation is ⌊A / B⌋ or one less, and one integer step corrects it. */
#define BLEND_RCP_LOW (1.0f - 0x1p-22f)

typedef struct {
  int sx, sy, sw, sh, cx, cy, n;
  int depth;
  guint32 *table; /* border pixels, channel c in bits 8c..8c+7 (16-bit gray: the sample): top
                   * row (sw), bottom row (sw), left column (sh), right column (sh) */
  float *rcp;     /* n + 8: (1 / |dx|) · BLEND_RCP_LOW of interior column j (+inf at dx = 0) */
  gint32 *idx;    /* n + 8: pass 1's table indices */
  float *ratio;   /* n + 8: pass 1's ratios */
  guint32 *px;    /* n + 8: the border pixels table[idx[j]] */
  const guint8 **ptr; /* the formats without vector products (blend_samples_any): each border
                       * pixel in the source, in the table's order; else NULL */
} BlendRows;

/* A pixel's colour channels packed, channel c in bits 8c..8c+7; 16-bit gray: its sample. */
static inline guint32
blend_pack (const guint8 *p, int nc, int depth)
{
  if (depth == 16)
    return *(const guint16 *) (const void *) p;
  return nc == 1 ? p[0] : (guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16;
}

static void
blend_rows_init (BlendRows *b, const LbXvBlend *self, const LbKernelBuf *src)
{
  const LbXvRegion *R = &self->region;
  const int ch = src->channels, nc = lb_xv_colour_channels (ch), pb = ch * (src->depth / 8);

  b->depth = src->depth;
  b->sx = R->x0, b->sy = R->y0, b->sw = R->x1 - R->x0, b->sh = R->y1 - R->y0;
  b->cx = b->sx + b->sw / 2, b->cy = b->sy + b->sh / 2;
  b->n = b->sw - 2;
  b->table = g_new (guint32, 2 * (gsize) b->sw + 2 * (gsize) b->sh);
  b->rcp = g_new (float, (gsize) b->n + 8);
  b->idx = g_new (gint32, (gsize) b->n + 8);
  b->ratio = g_new (float, (gsize) b->n + 8);
  b->px = g_new (guint32, (gsize) b->n + 8);
  b->ptr = blend_avx2_samples_fit (src->depth, ch)
             ? NULL : g_new (const guint8 *, 2 * (gsize) b->sw + 2 * (gsize) b->sh);
  /* Every band builds the table (a few microseconds: the engine runs about 8 bands). */
  {
    const guint8 *top = lb_xv_row (src, b->sy) + (gsize) b->sx * pb;
    const guint8 *bottom = lb_xv_row (src, b->sy + b->sh - 1) + (gsize) b->sx * pb;
    const guint8 *left = lb_xv_row (src, b->sy) + (gsize) b->sx * pb;
    const guint8 *right = left + (gsize) (b->sw - 1) * pb;
    guint32 *t = b->table;

    for (int i = 0; i < b->sw; i++)
      t[i] = blend_pack (top + (gsize) i * pb, nc, b->depth),
      t[b->sw + i] = blend_pack (bottom + (gsize) i * pb, nc, b->depth);
    t += 2 * b->sw;
    for (int i = 0; i < b->sh; i++)
      t[i] = blend_pack (left + (gsize) i * src->stride, nc, b->depth),
      t[b->sh + i] = blend_pack (right + (gsize) i * src->stride, nc, b->depth);
    if (b->ptr != NULL)
      {
        const guint8 **p = b->ptr;

        for (int i = 0; i < b->sw; i++)
          p[i] = top + (gsize) i * pb, p[b->sw + i] = bottom + (gsize) i * pb;
        p += 2 * b->sw;
        for (int i = 0; i < b->sh; i++)
          p[i] = left + (gsize) i * src->stride, p[b->sh + i] = right + (gsize) i * src->stride;
      }
  }
  for (int j = 0; j < b->n + 8; j++)
    {
      const int dx = b->sx + 1 + j - b->cx;

      /* 1 / 0 = +inf at the centre column: that lane of a flat chunk is rewritten. */
      b->rcp[j] = (1.0f / (float) ABS (dx)) * BLEND_RCP_LOW;
    }
}

static void
blend_rows_clear (BlendRows *b)
{
  g_free (b->table), g_free (b->rcp), g_free (b->idx), g_free (b->ratio), g_free (b->px);
  g_free (b->ptr);
}

/* q = ⌊A / B⌋ for 0 ≤ A ≤ 2^24, 1 ≤ B, @rcp_b = fl (fl (1 / B) · BLEND_RCP_LOW); lanes with
 * B = 0 give garbage (rewritten later). */
__attribute__ ((target ("avx2"))) static inline __m256i
blend_floor_div (__m256i a, __m256 a_f, __m256i b, __m256 rcp_b)
{
  const __m256i q = _mm256_cvttps_epi32 (_mm256_mul_ps (a_f, rcp_b));
  const __m256i r = _mm256_sub_epi32 (a, _mm256_mullo_epi32 (q, b));

  /* r ≥ b: one too few, q + 1; else q (the mask is −1 where b > r). */
  return _mm256_sub_epi32 (_mm256_add_epi32 (q, _mm256_cmpgt_epi32 (b, r)), _mm256_set1_epi32 (-1));
}

/* Flat columns [ja, jb) of row dy, E on the column ex (table entries base + (ey − sy)). */
__attribute__ ((target ("avx2"))) static void
blend_flat_avx2 (const BlendRows *b, int dy, int ja, int jb, int ex, int base)
{
  const int kx = ex - b->cx, ady = ABS (dy);
  const int a = ABS (kx) * ady;
  const __m256i lane = _mm256_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i av = _mm256_set1_epi32 (a), dyv = _mm256_set1_epi32 (dy);
  const __m256 af = _mm256_set1_ps ((float) a);
  const __m256i off = _mm256_set1_epi32 (b->cy - b->sy), hi = _mm256_set1_epi32 (b->sh - 1);
  const __m256i basev = _mm256_set1_epi32 (base), kx2 = _mm256_set1_epi32 (kx * kx);
  const __m256i dy2 = _mm256_set1_epi32 (dy * dy), zero = _mm256_setzero_si256 ();
  const __m256i eight = _mm256_set1_epi32 (8);
  __m256i dx = _mm256_add_epi32 (_mm256_set1_epi32 (b->sx + 1 + ja - b->cx), lane);

  for (int j = ja; j < jb; j += 8, dx = _mm256_add_epi32 (dx, eight))
    {
      const __m256i adx = _mm256_abs_epi32 (dx);
      const __m256i q = blend_floor_div (av, af, adx, _mm256_loadu_ps (b->rcp + j));
      const __m256i eyi = _mm256_min_epi32 (_mm256_max_epi32 (_mm256_add_epi32 (off, _mm256_sign_epi32 (q, dyv)), zero), hi);
      const __m256i qy = _mm256_sub_epi32 (eyi, off);
      const __m256i m = _mm256_add_epi32 (kx2, _mm256_mullo_epi32 (qy, qy));
      const __m256i nn = _mm256_add_epi32 (dy2, _mm256_mullo_epi32 (dx, dx));

      _mm256_storeu_si256 ((__m256i *) (void *) (b->idx + j), _mm256_add_epi32 (basev, eyi));
      _mm256_storeu_ps (b->ratio + j, _mm256_div_ps (_mm256_cvtepi32_ps (nn), _mm256_cvtepi32_ps (m)));
    }
}

/* Steep columns [ja, jb) of row dy ≠ 0, E on the row ey (table entries base + (ex − sx)). */
__attribute__ ((target ("avx2"))) static void
blend_steep_avx2 (const BlendRows *b, int dy, int ja, int jb, int ey, int base)
{
  const int k = ey - b->cy, ady = ABS (dy);
  const __m256i lane = _mm256_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i akv = _mm256_set1_epi32 (ABS (k)), bv = _mm256_set1_epi32 (ady);
  const __m256 rcp_b = _mm256_set1_ps ((1.0f / (float) ady) * BLEND_RCP_LOW);
  const __m256i off = _mm256_set1_epi32 (b->cx - b->sx), hi = _mm256_set1_epi32 (b->sw - 1);
  const __m256i basev = _mm256_set1_epi32 (base), k2 = _mm256_set1_epi32 (k * k);
  const __m256i dy2 = _mm256_set1_epi32 (dy * dy), zero = _mm256_setzero_si256 ();
  const __m256i eight = _mm256_set1_epi32 (8);
  __m256i dx = _mm256_add_epi32 (_mm256_set1_epi32 (b->sx + 1 + ja - b->cx), lane);

  for (int j = ja; j < jb; j += 8, dx = _mm256_add_epi32 (dx, eight))
    {
      const __m256i a = _mm256_mullo_epi32 (akv, _mm256_abs_epi32 (dx));
      const __m256i q = blend_floor_div (a, _mm256_cvtepi32_ps (a), bv, rcp_b);
      const __m256i exi = _mm256_min_epi32 (_mm256_max_epi32 (_mm256_add_epi32 (off, _mm256_sign_epi32 (q, dx)), zero), hi);
      const __m256i qx = _mm256_sub_epi32 (exi, off);
      const __m256i m = _mm256_add_epi32 (k2, _mm256_mullo_epi32 (qx, qx));
      const __m256i nn = _mm256_add_epi32 (dy2, _mm256_mullo_epi32 (dx, dx));

      _mm256_storeu_si256 ((__m256i *) (void *) (b->idx + j), _mm256_add_epi32 (basev, exi));
      _mm256_storeu_ps (b->ratio + j, _mm256_div_ps (_mm256_cvtepi32_ps (nn), _mm256_cvtepi32_ps (m)));
    }
}

/* Pass 1 for row dy: b->idx and b->ratio for the n interior columns. The centre pixel gets
 * ratio 0, hence exactly C. */
__attribute__ ((target ("avx2"))) static void
blend_points_avx2 (const BlendRows *b, int dy)
{
  const int n = b->n, dx0 = b->sx + 1 - b->cx;
  const int ady = ABS (dy);
  const int amax = dy == 0 ? 0 : (int) (((gint64) ady * b->sw - 1) / b->sh);
  const int js0 = MAX (0, -amax - dx0), js1 = MIN (n, amax - dx0 + 1);

  blend_flat_avx2 (b, dy, 0, js0, b->sx, 2 * b->sw);
  if (dy != 0)
    blend_steep_avx2 (b, dy, js0, js1, dy < 0 ? b->sy : b->sy + b->sh - 1,
                      dy < 0 ? 0 : b->sw);
  else
    {
      b->idx[js0] = 0;
      b->ratio[js0] = 0.0f;
    }
  blend_flat_avx2 (b, dy, js1, n, b->sx + b->sw - 1, 2 * b->sw + b->sh);
}

/* One sample in float as the vector lanes compute it (rows narrower than eight columns);
 * @depth 16: @packed is the sample. */
static inline int
blend_value_f (int e, int centre, float ratio, int depth)
{
  const int v = centre + (int) ((float) (e - centre) * ratio);
  const int top = depth == 16 ? 65535 : 255;

  return v < 0 ? 0 : (v > top ? top : v);
}

static inline int
blend_sample_f (guint32 packed, int c, int centre, float ratio, int depth)
{
  return blend_value_f (depth == 16 ? (int) packed : (int) ((packed >> (8 * c)) & 0xff), centre,
                        ratio, depth);
}

static void
blend_lookup (guint32 *restrict px, const guint32 *restrict table, const gint32 *restrict idx,
              int n)
{
  for (int j = 0; j < n; j++)
    px[j] = table[idx[j]];
}

/* The border point (ex, ey) of table index @i (see BlendRows.table). */
static inline void
blend_index_point (const BlendRows *b, int i, int *ex, int *ey)
{
  if (i < 2 * b->sw)
    *ex = b->sx + i % b->sw, *ey = i < b->sw ? b->sy : b->sy + b->sh - 1;
  else
    *ex = i < 2 * b->sw + b->sh ? b->sx : b->sx + b->sw - 1, *ey = b->sy + (i - 2 * b->sw) % b->sh;
}

/* Pass 2 for the formats without vector rows (GRAYA8, GRAYA16, RGB16, RGBA16): per sample
 * what a vector lane computes (blend_value_f), the border pixel read from the source through
 * its table index (b->ptr); alpha copied from the source. @in, @out: the row's first interior
 * pixel. */
LB_XV_INLINE void
blend_samples_any_body (const BlendRows *b, const int *centre, const guint8 *in, guint8 *out,
                        const int ch, const int depth)
{
  const int nc = lb_xv_colour_channels (ch);

  for (int j = 0; j < b->n; j++)
    {
      const guint8 *e = b->ptr[b->idx[j]];

      for (int c = 0; c < nc; c++)
        lb_xv_put (out, (gsize) j * ch + c,
                   (guint) blend_value_f ((int) lb_xv_get (e, (gsize) c, depth), centre[c],
                                          b->ratio[j], depth),
                   depth);
      if (nc < ch)
        lb_xv_put (out, (gsize) j * ch + nc, lb_xv_get (in, (gsize) j * ch + nc, depth), depth);
    }
}

static void
blend_samples_any (const BlendRows *b, const int *centre, const guint8 *in, guint8 *out, int ch,
                   int depth)
{
  if (depth == 8)
    blend_samples_any_body (b, centre, in, out, 2, 8);
  else if (ch == 2)
    blend_samples_any_body (b, centre, in, out, 2, 16);
  else if (ch == 3)
    blend_samples_any_body (b, centre, in, out, 3, 16);
  else
    blend_samples_any_body (b, centre, in, out, 4, 16);
}

/* Pass 2: channel c of eight pixels as int32 lanes, not yet clamped. */
__attribute__ ((target ("avx2"))) static inline __m256i
blend_channel_avx2 (__m256i packed, int c, __m256i centre, __m256 ratio)
{
  const __m256i e = _mm256_and_si256 (_mm256_srli_epi32 (packed, 8 * c), _mm256_set1_epi32 (0xff));
  const __m256 diff = _mm256_cvtepi32_ps (_mm256_sub_epi32 (e, centre));

  return _mm256_add_epi32 (centre, _mm256_cvttps_epi32 (_mm256_mul_ps (diff, ratio)));
}

__attribute__ ((target ("avx2"))) static void
blend_samples_avx2 (const BlendRows *b, const int *centre, const guint8 *in, guint8 *out, int ch)
{
  const int n = b->n, nc = lb_xv_colour_channels (ch);
  const __m256i c0 = _mm256_set1_epi32 (centre[0]), c1 = _mm256_set1_epi32 (centre[1]);
  const __m256i c2 = _mm256_set1_epi32 (centre[2]);
  /* Per 128-bit lane after the packs: R0..R3 G0..G3 B0..B3 (B0..B3). */
  const __m256i rgb = _mm256_setr_epi8 (0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, -1, -1, -1, -1,
                                        0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, -1, -1, -1, -1);
  const __m256i rgbx = _mm256_setr_epi8 (0, 4, 8, -1, 1, 5, 9, -1, 2, 6, 10, -1, 3, 7, 11, -1,
                                         0, 4, 8, -1, 1, 5, 9, -1, 2, 6, 10, -1, 3, 7, 11, -1);
  const __m256i pack24 = _mm256_setr_epi32 (0, 1, 2, 4, 5, 6, 3, 7);
  const __m256i pack8 = _mm256_setr_epi32 (0, 4, 1, 5, 2, 6, 3, 7);
  const __m256i alpha = _mm256_set1_epi32 ((int) 0xff000000u);

  blend_lookup (b->px, b->table, b->idx, n);
  if (b->depth == 16)
    {
      /* 16-bit gray: the table holds the samples themselves */
      guint16 *o16 = (guint16 *) (void *) out;

      if (n < 8)
        {
          for (int j = 0; j < n; j++)
            o16[j] = (guint16) blend_sample_f (b->px[j], 0, centre[0], b->ratio[j], 16);
          return;
        }
      for (int j = 0;; j += 8)
        {
          __m256i e, v, w;

          if (j > n - 8)
            j = n - 8;
          e = _mm256_loadu_si256 ((const __m256i *) (const void *) (b->px + j));
          v = _mm256_add_epi32 (c0, _mm256_cvttps_epi32 (_mm256_mul_ps (_mm256_cvtepi32_ps (_mm256_sub_epi32 (e, c0)),
                                                                        _mm256_loadu_ps (b->ratio + j))));
          /* saturated to [0, 65535]: per 128-bit lane the four samples twice; qwords 0 and 2 */
          w = _mm256_permute4x64_epi64 (_mm256_packus_epi32 (v, v), 0x08);
          _mm_storeu_si128 ((__m128i *) (void *) (o16 + j), _mm256_castsi256_si128 (w));
          if (j == n - 8)
            break;
        }
      return;
    }
  if (n < 8)
    {
      for (int j = 0; j < n; j++)
        {
          for (int c = 0; c < nc; c++)
            out[(gsize) j * ch + c] = (guint8) blend_sample_f (b->px[j], c,
                                                               centre[c], b->ratio[j], 8);
          if (ch == 4)
            out[(gsize) j * 4 + 3] = in[(gsize) j * 4 + 3];
        }
      return;
    }
  for (int j = 0;; j += 8)
    {
      __m256i p;
      __m256 ratio;

      if (j > n - 8)
        j = n - 8;
      p = _mm256_loadu_si256 ((const __m256i *) (const void *) (b->px + j));
      ratio = _mm256_loadu_ps (b->ratio + j);
      if (nc == 1)
        {
          const __m256i v = blend_channel_avx2 (p, 0, c0, ratio);
          const __m256i w = _mm256_packus_epi16 (_mm256_packus_epi32 (v, v), _mm256_setzero_si256 ());

          /* Per lane the 4 bytes in dword 0: lanes' dwords 0 and 4 to the bottom. */
          _mm_storel_epi64 ((__m128i *) (void *) (out + j),
                            _mm256_castsi256_si128 (_mm256_permutevar8x32_epi32 (w, pack8)));
        }
      else
        {
          const __m256i v0 = blend_channel_avx2 (p, 0, c0, ratio);
          const __m256i v1 = blend_channel_avx2 (p, 1, c1, ratio);
          const __m256i v2 = blend_channel_avx2 (p, 2, c2, ratio);
          const __m256i w = _mm256_packus_epi16 (_mm256_packus_epi32 (v0, v1),
                                                 _mm256_packus_epi32 (v2, v2));

          if (ch == 3)
            {
              const __m256i t = _mm256_permutevar8x32_epi32 (_mm256_shuffle_epi8 (w, rgb), pack24);
              guint8 *o = out + (gsize) j * 3;

              _mm_storeu_si128 ((__m128i *) (void *) o, _mm256_castsi256_si128 (t));
              _mm_storel_epi64 ((__m128i *) (void *) (o + 16), _mm256_extracti128_si256 (t, 1));
            }
          else
            {
              /* RGBA: alpha rewritten from the source (the destination's equals it, but a
               * host may leave the destination undefined, LB_FILTER_FLAG_OVERWRITES). */
              __m256i *o = (__m256i *) (void *) (out + (gsize) j * 4);
              const __m256i a = _mm256_and_si256 (_mm256_loadu_si256 ((const __m256i *) (const void *) (in + (gsize) j * 4)), alpha);

              _mm256_storeu_si256 (o, _mm256_or_si256 (a, _mm256_shuffle_epi8 (w, rgbx)));
            }
        }
      if (j == n - 8)
        break;
    }
}

static void
blend_avx2_rows (const LbXvBlend *self, const LbKernelBuf *src, LbKernelBuf *dst, int ya, int yb)
{
  const LbXvRegion *R = &self->region;
  const int ch = src->channels;
  BlendRows b;

  const int pb = ch * (src->depth / 8);

  blend_rows_init (&b, self, src);
  for (int y = MAX (ya, R->y0 + 1); y < MIN (yb, R->y1 - 1); y++)
    {
      blend_points_avx2 (&b, y - b.cy);
      if (blend_avx2_samples_fit (src->depth, ch))
        blend_samples_avx2 (&b, self->centre, lb_xv_row (src, y) + (gsize) (b.sx + 1) * pb,
                            lb_xv_row_mut (dst, y) + (gsize) (b.sx + 1) * pb, ch);
      else
        blend_samples_any (&b, self->centre, lb_xv_row (src, y) + (gsize) (b.sx + 1) * pb,
                           lb_xv_row_mut (dst, y) + (gsize) (b.sx + 1) * pb, ch, src->depth);
    }
  blend_rows_clear (&b);
}

#endif /* LB_XV_HAVE_AVX2_PATH */

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
#if LB_XV_HAVE_AVX2_PATH
  if (!self->no_simd && blend_avx2_fits (self)
      && lb_kernel_have_avx2 ())
    {
      blend_avx2_rows (self, src, dst, y0, y1);
      return;
    }
#endif
  if (src->depth == 8)
    blend_fast_rows (self, src, dst, y0, y1, 8);
  else
    blend_fast_rows (self, src, dst, y0, y1, 16);
}

gboolean
_lb_xv_blend_row_points (const LbXvBlend *self,
                         int              y,
                         gboolean         simd,
                         int             *ex,
                         int             *ey,
                         double          *ratio)
{
  const LbXvRegion *R = &self->region;
  const int sx = R->x0, sy = R->y0, sw = R->x1 - R->x0, sh = R->y1 - R->y0;
  const int cx = sx + sw / 2, cy = sy + sh / 2, n = sw - 2;

  g_return_val_if_fail (self->active && y > sy && y < sy + sh - 1, FALSE);

#if LB_XV_HAVE_AVX2_PATH
  {
    /* Pass 1 reads only the geometry (not the border table). */
    if (simd && blend_avx2_fits (self) && lb_kernel_have_avx2 ())
      {
        BlendRows b = { sx, sy, sw, sh, cx, cy, n, 8, NULL, NULL, NULL, NULL, NULL, NULL };

        b.rcp = g_new (float, (gsize) n + 8);
        b.idx = g_new (gint32, (gsize) n + 8);
        b.ratio = g_new (float, (gsize) n + 8);
        for (int j = 0; j < n + 8; j++)
          b.rcp[j] = (1.0f / (float) ABS (sx + 1 + j - cx)) * BLEND_RCP_LOW;
        blend_points_avx2 (&b, y - cy);
        for (int j = 0; j < n; j++)
          {
            blend_index_point (&b, b.idx[j], &ex[j], &ey[j]);
            ratio[j] = b.ratio[j];
          }
        blend_rows_clear (&b);
        return TRUE;
      }
  }
#endif
  (void) simd;
  blend_points (sx, sy, sw, sh, cx, cy, y - cy, n, ex, ey, ratio);
  return FALSE;
}
