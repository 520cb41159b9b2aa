/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-sharpen"

#include "lb-xv-sharpen.h"

#include <math.h>
#include <string.h>

#include "lb-error.h"

gboolean
lb_xv_sharpen_prepare (LbXvSharpen        *self,
                       const LbKernelBuf  *src,
                       const LbKernelRect *selection,
                       int                 strength,
                       GError            **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (strength < 0 || strength > 99)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "sharpen: the enhancement factor must be between 0 and 99 %%, not %d",
                   strength);
      return FALSE;
    }
  if (!_lb_xv_region_init (&self->region, src, selection, "sharpen", error))
    return FALSE;
  self->strength = strength;
  self->f = strength / 100.0;
  self->g = 1.0 - self->f;
  return TRUE;
}

/* xv's rgb2hsv, Value and all; @top is 255.0 or 65535.0. */
static void
rgb2hsv (guint r, guint g, guint b, double top, double *h, double *s, double *v)
{
  const double rd = r / top, gd = g / top, bd = b / top;
  double mx, mn, del;

  mx = rd;
  if (gd > mx)
    mx = gd;
  if (bd > mx)
    mx = bd;
  mn = rd;
  if (gd < mn)
    mn = gd;
  if (bd < mn)
    mn = bd;
  del = mx - mn;
  *v = mx;
  *s = mx != 0.0 ? del / mx : 0.0;
  if (*s == 0.0)
    {
      *h = -1.0;
      return;
    }
  {
    const double rc = (mx - rd) / del, gc = (mx - gd) / del, bc = (mx - bd) / del;

    if (rd == mx)
      *h = bc - gc;
    else if (gd == mx)
      *h = 2.0 + rc - bc;
    else
      *h = 4.0 + gc - rc;
  }
  *h = *h * 60.0;
  if (*h < 0.0)
    *h += 360.0;
}

static guint
to_sample (double x, double top)
{
  const int v = (int) floor (x * top + 0.5);

  return (guint) CLAMP (v, 0, (int) top);
}

/* xv's hsv2rgb followed by the conversion to samples. */
static void
hsv2rgb (double h, double s, double v, double top, guint out[3])
{
  double r, g, b;

  if (h == -1.0 || s == 0.0)
    {
      r = g = b = v;
    }
  else
    {
      double hh, fr, p, q, t;
      int j;

      if (h == 360.0)
        h = 0.0;
      hh = h / 60.0;
      j = (int) floor (hh);
      if (j < 0)
        j = 0;
      fr = hh - j;
      /* Separate multiply and subtract steps, as the spec asks (no contraction). */
      p = v * (1.0 - s);
      q = v * (1.0 - s * fr);
      t = v * (1.0 - s * (1.0 - fr));
      switch (j)
        {
        case 1: r = q, g = v, b = p; break;
        case 2: r = p, g = v, b = t; break;
        case 3: r = p, g = q, b = v; break;
        case 4: r = t, g = p, b = v; break;
        case 5: r = v, g = p, b = q; break;
        case 0:
        default: r = v, g = t, b = p; break;
        }
    }
  out[0] = to_sample (r, top);
  out[1] = to_sample (g, top);
  out[2] = to_sample (b, top);
}

/* Value of pixel x: max over the colour channels of sample / top, in double. */
LB_XV_INLINE double
value_at (const guint8 *row, int x, int ch, int nc, double top, const int depth)
{
  double v = lb_xv_get (row, (gsize) x * ch, depth) / top;

  for (int c = 1; c < nc; c++)
    {
      const double w = lb_xv_get (row, (gsize) x * ch + c, depth) / top;
      if (w > v)
        v = w;
    }
  return v;
}

/* The new Value from the centre's Value and the 3×3 sum, clamped to [0, 1]. */
static inline double
sharpen_value (const LbXvSharpen *self, double v, double vsum)
{
  double nv = (v - (self->f * vsum) / 9.0) / self->g;

  if (nv < 0.0)
    nv = 0.0;
  if (nv > 1.0)
    nv = 1.0;
  return nv;
}

/* Writes the sharpened pixel x of @out, given the centre samples in @in. */
LB_XV_INLINE void
put_pixel (const LbXvSharpen *self, const guint8 *in, guint8 *out, int x, int ch, int nc,
           double nv, double top, const int depth)
{
  const gsize i = (gsize) x * ch;

  if (nc == 3)
    {
      double h, s, v;
      guint rgb[3];

      rgb2hsv (lb_xv_get (in, i, depth), lb_xv_get (in, i + 1, depth),
               lb_xv_get (in, i + 2, depth), top, &h, &s, &v);
      hsv2rgb (h, s, nv, top, rgb);
      for (int c = 0; c < 3; c++)
        lb_xv_put (out, i + c, rgb[c], depth);
    }
  else
    {
      lb_xv_put (out, i, to_sample (nv, top), depth);
    }
}

/* Copies the colour samples of columns [xa, xb) of row y from src to dst. */
LB_XV_INLINE void
copy_span (const LbKernelBuf *src, LbKernelBuf *dst, int y, int xa, int xb, const int depth)
{
  const int ch = src->channels, nc = lb_xv_colour_channels (ch);
  const guint8 *in = lb_xv_row (src, y);
  guint8 *out = lb_xv_row_mut (dst, y);

  for (int x = xa; x < xb; x++)
    for (int c = 0; c < nc; c++)
      lb_xv_put (out, (gsize) x * ch + c, lb_xv_get (in, (gsize) x * ch + c, depth), depth);
}

LB_XV_INLINE void
sharpen_ref_rows (const LbXvSharpen *self,
                  const LbKernelBuf *src,
                  LbKernelBuf       *dst,
                  int                ya,
                  int                yb,
                  const int          depth)
{
  const LbXvRegion *R = &self->region;
  const int ch = src->channels;
  const int nc = lb_xv_colour_channels (ch);
  const double top = depth == 8 ? 255.0 : 65535.0;
  const gboolean tiny = R->x1 - R->x0 < 3 || R->y1 - R->y0 < 3;

  for (int y = ya; y < yb; y++)
    {
      const guint8 *in = lb_xv_row (src, y);
      guint8 *out = lb_xv_row_mut (dst, y);

      if (tiny || y == R->y0 || y == R->y1 - 1)
        {
          copy_span (src, dst, y, R->x0, R->x1, depth);
          continue;
        }
      copy_span (src, dst, y, R->x0, R->x0 + 1, depth);
      copy_span (src, dst, y, R->x1 - 1, R->x1, depth);
      for (int x = R->x0 + 1; x < R->x1 - 1; x++)
        {
          double vsum = 0.0;

          for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++)
              vsum += value_at (lb_xv_row (src, y + dy), x + dx, ch, nc, top, depth);
          put_pixel (self, in, out, x, ch, nc,
                     sharpen_value (self, value_at (in, x, ch, nc, top, depth), vsum), top,
                     depth);
        }
    }
}

void
lb_xv_sharpen_process_ref (const LbXvSharpen *self,
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
    sharpen_ref_rows (self, src, dst, y0, y1, 8);
  else
    sharpen_ref_rows (self, src, dst, y0, y1, 16);
}

/* The optimised path's colour conversion: the same double operations as rgb2hsv() and
 * hsv2rgb() above, so the same results, minus the costs that do not change a bit:
 *  - sample / top comes from a table (the same correctly rounded quotient) at 8 bits;
 *  - floor() of a value known to be ≥ 0 is the truncating cast (floor is a libm call on
 *    plain x86-64): h ≥ 0 once S > 0, and x·top + 0.5 > 0 since x ≥ 0;
 *  - a gray pixel (r = g = b, the only case with S = 0) needs no conversion at all.
 * Only called for pixels with S > 0. */
LB_XV_INLINE void
sharpen_colour_fast (guint r, guint g, guint b, double nv, double top, const double *lut,
                     guint out[3], const int depth)
{
  const double rd = depth == 8 ? lut[r] : r / top;
  const double gd = depth == 8 ? lut[g] : g / top;
  const double bd = depth == 8 ? lut[b] : b / top;
  double mx = rd, mn = rd, del, s, h, hh, fr, p, q, t, cr, cg, cb;
  int j;

  mx = gd > mx ? gd : mx;
  mx = bd > mx ? bd : mx;
  mn = gd < mn ? gd : mn;
  mn = bd < mn ? bd : mn;
  del = mx - mn;
  s = del / mx;
  if (rd == mx)
    h = (mx - bd) / del - (mx - gd) / del;
  else if (gd == mx)
    h = 2.0 + (mx - rd) / del - (mx - bd) / del;
  else
    h = 4.0 + (mx - gd) / del - (mx - rd) / del;
  h = h * 60.0;
  if (h < 0.0)
    h += 360.0;
  if (h == 360.0)
    h = 0.0;
  hh = h / 60.0;
  j = (int) hh;
  fr = hh - j;
  p = nv * (1.0 - s);
  q = nv * (1.0 - s * fr);
  t = nv * (1.0 - s * (1.0 - fr));
  switch (j)
    {
    case 1: cr = q, cg = nv, cb = p; break;
    case 2: cr = p, cg = nv, cb = t; break;
    case 3: cr = p, cg = q, cb = nv; break;
    case 4: cr = t, cg = p, cb = nv; break;
    case 5: cr = nv, cg = p, cb = q; break;
    case 0:
    default: cr = nv, cg = t, cb = p; break;
    }
  out[0] = (guint) MIN ((int) (cr * top + 0.5), (int) top);
  out[1] = (guint) MIN ((int) (cg * top + 0.5), (int) top);
  out[2] = (guint) MIN ((int) (cb * top + 0.5), (int) top);
}

typedef double LbV4d __attribute__ ((vector_size (32)));
typedef gint64 LbV4l __attribute__ ((vector_size (32)));
typedef gint32 LbV4i __attribute__ ((vector_size (16)));

/* Lane-wise m ? a : b by bits (m is all ones or all zeros per lane): exact. A macro, since a
 * function returning a 32-byte vector has a different ABI with and without AVX. */
#define sel4(m, a, b) ((LbV4d) (((LbV4l) (m) & (LbV4l) (a)) | (~(LbV4l) (m) & (LbV4l) (b))))

/* RGB8, pixels 0 .. 4·⌊n/4⌋−1 of a row, four at a time: sharpen_colour_fast() (and the gray
 * shortcut) in GCC vector extensions, every branch a bitwise select. Each lane does exactly the
 * IEEE operations of the scalar code in the same order (no contraction: -ffp-contract=off);
 * the arms not selected may divide by zero or make NaNs (gray pixels), which are discarded.
 * @nv holds the new Values of the pixels. Returns the number of pixels done. */
LB_XV_CLONES static int
sharpen_rgb8_row4 (const guint8 *restrict in, guint8 *restrict out, const double *restrict nv,
                   const double *restrict lut, int n)
{
  int k;

  for (k = 0; k + 4 <= n; k += 4)
    {
      const guint8 *px = in + 3 * k;
      const LbV4d rd = { lut[px[0]], lut[px[3]], lut[px[6]], lut[px[9]] };
      const LbV4d gd = { lut[px[1]], lut[px[4]], lut[px[7]], lut[px[10]] };
      const LbV4d bd = { lut[px[2]], lut[px[5]], lut[px[8]], lut[px[11]] };
      const LbV4d v = { nv[k], nv[k + 1], nv[k + 2], nv[k + 3] };
      const LbV4d zero = { 0.0, 0.0, 0.0, 0.0 };
      LbV4d mx = rd, mn = rd, del, s, h, hh, fr, p, q, t, cr, cg, cb;
      LbV4i j, o[3], og;
      LbV4l jl;

      mx = sel4 (gd > mx, gd, mx);
      mx = sel4 (bd > mx, bd, mx);
      mn = sel4 (gd < mn, gd, mn);
      mn = sel4 (bd < mn, bd, mn);
      del = mx - mn;
      s = del / mx;
      /* Only the two quotients the hue needs (the same divisions of the same operands):
       * r max: bc − gc; g max: 2 + rc − bc; else 4 + gc − rc. (0 + x) − y is x − y for
       * the x ≥ 0 here, zero signs included. */
      {
        const LbV4l rmax = rd == mx, gmax = gd == mx;
        const LbV4d two = { 2.0, 2.0, 2.0, 2.0 }, four = { 4.0, 4.0, 4.0, 4.0 };
        const LbV4d n1 = sel4 (rmax, mx - bd, sel4 (gmax, mx - rd, mx - gd));
        const LbV4d n2 = sel4 (rmax, mx - gd, sel4 (gmax, mx - bd, mx - rd));
        const LbV4d base = sel4 (rmax, zero, sel4 (gmax, two, four));

        h = (base + n1 / del) - n2 / del;
      }
      h = h * 60.0;
      h = sel4 (h < 0.0, h + 360.0, h);
      h = sel4 (h == 360.0, zero, h);
      hh = h / 60.0;
      j = __builtin_convertvector (hh, LbV4i);
      fr = hh - __builtin_convertvector (j, LbV4d);
      p = v * (1.0 - s);
      q = v * (1.0 - s * fr);
      t = v * (1.0 - s * (1.0 - fr));
      jl = __builtin_convertvector (j, LbV4l);
      /* Sectors: 1 (q,v,p) 2 (p,v,t) 3 (p,q,v) 4 (t,p,v) 5 (v,p,q), any other as 0 (v,t,p). */
      cr = sel4 (jl == 1, q, v);
      cr = sel4 (jl == 2, p, cr);
      cr = sel4 (jl == 3, p, cr);
      cr = sel4 (jl == 4, t, cr);
      cg = sel4 (jl == 1, v, t);
      cg = sel4 (jl == 2, v, cg);
      cg = sel4 (jl == 3, q, cg);
      cg = sel4 (jl == 4, p, cg);
      cg = sel4 (jl == 5, p, cg);
      cb = sel4 (jl == 2, t, p);
      cb = sel4 (jl == 3, v, cb);
      cb = sel4 (jl == 4, v, cb);
      cb = sel4 (jl == 5, q, cb);
      o[0] = __builtin_convertvector (cr * 255.0 + 0.5, LbV4i);
      o[1] = __builtin_convertvector (cg * 255.0 + 0.5, LbV4i);
      o[2] = __builtin_convertvector (cb * 255.0 + 0.5, LbV4i);
      og = __builtin_convertvector (v * 255.0 + 0.5, LbV4i);
      for (int l = 0; l < 4; l++)
        {
          const guint8 *c = px + 3 * l;
          const gboolean gray = c[0] == c[1] && c[1] == c[2];

          for (int m = 0; m < 3; m++)
            out[3 * (k + l) + m] = (guint8) (gray ? og[l] : MIN (o[m][l], 255));
        }
    }
  return k;
}

/* The new Values nv[1 .. ] of columns 1 .. rw−2, four at a time, with the scalar loop's
 * operations in the same order (sum of the nine Values row by row, left to right; then
 * (v − (f·s)/9)/g and the clamp to [0, 1]). Returns the number of columns done. */
LB_XV_CLONES static int
new_values4 (const double *restrict a, const double *restrict b, const double *restrict c,
             double *restrict nv, double f, double g, int rw)
{
  const LbV4d zero = { 0.0, 0.0, 0.0, 0.0 }, one = { 1.0, 1.0, 1.0, 1.0 };
  int k;

  for (k = 0; k + 4 <= rw - 2; k += 4)
    {
      const int j = 1 + k;
      LbV4d s, v, x;

#define LD4(p) (memcpy (&x, (p), sizeof x), x)
      s = LD4 (a + j - 1);
      s = s + LD4 (a + j);
      s = s + LD4 (a + j + 1);
      s = s + LD4 (b + j - 1);
      s = s + LD4 (b + j);
      s = s + LD4 (b + j + 1);
      s = s + LD4 (c + j - 1);
      s = s + LD4 (c + j);
      s = s + LD4 (c + j + 1);
      v = (LD4 (b + j) - (f * s) / 9.0) / g;
#undef LD4
      v = sel4 (v < 0.0, zero, v);
      v = sel4 (v > 1.0, one, v);
      memcpy (nv + j, &v, sizeof v);
    }
  return k;
}

/* value_row() for RGB8 (n pixels from @row): max of the samples, then the table. */
LB_XV_CLONES static void
value_row_rgb8 (const guint8 *restrict row, const double *restrict lut, double *restrict v, int n)
{
  for (int x = 0; x < n; x++)
    {
      const guint8 r = row[3 * x], g = row[3 * x + 1], b = row[3 * x + 2];
      const guint8 m1 = r > g ? r : g;

      v[x] = lut[m1 > b ? m1 : b];
    }
}

/* Values of the region part of source row y into @v (rw doubles). */
LB_XV_INLINE void
value_row (const LbKernelBuf *src, const LbXvRegion *R, int y, const double *lut, double *v,
           const int depth)
{
  const int ch = src->channels, nc = lb_xv_colour_channels (ch);
  const guint8 *row = lb_xv_row (src, y);

  if (depth == 8 && ch == 3)
    {
      value_row_rgb8 (row + (gsize) R->x0 * 3, lut, v, R->x1 - R->x0);
      return;
    }
  for (int x = R->x0; x < R->x1; x++)
    {
      guint m = lb_xv_get (row, (gsize) x * ch, depth);

      /* max of the samples first: dividing is monotonic, so max(s)/top == max(s/top). */
      for (int c = 1; c < nc; c++)
        m = MAX (m, lb_xv_get (row, (gsize) x * ch + c, depth));
      v[x - R->x0] = depth == 8 ? lut[m] : m / 65535.0;
    }
}

LB_XV_INLINE void
sharpen_fast_rows (const LbXvSharpen *self,
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
  const double top = depth == 8 ? 255.0 : 65535.0;
  double lut[256];
  g_autofree double *buf = NULL;
  g_autofree double *nv = NULL;
  double *vr[3];
  int have = -1; /* the last source row whose Values are in vr[2] */

  if (rw < 3 || R->y1 - R->y0 < 3)
    {
      for (int y = ya; y < yb; y++)
        copy_span (src, dst, y, R->x0, R->x1, depth);
      return;
    }

  for (int i = 0; i < 256; i++)
    lut[i] = i / 255.0;
  buf = g_new (double, 3 * (gsize) rw);
  nv = g_new (double, rw);
  vr[0] = buf, vr[1] = buf + rw, vr[2] = buf + 2 * rw;

  for (int y = ya; y < yb; y++)
    {
      const guint8 *in = lb_xv_row (src, y);
      guint8 *out = lb_xv_row_mut (dst, y);

      if (y == R->y0 || y == R->y1 - 1)
        {
          copy_span (src, dst, y, R->x0, R->x1, depth);
          continue;
        }
      /* Slide the three rows of Values to y-1, y, y+1, computing only what is new. */
      if (have == y)
        {
          double *t = vr[0];
          vr[0] = vr[1], vr[1] = vr[2], vr[2] = t;
          value_row (src, R, y + 1, lut, vr[2], depth);
        }
      else
        {
          for (int k = 0; k < 3; k++)
            value_row (src, R, y - 1 + k, lut, vr[k], depth);
        }
      have = y + 1;

      {
        const double *restrict a = vr[0], *restrict b = vr[1], *restrict c = vr[2];
        const double f = self->f, g = self->g;

        /* Same order as the reference: row y-1, then y, then y+1, left to right. */
        for (int j = 1 + new_values4 (a, b, c, nv, f, g, rw); j < rw - 1; j++)
          {
            double s = a[j - 1];
            double v;

            s = s + a[j];
            s = s + a[j + 1];
            s = s + b[j - 1];
            s = s + b[j];
            s = s + b[j + 1];
            s = s + c[j - 1];
            s = s + c[j];
            s = s + c[j + 1];
            v = (b[j] - (f * s) / 9.0) / g;
            v = v < 0.0 ? 0.0 : v;
            v = v > 1.0 ? 1.0 : v;
            nv[j] = v;
          }
      }

      copy_span (src, dst, y, R->x0, R->x0 + 1, depth);
      copy_span (src, dst, y, R->x1 - 1, R->x1, depth);
      if (nc == 3)
        for (int j = (depth == 8 && ch == 3)
                       ? 1 + sharpen_rgb8_row4 (in + (gsize) (R->x0 + 1) * 3,
                                                out + (gsize) (R->x0 + 1) * 3, nv + 1, lut,
                                                rw - 2)
                       : 1;
             j < rw - 1; j++)
          {
            const gsize i = (gsize) (R->x0 + j) * ch;
            const guint r = lb_xv_get (in, i, depth), g = lb_xv_get (in, i + 1, depth),
                        b = lb_xv_get (in, i + 2, depth);
            guint rgb[3];

            if (r == g && g == b)
              rgb[0] = rgb[1] = rgb[2] = (guint) (int) (nv[j] * top + 0.5);
            else
              sharpen_colour_fast (r, g, b, nv[j], top, lut, rgb, depth);
            lb_xv_put (out, i, rgb[0], depth);
            lb_xv_put (out, i + 1, rgb[1], depth);
            lb_xv_put (out, i + 2, rgb[2], depth);
          }
      else
        for (int j = 1; j < rw - 1; j++)
          lb_xv_put (out, (gsize) (R->x0 + j) * ch, (guint) (int) (nv[j] * top + 0.5), depth);
    }
}

void
lb_xv_sharpen_process (const LbXvSharpen *self,
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
    sharpen_fast_rows (self, src, dst, y0, y1, 8);
  else
    sharpen_fast_rows (self, src, dst, y0, y1, 16);
}
