/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicom-codec"

/* JPEG-LS lossless and near-lossless (1.2.840.10008.1.2.4.80/.81) through CharLS's C API. */

#include "lb-dicom-codec-private.h"

#include <charls/charls.h>
#include <string.h>

#include "lb-error.h"

static gboolean
check (charls_jpegls_errc rc, const char *what, GError **error)
{
  if (rc == CHARLS_JPEGLS_ERRC_SUCCESS)
    return TRUE;
  g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT, "%s: %s", what, charls_get_error_message (rc));
  return FALSE;
}

gboolean
lb_dicom_jpegls_decode (const LbDicomCodecFrame *f, const guint8 *data, gsize len, guint8 *out,
                        GError **error)
{
  charls_jpegls_decoder *dec = charls_jpegls_decoder_create ();
  charls_frame_info info;
  charls_interleave_mode ilv;
  size_t size = 0;
  guint in_bytes;
  gsize n_pixels = (gsize) f->rows * f->cols;
  gboolean direct, eoi = FALSE, ok = FALSE;
  guint8 *buf = NULL;

  if (dec == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_NO_MEMORY, "cannot create a JPEG-LS decoder");
      return FALSE;
    }
  /* A stream ends with EOI (FFD9), then at most the fragment's padding (PS3.5 §A.4: fragments
   * have an even length; DCMTK 3.6.7's dcmcjpls pads with an uninitialised byte). CharLS 2.4
   * takes seconds to give up on a stream cut short (7.5 s for a 64×64 frame: it decodes on
   * through zero bits), so that case fails here, at once. */
  for (gsize tail = 0; tail < 4 && len >= 2 + tail; tail++)
    if (data[len - tail - 2] == 0xFF && data[len - tail - 1] == 0xD9)
      {
        eoi = TRUE;
        len -= tail;
        break;
      }
  if (!eoi)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_TRUNCATED,
                   "the JPEG-LS stream does not end with an EOI marker: it was cut short");
      goto out;
    }
  if (!check (charls_jpegls_decoder_set_source_buffer (dec, data, len), "reading the stream", error)
      || !check (charls_jpegls_decoder_read_header (dec), "reading the header", error)
      || !check (charls_jpegls_decoder_get_frame_info (dec, &info), "reading the header", error)
      || !check (charls_jpegls_decoder_get_interleave_mode (dec, &ilv), "reading the header",
                 error))
    goto out;
  if (info.width != f->cols || info.height != f->rows || info.component_count != (int32_t) f->spp)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "the JPEG-LS stream holds %u×%u pixels of %d components; the data set says "
                   "%u×%u of %u", info.width, info.height, info.component_count, f->cols, f->rows,
                   f->spp);
      goto out;
    }
  if (info.bits_per_sample < 2 || info.bits_per_sample > (int32_t) f->bits_alloc)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "the JPEG-LS stream has %d-bit samples; %u bits are allocated",
                   info.bits_per_sample, f->bits_alloc);
      goto out;
    }
  /* CharLS writes bytes for up to 8 bits a sample and host-order 16-bit words above; by
   * component planes when the scan is not interleaved, by pixel otherwise. */
  in_bytes = info.bits_per_sample > 8 ? 2 : 1;
  if (!check (charls_jpegls_decoder_get_destination_size (dec, 0, &size), "sizing the frame",
              error))
    goto out;
  if (size != n_pixels * f->spp * in_bytes)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT, "the JPEG-LS decoder wants %" G_GSIZE_FORMAT
                   " bytes for the frame, not %" G_GSIZE_FORMAT, (gsize) size,
                   n_pixels * f->spp * in_bytes);
      goto out;
    }
  direct = in_bytes * 8 == f->bits_alloc && (f->spp == 1 || ilv != CHARLS_INTERLEAVE_MODE_NONE)
           && G_BYTE_ORDER == G_LITTLE_ENDIAN;
  if (!direct)
    {
      buf = g_try_malloc (size);
      if (buf == NULL)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_NO_MEMORY, "no memory for a %" G_GSIZE_FORMAT
                       "-byte frame", (gsize) size);
          goto out;
        }
    }
  if (!check (charls_jpegls_decoder_decode_to_buffer (dec, direct ? out : buf, size, 0),
              "decoding", error))
    goto out;
  if (!direct)
    {
      gboolean planar = f->spp > 1 && ilv == CHARLS_INTERLEAVE_MODE_NONE;

      for (gsize p = 0; p < n_pixels; p++)
        for (guint c = 0; c < f->spp; c++)
          {
            gsize src = planar ? c * n_pixels + p : p * f->spp + c;
            gint32 v = in_bytes == 1 ? buf[src] : ((const guint16 *) buf)[src];

            lb_dicom_codec_put (out, p * f->spp + c, f->bits_alloc, v);
          }
    }
  ok = TRUE;

out:
  g_free (buf);
  charls_jpegls_decoder_destroy (dec);
  return ok;
}
