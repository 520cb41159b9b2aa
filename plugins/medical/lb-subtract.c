/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Subtraction: the image minus a second image plus an offset, per sample, the way digital
 * subtraction angiography shows the vessels (the contrast-filled image minus the mask taken
 * before the injection). The first filter of ABI 1.3's second input (LbFilterInfo.n_inputs
 * 2, LbFilterImage.aux).
 *
 *   out = clamp (image − mask + offset × max / 100, 0, max)     for every colour sample
 *
 * max = 255 or 65535, the offset rounded to the nearest sample (halves away from zero);
 * alpha passes through. Both images must have the same size and format.
 */

#include "lb-medical.h"

typedef struct {
  double offset;   /* percent of the sample range */
} SubtractParams;

static const LbParamSpec subtract_params[] = {
  {
    .name = "offset", .label = N_("Offset"),
    .description = N_("Added to every difference, in percent of the sample range (50: no "
                      "change shows mid-grey)"),
    .type = LB_PARAM_DOUBLE, .offset = G_STRUCT_OFFSET (SubtractParams, offset),
    .min = -100, .max = 100, .def = 0, .ui_min = -100, .ui_max = 100, .step = 1, .digits = 1,
    .unit = LB_UNIT_PERCENT,
  },
};

typedef struct {
  gint64 offset;   /* in samples */
  const LbFilterImage *mask;
} SubtractState;

static gpointer
subtract_prepare (const LbFilterInfo  *info,
                  gconstpointer        params,
                  const LbFilterImage *image,
                  LbFilterRect        *write_rect,
                  GError             **error)
{
  const SubtractParams *p = params;
  const LbFilterImage *mask = lb_filter_image_get_aux (image);
  double max = image->depth == 16 ? 65535.0 : 255.0;
  double offset = p->offset / 100.0 * max;
  SubtractState *s;

  if (mask == NULL)
    {
      g_set_error_literal (error, g_quark_from_static_string ("lb-subtract"), 1,
                           "subtraction needs a second image, the mask to subtract");
      return NULL;
    }
  if (mask->width != image->width || mask->height != image->height
      || mask->format != image->format)
    {
      g_set_error (error, g_quark_from_static_string ("lb-subtract"), 2,
                   "the mask (%d×%d) must have the size and the format of the image (%d×%d)",
                   mask->width, mask->height, image->width, image->height);
      return NULL;
    }
  s = g_new0 (SubtractState, 1);
  s->offset = (gint64) (offset < 0 ? offset - 0.5 : offset + 0.5);
  s->mask = mask;
  return s;
}

static gboolean
subtract_process (gconstpointer       state,
                  const LbFilterBand *band,
                  GError            **error)
{
  const SubtractState *s = state;
  const LbFilterImage *im = band->image;
  int colours = im->has_alpha ? im->channels - 1 : im->channels;
  gint64 max = im->depth == 16 ? 65535 : 255;

  for (int y = band->y0; y < band->y1; y++)
    {
      const guint8 *a = im->src + (gsize) y * im->src_stride;
      const guint8 *b = s->mask->src + (gsize) y * s->mask->src_stride;
      guint8 *out = band->dst + (gsize) y * band->dst_stride;

      if (!lb_filter_band_rows_done (band, y > band->y0))
        return TRUE;
      for (int x = band->x0; x < band->x1; x++)
        for (int c = 0; c < colours; c++)
          {
            gsize i = (gsize) x * im->channels + c;
            gint64 v;

            if (im->depth == 16)
              {
                v = (gint64) ((const guint16 *) a)[i] - ((const guint16 *) b)[i] + s->offset;
                ((guint16 *) out)[i] = (guint16) CLAMP (v, 0, max);
              }
            else
              {
                v = (gint64) a[i] - b[i] + s->offset;
                out[i] = (guint8) CLAMP (v, 0, max);
              }
          }
    }
  return TRUE;
}

static void
subtract_release (gpointer state)
{
  g_free (state);
}

const LbFilterInfo lb_subtract_info = {
  .struct_size = sizeof (LbFilterInfo),
  .id = "io.github.lightbox.medical.subtract",
  .alias = "subtract",
  .name = N_("Subtract"),
  .category = N_("Medical"),
  .description = N_("The image minus a second image (a mask), plus an offset: digital "
                    "subtraction"),
  .formats = LB_FILTER_FORMATS_ALL,
  .flags = LB_FILTER_FLAG_POINT | LB_FILTER_FLAG_TILES,
  .params_version = 1,
  .params_size = sizeof (SubtractParams),
  .params = subtract_params,
  .n_params = G_N_ELEMENTS (subtract_params),
  .prepare = subtract_prepare,
  .process = subtract_process,
  .release = subtract_release,
  .n_inputs = 2,
};
