/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "lb-dicom-dataset.h"
#include "lb-image-meta.h"

G_BEGIN_DECLS

/**
 * LbMeasurementSpacingKind:
 * @LB_MEASUREMENT_SPACING_UNKNOWN: no spacing: lengths are in pixels ("px")
 * @LB_MEASUREMENT_SPACING_CALIBRATED: distances in the patient: PixelSpacing of a cross-sectional
 *   image (CT, MR, …), or of a projection image that says it was corrected or calibrated
 *   (PixelSpacingCalibrationType GEOMETRY or FIDUCIAL, or a PixelSpacing that differs from
 *   ImagerPixelSpacing: PS3.3 10.7.1.1, 10.7.1.2)
 * @LB_MEASUREMENT_SPACING_ESTIMATED: ImagerPixelSpacing divided by the Estimated Radiographic
 *   Magnification Factor (0018,1114), which the standard defines as SID / SOD (source to
 *   detector over source to object distance): the spacing at the depth of the isocentre, an
 *   estimate for anything nearer the source or the detector
 * @LB_MEASUREMENT_SPACING_DETECTOR: ImagerPixelSpacing without a magnification factor: sizes
 *   at the front of the detector, larger than in the patient by the geometric magnification
 * @LB_MEASUREMENT_SPACING_UNVERIFIED: a projection image's PixelSpacing with neither
 *   ImagerPixelSpacing nor a calibration type, or a file's spacing without DICOM provenance
 *   (a PNG pHYs chunk): "it cannot be determined whether or not correction or calibration
 *   have been performed" (PS3.3 10.7.1.1)
 *
 * How far a length in millimetres can be trusted; the workstation shows it beside every value.
 */
typedef enum {
  LB_MEASUREMENT_SPACING_UNKNOWN,
  LB_MEASUREMENT_SPACING_CALIBRATED,
  LB_MEASUREMENT_SPACING_ESTIMATED,
  LB_MEASUREMENT_SPACING_DETECTOR,
  LB_MEASUREMENT_SPACING_UNVERIFIED,
} LbMeasurementSpacingKind;

/**
 * LbMeasurementSpacing:
 * @kind: see #LbMeasurementSpacingKind
 * @column_mm: the distance between the centres of adjacent columns: a pixel's width (the
 *   second value of PixelSpacing), mm; 1 when @kind is unknown
 * @row_mm: the distance between the centres of adjacent rows: a pixel's height (the first
 *   value of PixelSpacing), mm; 1 when @kind is unknown
 * @magnification: the magnification factor divided out (ESTIMATED), else 1
 *
 * Rows and columns may be spaced differently (anisotropic pixels): every length, angle and
 * area is computed in millimetres from both.
 */
typedef struct {
  LbMeasurementSpacingKind kind;
  double                   column_mm;
  double                   row_mm;
  double                   magnification;
} LbMeasurementSpacing;

/* "unknown", "calibrated", "estimated", "detector", "unverified" (the JSON sidecar's names). */
const char *lb_measurement_spacing_kind_to_string   (LbMeasurementSpacingKind  kind);
gboolean    lb_measurement_spacing_kind_from_string (const char               *text,
                                                     LbMeasurementSpacingKind *kind);

/* The unit of lengths: "px" when the spacing is unknown, else "mm"; of areas "px²" or "mm²". */
const char *lb_measurement_spacing_length_unit (const LbMeasurementSpacing *spacing);
const char *lb_measurement_spacing_area_unit   (const LbMeasurementSpacing *spacing);

/* The spacing of an image without one: UNKNOWN, 1 × 1 (lengths in pixels). */
void        lb_measurement_spacing_init_unknown (LbMeasurementSpacing *spacing);

/**
 * lb_measurement_spacing_from_dataset:
 * @ds: an image's data set; for a frame of an enhanced multi-frame object, the data set with
 *   that frame's functional groups merged in (lb-dicom-multiframe.h), so that the Pixel
 *   Measures macro's PixelSpacing is at the top level
 *
 * Resolves the spacing as PS3.3 10.7.1 describes it:
 * - ImagerPixelSpacing present (projection radiography): PixelSpacing is used when it is
 *   calibrated: PixelSpacingCalibrationType present, or values that differ from
 *   ImagerPixelSpacing (10.7.1.1); otherwise ImagerPixelSpacing divided by a positive
 *   EstimatedRadiographicMagnificationFactor (ESTIMATED), or as it is (DETECTOR);
 * - PixelSpacing alone: CALIBRATED, except for projection modalities (CR, DX, MG, IO, PX,
 *   RF, XA, RG) without a calibration type, which are UNVERIFIED;
 * - neither, or values that are not positive numbers: UNKNOWN.
 * Always fills @spacing; returns FALSE when it is UNKNOWN.
 */
gboolean    lb_measurement_spacing_from_dataset (const LbDicomDataset *ds,
                                                 LbMeasurementSpacing *spacing);

/**
 * lb_measurement_spacing_from_meta:
 *
 * The spacing an image carries in its metadata (lb_image_meta_get_pixel_spacing(): DICOM's,
 * or a PNG's exact "lightbox:spacing" chunk, else its pHYs). The metadata keep less than the
 * data set, so: the "Pixel spacing" text the DICOM reader sets for ImagerPixelSpacing makes
 * it DETECTOR; a "Modality" text (DICOM provenance, kept in PNG text chunks) makes it
 * CALIBRATED, or UNVERIFIED for a projection modality; a spacing without DICOM provenance is
 * UNVERIFIED; none is UNKNOWN. Prefer lb_measurement_spacing_from_dataset() when the data set
 * is at hand. Returns FALSE when UNKNOWN.
 */
gboolean    lb_measurement_spacing_from_meta    (const LbImageMeta    *meta,
                                                 LbMeasurementSpacing *spacing);

G_END_DECLS
