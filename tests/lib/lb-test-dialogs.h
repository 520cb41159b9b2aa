/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>
#include <string.h>

/* Finding and answering the dialogs of lb-dialogs.c by what they show, as a user would, so that
 * the same test holds whichever GTK made them: GtkMessageDialog (GTK 4.8), GtkAlertDialog's
 * window (GTK 4.10 and later), or a form. */

/* The visible dialog over @parent (a toplevel transient for it), NULL when none. */
static inline GtkWindow *
lb_test_dialog_over (GtkWindow *parent)
{
  GListModel *tops = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (tops); i++)
    {
      g_autoptr (GtkWindow) w = g_list_model_get_item (tops, i);

      if (gtk_window_get_transient_for (w) == parent && gtk_widget_get_visible (GTK_WIDGET (w)))
        return w;   /* the toplevel list keeps it */
    }
  return NULL;
}

/* A condition for lb_test_wait(): a dialog is open over the window @data. */
static inline gboolean
lb_test_has_dialog (gpointer data)
{
  return lb_test_dialog_over (GTK_WINDOW (data)) != NULL;
}

/* The button labelled @label (mnemonic included, "_Keep Both") under @widget, or NULL. */
static inline GtkWidget *
lb_test_find_button (GtkWidget  *widget,
                     const char *label)
{
  if (GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0)
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = lb_test_find_button (c, label);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The text of the first label under @widget that contains @part, or NULL. */
static inline const char *
lb_test_find_text (GtkWidget  *widget,
                   const char *part)
{
  if (GTK_IS_LABEL (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), part) != NULL)
    return gtk_label_get_text (GTK_LABEL (widget));
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      const char *found = lb_test_find_text (c, part);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The first GtkExpander under @widget (an error's "Details"), or NULL. A collapsed expander
 * holds its child outside the widget tree: expand it before looking for the text in it. */
static inline GtkExpander *
lb_test_find_expander (GtkWidget *widget)
{
  if (GTK_IS_EXPANDER (widget))
    return GTK_EXPANDER (widget);
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkExpander *found = lb_test_find_expander (c);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Clicks the button @label of the dialog over @parent, which must be there. */
static inline void
lb_test_answer_dialog (GtkWindow  *parent,
                       const char *label)
{
  GtkWindow *dialog = lb_test_dialog_over (parent);
  GtkWidget *button;

  g_assert_nonnull (dialog);
  button = lb_test_find_button (GTK_WIDGET (dialog), label);
  g_assert_nonnull (button);
  g_signal_emit_by_name (button, "clicked");
}
