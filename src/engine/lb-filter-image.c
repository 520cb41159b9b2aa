/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-filter-image"

#include "lb-error.h"
#include <math.h>

#include "lb-filter-image.h"
#include "lb-image-meta.h"
#include "lb-limits.h"
#include "lb-value-model.h"

void
_lb_filter_meta_init (LbFilterMeta *meta,
                      LbImage      *image)
{
  const LbImageMeta *im = lb_image_get_meta (image);
  LbSampleFormat format = lb_image_get_format (image);
  guint colours = lb_sample_format_get_channels (format)
                  - (lb_sample_format_has_alpha (format) ? 1 : 0);
  /* a model describes grey samples of its own size only (a filter that changed the sample
   * size, or made colour of grey, left it behind) */
  LbValueModel *model = im != NULL && colours == 1
                        ? lb_image_meta_get_value_model_for (im,
                                                             lb_sample_format_get_bit_depth (format))
                        : NULL;
  double cx, cy;
  guint lo, hi;

  *meta = (LbFilterMeta) { 0 };
  meta->struct_size = sizeof *meta;
  meta->rescale_slope = 1.0;
  if (im == NULL)
    return;
  if (lb_image_meta_get_pixel_spacing (im, &cx, &cy) && cx > 0 && cy > 0)
    {
      meta->flags |= LB_FILTER_META_SPACING;
      meta->spacing_x_mm = cx;
      meta->spacing_y_mm = cy;
    }
  meta->modality = lb_image_meta_get_text (im, "Modality");
  if (model == NULL)
    return;
  /* the linear map from samples (offset folded into the intercept); a Modality LUT table
   * has none */
  if (lb_value_model_get_rescale (model, &meta->rescale_slope, &meta->rescale_intercept))
    meta->flags |= LB_FILTER_META_RESCALE;
  meta->units = lb_value_model_get_units (model);
  meta->sample_offset = lb_value_model_get_sample_offset (model);
  if (lb_value_model_get_source_signed (model))
    meta->flags |= LB_FILTER_META_SIGNED;
  meta->bits_stored = lb_value_model_get_bits_stored (model);
  if (lb_value_model_get_padding (model, &lo, &hi))
    {
      meta->flags |= LB_FILTER_META_PADDING;
      meta->padding_lo = lo;
      meta->padding_hi = hi;
    }
  if (lb_value_model_get_n_windows (model) > 0
      && lb_value_model_get_window (model, 0, &meta->window_center, &meta->window_width, NULL))
    meta->flags |= LB_FILTER_META_WINDOW;
  if (lb_value_model_get_monochrome1 (model))
    meta->flags |= LB_FILTER_META_MONOCHROME1;
}

void
_lb_filter_image_init (LbFilterImage      *out,
                       LbImage            *image,
                       const LbFilterMeta *meta,
                       guint64             seed)
{
  LbSampleFormat format = lb_image_get_format (image);

  *out = (LbFilterImage) { 0 };
  out->struct_size = sizeof *out;
  out->width = (int) lb_image_get_width (image);
  out->height = (int) lb_image_get_height (image);
  out->format = format;
  out->channels = lb_sample_format_get_channels (format);
  out->depth = lb_sample_format_get_bit_depth (format);
  out->has_alpha = lb_sample_format_has_alpha (format);
  out->src = lb_image_get_data (image);
  out->src_stride = lb_image_get_stride (image);
  out->region = (LbFilterRect) { 0, 0, out->width, out->height };
  out->seed = seed;
  out->meta = meta;
}

gboolean
_lb_filter_image_init_aux (LbFilterImage  *image,
                           LbFilterImage  *aux_out,
                           LbFilterMeta   *aux_meta,
                           LbFilter       *filter,
                           LbImage        *aux,
                           GError        **error)
{
  const char *id = lb_filter_get_id (filter);

  image->aux = NULL;
  if (lb_filter_get_n_inputs (filter) < 2)
    return TRUE;
  if (aux == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "%s reads a second image, and none was given", id);
      return FALSE;
    }
  if (!lb_filter_supports_format (filter, lb_image_get_format (aux)))
    {
      g_autofree char *formats = lb_filter_dup_formats_string (filter);
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                   "%s does not support %s images as its second image (it supports %s)", id,
                   lb_sample_format_to_string (lb_image_get_format (aux)), formats);
      return FALSE;
    }
  _lb_filter_meta_init (aux_meta, aux);
  _lb_filter_image_init (aux_out, aux, aux_meta, image->seed);
  image->aux = aux_out;
  return TRUE;
}

gboolean
_lb_filter_output_check (const LbFilterOutput *out,
                         gsize                *row_size,
                         GError              **error)
{
  if (out->format < 0 || out->format >= LB_N_FORMATS)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                   "prepare() declared output format %d, which is none of the eight",
                   out->format);
      return FALSE;
    }
  if (out->width < 1 || out->height < 1 || out->width > 65535 || out->height > 65535)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                   "prepare() declared an output of %d×%d pixels (1 to 65535 each way)",
                   out->width, out->height);
      return FALSE;
    }
  if (!(out->scale_x > 0) || !(out->scale_y > 0) || !isfinite (out->scale_x)
      || !isfinite (out->scale_y))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                   "prepare() declared output scales %g and %g (they must be positive)",
                   out->scale_x, out->scale_y);
      return FALSE;
    }
  return lb_limits_check (NULL, (guint) out->width, (guint) out->height,
                          (LbSampleFormat) out->format, row_size, NULL, error);
}

void
_lb_filter_meta_keep_model (LbImageMeta   *meta,
                            LbSampleFormat from,
                            LbSampleFormat to)
{
  if (lb_sample_format_get_bit_depth (from) != lb_sample_format_get_bit_depth (to)
      || lb_sample_format_get_channels (from) - lb_sample_format_has_alpha (from)
         != lb_sample_format_get_channels (to) - lb_sample_format_has_alpha (to))
    lb_image_meta_set_value_model (meta, NULL);
}

LbImageMeta *
_lb_filter_output_meta (LbImage              *input,
                        const LbFilterOutput *out)
{
  LbImageMeta *meta = lb_image_meta_copy (lb_image_get_meta (input));
  double x, y;

  if ((out->scale_x != 1 || out->scale_y != 1)
      && lb_image_meta_get_pixel_spacing (meta, &x, &y))
    lb_image_meta_set_pixel_spacing (meta, x / out->scale_x, y / out->scale_y);
  _lb_filter_meta_keep_model (meta, lb_image_get_format (input), (LbSampleFormat) out->format);
  return meta;
}
