/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-application.h"
#include "lb-measurement-list.h"

G_BEGIN_DECLS

#define LB_TYPE_WINDOW (lb_window_get_type ())
G_DECLARE_FINAL_TYPE (LbWindow, lb_window, LB, WINDOW, GtkApplicationWindow)

LbWindow *lb_window_new              (LbApplication *app);
/* A store (http(s)://, dicomweb+http(s)://, a folder) or an image file (path or file://). */
void      lb_window_open_uri         (LbWindow      *self,
                                      const char    *uri_or_path);
void      lb_window_open_store       (LbWindow      *self,
                                      const char    *uri);
void      lb_window_open_image_file  (LbWindow      *self,
                                      GFile         *file);
/* Opens the image at @uri of the current store. */
void      lb_window_open_store_image (LbWindow      *self,
                                      const char    *uri);
/* Writes the view as shown, with its overlays, to the PNG file @path (win.export-view without
 * its file dialog); the status line says when it is written. */
void      lb_window_export_view_to_path (LbWindow   *self,
                                         const char *path);
/* (transfer none): the measurements of the open image or series (LbMeasurementList, a
 * GListModel of LbMeasurement with the frame of each), for savers and exporters. */
LbMeasurementList *lb_window_get_measurements (LbWindow *self);
/* TRUE while a download, filter, upload or export runs, or the frame shown is on its way. */
gboolean  lb_window_is_busy          (LbWindow      *self);

G_END_DECLS
