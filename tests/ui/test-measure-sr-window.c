/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Measurements of an image on a DICOMweb server saved from the window as DICOM SR (TID 1500)
 * and read back by a fresh window, on a real Orthanc (tests/dicomweb/orthanc-run.sh) holding
 * the CT phantom of tests/measure/measure-reference.py (pydicom):
 *
 * - an ellipse over the disc and a length between two markers, then Save Measurements: the
 *   status names the new report; pydicom reads the one SR Orthanc then holds (WADO-RS through
 *   curl, tests/measure/sr-check.py) and finds SCOORDs equal to the drawn points, on the image;
 * - a new window on the same store opens the same image: the same measurements on it, with
 *   the same values (area, mean, SD, min, max, length);
 * - one of them moved there and saved: a second SR series, and the first report's bytes are
 *   as they were.
 *
 * - a report pydicom wrote with a broken SCOORD joins the study: a third window opens the image
 *   all the same, says the report could not be read, and shows the other reports' measurements.
 *
 * - on a series (tests/dicom/make-phantom.py, 4 slices), a length on slices 2 and 4: the report
 *   references the instance each slice shows, and a new window puts each back on its slice.
 * - a window on another series of that study (the phantom's sagittal one) lists those two
 *   lengths in its measurements panel, named by the axial series' number and description;
 *   clicking the second opens the axial series there, on slice 4, with that length selected;
 *   the CSV export has both, each with its series.
 * - two viewports, the axial series in the first and the sagittal one in the second (active):
 *   the panel lists the first viewport's two lengths once (not again from the reports) with
 *   series and slice; clicking the second makes the first viewport active on slice 4 with
 *   that length selected.
 *
 * A screenshot of the second window with the measurements it read is written for people. */
#include <gtk/gtk.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "lb-measure-layer.h"
#include "lb-test-files.h"
#include "lb-test-loop.h"
#include "lb-test-process.h"
#include "lb-test-ui.h"
#include "lb-window-test.h"
#include "lb-window.h"

static LbApplication *app;
static char *dir;             /* scratch: the phantom and the drawn points */
static JsonObject *phantom;   /* measure-reference.py's "iso" case */
static char *dicomweb_url;    /* http://127.0.0.1:PORT/dicom-web */
static char *store_uri;       /* dicomweb+…/ */
static char *image_uri;       /* the phantom's instance in the store */
static char *study, *series, *sop;
static LbWindow *first, *second;

/* ---- the window -------------------------------------------------------------------------- */

static LbWindow *
open_window (void)
{
  LbWindow *win = lb_window_new (app);

  gtk_window_present (GTK_WINDOW (win));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (win));
  lb_test_ui_open_store_image (win, store_uri, image_uri);
  return win;
}

typedef struct {
  LbWindow *win;
  guint     n;
} Count;

static gboolean
has_n (gpointer data)
{
  const Count *c = data;

  return lb_measurement_list_get_n (lb_window_get_measurements (c->win)) == c->n;
}

#define SAVED "Measurements saved as a new report: "

static gboolean
saved (gpointer win)
{
  const char *status = lb_window_test_get_last_status (win);

  return status != NULL && g_str_has_prefix (status, SAVED)
         && g_action_group_get_action_enabled (G_ACTION_GROUP (win), "measurements-save");
}

/* Activates Save Measurements on @win (which saved nothing before) and waits for the status
 * it ends with, which names the new report in @study_uid. */
static void
save (LbWindow *win, const char *study_uid)
{
  const char *status;

  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (win), "measurements-save"));
  g_assert_false (saved (win));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "win.measurements-save", NULL));
  if (!lb_test_wait (saved, win, 30000))
    g_error ("not saved; status: %s", lb_window_test_get_last_status (win));
  status = lb_window_test_get_last_status (win);
  g_test_message ("status: %s", status);
  /* it names where: the report's instance in the image's study */
  g_assert_nonnull (strstr (status, study_uid));
}

/* A value on a quarter pixel: single precision keeps it exactly, so a report's FL points are
 * the drawn ones. */
static double
quarter (double v)
{
  return round (v * 4) / 4;
}

/* ---- the independent side ---------------------------------------------------------------- */

/* The SR instances of @study_uid as pydicom reads them from Orthanc (sr-check.py reports),
 * checked against @measurements on the image, or with @sops (NULL-ended), each on its own. */
static JsonArray *
reports_of (const char *study_uid, LbMeasurementList *measurements, const char *const *sops)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) query = NULL, root = NULL;
  g_autofree char *text = NULL, *out = NULL, *err = NULL;
  g_autofree char *drawn = g_build_filename (dir, "drawn.json", NULL);
  g_autofree char *script = g_build_filename (g_getenv ("LB_SOURCE_ROOT"), "tests", "measure",
                                              "sr-check.py", NULL);
  const char *argv[] = { "/usr/bin/python3", script, "reports", dicomweb_url, study_uid, drawn,
                         NULL };
  g_autoptr(GPtrArray) drawn_list = g_ptr_array_new ();
  int status;

  for (guint i = 0; i < lb_measurement_list_get_n (measurements); i++)
    g_ptr_array_add (drawn_list, lb_measurement_list_get (measurements, i));
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "sop");
  json_builder_add_string_value (b, sop);
  if (sops != NULL)
    {
      json_builder_set_member_name (b, "sops");
      json_builder_begin_array (b);
      for (guint i = 0; sops[i] != NULL; i++)
        json_builder_add_string_value (b, sops[i]);
      json_builder_end_array (b);
    }
  json_builder_set_member_name (b, "measurements");
  lb_test_ui_json_measurements (b, (LbMeasurement *const *) drawn_list->pdata, drawn_list->len);
  json_builder_end_object (b);
  query = json_builder_get_root (b);
  text = json_to_string (query, FALSE);
  g_assert_true (g_file_set_contents (drawn, text, -1, NULL));
  out = lb_test_run_tool (argv, &err, &status);
  if (status != 0)
    g_error ("sr-check.py reports: %s", err);
  root = json_from_string (out, NULL);
  g_assert_nonnull (root);
  g_test_message ("reports: %s", out);
  return json_array_ref (json_node_get_array (root));
}

static JsonArray *
reports (LbMeasurementList *measurements)
{
  return reports_of (study, measurements, NULL);
}

/* ---- the cases --------------------------------------------------------------------------- */

static LbMeasurementValues drawn_values[2];
static char *first_md5;

static void
test_save (void)
{
  LbMeasurementList *list;
  LbMeasureLayer *layer;
  JsonObject *disc = json_object_get_object_member (phantom, "disc");
  JsonArray *centre = json_object_get_array_member (disc, "centre_px");
  JsonArray *radius = json_object_get_array_member (disc, "radius_px");
  JsonObject *markers = json_object_get_object_member (phantom, "markers");
  JsonArray *a = json_object_get_array_member (markers, "3001");
  JsonArray *b = json_object_get_array_member (markers, "3002");
  double cx = json_array_get_double_element (centre, 0), cy = json_array_get_double_element (centre, 1);
  double rx = json_array_get_double_element (radius, 0), ry = json_array_get_double_element (radius, 1);
  LbMeasurementPoint box[2] = {
    { quarter (cx - rx), quarter (cy - ry) }, { quarter (cx + rx), quarter (cy + ry) },
  };
  LbMeasurementPoint line[2] = {
    { json_array_get_int_element (a, 0) + 0.5, json_array_get_int_element (a, 1) + 0.5 },
    { json_array_get_int_element (b, 0) + 0.5, json_array_get_int_element (b, 1) + 0.5 },
  };
  g_autoptr(LbMeasurement) ellipse = lb_measurement_new_with_points (LB_MEASUREMENT_ELLIPSE, box,
                                                                     2, NULL);
  g_autoptr(LbMeasurement) length = lb_measurement_new_with_points (LB_MEASUREMENT_LENGTH, line,
                                                                    2, NULL);
  g_autoptr(JsonArray) found = NULL;
  JsonObject *r;

  first = open_window ();
  list = lb_window_get_measurements (first);
  layer = lb_window_test_get_measure_layer (first);
  /* the study has no report yet: nothing to show, nothing to save */
  lb_test_ui_drain (500);
  g_assert_cmpuint (lb_measurement_list_get_n (list), ==, 0);
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (first), "measurements-save"));

  lb_measurement_list_append (list, ellipse, 1);
  lb_measurement_list_append (list, length, 1);
  g_assert_true (lb_measure_layer_compute (layer, ellipse, &drawn_values[0]));
  g_assert_true (lb_measure_layer_compute (layer, length, &drawn_values[1]));
  g_assert_true (drawn_values[0].has_stats);
  /* the disc: 20 mm of radius */
  g_assert_cmpfloat (fabs (drawn_values[0].area - G_PI * 20 * 20) / (G_PI * 20 * 20), <, 0.01);
  save (first, study);

  found = reports (list);
  g_assert_cmpuint (json_array_get_length (found), ==, 1);
  r = json_array_get_object_element (found, 0);
  g_assert_true (json_object_get_boolean_member (r, "matches"));
  first_md5 = g_strdup (json_object_get_string_member (r, "md5"));
  /* it is the study's new series: not the image's */
  g_assert_cmpstr (json_object_get_string_member (r, "series"), !=,
                   series);
}

static gboolean
values_equal (const LbMeasurementValues *x, const LbMeasurementValues *y)
{
  return x->length == y->length && x->area == y->area && x->has_stats == y->has_stats
         && (!x->has_stats
             || (x->stats.n_pixels == y->stats.n_pixels && x->stats.mean == y->stats.mean
                 && x->stats.sd == y->stats.sd && x->stats.min == y->stats.min
                 && x->stats.max == y->stats.max));
}

static void
test_reopen (void)
{
  Count two;
  LbMeasurementList *list;
  LbMeasureLayer *layer;
  LbMeasurement *m;
  LbMeasurementPoint p;
  g_autoptr(JsonArray) found = NULL;

  g_assert_nonnull (first_md5);
  second = open_window ();
  two.win = second;
  two.n = 2;
  g_assert_true (lb_test_wait (has_n, &two, 30000));
  list = lb_window_get_measurements (second);
  layer = lb_window_test_get_measure_layer (second);
  for (guint i = 0; i < 2; i++)
    {
      LbMeasurementValues v;

      m = lb_measurement_list_get (list, i);
      g_assert_cmpuint (lb_measurement_list_get_frame (list, m), ==, 1);
      g_assert_true (lb_measure_layer_compute (layer, m, &v));
      g_test_message ("%s: length %.6f mm, area %.6f mm², mean %.6f",
                      lb_measurement_tool_to_string (lb_measurement_get_tool (m)), v.length,
                      v.area, v.stats.mean);
      g_assert_true (values_equal (&v, &drawn_values[i]));
    }
  g_assert_cmpint (lb_measurement_get_tool (lb_measurement_list_get (list, 0)), ==,
                   LB_MEASUREMENT_ELLIPSE);
  g_assert_cmpint (lb_measurement_get_tool (lb_measurement_list_get (list, 1)), ==,
                   LB_MEASUREMENT_LENGTH);

  /* moved and saved: a new report; the first stays as it was */
  m = lb_measurement_list_get (list, 1);
  p = lb_measurement_get_point (m, 1);
  lb_measurement_set_point (m, 1, p.x + 3, p.y + 2);
  lb_measurement_list_changed (list, m);
  save (second, study);
  found = reports (list);
  g_assert_cmpuint (json_array_get_length (found), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (found, 0), "md5"),
                   ==, first_md5);
  g_assert_false (json_object_get_boolean_member (json_array_get_object_element (found, 0),
                                                  "matches"));
  g_assert_true (json_object_get_boolean_member (json_array_get_object_element (found, 1),
                                                 "matches"));
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (found, 0),
                                                  "series"), !=,
                   json_object_get_string_member (json_array_get_object_element (found, 1),
                                                  "series"));
}

static void
test_screenshot (void)
{
  g_autoptr(GdkTexture) tex = NULL;
  g_autofree char *path = g_build_filename (g_getenv ("LB_BUILD_ROOT"), "ui-measure-sr.png",
                                            NULL);

  g_assert_nonnull (second);
  gtk_window_present (GTK_WINDOW (second));
  lb_test_ui_drain (300);
  tex = lb_test_ui_render (GTK_WIDGET (second));
  g_assert_nonnull (tex);
  g_assert_true (gdk_texture_save_to_png (tex, path));
  g_test_message ("screenshot: %s", path);
}

/* ---- a series ------------------------------------------------------------------------------ */

#define SLICES 4

static char *series_uri, *series_study, *other_series_uri;
static char *sop4;  /* the instance slice 4 of the axial series shows */
static const LbMeasurementPoint p2[2] = { { 3.5, 4.5 }, { 20.25, 9.5 } };
static const LbMeasurementPoint p4[2] = { { 10.5, 25.5 }, { 28.75, 2.5 } };

static gboolean
series_loaded (gpointer win)
{
  LbSeriesLoader *loader = lb_window_test_get_series_loader (win);

  return loader != NULL && lb_series_loader_get_n_loaded (loader) == SLICES
         && lb_series_loader_is_idle (loader) && !lb_window_is_busy (win);
}

static LbWindow *
open_series_window_at (const char *uri)
{
  LbWindow *win = lb_window_new (app);

  gtk_window_present (GTK_WINDOW (win));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (win));
  lb_window_open_store (win, store_uri);
  g_assert_true (lb_test_wait (lb_test_ui_tree_listed, win, 30000));
  lb_window_test_open_series (win, uri);
  g_assert_true (lb_test_wait (series_loaded, win, 30000));
  return win;
}

static LbWindow *
open_series_window (void)
{
  return open_series_window_at (series_uri);
}

/* The SOP Instance UID of the slice @frame shows (from 1): the window steps to it. */
static char *
instance_of_frame (LbWindow *win, guint frame)
{
  LbHistory *h;
  const char *uri, *p;

  gtk_widget_activate_action (GTK_WIDGET (win), "win.go-to-frame", "u", frame);
  lb_test_ui_drain (300);
  g_assert_true (lb_test_wait (lb_test_ui_not_busy, win, 30000));
  h = lb_window_test_get_history (win);
  uri = lb_image_meta_get_source_uri (lb_image_get_meta (lb_history_get_original (h)));
  p = strstr (uri, "/instances/");
  g_assert_nonnull (p);
  p += strlen ("/instances/");
  return g_strndup (p, strcspn (p, "/"));
}

/* A length on slices 2 and 4 of a series: the report references each slice's own instance,
 * and a new window on the series puts each back on its slice. */
static void
test_series (void)
{
  LbWindow *a, *b;
  g_autoptr(LbMeasurement) on2 = lb_measurement_new_with_points (LB_MEASUREMENT_LENGTH, p2, 2,
                                                                 NULL);
  g_autoptr(LbMeasurement) on4 = lb_measurement_new_with_points (LB_MEASUREMENT_LENGTH, p4, 2,
                                                                 NULL);
  g_autofree char *sop2 = NULL;
  const char *sops[3];
  g_autoptr(JsonArray) found = NULL;
  LbMeasurementList *list;
  Count two;

  a = open_series_window ();
  sop2 = instance_of_frame (a, 2);
  sop4 = instance_of_frame (a, 4);
  g_assert_cmpstr (sop2, !=, sop4);
  list = lb_window_get_measurements (a);
  lb_measurement_list_append (list, on2, 2);
  lb_measurement_list_append (list, on4, 4);
  save (a, series_study);
  sops[0] = sop2;
  sops[1] = sop4;
  sops[2] = NULL;
  found = reports_of (series_study, list, sops);
  g_assert_cmpuint (json_array_get_length (found), ==, 1);
  g_assert_true (json_object_get_boolean_member (json_array_get_object_element (found, 0),
                                                 "matches"));

  b = open_series_window ();
  two.win = b;
  two.n = 2;
  g_assert_true (lb_test_wait (has_n, &two, 30000));
  list = lb_window_get_measurements (b);
  for (guint i = 0; i < 2; i++)
    {
      LbMeasurement *m = lb_measurement_list_get (list, i);
      const LbMeasurementPoint *want = i == 0 ? p2 : p4;

      g_assert_cmpuint (lb_measurement_list_get_frame (list, m), ==, i == 0 ? 2 : 4);
      for (guint k = 0; k < 2; k++)
        {
          g_assert_cmpfloat (lb_measurement_get_point (m, k).x, ==, want[k].x);
          g_assert_cmpfloat (lb_measurement_get_point (m, k).y, ==, want[k].y);
        }
    }
  gtk_window_destroy (GTK_WINDOW (a));
  gtk_window_destroy (GTK_WINDOW (b));
}

/* The rows of @win's measurements panel that name the axial series. */
static guint
axial_rows (LbWindow *win, GtkListBoxRow **last)
{
  GtkListBox *box = lb_window_test_get_measurements_rows (win);
  guint n = 0;

  for (GtkListBoxRow *row; (row = gtk_list_box_get_row_at_index (box, n)) != NULL; n++)
    {
      const char *text = gtk_label_get_text (GTK_LABEL (gtk_list_box_row_get_child (row)));

      /* lb_dicomweb_label_series(): modality, #SeriesNumber, SeriesDescription */
      if (!g_str_has_prefix (text, "CT #1 Phantom axial 2.5 mm · Length · "))
        return 0;
      if (last != NULL)
        *last = row;
    }
  return n;
}

static gboolean
two_axial_rows (gpointer win)
{
  return axial_rows (win, NULL) == 2;
}

static gboolean
on_axial_with_selection (gpointer win)
{
  LbMeasureLayer *layer = lb_window_test_get_measure_layer (win);
  LbSeriesLoader *loader = lb_window_test_get_series_loader (win);

  return loader != NULL && lb_series_loader_is_idle (loader) && !lb_window_is_busy (win)
         && lb_measure_layer_get_selected (layer) != NULL;
}

static gboolean
exported (gpointer win)
{
  return g_strcmp0 (lb_window_test_get_last_status (win), "Measurements exported") == 0;
}

/* A row was clicked: @win shows the axial series' slice 4 with the length drawn there
 * selected. */
static void
assert_on_length4 (LbWindow *win)
{
  LbMeasurement *sel;
  LbHistory *h;
  const char *uri;
  g_autofree char *want = NULL;

  g_assert_true (lb_test_wait (on_axial_with_selection, win, 30000));
  lb_test_ui_drain (300);
  sel = lb_measure_layer_get_selected (lb_window_test_get_measure_layer (win));
  for (guint k = 0; k < 2; k++)
    {
      g_assert_cmpfloat (lb_measurement_get_point (sel, k).x, ==, p4[k].x);
      g_assert_cmpfloat (lb_measurement_get_point (sel, k).y, ==, p4[k].y);
    }
  /* the slice shown is the instance the length was drawn on, of the axial series */
  h = lb_window_test_get_history (win);
  uri = lb_image_meta_get_source_uri (lb_image_get_meta (lb_history_get_original (h)));
  want = g_strconcat (series_uri, "instances/", sop4, NULL);
  g_assert_true (g_str_has_prefix (uri, want));
}

/* The screen, for people: the panel is a popover, a surface of its own, which a render of
 * the window leaves out. */
static void
screen_shot (const char *name)
{
  g_autofree char *shot = g_build_filename (g_getenv ("LB_BUILD_ROOT"), name, NULL);
  const char *import_argv[] = { "/usr/bin/import", "-window", "root", shot, NULL };
  g_autofree char *err = NULL;
  int status;

  g_free (lb_test_run_tool (import_argv, &err, &status));
}

/* Another series of the study lists the axial series' lengths; a click opens it there. */
static void
test_other_series (void)
{
  LbWindow *c;
  GtkListBoxRow *last = NULL;
  g_autofree char *csv_path = NULL, *csv = NULL;
  g_auto(GStrv) lines = NULL;

  g_assert_nonnull (sop4);  /* test_series saved them */
  c = open_series_window_at (other_series_uri);
  g_assert_true (lb_test_wait (two_axial_rows, c, 30000));
  g_assert_cmpuint (lb_measurement_list_get_n (lb_window_get_measurements (c)), ==, 0);
  gtk_widget_activate_action (GTK_WIDGET (c), "win.measurements", NULL);
  lb_test_ui_drain (300);
  screen_shot ("ui-measure-sr-other-series.png");
  /* the export holds the whole list, each row with its series */
  csv_path = g_build_filename (dir, "other-series.csv", NULL);
  lb_window_test_export_measurements (c, csv_path);
  g_assert_true (lb_test_wait (exported, c, 10000));
  g_assert_true (g_file_get_contents (csv_path, &csv, NULL, NULL));
  lines = g_strsplit (csv, "\r\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 4);  /* header, 2 rows, "" after the last */
  g_assert_true (g_str_has_suffix (lines[0], ",points,series"));
  for (guint i = 1; i <= 2; i++)
    {
      g_assert_true (g_str_has_prefix (lines[i], i == 2 ? sop4 : ""));
      g_assert_true (g_str_has_suffix (lines[i], ",CT #1 Phantom axial 2.5 mm"));
    }
  axial_rows (c, &last);
  g_signal_emit_by_name (lb_window_test_get_measurements_rows (c), "row-activated", last);
  assert_on_length4 (c);
  gtk_window_destroy (GTK_WINDOW (c));
}

static gboolean
status_says_unreadable (gpointer win)
{
  const char *status = lb_window_test_get_last_status (win);

  return status != NULL
         && g_str_has_prefix (status, "Could not read a measurement report of the study");
}

static void
test_unreadable (void)
{
  g_autofree char *bad = g_build_filename (dir, "malformed.dcm", NULL);
  g_autofree char *script = g_build_filename (g_getenv ("LB_SOURCE_ROOT"), "tests", "measure",
                                              "sr-check.py", NULL);
  const char *argv[] = { "/usr/bin/python3", script, "malformed", bad,
                         json_object_get_string_member (phantom, "file"), NULL };
  g_autofree char *out = NULL, *err = NULL;
  LbWindow *third;
  Count four;
  int status;

  out = lb_test_run_tool (argv, &err, &status);
  if (status != 0)
    g_error ("sr-check.py malformed: %s", err);
  lb_test_ui_orthanc_upload (bad);
  third = open_window ();
  g_assert_true (lb_test_wait (status_says_unreadable, third, 30000));
  g_test_message ("status: %s", lb_window_test_get_last_status (third));
  /* the two reports saved above: two measurements each */
  four.win = third;
  four.n = 4;
  g_assert_true (lb_test_wait (has_n, &four, 30000));
  gtk_window_destroy (GTK_WINDOW (third));
}

/* Uploads the phantom's series @name (a folder of @series_dir) to Orthanc; its URI in the
 * store, and its study's UID. */
static char *
upload_series (const char *series_dir, const char *name, const char *script, char **study_uid)
{
  g_autofree char *folder = g_build_filename (series_dir, name, NULL);
  g_autoptr(GDir) d = g_dir_open (folder, 0, NULL);
  g_autofree char *one = NULL, *out = NULL, *err = NULL;
  g_auto(GStrv) uids = NULL;
  const char *file;
  int status;

  g_assert_nonnull (d);
  while ((file = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (folder, file, NULL);

      lb_test_ui_orthanc_upload (path);
      if (one == NULL)
        one = g_steal_pointer (&path);
    }
  g_assert_nonnull (one);
  {
    const char *uid_argv[] = { "/usr/bin/python3", script, "uids", one, NULL };

    out = lb_test_run_tool (uid_argv, &err, &status);
    g_assert_cmpint (status, ==, 0);
  }
  uids = g_strsplit (g_strstrip (out), " ", 3);
  if (study_uid != NULL)
    *study_uid = g_strdup (uids[0]);
  return g_strdup_printf ("%sstudies/%s/series/%s/", store_uri, uids[0], uids[1]);
}

/* The panel's rows are the first viewport's two axial lengths, on slices 2 and 4, once. */
static gboolean
viewport_rows (gpointer win)
{
  GtkListBox *box = lb_window_test_get_measurements_rows (win);
  GtkListBoxRow *row;
  guint n = 0;

  for (; (row = gtk_list_box_get_row_at_index (box, n)) != NULL; n++)
    {
      const char *text = gtk_label_get_text (GTK_LABEL (gtk_list_box_row_get_child (row)));
      g_autofree char *want = g_strdup_printf ("CT #1 Phantom axial 2.5 mm · Slice %u · "
                                               "Length · ", n == 0 ? 2 : 4);

      if (!g_str_has_prefix (text, want))
        return FALSE;
    }
  return n == 2;
}

static void
test_viewports (void)
{
  LbWindow *w = lb_window_new (app);
  GtkListBox *box;
  Count two;

  g_assert_nonnull (sop4);  /* test_series saved them */
  gtk_window_present (GTK_WINDOW (w));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (w));
  g_action_group_change_action_state (G_ACTION_GROUP (w), "layout", g_variant_new_string ("1x2"));
  lb_window_open_store (w, store_uri);
  g_assert_true (lb_test_wait (lb_test_ui_tree_listed, w, 30000));
  lb_window_test_open_series (w, series_uri);
  g_assert_true (lb_test_wait (series_loaded, w, 30000));
  two.win = w;
  two.n = 2;
  g_assert_true (lb_test_wait (has_n, &two, 30000));
  gtk_widget_activate_action (GTK_WIDGET (w), "win.next-viewport", NULL);
  lb_window_test_open_series (w, other_series_uri);
  g_assert_true (lb_test_wait (series_loaded, w, 30000));
  g_assert_cmpuint (lb_measurement_list_get_n (lb_window_get_measurements (w)), ==, 0);
  g_assert_true (lb_test_wait (viewport_rows, w, 30000));
  /* the reports' copies of them come with the study listing: still listed once */
  lb_test_ui_drain (1000);
  g_assert_true (viewport_rows (w));

  gtk_widget_activate_action (GTK_WIDGET (w), "win.measurements", NULL);
  lb_test_ui_drain (300);
  screen_shot ("ui-measure-sr-viewports.png");
  box = lb_window_test_get_measurements_rows (w);
  g_signal_emit_by_name (box, "row-activated", gtk_list_box_get_row_at_index (box, 1));
  assert_on_length4 (w);
  g_assert_cmpuint (lb_measurement_list_get_n (lb_window_get_measurements (w)), ==, 2);
  gtk_window_destroy (GTK_WINDOW (w));
}

int
main (int argc, char **argv)
{
  g_autofree char *out = NULL, *uids = NULL, *err = NULL, *script = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_auto(GStrv) parts = NULL;
  const char *file = NULL;
  int status, ret;

  if (!lb_test_ui_init (&argc, &argv))
    return 0;
  if (lb_test_ui_dicomweb_url () == NULL)
    return 0;
  dicomweb_url = g_strdup (g_getenv ("LB_DICOMWEB_URL"));
  dir = lb_test_make_tmpdir ("measure-sr-window");
  out = lb_test_run_reference ("measure", "measure-reference.py", dir);
  if (out == NULL)
    {
      lb_test_remove_tree (dir);
      g_print ("1..0 # SKIP pydicom or numpy missing\n");
      return 0;
    }
  root = json_from_string (out, NULL);
  g_assert_nonnull (root);
  phantom = lb_test_ui_json_case (json_node_get_array (root), "iso");
  file = json_object_get_string_member (phantom, "file");
  lb_test_ui_orthanc_upload (file);
  script = g_build_filename (g_getenv ("LB_SOURCE_ROOT"), "tests", "measure", "sr-check.py",
                             NULL);
  {
    const char *uid_argv[] = { "/usr/bin/python3", script, "uids", file, NULL };

    uids = lb_test_run_tool (uid_argv, &err, &status);
    if (status != 0)
      g_error ("sr-check.py uids: %s", err);
  }
  parts = g_strsplit (g_strstrip (uids), " ", 3);
  g_assert_cmpuint (g_strv_length (parts), ==, 3);
  study = g_strdup (parts[0]);
  series = g_strdup (parts[1]);
  sop = g_strdup (parts[2]);
  store_uri = g_strconcat ("dicomweb+", dicomweb_url, "/", NULL);
  image_uri = g_strdup_printf ("%sstudies/%s/series/%s/instances/%s", store_uri, parts[0],
                               parts[1], parts[2]);

  {
    g_autofree char *series_dir = g_build_filename (dir, "series", NULL);
    g_autofree char *maker = g_build_filename (g_getenv ("LB_SOURCE_ROOT"), "tests", "dicom",
                                               "make-phantom.py", NULL);
    const char *make_argv[] = { "/usr/bin/python3", maker, series_dir, "--slices", "4", "--size",
                                "32", "--orientations", "axial,sagittal", NULL };
    g_autofree char *serr = NULL;

    g_free (lb_test_run_tool (make_argv, &serr, &status));
    if (status != 0)
      g_error ("make-phantom.py: %s", serr);
    /* two series of one study: the axial one measured, the sagittal one the other */
    series_uri = upload_series (series_dir, "axial", script, &series_study);
    other_series_uri = upload_series (series_dir, "sagittal", script, NULL);
  }

  app = lb_test_ui_app_new ();
  g_test_add_func ("/measure-sr-window/save", test_save);
  g_test_add_func ("/measure-sr-window/reopen", test_reopen);
  g_test_add_func ("/measure-sr-window/screenshot", test_screenshot);
  g_test_add_func ("/measure-sr-window/unreadable", test_unreadable);
  g_test_add_func ("/measure-sr-window/series", test_series);
  g_test_add_func ("/measure-sr-window/other-series", test_other_series);
  g_test_add_func ("/measure-sr-window/viewports", test_viewports);
  ret = g_test_run ();
  if (first != NULL)
    gtk_window_destroy (GTK_WINDOW (first));
  if (second != NULL && second != first)
    gtk_window_destroy (GTK_WINDOW (second));
  lb_test_ui_drain (50);
  g_clear_object (&app);
  lb_test_remove_tree (dir);
  return ret;
}
