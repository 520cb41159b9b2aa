/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "lb-dicom-dataset.h"

G_BEGIN_DECLS

/* One row of the tag browser: an element of a data set (tag, keyword, VR, value), or an item
 * of a sequence. A sequence's rows are its items; an item's rows are its elements. */

#define LB_TYPE_TAG_ROW (lb_tag_row_get_type ())
G_DECLARE_FINAL_TYPE (LbTagRow, lb_tag_row, LB, TAG_ROW, GObject)

/* The rows of @ds's elements in tag order, those that @query matches or whose sequences hold
 * one that does (@query NULL or "": all). @query matches, ignoring case, the keyword, the tag
 * as "(0008,0020)" or "00080020", or the value. (transfer full) a list of LbTagRow. */
GListModel *lb_tag_row_list_dataset (const LbDicomDataset *ds,
                                     const char           *query);
/* The rows under @self with the query it was made with: the items of a sequence, the elements
 * of an item; NULL for other elements. (transfer full) */
GListModel *lb_tag_row_list_children (LbTagRow *self);

guint32     lb_tag_row_get_tag       (LbTagRow *self);
/* "(0008,0020)"; "" for an item */
const char *lb_tag_row_get_tag_text  (LbTagRow *self);
/* "StudyDate"; "Item 2" for an item; "" for private and unknown attributes */
const char *lb_tag_row_get_keyword   (LbTagRow *self);
const char *lb_tag_row_get_vr        (LbTagRow *self);
/* The values joined with '\', "3 items" for a sequence, "" when empty */
const char *lb_tag_row_get_value     (LbTagRow *self);

G_END_DECLS
