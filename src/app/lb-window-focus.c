/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-window"

#include "config.h"

#include "lb-window-private.h"

/* A reading workstation is driven from the keyboard: after a menu item, a dialog or a filter
 * the keys go back to the viewport at once, so that Ctrl+Z, Escape and the navigation keys
 * act without a click. GTK leaves the focus on the menu button a menu came from, or on the
 * header bar button that opened a dialog; that focus, or none, moves to the canvas. Focus the
 * reader put elsewhere on purpose (the tree, its search, the address entry, the slice slider,
 * the W/L fields) stays. */

static gboolean
focus_is_incidental (LbWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));

  if (focus == NULL || focus == GTK_WIDGET (self))
    return TRUE;
  /* a header bar button, or what a closed popover left */
  return gtk_widget_is_ancestor (focus, self->header_bar) || !gtk_widget_get_mapped (focus);
}

void
_lb_window_focus_viewport (LbWindow *self)
{
  /* in full screen the header bar is hidden; a modal dialog of ours keeps its keys */
  if (gtk_widget_in_destruction (GTK_WIDGET (self)) || !gtk_widget_get_mapped (GTK_WIDGET (self)))
    return;
  if (focus_is_incidental (self))
    gtk_widget_grab_focus (GTK_WIDGET (self->canvas));
}

static gboolean
focus_idle (gpointer data)
{
  LbWindow *self = data;

  self->focus_source = 0;
  _lb_window_focus_viewport (self);
  return G_SOURCE_REMOVE;
}

/* After the popover has closed and GTK has put the focus back on its button, and after the
 * activated item has run (it may move the focus itself, as Open Store does). */
static void
focus_soon (LbWindow *self)
{
  if (self->focus_source == 0)
    self->focus_source = g_idle_add (focus_idle, self);
}

static void
on_popover_closed (GtkPopover *popover,
                   LbWindow   *self)
{
  focus_soon (self);
}

/* A dialog over the window closed: the window is active again. */
static void
on_active_changed (LbWindow   *self,
                   GParamSpec *pspec,
                   gpointer    data)
{
  if (gtk_window_is_active (GTK_WINDOW (self)))
    focus_soon (self);
}

/* A dialog of this window was hidden. GTK 4.18 under X without a window manager does not
 * always make the window active again (no notify::is-active) when a transient dialog
 * closes, so the dialogs are watched themselves. */
static void
on_dialog_visible (GtkWindow  *dialog,
                   GParamSpec *pspec,
                   LbWindow   *self)
{
  if (!gtk_widget_get_visible (GTK_WIDGET (dialog))
      && gtk_window_get_transient_for (dialog) == GTK_WINDOW (self))
    focus_soon (self);
}

static void
on_toplevels_changed (GListModel *toplevels,
                      guint       position,
                      guint       removed,
                      guint       added,
                      LbWindow   *self)
{
  /* its transient parent is set after a window joins the list: checked when it hides */
  for (guint i = position; i < position + added; i++)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i);

      if (window != GTK_WINDOW (self))
        g_signal_connect_object (window, "notify::visible", G_CALLBACK (on_dialog_visible),
                                 self, 0);
    }
}

static void
watch_menu_button (LbWindow  *self,
                   GtkWidget *button)
{
  GtkPopover *popover = gtk_menu_button_get_popover (GTK_MENU_BUTTON (button));

  if (popover != NULL)
    g_signal_connect (popover, "closed", G_CALLBACK (on_popover_closed), self);
}

void
_lb_window_focus_init (LbWindow *self)
{
  /* the menu buttons' popovers exist once they have a menu model (set in lb_window_init) */
  watch_menu_button (self, self->filter_button);
  watch_menu_button (self, self->window_button);
  watch_menu_button (self, self->main_menu_button);
  g_signal_connect (self->store_popover, "closed", G_CALLBACK (on_popover_closed), self);
  g_signal_connect (self, "notify::is-active", G_CALLBACK (on_active_changed), NULL);
  g_signal_connect_object (gtk_window_get_toplevels (), "items-changed",
                           G_CALLBACK (on_toplevels_changed), self, 0);
}

void
_lb_window_focus_dispose (LbWindow *self)
{
  g_clear_handle_id (&self->focus_source, g_source_remove);
}
