/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/**
 * LbUploadDialog:
 *
 * Asks the name an upload gets in the store, next to the original: a GtkDialog with an entry
 * (Enter uploads) and Cancel/Upload in its header bar, answering GTK_RESPONSE_OK or
 * GTK_RESPONSE_CANCEL. The dialog is ui/lb-upload-dialog.ui.
 */
#define LB_TYPE_UPLOAD_DIALOG (lb_upload_dialog_get_type ())
G_DECLARE_FINAL_TYPE (LbUploadDialog, lb_upload_dialog, LB, UPLOAD_DIALOG, GtkDialog)

/* A modal dialog for @parent, the entry holding @name. */
LbUploadDialog *lb_upload_dialog_new       (GtkWindow      *parent,
                                            const char     *name);
/* (transfer none): the GtkEntry of the name */
GtkWidget      *lb_upload_dialog_get_entry (LbUploadDialog *self);

G_END_DECLS
