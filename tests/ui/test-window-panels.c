/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The workstation's panels and dialogs on their own, without a store: the benchmark table
 * (its width in a 1280 px window, sorting, copy, clear) and the plugin manager's reload.
 */
#include "config.h"

#include <glib/gstdio.h>

#include "lb-bench-panel.h"
#include "lb-plugin-manager.h"
#include "lb-test-files.h"
#include "lb-test-loop.h"
#include "lb-test-ui.h"

static LbApplication *app;

static void
on_clipboard_text (GObject      *clipboard,
                   GAsyncResult *result,
                   gpointer      data)
{
  *(char **) data = gdk_clipboard_read_text_finish (GDK_CLIPBOARD (clipboard), result, NULL);
}

static gboolean
is_set (gpointer data)
{
  return *(char **) data != NULL;
}

/* The benchmark table at the width it has in a 1280 px window (830 px beside the sidebar):
 * all seven columns fit, wide figures included; a header click sorts it; bench.copy puts the
 * rows as shown on the clipboard; bench.clear empties it. */
static void
test_bench_panel (void)
{
  GtkWidget *window = gtk_window_new ();
  LbBenchPanel *panel = LB_BENCH_PANEL (lb_bench_panel_new ());
  GtkWidget *table = lb_bench_panel_get_table (panel);
  g_autoptr (GtkColumnViewColumn) ms = g_list_model_get_item (
    gtk_column_view_get_columns (GTK_COLUMN_VIEW (table)), 5);
  g_autofree char *text = NULL, *copied = NULL;
  int min;

  gtk_window_set_default_size (GTK_WINDOW (window), 830, 240);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (panel));
  lb_bench_panel_add (panel, "io.github.lightbox.xv.gaussian", "sigma=2.5", 4096, 4096,
                      LB_FORMAT_RGBA16, 16, 12345.678);
  lb_bench_panel_add (panel, "io.github.lightbox.xv.threshold", "level=30 invert=false", 128,
                      128, LB_FORMAT_GRAY16, 2, 0.25);
  lb_bench_panel_add (panel, "io.github.lightbox.enhance.unsharp", NULL, 512, 512,
                      LB_FORMAT_GRAY8, 4, 3.5);
  gtk_window_present (GTK_WINDOW (window));
  gtk_test_widget_wait_for_draw (window);
  gtk_widget_measure (table, GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
  g_assert_cmpint (min, <=, gtk_widget_get_width (gtk_widget_get_parent (table)));

  /* Mpx/s: 16.777216 Mpx in 12.345678 s, 0.262144 in 3.5 ms, 0.016384 in 0.25 ms */
  gtk_column_view_sort_by_column (GTK_COLUMN_VIEW (table), ms, GTK_SORT_DESCENDING);
  text = lb_bench_panel_dup_text (panel);
  g_assert_cmpstr (text, ==,
                   "Filter\tParameters\tSize\tFormat\tThreads\tms\tMpx/s\n"
                   "gaussian\tsigma=2.5\t4096×4096\trgba16\t16\t12345.68\t1.4\n"
                   "unsharp\t\t512×512\tgray8\t4\t3.50\t74.9\n"
                   "threshold\tlevel=30 invert=false\t128×128\tgray16\t2\t0.25\t65.5\n");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (panel), "bench.copy", NULL));
  gdk_clipboard_read_text_async (gtk_widget_get_clipboard (table), NULL, on_clipboard_text,
                                 &copied);
  g_assert_true (lb_test_wait (is_set, &copied, 5000));
  g_assert_cmpstr (copied, ==, text);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (panel), "bench.clear", NULL));
  g_assert_cmpuint (lb_bench_panel_get_n_records (panel), ==, 0);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (gtk_column_view_get_model (
                      GTK_COLUMN_VIEW (table)))),
                    ==, 0);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* plugins.reload scans the folders again: a filter file added since is listed, a broken one
 * is reported (a rescan that adds no filter updates the load errors too). */
static void
test_plugin_manager_reload (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("lightbox-filters-XXXXXX", &error);
  g_autofree char *src = g_build_filename (g_getenv ("LB_SOURCE_ROOT"), "plugins", "filters",
                                           "soft-sharpen.lbfilter", NULL);
  g_autofree char *good = g_build_filename (dir, "soft-sharpen.lbfilter", NULL);
  g_autofree char *bad = g_build_filename (dir, "broken.lbfilter", NULL);
  g_autofree char *contents = NULL;
  g_autoptr (LbFilterRegistry) registry = lb_filter_registry_new ();
  LbPluginManager *manager;
  gsize len;

  g_assert_no_error (error);
  lb_filter_registry_add_filter_dir (registry, dir);
  manager = lb_plugin_manager_new (registry, NULL);
  gtk_window_present (GTK_WINDOW (manager));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (registry)), ==, 0);

  g_assert_true (g_file_get_contents (src, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (good, contents, len, NULL));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (manager), "plugins.reload", NULL));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (registry)), ==, 1);
  g_assert_cmpstr (lb_plugin_manager_get_problems_text (manager), ==, "No load errors.");

  g_assert_true (g_file_set_contents (bad, "not a filter\n", -1, NULL));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (manager), "plugins.reload", NULL));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (registry)), ==, 1);
  g_assert_nonnull (strstr (lb_plugin_manager_get_problems_text (manager), "broken.lbfilter"));
  /* fixed by removal, seen by any rescan (the watcher's too): the stale error goes */
  g_assert_cmpint (g_unlink (bad), ==, 0);
  lb_filter_registry_rescan (registry);
  g_assert_cmpstr (lb_plugin_manager_get_problems_text (manager), ==, "No load errors.");
  gtk_window_destroy (GTK_WINDOW (manager));
  lb_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  static const LbTestUiCase cases[] = {
    { "/ui/window/bench-panel", test_bench_panel },
    { "/ui/window/plugin-manager-reload", test_plugin_manager_reload },
  };

  return lb_test_ui_main (argc, argv, &app, cases, G_N_ELEMENTS (cases));
}
