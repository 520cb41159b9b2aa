/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "lb-bench-panel.h"
#include "lb-canvas.h"
#include "lb-history.h"
#include "lb-measure-layer.h"
#include "lb-store-browser.h"
#include "lb-series-loader.h"
#include "lb-window.h"

G_BEGIN_DECLS

/* What the UI tests and bench/ui-timing read from a window, so that they need not see its
 * private struct (lb-window-private.h). Not installed, and not for the application's own
 * code, which uses the struct. All return (transfer none). */

LbCanvas       *lb_window_test_get_canvas          (LbWindow   *self);
/* NULL while no image is open. */
LbHistory      *lb_window_test_get_history         (LbWindow   *self);
LbStoreBrowser *lb_window_test_get_browser         (LbWindow   *self);
LbBenchPanel   *lb_window_test_get_bench_panel     (LbWindow   *self);
GSettings      *lb_window_test_get_settings        (LbWindow   *self);
/* The LbFilter items the current store publishes. */
GListModel     *lb_window_test_get_store_filters   (LbWindow   *self);
/* A widget of the window's template by its id in ui/lb-window.ui ("size_label",
 * "progress_bar", …); NULL for an unknown id. */
GtkWidget      *lb_window_test_get_child           (LbWindow   *self,
                                                    const char *id);

/* The dialogs the window has open now, NULL when closed. (Questions and errors, shown with
 * lb_dialogs_ask(), are found among the toplevels: tests/ui/lb-test-dialogs.h.) */
GtkWidget      *lb_window_test_get_param_dialog    (LbWindow   *self);
GtkWidget      *lb_window_test_get_upload_dialog   (LbWindow   *self);
/* The name entry of the upload dialog. */
GtkWidget      *lb_window_test_get_upload_entry    (LbWindow   *self);

/* The last result line (upload verification, errors), NULL before the first. */
const char     *lb_window_test_get_last_status     (LbWindow   *self);
const char     *lb_window_test_get_last_upload_uri (LbWindow   *self);

/* The image load: monotonic times (µs, g_get_monotonic_time ()) of its start, of its first
 * rows on the canvas and of its end; 0 until then. */
gint64          lb_window_test_get_load_started_us (LbWindow   *self);
gint64          lb_window_test_get_first_pixels_us (LbWindow   *self);
gint64          lb_window_test_get_load_done_us    (LbWindow   *self);
/* TRUE while an image downloads or decodes (lb_window_is_busy() also covers filters,
 * uploads and listings). */
gboolean        lb_window_test_is_loading          (LbWindow   *self);

/* The scale bar's drawing over the canvas (as large as the canvas), and the length it shows
 * in mm (0: none). */
GtkWidget      *lb_window_test_get_scale_bar       (LbWindow   *self,
                                                    double     *mm);
/* Opens the series at @uri of the window's store as a stack, as its row in the tree does. */
void            lb_window_test_open_series         (LbWindow   *self,
                                                    const char *uri);
/* The background loading of the series shown (lb-series-loader.h), NULL without one. */
LbSeriesLoader *lb_window_test_get_series_loader   (LbWindow   *self);
/* The DICOM tag browser (an LbTagBrowser), NULL before win.tag-browser first opens it. */
GtkWidget      *lb_window_test_get_tag_browser     (LbWindow   *self);
/* The measurement tools on the canvas, and the CSV export without the file chooser
 * (asynchronous: the status says "Measurements exported" when written). */
LbMeasureLayer *lb_window_test_get_measure_layer   (LbWindow   *self);
void            lb_window_test_export_measurements (LbWindow   *self,
                                                    const char *path);
/* The measurements panel's list: one row per measurement of the study. */
GtkListBox     *lb_window_test_get_measurements_rows (LbWindow *self);

/* The open parameter dialog's second image: the file at @path, as if chosen with "From
 * File…" (whose file chooser may be the desktop portal's, out of a test's reach). */
void            lb_window_test_choose_aux_file     (LbWindow   *self,
                                                    const char *path);

G_END_DECLS
