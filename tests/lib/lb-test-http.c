/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-test-http"

#include "lb-test-http.h"

#include <stdio.h>
#include <string.h>

void
lb_test_raw_reply_free (LbTestRawReply *r)
{
  if (r == NULL)
    return;
  g_clear_pointer (&r->headers, g_hash_table_unref);
  g_clear_pointer (&r->body, g_bytes_unref);
  g_free (r);
}

/* Bytes exactly as given: an HTTP client library would normalise "..", which is what the
 * traversal tests must get past. */
LbTestRawReply *
lb_test_raw_request (guint16 port, const char *request_head, GBytes *body, GError **error)
{
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketConnection) conn = NULL;
  g_autoptr(GByteArray) all = g_byte_array_new ();
  g_autofree char *head = g_strdup_printf ("%s\r\nConnection: close\r\n\r\n", request_head);
  GOutputStream *out;
  GInputStream *in;
  LbTestRawReply *r;
  guint8 buf[65536];
  const char *p, *end;
  g_auto(GStrv) lines = NULL;
  g_autofree char *head_text = NULL;

  g_socket_client_set_enable_proxy (client, FALSE);
  conn = g_socket_client_connect_to_host (client, "127.0.0.1", port, NULL, error);
  if (conn == NULL)
    return NULL;
  out = g_io_stream_get_output_stream (G_IO_STREAM (conn));
  in = g_io_stream_get_input_stream (G_IO_STREAM (conn));
  if (!g_output_stream_write_all (out, head, strlen (head), NULL, NULL, error))
    return NULL;
  if (body != NULL && g_bytes_get_size (body) > 0 &&
      !g_output_stream_write_all (out, g_bytes_get_data (body, NULL), g_bytes_get_size (body),
                                  NULL, NULL, error))
    return NULL;
  for (;;)
    {
      gssize n = g_input_stream_read (in, buf, sizeof buf, NULL, error);
      if (n < 0)
        return NULL;
      if (n == 0)
        break;
      g_byte_array_append (all, buf, (guint) n);
    }
  p = (const char *) all->data;
  end = g_strstr_len (p, all->len, "\r\n\r\n");
  if (end == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "no HTTP reply head");
      return NULL;
    }
  head_text = g_strndup (p, (gsize) (end - p));
  lines = g_strsplit (head_text, "\r\n", -1);
  r = g_new0 (LbTestRawReply, 1);
  r->headers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if (sscanf (lines[0], "HTTP/1.%*d %u", &r->status) != 1)
    r->status = 0;
  for (guint i = 1; lines[i] != NULL; i++)
    {
      char *colon = strchr (lines[i], ':');
      if (colon == NULL)
        continue;
      *colon = '\0';
      g_hash_table_replace (r->headers, g_ascii_strdown (lines[i], -1), g_strdup (g_strstrip (colon + 1)));
    }
  r->body = g_bytes_new (end + 4, all->len - (gsize) (end + 4 - p));
  return r;
}

guint16
lb_test_url_port (const char *url)
{
  g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);

  g_assert_nonnull (uri);
  return (guint16) g_uri_get_port (uri);
}

static gboolean
tcp_end_is (const char *address,
            guint16     port)
{
  const char *colon = strchr (address, ':');

  return colon != NULL && g_ascii_strtoull (colon + 1, NULL, 16) == port;
}

guint
lb_test_count_tcp (guint16     port,
                   gboolean    either_end,
                   const char *state)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  guint n = 0;

  g_assert_true (g_file_get_contents ("/proc/net/tcp", &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  /* after the header line: sl local_address rem_address st … (hex ports) */
  for (guint i = 1; lines[i] != NULL; i++)
    {
      g_auto (GStrv) f = g_strsplit_set (g_strstrip (lines[i]), " ", -1);
      g_autoptr (GPtrArray) cols = g_ptr_array_new ();

      for (guint k = 0; f[k] != NULL; k++)
        if (f[k][0] != '\0')
          g_ptr_array_add (cols, f[k]);
      if (cols->len < 4)
        continue;
      if (state != NULL ? strcmp (cols->pdata[3], state) != 0
                        : strcmp (cols->pdata[3], "0A") == 0)
        continue;
      if (tcp_end_is (cols->pdata[1], port) || (either_end && tcp_end_is (cols->pdata[2], port)))
        n++;
    }
  return n;
}
