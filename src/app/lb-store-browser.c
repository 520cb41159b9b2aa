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

/* The sort columns, in the order of the view's columns and of the GSettings choices. */
typedef enum {
  SORT_NAME,
  SORT_SIZE,
  SORT_MODIFIED,
  N_SORT_COLUMNS,
} SortColumn;

static const char *const sort_column_names[N_SORT_COLUMNS] = { "name", "size", "modified" };

typedef struct {
  SortColumn column;
  gboolean   descending;
} SortSpec;

#define LB_TYPE_BROWSER_NODE (lb_browser_node_get_type ())
G_DECLARE_FINAL_TYPE (LbBrowserNode, lb_browser_node, LB, BROWSER_NODE, GObject)

#define LB_TYPE_BROWSER_CHILDREN (lb_browser_children_get_type ())
G_DECLARE_FINAL_TYPE (LbBrowserChildren, lb_browser_children, LB, BROWSER_CHILDREN, GObject)

/* One row: an entry, a "Loading…" spinner, or an error with Retry. Everything a row shows or
 * sorts by is computed when the node is made, which for entries happens in a worker thread
 * (GLib only, no GTK), so binding a row and sorting cost no formatting on the main thread. */
struct _LbBrowserNode {
  GObject            parent_instance;
  NodeKind           kind;
  LbStoreEntry      *entry;      /* NODE_ENTRY */
  char              *message;    /* NODE_ERROR */
  char              *sort_key;   /* natural, locale-aware, case-folded name */
  gboolean           container;
  gint64             size;       /* bytes, -1 unknown or container */
  gint64             mtime_us;   /* µs since the epoch, G_MININT64 unknown */
  const char        *icon_name;  /* static */
  /* formatted on the first bind: only rows that are shown pay for it (measured: formatting
   * all 100 000 in the worker made that pass 1.2–1.5 s instead of 0.3–0.45 s, delaying the
   * first rows by as much; local time and g_format_size are the cost) */
  gboolean           texts_done;
  char              *size_text;  /* nullable */
  char              *date_text;  /* nullable, local time */
  LbBrowserChildren *children;   /* containers: created on demand, listed lazily */
  LbBrowserChildren *owner;      /* weak: the list this row is in (for Retry) */
  gboolean           reexpand;   /* was expanded when a re-sort took the row out */
};

G_DEFINE_FINAL_TYPE (LbBrowserNode, lb_browser_node, G_TYPE_OBJECT)

/* The children of one container, listed the first time GTK asks how many there are (that is,
 * when the row is expanded: GtkTreeListModel only calls create_func to learn if a row is
 * expandable, and only queries the child model once it is expanded).
 *
 * A listing goes: store list (the store's own thread or HTTP I/O) → worker thread (nodes,
 * keys, texts, sort) → main thread in batches from an idle, so the main loop keeps painting
 * while 100 000 rows arrive. Every step carries the generation it was started for: a result
 * for an older generation (the row was collapsed, the store closed, the list re-listed or
 * re-sorted meanwhile) is dropped and never reaches the model. */
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
  LbBrowserNode  *parent;       /* weak: the row whose children these are; NULL for the root */
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
  GtkColumnViewColumn *columns[N_SORT_COLUMNS];
  GSettings         *settings;
  guint              pending;
  guint              in_flight;
  SortSpec           sort;
  /* probing the view's sorter for its primary column (GTK 4.8 has no getter) */
  int                probe_column;
  LbBrowserNode     *probe[2];
};

G_DEFINE_FINAL_TYPE (LbStoreBrowser, lb_store_browser, GTK_TYPE_WIDGET)

enum { SIGNAL_ENTRY_ACTIVATED, SIGNAL_LISTING_FAILED, N_SIGNALS };
static guint signals[N_SIGNALS];

enum { PROP_0, PROP_PENDING, N_PROPS };
static GParamSpec *properties[N_PROPS];

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

static void
lb_browser_node_finalize (GObject *object)
{
  LbBrowserNode *self = LB_BROWSER_NODE (object);

  g_clear_object (&self->entry);
  g_clear_object (&self->children);
  g_free (self->message);
  g_free (self->sort_key);
  g_free (self->size_text);
  g_free (self->date_text);
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
  self->size = -1;
  self->mtime_us = G_MININT64;
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

/* GLib only: runs in the listing worker. */
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
      GDateTime *mtime = lb_store_entry_get_mtime (entry);

      node->sort_key = g_utf8_collate_key_for_filename (folded, -1);
      node->container = lb_store_entry_is_container (entry);
      node->icon_name = icon_for_kind (lb_store_entry_get_kind (entry));
      if (!node->container && lb_store_entry_get_size (entry) >= 0)
        node->size = lb_store_entry_get_size (entry);
      if (mtime != NULL)
        node->mtime_us = g_date_time_to_unix (mtime) * G_USEC_PER_SEC
                         + g_date_time_get_microsecond (mtime);
    }
  return node;
}

static gboolean
node_is_container (LbBrowserNode *node)
{
  return node->kind == NODE_ENTRY && node->container;
}

/* ---- sorting --------------------------------------------------------------------------- */

static int
cmp_int64 (gint64 a,
           gint64 b)
{
  return a < b ? -1 : a > b ? 1 : 0;
}

static int
cmp_name (LbBrowserNode *a,
          LbBrowserNode *b)
{
  int r = g_strcmp0 (a->sort_key, b->sort_key);

  /* equal keys (names differing only in case): a stable order all the same */
  return r != 0 ? r : g_strcmp0 (a->entry ? lb_store_entry_get_uri (a->entry) : NULL,
                                 b->entry ? lb_store_entry_get_uri (b->entry) : NULL);
}

/* One column, ascending, no folders-first: what the column's GtkSorter compares. */
static int
cmp_column (LbBrowserNode *a,
            LbBrowserNode *b,
            SortColumn     column)
{
  switch (column)
    {
    case SORT_SIZE: return cmp_int64 (a->size, b->size);
    case SORT_MODIFIED: return cmp_int64 (a->mtime_us, b->mtime_us);
    case SORT_NAME:
    case N_SORT_COLUMNS:
    default: return cmp_name (a, b);
    }
}

/* Within one container: folders first whatever the direction, then the column in the
 * chosen direction, then the name ascending (files of equal size in name order). */
static int
compare_nodes (gconstpointer a,
               gconstpointer b,
               gpointer      data)
{
  LbBrowserNode *na = *(LbBrowserNode **) a, *nb = *(LbBrowserNode **) b;
  const SortSpec *spec = data;
  gboolean ca = node_is_container (na), cb = node_is_container (nb);
  int r;

  if (ca != cb)
    return ca ? -1 : 1;
  r = cmp_column (na, nb, spec->column);
  if (spec->descending)
    r = -r;
  return r != 0 ? r : cmp_name (na, nb);
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
set_pending (LbStoreBrowser *browser,
             int             delta)
{
  if (browser == NULL)
    return;
  browser->pending += delta;
  g_object_notify_by_pspec (G_OBJECT (browser), properties[PROP_PENDING]);
}

static void
set_busy (LbBrowserChildren *self,
          gboolean           busy)
{
  if (self->busy == busy)
    return;
  self->busy = busy;
  set_pending (self->browser, busy ? +1 : -1);
}

static void
set_in_flight (LbStoreBrowser *browser,
               int             delta)
{
  if (browser != NULL)
    browser->in_flight += delta;
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
  self->chunk = BATCH_MIN;
  g_signal_connect (self->items, "items-changed", G_CALLBACK (on_items_changed), self);
}

/* Replaces everything in the list with one spinner row. */
static void
show_loading (LbBrowserChildren *self)
{
  g_autoptr (LbBrowserNode) loading = node_new (NODE_LOADING, NULL, NULL, self);

  g_list_store_splice (self->items, 0, g_list_model_get_n_items (G_LIST_MODEL (self->items)),
                       (gpointer *) &loading, 1);
}

static LbBrowserChildren *
children_new (LbStoreBrowser *browser,
              const char     *uri)
{
  LbBrowserChildren *self = g_object_new (LB_TYPE_BROWSER_CHILDREN, NULL);

  self->uri = g_strdup (uri);
  g_set_weak_pointer (&self->browser, browser);
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
  LbStoreBrowser *browser = list->browser;
  g_autoptr (GtkTreeListRow) parent_row = NULL;
  guint parent_index;

  if (browser == NULL || browser->tree == NULL)
    return NULL;
  if (list == browser->root)
    return gtk_tree_list_model_get_child_row (browser->tree, index);
  if (list->parent == NULL || list->parent->owner == NULL
      || !g_list_store_find (list->parent->owner->items, list->parent, &parent_index)
      || (parent_row = row_for_list (list->parent->owner, parent_index)) == NULL)
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

      if (!node->reexpand)
        continue;
      node->reexpand = FALSE;
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
  if (self->resorting)
    {
      /* the first batch takes the old rows out, expanded folders with them */
      for (guint i = 0; i < nodes->len; i++)
        {
          LbBrowserNode *node = g_ptr_array_index (nodes, i);
          node->reexpand = node->children != NULL && node->children->n_views > 0;
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

/* ---- the worker: nodes, keys, texts and the sort, off the main thread ----------------- */

typedef struct {
  GPtrArray         *entries;  /* LbStoreEntry, nullable */
  GPtrArray         *nodes;    /* LbBrowserNode to re-sort, nullable */
  LbBrowserChildren *owner;    /* not touched in the thread: only stored in the nodes */
  LbStoreBrowser    *browser;  /* weak, not touched in the thread: counts it in flight */
  SortSpec           sort;
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
          /* every 4096 entries (a few ms of collation keys and formatting) */
          if (i % 4096 == 0 && g_task_return_error_if_cancelled (task))
            return;
          g_ptr_array_add (nodes, node_new (NODE_ENTRY, g_ptr_array_index (p->entries, i), NULL,
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
  p->sort = self->browser->sort;
  p->start_us = g_get_monotonic_time ();
  g_set_weak_pointer (&p->browser, self->browser);
  if (self->cancellable == NULL)
    self->cancellable = g_cancellable_new ();
  task = g_task_new (self, self->cancellable, on_prepared, GUINT_TO_POINTER (self->generation));
  g_task_set_source_tag (task, prepare_start);
  g_task_set_task_data (task, p, (GDestroyNotify) prepare_free);
  set_in_flight (self->browser, +1);
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

  set_in_flight (p->browser, -1);
  if (GPOINTER_TO_UINT (user_data) != self->generation || nodes == NULL
      || self->browser == NULL || self->items == NULL)
    return;
  g_debug ("%s: %u rows made and sorted in the worker in %.1f ms",
           self->uri ? self->uri : "root", nodes->len,
           (g_get_monotonic_time () - p->start_us) / 1000.0);
  /* the order changed while the worker ran: once more, with the new one */
  if (p->sort.column != self->browser->sort.column
      || p->sort.descending != self->browser->sort.descending)
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

  set_in_flight (call->browser, -1);
  g_clear_weak_pointer (&call->browser);
  g_free (call);
  entries = lb_store_list_finish (LB_STORE (source), result, &error);
  if (generation != self->generation || self->items == NULL || self->browser == NULL
      || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (entries == NULL)
    {
      g_autoptr (LbBrowserNode) node = node_new (NODE_ERROR, NULL, error->message, self);

      g_debug ("listing %s failed: %s", self->uri ? self->uri : "root", error->message);
      g_list_store_splice (self->items, 0, g_list_model_get_n_items (G_LIST_MODEL (self->items)),
                           (gpointer *) &node, 1);
      g_clear_object (&self->cancellable);
      set_busy (self, FALSE);
      g_signal_emit (self->browser, signals[SIGNAL_LISTING_FAILED], 0, error);
      return;
    }
  g_debug ("%s: the store listed %u entries in %.1f ms", self->uri ? self->uri : "root",
           entries->len, (g_get_monotonic_time () - start_us) / 1000.0);
  prepare_start (self, g_steal_pointer (&entries), NULL);
}

static void
children_list (LbBrowserChildren *self)
{
  ListCall *call;

  if (self->browser == NULL || self->browser->store == NULL)
    return;
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
  set_in_flight (self->browser, +1);
  lb_store_list_async (self->browser->store, self->uri, self->cancellable, NULL, NULL,
                       on_listed, call);
}

/* Sorts a listed container again (the order changed) in the worker, then feeds it again;
 * the rows on screen stay until the first batch of the new order replaces them. */
static void
children_resort (LbBrowserChildren *self)
{
  GPtrArray *copy;

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
  children_list (self);
  return G_SOURCE_REMOVE;
}

/* Called from get_n_items/get_item: GTK is in the middle of reading the model, so nothing
 * may change now; the listing starts from an idle. */
static void
children_start (LbBrowserChildren *self)
{
  if (self->started || self->browser == NULL)
    return;
  self->started = TRUE;
  /* counts as running from now, so waiting for "no pending listings" is reliable */
  set_busy (self, TRUE);
  self->start_id = g_idle_add_full (G_PRIORITY_DEFAULT, children_start_idle, g_object_ref (self),
                                    g_object_unref);
}

/* The store goes: nothing of this list runs or starts any more. */
static void
children_shutdown (LbBrowserChildren *self)
{
  children_stop (self);
  set_busy (self, FALSE);
  self->started = TRUE;
  g_clear_weak_pointer (&self->browser);
}

/* Every listed list, depth first (for re-sorting and shutting down). */
static void
children_foreach (LbBrowserChildren *self,
                  void             (*func) (LbBrowserChildren *))
{
  if (self == NULL)
    return;
  func (self);
  if (self->nodes == NULL)
    return;
  for (guint i = 0; i < self->nodes->len; i++)
    {
      LbBrowserNode *node = g_ptr_array_index (self->nodes, i);

      if (node->children != NULL && node->children->started)
        children_foreach (node->children, func);
    }
}

/* ---- tree model ------------------------------------------------------------------------ */

static void
on_view_gone (gpointer  data,
              GObject  *view)
{
  LbBrowserChildren *children = data;

  if (--children->n_views == 0)
    children_collapsed (children);
  g_object_unref (children);
}

static GListModel *
create_children (gpointer item,
                 gpointer user_data)
{
  LbStoreBrowser *browser = user_data;
  LbBrowserNode *node = item;
  GtkMapListModel *view;

  if (!node_is_container (node))
    return NULL;
  if (node->children == NULL)
    {
      node->children = children_new (browser, lb_store_entry_get_uri (node->entry));
      g_set_weak_pointer (&node->children->parent, node);
    }
  /* a pass-through wrapper per expansion: the tree model drops it when the row collapses
   * (or the tree goes), which is how the list learns that nobody shows it any more */
  view = gtk_map_list_model_new (g_object_ref (G_LIST_MODEL (node->children)), NULL, NULL, NULL);
  node->children->n_views++;
  g_object_weak_ref (G_OBJECT (view), on_view_gone, g_object_ref (node->children));
  return G_LIST_MODEL (view);
}

static LbBrowserNode *
row_node (GtkListItem *item)
{
  GtkTreeListRow *row = gtk_list_item_get_item (item);

  return row ? gtk_tree_list_row_get_item (row) : NULL;
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
      gtk_image_set_from_icon_name (GTK_IMAGE (icon), node->icon_name);
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
node_format (LbBrowserNode *node)
{
  GDateTime *mtime;

  if (node->texts_done)
    return;
  node->texts_done = TRUE;
  if (node->kind != NODE_ENTRY)
    return;
  if (node->size >= 0)
    node->size_text = g_format_size (node->size);
  if ((mtime = lb_store_entry_get_mtime (node->entry)) != NULL)
    {
      g_autoptr (GDateTime) local = g_date_time_to_local (mtime);
      node->date_text = local ? g_date_time_format (local, "%Y-%m-%d %H:%M") : NULL;
    }
}

static void
size_bind (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           gpointer                  user_data)
{
  LbBrowserNode *node = row_node (item);

  node_format (node);
  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (item)),
                      node->size_text ? node->size_text : "");
}

static void
date_bind (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           gpointer                  user_data)
{
  LbBrowserNode *node = row_node (item);

  node_format (node);
  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (item)),
                      node->date_text ? node->date_text : "");
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

/* ---- sort order ------------------------------------------------------------------------ */

/* A column's sorter: that column ascending, as the column view asks it. The view never sorts
 * a model with it (each container sorts its own children in the worker, folders first); the
 * view's sorter only records which header was clicked, read back by probing it. */
typedef struct {
  LbStoreBrowser *browser;  /* the widget owns the view owns the sorter */
  SortColumn      column;
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
  return cmp_column ((LbBrowserNode *) a, (LbBrowserNode *) b, cs->column);
}

/* GTK 4.8 has no getter for the column view's primary sort column and direction: compare two
 * rows that are in ascending order by every column and see who answers, and how. */
static gboolean
read_view_sort (LbStoreBrowser *self,
                SortSpec       *spec)
{
  GtkSorter *sorter = gtk_column_view_get_sorter (GTK_COLUMN_VIEW (self->view));
  GtkOrdering order;

  self->probe_column = -1;
  order = gtk_sorter_compare (sorter, self->probe[0], self->probe[1]);
  if (self->probe_column < 0 || order == GTK_ORDERING_EQUAL)
    return FALSE;
  spec->column = (SortColumn) self->probe_column;
  spec->descending = order == GTK_ORDERING_LARGER;
  return TRUE;
}

static void
on_view_sorter_changed (GtkSorter       *sorter,
                        GtkSorterChange  change,
                        LbStoreBrowser  *self)
{
  SortSpec spec = { SORT_NAME, FALSE };

  /* no column (GTK leaves none selected only before the first click): by name */
  read_view_sort (self, &spec);
  if (spec.column == self->sort.column && spec.descending == self->sort.descending)
    return;
  self->sort = spec;
  g_debug ("sort by %s%s", sort_column_names[spec.column], spec.descending ? ", descending" : "");
  g_settings_set_string (self->settings, "tree-sort-column", sort_column_names[spec.column]);
  g_settings_set_boolean (self->settings, "tree-sort-descending", spec.descending);
  children_foreach (self->root, children_resort);
}

static void
apply_sort (LbStoreBrowser *self,
            SortColumn      column,
            gboolean        descending)
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

  for (int c = 0; c < N_SORT_COLUMNS; c++)
    if (g_str_equal (name, sort_column_names[c]))
      {
        gboolean descending = self->sort.column == (SortColumn) c ? !self->sort.descending : FALSE;
        apply_sort (self, (SortColumn) c, descending);
        return;
      }
  g_warning ("unknown sort column '%s'", name);
}

static void
restore_sort (LbStoreBrowser *self)
{
  g_autofree char *name = g_settings_get_string (self->settings, "tree-sort-column");
  SortColumn column = SORT_NAME;

  for (int c = 0; c < N_SORT_COLUMNS; c++)
    if (g_str_equal (name, sort_column_names[c]))
      column = (SortColumn) c;
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

  children_foreach (self->root, children_shutdown);
  if (self->view != NULL)
    g_signal_handlers_disconnect_by_func (gtk_column_view_get_sorter (GTK_COLUMN_VIEW (self->view)),
                                          on_view_sorter_changed, self);
  g_clear_pointer (&self->scroller, gtk_widget_unparent);
  self->view = NULL;
  g_clear_object (&self->selection);
  g_clear_object (&self->tree);
  g_clear_object (&self->root);
  g_clear_object (&self->store);
  g_clear_object (&self->settings);
  g_clear_object (&self->probe[0]);
  g_clear_object (&self->probe[1]);
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
  gtk_widget_class_install_action (widget_class, "tree.sort", "s", sort_action);
  /* Ctrl+digit is taken by the window (zoom); Alt+digit is free in the tree */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_1, GDK_ALT_MASK, "tree.sort", "s", "name");
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_2, GDK_ALT_MASK, "tree.sort", "s", "size");
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_3, GDK_ALT_MASK, "tree.sort", "s",
                                       "modified");
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "lb-store-browser");
}

static GtkColumnViewColumn *
add_column (LbStoreBrowser *self,
            SortColumn      column,
            const char     *title,
            GCallback       setup,
            GCallback       bind,
            GCallback       unbind,
            gpointer        data)
{
  GtkColumnViewColumn *col = make_column (title, setup, bind, unbind, data);
  ColumnSorter *cs = g_new0 (ColumnSorter, 1);
  g_autoptr (GtkCustomSorter) sorter = NULL;

  cs->browser = self;
  cs->column = column;
  sorter = gtk_custom_sorter_new (column_compare, cs, g_free);
  gtk_column_view_column_set_sorter (col, GTK_SORTER (sorter));
  gtk_column_view_column_set_resizable (col, TRUE);
  gtk_column_view_append_column (GTK_COLUMN_VIEW (self->view), col);
  self->columns[column] = col;
  g_object_unref (col);
  return col;
}

static LbBrowserNode *
probe_node (const char *name,
            gint64      value)
{
  g_autoptr (LbStoreEntry) entry = lb_store_entry_new ("probe:", name, LB_STORE_ENTRY_FILE);
  g_autoptr (GDateTime) mtime = g_date_time_new_from_unix_utc (value);

  lb_store_entry_set_size (entry, value);
  lb_store_entry_set_mtime (entry, mtime);
  return node_new (NODE_ENTRY, entry, NULL, NULL);
}

static void
lb_store_browser_init (LbStoreBrowser *self)
{
  GtkColumnViewColumn *col;

  self->settings = g_settings_new (APP_ID);
  self->probe[0] = probe_node ("a", 1);
  self->probe[1] = probe_node ("b", 2);
  self->selection = gtk_single_selection_new (NULL);
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  self->view = gtk_column_view_new (GTK_SELECTION_MODEL (g_object_ref (self->selection)));
  gtk_column_view_set_show_column_separators (GTK_COLUMN_VIEW (self->view), FALSE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->view), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Store Tree"), -1);
  col = add_column (self, SORT_NAME, _("Name"), G_CALLBACK (name_setup), G_CALLBACK (name_bind),
                    G_CALLBACK (name_unbind), NULL);
  gtk_column_view_column_set_expand (col, TRUE);
  add_column (self, SORT_SIZE, _("Size"), G_CALLBACK (label_setup), G_CALLBACK (size_bind), NULL,
              GINT_TO_POINTER (1));
  add_column (self, SORT_MODIFIED, _("Modified"), G_CALLBACK (label_setup),
              G_CALLBACK (date_bind), NULL, GINT_TO_POINTER (0));
  g_signal_connect (self->view, "activate", G_CALLBACK (on_activate), self);
  restore_sort (self);
  g_signal_connect (gtk_column_view_get_sorter (GTK_COLUMN_VIEW (self->view)), "changed",
                    G_CALLBACK (on_view_sorter_changed), self);

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

  /* whatever the old store still lists is cancelled and never lands */
  children_foreach (self->root, children_shutdown);
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
  if (node == NULL || node->children == NULL || !node->children->busy)
    return NULL;
  return node->children->cancellable;
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
