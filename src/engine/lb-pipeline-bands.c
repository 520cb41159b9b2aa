/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-pipeline"

/* The band loop of a pipeline pass (lb-pipeline.c): the threads that take bands in turn,
 * copy their source rows, call the plugin's process() and pass progress on; and the parallel
 * loop lent to finish() through LbFilterHost. */

#include <string.h>

#include "lb-band-guard.h"
#include "lb-crew.h"
#include "lb-error.h"
#include "lb-pipeline-bands.h"

/* Scratch alignment promised by the ABI, bytes. */
#define SCRATCH_ALIGN 64

void
_lb_pass_copy_row_outside (guint8       *d,
                           const guint8 *s,
                           gsize         row_size,
                           int           width,
                           int           x0,
                           int           x1)
{
  const gsize px = row_size / (gsize) width;
  const gsize left = (gsize) x0 * px, right = (gsize) x1 * px;

  if (left > 0)
    memcpy (d, s, left);
  if (right < row_size)
    memcpy (d + right, s + right, row_size - right);
}

/* check-plugin's guard for columns. Guard pages take away whole rows; the columns left and
 * right of the write rectangle share their rows' pages, so in a guarded pass they hold a
 * canary while process() runs (a pattern no filter computes from the source), checked and
 * replaced by the source's samples when it returns. A write there, even of the value the
 * host would have copied, changes the pattern. */
static inline guint8
canary_byte (gsize i,
             int   y)
{
  return (guint8) (0xA5u ^ (guint) (i * 7u + (guint) y * 13u));
}

static void
canary_fill (PassRun            *run,
             const LbFilterBand *bp)
{
  const gsize px = run->row_size / (gsize) run->image->width;
  const gsize left = (gsize) bp->x0 * px, right = (gsize) bp->x1 * px;

  for (int y = bp->y0; y < bp->y1; y++)
    {
      guint8 *d = run->dst + (gsize) y * run->dst_stride;

      for (gsize i = 0; i < left; i++)
        d[i] = canary_byte (i, y);
      for (gsize i = right; i < run->row_size; i++)
        d[i] = canary_byte (i, y);
    }
}

/* FALSE, with the first sample written, when process() touched the canary. Every row of the
 * band gets the source's samples back either way. */
static gboolean
canary_check (PassRun            *run,
              const LbFilterBand *bp,
              GError            **error)
{
  const gsize px = run->row_size / (gsize) run->image->width;
  const gsize left = (gsize) bp->x0 * px, right = (gsize) bp->x1 * px;
  gboolean ok = TRUE;

  for (int y = bp->y0; y < bp->y1; y++)
    {
      guint8 *d = run->dst + (gsize) y * run->dst_stride;

      for (gsize i = 0; ok && i < run->row_size; i++)
        if ((i < left || i >= right) && d[i] != canary_byte (i, y))
          {
            g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                         "process() wrote column %d of row %d, outside the write rectangle's "
                         "columns %d..%d", (int) (i / px), y, bp->x0, bp->x1 - 1);
            ok = FALSE;
          }
      _lb_pass_copy_row_outside (d, run->image->src + (gsize) y * run->image->src_stride,
                                 run->row_size, run->image->width, bp->x0, bp->x1);
    }
  return ok;
}

/* What one thread knows of the band it runs; the plugin's band comes first so that the
 * rows_done() hook can find the rest from the pointer it is given. */
typedef struct {
  LbFilterBand band;
  PassRun *run;
  int reported;          /* rows of this band the plugin reported through rows_done() */
  void (*report) (gpointer data, PassRun *run);  /* nullable: this thread does not report */
  gpointer report_data;
  int last_step;         /* the pass's rows_done / step at this thread's last report */
  gint64 last_report;    /* µs, monotonic */
} BandCtx;

/* How often a thread passes progress on: at each 1/PROGRESS_STEPS of the pass's rows, or
 * after PROGRESS_QUIET_US without a report (a pass so slow that one step takes longer would
 * otherwise starve the progress bar, and an isolated pass's watchdog, which counts these
 * reports). Reporting every row would send thousands of messages per pass to the main loop
 * or over the helper's socket. */
#define PROGRESS_STEPS 256
/* Rows a plugin may still write after the cancel it is told of (check-plugin's cancel check). */
#define GUARD_CANCEL_SLACK 8
#define PROGRESS_QUIET_US G_USEC_PER_SEC

static void
maybe_report (BandCtx *ctx,
              int      done)
{
  const int step = MAX (1, ctx->run->wr.height / PROGRESS_STEPS);
  gint64 now;

  if (ctx->report == NULL)
    return;
  now = g_get_monotonic_time ();
  if (done / step == ctx->last_step && now - ctx->last_report < PROGRESS_QUIET_US)
    return;
  ctx->last_step = done / step;
  ctx->last_report = now;
  ctx->report (ctx->report_data, ctx->run);
}

/* LbFilterBand.rows_done (ABI 1.2), called by the plugin on the band's own thread. */
static void
band_rows_done (const LbFilterBand *band,
                int                 n_rows)
{
  BandCtx *ctx = (BandCtx *) band;   /* band is ctx->band, the first member */

  /* a plugin that over-reports must not push the pass past 100 % */
  n_rows = MIN (n_rows, band->y1 - band->y0 - ctx->reported);
  if (n_rows <= 0)
    return;
  ctx->reported += n_rows;
  if (ctx->run->guard_cancel && !g_atomic_int_get (&ctx->run->stop))
    {
      /* A cancel arrives now: the plugin may finish the rows it is on, but must stop within
       * GUARD_CANCEL_SLACK rows (it polls every row or every few rows). */
      g_atomic_int_set (&ctx->run->stop, 1);
      _lb_band_guard_cancel_at (ctx->run->guard, band->y0 + ctx->reported + GUARD_CANCEL_SLACK);
    }
  maybe_report (ctx, g_atomic_int_add (&ctx->run->rows_done, n_rows) + n_rows);
}

/* Runs bands until none is left. The calling thread reports progress through @report. */
static void
run_bands (PassRun *run,
           int      thread_index,
           void   (*report) (gpointer data, PassRun *run),
           gpointer report_data)
{
  gpointer scratch = NULL;
  BandCtx ctx = { { 0 } };
  LbFilterBand *const bp = &ctx.band;

  if (run->scratch_size > 0)
    scratch = g_aligned_alloc0 (1, run->scratch_size, SCRATCH_ALIGN);
  ctx.run = run;
  ctx.report = report;
  ctx.report_data = report_data;
  ctx.last_step = -1;
  ctx.last_report = g_get_monotonic_time ();
  bp->struct_size = sizeof *bp;
  bp->image = run->image;
  bp->dst = run->dst;
  bp->dst_stride = run->dst_stride;
  bp->x0 = run->wr.x;
  bp->x1 = run->wr.x + run->wr.width;
  bp->scratch = scratch;
  bp->cancelled = &run->stop;
  bp->thread_index = thread_index;
  bp->rows_done = band_rows_done;

  for (;;)
    {
      int b = g_atomic_int_add (&run->next_band, 1);
      g_autoptr(GError) error = NULL;
      gboolean ok, guarded_columns;

      if (b >= run->n_bands || g_atomic_int_get (&run->stop))
        break;
      if (run->cancellable != NULL && g_cancellable_is_cancelled (run->cancellable))
        {
          g_atomic_int_set (&run->stop, 1);
          break;
        }
      bp->y0 = run->wr.y + b * run->band_height;
      bp->y1 = MIN (bp->y0 + run->band_height, run->wr.y + run->wr.height);
      ctx.reported = 0;
      /* The destination starts as a copy of the source. Copying a band's rows right before
       * the band runs spreads the copy over the threads and leaves the rows in cache for
       * the kernel. Safe because process() writes, and reads of dst stay within, its rows.
       * Bands are full-width here; a host that cuts tiles (LB_FILTER_FLAG_TILES) must copy
       * per tile instead. */
      if (run->copy_in_bands && !(run->info->flags & LB_FILTER_FLAG_OVERWRITES))
        for (int y = bp->y0; y < bp->y1; y++)
          memcpy (run->dst + (gsize) y * run->dst_stride,
                  run->image->src + (gsize) y * run->image->src_stride, run->row_size);
      else if (run->copy_in_bands)
        {
          /* The filter writes every sample of [x0, x1) × band rows itself (its flag says so):
           * copy only the columns left and right of it, usually none. */
          for (int y = bp->y0; y < bp->y1; y++)
            _lb_pass_copy_row_outside (run->dst + (gsize) y * run->dst_stride,
                              run->image->src + (gsize) y * run->image->src_stride,
                              run->row_size, run->image->width, bp->x0, bp->x1);
        }
      guarded_columns = run->guard_columns && run->copy_in_bands
                        && (bp->x0 > 0 || bp->x1 < run->image->width);
      if (guarded_columns)
        canary_fill (run, bp);
      if (run->guard != NULL)
        _lb_band_guard_enter (run->guard, bp->y0, bp->y1);
      ok = run->info->process (run->state, bp, &error);
      if (run->guard != NULL)
        _lb_band_guard_leave (run->guard);
      if (guarded_columns && !canary_check (run, bp, ok ? &error : NULL))
        ok = FALSE;
      if (!ok && (error != NULL || !g_atomic_int_get (&run->stop)))
        {
          /* FALSE without an error and without cancellation is still a failure. */
          if (error == NULL)
            g_set_error (&error, LB_ERROR, LB_ERROR_FAILED,
                         "process failed on rows %d..%d without a reason", bp->y0, bp->y1 - 1);
          g_mutex_lock (&run->lock);
          if (run->error == NULL)
            run->error = g_steal_pointer (&error);
          g_mutex_unlock (&run->lock);
          g_atomic_int_set (&run->stop, 1);
          break;
        }
      /* A band cut short by cancellation (or by a failure on another thread) counts for
       * nothing: its result is discarded, and the progress bar must not jump to the end. */
      if (g_atomic_int_get (&run->stop))
        break;
      /* the rows the plugin did not report itself (all of them, for most filters) */
      g_atomic_int_add (&run->rows_done, bp->y1 - bp->y0 - ctx.reported);
      if (report != NULL)
        {
          ctx.last_step = -1;   /* a finished band is always reported */
          maybe_report (&ctx, g_atomic_int_get (&run->rows_done));
        }
    }
  g_aligned_free (scratch);
}

gpointer
_lb_pass_worker_main (gpointer data)
{
  Worker *w = data;

  run_bands (w->run, w->index, w->report, w->report_data);
  return NULL;
}

/* The parallel loop lent to finish() through LbFilterHost. */
typedef struct {
  LbFilterParallelFunc func;
  gpointer data;
  int n_items;
  gint next;          /* atomic */
  const gint *stop;
} ParLoop;

typedef struct {
  ParLoop *loop;
  int index;
} ParWorker;

static void
par_run (ParLoop *loop,
         int      thread_index)
{
  for (;;)
    {
      int i = g_atomic_int_add (&loop->next, 1);

      if (i >= loop->n_items || g_atomic_int_get (loop->stop))
        break;
      loop->func (loop->data, i, thread_index);
    }
}

static gpointer
par_main (gpointer data)
{
  ParWorker *w = data;

  par_run (w->loop, w->index);
  return NULL;
}

gboolean
_lb_pass_parallel_for (const LbFilterHost  *host,
                       int                  n_items,
                       LbFilterParallelFunc func,
                       gpointer             data)
{
  PassRun *run = host->host_data;
  ParLoop loop = { func, data, n_items, 0, &run->stop };
  int n_threads = MAX (1, MIN (host->n_threads, n_items));
  g_autofree ParWorker *workers = g_new0 (ParWorker, n_threads);

  for (int t = 0; t < n_threads; t++)
    {
      workers[t].loop = &loop;
      workers[t].index = t;
    }
  lb_crew_run ((guint) n_threads, par_main, workers, sizeof (ParWorker));
  return !g_atomic_int_get (&run->stop);
}

void
_lb_pass_cancelled_cb (GCancellable *cancellable,
                       gpointer      data)
{
  PassRun *run = data;

  g_atomic_int_set (&run->stop, 1);
}
