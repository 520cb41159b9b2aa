/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "lb-store.h"

G_BEGIN_DECLS

/**
 * LbStudyPanel:
 *
 * The series of one study (a DICOMweb study, or a study of a local folder or DICOMDIR), one
 * row each: a thumbnail of its middle slice (by InstanceNumber) rendered small with the
 * slice's default window (lb-thumbnail.h), its description, modality, number and instance
 * count. The listing and the thumbnails load in the background, two series at a time, and a
 * new study (or dispose) cancels what ran for the last.
 *
 * Clicking a row (or Enter) emits ::series-activated with the series' entry. Each row is a
 * drag source whose content is the series' URI as a string (G_TYPE_STRING), for a viewport to
 * accept.
 *
 * The widget is ui/lb-study-panel.ui.
 */
#define LB_TYPE_STUDY_PANEL (lb_study_panel_get_type ())
G_DECLARE_FINAL_TYPE (LbStudyPanel, lb_study_panel, LB, STUDY_PANEL, GtkWidget)

/* The longer side of a thumbnail, in pixels. */
#define LB_STUDY_PANEL_THUMBNAIL_SIZE 64

GtkWidget    *lb_study_panel_new              (void);
/* Lists the series of the study at @study_uri in @store (NULL, NULL: empty panel). @title:
 * (nullable) what the heading says. */
void          lb_study_panel_set_study        (LbStudyPanel *self,
                                               LbStore      *store,
                                               const char   *study_uri,
                                               const char   *title);
/* (nullable) */
const char   *lb_study_panel_get_study_uri    (LbStudyPanel *self);
/* (nullable) (transfer none): the store of the study shown */
LbStore      *lb_study_panel_get_store        (LbStudyPanel *self);
/* The series' entries (LbStoreEntry), in the rows' order (SeriesNumber). */
GListModel   *lb_study_panel_get_series       (LbStudyPanel *self);
/* TRUE while the listing or a thumbnail is still on its way. */
gboolean      lb_study_panel_is_loading       (LbStudyPanel *self);
/* (nullable) (transfer none): the thumbnail of row @position, NULL until it is in or when it
 * failed. */
GdkPaintable *lb_study_panel_get_thumbnail    (LbStudyPanel *self,
                                               guint         position);
/* (transfer none): the row widget at @position (tests: drag source, labels). */
GtkWidget    *lb_study_panel_get_row          (LbStudyPanel *self,
                                               guint         position);
/* The text of the status line ("No series", an error), "" when none shows. */
const char   *lb_study_panel_get_status       (LbStudyPanel *self);
/* What a click does: emits ::series-activated for row @position. */
void          lb_study_panel_activate         (LbStudyPanel *self,
                                               guint         position);

G_END_DECLS
