/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A line chart in the style of the MedJava paper's figures (time against image size, throughput
 * against buffer size): one line per series, optional log axes, legend, drawn with cairo to
 * SVG and PNG. */
typedef struct _LbBenchPlot LbBenchPlot;

LbBenchPlot *lb_bench_plot_new        (const char  *title,
                                       const char  *x_label,
                                       const char  *y_label);
void         lb_bench_plot_free       (LbBenchPlot *plot);
void         lb_bench_plot_set_log    (LbBenchPlot *plot,
                                       gboolean     log_x,
                                       gboolean     log_y);
/* Returns the series index. Points are added in any order and drawn sorted by x. */
guint        lb_bench_plot_add_series (LbBenchPlot *plot,
                                       const char  *name);
void         lb_bench_plot_add_point  (LbBenchPlot *plot,
                                       guint        series,
                                       double       x,
                                       double       y);
/* Writes @basename.svg and @basename.png (800×500 px). */
gboolean     lb_bench_plot_save       (LbBenchPlot *plot,
                                       const char  *basename,
                                       GError     **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LbBenchPlot, lb_bench_plot_free)

G_END_DECLS
