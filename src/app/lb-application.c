/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-application"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-application.h"
#include "lb-window.h"

struct _LbApplication {
  GtkApplication parent_instance;
};

G_DEFINE_FINAL_TYPE (LbApplication, lb_application, GTK_TYPE_APPLICATION)

static void
lb_application_activate (GApplication *app)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL)
    window = GTK_WINDOW (lb_window_new (LB_APPLICATION (app)));
  gtk_window_present (window);
}

static void
quit_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  g_application_quit (G_APPLICATION (user_data));
}

static void
lb_application_startup (GApplication *app)
{
  static const GActionEntry entries[] = {
    { .name = "quit", .activate = quit_activated },
  };
  static const char *quit_accels[] = { "<Control>q", NULL };

  G_APPLICATION_CLASS (lb_application_parent_class)->startup (app);

  /* Radiologists read in dark rooms: dark unless the user says otherwise. */
  g_object_set (gtk_settings_get_default (), "gtk-application-prefer-dark-theme", TRUE, NULL);

  g_action_map_add_action_entries (G_ACTION_MAP (app), entries, G_N_ELEMENTS (entries), app);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.quit", quit_accels);
}

static void
lb_application_class_init (LbApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  app_class->activate = lb_application_activate;
  app_class->startup = lb_application_startup;
}

static void
lb_application_init (LbApplication *self)
{
}

LbApplication *
lb_application_new (void)
{
  return g_object_new (LB_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN,
                       "resource-base-path", "/io/github/lightbox/Lightbox",
                       NULL);
}
