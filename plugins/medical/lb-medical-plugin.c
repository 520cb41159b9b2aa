/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The medical filters' plugin: its table and query function. They need plugin ABI 1.3 (a
 * second input image, an output of its own geometry), so the plugin declines an older host,
 * which would run them without: it then lists the file as skipped, "the plugin declined to
 * serve ABI 1.2".
 */

#include "lb-medical.h"

static const LbFilterInfo *const filters[] = { &lb_subtract_info, &lb_resample_info };

static const LbPluginInfo plugin_info = {
  .abi_major = LB_FILTER_ABI_MAJOR,
  .abi_minor = LB_FILTER_ABI_MINOR,
  .struct_size = sizeof (LbPluginInfo),
  .version = "1.0",
  .gettext_domain = "lightbox",
  .filters = filters,
  .n_filters = G_N_ELEMENTS (filters),
};

G_MODULE_EXPORT const LbPluginInfo *
lb_filter_plugin_query (guint32 host_abi_major,
                        guint32 host_abi_minor)
{
  if (host_abi_major != LB_FILTER_ABI_MAJOR || host_abi_minor < 3)
    return NULL;
  return &plugin_info;
}
