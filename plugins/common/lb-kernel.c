/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "lb-kernel.h"

/* The name of src/core's LB_ERROR (lb-error.c), on purpose: see lb-kernel.h. Interned as a
 * copy, not as a static string (G_DEFINE_QUARK): the first caller to name a quark lends GLib
 * its string for the life of the process, and this code runs in plugins that Lightbox
 * unloads when their file changes. */
GQuark
lb_kernel_error_quark (void)
{
  return g_quark_from_string ("lb-error-quark");
}
