/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Small helpers shared by the kernels in plugins/xvgeom and plugins/enhance. */

#include "lb-kernel.h"

/* Hot loops are compiled twice on x86-64, for the baseline and for AVX2 (no FMA: results stay
 * bit-identical), and the loader picks one at start-up (GCC function multi-versioning). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define LB_XVGEOM_TARGET_CLONES __attribute__ ((target_clones ("avx2", "default")))
#else
#define LB_XVGEOM_TARGET_CLONES
#endif

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
