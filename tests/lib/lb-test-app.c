/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <gtk/gtk.h>

#include "lb-test-app.h"
#include "lb-test-loop.h"
#include "lb-test-process.h"

LbApplication *
lb_test_app_new (void)
{
  g_autoptr(GError) error = NULL;
  LbApplication *app;

  if (gdk_display_get_default () == NULL)
    {
      g_print ("1..0 # SKIP no display\n");
      return NULL;
    }
  app = lb_application_new ();
  g_application_set_flags (G_APPLICATION (app),
                           G_APPLICATION_NON_UNIQUE | G_APPLICATION_HANDLES_OPEN);
  g_application_register (G_APPLICATION (app), NULL, &error);
  g_assert_no_error (error);
  return app;
}

LbWindow *
lb_test_app_window (LbApplication *app)
{
  GtkWindow *w = gtk_application_get_active_window (GTK_APPLICATION (app));

  return w && LB_IS_WINDOW (w) ? LB_WINDOW (w) : NULL;
}

void
lb_test_app_open_path (LbApplication *app,
                       const char    *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  GFile *files[] = { file };

  g_application_open (G_APPLICATION (app), files, 1, "");
}

GtkWidget *
lb_test_find_widget (GtkWidget  *root,
                     GType       type,
                     const char *name)
{
  if ((type == 0 || G_TYPE_CHECK_INSTANCE_TYPE (root, type))
      && (name == NULL || g_strcmp0 (gtk_widget_get_name (root), name) == 0))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = lb_test_find_widget (c, type, name);

      if (found)
        return found;
    }
  return NULL;
}

static void
set_flag (gboolean *flag)
{
  *flag = TRUE;
}

GdkTexture *
lb_test_render_widget (GtkWidget *widget)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (widget);
  GtkWidget *parent = gtk_widget_get_parent (widget);
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  graphene_rect_t bounds = GRAPHENE_RECT_INIT (0, 0, w, h);
  g_autoptr(GskRenderNode) node = NULL;
  GtkSnapshot *snapshot;
  gboolean painted = FALSE;
  gulong id;

  g_assert_nonnull (clock);
  /* what the widget shows once it has drawn a frame */
  id = g_signal_connect_swapped (clock, "after-paint", G_CALLBACK (set_flag), &painted);
  gtk_widget_queue_draw (widget);
  while (!painted)
    g_main_context_iteration (NULL, TRUE);
  g_signal_handler_disconnect (clock, id);
  snapshot = gtk_snapshot_new ();
  if (parent != NULL)
    {
      /* as its parent draws it (where it sits in the parent), so that it is drawn anew if
       * anything asked for a redraw since the frame; a paintable would then be empty */
      g_assert_true (gtk_widget_compute_bounds (widget, parent, &bounds));
      gtk_widget_snapshot_child (parent, widget, snapshot);
    }
  else
    {
      g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);

      /* a toplevel that has not drawn since it was shown or resized snapshots to nothing;
       * on a loaded machine that can last a while (up to 10 s here) */
      gdk_paintable_snapshot (paintable, snapshot, w, h);
      node = gtk_snapshot_free_to_node (snapshot);
      for (int tries = 0; node == NULL && tries < 100; tries++)
        {
          gint64 until = g_get_monotonic_time () + 100 * 1000;

          while (g_get_monotonic_time () < until)
            if (!g_main_context_iteration (NULL, FALSE))
              g_usleep (1000);
          snapshot = gtk_snapshot_new ();
          gdk_paintable_snapshot (paintable, snapshot, w, h);
          node = gtk_snapshot_free_to_node (snapshot);
        }
      snapshot = NULL;
    }
  if (snapshot != NULL)
    node = gtk_snapshot_free_to_node (snapshot);
  if (node == NULL)
    return NULL;
  return gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (widget)),
                                      node, &bounds);
}

void
lb_test_app_free (LbApplication *app)
{
  GListModel *tops = gtk_window_get_toplevels ();

  while (g_list_model_get_n_items (tops) > 0)
    {
      g_autoptr(GObject) w = g_list_model_get_item (tops, 0);

      gtk_window_destroy (GTK_WINDOW (w));
    }
  g_clear_object (&app);
}
