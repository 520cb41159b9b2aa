/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A full disk in the middle of a COPY or a MOVE of a collection, against the real
 * lightbox-store binary on 127.0.0.1. A small tmpfs is mounted inside the store root (in a
 * mount namespace of this test's own, so it goes away with the test); the source tree lies on
 * the root's file system, so a MOVE into the tmpfs crosses file systems and has to copy. The
 * answer is 507, and the destination is exactly as it was, the source too, and no partial copy
 * is left behind. With room enough, the same requests replace the destination whole.
 *
 * Needs CAP_SYS_ADMIN for unshare() and mount() (CI runs as root); otherwise it is skipped
 * (exit status 77) with the reason. */
#include <sched.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/statvfs.h>

#include "store-http.h"

#define FILE_SIZE (96 * 1024) /* bytes: four of them do not fit the 256 KiB tmpfs */

static char *root;
static char *small;
static HttpStore store;

static char *
in_root (const char *rel)
{
  return g_build_filename (root, rel, NULL);
}

/* @dir with @n files of @size bytes, contents seeded by @seed. */
static void
make_tree (const char *rel, guint n, gsize size, guint seed)
{
  g_autofree char *dir = in_root (rel);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = g_strdup_printf ("file-%u.bin", i);
      g_autofree char *p = g_build_filename (dir, name, NULL);
      g_autoptr (GBytes) b = lb_test_bytes (size, seed + i);

      http_write_file (p, g_bytes_get_data (b, NULL), size);
    }
}

static char *
snap (const char *rel)
{
  g_autofree char *dir = in_root (rel);

  return http_snapshot (dir);
}

static guint
copy_move (const char *method, const char *from, const char *to)
{
  g_autofree char *head = g_strdup_printf ("%s %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                           "Destination: http://127.0.0.1:%u%s\r\nOverwrite: T",
                                           method, from, store.port, store.port, to);

  return http_status (store.port, head, NULL, 0);
}

static guint64
free_blocks (void)
{
  struct statvfs sv;

  g_assert_cmpint (statvfs (small, &sv), ==, 0);
  return sv.f_bfree;
}

static void
clear (const char *rel)
{
  g_autofree char *dir = in_root (rel);

  http_remove_tree (dir);
}

/* @method of a collection of four 96 KiB files (on the root's file system) over a collection
 * of two small ones in the 256 KiB tmpfs, and the disk fills up: 507, and nothing changed. */
static void
fill_up (const char *method, guint seed)
{
  g_autofree char *src_before = NULL, *dst_before = NULL, *src_after = NULL, *dst_after = NULL;
  guint64 before;

  make_tree ("src", 4, FILE_SIZE, seed);
  make_tree ("small/dst", 2, 1000, seed + 10);
  src_before = snap ("src");
  dst_before = snap ("small");
  before = free_blocks ();

  g_assert_cmpuint (copy_move (method, "/src/", "/small/dst/"), ==, 507);
  src_after = snap ("src");
  dst_after = snap ("small");
  g_assert_cmpstr (src_after, ==, src_before);
  g_assert_cmpstr (dst_after, ==, dst_before); /* also: no hidden partial copy */
  g_assert_cmpuint (free_blocks (), ==, before);
  clear ("src");
  clear ("small/dst");
}

/* COPY of a collection over an existing collection. */
static void
test_copy_collection (void)
{
  fill_up ("COPY", 10);
}

/* MOVE of a collection to another file system, over an existing collection. */
static void
test_move_collection (void)
{
  fill_up ("MOVE", 30);
}

/* With room enough, COPY and MOVE across file systems replace the destination whole: its old
 * members are gone, the new ones are there, and (MOVE) the source is gone. */
static void
test_replace_whole (void)
{
  g_autofree char *src_before = NULL, *copied = NULL, *moved = NULL;

  make_tree ("src", 3, 2000, 50);
  make_tree ("small/dst", 5, 1000, 60);
  src_before = snap ("src");

  g_assert_cmpuint (copy_move ("COPY", "/src/", "/small/dst/"), ==, 204);
  copied = snap ("small/dst");
  g_assert_cmpstr (copied, ==, src_before);

  make_tree ("small/dst/extra", 1, 1000, 70);
  g_assert_cmpuint (copy_move ("MOVE", "/src/", "/small/dst/"), ==, 204);
  moved = snap ("small/dst");
  g_assert_cmpstr (moved, ==, src_before);
  {
    g_autofree char *gone = in_root ("src");
    g_autofree char *small_snap = snap ("small");

    g_assert_false (g_file_test (gone, G_FILE_TEST_EXISTS));
    /* Nothing hidden left beside it: only dst and what is in it. */
    g_assert_true (g_str_has_prefix (small_snap, "D dst "));
    g_assert_null (strstr (small_snap, "\nD .") );
    g_assert_null (strstr (small_snap, "\nF .") );
  }
  clear ("small/dst");
}

static int
skip (const char *why)
{
  printf ("skipped: %s\n", why);
  return 77;
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  int ret;

  g_test_init (&argc, &argv, NULL);
  /* A mount namespace of our own: the tmpfs vanishes with this process and the server it
   * starts, whatever happens to them. */
  if (unshare (CLONE_NEWNS) != 0)
    return skip ("cannot create a mount namespace (needs CAP_SYS_ADMIN)");
  if (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
    return skip ("cannot make the mounts private");
  root = g_dir_make_tmp ("lb-diskfull-XXXXXX", &error);
  g_assert_no_error (error);
  small = in_root ("small");
  g_assert_cmpint (g_mkdir (small, 0755), ==, 0);
  if (mount ("tmpfs", small, "tmpfs", MS_NOSUID | MS_NODEV, "size=256k,mode=0755") != 0)
    {
      g_rmdir (small);
      g_rmdir (root);
      return skip ("cannot mount a tmpfs");
    }
  http_store_start (&store, root, NULL);

  g_test_add_func ("/diskfull/copy-collection", test_copy_collection);
  g_test_add_func ("/diskfull/move-collection", test_move_collection);
  g_test_add_func ("/diskfull/replace-whole", test_replace_whole);
  ret = g_test_run ();

  http_store_stop (&store);
  g_assert_cmpint (umount (small), ==, 0);
  http_remove_tree (root);
  return ret;
}
