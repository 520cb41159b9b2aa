/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-unsharp"

#include "lb-enhance.h"

#include <math.h>

#include "lb-error.h"
#include "lb-gauss-core.h"
#include "lb-xvgeom-private.h"

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
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "Unsharp amount must be between 0 and 10 (got %g)", params->amount);
      lb_unsharp_free (st);
      return NULL;
    }
  if (!(params->threshold >= 0.0 && params->threshold <= 255.0))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
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

/* Region row @y of @src sharpened against its blurred copy @blur, into @dst. */
static void
sharpen_row (gconstpointer      data,
             const LbKernelBuf *src,
             LbKernelBuf       *dst,
             int                y,
             const float       *blur)
{
  const LbUnsharp *st = data;
  const LbKernelRect *r = &st->core.r;
  int ch = src->channels, nc = lb_kbuf_color_channels (src), maxv = lb_kbuf_max_value (src);
  const guint8 *srow = lb_kbuf_row (src, y);
  guint8 *drow = lb_kbuf_row (dst, y);

  for (int x = 0; x < r->width; x++)
    for (int c = 0; c < nc; c++)
      {
        gsize i = (gsize) x * ch + c, si = (gsize) r->x * ch + i;
        int s = lb_kbuf_get (src, srow, si);
        float d = (float) s - blur[i];
        int v;

        if (fabsf (d) < st->threshold)
          v = s;
        else
          {
            float val = (float) s + st->amount * d;

            v = (int) (val + 0.5f);
            v = CLAMP (v, 0, maxv);
          }
        lb_kbuf_set (dst, drow, si, v);
      }
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
