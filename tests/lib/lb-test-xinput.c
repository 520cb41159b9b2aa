/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <gtk/gtk.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif

#include "lb-test-loop.h"
#include "lb-test-process.h"
#include "lb-test-xinput.h"

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
  GtkNative *native = gtk_widget_get_native (widget);

  return gtk_widget_get_mapped (widget) && gtk_widget_get_width (widget) > 0 && native != NULL
         && gdk_surface_get_mapped (gtk_native_get_surface (native));
}

#ifdef GDK_WINDOWING_X11
static gulong
xid_of (GtkWidget *widget)
{
  GdkSurface *surface = gtk_native_get_surface (gtk_widget_get_native (widget));
  gulong xid;

  /* GTK 4.18 deprecates the whole X11 backend, with no replacement for the window id that
   * xdotool needs; the tests run under Xvfb on every release, so they keep asking for it. */
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  xid = (gulong) gdk_x11_surface_get_xid (surface);
  G_GNUC_END_IGNORE_DEPRECATIONS
  return xid;
}
#endif

void
lb_test_point_at_xy (GtkWidget *widget,
                     double     x,
                     double     y)
{
#ifdef GDK_WINDOWING_X11
  GtkNative *native;
  graphene_point_t p, at = GRAPHENE_POINT_INIT (x, y);
  double sx, sy;
  gulong xid;
  int wx, wy;
  g_autofree char *move = NULL, *focus = NULL;
  /* where the last move put the pointer: "mousemove --sync" to the point the pointer is at
   * waits for a motion that never comes (15 s, then gives up) */
  static gulong last_xid;
  static int last_x = -1, last_y = -1;

  g_assert_true (lb_test_wait (on_screen, widget, 20000));
  native = gtk_widget_get_native (widget);
  g_assert_true (gtk_widget_compute_point (widget, GTK_WIDGET (native), &at, &p));
  gtk_native_get_surface_transform (native, &sx, &sy);
  xid = xid_of (widget);
  focus = g_strdup_printf ("windowfocus %lu", xid);
  lb_test_xdotool (focus);
  wx = (int) (p.x + sx);
  wy = (int) (p.y + sy);
  if (xid == last_xid && wx == last_x && wy == last_y)
    return;
  move = g_strdup_printf ("mousemove --sync --window %lu %d %d", xid, wx, wy);
  lb_test_xdotool (move);
  last_xid = xid;
  last_x = wx;
  last_y = wy;
#else
  g_assert_not_reached ();
#endif
}

void
lb_test_point_at (GtkWidget *widget)
{
  g_assert_true (lb_test_wait (on_screen, widget, 20000));
  lb_test_point_at_xy (widget, gtk_widget_get_width (widget) / 2.0,
                       gtk_widget_get_height (widget) / 2.0);
}

void
lb_test_press_keys (GtkWidget  *widget,
                    const char *keys)
{
#ifdef GDK_WINDOWING_X11
  g_autofree char *focus = NULL, *words = NULL;

  g_assert_true (lb_test_wait (on_screen, widget, 20000));
  focus = g_strdup_printf ("windowfocus --sync %lu", xid_of (widget));
  lb_test_xdotool (focus);
  words = g_strdup_printf ("key --delay 30 %s", keys);
  lb_test_xdotool (words);
#else
  g_assert_not_reached ();
#endif
}
