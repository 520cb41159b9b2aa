/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-tag-browser"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-tag-browser.h"
#include "lb-tag-row.h"

struct _LbTagBrowser {
  GtkWindow       parent_instance;

  GtkWidget      *search;
  GtkWidget      *status;
  GtkWidget      *view;
  GtkSingleSelection *selection;

  LbDicomDataset *dataset;
  char           *why;
};

G_DEFINE_FINAL_TYPE (LbTagBrowser, lb_tag_browser, GTK_TYPE_WINDOW)

static GListModel *
create_children (gpointer item, gpointer user_data)
{
  return lb_tag_row_list_children (LB_TAG_ROW (item));
}

/* The tree anew from the data set and the search; while searching, every branch that leads to
 * a match is open. */
static void
rebuild (LbTagBrowser *self)
{
  const char *query = gtk_editable_get_text (GTK_EDITABLE (self->search));
  g_autoptr(GListModel) root = NULL;
  GtkTreeListModel *tree;
  g_autofree char *status = NULL;

  if (self->dataset == NULL)
    {
      root = G_LIST_MODEL (g_list_store_new (LB_TYPE_TAG_ROW));
      status = g_strdup (self->why != NULL ? self->why : _("No DICOM data set for this image."));
    }
  else
    {
      root = lb_tag_row_list_dataset (self->dataset, query);
      if (*query != '\0' && g_list_model_get_n_items (root) == 0)
        status = g_strdup (_("No tag matches the search."));
    }
  tree = gtk_tree_list_model_new (g_object_ref (root), FALSE, *query != '\0', create_children,
                                  NULL, NULL);
  gtk_single_selection_set_model (self->selection, G_LIST_MODEL (tree));
  g_object_unref (tree);
  gtk_label_set_text (GTK_LABEL (self->status), status ? status : "");
  gtk_widget_set_visible (self->status, status != NULL);
}

static void
on_search_changed (LbTagBrowser *self)
{
  rebuild (self);
}

void
lb_tag_browser_set_dataset (LbTagBrowser         *self,
                            const LbDicomDataset *ds,
                            const char           *title,
                            const char           *why)
{
  g_autofree char *window_title = NULL;

  g_return_if_fail (LB_IS_TAG_BROWSER (self));
  g_clear_pointer (&self->dataset, lb_dicom_dataset_unref);
  if (ds != NULL)
    self->dataset = lb_dicom_dataset_ref ((LbDicomDataset *) ds);
  g_free (self->why);
  self->why = g_strdup (why);
  if (title != NULL)
    /* TRANSLATORS: the tag browser's title, naming the image: "DICOM Tags — slice 3 of CT1" */
    window_title = g_strdup_printf (_("DICOM Tags — %s"), title);
  gtk_window_set_title (GTK_WINDOW (self), window_title ? window_title : _("DICOM Tags"));
  rebuild (self);
}

GListModel *
lb_tag_browser_get_model (LbTagBrowser *self)
{
  g_return_val_if_fail (LB_IS_TAG_BROWSER (self), NULL);
  return gtk_single_selection_get_model (self->selection);
}

void
lb_tag_browser_set_search (LbTagBrowser *self,
                           const char   *text)
{
  g_return_if_fail (LB_IS_TAG_BROWSER (self));
  gtk_editable_set_text (GTK_EDITABLE (self->search), text);
  /* at once, not after the search entry's delay */
  rebuild (self);
}

LbTagBrowser *
lb_tag_browser_new (GtkWindow *parent)
{
  return g_object_new (LB_TYPE_TAG_BROWSER, "transient-for", parent, NULL);
}

static void
lb_tag_browser_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), LB_TYPE_TAG_BROWSER);
  G_OBJECT_CLASS (lb_tag_browser_parent_class)->dispose (object);
}

static void
lb_tag_browser_finalize (GObject *object)
{
  LbTagBrowser *self = LB_TAG_BROWSER (object);

  g_clear_pointer (&self->dataset, lb_dicom_dataset_unref);
  g_free (self->why);
  G_OBJECT_CLASS (lb_tag_browser_parent_class)->finalize (object);
}

static void
lb_tag_browser_class_init (LbTagBrowserClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lb_tag_browser_dispose;
  object_class->finalize = lb_tag_browser_finalize;
  g_type_ensure (LB_TYPE_TAG_ROW);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/lightbox/Lightbox/ui/lb-tag-browser.ui");
  gtk_widget_class_bind_template_child (widget_class, LbTagBrowser, search);
  gtk_widget_class_bind_template_child (widget_class, LbTagBrowser, status);
  gtk_widget_class_bind_template_child (widget_class, LbTagBrowser, view);
  gtk_widget_class_bind_template_child (widget_class, LbTagBrowser, selection);
  gtk_widget_class_bind_template_callback (widget_class, on_search_changed);
  /* Escape in the search closes the browser, as it does elsewhere in the window */
  gtk_widget_class_bind_template_callback (widget_class, gtk_window_close);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
lb_tag_browser_init (LbTagBrowser *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  rebuild (self);
}
