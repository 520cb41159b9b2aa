/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Plugin host: discovery, validation of broken plugins, permissions, hot reload. */

#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "lb-error.h"
#include "lb-filter-params.h"
#include "lb-filter-registry.h"
#include "lb-pipeline.h"
#include "lb-test-files.h"
#include "lb-test-image.h"
#include "lb-test-loop.h"

#define EXAMPLE_ID "io.github.lightbox.example.threshold"
#define MARK_ID "io.github.lightbox.test.mark"

static gboolean
problems_contain (LbFilterRegistry *reg,
                  const char       *file,
                  const char       *what)
{
  GPtrArray *p = lb_filter_registry_get_problems (reg);

  for (guint i = 0; i < p->len; i++)
    {
      const char *msg = g_ptr_array_index (p, i);
      if (strstr (msg, file) != NULL && strstr (msg, what) != NULL)
        return TRUE;
    }
  g_test_message ("no problem mentions %s with “%s”; problems:", file, what);
  for (guint i = 0; i < p->len; i++)
    g_test_message ("  %s", (char *) g_ptr_array_index (p, i));
  return FALSE;
}

static void
test_default_dirs (void)
{
  g_autoptr(LbFilterRegistry) reg = lb_filter_registry_new_default ();
  g_autoptr(LbFilter) f = lb_filter_registry_lookup (reg, "threshold");
  g_autoptr(LbFilter) same = lb_filter_registry_lookup (reg, EXAMPLE_ID);
  const LbParamSpec *level;
  guint n = g_list_model_get_n_items (G_LIST_MODEL (reg));
  gboolean found = FALSE;

  g_assert_true (g_list_model_get_item_type (G_LIST_MODEL (reg)) == LB_TYPE_FILTER);
  g_assert_nonnull (f);
  g_assert_true (f == same);
  g_assert_cmpstr (lb_filter_get_id (f), ==, EXAMPLE_ID);
  g_assert_cmpstr (lb_filter_get_name (f), ==, "Threshold");
  g_assert_cmpstr (lb_filter_get_category (f), ==, "Adjust");
  g_assert_cmpstr (lb_filter_get_version (f), ==, "1.0");
  g_assert_true (g_str_has_prefix (lb_filter_get_origin (f), g_getenv ("LB_BUILD_ROOT")));
  g_assert_true (g_str_has_suffix (lb_filter_get_origin (f), "lb-example-threshold.so"));
  g_assert_true (lb_filter_supports_format (f, LB_FORMAT_GRAY16));
  {
    g_autofree char *name = NULL, *origin = NULL;
    g_object_get (f, "name", &name, "origin", &origin, NULL);
    g_assert_cmpstr (name, ==, "Threshold");
    g_assert_cmpstr (origin, ==, lb_filter_get_origin (f));
  }
  level = lb_filter_find_param (f, "level", NULL);
  g_assert_nonnull (level);
  g_assert_cmpfloat (level->def, ==, 50);
  g_assert_cmpint (level->type, ==, LB_PARAM_DOUBLE);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(LbFilter) item = g_list_model_get_item (G_LIST_MODEL (reg), i);
      found |= item == f;
    }
  g_assert_true (found);
}

/* Every broken fixture is skipped with the reason; the valid plugins still load. */
static void
test_broken_plugins (void)
{
  static const struct {
    const char *file;
    const char *reason;
  } cases[] = {
    { "broken-abi.so", "ABI 99" },
    { "broken-no-symbol.so", "no lb_filter_plugin_query symbol" },
    { "broken-range.so", "default 300 is outside the range 0..255" },
    { "broken-ui-range.so", "slider range 0..2e+06 is not inside" },
    { "broken-offset.so", "lies outside the" },
    { "broken-size.so", "struct_size 16" },
    { "broken-dup-id.so", "is already taken by " EXAMPLE_ID },
    { "broken-no-process.so", "prepare, release and process (or finish) are required" },
    { "not-a-library.so", "cannot be loaded" },
  };
  g_autofree char *dir = lb_test_make_tmpdir ("test-broken");
  g_autofree char *garbage = g_build_filename (dir, "not-a-library.so", NULL);
  g_autoptr(LbFilterRegistry) reg = lb_filter_registry_new ();
  g_autoptr(LbFilter) mark = NULL;
  g_autoptr(LbFilter) example = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (cases) - 1; i++)
    {
      g_autofree char *src = lb_test_build_path ("LB_TEST_PLUGIN_DIR", cases[i].file, NULL);
      lb_test_install_file (src, dir, cases[i].file);
    }
  g_assert_true (g_file_set_contents (garbage, "this is text, not ELF\n", -1, NULL));
  {
    g_autofree char *good = lb_test_build_path ("LB_TEST_PLUGIN_DIR", "test-mark-10.so", NULL);
    lb_test_install_file (good, dir, "test-mark-10.so");
  }

  lb_filter_registry_add_plugin_dir (reg, g_getenv ("LIGHTBOX_PLUGIN_PATH"));
  lb_filter_registry_add_plugin_dir (reg, dir);
  lb_filter_registry_rescan (reg);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    g_assert_true (problems_contain (reg, cases[i].file, cases[i].reason));
  example = lb_filter_registry_lookup (reg, EXAMPLE_ID);
  g_assert_nonnull (example);
  /* The duplicate did not replace the first provider. */
  g_assert_true (g_str_has_suffix (lb_filter_get_origin (example), "lb-example-threshold.so"));
  mark = lb_filter_registry_lookup (reg, MARK_ID);
  g_assert_nonnull (mark);
  g_assert_cmpstr (lb_filter_get_version (mark), ==, "mark-10");

  /* A rescan with nothing changed neither reloads nor repeats the messages. */
  {
    guint before = lb_filter_registry_get_problems (reg)->len;
    guint items = g_list_model_get_n_items (G_LIST_MODEL (reg));
    lb_filter_registry_rescan (reg);
    g_assert_cmpuint (lb_filter_registry_get_problems (reg)->len, ==, before);
    g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (reg)), ==, items);
  }
  lb_test_remove_tree (dir);
}

static void
test_writable_refused (void)
{
  g_autofree char *dir = lb_test_make_tmpdir ("test-perm");
  g_autofree char *src = lb_test_build_path ("LB_TEST_PLUGIN_DIR", "test-mark-10.so", NULL);
  g_autofree char *file = g_build_filename (dir, "mark.so", NULL);
  g_autoptr(LbFilterRegistry) reg = lb_filter_registry_new ();
  g_autoptr(LbFilter) mark = NULL;

  lb_test_install_file (src, dir, "mark.so");
  lb_filter_registry_add_plugin_dir (reg, dir);

  /* A world-writable directory: anyone could drop code there. */
  g_assert_cmpint (g_chmod (dir, 0777), ==, 0);
  lb_filter_registry_rescan (reg);
  g_assert_true (problems_contain (reg, dir, "writable by other users"));
  mark = lb_filter_registry_lookup (reg, MARK_ID);
  g_assert_null (mark);

  /* A private directory but a group-writable file. */
  g_assert_cmpint (g_chmod (dir, 0700), ==, 0);
  g_assert_cmpint (g_chmod (file, 0664), ==, 0);
  lb_filter_registry_rescan (reg);
  g_assert_true (problems_contain (reg, file, "writable by its group"));
  mark = lb_filter_registry_lookup (reg, MARK_ID);
  g_assert_null (mark);

  /* Fixed: a permission change alone makes the next scan try again. */
  g_assert_cmpint (g_chmod (file, 0644), ==, 0);
  lb_filter_registry_rescan (reg);
  mark = lb_filter_registry_lookup (reg, MARK_ID);
  g_assert_nonnull (mark);
  lb_test_remove_tree (dir);
}

typedef struct {
  gboolean changed;
} ChangeWatch;

static void
items_changed_cb (GListModel *model,
                  guint       pos,
                  guint       removed,
                  guint       added,
                  gpointer    data)
{
  ((ChangeWatch *) data)->changed = TRUE;
}

/* Loaded plugin copies live under the registry's private lightbox-plugins-XXXXXX directory;
 * count the distinct ones mapped into this process right now. */
static guint
count_mapped_plugin_copies (void)
{
  g_autofree char *maps = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  g_assert_true (g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL));
  lines = g_strsplit (maps, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *path = strchr (lines[i], '/');
      if (path != NULL && strstr (path, "/lightbox-plugins-") != NULL)
        g_hash_table_add (seen, g_strdup (path));
    }
  return g_hash_table_size (seen);
}

static guint8
first_sample (LbImage *image)
{
  return lb_image_get_data (image)[0];
}

static gboolean
all_samples_are (LbImage *image,
                 guint8   value)
{
  for (guint y = 0; y < lb_image_get_height (image); y++)
    {
      const guint8 *row = lb_image_get_row (image, y);
      for (gsize i = 0; i < lb_image_get_row_size (image); i++)
        if (row[i] != value)
          return FALSE;
    }
  return TRUE;
}

static LbImage *
run_mark (LbFilterRegistry *reg,
          LbImage          *input)
{
  g_autoptr(LbPipeline) pipe = lb_pipeline_new (reg);
  g_autoptr(GError) error = NULL;
  LbImage *out;

  g_assert_true (lb_pipeline_append_step (pipe, MARK_ID, &error));
  g_assert_no_error (error);
  out = lb_pipeline_run (pipe, input, NULL, NULL, &error);
  g_assert_no_error (error);
  return out;
}

/* Add, replace and remove a plugin file while the registry watches, with a pass running
 * across the replacement. */
static void
test_hot_reload (void)
{
  g_autofree char *dir = lb_test_make_tmpdir ("test-hot");
  g_autofree char *build10 = lb_test_build_path ("LB_TEST_PLUGIN_DIR", "test-mark-10.so", NULL);
  g_autofree char *build20 = lb_test_build_path ("LB_TEST_PLUGIN_DIR", "test-mark-20.so", NULL);
  g_autofree char *file = g_build_filename (dir, "mark.so", NULL);
  g_autoptr(LbFilterRegistry) reg = lb_filter_registry_new ();
  g_autoptr(LbImage) input = lb_test_image_new (32, 64, LB_FORMAT_RGB8, 5);
  g_autoptr(LbImage) out = NULL;
  g_autoptr(LbImage) slow_out = NULL;
  g_autoptr(LbFilter) mark = NULL;
  g_autoptr(LbPipeline) slow = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  ChangeWatch watch = { FALSE };

  lb_filter_registry_add_plugin_dir (reg, dir);
  lb_filter_registry_rescan (reg);
  lb_filter_registry_set_watching (reg, TRUE);
  g_signal_connect (reg, "items-changed", G_CALLBACK (items_changed_cb), &watch);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (reg)), ==, 0);

  /* 1. Adding a file adds its filter. */
  lb_test_install_file (build10, dir, "mark.so");
  g_assert_true (lb_test_wait (lb_test_flag_is_set, &watch.changed, 10000));
  mark = lb_filter_registry_lookup (reg, MARK_ID);
  g_assert_nonnull (mark);
  g_assert_cmpstr (lb_filter_get_version (mark), ==, "mark-10");
  out = run_mark (reg, input);
  g_assert_true (all_samples_are (out, 10));
  g_clear_object (&out);

  /* 2. A slow pass (100 ms per row, 64 rows on 2 threads ≈ 3.2 s) starts on the old code… */
  slow = lb_pipeline_new (reg);
  g_assert_true (lb_pipeline_append_step (slow, MARK_ID ":delay-us=100000", &error));
  g_assert_no_error (error);
  lb_pipeline_set_n_threads (slow, 2);
  lb_pipeline_set_band_height (slow, 1);
  lb_pipeline_run_async (slow, input, NULL, lb_test_keep_result, &result);
  g_clear_object (&mark);

  /* …and the file is replaced by a different build while it runs. */
  watch.changed = FALSE;
  lb_test_install_file (build20, dir, "mark.so");
  g_assert_true (lb_test_wait (lb_test_flag_is_set, &watch.changed, 10000));
  mark = lb_filter_registry_lookup (reg, MARK_ID);
  g_assert_nonnull (mark);
  g_assert_cmpstr (lb_filter_get_version (mark), ==, "mark-20");
  g_clear_object (&mark);

  /* Old and new code are both mapped: the old module stays until the pass lets go of it. */
  g_assert_null (result);
  g_assert_cmpuint (count_mapped_plugin_copies (), >=, 2);

  /* The new code is used by new passes, even while the old one still runs. */
  out = run_mark (reg, input);
  g_assert_true (all_samples_are (out, 20));
  g_clear_object (&out);

  g_assert_null (result);  /* the slow pass really spanned the replacement */
  slow_out = lb_pipeline_run_finish (slow, lb_test_wait_result (&result), NULL, &error);
  g_assert_no_error (error);
  /* The running pass finished on the code it started with. */
  g_assert_cmpuint (first_sample (slow_out), ==, 10);
  g_assert_true (all_samples_are (slow_out, 10));
  /* The task holds its pipeline, which holds the old filter. */
  g_clear_object (&result);
  g_clear_object (&slow);

  /* 3. Removing the file removes the filter. */
  watch.changed = FALSE;
  g_assert_cmpint (g_unlink (file), ==, 0);
  g_assert_true (lb_test_wait (lb_test_flag_is_set, &watch.changed, 10000));
  mark = lb_filter_registry_lookup (reg, MARK_ID);
  g_assert_null (mark);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (reg)), ==, 0);
  /* Nobody holds a filter any more: every module gets closed. (GTask's worker thread may
   * drop its reference on the finished task, and so the old pipeline, a moment after the
   * callback ran: give it up to 10 s.) */
  for (int i = 0; i < 10000 && count_mapped_plugin_copies () != 0; i++)
    g_usleep (1000);
  g_assert_cmpuint (count_mapped_plugin_copies (), ==, 0);

  lb_filter_registry_set_watching (reg, FALSE);
  lb_test_remove_tree (dir);
}

/* Declarative files are watched too: add, change (a new kernel), remove. */
static void
test_hot_reload_declarative (void)
{
  g_autofree char *dir = lb_test_make_tmpdir ("test-hotdecl");
  g_autofree char *file = g_build_filename (dir, "k.lbfilter", NULL);
  g_autofree char *tmp = g_build_filename (dir, ".k.tmp", NULL);
  g_autoptr(LbFilterRegistry) reg = lb_filter_registry_new ();
  g_autoptr(LbFilter) f = NULL;
  ChangeWatch watch = { FALSE };
  const char *v1 = "[Filter]\nId=a.k\nName=One\nCategory=T\nType=kernel\n"
                   "[Kernel]\nWidth=1\nHeight=1\nRow1=1\n";
  const char *v2 = "[Filter]\nId=a.k\nName=Two\nCategory=T\nType=kernel\n"
                   "[Kernel]\nWidth=3\nHeight=1\nRow1=1 1 1\n";

  lb_filter_registry_add_filter_dir (reg, dir);
  lb_filter_registry_rescan (reg);
  lb_filter_registry_set_watching (reg, TRUE);
  g_signal_connect (reg, "items-changed", G_CALLBACK (items_changed_cb), &watch);

  g_assert_true (g_file_set_contents (tmp, v1, -1, NULL));
  g_assert_cmpint (g_rename (tmp, file), ==, 0);
  g_assert_true (lb_test_wait (lb_test_flag_is_set, &watch.changed, 10000));
  f = lb_filter_registry_lookup (reg, "a.k");
  g_assert_nonnull (f);
  g_assert_cmpstr (lb_filter_get_name (f), ==, "One");
  g_clear_object (&f);

  watch.changed = FALSE;
  g_assert_true (g_file_set_contents (tmp, v2, -1, NULL));
  g_assert_cmpint (g_rename (tmp, file), ==, 0);
  g_assert_true (lb_test_wait (lb_test_flag_is_set, &watch.changed, 10000));
  /* A removal and an addition: wait until the new one is in. */
  for (int i = 0; i < 10000 && (f = lb_filter_registry_lookup (reg, "a.k")) == NULL; i++)
    g_main_context_iteration (NULL, FALSE), g_usleep (1000);
  g_assert_nonnull (f);
  g_assert_cmpstr (lb_filter_get_name (f), ==, "Two");
  g_clear_object (&f);

  watch.changed = FALSE;
  g_assert_cmpint (g_unlink (file), ==, 0);
  g_assert_true (lb_test_wait (lb_test_flag_is_set, &watch.changed, 10000));
  f = lb_filter_registry_lookup (reg, "a.k");
  g_assert_null (f);
  lb_filter_registry_set_watching (reg, FALSE);
  lb_test_remove_tree (dir);
}

static gboolean
problems_mention (LbFilterRegistry *reg,
                  const char       *file)
{
  GPtrArray *p = lb_filter_registry_get_problems (reg);

  for (guint i = 0; i < p->len; i++)
    if (strstr (g_ptr_array_index (p, i), file) != NULL)
      return TRUE;
  return FALSE;
}

static void
count_cb (gpointer object,
          guint   *count)
{
  (*count)++;
}

/* A broken file's message goes when the file is fixed or removed (Filters → Plugins shows
 * this list), and listeners hear of it even when no filter changed. */
static void
test_stale_problems (void)
{
  g_autofree char *dir = lb_test_make_tmpdir ("test-stale");
  g_autofree char *broken = lb_test_build_path ("LB_TEST_PLUGIN_DIR", "broken-abi.so", NULL);
  g_autofree char *good = lb_test_build_path ("LB_TEST_PLUGIN_DIR", "test-mark-10.so", NULL);
  g_autofree char *file = g_build_filename (dir, "mark.so", NULL);
  g_autoptr(LbFilterRegistry) reg = lb_filter_registry_new ();
  g_autoptr(LbFilter) mark = NULL;
  guint signalled = 0;

  g_signal_connect (reg, "problems-changed", G_CALLBACK (count_cb), &signalled);
  lb_filter_registry_add_plugin_dir (reg, dir);
  lb_test_install_file (broken, dir, "mark.so");
  lb_filter_registry_rescan (reg);
  g_assert_true (problems_contain (reg, "mark.so", "ABI 99"));
  g_assert_cmpuint (signalled, ==, 1);

  /* rebuilt: the working plugin loads and the old error is gone */
  lb_test_install_file (good, dir, "mark.so");
  lb_filter_registry_rescan (reg);
  mark = lb_filter_registry_lookup (reg, MARK_ID);
  g_assert_nonnull (mark);
  g_assert_false (problems_mention (reg, "mark.so"));
  g_assert_cmpuint (lb_filter_registry_get_problems (reg)->len, ==, 0);
  g_assert_cmpuint (signalled, ==, 2);

  /* broken again, then removed: nothing stays listed */
  lb_test_install_file (broken, dir, "mark.so");
  lb_filter_registry_rescan (reg);
  g_assert_true (problems_contain (reg, "mark.so", "ABI 99"));
  g_assert_cmpint (g_unlink (file), ==, 0);
  lb_filter_registry_rescan (reg);
  g_assert_cmpuint (lb_filter_registry_get_problems (reg)->len, ==, 0);
  g_assert_cmpuint (signalled, ==, 4);
  /* a rescan that changes nothing says nothing */
  lb_filter_registry_rescan (reg);
  g_assert_cmpuint (signalled, ==, 4);
  lb_test_remove_tree (dir);
}

static void
write_file (const char *dir,
            const char *name,
            const char *text)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *tmp = g_strconcat (path, ".tmp", NULL);

  g_assert_true (g_file_set_contents (tmp, text, -1, NULL));
  g_assert_cmpint (g_rename (tmp, path), ==, 0);
}

#define KERNEL_Z "[Filter]\nId=t.z-kernel\nAlias=z-kernel\nName=Z\nCategory=T\nType=kernel\n" \
                 "[Kernel]\nWidth=1\nHeight=1\nRow1=1\n"
#define CHAIN_A "[Filter]\nId=t.a-chain\nAlias=a-chain\nName=A\nCategory=T\nType=chain\n" \
                "[Chain]\nStep1=z-kernel\n"
#define CHAIN_0 "[Filter]\nId=t.0-chain\nName=Zero\nCategory=T\nType=chain\n" \
                "[Chain]\nStep1=a-chain\nStep2=z-kernel\n"

/* Chains resolve whatever the order of the files: a.lbfilter uses z.lbfilter's kernel, and
 * 0.lbfilter uses the chain of a.lbfilter. */
static void
test_chain_order (void)
{
  g_autofree char *dir = lb_test_make_tmpdir ("test-chain-order");
  g_autoptr(LbFilterRegistry) reg = lb_filter_registry_new ();
  g_autoptr(LbFilter) zero = NULL;

  write_file (dir, "0.lbfilter", CHAIN_0);
  write_file (dir, "a.lbfilter", CHAIN_A);
  write_file (dir, "z.lbfilter", KERNEL_Z);
  lb_filter_registry_add_filter_dir (reg, dir);
  lb_filter_registry_rescan (reg);
  for (guint i = 0; i < lb_filter_registry_get_problems (reg)->len; i++)
    g_test_message ("%s", (char *) g_ptr_array_index (lb_filter_registry_get_problems (reg), i));
  g_assert_cmpuint (lb_filter_registry_get_problems (reg)->len, ==, 0);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (reg)), ==, 3);
  zero = lb_filter_registry_lookup (reg, "t.0-chain");
  g_assert_nonnull (zero);

  /* a chain whose filter really is missing is still refused, with the step named */
  write_file (dir, "b.lbfilter", "[Filter]\nId=t.b\nName=B\nCategory=T\nType=chain\n"
                                 "[Chain]\nStep1=no-such-filter\n");
  lb_filter_registry_rescan (reg);
  g_assert_true (problems_contain (reg, "b.lbfilter", "Step1: no filter “no-such-filter”"));
  g_assert_cmpuint (lb_filter_registry_get_problems (reg)->len, ==, 1);
  lb_test_remove_tree (dir);
}

static gboolean
has_filter (gpointer data)
{
  g_autoptr(LbFilter) f = lb_filter_registry_lookup (data, "z-kernel");
  return f != NULL;
}

/* Directories (and their parents) created after watching started are watched too. */
static void
test_watch_created_dirs (void)
{
  g_autofree char *base = lb_test_make_tmpdir ("test-created");
  g_autofree char *filters = g_build_filename (base, "share", "lightbox", "filters", NULL);
  g_autofree char *plugins = g_build_filename (base, "share", "lightbox", "plugins", NULL);
  g_autofree char *build = lb_test_build_path ("LB_TEST_PLUGIN_DIR", "test-mark-10.so", NULL);
  g_autoptr(LbFilterRegistry) reg = lb_filter_registry_new ();
  g_autoptr(LbFilter) mark = NULL;

  lb_filter_registry_add_plugin_dir (reg, plugins);
  lb_filter_registry_add_filter_dir (reg, filters);
  lb_filter_registry_rescan (reg);
  lb_filter_registry_set_watching (reg, TRUE);

  /* share/lightbox/filters appears one level at a time, as mkdir -p makes it */
  g_assert_cmpint (g_mkdir_with_parents (filters, 0700), ==, 0);
  /* let the registry see the new directories before the file arrives, as a user would */
  for (int i = 0; i < 50; i++)
    g_main_context_iteration (NULL, FALSE), g_usleep (10000);
  write_file (filters, "z.lbfilter", KERNEL_Z);
  g_assert_true (lb_test_wait (has_filter, reg, 10000));

  g_assert_cmpint (g_mkdir (plugins, 0700), ==, 0);
  for (int i = 0; i < 50; i++)
    g_main_context_iteration (NULL, FALSE), g_usleep (10000);
  lb_test_install_file (build, plugins, "mark.so");
  for (int i = 0; i < 10000 && (mark = lb_filter_registry_lookup (reg, MARK_ID)) == NULL; i++)
    g_main_context_iteration (NULL, FALSE), g_usleep (1000);
  g_assert_nonnull (mark);
  lb_filter_registry_set_watching (reg, FALSE);
  lb_test_remove_tree (base);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/registry/default-dirs", test_default_dirs);
  g_test_add_func ("/registry/broken-plugins", test_broken_plugins);
  g_test_add_func ("/registry/writable-refused", test_writable_refused);
  g_test_add_func ("/registry/hot-reload", test_hot_reload);
  g_test_add_func ("/registry/hot-reload-declarative", test_hot_reload_declarative);
  g_test_add_func ("/registry/stale-problems", test_stale_problems);
  g_test_add_func ("/registry/chain-order", test_chain_order);
  g_test_add_func ("/registry/watch-created-dirs", test_watch_created_dirs);
  return g_test_run ();
}
