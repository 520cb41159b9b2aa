/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>

#include "lb-dicom-tags.h"
#include "lb-plane-geometry.h"

/* Planes whose normals are closer than this are parallel for a reference line: their line of
 * intersection would lie far outside any image. */
#define PARALLEL_DEGREES 0.5

static double
dot (const double a[3], const double b[3])
{
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static gboolean
normalise (double v[3])
{
  double n = sqrt (dot (v, v));

  if (!(n > 1e-6))
    return FALSE;
  for (guint k = 0; k < 3; k++)
    v[k] /= n;
  return TRUE;
}

gboolean
lb_plane_init (LbPlane      *plane,
               const double  ipp[3],
               const double  iop[6],
               const double  pixel_spacing[2],
               guint         rows,
               guint         columns)
{
  g_return_val_if_fail (plane != NULL, FALSE);

  for (guint k = 0; k < 3; k++)
    {
      plane->origin[k] = ipp[k];
      plane->row_dir[k] = iop[k];
      plane->col_dir[k] = iop[3 + k];
    }
  if (!normalise (plane->row_dir) || !normalise (plane->col_dir)
      || fabs (dot (plane->row_dir, plane->col_dir)) > 1e-3)
    return FALSE;
  plane->normal[0] = plane->row_dir[1] * plane->col_dir[2] - plane->row_dir[2] * plane->col_dir[1];
  plane->normal[1] = plane->row_dir[2] * plane->col_dir[0] - plane->row_dir[0] * plane->col_dir[2];
  plane->normal[2] = plane->row_dir[0] * plane->col_dir[1] - plane->row_dir[1] * plane->col_dir[0];
  normalise (plane->normal);
  plane->row_spacing = pixel_spacing[0];
  plane->column_spacing = pixel_spacing[1];
  plane->rows = rows;
  plane->columns = columns;
  return pixel_spacing[0] > 0 && pixel_spacing[1] > 0 && rows > 0 && columns > 0;
}

gboolean
lb_plane_from_dataset (LbPlane              *plane,
                       const LbDicomDataset *ds)
{
  double ipp[3], iop[6], ps[2];
  gint64 rows, columns;

  g_return_val_if_fail (plane != NULL, FALSE);
  if (ds == NULL)
    return FALSE;
  for (guint k = 0; k < 3; k++)
    if (!lb_dicom_dataset_get_double (ds, LB_TAG_IMAGE_POSITION_PATIENT, k, &ipp[k]))
      return FALSE;
  for (guint k = 0; k < 6; k++)
    if (!lb_dicom_dataset_get_double (ds, LB_TAG_IMAGE_ORIENTATION_PATIENT, k, &iop[k]))
      return FALSE;
  for (guint k = 0; k < 2; k++)
    if (!lb_dicom_dataset_get_double (ds, LB_TAG_PIXEL_SPACING, k, &ps[k]))
      return FALSE;
  if (!lb_dicom_dataset_get_int (ds, LB_TAG_ROWS, 0, &rows)
      || !lb_dicom_dataset_get_int (ds, LB_TAG_COLUMNS, 0, &columns)
      || rows <= 0 || columns <= 0 || rows > G_MAXUINT16 || columns > G_MAXUINT16)
    return FALSE;
  return lb_plane_init (plane, ipp, iop, ps, (guint) rows, (guint) columns);
}

void
lb_plane_pixel_to_patient (const LbPlane *plane,
                           double         i,
                           double         j,
                           double         out[3])
{
  /* PS3.3 C.7.6.2.1.1, equation C.7.6.2.1-1 */
  for (guint k = 0; k < 3; k++)
    out[k] = plane->origin[k] + i * plane->column_spacing * plane->row_dir[k]
             + j * plane->row_spacing * plane->col_dir[k];
}

void
lb_plane_patient_to_pixel (const LbPlane *plane,
                           const double   p[3],
                           double        *i,
                           double        *j)
{
  double d[3] = { p[0] - plane->origin[0], p[1] - plane->origin[1], p[2] - plane->origin[2] };

  /* the directions are orthonormal: the components are projections */
  *i = dot (d, plane->row_dir) / plane->column_spacing;
  *j = dot (d, plane->col_dir) / plane->row_spacing;
}

double
lb_plane_distance (const LbPlane *plane,
                   const double   p[3])
{
  double d[3] = { p[0] - plane->origin[0], p[1] - plane->origin[1], p[2] - plane->origin[2] };

  return dot (d, plane->normal);
}

gboolean
lb_plane_is_parallel (const LbPlane *a,
                      const LbPlane *b,
                      double         degrees)
{
  return fabs (dot (a->normal, b->normal)) >= cos (degrees * G_PI / 180.0);
}

/* Clips the segment @ij to the rectangle [lo, hi_i] × [lo, hi_j] (Liang–Barsky); FALSE when
 * nothing of it is inside. */
static gboolean
clip_segment (double ij[4], double hi_i, double hi_j)
{
  const double lo = -0.5;
  double d[2] = { ij[2] - ij[0], ij[3] - ij[1] };
  double hi[2] = { hi_i, hi_j };
  double t0 = 0, t1 = 1;

  for (guint k = 0; k < 2; k++)
    {
      double p0 = ij[k];

      if (fabs (d[k]) < 1e-12)
        {
          if (p0 < lo || p0 > hi[k])
            return FALSE;
          continue;
        }
      {
        double ta = (lo - p0) / d[k], tb = (hi[k] - p0) / d[k];

        t0 = MAX (t0, MIN (ta, tb));
        t1 = MIN (t1, MAX (ta, tb));
      }
    }
  if (!(t0 < t1))
    return FALSE;
  {
    double i0 = ij[0], j0 = ij[1];

    ij[0] = i0 + t0 * d[0];
    ij[1] = j0 + t0 * d[1];
    ij[2] = i0 + t1 * d[0];
    ij[3] = j0 + t1 * d[1];
  }
  return TRUE;
}

gboolean
lb_plane_reference_line (const LbPlane *image,
                         const LbPlane *target,
                         double         ij[4])
{
  /* the image's outer edges: half a pixel beyond the first and last pixel centres */
  double ci[4] = { -0.5, image->columns - 0.5, image->columns - 0.5, -0.5 };
  double cj[4] = { -0.5, -0.5, image->rows - 0.5, image->rows - 0.5 };
  double corner[4][3], dist[4], hit[4][3];
  guint n = 0;
  double best = -1;

  if (lb_plane_is_parallel (image, target, PARALLEL_DEGREES))
    return FALSE;
  for (guint c = 0; c < 4; c++)
    {
      lb_plane_pixel_to_patient (image, ci[c], cj[c], corner[c]);
      dist[c] = lb_plane_distance (target, corner[c]);
    }
  /* each edge whose ends lie on either side of the target's plane crosses it once; a corner on
   * the plane counts for both its edges, so duplicates are possible and harmless */
  for (guint c = 0; c < 4; c++)
    {
      guint e = (c + 1) % 4;
      double t;

      if ((dist[c] > 0 && dist[e] > 0) || (dist[c] < 0 && dist[e] < 0) || dist[c] == dist[e])
        continue;
      t = dist[c] / (dist[c] - dist[e]);
      for (guint k = 0; k < 3; k++)
        hit[n][k] = corner[c][k] + t * (corner[e][k] - corner[c][k]);
      n++;
    }
  if (n < 2)
    return FALSE;
  /* the two crossings farthest apart are the ends of the segment */
  for (guint a = 0; a < n; a++)
    for (guint b = a + 1; b < n; b++)
      {
        double d[3] = { hit[a][0] - hit[b][0], hit[a][1] - hit[b][1], hit[a][2] - hit[b][2] };
        double len = dot (d, d);

        if (len > best)
          {
            best = len;
            lb_plane_patient_to_pixel (target, hit[a], &ij[0], &ij[1]);
            lb_plane_patient_to_pixel (target, hit[b], &ij[2], &ij[3]);
          }
      }
  /* drawn on the target's image only */
  return best > 0 && clip_segment (ij, target->columns - 0.5, target->rows - 0.5);
}

int
lb_plane_nearest (const LbPlane *planes,
                  guint          n,
                  const double   p[3])
{
  int best = -1;
  double best_d = G_MAXDOUBLE;

  for (guint k = 0; k < n; k++)
    {
      double d = fabs (lb_plane_distance (&planes[k], p));

      if (d < best_d)
        {
          best_d = d;
          best = (int) k;
        }
    }
  return best;
}
