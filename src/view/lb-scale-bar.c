/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>

#include "lb-scale-bar.h"

double
lb_scale_bar_mm_per_pixel (double spacing_x,
                           double spacing_y,
                           guint  rotation,
                           double zoom)
{
  if (!(spacing_x > 0) || !(spacing_y > 0) || !(zoom > 0))
    return 0;
  /* a quarter turn puts the image's columns (spaced by the row spacing) across the screen */
  return ((rotation & 1) ? spacing_y : spacing_x) / zoom;
}

gboolean
lb_scale_bar_choose (double  mm_per_pixel,
                     double  max_pixels,
                     double *length_mm,
                     double *length_pixels)
{
  static const double steps[] = { 5, 2, 1 };

  if (!(mm_per_pixel > 0) || !(max_pixels > 0) || !isfinite (mm_per_pixel))
    return FALSE;
  /* from 5 m down to 1 µm: the first that fits is the longest */
  for (int e = 6; e >= -3; e--)
    for (guint s = 0; s < G_N_ELEMENTS (steps); s++)
      {
        double mm = steps[s] * pow (10, e);
        double px = mm / mm_per_pixel;

        if (px <= max_pixels)
          {
            *length_mm = mm;
            *length_pixels = px;
            return TRUE;
          }
      }
  return FALSE;
}

char *
lb_scale_bar_format (double length_mm)
{
  /* %g prints the round lengths without trailing zeros: 0.5, 10, 200 */
  if (length_mm >= 1000)
    return g_strdup_printf ("%g m", length_mm / 1000);
  return g_strdup_printf ("%g mm", length_mm);
}
