/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "lb-filter-registry.h"

G_BEGIN_DECLS

#define LB_TYPE_APPLICATION (lb_application_get_type ())
G_DECLARE_FINAL_TYPE (LbApplication, lb_application, LB, APPLICATION, GtkApplication)

/* Chooses GTK's cairo renderer when OpenGL could only be software-rendered, unless GSK_RENDERER
 * is set. Called by lb_application_new(); call it yourself before creating any other window. */
void              lb_application_pick_renderer (void);
LbApplication    *lb_application_new          (void);
/* The filter registry (plugin and filter directories, watched for changes). (transfer none) */
LbFilterRegistry *lb_application_get_registry (LbApplication *self);

G_END_DECLS
