/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-store-browser"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-store-browser.h"

/* ---- rows ------------------------------------------------------------------------------ */

typedef enum {
  NODE_ENTRY,
  NODE_LOADING,
  NODE_ERROR,
} NodeKind;

#define LB_TYPE_BROWSER_NODE (lb_browser_node_get_type ())
G_DECLARE_FINAL_TYPE (LbBrowserNode, lb_browser_node, LB, BROWSER_NODE, GObject)

#define LB_TYPE_BROWSER_CHILDREN (lb_browser_children_get_type ())
G_DECLARE_FINAL_TYPE (LbBrowserChildren, lb_browser_children, LB, BROWSER_CHILDREN, GObject)

/* One row: an entry, a "Loading…" spinner, or an error with Retry. */
struct _LbBrowserNode {
  GObject            parent_instance;
  NodeKind           kind;
  LbStoreEntry      *entry;      /* NODE_ENTRY */
  char              *message;    /* NODE_ERROR */
  char              *sort_key;
  LbBrowserChildren *children;   /* containers: created on demand, listed lazily */
  LbBrowserChildren *owner;      /* weak: the list this row is in (for Retry) */
};

G_DEFINE_FINAL_TYPE (LbBrowserNode, lb_browser_node, G_TYPE_OBJECT)

/* The children of one container, listed the first time GTK asks how many there are (that is,
 * when the row is expanded: GtkTreeListModel only calls create_func to learn if a row is
 * expandable, and only queries the child model once it is expanded). */
struct _LbBrowserChildren {
  GObject         parent_instance;
  GListStore     *items;
  char           *uri;          /* NULL = the store root */
  LbStoreBrowser *browser;      /* weak */
  gboolean        started;
  GCancellable   *cancellable;
};

static void lb_browser_children_model_init (GListModelInterface *iface);
G_DEFINE_FINAL_TYPE_WITH_CODE (LbBrowserChildren, lb_browser_children, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      lb_browser_children_model_init))

struct _LbStoreBrowser {
  GtkWidget          parent_instance;

  /* Owned */
  LbStore           *store;
  LbBrowserChildren *root;
  GtkTreeListModel  *tree;
  GtkSingleSelection *selection;
  GtkWidget         *scroller;
  GtkWidget         *view;
  guint              pending;
};

G_DEFINE_FINAL_TYPE (LbStoreBrowser, lb_store_browser, GTK_TYPE_WIDGET)

enum { SIGNAL_ENTRY_ACTIVATED, SIGNAL_LISTING_FAILED, N_SIGNALS };
static guint signals[N_SIGNALS];

enum { PROP_0, PROP_PENDING, N_PROPS };
static GParamSpec *properties[N_PROPS];

static void
lb_browser_node_finalize (GObject *object)
{
  LbBrowserNode *self = LB_BROWSER_NODE (object);

  g_clear_object (&self->entry);
  g_clear_object (&self->children);
  g_free (self->message);
  g_free (self->sort_key);
  G_OBJECT_CLASS (lb_browser_node_parent_class)->finalize (object);
}

static void
lb_browser_node_class_init (LbBrowserNodeClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = lb_browser_node_finalize;
}

static void
lb_browser_node_init (LbBrowserNode *self)
{
}

static LbBrowserNode *
node_new (NodeKind           kind,
          LbStoreEntry      *entry,
          const char        *message,
          LbBrowserChildren *owner)
{
  LbBrowserNode *node = g_object_new (LB_TYPE_BROWSER_NODE, NULL);

  node->kind = kind;
  node->entry = entry ? g_object_ref (entry) : NULL;
  node->message = g_strdup (message);
  node->owner = owner;
  if (entry != NULL)
    {
      g_autofree char *folded = g_utf8_casefold (lb_store_entry_get_display_name (entry), -1);
      node->sort_key = g_utf8_collate_key_for_filename (folded, -1);
    }
  return node;
}

static gboolean
node_is_container (LbBrowserNode *node)
{
  return node->kind == NODE_ENTRY && lb_store_entry_is_container (node->entry);
}

/* ---- children model -------------------------------------------------------------------- */

static void children_start (LbBrowserChildren *self);

static GType
children_get_item_type (GListModel *model)
{
  return LB_TYPE_BROWSER_NODE;
}

static guint
children_get_n_items (GListModel *model)
{
  LbBrowserChildren *self = LB_BROWSER_CHILDREN (model);

  children_start (self);
  return g_list_model_get_n_items (G_LIST_MODEL (self->items));
}

static gpointer
children_get_item (GListModel *model,
                   guint       position)
{
  LbBrowserChildren *self = LB_BROWSER_CHILDREN (model);

  children_start (self);
  return g_list_model_get_item (G_LIST_MODEL (self->items), position);
}

static void
lb_browser_children_model_init (GListModelInterface *iface)
{
  iface->get_item_type = children_get_item_type;
  iface->get_n_items = children_get_n_items;
  iface->get_item = children_get_item;
}

static void
on_items_changed (GListModel        *items,
                  guint              position,
                  guint              removed,
                  guint              added,
                  LbBrowserChildren *self)
{
  g_list_model_items_changed (G_LIST_MODEL (self), position, removed, added);
}

static void
lb_browser_children_dispose (GObject *object)
{
  LbBrowserChildren *self = LB_BROWSER_CHILDREN (object);

  if (self->cancellable)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->items)
    g_signal_handlers_disconnect_by_func (self->items, on_items_changed, self);
  g_clear_object (&self->items);
  g_clear_weak_pointer (&self->browser);
  G_OBJECT_CLASS (lb_browser_children_parent_class)->dispose (object);
}

static void
lb_browser_children_finalize (GObject *object)
{
  g_free (LB_BROWSER_CHILDREN (object)->uri);
  G_OBJECT_CLASS (lb_browser_children_parent_class)->finalize (object);
}

static void
lb_browser_children_class_init (LbBrowserChildrenClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = lb_browser_children_dispose;
  G_OBJECT_CLASS (klass)->finalize = lb_browser_children_finalize;
}

static void
lb_browser_children_init (LbBrowserChildren *self)
{
  self->items = g_list_store_new (LB_TYPE_BROWSER_NODE);
  g_signal_connect (self->items, "items-changed", G_CALLBACK (on_items_changed), self);
}

static LbBrowserChildren *
children_new (LbStoreBrowser *browser,
              const char     *uri)
{
  LbBrowserChildren *self = g_object_new (LB_TYPE_BROWSER_CHILDREN, NULL);

  LbBrowserNode *loading;

  self->uri = g_strdup (uri);
  g_set_weak_pointer (&self->browser, browser);
  loading = node_new (NODE_LOADING, NULL, NULL, self);
  g_list_store_append (self->items, loading);
  g_object_unref (loading);
  return self;
}

static int
compare_nodes (gconstpointer a,
               gconstpointer b)
{
  LbBrowserNode *na = *(LbBrowserNode **) a, *nb = *(LbBrowserNode **) b;
  gboolean ca = node_is_container (na), cb = node_is_container (nb);

  /* containers first, then by name the way file managers order them */
  if (ca != cb)
    return ca ? -1 : 1;
  return strcmp (na->sort_key, nb->sort_key);
}

static void
set_pending (LbStoreBrowser *browser,
             int             delta)
{
  if (browser == NULL)
    return;
  browser->pending += delta;
  g_object_notify_by_pspec (G_OBJECT (browser), properties[PROP_PENDING]);
}

static void
on_listed (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr (LbBrowserChildren) self = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) entries = NULL;
  g_autoptr (GPtrArray) nodes = NULL;

  entries = lb_store_list_finish (LB_STORE (source), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || self->items == NULL)
    {
      set_pending (self->browser, -1);
      return;
    }
  nodes = g_ptr_array_new_with_free_func (g_object_unref);
  if (entries == NULL)
    {
      g_ptr_array_add (nodes, node_new (NODE_ERROR, NULL, error->message, self));
      g_debug ("listing %s failed: %s", self->uri ? self->uri : "root", error->message);
      if (self->browser)
        g_signal_emit (self->browser, signals[SIGNAL_LISTING_FAILED], 0, error);
    }
  else
    {
      g_ptr_array_set_size (nodes, 0);
      for (guint i = 0; i < entries->len; i++)
        g_ptr_array_add (nodes, node_new (NODE_ENTRY, g_ptr_array_index (entries, i), NULL, self));
      g_ptr_array_sort (nodes, compare_nodes);
    }
  /* one splice replaces the spinner row: a single items-changed even for 100 000 entries */
  g_list_store_splice (self->items, 0, g_list_model_get_n_items (G_LIST_MODEL (self->items)),
                       nodes->pdata, nodes->len);
  set_pending (self->browser, -1);
}

static gboolean
only_loading (LbBrowserChildren *self)
{
  g_autoptr (LbBrowserNode) first = NULL;

  if (g_list_model_get_n_items (G_LIST_MODEL (self->items)) != 1)
    return FALSE;
  first = g_list_model_get_item (G_LIST_MODEL (self->items), 0);
  return first->kind == NODE_LOADING;
}

static void
children_list (LbBrowserChildren *self)
{
  if (self->browser == NULL || self->browser->store == NULL)
    return;
  if (self->cancellable)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  /* one spinner row while the listing runs (already there the first time) */
  if (!only_loading (self))
    {
      g_autoptr (LbBrowserNode) loading = node_new (NODE_LOADING, NULL, NULL, self);
      g_list_store_splice (self->items, 0, g_list_model_get_n_items (G_LIST_MODEL (self->items)),
                           (gpointer *) &loading, 1);
    }
  set_pending (self->browser, +1);
  lb_store_list_async (self->browser->store, self->uri, self->cancellable, NULL, NULL,
                       on_listed, g_object_ref (self));
}

static gboolean
children_start_idle (gpointer data)
{
  LbBrowserChildren *self = data;

  children_list (self);
  set_pending (self->browser, -1);
  return G_SOURCE_REMOVE;
}

/* Called from get_n_items/get_item: GTK is in the middle of reading the model, so nothing
 * may change now; the listing starts from an idle. */
static void
children_start (LbBrowserChildren *self)
{
  if (self->started)
    return;
  self->started = TRUE;
  /* counts as running from now, so waiting for "no pending listings" is reliable */
  set_pending (self->browser, +1);
  g_idle_add_full (G_PRIORITY_DEFAULT, children_start_idle, g_object_ref (self), g_object_unref);
}

/* ---- tree model ------------------------------------------------------------------------ */

static GListModel *
create_children (gpointer item,
                 gpointer user_data)
{
  LbStoreBrowser *browser = user_data;
  LbBrowserNode *node = item;

  if (!node_is_container (node))
    return NULL;
  if (node->children == NULL)
    node->children = children_new (browser, lb_store_entry_get_uri (node->entry));
  return g_object_ref (G_LIST_MODEL (node->children));
}

static LbBrowserNode *
row_node (GtkListItem *item)
{
  GtkTreeListRow *row = gtk_list_item_get_item (item);

  return row ? gtk_tree_list_row_get_item (row) : NULL;
}

static const char *
icon_for_kind (LbStoreEntryKind kind)
{
  switch (kind)
    {
    case LB_STORE_ENTRY_DIRECTORY: return "folder-symbolic";
    case LB_STORE_ENTRY_IMAGE: return "image-x-generic-symbolic";
    case LB_STORE_ENTRY_DICOM_FILE: return "x-office-document-symbolic";
    case LB_STORE_ENTRY_DICOM_PATIENT: return "avatar-default-symbolic";
    case LB_STORE_ENTRY_DICOM_STUDY: return "folder-documents-symbolic";
    case LB_STORE_ENTRY_DICOM_SERIES: return "view-paged-symbolic";
    case LB_STORE_ENTRY_DICOM_INSTANCE: return "image-x-generic-symbolic";
    case LB_STORE_ENTRY_FILE:
    case LB_STORE_ENTRY_UNKNOWN:
    default: return "text-x-generic-symbolic";
    }
}

static void
on_retry_clicked (GtkButton     *button,
                  LbBrowserNode *node)
{
  if (node->owner != NULL)
    children_list (node->owner);
}

static void
name_setup (GtkSignalListItemFactory *factory,
            GtkListItem              *item,
            gpointer                  user_data)
{
  GtkWidget *expander = gtk_tree_expander_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *icon = gtk_image_new ();
  GtkWidget *spinner = gtk_spinner_new ();
  GtkWidget *label = gtk_label_new (NULL);
  GtkWidget *retry = gtk_button_new_with_label (_("Retry"));

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  /* names matter more than dates: keep room for about 18 characters */
  gtk_label_set_width_chars (GTK_LABEL (label), 18);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_widget_add_css_class (retry, "flat");
  gtk_accessible_update_property (GTK_ACCESSIBLE (retry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Retry listing"), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (spinner), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Loading"), -1);
  gtk_box_append (GTK_BOX (box), icon);
  gtk_box_append (GTK_BOX (box), spinner);
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), retry);
  gtk_tree_expander_set_child (GTK_TREE_EXPANDER (expander), box);
  g_object_set_data (G_OBJECT (item), "icon", icon);
  g_object_set_data (G_OBJECT (item), "spinner", spinner);
  g_object_set_data (G_OBJECT (item), "label", label);
  g_object_set_data (G_OBJECT (item), "retry", retry);
  gtk_list_item_set_child (item, expander);
}

static void
name_bind (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           gpointer                  user_data)
{
  GtkWidget *expander = gtk_list_item_get_child (item);
  GtkWidget *icon = g_object_get_data (G_OBJECT (item), "icon");
  GtkWidget *spinner = g_object_get_data (G_OBJECT (item), "spinner");
  GtkWidget *label = g_object_get_data (G_OBJECT (item), "label");
  GtkWidget *retry = g_object_get_data (G_OBJECT (item), "retry");
  LbBrowserNode *node = row_node (item);

  gtk_tree_expander_set_list_row (GTK_TREE_EXPANDER (expander), gtk_list_item_get_item (item));
  gtk_widget_set_visible (icon, node->kind == NODE_ENTRY || node->kind == NODE_ERROR);
  gtk_widget_set_visible (spinner, node->kind == NODE_LOADING);
  gtk_spinner_set_spinning (GTK_SPINNER (spinner), node->kind == NODE_LOADING);
  gtk_widget_set_visible (retry, node->kind == NODE_ERROR);
  gtk_widget_remove_css_class (label, "error");
  switch (node->kind)
    {
    case NODE_ENTRY:
      gtk_image_set_from_icon_name (GTK_IMAGE (icon),
                                    icon_for_kind (lb_store_entry_get_kind (node->entry)));
      gtk_label_set_text (GTK_LABEL (label), lb_store_entry_get_display_name (node->entry));
      gtk_widget_set_tooltip_text (label, lb_store_entry_get_uri (node->entry));
      break;
    case NODE_LOADING:
      gtk_label_set_text (GTK_LABEL (label), _("Loading…"));
      gtk_widget_set_tooltip_text (label, NULL);
      break;
    case NODE_ERROR:
    default:
      gtk_image_set_from_icon_name (GTK_IMAGE (icon), "dialog-error-symbolic");
      gtk_label_set_text (GTK_LABEL (label), node->message);
      gtk_widget_set_tooltip_text (label, node->message);
      gtk_widget_add_css_class (label, "error");
      g_signal_connect (retry, "clicked", G_CALLBACK (on_retry_clicked), node);
      break;
    }
}

static void
name_unbind (GtkSignalListItemFactory *factory,
             GtkListItem              *item,
             gpointer                  user_data)
{
  GtkWidget *retry = g_object_get_data (G_OBJECT (item), "retry");
  LbBrowserNode *node = row_node (item);

  if (node != NULL)
    g_signal_handlers_disconnect_by_func (retry, on_retry_clicked, node);
}

static void
label_setup (GtkSignalListItemFactory *factory,
             GtkListItem              *item,
             gpointer                  user_data)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), GPOINTER_TO_INT (user_data) ? 1.0f : 0.0f);
  gtk_widget_add_css_class (label, "numeric");
  gtk_widget_add_css_class (label, "dim-label");
  gtk_list_item_set_child (item, label);
}

static void
size_bind (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           gpointer                  user_data)
{
  LbBrowserNode *node = row_node (item);
  g_autofree char *text = NULL;

  if (node->kind == NODE_ENTRY && lb_store_entry_get_size (node->entry) >= 0
      && !lb_store_entry_is_container (node->entry))
    text = g_format_size (lb_store_entry_get_size (node->entry));
  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (item)), text ? text : "");
}

static void
date_bind (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           gpointer                  user_data)
{
  LbBrowserNode *node = row_node (item);
  g_autofree char *text = NULL;
  GDateTime *mtime;

  if (node->kind == NODE_ENTRY && (mtime = lb_store_entry_get_mtime (node->entry)) != NULL)
    {
      g_autoptr (GDateTime) local = g_date_time_to_local (mtime);
      text = g_date_time_format (local, "%Y-%m-%d %H:%M");
    }
  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (item)), text ? text : "");
}

static GtkColumnViewColumn *
make_column (const char *title,
             GCallback   setup,
             GCallback   bind,
             GCallback   unbind,
             gpointer    data)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();

  g_signal_connect (factory, "setup", setup, data);
  g_signal_connect (factory, "bind", bind, data);
  if (unbind)
    g_signal_connect (factory, "unbind", unbind, data);
  return gtk_column_view_column_new (title, factory);
}

/* ---- widget ---------------------------------------------------------------------------- */

static void
on_activate (GtkColumnView  *view,
             guint           position,
             LbStoreBrowser *self)
{
  lb_store_browser_activate_row (self, position);
}

static void
lb_store_browser_dispose (GObject *object)
{
  LbStoreBrowser *self = LB_STORE_BROWSER (object);

  g_clear_pointer (&self->scroller, gtk_widget_unparent);
  g_clear_object (&self->selection);
  g_clear_object (&self->root);
  g_clear_object (&self->store);
  G_OBJECT_CLASS (lb_store_browser_parent_class)->dispose (object);
}

static void
lb_store_browser_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_PENDING: g_value_set_uint (value, LB_STORE_BROWSER (object)->pending); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lb_store_browser_class_init (LbStoreBrowserClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lb_store_browser_dispose;
  object_class->get_property = lb_store_browser_get_property;
  properties[PROP_PENDING] = g_param_spec_uint ("pending", NULL, NULL, 0, G_MAXUINT, 0,
                                                G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  signals[SIGNAL_ENTRY_ACTIVATED] =
    g_signal_new ("entry-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 1, LB_TYPE_STORE_ENTRY);
  /* a listing failed (the error row shows it too); the window explains TLS problems */
  signals[SIGNAL_LISTING_FAILED] =
    g_signal_new ("listing-failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 1, G_TYPE_ERROR);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "lb-store-browser");
}

static void
lb_store_browser_init (LbStoreBrowser *self)
{
  GtkColumnViewColumn *col;

  self->selection = gtk_single_selection_new (NULL);
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  self->view = gtk_column_view_new (GTK_SELECTION_MODEL (g_object_ref (self->selection)));
  gtk_column_view_set_show_column_separators (GTK_COLUMN_VIEW (self->view), FALSE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->view), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Store Tree"), -1);
  col = make_column (_("Name"), G_CALLBACK (name_setup), G_CALLBACK (name_bind),
                     G_CALLBACK (name_unbind), NULL);
  gtk_column_view_column_set_expand (col, TRUE);
  gtk_column_view_column_set_resizable (col, TRUE);
  gtk_column_view_append_column (GTK_COLUMN_VIEW (self->view), col);
  g_object_unref (col);
  col = make_column (_("Size"), G_CALLBACK (label_setup), G_CALLBACK (size_bind), NULL,
                     GINT_TO_POINTER (1));
  gtk_column_view_column_set_resizable (col, TRUE);
  gtk_column_view_append_column (GTK_COLUMN_VIEW (self->view), col);
  g_object_unref (col);
  col = make_column (_("Modified"), G_CALLBACK (label_setup), G_CALLBACK (date_bind), NULL,
                     GINT_TO_POINTER (0));
  gtk_column_view_column_set_resizable (col, TRUE);
  gtk_column_view_append_column (GTK_COLUMN_VIEW (self->view), col);
  g_object_unref (col);
  g_signal_connect (self->view, "activate", G_CALLBACK (on_activate), self);

  self->scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (self->scroller), GTK_POLICY_AUTOMATIC,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->scroller), self->view);
  gtk_widget_set_parent (self->scroller, GTK_WIDGET (self));
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);
}

GtkWidget *
lb_store_browser_new (void)
{
  return g_object_new (LB_TYPE_STORE_BROWSER, NULL);
}

void
lb_store_browser_set_store (LbStoreBrowser *self,
                            LbStore        *store)
{
  g_return_if_fail (LB_IS_STORE_BROWSER (self));

  gtk_single_selection_set_model (self->selection, NULL);
  g_clear_object (&self->tree);
  g_clear_object (&self->root);
  g_set_object (&self->store, store);
  if (store == NULL)
    return;
  self->root = children_new (self, NULL);
  self->tree = gtk_tree_list_model_new (G_LIST_MODEL (g_object_ref (self->root)), FALSE, FALSE,
                                        create_children, self, NULL);
  gtk_single_selection_set_model (self->selection, G_LIST_MODEL (self->tree));
  /* the root is listed at once */
  children_start (self->root);
}

LbStore *
lb_store_browser_get_store (LbStoreBrowser *self)
{
  g_return_val_if_fail (LB_IS_STORE_BROWSER (self), NULL);
  return self->store;
}

GListModel *
lb_store_browser_get_rows (LbStoreBrowser *self)
{
  g_return_val_if_fail (LB_IS_STORE_BROWSER (self), NULL);
  return self->tree ? G_LIST_MODEL (self->tree) : NULL;
}

static LbBrowserNode *
node_at (LbStoreBrowser *self,
         guint           position)
{
  g_autoptr (GtkTreeListRow) row = NULL;
  LbBrowserNode *node;

  if (self->tree == NULL)
    return NULL;
  row = g_list_model_get_item (G_LIST_MODEL (self->tree), position);
  if (row == NULL)
    return NULL;
  node = gtk_tree_list_row_get_item (row);
  /* rows keep their item alive as long as the model holds it */
  g_object_unref (node);
  return node;
}

gboolean
lb_store_browser_expand_row (LbStoreBrowser *self,
                             guint           position,
                             gboolean        expand)
{
  g_autoptr (GtkTreeListRow) row = NULL;

  g_return_val_if_fail (LB_IS_STORE_BROWSER (self), FALSE);
  if (self->tree == NULL)
    return FALSE;
  row = gtk_tree_list_model_get_row (self->tree, position);
  if (row == NULL || !gtk_tree_list_row_is_expandable (row))
    return FALSE;
  gtk_tree_list_row_set_expanded (row, expand);
  return TRUE;
}

LbStoreEntry *
lb_store_browser_get_entry (LbStoreBrowser *self,
                            guint           position)
{
  LbBrowserNode *node;

  g_return_val_if_fail (LB_IS_STORE_BROWSER (self), NULL);
  node = node_at (self, position);
  return node && node->kind == NODE_ENTRY ? node->entry : NULL;
}

guint
lb_store_browser_find_row (LbStoreBrowser *self,
                           const char     *name)
{
  guint n;

  g_return_val_if_fail (LB_IS_STORE_BROWSER (self), G_MAXUINT);
  if (self->tree == NULL)
    return G_MAXUINT;
  n = g_list_model_get_n_items (G_LIST_MODEL (self->tree));
  for (guint i = 0; i < n; i++)
    {
      LbBrowserNode *node = node_at (self, i);
      if (node && node->kind == NODE_ENTRY
          && g_strcmp0 (lb_store_entry_get_name (node->entry), name) == 0)
        return i;
    }
  return G_MAXUINT;
}

void
lb_store_browser_select_row (LbStoreBrowser *self,
                             guint           position)
{
  GtkWidget *child;

  g_return_if_fail (LB_IS_STORE_BROWSER (self));
  gtk_single_selection_set_selected (self->selection, position);
  /* GtkColumnView 4.8 has no scroll_to: its inner GtkListView has the action */
  for (child = gtk_widget_get_first_child (self->view); child;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_LIST_VIEW (child))
      gtk_widget_activate_action (child, "list.scroll-to-item", "u", position);
}

gboolean
lb_store_browser_search (LbStoreBrowser *self,
                         const char     *text,
                         gboolean        next)
{
  g_autofree char *needle = NULL;
  guint n, start, contains = G_MAXUINT;

  g_return_val_if_fail (LB_IS_STORE_BROWSER (self), FALSE);
  if (self->tree == NULL || text == NULL || *text == '\0')
    return FALSE;
  needle = g_utf8_casefold (text, -1);
  n = g_list_model_get_n_items (G_LIST_MODEL (self->tree));
  start = gtk_single_selection_get_selected (self->selection);
  start = start == GTK_INVALID_LIST_POSITION ? 0 : start + (next ? 1 : 0);
  for (guint k = 0; k < n; k++)
    {
      guint i = (start + k) % n;
      LbBrowserNode *node = node_at (self, i);
      g_autofree char *hay = NULL;

      if (node == NULL || node->kind != NODE_ENTRY)
        continue;
      hay = g_utf8_casefold (lb_store_entry_get_display_name (node->entry), -1);
      if (g_str_has_prefix (hay, needle))
        {
          lb_store_browser_select_row (self, i);
          return TRUE;
        }
      if (contains == G_MAXUINT && strstr (hay, needle) != NULL)
        contains = i;
    }
  if (contains != G_MAXUINT)
    {
      lb_store_browser_select_row (self, contains);
      return TRUE;
    }
  return FALSE;
}

void
lb_store_browser_activate_row (LbStoreBrowser *self,
                               guint           position)
{
  LbBrowserNode *node;

  g_return_if_fail (LB_IS_STORE_BROWSER (self));
  node = node_at (self, position);
  if (node == NULL)
    return;
  if (node->kind == NODE_ERROR && node->owner != NULL)
    children_list (node->owner);
  else if (node_is_container (node))
    {
      g_autoptr (GtkTreeListRow) row = gtk_tree_list_model_get_row (self->tree, position);
      gtk_tree_list_row_set_expanded (row, !gtk_tree_list_row_get_expanded (row));
    }
  else if (node->kind == NODE_ENTRY)
    g_signal_emit (self, signals[SIGNAL_ENTRY_ACTIVATED], 0, node->entry);
}

guint
lb_store_browser_get_pending (LbStoreBrowser *self)
{
  g_return_val_if_fail (LB_IS_STORE_BROWSER (self), 0);
  return self->pending;
}

static LbBrowserChildren *
find_children (LbBrowserChildren *list,
               const char        *uri)
{
  guint n;

  if (list == NULL)
    return NULL;
  if (g_strcmp0 (list->uri, uri) == 0)
    return list;
  n = g_list_model_get_n_items (G_LIST_MODEL (list->items));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (LbBrowserNode) node = g_list_model_get_item (G_LIST_MODEL (list->items), i);
      LbBrowserChildren *found;

      if (node->children != NULL && node->children->started
          && (found = find_children (node->children, uri)) != NULL)
        return found;
    }
  return NULL;
}

void
lb_store_browser_refresh_parent (LbStoreBrowser *self,
                                 const char     *uri)
{
  g_autofree char *parent = NULL;
  LbBrowserChildren *list;

  g_return_if_fail (LB_IS_STORE_BROWSER (self));
  if (self->store == NULL || uri == NULL)
    return;
  parent = lb_store_uri_parent (uri);
  list = find_children (self->root, parent);
  /* the root list has uri NULL but the store's root URI is what uploads name */
  if (list == NULL && g_strcmp0 (parent, lb_store_get_uri (self->store)) == 0)
    list = self->root;
  if (list != NULL && list->started)
    children_list (list);
}

GtkWidget *
lb_store_browser_get_view (LbStoreBrowser *self)
{
  g_return_val_if_fail (LB_IS_STORE_BROWSER (self), NULL);
  return self->view;
}
