/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-store-server"

/* Connections to the in-process lightbox-store: keep-alive with raw sockets and through the
 * LbStore client (no descriptor or connection leaks, idle timeouts, 204 answers), the
 * connection limit, and concurrent writers of one file (atomic replacement). */

#include <stdio.h>
#include <string.h>

#include "lb-store.h"
#include "lb-test-http.h"
#include "lb-test-image.h"
#include "lb-test-loop.h"
#include "lb-test-process.h"
#include "test-store-server.h"

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

/* Reads a response head from @in: its status, and in @value (unless NULL) the value of the
 * header @field ("Name:"), NULL when there is none. */
static guint
read_head (GDataInputStream *in, const char *field, char **value)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *status_line = g_data_input_stream_read_line (in, NULL, NULL, &error);
  guint status = 0;

  g_assert_no_error (error);
  g_assert_nonnull (status_line);
  g_assert_cmpint (sscanf (status_line, "HTTP/1.1 %u", &status), ==, 1);
  if (value != NULL)
    *value = NULL;
  for (;;)
    {
      g_autofree char *line = g_data_input_stream_read_line (in, NULL, NULL, &error);

      g_assert_no_error (error);
      g_assert_nonnull (line);
      g_strchomp (line);
      if (line[0] == '\0')
        break;
      if (value != NULL && g_ascii_strncasecmp (line, field, strlen (field)) == 0)
        {
          g_free (*value);
          *value = g_strdup (g_strstrip (line + strlen (field)));
        }
    }
  return status;
}

/* Reads one response (headers, then Content-Length bytes) from a keep-alive connection. */
static guint
read_one_response (GDataInputStream *in, GBytes **body_out)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *length_text = NULL;
  guint status = read_head (in, "Content-Length:", &length_text);
  gsize length = length_text != NULL ? (gsize) g_ascii_strtoull (length_text, NULL, 10) : 0;
  g_autofree guint8 *buf = g_malloc (length + 1);

  g_input_stream_read_all (G_INPUT_STREAM (in), buf, length, NULL, NULL, &error);
  g_assert_no_error (error);
  *body_out = g_bytes_new (buf, length);
  return status;
}

/* Clients that close idle keep-alive connections must not leave descriptors behind (libsoup
 * 3.2 alone leaks one per connection; see watch_idle_connection in lb-store-server.c). */
void
test_keepalive_close (void)
{
  g_autoptr(Store) s = store_new ();
  g_autoptr(GBytes) content = lb_test_bytes (3000, 23);
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
void
test_keepalive_204 (void)
{
  g_autoptr(Store) s = store_new ();
  g_autoptr(GBytes) v1 = lb_test_bytes (700, 41);
  g_autoptr(GBytes) v2 = lb_test_bytes (900, 42);
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

void
test_keepalive_idle_timeout (void)
{
  g_autoptr(Store) s = store_new ();
  g_autoptr(GBytes) content = lb_test_bytes (1000, 77);
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

/* LbStore (the webdav client) making a folder (201), writing the same file three times (201,
 * 204, 204), reading it back and stat-ing it keeps one connection: libsoup 3.2 on both ends
 * dropped it after every 204, and its client also drops a connection whose response stream is
 * closed before its end. */
void
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

    lb_store_mkdir_async (store, dir, NULL, lb_test_keep_result, &res);
    entry = lb_store_mkdir_finish (store, lb_test_wait_result (&res), &error);
    g_clear_object (&res);
    g_assert_no_error (error);
    g_assert_nonnull (entry);
  }
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(GBytes) data = lb_test_bytes (2000 + i, 50 + i);
      g_autoptr(GInputStream) source = g_memory_input_stream_new_from_bytes (data);
      g_autoptr(LbStoreEntry) entry = NULL;
      GAsyncResult *res = NULL;

      lb_store_write_async (store, uri, source, (gint64) g_bytes_get_size (data),
                            "application/octet-stream", LB_STORE_WRITE_REPLACE, NULL, NULL, NULL,
                            NULL, lb_test_keep_result, &res);
      entry = lb_store_write_finish (store, lb_test_wait_result (&res), &error);
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

    lb_store_read_async (store, uri, NULL, NULL, NULL, lb_test_keep_result, &res);
    stream = lb_store_read_finish (store, lb_test_wait_result (&res), NULL, &error);
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

    lb_store_stat_async (store, uri, NULL, lb_test_keep_result, &res);
    entry = lb_store_stat_finish (store, lb_test_wait_result (&res), &error);
    g_clear_object (&res);
    g_assert_no_error (error);
    g_assert_cmpint (lb_store_entry_get_size (entry), ==, (gint64) g_bytes_get_size (last));
  }
  /* Both ends of one connection, nothing in TIME_WAIT. */
  g_assert_cmpuint (lb_test_count_tcp (s->port, TRUE, NULL), ==, 2);
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
void
test_atomic_concurrent (void)
{
  g_autoptr(Store) s = store_new ();
  Writers w = { 0 };
  GThread *t1, *t2;
  guint reads = 0;

  w.store = s;
  w.rounds = 15;
  for (guint v = 0; v < 3; v++)
    w.versions[v] = lb_test_bytes (200000 * (v + 1), 40 + v);
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
  g_assert_cmpuint (lb_test_server_count_temps (s->root), ==, 0);
  for (guint v = 0; v < 3; v++)
    g_bytes_unref (w.versions[v]);
}

/* lb_store_server_set_max_connections (3): three idle connections are held, and the fourth
 * and fifth get 503 with Retry-After (and Connection: close) from the listener at once. The
 * three still serve; once they are closed, a new client is served again (503 meanwhile, until
 * the server has seen them go: asked again, a bounded number of times). */
void
test_max_connections (void)
{
  g_autoptr(Store) s = store_new ();
  g_autofree char *path = root_path (s, "m.txt");
  g_autofree char *req = NULL;
  GSocketConnection *held[3];
  GDataInputStream *held_in[3];
  guint refused = 0, after = 0, tries = 0;

  write_file (path, "held");
  lb_store_server_set_max_connections (s->server, 3);
  g_assert_cmpuint (lb_store_server_get_max_connections (s->server), ==, 3);
  store_run (s);
  req = g_strdup_printf ("GET /m.txt HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n", (guint) s->port);
  for (guint i = 0; i < G_N_ELEMENTS (held); i++)
    held[i] = raw_connect (s->port, &held_in[i]);
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(GDataInputStream) in = NULL;
      g_autoptr(GSocketConnection) extra = raw_connect (s->port, &in);
      g_autofree char *retry_after = NULL;

      /* No request sent: the answer comes from the listener as soon as it accepts. */
      if (read_head (in, "Retry-After:", &retry_after) == 503 && retry_after != NULL)
        refused++;
    }
  g_assert_cmpuint (refused, ==, 2);
  for (guint i = 0; i < G_N_ELEMENTS (held); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GBytes) body = NULL;
      GOutputStream *out = g_io_stream_get_output_stream (G_IO_STREAM (held[i]));

      g_output_stream_write_all (out, req, strlen (req), NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (read_one_response (held_in[i], &body), ==, 200);
      g_object_unref (held_in[i]);
      g_io_stream_close (G_IO_STREAM (held[i]), NULL, NULL);
      g_object_unref (held[i]);
    }
  do
    {
      if (tries++ > 0)
        g_usleep (10000);
      after = status_of (s, "GET", "/m.txt", NULL, NULL);
    }
  while (after == 503 && tries < 500);
  g_test_message ("3 allowed: 2 of 2 more answered 503; after the 3 closed: %u (%u tries)", after, tries);
  g_assert_cmpuint (after, ==, 200);
}
