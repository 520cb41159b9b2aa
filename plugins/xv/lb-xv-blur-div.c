/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-blur"

/* xv's blur: the reciprocals its fast paths divide by (BLUR_FLOAT_EXACT_LIMIT and
 * blur_div_corrected in lb-xv-blur-private.h say why they are exact). */

#include <math.h>

#include "lb-xv-blur-private.h"

float
_lb_xv_blur_recip_up (guint32 count)
{
  float inv = 1.0f / (float) count;

  /* float × guint32 < 2^24 · 2^32 is exact in double. */
  while ((double) inv * (double) count < 1.0)
    inv = nextafterf (inv, 2.0f);
  return inv;
}

guint
_lb_xv_blur_div_corrected (guint32 s, guint32 count)
{
  return blur_div_corrected (s, 1.0f / (float) count, count);
}

/* Per sample of the clipped columns (j < jlo or j ≥ jhi; the window is ny rows high), the
 * reciprocal of its window's pixel count: in @finv (float, rounded up as _lb_xv_blur_recip_up) when
 * it is not NULL, else in @dinv (double). Recomputed only when ny changes. */
void
_lb_xv_blur_clipped_recips (int rw, int r, int ch, int jlo, int jhi, guint32 ny, float *finv,
                            double *dinv)
{
  for (int j = 0; j < rw; j++)
    {
      guint32 nj;

      if (j == jlo && jhi > jlo)
        j = jhi;
      if (j >= rw)
        break;
      nj = (guint32) (MIN (rw - 1, j + r) - MAX (0, j - r) + 1) * ny;
      for (int c = 0; c < ch; c++)
        if (finv != NULL)
          finv[j * ch + c] = _lb_xv_blur_recip_up (nj);
        else
          dinv[j * ch + c] = 1.0 / (double) nj;
    }
}

guint
_lb_xv_blur_div_float (guint32 s, guint32 count)
{
  return (guint) (gint32) ((float) (gint32) s * _lb_xv_blur_recip_up (count));
}
