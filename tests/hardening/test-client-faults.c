/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Client-side fault injection against the real lightbox-store binary on 127.0.0.1:
 *  - reads and writes through LbStore cancelled at seeded random points (many iterations):
 *    each ends in success with the exact content or in G_IO_ERROR_CANCELLED, never anything
 *    in between; on the server every uploaded file is absent or complete; no temporaries;
 *  - the server killed (SIGKILL) mid-download: the stream fails with an error (never a short
 *    read that looks like the end), and lb_store_download_sync (what `lightbox-cli get` runs)
 *    leaves no file and no temporary behind;
 *  - the server killed mid-upload: the write fails with an error; after a restart the target
 *    is still the old version.
 * Leaks are checked by running this under `meson test --setup asan` or `--setup valgrind`. */
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "lb-error.h"
#include "lb-store.h"
#include "lb-store-sync.h"
#include "lb-test-files.h"
#include "lb-test-image.h"
#include "lb-test-loop.h"
#include "lb-test-process.h"

#define SEED 20261129u

static char *root;

/* ---------------------------------------------------------------------------------------- */
/* random cancellation                                                                       */

typedef struct {
  GCancellable *cancellable;
  gboolean      done;
  GError       *error;
  GInputStream *stream;
  LbStoreEntry *entry;
} Op;

static void
read_opened (GObject *src, GAsyncResult *res, gpointer user_data)
{
  Op *op = user_data;

  op->stream = lb_store_read_finish (LB_STORE (src), res, NULL, &op->error);
  op->done = TRUE;
}

static void
write_done (GObject *src, GAsyncResult *res, gpointer user_data)
{
  Op *op = user_data;

  op->entry = lb_store_write_finish (LB_STORE (src), res, &op->error);
  op->done = TRUE;
}

static void
assert_cancelled_or_ok (GError *error)
{
  if (error == NULL)
    return;
  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) &&
      !g_error_matches (error, LB_ERROR, LB_ERROR_CANCELLED))
    g_error ("expected success or cancellation, got %s %d: %s",
             g_quark_to_string (error->domain), error->code, error->message);
}

static void
test_random_cancel (void)
{
  LbTestServer s = { 0 };
  g_autoptr (GRand) rand = g_rand_new_with_seed (SEED);
  g_autoptr (GBytes) big = lb_test_bytes (4 * 1024 * 1024, 1);
  g_autofree char *path = g_build_filename (root, "big.bin", NULL);
  g_autofree char *updir = g_build_filename (root, "up", NULL);
  g_autoptr (LbStore) store = NULL;
  g_autoptr (GError) error = NULL;
  guint iterations = g_test_slow () ? 1000 : 200;
  guint n_ok = 0, n_cancelled = 0;
  g_autofree char *big_uri = NULL;

  g_assert_true (g_file_set_contents (path, g_bytes_get_data (big, NULL), g_bytes_get_size (big), NULL));
  g_assert_cmpint (g_mkdir_with_parents (updir, 0755), ==, 0);
  lb_test_server_start (&s, root);
  store = lb_store_new_for_uri (s.url, NULL, &error);
  g_assert_no_error (error);
  big_uri = g_strconcat (s.url, "big.bin", NULL);

  for (guint it = 0; it < iterations; it++)
    {
      Op op = { 0 };
      gboolean is_write = g_rand_boolean (rand);
      /* Cancel before the call, after a random delay (0–30 ms), or after N bytes read. */
      guint when = g_rand_int_range (rand, 0, 3);
      guint delay_ms = g_rand_int_range (rand, 0, 30);
      gsize cut = g_rand_int_range (rand, 0, 4 * 1024 * 1024);
      guint timer = 0;

      op.cancellable = g_cancellable_new ();
      if (when == 0)
        g_cancellable_cancel (op.cancellable);
      else if (when == 1)
        timer = g_timeout_add (delay_ms, lb_test_cancel_once, op.cancellable);

      if (!is_write)
        {
          g_autoptr (GByteArray) got = g_byte_array_new ();
          guint8 buf[65536];

          lb_store_read_async (store, big_uri, op.cancellable, NULL, NULL, read_opened, &op);
          lb_test_wait_flag (&op.done);
          if (op.stream != NULL)
            {
              for (;;)
                {
                  gssize n;

                  if (when == 2 && got->len >= cut)
                    g_cancellable_cancel (op.cancellable);
                  n = g_input_stream_read (op.stream, buf, sizeof buf, op.cancellable, &op.error);
                  if (n <= 0)
                    break;
                  g_byte_array_append (got, buf, (guint) n);
                }
              if (op.error == NULL)
                {
                  /* A read that was not cancelled yields exactly the file. */
                  g_assert_cmpuint (got->len, ==, g_bytes_get_size (big));
                  g_assert_true (memcmp (got->data, g_bytes_get_data (big, NULL), got->len) == 0);
                }
              g_input_stream_close (op.stream, NULL, NULL);
              g_clear_object (&op.stream);
            }
        }
      else
        {
          g_autofree char *name = g_strdup_printf ("up/f-%u.bin", it);
          g_autofree char *uri = g_strconcat (s.url, name, NULL);
          g_autoptr (GBytes) data = lb_test_bytes (256 * 1024 + it, it + 7);
          g_autofree char *file = g_build_filename (root, name, NULL);
          g_autofree char *disk = NULL;
          gsize len = 0;

          lb_store_write_bytes_async (store, uri, data, "application/octet-stream",
                                      LB_STORE_WRITE_CREATE, NULL, op.cancellable, NULL, NULL,
                                      write_done, &op);
          lb_test_wait_flag (&op.done);
          g_clear_object (&op.entry);
          /* Let the server finish with the connection before looking at the disk. */
          for (int i = 0; i < 20; i++)
            g_main_context_iteration (NULL, FALSE);
          g_usleep (20000);
          if (g_file_get_contents (file, &disk, &len, NULL))
            {
              /* Present means complete (the server may have committed just before the
               * cancellation reached it). */
              g_assert_cmpuint (len, ==, g_bytes_get_size (data));
              g_assert_true (memcmp (disk, g_bytes_get_data (data, NULL), len) == 0);
            }
          else
            g_assert_nonnull (op.error);
        }
      assert_cancelled_or_ok (op.error);
      if (op.error != NULL)
        n_cancelled++;
      else
        n_ok++;
      g_clear_error (&op.error);
      if (timer != 0 && !g_cancellable_is_cancelled (op.cancellable))
        g_source_remove (timer);
      g_object_unref (op.cancellable);
    }
  g_test_message ("%u operations: %u completed, %u cancelled", iterations, n_ok, n_cancelled);
  g_assert_cmpuint (n_cancelled, >, 0);
  g_assert_cmpuint (n_ok, >, 0);

  g_clear_object (&store);
  lb_test_server_kill (&s, SIGTERM);
  g_assert_cmpuint (lb_test_server_count_temps (updir), ==, 0);
}

/* ---------------------------------------------------------------------------------------- */
/* server killed mid-transfer                                                                */

typedef struct {
  const char  *dir;
  GSubprocess *proc;
  gboolean     fired;
} Killer;

/* Waits until a file this process writes in dir has grown past 1 MiB, then kills the server.
 * The download's file has no name there (O_TMPFILE) until it is complete: it is found among
 * the process's open files, /proc/self/fd/N → "DIR/#INODE (deleted)". */
static gpointer
killer_thread (gpointer user_data)
{
  Killer *k = user_data;
  g_autofree char *prefix = g_strconcat (k->dir, "/", NULL);

  for (int i = 0; i < 30000 && !k->fired; i++)
    {
      g_autoptr (GDir) d = g_dir_open ("/proc/self/fd", 0, NULL);
      const char *name;

      while (d != NULL && (name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *p = g_build_filename ("/proc/self/fd", name, NULL);
          g_autofree char *target = g_file_read_link (p, NULL);
          GStatBuf st;

          if (target != NULL && g_str_has_prefix (target, prefix)
              && g_stat (p, &st) == 0 && st.st_size >= 1024 * 1024)
            {
              kill (g_ascii_strtoll (g_subprocess_get_identifier (k->proc), NULL, 10), SIGKILL);
              k->fired = TRUE;
              break;
            }
        }
      g_usleep (1000);
    }
  return NULL;
}

typedef struct {
  LbTestServer *server;
  gint64        threshold;
  gboolean      killed;
} KillAt;

static void
kill_on_progress (goffset current, goffset total, gpointer user_data)
{
  KillAt *k = user_data;

  if (!k->killed && current >= k->threshold)
    {
      k->killed = TRUE;
      g_subprocess_force_exit (k->server->proc);
    }
}

static void
test_kill_mid_download (void)
{
  LbTestServer s = { 0 };
  g_autoptr (GBytes) big = lb_test_bytes (64 * 1024 * 1024, 3);
  g_autofree char *path = g_build_filename (root, "huge.bin", NULL);
  g_autofree char *dest_dir = lb_test_make_tmpdir ("faults-dl");
  g_autofree char *dest = g_build_filename (dest_dir, "huge.bin", NULL);
  g_autoptr (LbStore) store = NULL;
  g_autoptr (GError) error = NULL;
  Op op = { 0 };
  guint8 buf[65536];
  gsize total = 0;
  g_autofree char *huge_uri = NULL;

  g_assert_true (g_file_set_contents (path, g_bytes_get_data (big, NULL), g_bytes_get_size (big), NULL));
  lb_test_server_start (&s, root);
  store = lb_store_new_for_uri (s.url, NULL, &error);
  g_assert_no_error (error);

  /* 1. The stream API: kill after 1 MiB has been read. */
  huge_uri = g_strconcat (s.url, "huge.bin", NULL);
  lb_store_read_async (store, huge_uri, NULL, NULL, NULL, read_opened, &op);
  lb_test_wait_flag (&op.done);
  g_assert_no_error (op.error);
  for (;;)
    {
      gssize n = g_input_stream_read (op.stream, buf, sizeof buf, NULL, &op.error);
      if (n <= 0)
        {
          /* Never a clean end of file before the whole body. */
          g_assert_cmpint (n, <, 0);
          break;
        }
      total += (gsize) n;
      if (total >= 1024 * 1024 && s.proc != NULL)
        lb_test_server_kill (&s, SIGKILL);
    }
  g_test_message ("download: server killed after %zu bytes read; error: %s", total, op.error->message);
  g_assert_cmpuint (total, <, g_bytes_get_size (big));
  g_assert_true (g_error_matches (op.error, LB_ERROR, LB_ERROR_TRUNCATED) ||
                 g_error_matches (op.error, LB_ERROR, LB_ERROR_NETWORK));
  g_clear_error (&op.error);
  g_clear_object (&op.stream);
  g_clear_object (&store);

  /* 2. What `lightbox-cli get` runs: a download to a file, the server killed from another
   *    thread once the temporary has grown past 1 MiB: an error, and nothing left behind. */
  lb_test_server_start (&s, root);
  {
    g_autofree char *uri = g_strconcat (s.url, "huge.bin", NULL);
    g_autoptr (LbStoreEntry) entry = NULL;
    Killer k = { dest_dir, s.proc, FALSE };
    GThread *killer = g_thread_new ("killer", killer_thread, &k);

    entry = lb_store_download_sync (uri, dest, NULL, NULL, &error);
    g_thread_join (killer);
    g_assert_true (k.fired);
    g_assert_null (entry);
    g_assert_nonnull (error);
    g_test_message ("lb_store_download_sync: %s", error->message);
    g_assert_false (g_file_test (dest, G_FILE_TEST_EXISTS));
    g_assert_cmpuint (lb_test_count_entries (dest_dir), ==, 0);
    g_clear_error (&error);
    lb_test_server_kill (&s, SIGKILL);
  }
  g_rmdir (dest_dir);
  g_unlink (path);
}

static void
test_kill_mid_upload (void)
{
  LbTestServer s = { 0 };
  g_autoptr (GBytes) old = lb_test_bytes (1000, 5);
  g_autoptr (GBytes) big = lb_test_bytes (64 * 1024 * 1024, 6);
  g_autofree char *path = g_build_filename (root, "target.bin", NULL);
  g_autoptr (LbStore) store = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *disk = NULL;
  gsize len = 0;
  KillAt k = { &s, 4 * 1024 * 1024, FALSE };
  g_autofree char *target_uri = NULL;
  Op op = { 0 };

  g_assert_true (g_file_set_contents (path, g_bytes_get_data (old, NULL), g_bytes_get_size (old), NULL));
  lb_test_server_start (&s, root);
  store = lb_store_new_for_uri (s.url, NULL, &error);
  g_assert_no_error (error);
  target_uri = g_strconcat (s.url, "target.bin", NULL);
  lb_store_write_bytes_async (store, target_uri, big, "application/octet-stream",
                              LB_STORE_WRITE_REPLACE, NULL, NULL, kill_on_progress, &k,
                              write_done, &op);
  lb_test_wait_flag (&op.done);
  g_assert_true (k.killed);
  g_assert_null (op.entry);
  g_assert_nonnull (op.error);
  g_test_message ("upload: server killed after 4 MiB sent; error: %s", op.error->message);
  g_assert_false (g_error_matches (op.error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
  g_clear_error (&op.error);
  g_subprocess_wait (s.proc, NULL, NULL);
  g_clear_object (&s.proc);
  g_clear_pointer (&s.url, g_free);
  g_clear_object (&store);

  /* After a restart the old version is intact and no temporary is visible. */
  lb_test_server_start (&s, root);
  g_assert_true (g_file_get_contents (path, &disk, &len, NULL));
  g_assert_cmpuint (len, ==, g_bytes_get_size (old));
  g_assert_true (memcmp (disk, g_bytes_get_data (old, NULL), len) == 0);
  g_assert_cmpuint (lb_test_server_count_temps (root), ==, 0);
  lb_test_server_kill (&s, SIGTERM);
}

int
main (int argc, char **argv)
{
  int rc;

  g_test_init (&argc, &argv, NULL);
  root = lb_test_make_tmpdir ("faults");
  g_test_add_func ("/client-faults/random-cancel", test_random_cancel);
  g_test_add_func ("/client-faults/kill-mid-download", test_kill_mid_download);
  g_test_add_func ("/client-faults/kill-mid-upload", test_kill_mid_upload);
  rc = g_test_run ();
  lb_test_remove_tree (root);
  return rc;
}
