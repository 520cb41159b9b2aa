/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Shared by the hardening tests that start the real lightbox-store binary: start it on a
 * free port (--port 0) serving a directory, stop or kill it, and deterministic content. */

#include <gio/gio.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>

typedef struct {
  GSubprocess *proc;
  char        *url; /* with trailing slash */
} Store;

static inline void
store_die_with_parent (gpointer data)
{
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}

/* Spawns @argv (a lightbox-store command line) through @launcher, never outliving the test,
 * and waits for the address it prints ("Serving … at URL"): @proc and @url (with a trailing
 * slash) get them. */
static inline void
store_spawn (GSubprocessLauncher *launcher,
             const char *const   *argv,
             GSubprocess        **proc,
             char               **url)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GDataInputStream) out = NULL;
  g_autofree char *line = NULL;

  /* If the test dies (a timeout, a failed assertion), the server must not outlive it. */
  g_subprocess_launcher_set_child_setup (launcher, store_die_with_parent, NULL, NULL);
  *proc = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (*proc));
  line = g_data_input_stream_read_line_utf8 (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (line);
  g_assert_true (g_str_has_prefix (line, "Serving "));
  *url = g_strdup_printf ("%s%s", strrchr (line, ' ') + 1,
                          g_str_has_suffix (line, "/") ? "" : "/");
}

/* The lightbox-store built with the tests. */
static inline char *
store_exe (void)
{
  return g_build_filename (g_getenv ("LB_BUILD_ROOT"), "src", "server", "lightbox-store", NULL);
}

/* Starts lightbox-store serving @root on a free port of 127.0.0.1. */
static inline void
store_start (Store      *s,
             const char *root)
{
  g_autofree char *bin = store_exe ();
  const char *argv[] = { bin, "--port", "0", root, NULL };
  g_autoptr (GSubprocessLauncher) launcher = NULL;

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  store_spawn (launcher, argv, &s->proc, &s->url);
  g_assert_true (g_str_has_prefix (s->url, "http://127.0.0.1:"));
}

/* Sends @sig (SIGTERM: a clean stop; SIGKILL: a crash) and reaps the process. */
static inline void
store_kill (Store *s,
            int    sig)
{
  g_subprocess_send_signal (s->proc, sig);
  g_subprocess_wait (s->proc, NULL, NULL);
  g_clear_object (&s->proc);
  g_clear_pointer (&s->url, g_free);
}

/* Deterministic content: @n bytes from an xorshift stream seeded by @seed. */
static inline GBytes *
content (gsize   n,
         guint32 seed)
{
  guint8 *p = g_malloc (n);
  guint32 x = seed * 2654435761u + 1;

  for (gsize i = 0; i < n; i++)
    {
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;
      p[i] = x & 0xff;
    }
  return g_bytes_new_take (p, n);
}
