/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-window"

#include "config.h"

#include "lb-window-measure-private.h"
#include "lb-window-test.h"

LbCanvas *
lb_window_test_get_canvas (LbWindow *self)
{
  g_return_val_if_fail (LB_IS_WINDOW (self), NULL);
  return self->canvas;
}

LbHistory *
lb_window_test_get_history (LbWindow *self)
{
  g_return_val_if_fail (LB_IS_WINDOW (self), NULL);
  return self->history;
}

LbStoreBrowser *
lb_window_test_get_browser (LbWindow *self)
{
  g_return_val_if_fail (LB_IS_WINDOW (self), NULL);
  return self->browser;
}

LbBenchPanel *
lb_window_test_get_bench_panel (LbWindow *self)
{
  g_return_val_if_fail (LB_IS_WINDOW (self), NULL);
  return self->bench;
}

GSettings *
lb_window_test_get_settings (LbWindow *self)
{
  g_return_val_if_fail (LB_IS_WINDOW (self), NULL);
  return self->settings;
}

GListModel *
lb_window_test_get_store_filters (LbWindow *self)
{
  g_return_val_if_fail (LB_IS_WINDOW (self), NULL);
  return G_LIST_MODEL (self->store_filters);
}

GtkWidget *
lb_window_test_get_child (LbWindow   *self,
                          const char *id)
{
  GObject *child;

  g_return_val_if_fail (LB_IS_WINDOW (self), NULL);
  child = gtk_widget_get_template_child (GTK_WIDGET (self), LB_TYPE_WINDOW, id);
  if (GTK_IS_WIDGET (child))
    return GTK_WIDGET (child);
  /* the overlay's widgets are the active viewport's */
  return lb_viewport_find_child (_lb_window_viewports_get_active (self), id);
}

GtkWidget *
lb_window_test_get_param_dialog (LbWindow *self)
{
  g_return_val_if_fail (LB_IS_WINDOW (self), NULL);
  return self->param_dialog;
}

GtkWidget *
lb_window_test_get_upload_dialog (LbWindow *self)
{
  g_return_val_if_fail (LB_IS_WINDOW (self), NULL);
  return self->upload_dialog;
}

GtkWidget *
lb_window_test_get_upload_entry (LbWindow *self)
{
  g_return_val_if_fail (LB_IS_WINDOW (self), NULL);
  return self->upload_entry;
}

const char *
lb_window_test_get_last_status (LbWindow *self)
{
  g_return_val_if_fail (LB_IS_WINDOW (self), NULL);
  return self->last_status;
}

const char *
lb_window_test_get_last_upload_uri (LbWindow *self)
{
  g_return_val_if_fail (LB_IS_WINDOW (self), NULL);
  return self->last_upload_uri;
}

gint64
lb_window_test_get_load_started_us (LbWindow *self)
{
  g_return_val_if_fail (LB_IS_WINDOW (self), 0);
  return self->load_started_us;
}

gint64
lb_window_test_get_first_pixels_us (LbWindow *self)
{
  g_return_val_if_fail (LB_IS_WINDOW (self), 0);
  return self->first_pixels_us;
}

gint64
lb_window_test_get_load_done_us (LbWindow *self)
{
  g_return_val_if_fail (LB_IS_WINDOW (self), 0);
  return self->load_done_us;
}

gboolean
lb_window_test_is_loading (LbWindow *self)
{
  g_return_val_if_fail (LB_IS_WINDOW (self), FALSE);
  return self->load_cancellable != NULL;
}

GtkWidget *
lb_window_test_get_scale_bar (LbWindow *self,
                              double   *mm)
{
  g_return_val_if_fail (LB_IS_WINDOW (self), NULL);
  return lb_viewport_get_scale_bar (_lb_window_viewports_get_active (self), mm);
}

GtkWidget *
lb_window_test_get_tag_browser (LbWindow *self)
{
  g_return_val_if_fail (LB_IS_WINDOW (self), NULL);
  return self->tag_browser;
}

LbMeasureLayer *
lb_window_test_get_measure_layer (LbWindow *self)
{
  g_return_val_if_fail (LB_IS_WINDOW (self), NULL);
  return _lb_window_measure_get_layer (self);
}

GtkListBox *
lb_window_test_get_measurements_rows (LbWindow *self)
{
  g_return_val_if_fail (LB_IS_WINDOW (self), NULL);
  return GTK_LIST_BOX (self->measure->list_box);
}

void
lb_window_test_export_measurements (LbWindow   *self,
                                    const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  g_return_if_fail (LB_IS_WINDOW (self));
  _lb_window_measure_export_to_file (self, file);
}

void
lb_window_test_choose_aux_file (LbWindow   *self,
                                const char *path)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);

  g_return_if_fail (LB_IS_WINDOW (self));
  _lb_window_aux_add_file (self, file);
}

LbSeriesLoader *
lb_window_test_get_series_loader (LbWindow *self)
{
  g_return_val_if_fail (LB_IS_WINDOW (self), NULL);
  return self->series_loader;
}

void
lb_window_test_open_series (LbWindow *self, const char *uri)
{
  g_autoptr(LbStoreEntry) entry = lb_store_entry_new (uri, uri, LB_STORE_ENTRY_DICOM_SERIES);

  g_return_if_fail (LB_IS_WINDOW (self));
  _lb_window_frames_open_store_series (self, entry);
}
