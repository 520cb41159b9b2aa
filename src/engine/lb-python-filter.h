/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "lb-filter-params.h"
#include "lb-filter.h"
#include "lb-image.h"

G_BEGIN_DECLS

/*
 * lb-python-filter: filters written in Python (a .py file in a plugin directory, see
 * plugins/README.md, "Filters in Python"). Engine-internal.
 *
 * Nothing of the module runs in Lightbox. Its descriptor is read by
 * `python3 lightbox-python-host.py --describe` (which imports the module without calling
 * process()), and every pass runs in a `--serve` process of the same script, spoken to like
 * lightbox-filter-host (lb-isolation.c, lb-filter-host-proto.h; params and metadata as
 * JSON). The code both see is the text read when the file was loaded, kept in a sealed
 * memfd, so a pass runs exactly the module whose descriptor the registry shows.
 */

#define LB_PYTHON_SUFFIX ".py"

/* The interpreter: $LIGHTBOX_PYTHON, else /usr/bin/python3 (Debian's, where python3-numpy
 * installs numpy) when it exists, else "python3" from PATH. */
const char *_lb_python_interpreter    (void);

/* Loads the Python filter @path: permissions checked as for a .so, descriptor read in a
 * python3 process. Returns an array of one new #LbFilter (kind LB_FILTER_KIND_PYTHON), or
 * %NULL with an %LB_ERROR_PLUGIN error that says why: Python or numpy missing, the module's
 * traceback, a bad descriptor. */
GPtrArray  *_lb_python_load_file      (const char *path,
                                       GError    **error);

/* The sealed memfd holding the source of a module handed to _lb_filter_new() as owner. */
int         _lb_python_module_get_fd  (gpointer    module);

/* The command line of the Python host in @mode ("--describe" or "--serve") for the module
 * @origin (free with g_strfreev()). */
char      **_lb_python_host_argv      (const char *mode,
                                       const char *origin);

/* What the Python host wrote to the memfd @fd (its stderr, or faulthandler's report of a
 * crash): at most 64 KiB of text, valid UTF-8, trailing newlines cut; "" for none. */
char       *_lb_python_read_report    (int         fd);

/* The error of a pass whose Python process died of @sig, with the Python traceback
 * faulthandler left in @crash_fd. */
void        _lb_python_set_crash_error (GError    **error,
                                        const char *id,
                                        const char *origin,
                                        int         sig,
                                        int         crash_fd);

/* The RUN payloads of a pass (lb-filter-host-proto.h, LB_FH_VERSION_JSON): @params as a
 * JSON object of name → value (int, float, bool, or the enum value's nick), and the
 * metadata of @input as the `meta` dictionary of the guide. */
GBytes     *_lb_python_params_to_json (LbFilter       *filter,
                                       LbFilterParams *params);
GBytes     *_lb_python_meta_to_json   (LbImage        *input);

G_END_DECLS
