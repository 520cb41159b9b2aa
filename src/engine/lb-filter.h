/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>

#include "lb-filter-plugin.h"
#include "lb-format.h"

G_BEGIN_DECLS

/**
 * LbFilterKind:
 * @LB_FILTER_KIND_PLUGIN: code from a plugin module
 * @LB_FILTER_KIND_KERNEL: a declarative convolution kernel (data run by the engine)
 * @LB_FILTER_KIND_CHAIN: a declarative chain of other filters, resolved by id when run
 * @LB_FILTER_KIND_PYTHON: a Python module (a .py plugin), always run in a python3 process
 *   of its own (lb-python-filter.h)
 */
typedef enum {
  LB_FILTER_KIND_PLUGIN,
  LB_FILTER_KIND_KERNEL,
  LB_FILTER_KIND_CHAIN,
  LB_FILTER_KIND_PYTHON,
} LbFilterKind;

#define LB_TYPE_FILTER (lb_filter_get_type ())
G_DECLARE_FINAL_TYPE (LbFilter, lb_filter, LB, FILTER, GObject)

/**
 * LbFilter:
 *
 * One filter in the registry: a validated descriptor plus where it came from. Immutable
 * once created, so it may be shared between threads. A filter from a plugin holds a
 * reference on the loaded module: as long as anyone (a running pass, a pipeline) holds the
 * filter, its code stays mapped, even after hot reload replaced or removed the file.
 */

const char   *lb_filter_get_id          (LbFilter *self);
/* (nullable): the short command-line name ("blur") */
const char   *lb_filter_get_alias       (LbFilter *self);
/* Translated with the plugin's gettext domain. */
const char   *lb_filter_get_name        (LbFilter *self);
const char   *lb_filter_get_category    (LbFilter *self);
/* (nullable) */
const char   *lb_filter_get_description (LbFilter *self);
/* The plugin file or declarative file (path or URI) the filter came from. */
const char   *lb_filter_get_origin      (LbFilter *self);
/* (nullable): the plugin's version string */
const char   *lb_filter_get_version     (LbFilter *self);
LbFilterKind  lb_filter_get_kind        (LbFilter *self);
/* LB_FILTER_FORMAT_BIT() set; 0 for a chain (checked step by step when it runs) */
guint32       lb_filter_get_formats     (LbFilter *self);
gboolean      lb_filter_supports_format (LbFilter      *self,
                                         LbSampleFormat format);
/* "gray8, gray16, rgb8, rgba8" */
char         *lb_filter_dup_formats_string (LbFilter *self);
guint32       lb_filter_get_flags       (LbFilter *self);
guint         lb_filter_get_n_params    (LbFilter *self);
/* 1, or 2 for a filter that also reads a second image (lb_pipeline_set_aux_input()). */
guint         lb_filter_get_n_inputs    (LbFilter *self);
const LbParamSpec *lb_filter_get_param  (LbFilter *self,
                                         guint     index);
/* (nullable): the spec called @name */
const LbParamSpec *lb_filter_find_param (LbFilter   *self,
                                         const char *name,
                                         guint      *out_index);
/* Translated label of a parameter or enum value, with the plugin's gettext domain. */
const char   *lb_filter_translate       (LbFilter   *self,
                                         const char *msgid);
/* For LB_FILTER_KIND_CHAIN: the steps as "ID[:NAME=VALUE,…]" strings, else NULL. */
const char *const *lb_filter_get_chain  (LbFilter *self);

/* Engine-internal. */
const LbFilterInfo *_lb_filter_get_info (LbFilter *self);
/* What keeps the descriptor alive (for plugins: the loaded module, see lb-plugin-loader). */
gpointer      _lb_filter_get_owner      (LbFilter *self);
LbFilter     *_lb_filter_new            (LbFilterKind        kind,
                                         const LbFilterInfo *info,
                                         const char         *gettext_domain,
                                         const char         *origin,
                                         const char         *version,
                                         const char *const  *chain,
                                         gpointer            owner,
                                         GDestroyNotify      owner_release);

G_END_DECLS
