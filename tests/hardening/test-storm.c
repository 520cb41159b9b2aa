/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Load and fault injection against the real lightbox-store binary on 127.0.0.1:
 *  - 1000 concurrent uploads all land with the right content;
 *  - kill -9 during 100 concurrent overwrites: after a restart every file is either the old
 *    or the new version (checked by SHA-256), never partial, and no temporary is visible. */
#include <glib/gstdio.h>
#include <libsoup/soup.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>

#include "lb-test-files.h"
#include "lb-test-image.h"
#include "lb-test-process.h"

typedef struct {
  GMainLoop *loop;
  guint pending;
  guint done_ok;
  guint statuses[600];
  guint failed_transport;
} Batch;

static void
on_put_done (GObject *source, GAsyncResult *res, gpointer user_data)
{
  Batch *b = user_data;
  SoupMessage *msg = soup_session_get_async_result_message (SOUP_SESSION (source), res);
  g_autoptr (GError) error = NULL;
  /* the body is not looked at: finishing the request is what counts */
  GBytes *body = soup_session_send_and_read_finish (SOUP_SESSION (source), res, &error);

  g_clear_pointer (&body, g_bytes_unref);

  if (error)
    b->failed_transport++;
  else
    {
      guint st = soup_message_get_status (msg);
      b->statuses[MIN (st, 599)]++;
      if (st == 201 || st == 204)
        b->done_ok++;
    }
  if (--b->pending == 0)
    g_main_loop_quit (b->loop);
}

static SoupSession *
new_session (guint conns)
{
  return g_object_new (SOUP_TYPE_SESSION, "max-conns", conns, "max-conns-per-host", conns,
                       "timeout", 120, NULL);
}

static void
put_async (SoupSession *session, const char *url, GBytes *body, const char *precondition,
           Batch *b)
{
  g_autoptr (SoupMessage) msg = soup_message_new ("PUT", url);

  g_assert_nonnull (msg);
  soup_message_set_request_body_from_bytes (msg, "application/octet-stream", body);
  if (precondition)
    soup_message_headers_append (soup_message_get_request_headers (msg), "If-None-Match", precondition);
  b->pending++;
  soup_session_send_and_read_async (session, msg, G_PRIORITY_DEFAULT, NULL, on_put_done, b);
}

static void
raise_fd_limit (void)
{
  struct rlimit rl;

  /* 1000 concurrent connections need more than the usual 1024 descriptors on both ends. */
  if (getrlimit (RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 8192)
    {
      rl.rlim_cur = MIN (rl.rlim_max, 8192);
      setrlimit (RLIMIT_NOFILE, &rl);
    }
}

static void
test_thousand_uploads (void)
{
  g_autofree char *root = lb_test_make_tmpdir ("storm");
  LbTestServer store = { 0 };
  g_autoptr (SoupSession) session = new_session (1000);
  Batch b = { g_main_loop_new (NULL, FALSE) };
  g_autoptr (GPtrArray) bodies = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  guint n = 1000;
  gint64 t0;

  lb_test_server_start (&store, root);
  t0 = g_get_monotonic_time ();
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *url = g_strdup_printf ("%supload-%04u.bin", store.url, i);
      GBytes *body = lb_test_bytes (16 * 1024 + i * 37, i);
      g_ptr_array_add (bodies, body);
      put_async (session, url, body, "*", &b);
    }
  g_main_loop_run (b.loop);
  g_test_message ("1000 concurrent uploads: %u landed (201/204), %u transport failures, %.0f ms",
                  b.done_ok, b.failed_transport, (g_get_monotonic_time () - t0) / 1000.0);
  g_assert_cmpuint (b.failed_transport, ==, 0);
  g_assert_cmpuint (b.statuses[201], ==, n);

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/upload-%04u.bin", root, i);
      g_autofree char *got = lb_test_sha256_file (path);
      g_autofree char *want = g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, bodies->pdata[i]);
      g_assert_cmpstr (got, ==, want);
    }
  lb_test_server_kill (&store, SIGTERM);
  g_main_loop_unref (b.loop);
  lb_test_remove_tree (root);
}

typedef struct {
  LbTestServer *store;
  Batch *batch;
  guint kill_after; /* completions */
  gboolean killed;
} Killer;

static gboolean
kill_when_half_done (gpointer user_data)
{
  Killer *k = user_data;

  if (k->batch->done_ok >= k->kill_after || k->batch->pending == 0)
    {
      g_subprocess_send_signal (k->store->proc, SIGKILL);
      k->killed = TRUE;
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static void
test_kill9_during_uploads (void)
{
  g_autofree char *root = lb_test_make_tmpdir ("kill9");
  LbTestServer store = { 0 };
  g_autoptr (SoupSession) session = new_session (100);
  Batch b = { g_main_loop_new (NULL, FALSE) };
  Killer k = { &store, &b, 20, FALSE };
  guint n = 100, old_seen = 0, new_seen = 0, leftovers = 0;
  g_autoptr (GPtrArray) olds = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) news = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) dir = NULL;
  const char *name;

  /* The old versions: 256 KiB each, written directly. */
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/scan-%03u.png", root, i);
      g_autoptr (GBytes) old = lb_test_bytes (256 * 1024, 100000 + i);
      g_assert_true (g_file_set_contents (path, g_bytes_get_data (old, NULL), g_bytes_get_size (old), NULL));
      g_ptr_array_add (olds, g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, old));
    }

  lb_test_server_start (&store, root);
  /* The new versions: 3 MiB each, so that the kill finds many of them mid-transfer. */
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *url = g_strdup_printf ("%sscan-%03u.png", store.url, i);
      g_autoptr (GBytes) fresh = lb_test_bytes (3 * 1024 * 1024, 200000 + i);
      g_ptr_array_add (news, g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, fresh));
      put_async (session, url, fresh, NULL, &b);
    }
  g_timeout_add (1, kill_when_half_done, &k);
  g_main_loop_run (b.loop);
  g_subprocess_wait (store.proc, NULL, NULL);
  g_assert_true (k.killed);
  g_clear_object (&store.proc);
  g_clear_pointer (&store.url, g_free);
  g_test_message ("kill -9 after %u of %u overwrites completed (%u cut off by the kill)", b.done_ok, n,
                  b.failed_transport);

  /* Restart on the same root: start-up removes abandoned temporaries. */
  lb_test_server_start (&store, root);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/scan-%03u.png", root, i);
      g_autofree char *got = lb_test_sha256_file (path);

      if (g_str_equal (got, olds->pdata[i]))
        old_seen++;
      else if (g_str_equal (got, news->pdata[i]))
        new_seen++;
      else
        g_test_message ("scan-%03u.png is neither the old nor the new version: a partial file", i);
    }
  g_test_message ("after restart: %u old, %u new, %u partial", old_seen, new_seen, n - old_seen - new_seen);
  /* Only the images and the server's own .lightbox folder may be there: no upload temporary. */
  dir = g_dir_open (root, 0, NULL);
  while ((name = g_dir_read_name (dir)))
    if (!g_str_has_prefix (name, "scan-") && !g_str_equal (name, ".lightbox"))
      {
        g_test_message ("left behind after restart: %s", name);
        leftovers++;
      }
  lb_test_server_kill (&store, SIGTERM);
  g_assert_cmpuint (old_seen + new_seen, ==, n);
  g_assert_cmpuint (new_seen, >=, k.kill_after);
  g_assert_cmpuint (leftovers, ==, 0);
  g_main_loop_unref (b.loop);
  lb_test_remove_tree (root);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  raise_fd_limit ();
  g_test_add_func ("/storm/thousand-uploads", test_thousand_uploads);
  g_test_add_func ("/storm/kill9-during-uploads", test_kill9_during_uploads);
  return g_test_run ();
}
