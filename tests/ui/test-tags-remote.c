/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The DICOM tag browser on images that are not local files: a CT slice that pydicom writes
 * (tags-reference.py), read as a Part 10 file from a real lightbox-store over HTTP, and as an
 * instance of a real Orthanc over DICOMweb (tests/dicomweb/orthanc-run.sh; its data set is the
 * WADO-RS metadata). The browser must list PatientName, Rows and the item of a sequence with the
 * values pydicom reads back; the window's title names a DICOMweb instance by its patient,
 * series and instance number; the overlay's W/L line carries the unit of the CT's values.
 * A screenshot of the browser goes to LB_BUILD_ROOT.
 */
#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include "lb-tag-browser.h"
#include "lb-tag-row.h"
#include "lb-test-files.h"
#include "lb-test-loop.h"
#include "lb-test-process.h"
#include "lb-test-ui.h"

static LbApplication *app;
static LbWindow *win;
static JsonObject *ref;  /* what pydicom read back */
static LbTestServer server;
static char *dicomweb_url;  /* http://127.0.0.1:PORT/dicom-web */

static const char *
ref_string (const char *key)
{
  return json_object_get_string_member (ref, key);
}

/* ---- the window ------------------------------------------------------------------------------ */

static void
open_image (const char *store_uri, const char *uri)
{
  lb_test_ui_open_store_image (win, store_uri, uri);
}

static LbTagBrowser *
browser (void)
{
  GtkWidget *b = lb_window_test_get_tag_browser (win);

  g_assert_nonnull (b);
  return LB_TAG_BROWSER (b);
}

static guint
n_rows (void)
{
  return g_list_model_get_n_items (lb_tag_browser_get_model (browser ()));
}

static LbTagRow *
row_at (guint i)
{
  g_autoptr (GtkTreeListRow) row = g_list_model_get_item (lb_tag_browser_get_model (browser ()),
                                                          i);
  g_autoptr (LbTagRow) item = LB_TAG_ROW (gtk_tree_list_row_get_item (row));

  return item;  /* the model keeps it */
}

/* The browser, titled after @name, lists a data set. */
static gboolean
browser_lists (gpointer name)
{
  GtkWidget *b = lb_window_test_get_tag_browser (win);
  g_autofree char *title = g_strdup_printf ("DICOM Tags — %s", (const char *) name);

  return b != NULL && gtk_widget_get_visible (b)
         && g_strcmp0 (gtk_window_get_title (GTK_WINDOW (b)), title) == 0
         && g_list_model_get_n_items (lb_tag_browser_get_model (LB_TAG_BROWSER (b))) > 0;
}

/* The value of the top-level row @keyword. */
static const char *
value_of (const char *keyword)
{
  for (guint i = 0; i < n_rows (); i++)
    if (g_str_equal (lb_tag_row_get_keyword (row_at (i)), keyword))
      return lb_tag_row_get_value (row_at (i));
  g_error ("no row %s", keyword);
}

/* PatientName, Rows and the sequence's item are listed with pydicom's values. */
static void
check_tags (void)
{
  g_autofree char *items = g_strdup_printf ("%" G_GINT64_FORMAT " item",
                                            json_object_get_int_member (ref, "n_items"));

  lb_tag_browser_set_search (browser (), "");
  g_assert_cmpstr (value_of ("PatientName"), ==, ref_string ("PatientName"));
  g_assert_cmpstr (value_of ("Rows"), ==, ref_string ("Rows"));
  g_assert_cmpstr (value_of ("Columns"), ==, ref_string ("Columns"));
  g_assert_cmpstr (value_of ("ProcedureCodeSequence"), ==, items);
  /* a search opens the branch down to the item's element */
  lb_tag_browser_set_search (browser (), "CodeMeaning");
  g_assert_cmpuint (n_rows (), ==, 3);
  g_assert_cmpstr (lb_tag_row_get_keyword (row_at (0)), ==, "ProcedureCodeSequence");
  g_assert_cmpstr (lb_tag_row_get_keyword (row_at (1)), ==, "Item 1");
  g_assert_cmpstr (lb_tag_row_get_keyword (row_at (2)), ==, "CodeMeaning");
  g_assert_cmpstr (lb_tag_row_get_value (row_at (2)), ==, ref_string ("CodeMeaning"));
  lb_tag_browser_set_search (browser (), "ZZ0042");
  g_assert_cmpuint (n_rows (), ==, 3);
  g_assert_cmpstr (lb_tag_row_get_value (row_at (2)), ==, ref_string ("CodeValue"));
  lb_tag_browser_set_search (browser (), "");
}

/* The overlay's W/L line is the file's window in Hounsfield units. */
static void
check_window_line (void)
{
  const char *corner = gtk_label_get_text (GTK_LABEL (lb_window_test_get_child (
                                                        win, "overlay_bottom_right")));
  g_autofree char *want = g_strdup_printf ("%s HU\n", ref_string ("window"));

  g_test_message ("W/L corner: %s", corner);
  g_assert_true (g_str_has_prefix (corner, want));
}

/* ---- the cases ------------------------------------------------------------------------------- */

/* A Part 10 file over HTTP: the header read from the start of the download. */
static void
test_http (void)
{
  g_autofree char *uri = g_strconcat (server.url, "ct.dcm", NULL);

  open_image (server.url, uri);
  /* a file keeps its name as the title */
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (win)), ==, "ct.dcm — Lightbox");
  check_window_line ();
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "win.tag-browser", NULL));
  g_assert_true (lb_test_wait (browser_lists, (gpointer) "ct.dcm", 30000));
  check_tags ();
}

/* An instance of Orthanc, opened while the browser is open: it follows with the instance's
 * metadata; the window and the browser are titled as a reader names the image. */
static void
test_dicomweb (void)
{
  g_autofree char *store = g_strconcat ("dicomweb+", dicomweb_url, "/", NULL);
  g_autofree char *uri = g_strdup_printf ("%sstudies/%s/series/%s/instances/%s", store,
                                          ref_string ("study"), ref_string ("series"),
                                          ref_string ("instance"));
  g_autofree char *name = g_strdup_printf ("%s — %s #%s", ref_string ("reader_name"),
                                           ref_string ("series_description"),
                                           ref_string ("instance_number"));
  g_autofree char *title = g_strdup_printf ("%s — Lightbox", name);

  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (browser ())));
  open_image (store, uri);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (win)), ==, title);
  g_assert_true (lb_test_wait (browser_lists, name, 30000));
  check_tags ();
  /* the metadata names the pixels by their BulkDataURI, on the same server */
  g_assert_true (g_str_has_prefix (value_of ("PixelData"), dicomweb_url));
  check_window_line ();
}

/* Closing the browser mid-read drops the read; opening it again reads anew. */
static void
test_reopen (void)
{
  g_autofree char *name = g_strdup_printf ("%s — %s #%s", ref_string ("reader_name"),
                                           ref_string ("series_description"),
                                           ref_string ("instance_number"));

  gtk_window_close (GTK_WINDOW (browser ()));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (browser ())));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "win.tag-browser", NULL));
  gtk_window_close (GTK_WINDOW (browser ()));
  lb_test_ui_drain (300);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (browser ())));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "win.tag-browser", NULL));
  g_assert_true (lb_test_wait (browser_lists, name, 30000));
  check_tags ();
}

static void
test_screenshot (void)
{
  g_autoptr (GdkTexture) tex = NULL;
  g_autofree char *path = g_build_filename (g_getenv ("LB_BUILD_ROOT"), "ui-tags-remote.png",
                                            NULL);

  lb_tag_browser_set_search (browser (), "");
  {
    g_autoptr (GtkTreeListRow) seq = NULL;

    for (guint i = 0; i < n_rows () && seq == NULL; i++)
      if (g_str_equal (lb_tag_row_get_keyword (row_at (i)), "ProcedureCodeSequence"))
        seq = g_list_model_get_item (lb_tag_browser_get_model (browser ()), i);
    g_assert_nonnull (seq);
    gtk_tree_list_row_set_expanded (seq, TRUE);
  }
  gtk_window_present (GTK_WINDOW (browser ()));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (browser ()));
  lb_test_ui_drain (200);
  tex = lb_test_ui_render (GTK_WIDGET (browser ()));
  g_assert_true (gdk_texture_save_to_png (tex, path));
  g_test_message ("screenshot: %s", path);
}

int
main (int argc, char **argv)
{
  g_autofree char *dir = NULL;
  g_autofree char *json = NULL;
  g_autoptr (JsonNode) root = NULL;
  int ret;

  if (!lb_test_ui_init (&argc, &argv))
    return 0;
  if (lb_test_ui_dicomweb_url () == NULL)
    return 0;
  dicomweb_url = g_strdup (g_getenv ("LB_DICOMWEB_URL"));
  dir = lb_test_make_tmpdir ("tags-remote");
  json = lb_test_run_reference ("ui", "tags-reference.py", dir);
  if (json == NULL)
    {
      lb_test_remove_tree (dir);
      g_print ("1..0 # SKIP pydicom or numpy missing\n");
      return 0;
    }
  root = json_from_string (json, NULL);
  g_assert_nonnull (root);
  ref = json_node_get_object (root);
  lb_test_ui_orthanc_upload (ref_string ("file"));
  lb_test_server_start (&server, dir);

  app = lb_test_ui_app_new ();
  win = lb_window_new (app);
  gtk_window_present (GTK_WINDOW (win));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (win));
  g_test_add_func ("/tags-remote/http", test_http);
  g_test_add_func ("/tags-remote/dicomweb", test_dicomweb);
  g_test_add_func ("/tags-remote/reopen", test_reopen);
  g_test_add_func ("/tags-remote/screenshot", test_screenshot);
  ret = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (win));
  lb_test_ui_drain (50);
  g_clear_object (&app);
  lb_test_server_stop (&server);
  lb_test_remove_tree (dir);
  return ret;
}
