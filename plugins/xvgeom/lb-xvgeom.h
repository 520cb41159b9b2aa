/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Kernels for xv's geometric/statistical algorithms: Copy Rotate, Clear Rotate, Pixelize and
 * Spread (../shared/reference/xv-filters.md §7–10). GLib + libm only; the engine wraps them.
 *
 * Kernel contract (the same for every filter in this directory):
 *
 *  - lb_<f>_prepare (src, region, params, error) looks at the whole source, the region and the
 *    parameters once and returns a small state (or NULL + a
 *    %LB_KERNEL_ERROR_INVALID_ARGUMENT / %LB_KERNEL_ERROR_UNSUPPORTED error, lb-kernel.h).
 *    @region is the selection, clipped to the image here; NULL means the whole image. An
 *    empty clipped region is valid and makes process() a no-op.
 *  - lb_<f>_process (state, src, dst, y0, y1) writes destination rows [y0, y1) only and may read
 *    any source pixel. @dst has the geometry of @src and must start as a copy of it (xv's
 *    semantics: pixels a filter does not write keep their source value). Calls for different
 *    bands are independent and deterministic: any band split and any thread count give
 *    byte-identical output. The state is read-only during process().
 *  - lb_<f>_process_reference () has the same signature: the plain scalar loops written from
 *    the spec, kept to test the optimised path and as the bench baseline.
 *  - lb_<f>_free (state).
 *
 * Formats: channels 1–4 and depth 8 (guint8) or 16 (guint16, host order). With 2 or 4 channels
 * the last one is alpha: it is never read for the maths and never written, so it passes through
 * unchanged at every pixel position. 16-bit images use the same maths with 0..65535 in place of
 * 0..255 (per filter below).
 */

#include <glib.h>

#include "lb-kernel.h"

G_BEGIN_DECLS

/* ------------------------------------------------------------------------------------------ */
/* Copy Rotate / Clear Rotate (spec §7–8) */

/**
 * LbRotateParams:
 * @angle: degrees, counter-clockwise (xv's prompt); 0 leaves the image unchanged
 * @clear: %FALSE = Copy Rotate, %TRUE = Clear Rotate (the region is first filled with
 *   @clear_color)
 * @clear_color: colour channels of the clear colour in native sample units (0..255 or
 *   0..65535); xv's default is black {0, 0, 0}. Gray images use [0].
 * @exact: %TRUE makes lb_rotate_process() run the scalar path (xv's polar maths with libm
 *   atan/cos/sin/sqrt per pixel: equal to xv byte for byte). %FALSE (the default) maps
 *   pixels with an affine transform, in destination tiles of 16×64: per row it finds the
 *   span whose source lies in the region and the inner span where all four neighbours do
 *   (no bounds checks there; 8-bit RGB/RGBA run eight pixels per step in AVX2 when the CPU
 *   has it: the same double operations per lane for coordinates and weights, the blend in
 *   float where that provably rounds the same way, else the double loop). It chooses the same source pixels
 *   and neighbours as xv (pixels whose coordinates come within 1e-6 of a floor() step, or
 *   lie left of/above 0 where xv's "−0.5 cheat" applies, are recomputed the xv way) and
 *   computes xv's weights and blend in double in xv's order. Only the coordinates differ
 *   from xv's (~1e-12 px), so a sample can differ by 1 only where xv's blended value lies
 *   within ~1e-9 of a rounding step: none in the golden files or in the tests' 32 angles.
 *
 * The rotated copy lands in the destination box around the region (spec §8), which can
 * extend outside the region: call process() for every image row (or the rows of
 * lb_rotate_get_dest_rows()). 16 bits: same double maths, result clamped to 0..65535.
 */
typedef struct {
  double angle;
  gboolean clear;
  guint16 clear_color[3];
  gboolean exact;
} LbRotateParams;

typedef struct _LbRotate LbRotate;

LbRotate *lb_rotate_prepare           (const LbKernelBuf    *src,
                                       const LbKernelRect   *region,
                                       const LbRotateParams *params,
                                       GError              **error);
/* Destination rows the filter may write: [*y0, *y1). Rows outside are left as they are. */
void      lb_rotate_get_dest_rows     (const LbRotate       *state,
                                       int                  *y0,
                                       int                  *y1);
void      lb_rotate_process           (const LbRotate       *state,
                                       const LbKernelBuf    *src,
                                       LbKernelBuf          *dst,
                                       int                   y0,
                                       int                   y1);
void      lb_rotate_process_reference (const LbRotate       *state,
                                       const LbKernelBuf    *src,
                                       LbKernelBuf          *dst,
                                       int                   y0,
                                       int                   y1);
/* For tests: %FALSE makes the fast path use its portable inner loop instead of the AVX2 one
 * (default %TRUE; both give identical bytes). */
void      lb_rotate_set_simd          (LbRotate             *state,
                                       gboolean              enable);
void      lb_rotate_free              (LbRotate             *state);

/* ------------------------------------------------------------------------------------------ */
/* Pixelize (spec §9) */

/**
 * LbPixelizeParams:
 * @width: block width in pixels, ≥ 1 (xv's "N" sets both, "AxB" sets A and B)
 * @height: block height in pixels, ≥ 1
 * @xv_bug: %FALSE (default): the intended result, each block B∩R becomes the truncated mean
 *   of B∩R (matches the *_FIXED golden files). %TRUE reproduces xv's left-column read bug:
 *   when the grid overhangs the region's left edge, each row of a first-column block sums k
 *   samples starting at column x0 (k = its in-region column count) in the image's row-major
 *   pixel order, so reads left of x = 0 wrap to the end of the previous row, and pixels in
 *   front of the image (row 0) read as 0 — the memory xv's golden files were produced with.
 *
 * Grid centred on the region as xv does. Sums are 64-bit, means truncate (floor), at 8 and
 * 16 bits alike.
 *
 * Unlike the contract above, lb_pixelize_process() and its reference write EVERY sample of
 * the region in rows [y0, y1), alpha included (the source's alpha, so the result is the
 * same): @dst's region need not start as a copy of the source, and the plugin declares
 * LB_FILTER_FLAG_OVERWRITES (the host skips its band copy).
 */
typedef struct {
  int width;
  int height;
  gboolean xv_bug;
} LbPixelizeParams;

typedef struct _LbPixelize LbPixelize;

LbPixelize *lb_pixelize_prepare           (const LbKernelBuf      *src,
                                           const LbKernelRect     *region,
                                           const LbPixelizeParams *params,
                                           GError                **error);
void        lb_pixelize_process           (const LbPixelize       *state,
                                           const LbKernelBuf      *src,
                                           LbKernelBuf            *dst,
                                           int                     y0,
                                           int                     y1);
void        lb_pixelize_process_reference (const LbPixelize       *state,
                                           const LbKernelBuf      *src,
                                           LbKernelBuf            *dst,
                                           int                     y0,
                                           int                     y1);
void        lb_pixelize_free              (LbPixelize             *state);

/* ------------------------------------------------------------------------------------------ */
/* Spread (spec §10) */

/**
 * LbSpreadParams:
 * @rectangle: %FALSE = xv's single-number form "N" (diamond of L1 radius @width);
 *   %TRUE = xv's "AxB" form (uniform x in ±@width, then y in ±@height)
 * @width: N, or A; ≥ 0
 * @height: B (rectangle mode only); ≥ 0
 * @seed: the srandom() seed; the golden files use 1. The generator is glibc's random()
 *   (TYPE_3), see lb-xv-random.h, so a seed gives the same image as xv run with srandom(seed).
 *
 * xv's Spread swaps pixels in place in raster order. The filter is whole-image: process() must
 * be called once with y0 = 0, y1 = height; it writes every sample of the region in @dst, whose
 * region need not hold anything before (it runs the banded form below on one thread where that
 * form fits, reading @src, else copies the region from @src and runs xv's swaps in place on
 * @dst; @dst must not be @src). Samples outside the region are not
 * touched. Swaps move the colour channels; alpha stays where it is. Depth does not matter
 * (pixels are moved, never computed). process_reference() swaps in place on a @dst that holds
 * a copy of @src.
 */
typedef struct {
  gboolean rectangle;
  int width;
  int height;
  guint32 seed;
} LbSpreadParams;

typedef struct _LbSpread LbSpread;

LbSpread *lb_spread_prepare           (const LbKernelBuf    *src,
                                       const LbKernelRect   *region,
                                       const LbSpreadParams *params,
                                       GError              **error);
void      lb_spread_process           (const LbSpread       *state,
                                       const LbKernelBuf    *src,
                                       LbKernelBuf          *dst,
                                       int                   y0,
                                       int                   y1);
void      lb_spread_process_reference (const LbSpread       *state,
                                       const LbKernelBuf    *src,
                                       LbKernelBuf          *dst,
                                       int                   y0,
                                       int                   y1);
void      lb_spread_free              (LbSpread             *state);

/* Parallel form of lb_spread_process(), byte-identical to it (see lb-spread.c):
 * lb_spread_process_band() for every band 0 … n_bands − 1, in any order and concurrently. Each
 * runs its rows' swaps and writes the rows of the region's output that no other band reaches,
 * every sample (alpha from the same pixel of @src), except pixels whose content an earlier
 * band decides; it keeps those, and the cells of the rows the next band reaches, in the state
 * (this is the one exception to "the state is read-only": a state serves one pass at a time).
 * Before it returns, a call also settles the kept pixels of any band whose earlier bands are
 * all done, so the output is complete once every call of the pass has returned. A pass must
 * run every band once before the state serves another pass.
 * @src must stay unchanged and must not be @dst. There is a band per processor; a band's
 * scratch is a window of about 512 KiB and 5 · distance rows of cells, so a pass
 * peaks at about twice the image. A region whose banded form does not fit has a single band
 * and no banded form (use lb_spread_process(), which then swaps in place): more than 2³¹ − 1
 * pixels, or distances of hundreds of rows on wide images whose scratch would take over 32
 * MiB and 90 % of the image's bytes. A spread that moves nothing has no bands. */
int       lb_spread_get_n_bands       (const LbSpread       *state);
void      lb_spread_process_band      (const LbSpread       *state,
                                       const LbKernelBuf    *src,
                                       LbKernelBuf          *dst,
                                       int                   band);
/* For tests: rows per band (≥ 1; bands shorter than the distance are valid, only slower).
 * Call before a pass, not during one. */
void      lb_spread_set_band_rows     (LbSpread             *state,
                                       int                   band_rows);
/* For tests: %FALSE makes the banded path run its portable loops instead of AVX2 (default
 * %TRUE; both give identical bytes). */
void      lb_spread_set_simd          (LbSpread             *state,
                                       gboolean              enable);

G_END_DECLS
