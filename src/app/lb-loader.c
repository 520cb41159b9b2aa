/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-loader"

#include "config.h"

#include "lb-error.h"
#include "lb-image-loader.h"
#include "lb-loader.h"

/*
 * The stream is read on the caller's main context (a libsoup body stream belongs to its
 * session's context), and every chunk is handed to a decoder thread: inflating and
 * de-filtering a 1 GB PNG takes seconds of CPU, which on the main thread stalls painting
 * and input for as long as each decode slice runs. The main thread's work per chunk is
 * a queue push; rows decoded in the meantime reach the caller at most once per main-loop
 * iteration (coalesced into one range), so a fast download cannot flood the loop.
 */
#define CHUNK_SIZE (256 * 1024)
/* Bytes read but not yet decoded: reading pauses above HIGH and resumes below LOW, so a
 * download faster than the decoder does not pile up in memory. */
#define QUEUE_HIGH (16u << 20)
#define QUEUE_LOW (4u << 20)
/* Reads and row notifications run at GTK's redraw priority (GDK_PRIORITY_REDRAW; this file
 * does not use GTK). On loopback a read completes as soon as it is issued and the decoder
 * always has new rows, so at G_PRIORITY_DEFAULT these sources would always be ready and GLib
 * would never dispatch the lower-priority paint: no frame until the whole image is in. At a
 * lower priority than painting they would starve instead whenever frames take longer than the
 * frame interval (llvmpipe). At the same priority GLib dispatches both in every iteration;
 * input events (higher priority) still come first. */
#define LOAD_PRIORITY (G_PRIORITY_HIGH_IDLE + 20)
/* But one read per main-loop iteration is too few when frames are slow (a 250 ms frame would
 * cap the download at 1 MB/s): reads run at default priority, ahead of painting, for a burst
 * of this many µs, and the read after it goes at LOAD_PRIORITY to let a frame through. The
 * main thread's cost per chunk is a queue push, so a burst is mostly waiting for the socket. */
#define BURST_US 4000

typedef struct {
  GTask              *task;        /* unowned: this is its task data */
  GInputStream       *stream;
  char               *name;
  LbLoaderHeaderFunc  header_func;
  LbLoaderRowsFunc    rows_func;
  gpointer            func_data;
  GMainContext       *context;
  gboolean            sniffed;
  GCancellable       *cancellable; /* the task's, or NULL */
  gboolean            reading;     /* the read chain holds a task reference */
  gboolean            in_flight;   /* an async read is pending */
  gboolean            pollable;    /* more can be read without waiting (a socket) */
  gboolean            yielding;    /* that read was issued at LOAD_PRIORITY */
  gint64              burst_start; /* µs: start of the current run of default-priority reads */
  gboolean            returned;

  /* Shared with the decoder thread, under lock */
  GMutex              lock;
  GCond               cond;
  GThread            *thread;
  GQueue              chunks;      /* GBytes; a NULL-free queue, end of data = eof */
  gsize               queued;      /* bytes in chunks */
  gboolean            eof;
  gboolean            stop;
  gboolean            paused;      /* reading waits for the queue to drain */
  LbPngDecoder       *decoder;     /* PNG: fed by the thread; the main thread only reads its
                                    * size and buffer after the header, and finishes it once
                                    * the thread is done */
  GByteArray         *collected;   /* other formats: decoded at the end */
  gboolean            header;      /* the decoder has a header; not yet passed on */
  gboolean            header_sent; /* main thread only */
  guint               dirty_y0, dirty_y1; /* rows decoded, not yet passed on; y0 > y1: none */
  gboolean            done;
  LbImage            *image;
  GError             *error;
  GSource            *notify;      /* pending main-context callback, or NULL */
} LoadData;

static void
load_data_free (LoadData *d)
{
  g_mutex_lock (&d->lock);
  d->stop = TRUE;
  g_cond_signal (&d->cond);
  g_mutex_unlock (&d->lock);
  if (d->thread != NULL)
    g_thread_join (d->thread);
  if (d->notify != NULL)
    {
      g_source_destroy (d->notify);
      g_source_unref (d->notify);
    }
  g_queue_clear_full (&d->chunks, (GDestroyNotify) g_bytes_unref);
  g_clear_object (&d->stream);
  g_clear_object (&d->cancellable);
  g_free (d->name);
  g_clear_pointer (&d->decoder, lb_png_decoder_free);
  if (d->collected)
    g_byte_array_unref (d->collected);
  g_clear_object (&d->image);
  g_clear_error (&d->error);
  g_main_context_unref (d->context);
  g_mutex_clear (&d->lock);
  g_cond_clear (&d->cond);
  g_free (d);
}

static gboolean on_notify (gpointer data);

/* Called with the lock held: makes sure the main context will look at the shared state. */
static void
notify_locked (LoadData *d)
{
  if (d->notify != NULL)
    return;
  d->notify = g_idle_source_new ();
  g_source_set_priority (d->notify, LOAD_PRIORITY);
  g_source_set_callback (d->notify, on_notify, d, NULL);
  g_source_set_static_name (d->notify, "[lb-loader] decoded rows");
  g_source_attach (d->notify, d->context);
}

/* Decoder thread: libpng's row callback. */
static void
on_rows (LbPngDecoder *decoder,
         guint         y0,
         guint         y1,
         gpointer      user_data)
{
  LoadData *d = user_data;

  g_mutex_lock (&d->lock);
  d->header = TRUE;
  d->dirty_y0 = MIN (d->dirty_y0, y0);
  d->dirty_y1 = MAX (d->dirty_y1, y1);
  notify_locked (d);
  g_mutex_unlock (&d->lock);
}

static gpointer
decode_thread (gpointer data)
{
  LoadData *d = data;
  LbImage *image = NULL;
  GError *error = NULL;

  for (;;)
    {
      g_autoptr (GBytes) chunk = NULL;
      const guint8 *p;
      gsize len;
      gboolean ok = TRUE;

      g_mutex_lock (&d->lock);
      while (!d->stop && !d->eof && g_queue_is_empty (&d->chunks))
        g_cond_wait (&d->cond, &d->lock);
      if (d->stop)
        {
          g_mutex_unlock (&d->lock);
          return NULL;
        }
      chunk = g_queue_pop_head (&d->chunks);
      if (chunk != NULL)
        {
          d->queued -= g_bytes_get_size (chunk);
          if (d->paused && d->queued <= QUEUE_LOW)
            notify_locked (d);
        }
      g_mutex_unlock (&d->lock);
      if (chunk == NULL)
        break; /* end of data */
      /* a cancelled load stops decoding now, not when the queue is drained */
      if (g_cancellable_set_error_if_cancelled (d->cancellable, &error))
        goto out;
      p = g_bytes_get_data (chunk, &len);
      if (d->decoder != NULL)
        ok = lb_png_decoder_feed (d->decoder, p, len, &error);
      else
        g_byte_array_append (d->collected, p, len);
      if (!ok)
        goto out;
    }
  /* PNG: lb_png_decoder_finish() runs in on_notify, after the header and the last rows were
   * passed on (it takes the buffer those refer to); it costs no pixel work */
  if (d->decoder == NULL)
    {
      g_autoptr (GBytes) bytes = g_byte_array_free_to_bytes (g_steal_pointer (&d->collected));
      image = lb_image_load_bytes (bytes, d->name, NULL, &error);
    }
out:
  g_mutex_lock (&d->lock);
  d->image = image;
  d->error = error;
  d->done = TRUE;
  notify_locked (d);
  g_mutex_unlock (&d->lock);
  return NULL;
}

/* Returns the task once; drops the decode side's reference. */
static void
complete (LoadData *d,
          LbImage  *image,
          GError   *error)
{
  GTask *task = d->task;

  if (d->returned)
    {
      g_clear_object (&image);
      g_clear_error (&error);
      return;
    }
  d->returned = TRUE;
  if (image != NULL)
    g_task_return_pointer (task, image, g_object_unref);
  else
    g_task_return_error (task, error);
  g_object_unref (task); /* may free d */
}

static void read_now (LoadData *d);

/* Main context: pass on the header, the rows decoded since last time, the result. */
static gboolean
on_notify (gpointer data)
{
  LoadData *d = data;
  gboolean header, done, resume;
  guint y0, y1;

  g_mutex_lock (&d->lock);
  g_clear_pointer (&d->notify, g_source_unref);
  header = d->header && !d->header_sent;
  d->header_sent |= d->header;
  y0 = d->dirty_y0;
  y1 = d->dirty_y1;
  d->dirty_y0 = G_MAXUINT;
  d->dirty_y1 = 0;
  done = d->done;
  resume = d->paused && d->reading && d->queued <= QUEUE_LOW && !done;
  if (resume)
    d->paused = FALSE;
  g_mutex_unlock (&d->lock);

  /* the decoder's size, format and buffer are fixed once the header is in */
  if (header && d->header_func)
    d->header_func (d->decoder, d->func_data);
  if (y0 < y1 && d->rows_func)
    d->rows_func (y0, y1, d->func_data);
  if (done)
    {
      GTask *task = g_object_ref (d->task);

      /* the thread has ended: the decoder is the main thread's now */
      if (d->decoder != NULL && d->image == NULL && d->error == NULL)
        d->image = lb_png_decoder_finish (d->decoder, &d->error);

      /* reading paused for the decoder, which ended first (an error, or cancelled) */
      if (d->reading && !d->in_flight)
        {
          d->reading = FALSE;
          g_object_unref (task);
        }
      complete (d, g_steal_pointer (&d->image), g_steal_pointer (&d->error));
      g_object_unref (task); /* may free d */
    }
  else if (resume)
    read_now (d);
  return G_SOURCE_REMOVE;
}

/* The read chain ends: drop its reference. */
static void
stop_reading (LoadData *d)
{
  d->reading = FALSE;
  g_object_unref (d->task); /* may free d */
}

/* Hands @bytes (owned; empty = end of data) to the decoder thread. TRUE if reading should
 * pause until the thread has drained the queue. */
static gboolean
push_chunk (LoadData *d,
            GBytes   *bytes)
{
  gsize len = g_bytes_get_size (bytes);
  gboolean pause = FALSE;

  g_mutex_lock (&d->lock);
  if (len == 0)
    {
      g_bytes_unref (bytes);
      d->eof = TRUE;
    }
  else
    {
      g_queue_push_tail (&d->chunks, bytes);
      d->queued += len;
    }
  g_cond_signal (&d->cond);
  /* after the end of data there is nothing left to read, whatever the queue holds */
  pause = len > 0 && d->queued > QUEUE_HIGH;
  d->paused = pause;
  g_mutex_unlock (&d->lock);
  return pause;
}

static void
on_read (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  LoadData *d = user_data;
  GBytes *bytes;
  GError *error = NULL;
  const guint8 *data;
  gsize len;
  gboolean pause = FALSE;

  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, &error);
  d->in_flight = FALSE;
  if (d->yielding || d->burst_start == 0)
    d->burst_start = g_get_monotonic_time ();
  if (d->returned)
    {
      /* the decoder failed meanwhile: the rest of the stream does not matter */
      g_clear_pointer (&bytes, g_bytes_unref);
      g_clear_error (&error);
      stop_reading (d);
      return;
    }
  if (bytes == NULL)
    {
      g_prefix_error (&error, "%s: ", d->name);
      complete (d, NULL, error);
      stop_reading (d);
      return;
    }
  data = g_bytes_get_data (bytes, &len);
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
      d->thread = g_thread_new ("lb-loader", decode_thread, d);
    }
  /* then what else the socket holds, without a main-loop iteration per chunk, for the rest
   * of the burst */
  while (len > 0 && !(pause = push_chunk (d, bytes)) && d->pollable
         && g_get_monotonic_time () - d->burst_start <= BURST_US)
    {
      guint8 *buf = g_malloc (CHUNK_SIZE);
      gssize n = g_pollable_input_stream_read_nonblocking (G_POLLABLE_INPUT_STREAM (d->stream),
                                                           buf, CHUNK_SIZE, d->cancellable,
                                                           &error);
      if (n < 0)
        {
          g_free (buf);
          bytes = NULL;
          if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
            {
              g_clear_error (&error);
              break;
            }
          g_prefix_error (&error, "%s: ", d->name);
          complete (d, NULL, error);
          stop_reading (d);
          return;
        }
      len = (gsize) n;
      bytes = g_bytes_new_take (g_realloc (buf, MAX (n, 1)), len);
    }
  if (len == 0)
    {
      push_chunk (d, bytes); /* end of data */
      stop_reading (d);
    }
  else if (!pause)
    read_now (d);
  /* else: the decoder thread asks for more when the queue has drained (on_notify) */
}

static void
read_now (LoadData *d)
{
  d->in_flight = TRUE;
  d->yielding = d->burst_start == 0 || g_get_monotonic_time () - d->burst_start > BURST_US;
  g_input_stream_read_bytes_async (d->stream, CHUNK_SIZE,
                                   d->yielding ? LOAD_PRIORITY : G_PRIORITY_DEFAULT,
                                   g_task_get_cancellable (d->task), on_read, d);
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
  d->task = task;
  d->stream = g_object_ref (stream);
  d->name = g_strdup (name != NULL ? name : "image");
  d->header_func = header_func;
  d->rows_func = rows_func;
  d->func_data = func_data;
  d->context = g_main_context_ref_thread_default ();
  d->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  d->pollable = G_IS_POLLABLE_INPUT_STREAM (stream)
                && g_pollable_input_stream_can_poll (G_POLLABLE_INPUT_STREAM (stream));
  d->dirty_y0 = G_MAXUINT;
  g_mutex_init (&d->lock);
  g_cond_init (&d->cond);
  g_task_set_task_data (task, d, (GDestroyNotify) load_data_free);
  /* two references: the read chain's and the decode side's (dropped when returned) */
  g_object_ref (task);
  d->reading = TRUE;
  read_now (d);
}

LbImage *
lb_loader_load_finish (GAsyncResult  *result,
                       GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
