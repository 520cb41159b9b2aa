/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-window-series-filter"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-error.h"
#include "lb-pipeline.h"
#include "lb-window-private.h"

/* A filter over every slice of the series shown, in the background (progress in the status
 * bar, Escape cancels, the series is unchanged until the last slice is done), each slice's
 * pass in the benchmark panel, and the result one step of the history.
 *
 * Each slice keeps a history of its own (lb-window-frames.c), made when it is shown. A
 * whole-series step is kept here, as the result of every slice (SeriesStep), and a slice's
 * history is made as its original followed by the whole-series steps in effect: undo on any
 * slice takes the step back on all of them, since the next slice shown is made from
 * series_pos, which follows the history of the slice left (sync_from_history()). A per-slice
 * step pushed after an undo drops the undone whole-series steps, as a new step drops a redo
 * tail. lb-window-series-upload.c writes the result back as a new series. */

typedef struct {
  GPtrArray *slices;      /* LbImage, slice N at N − 1 */
  gboolean   saved;       /* uploaded as a new series */
  char      *label;
  char      *provenance;
  char      *file_label;
} SeriesStep;

static void
series_step_free (gpointer data)
{
  SeriesStep *s = data;

  g_ptr_array_unref (s->slices);
  g_free (s->label);
  g_free (s->provenance);
  g_free (s->file_label);
  g_free (s);
}

gboolean
_lb_window_series_filter_possible (LbWindow *self)
{
  return self->frames != NULL && lb_frame_source_is_series (self->frames) && self->frame > 0
         && lb_frame_source_get_n_frames (self->frames) > 1 && self->history != NULL;
}

guint
_lb_window_series_filter_n_shared (LbWindow *self)
{
  guint k = 0, length;

  if (self->series_steps == NULL || self->history == NULL || self->frame == 0)
    return 0;
  length = lb_history_get_length (self->history);
  while (k < self->series_steps->len && k + 1 < length)
    {
      SeriesStep *s = g_ptr_array_index (self->series_steps, k);

      if (self->frame > s->slices->len
          || lb_history_get_image_at (self->history, k + 1)
             != g_ptr_array_index (s->slices, self->frame - 1))
        break;
      k++;
    }
  return k;
}

/* The whole-series steps in effect are those the slice shown has, up to its position. */
static void
sync_from_history (LbWindow *self)
{
  guint k = _lb_window_series_filter_n_shared (self);

  if (self->series_steps == NULL || self->history == NULL || self->frame == 0)
    return;
  g_ptr_array_set_size (self->series_steps, k);
  self->series_pos = MIN (lb_history_get_position (self->history), k);
}

LbHistory *
_lb_window_series_filter_history (LbWindow *self,
                                  guint     number,
                                  LbImage  *original)
{
  LbHistory *history;

  sync_from_history (self);
  history = lb_history_new (original);
  for (guint i = 0; self->series_steps != NULL && i < self->series_steps->len; i++)
    {
      SeriesStep *s = g_ptr_array_index (self->series_steps, i);

      if (number > s->slices->len)
        break;
      lb_history_push (history, g_ptr_array_index (s->slices, number - 1), s->label,
                       s->provenance);
      lb_history_set_file_label (history, s->file_label);
    }
  while (lb_history_get_position (history) > self->series_pos)
    lb_history_undo (history);
  return history;
}

void
_lb_window_series_filter_forget (LbWindow *self)
{
  g_clear_pointer (&self->series_steps, g_ptr_array_unref);
  self->series_pos = 0;
}

GPtrArray *
_lb_window_series_filter_current (LbWindow    *self,
                                  const char **label,
                                  const char **provenance)
{
  SeriesStep *s;

  if (self->series_pos == 0 || self->history == NULL
      || lb_history_get_position (self->history) != self->series_pos
      || _lb_window_series_filter_n_shared (self) < self->series_pos)
    return NULL;
  s = g_ptr_array_index (self->series_steps, self->series_pos - 1);
  if (label != NULL)
    *label = s->file_label;
  if (provenance != NULL)
    *provenance = s->provenance;
  return s->slices;
}

void
_lb_window_series_filter_mark_saved (LbWindow  *self,
                                     GPtrArray *slices)
{
  for (guint i = 0; self->series_steps != NULL && i < self->series_steps->len; i++)
    {
      SeriesStep *s = g_ptr_array_index (self->series_steps, i);

      if (s->slices == slices)
        s->saved = TRUE;
    }
}

gboolean
_lb_window_series_filter_is_saved (LbWindow *self)
{
  GPtrArray *slices = _lb_window_series_filter_current (self, NULL, NULL);

  return slices != NULL
         && ((SeriesStep *) g_ptr_array_index (self->series_steps, self->series_pos - 1))->saved;
}

/* ---- running ------------------------------------------------------------------------------ */

typedef struct {
  LbWindow       *self;
  LbFrameSource  *frames;
  LbFilter       *filter;
  LbFilterParams *params;
  LbImage        *aux;
  GPtrArray      *inputs;   /* the base of each slice: a whole-series step's, or NULL: read */
  GPtrArray      *outputs;
  guint           n;
  gint64          usec;     /* the passes' own times, summed */
} SeriesRun;

static void
series_run_free (SeriesRun *run)
{
  g_object_unref (run->self);
  g_object_unref (run->frames);
  g_object_unref (run->filter);
  lb_filter_params_unref (run->params);
  g_clear_object (&run->aux);
  g_clear_pointer (&run->inputs, g_ptr_array_unref);
  g_ptr_array_unref (run->outputs);
  g_free (run);
}

static void run_next (SeriesRun *run);

static void
fail (SeriesRun    *run,
      const GError *error)
{
  LbWindow *self = run->self;

  _lb_window_end_op (self);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    /* TRANSLATORS: status bar: a filter over a whole series was cancelled; nothing changed */
    _lb_window_set_status (self, _("Filter cancelled; the series is unchanged"));
  else
    {
      g_autoptr (GError) named = g_error_copy (error);

      /* TRANSLATORS: the slice of a series a filter failed on, before the reason */
      g_prefix_error (&named, _("Slice %u of %u: "), run->outputs->len + 1, run->n);
      _lb_window_show_error (self, _("The filter failed"), named);
    }
  series_run_free (run);
}

static void
finish (SeriesRun *run)
{
  LbWindow *self = run->self;
  SeriesStep *step = g_new0 (SeriesStep, 1);
  g_autofree char *status = NULL;

  _lb_window_end_op (self);
  if (self->frames != run->frames || self->history == NULL || self->frame == 0)
    {
      /* another image was opened meanwhile: the result belongs to nothing shown */
      g_free (step);
      series_run_free (run);
      return;
    }
  step->slices = g_ptr_array_ref (run->outputs);
  step->label = _lb_window_filter_label (run->filter, run->params);
  step->provenance = _lb_window_filter_provenance (run->filter, run->params);
  step->file_label = g_strdup (_lb_window_filter_file_label (run->filter));
  if (self->series_steps == NULL)
    self->series_steps = g_ptr_array_new_with_free_func (series_step_free);
  g_ptr_array_set_size (self->series_steps, self->series_pos);
  g_ptr_array_add (self->series_steps, step);
  self->series_pos++;
  /* the slice shown gets the step as any filter result; the others when they are shown */
  lb_history_push (self->history, g_ptr_array_index (run->outputs, self->frame - 1), step->label,
                   step->provenance);
  lb_history_set_file_label (self->history, step->file_label);
  g_set_object (&self->last_filter, run->filter);
  g_clear_pointer (&self->last_params, lb_filter_params_unref);
  self->last_params = lb_filter_params_ref (run->params);
  self->last_filter_ms = run->usec / 1000.0;
  /* TRANSLATORS: status bar: filter name, number of slices, the passes' total time */
  status = g_strdup_printf (_("%s on %u slices: %.1f ms"), lb_filter_get_name (run->filter),
                            run->n, self->last_filter_ms);
  _lb_window_set_status (self, status);
  series_run_free (run);
}

static void
on_slice_filtered (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  SeriesRun *run = user_data;
  LbWindow *self = run->self;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) timings = NULL;
  g_autoptr (LbImage) output = lb_pipeline_run_finish (LB_PIPELINE (source), result, &timings,
                                                       &error);

  if (output == NULL)
    {
      fail (run, error);
      return;
    }
  for (guint i = 0; timings != NULL && i < timings->len; i++)
    run->usec += ((LbPassTiming *) g_ptr_array_index (timings, i))->usec;
  /* benchmark mode: every slice's pass is a row */
  if (g_settings_get_boolean (self->settings, "benchmark-mode"))
    _lb_window_log_timings (self, timings);
  g_ptr_array_add (run->outputs, g_steal_pointer (&output));
  if (self->busy)
    _lb_window_set_progress (self, (double) run->outputs->len / run->n);
  run_next (run);
}

static void
filter_slice (SeriesRun *run,
              LbImage   *input)
{
  LbWindow *self = run->self;
  g_autoptr (GError) error = NULL;
  g_autoptr (LbPipeline) pipeline = lb_pipeline_new (self->registry);

  if (!lb_pipeline_append (pipeline, run->filter, run->params, &error))
    {
      fail (run, error);
      return;
    }
  lb_pipeline_set_n_threads (pipeline, _lb_window_filter_threads (self));
  lb_pipeline_set_aux_input (pipeline, run->aux);
  lb_pipeline_run_async (pipeline, input, self->op_cancellable, on_slice_filtered, run);
}

static void
on_slice_read (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  SeriesRun *run = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (LbImage) image = lb_frame_source_load_finish (LB_FRAME_SOURCE (source), result,
                                                           &error);
  g_autoptr (LbImageMeta) meta = NULL;
  g_autoptr (LbImage) tagged = NULL;

  if (image == NULL)
    {
      fail (run, error);
      return;
    }
  /* as the frame loader does: the slice's own file is its source */
  meta = lb_image_dup_meta (image);
  lb_image_meta_set_source_uri (meta, lb_frame_source_get_frame_uri (run->frames,
                                                                     run->outputs->len + 1));
  tagged = lb_image_with_meta (image, meta);
  filter_slice (run, tagged);
}

/* One slice after the other, each pass on all threads: the memory held is the results plus
 * one slice being read and filtered. */
static void
run_next (SeriesRun *run)
{
  guint index = run->outputs->len;

  if (index == run->n)
    {
      finish (run);
      return;
    }
  if (run->inputs != NULL)
    filter_slice (run, g_ptr_array_index (run->inputs, index));
  else
    lb_frame_source_load_async (run->frames, index + 1, run->self->op_cancellable,
                                on_slice_read, run);
}

void
_lb_window_series_filter_run (LbWindow       *self,
                              LbFilter       *filter,
                              LbFilterParams *params,
                              LbImage        *aux)
{
  SeriesRun *run;

  if (self->busy || !_lb_window_series_filter_possible (self))
    return;
  sync_from_history (self);
  if (lb_history_get_position (self->history) != self->series_pos)
    {
      g_autoptr (GError) error = g_error_new_literal (
        LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
        _("This slice has filter results of its own: undo them, or apply the filter to this "
          "slice only"));

      _lb_window_show_error (self, _("The filter failed"), error);
      return;
    }
  run = g_new0 (SeriesRun, 1);
  run->self = g_object_ref (self);
  run->frames = g_object_ref (self->frames);
  run->filter = g_object_ref (filter);
  run->params = params ? lb_filter_params_ref (params) : lb_filter_params_new (filter);
  run->aux = aux ? g_object_ref (aux) : NULL;
  run->n = lb_frame_source_get_n_frames (self->frames);
  run->outputs = g_ptr_array_new_full (run->n, g_object_unref);
  if (self->series_pos > 0)
    {
      SeriesStep *s = g_ptr_array_index (self->series_steps, self->series_pos - 1);

      run->inputs = g_ptr_array_ref (s->slices);
    }
  _lb_window_begin_op (self, lb_filter_get_name (filter));
  run_next (run);
}
