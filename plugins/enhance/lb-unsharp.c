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

typedef void (*RowFunc) (const LbGaussCore *, const LbKernelBuf *, int, float *, float *);

static void
run (const LbUnsharp   *st,
     const LbKernelBuf *src,
     LbKernelBuf       *dst,
     int                y0,
     int                y1,
     RowFunc            row_func)
{
  const LbKernelRect *r = &st->core.r;
  int ch = src->channels, nc = lb_kbuf_color_channels (src), maxv = lb_kbuf_max_value (src);
  gsize ns = (gsize) r->width * ch;
  g_autofree float *blur = NULL;
  g_autofree float *scratch = NULL;

  y0 = MAX (y0, r->y);
  y1 = MIN (y1, r->y + r->height);
  if (y0 >= y1 || r->width == 0)
    return;
  blur = g_new (float, ns);
  scratch = g_new (float, lb_gauss_core_scratch_floats (&st->core, src));
  for (int y = y0; y < y1; y++)
    {
      const guint8 *srow = lb_kbuf_row (src, y);
      guint8 *drow = lb_kbuf_row (dst, y);

      row_func (&st->core, src, y, blur, scratch);
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
}

void
lb_unsharp_process (const LbUnsharp   *st,
                    const LbKernelBuf *src,
                    LbKernelBuf       *dst,
                    int                y0,
                    int                y1)
{
  run (st, src, dst, y0, y1, lb_gauss_core_row);
}

void
lb_unsharp_process_reference (const LbUnsharp   *st,
                              const LbKernelBuf *src,
                              LbKernelBuf       *dst,
                              int                y0,
                              int                y1)
{
  run (st, src, dst, y0, y1, lb_gauss_core_row_reference);
}
