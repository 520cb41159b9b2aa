/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-bench-soupmin"

#include <stdlib.h>
#include <string.h>

#include <libsoup/soup.h>

#include "lb-bench-soupmin.h"

struct _LbSoupMinServer {
  GThread *thread;
  GMainContext *context;
  GMainLoop *loop;
  SoupServer *server;
  GBytes *payload;    /* GET bodies are slices of this */
  guint16 port;
  GError *error;
  GMutex lock;
  GCond cond;
  gboolean ready;
};

/* 204 with its framing declared once the headers are out: libsoup 3.2 otherwise takes a 204
 * for an EOF-delimited response and closes the connection (lightbox-store does the same, see
 * on_wrote_headers there). */
static void
wrote_headers (SoupServerMessage *msg, gpointer data)
{
  if (soup_server_message_get_status (msg) == SOUP_STATUS_NO_CONTENT)
    soup_message_headers_set_encoding (soup_server_message_get_response_headers (msg),
                                       SOUP_ENCODING_NONE);
}

static void
early (SoupServer *server, SoupServerMessage *msg, const char *path, GHashTable *query,
       gpointer data)
{
  /* Bodies are streamed and dropped, as lightbox-store streams them to disk. */
  soup_message_body_set_accumulate (soup_server_message_get_request_body (msg), FALSE);
  g_signal_connect (msg, "wrote-headers", G_CALLBACK (wrote_headers), NULL);
}

static void
handle (SoupServer *server, SoupServerMessage *msg, const char *path, GHashTable *query,
        gpointer data)
{
  LbSoupMinServer *self = data;
  const char *method = soup_server_message_get_method (msg);

  if (strcmp (method, "PUT") == 0)
    soup_server_message_set_status (msg, SOUP_STATUS_NO_CONTENT, NULL);
  else if (strcmp (method, "GET") == 0)
    {
      guint64 n = g_ascii_strtoull (path + 1, NULL, 10);
      g_autoptr (GBytes) body = NULL;

      if (n > g_bytes_get_size (self->payload))
        {
          soup_server_message_set_status (msg, SOUP_STATUS_NOT_FOUND, NULL);
          return;
        }
      body = g_bytes_new_from_bytes (self->payload, 0, (gsize) n);
      soup_message_headers_set_content_type (soup_server_message_get_response_headers (msg),
                                             "application/octet-stream", NULL);
      soup_message_body_append_bytes (soup_server_message_get_response_body (msg), body);
      soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
    }
  else
    soup_server_message_set_status (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, NULL);
}

static gpointer
run (gpointer data)
{
  LbSoupMinServer *self = data;
  GError *error = NULL;
  GSList *uris;

  g_main_context_push_thread_default (self->context);
  self->server = soup_server_new ("server-header", "lb-bench-soupmin ", NULL);
  soup_server_add_early_handler (self->server, NULL, early, self, NULL);
  soup_server_add_handler (self->server, NULL, handle, self, NULL);
  if (soup_server_listen_local (self->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error)
      && (uris = soup_server_get_uris (self->server)) != NULL)
    {
      self->port = (guint16) g_uri_get_port (uris->data);
      g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
    }
  else if (error == NULL)
    g_set_error_literal (&error, G_IO_ERROR, G_IO_ERROR_FAILED, "minimal libsoup server: no URI");
  g_mutex_lock (&self->lock);
  self->error = error;
  self->ready = TRUE;
  g_cond_signal (&self->cond);
  g_mutex_unlock (&self->lock);
  if (error == NULL)
    g_main_loop_run (self->loop);
  soup_server_disconnect (self->server);
  g_clear_object (&self->server);
  while (g_main_context_iteration (self->context, FALSE))
    ;
  g_main_context_pop_thread_default (self->context);
  return NULL;
}

LbSoupMinServer *
lb_soup_min_server_start (gsize max_body, GError **error)
{
  LbSoupMinServer *self = g_new0 (LbSoupMinServer, 1);
  guint8 *data = g_malloc (MAX (max_body, 1));

  for (gsize i = 0; i < max_body; i++)
    data[i] = (guint8) (i * 131 + 7);
  self->payload = g_bytes_new_take (data, max_body);
  self->context = g_main_context_new ();
  self->loop = g_main_loop_new (self->context, FALSE);
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  self->thread = g_thread_new ("lb-soupmin", run, self);
  g_mutex_lock (&self->lock);
  while (!self->ready)
    g_cond_wait (&self->cond, &self->lock);
  g_mutex_unlock (&self->lock);
  if (self->error != NULL)
    {
      g_propagate_prefixed_error (error, self->error, "minimal libsoup server on 127.0.0.1: ");
      self->error = NULL;
      lb_soup_min_server_stop (self);
      return NULL;
    }
  return self;
}

guint16
lb_soup_min_server_get_port (LbSoupMinServer *self)
{
  return self->port;
}

static gboolean
quit_loop (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_REMOVE;
}

void
lb_soup_min_server_stop (LbSoupMinServer *self)
{
  if (self == NULL)
    return;
  g_main_context_invoke (self->context, quit_loop, self->loop);
  g_thread_join (self->thread);
  g_main_loop_unref (self->loop);
  g_main_context_unref (self->context);
  g_bytes_unref (self->payload);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  g_free (self);
}
