/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-common"

#include "lb-xv-common.h"

gboolean
_lb_xv_region_init (LbXvRegion         *region,
                    const LbKernelBuf  *src,
                    const LbKernelRect *selection,
                    const char         *what,
                    GError            **error)
{
  gint64 x0, y0, x1, y1;

  g_return_val_if_fail (region != NULL, FALSE);
  g_return_val_if_fail (src != NULL, FALSE);

  if (src->depth != 8 && src->depth != 16)
    {
      g_set_error (error, LB_KERNEL_ERROR, LB_KERNEL_ERROR_UNSUPPORTED,
                   "%s: %d bits per sample is not supported (8 or 16)", what, src->depth);
      return FALSE;
    }
  if (src->channels < 1 || src->channels > 4)
    {
      g_set_error (error, LB_KERNEL_ERROR, LB_KERNEL_ERROR_UNSUPPORTED,
                   "%s: %d channels are not supported (1 to 4)", what, src->channels);
      return FALSE;
    }
  if (src->width < 1 || src->height < 1 || src->data == NULL
      || src->stride < (gsize) src->width * (gsize) src->channels * (gsize) (src->depth / 8))
    {
      g_set_error (error, LB_KERNEL_ERROR, LB_KERNEL_ERROR_INVALID_ARGUMENT,
                   "%s: invalid image buffer (%d×%d, stride %" G_GSIZE_FORMAT ")",
                   what, src->width, src->height, src->stride);
      return FALSE;
    }

  if (selection == NULL)
    {
      x0 = 0, y0 = 0, x1 = src->width, y1 = src->height;
    }
  else
    {
      /* 64-bit so that x + width cannot overflow. */
      x0 = MAX ((gint64) selection->x, 0);
      y0 = MAX ((gint64) selection->y, 0);
      x1 = MIN ((gint64) selection->x + selection->width, (gint64) src->width);
      y1 = MIN ((gint64) selection->y + selection->height, (gint64) src->height);
      if (selection->width < 1 || selection->height < 1 || x1 <= x0 || y1 <= y0)
        {
          g_set_error (error, LB_KERNEL_ERROR, LB_KERNEL_ERROR_INVALID_ARGUMENT,
                       "%s: the selection %d,%d %d×%d does not overlap the %d×%d image",
                       what, selection->x, selection->y, selection->width, selection->height,
                       src->width, src->height);
          return FALSE;
        }
    }
  region->x0 = (int) x0;
  region->y0 = (int) y0;
  region->x1 = (int) x1;
  region->y1 = (int) y1;
  return TRUE;
}

gboolean
_lb_xv_same_geometry (const LbKernelBuf *src,
                      const LbKernelBuf *dst)
{
  return src != NULL && dst != NULL && src->width == dst->width && src->height == dst->height
         && src->channels == dst->channels && src->depth == dst->depth && dst->data != NULL
         && dst->stride >= (gsize) dst->width * (gsize) dst->channels * (gsize) (dst->depth / 8);
}
