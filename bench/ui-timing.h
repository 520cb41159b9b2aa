/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* ui-timing's shared helpers (ui-timing.c) and its larger sections, one file each:
 * ui-timing-listing.c (4 and 6), ui-timing-download.c (5) and ui-timing-series.c (7). */

#include <gtk/gtk.h>
#include <math.h>

#include "lb-window.h"

G_BEGIN_DECLS

/* Monotonic time (µs) of the window's last painted frame, and what that frame cost from
 * before-paint to after-paint. */
extern gint64 ui_timing_painted_us;
extern gint64 ui_timing_last_frame_cost_us;

static inline int
cmp_double (gconstpointer a,
            gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y ? 1 : 0;
}

/* The median and the @p quantile (0..1) of the ms in @a (nearest rank, no interpolation);
 * both sort @a. NAN when empty. */
static inline double
median (GArray *a)
{
  g_array_sort (a, cmp_double);
  return a->len ? g_array_index (a, double, a->len / 2) : NAN;
}

static inline double
pct (GArray *a,
     double  p)
{
  g_array_sort (a, cmp_double);
  return a->len ? g_array_index (a, double, (guint) MIN (a->len - 1, p * a->len)) : NAN;
}

/* Iterates the main loop until a frame is painted after @since (µs); FALSE on timeout. */
gboolean    ui_timing_wait_painted_after (gint64        since,
                                          guint         timeout_ms);
/* Iterates the main loop until @cond (@data) holds; FALSE after @ms. */
gboolean    ui_timing_wait_for           (gboolean    (*cond) (gpointer),
                                          gpointer      data,
                                          guint         ms);
/* A wait_for() condition: the window's store tree (@data the window) lists nothing more. */
gboolean    ui_timing_store_ready        (gpointer      data);
/* Starts the built lightbox-store serving @root on a free port of 127.0.0.1; returns its URL.
 * Its stdout stays open (held by *proc) until the process is gone. */
char       *ui_timing_start_store        (const char   *root,
                                          GSubprocess **proc);
/* The window's last status line, for messages. */
const char *ui_timing_last_status        (LbWindow     *win);

/* ui-timing-listing.c */
void        ui_timing_bench_large_folder (LbWindow     *win);
void        ui_timing_bench_json_listing (LbWindow     *win);
/* ui-timing-download.c; @shown: what the window shows during the baseline */
void        ui_timing_bench_download     (LbWindow     *win,
                                          LbImage      *shown);

/* ui-timing-series.c (7): stack scroll, a DICOMweb series' load, a loaded series' memory */
void        ui_timing_bench_series       (LbWindow     *win);
/* Section 8 (ui-timing-measure.c): an ellipse ROI dragged over a 512 × 512 CT. */
void        ui_timing_bench_measure      (LbWindow     *win);

G_END_DECLS
