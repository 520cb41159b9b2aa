/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-pipeline"

#include <string.h>

#include "lb-band-guard.h"
#include "lb-crew.h"
#include "lb-error.h"
#include "lb-filter-image.h"
#include "lb-isolation.h"
#include "lb-pipeline.h"
#include "lb-pipeline-bands.h"

typedef LbBandGuard LbBandGuardOwner;
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LbBandGuardOwner, _lb_band_guard_free)

/* Chains may contain chains; this bounds the expansion (and catches cycles). */
#define MAX_CHAIN_DEPTH 8

typedef struct {
  LbFilter *filter;        /* owned: keeps the plugin module loaded for the pass */
  LbFilterParams *params;  /* owned */
} Pass;

struct _LbPipeline {
  GObject parent_instance;

  /* Owned */
  LbFilterRegistry *registry;  /* nullable */
  GArray *passes;              /* Pass */
  LbPipelineProgressFunc progress;
  gpointer progress_data;
  GDestroyNotify progress_destroy;

  guint n_threads;
  guint band_height;
  gboolean has_selection;
  LbFilterRect selection;
  guint64 seed;
  LbIsolation isolation;
  gboolean progress_any_thread;
  gboolean guard;         /* _lb_pipeline_set_guard() */
  gboolean guard_cancel;
  gboolean guard_columns; /* _lb_pipeline_set_guard_columns() */
  LbImage *aux;           /* owned, nullable: lb_pipeline_set_aux_input() */
  guint8 *out_data;       /* borrowed: _lb_pipeline_set_output_buffer() */
  gsize out_stride;
  gsize out_size;
};

G_DEFINE_FINAL_TYPE (LbPipeline, lb_pipeline, G_TYPE_OBJECT)

void
lb_pass_timing_free (LbPassTiming *timing)
{
  if (timing == NULL)
    return;
  g_free (timing->filter_id);
  g_free (timing->params);
  g_free (timing);
}

static void
pass_clear (gpointer data)
{
  Pass *p = data;

  g_clear_object (&p->filter);
  g_clear_pointer (&p->params, lb_filter_params_unref);
}

static void
lb_pipeline_finalize (GObject *object)
{
  LbPipeline *self = LB_PIPELINE (object);

  g_clear_object (&self->registry);
  g_clear_pointer (&self->passes, g_array_unref);
  g_clear_object (&self->aux);
  if (self->progress_destroy != NULL)
    self->progress_destroy (self->progress_data);
  G_OBJECT_CLASS (lb_pipeline_parent_class)->finalize (object);
}

static void
lb_pipeline_class_init (LbPipelineClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = lb_pipeline_finalize;
}

static void
lb_pipeline_init (LbPipeline *self)
{
  self->passes = g_array_new (FALSE, TRUE, sizeof (Pass));
  g_array_set_clear_func (self->passes, pass_clear);
  self->seed = 1;
}

LbPipeline *
lb_pipeline_new (LbFilterRegistry *registry)
{
  LbPipeline *self = g_object_new (LB_TYPE_PIPELINE, NULL);

  g_return_val_if_fail (registry == NULL || LB_IS_FILTER_REGISTRY (registry), self);
  if (registry != NULL)
    self->registry = g_object_ref (registry);
  return self;
}

gboolean
lb_pipeline_parse_step (LbFilterRegistry *registry,
                        const char       *step,
                        LbFilter        **filter,
                        LbFilterParams  **params,
                        GError          **error)
{
  g_autofree char *id = NULL;
  const char *colon;
  g_autoptr(LbFilter) f = NULL;
  g_autoptr(LbFilterParams) p = NULL;

  g_return_val_if_fail (LB_IS_FILTER_REGISTRY (registry), FALSE);
  g_return_val_if_fail (step != NULL, FALSE);

  colon = strchr (step, ':');
  id = colon ? g_strndup (step, colon - step) : g_strdup (step);
  g_strstrip (id);
  if (*id == '\0')
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "“%s” is not a filter step (ID[:NAME=VALUE,…])", step);
      return FALSE;
    }
  f = lb_filter_registry_lookup (registry, id);
  if (f == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_NOT_FOUND,
                   "no filter “%s” (lightbox-cli filters lists them)", id);
      return FALSE;
    }
  p = lb_filter_params_new (f);
  if (colon != NULL && !lb_filter_params_set_from_string (p, colon + 1, error))
    return FALSE;
  *filter = g_steal_pointer (&f);
  *params = g_steal_pointer (&p);
  return TRUE;
}

static gboolean
append_expanded (LbPipeline     *self,
                 LbFilter       *filter,
                 LbFilterParams *params,
                 guint           depth,
                 GError        **error)
{
  Pass pass;

  if (lb_filter_get_kind (filter) == LB_FILTER_KIND_CHAIN)
    {
      const char *const *steps = lb_filter_get_chain (filter);

      if (depth >= MAX_CHAIN_DEPTH)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                       "chain %s nests deeper than %d levels (a cycle?)",
                       lb_filter_get_id (filter), MAX_CHAIN_DEPTH);
          return FALSE;
        }
      if (self->registry == NULL)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                       "chain %s needs a pipeline with a registry", lb_filter_get_id (filter));
          return FALSE;
        }
      for (guint i = 0; steps != NULL && steps[i] != NULL; i++)
        {
          g_autoptr(LbFilter) f = NULL;
          g_autoptr(LbFilterParams) p = NULL;

          if (!lb_pipeline_parse_step (self->registry, steps[i], &f, &p, error)
              || !append_expanded (self, f, p, depth + 1, error))
            {
              g_prefix_error (error, "chain %s, step %u: ", lb_filter_get_id (filter), i + 1);
              return FALSE;
            }
        }
      return TRUE;
    }

  pass.filter = g_object_ref (filter);
  pass.params = params ? lb_filter_params_copy (params) : lb_filter_params_new (filter);
  g_array_append_val (self->passes, pass);
  return TRUE;
}

gboolean
lb_pipeline_append (LbPipeline     *self,
                    LbFilter       *filter,
                    LbFilterParams *params,
                    GError        **error)
{
  g_return_val_if_fail (LB_IS_PIPELINE (self), FALSE);
  g_return_val_if_fail (LB_IS_FILTER (filter), FALSE);
  g_return_val_if_fail (params == NULL || lb_filter_params_get_filter (params) == filter, FALSE);
  return append_expanded (self, filter, params, 0, error);
}

gboolean
lb_pipeline_append_step (LbPipeline *self,
                         const char *step,
                         GError    **error)
{
  g_autoptr(LbFilter) f = NULL;
  g_autoptr(LbFilterParams) p = NULL;

  g_return_val_if_fail (LB_IS_PIPELINE (self), FALSE);
  if (self->registry == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "step “%s”: the pipeline has no registry", step);
      return FALSE;
    }
  return lb_pipeline_parse_step (self->registry, step, &f, &p, error)
         && lb_pipeline_append (self, f, p, error);
}

guint
lb_pipeline_get_n_passes (LbPipeline *self)
{
  g_return_val_if_fail (LB_IS_PIPELINE (self), 0);
  return self->passes->len;
}

void
lb_pipeline_set_n_threads (LbPipeline *self,
                           guint       n_threads)
{
  g_return_if_fail (LB_IS_PIPELINE (self));
  self->n_threads = n_threads;
}

void
lb_pipeline_set_band_height (LbPipeline *self,
                             guint       rows)
{
  g_return_if_fail (LB_IS_PIPELINE (self));
  self->band_height = rows;
}

void
lb_pipeline_set_selection (LbPipeline         *self,
                           const LbFilterRect *rect)
{
  g_return_if_fail (LB_IS_PIPELINE (self));
  self->has_selection = rect != NULL;
  if (rect != NULL)
    self->selection = *rect;
}

void
lb_pipeline_set_aux_input (LbPipeline *self,
                           LbImage    *aux)
{
  g_return_if_fail (LB_IS_PIPELINE (self));
  g_return_if_fail (aux == NULL || LB_IS_IMAGE (aux));
  g_set_object (&self->aux, aux);
}

void
lb_pipeline_set_seed (LbPipeline *self,
                      guint64     seed)
{
  g_return_if_fail (LB_IS_PIPELINE (self));
  self->seed = seed;
}

void
lb_pipeline_set_isolation (LbPipeline *self,
                           LbIsolation isolation)
{
  g_return_if_fail (LB_IS_PIPELINE (self));
  self->isolation = isolation;
}

void
_lb_pipeline_set_output_buffer (LbPipeline *self,
                                guint8     *data,
                                gsize       stride,
                                gsize       size)
{
  g_return_if_fail (LB_IS_PIPELINE (self));
  self->out_data = data;
  self->out_stride = stride;
  self->out_size = size;
}

void
_lb_pipeline_set_guard (LbPipeline *self,
                        gboolean    guard,
                        gboolean    cancel_in_band)
{
  g_return_if_fail (LB_IS_PIPELINE (self));
  self->guard = guard;
  self->guard_cancel = guard && cancel_in_band;
}

void
_lb_pipeline_set_guard_columns (LbPipeline *self,
                                gboolean    columns)
{
  g_return_if_fail (LB_IS_PIPELINE (self));
  self->guard_columns = columns;
}

void
_lb_pipeline_set_progress_any_thread (LbPipeline *self,
                                      gboolean    any_thread)
{
  g_return_if_fail (LB_IS_PIPELINE (self));
  self->progress_any_thread = any_thread;
}

void
lb_pipeline_set_progress_func (LbPipeline            *self,
                               LbPipelineProgressFunc func,
                               gpointer               user_data,
                               GDestroyNotify         destroy)
{
  g_return_if_fail (LB_IS_PIPELINE (self));
  if (self->progress_destroy != NULL)
    self->progress_destroy (self->progress_data);
  self->progress = func;
  self->progress_data = user_data;
  self->progress_destroy = destroy;
}

typedef struct {
  LbPipeline *self;
  guint pass_index;
  guint n_passes;
} Progress;

static void
report_progress (gpointer data,
                 PassRun *run)
{
  Progress *p = data;
  double frac;

  if (p->self->progress == NULL)
    return;
  frac = run->wr.height > 0 ? (double) g_atomic_int_get (&run->rows_done) / run->wr.height : 1.0;
  p->self->progress ((p->pass_index + frac) / p->n_passes, p->self->progress_data);
}

static void
report_isolated_progress (double   fraction,
                          gpointer data)
{
  Progress *p = data;

  if (p->self->progress != NULL)
    p->self->progress ((p->pass_index + fraction) / p->n_passes, p->self->progress_data);
}

static LbPassTiming *
new_timing (const Pass    *pass,
            LbImage       *input,
            guint          threads,
            guint          bands,
            gint64         t0)
{
  LbPassTiming *t = g_new0 (LbPassTiming, 1);

  t->usec = g_get_monotonic_time () - t0;
  t->filter_id = g_strdup (lb_filter_get_id (pass->filter));
  t->params = lb_filter_params_to_string (pass->params);
  t->width = lb_image_get_width (input);
  t->height = lb_image_get_height (input);
  t->format = lb_image_get_format (input);
  t->threads = threads;
  t->bands = bands;
  return t;
}

static gboolean
clip_rect (LbFilterRect *r,
           int           width,
           int           height)
{
  gint64 x0 = MAX (r->x, 0), y0 = MAX (r->y, 0);
  gint64 x1 = MIN ((gint64) r->x + r->width, width);
  gint64 y1 = MIN ((gint64) r->y + r->height, height);

  if (r->width <= 0 || r->height <= 0 || x1 <= x0 || y1 <= y0)
    {
      r->width = r->height = 0;
      return FALSE;
    }
  r->x = (int) x0;
  r->y = (int) y0;
  r->width = (int) (x1 - x0);
  r->height = (int) (y1 - y0);
  return TRUE;
}

/* g_get_num_processors () reads sysfs (about 20 µs a call here): asked once per process */
static guint
n_processors (void)
{
  static gsize n;

  if (g_once_init_enter (&n))
    g_once_init_leave (&n, (gsize) MAX (g_get_num_processors (), 1));
  return (guint) n;
}

static LbImage *
run_pass (LbPipeline   *self,
          const Pass   *pass,
          LbImage      *input,
          Progress     *progress,
          GCancellable *cancellable,
          LbPassTiming **out_timing,
          GError      **error)
{
  const LbFilterInfo *info = _lb_filter_get_info (pass->filter);
  const char *id = lb_filter_get_id (pass->filter);
  LbSampleFormat format = lb_image_get_format (input);
  int width = lb_image_get_width (input), height = lb_image_get_height (input);
  gsize row_size = lb_image_get_row_size (input);
  gsize dst_stride;
  g_autofree guint8 *owned = NULL;
  guint8 *dst;
  LbFilterImage image, aux_image;
  LbFilterMeta meta, aux_meta;
  /* the output's geometry: the source's, unless a LB_FILTER_FLAG_GEOMETRY filter declares
   * its own in prepare() */
  gboolean geometry = (info->flags & LB_FILTER_FLAG_GEOMETRY) != 0;
  LbFilterOutput out = { sizeof out, width, height, format, 1.0, 1.0 };
  gsize out_row_size = row_size;
  LbFilterRect wr;
  PassRun run = { 0 };
  gpointer state;
  guint n_threads = 1;
  gboolean has_bands;
  guint max_threads = self->n_threads ? self->n_threads : n_processors ();
  gulong handler = 0;
  gint64 t0;
  LbImage *output;
  g_autoptr(LbBandGuardOwner) guard = NULL;

  if (!lb_filter_supports_format (pass->filter, format))
    {
      g_autofree char *formats = lb_filter_dup_formats_string (pass->filter);
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                   "%s does not support %s images (it supports %s)", id,
                   lb_sample_format_to_string (format), formats);
      return NULL;
    }

  _lb_filter_meta_init (&meta, input);
  _lb_filter_image_init (&image, input, &meta, self->seed);
  if (!_lb_filter_image_init_aux (&image, &aux_image, &aux_meta, pass->filter, self->aux, error))
    return NULL;
  if (self->has_selection)
    {
      image.region = self->selection;
      if (!clip_rect (&image.region, width, height))
        {
          g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                       "the selection %d,%d %d×%d does not overlap the %d×%d image",
                       self->selection.x, self->selection.y, self->selection.width,
                       self->selection.height, width, height);
          return NULL;
        }
    }

  t0 = g_get_monotonic_time ();
  /* A Python filter runs in its Python process whatever the settings (guard pages cannot
   * watch it; it gets the region in one call, never bands). */
  if ((!self->guard && lb_filter_runs_isolated (pass->filter, self->isolation))
      || lb_filter_get_kind (pass->filter) == LB_FILTER_KIND_PYTHON)
    {
      /* Same pipeline code, run by lightbox-filter-host on the same bands and threads. */
      LbIsolatedOptions options = { self->n_threads, self->band_height, self->has_selection,
                                    self->selection, self->seed, -1,
                                    image.aux != NULL ? self->aux : NULL };
      LbIsolatedResult result = { 0 };

      output = _lb_isolated_run_pass (pass->filter, pass->params, input, &options,
                                      report_isolated_progress, progress, &result,
                                      cancellable, error);
      if (output != NULL && out_timing != NULL)
        *out_timing = new_timing (pass, input, result.threads, result.bands, t0);
      return output;
    }

  wr = image.region;
  image.output = geometry ? &out : NULL;
  state = info->prepare (info, lb_filter_params_get_data (pass->params), &image, &wr, error);
  image.output = NULL;
  if (state == NULL)
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, LB_ERROR, LB_ERROR_FAILED, "prepare failed without a reason");
      g_prefix_error (error, "%s: ", id);
      return NULL;
    }
  if (geometry)
    {
      /* the bands cover the whole output, which is no copy of the source */
      if (!_lb_filter_output_check (&out, &out_row_size, error))
        {
          info->release (state);
          g_prefix_error (error, "%s: ", id);
          return NULL;
        }
      wr = (LbFilterRect) { 0, 0, out.width, out.height };
    }
  else
    clip_rect (&wr, width, height);

  if (self->guard)
    {
      /* bands on this thread, in order, each allowed only its own rows */
      guard = _lb_band_guard_new (out.height, out_row_size, error);
      max_threads = 1;
      dst = guard != NULL ? _lb_band_guard_get_data (guard) : NULL;
      dst_stride = guard != NULL ? _lb_band_guard_get_stride (guard) : 0;
    }
  else if (self->out_data != NULL && progress->pass_index + 1 == progress->n_passes
      && !geometry && self->out_stride >= out_row_size
      && self->out_size / self->out_stride >= (gsize) out.height)
    {
      /* The last pass writes straight into the caller's buffer (lightbox-filter-host's
       * shared memory), saving a copy of the image. Not an output of another geometry: the
       * buffer's rows are laid out for the source (16-bit samples at an odd stride would
       * be misaligned), and the helper hands such an output over in a memfd of its own. */
      dst = self->out_data;
      dst_stride = self->out_stride;
    }
  else
    dst = owned = lb_image_alloc_pixels (out.width, out.height, out.format, NULL, &dst_stride,
                                         error);
  if (dst == NULL)
    {
      info->release (state);
      return NULL;
    }

  /* The destination starts as a copy of the source: untouched pixels keep their value.
   * Rows outside the write rectangle are copied here; the bands copy their own rows,
   * except for sequential filters (a raster-order process that may read and write anywhere in
   * dst). A filter without process() (all its work in finish(), ABI 1.1) runs no bands: its
   * rows are copied here too, and with LB_FILTER_FLAG_OVERWRITES only outside the write
   * rectangle. */
  has_bands = wr.height > 0 && info->process != NULL;
  run.copy_in_bands = has_bands && !(info->flags & LB_FILTER_FLAG_SEQUENTIAL) && !geometry;
  for (int y = 0; !geometry && y < height; y++)
    {
      guint8 *d = dst + (gsize) y * dst_stride;
      const guint8 *s = image.src + (gsize) y * image.src_stride;

      if (run.copy_in_bands && y >= wr.y && y < wr.y + wr.height)
        continue;
      if (info->process == NULL && (info->flags & LB_FILTER_FLAG_OVERWRITES)
          && y >= wr.y && y < wr.y + wr.height)
        _lb_pass_copy_row_outside (d, s, row_size, width, wr.x, wr.x + wr.width);
      else
        memcpy (d, s, row_size);
    }

  run.info = info;
  run.state = state;
  run.image = &image;
  run.dst = dst;
  run.dst_stride = dst_stride;
  run.row_size = row_size;
  run.wr = wr;
  run.cancellable = cancellable;
  run.guard = guard;
  run.guard_cancel = self->guard_cancel;
  run.guard_columns = guard != NULL && self->guard_columns;
  g_mutex_init (&run.lock);
  if (cancellable != NULL)
    handler = g_cancellable_connect (cancellable, G_CALLBACK (_lb_pass_cancelled_cb), &run,
                                     NULL);

  if (has_bands)
    {
      g_autofree Worker *workers = NULL;

      if ((info->flags & LB_FILTER_FLAG_SEQUENTIAL) || run.guard_cancel)
        run.band_height = wr.height;
      else if (self->band_height > 0)
        run.band_height = MIN ((int) self->band_height, wr.height);
      else
        run.band_height = MAX (1, (wr.height + 4 * (int) max_threads - 1) / (4 * (int) max_threads));
      run.n_bands = (wr.height + run.band_height - 1) / run.band_height;
      n_threads = MIN (max_threads, (guint) run.n_bands);
      if (info->scratch_size != NULL)
        run.scratch_size = info->scratch_size (state, wr.width, run.band_height);

      workers = g_new0 (Worker, n_threads);
      for (guint t = 0; t < n_threads; t++)
        {
          workers[t].run = &run;
          workers[t].index = t;
          /* Normally only the calling thread reports; lightbox-filter-host's watchdog wants
           * to hear about every band, whichever thread finished it. */
          if (t == 0 || self->progress_any_thread)
            {
              workers[t].report = report_progress;
              workers[t].report_data = progress;
            }
        }
      /* Bands go to whichever thread takes them first; without helpers (none started in
       * time) the calling thread simply does them all. */
      lb_crew_run (n_threads, _lb_pass_worker_main, workers, sizeof (Worker));
    }
  else if (info->process == NULL)
    n_threads = max_threads;  /* all of them lent to finish() */

  if (run.error == NULL && !g_atomic_int_get (&run.stop) && info->finish != NULL)
    {
      LbFilterHost host = { sizeof (LbFilterHost), (int) max_threads, _lb_pass_parallel_for,
                            &run };

      if (!info->finish (state, &image, dst, dst_stride, &host, &run.stop, &run.error)
          && run.error == NULL && !g_atomic_int_get (&run.stop))
        g_set_error (&run.error, LB_ERROR, LB_ERROR_FAILED, "finish failed without a reason");
    }
  info->release (state);
  if (handler != 0)
    g_cancellable_disconnect (cancellable, handler);
  g_mutex_clear (&run.lock);

  if (run.error != NULL)
    {
      g_propagate_prefixed_error (error, run.error, "%s: ", id);
      return NULL;
    }
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  if (run.guard_cancel && g_atomic_int_get (&run.stop))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s: cancelled within its band", id);
      return NULL;
    }
  if (guard != NULL)
    {
      owned = lb_image_alloc_pixels (out.width, out.height, out.format, NULL, &dst_stride,
                                     error);
      if (owned == NULL)
        return NULL;
      _lb_band_guard_copy_out (guard, owned, dst_stride, out_row_size);
    }

  {
    g_autoptr(LbImageMeta) out_meta = _lb_filter_output_meta (input, &out);

    if (owned != NULL)
      output = lb_image_new_take (out.width, out.height, out.format, dst_stride,
                                  g_steal_pointer (&owned), out_meta);
    else
      {
        g_autoptr(GBytes) borrowed = g_bytes_new_static (dst, dst_stride * out.height);

        output = lb_image_new (out.width, out.height, out.format, dst_stride, borrowed,
                               out_meta, error);
        if (output == NULL)
          return NULL;
      }
  }
  if (out_timing != NULL)
    *out_timing = new_timing (pass, input, n_threads, run.n_bands, t0);
  return output;
}

LbImage *
lb_pipeline_run (LbPipeline   *self,
                 LbImage      *input,
                 GPtrArray   **timings,
                 GCancellable *cancellable,
                 GError      **error)
{
  g_autoptr(LbImage) current = NULL;
  g_autoptr(GPtrArray) times = NULL;
  Progress progress = { self, 0, 0 };

  g_return_val_if_fail (LB_IS_PIPELINE (self), NULL);
  g_return_val_if_fail (LB_IS_IMAGE (input), NULL);

  times = g_ptr_array_new_with_free_func ((GDestroyNotify) lb_pass_timing_free);
  current = g_object_ref (input);
  progress.n_passes = self->passes->len;
  for (guint i = 0; i < self->passes->len; i++)
    {
      LbPassTiming *t = NULL;
      LbImage *next;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      progress.pass_index = i;
      next = run_pass (self, &g_array_index (self->passes, Pass, i), current, &progress,
                       cancellable, &t, error);
      if (next == NULL)
        return NULL;
      g_ptr_array_add (times, t);
      /* The previous intermediate goes now: at most input + one pass alive at a time. */
      g_object_unref (current);
      current = next;
      if (self->progress != NULL)
        self->progress ((double) (i + 1) / self->passes->len, self->progress_data);
    }
  if (timings != NULL)
    *timings = g_steal_pointer (&times);
  return g_steal_pointer (&current);
}

static void
run_thread (GTask        *task,
            gpointer      source,
            gpointer      task_data,
            GCancellable *cancellable)
{
  GPtrArray *timings = NULL;
  GError *error = NULL;
  LbImage *output = lb_pipeline_run (source, task_data, &timings, cancellable, &error);

  if (output == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  /* Timings travel with the task (see lb_pipeline_run_finish()). */
  g_object_set_data_full (G_OBJECT (task), "lb-timings", timings,
                          (GDestroyNotify) g_ptr_array_unref);
  g_task_return_pointer (task, output, g_object_unref);
}

void
lb_pipeline_run_async (LbPipeline         *self,
                       LbImage            *input,
                       GCancellable       *cancellable,
                       GAsyncReadyCallback callback,
                       gpointer            user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (LB_IS_PIPELINE (self));
  g_return_if_fail (LB_IS_IMAGE (input));
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, lb_pipeline_run_async);
  g_task_set_task_data (task, g_object_ref (input), g_object_unref);
  g_task_run_in_thread (task, run_thread);
}

LbImage *
lb_pipeline_run_finish (LbPipeline   *self,
                        GAsyncResult *result,
                        GPtrArray   **timings,
                        GError      **error)
{
  LbImage *output;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  output = g_task_propagate_pointer (G_TASK (result), error);
  if (output != NULL && timings != NULL)
    *timings = g_ptr_array_ref (g_object_get_data (G_OBJECT (result), "lb-timings"));
  return output;
}
