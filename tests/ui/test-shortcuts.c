/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The shortcuts window lists every accelerator the application sets: each action with an
 * accelerator (gtk_application_list_action_descriptions(), as the running workstation has
 * them) has each of its accelerators in ui/lb-shortcuts.ui, compared as parsed key and
 * modifiers, so "<Control>z" and "<Primary>z" agree, or an entry naming the action. */
#include <gtk/gtk.h>

#include "lb-test-app.h"

/* Whether @accel (as GTK spells it) of @action is among the shortcuts window's accelerators,
 * or @action has an entry of its own there (an entry naming its action shows that action's
 * accelerators as the application sets them). */
static gboolean
listed (GSList *objects, const char *action, const char *accel)
{
  guint key, want_key;
  GdkModifierType mods, want_mods;

  g_assert_true (gtk_accelerator_parse (accel, &want_key, &want_mods));
  for (GSList *l = objects; l != NULL; l = l->next)
    if (GTK_IS_SHORTCUTS_SHORTCUT (l->data))
      {
        g_autofree char *text = NULL, *name = NULL;
        g_auto(GStrv) words = NULL;

        g_object_get (l->data, "accelerator", &text, "action-name", &name, NULL);
        if (g_strcmp0 (name, action) == 0)
          return TRUE;
        if (text == NULL)
          continue;
        words = g_strsplit (text, " ", -1);
        for (guint i = 0; words[i] != NULL; i++)
          if (gtk_accelerator_parse (words[i], &key, &mods) && key == want_key
              && mods == want_mods)
            return TRUE;
      }
  return FALSE;
}

static LbApplication *app;

static void
test_every_accel_listed (void)
{
  g_autoptr(GtkBuilder) builder =
    gtk_builder_new_from_resource ("/io/github/lightbox/Lightbox/ui/lb-shortcuts.ui");
  GSList *objects = gtk_builder_get_objects (builder);
  g_auto(GStrv) actions = gtk_application_list_action_descriptions (GTK_APPLICATION (app));
  guint checked = 0, missing = 0;

  for (guint i = 0; actions[i] != NULL; i++)
    {
      g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app),
                                                                    actions[i]);

      for (guint k = 0; accels[k] != NULL; k++)
        {
          checked++;
          if (!listed (objects, actions[i], accels[k]))
            {
              g_test_message ("%s (%s) is not in the shortcuts window", actions[i], accels[k]);
              missing++;
            }
        }
    }
  g_slist_free (objects);
  g_test_message ("%u accelerators of %u actions checked", checked, g_strv_length (actions));
  g_assert_cmpuint (checked, >, 20);
  g_assert_cmpuint (missing, ==, 0);
}

int
main (int argc, char **argv)
{
  int ret;

  gtk_test_init (&argc, &argv, NULL);
  app = lb_test_app_new ();
  if (app == NULL)
    return 0;
  g_test_add_func ("/ui/shortcuts/every-accel-listed", test_every_accel_listed);
  ret = g_test_run ();
  lb_test_app_free (app);
  return ret;
}
