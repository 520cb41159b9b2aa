/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-window"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-dicom-frame.h"
#include "lb-error.h"
#include "lb-dialogs.h"
#include "lb-window-private.h"

/* Frames of multi-frame images and slices of series: stepping (win.next-frame,
 * win.previous-frame, win.next-page and win.previous-page by a tenth of the stack,
 * win.first-frame, win.last-frame, win.go-to-frame) and cine (win.cine, at the rate and in
 * the mode of lb-window-nav.c's controls).
 * A frame is decoded only when it is shown (LbFrameSource, on a worker thread); the view
 * (zoom, pan, rotation, window/level) stays from frame to frame. Each frame has a history of
 * its own: leaving a frame whose history holds filter results asks first, since they are
 * lost with it. */

static void load_frame (LbWindow *self, guint number);

static void
update_frame_label (LbWindow *self)
{
  g_autofree char *text = NULL;

  double mm;

  if (self->frames != NULL && lb_frame_source_is_series (self->frames) && self->frame == 0)
    text = g_strdup (_("Loading the series…"));
  else if (self->series_loader != NULL && self->frame_loading)
    /* TRANSLATORS: a slice of a series that has not arrived yet, "slice 3/40 · loading…" */
    text = g_strdup_printf (_("slice %u/%u · loading…"), self->frame,
                            lb_frame_source_get_n_frames (self->frames));
  else if (self->frames != NULL && lb_frame_source_is_series (self->frames)
           && lb_frame_source_get_location (self->frames, self->frame, &mm))
    /* TRANSLATORS: the slice shown of a series and its location along the slice normal,
     * "slice 3/40 · −12.5 mm" */
    text = g_strdup_printf (_("slice %u/%u · %.1f mm"), self->frame,
                            lb_frame_source_get_n_frames (self->frames), mm);
  else if (self->frames != NULL && lb_frame_source_is_series (self->frames))
    /* TRANSLATORS: the slice shown of a series, "slice 3/40" */
    text = g_strdup_printf (_("slice %u/%u"), self->frame,
                            lb_frame_source_get_n_frames (self->frames));
  else if (self->frames != NULL)
    /* TRANSLATORS: the frame shown of a multi-frame image, "frame 3/40" */
    text = g_strdup_printf (_("frame %u/%u"), self->frame,
                            lb_frame_source_get_n_frames (self->frames));
  gtk_label_set_text (GTK_LABEL (self->frame_label), text ? text : "");
  gtk_widget_set_visible (self->frame_label, text != NULL);
  _lb_window_nav_update (self);
}

static void
set_enabled (LbWindow *self, const char *name, gboolean enabled)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), name);

  g_simple_action_set_enabled (G_SIMPLE_ACTION (action), enabled);
}

void
_lb_window_frames_update_actions (LbWindow *self)
{
  gboolean can = self->frames != NULL && self->frame > 0 && !self->busy;
  gboolean forward = can && self->frame < lb_frame_source_get_n_frames (self->frames);

  set_enabled (self, "next-frame", can && self->frame < lb_frame_source_get_n_frames (self->frames));
  set_enabled (self, "previous-frame", can && self->frame > 1);
  set_enabled (self, "next-page", forward);
  set_enabled (self, "previous-page", can && self->frame > 1);
  set_enabled (self, "go-to-frame", can);
  set_enabled (self, "first-frame", can);
  set_enabled (self, "last-frame", can);
  set_enabled (self, "cine", can);
}

static void
stop_cine (LbWindow *self)
{
  g_clear_handle_id (&self->cine_source, g_source_remove);
  g_action_change_state (g_action_map_lookup_action (G_ACTION_MAP (self), "cine"),
                         g_variant_new_boolean (FALSE));
}

/* ---- the series' background loading (LbSeriesLoader) ------------------------------------- */

static void show_frame (LbWindow *self, guint number, LbImage *image);

static void
update_load_progress (LbWindow *self)
{
  LbSeriesLoader *loader = self->series_loader;
  guint n, loaded;
  g_autofree char *text = NULL;

  if (self->load_progress == NULL)
    return;
  if (loader == NULL)
    {
      gtk_widget_set_visible (self->load_progress, FALSE);
      return;
    }
  n = lb_frame_source_get_n_frames (lb_series_loader_get_source (loader));
  loaded = lb_series_loader_get_n_loaded (loader);
  /* TRANSLATORS: slices of a series in memory, "124/300 loaded" */
  text = g_strdup_printf (_("%u/%u loaded"), loaded, n);
  gtk_progress_bar_set_text (GTK_PROGRESS_BAR (self->load_progress), text);
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->load_progress),
                                 n ? (double) loaded / n : 0);
  gtk_widget_set_tooltip_text (self->load_progress,
                               lb_series_loader_is_cancelled (loader)
                               ? _("Loading stopped; slices still load when shown")
                               : NULL);
  /* shown while it loads, and after a stop or a full budget (it says how much is there) */
  gtk_widget_set_visible (self->load_progress, loaded < n);
}

static void
on_loader_frame_loaded (LbSeriesLoader *loader, guint number, LbWindow *self)
{
  g_autoptr(LbImage) image = NULL;
  if (loader != self->series_loader)
    return;

  if (!self->frame_loading || number != (self->frame ? self->frame : 1))
    return;
  image = lb_series_loader_get_image (loader, number);
  if (image != NULL)
    show_frame (self, number, image);
}

static void
on_loader_frame_failed (LbSeriesLoader *loader, guint number, LbWindow *self)
{
  if (loader != self->series_loader)
    return;
  if (!self->frame_loading || number != (self->frame ? self->frame : 1))
    return;
  self->frame_loading = FALSE;
  gtk_spinner_set_spinning (GTK_SPINNER (self->canvas_spinner), FALSE);
  stop_cine (self);
  _lb_window_show_error (self, _("Could not show the frame"),
                         lb_series_loader_get_error (loader, number));
}

/* The bar follows the loading at most this often (µs): each change repaints the window, and
 * on a software renderer a repaint per slice (hundreds a second) takes the main thread from
 * the transfers it serves. The last change (all loaded, stopped, the budget full) always
 * shows. */
#define LOAD_PROGRESS_INTERVAL_US 200000

static void
on_loader_progress (LbSeriesLoader *loader, LbWindow *self)
{
  gint64 now = g_get_monotonic_time ();

  if (loader != self->series_loader)
    return;
  if (!lb_series_loader_is_idle (loader) && !lb_series_loader_is_cancelled (loader)
      && now - self->load_progress_us < LOAD_PROGRESS_INTERVAL_US)
    return;
  self->load_progress_us = now;
  update_load_progress (self);
  _lb_window_update_actions (self);
}

static void
stop_loader (LbWindow *self)
{
  if (self->series_loader == NULL)
    return;
  g_signal_handlers_disconnect_by_data (self->series_loader, self);
  lb_series_loader_cancel (self->series_loader);
  g_clear_object (&self->series_loader);
  if (self->canvas != NULL)
    lb_canvas_set_loading (self->canvas, NULL);
  update_load_progress (self);
}

gboolean
_lb_window_frames_is_loading (LbWindow *self)
{
  return self->series_loader != NULL && !lb_series_loader_is_cancelled (self->series_loader)
         && !lb_series_loader_is_idle (self->series_loader);
}

void
_lb_window_frames_stop_loading (LbWindow *self)
{
  if (self->series_loader == NULL)
    return;
  lb_series_loader_cancel (self->series_loader);
  _lb_window_update_actions (self);
}

void
_lb_window_frames_close (LbWindow *self)
{
  if (self->frame_cancellable)
    g_cancellable_cancel (self->frame_cancellable);
  g_clear_object (&self->frame_cancellable);
  g_clear_handle_id (&self->cine_source, g_source_remove);
  if (self->frame_loading && self->frames != NULL && lb_frame_source_is_series (self->frames)
      && self->canvas_spinner != NULL)
    gtk_spinner_set_spinning (GTK_SPINNER (self->canvas_spinner), FALSE);
  self->frame_loading = FALSE;
  stop_loader (self);
  g_clear_object (&self->frames);
  _lb_window_series_filter_forget (self);
  self->frame = 0;
  self->frame_serial++;
  if (self->frame_label != NULL)
    update_frame_label (self);
}

void
_lb_window_frames_open (LbWindow *self, LbImage *image, const char *uri)
{
  const char *number;

  stop_cine (self);
  _lb_window_frames_close (self);
  /* an image opened since: a series still being read must not replace it */
  if (self->series_cancellable)
    g_cancellable_cancel (self->series_cancellable);
  self->frames = lb_frame_source_new_for_image (
    self->store != NULL && g_str_has_prefix (uri, lb_store_get_uri (self->store))
    ? self->store : NULL, uri, image);
  if (self->frames != NULL)
    {
      number = lb_image_meta_get_text (lb_image_get_meta (image), LB_DICOM_META_FRAME_NUMBER);
      self->frame = number ? (guint) g_ascii_strtoull (number, NULL, 10) : 1;
      self->frame = CLAMP (self->frame, 1, lb_frame_source_get_n_frames (self->frames));
    }
  update_frame_label (self);
  _lb_window_frames_update_actions (self);
}

void
_lb_window_frames_open_series (LbWindow *self, LbFrameSource *series, const char *name)
{
  const char * const *messages = lb_frame_source_get_messages (series);

  stop_cine (self);
  _lb_window_frames_close (self);
  /* an image still loading would replace the series when it arrives */
  if (self->load_cancellable)
    g_cancellable_cancel (self->load_cancellable);
  self->load_serial++;
  self->frames = g_object_ref (series);
  self->frame = 0;  /* nothing of the series shown yet */
  self->frame_first = TRUE;
  self->series_loader = lb_series_loader_new (series,
                                              (guint) g_settings_get_int (self->settings,
                                                                          "series-parallel-loads"),
                                              0);
  /* the loader goes with its viewport's state when another viewport becomes active
   * (lb-window-viewports.c): its signals count only while it is the window's */
  g_signal_connect_object (self->series_loader, "frame-loaded",
                           G_CALLBACK (on_loader_frame_loaded), self, 0);
  g_signal_connect_object (self->series_loader, "frame-failed",
                           G_CALLBACK (on_loader_frame_failed), self, 0);
  g_signal_connect_object (self->series_loader, "progress", G_CALLBACK (on_loader_progress),
                           self, 0);
  g_free (self->image_name);
  self->image_name = g_strdup (name);
  _lb_window_update_title (self);
  if (messages[0] != NULL)
    {
      g_autofree char *text = g_strjoinv (" ", (char **) messages);

      _lb_window_set_status (self, text);
    }
  update_frame_label (self);
  _lb_window_measure_open (self, NULL);
  load_frame (self, 1);
  /* win.cancel: Escape stops the loading from now on */
  _lb_window_update_actions (self);
}

typedef struct {
  LbWindow *self;  /* a reference: the read is cancelled on dispose */
  char     *name;
  gboolean  quiet; /* a folder that is not one series stays a store: no error */
  gboolean  folder; /* a store folder of images, not a series */
  const char *error_title;  /* translated, static; NULL: "Could not open the series" */
} SeriesOpen;

static SeriesOpen *
series_open_new (LbWindow *self, const char *name, gboolean quiet)
{
  SeriesOpen *so = g_new0 (SeriesOpen, 1);

  if (self->series_cancellable)
    g_cancellable_cancel (self->series_cancellable);
  g_clear_object (&self->series_cancellable);
  self->series_cancellable = g_cancellable_new ();
  so->self = g_object_ref (self);
  so->name = g_strdup (name);
  so->quiet = quiet;
  return so;
}

static void
series_open_free (SeriesOpen *so)
{
  g_object_unref (so->self);
  g_free (so->name);
  g_free (so);
}

static void
on_series_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  SeriesOpen *so = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(LbFrameSource) series = lb_frame_source_new_for_series_finish (result, &error);

  if (series != NULL)
    _lb_window_frames_open_series (so->self, series, so->name);
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    ;
  else if (so->quiet)
    /* a folder of other images, or of several series: it stays a store to browse */
    g_debug ("%s: not one series: %s", so->name, error->message);
  else
    _lb_window_show_error (so->self, so->error_title ? so->error_title
                                     : _("Could not open the series"), error);
  series_open_free (so);
}

void
_lb_window_frames_open_folder (LbWindow *self, GFile *folder)
{
  g_autofree char *name = g_file_get_basename (folder);
  SeriesOpen *so = series_open_new (self, name, TRUE);

  lb_frame_source_new_for_folder_async (folder, self->series_cancellable, on_series_read, so);
}

/* The entries of a series of a local store (DICOM files), or of a folder of a store (its
 * images: a stack when they are alike), listed: their slices read and ordered. */
static void
on_series_listed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  SeriesOpen *so = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) entries = lb_store_list_finish (LB_STORE (source), result, &error);
  g_autoptr(GStrvBuilder) uris = g_strv_builder_new ();
  const char *title = so->error_title ? so->error_title : _("Could not open the series");
  g_auto(GStrv) list = NULL;

  if (entries == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _lb_window_show_error (so->self, title, error);
      series_open_free (so);
      return;
    }
  for (guint i = 0; i < entries->len; i++)
    {
      LbStoreEntry *entry = g_ptr_array_index (entries, i);
      LbStoreEntryKind kind = lb_store_entry_get_kind (entry);
      const char *uri = lb_store_entry_get_uri (entry);

      if (so->folder)
        {
          /* the folder's images; its subfolders and other files are not slices */
          if (kind == LB_STORE_ENTRY_IMAGE || kind == LB_STORE_ENTRY_DICOM_FILE)
            g_strv_builder_add (uris, uri);
          continue;
        }
      if (!g_str_has_prefix (uri, "file:"))
        {
          g_set_error (&error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                       "%s: only series of local folders open as a stack, not %s", so->name,
                       uri);
          _lb_window_show_error (so->self, title, error);
          series_open_free (so);
          return;
        }
      g_strv_builder_add (uris, uri);
    }
  list = g_strv_builder_end (uris);
  if (so->folder)
    lb_frame_source_new_for_store_files_async (LB_STORE (source), so->name,
                                               (const char * const *) list,
                                               so->self->series_cancellable, on_series_read,
                                               so);
  else
    lb_frame_source_new_for_files_async ((const char * const *) list,
                                         so->self->series_cancellable, on_series_read, so);
}

void
_lb_window_frames_open_store_folder (LbWindow *self, LbStoreEntry *folder)
{
  SeriesOpen *so = series_open_new (self, lb_store_entry_get_display_name (folder), FALSE);

  so->folder = TRUE;
  so->error_title = _("Could not open the folder as a stack");
  lb_store_list_async (self->store, lb_store_entry_get_uri (folder), self->series_cancellable,
                       NULL, NULL, on_series_listed, so);
}

void
_lb_window_frames_open_store_series (LbWindow *self, LbStoreEntry *series)
{
  SeriesOpen *so = series_open_new (self, lb_store_entry_get_display_name (series), FALSE);

  if (!g_str_has_prefix (lb_store_entry_get_uri (series), "file:"))
    {
      /* a DICOMweb series: every instance's geometry from the series' metadata at once */
      lb_frame_source_new_for_store_series_async (self->store, lb_store_entry_get_uri (series),
                                                  self->series_cancellable, on_series_read, so);
      return;
    }
  lb_store_list_async (self->store, lb_store_entry_get_uri (series), self->series_cancellable,
                       NULL, NULL, on_series_listed, so);
}

/* ---- loading a frame --------------------------------------------------------------------- */

typedef struct {
  LbWindow *self;  /* a reference: the load is cancelled on dispose */
  guint     serial;
  guint     number;
} FrameLoad;

/* Shows @image as frame @number of the stack. */
static void
show_frame (LbWindow *self, guint number, LbImage *image)
{
  g_autoptr(LbImageMeta) meta = NULL;
  g_autoptr(LbImage) tagged = NULL;
  g_autoptr(LbHistory) history = NULL;
  LbFrameSource *frames = self->frames;
  gboolean series = lb_frame_source_is_series (frames);
  gboolean first = self->frame == 0 || self->frame_first;
  LbImage *original;

  self->frame_loading = FALSE;
  self->frame_first = FALSE;
  if (series)
    gtk_spinner_set_spinning (GTK_SPINNER (self->canvas_spinner), FALSE);
  /* a frame comes from where the first came from (the same write-back target); a slice of a
   * series from its own file */
  original = self->history ? lb_history_get_original (self->history) : NULL;
  meta = lb_image_dup_meta (image);
  lb_image_meta_set_source_uri (meta, lb_frame_source_get_frame_uri (frames, number));
  if (!series && original && lb_image_meta_get_source_etag (lb_image_get_meta (original)))
    lb_image_meta_set_source_etag (meta,
                                   lb_image_meta_get_source_etag (lb_image_get_meta (original)));
  tagged = lb_image_with_meta (image, meta);
  /* with the whole-series filter results in effect (read from the slice left, so before
   * self->frame moves) */
  history = _lb_window_series_filter_history (self, number, tagged);
  self->frame = number;
  _lb_window_set_history (self, history);
  /* keep_view: zoom, pan, rotation and window/level stay as the reader set them; the first
   * slice of a series starts from the file's window and a fitted view */
  lb_canvas_set_image (self->canvas, lb_history_get_current (history), !first);
  lb_canvas_set_before_image (self->canvas, tagged);
  lb_canvas_set_loading (self->canvas, NULL);
  if (first)
    gtk_widget_grab_focus (GTK_WIDGET (self->canvas));
  update_frame_label (self);
  _lb_window_overlay_update (self);
  _lb_window_update_actions (self);
}

static void
on_frame_loaded (GObject *source, GAsyncResult *result, gpointer user_data)
{
  FrameLoad *fl = user_data;
  LbWindow *self = fl->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(LbImage) image = lb_frame_source_load_finish (LB_FRAME_SOURCE (source), result,
                                                          &error);

  if (fl->serial != self->frame_serial)
    goto out;
  if (image == NULL)
    {
      self->frame_loading = FALSE;
      if (lb_frame_source_is_series (LB_FRAME_SOURCE (source)))
        gtk_spinner_set_spinning (GTK_SPINNER (self->canvas_spinner), FALSE);
      stop_cine (self);
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _lb_window_show_error (self, _("Could not show the frame"), error);
      goto out;
    }
  show_frame (self, fl->number, image);
out:
  g_object_unref (fl->self);
  g_free (fl);
}

/* A series with its loader: the slice from memory at once, or "loading" (never the slice
 * shown before under the new number) until the loader has it. */
static void
load_frame_from_loader (LbWindow *self, guint number)
{
  g_autoptr(LbImage) image = NULL;
  g_autofree char *text = NULL;

  lb_series_loader_set_current (self->series_loader, number);
  image = lb_series_loader_get_image (self->series_loader, number);
  if (image != NULL)
    {
      show_frame (self, number, image);
      return;
    }
  self->frame_loading = TRUE;
  if (self->frame != 0)
    self->frame = number;
  gtk_spinner_set_spinning (GTK_SPINNER (self->canvas_spinner), TRUE);
  /* TRANSLATORS: drawn on the viewport while a slice of a series is on its way */
  text = g_strdup_printf (_("Loading slice %u/%u…"), number,
                          lb_frame_source_get_n_frames (self->frames));
  lb_canvas_set_loading (self->canvas, text);
  update_frame_label (self);
  _lb_window_overlay_update (self);
  _lb_window_frames_update_actions (self);
}

static void
load_frame (LbWindow *self, guint number)
{
  FrameLoad *fl;

  if (self->frames == NULL)
    return;
  number = CLAMP (number, 1, lb_frame_source_get_n_frames (self->frames));
  if (self->frame_cancellable)
    g_cancellable_cancel (self->frame_cancellable);
  g_clear_object (&self->frame_cancellable);
  if (self->series_loader != NULL)
    {
      self->frame_serial++;
      load_frame_from_loader (self, number);
      return;
    }
  self->frame_cancellable = g_cancellable_new ();
  fl = g_new0 (FrameLoad, 1);
  fl->self = g_object_ref (self);
  fl->serial = ++self->frame_serial;
  fl->number = number;
  self->frame_loading = TRUE;
  /* the slice shown stays, with its own label and overlay, until the asked one is decoded;
   * the spinner says that another is on its way */
  if (lb_frame_source_is_series (self->frames))
    gtk_spinner_set_spinning (GTK_SPINNER (self->canvas_spinner), TRUE);
  lb_frame_source_load_async (self->frames, number, self->frame_cancellable, on_frame_loaded,
                              fl);
}

/* ---- filter results on the frame shown --------------------------------------------------- */

#define DISCARD_ASK_KEY "lb-frames-discard-ask"

/* The question asked, kept on the window while it is open (freed with the window, since the
 * dialog calls nobody back when its parent goes first). */
typedef struct {
  guint number;  /* the frame asked for */
  guint serial;  /* self->frame_serial when asked */
} DiscardAsk;

enum { CHOICE_KEEP, CHOICE_DISCARD };

/* Whether the frame shown has filter results (undone ones too: redo brings them back),
 * besides those of a filter over the whole series, which every slice keeps; measurement
 * steps are not results: the measurements stay in the window's list. */
static gboolean
has_results (LbWindow *self)
{
  return self->history != NULL
         && lb_history_get_n_image_steps (self->history) > _lb_window_series_filter_n_shared (self);
}

static void
on_discard_answer (int      choice,
                   gpointer user_data)
{
  LbWindow *self = user_data;
  DiscardAsk *ask = g_object_get_data (G_OBJECT (self), DISCARD_ASK_KEY);
  guint number = ask->number, serial = ask->serial;

  g_object_set_data (G_OBJECT (self), DISCARD_ASK_KEY, NULL);
  /* only if the frames asked about are still the ones shown (no other image opened since) */
  if (choice == CHOICE_DISCARD && self->frames != NULL && serial == self->frame_serial)
    load_frame (self, number);
  else
    _lb_window_nav_update (self);  /* the slider back on the frame still shown */
}

/* Asks whether frame @number may replace the frame shown and its filter results: Keep stays,
 * Discard steps. */
static void
ask_discard_results (LbWindow *self,
                     guint     number)
{
  g_autofree char *message = NULL, *detail = NULL;
  const char *choices[] = { _("_Keep Results"), _("_Discard Results"), NULL };
  DiscardAsk *pending;
  LbDialogsAsk ask = {
    .choices = choices,
    .cancel_choice = CHOICE_KEEP,
    .default_choice = CHOICE_KEEP,
    .destructive_choice = CHOICE_DISCARD,
  };

  if (g_object_get_data (G_OBJECT (self), DISCARD_ASK_KEY) != NULL)
    return;
  /* TRANSLATORS: asked before stepping away from a frame of a multi-frame image that has
   * filter results */
  message = g_strdup_printf (_("Discard the filter results on frame %u?"), self->frame);
  detail = g_strdup_printf (_("Frame %u opens with a history of its own: the results on this "
                              "frame and their undo steps are lost. Upload them first to keep "
                              "them."), number);
  ask.message = message;
  ask.detail = detail;
  pending = g_new (DiscardAsk, 1);
  pending->number = number;
  pending->serial = self->frame_serial;
  g_object_set_data_full (G_OBJECT (self), DISCARD_ASK_KEY, pending, g_free);
  lb_dialogs_ask (GTK_WINDOW (self), &ask, NULL, on_discard_answer, self);
}

/* Shows frame @number, asking first when that would drop filter results. */
static void
step_to (LbWindow *self,
         guint     number)
{
  if (has_results (self))
    {
      stop_cine (self);
      ask_discard_results (self, number);
    }
  else
    load_frame (self, number);
}

/* ---- actions ------------------------------------------------------------------------------ */

static void
step_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  LbWindow *self = user_data;
  const char *name = g_action_get_name (G_ACTION (action));
  guint n, page;

  if (self->frames == NULL)
    return;
  n = lb_frame_source_get_n_frames (self->frames);
  /* a page is a tenth of the stack, rounded, at least one frame */
  page = MAX (1, (n + 5) / 10);
  if (g_str_equal (name, "go-to-frame"))
    step_to (self, g_variant_get_uint32 (param));
  else if (g_str_equal (name, "next-page") && self->frame < n)
    step_to (self, MIN (self->frame + page, n));
  else if (g_str_equal (name, "previous-page") && self->frame > 1)
    step_to (self, self->frame > page ? self->frame - page : 1);
  else if (g_str_equal (name, "next-frame") && self->frame < n)
    step_to (self, self->frame + 1);
  else if (g_str_equal (name, "previous-frame") && self->frame > 1)
    step_to (self, self->frame - 1);
  else if (g_str_equal (name, "first-frame"))
    step_to (self, 1);
  else if (g_str_equal (name, "last-frame"))
    step_to (self, n);
}

static gboolean
cine_tick (gpointer user_data)
{
  LbWindow *self = user_data;

  /* a frame still decoding or downloading: skip this tick rather than queue frames */
  if (self->frames == NULL || self->frame_loading || self->busy)
    return G_SOURCE_CONTINUE;
  /* results on the frame shown stop the playback and ask (step_to removes this source) */
  if (has_results (self))
    {
      self->cine_source = 0;
      step_to (self, _lb_window_nav_cine_next (self));
      return G_SOURCE_REMOVE;
    }
  load_frame (self, _lb_window_nav_cine_next (self));
  return G_SOURCE_CONTINUE;
}

static void
cine_change_state (GSimpleAction *action, GVariant *state, gpointer user_data)
{
  LbWindow *self = user_data;
  gboolean play = g_variant_get_boolean (state);

  g_simple_action_set_state (action, state);
  g_clear_handle_id (&self->cine_source, g_source_remove);
  if (play && self->frames != NULL)
    self->cine_source = g_timeout_add (MAX ((guint) (1000 / _lb_window_nav_cine_fps (self) + 0.5),
                                            1), cine_tick, self);
}

void
_lb_window_frames_refresh (LbWindow *self)
{
  update_load_progress (self);
  update_frame_label (self);
  _lb_window_frames_update_actions (self);
}

void
_lb_window_frames_init (LbWindow *self)
{
  static const GActionEntry entries[] = {
    { .name = "next-frame", .activate = step_activated },
    { .name = "previous-frame", .activate = step_activated },
    { .name = "first-frame", .activate = step_activated },
    { .name = "last-frame", .activate = step_activated },
    { .name = "next-page", .activate = step_activated },
    { .name = "previous-page", .activate = step_activated },
    { .name = "go-to-frame", .activate = step_activated, .parameter_type = "u" },
    { .name = "cine", .state = "false", .change_state = cine_change_state },
  };

  g_action_map_add_action_entries (G_ACTION_MAP (self), entries, G_N_ELEMENTS (entries), self);
  update_frame_label (self);
  _lb_window_frames_update_actions (self);
}

