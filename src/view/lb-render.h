/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-image.h"

G_BEGIN_DECLS

/*
 * The display path of the canvas, free of GTK so that tests and bench/ can run it without a
 * display. GTK 4.8 has no gray texture formats, so Lightbox windows every sample into an
 * 8-bit display value itself: a lookup table indexed by the sample (65536 entries for 16-bit,
 * 256 for 8-bit) maps sample → real-world value (Modality LUT) → VOI → presentation → byte.
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

/* The VOI transformation the display applies (PS3.3 C.11.2): a window in real-world units with
 * its VOI LUT Function, or a VOI LUT Sequence table instead when @lut is set. */
typedef struct {
  LbVoiFunction     function;
  double            center;
  double            width;
  const LbValueLut *lut;
} LbVoi;

/* The VOI output for real-world value @x, from 0 (black) to 255 (white) before the
 * presentation LUT, not yet rounded:
 * - LINEAR (C.11.2.1.2.1): x ≤ c − 0.5 − (w − 1)/2 → 0; x > c − 0.5 + (w − 1)/2 → 255; else
 *   ((x − (c − 0.5)) / (w − 1) + 0.5) × 255. The standard requires w ≥ 1: a narrower window is
 *   taken as w = 1, a step at c − 0.5.
 * - LINEAR_EXACT (C.11.2.1.3.2): (x − c) / w + 0.5, clamped, times 255.
 * - SIGMOID (C.11.2.1.3.1): 255 / (1 + exp(−4 (x − c) / w)).
 * - a VOI LUT: the entry for x, scaled from 0 … 2^bits − 1 to 0 … 255. */
double lb_voi_apply (const LbVoi *voi,
                     double       x);

/* Display lookup table: 65536 entries for 16-bit formats, 256 for 8-bit. */
typedef struct {
  guint   n_entries;
  guint8 *table;
} LbLut;

/**
 * lb_lut_build:
 * @bit_depth: of the samples, 8 or 16
 * @model: (nullable): what the samples mean; NULL: each sample is its own value
 * @invert: the user's Invert, relative to the photometric interpretation
 *
 * The whole grey pipeline of PS3.3 for every sample: sample → Modality LUT (@model) → VOI
 * (@voi, lb_voi_apply()) → rounded to a byte → presentation (inverted when the model's
 * Presentation LUT Shape is INVERSE, or without a shape for MONOCHROME1: see
 * lb_value_model_get_presentation_inverse(); and again for @invert).
 */
void lb_lut_build (LbLut              *lut,
                   guint               bit_depth,
                   const LbValueModel *model,
                   const LbVoi        *voi,
                   gboolean            invert);
void lb_lut_clear (LbLut *lut);

/* The real-world value of @sample under @model (NULL: the sample itself). */
double lb_sample_value (const LbValueModel *model,
                        guint               sample);

/* 65536- or 256-bin histogram of the first channel of rows [y0, y1), added to @hist. */
void lb_histogram_add_rows (guint64              *hist,
                            const LbRenderSource *src,
                            guint                 y0,
                            guint                 y1);
/* Window from the @lo / @hi fractions (e.g. 0.01, 0.99) of @hist, in real-world units of
 * @model (nullable). Pixel padding is not anatomy and is left out (PS3.3 C.7.5.1.1.2). The
 * width is at least 1, as LINEAR requires. Returns FALSE if no sample counts. */
gboolean lb_histogram_window (const guint64      *hist,
                              guint               n_bins,
                              const LbValueModel *model,
                              double              lo,
                              double              hi,
                              double             *center,
                              double             *width);

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

/* The inverse of lb_view_to_image(): continuous image coordinates → the output point (device
 * pixels, continuous) that shows them. Measurements are drawn through it, so their points stay
 * in image coordinates whatever the zoom, rotation and flip. */
void     lb_view_from_image    (const LbViewTransform *view,
                                guint                  width,
                                guint                  height,
                                double                 out_w,
                                double                 out_h,
                                double                 ix,
                                double                 iy,
                                double                *ox,
                                double                *oy);

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
