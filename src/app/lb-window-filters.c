/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-window-filters"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-declarative.h"
#include "lb-error.h"
#include "lb-param-dialog.h"
#include "lb-pipeline.h"
#include "lb-store.h"
#include "lb-window-private.h"

/* The Filter menu (built from the registry, grouped by category, plus the store's own
 * declarative filters), parameter dialogs with live preview, asynchronous runs with progress
 * and cancel, and benchmark logging. Run Benchmark is in lb-window-bench.c, the second image
 * in lb-window-aux.c, filters over a whole series in lb-window-series-filter.c. */

#define STORE_FILTER_DIR ".lightbox/filters/"
#define PREVIEW_DELAY_MS 120

guint
_lb_window_filter_threads (LbWindow *self)
{
  int n = g_settings_get_int (self->settings, "threads");

  return n > 0 ? (guint) n : g_get_num_processors ();
}

/* ---- menu ------------------------------------------------------------------------------ */

static int
compare_filters (gconstpointer a,
                 gconstpointer b)
{
  LbFilter *fa = *(LbFilter **) a, *fb = *(LbFilter **) b;
  int c = g_utf8_collate (lb_filter_get_category (fa), lb_filter_get_category (fb));

  return c != 0 ? c : g_utf8_collate (lb_filter_get_name (fa), lb_filter_get_name (fb));
}

static GMenuItem *
filter_item (LbFilter   *filter,
             const char *prefix)
{
  g_autofree char *target = g_strconcat (prefix, lb_filter_get_id (filter), NULL);
  g_autofree char *label = lb_filter_get_n_params (filter) > 0
                           ? g_strdup_printf ("%s…", lb_filter_get_name (filter))
                           : g_strdup (lb_filter_get_name (filter));
  GMenuItem *item = g_menu_item_new (label, NULL);

  g_menu_item_set_action_and_target_value (item, "win.apply-filter",
                                           g_variant_new_string (target));
  return item;
}

static void
rebuild_filter_menu (LbWindow *self)
{
  g_autoptr (GPtrArray) filters = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GMenu) categories = g_menu_new ();
  g_autoptr (GMenu) history = g_menu_new ();
  GListModel *model = self->registry ? G_LIST_MODEL (self->registry) : NULL;
  guint n = model ? g_list_model_get_n_items (model) : 0, n_store;
  GMenu *current = NULL;
  const char *current_cat = NULL;

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (filters, g_list_model_get_item (model, i));
  g_ptr_array_sort (filters, compare_filters);
  /* a fresh menu each time: GtkPopoverMenu does not cope with submenus being replaced in
   * place (duplicate stack page names) */
  g_clear_object (&self->filter_menu);
  self->filter_menu = g_menu_new ();
  for (guint i = 0; i < filters->len; i++)
    {
      LbFilter *f = filters->pdata[i];
      g_autoptr (GMenuItem) item = filter_item (f, "");

      if (current_cat == NULL || g_strcmp0 (current_cat, lb_filter_get_category (f)) != 0)
        {
          if (current)
            {
              g_menu_append_submenu (categories, current_cat, G_MENU_MODEL (current));
              g_object_unref (current);
            }
          current = g_menu_new ();
          current_cat = lb_filter_get_category (f);
        }
      g_menu_append_item (current, item);
    }
  if (current)
    {
      g_menu_append_submenu (categories, current_cat, G_MENU_MODEL (current));
      g_object_unref (current);
    }
  if (filters->len == 0)
    g_menu_append (categories, _("No filters found"), "win.no-filters");
  g_menu_append_section (self->filter_menu, NULL, G_MENU_MODEL (categories));

  n_store = g_list_model_get_n_items (G_LIST_MODEL (self->store_filters));
  if (n_store > 0)
    {
      g_autoptr (GMenu) store = g_menu_new ();
      for (guint i = 0; i < n_store; i++)
        {
          g_autoptr (LbFilter) f = g_list_model_get_item (G_LIST_MODEL (self->store_filters), i);
          g_autoptr (GMenuItem) item = filter_item (f, "store:");
          g_menu_append_item (store, item);
        }
      g_menu_append_section (self->filter_menu, _("From store"), G_MENU_MODEL (store));
    }
  g_menu_append (history, _("_Revert to Original"), "win.revert");
  g_menu_append (history, _("_Plugins"), "app.plugins");
  g_menu_append_section (self->filter_menu, NULL, G_MENU_MODEL (history));
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (self->filter_button),
                                  G_MENU_MODEL (self->filter_menu));
}

/* The open parameter dialog follows its filter: a replaced plugin (same id, new LbFilter)
 * rebinds the dialog to the new code, so Apply and the preview run what the menu lists; a
 * removed one closes it with a message. */
static gboolean
check_dialog_filter (gpointer data)
{
  LbWindow *self = data;
  LbParamDialog *dialog = LB_PARAM_DIALOG (self->param_dialog);
  LbFilter *filter;
  g_autoptr (LbFilter) now = NULL;

  self->rebind_source = 0;
  if (dialog == NULL || self->registry == NULL)
    return G_SOURCE_REMOVE;
  filter = lb_param_dialog_get_filter (dialog);
  /* a store's own filters are not in the registry */
  if (!g_str_has_prefix (lb_filter_get_origin (filter), "/"))
    return G_SOURCE_REMOVE;
  now = lb_filter_registry_lookup (self->registry, lb_filter_get_id (filter));
  if (now == filter)
    return G_SOURCE_REMOVE;
  if (now != NULL)
    {
      lb_param_dialog_rebind (dialog, now);
      return G_SOURCE_REMOVE;
    }
  {
    g_autofree char *status = g_strdup_printf (_("“%s” was removed; its dialog was closed"),
                                               lb_filter_get_name (filter));

    lb_param_dialog_respond (dialog, FALSE);
    _lb_window_set_status (self, status);
  }
  return G_SOURCE_REMOVE;
}

static void
on_registry_changed (GListModel *model,
                     guint       position,
                     guint       removed,
                     guint       added,
                     LbWindow   *self)
{
  rebuild_filter_menu (self);
  /* A replacement arrives as a removal and an addition: decide once the rescan is over. */
  if (self->param_dialog != NULL && self->rebind_source == 0)
    self->rebind_source = g_idle_add (check_dialog_filter, self);
}

/* The registry loads every plugin (dlopen), so it is opened after the first frame, or at
 * once when something needs it. */
void
_lb_window_ensure_registry (LbWindow *self)
{
  GtkApplication *app;

  if (self->registry != NULL)
    return;
  app = gtk_window_get_application (GTK_WINDOW (self));
  if (app == NULL)
    return;
  self->registry = g_object_ref (lb_application_get_registry (LB_APPLICATION (app)));
  g_signal_connect (self->registry, "items-changed", G_CALLBACK (on_registry_changed), self);
  rebuild_filter_menu (self);
}

static gboolean
load_registry_idle (gpointer data)
{
  LbWindow *self = data;

  self->registry_source = 0;
  _lb_window_ensure_registry (self);
  return G_SOURCE_REMOVE;
}

LbFilter *
_lb_window_find_filter (LbWindow   *self,
                        const char *target)
{
  _lb_window_ensure_registry (self);
  if (self->registry == NULL)
    return NULL;
  if (g_str_has_prefix (target, "store:"))
    {
      guint n = g_list_model_get_n_items (G_LIST_MODEL (self->store_filters));

      for (guint i = 0; i < n; i++)
        {
          g_autoptr (LbFilter) f = g_list_model_get_item (G_LIST_MODEL (self->store_filters), i);
          if (g_str_equal (lb_filter_get_id (f), target + 6))
            return f; /* the store list keeps it alive */
        }
      return NULL;
    }
  else
    {
      g_autoptr (LbFilter) f = lb_filter_registry_lookup (self->registry, target);
      /* the registry keeps it while it is listed; callers take their own reference */
      return f;
    }
}

/* ---- running --------------------------------------------------------------------------- */

typedef struct {
  LbWindow       *self;
  LbFilter       *filter;
  LbFilterParams *params;
  LbImage        *input;
  LbImage        *aux;      /* the second image, or NULL */
  gboolean        preview;
  guint           serial;
} RunCtx;

static void
run_ctx_free (RunCtx *ctx)
{
  g_object_unref (ctx->self);
  g_object_unref (ctx->filter);
  lb_filter_params_unref (ctx->params);
  g_object_unref (ctx->input);
  g_clear_object (&ctx->aux);
  g_free (ctx);
}

typedef struct {
  LbWindow *self;
  double    fraction;
} ProgressMsg;

static gboolean
apply_progress (gpointer data)
{
  ProgressMsg *m = data;

  if (m->self->busy)
    _lb_window_set_progress (m->self, m->fraction);
  return G_SOURCE_REMOVE;
}

static void
progress_msg_free (gpointer data)
{
  ProgressMsg *m = data;

  g_object_unref (m->self);
  g_free (m);
}

/* Runs on the pipeline's worker thread: hand the value to the main context. */
static void
on_pipeline_progress (double   fraction,
                      gpointer user_data)
{
  ProgressMsg *m = g_new0 (ProgressMsg, 1);

  m->self = g_object_ref (LB_WINDOW (user_data));
  m->fraction = fraction;
  g_main_context_invoke_full (NULL, G_PRIORITY_DEFAULT, apply_progress, m, progress_msg_free);
}

char *
_lb_window_filter_label (LbFilter       *filter,
                         LbFilterParams *params)
{
  g_autofree char *p = lb_filter_params_to_string (params);

  return *p ? g_strdup_printf ("%s (%s)", lb_filter_get_name (filter), p)
            : g_strdup (lb_filter_get_name (filter));
}

char *
_lb_window_filter_provenance (LbFilter       *filter,
                 LbFilterParams *params)
{
  g_autofree char *p = lb_filter_params_to_string (params);
  g_autofree char *origin = g_path_get_basename (lb_filter_get_origin (filter));
  const char *version = lb_filter_get_version (filter);

  return g_strdup_printf ("%s%s%s (%s%s%s)", lb_filter_get_id (filter), *p ? ":" : "", p,
                          origin, version ? " " : "", version ? version : "");
}

const char *
_lb_window_filter_file_label (LbFilter *filter)
{
  const char *alias = lb_filter_get_alias (filter);
  const char *id = lb_filter_get_id (filter);
  const char *dot = strrchr (id, '.');

  return alias != NULL ? alias : dot ? dot + 1 : id;
}

void
_lb_window_log_timings (LbWindow  *self,
             GPtrArray *timings)
{
  for (guint i = 0; timings && i < timings->len; i++)
    {
      LbPassTiming *t = timings->pdata[i];
      lb_bench_panel_add (self->bench, t->filter_id, t->params, t->width, t->height, t->format,
                          t->threads, t->usec / 1000.0);
    }
}

static void
on_run_done (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  RunCtx *ctx = user_data;
  LbWindow *self = ctx->self;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) timings = NULL;
  g_autoptr (LbImage) output = lb_pipeline_run_finish (LB_PIPELINE (source), result, &timings,
                                                       &error);

  if (ctx->preview)
    {
      /* only the newest preview may show, and never after the dialog closed */
      if (ctx->serial == self->preview_serial && self->param_dialog != NULL)
        {
          LbParamDialog *dialog = LB_PARAM_DIALOG (self->param_dialog);

          if (output != NULL)
            lb_canvas_set_image (self->canvas, output, TRUE);
          else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            /* the canvas goes back to the image the filter would apply to */
            _lb_window_show_current (self);
          if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            lb_param_dialog_set_preview_error (dialog, error);
        }
      run_ctx_free (ctx);
      return;
    }
  _lb_window_end_op (self);
  if (output == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _lb_window_set_status (self, _("Filter cancelled"));
      else
        _lb_window_show_error (self, _("The filter failed"), error);
      _lb_window_show_current (self);
      run_ctx_free (ctx);
      return;
    }
  {
    g_autofree char *label = _lb_window_filter_label (ctx->filter, ctx->params);
    g_autofree char *prov = _lb_window_filter_provenance (ctx->filter, ctx->params);
    g_autofree char *status = NULL;
    gint64 usec = 0;

    for (guint i = 0; timings && i < timings->len; i++)
      usec += ((LbPassTiming *) timings->pdata[i])->usec;
    self->last_filter_ms = usec / 1000.0;
    /* TRANSLATORS: status bar: filter name and its run time */
    status = g_strdup_printf (_("%s: %.1f ms"), lb_filter_get_name (ctx->filter),
                              self->last_filter_ms);
    _lb_window_set_status (self, status);
    lb_history_push (self->history, output, label, prov);
    lb_history_set_file_label (self->history, _lb_window_filter_file_label (ctx->filter));
    g_set_object (&self->last_filter, ctx->filter);
    g_clear_pointer (&self->last_params, lb_filter_params_unref);
    self->last_params = lb_filter_params_ref (ctx->params);
    if (g_settings_get_boolean (self->settings, "benchmark-mode"))
      _lb_window_log_timings (self, timings);
  }
  run_ctx_free (ctx);
}

static LbPipeline *
make_pipeline (LbWindow       *self,
               LbFilter       *filter,
               LbFilterParams *params,
               LbImage        *aux,
               GError        **error)
{
  g_autoptr (LbPipeline) pipeline = NULL;

  _lb_window_ensure_registry (self);
  pipeline = lb_pipeline_new (self->registry);
  if (!lb_pipeline_append (pipeline, filter, params, error))
    return NULL;
  lb_pipeline_set_n_threads (pipeline, _lb_window_filter_threads (self));
  lb_pipeline_set_aux_input (pipeline, aux);
  return g_steal_pointer (&pipeline);
}

void
_lb_window_run_filter (LbWindow       *self,
                       LbFilter       *filter,
                       LbFilterParams *params,
                       LbImage        *aux)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (LbPipeline) pipeline = NULL;
  RunCtx *ctx;

  if (self->history == NULL || self->busy)
    return;
  ctx = g_new0 (RunCtx, 1);
  ctx->self = g_object_ref (self);
  ctx->filter = g_object_ref (filter);
  ctx->params = params ? lb_filter_params_ref (params) : lb_filter_params_new (filter);
  ctx->input = g_object_ref (lb_history_get_current (self->history));
  ctx->aux = aux ? g_object_ref (aux) : NULL;
  pipeline = make_pipeline (self, filter, ctx->params, ctx->aux, &error);
  if (pipeline == NULL)
    {
      _lb_window_show_error (self, _("The filter failed"), error);
      run_ctx_free (ctx);
      return;
    }
  _lb_window_begin_op (self, lb_filter_get_name (filter));
  lb_pipeline_set_progress_func (pipeline, on_pipeline_progress, self, NULL);
  lb_pipeline_run_async (pipeline, ctx->input, self->op_cancellable, on_run_done, ctx);
}

/* ---- dialog and preview ---------------------------------------------------------------- */

static gboolean
run_preview (gpointer user_data)
{
  LbWindow *self = user_data;
  LbParamDialog *dialog = LB_PARAM_DIALOG (self->param_dialog);
  g_autoptr (LbPipeline) pipeline = NULL;
  g_autoptr (GError) error = NULL;
  GdkRectangle rect;
  LbFilterRect sel;
  LbImage *aux = NULL;
  RunCtx *ctx;

  self->preview_source = 0;
  if (dialog == NULL || self->history == NULL)
    return G_SOURCE_REMOVE;
  if (self->preview_cancellable)
    g_cancellable_cancel (self->preview_cancellable);
  g_clear_object (&self->preview_cancellable);
  if (!lb_param_dialog_get_preview (dialog))
    {
      self->preview_serial++;
      _lb_window_show_current (self);
      return G_SOURCE_REMOVE;
    }
  if (lb_filter_get_n_inputs (lb_param_dialog_get_filter (dialog)) > 1)
    {
      aux = _lb_window_aux_get (self, dialog, &error);
      if (aux == NULL)
        {
          /* no preview of a subtraction from nothing: the canvas shows the image as it is */
          self->preview_serial++;
          _lb_window_show_current (self);
          lb_param_dialog_set_preview_error (dialog, error);
          return G_SOURCE_REMOVE;
        }
    }
  pipeline = make_pipeline (self, lb_param_dialog_get_filter (dialog),
                            lb_param_dialog_get_params (dialog), aux, &error);
  if (pipeline == NULL)
    {
      lb_param_dialog_set_preview_error (dialog, error);
      return G_SOURCE_REMOVE;
    }
  /* only what the canvas shows: the pipeline's selection leaves the rest untouched */
  if (lb_canvas_get_visible_rect (self->canvas, &rect))
    {
      sel.x = rect.x;
      sel.y = rect.y;
      sel.width = rect.width;
      sel.height = rect.height;
      lb_pipeline_set_selection (pipeline, &sel);
    }
  ctx = g_new0 (RunCtx, 1);
  ctx->self = g_object_ref (self);
  ctx->filter = g_object_ref (lb_param_dialog_get_filter (dialog));
  ctx->params = lb_filter_params_copy (lb_param_dialog_get_params (dialog));
  ctx->input = g_object_ref (lb_history_get_current (self->history));
  ctx->aux = aux ? g_object_ref (aux) : NULL;
  ctx->preview = TRUE;
  ctx->serial = ++self->preview_serial;
  self->preview_cancellable = g_cancellable_new ();
  lb_pipeline_run_async (pipeline, ctx->input, self->preview_cancellable, on_run_done, ctx);
  return G_SOURCE_REMOVE;
}

static void
on_dialog_changed (LbParamDialog *dialog,
                   LbWindow      *self)
{
  g_clear_handle_id (&self->preview_source, g_source_remove);
  self->preview_source = g_timeout_add (PREVIEW_DELAY_MS, run_preview, self);
}

static void
on_dialog_done (LbParamDialog *dialog,
                gboolean       apply,
                LbWindow      *self)
{
  g_autoptr (LbFilter) filter = g_object_ref (lb_param_dialog_get_filter (dialog));
  g_autoptr (LbFilterParams) params = lb_filter_params_copy (lb_param_dialog_get_params (dialog));
  g_autoptr (LbImage) aux = NULL;
  g_autoptr (GError) error = NULL;
  gboolean whole_series = lb_param_dialog_get_whole_series (dialog);

  if (apply && lb_filter_get_n_inputs (filter) > 1)
    {
      LbImage *chosen = _lb_window_aux_get (self, dialog, &error);

      aux = chosen ? g_object_ref (chosen) : NULL;
    }
  g_clear_handle_id (&self->preview_source, g_source_remove);
  if (self->preview_cancellable)
    g_cancellable_cancel (self->preview_cancellable);
  g_clear_object (&self->preview_cancellable);
  self->preview_serial++;
  self->param_dialog = NULL;
  _lb_window_aux_clear (self);
  _lb_window_show_current (self);
  if (!apply)
    return;
  if (lb_filter_get_n_inputs (filter) > 1 && aux == NULL)
    _lb_window_show_error (self, _("The filter failed"), error);
  else if (whole_series)
    _lb_window_series_filter_run (self, filter, params, aux);
  else
    _lb_window_run_filter (self, filter, params, aux);
}

static void
apply_filter_activated (GSimpleAction *action,
                        GVariant      *param,
                        gpointer       user_data)
{
  LbWindow *self = user_data;
  g_autoptr (LbFilter) filter = NULL;
  LbFilter *found;
  LbParamDialog *dialog;
  g_autoptr (LbFilterParams) initial = NULL;

  if (self->history == NULL || self->busy || self->param_dialog != NULL)
    return;
  found = _lb_window_find_filter (self, g_variant_get_string (param, NULL));
  if (found == NULL)
    return;
  filter = g_object_ref (found);
  if (!lb_filter_supports_format (filter, lb_image_get_format (lb_history_get_current (self->history))))
    {
      g_autofree char *formats = lb_filter_dup_formats_string (filter);
      g_autoptr (GError) error = g_error_new (LB_ERROR, LB_ERROR_UNSUPPORTED,
                                              _("%s works on %s images, not %s"),
                                              lb_filter_get_name (filter), formats,
                                              lb_sample_format_to_string (lb_image_get_format (
                                                lb_history_get_current (self->history))));
      if (lb_filter_get_kind (filter) != LB_FILTER_KIND_CHAIN)
        {
          _lb_window_show_error (self, _("The filter failed"), error);
          return;
        }
    }
  /* straight away, unless there is something to choose: values, a second image, or the
   * slice or the whole series */
  if (lb_filter_get_n_params (filter) == 0 && lb_filter_get_n_inputs (filter) < 2
      && !_lb_window_series_filter_possible (self))
    {
      _lb_window_run_filter (self, filter, NULL, NULL);
      return;
    }
  /* start from the values used last time for this filter */
  if (self->last_params && self->last_filter
      && g_str_equal (lb_filter_get_id (self->last_filter), lb_filter_get_id (filter)))
    initial = lb_filter_params_ref (self->last_params);
  dialog = lb_param_dialog_new (filter, initial, GTK_WINDOW (self));
  self->param_dialog = GTK_WIDGET (dialog);
  _lb_window_aux_setup (self, dialog);
  if (_lb_window_series_filter_possible (self))
    lb_param_dialog_set_series (dialog, lb_frame_source_get_n_frames (self->frames));
  g_signal_connect (dialog, "changed", G_CALLBACK (on_dialog_changed), self);
  g_signal_connect (dialog, "done", G_CALLBACK (on_dialog_done), self);
  gtk_window_present (GTK_WINDOW (dialog));
  on_dialog_changed (dialog, self);
}

/* ---- store filters --------------------------------------------------------------------- */

static gboolean
check_step (const char *step,
            gpointer    user_data,
            GError    **error)
{
  LbWindow *self = user_data;
  g_autoptr (LbFilter) f = NULL;
  g_autoptr (LbFilterParams) p = NULL;

  _lb_window_ensure_registry (self);
  return lb_pipeline_parse_step (self->registry, step, &f, &p, error);
}

typedef struct {
  LbWindow          *self;
  char              *uri;
  GOutputStream     *sink;
  GCancellable      *cancellable;
} FilterFetch;

static void
filter_fetch_free (FilterFetch *f)
{
  g_object_unref (f->self);
  g_free (f->uri);
  g_clear_object (&f->sink);
  g_object_unref (f->cancellable);
  g_free (f);
}

static void
on_filter_spliced (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  FilterFetch *f = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (LbFilter) filter = NULL;

  if (g_output_stream_splice_finish (G_OUTPUT_STREAM (source), result, &error) < 0)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_message ("store filter %s: %s", f->uri, error->message);
      filter_fetch_free (f);
      return;
    }
  bytes = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (f->sink));
  filter = lb_declarative_parse (bytes, f->uri, check_step, f->self, &error);
  if (filter == NULL)
    g_message ("store filter skipped: %s", error->message);
  else if (!g_cancellable_is_cancelled (f->cancellable))
    {
      g_list_store_append (f->self->store_filters, filter);
      rebuild_filter_menu (f->self);
    }
  filter_fetch_free (f);
}

static void
on_filter_read (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  FilterFetch *f = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GInputStream) stream = lb_store_read_finish (LB_STORE (source), result, NULL, &error);

  if (stream == NULL)
    {
      g_message ("store filter %s: %s", f->uri, error->message);
      filter_fetch_free (f);
      return;
    }
  f->sink = g_memory_output_stream_new_resizable ();
  g_output_stream_splice_async (f->sink, stream, G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE
                                | G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, G_PRIORITY_DEFAULT,
                                f->cancellable, on_filter_spliced, f);
}

typedef struct {
  LbWindow     *self;
  GCancellable *cancellable;
} ListFetch;

static void
on_filters_listed (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  ListFetch *lf = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) entries = lb_store_list_finish (LB_STORE (source), result, &error);

  /* a store without a filter repository is normal: nothing to add */
  for (guint i = 0; entries && i < entries->len && !g_cancellable_is_cancelled (lf->cancellable); i++)
    {
      LbStoreEntry *e = entries->pdata[i];
      FilterFetch *f;

      if (lb_store_entry_is_container (e)
          || !g_str_has_suffix (lb_store_entry_get_name (e), ".lbfilter"))
        continue;
      f = g_new0 (FilterFetch, 1);
      f->self = g_object_ref (lf->self);
      f->uri = g_strdup (lb_store_entry_get_uri (e));
      f->cancellable = g_object_ref (lf->cancellable);
      lb_store_read_async (LB_STORE (source), f->uri, f->cancellable, NULL, NULL,
                           on_filter_read, f);
    }
  g_object_unref (lf->self);
  g_object_unref (lf->cancellable);
  g_free (lf);
}

void
_lb_window_filters_load_store (LbWindow *self)
{
  g_autofree char *uri = NULL;
  ListFetch *lf;

  if (self->store_filters_cancellable)
    g_cancellable_cancel (self->store_filters_cancellable);
  g_clear_object (&self->store_filters_cancellable);
  g_list_store_remove_all (self->store_filters);
  rebuild_filter_menu (self);
  if (self->store == NULL)
    return;
  self->store_filters_cancellable = g_cancellable_new ();
  uri = g_strconcat (lb_store_get_uri (self->store), STORE_FILTER_DIR, NULL);
  lf = g_new0 (ListFetch, 1);
  lf->self = g_object_ref (self);
  lf->cancellable = g_object_ref (self->store_filters_cancellable);
  lb_store_list_async (self->store, uri, self->store_filters_cancellable, NULL, NULL,
                       on_filters_listed, lf);
}

/* ---- setup ----------------------------------------------------------------------------- */

static const GActionEntry filter_entries[] = {
  { .name = "apply-filter", .activate = apply_filter_activated, .parameter_type = "s" },
};

void
_lb_window_filters_init (LbWindow *self)
{
  g_action_map_add_action_entries (G_ACTION_MAP (self), filter_entries,
                                   G_N_ELEMENTS (filter_entries), self);
  _lb_window_bench_init (self);
  self->store_filters = g_list_store_new (LB_TYPE_FILTER);
  self->registry_source = g_idle_add_full (G_PRIORITY_LOW, load_registry_idle, self, NULL);
  self->bench = LB_BENCH_PANEL (lb_bench_panel_new ());
  gtk_revealer_set_child (GTK_REVEALER (self->bench_revealer), GTK_WIDGET (self->bench));
  rebuild_filter_menu (self);
}

void
_lb_window_filters_dispose (LbWindow *self)
{
  g_clear_handle_id (&self->registry_source, g_source_remove);
  g_clear_handle_id (&self->preview_source, g_source_remove);
  g_clear_handle_id (&self->rebind_source, g_source_remove);
  if (self->preview_cancellable)
    g_cancellable_cancel (self->preview_cancellable);
  if (self->store_filters_cancellable)
    g_cancellable_cancel (self->store_filters_cancellable);
  g_clear_object (&self->preview_cancellable);
  g_clear_object (&self->store_filters_cancellable);
  if (self->registry)
    g_signal_handlers_disconnect_by_data (self->registry, self);
  g_clear_object (&self->registry);
  g_clear_object (&self->store_filters);
  g_clear_object (&self->last_filter);
  g_clear_pointer (&self->last_params, lb_filter_params_unref);
  if (self->param_dialog)
    gtk_window_destroy (GTK_WINDOW (self->param_dialog));
  self->param_dialog = NULL;
  _lb_window_aux_clear (self);
}
