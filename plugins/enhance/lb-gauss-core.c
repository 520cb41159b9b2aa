/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-gauss-core"

#include "lb-gauss-core.h"

#include <math.h>
#include <string.h>

#include "lb-enhance.h"
#include "lb-kernel-layout.h"

gboolean
lb_gauss_core_init (LbGaussCore        *core,
                    const LbKernelBuf  *src,
                    const LbKernelRect *region,
                    double              sigma,
                    const char         *what,
                    GError            **error)
{
  memset (core, 0, sizeof *core);
  if (!lb_kernel_check_and_clip (src, region, &core->r, error))
    return FALSE;
  if (!(sigma >= LB_GAUSSIAN_SIGMA_MIN && sigma <= LB_GAUSSIAN_SIGMA_MAX))
    {
      g_set_error (error, LB_KERNEL_ERROR, LB_KERNEL_ERROR_INVALID_ARGUMENT,
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

/* Sample i of a row of @depth bits, and the exact integer sum of sample i of two rows
 * (at most 2 · 65535) converted once, as the reference does. Inlined with a constant depth. */
static G_ALWAYS_INLINE inline float
sample_at (const guint8 *row,
           gsize         i,
           int           depth)
{
  return depth == 16 ? (float) ((const guint16 *) (const void *) row)[i] : (float) row[i];
}

static G_ALWAYS_INLINE inline float
pair_at (const guint8 *m,
         const guint8 *p,
         gsize         i,
         int           depth)
{
  if (depth == 16)
    return (float) ((guint32) ((const guint16 *) (const void *) m)[i]
                    + ((const guint16 *) (const void *) p)[i]);
  return (float) (guint16) (m[i] + p[i]);
}

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

#define ROW(k) (lb_kbuf_row (src, y + (k)) + off)
  if (lo == -hi)
    {
      const guint8 *s0 = ROW (0);
      float tc = t[-lo];

      for (gsize i = 0; i < ns; i++)
        v[i] = tc * sample_at (s0, i, depth);
      /* Pairs k … k + 3 in one sweep over the row: each sample's additions stay in the
       * order above, and v is loaded and stored once per four pairs instead of once per
       * pair (gaussian σ 5, 15 pairs: 16 sweeps became 7, the last three pairs one by one). */
      for (int k = 1; k <= hi; k += 4)
        {
          const float *tk = t + k - lo;

          if (hi - k >= 3)
            {
              const guint8 *m0 = ROW (-k), *p0 = ROW (k), *m1 = ROW (-k - 1), *p1 = ROW (k + 1);
              const guint8 *m2 = ROW (-k - 2), *p2 = ROW (k + 2), *m3 = ROW (-k - 3);
              const guint8 *p3 = ROW (k + 3);

              for (gsize i = 0; i < ns; i++)
                {
                  float a = v[i];

                  a += tk[0] * pair_at (m0, p0, i, depth);
                  a += tk[1] * pair_at (m1, p1, i, depth);
                  a += tk[2] * pair_at (m2, p2, i, depth);
                  a += tk[3] * pair_at (m3, p3, i, depth);
                  v[i] = a;
                }
            }
          else
            for (int j = 0; j <= hi - k; j++)
              {
                const guint8 *mj = ROW (-k - j), *pj = ROW (k + j);

                for (gsize i = 0; i < ns; i++)
                  v[i] += tk[j] * pair_at (mj, pj, i, depth);
              }
        }
      return;
    }
  for (gsize i = 0; i < ns; i++)
    v[i] = 0.0f;
  for (int k = lo; k <= hi; k++)
    {
      const guint8 *s = ROW (k);
      float tk = t[k - lo];

      for (gsize i = 0; i < ns; i++)
        v[i] += tk * sample_at (s, i, depth);
    }
#undef ROW
}

/* The @ch horizontal output samples of pixel x (region-relative) into @out, in the shared
 * evaluation order. The clipped taps are computed once for all channels: per sample, they
 * had been 3.5 % of an RGB8 gaussian σ 5 pass. */
static inline void
horizontal_pixel (const LbGaussCore *core,
                  const float       *v,
                  int                ch,
                  int                x,
                  float             *out,
                  float             *tapbuf)
{
  int r = core->radius, sw = core->r.width;
  int lo = MAX (-r, -x), hi = MIN (r, sw - 1 - x);
  const float *t = clipped_taps (core, lo, hi, tapbuf);

  for (int c = 0; c < ch; c++)
    {
      const float *vc = v + (gsize) x * ch + c;
      float acc;

      if (lo == -hi)
        {
          acc = t[-lo] * vc[0];
          for (int k = 1; k <= hi; k++)
            acc += t[k - lo] * (vc[-(gssize) k * ch] + vc[(gssize) k * ch]);
        }
      else
        {
          acc = 0.0f;
          for (int k = lo; k <= hi; k++)
            acc += t[k - lo] * vc[(gssize) k * ch];
        }
      out[(gsize) x * ch + c] = acc;
    }
}

/* Static: GCC 12 exports the ifunc of a global target_clones function whatever its
 * visibility, and a plugin exports its query function only (tests/abi/plugin-exports.sh). */
LB_KERNEL_CLONES static void
gauss_core_row (const LbGaussCore *core,
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
    /* four taps per sweep, in order, as in vertical_fast */
    for (int k = 1; k <= r; k += 4)
      {
        const float *tk = core->full + k + r;
        const float *vm = v - (gssize) k * ch, *vp = v + (gssize) k * ch;

        if (r - k >= 3)
          {
            const gssize d = ch;

            for (gsize i = i0; i < i1; i++)
              {
                float a = out[i];

                a += tk[0] * (vm[i] + vp[i]);
                a += tk[1] * (vm[i - d] + vp[i + d]);
                a += tk[2] * (vm[i - 2 * d] + vp[i + 2 * d]);
                a += tk[3] * (vm[i - 3 * d] + vp[i + 3 * d]);
                out[i] = a;
              }
          }
        else
          for (int j = 0; j <= r - k; j++)
            {
              const float *vmj = vm - (gssize) j * ch, *vpj = vp + (gssize) j * ch;

              for (gsize i = i0; i < i1; i++)
                out[i] += tk[j] * (vmj[i] + vpj[i]);
            }
      }
  }
  /* edges: per-pixel clipped taps */
  for (int x = 0; x < sw; x++)
    {
      if (x == xi0)
        x = xi1;
      if (x >= sw)
        break;
      horizontal_pixel (core, v, ch, x, out, tapbuf);
    }
}

void
lb_gauss_core_row (const LbGaussCore *core,
                   const LbKernelBuf *src,
                   int                y,
                   float             *out,
                   float             *scratch)
{
  gauss_core_row (core, src, y, out, scratch);
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
    horizontal_pixel (core, v, ch, x, out, tapbuf);
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
