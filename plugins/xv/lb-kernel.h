/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Shared vocabulary of the filter kernels in plugins/: GLib only, no engine dependency, so
 * kernels can be tested directly against golden vectors and wrapped by any plugin. */

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

G_END_DECLS
