/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

#include "lb-dicom-dataset.h"
#include "lb-image.h"
#include "lb-measurement-sidecar.h"
#include "lb-measurement-spacing.h"
#include "lb-store.h"

G_BEGIN_DECLS

/* What `measure` and `measurements` share: the measured image with its data set and spacing,
 * waiting for async store calls, and printing a list as CSV or as the sidecar's JSON. */

typedef struct {
  char                  *url;       /* as the store takes it; NULL for a local path */
  LbStore               *store;     /* NULL for a local path */
  gboolean               dicomweb;  /* @store is an LbDicomwebStore */
  LbImage               *image;
  LbDicomDataset        *dataset;   /* (nullable) the frame's data set (DICOM only) */
  gint                   frame;     /* from 0 in a multi-frame object, else -1 */
  LbMeasurementSpacing   spacing;
  LbMeasurementImageRef  ref;
} LbCliMeasureTarget;

void     lb_cli_measure_target_clear (LbCliMeasureTarget *t);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (LbCliMeasureTarget, lb_cli_measure_target_clear)

/* Loads @arg (a local path or a store URL) and frame @frame_number (from 1; 0: the first):
 * a DICOMweb instance with its WADO-RS metadata, a local DICOM file with its data set, any
 * other image as it loads. The spacing follows PS3.3 10.7.1 when there is a data set. */
gboolean lb_cli_measure_target_load  (const char          *arg,
                                      guint                frame_number,
                                      LbCliMeasureTarget  *t,
                                      GError             **error);

/* Runs the thread-default main context until @slot holds the async call's result. */
GAsyncResult *lb_cli_wait (GAsyncResult **slot);
/* A GAsyncReadyCallback storing the result in the GAsyncResult* @user_data points at. */
void          lb_cli_store_result (GObject      *source,
                                   GAsyncResult *result,
                                   gpointer      user_data);

/* @measurements (element-type LbMeasurement) of @t, their values computed on its image: as
 * CSV lines (lb_measurement_csv(), the image column @label; @header: with the header line),
 * or as the sidecar's JSON document (docs/measurements.md). */
char     *lb_cli_measure_csv         (LbCliMeasureTarget  *t,
                                      const char          *label,
                                      GPtrArray           *measurements,
                                      gboolean             header,
                                      GError             **error);
JsonNode *lb_cli_measure_json        (LbCliMeasureTarget  *t,
                                      GPtrArray           *measurements,
                                      GError             **error);
/* Prints @node as pretty JSON on stdout. */
void      lb_cli_print_json          (JsonNode            *node);

G_END_DECLS
