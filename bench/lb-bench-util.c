/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-bench-util"

#include "lb-bench-util.h"

#include <glib/gstdio.h>

void
lb_bench_remove_tree (const char *path)
{
  g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        lb_bench_remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}
