/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-rotate"

#include "lb-xvgeom.h"

#include <math.h>
#include <string.h>

#include "lb-kernel-layout.h"

/* The fast path's hand-written AVX2 rows, where the compiler offers them. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define HAVE_AVX2_PATH 1
#include <immintrin.h>
#endif

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
  gboolean no_simd;        /* tests: the fast path without its AVX2 inner loop */
};

/* xv's point rotation in polar form, y axis flipped; same libm calls, same order. */
static inline void
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

  if (!lb_kernel_check_and_clip (src, region, &st->r, error))
    return NULL;
  if (!isfinite (params->angle) || fabs (params->angle) > 1e6)
    {
      g_set_error (error, LB_KERNEL_ERROR, LB_KERNEL_ERROR_INVALID_ARGUMENT,
                   "Rotation angle must be a finite number of degrees (got %g)", params->angle);
      return NULL;
    }
  maxv = lb_kbuf_max_value (src);
  for (int c = 0; c < 3; c++)
    if (params->clear && params->clear_color[c] > maxv)
      {
        g_set_error (error, LB_KERNEL_ERROR, LB_KERNEL_ERROR_INVALID_ARGUMENT,
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
lb_rotate_set_simd (LbRotate *st,
                    gboolean  enable)
{
  st->no_simd = !enable;
}

void
lb_rotate_free (LbRotate *st)
{
  g_free (st);
}

/* xv's blend weights from the offsets (px, py) of the source point from the centre of its
 * pixel, for neighbours that exist (ux: the one beside, uy: the one above or below): the same
 * double operations in xv's order, shared by the reference and fast paths. */
static G_ALWAYS_INLINE inline void
xv_weights (double    px,
            double    py,
            gboolean  ux,
            gboolean  uy,
            double   *w)
{
  double ax = fabs (px), ay = fabs (py), w1, w2, w3;

  w1 = ux ? ax * (1.0 - ay) : 0.0;
  w2 = uy ? ay * (1.0 - ax) : 0.0;
  w3 = (ux && uy) ? ax * ay : 0.0;
  w1 *= 0.7;
  w2 *= 0.7;
  w3 *= 0.7;
  w[0] = 1.0 - (w1 + w2 + w3);
  w[1] = w1;
  w[2] = w2;
  w[3] = w3;
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
  double fx, fy, px, py, w[4];
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
  ox1 = px < 0 ? ox - 1 : ox + 1;
  oy1 = py < 0 ? oy - 1 : oy + 1;
  ux = ox1 >= r->x && ox1 < r->x + r->width;
  uy = oy1 >= r->y && oy1 < r->y + r->height;
  xv_weights (px, py, ux, uy, w);
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
      v = p0 * w[0] + p1 * w[1] + p2 * w[2] + p3 * w[3];
      iv = (int) (v + 0.5);
      iv = CLAMP (iv, 0, maxv);
      if (depth == 16)
        ((guint16 *) (void *) drow)[(gsize) x * ch + c] = (guint16) iv;
      else
        drow[(gsize) x * ch + c] = (guint8) iv;
    }
}

static void
fill_clear_row (const LbRotate    *st,
                const LbKernelBuf *src,
                LbKernelBuf       *dst,
                int                y)
{
  guint8 *drow = lb_kbuf_row (dst, y) + (gsize) st->r.x * dst->channels * (dst->depth / 8);
  int nc = lb_kbuf_color_channels (dst), ch = dst->channels;
  gsize pb = (gsize) ch * (dst->depth / 8), cb = (gsize) nc * (dst->depth / 8);
  guint8 pix[8];

  if (st->r.width <= 0)
    return;
  /* one pixel's colour bytes (alpha whatever), copied along the row: the row doubles, log2
   * (width) memcpy calls; then alpha back from the source */
  memset (pix, 0, sizeof pix);
  for (int c = 0; c < nc; c++)
    lb_kbuf_set (dst, pix, (gsize) c, st->clear_color[c]);
  {
    gsize done = pb, total = (gsize) st->r.width * pb;

    memcpy (drow, pix, pb);
    while (done < total)
      {
        gsize n = MIN (done, total - done);

        memcpy (drow + done, drow, n);
        done += n;
      }
  }
  if (cb != pb)
    lb_kernel_restore_alpha (src, dst, y, st->r.x, st->r.x + st->r.width);
}

/* Clear Rotate fills the region rows first; returns whether row @y is in the box. */
static gboolean
_lb_rotate_band_setup (const LbRotate    *st,
                       const LbKernelBuf *src,
                       LbKernelBuf       *dst,
                       int                y)
{
  if (st->clear && y >= st->r.y && y < st->r.y + st->r.height)
    fill_clear_row (st, src, dst, y);
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

      if (!_lb_rotate_band_setup (st, src, dst, y))
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
/* pixels ahead of the AVX2 loop's software prefetch (measured at 1.4 Mpx, 30°: 8 to 64 all
 * take the pass from ~22 to ~12 ms of CPU on the 2-vCPU EPYC; 32 stays inside a tile), and
 * the prefetch points per eight-pixel step (2: ~10 % less CPU than 1; 4 no better) */
#ifndef PREFETCH_POINTS
#define PREFETCH_POINTS 2
#endif
#ifndef PREFETCH_AHEAD
#define PREFETCH_AHEAD 32
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
      double px, py, w[4];
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
      xv_weights (px, py, TRUE, TRUE, w);
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
          v = p0 * w[0] + p1 * w[1] + p2 * w[2] + p3 * w[3];
          iv = (int) (v + 0.5);
          iv = MIN (iv, maxv);   /* the weights are ≥ 0: v ≥ 0 */
          if (DEPTH == 16)
            ((guint16 *) (void *) drow)[(gsize) x * CH + c] = (guint16) iv;
          else
            drow[(gsize) x * CH + c] = (guint8) iv;
        }
    }
}

#ifdef HAVE_AVX2_PATH
/* Scalar instances of the inner loop, for the vector path's odd pixels. */
static void
row_inner_3_8 (const LbRotate *st, const LbKernelBuf *src, guint8 *drow, int y,
               const RowLine *l, int xs, int xe)
{
  row_inner (st, src, drow, y, l, xs, xe, 3, 3, 8);
}

static void
row_inner_4_8 (const LbRotate *st, const LbKernelBuf *src, guint8 *drow, int y,
               const RowLine *l, int xs, int xe)
{
  row_inner (st, src, drow, y, l, xs, xe, 3, 4, 8);
}


/* The inner loop for 8-bit RGB and RGBA in AVX2, eight pixels per step. Coordinates, the
 * floor() steps, the epsilon test and xv's weights are the scalar loop's double operations
 * (no FMA, same order), four lanes at a time; the blend then runs on eight lanes in float:
 * the weights (≤ 1) rounded to float, products and sums of samples ≤ 255, so the float
 * value t̃ = v + 1/2 lies within 2e-4 of the double one (4 · 255 · 2^-24 for the weights,
 * 7 roundings of values ≤ 256 at 2^-24 relative). Where t̃ is at least 2^-10 (9.8e-4) from
 * an integer, its floor is the double path's, bit for bit. A pixel with a sample nearer
 * than that (about 0.6 % of them), a coordinate within the epsilon of a floor() step, or a
 * neighbour whose 8-byte read would pass the end of the buffer takes the scalar loop. So the
 * result is byte-identical to row_inner(); each pair of horizontal neighbours comes from
 * one 8-byte load.
 * The caller checks that byte offsets fit 31 bits. */
#define ROTATE_FLOAT_NEAR (1.0f / 1024.0f)

/* Four lanes of the scalar loop's double maths: the floor()ed coordinates, the epsilon
 * test (returned as a 4-bit mask), the offsets px, py and xv's weights. */
__attribute__ ((target ("avx2"), always_inline)) static inline int
coords4_pd (__m256d xd, const RowLine *l, __m128i *ox, __m128i *oy, __m256d *opx, __m256d *opy,
            __m256d w[4])
{
  const __m256d vax0 = _mm256_set1_pd (l->ax0), vay0 = _mm256_set1_pd (l->ay0);
  const __m256d vca = _mm256_set1_pd (l->ca), vsa = _mm256_set1_pd (l->sa);
  const __m256d eps = _mm256_set1_pd (BOUNDARY_EPS), eps1 = _mm256_set1_pd (1.0 - BOUNDARY_EPS);
  const __m256d half = _mm256_set1_pd (0.5), one = _mm256_set1_pd (1.0), k07 = _mm256_set1_pd (0.7);
  const __m256d signbit = _mm256_set1_pd (-0.0);
  __m256d xf = _mm256_add_pd (vax0, _mm256_mul_pd (xd, vca));
  __m256d yf = _mm256_sub_pd (vay0, _mm256_mul_pd (xd, vsa));
  __m128i oxi = _mm256_cvttpd_epi32 (xf), oyi = _mm256_cvttpd_epi32 (yf);
  __m256d fx = _mm256_sub_pd (xf, _mm256_cvtepi32_pd (oxi));
  __m256d fy = _mm256_sub_pd (yf, _mm256_cvtepi32_pd (oyi));
  __m256d bad = _mm256_or_pd (_mm256_or_pd (_mm256_cmp_pd (fx, eps, _CMP_LT_OQ),
                                            _mm256_cmp_pd (fx, eps1, _CMP_GT_OQ)),
                              _mm256_or_pd (_mm256_cmp_pd (fy, eps, _CMP_LT_OQ),
                                            _mm256_cmp_pd (fy, eps1, _CMP_GT_OQ)));
  __m256d px = _mm256_sub_pd (fx, half), py = _mm256_sub_pd (fy, half);
  __m256d ax = _mm256_andnot_pd (signbit, px), ay = _mm256_andnot_pd (signbit, py);
  __m256d w1 = _mm256_mul_pd (ax, _mm256_sub_pd (one, ay));
  __m256d w2 = _mm256_mul_pd (ay, _mm256_sub_pd (one, ax));
  __m256d w3 = _mm256_mul_pd (ax, ay);

  w1 = _mm256_mul_pd (w1, k07);
  w2 = _mm256_mul_pd (w2, k07);
  w3 = _mm256_mul_pd (w3, k07);
  w[0] = _mm256_sub_pd (one, _mm256_add_pd (_mm256_add_pd (w1, w2), w3));
  w[1] = w1;
  w[2] = w2;
  w[3] = w3;
  *opx = px;
  *opy = py;
  *ox = oxi;
  *oy = oyi;
  return _mm256_movemask_pd (bad);
}

/* coords4_pd () with the weights rounded to float */
__attribute__ ((target ("avx2"), always_inline)) static inline int
coords4_avx2 (__m256d xd, const RowLine *l, __m128i *ox, __m128i *oy, __m128 *pxs, __m128 *pys,
              __m128 w[4])
{
  __m256d px, py, wd[4];
  int bad = coords4_pd (xd, l, ox, oy, &px, &py, wd);

  for (int i = 0; i < 4; i++)
    w[i] = _mm256_cvtpd_ps (wd[i]);
  /* only the signs of px, py matter here: a nonzero double of magnitude ≥ 2^-53 keeps its
   * sign in float */
  *pxs = _mm256_cvtpd_ps (px);
  *pys = _mm256_cvtpd_ps (py);
  return bad;
}

__attribute__ ((target ("avx2"), always_inline)) static inline void
row_inner_avx2_8 (const LbRotate    *st,
                  const LbKernelBuf *src,
                  guint8            *drow,
                  int                y,
                  const RowLine     *l,
                  int                xs,
                  int                xe,
                  int                ch)
{
  const __m256 halff = _mm256_set1_ps (0.5f), zerof = _mm256_setzero_ps ();
  const __m256 lim = _mm256_set1_ps (0.5f - ROTATE_FLOAT_NEAR);
  const __m256 absmask = _mm256_castsi256_ps (_mm256_set1_epi32 (0x7fffffff));
  const __m256i vch = _mm256_set1_epi32 (ch), vstride = _mm256_set1_epi32 ((int) src->stride);
  const __m256i vmax = _mm256_set1_epi32 (255), lowbyte = _mm256_set1_epi32 (0xff);
  /* the last byte offset an 8-byte read in the upper of two rows may start at */
  const __m256i limit = _mm256_set1_epi32 ((int) (src->stride * (gsize) (src->height - 2)
                                                  + (gsize) src->width * src->channels - 8));
  /* one 8-byte load (the left and the right pixel) into dwords [left a, left b, right a,
   * right b] of each 128-bit half */
  const __m256i split = ch == 3
    ? _mm256_setr_epi8 (0, 1, 2, -1, 8, 9, 10, -1, 3, 4, 5, -1, 11, 12, 13, -1,
                        0, 1, 2, -1, 8, 9, 10, -1, 3, 4, 5, -1, 11, 12, 13, -1)
    : _mm256_setr_epi8 (0, 1, 2, -1, 8, 9, 10, -1, 4, 5, 6, -1, 12, 13, 14, -1,
                        0, 1, 2, -1, 8, 9, 10, -1, 4, 5, 6, -1, 12, 13, 14, -1);
  /* RGB: the three low bytes of each 32-bit lane, packed per 128-bit half, then the halves
   * joined: 24 bytes */
  const __m256i pack3 = _mm256_setr_epi8 (0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1,
                                          0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
  const __m256i join3 = _mm256_setr_epi32 (0, 1, 2, 4, 5, 6, 3, 7);
  const __m256d four = _mm256_set1_pd (4.0), eight = _mm256_set1_pd (8.0);
  int x = xs;
  /* the lanes' x as doubles, stepped by 8 (exact: small integers) */
  __m256d xd = _mm256_set_pd (x + 3, x + 2, x + 1, x);

  for (; x + 8 <= xe; x += 8, xd = _mm256_add_pd (xd, eight))
    {
      __m128i oxl, oyl, oxh, oyh;
      __m128 pxl, pyl, pxh, pyh, wl[4], wh[4];
      int bad = coords4_avx2 (xd, l, &oxl, &oyl, &pxl, &pyl, wl);
      __m256i ox, oy, offt, mx, my, g0, g1, g2, g3, out, over;
      __m256 w0, w1, w2, w3;
      int near = 0;

      bad |= coords4_avx2 (_mm256_add_pd (xd, four), l, &oxh, &oyh, &pxh, &pyh, wh) << 4;
      ox = _mm256_set_m128i (oxh, oxl);
      oy = _mm256_set_m128i (oyh, oyl);
      w0 = _mm256_set_m128 (wh[0], wl[0]);
      w1 = _mm256_set_m128 (wh[1], wl[1]);
      w2 = _mm256_set_m128 (wh[2], wl[2]);
      w3 = _mm256_set_m128 (wh[3], wl[3]);
      /* The two neighbours in a row are adjacent pixels: one 8-byte load at the left one
       * (ox − 1 where px < 0) holds both, in the top row (oy − 1 where py < 0) and the row
       * below it. The weights follow: w0 belongs to (ox, oy), w1 to (ox1, oy), w2 to
       * (ox, oy1), w3 to (ox1, oy1). */
      mx = _mm256_castps_si256 (_mm256_cmp_ps (_mm256_set_m128 (pxh, pxl), zerof, _CMP_LT_OQ));
      my = _mm256_castps_si256 (_mm256_cmp_ps (_mm256_set_m128 (pyh, pyl), zerof, _CMP_LT_OQ));
      offt = _mm256_add_epi32 (_mm256_mullo_epi32 (_mm256_add_epi32 (oy, my), vstride),
                               _mm256_mullo_epi32 (_mm256_add_epi32 (ox, mx), vch));
      over = _mm256_cmpgt_epi32 (offt, limit);
      if (G_UNLIKELY (!_mm256_testz_si256 (over, over)))
        {
          /* those lanes read pixel 0 instead, and take the scalar loop */
          bad |= _mm256_movemask_ps (_mm256_castsi256_ps (over));
          offt = _mm256_andnot_si256 (over, offt);
        }
      {
        const __m256 fx = _mm256_castsi256_ps (mx), fy = _mm256_castsi256_ps (my);
        const __m256 a0 = _mm256_blendv_ps (w0, w1, fx), a1 = _mm256_blendv_ps (w1, w0, fx);
        const __m256 a2 = _mm256_blendv_ps (w2, w3, fx), a3 = _mm256_blendv_ps (w3, w2, fx);

        w0 = _mm256_blendv_ps (a0, a2, fy);  /* top left */
        w1 = _mm256_blendv_ps (a1, a3, fy);  /* top right */
        w2 = _mm256_blendv_ps (a2, a0, fy);  /* bottom left */
        w3 = _mm256_blendv_ps (a3, a1, fy);  /* bottom right */
      }
#if PREFETCH_AHEAD > 0
      /* software prefetch PREFETCH_AHEAD pixels ahead, at PREFETCH_POINTS points of the
       * step's eight pixels (the slanted source line can cross a cache line every two
       * pixels): the loop is long enough that the out-of-order window holds few steps, so
       * misses on the slanted source line would otherwise not overlap */
      for (int k = 0; k < 8; k += 8 / PREFETCH_POINTS)
        {
          double pxf = l->ax0 + (x + k + PREFETCH_AHEAD) * l->ca, pyf = l->ay0 - (x + k + PREFETCH_AHEAD) * l->sa;

          if (pxf >= 0 && pyf >= 0 && pxf < src->width && pyf < src->height - 1)
            {
              const guint8 *pp = src->data + (gsize) (int) pyf * src->stride + (gsize) (int) pxf * ch;

              __builtin_prefetch (pp);
              __builtin_prefetch (pp + src->stride);
            }
        }
#endif
      {
        int o[8];
        const guint8 *sb = src->data, *sb1 = src->data + src->stride;
        __m256i t0, t1, b0, b1;

        _mm256_storeu_si256 ((__m256i *) (void *) o, offt);
#define Q2(p, i, j) _mm_castpd_si128 (_mm_loadh_pd (_mm_castsi128_pd (_mm_loadl_epi64 ((const __m128i *) (const void *) ((p) + o[i]))), \
                                                    (const double *) (const void *) ((p) + o[j])))
        /* 128-bit halves: pixels 0, 1 | 4, 5 and 2, 3 | 6, 7, so that the 64-bit unpacks
         * below give the pixels in order */
        t0 = _mm256_set_m128i (Q2 (sb, 4, 5), Q2 (sb, 0, 1));
        t1 = _mm256_set_m128i (Q2 (sb, 6, 7), Q2 (sb, 2, 3));
        b0 = _mm256_set_m128i (Q2 (sb1, 4, 5), Q2 (sb1, 0, 1));
        b1 = _mm256_set_m128i (Q2 (sb1, 6, 7), Q2 (sb1, 2, 3));
#undef Q2
        t0 = _mm256_shuffle_epi8 (t0, split);
        t1 = _mm256_shuffle_epi8 (t1, split);
        b0 = _mm256_shuffle_epi8 (b0, split);
        b1 = _mm256_shuffle_epi8 (b1, split);
        g0 = _mm256_unpacklo_epi64 (t0, t1);
        g1 = _mm256_unpackhi_epi64 (t0, t1);
        g2 = _mm256_unpacklo_epi64 (b0, b1);
        g3 = _mm256_unpackhi_epi64 (b0, b1);
      }
      out = _mm256_setzero_si256 ();
      for (int c = 0; c < 3; c++)
        {
          __m256 p0 = _mm256_cvtepi32_ps (_mm256_and_si256 (_mm256_srli_epi32 (g0, 8 * c), lowbyte));
          __m256 p1 = _mm256_cvtepi32_ps (_mm256_and_si256 (_mm256_srli_epi32 (g1, 8 * c), lowbyte));
          __m256 p2 = _mm256_cvtepi32_ps (_mm256_and_si256 (_mm256_srli_epi32 (g2, 8 * c), lowbyte));
          __m256 p3 = _mm256_cvtepi32_ps (_mm256_and_si256 (_mm256_srli_epi32 (g3, 8 * c), lowbyte));
          __m256 t = _mm256_add_ps (_mm256_add_ps (_mm256_add_ps (_mm256_add_ps (_mm256_mul_ps (p0, w0),
                                                                                 _mm256_mul_ps (p1, w1)),
                                                                  _mm256_mul_ps (p2, w2)),
                                                   _mm256_mul_ps (p3, w3)),
                                    halff);
          __m256i q = _mm256_cvttps_epi32 (t); /* t > 0: truncation is floor */
          __m256 d = _mm256_sub_ps (_mm256_sub_ps (t, _mm256_cvtepi32_ps (q)), halff);

          near |= _mm256_movemask_ps (_mm256_cmp_ps (_mm256_and_ps (d, absmask), lim, _CMP_GT_OQ));
          out = _mm256_or_si256 (out, _mm256_slli_epi32 (_mm256_min_epi32 (q, vmax), 8 * c));
        }
      if (ch == 3)
        {
          __m256i packed = _mm256_permutevar8x32_epi32 (_mm256_shuffle_epi8 (out, pack3), join3);

          _mm_storeu_si128 ((__m128i *) (void *) (drow + (gsize) x * 3), _mm256_castsi256_si128 (packed));
          _mm_storel_epi64 ((__m128i *) (void *) (drow + (gsize) x * 3 + 16),
                            _mm256_extracti128_si256 (packed, 1));
        }
      else
        {
          /* alpha (byte 3 of each pixel) passes through */
          __m256i *d = (__m256i *) (void *) (drow + (gsize) x * 4);
          __m256i keep = _mm256_and_si256 (_mm256_loadu_si256 (d), _mm256_set1_epi32 ((int) 0xff000000u));

          _mm256_storeu_si256 (d, _mm256_or_si256 (keep, out));
        }
      for (bad |= near; bad != 0; bad &= bad - 1)
        {
          const int i = x + __builtin_ctz ((unsigned) bad);

          if (ch == 3)
            row_inner_3_8 (st, src, drow, y, l, i, i + 1);
          else
            row_inner_4_8 (st, src, drow, y, l, i, i + 1);
        }
    }
  if (ch == 3)
    row_inner_3_8 (st, src, drow, y, l, x, xe);
  else
    row_inner_4_8 (st, src, drow, y, l, x, xe);
}

static void
row_inner_1_16 (const LbRotate *st, const LbKernelBuf *src, guint8 *drow, int y,
                const RowLine *l, int xs, int xe)
{
  row_inner (st, src, drow, y, l, xs, xe, 1, 1, 16);
}

static void
row_inner_1_8 (const LbRotate *st, const LbKernelBuf *src, guint8 *drow, int y,
               const RowLine *l, int xs, int xe)
{
  row_inner (st, src, drow, y, l, xs, xe, 1, 1, 8);
}

/* The inner loop for gray, 16 bits (the medical images') or 8, in AVX2, four pixels per
 * step: the scalar loop's double operations in its order (no FMA), coordinates, weights and
 * the blend alike, so the result is the same bytes with no closeness test (samples up to
 * 65535 leave float no margin). Each pair of horizontal neighbours comes from one 4-byte
 * gather in the upper and the lower row (at 8 bits its two low bytes; a lane whose read
 * would pass the end of the buffer reads pixel 0 and is redone). A coordinate within the
 * epsilon of a floor() step takes the scalar loop. The caller checks that byte offsets fit
 * 31 bits. */
__attribute__ ((target ("avx2"), always_inline)) static inline void
row_inner_avx2_gray (const LbRotate    *st,
                     const LbKernelBuf *src,
                     guint8            *drow,
                     int                y,
                     const RowLine     *l,
                     int                xs,
                     int                xe,
                     const int          depth)
{
  const __m256d zero = _mm256_setzero_pd (), half = _mm256_set1_pd (0.5), four = _mm256_set1_pd (4.0);
  const __m128i vstride = _mm_set1_epi32 ((int) src->stride);
  const __m128i lowmask = _mm_set1_epi32 (depth == 16 ? 0xffff : 0xff);
  const __m128i vmax = _mm_set1_epi32 (depth == 16 ? 65535 : 255), lanebit = _mm_setr_epi32 (1, 2, 4, 8);
  /* 8 bits: the last byte offset a 4-byte read in the upper of two rows may start at */
  const __m128i limit = _mm_set1_epi32 ((int) (src->stride * (gsize) (src->height - 2)
                                               + (gsize) src->width - 4));
  const __m256d minus1 = _mm256_set1_pd (-1.0);
  const int *sb = (const int *) (const void *) src->data;
  int x = xs;
  __m256d xd = _mm256_set_pd (x + 3, x + 2, x + 1, x);

  for (; x + 4 <= xe; x += 4, xd = _mm256_add_pd (xd, four))
    {
      __m128i ox, oy, off, top, bottom;
      __m256d px, py, w[4], mx, my, left0, right0, left1, right1, p0, p1, p2, p3, v;
      int bad = coords4_pd (xd, l, &ox, &oy, &px, &py, w);

      /* the left pixel of the pair (ox − 1 where px < 0) in the upper row (oy − 1 where
       * py < 0): byte offsets; lanes to be redone read pixel 0 */
      mx = _mm256_cmp_pd (px, zero, _CMP_LT_OQ);
      my = _mm256_cmp_pd (py, zero, _CMP_LT_OQ);
      /* the masks as −1.0 / 0.0, converted: −1 or 0 per 32-bit lane */
      off = _mm_add_epi32 (_mm_mullo_epi32 (_mm_add_epi32 (oy, _mm256_cvtpd_epi32 (_mm256_and_pd (my, minus1))),
                                            vstride),
                           _mm_slli_epi32 (_mm_add_epi32 (ox, _mm256_cvtpd_epi32 (_mm256_and_pd (mx, minus1))),
                                           depth == 16 ? 1 : 0));
      if (depth == 8)
        bad |= _mm_movemask_ps (_mm_castsi128_ps (_mm_cmpgt_epi32 (off, limit)));
      if (bad)
        off = _mm_andnot_si128 (_mm_cmpeq_epi32 (_mm_and_si128 (_mm_set1_epi32 (bad), lanebit), lanebit), off);
      top = _mm_i32gather_epi32 (sb, off, 1);
      bottom = _mm_i32gather_epi32 ((const int *) (const void *) (src->data + src->stride), off, 1);
      left0 = _mm256_cvtepi32_pd (_mm_and_si128 (top, lowmask));
      right0 = _mm256_cvtepi32_pd (_mm_and_si128 (_mm_srli_epi32 (top, depth), lowmask));
      left1 = _mm256_cvtepi32_pd (_mm_and_si128 (bottom, lowmask));
      right1 = _mm256_cvtepi32_pd (_mm_and_si128 (_mm_srli_epi32 (bottom, depth), lowmask));
      /* p0: (ox, oy), p1: its horizontal neighbour, p2: its vertical one, p3: the diagonal */
      p0 = _mm256_blendv_pd (_mm256_blendv_pd (left0, right0, mx), _mm256_blendv_pd (left1, right1, mx), my);
      p1 = _mm256_blendv_pd (_mm256_blendv_pd (right0, left0, mx), _mm256_blendv_pd (right1, left1, mx), my);
      p2 = _mm256_blendv_pd (_mm256_blendv_pd (left1, right1, mx), _mm256_blendv_pd (left0, right0, mx), my);
      p3 = _mm256_blendv_pd (_mm256_blendv_pd (right1, left1, mx), _mm256_blendv_pd (right0, left0, mx), my);
      v = _mm256_add_pd (_mm256_add_pd (_mm256_add_pd (_mm256_mul_pd (p0, w[0]), _mm256_mul_pd (p1, w[1])),
                                        _mm256_mul_pd (p2, w[2])),
                         _mm256_mul_pd (p3, w[3]));
      /* (int) (v + 0.5): v ≥ 0, truncation; then at most the largest sample */
      {
        __m128i iv = _mm_min_epi32 (_mm256_cvttpd_epi32 (_mm256_add_pd (v, half)), vmax);

        iv = _mm_packus_epi32 (iv, iv);
        if (depth == 16)
          _mm_storel_epi64 ((__m128i *) (void *) (drow + (gsize) x * 2), iv);
        else
          {
            const gint32 four_px = _mm_cvtsi128_si32 (_mm_packus_epi16 (iv, iv));

            memcpy (drow + x, &four_px, sizeof four_px);
          }
      }
      for (; bad != 0; bad &= bad - 1)
        {
          const int i = x + __builtin_ctz ((unsigned) bad);

          (depth == 16 ? row_inner_1_16 : row_inner_1_8) (st, src, drow, y, l, i, i + 1);
        }
    }
  (depth == 16 ? row_inner_1_16 : row_inner_1_8) (st, src, drow, y, l, x, xe);
}

/* The inner interval [@xs, @xe) of row @y in AVX2: 16-bit gray, 8-bit gray, 8-bit RGB and
 * 8-bit RGBA. */
__attribute__ ((target ("avx2"))) static void
_lb_rotate_row_avx2_16 (const LbRotate *st, const LbKernelBuf *src, guint8 *drow, int y,
                        const RowLine *l, int xs, int xe)
{
  row_inner_avx2_gray (st, src, drow, y, l, xs, xe, 16);
}

__attribute__ ((target ("avx2"))) static void
_lb_rotate_row_avx2_g8 (const LbRotate *st, const LbKernelBuf *src, guint8 *drow, int y,
                        const RowLine *l, int xs, int xe)
{
  row_inner_avx2_gray (st, src, drow, y, l, xs, xe, 8);
}

__attribute__ ((target ("avx2"))) static void
_lb_rotate_row_avx2_rgb8 (const LbRotate *st, const LbKernelBuf *src, guint8 *drow, int y,
                          const RowLine *l, int xs, int xe)
{
  row_inner_avx2_8 (st, src, drow, y, l, xs, xe, 3);
}

__attribute__ ((target ("avx2"))) static void
_lb_rotate_row_avx2_rgba8 (const LbRotate *st, const LbKernelBuf *src, guint8 *drow, int y,
                           const RowLine *l, int xs, int xe)
{
  row_inner_avx2_8 (st, src, drow, y, l, xs, xe, 4);
}

#endif

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
static void
_lb_rotate_process_fast (const LbRotate    *st,
                         const LbKernelBuf *src,
                         LbKernelBuf       *dst,
                         int                y0,
                         int                y1)
{
  LB_KERNEL_LAYOUT_CALL (process_fast, LbRotate, st, src, dst, y0, y1);
}

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
    _lb_rotate_process_fast (st, src, dst, y0, y1);
}
