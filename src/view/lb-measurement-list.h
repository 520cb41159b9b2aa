/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "lb-history.h"
#include "lb-measurement.h"

G_BEGIN_DECLS

/**
 * LbMeasurementList:
 *
 * Every measurement of the open image or series, in the order they were made, each with the
 * frame (or slice) it was made on: 1 for the first, as the window counts them. A #GListModel of
 * #LbMeasurement: the measurements panel binds to it, the canvas draws the ones of the frame
 * shown, and savers (the JSON sidecar, a DICOM SR) read it.
 *
 * A measurement that changes in place (a handle dragged) is announced with
 * lb_measurement_list_changed(): "items-changed" (position, 1, 1).
 *
 * The _undoable functions make the change and push a step on an #LbHistory that undoes and
 * redoes it; the step holds the list and the measurement.
 */
#define LB_TYPE_MEASUREMENT_LIST (lb_measurement_list_get_type ())
G_DECLARE_FINAL_TYPE (LbMeasurementList, lb_measurement_list, LB, MEASUREMENT_LIST, GObject)

LbMeasurementList *lb_measurement_list_new       (void);
guint              lb_measurement_list_get_n     (LbMeasurementList *self);
/* (transfer none) */
LbMeasurement     *lb_measurement_list_get       (LbMeasurementList *self,
                                                  guint              position);
/* The frame @measurement was made on, from 1; 0 when it is not in the list. */
guint              lb_measurement_list_get_frame (LbMeasurementList *self,
                                                  LbMeasurement     *measurement);
gboolean           lb_measurement_list_find      (LbMeasurementList *self,
                                                  LbMeasurement     *measurement,
                                                  guint             *position);
/* Inserts @measurement (a reference is taken) at @position (clamped to the end). */
void               lb_measurement_list_insert    (LbMeasurementList *self,
                                                  guint              position,
                                                  LbMeasurement     *measurement,
                                                  guint              frame);
void               lb_measurement_list_append    (LbMeasurementList *self,
                                                  LbMeasurement     *measurement,
                                                  guint              frame);
gboolean           lb_measurement_list_remove    (LbMeasurementList *self,
                                                  LbMeasurement     *measurement);
void               lb_measurement_list_clear     (LbMeasurementList *self);
/* @measurement changed in place: its row and drawing follow. */
void               lb_measurement_list_changed   (LbMeasurementList *self,
                                                  LbMeasurement     *measurement);
/* (transfer container) (element-type LbMeasurement): the measurements of @frame, in order. */
GPtrArray         *lb_measurement_list_dup_frame (LbMeasurementList *self,
                                                  guint              frame);

/* Appends @measurement and pushes "@label" on @history (undo removes it). */
void               lb_measurement_list_add_undoable    (LbMeasurementList *self,
                                                        LbHistory         *history,
                                                        LbMeasurement     *measurement,
                                                        guint              frame,
                                                        const char        *label);
/* Removes @measurement and pushes "@label" on @history (undo puts it back where it was). */
gboolean           lb_measurement_list_remove_undoable (LbMeasurementList *self,
                                                        LbHistory         *history,
                                                        LbMeasurement     *measurement,
                                                        const char        *label);
/* @measurement was changed in place from @before (a copy taken before the change): pushes
 * "@label" on @history, whose undo gives it @before's points and text back. Nothing is pushed
 * when nothing changed. */
void               lb_measurement_list_record_edit     (LbMeasurementList *self,
                                                        LbHistory         *history,
                                                        LbMeasurement     *measurement,
                                                        LbMeasurement     *before,
                                                        const char        *label);

G_END_DECLS
