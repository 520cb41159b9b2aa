/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Viewports on the digital phantom (make-phantom.py, all series centred on one point of one
 * frame of reference): two axial series of different slice spacing side by side (1×2), each
 * dropped on its viewport; with synchronised scrolling, paging the active one puts the other
 * on the slice nearest in patient space, read back by its known centre value 2000 + k and
 * checked against the nearest location in the manifest; linked W/L follows the active
 * viewport and stops when unlinked; in 2×2 with the sagittal and coronal series, each
 * viewport's overlay shows its own orientation letters, the axial slice's reference line lies
 * at the sagittal and coronal row of its height (from the manifest's positions), and it is
 * drawn there (its colour found on the rendered window, at the widget rows that show that
 * image row). A store tree row dragged onto a viewport opens there; a filter, undo and the
 * view toggles act on the active viewport only; a real click and a real wheel turn (xdotool)
 * activate the viewport under the pointer. Full screen leaves the viewports alone on the
 * screen. */
#include <gtk/gtk.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "lb-application.h"
#include "lb-browser-node.h"
#include "lb-browser-node.h"
#include "lb-canvas.h"
#include "lb-param-dialog.h"
#include "lb-store-browser.h"
#include "lb-store-browser.h"
#include "lb-test-app.h"
#include "lb-test-dicom.h"
#include "lb-test-files.h"
#include "lb-test-loop.h"
#include "lb-viewport-grid.h"
#include "lb-window-test.h"
#include "lb-window.h"

#define SLICES 12

static LbApplication *app;
static char *phantom_a;     /* axial, sagittal, coronal at 2.5 mm */
static char *phantom_b;     /* axial at 4 mm, same frame of reference */
static JsonNode *manifest_a;
static JsonNode *manifest_b;

static LbWindow *
the_window (void)
{
  return lb_test_app_window (app);
}

static LbViewportGrid *
the_grid (void)
{
  return LB_VIEWPORT_GRID (lb_test_find_widget (GTK_WIDGET (the_window ()),
                                                LB_TYPE_VIEWPORT_GRID, NULL));
}

static LbViewport *
viewport (guint i)
{
  return lb_viewport_grid_get_viewport (the_grid (), i);
}

static LbCanvas *
canvas_of (guint i)
{
  return lb_viewport_get_canvas (viewport (i));
}

static gboolean
skip_without_phantom (void)
{
  if (phantom_a == NULL || phantom_b == NULL)
    g_test_skip ("make-phantom.py needs pydicom and numpy");
  return phantom_a == NULL || phantom_b == NULL;
}

/* The stored value at the centre of the image viewport @i shows, -1 for none. */
static int
centre_stored (guint i)
{
  LbImage *shown = lb_canvas_get_image (canvas_of (i));
  const LbValueModel *model;
  guint size;

  if (shown == NULL)
    return -1;
  model = lb_image_meta_get_value_model (lb_image_get_meta (shown));
  size = lb_image_get_width (shown);
  return lb_value_model_sample_to_stored (
    model, ((const guint16 *) lb_image_get_row (shown, size / 2))[size / 2]);
}

typedef struct {
  guint       viewport;
  const char *dir;      /* the series' folder, a suffix of the image's source */
  int         stored;   /* the centre value */
} Shows;

static gboolean
viewport_shows (gpointer data)
{
  const Shows *s = data;
  LbImage *shown = lb_canvas_get_image (canvas_of (s->viewport));
  const char *uri = shown ? lb_image_meta_get_source_uri (lb_image_get_meta (shown)) : NULL;

  return uri != NULL && strstr (uri, s->dir) != NULL && centre_stored (s->viewport) == s->stored;
}

static void
wait_shows (guint vp, const char *dir, int stored)
{
  Shows s = { vp, dir, stored };

  if (!lb_test_wait (viewport_shows, &s, 20000))
    g_error ("viewport %u shows %d, not %d of %s", vp, centre_stored (vp), stored, dir);
}

static gboolean
not_busy (gpointer data)
{
  return !lb_window_is_busy (the_window ());
}

/* The viewports as drawn, saved as $LB_BUILD_ROOT/@name for a person to look at. */
static void
save_screenshot (const char *name)
{
  g_autoptr(GdkTexture) tex = lb_test_render_widget (GTK_WIDGET (the_grid ()));
  g_autofree char *path = g_build_filename (g_getenv ("LB_BUILD_ROOT"), name, NULL);

  g_assert_nonnull (tex);
  g_assert_true (gdk_texture_save_to_png (tex, path));
  g_test_message ("screenshot: %s", path);
}

static char *
series_dir (const char *phantom, const char *name)
{
  return g_build_filename (phantom, name, NULL);
}

/* Drops the folder of series @name of @phantom on viewport @vp, as a store or study panel
 * row gives its URI to the drop target, and waits for its first slice there. */
static void
drop_series (guint vp, const char *phantom, const char *name)
{
  g_autofree char *dir = series_dir (phantom, name);
  g_autoptr(GFile) file = g_file_new_for_path (dir);
  g_autofree char *uri = g_file_get_uri (file);

  g_signal_emit_by_name (viewport (vp), "open-uri", uri);
  g_assert_true (lb_viewport_grid_get_active (the_grid ()) == viewport (vp));
  wait_shows (vp, dir, 2000);
}

static void
set_toggle (const char *name, gboolean on)
{
  g_action_group_change_action_state (G_ACTION_GROUP (the_window ()), name,
                                      g_variant_new_boolean (on));
}

static double
location (JsonNode *manifest, const char *dir, guint k)
{
  return json_object_get_double_member (
    lb_test_phantom_file (lb_test_phantom_series (manifest, dir), k), "location");
}

/* Viewport 1 shows a centre value other than @data. */
static gboolean
stored_differs (gpointer data)
{
  return centre_stored (1) != GPOINTER_TO_INT (data);
}

static gboolean
is_active (gpointer data)
{
  return lb_viewport_grid_get_active (the_grid ()) == data;
}

static gboolean
window_exists (gpointer data)
{
  return the_window () != NULL && lb_canvas_get_image (lb_window_test_get_canvas (the_window ()));
}

/* 1×2: A's axial series (2.5 mm) left, B's (4 mm) right; paging the left one moves the right
 * one to its nearest slice. */
static void
test_sync (void)
{
  g_autofree char *a_axial = NULL, *b_axial = NULL;

  if (skip_without_phantom ())
    return;
  a_axial = series_dir (phantom_a, "axial");
  b_axial = series_dir (phantom_b, "axial");
  lb_test_app_open_path (app, a_axial);
  g_assert_true (lb_test_wait (window_exists, NULL, 20000));
  wait_shows (0, a_axial, 2000);
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "layout",
                                  g_variant_new_string ("1x2"));
  g_assert_cmpuint (lb_viewport_grid_get_n_shown (the_grid ()), ==, 2);
  g_assert_true (gtk_widget_get_parent (GTK_WIDGET (viewport (1))) != NULL);
  drop_series (1, phantom_b, "axial");
  save_screenshot ("viewports-1x2.png");
  /* the window's canvas is the active viewport's */
  g_assert_true (lb_window_test_get_canvas (the_window ()) == canvas_of (1));
  /* the left one kept its own */
  wait_shows (0, a_axial, 2000);

  set_toggle ("sync-scroll", TRUE);
  g_signal_emit_by_name (viewport (0), "request-active");
  g_assert_true (lb_window_test_get_canvas (the_window ()) == canvas_of (0));
  for (guint k = 1; k < SLICES; k++)
    {
      double here = location (manifest_a, "axial", k), best = G_MAXDOUBLE;
      int want[2] = { -1, -1 };

      /* the slices of B nearest to A's slice k (two when it lies halfway) */
      for (guint m = 0; m < SLICES; m++)
        {
          double d = fabs (location (manifest_b, "axial", m) - here);

          if (d < best - 1e-6)
            {
              best = d;
              want[0] = (int) m;
              want[1] = -1;
            }
          else if (fabs (d - best) <= 1e-6)
            want[1] = (int) m;
        }
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (canvas_of (0)), "win.next-frame",
                                                 NULL));
      wait_shows (0, a_axial, 2000 + (int) k);
      if (want[1] < 0 || !lb_test_wait (viewport_shows, &(Shows) { 1, b_axial, 2000 + want[1] },
                                        2000))
        wait_shows (1, b_axial, 2000 + want[0]);
      g_test_message ("A slice %u at %.2f mm: B shows %d", k, here, centre_stored (1) - 2000);
    }
  /* the other viewport's overlay says which slice it shows */
  {
    const char *text = gtk_label_get_text (GTK_LABEL (lb_viewport_find_child (
                                                        viewport (1), "overlay_bottom_left")));
    g_autofree char *want = g_strdup_printf ("%d/%d", centre_stored (1) - 2000 + 1, SLICES);

    g_assert_nonnull (strstr (text, want));
  }
  /* unsynchronised, the other stays */
  set_toggle ("sync-scroll", FALSE);
  {
    int other = centre_stored (1);

    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (canvas_of (0)), "win.first-frame",
                                               NULL));
    wait_shows (0, a_axial, 2000);
    g_assert_false (lb_test_wait (stored_differs, GINT_TO_POINTER (other), 500));
  }
}

/* Linked W/L: the other viewport takes the active one's window; unlinked, it keeps its own. */
static void
test_link_wl (void)
{
  double c, w;

  if (skip_without_phantom ())
    return;
  set_toggle ("link-wl", TRUE);
  lb_canvas_set_window (lb_window_test_get_canvas (the_window ()), 77, 333);
  lb_canvas_get_window (canvas_of (1), &c, &w);
  g_assert_cmpfloat (c, ==, 77);
  g_assert_cmpfloat (w, ==, 333);
  /* from the other side too */
  g_signal_emit_by_name (viewport (1), "request-active");
  lb_canvas_set_window (lb_window_test_get_canvas (the_window ()), -50, 700);
  lb_canvas_get_window (canvas_of (0), &c, &w);
  g_assert_cmpfloat (c, ==, -50);
  g_assert_cmpfloat (w, ==, 700);
  set_toggle ("link-wl", FALSE);
  lb_canvas_set_window (lb_window_test_get_canvas (the_window ()), 40, 400);
  lb_canvas_get_window (canvas_of (0), &c, &w);
  g_assert_cmpfloat (c, ==, -50);
  g_assert_cmpfloat (w, ==, 700);
  g_signal_emit_by_name (viewport (0), "request-active");
}

static void
check_letters (guint vp, const char *dir)
{
  static const char *const ids[] = { "marker_top", "marker_right", "marker_bottom",
                                     "marker_left" };
  char want[4];

  lb_test_phantom_view_letters (lb_test_phantom_series (manifest_a, dir), want);
  for (guint e = 0; e < 4; e++)
    {
      GtkWidget *label = lb_viewport_find_child (viewport (vp), ids[e]);
      char letter[2] = { want[e], 0 };

      g_assert_true (gtk_widget_get_visible (label));
      g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, letter);
    }
}

/* The row of @dir's slices (sagittal, coronal: their column direction is −z) at the height
 * of A's axial slice @k: from the positions in the manifest, row spacing 0.8 mm. */
static double
row_at_height (const char *dir, guint k)
{
  JsonArray *p = json_object_get_array_member (
    lb_test_phantom_file (lb_test_phantom_series (manifest_a, dir), 0), "position");
  JsonArray *a = json_object_get_array_member (
    lb_test_phantom_file (lb_test_phantom_series (manifest_a, "axial"), k), "position");

  return (json_array_get_double_element (p, 2) - json_array_get_double_element (a, 2)) / 0.8;
}

/* The rows of the rendered window within viewport @vp's column at its centre where the
 * reference line's colour (green well above red and blue) shows; their mean, -1 if none. */
static double
line_row_on_screen (const guint8 *px, gsize stride, guint vp, double *x)
{
  graphene_rect_t r;
  double sum = 0;
  guint n = 0;

  g_assert_true (gtk_widget_compute_bounds (GTK_WIDGET (viewport (vp)),
                                            GTK_WIDGET (the_window ()), &r));
  *x = floor (r.size.width / 2);
  for (int y = 4; y < (int) r.size.height - 4; y++)
    {
      const guint8 *p = px + (gsize) (r.origin.y + y) * stride + (gsize) (r.origin.x + *x) * 4;

      /* BGRA */
      if (p[1] > p[0] + 60 && p[1] > p[2] + 60)
        {
          sum += y;
          n++;
        }
    }
  return n > 0 ? sum / n : -1;
}

/* 2×2: A's sagittal and coronal series below; the axial slice's reference line on them. */
static void
test_reference_lines (void)
{
  const guint k = 3;
  static const char *const below[] = { "sagittal", "coronal" };
  g_autoptr(GdkTexture) tex = NULL;
  g_autofree guint8 *px = NULL;
  g_autofree char *path = NULL;
  gsize stride;

  if (skip_without_phantom ())
    return;
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "layout",
                                  g_variant_new_string ("2x2"));
  drop_series (2, phantom_a, "sagittal");
  drop_series (3, phantom_a, "coronal");
  check_letters (2, "sagittal");
  check_letters (3, "coronal");
  g_signal_emit_by_name (viewport (0), "request-active");
  check_letters (0, "axial");
  check_letters (1, "axial");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (canvas_of (0)), "win.go-to-frame",
                                             "u", k + 1));
  {
    g_autofree char *a_axial = series_dir (phantom_a, "axial");

    wait_shows (0, a_axial, 2000 + (int) k);
  }
  /* no line on the parallel axial series, one across the others at the slice's height */
  g_assert_false (lb_viewport_get_reference_line (viewport (1), (double[4]) { 0 }));
  for (guint v = 2; v < 4; v++)
    {
      double ij[4], want = row_at_height (below[v - 2], k);

      g_assert_true (lb_viewport_get_reference_line (viewport (v), ij));
      g_test_message ("%s: line (%.3f, %.3f)–(%.3f, %.3f), row %.3f expected", below[v - 2],
                      ij[0], ij[1], ij[2], ij[3], want);
      g_assert_cmpfloat_with_epsilon (ij[1], want, 1e-6);
      g_assert_cmpfloat_with_epsilon (ij[3], want, 1e-6);
      /* across the whole target image: the axial one is as wide (coronal) or wider (its
       * 64 rows of 0.8 mm along y on the sagittal, whose columns are 0.7 mm apart) */
      g_assert_cmpfloat_with_epsilon (MIN (ij[0], ij[2]), -0.5, 1e-6);
      g_assert_cmpfloat_with_epsilon (MAX (ij[0], ij[2]), 63.5, 1e-6);
    }

  tex = lb_test_render_widget (GTK_WIDGET (the_window ()));
  g_assert_nonnull (tex);
  path = g_build_filename (g_getenv ("LB_BUILD_ROOT"), "viewports-2x2.png", NULL);
  g_assert_true (gdk_texture_save_to_png (tex, path));
  g_test_message ("screenshot: %s", path);
  stride = (gsize) gdk_texture_get_width (tex) * 4;
  px = g_malloc (stride * gdk_texture_get_height (tex));
  gdk_texture_download (tex, px, stride);
  for (guint v = 2; v < 4; v++)
    {
      double x, y = line_row_on_screen (px, stride, v, &x);
      int ix, iy;

      g_assert_cmpfloat (y, >=, 0);
      /* the line is drawn through the centres of the image row at the slice's height */
      g_assert_true (lb_canvas_widget_to_image (canvas_of (v), x + 0.5, y + 0.5, &ix, &iy));
      g_test_message ("%s: line at widget row %.1f shows image row %d", below[v - 2], y, iy);
      g_assert_cmpint (abs (iy - (int) lround (row_at_height (below[v - 2], k))), <=, 0);
    }
  /* none on the axial viewports, where a parallel plane has no line */
  {
    double x;

    g_assert_cmpfloat (line_row_on_screen (px, stride, 1, &x), <, 0);
  }
  /* the toggle takes them away */
  set_toggle ("reference-lines", FALSE);
  g_assert_false (lb_viewport_get_reference_line (viewport (2), (double[4]) { 0 }));
  set_toggle ("reference-lines", TRUE);
}

static LbStoreBrowser *
the_browser (void)
{
  return LB_STORE_BROWSER (lb_test_find_widget (GTK_WIDGET (the_window ()),
                                                LB_TYPE_STORE_BROWSER, NULL));
}

static gboolean
row_listed (gpointer data)
{
  return lb_store_browser_get_pending (the_browser ()) == 0
         && lb_store_browser_find_row (the_browser (), data) != G_MAXUINT;
}

static void
expand_listed (const char *name)
{
  g_assert_true (lb_test_wait (row_listed, (gpointer) name, 20000));
  lb_store_browser_activate_row (the_browser (),
                                 lb_store_browser_find_row (the_browser (), name));
}

/* The name cell (tree expander) under @root whose row is @entry's. */
static GtkWidget *
expander_of (GtkWidget *root, LbStoreEntry *entry)
{
  if (GTK_IS_TREE_EXPANDER (root))
    {
      g_autoptr(GObject) node = gtk_tree_expander_get_item (GTK_TREE_EXPANDER (root));

      if (LB_IS_BROWSER_NODE (node) && lb_browser_node_get_entry (LB_BROWSER_NODE (node)) == entry)
        return root;
    }
  for (GtkWidget *c = gtk_widget_get_first_child (root); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = expander_of (c, entry);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* A series row of the store tree dragged from its right end (another column than the name):
 * the drag carries the series' URI, and dropped on a viewport it opens there as its stack. */
static void
test_drag_from_tree (void)
{
  JsonObject *m, *sm;
  GtkWidget *view, *cell;
  GtkDragSource *drag = NULL;
  g_autoptr(GListModel) controllers = NULL;
  g_autoptr(GdkContentProvider) content = NULL;
  g_autoptr(GdkTexture) drawn = NULL;
  g_auto(GValue) value = G_VALUE_INIT;
  g_autoptr(GError) error = NULL;
  LbStoreEntry *entry;
  graphene_rect_t r;
  const char *series_uid;

  if (skip_without_phantom ())
    return;
  m = json_node_get_object (manifest_a);
  sm = lb_test_phantom_series (manifest_a, "axial");
  series_uid = json_object_get_string_member (sm, "series_uid");
  expand_listed ("PH-26");
  expand_listed (json_object_get_string_member (json_object_get_object_member (m, "study"),
                                                "StudyInstanceUID"));
  g_assert_true (lb_test_wait (row_listed, (gpointer) series_uid, 20000));
  entry = lb_store_browser_get_entry (the_browser (),
                                      lb_store_browser_find_row (the_browser (), series_uid));
  view = lb_store_browser_get_view (the_browser ());
  controllers = gtk_widget_observe_controllers (view);
  for (guint i = 0; i < g_list_model_get_n_items (controllers) && drag == NULL; i++)
    {
      g_autoptr(GObject) c = g_list_model_get_item (controllers, i);

      if (GTK_IS_DRAG_SOURCE (c))
        drag = GTK_DRAG_SOURCE (c);
    }
  g_assert_nonnull (drag);
  /* the row's widgets exist once the view has drawn the listing */
  drawn = lb_test_render_widget (view);
  cell = expander_of (view, entry);
  g_assert_nonnull (cell);
  g_assert_true (gtk_widget_compute_bounds (cell, view, &r));
  g_signal_emit_by_name (drag, "prepare", (double) gtk_widget_get_width (view) - 8,
                         (double) (r.origin.y + r.size.height / 2), &content);
  g_assert_nonnull (content);
  g_value_init (&value, G_TYPE_STRING);
  g_assert_true (gdk_content_provider_get_value (content, &value, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (g_value_get_string (&value), ==, lb_store_entry_get_uri (entry));

  /* dropped on the second viewport (showing B's axial series), A's shows there */
  g_signal_emit_by_name (viewport (1), "open-uri", g_value_get_string (&value));
  g_assert_true (lb_viewport_grid_get_active (the_grid ()) == viewport (1));
  {
    g_autofree char *a_axial = series_dir (phantom_a, "axial");

    wait_shows (1, a_axial, 2000);
  }
  g_signal_emit_by_name (viewport (0), "request-active");
}

#define THRESHOLD_ID "io.github.lightbox.example.threshold"

static gboolean
has_param_dialog (gpointer data)
{
  return lb_window_test_get_param_dialog (the_window ()) != NULL;
}

static gboolean
toggle_state (const char *name)
{
  g_autoptr(GVariant) state = g_action_group_get_action_state (G_ACTION_GROUP (the_window ()),
                                                               name);

  return g_variant_get_boolean (state);
}

/* A filter, its undo and the view toggles act on the active viewport only; each viewport keeps
 * its history, and no other becomes active while a filter dialog previews. */
static void
test_commands_on_active (void)
{
  LbHistory *history;
  GtkWidget *dialog;

  if (skip_without_phantom ())
    return;
  g_signal_emit_by_name (viewport (1), "request-active");
  history = lb_window_test_get_history (the_window ());
  g_assert_cmpuint (lb_history_get_length (history), ==, 1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (canvas_of (1)), "win.apply-filter",
                                             "s", THRESHOLD_ID));
  g_assert_true (lb_test_wait (has_param_dialog, NULL, 5000));
  dialog = lb_window_test_get_param_dialog (the_window ());
  g_signal_emit_by_name (viewport (0), "request-active");
  g_assert_true (lb_viewport_grid_get_active (the_grid ()) == viewport (1));
  lb_param_dialog_respond (LB_PARAM_DIALOG (dialog), TRUE);
  g_assert_true (lb_test_wait (not_busy, NULL, 20000));
  g_assert_cmpuint (lb_history_get_length (history), ==, 2);
  g_assert_true (lb_canvas_get_image (canvas_of (1)) == lb_history_get_current (history));
  g_assert_false (lb_canvas_get_image (canvas_of (0)) == lb_history_get_current (history));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (canvas_of (1)), "win.invert", NULL));
  g_assert_true (lb_canvas_get_invert (canvas_of (1)));
  g_assert_false (lb_canvas_get_invert (canvas_of (0)));

  /* the other viewport: its own history and view, and the toggles say so */
  g_signal_emit_by_name (viewport (0), "request-active");
  g_assert_cmpuint (lb_history_get_length (lb_window_test_get_history (the_window ())), ==, 1);
  g_assert_false (toggle_state ("invert"));
  /* back: the result is still there, and undo works on it */
  g_signal_emit_by_name (viewport (1), "request-active");
  g_assert_true (lb_window_test_get_history (the_window ()) == history);
  g_assert_true (toggle_state ("invert"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (canvas_of (1)), "win.undo", NULL));
  g_assert_true (lb_canvas_get_image (canvas_of (1)) == lb_history_get_original (history));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (canvas_of (1)), "win.invert", NULL));
  g_signal_emit_by_name (viewport (0), "request-active");
}

/* Real input: a click makes a viewport active, and the wheel over another viewport makes that
 * one active and pages it, not the one that was active. */
static void
test_click_and_wheel (void)
{
  g_autofree char *sagittal = NULL, *coronal = NULL, *a_axial = NULL;
  int axial_shown;

  if (skip_without_phantom ())
    return;
  if (!lb_test_have_xdotool ())
    {
      g_test_skip ("real input needs X11 and xdotool");
      return;
    }
  sagittal = series_dir (phantom_a, "sagittal");
  coronal = series_dir (phantom_a, "coronal");
  a_axial = series_dir (phantom_a, "axial");
  g_signal_emit_by_name (viewport (0), "request-active");
  axial_shown = centre_stored (0);
  lb_test_point_at (GTK_WIDGET (canvas_of (2)));
  lb_test_xdotool ("click 1");
  g_assert_true (lb_test_wait (is_active, viewport (2), 5000));
  g_assert_true (lb_window_test_get_canvas (the_window ()) == canvas_of (2));
  /* the plain wheel (button 5: down) pages the sagittal series */
  lb_test_xdotool ("click 5");
  wait_shows (2, sagittal, 2001);
  /* over the coronal viewport, the wheel first makes it active */
  lb_test_point_at (GTK_WIDGET (canvas_of (3)));
  lb_test_xdotool ("click 5");
  wait_shows (3, coronal, 2001);
  g_assert_true (lb_viewport_grid_get_active (the_grid ()) == viewport (3));
  /* the others stayed */
  wait_shows (2, sagittal, 2001);
  wait_shows (0, a_axial, axial_shown);
  g_signal_emit_by_name (viewport (0), "request-active");
}

/* The header bar is hidden and the viewports fill the window. */
static gboolean
only_viewports (gpointer data)
{
  graphene_rect_t r;

  return !gtk_widget_get_visible (lb_window_test_get_child (the_window (), "header_bar"))
         && gtk_widget_compute_bounds (GTK_WIDGET (the_grid ()), GTK_WIDGET (the_window ()), &r)
         && r.origin.x == 0 && r.origin.y == 0
         && r.size.width == gtk_widget_get_width (GTK_WIDGET (the_window ()))
         && r.size.height == gtk_widget_get_height (GTK_WIDGET (the_window ()));
}

/* F11: only the viewports, all four, across the whole window. GTK 4.18 (not 4.8) warns
 * "Trying to measure GtkBox … for width of 0" once while the chrome is hidden under Xvfb, as
 * in test-dicom-reading.c; warnings are not fatal in this test only, criticals stay fatal. */
static void
test_fullscreen (void)
{
  graphene_rect_t r;
  GLogLevelFlags fatal;

  if (skip_without_phantom ())
    return;
  fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  g_action_group_change_action_state (G_ACTION_GROUP (the_window ()), "fullscreen",
                                      g_variant_new_boolean (TRUE));
  if (!lb_test_wait (only_viewports, NULL, 5000))
    {
      g_assert_true (gtk_widget_compute_bounds (GTK_WIDGET (the_grid ()),
                                                GTK_WIDGET (the_window ()), &r));
      g_error ("full screen: the viewports at %g,%g %g×%g in a %d×%d window", r.origin.x,
               r.origin.y, r.size.width, r.size.height,
               gtk_widget_get_width (GTK_WIDGET (the_window ())),
               gtk_widget_get_height (GTK_WIDGET (the_window ())));
    }
  for (guint v = 0; v < 4; v++)
    g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (viewport (v))));
  save_screenshot ("viewports-fullscreen.png");
  g_action_group_change_action_state (G_ACTION_GROUP (the_window ()), "fullscreen",
                                      g_variant_new_boolean (FALSE));
  /* back to one viewport: the first, with its series */
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "layout",
                                  g_variant_new_string ("1x1"));
  g_assert_true (lb_viewport_grid_get_active (the_grid ()) == viewport (0));
  g_assert_false (gtk_widget_get_mapped (GTK_WIDGET (viewport (1))));
  g_log_set_always_fatal (fatal);
}

int
main (int argc, char **argv)
{
  const char *opts_a[] = { "--slices", G_STRINGIFY (SLICES), "--spacing", "2.5", "--centre",
                           "0,0,100", NULL };
  int ret;

  gtk_test_init (&argc, &argv, NULL);
  app = lb_test_app_new ();
  if (app == NULL)
    return 0;
  phantom_a = lb_test_make_phantom ("viewports-a", opts_a, &manifest_a);
  if (phantom_a != NULL)
    {
      const char *uid = json_object_get_string_member (json_node_get_object (manifest_a),
                                                       "frame_of_reference");
      const char *opts_b[] = { "--slices", G_STRINGIFY (SLICES), "--spacing", "4",
                               "--centre", "0,0,100", "--orientations", "axial",
                               "--frame-of-reference", uid, NULL };

      phantom_b = lb_test_make_phantom ("viewports-b", opts_b, &manifest_b);
    }
  g_test_add_func ("/dicom/viewports/sync", test_sync);
  g_test_add_func ("/dicom/viewports/link-wl", test_link_wl);
  g_test_add_func ("/dicom/viewports/reference-lines", test_reference_lines);
  g_test_add_func ("/dicom/viewports/drag-from-tree", test_drag_from_tree);
  g_test_add_func ("/dicom/viewports/commands-on-active", test_commands_on_active);
  g_test_add_func ("/dicom/viewports/click-and-wheel", test_click_and_wheel);
  g_test_add_func ("/dicom/viewports/fullscreen", test_fullscreen);
  ret = g_test_run ();
  for (guint i = 0; i < 2; i++)
    {
      char *dir = i == 0 ? phantom_a : phantom_b;

      if (dir != NULL)
        lb_test_remove_tree (dir);
      g_free (dir);
    }
  g_clear_pointer (&manifest_a, json_node_unref);
  g_clear_pointer (&manifest_b, json_node_unref);
  lb_test_app_free (app);
  return ret;
}
