/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Image buffers for the xv kernel tests (test-xv-kernels-a, test-xv-radius). */

#include <string.h>

#include "lb-xv-common.h"

/* An owned buffer with a padded stride, so kernels cannot assume packed rows. */
typedef struct {
  LbKernelBuf b;
  guint8 *mem;
} Buf;

static inline void
buf_init (Buf *buf, int width, int height, int channels, int depth, int pad)
{
  buf->b = (LbKernelBuf) { 0 };   /* no ticker */
  buf->b.width = width;
  buf->b.height = height;
  buf->b.channels = channels;
  buf->b.depth = depth;
  buf->b.stride = (gsize) width * channels * (depth / 8) + 2 * (gsize) pad;
  buf->mem = g_malloc0 (buf->b.stride * height);
  buf->b.data = buf->mem;
}

static inline void
buf_copy (Buf *dst, const Buf *src)
{
  buf_init (dst, src->b.width, src->b.height, src->b.channels, src->b.depth, 3);
  for (int y = 0; y < src->b.height; y++)
    memcpy (dst->b.data + y * dst->b.stride, src->b.data + y * src->b.stride,
            (gsize) src->b.width * src->b.channels * (src->b.depth / 8));
}

static inline void
buf_clear (Buf *buf)
{
  g_clear_pointer (&buf->mem, g_free);
}

static inline guint
buf_get (const Buf *buf, int x, int y, int c)
{
  const guint8 *row = buf->b.data + y * buf->b.stride;
  const gsize i = (gsize) x * buf->b.channels + c;

  return buf->b.depth == 8 ? row[i] : ((const guint16 *) (const void *) row)[i];
}

static inline void
buf_set (Buf *buf, int x, int y, int c, guint v)
{
  guint8 *row = buf->b.data + y * buf->b.stride;
  const gsize i = (gsize) x * buf->b.channels + c;

  if (buf->b.depth == 8)
    row[i] = (guint8) v;
  else
    ((guint16 *) (void *) row)[i] = (guint16) v;
}
