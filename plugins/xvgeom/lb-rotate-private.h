/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* What the files of Copy/Clear Rotate share (lb-rotate.c: prepare, Clear Rotate's rows and
 * the dispatcher; lb-rotate-ref.c, the exact path; lb-rotate-fast.c, the affine tiles, with
 * their AVX2 rows in lb-rotate-avx2.c): the state, xv's maths per pixel (static inline, so
 * every path inlines it as before) and the entry points. Internal to plugins/xvgeom. */

#include <math.h>
#include <string.h>

#include "lb-kernel-layout.h"
#include "lb-xvgeom.h"

G_BEGIN_DECLS

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

/* Clear Rotate's fill of row @y, if it is a region row; whether row @y is in the destination
 * box (lb-rotate.c). */
gboolean _lb_rotate_band_setup   (const LbRotate    *st,
                                  const LbKernelBuf *src,
                                  LbKernelBuf       *dst,
                                  int                y);
/* The fast path on destination rows [@y0, @y1) (lb-rotate-fast.c). */
void     _lb_rotate_process_fast (const LbRotate    *st,
                                  const LbKernelBuf *src,
                                  LbKernelBuf       *dst,
                                  int                y0,
                                  int                y1);

#ifdef HAVE_AVX2_PATH
/* The fast path's inner interval [@xs, @xe) of row @y in AVX2, one entry per layout: 16-bit
 * gray, 8-bit gray, 8-bit RGB, 8-bit RGBA (lb-rotate-avx2.c). */
typedef void LbRotateRowFunc (const LbRotate    *st,
                              const LbKernelBuf *src,
                              guint8            *drow,
                              int                y,
                              const RowLine     *l,
                              int                xs,
                              int                xe);
LbRotateRowFunc _lb_rotate_row_avx2_16, _lb_rotate_row_avx2_g8, _lb_rotate_row_avx2_rgb8,
  _lb_rotate_row_avx2_rgba8;
#endif

G_END_DECLS
