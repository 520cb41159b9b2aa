/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "lb-dicom-dataset.h"

G_BEGIN_DECLS

/**
 * LbPlane:
 *
 * Where an image lies in the patient's coordinate system (PS3.3 C.7.6.2.1.1, mm, x towards the
 * patient's left, y posterior, z head): the centre of its first pixel (ImagePositionPatient),
 * the directions of its rows and columns (ImageOrientationPatient), the distances between
 * pixel centres (PixelSpacing: between rows, then between columns, PS3.3 10.7.1.3) and its
 * size. Pixel (i, j) is column i, row j, its centre at
 * origin + i · column_spacing · row_dir + j · row_spacing · col_dir.
 */
typedef struct {
  double origin[3];      /* ImagePositionPatient: the centre of pixel (0, 0) */
  double row_dir[3];     /* along a row: the direction of increasing column index i */
  double col_dir[3];     /* along a column: the direction of increasing row index j */
  double normal[3];      /* row_dir × col_dir, unit length */
  double row_spacing;    /* mm between the centres of adjacent rows (PixelSpacing[0]) */
  double column_spacing; /* mm between the centres of adjacent columns (PixelSpacing[1]) */
  guint  rows;
  guint  columns;
} LbPlane;

/* FALSE when the directions are not two unit vectors at right angles (within 1e-3), a spacing
 * is not positive or the size is empty. The directions are normalised. */
gboolean lb_plane_init               (LbPlane              *plane,
                                      const double          ipp[3],
                                      const double          iop[6],
                                      const double          pixel_spacing[2],
                                      guint                 rows,
                                      guint                 columns);
/* The plane of a slice from its ImagePositionPatient, ImageOrientationPatient, PixelSpacing,
 * Rows and Columns; FALSE when one is missing or invalid. */
gboolean lb_plane_from_dataset       (LbPlane              *plane,
                                      const LbDicomDataset *ds);

/* The patient point of pixel position (@i, @j) (continuous: pixel centres at integers). */
void     lb_plane_pixel_to_patient   (const LbPlane        *plane,
                                      double                i,
                                      double                j,
                                      double                out[3]);
/* The pixel position of the foot of the perpendicular from @p onto the plane. */
void     lb_plane_patient_to_pixel   (const LbPlane        *plane,
                                      const double          p[3],
                                      double               *i,
                                      double               *j);
/* The signed distance of @p from the plane along its normal (mm). */
double   lb_plane_distance           (const LbPlane        *plane,
                                      const double          p[3]);
/* Whether the normals are within @degrees of each other (either sense). */
gboolean lb_plane_is_parallel        (const LbPlane        *a,
                                      const LbPlane        *b,
                                      double                degrees);

/**
 * lb_plane_reference_line:
 * @image: the image whose plane cuts @target (the active slice)
 * @target: the slice the line is drawn on
 * @ij: (out): the two ends (i0, j0, i1, j1), in @target's pixel positions
 *
 * The reference line of @image on @target: where the image's rectangle (its pixels' outer
 * edges) meets @target's plane, in @target's pixel positions, clipped to @target's rectangle.
 * FALSE when the planes are parallel (within 0.5°) or the line misses either image.
 */
gboolean lb_plane_reference_line     (const LbPlane        *image,
                                      const LbPlane        *target,
                                      double                ij[4]);

/* The slice of @n planes whose plane is nearest to @p (smallest |distance|): the slice that
 * synchronised scrolling shows. -1 when @n is 0. */
int      lb_plane_nearest            (const LbPlane        *planes,
                                      guint                 n,
                                      const double          p[3]);

G_END_DECLS
