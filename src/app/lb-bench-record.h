/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>

#include "lb-format.h"

G_BEGIN_DECLS

/**
 * LbBenchRecord:
 *
 * One filter pass logged by benchmark mode: which filter with which parameters, on an image
 * of which size and format, on how many threads, and how long it took. Immutable. Its
 * properties are what the benchmark panel's columns show and sort by.
 */
#define LB_TYPE_BENCH_RECORD (lb_bench_record_get_type ())
G_DECLARE_FINAL_TYPE (LbBenchRecord, lb_bench_record, LB, BENCH_RECORD, GObject)

/* @filter: the filter's id; @params: (nullable): its parameters as a step string;
 * @ms: the pass's time in milliseconds */
LbBenchRecord  *lb_bench_record_new           (const char     *filter,
                                               const char     *params,
                                               guint           width,
                                               guint           height,
                                               LbSampleFormat  format,
                                               guint           threads,
                                               double          ms);
const char     *lb_bench_record_get_filter    (LbBenchRecord  *self);
/* "" when the filter has none */
const char     *lb_bench_record_get_params    (LbBenchRecord  *self);
guint           lb_bench_record_get_width     (LbBenchRecord  *self);
guint           lb_bench_record_get_height    (LbBenchRecord  *self);
double          lb_bench_record_get_megapixels (LbBenchRecord *self);
LbSampleFormat  lb_bench_record_get_format    (LbBenchRecord  *self);
guint           lb_bench_record_get_threads   (LbBenchRecord  *self);
double          lb_bench_record_get_ms        (LbBenchRecord  *self);
/* Throughput: megapixels per second, 0 if the time is 0. */
double          lb_bench_record_get_mpx_per_s (LbBenchRecord  *self);

G_END_DECLS
