/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/**
 * LbUploadDialog:
 *
 * Asks the name an upload gets in the store, next to the original: a window with an entry that
 * activates the default widget, made a form (Cancel/Upload, Enter uploads) with
 * lb_dialogs_form(). The window is ui/lb-upload-dialog.ui.
 */
#define LB_TYPE_UPLOAD_DIALOG (lb_upload_dialog_get_type ())
G_DECLARE_FINAL_TYPE (LbUploadDialog, lb_upload_dialog, LB, UPLOAD_DIALOG, GtkWindow)

/* The entry holding @name. */
LbUploadDialog *lb_upload_dialog_new       (const char     *name);
/* (transfer none): the GtkEntry of the name */
GtkWidget      *lb_upload_dialog_get_entry (LbUploadDialog *self);

/* What the name is for, above the entry (the default: an image next to the original). */
void            lb_upload_dialog_set_prompt (LbUploadDialog *self,
                                             const char     *prompt);

G_END_DECLS
