/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-upload-dialog"

#include "config.h"

#include "lb-upload-dialog.h"

struct _LbUploadDialog {
  GtkWindow  parent_instance;

  /* Template widgets */
  GtkWidget *prompt;
  GtkWidget *entry;
};

G_DEFINE_FINAL_TYPE (LbUploadDialog, lb_upload_dialog, GTK_TYPE_WINDOW)

static void
lb_upload_dialog_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), LB_TYPE_UPLOAD_DIALOG);
  G_OBJECT_CLASS (lb_upload_dialog_parent_class)->dispose (object);
}

static void
lb_upload_dialog_class_init (LbUploadDialogClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = lb_upload_dialog_dispose;
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/lightbox/Lightbox/ui/lb-upload-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, LbUploadDialog, prompt);
  gtk_widget_class_bind_template_child (widget_class, LbUploadDialog, entry);
}

static void
lb_upload_dialog_init (LbUploadDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

LbUploadDialog *
lb_upload_dialog_new (const char *name)
{
  LbUploadDialog *self = g_object_new (LB_TYPE_UPLOAD_DIALOG, NULL);

  gtk_editable_set_text (GTK_EDITABLE (self->entry), name ? name : "");
  return self;
}

GtkWidget *
lb_upload_dialog_get_entry (LbUploadDialog *self)
{
  g_return_val_if_fail (LB_IS_UPLOAD_DIALOG (self), NULL);
  return self->entry;
}

void
lb_upload_dialog_set_prompt (LbUploadDialog *self,
                             const char     *prompt)
{
  g_return_if_fail (LB_IS_UPLOAD_DIALOG (self));
  gtk_label_set_text (GTK_LABEL (self->prompt), prompt);
}
