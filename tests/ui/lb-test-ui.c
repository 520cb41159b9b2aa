/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "lb-test-ui.h"

#include <fcntl.h>
#include <glib/gstdio.h>
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

GdkTexture *
lb_test_ui_render (GtkWidget *widget)
{
  g_autoptr (GdkPaintable) p = gtk_widget_paintable_new (widget);
  GskRenderNode *node = NULL;
  GdkTexture *tex;
  int w = 0, h = 0;

  /* A widget that has not been drawn since it was shown or resized snapshots to nothing;
   * on a loaded machine that can last a while, so wait for a frame (up to 10 s). */
  for (int tries = 0; node == NULL && tries < 100; tries++)
    {
      GtkSnapshot *s = gtk_snapshot_new ();

      if (tries > 0)
        lb_test_ui_drain (100);
      w = gtk_widget_get_width (widget);
      h = gtk_widget_get_height (widget);
      gdk_paintable_snapshot (p, s, w, h);
      node = gtk_snapshot_free_to_node (s);
    }
  g_assert_nonnull (node);
  tex = gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (widget)),
                                     node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  gsk_render_node_unref (node);
  return tex;
}
