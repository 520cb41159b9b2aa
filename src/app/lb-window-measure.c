/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-window"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "lb-dialogs.h"
#include "lb-dicomweb-store.h"
#include "lb-error.h"
#include "lb-measure-layer.h"
#include "lb-measurement-store.h"
#include "lb-window-measure-private.h"

/* The measurement tools in the window: the tool bar above the canvas and its actions, each
 * viewport's measurements (the panel and its CSV are lb-window-measure-panel.c), and the
 * JSON sidecars of the image or series (lb-measurement-store.h): loaded when it opens, saved
 * on the user's word only. The list (LbMeasurementList) is the one place the measurements
 * live; lb_window_get_measurements() hands it to other savers. */

#define STATE_KEY LB_WINDOW_MEASURE_STATE_KEY

static void
doc_free (gpointer data)
{
  Doc *d = data;

  g_free (d->uri);
  g_free (d->etag);
  g_free (d);
}

static LbWindowMeasure *
wm (LbWindow *self)
{
  return self->measure;
}

LbMeasurementList *
lb_window_get_measurements (LbWindow *self)
{
  g_return_val_if_fail (LB_IS_WINDOW (self), NULL);
  return self->measure != NULL ? self->measure->list : NULL;
}

LbMeasureLayer *
_lb_window_measure_get_layer (LbWindow *self)
{
  return self->measure != NULL ? self->measure->layer : NULL;
}

guint
_lb_window_measure_frame_shown (LbWindow *self)
{
  return self->frames != NULL && self->frame > 0 ? self->frame : 1;
}

#define frame_shown _lb_window_measure_frame_shown

static void
enable (LbWindow *self, const char *name, gboolean on)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), name);

  if (action != NULL)
    g_simple_action_set_enabled (G_SIMPLE_ACTION (action), on);
}

void
_lb_window_measure_update_actions (LbWindow *self)
{
  LbWindowMeasure *m = wm (self);
  /* the history comes with every image and slice shown (before the canvas has it) */
  gboolean image = self->history != NULL;
  LbMeasurementTool tool;

  enable (self, "measure-tool", image);
  enable (self, "measure-leave", lb_measure_layer_get_tool (m->layer, &tool));
  enable (self, "measure-delete", lb_measure_layer_get_selected (m->layer) != NULL);
  /* a report is written only with something in it; a sidecar also to empty it */
  enable (self, "measurements-save", m->saving == 0
          && (m->dicomweb ? lb_measurement_list_get_n (m->list) > 0 : m->docs->len > 0));
  /* every row of the panel is exported: the study's, not only the list's */
  enable (self, "measurements-export", lb_measurement_list_get_n (m->list) > 0
          || gtk_widget_get_first_child (m->list_box) != NULL);
}

/* ---- loading the sidecars ---------------------------------------------------------------- */

static void follow_canvas (LbWindow        *self);

DocOp *
_lb_window_measure_op_new (LbWindow *self, LbWindowMeasure *m, Doc *d)
{
  DocOp *op = g_new0 (DocOp, 1);

  op->self = g_object_ref (self);
  m->refs++;
  op->m = m;
  op->doc = d;
  op->generation = m->generation;
  return op;
}

void
_lb_window_measure_op_free (DocOp *op)
{
  _lb_window_measure_state_unref (op->m);
  g_object_unref (op->self);
  g_free (op);
}

/* Whether @op is still about the image its viewport shows: the window, the viewport and the
 * documents are as they were (a result may arrive after another image was opened, even after
 * its cancellation). */
gboolean
_lb_window_measure_op_current (DocOp *op)
{
  return op->self->measure != NULL && !op->m->dead && op->generation == op->m->generation;
}

static void
on_sidecar_loaded (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  DocOp *op = user_data;
  LbWindow *self = op->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) loaded = NULL;
  LbMeasurementImageRef ref = { .frame = -1 };
  char *etag = NULL;

  loaded = lb_measurement_store_load_finish (LB_STORE (source), result, &etag, &ref, &error);
  if (!_lb_window_measure_op_current (op) || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_free (etag);
      goto out;
    }
  if (loaded == NULL)
    {
      op->doc->failed = TRUE;
      /* TRANSLATORS: the image opens all the same, without them */
      _lb_window_show_error (self, _("Could not read the saved measurements"), error);
      goto out;
    }
  op->doc->etag = etag;
  for (guint i = 0; i < loaded->len; i++)
    {
      /* a slice's measurements are its own; a multi-frame object's are on the frame the
       * file names (from 0) */
      guint frame = op->doc->frame > 0 ? op->doc->frame : (ref.frame >= 0 ? ref.frame + 1 : 1);

      lb_measurement_list_append (op->m->list, g_ptr_array_index (loaded, i), frame);
    }
out:
  lb_measurement_image_ref_clear (&ref);
  _lb_window_measure_op_free (op);
}

/* The store that holds @uri's sidecar: the store open, else the local folder of a file. */
static LbStore *
sidecar_store (LbWindow *self, const char *uri)
{
  g_autofree char *folder = NULL;
  const char *slash;

  if (self->store != NULL && g_str_has_prefix (uri, lb_store_get_uri (self->store)))
    return g_object_ref (self->store);
  slash = strrchr (uri, '/');
  if (!g_str_has_prefix (uri, "file:") || slash == NULL)
    return NULL;
  folder = g_strndup (uri, slash + 1 - uri);
  return lb_store_new_for_uri (folder, NULL, NULL);
}

static void
add_doc (LbWindow *self, const char *uri, guint frame)
{
  LbWindowMeasure *m = wm (self);
  g_autofree char *sidecar = uri != NULL ? lb_measurement_sidecar_uri (uri) : NULL;
  DocOp *op;
  Doc *d;

  if (sidecar == NULL || m->store == NULL)
    return;
  d = g_new0 (Doc, 1);
  d->uri = g_strdup (uri);
  d->frame = frame;
  g_ptr_array_add (m->docs, d);
  op = _lb_window_measure_op_new (self, m, d);
  lb_measurement_store_load_async (m->store, uri, m->cancellable, on_sidecar_loaded, op);
}

void
_lb_window_measure_open (LbWindow   *self,
                         const char *uri)
{
  LbWindowMeasure *m = wm (self);
  const char *first;

  g_cancellable_cancel (m->cancellable);
  g_clear_object (&m->cancellable);
  m->cancellable = g_cancellable_new ();
  m->generation++;
  g_clear_object (&m->pending_select);
  lb_measure_layer_select (m->layer, NULL);
  lb_measurement_list_clear (m->list);
  g_ptr_array_set_size (m->conflicts, 0);
  g_ptr_array_set_size (m->docs, 0);
  g_ptr_array_set_size (m->others, 0);
  g_clear_object (&m->store);
  g_clear_pointer (&m->instance_uri, g_free);
  g_clear_pointer (&m->instance_ds, lb_dicom_dataset_unref);
  first = uri;
  if (first == NULL && self->frames != NULL)
    first = lb_frame_source_get_frame_uri (self->frames, 1);
  if (first != NULL)
    m->store = sidecar_store (self, first);
  /* measurements on a DICOMweb server are DICOM SR reports in the study (TID 1500) */
  m->dicomweb = m->store != NULL && LB_IS_DICOMWEB_STORE (m->store);
  if (m->dicomweb)
    {
      if (uri != NULL)
        m->instance_uri = g_strdup (uri);
      _lb_window_measure_sr_load (self, m);
    }
  else if (uri == NULL && self->frames != NULL && lb_frame_source_is_series (self->frames))
    for (guint i = 1; i <= lb_frame_source_get_n_frames (self->frames); i++)
      add_doc (self, lb_frame_source_get_frame_uri (self->frames, i), i);
  else
    add_doc (self, uri, 0);
  _lb_window_measure_sync (self);
}

void
_lb_window_measure_sync (LbWindow *self)
{
  LbWindowMeasure *m;

  if (self->measure == NULL)
    return;
  follow_canvas (self);
  m = wm (self);
  lb_measure_layer_set_history (m->layer, self->history);
  lb_measure_layer_set_frame (m->layer, frame_shown (self));
  if (m->pending_select != NULL
      && lb_measurement_list_get_frame (m->list, m->pending_select) == frame_shown (self))
    {
      lb_measure_layer_select (m->layer, m->pending_select);
      g_clear_object (&m->pending_select);
    }
  _lb_window_measure_rows_changed (self);
}

/* ---- saving ------------------------------------------------------------------------------ */

static void ask_replace (LbWindow *self, LbWindowMeasure *m);

static void
save_done (LbWindow *self, LbWindowMeasure *m)
{
  if (--m->saving > 0)
    return;
  if (m->save_errors->len > 0)
    {
      g_autoptr(GError) error = g_error_new_literal (LB_ERROR, LB_ERROR_CONFLICT,
                                                     m->save_errors->str);

      /* TRANSLATORS: nothing was overwritten; the message says which file and why */
      _lb_window_show_error (self, _("Could not save the measurements"), error);
    }
  else if (m->conflicts->len > 0)
    ask_replace (self, m);
  else
    _lb_window_set_status (self, _("Measurements saved"));
  g_string_truncate (m->save_errors, 0);
  _lb_window_measure_update_actions (self);
}

static void
on_sidecar_saved (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  DocOp *op = user_data;
  LbWindow *self = op->self;
  LbWindowMeasure *m = op->m;
  g_autoptr(GError) error = NULL;
  g_autoptr(LbWriteBackResult) res = lb_measurement_store_save_finish (LB_STORE (source),
                                                                       result, &error);

  if (self->measure == NULL || m->dead)
    goto out;
  if (op->generation != m->generation)
    ;  /* another image since: its documents are not these */
  else if (g_error_matches (error, LB_ERROR, LB_ERROR_CONFLICT) && !op->replacing)
    g_ptr_array_add (m->conflicts, op->doc);
  else if (res == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_string_append_printf (m->save_errors, "%s%s", m->save_errors->len ? "\n" : "",
                                error->message);
    }
  else
    {
      /* the next save replaces this version, and only it */
      g_free (op->doc->etag);
      op->doc->etag = g_strdup (res->etag);
    }
  save_done (self, m);
out:
  _lb_window_measure_op_free (op);
}

/* The document of @d: its measurements, its image reference and spacing. NULL when there is
 * nothing to write (no measurements and no sidecar before); an error when it cannot be kept. */
static GBytes *
doc_bytes (LbWindow *self, LbWindowMeasure *m, Doc *d, GError **error)
{
  g_autoptr(GPtrArray) mine = g_ptr_array_new ();
  LbImage *image = lb_canvas_get_image (self->canvas);
  LbMeasurementImageRef ref = { .frame = -1 };
  LbMeasurementSpacing spacing;
  guint frame = 0;
  GBytes *bytes;

  for (guint i = 0; i < lb_measurement_list_get_n (m->list); i++)
    {
      LbMeasurement *meas = lb_measurement_list_get (m->list, i);
      guint f = lb_measurement_list_get_frame (m->list, meas);

      if (d->frame != 0 && f != d->frame)
        continue;
      if (d->frame == 0 && frame != 0 && f != frame)
        {
          /* the sidecar's version 1 names one frame */
          g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                       _("%s: measurements on several frames of one object cannot be saved "
                         "in one sidecar"), d->uri);
          return NULL;
        }
      frame = f;
      g_ptr_array_add (mine, meas);
    }
  if (mine->len == 0 && d->etag == NULL)
    return NULL;
  /* the image shown gives the values of ROIs and probes; another slice only its lengths */
  if (image != NULL && g_strcmp0 (lb_image_meta_get_source_uri (lb_image_get_meta (image)),
                                  d->uri) == 0)
    {
      lb_measurement_image_ref_init_from_image (&ref, image);
      lb_measurement_spacing_from_meta (lb_image_get_meta (image), &spacing);
    }
  else
    {
      const LbDicomDataset *ds = self->frames != NULL && d->frame > 0
                                 ? lb_frame_source_get_dataset (self->frames, d->frame) : NULL;
      const char *slash = strrchr (d->uri, '/');

      ref.uri = g_strdup (d->uri);
      ref.name = g_uri_unescape_string (slash ? slash + 1 : d->uri, NULL);
      lb_measurement_spacing_init_unknown (&spacing);
      if (ds != NULL)
        lb_measurement_spacing_from_dataset (ds, &spacing);
      else if (image != NULL)
        lb_measurement_spacing_from_meta (lb_image_get_meta (image), &spacing);
      image = NULL;
    }
  if (d->frame == 0 && self->frames != NULL && !lb_frame_source_is_series (self->frames))
    ref.frame = (gint) (frame > 0 ? frame : frame_shown (self)) - 1;
  bytes = lb_measurement_sidecar_write (&ref, &spacing, image, mine, error);
  lb_measurement_image_ref_clear (&ref);
  return bytes;
}

/* Starts saving @d (counted in m->saving); errors go to m->save_errors. */
static void
save_doc (LbWindow *self, LbWindowMeasure *m, Doc *d, gboolean replacing)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  DocOp *op;

  if (d->failed)
    {
      if (m->save_errors->len > 0)
        g_string_append_c (m->save_errors, '\n');
      /* TRANSLATORS: %s is the image's address */
      g_string_append_printf (m->save_errors, _("%s: the saved measurements could not be "
                                                "read, so they are not written over"),
                              d->uri);
      return;
    }
  bytes = doc_bytes (self, m, d, &error);
  if (bytes == NULL)
    {
      if (error != NULL)
        g_string_append_printf (m->save_errors, "%s%s", m->save_errors->len ? "\n" : "",
                                error->message);
      return;
    }
  op = _lb_window_measure_op_new (self, m, d);
  op->replacing = replacing;
  m->saving++;
  lb_measurement_store_save_async (m->store, d->uri, bytes, d->etag, m->cancellable,
                                   on_sidecar_saved, op);
}

static void
save_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  LbWindow *self = user_data;
  LbWindowMeasure *m = wm (self);

  if (m->saving > 0 || m->store == NULL)
    return;
  if (m->dicomweb)
    {
      _lb_window_measure_sr_save (self, m);
      return;
    }
  g_ptr_array_set_size (m->conflicts, 0);
  m->saving = 1;  /* held until every document is started */
  for (guint i = 0; i < m->docs->len; i++)
    save_doc (self, m, g_ptr_array_index (m->docs, i), FALSE);
  _lb_window_measure_update_actions (self);
  save_done (self, m);
}

/* The user agreed: each sidecar that changed since it was read is replaced in the version it
 * has now (its ETag read again), and only in that version. */
static void
on_replace_stat (GObject *source, GAsyncResult *result, gpointer user_data)
{
  DocOp *op = user_data;
  LbWindow *self = op->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStoreEntry) entry = lb_store_stat_finish (LB_STORE (source), result, &error);

  if (self->measure == NULL || op->m->dead)
    goto out;
  if (_lb_window_measure_op_current (op))
    {
      g_free (op->doc->etag);
      /* gone meanwhile: created anew, which still never replaces a file */
      op->doc->etag = entry != NULL ? g_strdup (lb_store_entry_get_etag (entry)) : NULL;
      save_doc (self, op->m, op->doc, TRUE);
    }
  save_done (self, op->m);
out:
  _lb_window_measure_op_free (op);
}

static void
on_replace_answer (int choice, gpointer user_data)
{
  LbWindow *self = user_data;
  LbWindowMeasure *m = wm (self);
  g_autoptr(GPtrArray) docs = NULL;

  if (m == NULL)
    return;
  docs = g_steal_pointer (&m->conflicts);
  m->conflicts = g_ptr_array_new ();
  if (choice != 1 || m->saving > 0)
    {
      _lb_window_set_status (self, _("The measurements were not saved"));
      return;
    }
  m->saving = 1;
  for (guint i = 0; i < docs->len; i++)
    {
      Doc *d = g_ptr_array_index (docs, i);
      g_autofree char *sidecar = lb_measurement_sidecar_uri (d->uri);

      m->saving++;
      lb_store_stat_async (m->store, sidecar, m->cancellable, on_replace_stat,
                           _lb_window_measure_op_new (self, m, d));
    }
  save_done (self, m);
}

/* (Modal: the viewport, and so self->measure, stays @m until it is answered.) */
static void
ask_replace (LbWindow *self, LbWindowMeasure *m)
{
  g_autoptr(GString) names = g_string_new (NULL);
  g_autofree char *detail = NULL;
  const char *choices[] = { _("_Cancel"), _("_Replace"), NULL };
  LbDialogsAsk ask = {
    /* TRANSLATORS: asked when a measurements file beside an image changed since it was read
     * (another reader saved theirs) */
    .message = _("Replace the measurements saved meanwhile?"),
    .choices = choices,
    .cancel_choice = 0,
    .default_choice = 0,
    .destructive_choice = 1,
  };

  for (guint i = 0; i < m->conflicts->len; i++)
    {
      g_autofree char *sidecar = lb_measurement_sidecar_uri (((Doc *) g_ptr_array_index (
                                                                m->conflicts, i))->uri);

      g_string_append_printf (names, "%s%s", i > 0 ? "\n" : "", sidecar);
    }
  /* TRANSLATORS: %s lists the files */
  detail = g_strdup_printf (_("These files were written since the image was opened; replacing "
                              "them loses what they hold:\n%s"), names->str);
  ask.detail = detail;
  lb_dialogs_ask (GTK_WINDOW (self), &ask, NULL, on_replace_answer, self);
}

/* ---- tools ------------------------------------------------------------------------------- */

static void
tool_change_state (GSimpleAction *action, GVariant *state, gpointer user_data)
{
  LbWindow *self = user_data;
  const char *name = g_variant_get_string (state, NULL);
  g_autoptr(GVariant) old = g_action_get_state (G_ACTION (action));
  LbMeasurementTool tool = LB_MEASUREMENT_LENGTH;
  gboolean active = lb_measurement_tool_from_string (name, &tool);

  /* the active tool's toggle pressed again leaves it */
  if (active && g_str_equal (name, g_variant_get_string (old, NULL)))
    active = FALSE;
  lb_measure_layer_set_tool (wm (self)->layer, active, tool);
  g_simple_action_set_state (action, g_variant_new_string (active ? name : "none"));
  _lb_window_measure_update_actions (self);
}

static void
leave_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  LbWindow *self = user_data;

  g_action_group_change_action_state (G_ACTION_GROUP (self), "measure-tool",
                                      g_variant_new_string ("none"));
}

static void
delete_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  lb_measure_layer_delete_selected (wm (LB_WINDOW (user_data))->layer);
}

static void
panel_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  LbWindow *self = user_data;

  gtk_popover_popup (GTK_POPOVER (wm (self)->popover));
}

/* Single keys on the canvas (as its other view keys), so they never reach a text entry. */
static void
add_canvas_keys (LbWindow *self, LbCanvas *canvas)
{
  static const struct {
    guint       key;
    const char *tool;
  } keys[] = {
    { GDK_KEY_l, "length" }, { GDK_KEY_g, "angle" }, { GDK_KEY_y, "polyline" },
    { GDK_KEY_b, "rectangle" }, { GDK_KEY_e, "ellipse" }, { GDK_KEY_d, "freehand" },
    { GDK_KEY_p, "probe" }, { GDK_KEY_t, "arrow" },
  };
  GtkEventController *ctrl = gtk_shortcut_controller_new ();

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      GtkShortcut *s = gtk_shortcut_new (gtk_keyval_trigger_new (keys[i].key, 0),
                                         gtk_named_action_new ("win.measure-tool"));

      gtk_shortcut_set_arguments (s, g_variant_new_string (keys[i].tool));
      gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (ctrl), s);
    }
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (ctrl),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Delete, 0),
                                                          gtk_named_action_new ("win.measure-delete")));
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (ctrl),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_KP_Delete, 0),
                                                          gtk_named_action_new ("win.measure-delete")));
  gtk_widget_add_controller (GTK_WIDGET (canvas), ctrl);
}

void
_lb_window_measure_state_unref (LbWindowMeasure *m)
{
  if (--m->refs > 0)
    return;
  g_clear_object (&m->cancellable);
  g_clear_object (&m->layer);
  g_clear_object (&m->list);
  g_clear_object (&m->store);
  g_clear_object (&m->pending_select);
  g_clear_pointer (&m->instance_ds, lb_dicom_dataset_unref);
  g_free (m->instance_uri);
  g_ptr_array_unref (m->docs);
  g_ptr_array_unref (m->others);
  g_free (m->pending_sop);
  g_clear_object (&m->pending_other);
  g_string_free (m->save_errors, TRUE);
  g_ptr_array_unref (m->conflicts);
  g_free (m);
}

/* Its canvas goes (a viewport removed, the window closed). */
static void
state_kill (gpointer data)
{
  LbWindowMeasure *m = data;

  m->dead = TRUE;
  g_cancellable_cancel (m->cancellable);
  lb_measure_layer_detach (m->layer);
  _lb_window_measure_state_unref (m);
}

/* The measurements of @canvas's viewport, made on first use. */
static LbWindowMeasure *
state_for (LbWindow *self, LbCanvas *canvas, LbWindowMeasure *shared)
{
  LbWindowMeasure *m = g_object_get_data (G_OBJECT (canvas), STATE_KEY);

  if (m != NULL)
    return m;
  m = g_new0 (LbWindowMeasure, 1);
  m->refs = 1;
  m->list = lb_measurement_list_new ();
  m->layer = lb_measure_layer_new (canvas, m->list);
  m->docs = g_ptr_array_new_with_free_func (doc_free);
  m->others = g_ptr_array_new_with_free_func (_lb_window_measure_other_free);
  m->cancellable = g_cancellable_new ();
  m->save_errors = g_string_new (NULL);
  m->conflicts = g_ptr_array_new ();
  if (shared != NULL)
    {
      m->bar = shared->bar;
      m->popover = shared->popover;
      m->list_box = shared->list_box;
    }
  /* the window's panel follows whichever list is the active one's (connect_object: never
   * after the window) */
  g_signal_connect_object (m->list, "items-changed",
                           G_CALLBACK (_lb_window_measure_rows_changed), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (m->layer, "selection-changed",
                           G_CALLBACK (_lb_window_measure_rows_changed),
                           self, G_CONNECT_SWAPPED);
  add_canvas_keys (self, canvas);
  g_object_set_data_full (G_OBJECT (canvas), STATE_KEY, m, state_kill);
  return m;
}

/* The active viewport changed: the window's measurements are its canvas', the tool goes
 * with the reader. */
static void
follow_canvas (LbWindow *self)
{
  LbWindowMeasure *old = self->measure;
  LbMeasurementTool tool = LB_MEASUREMENT_LENGTH;
  gboolean active;

  if (old == NULL || g_object_get_data (G_OBJECT (self->canvas), STATE_KEY) == old)
    return;
  active = lb_measure_layer_get_tool (old->layer, &tool);
  lb_measure_layer_set_tool (old->layer, FALSE, tool);
  self->measure = state_for (self, self->canvas, old);
  lb_measure_layer_set_tool (self->measure->layer, active, tool);
}

/* Full screen shows only the viewports: the bar goes with the rest of the window's chrome. */
static void
on_fullscreen_state (GActionGroup *group,
                     const char   *name,
                     GVariant     *state,
                     GtkWidget    *bar)
{
  gtk_widget_set_visible (bar, !g_variant_get_boolean (state));
}

void
_lb_window_measure_init (LbWindow *self)
{
  static const GActionEntry entries[] = {
    { .name = "measure-tool", .parameter_type = "s", .state = "'none'",
      .change_state = tool_change_state },
    { .name = "measure-leave", .activate = leave_activated },
    { .name = "measure-delete", .activate = delete_activated },
    { .name = "measurements", .activate = panel_activated },
    { .name = "measurements-save", .activate = save_activated },
    { .name = "measurements-export", .activate = _lb_window_measure_export_activated },
  };
  g_autoptr(GtkBuilder) builder =
    gtk_builder_new_from_resource ("/io/github/lightbox/Lightbox/ui/lb-measure-bar.ui");
  LbWindowMeasure shared = { 0 };

  g_action_map_add_action_entries (G_ACTION_MAP (self), entries, G_N_ELEMENTS (entries), self);
  /* the bar goes above the viewports */
  shared.bar = GTK_WIDGET (gtk_builder_get_object (builder, "measure_bar"));
  shared.popover = GTK_WIDGET (gtk_builder_get_object (builder, "measure_popover"));
  shared.list_box = GTK_WIDGET (gtk_builder_get_object (builder, "measure_list"));
  gtk_box_insert_child_after (GTK_BOX (gtk_widget_get_parent (self->viewport_grid)), shared.bar,
                              NULL);
  g_signal_connect (shared.list_box, "row-activated",
                    G_CALLBACK (_lb_window_measure_row_activated), self);
  g_signal_connect_object (self, "action-state-changed::fullscreen",
                           G_CALLBACK (on_fullscreen_state), shared.bar, 0);
  self->measure = state_for (self, self->canvas, &shared);
  _lb_window_measure_update_actions (self);
}

void
_lb_window_measure_dispose (LbWindow *self)
{
  /* the states go with their canvases */
  if (self->measure != NULL)
    g_cancellable_cancel (self->measure->cancellable);
  self->measure = NULL;
}
