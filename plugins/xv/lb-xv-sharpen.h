/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* xv "Sharpen" (spec §2): an unsharp mask on the HSV Value. Kernel contract: see
 * lb-xv-common.h. */

#include "lb-xv-common.h"

G_BEGIN_DECLS

/**
 * LbXvSharpen:
 * @region: the selection clipped to the image
 * @strength: the "enhancement factor" n, 0 ≤ n ≤ 99 (xv's default 75)
 * @f: n / 100.0
 * @g: 1.0 − f
 * @no_simd: tests: %TRUE makes lb_xv_sharpen_process() take its portable loops instead of
 *   the AVX2 row (prepare sets %FALSE)
 *
 * Only the interior of the region changes (nothing at all when it is narrower or shorter than
 * 3 pixels); the ring keeps the source values. For an interior pixel with Value
 * V = max(colour channels) / M (M = 255.0, or 65535.0 at 16 bits; a double):
 * vsum = Σ V over the 3×3 neighbourhood, added row by row, left to right;
 * v' = clamp((V − (f·vsum)/9) / g, 0, 1); the output is hsv2rgb(H, S, v') with the centre's
 * hue and saturation, each channel ⌊x·M + 0.5⌋ clamped to 0..M. Gray images have S = 0, so
 * the output is ⌊v'·M + 0.5⌋. Plain IEEE double maths in the order of the spec; the project
 * compiles with -ffp-contract=off, which the bit-exactness depends on.
 */
typedef struct {
  LbXvRegion region;
  int strength;
  double f;
  double g;
  gboolean no_simd;
} LbXvSharpen;

gboolean lb_xv_sharpen_prepare     (LbXvSharpen        *self,
                                    const LbKernelBuf  *src,
                                    const LbKernelRect *selection,
                                    int                 strength,
                                    GError            **error);
/* Plain reference: every pixel recomputes the nine Values from the samples. */
void     lb_xv_sharpen_process_ref (const LbXvSharpen  *self,
                                    const LbKernelBuf  *src,
                                    LbKernelBuf        *dst,
                                    int                 y0,
                                    int                 y1);
/* Identical output to the reference. 8 bits: exact integers (the Value sums of the 3×3 and
 * one weight per pixel, vectorised), with the rare exact ties of xv's rounding recomputed in
 * xv's doubles (see lb-xv-sharpen.c for why this is exact); on AVX2 CPUs a float pass over
 * eight pixels at a time decides all but the ties and the pixels near them, which take the
 * same recomputation. 16 bits: Values computed once
 * per source row and kept for three rows, the same double operations in the same order. */
void     lb_xv_sharpen_process     (const LbXvSharpen  *self,
                                    const LbKernelBuf  *src,
                                    LbKernelBuf        *dst,
                                    int                 y0,
                                    int                 y1);

G_END_DECLS
