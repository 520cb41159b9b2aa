/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A DICOMweb series opened from the store tree as one stack, in a real window under Xvfb,
 * against Orthanc (orthanc-run.sh --verbose, whose log counts the frame requests).
 *
 * The series is make-phantom.py's axial phantom (pydicom), its files stored in a random order
 * and its InstanceNumbers shuffled: slice k (index along the normal) has its centre at stored
 * 2000 + k.
 *   - the series row opens the stack at slice 1 with the right pixels, and the slider area
 *     says how many slices are loaded;
 *   - Escape stops the background loading: no frame request after it but the slice asked for;
 *     paging to a slice not loaded shows "loading" (the label and the viewport), never the
 *     slice shown before under the new number, then the right slice;
 *   - opened again, every slice comes into memory, the progress goes away, and paging through
 *     all of them shows each one's own pixels at once. */
#include <stdio.h>
#include "config.h"

#include <string.h>

#include "lb-test-app.h"
#include "lb-test-dicom.h"
#include "lb-test-files.h"
#include "lb-test-loop.h"
#include "lb-test-process.h"
#include "lb-test-ui.h"

#define SLICES 40
#define SIZE 128

static LbApplication *app;
static LbWindow *win;
static char *phantom;
static JsonNode *manifest;
static JsonObject *axial;

static const char *
label_text (const char *id)
{
  return gtk_label_get_text (GTK_LABEL (lb_window_test_get_child (win, id)));
}

static GtkWidget *
named (GtkWidget *root, const char *name)
{
  return lb_test_find_widget (root, GTK_TYPE_WIDGET, name);
}

static int
centre_stored (void)
{
  LbImage *shown = lb_canvas_get_image (lb_window_test_get_canvas (win));
  const LbValueModel *model = lb_image_meta_get_value_model (lb_image_get_meta (shown));
  const guint16 *row = (const guint16 *) lb_image_get_row (shown, SIZE / 2);

  g_assert_cmpuint (lb_image_get_width (shown), ==, SIZE);
  return lb_value_model_sample_to_stored (model, row[SIZE / 2]);
}

/* The viewport shows slice @k (0-based index along the normal) and the label says so. */
static void
check_slice (guint k)
{
  JsonObject *fm = lb_test_phantom_file (axial, k);
  g_autofree char *label = g_strdup_printf ("slice %u/%u · %.1f mm", k + 1, SLICES,
                                            json_object_get_double_member (fm, "location"));

  g_assert_null (lb_canvas_get_loading (lb_window_test_get_canvas (win)));
  g_assert_cmpint (centre_stored (), ==, 2000 + (int) k);
  g_assert_cmpstr (label_text ("frame_label"), ==, label);
}

static gboolean
row_listed (gpointer data)
{
  LbStoreBrowser *browser = lb_window_test_get_browser (win);

  return lb_store_browser_get_pending (browser) == 0
         && lb_store_browser_find_row (browser, data) != G_MAXUINT;
}

static void
activate_listed (const char *name)
{
  LbStoreBrowser *browser = lb_window_test_get_browser (win);

  g_assert_true (lb_test_wait (row_listed, (gpointer) name, 20000));
  lb_store_browser_activate_row (browser, lb_store_browser_find_row (browser, name));
}

static gboolean
first_slice_shown (gpointer data)
{
  LbImage *shown = lb_canvas_get_image (lb_window_test_get_canvas (win));

  return shown != NULL && shown != data && !lb_window_is_busy (win)
         && g_str_has_prefix (label_text ("frame_label"), "slice 1/");
}

static gboolean
new_loader (gpointer data)
{
  LbSeriesLoader *loader = lb_window_test_get_series_loader (win);

  return loader != NULL && loader != data;
}

/* Activates the phantom series' row (the patient and study rows expanded first) and waits
 * for its first slice; with @cancel, Escape (win.cancel) as soon as the loading starts. */
static void
open_series_from_tree (gboolean cancel)
{
  LbSeriesLoader *old = lb_window_test_get_series_loader (win);
  JsonObject *study = json_object_get_object_member (json_node_get_object (manifest), "study");
  LbImage *before = lb_canvas_get_image (lb_window_test_get_canvas (win));

  if (lb_store_browser_find_row (lb_window_test_get_browser (win),
                                 json_object_get_string_member (axial, "series_uid"))
      == G_MAXUINT)
    {
      activate_listed ("PH-26");
      activate_listed (json_object_get_string_member (study, "StudyInstanceUID"));
    }
  activate_listed (json_object_get_string_member (axial, "series_uid"));
  if (cancel)
    {
      g_assert_true (lb_test_wait (new_loader, old, 30000));
      g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (win), "cancel"));
      g_action_group_activate_action (G_ACTION_GROUP (win), "cancel", NULL);
    }
  g_assert_true (lb_test_wait (first_slice_shown, before, 30000));
}

static guint
frame_gets (void)
{
  const char *needles[] = { "/frames/", NULL };

  return lb_test_orthanc_count_gets (needles);
}

static gboolean
not_busy (gpointer data)
{
  return !lb_window_is_busy (win);
}

static void
screenshot (const char *name)
{
  g_autofree char *path = g_build_filename (g_getenv ("LB_BUILD_ROOT"), name, NULL);
  const char *argv[] = { "import", "-window", "root", path, NULL };
  g_autofree char *err = NULL, *out = NULL;
  int status;

  if (!lb_test_have_program ("import"))
    return;
  gtk_widget_queue_draw (GTK_WIDGET (win));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (win));
  out = lb_test_run_tool (argv, &err, &status);
  g_test_message ("screenshot: %s (%s)", path, status == 0 ? "taken" : err);
}

static void
test_cancel_and_loading (void)
{
  LbSeriesLoader *loader;
  GtkWidget *progress;
  guint gets_at_cancel, requests_at_cancel;
  g_autofree char *loading = g_strdup_printf ("slice %u/%u · loading…", SLICES, SLICES);
  g_autofree char *veil = g_strdup_printf ("Loading slice %u/%u…", SLICES, SLICES);

  /* Escape as soon as the slices start to load: the first still comes */
  open_series_from_tree (TRUE);
  check_slice (0);
  loader = lb_window_test_get_series_loader (win);
  g_assert_true (lb_series_loader_is_cancelled (loader));
  requests_at_cancel = lb_series_loader_get_n_requests (loader);
  g_assert_cmpuint (requests_at_cancel, <, SLICES);
  lb_test_ui_drain (500);
  gets_at_cancel = frame_gets ();

  /* the last slice is far from everything loaded: the viewport says it is on its way */
  g_action_group_activate_action (G_ACTION_GROUP (win), "last-frame", NULL);
  g_assert_cmpstr (label_text ("frame_label"), ==, loading);
  g_assert_cmpstr (lb_canvas_get_loading (lb_window_test_get_canvas (win)), ==, veil);
  g_assert_true (lb_window_is_busy (win));
  progress = named (GTK_WIDGET (win), "load_progress");
  g_assert_true (gtk_widget_get_visible (progress));
  screenshot ("ui-dicomweb-stack-loading.png");
  g_assert_true (lb_test_wait (not_busy, NULL, 30000));
  check_slice (SLICES - 1);
  /* after the cancel, one request more: the slice asked for */
  lb_test_ui_drain (300);
  g_assert_cmpuint (lb_series_loader_get_n_requests (loader), ==, requests_at_cancel + 1);
  g_assert_cmpuint (frame_gets (), ==, gets_at_cancel + 1);
}

static gboolean
all_loaded (gpointer data)
{
  LbSeriesLoader *loader = lb_window_test_get_series_loader (win);

  return loader != NULL && lb_series_loader_get_n_loaded (loader) == SLICES
         && lb_series_loader_is_idle (loader);
}

static void
test_load_all_and_page (void)
{
  GtkWidget *progress;
  LbSeriesLoader *loader;
  guint n;
  g_autofree char *text = NULL;

  open_series_from_tree (FALSE);
  check_slice (0);
  loader = lb_window_test_get_series_loader (win);
  progress = named (GTK_WIDGET (win), "load_progress");
  n = lb_series_loader_get_n_loaded (loader);
  if (n < SLICES)
    {
      guint shown = 0, total = 0;

      /* the bar is updated at most five times a second, so it may lag the loader: it shows
       * a count the loader has passed, of the whole series */
      text = g_strdup (gtk_progress_bar_get_text (GTK_PROGRESS_BAR (progress)));
      g_assert_true (gtk_widget_get_visible (progress));
      g_assert_nonnull (text);
      g_assert_cmpint (sscanf (text, "%u/%u loaded", &shown, &total), ==, 2);
      g_assert_cmpuint (total, ==, SLICES);
      g_assert_cmpuint (shown, >=, 1);
      g_assert_cmpuint (shown, <=, lb_series_loader_get_n_loaded (loader));
    }
  g_assert_true (lb_test_wait (all_loaded, NULL, 60000));
  g_assert_false (gtk_widget_get_visible (progress));
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (win), "cancel"));
  /* every slice from memory: shown at once, each with its own pixels */
  for (guint k = 1; k < SLICES; k++)
    {
      g_action_group_activate_action (G_ACTION_GROUP (win), "next-frame", NULL);
      g_assert_false (lb_window_is_busy (win));
      check_slice (k);
    }
  screenshot ("ui-dicomweb-stack-loaded.png");
}

int
main (int argc, char **argv)
{
  const char *url = g_getenv ("LB_DICOMWEB_URL");
  const char *options[] = { "--slices", G_STRINGIFY (SLICES), "--size", G_STRINGIFY (SIZE),
                            "--orientations", "axial", "--shuffle", "2612",
                            "--shuffle-numbers", NULL };
  g_autofree char *store_url = NULL;
  int rc;

  if (!lb_test_ui_init (&argc, &argv))
    return 0;
  if (url == NULL || g_getenv ("LB_ORTHANC_LOG") == NULL)
    {
      g_test_message ("run through orthanc-run.sh --verbose");
      return 77;
    }
  phantom = lb_test_make_phantom ("dicomweb-stack", options, &manifest);
  if (phantom == NULL)
    {
      g_test_message ("make-phantom.py needs pydicom and numpy");
      return 77;
    }
  axial = lb_test_phantom_series (manifest, "axial");
  lb_test_orthanc_upload (url, phantom, axial);
  store_url = g_strconcat ("dicomweb+", url, NULL);
  app = lb_test_ui_app_new ();
  win = lb_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (win), 1100, 760);
  gtk_window_present (GTK_WINDOW (win));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (win));
  lb_window_open_store (win, store_url);
  g_test_add_func ("/ui/dicomweb-stack/cancel-and-loading", test_cancel_and_loading);
  g_test_add_func ("/ui/dicomweb-stack/load-all-and-page", test_load_all_and_page);
  rc = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (win));
  lb_test_ui_drain (100);
  g_object_unref (app);
  lb_test_remove_tree (phantom);
  return rc;
}
