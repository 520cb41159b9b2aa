/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>

#include "lb-format.h"
#include "lb-image-meta.h"
#include "lb-limits.h"

G_BEGIN_DECLS

#define LB_TYPE_IMAGE (lb_image_get_type ())
G_DECLARE_FINAL_TYPE (LbImage, lb_image, LB, IMAGE, GObject)

/**
 * LbImage:
 *
 * An immutable image: width × height pixels of one #LbSampleFormat, rows @stride bytes apart,
 * held in a reference-counted #GBytes, plus an #LbImageMeta. Nothing ever changes an LbImage
 * after construction, so it may be shared freely between threads; filters make new images.
 *
 * Rows are tightly packed unless a caller built the image with a larger stride. 16-bit
 * samples are guint16 in host byte order.
 */

/**
 * lb_image_alloc_pixels:
 * @limits: (nullable): limits to enforce, %NULL for the defaults
 * @out_stride: (out): bytes per row
 *
 * Allocates an uninitialised, tightly packed pixel buffer for an image, after checking the
 * geometry against @limits. Returns %NULL with %LB_ERROR_TOO_LARGE or %LB_ERROR_NO_MEMORY
 * instead of aborting. Free with g_free(), or hand it to lb_image_new_take(). A large buffer
 * may be one a freed image left (lb-pixel-cache.h), which saves its page faults.
 */
guint8   *lb_image_alloc_pixels (guint           width,
                                 guint           height,
                                 LbSampleFormat  format,
                                 const LbLimits *limits,
                                 gsize          *out_stride,
                                 GError        **error);

/* (transfer full) @pixels: a buffer from lb_image_alloc_pixels() or g_malloc(), of at least
 * @stride × @height bytes; when the image is freed, a large one is kept for a later
 * lb_image_alloc_pixels() (lb-pixel-cache.h).
 * @meta: (nullable): copied; NULL means empty metadata. */
LbImage  *lb_image_new_take     (guint               width,
                                 guint               height,
                                 LbSampleFormat      format,
                                 gsize               stride,
                                 guint8             *pixels,
                                 const LbImageMeta  *meta);

/* Wraps existing bytes (kept by reference). Fails if @pixels is too short for the geometry. */
LbImage  *lb_image_new          (guint               width,
                                 guint               height,
                                 LbSampleFormat      format,
                                 gsize               stride,
                                 GBytes             *pixels,
                                 const LbImageMeta  *meta,
                                 GError            **error);

/* A new image sharing @self's pixels with different metadata (copied). */
LbImage  *lb_image_with_meta    (LbImage            *self,
                                 const LbImageMeta  *meta);

guint           lb_image_get_width   (LbImage *self);
guint           lb_image_get_height  (LbImage *self);
LbSampleFormat  lb_image_get_format  (LbImage *self);
gsize           lb_image_get_stride  (LbImage *self);
/* bytes of pixel data in one row, without padding: width × pixel size */
gsize           lb_image_get_row_size (LbImage *self);
const guint8   *lb_image_get_data    (LbImage *self);
const guint8   *lb_image_get_row     (LbImage *self,
                                      guint    y);
/* (transfer none) */
GBytes         *lb_image_get_bytes   (LbImage *self);
/* (transfer none): read-only */
const LbImageMeta *lb_image_get_meta (LbImage *self);
/* (transfer full): a mutable copy */
LbImageMeta    *lb_image_dup_meta    (LbImage *self);

/* Same size, format and pixel values (row padding and metadata are ignored). */
gboolean        lb_image_equal_pixels (LbImage *a,
                                       LbImage *b);

/**
 * lb_image_convert:
 *
 * Converts to another sample format. 8→16 bits multiplies by 257 (so 255 → 65535 exactly);
 * 16→8 rounds to nearest (v + 128) / 257 clamped. Gray→RGB replicates the sample; RGB→gray
 * uses integer ITU-R BT.601 luma (299 R + 587 G + 114 B + 500) / 1000. Added alpha is opaque;
 * dropped alpha is discarded (not composited). Returns a new reference to @self when the
 * format already matches.
 */
LbImage        *lb_image_convert     (LbImage        *self,
                                      LbSampleFormat  format,
                                      GError        **error);

G_END_DECLS
