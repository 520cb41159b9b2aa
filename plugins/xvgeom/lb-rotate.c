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

/* Fixed-point fraction bits of the fast path's weights: the weights are xv's doubles rounded
 * to multiples of 2^-22 (8 bits, sums fit 32 bits) or 2^-30 (16 bits, 64-bit sums), so a
 * value moves by at most 4·max·2^-(bits+1) (≈1.2e-4 at 8 bits): the result differs from
 * xv's by 1 only where xv's sum lies that close to a rounding step. */
#define FIX8 22
#define FIX16 30

/* Destination tiles of 32 rows × 64 columns keep the source pixels a tile reads (a rotated
 * 64×32 patch) in L1 cache. */
#define TILE_H 32
#define TILE_W 64

static G_ALWAYS_INLINE inline void
process_fast (const LbRotate    *st,
              const LbKernelBuf *src,
              LbKernelBuf       *dst,
              int                y0,
              int                y1,
              int                depth)
{
  const LbKernelRect *r = &st->r;
  int nc = lb_kbuf_color_channels (src), ch = src->channels;
  /* region bounds widened by the −0.5 cheat and the epsilon: anything outside cannot land in
   * the region, so the per-pixel work is skipped with two compares */
  double lox = r->x - 0.5 - 2 * BOUNDARY_EPS, hix = r->x + r->width + 2 * BOUNDARY_EPS;
  double loy = r->y - 0.5 - 2 * BOUNDARY_EPS, hiy = r->y + r->height + 2 * BOUNDARY_EPS;
  const int fix = depth == 16 ? FIX16 : FIX8;
  const double one = (double) ((gint64) 1 << fix);

  y0 = MAX (y0, 0);
  y1 = MIN (y1, dst->height);
  for (int ty = y0; ty < y1; ty += TILE_H)
    {
      int tye = MIN (ty + TILE_H, y1);

      /* Clear Rotate: the region rows are cleared before any rotated pixel lands on them */
      for (int y = ty; y < tye; y++)
        band_setup (st, dst, y);
      for (int tx = st->bx0; tx < st->bx1; tx += TILE_W)
        {
          int txe = MIN (tx + TILE_W, st->bx1);

          for (int y = MAX (ty, st->by0); y < MIN (tye, st->by1); y++)
            {
              guint8 *drow = lb_kbuf_row (dst, y);
              double dyu = st->cfy - y;
              /* xf = cfx + dx·cos − dyu·sin ; yf = cfy − (dx·sin + dyu·cos), dx = x − cfx */
              double ax0 = st->cfx - st->cfx * st->ca - dyu * st->sa;
              double ay0 = st->cfy - dyu * st->ca + st->cfx * st->sa;

              for (int x = tx; x < txe; x++)
                {
                  double xf = ax0 + x * st->ca;
                  double yf = ay0 - x * st->sa;
                  double fx, fy, px, py, ax, ay, w1, w2, w3;
                  int ox, oy, ox1, oy1;
                  gboolean ux, uy;
                  gint64 iw0, iw1, iw2, iw3;
                  const guint8 *row0, *row1;

                  if (xf < lox || xf >= hix || yf < loy || yf >= hiy)
                    continue;
                  if (G_UNLIKELY (xf < 0.0 || yf < 0.0))
                    {
                      /* xv's −0.5 cheat: do it xv's way */
                      rot_xv (st, x, y, -st->rad, &xf, &yf);
                      sample_xv (st, src, drow, x, xf, yf, nc, depth);
                      continue;
                    }
                  ox = (int) xf;   /* xf ≥ 0: truncation is floor */
                  oy = (int) yf;
                  fx = xf - ox;
                  fy = yf - oy;
                  if (G_UNLIKELY (fx < BOUNDARY_EPS || fx > 1.0 - BOUNDARY_EPS
                                  || fy < BOUNDARY_EPS || fy > 1.0 - BOUNDARY_EPS))
                    {
                      /* floor() could differ from xv's: take xv's coordinates */
                      rot_xv (st, x, y, -st->rad, &xf, &yf);
                      sample_xv (st, src, drow, x, xf, yf, nc, depth);
                      continue;
                    }
                  if (ox < r->x || ox >= r->x + r->width || oy < r->y || oy >= r->y + r->height)
                    continue;
                  /* xv's weights, in the same double operations */
                  px = fx - 0.5;
                  py = fy - 0.5;
                  ax = fabs (px);
                  ay = fabs (py);
                  ox1 = px < 0 ? ox - 1 : ox + 1;
                  oy1 = py < 0 ? oy - 1 : oy + 1;
                  ux = ox1 >= r->x && ox1 < r->x + r->width;
                  uy = oy1 >= r->y && oy1 < r->y + r->height;
                  w1 = ux ? ax * (1.0 - ay) : 0.0;
                  w2 = uy ? ay * (1.0 - ax) : 0.0;
                  w3 = (ux && uy) ? ax * ay : 0.0;
                  iw1 = (gint64) (w1 * 0.7 * one + 0.5);
                  iw2 = (gint64) (w2 * 0.7 * one + 0.5);
                  iw3 = (gint64) (w3 * 0.7 * one + 0.5);
                  iw0 = ((gint64) 1 << fix) - iw1 - iw2 - iw3;
                  /* an unused neighbour has weight 0: read a valid pixel instead */
                  if (!ux)
                    ox1 = ox;
                  if (!uy)
                    oy1 = oy;
                  row0 = lb_kbuf_row (src, oy);
                  row1 = lb_kbuf_row (src, oy1);
                  if (depth == 16)
                    {
                      const guint16 *s0 = (const guint16 *) (const void *) row0;
                      const guint16 *s1 = (const guint16 *) (const void *) row1;
                      guint16 *d = (guint16 *) (void *) drow;

                      for (int c = 0; c < nc; c++)
                        {
                          gint64 v = s0[(gsize) ox * ch + c] * iw0 + s0[(gsize) ox1 * ch + c] * iw1
                                     + s1[(gsize) ox * ch + c] * iw2 + s1[(gsize) ox1 * ch + c] * iw3;

                          d[(gsize) x * ch + c] = (guint16) ((v + ((gint64) 1 << (FIX16 - 1))) >> FIX16);
                        }
                    }
                  else
                    {
                      gint32 jw0 = (gint32) iw0, jw1 = (gint32) iw1, jw2 = (gint32) iw2, jw3 = (gint32) iw3;

                      for (int c = 0; c < nc; c++)
                        {
                          gint32 v = row0[(gsize) ox * ch + c] * jw0 + row0[(gsize) ox1 * ch + c] * jw1
                                     + row1[(gsize) ox * ch + c] * jw2 + row1[(gsize) ox1 * ch + c] * jw3;

                          drow[(gsize) x * ch + c] = (guint8) ((v + (1 << (FIX8 - 1))) >> FIX8);
                        }
                    }
                }
            }
        }
    }
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
  else if (src->depth == 16)
    process_fast (st, src, dst, y0, y1, 16);
  else
    process_fast (st, src, dst, y0, y1, 8);
}
