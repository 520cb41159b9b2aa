/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Fixture plugin for ABI 1.3's image metadata (test-abi13.c):
 *
 *   meta-describe    prepare() refuses with an error that spells out every field of
 *                    LbFilterMeta, so the test sees exactly what the filter saw, in process
 *                    and in lightbox-filter-host alike
 *   value-threshold  samples whose real-world value (lb_filter_meta_to_value(): Hounsfield
 *                    units on a CT) is at or above "level" become the maximum, the others 0;
 *                    pixel padding keeps its value
 *   crop             (LB_FILTER_FLAG_GEOMETRY) the region, as an image of its own; "deep"
 *                    makes 8-bit samples 16-bit (× 257), "bad" declares a 0-pixel output
 */

#include <lb-filter-plugin.h>

typedef struct {
  double level;
} LevelParams;

static const LbParamSpec level_params[] = {
  {
    .name = "level", .label = "Level", .type = LB_PARAM_DOUBLE,
    .offset = G_STRUCT_OFFSET (LevelParams, level),
    .min = -100000, .max = 100000, .def = 0, .ui_min = -2000, .ui_max = 4000, .step = 1,
  },
};

typedef struct {
  double level;
  const LbFilterMeta *meta;
} LevelState;

static gpointer
describe_prepare (const LbFilterInfo  *info,
                  gconstpointer        params,
                  const LbFilterImage *image,
                  LbFilterRect        *write_rect,
                  GError             **error)
{
  const LbFilterMeta *m = lb_filter_image_get_meta (image);

  if (m == NULL)
    {
      g_set_error (error, g_quark_from_static_string ("lb-abi13-test"), 1, "no meta");
      return NULL;
    }
  g_set_error (error, g_quark_from_static_string ("lb-abi13-test"), 1,
               "flags=0x%x slope=%g intercept=%g units=%s offset=%u bits=%u padding=%u..%u "
               "spacing=%gx%g window=%g/%g modality=%s aux=%s",
               m->flags, m->rescale_slope, m->rescale_intercept, m->units ? m->units : "-",
               m->sample_offset, m->bits_stored, m->padding_lo, m->padding_hi, m->spacing_x_mm,
               m->spacing_y_mm, m->window_center, m->window_width,
               m->modality ? m->modality : "-", lb_filter_image_get_aux (image) ? "yes" : "no");
  return NULL;
}

static gpointer
level_prepare (const LbFilterInfo  *info,
               gconstpointer        params,
               const LbFilterImage *image,
               LbFilterRect        *write_rect,
               GError             **error)
{
  LevelState *s = g_new0 (LevelState, 1);

  s->level = ((const LevelParams *) params)->level;
  s->meta = lb_filter_image_get_meta (image);
  return s;
}

static gboolean
level_process (gconstpointer       state,
               const LbFilterBand *band,
               GError            **error)
{
  const LevelState *s = state;
  const LbFilterImage *im = band->image;
  guint max = im->depth == 16 ? 65535 : 255;

  for (int y = band->y0; y < band->y1; y++)
    {
      const guint8 *in = im->src + (gsize) y * im->src_stride;
      guint8 *out = band->dst + (gsize) y * band->dst_stride;

      if (!lb_filter_band_rows_done (band, y > band->y0))
        return TRUE;
      for (int x = band->x0; x < band->x1; x++)
        {
          guint v = im->depth == 16 ? ((const guint16 *) in)[x * im->channels] : in[x * im->channels];
          guint r;

          if (lb_filter_meta_is_padding (s->meta, v))
            continue;
          r = lb_filter_meta_to_value (s->meta, v) >= s->level ? max : 0;
          if (im->depth == 16)
            ((guint16 *) out)[x * im->channels] = (guint16) r;
          else
            out[x * im->channels] = (guint8) r;
        }
    }
  return TRUE;
}

typedef struct {
  gboolean deep;
  gboolean bad;
} CropParams;

static const LbParamSpec crop_params[] = {
  {
    .name = "deep", .label = "16 bits", .type = LB_PARAM_BOOL,
    .offset = G_STRUCT_OFFSET (CropParams, deep), .max = 1, .ui_max = 1, .step = 1,
  },
  {
    .name = "bad", .label = "Bad", .type = LB_PARAM_BOOL,
    .offset = G_STRUCT_OFFSET (CropParams, bad), .max = 1, .ui_max = 1, .step = 1,
  },
};

typedef struct {
  LbFilterRect region;
  int out_depth;
} CropState;

static gpointer
crop_prepare (const LbFilterInfo  *info,
              gconstpointer        params,
              const LbFilterImage *image,
              LbFilterRect        *write_rect,
              GError             **error)
{
  const CropParams *p = params;
  LbFilterOutput *out = lb_filter_image_get_output (image);
  CropState *s;

  if (out == NULL)
    {
      g_set_error (error, g_quark_from_static_string ("lb-abi13-test"), 2, "no output");
      return NULL;
    }
  s = g_new0 (CropState, 1);
  s->region = image->region;
  s->out_depth = p->deep ? 16 : image->depth;
  out->width = p->bad ? 0 : image->region.width;
  out->height = image->region.height;
  if (p->deep && image->format == LB_FILTER_FORMAT_GRAY8)
    out->format = LB_FILTER_FORMAT_GRAY16;
  else if (p->deep && image->format == LB_FILTER_FORMAT_RGB8)
    out->format = LB_FILTER_FORMAT_RGB16;
  else
    s->out_depth = image->depth;
  return s;
}

static gboolean
crop_process (gconstpointer       state,
              const LbFilterBand *band,
              GError            **error)
{
  const CropState *s = state;
  const LbFilterImage *im = band->image;

  for (int y = band->y0; y < band->y1; y++)
    {
      const guint8 *in = im->src + (gsize) (y + s->region.y) * im->src_stride;
      guint8 *out = band->dst + (gsize) y * band->dst_stride;

      for (int i = band->x0 * im->channels; i < band->x1 * im->channels; i++)
        {
          gsize from = (gsize) s->region.x * im->channels + i;
          guint v = im->depth == 16 ? ((const guint16 *) in)[from] : in[from];

          if (s->out_depth == 16)
            ((guint16 *) out)[i] = (guint16) (im->depth == 8 ? v * 257 : v);
          else
            out[i] = (guint8) v;
        }
    }
  return TRUE;
}

static void
release (gpointer state)
{
  g_free (state);
}

#define GRAY (LB_FILTER_FORMAT_BIT (LB_FILTER_FORMAT_GRAY8) \
              | LB_FILTER_FORMAT_BIT (LB_FILTER_FORMAT_GRAY16))

static const LbFilterInfo describe_info = {
  .struct_size = sizeof (LbFilterInfo),
  .id = "io.github.lightbox.test.meta-describe",
  .alias = "meta-describe",
  .name = "Describe metadata",
  .category = "Test",
  .formats = LB_FILTER_FORMATS_ALL,
  .params_version = 1,
  .prepare = describe_prepare,
  .process = level_process,
  .release = release,
};

static const LbFilterInfo level_info = {
  .struct_size = sizeof (LbFilterInfo),
  .id = "io.github.lightbox.test.value-threshold",
  .alias = "value-threshold",
  .name = "Threshold in real-world values",
  .category = "Test",
  .formats = GRAY,
  .params_version = 1,
  .params_size = sizeof (LevelParams),
  .params = level_params,
  .n_params = G_N_ELEMENTS (level_params),
  .prepare = level_prepare,
  .process = level_process,
  .release = release,
};

static const LbFilterInfo crop_info = {
  .struct_size = sizeof (LbFilterInfo),
  .id = "io.github.lightbox.test.crop",
  .alias = "crop",
  .name = "Crop",
  .category = "Test",
  .formats = LB_FILTER_FORMATS_ALL,
  .flags = LB_FILTER_FLAG_GEOMETRY,
  .params_version = 1,
  .params_size = sizeof (CropParams),
  .params = crop_params,
  .n_params = G_N_ELEMENTS (crop_params),
  .prepare = crop_prepare,
  .process = crop_process,
  .release = release,
};

static const LbFilterInfo *const filters[] = { &describe_info, &level_info, &crop_info };

static const LbPluginInfo plugin_info = {
  .abi_major = LB_FILTER_ABI_MAJOR,
  .abi_minor = LB_FILTER_ABI_MINOR,
  .struct_size = sizeof (LbPluginInfo),
  .version = "abi13",
  .filters = filters,
  .n_filters = G_N_ELEMENTS (filters),
};

G_MODULE_EXPORT const LbPluginInfo *
lb_filter_plugin_query (guint32 host_abi_major,
                        guint32 host_abi_minor)
{
  return &plugin_info;
}
