/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "lb-filter-registry.h"

G_BEGIN_DECLS

/**
 * LbPluginManager:
 *
 * A window listing every filter the registry holds (name, id, category, version, where it
 * came from) and every file it skipped with the reason. It follows the registry live;
 * plugins.reload (F5, and the button in its header bar) scans the folders again. The window
 * is ui/lb-plugin-manager.ui.
 */
#define LB_TYPE_PLUGIN_MANAGER (lb_plugin_manager_get_type ())
G_DECLARE_FINAL_TYPE (LbPluginManager, lb_plugin_manager, LB, PLUGIN_MANAGER, GtkWindow)

LbPluginManager *lb_plugin_manager_new (LbFilterRegistry *registry,
                                        GtkWindow        *parent);
/* The label listing load problems, one per line (for tests). */
const char      *lb_plugin_manager_get_problems_text (LbPluginManager *self);

G_END_DECLS
