/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer harness: the codecs of the compressed transfer syntaxes and the colour models, fed
 * through lb_dicom_decode_frame() as a DICOMweb frame or a file's fragments would be.
 *
 * Input: byte 0 picks the transfer syntax (low nibble, modulo the 11 below: the nine
 * compressed ones, Explicit VR Little and Big Endian) and the pixel description (high nibble,
 * modulo 4: 16×16 grey 12-in-16 bits, 16×16 colour 8 bits as RGB, as YBR_FULL_422 or as
 * YBR_FULL/YBR_RCT, 16×16 PALETTE COLOR 8 bits); for the palette, bytes 1–2 give the length
 * of a table that follows (used for all three channels: as segmented data with 8-bit entries
 * when byte 1's top bit is set, else as plain data of 8-bit entries when its next bit is set,
 * else of 16-bit ones). The rest is the frame. Seeds (corpus/dicom-codec) are real frames of
 * each syntax at these sizes, made by tests/fuzz/make-codec-seeds.py. */
#include <string.h>

#include "lb-dicom-frame.h"
#include "lb-dicom-codec.h"
#include "lb-dicom-tags.h"
#include "lb-error.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static const char *const syntaxes[] = {
  LB_DICOM_TS_JPEG_BASELINE, LB_DICOM_TS_JPEG_EXTENDED, LB_DICOM_TS_JPEG_LOSSLESS,
  LB_DICOM_TS_JPEG_LOSSLESS_SV1, LB_DICOM_TS_JPEG_LS_LOSSLESS, LB_DICOM_TS_JPEG_LS_NEAR,
  LB_DICOM_TS_J2K_LOSSLESS, LB_DICOM_TS_J2K, LB_DICOM_TS_RLE, LB_DICOM_TS_EXPLICIT_LE,
  LB_DICOM_TS_EXPLICIT_BE,
};

static LbDicomDataset *
describe (guint variant, guint syntax)
{
  LbDicomDataset *md = lb_dicom_dataset_new ();
  gboolean grey = variant == 0 || variant == 3;

  lb_dicom_dataset_set_uint (md, LB_TAG_ROWS, "US", 16);
  lb_dicom_dataset_set_uint (md, LB_TAG_COLUMNS, "US", 16);
  lb_dicom_dataset_set_uint (md, LB_TAG_SAMPLES_PER_PIXEL, "US", grey ? 1 : 3);
  lb_dicom_dataset_set_uint (md, LB_TAG_BITS_ALLOCATED, "US", variant == 0 ? 16 : 8);
  lb_dicom_dataset_set_uint (md, LB_TAG_BITS_STORED, "US", variant == 0 ? 12 : 8);
  lb_dicom_dataset_set_uint (md, LB_TAG_HIGH_BIT, "US", variant == 0 ? 11 : 7);
  lb_dicom_dataset_set_uint (md, LB_TAG_PIXEL_REPRESENTATION, "US", 0);
  if (!grey)
    lb_dicom_dataset_set_uint (md, LB_TAG_PLANAR_CONFIGURATION, "US", syntax % 2);
  lb_dicom_dataset_set_string (md, LB_TAG_PHOTOMETRIC, "CS",
                               variant == 0 ? "MONOCHROME2"
                               : variant == 1 ? (syntax % 3 == 0 ? "YBR_FULL_422" : "RGB")
                               : variant == 2 ? (syntax >= 6 && syntax <= 7 ? "YBR_RCT"
                                                 : "YBR_FULL")
                               : "PALETTE COLOR");
  return md;
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  static const LbLimits limits = { 4096, 1 << 20 };
  g_autoptr(LbDicomDataset) md = NULL;
  g_autoptr(GBytes) frame = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(LbImage) img = NULL;
  guint syntax, variant;

  if (size < 1)
    return 0;
  syntax = (data[0] & 0x0f) % G_N_ELEMENTS (syntaxes);
  /* LB_FUZZ_SYNTAX=N keeps one syntax under test, whatever byte 0 becomes */
  if (g_getenv ("LB_FUZZ_SYNTAX") != NULL)
    syntax = (guint) g_ascii_strtoull (g_getenv ("LB_FUZZ_SYNTAX"), NULL, 10)
             % G_N_ELEMENTS (syntaxes);
  variant = (data[0] >> 4) % 4;
  md = describe (variant, syntax);
  data++;
  size--;
  if (variant == 3)
    {
      gsize lut_len;
      g_autoptr(GBytes) lut = NULL;
      g_autofree char *desc = NULL;
      gboolean segmented;

      if (size < 2)
        return 0;
      segmented = (data[0] & 0x80) != 0;
      lut_len = ((gsize) (data[0] & 0x7f) << 8 | data[1]);
      if (lut_len > size - 2)
        return 0;
      lut = g_bytes_new (data + 2, lut_len);
      /* the descriptor fits the table: 8-bit entries when byte 1 says so, else 16-bit */
      desc = segmented ? g_strdup ("256\\0\\8")
             : (data[0] & 0x40) ? g_strdup_printf ("%u\\0\\8", (guint) MAX (lut_len, 1))
             : g_strdup_printf ("%u\\0\\16", (guint) MAX (lut_len / 2, 1));
      for (guint c = 0; c < 3; c++)
        {
          lb_dicom_dataset_set_string (md, LB_TAG_RED_PALETTE_DESCRIPTOR + c, "US", desc);
          lb_dicom_dataset_set_bytes (md, (segmented ? LB_TAG_SEGMENTED_RED_PALETTE_DATA
                                           : LB_TAG_RED_PALETTE_DATA) + c, "OW", lut);
        }
      data += 2 + lut_len;
      size -= 2 + lut_len;
    }
  frame = g_bytes_new (data, size);
  img = lb_dicom_decode_frame (md, syntaxes[syntax], frame, "fuzz", &limits, &error);
  g_assert ((img == NULL) != (error == NULL));
  if (img != NULL)
    {
      g_assert (lb_image_get_width (img) == 16 && lb_image_get_height (img) == 16);
    }
  else
    g_assert (error->domain == LB_ERROR && g_str_has_prefix (error->message, "fuzz: "));
  return 0;
}
