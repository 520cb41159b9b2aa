/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-filter.h"
#include "lb-filter-plugin.h"
#include "lb-image.h"

G_BEGIN_DECLS

/*
 * lb-filter-image: what a filter sees of an LbImage (engine-internal): the LbFilterImage
 * its callbacks get, with the LbFilterMeta (ABI 1.3) taken from the image's metadata.
 */

/* Fills @meta from @image's metadata: the value model (when it describes @image's sample
 * size), pixel spacing and the DICOM Modality text. Its strings are @image's, valid while
 * @image lives. */
void _lb_filter_meta_init  (LbFilterMeta       *meta,
                            LbImage            *image);

/* Fills @out to describe all of @image (region: the whole image, no aux), pointing at
 * @meta, which must outlive it. */
void _lb_filter_image_init (LbFilterImage      *out,
                            LbImage            *image,
                            const LbFilterMeta *meta,
                            guint64             seed);

/* Sets @image->aux for @filter: to @aux_out describing @aux (with @aux_meta) when the filter
 * reads two images, else to %NULL. Fails with %LB_ERROR_INVALID_ARGUMENT when such a filter
 * has no @aux, %LB_ERROR_UNSUPPORTED when it does not take @aux's format. */
gboolean _lb_filter_image_init_aux (LbFilterImage  *image,
                                    LbFilterImage  *aux_out,
                                    LbFilterMeta   *aux_meta,
                                    LbFilter       *filter,
                                    LbImage        *aux,
                                    GError        **error);

/* Checks the output a LB_FILTER_FLAG_GEOMETRY filter declared in prepare(): one of the
 * eight formats, 1 to 65535 pixels each way within the image limits (lb-limits.h), positive
 * scales. Sets @row_size to the bytes of a packed output row. */
gboolean     _lb_filter_output_check (const LbFilterOutput *out,
                                      gsize                *row_size,
                                      GError              **error);
/* Drops @meta's value model when samples of @from became samples of @to of another size or
 * colour layout (a model describes grey samples of one size). */
void         _lb_filter_meta_keep_model (LbImageMeta   *meta,
                                         LbSampleFormat from,
                                         LbSampleFormat to);
/* The metadata of a pass's output: @input's, with the pixel spacing divided by @out's scale
 * and the value model only if it still applies (_lb_filter_meta_keep_model()). */
LbImageMeta *_lb_filter_output_meta  (LbImage              *input,
                                      const LbFilterOutput *out);

G_END_DECLS
