/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One measured quantity over repeated runs, in the unit of the samples (ms unless stated). */
typedef struct {
  double median;
  double p10;
  double p90;
  double min;
  double max;
  guint n;          /* samples taken after warm-up */
  gboolean stable;  /* the median settled within the tolerance before the limits were hit */
} LbBenchStats;

typedef struct {
  guint warmup;          /* runs thrown away first (caches, page faults, lazy init) */
  guint min_runs;        /* at least this many measured runs */
  guint max_runs;        /* at most this many */
  double max_seconds;    /* stop measuring after this much wall time, stable or not */
  double tolerance;      /* relative: stop when the median moved less than this between rounds */
} LbBenchOptions;

#define LB_BENCH_OPTIONS_DEFAULT { 2, 5, 200, 3.0, 0.02 }

/* Returns the time of one run in milliseconds (or any other sample to aggregate). */
typedef double (*LbBenchFunc) (gpointer user_data);

/* Warm up, then repeat @func in rounds until the median is stable (GEGL perf style): after
 * each round of min_runs samples the median over all samples so far is compared with the one
 * before; within @tolerance it stops. Shared machines are noisy: quote the median. */
LbBenchStats lb_bench_measure     (LbBenchFunc           func,
                                   gpointer              user_data,
                                   const LbBenchOptions *options);
/* Statistics of samples already taken. Sorts @samples in place. */
LbBenchStats lb_bench_stats_of    (double               *samples,
                                   guint                 n);
double       lb_bench_now_ms      (void);

G_END_DECLS
