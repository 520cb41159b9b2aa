/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicom-values"

#include "config.h"

#include <math.h>
#include <string.h>

#include "lb-dicom-tags.h"
#include "lb-dicom-values.h"
#include "lb-error.h"

/* The value model ↔ DICOM attributes: what a decoder reads and a writer writes. */

/* A US-or-SS value (LUT Descriptor's first mapped value, Pixel Padding Value): the VR says
 * which when it is SS; a US value holds the two's-complement bits of a signed one when the
 * pixel data is signed (PS3.3 C.11.1.1.1, C.7.5.1.1.2). */
static gboolean
get_us_or_ss (const LbDicomDataset *md, guint32 tag, guint index, gboolean is_signed,
              gint32 *out)
{
  gint64 v;

  if (!lb_dicom_dataset_get_int (md, tag, index, &v))
    return FALSE;
  if (is_signed && v >= 32768 && v <= 65535)
    v -= 65536;
  if (v < G_MININT16 || v > G_MAXUINT16)
    return FALSE;
  *out = (gint32) v;
  return TRUE;
}

/* One LUT Sequence item (PS3.3 C.11.1.1, C.11.2.1.1). @data_out owns the entries. */
static gboolean
read_lut (const LbDicomDataset *item, const char *what, gboolean first_signed,
          const char *name, LbValueLut *lut, guint16 **data_out, GError **error)
{
  gint64 n, bits;
  gint32 first;
  GBytes *bytes;
  guint16 *data;
  guint n_values;

  if (!lb_dicom_dataset_get_int (item, LB_TAG_LUT_DESCRIPTOR, 0, &n)
      || !get_us_or_ss (item, LB_TAG_LUT_DESCRIPTOR, 1, first_signed, &first)
      || !lb_dicom_dataset_get_int (item, LB_TAG_LUT_DESCRIPTOR, 2, &bits))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "%s: %s LUTDescriptor (0028,3002) is missing or not three numbers", name, what);
      return FALSE;
    }
  if (n == 0)
    n = 65536; /* PS3.3 C.11.1.1.1: 0 means 2^16 entries */
  if (n < 0 || n > 65536 || bits < 1 || bits > 16)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "%s: %s LUTDescriptor %" G_GINT64_FORMAT "\\%d\\%" G_GINT64_FORMAT
                   " is out of range", name, what, n, first, bits);
      return FALSE;
    }
  data = g_new0 (guint16, n);
  bytes = lb_dicom_dataset_get_bytes (item, LB_TAG_LUT_DATA);
  n_values = lb_dicom_dataset_get_n_values (item, LB_TAG_LUT_DATA);
  if (bytes != NULL)
    {
      gsize len;
      const guint8 *p = g_bytes_get_data (bytes, &len);

      /* OW: one little-endian word per entry; 8-bit entries are sometimes packed two to a
       * word (PS3.3 C.11.1.1.1, note), which is then exactly n bytes (rounded up to even). */
      if (len == (gsize) n * 2)
        for (gint64 i = 0; i < n; i++)
          data[i] = (guint16) (p[2 * i] | p[2 * i + 1] << 8);
      else if (bits == 8 && (len == (gsize) n || len == (gsize) n + 1))
        for (gint64 i = 0; i < n; i++)
          data[i] = p[i];
      else
        {
          g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                       "%s: %s LUTData (0028,3006) has %" G_GSIZE_FORMAT " bytes for %"
                       G_GINT64_FORMAT " entries", name, what, len, n);
          g_free (data);
          return FALSE;
        }
    }
  else if (n_values == (guint) n)
    for (guint i = 0; i < n_values; i++)
      {
        gint64 v;

        if (!lb_dicom_dataset_get_int (item, LB_TAG_LUT_DATA, i, &v) || v < 0 || v > 65535)
          {
            g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                         "%s: %s LUTData (0028,3006) value %u is not a 16-bit number", name,
                         what, i);
            g_free (data);
            return FALSE;
          }
        data[i] = (guint16) v;
      }
  else
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "%s: %s LUTData (0028,3006) is %s", name, what,
                   lb_dicom_dataset_get_bulk_data_uri (item, LB_TAG_LUT_DATA)
                   ? "only available as bulk data" : "missing or of the wrong size");
      g_free (data);
      return FALSE;
    }
  lut->first = first;
  lut->n_entries = (guint) n;
  lut->bits = (guint) bits;
  lut->data = data;
  lut->explanation = NULL;
  *data_out = data;
  return TRUE;
}

/* PS3.3 C.11.1.1.2: RescaleType "US" is "unspecified"; a CT's values are HU unless its
 * RescaleType says otherwise (C.8.2.1.1: RescaleType is required only when it is not HU). */
static const char *
units_of (const char *type, const char *modality)
{
  if (type != NULL && *type != '\0')
    return strcmp (type, "US") == 0 ? NULL : type;
  return g_strcmp0 (modality, "CT") == 0 ? "HU" : NULL;
}

const char *
lb_dicom_lossy_method (const char *transfer_syntax)
{
  static const struct {
    const char *uid, *method;
  } lossy[] = {
    { "1.2.840.10008.1.2.4.50", "ISO_10918_1" },   /* JPEG baseline */
    { "1.2.840.10008.1.2.4.51", "ISO_10918_1" },   /* JPEG extended */
    { "1.2.840.10008.1.2.4.81", "ISO_14495_1" },   /* JPEG-LS near-lossless */
    { "1.2.840.10008.1.2.4.91", "ISO_15444_1" },   /* JPEG 2000 (lossless or lossy) */
    { "1.2.840.10008.1.2.4.203", "ISO_15444_15" }, /* HTJ2K (lossless or lossy) */
    { "1.2.840.10008.1.2.4.100", "ISO_13818_2" },  /* MPEG-2 */
    { "1.2.840.10008.1.2.4.101", "ISO_13818_2" },
    { "1.2.840.10008.1.2.4.102", "ISO_14496_10" }, /* MPEG-4 AVC/H.264 */
    { "1.2.840.10008.1.2.4.103", "ISO_14496_10" },
    { "1.2.840.10008.1.2.4.104", "ISO_14496_10" },
    { "1.2.840.10008.1.2.4.105", "ISO_14496_10" },
    { "1.2.840.10008.1.2.4.106", "ISO_14496_10" },
    { "1.2.840.10008.1.2.4.107", "ISO_23008_2" },  /* HEVC/H.265 */
    { "1.2.840.10008.1.2.4.108", "ISO_23008_2" },
  };

  for (guint i = 0; transfer_syntax != NULL && i < G_N_ELEMENTS (lossy); i++)
    if (strcmp (transfer_syntax, lossy[i].uid) == 0)
      return lossy[i].method;
  return NULL;
}

/* Lossy Image Compression (PS3.3 C.7.6.1.1.5): the data set's history, and the syntax the
 * frame was stored in: a frame stored in a lossy syntax has been through lossy compression
 * whatever its data set says. */
static void
set_lossy (LbValueModelBuilder *b, const LbDicomDataset *md, const char *transfer_syntax)
{
  const char *lossy = lb_dicom_dataset_get_string (md, LB_TAG_LOSSY_IMAGE_COMPRESSION, 0);
  double a;

  if (g_strcmp0 (lossy, "01") == 0)
    {
      g_autofree char *methods = lb_dicom_dataset_dup_joined (
        md, LB_TAG_LOSSY_IMAGE_COMPRESSION_METHOD);
      GString *ratios = g_string_new (NULL);

      /* the method is required with "01" (Type 1C); files that omit it and are stored in a
       * lossy syntax say which one by that syntax */
      if ((methods == NULL || *methods == '\0') && lb_dicom_lossy_method (transfer_syntax))
        {
          g_free (methods);
          methods = g_strdup (lb_dicom_lossy_method (transfer_syntax));
        }

      /* DS as a DICOM file writes it ("10", not the JSON model's number formatting) */
      for (guint i = 0; i < lb_dicom_dataset_get_n_values (md, LB_TAG_LOSSY_IMAGE_COMPRESSION_RATIO);
           i++)
        if (lb_dicom_dataset_get_double (md, LB_TAG_LOSSY_IMAGE_COMPRESSION_RATIO, i, &a))
          {
            g_autofree char *ds = lb_dicom_format_ds (a);

            g_string_append_printf (ratios, "%s%s", ratios->len ? "\\" : "", ds);
          }
      lb_value_model_builder_set_lossy (b, TRUE, ratios->str, methods);
      g_string_free (ratios, TRUE);
    }
  else if (lb_dicom_lossy_method (transfer_syntax) != NULL)
    /* stored lossy, though the data set does not say so: it is lossy all the same */
    lb_value_model_builder_set_lossy (b, TRUE, NULL, lb_dicom_lossy_method (transfer_syntax));
}

LbValueModel *
lb_dicom_value_model_new (const LbDicomDataset *md, guint sample_bits, gboolean is_signed,
                          guint bits_stored, const char *transfer_syntax, const char *name,
                          GError **error)
{
  g_autoptr(LbValueModelBuilder) b = NULL;
  const char *modality = lb_dicom_dataset_get_string (md, LB_TAG_MODALITY, 0);
  const char *photometric = lb_dicom_dataset_get_string (md, LB_TAG_PHOTOMETRIC, 0);
  const char *fn, *shape;
  guint offset = is_signed ? LB_VALUE_MODEL_SIGNED_OFFSET : 0;
  guint n_c, n_w;
  gint32 ppv, pprl;
  double a, c;

  g_return_val_if_fail (md != NULL, NULL);
  g_return_val_if_fail (sample_bits == 8 || sample_bits == 16, NULL);
  b = lb_value_model_builder_new (NULL, sample_bits);
  lb_value_model_builder_set_source (b, is_signed, bits_stored);

  /* Modality LUT (C.11.1): a sequence wins over a rescale (they are mutually exclusive). */
  if (lb_dicom_dataset_get_n_items (md, LB_TAG_MODALITY_LUT_SEQUENCE) > 0)
    {
      LbDicomDataset *item = lb_dicom_dataset_get_item (md, LB_TAG_MODALITY_LUT_SEQUENCE, 0);
      g_autofree guint16 *data = NULL;
      LbValueLut lut;

      if (!read_lut (item, "Modality", is_signed, name, &lut, &data, error))
        return NULL;
      lb_value_model_builder_set_modality_lut (b, &lut);
      lb_value_model_builder_set_units (b, units_of (lb_dicom_dataset_get_string (
                                                       item, LB_TAG_MODALITY_LUT_TYPE, 0),
                                                     NULL));
    }
  else
    {
      gboolean has_slope = lb_dicom_dataset_get_double (md, LB_TAG_RESCALE_SLOPE, 0, &a);
      gboolean has_icpt = lb_dicom_dataset_get_double (md, LB_TAG_RESCALE_INTERCEPT, 0, &c);

      if (has_slope || has_icpt)
        {
          if (!has_slope)
            a = 1.0;
          if (!has_icpt)
            c = 0.0;
          if (a == 0 || !isfinite (a) || !isfinite (c))
            {
              g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                           "%s: RescaleSlope %g / RescaleIntercept %g cannot map stored values",
                           name, a, c);
              return NULL;
            }
          lb_value_model_builder_set_rescale (b, a, c);
          lb_value_model_builder_set_units (b, units_of (lb_dicom_dataset_get_string (
                                                           md, LB_TAG_RESCALE_TYPE, 0),
                                                         modality));
        }
      else
        /* no Modality LUT: values are stored values, but a CT's are still HU */
        lb_value_model_builder_set_units (b, units_of (NULL, modality));
    }

  /* Pixel padding (C.7.5.1.1.2): one value, or the range it spans with the range limit. */
  if (get_us_or_ss (md, LB_TAG_PIXEL_PADDING_VALUE, 0, is_signed, &ppv))
    {
      gint32 lo = ppv, hi = ppv;

      if (get_us_or_ss (md, LB_TAG_PIXEL_PADDING_RANGE_LIMIT, 0, is_signed, &pprl))
        {
          lo = MIN (ppv, pprl);
          hi = MAX (ppv, pprl);
        }
      lo += (gint32) offset;
      hi += (gint32) offset;
      /* a padding value that no sample can hold pads nothing */
      if (hi >= 0 && lo < (1 << sample_bits))
        lb_value_model_builder_set_padding (b, (guint) MAX (lo, 0),
                                            (guint) MIN (hi, (1 << sample_bits) - 1));
    }

  /* VOI (C.11.2): every window preset, the function, every LUT. */
  n_c = lb_dicom_dataset_get_n_values (md, LB_TAG_WINDOW_CENTER);
  n_w = lb_dicom_dataset_get_n_values (md, LB_TAG_WINDOW_WIDTH);
  for (guint i = 0; i < MIN (n_c, n_w); i++)
    if (lb_dicom_dataset_get_double (md, LB_TAG_WINDOW_CENTER, i, &c)
        && lb_dicom_dataset_get_double (md, LB_TAG_WINDOW_WIDTH, i, &a) && a > 0
        && isfinite (a) && isfinite (c))
      lb_value_model_builder_add_window (b, c, a, lb_dicom_dataset_get_string (
                                                    md, LB_TAG_WINDOW_EXPLANATION, i));
  fn = lb_dicom_dataset_get_string (md, LB_TAG_VOI_LUT_FUNCTION, 0);
  if (fn != NULL)
    {
      LbVoiFunction f;

      if (!lb_voi_function_from_string (fn, &f))
        {
          g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                       "%s: VOILUTFunction (0028,1056) \"%s\" is not LINEAR, LINEAR_EXACT or "
                       "SIGMOID", name, fn);
          return NULL;
        }
      lb_value_model_builder_set_voi_function (b, f);
    }
  for (guint i = 0; i < lb_dicom_dataset_get_n_items (md, LB_TAG_VOI_LUT_SEQUENCE); i++)
    {
      LbDicomDataset *item = lb_dicom_dataset_get_item (md, LB_TAG_VOI_LUT_SEQUENCE, i);
      g_autofree guint16 *data = NULL;
      LbValueLut lut;
      gboolean first_signed = is_signed || g_strcmp0 (lb_dicom_dataset_get_vr (
                                                        item, LB_TAG_LUT_DESCRIPTOR), "SS") == 0;

      if (!read_lut (item, "VOI", first_signed, name, &lut, &data, error))
        return NULL;
      lut.explanation = lb_dicom_dataset_get_string (item, LB_TAG_LUT_EXPLANATION, 0);
      lb_value_model_builder_add_voi_lut (b, &lut);
    }

  lb_value_model_builder_set_monochrome1 (b, g_strcmp0 (photometric, "MONOCHROME1") == 0);
  shape = lb_dicom_dataset_get_string (md, LB_TAG_PRESENTATION_LUT_SHAPE, 0);
  if (shape != NULL)
    {
      LbPresentationShape p;

      /* PS3.3 C.7.6.1 and C.11.6.1.2: IDENTITY or INVERSE (LIN OD is for print only) */
      if (!lb_presentation_shape_from_string (shape, &p))
        {
          g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                       "%s: PresentationLUTShape (2050,0020) \"%s\" is not IDENTITY or INVERSE",
                       name, shape);
          return NULL;
        }
      lb_value_model_builder_set_presentation_shape (b, p);
    }
  set_lossy (b, md, transfer_syntax);
  return lb_value_model_builder_end (g_steal_pointer (&b));
}

LbValueModel *
lb_dicom_colour_value_model_new (const LbDicomDataset *md, guint sample_bits, guint bits_stored,
                                 const char *transfer_syntax)
{
  g_autoptr(LbValueModelBuilder) b = NULL;

  g_return_val_if_fail (md != NULL, NULL);
  g_return_val_if_fail (sample_bits == 8 || sample_bits == 16, NULL);
  b = lb_value_model_builder_new (NULL, sample_bits);
  lb_value_model_builder_set_source (b, FALSE, bits_stored);
  lb_value_model_builder_set_colour (b, TRUE);
  set_lossy (b, md, transfer_syntax);
  return lb_value_model_builder_end (g_steal_pointer (&b));
}

/* ---- writing ---------------------------------------------------------------------------- */

/* A LUT Sequence item. Entries are 8 or 16 bits (PS3.3 C.11.1.1.1, C.11.2.1.1.1); older files
 * declare 10 to 15. A Modality LUT's entries are values whatever the bits say: they are kept.
 * A VOI LUT's output range is 0 … 2^bits − 1: its entries are scaled to 16 bits
 * (@scale_output), which moves no display value by more than 1/65535 of the range. */
static LbDicomDataset *
lut_item (const LbValueLut *lut, gboolean first_signed, gboolean scale_output)
{
  LbDicomDataset *item = lb_dicom_dataset_new ();
  g_autofree char *desc = NULL;
  GByteArray *bytes = g_byte_array_sized_new (lut->n_entries * 2);
  g_autoptr(GBytes) data = NULL;
  guint bits = lut->bits == 8 ? 8 : 16;
  double scale = scale_output && bits != lut->bits ? 65535.0 / ((1u << lut->bits) - 1) : 1.0;

  /* PS3.3 C.11.1.1.1: 65536 entries are written as 0; the first value mapped is SS when the
   * input is signed. */
  desc = g_strdup_printf ("%u\\%d\\%u", lut->n_entries == 65536 ? 0 : lut->n_entries,
                          first_signed ? lut->first : (gint32) (guint16) lut->first, bits);
  lb_dicom_dataset_set_string (item, LB_TAG_LUT_DESCRIPTOR, first_signed ? "SS" : "US", desc);
  for (guint i = 0; i < lut->n_entries; i++)
    {
      guint16 e = (guint16) MIN (floor (lut->data[i] * scale + 0.5), 65535);
      guint8 le[2] = { e & 0xff, e >> 8 };

      g_byte_array_append (bytes, le, 2);
    }
  data = g_byte_array_free_to_bytes (bytes);
  lb_dicom_dataset_set_bytes (item, LB_TAG_LUT_DATA, "OW", data);
  return item;
}

/* What grey samples mean: Modality LUT, VOI LUT, padding, presentation. */
static void
write_grey (const LbValueModel *model, LbDicomDataset *ds)
{
  gboolean is_signed = lb_value_model_get_source_signed (model);
  guint offset = lb_value_model_get_sample_offset (model);
  const char *units = lb_value_model_get_units (model);
  guint n, lo, hi;
  double slope, intercept;

  /* Modality LUT module (C.11.1): RescaleType is required with a rescale (type 1C). */
  switch (lb_value_model_get_modality_kind (model))
    {
    case LB_MODALITY_RESCALE:
      lb_value_model_get_stored_rescale (model, &slope, &intercept);
      lb_dicom_dataset_set_double (ds, LB_TAG_RESCALE_INTERCEPT, intercept);
      lb_dicom_dataset_set_double (ds, LB_TAG_RESCALE_SLOPE, slope);
      lb_dicom_dataset_set_string (ds, LB_TAG_RESCALE_TYPE, "LO", units ? units : "US");
      break;
    case LB_MODALITY_LUT:
      {
        g_autoptr(LbDicomDataset) item = lut_item (lb_value_model_get_modality_lut (model),
                                                   is_signed, FALSE);

        lb_dicom_dataset_set_string (item, LB_TAG_MODALITY_LUT_TYPE, "LO", units ? units : "US");
        lb_dicom_dataset_add_item (ds, LB_TAG_MODALITY_LUT_SEQUENCE, item);
      }
      break;
    case LB_MODALITY_NONE:
    default:
      break;
    }

  /* VOI LUT module (C.11.2) */
  n = lb_value_model_get_n_windows (model);
  if (n > 0)
    {
      GString *cs = g_string_new (NULL), *ws = g_string_new (NULL), *es = g_string_new (NULL);
      gboolean any_explanation = FALSE;

      for (guint i = 0; i < n; i++)
        {
          const char *expl = NULL;
          double c, w;
          g_autofree char *c_str = NULL, *w_str = NULL, *e_str = NULL;

          lb_value_model_get_window (model, i, &c, &w, &expl);
          c_str = lb_dicom_format_ds (c);
          w_str = lb_dicom_format_ds (w);
          e_str = g_strdup (expl ? expl : "");
          g_strdelimit (e_str, "\\", '/');
          g_string_append_printf (cs, "%s%s", i ? "\\" : "", c_str);
          g_string_append_printf (ws, "%s%s", i ? "\\" : "", w_str);
          g_string_append_printf (es, "%s%s", i ? "\\" : "", e_str);
          any_explanation |= expl != NULL;
        }
      lb_dicom_dataset_set_string (ds, LB_TAG_WINDOW_CENTER, "DS", cs->str);
      lb_dicom_dataset_set_string (ds, LB_TAG_WINDOW_WIDTH, "DS", ws->str);
      if (any_explanation)
        lb_dicom_dataset_set_string (ds, LB_TAG_WINDOW_EXPLANATION, "LO", es->str);
      g_string_free (cs, TRUE);
      g_string_free (ws, TRUE);
      g_string_free (es, TRUE);
    }
  if (n > 0 && lb_value_model_get_voi_function (model) != LB_VOI_LINEAR)
    lb_dicom_dataset_set_string (ds, LB_TAG_VOI_LUT_FUNCTION, "CS",
                                 lb_voi_function_to_string (lb_value_model_get_voi_function (model)));
  for (guint i = 0; i < lb_value_model_get_n_voi_luts (model); i++)
    {
      const LbValueLut *lut = lb_value_model_get_voi_lut (model, i);
      g_autoptr(LbDicomDataset) item = lut_item (lut, lut->first < 0, TRUE);

      if (lut->explanation)
        lb_dicom_dataset_set_string (item, LB_TAG_LUT_EXPLANATION, "LO", lut->explanation);
      lb_dicom_dataset_add_item (ds, LB_TAG_VOI_LUT_SEQUENCE, item);
    }

  /* Pixel padding (C.7.5.1.1.2): the value is the end of the range nearest black. */
  if (lb_value_model_get_padding (model, &lo, &hi))
    {
      gint32 slo = (gint32) lo - (gint32) offset, shi = (gint32) hi - (gint32) offset;
      gboolean mono1 = lb_value_model_get_presentation_inverse (model);
      const char *vr = is_signed ? "SS" : "US";
      g_autofree char *v = g_strdup_printf ("%d", mono1 ? shi : slo);

      lb_dicom_dataset_set_string (ds, LB_TAG_PIXEL_PADDING_VALUE, vr, v);
      if (lo != hi)
        {
          g_autofree char *limit = g_strdup_printf ("%d", mono1 ? slo : shi);

          lb_dicom_dataset_set_string (ds, LB_TAG_PIXEL_PADDING_RANGE_LIMIT, vr, limit);
        }
    }

  /* Presentation LUT Shape (C.7.6.1, C.11.6.1.2), as the source gave it. The photometric
   * interpretation written with it is the one the standard pairs with it
   * (lb_dicom_value_model_photometric()), so that the derived image is presented as the
   * source was, also where the source paired them otherwise. */
  if (lb_value_model_get_presentation_shape (model) != LB_PRESENTATION_UNSPECIFIED)
    lb_dicom_dataset_set_string (ds, LB_TAG_PRESENTATION_LUT_SHAPE, "CS",
                                 lb_presentation_shape_to_string (
                                   lb_value_model_get_presentation_shape (model)));
}

const char *
lb_dicom_value_model_photometric (const LbValueModel *model)
{
  g_return_val_if_fail (model != NULL, "MONOCHROME2");
  return lb_value_model_get_presentation_inverse (model) ? "MONOCHROME1" : "MONOCHROME2";
}

void
lb_dicom_value_model_write (const LbValueModel *model, LbDicomDataset *ds)
{
  const char *ratios, *methods;

  g_return_if_fail (model != NULL && ds != NULL);
  /* a colour image's samples mean themselves: only its lossy history is written */
  if (!lb_value_model_get_colour (model))
    write_grey (model, ds);

  /* Lossy compression (C.7.6.1.1.5): once lossy, always lossy, with the history. */
  if (lb_value_model_get_lossy (model, &ratios, &methods))
    {
      lb_dicom_dataset_set_string (ds, LB_TAG_LOSSY_IMAGE_COMPRESSION, "CS", "01");
      if (ratios)
        lb_dicom_dataset_set_string (ds, LB_TAG_LOSSY_IMAGE_COMPRESSION_RATIO, "DS", ratios);
      if (methods)
        lb_dicom_dataset_set_string (ds, LB_TAG_LOSSY_IMAGE_COMPRESSION_METHOD, "CS", methods);
    }
}

GBytes *
lb_dicom_value_model_stored_pixels (const LbValueModel *model, LbImage *image, GError **error)
{
  guint width = lb_image_get_width (image), height = lb_image_get_height (image);
  guint bits = lb_value_model_get_sample_bits (model);
  gint32 min, max;
  gboolean checked;
  GByteArray *out;

  g_return_val_if_fail (lb_image_get_format (image)
                        == (bits == 8 ? LB_FORMAT_GRAY8 : LB_FORMAT_GRAY16), NULL);
  checked = lb_value_model_get_stored_range (model, &min, &max);
  out = g_byte_array_sized_new ((guint) ((gsize) width * height * (bits / 8)));
  for (guint y = 0; y < height; y++)
    {
      const guint8 *row = lb_image_get_row (image, y);

      for (guint x = 0; x < width; x++)
        {
          guint sample = bits == 8 ? row[x] : ((const guint16 *) row)[x];
          gint32 stored = lb_value_model_sample_to_stored (model, sample);

          if (checked && (stored < min || stored > max))
            {
              g_autofree char *value = lb_value_model_format_value (
                model, lb_value_model_to_value (model, sample));
              const char *units = lb_value_model_get_units (model);

              g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                           "the image has stored value %d (%s%s%s) at x %u, y %u, outside the "
                           "source's %s %u-bit range %d … %d; it cannot be stored without "
                           "changing its meaning", stored, value, units ? " " : "",
                           units ? units : "", x, y,
                           lb_value_model_get_source_signed (model) ? "signed" : "unsigned",
                           lb_value_model_get_bits_stored (model), min, max);
              g_byte_array_unref (out);
              return NULL;
            }
          if (bits == 8)
            g_byte_array_append (out, (const guint8 *) &(guint8) { (guint8) stored }, 1);
          else
            {
              guint16 w = (guint16) stored; /* two's complement for signed */
              guint8 le[2] = { w & 0xff, w >> 8 };

              g_byte_array_append (out, le, 2);
            }
        }
    }
  return g_byte_array_free_to_bytes (out);
}
