/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* The band loop of a pipeline pass, private to lb-pipeline.c and lb-pipeline-bands.c. */

#include <gio/gio.h>

#include "lb-band-guard.h"
#include "lb-filter-plugin.h"

G_BEGIN_DECLS

/* Everything the threads of one pass share. */
typedef struct {
  const LbFilterInfo *info;
  gconstpointer state;
  const LbFilterImage *image;
  guint8 *dst;
  gsize dst_stride;
  LbFilterRect wr;       /* write rectangle */
  gsize row_size;        /* bytes of pixels in one row */
  gboolean copy_in_bands; /* each band copies its own source rows into dst first */
  int band_height;
  int n_bands;
  gsize scratch_size;
  GCancellable *cancellable;
  LbBandGuard *guard;     /* nullable: check-plugin's guarded destination */
  gboolean guard_cancel;  /* stop the band at its first report of rows (check-plugin) */
  gboolean guard_columns; /* a canary outside the write rectangle's columns (check-plugin) */

  gint next_band;        /* atomic: the next band to take */
  gint rows_done;        /* atomic: for progress */
  gint stop;             /* atomic flag handed to plugins: cancelled or failed */
  GMutex lock;
  GError *error;         /* first failure, under @lock */
} PassRun;

typedef struct {
  PassRun *run;
  int index;
  void (*report) (gpointer data, PassRun *run);  /* nullable */
  gpointer report_data;
} Worker;

/* The samples of one @width-pixel row of @row_size bytes outside columns [x0, x1). */
void     _lb_pass_copy_row_outside (guint8              *d,
                                    const guint8        *s,
                                    gsize                row_size,
                                    int                  width,
                                    int                  x0,
                                    int                  x1);
/* A GThreadFunc for lb_crew_run(): runs bands of @data (a Worker) until none is left. */
gpointer _lb_pass_worker_main      (gpointer             data);
/* LbFilterHost.parallel_for; host_data is the PassRun. */
gboolean _lb_pass_parallel_for     (const LbFilterHost  *host,
                                    int                  n_items,
                                    LbFilterParallelFunc func,
                                    gpointer             data);
/* GCancellable::cancelled: stops the PassRun @data. */
void     _lb_pass_cancelled_cb     (GCancellable        *cancellable,
                                    gpointer             data);

G_END_DECLS
