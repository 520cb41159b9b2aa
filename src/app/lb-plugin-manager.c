/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-plugin-manager"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-plugin-manager.h"

struct _LbPluginManager {
  GtkWindow         parent_instance;

  LbFilterRegistry *registry;   /* owned */
  GtkWidget        *problems;   /* GtkLabel */
  GtkWidget        *count;      /* GtkLabel */
};

G_DEFINE_FINAL_TYPE (LbPluginManager, lb_plugin_manager, GTK_TYPE_WINDOW)

typedef enum { COL_NAME, COL_ID, COL_CATEGORY, COL_VERSION, COL_KIND, COL_ORIGIN } Column;

static void
setup_label (GtkSignalListItemFactory *f,
             GtkListItem              *item,
             gpointer                  data)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  gtk_list_item_set_child (item, label);
}

static void
bind_label (GtkSignalListItemFactory *f,
            GtkListItem              *item,
            gpointer                  data)
{
  LbFilter *filter = gtk_list_item_get_item (item);
  const char *text = NULL;

  switch ((Column) GPOINTER_TO_INT (data))
    {
    case COL_NAME: text = lb_filter_get_name (filter); break;
    case COL_ID: text = lb_filter_get_id (filter); break;
    case COL_CATEGORY: text = lb_filter_get_category (filter); break;
    case COL_VERSION: text = lb_filter_get_version (filter); break;
    case COL_KIND:
      text = lb_filter_get_kind (filter) == LB_FILTER_KIND_PLUGIN ? _("plugin")
             : lb_filter_get_kind (filter) == LB_FILTER_KIND_KERNEL ? _("kernel") : _("chain");
      break;
    case COL_ORIGIN: text = lb_filter_get_origin (filter); break;
    default: break;
    }
  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (item)), text ? text : "—");
  gtk_widget_set_tooltip_text (gtk_list_item_get_child (item), text);
}

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

static void
lb_plugin_manager_dispose (GObject *object)
{
  LbPluginManager *self = LB_PLUGIN_MANAGER (object);

  if (self->registry)
    g_signal_handlers_disconnect_by_data (self->registry, self);
  g_clear_object (&self->registry);
  G_OBJECT_CLASS (lb_plugin_manager_parent_class)->dispose (object);
}

static void
lb_plugin_manager_class_init (LbPluginManagerClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = lb_plugin_manager_dispose;
}

static void
lb_plugin_manager_init (LbPluginManager *self)
{
}

static void
add_column (GtkColumnView *view,
            const char    *title,
            Column         col,
            gboolean       expand)
{
  GtkListItemFactory *f = gtk_signal_list_item_factory_new ();
  GtkColumnViewColumn *c;

  g_signal_connect (f, "setup", G_CALLBACK (setup_label), NULL);
  g_signal_connect (f, "bind", G_CALLBACK (bind_label), GINT_TO_POINTER (col));
  c = gtk_column_view_column_new (title, f);
  gtk_column_view_column_set_resizable (c, TRUE);
  gtk_column_view_column_set_expand (c, expand);
  gtk_column_view_append_column (view, c);
  g_object_unref (c);
}

LbPluginManager *
lb_plugin_manager_new (LbFilterRegistry *registry,
                       GtkWindow        *parent)
{
  LbPluginManager *self;
  GtkWidget *box, *scroller, *view, *frame, *title;
  GtkNoSelection *sel;

  g_return_val_if_fail (LB_IS_FILTER_REGISTRY (registry), NULL);
  self = g_object_new (LB_TYPE_PLUGIN_MANAGER, "title", _("Plugins"), "default-width", 900,
                       "default-height", 560, "transient-for", parent, NULL);
  self->registry = g_object_ref (registry);
  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_widget_set_margin_top (box, 12);
  gtk_widget_set_margin_bottom (box, 12);
  self->count = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->count), 0);
  gtk_box_append (GTK_BOX (box), self->count);

  sel = gtk_no_selection_new (G_LIST_MODEL (g_object_ref (registry)));
  view = gtk_column_view_new (GTK_SELECTION_MODEL (sel));
  gtk_accessible_update_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Loaded filters"), -1);
  add_column (GTK_COLUMN_VIEW (view), _("Name"), COL_NAME, TRUE);
  add_column (GTK_COLUMN_VIEW (view), _("Id"), COL_ID, TRUE);
  add_column (GTK_COLUMN_VIEW (view), _("Category"), COL_CATEGORY, FALSE);
  add_column (GTK_COLUMN_VIEW (view), _("Version"), COL_VERSION, FALSE);
  add_column (GTK_COLUMN_VIEW (view), _("Kind"), COL_KIND, FALSE);
  add_column (GTK_COLUMN_VIEW (view), _("File"), COL_ORIGIN, TRUE);
  scroller = gtk_scrolled_window_new ();
  gtk_widget_set_vexpand (scroller, TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), view);
  gtk_box_append (GTK_BOX (box), scroller);

  title = gtk_label_new (_("Load errors"));
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_widget_add_css_class (title, "heading");
  gtk_box_append (GTK_BOX (box), title);
  self->problems = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->problems), 0);
  gtk_label_set_wrap (GTK_LABEL (self->problems), TRUE);
  gtk_label_set_selectable (GTK_LABEL (self->problems), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->problems), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Load errors"), -1);
  frame = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (frame), 80);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (frame), self->problems);
  gtk_box_append (GTK_BOX (box), frame);
  gtk_window_set_child (GTK_WINDOW (self), box);

  g_signal_connect (registry, "items-changed", G_CALLBACK (on_items_changed), self);
  update_problems (self);
  return self;
}

const char *
lb_plugin_manager_get_problems_text (LbPluginManager *self)
{
  g_return_val_if_fail (LB_IS_PLUGIN_MANAGER (self), NULL);
  return gtk_label_get_text (GTK_LABEL (self->problems));
}
