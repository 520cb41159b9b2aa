/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicom-colour"

/* Colour models to RGB: YBR (PS3.3 §C.7.6.3.1.2) and palette colour (§C.7.6.3.1.5–6,
 * segmented tables §C.7.9.2). Both the uncompressed path (lb_dicom_decode_frame) and the
 * decompressed one (lb_dicom_prepare_frame) come here. */

#include "lb-dicom-colour.h"

#include "lb-dicom-codec-private.h"

#include <math.h>
#include <string.h>

#include "lb-dicom-tags.h"
#include "lb-error.h"

/* Segmented tables expand to at most this many entries: a descriptor cannot ask for more. */
#define MAX_LUT_ENTRIES 65536

typedef enum {
  MODEL_YBR_FULL,
  MODEL_YBR_FULL_422,
  MODEL_YBR_PARTIAL_422,
  MODEL_YBR_PARTIAL_420,
  MODEL_YBR_RCT_ICT,
  MODEL_PALETTE,
  MODEL_NONE,
} Model;

static Model
model_of (const char *photometric)
{
  static const struct { const char *name; Model model; } models[] = {
    { "YBR_FULL", MODEL_YBR_FULL },
    { "YBR_FULL_422", MODEL_YBR_FULL_422 },
    { "YBR_PARTIAL_422", MODEL_YBR_PARTIAL_422 },
    { "YBR_PARTIAL_420", MODEL_YBR_PARTIAL_420 },
    { "YBR_RCT", MODEL_YBR_RCT_ICT },
    { "YBR_ICT", MODEL_YBR_RCT_ICT },
    { "PALETTE COLOR", MODEL_PALETTE },
  };

  for (guint i = 0; photometric && i < G_N_ELEMENTS (models); i++)
    if (strcmp (photometric, models[i].name) == 0)
      return models[i].model;
  return MODEL_NONE;
}

gboolean
lb_dicom_colour_is_convertible (const char *photometric)
{
  return model_of (photometric) != MODEL_NONE;
}

/* The Image Pixel attributes the conversions read, checked once. */
typedef struct {
  guint rows, cols, spp, bits_alloc, bits_stored, high_bit, planar;
  gboolean is_signed, big_endian, native;
  const guint8 *data;
  gsize len;
  gsize n_pixels;
} Src;

static gboolean
src_init (Src *s, const LbDicomDataset *ds, GBytes *frame, gboolean native, gboolean big_endian,
          GError **error)
{
  LbDicomPixelModule pm;

  memset (s, 0, sizeof *s);
  if (!lb_dicom_pixel_module_read (ds, &pm, error))
    return FALSE;
  if (pm.bits_alloc != 8 && pm.bits_alloc != 16)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                   "%u bits allocated per colour sample (Lightbox reads 8 and 16)", pm.bits_alloc);
      return FALSE;
    }
  s->rows = pm.rows;
  s->cols = pm.cols;
  s->spp = pm.spp;
  s->bits_alloc = pm.bits_alloc;
  s->bits_stored = pm.bits_stored;
  /* a decompressed frame holds the stored values in its low bits */
  s->high_bit = native ? pm.high_bit : pm.bits_stored - 1;
  s->planar = pm.planar;
  s->is_signed = pm.is_signed;
  s->native = native;
  s->big_endian = native && big_endian;
  s->data = g_bytes_get_data (frame, &s->len);
  s->n_pixels = (gsize) s->rows * s->cols;
  return TRUE;
}

/* Sample @i of the frame (in its own layout), its stored value masked to BitsStored and, when
 * signed, sign-extended (PS3.5 §8.1.1). */
static inline gint32
src_sample (const Src *s, gsize i)
{
  guint32 v, mask = (1u << s->bits_stored) - 1;

  if (s->bits_alloc == 8)
    v = s->data[i];
  else if (s->big_endian)
    v = (guint32) s->data[2 * i] << 8 | s->data[2 * i + 1];
  else
    v = (guint32) s->data[2 * i + 1] << 8 | s->data[2 * i];
  v = (v >> (s->high_bit + 1 - s->bits_stored)) & mask;
  if (s->is_signed && (v & (1u << (s->bits_stored - 1))))
    return (gint32) (v | ~mask);
  return (gint32) v;
}

static gboolean
src_need (const Src *s, gsize n_samples, const char *what, GError **error)
{
  gsize need = n_samples * (s->bits_alloc / 8);

  if (s->len < need)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_TRUNCATED,
                   "the %s frame has %" G_GSIZE_FORMAT " bytes; %u×%u pixels need %"
                   G_GSIZE_FORMAT, what, s->len, s->cols, s->rows, need);
      return FALSE;
    }
  return TRUE;
}

static guint8 *
alloc_rgb (const Src *s, guint bits, const LbLimits *limits, gsize *out_len, GError **error)
{
  guint64 size = (guint64) s->n_pixels * 3 * (bits / 8);
  guint8 *out;

  if (limits == NULL)
    limits = lb_limits_get_default ();
  if (s->n_pixels > limits->max_pixels || size > limits->max_bytes || size > G_MAXSIZE)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_TOO_LARGE,
                   "an RGB frame of %u×%u pixels is over the limits (%" G_GUINT64_FORMAT
                   " pixels, %" G_GUINT64_FORMAT " bytes)", s->cols, s->rows, limits->max_pixels,
                   limits->max_bytes);
      return NULL;
    }
  out = g_try_malloc (size);
  if (out == NULL)
    g_set_error (error, LB_ERROR, LB_ERROR_NO_MEMORY, "no memory for a %" G_GUINT64_FORMAT
                 "-byte RGB frame", size);
  *out_len = (gsize) size;
  return out;
}

/* ---- YBR ----------------------------------------------------------------------------------- */

/* RGB = M (Y, Cb − h, Cr − h) + t. YBR_FULL (PS3.3 §C.7.6.3.1.2) gives M directly; the
 * partial-range forms give the forward equations, inverted here once. */
typedef struct {
  double m[3][3];
  double t[3];
} YbrMatrix;

static void
ybr_full_matrix (YbrMatrix *x)
{
  static const double m[3][3] = {
    { 1.0, 0.0, 1.402 },
    { 1.0, -0.344136, -0.714136 },
    { 1.0, 1.772, 0.0 },
  };

  memcpy (x->m, m, sizeof m);
  memset (x->t, 0, sizeof x->t);
}

/* YBR_PARTIAL_422/420 (8-bit): Y = .2568R + .5041G + .0979B + 16,
 * CB = −.1482R − .2910G + .4392B + 128, CR = .4392R − .3678G − .0714B + 128. With
 * h = 128 taken off the chroma by the caller, RGB = F⁻¹ (Y − 16, Cb', Cr'); for 16-bit samples
 * the offsets scale with 2^(BitsStored − 8). */
static void
ybr_partial_matrix (YbrMatrix *x, guint bits_stored)
{
  static const double f[3][3] = {
    { 0.2568, 0.5041, 0.0979 },
    { -0.1482, -0.2910, 0.4392 },
    { 0.4392, -0.3678, -0.0714 },
  };
  double det = f[0][0] * (f[1][1] * f[2][2] - f[1][2] * f[2][1])
               - f[0][1] * (f[1][0] * f[2][2] - f[1][2] * f[2][0])
               + f[0][2] * (f[1][0] * f[2][1] - f[1][1] * f[2][0]);
  double y_offset = 16.0 * ldexp (1.0, (int) bits_stored - 8);

  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      {
        /* inverse = adjugate / determinant: cofactor of f[c][r] */
        int r1 = (c + 1) % 3, r2 = (c + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;

        x->m[r][c] = (f[r1][c1] * f[r2][c2] - f[r1][c2] * f[r2][c1]) / det;
      }
  for (int r = 0; r < 3; r++)
    x->t[r] = -x->m[r][0] * y_offset;
}

static GBytes *
ybr_to_rgb (const Src *s, Model model, const LbLimits *limits, GError **error)
{
  gboolean subsampled = s->native && (model == MODEL_YBR_FULL_422
                                      || model == MODEL_YBR_PARTIAL_422);
  gboolean planar = s->native && !subsampled && s->planar == 1;
  double h = ldexp (1.0, (int) s->bits_stored - 1);
  double vmax = ldexp (1.0, (int) s->bits_stored) - 1.0;
  YbrMatrix x;
  guint8 *out;
  gsize out_len;

  if (s->spp != 3)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT, "a YBR image with %u samples per pixel",
                   s->spp);
      return NULL;
    }
  if (s->native && model == MODEL_YBR_PARTIAL_420)
    {
      /* PS3.3 §C.7.6.3.1.2: YBR_PARTIAL_420 exists only inside MPEG streams */
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "YBR_PARTIAL_420 is only defined for compressed pixel data");
      return NULL;
    }
  if (subsampled && s->cols % 2 != 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "horizontally subsampled YBR needs an even number of columns, not %u",
                   s->cols);
      return NULL;
    }
  /* 4:2:2 stores Y1 Y2 Cb Cr for each pair of pixels: two samples a pixel */
  if (!src_need (s, s->n_pixels * (subsampled ? 2 : 3), "YBR", error))
    return NULL;
  out = alloc_rgb (s, s->bits_alloc, limits, &out_len, error);
  if (out == NULL)
    return NULL;
  if (model == MODEL_YBR_FULL || model == MODEL_YBR_FULL_422)
    ybr_full_matrix (&x);
  else
    ybr_partial_matrix (&x, s->bits_stored);

  for (gsize p = 0; p < s->n_pixels; p++)
    {
      double y, cb, cr;

      if (subsampled)
        {
          gsize pair = (p / 2) * 4;

          y = src_sample (s, pair + p % 2);
          cb = src_sample (s, pair + 2);
          cr = src_sample (s, pair + 3);
        }
      else if (planar)
        {
          y = src_sample (s, p);
          cb = src_sample (s, s->n_pixels + p);
          cr = src_sample (s, 2 * s->n_pixels + p);
        }
      else
        {
          y = src_sample (s, 3 * p);
          cb = src_sample (s, 3 * p + 1);
          cr = src_sample (s, 3 * p + 2);
        }
      cb -= h;
      cr -= h;
      for (int c = 0; c < 3; c++)
        {
          double v = floor (x.m[c][0] * y + x.m[c][1] * cb + x.m[c][2] * cr + x.t[c] + 0.5);

          lb_dicom_codec_put (out, 3 * p + c, s->bits_alloc, (gint32) CLAMP (v, 0.0, vmax));
        }
    }
  return g_bytes_new_take (out, out_len);
}

/* JPEG 2000's YBR_RCT/YBR_ICT are undone by the decoder (PS3.5 §A.4.4): the samples are RGB. */
static GBytes *
rct_ict_to_rgb (const Src *s, GError **error)
{
  if (s->native)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "YBR_RCT and YBR_ICT are only defined for JPEG 2000 pixel data");
      return NULL;
    }
  if (s->spp != 3 || !src_need (s, s->n_pixels * 3, "YBR", error))
    {
      if (error && *error == NULL)
        g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT, "a YBR image with %u samples per pixel",
                     s->spp);
      return NULL;
    }
  return g_bytes_new (s->data, s->n_pixels * 3 * (s->bits_alloc / 8));
}

/* ---- palette ------------------------------------------------------------------------------- */

typedef struct {
  guint n_entries;
  gint32 first;       /* the first stored value mapped */
  guint bits;         /* 8 or 16 */
  guint16 *entries;   /* n_entries values */
} Lut;

static const char *const channel_names[3] = { "Red", "Green", "Blue" };

/* Word @i of table data of @word_bytes-byte little-endian words. */
static inline guint
lut_word (const guint8 *d, gsize i, guint word_bytes)
{
  return word_bytes == 1 ? d[i] : (guint) d[2 * i] | (guint) d[2 * i + 1] << 8;
}

/* PS3.3 §C.7.9.2: discrete (0), linear (1) and indirect (2) segments. An indirect segment copies
 * segments from elsewhere in the same data, and may not point at another indirect one (which
 * also bounds the work). Offsets count words, as pydicom reads them. */
static gboolean
expand_segments (const guint8 *d, gsize n_words, guint wb, gsize from, gsize max_segments,
                 gboolean in_indirect, GArray *lut, const char *channel, GError **error)
{
  gsize i = from, done = 0;

  while (i + 1 < n_words && done < max_segments)
    {
      guint op = lut_word (d, i, wb), len = lut_word (d, i + 1, wb);

      i += 2;
      done++;
      if (lut->len + (gsize) len > MAX_LUT_ENTRIES)
        break;
      if (op == 0)
        {
          if (len > n_words - i)
            break;
          for (guint k = 0; k < len; k++)
            {
              guint16 v = (guint16) lut_word (d, i + k, wb);
              g_array_append_val (lut, v);
            }
          i += len;
        }
      else if (op == 1)
        {
          double y0, y1;

          if (lut->len == 0 || i >= n_words)
            break;
          y0 = g_array_index (lut, guint16, lut->len - 1);
          y1 = lut_word (d, i, wb);
          i++;
          /* len entries from just after y0 up to y1, rounded half to even (numpy's around) */
          for (guint k = 1; k <= len; k++)
            {
              guint16 v = (guint16) nearbyint (y0 + (y1 - y0) * k / len);
              g_array_append_val (lut, v);
            }
        }
      else if (op == 2 && !in_indirect && lut->len > 0 && i + 1 < n_words)
        {
          /* a 32-bit little-endian offset: four byte entries, or two 16-bit words */
          gsize offset;

          if (wb == 1 && i + 3 >= n_words)
            break;
          offset = wb == 1 ? (gsize) lut_word (d, i, 1) | (gsize) lut_word (d, i + 1, 1) << 8
                             | (gsize) lut_word (d, i + 2, 1) << 16
                             | (gsize) lut_word (d, i + 3, 1) << 24
                           : (gsize) lut_word (d, i, 2) | (gsize) lut_word (d, i + 1, 2) << 16;
          i += wb == 1 ? 4 : 2;
          if (offset >= n_words)
            break;
          if (!expand_segments (d, n_words, wb, offset, len, TRUE, lut, channel, error))
            return FALSE;
        }
      else
        break;
    }
  if (done < max_segments && i + 1 < n_words)
    {
      if (error && *error == NULL)
        g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                     "the segmented %s palette is damaged at word %" G_GSIZE_FORMAT, channel, i);
      return FALSE;
    }
  return TRUE;
}

static gboolean
load_lut (const LbDicomDataset *ds, guint channel, Lut *lut, GError **error)
{
  static const guint32 desc_tags[3] = { LB_TAG_RED_PALETTE_DESCRIPTOR,
                                        LB_TAG_GREEN_PALETTE_DESCRIPTOR,
                                        LB_TAG_BLUE_PALETTE_DESCRIPTOR };
  static const guint32 data_tags[3] = { LB_TAG_RED_PALETTE_DATA, LB_TAG_GREEN_PALETTE_DATA,
                                        LB_TAG_BLUE_PALETTE_DATA };
  static const guint32 seg_tags[3] = { LB_TAG_SEGMENTED_RED_PALETTE_DATA,
                                       LB_TAG_SEGMENTED_GREEN_PALETTE_DATA,
                                       LB_TAG_SEGMENTED_BLUE_PALETTE_DATA };
  const char *name = channel_names[channel];
  gint64 n, first, bits;
  GBytes *data = lb_dicom_dataset_get_bytes (ds, data_tags[channel]);
  GBytes *seg = lb_dicom_dataset_get_bytes (ds, seg_tags[channel]);
  const guint8 *d;
  gsize len;

  if (!lb_dicom_dataset_get_int (ds, desc_tags[channel], 0, &n)
      || !lb_dicom_dataset_get_int (ds, desc_tags[channel], 1, &first)
      || !lb_dicom_dataset_get_int (ds, desc_tags[channel], 2, &bits))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "%sPaletteColorLookupTableDescriptor (%04X,%04X) is missing or incomplete",
                   name, desc_tags[channel] >> 16, desc_tags[channel] & 0xffff);
      return FALSE;
    }
  /* PS3.3 §C.7.6.3.1.5: 0 entries means 2^16; a descriptor read as SS can give 2^15 as −2^15 */
  if (n <= 0)
    n += 65536;
  if (n <= 0 || n > MAX_LUT_ENTRIES || first < -32768 || first > 65535
      || (bits != 8 && bits != 16))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "%sPaletteColorLookupTableDescriptor %" G_GINT64_FORMAT "\\%" G_GINT64_FORMAT
                   "\\%" G_GINT64_FORMAT " is out of range", name, n, first, bits);
      return FALSE;
    }
  lut->n_entries = (guint) n;
  lut->first = (gint32) first;
  lut->bits = (guint) bits;
  if (data != NULL)
    {
      guint wb;

      d = g_bytes_get_data (data, &len);
      /* PS3.3 §C.7.6.3.1.5 note: some writers store 8-bit entries in 16-bit words; the data's
       * length tells them apart, and the entries are the words' low bytes. */
      if (len == (gsize) n)
        wb = 1;
      else if (len >= 2 * (gsize) n)
        wb = 2;
      else
        {
          g_set_error (error, LB_ERROR, LB_ERROR_TRUNCATED,
                       "%sPaletteColorLookupTableData has %" G_GSIZE_FORMAT " bytes for %"
                       G_GINT64_FORMAT " entries of %" G_GINT64_FORMAT " bits", name, len, n, bits);
          return FALSE;
        }
      if (wb == 1 && bits == 16)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_TRUNCATED,
                       "%sPaletteColorLookupTableData has one byte per entry; its descriptor "
                       "says 16 bits", name);
          return FALSE;
        }
      lut->entries = g_new (guint16, n);
      for (gint64 i = 0; i < n; i++)
        lut->entries[i] = (guint16) (bits == 8 ? lut_word (d, i, wb) & 0xff : lut_word (d, i, wb));
      return TRUE;
    }
  if (seg != NULL)
    {
      g_autoptr(GArray) expanded = g_array_new (FALSE, FALSE, sizeof (guint16));
      guint wb = (guint) bits / 8;

      d = g_bytes_get_data (seg, &len);
      if (!expand_segments (d, len / wb, wb, 0, G_MAXSIZE, FALSE, expanded, name, error))
        return FALSE;
      if (expanded->len < (guint) n)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                       "Segmented%sPaletteColorLookupTableData expands to %u entries; the "
                       "descriptor says %" G_GINT64_FORMAT, name, expanded->len, n);
          return FALSE;
        }
      lut->entries = g_memdup2 (expanded->data, (gsize) n * sizeof (guint16));
      return TRUE;
    }
  g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
               "PALETTE COLOR without %sPaletteColorLookupTableData (%04X,%04X) or its segmented "
               "form (as inline binary data)", name, data_tags[channel] >> 16,
               data_tags[channel] & 0xffff);
  return FALSE;
}

static GBytes *
palette_to_rgb (const LbDicomDataset *ds, const Src *s, const LbLimits *limits,
                guint *out_bits, GError **error)
{
  Lut luts[3] = { { 0 } };
  GBytes *result = NULL;
  guint8 *out = NULL;
  gsize out_len;

  if (s->spp != 1)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "PALETTE COLOR with %u samples per pixel", s->spp);
      return NULL;
    }
  if (!src_need (s, s->n_pixels, "PALETTE COLOR", error))
    return NULL;
  for (guint c = 0; c < 3; c++)
    if (!load_lut (ds, c, &luts[c], error))
      goto out;
  if (luts[1].bits != luts[0].bits || luts[2].bits != luts[0].bits)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "the red, green and blue palettes have entries of %u, %u and %u bits",
                   luts[0].bits, luts[1].bits, luts[2].bits);
      goto out;
    }
  out = alloc_rgb (s, luts[0].bits, limits, &out_len, error);
  if (out == NULL)
    goto out;
  for (gsize p = 0; p < s->n_pixels; p++)
    {
      gint64 v = src_sample (s, p);

      for (guint c = 0; c < 3; c++)
        {
          gint64 i = CLAMP (v - luts[c].first, 0, (gint64) luts[c].n_entries - 1);

          lb_dicom_codec_put (out, 3 * p + c, luts[0].bits, luts[c].entries[i]);
        }
    }
  *out_bits = luts[0].bits;
  result = g_bytes_new_take (g_steal_pointer (&out), out_len);

out:
  for (guint c = 0; c < 3; c++)
    g_free (luts[c].entries);
  return result;
}

GBytes *
lb_dicom_colour_to_rgb (const LbDicomDataset *ds, const char *photometric, GBytes *frame,
                        gboolean native, gboolean big_endian, const LbLimits *limits,
                        guint *out_bits_allocated, guint *out_bits_stored, GError **error)
{
  Model model = model_of (photometric);
  GBytes *rgb;
  Src s;

  g_return_val_if_fail (ds != NULL && frame != NULL, NULL);
  if (model == MODEL_NONE)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                   "photometric interpretation %s is not a colour model Lightbox converts",
                   photometric ? photometric : "(none)");
      return NULL;
    }
  if (!src_init (&s, ds, frame, native, big_endian, error))
    return NULL;
  *out_bits_allocated = s.bits_alloc;
  *out_bits_stored = s.bits_stored;
  if (model == MODEL_PALETTE)
    {
      rgb = palette_to_rgb (ds, &s, limits, out_bits_allocated, error);
      *out_bits_stored = *out_bits_allocated;
    }
  else if (model == MODEL_YBR_RCT_ICT)
    rgb = rct_ict_to_rgb (&s, error);
  else if (s.is_signed)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED, "signed %s samples", photometric);
      rgb = NULL;
    }
  else
    rgb = ybr_to_rgb (&s, model, limits, error);
  return rgb;
}
