/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <gtk/gtk.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif

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

      gdk_paintable_snapshot (paintable, snapshot, w, h);
    }
  node = gtk_snapshot_free_to_node (snapshot);
  if (node == NULL)
    return NULL;
  return gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (widget)),
                                      node, &bounds);
}

gboolean
lb_test_have_xdotool (void)
{
#ifdef GDK_WINDOWING_X11
  g_autofree char *path = g_find_program_in_path ("xdotool");

  return path != NULL && GDK_IS_X11_DISPLAY (gdk_display_get_default ());
#else
  return FALSE;
#endif
}

void
lb_test_xdotool (const char *args)
{
  g_auto(GStrv) words = g_strsplit (args, " ", -1);
  g_autoptr(GStrvBuilder) b = g_strv_builder_new ();
  g_auto(GStrv) argv = NULL;
  g_autofree char *out = NULL, *err = NULL;
  int status;

  g_strv_builder_add (b, "xdotool");
  g_strv_builder_addv (b, (const char **) words);
  argv = g_strv_builder_end (b);
  out = lb_test_run_tool ((const char * const *) argv, &err, &status);
  if (status != 0)
    g_error ("xdotool %s: %s", args, err);
}

static gboolean
on_screen (gpointer data)
{
  GtkWidget *widget = data;

  return gtk_widget_get_mapped (widget) && gtk_widget_get_width (widget) > 0
         && gdk_surface_get_mapped (gtk_native_get_surface (gtk_widget_get_native (widget)));
}

void
lb_test_point_at (GtkWidget *widget)
{
#ifdef GDK_WINDOWING_X11
  GtkNative *native = gtk_widget_get_native (widget);
  GdkSurface *surface = gtk_native_get_surface (native);
  graphene_point_t p;
  graphene_point_t middle;
  double sx, sy;
  gulong xid;
  g_autofree char *move = NULL, *focus = NULL;

  g_assert_true (lb_test_wait (on_screen, widget, 20000));
  middle = GRAPHENE_POINT_INIT (gtk_widget_get_width (widget) / 2.0,
                                gtk_widget_get_height (widget) / 2.0);
  g_assert_true (gtk_widget_compute_point (widget, GTK_WIDGET (native), &middle, &p));
  gtk_native_get_surface_transform (native, &sx, &sy);
  /* GTK 4.18 deprecates the whole X11 backend, with no replacement for the window id that
   * xdotool needs; the tests run under Xvfb on every release, so they keep asking for it. */
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  xid = (gulong) gdk_x11_surface_get_xid (surface);
  G_GNUC_END_IGNORE_DEPRECATIONS
  focus = g_strdup_printf ("windowfocus %lu", xid);
  lb_test_xdotool (focus);
  move = g_strdup_printf ("mousemove --sync --window %lu %d %d", xid, (int) (p.x + sx),
                          (int) (p.y + sy));
  lb_test_xdotool (move);
#else
  g_assert_not_reached ();
#endif
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
