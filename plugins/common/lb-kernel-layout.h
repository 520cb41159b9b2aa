/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Layout and region helpers for the kernels of every family: a sample of any of the eight
 * pixel layouts (1–4 channels, 8 or 16 bits) read and written through its LbKernelBuf, a
 * kernel's hot loop instantiated once per layout, and the check of a source buffer with the
 * clip of the selection to it. */

#include "lb-kernel.h"

G_BEGIN_DECLS

/* Validates a buffer (channels 1–4, depth 8/16, stride large enough, data set) and clips
 * @region (NULL = whole image) to it; an empty clip is valid. */
gboolean lb_kernel_check_and_clip (const LbKernelBuf  *src,
                                   const LbKernelRect *region,
                                   LbKernelRect       *out_region,
                                   GError            **error);

/* Per-layout instances of a kernel's hot loop, so that its channel loops unroll:
 * LB_KERNEL_PER_LAYOUT (name, T, attr, body) defines, for the eight pixel layouts,
 *   attr static void name_<channels>_<depth> (const T *st, const LbKernelBuf *src,
 *                                             LbKernelBuf *dst, int y0, int y1)
 * as body (st, src, dst, y0, y1, colour channels, channels, depth), body being an
 * always-inline function; LB_KERNEL_LAYOUT_CALL (name, T, st, src, dst, y0, y1) calls the
 * instance of @src's layout. */
#define LB_KERNEL_LAYOUT_1(name, T, attr, body, nc, ch, depth)                               \
  attr static void name##_##ch##_##depth (const T *st, const LbKernelBuf *src,              \
                                          LbKernelBuf *dst, int y0, int y1)                  \
  { body (st, src, dst, y0, y1, nc, ch, depth); }
#define LB_KERNEL_PER_LAYOUT(name, T, attr, body)                                            \
  LB_KERNEL_LAYOUT_1 (name, T, attr, body, 1, 1, 8)                                          \
  LB_KERNEL_LAYOUT_1 (name, T, attr, body, 1, 2, 8)                                          \
  LB_KERNEL_LAYOUT_1 (name, T, attr, body, 3, 3, 8)                                          \
  LB_KERNEL_LAYOUT_1 (name, T, attr, body, 3, 4, 8)                                          \
  LB_KERNEL_LAYOUT_1 (name, T, attr, body, 1, 1, 16)                                         \
  LB_KERNEL_LAYOUT_1 (name, T, attr, body, 1, 2, 16)                                         \
  LB_KERNEL_LAYOUT_1 (name, T, attr, body, 3, 3, 16)                                         \
  LB_KERNEL_LAYOUT_1 (name, T, attr, body, 3, 4, 16)
#define LB_KERNEL_LAYOUT_CALL(name, T, st, src, dst, y0, y1)                                 \
  G_STMT_START                                                                               \
  {                                                                                          \
    typedef void (*LbKernelLayoutFn) (const T *, const LbKernelBuf *, LbKernelBuf *, int, int); \
    static const LbKernelLayoutFn layout_fns[2][4] = {                                       \
      { name##_1_8, name##_2_8, name##_3_8, name##_4_8 },                                    \
      { name##_1_16, name##_2_16, name##_3_16, name##_4_16 },                                \
    };                                                                                       \
    layout_fns[(src)->depth == 16][(src)->channels - 1] ((st), (src), (dst), (y0), (y1));   \
  }                                                                                          \
  G_STMT_END

static inline guint8 *
lb_kbuf_row (const LbKernelBuf *buf,
             int                y)
{
  return buf->data + (gsize) y * buf->stride;
}

/* colour channels: alpha (the last of 2 or 4) is excluded */
static inline int
lb_kbuf_color_channels (const LbKernelBuf *buf)
{
  return (buf->channels == 2 || buf->channels == 4) ? buf->channels - 1 : buf->channels;
}

static inline int
lb_kbuf_max_value (const LbKernelBuf *buf)
{
  return buf->depth == 16 ? 65535 : 255;
}

/* sample i of row pointer @row (i counts samples, not pixels) */
static inline int
lb_kbuf_get (const LbKernelBuf *buf,
             const guint8      *row,
             gsize              i)
{
  return buf->depth == 16 ? ((const guint16 *) (const void *) row)[i] : row[i];
}

static inline void
lb_kbuf_set (const LbKernelBuf *buf,
             guint8            *row,
             gsize              i,
             int                v)
{
  if (buf->depth == 16)
    ((guint16 *) (void *) row)[i] = (guint16) v;
  else
    row[i] = (guint8) v;
}

G_END_DECLS
