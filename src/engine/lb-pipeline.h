/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "lb-filter-params.h"
#include "lb-filter-registry.h"
#include "lb-image.h"
#include "lb-isolation.h"

G_BEGIN_DECLS

/**
 * LbPassTiming:
 * @filter_id: the filter's stable id
 * @params: its canonical parameter string ("size=3")
 * @width: image width, pixels
 * @height: image height, pixels
 * @format: sample format of the pass
 * @threads: worker threads that ran bands (1 for sequential filters)
 * @bands: number of bands the write rectangle was cut into
 * @usec: wall time of the whole pass on the monotonic clock, µs: allocation and copy of
 *   the destination, prepare, every band, finish and release
 *
 * One pass of a pipeline run, as reported to the caller. lightbox-cli --time, bench/ and the
 * UI's benchmark mode all read their figures from here.
 */
typedef struct {
  char *filter_id;
  char *params;
  guint width;
  guint height;
  LbSampleFormat format;
  guint threads;
  guint bands;
  gint64 usec;
} LbPassTiming;

void lb_pass_timing_free (LbPassTiming *timing);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LbPassTiming, lb_pass_timing_free)

/**
 * LbPipelineProgressFunc:
 * @fraction: 0..1 over all passes
 *
 * Called on the thread that runs the pipeline (for lb_pipeline_run_async() that is a GTask
 * worker: hand the value to the UI with g_main_context_invoke()).
 */
typedef void (*LbPipelineProgressFunc) (double   fraction,
                                        gpointer user_data);

#define LB_TYPE_PIPELINE (lb_pipeline_get_type ())
G_DECLARE_FINAL_TYPE (LbPipeline, lb_pipeline, LB, PIPELINE, GObject)

/**
 * LbPipeline:
 *
 * Runs one filter or a chain of filters over an #LbImage into a new #LbImage; the input is
 * never modified. Each pass copies its input into a new destination (so pixels a filter does
 * not write keep their value, as in xv), calls prepare() once, runs process() over bands of
 * rows on a pool of threads, then finish(). Output is byte-identical for every thread count
 * and band height: bands are independent and each band's result depends only on its rows.
 * Memory: one pass holds its input and its output, 2× the image.
 *
 * Configure first, then run; do not change a pipeline while it runs.
 */
/* @registry: (nullable): needed to expand declarative chains and to parse step strings */
LbPipeline *lb_pipeline_new              (LbFilterRegistry *registry);

/* @params: (nullable): defaults when NULL. Chains are expanded into their steps here. */
gboolean    lb_pipeline_append           (LbPipeline       *self,
                                          LbFilter         *filter,
                                          LbFilterParams   *params,
                                          GError          **error);
/* "ID[:NAME=VALUE[,NAME=VALUE…]]"; ID may be the short alias ("blur:size=5"). */
gboolean    lb_pipeline_append_step      (LbPipeline       *self,
                                          const char       *step,
                                          GError          **error);
guint       lb_pipeline_get_n_passes     (LbPipeline       *self);

/* 0 (the default) = g_get_num_processors() */
void        lb_pipeline_set_n_threads    (LbPipeline       *self,
                                          guint             n_threads);
/* Rows per band; 0 (the default) = about four bands per thread. */
void        lb_pipeline_set_band_height  (LbPipeline       *self,
                                          guint             rows);
/* @rect: (nullable): confine every pass to this rectangle (clipped to the image), as xv's
 * selection does; NULL = the whole image */
void        lb_pipeline_set_selection    (LbPipeline         *self,
                                          const LbFilterRect *rect);
/* @aux: (nullable): the second image of every pass whose filter reads two
 * (lb_filter_get_n_inputs() 2, LbFilterImage.aux: a subtraction's mask); such a pass fails
 * with %LB_ERROR_INVALID_ARGUMENT without one. Other passes ignore it. */
void        lb_pipeline_set_aux_input    (LbPipeline       *self,
                                          LbImage          *aux);
/* Seed for random filters (spread); default 1. */
void        lb_pipeline_set_seed         (LbPipeline       *self,
                                          guint64           seed);
/* Where plugin filters run (LB_ISOLATION_DEFAULT, the default, follows
 * $LIGHTBOX_PLUGIN_ISOLATION); see lb-isolation.h. */
void        lb_pipeline_set_isolation    (LbPipeline       *self,
                                          LbIsolation       isolation);
/* Engine-internal (lightbox-filter-host): the last pass writes into @data (@size bytes,
 * rows @stride apart) instead of a new buffer; the output image then borrows @data, which
 * must outlive it. */
void        _lb_pipeline_set_output_buffer (LbPipeline *self,
                                            guint8     *data,
                                            gsize       stride,
                                            gsize       size);
/* Engine-internal (lightbox-cli check-plugin): run every pass in this process, its bands on
 * one thread in order, into a destination where each band can touch only its own rows
 * (lb-band-guard.h): a write elsewhere faults. With @cancel_in_band, a band is the whole
 * write rectangle and the pass is stopped at the plugin's first report of rows done; rows
 * more than a few past that point are taken away too, and the pass ends with
 * %G_IO_ERROR_CANCELLED (or succeeds, if the plugin never reported a row). */
void        _lb_pipeline_set_guard       (LbPipeline *self,
                                          gboolean    guard,
                                          gboolean    cancel_in_band);
/* Engine-internal (lightbox-cli check-plugin): in a guarded pass, the columns left and right
 * of the write rectangle hold a canary while process() runs; a band that changed it fails
 * the pass with %LB_ERROR_PLUGIN naming the first sample written ("process() wrote column
 * 8 of row 5, outside the write rectangle's columns 9..39"). */
void        _lb_pipeline_set_guard_columns (LbPipeline *self,
                                            gboolean    columns);
/* Engine-internal (lightbox-filter-host): call the progress function after every band on
 * whichever pipeline thread finished it (it must then be thread-safe; fractions may arrive
 * slightly out of order). */
void        _lb_pipeline_set_progress_any_thread (LbPipeline *self,
                                                  gboolean    any_thread);
void        lb_pipeline_set_progress_func (LbPipeline            *self,
                                           LbPipelineProgressFunc func,
                                           gpointer               user_data,
                                           GDestroyNotify         destroy);

/**
 * lb_pipeline_run:
 * @timings: (out) (optional) (transfer full): a #GPtrArray of #LbPassTiming, one per pass
 *
 * Runs every pass. Errors: %LB_ERROR_UNSUPPORTED for a format a filter does not accept,
 * %LB_ERROR_INVALID_ARGUMENT for an empty selection, the filter's own errors prefixed with
 * its id, %G_IO_ERROR_CANCELLED when @cancellable fires. A pass that runs isolated
 * (lb_pipeline_set_isolation()) also fails with %LB_ERROR_PLUGIN when the plugin crashes
 * ("Filter “ID” in plugin PATH crashed (SIGSEGV, Segmentation fault); the image is
 * unchanged", then the helper's backtrace on the following lines), exits, or completes no
 * band for $LIGHTBOX_FILTER_TIMEOUT seconds; cancelling
 * such a pass kills its helper process at once, whether or not the plugin polls the cancel
 * flag. A pipeline without passes returns a new reference to @input.
 */
LbImage    *lb_pipeline_run              (LbPipeline       *self,
                                          LbImage          *input,
                                          GPtrArray       **timings,
                                          GCancellable     *cancellable,
                                          GError          **error);
void        lb_pipeline_run_async        (LbPipeline          *self,
                                          LbImage             *input,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
LbImage    *lb_pipeline_run_finish       (LbPipeline       *self,
                                          GAsyncResult     *result,
                                          GPtrArray       **timings,
                                          GError          **error);

/**
 * lb_pipeline_parse_step:
 * @filter: (out) (transfer full)
 * @params: (out) (transfer full)
 *
 * Resolves "ID[:NAME=VALUE,…]" against @registry and validates the parameters.
 */
gboolean    lb_pipeline_parse_step       (LbFilterRegistry *registry,
                                          const char       *step,
                                          LbFilter        **filter,
                                          LbFilterParams  **params,
                                          GError          **error);

G_END_DECLS
