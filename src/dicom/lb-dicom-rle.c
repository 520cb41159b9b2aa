/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicom-codec"

/* RLE Lossless (1.2.840.10008.1.2.5), PS3.5 Annex G: written here because the standard fits on
 * a page, and the libraries that have it (GDCM, DCMTK) bring a whole toolkit with it. */

#include "lb-dicom-codec-private.h"

#include "lb-error.h"

#define RLE_HEADER_LEN 64  /* PS3.5 §G.5: 16 little-endian 32-bit words */
#define RLE_MAX_SEGMENTS 15

static guint32
read_le32 (const guint8 *p)
{
  return (guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 | (guint32) p[3] << 24;
}

/* PS3.5 §G.3.2: a header byte n in 0..127 copies the next n + 1 bytes; n in −127..−1 repeats
 * the next byte −n + 1 times; −128 does nothing. Writes byte k of the segment to
 * out[k × step], for k below @count. Returns the number of bytes the segment decodes to, up to
 * @count (a longer segment is padding from the encoder: PS3.5 §G.3.1 pads segments to an even
 * length, and some encoders emit one run too many; pydicom accepts both). */
static gsize
unpack_segment (const guint8 *in, gsize in_len, guint8 *out, gsize step, gsize count)
{
  gsize i = 0, k = 0;

  while (i < in_len && k < count)
    {
      gint8 n = (gint8) in[i++];

      if (n >= 0)
        {
          gsize run = (gsize) n + 1;

          if (run > in_len - i)
            run = in_len - i;   /* literal run cut short by the segment's end */
          if (run > count - k)
            run = count - k;
          for (gsize j = 0; j < run; j++)
            out[(k + j) * step] = in[i + j];
          i += (gsize) n + 1;
          k += run;
        }
      else if (n != -128)
        {
          gsize run = (gsize) (1 - n);

          if (i >= in_len)
            break;
          if (run > count - k)
            run = count - k;
          for (gsize j = 0; j < run; j++)
            out[(k + j) * step] = in[i];
          i++;
          k += run;
        }
    }
  return k;
}

gboolean
lb_dicom_rle_decode (const LbDicomCodecFrame *f, const guint8 *data, gsize len, guint8 *out,
                     GError **error)
{
  guint bytes = f->bits_alloc / 8;
  guint n_expected = f->spp * bytes;
  gsize n_pixels = (gsize) f->rows * f->cols;
  guint32 n_segments, offsets[RLE_MAX_SEGMENTS + 1];

  if (f->bits_alloc % 8 != 0 || bytes == 0 || n_expected > RLE_MAX_SEGMENTS)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                   "%u samples of %u bits do not fit in RLE's %u segments", f->spp, f->bits_alloc,
                   RLE_MAX_SEGMENTS);
      return FALSE;
    }
  if (len < RLE_HEADER_LEN)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_TRUNCATED,
                   "the frame has %" G_GSIZE_FORMAT " bytes, shorter than the 64-byte RLE header",
                   len);
      return FALSE;
    }
  n_segments = read_le32 (data);
  if (n_segments != n_expected)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "the RLE header announces %u segments; %u samples of %u bits need %u",
                   n_segments, f->spp, f->bits_alloc, n_expected);
      return FALSE;
    }
  for (guint s = 0; s < n_segments; s++)
    {
      offsets[s] = read_le32 (data + 4 + 4 * s);
      if (offsets[s] < RLE_HEADER_LEN || offsets[s] > len || (s > 0 && offsets[s] < offsets[s - 1]))
        {
          g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                       "RLE segment %u starts at byte %u, outside the frame's %" G_GSIZE_FORMAT
                       " bytes or before the segment ahead of it", s + 1, offsets[s], len);
          return FALSE;
        }
    }
  offsets[n_segments] = (guint32) MIN (len, G_MAXUINT32);

  /* Segment s holds byte (s mod bytes) of sample (s / bytes), most significant byte first
   * (PS3.5 §G.2); the frame we write is little endian and interleaved by pixel. */
  for (guint s = 0; s < n_segments; s++)
    {
      guint sample = s / bytes, byte_in_sample = bytes - 1 - s % bytes;
      gsize got = unpack_segment (data + offsets[s], offsets[s + 1] - offsets[s],
                                  out + (gsize) sample * bytes + byte_in_sample,
                                  (gsize) f->spp * bytes, n_pixels);

      if (got < n_pixels)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_TRUNCATED,
                       "RLE segment %u decodes to %" G_GSIZE_FORMAT " bytes; %u×%u pixels need %"
                       G_GSIZE_FORMAT, s + 1, got, f->cols, f->rows, n_pixels);
          return FALSE;
        }
    }
  return TRUE;
}
