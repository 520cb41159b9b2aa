/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The workstation opens local DICOM as `lightbox FILE` does (GApplication::open): a .dcm file
 * (uncompressed, JPEG 2000, RLE colour) shows the pixels and the value model the Part 10 reader
 * decodes (which dicom-pixels and dicom-codec check against pydicom), a DICOMDIR opens its
 * file-set as a store whose tree starts with the DICOMDIR's patients, and a bad file brings the
 * error dialog that names the reason. A multi-frame file opens on frame 1 of N, its frames step
 * through the window's actions (Page Up/Down on the canvas) and play as cine, each showing the
 * values pydicom gives that frame (make-variants.py) under the window/level and zoom the reader
 * set. A folder of one series (make-phantom.py, shuffled) opens as a stack that pages in the
 * order along the slice normal, each slice showing its own centre value 2000 + k, under the
 * window/level set on the first; the overlay's orientation markers are the letters of the
 * manifest's direction cosines, and follow a rotation. Widgets are found by type, and the
 * frame label and overlay labels through lb-window-test.h. Stepping or playing away from a
 * frame whose history holds filter results asks first: Keep stays with them, Discard steps to
 * the next frame with a history of its own. */
#include <gtk/gtk.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "lb-application.h"
#include "lb-canvas.h"
#include "lb-dicom-file.h"
#include "lb-dicom-tags.h"
#include "lb-store-browser.h"
#include "lb-test-app.h"
#include "lb-test-dialogs.h"
#include "lb-test-dicom.h"
#include "lb-test-files.h"
#include "lb-test-loop.h"
#include "lb-test-process.h"
#include "lb-window-test.h"
#include "lb-window.h"

static LbApplication *app;

static GtkWidget *
find_widget (GtkWidget *root, GType type)
{
  return lb_test_find_widget (root, type, NULL);
}

static LbWindow *
the_window (void)
{
  return lb_test_app_window (app);
}

static void
open_path (const char *path)
{
  lb_test_app_open_path (app, path);
}

static gboolean
image_shown (gpointer data)
{
  LbWindow *w = the_window ();
  LbCanvas *canvas;

  if (w == NULL || lb_window_is_busy (w))
    return FALSE;
  canvas = LB_CANVAS (find_widget (GTK_WIDGET (w), LB_TYPE_CANVAS));
  return canvas != NULL && lb_canvas_get_image (canvas) != NULL
         && g_str_has_suffix (lb_image_meta_get_source_uri (lb_image_get_meta (
                                lb_canvas_get_image (canvas))), data);
}

/* @data: a file of tests/data/dicom: big endian, a lossy JPEG 2000 CT, an RLE colour image */
static void
test_open_file (gconstpointer data)
{
  const char *name = data;
  g_autofree char *path = g_build_filename (g_getenv ("LB_TEST_DATA"), "dicom", name, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbDicomFile) file = NULL;
  g_autoptr(LbImage) want = NULL;
  LbCanvas *canvas;
  LbImage *shown;

  open_path (path);
  g_assert_true (lb_test_wait (image_shown, (gpointer) name, 20000));
  canvas = LB_CANVAS (find_widget (GTK_WIDGET (the_window ()), LB_TYPE_CANVAS));
  shown = lb_canvas_get_image (canvas);
  file = lb_dicom_file_new_for_path (path, LB_DICOM_READ_DEFAULT, NULL, &error);
  g_assert_no_error (error);
  want = lb_dicom_file_decode_frame (file, 0, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (lb_image_equal_pixels (shown, want));
  g_assert_cmpstr (lb_image_meta_get_text (lb_image_get_meta (shown), "Modality"), ==,
                   lb_dicom_dataset_get_string (lb_dicom_file_get_dataset (file),
                                                LB_TAG_MODALITY, 0));
  /* the value model reaches the canvas as the reader made it (lossy flag included) */
  if (lb_image_meta_get_value_model (lb_image_get_meta (want)) != NULL)
    g_assert_true (lb_value_model_equal (
      lb_image_meta_get_value_model (lb_image_get_meta (shown)),
      lb_image_meta_get_value_model (lb_image_get_meta (want))));
}

static gboolean
has_error_dialog (gpointer data)
{
  return the_window () != NULL && lb_test_dialog_over (GTK_WINDOW (the_window ())) != NULL;
}

static void
test_open_bad_file (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("LB_TEST_DATA"), "dicom",
                                            "MR_truncated.dcm", NULL);
  GtkWindow *dialog;
  const char *detail;

  open_path (path);
  g_assert_true (lb_test_wait (has_error_dialog, NULL, 20000));
  dialog = lb_test_dialog_over (GTK_WINDOW (the_window ()));
  /* plain words first, the reader's exact reason under Details */
  g_assert_nonnull (lb_test_find_text (GTK_WIDGET (dialog), "The file ends too early"));
  g_assert_nonnull (lb_test_find_expander (GTK_WIDGET (dialog)));
  gtk_expander_set_expanded (lb_test_find_expander (GTK_WIDGET (dialog)), TRUE);
  detail = lb_test_find_text (GTK_WIDGET (dialog), "PixelData has 8192 bytes, only 8130 are left");
  g_assert_nonnull (detail);
  g_test_message ("%s", detail);
  gtk_window_destroy (dialog);
}

static gboolean
patients_listed (gpointer data)
{
  LbWindow *w = the_window ();
  LbStoreBrowser *browser;

  if (w == NULL)
    return FALSE;
  browser = LB_STORE_BROWSER (find_widget (GTK_WIDGET (w), LB_TYPE_STORE_BROWSER));
  return browser != NULL && lb_store_browser_get_pending (browser) == 0
         && lb_store_browser_find_row (browser, data) != G_MAXUINT;
}

static void
test_open_dicomdir (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("LB_TEST_DATA"), "dicom",
                                            "dicomdirtests", "DICOMDIR", NULL);
  LbStoreBrowser *browser;
  LbStoreEntry *patient;
  guint row;

  open_path (path);
  g_assert_true (lb_test_wait (patients_listed, (gpointer) "77654033", 20000));
  g_assert_true (g_str_has_suffix (gtk_window_get_title (GTK_WINDOW (the_window ())),
                                   "/dicomdirtests"));
  browser = LB_STORE_BROWSER (find_widget (GTK_WIDGET (the_window ()), LB_TYPE_STORE_BROWSER));
  row = lb_store_browser_find_row (browser, "77654033");
  patient = lb_store_browser_get_entry (browser, row);
  g_assert_cmpint (lb_store_entry_get_kind (patient), ==, LB_STORE_ENTRY_DICOM_PATIENT);
  g_assert_cmpstr (lb_store_entry_get_display_name (patient), ==, "Doe, Archibald (77654033)");
  /* the folders the DICOMDIR points into are its records now */
  g_assert_cmpuint (lb_store_browser_find_row (browser, "98892001"), ==, G_MAXUINT);
}

/* ---- multi-frame ------------------------------------------------------------------------ */

static char *variants;  /* make-variants.py's output, NULL without pydicom */

static const char *
frame_label (void)
{
  return gtk_label_get_text (GTK_LABEL (lb_window_test_get_child (the_window (),
                                                                  "frame_label")));
}

static gboolean
label_is (gpointer data)
{
  LbWindow *w = the_window ();

  return w != NULL && g_str_equal (frame_label (), data);
}

static LbCanvas *
the_canvas (void)
{
  return LB_CANVAS (find_widget (GTK_WIDGET (the_window ()), LB_TYPE_CANVAS));
}

/* The canvas shows frame @n of @name: every pixel's real-world value is pydicom's. */
static void
check_shown_frame (const char *name, guint n)
{
  g_autofree char *file = g_strdup_printf ("%s-f%u.values", name, n);
  g_autofree char *path = g_build_filename (variants, file, NULL);
  g_autofree char *num = g_strdup_printf ("%u", n);
  g_autofree char *what = g_strdup_printf ("%s frame %u on the canvas", name, n);
  LbImage *shown = lb_canvas_get_image (the_canvas ());

  g_assert_cmpstr (lb_image_meta_get_text (lb_image_get_meta (shown), "dicom:FrameNumber"), ==,
                   num);
  lb_test_check_real_values (shown, path, what);
}

static void
step (const char *action, const char *expect)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (the_canvas ()), action, NULL));
  g_assert_true (lb_test_wait (label_is, (gpointer) expect, 20000));
}

static void
test_frames (gconstpointer data)
{
  const char *name = data;
  guint n = g_str_equal (name, "mf-ct") ? 5 : 3;
  g_autofree char *file = g_strconcat (name, ".dcm", NULL);
  g_autofree char *path = NULL, *first = g_strdup_printf ("frame 1/%u", n);
  g_autofree char *last = g_strdup_printf ("frame %u/%u", n, n);
  g_autofree char *before_last = g_strdup_printf ("frame %u/%u", n - 1, n);
  GAction *next;
  double c, w, zoom;

  if (variants == NULL)
    {
      g_test_skip ("make-variants.py needs pydicom and numpy");
      return;
    }
  path = g_build_filename (variants, file, NULL);
  open_path (path);
  g_assert_true (lb_test_wait (image_shown, file, 20000));
  g_assert_cmpstr (frame_label (), ==, first);
  check_shown_frame (name, 1);

  /* the reader's window and zoom stay from frame to frame */
  lb_canvas_set_window (the_canvas (), 123, 456);
  lb_canvas_set_zoom (the_canvas (), 2.5);
  zoom = lb_canvas_get_zoom (the_canvas ());
  step ("win.next-frame", n == 5 ? "frame 2/5" : "frame 2/3");
  check_shown_frame (name, 2);
  lb_canvas_get_window (the_canvas (), &c, &w);
  g_assert_cmpfloat (c, ==, 123);
  g_assert_cmpfloat (w, ==, 456);
  g_assert_cmpfloat (lb_canvas_get_zoom (the_canvas ()), ==, zoom);
  step ("win.last-frame", last);
  check_shown_frame (name, n);
  next = g_action_map_lookup_action (G_ACTION_MAP (the_window ()), "next-frame");
  g_assert_false (g_action_get_enabled (next));
  step ("win.previous-frame", before_last);
  check_shown_frame (name, n - 1);
  step ("win.first-frame", first);
  lb_canvas_get_window (the_canvas (), &c, &w);
  g_assert_cmpfloat (c, ==, 123);

  /* cine plays through the last frame and loops to the first; pausing stops it */
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "cine", NULL);
  g_assert_true (lb_test_wait (label_is, last, 20000));
  g_assert_true (lb_test_wait (label_is, first, 20000));
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "cine", NULL);
  {
    g_autoptr(GVariant) state = g_action_group_get_action_state (G_ACTION_GROUP (the_window ()),
                                                                 "cine");

    g_assert_false (g_variant_get_boolean (state));
  }
  g_assert_true (lb_test_wait (image_shown, file, 20000));
}

/* The question the window asks, when one is open. */
static GtkWidget *
question_dialog (void)
{
  return the_window () != NULL ? (GtkWidget *) lb_test_dialog_over (GTK_WINDOW (the_window ()))
                               : NULL;
}

static gboolean
has_question (gpointer data)
{
  return (question_dialog () != NULL) == GPOINTER_TO_INT (data);
}

/* Clicks the button of @dialog whose label has @word, as the user would. */
static void
click (GtkWidget *dialog, const char *word)
{
  g_autoptr(GPtrArray) todo = g_ptr_array_new ();
  GtkWidget *found = NULL;

  g_ptr_array_add (todo, dialog);
  while (todo->len > 0 && found == NULL)
    {
      GtkWidget *w = g_ptr_array_steal_index (todo, todo->len - 1);

      if (GTK_IS_BUTTON (w) && gtk_button_get_label (GTK_BUTTON (w)) != NULL
          && strstr (gtk_button_get_label (GTK_BUTTON (w)), word) != NULL)
        found = w;
      for (GtkWidget *c = gtk_widget_get_first_child (w); c; c = gtk_widget_get_next_sibling (c))
        g_ptr_array_add (todo, c);
    }
  g_assert_nonnull (found);
  g_signal_emit_by_name (found, "clicked");
}

static void
test_frames_ask (void)
{
  g_autofree char *path = NULL;
  const char *text;
  LbHistory *history;
  GtkWidget *dialog;

  if (variants == NULL)
    {
      g_test_skip ("make-variants.py needs pydicom and numpy");
      return;
    }
  path = g_build_filename (variants, "mf-ct.dcm", NULL);
  open_path (path);
  g_assert_true (lb_test_wait (label_is, (gpointer) "frame 1/5", 20000));
  g_assert_true (lb_test_wait (image_shown, (gpointer) "mf-ct.dcm", 20000));
  /* no results: frames step without a question */
  step ("win.next-frame", "frame 2/5");
  g_assert_null (question_dialog ());

  /* a result on frame 2 (what a filter pushes: a new step of the frame's history) */
  history = lb_window_test_get_history (the_window ());
  lb_history_push (history, lb_history_get_current (history), "Test result", NULL);
  g_assert_cmpuint (lb_history_get_length (history), ==, 2);

  /* stepping asks, naming the frame; Keep stays on it with its results */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (the_canvas ()), "win.next-frame", NULL));
  g_assert_true (lb_test_wait (has_question, GINT_TO_POINTER (TRUE), 5000));
  dialog = question_dialog ();
  text = lb_test_find_text (dialog, "Discard the filter results on frame 2?");
  g_assert_nonnull (text);
  g_test_message ("%s", text);
  click (dialog, "Keep");
  g_assert_true (lb_test_wait (has_question, GINT_TO_POINTER (FALSE), 5000));
  g_assert_cmpstr (frame_label (), ==, "frame 2/5");
  g_assert_true (lb_window_test_get_history (the_window ()) == history);
  g_assert_cmpuint (lb_history_get_length (history), ==, 2);

  /* cine asks too, and stops playing */
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "cine", NULL);
  g_assert_true (lb_test_wait (has_question, GINT_TO_POINTER (TRUE), 20000));
  {
    g_autoptr(GVariant) state = g_action_group_get_action_state (G_ACTION_GROUP (the_window ()),
                                                                 "cine");

    g_assert_false (g_variant_get_boolean (state));
  }
  click (question_dialog (), "Keep");
  g_assert_true (lb_test_wait (has_question, GINT_TO_POINTER (FALSE), 5000));
  g_assert_cmpstr (frame_label (), ==, "frame 2/5");
  g_assert_cmpuint (lb_history_get_length (history), ==, 2);

  /* Discard steps: frame 3, with a history of its own */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (the_canvas ()), "win.next-frame", NULL));
  g_assert_true (lb_test_wait (has_question, GINT_TO_POINTER (TRUE), 5000));
  click (question_dialog (), "Discard");
  g_assert_true (lb_test_wait (label_is, (gpointer) "frame 3/5", 20000));
  g_assert_null (question_dialog ());
  g_assert_true (lb_window_test_get_history (the_window ()) != history);
  g_assert_cmpuint (lb_history_get_length (lb_window_test_get_history (the_window ())), ==, 1);
  check_shown_frame ("mf-ct", 3);
}

/* A single-frame image shows no frame label and has no frames to step. */
static void
test_single_frame_has_no_frames (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("LB_TEST_DATA"), "dicom",
                                            "CT_small.dcm", NULL);

  open_path (path);
  g_assert_true (lb_test_wait (image_shown, (gpointer) "CT_small.dcm", 20000));
  g_assert_cmpstr (frame_label (), ==, "");
  g_assert_false (g_action_get_enabled (g_action_map_lookup_action (
                                          G_ACTION_MAP (the_window ()), "next-frame")));
  g_assert_false (g_action_get_enabled (g_action_map_lookup_action (
                                          G_ACTION_MAP (the_window ()), "cine")));
}

/* The frame actions have window-wide shortcuts besides the canvas keys. */
static void
test_frame_accels (void)
{
  g_auto(GStrv) next = gtk_application_get_accels_for_action (GTK_APPLICATION (app),
                                                              "win.next-frame");
  g_auto(GStrv) cine = gtk_application_get_accels_for_action (GTK_APPLICATION (app),
                                                              "win.cine");

  g_assert_true (g_strv_contains ((const char * const *) next, "<Control>Page_Down"));
  g_assert_true (g_strv_contains ((const char * const *) cine, "<Control>p"));
}

/* ---- a series as a stack, and the overlay -------------------------------------------------- */

static char *phantom;        /* make-phantom.py's output directory, NULL without pydicom */
static JsonNode *manifest;   /* its JSON manifest */

#define PHANTOM_SLICES 6

static void
make_phantom (void)
{
  const char *options[] = { "--shuffle", "26", "--slices", G_STRINGIFY (PHANTOM_SLICES), NULL };

  phantom = lb_test_make_phantom ("dicom-window-phantom", options, &manifest);
}

static JsonObject *
phantom_series (const char *dir)
{
  return lb_test_phantom_series (manifest, dir);
}

static JsonObject *
phantom_file (JsonObject *sm, guint k)
{
  return lb_test_phantom_file (sm, k);
}

static gboolean
label_starts (gpointer data)
{
  LbWindow *w = the_window ();

  return w != NULL && g_str_has_prefix (frame_label (), data);
}

/* The canvas shows slice @k of @sm: its file, its centre value 2000 + k, and the label says
 * so with the manifest's location. */
static void
check_slice (JsonObject *sm, guint k)
{
  JsonObject *fm = phantom_file (sm, k);
  LbImage *shown = lb_canvas_get_image (the_canvas ());
  const LbValueModel *model = lb_image_meta_get_value_model (lb_image_get_meta (shown));
  guint size = lb_image_get_width (shown);
  const guint16 *row = (const guint16 *) lb_image_get_row (shown, size / 2);
  g_autofree char *label = g_strdup_printf ("slice %u/%u · %.1f mm", k + 1, PHANTOM_SLICES,
                                            json_object_get_double_member (fm, "location"));

  g_assert_cmpuint (lb_image_get_format (shown), ==, LB_FORMAT_GRAY16);
  g_assert_nonnull (model);
  g_assert_true (g_str_has_suffix (lb_image_meta_get_source_uri (lb_image_get_meta (shown)),
                                   json_object_get_string_member (fm, "name")));
  g_assert_cmpint (lb_value_model_sample_to_stored (model, row[size / 2]), ==, 2000 + (int) k);
  g_assert_cmpstr (frame_label (), ==, label);
}

static void
page (const char *action, JsonObject *sm, guint k)
{
  g_autofree char *prefix = g_strdup_printf ("slice %u/", k + 1);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (the_canvas ()), action, NULL));
  g_assert_true (lb_test_wait (label_starts, prefix, 20000));
  check_slice (sm, k);
}

static const char *
marker (const char *id)
{
  GtkWidget *label = lb_window_test_get_child (the_window (), id);

  return gtk_widget_get_visible (label) ? gtk_label_get_text (GTK_LABEL (label)) : "";
}

/* The markers at the top, right, bottom and left edges are @expect[0…3]. */
static void
check_markers (const char expect[4])
{
  static const char *const ids[] = { "marker_top", "marker_right", "marker_bottom",
                                     "marker_left" };

  for (guint e = 0; e < 4; e++)
    {
      char want[2] = { expect[e], 0 };

      g_assert_cmpstr (marker (ids[e]), ==, want);
    }
}

static gboolean
new_series_shown (gpointer data)
{
  LbImage *old = data;
  LbWindow *w = the_window ();

  return w != NULL && lb_canvas_get_image (the_canvas ()) != NULL
         && lb_canvas_get_image (the_canvas ()) != old
         && g_str_has_prefix (frame_label (), "slice 1/");
}

/* Opens the phantom's series @dir as `lightbox DIR` does and waits for its first slice (a new
 * image, not the one shown before, which is kept alive so that its address is not reused). */
static void
open_phantom (const char *dir)
{
  g_autofree char *path = g_build_filename (phantom, dir, NULL);
  LbWindow *w = the_window ();
  g_autoptr(LbImage) old = NULL;

  if (w != NULL && lb_canvas_get_image (the_canvas ()) != NULL)
    old = g_object_ref (lb_canvas_get_image (the_canvas ()));
  open_path (path);
  g_assert_true (lb_test_wait (new_series_shown, old, 20000));
}

/* A shuffled series opened with `lightbox DIR` pages along the normal; W/L and zoom stay. */
static void
test_series_stack (void)
{
  JsonObject *sm;
  double c, w, zoom;

  if (phantom == NULL)
    {
      g_test_skip ("make-phantom.py needs pydicom and numpy");
      return;
    }
  sm = phantom_series ("axial");
  open_phantom ("axial");
  check_slice (sm, 0);
  g_assert_false (g_action_get_enabled (g_action_map_lookup_action (
                                          G_ACTION_MAP (the_window ()), "previous-frame")));
  lb_canvas_set_window (the_canvas (), 123, 456);
  lb_canvas_set_zoom (the_canvas (), 2.5);
  zoom = lb_canvas_get_zoom (the_canvas ());
  page ("win.next-frame", sm, 1);
  page ("win.next-frame", sm, 2);
  lb_canvas_get_window (the_canvas (), &c, &w);
  g_assert_cmpfloat (c, ==, 123);
  g_assert_cmpfloat (w, ==, 456);
  g_assert_cmpfloat (lb_canvas_get_zoom (the_canvas ()), ==, zoom);
  page ("win.last-frame", sm, PHANTOM_SLICES - 1);
  g_assert_false (g_action_get_enabled (g_action_map_lookup_action (
                                          G_ACTION_MAP (the_window ()), "next-frame")));
  page ("win.previous-frame", sm, PHANTOM_SLICES - 2);
  page ("win.first-frame", sm, 0);
  lb_canvas_get_window (the_canvas (), &c, &w);
  g_assert_cmpfloat (c, ==, 123);
  g_assert_cmpfloat (w, ==, 456);
}

/* The overlay's markers on axial and sagittal, after a rotation, and the toggle. */
static void
test_series_overlay (void)
{
  JsonObject *sm;
  char want[4], rotated[4];
  const char *corner;

  if (phantom == NULL)
    {
      g_test_skip ("make-phantom.py needs pydicom and numpy");
      return;
    }
  sm = phantom_series ("axial");
  open_phantom ("axial");
  lb_test_phantom_view_letters (sm, want);
  g_assert_cmpmem (want, 4, "ALPR", 4);  /* the manifest is the scanner's axial plane */
  check_markers (want);
  corner = gtk_label_get_text (GTK_LABEL (lb_window_test_get_child (the_window (),
                                                                      "overlay_top_left")));
  g_assert_nonnull (strstr (corner, "PH-26"));
  corner = gtk_label_get_text (GTK_LABEL (lb_window_test_get_child (the_window (),
                                                                      "overlay_bottom_left")));
  g_assert_nonnull (strstr (corner, "/" G_STRINGIFY (PHANTOM_SLICES)));

  /* a quarter turn clockwise: what was at the left edge is at the top */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (the_canvas ()), "win.rotate-cw",
                                             NULL));
  for (guint e = 0; e < 4; e++)
    rotated[e] = want[(e + 3) % 4];
  check_markers (rotated);
  corner = gtk_label_get_text (GTK_LABEL (lb_window_test_get_child (the_window (),
                                                                      "overlay_bottom_right")));
  g_assert_true (g_str_has_prefix (corner, "Rotated 90°\n"));
  /* and the markers stay with the view when the slice changes */
  page ("win.next-frame", sm, 1);
  check_markers (rotated);

  /* the toggle hides all of it */
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "overlay", NULL);
  g_assert_false (gtk_widget_get_visible (lb_window_test_get_child (the_window (),
                                                                    "marker_top")));
  g_assert_false (gtk_widget_get_visible (lb_window_test_get_child (the_window (),
                                                                    "overlay_top_left")));
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "overlay", NULL);
  check_markers (rotated);

  /* a new series starts unrotated */
  sm = phantom_series ("sagittal");
  open_phantom ("sagittal");
  check_slice (sm, 0);
  lb_test_phantom_view_letters (sm, want);
  check_markers (want);
}

static void
activate_listed (const char *name)
{
  LbStoreBrowser *browser;

  g_assert_true (lb_test_wait (patients_listed, (gpointer) name, 20000));
  browser = LB_STORE_BROWSER (find_widget (GTK_WIDGET (the_window ()), LB_TYPE_STORE_BROWSER));
  lb_store_browser_activate_row (browser, lb_store_browser_find_row (browser, name));
}

/* A series node of the local store's tree opens as the same stack, from its first slice. */
static void
test_series_from_tree (void)
{
  JsonObject *m, *sm;
  g_autoptr(LbImage) old = NULL;

  if (phantom == NULL)
    {
      g_test_skip ("make-phantom.py needs pydicom and numpy");
      return;
    }
  m = json_node_get_object (manifest);
  sm = phantom_series ("coronal");
  open_phantom ("coronal");
  page ("win.next-frame", sm, 1);
  activate_listed ("PH-26");
  activate_listed (json_object_get_string_member (json_object_get_object_member (m, "study"),
                                                  "StudyInstanceUID"));
  g_assert_true (lb_test_wait (patients_listed,
                               (gpointer) json_object_get_string_member (sm, "series_uid"),
                               20000));
  if (lb_canvas_get_image (the_canvas ()) != NULL)
    old = g_object_ref (lb_canvas_get_image (the_canvas ()));
  activate_listed (json_object_get_string_member (sm, "series_uid"));
  g_assert_true (lb_test_wait (new_series_shown, old, 20000));
  check_slice (sm, 0);
  page ("win.next-frame", sm, 1);
  page ("win.last-frame", sm, PHANTOM_SLICES - 1);
}

static void
test_overlay_accel (void)
{
  g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app),
                                                                "win.overlay");

  guint key = 0;
  GdkModifierType mods = 0;

  g_assert_cmpuint (g_strv_length (accels), ==, 1);
  g_assert_true (gtk_accelerator_parse (accels[0], &key, &mods));
  g_assert_cmpuint (key, ==, GDK_KEY_o);
  g_assert_cmphex (mods, ==, GDK_CONTROL_MASK | GDK_SHIFT_MASK);
}

int
main (int argc, char **argv)
{
  int ret;

  gtk_test_init (&argc, &argv, NULL);
  app = lb_test_app_new ();
  if (app == NULL)
    return 0;

  g_test_add_data_func ("/dicom/window/open-file/big-endian", "MR_small_bigendian.dcm",
                        test_open_file);
  g_test_add_data_func ("/dicom/window/open-file/jpeg2000", "JPEG2000.dcm", test_open_file);
  g_test_add_data_func ("/dicom/window/open-file/rle-colour", "SC_rgb_rle_2frame.dcm",
                        test_open_file);
  g_test_add_func ("/dicom/window/open-bad-file", test_open_bad_file);
  g_test_add_func ("/dicom/window/open-dicomdir", test_open_dicomdir);
  variants = lb_test_make_dicom_variants ("dicom-window");
  g_test_add_data_func ("/dicom/window/frames/mf-ct", "mf-ct", test_frames);
  g_test_add_data_func ("/dicom/window/frames/enhanced-ct", "enhanced-ct", test_frames);
  g_test_add_func ("/dicom/window/frames/ask-before-discarding", test_frames_ask);
  g_test_add_func ("/dicom/window/single-frame", test_single_frame_has_no_frames);
  g_test_add_func ("/dicom/window/frame-accels", test_frame_accels);
  make_phantom ();
  g_test_add_func ("/dicom/window/series/stack", test_series_stack);
  g_test_add_func ("/dicom/window/series/overlay", test_series_overlay);
  g_test_add_func ("/dicom/window/series/tree", test_series_from_tree);
  g_test_add_func ("/dicom/window/overlay-accel", test_overlay_accel);
  ret = g_test_run ();
  if (variants != NULL)
    lb_test_remove_tree (variants);
  g_free (variants);
  if (phantom != NULL)
    lb_test_remove_tree (phantom);
  g_free (phantom);
  g_clear_pointer (&manifest, json_node_unref);
  lb_test_app_free (app);
  return ret;
}
