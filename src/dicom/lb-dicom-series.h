/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>

#include "lb-dicom-dataset.h"

G_BEGIN_DECLS

/**
 * LbDicomSeries:
 *
 * The slices of one series in reading order. Instances are added with their data sets (a
 * Part 10 file's, or WADO-RS metadata); a multi-frame object adds one slice per frame, its
 * position from the frame's Plane Position Sequence in the Per-frame Functional Groups
 * (PS3.3 C.7.6.16.2.3) and its orientation from the Plane Orientation Sequence of the
 * per-frame or shared groups, else the top-level attributes.
 *
 * lb_dicom_series_sort() orders the slices by their location along the slice normal
 * (ImagePositionPatient · (row × column direction cosines of ImageOrientationPatient),
 * PS3.3 C.7.6.2.1.1), then InstanceNumber (missing last), then name, then frame. The normal
 * is the orientation most slices share (the first seen of those with most slices on a tie).
 * Slices without a position come after those with one. Sorting also measures the spacing
 * and finds what a reader should be warned of (#LbDicomSeriesWarning).
 *
 * Not thread safe; GTK-free.
 */
#define LB_TYPE_DICOM_SERIES (lb_dicom_series_get_type ())
G_DECLARE_FINAL_TYPE (LbDicomSeries, lb_dicom_series, LB, DICOM_SERIES, GObject)

/* Positions closer than this along the normal are the same position (mm). */
#define LB_DICOM_SERIES_SAME_POSITION_MM 0.01
/* A gap that differs from the spacing by more than this fraction of it is irregular. */
#define LB_DICOM_SERIES_GAP_TOLERANCE 0.1
/* Orientations whose direction cosines differ by more than this are different. */
#define LB_DICOM_SERIES_SAME_ORIENTATION 1e-3

typedef enum {
  LB_DICOM_SERIES_WARN_NONE               = 0,
  LB_DICOM_SERIES_WARN_DUPLICATE_POSITION = 1 << 0, /* two slices at one location */
  LB_DICOM_SERIES_WARN_MISSING_SLICES     = 1 << 1, /* a gap of about k ≥ 2 spacings */
  LB_DICOM_SERIES_WARN_IRREGULAR_SPACING  = 1 << 2, /* a gap that is no multiple of it */
  LB_DICOM_SERIES_WARN_MIXED_ORIENTATION  = 1 << 3, /* slices in different planes */
  LB_DICOM_SERIES_WARN_NO_POSITION        = 1 << 4, /* slices without position/orientation */
} LbDicomSeriesWarning;

typedef struct {
  char    *name;             /* as added (a file name, a SOPInstanceUID) */
  guint    frame;            /* 0-based frame of the object; 0 for single-frame objects */
  guint    n_frames;         /* frames of the object (1 for single-frame objects) */
  gboolean has_instance_number;
  gint64   instance_number;
  gboolean has_position;     /* position and orientation both known */
  double   position[3];      /* ImagePositionPatient (mm) */
  double   orientation[6];   /* ImageOrientationPatient: row, then column cosines */
  double   location;         /* position · series normal (mm); NAN without a position */
} LbDicomSlice;

LbDicomSeries *lb_dicom_series_new (void);

/* Adds the slices of one instance (one per frame); @ds is read, not kept. Returns the number
 * of slices added. */
guint                lb_dicom_series_add       (LbDicomSeries        *self,
                                                const char           *name,
                                                const LbDicomDataset *ds);
/* Orders the slices and computes location, spacing and warnings (see above). */
void                 lb_dicom_series_sort      (LbDicomSeries        *self);

guint                lb_dicom_series_get_n_slices (LbDicomSeries *self);
/* (transfer none) slice @index in the current order. */
const LbDicomSlice  *lb_dicom_series_get_slice    (LbDicomSeries *self,
                                                   guint          index);
/* The slice normal of the series (unit vector); FALSE when no slice has a position. */
gboolean             lb_dicom_series_get_normal   (LbDicomSeries *self,
                                                   double         normal[3]);
/* The spacing between slices (mm): the median of the gaps between distinct locations; 0 when
 * fewer than two distinct locations are known. */
double               lb_dicom_series_get_spacing  (LbDicomSeries *self);
/* Slices that a regular stack would have between the first and the last location but that
 * are absent (sum over gaps of round(gap / spacing) − 1). */
guint                lb_dicom_series_get_n_missing (LbDicomSeries *self);
LbDicomSeriesWarning lb_dicom_series_get_warnings (LbDicomSeries *self);
/* (transfer none) the warnings in plain words, one sentence each, for the reader; NULL-ended. */
const char * const  *lb_dicom_series_get_messages (LbDicomSeries *self);

G_END_DECLS
