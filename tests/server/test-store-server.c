/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-store-server"

/* The fixture of test-store-server (see test-store-server.h) and its main(): the subtests in
 * the order they always ran. */

#include <stdio.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "lb-test-files.h"
#include "lb-test-http.h"
#include "test-store-server.h"

const char valid_filter[] =
  "[Filter]\nId=org.example.test.sharpen\nName=Test sharpen\nCategory=Enhance\nType=kernel\n\n"
  "[Kernel]\nWidth=3\nHeight=3\nRow1= 0 -1  0\nRow2=-1  5 -1\nRow3= 0 -1  0\nDivisor=1\n";

void
reply_free (Reply *r)
{
  if (r == NULL)
    return;
  soup_message_headers_unref (r->headers);
  g_bytes_unref (r->body);
  g_free (r);
}

GSocketConnection *
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

void
write_file (const char *path, const char *text)
{
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

void
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

Store *
store_new (void)
{
  Store *s = g_new0 (Store, 1);
  g_autofree char *filters = NULL;
  g_autofree char *secret = NULL;

  s->base = lb_test_make_tmpdir ("store");
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

void
store_run (Store *s)
{
  s->thread = g_thread_new ("store", server_thread, s);
  g_mutex_lock (&s->lock);
  while (!s->ready)
    g_cond_wait (&s->cond, &s->lock);
  g_mutex_unlock (&s->lock);
  g_assert_no_error (s->listen_error);
  g_assert_true (g_str_has_prefix (s->url, "http://127.0.0.1:") || g_str_has_prefix (s->url, "https://127.0.0.1:"));
  s->port = lb_test_url_port (s->url);
  g_assert_cmpuint (s->port, >, 0);
}

void
store_stop (Store *s)
{
  if (s->thread == NULL)
    return;
  g_main_loop_quit (s->loop);
  g_thread_join (s->thread);
  s->thread = NULL;
}

void
store_free (Store *s)
{
  store_stop (s);
  g_object_unref (s->session);
  g_main_loop_unref (s->loop);
  g_main_context_unref (s->ctx);
  g_mutex_clear (&s->lock);
  g_cond_clear (&s->cond);
  lb_test_remove_tree (s->base);
  g_free (s->base);
  g_free (s->root);
  g_free (s->outside);
  g_free (s->log_path);
  g_free (s->url);
  g_free (s);
}

char *
root_path (Store *s, const char *rel)
{
  return g_build_filename (s->root, rel, NULL);
}

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

Reply *
request (Store *s, const char *method, const char *path, GBytes *body, ...)
{
  va_list ap;
  Reply *r;

  va_start (ap, body);
  r = request_v (s, method, path, body, ap);
  va_end (ap);
  return r;
}

guint
status_of (Store *s, const char *method, const char *path, GBytes *body, ...)
{
  va_list ap;
  g_autoptr(Reply) r = NULL;

  va_start (ap, body);
  r = request_v (s, method, path, body, ap);
  va_end (ap);
  return r->status;
}

char *
body_text (GBytes *b)
{
  gsize n = 0;
  const char *d = g_bytes_get_data (b, &n);

  return g_strndup (d != NULL ? d : "", n);
}

void
put_file (Store *s, const char *rel, GBytes *content)
{
  g_autofree char *p = root_path (s, rel);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (p, g_bytes_get_data (content, NULL), (gssize) g_bytes_get_size (content), &error);
  g_assert_no_error (error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/store/get-head", test_get_head);
  g_test_add_func ("/store/range", test_range);
  g_test_add_func ("/store/content-type", test_content_type);
  g_test_add_func ("/store/conditional", test_conditional);
  g_test_add_func ("/store/put", test_put);
  g_test_add_func ("/store/put-limit", test_put_limit);
  g_test_add_func ("/store/put-aborted", test_put_aborted);
  g_test_add_func ("/store/keepalive-close", test_keepalive_close);
  g_test_add_func ("/store/keepalive-204", test_keepalive_204);
  g_test_add_func ("/store/keepalive-idle-timeout", test_keepalive_idle_timeout);
  g_test_add_func ("/store/client-keepalive", test_client_keepalive);
  g_test_add_func ("/store/atomic-concurrent", test_atomic_concurrent);
  g_test_add_func ("/store/max-connections", test_max_connections);
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
