/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-window"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "lb-dialogs.h"
#include "lb-dicom-tags.h"
#include "lb-dicomweb-store.h"
#include "lb-measure-layer.h"
#include "lb-measure-text.h"
#include "lb-measurement-csv.h"
#include "lb-window-measure-private.h"

/* The measurements panel and its CSV export: the study's measurements, that is the active
 * viewport's list, the other viewports' lists, and on a DICOMweb store the reports'
 * measurements on series not open (lb-window-measure-sr.c). */

#define STATE_KEY LB_WINDOW_MEASURE_STATE_KEY
#define frame_shown _lb_window_measure_frame_shown

static LbWindowMeasure *
wm (LbWindow *self)
{
  return self->measure;
}

/* ---- the panel ----------------------------------------------------------------------------- */

/* The values of @meas, on its own slice's image when it is shown, else without an image
 * (lengths and areas; the spacing of the slice shown). */
static void
values_in (LbWindowMeasure *m, LbCanvas *canvas, guint shown, LbMeasurement *meas,
           LbMeasurementValues *values)
{
  LbImage *image = lb_canvas_get_image (canvas);
  LbMeasurementSpacing spacing;

  if (lb_measurement_list_get_frame (m->list, meas) == shown
      && lb_measure_layer_compute (m->layer, meas, values))
    return;
  lb_measurement_spacing_init_unknown (&spacing);
  if (image != NULL)
    lb_measurement_spacing_from_meta (lb_image_get_meta (image), &spacing);
  if (!lb_measurement_compute (meas, &spacing, NULL, values, NULL))
    memset (values, 0, sizeof *values);
  values->spacing = spacing;
}

static void
values_of (LbWindow *self, LbMeasurement *meas, LbMeasurementValues *values)
{
  values_in (wm (self), self->canvas, frame_shown (self), meas, values);
}

/* ---- the other viewports' measurements ---------------------------------------------------- */

typedef void (*ViewportMeasurementFunc) (LbWindow *self, LbViewport *vp, LbMeasurement *meas,
                                         const char *series, guint frame,
                                         LbMeasurementValues *values, gpointer data);

/* The series label of a viewport's stack (modality, number, description), else its name. */
static char *
viewport_series (LbViewportState *st, guint frame)
{
  const LbDicomDataset *ds = st->frames != NULL && lb_frame_source_is_series (st->frames)
                             ? lb_frame_source_get_dataset (st->frames, MAX (frame, 1)) : NULL;

  return ds != NULL ? lb_dicomweb_label_series (ds) : g_strdup (st->image_name);
}

/* Calls @func for each measurement of each viewport shown but the active one; @shown_series
 * (if given) gets the UIDs of the series they show. */
static void
foreach_viewport_measurement (LbWindow *self, GHashTable *shown_series,
                              ViewportMeasurementFunc func, gpointer data)
{
  LbViewportGrid *grid = LB_VIEWPORT_GRID (self->viewport_grid);
  LbViewport *active = lb_viewport_grid_get_active (grid);

  for (guint i = 0; i < lb_viewport_grid_get_n_shown (grid); i++)
    {
      LbViewport *vp = lb_viewport_grid_get_viewport (grid, i);
      LbCanvas *canvas = lb_viewport_get_canvas (vp);
      LbWindowMeasure *m = g_object_get_data (G_OBJECT (canvas), STATE_KEY);
      LbViewportState *st = lb_viewport_get_state (vp);
      const LbDicomDataset *first;

      if (vp == active || m == NULL || m == self->measure)
        continue;
      first = st->frames != NULL ? lb_frame_source_get_dataset (st->frames, 1) : NULL;
      if (shown_series != NULL && first != NULL
          && lb_dicom_dataset_get_string (first, LB_TAG_SERIES_INSTANCE_UID, 0) != NULL)
        g_hash_table_add (shown_series, g_strdup (lb_dicom_dataset_get_string (
                                                    first, LB_TAG_SERIES_INSTANCE_UID, 0)));
      for (guint k = 0; func != NULL && k < lb_measurement_list_get_n (m->list); k++)
        {
          LbMeasurement *meas = lb_measurement_list_get (m->list, k);
          guint frame = lb_measurement_list_get_frame (m->list, meas);
          g_autofree char *series = viewport_series (st, frame);
          LbMeasurementValues values;

          values_in (m, canvas, st->frame > 0 ? st->frame : 1, meas, &values);
          func (self, vp, meas, series, frame, &values, data);
        }
    }
}

static GtkWidget *append_row (LbWindowMeasure *m, const char *text);

static void
add_viewport_row (LbWindow *self, LbViewport *vp, LbMeasurement *meas, const char *series,
                  guint frame, LbMeasurementValues *values, gpointer data)
{
  g_autofree char *value = lb_measure_text_summary (meas, values);
  g_autofree char *slice = NULL, *text = NULL;
  GtkWidget *label;

  /* TRANSLATORS: part of a row of the measurements panel: the slice */
  slice = g_strdup_printf (_("Slice %u"), frame);
  /* series, slice, tool, value (nothing to translate in the separators) */
  text = g_strdup_printf ("%s · %s · %s · %s", series != NULL ? series : "", slice,
                          lb_measure_text_tool_name (lb_measurement_get_tool (meas)), value);
  label = append_row (wm (self), text);
  /* the rows are rebuilt whenever a list changes, so these stay valid while shown */
  g_object_set_data (G_OBJECT (label), "lb-measure-viewport", vp);
  g_object_set_data (G_OBJECT (label), "lb-measure-measurement", meas);
}

static GtkWidget *
append_row (LbWindowMeasure *m, const char *text)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_widget_set_margin_start (label, 6);
  gtk_widget_set_margin_end (label, 6);
  gtk_widget_set_margin_top (label, 3);
  gtk_widget_set_margin_bottom (label, 3);
  gtk_list_box_append (GTK_LIST_BOX (m->list_box), label);
  return label;
}

static void
rebuild_rows (LbWindow *self)
{
  LbWindowMeasure *m = wm (self);
  GtkWidget *child;
  LbMeasurement *selected = lb_measure_layer_get_selected (m->layer);
  g_autoptr(GHashTable) shown_series = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                             NULL);

  while ((child = gtk_widget_get_first_child (m->list_box)) != NULL)
    gtk_list_box_remove (GTK_LIST_BOX (m->list_box), child);
  for (guint i = 0; i < lb_measurement_list_get_n (m->list); i++)
    {
      LbMeasurement *meas = lb_measurement_list_get (m->list, i);
      LbMeasurementValues values;
      g_autofree char *value = NULL, *text = NULL;
      GtkWidget *label;

      values_of (self, meas, &values);
      value = lb_measure_text_summary (meas, &values);
      /* TRANSLATORS: a row of the measurements panel: slice, tool, value */
      text = g_strdup_printf (_("Slice %u · %s · %s"), lb_measurement_list_get_frame (m->list, meas),
                              lb_measure_text_tool_name (lb_measurement_get_tool (meas)), value);
      label = append_row (m, text);
      if (meas == selected)
        gtk_list_box_select_row (GTK_LIST_BOX (m->list_box),
                                 GTK_LIST_BOX_ROW (gtk_widget_get_parent (label)));
    }
  foreach_viewport_measurement (self, shown_series, add_viewport_row, NULL);
  for (guint i = 0; i < m->others->len; i++)
    {
      LbWindowMeasureOther *o = g_ptr_array_index (m->others, i);
      g_autofree char *text = NULL;

      /* another viewport shows that series: its own rows list them, as they are now */
      if (g_hash_table_contains (shown_series, o->series_uid))
        continue;
      /* another series of the study: its name (modality, number, description), the tool and
       * the value as its report states it (nothing to translate in the separators) */
      text = g_strdup_printf ("%s · %s · %s", o->label != NULL ? o->label : o->series_uid,
                              lb_measure_text_tool_name (lb_measurement_get_tool (o->measurement)),
                              o->value);
      g_object_set_data (G_OBJECT (append_row (m, text)), "lb-measure-other", o);
    }
}

void
_lb_window_measure_row_activated (GtkListBox    *box,
                                  GtkListBoxRow *row,
                                  LbWindow      *self)
{
  LbWindowMeasure *m = wm (self);
  int index = gtk_list_box_row_get_index (row);
  GObject *label = G_OBJECT (gtk_list_box_row_get_child (row));
  LbWindowMeasureOther *other = g_object_get_data (label, "lb-measure-other");
  LbViewport *vp = g_object_get_data (label, "lb-measure-viewport");
  LbMeasurement *meas = g_object_get_data (label, "lb-measure-measurement");
  guint frame;

  if (index < 0)
    return;
  /* the panel goes, so the measurement is seen */
  gtk_popover_popdown (GTK_POPOVER (m->popover));
  if (other != NULL)
    {
      _lb_window_measure_open_other (self, m, other);
      return;
    }
  if (vp != NULL)
    {
      /* another viewport's: it becomes the active one, and the window's list is its */
      if (_lb_window_viewports_activate (self, vp))
        {
          _lb_window_measure_sync (self);
          m = wm (self);
        }
      if (lb_measurement_list_get_frame (m->list, meas) == 0)
        return;
    }
  else if ((guint) index < lb_measurement_list_get_n (m->list))
    meas = lb_measurement_list_get (m->list, index);
  else
    return;
  frame = lb_measurement_list_get_frame (m->list, meas);
  if (frame != frame_shown (self) && self->frames != NULL)
    {
      g_set_object (&m->pending_select, meas);
      gtk_widget_activate_action (GTK_WIDGET (self), "win.go-to-frame", "u", frame);
    }
  else
    lb_measure_layer_select (m->layer, meas);
}

void
_lb_window_measure_rows_changed (LbWindow *self)
{
  rebuild_rows (self);
  _lb_window_measure_update_actions (self);
}

/* ---- CSV --------------------------------------------------------------------------------- */

/* The rows of the export being built; @keep holds what they point at. */
typedef struct {
  GArray    *rows;  /* LbMeasurementCsvRow */
  GPtrArray *keep;
} Csv;

static const char *
csv_keep (Csv *csv, gpointer data)
{
  g_ptr_array_add (csv->keep, data);
  return data;
}

static void
csv_add (Csv *csv, const char *image, guint slice, LbMeasurement *meas,
         const LbMeasurementValues *values, const char *series)
{
  LbMeasurementCsvRow row = {
    .image = image, .slice = slice, .measurement = meas,
    .values = (const LbMeasurementValues *) csv_keep (csv, g_memdup2 (values, sizeof *values)),
    .series = series,
  };

  g_array_append_val (csv->rows, row);
}

static void
csv_add_viewport_row (LbWindow *self, LbViewport *vp, LbMeasurement *meas, const char *series,
                      guint frame, LbMeasurementValues *values, gpointer data)
{
  Csv *csv = data;
  LbViewportState *st = lb_viewport_get_state (vp);

  csv_add (csv, st->image_name, frame, meas, values, csv_keep (csv, g_strdup (series)));
}

static char *
csv_text (LbWindow *self)
{
  LbWindowMeasure *m = wm (self);
  g_autoptr(GArray) rows = g_array_new (FALSE, TRUE, sizeof (LbMeasurementCsvRow));
  g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) shown_series = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                             NULL);
  Csv csv = { rows, keep };
  gboolean series = self->frames != NULL && lb_frame_source_is_series (self->frames);

  for (guint i = 0; i < lb_measurement_list_get_n (m->list); i++)
    {
      LbMeasurement *meas = lb_measurement_list_get (m->list, i);
      guint frame = lb_measurement_list_get_frame (m->list, meas);
      const char *uri = series ? lb_frame_source_get_frame_uri (self->frames, frame) : NULL;
      const char *slash = uri != NULL ? strrchr (uri, '/') : NULL;
      const LbDicomDataset *ds = series ? lb_frame_source_get_dataset (self->frames, frame)
                                        : NULL;
      LbMeasurementValues values;

      values_of (self, meas, &values);
      /* the series named as the study's listing names it: modality, number, description */
      csv_add (&csv, csv_keep (&csv, slash != NULL ? g_uri_unescape_string (slash + 1, NULL)
                                                   : g_strdup (self->image_name)),
               frame, meas, &values,
               ds != NULL ? csv_keep (&csv, lb_dicomweb_label_series (ds)) : NULL);
    }
  foreach_viewport_measurement (self, shown_series, csv_add_viewport_row, &csv);
  for (guint i = 0; i < m->others->len; i++)
    {
      LbWindowMeasureOther *o = g_ptr_array_index (m->others, i);
      LbMeasurementValues values;
      LbMeasurementSpacing spacing;

      if (g_hash_table_contains (shown_series, o->series_uid))
        continue;
      /* the other series' spacing is not known here: its lengths and areas in pixels, said
       * so in the spacing column (the panel shows the report's own values) */
      lb_measurement_spacing_init_unknown (&spacing);
      if (!lb_measurement_compute (o->measurement, &spacing, NULL, &values, NULL))
        memset (&values, 0, sizeof values);
      values.spacing = spacing;
      csv_add (&csv, o->sop_uid, 0, o->measurement, &values,
               o->label != NULL ? o->label : o->series_uid);
    }
  return lb_measurement_csv ((LbMeasurementCsvRow *) rows->data, rows->len);
}

static void
on_csv_written (GObject *source, GAsyncResult *result, gpointer user_data)
{
  LbWindow *self = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_file_replace_contents_finish (G_FILE (source), result, NULL, &error))
    _lb_window_show_error (self, _("Could not export the measurements"), error);
  else
    _lb_window_set_status (self, _("Measurements exported"));
  g_object_unref (self);
}

void
_lb_window_measure_export_to_file (LbWindow *self,
                                   GFile    *file)
{
  g_autofree char *text = csv_text (self);
  g_autoptr(GBytes) bytes = g_bytes_new_take (g_steal_pointer (&text), strlen (text));

  g_file_replace_contents_bytes_async (file, bytes, NULL, FALSE, G_FILE_CREATE_NONE, NULL,
                                       on_csv_written, g_object_ref (self));
}

static void
on_csv_chosen (GFile *file, gpointer user_data)
{
  LbWindow *self = user_data;

  if (file != NULL)
    _lb_window_measure_export_to_file (self, file);
  g_object_unref (self);
}

void
_lb_window_measure_export_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  LbWindow *self = user_data;
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();
  g_autofree char *name = g_strdup_printf ("%s.measurements.csv",
                                           self->image_name ? self->image_name : "lightbox");
  LbFileDialogOptions options = {
    .title = _("Export Measurements"),
    .filter = filter,
    .initial_name = name,
  };

  /* TRANSLATORS: a file type in the save dialog */
  gtk_file_filter_set_name (filter, _("Measurements (CSV)"));
  gtk_file_filter_add_suffix (filter, "csv");
  lb_dialogs_save_file (GTK_WINDOW (self), &options, on_csv_chosen, g_object_ref (self));
}
