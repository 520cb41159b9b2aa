/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What may enter the store's namespace and how, against the real lightbox-store binary on
 * 127.0.0.1:
 *  - the filter repository takes only filters the engine's parser accepts, at most 1 MiB,
 *    whether they come by PUT, COPY or MOVE;
 *  - a FIFO in the root is not part of the namespace, and never blocks the server;
 *  - Destination is an absolute http(s) URI on this server or an absolute path (RFC 4918
 *    §10.3), anything else is refused. */
#include <signal.h>
#include <sys/stat.h>

#include "store-http.h"

#define FILTER_DIR ".lightbox/filters"

static char *root;
static HttpStore store;

static char *
in_root (const char *rel)
{
  return g_build_filename (root, rel, NULL);
}

/* A request head: "@method_path HTTP/1.1", Host, then @fields (nullable). */
static char *
head_for (const char *method_path, const char *fields)
{
  return g_strdup_printf ("%s HTTP/1.1\r\nHost: 127.0.0.1:%u%s%s", method_path, store.port,
                          fields != NULL ? "\r\n" : "", fields != NULL ? fields : "");
}

static guint
copy_move (const char *method, const char *from, const char *dest)
{
  g_autofree char *line = g_strdup_printf ("%s %s", method, from);
  g_autofree char *fields = g_strdup_printf ("Destination: %s", dest);
  g_autofree char *head = head_for (line, fields);

  return http_status (store.port, head, NULL, 0);
}

static char *
here (const char *path)
{
  return g_strdup_printf ("http://127.0.0.1:%u%s", store.port, path);
}

static char *
valid_filter_text (void)
{
  g_autofree char *p = g_build_filename (g_getenv ("LB_SOURCE_ROOT"), "plugins", "filters",
                                         "binomial-blur.lbfilter", NULL);
  char *text = NULL;

  g_assert_true (g_file_get_contents (p, &text, NULL, NULL));
  return text;
}

/* COPY and MOVE into the repository validate as PUT does: 422 for what the parser refuses,
 * 413 beyond 1 MiB, and the published filter (if any) stays as it was. */
static void
test_filter_repo (void)
{
  g_autofree char *valid = valid_filter_text ();
  g_autofree char *garbage_p = in_root ("garbage.lbfilter");
  g_autofree char *big_p = in_root ("big.lbfilter");
  g_autofree char *valid_p = in_root ("valid.lbfilter");
  g_autofree char *link_p = in_root ("link.lbfilter");
  g_autofree char *pub = in_root (FILTER_DIR "/published.lbfilter");
  g_autofree char *to_bad = here ("/" FILTER_DIR "/bad.lbfilter");
  g_autofree char *to_pub = here ("/" FILTER_DIR "/published.lbfilter");
  g_autofree char *to_new = here ("/" FILTER_DIR "/new.lbfilter");
  g_autofree char *to_moved = here ("/" FILTER_DIR "/moved.lbfilter");
  g_autofree char *put = head_for ("PUT /" FILTER_DIR "/bad.lbfilter", "Content-Length: 12");
  g_autofree char *big = g_strnfill (1024 * 1024 + 1, '#');
  g_autofree char *snap = NULL;
  g_autofree char *after = NULL;

  http_write_file (garbage_p, "not a filter", 12);
  http_write_file (big_p, big, strlen (big));
  http_write_file (valid_p, valid, strlen (valid));
  http_write_file (pub, valid, strlen (valid));
  g_assert_cmpint (symlink ("valid.lbfilter", link_p), ==, 0);
  snap = http_snapshot (root);

  g_assert_cmpuint (http_status (store.port, put, "not a filter", 12), ==, 422);
  g_assert_cmpuint (copy_move ("COPY", "/garbage.lbfilter", to_bad), ==, 422);
  g_assert_cmpuint (copy_move ("MOVE", "/garbage.lbfilter", to_bad), ==, 422);
  g_assert_cmpuint (copy_move ("COPY", "/garbage.lbfilter", to_pub), ==, 422);
  g_assert_cmpuint (copy_move ("MOVE", "/garbage.lbfilter", to_pub), ==, 422);
  g_assert_cmpuint (copy_move ("COPY", "/big.lbfilter", to_bad), ==, 413);
  g_assert_cmpuint (copy_move ("MOVE", "/big.lbfilter", to_pub), ==, 413);
  /* A symlink would publish whatever its target becomes later: moved in, never. */
  g_assert_cmpuint (copy_move ("MOVE", "/link.lbfilter", to_bad), ==, 403);
  after = http_snapshot (root);
  g_assert_cmpstr (snap, ==, after);

  /* What the parser accepts goes in, by either way. */
  g_assert_cmpuint (copy_move ("COPY", "/valid.lbfilter", to_new), ==, 201);
  g_assert_cmpuint (copy_move ("MOVE", "/valid.lbfilter", to_moved), ==, 201);
  {
    g_autofree char *p1 = in_root (FILTER_DIR "/new.lbfilter");
    g_autofree char *p2 = in_root (FILTER_DIR "/moved.lbfilter");
    g_autoptr (GBytes) a = http_read_file (p1);
    g_autoptr (GBytes) b = http_read_file (p2);
    g_autoptr (GBytes) want = g_bytes_new_static (valid, strlen (valid));

    g_assert_true (g_bytes_equal (a, want) && g_bytes_equal (b, want));
    g_assert_false (g_file_test (valid_p, G_FILE_TEST_EXISTS));
  }
}

/* A FIFO in the root: not listed, not served (404 at once, where open() used to wait for a
 * writer on the main loop), not copied, moved, deleted or replaced; the server keeps serving. */
static void
test_fifo (void)
{
  g_autofree char *fifo = in_root ("pipe");
  g_autofree char *dir = in_root ("withpipe");
  g_autofree char *inner = in_root ("withpipe/pipe");
  g_autofree char *plain = in_root ("withpipe/plain.txt");
  g_autofree char *link = in_root ("pipelink");
  g_autofree char *snap = NULL;
  g_autofree char *after = NULL;
  g_autofree char *get = head_for ("GET /pipe", NULL);
  g_autofree char *get_link = head_for ("GET /pipelink", NULL);
  g_autofree char *head = head_for ("HEAD /pipe", NULL);
  g_autofree char *get_plain = head_for ("GET /withpipe/plain.txt", NULL);
  g_autofree char *del = head_for ("DELETE /pipe", NULL);
  g_autofree char *put = head_for ("PUT /pipe", "Content-Length: 3");
  g_autofree char *pf0 = head_for ("PROPFIND /pipe", "Depth: 0");
  g_autofree char *pf1 = head_for ("PROPFIND /withpipe/", "Depth: 1");
  g_autofree char *list = head_for ("GET /withpipe/", NULL);
  g_autofree char *to_copy = here ("/pipecopy");
  g_autofree char *to_move = here ("/pipemoved");
  g_autofree char *to_dir = here ("/dircopy/");
  struct stat st;

  g_assert_cmpint (mkfifo (fifo, 0644), ==, 0);
  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  g_assert_cmpint (mkfifo (inner, 0644), ==, 0);
  http_write_file (plain, "plain\n", 6);
  g_assert_cmpint (symlink ("pipe", link), ==, 0);
  snap = http_snapshot (root);

  g_assert_cmpuint (http_status (store.port, get, NULL, 0), ==, 404);
  g_assert_cmpuint (http_status (store.port, get_link, NULL, 0), ==, 404);
  g_assert_cmpuint (http_status (store.port, head, NULL, 0), ==, 404);
  g_assert_cmpuint (http_status (store.port, get_plain, NULL, 0), ==, 200);
  g_assert_cmpuint (http_status (store.port, pf0, NULL, 0), ==, 404);
  {
    g_autoptr (HttpReply) r = http_request (store.port, pf1, NULL, 0);
    g_autofree char *text = g_strndup ((const char *) r->body->data, r->body->len);

    g_assert_cmpuint (r->status, ==, 207);
    g_assert_nonnull (strstr (text, "plain.txt"));
    g_assert_null (strstr (text, "/withpipe/pipe<"));
  }
  {
    g_autoptr (HttpReply) r = http_request (store.port, list, NULL, 0);
    g_autofree char *text = g_strndup ((const char *) r->body->data, r->body->len);

    g_assert_cmpuint (r->status, ==, 200);
    g_assert_nonnull (strstr (text, "plain.txt"));
    g_assert_null (strstr (text, "\"pipe\""));
  }
  g_assert_cmpuint (http_status (store.port, del, NULL, 0), ==, 404);
  g_assert_cmpuint (http_status (store.port, put, "new", 3), ==, 409);
  g_assert_cmpuint (copy_move ("COPY", "/pipe", to_copy), ==, 404);
  g_assert_cmpuint (copy_move ("MOVE", "/pipe", to_move), ==, 404);
  after = http_snapshot (root);
  g_assert_cmpstr (snap, ==, after);

  /* A collection holding a FIFO is copied without it. */
  g_assert_cmpuint (copy_move ("COPY", "/withpipe/", to_dir), ==, 201);
  {
    g_autofree char *copied = in_root ("dircopy/plain.txt");
    g_autofree char *no = in_root ("dircopy/pipe");

    g_assert_true (g_file_test (copied, G_FILE_TEST_IS_REGULAR));
    g_assert_false (g_file_test (no, G_FILE_TEST_EXISTS));
  }
  g_assert_cmpint (lstat (fifo, &st), ==, 0);
  g_assert_true (S_ISFIFO (st.st_mode));
}

/* Destination: RFC 4918 §10.3 allows an absolute URI or an absolute path. "//host/x" is
 * neither (a network-path reference); another scheme or authority is another namespace
 * (§9.8.5: 502); userinfo has no place in an http URI (RFC 9110 §4.2.4). */
static void
test_destination (void)
{
  g_autofree char *hdir = in_root ("h");
  g_autofree char *src = in_root ("d-src.txt");
  g_autofree char *snap = NULL;
  g_autofree char *after = NULL;
  g_autofree char *ftp = g_strdup_printf ("ftp://127.0.0.1:%u/ftp.txt", store.port);
  g_autofree char *https = g_strdup_printf ("https://127.0.0.1:%u/https.txt", store.port);
  g_autofree char *user = g_strdup_printf ("http://u@127.0.0.1:%u/user.txt", store.port);
  g_autofree char *other_port = g_strdup_printf ("http://127.0.0.1:%u/port.txt",
                                                 store.port == 1 ? 2 : store.port - 1);
  g_autofree char *upper = g_strdup_printf ("HTTP://127.0.0.1:%u/upper.txt", store.port);
  g_autofree char *ok = here ("/ok.txt");
  g_autofree char *query = here ("/query.txt?x=1");

  g_assert_cmpint (g_mkdir (hdir, 0755), ==, 0);
  http_write_file (src, "source\n", 7);
  snap = http_snapshot (root);

  g_assert_cmpuint (copy_move ("COPY", "/d-src.txt", "//h/x.txt"), ==, 400);
  g_assert_cmpuint (copy_move ("MOVE", "/d-src.txt", "//h/x.txt"), ==, 400);
  g_assert_cmpuint (copy_move ("COPY", "/d-src.txt", "relative.txt"), ==, 400);
  g_assert_cmpuint (copy_move ("COPY", "/d-src.txt", ftp), ==, 502);
  g_assert_cmpuint (copy_move ("COPY", "/d-src.txt", https), ==, 502);
  g_assert_cmpuint (copy_move ("COPY", "/d-src.txt", other_port), ==, 502);
  g_assert_cmpuint (copy_move ("COPY", "/d-src.txt", user), ==, 400);
  g_assert_cmpuint (copy_move ("COPY", "/d-src.txt", ""), ==, 400);
  after = http_snapshot (root);
  g_assert_cmpstr (snap, ==, after);

  g_assert_cmpuint (copy_move ("COPY", "/d-src.txt", ok), ==, 201);
  g_assert_cmpuint (copy_move ("COPY", "/d-src.txt", "/abs.txt"), ==, 201);
  g_assert_cmpuint (copy_move ("COPY", "/d-src.txt", upper), ==, 201);
  g_assert_cmpuint (copy_move ("COPY", "/d-src.txt", query), ==, 201);
  for (guint i = 0; i < 4; i++)
    {
      static const char *const names[] = { "ok.txt", "abs.txt", "upper.txt", "query.txt" };
      g_autofree char *p = in_root (names[i]);

      g_assert_true (g_file_test (p, G_FILE_TEST_IS_REGULAR));
    }
}

/* What a server killed in the middle of a COPY or MOVE leaves (a tree built beside its
 * destination, an old tree set aside) is hidden, and removed when the store starts again. */
static void
test_stale_copies (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *other = g_dir_make_tmp ("lb-stale-XXXXXX", &error);
  g_autofree char *tree = g_build_filename (other, "dir", ".lbput-Ab3dEf9hIj0k", "sub", NULL);
  g_autofree char *file = g_build_filename (tree, "member.bin", NULL);
  g_autofree char *kept = g_build_filename (other, "dir", "kept.bin", NULL);
  g_autofree char *snap = NULL;
  HttpStore s2 = { 0 };

  g_assert_no_error (error);
  g_assert_cmpint (g_mkdir_with_parents (tree, 0755), ==, 0);
  http_write_file (file, "partial", 7);
  http_write_file (kept, "kept", 4);
  http_store_start (&s2, other, NULL);
  http_store_stop (&s2);
  snap = http_snapshot (other);
  g_assert_null (strstr (snap, ".lbput-"));
  g_assert_nonnull (strstr (snap, "F dir/kept.bin 4 "));
  http_remove_tree (other);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  int ret;

  g_test_init (&argc, &argv, NULL);
  root = g_dir_make_tmp ("lb-namespace-XXXXXX", &error);
  g_assert_no_error (error);
  http_store_start (&store, root, NULL);

  g_test_add_func ("/namespace/filter-repo", test_filter_repo);
  g_test_add_func ("/namespace/fifo", test_fifo);
  g_test_add_func ("/namespace/destination", test_destination);
  g_test_add_func ("/namespace/stale-copies", test_stale_copies);
  ret = g_test_run ();

  http_store_stop (&store);
  http_remove_tree (root);
  g_free (root);
  return ret;
}
