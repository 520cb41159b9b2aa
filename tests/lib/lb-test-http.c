/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "store-test-util"

#include "store-test-util.h"

#include <string.h>
#include <glib/gstdio.h>

void
store_raw_reply_free (StoreRawReply *r)
{
  if (r == NULL)
    return;
  g_clear_pointer (&r->headers, g_hash_table_unref);
  g_clear_pointer (&r->body, g_bytes_unref);
  g_free (r);
}

/*
 * store_raw_request:
 * @request_head: request line and headers, "\r\n"-separated, without the final empty line;
 *   "Connection: close" is added
 *
 * Sends bytes exactly as given to 127.0.0.1:@port (an HTTP client library would normalise
 * "..", which is what the traversal tests must get past) and reads the whole reply.
 */
StoreRawReply *
store_raw_request (guint16 port, const char *request_head, GBytes *body, GError **error)
{
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketConnection) conn = NULL;
  g_autoptr(GByteArray) all = g_byte_array_new ();
  g_autofree char *head = g_strdup_printf ("%s\r\nConnection: close\r\n\r\n", request_head);
  GOutputStream *out;
  GInputStream *in;
  StoreRawReply *r;
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
  r = g_new0 (StoreRawReply, 1);
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

/* Deterministic pseudo-random content (xorshift32), so a failure can be reproduced. */
GBytes *
store_test_bytes (gsize n, guint32 seed)
{
  guint8 *data = g_malloc (MAX (n, 1));
  guint32 x = seed ? seed : 0x9e3779b9u;

  for (gsize i = 0; i < n; i++)
    {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      data[i] = (guint8) x;
    }
  return g_bytes_new_take (data, n);
}

char *
store_make_tmpdir (const char *tag)
{
  g_autofree char *tmpl = g_strdup_printf ("lb-%s-XXXXXX", tag);
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp (tmpl, &error);

  g_assert_no_error (error);
  return dir;
}

void
store_rm_rf (const char *path)
{
  const char *argv[] = { "rm", "-rf", "--", path, NULL };
  g_autoptr(GError) error = NULL;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
}

/* Upload temporaries anywhere below @dir. */
guint
store_count_temps (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  if (d == NULL)
    return 0;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *child = g_build_filename (dir, name, NULL);

      if (g_str_has_prefix (name, ".lbput-"))
        n++;
      else if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        n += store_count_temps (child);
    }
  return n;
}

guint16
store_url_port (const char *url)
{
  g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);

  g_assert_nonnull (uri);
  return (guint16) g_uri_get_port (uri);
}

GBytes *
store_read_file (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *data = NULL;
  gsize len = 0;

  g_file_get_contents (path, &data, &len, &error);
  g_assert_no_error (error);
  return g_bytes_new_take (data, len);
}
