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

/* A phase that hangs fails with a report of what is pending instead of running into meson's
 * timeout: when no request has made progress (sent a byte of its body, or its head, got an
 * answer, or ended) for STALL_S, or the phase has run for PHASE_S. Both are far above what a
 * phase takes on a loaded machine (under a minute); they bound a wait, they time nothing. */
#define STALL_S 60
#define PHASE_S 200
/* The store's exit after a signal. */
#define EXIT_S  30

typedef enum {
  PUT_QUEUED,  /* waiting for a connection */
  PUT_SENDING, /* the request going out */
  PUT_WAITING, /* sent whole, no answer yet */
  PUT_READING, /* the answer's head is in */
  PUT_DONE,
  PUT_N_STAGES
} PutStage;

static const char *const stage_names[PUT_N_STAGES] = {
  "queued", "sending", "waiting for the answer", "reading the answer", "done",
};

typedef struct _Batch Batch;

typedef struct {
  Batch   *batch;
  char    *name;
  gsize    size;     /* bytes of the body */
  guint64  sent;     /* bytes of the body written */
  guint    restarts; /* libsoup sent it again */
  PutStage stage;
} Put;

struct _Batch {
  GMainLoop   *loop;
  const char  *phase;
  SoupSession *session;
  GSubprocess *store;    /* (nullable) the server, for the report */
  GPtrArray   *puts;     /* (element-type Put) */
  guint        pending;
  guint        done_ok;
  guint        statuses[600];
  guint        failed_transport;
  gint64       started;  /* monotonic, µs */
  gint64       progress; /* monotonic, µs: the last time a request moved on */
  gboolean     timed_out;
  guint        kill_after; /* completions (201/204) after which @store gets SIGKILL; 0: never */
  gboolean     killed;
};

static void
put_free (gpointer data)
{
  Put *p = data;

  g_free (p->name);
  g_free (p);
}

static void
batch_init (Batch *b, const char *phase, SoupSession *session, GSubprocess *store)
{
  b->loop = g_main_loop_new (NULL, FALSE);
  b->phase = phase;
  b->session = session;
  b->store = store;
  b->puts = g_ptr_array_new_with_free_func (put_free);
}

static void
batch_clear (Batch *b)
{
  g_main_loop_unref (b->loop);
  g_ptr_array_unref (b->puts);
}

static void
put_moved_on (Put *p, PutStage stage)
{
  p->stage = stage;
  p->batch->progress = g_get_monotonic_time ();
}

static void
on_starting (SoupMessage *msg, Put *p)
{
  put_moved_on (p, PUT_SENDING);
}

static void
on_wrote_body_data (SoupMessage *msg, guint n, Put *p)
{
  p->sent += n;
  put_moved_on (p, PUT_SENDING);
}

static void
on_wrote_body (SoupMessage *msg, Put *p)
{
  put_moved_on (p, PUT_WAITING);
}

static void
on_got_headers (SoupMessage *msg, Put *p)
{
  put_moved_on (p, PUT_READING);
}

static void
on_restarted (SoupMessage *msg, Put *p)
{
  p->restarts++;
  p->sent = 0;
  put_moved_on (p, PUT_QUEUED);
}

static void
on_put_done (GObject *source, GAsyncResult *res, gpointer user_data)
{
  Put *p = user_data;
  Batch *b = p->batch;
  SoupMessage *msg = soup_session_get_async_result_message (SOUP_SESSION (source), res);
  g_autoptr (GError) error = NULL;
  /* the body is not looked at: finishing the request is what counts */
  GBytes *body = soup_session_send_and_read_finish (SOUP_SESSION (source), res, &error);

  g_clear_pointer (&body, g_bytes_unref);
  put_moved_on (p, PUT_DONE);
  if (error)
    b->failed_transport++;
  else
    {
      guint st = soup_message_get_status (msg);
      b->statuses[MIN (st, 599)]++;
      if (st == 201 || st == 204)
        b->done_ok++;
    }
  --b->pending;
  /* Decided on the completion itself: a timer polling the count can miss the moment, when
   * the last completions all run in one main loop iteration, and the store is never killed. */
  if (b->kill_after > 0 && !b->killed && (b->done_ok >= b->kill_after || b->pending == 0))
    {
      g_subprocess_send_signal (b->store, SIGKILL);
      b->killed = TRUE;
    }
  if (b->pending == 0)
    g_main_loop_quit (b->loop);
}

/* What the server process is doing: its state (R, S, D ...) and how many descriptors it has
 * open (connections and upload temporaries, about one each). */
static char *
describe_process (GSubprocess *proc)
{
  const char *id = proc != NULL ? g_subprocess_get_identifier (proc) : NULL;
  g_autofree char *stat_path = NULL, *fd_path = NULL, *stat = NULL;
  g_autoptr (GDir) fds = NULL;
  const char *end;
  guint n = 0;

  if (id == NULL)
    return g_strdup ("the store has exited");
  stat_path = g_strdup_printf ("/proc/%s/stat", id);
  fd_path = g_strdup_printf ("/proc/%s/fd", id);
  if (!g_file_get_contents (stat_path, &stat, NULL, NULL) || (end = strrchr (stat, ')')) == NULL)
    return g_strdup_printf ("the store (pid %s) cannot be looked at", id);
  fds = g_dir_open (fd_path, 0, NULL);
  while (fds != NULL && g_dir_read_name (fds) != NULL)
    n++;
  return g_strdup_printf ("the store (pid %s) is in state %c with %u descriptors open", id, end[2], n);
}

/* How many times libsoup sent a request of @b again (on a kept-alive connection the server
 * had closed, for one). */
static guint
batch_restarts (Batch *b)
{
  guint n = 0;

  for (guint i = 0; i < b->puts->len; i++)
    n += ((Put *) g_ptr_array_index (b->puts, i))->restarts;
  return n;
}

/* Fails the test with @text (freed): printed as a message too, since only a test's last failure
 * makes its "not ok" line. */
static void
fail_with (char *text)
{
  g_test_message ("%s", text);
  g_test_fail_printf ("%s", text);
  g_free (text);
}

/* Prints what is pending in @b and fails the test with @why. */
static void
report_pending (Batch *b, const char *why)
{
  guint at[PUT_N_STAGES] = { 0 }, listed = 0;
  guint64 sent = 0, size = 0;
  g_autoptr (GString) done = g_string_new (NULL);
  g_autofree char *store = describe_process (b->store);

  for (guint i = 0; i < b->puts->len; i++)
    {
      Put *p = g_ptr_array_index (b->puts, i);

      at[p->stage]++;
      if (p->stage == PUT_DONE)
        continue;
      sent += p->sent;
      size += p->size;
      if (listed++ < 10)
        g_test_message ("  pending: %s, %s, %" G_GUINT64_FORMAT " of %zu body bytes written, "
                        "sent again %u times", p->name, stage_names[p->stage], p->sent, p->size,
                        p->restarts);
    }
  for (guint st = 0; st < G_N_ELEMENTS (b->statuses); st++)
    if (b->statuses[st] > 0)
      g_string_append_printf (done, "%sstatus %u: %u", done->len > 0 ? ", " : "", st, b->statuses[st]);
  g_test_message ("%s: %u of %u requests pending: %u queued, %u sending (%" G_GUINT64_FORMAT
                  " of %" G_GUINT64_FORMAT " body bytes written), %u waiting for the answer, "
                  "%u reading it; %u sent again in all",
                  b->phase, b->pending, b->puts->len, at[PUT_QUEUED], at[PUT_SENDING], sent, size,
                  at[PUT_WAITING], at[PUT_READING], batch_restarts (b));
  g_test_message ("%s: finished: %s%s%u transport failures; %s", b->phase, done->str,
                  done->len > 0 ? ", " : "", b->failed_transport, store);
  fail_with (g_strdup_printf ("%s: %s (%u of %u requests pending, see above)", b->phase, why,
                              b->pending, b->puts->len));
}

static gboolean
watch_batch (gpointer user_data)
{
  Batch *b = user_data;
  gint64 now = g_get_monotonic_time ();
  g_autofree char *why = NULL;

  if (now - b->progress >= STALL_S * G_USEC_PER_SEC)
    why = g_strdup_printf ("no request made progress for %d s", STALL_S);
  else if (now - b->started >= PHASE_S * G_USEC_PER_SEC)
    why = g_strdup_printf ("still running after %d s", PHASE_S);
  else
    return G_SOURCE_CONTINUE;
  report_pending (b, why);
  b->timed_out = TRUE;
  /* Every pending request ends now (cancelled), and the loop with the last one. */
  soup_session_abort (b->session);
  return G_SOURCE_REMOVE;
}

/* Runs the main loop until every request of @b has ended; FALSE (the test failed, with a
 * report) if the batch stalled or ran out of time. */
static gboolean
batch_run (Batch *b)
{
  guint watch;

  b->started = b->progress = g_get_monotonic_time ();
  watch = g_timeout_add_seconds (1, watch_batch, b);
  if (b->pending > 0)
    g_main_loop_run (b->loop);
  if (!b->timed_out)
    g_source_remove (watch);
  return !b->timed_out;
}

static SoupSession *
new_session (guint conns)
{
  return g_object_new (SOUP_TYPE_SESSION, "max-conns", conns, "max-conns-per-host", conns,
                       "timeout", 120, NULL);
}

static void
put_async (Batch *b, const char *base, const char *name, GBytes *body, const char *precondition)
{
  g_autofree char *url = g_strconcat (base, name, NULL);
  g_autoptr (SoupMessage) msg = soup_message_new ("PUT", url);
  Put *p = g_new0 (Put, 1);

  g_assert_nonnull (msg);
  p->batch = b;
  p->name = g_strdup (name);
  p->size = g_bytes_get_size (body);
  g_ptr_array_add (b->puts, p);
  soup_message_set_request_body_from_bytes (msg, "application/octet-stream", body);
  if (precondition)
    soup_message_headers_append (soup_message_get_request_headers (msg), "If-None-Match", precondition);
  g_signal_connect (msg, "starting", G_CALLBACK (on_starting), p);
  g_signal_connect (msg, "wrote-body-data", G_CALLBACK (on_wrote_body_data), p);
  g_signal_connect (msg, "wrote-body", G_CALLBACK (on_wrote_body), p);
  g_signal_connect (msg, "got-headers", G_CALLBACK (on_got_headers), p);
  g_signal_connect (msg, "restarted", G_CALLBACK (on_restarted), p);
  b->pending++;
  soup_session_send_and_read_async (b->session, msg, G_PRIORITY_DEFAULT, NULL, on_put_done, p);
}

static void
set_flag (GObject *source, GAsyncResult *res, gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
}

static gboolean
set_flag_later (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Sends @sig to the store and waits for it to exit: EXIT_S at most, then the test fails and
 * the store is killed. */
static void
stop_store (LbTestServer *s, int sig)
{
  gboolean exited = FALSE, late = FALSE;
  guint timer = g_timeout_add_seconds (EXIT_S, set_flag_later, &late);

  g_subprocess_send_signal (s->proc, sig);
  g_subprocess_wait_async (s->proc, NULL, set_flag, &exited);
  while (!exited && !late)
    g_main_context_iteration (NULL, TRUE);
  if (!exited)
    {
      g_autofree char *state = describe_process (s->proc);

      fail_with (g_strdup_printf ("the store did not exit within %d s of signal %d: %s", EXIT_S, sig,
                                  state));
      g_subprocess_force_exit (s->proc);
      while (!exited)
        g_main_context_iteration (NULL, TRUE);
    }
  else
    g_source_remove (timer);
  g_clear_object (&s->proc);
  g_clear_pointer (&s->url, g_free);
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
  Batch b = { 0 };
  g_autoptr (GPtrArray) bodies = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  guint n = 1000;
  gint64 t0;

  lb_test_server_start (&store, root);
  batch_init (&b, "1000 concurrent uploads", session, store.proc);
  t0 = g_get_monotonic_time ();
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = g_strdup_printf ("upload-%04u.bin", i);
      GBytes *body = lb_test_bytes (16 * 1024 + i * 37, i);
      g_ptr_array_add (bodies, body);
      put_async (&b, store.url, name, body, "*");
    }
  if (batch_run (&b))
    {
      g_test_message ("1000 concurrent uploads: %u landed (201/204), %u transport failures, "
                      "%u sent again, %.0f ms", b.done_ok, b.failed_transport, batch_restarts (&b),
                      (g_get_monotonic_time () - t0) / 1000.0);
      g_assert_cmpuint (b.failed_transport, ==, 0);
      g_assert_cmpuint (b.statuses[201], ==, n);

      for (guint i = 0; i < n; i++)
        {
          g_autofree char *path = g_strdup_printf ("%s/upload-%04u.bin", root, i);
          g_autofree char *got = lb_test_sha256_file (path);
          g_autofree char *want = g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, bodies->pdata[i]);
          g_assert_cmpstr (got, ==, want);
        }
    }
  stop_store (&store, SIGTERM);
  batch_clear (&b);
  lb_test_remove_tree (root);
}

static void
test_kill9_during_uploads (void)
{
  g_autofree char *root = lb_test_make_tmpdir ("kill9");
  LbTestServer store = { 0 };
  g_autoptr (SoupSession) session = new_session (100);
  Batch b = { 0 };
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
  batch_init (&b, "100 concurrent overwrites", session, store.proc);
  b.kill_after = 20;
  /* The new versions: 3 MiB each, so that the kill finds many of them mid-transfer. */
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *file = g_strdup_printf ("scan-%03u.png", i);
      g_autoptr (GBytes) fresh = lb_test_bytes (3 * 1024 * 1024, 200000 + i);
      g_ptr_array_add (news, g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, fresh));
      put_async (&b, store.url, file, fresh, NULL);
    }
  if (!batch_run (&b))
    {
      stop_store (&store, SIGKILL);
      batch_clear (&b);
      lb_test_remove_tree (root);
      return;
    }
  g_assert_true (b.killed);
  stop_store (&store, SIGKILL);
  g_test_message ("kill -9 after %u of %u overwrites completed (%u cut off by the kill, %u sent again)",
                  b.done_ok, n, b.failed_transport, batch_restarts (&b));

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
  stop_store (&store, SIGTERM);
  g_assert_cmpuint (old_seen + new_seen, ==, n);
  g_assert_cmpuint (new_seen, >=, b.kill_after);
  g_assert_cmpuint (leftovers, ==, 0);
  batch_clear (&b);
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
