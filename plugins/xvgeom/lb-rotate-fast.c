/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-rotate"

/* Rotate's fast path: an affine map per destination row in tiles, xv's polar maths only
 * near floor() steps (see RowLine in lb-rotate-private.h). */

#include "lb-rotate-private.h"

#ifndef TILE_H
#define TILE_H 16
#endif
#ifndef TILE_W
#define TILE_W 64
#endif

static inline gboolean
in_box (const RowLine *l,
        int            x,
        double         xlo,
        double         xhi,
        double         ylo,
        double         yhi)
{
  double xf = l->ax0 + x * l->ca;
  double yf = l->ay0 - x * l->sa;

  return xf >= xlo && xf < xhi && yf >= ylo && yf < yhi;
}

/* The interval [*xs, *xe) of x in [x0, x1) where in_box() holds (empty: *xs = *xe). */
static void
row_interval (const RowLine *l,
              int            x0,
              int            x1,
              double         xlo,
              double         xhi,
              double         ylo,
              double         yhi,
              int           *xs,
              int           *xe)
{
  /* analytic interval of the real x, intersected; its middle lies inside the integer interval
   * whenever that holds more than a couple of pixels */
  double lo = x0, hi = x1 - 1;
  int mid, a, b;

  *xs = *xe = x0;
  if (x0 >= x1 || xlo >= xhi || ylo >= yhi)
    return;
  if (l->ca != 0.0)
    {
      double t0 = (xlo - l->ax0) / l->ca, t1 = (xhi - l->ax0) / l->ca;

      lo = MAX (lo, MIN (t0, t1));
      hi = MIN (hi, MAX (t0, t1));
    }
  if (l->sa != 0.0)
    {
      double t0 = (l->ay0 - ylo) / l->sa, t1 = (l->ay0 - yhi) / l->sa;

      lo = MAX (lo, MIN (t0, t1));
      hi = MIN (hi, MAX (t0, t1));
    }
  mid = -1;
  if (lo <= hi + 2.0)
    {
      double m = floor ((lo + hi) / 2.0);

      m = CLAMP (m, x0, x1 - 1);
      mid = (int) m;
      if (!in_box (l, mid, xlo, xhi, ylo, yhi))
        mid = -1;
    }
  if (mid < 0)
    {
      /* a sliver (a corner of the region): scan the estimate's neighbourhood */
      int s0 = (int) CLAMP (floor (lo) - 2, x0, x1 - 1), s1 = (int) CLAMP (ceil (hi) + 2, x0, x1 - 1);

      for (int x = s0; x <= s1; x++)
        if (in_box (l, x, xlo, xhi, ylo, yhi))
          {
            mid = x;
            break;
          }
      if (mid < 0)
        return;
    }
  /* first x ≥ x0 in the interval: in_box is false…false, true…true on [x0, mid] */
  a = x0;
  b = mid;
  while (a < b)
    {
      int m = a + (b - a) / 2;

      if (in_box (l, m, xlo, xhi, ylo, yhi))
        b = m;
      else
        a = m + 1;
    }
  *xs = a;
  /* last: true…true, false…false on [mid, x1 − 1] */
  a = mid;
  b = x1 - 1;
  while (a < b)
    {
      int m = a + (b - a + 1) / 2;

      if (in_box (l, m, xlo, xhi, ylo, yhi))
        a = m;
      else
        b = m - 1;
    }
  *xe = a + 1;
}

/* One pixel in the border zone: region checks, the cheat, the epsilon. */
static G_ALWAYS_INLINE inline void
pixel_general (const LbRotate    *st,
               const LbKernelBuf *src,
               guint8            *drow,
               int                x,
               int                y,
               double             xf,
               double             yf,
               int                nc,
               int                depth)
{
  double fx, fy;

  if (xf < 0.0 || yf < 0.0)
    {
      /* xv's −0.5 cheat: do it xv's way */
      rot_xv (st, x, y, -st->rad, &xf, &yf);
      sample_xv (st, src, drow, x, xf, yf, nc, depth);
      return;
    }
  fx = xf - floor (xf);
  fy = yf - floor (yf);
  if (G_UNLIKELY (fx < BOUNDARY_EPS || fx > 1.0 - BOUNDARY_EPS
                  || fy < BOUNDARY_EPS || fy > 1.0 - BOUNDARY_EPS))
    rot_xv (st, x, y, -st->rad, &xf, &yf);
  sample_xv (st, src, drow, x, xf, yf, nc, depth);
}

static G_ALWAYS_INLINE inline void
process_fast (const LbRotate    *st,
              const LbKernelBuf *src,
              LbKernelBuf       *dst,
              int                y0,
              int                y1,
              int                NC,
              int                CH,
              int                DEPTH)
{
  const LbKernelRect *r = &st->r;
  /* region bounds widened by the −0.5 cheat and the epsilon: anything outside cannot land in
   * the region */
  double lox = r->x - 0.5 - 2 * BOUNDARY_EPS, hix = r->x + r->width + 2 * BOUNDARY_EPS;
  double loy = r->y - 0.5 - 2 * BOUNDARY_EPS, hiy = r->y + r->height + 2 * BOUNDARY_EPS;
  /* inner: floor(xf) in [r.x + 1, r.x + width − 2], likewise y (≥ 1 also rules out the cheat) */
  double ilx = r->x + 1, ihx = r->x + r->width - 1, ily = r->y + 1, ihy = r->y + r->height - 1;
#ifdef HAVE_AVX2_PATH
  /* 8-bit RGB/RGBA and gray in AVX2 when byte offsets fit its 32-bit lanes */
  gboolean use_avx2 = ((DEPTH == 8 && NC == 3) || CH == 1) && !st->no_simd
                      && lb_kernel_have_avx2 () && src->stride * (gsize) src->height < G_MAXINT32 / 2;
#endif

  y0 = MAX (y0, 0);
  y1 = MIN (y1, dst->height);
  for (int ty = y0; ty < y1; ty += TILE_H)
    {
      int tye = MIN (ty + TILE_H, y1);
      RowLine l[TILE_H];
      int os[TILE_H], oe[TILE_H], is[TILE_H], ie[TILE_H];
      int xmin = G_MAXINT, xmax = G_MININT;

      for (int y = ty; y < tye; y++)
        {
          int k = y - ty;
          double dyu = st->cfy - y;

          /* xf = cfx + dx·cos − dyu·sin ; yf = cfy − (dx·sin + dyu·cos), dx = x − cfx */
          l[k] = (RowLine) { st->cfx - st->cfx * st->ca - dyu * st->sa,
                             st->cfy - dyu * st->ca + st->cfx * st->sa, st->ca, st->sa };
          os[k] = oe[k] = is[k] = ie[k] = 0;
          /* Clear Rotate: the region row is cleared before any rotated pixel lands on it */
          if (!_lb_rotate_band_setup (st, src, dst, y))
            continue;
          row_interval (&l[k], st->bx0, st->bx1, lox, hix, loy, hiy, &os[k], &oe[k]);
          if (os[k] >= oe[k])
            continue;
          row_interval (&l[k], os[k], oe[k], ilx, ihx, ily, ihy, &is[k], &ie[k]);
          if (is[k] >= ie[k])
            is[k] = ie[k] = oe[k];
          xmin = MIN (xmin, os[k]);
          xmax = MAX (xmax, oe[k]);
        }
      /* tiles of TILE_H × TILE_W destination pixels: the source pixels one tile reads (a
       * rotated patch) stay in the L1 cache and its pages in the first-level TLB (source
       * rows are typically a page each) */
      for (int tx = xmin; tx < xmax; tx += TILE_W)
        {
          int txe = MIN (tx + TILE_W, xmax);

          for (int y = ty; y < tye; y++)
            {
              int k = y - ty;
              guint8 *drow = lb_kbuf_row (dst, y);
              int a = MAX (tx, os[k]), b = MIN (txe, oe[k]);
              int ia = CLAMP (is[k], a, b), ib = CLAMP (ie[k], ia, b);

              for (int x = a; x < ia; x++)
                pixel_general (st, src, drow, x, y, l[k].ax0 + x * l[k].ca, l[k].ay0 - x * l[k].sa, NC, DEPTH);
#ifdef HAVE_AVX2_PATH
              if (use_avx2 && DEPTH == 16)
                _lb_rotate_row_avx2_16 (st, src, drow, y, &l[k], ia, ib);
              else if (use_avx2 && CH == 1)
                _lb_rotate_row_avx2_g8 (st, src, drow, y, &l[k], ia, ib);
              else if (use_avx2 && CH == 3)
                _lb_rotate_row_avx2_rgb8 (st, src, drow, y, &l[k], ia, ib);
              else if (use_avx2)
                _lb_rotate_row_avx2_rgba8 (st, src, drow, y, &l[k], ia, ib);
              else
#endif
                row_inner (st, src, drow, y, &l[k], ia, ib, NC, CH, DEPTH);
              for (int x = ib; x < b; x++)
                pixel_general (st, src, drow, x, y, l[k].ax0 + x * l[k].ca, l[k].ay0 - x * l[k].sa, NC, DEPTH);
            }
        }
    }
}

/* one instance per pixel layout, so the channel loops unroll */
LB_KERNEL_PER_LAYOUT (process_fast, LbRotate, , process_fast)

/* The fast path on destination rows [@y0, @y1). */
void
_lb_rotate_process_fast (const LbRotate    *st,
                         const LbKernelBuf *src,
                         LbKernelBuf       *dst,
                         int                y0,
                         int                y1)
{
  LB_KERNEL_LAYOUT_CALL (process_fast, LbRotate, st, src, dst, y0, y1);
}
