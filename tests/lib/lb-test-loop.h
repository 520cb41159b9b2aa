/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Helpers shared by the GTK tests: a real lightbox-store on 127.0.0.1 (port 0) serving a
 * writable copy of data/samples, and main-loop waiting with a deadline. */

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <signal.h>

#include "lb-bench-util.h"

typedef struct {
  GSubprocess *proc;
  char        *root;   /* temporary copy of the samples */
  char        *url;    /* http://127.0.0.1:PORT/ */
} LbTestStore;

/* Iterates the default main context until @cond returns TRUE or @timeout_ms passes. */
static inline gboolean
lb_test_wait (gboolean (*cond) (gpointer),
              gpointer  data,
              guint     timeout_ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (!cond (data))
    {
      if (g_get_monotonic_time () > end)
        return FALSE;
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  return TRUE;
}

static inline void
lb_test_copy_tree (const char *src,
                   const char *dst)
{
  g_autoptr (GDir) dir = g_dir_open (src, 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  g_assert_cmpint (g_mkdir_with_parents (dst, 0755), ==, 0);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *s = g_build_filename (src, name, NULL);
      g_autofree char *d = g_build_filename (dst, name, NULL);

      if (g_file_test (s, G_FILE_TEST_IS_DIR))
        lb_test_copy_tree (s, d);
      else
        {
          g_autofree char *contents = NULL;
          gsize len;
          g_assert_true (g_file_get_contents (s, &contents, &len, NULL));
          g_assert_true (g_file_set_contents (d, contents, len, NULL));
        }
    }
}

/* Copies data/samples (and @filter_file, if any, into .lightbox/filters/) to a temporary
 * root and serves it with the built lightbox-store. */
static inline void
lb_test_store_start (LbTestStore *store,
                     const char  *filter_file)
{
  const char *src_root = g_getenv ("LB_SOURCE_ROOT");
  const char *build_root = g_getenv ("LB_BUILD_ROOT");
  g_autofree char *samples = g_build_filename (src_root, "data", "samples", NULL);
  g_autofree char *server = g_build_filename (build_root, "src", "server", "lightbox-store", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GDataInputStream) out = NULL;
  g_autofree char *line = NULL;
  const char *at;

  store->root = g_dir_make_tmp ("lightbox-ui-XXXXXX", &error);
  g_assert_no_error (error);
  lb_test_copy_tree (samples, store->root);
  if (filter_file != NULL)
    {
      g_autofree char *dir = g_build_filename (store->root, ".lightbox", "filters", NULL);
      g_autofree char *base = g_path_get_basename (filter_file);
      g_autofree char *dst = g_build_filename (dir, base, NULL);
      g_autofree char *contents = NULL;
      gsize len;

      g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
      g_assert_true (g_file_get_contents (filter_file, &contents, &len, NULL));
      g_assert_true (g_file_set_contents (dst, contents, len, NULL));
    }
  store->proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, server, "--port", "0",
                                  store->root, NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (store->proc));
  /* "Serving ROOT at URL" once it listens */
  line = g_data_input_stream_read_line_utf8 (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (line);
  at = strstr (line, " at ");
  g_assert_nonnull (at);
  store->url = g_strdup (at + 4);
  g_assert_true (g_str_has_prefix (store->url, "http://127.0.0.1:"));
}

/* rm -rf: bench/'s lb_bench_remove_tree (in the library the app links) */
static inline void
lb_test_rm_rf (const char *path)
{
  lb_bench_remove_tree (path);
}

static inline void
lb_test_store_stop (LbTestStore *store)
{
  if (store->proc)
    {
      g_subprocess_send_signal (store->proc, SIGTERM);
      g_subprocess_wait (store->proc, NULL, NULL);
    }
  g_clear_object (&store->proc);
  if (store->root)
    lb_test_rm_rf (store->root);
  g_clear_pointer (&store->root, g_free);
  g_clear_pointer (&store->url, g_free);
}
