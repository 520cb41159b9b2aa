/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* The denial-of-service tests of lightbox-store (issue 30; test-store-dos-propfind.c, -conn.c
 * and -auth.c): the real binary on 127.0.0.1, with a descriptor limit of its own, its output
 * (debug lines with G_MESSAGES_DEBUG=lb-store-server lb-store-auth) in a file, its memory peak and threads
 * read from /proc/PID/status; requests as raw bytes over plain sockets, each on a connection
 * of its own, read to the end. Waits are bounded guards against a hang, never speed
 * thresholds. */

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "store-http.h"

#define USER "alice"
#define PASSWORD "correct horse battery"

static char *base; /* scratch directory, removed at the end */

/* ---------------------------------------------------------------------------------------- */
/* the store process                                                                          */

typedef struct {
  GSubprocess *proc;
  guint16      port;
  char        *url;
  char        *log;  /* its standard output and error (debug lines go to standard output) */
  char        *root;
  rlim_t       nofile; /* RLIMIT_NOFILE for the child, 0 to inherit */
  const char *const *env; /* (nullable) NAME=VALUE pairs set for the child only */
} Store;

static inline void
child_setup (gpointer data)
{
  Store *s = data;

  /* If the test dies (a timeout, a failed assertion), the server must not outlive it. */
  prctl (PR_SET_PDEATHSIG, SIGKILL);
  if (s->nofile > 0)
    {
      struct rlimit rl = { s->nofile, s->nofile };
      setrlimit (RLIMIT_NOFILE, &rl);
    }
}

/* Starts lightbox-store serving @root with the options @extra, its output in a file (a pipe
 * left unread would stall it once full of debug lines), and waits for "Serving … at URL". */
static inline void
store_start (Store *s, const char *root, const char *const *extra, gboolean debug)
{
  g_auto (GStrv) argv = lb_test_server_argv (root, extra);
  g_autoptr (GSubprocessLauncher) l = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_MERGE);
  g_autoptr (GError) error = NULL;
  const char *colon;

  s->root = g_strdup (root);
  s->log = g_strdup_printf ("%s/store-%p.log", base, (void *) s);
  g_subprocess_launcher_set_stdout_file_path (l, s->log);
  g_subprocess_launcher_set_child_setup (l, child_setup, s, NULL);
  if (debug)
    g_subprocess_launcher_setenv (l, "G_MESSAGES_DEBUG", "lb-store-server lb-store-auth", TRUE);
  for (guint i = 0; s->env != NULL && s->env[i] != NULL; i++)
    {
      g_auto (GStrv) kv = g_strsplit (s->env[i], "=", 2);

      g_assert_nonnull (kv[1]);
      g_subprocess_launcher_setenv (l, kv[0], kv[1], TRUE);
    }
#if defined(__SANITIZE_ADDRESS__)
  /* As in test-security (LeakSanitizer's exit-time tracer crashes after GnuTLS threads ran);
   * a small quarantine, or the freed memory ASan holds back (256 MB) shows in VmHWM. */
  g_subprocess_launcher_setenv (l, "ASAN_OPTIONS",
                                "detect_leaks=0:abort_on_error=1:halt_on_error=1:detect_odr_violation=0:"
                                "quarantine_size_mb=8", TRUE);
#endif
  s->proc = g_subprocess_launcher_spawnv (l, (const char *const *) argv, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 3000 && s->url == NULL; i++)
    {
      g_autofree char *text = NULL;
      const char *at;

      if (g_file_get_contents (s->log, &text, NULL, NULL) &&
          (at = strstr (text, "Serving ")) != NULL && (at = strstr (at, " at ")) != NULL &&
          strchr (at, '\n') != NULL)
        s->url = g_strndup (at + 4, strcspn (at + 4, "\r\n"));
      else
        g_usleep (10000);
    }
  g_assert_nonnull (s->url);
  colon = strrchr (s->url, ':');
  s->port = (guint16) g_ascii_strtoull (colon + 1, NULL, 10);
  g_assert_cmpuint (s->port, >, 0);
}

/* SIGTERM; the store must exit cleanly. Returns its output. */
static inline char *
store_stop (Store *s)
{
  char *text = NULL;

  g_subprocess_send_signal (s->proc, SIGTERM);
  g_subprocess_wait (s->proc, NULL, NULL);
  g_assert_true (g_subprocess_get_if_exited (s->proc));
  g_assert_cmpint (g_subprocess_get_exit_status (s->proc), ==, 0);
  g_assert_true (g_file_get_contents (s->log, &text, NULL, NULL));
  g_clear_object (&s->proc);
  g_clear_pointer (&s->url, g_free);
  g_unlink (s->log);
  g_clear_pointer (&s->log, g_free);
  g_clear_pointer (&s->root, g_free);
  return text;
}

/* A number field of /proc/PID/status ("VmHWM" in kB, "Threads"). */
static inline guint64
store_status (Store *s, const char *field)
{
  g_autofree char *path = g_strdup_printf ("/proc/%s/status", g_subprocess_get_identifier (s->proc));
  g_autofree char *text = NULL;
  g_autofree char *key = g_strdup_printf ("\n%s:", field);
  const char *at;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  at = strstr (text, key);
  g_assert_nonnull (at);
  return g_ascii_strtoull (at + strlen (key), NULL, 10);
}

static inline void
write_file (const char *path, const char *text)
{
  http_write_file (path, text, strlen (text));
}

/* A fresh store root below the scratch directory. */
static inline char *
make_root (const char *name)
{
  char *root = g_build_filename (base, name, NULL);

  g_assert_cmpint (g_mkdir_with_parents (root, 0755), ==, 0);
  return root;
}

/* @n empty files named file-NNNNNN.png in @dir. */
static inline void
fill_dir (const char *dir, guint n)
{
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *p = g_strdup_printf ("%s/file-%06u.png", dir, i);
      int fd = open (p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

      g_assert_cmpint (fd, >=, 0);
      close (fd);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* raw HTTP                                                                                   */

/* A connected socket (http_connect_from()), or -1 when @from cannot be bound; @timeout_s
 * bounds every wait on it (a guard against a hang). */
static inline int
dial_from (guint16 port, const char *from, int timeout_s)
{
  struct timeval tv = { timeout_s, 0 };
  int fd = http_connect_from (port, from);

  if (fd >= 0)
    {
      setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      setsockopt (fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    }
  return fd;
}

static inline int
dial (guint16 port, int timeout_s)
{
  return dial_from (port, NULL, timeout_s);
}

/* Reads until the server closes (or the guard runs out). */
static inline GString *
read_to_end (int fd)
{
  GString *reply = g_string_new (NULL);
  char buf[65536];

  for (;;)
    {
      gssize n = recv (fd, buf, sizeof buf, 0);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      g_string_append_len (reply, buf, n);
    }
  return reply;
}

/* The status of an HTTP reply, 0 when there is none. */
static inline guint
reply_status (const GString *reply)
{
  if (reply->len < 12 || strncmp (reply->str, "HTTP/1.", 7) != 0)
    return 0;
  return (guint) g_ascii_strtoull (reply->str + 9, NULL, 10);
}

static inline gboolean
reply_has (const GString *reply, const char *text)
{
  return strstr (reply->str, text) != NULL;
}

/* One request on a new connection ("Connection: close" added), the whole reply returned. */
static inline GString *
request (guint16 port, const char *head, const char *body, gsize body_len)
{
  g_autofree char *req = g_strdup_printf ("%s\r\nConnection: close\r\n\r\n", head);
  int fd = dial (port, 60);
  GString *reply;

  http_send_all (fd, req, strlen (req));
  if (body != NULL)
    http_send_all (fd, body, body_len);
  reply = read_to_end (fd);
  close (fd);
  return reply;
}

static inline gint64
timed_get (guint16 port, const char *path)
{
  g_autofree char *head = g_strdup_printf ("GET %s HTTP/1.1\r\nHost: h", path);
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (GString) reply = request (port, head, NULL, 0);

  g_assert_cmpuint (reply_status (reply), ==, 200);
  return g_get_monotonic_time () - t0;
}

static inline int
cmp_gint64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}


/* g_test_init() and the scratch directory; SIGPIPE ignored (a server may close early). */
static inline void
store_dos_init (int *argc, char ***argv)
{
  g_test_init (argc, argv, NULL);
  signal (SIGPIPE, SIG_IGN);
  base = g_dir_make_tmp ("lb-store-dos-XXXXXX", NULL);
  g_assert_nonnull (base);
}

/* Runs the tests and removes the scratch directory. */
static inline int
store_dos_run (void)
{
  int rc = g_test_run ();

  http_remove_tree (base);
  g_free (base);
  return rc;
}
