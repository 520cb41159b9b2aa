/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* The xv kernels of set A in one include, for the plugin that wraps them.
 *
 * Per filter (see each header for the exact maths, the 16-bit rule and the quirk switches):
 *
 *   filter     prepare parameters                 finish step     optimised path exact?
 *   blur       size (odd, default 3)              —               yes
 *   sharpen    strength (0–99, default 75)        —               yes
 *   edge       correct_ring (default FALSE = xv)  reduce + finish yes
 *   emboss     —                                  —               yes
 *   oil        size (0 = xv's 4×4, default; odd n = corrected n×n)   yes
 *   blend      —                                  —               ±1 (counted by the tests)
 *   despeckle  size (odd, default 3)              —               yes
 *
 * Wrapping one pass (what the tests and bench/kernels-a-timing.c do):
 *
 *   1. dst = a copy of src (same geometry; alpha is never written, so it stays the source's);
 *   2. lb_xv_X_prepare (&state, &src, selection or NULL, params…, &error) once; a FALSE return
 *      carries an LB_KERNEL_ERROR_INVALID_ARGUMENT / LB_KERNEL_ERROR_UNSUPPORTED message for
 *      the user (the host's LB_ERROR codes, lb-kernel.h);
 *   3. lb_xv_X_process (&state, &src, &dst, y0, y1) for any split of [0, height) into bands,
 *      concurrently if wished (state is read-only, scratch is allocated per call); rows
 *      outside the region are skipped, so bands may cover the whole image;
 *   4. edge only, after every band of step 3: maxv = MAX over bands of
 *      lb_xv_edge_reduce (&state, &dst, y0, y1), then lb_xv_edge_finish (&state, &dst, maxv,
 *      y0, y1) for every band (again in parallel).
 *
 * The result is byte-identical for any band split and thread count. The _ref functions are the
 * plain reference paths, with the same contract. */

#include "lb-xv-blend.h"
#include "lb-xv-blur.h"
#include "lb-xv-despeckle.h"
#include "lb-xv-edge.h"
#include "lb-xv-emboss.h"
#include "lb-xv-oil.h"
#include "lb-xv-sharpen.h"

G_BEGIN_DECLS

/* The state of any one kernel of set A, for callers that pick the kernel at run time (the
 * plugin, the tests, the benchmarks); only the member of the kernel prepared is valid. */
typedef union {
  LbXvBlur blur;
  LbXvSharpen sharpen;
  LbXvEdge edge;
  LbXvEmboss emboss;
  LbXvOil oil;
  LbXvBlend blend;
  LbXvDespeckle despeckle;
} LbXvKernelState;

G_END_DECLS
