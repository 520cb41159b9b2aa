/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Kernels beyond xv: Gaussian blur, unsharp mask and median of any radius. The kernel
 * contract (prepare → process rows [y0, y1) of the destination → free; reference and
 * optimised paths with the same signature; @dst starts as a copy of @src; any band split gives
 * byte-identical output) is the one described in ../xvgeom/lb-xvgeom.h.
 *
 * Neighbourhoods are clipped to the region (the selection clipped to the image, or the whole
 * image), as in xv: pixels outside a selection are never used, and at the region's edges a
 * window shrinks and is renormalised — there is no padding, mirroring or replication.
 * Alpha (the last of 2 or 4 channels) is neither read nor written. */

#include <glib.h>

#include "lb-kernel.h"

G_BEGIN_DECLS

/* ------------------------------------------------------------------------------------------ */
/* Gaussian blur */

/**
 * LbGaussianParams:
 * @sigma: standard deviation in pixels, 0.1 … 200 (LB_GAUSSIAN_SIGMA_MAX)
 *
 * The exact sampled Gaussian w(k) = exp(−k²/2σ²) for |k| ≤ r, r = ⌈3σ⌉ taps each side, applied
 * separably: a vertical pass then a horizontal pass, both inside process() for the band's own
 * rows (the vertical pass reads the r source rows above and below the band itself), so no
 * intermediate image exists and bands are independent.
 *
 * Edges: a position whose window is clipped by the region uses the taps that remain, divided
 * by their sum (in double); because the clipped 2-D window is a rectangle this is exactly the
 * renormalised 2-D Gaussian.
 *
 * Precision: taps are float (from double). Each pass accumulates in float in a fixed order:
 * a symmetric window (lo = −hi, i.e. everywhere except near the region's edges) starts from
 * t₀·s₀ and adds t_k·(s₋k + s_k) for k = 1 … r, the mirrored pair added first (exactly, in
 * integers, in the vertical pass); a clipped window adds t_k·s_k for k = lo … hi. The result
 * is rounded half up and clamped to 0..255 (8-bit) or 0..65535 (16-bit; the same maths).
 * The optimised and reference paths perform the same float operations in the same order, so
 * they are bit-identical (and the AVX2 build of the hot loop too: no FMA contraction);
 * against a double-precision 2-D evaluation the result differs by at most 1 (tests check
 * this). Cost grows with r: O(r) per sample and pass — an exact sampled Gaussian has no
 * constant-time form; only approximations (box cascades, IIR) do.
 */
typedef struct {
  double sigma;
} LbGaussianParams;

#define LB_GAUSSIAN_SIGMA_MIN 0.1
#define LB_GAUSSIAN_SIGMA_MAX 200.0

typedef struct _LbGaussian LbGaussian;

LbGaussian *lb_gaussian_prepare           (const LbKernelBuf      *src,
                                           const LbKernelRect     *region,
                                           const LbGaussianParams *params,
                                           GError                **error);
void        lb_gaussian_process           (const LbGaussian       *state,
                                           const LbKernelBuf      *src,
                                           LbKernelBuf            *dst,
                                           int                     y0,
                                           int                     y1);
void        lb_gaussian_process_reference (const LbGaussian       *state,
                                           const LbKernelBuf      *src,
                                           LbKernelBuf            *dst,
                                           int                     y0,
                                           int                     y1);
void        lb_gaussian_free              (LbGaussian             *state);
/* the tap radius r = ⌈3σ⌉ */
int         lb_gaussian_get_radius        (const LbGaussian       *state);

/* ------------------------------------------------------------------------------------------ */
/* Unsharp mask */

/**
 * LbUnsharpParams:
 * @radius: σ of the Gaussian blur, 0.1 … 200 px (as in GIMP's unsharp mask)
 * @amount: 0 … 10; the difference from the blur is added @amount times
 * @threshold: 0 … 255, in 8-bit levels: samples whose difference from the blur is smaller
 *   than this are left unchanged. At 16 bits the threshold is multiplied by 257, so the same
 *   setting means the same fraction of the range.
 *
 * Per sample s, with g the unrounded float Gaussian of LbGaussianParams (same taps, same
 * edges): d = s − g; if |d| < threshold the output is s, otherwise
 * clamp((int)(s + amount·d + 0.5)) to 0..255 or 0..65535 — in float, operations in that order,
 * identical in both paths.
 */
typedef struct {
  double radius;
  double amount;
  double threshold;
} LbUnsharpParams;

typedef struct _LbUnsharp LbUnsharp;

LbUnsharp *lb_unsharp_prepare           (const LbKernelBuf     *src,
                                         const LbKernelRect    *region,
                                         const LbUnsharpParams *params,
                                         GError               **error);
void       lb_unsharp_process           (const LbUnsharp       *state,
                                         const LbKernelBuf     *src,
                                         LbKernelBuf           *dst,
                                         int                    y0,
                                         int                    y1);
void       lb_unsharp_process_reference (const LbUnsharp       *state,
                                         const LbKernelBuf     *src,
                                         LbKernelBuf           *dst,
                                         int                    y0,
                                         int                    y1);
void       lb_unsharp_free              (LbUnsharp             *state);

/* ------------------------------------------------------------------------------------------ */
/* Median */

/**
 * LbMedianParams:
 * @radius: 0 … LB_MEDIAN_RADIUS_MAX; the window is (2r+1)×(2r+1), r = 0 is the identity
 *
 * Per channel (not a vector median), window clipped to the region. With N values in the
 * clipped window, sorted v[0..N−1]: N odd → v[N/2]; N even (only where the window is clipped)
 * → (v[N/2−1] + v[N/2]) / 2 truncated — xv's DeSpeckle rule (spec §11), so radius r equals
 * DeSpeckle of size 2r+1 on 8-bit RGB. 16 bits: the same rule on 0..65535.
 *
 * Optimised paths:
 *  - radius 1 and 2, 8 and 16 bits: where the window is not clipped, a pruned Batcher
 *    selection network for the median of 9 or 25 (lb-median-networks.h, generated and
 *    verified by gen-median-networks.py) runs over the contiguous samples of a row, so each
 *    min/max is one SIMD instruction over 16–32 samples; clipped windows (region border,
 *    even-count rule) take a per-sample insertion sort. No setup per band.
 *  - larger radii: the histogram medians of lb-median-hist.h, shared with xv despeckle.
 *    8 bits: Perreault & Hébert's constant-time median — one 256-bin histogram per column
 *    (slid down one row per output row), a window histogram slid along the row by adding and
 *    subtracting whole column histograms (16-bin coarse level always, fine buckets lazily),
 *    all kept as prefix sums, so that the k-th value's bin is the number of 16 lanes ≤ k
 *    (SSE2, no branch; a scalar scan when (2r+1)² > 65535); vertical strips of 256 columns
 *    keep the column histograms in L2. Each band (and strip) starts by building its column
 *    histograms from 2r+1 rows, so bands much shorter than 2r rows repeat that work: prefer
 *    bands of ≥ 64 rows.
 *  - larger radii, 16 bits, r ≤ 127: where the samples a band reads in one channel hold at
 *    most 4096 distinct values (12-bit CT, most MR and radiographs, 8-bit data widened),
 *    they are renumbered by rank and the 8-bit scheme runs on the ranks with three tiers of
 *    16 bins, u8 column prefixes; the answer is mapped back (constant in the radius on smooth
 *    data).
 *  - larger radii, 16 bits, other data: below r = 48 (and above 127) a three-level histogram
 *    (256 bins by the high byte, 4096 by the top 12 bits, 65536 fine bins) for the window,
 *    updated by the column that enters and the column that leaves (Huang: O(r) per sample,
 *    so not radius-independent), searched from the previous answer's high-byte bin, then
 *    ≤ 16 + 16 bins; for 48 ≤ r ≤ 127 Perreault's scheme on four tiers of 16 bins.
 * The reference sorts each window.
 */
typedef struct {
  int radius;
} LbMedianParams;

#define LB_MEDIAN_RADIUS_MAX 1000

typedef struct _LbMedian LbMedian;

LbMedian *lb_median_prepare           (const LbKernelBuf    *src,
                                       const LbKernelRect   *region,
                                       const LbMedianParams *params,
                                       GError              **error);
void      lb_median_process           (const LbMedian       *state,
                                       const LbKernelBuf    *src,
                                       LbKernelBuf          *dst,
                                       int                   y0,
                                       int                   y1);
void      lb_median_process_reference (const LbMedian       *state,
                                       const LbKernelBuf    *src,
                                       LbKernelBuf          *dst,
                                       int                   y0,
                                       int                   y1);
void      lb_median_free              (LbMedian             *state);
/* The same as lb_median_process with per-thread scratch memory (64-byte aligned, content
 * undefined on entry, reused between bands: the plugin ABI's) of lb_median_scratch_size ()
 * bytes, which the 16-bit rank path then uses instead of allocating per band; 0 bytes: none
 * needed. A smaller or NULL scratch is ignored. */
gsize     lb_median_scratch_size      (const LbMedian       *state);
void      lb_median_process_scratch   (const LbMedian       *state,
                                       const LbKernelBuf    *src,
                                       LbKernelBuf          *dst,
                                       int                   y0,
                                       int                   y1,
                                       gpointer              scratch,
                                       gsize                 scratch_size);
/* Tests: 16-bit samples never take the rank path (lb-median-hist.h), so that the paths for
 * more than 4096 distinct values are reached on small images too. */
void      _lb_median_set_no_ranks     (LbMedian             *state,
                                       gboolean              no_ranks);

G_END_DECLS
