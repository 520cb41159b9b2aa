/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-unsharp"

#include "lb-enhance.h"

#include <math.h>

#include "lb-gauss-core.h"
#include "lb-kernel-layout.h"

struct _LbUnsharp {
  LbGaussCore core;
  float amount;
  float threshold;   /* in native sample units */
};

LbUnsharp *
lb_unsharp_prepare (const LbKernelBuf     *src,
                    const LbKernelRect    *region,
                    const LbUnsharpParams *params,
                    GError               **error)
{
  LbUnsharp *st = g_new0 (LbUnsharp, 1);

  if (!lb_gauss_core_init (&st->core, src, region, params->radius, "Unsharp radius", error))
    {
      lb_unsharp_free (st);
      return NULL;
    }
  if (!(params->amount >= 0.0 && params->amount <= 10.0))
    {
      g_set_error (error, LB_KERNEL_ERROR, LB_KERNEL_ERROR_INVALID_ARGUMENT,
                   "Unsharp amount must be between 0 and 10 (got %g)", params->amount);
      lb_unsharp_free (st);
      return NULL;
    }
  if (!(params->threshold >= 0.0 && params->threshold <= 255.0))
    {
      g_set_error (error, LB_KERNEL_ERROR, LB_KERNEL_ERROR_INVALID_ARGUMENT,
                   "Unsharp threshold must be between 0 and 255 (got %g)", params->threshold);
      lb_unsharp_free (st);
      return NULL;
    }
  st->amount = (float) params->amount;
  st->threshold = (float) (src->depth == 16 ? params->threshold * 257.0 : params->threshold);
  return st;
}

void
lb_unsharp_free (LbUnsharp *st)
{
  if (st == NULL)
    return;
  lb_gauss_core_clear (&st->core);
  g_free (st);
}

/* @n samples of @s sharpened against their blurred values @blur into @d: where the
 * difference reaches the threshold, s + amount · (s − blur) rounded and clamped to 0..@maxv,
 * else s. One flat loop per sample type, which the compiler vectorises (the same float
 * operations in the same order as one sample at a time: no contraction, -ffp-contract=off). */
#define UNSHARP_SAMPLES(T, sfx)                                                              \
  LB_KERNEL_CLONES static void                                                              \
  unsharp_samples_##sfx (const T *restrict s, const float *restrict blur, T *restrict d,    \
                         gsize n, float amount, float threshold, int maxv)                  \
  {                                                                                         \
    for (gsize i = 0; i < n; i++)                                                           \
      {                                                                                     \
        const float sf = (float) s[i], diff = sf - blur[i];                                 \
        int v = (int) ((sf + amount * diff) + 0.5f);                                        \
                                                                                            \
        v = v < 0 ? 0 : v > maxv ? maxv : v;                                                \
        d[i] = fabsf (diff) < threshold ? s[i] : (T) v;                                     \
      }                                                                                     \
  }
UNSHARP_SAMPLES (guint8, u8)
UNSHARP_SAMPLES (guint16, u16)
#undef UNSHARP_SAMPLES

/* Region row @y of @src sharpened against its blurred copy @blur, into @dst: every sample,
 * alpha too, and alpha put back from the source. */
static void
sharpen_row (gconstpointer      data,
             const LbKernelBuf *src,
             LbKernelBuf       *dst,
             int                y,
             const float       *blur)
{
  const LbUnsharp *st = data;
  const LbKernelRect *r = &st->core.r;
  const int ch = src->channels;
  const gsize ns = (gsize) r->width * ch, off = (gsize) r->x * ch;

  if (src->depth == 8)
    unsharp_samples_u8 (lb_kbuf_row (src, y) + off, blur, lb_kbuf_row (dst, y) + off, ns,
                        st->amount, st->threshold, 255);
  else
    unsharp_samples_u16 ((const guint16 *) (const void *) lb_kbuf_row (src, y) + off, blur,
                         (guint16 *) (void *) lb_kbuf_row (dst, y) + off, ns, st->amount,
                         st->threshold, 65535);
  lb_kernel_restore_alpha (src, dst, y, r->x, r->x + r->width);
}

void
lb_unsharp_process (const LbUnsharp   *st,
                    const LbKernelBuf *src,
                    LbKernelBuf       *dst,
                    int                y0,
                    int                y1)
{
  lb_gauss_core_run (&st->core, src, dst, y0, y1, lb_gauss_core_row, sharpen_row, st);
}

void
lb_unsharp_process_reference (const LbUnsharp   *st,
                              const LbKernelBuf *src,
                              LbKernelBuf       *dst,
                              int                y0,
                              int                y1)
{
  lb_gauss_core_run (&st->core, src, dst, y0, y1, lb_gauss_core_row_reference, sharpen_row,
                     st);
}
