/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* The workstation for the UI tests: an application that opens files as `lightbox FILE`
 * does, its window, and the clean-up at the end. */

#include <gtk/gtk.h>

#include "lb-application.h"
#include "lb-window.h"
#include "lb-test-xinput.h"

G_BEGIN_DECLS

/* A registered, non-unique application that handles "open"; NULL (and "1..0 # SKIP" printed)
 * without a display. Call after gtk_test_init(). */
LbApplication *lb_test_app_new        (void);
/* The active window when it is a workstation window, else NULL. */
LbWindow      *lb_test_app_window     (LbApplication *app);
/* Opens @path as `lightbox PATH` does (without waiting). */
void           lb_test_app_open_path  (LbApplication *app,
                                       const char    *path);
/* The first widget in @root's tree (@root included) of @type (0: any) and, unless NULL,
 * named @name (gtk_widget_set_name()); NULL if none. */
GtkWidget     *lb_test_find_widget    (GtkWidget     *root,
                                       GType          type,
                                       const char    *name);
/* What @widget shows, after it has drawn a frame, rendered by its window's renderer at its
 * size (logical pixels; the test display has a scale of 1). NULL when it drew nothing. */
GdkTexture    *lb_test_render_widget  (GtkWidget     *widget);
/* Destroys every toplevel and drops @app. */
void           lb_test_app_free       (LbApplication *app);

G_END_DECLS
