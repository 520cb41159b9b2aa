/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-plugin-manager"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-plugin-manager.h"

struct _LbPluginManager {
  GtkWindow         parent_instance;

  /* Template widgets */
  GtkNoSelection   *selection;
  GtkWidget        *problems;   /* GtkLabel */
  GtkWidget        *count;      /* GtkLabel */

  /* Owned */
  LbFilterRegistry *registry;
};

G_DEFINE_FINAL_TYPE (LbPluginManager, lb_plugin_manager, GTK_TYPE_WINDOW)

/* ---- table cells (the closures of ui/lb-plugin-manager.ui) ---------------------------- */

static char *
text_or_dash (gpointer    item,
              const char *text)
{
  return g_strdup (text ? text : "—");
}

static char *
kind_text (gpointer     item,
           LbFilter    *filter)
{
  if (filter == NULL)
    return NULL;
  switch (lb_filter_get_kind (filter))
    {
    case LB_FILTER_KIND_PLUGIN: return g_strdup (_("plugin"));
    case LB_FILTER_KIND_KERNEL: return g_strdup (_("kernel"));
    case LB_FILTER_KIND_PYTHON: return g_strdup (_("Python"));
    case LB_FILTER_KIND_CHAIN:
    default: return g_strdup (_("chain"));
    }
}

/* ---- window ---------------------------------------------------------------------------- */

static void
update_problems (LbPluginManager *self)
{
  GPtrArray *problems = lb_filter_registry_get_problems (self->registry);
  g_autoptr (GString) s = g_string_new (NULL);
  g_autofree char *count = NULL;
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->registry));

  for (guint i = 0; problems && i < problems->len; i++)
    {
      if (s->len)
        g_string_append_c (s, '\n');
      g_string_append (s, g_ptr_array_index (problems, i));
    }
  gtk_label_set_text (GTK_LABEL (self->problems), s->len ? s->str : _("No load errors."));
  count = g_strdup_printf (ngettext ("%u filter loaded", "%u filters loaded", n), n);
  gtk_label_set_text (GTK_LABEL (self->count), count);
}

static void
on_items_changed (GListModel      *model,
                  guint            position,
                  guint            removed,
                  guint            added,
                  LbPluginManager *self)
{
  update_problems (self);
}

/* plugins.reload (F5): scans the plugin and filter folders again; the registry reports what
 * changed through items-changed (the table) and problems-changed (the load errors). */
static void
reload_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  LbPluginManager *self = LB_PLUGIN_MANAGER (widget);

  lb_filter_registry_rescan (self->registry);
}

static void
lb_plugin_manager_dispose (GObject *object)
{
  LbPluginManager *self = LB_PLUGIN_MANAGER (object);

  if (self->registry)
    g_signal_handlers_disconnect_by_data (self->registry, self);
  gtk_widget_dispose_template (GTK_WIDGET (self), LB_TYPE_PLUGIN_MANAGER);
  g_clear_object (&self->registry);
  G_OBJECT_CLASS (lb_plugin_manager_parent_class)->dispose (object);
}

static void
lb_plugin_manager_class_init (LbPluginManagerClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = lb_plugin_manager_dispose;

  /* the cells look the type up by name */
  g_type_ensure (LB_TYPE_FILTER);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/lightbox/Lightbox/ui/lb-plugin-manager.ui");
  gtk_widget_class_bind_template_child (widget_class, LbPluginManager, selection);
  gtk_widget_class_bind_template_child (widget_class, LbPluginManager, problems);
  gtk_widget_class_bind_template_child (widget_class, LbPluginManager, count);
  gtk_widget_class_bind_template_callback (widget_class, text_or_dash);
  gtk_widget_class_bind_template_callback (widget_class, kind_text);

  gtk_widget_class_install_action (widget_class, "plugins.reload", NULL, reload_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F5, 0, "plugins.reload", NULL);
}

static void
lb_plugin_manager_init (LbPluginManager *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

LbPluginManager *
lb_plugin_manager_new (LbFilterRegistry *registry,
                       GtkWindow        *parent)
{
  LbPluginManager *self;

  g_return_val_if_fail (LB_IS_FILTER_REGISTRY (registry), NULL);
  self = g_object_new (LB_TYPE_PLUGIN_MANAGER, "transient-for", parent, NULL);
  self->registry = g_object_ref (registry);
  gtk_no_selection_set_model (self->selection, G_LIST_MODEL (registry));
  g_signal_connect (registry, "items-changed", G_CALLBACK (on_items_changed), self);
  /* a broken file fixed or removed changes no filter, only this list */
  g_signal_connect_swapped (registry, "problems-changed", G_CALLBACK (update_problems), self);
  update_problems (self);
  return self;
}

const char *
lb_plugin_manager_get_problems_text (LbPluginManager *self)
{
  g_return_val_if_fail (LB_IS_PLUGIN_MANAGER (self), NULL);
  return gtk_label_get_text (GTK_LABEL (self->problems));
}
