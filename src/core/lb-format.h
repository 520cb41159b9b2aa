/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * LbSampleFormat:
 *
 * How the pixels of an #LbImage are laid out. Channels are interleaved in the order the name
 * gives (G, GA, RGB, RGBA). 16-bit samples are stored as guint16 in host byte order; alpha is
 * straight (not premultiplied). Values are appended only, so they can be stored in files.
 */
typedef enum {
  LB_FORMAT_GRAY8,
  LB_FORMAT_GRAY16,
  LB_FORMAT_GRAYA8,
  LB_FORMAT_GRAYA16,
  LB_FORMAT_RGB8,
  LB_FORMAT_RGBA8,
  LB_FORMAT_RGB16,
  LB_FORMAT_RGBA16,
} LbSampleFormat;

#define LB_N_FORMATS 8

guint          lb_sample_format_get_channels    (LbSampleFormat format);
/* bytes per sample: 1 or 2 */
guint          lb_sample_format_get_sample_size (LbSampleFormat format);
/* bytes per pixel: channels × sample size */
guint          lb_sample_format_get_pixel_size  (LbSampleFormat format);
guint          lb_sample_format_get_bit_depth   (LbSampleFormat format);
gboolean       lb_sample_format_has_alpha       (LbSampleFormat format);
gboolean       lb_sample_format_is_gray         (LbSampleFormat format);
/* "gray8", "gray16", "graya8", "graya16", "rgb8", "rgba8", "rgb16", "rgba16" */
const char    *lb_sample_format_to_string       (LbSampleFormat format);
gboolean       lb_sample_format_from_string     (const char     *str,
                                                 LbSampleFormat *out_format);
/* The format with @gray, @alpha and @bit_depth (8 or 16). */
LbSampleFormat lb_sample_format_compose         (gboolean gray,
                                                 gboolean alpha,
                                                 guint    bit_depth);

G_END_DECLS
