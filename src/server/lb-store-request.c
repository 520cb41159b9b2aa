/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-store-server"

#include "lb-store-request.h"

#include <unistd.h>
#include <glib/gstdio.h>

void
lb_store_request_drop_temp (LbStoreRequest *req)
{
  /* A commit thread owns the temporary until it reports back. */
  if (req->committing)
    return;
  if (req->fd >= 0)
    {
      close (req->fd);
      req->fd = -1;
    }
  if (req->temp_path != NULL)
    {
      g_unlink (req->temp_path);
      g_hash_table_remove (req->temps, req->temp_path);
      g_clear_pointer (&req->temp_path, g_free);
    }
}

static void
lb_store_request_free (LbStoreRequest *req)
{
  lb_store_request_drop_temp (req);
  if (req->header_deadline != NULL)
    {
      g_source_destroy (req->header_deadline);
      g_clear_pointer (&req->header_deadline, g_source_unref);
    }
  g_clear_pointer (&req->start, g_date_time_unref);
  g_hash_table_unref (req->temps);
  g_free (req->user);
  g_free (req->client);
  g_free (req->rel);
  g_free (req->abs);
  if (req->body != NULL)
    g_byte_array_unref (req->body);
  if (req->wbuf != NULL)
    g_byte_array_unref (req->wbuf);
  g_free (req);
}

/* Creates the state of a request that has just started and hangs it on @msg, which frees it;
 * @temps is the server's table of upload temporaries, @max_upload its limit in bytes. */
LbStoreRequest *
lb_store_request_attach (SoupServerMessage *msg, GHashTable *temps, guint64 max_upload)
{
  LbStoreRequest *req = g_new0 (LbStoreRequest, 1);

  req->temps = g_hash_table_ref (temps);
  req->max_upload = max_upload;
  req->fd = -1;
  req->start_us = g_get_monotonic_time ();
  req->start = g_date_time_new_now_utc ();
  g_object_set_data_full (G_OBJECT (msg), "lb-request", req, (GDestroyNotify) lb_store_request_free);
  return req;
}

/* The state lb_store_request_attach() hung on @msg; NULL if there is none. */
LbStoreRequest *
lb_store_request_get (SoupServerMessage *msg)
{
  return g_object_get_data (G_OBJECT (msg), "lb-request");
}

gboolean
lb_store_request_has_body (SoupServerMessage *msg)
{
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);
  SoupEncoding enc = soup_message_headers_get_encoding (h);

  if (enc == SOUP_ENCODING_CHUNKED || enc == SOUP_ENCODING_EOF)
    return TRUE;
  return enc == SOUP_ENCODING_CONTENT_LENGTH && soup_message_headers_get_content_length (h) > 0;
}
