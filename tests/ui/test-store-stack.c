/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A store folder of alike images opened as one stack (issue 26, "Series and stacks"), in a real
 * window under Xvfb, over a real lightbox-store on 127.0.0.1. The slices are written at test
 * time by Pillow from numpy (stack-slices.py) (run by servers.sh, the same folders through
 * nginx's JSON listing instead: the store-stack-nginx test): twelve 16-bit PNGs slice1 … slice12, slice k
 * holding 1000·k + x + 32·y, and a folder "mixed" of three such slices and one of another size.
 *   - win.open-folder-stack on the "stack" row opens one stack of 12 slices in natural name
 *     order (slice2 before slice10), and paging through it with win.next-frame shows, at each
 *     step, the samples Pillow wrote into that slice, every one of them;
 *   - on the "mixed" row it is refused with an error naming the odd image and both sizes, the
 *     stack shown stays, and the folder still expands to its four images;
 *   - the same folder of a local store (file://) opens alike;
 *   - a folder of DICOM slices (make-phantom.py, pydicom) stacks by position, not by name, and
 *     a folder of one multi-frame object by its frames' positions. */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "lb-test-dialogs.h"
#include "lb-test-dicom.h"
#include "lb-test-files.h"
#include "lb-test-loop.h"
#include "lb-test-process.h"
#include "lb-test-ui.h"

#define N_SLICES 12
#define N_PHANTOM 8
#define PHANTOM_SIZE 32

static LbApplication *app;
static LbWindow *win;
static LbTestServer server;
static char *store_dir;
static char *store_url;  /* the lightbox-store's, or nginx's JSON listing of store_dir */
static JsonObject *reference;
static guint n_slices = N_SLICES;  /* of the stack being read */

static const char *
frame_label (void)
{
  return gtk_label_get_text (GTK_LABEL (lb_window_test_get_child (win, "frame_label")));
}

static gboolean
row_listed (gpointer name)
{
  LbStoreBrowser *browser = lb_window_test_get_browser (win);

  return lb_store_browser_get_pending (browser) == 0
         && lb_store_browser_find_row (browser, name) != G_MAXUINT;
}

/* Selects the folder row @name and asks for it as a stack. */
static void
open_folder_stack (const char *name)
{
  LbStoreBrowser *browser = lb_window_test_get_browser (win);

  g_assert_true (lb_test_wait (row_listed, (gpointer) name, 20000));
  lb_store_browser_select_row (browser, lb_store_browser_find_row (browser, name));
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (win), "open-folder-stack"));
  g_action_group_activate_action (G_ACTION_GROUP (win), "open-folder-stack", NULL);
}

/* The original of what the window shows is slice @k (1-based) of the stack, with its pixels. */
static gboolean
showing_slice (gpointer data)
{
  guint k = GPOINTER_TO_UINT (data);
  g_autofree char *label = g_strdup_printf ("slice %u/%u", k, n_slices);
  g_autofree char *prefix = g_strconcat (label, " · ", NULL);
  LbHistory *history = lb_window_test_get_history (win);

  /* "slice 3/12", or "slice 3/8 · 5.0 mm" with a location, never "· loading…" */
  return history != NULL && !lb_window_is_busy (win)
         && lb_canvas_get_loading (lb_window_test_get_canvas (win)) == NULL
         && (g_strcmp0 (frame_label (), label) == 0
             || (g_str_has_prefix (frame_label (), prefix)
                 && g_str_has_suffix (frame_label (), " mm")));
}

static void
check_slice (guint k)
{
  JsonArray *slices = json_object_get_array_member (reference, "slices");
  JsonObject *slice = json_array_get_object_element (slices, k - 1);
  JsonArray *samples = json_object_get_array_member (slice, "samples");
  guint width = json_object_get_int_member (reference, "width");
  guint height = json_object_get_int_member (reference, "height");
  LbImage *image = lb_history_get_original (lb_window_test_get_history (win));
  const char *uri = lb_image_meta_get_source_uri (lb_image_get_meta (image));
  g_autofree char *suffix = g_strconcat ("/stack/", json_object_get_string_member (slice, "name"),
                                         NULL);

  g_assert_true (g_str_has_suffix (uri, suffix));
  g_assert_cmpuint (lb_image_get_width (image), ==, width);
  g_assert_cmpuint (lb_image_get_height (image), ==, height);
  g_assert_cmpint (lb_image_get_format (image), ==, LB_FORMAT_GRAY16);
  for (guint y = 0; y < height; y++)
    {
      const guint16 *row = (const guint16 *) lb_image_get_row (image, y);

      for (guint x = 0; x < width; x++)
        g_assert_cmpint (row[x], ==, json_array_get_int_element (samples, y * width + x));
    }
}

static void
screenshot (const char *name)
{
  /* the window's content (as the window draws it: the toplevel itself has no parent) */
  g_autoptr(GdkTexture) texture = lb_test_ui_render (gtk_window_get_child (GTK_WINDOW (win)));
  g_autofree char *path = g_build_filename (g_getenv ("LB_BUILD_ROOT"), name, NULL);

  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("screenshot: %s", path);
}

static void
test_stack_in_natural_order (void)
{
  lb_window_open_store (win, store_url);
  open_folder_stack ("stack");
  g_assert_true (lb_test_wait (showing_slice, GUINT_TO_POINTER (1), 30000));
  check_slice (1);
  /* (slice 1: the window the next slices keep is its own, so its gradient shows) */
  screenshot ("store-stack.png");
  for (guint k = 2; k <= N_SLICES; k++)
    {
      g_action_group_activate_action (G_ACTION_GROUP (win), "next-frame", NULL);
      g_assert_true (lb_test_wait (showing_slice, GUINT_TO_POINTER (k), 30000));
      check_slice (k);
    }
  /* and back: paging is not only forwards */
  g_action_group_activate_action (G_ACTION_GROUP (win), "previous-frame", NULL);
  g_assert_true (lb_test_wait (showing_slice, GUINT_TO_POINTER (N_SLICES - 1), 30000));
  check_slice (N_SLICES - 1);
}

static void
test_mixed_refused (void)
{
  LbStoreBrowser *browser = lb_window_test_get_browser (win);
  GtkWindow *dialog;
  const char *text;

  open_folder_stack ("mixed");
  g_assert_true (lb_test_wait (lb_test_has_dialog, win, 30000));
  dialog = lb_test_dialog_over (GTK_WINDOW (win));
  g_assert_nonnull (lb_test_find_text (GTK_WIDGET (dialog), "Could not open the folder as a stack"));
  text = lb_test_find_text (GTK_WIDGET (dialog), "is not one stack");
  g_assert_nonnull (text);
  /* the two images that differ, by name, with their sizes */
  g_assert_nonnull (strstr (text, "mixed is not one stack: "));
  g_assert_nonnull (strstr (text, "odd.png is 20×16 "));
  g_assert_nonnull (strstr (text, ".png is 24×16 "));
  screenshot ("store-stack-refused.png");
  lb_test_answer_dialog (GTK_WINDOW (win), "_Close");
  /* the stack shown before stays, and the folder is still a folder to browse */
  g_assert_true (showing_slice (GUINT_TO_POINTER (N_SLICES - 1)));
  lb_store_browser_expand_row (browser, lb_store_browser_find_row (browser, "mixed"), TRUE);
  g_assert_true (lb_test_wait (row_listed, (gpointer) "odd.png", 20000));
  g_assert_true (row_listed ((gpointer) "slice3.png"));
}

/* The same folder opened as a local store (a file:// URI): the action reads it through the
 * local store alike, slice10 still after slice9. */
static void
test_local_store (void)
{
  g_autofree char *uri = g_filename_to_uri (store_dir, NULL, NULL);

  lb_window_open_store (win, uri);
  n_slices = N_SLICES;
  open_folder_stack ("stack");
  for (guint k = 1; k <= N_SLICES; k++)
    {
      if (k > 1)
        g_action_group_activate_action (G_ACTION_GROUP (win), "next-frame", NULL);
      g_assert_true (lb_test_wait (showing_slice, GUINT_TO_POINTER (k), 30000));
      check_slice (k);
      /* from the local files, not the stack of the HTTP store opened before */
      g_assert_true (g_str_has_prefix (lb_image_meta_get_source_uri (lb_image_get_meta (
        lb_history_get_original (lb_window_test_get_history (win)))), uri));
    }
}

/* Pages through the phantom's stack opened from folder @folder: slice k (1-based) is at the
 * manifest's location of the axial file k − 1 and holds 2000 + k − 1 in its centre square; it
 * came from that file, or from @multiframe when not NULL. */
static void
page_phantom (JsonObject *axial, const char *folder, const char *multiframe)
{
  n_slices = N_PHANTOM;
  open_folder_stack (folder);
  for (guint k = 1; k <= N_PHANTOM; k++)
    {
      JsonObject *file = lb_test_phantom_file (axial, k - 1);
      g_autofree char *label = g_strdup_printf ("slice %u/%u · %.1f mm", k, N_PHANTOM,
                                                json_object_get_double_member (file,
                                                                               "location"));
      LbImage *image;
      const LbValueModel *model;
      const guint16 *row;

      if (k > 1)
        g_action_group_activate_action (G_ACTION_GROUP (win), "next-frame", NULL);
      g_assert_true (lb_test_wait (showing_slice, GUINT_TO_POINTER (k), 30000));
      g_assert_cmpstr (frame_label (), ==, label);
      image = lb_history_get_original (lb_window_test_get_history (win));
      g_assert_true (g_str_has_suffix (lb_image_meta_get_source_uri (lb_image_get_meta (image)),
                                       multiframe ? multiframe
                                       : json_object_get_string_member (file, "name")));
      model = lb_image_meta_get_value_model (lb_image_get_meta (image));
      row = (const guint16 *) lb_image_get_row (image, PHANTOM_SIZE / 2);
      g_assert_cmpint (lb_value_model_sample_to_stored (model, row[PHANTOM_SIZE / 2]), ==,
                       2000 + (int) k - 1);
    }
}

/* A folder of DICOM slices whose names and InstanceNumbers are shuffled (make-phantom.py,
 * pydicom) stacks along the normal, not by name; a folder holding the same slices as the
 * frames of one multi-frame object (stored in reverse order) stacks by frame position. */
static void
test_dicom_by_position (void)
{
  const char *options[] = { "--slices", G_STRINGIFY (N_PHANTOM), "--size",
                            G_STRINGIFY (PHANTOM_SIZE), "--orientations", "axial",
                            "--shuffle", "26", "--shuffle-numbers", "--multiframe", NULL };
  g_autoptr(JsonNode) manifest = NULL;
  g_autofree char *root = lb_test_make_phantom ("store-stack-dicom", options, &manifest);
  g_autofree char *mf_dir = NULL, *from = NULL, *to = NULL;
  LbTestServer phantom_server = { 0 };

  if (root == NULL)
    {
      g_test_skip ("make-phantom.py needs pydicom and numpy");
      return;
    }
  /* the multi-frame object alone in a folder of its own */
  mf_dir = g_build_filename (root, "multiframe", NULL);
  from = g_build_filename (root, "multiframe.dcm", NULL);
  to = g_build_filename (mf_dir, "multiframe.dcm", NULL);
  g_assert_cmpint (g_mkdir (mf_dir, 0755), ==, 0);
  g_assert_cmpint (g_rename (from, to), ==, 0);
  lb_test_server_start (&phantom_server, root);
  lb_window_open_store (win, phantom_server.url);
  page_phantom (lb_test_phantom_series (manifest, "axial"), "axial", NULL);
  page_phantom (lb_test_phantom_series (manifest, "axial"), "multiframe", "multiframe.dcm");
  lb_test_server_stop (&phantom_server);
  lb_test_remove_tree (root);
}

int
main (int argc, char **argv)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *json = NULL;
  g_autoptr(GError) error = NULL;
  int ret;

  if (!lb_test_ui_init (&argc, &argv))
    return 0;
  if (g_getenv ("LB_NGINX_JSON_URL") != NULL)
    {
      /* under the document root of servers.sh's nginx, readable by its workers */
      store_dir = g_build_filename (g_getenv ("LB_STORES_RUNDIR"), "www-nginx", "store-stack",
                                    NULL);
      g_assert_cmpint (g_mkdir_with_parents (store_dir, 0755), ==, 0);
      store_url = g_strconcat (g_getenv ("LB_NGINX_JSON_URL"), "store-stack/", NULL);
    }
  else
    store_dir = lb_test_make_tmpdir ("store-stack");
  json = lb_test_run_reference ("ui", "stack-slices.py", store_dir);
  if (json == NULL)
    {
      g_print ("1..0 # SKIP stack-slices.py needs numpy and Pillow\n");
      lb_test_remove_tree (store_dir);
      return 0;
    }
  g_assert_true (json_parser_load_from_data (parser, json, -1, &error));
  reference = json_node_get_object (json_parser_get_root (parser));
  app = lb_test_ui_app_new ();
  if (store_url == NULL)
    {
      lb_test_server_start (&server, store_dir);
      store_url = g_strdup (server.url);
    }
  win = lb_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (win), 1200, 760);
  gtk_window_present (GTK_WINDOW (win));

  /* in this order: the refusal checks that the stack opened first stays */
  g_test_add_func ("/store-stack/natural-order", test_stack_in_natural_order);
  g_test_add_func ("/store-stack/mixed-refused", test_mixed_refused);
  g_test_add_func ("/store-stack/local-store", test_local_store);
  g_test_add_func ("/store-stack/dicom-by-position", test_dicom_by_position);
  ret = g_test_run ();
  lb_test_ui_drain (50);
  lb_test_server_stop (&server);
  lb_test_remove_tree (store_dir);
  g_free (store_url);
  g_clear_object (&app);
  return ret;
}
