/* SPDX-License-Identifier: GPL-3.0-or-later */

/*
 * The example plugin of plugins/README.md: a threshold. Every colour sample at or above
 * `level` percent of the sample range becomes the maximum, every other one 0; alpha passes
 * through, and so does the pixel padding around a medical scan (ABI 1.3's image metadata). It shows the whole ABI in a hundred lines: a params struct, its spec table, a
 * descriptor, prepare/process/release and the query function. It includes nothing from
 * Lightbox but lb-filter-plugin.h, exactly as an out-of-tree plugin built with
 * `pkg-config --cflags lightbox-plugin` would.
 */

#include <lb-filter-plugin.h>

/* What the host fills in from the spec table below (by offset). */
typedef struct {
  double level;    /* percent of the sample range */
  gboolean invert; /* swap the two output values */
} ThresholdParams;

/* What prepare() computes once: the threshold in native sample units. */
typedef struct {
  guint limit;
  guint below;
  guint above;
  /* the image's metadata when it declares pixel padding (samples outside the scanned
   * area, which keep their value), else NULL; valid until release() */
  const LbFilterMeta *padding;
} ThresholdState;

static const LbParamSpec threshold_params[] = {
  {
    .name = "level", .label = "Level", .description = "Samples at or above this become white",
    .type = LB_PARAM_DOUBLE, .offset = G_STRUCT_OFFSET (ThresholdParams, level),
    .min = 0, .max = 100, .def = 50, .ui_min = 0, .ui_max = 100, .step = 1, .digits = 1,
    .unit = LB_UNIT_PERCENT,
  },
  {
    .name = "invert", .label = "Invert", .description = "Below becomes white, above black",
    .type = LB_PARAM_BOOL, .offset = G_STRUCT_OFFSET (ThresholdParams, invert),
    .min = 0, .max = 1, .def = 0, .ui_min = 0, .ui_max = 1, .step = 1,
    .flags = LB_PARAM_FLAG_ADVANCED,
  },
};

static gpointer
threshold_prepare (const LbFilterInfo  *info,
                   gconstpointer        params,
                   const LbFilterImage *image,
                   LbFilterRect        *write_rect,
                   GError             **error)
{
  const ThresholdParams *p = params;
  ThresholdState *s = g_new0 (ThresholdState, 1);
  guint max = image->depth == 16 ? 65535 : 255;
  /* NULL from a Lightbox older than plugin ABI 1.3: then there is no padding to keep */
  const LbFilterMeta *meta = lb_filter_image_get_meta (image);

  /* Integer limit, computed once, so 8-bit results never depend on float rounding in the
   * inner loop: a sample v is "above" when v >= limit. */
  s->limit = (guint) (p->level / 100.0 * max + 0.5);
  s->below = p->invert ? max : 0;
  s->above = p->invert ? 0 : max;
  if (meta != NULL && (meta->flags & LB_FILTER_META_PADDING) != 0)
    s->padding = meta;
  return s;
}

static gboolean
threshold_process (gconstpointer       state,
                   const LbFilterBand *band,
                   GError            **error)
{
  const ThresholdState *s = state;
  const LbFilterImage *im = band->image;
  int colours = im->has_alpha ? im->channels - 1 : im->channels;

  for (int y = band->y0; y < band->y1; y++)
    {
      const guint8 *in = im->src + (gsize) y * im->src_stride;
      guint8 *out = band->dst + (gsize) y * band->dst_stride;

      /* reports the row before (none before the first) and polls for cancellation */
      if (!lb_filter_band_rows_done (band, y > band->y0))
        return TRUE;
      for (int x = band->x0; x < band->x1; x++)
        for (int c = 0; c < colours; c++)
          {
            gsize i = (gsize) x * im->channels + c;
            guint v = im->depth == 16 ? ((const guint16 *) in)[i] : in[i];

            /* padding (only grey images have any) keeps the value the band already holds */
            if (s->padding != NULL && lb_filter_meta_is_padding (s->padding, v))
              continue;
            if (im->depth == 16)
              ((guint16 *) out)[i] = v >= s->limit ? s->above : s->below;
            else
              out[i] = v >= s->limit ? s->above : s->below;
          }
    }
  return TRUE;
}

static void
threshold_release (gpointer state)
{
  g_free (state);
}

static const LbFilterInfo threshold_info = {
  .struct_size = sizeof (LbFilterInfo),
  .id = "io.github.lightbox.example.threshold",
  .alias = "threshold",
  .name = N_("Threshold"),
  .category = N_("Adjust"),
  .description = N_("Black and white by a level (example plugin)"),
  .formats = LB_FILTER_FORMATS_ALL,
  .flags = LB_FILTER_FLAG_POINT | LB_FILTER_FLAG_TILES,
  .params_version = 1,
  .params_size = sizeof (ThresholdParams),
  .params = threshold_params,
  .n_params = G_N_ELEMENTS (threshold_params),
  .prepare = threshold_prepare,
  .process = threshold_process,
  .release = threshold_release,
};

static const LbFilterInfo *const filters[] = { &threshold_info };

static const LbPluginInfo plugin_info = {
  .abi_major = LB_FILTER_ABI_MAJOR,
  .abi_minor = LB_FILTER_ABI_MINOR,
  .struct_size = sizeof (LbPluginInfo),
  .version = "1.0",
  .gettext_domain = NULL,
  .filters = filters,
  .n_filters = G_N_ELEMENTS (filters),
};

G_MODULE_EXPORT const LbPluginInfo *
lb_filter_plugin_query (guint32 host_abi_major,
                        guint32 host_abi_minor)
{
  return &plugin_info;
}
