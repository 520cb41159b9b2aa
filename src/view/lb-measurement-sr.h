/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-dicom-dataset.h"
#include "lb-image.h"
#include "lb-measurement.h"
#include "lb-measurement-spacing.h"

G_BEGIN_DECLS

/*
 * Measurements as a DICOM Comprehensive SR following TID 1500 "Measurement Report"
 * (lb-dicom-sr.h builds the document; docs/measurements.md shows the tree). One Measurement
 * Group per measurement, its shape a SCOORD in the image's pixel coordinates, which are
 * Lightbox's own (PS3.3 C.18.6.1.2: (0, 0) is the top left corner of the top left pixel, so
 * pixel (c, r) covers [c, c + 1) × [r, r + 1) in both), referencing the image and frame it was
 * drawn on.
 */

/**
 * LbMeasurementSrImage:
 * @dataset: the measured instance's data set (WADO-RS metadata or the file's): its UIDs, and
 *   the patient and study the report joins
 * @frame: the frame measured, from 0, for a multi-frame instance; -1 for a single frame
 * @image: (nullable): its pixels, for the statistics of ROIs and the probe's value
 * @spacing: the spacing lengths and areas are computed with
 * @measurements: (element-type LbMeasurement): what was measured on it, each valid
 */
typedef struct {
  const LbDicomDataset       *dataset;
  gint                        frame;
  LbImage                    *image;
  const LbMeasurementSpacing *spacing;
  GPtrArray                  *measurements;
} LbMeasurementSrImage;

/**
 * lb_measurement_sr_build:
 * @images: the measured images, all of one study
 * @series_number: SeriesNumber of the report's new series (the DICOMweb store replaces it with
 *   one above the study's highest when it saves the report)
 *
 * The report's data set: a Comprehensive SR in a new series of the images' study. The points
 * are written as FL, single precision; the values (NUM, with FloatingPointValue) are computed
 * from those rounded points, so a reader that recomputes them from the SCOORD gets the same
 * numbers. Fails with %LB_ERROR_INVALID_ARGUMENT when there is no measurement, a measurement
 * is not valid, or an image lacks a UID or is in another study.
 */
LbDicomDataset *lb_measurement_sr_build (const LbMeasurementSrImage *images,
                                         guint                       n_images,
                                         guint                       series_number,
                                         GError                    **error);

/* The same points rounded to single precision, as the SR keeps them. */
LbMeasurement  *lb_measurement_sr_round (LbMeasurement              *measurement);

/**
 * LbMeasurementSrValue:
 * @name: "length", "angle", "area", "mean", "sd", "min", "max", "value" (a probe's), or for a
 *   concept Lightbox does not know its CodeMeaning
 * @value: as the report states it
 * @unit: the UCUM code ("mm", "mm2", "deg", "[hnsf'U]", "1", …); "" when none is given
 */
typedef struct {
  char   *name;
  double  value;
  char   *unit;
} LbMeasurementSrValue;

/**
 * LbMeasurementSrEntry:
 * @measurement: the measurement, from the SCOORD
 * @sop_instance_uid: the instance it was drawn on
 * @frame: its frame from 0, or -1 when the reference names none
 * @tracking_id: (nullable): the group's Tracking Identifier
 * @tracking_uid: (nullable): its Tracking Unique Identifier
 * @values: (element-type LbMeasurementSrValue): the values the report states
 */
typedef struct {
  LbMeasurement *measurement;
  char          *sop_instance_uid;
  gint           frame;
  char          *tracking_id;
  char          *tracking_uid;
  GArray        *values;
} LbMeasurementSrEntry;

void lb_measurement_sr_entry_free (LbMeasurementSrEntry *entry);

/**
 * lb_measurement_sr_read:
 * @sr: an SR document (data set)
 *
 * The measurements of a TID 1500 report, Lightbox's or another tool's: every SCOORD of every
 * Measurement Group, whether in the group (TID 1410's Image Region) or below a NUM (INFERRED
 * FROM, TID 300), becomes an #LbMeasurementSrEntry: POINT a probe; an open POLYLINE a length
 * (2 points, below a NUM), an arrow (2 points, in the group itself), an angle (3 points with
 * an Angle value) or a polyline; a closed POLYLINE (last point = first) a rectangle when its
 * 4 corners make one along the rows and columns, else a freehand region; a CIRCLE, and an
 * ELLIPSE whose axes follow the rows and columns, an ellipse; another ELLIPSE a 64-point
 * freehand outline of it. A TEXT "Comment" in the group is the measurement's text. SCOORDs
 * without an IMAGE they are SELECTED FROM, and MULTIPOINT other than 1 or 3 points, are
 * left out. Any other document gives an empty array.
 *
 * Returns: (transfer full) (element-type LbMeasurementSrEntry): or NULL with %LB_ERROR_PARSE
 * naming the group when a SCOORD is malformed or its points are not valid coordinates: a
 * report that fails gives nothing, never half of it.
 */
GPtrArray *lb_measurement_sr_read (const LbDicomDataset *sr,
                                   GError              **error);

/* The entries of lb_measurement_sr_read() on @sop_instance_uid and, for a multi-frame object,
 * @frame (from 0; an entry without a frame matches any, -1 matches every entry) (transfer
 * full) (element-type LbMeasurement): copies of the measurements, in order. */
GPtrArray *lb_measurement_sr_for_image (GPtrArray            *entries,
                                        const char           *sop_instance_uid,
                                        gint                  frame);

G_END_DECLS
