/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>

#include "lb-filter.h"

G_BEGIN_DECLS

/**
 * LbFilterParams:
 *
 * Parameter values for one #LbFilter: the plugin's params struct, filled with the defaults
 * of its #LbParamSpec table and changed only through setters that validate every value
 * against the spec (hard range, odd-ness, enum nicks). A value out of range is an error that
 * names the filter, the parameter and the range; it is never clamped silently.
 *
 * Reference counted; not thread-safe for writing, but safe to read from several threads
 * once filled (the pipeline copies the values it needs before running).
 */
typedef struct _LbFilterParams LbFilterParams;

#define LB_TYPE_FILTER_PARAMS (lb_filter_params_get_type ())
GType           lb_filter_params_get_type    (void) G_GNUC_CONST;

/* Defaults of every parameter. */
LbFilterParams *lb_filter_params_new         (LbFilter       *filter);
LbFilterParams *lb_filter_params_ref         (LbFilterParams *self);
void            lb_filter_params_unref       (LbFilterParams *self);
LbFilterParams *lb_filter_params_copy        (LbFilterParams *self);
/* (transfer none) */
LbFilter       *lb_filter_params_get_filter  (LbFilterParams *self);

/**
 * lb_filter_params_set_from_string:
 * @text: "name=value,name=value" (empty: nothing changes)
 *
 * Numbers are C-locale decimals; booleans true/false/yes/no/1/0; enums their nick or index.
 * A name given twice is an error. On any error no parameter changes.
 */
gboolean        lb_filter_params_set_from_string (LbFilterParams *self,
                                                  const char     *text,
                                                  GError        **error);
gboolean        lb_filter_params_set_value_string (LbFilterParams *self,
                                                   const char     *name,
                                                   const char     *value,
                                                   GError        **error);
/* Any type; an INT/BOOL/ENUM value must be integral. */
gboolean        lb_filter_params_set_number  (LbFilterParams *self,
                                              const char     *name,
                                              double          value,
                                              GError        **error);
double          lb_filter_params_get_number  (LbFilterParams *self,
                                              const char     *name);
/**
 * lb_filter_params_set_variant:
 * @dict: (transfer floating): an a{sv}: int32/int64/uint32/double/boolean values, strings
 *   for enum nicks; a floating reference is consumed
 *
 * A key given twice is an error. On any error no parameter changes.
 */
gboolean        lb_filter_params_set_variant (LbFilterParams *self,
                                              GVariant       *dict,
                                              GError        **error);
/* (transfer floating): every parameter as an a{sv} */
GVariant       *lb_filter_params_to_variant  (LbFilterParams *self);
/* Canonical "name=value,…" of every parameter, in spec order ("" without parameters). */
char           *lb_filter_params_to_string   (LbFilterParams *self);
/* The params struct handed to prepare() (LbFilterInfo.params_size bytes). */
gconstpointer   lb_filter_params_get_data    (LbFilterParams *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LbFilterParams, lb_filter_params_unref)

G_END_DECLS
