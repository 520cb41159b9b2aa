/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-stores"

#include "config.h"

#include "lb-dicom-file.h"
#include "lb-dicomweb-store.h"
#include "lb-store-dataset.h"
#include "lb-store-private.h"

/* The first read of a Part 10 file's content; lb_dicom_file_new_from_prefix() asks for more
 * when its header goes on (an Enhanced multi-frame header can be megabytes). */
#define FIRST_READ (16 * 1024)

typedef struct {
  char         *uri;
  GInputStream *stream;
  GByteArray   *buf;    /* what has arrived, then room for the read under way */
  gsize         have;
} Header;

static void
header_free (Header *h)
{
  g_free (h->uri);
  if (h->stream != NULL)
    /* the header is all that is wanted: the rest of the download is dropped */
    g_input_stream_close_async (h->stream, G_PRIORITY_DEFAULT, NULL, NULL, NULL);
  g_clear_object (&h->stream);
  g_byte_array_unref (h->buf);
  g_free (h);
}

static void read_more (GTask *task, gsize want);

static void
on_chunk (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Header *h = g_task_get_task_data (task);
  GError *error = NULL;
  gsize n = 0, want = 0;
  gboolean at_end;
  g_autoptr(GBytes) prefix = NULL;
  g_autoptr(LbDicomFile) file = NULL;

  if (!g_input_stream_read_all_finish (G_INPUT_STREAM (source), result, &n, &error))
    {
      lb_store_task_fail (task, error);
      return;
    }
  at_end = h->have + n < h->buf->len;
  h->have += n;
  g_byte_array_set_size (h->buf, (guint) h->have);
  /* a copy: the data set's binary values are slices of it, and @buf grows */
  prefix = g_bytes_new (h->buf->data, h->buf->len);
  file = lb_dicom_file_new_from_prefix (prefix, h->uri, at_end, &want, &error);
  if (file == NULL)
    lb_store_task_fail (task, error);
  else if (want > h->have)
    read_more (task, want);
  else
    {
      g_task_return_pointer (task, lb_dicom_dataset_ref (lb_dicom_file_get_dataset (file)),
                             (GDestroyNotify) lb_dicom_dataset_unref);
      g_object_unref (task);
    }
}

static void
read_more (GTask *task, gsize want)
{
  Header *h = g_task_get_task_data (task);

  g_byte_array_set_size (h->buf, (guint) want);
  g_input_stream_read_all_async (h->stream, h->buf->data + h->have, want - h->have,
                                 G_PRIORITY_DEFAULT, g_task_get_cancellable (task), on_chunk,
                                 task);
}

static void
on_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Header *h = g_task_get_task_data (task);
  GError *error = NULL;

  h->stream = lb_store_read_finish (LB_STORE (source), result, NULL, &error);
  if (h->stream == NULL)
    lb_store_task_fail (task, error);
  else
    read_more (task, FIRST_READ);
}

void
lb_store_read_dataset_async (LbStore *store, const char *uri, GCancellable *cancellable,
                             GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task;
  Header *h;

  g_return_if_fail (LB_IS_STORE (store));
  g_return_if_fail (uri != NULL);
  if (LB_IS_DICOMWEB_STORE (store))
    {
      /* the server has the data set apart from the pixels: no Part 10 file to read */
      lb_dicomweb_store_fetch_metadata_async (LB_DICOMWEB_STORE (store), uri, cancellable,
                                              callback, user_data);
      return;
    }
  task = g_task_new (store, cancellable, callback, user_data);
  g_task_set_source_tag (task, lb_store_read_dataset_async);
  h = g_new0 (Header, 1);
  h->uri = g_strdup (uri);
  h->buf = g_byte_array_new ();
  g_task_set_task_data (task, h, (GDestroyNotify) header_free);
  lb_store_read_async (store, uri, cancellable, NULL, NULL, on_read, task);
}

LbDicomDataset *
lb_store_read_dataset_finish (LbStore *store, GAsyncResult *result, GError **error)
{
  if (g_async_result_is_tagged (result, lb_dicomweb_store_fetch_metadata_async))
    return lb_dicomweb_store_fetch_metadata_finish (LB_DICOMWEB_STORE (store), result, error);
  g_return_val_if_fail (g_task_is_valid (result, store), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
