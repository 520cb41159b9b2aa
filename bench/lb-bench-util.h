/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Removes @path and everything below it (symbolic links are removed, never followed); best
 * effort: what cannot be removed stays. */
void lb_bench_remove_tree (const char *path);

G_END_DECLS
