/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The workstation opens local DICOM as `lightbox FILE` does (GApplication::open): a .dcm file
 * (uncompressed, JPEG 2000, RLE colour) shows the pixels and the value model the Part 10 reader
 * decodes (which dicom-pixels and dicom-codec check against pydicom), a DICOMDIR opens its
 * file-set as a store whose tree starts with the DICOMDIR's patients, and a bad file brings the
 * error dialog that names the reason. Public API only: the widgets are found by type. */
#include <gtk/gtk.h>
#include <string.h>

#include "lb-application.h"
#include "lb-canvas.h"
#include "lb-dicom-file.h"
#include "lb-dicom-tags.h"
#include "lb-store-browser.h"
#include "lb-test-loop.h"
#include "lb-window.h"

static LbApplication *app;

static GtkWidget *
find_widget (GtkWidget *root, GType type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_widget (c, type);

      if (found)
        return found;
    }
  return NULL;
}

static LbWindow *
the_window (void)
{
  GtkWindow *w = gtk_application_get_active_window (GTK_APPLICATION (app));

  return w && LB_IS_WINDOW (w) ? LB_WINDOW (w) : NULL;
}

static void
open_path (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  GFile *files[] = { file };

  g_application_open (G_APPLICATION (app), files, 1, "");
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

static GtkWidget *
error_dialog (void)
{
  GListModel *tops = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (tops); i++)
    {
      g_autoptr(GObject) w = g_list_model_get_item (tops, i);

      if (GTK_IS_MESSAGE_DIALOG (w) && gtk_widget_get_visible (GTK_WIDGET (w)))
        return GTK_WIDGET (w);
    }
  return NULL;
}

static gboolean
has_error_dialog (gpointer data)
{
  return error_dialog () != NULL;
}

static void
test_open_bad_file (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("LB_TEST_DATA"), "dicom",
                                            "MR_truncated.dcm", NULL);
  g_autofree char *secondary = NULL;
  GtkWidget *dialog;

  open_path (path);
  g_assert_true (lb_test_wait (has_error_dialog, NULL, 20000));
  dialog = error_dialog ();
  g_object_get (dialog, "secondary-text", &secondary, NULL);
  g_test_message ("%s", secondary);
  g_assert_nonnull (strstr (secondary, "PixelData has 8192 bytes, only 8130 are left"));
  gtk_window_destroy (GTK_WINDOW (dialog));
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

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  int ret;

  gtk_test_init (&argc, &argv, NULL);
  if (gdk_display_get_default () == NULL)
    {
      g_print ("1..0 # SKIP no display\n");
      return 0;
    }
  app = lb_application_new ();
  g_application_set_flags (G_APPLICATION (app),
                           G_APPLICATION_NON_UNIQUE | G_APPLICATION_HANDLES_OPEN);
  g_application_register (G_APPLICATION (app), NULL, &error);
  g_assert_no_error (error);

  g_test_add_data_func ("/dicom/window/open-file/big-endian", "MR_small_bigendian.dcm",
                        test_open_file);
  g_test_add_data_func ("/dicom/window/open-file/jpeg2000", "JPEG2000.dcm", test_open_file);
  g_test_add_data_func ("/dicom/window/open-file/rle-colour", "SC_rgb_rle_2frame.dcm",
                        test_open_file);
  g_test_add_func ("/dicom/window/open-bad-file", test_open_bad_file);
  g_test_add_func ("/dicom/window/open-dicomdir", test_open_dicomdir);
  ret = g_test_run ();

  {
    GListModel *tops = gtk_window_get_toplevels ();

    while (g_list_model_get_n_items (tops) > 0)
      {
        g_autoptr(GObject) w = g_list_model_get_item (tops, 0);

        gtk_window_destroy (GTK_WINDOW (w));
      }
  }
  g_clear_object (&app);
  return ret;
}
