/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-measurement-geometry.h"

G_BEGIN_DECLS

/* What the workstation shows of a measurement, translated: the tool's name, and its values
 * with their units and, where the spacing is not calibrated, how far it can be trusted ("px,
 * no pixel spacing" when unknown). */
const char *lb_measure_text_tool_name (LbMeasurementTool          tool);
/* The label drawn beside the measurement: one to three lines. */
char       *lb_measure_text_label     (LbMeasurement             *measurement,
                                       const LbMeasurementValues *values) G_GNUC_MALLOC;
/* One line for the measurements panel. */
char       *lb_measure_text_summary   (LbMeasurement             *measurement,
                                       const LbMeasurementValues *values) G_GNUC_MALLOC;

G_END_DECLS
