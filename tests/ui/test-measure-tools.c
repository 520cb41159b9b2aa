/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The measurement tools in a real window under Xvfb, driven with the pointer and the keys
 * (xdotool through XTest), on the digital CT phantom of tests/measure/measure-reference.py
 * (pydicom: 0.7 mm pixels, a disc of radius 20 mm at about 40 HU with padding on its right):
 *
 * - every tool by its key and the pointer: angle and polyline lengths against numpy, the
 *   probe's value, a freehand region, the arrow's label typed in the form it opens;
 * - an ellipse dragged over the disc's box measures, on the stored values, what numpy counts
 *   for the points it got (measure-roi.py: pixel centres inside, padding out, HU through the
 *   rescale), and an area within 1 % of π·20² mm²; a length between two markers is numpy's
 *   length of its points and within half a pixel of the markers' distance;
 * - dragging a handle moves that point and the values follow; Ctrl+Z and Ctrl+Shift+Z undo
 *   and redo the edit, the addition and the deletion (Delete on a measurement selected by a
 *   click), in the history the filters use;
 * - Save Measurements writes the JSON sidecar beside the file (read back here by json-glib),
 *   the image opened again shows the same measurements with the same values; the CSV export
 *   has a line per measurement;
 * - a sidecar another reader wrote since: Save asks, Cancel leaves it, Replace replaces it;
 * - a malformed sidecar: the image opens all the same with a clear message, no measurements,
 *   and a save leaves the file as it was;
 * - on a series (tests/dicom/make-phantom.py), a measurement on each of two slices: the panel
 *   lists both and a click on a row goes back to its slice and selects it; Save writes a
 *   sidecar beside each of the two slice files and none beside the others; the series opened
 *   again puts each measurement back on its slice; as one multi-frame object, a measurement on
 *   frame 3 goes to its one sidecar, which names frame 2 (from 0), and comes back on frame 3.
 *
 * A screenshot of the window with its measurements is written for people to look at. */
#include <gtk/gtk.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "lb-canvas.h"
#include "lb-measure-layer.h"
#include "lb-measurement-sidecar.h"
#include "lb-test-app.h"
#include "lb-test-dicom.h"
#include "lb-test-dialogs.h"
#include "lb-test-files.h"
#include "lb-test-loop.h"
#include "lb-test-process.h"
#include "lb-test-ui.h"
#include "lb-test-xinput.h"
#include "lb-window-test.h"
#include "lb-window.h"

static LbApplication *app;
static char *dir;          /* scratch: the phantom, the sidecar, the references */
static char *image_path;   /* dir/iso.dcm */
static JsonObject *phantom; /* measure-reference.py's "iso" case */

/* The window's parts the tests look at. */
#define the_window() lb_test_app_window (app)
#define the_canvas() lb_window_test_get_canvas (the_window ())
#define the_list()   lb_window_get_measurements (the_window ())
#define the_layer()  lb_window_test_get_measure_layer (the_window ())

static gboolean
skip (void)
{
  if (phantom == NULL)
    {
      g_test_skip ("pydicom and numpy are needed for the phantom");
      return TRUE;
    }
  if (!lb_test_have_xdotool ())
    {
      g_test_skip ("xdotool and X11 are needed for real pointer events");
      return TRUE;
    }
  return FALSE;
}

static gboolean
image_shown (gpointer data)
{
  LbWindow *w = the_window ();

  return w != NULL && !lb_window_is_busy (w) && lb_canvas_get_image (the_canvas ()) != NULL
         && gtk_widget_get_mapped (GTK_WIDGET (the_canvas ()));
}

static gboolean
n_measurements (gpointer data)
{
  return the_window () != NULL
         && lb_measurement_list_get_n (the_list ()) == GPOINTER_TO_UINT (data);
}

static gboolean
status_starts (gpointer data)
{
  const char *status = lb_window_test_get_last_status (the_window ());

  return status != NULL && g_str_has_prefix (status, data);
}

static void
open_image (void)
{
  lb_test_app_open_path (app, image_path);
  g_assert_true (lb_test_wait (image_shown, NULL, 30000));
  /* the sidecar is read after the image: give it its turn */
  lb_test_ui_drain (300);
}

/* The widget point that shows image point (@ix, @iy). */
static void
widget_point (double ix, double iy, double *x, double *y)
{
  g_assert_true (lb_canvas_image_to_widget (the_canvas (), ix, iy, x, y));
}

static void
press_keys (const char *keys)
{
  g_autofree char *words = g_strconcat ("key ", keys, NULL);
  GtkWidget *canvas = GTK_WIDGET (the_canvas ());

  lb_test_point_at_xy (canvas, 5, 5);
  gtk_widget_grab_focus (canvas);
  lb_test_xdotool (words);
  lb_test_ui_drain (150);
}

/* Drags with the left button from widget point (@x0, @y0) to (@x1, @y1) in steps, letting
 * GTK see every motion. */
static void
drag (double x0, double y0, double x1, double y1)
{
  GtkWidget *canvas = GTK_WIDGET (the_canvas ());

  lb_test_point_at_xy (canvas, x0, y0);
  lb_test_ui_drain (50);
  lb_test_xdotool ("mousedown 1");
  lb_test_ui_drain (50);
  for (int i = 1; i <= 10; i++)
    {
      lb_test_point_at_xy (canvas, x0 + (x1 - x0) * i / 10, y0 + (y1 - y0) * i / 10);
      lb_test_ui_drain (20);
    }
  lb_test_xdotool ("mouseup 1");
  lb_test_ui_drain (150);
}

/* Clicks at each widget point of @xy (@n pairs), then leaves the double click's time. */
static void
clicks (const double *xy, guint n, gboolean double_last)
{
  for (guint i = 0; i < n; i++)
    {
      lb_test_point_at_xy (GTK_WIDGET (the_canvas ()), xy[2 * i], xy[2 * i + 1]);
      lb_test_ui_drain (50);
      lb_test_xdotool (double_last && i + 1 == n ? "click --repeat 2 --delay 80 1" : "click 1");
      lb_test_ui_drain (double_last && i + 1 == n ? 150 : 500);
    }
  lb_test_ui_drain (400);
}

static void
click (double x, double y)
{
  lb_test_point_at_xy (GTK_WIDGET (the_canvas ()), x, y);
  lb_test_ui_drain (50);
  lb_test_xdotool ("click 1");
  /* past the double click's time, so the next press is a press of its own */
  lb_test_ui_drain (500);
}

/* ---- the independent reference ----------------------------------------------------------- */

/* numpy's values (measure-roi.py) for @measurements of the phantom. */
static JsonArray *
reference (LbMeasurement **measurements, guint n)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL, query = NULL;
  g_autofree char *text = NULL, *query_path = g_build_filename (dir, "query.json", NULL);
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "file");
  json_builder_add_string_value (b, image_path);
  json_builder_set_member_name (b, "measurements");
  lb_test_ui_json_measurements (b, measurements, n);
  json_builder_end_object (b);
  query = json_builder_get_root (b);
  text = json_to_string (query, FALSE);
  g_assert_true (g_file_set_contents (query_path, text, -1, NULL));
  out = lb_test_run_reference ("ui", "measure-roi.py", dir);
  g_assert_nonnull (out);
  root = json_from_string (out, &error);
  g_assert_no_error (error);
  return json_array_ref (json_node_get_array (root));
}

/* What the window shows for @m is what numpy counts for its points. */
static void
check_region (LbMeasurement *m, JsonObject *ref)
{
  LbMeasurementValues v;

  g_assert_true (lb_measure_layer_compute (the_layer (), m, &v));
  g_assert_true (v.has_stats);
  g_assert_cmpstr (v.value_unit, ==, "HU");
  g_assert_cmpuint (v.stats.n_pixels, ==, json_object_get_int_member (ref, "n_pixels"));
  g_assert_cmpuint (v.stats.n_padding, ==, json_object_get_int_member (ref, "n_padding"));
  g_assert_cmpfloat_with_epsilon (v.stats.mean, json_object_get_double_member (ref, "mean"),
                                  1e-9 * fabs (v.stats.mean) + 1e-9);
  g_assert_cmpfloat_with_epsilon (v.stats.sd, json_object_get_double_member (ref, "sd"), 1e-6);
  g_assert_cmpfloat (v.stats.min, ==, json_object_get_double_member (ref, "min"));
  g_assert_cmpfloat (v.stats.max, ==, json_object_get_double_member (ref, "max"));
  g_assert_cmpfloat_with_epsilon (v.area, json_object_get_double_member (ref, "area_mm2"),
                                  1e-9 * v.area);
}

/* ---- 1. drawing -------------------------------------------------------------------------- */

static LbMeasurement *ellipse;  /* drawn in test_draw, edited after */
static LbMeasurement *length;

static void
test_draw (void)
{
  JsonObject *disc, *markers;
  JsonArray *centre, *radius, *a, *b;
  g_autoptr(JsonArray) ref = NULL;
  LbMeasurement *both[2];
  LbMeasurementValues v;
  double x0, y0, x1, y1, ax, ay, bx, by, want_mm;

  if (skip ())
    return;
  open_image ();
  g_assert_cmpuint (lb_measurement_list_get_n (the_list ()), ==, 0);

  /* the ellipse tool by its key, dragged over the disc's box */
  press_keys ("e");
  disc = json_object_get_object_member (phantom, "disc");
  centre = json_object_get_array_member (disc, "centre_px");
  radius = json_object_get_array_member (disc, "radius_px");
  widget_point (json_array_get_double_element (centre, 0) - json_array_get_double_element (radius, 0),
                json_array_get_double_element (centre, 1) - json_array_get_double_element (radius, 1),
                &x0, &y0);
  widget_point (json_array_get_double_element (centre, 0) + json_array_get_double_element (radius, 0),
                json_array_get_double_element (centre, 1) + json_array_get_double_element (radius, 1),
                &x1, &y1);
  drag (x0, y0, x1, y1);
  g_assert_true (lb_test_wait (n_measurements, GUINT_TO_POINTER (1), 5000));
  ellipse = lb_measurement_list_get (the_list (), 0);
  g_assert_cmpint (lb_measurement_get_tool (ellipse), ==, LB_MEASUREMENT_ELLIPSE);
  g_assert_true (lb_measure_layer_get_selected (the_layer ()) == ellipse);
  g_assert_true (lb_history_can_undo (lb_window_test_get_history (the_window ())));

  /* the length tool between two markers */
  press_keys ("l");
  markers = json_object_get_object_member (phantom, "markers");
  a = json_object_get_array_member (markers, "3001");
  b = json_object_get_array_member (markers, "3002");
  ax = json_array_get_int_element (a, 0) + 0.5;
  ay = json_array_get_int_element (a, 1) + 0.5;
  bx = json_array_get_int_element (b, 0) + 0.5;
  by = json_array_get_int_element (b, 1) + 0.5;
  widget_point (ax, ay, &x0, &y0);
  widget_point (bx, by, &x1, &y1);
  drag (x0, y0, x1, y1);
  g_assert_true (lb_test_wait (n_measurements, GUINT_TO_POINTER (2), 5000));
  length = lb_measurement_list_get (the_list (), 1);
  g_assert_cmpint (lb_measurement_get_tool (length), ==, LB_MEASUREMENT_LENGTH);

  both[0] = ellipse;
  both[1] = length;
  ref = reference (both, 2);
  check_region (ellipse, json_array_get_object_element (ref, 0));
  /* the disc: 20 mm of radius, the box dragged to the nearest screen pixel */
  g_assert_true (lb_measure_layer_compute (the_layer (), ellipse, &v));
  g_assert_cmpfloat (fabs (v.area - G_PI * 20 * 20) / (G_PI * 20 * 20), <, 0.01);
  g_assert_true (lb_measure_layer_compute (the_layer (), length, &v));
  g_assert_cmpfloat_with_epsilon (v.length, json_object_get_double_member (
                                    json_array_get_object_element (ref, 1), "length_mm"), 1e-9);
  want_mm = json_object_get_double_member (phantom, "length_mm");
  g_assert_cmpfloat (fabs (v.length - want_mm), <=, 0.5 * 0.7);
  g_assert_cmpstr (lb_measurement_spacing_length_unit (&v.spacing), ==, "mm");
}

/* ---- 1b. the other tools --------------------------------------------------------------- */

/* The widget point of the centre of the phantom's marker @name. */
static void
marker_point (const char *name, double *x, double *y)
{
  JsonArray *a = json_object_get_array_member (json_object_get_object_member (phantom,
                                                                              "markers"), name);

  widget_point (json_array_get_int_element (a, 0) + 0.5, json_array_get_int_element (a, 1) + 0.5,
                x, y);
}

static LbMeasurement *
last_measurement (void)
{
  guint n = lb_measurement_list_get_n (the_list ());

  g_assert_cmpuint (n, >, 0);
  return lb_measurement_list_get (the_list (), n - 1);
}

static gboolean
has_form (gpointer data)
{
  return lb_test_dialog_over (GTK_WINDOW (the_window ())) != NULL;
}

static gboolean
form_active (gpointer data)
{
  return gtk_window_is_active (GTK_WINDOW (data));
}

static void
test_other_tools (void)
{
  GtkWindow *form;
  double xy[6], x, y;
  guint n0;
  LbMeasurement *m[2];
  LbMeasurementValues v;
  g_autoptr(JsonArray) ref = NULL;
  JsonArray *probe;

  if (skip () || ellipse == NULL)
    return;
  n0 = lb_measurement_list_get_n (the_list ());

  /* angle: three clicks, the vertex in the middle */
  press_keys ("g");
  marker_point ("3001", &xy[0], &xy[1]);
  marker_point ("3002", &xy[2], &xy[3]);
  marker_point ("3003", &xy[4], &xy[5]);
  clicks (xy, 3, FALSE);
  g_assert_cmpuint (lb_measurement_list_get_n (the_list ()), ==, n0 + 1);
  m[0] = last_measurement ();
  g_assert_cmpint (lb_measurement_get_tool (m[0]), ==, LB_MEASUREMENT_ANGLE);

  /* polyline: clicks, the last one double */
  press_keys ("y");
  clicks (xy, 3, TRUE);
  g_assert_cmpuint (lb_measurement_list_get_n (the_list ()), ==, n0 + 2);
  m[1] = last_measurement ();
  g_assert_cmpint (lb_measurement_get_tool (m[1]), ==, LB_MEASUREMENT_POLYLINE);
  g_assert_cmpuint (lb_measurement_get_n_points (m[1]), ==, 3);

  ref = reference (m, 2);
  g_assert_true (lb_measure_layer_compute (the_layer (), m[0], &v));
  g_assert_cmpfloat_with_epsilon (v.angle, json_object_get_double_member (
                                    json_array_get_object_element (ref, 0), "angle_deg"), 1e-9);
  g_assert_cmpfloat (fabs (v.angle - json_object_get_double_member (phantom, "angle_deg")), <,
                     0.5);
  g_assert_true (lb_measure_layer_compute (the_layer (), m[1], &v));
  g_assert_cmpfloat_with_epsilon (v.length, json_object_get_double_member (
                                    json_array_get_object_element (ref, 1), "length_mm"), 1e-9);
  g_assert_cmpfloat (fabs (v.length - json_object_get_double_member (phantom, "polyline_mm")),
                     <=, 2 * 0.5 * 0.7);

  /* probe: a click on the phantom's probe pixel gives its HU */
  press_keys ("p");
  probe = json_object_get_array_member (json_object_get_object_member (phantom, "probe"),
                                        "pixel");
  widget_point (json_array_get_int_element (probe, 0) + 0.5,
                json_array_get_int_element (probe, 1) + 0.5, &x, &y);
  click (x, y);
  g_assert_cmpint (lb_measurement_get_tool (last_measurement ()), ==, LB_MEASUREMENT_PROBE);
  g_assert_true (lb_measure_layer_compute (the_layer (), last_measurement (), &v));
  g_assert_true (v.has_value);
  g_assert_cmpfloat (v.value, ==, json_object_get_double_member (
                       json_object_get_object_member (phantom, "probe"), "value"));

  /* freehand: one drag around a triangle */
  press_keys ("d");
  lb_test_point_at_xy (GTK_WIDGET (the_canvas ()), xy[0], xy[1]);
  lb_test_xdotool ("mousedown 1");
  lb_test_ui_drain (50);
  for (guint k = 1; k <= 3; k++)
    for (int i = 1; i <= 8; i++)
      {
        guint a = (k - 1) % 3, b = k % 3;

        lb_test_point_at_xy (GTK_WIDGET (the_canvas ()),
                              xy[2 * a] + (xy[2 * b] - xy[2 * a]) * i / 8,
                              xy[2 * a + 1] + (xy[2 * b + 1] - xy[2 * a + 1]) * i / 8);
        lb_test_ui_drain (15);
      }
  lb_test_xdotool ("mouseup 1");
  lb_test_ui_drain (200);
  g_assert_cmpint (lb_measurement_get_tool (last_measurement ()), ==, LB_MEASUREMENT_FREEHAND);
  g_assert_cmpuint (lb_measurement_get_n_points (last_measurement ()), >=, 3);
  g_assert_true (lb_measure_layer_compute (the_layer (), last_measurement (), &v));
  g_assert_true (v.has_stats);
  g_assert_cmpuint (v.stats.n_pixels, >, 100);

  /* arrow: a drag, then its label typed in the form that asks for it */
  press_keys ("t");
  drag (xy[4], xy[5], xy[2], xy[3]);
  g_assert_true (lb_test_wait (has_form, NULL, 5000));
  form = lb_test_dialog_over (GTK_WINDOW (the_window ()));
  /* the form's window gets the keys: focused, the pointer on its entry */
  lb_test_point_at_xy (lb_test_find_widget (GTK_WIDGET (form), GTK_TYPE_TEXT, NULL), 5, 5);
  g_assert_true (lb_test_wait (form_active, form, 5000));
  lb_test_xdotool ("type --delay 20 nodule");
  lb_test_xdotool ("key Return");
  lb_test_ui_drain (300);
  g_assert_cmpint (lb_measurement_get_tool (last_measurement ()), ==, LB_MEASUREMENT_ARROW);
  g_assert_cmpstr (lb_measurement_get_text (last_measurement ()), ==, "nodule");

  /* back to the two of the first test: undo these five */
  press_keys ("Escape");
  while (lb_measurement_list_get_n (the_list ()) > n0)
    press_keys ("ctrl+z");
  g_assert_true (lb_measurement_list_get (the_list (), 0) == ellipse);
}

/* ---- 2. a handle, undo, redo ------------------------------------------------------------- */

static void
test_edit_undo (void)
{
  LbHistory *history;
  LbMeasurementPoint before, after;
  g_autoptr(JsonArray) ref = NULL;
  double x, y;

  if (skip () || ellipse == NULL)
    return;
  /* no tool: a click on the ellipse selects it, its corner handle drags */
  press_keys ("Escape");
  g_assert_false (lb_measure_layer_get_tool (the_layer (), NULL));
  before = lb_measurement_get_point (ellipse, 1);
  lb_measure_layer_select (the_layer (), NULL);
  /* a click inside the ellipse selects it */
  widget_point ((lb_measurement_get_point (ellipse, 0).x + before.x) / 2,
                (lb_measurement_get_point (ellipse, 0).y + before.y) / 2, &x, &y);
  click (x, y);
  g_assert_true (lb_measure_layer_get_selected (the_layer ()) == ellipse);
  widget_point (before.x, before.y, &x, &y);
  drag (x, y, x + 40, y + 24);
  after = lb_measurement_get_point (ellipse, 1);
  g_assert_cmpfloat (after.x, >, before.x + 5);
  g_assert_cmpfloat (after.y, >, before.y + 3);
  ref = reference (&ellipse, 1);
  check_region (ellipse, json_array_get_object_element (ref, 0));

  history = lb_window_test_get_history (the_window ());
  /* Ctrl+Z puts the handle back; Ctrl+Shift+Z moves it again */
  press_keys ("ctrl+z");
  g_assert_cmpfloat (lb_measurement_get_point (ellipse, 1).x, ==, before.x);
  g_assert_cmpfloat (lb_measurement_get_point (ellipse, 1).y, ==, before.y);
  press_keys ("ctrl+shift+z");
  g_assert_cmpfloat (lb_measurement_get_point (ellipse, 1).x, ==, after.x);
  /* undoing twice more removes the length, then the ellipse; redo brings both back */
  press_keys ("ctrl+z");
  press_keys ("ctrl+z");
  g_assert_cmpuint (lb_measurement_list_get_n (the_list ()), ==, 1);
  press_keys ("ctrl+z");
  g_assert_cmpuint (lb_measurement_list_get_n (the_list ()), ==, 0);
  g_assert_false (lb_history_can_undo (history));
  press_keys ("ctrl+shift+z");
  press_keys ("ctrl+shift+z");
  press_keys ("ctrl+shift+z");
  g_assert_cmpuint (lb_measurement_list_get_n (the_list ()), ==, 2);
  g_assert_cmpfloat (lb_measurement_get_point (ellipse, 1).x, ==, after.x);
  /* no filter ran: the image is the original throughout */
  g_assert_true (lb_history_get_current (history) == lb_history_get_original (history));
}

/* ---- 3. delete --------------------------------------------------------------------------- */

static void
test_delete (void)
{
  LbMeasurementPoint a, b;
  double x, y;

  if (skip () || length == NULL)
    return;
  a = lb_measurement_get_point (length, 0);
  b = lb_measurement_get_point (length, 1);
  widget_point ((a.x + b.x) / 2, (a.y + b.y) / 2, &x, &y);
  click (x, y);
  g_assert_true (lb_measure_layer_get_selected (the_layer ()) == length);
  press_keys ("Delete");
  g_assert_cmpuint (lb_measurement_list_get_n (the_list ()), ==, 1);
  g_assert_null (lb_measure_layer_get_selected (the_layer ()));
  press_keys ("ctrl+z");
  g_assert_cmpuint (lb_measurement_list_get_n (the_list ()), ==, 2);
  g_assert_true (lb_measurement_list_get (the_list (), 1) == length);
}

/* ---- 4. the sidecar ---------------------------------------------------------------------- */

/* The screen, for people to look at: @name in the temporary folder. */
static void
screenshot (const char *name)
{
  g_autofree char *path = g_build_filename (g_get_tmp_dir (), name, NULL);
  const char *argv[] = { "import", "-window", "root", path, NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status;

  out = lb_test_run_tool (argv, &err, &status);
  if (status == 0)
    g_test_message ("screenshot: %s", path);
  else
    g_test_message ("no screenshot (ImageMagick's import): %s", err);
}

static void
test_sidecar (void)
{
  g_autofree char *sidecar = NULL, *csv_path = NULL, *csv = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  LbMeasurementPoint saved[2];
  LbMeasurementValues was, now;
  JsonArray *items;
  g_auto(GStrv) lines = NULL;

  if (skip () || ellipse == NULL)
    return;
  /* the view turned and zoomed does not change a value */
  g_assert_true (lb_measure_layer_compute (the_layer (), ellipse, &was));
  press_keys ("r h plus");
  lb_measure_layer_select (the_layer (), ellipse);
  lb_test_ui_drain (300);
  screenshot ("lightbox-measure-tools.png");
  g_assert_true (lb_measure_layer_compute (the_layer (), ellipse, &now));
  g_assert_cmpuint (now.stats.n_pixels, ==, was.stats.n_pixels);
  g_assert_cmpfloat (now.stats.mean, ==, was.stats.mean);

  saved[0] = lb_measurement_get_point (ellipse, 1);
  saved[1] = lb_measurement_get_point (length, 0);
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "measurements-save", NULL);
  g_assert_true (lb_test_wait (status_starts, (gpointer) "Measurements saved", 10000));
  sidecar = g_strconcat (image_path, LB_MEASUREMENT_SIDECAR_SUFFIX, NULL);
  g_assert_true (json_parser_load_from_file (parser, sidecar, &error));
  g_assert_no_error (error);
  items = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                        "measurements");
  g_assert_cmpuint (json_array_get_length (items), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (items, 0),
                                                  "tool"), ==, "ellipse");

  /* the CSV: a header and a line per measurement */
  csv_path = g_build_filename (dir, "list.csv", NULL);
  lb_window_test_export_measurements (the_window (), csv_path);
  g_assert_true (lb_test_wait (status_starts, (gpointer) "Measurements exported", 10000));
  g_assert_true (g_file_get_contents (csv_path, &csv, NULL, NULL));
  lines = g_strsplit (csv, "\r\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 4);  /* header, 2 rows, "" after the last */
  g_assert_true (g_str_has_prefix (lines[1], "iso.dcm,1,ellipse,"));

  /* opened again: the same measurements, the same values */
  ellipse = length = NULL;
  open_image ();
  g_assert_true (lb_test_wait (n_measurements, GUINT_TO_POINTER (2), 10000));
  ellipse = lb_measurement_list_get (the_list (), 0);
  length = lb_measurement_list_get (the_list (), 1);
  g_assert_cmpfloat (lb_measurement_get_point (ellipse, 1).x, ==, saved[0].x);
  g_assert_cmpfloat (lb_measurement_get_point (length, 0).y, ==, saved[1].y);
  g_assert_true (lb_measure_layer_compute (the_layer (), ellipse, &now));
  g_assert_cmpuint (now.stats.n_pixels, ==, was.stats.n_pixels);
  g_assert_cmpfloat (now.stats.mean, ==, was.stats.mean);
}

/* Another reader's sidecar written since the image opened: Save asks; Cancel leaves it,
 * Replace replaces it. */
static void
test_conflict (void)
{
  g_autofree char *sidecar = NULL;
  g_autoptr(GBytes) after = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  static const char theirs[] = "{\"format\": \"lightbox-measurements\", \"version\": 1, "
                               "\"image\": {}, \"measurements\": []}";

  if (skip () || ellipse == NULL)
    return;
  sidecar = g_strconcat (image_path, LB_MEASUREMENT_SIDECAR_SUFFIX, NULL);
  g_assert_true (g_file_set_contents (sidecar, theirs, -1, NULL));
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "measurements-save", NULL);
  g_assert_true (lb_test_wait (lb_test_has_dialog, the_window (), 10000));
  g_assert_nonnull (lb_test_find_text (GTK_WIDGET (lb_test_dialog_over (GTK_WINDOW (
                                         the_window ()))), LB_MEASUREMENT_SIDECAR_SUFFIX));
  lb_test_answer_dialog (GTK_WINDOW (the_window ()), "_Cancel");
  g_assert_true (lb_test_wait (status_starts, (gpointer) "The measurements were not saved",
                               10000));
  after = lb_test_read_file (sidecar);
  g_assert_cmpmem (g_bytes_get_data (after, NULL), g_bytes_get_size (after), theirs,
                   strlen (theirs));

  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "measurements-save", NULL);
  g_assert_true (lb_test_wait (lb_test_has_dialog, the_window (), 10000));
  lb_test_answer_dialog (GTK_WINDOW (the_window ()), "_Replace");
  g_assert_true (lb_test_wait (status_starts, (gpointer) "Measurements saved", 10000));
  g_assert_true (json_parser_load_from_file (parser, sidecar, NULL));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (
                      json_node_get_object (json_parser_get_root (parser)), "measurements")), ==,
                    2);
}

static void
test_malformed_sidecar (void)
{
  g_autofree char *sidecar = NULL;
  g_autoptr(GBytes) after = NULL;
  GtkWidget *dialog;
  static const char bad[] = "{\"format\": \"lightbox-measurements\", \"version\": 1, "
                            "\"image\": {}, \"measurements\": [{\"tool\": \"length\", "
                            "\"points\": [[1, 2], [\"x\", 4]]}]}";

  if (skip ())
    return;
  sidecar = g_strconcat (image_path, LB_MEASUREMENT_SIDECAR_SUFFIX, NULL);
  g_assert_true (g_file_set_contents (sidecar, bad, -1, NULL));
  open_image ();
  /* a dialog says so, with what is wrong and where; the status line too */
  g_assert_true (lb_test_wait (lb_test_has_dialog, the_window (), 10000));
  g_assert_true (status_starts ((gpointer) "Could not read the saved measurements"));
  dialog = GTK_WIDGET (lb_test_dialog_over (GTK_WINDOW (the_window ())));
  /* plain words first, the reader's exact reason under Details */
  gtk_expander_set_expanded (lb_test_find_expander (dialog), TRUE);
  g_assert_nonnull (lb_test_find_text (dialog, "point 2 is not a pair of numbers"));
  g_assert_nonnull (lb_test_find_text (dialog, LB_MEASUREMENT_SIDECAR_SUFFIX));
  gtk_window_close (GTK_WINDOW (dialog));
  lb_test_ui_drain (200);
  g_assert_nonnull (lb_canvas_get_image (the_canvas ()));
  g_assert_cmpuint (lb_measurement_list_get_n (the_list ()), ==, 0);
  /* a new measurement and Save: the unreadable file is not written over */
  press_keys ("p");
  click (gtk_widget_get_width (GTK_WIDGET (the_canvas ())) / 2.0,
         gtk_widget_get_height (GTK_WIDGET (the_canvas ())) / 2.0);
  g_assert_cmpuint (lb_measurement_list_get_n (the_list ()), ==, 1);
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "measurements-save", NULL);
  g_assert_true (lb_test_wait (lb_test_has_dialog, the_window (), 10000));
  g_assert_true (status_starts ((gpointer) "Could not save the measurements"));
  dialog = GTK_WIDGET (lb_test_dialog_over (GTK_WINDOW (the_window ())));
  gtk_expander_set_expanded (lb_test_find_expander (dialog), TRUE);
  g_assert_nonnull (lb_test_find_text (dialog, "the saved measurements could not be read, so "
                                       "they are not written over"));
  gtk_window_close (GTK_WINDOW (dialog));
  after = lb_test_read_file (sidecar);
  g_assert_cmpmem (g_bytes_get_data (after, NULL), g_bytes_get_size (after), bad,
                   strlen (bad));
}

/* ---- 5. a series: a measurement per slice, the panel, a sidecar per slice file ------------ */

static gboolean
frame_label_starts (gpointer data)
{
  GtkWidget *label = lb_window_test_get_child (the_window (), "frame_label");

  return the_window () != NULL && g_str_has_prefix (gtk_label_get_text (GTK_LABEL (label)), data)
         && !lb_window_is_busy (the_window ());
}

static char *
shown_uri (void)
{
  return g_strdup (lb_image_meta_get_source_uri (lb_image_get_meta (
                     lb_canvas_get_image (the_canvas ()))));
}

static void
draw_length_across (double dy)
{
  GtkWidget *canvas = GTK_WIDGET (the_canvas ());
  double cx = gtk_widget_get_width (canvas) / 2.0, cy = gtk_widget_get_height (canvas) / 2.0;

  drag (cx - 80, cy + dy, cx + 80, cy + dy + 30);
}

/* Two measurements, none of them @data: read again from the sidecars. */
static gboolean
reloaded (gpointer data)
{
  LbMeasurementList *list = the_list ();

  return lb_measurement_list_get_n (list) == 2 && !lb_measurement_list_find (list, data, NULL)
         && lb_measurement_list_get_frame (list, lb_measurement_list_get (list, 1)) > 0;
}

static gboolean
file_exists (gpointer data)
{
  return g_file_test (data, G_FILE_TEST_IS_REGULAR);
}

/* One measurement, not @data: read again from the sidecar. */
static gboolean
one_new (gpointer data)
{
  LbMeasurementList *list = the_list ();

  return lb_measurement_list_get_n (list) == 1 && !lb_measurement_list_find (list, data, NULL);
}

static void
test_series (void)
{
  const char *options[] = { "--slices", "4", "--orientations", "axial", "--multiframe", NULL };
  g_autoptr(JsonNode) manifest = NULL;
  g_autofree char *root = NULL, *folder = NULL, *uri1 = NULL, *uri2 = NULL, *side1 = NULL;
  g_autofree char *side2 = NULL, *side3 = NULL, *multiframe = NULL, *path1 = NULL;
  g_autofree char *path2 = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  LbMeasurement *m1, *m2;
  g_autoptr(LbMeasurement) old = NULL;
  LbMeasurementPoint p1;
  GtkWidget *rows;

  if (skip ())
    return;
  root = lb_test_make_phantom ("measure-series", options, &manifest);
  g_assert_nonnull (root);
  folder = g_build_filename (root, "axial", NULL);
  lb_test_app_open_path (app, folder);
  g_assert_true (lb_test_wait (frame_label_starts, (gpointer) "slice 1/4", 20000));
  lb_test_ui_drain (300);
  g_assert_cmpuint (lb_measurement_list_get_n (the_list ()), ==, 0);
  uri1 = shown_uri ();
  press_keys ("l");
  draw_length_across (0);
  g_assert_true (lb_test_wait (n_measurements, GUINT_TO_POINTER (1), 5000));
  m1 = lb_measurement_list_get (the_list (), 0);
  p1 = lb_measurement_get_point (m1, 0);

  /* the next slice: its own measurement, the first one is not drawn there */
  press_keys ("Down");
  g_assert_true (lb_test_wait (frame_label_starts, (gpointer) "slice 2/4", 10000));
  uri2 = shown_uri ();
  g_assert_cmpstr (uri1, !=, uri2);
  draw_length_across (60);
  g_assert_true (lb_test_wait (n_measurements, GUINT_TO_POINTER (2), 5000));
  m2 = lb_measurement_list_get (the_list (), 1);
  g_assert_cmpuint (lb_measurement_list_get_frame (the_list (), m1), ==, 1);
  g_assert_cmpuint (lb_measurement_list_get_frame (the_list (), m2), ==, 2);

  /* the panel lists both; a click on the first row goes back to its slice and selects it */
  rows = lb_test_find_widget (GTK_WIDGET (the_window ()), GTK_TYPE_LIST_BOX, "measure_list");
  g_assert_nonnull (rows);
  g_assert_nonnull (gtk_list_box_get_row_at_index (GTK_LIST_BOX (rows), 1));
  g_assert_null (gtk_list_box_get_row_at_index (GTK_LIST_BOX (rows), 2));
  g_assert_true (g_str_has_prefix (gtk_label_get_text (GTK_LABEL (gtk_list_box_row_get_child (
                   gtk_list_box_get_row_at_index (GTK_LIST_BOX (rows), 1)))), "Slice 2 · Length · "));
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "measurements", NULL);
  lb_test_ui_drain (400);
  screenshot ("lightbox-measure-panel.png");
  g_signal_emit_by_name (rows, "row-activated", gtk_list_box_get_row_at_index (GTK_LIST_BOX (rows),
                                                                              0));
  g_assert_true (lb_test_wait (frame_label_starts, (gpointer) "slice 1/4", 10000));
  lb_test_ui_drain (100);
  g_assert_true (lb_measure_layer_get_selected (the_layer ()) == m1);
  g_assert_false (gtk_widget_get_visible (gtk_widget_get_ancestor (rows, GTK_TYPE_POPOVER)));

  /* saved: a sidecar beside each slice measured, none beside the others */
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "measurements-save", NULL);
  g_assert_true (lb_test_wait (status_starts, (gpointer) "Measurements saved", 10000));
  path1 = g_filename_from_uri (uri1, NULL, NULL);
  path2 = g_filename_from_uri (uri2, NULL, NULL);
  g_assert_nonnull (path1);
  g_assert_nonnull (path2);
  side1 = g_strconcat (path1, LB_MEASUREMENT_SIDECAR_SUFFIX, NULL);
  side2 = g_strconcat (path2, LB_MEASUREMENT_SIDECAR_SUFFIX, NULL);
  g_assert_true (g_file_test (side1, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (side2, G_FILE_TEST_IS_REGULAR));
  {
    g_autoptr(GDir) d = g_dir_open (folder, 0, NULL);
    const char *name;
    guint sidecars = 0;

    while ((name = g_dir_read_name (d)) != NULL)
      sidecars += g_str_has_suffix (name, LB_MEASUREMENT_SIDECAR_SUFFIX);
    g_assert_cmpuint (sidecars, ==, 2);
  }

  /* the series opened again: each measurement on its slice */
  /* held, so no new measurement can take its address */
  old = g_object_ref (m1);
  lb_test_app_open_path (app, folder);
  g_assert_true (lb_test_wait (reloaded, old, 20000));
  g_assert_true (lb_test_wait (frame_label_starts, (gpointer) "slice 1/4", 10000));
  m1 = m2 = NULL;
  for (guint i = 0; i < 2; i++)
    {
      LbMeasurement *m = lb_measurement_list_get (the_list (), i);

      if (lb_measurement_list_get_frame (the_list (), m) == 1)
        m1 = m;
      else if (lb_measurement_list_get_frame (the_list (), m) == 2)
        m2 = m;
    }
  g_assert_nonnull (m1);
  g_assert_nonnull (m2);
  g_assert_cmpfloat (lb_measurement_get_point (m1, 0).x, ==, p1.x);
  g_assert_cmpfloat (lb_measurement_get_point (m1, 0).y, ==, p1.y);

  /* the same as one multi-frame object: one sidecar, which names the frame (from 0) */
  multiframe = g_build_filename (root, "multiframe.dcm", NULL);
  lb_test_app_open_path (app, multiframe);
  g_assert_true (lb_test_wait (frame_label_starts, (gpointer) "frame 1/4", 20000));
  lb_test_ui_drain (300);
  g_assert_cmpuint (lb_measurement_list_get_n (the_list ()), ==, 0);
  /* (the keys that step are dicom-reading's to test) */
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "next-frame", NULL);
  g_assert_true (lb_test_wait (frame_label_starts, (gpointer) "frame 2/4", 10000));
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "next-frame", NULL);
  g_assert_true (lb_test_wait (frame_label_starts, (gpointer) "frame 3/4", 10000));
  /* the length tool is still on from the series: its key again turns it off, and on */
  g_assert_true (lb_measure_layer_get_tool (the_layer (), NULL));
  press_keys ("l");
  g_assert_false (lb_measure_layer_get_tool (the_layer (), NULL));
  press_keys ("l");
  draw_length_across (0);
  g_assert_true (lb_test_wait (n_measurements, GUINT_TO_POINTER (1), 5000));
  g_assert_cmpuint (lb_measurement_list_get_frame (the_list (), lb_measurement_list_get (
                      the_list (), 0)), ==, 3);
  side3 = g_strconcat (multiframe, LB_MEASUREMENT_SIDECAR_SUFFIX, NULL);
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "measurements-save", NULL);
  g_assert_true (lb_test_wait (file_exists, side3, 10000));
  lb_test_ui_drain (200);
  g_assert_true (json_parser_load_from_file (parser, side3, NULL));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (
                     json_node_get_object (json_parser_get_root (parser)), "image"), "frame"), ==,
                   2);
  /* opened again, it is back on frame 3 */
  g_clear_object (&old);
  old = g_object_ref (lb_measurement_list_get (the_list (), 0));
  lb_test_app_open_path (app, multiframe);
  g_assert_true (lb_test_wait (one_new, old, 20000));
  g_assert_cmpuint (lb_measurement_list_get_frame (the_list (), lb_measurement_list_get (
                      the_list (), 0)), ==, 3);
  lb_test_remove_tree (root);
}

int
main (int argc, char **argv)
{
  g_autofree char *out = NULL;
  g_autoptr(JsonNode) root = NULL;
  int ret;

  gtk_test_init (&argc, &argv, NULL);
  app = lb_test_app_new ();
  if (app == NULL)
    return 0;
  dir = lb_test_make_tmpdir ("measure-tools");
  out = lb_test_run_reference ("measure", "measure-reference.py", dir);
  if (out != NULL)
    {
      root = json_from_string (out, NULL);
      g_assert_nonnull (root);
      phantom = lb_test_ui_json_case (json_node_get_array (root), "iso");
      image_path = g_strdup (json_object_get_string_member (phantom, "file"));
    }

  g_test_add_func ("/measure/tools/draw", test_draw);
  g_test_add_func ("/measure/tools/other-tools", test_other_tools);
  g_test_add_func ("/measure/tools/edit-undo", test_edit_undo);
  g_test_add_func ("/measure/tools/delete", test_delete);
  g_test_add_func ("/measure/tools/sidecar", test_sidecar);
  g_test_add_func ("/measure/tools/conflict", test_conflict);
  g_test_add_func ("/measure/tools/malformed-sidecar", test_malformed_sidecar);
  g_test_add_func ("/measure/tools/series", test_series);
  ret = g_test_run ();
  lb_test_app_free (app);
  lb_test_remove_tree (dir);
  g_free (dir);
  g_free (image_path);
  return ret;
}
