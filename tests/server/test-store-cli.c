/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-store-cli"

/*
 * lightbox-store as a program: the ready line, signals, kill -9 in the middle of an upload,
 * --hash-password with --passwd-file, and refusals on the command line. Everything runs on
 * 127.0.0.1 with --port 0.
 */

#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>

#include <libsoup/soup.h>

#include "lb-test-files.h"
#include "lb-test-http.h"
#include "lb-test-image.h"
#include "lb-test-process.h"
#include "lb-test-tls.h"

typedef struct {
  GSubprocess      *proc;
  GDataInputStream *out;
  char             *url;
  guint16           port;
} Proc;

static void
proc_free (Proc *p)
{
  if (p == NULL)
    return;
  if (p->proc != NULL)
    {
      g_subprocess_force_exit (p->proc);
      g_subprocess_wait (p->proc, NULL, NULL);
    }
  g_clear_object (&p->out);
  g_clear_object (&p->proc);
  g_free (p->url);
  g_free (p);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Proc, proc_free)

/* Starts lightbox-store with @extra args and ROOT, and waits for its one ready line. */
static Proc *
start_store (const char *root, const char *const *extra)
{
  g_auto(GStrv) argv = lb_test_server_argv (root, extra);
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  g_autofree char *expect = NULL;
  Proc *p = g_new0 (Proc, 1);

  p->proc = g_subprocess_newv ((const char *const *) argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error);
  g_assert_no_error (error);
  p->out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (p->proc));
  line = g_data_input_stream_read_line_utf8 (p->out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (line);
  expect = g_strdup_printf ("Serving %s at ", root);
  g_test_message ("%s", line);
  g_assert_true (g_str_has_prefix (line, expect));
  p->url = g_strdup (line + strlen (expect));
  g_assert_true (g_regex_match_simple ("^https?://127\\.0\\.0\\.1:[0-9]+/$", p->url, 0, 0));
  p->port = lb_test_url_port (p->url);
  return p;
}

static void
write_file (const char *path, GBytes *data)
{
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, g_bytes_get_data (data, NULL), (gssize) g_bytes_get_size (data), &error);
  g_assert_no_error (error);
}

/* The path of the one upload temporary in @dir, or NULL. */
static char *
find_temp (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, ".lbput-"))
      return g_build_filename (dir, name, NULL);
  return NULL;
}

/* Opens a PUT of @announced bytes, sends @sent of them and leaves the connection open. The
 * caller waits until the server has streamed them to its temporary. */
static GSocketConnection *
start_partial_put (guint16 port, const char *path, gsize announced, GBytes *sent)
{
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *head = g_strdup_printf ("PUT %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                           "Content-Length: %" G_GSIZE_FORMAT "\r\n\r\n",
                                           path, (guint) port, announced);
  GSocketConnection *conn;
  GOutputStream *out;

  g_socket_client_set_enable_proxy (client, FALSE);
  conn = g_socket_client_connect_to_host (client, "127.0.0.1", port, NULL, &error);
  g_assert_no_error (error);
  out = g_io_stream_get_output_stream (G_IO_STREAM (conn));
  g_output_stream_write_all (out, head, strlen (head), NULL, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_write_all (out, g_bytes_get_data (sent, NULL), g_bytes_get_size (sent), NULL, NULL, &error);
  g_assert_no_error (error);
  return conn;
}

/* Waits (bounded: 30 s) until the upload temporary holds at least @size bytes; returns its
 * path. This is a wait for an event, not a timing threshold. */
static char *
wait_for_temp (const char *dir, goffset size)
{
  for (guint i = 0; i < 3000; i++)
    {
      g_autofree char *t = find_temp (dir);
      GStatBuf st;

      if (t != NULL && g_stat (t, &st) == 0 && st.st_size >= size)
        return g_steal_pointer (&t);
      g_usleep (10000);
    }
  g_assert_not_reached ();
  return NULL;
}

static void
test_kill_mid_upload (void)
{
  g_autofree char *base = lb_test_make_tmpdir ("cli-kill");
  g_autofree char *victim = g_build_filename (base, "victim.bin", NULL);
  g_autoptr(GBytes) old = lb_test_bytes (50000, 31);
  g_autoptr(GBytes) partial = lb_test_bytes (300000, 32);
  g_autoptr(Proc) p = NULL;
  g_autoptr(Proc) again = NULL;
  g_autoptr(GSocketConnection) conn = NULL;
  g_autofree char *temp = NULL;
  g_autofree char *temp_name = NULL;
  g_autoptr(GError) error = NULL;

  write_file (victim, old);
  p = start_store (base, NULL);
  conn = start_partial_put (p->port, "/victim.bin", 1000000, partial);
  /* The body streams to a temporary next to the target before it is complete (the server
   * writes in 256 KiB blocks). */
  temp = wait_for_temp (base, 256 * 1024);
  temp_name = g_path_get_basename (temp);

  /* While the upload runs, readers see the old file, and never the temporary. */
  {
    g_autofree char *head = g_strdup_printf ("GET /victim.bin HTTP/1.1\r\nHost: 127.0.0.1");
    g_autoptr(LbTestRawReply) r = lb_test_raw_request (p->port, head, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (r->status, ==, 200);
    g_assert_true (g_bytes_equal (r->body, old));
  }
  {
    g_autofree char *head = g_strdup_printf ("GET /%s HTTP/1.1\r\nHost: 127.0.0.1", temp_name);
    g_autoptr(LbTestRawReply) r = lb_test_raw_request (p->port, head, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (r->status, ==, 404);
  }
  {
    g_autoptr(LbTestRawReply) r = lb_test_raw_request (p->port, "PROPFIND / HTTP/1.1\r\nHost: 127.0.0.1\r\nDepth: 1",
                                                    NULL, &error);
    g_autofree char *xml = NULL;
    g_assert_no_error (error);
    g_assert_cmpuint (r->status, ==, 207);
    xml = g_strndup (g_bytes_get_data (r->body, NULL) ? g_bytes_get_data (r->body, NULL) : "", g_bytes_get_size (r->body));
    g_assert_null (strstr (xml, ".lbput-"));
    g_assert_nonnull (strstr (xml, "/victim.bin"));
  }

  /* kill -9: no chance to clean up. */
  g_subprocess_send_signal (p->proc, SIGKILL);
  g_subprocess_wait (p->proc, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (g_subprocess_get_if_exited (p->proc));
  g_clear_object (&p->proc);
  {
    g_autoptr(GBytes) now = lb_test_read_file (victim);
    g_assert_true (g_bytes_equal (now, old));
  }
  g_assert_true (g_file_test (temp, G_FILE_TEST_EXISTS)); /* left behind by the killed server */

  /* A restarted server removes it at start-up and serves the intact old file. */
  again = start_store (base, NULL);
  g_assert_cmpuint (lb_test_server_count_temps (base), ==, 0);
  {
    g_autoptr(LbTestRawReply) r = lb_test_raw_request (again->port, "GET /victim.bin HTTP/1.1\r\nHost: 127.0.0.1",
                                                    NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (r->status, ==, 200);
    g_assert_true (g_bytes_equal (r->body, old));
  }
  lb_test_remove_tree (base);
}

static void
test_sigterm_mid_upload (void)
{
  g_autofree char *base = lb_test_make_tmpdir ("cli-term");
  g_autofree char *victim = g_build_filename (base, "victim.bin", NULL);
  g_autoptr(GBytes) old = lb_test_bytes (20000, 33);
  g_autoptr(GBytes) partial = lb_test_bytes (300000, 34);
  g_autoptr(Proc) p = NULL;
  g_autoptr(GSocketConnection) conn = NULL;
  g_autofree char *temp = NULL;
  g_autofree char *rest = NULL;
  g_autoptr(GError) error = NULL;
  gsize rest_len = 0;

  write_file (victim, old);
  p = start_store (base, NULL);
  conn = start_partial_put (p->port, "/victim.bin", 500000, partial);
  temp = wait_for_temp (base, 256 * 1024);

  g_subprocess_send_signal (p->proc, SIGTERM);
  g_subprocess_wait (p->proc, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (p->proc));
  g_assert_cmpint (g_subprocess_get_exit_status (p->proc), ==, 0);
  g_clear_object (&p->proc);

  /* Clean stop: the in-flight temporary is gone, the old file intact, and the ready line
   * was the only output. */
  g_assert_false (g_file_test (temp, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (lb_test_server_count_temps (base), ==, 0);
  {
    g_autoptr(GBytes) now = lb_test_read_file (victim);
    g_assert_true (g_bytes_equal (now, old));
  }
  rest = g_data_input_stream_read_upto (p->out, "", 0, &rest_len, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rest_len, ==, 0);
  lb_test_remove_tree (base);
}

static void
test_sigint (void)
{
  g_autofree char *base = lb_test_make_tmpdir ("cli-int");
  g_autoptr(Proc) p = start_store (base, NULL);
  g_autoptr(GError) error = NULL;

  g_subprocess_send_signal (p->proc, SIGINT);
  g_subprocess_wait (p->proc, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (p->proc));
  g_assert_cmpint (g_subprocess_get_exit_status (p->proc), ==, 0);
  g_clear_object (&p->proc);
  lb_test_remove_tree (base);
}

/* Runs the binary to completion; returns the exit status, stdout and stderr. */
static int
run_store (const char *const *args, const char *stdin_text, char **out, char **err)
{
  g_autofree char *bin = lb_test_server_exe ();
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GError) error = NULL;

  g_ptr_array_add (argv, bin);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  proc = g_subprocess_newv ((const char *const *) argv->pdata,
                            G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                            G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, stdin_text, NULL, out, err, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (proc));
  return g_subprocess_get_exit_status (proc);
}

static void
test_hash_password (void)
{
  g_autofree char *base = lb_test_make_tmpdir ("cli-hash");
  g_autofree char *passwd = g_build_filename (base, "passwd", NULL);
  g_autofree char *root = g_build_filename (base, "root", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *out2 = NULL;
  g_autofree char *err2 = NULL;
  g_autoptr(Proc) p = NULL;
  g_autoptr(GError) error = NULL;
  const char *hash_args[] = { "--hash-password", "bob", NULL };
  const char *extra[] = { "--passwd-file", passwd, NULL };

  g_assert_cmpint (run_store (hash_args, "s3cret pass\n", &out, &err), ==, 0);
  g_assert_true (g_regex_match_simple ("^bob:\\$y\\$[./0-9A-Za-z$]+\n$", out, 0, 0));
  /* Salted: the same password hashes differently each time. */
  g_assert_cmpint (run_store (hash_args, "s3cret pass\n", &out2, &err2), ==, 0);
  g_assert_cmpstr (out, !=, out2);

  g_file_set_contents (passwd, out, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_mkdir (root, 0755), ==, 0);
  p = start_store (root, extra);
  {
    g_autofree char *good = g_base64_encode ((const guchar *) "bob:s3cret pass", 15);
    g_autofree char *bad = g_base64_encode ((const guchar *) "bob:s3cret", 10);
    g_autofree char *h1 = g_strdup_printf ("PUT /x.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n"
                                           "Authorization: Basic %s", good);
    g_autofree char *h2 = g_strdup_printf ("PUT /y.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n"
                                           "Authorization: Basic %s", bad);
    g_autoptr(GBytes) two = g_bytes_new_static ("hi", 2);
    g_autoptr(LbTestRawReply) r1 = lb_test_raw_request (p->port, h1, two, &error);
    g_autoptr(LbTestRawReply) r2 = NULL;

    g_assert_no_error (error);
    g_assert_cmpuint (r1->status, ==, 201);
    r2 = lb_test_raw_request (p->port, h2, two, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (r2->status, ==, 401);
    g_assert_nonnull (g_hash_table_lookup (r2->headers, "www-authenticate"));
  }
  lb_test_remove_tree (base);
}

/* --tls-cert/--tls-key: a self-signed certificate made now with openssl. */
static void
test_tls (void)
{
  g_autofree char *base = lb_test_make_tmpdir ("cli-tls");
  g_autofree char *root = g_build_filename (base, "root", NULL);
  g_autofree char *cert = g_build_filename (base, "cert.pem", NULL);
  g_autofree char *key = g_build_filename (base, "key.pem", NULL);
  g_autofree char *file = g_build_filename (root, "t.bin", NULL);
  g_autofree char *openssl = g_find_program_in_path ("openssl");
  g_autoptr(GBytes) data = lb_test_bytes (2048, 35);
  g_autoptr(Proc) p = NULL;
  g_autofree char *url = NULL;

  if (openssl == NULL)
    {
      g_test_skip ("openssl not installed (build-aux/install-deps.sh installs it)");
      lb_test_remove_tree (base);
      return;
    }
  lb_test_make_self_signed (openssl, key, cert);
  g_assert_cmpint (g_mkdir (root, 0755), ==, 0);
  write_file (file, data);
  {
    const char *extra[] = { "--tls-cert", cert, "--tls-key", key, NULL };
    p = start_store (root, extra);
  }
  g_assert_true (g_str_has_prefix (p->url, "https://127.0.0.1:"));
  url = g_strconcat (p->url, "t.bin", NULL);
  g_object_unref (lb_test_check_https_get (url, cert, data));
  lb_test_remove_tree (base);
}

static void
test_refusals (void)
{
  g_autofree char *base = lb_test_make_tmpdir ("cli-refuse");
  g_autofree char *missing = g_build_filename (base, "missing", NULL);
  g_autofree char *passwd = g_build_filename (base, "plain-passwd", NULL);
  struct {
    const char *args[8];
    int         status;
    const char *stderr_part;
  } cases[] = {
    /* Never a public address without authentication (refused before binding anything). */
    { { "--bind", "0.0.0.0", "--port", "0", base, NULL }, 1, "without authentication" },
    { { "--bind", "::", "--port", "0", base, NULL }, 1, "without authentication" },
    { { "--bind", "not-an-ip", "--port", "0", base, NULL }, 1, "not an IP address" },
    { { "--tls-cert", "x.pem", base, NULL }, 2, "go together" },
    { { "--port", "70000", base, NULL }, 2, "out of range" },
    { { "--port", "0", NULL }, 2, "ROOT" },
    { { "--port", "0", missing, NULL }, 1, "not a directory" },
    { { "--port", "0", "--passwd-file", passwd, base, NULL }, 1, "user:$id$salt$hash" },
    { { "--port", "0", "--tls-cert", passwd, "--tls-key", passwd, base, NULL }, 1, "TLS" },
  };
  g_autoptr(GError) error = NULL;

  /* A plain-text password is not a hash: refused. */
  g_file_set_contents (passwd, "alice:secret\n", -1, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;
      int st = run_store (cases[i].args, NULL, &out, &err);

      g_test_message ("case %u: exit %d, stderr: %s", i, st, err);
      g_assert_cmpint (st, ==, cases[i].status);
      g_assert_nonnull (strstr (err, cases[i].stderr_part));
      g_assert_null (strstr (out, "Serving"));
    }
  lb_test_remove_tree (base);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/store-cli/kill-mid-upload", test_kill_mid_upload);
  g_test_add_func ("/store-cli/sigterm-mid-upload", test_sigterm_mid_upload);
  g_test_add_func ("/store-cli/sigint", test_sigint);
  g_test_add_func ("/store-cli/hash-password", test_hash_password);
  g_test_add_func ("/store-cli/tls", test_tls);
  g_test_add_func ("/store-cli/refusals", test_refusals);
  return g_test_run ();
}
