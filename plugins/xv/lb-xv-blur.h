/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* xv "Blur": an n×n box mean (spec §1). Kernel contract: see lb-xv-common.h. */

#include "lb-xv-common.h"

G_BEGIN_DECLS

/**
 * LbXvBlur:
 * @region: the selection clipped to the image
 * @size: n, odd, 1 ≤ n ≤ 65535; n = 1 is the identity
 *
 * For every pixel of the region and every colour channel: the mean of the n×n window
 * centred on it, clipped to the region (no padding: the count N shrinks at the borders),
 * floor(Σ / N) in exact integer arithmetic. 16 bits: the same formula on 16-bit samples
 * (sums are exact, so no rounding differs from 8 bits).
 */
typedef struct {
  LbXvRegion region;
  int size;
} LbXvBlur;

gboolean lb_xv_blur_prepare     (LbXvBlur           *self,
                                 const LbKernelBuf  *src,
                                 const LbKernelRect *selection,
                                 int                 size,
                                 GError            **error);
/* Plain reference: the spec's loops, O(n²) per sample. */
void     lb_xv_blur_process_ref (const LbXvBlur     *self,
                                 const LbKernelBuf  *src,
                                 LbKernelBuf        *dst,
                                 int                 y0,
                                 int                 y1);
/* Running sums (column sums updated row by row, a row prefix sum for the window), so the cost
 * does not depend on n; identical output. 8 bits without alpha and n ≤ 257: 16-bit column
 * sums, one pass per row for the row in and out, a vector prefix scan, the window sums and
 * the division (float with a rounded-up reciprocal, exact below 2^22; hand-written AVX2 where
 * the CPU has it) in one pass (n = 3 has its own multiply-high path); RGB with AVX2 and n ≤ 41:
 * the window sums as a running sum in registers straight into the division, no prefix row
 * (blur_row_c3_avx2). 16 bits without alpha:
 * 32-bit column sums, the same structure, float up to n = 7 and float with one correction
 * above; GRAY16 with AVX2 and at least 32 whole windows per row: the running sum in registers
 * for those windows too (blur_row_c1_avx2). Others (alpha, huge windows): the general 32-bit
 * running sums. Allocates a few rows of scratch per call. */
void     lb_xv_blur_process     (const LbXvBlur     *self,
                                 const LbKernelBuf  *src,
                                 LbKernelBuf        *dst,
                                 int                 y0,
                                 int                 y1);

/* lb_xv_blur_process() without its hand-written AVX2 rows (the portable loops, which the
 * compiler may still vectorise), whatever the CPU: for tests and benchmarks. */
void     _lb_xv_blur_process_portable (const LbXvBlur    *self,
                                       const LbKernelBuf *src,
                                       LbKernelBuf       *dst,
                                       int                y0,
                                       int                y1);
/* floor(@s / @count) as the fast paths compute it in float (a reciprocal rounded up, see
 * lb-xv-blur.c), for @s < 2^22: exposed so the tests can check it for every s. */
guint    _lb_xv_blur_div_float        (guint32            s,
                                       guint32            count);
/* floor(@s / @count) as the 16-bit path's interior computes it (float, then one correction
 * by the remainder, see lb-xv-blur.c), for @s < 2^31 and @s / @count ≤ 65535: for the tests. */
guint    _lb_xv_blur_div_corrected    (guint32            s,
                                       guint32            count);

G_END_DECLS
