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
} LbMeasureStats;

typedef struct {
  guint warmup;          /* runs thrown away first (caches, page faults, lazy init) */
  guint min_runs;        /* at least this many measured runs */
  guint max_runs;        /* at most this many */
  double max_seconds;    /* stop measuring after this much wall time, stable or not */
  double tolerance;      /* relative: stop when the median moved less than this between rounds */
} LbMeasureOptions;

#define LB_MEASURE_OPTIONS_DEFAULT { 2, 5, 200, 3.0, 0.02 }

/* Returns the time of one run in milliseconds (or any other sample to aggregate). */
typedef double (*LbMeasureFunc) (gpointer user_data);

/* Warm up, then repeat @func in rounds until the median is stable (GEGL perf style): after
 * each round of min_runs samples the median over all samples so far is compared with the one
 * before; within @tolerance it stops. Shared machines are noisy: quote the median. */
LbMeasureStats lb_measure_run      (LbMeasureFunc           func,
                                    gpointer                user_data,
                                    const LbMeasureOptions *options);
/* Statistics of samples already taken. Sorts @samples in place. */
LbMeasureStats lb_measure_stats_of (double                 *samples,
                                    guint                   n);
double         lb_measure_now_ms   (void);

G_END_DECLS
