/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "lb-format.h"

G_BEGIN_DECLS

/**
 * LbLimits:
 * @max_pixels: largest width × height accepted, in pixels
 * @max_bytes: largest pixel buffer accepted, in bytes
 *
 * Checked against the dimensions a file *claims* before anything is allocated, so that a
 * decompression bomb fails with %LB_ERROR_TOO_LARGE instead of exhausting memory.
 */
typedef struct {
  guint64 max_pixels;
  guint64 max_bytes;
} LbLimits;

/* Defaults: 256 Mpx and 2 GiB, enough for a 64 Mpx RGBA16 image with room to spare.
 * LIGHTBOX_MAX_PIXELS and LIGHTBOX_MAX_BYTES in the environment override them. */
#define LB_LIMITS_DEFAULT_MAX_PIXELS (G_GUINT64_CONSTANT (1) << 28)
#define LB_LIMITS_DEFAULT_MAX_BYTES (G_GUINT64_CONSTANT (1) << 31)

const LbLimits *lb_limits_get_default (void);
void            lb_limits_set_default (const LbLimits *limits);

/**
 * lb_limits_check:
 * @limits: (nullable): the limits, or %NULL for the defaults
 * @out_stride: (out) (optional): bytes per row (tightly packed)
 * @out_size: (out) (optional): bytes of the whole buffer
 *
 * Computes the buffer geometry for an image with overflow checks on every product, and
 * refuses zero-sized or over-limit images with %LB_ERROR_TOO_LARGE / %LB_ERROR_INVALID_ARGUMENT.
 */
gboolean lb_limits_check (const LbLimits *limits,
                          guint           width,
                          guint           height,
                          LbSampleFormat  format,
                          gsize          *out_stride,
                          gsize          *out_size,
                          GError        **error);

G_END_DECLS
