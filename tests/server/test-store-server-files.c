/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-store-server"

/* Files through the in-process lightbox-store: GET and HEAD, ranges, conditional requests,
 * PUT (atomic replacement, size limit, aborted uploads) and a full file system (507). */

#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <glib/gstdio.h>

#include "lb-test-files.h"
#include "lb-test-http.h"
#include "lb-test-image.h"
#include "lb-test-process.h"
#include "test-store-server.h"

void
test_get_head (void)
{
  g_autoptr(Store) s = store_new ();
  g_autoptr(GBytes) content = lb_test_bytes (5000, 1);
  g_autoptr(Reply) get = NULL;
  g_autoptr(Reply) head = NULL;
  const char *etag, *lm;
  g_autoptr(GDateTime) lmd = NULL;
  struct stat st;
  g_autofree char *p = root_path (s, "img.png");

  put_file (s, "img.png", content);
  store_run (s);

  get = request (s, "GET", "/img.png", NULL, NULL);
  g_assert_cmpuint (get->status, ==, 200);
  g_assert_true (g_bytes_equal (get->body, content));
  etag = soup_message_headers_get_one (get->headers, "ETag");
  g_assert_nonnull (etag);
  /* Strong and quoted. */
  g_assert_true (etag[0] == '"' && etag[strlen (etag) - 1] == '"');
  lm = soup_message_headers_get_one (get->headers, "Last-Modified");
  g_assert_nonnull (lm);
  lmd = soup_date_time_new_from_http_string (lm);
  g_assert_nonnull (lmd);
  g_assert_cmpint (stat (p, &st), ==, 0);
  g_assert_cmpint (g_date_time_to_unix (lmd), ==, st.st_mtim.tv_sec);
  g_assert_cmpstr (soup_message_headers_get_content_type (get->headers, NULL), ==, "image/png");
  g_assert_cmpstr (soup_message_headers_get_one (get->headers, "Accept-Ranges"), ==, "bytes");

  head = request (s, "HEAD", "/img.png", NULL, NULL);
  g_assert_cmpuint (head->status, ==, 200);
  g_assert_cmpuint (g_bytes_get_size (head->body), ==, 0);
  g_assert_cmpint (soup_message_headers_get_content_length (head->headers), ==, 5000);
  g_assert_cmpstr (soup_message_headers_get_one (head->headers, "ETag"), ==, etag);

  g_assert_cmpuint (status_of (s, "GET", "/missing.png", NULL, NULL), ==, 404);
  g_assert_cmpuint (status_of (s, "GET", "/img.png/", NULL, NULL), ==, 404);
}

void
test_range (void)
{
  g_autoptr(Store) s = store_new ();
  g_autoptr(GBytes) content = lb_test_bytes (1000, 2);
  const guint8 *c = g_bytes_get_data (content, NULL);
  g_autoptr(Reply) r1 = NULL;
  g_autoptr(Reply) r2 = NULL;
  g_autoptr(Reply) r3 = NULL;
  g_autoptr(Reply) r4 = NULL;
  g_autoptr(Reply) r5 = NULL;
  g_autoptr(Reply) r6 = NULL;
  gsize n;

  put_file (s, "f.bin", content);
  store_run (s);

  r1 = request (s, "GET", "/f.bin", NULL, "Range", "bytes=10-19", NULL);
  g_assert_cmpuint (r1->status, ==, 206);
  g_assert_cmpstr (soup_message_headers_get_one (r1->headers, "Content-Range"), ==, "bytes 10-19/1000");
  g_assert_cmpmem (g_bytes_get_data (r1->body, &n), n, c + 10, 10);

  r2 = request (s, "GET", "/f.bin", NULL, "Range", "bytes=-5", NULL);
  g_assert_cmpuint (r2->status, ==, 206);
  g_assert_cmpmem (g_bytes_get_data (r2->body, &n), n, c + 995, 5);

  r3 = request (s, "GET", "/f.bin", NULL, "Range", "bytes=990-", NULL);
  g_assert_cmpuint (r3->status, ==, 206);
  g_assert_cmpstr (soup_message_headers_get_one (r3->headers, "Content-Range"), ==, "bytes 990-999/1000");
  g_assert_cmpmem (g_bytes_get_data (r3->body, &n), n, c + 990, 10);

  r4 = request (s, "GET", "/f.bin", NULL, "Range", "bytes=1000-", NULL);
  g_assert_cmpuint (r4->status, ==, 416);
  g_assert_cmpstr (soup_message_headers_get_one (r4->headers, "Content-Range"), ==, "bytes */1000");

  /* If-Range with a stale validator: the whole, current representation. */
  r5 = request (s, "GET", "/f.bin", NULL, "Range", "bytes=0-9", "If-Range", "\"stale\"", NULL);
  g_assert_cmpuint (r5->status, ==, 200);
  g_assert_true (g_bytes_equal (r5->body, content));

  /* A range past the end is clipped. */
  r6 = request (s, "GET", "/f.bin", NULL, "Range", "bytes=995-5000", NULL);
  g_assert_cmpuint (r6->status, ==, 206);
  g_assert_cmpmem (g_bytes_get_data (r6->body, &n), n, c + 995, 5);
}

void
test_conditional (void)
{
  g_autoptr(Store) s = store_new ();
  g_autoptr(GBytes) content = lb_test_bytes (300, 3);
  g_autoptr(Reply) get = NULL;
  g_autoptr(Reply) nm = NULL;
  g_autofree char *etag = NULL;
  g_autofree char *lm = NULL;

  put_file (s, "c.bin", content);
  store_run (s);
  get = request (s, "GET", "/c.bin", NULL, NULL);
  etag = g_strdup (soup_message_headers_get_one (get->headers, "ETag"));
  lm = g_strdup (soup_message_headers_get_one (get->headers, "Last-Modified"));

  nm = request (s, "GET", "/c.bin", NULL, "If-None-Match", etag, NULL);
  g_assert_cmpuint (nm->status, ==, 304);
  g_assert_cmpuint (g_bytes_get_size (nm->body), ==, 0);
  g_assert_cmpstr (soup_message_headers_get_one (nm->headers, "ETag"), ==, etag);
  g_assert_cmpuint (status_of (s, "GET", "/c.bin", NULL, "If-None-Match", "\"other\", " "\"x\"", NULL), ==, 200);
  g_assert_cmpuint (status_of (s, "GET", "/c.bin", NULL, "If-None-Match", "*", NULL), ==, 304);
  g_assert_cmpuint (status_of (s, "GET", "/c.bin", NULL, "If-None-Match", "\"other\"", NULL), ==, 200);
  g_assert_cmpuint (status_of (s, "GET", "/c.bin", NULL, "If-Modified-Since", lm, NULL), ==, 304);
  g_assert_cmpuint (status_of (s, "GET", "/c.bin", NULL, "If-Modified-Since", "Sat, 01 Jan 2000 00:00:00 GMT", NULL), ==, 200);
  g_assert_cmpuint (status_of (s, "HEAD", "/c.bin", NULL, "If-None-Match", etag, NULL), ==, 304);
  g_assert_cmpuint (status_of (s, "GET", "/c.bin", NULL, "If-Match", "\"wrong\"", NULL), ==, 412);
  g_assert_cmpuint (status_of (s, "GET", "/c.bin", NULL, "If-Match", etag, NULL), ==, 200);
  g_assert_cmpuint (status_of (s, "GET", "/c.bin", NULL, "If-Unmodified-Since", "Sat, 01 Jan 2000 00:00:00 GMT", NULL), ==, 412);
  g_assert_cmpuint (status_of (s, "GET", "/c.bin", NULL, "If-Unmodified-Since", lm, NULL), ==, 200);
  /* If-Match wins over If-Unmodified-Since (RFC 7232 §6). */
  g_assert_cmpuint (status_of (s, "GET", "/c.bin", NULL, "If-Match", etag,
                               "If-Unmodified-Since", "Sat, 01 Jan 2000 00:00:00 GMT", NULL), ==, 200);
  /* A weak validator never matches If-Match (strong comparison). */
  {
    g_autofree char *weak = g_strconcat ("W/", etag, NULL);
    g_assert_cmpuint (status_of (s, "GET", "/c.bin", NULL, "If-Match", weak, NULL), ==, 412);
  }
}

void
test_put (void)
{
  g_autoptr(Store) s = store_new ();
  g_autoptr(GBytes) v1 = lb_test_bytes (200000, 4);
  g_autoptr(GBytes) v2 = lb_test_bytes (150000, 5);
  g_autoptr(GBytes) v3 = lb_test_bytes (1000, 6);
  g_autoptr(Reply) created = NULL;
  g_autoptr(Reply) head = NULL;
  g_autoptr(Reply) replaced = NULL;
  g_autofree char *p = root_path (s, "up.bin");
  g_autofree char *etag1 = NULL;
  g_autoptr(GBytes) on_disk = NULL;

  store_run (s);
  created = request (s, "PUT", "/up.bin", v1, NULL);
  g_assert_cmpuint (created->status, ==, 201);
  etag1 = g_strdup (soup_message_headers_get_one (created->headers, "ETag"));
  g_assert_nonnull (etag1);
  on_disk = lb_test_read_file (p);
  g_assert_true (g_bytes_equal (on_disk, v1));
  head = request (s, "HEAD", "/up.bin", NULL, NULL);
  g_assert_cmpstr (soup_message_headers_get_one (head->headers, "ETag"), ==, etag1);

  /* Conditional writes that must not touch the file. */
  g_assert_cmpuint (status_of (s, "PUT", "/up.bin", v2, "If-None-Match", "*", NULL), ==, 412);
  g_assert_cmpuint (status_of (s, "PUT", "/up.bin", v2, "If-Match", "\"bogus\"", NULL), ==, 412);
  g_assert_cmpuint (status_of (s, "PUT", "/new.bin", v2, "If-Match", "*", NULL), ==, 412);
  g_clear_pointer (&on_disk, g_bytes_unref);
  on_disk = lb_test_read_file (p);
  g_assert_true (g_bytes_equal (on_disk, v1));
  g_assert_false (g_file_test (root_path (s, "new.bin"), G_FILE_TEST_EXISTS));

  /* Replacing with the ETag seen: 204, and the ETag changes. */
  replaced = request (s, "PUT", "/up.bin", v2, "If-Match", etag1, NULL);
  g_assert_cmpuint (replaced->status, ==, 204);
  g_assert_cmpstr (soup_message_headers_get_one (replaced->headers, "ETag"), !=, etag1);
  g_clear_pointer (&on_disk, g_bytes_unref);
  on_disk = lb_test_read_file (p);
  g_assert_true (g_bytes_equal (on_disk, v2));
  /* The old ETag is now stale. */
  g_assert_cmpuint (status_of (s, "PUT", "/up.bin", v3, "If-Match", etag1, NULL), ==, 412);

  g_assert_cmpuint (status_of (s, "PUT", "/fresh.bin", v3, "If-None-Match", "*", NULL), ==, 201);
  g_assert_cmpuint (status_of (s, "PUT", "/no/parent.bin", v3, NULL), ==, 409);
  g_assert_cmpuint (status_of (s, "MKCOL", "/dir/", NULL, NULL), ==, 201);
  g_assert_cmpuint (status_of (s, "PUT", "/dir/", v3, NULL), ==, 409);
  g_assert_cmpuint (status_of (s, "PUT", "/dir", v3, NULL), ==, 409);
  g_assert_cmpuint (status_of (s, "PUT", "/dir/inner.bin", v3, NULL), ==, 201);
  g_assert_cmpuint (status_of (s, "PUT", "/.hidden", v3, NULL), ==, 403);
  g_assert_cmpuint (status_of (s, "PUT", "/range.bin", v3, "Content-Range", "bytes 0-999/2000", NULL), ==, 400);
  g_assert_cmpuint (status_of (s, "PUT", "/empty.bin", NULL, NULL), ==, 201);
  g_assert_cmpuint (status_of (s, "GET", "/empty.bin", NULL, NULL), ==, 200);
  g_assert_cmpuint (lb_test_server_count_temps (s->root), ==, 0);
}

/* A body stream without a length: libsoup sends it chunked. */
static Reply *
put_chunked (Store *s, const char *path, GBytes *content)
{
  g_autofree char *url = g_strconcat (s->url, path + 1, NULL);
  g_autoptr(SoupMessage) msg = soup_message_new ("PUT", url);
  g_autoptr(GInputStream) in = g_memory_input_stream_new_from_bytes (content);
  g_autoptr(GError) error = NULL;
  Reply *r = g_new0 (Reply, 1);

  soup_message_set_request_body (msg, NULL, in, -1);
  r->body = soup_session_send_and_read (s->session, msg, NULL, &error);
  g_assert_no_error (error);
  r->status = soup_message_get_status (msg);
  r->headers = soup_message_headers_ref (soup_message_get_response_headers (msg));
  return r;
}

void
test_put_limit (void)
{
  g_autoptr(Store) s = store_new ();
  g_autoptr(GBytes) ok = lb_test_bytes (1000, 7);
  g_autoptr(GBytes) big = lb_test_bytes (1001, 8);
  g_autoptr(GBytes) huge = lb_test_bytes (300000, 9);
  g_autoptr(Reply) c1 = NULL;
  g_autoptr(Reply) c2 = NULL;
  g_autoptr(LbTestRawReply) raw = NULL;
  g_autoptr(GError) error = NULL;

  lb_store_server_set_max_upload (s->server, 1000);
  put_file (s, "keep.bin", ok);
  store_run (s);

  g_assert_cmpuint (status_of (s, "PUT", "/a.bin", ok, NULL), ==, 201);
  g_assert_cmpuint (status_of (s, "PUT", "/b.bin", big, NULL), ==, 413);
  g_assert_false (g_file_test (root_path (s, "b.bin"), G_FILE_TEST_EXISTS));
  /* Over the limit on an existing file: the old content stays. */
  g_assert_cmpuint (status_of (s, "PUT", "/keep.bin", huge, NULL), ==, 413);
  {
    g_autofree char *p = root_path (s, "keep.bin");
    g_autoptr(GBytes) d = lb_test_read_file (p);
    g_assert_true (g_bytes_equal (d, ok));
  }
  /* Chunked: refused from the head whatever the size (411: libsoup 3.2 cannot tell a cut
   * chunked body from a complete one). */
  c1 = put_chunked (s, "/c.bin", huge);
  g_assert_cmpuint (c1->status, ==, 411);
  g_assert_false (g_file_test (root_path (s, "c.bin"), G_FILE_TEST_EXISTS));
  c2 = put_chunked (s, "/d.bin", ok);
  g_assert_cmpuint (c2->status, ==, 411);
  g_assert_false (g_file_test (root_path (s, "d.bin"), G_FILE_TEST_EXISTS));

  /* Refused from the headers alone, before the body is sent (Expect: 100-continue). */
  raw = lb_test_raw_request (s->port,
                           "PUT /e.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5000000\r\n"
                           "Expect: 100-continue", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (raw->status, ==, 413);
  g_assert_cmpuint (lb_test_server_count_temps (s->root), ==, 0);
}

/* A client that goes away mid-upload: the target is untouched and the temporary removed. */
void
test_put_aborted (void)
{
  g_autoptr(Store) s = store_new ();
  g_autoptr(GBytes) old = lb_test_bytes (5000, 21);
  g_autoptr(GBytes) part = lb_test_bytes (40000, 22);
  g_autoptr(GSocketConnection) conn = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *head = NULL;
  g_autofree char *victim = root_path (s, "victim.bin");
  guint i;

  put_file (s, "victim.bin", old);
  store_run (s);
  head = g_strdup_printf ("PUT /victim.bin HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Length: 100000\r\n\r\n",
                          (guint) s->port);
  conn = raw_connect (s->port, NULL);
  g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (conn)), head, strlen (head),
                             NULL, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (conn)),
                             g_bytes_get_data (part, NULL), g_bytes_get_size (part), NULL, NULL, &error);
  g_assert_no_error (error);
  /* Bounded waits for events (the temporary appears, then goes), not timing thresholds. */
  for (i = 0; i < 3000 && lb_test_server_count_temps (s->root) == 0; i++)
    g_usleep (10000);
  g_assert_cmpuint (lb_test_server_count_temps (s->root), ==, 1);
  g_io_stream_close (G_IO_STREAM (conn), NULL, &error);
  g_assert_no_error (error);
  for (i = 0; i < 3000 && lb_test_server_count_temps (s->root) > 0; i++)
    g_usleep (10000);
  g_assert_cmpuint (lb_test_server_count_temps (s->root), ==, 0);
  {
    g_autoptr(GBytes) now = lb_test_read_file (victim);
    g_autoptr(Reply) r = request (s, "GET", "/victim.bin", NULL, NULL);
    g_assert_true (g_bytes_equal (now, old));
    g_assert_cmpuint (r->status, ==, 200);
    g_assert_true (g_bytes_equal (r->body, old));
  }
}

/* 507: a real full file system needs a tiny tmpfs, which only root can mount. */
void
test_disk_full (void)
{
  g_autoptr(Store) s = NULL;
  g_autofree char *base = NULL;
  g_autofree char *mnt = NULL;
  g_autoptr(GBytes) old = lb_test_bytes (400000, 18);
  g_autoptr(GBytes) small = lb_test_bytes (100000, 20);
  g_autoptr(GBytes) big = lb_test_bytes (3 * 1024 * 1024, 19);
  g_autoptr(GError) error = NULL;
  int status = 0;
  gboolean mounted;

  if (geteuid () != 0)
    {
      g_test_skip ("507 needs a full file system: mounting a 1 MiB tmpfs needs root");
      return;
    }
  base = lb_test_make_tmpdir ("full");
  mnt = g_build_filename (base, "mnt", NULL);
  g_assert_cmpint (g_mkdir (mnt, 0755), ==, 0);
  {
    const char *argv[] = { "mount", "-t", "tmpfs", "-o", "size=1m", "lb-store-test", mnt, NULL };
    g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                  NULL, NULL, NULL, NULL, &status, &error);
    mounted = error == NULL && g_spawn_check_wait_status (status, NULL);
    g_clear_error (&error);
  }
  if (!mounted)
    {
      lb_test_remove_tree (base);
      g_test_skip ("cannot mount a tmpfs here (container without CAP_SYS_ADMIN?)");
      return;
    }

  {
    g_autofree char *p = g_build_filename (mnt, "old.bin", NULL);
    g_autoptr(GBytes) d = NULL;

    g_file_set_contents (p, g_bytes_get_data (old, NULL), (gssize) g_bytes_get_size (old), &error);
    g_assert_no_error (error);
    s = g_new0 (Store, 1);
    s->base = lb_test_make_tmpdir ("full-store");
    s->root = g_strdup (mnt);
    s->outside = g_strdup (base);
    store_init_server (s);
    store_run (s);

    g_assert_cmpuint (status_of (s, "PUT", "/old.bin", big, NULL), ==, 507);
    d = lb_test_read_file (p);
    g_assert_true (g_bytes_equal (d, old));
    g_assert_cmpuint (status_of (s, "PUT", "/new.bin", big, NULL), ==, 507);
    g_assert_false (g_file_test (root_path (s, "new.bin"), G_FILE_TEST_EXISTS));
    g_assert_cmpuint (lb_test_server_count_temps (mnt), ==, 0);
    /* Space came back (the temporary was removed): a small upload still works. */
    g_assert_cmpuint (status_of (s, "PUT", "/small.bin", small, NULL), ==, 201);
    /* 1 MiB holds old + small + one copy (900 kB), not a second copy. */
    g_assert_cmpuint (status_of (s, "COPY", "/old.bin", NULL, "Destination", "/copy1.bin", NULL), ==, 201);
    g_assert_cmpuint (status_of (s, "COPY", "/old.bin", NULL, "Destination", "/copy2.bin", NULL), ==, 507);
    g_assert_false (g_file_test (root_path (s, "copy2.bin"), G_FILE_TEST_EXISTS));
    g_assert_cmpuint (lb_test_server_count_temps (mnt), ==, 0);
  }
  {
    const char *argv[] = { "umount", mnt, NULL };
    store_stop (s);
    g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, &error);
    g_assert_no_error (error);
  }
  lb_test_remove_tree (base);
}
