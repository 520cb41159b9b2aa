/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-view"

#include "lb-overlay-info.h"

#include <math.h>
#include <string.h>

#include "lb-dicom-frame.h"
#include "lb-dicom-tags.h"

/* ---- corner texts ------------------------------------------------------------------------ */

static const char *
str (const LbDicomDataset *ds, guint32 tag)
{
  return ds ? lb_dicom_dataset_get_string (ds, tag, 0) : NULL;
}

/* Appends @line (if not NULL or empty) as a line of @s. */
static void
add_line (GString *s, const char *line)
{
  if (line == NULL || *line == '\0')
    return;
  if (s->len > 0)
    g_string_append_c (s, '\n');
  g_string_append (s, line);
}

/* A number in mm without needless digits: "2.5 mm", "-120.25 mm". */
static char *
format_mm (const char *label, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_ascii_formatd (buf, sizeof buf, "%.2f", v);
  /* drop trailing zeros of the fraction, and the point if nothing is left of it */
  if (strchr (buf, '.'))
    {
      char *e = buf + strlen (buf) - 1;

      while (*e == '0')
        *e-- = '\0';
      if (*e == '.')
        *e = '\0';
    }
  if (strcmp (buf, "-0") == 0)
    strcpy (buf, "0");
  return g_strdup_printf ("%s %s mm", label, buf);
}

static void
patient_corner (GString *s, const LbDicomDataset *ds)
{
  g_autofree char *name = lb_dicom_format_person_name (str (ds, LB_TAG_PATIENT_NAME));
  g_autofree char *id = NULL;
  g_autofree char *sex_age = NULL;
  const char *sex = str (ds, LB_TAG_PATIENT_SEX);
  const char *age = str (ds, LB_TAG_PATIENT_AGE);

  add_line (s, name);
  if (str (ds, LB_TAG_PATIENT_ID))
    id = g_strdup_printf ("ID %s", str (ds, LB_TAG_PATIENT_ID));
  add_line (s, id);
  if (sex || age)
    sex_age = g_strjoin (" ", sex ? sex : "", age ? age : "", NULL);
  add_line (s, sex_age ? g_strstrip (sex_age) : NULL);
}

static void
study_corner (GString *s, const LbDicomDataset *ds)
{
  g_autofree char *date = lb_dicom_format_date (str (ds, LB_TAG_STUDY_DATE));

  add_line (s, date);
  add_line (s, str (ds, LB_TAG_STUDY_DESCRIPTION));
}

static void
series_corner (GString *s, const LbDicomDataset *ds, const LbOverlayView *view)
{
  const char *number = str (ds, LB_TAG_SERIES_NUMBER);
  const char *desc = str (ds, LB_TAG_SERIES_DESCRIPTION);
  g_autofree char *series = NULL;
  g_autofree char *slice = NULL;
  g_autofree char *loc = NULL;
  g_autofree char *thick = NULL;
  double v;

  if (number || desc)
    series = g_strdup_printf ("Se %s%s%s", number ? number : "", number && desc ? " " : "",
                              desc ? desc : "");
  add_line (s, series);
  if (view->n_slices > 0)
    slice = g_strdup_printf ("Im %u/%u", view->slice_index + 1, view->n_slices);
  add_line (s, slice);
  if (view->has_location)
    loc = format_mm ("Loc", view->location);
  else if (lb_dicom_dataset_get_double (ds, LB_TAG_SLICE_LOCATION, 0, &v) && isfinite (v))
    loc = format_mm ("Loc", v);
  add_line (s, loc);
  if (lb_dicom_dataset_get_double (ds, LB_TAG_SLICE_THICKNESS, 0, &v) && isfinite (v))
    thick = format_mm ("Thk", v);
  add_line (s, thick);
}

static void
display_corner (GString *s, const LbOverlayView *view)
{
  g_autofree char *wl = NULL;
  g_autofree char *zoom = NULL;

  if (view->has_window)
    /* the unit after both values, as the status bar has it: "W 400 L 40 HU" */
    wl = g_strdup_printf ("W %.0f L %.0f%s%s", view->window_width, view->window_center,
                          view->window_units ? " " : "",
                          view->window_units ? view->window_units : "");
  add_line (s, wl);
  if (view->zoom > 0)
    zoom = g_strdup_printf ("Zoom %.0f%%", view->zoom * 100);
  add_line (s, zoom);
}

char *
lb_overlay_corner_text (const LbDicomDataset *ds, const LbOverlayView *view,
                        LbOverlayCorner corner)
{
  GString *s = g_string_new (NULL);

  g_return_val_if_fail (view != NULL, g_string_free (s, FALSE));
  switch (corner)
    {
    case LB_OVERLAY_TOP_LEFT:
      patient_corner (s, ds);
      break;
    case LB_OVERLAY_TOP_RIGHT:
      study_corner (s, ds);
      break;
    case LB_OVERLAY_BOTTOM_LEFT:
      series_corner (s, ds, view);
      break;
    case LB_OVERLAY_BOTTOM_RIGHT:
      display_corner (s, view);
      break;
    default:
      g_return_val_if_reached (g_string_free (s, FALSE));
    }
  return g_string_free (s, FALSE);
}

/* ---- orientation markers ------------------------------------------------------------------ */

gboolean
lb_overlay_direction_letters (const double d[3], char out[3])
{
  /* PS3.3 C.7.6.2.1.1: +x is the patient's left, +y posterior, +z head */
  static const char pos[3] = { 'L', 'P', 'H' }, neg[3] = { 'R', 'A', 'F' };
  double len = sqrt (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  int first = 0, second = -1;

  out[0] = out[1] = out[2] = '\0';
  if (!(len > 0))
    return FALSE;
  for (int i = 1; i < 3; i++)
    if (fabs (d[i]) > fabs (d[first]))
      first = i;
  for (int i = 0; i < 3; i++)
    if (i != first && (second < 0 || fabs (d[i]) > fabs (d[second])))
      second = i;
  out[0] = d[first] > 0 ? pos[first] : neg[first];
  if (fabs (d[second]) > 1e-3 * len)
    out[1] = d[second] > 0 ? pos[second] : neg[second];
  return TRUE;
}

gboolean
lb_overlay_edge_markers (const double iop[6], const LbOverlayView *view, char out[4][3])
{
  /* the screen direction from the centre to each edge (x right, y down) */
  static const int edge_dir[4][2] = { { 0, -1 }, { 1, 0 }, { 0, 1 }, { -1, 0 } };
  double n[3] = {
    iop[1] * iop[5] - iop[2] * iop[4],
    iop[2] * iop[3] - iop[0] * iop[5],
    iop[0] * iop[4] - iop[1] * iop[3],
  };

  for (int e = 0; e < 4; e++)
    out[e][0] = '\0';
  if (!(sqrt (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]) > 1e-6))
    return FALSE;
  for (int e = 0; e < 4; e++)
    {
      int x = edge_dir[e][0], y = edge_dir[e][1];
      double d[3];

      /* undo the view: the flips, then the quarter turns (a clockwise turn takes the image
       * direction (x, y) to the screen's (−y, x), so undoing one takes (x, y) to (y, −x)) */
      if (view->flip_v)
        y = -y;
      if (view->flip_h)
        x = -x;
      for (guint r = 0; r < (view->rotation & 3); r++)
        {
          int t = x;

          x = y;
          y = -t;
        }
      /* image +x runs along the row cosines, +y along the column cosines */
      for (int k = 0; k < 3; k++)
        d[k] = x * iop[k] + y * iop[3 + k];
      lb_overlay_direction_letters (d, out[e]);
    }
  return TRUE;
}

static gboolean
group_orientation (const LbDicomDataset *ds, guint32 groups, double iop[6])
{
  LbDicomDataset *g, *po;

  if (lb_dicom_dataset_get_n_items (ds, groups) == 0)
    return FALSE;
  g = lb_dicom_dataset_get_item (ds, groups, 0);
  if (lb_dicom_dataset_get_n_items (g, LB_TAG_PLANE_ORIENTATION_SEQUENCE) == 0)
    return FALSE;
  po = lb_dicom_dataset_get_item (g, LB_TAG_PLANE_ORIENTATION_SEQUENCE, 0);
  for (guint i = 0; i < 6; i++)
    if (!lb_dicom_dataset_get_double (po, LB_TAG_IMAGE_ORIENTATION_PATIENT, i, &iop[i]))
      return FALSE;
  return TRUE;
}

gboolean
lb_overlay_dataset_markers (const LbDicomDataset *ds, const LbOverlayView *view,
                            char out[4][3])
{
  double iop[6];
  gboolean ok = ds != NULL && lb_dicom_dataset_get_n_values (ds,
                                                              LB_TAG_IMAGE_ORIENTATION_PATIENT) == 6;

  for (guint i = 0; ok && i < 6; i++)
    ok = lb_dicom_dataset_get_double (ds, LB_TAG_IMAGE_ORIENTATION_PATIENT, i, &iop[i]);
  if (!ok && ds != NULL)
    ok = group_orientation (ds, LB_TAG_SHARED_FUNCTIONAL_GROUPS_SEQUENCE, iop)
         || group_orientation (ds, LB_TAG_PER_FRAME_FUNCTIONAL_GROUPS_SEQUENCE, iop);
  if (!ok)
    {
      for (int e = 0; e < 4; e++)
        out[e][0] = '\0';
      return FALSE;
    }
  return lb_overlay_edge_markers (iop, view, out);
}

gboolean
lb_overlay_view_is_transformed (const LbOverlayView *view)
{
  guint r = view->rotation & 3;

  /* a half turn and both flips undo each other */
  return !((r == 0 && !view->flip_h && !view->flip_v) || (r == 2 && view->flip_h && view->flip_v));
}
