/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* The decoders behind lb_dicom_decompress_frame(), one file per family. Each gets the frame the
 * data set describes and the compressed bytes of that frame, checks that the stream describes
 * the same image before it decodes anything, and writes exactly @f->out_len bytes to @out:
 * samples of BitsAllocated bits, little endian, interleaved by pixel (PlanarConfiguration 0),
 * in the colour space of the stream (no colour transform applied, except the inverse
 * multi-component transform JPEG 2000 defines inside its codestream). The messages they set
 * say what went wrong; lb-dicom-codec.c puts the transfer syntax in front. */

#include <glib.h>

#include "lb-dicom-dataset.h"

G_BEGIN_DECLS

typedef struct {
  guint rows, cols;
  guint spp;            /* SamplesPerPixel: 1 or 3 */
  guint bits_alloc;     /* 8 or 16 for the compressed families; 8, 16 or 32 for RLE */
  guint bits_stored;
  gboolean is_signed;   /* PixelRepresentation 1 */
  gsize out_len;        /* rows × cols × spp × bits_alloc / 8 */
} LbDicomCodecFrame;

/* The Image Pixel attributes (PS3.3 §C.7.6.3) the decoders and the colour conversions read. */
typedef struct {
  guint rows, cols, spp, bits_alloc, bits_stored, high_bit, planar;
  gboolean is_signed;   /* PixelRepresentation 1 */
} LbDicomPixelModule;

/* Reads them with the standard's defaults (SamplesPerPixel 1, BitsStored = BitsAllocated,
 * HighBit = BitsStored − 1, PixelRepresentation and PlanarConfiguration 0) and checks them:
 * Rows, Columns and BitsAllocated present, no dimension 0, BitsStored and HighBit within
 * BitsAllocated. %LB_ERROR_CORRUPT names the attribute otherwise. */
gboolean lb_dicom_pixel_module_read (const LbDicomDataset *ds, LbDicomPixelModule *pm,
                                     GError **error);

/* PS3.5 Annex G. */
gboolean lb_dicom_rle_decode    (const LbDicomCodecFrame *f, const guint8 *data, gsize len,
                                 guint8 *out, GError **error);
/* ISO/IEC 10918-1 processes 1, 2/4 and 14 through GDCM's build of the IJG library (its 8-, 12-
 * and 16-bit variants are separate libraries: lb-dicom-ijg.c is compiled once for each). */
gboolean lb_dicom_ijg8_decode   (const LbDicomCodecFrame *f, const guint8 *data, gsize len,
                                 guint8 *out, GError **error);
gboolean lb_dicom_ijg12_decode  (const LbDicomCodecFrame *f, const guint8 *data, gsize len,
                                 guint8 *out, GError **error);
gboolean lb_dicom_ijg16_decode  (const LbDicomCodecFrame *f, const guint8 *data, gsize len,
                                 guint8 *out, GError **error);
/* ISO/IEC 14495-1 through CharLS. */
gboolean lb_dicom_jpegls_decode (const LbDicomCodecFrame *f, const guint8 *data, gsize len,
                                 guint8 *out, GError **error);
/* ISO/IEC 15444-1 through OpenJPEG. */
gboolean lb_dicom_j2k_decode    (const LbDicomCodecFrame *f, const guint8 *data, gsize len,
                                 guint8 *out, GError **error);

/* Stores @v as one sample of @bits_alloc bits (8 or 16) at sample index @i of @out, little
 * endian; values are written as their low bits (two's complement for negative ones), as an
 * uncompressed frame holds them. */
static inline void
lb_dicom_codec_put (guint8 *out, gsize i, guint bits_alloc, gint32 v)
{
  if (bits_alloc == 8)
    out[i] = (guint8) v;
  else
    {
      out[2 * i] = (guint8) v;
      out[2 * i + 1] = (guint8) ((guint32) v >> 8);
    }
}

G_END_DECLS
