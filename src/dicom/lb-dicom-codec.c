/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicom-codec"

/* Compressed frames: which decoder takes which transfer syntax, what the data set must say
 * before any of them runs, and the step that hands lb_dicom_decode_frame() an uncompressed
 * grey or RGB frame. The decoders themselves are lb-dicom-ijg.c (JPEG), lb-dicom-jpegls.c,
 * lb-dicom-j2k.c and lb-dicom-rle.c. */

#include "lb-dicom-codec.h"

#include <string.h>

#include "lb-dicom-codec-private.h"
#include "lb-dicom-colour.h"
#include "lb-dicom-frame.h"
#include "lb-dicom-tags.h"
#include "lb-error.h"

typedef gboolean (*DecodeFunc) (const LbDicomCodecFrame *f, const guint8 *data, gsize len,
                                guint8 *out, GError **error);

typedef enum { FAMILY_JPEG, FAMILY_JPEG_LS, FAMILY_J2K, FAMILY_RLE } Family;

static const struct {
  const char *uid;
  Family family;
} syntaxes[] = {
  { LB_DICOM_TS_JPEG_BASELINE, FAMILY_JPEG },
  { LB_DICOM_TS_JPEG_EXTENDED, FAMILY_JPEG },
  { LB_DICOM_TS_JPEG_LOSSLESS, FAMILY_JPEG },
  { LB_DICOM_TS_JPEG_LOSSLESS_SV1, FAMILY_JPEG },
  { LB_DICOM_TS_JPEG_LS_LOSSLESS, FAMILY_JPEG_LS },
  { LB_DICOM_TS_JPEG_LS_NEAR, FAMILY_JPEG_LS },
  { LB_DICOM_TS_J2K_LOSSLESS, FAMILY_J2K },
  { LB_DICOM_TS_J2K, FAMILY_J2K },
  { LB_DICOM_TS_RLE, FAMILY_RLE },
};

static int
find_syntax (const char *uid)
{
  for (guint i = 0; uid && i < G_N_ELEMENTS (syntaxes); i++)
    if (strcmp (uid, syntaxes[i].uid) == 0)
      return (int) i;
  return -1;
}

gboolean
lb_dicom_codec_supports (const char *transfer_syntax)
{
  return find_syntax (transfer_syntax) >= 0;
}

/* Walks the markers of a JPEG stream (ISO/IEC 10918-1 §B.2) before the IJG library sees it:
 * the precision P of the frame (SOFn) picks the library's variant (8, 12 or 16 bits), and
 * every scan (SOS) must name distinct components of the frame, every component in some scan.
 * IJG 6b checks neither: a scan that names a component twice leaves another one undecoded,
 * and the library then hands out its uninitialised buffers as that component's samples
 * (found by fuzzing under valgrind). Junk between markers is skipped as the library skips it.
 * Returns FALSE with an error for inconsistent scans; *precision stays 0 when there is no
 * frame header (the library then says what is wrong). */
static gboolean
jpeg_inspect (const guint8 *d, gsize len, guint *precision, GError **error)
{
  guint8 ids[4] = { 0 };
  guint n_comps = 0, covered = 0;   /* covered: bit k for frame component k */
  gsize i = 2;

  *precision = 0;
  if (len < 4 || d[0] != 0xFF || d[1] != 0xD8)
    return TRUE;
  while (i + 1 < len)
    {
      guint8 m;
      gsize seg;

      if (d[i] != 0xFF)
        {
          i++;   /* extraneous data before a marker */
          continue;
        }
      m = d[i + 1];
      if (m == 0xFF || m == 0x00 || m == 0x01 || (m >= 0xD0 && m <= 0xD8))
        {
          i += m == 0xFF ? 1 : 2;   /* fill byte, stuffed zero, markers without a length */
          continue;
        }
      if (m == 0xD9 || i + 4 > len)
        break;
      seg = (gsize) d[i + 2] << 8 | d[i + 3];
      if (seg < 2 || i + 2 + seg > len)
        break;
      if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC && *precision == 0
          && seg >= 8)
        {
          n_comps = d[i + 9];
          if (n_comps > G_N_ELEMENTS (ids) || seg < 8 + 3 * (gsize) n_comps)
            {
              n_comps = 0;
              break;   /* the library refuses such a frame header itself */
            }
          *precision = d[i + 4];
          for (guint k = 0; k < n_comps; k++)
            ids[k] = d[i + 10 + 3 * k];
        }
      else if (m == 0xDA && *precision != 0)
        {
          guint ns = seg >= 3 ? d[i + 4] : 0, in_scan = 0;

          if (ns == 0 || ns > n_comps || seg < 6 + 2 * (gsize) ns)
            break;
          for (guint c = 0; c < ns; c++)
            {
              guint k = 0;

              while (k < n_comps && ids[k] != d[i + 5 + 2 * c])
                k++;
              if (k == n_comps || (in_scan & (1u << k)))
                {
                  g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                               "a scan names component %u %s", d[i + 5 + 2 * c],
                               k == n_comps ? "that the frame does not have" : "twice");
                  return FALSE;
                }
              in_scan |= 1u << k;
            }
          covered |= in_scan;
          /* the entropy-coded data runs to the next marker that is not RSTn or a stuffed 0 */
          i += 2 + seg;
          while (i + 1 < len && !(d[i] == 0xFF && d[i + 1] != 0x00 && d[i + 1] != 0xFF
                                  && !(d[i + 1] >= 0xD0 && d[i + 1] <= 0xD7)))
            i++;
          continue;
        }
      i += 2 + seg;
    }
  if (*precision != 0 && covered != (1u << n_comps) - 1)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "the stream's scans leave frame components undecoded");
      return FALSE;
    }
  return TRUE;
}

static DecodeFunc
pick_decoder (Family family, const LbDicomCodecFrame *f, const guint8 *data, gsize len,
              GError **error)
{
  guint precision;

  switch (family)
    {
    case FAMILY_JPEG:
      if (!jpeg_inspect (data, len, &precision, error))
        return NULL;
      if (precision == 0)
        precision = f->bits_stored;
      /* Lossy processes need the variant of their precision, lossless ones any at least as
       * wide (GDCM's lossless extension of IJG 6b). */
      return precision <= 8 ? lb_dicom_ijg8_decode
             : precision <= 12 ? lb_dicom_ijg12_decode : lb_dicom_ijg16_decode;
    case FAMILY_JPEG_LS:
      return lb_dicom_jpegls_decode;
    case FAMILY_J2K:
      return lb_dicom_j2k_decode;
    case FAMILY_RLE:
      return lb_dicom_rle_decode;
    default:
      g_assert_not_reached ();
    }
}

static gboolean
read_attr (const LbDicomDataset *ds, guint32 tag, const char *what, gint64 fallback, gint64 max,
           guint *out, GError **error)
{
  gint64 v;

  if (!lb_dicom_dataset_get_int (ds, tag, 0, &v))
    {
      if (fallback < 0)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                       "%s (%04X,%04X) is missing or not a number", what, tag >> 16, tag & 0xffff);
          return FALSE;
        }
      v = fallback;
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

gboolean
lb_dicom_pixel_module_read (const LbDicomDataset *ds, LbDicomPixelModule *pm, GError **error)
{
  guint pixrep;

  memset (pm, 0, sizeof *pm);
  if (!read_attr (ds, LB_TAG_ROWS, "Rows", -1, G_MAXUINT16, &pm->rows, error)
      || !read_attr (ds, LB_TAG_COLUMNS, "Columns", -1, G_MAXUINT16, &pm->cols, error)
      || !read_attr (ds, LB_TAG_BITS_ALLOCATED, "BitsAllocated", -1, 64, &pm->bits_alloc, error)
      || !read_attr (ds, LB_TAG_SAMPLES_PER_PIXEL, "SamplesPerPixel", 1, 4, &pm->spp, error)
      || !read_attr (ds, LB_TAG_BITS_STORED, "BitsStored", pm->bits_alloc, 64, &pm->bits_stored,
                     error)
      || !read_attr (ds, LB_TAG_HIGH_BIT, "HighBit", (gint64) pm->bits_stored - 1, 63,
                     &pm->high_bit, error)
      || !read_attr (ds, LB_TAG_PIXEL_REPRESENTATION, "PixelRepresentation", 0, 1, &pixrep,
                     error)
      || !read_attr (ds, LB_TAG_PLANAR_CONFIGURATION, "PlanarConfiguration", 0, 1, &pm->planar,
                     error))
    return FALSE;
  pm->is_signed = pixrep == 1;
  if (pm->rows == 0 || pm->cols == 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT, "the image has %u rows and %u columns",
                   pm->rows, pm->cols);
      return FALSE;
    }
  if (pm->bits_stored == 0 || pm->bits_stored > pm->bits_alloc || pm->high_bit >= pm->bits_alloc
      || pm->high_bit + 1 < pm->bits_stored)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "inconsistent BitsAllocated %u, BitsStored %u, HighBit %u", pm->bits_alloc,
                   pm->bits_stored, pm->high_bit);
      return FALSE;
    }
  return TRUE;
}

/* What the data set says the frame is, checked before any decoder sees a byte. */
static gboolean
describe_frame (const LbDicomDataset *ds, Family family, const LbLimits *limits,
                LbDicomCodecFrame *f, GError **error)
{
  LbDicomPixelModule pm;
  guint64 size;

  memset (f, 0, sizeof *f);
  if (!lb_dicom_pixel_module_read (ds, &pm, error))
    return FALSE;
  f->rows = pm.rows;
  f->cols = pm.cols;
  f->spp = pm.spp;
  f->bits_alloc = pm.bits_alloc;
  f->bits_stored = pm.bits_stored;
  f->is_signed = pm.is_signed;
  if (f->spp != 1 && f->spp != 3)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                   "%u samples per pixel (Lightbox decodes 1 and 3)", f->spp);
      return FALSE;
    }
  if (!(f->bits_alloc == 8 || f->bits_alloc == 16 || (family == FAMILY_RLE && f->bits_alloc == 32)))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                   "%u bits allocated per sample (this syntax is decoded for 8 and 16)",
                   f->bits_alloc);
      return FALSE;
    }
  if (limits == NULL)
    limits = lb_limits_get_default ();
  size = (guint64) f->rows * f->cols * f->spp * (f->bits_alloc / 8);
  if ((guint64) f->rows * f->cols > limits->max_pixels || size > limits->max_bytes
      || size > G_MAXSIZE)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_TOO_LARGE,
                   "a frame of %u×%u pixels, %u samples of %u bits, is over the limits (%"
                   G_GUINT64_FORMAT " pixels, %" G_GUINT64_FORMAT " bytes)", f->cols, f->rows,
                   f->spp, f->bits_alloc, limits->max_pixels, limits->max_bytes);
      return FALSE;
    }
  f->out_len = (gsize) size;
  return TRUE;
}

GBytes *
lb_dicom_decompress_frame (const LbDicomDataset *ds, const char *transfer_syntax,
                           GBytes *fragments, const LbLimits *limits, GError **error)
{
  int ts = find_syntax (transfer_syntax);
  LbDicomCodecFrame f;
  DecodeFunc decode;
  const guint8 *data;
  gsize len;
  guint8 *out;

  g_return_val_if_fail (ds != NULL, NULL);
  g_return_val_if_fail (fragments != NULL, NULL);
  if (ts < 0)
    {
      const char *uid = transfer_syntax ? transfer_syntax : "(none)";
      const char *name = transfer_syntax ? lb_dicom_transfer_syntax_get_name (uid) : uid;

      if (name == uid)   /* a UID PS3.6 does not name */
        g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                     "transfer syntax %s is not a compressed one Lightbox decodes", uid);
      else
        g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                     "transfer syntax %s (%s) is not a compressed one Lightbox decodes", uid,
                     name);
      return NULL;
    }
  if (!describe_frame (ds, syntaxes[ts].family, limits, &f, error))
    goto fail;
  data = g_bytes_get_data (fragments, &len);
  if (len == 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_TRUNCATED, "the frame has no compressed data");
      goto fail;
    }
  out = g_try_malloc0 (f.out_len);   /* nothing of the heap shows even if a decoder skips samples */
  if (out == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_NO_MEMORY,
                   "no memory for a %" G_GSIZE_FORMAT "-byte frame", f.out_len);
      goto fail;
    }
  decode = pick_decoder (syntaxes[ts].family, &f, data, len, error);
  if (decode == NULL || !decode (&f, data, len, out, error))
    {
      g_free (out);
      goto fail;
    }
  return g_bytes_new_take (out, f.out_len);

fail:
  g_prefix_error (error, "%s (%s): ", lb_dicom_transfer_syntax_get_name (syntaxes[ts].uid),
                  syntaxes[ts].uid);
  return NULL;
}

static gboolean
is_native (const char *ts)
{
  return strcmp (ts, LB_DICOM_TS_EXPLICIT_LE) == 0 || strcmp (ts, LB_DICOM_TS_IMPLICIT_LE) == 0
         || strcmp (ts, LB_DICOM_TS_EXPLICIT_BE) == 0;
}

/* A copy of @ds: the elements are shared where they can be (binary values, sequence items). */
static LbDicomDataset *
copy_dataset (const LbDicomDataset *ds)
{
  LbDicomDataset *copy = lb_dicom_dataset_new ();
  guint n;
  g_autofree guint32 *tags = lb_dicom_dataset_get_tags (ds, &n);

  for (guint i = 0; i < n; i++)
    lb_dicom_dataset_copy_element (copy, ds, tags[i]);
  return copy;
}

gboolean
lb_dicom_prepare_frame (const LbDicomDataset *ds, const char *transfer_syntax, GBytes *frame,
                        const LbLimits *limits, LbDicomDataset **out_ds, GBytes **out_frame,
                        const char **out_transfer_syntax, GError **error)
{
  const char *photometric = lb_dicom_dataset_get_string (ds, LB_TAG_PHOTOMETRIC, 0);
  gboolean compressed, colour;
  g_autoptr(GBytes) pixels = NULL;
  LbDicomDataset *copy;

  g_return_val_if_fail (ds != NULL && frame != NULL, FALSE);
  if (transfer_syntax == NULL || *transfer_syntax == '\0')
    transfer_syntax = LB_DICOM_TS_EXPLICIT_LE;
  compressed = !is_native (transfer_syntax);
  colour = lb_dicom_colour_is_convertible (photometric);
  if (!compressed && !colour)
    {
      *out_ds = lb_dicom_dataset_ref ((LbDicomDataset *) ds);
      *out_frame = g_bytes_ref (frame);
      *out_transfer_syntax = transfer_syntax;
      return TRUE;
    }
  pixels = compressed ? lb_dicom_decompress_frame (ds, transfer_syntax, frame, limits, error)
                      : g_bytes_ref (frame);
  if (pixels == NULL)
    return FALSE;
  copy = copy_dataset (ds);
  if (colour)
    {
      guint bits_alloc, bits_stored;
      GBytes *rgb = lb_dicom_colour_to_rgb (ds, photometric, pixels, !compressed,
                                            strcmp (transfer_syntax, LB_DICOM_TS_EXPLICIT_BE) == 0,
                                            limits, &bits_alloc, &bits_stored, error);

      if (rgb == NULL)
        {
          lb_dicom_dataset_unref (copy);
          g_prefix_error (error, "%s: ", photometric);
          return FALSE;
        }
      g_bytes_unref (pixels);
      pixels = rgb;
      lb_dicom_dataset_set_string (copy, LB_TAG_PHOTOMETRIC, "CS", "RGB");
      lb_dicom_dataset_set_uint (copy, LB_TAG_SAMPLES_PER_PIXEL, "US", 3);
      lb_dicom_dataset_set_uint (copy, LB_TAG_BITS_ALLOCATED, "US", bits_alloc);
      lb_dicom_dataset_set_uint (copy, LB_TAG_BITS_STORED, "US", bits_stored);
      lb_dicom_dataset_set_uint (copy, LB_TAG_PIXEL_REPRESENTATION, "US", 0);
    }
  if (compressed || colour)
    {
      gint64 bits_stored = 0;

      /* decompressed and converted frames are interleaved, their values in the low bits */
      lb_dicom_dataset_set_uint (copy, LB_TAG_PLANAR_CONFIGURATION, "US", 0);
      if (lb_dicom_dataset_get_int (copy, LB_TAG_BITS_STORED, 0, &bits_stored) && bits_stored > 0
          && bits_stored <= 64)
        lb_dicom_dataset_set_uint (copy, LB_TAG_HIGH_BIT, "US", (guint32) bits_stored - 1);
    }
  *out_ds = copy;
  *out_frame = g_steal_pointer (&pixels);
  *out_transfer_syntax = LB_DICOM_TS_EXPLICIT_LE;
  return TRUE;
}
