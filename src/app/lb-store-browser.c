/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-store-browser"

#include "config.h"

#include "lb-browser-children.h"
#include "lb-browser-node.h"
#include "lb-store-browser-private.h"

static const char *const sort_column_names[LB_BROWSER_N_SORT_COLUMNS] = { "name", "size",
                                                                          "modified" };

struct _LbStoreBrowser {
  GtkWidget           parent_instance;

  /* Template widgets */
  GtkWidget          *scroller;   /* bound so that dispose unparents it */
  GtkWidget          *view;
  GtkSingleSelection *selection;
  GtkColumnViewColumn *columns[LB_BROWSER_N_SORT_COLUMNS];

  /* Owned */
  LbStore            *store;
  LbBrowserChildren  *root;
  GtkTreeListModel   *tree;
  GSettings          *settings;
  guint               pending;
  guint               in_flight;
  LbBrowserSort       sort;
  /* probing the view's sorter for its primary column (GTK 4.8 has no getter) */
  int                 probe_column;
  LbBrowserNode      *probe[2];
  /* refresh: what was expanded and selected, by address, until its row comes back */
  GHashTable         *reexpand;
  char               *reselect;
  /* the search's filter: between the tree and the selection while it has text */
  char               *needle;       /* casefolded, NULL: no filter */
  GtkFilterListModel *filtered;
  GtkFilter          *filter;       /* owned by filtered */
};

G_DEFINE_FINAL_TYPE (LbStoreBrowser, lb_store_browser, GTK_TYPE_WIDGET)

enum { SIGNAL_ENTRY_ACTIVATED, SIGNAL_LISTING_FAILED, SIGNAL_ROOT_LISTED, N_SIGNALS };
static guint signals[N_SIGNALS];

enum { PROP_0, PROP_PENDING, N_PROPS };
static GParamSpec *properties[N_PROPS];

/* ---- positions: the tree's and the view's ---------------------------------------------- */

/* While the search filters the tree, the view (and its selection) shows only some of the
 * tree's rows: the public API counts positions in the tree (lb_store_browser_get_rows()), the
 * selection in the view. */
static guint
view_to_tree (LbStoreBrowser *self,
              guint           position)
{
  g_autoptr (GtkTreeListRow) row = NULL;

  if (position == GTK_INVALID_LIST_POSITION || self->filtered == NULL)
    return position;
  row = g_list_model_get_item (G_LIST_MODEL (self->filtered), position);
  return row != NULL ? gtk_tree_list_row_get_position (row) : GTK_INVALID_LIST_POSITION;
}

static guint
tree_to_view (LbStoreBrowser *self,
              guint           position)
{
  guint n;

  if (position == GTK_INVALID_LIST_POSITION || self->filtered == NULL)
    return position;
  n = g_list_model_get_n_items (G_LIST_MODEL (self->filtered));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GtkTreeListRow) row = g_list_model_get_item (G_LIST_MODEL (self->filtered), i);

      if (gtk_tree_list_row_get_position (row) == position)
        return i;
    }
  return GTK_INVALID_LIST_POSITION;
}

static guint
selected_in_tree (LbStoreBrowser *self)
{
  return view_to_tree (self, gtk_single_selection_get_selected (self->selection));
}

/* ---- what the lists need of the browser (lb-store-browser-private.h) ------------------- */

const LbBrowserSort *
_lb_store_browser_get_sort (LbStoreBrowser *self)
{
  return &self->sort;
}

GtkTreeListModel *
_lb_store_browser_get_tree (LbStoreBrowser *self)
{
  return self->tree;
}

void
_lb_store_browser_count_pending (LbStoreBrowser *self,
                                 int             delta)
{
  self->pending += delta;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PENDING]);
}

void
_lb_store_browser_count_in_flight (LbStoreBrowser *self,
                                   int             delta)
{
  self->in_flight += delta;
}

void
_lb_store_browser_listing_failed (LbStoreBrowser *self,
                                  const GError   *error)
{
  g_signal_emit (self, signals[SIGNAL_LISTING_FAILED], 0, error);
}

void
_lb_store_browser_remember_expanded (LbStoreBrowser *self,
                                     const char     *uri)
{
  g_hash_table_add (self->reexpand, g_strdup (uri));
}

gboolean
_lb_store_browser_remembers (LbStoreBrowser *self)
{
  return g_hash_table_size (self->reexpand) > 0 || self->reselect != NULL;
}

void
_lb_store_browser_row_arrived (LbStoreBrowser *self,
                               GtkTreeListRow *row,
                               LbBrowserNode  *node)
{
  LbStoreEntry *entry = lb_browser_node_get_entry (node);
  const char *uri = entry ? lb_store_entry_get_uri (entry) : NULL;

  if (uri == NULL || row == NULL)
    return;
  if (g_hash_table_remove (self->reexpand, uri))
    gtk_tree_list_row_set_expanded (row, TRUE);
  if (g_strcmp0 (self->reselect, uri) == 0)
    {
      g_clear_pointer (&self->reselect, g_free);
      gtk_single_selection_set_selected (self->selection,
                                         tree_to_view (self, gtk_tree_list_row_get_position (row)));
    }
}

void
_lb_store_browser_root_listed (LbStoreBrowser *self)
{
  g_signal_emit (self, signals[SIGNAL_ROOT_LISTED], 0);
}

/* ---- tree model ------------------------------------------------------------------------ */

static GListModel *
create_children (gpointer item,
                 gpointer user_data)
{
  LbStoreBrowser *browser = user_data;
  LbBrowserNode *node = item;
  LbBrowserChildren *children;

  if (!lb_browser_node_is_container (node))
    return NULL;
  children = lb_browser_node_get_children (node);
  if (children == NULL)
    {
      children = lb_browser_children_new (browser, node);
      lb_browser_node_set_children (node, children);
    }
  return lb_browser_children_new_view (children);
}

/* ---- rows ------------------------------------------------------------------------------ */

/* The rows' cells are ui/lb-browser-*-cell.ui; the column view's factories take the
 * template's scope, so these are theirs too. */

static gboolean
is_false (gpointer  item,
          gboolean  value)
{
  return !value;
}

static GStrv
error_class_if (gpointer item,
                gboolean failed)
{
  static const char *const error[] = { "error", NULL }, *const none[] = { NULL };

  return g_strdupv ((GStrv) (failed ? error : none));
}

static void
on_retry_clicked (GtkListItem *item,
                  GtkButton   *button)
{
  GtkTreeListRow *row = gtk_list_item_get_item (item);
  g_autoptr (LbBrowserNode) node = row ? gtk_tree_list_row_get_item (row) : NULL;

  if (node != NULL && lb_browser_node_get_owner (node) != NULL)
    lb_browser_children_relist (lb_browser_node_get_owner (node));
}

static gboolean
on_name_query_tooltip (GtkListItem *item,
                       int          x,
                       int          y,
                       gboolean     keyboard,
                       GtkTooltip  *tooltip,
                       GtkWidget   *label)
{
  GtkTreeListRow *row = gtk_list_item_get_item (item);
  g_autoptr (LbBrowserNode) node = row ? gtk_tree_list_row_get_item (row) : NULL;
  const char *text = node ? lb_browser_node_get_tooltip (node) : NULL;

  if (text == NULL)
    return FALSE;
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

static void
on_view_activate (GtkColumnView  *view,
                  guint           position,
                  LbStoreBrowser *self)
{
  position = view_to_tree (self, position);
  if (position != GTK_INVALID_LIST_POSITION)
    lb_store_browser_activate_row (self, position);
}

/* ---- dragging a row ----------------------------------------------------------------------- */

/* The first GtkTreeExpander in @root's tree: the name cell of a row. */
static GtkWidget *
find_expander (GtkWidget *root)
{
  if (GTK_IS_TREE_EXPANDER (root))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_expander (c);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* A row dragged out of the tree (onto a viewport) carries its entry's URI as a string. The
 * row is the nearest ancestor of the widget under the pointer that holds a name cell. */
static GdkContentProvider *
on_drag_prepare (GtkDragSource  *source,
                 double          x,
                 double          y,
                 LbStoreBrowser *self)
{
  GtkWidget *picked = gtk_widget_pick (self->view, x, y, GTK_PICK_DEFAULT);
  GtkWidget *expander = NULL;
  g_autoptr (LbBrowserNode) node = NULL;
  LbStoreEntry *entry;

  for (GtkWidget *w = picked; w != NULL && w != self->view && expander == NULL;
       w = gtk_widget_get_parent (w))
    expander = find_expander (w);
  if (expander == NULL)
    return NULL;
  node = gtk_tree_expander_get_item (GTK_TREE_EXPANDER (expander));
  entry = LB_IS_BROWSER_NODE (node) ? lb_browser_node_get_entry (node) : NULL;
  if (entry == NULL)
    return NULL;
  return gdk_content_provider_new_typed (G_TYPE_STRING, lb_store_entry_get_uri (entry));
}

/* ---- sort order ------------------------------------------------------------------------ */

/* A column's sorter: that column ascending, as the column view asks it. The view never sorts
 * a model with it (each container sorts its own children in the worker, folders first); the
 * view's sorter only records which header was clicked, read back by probing it. */
typedef struct {
  LbStoreBrowser *browser;  /* the widget owns the view owns the sorter */
  LbBrowserSortColumn column;
} ColumnSorter;

static int
column_compare (gconstpointer a,
                gconstpointer b,
                gpointer      data)
{
  ColumnSorter *cs = data;

  /* the first column the view's sorter asks is its primary one */
  if (cs->browser->probe_column < 0)
    cs->browser->probe_column = cs->column;
  return lb_browser_node_compare_column ((LbBrowserNode *) a, (LbBrowserNode *) b, cs->column);
}

/* GTK 4.8 has no getter for the column view's primary sort column and direction: compare two
 * rows that are in ascending order by every column and see who answers, and how. */
static gboolean
read_view_sort (LbStoreBrowser *self,
                LbBrowserSort  *spec)
{
  GtkSorter *sorter = gtk_column_view_get_sorter (GTK_COLUMN_VIEW (self->view));
  GtkOrdering order;

  self->probe_column = -1;
  order = gtk_sorter_compare (sorter, self->probe[0], self->probe[1]);
  if (self->probe_column < 0 || order == GTK_ORDERING_EQUAL)
    return FALSE;
  spec->column = (LbBrowserSortColumn) self->probe_column;
  spec->descending = order == GTK_ORDERING_LARGER;
  return TRUE;
}

static void
on_view_sorter_changed (GtkSorter       *sorter,
                        GtkSorterChange  change,
                        LbStoreBrowser  *self)
{
  LbBrowserSort spec = { LB_BROWSER_SORT_NAME, FALSE };

  /* no column (GTK leaves none selected only before the first click): by name */
  read_view_sort (self, &spec);
  if (spec.column == self->sort.column && spec.descending == self->sort.descending)
    return;
  self->sort = spec;
  g_debug ("sort by %s%s", sort_column_names[spec.column], spec.descending ? ", descending" : "");
  g_settings_set_string (self->settings, "tree-sort-column", sort_column_names[spec.column]);
  g_settings_set_boolean (self->settings, "tree-sort-descending", spec.descending);
  lb_browser_children_foreach (self->root, lb_browser_children_resort);
}

static void
apply_sort (LbStoreBrowser      *self,
            LbBrowserSortColumn column,
            gboolean            descending)
{
  gtk_column_view_sort_by_column (GTK_COLUMN_VIEW (self->view), self->columns[column],
                                  descending ? GTK_SORT_DESCENDING : GTK_SORT_ASCENDING);
}

/* tree.sort("size"): sorts by that column; again on the same column reverses the order
 * (what a click on the header does). Bound to Alt+1/2/3 for the keyboard. */
static void
sort_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  LbStoreBrowser *self = LB_STORE_BROWSER (widget);
  const char *name = g_variant_get_string (parameter, NULL);

  for (int c = 0; c < LB_BROWSER_N_SORT_COLUMNS; c++)
    if (g_str_equal (name, sort_column_names[c]))
      {
        gboolean descending = self->sort.column == (LbBrowserSortColumn) c ? !self->sort.descending
                                                                           : FALSE;
        apply_sort (self, (LbBrowserSortColumn) c, descending);
        return;
      }
  g_warning ("unknown sort column '%s'", name);
}

/* ---- actions -------------------------------------------------------------------------- */

static LbBrowserNode *node_at (LbStoreBrowser *self, guint position);

/* tree.refresh (F5): lists again the folder the selected row is in, or the selected folder
 * itself while it is expanded; the store's root when nothing is selected. */
static void
refresh_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  LbStoreBrowser *self = LB_STORE_BROWSER (widget);
  guint position = selected_in_tree (self);
  LbBrowserChildren *list = self->root;
  LbBrowserNode *node;

  if (self->tree == NULL)
    return;
  if (position != GTK_INVALID_LIST_POSITION && (node = node_at (self, position)) != NULL)
    {
      LbStoreEntry *entry = lb_browser_node_get_entry (node);

      /* the selection comes back with its row */
      g_free (self->reselect);
      self->reselect = entry ? g_strdup (lb_store_entry_get_uri (entry)) : NULL;
      g_autoptr (GtkTreeListRow) row = gtk_tree_list_model_get_row (self->tree, position);

      list = row != NULL && gtk_tree_list_row_get_expanded (row)
             && lb_browser_node_get_children (node) != NULL
             ? lb_browser_node_get_children (node) : lb_browser_node_get_owner (node);
    }
  if (list != NULL)
    lb_browser_children_relist (list);
}

/* tree.open: what Enter or a double click on the selected row does. */
static void
open_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  LbStoreBrowser *self = LB_STORE_BROWSER (widget);
  guint position = selected_in_tree (self);

  if (position != GTK_INVALID_LIST_POSITION)
    lb_store_browser_activate_row (self, position);
}

/* Refresh and open need a store. */
static void
update_actions (LbStoreBrowser *self)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "tree.refresh", self->store != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "tree.open", self->store != NULL);
}

static void
restore_sort (LbStoreBrowser *self)
{
  g_autofree char *name = g_settings_get_string (self->settings, "tree-sort-column");
  LbBrowserSortColumn column = LB_BROWSER_SORT_NAME;

  for (int c = 0; c < LB_BROWSER_N_SORT_COLUMNS; c++)
    if (g_str_equal (name, sort_column_names[c]))
      column = (LbBrowserSortColumn) c;
  self->sort.column = column;
  self->sort.descending = g_settings_get_boolean (self->settings, "tree-sort-descending");
  /* shows the arrow on the header; the changed handler finds nothing new */
  apply_sort (self, column, self->sort.descending);
}

/* ---- widget ---------------------------------------------------------------------------- */

static void
lb_store_browser_dispose (GObject *object)
{
  LbStoreBrowser *self = LB_STORE_BROWSER (object);

  lb_browser_children_foreach (self->root, lb_browser_children_shutdown);
  if (self->view != NULL)
    g_signal_handlers_disconnect_by_func (gtk_column_view_get_sorter (GTK_COLUMN_VIEW (self->view)),
                                          on_view_sorter_changed, self);
  gtk_widget_dispose_template (GTK_WIDGET (object), LB_TYPE_STORE_BROWSER);
  g_clear_object (&self->tree);
  g_clear_object (&self->root);
  g_clear_object (&self->store);
  g_clear_object (&self->settings);
  g_clear_object (&self->probe[0]);
  g_clear_object (&self->probe[1]);
  g_clear_pointer (&self->reexpand, g_hash_table_unref);
  g_clear_pointer (&self->reselect, g_free);
  g_clear_object (&self->filtered);
  g_clear_pointer (&self->needle, g_free);
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
  /* the store's root was listed: the store works (the window adds it to the recent ones) */
  signals[SIGNAL_ROOT_LISTED] =
    g_signal_new ("root-listed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 0);
  gtk_widget_class_install_action (widget_class, "tree.sort", "s", sort_action);
  /* Ctrl+digit is taken by the window (zoom); Alt+digit is free in the tree */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_1, GDK_ALT_MASK, "tree.sort", "s", "name");
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_2, GDK_ALT_MASK, "tree.sort", "s", "size");
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_3, GDK_ALT_MASK, "tree.sort", "s",
                                       "modified");
  gtk_widget_class_install_action (widget_class, "tree.refresh", NULL, refresh_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F5, 0, "tree.refresh", NULL);
  gtk_widget_class_install_action (widget_class, "tree.open", NULL, open_action);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "lb-store-browser");

  /* the cell templates look the type up by name */
  g_type_ensure (LB_TYPE_BROWSER_NODE);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/lightbox/Lightbox/ui/lb-store-browser.ui");
  gtk_widget_class_bind_template_child (widget_class, LbStoreBrowser, scroller);
  gtk_widget_class_bind_template_child (widget_class, LbStoreBrowser, view);
  gtk_widget_class_bind_template_child (widget_class, LbStoreBrowser, selection);
  gtk_widget_class_bind_template_child_full (widget_class, "name_column", FALSE,
                                             G_STRUCT_OFFSET (LbStoreBrowser,
                                                              columns[LB_BROWSER_SORT_NAME]));
  gtk_widget_class_bind_template_child_full (widget_class, "size_column", FALSE,
                                             G_STRUCT_OFFSET (LbStoreBrowser,
                                                              columns[LB_BROWSER_SORT_SIZE]));
  gtk_widget_class_bind_template_child_full (widget_class, "date_column", FALSE,
                                             G_STRUCT_OFFSET (LbStoreBrowser,
                                                              columns[LB_BROWSER_SORT_MODIFIED]));
  gtk_widget_class_bind_template_callback (widget_class, on_view_activate);
  gtk_widget_class_bind_template_callback (widget_class, on_retry_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_name_query_tooltip);
  gtk_widget_class_bind_template_callback (widget_class, is_false);
  gtk_widget_class_bind_template_callback (widget_class, error_class_if);
}

static void
set_column_sorter (LbStoreBrowser      *self,
                   LbBrowserSortColumn  column)
{
  ColumnSorter *cs = g_new0 (ColumnSorter, 1);
  g_autoptr (GtkCustomSorter) sorter = NULL;

  cs->browser = self;
  cs->column = column;
  sorter = gtk_custom_sorter_new (column_compare, cs, g_free);
  gtk_column_view_column_set_sorter (self->columns[column], GTK_SORTER (sorter));
}

static LbBrowserNode *
probe_node (const char *name,
            gint64      value)
{
  g_autoptr (LbStoreEntry) entry = lb_store_entry_new ("probe:", name, LB_STORE_ENTRY_FILE);
  g_autoptr (GDateTime) mtime = g_date_time_new_from_unix_utc (value);

  lb_store_entry_set_size (entry, value);
  lb_store_entry_set_mtime (entry, mtime);
  return lb_browser_node_new_entry (entry, NULL);
}

static void
lb_store_browser_init (LbStoreBrowser *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->settings = g_settings_new (APP_ID);
  self->reexpand = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->probe[0] = probe_node ("a", 1);
  self->probe[1] = probe_node ("b", 2);
  for (int c = 0; c < LB_BROWSER_N_SORT_COLUMNS; c++)
    set_column_sorter (self, (LbBrowserSortColumn) c);
  restore_sort (self);
  g_signal_connect (gtk_column_view_get_sorter (GTK_COLUMN_VIEW (self->view)), "changed",
                    G_CALLBACK (on_view_sorter_changed), self);
  {
    GtkDragSource *drag = gtk_drag_source_new ();

    gtk_drag_source_set_actions (drag, GDK_ACTION_COPY);
    g_signal_connect (drag, "prepare", G_CALLBACK (on_drag_prepare), self);
    gtk_widget_add_controller (self->view, GTK_EVENT_CONTROLLER (drag));
  }
  update_actions (self);
}

GtkWidget *
lb_store_browser_new (void)
{
  return g_object_new (LB_TYPE_STORE_BROWSER, NULL);
}

/* ---- the search's filter --------------------------------------------------------------- */

static gboolean
name_matches (LbBrowserNode *node,
              gpointer       needle)
{
  LbStoreEntry *entry = lb_browser_node_get_entry (node);
  g_autofree char *hay = NULL;

  if (entry == NULL)
    return FALSE;
  hay = g_utf8_casefold (lb_store_entry_get_display_name (entry), -1);
  return strstr (hay, needle) != NULL;
}

/* A row stays while searching when its name contains the text, or when it is a folder with a
 * listed row below it that does (so a match keeps its place in the tree). Spinner and error
 * rows go. */
static gboolean
filter_row (gpointer item,
            gpointer data)
{
  LbStoreBrowser *self = data;
  g_autoptr (LbBrowserNode) node = gtk_tree_list_row_get_item (item);
  LbBrowserChildren *children;

  if (self->needle == NULL)
    return TRUE;
  if (name_matches (node, self->needle))
    return TRUE;
  children = lb_browser_node_get_children (node);
  return children != NULL && lb_browser_children_any (children, name_matches, self->needle);
}

/* The view shows the tree, or the filtered tree while the search has text. */
static void
attach_view_model (LbStoreBrowser *self)
{
  if (self->tree == NULL)
    return;
  if (self->needle == NULL)
    {
      if (self->filtered != NULL || gtk_single_selection_get_model (self->selection) == NULL)
        gtk_single_selection_set_model (self->selection, G_LIST_MODEL (self->tree));
      g_clear_object (&self->filtered);
      self->filter = NULL;
      return;
    }
  if (self->filtered == NULL)
    {
      self->filter = GTK_FILTER (gtk_custom_filter_new (filter_row, self, NULL));
      self->filtered = gtk_filter_list_model_new (g_object_ref (G_LIST_MODEL (self->tree)),
                                                  self->filter);
      gtk_single_selection_set_model (self->selection, G_LIST_MODEL (self->filtered));
    }
  else
    gtk_filter_changed (self->filter, GTK_FILTER_CHANGE_DIFFERENT);
}

void
lb_store_browser_set_filter (LbStoreBrowser *self,
                             const char     *text)
{
  g_return_if_fail (LB_IS_STORE_BROWSER (self));
  g_clear_pointer (&self->needle, g_free);
  if (text != NULL && *text != '\0')
    self->needle = g_utf8_casefold (text, -1);
  attach_view_model (self);
}

guint
lb_store_browser_get_selected (LbStoreBrowser *self)
{
  g_return_val_if_fail (LB_IS_STORE_BROWSER (self), G_MAXUINT);
  return selected_in_tree (self);
}

void
lb_store_browser_set_store (LbStoreBrowser *self,
                            LbStore        *store)
{
  g_return_if_fail (LB_IS_STORE_BROWSER (self));

  /* whatever the old store still lists is cancelled and never lands */
  lb_browser_children_foreach (self->root, lb_browser_children_shutdown);
  gtk_single_selection_set_model (self->selection, NULL);
  g_clear_object (&self->filtered);
  self->filter = NULL;
  g_clear_object (&self->tree);
  g_clear_object (&self->root);
  g_set_object (&self->store, store);
  g_hash_table_remove_all (self->reexpand);
  g_clear_pointer (&self->reselect, g_free);
  update_actions (self);
  if (store == NULL)
    return;
  self->root = lb_browser_children_new (self, NULL);
  self->tree = gtk_tree_list_model_new (G_LIST_MODEL (g_object_ref (self->root)), FALSE, FALSE,
                                        create_children, self, NULL);
  attach_view_model (self);
  /* the root is listed at once */
  lb_browser_children_start (self->root);
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
  return node ? lb_browser_node_get_entry (node) : NULL;
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
      LbStoreEntry *entry = node ? lb_browser_node_get_entry (node) : NULL;

      if (entry != NULL && g_strcmp0 (lb_store_entry_get_name (entry), name) == 0)
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
  position = tree_to_view (self, position);
  gtk_single_selection_set_selected (self->selection, position);
  if (position == GTK_INVALID_LIST_POSITION)
    return;
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
  start = selected_in_tree (self);
  start = start == GTK_INVALID_LIST_POSITION ? 0 : start + (next ? 1 : 0);
  for (guint k = 0; k < n; k++)
    {
      guint i = (start + k) % n;
      LbBrowserNode *node = node_at (self, i);
      LbStoreEntry *entry = node ? lb_browser_node_get_entry (node) : NULL;
      g_autofree char *hay = NULL;

      if (entry == NULL)
        continue;
      hay = g_utf8_casefold (lb_store_entry_get_display_name (entry), -1);
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
  if (lb_browser_node_get_kind (node) == LB_BROWSER_NODE_ERROR)
    {
      if (lb_browser_node_get_owner (node) != NULL)
        lb_browser_children_relist (lb_browser_node_get_owner (node));
    }
  else if (lb_browser_node_get_entry (node) != NULL
           && lb_store_entry_get_kind (lb_browser_node_get_entry (node))
              == LB_STORE_ENTRY_DICOM_SERIES)
    {
      /* a series is read as one stack; its instances show too */
      g_autoptr (GtkTreeListRow) row = gtk_tree_list_model_get_row (self->tree, position);
      gtk_tree_list_row_set_expanded (row, TRUE);
      g_signal_emit (self, signals[SIGNAL_ENTRY_ACTIVATED], 0, lb_browser_node_get_entry (node));
    }
  else if (lb_browser_node_is_container (node))
    {
      g_autoptr (GtkTreeListRow) row = gtk_tree_list_model_get_row (self->tree, position);
      gtk_tree_list_row_set_expanded (row, !gtk_tree_list_row_get_expanded (row));
    }
  else if (lb_browser_node_get_entry (node) != NULL)
    g_signal_emit (self, signals[SIGNAL_ENTRY_ACTIVATED], 0, lb_browser_node_get_entry (node));
}

guint
lb_store_browser_get_pending (LbStoreBrowser *self)
{
  g_return_val_if_fail (LB_IS_STORE_BROWSER (self), 0);
  return self->pending;
}

guint
lb_store_browser_get_in_flight (LbStoreBrowser *self)
{
  g_return_val_if_fail (LB_IS_STORE_BROWSER (self), 0);
  return self->in_flight;
}

GCancellable *
lb_store_browser_get_listing_cancellable (LbStoreBrowser *self,
                                          guint           position)
{
  LbBrowserNode *node;

  g_return_val_if_fail (LB_IS_STORE_BROWSER (self), NULL);
  node = node_at (self, position);
  if (node == NULL || lb_browser_node_get_children (node) == NULL)
    return NULL;
  return lb_browser_children_get_cancellable (lb_browser_node_get_children (node));
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
  list = lb_browser_children_find (self->root, parent);
  /* the root list has uri NULL but the store's root URI is what uploads name */
  if (list == NULL && g_strcmp0 (parent, lb_store_get_uri (self->store)) == 0)
    list = self->root;
  if (list != NULL && lb_browser_children_is_started (list))
    lb_browser_children_relist (list);
}

GtkWidget *
lb_store_browser_get_view (LbStoreBrowser *self)
{
  g_return_val_if_fail (LB_IS_STORE_BROWSER (self), NULL);
  return self->view;
}
