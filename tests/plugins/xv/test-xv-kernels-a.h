/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* test-xv-kernels-a: test-xv-kernels-a.c holds the runner of the seven kernels (both paths,
 * any band split) and the tests against xv's golden output and the reference paths;
 * test-xv-kernels-a-sharpen.c the exhaustive checks of sharpen's exact optimised paths. */

#include "lb-error.h"
#include "lb-test-kernel.h"
#include "lb-xv-kernels-a.h"

typedef enum {
  F_BLUR,
  F_SHARPEN,
  F_EDGE,
  F_EMBOSS,
  F_OIL,
  F_BLEND,
  F_DESPECKLE,
} FilterId;

typedef struct {
  FilterId id;
  int param;       /* blur/despeckle size, sharpen strength, oil size (0 = xv) */
  gboolean alt;    /* edge: corrected ring */
} Spec;

/* *@dst: a copy of @src (another stride) run through the filter, which must succeed. Bands:
 * cuts[0] = 0 < cuts[1] < … < cuts[n] = height; NULL cuts = one band. */
void     run_ok      (const Spec         *spec,
                      const LbKernelBuf  *src,
                      LbKernelBuf       **dst,
                      const LbKernelRect *sel,
                      gboolean            fast,
                      const int          *cuts,
                      int                 ncuts);
/* Number of samples of channels [c0, c1) that differ; reports the first. */
gsize    count_diff  (const LbKernelBuf  *a,
                      const LbKernelBuf  *b,
                      int                 c0,
                      int                 c1,
                      const char         *what);
/* Fails the test, naming @what, if any sample differs. */
void     assert_same (const LbKernelBuf  *a,
                      const LbKernelBuf  *b,
                      const char         *what);
/* Random band cuts over @height, seeded: cuts[0] = 0 < … < cuts[n] = @height; returns n. */
int      random_cuts (GRand              *rand,
                      int                 height,
                      int                *cuts,
                      int                 max_cuts);

/* Registers the /xv-a/sharpen-exact/ tests. */
void     test_xv_kernels_a_add_sharpen_exact (void);
