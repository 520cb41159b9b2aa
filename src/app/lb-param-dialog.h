/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "lb-filter-params.h"

G_BEGIN_DECLS

/**
 * LbParamDialog:
 *
 * A dialog generated from a filter's parameter specs: a scale plus spin button for numbers
 * (the scale spans the spec's slider range, the spin button its hard range), a switch for
 * booleans, a drop-down for enums; parameters flagged advanced sit in an expander. Values go
 * through lb_filter_params_set_number(), so an invalid value (an even mask size) shows the
 * engine's message and disables Apply. Emits ::changed after every valid change (the window
 * previews) and ::done with TRUE for Apply, FALSE for Cancel or close; ::choose-aux-file when
 * the user asks for a file as the second image.
 */
#define LB_TYPE_PARAM_DIALOG (lb_param_dialog_get_type ())
G_DECLARE_FINAL_TYPE (LbParamDialog, lb_param_dialog, LB, PARAM_DIALOG, GtkWindow)

LbParamDialog  *lb_param_dialog_new        (LbFilter       *filter,
                                            LbFilterParams *initial,
                                            GtkWindow      *parent);
LbFilter       *lb_param_dialog_get_filter (LbParamDialog  *self);
/* (transfer none): the current, valid values */
LbFilterParams *lb_param_dialog_get_params (LbParamDialog  *self);
gboolean        lb_param_dialog_get_preview (LbParamDialog *self);
/* Sets a parameter through its widget, as a user would. FALSE if there is no such widget. */
gboolean        lb_param_dialog_set_value  (LbParamDialog  *self,
                                            const char     *name,
                                            double          value);
/* Presses Apply (TRUE) or Cancel (FALSE). */
void            lb_param_dialog_respond    (LbParamDialog  *self,
                                            gboolean        apply);
/* The widget that edits @name (spin button, switch or drop-down), for tests. */
GtkWidget      *lb_param_dialog_get_widget (LbParamDialog  *self,
                                            const char     *name);
GtkWidget      *lb_param_dialog_get_apply_button (LbParamDialog *self);
/**
 * lb_param_dialog_rebind:
 * @filter: the filter that replaced the dialog's one (same id, new plugin code)
 *
 * Rebuilds the rows for @filter, keeping every value its specs still accept (by name; enums
 * by nick) and giving the others @filter's defaults; a notice in the dialog says so. Emits
 * ::changed. Returns the number of values set back to their defaults.
 */
guint           lb_param_dialog_rebind     (LbParamDialog  *self,
                                            LbFilter       *filter);
/* Shows why the last preview failed (@error NULL hides it). */
void            lb_param_dialog_set_preview_error (LbParamDialog *self,
                                                   const GError  *error);
/* The texts shown now, or NULL when hidden (for tests). */
const char     *lb_param_dialog_get_preview_error (LbParamDialog *self);
const char     *lb_param_dialog_get_notice (LbParamDialog  *self);

/* The second image of a filter that reads two (lb_filter_get_n_inputs() 2): the caller lists
 * what may be chosen (labels in order; it keeps what each one means) and reads the choice
 * (GTK_INVALID_LIST_POSITION when none). Choosing one emits ::changed; the "From File…"
 * button emits ::choose-aux-file, after which the caller adds the file and selects it. */
guint           lb_param_dialog_add_aux_choice (LbParamDialog *self,
                                                const char    *label);
/* The position of the choice labelled @label, GTK_INVALID_LIST_POSITION if none. */
guint           lb_param_dialog_find_aux_choice (LbParamDialog *self,
                                                 const char    *label);
void            lb_param_dialog_set_aux_choice (LbParamDialog *self,
                                                guint          index);
guint           lb_param_dialog_get_aux_choice (LbParamDialog *self);
/* The image is a slice of a series of @n_slices (0 or 1: not): the dialog offers to apply the
 * filter to the slice shown or to the whole series. */
void            lb_param_dialog_set_series     (LbParamDialog *self,
                                                guint          n_slices);
gboolean        lb_param_dialog_get_whole_series (LbParamDialog *self);
void            lb_param_dialog_set_whole_series (LbParamDialog *self,
                                                  gboolean       whole);

G_END_DECLS
