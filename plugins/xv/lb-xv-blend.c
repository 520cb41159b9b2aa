/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-blend"

#include "lb-xv-blend.h"

#include <math.h>
#include <string.h>

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

/* One interior pixel (x, y) exactly as xv computes it. */
LB_XV_INLINE void
blend_ref_pixel (const LbXvBlend *self, const LbKernelBuf *src, guint8 *out, int x, int y,
                 const int depth)
{
  const LbXvRegion *R = &self->region;
  const int ch = src->channels;
  const int nc = lb_xv_colour_channels (ch);
  const int sx = R->x0, sy = R->y0, sw = R->x1 - R->x0, sh = R->y1 - R->y0;
  const int cx = sx + sw / 2, cy = sy + sh / 2;
  const double dslope = (double) sh / (double) sw;
  const int top = (int) lb_xv_max_value (depth);
  const int dx = x - cx, dy = y - cy;
  int ex, ey;
  double d, d1, ratio;

  if (dx == 0 && dy == 0)
    {
      for (int c = 0; c < nc; c++)
        lb_xv_put (out, (gsize) x * ch + c, (guint) self->centre[c], depth);
      return;
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

LB_XV_INLINE void
blend_ref_rows (const LbXvBlend   *self,
                const LbKernelBuf *src,
                LbKernelBuf       *dst,
                int                ya,
                int                yb,
                const int          depth)
{
  const LbXvRegion *R = &self->region;
  const int sx = R->x0, sy = R->y0, sw = R->x1 - R->x0, sh = R->y1 - R->y0;

  for (int y = MAX (ya, sy + 1); y < MIN (yb, sy + sh - 1); y++)
    {
      guint8 *out = lb_xv_row_mut (dst, y);

      for (int x = sx + 1; x < sx + sw - 1; x++)
        blend_ref_pixel (self, src, out, x, y, depth);
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

/* ---- the optimised path ----------------------------------------------------------------
 *
 * For an interior pixel at (dx, dy) from the centre with border point E, xv computes
 * out = C + (int) ((S(E) − C) · ratio), ratio = (√a / √b)² with the integers
 * a = dx² + dy² and b = |E − centre|². So (S(E) − C) · ratio approximates x = k · a / b
 * (k = S(E) − C, an integer) within a few ulps, i.e. within 4e-10 even at 16 bits, and so
 * does our k · (a · (1 / b)). When x is not an integer it lies at least 1/b from one, so both
 * truncate to the same value as long as ours is not within 1e-9 of an integer; the pixels
 * where it is (x an exact integer, k ≠ 0: a few per thousand) are recomputed exactly as xv
 * does. The result is identical to the reference.
 *
 * A row is cut into at most three runs with one kind of border point each: the middle run,
 * |dx| ≤ m, meets the top or bottom row (xv's |dy/dx| > sh/sw, decided exactly in integers:
 * two equal quotients round to the same double), the runs left and right of it meet the left
 * or right column. Per run the loops are branch-free and vectorise; the border samples (minus
 * C) and 1/b of each border point are tables made once per band. */

#define BLEND_NEAR 1e-9

typedef struct {
  int n;          /* entries: sw for the top and bottom rows, sh for the columns */
  int *k;         /* k[c · n + i]: S_c(E) − C_c of border point i */
  double *invb;   /* 1 / b of border point i */
} BlendSide;

/* One run of a row: columns j0 .. j1−1 of the interior (x = sx + 1 + j), all meeting @side.
 * steep: E = (cx + ⌊num·dx / dy⌋, fixed row); else E = (fixed column, cy + ⌊num·dy / dx⌋),
 * ⌊⌋ truncating, num = the fixed coordinate minus the centre's; the varying coordinate of E,
 * relative to the centre's, is clamped to [lo, hi] (the region) and lo is the side's entry 0.
 * Writes o[c · n + j] (the clamped samples) and bad[j]. */
typedef double LbBlendV4d __attribute__ ((vector_size (32)));
typedef gint64 LbBlendV4l __attribute__ ((vector_size (32)));
typedef gint32 LbBlendV4i __attribute__ ((vector_size (16)));

/* Lane-wise m ? a : b for 32-bit integer lanes (m all ones or all zeros per lane). */
#define BLEND_SELI(m, a, b) (((m) & (a)) | (~(m) & (b)))

/* Pixel j of a run (the scalar form, also the tail of the vector loop). */
LB_XV_INLINE void
blend_run_pixel (const int *restrict kt, const double *restrict invb, int sn,
                 const int *centre, const int steep, int num, int dx0, int dy, int lo, int hi,
                 int j, int n, int top, int *restrict o, guint8 *restrict bad, const int nc)
{
  const int dx = dx0 + j;
  /* A truncated quotient of integers below 2^53 from a correctly rounded double one is
   * exact. */
  const double qn = steep ? (double) num * dx : (double) num * dy;
  const double qd = steep ? (double) dy : (double) dx;
  int e = (int) (qn / qd);
  int i, flag = 0;
  double rho;

  e = e < lo ? lo : (e > hi ? hi : e);
  i = e - lo;
  rho = ((double) dx * dx + (double) dy * dy) * invb[i];
  for (int c = 0; c < nc; c++)
    {
      const int k = kt[c * sn + i];
      const double t = k * rho;
      const int q = (int) t;
      const double fr = t - q;
      int v = centre[c] + q;

      flag |= (k != 0) & (((fr < BLEND_NEAR) & (fr > -BLEND_NEAR))
                          | (fr > 1.0 - BLEND_NEAR) | (fr < BLEND_NEAR - 1.0));
      v = v < 0 ? 0 : (v > top ? top : v);
      o[c * n + j] = v;
    }
  bad[j] = (guint8) flag;
}

/* The run, four pixels at a time in GCC vector extensions: each lane does the IEEE operations
 * of blend_run_pixel() (no contraction), the table lookups are plain loads. */
LB_XV_INLINE void
blend_run (const BlendSide *side, const int *centre, const int steep, int num, int dx0, int dy,
           int lo, int hi, int j0, int j1, int n, int top, int *restrict o,
           guint8 *restrict bad, const int nc)
{
  const int *restrict kt = side->k;
  const double *restrict invb = side->invb;
  const int sn = side->n;
  const LbBlendV4d vnum = { num, num, num, num }, vdy = { dy, dy, dy, dy };
  const LbBlendV4d near = { BLEND_NEAR, BLEND_NEAR, BLEND_NEAR, BLEND_NEAR };
  const LbBlendV4d one = { 1.0, 1.0, 1.0, 1.0 };
  const LbBlendV4i vlo = { lo, lo, lo, lo }, vhi = { hi, hi, hi, hi };
  int j = j0;

  for (; j + 4 <= j1; j += 4)
    {
      const LbBlendV4i dxi = { dx0 + j, dx0 + j + 1, dx0 + j + 2, dx0 + j + 3 };
      const LbBlendV4d dx = __builtin_convertvector (dxi, LbBlendV4d);
      const LbBlendV4d qn = steep ? vnum * dx : vnum * vdy;
      const LbBlendV4d qd = steep ? vdy : dx;
      LbBlendV4i e = __builtin_convertvector (qn / qd, LbBlendV4i);
      LbBlendV4d rho, ib;
      LbBlendV4l flag = { 0, 0, 0, 0 };

      e = BLEND_SELI (e < vlo, vlo, e);
      e = BLEND_SELI (e > vhi, vhi, e);
      e = e - vlo;
      ib = (LbBlendV4d) { invb[e[0]], invb[e[1]], invb[e[2]], invb[e[3]] };
      rho = (dx * dx + vdy * vdy) * ib;
      for (int c = 0; c < nc; c++)
        {
          const int *kc = kt + c * sn;
          const LbBlendV4i ki = { kc[e[0]], kc[e[1]], kc[e[2]], kc[e[3]] };
          const LbBlendV4d t = __builtin_convertvector (ki, LbBlendV4d) * rho;
          const LbBlendV4i q = __builtin_convertvector (t, LbBlendV4i);
          const LbBlendV4d fr = t - __builtin_convertvector (q, LbBlendV4d);
          const LbBlendV4i cc = { centre[c], centre[c], centre[c], centre[c] };
          const LbBlendV4i zero = { 0, 0, 0, 0 }, vtop = { top, top, top, top };
          LbBlendV4i v = cc + q;
          const LbBlendV4l nz = __builtin_convertvector (ki != zero, LbBlendV4l);

          flag |= nz & (((fr < near) & (fr > -near)) | (fr > one - near) | (fr < near - one));
          v = BLEND_SELI (v < zero, zero, v);
          v = BLEND_SELI (v > vtop, vtop, v);
          memcpy (o + c * n + j, &v, sizeof v);
        }
      for (int l = 0; l < 4; l++)
        bad[j + l] = flag[l] != 0;
    }
  for (; j < j1; j++)
    blend_run_pixel (kt, invb, sn, centre, steep, num, dx0, dy, lo, hi, j, n, top, o, bad, nc);
}

#define BLEND_RUN_VARIANT(nc_, steep_, name_)                                                 \
  LB_XV_CLONES __attribute__ ((optimize ("no-trapping-math"))) static void                   \
  name_ (const BlendSide *side, const int *centre, int num, int dx0, int dy, int lo, int hi,  \
         int j0, int j1, int n, int top, int *o, guint8 *bad)                                 \
  {                                                                                           \
    blend_run (side, centre, steep_, num, dx0, dy, lo, hi, j0, j1, n, top, o, bad, nc_);     \
  }

BLEND_RUN_VARIANT (1, FALSE, blend_run_1_flat)
BLEND_RUN_VARIANT (1, TRUE, blend_run_1_steep)
BLEND_RUN_VARIANT (3, FALSE, blend_run_3_flat)
BLEND_RUN_VARIANT (3, TRUE, blend_run_3_steep)

/* The planar samples o of interior columns 0 .. n−1 into the row @out (the centre row's
 * centre pixel, in no run, gets a stale value here and its own right after). */
LB_XV_INLINE void
blend_store (guint8 *restrict out, const int *restrict o, int sx, int n, const int ch,
             const int nc, const int depth)
{
  for (int j = 0; j < n; j++)
    for (int c = 0; c < nc; c++)
      lb_xv_put (out, (gsize) (sx + 1 + j) * ch + c, (guint) o[c * n + j], depth);
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
  const int y_first = MAX (ya, sy + 1), y_end = MIN (yb, sy + sh - 1);
  void (*flat) (const BlendSide *, const int *, int, int, int, int, int, int, int, int, int,
                int *, guint8 *) = nc == 3 ? blend_run_3_flat : blend_run_1_flat;
  void (*steep) (const BlendSide *, const int *, int, int, int, int, int, int, int, int, int,
                 int *, guint8 *) = nc == 3 ? blend_run_3_steep : blend_run_1_steep;
  BlendSide sides[4]; /* top, bottom, left, right */
  g_autofree int *kmem = NULL;
  g_autofree double *bmem = NULL;
  g_autofree int *o = NULL;
  g_autofree guint8 *bad = NULL;

  if (y_first >= y_end)
    return;

  /* The border tables. */
  kmem = g_new (int, (gsize) nc * (2 * (gsize) sw + 2 * (gsize) sh));
  bmem = g_new (double, 2 * (gsize) sw + 2 * (gsize) sh);
  {
    int *kp = kmem;
    double *bp = bmem;

    for (int s = 0; s < 4; s++)
      {
        BlendSide *side = &sides[s];

        side->n = s < 2 ? sw : sh;
        side->k = kp;
        side->invb = bp;
        for (int i = 0; i < side->n; i++)
          {
            const int ex = s < 2 ? sx + i : (s == 2 ? sx : sx + sw - 1);
            const int ey = s < 2 ? (s == 0 ? sy : sy + sh - 1) : sy + i;
            const gint64 bx = ex - cx, by = ey - cy;

            for (int c = 0; c < nc; c++)
              side->k[c * side->n + i] = (int) lb_xv_get (lb_xv_row (src, ey),
                                                          (gsize) ex * ch + c, depth)
                                         - self->centre[c];
            side->invb[i] = 1.0 / (double) (bx * bx + by * by);
          }
        kp += (gsize) nc * side->n;
        bp += side->n;
      }
  }
  o = g_new0 (int, (gsize) nc * n);
  bad = g_new (guint8, n);

  for (int y = y_first; y < y_end; y++)
    {
      const int dy = y - cy;
      const int ady = ABS (dy);
      const int dx0 = sx + 1 - cx; /* dx of interior column j = 0 */
      guint8 *out = lb_xv_row_mut (dst, y);
      /* Steep run: |dx| ≤ m, i.e. |dx|·sh < |dy|·sw; none on the centre row. */
      const gint64 m = dy != 0 ? ((gint64) ady * sw - 1) / sh : -1;
      const int js0 = (int) CLAMP (-m - dx0, 0, n), js1 = (int) CLAMP (m + 1 - dx0, 0, n);
      const int jl1 = MIN (js0, CLAMP (-dx0, 0, n));          /* flat left: dx < 0 */
      const int jr0 = MAX (js1, (int) CLAMP (1 - dx0, 0, n)); /* flat right: dx > 0 */

      if (jl1 > 0)
        flat (&sides[2], self->centre, sx - cx, dx0, dy, sy - cy, sy + sh - 1 - cy, 0, jl1,
             n, top, o, bad);
      if (js1 > js0)
        steep (&sides[dy < 0 ? 0 : 1], self->centre, (dy < 0 ? sy : sy + sh - 1) - cy, dx0,
             dy, sx - cx, sx + sw - 1 - cx, js0, js1, n, top, o, bad);
      if (jr0 < n)
        flat (&sides[3], self->centre, sx + sw - 1 - cx, dx0, dy, sy - cy, sy + sh - 1 - cy,
             jr0, n, n, top, o, bad);

      /* Interleave (the centre pixel of the centre row is in no run: written below), then
       * the ties. */
      switch (ch)
        {
        case 1: blend_store (out, o, sx, n, 1, 1, depth); break;
        case 2: blend_store (out, o, sx, n, 2, 1, depth); break;
        case 3: blend_store (out, o, sx, n, 3, 3, depth); break;
        default: blend_store (out, o, sx, n, 4, 3, depth); break;
        }
      for (int j = 0; j < n;)
        {
          guint64 word = 0;

          if (j + 8 <= n)
            memcpy (&word, bad + j, 8);
          if (j + 8 <= n && word == 0)
            {
              j += 8;
              continue;
            }
          if (bad[j] && !(dy == 0 && j >= jl1 && j < jr0))
            blend_ref_pixel (self, src, out, sx + 1 + j, y, depth);
          j++;
        }
      if (dy == 0)
        for (int j = jl1; j < jr0; j++)
          blend_ref_pixel (self, src, out, sx + 1 + j, y, depth);
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
