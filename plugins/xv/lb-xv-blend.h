/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* xv "Blend" (spec §6): a radial fill from the mean border colour at the centre of the region
 * to the border colours, with quadratic falloff. Kernel contract: see lb-xv-common.h. */

#include "lb-xv-common.h"

G_BEGIN_DECLS

/**
 * LbXvBlend:
 * @region: the selection clipped to the image (the whole image is allowed)
 * @centre: per colour channel, (int)(Σ over the region's perimeter / (2·sw + 2·sh)): the top
 *   and bottom rows for every x, the left and right columns for every y (corners twice)
 * @active: %FALSE when the region is narrower or shorter than 3 pixels (then nothing changes)
 * @no_simd: tests: %TRUE makes lb_xv_blend_process() take its portable loops instead of the
 *   AVX2 rows (prepare sets %FALSE)
 *
 * For each interior pixel the border point E on the ray from the centre (cx, cy) = (sx + sw/2,
 * sy + sh/2) is found in integers as the spec describes; ratio = (d / d1)² with d, d1 the
 * double distances to the pixel and to E; out = clamp(C + (int)((S(E) − C)·ratio), 0, M),
 * M = 255 or 65535. 16 bits: the same maths (the products stay far below 2^31).
 */
typedef struct {
  LbXvRegion region;
  int centre[3];
  gboolean active;
  gboolean no_simd;
} LbXvBlend;

/* Computes the centre colour from the perimeter of the region of @src. */
gboolean lb_xv_blend_prepare     (LbXvBlend          *self,
                                  const LbKernelBuf  *src,
                                  const LbKernelRect *selection,
                                  GError            **error);
/* Plain reference, pow(·, 2.0) as xv. */
void     lb_xv_blend_process_ref (const LbXvBlend    *self,
                                  const LbKernelBuf  *src,
                                  LbKernelBuf        *dst,
                                  int                 y0,
                                  int                 y1);
/* Border point and ratio once per pixel for all channels, the steepness test in exact
 * integers and the ratio as (dx² + dy²) / d1² without square roots. On a CPU with AVX2, for
 * regions with (sw/2 + 1)² + (sh/2 + 1)² ≤ 2^24 (5790 × 5790, or 8190 wide if short): AVX2
 * rows, the border point exact from a float quotient estimate and one integer correction
 * step, the ratio and the products in float (see lb-xv-blend.c); the products as vectors for
 * GRAY8, RGB8, RGBA8 and GRAY16, one sample at a time (the same float operations) for the
 * other formats, so a channel's result never depends on the format around it. Otherwise
 * portable loops: the border point's
 * quotient truncated from a double quotient (exact below 2^50), ratio and products in double.
 * Either way the ratio can differ from xv's (d/d1)² in the last bits, so a sample may differ
 * from the reference by 1 (never more); the tests count how many do. Deterministic: the same
 * bytes for any band split. */
void     lb_xv_blend_process     (const LbXvBlend    *self,
                                  const LbKernelBuf  *src,
                                  LbKernelBuf        *dst,
                                  int                 y0,
                                  int                 y1);

/* Tests: the border points (ex, ey) and ratios the optimised path uses for the n = sw − 2
 * interior columns of row @y (sy < y < sy + sh − 1), from its AVX2 row when @simd and the CPU
 * has AVX2 and the region is small enough for it, else from its portable loop. Returns
 * whether the AVX2 row was used. */
gboolean _lb_xv_blend_row_points (const LbXvBlend *self,
                                  int              y,
                                  gboolean         simd,
                                  int             *ex,
                                  int             *ey,
                                  double          *ratio);

/* Tests: the reference's border point and ratio for interior pixel (x, y), not the centre
 * (what lb_xv_blend_process_ref uses). */
void     _lb_xv_blend_ref_point  (const LbXvBlend *self,
                                  int              x,
                                  int              y,
                                  int             *ex,
                                  int             *ey,
                                  double          *ratio);

G_END_DECLS
