/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicom-writer"

#include "config.h"

#include "lb-dicom-writer.h"

#include <errno.h>
#include <string.h>

#include "lb-dicom-frame.h"
#include "lb-dicom-tags.h"
#include "lb-dicom-values.h"
#include "lb-error.h"

/* --- UIDs ---------------------------------------------------------------------------------- */

char *
lb_dicom_uid_from_uuid (const char *uuid)
{
  /* 128-bit number as four 32-bit limbs, most significant first. */
  guint32 limb[4] = { 0, 0, 0, 0 };
  char digits[48];
  int nd = 0, nx = 0;
  GString *uid;

  if (uuid == NULL || !g_uuid_string_is_valid (uuid))
    return NULL;
  for (const char *p = uuid; *p; p++)
    {
      int d = g_ascii_xdigit_value (*p);

      if (d < 0)
        continue; /* the dashes */
      limb[nx / 8] = (limb[nx / 8] << 4) | (guint32) d;
      nx++;
    }
  g_assert (nx == 32);

  /* Repeated division by 10 over the limbs gives the decimal digits, least significant first. */
  for (;;)
    {
      guint64 rem = 0;
      gboolean zero = TRUE;

      for (int i = 0; i < 4; i++)
        {
          guint64 cur = (rem << 32) | limb[i];

          limb[i] = (guint32) (cur / 10);
          rem = cur % 10;
          if (limb[i] != 0)
            zero = FALSE;
        }
      digits[nd++] = (char) ('0' + rem);
      if (zero)
        break;
    }
  uid = g_string_new ("2.25.");
  while (nd > 0)
    g_string_append_c (uid, digits[--nd]);
  return g_string_free (uid, FALSE);
}

char *
lb_dicom_generate_uid (void)
{
  g_autofree char *uuid = g_uuid_string_random ();

  return lb_dicom_uid_from_uuid (uuid);
}

/* --- encoding ------------------------------------------------------------------------------ */

/* VRs with the 4-byte length form in explicit VR (PS3.5 §7.1.2). */
static gboolean
vr_has_long_length (const char *vr)
{
  static const char *const long_vrs[] = {
    "OB", "OD", "OF", "OL", "OV", "OW", "SQ", "SV", "UC", "UN", "UR", "UT", "UV",
  };

  for (guint i = 0; i < G_N_ELEMENTS (long_vrs); i++)
    if (strcmp (vr, long_vrs[i]) == 0)
      return TRUE;
  return FALSE;
}

static void
put_u16 (GByteArray *out, guint v)
{
  guint8 b[2] = { v & 0xff, (v >> 8) & 0xff };

  g_byte_array_append (out, b, 2);
}

static void
put_u32 (GByteArray *out, guint32 v)
{
  guint8 b[4] = { v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, (v >> 24) & 0xff };

  g_byte_array_append (out, b, 4);
}

static void
put_u64 (GByteArray *out, guint64 v)
{
  put_u32 (out, (guint32) (v & 0xffffffffu));
  put_u32 (out, (guint32) (v >> 32));
}

static gboolean
put_header (GByteArray *out, guint32 tag, const char *vr, gsize len, GError **error)
{
  put_u16 (out, tag >> 16);
  put_u16 (out, tag & 0xffff);
  g_byte_array_append (out, (const guint8 *) vr, 2);
  if (vr_has_long_length (vr))
    {
      if (len >= G_MAXUINT32)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_TOO_LARGE,
                       "(%04X,%04X): value of %" G_GSIZE_FORMAT " bytes is too long for DICOM",
                       tag >> 16, tag & 0xffff, len);
          return FALSE;
        }
      put_u16 (out, 0);
      put_u32 (out, (guint32) len);
    }
  else
    {
      if (len > 0xfffe)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                       "(%04X,%04X) %s: value of %" G_GSIZE_FORMAT " bytes exceeds 65534",
                       tag >> 16, tag & 0xffff, vr, len);
          return FALSE;
        }
      put_u16 (out, (guint) len);
    }
  return TRUE;
}

/* Encodes the values of one binary numeric VR into @val. */
static gboolean
encode_numbers (const LbDicomDataset *ds, guint32 tag, const char *vr, GByteArray *val,
                GError **error)
{
  guint n = lb_dicom_dataset_get_n_values (ds, tag);

  for (guint i = 0; i < n; i++)
    {
      const char *s = lb_dicom_dataset_get_string (ds, tag, i);
      gint64 iv = 0;
      double dv = 0;
      gboolean ok;

      if (strcmp (vr, "FL") == 0 || strcmp (vr, "FD") == 0)
        ok = lb_dicom_dataset_get_double (ds, tag, i, &dv);
      else if (strcmp (vr, "AT") == 0)
        {
          ok = s != NULL && strlen (s) == 8;
          if (ok)
            {
              char *end = NULL;

              iv = (gint64) g_ascii_strtoull (s, &end, 16);
              ok = end != NULL && *end == '\0';
            }
        }
      else if (strcmp (vr, "UV") == 0)
        {
          char *end = NULL;

          ok = s != NULL;
          if (ok)
            {
              errno = 0;
              iv = (gint64) g_ascii_strtoull (s, &end, 10);
              ok = end != NULL && *end == '\0' && errno == 0;
            }
        }
      else
        ok = lb_dicom_dataset_get_int (ds, tag, i, &iv);
      if (!ok)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                       "(%04X,%04X) %s: value %u \"%s\" is not a valid number",
                       tag >> 16, tag & 0xffff, vr, i, s ? s : "");
          return FALSE;
        }
#define RANGE(lo, hi)                                                                           \
      if (iv < (lo) || iv > (hi))                                                               \
        {                                                                                       \
          g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,                             \
                       "(%04X,%04X) %s: value %" G_GINT64_FORMAT " is out of range",           \
                       tag >> 16, tag & 0xffff, vr, iv);                                        \
          return FALSE;                                                                         \
        }
      if (strcmp (vr, "US") == 0)
        {
          RANGE (0, G_MAXUINT16);
          put_u16 (val, (guint) iv);
        }
      else if (strcmp (vr, "SS") == 0)
        {
          RANGE (G_MININT16, G_MAXINT16);
          put_u16 (val, (guint) (guint16) (gint16) iv);
        }
      else if (strcmp (vr, "UL") == 0)
        {
          RANGE (0, (gint64) G_MAXUINT32);
          put_u32 (val, (guint32) iv);
        }
      else if (strcmp (vr, "SL") == 0)
        {
          RANGE (G_MININT32, G_MAXINT32);
          put_u32 (val, (guint32) (gint32) iv);
        }
      else if (strcmp (vr, "AT") == 0)
        {
          put_u16 (val, (guint) ((guint64) iv >> 16) & 0xffff);
          put_u16 (val, (guint) iv & 0xffff);
        }
      else if (strcmp (vr, "SV") == 0 || strcmp (vr, "UV") == 0)
        put_u64 (val, (guint64) iv);
      else if (strcmp (vr, "FL") == 0)
        {
          union { float f; guint32 u; } c;

          c.f = (float) dv;
          put_u32 (val, c.u);
        }
      else /* FD */
        {
          union { double d; guint64 u; } c;

          c.d = dv;
          put_u64 (val, c.u);
        }
#undef RANGE
    }
  return TRUE;
}

static gboolean write_dataset (const LbDicomDataset *ds, GByteArray *out, gboolean skip_meta,
                               GError **error);

static gboolean
write_element (const LbDicomDataset *ds, guint32 tag, GByteArray *out, GError **error)
{
  const char *vr = lb_dicom_dataset_get_vr (ds, tag);
  g_autoptr(GByteArray) val = g_byte_array_new ();

  if (strcmp (vr, "SQ") == 0)
    {
      guint n = lb_dicom_dataset_get_n_items (ds, tag);

      for (guint i = 0; i < n; i++)
        {
          g_autoptr(GByteArray) item = g_byte_array_new ();

          if (!write_dataset (lb_dicom_dataset_get_item (ds, tag, i), item, FALSE, error))
            {
              g_prefix_error (error, "(%04X,%04X) item %u: ", tag >> 16, tag & 0xffff, i);
              return FALSE;
            }
          put_u16 (val, 0xFFFE);
          put_u16 (val, 0xE000);
          put_u32 (val, item->len);
          g_byte_array_append (val, item->data, item->len);
        }
    }
  else if (lb_dicom_vr_is_string (vr))
    {
      g_autofree char *joined = lb_dicom_dataset_dup_joined (ds, tag);

      g_byte_array_append (val, (const guint8 *) joined, strlen (joined));
      if (val->len % 2)
        {
          guint8 pad = strcmp (vr, "UI") == 0 ? '\0' : ' ';

          g_byte_array_append (val, &pad, 1);
        }
    }
  else if (vr[0] == 'O' || strcmp (vr, "UN") == 0)
    {
      GBytes *bytes = lb_dicom_dataset_get_bytes (ds, tag);
      gsize len = 0;
      const guint8 *data;

      if (bytes == NULL)
        {
          if (lb_dicom_dataset_get_bulk_data_uri (ds, tag) != NULL)
            {
              g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                           "(%04X,%04X): bulk data was not fetched, cannot write it",
                           tag >> 16, tag & 0xffff);
              return FALSE;
            }
        }
      else
        {
          data = g_bytes_get_data (bytes, &len);
          g_byte_array_append (val, data, len);
          if (val->len % 2)
            {
              guint8 zero = 0;

              g_byte_array_append (val, &zero, 1);
            }
        }
    }
  else if (!encode_numbers (ds, tag, vr, val, error))
    return FALSE;

  if (!put_header (out, tag, vr, val->len, error))
    return FALSE;
  g_byte_array_append (out, val->data, val->len);
  return TRUE;
}

static gboolean
write_dataset (const LbDicomDataset *ds, GByteArray *out, gboolean skip_meta, GError **error)
{
  guint n = 0;
  g_autofree guint32 *tags = lb_dicom_dataset_get_tags (ds, &n);

  for (guint i = 0; i < n; i++)
    {
      guint16 group = tags[i] >> 16;

      /* Group 0002 belongs to the file meta; group lengths (gggg,0000) are retired in the
       * data set (PS3.5 §7.2) and would be wrong after any edit. */
      if ((skip_meta && group == 0x0002) || (tags[i] & 0xffff) == 0)
        continue;
      if (!write_element (ds, tags[i], out, error))
        return FALSE;
    }
  return TRUE;
}

GBytes *
lb_dicom_write_part10 (const LbDicomDataset *dataset, GError **error)
{
  g_autoptr(GByteArray) out = g_byte_array_sized_new (4096);
  g_autoptr(GByteArray) meta_body = g_byte_array_new ();
  g_autoptr(LbDicomDataset) meta = lb_dicom_dataset_new ();
  static const guint8 version[2] = { 0x00, 0x01 };
  g_autoptr(GBytes) version_bytes = g_bytes_new_static (version, sizeof version);
  const char *sop_class, *sop_instance;
  guint8 preamble[128];

  g_return_val_if_fail (dataset != NULL, NULL);
  sop_class = lb_dicom_dataset_get_string (dataset, LB_TAG_SOP_CLASS_UID, 0);
  sop_instance = lb_dicom_dataset_get_string (dataset, LB_TAG_SOP_INSTANCE_UID, 0);
  if (sop_class == NULL || sop_instance == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "cannot write a DICOM file without SOPClassUID and SOPInstanceUID");
      return NULL;
    }

  /* File meta information (PS3.10 §7.1): always Explicit VR Little Endian. */
  lb_dicom_dataset_set_bytes (meta, LB_TAG_FILE_META_VERSION, "OB", version_bytes);
  lb_dicom_dataset_set_string (meta, LB_TAG_MEDIA_STORAGE_SOP_CLASS_UID, "UI", sop_class);
  lb_dicom_dataset_set_string (meta, LB_TAG_MEDIA_STORAGE_SOP_INSTANCE_UID, "UI", sop_instance);
  lb_dicom_dataset_set_string (meta, LB_TAG_TRANSFER_SYNTAX_UID, "UI", LB_DICOM_TS_EXPLICIT_LE);
  lb_dicom_dataset_set_string (meta, LB_TAG_IMPLEMENTATION_CLASS_UID, "UI",
                               LB_DICOM_IMPLEMENTATION_CLASS_UID);
  lb_dicom_dataset_set_string (meta, LB_TAG_IMPLEMENTATION_VERSION_NAME, "SH",
                               "LIGHTBOX_" PACKAGE_VERSION);
  if (!write_dataset (meta, meta_body, FALSE, error))
    return NULL;

  memset (preamble, 0, sizeof preamble);
  g_byte_array_append (out, preamble, sizeof preamble);
  g_byte_array_append (out, (const guint8 *) "DICM", 4);
  /* The group length: bytes after this element up to the data set. */
  put_header (out, LB_TAG_FILE_META_GROUP_LENGTH, "UL", 4, NULL);
  put_u32 (out, meta_body->len);
  g_byte_array_append (out, meta_body->data, meta_body->len);

  if (!write_dataset (dataset, out, TRUE, error))
    {
      g_prefix_error (error, "writing DICOM: ");
      return NULL;
    }
  return g_byte_array_free_to_bytes (g_steal_pointer (&out));
}

/* --- Secondary Capture --------------------------------------------------------------------- */

static void
copy_patient_and_study (LbDicomDataset *ds, const LbDicomDataset *source)
{
  static const guint32 copied[] = {
    LB_TAG_PATIENT_NAME, LB_TAG_PATIENT_ID, LB_TAG_PATIENT_BIRTH_DATE, LB_TAG_PATIENT_SEX,
    LB_TAG_STUDY_DATE, LB_TAG_STUDY_TIME, LB_TAG_STUDY_ID, LB_TAG_ACCESSION_NUMBER,
    LB_TAG_REFERRING_PHYSICIAN,
  };
  static const char *const copied_vr[] = { "PN", "LO", "DA", "CS", "DA", "TM", "SH", "SH", "PN" };

  /* Type 2 attributes are written empty when the source lacks them. */
  for (guint i = 0; i < G_N_ELEMENTS (copied); i++)
    if (!lb_dicom_dataset_copy_element (ds, source, copied[i]))
      lb_dicom_dataset_set_string (ds, copied[i], copied_vr[i], NULL);
  lb_dicom_dataset_copy_element (ds, source, LB_TAG_STUDY_INSTANCE_UID);
  lb_dicom_dataset_copy_element (ds, source, LB_TAG_STUDY_DESCRIPTION);
}

LbDicomDataset *
lb_dicom_new_instance_in_study (const char *sop_class, const LbDicomDataset *source,
                                GDateTime *now)
{
  LbDicomDataset *ds = lb_dicom_dataset_new ();
  g_autofree char *sop_uid = lb_dicom_generate_uid ();
  g_autofree char *date = g_date_time_format (now, "%Y%m%d");
  g_autofree char *time = g_date_time_format (now, "%H%M%S");

  /* SOP Common */
  lb_dicom_dataset_set_string (ds, LB_TAG_SPECIFIC_CHARACTER_SET, "CS", "ISO_IR 192");
  lb_dicom_dataset_set_string (ds, LB_TAG_SOP_CLASS_UID, "UI", sop_class);
  lb_dicom_dataset_set_string (ds, LB_TAG_SOP_INSTANCE_UID, "UI", sop_uid);
  lb_dicom_dataset_set_string (ds, LB_TAG_INSTANCE_CREATION_DATE, "DA", date);
  lb_dicom_dataset_set_string (ds, LB_TAG_INSTANCE_CREATION_TIME, "TM", time);
  /* Patient, General Study */
  copy_patient_and_study (ds, source);
  return ds;
}

/* Truncates @s to at most @max characters (not bytes: UTF-8 stays valid). */
static char *
truncate_chars (const char *s, glong max)
{
  if (g_utf8_strlen (s, -1) <= max)
    return g_strdup (s);
  return g_utf8_substring (s, 0, max);
}

/* Backslash is the value separator in DICOM text; a description must not split into values. */
static char *
single_value (const char *s)
{
  char *copy = g_strdup (s);

  g_strdelimit (copy, "\\", '/');
  return copy;
}

LbDicomDataset *
lb_dicom_build_secondary_capture (LbImage              *image,
                                  const LbDicomDataset *source,
                                  const char           *derivation,
                                  guint                 series_number,
                                  GError              **error)
{
  g_autoptr(LbDicomDataset) ds = NULL;
  g_autoptr(LbImage) img = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *series_uid = lb_dicom_generate_uid ();
  g_autofree char *date = g_date_time_format (now, "%Y%m%d");
  g_autofree char *time = g_date_time_format (now, "%H%M%S");
  g_autofree char *clean = NULL, *series_desc = NULL, *full_desc = NULL;
  g_autofree char *derivation_desc = NULL;
  g_autofree char *series_number_str = g_strdup_printf ("%u", series_number);
  const char *study_uid, *src_class, *src_instance;
  LbSampleFormat format;
  gboolean gray, is_signed;
  guint bits, bits_stored, width, height, channels;
  g_autoptr(GBytes) pixel_data = NULL;
  double a, b;
  const LbImageMeta *meta;
  LbValueModel *model = NULL, *colour_model = NULL;
  const char *frame;

  g_return_val_if_fail (LB_IS_IMAGE (image), NULL);
  g_return_val_if_fail (source != NULL, NULL);

  study_uid = lb_dicom_dataset_get_string (source, LB_TAG_STUDY_INSTANCE_UID, 0);
  if (study_uid == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "the source instance has no StudyInstanceUID: cannot place the derived image "
                   "in its study");
      return NULL;
    }

  /* Alpha has no place in a DICOM image: drop it (straight alpha, so colour is unaffected). */
  format = lb_image_get_format (image);
  gray = lb_sample_format_is_gray (format);
  bits = lb_sample_format_get_bit_depth (format);
  if (lb_sample_format_has_alpha (format))
    {
      img = lb_image_convert (image, lb_sample_format_compose (gray, FALSE, bits), error);
      if (img == NULL)
        return NULL;
    }
  else
    img = g_object_ref (image);
  format = lb_image_get_format (img);
  width = lb_image_get_width (img);
  height = lb_image_get_height (img);
  channels = lb_sample_format_get_channels (format);
  meta = lb_image_get_meta (image);
  /* What the samples mean, when they are still the source's samples (a filter that changed the
   * sample size left the model behind: those pixels are written as they are). A colour
   * source's model carries only its lossy history, which holds for anything derived from it. */
  model = lb_image_meta_get_value_model_for (meta, bits);
  if (model != NULL && lb_value_model_get_colour (model))
    {
      colour_model = model;
      model = NULL;
    }
  if (!gray)
    model = NULL;
  is_signed = model != NULL && lb_value_model_get_source_signed (model);
  bits_stored = model != NULL && lb_value_model_get_bits_stored (model) > 0
                ? MIN (lb_value_model_get_bits_stored (model), bits) : bits;
  if (width > G_MAXUINT16 || height > G_MAXUINT16)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_TOO_LARGE,
                   "a %u×%u image exceeds DICOM's 65535 rows/columns", width, height);
      return NULL;
    }

  ds = lb_dicom_new_instance_in_study (LB_DICOM_SOP_CLASS_SECONDARY_CAPTURE, source, now);

  /* General Series */
  clean = single_value (derivation && *derivation ? derivation : "derived image");
  full_desc = g_strdup_printf ("Lightbox: %s", clean);
  series_desc = truncate_chars (full_desc, 64);            /* LO: 64 characters */
  lb_dicom_dataset_set_string (ds, LB_TAG_MODALITY, "CS", "OT");
  lb_dicom_dataset_set_string (ds, LB_TAG_SERIES_INSTANCE_UID, "UI", series_uid);
  lb_dicom_dataset_set_string (ds, LB_TAG_SERIES_NUMBER, "IS", series_number_str);
  lb_dicom_dataset_set_string (ds, LB_TAG_SERIES_DESCRIPTION, "LO", series_desc);
  lb_dicom_dataset_set_string (ds, LB_TAG_SERIES_DATE, "DA", date);
  lb_dicom_dataset_set_string (ds, LB_TAG_SERIES_TIME, "TM", time);
  /* Laterality is type 2C (paired body parts); the source's value applies, else empty. */
  if (!lb_dicom_dataset_copy_element (ds, source, LB_TAG_LATERALITY))
    lb_dicom_dataset_set_string (ds, LB_TAG_LATERALITY, "CS", NULL);

  /* General Equipment and SC Equipment */
  lb_dicom_dataset_set_string (ds, LB_TAG_MANUFACTURER, "LO", "Lightbox");
  lb_dicom_dataset_set_string (ds, LB_TAG_CONVERSION_TYPE, "CS", "WSD");
  lb_dicom_dataset_set_string (ds, LB_TAG_SC_DEVICE_MANUFACTURER, "LO", "Lightbox");
  lb_dicom_dataset_set_string (ds, LB_TAG_SC_DEVICE_SOFTWARE_VERSIONS, "LO", PACKAGE_VERSION);

  /* General Image */
  lb_dicom_dataset_set_string (ds, LB_TAG_IMAGE_TYPE, "CS", "DERIVED\\SECONDARY");
  lb_dicom_dataset_set_string (ds, LB_TAG_INSTANCE_NUMBER, "IS", "1");
  lb_dicom_dataset_set_string (ds, LB_TAG_PATIENT_ORIENTATION, "CS", NULL);
  lb_dicom_dataset_set_string (ds, LB_TAG_CONTENT_DATE, "DA", date);
  lb_dicom_dataset_set_string (ds, LB_TAG_CONTENT_TIME, "TM", time);
  derivation_desc = truncate_chars (full_desc, 1024);      /* ST: 1024 characters */
  lb_dicom_dataset_set_string (ds, LB_TAG_DERIVATION_DESCRIPTION, "ST", derivation_desc);
  src_class = lb_dicom_dataset_get_string (source, LB_TAG_SOP_CLASS_UID, 0);
  src_instance = lb_dicom_dataset_get_string (source, LB_TAG_SOP_INSTANCE_UID, 0);
  /* The frame of a multi-frame source (PS3.3 C.7.6.1.1.3, Image SOP Instance Reference): only
   * a multi-frame SOP instance has frames to reference. */
  frame = lb_image_meta_get_text (meta, LB_DICOM_META_FRAME_NUMBER);
  {
    gint64 n_frames = 1;

    if (!lb_dicom_dataset_get_int (source, LB_TAG_NUMBER_OF_FRAMES, 0, &n_frames)
        && lb_image_meta_get_text (meta, LB_DICOM_META_NUMBER_OF_FRAMES) != NULL)
      n_frames = g_ascii_strtoll (lb_image_meta_get_text (meta, LB_DICOM_META_NUMBER_OF_FRAMES),
                                  NULL, 10);
    if (n_frames <= 1)
      frame = NULL;
  }
  if (src_class && src_instance)
    {
      g_autoptr(LbDicomDataset) ref = lb_dicom_dataset_new ();

      lb_dicom_dataset_set_string (ref, LB_TAG_REFERENCED_SOP_CLASS_UID, "UI", src_class);
      lb_dicom_dataset_set_string (ref, LB_TAG_REFERENCED_SOP_INSTANCE_UID, "UI", src_instance);
      if (frame != NULL)
        {
          gint64 n;

          if (!g_ascii_string_to_signed (frame, 10, 1, G_MAXINT32, &n, NULL))
            {
              g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                           "the image's frame number \"%s\" is not a positive number", frame);
              return NULL;
            }
          lb_dicom_dataset_set_string (ref, LB_TAG_REFERENCED_FRAME_NUMBER, "IS", frame);
        }
      lb_dicom_dataset_add_item (ds, LB_TAG_SOURCE_IMAGE_SEQUENCE, ref);
    }

  /* Image Pixel */
  lb_dicom_dataset_set_uint (ds, LB_TAG_SAMPLES_PER_PIXEL, "US", channels);
  /* MONOCHROME1 stays MONOCHROME1 with the same samples: the same meaning in any viewer. */
  lb_dicom_dataset_set_string (ds, LB_TAG_PHOTOMETRIC, "CS",
                               !gray ? "RGB"
                               : model ? lb_dicom_value_model_photometric (model)
                               : "MONOCHROME2");
  if (!gray)
    lb_dicom_dataset_set_uint (ds, LB_TAG_PLANAR_CONFIGURATION, "US", 0);
  lb_dicom_dataset_set_uint (ds, LB_TAG_ROWS, "US", height);
  lb_dicom_dataset_set_uint (ds, LB_TAG_COLUMNS, "US", width);
  lb_dicom_dataset_set_uint (ds, LB_TAG_BITS_ALLOCATED, "US", bits);
  lb_dicom_dataset_set_uint (ds, LB_TAG_BITS_STORED, "US", bits_stored);
  lb_dicom_dataset_set_uint (ds, LB_TAG_HIGH_BIT, "US", bits_stored - 1);
  lb_dicom_dataset_set_uint (ds, LB_TAG_PIXEL_REPRESENTATION, "US", is_signed ? 1 : 0);

  /* SC Image (Basic Pixel Spacing Calibration macro): spacing is row \ column, mm. */
  if (lb_image_meta_get_pixel_spacing (meta, &a, &b))
    {
      g_autofree char *sx = lb_dicom_format_ds (a), *sy = lb_dicom_format_ds (b);
      g_autofree char *spacing = g_strdup_printf ("%s\\%s", sy, sx);

      lb_dicom_dataset_set_string (ds, LB_TAG_PIXEL_SPACING, "DS", spacing);
    }

  /* Modality LUT, VOI LUT, padding and lossy history: what the samples mean. */
  if (colour_model != NULL)
    lb_dicom_value_model_write (colour_model, ds);
  if (model != NULL)
    {
      lb_dicom_value_model_write (model, ds);
      pixel_data = lb_dicom_value_model_stored_pixels (model, img, error);
      if (pixel_data == NULL)
        return NULL;
    }
  else
    {
      /* Pixel Data: little-endian samples, rows packed, OW for 16-bit and OB for 8-bit. */
      GByteArray *pixel_bytes = g_byte_array_sized_new ((guint) ((gsize) width * height
                                                                 * channels * (bits / 8)));

      for (guint y = 0; y < height; y++)
        {
          const guint8 *row = lb_image_get_row (img, y);
          gsize row_size = lb_image_get_row_size (img);

          if (bits == 8)
            g_byte_array_append (pixel_bytes, row, (guint) row_size);
          else
            for (gsize i = 0; i < row_size / 2; i++)
              put_u16 (pixel_bytes, ((const guint16 *) row)[i]);
        }
      pixel_data = g_byte_array_free_to_bytes (pixel_bytes);
    }
  lb_dicom_dataset_set_bytes (ds, LB_TAG_PIXEL_DATA, bits == 8 ? "OB" : "OW", pixel_data);

  return g_steal_pointer (&ds);
}
