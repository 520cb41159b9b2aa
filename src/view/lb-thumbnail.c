/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-thumbnail"

#include "lb-thumbnail.h"

#include <math.h>

static void
full_range (const LbValueModel *model, guint bits, LbVoi *voi)
{
  double a = lb_sample_value (model, 0);
  double b = lb_sample_value (model, bits == 16 ? 65535 : 255);
  double lo = MIN (a, b), hi = MAX (a, b);

  /* under LINEAR (C.11.2.1.2.1) c − 0.5 ± (w − 1)/2 = lo … hi: lo black, hi white */
  voi->center = (lo + hi) / 2.0 + 0.5;
  voi->width = hi - lo + 1;
}

void
lb_thumbnail_default_voi (LbImage *image, LbVoi *voi)
{
  LbRenderSource src;
  guint bits;
  const LbValueModel *model;
  double c, w;

  g_return_if_fail (LB_IS_IMAGE (image));
  lb_render_source_from_image (&src, image);
  bits = lb_sample_format_get_bit_depth (src.format);
  model = lb_image_meta_get_value_model_for (lb_image_get_meta (image), bits);
  voi->function = model ? lb_value_model_get_voi_function (model) : LB_VOI_LINEAR;
  voi->lut = NULL;
  if (model != NULL && lb_value_model_get_window (model, 0, &c, &w, NULL))
    {
      voi->center = c;
      voi->width = w;
      return;
    }
  if (model != NULL && lb_value_model_get_n_voi_luts (model) > 0)
    {
      voi->lut = lb_value_model_get_voi_lut (model, 0);
      return;
    }
  if (bits == 16)
    {
      g_autofree guint64 *hist = g_new0 (guint64, 65536);

      lb_histogram_add_rows (hist, &src, 0, src.height);
      if (lb_histogram_window (hist, 65536, model, 0.01, 0.99, &voi->center, &voi->width))
        return;
    }
  full_range (model, bits, voi);
}

GBytes *
lb_thumbnail_render (LbImage *image, guint max_side, guint *out_width, guint *out_height)
{
  LbRenderSource src;
  LbVoi voi;
  LbLut lut = { 0 };
  LbViewTransform view = { 0 };
  guint w, h, longer;
  guint8 *out;

  g_return_val_if_fail (LB_IS_IMAGE (image), NULL);
  g_return_val_if_fail (max_side > 0, NULL);
  lb_render_source_from_image (&src, image);
  longer = MAX (src.width, src.height);
  view.zoom = (double) max_side / longer;
  w = MAX (1, (guint) lround (src.width * view.zoom));
  h = MAX (1, (guint) lround (src.height * view.zoom));
  view.center_x = src.width / 2.0;
  view.center_y = src.height / 2.0;
  lb_thumbnail_default_voi (image, &voi);
  lb_lut_build (&lut, lb_sample_format_get_bit_depth (src.format),
                lb_image_meta_get_value_model_for (lb_image_get_meta (image),
                                                   lb_sample_format_get_bit_depth (src.format)),
                &voi, FALSE);
  out = g_malloc ((gsize) w * h * 4);
  lb_render_view (out, (gsize) w * 4, w, h, &view, &src, &lut, NULL, NULL, 0);
  lb_lut_clear (&lut);
  *out_width = w;
  *out_height = h;
  return g_bytes_new_take (out, (gsize) w * h * 4);
}
