/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>

#include "lb-value-model.h"

G_BEGIN_DECLS

/**
 * LbImageMeta:
 *
 * What is known about an image besides its pixels: ordered text key/values (PNG tEXt/iTXt,
 * DICOM attributes), pixel spacing in millimetres, where it came from (URI and ETag, for
 * safe write-back), and what the samples mean (the value model: rescale, units, window …).
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

/* What the grey samples mean (rescale, units, padding, windows, MONOCHROME1, …): see
 * #LbValueModel. NULL for an image without one: a sample is its own value. Setting takes a
 * reference (the model is immutable, so copies of the meta share it). */
void          lb_image_meta_set_value_model  (LbImageMeta  *meta,
                                              LbValueModel *model);
/* (transfer none) (nullable) */
LbValueModel *lb_image_meta_get_value_model  (const LbImageMeta *meta);
/* The model when it describes samples of @sample_bits (8 or 16), else NULL: a filter that
 * changed the sample size left the source's model behind. */
LbValueModel *lb_image_meta_get_value_model_for (const LbImageMeta *meta,
                                                 guint              sample_bits);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LbImageMeta, lb_image_meta_unref)

G_END_DECLS
