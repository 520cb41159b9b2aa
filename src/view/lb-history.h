/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>

#include "lb-image.h"

G_BEGIN_DECLS

/**
 * LbHistory:
 *
 * The undo/redo history of one opened image: a list of immutable #LbImage states, each with
 * the description of the step that produced it ("Blur (size 5)") and the provenance line of
 * the filter chain. Position 0 is the original. Pushing after an undo drops the redo tail.
 * Images are shared, never copied, so many levels cost only the filtered results.
 */
#define LB_TYPE_HISTORY (lb_history_get_type ())
G_DECLARE_FINAL_TYPE (LbHistory, lb_history, LB, HISTORY, GObject)

LbHistory  *lb_history_new            (LbImage    *original);
void        lb_history_push           (LbHistory  *self,
                                       LbImage    *image,
                                       const char *label,
                                       const char *provenance);
gboolean    lb_history_undo           (LbHistory  *self);
gboolean    lb_history_redo           (LbHistory  *self);
/* Goes back to the original as a new, undoable step. FALSE if already there. */
gboolean    lb_history_revert         (LbHistory  *self);
gboolean    lb_history_can_undo       (LbHistory  *self);
gboolean    lb_history_can_redo       (LbHistory  *self);
LbImage    *lb_history_get_current    (LbHistory  *self);
LbImage    *lb_history_get_original   (LbHistory  *self);
guint       lb_history_get_position   (LbHistory  *self);
guint       lb_history_get_length     (LbHistory  *self);
/* Label of the step that made the current state (NULL at the original). */
const char *lb_history_get_label      (LbHistory  *self);
/* The state at @index (0, the original, … length − 1; redo states included) and the label of
 * the step that made it (NULL for the original): the images a filter may read as its second
 * input. */
LbImage    *lb_history_get_image_at   (LbHistory  *self,
                                       guint       index);
const char *lb_history_get_label_at   (LbHistory  *self,
                                       guint       index);
/* The filter chain from the original to the current state, one line per step; NULL when
 * the current state is the original. (transfer full) */
char       *lb_history_dup_chain      (LbHistory  *self);
/* Short label for file names: the last step's filter label. */
const char *lb_history_get_file_label (LbHistory  *self);
void        lb_history_set_file_label (LbHistory  *self,
                                       const char *label);

G_END_DECLS
