/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Denial of service and disclosure through passwords (issue 30, items 7 and 14): floods of
 * wrong passwords while anonymous clients are timed, and user names told apart by the hash
 * method they are checked with. What runs where is read from the store's debug log. */
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
  return store_dos_run ();
}
