/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-application.h"

G_BEGIN_DECLS

#define LB_TYPE_WINDOW (lb_window_get_type ())
G_DECLARE_FINAL_TYPE (LbWindow, lb_window, LB, WINDOW, GtkApplicationWindow)

LbWindow *lb_window_new (LbApplication *app);

G_END_DECLS
