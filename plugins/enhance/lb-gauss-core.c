/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-gauss-core"

#include "lb-gauss-core.h"

#include <math.h>
#include <string.h>

#include "lb-enhance.h"
#include "lb-error.h"
#include "lb-xvgeom-private.h"
#include "lb-xvgeom.h"

gboolean
lb_gauss_core_init (LbGaussCore        *core,
                    const LbKernelBuf  *src,
                    const LbKernelRect *region,
                    double              sigma,
                    const char         *what,
                    GError            **error)
{
  memset (core, 0, sizeof *core);
  if (!lb_xvgeom_check_and_clip (src, region, &core->r, error))
    return FALSE;
  if (!(sigma >= LB_GAUSSIAN_SIGMA_MIN && sigma <= LB_GAUSSIAN_SIGMA_MAX))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "%s must be between %g and %g pixels (got %g)", what,
                   LB_GAUSSIAN_SIGMA_MIN, LB_GAUSSIAN_SIGMA_MAX, sigma);
      return FALSE;
    }
  core->radius = (int) ceil (3.0 * sigma);
  core->w = g_new (double, 2 * core->radius + 1);
  core->full = g_new (float, 2 * core->radius + 1);
  for (int k = -core->radius; k <= core->radius; k++)
    core->w[k + core->radius] = exp (-(double) k * k / (2.0 * sigma * sigma));
  {
    double sum = 0.0;

    for (int k = 0; k < 2 * core->radius + 1; k++)
      sum += core->w[k];
    for (int k = 0; k < 2 * core->radius + 1; k++)
      core->full[k] = (float) (core->w[k] / sum);
  }
  return TRUE;
}

void
lb_gauss_core_clear (LbGaussCore *core)
{
  g_clear_pointer (&core->w, g_free);
  g_clear_pointer (&core->full, g_free);
}

gsize
lb_gauss_core_scratch_floats (const LbGaussCore *core,
                              const LbKernelBuf *src)
{
  return (gsize) core->r.width * src->channels + 2 * (gsize) core->radius + 1;
}

/* Taps for offsets lo..hi (a window clipped by the region), renormalised in double; for the
 * unclipped window this computes exactly core->full. */
static const float *
clipped_taps (const LbGaussCore *core,
              int                lo,
              int                hi,
              float             *out)
{
  double sum = 0.0;

  if (lo == -core->radius && hi == core->radius)
    return core->full;
  for (int k = lo; k <= hi; k++)
    sum += core->w[k + core->radius];
  for (int k = lo; k <= hi; k++)
    out[k - lo] = (float) (core->w[k + core->radius] / sum);
  return out;
}

/* Evaluation order, shared by both paths so that they agree bit for bit: a window that is
 * symmetric (lo = −hi; always true away from the region's edges) adds mirrored samples first
 * — exactly, in integers for the vertical pass — and multiplies once per pair:
 *   acc = t₀·s₀;  acc += t_k·(s₋k + s_k) for k = 1 … hi.
 * A clipped, asymmetric window sums acc += t_k·s_k for k = lo … hi from acc = 0. */

static G_ALWAYS_INLINE inline void
vertical_fast (const LbGaussCore *core,
               const LbKernelBuf *src,
               int                y,
               float             *v,
               float             *tapbuf,
               int                depth)
{
  int r = core->radius;
  int lo = MAX (-r, core->r.y - y), hi = MIN (r, core->r.y + core->r.height - 1 - y);
  const float *t = clipped_taps (core, lo, hi, tapbuf);
  gsize ns = (gsize) core->r.width * src->channels;
  gsize off = (gsize) core->r.x * src->channels * (depth / 8);

#define ROW8(k) ((const guint8 *) lb_kbuf_row (src, y + (k)) + off)
#define ROW16(k) ((const guint16 *) (const void *) (lb_kbuf_row (src, y + (k)) + off))
  if (lo == -hi)
    {
      float tc = t[-lo];

      if (depth == 16)
        {
          const guint16 *s0 = ROW16 (0);

          for (gsize i = 0; i < ns; i++)
            v[i] = tc * (float) s0[i];
          for (int k = 1; k <= hi; k++)
            {
              const guint16 *sm = ROW16 (-k), *sp = ROW16 (k);
              float tk = t[k - lo];

              for (gsize i = 0; i < ns; i++)
                v[i] += tk * (float) ((guint32) sm[i] + sp[i]);
            }
        }
      else
        {
          const guint8 *s0 = ROW8 (0);

          for (gsize i = 0; i < ns; i++)
            v[i] = tc * (float) s0[i];
          for (int k = 1; k <= hi; k++)
            {
              const guint8 *sm = ROW8 (-k), *sp = ROW8 (k);
              float tk = t[k - lo];

              for (gsize i = 0; i < ns; i++)
                v[i] += tk * (float) (guint16) (sm[i] + sp[i]);
            }
        }
      return;
    }
  for (gsize i = 0; i < ns; i++)
    v[i] = 0.0f;
  for (int k = lo; k <= hi; k++)
    {
      float tk = t[k - lo];

      if (depth == 16)
        {
          const guint16 *s = ROW16 (k);

          for (gsize i = 0; i < ns; i++)
            v[i] += tk * (float) s[i];
        }
      else
        {
          const guint8 *s = ROW8 (k);

          for (gsize i = 0; i < ns; i++)
            v[i] += tk * (float) s[i];
        }
    }
#undef ROW8
#undef ROW16
}

/* one horizontal output sample, region-relative x, in the shared evaluation order */
static inline float
horizontal_point (const LbGaussCore *core,
                  const float       *v,
                  int                ch,
                  int                x,
                  int                c,
                  float             *tapbuf)
{
  int r = core->radius, sw = core->r.width;
  int lo = MAX (-r, -x), hi = MIN (r, sw - 1 - x);
  const float *t = clipped_taps (core, lo, hi, tapbuf);
  const float *vc = v + (gsize) x * ch + c;
  float acc;

  if (lo == -hi)
    {
      acc = t[-lo] * vc[0];
      for (int k = 1; k <= hi; k++)
        acc += t[k - lo] * (vc[-(gssize) k * ch] + vc[(gssize) k * ch]);
      return acc;
    }
  acc = 0.0f;
  for (int k = lo; k <= hi; k++)
    acc += t[k - lo] * vc[(gssize) k * ch];
  return acc;
}

LB_XVGEOM_TARGET_CLONES void
lb_gauss_core_row (const LbGaussCore *core,
                   const LbKernelBuf *src,
                   int                y,
                   float             *out,
                   float             *scratch)
{
  int r = core->radius, ch = src->channels, sw = core->r.width;
  float *v = scratch;
  float *tapbuf = scratch + (gsize) sw * ch;
  int xi0, xi1;   /* interior pixels (unclipped window), region-relative */

  if (src->depth == 16)
    vertical_fast (core, src, y, v, tapbuf, 16);
  else
    vertical_fast (core, src, y, v, tapbuf, 8);

  xi0 = MIN (r, sw);
  xi1 = MAX (xi0, sw - r);
  /* interior: a flat symmetric 1-D convolution with stride ch over the interleaved samples */
  {
    gsize i0 = (gsize) xi0 * ch, i1 = (gsize) xi1 * ch;
    float tc = core->full[r];

    for (gsize i = i0; i < i1; i++)
      out[i] = tc * v[i];
    for (int k = 1; k <= r; k++)
      {
        float tk = core->full[k + r];
        const float *vm = v - (gssize) k * ch, *vp = v + (gssize) k * ch;

        for (gsize i = i0; i < i1; i++)
          out[i] += tk * (vm[i] + vp[i]);
      }
  }
  /* edges: per-pixel clipped taps */
  for (int x = 0; x < sw; x++)
    {
      if (x == xi0)
        x = xi1;
      if (x >= sw)
        break;
      for (int c = 0; c < ch; c++)
        out[(gsize) x * ch + c] = horizontal_point (core, v, ch, x, c, tapbuf);
    }
}

/* Plain loops, one output value at a time, in the evaluation order above. */
void
lb_gauss_core_row_reference (const LbGaussCore *core,
                             const LbKernelBuf *src,
                             int                y,
                             float             *out,
                             float             *scratch)
{
  int r = core->radius, ch = src->channels, sw = core->r.width;
  float *v = scratch;
  float *tapbuf = scratch + (gsize) sw * ch;
  int lo = MAX (-r, core->r.y - y), hi = MIN (r, core->r.y + core->r.height - 1 - y);
  const float *t = clipped_taps (core, lo, hi, tapbuf);
  float tv[2 * r + 1];

  /* copy: the horizontal taps reuse tapbuf */
  for (int k = lo; k <= hi; k++)
    tv[k - lo] = t[k - lo];
  for (int x = 0; x < sw; x++)
    for (int c = 0; c < ch; c++)
      {
        gsize i = (gsize) (core->r.x + x) * ch + c;
        float acc;

#define S(k) lb_kbuf_get (src, lb_kbuf_row (src, y + (k)), i)
        if (lo == -hi)
          {
            acc = tv[-lo] * (float) S (0);
            for (int k = 1; k <= hi; k++)
              acc += tv[k - lo] * (float) (S (-k) + S (k));
          }
        else
          {
            acc = 0.0f;
            for (int k = lo; k <= hi; k++)
              acc += tv[k - lo] * (float) S (k);
          }
#undef S
        v[(gsize) x * ch + c] = acc;
      }
  for (int x = 0; x < sw; x++)
    for (int c = 0; c < ch; c++)
      out[(gsize) x * ch + c] = horizontal_point (core, v, ch, x, c, tapbuf);
}

/* Rows between progress ticks (see lb_gauss_core_run). */
#define GAUSS_TICK_ROWS 8

void
lb_gauss_core_run (const LbGaussCore *core,
                   const LbKernelBuf *src,
                   LbKernelBuf       *dst,
                   int                y0,
                   int                y1,
                   LbGaussRowFunc     row_func,
                   LbGaussEmitFunc    emit,
                   gconstpointer      data)
{
  const LbKernelRect *r = &core->r;
  g_autofree float *blurred = NULL;
  g_autofree float *scratch = NULL;

  y0 = MAX (y0, r->y);
  y1 = MIN (y1, r->y + r->height);
  if (y0 >= y1 || r->width == 0)
    return;
  blurred = g_new (float, (gsize) r->width * src->channels);
  scratch = g_new (float, lb_gauss_core_scratch_floats (core, src));
  for (int y = y0; y < y1; y++)
    {
      /* every GAUSS_TICK_ROWS rows: a row costs microseconds, and each tick that reaches
       * the host reads its clock */
      if ((y - y0) % GAUSS_TICK_ROWS == 0 && !lb_kernel_row_tick (dst, y, y0, y1))
        break;
      row_func (core, src, y, blurred, scratch);
      emit (data, src, dst, y, blurred);
    }
}
