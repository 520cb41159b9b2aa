/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* What the workstation's UI tests share: starting GTK and the application, draining and
 * waiting on the main loop, the window's busy and tree states, and folders of many files. */

#include <gtk/gtk.h>
#include <json-glib/json-glib.h>

#include "lb-window-test.h"

G_BEGIN_DECLS

/* gtk_test_init(); without a display, prints the TAP plan that skips the whole test and
 * returns FALSE (the caller returns 0). */
gboolean       lb_test_ui_init             (int         *argc,
                                            char      ***argv);
/* $LB_DICOMWEB_URL, the Orthanc that tests/dicomweb/orthanc-run.sh started; without it,
 * prints the TAP plan that skips the whole test and returns NULL (the caller returns 0). */
const char    *lb_test_ui_dicomweb_url     (void);
/* Orthanc ($LB_DICOMWEB_URL's server) takes the DICOM file @path over its REST API. */
void           lb_test_ui_orthanc_upload   (const char  *path);
/* Opens the store @store_uri in @win, then its image @uri, and waits until it is shown. */
void           lb_test_ui_open_store_image (LbWindow    *win,
                                            const char  *store_uri,
                                            const char  *uri);
/* Adds @measurements (@n) to @b as a JSON array of {"tool": name, "points": [[x, y], …]}
 * (image pixel coordinates): what the Python references read. */
void           lb_test_ui_json_measurements (JsonBuilder          *b,
                                             LbMeasurement *const *measurements,
                                             guint                 n);
/* The object of the JSON array @cases whose "name" is @name (measure-reference.py's phantoms);
 * fails the test when there is none. */
JsonObject    *lb_test_ui_json_case        (JsonArray   *cases,
                                            const char  *name);
/* A registered, non-unique LbApplication, as the tests drive it. */
LbApplication *lb_test_ui_app_new          (void);
/* Iterates the default main context, without blocking, for @ms milliseconds. */
void           lb_test_ui_drain            (guint        ms);
/* Conditions for lb_test_wait() on the LbWindow @window: no image, filter, upload or listing
 * in progress; the store tree listed, with at least one row. */
gboolean       lb_test_ui_not_busy         (gpointer     window);
gboolean       lb_test_ui_tree_listed      (gpointer     window);
/* A condition for lb_test_wait(): the upload dialog of the LbWindow @window is open. */
gboolean       lb_test_ui_has_upload_dialog (gpointer    window);
/* Uploads @win's current image as @name through the upload dialog, as a user would (Enter in
 * the name); @conflict_choice: the button to press when asked about a name taken (NULL: must
 * not be asked). Waits until the upload is over. */
void           lb_test_ui_upload_as        (LbWindow    *win,
                                            const char  *name,
                                            const char  *conflict_choice);
typedef struct {
  const char *path;
  GTestFunc   func;
} LbTestUiCase;

/* The whole main() of a UI test whose cases need only the application (in *@app while they
 * run): lb_test_ui_init(), lb_test_ui_app_new(), @cases in order, g_test_run(). */
int            lb_test_ui_main             (int                 argc,
                                            char              **argv,
                                            LbApplication     **app,
                                            const LbTestUiCase *cases,
                                            gsize               n_cases);
/* @widget (a toplevel, or any widget of one) rendered through its window's renderer at its
 * size (gtk-toolchain.md §6a): for screenshots. */
GdkTexture    *lb_test_ui_render           (GtkWidget   *widget);
/* @n empty files img-000000.png … in @dir (a folder too large to create by hand). */
void           lb_test_ui_make_empty_files (const char  *dir,
                                            int          n);

G_END_DECLS
