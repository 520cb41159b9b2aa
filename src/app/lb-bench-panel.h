/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "lb-format.h"

G_BEGIN_DECLS

/**
 * LbBenchPanel:
 *
 * Benchmark mode's panel: a log of every filter pass (filter, parameters, image size and
 * format, threads, ms, Mpx/s) as a table sortable by any column, a plot of time against
 * image size (one line per filter, drawn with cairo), CSV export and copying the table.
 *
 * Actions: bench.export (a file chooser, then CSV), bench.copy (Ctrl+C in the panel: the
 * table as shown, tab-separated) and bench.clear. The widget is ui/lb-bench-panel.ui; its
 * rows are LbBenchRecord (lb-bench-record.h).
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
/* The log, in the order it was logged. */
gboolean   lb_bench_panel_write_csv     (LbBenchPanel   *self,
                                         const char     *path,
                                         GError        **error);
/* What bench.copy puts on the clipboard: a header line of the column titles, then the rows
 * as shown (in the table's order), tab-separated. (transfer full) */
char      *lb_bench_panel_dup_text      (LbBenchPanel   *self);
GtkWidget *lb_bench_panel_get_plot      (LbBenchPanel   *self);
/* The GtkColumnView of the log. */
GtkWidget *lb_bench_panel_get_table     (LbBenchPanel   *self);

G_END_DECLS
