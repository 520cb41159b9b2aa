/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-image.h"

G_BEGIN_DECLS

/*
 * The display path of the canvas, free of GTK so that tests and bench/ can run it without a
 * display. GTK 4.8 has no gray texture formats, so Lightbox windows every sample into an
 * 8-bit display value itself: a lookup table indexed by the stored sample (65536 entries for
 * 16-bit, 256 for 8-bit) maps stored value → modality value (rescale) → window/level → byte.
 * Only the device pixels the widget shows are computed, nearest neighbour.
 */

/* Pixels being shown: an LbImage or a buffer a progressive decoder is still filling. */
typedef struct {
  const guint8   *data;
  gsize           stride;
  guint           width;
  guint           height;
  LbSampleFormat  format;
} LbRenderSource;

void lb_render_source_from_image (LbRenderSource *src,
                                  LbImage        *image);

/* How stored samples map to modality units (e.g. Hounsfield): value × slope + intercept,
 * with two's-complement samples when @is_signed. */
typedef struct {
  gboolean is_signed;
  double   slope;
  double   intercept;
} LbValueMap;

void   lb_value_map_from_meta   (LbValueMap        *map,
                                 const LbImageMeta *meta);
double lb_value_map_apply       (const LbValueMap  *map,
                                 guint              stored);

/* Display lookup table: 65536 entries for 16-bit formats, 256 for 8-bit. */
typedef struct {
  guint   n_entries;
  guint8 *table;
} LbLut;

/* Builds @lut for samples of @bit_depth with window @center/@width in modality units.
 * Linear ramp from (center - width/2) → 0 to (center + width/2) → 255, inverted on request. */
void lb_lut_build (LbLut            *lut,
                   guint             bit_depth,
                   const LbValueMap *map,
                   double            center,
                   double            width,
                   gboolean          invert);
void lb_lut_clear (LbLut *lut);

/* 65536- or 256-bin histogram of the first channel of rows [y0, y1), added to @hist. */
void lb_histogram_add_rows (guint64              *hist,
                            const LbRenderSource *src,
                            guint                 y0,
                            guint                 y1);
/* Window from the @lo / @hi fractions (e.g. 0.01, 0.99) of @hist, in modality units.
 * Returns FALSE if the histogram is empty. */
gboolean lb_histogram_window (const guint64    *hist,
                              guint             n_bins,
                              const LbValueMap *map,
                              double            lo,
                              double            hi,
                              double           *center,
                              double           *width);

/* The view: zoom in device pixels per image pixel, the point of the rotated/flipped image at
 * the centre of the output, quarter turns clockwise and a horizontal flip (after rotation). */
typedef struct {
  double   zoom;
  double   center_x;
  double   center_y;
  guint    rotation;
  gboolean flip;
} LbViewTransform;

/* Size of the image as the view shows it (width and height swap on odd rotations). */
void     lb_view_rotated_size  (const LbViewTransform *view,
                                guint                  width,
                                guint                  height,
                                double                *out_w,
                                double                *out_h);
/* Maps an output point (device pixels, continuous) to continuous image coordinates. */
void     lb_view_to_image      (const LbViewTransform *view,
                                guint                  width,
                                guint                  height,
                                double                 out_w,
                                double                 out_h,
                                double                 ox,
                                double                 oy,
                                double                *ix,
                                double                *iy);

/**
 * lb_render_view:
 * @out: @out_w × @out_h opaque pixels, native-endian ARGB32 (GDK_MEMORY_DEFAULT), @out_stride
 *   bytes apart
 * @split_x: output columns < @split_x show @before (if non-NULL) with @before_lut
 *
 * Renders the part of @src the view shows. Pixels outside the image are black.
 */
void lb_render_view (guint8                *out,
                     gsize                  out_stride,
                     guint                  out_w,
                     guint                  out_h,
                     const LbViewTransform *view,
                     const LbRenderSource  *src,
                     const LbLut           *lut,
                     const LbRenderSource  *before,
                     const LbLut           *before_lut,
                     guint                  split_x);

G_END_DECLS
