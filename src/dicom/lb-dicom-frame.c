/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicom-frame"

#include "lb-dicom-frame.h"

#include <string.h>

#include "lb-dicom-codec.h"
#include "lb-dicom-tags.h"
#include "lb-dicom-values.h"
#include "lb-error.h"

char *
lb_dicom_format_person_name (const char *pn)
{
  g_autofree char *alpha = NULL;
  g_auto(GStrv) comps = NULL;
  GString *s;
  char *eq;

  if (pn == NULL)
    return NULL;
  alpha = g_strdup (pn);
  eq = strchr (alpha, '=');
  if (eq)
    *eq = '\0';
  /* Components: family ^ given ^ middle ^ prefix ^ suffix (PS3.5 §6.2.1.1). */
  comps = g_strsplit (alpha, "^", 5);
  for (guint i = 0; comps[i]; i++)
    g_strstrip (comps[i]);
  s = g_string_new (comps[0] ? comps[0] : "");
  if (comps[0] && comps[1] && *comps[1])
    {
      if (s->len)
        g_string_append (s, ", ");
      g_string_append (s, comps[1]);
      for (guint i = 2; comps[i]; i++)
        if (*comps[i])
          {
            g_string_append_c (s, ' ');
            g_string_append (s, comps[i]);
          }
    }
  return g_string_free (s, FALSE);
}

char *
lb_dicom_format_date (const char *da)
{
  if (da == NULL)
    return NULL;
  if (strlen (da) == 8)
    {
      for (int i = 0; i < 8; i++)
        if (!g_ascii_isdigit (da[i]))
          return g_strdup (da);
      return g_strdup_printf ("%.4s-%.2s-%.2s", da, da + 4, da + 6);
    }
  return g_strdup (da);
}

static gboolean
get_required_uint (const LbDicomDataset *md, guint32 tag, const char *what, guint max,
                   guint *out, GError **error)
{
  gint64 v;

  if (!lb_dicom_dataset_get_int (md, tag, 0, &v))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT, "%s (%04X,%04X) is missing or not a number",
                   what, tag >> 16, tag & 0xffff);
      return FALSE;
    }
  if (v < 0 || v > max)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT, "%s %" G_GINT64_FORMAT " is out of range",
                   what, v);
      return FALSE;
    }
  *out = (guint) v;
  return TRUE;
}

static guint
get_uint_or (const LbDicomDataset *md, guint32 tag, guint fallback)
{
  gint64 v;

  if (!lb_dicom_dataset_get_int (md, tag, 0, &v) || v < 0 || v > G_MAXUINT16)
    return fallback;
  return (guint) v;
}

static void
set_text_if (LbImageMeta *meta, const char *key, const char *value)
{
  if (value != NULL && *value != '\0')
    lb_image_meta_set_text (meta, key, value);
}

/* The attributes worth showing beside the image, and the UIDs that tie it to its source. */
static void
fill_text_meta (LbImageMeta *meta, const LbDicomDataset *md)
{
  g_autofree char *patient = lb_dicom_format_person_name (
    lb_dicom_dataset_get_string (md, LB_TAG_PATIENT_NAME, 0));
  g_autofree char *study_date = lb_dicom_format_date (
    lb_dicom_dataset_get_string (md, LB_TAG_STUDY_DATE, 0));
  g_autofree char *birth = lb_dicom_format_date (
    lb_dicom_dataset_get_string (md, LB_TAG_PATIENT_BIRTH_DATE, 0));

  set_text_if (meta, "Patient", patient);
  set_text_if (meta, "Patient ID", lb_dicom_dataset_get_string (md, LB_TAG_PATIENT_ID, 0));
  set_text_if (meta, "Patient birth date", birth);
  set_text_if (meta, "Patient sex", lb_dicom_dataset_get_string (md, LB_TAG_PATIENT_SEX, 0));
  set_text_if (meta, "Study date", study_date);
  set_text_if (meta, "Study", lb_dicom_dataset_get_string (md, LB_TAG_STUDY_DESCRIPTION, 0));
  set_text_if (meta, "Accession number",
               lb_dicom_dataset_get_string (md, LB_TAG_ACCESSION_NUMBER, 0));
  set_text_if (meta, "Series", lb_dicom_dataset_get_string (md, LB_TAG_SERIES_DESCRIPTION, 0));
  set_text_if (meta, "Series number", lb_dicom_dataset_get_string (md, LB_TAG_SERIES_NUMBER, 0));
  set_text_if (meta, "Modality", lb_dicom_dataset_get_string (md, LB_TAG_MODALITY, 0));
  set_text_if (meta, "Instance number",
               lb_dicom_dataset_get_string (md, LB_TAG_INSTANCE_NUMBER, 0));
  set_text_if (meta, "dicom:StudyInstanceUID",
               lb_dicom_dataset_get_string (md, LB_TAG_STUDY_INSTANCE_UID, 0));
  set_text_if (meta, "dicom:SeriesInstanceUID",
               lb_dicom_dataset_get_string (md, LB_TAG_SERIES_INSTANCE_UID, 0));
  set_text_if (meta, "dicom:SOPInstanceUID",
               lb_dicom_dataset_get_string (md, LB_TAG_SOP_INSTANCE_UID, 0));
  set_text_if (meta, "dicom:SOPClassUID",
               lb_dicom_dataset_get_string (md, LB_TAG_SOP_CLASS_UID, 0));
}

static inline guint
read_sample (const guint8 *p, guint bytes, gboolean big_endian)
{
  if (bytes == 1)
    return p[0];
  return big_endian ? ((guint) p[0] << 8 | p[1]) : ((guint) p[1] << 8 | p[0]);
}

LbImage *
lb_dicom_decode_frame (const LbDicomDataset *md,
                       const char           *transfer_syntax,
                       GBytes               *frame,
                       const char           *name,
                       const LbLimits       *limits,
                       GError              **error)
{
  guint rows, cols, spp, bits_alloc, bits_stored, high_bit, pixrep, planar;
  const char *photometric;
  gboolean big_endian, is_signed, gray, monochrome1;
  guint sample_bytes, shift;
  guint32 mask, sign_bit;
  guint64 n_pixels, needed;
  LbSampleFormat format;
  gsize stride, frame_len;
  const guint8 *src;
  g_autofree guint8 *pixels = NULL;
  g_autoptr(LbImageMeta) meta = NULL;
  g_autoptr(LbDicomDataset) prepared_md = NULL;
  g_autoptr(GBytes) prepared = NULL;
  g_autoptr(LbValueModel) model = NULL;
  const char *stored_syntax;
  double a, b;

  g_return_val_if_fail (md != NULL, NULL);
  g_return_val_if_fail (frame != NULL, NULL);
  if (name == NULL)
    name = "DICOM frame";

  /* Compressed frames are decompressed, and colour models other than RGB become RGB
   * (lb-dicom-codec.h, lb-dicom-colour.h): what follows reads an uncompressed grey or RGB
   * frame, described by the data set that comes back. The value model still hears of the
   * syntax the frame was stored in: a lossy one marks the image lossy (PS3.3 C.7.6.1.1.5). */
  stored_syntax = transfer_syntax;
  if (!lb_dicom_prepare_frame (md, transfer_syntax, frame, limits, &prepared_md, &prepared,
                               &transfer_syntax, error))
    {
      g_prefix_error (error, "%s: ", name);
      return NULL;
    }
  md = prepared_md;
  frame = prepared;

  if (transfer_syntax == NULL || *transfer_syntax == '\0')
    transfer_syntax = LB_DICOM_TS_EXPLICIT_LE;
  if (strcmp (transfer_syntax, LB_DICOM_TS_EXPLICIT_LE) == 0
      || strcmp (transfer_syntax, LB_DICOM_TS_IMPLICIT_LE) == 0)
    big_endian = FALSE;
  else if (strcmp (transfer_syntax, LB_DICOM_TS_EXPLICIT_BE) == 0)
    big_endian = TRUE;
  else
    {
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                   "%s: the frame is in transfer syntax %s (compressed); Lightbox decodes only "
                   "uncompressed frames", name, transfer_syntax);
      return NULL;
    }

  if (!get_required_uint (md, LB_TAG_ROWS, "Rows", G_MAXUINT16, &rows, error)
      || !get_required_uint (md, LB_TAG_COLUMNS, "Columns", G_MAXUINT16, &cols, error)
      || !get_required_uint (md, LB_TAG_BITS_ALLOCATED, "BitsAllocated", 64, &bits_alloc, error))
    {
      g_prefix_error (error, "%s: ", name);
      return NULL;
    }
  spp = get_uint_or (md, LB_TAG_SAMPLES_PER_PIXEL, 1);
  bits_stored = get_uint_or (md, LB_TAG_BITS_STORED, bits_alloc);
  high_bit = get_uint_or (md, LB_TAG_HIGH_BIT, bits_stored - 1);
  pixrep = get_uint_or (md, LB_TAG_PIXEL_REPRESENTATION, 0);
  planar = get_uint_or (md, LB_TAG_PLANAR_CONFIGURATION, 0);
  photometric = lb_dicom_dataset_get_string (md, LB_TAG_PHOTOMETRIC, 0);
  if (photometric == NULL)
    photometric = spp == 3 ? "RGB" : "MONOCHROME2";

  if (rows == 0 || cols == 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT, "%s: image has %u rows and %u columns",
                   name, rows, cols);
      return NULL;
    }
  if (bits_alloc != 8 && bits_alloc != 16)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                   "%s: %u bits allocated per sample (Lightbox reads 8 and 16)", name, bits_alloc);
      return NULL;
    }
  if (bits_stored == 0 || bits_stored > bits_alloc || high_bit >= bits_alloc
      || high_bit + 1 < bits_stored)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "%s: inconsistent BitsAllocated %u, BitsStored %u, HighBit %u",
                   name, bits_alloc, bits_stored, high_bit);
      return NULL;
    }
  if (pixrep > 1 || planar > 1)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "%s: PixelRepresentation %u / PlanarConfiguration %u is not 0 or 1",
                   name, pixrep, planar);
      return NULL;
    }

  monochrome1 = strcmp (photometric, "MONOCHROME1") == 0;
  if (spp == 1 && (monochrome1 || strcmp (photometric, "MONOCHROME2") == 0))
    gray = TRUE;
  else if (spp == 3 && strcmp (photometric, "RGB") == 0)
    gray = FALSE;
  else
    {
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                   "%s: photometric interpretation %s with %u samples per pixel is not supported",
                   name, photometric, spp);
      return NULL;
    }

  is_signed = pixrep == 1;
  if (!gray && is_signed)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED, "%s: signed RGB samples", name);
      return NULL;
    }
  /* Signed grey is held as offset binary, sample = stored + 32768 (lb-value-model.h), so
   * signed 8-bit grey widens to 16 bits. */
  if (gray)
    format = (bits_alloc == 8 && !is_signed) ? LB_FORMAT_GRAY8 : LB_FORMAT_GRAY16;
  else
    format = bits_alloc == 8 ? LB_FORMAT_RGB8 : LB_FORMAT_RGB16;

  sample_bytes = bits_alloc / 8;
  n_pixels = (guint64) rows * cols;
  needed = n_pixels * spp * sample_bytes;
  src = g_bytes_get_data (frame, &frame_len);
  if (frame_len < needed)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_TRUNCATED,
                   "%s: frame has %" G_GSIZE_FORMAT " bytes, %u×%u×%u samples of %u bits need %"
                   G_GUINT64_FORMAT, name, frame_len, cols, rows, spp, bits_alloc, needed);
      return NULL;
    }

  pixels = lb_image_alloc_pixels (cols, rows, format, limits, &stride, error);
  if (pixels == NULL)
    {
      g_prefix_error (error, "%s: ", name);
      return NULL;
    }

  /* The stored value occupies bits [high_bit - bits_stored + 1, high_bit] of each sample
   * (PS3.5 §8.1.1); everything else (overlays in old files, garbage) is masked off. */
  shift = high_bit + 1 - bits_stored;
  mask = bits_stored >= 32 ? G_MAXUINT32 : ((1u << bits_stored) - 1);
  sign_bit = 1u << (bits_stored - 1);

  for (guint y = 0; y < rows; y++)
    {
      guint8 *row = pixels + (gsize) y * stride;

      for (guint x = 0; x < cols; x++)
        for (guint c = 0; c < spp; c++)
          {
            guint64 idx = planar == 1
              ? (guint64) c * n_pixels + (guint64) y * cols + x
              : ((guint64) y * cols + x) * spp + c;
            guint32 v = (read_sample (src + idx * sample_bytes, sample_bytes, big_endian) >> shift)
                        & mask;

            if (is_signed)
              {
                /* sign-extend (PS3.5 §8.1.1), then offset: int16 → 0 … 65535 in order */
                if (v & sign_bit)
                  v |= ~mask;
                v += LB_VALUE_MODEL_SIGNED_OFFSET;
              }
            if (format == LB_FORMAT_GRAY8 || format == LB_FORMAT_RGB8)
              row[(gsize) x * spp + c] = (guint8) v;
            else
              ((guint16 *) row)[(gsize) x * spp + c] = (guint16) (v & 0xffff);
          }
    }

  meta = lb_image_meta_new ();
  fill_text_meta (meta, md);
  lb_image_meta_set_text (meta, "Photometric interpretation", photometric);
  if (gray)
    {
      model = lb_dicom_value_model_new (md, format == LB_FORMAT_GRAY8 ? 8 : 16, is_signed,
                                        bits_stored, stored_syntax, name, error);
      if (model == NULL)
        return NULL;
    }
  else
    /* colour (YBR and palette colour are RGB by now): the lossy history of the source */
    model = lb_dicom_colour_value_model_new (md, format == LB_FORMAT_RGB8 ? 8 : 16, bits_stored,
                                             stored_syntax);
  lb_image_meta_set_value_model (meta, model);
  /* PixelSpacing is row spacing (vertical) \ column spacing (horizontal), in mm. Projection
   * radiographs (CR, DX) often carry only ImagerPixelSpacing, at the detector plane. */
  if (lb_dicom_dataset_get_double (md, LB_TAG_PIXEL_SPACING, 0, &a)
      && lb_dicom_dataset_get_double (md, LB_TAG_PIXEL_SPACING, 1, &b) && a > 0 && b > 0)
    lb_image_meta_set_pixel_spacing (meta, b, a);
  else if (lb_dicom_dataset_get_double (md, LB_TAG_IMAGER_PIXEL_SPACING, 0, &a)
           && lb_dicom_dataset_get_double (md, LB_TAG_IMAGER_PIXEL_SPACING, 1, &b)
           && a > 0 && b > 0)
    {
      lb_image_meta_set_pixel_spacing (meta, b, a);
      lb_image_meta_set_text (meta, "Pixel spacing", "at the detector (ImagerPixelSpacing)");
    }
  if (name)
    lb_image_meta_set_source_uri (meta, name);

  return lb_image_new_take (cols, rows, format, stride, g_steal_pointer (&pixels), meta);
}
