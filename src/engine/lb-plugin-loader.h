/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "lb-filter-plugin.h"

G_BEGIN_DECLS

/**
 * lb_plugin_check_permissions:
 * @path: a plugin file or directory
 *
 * Refuses (with %LB_ERROR_PERMISSION) a file or directory that group or other users can
 * write: anyone able to write there could make Lightbox run their code. Fails with a
 * GIO-style message if @path cannot be inspected.
 */
gboolean   lb_plugin_check_permissions (const char *path,
                                        GError    **error);

/**
 * lb_filter_info_validate:
 *
 * The per-descriptor checks of lb-filter-plugin.h ("Host checks"): ids, names, formats,
 * callbacks, and every parameter spec. The error names the filter and the offending field.
 */
gboolean   lb_filter_info_validate     (const LbFilterInfo *info,
                                        GError            **error);

/* Checks one spec against a params struct of @params_size bytes. */
gboolean   lb_param_spec_validate      (const LbParamSpec *spec,
                                        gsize              params_size,
                                        GError           **error);

/* TRUE if @id is a well-formed filter id (@dots_allowed) or alias. */
gboolean   lb_filter_id_is_valid       (const char *id,
                                        gboolean    dots_allowed);

/**
 * lb_plugin_load_file:
 * @path: the plugin (.so) to load, or a Python filter (.py, see lb-python-filter.h)
 * @copy_dir: a private directory (mode 0700) where the file is copied under a fresh name
 *   before dlopen(), so a later replacement of @path loads as new code instead of
 *   returning the already mapped old object, and an in-place overwrite of @path can never
 *   corrupt code that is running
 *
 * Loads, queries and validates a plugin. Returns an array of new #LbFilter (each holding a
 * reference on the loaded module, which is closed when the last filter goes away), or %NULL
 * with %LB_ERROR_PLUGIN / %LB_ERROR_PERMISSION saying why.
 */
GPtrArray *lb_plugin_load_file         (const char *path,
                                        const char *copy_dir,
                                        GError    **error);

/* Engine-internal. Loads the module at @open_path (already checked and copied, or
 * /proc/self/fd/N in lightbox-filter-host) as if it were @path; takes ownership of @fd (the
 * open copy, or -1). */
GPtrArray *_lb_plugin_load_module      (const char *open_path,
                                        const char *path,
                                        int         fd,
                                        GError    **error);
/* The open copy's descriptor of a module handed to _lb_filter_new() as owner, or -1. */
int        _lb_plugin_module_get_fd    (gpointer    module);

G_END_DECLS
