/* SPDX-License-Identifier: GPL-3.0-or-later */

/*
 * Fixture plugins for the engine tests, built several times with different -D options:
 *
 *   TEST_MARK=N        a valid plugin whose "mark" filter writes N into every colour sample
 *                      of the region (after an optional per-row delay that polls the
 *                      cancellation flag), version "mark-N". Two builds with different N
 *                      are the "old" and "new" code of the hot-reload test.
 *   BROKEN_ABI         abi_major = 99
 *   BROKEN_NO_SYMBOL   does not export lb_filter_plugin_query
 *   BROKEN_RANGE       a default outside its hard range
 *   BROKEN_UI_RANGE    a slider range wider than the hard range
 *   BROKEN_OFFSET      a parameter offset past params_size
 *   BROKEN_SIZE        a descriptor struct_size smaller than ABI 1.0's
 *   BROKEN_DUP_ID      reuses the example plugin's id
 *   BROKEN_NO_PROCESS  neither process() nor finish()
 *   FINISH_ONLY        a valid plugin whose "mark-finish" filter does the same as "mark" from
 *                      finish() alone (ABI 1.1: no process(), LB_FILTER_FLAG_OVERWRITES, so
 *                      it writes alpha too, from the source)
 *   MARK_V2            with TEST_MARK: a later version of "mark" whose "value" only goes
 *                      to 100 and which has no "gain" (the parameter dialog's rebind test)
 *   OVER_REPORT        a valid plugin whose "mark-over" filter does the same as "mark" but
 *                      tells lb_filter_band_rows_done() the whole band's height at every row,
 *                      so the host must cap what it counts
 */

#include <lb-filter-plugin.h>

#ifndef TEST_MARK
#define TEST_MARK 7
#endif

#define STR2(x) #x
#define STR(x) STR2 (x)

typedef struct {
  gint delay_us;  /* per row, µs */
  gint value;     /* 0 = TEST_MARK */
  gint size;      /* unused: an odd-only parameter for the params tests */
  gint mode;      /* unused: an enum for the params tests */
  double gain;    /* unused: a double for the params tests */
  gint fail_row;  /* -1: never fail; -2: fail in prepare; N: process fails on row N */
} MarkParams;

static const LbParamEnumValue mark_modes[] = {
  { "fast", "Fast" },
  { "exact", "Exact" },
  { NULL, NULL },
};

static const LbParamSpec mark_params[] = {
  {
    .name = "delay-us", .label = "Delay per row", .type = LB_PARAM_INT,
    .offset = G_STRUCT_OFFSET (MarkParams, delay_us),
    .min = 0, .max = 1000000, .def = 0, .ui_min = 0,
#ifdef BROKEN_UI_RANGE
    .ui_max = 2000000,
#else
    .ui_max = 10000,
#endif
    .step = 1,
  },
  {
    .name = "value", .label = "Value", .type = LB_PARAM_INT,
#ifdef BROKEN_OFFSET
    .offset = sizeof (MarkParams),
#else
    .offset = G_STRUCT_OFFSET (MarkParams, value),
#endif
#ifdef MARK_V2
    .min = 0, .max = 100,
#else
    .min = 0, .max = 255,
#endif
#ifdef BROKEN_RANGE
    .def = 300,
#else
    .def = 0,
#endif
#ifdef MARK_V2
    .ui_min = 0, .ui_max = 100, .step = 1,
#else
    .ui_min = 0, .ui_max = 255, .step = 1,
#endif
  },
  {
    .name = "size", .label = "Size", .type = LB_PARAM_INT, .flags = LB_PARAM_FLAG_ODD,
    .offset = G_STRUCT_OFFSET (MarkParams, size),
    .min = 1, .max = 99, .def = 3, .ui_min = 1, .ui_max = 15, .step = 2,
  },
  {
    .name = "mode", .label = "Mode", .type = LB_PARAM_ENUM, .values = mark_modes,
    .offset = G_STRUCT_OFFSET (MarkParams, mode),
    .min = 0, .max = 1, .def = 0, .ui_min = 0, .ui_max = 1, .step = 1,
  },
#ifndef MARK_V2
  {
    .name = "gain", .label = "Gain", .type = LB_PARAM_DOUBLE,
    .offset = G_STRUCT_OFFSET (MarkParams, gain),
    .min = -2.5, .max = 2.5, .def = 0.5, .ui_min = 0, .ui_max = 1, .step = 0.1, .digits = 2,
  },
#endif
  {
    .name = "fail-row", .label = "Fail", .type = LB_PARAM_INT,
    .offset = G_STRUCT_OFFSET (MarkParams, fail_row),
    .min = -2, .max = 100000, .def = -1, .ui_min = -2, .ui_max = 100, .step = 1,
  },
};

static gpointer
mark_prepare (const LbFilterInfo  *info,
              gconstpointer        params,
              const LbFilterImage *image,
              LbFilterRect        *write_rect,
              GError             **error)
{
  MarkParams *copy;

  if (((const MarkParams *) params)->fail_row == -2)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "refusing in prepare, as asked");
      return NULL;
    }
  copy = g_memdup2 (params, sizeof (MarkParams));

  if (copy->value == 0)
    copy->value = TEST_MARK;
  return copy;
}

G_GNUC_UNUSED static gboolean
mark_process (gconstpointer       state,
              const LbFilterBand *band,
              GError            **error)
{
  const MarkParams *p = state;
  const LbFilterImage *im = band->image;
  int colours = im->has_alpha ? im->channels - 1 : im->channels;

  for (int y = band->y0; y < band->y1; y++)
    {
      guint8 *row = band->dst + (gsize) y * band->dst_stride;

#ifdef OVER_REPORT
      if (!lb_filter_band_rows_done (band, band->y1 - band->y0))
        return TRUE;
#else
      /* reports the row before (none before the first) and polls for cancellation */
      if (!lb_filter_band_rows_done (band, y > band->y0))
        return TRUE;
#endif
      if (p->delay_us > 0)
        g_usleep (p->delay_us);
      if (y == p->fail_row)
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "failing at row %d, as asked", y);
          return FALSE;
        }
      for (int x = band->x0; x < band->x1; x++)
        for (int c = 0; c < colours; c++)
          {
            gsize i = (gsize) x * im->channels + c;
            if (im->depth == 16)
              ((guint16 *) row)[i] = (guint16) p->value;
            else
              row[i] = (guint8) p->value;
          }
    }
  return TRUE;
}

#ifdef FINISH_ONLY
/* the marked colours and the source's alpha in every pixel of the write rectangle (the
 * region): with LB_FILTER_FLAG_OVERWRITES the host left it undefined */
static gboolean
mark_finish (gconstpointer        state,
             const LbFilterImage *im,
             guint8              *dst,
             gsize                dst_stride,
             const LbFilterHost  *host,
             const gint          *cancelled,
             GError             **error)
{
  const MarkParams *p = state;
  int colours = im->has_alpha ? im->channels - 1 : im->channels;
  const LbFilterRect *r = &im->region;

  for (int y = r->y; y < r->y + r->height; y++)
    {
      guint8 *row = dst + (gsize) y * dst_stride;
      const guint8 *src = im->src + (gsize) y * im->src_stride;

      for (int x = r->x; x < r->x + r->width; x++)
        for (int c = 0; c < im->channels; c++)
          {
            gsize i = (gsize) x * im->channels + c;

            if (im->depth == 16)
              ((guint16 *) row)[i] = c < colours ? (guint16) p->value : ((const guint16 *) src)[i];
            else
              row[i] = c < colours ? (guint8) p->value : src[i];
          }
    }
  return TRUE;
}
#endif

static void
mark_release (gpointer state)
{
  g_free (state);
}

static const LbFilterInfo mark_info = {
#ifdef BROKEN_SIZE
  .struct_size = 16,
#else
  .struct_size = sizeof (LbFilterInfo),
#endif
#ifdef BROKEN_DUP_ID
  .id = "io.github.lightbox.example.threshold",
#elif defined (FINISH_ONLY)
  .id = "io.github.lightbox.test.mark-finish",
#elif defined (OVER_REPORT)
  .id = "io.github.lightbox.test.mark-over",
#else
  .id = "io.github.lightbox.test.mark",
#endif
  .alias = NULL,
  .name = "Mark",
  .category = "Test",
  .formats = LB_FILTER_FORMATS_COMMON,
  .params_version = 1,
  .params_size = sizeof (MarkParams),
  .params = mark_params,
  .n_params = G_N_ELEMENTS (mark_params),
  .prepare = mark_prepare,
#if defined (FINISH_ONLY)
  .flags = LB_FILTER_FLAG_OVERWRITES,
  .finish = mark_finish,
#elif !defined (BROKEN_NO_PROCESS)
  .process = mark_process,
#endif
  .release = mark_release,
};

static const LbFilterInfo *const filters[] = { &mark_info };

static const LbPluginInfo plugin_info = {
#ifdef BROKEN_ABI
  .abi_major = 99,
#else
  .abi_major = LB_FILTER_ABI_MAJOR,
#endif
  .abi_minor = LB_FILTER_ABI_MINOR,
  .struct_size = sizeof (LbPluginInfo),
  .version = "mark-" STR (TEST_MARK),
  .filters = filters,
  .n_filters = G_N_ELEMENTS (filters),
};

#ifdef BROKEN_NO_SYMBOL
G_MODULE_EXPORT const LbPluginInfo *lb_filter_plugin_query_misspelt (guint32 major,
                                                                     guint32 minor);
G_MODULE_EXPORT const LbPluginInfo *
lb_filter_plugin_query_misspelt (guint32 major,
                                 guint32 minor)
#else
G_MODULE_EXPORT const LbPluginInfo *
lb_filter_plugin_query (guint32 major,
                        guint32 minor)
#endif
{
  return &plugin_info;
}
