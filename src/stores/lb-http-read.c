/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-http"

/* Reading response bodies of lb-http.h: draining what is left of one to keep the connection,
 * and reading a whole one into memory with a size cap and progress. */

#include "config.h"

#include "lb-http.h"


#include "lb-error.h"

/* ---- drain -------------------------------------------------------------------------------- */

#define DRAIN_MAX (64 * 1024)   /* bytes of a leftover body worth reading to keep a connection */
#define DRAIN_BLOCK 4096

typedef struct {
  gsize  left;                 /* bytes still allowed */
  guint8 buf[DRAIN_BLOCK];
} DrainData;

static void drain_next (GTask *task);

static void
on_drain_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  DrainData *d = g_task_get_task_data (task);
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, NULL);

  if (n > 0 && (gsize) n < d->left)
    {
      d->left -= (gsize) n;
      drain_next (task);
      return;
    }
  g_input_stream_close (G_INPUT_STREAM (source), NULL, NULL);
  /* Never an error: the answer was complete before the drain, only the connection is at stake. */
  g_task_set_check_cancellable (task, FALSE);
  g_task_return_boolean (task, n == 0);
  g_object_unref (task);
}

static void
drain_next (GTask *task)
{
  DrainData *d = g_task_get_task_data (task);

  g_input_stream_read_async (G_INPUT_STREAM (g_task_get_source_object (task)), d->buf,
                             MIN (d->left, sizeof d->buf), G_PRIORITY_DEFAULT,
                             g_task_get_cancellable (task), on_drain_read, task);
}

void
lb_http_drain_async (GInputStream *stream, GCancellable *cancellable, GAsyncReadyCallback callback,
                     gpointer user_data)
{
  GTask *task = g_task_new (stream, cancellable, callback, user_data);
  DrainData *d = g_new (DrainData, 1);

  d->left = DRAIN_MAX;
  g_task_set_source_tag (task, lb_http_drain_async);
  g_task_set_task_data (task, d, g_free);
  drain_next (task);
}

gboolean
lb_http_drain_finish (GInputStream *stream, GAsyncResult *result)
{
  return g_task_propagate_boolean (G_TASK (result), NULL);
}

/* ---- read everything ---------------------------------------------------------------------- */

typedef struct {
  GByteArray            *data;     /* owned */
  char                  *uri;      /* owned */
  gint64                 total;
  guint64                max_bytes;
  GFileProgressCallback  progress;
  gpointer               progress_data;
} ReadAllData;

static void
read_all_data_free (gpointer data)
{
  ReadAllData *d = data;

  g_byte_array_unref (d->data);
  g_free (d->uri);
  g_free (d);
}

static void read_all_next (GTask *task);

static void
on_read_all_chunk (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  ReadAllData *d = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(GBytes) chunk = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, &error);

  if (chunk == NULL)
    {
      g_task_return_error (task, lb_http_map_read_error (d->uri, error));
      g_object_unref (task);
      return;
    }
  if (g_bytes_get_size (chunk) == 0)
    {
      g_task_return_pointer (task, g_byte_array_free_to_bytes (g_byte_array_ref (d->data)),
                             (GDestroyNotify) g_bytes_unref);
      g_object_unref (task);
      return;
    }
  if (d->data->len + g_bytes_get_size (chunk) > d->max_bytes)
    {
      g_task_return_new_error (task, LB_ERROR, LB_ERROR_TOO_LARGE,
                               "%s: larger than %" G_GUINT64_FORMAT " bytes", d->uri,
                               d->max_bytes);
      g_object_unref (task);
      return;
    }
  g_byte_array_append (d->data, g_bytes_get_data (chunk, NULL), g_bytes_get_size (chunk));
  if (d->progress != NULL)
    d->progress (d->data->len, d->total, d->progress_data);
  read_all_next (task);
}

static void
read_all_next (GTask *task)
{
  g_input_stream_read_bytes_async (g_task_get_source_object (task), 64 * 1024, G_PRIORITY_DEFAULT,
                                   g_task_get_cancellable (task), on_read_all_chunk, task);
}

/* A GByteArray holds at most G_MAXUINT bytes and grows to powers of two: past 2 GiB it would
 * ask for 4 GiB (and abort when that fails), so no read goes beyond. */
#define READ_ALL_MAX (G_GUINT64_CONSTANT (1) << 31)

void
lb_http_read_all_async (GInputStream *stream, const char *uri, gint64 total, guint64 max_bytes,
                        GCancellable *cancellable, GFileProgressCallback progress,
                        gpointer progress_data, GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = g_task_new (stream, cancellable, callback, user_data);
  ReadAllData *d = g_new0 (ReadAllData, 1);

  g_task_set_source_tag (task, lb_http_read_all_async);
  d->max_bytes = max_bytes > 0 ? MIN (max_bytes, READ_ALL_MAX) : READ_ALL_MAX;
  /* an announced length within the cap is allocated once (no doubling on the way), up to
   * 64 MiB: a length that is only claimed costs no more than that */
  d->data = total > 0 && (guint64) total <= d->max_bytes
              ? g_byte_array_sized_new ((guint) MIN ((guint64) total, G_GUINT64_CONSTANT (64) << 20))
              : g_byte_array_new ();
  d->uri = g_strdup (uri);
  d->total = total;
  d->progress = progress;
  d->progress_data = progress_data;
  g_task_set_task_data (task, d, read_all_data_free);
  read_all_next (task);
}

GBytes *
lb_http_read_all_finish (GInputStream *stream, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- headers → entry ---------------------------------------------------------------------- */

GDateTime *
lb_http_parse_date (const char *text)
{
  GDateTime *dt;

  if (text == NULL || *text == '\0')
    return NULL;
  /* ISO 8601 starts with the year; HTTP dates start with a weekday name */
  if (g_ascii_isdigit (text[0]))
    {
      g_autoptr(GTimeZone) utc = g_time_zone_new_utc ();
      dt = g_date_time_new_from_iso8601 (text, utc);
      if (dt != NULL)
        return dt;
    }
  return soup_date_time_new_from_http_string (text);
}

LbStoreEntry *
lb_http_entry_from_headers (const char *uri, SoupMessageHeaders *headers)
{
  g_autofree char *name = lb_store_uri_display_name (uri);
  const char *content_type = soup_message_headers_get_content_type (headers, NULL);
  const char *last_modified = soup_message_headers_get_one (headers, "Last-Modified");
  LbStoreEntry *entry;
  g_autoptr(GDateTime) mtime = NULL;

  entry = lb_store_entry_new (uri, name, lb_store_entry_guess_file_kind (name, content_type));
  if (soup_message_headers_get_encoding (headers) == SOUP_ENCODING_CONTENT_LENGTH)
    lb_store_entry_set_size (entry, soup_message_headers_get_content_length (headers));
  lb_store_entry_set_etag (entry, soup_message_headers_get_one (headers, "ETag"));
  lb_store_entry_set_content_type (entry, content_type);
  mtime = lb_http_parse_date (last_modified);
  lb_store_entry_set_mtime (entry, mtime);
  return entry;
}
