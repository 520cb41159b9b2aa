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

G_END_DECLS
