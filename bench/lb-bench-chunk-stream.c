/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-bench-chunk-stream"

#include <string.h>

#include "lb-bench-chunk-stream.h"

#define PATTERN_SIZE 4096

struct _LbBenchChunkStream {
  GInputStream parent_instance;
  guint64 size;
  guint64 offset;
  gsize chunk;
  gsize max_request;
  guint8 pattern[PATTERN_SIZE];
};

static void lb_bench_chunk_stream_pollable_init (GPollableInputStreamInterface *iface);

/* Pollable and always readable, like GMemoryInputStream (what lb_store_write_bytes_async
 * uploads from): async readers such as libsoup read it on their own context instead of
 * bouncing every read through a worker thread. */
G_DEFINE_FINAL_TYPE_WITH_CODE (LbBenchChunkStream, lb_bench_chunk_stream, G_TYPE_INPUT_STREAM,
                               G_IMPLEMENT_INTERFACE (G_TYPE_POLLABLE_INPUT_STREAM,
                                                      lb_bench_chunk_stream_pollable_init))

static gssize
lb_bench_chunk_stream_read (GInputStream *stream, void *buffer, gsize count,
                            GCancellable *cancellable, GError **error)
{
  LbBenchChunkStream *self = LB_BENCH_CHUNK_STREAM (stream);
  gsize n, done = 0;

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return -1;
  self->max_request = MAX (self->max_request, count);
  n = (gsize) MIN ((guint64) MIN (count, self->chunk), self->size - self->offset);
  while (done < n)
    {
      gsize at = (gsize) ((self->offset + done) % PATTERN_SIZE);
      gsize k = MIN (n - done, PATTERN_SIZE - at);
      memcpy ((guint8 *) buffer + done, self->pattern + at, k);
      done += k;
    }
  self->offset += n;
  return (gssize) n;
}

static gboolean
lb_bench_chunk_stream_is_readable (GPollableInputStream *stream)
{
  return TRUE;
}

static GSource *
lb_bench_chunk_stream_create_source (GPollableInputStream *stream, GCancellable *cancellable)
{
  g_autoptr (GSource) base = g_timeout_source_new (0);
  GSource *source = g_pollable_source_new (G_OBJECT (stream));

  g_source_add_child_source (source, base);
  if (cancellable != NULL)
    {
      g_autoptr (GSource) cancel = g_cancellable_source_new (cancellable);
      g_source_set_dummy_callback (cancel);
      g_source_add_child_source (source, cancel);
    }
  return source;
}

static gssize
lb_bench_chunk_stream_read_nonblocking (GPollableInputStream *stream, void *buffer, gsize count,
                                        GError **error)
{
  return lb_bench_chunk_stream_read (G_INPUT_STREAM (stream), buffer, count, NULL, error);
}

static void
lb_bench_chunk_stream_pollable_init (GPollableInputStreamInterface *iface)
{
  iface->is_readable = lb_bench_chunk_stream_is_readable;
  iface->create_source = lb_bench_chunk_stream_create_source;
  iface->read_nonblocking = lb_bench_chunk_stream_read_nonblocking;
}

static void
lb_bench_chunk_stream_class_init (LbBenchChunkStreamClass *klass)
{
  G_INPUT_STREAM_CLASS (klass)->read_fn = lb_bench_chunk_stream_read;
}

static void
lb_bench_chunk_stream_init (LbBenchChunkStream *self)
{
  for (guint i = 0; i < PATTERN_SIZE; i++)
    self->pattern[i] = (guint8) (i * 131 + 7);
}

GInputStream *
lb_bench_chunk_stream_new (guint64 size, gsize chunk)
{
  LbBenchChunkStream *self = g_object_new (LB_TYPE_BENCH_CHUNK_STREAM, NULL);

  g_return_val_if_fail (chunk > 0, NULL);
  self->size = size;
  self->chunk = chunk;
  return G_INPUT_STREAM (self);
}

gsize
lb_bench_chunk_stream_get_max_request (LbBenchChunkStream *self)
{
  g_return_val_if_fail (LB_IS_BENCH_CHUNK_STREAM (self), 0);
  return self->max_request;
}
