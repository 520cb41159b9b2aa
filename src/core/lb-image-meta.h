/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/**
 * LbImageMeta:
 *
 * What is known about an image besides its pixels: ordered text key/values (PNG tEXt/iTXt,
 * DICOM attributes), pixel spacing in millimetres, where it came from (URI and ETag, for
 * safe write-back), and the DICOM value mapping (signed samples, rescale, window).
 *
 * Reference counted and mutable while it is being built; an #LbImage keeps its own copy, so a
 * meta obtained from an image with lb_image_get_meta() must be treated as read-only.
 */
typedef struct _LbImageMeta LbImageMeta;

#define LB_TYPE_IMAGE_META (lb_image_meta_get_type ())
GType        lb_image_meta_get_type         (void) G_GNUC_CONST;

LbImageMeta *lb_image_meta_new              (void);
LbImageMeta *lb_image_meta_ref              (LbImageMeta *meta);
void         lb_image_meta_unref            (LbImageMeta *meta);
LbImageMeta *lb_image_meta_copy             (const LbImageMeta *meta);

/* Text: keys keep insertion order; setting an existing key replaces its value in place.
 * A NULL value removes the key. */
void         lb_image_meta_set_text         (LbImageMeta *meta,
                                             const char  *key,
                                             const char  *value);
const char  *lb_image_meta_get_text         (const LbImageMeta *meta,
                                             const char  *key);
/* (transfer container): the keys, in order; free with g_free (strings are borrowed) */
const char **lb_image_meta_get_text_keys    (const LbImageMeta *meta,
                                             guint       *n_keys);

/* Pixel spacing: physical size of one pixel, millimetres (x = column spacing). */
void         lb_image_meta_set_pixel_spacing (LbImageMeta *meta,
                                              double       x_mm,
                                              double       y_mm);
gboolean     lb_image_meta_get_pixel_spacing (const LbImageMeta *meta,
                                              double      *x_mm,
                                              double      *y_mm);

void         lb_image_meta_set_source_uri   (LbImageMeta *meta,
                                             const char  *uri);
const char  *lb_image_meta_get_source_uri   (const LbImageMeta *meta);
/* The entity tag the source had when it was read (HTTP ETag, quotes included). */
void         lb_image_meta_set_source_etag  (LbImageMeta *meta,
                                             const char  *etag);
const char  *lb_image_meta_get_source_etag  (const LbImageMeta *meta);

/* DICOM-style value mapping. Signed: 16-bit samples hold two's-complement int16.
 * Rescale: modality value (e.g. Hounsfield units) = stored × slope + intercept.
 * Window: the centre/width the producer suggested, in modality units. */
void         lb_image_meta_set_signed       (LbImageMeta *meta,
                                             gboolean     is_signed);
gboolean     lb_image_meta_get_signed       (const LbImageMeta *meta);
void         lb_image_meta_set_rescale      (LbImageMeta *meta,
                                             double       slope,
                                             double       intercept);
gboolean     lb_image_meta_get_rescale      (const LbImageMeta *meta,
                                             double      *slope,
                                             double      *intercept);
void         lb_image_meta_set_window       (LbImageMeta *meta,
                                             double       center,
                                             double       width);
gboolean     lb_image_meta_get_window       (const LbImageMeta *meta,
                                             double      *center,
                                             double      *width);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LbImageMeta, lb_image_meta_unref)

G_END_DECLS
