/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-view"

#include "lb-measurement-spacing.h"

#include <math.h>
#include <string.h>

#include "lb-dicom-tags.h"

/* Not in lb-dicom-tags.h: only measurement reads them. */
#define TAG_ESTIMATED_RADIOGRAPHIC_MAGNIFICATION_FACTOR LB_DICOM_TAG (0x0018, 0x1114)
#define TAG_PIXEL_SPACING_CALIBRATION_TYPE              LB_DICOM_TAG (0x0028, 0x0A02)

/* The text lb-dicom-frame.c sets when the spacing came from ImagerPixelSpacing. */
#define META_SPACING_KEY      "Pixel spacing"
#define META_SPACING_DETECTOR "at the detector (ImagerPixelSpacing)"

static const char *const kind_names[] = {
  [LB_MEASUREMENT_SPACING_UNKNOWN] = "unknown",
  [LB_MEASUREMENT_SPACING_CALIBRATED] = "calibrated",
  [LB_MEASUREMENT_SPACING_ESTIMATED] = "estimated",
  [LB_MEASUREMENT_SPACING_DETECTOR] = "detector",
  [LB_MEASUREMENT_SPACING_UNVERIFIED] = "unverified",
};

const char *
lb_measurement_spacing_kind_to_string (LbMeasurementSpacingKind kind)
{
  g_return_val_if_fail ((guint) kind < G_N_ELEMENTS (kind_names), NULL);
  return kind_names[kind];
}

gboolean
lb_measurement_spacing_kind_from_string (const char *text, LbMeasurementSpacingKind *kind)
{
  g_return_val_if_fail (kind != NULL, FALSE);
  if (text == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (kind_names); i++)
    if (strcmp (text, kind_names[i]) == 0)
      {
        *kind = (LbMeasurementSpacingKind) i;
        return TRUE;
      }
  return FALSE;
}

const char *
lb_measurement_spacing_length_unit (const LbMeasurementSpacing *spacing)
{
  return spacing->kind == LB_MEASUREMENT_SPACING_UNKNOWN ? "px" : "mm";
}

const char *
lb_measurement_spacing_area_unit (const LbMeasurementSpacing *spacing)
{
  return spacing->kind == LB_MEASUREMENT_SPACING_UNKNOWN ? "px²" : "mm²";
}

void
lb_measurement_spacing_init_unknown (LbMeasurementSpacing *spacing)
{
  *spacing = (LbMeasurementSpacing) { LB_MEASUREMENT_SPACING_UNKNOWN, 1, 1, 1 };
}

/* Projection modalities (PS3.3 C.7.3.1.1.1): their pixels are not in a plane of the patient
 * unless someone corrected for the beam's divergence. */
static gboolean
is_projection_modality (const char *modality)
{
  static const char *const projection[] = { "CR", "DX", "MG", "IO", "PX", "RF", "XA", "RG" };

  if (modality == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (projection); i++)
    if (strcmp (modality, projection[i]) == 0)
      return TRUE;
  return FALSE;
}

/* A spacing pair: row \ column (PS3.3 10.7.1.3), both positive and finite. */
static gboolean
get_pair (const LbDicomDataset *ds, guint32 tag, double *row, double *column)
{
  return lb_dicom_dataset_get_double (ds, tag, 0, row)
         && lb_dicom_dataset_get_double (ds, tag, 1, column)
         && isfinite (*row) && isfinite (*column) && *row > 0 && *column > 0;
}

/* DS values are decimal strings of at most 16 characters: equal within their rounding. */
static gboolean
same_spacing (double a, double b)
{
  return fabs (a - b) <= 1e-6 * MAX (fabs (a), fabs (b));
}

static void
set (LbMeasurementSpacing *spacing, LbMeasurementSpacingKind kind, double row, double column,
     double magnification)
{
  *spacing = (LbMeasurementSpacing) { kind, column, row, magnification };
}

gboolean
lb_measurement_spacing_from_dataset (const LbDicomDataset *ds, LbMeasurementSpacing *spacing)
{
  double ps_row, ps_col, ips_row, ips_col, ermf;
  gboolean has_ps, has_ips, has_calibration;
  const char *calibration;

  g_return_val_if_fail (spacing != NULL, FALSE);
  lb_measurement_spacing_init_unknown (spacing);
  if (ds == NULL)
    return FALSE;

  has_ps = get_pair (ds, LB_TAG_PIXEL_SPACING, &ps_row, &ps_col);
  has_ips = get_pair (ds, LB_TAG_IMAGER_PIXEL_SPACING, &ips_row, &ips_col);
  calibration = lb_dicom_dataset_get_string (ds, TAG_PIXEL_SPACING_CALIBRATION_TYPE, 0);
  has_calibration = calibration != NULL
                    && (strcmp (calibration, "GEOMETRY") == 0
                        || strcmp (calibration, "FIDUCIAL") == 0);

  if (has_ips)
    {
      /* 10.7.1.1: a PixelSpacing that differs from ImagerPixelSpacing has been corrected for
       * magnification or calibrated against an object of known size. */
      if (has_ps && (has_calibration || !same_spacing (ps_row, ips_row)
                     || !same_spacing (ps_col, ips_col)))
        set (spacing, LB_MEASUREMENT_SPACING_CALIBRATED, ps_row, ps_col, 1);
      else if (lb_dicom_dataset_get_double (ds, TAG_ESTIMATED_RADIOGRAPHIC_MAGNIFICATION_FACTOR,
                                            0, &ermf)
               && isfinite (ermf) && ermf > 0)
        /* ERMF = SID / SOD: an object at the isocentre appears ERMF times larger on the
         * detector, so its size is the detector's divided by ERMF. */
        set (spacing, LB_MEASUREMENT_SPACING_ESTIMATED, ips_row / ermf, ips_col / ermf, ermf);
      else
        set (spacing, LB_MEASUREMENT_SPACING_DETECTOR, ips_row, ips_col, 1);
      return TRUE;
    }
  if (has_ps)
    {
      const char *modality = lb_dicom_dataset_get_string (ds, LB_TAG_MODALITY, 0);

      set (spacing,
           is_projection_modality (modality) && !has_calibration
             ? LB_MEASUREMENT_SPACING_UNVERIFIED : LB_MEASUREMENT_SPACING_CALIBRATED,
           ps_row, ps_col, 1);
      return TRUE;
    }
  return FALSE;
}

gboolean
lb_measurement_spacing_from_meta (const LbImageMeta *meta, LbMeasurementSpacing *spacing)
{
  double x, y;
  const char *how, *modality;
  LbMeasurementSpacingKind kind;

  g_return_val_if_fail (spacing != NULL, FALSE);
  lb_measurement_spacing_init_unknown (spacing);
  if (meta == NULL || !lb_image_meta_get_pixel_spacing (meta, &x, &y)
      || !isfinite (x) || !isfinite (y) || x <= 0 || y <= 0)
    return FALSE;

  how = lb_image_meta_get_text (meta, META_SPACING_KEY);
  modality = lb_image_meta_get_text (meta, "Modality");
  if (how != NULL && strcmp (how, META_SPACING_DETECTOR) == 0)
    kind = LB_MEASUREMENT_SPACING_DETECTOR;
  else if (modality != NULL && !is_projection_modality (modality))
    kind = LB_MEASUREMENT_SPACING_CALIBRATED;
  else
    kind = LB_MEASUREMENT_SPACING_UNVERIFIED;
  set (spacing, kind, y, x, 1);
  return TRUE;
}
