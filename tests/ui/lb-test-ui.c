/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "lb-test-ui.h"
#include "lb-test-app.h"

#include "lb-test-dialogs.h"
#include "lb-test-loop.h"
#include "lb-test-process.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

gboolean
lb_test_ui_init (int    *argc,
                 char ***argv)
{
  gtk_test_init (argc, argv, NULL);
  if (gdk_display_get_default () == NULL)
    {
      g_print ("1..0 # SKIP no display\n");
      return FALSE;
    }
  return TRUE;
}

const char *
lb_test_ui_dicomweb_url (void)
{
  const char *url = g_getenv ("LB_DICOMWEB_URL");

  if (url == NULL)
    g_print ("1..0 # SKIP run by tests/dicomweb/orthanc-run.sh\n");
  return url;
}

void
lb_test_ui_orthanc_upload (const char *path)
{
  const char *dicomweb = g_getenv ("LB_DICOMWEB_URL");
  g_autofree char *rest = NULL, *url = NULL, *at = NULL, *err = NULL, *out = NULL;
  int status;

  g_assert_nonnull (dicomweb);
  g_assert_true (g_str_has_suffix (dicomweb, "/dicom-web"));
  rest = g_strndup (dicomweb, strlen (dicomweb) - strlen ("/dicom-web"));
  url = g_strconcat (rest, "/instances", NULL);
  at = g_strconcat ("@", path, NULL);
  {
    const char *argv[] = { "curl", "-sf", "--noproxy", "*", "-H", "Expect:", "--data-binary",
                           at, url, NULL };

    out = lb_test_run_tool (argv, &err, &status);
  }
  if (status != 0)
    g_error ("curl %s: %s", url, err);
}

typedef struct {
  LbWindow   *win;
  const char *uri;
} Shown;

static gboolean
shows_uri (gpointer data)
{
  const Shown *w = data;
  LbHistory *h = lb_window_test_get_history (w->win);

  if (h == NULL || lb_window_is_busy (w->win))
    return FALSE;
  return g_strcmp0 (lb_image_meta_get_source_uri (lb_image_get_meta (lb_history_get_original (h))),
                    w->uri) == 0;
}

void
lb_test_ui_open_store_image (LbWindow   *win,
                             const char *store_uri,
                             const char *uri)
{
  Shown w = { win, uri };

  lb_window_open_store (win, store_uri);
  g_assert_true (lb_test_wait (lb_test_ui_tree_listed, win, 30000));
  lb_window_open_store_image (win, uri);
  g_assert_true (lb_test_wait (shows_uri, &w, 30000));
}

void
lb_test_ui_json_measurements (JsonBuilder *b, LbMeasurement *const *measurements, guint n)
{
  json_builder_begin_array (b);
  for (guint i = 0; i < n; i++)
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "tool");
      json_builder_add_string_value (b, lb_measurement_tool_to_string (
                                          lb_measurement_get_tool (measurements[i])));
      json_builder_set_member_name (b, "points");
      json_builder_begin_array (b);
      for (guint k = 0; k < lb_measurement_get_n_points (measurements[i]); k++)
        {
          LbMeasurementPoint p = lb_measurement_get_point (measurements[i], k);

          json_builder_begin_array (b);
          json_builder_add_double_value (b, p.x);
          json_builder_add_double_value (b, p.y);
          json_builder_end_array (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

JsonObject *
lb_test_ui_json_case (JsonArray *cases, const char *name)
{
  for (guint i = 0; i < json_array_get_length (cases); i++)
    {
      JsonObject *o = json_array_get_object_element (cases, i);

      if (g_strcmp0 (json_object_get_string_member (o, "name"), name) == 0)
        return o;
    }
  g_error ("no case %s", name);
}

LbApplication *
lb_test_ui_app_new (void)
{
  g_autoptr (GError) error = NULL;
  LbApplication *app = lb_application_new ();

  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_NON_UNIQUE);
  g_application_register (G_APPLICATION (app), NULL, &error);
  g_assert_no_error (error);
  return app;
}

int
lb_test_ui_main (int                 argc,
                 char              **argv,
                 LbApplication     **app,
                 const LbTestUiCase *cases,
                 gsize               n_cases)
{
  int ret;

  if (!lb_test_ui_init (&argc, &argv))
    return 0;
  *app = lb_test_ui_app_new ();
  for (gsize i = 0; i < n_cases; i++)
    g_test_add_func (cases[i].path, cases[i].func);
  ret = g_test_run ();
  lb_test_ui_drain (50);
  g_clear_object (app);
  return ret;
}

void
lb_test_ui_drain (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < end)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

gboolean
lb_test_ui_not_busy (gpointer window)
{
  return !lb_window_is_busy (LB_WINDOW (window));
}

gboolean
lb_test_ui_tree_listed (gpointer window)
{
  LbStoreBrowser *browser = lb_window_test_get_browser (LB_WINDOW (window));

  return lb_store_browser_get_pending (browser) == 0
         && lb_store_browser_get_rows (browser) != NULL
         && g_list_model_get_n_items (lb_store_browser_get_rows (browser)) > 0;
}

void
lb_test_ui_make_empty_files (const char *dir,
                             int         n)
{
  char name[64];

  for (int i = 0; i < n; i++)
    {
      g_autofree char *p = NULL;
      int fd;

      g_snprintf (name, sizeof name, "img-%06d.png", i);
      p = g_build_filename (dir, name, NULL);
      fd = g_open (p, O_CREAT | O_WRONLY, 0644);
      g_assert_cmpint (fd, >=, 0);
      close (fd);
    }
}

gboolean
lb_test_ui_has_upload_dialog (gpointer window)
{
  return lb_window_test_get_upload_dialog (LB_WINDOW (window)) != NULL;
}

static gboolean
no_upload_dialog (gpointer window)
{
  return lb_window_test_get_upload_dialog (LB_WINDOW (window)) == NULL;
}

void
lb_test_ui_upload_as (LbWindow   *win,
                      const char *name,
                      const char *conflict_choice)
{
  GtkEditable *entry;

  gtk_widget_activate_action (GTK_WIDGET (win), "win.upload", NULL);
  g_assert_true (lb_test_wait (lb_test_ui_has_upload_dialog, win, 2000));
  entry = GTK_EDITABLE (lb_window_test_get_upload_entry (win));
  gtk_editable_set_text (entry, name);
  /* Enter in the name uploads, as a user would */
  g_signal_emit_by_name (gtk_editable_get_delegate (entry), "activate");
  /* (the Upload button answers after its press animation) */
  g_assert_true (lb_test_wait (no_upload_dialog, win, 2000));
  if (conflict_choice != NULL)
    {
      g_assert_true (lb_test_wait (lb_test_has_dialog, win, 10000));
      g_assert_nonnull (lb_test_find_text (GTK_WIDGET (lb_test_dialog_over (GTK_WINDOW (win))),
                                           "already exists in the store"));
      lb_test_answer_dialog (GTK_WINDOW (win), conflict_choice);
    }
  g_assert_true (lb_test_wait (lb_test_ui_not_busy, win, 10000));
}

GdkTexture *
lb_test_ui_render (GtkWidget *widget)
{
  GdkTexture *tex = lb_test_render_widget (widget);

  g_assert_nonnull (tex);
  return tex;
}
