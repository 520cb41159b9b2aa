/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* xv "Emboss" (TinFoil, spec §4). Kernel contract: see lb-xv-common.h. */

#include "lb-xv-common.h"

G_BEGIN_DECLS

/**
 * LbXvEmboss:
 * @region: the selection clipped to the image
 *
 * Per colour channel on the interior of the region, with the kernel
 * [-2 -1 0; -1 0 +1; 0 +1 +2]: s = −2·TL − TM − ML + MR + BM + 2·BR,
 * q = s / 8 truncated toward zero, T = q + 128 (8 bits) or q + 32768 (16 bits); the ring of the
 * region is 128 (32768). Then every pixel of the region (ring included) becomes gray:
 * all colour channels = MONO(T) = (11 R + 16 G + 5 B) >> 5 (a gray image: the sample itself).
 * The clamp of xv never acts: |q| ≤ 127 (8 bits) or ≤ 32767 (16 bits).
 * process() writes whole rows of the region (ring included), so it needs nothing from the
 * destination's previous contents in the region.
 */
typedef struct {
  LbXvRegion region;
} LbXvEmboss;

gboolean lb_xv_emboss_prepare     (LbXvEmboss         *self,
                                   const LbKernelBuf  *src,
                                   const LbKernelRect *selection,
                                   GError            **error);
/* Plain reference: the spec's steps pixel by pixel. */
void     lb_xv_emboss_process_ref (const LbXvEmboss   *self,
                                   const LbKernelBuf  *src,
                                   LbKernelBuf        *dst,
                                   int                 y0,
                                   int                 y1);
/* Vectorisable loops over whole rows: the three source rows are read once per output row and
 * the kernel's row differences are formed sample-wise. Identical output. At 8 bits (1, 3 or
 * 4 channels) on a CPU with AVX2: hand-written AVX2 rows (pmaddubsw for the taps, a pshufb
 * spread for MONO), which also write RGBA8's alpha (the source's, as the contract keeps). */
void     lb_xv_emboss_process     (const LbXvEmboss   *self,
                                   const LbKernelBuf  *src,
                                   LbKernelBuf        *dst,
                                   int                 y0,
                                   int                 y1);
/* lb_xv_emboss_process() without its AVX2 rows (8 bits, 1, 3 or 4 channels), whatever the
 * CPU: the compiler-vectorised loops every x86-64 runs (SSE2, or their AVX2 clones). For the
 * tests, so that both forms are checked against the reference on an AVX2 machine. */
void     _lb_xv_emboss_process_portable (const LbXvEmboss  *self,
                                         const LbKernelBuf *src,
                                         LbKernelBuf       *dst,
                                         int                y0,
                                         int                y1);

G_END_DECLS
