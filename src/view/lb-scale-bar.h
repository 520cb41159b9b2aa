/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The scale bar of the overlay: a horizontal bar whose length on the screen is a round number
 * of millimetres (1, 2 or 5 × 10ⁿ mm), so that a reader can judge sizes at any zoom. GTK-free;
 * the workstation draws it. */

/**
 * lb_scale_bar_mm_per_pixel:
 * @spacing_x: the image's column spacing (mm between the centres of adjacent columns, the
 *   second value of PixelSpacing, PS3.3 10.7.1.3)
 * @spacing_y: its row spacing (the first value of PixelSpacing)
 * @rotation: quarter turns clockwise of the view (a flip changes no length)
 * @zoom: display pixels per image pixel
 *
 * Millimetres per display pixel along the screen's horizontal: the column spacing unless the
 * view is turned by a quarter (or three), when the screen's rows run along the image's
 * columns. 0 when any argument is not positive.
 */
double   lb_scale_bar_mm_per_pixel (double spacing_x,
                                    double spacing_y,
                                    guint  rotation,
                                    double zoom);

/**
 * lb_scale_bar_choose:
 * @mm_per_pixel: from lb_scale_bar_mm_per_pixel()
 * @max_pixels: the longest bar the view has room for (display pixels)
 * @length_mm: (out): the bar's length in mm, 1, 2 or 5 × 10ⁿ (n from −3 to 6)
 * @length_pixels: (out): the same in display pixels (@length_mm / @mm_per_pixel)
 *
 * The longest round length that fits in @max_pixels. FALSE when none does (a zero spacing,
 * or not even 1 µm fits).
 */
gboolean lb_scale_bar_choose       (double  mm_per_pixel,
                                    double  max_pixels,
                                    double *length_mm,
                                    double *length_pixels);

/* The bar's caption for @length_mm: "10 mm", "0.5 mm" (in the locale's digits), "2 m" from
 * 1 m up. Free with g_free(). */
char    *lb_scale_bar_format       (double  length_mm) G_GNUC_MALLOC;

G_END_DECLS
