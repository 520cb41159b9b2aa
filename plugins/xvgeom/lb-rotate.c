/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-rotate"

#include "lb-xvgeom.h"

#include <math.h>

#include "lb-error.h"
#include "lb-xvgeom-private.h"

/* Coordinates closer than this (pixels) to a place where xv's floor()/"−0.5 cheat" changes
 * its choice of source pixel are recomputed with xv's exact polar maths in the fast path.
 * The affine and polar forms agree to ~1e-12 px for any image a 32-bit int can index. */
#define BOUNDARY_EPS 1e-6

struct _LbRotate {
  LbKernelRect r;          /* region, clipped */
  int bx0, by0, bx1, by1;  /* destination box, clipped, half-open */
  gboolean active;         /* angle ≠ 0 and the region is not empty */
  double rad;              /* radians, counter-clockwise */
  double cfx, cfy;         /* centre of the region */
  double ca, sa;           /* cos, sin of −rad (destination → source) */
  gboolean clear;
  guint16 clear_color[3];
  gboolean exact;
};

/* xv's point rotation in polar form, y axis flipped; same libm calls, same order. */
static void
rot_xv (const LbRotate *st,
        double          x,
        double          y,
        double          a,
        double         *out_x,
        double         *out_y)
{
  double dist = sqrt ((x - st->cfx) * (x - st->cfx) + (y - st->cfy) * (y - st->cfy));
  double ang;

  if (x != st->cfx)
    {
      ang = atan ((st->cfy - y) / (x - st->cfx));
      if (x < st->cfx)
        ang += G_PI;
    }
  else
    ang = (y > st->cfy) ? G_PI * 1.5 : G_PI / 2.0;
  *out_x = st->cfx + dist * cos (ang + a);
  *out_y = st->cfy - dist * sin (ang + a);
}

LbRotate *
lb_rotate_prepare (const LbKernelBuf    *src,
                   const LbKernelRect   *region,
                   const LbRotateParams *params,
                   GError              **error)
{
  g_autofree LbRotate *st = g_new0 (LbRotate, 1);
  int maxv;

  if (!lb_xvgeom_check_and_clip (src, region, &st->r, error))
    return NULL;
  if (!isfinite (params->angle) || fabs (params->angle) > 1e6)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "Rotation angle must be a finite number of degrees (got %g)", params->angle);
      return NULL;
    }
  maxv = lb_kbuf_max_value (src);
  for (int c = 0; c < 3; c++)
    if (params->clear && params->clear_color[c] > maxv)
      {
        g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                     "Clear colour channel %d is %u, above %d for %d-bit samples", c,
                     params->clear_color[c], maxv, src->depth);
        return NULL;
      }
  st->clear = params->clear;
  for (int c = 0; c < 3; c++)
    st->clear_color[c] = params->clear_color[c];
  st->exact = params->exact;
  st->active = params->angle != 0.0 && st->r.width > 0 && st->r.height > 0;
  if (!st->active)
    return g_steal_pointer (&st);

  st->rad = params->angle * G_PI / 180.0;
  st->cfx = st->r.x + (st->r.width - 1) / 2.0;
  st->cfy = st->r.y + (st->r.height - 1) / 2.0;
  st->ca = cos (-st->rad);
  st->sa = sin (-st->rad);

  /* Destination box: the corners at +width/+height (not −1), rounded half away from zero,
   * grown by one pixel on the left and top, clipped to the image. */
  {
    const double cx[4] = { st->r.x, st->r.x, st->r.x + st->r.width, st->r.x + st->r.width };
    const double cy[4] = { st->r.y, st->r.y + st->r.height, st->r.y, st->r.y + st->r.height };
    double minx = G_MAXDOUBLE, maxx = -G_MAXDOUBLE, miny = G_MAXDOUBLE, maxy = -G_MAXDOUBLE;

    for (int i = 0; i < 4; i++)
      {
        double rx, ry;

        rot_xv (st, cx[i], cy[i], st->rad, &rx, &ry);
        rx = round (rx);
        ry = round (ry);
        minx = MIN (minx, rx);
        maxx = MAX (maxx, rx);
        miny = MIN (miny, ry);
        maxy = MAX (maxy, ry);
      }
    minx -= 1;
    miny -= 1;
    st->bx0 = (int) CLAMP (minx, 0, src->width);
    st->by0 = (int) CLAMP (miny, 0, src->height);
    st->bx1 = (int) CLAMP (maxx + 1, 0, src->width);
    st->by1 = (int) CLAMP (maxy + 1, 0, src->height);
  }
  return g_steal_pointer (&st);
}

void
lb_rotate_get_dest_rows (const LbRotate *st,
                         int            *y0,
                         int            *y1)
{
  if (!st->active)
    {
      *y0 = *y1 = 0;
      return;
    }
  *y0 = st->clear ? MIN (st->by0, st->r.y) : st->by0;
  *y1 = st->clear ? MAX (st->by1, st->r.y + st->r.height) : st->by1;
}

void
lb_rotate_free (LbRotate *st)
{
  g_free (st);
}

/* Writes destination pixel (x, ·) of @drow from source coordinates (xf, yf), xv's way.
 * Returns without writing when the source pixel lies outside the region. */
static G_ALWAYS_INLINE inline void
sample_xv (const LbRotate    *st,
           const LbKernelBuf *src,
           guint8            *drow,
           int                x,
           double             xf,
           double             yf,
           int                nc,
           int                depth)
{
  const LbKernelRect *r = &st->r;
  double fx, fy, px, py, ax, ay, w0, w1, w2, w3;
  int ox, oy, ox1, oy1, maxv = depth == 16 ? 65535 : 255;
  gboolean ux, uy;
  const guint8 *row0, *row1;
  int ch = src->channels;

  if (xf > -0.5 && xf < 0.0)
    xf = 0.0;
  if (yf > -0.5 && yf < 0.0)
    yf = 0.0;
  fx = floor (xf);
  fy = floor (yf);
  if (!(fx >= r->x && fx < r->x + r->width && fy >= r->y && fy < r->y + r->height))
    return;
  ox = (int) fx;
  oy = (int) fy;
  px = (xf - ox) - 0.5;
  py = (yf - oy) - 0.5;
  ax = fabs (px);
  ay = fabs (py);
  ox1 = px < 0 ? ox - 1 : ox + 1;
  oy1 = py < 0 ? oy - 1 : oy + 1;
  ux = ox1 >= r->x && ox1 < r->x + r->width;
  uy = oy1 >= r->y && oy1 < r->y + r->height;
  w1 = ux ? ax * (1.0 - ay) : 0.0;
  w2 = uy ? ay * (1.0 - ax) : 0.0;
  w3 = (ux && uy) ? ax * ay : 0.0;
  w1 *= 0.7;
  w2 *= 0.7;
  w3 *= 0.7;
  w0 = 1.0 - (w1 + w2 + w3);
  row0 = lb_kbuf_row (src, oy);
  row1 = uy ? lb_kbuf_row (src, oy1) : row0;
  if (!ux)
    ox1 = ox;

  for (int c = 0; c < nc; c++)
    {
      double p0, p1, p2, p3, v;
      int iv;

      if (depth == 16)
        {
          const guint16 *s0 = (const guint16 *) (const void *) row0;
          const guint16 *s1 = (const guint16 *) (const void *) row1;

          p0 = s0[(gsize) ox * ch + c];
          p1 = ux ? s0[(gsize) ox1 * ch + c] : 0.0;
          p2 = uy ? s1[(gsize) ox * ch + c] : 0.0;
          p3 = (ux && uy) ? s1[(gsize) ox1 * ch + c] : 0.0;
        }
      else
        {
          p0 = row0[(gsize) ox * ch + c];
          p1 = ux ? row0[(gsize) ox1 * ch + c] : 0.0;
          p2 = uy ? row1[(gsize) ox * ch + c] : 0.0;
          p3 = (ux && uy) ? row1[(gsize) ox1 * ch + c] : 0.0;
        }
      v = p0 * w0 + p1 * w1 + p2 * w2 + p3 * w3;
      iv = (int) (v + 0.5);
      iv = CLAMP (iv, 0, maxv);
      if (depth == 16)
        ((guint16 *) (void *) drow)[(gsize) x * ch + c] = (guint16) iv;
      else
        drow[(gsize) x * ch + c] = (guint8) iv;
    }
}

static void
fill_clear_row (const LbRotate *st,
                LbKernelBuf    *dst,
                int             y)
{
  guint8 *drow = lb_kbuf_row (dst, y);
  int nc = lb_kbuf_color_channels (dst);

  for (int x = st->r.x; x < st->r.x + st->r.width; x++)
    for (int c = 0; c < nc; c++)
      lb_kbuf_set (dst, drow, (gsize) x * dst->channels + c, st->clear_color[c]);
}

/* Clear Rotate fills the region rows first; returns whether row @y is in the box. */
static gboolean
band_setup (const LbRotate *st,
            LbKernelBuf    *dst,
            int             y)
{
  if (st->clear && y >= st->r.y && y < st->r.y + st->r.height)
    fill_clear_row (st, dst, y);
  return y >= st->by0 && y < st->by1;
}

static G_ALWAYS_INLINE inline void
process_exact (const LbRotate    *st,
               const LbKernelBuf *src,
               LbKernelBuf       *dst,
               int                y0,
               int                y1,
               int                depth)
{
  int nc = lb_kbuf_color_channels (src);

  for (int y = MAX (y0, 0); y < MIN (y1, dst->height); y++)
    {
      guint8 *drow = lb_kbuf_row (dst, y);

      if (!band_setup (st, dst, y))
        continue;
      for (int x = st->bx0; x < st->bx1; x++)
        {
          double xf, yf;

          rot_xv (st, x, y, -st->rad, &xf, &yf);
          sample_xv (st, src, drow, x, xf, yf, nc, depth);
        }
    }
}

void
lb_rotate_process_reference (const LbRotate    *st,
                             const LbKernelBuf *src,
                             LbKernelBuf       *dst,
                             int                y0,
                             int                y1)
{
  if (!st->active)
    return;
  if (src->depth == 16)
    process_exact (st, src, dst, y0, y1, 16);
  else
    process_exact (st, src, dst, y0, y1, 8);
}

/* Fast path, per destination row. xf(x) = ax0 + x·ca and yf(x) = ay0 − x·sa are each
 * monotone in x even after rounding (a product and a sum with a constant round monotonically),
 * so the x for which a condition "lo ≤ xf < hi and lo' ≤ yf < hi'" holds form one interval,
 * found exactly by bisection around the analytic estimate. Two intervals per row:
 *  - the outer one, where the source may lie in the region (widened by the −0.5 cheat and the
 *    epsilon): outside it nothing is written, and nothing is visited;
 *  - the inner one, where 1 ≤ floor(xf) − r.x ≤ width − 2 and the same for y: all four
 *    neighbours lie in the region and no cheat applies, so the loop has no bounds checks.
 * Pixels between the two take the general per-pixel path (sample_xv on the affine
 * coordinates). Everywhere, a coordinate within BOUNDARY_EPS of a floor() step is recomputed
 * with xv's polar maths, so the source pixel and neighbours are xv's. Weights and the blend
 * are xv's double expressions in xv's order; only the coordinates differ from xv's, by
 * ~1e-12 px, so a sample can differ (by 1) only where xv's blended value lies within ~1e-9
 * of a rounding step (x.5): none in the golden files or the tests' angles. */

typedef struct {
  double ax0, ay0, ca, sa;
} RowLine;

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

/* The inner interval of one row: every neighbour exists, no cheat. NC, CH, DEPTH are
 * constants in each instance. */
static G_ALWAYS_INLINE inline void
row_inner (const LbRotate    *st,
           const LbKernelBuf *src,
           guint8            *drow,
           int                y,
           const RowLine     *l,
           int                xs,
           int                xe,
           int                NC,
           int                CH,
           int                DEPTH)
{
  const guint8 *sbase = src->data;
  gsize stride = src->stride;
  const int maxv = DEPTH == 16 ? 65535 : 255;

  for (int x = xs; x < xe; x++)
    {
      double xf = l->ax0 + x * l->ca;
      double yf = l->ay0 - x * l->sa;
      int ox = (int) xf, oy = (int) yf;   /* xf, yf ≥ 1: truncation is floor */
      double fx = xf - ox, fy = yf - oy;
      double px, py, ax, ay, w0, w1, w2, w3;
      const guint8 *row0, *row1;
      gssize dx;

      if (G_UNLIKELY (fx < BOUNDARY_EPS || fx > 1.0 - BOUNDARY_EPS
                      || fy < BOUNDARY_EPS || fy > 1.0 - BOUNDARY_EPS))
        {
          /* floor() could differ from xv's: take xv's coordinates */
          rot_xv (st, x, y, -st->rad, &xf, &yf);
          sample_xv (st, src, drow, x, xf, yf, NC, DEPTH);
          continue;
        }
      /* xv's weights and blend, the same double operations in the same order */
      px = fx - 0.5;
      py = fy - 0.5;
      ax = fabs (px);
      ay = fabs (py);
      w1 = ax * (1.0 - ay);
      w2 = ay * (1.0 - ax);
      w3 = ax * ay;
      w1 *= 0.7;
      w2 *= 0.7;
      w3 *= 0.7;
      w0 = 1.0 - (w1 + w2 + w3);
      row0 = sbase + (gsize) oy * stride + (gsize) ox * CH * (DEPTH / 8);
      row1 = py < 0 ? row0 - stride : row0 + stride;
      dx = px < 0 ? -(gssize) CH : (gssize) CH;
      for (int c = 0; c < NC; c++)
        {
          double p0, p1, p2, p3, v;
          int iv;

          if (DEPTH == 16)
            {
              const guint16 *s0 = (const guint16 *) (const void *) row0;
              const guint16 *s1 = (const guint16 *) (const void *) row1;

              p0 = s0[c];
              p1 = s0[dx + c];
              p2 = s1[c];
              p3 = s1[dx + c];
            }
          else
            {
              p0 = row0[c];
              p1 = row0[dx + c];
              p2 = row1[c];
              p3 = row1[dx + c];
            }
          v = p0 * w0 + p1 * w1 + p2 * w2 + p3 * w3;
          iv = (int) (v + 0.5);
          iv = MIN (iv, maxv);   /* the weights are ≥ 0: v ≥ 0 */
          if (DEPTH == 16)
            ((guint16 *) (void *) drow)[(gsize) x * CH + c] = (guint16) iv;
          else
            drow[(gsize) x * CH + c] = (guint8) iv;
        }
    }
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
          if (!band_setup (st, dst, y))
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
              row_inner (st, src, drow, y, &l[k], ia, ib, NC, CH, DEPTH);
              for (int x = ib; x < b; x++)
                pixel_general (st, src, drow, x, y, l[k].ax0 + x * l[k].ca, l[k].ay0 - x * l[k].sa, NC, DEPTH);
            }
        }
    }
}

/* one instance per pixel layout, so the channel loops unroll */
#define FAST(nc, ch, depth)                                                                  \
  static void process_fast_##ch##_##depth (const LbRotate *st, const LbKernelBuf *src,        \
                                            LbKernelBuf *dst, int y0, int y1)                 \
  { process_fast (st, src, dst, y0, y1, nc, ch, depth); }
FAST (1, 1, 8)
FAST (1, 2, 8)
FAST (3, 3, 8)
FAST (3, 4, 8)
FAST (1, 1, 16)
FAST (1, 2, 16)
FAST (3, 3, 16)
FAST (3, 4, 16)
#undef FAST

void
lb_rotate_process (const LbRotate    *st,
                   const LbKernelBuf *src,
                   LbKernelBuf       *dst,
                   int                y0,
                   int                y1)
{
  if (!st->active)
    return;
  if (st->exact)
    lb_rotate_process_reference (st, src, dst, y0, y1);
  else
    {
      typedef void (*Fn) (const LbRotate *, const LbKernelBuf *, LbKernelBuf *, int, int);
      static const Fn fns[2][4] = {
        { process_fast_1_8, process_fast_2_8, process_fast_3_8, process_fast_4_8 },
        { process_fast_1_16, process_fast_2_16, process_fast_3_16, process_fast_4_16 },
      };

      fns[src->depth == 16][src->channels - 1] (st, src, dst, y0, y1);
    }
}
