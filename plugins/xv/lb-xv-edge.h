/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* xv "Edge Detect" (spec §3). Kernel contract: see lb-xv-common.h. Three steps:
 *
 *   1. process (bands, parallel): the Prewitt magnitude e on the region's interior;
 *   2. reduce  (bands, parallel): maxv = max of MONO(T) over the region rows of a band;
 *              combine the bands' results with MAX;
 *   3. finish  (bands, parallel, after 2): every colour sample of the region becomes
 *              min(max, ⌊T·max / maxv⌋) when maxv > 0 (max = 255 or 65535).
 */

#include "lb-xv-common.h"

G_BEGIN_DECLS

/**
 * LbXvEdge:
 * @region: the selection clipped to the image
 * @correct_ring: %FALSE (default) is xv: the one-pixel ring of the region keeps the source
 *   colours, and takes part in maxv and the scaling. %TRUE treats the ring like the interior:
 *   a neighbour outside the region is replaced by the nearest pixel inside it (coordinates
 *   clamped to the region), so a flat border gives 0.
 *
 * Per colour channel on the 3×3 neighbourhood: Hg = right column sum − left column sum,
 * Vg = bottom row sum − top row sum, e = max(|Hg|, |Vg|) / 3 (truncating; ≤ 255, or ≤ 65535
 * at 16 bits). maxv is xv's luminance MONO = (11 R + 16 G + 5 B) >> 5 (the sample for gray),
 * not a per-channel maximum, hence the clip at 255 (65535). 16 bits: identical maths with
 * 65535 in place of 255 (64-bit products in the scaling).
 */
typedef struct {
  LbXvRegion region;
  gboolean correct_ring;
} LbXvEdge;

gboolean lb_xv_edge_prepare     (LbXvEdge           *self,
                                 const LbKernelBuf  *src,
                                 const LbKernelRect *selection,
                                 gboolean            correct_ring,
                                 GError            **error);
/* Step 1, plain reference. Writes every colour sample of the region rows in [y0, y1): the
 * ring from the source (xv mode) or from the clamped window (corrected mode). */
void     lb_xv_edge_process_ref (const LbXvEdge     *self,
                                 const LbKernelBuf  *src,
                                 LbKernelBuf        *dst,
                                 int                 y0,
                                 int                 y1);
/* Step 1, optimised: column sums and row differences of the 3×3 formed once per sample,
 * vectorisable. Identical output. */
void     lb_xv_edge_process     (const LbXvEdge     *self,
                                 const LbKernelBuf  *src,
                                 LbKernelBuf        *dst,
                                 int                 y0,
                                 int                 y1);
/* Steps 1 and 2 for one band: lb_xv_edge_process() on rows [y0, y1), then returns
 * lb_xv_edge_reduce() of those rows (reduced chunk by chunk while they are in cache). The
 * maximum over all bands is then the same as step 2's. */
guint    lb_xv_edge_process_reduce (const LbXvEdge  *self,
                                    const LbKernelBuf *src,
                                    LbKernelBuf     *dst,
                                    int              y0,
                                    int              y1);
/* Step 2: the maximum MONO of the destination over the region rows in [y0, y1); 0 if none. */
guint    lb_xv_edge_reduce      (const LbXvEdge     *self,
                                 const LbKernelBuf  *dst,
                                 int                 y0,
                                 int                 y1);
/* Step 3 with the combined @maxv; does nothing when @maxv is 0. _ref divides sample by sample
 * in integers; the other uses a table (8 bits) or an exact reciprocal in double (16 bits). */
void     lb_xv_edge_finish_ref  (const LbXvEdge     *self,
                                 LbKernelBuf        *dst,
                                 guint               maxv,
                                 int                 y0,
                                 int                 y1);
void     lb_xv_edge_finish      (const LbXvEdge     *self,
                                 LbKernelBuf        *dst,
                                 guint               maxv,
                                 int                 y0,
                                 int                 y1);

G_END_DECLS
