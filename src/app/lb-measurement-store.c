/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-measurement-store"

#include "config.h"

#include "lb-measurement-store.h"

#include "lb-error.h"
#include "lb-store-entry.h"

#define CHUNK_SIZE (64 * 1024)

typedef struct {
  GPtrArray             *list;
  char                  *etag;
  LbMeasurementImageRef  ref;
} Loaded;

typedef struct {
  char         *uri;
  GInputStream *stream;
  GByteArray   *data;
  char         *etag;
} LoadData;

static void
loaded_free (Loaded *l)
{
  g_clear_pointer (&l->list, g_ptr_array_unref);
  g_free (l->etag);
  lb_measurement_image_ref_clear (&l->ref);
  g_free (l);
}

static void
load_data_free (LoadData *d)
{
  g_free (d->uri);
  g_clear_object (&d->stream);
  g_clear_pointer (&d->data, g_byte_array_unref);
  g_free (d->etag);
  g_free (d);
}

static Loaded *
loaded_new (void)
{
  Loaded *l = g_new0 (Loaded, 1);

  l->list = g_ptr_array_new_with_free_func (g_object_unref);
  l->ref.frame = -1;
  return l;
}

static void
finish_parse (GTask *task)
{
  LoadData *d = g_task_get_task_data (task);
  g_autoptr(GBytes) bytes = g_byte_array_free_to_bytes (g_steal_pointer (&d->data));
  Loaded *l = loaded_new ();
  GError *error = NULL;

  g_ptr_array_unref (l->list);
  l->list = lb_measurement_sidecar_read (bytes, d->uri, &l->ref, NULL, &error);
  if (l->list == NULL)
    {
      loaded_free (l);
      g_task_return_error (task, error);
      return;
    }
  l->etag = g_steal_pointer (&d->etag);
  g_task_return_pointer (task, l, (GDestroyNotify) loaded_free);
}

static void read_next (GTask *task);

static void
on_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  LoadData *d = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(GBytes) chunk = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result,
                                                              &error);

  if (chunk == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  /* the end, or one byte past the limit: the parser refuses what is too large */
  if (g_bytes_get_size (chunk) == 0)
    {
      finish_parse (task);
      return;
    }
  g_byte_array_append (d->data, g_bytes_get_data (chunk, NULL), g_bytes_get_size (chunk));
  if (d->data->len > LB_MEASUREMENT_SIDECAR_MAX_BYTES)
    {
      finish_parse (task);
      return;
    }
  read_next (g_steal_pointer (&task));
}

static void
read_next (GTask *task)
{
  LoadData *d = g_task_get_task_data (task);

  g_input_stream_read_bytes_async (d->stream, CHUNK_SIZE, G_PRIORITY_DEFAULT,
                                   g_task_get_cancellable (task), on_read, task);
}

static void
on_open (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  LoadData *d = g_task_get_task_data (task);
  g_autoptr(LbStoreEntry) entry = NULL;
  GError *error = NULL;

  d->stream = lb_store_read_finish (LB_STORE (source), result, &entry, &error);
  if (d->stream == NULL)
    {
      if (g_error_matches (error, LB_ERROR, LB_ERROR_NOT_FOUND))
        {
          g_error_free (error);
          g_task_return_pointer (task, loaded_new (), (GDestroyNotify) loaded_free);
        }
      else
        g_task_return_error (task, error);
      return;
    }
  if (entry != NULL)
    {
      d->etag = g_strdup (lb_store_entry_get_etag (entry));
      if (lb_store_entry_get_size (entry) > LB_MEASUREMENT_SIDECAR_MAX_BYTES)
        {
          g_task_return_new_error (task, LB_ERROR, LB_ERROR_TOO_LARGE,
                                   "%s: %" G_GINT64_FORMAT " bytes, more than the %d a "
                                   "measurement file may have", d->uri,
                                   lb_store_entry_get_size (entry),
                                   LB_MEASUREMENT_SIDECAR_MAX_BYTES);
          return;
        }
    }
  d->data = g_byte_array_new ();
  read_next (g_steal_pointer (&task));
}

void
lb_measurement_store_load_async (LbStore             *store,
                                 const char          *image_uri,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  LoadData *d;

  g_return_if_fail (LB_IS_STORE (store) && image_uri != NULL);
  task = g_task_new (store, cancellable, callback, user_data);
  g_task_set_source_tag (task, lb_measurement_store_load_async);
  d = g_new0 (LoadData, 1);
  d->uri = lb_measurement_sidecar_uri (image_uri);
  g_task_set_task_data (task, d, (GDestroyNotify) load_data_free);
  if (d->uri == NULL)
    {
      /* an address that can have no file beside it (a query, a container) */
      g_task_return_pointer (task, loaded_new (), (GDestroyNotify) loaded_free);
      return;
    }
  lb_store_read_async (store, d->uri, cancellable, NULL, NULL, on_open, g_steal_pointer (&task));
}

GPtrArray *
lb_measurement_store_load_finish (LbStore               *store,
                                  GAsyncResult          *result,
                                  char                 **etag,
                                  LbMeasurementImageRef *ref,
                                  GError               **error)
{
  Loaded *l;
  GPtrArray *list;

  g_return_val_if_fail (g_task_is_valid (result, store), NULL);
  l = g_task_propagate_pointer (G_TASK (result), error);
  if (l == NULL)
    return NULL;
  list = g_steal_pointer (&l->list);
  if (etag)
    *etag = g_steal_pointer (&l->etag);
  if (ref)
    {
      *ref = l->ref;
      l->ref = (LbMeasurementImageRef) { .frame = -1 };
    }
  loaded_free (l);
  return list;
}

static void
on_saved (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  LbWriteBackResult *res = lb_store_put_bytes_safely_finish (LB_STORE (source), result, &error);

  if (res == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, res, (GDestroyNotify) lb_write_back_result_free);
}

void
lb_measurement_store_save_async (LbStore             *store,
                                 const char          *image_uri,
                                 GBytes              *bytes,
                                 const char          *etag,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *uri = NULL;

  g_return_if_fail (LB_IS_STORE (store) && image_uri != NULL && bytes != NULL);
  task = g_task_new (store, cancellable, callback, user_data);
  g_task_set_source_tag (task, lb_measurement_store_save_async);
  uri = lb_measurement_sidecar_uri (image_uri);
  if (uri == NULL)
    {
      g_task_return_new_error (task, LB_ERROR, LB_ERROR_UNSUPPORTED,
                               "%s: no file can be saved beside this address", image_uri);
      return;
    }
  lb_store_put_bytes_safely_async (store, uri, bytes, "application/json",
                                   etag ? LB_STORE_WRITE_IF_MATCH : LB_STORE_WRITE_CREATE, etag,
                                   cancellable, NULL, NULL, on_saved, g_steal_pointer (&task));
}

LbWriteBackResult *
lb_measurement_store_save_finish (LbStore *store, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, store), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
