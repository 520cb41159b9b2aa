/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-store-server"

/*
 * lightbox-store in-process: a real LbStoreServer on 127.0.0.1 (port 0) in its own thread and
 * main context, driven by libsoup client requests (and raw sockets where a client library
 * would normalise the request away).
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include <libsoup/soup.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

#include "lb-store-auth.h"
#include "lb-store-server.h"
#include "lb-store.h"
#include "store-test-tls.h"
#include "store-test-util.h"

/* A declarative filter in the engine's format (plugins/README.md §4). */
static const char valid_filter[] =
  "[Filter]\nId=org.example.test.sharpen\nName=Test sharpen\nCategory=Enhance\nType=kernel\n\n"
  "[Kernel]\nWidth=3\nHeight=3\nRow1= 0 -1  0\nRow2=-1  5 -1\nRow3= 0 -1  0\nDivisor=1\n";

typedef struct {
  char          *base;    /* temp dir holding root/ and outside/ */
  char          *root;
  char          *outside; /* a secret next to the root that must stay unreachable */
  char          *log_path;
  LbStoreServer *server;
  GThread       *thread;
  GMainContext  *ctx;
  GMainLoop     *loop;
  GMutex         lock;
  GCond          cond;
  gboolean       ready;
  GError        *listen_error;
  char          *url;
  guint16        port;
  SoupSession   *session;
} Store;

typedef struct {
  guint               status;
  SoupMessageHeaders *headers;
  GBytes             *body;
} Reply;

static void
reply_free (Reply *r)
{
  if (r == NULL)
    return;
  soup_message_headers_unref (r->headers);
  g_bytes_unref (r->body);
  g_free (r);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Reply, reply_free)

/* A raw connection to the server on 127.0.0.1:@port (never through a proxy); @in (optional)
 * reads lines ending in CR LF from it. */
static GSocketConnection *
raw_connect (guint16 port, GDataInputStream **in)
{
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GError) error = NULL;
  GSocketConnection *conn;

  g_socket_client_set_enable_proxy (client, FALSE);
  conn = g_socket_client_connect_to_host (client, "127.0.0.1", port, NULL, &error);
  g_assert_no_error (error);
  if (in != NULL)
    {
      *in = g_data_input_stream_new (g_io_stream_get_input_stream (G_IO_STREAM (conn)));
      g_data_input_stream_set_newline_type (*in, G_DATA_STREAM_NEWLINE_TYPE_CR_LF);
    }
  return conn;
}

static void
write_file (const char *path, const char *text)
{
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

/* The server for s->root and what the test thread talks to it with; store_run() starts it. */
static void
store_init_server (Store *s)
{
  g_autoptr(GError) error = NULL;

  s->server = lb_store_server_new (s->root, &error);
  g_assert_no_error (error);
  g_mutex_init (&s->lock);
  g_cond_init (&s->cond);
  s->ctx = g_main_context_new ();
  s->loop = g_main_loop_new (s->ctx, FALSE);
  /* Loopback only: never through a proxy the environment might name. */
  s->session = soup_session_new_with_options ("proxy-resolver", NULL, NULL);
}

static Store *
store_new (void)
{
  Store *s = g_new0 (Store, 1);
  g_autofree char *filters = NULL;
  g_autofree char *secret = NULL;

  s->base = store_make_tmpdir ("store");
  s->root = g_build_filename (s->base, "root", NULL);
  s->outside = g_build_filename (s->base, "outside", NULL);
  g_assert_cmpint (g_mkdir (s->root, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (s->outside, 0755), ==, 0);
  secret = g_build_filename (s->outside, "secret.txt", NULL);
  write_file (secret, "TOP-SECRET-OUTSIDE-THE-ROOT");
  filters = g_build_filename (s->root, ".lightbox", "filters", NULL);
  g_assert_cmpint (g_mkdir_with_parents (filters, 0755), ==, 0);
  store_init_server (s);
  return s;
}

static gpointer
server_thread (gpointer data)
{
  Store *s = data;
  GError *error = NULL;
  gboolean ok;

  g_main_context_push_thread_default (s->ctx);
  ok = lb_store_server_listen (s->server, "127.0.0.1", 0, &error);
  g_mutex_lock (&s->lock);
  s->ready = TRUE;
  s->listen_error = error;
  if (ok)
    s->url = g_strdup (lb_store_server_get_url (s->server));
  g_cond_signal (&s->cond);
  g_mutex_unlock (&s->lock);
  if (ok)
    g_main_loop_run (s->loop);
  lb_store_server_stop (s->server);
  g_clear_object (&s->server);
  while (g_main_context_iteration (s->ctx, FALSE))
    ;
  g_main_context_pop_thread_default (s->ctx);
  return NULL;
}

static void
store_run (Store *s)
{
  s->thread = g_thread_new ("store", server_thread, s);
  g_mutex_lock (&s->lock);
  while (!s->ready)
    g_cond_wait (&s->cond, &s->lock);
  g_mutex_unlock (&s->lock);
  g_assert_no_error (s->listen_error);
  g_assert_true (g_str_has_prefix (s->url, "http://127.0.0.1:") || g_str_has_prefix (s->url, "https://127.0.0.1:"));
  s->port = store_url_port (s->url);
  g_assert_cmpuint (s->port, >, 0);
}

/* Stops the server thread (idempotent); files stay until store_free(). */
static void
store_stop (Store *s)
{
  if (s->thread == NULL)
    return;
  g_main_loop_quit (s->loop);
  g_thread_join (s->thread);
  s->thread = NULL;
}

static void
store_free (Store *s)
{
  store_stop (s);
  g_object_unref (s->session);
  g_main_loop_unref (s->loop);
  g_main_context_unref (s->ctx);
  g_mutex_clear (&s->lock);
  g_cond_clear (&s->cond);
  store_rm_rf (s->base);
  g_free (s->base);
  g_free (s->root);
  g_free (s->outside);
  g_free (s->log_path);
  g_free (s->url);
  g_free (s);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Store, store_free)

static char *
root_path (Store *s, const char *rel)
{
  return g_build_filename (s->root, rel, NULL);
}

/* One request; @path is the already percent-encoded absolute path. Extra headers come as
 * NULL-terminated name/value pairs. */
static Reply *
request_v (Store *s, const char *method, const char *path, GBytes *body, va_list ap)
{
  g_autofree char *url = g_strconcat (s->url, path + 1, NULL);
  g_autoptr(SoupMessage) msg = soup_message_new (method, url);
  g_autoptr(GError) error = NULL;
  const char *name;
  Reply *r;

  g_assert_nonnull (msg);
  soup_message_add_flags (msg, SOUP_MESSAGE_NO_REDIRECT);
  while ((name = va_arg (ap, const char *)) != NULL)
    soup_message_headers_replace (soup_message_get_request_headers (msg), name, va_arg (ap, const char *));
  if (body != NULL)
    soup_message_set_request_body_from_bytes (msg, NULL, body);
  r = g_new0 (Reply, 1);
  r->body = soup_session_send_and_read (s->session, msg, NULL, &error);
  g_assert_no_error (error);
  r->status = soup_message_get_status (msg);
  r->headers = soup_message_headers_ref (soup_message_get_response_headers (msg));
  return r;
}

static Reply *
request (Store *s, const char *method, const char *path, GBytes *body, ...)
{
  va_list ap;
  Reply *r;

  va_start (ap, body);
  r = request_v (s, method, path, body, ap);
  va_end (ap);
  return r;
}

static guint
status_of (Store *s, const char *method, const char *path, GBytes *body, ...)
{
  va_list ap;
  g_autoptr(Reply) r = NULL;

  va_start (ap, body);
  r = request_v (s, method, path, body, ap);
  va_end (ap);
  return r->status;
}

/* NUL-terminated copy of a body; an empty GBytes may hold a NULL pointer. */
static char *
body_text (GBytes *b)
{
  gsize n = 0;
  const char *d = g_bytes_get_data (b, &n);

  return g_strndup (d != NULL ? d : "", n);
}

static void
put_file (Store *s, const char *rel, GBytes *content)
{
  g_autofree char *p = root_path (s, rel);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (p, g_bytes_get_data (content, NULL), (gssize) g_bytes_get_size (content), &error);
  g_assert_no_error (error);
}

/* ---------------------------------------------------------------------------------------- */

static void
test_get_head (void)
{
  g_autoptr(Store) s = store_new ();
  g_autoptr(GBytes) content = store_test_bytes (5000, 1);
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

static void
test_range (void)
{
  g_autoptr(Store) s = store_new ();
  g_autoptr(GBytes) content = store_test_bytes (1000, 2);
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

static void
test_conditional (void)
{
  g_autoptr(Store) s = store_new ();
  g_autoptr(GBytes) content = store_test_bytes (300, 3);
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

static void
test_put (void)
{
  g_autoptr(Store) s = store_new ();
  g_autoptr(GBytes) v1 = store_test_bytes (200000, 4);
  g_autoptr(GBytes) v2 = store_test_bytes (150000, 5);
  g_autoptr(GBytes) v3 = store_test_bytes (1000, 6);
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
  on_disk = store_read_file (p);
  g_assert_true (g_bytes_equal (on_disk, v1));
  head = request (s, "HEAD", "/up.bin", NULL, NULL);
  g_assert_cmpstr (soup_message_headers_get_one (head->headers, "ETag"), ==, etag1);

  /* Conditional writes that must not touch the file. */
  g_assert_cmpuint (status_of (s, "PUT", "/up.bin", v2, "If-None-Match", "*", NULL), ==, 412);
  g_assert_cmpuint (status_of (s, "PUT", "/up.bin", v2, "If-Match", "\"bogus\"", NULL), ==, 412);
  g_assert_cmpuint (status_of (s, "PUT", "/new.bin", v2, "If-Match", "*", NULL), ==, 412);
  g_clear_pointer (&on_disk, g_bytes_unref);
  on_disk = store_read_file (p);
  g_assert_true (g_bytes_equal (on_disk, v1));
  g_assert_false (g_file_test (root_path (s, "new.bin"), G_FILE_TEST_EXISTS));

  /* Replacing with the ETag seen: 204, and the ETag changes. */
  replaced = request (s, "PUT", "/up.bin", v2, "If-Match", etag1, NULL);
  g_assert_cmpuint (replaced->status, ==, 204);
  g_assert_cmpstr (soup_message_headers_get_one (replaced->headers, "ETag"), !=, etag1);
  g_clear_pointer (&on_disk, g_bytes_unref);
  on_disk = store_read_file (p);
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
  g_assert_cmpuint (store_count_temps (s->root), ==, 0);
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

static void
test_put_limit (void)
{
  g_autoptr(Store) s = store_new ();
  g_autoptr(GBytes) ok = store_test_bytes (1000, 7);
  g_autoptr(GBytes) big = store_test_bytes (1001, 8);
  g_autoptr(GBytes) huge = store_test_bytes (300000, 9);
  g_autoptr(Reply) c1 = NULL;
  g_autoptr(Reply) c2 = NULL;
  g_autoptr(StoreRawReply) raw = NULL;
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
    g_autoptr(GBytes) d = store_read_file (p);
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
  raw = store_raw_request (s->port,
                           "PUT /e.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5000000\r\n"
                           "Expect: 100-continue", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (raw->status, ==, 413);
  g_assert_cmpuint (store_count_temps (s->root), ==, 0);
}

/* A client that goes away mid-upload: the target is untouched and the temporary removed. */
static void
test_put_aborted (void)
{
  g_autoptr(Store) s = store_new ();
  g_autoptr(GBytes) old = store_test_bytes (5000, 21);
  g_autoptr(GBytes) part = store_test_bytes (40000, 22);
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
  for (i = 0; i < 3000 && store_count_temps (s->root) == 0; i++)
    g_usleep (10000);
  g_assert_cmpuint (store_count_temps (s->root), ==, 1);
  g_io_stream_close (G_IO_STREAM (conn), NULL, &error);
  g_assert_no_error (error);
  for (i = 0; i < 3000 && store_count_temps (s->root) > 0; i++)
    g_usleep (10000);
  g_assert_cmpuint (store_count_temps (s->root), ==, 0);
  {
    g_autoptr(GBytes) now = store_read_file (victim);
    g_autoptr(Reply) r = request (s, "GET", "/victim.bin", NULL, NULL);
    g_assert_true (g_bytes_equal (now, old));
    g_assert_cmpuint (r->status, ==, 200);
    g_assert_true (g_bytes_equal (r->body, old));
  }
}

static guint
count_open_fds (void)
{
  g_autoptr(GDir) d = g_dir_open ("/proc/self/fd", 0, NULL);
  guint n = 0;

  g_assert_nonnull (d);
  while (g_dir_read_name (d) != NULL)
    n++;
  return n;
}

/* Reads one response (headers, then Content-Length bytes) from a keep-alive connection. */
static guint
read_one_response (GDataInputStream *in, GBytes **body_out)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *status_line = g_data_input_stream_read_line (in, NULL, NULL, &error);
  guint status = 0;
  gsize length = 0;
  g_autofree guint8 *buf = NULL;

  g_assert_no_error (error);
  g_assert_nonnull (status_line);
  g_assert_cmpint (sscanf (status_line, "HTTP/1.1 %u", &status), ==, 1);
  for (;;)
    {
      g_autofree char *line = g_data_input_stream_read_line (in, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_nonnull (line);
      g_strchomp (line);
      if (line[0] == '\0')
        break;
      if (g_ascii_strncasecmp (line, "Content-Length:", 15) == 0)
        length = (gsize) g_ascii_strtoull (line + 15, NULL, 10);
    }
  buf = g_malloc (length + 1);
  g_input_stream_read_all (G_INPUT_STREAM (in), buf, length, NULL, NULL, &error);
  g_assert_no_error (error);
  *body_out = g_bytes_new (buf, length);
  return status;
}

/* Clients that close idle keep-alive connections must not leave descriptors behind (libsoup
 * 3.2 alone leaks one per connection; see watch_idle_connection in lb-store-server.c). */
static void
test_keepalive_close (void)
{
  g_autoptr(Store) s = store_new ();
  g_autoptr(GBytes) content = store_test_bytes (3000, 23);
  g_autofree char *req = NULL;
  guint before = 0, after = 0;

  put_file (s, "k.bin", content);
  store_run (s);
  req = g_strdup_printf ("GET /k.bin HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n", (guint) s->port);
  /* One warm-up round so lazily opened descriptors (mime database, …) are counted in. */
  for (guint round = 0; round < 2; round++)
    {
      if (round == 1)
        before = count_open_fds ();
      for (guint i = 0; i < (round == 0 ? 5u : 100u); i++)
        {
          g_autoptr(GDataInputStream) in = NULL;
          g_autoptr(GSocketConnection) conn = raw_connect (s->port, &in);
          g_autoptr(GError) error = NULL;
          GOutputStream *out = g_io_stream_get_output_stream (G_IO_STREAM (conn));

          /* Two requests on the same connection: keep-alive still works. */
          for (guint k = 0; k < 2; k++)
            {
              g_autoptr(GBytes) body = NULL;

              g_output_stream_write_all (out, req, strlen (req), NULL, NULL, &error);
              g_assert_no_error (error);
              g_assert_cmpuint (read_one_response (in, &body), ==, 200);
              g_assert_true (g_bytes_equal (body, content));
            }
          g_io_stream_close (G_IO_STREAM (conn), NULL, &error);
          g_assert_no_error (error);
        }
    }
  /* Bounded wait for the server to notice the closes (an event, not a timing threshold). */
  for (guint i = 0; i < 1000; i++)
    {
      after = count_open_fds ();
      if (after <= before + 2)
        break;
      g_usleep (10000);
    }
  g_test_message ("descriptors before %u, after 100 closed keep-alive connections %u", before, after);
  g_assert_cmpuint (after, <=, before + 2);
}

/* One raw connection through a whole edit: create (201), replace (204), read, delete (204),
 * read (404). libsoup 3.2 took each 204 for an EOF-delimited answer and closed the connection
 * behind it, so the request after it found the connection gone. */
static void
test_keepalive_204 (void)
{
  g_autoptr(Store) s = store_new ();
  g_autoptr(GBytes) v1 = store_test_bytes (700, 41);
  g_autoptr(GBytes) v2 = store_test_bytes (900, 42);
  g_autoptr(GSocketConnection) conn = NULL;
  g_autoptr(GDataInputStream) in = NULL;
  g_autoptr(GError) error = NULL;
  GOutputStream *out;
  static const guint expected[] = { 201, 204, 200, 204, 404 };

  store_run (s);
  conn = raw_connect (s->port, &in);
  out = g_io_stream_get_output_stream (G_IO_STREAM (conn));
  for (guint step = 0; step < G_N_ELEMENTS (expected); step++)
    {
      GBytes *put = step == 0 ? v1 : step == 1 ? v2 : NULL;
      const char *method = put != NULL ? "PUT" : step == 3 ? "DELETE" : "GET";
      g_autofree char *head = g_strdup_printf ("%s /ka.bin HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                               "Content-Length: %zu\r\n\r\n", method,
                                               (guint) s->port,
                                               put != NULL ? g_bytes_get_size (put) : (gsize) 0);
      g_autoptr(GBytes) body = NULL;

      g_output_stream_write_all (out, head, strlen (head), NULL, NULL, &error);
      g_assert_no_error (error);
      if (put != NULL)
        {
          g_output_stream_write_all (out, g_bytes_get_data (put, NULL), g_bytes_get_size (put),
                                     NULL, NULL, &error);
          g_assert_no_error (error);
        }
      g_assert_cmpuint (read_one_response (in, &body), ==, expected[step]);
      if (step == 2)
        g_assert_true (g_bytes_equal (body, v2));
    }
}

/* Keep-alive connections left idle longer than the timeout. lightbox-store with libsoup 3.2
 * crashed (SIGSEGV in libsoup) when a client closed such a connection, which libsoup's socket
 * timeout had already torn down half-way, and a client that sent its next request on one got
 * no answer at all. Now the server closes idle connections itself after the timeout. */
static GSocketConnection *
connect_and_get (Store *s, GDataInputStream **in_out)
{
  g_autofree char *req = g_strdup_printf ("GET /idle.bin HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n",
                                          (guint) s->port);
  g_autoptr(GBytes) body = NULL;
  g_autoptr(GError) error = NULL;
  GSocketConnection *conn = raw_connect (s->port, in_out);

  /* A guard against a hang only (a broken server never answers), not a speed threshold. */
  g_socket_set_timeout (g_socket_connection_get_socket (conn), 60);
  g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (conn)), req, strlen (req),
                             NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (read_one_response (*in_out, &body), ==, 200);
  g_assert_cmpuint (g_bytes_get_size (body), ==, 1000);
  return conn;
}

static void
test_keepalive_idle_timeout (void)
{
  g_autoptr(Store) s = store_new ();
  g_autoptr(GBytes) content = store_test_bytes (1000, 77);
  g_autoptr(GSocketConnection) a = NULL, b = NULL, c = NULL;
  g_autoptr(GDataInputStream) ain = NULL, bin = NULL, cin = NULL;
  g_autoptr(GError) error = NULL;
  char byte;
  gssize n;

  put_file (s, "idle.bin", content);
  lb_store_server_set_timeout (s->server, 1);
  store_run (s);
  a = connect_and_get (s, &ain);
  b = connect_and_get (s, &bin);
  g_usleep (2500 * 1000); /* idle for 2.5 timeouts */
  /* a: the client closes its idle connection (what crashed the server) */
  g_io_stream_close (G_IO_STREAM (a), NULL, &error);
  g_assert_no_error (error);
  /* b: the server has closed it: end-of-file, not silence */
  n = g_input_stream_read (G_INPUT_STREAM (bin), &byte, 1, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (n, ==, 0);
  /* and the server still serves new connections */
  c = connect_and_get (s, &cin);
}

/* TCP sockets (either end, any state but LISTEN) of 127.0.0.1:@port in /proc/net/tcp: a
 * connection that was closed stays there in TIME_WAIT, so the count says how many were opened. */
static guint
count_tcp_connections (guint16 port)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  guint n = 0;

  g_assert_true (g_file_get_contents ("/proc/net/tcp", &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 1; lines[i] != NULL; i++)
    {
      g_auto(GStrv) f = g_strsplit_set (g_strstrip (lines[i]), " ", -1);
      g_autoptr(GPtrArray) cols = g_ptr_array_new ();
      const char *local, *remote;

      for (guint k = 0; f[k] != NULL; k++)
        if (f[k][0] != '\0')
          g_ptr_array_add (cols, f[k]);
      if (cols->len < 4 || strcmp (cols->pdata[3], "0A") == 0)
        continue;
      local = strchr (cols->pdata[1], ':');
      remote = strchr (cols->pdata[2], ':');
      if ((local != NULL && g_ascii_strtoull (local + 1, NULL, 16) == port)
          || (remote != NULL && g_ascii_strtoull (remote + 1, NULL, 16) == port))
        n++;
    }
  return n;
}

static void
got_result (GObject *source, GAsyncResult *result, gpointer data)
{
  *(GAsyncResult **) data = g_object_ref (result);
}

static GAsyncResult *
wait_result (GAsyncResult **slot)
{
  while (*slot == NULL)
    g_main_context_iteration (NULL, TRUE);
  return *slot;
}

/* LbStore (the webdav client) making a folder (201), writing the same file three times (201,
 * 204, 204), reading it back and stat-ing it keeps one connection: libsoup 3.2 on both ends
 * dropped it after every 204, and its client also drops a connection whose response stream is
 * closed before its end. */
static void
test_client_keepalive (void)
{
  g_autoptr(Store) s = store_new ();
  g_autoptr(LbStoreOptions) opt = lb_store_options_new ();
  g_autoptr(LbStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *uri = NULL;
  g_autoptr(GBytes) last = NULL;

  store_run (s);
  opt->type = g_strdup ("webdav");
  store = lb_store_new_for_uri (s->url, opt, &error);
  g_assert_no_error (error);
  uri = g_strconcat (s->url, g_str_has_suffix (s->url, "/") ? "" : "/", "ka-dir/client-ka.bin",
                     NULL);
  {
    g_autofree char *dir = g_strconcat (s->url, g_str_has_suffix (s->url, "/") ? "" : "/",
                                        "ka-dir/", NULL);
    g_autoptr(LbStoreEntry) entry = NULL;
    GAsyncResult *res = NULL;

    lb_store_mkdir_async (store, dir, NULL, got_result, &res);
    entry = lb_store_mkdir_finish (store, wait_result (&res), &error);
    g_clear_object (&res);
    g_assert_no_error (error);
    g_assert_nonnull (entry);
  }
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(GBytes) data = store_test_bytes (2000 + i, 50 + i);
      g_autoptr(GInputStream) source = g_memory_input_stream_new_from_bytes (data);
      g_autoptr(LbStoreEntry) entry = NULL;
      GAsyncResult *res = NULL;

      lb_store_write_async (store, uri, source, (gint64) g_bytes_get_size (data),
                            "application/octet-stream", LB_STORE_WRITE_REPLACE, NULL, NULL, NULL,
                            NULL, got_result, &res);
      entry = lb_store_write_finish (store, wait_result (&res), &error);
      g_clear_object (&res);
      g_assert_no_error (error);
      g_assert_nonnull (entry);
      g_clear_pointer (&last, g_bytes_unref);
      last = g_bytes_ref (data);
    }
  {
    GAsyncResult *res = NULL;
    g_autoptr(GInputStream) stream = NULL;
    g_autoptr(GBytes) got = NULL;

    lb_store_read_async (store, uri, NULL, NULL, NULL, got_result, &res);
    stream = lb_store_read_finish (store, wait_result (&res), NULL, &error);
    g_clear_object (&res);
    g_assert_no_error (error);
    got = g_input_stream_read_bytes (stream, 1 << 20, NULL, &error);
    g_assert_no_error (error);
    g_assert_true (g_bytes_equal (got, last));
    g_input_stream_close (stream, NULL, NULL);
  }
  {
    GAsyncResult *res = NULL;
    g_autoptr(LbStoreEntry) entry = NULL;

    lb_store_stat_async (store, uri, NULL, got_result, &res);
    entry = lb_store_stat_finish (store, wait_result (&res), &error);
    g_clear_object (&res);
    g_assert_no_error (error);
    g_assert_cmpint (lb_store_entry_get_size (entry), ==, (gint64) g_bytes_get_size (last));
  }
  /* Both ends of one connection, nothing in TIME_WAIT. */
  g_assert_cmpuint (count_tcp_connections (s->port), ==, 2);
}

typedef struct {
  Store  *store;
  GBytes *versions[3];
  guint   rounds;
  gint    failures;
  gint    finished;
} Writers;

static gpointer
writer_thread (gpointer data)
{
  Writers *w = data;
  g_autoptr(SoupSession) session = soup_session_new_with_options ("proxy-resolver", NULL, NULL);
  g_autofree char *url = g_strconcat (w->store->url, "shared.bin", NULL);

  for (guint r = 0; r < w->rounds; r++)
    for (guint v = 0; v < 3; v++)
      {
        g_autoptr(SoupMessage) msg = soup_message_new ("PUT", url);
        g_autoptr(GBytes) reply = NULL;

        soup_message_set_request_body_from_bytes (msg, NULL, w->versions[(v + r) % 3]);
        reply = soup_session_send_and_read (session, msg, NULL, NULL);
        if (reply == NULL || (soup_message_get_status (msg) != 201 && soup_message_get_status (msg) != 204))
          g_atomic_int_inc (&w->failures);
      }
  g_atomic_int_inc (&w->finished);
  return NULL;
}

/* Readers racing two writers only ever see a complete version, never a mix or a prefix. */
static void
test_atomic_concurrent (void)
{
  g_autoptr(Store) s = store_new ();
  Writers w = { 0 };
  GThread *t1, *t2;
  guint reads = 0;

  w.store = s;
  w.rounds = 15;
  for (guint v = 0; v < 3; v++)
    w.versions[v] = store_test_bytes (200000 * (v + 1), 40 + v);
  put_file (s, "shared.bin", w.versions[0]);
  store_run (s);
  t1 = g_thread_new ("writer1", writer_thread, &w);
  t2 = g_thread_new ("writer2", writer_thread, &w);
  /* Read until both writers are done (each does a bounded number of PUTs). */
  do
    {
      g_autoptr(Reply) r = request (s, "GET", "/shared.bin", NULL, NULL);
      gboolean known = FALSE;

      g_assert_cmpuint (r->status, ==, 200);
      for (guint v = 0; v < 3; v++)
        known = known || g_bytes_equal (r->body, w.versions[v]);
      g_assert_true (known);
      reads++;
    }
  while (g_atomic_int_get (&w.finished) < 2);
  g_thread_join (t1);
  g_thread_join (t2);
  g_test_message ("%u complete reads during %u racing PUTs", reads, 2 * 3 * w.rounds);
  g_assert_cmpint (w.failures, ==, 0);
  g_assert_cmpuint (store_count_temps (s->root), ==, 0);
  for (guint v = 0; v < 3; v++)
    g_bytes_unref (w.versions[v]);
}

static void
test_dav_methods (void)
{
  g_autoptr(Store) s = store_new ();
  g_autoptr(GBytes) a = store_test_bytes (4000, 10);
  g_autoptr(GBytes) b = store_test_bytes (3000, 11);
  g_autoptr(GBytes) body = g_bytes_new_static ("<x/>", 4);
  g_autofree char *dest = NULL;
  g_autofree char *other = NULL;

  store_run (s);
#define DEST(p) (g_free (dest), dest = g_strconcat (s->url, (p) + 1, NULL))

  /* MKCOL */
  g_assert_cmpuint (status_of (s, "MKCOL", "/col/", NULL, NULL), ==, 201);
  g_assert_true (g_file_test (root_path (s, "col"), G_FILE_TEST_IS_DIR));
  g_assert_cmpuint (status_of (s, "MKCOL", "/col/", NULL, NULL), ==, 405);
  g_assert_cmpuint (status_of (s, "MKCOL", "/x/y/", NULL, NULL), ==, 409);
  g_assert_cmpuint (status_of (s, "MKCOL", "/withbody/", body, NULL), ==, 415);
  g_assert_cmpuint (status_of (s, "MKCOL", "/.secret/", NULL, NULL), ==, 403);
  g_assert_cmpuint (status_of (s, "PUT", "/col/a.bin", a, NULL), ==, 201);
  g_assert_cmpuint (status_of (s, "PUT", "/b.bin", b, NULL), ==, 201);
  g_assert_cmpuint (status_of (s, "MKCOL", "/b.bin", NULL, NULL), ==, 405);

  /* COPY */
  g_assert_cmpuint (status_of (s, "COPY", "/b.bin", NULL, "Destination", DEST ("/col/b2.bin"), NULL), ==, 201);
  g_assert_cmpuint (status_of (s, "COPY", "/b.bin", NULL, "Destination", DEST ("/col/b2.bin"),
                               "Overwrite", "F", NULL), ==, 412);
  g_assert_cmpuint (status_of (s, "COPY", "/col/a.bin", NULL, "Destination", DEST ("/col/b2.bin"),
                               "Overwrite", "T", NULL), ==, 204);
  {
    g_autofree char *p = root_path (s, "col/b2.bin");
    g_autoptr(GBytes) d = store_read_file (p);
    g_assert_true (g_bytes_equal (d, a));
  }
  g_assert_cmpuint (status_of (s, "COPY", "/b.bin", NULL, "Destination", DEST ("/nope/b.bin"), NULL), ==, 409);
  g_assert_cmpuint (status_of (s, "COPY", "/missing", NULL, "Destination", DEST ("/m2"), NULL), ==, 404);
  g_assert_cmpuint (status_of (s, "COPY", "/b.bin", NULL, NULL), ==, 400);
  g_assert_cmpuint (status_of (s, "COPY", "/b.bin", NULL, "Destination", DEST ("/b.bin"), NULL), ==, 403);
  g_assert_cmpuint (status_of (s, "COPY", "/col/", NULL, "Destination", DEST ("/col/sub/"), NULL), ==, 403);
  g_assert_cmpuint (status_of (s, "COPY", "/col/", NULL, "Destination", DEST ("/col1/"), "Depth", "1", NULL), ==, 400);
  other = g_strdup_printf ("http://127.0.0.2:%u/elsewhere", (guint) s->port);
  g_assert_cmpuint (status_of (s, "COPY", "/b.bin", NULL, "Destination", other, NULL), ==, 502);
  g_assert_cmpuint (status_of (s, "COPY", "/b.bin", NULL, "Destination", DEST ("/.lbput-x"), NULL), ==, 403);
  /* Depth 0 copies the collection without members; infinity copies everything. */
  g_assert_cmpuint (status_of (s, "COPY", "/col/", NULL, "Destination", DEST ("/shallow/"), "Depth", "0", NULL), ==, 201);
  g_assert_true (g_file_test (root_path (s, "shallow"), G_FILE_TEST_IS_DIR));
  g_assert_false (g_file_test (root_path (s, "shallow/a.bin"), G_FILE_TEST_EXISTS));
  g_assert_cmpuint (status_of (s, "COPY", "/col/", NULL, "Destination", DEST ("/deep/"), NULL), ==, 201);
  {
    g_autofree char *p = root_path (s, "deep/a.bin");
    g_autoptr(GBytes) d = store_read_file (p);
    g_assert_true (g_bytes_equal (d, a));
  }
  /* Collection over an existing collection with Overwrite T: replaced, 204. */
  g_assert_cmpuint (status_of (s, "COPY", "/col/", NULL, "Destination", DEST ("/shallow/"), NULL), ==, 204);
  g_assert_true (g_file_test (root_path (s, "shallow/a.bin"), G_FILE_TEST_EXISTS));

  /* MOVE */
  g_assert_cmpuint (status_of (s, "MOVE", "/b.bin", NULL, "Destination", DEST ("/moved.bin"), NULL), ==, 201);
  g_assert_false (g_file_test (root_path (s, "b.bin"), G_FILE_TEST_EXISTS));
  g_assert_cmpuint (status_of (s, "MOVE", "/moved.bin", NULL, "Destination", DEST ("/col/a.bin"),
                               "Overwrite", "F", NULL), ==, 412);
  g_assert_cmpuint (status_of (s, "MOVE", "/moved.bin", NULL, "Destination", DEST ("/col/a.bin"), NULL), ==, 204);
  {
    g_autofree char *p = root_path (s, "col/a.bin");
    g_autoptr(GBytes) d = store_read_file (p);
    g_assert_true (g_bytes_equal (d, b));
  }
  g_assert_cmpuint (status_of (s, "MOVE", "/deep/", NULL, "Destination", DEST ("/deep2/"), NULL), ==, 201);
  g_assert_true (g_file_test (root_path (s, "deep2/a.bin"), G_FILE_TEST_EXISTS));
  g_assert_cmpuint (status_of (s, "MOVE", "/deep2/", NULL, "Destination", DEST ("/deep3/"), "Depth", "0", NULL), ==, 400);
  g_assert_cmpuint (status_of (s, "MOVE", "/deep2/", NULL, "Destination", DEST ("/no/deep3/"), NULL), ==, 409);

  /* DELETE (recursive for collections) */
  g_assert_cmpuint (status_of (s, "DELETE", "/col/", NULL, NULL), ==, 204);
  g_assert_false (g_file_test (root_path (s, "col"), G_FILE_TEST_EXISTS));
  g_assert_cmpuint (status_of (s, "DELETE", "/col/", NULL, NULL), ==, 404);
  g_assert_cmpuint (status_of (s, "DELETE", "/", NULL, NULL), ==, 403);
  g_assert_cmpuint (status_of (s, "DELETE", "/.lightbox/filters/", NULL, NULL), ==, 403);
  g_assert_cmpuint (status_of (s, "DELETE", "/deep2", NULL, NULL), ==, 204);

  /* OPTIONS and unknown methods */
  {
    g_autoptr(Reply) o = request (s, "OPTIONS", "/", NULL, NULL);
    const char *allow;
    g_assert_cmpuint (o->status, ==, 200);
    g_assert_cmpstr (soup_message_headers_get_one (o->headers, "DAV"), ==, "1");
    allow = soup_message_headers_get_one (o->headers, "Allow");
    g_assert_nonnull (allow);
    g_assert_nonnull (strstr (allow, "PROPFIND"));
    g_assert_nonnull (strstr (allow, "MKCOL"));
  }
  g_assert_cmpuint (status_of (s, "PATCH", "/x", NULL, NULL), ==, 405);

  /* PROPPATCH: no dead properties are kept, so every change is refused per property. */
  {
    const char *update = "<?xml version=\"1.0\"?><D:propertyupdate xmlns:D=\"DAV:\" xmlns:Z=\"urn:z\">"
                         "<D:set><D:prop><Z:author>x</Z:author></D:prop></D:set></D:propertyupdate>";
    g_autoptr(GBytes) ub = g_bytes_new_static (update, strlen (update));
    const char *not_update = "<D:propfind xmlns:D=\"DAV:\"/>";
    g_autoptr(GBytes) bad = g_bytes_new_static (not_update, strlen (not_update));
    g_autoptr(Reply) pp = request (s, "PROPPATCH", "/shallow/", ub, NULL);
    g_autofree char *xml = body_text (pp->body);

    g_assert_cmpuint (pp->status, ==, 207);
    g_assert_nonnull (strstr (xml, "author"));
    g_assert_nonnull (strstr (xml, "HTTP/1.1 403 Forbidden"));
    g_assert_cmpuint (status_of (s, "PROPPATCH", "/shallow/", bad, NULL), ==, 400);
    g_assert_cmpuint (status_of (s, "PROPPATCH", "/nothing", ub, NULL), ==, 404);
  }
  g_assert_cmpuint (store_count_temps (s->root), ==, 0);
#undef DEST
}

static xmlXPathObjectPtr
xpath (xmlXPathContextPtr xc, const char *expr)
{
  xmlXPathObjectPtr o = xmlXPathEvalExpression (BAD_CAST expr, xc);

  g_assert_nonnull (o);
  return o;
}

static char *
xpath_string (xmlXPathContextPtr xc, const char *expr)
{
  g_autofree char *wrapped = g_strdup_printf ("string(%s)", expr);
  xmlXPathObjectPtr o = xpath (xc, wrapped);
  char *s = g_strdup ((const char *) o->stringval);

  xmlXPathFreeObject (o);
  return s;
}

static double
xpath_number (xmlXPathContextPtr xc, const char *expr)
{
  xmlXPathObjectPtr o = xpath (xc, expr);
  double v = o->floatval;

  xmlXPathFreeObject (o);
  return v;
}

static void
test_propfind (void)
{
  g_autoptr(Store) s = store_new ();
  g_autoptr(GBytes) content = store_test_bytes (1234, 12);
  g_autoptr(Reply) r0 = NULL;
  g_autoptr(Reply) r1 = NULL;
  g_autoptr(Reply) get = NULL;
  g_autoptr(Reply) inf = NULL;
  g_autoptr(Reply) named = NULL;
  g_autoptr(Reply) names = NULL;
  g_autofree char *sub = root_path (s, "sub dir");
  g_autofree char *hidden = root_path (s, ".hidden");
  xmlDocPtr doc;
  xmlXPathContextPtr xc;
  g_autofree char *v = NULL;
  const char *prop_body =
    "<?xml version=\"1.0\"?><a:propfind xmlns:a=\"DAV:\" xmlns:z=\"urn:x-test\">"
    "<a:prop><a:getcontentlength/><a:getetag/><z:custom/></a:prop></a:propfind>";
  const char *name_body =
    "<?xml version=\"1.0\"?><propfind xmlns=\"DAV:\"><propname/></propfind>";
  g_autoptr(GBytes) prop_bytes = g_bytes_new_static (prop_body, strlen (prop_body));
  g_autoptr(GBytes) name_bytes = g_bytes_new_static (name_body, strlen (name_body));
  g_autoptr(GBytes) broken_xml = g_bytes_new_static ("<propfind", 9);
  g_autoptr(GBytes) wrong_root = g_bytes_new_static ("<x xmlns=\"DAV:\"/>", 17);

  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  put_file (s, "a&b 50%.png", content);
  write_file (hidden, "x");
  store_run (s);
  get = request (s, "GET", "/a%26b%2050%25.png", NULL, NULL);
  g_assert_cmpuint (get->status, ==, 200);

  r0 = request (s, "PROPFIND", "/a%26b%2050%25.png", NULL, "Depth", "0", NULL);
  g_assert_cmpuint (r0->status, ==, 207);

  r1 = request (s, "PROPFIND", "/", NULL, "Depth", "1", NULL);
  g_assert_cmpuint (r1->status, ==, 207);
  doc = xmlReadMemory (g_bytes_get_data (r1->body, NULL), (int) g_bytes_get_size (r1->body),
                       "ms.xml", NULL, XML_PARSE_NONET);
  g_assert_nonnull (doc);
  xc = xmlXPathNewContext (doc);
  xmlXPathRegisterNs (xc, BAD_CAST "d", BAD_CAST "DAV:");
  /* root + file + dir; the dotfile and .lightbox are hidden */
  g_assert_cmpfloat (xpath_number (xc, "count(/d:multistatus/d:response)"), ==, 3);
  g_assert_cmpfloat (xpath_number (xc, "count(//d:href[contains(., 'hidden') or contains(., 'lightbox')])"), ==, 0);
  v = xpath_string (xc, "//d:response[d:href='/a%26b%2050%25.png']//d:getcontentlength");
  g_assert_cmpstr (v, ==, "1234");
  g_clear_pointer (&v, g_free);
  v = xpath_string (xc, "//d:response[d:href='/a%26b%2050%25.png']//d:getetag");
  g_assert_cmpstr (v, ==, soup_message_headers_get_one (get->headers, "ETag"));
  g_clear_pointer (&v, g_free);
  v = xpath_string (xc, "//d:response[d:href='/a%26b%2050%25.png']//d:displayname");
  g_assert_cmpstr (v, ==, "a&b 50%.png");
  g_clear_pointer (&v, g_free);
  v = xpath_string (xc, "//d:response[d:href='/a%26b%2050%25.png']//d:getcontenttype");
  g_assert_cmpstr (v, ==, "image/png");
  g_clear_pointer (&v, g_free);
  v = xpath_string (xc, "//d:response[d:href='/a%26b%2050%25.png']//d:getlastmodified");
  g_assert_cmpstr (v, ==, soup_message_headers_get_one (get->headers, "Last-Modified"));
  g_clear_pointer (&v, g_free);
  v = xpath_string (xc, "//d:response[d:href='/a%26b%2050%25.png']//d:creationdate");
  g_assert_true (g_regex_match_simple ("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$", v, 0, 0));
  g_clear_pointer (&v, g_free);
  g_assert_cmpfloat (xpath_number (xc, "count(//d:response[d:href='/sub%20dir/']//d:resourcetype/d:collection)"), ==, 1);
  g_assert_cmpfloat (xpath_number (xc, "count(//d:response[d:href='/a%26b%2050%25.png']//d:resourcetype/*)"), ==, 0);
  g_assert_cmpfloat (xpath_number (xc, "count(//d:response[d:href='/']//d:resourcetype/d:collection)"), ==, 1);
  g_assert_cmpfloat (xpath_number (xc, "count(//d:status[. != 'HTTP/1.1 200 OK'])"), ==, 0);
  xmlXPathFreeContext (xc);
  xmlFreeDoc (doc);

  /* prop: known properties in a 200 propstat, the unknown one in a 404 propstat with its
   * own namespace. */
  named = request (s, "PROPFIND", "/a%26b%2050%25.png", prop_bytes,
                   "Depth", "0", "Content-Type", "application/xml", NULL);
  g_assert_cmpuint (named->status, ==, 207);
  doc = xmlReadMemory (g_bytes_get_data (named->body, NULL), (int) g_bytes_get_size (named->body),
                       "ms.xml", NULL, XML_PARSE_NONET);
  g_assert_nonnull (doc);
  xc = xmlXPathNewContext (doc);
  xmlXPathRegisterNs (xc, BAD_CAST "d", BAD_CAST "DAV:");
  xmlXPathRegisterNs (xc, BAD_CAST "z", BAD_CAST "urn:x-test");
  g_assert_cmpfloat (xpath_number (xc, "count(//d:propstat[d:status='HTTP/1.1 200 OK']/d:prop/*)"), ==, 2);
  g_assert_cmpfloat (xpath_number (xc, "count(//d:propstat[d:status='HTTP/1.1 404 Not Found']/d:prop/z:custom)"), ==, 1);
  g_assert_cmpfloat (xpath_number (xc, "count(//d:displayname)"), ==, 0);
  xmlXPathFreeContext (xc);
  xmlFreeDoc (doc);

  /* propname: names only, empty elements. */
  names = request (s, "PROPFIND", "/a%26b%2050%25.png", name_bytes,
                   "Depth", "0", NULL);
  g_assert_cmpuint (names->status, ==, 207);
  doc = xmlReadMemory (g_bytes_get_data (names->body, NULL), (int) g_bytes_get_size (names->body),
                       "ms.xml", NULL, XML_PARSE_NONET);
  xc = xmlXPathNewContext (doc);
  xmlXPathRegisterNs (xc, BAD_CAST "d", BAD_CAST "DAV:");
  g_assert_cmpfloat (xpath_number (xc, "count(//d:prop/d:getetag)"), ==, 1);
  g_assert_cmpfloat (xpath_number (xc, "string-length(//d:prop/d:getetag)"), ==, 0);
  g_assert_cmpfloat (xpath_number (xc, "count(//d:prop/d:getcontentlength)"), ==, 1);
  xmlXPathFreeContext (xc);
  xmlFreeDoc (doc);

  /* Depth infinity: refused with the RFC 4918 precondition; no Depth means infinity. */
  inf = request (s, "PROPFIND", "/", NULL, "Depth", "infinity", NULL);
  g_assert_cmpuint (inf->status, ==, 403);
  g_assert_nonnull (g_strstr_len (g_bytes_get_data (inf->body, NULL), (gssize) g_bytes_get_size (inf->body),
                                  "propfind-finite-depth"));
  g_assert_cmpuint (status_of (s, "PROPFIND", "/", NULL, NULL), ==, 403);
  g_assert_cmpuint (status_of (s, "PROPFIND", "/", broken_xml, "Depth", "0", NULL), ==, 400);
  g_assert_cmpuint (status_of (s, "PROPFIND", "/", wrong_root, "Depth", "0", NULL), ==, 400);
  g_assert_cmpuint (status_of (s, "PROPFIND", "/", NULL, "Depth", "2", NULL), ==, 400);
  g_assert_cmpuint (status_of (s, "PROPFIND", "/nothing", NULL, "Depth", "0", NULL), ==, 404);
  g_assert_cmpuint (status_of (s, "PROPFIND", "/.hidden", NULL, "Depth", "0", NULL), ==, 404);
}

static void
test_listing (void)
{
  g_autoptr(Store) s = store_new ();
  g_autoptr(GBytes) content = store_test_bytes (10, 13);
  g_autoptr(Reply) r = NULL;
  g_autoptr(Reply) redirect = NULL;
  g_autofree char *sub = root_path (s, "Ünï dir");
  g_autofree char *hidden = root_path (s, ".dot");
  g_autofree char *html = NULL;

  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  put_file (s, "a b&c%#.png", content);
  write_file (hidden, "x");
  store_run (s);

  r = request (s, "GET", "/", NULL, NULL);
  g_assert_cmpuint (r->status, ==, 200);
  g_assert_cmpstr (soup_message_headers_get_content_type (r->headers, NULL), ==, "text/html");
  html = body_text (r->body);
  /* hrefs percent-encoded; text HTML-escaped; collections end in '/' */
  g_assert_nonnull (strstr (html, "href=\"a%20b%26c%25%23.png\""));
  g_assert_nonnull (strstr (html, ">a b&amp;c%#.png<"));
  g_assert_nonnull (strstr (html, "href=\"%C3%9Cn%C3%AF%20dir/\""));
  g_assert_null (strstr (html, ".dot"));
  g_assert_null (strstr (html, ".lightbox"));
  g_assert_null (strstr (html, "href=\"../\"")); /* no parent link at the root */

  redirect = request (s, "GET", "/%C3%9Cn%C3%AF%20dir", NULL, NULL);
  g_assert_cmpuint (redirect->status, ==, 301);
  {
    g_autofree char *expect = g_strconcat (s->url, "%C3%9Cn%C3%AF%20dir/", NULL);
    g_assert_cmpstr (soup_message_headers_get_one (redirect->headers, "Location"), ==, expect);
  }
  g_assert_cmpuint (status_of (s, "GET", "/%C3%9Cn%C3%AF%20dir/", NULL, NULL), ==, 200);
  g_assert_cmpuint (status_of (s, "GET", "/.dot", NULL, NULL), ==, 404);
}

static void
test_traversal (void)
{
  g_autoptr(Store) s = store_new ();
  g_autofree char *sub = root_path (s, "sub");
  g_autofree char *link_dir = root_path (s, "escape");
  g_autofree char *link_file = root_path (s, "escape-file");
  g_autofree char *link_in = root_path (s, "inside-link");
  g_autofree char *secret_path = g_build_filename (s->outside, "secret.txt", NULL);
  g_autoptr(GBytes) payload = g_bytes_new_static ("pwned", 5);
  /* Raw request targets: a client library would normalise many of these away. */
  const char *const variants[] = {
    "/../outside/secret.txt",
    "/sub/../../outside/secret.txt",
    "/%2e%2e/outside/secret.txt",
    "/%2E%2E/outside/secret.txt",
    "/.%2e/outside/secret.txt",
    "/sub/%2e%2e/%2e%2e/outside/secret.txt",
    "/..%2foutside%2fsecret.txt",
    "/%2e%2e%2foutside%2fsecret.txt",
    "/sub%2f..%2f..%2foutside%2fsecret.txt",
    "/..%5coutside%5csecret.txt",
    "/..\\outside\\secret.txt",
    "/sub%00/../../outside/secret.txt",
    "/secret.txt%00.png",
    "/escape/secret.txt",
    "/escape-file",
    "/escape/",
    "/%252e%252e/outside/secret.txt",
    "//outside/secret.txt",
  };

  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  g_assert_cmpint (symlink (s->outside, link_dir), ==, 0);
  g_assert_cmpint (symlink (secret_path, link_file), ==, 0);
  g_assert_cmpint (symlink ("sub", link_in), ==, 0);
  store_run (s);

  for (guint i = 0; i < G_N_ELEMENTS (variants); i++)
    {
      const char *methods[] = { "GET", "PUT", "PROPFIND", "DELETE" };

      for (guint m = 0; m < G_N_ELEMENTS (methods); m++)
        {
          g_autofree char *head = g_strdup_printf ("%s %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nDepth: 0\r\n"
                                                   "Content-Length: %u", methods[m], variants[i],
                                                   (guint) s->port, strcmp (methods[m], "PUT") == 0 ? 5u : 0u);
          g_autoptr(GError) error = NULL;
          g_autoptr(StoreRawReply) r = store_raw_request (s->port, head,
                                                          strcmp (methods[m], "PUT") == 0 ? payload : NULL,
                                                          &error);
          g_autofree char *body = NULL;

          g_assert_no_error (error);
          g_test_message ("%s %s -> %u", methods[m], variants[i], r->status);
          /* Refused, or resolved to a path inside the root that does not exist (libsoup resolves
           * dot segments first, RFC 3986 §5.2.4); never served, never written outside. */
          g_assert_true (r->status == 400 || r->status == 403 || r->status == 404 || r->status == 409);
          body = body_text (r->body);
          g_assert_null (strstr (body, "TOP-SECRET"));
        }
    }
  /* Nothing was written or removed outside. */
  {
    g_autoptr(GDir) d = g_dir_open (s->outside, 0, NULL);
    const char *n;
    guint count = 0;
    while ((n = g_dir_read_name (d)) != NULL)
      {
        g_assert_cmpstr (n, ==, "secret.txt");
        count++;
      }
    g_assert_cmpuint (count, ==, 1);
  }
  /* Forms that survive libsoup's dot-segment resolution are refused, not merely missed:
   * encoded separators, NUL, backslashes, symlinks leading out. */
  {
    const char *refused[] = { "/..%2foutside", "/sub%2f..%2f..%2foutside", "/a%00b", "/..%5coutside",
                              "/escape/secret.txt", "/escape-file" };
    for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
      {
        g_autofree char *head = g_strdup_printf ("GET %s HTTP/1.1\r\nHost: 127.0.0.1", refused[i]);
        g_autoptr(GError) error = NULL;
        g_autoptr(StoreRawReply) r = store_raw_request (s->port, head, NULL, &error);
        g_assert_no_error (error);
        g_test_message ("GET %s -> %u", refused[i], r->status);
        g_assert_true (r->status == 400 || r->status == 403);
      }
  }
  /* A symlink that stays inside the root is followed. */
  g_assert_cmpuint (status_of (s, "GET", "/inside-link/", NULL, NULL), ==, 200);
  /* The listing does not show links that lead out. */
  {
    g_autoptr(Reply) r = request (s, "GET", "/", NULL, NULL);
    g_autofree char *html = body_text (r->body);
    g_assert_null (strstr (html, "escape"));
    g_assert_nonnull (strstr (html, "inside-link/"));
  }
}

static char *
write_passwd (Store *s, const char *user, const char *password)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *hash = lb_store_auth_hash_password (password, &error);
  g_autofree char *line = NULL;
  char *path = g_build_filename (s->base, "passwd", NULL);

  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (hash, "$y$"));
  line = g_strdup_printf ("# users\n%s:%s\n", user, hash);
  write_file (path, line);
  return path;
}

static char *
basic (const char *user, const char *password)
{
  g_autofree char *pair = g_strdup_printf ("%s:%s", user, password);
  g_autofree char *b64 = g_base64_encode ((const guchar *) pair, strlen (pair));

  return g_strconcat ("Basic ", b64, NULL);
}

static Store *
auth_store (gboolean read_only)
{
  Store *s = store_new ();
  g_autoptr(LbStoreAuth) auth = lb_store_auth_new ();
  g_autoptr(LbAccessLog) log = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *tokens = g_build_filename (s->base, "tokens", NULL);
  g_autofree char *passwd = write_passwd (s, "alice", "correct horse");

  write_file (tokens, "# tokens\ntok-one-0123456789\n\ntok-two-abcdef\n");
  g_assert_true (lb_store_auth_load_tokens (auth, tokens, &error));
  g_assert_no_error (error);
  g_assert_true (lb_store_auth_load_passwd (auth, passwd, &error));
  g_assert_no_error (error);
  lb_store_server_set_auth (s->server, auth);
  lb_store_server_set_read_only (s->server, read_only);
  s->log_path = g_build_filename (s->base, "access.log", NULL);
  log = lb_access_log_new (s->log_path, &error);
  g_assert_no_error (error);
  lb_store_server_set_access_log (s->server, log);
  return s;
}

static void
test_auth (void)
{
  g_autoptr(Store) s = auth_store (FALSE);
  g_autoptr(GBytes) data = store_test_bytes (100, 14);
  g_autoptr(Reply) anon_put = NULL;
  g_autofree char *good = basic ("alice", "correct horse");
  g_autofree char *bad = basic ("alice", "wrong");
  g_autofree char *nobody = basic ("mallory", "correct horse");
  const char *www;

  put_file (s, "pub.bin", data);
  store_run (s);

  /* Anonymous may read... */
  g_assert_cmpuint (status_of (s, "GET", "/pub.bin", NULL, NULL), ==, 200);
  g_assert_cmpuint (status_of (s, "PROPFIND", "/", NULL, "Depth", "1", NULL), ==, 207);
  /* ...but not write: 401 with both challenges. */
  anon_put = request (s, "PUT", "/new.bin", data, NULL);
  g_assert_cmpuint (anon_put->status, ==, 401);
  www = soup_message_headers_get_list (anon_put->headers, "WWW-Authenticate");
  g_assert_nonnull (www);
  g_assert_nonnull (strstr (www, "Basic realm="));
  g_assert_nonnull (strstr (www, "Bearer realm="));
  g_assert_false (g_file_test (root_path (s, "new.bin"), G_FILE_TEST_EXISTS));
  g_assert_cmpuint (status_of (s, "MKCOL", "/d/", NULL, NULL), ==, 401);
  g_assert_cmpuint (status_of (s, "DELETE", "/pub.bin", NULL, NULL), ==, 401);

  /* Wrong credentials are refused on any request, reads included. */
  g_assert_cmpuint (status_of (s, "GET", "/pub.bin", NULL, "Authorization", "Bearer nope", NULL), ==, 401);
  g_assert_cmpuint (status_of (s, "GET", "/pub.bin", NULL, "Authorization", "Bearer tok-one-012345678", NULL), ==, 401);
  g_assert_cmpuint (status_of (s, "PUT", "/new.bin", data, "Authorization", bad, NULL), ==, 401);
  g_assert_cmpuint (status_of (s, "PUT", "/new.bin", data, "Authorization", nobody, NULL), ==, 401);
  g_assert_cmpuint (status_of (s, "PUT", "/new.bin", data, "Authorization", "Digest x", NULL), ==, 401);
  g_assert_false (g_file_test (root_path (s, "new.bin"), G_FILE_TEST_EXISTS));

  /* Good credentials write. */
  g_assert_cmpuint (status_of (s, "PUT", "/tok.bin", data, "Authorization", "Bearer tok-two-abcdef", NULL), ==, 201);
  g_assert_cmpuint (status_of (s, "PUT", "/basic.bin", data, "Authorization", good, NULL), ==, 201);
  /* again, through the verified-credentials cache */
  g_assert_cmpuint (status_of (s, "PUT", "/basic.bin", data, "Authorization", good, NULL), ==, 204);
  g_assert_cmpuint (status_of (s, "MKCOL", "/d/", NULL, "Authorization", good, NULL), ==, 201);

  /* Filter repository: readable by all, writable with credentials only, .lbfilter names only. */
  {
    g_autoptr(GBytes) filter = g_bytes_new_static (valid_filter, strlen (valid_filter));
    g_assert_cmpuint (status_of (s, "PUT", "/.lightbox/filters/x.lbfilter", filter, NULL), ==, 401);
    g_assert_cmpuint (status_of (s, "PUT", "/.lightbox/filters/x.lbfilter", filter, "Authorization", good, NULL), ==, 201);
  }
  g_assert_cmpuint (status_of (s, "GET", "/.lightbox/filters/x.lbfilter", NULL, NULL), ==, 200);
  g_assert_cmpuint (status_of (s, "PUT", "/.lightbox/filters/x.sh", data, "Authorization", good, NULL), ==, 403);
  g_assert_cmpuint (status_of (s, "PUT", "/.lightbox/other", data, "Authorization", good, NULL), ==, 403);
  g_assert_cmpuint (status_of (s, "MKCOL", "/.lightbox/filters/sub/", NULL, "Authorization", good, NULL), ==, 403);
  g_assert_cmpuint (status_of (s, "DELETE", "/.lightbox/filters/x.lbfilter", NULL, "Authorization", good, NULL), ==, 204);
}

static void
test_read_only (void)
{
  g_autoptr(Store) s = auth_store (TRUE);
  g_autoptr(GBytes) data = store_test_bytes (100, 15);
  g_autofree char *good = basic ("alice", "correct horse");

  put_file (s, "pub.bin", data);
  store_run (s);
  g_assert_cmpuint (status_of (s, "GET", "/pub.bin", NULL, NULL), ==, 200);
  g_assert_cmpuint (status_of (s, "GET", "/pub.bin", NULL, "Authorization", good, NULL), ==, 200);
  /* --read-only: everyone is read-only, credentials or not. */
  g_assert_cmpuint (status_of (s, "PUT", "/x.bin", data, NULL), ==, 403);
  g_assert_cmpuint (status_of (s, "PUT", "/x.bin", data, "Authorization", good, NULL), ==, 403);
  g_assert_cmpuint (status_of (s, "DELETE", "/pub.bin", NULL, "Authorization", good, NULL), ==, 403);
  g_assert_cmpuint (status_of (s, "MKCOL", "/d/", NULL, "Authorization", "Bearer tok-one-0123456789", NULL), ==, 403);
  g_assert_true (g_file_test (root_path (s, "pub.bin"), G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (root_path (s, "x.bin"), G_FILE_TEST_EXISTS));
}

static void
test_access_log_lines (void)
{
  Store *s = auth_store (FALSE);
  g_autoptr(GBytes) data = store_test_bytes (777, 16);
  g_autofree char *good = basic ("alice", "correct horse");
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GRegex) re = g_regex_new ("^(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z) (\\S+) (\\S+) "
                                      "(\\S+) (\\S+) (\\d+) (\\d+) (\\d+) (\\d+\\.\\d{3})$", 0, 0, NULL);
  g_autoptr(GError) error = NULL;
  const char *expect[][6] = {
    /* user, method, path, status, bytes out, bytes in */
    { "alice", "PUT", "/logged%20file.bin", "201", "0", "777" },
    { "-", "GET", "/logged%20file.bin", "200", "777", "0" },
    { "-", "DELETE", "/logged%20file.bin", "401", NULL, "0" },
    { "token#1", "GET", "/nothing", "404", NULL, "0" },
  };

  store_run (s);
  g_assert_cmpuint (status_of (s, "PUT", "/logged%20file.bin", data, "Authorization", good, NULL), ==, 201);
  g_assert_cmpuint (status_of (s, "GET", "/logged%20file.bin", NULL, NULL), ==, 200);
  g_assert_cmpuint (status_of (s, "DELETE", "/logged%20file.bin", NULL, NULL), ==, 401);
  g_assert_cmpuint (status_of (s, "GET", "/nothing", NULL, "Authorization", "Bearer tok-one-0123456789", NULL), ==, 404);
  /* Stop the server thread (the log is complete), but keep the files for reading. */
  store_stop (s);

  g_file_get_contents (s->log_path, &text, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (g_strchomp (text), "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, G_N_ELEMENTS (expect));
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(GMatchInfo) mi = NULL;
      g_autofree char *client = NULL;

      g_test_message ("log: %s", lines[i]);
      g_assert_true (g_regex_match (re, lines[i], 0, &mi));
      client = g_match_info_fetch (mi, 2);
      g_assert_cmpstr (client, ==, "127.0.0.1");
      for (guint f = 0; f < 6; f++)
        {
          g_autofree char *v = g_match_info_fetch (mi, (gint) f + 3);
          if (expect[i][f] != NULL)
            g_assert_cmpstr (v, ==, expect[i][f]);
        }
      {
        g_autofree char *stamp = g_match_info_fetch (mi, 1);
        g_autoptr(GDateTime) dt = g_date_time_new_from_iso8601 (stamp, NULL);
        g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
        g_assert_nonnull (dt);
        g_assert_cmpint (g_date_time_difference (now, dt), >=, 0);
      }
    }
  store_free (s);
}

static void
test_filters (void)
{
  g_autoptr(Store) s = store_new ();
  g_autofree char *f = root_path (s, ".lightbox/filters/sharpen.lbfilter");
  g_autofree char *other = root_path (s, ".lightbox/secret.conf");
  g_autoptr(Reply) get = NULL;
  g_autoptr(Reply) pf = NULL;
  g_autoptr(Reply) listing = NULL;
  g_autofree char *xml = NULL;
  g_autofree char *html = NULL;
  const char *filter_text = "{ \"name\": \"sharpen\" }\n";

  write_file (f, filter_text);
  write_file (other, "x");
  store_run (s);

  get = request (s, "GET", "/.lightbox/filters/sharpen.lbfilter", NULL, NULL);
  g_assert_cmpuint (get->status, ==, 200);
  g_assert_cmpmem (g_bytes_get_data (get->body, NULL), g_bytes_get_size (get->body), filter_text, strlen (filter_text));
  pf = request (s, "PROPFIND", "/.lightbox/filters/", NULL, "Depth", "1", NULL);
  g_assert_cmpuint (pf->status, ==, 207);
  xml = body_text (pf->body);
  g_assert_nonnull (strstr (xml, "<D:href>/.lightbox/filters/sharpen.lbfilter</D:href>"));
  listing = request (s, "GET", "/.lightbox/filters/", NULL, NULL);
  g_assert_cmpuint (listing->status, ==, 200);
  html = body_text (listing->body);
  g_assert_nonnull (strstr (html, "href=\"sharpen.lbfilter\""));
  /* Only the filter repository is published among dotfiles. */
  g_assert_cmpuint (status_of (s, "GET", "/.lightbox/secret.conf", NULL, NULL), ==, 404);
  /* Without auth the repository is writable like the rest of the store, but only with filters
   * the engine accepts: anything else is refused with the parser's message (file and line). */
  {
    g_autoptr(GBytes) filter = g_bytes_new_static (valid_filter, strlen (valid_filter));
    const char *bad_text = "[Filter]\nId=org.example.bad\nName=Bad\nCategory=Enhance\nType=kernel\n\n"
                           "[Kernel]\nWidth=4\nHeight=1\nRow1=1 1 1 1\n";
    g_autoptr(GBytes) bad = g_bytes_new_static (bad_text, strlen (bad_text));
    g_autoptr(GBytes) junk = store_test_bytes (500, 24);
    g_autoptr(Reply) refused = NULL;
    g_autofree char *msg = NULL;

    g_assert_cmpuint (status_of (s, "PUT", "/.lightbox/filters/new.lbfilter", filter, NULL), ==, 201);
    g_assert_cmpuint (status_of (s, "GET", "/.lightbox/filters/new.lbfilter", NULL, NULL), ==, 200);
    refused = request (s, "PUT", "/.lightbox/filters/bad.lbfilter", bad, NULL);
    g_assert_cmpuint (refused->status, ==, 422);
    msg = body_text (refused->body);
    g_test_message ("422 body: %s", msg);
    g_assert_nonnull (strstr (msg, "bad.lbfilter:"));
    g_assert_cmpuint (status_of (s, "PUT", "/.lightbox/filters/junk.lbfilter", junk, NULL), ==, 422);
    /* A bad replacement leaves the published filter as it was. */
    g_assert_cmpuint (status_of (s, "PUT", "/.lightbox/filters/new.lbfilter", bad, NULL), ==, 422);
    {
      g_autoptr(Reply) still = request (s, "GET", "/.lightbox/filters/new.lbfilter", NULL, NULL);
      g_assert_true (g_bytes_equal (still->body, filter));
    }
    g_assert_false (g_file_test (root_path (s, ".lightbox/filters/bad.lbfilter"), G_FILE_TEST_EXISTS));
    g_assert_cmpuint (store_count_temps (s->root), ==, 0);
  }
}

static void
test_tls (void)
{
  g_autoptr(Store) s = store_new ();
  g_autofree char *cert = g_build_filename (s->base, "cert.pem", NULL);
  g_autofree char *key = g_build_filename (s->base, "key.pem", NULL);
  g_autofree char *openssl = g_find_program_in_path ("openssl");
  g_autoptr(GTlsCertificate) tls = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) data = store_test_bytes (5000, 17);
  g_autofree char *url = NULL;

  if (openssl == NULL)
    {
      g_test_skip ("openssl not installed (build-aux/install-deps.sh installs it)");
      return;
    }
  if (!g_tls_backend_supports_tls (g_tls_backend_get_default ()))
    {
      g_test_skip ("no GIO TLS backend (glib-networking not installed)");
      return;
    }
  store_make_self_signed (openssl, key, cert);
  tls = g_tls_certificate_new_from_files (cert, key, &error);
  g_assert_no_error (error);
  lb_store_server_set_tls_certificate (s->server, tls);
  put_file (s, "secure.bin", data);
  store_run (s);
  g_assert_true (g_str_has_prefix (s->url, "https://127.0.0.1:"));

  url = g_strconcat (s->url, "secure.bin", NULL);
  {
    /* Served over TLS to a client that trusts the certificate, refused to others. */
    g_autoptr(SoupSession) trusting = store_check_https_get (url, cert, data);
    g_autoptr(SoupMessage) put = NULL;
    g_autoptr(GBytes) pbody = NULL;
    g_autofree char *purl = g_strconcat (s->url, "up.bin", NULL);

    put = soup_message_new ("PUT", purl);
    soup_message_set_request_body_from_bytes (put, NULL, data);
    pbody = soup_session_send_and_read (trusting, put, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (soup_message_get_status (put), ==, 201);
  }
}

/* 507: a real full file system needs a tiny tmpfs, which only root can mount. */
static void
test_disk_full (void)
{
  g_autoptr(Store) s = NULL;
  g_autofree char *base = NULL;
  g_autofree char *mnt = NULL;
  g_autoptr(GBytes) old = store_test_bytes (400000, 18);
  g_autoptr(GBytes) small = store_test_bytes (100000, 20);
  g_autoptr(GBytes) big = store_test_bytes (3 * 1024 * 1024, 19);
  g_autoptr(GError) error = NULL;
  int status = 0;
  gboolean mounted;

  if (geteuid () != 0)
    {
      g_test_skip ("507 needs a full file system: mounting a 1 MiB tmpfs needs root");
      return;
    }
  base = store_make_tmpdir ("full");
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
      store_rm_rf (base);
      g_test_skip ("cannot mount a tmpfs here (container without CAP_SYS_ADMIN?)");
      return;
    }

  {
    g_autofree char *p = g_build_filename (mnt, "old.bin", NULL);
    g_autoptr(GBytes) d = NULL;

    g_file_set_contents (p, g_bytes_get_data (old, NULL), (gssize) g_bytes_get_size (old), &error);
    g_assert_no_error (error);
    s = g_new0 (Store, 1);
    s->base = store_make_tmpdir ("full-store");
    s->root = g_strdup (mnt);
    s->outside = g_strdup (base);
    store_init_server (s);
    store_run (s);

    g_assert_cmpuint (status_of (s, "PUT", "/old.bin", big, NULL), ==, 507);
    d = store_read_file (p);
    g_assert_true (g_bytes_equal (d, old));
    g_assert_cmpuint (status_of (s, "PUT", "/new.bin", big, NULL), ==, 507);
    g_assert_false (g_file_test (root_path (s, "new.bin"), G_FILE_TEST_EXISTS));
    g_assert_cmpuint (store_count_temps (mnt), ==, 0);
    /* Space came back (the temporary was removed): a small upload still works. */
    g_assert_cmpuint (status_of (s, "PUT", "/small.bin", small, NULL), ==, 201);
    /* 1 MiB holds old + small + one copy (900 kB), not a second copy. */
    g_assert_cmpuint (status_of (s, "COPY", "/old.bin", NULL, "Destination", "/copy1.bin", NULL), ==, 201);
    g_assert_cmpuint (status_of (s, "COPY", "/old.bin", NULL, "Destination", "/copy2.bin", NULL), ==, 507);
    g_assert_false (g_file_test (root_path (s, "copy2.bin"), G_FILE_TEST_EXISTS));
    g_assert_cmpuint (store_count_temps (mnt), ==, 0);
  }
  {
    const char *argv[] = { "umount", mnt, NULL };
    store_stop (s);
    g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, &error);
    g_assert_no_error (error);
  }
  store_rm_rf (base);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/store/get-head", test_get_head);
  g_test_add_func ("/store/range", test_range);
  g_test_add_func ("/store/conditional", test_conditional);
  g_test_add_func ("/store/put", test_put);
  g_test_add_func ("/store/put-limit", test_put_limit);
  g_test_add_func ("/store/put-aborted", test_put_aborted);
  g_test_add_func ("/store/keepalive-close", test_keepalive_close);
  g_test_add_func ("/store/keepalive-204", test_keepalive_204);
  g_test_add_func ("/store/keepalive-idle-timeout", test_keepalive_idle_timeout);
  g_test_add_func ("/store/client-keepalive", test_client_keepalive);
  g_test_add_func ("/store/atomic-concurrent", test_atomic_concurrent);
  g_test_add_func ("/store/dav-methods", test_dav_methods);
  g_test_add_func ("/store/propfind", test_propfind);
  g_test_add_func ("/store/listing", test_listing);
  g_test_add_func ("/store/traversal", test_traversal);
  g_test_add_func ("/store/auth", test_auth);
  g_test_add_func ("/store/read-only", test_read_only);
  g_test_add_func ("/store/access-log", test_access_log_lines);
  g_test_add_func ("/store/filters", test_filters);
  g_test_add_func ("/store/tls", test_tls);
  g_test_add_func ("/store/disk-full", test_disk_full);
#if defined(__SANITIZE_ADDRESS__)
  {
    /* LeakSanitizer's exit-time tracer crashes (signal 11 while stopping threads) after the TLS
     * subtest has run GnuTLS's threads; every subtest has passed by then. Leaks in this program
     * are checked with `meson test --setup valgrind` instead. */
    int status = g_test_run ();
    fflush (stdout);
    _exit (status);
  }
#else
  return g_test_run ();
#endif
}
