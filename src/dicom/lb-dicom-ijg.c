/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicom-codec"

/* JPEG (ISO/IEC 10918-1) frames through GDCM's build of the IJG library, which decodes the
 * processes DICOM uses: baseline (1), extended 12-bit (2/4) and lossless (14, any selection
 * value) at 8, 12 and 16 bits. Its three variants are separate libraries with prefixed names
 * (libgdcmjpeg8/12/16); meson compiles this file once for each, with LB_IJG_BITS and the
 * include directory of that variant's jpeglib.h.
 *
 * GDCM's own C++ codec classes are not used: on Debian their assert()s are compiled in, and a
 * stream with two stray bytes in its header aborts the process (gdcmJPEGBITSCodec.hxx:386). Here
 * the library's errors and warnings come back as a GError instead. */

#include "lb-dicom-codec-private.h"

#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "lb-error.h"

#include <jpeglib.h>
#include <jerror.h>

#if LB_IJG_BITS == 8
#define LB_IJG_DECODE lb_dicom_ijg8_decode
#elif LB_IJG_BITS == 12
#define LB_IJG_DECODE lb_dicom_ijg12_decode
#elif LB_IJG_BITS == 16
#define LB_IJG_DECODE lb_dicom_ijg16_decode
#else
#error "LB_IJG_BITS must be 8, 12 or 16"
#endif

#if BITS_IN_JSAMPLE != LB_IJG_BITS
#error "the jpeglib.h on the include path is not the variant LB_IJG_BITS names"
#endif

typedef struct {
  struct jpeg_error_mgr pub;
  jmp_buf               jump;
  char                  message[JMSG_LENGTH_MAX];
  gboolean              warned;
} ErrorMgr;

static void
on_error_exit (j_common_ptr cinfo)
{
  ErrorMgr *err = (ErrorMgr *) cinfo->err;

  if (err->message[0] == '\0')
    err->pub.format_message (cinfo, err->message);
  longjmp (err->jump, 1);
}

/* Level −1 is a warning. Those about damaged entropy-coded data (a premature end, a bad
 * Huffman code, a lost restart marker) mean the library would go on and fill the rest of the
 * image with grey or garbage: a viewer must not show that as the patient's image, so they end
 * the decoding as an error. The others describe headers the library reads correctly anyway
 * (SOS parameters a sequential encoder left non-zero, junk bytes before a marker, an unknown
 * JFIF revision), and DCMTK and GDCM decode such files as well. Trace messages (level ≥ 0)
 * are dropped. */
static void
on_emit_message (j_common_ptr cinfo, int level)
{
  ErrorMgr *err = (ErrorMgr *) cinfo->err;
  int code = err->pub.msg_code;

  if (level >= 0 || code == JWRN_NOT_SEQUENTIAL || code == JWRN_EXTRANEOUS_DATA
      || code == JWRN_JFIF_MAJOR || code == JWRN_ADOBE_XFORM)
    return;
  if (err->warned)
    return;
  err->warned = TRUE;
  err->pub.format_message (cinfo, err->message);
  longjmp (err->jump, 1);
}

/* A memory source: the whole frame is there; running past its end is an error (the library's
 * own file source would insert an EOI and warn, which on_emit_message turns into one). */
static void
src_init (j_decompress_ptr cinfo)
{
}

static boolean
src_fill (j_decompress_ptr cinfo)
{
  static const JOCTET eoi[2] = { 0xFF, JPEG_EOI };

  WARNMS (cinfo, JWRN_JPEG_EOF);
  cinfo->src->next_input_byte = eoi;
  cinfo->src->bytes_in_buffer = 2;
  return TRUE;
}

static void
src_skip (j_decompress_ptr cinfo, long n)
{
  struct jpeg_source_mgr *src = cinfo->src;

  if (n <= 0)
    return;
  if ((size_t) n > src->bytes_in_buffer)
    {
      src->next_input_byte += src->bytes_in_buffer;
      src->bytes_in_buffer = 0;
      src_fill (cinfo);
      return;
    }
  src->next_input_byte += n;
  src->bytes_in_buffer -= (size_t) n;
}

static void
src_term (j_decompress_ptr cinfo)
{
}

gboolean
LB_IJG_DECODE (const LbDicomCodecFrame *f, const guint8 *data, gsize len, guint8 *out,
               GError **error)
{
  struct jpeg_decompress_struct cinfo;
  struct jpeg_source_mgr src;
  ErrorMgr err;
  JSAMPARRAY row = NULL;
  /* volatile: read after longjmp */
  volatile gboolean created = FALSE, ok = FALSE;
  volatile int code = LB_ERROR_CORRUPT;

  memset (&cinfo, 0, sizeof cinfo);
  memset (&err, 0, sizeof err);
  cinfo.err = jpeg_std_error (&err.pub);
  err.pub.error_exit = on_error_exit;
  err.pub.emit_message = on_emit_message;
  if (setjmp (err.jump))
    {
      g_set_error (error, LB_ERROR, code, "%s", err.message);
      goto out;
    }
  jpeg_create_decompress (&cinfo);
  created = TRUE;
  src.next_input_byte = data;
  src.bytes_in_buffer = len;
  src.init_source = src_init;
  src.fill_input_buffer = src_fill;
  src.skip_input_data = src_skip;
  src.resync_to_restart = jpeg_resync_to_restart;
  src.term_source = src_term;
  cinfo.src = &src;

  jpeg_read_header (&cinfo, TRUE);
  if (cinfo.image_width != f->cols || cinfo.image_height != f->rows
      || cinfo.num_components != (int) f->spp)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "the JPEG stream holds %u×%u pixels of %d components; the data set says "
                   "%u×%u of %u", cinfo.image_width, cinfo.image_height, cinfo.num_components,
                   f->cols, f->rows, f->spp);
      goto out;
    }
  if (cinfo.data_precision > (int) f->bits_alloc)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "the JPEG stream has %d-bit samples, more than the %u bits allocated",
                   cinfo.data_precision, f->bits_alloc);
      goto out;
    }
  /* No colour conversion: the samples come out as the stream holds them (YCbCr stays YCbCr,
   * upsampled to full resolution), and the Photometric Interpretation says what they are
   * (PS3.5 §8.2.1); lb-dicom-colour.c converts. This is also what keeps an RGB stream without
   * an Adobe marker from being "converted" as if it were YCbCr. */
  cinfo.out_color_space = cinfo.jpeg_color_space;
  /* The accurate integer IDCT, as DCMTK and GDCM use by default: the results then match theirs
   * bit for bit. */
  cinfo.dct_method = JDCT_ISLOW;
  jpeg_start_decompress (&cinfo);
  if (cinfo.output_components != (int) f->spp || cinfo.output_width != f->cols
      || cinfo.output_height != f->rows)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "the JPEG decoder produces %d components of %u×%u pixels, not %u of %u×%u",
                   cinfo.output_components, cinfo.output_width, cinfo.output_height, f->spp,
                   f->cols, f->rows);
      goto out;
    }
  row = cinfo.mem->alloc_sarray ((j_common_ptr) &cinfo, JPOOL_IMAGE,
                                 cinfo.output_width * (JDIMENSION) cinfo.output_components, 1);
  while (cinfo.output_scanline < cinfo.output_height)
    {
      gsize base = (gsize) cinfo.output_scanline * f->cols * f->spp;

      if (jpeg_read_scanlines (&cinfo, row, 1) != 1)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_TRUNCATED,
                       "the JPEG stream ended at row %u of %u", cinfo.output_scanline,
                       cinfo.output_height);
          goto out;
        }
      for (gsize i = 0; i < (gsize) f->cols * f->spp; i++)
        lb_dicom_codec_put (out, base + i, f->bits_alloc, (gint32) row[0][i]);
    }
  jpeg_finish_decompress (&cinfo);
  ok = TRUE;

out:
  if (created)
    jpeg_destroy_decompress (&cinfo);
  return ok;
}
