/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "measure-ct.h"

LbImage *
measure_ct_new (void)
{
  g_autofree guint16 *px = g_new (guint16, MEASURE_CT_SIZE * MEASURE_CT_SIZE);
  g_autoptr(LbImageMeta) meta = lb_image_meta_new ();
  g_autoptr(LbValueModel) model = NULL;
  LbValueModelBuilder *b = lb_value_model_builder_new (NULL, 16);
  guint32 seed = 27;

  for (guint y = 0; y < MEASURE_CT_SIZE; y++)
    for (guint x = 0; x < MEASURE_CT_SIZE; x++)
      {
        double dx = x + 0.5 - MEASURE_CT_SIZE / 2.0, dy = y + 0.5 - MEASURE_CT_SIZE / 2.0;
        gint32 stored;

        seed ^= seed << 13, seed ^= seed >> 17, seed ^= seed << 5;
        if (dx * dx + dy * dy > (MEASURE_CT_SIZE / 2.0) * (MEASURE_CT_SIZE / 2.0))
          stored = -2000;                               /* padding outside the scan */
        else
          stored = 1024 + 40 + (gint32) (seed % 61) - 30 + (gint32) (dx * 0.5);
        px[y * MEASURE_CT_SIZE + x] = (guint16) (stored + LB_VALUE_MODEL_SIGNED_OFFSET);
      }
  lb_value_model_builder_set_source (b, TRUE, 16);
  lb_value_model_builder_set_rescale (b, 1, -1024);
  lb_value_model_builder_set_units (b, "HU");
  lb_value_model_builder_set_padding (b, -2000 + LB_VALUE_MODEL_SIGNED_OFFSET,
                                      -2000 + LB_VALUE_MODEL_SIGNED_OFFSET);
  model = lb_value_model_builder_end (b);
  lb_image_meta_set_value_model (meta, model);
  lb_image_meta_set_pixel_spacing (meta, MEASURE_CT_SPACING, MEASURE_CT_SPACING);
  return lb_image_new_take (MEASURE_CT_SIZE, MEASURE_CT_SIZE, LB_FORMAT_GRAY16, MEASURE_CT_SIZE * 2,
                            (guint8 *) g_steal_pointer (&px), meta);
}

