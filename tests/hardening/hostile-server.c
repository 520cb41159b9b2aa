/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "hostile-server"

#include "hostile-server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>

struct _HostileServer {
  HostileHandler   handler;
  gpointer         data;
  char            *url;
  GThread         *thread;     /* runs @context: the listener accepts there */
  GMainContext    *context;
  GMainLoop       *loop;
  GSocketService  *service;
  GMutex           lock;       /* guards what follows */
  GCond            ready;      /* started; a connection ended */
  gboolean         started;
  GPtrArray       *requests;   /* HostileRequest* */
  guint            connections;
  GPtrArray       *open;       /* GSocketConnection*: shut down when the server goes */
  guint            pending;    /* connections accepted whose handler has not returned */
};

static void
request_free (gpointer data)
{
  HostileRequest *r = data;

  g_free (r->method);
  g_free (r->path);
  g_clear_pointer (&r->headers, g_hash_table_unref);
  g_clear_pointer (&r->body, g_bytes_unref);
  g_free (r);
}

static HostileRequest *
request_copy (const HostileRequest *r)
{
  HostileRequest *copy = g_new0 (HostileRequest, 1);
  GHashTableIter iter;
  gpointer key, value;

  copy->method = g_strdup (r->method);
  copy->path = g_strdup (r->path);
  copy->headers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_hash_table_iter_init (&iter, r->headers);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_hash_table_replace (copy->headers, g_strdup (key), g_strdup (value));
  copy->body = g_bytes_ref (r->body);
  copy->connection = r->connection;
  copy->on_connection = r->on_connection;
  copy->index = r->index;
  return copy;
}

/* One request from @in, or NULL at the end of the connection (or on garbage). */
static HostileRequest *
read_request (GDataInputStream *in)
{
  g_autofree char *line = g_data_input_stream_read_line (in, NULL, NULL, NULL);
  g_auto(GStrv) parts = NULL;
  HostileRequest *r;
  const char *length;

  if (line == NULL)
    return NULL;
  g_strchomp (line);
  parts = g_strsplit (line, " ", 3);
  if (g_strv_length (parts) != 3)
    return NULL;
  r = g_new0 (HostileRequest, 1);
  r->method = g_strdup (parts[0]);
  r->path = g_strdup (parts[1]);
  r->headers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (;;)
    {
      g_autofree char *h = g_data_input_stream_read_line (in, NULL, NULL, NULL);
      char *colon;

      if (h == NULL)
        {
          request_free (r);
          return NULL;
        }
      g_strchomp (h);
      if (*h == '\0')
        break;
      colon = strchr (h, ':');
      if (colon == NULL)
        continue;
      *colon = '\0';
      g_hash_table_replace (r->headers, g_ascii_strdown (h, -1), g_strdup (g_strstrip (colon + 1)));
    }
  length = g_hash_table_lookup (r->headers, "content-length");
  if (length != NULL && g_ascii_strtoull (length, NULL, 10) > 0)
    {
      gsize len = (gsize) g_ascii_strtoull (length, NULL, 10);
      guint8 *buf = g_malloc (len);
      gsize got = 0;

      g_input_stream_read_all (G_INPUT_STREAM (in), buf, len, &got, NULL, NULL);
      r->body = g_bytes_new_take (buf, got);
    }
  else
    r->body = g_bytes_new (NULL, 0);
  return r;
}

static gboolean
on_run (GThreadedSocketService *service, GSocketConnection *conn, GObject *source,
        gpointer user_data)
{
  HostileServer *s = user_data;
  g_autoptr(GDataInputStream) in =
    g_data_input_stream_new (g_io_stream_get_input_stream (G_IO_STREAM (conn)));
  GOutputStream *out = g_io_stream_get_output_stream (G_IO_STREAM (conn));
  guint connection;
  guint on_connection = 0;

  g_data_input_stream_set_newline_type (in, G_DATA_STREAM_NEWLINE_TYPE_ANY);
  g_socket_set_option (g_socket_connection_get_socket (conn), IPPROTO_TCP, TCP_NODELAY, 1, NULL);
  g_filter_input_stream_set_close_base_stream (G_FILTER_INPUT_STREAM (in), FALSE);
  g_mutex_lock (&s->lock);
  connection = s->connections++;
  g_ptr_array_add (s->open, g_object_ref (conn));
  g_mutex_unlock (&s->lock);
  for (;;)
    {
      HostileRequest *r = read_request (in);
      gboolean more;

      if (r == NULL)
        break;
      r->connection = connection;
      r->on_connection = on_connection++;
      g_mutex_lock (&s->lock);
      r->index = s->requests->len;
      g_ptr_array_add (s->requests, request_copy (r));
      g_mutex_unlock (&s->lock);
      more = s->handler (s, r, out, s->data);
      request_free (r);
      if (!more)
        break;
    }
  g_io_stream_close (G_IO_STREAM (conn), NULL, NULL);
  g_mutex_lock (&s->lock);
  g_ptr_array_remove (s->open, conn);
  s->pending--;
  g_cond_broadcast (&s->ready);
  g_mutex_unlock (&s->lock);
  return TRUE;
}

/* Runs on the server's thread as each connection is accepted, before it goes to a handler
 * thread: counted, so that hostile_server_free() waits for every handler. */
static gboolean
on_incoming (GSocketService *service, GSocketConnection *conn, GObject *source,
             gpointer user_data)
{
  HostileServer *s = user_data;

  g_mutex_lock (&s->lock);
  s->pending++;
  g_mutex_unlock (&s->lock);
  return FALSE;
}

static gpointer
server_thread (gpointer user_data)
{
  HostileServer *s = user_data;
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) effective = NULL;
  g_autoptr(GError) error = NULL;

  g_main_context_push_thread_default (s->context);
  s->service = g_threaded_socket_service_new (32);
  if (!g_socket_listener_add_address (G_SOCKET_LISTENER (s->service), address,
                                      G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL,
                                      &effective, &error))
    g_error ("hostile server: %s", error->message);
  g_signal_connect (s->service, "incoming", G_CALLBACK (on_incoming), s);
  g_signal_connect (s->service, "run", G_CALLBACK (on_run), s);
  g_socket_service_start (s->service);
  g_mutex_lock (&s->lock);
  s->url = g_strdup_printf ("http://127.0.0.1:%u/", g_inet_socket_address_get_port (
                              G_INET_SOCKET_ADDRESS (effective)));
  s->started = TRUE;
  g_cond_signal (&s->ready);
  g_mutex_unlock (&s->lock);
  g_main_loop_run (s->loop);
  g_socket_service_stop (s->service);
  g_socket_listener_close (G_SOCKET_LISTENER (s->service));
  g_main_context_pop_thread_default (s->context);
  return NULL;
}

HostileServer *
hostile_server_new (HostileHandler handler, gpointer data)
{
  HostileServer *s = g_new0 (HostileServer, 1);

  s->handler = handler;
  s->data = data;
  s->context = g_main_context_new ();
  s->loop = g_main_loop_new (s->context, FALSE);
  s->requests = g_ptr_array_new_with_free_func (request_free);
  s->open = g_ptr_array_new_with_free_func (g_object_unref);
  g_mutex_init (&s->lock);
  g_cond_init (&s->ready);
  s->thread = g_thread_new ("hostile-server", server_thread, s);
  g_mutex_lock (&s->lock);
  while (!s->started)
    g_cond_wait (&s->ready, &s->lock);
  g_mutex_unlock (&s->lock);
  return s;
}

static gboolean
quit_loop (gpointer loop)
{
  g_main_loop_quit (loop);
  return G_SOURCE_REMOVE;
}

void
hostile_server_free (HostileServer *s)
{
  if (s == NULL)
    return;
  g_main_context_invoke (s->context, quit_loop, s->loop);
  g_thread_join (s->thread);
  /* Wakes the handlers that wait for a client that keeps its connection: the service waits
   * for every handler before it goes. */
  g_mutex_lock (&s->lock);
  while (s->pending > 0)
    {
      for (guint i = 0; i < s->open->len; i++)
        g_socket_shutdown (g_socket_connection_get_socket (s->open->pdata[i]), TRUE, TRUE, NULL);
      g_cond_wait (&s->ready, &s->lock);
    }
  g_mutex_unlock (&s->lock);
  g_clear_object (&s->service);
  g_ptr_array_unref (s->open);
  g_main_loop_unref (s->loop);
  g_main_context_unref (s->context);
  g_ptr_array_unref (s->requests);
  g_mutex_clear (&s->lock);
  g_cond_clear (&s->ready);
  g_free (s->url);
  g_free (s);
}

const char *
hostile_server_url (HostileServer *s)
{
  return s->url;
}

GPtrArray *
hostile_server_requests (HostileServer *s)
{
  GPtrArray *copy = g_ptr_array_new_with_free_func (request_free);

  g_mutex_lock (&s->lock);
  for (guint i = 0; i < s->requests->len; i++)
    g_ptr_array_add (copy, request_copy (s->requests->pdata[i]));
  g_mutex_unlock (&s->lock);
  return copy;
}

guint
hostile_server_count (HostileServer *s)
{
  guint n;

  g_mutex_lock (&s->lock);
  n = s->requests->len;
  g_mutex_unlock (&s->lock);
  return n;
}

gboolean
hostile_write (GOutputStream *out, const void *data, gsize len)
{
  return g_output_stream_write_all (out, data, len, NULL, NULL, NULL);
}

gboolean
hostile_printf (GOutputStream *out, const char *format, ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  return hostile_write (out, text, strlen (text));
}

gboolean
hostile_respond (GOutputStream *out, guint status, const char *extra_headers, const void *body,
                 gsize len)
{
  g_autoptr(GString) all = g_string_new (NULL);

  /* one write: head and body in separate ones meet Nagle and delayed ACKs (40 ms each) */
  g_string_printf (all, "HTTP/1.1 %u Hostile\r\n%sContent-Length: %" G_GSIZE_FORMAT "\r\n\r\n",
                   status, extra_headers != NULL ? extra_headers : "", len);
  if (len > 0)
    g_string_append_len (all, body, (gssize) len);
  return hostile_write (out, all->str, all->len);
}

GBytes *
hostile_part10 (const char *sop_uid, gsize padding)
{
  GByteArray *a = g_byte_array_new ();
  guint8 zero[128] = { 0 };
  /* UI values have an even length, padded with NUL (PS3.5 §6.2) */
  gsize len = strlen (sop_uid) + strlen (sop_uid) % 2;
  const guint8 head[] = { 0x02, 0x00, 0x03, 0x00, 'U', 'I', (guint8) (len & 0xff), (guint8) (len >> 8) };
  g_autofree char *value = g_malloc0 (len);

  memcpy (value, sop_uid, strlen (sop_uid));
  g_byte_array_append (a, zero, sizeof zero);
  g_byte_array_append (a, (const guint8 *) "DICM", 4);
  g_byte_array_append (a, head, sizeof head);
  g_byte_array_append (a, (const guint8 *) value, (guint) len);
  g_byte_array_set_size (a, a->len + (guint) padding);
  memset (a->data + a->len - padding, 0, padding);
  return g_byte_array_free_to_bytes (a);
}

GBytes *
hostile_gzip_zeros (gsize len)
{
  g_autoptr(GZlibCompressor) gzip = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 9);
  g_autoptr(GOutputStream) mem = g_memory_output_stream_new_resizable ();
  g_autoptr(GOutputStream) conv = g_converter_output_stream_new (mem, G_CONVERTER (gzip));
  g_autofree guint8 *zeros = g_malloc0 (1 << 20);

  for (gsize done = 0; done < len;)
    {
      gsize n = MIN (len - done, (gsize) 1 << 20);

      g_assert_true (g_output_stream_write_all (conv, zeros, n, NULL, NULL, NULL));
      done += n;
    }
  g_assert_true (g_output_stream_close (conv, NULL, NULL));
  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (mem));
}
