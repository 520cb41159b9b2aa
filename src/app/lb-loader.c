/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-loader"

#include "config.h"

#include "lb-error.h"
#include "lb-image-loader.h"
#include "lb-loader.h"

#define CHUNK_SIZE (64 * 1024)
/* Decode at most this long before letting GTK paint: short until the first rows are on
 * screen, then longer, because every frame costs a full canvas upload and a download is
 * better spent decoding than repainting at 60 Hz. */
#define FIRST_SLICE_US 8000
#define SLICE_US 100000
#define PAUSE_MS 17 /* one frame at 60 Hz */

typedef struct {
  GInputStream       *stream;
  char               *name;
  LbPngDecoder       *decoder;    /* PNG: decoding as we go */
  GByteArray         *collected;  /* other formats: decoded at the end */
  gboolean            sniffed;
  gboolean            header_sent;
  LbLoaderHeaderFunc  header_func;
  LbLoaderRowsFunc    rows_func;
  gpointer            func_data;
  gint64              slice_start;  /* µs: start of the current run of chunks, 0 = none */
  gboolean            first_paint_offered;
} LoadData;

static void
load_data_free (LoadData *d)
{
  g_clear_object (&d->stream);
  g_free (d->name);
  g_clear_pointer (&d->decoder, lb_png_decoder_free);
  if (d->collected)
    g_byte_array_unref (d->collected);
  g_free (d);
}

static void
on_rows (LbPngDecoder *decoder,
         guint         y0,
         guint         y1,
         gpointer      user_data)
{
  LoadData *d = user_data;

  if (!d->header_sent)
    {
      d->header_sent = TRUE;
      if (d->header_func)
        d->header_func (decoder, d->func_data);
    }
  if (d->rows_func)
    d->rows_func (y0, y1, d->func_data);
}

static void read_next (GTask *task);

static void
finish_load (GTask *task)
{
  LoadData *d = g_task_get_task_data (task);
  GError *error = NULL;
  LbImage *image;

  if (d->decoder != NULL)
    image = lb_png_decoder_finish (d->decoder, &error);
  else
    {
      g_autoptr (GBytes) bytes = g_byte_array_free_to_bytes (g_steal_pointer (&d->collected));
      image = lb_image_load_bytes (bytes, d->name, NULL, &error);
    }
  if (image == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, image, g_object_unref);
  g_object_unref (task);
}

static void
on_read (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  GTask *task = user_data;
  LoadData *d = g_task_get_task_data (task);
  g_autoptr (GBytes) bytes = NULL;
  GError *error = NULL;
  const guint8 *data;
  gsize len;

  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, &error);
  if (bytes == NULL)
    {
      g_prefix_error (&error, "%s: ", d->name);
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  data = g_bytes_get_data (bytes, &len);
  if (len == 0)
    {
      finish_load (task);
      return;
    }
  if (!d->sniffed)
    {
      d->sniffed = TRUE;
      if (len >= 8 && lb_png_sniff (data, len))
        {
          d->decoder = lb_png_decoder_new (d->name, NULL);
          lb_png_decoder_set_rows_func (d->decoder, on_rows, d);
        }
      else
        d->collected = g_byte_array_new ();
    }
  if (d->decoder != NULL)
    {
      if (!lb_png_decoder_feed (d->decoder, data, len, &error))
        {
          g_task_return_error (task, error);
          g_object_unref (task);
          return;
        }
    }
  else
    g_byte_array_append (d->collected, data, len);
  read_next (task);
}

static void
read_now (GTask *task)
{
  LoadData *d = g_task_get_task_data (task);

  g_input_stream_read_bytes_async (d->stream, CHUNK_SIZE, G_PRIORITY_DEFAULT,
                                   g_task_get_cancellable (task), on_read, task);
}

static gboolean
resume_reading (gpointer data)
{
  read_now (G_TASK (data));
  return G_SOURCE_REMOVE;
}

static void
read_next (GTask *task)
{
  LoadData *d = g_task_get_task_data (task);
  gint64 now = g_get_monotonic_time ();

  /* Time slices: decode chunk after chunk for a while, then pause one frame interval so
   * GTK can paint the new rows. Priorities alone do not do it: when painting is slower than
   * the frame rate, the frame clock is always due and would starve a lower-priority read,
   * while a read at default priority would starve painting until the whole image is in. */
  if (d->slice_start == 0)
    d->slice_start = now;
  else if (now - d->slice_start > (d->header_sent ? SLICE_US : FIRST_SLICE_US)
           || (d->header_sent && !d->first_paint_offered))
    {
      d->slice_start = 0;
      d->first_paint_offered |= d->header_sent;
      g_timeout_add_full (G_PRIORITY_DEFAULT, PAUSE_MS, resume_reading, task, NULL);
      return;
    }
  read_now (task);
}

void
lb_loader_load_async (GInputStream        *stream,
                      const char          *name,
                      GCancellable        *cancellable,
                      LbLoaderHeaderFunc   header_func,
                      LbLoaderRowsFunc     rows_func,
                      gpointer             func_data,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  GTask *task;
  LoadData *d;

  g_return_if_fail (G_IS_INPUT_STREAM (stream));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, lb_loader_load_async);
  d = g_new0 (LoadData, 1);
  d->stream = g_object_ref (stream);
  d->name = g_strdup (name != NULL ? name : "image");
  d->header_func = header_func;
  d->rows_func = rows_func;
  d->func_data = func_data;
  g_task_set_task_data (task, d, (GDestroyNotify) load_data_free);
  read_next (task);
}

LbImage *
lb_loader_load_finish (GAsyncResult  *result,
                       GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
