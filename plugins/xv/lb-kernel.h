/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Shared vocabulary of the filter kernels in plugins/: GLib only, no engine dependency, so
 * kernels can be tested directly against golden vectors and wrapped by any plugin. */

#include <string.h>

#include <glib.h>

G_BEGIN_DECLS

/**
 * LbKernelBuf:
 * @data: pixel (0, 0)
 * @stride: bytes from one row to the next
 * @width: pixels
 * @height: pixels
 * @channels: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA; alpha is always the last channel and
 *   passes through every filter unchanged
 * @depth: bits per sample, 8 (guint8) or 16 (guint16, host order)
 *
 * A view of native samples. Kernels read a source view and write a destination view of the
 * same geometry.
 */
typedef struct {
  guint8 *data;
  gsize stride;
  int width;
  int height;
  int channels;
  int depth;
} LbKernelBuf;

/* A rectangle in pixels; x, y of the top-left corner. */
typedef struct {
  int x;
  int y;
  int width;
  int height;
} LbKernelRect;

#if defined(__x86_64__) && defined(__GNUC__)
/* Whether the CPU runs AVX2, for kernels with hand-written AVX2 rows beside their portable
 * loops (asked once per file that calls it). */
static inline G_GNUC_UNUSED gboolean
lb_kernel_have_avx2 (void)
{
  static gsize once = 0;
  static gboolean avx2 = FALSE;

  if (g_once_init_enter (&once))
    {
      __builtin_cpu_init ();
      avx2 = __builtin_cpu_supports ("avx2");
      g_once_init_leave (&once, 1);
    }
  return avx2;
}
#endif

/* The alpha samples (the last of src->channels) of pixels [x0, x1) of row @y copied from
 * @src back into @dst; nothing without alpha. For kernels that run alpha through their
 * colour maths, since contiguous loops over every sample vectorise where skipping one sample
 * in four does not, and put it back after, while the row is still in cache. 8-bit RGBA as
 * 32-bit words (a mask built from bytes, so either byte order), which the compiler
 * vectorises. */
static inline G_GNUC_UNUSED void
lb_kernel_restore_alpha (const LbKernelBuf *src, LbKernelBuf *dst, int y, int x0, int x1)
{
  const int ch = src->channels;
  const guint8 *restrict s = src->data + (gsize) y * src->stride;
  guint8 *restrict d = dst->data + (gsize) y * dst->stride;

  if (ch != 2 && ch != 4)
    return;
  if (src->depth == 8 && ch == 4)
    {
      static const guint8 mask_bytes[4] = { 0, 0, 0, 0xff };
      guint32 amask;

      memcpy (&amask, mask_bytes, sizeof amask);
      for (gsize i = (gsize) x0 * 4; i < (gsize) x1 * 4; i += 4)
        {
          guint32 a, b;

          memcpy (&a, d + i, sizeof a);
          memcpy (&b, s + i, sizeof b);
          a = (a & ~amask) | (b & amask);
          memcpy (d + i, &a, sizeof a);
        }
    }
  else if (src->depth == 8)
    for (gsize i = (gsize) x0 * ch + ch - 1; i < (gsize) x1 * ch; i += ch)
      d[i] = s[i];
  else
    for (gsize i = (gsize) x0 * ch + ch - 1; i < (gsize) x1 * ch; i += ch)
      memcpy (d + 2 * i, s + 2 * i, 2);
}

G_END_DECLS
