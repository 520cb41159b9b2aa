/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-test-process"

#include "lb-test-process.h"

#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "lb-test-files.h"

char *
lb_test_server_exe (void)
{
  return lb_test_build_path ("LB_BUILD_ROOT", "src", "server", "lightbox-store", NULL);
}

char **
lb_test_server_argv (const char        *root,
                     const char *const *extra)
{
  GPtrArray *argv = g_ptr_array_new ();

  g_ptr_array_add (argv, lb_test_server_exe ());
  g_ptr_array_add (argv, g_strdup ("--port"));
  g_ptr_array_add (argv, g_strdup ("0"));
  for (guint i = 0; extra != NULL && extra[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (extra[i]));
  g_ptr_array_add (argv, g_strdup (root));
  g_ptr_array_add (argv, NULL);
  return (char **) g_ptr_array_free (argv, FALSE);
}

char *
lb_test_server_hash_password (const char *user, const char *password)
{
  g_autofree char *bin = lb_test_server_exe ();
  g_autofree char *input = g_strconcat (password, "\n", NULL);
  g_autofree char *prefix = g_strconcat (user, ":$y$", NULL);
  g_autoptr (GSubprocess) p = NULL;
  g_autoptr (GError) error = NULL;
  char *out = NULL;

  p = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error,
                        bin, "--hash-password", user, NULL);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (p, input, NULL, &out, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_successful (p));
  g_assert_true (g_str_has_prefix (out, prefix));
  return out;
}

static void
die_with_parent (gpointer data)
{
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}

void
lb_test_server_spawn (GSubprocessLauncher *launcher,
                      const char *const   *argv,
                      GSubprocess        **proc,
                      char               **url)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GDataInputStream) out = NULL;
  g_autofree char *line = NULL;

  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);
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

void
lb_test_server_start (LbTestServer *s,
                      const char   *root)
{
  g_autofree char *bin = lb_test_server_exe ();
  const char *argv[] = { bin, "--port", "0", root, NULL };
  g_autoptr (GSubprocessLauncher) launcher = NULL;

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  lb_test_server_spawn (launcher, argv, &s->proc, &s->url);
  g_assert_true (g_str_has_prefix (s->url, "http://127.0.0.1:"));
}

void
lb_test_server_start_samples (LbTestServer *s,
                              const char   *filter_file)
{
  g_autofree char *samples = lb_test_build_path ("LB_SOURCE_ROOT", "data", "samples", NULL);

  s->root = lb_test_make_tmpdir ("samples");
  lb_test_copy_tree (samples, s->root);
  if (filter_file != NULL)
    {
      g_autofree char *dir = g_build_filename (s->root, ".lightbox", "filters", NULL);
      g_autofree char *base = g_path_get_basename (filter_file);

      g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
      lb_test_install_file (filter_file, dir, base);
    }
  lb_test_server_start (s, s->root);
}

void
lb_test_server_kill (LbTestServer *s,
                     int           sig)
{
  g_subprocess_send_signal (s->proc, sig);
  g_subprocess_wait (s->proc, NULL, NULL);
  g_clear_object (&s->proc);
  g_clear_pointer (&s->url, g_free);
}

void
lb_test_server_stop (LbTestServer *s)
{
  if (s->proc != NULL)
    lb_test_server_kill (s, SIGTERM);
  if (s->root != NULL)
    lb_test_remove_tree (s->root);
  g_clear_pointer (&s->root, g_free);
}

guint
lb_test_server_count_temps (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *child = g_build_filename (dir, name, NULL);

      if (g_str_has_prefix (name, ".lbput-"))
        n++;
      else if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        n += lb_test_server_count_temps (child);
    }
  return n;
}

gboolean
lb_test_have_program (const char *name)
{
  g_autofree char *path = g_find_program_in_path (name);

  return path != NULL;
}

const char *
lb_test_imagemagick (void)
{
  static const char *const names[] = { "magick", "convert-im6.q16", "convert" };
  static const char *found;

  if (found == NULL)
    {
      for (gsize i = 0; i < G_N_ELEMENTS (names) && found == NULL; i++)
        if (lb_test_have_program (names[i]))
          found = names[i];
      if (found == NULL)
        g_error ("ImageMagick is not installed (magick, convert-im6.q16 or convert): "
                 "run build-aux/install-deps.sh");
    }
  return found;
}

char *
lb_test_run_tool (const char *const *argv,
                  char             **err,
                  int               *status)
{
  g_autoptr (GError) error = NULL;
  char *out = NULL;
  int wait_status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, err,
                &wait_status, &error);
  g_assert_no_error (error);
  *status = g_spawn_check_wait_status (wait_status, NULL) ? 0 : 1;
  return out;
}

char *
lb_test_run_reference (const char *subdir,
                       const char *script,
                       const char *dir)
{
  g_autofree char *path = g_build_filename (g_getenv ("LB_SOURCE_ROOT"), "tests", subdir, script,
                                            NULL);
  const char *argv[] = { "/usr/bin/python3", path, dir, NULL };
  g_autoptr (GError) error = NULL;
  char *out = NULL;
  int status;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
                               NULL, &status, &error));
  if (WIFEXITED (status) && WEXITSTATUS (status) == 77)
    {
      g_free (out);
      return NULL;
    }
  g_assert_true (g_spawn_check_wait_status (status, &error));
  return out;
}
