/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Real input for the UI tests: X events through XTest (xdotool) on the Xvfb display, so that
 * keys and the wheel go through GTK's controllers, bindings and accelerators as a user's do. */

/* TRUE when xdotool is installed and GDK runs on X11. */
gboolean lb_test_have_xdotool (void);
/* Runs xdotool with @args (space-separated words) on the test's display; fails the test when
 * xdotool does. */
void     lb_test_xdotool      (const char *args);
/* Focuses @widget's window on the X server and puts the pointer over @widget's middle (it
 * waits until the widget is on screen). The keyboard focus inside the window stays. */
void     lb_test_point_at     (GtkWidget  *widget);
/* The same, with the pointer on @widget's point (@x, @y) (widget coordinates): for drags and
 * clicks on a canvas. A move to where the last one put the pointer is skipped. */
void     lb_test_point_at_xy  (GtkWidget  *widget,
                               double      x,
                               double      y);
/* Presses @keys (xdotool's key names, "ctrl+z Escape") in @widget's window. */
void     lb_test_press_keys   (GtkWidget  *widget,
                               const char *keys);

G_END_DECLS
