/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The store tree on a real local folder store: a folder of 100 000 entries arrives in batches
 * while the main loop keeps running; collapsing cancels the listing and nothing lands later;
 * the size and date columns sort each folder (folders first), from the column view's sorter
 * (what a header click changes) and from the keyboard action; the order persists in GSettings;
 * tree.refresh lists a folder again, keeping what was expanded below it and the selection,
 * and tree.open toggles it.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <utime.h>

#include "lb-store-browser.h"
#include "lb-test-files.h"
#include "lb-test-loop.h"
#include "lb-test-ui.h"

#define BIG_N 100000

static char *root_dir;
static GSettings *settings;

typedef struct {
  GtkWidget      *window;
  LbStoreBrowser *browser;
  LbStore        *store;
} Tree;

static gboolean
idle_cond (gpointer data)
{
  return lb_store_browser_get_pending (LB_STORE_BROWSER (data)) == 0;
}

static gboolean
no_flight (gpointer data)
{
  return lb_store_browser_get_in_flight (LB_STORE_BROWSER (data)) == 0;
}

static void
tree_open (Tree *t)
{
  g_autofree char *uri = g_filename_to_uri (root_dir, NULL, NULL);
  g_autoptr (GError) error = NULL;

  t->store = lb_store_new_for_uri (uri, NULL, &error);
  g_assert_no_error (error);
  t->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (t->window), 640, 480);
  t->browser = LB_STORE_BROWSER (lb_store_browser_new ());
  gtk_window_set_child (GTK_WINDOW (t->window), GTK_WIDGET (t->browser));
  gtk_window_present (GTK_WINDOW (t->window));
  lb_store_browser_set_store (t->browser, t->store);
  g_assert_true (lb_test_wait (idle_cond, t->browser, 60000));
  /* the root: the two folders */
  g_assert_cmpuint (g_list_model_get_n_items (lb_store_browser_get_rows (t->browser)), ==, 2);
}

static void
tree_close (Tree *t)
{
  gtk_window_destroy (GTK_WINDOW (t->window));
  g_clear_object (&t->store);
  for (int i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
}

static guint
n_rows (Tree *t)
{
  return g_list_model_get_n_items (lb_store_browser_get_rows (t->browser));
}

static const char *
name_at (Tree  *t,
         guint  pos)
{
  LbStoreEntry *e = lb_store_browser_get_entry (t->browser, pos);
  return e ? lb_store_entry_get_name (e) : NULL;
}

/* ---- batches --------------------------------------------------------------------------- */

typedef struct {
  guint          ticks;      /* an idle beside the feeder: how often the loop came round */
  GdkFrameClock *clock;
  GArray        *batches;    /* Batch */
  guint          added_after; /* rows added after the collapse */
  gboolean       collapsed;
} Watch;

typedef struct {
  guint  added;
  guint  removed;
  guint  tick;
  gint64 frame;
} Batch;

static gboolean
count_tick (gpointer data)
{
  ((Watch *) data)->ticks++;
  return G_SOURCE_CONTINUE;
}

static void
on_rows_changed (GListModel *rows,
                 guint       position,
                 guint       removed,
                 guint       added,
                 Watch      *w)
{
  Batch b = { added, removed, w->ticks, gdk_frame_clock_get_frame_counter (w->clock) };

  if (added == 0)
    return;
  if (w->collapsed)
    w->added_after += added;
  g_array_append_val (w->batches, b);
}

static void
test_large_folder (void)
{
  Tree t = { 0 };
  Watch w = { 0 };
  guint pos, tick_id, big_rows;
  gint64 t0;

  tree_open (&t);
  pos = lb_store_browser_find_row (t.browser, "big");
  g_assert_cmpuint (pos, ==, 0);
  w.clock = gtk_widget_get_frame_clock (t.window);
  g_assert_nonnull (w.clock);
  w.batches = g_array_new (FALSE, FALSE, sizeof (Batch));
  g_signal_connect (lb_store_browser_get_rows (t.browser), "items-changed",
                    G_CALLBACK (on_rows_changed), &w);
  /* the same priority as the feeder: if batches come from separate dispatches, this runs
   * between them */
  tick_id = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, count_tick, &w, NULL);

  t0 = g_get_monotonic_time ();
  g_assert_true (lb_store_browser_expand_row (t.browser, pos, TRUE));
  /* the expand returned before any entry arrived: a spinner row only */
  g_assert_cmpuint (n_rows (&t), ==, 3);
  g_assert_null (lb_store_browser_get_entry (t.browser, pos + 1));
  g_assert_cmpuint (lb_store_browser_get_pending (t.browser), >, 0);

  g_assert_true (lb_test_wait (idle_cond, t.browser, 120000));
  g_source_remove (tick_id);
  g_signal_handlers_disconnect_by_func (lb_store_browser_get_rows (t.browser), on_rows_changed, &w);

  /* every entry arrived, in natural name order, under its folder */
  g_assert_cmpuint (n_rows (&t), ==, 2 + BIG_N);
  g_assert_cmpstr (name_at (&t, pos + 1), ==, "img-000000.png");
  g_assert_cmpstr (name_at (&t, pos + BIG_N), ==, "img-099999.png");
  g_assert_cmpstr (name_at (&t, pos + BIG_N + 1), ==, "sorted");
  /* the signals the view saw add up to the rows */
  big_rows = 0;
  for (guint i = 0; i < w.batches->len; i++)
    big_rows += g_array_index (w.batches, Batch, i).added - g_array_index (w.batches, Batch, i).removed;
  g_assert_cmpuint (big_rows, ==, BIG_N);

  /* more than one batch, each from its own main-loop dispatch: the idle beside the feeder
   * ran between every two of them */
  g_assert_cmpuint (w.batches->len, >=, 3);
  for (guint i = 2; i < w.batches->len; i++)
    g_assert_cmpuint (g_array_index (w.batches, Batch, i).tick, >,
                      g_array_index (w.batches, Batch, i - 1).tick);
  g_test_message ("%u entries in %u batches over %.0f ms; %u idle ticks; frames %" G_GINT64_FORMAT
                  " → %" G_GINT64_FORMAT, BIG_N, w.batches->len - 1,
                  (g_get_monotonic_time () - t0) / 1000.0, w.ticks,
                  g_array_index (w.batches, Batch, 1).frame,
                  g_array_index (w.batches, Batch, w.batches->len - 1).frame);
  g_array_unref (w.batches);
  tree_close (&t);
}

/* ---- cancellation ---------------------------------------------------------------------- */

static gboolean
listing_started (gpointer data)
{
  Tree *t = data;
  return lb_store_browser_get_listing_cancellable (t->browser, 0) != NULL;
}

static gboolean
first_batch_in (gpointer data)
{
  Tree *t = data;
  return lb_store_browser_get_entry (t->browser, 1) != NULL;
}

/* Collapses "big" (row 0) at the moment @cond says, and checks nothing lands afterwards. */
static void
collapse_when (gboolean (*cond) (gpointer),
               const char *stage)
{
  Tree t = { 0 };
  Watch w = { 0 };
  g_autoptr (GCancellable) cancellable = NULL;

  tree_open (&t);
  w.clock = gtk_widget_get_frame_clock (t.window);
  w.batches = g_array_new (FALSE, FALSE, sizeof (Batch));
  g_assert_cmpstr (name_at (&t, 0), ==, "big");
  g_assert_true (lb_store_browser_expand_row (t.browser, 0, TRUE));
  g_assert_true (lb_test_wait (cond, &t, 60000));
  cancellable = g_object_ref (lb_store_browser_get_listing_cancellable (t.browser, 0));
  g_assert_false (g_cancellable_is_cancelled (cancellable));
  g_assert_cmpuint (lb_store_browser_get_pending (t.browser), ==, 1);
  g_test_message ("collapse %s: %u rows", stage, n_rows (&t));

  g_signal_connect (lb_store_browser_get_rows (t.browser), "items-changed",
                    G_CALLBACK (on_rows_changed), &w);
  w.collapsed = TRUE;
  g_assert_true (lb_store_browser_expand_row (t.browser, 0, FALSE));
  g_assert_true (g_cancellable_is_cancelled (cancellable));
  g_assert_cmpuint (lb_store_browser_get_pending (t.browser), ==, 0);
  g_assert_cmpuint (n_rows (&t), ==, 2);
  /* the store call and the worker come back (their results are dropped) */
  g_assert_true (lb_test_wait (no_flight, t.browser, 60000));
  for (int i = 0; i < 50; i++)
    g_main_context_iteration (NULL, FALSE);
  g_assert_cmpuint (n_rows (&t), ==, 2);
  g_assert_cmpuint (w.added_after, ==, 0);
  g_signal_handlers_disconnect_by_func (lb_store_browser_get_rows (t.browser), on_rows_changed, &w);
  g_array_unref (w.batches);

  /* expanding again lists afresh, to the end */
  g_assert_true (lb_store_browser_expand_row (t.browser, 0, TRUE));
  g_assert_true (lb_test_wait (idle_cond, t.browser, 120000));
  g_assert_cmpuint (n_rows (&t), ==, 2 + BIG_N);
  tree_close (&t);
}

static void
test_collapse_while_listing (void)
{
  collapse_when (listing_started, "while the store lists");
}

static void
test_collapse_while_feeding (void)
{
  collapse_when (first_batch_in, "while batches arrive");
}

/* Closing the store while a listing runs: cancelled, nothing lands in the next store's tree. */
static void
test_switch_store (void)
{
  Tree t = { 0 };
  g_autoptr (GCancellable) cancellable = NULL;

  tree_open (&t);
  g_assert_true (lb_store_browser_expand_row (t.browser, 0, TRUE));
  g_assert_true (lb_test_wait (listing_started, &t, 60000));
  cancellable = g_object_ref (lb_store_browser_get_listing_cancellable (t.browser, 0));
  lb_store_browser_set_store (t.browser, NULL);
  g_assert_true (g_cancellable_is_cancelled (cancellable));
  g_assert_cmpuint (lb_store_browser_get_pending (t.browser), ==, 0);
  g_assert_null (lb_store_browser_get_rows (t.browser));
  /* the same store again: only its root, whatever the old listing does when it returns */
  lb_store_browser_set_store (t.browser, t.store);
  g_assert_true (lb_test_wait (idle_cond, t.browser, 60000));
  g_assert_true (lb_test_wait (no_flight, t.browser, 60000));
  for (int i = 0; i < 50; i++)
    g_main_context_iteration (NULL, FALSE);
  g_assert_cmpuint (n_rows (&t), ==, 2);
  tree_close (&t);
}

/* ---- sorting --------------------------------------------------------------------------- */

static void
assert_children (Tree       *t,
                 guint       parent,
                 const char *expected)
{
  g_auto (GStrv) names = g_strsplit (expected, " ", -1);

  for (guint i = 0; names[i] != NULL; i++)
    g_assert_cmpstr (name_at (t, parent + 1 + i), ==, names[i]);
}

static gboolean
sorted_listed (gpointer data)
{
  Tree *t = data;
  return idle_cond (t->browser);
}

static guint
expand_sorted (Tree *t)
{
  guint pos = lb_store_browser_find_row (t->browser, "sorted");

  g_assert_cmpuint (pos, !=, G_MAXUINT);
  g_assert_true (lb_store_browser_expand_row (t->browser, pos, TRUE));
  g_assert_true (lb_test_wait (sorted_listed, t, 60000));
  g_assert_cmpuint (n_rows (t), ==, 2 + 5);
  return pos;
}

static GtkColumnViewColumn *
column (Tree *t,
        guint i)
{
  GListModel *cols = gtk_column_view_get_columns (GTK_COLUMN_VIEW (lb_store_browser_get_view (t->browser)));
  GtkColumnViewColumn *c = g_list_model_get_item (cols, i);

  g_object_unref (c);
  return c;
}

static void
sort_by_header (Tree       *t,
                guint       col,
                GtkSortType order)
{
  /* what a click on the header does: the column view's sorter changes */
  gtk_column_view_sort_by_column (GTK_COLUMN_VIEW (lb_store_browser_get_view (t->browser)),
                                  column (t, col), order);
  g_assert_true (lb_test_wait (idle_cond, t->browser, 60000));
}

static void
test_sort (void)
{
  Tree t = { 0 };
  g_autofree char *col = NULL;
  guint pos;

  g_settings_reset (settings, "tree-sort-column");
  g_settings_reset (settings, "tree-sort-descending");
  tree_open (&t);
  pos = expand_sorted (&t);
  /* by name, natural and case-insensitive, folders first */
  assert_children (&t, pos, "a-dir b-dir img2.png IMG3.png img10.png");

  sort_by_header (&t, 1, GTK_SORT_ASCENDING);
  pos = lb_store_browser_find_row (t.browser, "sorted");
  assert_children (&t, pos, "a-dir b-dir img10.png IMG3.png img2.png");
  col = g_settings_get_string (settings, "tree-sort-column");
  g_assert_cmpstr (col, ==, "size");
  g_assert_false (g_settings_get_boolean (settings, "tree-sort-descending"));

  /* the keyboard: the same column again reverses, folders stay first */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (t.browser), "tree.sort", "s", "size"));
  g_assert_true (lb_test_wait (idle_cond, t.browser, 60000));
  pos = lb_store_browser_find_row (t.browser, "sorted");
  assert_children (&t, pos, "a-dir b-dir img2.png IMG3.png img10.png");
  g_assert_true (g_settings_get_boolean (settings, "tree-sort-descending"));

  /* by date, oldest first; the folders by date too, still before the files */
  sort_by_header (&t, 2, GTK_SORT_ASCENDING);
  pos = lb_store_browser_find_row (t.browser, "sorted");
  assert_children (&t, pos, "b-dir a-dir img10.png IMG3.png img2.png");
  /* the expanded folder stayed expanded through the re-sorts */
  g_assert_cmpuint (n_rows (&t), ==, 2 + 5);
  g_clear_pointer (&col, g_free);
  col = g_settings_get_string (settings, "tree-sort-column");
  g_assert_cmpstr (col, ==, "modified");
  g_assert_false (g_settings_get_boolean (settings, "tree-sort-descending"));
  tree_close (&t);

  /* a new tree starts in the saved order */
  tree_open (&t);
  pos = expand_sorted (&t);
  assert_children (&t, pos, "b-dir a-dir img10.png IMG3.png img2.png");
  tree_close (&t);
  g_settings_reset (settings, "tree-sort-column");
  g_settings_reset (settings, "tree-sort-descending");
}

/* ---- actions --------------------------------------------------------------------------- */

/* tree.refresh lists the selected row's folder again (a file added meanwhile appears);
 * tree.open does what Enter does (the selected folder collapses). */
static void
test_refresh_open (void)
{
  g_autofree char *added = g_build_filename (root_dir, "sorted", "img4.png", NULL);
  Tree t = { 0 };
  guint pos;

  g_settings_reset (settings, "tree-sort-column");
  g_settings_reset (settings, "tree-sort-descending");
  tree_open (&t);
  pos = expand_sorted (&t);
  g_assert_true (g_file_set_contents (added, "", 0, NULL));
  lb_store_browser_select_row (t.browser, pos + 3);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (t.browser), "tree.refresh", NULL));
  g_assert_true (lb_test_wait (idle_cond, t.browser, 60000));
  g_assert_cmpuint (n_rows (&t), ==, 2 + 6);
  assert_children (&t, pos, "a-dir b-dir img2.png IMG3.png img4.png img10.png");

  lb_store_browser_select_row (t.browser, pos);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (t.browser), "tree.open", NULL));
  g_assert_cmpuint (n_rows (&t), ==, 2);
  g_assert_cmpint (g_unlink (added), ==, 0);
  tree_close (&t);
}

static gboolean
row_expanded (Tree       *t,
              const char *name)
{
  g_autoptr (GtkTreeListRow) row = NULL;
  guint pos = lb_store_browser_find_row (t->browser, name);

  g_assert_cmpuint (pos, !=, G_MAXUINT);
  row = gtk_tree_list_model_get_row (GTK_TREE_LIST_MODEL (lb_store_browser_get_rows (t->browser)),
                                     pos);
  return gtk_tree_list_row_get_expanded (row);
}

/* F5 lists again without collapsing the rest: the folders expanded below the one refreshed,
 * at every depth, are expanded again, and the selected row is selected again. */
static void
test_refresh_keeps_expanded (void)
{
  g_autofree char *inner = g_build_filename (root_dir, "sorted", "a-dir", "x.png", NULL);
  g_autofree char *added = g_build_filename (root_dir, "sorted", "img5.png", NULL);
  GtkSingleSelection *sel;
  Tree t = { 0 };
  guint pos;

  g_settings_reset (settings, "tree-sort-column");
  g_settings_reset (settings, "tree-sort-descending");
  g_assert_true (g_file_set_contents (inner, "", 0, NULL));
  tree_open (&t);
  pos = expand_sorted (&t);
  g_assert_true (lb_store_browser_expand_row (t.browser, pos + 1, TRUE));
  g_assert_true (lb_test_wait (idle_cond, t.browser, 60000));
  g_assert_cmpuint (n_rows (&t), ==, 2 + 5 + 1);
  sel = GTK_SINGLE_SELECTION (gtk_column_view_get_model (
    GTK_COLUMN_VIEW (lb_store_browser_get_view (t.browser))));

  /* the whole store (nothing selected): both levels come back expanded */
  gtk_single_selection_set_selected (sel, GTK_INVALID_LIST_POSITION);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (t.browser), "tree.refresh", NULL));
  g_assert_true (lb_test_wait (idle_cond, t.browser, 60000));
  g_assert_true (row_expanded (&t, "sorted"));
  g_assert_true (row_expanded (&t, "a-dir"));
  g_assert_cmpuint (n_rows (&t), ==, 2 + 5 + 1);
  g_assert_cmpuint (lb_store_browser_find_row (t.browser, "x.png"), !=, G_MAXUINT);

  /* a file's folder (the file selected): the new file shows, a-dir stays open, the
   * selection stays on the file */
  g_assert_true (g_file_set_contents (added, "", 0, NULL));
  lb_store_browser_select_row (t.browser, lb_store_browser_find_row (t.browser, "img2.png"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (t.browser), "tree.refresh", NULL));
  g_assert_true (lb_test_wait (idle_cond, t.browser, 60000));
  g_assert_true (row_expanded (&t, "a-dir"));
  g_assert_cmpuint (n_rows (&t), ==, 2 + 6 + 1);
  g_assert_cmpstr (name_at (&t, gtk_single_selection_get_selected (sel)), ==, "img2.png");
  tree_close (&t);
  g_assert_cmpint (g_unlink (inner), ==, 0);
  g_assert_cmpint (g_unlink (added), ==, 0);
}

/* ---- data ------------------------------------------------------------------------------ */

static void
make_file (const char *dir,
           const char *name,
           gsize       size,
           time_t      mtime)
{
  g_autofree char *p = g_build_filename (dir, name, NULL);
  g_autofree char *data = g_malloc0 (size + 1);
  struct utimbuf times = { mtime, mtime };

  g_assert_true (g_file_set_contents (p, data, size, NULL));
  g_assert_cmpint (g_utime (p, &times), ==, 0);
}

static void
make_tree (void)
{
  g_autofree char *big = g_build_filename (root_dir, "big", NULL);
  g_autofree char *sorted = g_build_filename (root_dir, "sorted", NULL);
  g_autofree char *a = g_build_filename (sorted, "a-dir", NULL);
  g_autofree char *b = g_build_filename (sorted, "b-dir", NULL);
  time_t now = time (NULL);
  struct utimbuf ta = { now - 100, now - 100 }, tb = { now - 5000, now - 5000 };

  g_assert_cmpint (g_mkdir (big, 0755), ==, 0);
  lb_test_ui_make_empty_files (big, BIG_N);
  g_assert_cmpint (g_mkdir (sorted, 0755), ==, 0);
  /* sizes and dates in three different orders: name (natural), size, date */
  make_file (sorted, "img2.png", 300, now - 1000);
  make_file (sorted, "IMG3.png", 200, now - 2000);
  make_file (sorted, "img10.png", 100, now - 3000);
  g_assert_cmpint (g_mkdir (a, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (b, 0755), ==, 0);
  g_assert_cmpint (g_utime (a, &ta), ==, 0);
  g_assert_cmpint (g_utime (b, &tb), ==, 0);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  int ret;

  if (!lb_test_ui_init (&argc, &argv))
    return 0;
  root_dir = g_dir_make_tmp ("lightbox-tree-XXXXXX", &error);
  g_assert_no_error (error);
  make_tree ();
  settings = g_settings_new (APP_ID);

  g_test_add_func ("/ui/store-tree/large-folder", test_large_folder);
  g_test_add_func ("/ui/store-tree/collapse-while-listing", test_collapse_while_listing);
  g_test_add_func ("/ui/store-tree/collapse-while-feeding", test_collapse_while_feeding);
  g_test_add_func ("/ui/store-tree/switch-store", test_switch_store);
  g_test_add_func ("/ui/store-tree/sort", test_sort);
  g_test_add_func ("/ui/store-tree/refresh-open", test_refresh_open);
  g_test_add_func ("/ui/store-tree/refresh-keeps-expanded", test_refresh_keeps_expanded);
  ret = g_test_run ();

  g_clear_object (&settings);
  lb_test_remove_tree (root_dir);
  g_free (root_dir);
  return ret;
}
