/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-sharpen"

#include "lb-xv-sharpen.h"

#include <math.h>
#include <string.h>

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
      g_set_error (error, LB_KERNEL_ERROR, LB_KERNEL_ERROR_INVALID_ARGUMENT,
                   "sharpen: the enhancement factor must be between 0 and 99 %%, not %d",
                   strength);
      return FALSE;
    }
  if (!_lb_xv_region_init (&self->region, src, selection, "sharpen", error))
    return FALSE;
  self->strength = strength;
  self->f = strength / 100.0;
  self->g = 1.0 - self->f;
  self->no_simd = FALSE;
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

LB_XV_DEFINE_PROCESS (lb_xv_sharpen_process_ref, LbXvSharpen, sharpen_ref_rows)

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

/* Lane-wise m ? a : b by bits (m is all ones or all zeros per lane): exact. A macro, since a
 * function returning a 32-byte vector has a different ABI with and without AVX. */
#define sel4(m, a, b) ((LbV4d) (((LbV4l) (m) & (LbV4l) (a)) | (~(LbV4l) (m) & (LbV4l) (b))))

/* The new Values nv[1 .. ] of columns 1 .. rw−2, four at a time, with the scalar loop's
 * operations in the same order (sum of the nine Values row by row, left to right; then
 * (v − (f·s)/9)/g and the clamp to [0, 1]). Returns the number of columns done. */
LB_KERNEL_CLONES static int
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

/* 16-bit gray (the medical images'): the Values s / 65535 of @n samples, and the output
 * samples ⌊v · 65535 + 1/2⌋ of @n new Values, as flat loops the compiler vectorises (the
 * same double operations as one sample at a time: a true division, no contraction). */
LB_KERNEL_CLONES static void
values_gray16 (const guint16 *restrict in, double *restrict v, int n)
{
  for (int i = 0; i < n; i++)
    v[i] = in[i] / 65535.0;
}

LB_KERNEL_CLONES static void
store_gray16 (const double *restrict nv, guint16 *restrict out, int n)
{
  for (int i = 0; i < n; i++)
    out[i] = (guint16) (int) (nv[i] * 65535.0 + 0.5);
}

/* Values of the region part of source row y into @v (rw doubles). */
LB_XV_INLINE void
value_row (const LbKernelBuf *src, const LbXvRegion *R, int y, const double *lut, double *v,
           const int depth)
{
  const int ch = src->channels, nc = lb_xv_colour_channels (ch);
  const guint8 *row = lb_xv_row (src, y);

  if (depth == 16 && ch == 1)
    {
      values_gray16 ((const guint16 *) (const void *) row + R->x0, v, R->x1 - R->x0);
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
        for (int j = 1; j < rw - 1; j++)
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
      else if (depth == 16 && ch == 1)
        store_gray16 (nv + 1, (guint16 *) (void *) out + R->x0 + 1, rw - 2);
      else
        for (int j = 1; j < rw - 1; j++)
          lb_xv_put (out, (gsize) (R->x0 + j) * ch, (guint) (int) (nv[j] * top + 0.5), depth);
    }
}

/* ---- 8 bits: the same results from exact integers ----------------------------------------
 *
 * With n the strength, K the centre's Value sample (the largest colour sample, 0..255), S the
 * sum of the nine Value samples of the 3×3 and k_c a colour sample of the centre, xv's doubles
 * approximate exact rationals: v' = (900 K − n S) / (255 B) with B = 9 (100 − n), clamped to
 * [0, 1], i.e. v' = A' / (255 B) with A' = clamp (900 K − n S, 0, 255 B); and hsv2rgb with the
 * centre's hue and saturation only rescales the centre's colour, so the exact output sample is
 *
 *   out_c = ⌊x_c⌋,  x_c = k_c · v' · 255 / K + 1/2 = (2 k_c A' + B K) / (2 B K)   (K ≥ 1)
 *
 * (K = 0 is black: every sample 0, and A' = 0 gives 0 as well). x_c is a fraction with a
 * denominator ≤ 2 · 900 · 255 = 459000, so when it is not an integer it lies at least 2.1e-6
 * from one, while xv's double evaluation (a few dozen correctly rounded operations on values
 * ≤ 360, the division by g ≥ 0.01 included) stays within 1e-10 of x_c, and our own
 * x̃_c = k_c · (A' · (1 / (B K))) + 1/2 within 1e-12. So ⌊x̃_c⌋ is xv's sample unless x̃_c is
 * within 1e-9 of an integer, which only happens when x_c is an integer: there xv's rounding
 * could go either way, and the pixel is recomputed the reference way (about 0.6 % of the
 * pixels of a photograph at strength 75: x_c is often a simple fraction).
 * The tests /xv-a/sharpen-exact/… compare this with the reference over every (K, S) for gray and
 * over millions of colour cases, every strength. */

#define SHARPEN_NEAR 1e-9

/* The largest colour sample of each of n pixels. */
LB_XV_INLINE void
kmax_row (const guint8 *restrict row, guint8 *restrict k, int n, const int ch, const int nc)
{
  for (int x = 0; x < n; x++)
    {
      guint8 m = row[x * ch];

      if (nc == 3)
        {
          m = row[x * ch + 1] > m ? row[x * ch + 1] : m;
          m = row[x * ch + 2] > m ? row[x * ch + 2] : m;
        }
      k[x] = m;
    }
}

/* Per interior column j (1 .. rw−2) the weight w = A' / (B K) into the samples of pixel j of
 * @ws (alpha samples get 1.0, which gives back the source sample). */
LB_XV_INLINE void
sharpen8_weights (const guint8 *restrict ka, const guint8 *restrict kb,
                  const guint8 *restrict kc, guint16 *restrict cs, const double *restrict inv,
                  int n, int b, int rw, double *restrict ws, const int ch, const int nc)
{
  const int hi = 255 * b;

  for (int j = 0; j < rw; j++)
    cs[j] = (guint16) (ka[j] + kb[j] + kc[j]);
  for (int j = 1; j < rw - 1; j++)
    {
      const int s = cs[j - 1] + cs[j] + cs[j + 1];
      int a = 900 * kb[j] - n * s;
      double w;

      a = a < 0 ? 0 : a;
      a = a > hi ? hi : a;
      w = (double) a * inv[kb[j]];
      for (int c = 0; c < ch; c++)
        ws[j * ch + c] = c < nc ? w : 1.0;
    }
}

/* Samples ch .. (rw−1)·ch − 1 (the interior columns, as one flat run); bad[i] is set where
 * x̃ is within 1e-9 of an integer. Returns nonzero if any is. */
LB_XV_INLINE int
sharpen8_samples (const guint8 *restrict in, guint8 *restrict out, const double *restrict ws,
                  guint8 *restrict bad, int rw, const int ch)
{
  int any = 0;

  for (int i = ch; i < (rw - 1) * ch; i++)
    {
      const double t = in[i] * ws[i] + 0.5;
      const int q = (int) t;
      const double d = (t - q) - 0.5;
      const guint8 near = (d < -0.5 + SHARPEN_NEAR) | (d > 0.5 - SHARPEN_NEAR);

      out[i] = (guint8) q;
      bad[i] = near;
      any |= near;
    }
  return any;
}

#define SHARPEN8_VARIANT(ch_, nc_)                                                            \
  LB_KERNEL_CLONES static void                                                                \
  kmax_row_##ch_ (const guint8 *row, guint8 *k, int n)                                        \
  {                                                                                           \
    kmax_row (row, k, n, ch_, nc_);                                                           \
  }                                                                                           \
  LB_KERNEL_CLONES static void                                                                \
  sharpen8_weights_##ch_ (const guint8 *ka, const guint8 *kb, const guint8 *kc, guint16 *cs,  \
                          const double *inv, int n, int b, int rw, double *ws)               \
  {                                                                                           \
    sharpen8_weights (ka, kb, kc, cs, inv, n, b, rw, ws, ch_, nc_);                           \
  }                                                                                           \
  LB_KERNEL_CLONES static int                                                                 \
  sharpen8_samples_##ch_ (const guint8 *in, guint8 *out, const double *ws, guint8 *bad,      \
                          int rw)                                                             \
  {                                                                                           \
    return sharpen8_samples (in, out, ws, bad, rw, ch_);                                      \
  }

SHARPEN8_VARIANT (1, 1)
SHARPEN8_VARIANT (2, 1)
SHARPEN8_VARIANT (3, 3)
SHARPEN8_VARIANT (4, 3)

/* One interior pixel (x, y) the reference way, for the ties: the same double operations as
 * the reference (Values from a table of the same quotients, the Value of a pixel as the
 * quotient of its largest sample, sharpen_colour_fast() for the colour), so the same bits. */
static void
sharpen_pixel_ref8 (const LbXvSharpen *self, const LbKernelBuf *src, LbKernelBuf *dst,
                    const double *lut, int x, int y)
{
  const int ch = src->channels, nc = lb_xv_colour_channels (ch);
  const guint8 *in = lb_xv_row (src, y) + (gsize) x * ch;
  guint8 *out = lb_xv_row_mut (dst, y) + (gsize) x * ch;
  double vsum = 0.0, nv;

  for (int dy = -1; dy <= 1; dy++)
    {
      const guint8 *row = lb_xv_row (src, y + dy);

      for (int dx = -1; dx <= 1; dx++)
        {
          const guint8 *p = row + (gsize) (x + dx) * ch;
          guint m = p[0];

          if (nc == 3)
            m = MAX (m, MAX ((guint) p[1], (guint) p[2]));
          vsum += lut[m];
        }
    }
  nv = sharpen_value (self, lut[nc == 3 ? MAX (in[0], MAX (in[1], in[2])) : in[0]], vsum);
  if (nc == 1 || (in[0] == in[1] && in[1] == in[2]))
    {
      const guint8 v = (guint8) (int) (nv * 255.0 + 0.5);

      for (int c = 0; c < nc; c++)
        out[c] = v;
    }
  else
    {
      guint rgb[3];

      sharpen_colour_fast (in[0], in[1], in[2], nv, 255.0, lut, rgb, 8);
      for (int c = 0; c < 3; c++)
        out[c] = (guint8) rgb[c];
    }
}

#if LB_XV_HAVE_AVX2_PATH
#include <immintrin.h>

/* ---- 8 bits, AVX2: a float first pass over the exact-integer formula ----------------------
 *
 * x_c = k_c · w + 1/2 with w = A' / (B K) (see above), eight pixels per step, all in float:
 * 900 K − n S and B K are exact (integers < 2^24), w is one correctly rounded division, then
 * a product and a sum, so x̃_c (≤ 255.5 + rounding) lies within 4 · 2^-24 · 256 < 7e-5 of
 * x_c. Where x̃_c is at least 2^-12 (2.4e-4) from an integer, ⌊x̃_c⌋ = ⌊x_c⌋ is xv's sample (x_c
 * is then no integer, so xv's doubles round it the same way, see above). The other pixels
 * (every exact tie, and about 0.05 % more per sample) are listed and recomputed the reference
 * way by the caller. Alpha samples take the weight 1 and come back unchanged (x̃ = k + 1/2). */
#define SHARPEN8_FLOAT_NEAR (1.0f / 4096.0f)

__attribute__ ((target ("avx2"), always_inline)) static inline int
sharpen8_row_avx2 (const guint8 *restrict ka, const guint8 *restrict kb,
                   const guint8 *restrict kc, guint16 *restrict cs, const guint8 *restrict in,
                   guint8 *restrict out, int rw, int n, int b, int *restrict todo, const int ch)
{
  const __m256 v900 = _mm256_set1_ps (900.0f), vn = _mm256_set1_ps ((float) n);
  const __m256 vhi = _mm256_set1_ps ((float) (255 * b)), vb = _mm256_set1_ps ((float) b);
  const __m256 zero = _mm256_setzero_ps (), one = _mm256_set1_ps (1.0f);
  const __m256 half = _mm256_set1_ps (0.5f);
  const __m256 lim = _mm256_set1_ps (0.5f - SHARPEN8_FLOAT_NEAR);
  const __m256 absmask = _mm256_castsi256_ps (_mm256_set1_epi32 (0x7fffffff));
  const __m256i order = _mm256_setr_epi32 (0, 4, 1, 5, 2, 6, 3, 7);
  const int last = rw - 1 - 8; /* the last step starts here (overlapping the one before) */
  __m256i perm[4];
  __m256 alpha[4];
  int nt = 0;

  /* sample v·8 + lane of a step belongs to pixel (v·8 + lane) / ch; alpha is channel ch − 1
   * of 2 and 4 channels */
  for (int v = 0; v < ch; v++)
    {
      int idx[8], am[8];

      for (int lane = 0; lane < 8; lane++)
        {
          idx[lane] = (v * 8 + lane) / ch;
          am[lane] = ((ch == 2 || ch == 4) && (v * 8 + lane) % ch == ch - 1) ? -1 : 0;
        }
      perm[v] = _mm256_loadu_si256 ((const __m256i *) (const void *) idx);
      alpha[v] = _mm256_castsi256_ps (_mm256_loadu_si256 ((const __m256i *) (const void *) am));
    }
  for (int j = 0; j < rw; j++)
    cs[j] = (guint16) (ka[j] + kb[j] + kc[j]);

  for (int j0 = 1; j0 < rw - 1; j0 += 8)
    {
      __m128i s16;
      __m256 k, s, a, w;
      __m256i q[4];
      const guint8 *src;
      guint8 *dst;

      if (j0 > last)
        j0 = last;
      src = in + (gsize) j0 * ch;
      dst = out + (gsize) j0 * ch;
      s16 = _mm_add_epi16 (_mm_add_epi16 (_mm_loadu_si128 ((const __m128i *) (const void *) (cs + j0 - 1)),
                                          _mm_loadu_si128 ((const __m128i *) (const void *) (cs + j0))),
                           _mm_loadu_si128 ((const __m128i *) (const void *) (cs + j0 + 1)));
      s = _mm256_cvtepi32_ps (_mm256_cvtepu16_epi32 (s16));
      k = _mm256_cvtepi32_ps (_mm256_cvtepu8_epi32 (_mm_loadl_epi64 ((const __m128i *) (const void *) (kb + j0))));
      a = _mm256_sub_ps (_mm256_mul_ps (v900, k), _mm256_mul_ps (vn, s));
      a = _mm256_min_ps (_mm256_max_ps (a, zero), vhi);
      /* K = 0: A' = 0 too, and 0 / 1 = 0 */
      w = _mm256_div_ps (a, _mm256_max_ps (_mm256_mul_ps (vb, k), one));
      for (int v = 0; v < ch; v++)
        {
          __m256 wv = _mm256_blendv_ps (_mm256_permutevar8x32_ps (w, perm[v]), one, alpha[v]);
          __m256 x = _mm256_cvtepi32_ps (_mm256_cvtepu8_epi32 (_mm_loadl_epi64 ((const __m128i *) (const void *) (src + 8 * v))));
          __m256 t = _mm256_add_ps (_mm256_mul_ps (x, wv), half);
          __m256i qi = _mm256_cvttps_epi32 (t); /* t > 0: truncation is floor */
          __m256 d = _mm256_sub_ps (_mm256_sub_ps (t, _mm256_cvtepi32_ps (qi)), half);
          int near = _mm256_movemask_ps (_mm256_cmp_ps (_mm256_and_ps (d, absmask), lim, _CMP_GT_OQ));

          q[v] = qi;
          while (near != 0)
            {
              const int px = j0 + (v * 8 + __builtin_ctz ((unsigned) near)) / ch;

              if (nt == 0 || todo[nt - 1] != px)
                todo[nt++] = px;
              near &= near - 1;
            }
        }
      {
        const __m256i p01 = _mm256_packus_epi32 (q[0], ch > 1 ? q[1] : q[0]);
        const __m256i p23 = _mm256_packus_epi32 (ch > 2 ? q[2] : q[0], ch > 3 ? q[3] : q[0]);
        const __m256i bytes = _mm256_permutevar8x32_epi32 (_mm256_packus_epi16 (p01, p23), order);

        if (ch == 4)
          _mm256_storeu_si256 ((__m256i *) (void *) dst, bytes);
        else
          {
            if (ch >= 2)
              _mm_storeu_si128 ((__m128i *) (void *) dst, _mm256_castsi256_si128 (bytes));
            else
              _mm_storel_epi64 ((__m128i *) (void *) dst, _mm256_castsi256_si128 (bytes));
            if (ch == 3)
              _mm_storel_epi64 ((__m128i *) (void *) (dst + 16), _mm256_extracti128_si256 (bytes, 1));
          }
      }
      if (j0 == last)
        break;
    }
  return nt;
}

#define SHARPEN8_AVX2_VARIANT(ch_)                                                            \
  __attribute__ ((target ("avx2"))) static int                                                \
  sharpen8_row_avx2_##ch_ (const guint8 *ka, const guint8 *kb, const guint8 *kc, guint16 *cs, \
                           const guint8 *in, guint8 *out, int rw, int n, int b, int *todo)   \
  {                                                                                           \
    return sharpen8_row_avx2 (ka, kb, kc, cs, in, out, rw, n, b, todo, ch_);                  \
  }

SHARPEN8_AVX2_VARIANT (1)
SHARPEN8_AVX2_VARIANT (2)
SHARPEN8_AVX2_VARIANT (3)
SHARPEN8_AVX2_VARIANT (4)
#endif

static void
sharpen8_rows (const LbXvSharpen *self,
               const LbKernelBuf *src,
               LbKernelBuf       *dst,
               int                ya,
               int                yb)
{
  const LbXvRegion *R = &self->region;
  const int ch = src->channels;
  const int rw = R->x1 - R->x0;
  const int b = 9 * (100 - self->strength);
  const gsize xoff = (gsize) R->x0 * ch;
  void (*kmax) (const guint8 *, guint8 *, int);
  void (*weights) (const guint8 *, const guint8 *, const guint8 *, guint16 *, const double *,
                   int, int, int, double *);
  int (*samples) (const guint8 *, guint8 *, const double *, guint8 *, int);
  double inv[256], lut[256];
  g_autofree guint8 *kbuf = NULL;
  g_autofree guint8 *bad = NULL;
  g_autofree guint16 *cs = NULL;
  g_autofree double *ws = NULL;
  g_autofree int *todo = NULL;
  guint8 *kr[3];
#if LB_XV_HAVE_AVX2_PATH
  int (*row_avx2) (const guint8 *, const guint8 *, const guint8 *, guint16 *, const guint8 *,
                   guint8 *, int, int, int, int *) = NULL;
#endif
  int have = -1; /* the last source row whose Values are in kr[2] */

  if (rw < 3 || R->y1 - R->y0 < 3)
    {
      for (int y = ya; y < yb; y++)
        copy_span (src, dst, y, R->x0, R->x1, 8);
      return;
    }
  switch (ch)
    {
    case 1: kmax = kmax_row_1, weights = sharpen8_weights_1, samples = sharpen8_samples_1; break;
    case 2: kmax = kmax_row_2, weights = sharpen8_weights_2, samples = sharpen8_samples_2; break;
    case 3: kmax = kmax_row_3, weights = sharpen8_weights_3, samples = sharpen8_samples_3; break;
    default: kmax = kmax_row_4, weights = sharpen8_weights_4, samples = sharpen8_samples_4; break;
    }
#if LB_XV_HAVE_AVX2_PATH
  /* eight interior pixels per step, the last step overlapping: needs at least eight */
  if (!self->no_simd && rw - 2 >= 8 && lb_kernel_have_avx2 ())
    switch (ch)
      {
      case 1: row_avx2 = sharpen8_row_avx2_1; break;
      case 2: row_avx2 = sharpen8_row_avx2_2; break;
      case 3: row_avx2 = sharpen8_row_avx2_3; break;
      default: row_avx2 = sharpen8_row_avx2_4; break;
      }
#endif
  inv[0] = 0.0;
  for (int k = 1; k < 256; k++)
    inv[k] = 1.0 / (double) (b * k);
  for (int k = 0; k < 256; k++)
    lut[k] = k / 255.0;
  kbuf = g_new (guint8, 3 * (gsize) rw);
  bad = g_new (guint8, (gsize) rw * ch);
  cs = g_new (guint16, rw);
  ws = g_new0 (double, (gsize) rw * ch);
  todo = g_new (int, (gsize) rw + 8);
  kr[0] = kbuf, kr[1] = kbuf + rw, kr[2] = kbuf + 2 * rw;

  for (int y = ya; y < yb; y++)
    {
      const guint8 *in = lb_xv_row (src, y) + xoff;
      guint8 *out = lb_xv_row_mut (dst, y) + xoff;

      if (y == R->y0 || y == R->y1 - 1)
        {
          copy_span (src, dst, y, R->x0, R->x1, 8);
          continue;
        }
      if (have == y)
        {
          guint8 *t = kr[0];
          kr[0] = kr[1], kr[1] = kr[2], kr[2] = t;
          kmax (lb_xv_row (src, y + 1) + xoff, kr[2], rw);
        }
      else
        for (int k = 0; k < 3; k++)
          kmax (lb_xv_row (src, y - 1 + k) + xoff, kr[k], rw);
      have = y + 1;

      copy_span (src, dst, y, R->x0, R->x0 + 1, 8);
      copy_span (src, dst, y, R->x1 - 1, R->x1, 8);
#if LB_XV_HAVE_AVX2_PATH
      if (row_avx2 != NULL)
        {
          const int nt = row_avx2 (kr[0], kr[1], kr[2], cs, in, out, rw, self->strength, b, todo);

          /* after the whole row: the overlapping last step may have rewritten a listed pixel */
          for (int t = 0; t < nt; t++)
            sharpen_pixel_ref8 (self, src, dst, lut, R->x0 + todo[t], y);
          continue;
        }
#endif
      weights (kr[0], kr[1], kr[2], cs, inv, self->strength, b, rw, ws);
      if (!samples (in, out, ws, bad, rw))
        continue;
      /* The ties, found eight flags at a time (bad[] is zero but for them). */
      for (int i = ch; i < (rw - 1) * ch;)
        {
          guint64 word = 0;

          if (i + 8 <= (rw - 1) * ch)
            memcpy (&word, bad + i, 8);
          if (i + 8 <= (rw - 1) * ch && word == 0)
            {
              i += 8;
              continue;
            }
          if (bad[i])
            {
              const int j = i / ch;

              sharpen_pixel_ref8 (self, src, dst, lut, R->x0 + j, y);
              i = (j + 1) * ch;
            }
          else
            i++;
        }
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

  if (!_lb_xv_clip_rows (&self->region, &y0, &y1))
    return;
  if (src->depth == 8)
    sharpen8_rows (self, src, dst, y0, y1);
  else
    sharpen_fast_rows (self, src, dst, y0, y1, 16);
}
