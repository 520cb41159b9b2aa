/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-window-filters"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-measure.h"
#include "lb-pipeline.h"
#include "lb-window-private.h"

/* Run Benchmark (win.run-benchmark): the last filter, or the first that takes the image,
 * timed at five sizes of the current image on a worker thread, as lightbox-bench times it,
 * each size a row of the benchmark panel. */

/* Nearest-neighbour resample, used to make the smaller sizes of the benchmark series. */
static LbImage *
scale_image (LbImage *src,
             guint    width,
             guint    height)
{
  LbSampleFormat fmt = lb_image_get_format (src);
  gsize ps = lb_sample_format_get_pixel_size (fmt), stride;
  guint sw = lb_image_get_width (src), sh = lb_image_get_height (src);
  guint8 *pixels = lb_image_alloc_pixels (width, height, fmt, NULL, &stride, NULL);

  if (pixels == NULL)
    return NULL;
  for (guint y = 0; y < height; y++)
    {
      const guint8 *srow = lb_image_get_row (src, (guint) ((guint64) y * sh / height));
      guint8 *drow = pixels + y * stride;
      for (guint x = 0; x < width; x++)
        memcpy (drow + x * ps, srow + (gsize) ((guint64) x * sw / width) * ps, ps);
    }
  return lb_image_new_take (width, height, fmt, stride, pixels, lb_image_get_meta (src));
}

typedef struct {
  LbPipeline *pipeline;
  LbImage    *image;
  GCancellable *cancellable;
  GError    **error;
} BenchRun;

/* One timed run, as lightbox-bench does it: lb_pipeline_run's own pass timing, in ms. */
static double
bench_once (gpointer user_data)
{
  BenchRun *r = user_data;
  g_autoptr (GPtrArray) timings = NULL;
  g_autoptr (LbImage) out = NULL;
  double ms = 0;

  if (*r->error != NULL)
    return 0;
  out = lb_pipeline_run (r->pipeline, r->image, &timings, r->cancellable, r->error);
  for (guint i = 0; timings && i < timings->len; i++)
    ms += ((LbPassTiming *) timings->pdata[i])->usec / 1000.0;
  return ms;
}

typedef struct {
  LbWindow       *self;
  LbFilter       *filter;
  LbFilterParams *params;
  LbImage        *image;
  guint           threads;
} BenchJob;

typedef struct {
  LbWindow *self;
  char     *filter;
  char     *params;
  guint     width, height;
  LbSampleFormat format;
  guint     threads;
  double    ms;
  double    fraction;
} BenchPoint;

static gboolean
post_point (gpointer data)
{
  BenchPoint *p = data;

  lb_bench_panel_add (p->self->bench, p->filter, p->params, p->width, p->height, p->format,
                      p->threads, p->ms);
  if (p->self->busy)
    _lb_window_set_progress (p->self, p->fraction);
  return G_SOURCE_REMOVE;
}

static void
bench_point_free (gpointer data)
{
  BenchPoint *p = data;

  g_object_unref (p->self);
  g_free (p->filter);
  g_free (p->params);
  g_free (p);
}

static void
bench_job_free (BenchJob *job)
{
  g_object_unref (job->self);
  g_object_unref (job->filter);
  lb_filter_params_unref (job->params);
  g_object_unref (job->image);
  g_free (job);
}

static void
bench_thread (GTask        *task,
              gpointer      source,
              gpointer      task_data,
              GCancellable *cancellable)
{
  BenchJob *job = task_data;
  static const double scales[] = { 0.125, 0.25, 0.5, 0.75, 1.0 };
  const LbMeasureOptions options = { 1, 3, 25, 1.5, 0.05 };
  guint w = lb_image_get_width (job->image), h = lb_image_get_height (job->image);
  g_autofree char *params = lb_filter_params_to_string (job->params);
  GError *error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (scales); i++)
    {
      guint sw = MAX (16, (guint) (w * scales[i])), sh = MAX (16, (guint) (h * scales[i]));
      g_autoptr (LbImage) img = scales[i] == 1.0 ? g_object_ref (job->image)
                                                 : scale_image (job->image, sw, sh);
      g_autoptr (LbPipeline) pipeline = lb_pipeline_new (job->self->registry);
      BenchRun run = { pipeline, img, cancellable, &error };
      LbMeasureStats stats;
      BenchPoint *p;

      if (img == NULL || !lb_pipeline_append (pipeline, job->filter, job->params, &error))
        break;
      lb_pipeline_set_n_threads (pipeline, job->threads);
      stats = lb_measure_run (bench_once, &run, &options);
      if (error != NULL)
        break;
      p = g_new0 (BenchPoint, 1);
      p->self = g_object_ref (job->self);
      p->filter = g_strdup (lb_filter_get_id (job->filter));
      p->params = g_strdup (params);
      p->width = lb_image_get_width (img);
      p->height = lb_image_get_height (img);
      p->format = lb_image_get_format (img);
      p->threads = job->threads;
      p->ms = stats.median;
      p->fraction = (i + 1.0) / G_N_ELEMENTS (scales);
      g_main_context_invoke_full (NULL, G_PRIORITY_DEFAULT, post_point, p, bench_point_free);
    }
  if (error)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
on_bench_done (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  LbWindow *self = user_data;
  g_autoptr (GError) error = NULL;

  _lb_window_end_op (self);
  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _lb_window_set_status (self, _("Benchmark cancelled"));
      else
        _lb_window_show_error (self, _("The benchmark failed"), error);
    }
  else
    _lb_window_set_status (self, _("Benchmark finished"));
  g_object_unref (self);
}

static void
run_benchmark_activated (GSimpleAction *action,
                         GVariant      *param,
                         gpointer       user_data)
{
  LbWindow *self = user_data;
  BenchJob *job;
  GTask *task;
  LbFilter *filter = self->last_filter;
  g_autoptr (LbFilter) fallback = NULL;
  LbSampleFormat fmt;

  if (self->history == NULL || self->busy)
    return;
  _lb_window_ensure_registry (self);
  if (self->registry == NULL)
    return;
  fmt = lb_image_get_format (lb_history_get_current (self->history));
  if (filter == NULL)
    {
      /* no filter used yet: the first one (menu order) that takes this image */
      guint n = g_list_model_get_n_items (G_LIST_MODEL (self->registry));
      for (guint i = 0; i < n && fallback == NULL; i++)
        {
          g_autoptr (LbFilter) f = g_list_model_get_item (G_LIST_MODEL (self->registry), i);
          if (lb_filter_get_kind (f) != LB_FILTER_KIND_CHAIN && lb_filter_supports_format (f, fmt))
            fallback = g_steal_pointer (&f);
        }
      filter = fallback;
    }
  if (filter == NULL)
    return;
  if (!g_settings_get_boolean (self->settings, "benchmark-mode"))
    g_settings_set_boolean (self->settings, "benchmark-mode", TRUE);
  job = g_new0 (BenchJob, 1);
  job->self = g_object_ref (self);
  job->filter = g_object_ref (filter);
  job->params = self->last_params && filter == self->last_filter
                ? lb_filter_params_copy (self->last_params) : lb_filter_params_new (filter);
  job->image = g_object_ref (lb_history_get_current (self->history));
  job->threads = _lb_window_filter_threads (self);
  _lb_window_begin_op (self, _("Benchmark"));
  task = g_task_new (NULL, self->op_cancellable, on_bench_done, g_object_ref (self));
  g_task_set_task_data (task, job, (GDestroyNotify) bench_job_free);
  g_task_run_in_thread (task, bench_thread);
  g_object_unref (task);
}

void
_lb_window_bench_init (LbWindow *self)
{
  static const GActionEntry entries[] = {
    { .name = "run-benchmark", .activate = run_benchmark_activated },
  };

  g_action_map_add_action_entries (G_ACTION_MAP (self), entries, G_N_ELEMENTS (entries), self);
}
