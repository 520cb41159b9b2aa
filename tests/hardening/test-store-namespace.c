/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What may enter the store's namespace and how, against the real lightbox-store binary on
 * 127.0.0.1:
 *  - what a server killed in the middle of a COPY or MOVE leaves is removed at start-up. */
#include <signal.h>
#include <sys/stat.h>

#include "store-http.h"

/* What a server killed in the middle of a COPY or MOVE leaves (a tree built beside its
 * destination, an old tree set aside) is hidden, and removed when the store starts again. */
static void
test_stale_copies (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *other = g_dir_make_tmp ("lb-stale-XXXXXX", &error);
  g_autofree char *tree = g_build_filename (other, "dir", ".lbput-Ab3dEf9hIj0k", "sub", NULL);
  g_autofree char *file = g_build_filename (tree, "member.bin", NULL);
  g_autofree char *kept = g_build_filename (other, "dir", "kept.bin", NULL);
  g_autofree char *snap = NULL;
  HttpStore s2 = { 0 };

  g_assert_no_error (error);
  g_assert_cmpint (g_mkdir_with_parents (tree, 0755), ==, 0);
  http_write_file (file, "partial", 7);
  http_write_file (kept, "kept", 4);
  http_store_start (&s2, other, NULL);
  http_store_stop (&s2);
  snap = http_snapshot (other);
  g_assert_null (strstr (snap, ".lbput-"));
  g_assert_nonnull (strstr (snap, "F dir/kept.bin 4 "));
  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", other);
    g_assert_cmpint (system (cmd), ==, 0);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/namespace/stale-copies", test_stale_copies);
  return g_test_run ();
}
