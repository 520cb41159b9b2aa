/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The workstation from the keyboard, and what it says (issue 26, "Keyboard and focus" and
 * "Words a radiologist reads"; issue 27, "Export"), on a real window under Xvfb over a
 * lightbox-store serving a folder with two CT images of the same size (a.png, b.png):
 *
 * - `lightbox URL` of an image opens the image with its folder as the store, which becomes a
 *   recent store once it answered; an address that does not answer is never added, and its
 *   error says so in plain words with the request's method and URL behind "Details" only;
 * - rotation, flips and inversion of one image do not carry over to the next;
 * - after a dialog opened from a header bar button, after a menu and after a filter, a
 *   single-letter key acts on the viewport at once; Escape cancels a slow filter;
 * - typing in the tree's search field reaches none of the viewport's keys, and a search that
 *   matches nothing says so;
 * - the view exported as PNG has the image's pixels where the canvas shows them, as numpy
 *   computes them from the source samples, the rescale and the window (view-export-reference.py),
 *   and the overlay's text in its corner;
 * - a filter result marks the title; opening another image and quitting ask first, and Save,
 *   Discard and Cancel each do what they say.
 *
 * Keys are real X events (xdotool through XTest), so they go through GTK's focus, bindings
 * and accelerators; without xdotool those cases are skipped. */
#include <gtk/gtk.h>
#include <glib/gstdio.h>
#include <string.h>

#include "lb-browser-node.h"
#include "lb-canvas.h"
#include "lb-filter-registry.h"
#include "lb-param-dialog.h"
#include "lb-test-dialogs.h"
#include "lb-test-files.h"
#include "lb-test-loop.h"
#include "lb-test-process.h"
#include "lb-test-ui.h"
#include "lb-test-xinput.h"

#define CT_SAMPLE "ct-head-128-16bit.png"
#define EMBOSS_ID "io.github.lightbox.xv.emboss"
#define MARK_ID "io.github.lightbox.test.mark"

static LbApplication *app;
static LbWindow *win;
static LbTestServer server;
static char *store_dir;
static gboolean have_x;

static LbCanvas *
canvas (void)
{
  return lb_window_test_get_canvas (win);
}

static LbHistory *
history (void)
{
  return lb_window_test_get_history (win);
}

static gboolean
skip_without_x (void)
{
  if (!have_x)
    g_test_skip ("real key presses need xdotool on X11");
  return !have_x;
}

/* The history's original came from the store's @name and nothing runs. */
static gboolean
showing (gpointer name)
{
  LbHistory *h = history ();
  const char *uri;

  if (h == NULL || lb_window_is_busy (win))
    return FALSE;
  uri = lb_image_meta_get_source_uri (lb_image_get_meta (lb_history_get_original (h)));
  return uri != NULL && g_str_has_suffix (uri, name);
}

static void
open_image (const char *name)
{
  g_autofree char *uri = g_strconcat (server.url, name, NULL);

  lb_window_open_store_image (win, uri);
  g_assert_true (lb_test_wait (showing, (gpointer) name, 20000));
}

static gboolean
has_focus (gpointer widget)
{
  /* the window's focus widget: under Xvfb without a window manager, GTK 4.18 does not make
   * the window active again when a dialog closes, and gtk_widget_has_focus() needs both */
  return gtk_root_get_focus (gtk_widget_get_root (widget)) == widget;
}

static gboolean
canvas_inverted (gpointer data)
{
  return lb_canvas_get_invert (canvas ()) == GPOINTER_TO_INT (data);
}

static gboolean
canvas_flipped (gpointer data)
{
  return lb_canvas_get_flip (canvas ()) == GPOINTER_TO_INT (data);
}

static gboolean
canvas_rotated (gpointer data)
{
  return lb_canvas_get_rotation (canvas ()) == GPOINTER_TO_UINT (data);
}

static gboolean
not_busy (gpointer data)
{
  return !lb_window_is_busy (win);
}

static gboolean
busy (gpointer data)
{
  return lb_window_is_busy (win);
}

static gboolean
no_dialog (gpointer data)
{
  return lb_test_dialog_over (GTK_WINDOW (win)) == NULL;
}

/* Applies a filter without parameters and waits for its result. */
static void
apply_emboss (void)
{
  guint before = lb_history_get_position (history ());

  gtk_widget_activate_action (GTK_WIDGET (win), "win.apply-filter", "s", EMBOSS_ID);
  g_assert_true (lb_test_wait (not_busy, NULL, 20000));
  g_assert_cmpuint (lb_history_get_position (history ()), ==, before + 1);
}

static const char *
title (void)
{
  return gtk_window_get_title (GTK_WINDOW (win));
}

static gboolean
in_recent (const char *uri)
{
  g_auto (GStrv) recent = g_settings_get_strv (lb_window_test_get_settings (win), "recent-stores");

  return g_strv_contains ((const char *const *) recent, uri);
}

static gboolean
store_is_recent (gpointer uri)
{
  return in_recent (uri);
}

/* Optional screenshots of the whole screen (LB_TEST_SCREENSHOTS=DIR), to look at. */
static void
screenshot (const char *name)
{
  const char *dir = g_getenv ("LB_TEST_SCREENSHOTS");
  g_autofree char *path = NULL, *out = NULL, *err = NULL;
  int status;

  if (dir == NULL)
    return;
  lb_test_ui_drain (300);
  path = g_build_filename (dir, name, NULL);
  {
    const char *argv[] = { "import", "-window", "root", path, NULL };
    out = lb_test_run_tool (argv, &err, &status);
  }
}

/* ---- `lightbox URL` and the recent stores ----------------------------------------------- */

static void
test_open_image_url (void)
{
  g_autofree char *uri = g_strconcat (server.url, "a.png", NULL);

  /* the address of an image: the image opens, its folder is the store */
  lb_window_open_uri (win, uri);
  g_assert_true (lb_test_wait (showing, (gpointer) "a.png", 20000));
  g_assert_cmpstr (lb_store_get_uri (lb_store_browser_get_store (lb_window_test_get_browser (win))),
                   ==, server.url);
  g_assert_true (lb_test_wait (lb_test_ui_tree_listed, win, 20000));
  /* it answered: a recent store */
  g_assert_true (lb_test_wait (store_is_recent, server.url, 5000));
  g_assert_cmpstr (title (), ==, "a.png — Lightbox");
}

/* A port nobody listens on: bound, then closed again. */
static guint
closed_port (void)
{
  g_autoptr (GSocketListener) listener = g_socket_listener_new ();
  g_autoptr (GError) error = NULL;
  guint16 port = g_socket_listener_add_any_inet_port (listener, NULL, &error);

  g_assert_no_error (error);
  g_socket_listener_close (listener);
  return port;
}

static gboolean
tree_idle (gpointer data)
{
  return lb_store_browser_get_pending (lb_window_test_get_browser (win)) == 0;
}

static void
test_failed_url_details (void)
{
  guint port = closed_port ();
  g_autofree char *folder = g_strdup_printf ("http://127.0.0.1:%u/scans/", port);
  g_autofree char *image = g_strconcat (folder, "ct.png", NULL);
  g_autofree char *host = g_strdup_printf ("127.0.0.1:%u", port);
  GtkWindow *dialog;
  GtkExpander *expander;
  GtkWidget *details;
  const char *status, *text;

  lb_window_open_uri (win, image);
  g_assert_true (lb_test_wait (lb_test_has_dialog, win, 20000));
  g_assert_true (lb_test_wait (not_busy, NULL, 20000));
  dialog = lb_test_dialog_over (GTK_WINDOW (win));
  screenshot ("keys-error-details.png");
  /* plain words on top … */
  g_assert_nonnull (lb_test_find_text (GTK_WIDGET (dialog), "Could not open the image"));
  g_assert_nonnull (lb_test_find_text (GTK_WIDGET (dialog), "The store did not answer."));
  /* … the request behind Details, folded */
  expander = lb_test_find_expander (GTK_WIDGET (dialog));
  g_assert_nonnull (expander);
  g_assert_false (gtk_expander_get_expanded (expander));
  /* folded: the request is nowhere on screen */
  g_assert_null (lb_test_find_text (GTK_WIDGET (dialog), host));
  details = gtk_expander_get_child (expander);
  g_assert_true (GTK_IS_LABEL (details));
  text = gtk_label_get_text (GTK_LABEL (details));
  g_test_message ("details: %s", text);
  g_assert_nonnull (strstr (text, "GET"));
  g_assert_nonnull (strstr (text, host));
  /* the status line has the plain words only */
  status = gtk_label_get_text (GTK_LABEL (lb_window_test_get_child (win, "filter_time_label")));
  g_assert_nonnull (strstr (status, "The store did not answer."));
  g_assert_null (strstr (status, host));
  g_assert_null (strstr (status, "GET"));
  lb_test_answer_dialog (GTK_WINDOW (win), "_Close");
  g_assert_true (lb_test_wait (no_dialog, NULL, 5000));

  /* the tree's row says the same, with the request in its tooltip */
  g_assert_true (lb_test_wait (tree_idle, NULL, 20000));
  {
    GListModel *rows = lb_store_browser_get_rows (lb_window_test_get_browser (win));
    g_autoptr (GtkTreeListRow) row = g_list_model_get_item (rows, 0);
    g_autoptr (LbBrowserNode) node = gtk_tree_list_row_get_item (row);

    g_assert_cmpint (lb_browser_node_get_kind (node), ==, LB_BROWSER_NODE_ERROR);
    g_assert_cmpstr (lb_browser_node_get_message (node), ==, "The store did not answer.");
    g_assert_nonnull (strstr (lb_browser_node_get_tooltip (node), host));
  }

  /* it never answered: not a recent store; the one that did still is */
  g_assert_false (in_recent (folder));
  g_assert_true (in_recent (server.url));

  /* the next operation clears the stale message */
  lb_window_open_uri (win, server.url);
  g_assert_true (lb_test_wait (lb_test_ui_tree_listed, win, 20000));
  {
    g_autofree char *uri = g_strconcat (server.url, "b.png", NULL);

    lb_window_open_store_image (win, uri);
    g_assert_null (lb_window_test_get_last_status (win));
    g_assert_true (lb_test_wait (showing, (gpointer) "b.png", 20000));
  }
}

/* ---- view state ------------------------------------------------------------------------- */

static void
test_view_state (void)
{
  open_image ("a.png");
  gtk_widget_activate_action (GTK_WIDGET (win), "win.rotate-cw", NULL);
  gtk_widget_activate_action (GTK_WIDGET (win), "win.flip", NULL);
  gtk_widget_activate_action (GTK_WIDGET (win), "win.invert", NULL);
  g_assert_cmpuint (lb_canvas_get_rotation (canvas ()), ==, 1);
  g_assert_true (lb_canvas_get_flip (canvas ()));
  g_assert_true (lb_canvas_get_invert (canvas ()));

  /* the next image, of the same size, is shown as stored */
  open_image ("b.png");
  g_assert_cmpuint (lb_canvas_get_rotation (canvas ()), ==, 0);
  g_assert_false (lb_canvas_get_flip (canvas ()));
  g_assert_false (lb_canvas_get_invert (canvas ()));
  {
    g_autoptr (GVariant) inv = g_action_group_get_action_state (G_ACTION_GROUP (win), "invert");
    g_autoptr (GVariant) flip = g_action_group_get_action_state (G_ACTION_GROUP (win), "flip");

    g_assert_false (g_variant_get_boolean (inv));
    g_assert_false (g_variant_get_boolean (flip));
  }
}

/* ---- focus ------------------------------------------------------------------------------ */

/* Conditions: the window's upload or filter dialog is open, or closed. */
typedef struct {
  GtkWidget *(*get) (LbWindow *self);
  gboolean    open;
} DialogState;

static const DialogState upload_open = { lb_window_test_get_upload_dialog, TRUE };
static const DialogState upload_closed = { lb_window_test_get_upload_dialog, FALSE };
static const DialogState param_open = { lb_window_test_get_param_dialog, TRUE };
static const DialogState param_closed = { lb_window_test_get_param_dialog, FALSE };

static gboolean
dialog_in_state (gpointer data)
{
  const DialogState *state = data;

  return (state->get (win) != NULL) == state->open;
}

static gboolean
popover_visible (gpointer button)
{
  GtkPopover *p = gtk_menu_button_get_popover (GTK_MENU_BUTTON (button));

  return p != NULL && gtk_widget_get_visible (GTK_WIDGET (p));
}

static gboolean
at_original (gpointer data)
{
  return lb_history_get_current (history ()) == lb_history_get_original (history ());
}

static void
click (GtkWidget *widget)
{
  lb_test_point_at (widget);
  lb_test_xdotool ("click 1");
}

static void
test_focus_returns (void)
{
  GtkWidget *upload, *wl_menu, *filter_button;

  if (skip_without_x ())
    return;
  open_image ("a.png");
  g_assert_false (lb_canvas_get_invert (canvas ()));

  /* a dialog from a header bar button: the click leaves the focus on the button */
  upload = lb_window_test_get_child (win, "upload_button");
  click (upload);
  g_assert_true (lb_test_wait (dialog_in_state, (gpointer) &upload_open, 5000));
  screenshot ("keys-upload-dialog.png");
  lb_test_press_keys (lb_window_test_get_upload_dialog (win), "Escape");
  g_assert_true (lb_test_wait (dialog_in_state, (gpointer) &upload_closed, 5000));
  if (!lb_test_wait (has_focus, canvas (), 5000))
    {
      GtkWidget *f = gtk_root_get_focus (GTK_ROOT (win));

      g_error ("after the dialog the focus is on %s (%s), the window is %sactive",
               f ? G_OBJECT_TYPE_NAME (f) : "nothing", f ? gtk_widget_get_name (f) : "",
               gtk_window_is_active (GTK_WINDOW (win)) ? "" : "not ");
    }
  /* "i" inverts: the viewport has the keys */
  lb_test_press_keys (GTK_WIDGET (win), "i");
  g_assert_true (lb_test_wait (canvas_inverted, GINT_TO_POINTER (TRUE), 5000));

  /* a menu, closed again */
  wl_menu = lb_window_test_get_child (win, "window_button");
  click (wl_menu);
  g_assert_true (lb_test_wait (popover_visible, wl_menu, 5000));
  lb_test_press_keys (GTK_WIDGET (win), "Escape");
  g_assert_true (lb_test_wait (has_focus, canvas (), 5000));
  lb_test_press_keys (GTK_WIDGET (win), "h");
  g_assert_true (lb_test_wait (canvas_flipped, GINT_TO_POINTER (TRUE), 5000));

  /* a filter chosen from the Filters menu (its button keeps the focus), then Ctrl+Z */
  filter_button = lb_window_test_get_child (win, "filter_button");
  gtk_widget_grab_focus (filter_button);
  apply_emboss ();
  g_assert_true (lb_test_wait (has_focus, canvas (), 5000));
  lb_test_press_keys (GTK_WIDGET (win), "r");
  g_assert_true (lb_test_wait (canvas_rotated, GUINT_TO_POINTER (1), 5000));
  lb_test_press_keys (GTK_WIDGET (win), "ctrl+z");
  g_assert_true (lb_test_wait (at_original, NULL, 5000));
}

static void
test_escape_cancels_filter (void)
{
  LbFilterRegistry *registry = lb_application_get_registry (app);
  g_autofree char *dir = lb_test_make_tmpdir ("keys-plugins");
  g_autofree char *mark = lb_test_build_path ("LB_TEST_PLUGIN_DIR", "test-mark-10.so", NULL);
  LbParamDialog *dialog;
  guint position;

  if (skip_without_x ())
    return;
  lb_test_install_file (mark, dir, "mark.so");
  lb_filter_registry_add_plugin_dir (registry, dir);
  lb_filter_registry_rescan (registry);
  position = lb_history_get_position (history ());

  gtk_widget_activate_action (GTK_WIDGET (win), "win.apply-filter", "s", MARK_ID);
  g_assert_true (lb_test_wait (dialog_in_state, (gpointer) &param_open, 5000));
  dialog = LB_PARAM_DIALOG (lb_window_test_get_param_dialog (win));
  /* 100 ms a row: 128 rows take seconds, on any number of threads */
  g_assert_true (lb_param_dialog_set_value (dialog, "delay-us", 100000));
  lb_param_dialog_respond (dialog, TRUE);
  g_assert_true (lb_test_wait (dialog_in_state, (gpointer) &param_closed, 5000));
  g_assert_true (lb_test_wait (busy, NULL, 5000));
  lb_test_press_keys (GTK_WIDGET (win), "Escape");
  g_assert_true (lb_test_wait (not_busy, NULL, 10000));
  g_assert_cmpuint (lb_history_get_position (history ()), ==, position);
  g_assert_cmpstr (lb_window_test_get_last_status (win), ==, "Filter cancelled");
  lb_test_remove_tree (dir);
}

/* ---- the tree's search ------------------------------------------------------------------ */

static gboolean
search_text_is (gpointer text)
{
  GtkWidget *search = lb_window_test_get_child (win, "tree_search");

  return g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (search)), text) == 0;
}

static void
test_search_keeps_keys (void)
{
  GtkWidget *search = lb_window_test_get_child (win, "tree_search");
  GtkWidget *status = lb_window_test_get_child (win, "tree_search_status");
  LbStoreBrowser *browser = lb_window_test_get_browser (win);
  gboolean inv, flip;
  guint rot;
  double zoom, c, w, c2, w2;
  GListModel *view_model;
  LbStoreEntry *entry;

  if (skip_without_x ())
    return;
  /* a zoom of its own, which "f" (fit) and "+" would change */
  lb_canvas_set_zoom (canvas (), 2.0);
  inv = lb_canvas_get_invert (canvas ());
  flip = lb_canvas_get_flip (canvas ());
  rot = lb_canvas_get_rotation (canvas ());
  zoom = lb_canvas_get_zoom (canvas ());
  lb_canvas_get_window (canvas (), &c, &w);
  gtk_widget_grab_focus (search);
  /* invert, rotate, flip, auto window, fit, split and zoom on the canvas */
  lb_test_press_keys (GTK_WIDGET (win), "i r h a f s v plus");
  g_assert_true (lb_test_wait (search_text_is, (gpointer) "irhafsv+", 5000));
  lb_test_ui_drain (200);
  lb_canvas_get_window (canvas (), &c2, &w2);
  g_assert_cmpint (lb_canvas_get_invert (canvas ()), ==, inv);
  g_assert_cmpint (lb_canvas_get_flip (canvas ()), ==, flip);
  g_assert_cmpuint (lb_canvas_get_rotation (canvas ()), ==, rot);
  g_assert_false (lb_canvas_get_split (canvas ()));
  g_assert_cmpfloat (lb_canvas_get_zoom (canvas ()), ==, zoom);
  g_assert_cmpfloat (c2, ==, c);
  g_assert_cmpfloat (w2, ==, w);
  g_assert_true (gtk_widget_has_focus (search) || gtk_widget_is_ancestor (gtk_root_get_focus (GTK_ROOT (win)), search));
  /* nothing matches: it says so */
  g_assert_true (gtk_widget_get_visible (status));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (status)), "irhafsv+"));
  screenshot ("keys-search-no-match.png");

  /* a match selects its row, and the message goes */
  gtk_editable_set_text (GTK_EDITABLE (search), "");
  lb_test_press_keys (GTK_WIDGET (win), "b period p");
  g_assert_true (lb_test_wait (search_text_is, (gpointer) "b.p", 5000));
  lb_test_ui_drain (200);
  g_assert_false (gtk_widget_get_visible (status));
  entry = lb_store_browser_get_entry (browser, lb_store_browser_get_selected (browser));
  g_assert_nonnull (entry);
  g_assert_cmpstr (lb_store_entry_get_name (entry), ==, "b.png");
  /* the search filters the tree: b.png alone is shown */
  view_model = G_LIST_MODEL (gtk_column_view_get_model (
    GTK_COLUMN_VIEW (lb_store_browser_get_view (browser))));
  g_assert_cmpuint (g_list_model_get_n_items (view_model), ==, 1);
  screenshot ("keys-search-filter.png");
  gtk_editable_set_text (GTK_EDITABLE (search), "");
  lb_test_ui_drain (200);
  g_assert_cmpuint (g_list_model_get_n_items (view_model), ==, 2);
  gtk_widget_grab_focus (GTK_WIDGET (canvas ()));
}

/* ---- export of the view ------------------------------------------------------------------ */

static gboolean
file_exists (gpointer path)
{
  return g_file_test (path, G_FILE_TEST_IS_REGULAR) && !lb_window_is_busy (win);
}

static void
test_export_view (void)
{
  g_autofree char *dir = lb_test_make_tmpdir ("keys-export");
  g_autofree char *png = g_build_filename (dir, "view.png", NULL);
  g_autofree char *bright = g_build_filename (dir, "bright.png", NULL);
  g_autofree char *measured = g_build_filename (dir, "measured.png", NULL);
  LbMeasurementPoint ends[2] = { { 4.5, 6.5 }, { 60.5, 40.5 } };
  g_autoptr (LbMeasurement) line = NULL;
  double lx0, ly0, lx1, ly1;
  g_autofree char *source = lb_test_build_path ("LB_SOURCE_ROOT", "data", "samples", "CT",
                                                CT_SAMPLE, NULL);
  g_autofree char *params = NULL, *params_path = NULL, *out = NULL;
  GtkWidget *cw = GTK_WIDGET (canvas ());
  int width, height, x0 = -1, y0 = -1, ix, iy;

  open_image ("a.png");
  lb_canvas_set_zoom (canvas (), 1.0);
  /* a soft-tissue window in HU (the PNG's lightbox:rescale makes the samples HU) */
  lb_canvas_set_window (canvas (), 40, 400);
  lb_test_ui_drain (300);
  width = gtk_widget_get_width (cw);
  height = gtk_widget_get_height (cw);
  g_assert_cmpint (gtk_widget_get_scale_factor (cw), ==, 1);
  /* where the canvas puts the image's first column and row, by its own mapping */
  for (int x = 0; x < width && x0 < 0; x++)
    if (lb_canvas_widget_to_image (canvas (), x + 0.5, height / 2 + 0.5, &ix, &iy) && ix == 0)
      x0 = x;
  for (int y = 0; y < height && y0 < 0; y++)
    if (lb_canvas_widget_to_image (canvas (), width / 2 + 0.5, y + 0.5, &ix, &iy) && iy == 0)
      y0 = y;
  g_assert_cmpint (x0, >=, 0);
  g_assert_cmpint (y0, >=, 0);

  lb_window_export_view_to_path (win, png);
  g_assert_true (lb_test_wait (file_exists, png, 20000));
  /* the same view with a length drawn on it: the line is burnt in */
  line = lb_measurement_new_with_points (LB_MEASUREMENT_LENGTH, ends, 2, NULL);
  g_assert_nonnull (line);
  lb_measurement_list_append (lb_window_get_measurements (win), line, 1);
  lb_test_ui_drain (300);
  g_assert_true (lb_canvas_image_to_widget (canvas (), ends[0].x, ends[0].y, &lx0, &ly0));
  g_assert_true (lb_canvas_image_to_widget (canvas (), ends[1].x, ends[1].y, &lx1, &ly1));
  lb_window_export_view_to_path (win, measured);
  g_assert_true (lb_test_wait (file_exists, measured, 20000));
  g_assert_true (lb_measurement_list_remove (lb_window_get_measurements (win), line));
  /* the overlay over bright pixels: every pixel white (a window far below air), the image
   * filling the canvas */
  lb_canvas_set_window (canvas (), -3000, 10);
  lb_canvas_set_zoom (canvas (), 16.0);
  lb_test_ui_drain (300);
  lb_window_export_view_to_path (win, bright);
  g_assert_true (lb_test_wait (file_exists, bright, 20000));
  params = g_strdup_printf ("{\"view\": \"%s\", \"bright\": \"%s\", \"source\": \"%s\", "
                            "\"center\": 40, \"width\": 400, \"x0\": %d, \"y0\": %d, "
                            "\"canvas_width\": %d, \"canvas_height\": %d, "
                            "\"measured\": \"%s\", \"line\": [%.3f, %.3f, %.3f, %.3f]}",
                            png, bright, source, x0, y0, width, height, measured, lx0, ly0,
                            lx1, ly1);
  params_path = g_build_filename (dir, "params.json", NULL);
  g_assert_true (g_file_set_contents (params_path, params, -1, NULL));
  out = lb_test_run_reference ("ui", "view-export-reference.py", dir);
  if (out == NULL)
    {
      g_test_skip ("view-export-reference.py needs numpy and Pillow");
      lb_test_remove_tree (dir);
      return;
    }
  g_test_message ("%s", out);
  if (g_getenv ("LB_TEST_SCREENSHOTS") != NULL)
    {
      g_autofree char *keep = g_build_filename (g_getenv ("LB_TEST_SCREENSHOTS"),
                                                "keys-export-view.png", NULL);
      g_autoptr (GFile) from = g_file_new_for_path (png);
      g_autoptr (GFile) to = g_file_new_for_path (keep);

      g_file_copy (from, to, G_FILE_COPY_OVERWRITE, NULL, NULL, NULL, NULL);
    }
  lb_test_remove_tree (dir);
}

/* ---- unsaved results --------------------------------------------------------------------- */

static gboolean
has_unsaved_question (gpointer data)
{
  GtkWindow *d = lb_test_dialog_over (GTK_WINDOW (win));

  return d != NULL && lb_test_find_text (GTK_WIDGET (d), "Save the changes") != NULL;
}

/* The images of the store's folder besides a.png and b.png (the store keeps its own state
 * in hidden files). */
static guint
n_saved_files (void)
{
  g_autoptr (GDir) dir = g_dir_open (store_dir, 0, NULL);
  const char *name;
  guint n = 0;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (name[0] != '.' && g_str_has_suffix (name, ".png") && strcmp (name, "a.png") != 0
        && strcmp (name, "b.png") != 0)
      n++;
  return n;
}

static gboolean
window_gone (gpointer weak)
{
  return *(gpointer *) weak == NULL;
}

static void
test_unsaved (void)
{
  g_autofree char *b_uri = g_strconcat (server.url, "b.png", NULL);
  LbImage *result;
  gpointer weak;

  open_image ("a.png");
  g_assert_false (g_str_has_prefix (title (), "•"));
  apply_emboss ();
  result = lb_history_get_current (history ());
  /* the title marks the unsaved result */
  g_assert_true (g_str_has_prefix (title (), "• a.png"));

  /* opening another image asks; Cancel keeps the result on screen */
  lb_window_open_store_image (win, b_uri);
  g_assert_true (lb_test_wait (has_unsaved_question, NULL, 5000));
  screenshot ("keys-unsaved.png");
  lb_test_answer_dialog (GTK_WINDOW (win), "_Cancel");
  g_assert_true (lb_test_wait (no_dialog, NULL, 5000));
  lb_test_ui_drain (300);
  g_assert_true (showing ((gpointer) "a.png"));
  g_assert_true (lb_history_get_current (history ()) == result);
  g_assert_true (g_str_has_prefix (title (), "• a.png"));

  /* Discard opens the other image, nothing written */
  lb_window_open_store_image (win, b_uri);
  g_assert_true (lb_test_wait (has_unsaved_question, NULL, 5000));
  lb_test_answer_dialog (GTK_WINDOW (win), "_Discard");
  g_assert_true (lb_test_wait (showing, (gpointer) "b.png", 20000));
  g_assert_cmpstr (title (), ==, "b.png — Lightbox");
  g_assert_cmpuint (n_saved_files (), ==, 0);

  /* Save uploads the result, then opens the other image */
  open_image ("a.png");
  apply_emboss ();
  lb_window_open_store_image (win, b_uri);
  g_assert_true (lb_test_wait (has_unsaved_question, NULL, 5000));
  lb_test_answer_dialog (GTK_WINDOW (win), "_Save…");
  g_assert_true (lb_test_wait (dialog_in_state, (gpointer) &upload_open, 5000));
  lb_test_answer_dialog (GTK_WINDOW (win), "_Upload");
  g_assert_true (lb_test_wait (showing, (gpointer) "b.png", 20000));
  g_assert_cmpuint (n_saved_files (), ==, 1);
  g_assert_false (g_str_has_prefix (title (), "•"));

  /* closing the window asks; Cancel keeps it */
  apply_emboss ();
  weak = win;
  g_object_add_weak_pointer (G_OBJECT (win), &weak);
  gtk_window_close (GTK_WINDOW (win));
  g_assert_true (lb_test_wait (has_unsaved_question, NULL, 5000));
  lb_test_answer_dialog (GTK_WINDOW (win), "_Cancel");
  g_assert_true (lb_test_wait (no_dialog, NULL, 5000));
  lb_test_ui_drain (200);
  g_assert_nonnull (weak);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (win)));

  /* Ctrl+Q asks too; Discard quits */
  g_action_group_activate_action (G_ACTION_GROUP (app), "quit", NULL);
  g_assert_true (lb_test_wait (has_unsaved_question, NULL, 5000));
  g_assert_nonnull (weak);
  lb_test_answer_dialog (GTK_WINDOW (win), "_Discard");
  g_assert_true (lb_test_wait (window_gone, &weak, 5000));
  g_assert_cmpuint (n_saved_files (), ==, 1);
  win = NULL;
}

int
main (int argc, char **argv)
{
  g_autofree char *sample = NULL;
  int ret;

  if (!lb_test_ui_init (&argc, &argv))
    return 0;
  app = lb_test_ui_app_new ();
  have_x = lb_test_have_xdotool ();
  store_dir = lb_test_make_tmpdir ("keys-store");
  sample = lb_test_build_path ("LB_SOURCE_ROOT", "data", "samples", "CT", CT_SAMPLE, NULL);
  lb_test_install_file (sample, store_dir, "a.png");
  lb_test_install_file (sample, store_dir, "b.png");
  lb_test_server_start (&server, store_dir);
  win = lb_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (win), 1200, 760);
  gtk_window_present (GTK_WINDOW (win));

  /* in this order: each case starts where the one before left the window */
  g_test_add_func ("/keys/open-image-url", test_open_image_url);
  g_test_add_func ("/keys/failed-url-details", test_failed_url_details);
  g_test_add_func ("/keys/view-state", test_view_state);
  g_test_add_func ("/keys/focus-returns", test_focus_returns);
  g_test_add_func ("/keys/escape-cancels-filter", test_escape_cancels_filter);
  g_test_add_func ("/keys/search-keeps-keys", test_search_keeps_keys);
  g_test_add_func ("/keys/export-view", test_export_view);
  g_test_add_func ("/keys/unsaved", test_unsaved);
  ret = g_test_run ();
  lb_test_ui_drain (50);
  lb_test_server_stop (&server);
  lb_test_remove_tree (store_dir);
  g_clear_object (&app);
  return ret;
}
