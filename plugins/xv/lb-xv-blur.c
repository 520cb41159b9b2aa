/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-blur"

/* xv's blur: prepare, and the dispatcher that picks a path per call. The paths:
 * lb-xv-blur-ref.c (the reference), lb-xv-blur3.c (the 3×3 window), lb-xv-blur-rows8.c and
 * lb-xv-blur-rows16.c (running sums specialised per depth), lb-xv-blur-sums.c (the general
 * running sums); lb-xv-blur-div.c and lb-xv-blur-private.h hold what they share. */

#include "lb-xv-blur-private.h"

gboolean
lb_xv_blur_prepare (LbXvBlur           *self,
                    const LbKernelBuf  *src,
                    const LbKernelRect *selection,
                    int                 size,
                    GError            **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (size < 1 || size % 2 == 0 || size > 65535)
    {
      g_set_error (error, LB_KERNEL_ERROR, LB_KERNEL_ERROR_INVALID_ARGUMENT,
                   "blur: the mask size must be odd and between 1 and 65535, not %d", size);
      return FALSE;
    }
  if (!_lb_xv_region_init (&self->region, src, selection, "blur", error))
    return FALSE;
  self->size = size;
  return TRUE;
}

/* lb_xv_blur_process with or without the hand-written AVX2 rows (@avx2: the CPU has AVX2 and
 * the caller wants them). */
static void
blur_process (const LbXvBlur    *self,
              const LbKernelBuf *src,
              LbKernelBuf       *dst,
              int                y0,
              int                y1,
              gboolean           avx2)
{
  const LbXvRegion *R;
  double nmax;

  g_return_if_fail (self != NULL && _lb_xv_same_geometry (src, dst));

  R = &self->region;
  y0 = MAX (y0, R->y0);
  y1 = MIN (y1, R->y1);
  if (y0 >= y1 || self->size == 1)
    return;

  /* Window sums must fit the 32-bit running sums; windows above 65537 pixels at 16 bits
   * (n > 256 on a region that large) take the reference path. */
  nmax = (double) MIN (self->size, R->x1 - R->x0) * (double) MIN (self->size, R->y1 - R->y0);
  if ((double) lb_xv_max_value (src->depth) * nmax >= 4294967295.0)
    {
      lb_xv_blur_process_ref (self, src, dst, y0, y1);
      return;
    }
  if (src->depth == 8 && self->size == 3 && R->x1 - R->x0 >= 3 && R->y1 - R->y0 >= 3)
    _lb_xv_blur3_rows (self, src, dst, y0, y1);
  else if (src->depth == 8 && self->size <= 257)
    _lb_xv_blur_rows8 (self, src, dst, y0, y1, avx2);
  else if (src->depth == 8)
    _lb_xv_blur_sums_rows (self, src, dst, y0, y1);
  else if (self->size == 3 && lb_xv_colour_channels (src->channels) == src->channels
           && R->x1 - R->x0 >= 3 && R->y1 - R->y0 >= 3)
    _lb_xv_blur3_rows (self, src, dst, y0, y1);
  else if (lb_xv_colour_channels (src->channels) == src->channels && 65535.0 * nmax < 2147483648.0)
    _lb_xv_blur_rows16 (self, src, dst, y0, y1, avx2);
  else
    _lb_xv_blur_sums_rows (self, src, dst, y0, y1);
}

void
lb_xv_blur_process (const LbXvBlur    *self,
                    const LbKernelBuf *src,
                    LbKernelBuf       *dst,
                    int                y0,
                    int                y1)
{
#if LB_XV_HAVE_AVX2_PATH
  blur_process (self, src, dst, y0, y1, lb_kernel_have_avx2 ());
#else
  blur_process (self, src, dst, y0, y1, FALSE);
#endif
}

void
_lb_xv_blur_process_portable (const LbXvBlur    *self,
                              const LbKernelBuf *src,
                              LbKernelBuf       *dst,
                              int                y0,
                              int                y1)
{
  blur_process (self, src, dst, y0, y1, FALSE);
}
