/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "lb-test-ps33.h"

#include <glib/gstdio.h>

#include "lb-test-files.h"
#include "lb-test-process.h"

GBytes *
lb_test_ps33_tables (const char *cases)
{
  g_autofree char *dir = lb_test_make_tmpdir ("ps33");
  g_autofree char *in = g_build_filename (dir, "cases.txt", NULL);
  g_autofree char *out = g_build_filename (dir, "tables.bin", NULL);
  g_autofree char *script = g_build_filename (g_getenv ("LB_SOURCE_ROOT"), "tests", "view",
                                              "ps33-display.py", NULL);
  const char *probe[] = { "/usr/bin/python3", "-c", "import numpy, pydicom", NULL };
  const char *argv[] = { "/usr/bin/python3", script, in, out, NULL };
  g_autofree char *stdout_text = NULL, *stderr_text = NULL;
  g_autoptr (GError) error = NULL;
  char *data = NULL;
  gsize len = 0;
  int status;

  g_assert_nonnull (g_getenv ("LB_SOURCE_ROOT"));
  stdout_text = lb_test_run_tool (probe, &stderr_text, &status);
  if (status != 0)
    {
      g_test_skip ("the PS3.3 reference needs /usr/bin/python3 with numpy and pydicom");
      lb_test_remove_tree (dir);
      return NULL;
    }
  g_clear_pointer (&stdout_text, g_free);
  g_clear_pointer (&stderr_text, g_free);
  g_file_set_contents (in, cases, -1, &error);
  g_assert_no_error (error);
  stdout_text = lb_test_run_tool (argv, &stderr_text, &status);
  if (status != 0)
    g_error ("ps33-display.py failed (%d): %s", status, stderr_text);
  g_file_get_contents (out, &data, &len, &error);
  g_assert_no_error (error);
  lb_test_remove_tree (dir);
  return g_bytes_new_take (data, len);
}
