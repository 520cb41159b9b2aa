/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Real input for the UI tests: xdotool sends pointer and key events through XTest on the Xvfb
 * display, so they pass through GTK's event controllers, bindings and accelerators as a
 * user's would. */

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* TRUE when xdotool is installed and the display is X11. */
gboolean lb_test_xdo_available (void);
/* Runs xdotool with @args (space-separated words) on the test's display; fails the test when
 * it fails. */
void     lb_test_xdo           (const char *args);
/* Focuses @widget's window and puts the pointer on @widget's point (@x, @y) (widget
 * coordinates), waiting until the X server has moved it. */
void     lb_test_xdo_point_at  (GtkWidget  *widget,
                                double      x,
                                double      y);

G_END_DECLS
