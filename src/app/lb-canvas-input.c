/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-canvas"

#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "lb-canvas-private.h"

/* The canvas's input: the wheel (zoom; on a stack it pages and Ctrl+wheel zooms; Alt+wheel
 * always pages), drags (pan, window/level), focus on click and the keyboard bindings. */

static gboolean
on_scroll (GtkEventControllerScroll *ctrl,
           double                    dx,
           double                    dy,
           LbCanvas                 *self)
{
  GdkModifierType mods;

  if (!self->have_src || dy == 0)
    return FALSE;
  mods = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (ctrl));
  /* Alt+wheel, and the plain wheel on a stack, step through the frames or slices (the
   * window's actions; they are disabled, and do nothing, for single-frame images). A
   * touchpad's small deltas add up to whole steps. */
  if ((mods & GDK_ALT_MASK) || (self->stack_navigation && !(mods & GDK_CONTROL_MASK)))
    {
      int steps;

      self->scroll_steps += dy;
      /* the whole steps are taken out before any is taken: a step may show its slice at once
       * and reset the stack navigation (lb_canvas_set_stack_navigation()) */
      steps = (int) trunc (self->scroll_steps);
      self->scroll_steps -= steps;
      for (int i = 0; i < abs (steps); i++)
        gtk_widget_activate_action (GTK_WIDGET (self), steps > 0 ? "win.next-frame"
                                                                 : "win.previous-frame", NULL);
      return TRUE;
    }
  lb_canvas_zoom_at (self, pow (1.1, -dy), self->pointer_x, self->pointer_y);
  return TRUE;
}

static void
on_motion (GtkEventControllerMotion *ctrl,
           double                    x,
           double                    y,
           LbCanvas                 *self)
{
  self->pointer_x = x;
  self->pointer_y = y;
  self->pointer_inside = TRUE;
  _lb_canvas_update_probe (self);
}

static void
on_leave (GtkEventControllerMotion *ctrl,
          LbCanvas                 *self)
{
  self->pointer_inside = FALSE;
  _lb_canvas_update_probe (self);
}

static void
pan_begin (GtkGestureDrag *gesture,
           double          x,
           double          y,
           LbCanvas       *self)
{
  self->drag_center_x = self->view.center_x;
  self->drag_center_y = self->view.center_y;
  gtk_widget_grab_focus (GTK_WIDGET (self));
}

static void
pan_update (GtkGestureDrag *gesture,
            double          dx,
            double          dy,
            LbCanvas       *self)
{
  self->view.center_x = self->drag_center_x;
  self->view.center_y = self->drag_center_y;
  lb_canvas_pan (self, dx, dy);
}

static void
wl_begin (GtkGestureDrag *gesture,
          double          x,
          double          y,
          LbCanvas       *self)
{
  self->drag_wl_center = self->wl_center;
  self->drag_wl_width = self->wl_width;
  gtk_widget_grab_focus (GTK_WIDGET (self));
}

static void
wl_update (GtkGestureDrag *gesture,
           double          dx,
           double          dy,
           LbCanvas       *self)
{
  double k;

  if (!self->have_src)
    return;
  k = _lb_canvas_wl_sensitivity (self);
  /* right widens the window, down raises the level (the image darkens), as on PACS */
  lb_canvas_set_window (self, self->drag_wl_center + dy * k,
                        MAX (1.0, self->drag_wl_width + dx * k));
}

static void
on_click (GtkGestureClick *gesture,
          int              n_press,
          double           x,
          double           y,
          LbCanvas        *self)
{
  gtk_widget_grab_focus (GTK_WIDGET (self));
}

static gboolean
key_pan (GtkWidget *widget,
         GVariant  *args,
         gpointer   user_data)
{
  double dx, dy;

  g_variant_get (args, "(dd)", &dx, &dy);
  /* on a stack, Up and Down step one slice; at either end the key stays with the canvas (the
   * action is disabled) rather than moving the focus */
  if (LB_CANVAS (widget)->stack_navigation && dx == 0)
    {
      gtk_widget_activate_action (widget, dy > 0 ? "win.previous-frame" : "win.next-frame",
                                  NULL);
      return TRUE;
    }
  lb_canvas_pan (LB_CANVAS (widget), dx, dy);
  return TRUE;
}

static gboolean
key_zoom (GtkWidget *widget,
          GVariant  *args,
          gpointer   user_data)
{
  LbCanvas *self = LB_CANVAS (widget);
  double f = g_variant_get_double (args);

  if (f == 0)
    lb_canvas_zoom_fit (self);
  else if (f < 0)
    lb_canvas_set_zoom (self, 1.0);
  else
    lb_canvas_zoom_at (self, f, gtk_widget_get_width (widget) / 2.0,
                       gtk_widget_get_height (widget) / 2.0);
  return TRUE;
}

static gboolean
key_window (GtkWidget *widget,
            GVariant  *args,
            gpointer   user_data)
{
  LbCanvas *self = LB_CANVAS (widget);
  double dc, dw, k;

  if (!self->have_src)
    return FALSE;
  g_variant_get (args, "(dd)", &dc, &dw);
  /* one key press = 10 pixels of drag */
  k = _lb_canvas_wl_sensitivity (self) * 10;
  lb_canvas_set_window (self, self->wl_center + dc * k, MAX (1.0, self->wl_width + dw * k));
  return TRUE;
}

static gboolean
key_toggle (GtkWidget *widget,
            GVariant  *args,
            gpointer   user_data)
{
  LbCanvas *self = LB_CANVAS (widget);
  const char *what = g_variant_get_string (args, NULL);

  if (g_str_equal (what, "invert"))
    lb_canvas_set_invert (self, !self->invert);
  else if (g_str_equal (what, "rotate"))
    lb_canvas_set_rotation (self, self->view.rotation + 1);
  else if (g_str_equal (what, "rotate-back"))
    lb_canvas_set_rotation (self, self->view.rotation + 3);
  else if (g_str_equal (what, "flip"))
    lb_canvas_set_flip (self, !self->view.flip);
  else if (g_str_equal (what, "split"))
    lb_canvas_set_split (self, !self->split);
  else if (g_str_equal (what, "auto"))
    lb_canvas_auto_window (self);
  return TRUE;
}

static void
add_pan_binding (GtkWidgetClass *wc,
                 guint           key,
                 double          dx,
                 double          dy)
{
  gtk_widget_class_add_binding (wc, key, 0, key_pan, "(dd)", dx, dy);
}

void
_lb_canvas_class_init_input (GtkWidgetClass *wc)
{
  add_pan_binding (wc, GDK_KEY_Left, PAN_STEP, 0);
  add_pan_binding (wc, GDK_KEY_Right, -PAN_STEP, 0);
  add_pan_binding (wc, GDK_KEY_Up, 0, PAN_STEP);
  add_pan_binding (wc, GDK_KEY_Down, 0, -PAN_STEP);
  gtk_widget_class_add_binding (wc, GDK_KEY_plus, 0, key_zoom, "d", ZOOM_STEP);
  gtk_widget_class_add_binding (wc, GDK_KEY_KP_Add, 0, key_zoom, "d", ZOOM_STEP);
  gtk_widget_class_add_binding (wc, GDK_KEY_equal, 0, key_zoom, "d", ZOOM_STEP);
  gtk_widget_class_add_binding (wc, GDK_KEY_minus, 0, key_zoom, "d", 1.0 / ZOOM_STEP);
  gtk_widget_class_add_binding (wc, GDK_KEY_KP_Subtract, 0, key_zoom, "d", 1.0 / ZOOM_STEP);
  gtk_widget_class_add_binding (wc, GDK_KEY_f, 0, key_zoom, "d", 0.0);
  gtk_widget_class_add_binding (wc, GDK_KEY_1, 0, key_zoom, "d", -1.0);
  /* Shift+arrows: left/right narrow/widen the window, up/down lower/raise the level */
  gtk_widget_class_add_binding (wc, GDK_KEY_Left, GDK_SHIFT_MASK, key_window, "(dd)", 0.0, -1.0);
  gtk_widget_class_add_binding (wc, GDK_KEY_Right, GDK_SHIFT_MASK, key_window, "(dd)", 0.0, 1.0);
  gtk_widget_class_add_binding (wc, GDK_KEY_Up, GDK_SHIFT_MASK, key_window, "(dd)", -1.0, 0.0);
  gtk_widget_class_add_binding (wc, GDK_KEY_Down, GDK_SHIFT_MASK, key_window, "(dd)", 1.0, 0.0);
  gtk_widget_class_add_binding (wc, GDK_KEY_i, 0, key_toggle, "s", "invert");
  gtk_widget_class_add_binding (wc, GDK_KEY_r, 0, key_toggle, "s", "rotate");
  gtk_widget_class_add_binding (wc, GDK_KEY_r, GDK_SHIFT_MASK, key_toggle, "s", "rotate-back");
  gtk_widget_class_add_binding (wc, GDK_KEY_h, 0, key_toggle, "s", "flip");
  gtk_widget_class_add_binding (wc, GDK_KEY_s, 0, key_toggle, "s", "split");
  gtk_widget_class_add_binding (wc, GDK_KEY_a, 0, key_toggle, "s", "auto");
  gtk_widget_class_add_binding_action (wc, GDK_KEY_v, 0, "win.flip-vertical", NULL);
  /* frames of a multi-frame image or slices of a series, and cine: the window's actions;
   * Page Down/Up move by a tenth of the stack */
  gtk_widget_class_add_binding_action (wc, GDK_KEY_Page_Down, 0, "win.next-page", NULL);
  gtk_widget_class_add_binding_action (wc, GDK_KEY_KP_Page_Down, 0, "win.next-page", NULL);
  gtk_widget_class_add_binding_action (wc, GDK_KEY_Page_Up, 0, "win.previous-page", NULL);
  gtk_widget_class_add_binding_action (wc, GDK_KEY_KP_Page_Up, 0, "win.previous-page", NULL);
  gtk_widget_class_add_binding_action (wc, GDK_KEY_Home, 0, "win.first-frame", NULL);
  gtk_widget_class_add_binding_action (wc, GDK_KEY_End, 0, "win.last-frame", NULL);
  gtk_widget_class_add_binding_action (wc, GDK_KEY_space, 0, "win.cine", NULL);
}

void
lb_canvas_set_stack_navigation (LbCanvas *self,
                                gboolean  stack)
{
  g_return_if_fail (LB_IS_CANVAS (self));
  self->stack_navigation = !!stack;
  self->scroll_steps = 0;
}

void
_lb_canvas_init_input (LbCanvas *self)
{
  GtkEventController *ctrl;
  GtkGesture *drag;

  ctrl = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  g_signal_connect (ctrl, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (GTK_WIDGET (self), ctrl);

  ctrl = gtk_event_controller_motion_new ();
  g_signal_connect (ctrl, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (ctrl, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), ctrl);

  drag = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), GDK_BUTTON_PRIMARY);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (pan_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (pan_update), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));

  drag = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), GDK_BUTTON_MIDDLE);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (pan_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (pan_update), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));

  drag = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), GDK_BUTTON_SECONDARY);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (wl_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (wl_update), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));

  drag = gtk_gesture_click_new ();
  g_signal_connect (drag, "pressed", G_CALLBACK (on_click), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));
}
