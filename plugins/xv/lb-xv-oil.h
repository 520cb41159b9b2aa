/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* xv "Oil Painting" (spec §5): the most frequent exact colour of a window. Kernel contract:
 * see lb-xv-common.h. */

#include "lb-xv-common.h"

G_BEGIN_DECLS

/**
 * LbXvOil:
 * @region: the selection clipped to the image
 * @size: 0 (default) is xv-exact: xv asks for 3 and then "rounds to odd" by incrementing, so
 *   its window is 4×4, rows y−2…y+1 and columns x−2…x+1, which shifts continuous-tone images
 *   2 px right and down. An odd @size n ≥ 1 selects the corrected, symmetric n×n window.
 * @up: window rows/columns above and left of the pixel (2 for xv, n/2 corrected)
 * @down: window rows/columns below and right (1 for xv, n/2 corrected)
 *
 * The window is clipped to the region. The result is the most frequent exact colour (all
 * colour channels equal) in the window; among equally frequent colours the one that appears
 * first in raster order of the window wins. Alpha is not part of the colour and is left alone.
 * 16 bits: the same, on exact 16-bit colours.
 */
typedef struct {
  LbXvRegion region;
  int size;
  int up;
  int down;
} LbXvOil;

gboolean lb_xv_oil_prepare     (LbXvOil            *self,
                                const LbKernelBuf  *src,
                                const LbKernelRect *selection,
                                int                 size,
                                GError            **error);
/* Plain reference: every pixel counts every window colour against every other, O(N²). */
void     lb_xv_oil_process_ref (const LbXvOil      *self,
                                const LbKernelBuf  *src,
                                LbKernelBuf        *dst,
                                int                 y0,
                                int                 y1);
/* Optimised path, identical output:
 *  - xv's 4×4 window, where not clipped: output pixels as byte lanes. Equal-colour masks per
 *    pair of image rows (at most 3 apart) and column offset, from byte planes of the colours,
 *    are computed once per row pair; per pixel the sums of its masks give its count in each
 *    of the four windows holding it, and an unsigned byte max of count·16 + (15 − raster
 *    index) picks each window's winner. Clipped windows: the all-pairs network below.
 *  - one 8-bit colour channel (GRAY8, GRAYA8), symmetric windows: per-column histograms of
 *    the 256 values and a window histogram slid by one column in and one out per pixel, so
 *    the counting costs the same at any radius (Perreault–Hébert); the winner is the first
 *    window pixel whose value has the top count, found by a scan that stops at the first hit.
 *  - the symmetric 3×3 window, other formats, where not clipped: eight output pixels as
 *    vector lanes, the 36 pairs of window pixels compared once each;
 *  - other windows of at most 16 pixels: all pairs at once with 16-lane vector compares;
 *  - larger windows, other formats: an incremental colour count (a direct table for 16-bit
 *    gray, a hash table for RGB, plus the number of colours per count so the maximum is
 *    known at once, and the list of colours having it) slid along the row, adding and
 *    removing one window column per pixel (2·n updates: linear in n, not constant: exact
 *    colours of 16 and 24 bits have no dense histogram to slide); the winner found again
 *    only when the top count or the colours having it changed.
 *  - 16-bit RGB (RGB16, RGBA16): the same paths. xv's window compares six byte planes;
 *    the others count colour numbers, since a 48-bit colour does not fit the 32-bit keys:
 *    a band's colours are numbered as read (a hash table from colour to number, and the
 *    colour of each number for the 3×3 path's winners), and the numbering starts again
 *    from the rows still in the window when it would pass 4 windows' worth of rows (fewer
 *    where that would pass 64 MiB). Before, these formats took the reference path: RGB16
 *    1400×1000, 2 threads, oil 9 2.2 s, oil 15 12.7 s (now 61 and 65 ms). */
void     lb_xv_oil_process     (const LbXvOil      *self,
                                const LbKernelBuf  *src,
                                LbKernelBuf        *dst,
                                int                 y0,
                                int                 y1);

/* lb_xv_oil_process() with every window above 16 pixels on the count table, RGB colours in
 * its hash table (no colour numbering) and no histogram path: the paths the default takes
 * only for some images (palettes past 64 MiB), for tests. */
void     _lb_xv_oil_process_table (const LbXvOil     *self,
                                   const LbKernelBuf *src,
                                   LbKernelBuf       *dst,
                                   int                y0,
                                   int                y1);

G_END_DECLS
