/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* xv "DeSpeckle" (spec §11): a per-channel median. Kernel contract: see lb-xv-common.h. */

#include "lb-xv-common.h"

G_BEGIN_DECLS

/**
 * LbXvDespeckle:
 * @region: the selection clipped to the image
 * @size: n, odd, 1 ≤ n ≤ 65535; n = 1 is the identity
 *
 * For every pixel of the region and every colour channel independently (not a vector median):
 * the median of the n×n window clipped to the region. With an odd count N the middle value;
 * with an even count (clipped windows only) (v[N/2 − 1] + v[N/2]) / 2, truncated. 16 bits:
 * the same on 16-bit samples.
 * @no_ranks: for tests: 16-bit samples never take the rank path of lb-median-hist.h (so that
 * the paths for more than 4096 distinct values are reached on small images); prepare clears it
 */
typedef struct {
  LbXvRegion region;
  int size;
  int depth;  /* of the image prepared for */
  gboolean no_ranks;
} LbXvDespeckle;

gboolean lb_xv_despeckle_prepare     (LbXvDespeckle      *self,
                                      const LbKernelBuf  *src,
                                      const LbKernelRect *selection,
                                      int                 size,
                                      GError            **error);
/* Plain reference: gather and sort every window. */
void     lb_xv_despeckle_process_ref (const LbXvDespeckle *self,
                                      const LbKernelBuf   *src,
                                      LbKernelBuf         *dst,
                                      int                  y0,
                                      int                  y1);
/* n = 3 and n = 5 (xv's default and the common choice): exact selection networks run over
 * whole rows, every channel at once, 16 (8 bits) or 8 (16 bits) samples per SSE register;
 * each window column is sorted once and shared. Clipped windows at the region's edges use the
 * general paths below.
 * Other n, and the clipped rows of n = 3 and 5: the histogram medians of lb-median-hist.h,
 * shared with the enhance median (despeckle n is its median of radius (n − 1) / 2):
 *  - 8 bits, lb_median8_rows: Perreault & Hébert's constant-time median. Per column a
 *    histogram (16 coarse and 256 fine bins) of the window rows, updated by one sample in and
 *    one out per row; the window's coarse histogram slides by one column histogram in and one
 *    out per pixel; the fine bins of a coarse bin are brought up to date only when the median
 *    falls into it. The cost per pixel does not depend on n. The histograms are kept as
 *    prefix sums, so the k-th value's bin is the count of 16 lanes ≤ k, without branches.
 *  - 16 bits, lb_median16_rows: for n ≤ 255, where a band's samples in one channel hold at
 *    most 4096 distinct values (12-bit CT and the like), the 8-bit scheme on their ranks
 *    with three tiers of 16 bins, mapped back; otherwise Huang's sliding histogram (linear
 *    in n), and for 97 ≤ n ≤ 255 Perreault's scheme on four tiers of 16 bins (16, 256,
 *    4096, 65536).
 * Identical output. */
void     lb_xv_despeckle_process     (const LbXvDespeckle *self,
                                      const LbKernelBuf   *src,
                                      LbKernelBuf         *dst,
                                      int                  y0,
                                      int                  y1);
/* The same with per-thread scratch memory (64-byte aligned, content undefined on entry,
 * reused between bands: the plugin ABI's) of lb_xv_despeckle_scratch_size () bytes, which
 * the 16-bit rank path then uses instead of allocating per band; 0: none needed. A smaller
 * or NULL scratch is ignored. */
gsize    lb_xv_despeckle_scratch_size    (const LbXvDespeckle *self);
void     lb_xv_despeckle_process_scratch (const LbXvDespeckle *self,
                                          const LbKernelBuf   *src,
                                          LbKernelBuf         *dst,
                                          int                  y0,
                                          int                  y1,
                                          gpointer             scratch,
                                          gsize                scratch_size);

G_END_DECLS
