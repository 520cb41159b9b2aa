/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The empty C plugin of `lightbox-bench python-bridge`: one filter that copies its band, the
 * least a filter can do, so that a pass's time is the host's cost plus one copy (the same
 * work as the Python no-op it is compared with). */

#include <string.h>

#include "lb-filter-plugin.h"

static gpointer
noop_prepare (const LbFilterInfo *info, gconstpointer params, const LbFilterImage *image,
              LbFilterRect *write_rect, GError **error)
{
  return GINT_TO_POINTER (1);
}

static gboolean
noop_process (gconstpointer state, const LbFilterBand *band, GError **error)
{
  const LbFilterImage *im = band->image;
  gsize bytes = (gsize) (band->x1 - band->x0) * im->channels * (im->depth / 8);
  gsize x_off = (gsize) band->x0 * im->channels * (im->depth / 8);

  for (int y = band->y0; y < band->y1; y++)
    memcpy (band->dst + (gsize) y * band->dst_stride + x_off,
            im->src + (gsize) y * im->src_stride + x_off, bytes);
  return TRUE;
}

static void
noop_release (gpointer state)
{
}

static const LbFilterInfo noop_info = {
  .struct_size = sizeof (LbFilterInfo),
  .id = "io.github.lightbox.bench.noop",
  .name = "No-op copy",
  .category = "Bench",
  .formats = LB_FILTER_FORMATS_ALL,
  .flags = LB_FILTER_FLAG_OVERWRITES,
  .prepare = noop_prepare,
  .process = noop_process,
  .release = noop_release,
};

static const LbFilterInfo *const noop_filters[] = { &noop_info };

static const LbPluginInfo noop_plugin = {
  .abi_major = LB_FILTER_ABI_MAJOR,
  .abi_minor = LB_FILTER_ABI_MINOR,
  .struct_size = sizeof (LbPluginInfo),
  .version = "1",
  .filters = noop_filters,
  .n_filters = 1,
};

G_MODULE_EXPORT const LbPluginInfo *
lb_filter_plugin_query (guint32 host_abi_major, guint32 host_abi_minor)
{
  return &noop_plugin;
}
