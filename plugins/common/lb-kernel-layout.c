/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-kernel-layout"

#include "lb-kernel-layout.h"

gboolean
lb_kernel_check_and_clip (const LbKernelBuf  *src,
                          const LbKernelRect *region,
                          LbKernelRect       *out_region,
                          GError            **error)
{
  int x0, y0, x1, y1;

  if (src == NULL || src->data == NULL)
    {
      g_set_error (error, LB_KERNEL_ERROR, LB_KERNEL_ERROR_INVALID_ARGUMENT, "No source pixels");
      return FALSE;
    }
  if (src->channels < 1 || src->channels > 4 || (src->depth != 8 && src->depth != 16))
    {
      g_set_error (error, LB_KERNEL_ERROR, LB_KERNEL_ERROR_UNSUPPORTED,
                   "Unsupported sample layout: %d channels at %d bits", src->channels,
                   src->depth);
      return FALSE;
    }
  if (src->width < 0 || src->height < 0
      || src->stride < (gsize) src->width * (gsize) src->channels * (gsize) (src->depth / 8))
    {
      g_set_error (error, LB_KERNEL_ERROR, LB_KERNEL_ERROR_INVALID_ARGUMENT,
                   "Bad buffer geometry: %d×%d, stride %" G_GSIZE_FORMAT, src->width,
                   src->height, src->stride);
      return FALSE;
    }
  if (region == NULL)
    {
      *out_region = (LbKernelRect) { 0, 0, src->width, src->height };
      return TRUE;
    }
  if (region->width < 0 || region->height < 0)
    {
      g_set_error (error, LB_KERNEL_ERROR, LB_KERNEL_ERROR_INVALID_ARGUMENT,
                   "Bad selection size %d×%d", region->width, region->height);
      return FALSE;
    }
  /* 64-bit so that huge selections cannot overflow while clipping */
  x0 = (int) CLAMP ((gint64) region->x, 0, src->width);
  y0 = (int) CLAMP ((gint64) region->y, 0, src->height);
  x1 = (int) CLAMP ((gint64) region->x + region->width, 0, src->width);
  y1 = (int) CLAMP ((gint64) region->y + region->height, 0, src->height);
  *out_region = (LbKernelRect) { x0, y0, MAX (0, x1 - x0), MAX (0, y1 - y0) };
  return TRUE;
}
