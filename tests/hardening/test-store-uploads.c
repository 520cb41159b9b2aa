/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Uploads that do not end as they should, against the real lightbox-store binary on
 * 127.0.0.1: chunked bodies with malformed chunk sizes or without their last chunk, clients
 * killed with SIGKILL in the middle of a chunked or a Content-Length body, and refused uploads
 * that keep sending. In every case the file that was there stays as it was, byte for byte, and
 * nothing else appears in the root. */
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include "store-http.h"

#define ORIGINAL "original content\n" /* 17 bytes */
#define MAX_UPLOAD (16 * 1024 * 1024) /* bytes: --max-upload of the store under test */

static char *base;
static char *root;
static char *log_path;
static HttpStore store;

static char *
victim (const char *name)
{
  g_autofree char *p = g_build_filename (root, name, NULL);

  http_write_file (p, ORIGINAL, strlen (ORIGINAL));
  return g_steal_pointer (&p);
}

static void
assert_original (const char *path)
{
  g_autoptr (GBytes) got = http_read_file (path);
  g_autoptr (GBytes) want = g_bytes_new_static (ORIGINAL, strlen (ORIGINAL));

  g_assert_nonnull (got);
  g_assert_true (g_bytes_equal (got, want));
}

/* Waits until the access log has a line for @method @path (the server has finished with the
 * request, answered or aborted), and returns its status field. */
static guint
wait_logged (const char *method, const char *path)
{
  g_autofree char *needle = g_strdup_printf (" %s %s ", method, path);

  for (guint i = 0; i < 2000; i++)
    {
      g_autofree char *text = NULL;
      const char *hit;

      if (g_file_get_contents (log_path, &text, NULL, NULL) && (hit = strstr (text, needle)) != NULL)
        return (guint) g_ascii_strtoull (hit + strlen (needle), NULL, 10);
      g_usleep (10 * 1000);
    }
  g_error ("no access log line for %s %s", method, path);
}

static char *
put_head (const char *name, const char *framing)
{
  return g_strdup_printf ("PUT /%s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n%s", name, store.port, framing);
}

/* Chunk-size lines that are not hexadecimal numbers a 64-bit length holds: libsoup 3.2 reads
 * each of them as 0, the last chunk, and so a complete (empty or partial) body. */
static void
test_chunked_malformed (void)
{
  static const char *const sizes[] = { "zz", "-5", "", "123456789abcdef012" };
  static const char *const before[] = { "", "5\r\nhello\r\n" };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    for (guint j = 0; j < G_N_ELEMENTS (before); j++)
      {
        g_autofree char *name = g_strdup_printf ("malformed-%u-%u.bin", i, j);
        g_autofree char *p = victim (name);
        g_autofree char *snap = http_snapshot (root);
        g_autofree char *after = NULL;
        g_autofree char *head = put_head (name, "Transfer-Encoding: chunked");
        g_autofree char *body = g_strdup_printf ("%s%s\r\n\r\n", before[j], sizes[i]);
        guint status = http_status (store.port, head, body, strlen (body));
        g_autofree char *shown = g_strescape (body, NULL);

        g_test_message ("chunked body \"%s\": %u", shown, status);
        g_assert_true (status == 400 || status == 411);
        assert_original (p);
        after = http_snapshot (root);
        g_assert_cmpstr (snap, ==, after);
      }
}

/* The body ends (the client shuts its side down) after whole chunks, with no last chunk. */
static void
test_chunked_eof (void)
{
  g_autofree char *p = victim ("eof.bin");
  g_autofree char *snap = http_snapshot (root);
  g_autofree char *after = NULL;
  g_autofree char *head = put_head ("eof.bin", "Transfer-Encoding: chunked");
  g_autoptr (GByteArray) req = http_request_bytes (head, "5\r\nhello\r\n5\r\nworld\r\n", 20);
  g_autoptr (HttpReply) r = NULL;
  int fd = http_connect (store.port);

  g_assert_true (http_send_all (fd, req->data, req->len));
  shutdown (fd, SHUT_WR);
  r = http_read_reply (fd);
  close (fd);
  g_test_message ("EOF instead of the last chunk: %u, logged %u", r->status, wait_logged ("PUT", "/eof.bin"));
  g_assert_true (r->status == 0 || r->status == 400 || r->status == 411);
  assert_original (p);
  after = http_snapshot (root);
  g_assert_cmpstr (snap, ==, after);
}

/* A well-formed chunked PUT is refused too (libsoup 3.2 cannot tell it from a truncated one),
 * from the head alone: with Expect: 100-continue the client never sends the body. */
static void
test_chunked_refused (void)
{
  g_autofree char *p = g_build_filename (root, "chunked.bin", NULL);
  g_autofree char *head = put_head ("chunked.bin", "Transfer-Encoding: chunked");
  g_autofree char *expect = put_head ("chunked.bin", "Transfer-Encoding: chunked\r\nExpect: 100-continue");
  g_autoptr (GByteArray) req = http_request_bytes (expect, NULL, 0);
  g_autoptr (HttpReply) r = NULL;
  int fd;

  g_assert_cmpuint (http_status (store.port, head, "5\r\nhello\r\n0\r\n\r\n", 15), ==, 411);
  g_assert_false (g_file_test (p, G_FILE_TEST_EXISTS));

  fd = http_connect (store.port);
  g_assert_true (http_send_all (fd, req->data, req->len));
  r = http_read_reply (fd);
  close (fd);
  g_assert_cmpuint (r->status, ==, 411);
  g_assert_false (g_file_test (p, G_FILE_TEST_EXISTS));
}

/* A client process that sends @head and then @sent bytes of body, and is killed with SIGKILL
 * while it waits to send the rest. @chunked: the bytes go as complete chunks of 10 000 bytes,
 * so the connection ends at a chunk boundary. */
static void
kill_mid_body (const char *name, gboolean chunked)
{
  g_autofree char *p = victim (name);
  g_autofree char *snap = http_snapshot (root);
  g_autofree char *after = NULL;
  g_autofree char *path = g_strdup_printf ("/%s", name);
  g_autofree char *head = put_head (name, chunked ? "Transfer-Encoding: chunked" : "Content-Length: 600000");
  g_autoptr (GBytes) data = lb_test_bytes (300000, 77);
  g_autoptr (GByteArray) wire = http_request_bytes (head, NULL, 0);
  const guint8 *d = g_bytes_get_data (data, NULL);
  int ready[2];
  pid_t pid;
  int wstatus;
  char c;

  for (gsize off = 0; off < 300000; off += 10000)
    {
      if (chunked)
        g_byte_array_append (wire, (const guint8 *) "2710\r\n", 6); /* 10 000 */
      g_byte_array_append (wire, d + off, 10000);
      if (chunked)
        g_byte_array_append (wire, (const guint8 *) "\r\n", 2);
    }
  g_assert_cmpint (pipe (ready), ==, 0);
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      /* The child: system calls only (the parent has threads). */
      int fd = http_connect (store.port);

      if (!http_send_all (fd, wire->data, wire->len) || write (ready[1], "s", 1) != 1)
        _exit (1);
      for (;;)
        pause ();
    }
  close (ready[1]);
  g_assert_cmpint (read (ready[0], &c, 1), ==, 1);
  close (ready[0]);
  kill (pid, SIGKILL);
  g_assert_cmpint (waitpid (pid, &wstatus, 0), ==, pid);
  g_assert_true (WIFSIGNALED (wstatus) && WTERMSIG (wstatus) == SIGKILL);

  g_test_message ("%s PUT killed after 300000 bytes: logged %u", chunked ? "chunked" : "Content-Length",
                  wait_logged ("PUT", path));
  assert_original (p);
  after = http_snapshot (root);
  g_assert_cmpstr (snap, ==, after);
}

static void
test_kill_chunked (void)
{
  kill_mid_body ("killed-chunked.bin", TRUE);
}

static void
test_kill_content_length (void)
{
  kill_mid_body ("killed-length.bin", FALSE);
}

/* Streams @head and then up to 64 MiB of body; TRUE when the server stopped taking it
 * (closed or reset the connection) before all of it was sent. */
static gboolean
server_stops_reading (const char *head, gboolean chunked)
{
  g_autoptr (GByteArray) req = http_request_bytes (head, NULL, 0);
  g_autoptr (GBytes) block = lb_test_bytes (65536, 5);
  int fd = http_connect (store.port);
  gboolean stopped = !http_send_all (fd, req->data, req->len);

  for (guint i = 0; i < 1024 && !stopped; i++)
    {
      if (chunked && !http_send_all (fd, "10000\r\n", 7))
        stopped = TRUE;
      else if (!http_send_all (fd, g_bytes_get_data (block, NULL), 65536))
        stopped = TRUE;
      else if (chunked && !http_send_all (fd, "\r\n", 2))
        stopped = TRUE;
    }
  close (fd);
  return stopped;
}

/* A PUT refused from its head (chunked: 411; a Content-Length over --max-upload: 413) whose
 * client sends the body anyway, without waiting for 100 Continue: the server does not read
 * 64 MiB it has already refused. A refused body no longer than the store would take is read,
 * so that its client gets the answer (here 412), as the Lightbox client, which sends no
 * Expect, needs. */
static void
test_refused_unread (void)
{
  g_autofree char *chunked = put_head ("refused-c.bin", "Transfer-Encoding: chunked");
  g_autofree char *length = put_head ("refused-l.bin", "Content-Length: 67108864");
  g_autofree char *pc = g_build_filename (root, "refused-c.bin", NULL);
  g_autofree char *pl = g_build_filename (root, "refused-l.bin", NULL);

  g_assert_true (server_stops_reading (chunked, TRUE));
  g_test_message ("chunked: logged %u", wait_logged ("PUT", "/refused-c.bin"));
  g_assert_true (server_stops_reading (length, FALSE));
  g_test_message ("Content-Length: logged %u", wait_logged ("PUT", "/refused-l.bin"));
  g_assert_false (g_file_test (pc, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (pl, G_FILE_TEST_EXISTS));

  {
    g_autofree char *p = victim ("taken.bin");
    g_autofree char *head = put_head ("taken.bin", "Content-Length: 8388608\r\nIf-None-Match: *");
    g_autoptr (GBytes) body = lb_test_bytes (8 * 1024 * 1024, 9);
    g_autoptr (HttpReply) r = http_request (store.port, head, g_bytes_get_data (body, NULL),
                                            g_bytes_get_size (body));

    g_assert_cmpuint (r->status, ==, 412);
    assert_original (p);
  }
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *max = g_strdup_printf ("%d", MAX_UPLOAD);
  int ret;

  g_test_init (&argc, &argv, NULL);
  base = g_dir_make_tmp ("lb-uploads-XXXXXX", &error);
  g_assert_no_error (error);
  root = g_build_filename (base, "root", NULL);
  log_path = g_build_filename (base, "access.log", NULL);
  g_assert_cmpint (g_mkdir (root, 0700), ==, 0);
  {
    const char *extra[] = { "--access-log", log_path, "--max-upload", max, NULL };
    http_store_start (&store, root, extra);
  }

  g_test_add_func ("/uploads/chunked-malformed", test_chunked_malformed);
  g_test_add_func ("/uploads/chunked-eof", test_chunked_eof);
  g_test_add_func ("/uploads/chunked-refused", test_chunked_refused);
  g_test_add_func ("/uploads/kill-chunked", test_kill_chunked);
  g_test_add_func ("/uploads/kill-content-length", test_kill_content_length);
  g_test_add_func ("/uploads/refused-unread", test_refused_unread);
  ret = g_test_run ();

  http_store_stop (&store);
  http_remove_tree (base);
  return ret;
}
