/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "lb-format.h"

G_BEGIN_DECLS

/**
 * LbBenchPanel:
 *
 * Benchmark mode's panel: a log of every filter pass (filter, parameters, image size and
 * format, threads, ms, Mpx/s), a plot of time against image size (one line per filter,
 * drawn with cairo), and CSV export.
 */
#define LB_TYPE_BENCH_PANEL (lb_bench_panel_get_type ())
G_DECLARE_FINAL_TYPE (LbBenchPanel, lb_bench_panel, LB, BENCH_PANEL, GtkWidget)

GtkWidget *lb_bench_panel_new           (void);
void       lb_bench_panel_add           (LbBenchPanel   *self,
                                         const char     *filter,
                                         const char     *params,
                                         guint           width,
                                         guint           height,
                                         LbSampleFormat  format,
                                         guint           threads,
                                         double          ms);
guint      lb_bench_panel_get_n_records (LbBenchPanel   *self);
void       lb_bench_panel_clear         (LbBenchPanel   *self);
gboolean   lb_bench_panel_write_csv     (LbBenchPanel   *self,
                                         const char     *path,
                                         GError        **error);
GtkWidget *lb_bench_panel_get_plot      (LbBenchPanel   *self);

G_END_DECLS
