/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Helpers shared by the xv kernels (lb-xv-*.c). Internal: not part of any plugin ABI.
 *
 * Every xv kernel follows one contract (see the per-filter headers for details):
 *
 *   prepare  (source, selection, parameters) → a small state struct, or a GError;
 *   process  (state, source, destination, y0, y1): writes destination rows y0..y1-1 (image
 *            coordinates; rows outside the region are skipped) and nothing else, reads any
 *            source pixel it needs. The destination starts as a copy of the source. Calls for
 *            disjoint row ranges may run concurrently; the result is byte-identical for any
 *            split into bands and any thread count;
 *   finish   (optional, edge only) a reduction over the destination region after all bands.
 *
 * The region is the selection clipped to the image (the whole image without a selection);
 * every neighbourhood is clipped to the region, as in xv. Colour channels are all channels
 * but a trailing alpha (2 or 4 channels); alpha samples of the destination are never written,
 * so they keep the source's values. */

#include <glib.h>

#include "lb-kernel.h"

G_BEGIN_DECLS

/* Generic kernels take the bit depth as a constant argument and are inlined into one wrapper
 * per depth, so each depth gets its own specialised loops. */
#define LB_XV_INLINE static inline __attribute__ ((always_inline))

/* Inclusive-exclusive bounds of the region: columns x0..x1-1, rows y0..y1-1. */
typedef struct {
  int x0;
  int y0;
  int x1;
  int y1;
} LbXvRegion;

/* Validates @src (depth 8/16, 1–4 channels, sane stride) and clips @selection (NULL = whole
 * image) to it. @what names the filter in error messages. */
gboolean _lb_xv_region_init (LbXvRegion         *region,
                             const LbKernelBuf  *src,
                             const LbKernelRect *selection,
                             const char         *what,
                             GError            **error);

/* Checks that @dst has the geometry of @src (used by g_return_if_fail in process()). */
gboolean _lb_xv_same_geometry (const LbKernelBuf *src,
                               const LbKernelBuf *dst);

/* Clips the band [*y0, *y1) to the rows of @region; TRUE if any row is left. */
static inline gboolean
_lb_xv_clip_rows (const LbXvRegion *region, int *y0, int *y1)
{
  *y0 = MAX (*y0, region->y0);
  *y1 = MIN (*y1, region->y1);
  return *y0 < *y1;
}

/* Defines a kernel's process function @name (state type @T, which has an LbXvRegion
 * member named region) as: check the arguments, clip the band to the region's rows, run
 * @rows (self, src, dst, y0, y1, depth), an LB_XV_INLINE row loop, instantiated once for 8
 * and once for 16 bits. */
#define LB_XV_DEFINE_PROCESS(name, T, rows)                                                  \
  void name (const T *self, const LbKernelBuf *src, LbKernelBuf *dst, int y0, int y1)        \
  {                                                                                          \
    g_return_if_fail (self != NULL && _lb_xv_same_geometry (src, dst));                       \
    if (!_lb_xv_clip_rows (&self->region, &y0, &y1))                                         \
      return;                                                                                \
    if (src->depth == 8)                                                                     \
      rows (self, src, dst, y0, y1, 8);                                                      \
    else                                                                                     \
      rows (self, src, dst, y0, y1, 16);                                                     \
  }

/* Number of colour channels: gray+alpha and RGBA leave their alpha alone. */
static inline int
lb_xv_colour_channels (int channels)
{
  return (channels == 2 || channels == 4) ? channels - 1 : channels;
}

static inline const guint8 *
lb_xv_row (const LbKernelBuf *buf, int y)
{
  return buf->data + (gsize) y * buf->stride;
}

static inline guint8 *
lb_xv_row_mut (LbKernelBuf *buf, int y)
{
  return buf->data + (gsize) y * buf->stride;
}

/* Sample i of a row; @depth is a compile-time constant at every call site (the generic
 * kernels are always_inline and instantiated once for 8 and once for 16 bits). */
static inline G_GNUC_UNUSED guint
lb_xv_get (const guint8 *row, gsize i, int depth)
{
  return depth == 8 ? row[i] : ((const guint16 *) (const void *) row)[i];
}

static inline G_GNUC_UNUSED void
lb_xv_put (guint8 *row, gsize i, guint v, int depth)
{
  if (depth == 8)
    row[i] = (guint8) v;
  else
    ((guint16 *) (void *) row)[i] = (guint16) v;
}

/* xv's luminance MONO(r,g,b) = (11 r + 16 g + 5 b) >> 5; for a single gray channel it is the
 * sample itself (MONO(v,v,v) = v exactly). Fits in 32 bits at 16 bits per sample. */
static inline G_GNUC_UNUSED guint
lb_xv_mono (guint r, guint g, guint b)
{
  return (11 * r + 16 * g + 5 * b) >> 5;
}

/* The largest sample value: 255 or 65535. */
static inline G_GNUC_UNUSED guint
lb_xv_max_value (int depth)
{
  return depth == 8 ? 255u : 65535u;
}

/* Hand-written AVX2 rows (immintrin.h, __attribute__ ((target ("avx2"))), chosen per call with
 * lb_kernel_have_avx2 ()) beside the portable loops, where the compiler offers them. */
#if defined(__x86_64__) && defined(__GNUC__)
#define LB_XV_HAVE_AVX2_PATH 1
#else
#define LB_XV_HAVE_AVX2_PATH 0
#endif

/* Exact floor(s / 9) for 0 ≤ s ≤ 2295 (= 9 · 255, a 3×3 sum of 8-bit samples) as
 * (s · 7282) >> 16, a 16-bit multiply-high: 7282 = ⌈2^16 / 9⌉ overshoots 1/9 by less than
 * 2^-18, so the error stays below 2295 · 2^-18 < 1/9. Checked for every s in the tests. */
#define LB_XV_DIV9_MAGIC 7282u
#define LB_XV_DIV9_MAX 2295u
static inline G_GNUC_UNUSED guint16
lb_xv_div9_u16 (guint16 s)
{
  return (guint16) (((guint32) s * LB_XV_DIV9_MAGIC) >> 16);
}

/* Exact floor(s / 3) for 0 ≤ s ≤ 765 (= 3 · 255, edge's gradients) as (s · 21846) >> 16,
 * 21846 = ⌈2^16 / 3⌉. Checked for every s in the tests. */
#define LB_XV_DIV3_MAGIC 21846u
#define LB_XV_DIV3_MAX 765u
static inline G_GNUC_UNUSED guint16
lb_xv_div3_u16 (guint16 s)
{
  return (guint16) (((guint32) s * LB_XV_DIV3_MAGIC) >> 16);
}

G_END_DECLS
