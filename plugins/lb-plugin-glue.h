/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * Glue shared by the shipped plugin wrappers (xv, xvgeom, enhance): views of the host's
 * images as kernel buffers, the filter descriptor and the plugin entry point. Header only
 * (static inline and macros), so each module stays self-contained and the public ABI header
 * (lb-filter-plugin.h) is untouched.
 */

#include <lb-filter-plugin.h>

#include "lb-kernel.h"

G_BEGIN_DECLS

/* The source image as a kernel buffer. The kernels take the source as const LbKernelBuf *:
 * they never write through it, so casting away the host's const is safe. */
static inline LbKernelBuf
lb_glue_src_buf (const LbFilterImage *im)
{
  LbKernelBuf b = { (guint8 *) im->src, im->src_stride, im->width, im->height, im->channels,
                    im->depth, NULL };
  return b;
}

/* A destination of the same geometry as @im. */
static inline LbKernelBuf
lb_glue_dst_buf (const LbFilterImage *im,
                 guint8              *dst,
                 gsize                stride)
{
  LbKernelBuf b = { dst, stride, im->width, im->height, im->channels, im->depth, NULL };
  return b;
}

/* A kernel ticker (lb-kernel.h) that passes a kernel's progress on to the host as rows of
 * the band (lb_filter_band_rows_done()) and tells it to stop once the pass is cancelled. */
typedef struct {
  LbKernelTicker ticker;
  const LbFilterBand *band;
  int reported;     /* rows passed on so far */
} LbGlueTicker;

static inline gboolean
lb_glue_tick (gpointer data,
              guint64  done,
              guint64  total)
{
  LbGlueTicker *g = data;
  const guint64 rows = (guint64) (g->band->y1 - g->band->y0);
  /* done ≤ total, so now ≤ rows */
  const int now = total > 0 ? (int) (MIN (done, total) * rows / total) : 0;
  const int n = MAX (0, now - g->reported);

  g->reported += n;
  return lb_filter_band_rows_done (g->band, n);
}

/* Hooks @g to @band and @dst: the kernel writing @dst reports to the host. */
static inline void
lb_glue_ticker_attach (LbGlueTicker       *g,
                       const LbFilterBand *band,
                       LbKernelBuf        *dst)
{
  g->ticker.func = lb_glue_tick;
  g->ticker.data = g;
  g->band = band;
  g->reported = 0;
  dst->ticker = &g->ticker;
}

/* The image's region (selection) as a kernel rectangle. */
static inline LbKernelRect
lb_glue_region (const LbFilterImage *im)
{
  LbKernelRect r = { im->region.x, im->region.y, im->region.width, im->region.height };
  return r;
}

/* A finish() post-pass over the rows [0, height) of the destination in chunks of @chunk rows,
 * run through the host's threads: @func gets the rows [y0, y1) of one chunk. */
typedef void (*LbGlueRowsFunc) (gpointer data,
                                int      y0,
                                int      y1);

typedef struct {
  LbGlueRowsFunc func;
  gpointer data;
  int chunk;
  int height;
} LbGlueRows;

static inline void
lb_glue_rows_item (gpointer data,
                   int      item,
                   int      thread_index)
{
  const LbGlueRows *rows = data;
  int y0 = item * rows->chunk;

  rows->func (rows->data, y0, MIN (y0 + rows->chunk, rows->height));
}

/* What host->parallel_for() returns: %FALSE if the pass was cancelled meanwhile. */
static inline gboolean
lb_glue_parallel_rows (const LbFilterHost *host,
                       int                 height,
                       int                 chunk,
                       LbGlueRowsFunc      func,
                       gpointer            data)
{
  LbGlueRows rows = { func, data, chunk, height };

  return host->parallel_for (host, (height + chunk - 1) / chunk, lb_glue_rows_item, &rows);
}

/* One descriptor of a family whose filters share one set of callbacks; @kind_ goes into
 * user_data and says which kernel runs; @scratch_: the scratch_size callback or NULL. */
#define LB_GLUE_FILTER(var, id_, alias_, name_, category_, desc_, params_type, params_,       \
                       prepare_, scratch_, process_, release_, finish_, flags_, kind_)        \
  static const LbFilterInfo var = {                                                           \
    .struct_size = sizeof (LbFilterInfo),                                                     \
    .id = id_,                                                                                \
    .alias = alias_,                                                                          \
    .name = name_,                                                                            \
    .category = category_,                                                                    \
    .description = desc_,                                                                     \
    .formats = LB_FILTER_FORMATS_ALL,                                                      \
    .flags = flags_,                                                                          \
    .params_version = 1,                                                                      \
    .params_size = sizeof (params_type),                                                      \
    .params = params_,                                                                        \
    .n_params = G_N_ELEMENTS (params_),                                                       \
    .prepare = prepare_,                                                                      \
    .scratch_size = scratch_,                                                                 \
    .process = process_,                                                                      \
    .release = release_,                                                                      \
    .finish = finish_,                                                                        \
    .user_data = GINT_TO_POINTER (kind_),                                                     \
  }

/* The plugin descriptor over the array @filters_ and the exported query function that
 * returns it (the host checks the ABI numbers itself). */
#define LB_GLUE_PLUGIN(filters_)                                                              \
  static const LbPluginInfo lb_glue_plugin_info = {                                           \
    .abi_major = LB_FILTER_ABI_MAJOR,                                                         \
    .abi_minor = LB_FILTER_ABI_MINOR,                                                         \
    .struct_size = sizeof (LbPluginInfo),                                                     \
    .version = "1.0",                                                                         \
    .gettext_domain = "lightbox",                                                             \
    .filters = filters_,                                                                      \
    .n_filters = G_N_ELEMENTS (filters_),                                                     \
  };                                                                                          \
                                                                                              \
  G_MODULE_EXPORT const LbPluginInfo *                                                        \
  lb_filter_plugin_query (guint32 host_abi_major,                                             \
                          guint32 host_abi_minor)                                             \
  {                                                                                           \
    return &lb_glue_plugin_info;                                                              \
  }

G_END_DECLS
