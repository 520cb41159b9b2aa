/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-test-tls"

#include "lb-test-tls.h"

void
lb_test_make_self_signed (const char *openssl,
                        const char *key,
                        const char *cert)
{
  const char *argv[] = { openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                         "-keyout", key, "-out", cert, NULL };
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

SoupSession *
lb_test_check_https_get (const char *url,
                       const char *cert,
                       GBytes     *expected)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GTlsDatabase) db = NULL;
  SoupSession *trusting;

  /* Not trusted: the handshake fails. */
  {
    g_autoptr(SoupSession) plain = soup_session_new_with_options ("proxy-resolver", NULL, NULL);
    g_autoptr(SoupMessage) msg = soup_message_new ("GET", url);
    g_autoptr(GBytes) body = soup_session_send_and_read (plain, msg, NULL, &error);

    g_assert_null (body);
    g_assert_error (error, G_TLS_ERROR, G_TLS_ERROR_BAD_CERTIFICATE);
    g_clear_error (&error);
  }
  /* Trusted explicitly: served over TLS. */
  db = g_tls_file_database_new (cert, &error);
  g_assert_no_error (error);
  trusting = soup_session_new_with_options ("tls-database", db, "proxy-resolver", NULL, NULL);
  {
    g_autoptr(SoupMessage) msg = soup_message_new ("GET", url);
    g_autoptr(GBytes) body = soup_session_send_and_read (trusting, msg, NULL, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (soup_message_get_status (msg), ==, 200);
    g_assert_true (g_bytes_equal (body, expected));
  }
  return trusting;
}
