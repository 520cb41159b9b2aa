/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "lb-dicom-dataset.h"

G_BEGIN_DECLS

/* The DICOM tag browser: the data set of the slice or image shown, sequences expandable,
 * searchable by keyword, tag or value. It hides on close and is shown again. */

#define LB_TYPE_TAG_BROWSER (lb_tag_browser_get_type ())
G_DECLARE_FINAL_TYPE (LbTagBrowser, lb_tag_browser, LB, TAG_BROWSER, GtkWindow)

LbTagBrowser *lb_tag_browser_new         (GtkWindow            *parent);
/* Shows @ds (NULL: none, with @why (nullable) saying why); @title names the image. The
 * search stays. */
void          lb_tag_browser_set_dataset (LbTagBrowser         *self,
                                          const LbDicomDataset *ds,
                                          const char           *title,
                                          const char           *why);
/* (transfer none) the rows shown: a GtkTreeListModel of LbTagRow items. */
GListModel   *lb_tag_browser_get_model   (LbTagBrowser         *self);
/* The search text; set by the user in the entry, or here. */
void          lb_tag_browser_set_search  (LbTagBrowser         *self,
                                          const char           *text);

G_END_DECLS
