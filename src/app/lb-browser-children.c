/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-browser-children"

#include "config.h"

#include "lb-browser-children.h"
#include "lb-messages.h"
#include "lb-store-browser-private.h"

struct _LbBrowserChildren {
  GObject         parent_instance;
  GListStore     *items;
  char           *uri;          /* NULL = the store root */
  LbStoreBrowser *browser;      /* weak */
  gboolean        started;
  gboolean        busy;         /* counted in the browser's pending listings */
  guint           generation;
  GCancellable   *cancellable;  /* of the running listing or sort */
  GPtrArray      *nodes;        /* the complete sorted list being fed or shown; nullable */
  guint           fed;          /* nodes[0..fed) are in items */
  guint           chunk;        /* nodes per batch, adapted to the time a batch takes */
  guint           feed_id;
  guint           start_id;
  guint           n_views;      /* expanded views of this list in the tree model */
  gboolean        resorting;    /* busy re-ordering rows that were all delivered */
  GHashTable     *reexpand;     /* nodes (borrowed from nodes) expanded before a re-sort */
  LbBrowserNode  *parent;       /* weak: the row whose children these are; NULL for the root */
  gboolean        root;
};

static void lb_browser_children_model_init (GListModelInterface *iface);
G_DEFINE_FINAL_TYPE_WITH_CODE (LbBrowserChildren, lb_browser_children, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      lb_browser_children_model_init))

/* Rows shown at once when a listing is ready (a screenful), then batches that aim at this many
 * µs of main-thread work each (well inside a 16.7 ms frame); the size of the next batch
 * follows from the time the last one took, growing at most BATCH_GROWTH times per batch.
 * Batches start small because GTK 4.8's list view builds the widgets of up to ~200 rows
 * inside the items-changed of the rows that reach them: measured 0.5 ms a row (cairo, this
 * loaded machine), against under 2 µs a row once those exist. */
#define FIRST_BATCH 32
#define BATCH_TARGET_US 6000
#define BATCH_MIN 16
#define BATCH_MAX 32768
#define BATCH_GROWTH 4

/* ---- model ----------------------------------------------------------------------------- */

static GType
children_get_item_type (GListModel *model)
{
  return LB_TYPE_BROWSER_NODE;
}

static guint
children_get_n_items (GListModel *model)
{
  LbBrowserChildren *self = LB_BROWSER_CHILDREN (model);

  lb_browser_children_start (self);
  return g_list_model_get_n_items (G_LIST_MODEL (self->items));
}

static gpointer
children_get_item (GListModel *model,
                   guint       position)
{
  LbBrowserChildren *self = LB_BROWSER_CHILDREN (model);

  lb_browser_children_start (self);
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
set_busy (LbBrowserChildren *self,
          gboolean           busy)
{
  if (self->busy == busy)
    return;
  self->busy = busy;
  if (self->browser != NULL)
    _lb_store_browser_count_pending (self->browser, busy ? +1 : -1);
}

static void
count_in_flight (LbStoreBrowser *browser,
                 int             delta)
{
  if (browser != NULL)
    _lb_store_browser_count_in_flight (browser, delta);
}

/* Stops whatever runs for this list (listing, worker, batches): its results are dropped. */
static void
children_stop (LbBrowserChildren *self)
{
  self->generation++;
  self->resorting = FALSE;
  if (self->cancellable)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_handle_id (&self->feed_id, g_source_remove);
  g_clear_handle_id (&self->start_id, g_source_remove);
}

static void
lb_browser_children_dispose (GObject *object)
{
  LbBrowserChildren *self = LB_BROWSER_CHILDREN (object);

  children_stop (self);
  set_busy (self, FALSE);
  g_clear_pointer (&self->nodes, g_ptr_array_unref);
  g_hash_table_remove_all (self->reexpand);
  if (self->items)
    g_signal_handlers_disconnect_by_func (self->items, on_items_changed, self);
  g_clear_object (&self->items);
  g_clear_weak_pointer (&self->browser);
  g_clear_weak_pointer (&self->parent);
  G_OBJECT_CLASS (lb_browser_children_parent_class)->dispose (object);
}

static void
lb_browser_children_finalize (GObject *object)
{
  LbBrowserChildren *self = LB_BROWSER_CHILDREN (object);

  g_free (self->uri);
  g_hash_table_unref (self->reexpand);
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
  self->chunk = BATCH_MIN;
  self->reexpand = g_hash_table_new (NULL, NULL);
  g_signal_connect (self->items, "items-changed", G_CALLBACK (on_items_changed), self);
}

/* Replaces everything in the list with one spinner row. */
static void
show_loading (LbBrowserChildren *self)
{
  g_autoptr (LbBrowserNode) loading = lb_browser_node_new_loading (self);

  g_list_store_splice (self->items, 0, g_list_model_get_n_items (G_LIST_MODEL (self->items)),
                       (gpointer *) &loading, 1);
}

LbBrowserChildren *
lb_browser_children_new (LbStoreBrowser *browser,
                         LbBrowserNode  *parent)
{
  LbBrowserChildren *self;

  g_return_val_if_fail (LB_IS_STORE_BROWSER (browser), NULL);
  g_return_val_if_fail (parent == NULL || lb_browser_node_is_container (parent), NULL);
  self = g_object_new (LB_TYPE_BROWSER_CHILDREN, NULL);
  self->root = parent == NULL;
  self->uri = parent ? g_strdup (lb_store_entry_get_uri (lb_browser_node_get_entry (parent)))
                     : NULL;
  g_set_weak_pointer (&self->browser, browser);
  g_set_weak_pointer (&self->parent, parent);
  show_loading (self);
  return self;
}

/* The row was collapsed, or the tree dropped (store closed or switched): a listing still
 * running is cancelled and the list goes back to "not listed", so that expanding again
 * lists afresh. A complete list stays as it is (expanding again shows it at once). */
static void
children_collapsed (LbBrowserChildren *self)
{
  /* a re-sort only re-orders what was delivered: it finishes (it is what takes an expanded
   * row out and puts it back in its new place) */
  if (!self->busy || self->resorting)
    return;
  /* (GTK reads the child model of a row it asks "expandable?" about, then drops it: that
   * only removes the start idle, no listing was sent yet) */
  if (self->start_id == 0)
    g_debug ("collapsed %s while listing: cancelled", self->uri ? self->uri : "root");
  children_stop (self);
  g_clear_pointer (&self->nodes, g_ptr_array_unref);
  self->fed = 0;
  self->started = FALSE;
  show_loading (self);
  set_busy (self, FALSE);
}

static GtkTreeListRow *
row_for_list (LbBrowserChildren *list,
              guint              index)
{
  GtkTreeListModel *tree = list->browser ? _lb_store_browser_get_tree (list->browser) : NULL;
  g_autoptr (GtkTreeListRow) parent_row = NULL;
  LbBrowserChildren *owner;
  guint parent_index;

  if (tree == NULL)
    return NULL;
  if (list->root)
    return gtk_tree_list_model_get_child_row (tree, index);
  if (list->parent == NULL || (owner = lb_browser_node_get_owner (list->parent)) == NULL
      || !g_list_store_find (owner->items, list->parent, &parent_index)
      || (parent_row = row_for_list (owner, parent_index)) == NULL)
    return NULL;
  return gtk_tree_list_row_get_child_row (parent_row, index);
}

/* After a re-sort put rows [from, from + n) in: the folders that were expanded are again. */
static void
reexpand (LbBrowserChildren *self,
          guint              from,
          guint              n)
{
  for (guint i = from; i < from + n; i++)
    {
      LbBrowserNode *node = g_ptr_array_index (self->nodes, i);
      g_autoptr (GtkTreeListRow) row = NULL;

      if (!g_hash_table_remove (self->reexpand, node))
        continue;
      row = row_for_list (self, i);
      if (row != NULL)
        gtk_tree_list_row_set_expanded (row, TRUE);
    }
}

/* Feeds the next batch of self->nodes into the model; TRUE when all are in. */
static gboolean
feed_batch (LbBrowserChildren *self,
            gboolean           first)
{
  guint n = self->nodes->len - self->fed;
  gint64 t0 = g_get_monotonic_time (), dt;

  if (first)
    {
      /* the first batch replaces the spinner (or the old rows, after a re-sort) */
      n = MIN (n, FIRST_BATCH);
      g_list_store_splice (self->items, 0, g_list_model_get_n_items (G_LIST_MODEL (self->items)),
                           self->nodes->pdata, n);
    }
  else
    {
      n = MIN (n, self->chunk);
      g_list_store_splice (self->items, self->fed, 0, self->nodes->pdata + self->fed, n);
    }
  if (self->resorting)
    reexpand (self, self->fed, n);
  else if (self->browser != NULL && _lb_store_browser_remembers (self->browser))
    /* after a refresh: the folders that were expanded are again, and the selection is back */
    for (guint i = self->fed; i < self->fed + n; i++)
      {
        g_autoptr (GtkTreeListRow) row = row_for_list (self, i);

        _lb_store_browser_row_arrived (self->browser, row, g_ptr_array_index (self->nodes, i));
      }
  self->fed += n;
  /* aim the next batch at BATCH_TARGET_US of work, as this one went */
  dt = MAX (g_get_monotonic_time () - t0, 1);
  if (!first && n == self->chunk)
    self->chunk = (guint) CLAMP ((gint64) n * BATCH_TARGET_US / dt, BATCH_MIN,
                                 MIN ((gint64) n * BATCH_GROWTH, BATCH_MAX));
  return self->fed == self->nodes->len;
}

static gboolean
feed_idle (gpointer data)
{
  LbBrowserChildren *self = data;

  if (!feed_batch (self, FALSE))
    return G_SOURCE_CONTINUE;
  self->feed_id = 0;
  self->resorting = FALSE;
  g_clear_object (&self->cancellable);
  set_busy (self, FALSE);
  return G_SOURCE_REMOVE;
}

static void
feed_start (LbBrowserChildren *self,
            GPtrArray         *nodes)
{
  g_hash_table_remove_all (self->reexpand);
  if (self->resorting)
    {
      /* the first batch takes the old rows out, expanded folders with them */
      for (guint i = 0; i < nodes->len; i++)
        {
          LbBrowserChildren *children = lb_browser_node_get_children (nodes->pdata[i]);
          if (children != NULL && children->n_views > 0)
            g_hash_table_add (self->reexpand, nodes->pdata[i]);
        }
    }
  g_clear_pointer (&self->nodes, g_ptr_array_unref);
  self->nodes = nodes;
  self->fed = 0;
  if (feed_batch (self, TRUE))
    {
      self->resorting = FALSE;
      g_clear_object (&self->cancellable);
      set_busy (self, FALSE);
      return;
    }
  /* below redraw priority: a frame due is painted before the next batch */
  self->feed_id = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, feed_idle, self, NULL);
}

/* ---- the worker: nodes, keys and the sort, off the main thread ------------------------ */

typedef struct {
  GPtrArray         *entries;  /* LbStoreEntry, nullable */
  GPtrArray         *nodes;    /* LbBrowserNode to re-sort, nullable */
  LbBrowserChildren *owner;    /* not touched in the thread: only stored in the nodes */
  LbStoreBrowser    *browser;  /* weak, not touched in the thread: counts it in flight */
  LbBrowserSort      sort;
  gint64             start_us;
} Prepare;

static void
prepare_free (Prepare *p)
{
  g_clear_pointer (&p->entries, g_ptr_array_unref);
  g_clear_pointer (&p->nodes, g_ptr_array_unref);
  g_clear_weak_pointer (&p->browser);
  g_free (p);
}

static int
compare_nodes (gconstpointer a,
               gconstpointer b,
               gpointer      sort)
{
  return lb_browser_node_compare (*(LbBrowserNode **) a, *(LbBrowserNode **) b, sort);
}

static void
prepare_thread (GTask        *task,
                gpointer      source,
                gpointer      task_data,
                GCancellable *cancellable)
{
  Prepare *p = task_data;
  g_autoptr (GPtrArray) nodes = NULL;

  if (p->entries != NULL)
    {
      nodes = g_ptr_array_new_full (p->entries->len, g_object_unref);
      for (guint i = 0; i < p->entries->len; i++)
        {
          /* every 4096 entries (a few ms of collation keys) */
          if (i % 4096 == 0 && g_task_return_error_if_cancelled (task))
            return;
          g_ptr_array_add (nodes, lb_browser_node_new_entry (g_ptr_array_index (p->entries, i),
                                                             p->owner));
        }
    }
  else
    nodes = g_ptr_array_ref (p->nodes);
  if (g_task_return_error_if_cancelled (task))
    return;
  g_ptr_array_sort_with_data (nodes, compare_nodes, &p->sort);
  g_task_return_pointer (task, g_steal_pointer (&nodes), (GDestroyNotify) g_ptr_array_unref);
}

static void on_prepared (GObject *source, GAsyncResult *result, gpointer user_data);

/* @entries or @nodes (transfer full) go to the worker, sorted by the browser's order. */
static void
prepare_start (LbBrowserChildren *self,
               GPtrArray         *entries,
               GPtrArray         *nodes)
{
  g_autoptr (GTask) task = NULL;
  Prepare *p = g_new0 (Prepare, 1);

  p->entries = entries;
  p->nodes = nodes;
  p->owner = self;
  p->sort = *_lb_store_browser_get_sort (self->browser);
  p->start_us = g_get_monotonic_time ();
  g_set_weak_pointer (&p->browser, self->browser);
  if (self->cancellable == NULL)
    self->cancellable = g_cancellable_new ();
  task = g_task_new (self, self->cancellable, on_prepared, GUINT_TO_POINTER (self->generation));
  g_task_set_source_tag (task, prepare_start);
  g_task_set_task_data (task, p, (GDestroyNotify) prepare_free);
  count_in_flight (self->browser, +1);
  set_busy (self, TRUE);
  g_task_run_in_thread (task, prepare_thread);
}

static void
on_prepared (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  LbBrowserChildren *self = LB_BROWSER_CHILDREN (source);
  Prepare *p = g_task_get_task_data (G_TASK (result));
  g_autoptr (GPtrArray) nodes = g_task_propagate_pointer (G_TASK (result), NULL);
  const LbBrowserSort *sort;

  count_in_flight (p->browser, -1);
  if (GPOINTER_TO_UINT (user_data) != self->generation || nodes == NULL
      || self->browser == NULL || self->items == NULL)
    return;
  g_debug ("%s: %u rows made and sorted in the worker in %.1f ms",
           self->uri ? self->uri : "root", nodes->len,
           (g_get_monotonic_time () - p->start_us) / 1000.0);
  /* the order changed while the worker ran: once more, with the new one */
  sort = _lb_store_browser_get_sort (self->browser);
  if (p->sort.column != sort->column || p->sort.descending != sort->descending)
    {
      prepare_start (self, NULL, g_steal_pointer (&nodes));
      return;
    }
  feed_start (self, g_steal_pointer (&nodes));
}

/* ---- listing --------------------------------------------------------------------------- */

/* The store delivers a listing whole; the call remembers the generation it was made for. */
typedef struct {
  LbBrowserChildren *self;
  LbStoreBrowser    *browser;  /* weak: counts the call in flight */
  guint              generation;
  gint64             start_us;
} ListCall;

static void
on_listed (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  ListCall *call = user_data;
  g_autoptr (LbBrowserChildren) self = call->self;
  guint generation = call->generation;
  gint64 start_us = call->start_us;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) entries = NULL;

  count_in_flight (call->browser, -1);
  g_clear_weak_pointer (&call->browser);
  g_free (call);
  entries = lb_store_list_finish (LB_STORE (source), result, &error);
  if (generation != self->generation || self->items == NULL || self->browser == NULL
      || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (entries == NULL)
    {
      /* plain words in the row, the request in its tooltip */
      const char *plain = lb_messages_explain (error);
      g_autoptr (LbBrowserNode) node = lb_browser_node_new_error (plain ? plain : error->message,
                                                                  plain ? error->message : NULL,
                                                                  self);

      g_debug ("listing %s failed: %s", self->uri ? self->uri : "root", error->message);
      g_list_store_splice (self->items, 0, g_list_model_get_n_items (G_LIST_MODEL (self->items)),
                           (gpointer *) &node, 1);
      g_clear_object (&self->cancellable);
      set_busy (self, FALSE);
      _lb_store_browser_listing_failed (self->browser, error);
      return;
    }
  g_debug ("%s: the store listed %u entries in %.1f ms", self->uri ? self->uri : "root",
           entries->len, (g_get_monotonic_time () - start_us) / 1000.0);
  if (self->root)
    _lb_store_browser_root_listed (self->browser);
  prepare_start (self, g_steal_pointer (&entries), NULL);
}

/* Remembers, by address, the folders expanded below @self, at every depth. */
static void
remember_expanded (LbBrowserChildren *self)
{
  for (guint i = 0; self->nodes != NULL && i < self->fed; i++)
    {
      LbBrowserChildren *children = lb_browser_node_get_children (self->nodes->pdata[i]);

      if (children == NULL || children->n_views == 0 || children->uri == NULL)
        continue;
      _lb_store_browser_remember_expanded (self->browser, children->uri);
      remember_expanded (children);
    }
}

void
lb_browser_children_relist (LbBrowserChildren *self)
{
  LbStore *store;
  ListCall *call;

  g_return_if_fail (LB_IS_BROWSER_CHILDREN (self));
  if (self->browser == NULL || (store = lb_store_browser_get_store (self->browser)) == NULL)
    return;
  /* listed again (refresh, an upload): what was expanded below stays expanded */
  remember_expanded (self);
  children_stop (self);
  g_clear_pointer (&self->nodes, g_ptr_array_unref);
  self->fed = 0;
  self->cancellable = g_cancellable_new ();
  /* one spinner row while the listing runs (already there the first time) */
  show_loading (self);
  set_busy (self, TRUE);
  call = g_new0 (ListCall, 1);
  call->self = g_object_ref (self);
  call->generation = self->generation;
  g_set_weak_pointer (&call->browser, self->browser);
  call->start_us = g_get_monotonic_time ();
  count_in_flight (self->browser, +1);
  lb_store_list_async (store, self->uri, self->cancellable, NULL, NULL, on_listed, call);
}

/* The rows on screen stay until the first batch of the new order replaces them. */
void
lb_browser_children_resort (LbBrowserChildren *self)
{
  GPtrArray *copy;

  g_return_if_fail (LB_IS_BROWSER_CHILDREN (self));
  /* still listing: the worker's result is checked against the order when it arrives */
  if (self->nodes == NULL || self->browser == NULL)
    return;
  children_stop (self);
  self->resorting = TRUE;
  copy = g_ptr_array_new_full (self->nodes->len, g_object_unref);
  for (guint i = 0; i < self->nodes->len; i++)
    g_ptr_array_add (copy, g_object_ref (g_ptr_array_index (self->nodes, i)));
  prepare_start (self, NULL, copy);
}

static gboolean
children_start_idle (gpointer data)
{
  LbBrowserChildren *self = data;

  self->start_id = 0;
  lb_browser_children_relist (self);
  return G_SOURCE_REMOVE;
}

/* Called from get_n_items/get_item too: GTK is in the middle of reading the model, so
 * nothing may change now; the listing starts from an idle. */
void
lb_browser_children_start (LbBrowserChildren *self)
{
  g_return_if_fail (LB_IS_BROWSER_CHILDREN (self));
  if (self->started || self->browser == NULL)
    return;
  self->started = TRUE;
  /* counts as running from now, so waiting for "no pending listings" is reliable */
  set_busy (self, TRUE);
  self->start_id = g_idle_add_full (G_PRIORITY_DEFAULT, children_start_idle, g_object_ref (self),
                                    g_object_unref);
}

void
lb_browser_children_shutdown (LbBrowserChildren *self)
{
  g_return_if_fail (LB_IS_BROWSER_CHILDREN (self));
  children_stop (self);
  set_busy (self, FALSE);
  self->started = TRUE;
  g_clear_weak_pointer (&self->browser);
}

void
lb_browser_children_foreach (LbBrowserChildren *self,
                             void             (*func) (LbBrowserChildren *))
{
  if (self == NULL)
    return;
  func (self);
  if (self->nodes == NULL)
    return;
  for (guint i = 0; i < self->nodes->len; i++)
    {
      LbBrowserChildren *children = lb_browser_node_get_children (self->nodes->pdata[i]);

      if (children != NULL && children->started)
        lb_browser_children_foreach (children, func);
    }
}

LbBrowserChildren *
lb_browser_children_find (LbBrowserChildren *self,
                          const char        *uri)
{
  guint n;

  if (self == NULL)
    return NULL;
  if (g_strcmp0 (self->uri, uri) == 0)
    return self;
  n = g_list_model_get_n_items (G_LIST_MODEL (self->items));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (LbBrowserNode) node = g_list_model_get_item (G_LIST_MODEL (self->items), i);
      LbBrowserChildren *children = lb_browser_node_get_children (node), *found;

      if (children != NULL && children->started
          && (found = lb_browser_children_find (children, uri)) != NULL)
        return found;
    }
  return NULL;
}

gboolean
lb_browser_children_any (LbBrowserChildren *self,
                         gboolean         (*pred) (LbBrowserNode *, gpointer),
                         gpointer           data)
{
  g_return_val_if_fail (LB_IS_BROWSER_CHILDREN (self), FALSE);
  for (guint i = 0; self->nodes != NULL && i < self->fed; i++)
    {
      LbBrowserNode *node = self->nodes->pdata[i];
      LbBrowserChildren *children = lb_browser_node_get_children (node);

      if (pred (node, data)
          || (children != NULL && children->started && lb_browser_children_any (children, pred, data)))
        return TRUE;
    }
  return FALSE;
}

gboolean
lb_browser_children_is_started (LbBrowserChildren *self)
{
  g_return_val_if_fail (LB_IS_BROWSER_CHILDREN (self), FALSE);
  return self->started;
}

GCancellable *
lb_browser_children_get_cancellable (LbBrowserChildren *self)
{
  g_return_val_if_fail (LB_IS_BROWSER_CHILDREN (self), NULL);
  return self->busy ? self->cancellable : NULL;
}

/* ---- views in the tree model ----------------------------------------------------------- */

static void
on_view_gone (gpointer  data,
              GObject  *view)
{
  LbBrowserChildren *self = data;

  if (--self->n_views == 0)
    children_collapsed (self);
  g_object_unref (self);
}

GListModel *
lb_browser_children_new_view (LbBrowserChildren *self)
{
  GtkMapListModel *view;

  g_return_val_if_fail (LB_IS_BROWSER_CHILDREN (self), NULL);
  view = gtk_map_list_model_new (g_object_ref (G_LIST_MODEL (self)), NULL, NULL, NULL);
  self->n_views++;
  g_object_weak_ref (G_OBJECT (view), on_view_gone, g_object_ref (self));
  return G_LIST_MODEL (view);
}
