/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-store-server"

/* Access to the in-process lightbox-store: tokens and passwords (HTTP Basic, Bearer),
 * --read-only, the access log, TLS. */

#include <string.h>

#include "lb-store-auth.h"
#include "lb-test-image.h"
#include "lb-test-tls.h"
#include "test-store-server.h"

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

void
test_auth (void)
{
  g_autoptr(Store) s = auth_store (FALSE);
  g_autoptr(GBytes) data = lb_test_bytes (100, 14);
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

void
test_read_only (void)
{
  g_autoptr(Store) s = auth_store (TRUE);
  g_autoptr(GBytes) data = lb_test_bytes (100, 15);
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

void
test_access_log_lines (void)
{
  Store *s = auth_store (FALSE);
  g_autoptr(GBytes) data = lb_test_bytes (777, 16);
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

void
test_tls (void)
{
  g_autoptr(Store) s = store_new ();
  g_autofree char *cert = g_build_filename (s->base, "cert.pem", NULL);
  g_autofree char *key = g_build_filename (s->base, "key.pem", NULL);
  g_autofree char *openssl = g_find_program_in_path ("openssl");
  g_autoptr(GTlsCertificate) tls = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) data = lb_test_bytes (5000, 17);
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
  lb_test_make_self_signed (openssl, key, cert);
  tls = g_tls_certificate_new_from_files (cert, key, &error);
  g_assert_no_error (error);
  lb_store_server_set_tls_certificate (s->server, tls);
  put_file (s, "secure.bin", data);
  store_run (s);
  g_assert_true (g_str_has_prefix (s->url, "https://127.0.0.1:"));

  url = g_strconcat (s->url, "secure.bin", NULL);
  {
    /* Served over TLS to a client that trusts the certificate, refused to others. */
    g_autoptr(SoupSession) trusting = lb_test_check_https_get (url, cert, data);
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
