/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "lb-filter.h"

G_BEGIN_DECLS

/* Checks one chain step ("ID[:NAME=VALUE,…]"): the id exists and the parameters are valid. */
typedef gboolean (*LbDeclarativeStepCheck) (const char *step,
                                            gpointer    user_data,
                                            GError    **error);

/* Largest convolution kernel side, taps. */
#define LB_DECLARATIVE_MAX_KERNEL 15

/**
 * lb_declarative_parse:
 * @bytes: UTF-8 text in the format of plugins/README.md ("Declarative filters")
 * @origin: file path or URI, for messages and #LbFilter:origin
 * @check: (nullable): validates chain steps; %NULL accepts any well-formed step
 *
 * Parses a declarative filter strictly: an unknown group or key, a bad number, a kernel row
 * of the wrong length, an even or too large size, a zero divisor, an unknown filter in a
 * chain: every problem is %LB_ERROR_PARSE with "ORIGIN:LINE: " in front of the message.
 * The result is data run by the engine's own convolution code or expanded into other
 * filters; nothing in the file is ever executed.
 */
LbFilter *lb_declarative_parse (GBytes                 *bytes,
                                const char             *origin,
                                LbDeclarativeStepCheck  check,
                                gpointer                user_data,
                                GError                **error);

/**
 * lb_declarative_check:
 *
 * The same strict parse as lb_declarative_parse() with @check %NULL, and the same errors,
 * without building a filter; a program that calls only this links no convolution code.
 */
gboolean  lb_declarative_check (GBytes                 *bytes,
                                const char             *origin,
                                GError                **error);

/* Tests and the bench: %TRUE makes every declarative convolution prepared from now on run
 * its scalar reference path instead of the fast one (process-wide; both give the same
 * bytes). */
void      _lb_declarative_set_reference (gboolean reference);

G_END_DECLS
