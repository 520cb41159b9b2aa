/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicom-codec"

/* JPEG 2000 lossless and lossy (1.2.840.10008.1.2.4.90/.91) through OpenJPEG. The codestream's
 * geometry is checked against the data set after the header is read and before anything is
 * decoded or copied (GDCM's wrapper copies the decoder's output into a buffer sized from the
 * data set without that check). */

#include "lb-dicom-codec-private.h"

#include <openjpeg.h>
#include <string.h>

#include "lb-error.h"

typedef struct {
  const guint8 *data;
  gsize         len;
  gsize         pos;
  char          message[256];
} Source;

static OPJ_SIZE_T
src_read (void *buffer, OPJ_SIZE_T n, void *user_data)
{
  Source *s = user_data;
  gsize left = s->len - s->pos;

  if (left == 0)
    return (OPJ_SIZE_T) -1;   /* OpenJPEG's end of stream */
  if (n > left)
    n = left;
  memcpy (buffer, s->data + s->pos, n);
  s->pos += n;
  return n;
}

static OPJ_OFF_T
src_skip (OPJ_OFF_T n, void *user_data)
{
  Source *s = user_data;

  if (n < 0)
    n = -(OPJ_OFF_T) MIN ((gsize) -n, s->pos);
  else if ((guint64) n > s->len - s->pos)
    n = (OPJ_OFF_T) (s->len - s->pos);
  s->pos += n;
  return n;
}

static OPJ_BOOL
src_seek (OPJ_OFF_T n, void *user_data)
{
  Source *s = user_data;

  if (n < 0 || (guint64) n > s->len)
    return OPJ_FALSE;
  s->pos = (gsize) n;
  return OPJ_TRUE;
}

/* The first error OpenJPEG reports is the one worth showing; it ends lines with '\n'. */
static void
on_error (const char *msg, void *user_data)
{
  Source *s = user_data;

  if (s->message[0] == '\0')
    {
      g_strlcpy (s->message, msg, sizeof s->message);
      g_strchomp (s->message);
    }
}

static void
on_quiet (const char *msg, void *user_data)
{
}

gboolean
lb_dicom_j2k_decode (const LbDicomCodecFrame *f, const guint8 *data, gsize len, guint8 *out,
                     GError **error)
{
  /* a JP2 file's signature box (ISO/IEC 15444-1 §I.5.1): some writers wrap the codestream */
  static const guint8 jp2_magic[12] = { 0, 0, 0, 0x0C, 'j', 'P', ' ', ' ', 0x0D, 0x0A, 0x87,
                                        0x0A };
  Source src = { data, len, 0, "" };
  opj_dparameters_t params;
  opj_codec_t *codec = NULL;
  opj_stream_t *stream = NULL;
  opj_image_t *image = NULL;
  gsize n_pixels = (gsize) f->rows * f->cols;
  gboolean ok = FALSE;

  /* Fragments are padded to an even length, and OpenJPEG's strict mode can take a padding byte
   * after the end-of-codestream marker for the start of a bad marker: drop what follows EOC
   * (FFD9) in the last few bytes. */
  for (gsize tail = 0; tail < 8 && src.len >= 2 + tail; tail++)
    if (data[src.len - tail - 2] == 0xFF && data[src.len - tail - 1] == 0xD9)
      {
        src.len -= tail;
        break;
      }

  codec = opj_create_decompress (len >= sizeof jp2_magic
                                 && memcmp (data, jp2_magic, sizeof jp2_magic) == 0
                                 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K);
  stream = opj_stream_create (OPJ_J2K_STREAM_CHUNK_SIZE, OPJ_TRUE);
  if (codec == NULL || stream == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_NO_MEMORY, "cannot create a JPEG 2000 decoder");
      goto out;
    }
  opj_stream_set_user_data (stream, &src, NULL);
  opj_stream_set_user_data_length (stream, src.len);
  opj_stream_set_read_function (stream, src_read);
  opj_stream_set_skip_function (stream, src_skip);
  opj_stream_set_seek_function (stream, src_seek);
  opj_set_error_handler (codec, on_error, &src);
  opj_set_warning_handler (codec, on_quiet, &src);
  opj_set_info_handler (codec, on_quiet, &src);
  opj_set_default_decoder_parameters (&params);
  /* Code-blocks decode in parallel: a 512×512 lossless CT frame is the slowest syntax by far
   * (bench/README.md, lightbox-bench dicom), and the output does not depend on the count.
   * Partial codestreams stay errors (OpenJPEG's default strict mode). */
  if (opj_setup_decoder (codec, &params) && n_pixels >= 256 * 256)
    opj_codec_set_threads (codec, (int) MIN (g_get_num_processors (), 8)); /* FALSE: 1 thread */
  if (!opj_read_header (stream, codec, &image))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT, "reading the codestream header: %s",
                   src.message[0] ? src.message : "not a JPEG 2000 codestream");
      goto out;
    }
  if (image->numcomps != f->spp || image->x1 - image->x0 != f->cols
      || image->y1 - image->y0 != f->rows)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "the JPEG 2000 codestream holds %u×%u pixels of %u components; the data set "
                   "says %u×%u of %u", image->x1 - image->x0, image->y1 - image->y0,
                   image->numcomps, f->cols, f->rows, f->spp);
      goto out;
    }
  for (guint c = 0; c < f->spp; c++)
    {
      const opj_image_comp_t *comp = &image->comps[c];

      if (comp->dx != 1 || comp->dy != 1 || comp->prec < 1 || comp->prec > f->bits_alloc)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                       "JPEG 2000 component %u has %u-bit samples subsampled %u×%u; the data "
                       "set allocates %u bits and no subsampling", c, comp->prec, comp->dx,
                       comp->dy, f->bits_alloc);
          goto out;
        }
    }
  if (!opj_decode (codec, stream, image) || !opj_end_decompress (codec, stream))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT, "decoding: %s",
                   src.message[0] ? src.message : "the codestream is damaged");
      goto out;
    }
  /* Decoding may not change the geometry read from the header; check before copying. */
  for (guint c = 0; c < f->spp; c++)
    {
      const opj_image_comp_t *comp = &image->comps[c];

      if (comp->data == NULL || comp->w != f->cols || comp->h != f->rows || comp->factor != 0)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                       "JPEG 2000 component %u decoded to %u×%u pixels, not %u×%u", c, comp->w,
                       comp->h, f->cols, f->rows);
          goto out;
        }
    }
  /* The inverse multi-component transform (the YBR_RCT/YBR_ICT of PS3.5 §A.4.4) is part of
   * decoding, so what comes out is what the encoder was given. */
  for (guint c = 0; c < f->spp; c++)
    {
      const OPJ_INT32 *d = image->comps[c].data;

      for (gsize p = 0; p < n_pixels; p++)
        lb_dicom_codec_put (out, p * f->spp + c, f->bits_alloc, d[p]);
    }
  ok = TRUE;

out:
  if (image)
    opj_image_destroy (image);
  if (stream)
    opj_stream_destroy (stream);
  if (codec)
    opj_destroy_codec (codec);
  return ok;
}
