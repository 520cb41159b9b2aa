/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Denial of service and disclosure through passwords (issue 30, items 7 and 14): floods of
 * wrong passwords while anonymous clients are timed, more checks at once than the queue of
 * checks holds, and user names told apart by the hash method they are checked with. What runs where is read from the store's debug log. */
#include <errno.h>
#include <string.h>

#include "store-dos.h"

/* ---------------------------------------------------------------------------------------- */
/* 7. Wrong passwords as a CPU denial of service                                             */

typedef struct {
  guint16 port;
  gint    stop;
  gint    n401, n429, other;
} Flood;

/* About 50 wrong passwords a second from each of two threads (the attack was 40 a
 * second): each a new connection, a new user and password, so nothing is cached. */
static gpointer
flood_thread (gpointer data)
{
  Flood *f = data;

  for (guint i = 0; !g_atomic_int_get (&f->stop); i++)
    {
      g_autofree char *creds = g_strdup_printf ("user%u-%p:wrong-%u", i, (void *) &i, g_random_int ());
      g_autofree char *b64 = g_base64_encode ((const guchar *) creds, strlen (creds));
      g_autofree char *head = g_strdup_printf ("GET /a.txt HTTP/1.1\r\nHost: h\r\nAuthorization: Basic %s", b64);
      g_autoptr (GString) reply = request (f->port, head, NULL, 0);
      guint st = reply_status (reply);

      if (st == 401)
        g_atomic_int_inc (&f->n401);
      else if (st == 429 && reply_has (reply, "\r\nRetry-After: "))
        g_atomic_int_inc (&f->n429);
      else
        g_atomic_int_inc (&f->other);
      g_usleep (20000);
    }
  return NULL;
}

static guint
count_lines (const char *log, const char *text)
{
  guint n = 0;

  for (const char *p = log; (p = strstr (p, text)) != NULL; p++)
    n++;
  return n;
}

/* Before: every wrong password cost 20-80 ms of yescrypt on the main loop, and 40 a second
 * made anonymous GETs take 5.6-7.9 s. Now each check runs in a worker thread (every refusal of
 * the flood is one "checked in a worker thread" line of the store's debug log), an address
 * that failed 20 times is answered 429 with Retry-After without any hash, and credentials
 * verified before still work from that address. */
static void
test_auth_flood (void)
{
  g_autofree char *root = make_root ("flood");
  g_autofree char *file = g_build_filename (root, "a.txt", NULL);
  g_autofree char *passwd = g_build_filename (base, "flood-passwd", NULL);
  g_autofree char *line = lb_test_server_hash_password (USER, PASSWORD);
  g_autofree char *good = g_base64_encode ((const guchar *) USER ":" PASSWORD, strlen (USER ":" PASSWORD));
  g_autofree char *put = g_strdup_printf ("PUT /mine.txt HTTP/1.1\r\nHost: h\r\nAuthorization: Basic %s\r\n"
                                          "Content-Length: 2", good);
  g_autoptr (GArray) before = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr (GArray) during = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autofree char *log = NULL;
  Flood f = { 0 };
  GThread *threads[2];
  Store s = { 0 };
  guint worker_lines, put_during = 0;

  write_file (file, "hello");
  write_file (passwd, line);
  store_start (&s, root, (const char *const[]) { "--passwd-file", passwd, NULL }, TRUE);
  {
    g_autoptr (GString) reply = request (s.port, put, "ok", 2);
    g_assert_cmpuint (reply_status (reply), ==, 201);
  }
  for (guint i = 0; i < 20; i++)
    {
      gint64 t = timed_get (s.port, "/a.txt");
      g_array_append_val (before, t);
    }
  f.port = s.port;
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("flood", flood_thread, &f);
  g_usleep (500000);
  for (guint i = 0; i < 20; i++)
    {
      gint64 t = timed_get (s.port, "/a.txt");
      g_array_append_val (during, t);
      g_usleep (50000);
    }
  {
    g_autoptr (GString) reply = request (s.port, put, "ok", 2);
    put_during = reply_status (reply);
  }
  /* Until the flood has spent its address's allowance (how fast checks go depends on the
   * machine; the guard is 60 s). */
  for (guint i = 0; i < 600 && g_atomic_int_get (&f.n429) == 0; i++)
    g_usleep (100000);
  g_atomic_int_set (&f.stop, TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (threads[i]);
  log = store_stop (&s);
  g_array_sort (before, cmp_gint64);
  g_array_sort (during, cmp_gint64);
  worker_lines = count_lines (log, "password checked in a worker thread: refused");
  g_test_message ("flood: %d answered 401, %d answered 429, %d other; %u checks in a worker thread; "
                  "anonymous GET median %.2f ms before, %.2f ms during",
                  f.n401, f.n429, f.other, worker_lines,
                  g_array_index (before, gint64, 10) / 1e3, g_array_index (during, gint64, 10) / 1e3);
  g_assert_cmpint (f.other, ==, 0);
  g_assert_cmpint (f.n429, >, 0);
  g_assert_cmpint (f.n401, >=, 20);
  /* Every refusal came from a hash in a worker thread, none from the main loop. */
  g_assert_cmpuint (worker_lines, ==, (guint) f.n401);
  /* Verified credentials are not throttled. */
  g_assert_cmpuint (put_during, ==, 204);
}

/* ---------------------------------------------------------------------------------------- */
/* 7. More password checks at once than the queue holds                                      */

/* Waits until @text occurs at least @n times in the store's output (a guard of 60 s against a
 * hang, not a speed limit); returns the count. */
static guint
wait_log_lines (Store *s, const char *text, guint n)
{
  guint count = 0;

  for (guint i = 0; i < 6000; i++)
    {
      g_autofree char *log = NULL;

      g_assert_true (g_file_get_contents (s->log, &log, NULL, NULL));
      if ((count = count_lines (log, text)) >= n)
        break;
      g_usleep (10000);
    }
  return count;
}

/* @req (a whole request) on a new connection from 127.0.0.1; the whole reply. */
static GString *
raw_request (guint16 port, const char *req)
{
  int fd = dial (port, 60);
  GString *reply;

  g_assert_true (http_send_all (fd, req, strlen (req)));
  reply = read_to_end (fd);
  close (fd);
  return reply;
}

/* A GET of /a.txt with Basic credentials, "Connection: close". */
static char *
basic_get (const char *user, const char *password)
{
  g_autofree char *creds = g_strconcat (user, ":", password, NULL);
  g_autofree char *b64 = g_base64_encode ((const guchar *) creds, strlen (creds));

  return g_strdup_printf ("GET /a.txt HTTP/1.1\r\nHost: h\r\nAuthorization: Basic %s\r\n"
                          "Connection: close\r\n\r\n", b64);
}

#define VERIFY_QUEUE     64 /* checks that may wait (LB_STORE_VERIFY_QUEUE, lb-store-verify.h) */
#define QUEUE_CLIENTS    6  /* source addresses 127.0.0.2 ... */
#define QUEUE_PER_CLIENT 20 /* no more than the failures an address may have pending (429) */
#define QUEUE_HELD       "password hash held until "
#define QUEUE_PENDING    "Basic credentials not verified before: a password hash decides"

/* 120 requests with Basic credentials not verified before (most right, some wrong, some of an
 * unknown user), each on a connection of its own, while every password hash is held back
 * (LB_STORE_TEST_HOLD_HASHES): at most 64 checks may wait (lb-store-verify.h), besides those a
 * worker thread has taken, and the others must get 503 with Retry-After at once, without a
 * hash. Anonymous reads are served meanwhile. Once the hashes go on, every admitted request
 * gets what its credentials deserve (200 or 401) and the store checks new credentials again.
 * The requests come from six loopback addresses, 20 each, so that the per-address throttling
 * of failures (429 beyond 20 pending) does not answer first. */
static void
test_auth_queue (void)
{
  const guint n = QUEUE_CLIENTS * QUEUE_PER_CLIENT;
  g_autofree char *root = make_root ("queue");
  g_autofree char *file = g_build_filename (root, "a.txt", NULL);
  g_autofree char *passwd = g_build_filename (base, "queue-passwd", NULL);
  g_autofree char *hold = g_build_filename (base, "queue-hold", NULL);
  g_autofree char *hold_env = g_strconcat ("LB_STORE_TEST_HOLD_HASHES=", hold, NULL);
  const char *env[] = { hold_env, NULL };
  g_autofree char *alice = lb_test_server_hash_password (USER, PASSWORD);
  g_autofree char *bob = lb_test_server_hash_password ("bob", "bob's password");
  g_autofree char *lines = g_strconcat (alice, bob, NULL);
  g_autofree char *good = basic_get (USER, PASSWORD);
  g_autofree char *wrong = basic_get (USER, "not the password");
  g_autofree char *unknown = basic_get ("nobody", PASSWORD);
  g_autofree char *log = NULL;
  g_autofree int *fds = g_new (int, n);
  g_autofree guint *expected = g_new (guint, n);
  guint pending, held, n503 = 0, n200 = 0, n401 = 0, other = 0, admitted, checked;
  guint anonymous_during;
  Store s = { .env = env };

  write_file (file, "hello");
  write_file (passwd, lines);
  store_start (&s, root, (const char *const[]) { "--passwd-file", passwd, NULL }, TRUE);

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *from = g_strdup_printf ("127.0.0.%u", 2 + i / QUEUE_PER_CLIENT);
      const char *req = i % 8 == 3 ? wrong : i % 8 == 6 ? unknown : good;

      expected[i] = req == good ? 200 : 401;
      fds[i] = dial_from (s.port, from, 60);
      if (fds[i] < 0)
        {
          g_autofree char *out = NULL;

          for (guint k = 0; k < i; k++)
            close (fds[k]);
          write_file (hold, "");
          out = store_stop (&s);
          g_test_skip ("cannot bind a client socket to 127.0.0.2 ... 127.0.0.7");
          return;
        }
      g_assert_true (http_send_all (fds[i], req, strlen (req)));
      /* The first check is in a worker thread, held, before the others come: the queue
       * proper then fills with the next ones. */
      if (i == 0)
        g_assert_cmpuint (wait_log_lines (&s, QUEUE_HELD, 1), ==, 1);
    }
  /* Every request has been seen (admitted or refused) when its line is there; an anonymous
   * GET answered after that went through the main loop after all of them. */
  pending = wait_log_lines (&s, QUEUE_PENDING, n);
  g_assert_cmpuint (pending, ==, n);
  {
    g_autoptr (GString) reply = request (s.port, "GET /a.txt HTTP/1.1\r\nHost: h", NULL, 0);

    anonymous_during = reply_status (reply);
  }
  held = wait_log_lines (&s, QUEUE_HELD, 0);

  /* The hashes go on. */
  write_file (hold, "");
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GString) reply = read_to_end (fds[i]);
      guint st = reply_status (reply);

      close (fds[i]);
      if (st == 503 && reply_has (reply, "\r\nRetry-After: "))
        n503++;
      else if (st == expected[i] && st == 200 && g_str_has_suffix (reply->str, "\r\n\r\nhello"))
        n200++;
      else if (st == expected[i] && st == 401 && reply_has (reply, "\r\nWWW-Authenticate: Basic "))
        n401++;
      else
        {
          g_test_message ("request %u (expected %u): %.60s", i, expected[i], reply->str);
          other++;
        }
    }
  admitted = n - n503;

  /* Afterwards: anonymous reads, credentials verified in the burst (cached), new right and
   * wrong credentials (a hash each, through the queue again). */
  {
    g_autoptr (GString) anonymous = request (s.port, "GET /a.txt HTTP/1.1\r\nHost: h", NULL, 0);
    g_autoptr (GString) cached = raw_request (s.port, good);
    g_autofree char *bob_right = basic_get ("bob", "bob's password");
    g_autofree char *bob_wrong = basic_get ("bob", "wrong");
    g_autoptr (GString) fresh = raw_request (s.port, bob_right);
    g_autoptr (GString) refused = raw_request (s.port, bob_wrong);

    g_test_message ("afterwards: anonymous %u, cached %u, new right credentials %u, new wrong %u",
                    reply_status (anonymous), reply_status (cached), reply_status (fresh),
                    reply_status (refused));
    g_assert_cmpuint (reply_status (anonymous), ==, 200);
    g_assert_cmpuint (reply_status (cached), ==, 200);
    g_assert_cmpuint (reply_status (fresh), ==, 200);
    g_assert_cmpuint (reply_status (refused), ==, 401);
  }
  log = store_stop (&s);
  /* Each admitted request was decided in a worker thread (the bob requests add two). */
  checked = count_lines (log, "password checked in a worker thread: ");

  g_test_message ("%u requests while hashes were held: %u answered 503, %u admitted (%u held by a "
                  "worker when all were in) -> %u answered 200, %u answered 401, %u other; "
                  "anonymous GET meanwhile: %u; checks done in a worker thread: %u",
                  n, n503, admitted, held, n200, n401, other, anonymous_during, checked);
  g_assert_cmpuint (other, ==, 0);
  g_assert_cmpuint (anonymous_during, ==, 200);
  /* The surplus was refused, and only the surplus: 64 waiting and at least the one taken by a
   * worker before the burst; a worker takes one check at a time, and the pool has at most a
   * thread per processor. */
  g_assert_cmpuint (n503, >, 0);
  g_assert_cmpuint (admitted, >=, VERIFY_QUEUE + 1);
  g_assert_cmpuint (admitted, <=, VERIFY_QUEUE + g_get_num_processors ());
  g_assert_cmpuint (checked, ==, admitted + 2);
}

/* ---------------------------------------------------------------------------------------- */
/* 14. User names told apart by timing                                                        */

/* "user:$6$…" with SHA-512-crypt at its default cost (5000 rounds), made by openssl(1) (not
 * crypt(3) here: ASan intercepts crypt_r, and the test would no longer link libcrypt). */
static char *
sha512_line (const char *user, const char *password, const char *salt)
{
  g_autoptr (GSubprocess) p = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL;

  p = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, "openssl", "passwd", "-6", "-salt", salt,
                        password, NULL);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (p, NULL, NULL, &out, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_successful (p));
  g_assert_true (g_str_has_prefix (out, "$6$"));
  return g_strdup_printf ("%s:%s", user, out);
}

/* The hash method of each "password checked" line of @log, in order. */
static GPtrArray *
checked_methods (const char *log)
{
  GPtrArray *methods = g_ptr_array_new_with_free_func (g_free);
  const char *key = "password checked in a worker thread: refused, hash method ";

  for (const char *p = log; (p = strstr (p, key)) != NULL; p++)
    {
      const char *m = p + strlen (key);
      g_ptr_array_add (methods, g_strndup (m, strcspn (m, "\r\n")));
    }
  return methods;
}

/* With $6$ hashes in the password file, an unknown user was checked against yescrypt: 20 ms
 * against 1.5 ms for a known one. Now unknown users are checked with the entries' own method
 * and cost, which the store's debug log names for each check; and MD5-crypt ($1$, 0.2 ms) is
 * refused at start-up. */
static void
test_auth_timing (void)
{
  g_autofree char *root = make_root ("timing");
  g_autofree char *file = g_build_filename (root, "a.txt", NULL);
  g_autofree char *passwd = g_build_filename (base, "sha512-passwd", NULL);
  g_autofree char *md5 = g_build_filename (base, "md5-passwd", NULL);
  g_autofree char *lines = NULL;
  g_autofree char *log = NULL;
  g_autoptr (GPtrArray) methods = NULL;
  const char *users[] = { "alice", "bob", "nobody", "mallory" }; /* two known, two unknown */
  g_autofree char *openssl = g_find_program_in_path ("openssl");
  Store s = { 0 };

  if (openssl == NULL)
    {
      g_test_skip ("openssl missing (build-aux/install-deps.sh)");
      return;
    }
  write_file (file, "hello");
  {
    g_autofree char *a = sha512_line ("alice", "alice's secret", "saltAAAA");
    g_autofree char *b = sha512_line ("bob", "bob's secret", "saltBBBB");
    lines = g_strconcat (a, b, NULL);
  }
  write_file (passwd, lines);
  store_start (&s, root, (const char *const[]) { "--passwd-file", passwd, NULL }, TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (users); i++)
    {
      g_autofree char *creds = g_strdup_printf ("%s:not the password", users[i]);
      g_autofree char *b64 = g_base64_encode ((const guchar *) creds, strlen (creds));
      g_autofree char *head = g_strdup_printf ("GET /a.txt HTTP/1.1\r\nHost: h\r\nAuthorization: Basic %s", b64);
      g_autoptr (GString) reply = request (s.port, head, NULL, 0);

      g_assert_cmpuint (reply_status (reply), ==, 401);
    }
  log = store_stop (&s);
  methods = checked_methods (log);
  g_assert_cmpuint (methods->len, ==, G_N_ELEMENTS (users));
  for (guint i = 0; i < methods->len; i++)
    {
      g_test_message ("%s: checked with %s", users[i], (const char *) g_ptr_array_index (methods, i));
      g_assert_cmpstr (g_ptr_array_index (methods, i), ==, "$6$");
    }

  /* MD5-crypt is refused at start-up, with a message that says so. */
  write_file (md5, "carol:$1$saltsalt$qjXMvbEw8oaL.CzflDugX/\n");
  {
    g_autofree char *bin = g_build_filename (g_getenv ("LB_BUILD_ROOT"), "src", "server", "lightbox-store", NULL);
    g_autoptr (GSubprocess) p = NULL;
    g_autoptr (GError) error = NULL;
    g_autofree char *out = NULL;

    p = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_MERGE, &error,
                          bin, "--port", "0", "--passwd-file", md5, root, NULL);
    g_assert_no_error (error);
    g_subprocess_communicate_utf8 (p, NULL, NULL, &out, NULL, &error);
    g_assert_no_error (error);
    g_test_message ("a $1$ entry: exit %d, %s", g_subprocess_get_exit_status (p), out);
    g_assert_true (g_subprocess_get_if_exited (p));
    g_assert_cmpint (g_subprocess_get_exit_status (p), ==, 1);
    g_assert_nonnull (strstr (out, "MD5-crypt ($1$)"));
  }
}

int
main (int argc, char **argv)
{
  store_dos_init (&argc, &argv);
  g_test_add_func ("/store-dos/auth-flood", test_auth_flood);
  g_test_add_func ("/store-dos/auth-timing", test_auth_timing);
  g_test_add_func ("/store-dos/auth-queue", test_auth_queue);
  return store_dos_run ();
}
