/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-render.h"

G_BEGIN_DECLS

/*
 * Small pictures of images (the study panel's series thumbnails), through the same grey
 * pipeline as the canvas (lb-render.h), without GTK.
 */

/**
 * lb_thumbnail_default_voi:
 *
 * The window an image opens with, as the canvas chooses it: the file's first window preset
 * (PS3.3 C.11.2.1.2), else its first VOI LUT, else the whole sample range for 8-bit samples,
 * else the 1st–99th percentile of the histogram (pixel padding left out). @voi->lut is owned
 * by the image's value model.
 */
void    lb_thumbnail_default_voi (LbImage  *image,
                                  LbVoi    *voi);

/**
 * lb_thumbnail_render:
 * @max_side: the longer side of the result, in pixels
 * @out_width: (out): the result's width (the image's aspect ratio kept)
 * @out_height: (out)
 *
 * @image scaled to fit @max_side × @max_side (nearest neighbour, up or down) with its default
 * window, as opaque native-endian ARGB32 rows of 4 × @out_width bytes (GDK_MEMORY_DEFAULT).
 */
GBytes *lb_thumbnail_render      (LbImage  *image,
                                  guint     max_side,
                                  guint    *out_width,
                                  guint    *out_height);

G_END_DECLS
