/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-canvas.h"
#include "lb-history.h"
#include "lb-measurement-geometry.h"
#include "lb-measurement-list.h"

G_BEGIN_DECLS

/**
 * LbMeasureLayer:
 *
 * The measurement tools on one canvas: it draws the measurements of the frame shown over the
 * image with their values, and turns the pointer into new measurements (the active tool) or
 * edits (a handle or a measurement dragged, a click selects). Points come from
 * lb_canvas_widget_to_image_point(), so no value depends on the zoom, rotation or flip.
 *
 * With a tool active the primary button draws instead of panning; without one it drags the
 * selected measurement's handle under it, or selects and moves the measurement under it, or
 * else pans. Additions and edits go to the list and, undoably, to the history
 * set (lb_measure_layer_set_history()).
 *
 * Signals: "selection-changed" when another measurement (or none) is selected.
 */
#define LB_TYPE_MEASURE_LAYER (lb_measure_layer_get_type ())
G_DECLARE_FINAL_TYPE (LbMeasureLayer, lb_measure_layer, LB, MEASURE_LAYER, GObject)

LbMeasureLayer *lb_measure_layer_new          (LbCanvas          *canvas,
                                               LbMeasurementList *list);
/* Detaches from the canvas (its controllers and drawing); the layer does nothing after. */
void            lb_measure_layer_detach       (LbMeasureLayer    *self);
void            lb_measure_layer_set_history  (LbMeasureLayer    *self,
                                               LbHistory         *history);
/* The frame shown, from 1: new measurements belong to it, only its measurements are drawn. */
void            lb_measure_layer_set_frame    (LbMeasureLayer    *self,
                                               guint              frame);
/* @active FALSE: no tool (the pointer pans and selects). Leaving a tool ends the drawing in
 * progress: kept when it is complete, else dropped. */
void            lb_measure_layer_set_tool     (LbMeasureLayer    *self,
                                               gboolean           active,
                                               LbMeasurementTool  tool);
gboolean        lb_measure_layer_get_tool     (LbMeasureLayer    *self,
                                               LbMeasurementTool *tool);
/* (nullable) (transfer none) */
LbMeasurement  *lb_measure_layer_get_selected (LbMeasureLayer    *self);
void            lb_measure_layer_select       (LbMeasureLayer    *self,
                                               LbMeasurement     *measurement);
/* Deletes the selected measurement, undoably. FALSE when none is selected. */
gboolean        lb_measure_layer_delete_selected (LbMeasureLayer *self);
/* The values of @measurement on the image shown (cached until it or the image changes); FALSE
 * when there is no image. */
gboolean        lb_measure_layer_compute      (LbMeasureLayer      *self,
                                               LbMeasurement       *measurement,
                                               LbMeasurementValues *values);

G_END_DECLS
