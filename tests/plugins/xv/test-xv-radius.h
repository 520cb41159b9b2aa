/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* test-xv-radius: the radius-independent paths of blur, despeckle, oil (xv) and median
 * (enhance) against their scalar reference paths, at every window size from the smallest to
 * 31 and beyond:
 *  - GRAY8, GRAY16, RGB8 and RGBA8 (plus the other formats at a few sizes), images with
 *    noise, flat patches and a small palette (ties for modes, equal values for medians);
 *  - with and without a selection (so windows are clipped at the region's edges, including
 *    regions narrower or shorter than the window);
 *  - the same output for any split into row bands (one row per band, tiny random bands, bands
 *    run in reverse order and from several threads at once), since band starts are where
 *    sliding-window algorithms go wrong;
 *  - alpha samples and everything outside the region come back untouched.
 *
 * test-xv-radius.c holds the machinery (a job per filter and path, band splits, threads) and
 * the sweeps over the window size; test-xv-radius-median.c, -blur.c and -oil.c the cases at
 * each filter's limits. */

#include "lb-enhance.h"
#include "lb-error.h"
#include "lb-test-kernel.h"
#include "lb-xv-blur.h"
#include "lb-xv-despeckle.h"
#include "lb-xv-oil.h"

typedef enum { F_BLUR, F_DESPECKLE, F_OIL, F_MEDIAN } FilterId;

/* Channels and depth: GRAY8, GRAY16, RGB8, RGBA8, then GRAYA8, GRAYA16, RGB16, RGBA16. */
extern const int formats[8][2];

typedef struct {
  FilterId id;
  int param; /* blur/despeckle/oil size (oil 0 = xv's 4×4), median radius */
  union {
    LbXvBlur blur;
    LbXvDespeckle despeckle;
    LbXvOil oil;
  } st;
  LbMedian *median;
  /* median and despeckle's optimised path: the per-thread scratch of the plugin ABI */
  gpointer scratch;
  gsize scratch_size;
} Job;

gboolean job_prepare               (Job                *job,
                                    const LbKernelBuf  *src,
                                    const LbKernelRect *sel,
                                    GError            **error);

#define MAX_CUTS 256

/* Bands of @band rows (0: random heights 1..8). */
int      make_cuts                 (GRand              *rand,
                                    int                 height,
                                    int                 band,
                                    int                *cuts);
/* Reference on one band; the optimised path on one band, one row per band, random bands in
 * reverse order and random bands from three threads: all must agree. Blur and oil: the
 * second optimised path (PATH_PORTABLE) too, on one band, random bands and three threads. */
void     compare_one               (GRand              *rand,
                                    FilterId            id,
                                    int                 param,
                                    int                 w,
                                    int                 h,
                                    int                 channels,
                                    int                 depth,
                                    gboolean            use_sel);
/* The optimised path on one band and on the bands cuts[0..ncuts] against the reference. */
void     compare_one_band_and_rows (const Job          *job,
                                    const LbKernelBuf  *src,
                                    const int          *cuts,
                                    int                 ncuts);
/* Prepares @job on @src, with @sel a selection inset from the edges (3 columns left, 2 rows
 * top, 2 columns right, 1 row bottom), and cuts its rows into random bands (with @sel) or
 * one row per band; returns the number of bands. */
int      prepare_inset             (GRand              *rand,
                                    Job                *job,
                                    const LbKernelBuf  *src,
                                    gboolean            sel,
                                    int                *cuts);

/* test-xv-radius-median.c */
void test_median16_ranks (void);
void test_median16_huang_groups (void);
/* test-xv-radius-blur.c */
void test_blur_u16_limit (void);
void test_blur_div_float (void);
void test_blur_div_corrected (void);
void test_blur_widths (void);
void test_blur_double_path (void);
void test_blur_rgb8_scan_range (void);
void test_blur_gray16_scan (void);
/* test-xv-radius-oil.c */
void test_oil_xv_shapes (void);
void test_oil_histogram (void);
void test_oil_histogram_full_column (void);
void test_oil_sym3_widths (void);
void test_oil_winner_cache (void);
void test_oil_palette_restart (void);
void test_oil_rgb16_keys (void);
void test_oil_palette (void);
