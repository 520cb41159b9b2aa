/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-window"

#include "config.h"

#include "lb-window.h"

struct _LbWindow {
  GtkApplicationWindow parent_instance;
};

G_DEFINE_FINAL_TYPE (LbWindow, lb_window, GTK_TYPE_APPLICATION_WINDOW)

static void
lb_window_class_init (LbWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/lightbox/Lightbox/ui/lb-window.ui");
}

static void
lb_window_init (LbWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

LbWindow *
lb_window_new (LbApplication *app)
{
  return g_object_new (LB_TYPE_WINDOW, "application", app, NULL);
}
