/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-window"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-browser-node.h"
#include "lb-dicom-frame.h"
#include "lb-dicomweb-search.h"
#include "lb-error.h"
#include "lb-study-panel.h"
#include "lb-study-search.h"
#include "lb-window-private.h"

/* Studies: the study panel under the tree (the series of the study chosen in the tree or in
 * the search, each a thumbnail; a click opens the series) and the study search of a DICOMweb
 * store (win.search-studies, Ctrl+Shift+F). */

static LbStudyPanel *
panel (LbWindow *self)
{
  return LB_STUDY_PANEL (self->study_panel);
}

/* "Doe, John · 2024-02-29 · Head CT" */
static char *
study_title (LbStoreEntry *study)
{
  g_autofree char *name = lb_dicom_format_person_name (lb_store_entry_get_attribute (study,
                                                                                     "PatientName"));
  GString *s = g_string_new (name && *name ? name : lb_store_entry_get_attribute (study,
                                                                                  "PatientID"));

  g_string_append_printf (s, "%s%s", s->len ? " · " : "", lb_store_entry_get_display_name (study));
  return g_string_free (s, FALSE);
}

/* Shows @study (an entry of the window's store) in the study panel. */
static void
show_study (LbWindow *self, LbStoreEntry *study)
{
  g_autofree char *title = study_title (study);

  if (g_strcmp0 (lb_study_panel_get_study_uri (panel (self)), lb_store_entry_get_uri (study)) == 0)
    return;
  lb_study_panel_set_study (panel (self), self->store, lb_store_entry_get_uri (study), title);
  gtk_widget_set_visible (self->study_panel, TRUE);
}

/* ---- opening a series ------------------------------------------------------------------- */

void
_lb_window_study_open_series (LbWindow *self, LbStoreEntry *series)
{
  g_return_if_fail (lb_store_entry_get_kind (series) == LB_STORE_ENTRY_DICOM_SERIES);
  if (self->store == NULL)
    return;
  /* a local series from its files, a DICOMweb series from its metadata: one stack */
  _lb_window_frames_open_store_series (self, series);
}

static void
open_series_now (LbWindow *self, gpointer series)
{
  _lb_window_study_open_series (self, series);
}

static void
on_series_activated (LbStudyPanel *study_panel, LbStoreEntry *series, LbWindow *self)
{
  /* another series replaces the image shown: unsaved results are asked about first */
  _lb_window_after_unsaved (self, open_series_now, g_object_ref (series), g_object_unref);
}

/* ---- the tree ------------------------------------------------------------------------------ */

/* The entry of a tree row (a GtkTreeListRow of LbBrowserNode), NULL for spinner and error
 * rows. (transfer none) */
static LbStoreEntry *
row_entry (GtkTreeListRow *row)
{
  g_autoptr(GObject) item = row ? gtk_tree_list_row_get_item (row) : NULL;

  return LB_IS_BROWSER_NODE (item) ? lb_browser_node_get_entry (LB_BROWSER_NODE (item)) : NULL;
}

/* A study row chosen in the tree shows in the panel; so does the study of a series row (its
 * parent row). */
static void
on_tree_selection (GtkSingleSelection *selection, GParamSpec *pspec, LbWindow *self)
{
  gpointer item = gtk_single_selection_get_selected_item (selection);
  GtkTreeListRow *row = GTK_IS_TREE_LIST_ROW (item) ? item : NULL;
  LbStoreEntry *entry = row_entry (row);
  g_autoptr(GtkTreeListRow) parent = NULL;

  if (entry != NULL && lb_store_entry_get_kind (entry) == LB_STORE_ENTRY_DICOM_SERIES)
    {
      parent = gtk_tree_list_row_get_parent (row);
      entry = row_entry (parent);
    }
  if (entry != NULL && lb_store_entry_get_kind (entry) == LB_STORE_ENTRY_DICOM_STUDY)
    show_study (self, entry);
}

/* ---- the search ------------------------------------------------------------------------ */

static void
on_study_chosen (LbStudySearch *search, LbStoreEntry *study, LbWindow *self)
{
  show_study (self, study);
  gtk_window_present (GTK_WINDOW (self));
}

static void
search_studies_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  LbWindow *self = user_data;

  if (!LB_IS_DICOMWEB_STORE (self->store))
    return;
  if (self->study_search == NULL)
    {
      self->study_search = GTK_WIDGET (lb_study_search_new (GTK_WINDOW (self)));
      g_signal_connect_object (self->study_search, "study-chosen", G_CALLBACK (on_study_chosen),
                               self, 0);
    }
  lb_study_search_set_store (LB_STUDY_SEARCH (self->study_search),
                             LB_DICOMWEB_STORE (self->store));
  gtk_window_present (GTK_WINDOW (self->study_search));
}

/* ---- the window ---------------------------------------------------------------------------- */

void
_lb_window_study_update_actions (LbWindow *self)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "search-studies");

  if (action == NULL)
    return;
  g_simple_action_set_enabled (G_SIMPLE_ACTION (action), LB_IS_DICOMWEB_STORE (self->store));
  /* another store: the panel's study and the search's results belong to the last one */
  if (self->study_panel != NULL && lb_study_panel_get_store (panel (self)) != NULL
      && lb_study_panel_get_store (panel (self)) != self->store)
    {
      lb_study_panel_set_study (panel (self), NULL, NULL, NULL);
      gtk_widget_set_visible (self->study_panel, FALSE);
    }
  if (self->study_search != NULL)
    lb_study_search_set_store (LB_STUDY_SEARCH (self->study_search),
                               LB_IS_DICOMWEB_STORE (self->store)
                               ? LB_DICOMWEB_STORE (self->store) : NULL);
}

void
_lb_window_study_init (LbWindow *self)
{
  static const GActionEntry entries[] = {
    { .name = "search-studies", .activate = search_studies_activated },
  };
  GtkSelectionModel *selection;

  g_action_map_add_action_entries (G_ACTION_MAP (self), entries, G_N_ELEMENTS (entries), self);
  g_signal_connect (self->study_panel, "series-activated", G_CALLBACK (on_series_activated),
                    self);
  selection = gtk_column_view_get_model (GTK_COLUMN_VIEW (lb_store_browser_get_view (self->browser)));
  g_signal_connect (selection, "notify::selected-item", G_CALLBACK (on_tree_selection), self);
  _lb_window_study_update_actions (self);
}

void
_lb_window_study_dispose (LbWindow *self)
{
  GtkSelectionModel *selection = self->browser != NULL
    ? gtk_column_view_get_model (GTK_COLUMN_VIEW (lb_store_browser_get_view (self->browser)))
    : NULL;

  if (selection != NULL)
    g_signal_handlers_disconnect_by_data (selection, self);
  if (self->study_search != NULL)
    gtk_window_destroy (GTK_WINDOW (self->study_search));
  self->study_search = NULL;
}
