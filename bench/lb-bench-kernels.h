/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "lb-kernel.h"

G_BEGIN_DECLS

/* The filters lightbox-bench times, and a direct path into the kernel libraries
 * (plugins/xv, plugins/xvgeom, plugins/enhance) for two purposes:
 *  - the scalar reference path (every kernel exports one; the engine has no switch to
 *    select it, so the bench calls it itself), the baseline of the "speedup" column;
 *  - the optimised path of filters the engine's registry does not offer (yet), run the way
 *    the engine's pipeline runs a pass: copy the source into a new destination, prepare,
 *    bands of rows on a pool of threads, finish, release.
 * The output says which path every row took. */

typedef enum {
  LB_BENCH_K_BLUR,
  LB_BENCH_K_SHARPEN,
  LB_BENCH_K_EDGE,
  LB_BENCH_K_EMBOSS,
  LB_BENCH_K_OIL,
  LB_BENCH_K_BLEND,
  LB_BENCH_K_DESPECKLE,
  LB_BENCH_K_ROTATE,
  LB_BENCH_K_ROTATE_CLEAR,
  LB_BENCH_K_PIXELIZE,
  LB_BENCH_K_SPREAD,
  LB_BENCH_K_GAUSSIAN,
  LB_BENCH_K_UNSHARP,
  LB_BENCH_K_MEDIAN,
} LbBenchKernelKind;

/**
 * LbBenchFilterSpec:
 * @label: row label ("blur 3")
 * @id: the filter's command-line id, used by --filters and to look it up in the registry
 * @step: the engine step string ("blur:size=3"), as `lightbox-cli filter` takes it
 * @kind: which kernel
 * @p: numeric parameters of the kernel (size, strength, angle, sigma, …)
 * @xv_ms: xv's published single-thread time at 1.4 Mpx 8-bit RGB (ms), 0 when none
 */
typedef struct {
  const char *label;
  const char *id;
  const char *step;
  LbBenchKernelKind kind;
  double p[3];
  double xv_ms;
} LbBenchFilterSpec;

/* The filter table: every filter at the parameters of the speed table. */
const LbBenchFilterSpec *lb_bench_filter_specs (guint *n_specs);

/* A spec with other parameters (radius-independence rows); @step and @label are copied
 * into @storage-owned strings by the caller. */
LbBenchFilterSpec lb_bench_filter_spec_with (const LbBenchFilterSpec *base,
                                             const char              *label,
                                             const char              *step,
                                             double                   p0);

/* Runs one pass of @spec over @src into @dst (same geometry) through the kernel library:
 * @dst is first overwritten with a copy of @src, then prepare, process (bands of about four
 * per thread over @n_threads threads; 1 = the calling thread only), finish, release.
 * @reference selects the scalar reference path. Returns FALSE with an error from prepare. */
gboolean lb_bench_kernel_run (const LbBenchFilterSpec *spec,
                              const LbKernelBuf       *src,
                              LbKernelBuf             *dst,
                              gboolean                 reference,
                              guint                    n_threads,
                              GError                 **error);

G_END_DECLS
