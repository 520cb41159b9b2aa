/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fault cases against a tiny HTTP/1.1 server on 127.0.0.1 (port 0) inside the test: it can
 * lie about Content-Length, answer 500/503, stall, loop redirects and serve hostile or huge
 * listings, none of which a well-behaved Debian server does on demand. */
#define G_LOG_DOMAIN "test-stores-faults"

#include <glib/gstdio.h>
#include <string.h>

#include "lb-error.h"
#include "lb-test-files.h"
#include "lb-test-loop.h"
#include "lb-test-stores.h"

static GThreadedSocketService *service;
static char *base_url;                /* http://127.0.0.1:PORT/ */
static gint hits_flaky;               /* requests seen per path (atomic) */
static gint hits_always500;
static gint hits_always503;
static gint stop_flag;

static void
write_str (GOutputStream *out, const char *s)
{
  g_output_stream_write_all (out, s, strlen (s), NULL, NULL, NULL);
}

static void
respond (GOutputStream *out, const char *status, const char *content_type, const char *body,
         gssize body_len)
{
  g_autofree char *head = NULL;
  gsize len = body_len >= 0 ? (gsize) body_len : strlen (body);

  head = g_strdup_printf ("HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %" G_GSIZE_FORMAT
                          "\r\nConnection: close\r\n\r\n", status, content_type, len);
  write_str (out, head);
  g_output_stream_write_all (out, body, len, NULL, NULL, NULL);
}

static GString *
many_json (guint n)
{
  GString *doc = g_string_new ("[\n");

  for (guint i = 0; i < n; i++)
    g_string_append_printf (doc, "%s{ \"name\":\"img-%06u.png\", \"type\":\"file\", "
                            "\"mtime\":\"Sun, 29 Nov 2026 20:22:14 GMT\", \"size\":%u }\n",
                            i ? "," : "", i, i);
  g_string_append (doc, "]\n");
  return doc;
}

static gboolean
on_run (GThreadedSocketService *svc, GSocketConnection *connection, GObject *source, gpointer data)
{
  GInputStream *in = g_io_stream_get_input_stream (G_IO_STREAM (connection));
  GOutputStream *out = g_io_stream_get_output_stream (G_IO_STREAM (connection));
  g_autoptr(GDataInputStream) lines = g_data_input_stream_new (in);
  g_autofree char *request = NULL;
  g_auto(GStrv) parts = NULL;
  const char *method, *path;
  gint64 content_length = 0;
  gboolean bearer_ok = FALSE;

  g_filter_input_stream_set_close_base_stream (G_FILTER_INPUT_STREAM (lines), FALSE);
  request = g_data_input_stream_read_line (lines, NULL, NULL, NULL);
  if (request == NULL)
    return TRUE;
  g_strchomp (request);
  for (;;)
    {
      g_autofree char *header = g_data_input_stream_read_line (lines, NULL, NULL, NULL);
      if (header == NULL)
        return TRUE;
      g_strchomp (header);
      if (*header == '\0')
        break;
      if (g_ascii_strncasecmp (header, "Content-Length:", 15) == 0)
        content_length = g_ascii_strtoll (header + 15, NULL, 10);
      if (g_ascii_strcasecmp (header, "Authorization: Bearer s3cret") == 0)
        bearer_ok = TRUE;
    }
  /* swallow a request body (PUT) so that the response is read */
  while (content_length > 0)
    {
      char buffer[8192];
      gssize n = g_input_stream_read (G_INPUT_STREAM (lines), buffer,
                                      MIN ((gint64) sizeof buffer, content_length), NULL, NULL);
      if (n <= 0)
        break;
      content_length -= n;
    }
  parts = g_strsplit (request, " ", 3);
  if (g_strv_length (parts) < 2)
    return TRUE;
  method = parts[0];
  path = parts[1];

  if (g_str_has_prefix (path, "/bearer/") && !bearer_ok)
    write_str (out, "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer realm=\"lb-test\"\r\n"
                    "Content-Length: 0\r\n\r\n");
  else if (g_str_equal (path, "/bearer/"))
    respond (out, "200 OK", "text/html", "<a href=\"a.txt\">a.txt</a>", -1);
  else if (g_str_equal (path, "/bearer/a.txt"))
    respond (out, "200 OK", "text/plain", "token ok", -1);
  else if (g_str_equal (method, "OPTIONS") || g_str_equal (method, "PROPFIND"))
    respond (out, "405 Method Not Allowed", "text/plain", "no", -1);
  else if (g_str_equal (path, "/truncated.png"))
    {
      /* announce 1000 bytes, send 500, hang up */
      static const char png_sig[] = "\x89PNG\r\n\x1a\n";
      char body[500];
      memset (body, 'x', sizeof body);
      memcpy (body, png_sig, 8);
      write_str (out, "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 1000\r\n\r\n");
      g_output_stream_write_all (out, body, sizeof body, NULL, NULL, NULL);
    }
  else if (g_str_equal (path, "/always500"))
    {
      g_atomic_int_inc (&hits_always500);
      respond (out, "500 Internal Server Error", "text/plain", "boom", -1);
    }
  else if (g_str_equal (path, "/always503"))
    {
      g_atomic_int_inc (&hits_always503);
      respond (out, "503 Service Unavailable", "text/plain", "busy", -1);
    }
  else if (g_str_equal (path, "/flaky.txt"))
    {
      if (g_atomic_int_add (&hits_flaky, 1) < 2)
        respond (out, "503 Service Unavailable", "text/plain", "busy", -1);
      else
        respond (out, "200 OK", "text/plain", "finally", -1);
    }
  else if (g_str_equal (path, "/slow.png"))
    {
      /* longer than the client's timeout; stops early when the test ends */
      for (int i = 0; i < 100 && !g_atomic_int_get (&stop_flag); i++)
        g_usleep (100 * 1000);
      respond (out, "200 OK", "image/png", "late", -1);
    }
  else if (g_str_equal (path, "/loop"))
    write_str (out, "HTTP/1.1 302 Found\r\nLocation: /loop\r\nContent-Length: 0\r\n\r\n");
  else if (g_str_has_prefix (path, "/status/"))
    {
      g_autofree char *status = g_strdup_printf ("%s Status", path + 8);
      respond (out, status, "text/plain", "", 0);
    }
  else if (g_str_equal (path, "/page.png"))
    respond (out, "200 OK", "text/html", "<html><body>not an image</body></html>", -1);
  else if (g_str_equal (path, "/garbage.png"))
    respond (out, "200 OK", "image/png", "\x89PNG\r\n\x1a\nthis is not a png at all", 32);
  else if (g_str_equal (path, "/hostile/"))
    {
      g_autofree char *long_name = g_strnfill (4000, 'L');
      g_autofree char *doc = g_strdup_printf (
        "<html><body><pre>"
        "<a href=\"http://evil.example/steal.png\">x</a>\n"
        "<a href=\"//evil.example/steal2.png\">x</a>\n"
        "<a href=\"../\">../</a>\n<a href=\"../../etc/passwd\">x</a>\n"
        "<a href=\"/elsewhere.png\">x</a>\n<a href=\"?C=N;O=D\">x</a>\n<a href=\"#x\">x</a>\n"
        "<a href=\"%%2e%%2e/up.png\">x</a>\n<a href=\"./\">self</a>\n"
        "<a href=\"%s.png\">long</a>   29-Nov-2026 20:22   10\n"
        "<a href=\"good.png\">good</a>   29-Nov-2026 20:22   20\n"
        "</pre></body></html>", long_name);
      respond (out, "200 OK", "text/html", doc, -1);
    }
  else if (g_str_equal (path, "/many/"))
    {
      g_autoptr(GString) doc = many_json (100000);
      respond (out, "200 OK", "application/json", doc->str, doc->len);
    }
  else if (g_str_equal (path, "/upload/new.png") && g_str_equal (method, "PUT"))
    respond (out, "201 Created", "text/plain", "", 0);
  else if (g_str_equal (path, "/upload/new.png") && g_str_equal (method, "HEAD"))
    write_str (out, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
  else
    respond (out, "404 Not Found", "text/plain", "no such thing", -1);
  g_output_stream_flush (out, NULL, NULL);
  g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
  return TRUE;
}

static void
start_server (void)
{
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) effective = NULL;
  g_autoptr(GError) error = NULL;

  service = G_THREADED_SOCKET_SERVICE (g_threaded_socket_service_new (8));
  g_socket_listener_add_address (G_SOCKET_LISTENER (service), address, G_SOCKET_TYPE_STREAM,
                                 G_SOCKET_PROTOCOL_TCP, NULL, &effective, &error);
  g_assert_no_error (error);
  g_signal_connect (service, "run", G_CALLBACK (on_run), NULL);
  g_socket_service_start (G_SOCKET_SERVICE (service));
  base_url = g_strdup_printf ("http://127.0.0.1:%u/",
                              g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (effective)));
}

static char *
url (const char *path)
{
  return g_strconcat (base_url, path, NULL);
}

static LbStore *
open_store (guint timeout_s, guint retries, guint max_entries)
{
  g_autoptr(LbStoreOptions) options = lb_store_options_new ();

  options->type = g_strdup ("listing");
  if (timeout_s > 0)
    options->timeout_s = timeout_s;
  options->max_retries = retries;
  if (max_entries > 0)
    options->max_listing_entries = max_entries;
  return lb_test_store_open (base_url, options);
}

/* Reading @u fails with @code, and the message contains @what and @also (NULL: no second). */
static void
assert_read_fails (LbStore *store, const char *u, LbError code, const char *what,
                   const char *also)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) body = lb_test_store_read_all (store, u, NULL, &error);

  g_assert_null (body);
  g_assert_error (error, LB_ERROR, (gint) code);
  g_assert_nonnull (strstr (error->message, what));
  if (also != NULL)
    g_assert_nonnull (strstr (error->message, also));
}

static void
test_truncated (void)
{
  g_autoptr(LbStore) store = open_store (0, 0, 0);
  g_autofree char *u = url ("truncated.png");
  g_autoptr(GError) error = NULL;

  assert_read_fails (store, u, LB_ERROR_TRUNCATED, u, "of 1000 bytes");

  /* a download never leaves a partial file, and decoding never sees a "complete" image */
  {
    g_autofree char *dir = lb_test_make_tmpdir ("faults");
    g_autofree char *path = g_build_filename (dir, "out.png", NULL);
    g_autoptr(LbStoreEntry) got = lb_store_download_sync (u, path, NULL, NULL, &error);
    g_autoptr(LbImage) image = NULL;

    g_assert_null (got);
    g_assert_error (error, LB_ERROR, LB_ERROR_TRUNCATED);
    g_clear_error (&error);
    g_assert_cmpuint (lb_test_count_entries (dir), ==, 0);
    g_rmdir (dir);

    image = lb_store_fetch_image_sync (u, NULL, NULL, NULL, NULL, &error);
    g_assert_null (image);
    g_assert_nonnull (error);
    g_assert_true (error->domain == LB_ERROR);
  }
}

static void
test_http_errors (void)
{
  static const struct { const char *status; LbError code; } cases[] = {
    { "401", LB_ERROR_PERMISSION }, { "403", LB_ERROR_PERMISSION }, { "404", LB_ERROR_NOT_FOUND },
    { "409", LB_ERROR_CONFLICT }, { "412", LB_ERROR_CONFLICT }, { "413", LB_ERROR_TOO_LARGE },
    { "415", LB_ERROR_UNSUPPORTED }, { "418", LB_ERROR_HTTP }, { "507", LB_ERROR_TOO_LARGE },
    { "501", LB_ERROR_HTTP },
  };
  g_autoptr(LbStore) store = open_store (0, 0, 0);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("status/%s", cases[i].status);
      g_autofree char *u = url (path);

      assert_read_fails (store, u, cases[i].code, u, cases[i].status);
    }
}

static void
test_500_not_retried (void)
{
  g_autoptr(LbStore) store = open_store (0, 3, 0);
  g_autofree char *u = url ("always500");

  assert_read_fails (store, u, LB_ERROR_HTTP, "500", NULL);
  g_assert_cmpint (g_atomic_int_get (&hits_always500), ==, 1);
}

static void
test_503_retried (void)
{
  g_autoptr(LbStore) store = open_store (0, 3, 0);
  g_autofree char *u = url ("flaky.txt");
  g_autofree char *u2 = url ("always503");
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) body = lb_test_store_read_all (store, u, NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (body, NULL), g_bytes_get_size (body), "finally", 7);
  g_assert_cmpint (g_atomic_int_get (&hits_flaky), ==, 3);

  /* retries are bounded: 1 + 3 attempts, then the 503 is reported */
  assert_read_fails (store, u2, LB_ERROR_HTTP, "503", NULL);
  g_assert_cmpint (g_atomic_int_get (&hits_always503), ==, 4);
}

static void
test_timeout (void)
{
  g_autoptr(LbStore) store = open_store (1, 0, 0);
  g_autofree char *u = url ("slow.png");

  assert_read_fails (store, u, LB_ERROR_NETWORK, "timed out", u);
}

static void
cancel_soon (gpointer data)
{
  g_cancellable_cancel (data);
}

static void
test_cancel (void)
{
  g_autoptr(LbStore) store = open_store (30, 3, 0);
  g_autofree char *u = url ("slow.png");
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(GError) error = NULL;

  g_timeout_add_once (200, cancel_soon, cancellable);
  lb_store_read_async (store, u, cancellable, NULL, NULL, lb_test_keep_result, &result);
  stream = lb_store_read_finish (store, lb_test_wait_result (&result), NULL, &error);
  g_assert_null (stream);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

static void
test_redirect_loop (void)
{
  g_autoptr(LbStore) store = open_store (0, 3, 0);
  g_autofree char *u = url ("loop");

  assert_read_fails (store, u, LB_ERROR_NETWORK, "redirect loop", NULL);
}

static void
test_connection_refused (void)
{
  /* a port that was free a moment ago and nobody listens on */
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                            G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  g_autofree char *u = NULL;
  g_autoptr(LbStoreOptions) options = lb_store_options_new ();
  g_autoptr(LbStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) entries = NULL;

  g_assert_true (g_socket_bind (socket, any, FALSE, NULL));
  bound = g_socket_get_local_address (socket, NULL);
  u = g_strdup_printf ("http://127.0.0.1:%u/", g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));
  g_socket_close (socket, NULL);
  options->max_retries = 1;
  store = lb_test_store_open (u, options);
  entries = lb_test_store_list (store, NULL, &error);
  g_assert_null (entries);
  g_assert_error (error, LB_ERROR, LB_ERROR_NETWORK);
  g_assert_nonnull (strstr (error->message, "connection refused"));
}

static void
test_not_an_image (void)
{
  g_autofree char *page = url ("page.png");
  g_autofree char *garbage = url ("garbage.png");
  g_autofree char *unsupported = url ("status/415");
  g_autoptr(GError) error = NULL;
  g_autoptr(LbImage) a = lb_store_fetch_image_sync (page, NULL, NULL, NULL, NULL, &error);

  g_assert_null (a);
  g_assert_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "text/html"));
  g_clear_error (&error);
  {
    g_autoptr(LbImage) b = lb_store_fetch_image_sync (garbage, NULL, NULL, NULL, NULL, &error);
    g_assert_null (b);
    g_assert_nonnull (error);
    g_assert_true (error->domain == LB_ERROR);
    g_clear_error (&error);
  }
  {
    g_autoptr(LbImage) c = lb_store_fetch_image_sync (unsupported, NULL, NULL, NULL, NULL, &error);
    g_assert_null (c);
    g_assert_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED);
  }
}

static void
test_hostile_listing (void)
{
  g_autoptr(LbStore) store = open_store (0, 0, 0);
  g_autofree char *u = url ("hostile/");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) entries = lb_test_store_list (store, u, &error);
  g_autofree char *long_name = g_strnfill (4000, 'L');
  g_autofree char *long_png = g_strconcat (long_name, ".png", NULL);

  g_assert_no_error (error);
  g_assert_cmpuint (entries->len, ==, 2);
  g_assert_nonnull (lb_test_store_find (entries, "good.png"));
  g_assert_cmpint (lb_store_entry_get_size (lb_test_store_find (entries, "good.png")), ==, 20);
  g_assert_nonnull (lb_test_store_find (entries, long_png));
  for (guint i = 0; i < entries->len; i++)
    g_assert_true (g_str_has_prefix (lb_store_entry_get_uri (entries->pdata[i]), u));
}

static void
test_many_entries (void)
{
  g_autofree char *u = url ("many/");
  g_autoptr(GError) error = NULL;

  {
    g_autoptr(LbStore) store = open_store (0, 0, 0);   /* default cap: 200 000 */
    g_autoptr(GPtrArray) entries = lb_test_store_list (store, u, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (entries->len, ==, 100000);
    g_assert_cmpint (lb_store_entry_get_size (entries->pdata[99999]), ==, 99999);
  }
  {
    g_autoptr(LbStore) store = open_store (0, 0, 50000);
    g_autoptr(GPtrArray) entries = lb_test_store_list (store, u, &error);
    g_assert_null (entries);
    g_assert_error (error, LB_ERROR, LB_ERROR_TOO_LARGE);
    g_assert_nonnull (strstr (error->message, "listing too large"));
    g_clear_error (&error);
  }
  {
    g_autoptr(LbStoreOptions) options = lb_store_options_new ();
    g_autoptr(LbStore) store = NULL;
    g_autoptr(GPtrArray) entries = NULL;
    options->type = g_strdup ("listing");
    options->max_listing_bytes = 1024 * 1024;
    store = lb_test_store_open (base_url, options);
    entries = lb_test_store_list (store, u, &error);
    g_assert_null (entries);
    g_assert_error (error, LB_ERROR, LB_ERROR_TOO_LARGE);
    g_assert_nonnull (strstr (error->message, "listing too large"));
  }
}

static void
test_outside_store (void)
{
  g_autoptr(LbStore) store = open_store (0, 0, 0);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) entries = lb_test_store_list (store, "http://evil.example/", &error);

  g_assert_null (entries);
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  {
    /* dot segments, also percent-encoded, cannot climb out of the store's base path */
    g_autofree char *root = url ("a/");
    g_autofree char *dots = url ("a/%2e%2e/etc/");
    g_autofree char *plain = url ("a/../etc/");
    g_autoptr(LbStore) sub = lb_test_store_open (root, NULL);
    g_autoptr(GPtrArray) e2 = lb_test_store_list (sub, dots, &error);
    g_autoptr(GPtrArray) e3 = NULL;
    g_assert_null (e2);
    g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
    g_clear_error (&error);
    e3 = lb_test_store_list (sub, plain, &error);
    g_assert_null (e3);
    g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  }
}

typedef struct {
  guint       calls;
  char       *scheme;
  char       *realm;
  const char *tokens[3];
} TokenState;

static gboolean
give_token (gpointer data)
{
  LbCredentialsRequest *request = data;
  TokenState *state = g_object_get_data (G_OBJECT (service), "token-state");
  const char *token = state->tokens[MIN (state->calls - 1, 2)];

  if (token != NULL)
    lb_credentials_request_set_token (request, token);
  else
    lb_credentials_request_cancel (request);
  lb_credentials_request_unref (request);
  return G_SOURCE_REMOVE;
}

static void
ask_token (LbCredentialsRequest *request, gpointer user_data)
{
  TokenState *state = user_data;

  state->calls++;
  g_free (state->scheme);
  g_free (state->realm);
  state->scheme = g_strdup (lb_credentials_request_get_scheme (request));
  state->realm = g_strdup (lb_credentials_request_get_realm (request));
  g_object_set_data (G_OBJECT (service), "token-state", state);
  g_idle_add (give_token, lb_credentials_request_ref (request));
}

static void
test_bearer (void)
{
  g_autofree char *root = url ("bearer/");
  g_autofree char *file = url ("bearer/a.txt");
  g_autoptr(GError) error = NULL;

  {
    g_autoptr(LbStore) store = open_store (0, 0, 0);
    g_autoptr(GPtrArray) entries = lb_test_store_list (store, root, &error);
    g_assert_null (entries);
    g_assert_error (error, LB_ERROR, LB_ERROR_PERMISSION);
    g_clear_error (&error);
  }
  {
    g_autoptr(LbStoreOptions) options = lb_store_options_new ();
    g_autoptr(LbStore) store = NULL;
    g_autoptr(GPtrArray) entries = NULL;
    options->type = g_strdup ("listing");
    options->token = g_strdup ("s3cret");
    store = lb_test_store_open (base_url, options);
    entries = lb_test_store_list (store, root, &error);
    g_assert_no_error (error);
    g_assert_nonnull (lb_test_store_find (entries, "a.txt"));
  }
  {
    g_autoptr(LbStoreOptions) options = lb_store_options_new ();
    TokenState state = { 0, NULL, NULL, { "wrong", "s3cret", NULL } };
    g_autoptr(LbStore) store = NULL;
    g_autoptr(GPtrArray) entries = NULL;
    g_autoptr(GBytes) body = NULL;

    options->type = g_strdup ("listing");
    lb_store_options_set_credentials_func (options, ask_token, &state, NULL);
    store = lb_test_store_open (base_url, options);
    entries = lb_test_store_list (store, root, &error);
    g_assert_no_error (error);
    g_assert_nonnull (lb_test_store_find (entries, "a.txt"));
    g_assert_cmpuint (state.calls, ==, 2);
    g_assert_cmpstr (state.scheme, ==, "Bearer");
    g_assert_cmpstr (state.realm, ==, "lb-test");
    /* the token stays with the store */
    body = lb_test_store_read_all (store, file, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (state.calls, ==, 2);
    g_assert_cmpmem (g_bytes_get_data (body, NULL), g_bytes_get_size (body), "token ok", 8);
    g_free (state.scheme);
    g_free (state.realm);
  }
}

static void
test_unknown_scheme (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStore) store = lb_store_new_for_uri ("gopher://127.0.0.1/", NULL, &error);

  g_assert_null (store);
  g_assert_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED);
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  start_server ();
  g_test_add_func ("/faults/truncated", test_truncated);
  g_test_add_func ("/faults/http-status", test_http_errors);
  g_test_add_func ("/faults/500-not-retried", test_500_not_retried);
  g_test_add_func ("/faults/503-retried", test_503_retried);
  g_test_add_func ("/faults/timeout", test_timeout);
  g_test_add_func ("/faults/cancel", test_cancel);
  g_test_add_func ("/faults/redirect-loop", test_redirect_loop);
  g_test_add_func ("/faults/connection-refused", test_connection_refused);
  g_test_add_func ("/faults/not-an-image", test_not_an_image);
  g_test_add_func ("/faults/hostile-listing", test_hostile_listing);
  g_test_add_func ("/faults/100000-entries", test_many_entries);
  g_test_add_func ("/faults/outside-store", test_outside_store);
  g_test_add_func ("/faults/unknown-scheme", test_unknown_scheme);
  g_test_add_func ("/faults/bearer-token", test_bearer);
  status = g_test_run ();
  g_atomic_int_set (&stop_flag, 1);
  g_socket_service_stop (G_SOCKET_SERVICE (service));
  g_socket_listener_close (G_SOCKET_LISTENER (service));
  g_clear_object (&service);
  g_free (base_url);
  return status;
}
