/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* An input stream of @size bytes (a repeating pattern, generated, never held whole) that
 * returns at most @chunk bytes per read: the sender buffer size of a TTCP upload through an
 * API that takes a stream rather than a buffer. It records the largest count a reader asked
 * for, so the bench can say which buffer size the HTTP stack really used. */
#define LB_TYPE_BENCH_CHUNK_STREAM (lb_bench_chunk_stream_get_type ())
G_DECLARE_FINAL_TYPE (LbBenchChunkStream, lb_bench_chunk_stream, LB, BENCH_CHUNK_STREAM, GInputStream)

GInputStream *lb_bench_chunk_stream_new            (guint64             size,
                                                    gsize               chunk);
/* The largest count passed to read() so far. */
gsize         lb_bench_chunk_stream_get_max_request (LbBenchChunkStream *self);

G_END_DECLS
