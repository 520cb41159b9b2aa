/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicom-file"

/* The pixel side of LbDicomFile: the Image Pixel module checked before anything is allocated,
 * fragments assigned to frames, frames handed out and decoded. */

#include "lb-dicom-file-private.h"

#include <string.h>

#include "lb-dicom-codec.h"
#include "lb-dicom-frame.h"
#include "lb-dicom-multiframe.h"
#include "lb-dicom-tags.h"
#include "lb-error.h"

/* ---- the Image Pixel module (PS3.3 C.7.6.3) ------------------------------------------------- */

/* A required unsigned attribute; its name and value in any error. */
static gboolean
get_uint (LbDicomFile *self, guint32 tag, const char *keyword, gboolean required, guint fallback,
          guint max, guint *out, GError **error)
{
  gint64 v;

  if (!lb_dicom_dataset_has (self->dataset, tag)
      || lb_dicom_dataset_get_string (self->dataset, tag, 0) == NULL)
    {
      if (required)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT, "%s: %s " LB_DICOM_TAG_FORMAT
                       " is missing", self->name, keyword, LB_DICOM_TAG_ARGS (tag));
          return FALSE;
        }
      *out = fallback;
      return TRUE;
    }
  if (!lb_dicom_dataset_get_int (self->dataset, tag, 0, &v))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT, "%s: %s \"%s\" is not a number",
                   self->name, keyword, lb_dicom_dataset_get_string (self->dataset, tag, 0));
      return FALSE;
    }
  if (v < 0 || (guint64) v > max)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT, "%s: %s %" G_GINT64_FORMAT
                   " is out of range (0 to %u)", self->name, keyword, v, max);
      return FALSE;
    }
  *out = (guint) v;
  return TRUE;
}

static gboolean map_fragments (LbDicomFile *self, GError **error);

gboolean
_lb_dicom_file_check_image_pixel (LbDicomFile *self, const LbLimits *limits, GError **error)
{
  guint rows, cols, spp, alloc, stored, high, frames;
  LbSampleFormat format;
  guint64 needed_bits;
  g_autoptr(GError) local = NULL;

  if (!get_uint (self, LB_TAG_ROWS, "Rows", TRUE, 0, G_MAXUINT16, &rows, error)
      || !get_uint (self, LB_TAG_COLUMNS, "Columns", TRUE, 0, G_MAXUINT16, &cols, error)
      || !get_uint (self, LB_TAG_BITS_ALLOCATED, "BitsAllocated", TRUE, 0, 64, &alloc, error)
      || !get_uint (self, LB_TAG_SAMPLES_PER_PIXEL, "SamplesPerPixel", FALSE, 1, 4, &spp, error)
      || !get_uint (self, LB_TAG_BITS_STORED, "BitsStored", FALSE, alloc, G_MAXUINT16, &stored,
                    error)
      || !get_uint (self, LB_TAG_NUMBER_OF_FRAMES, "NumberOfFrames", FALSE, 1, G_MAXINT32,
                    &frames, error))
    return FALSE;
  if (rows == 0 || cols == 0 || spp == 0 || frames == 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "%s: Rows %u, Columns %u, SamplesPerPixel %u, NumberOfFrames %u: none may be 0",
                   self->name, rows, cols, spp, frames);
      return FALSE;
    }
  if (alloc != 1 && (alloc == 0 || alloc % 8 != 0))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                   "%s: BitsAllocated %u is neither 1 nor a multiple of 8 (PS3.5 §8.1.1)",
                   self->name, alloc);
      return FALSE;
    }
  if (stored == 0 || stored > alloc)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "%s: BitsStored %u is %s BitsAllocated %u", self->name, stored,
                   stored == 0 ? "0, below" : "greater than", alloc);
      return FALSE;
    }
  if (!get_uint (self, LB_TAG_HIGH_BIT, "HighBit", FALSE, stored - 1, G_MAXUINT16, &high, error))
    return FALSE;
  if (high >= alloc || high + 1 < stored)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "%s: HighBit %u does not fit BitsStored %u in BitsAllocated %u", self->name,
                   high, stored, alloc);
      return FALSE;
    }

  /* the decoded frame's size, against the limits, before anything is allocated */
  format = spp == 1 ? (alloc <= 8 ? LB_FORMAT_GRAY8 : LB_FORMAT_GRAY16)
                    : (alloc <= 8 ? LB_FORMAT_RGB8 : LB_FORMAT_RGB16);
  if (!lb_limits_check (limits, cols, rows, format, NULL, NULL, &local))
    {
      g_set_error (error, LB_ERROR, local->code, "%s: Rows %u × Columns %u: %s", self->name,
                   rows, cols, local->message);
      return FALSE;
    }
  self->n_frames = frames;
  self->bits_allocated = alloc;
  self->frame_bits = (guint64) rows * cols * spp * alloc;
  {
    const char *pi = lb_dicom_dataset_get_string (self->dataset, LB_TAG_PHOTOMETRIC, 0);

    /* native YBR_FULL_422 (PS3.3 C.7.6.3.1.2): two luminance samples share one pair of
     * chrominance samples, so a pixel takes two samples, not three */
    if (spp == 3 && pi != NULL && g_str_has_suffix (pi, "_422")
        && !(self->ts_flags & LB_DICOM_TS_ENCAPSULATED))
      {
        if (cols % 2 != 0)
          {
            g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                         "%s: %s needs an even number of Columns, not %u", self->name, pi, cols);
            return FALSE;
          }
        self->frame_bits = (guint64) rows * cols * 2 * alloc;
      }
  }

  if (self->ts_flags & LB_DICOM_TS_ENCAPSULATED)
    {
      if (self->fragments == NULL)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                       "%s: PixelData has a defined length of %" G_GSIZE_FORMAT " bytes, but "
                       "transfer syntax %s encapsulates it in fragments", self->name,
                       self->pixel.length, self->transfer_syntax);
          return FALSE;
        }
      return map_fragments (self, error);
    }
  if (self->fragments != NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "%s: PixelData is encapsulated, but transfer syntax %s (%s) is not",
                   self->name, self->transfer_syntax,
                   lb_dicom_transfer_syntax_get_name (self->transfer_syntax));
      return FALSE;
    }
  if (!g_uint64_checked_mul (&needed_bits, self->frame_bits, frames)
      || (needed_bits + 7) / 8 > self->pixel.length)
    {
      GString *what = g_string_new (NULL);

      g_string_printf (what, "%u×%u×%u frames of ", cols, rows, frames);
      if (spp > 1)
        g_string_append_printf (what, "%u samples of ", spp);
      g_string_append_printf (what, "%u bits", alloc);
      if (needed_bits / frames == self->frame_bits) /* no overflow */
        g_set_error (error, LB_ERROR, LB_ERROR_TRUNCATED,
                     "%s: PixelData has %" G_GSIZE_FORMAT " bytes, %s need %" G_GUINT64_FORMAT,
                     self->name, self->pixel.length, what->str, (needed_bits + 7) / 8);
      else
        g_set_error (error, LB_ERROR, LB_ERROR_TOO_LARGE,
                     "%s: PixelData has %" G_GSIZE_FORMAT " bytes, %s cannot be", self->name,
                     self->pixel.length, what->str);
      g_string_free (what, TRUE);
      return FALSE;
    }
  return TRUE;
}

/* ---- fragments → frames (PS3.5 §A.4) -------------------------------------------------------- */

#define FRAGMENT(self, i) (&g_array_index ((self)->fragments, LbDicomSpan, (i)))

/* Offset of fragment @i's item tag from the first fragment's, as offset tables count. */
static guint64
fragment_offset (LbDicomFile *self, guint i)
{
  return FRAGMENT (self, i)->offset - FRAGMENT (self, 1)->offset;
}

/* Frame starts from offset table entries: each must be the offset of a fragment's item tag,
 * the first 0, increasing. */
static gboolean
frames_from_offsets (LbDicomFile *self, const guint64 *offsets, guint n, const char *table,
                     GError **error)
{
  guint n_fragments = self->fragments->len;
  guint k = 1;

  if (n != self->n_frames)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "%s: the %s has %u entries for NumberOfFrames %u", self->name, table, n,
                   self->n_frames);
      return FALSE;
    }
  g_array_set_size (self->frame_first, 0);
  for (guint f = 0; f < n; f++)
    {
      while (k < n_fragments && fragment_offset (self, k) < offsets[f])
        k++;
      if (k >= n_fragments || fragment_offset (self, k) != offsets[f]
          || (f == 0 && offsets[f] != 0)
          || (f > 0 && offsets[f] <= offsets[f - 1]))
        {
          g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                       "%s: %s entry %u (offset %" G_GUINT64_FORMAT ") is not the start of a "
                       "fragment", self->name, table, f, offsets[f]);
          return FALSE;
        }
      g_array_append_val (self->frame_first, k);
    }
  g_array_append_val (self->frame_first, n_fragments);
  return TRUE;
}

/* TRUE when fragment @i begins a codestream: a JPEG or JPEG-LS SOI marker, a JPEG 2000
 * codestream (SOC SIZ) or JP2 signature box. */
static gboolean
starts_frame (LbDicomFile *self, guint i)
{
  const LbDicomSpan *s = FRAGMENT (self, i);
  const guint8 *d = (const guint8 *) g_bytes_get_data (self->data, NULL) + s->offset;

  if (s->length >= 4 && d[0] == 0xFF && d[1] == 0x4F && d[2] == 0xFF && d[3] == 0x51)
    return TRUE;
  if (s->length >= 12 && memcmp (d, "\0\0\0\x0cjP  \r\n\x87\n", 12) == 0)
    return TRUE;
  return s->length >= 2 && d[0] == 0xFF && d[1] == 0xD8;
}

static gboolean
map_fragments (LbDicomFile *self, GError **error)
{
  guint n_fragments = self->fragments->len; /* with the offset table */
  const LbDicomSpan *bot = FRAGMENT (self, 0);
  GBytes *eot = lb_dicom_dataset_get_bytes (self->dataset, LB_TAG_EXTENDED_OFFSET_TABLE);
  const guint8 *data = g_bytes_get_data (self->data, NULL);
  g_autoptr(GError) table_error = NULL;
  g_autoptr(GArray) starts = NULL;

  self->frame_first = g_array_new (FALSE, FALSE, sizeof (guint));
  if (n_fragments < 2)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT, "%s: PixelData holds no fragments",
                   self->name);
      return FALSE;
    }
  if (self->n_frames > n_fragments - 1 && bot->length == 0 && eot == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "%s: NumberOfFrames %u, but PixelData holds %u fragments", self->name,
                   self->n_frames, n_fragments - 1);
      return FALSE;
    }
  if (self->n_frames == 1)
    {
      guint one = 1;

      g_array_append_val (self->frame_first, one);
      g_array_append_val (self->frame_first, n_fragments);
      return TRUE;
    }

  /* an offset table says where each frame starts: the Extended one (PS3.3 C.7.6.3.1.8, 64-bit
   * offsets), else the Basic one (32-bit) when it is not empty */
  if (eot != NULL)
    {
      gsize len;
      const guint8 *e = g_bytes_get_data (eot, &len);
      g_autofree guint64 *offsets = NULL;

      if (len % 8 == 0 && len / 8 == self->n_frames)
        {
          offsets = g_new (guint64, self->n_frames);
          for (guint f = 0; f < self->n_frames; f++)
            {
              offsets[f] = 0;
              for (int b = 7; b >= 0; b--)
                offsets[f] = offsets[f] << 8 | e[f * 8 + b];
            }
          if (frames_from_offsets (self, offsets, self->n_frames, "ExtendedOffsetTable",
                                   &table_error))
            return TRUE;
        }
      else
        table_error = g_error_new (LB_ERROR, LB_ERROR_CORRUPT,
                                   "%s: ExtendedOffsetTable has %" G_GSIZE_FORMAT " bytes for "
                                   "NumberOfFrames %u", self->name, len, self->n_frames);
    }
  else if (bot->length > 0)
    {
      g_autofree guint64 *offsets = NULL;
      guint n = (guint) (bot->length / 4);

      if (bot->length % 4 == 0 && n == self->n_frames)
        {
          offsets = g_new (guint64, n);
          for (guint f = 0; f < n; f++)
            {
              const guint8 *o = data + bot->offset + 4 * f;

              offsets[f] = (guint32) o[3] << 24 | (guint32) o[2] << 16 | (guint32) o[1] << 8 | o[0];
            }
          if (frames_from_offsets (self, offsets, n, "Basic Offset Table", &table_error))
            return TRUE;
        }
      else
        table_error = g_error_new (LB_ERROR, LB_ERROR_CORRUPT,
                                   "%s: the Basic Offset Table has %" G_GSIZE_FORMAT " bytes for "
                                   "NumberOfFrames %u", self->name, bot->length, self->n_frames);
    }

  /* no (usable) table: one fragment per frame, or the frames' start markers */
  g_array_set_size (self->frame_first, 0);
  if (n_fragments - 1 == self->n_frames)
    {
      for (guint i = 1; i <= n_fragments; i++)
        g_array_append_val (self->frame_first, i);
      return TRUE;
    }
  starts = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 1; i < n_fragments; i++)
    if (starts_frame (self, i))
      g_array_append_val (starts, i);
  if (starts->len == self->n_frames && g_array_index (starts, guint, 0) == 1)
    {
      g_array_append_vals (self->frame_first, starts->data, starts->len);
      g_array_append_val (self->frame_first, n_fragments);
      return TRUE;
    }
  if (table_error != NULL)
    g_propagate_error (error, g_steal_pointer (&table_error));
  else
    g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                 "%s: PixelData holds %u fragments for NumberOfFrames %u, with no offset table "
                 "to say which belong to which frame", self->name, n_fragments - 1,
                 self->n_frames);
  return FALSE;
}

/* ---- frames ---------------------------------------------------------------------------------- */

gboolean
lb_dicom_file_check_pixels (LbDicomFile *self, GError **error)
{
  g_return_val_if_fail (LB_IS_DICOM_FILE (self), FALSE);
  if (!self->has_pixels)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_NOT_FOUND, "%s has no pixel data", self->name);
      return FALSE;
    }
  if (self->pixel_error != NULL)
    {
      g_propagate_error (error, g_error_copy (self->pixel_error));
      return FALSE;
    }
  return TRUE;
}

gboolean
lb_dicom_file_is_encapsulated (LbDicomFile *self)
{
  g_return_val_if_fail (LB_IS_DICOM_FILE (self), FALSE);
  return self->has_pixels && self->fragments != NULL;
}

guint
lb_dicom_file_get_n_frames (LbDicomFile *self)
{
  g_return_val_if_fail (LB_IS_DICOM_FILE (self), 0);
  return self->has_pixels ? self->n_frames : 0;
}

GBytes *
lb_dicom_file_dup_frame (LbDicomFile *self, guint index, GError **error)
{
  g_return_val_if_fail (LB_IS_DICOM_FILE (self), NULL);
  if (!self->has_pixels)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_NOT_FOUND, "%s has no pixel data", self->name);
      return NULL;
    }
  if (self->pixel_error != NULL)
    {
      g_propagate_error (error, g_error_copy (self->pixel_error));
      return NULL;
    }
  if (index >= self->n_frames)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "%s: no frame %u (it has %u frames)", self->name, index + 1, self->n_frames);
      return NULL;
    }
  if (self->fragments != NULL)
    {
      guint first = g_array_index (self->frame_first, guint, index);
      guint last = g_array_index (self->frame_first, guint, index + 1);
      const guint8 *d = g_bytes_get_data (self->data, NULL);
      GByteArray *cat;

      if (last == first + 1)
        return g_bytes_new_from_bytes (self->data, FRAGMENT (self, first)->offset,
                                       FRAGMENT (self, first)->length);
      cat = g_byte_array_new ();
      for (guint i = first; i < last; i++)
        g_byte_array_append (cat, d + FRAGMENT (self, i)->offset,
                             (guint) FRAGMENT (self, i)->length);
      return g_byte_array_free_to_bytes (cat);
    }
  {
    guint64 bit = self->frame_bits * index;
    gsize nbytes = (gsize) ((self->frame_bits + 7) / 8);
    gsize start = self->pixel.offset + (gsize) (bit / 8);
    guint shift = bit % 8;
    const guint8 *d = g_bytes_get_data (self->data, NULL);
    guint8 *out;

    if (shift == 0 && self->bits_allocated == 8 && strcmp (self->pixel_vr, "OW") == 0
        && (self->ts_flags & LB_DICOM_TS_BIG_ENDIAN))
      {
        /* 8-bit samples in OW words, big endian (PS3.5 §A.3): each word's bytes are swapped
         * on disk; put the samples back in order */
        gsize base = self->pixel.offset, stop = base + self->pixel.length;

        out = g_malloc (nbytes);
        for (gsize i = 0; i < nbytes; i++)
          {
            gsize from = base + ((start + i - base) ^ 1);

            out[i] = from < stop ? d[from] : 0;
          }
        return g_bytes_new_take (out, nbytes);
      }
    if (shift == 0)
      return g_bytes_new_from_bytes (self->data, start, nbytes);
    /* 1-bit frames are packed without padding (PS3.5 §8.1.1, first pixel in the least
     * significant bit): a frame that starts inside a byte is shifted down into a copy */
    out = g_malloc (nbytes);
    for (gsize i = 0; i < nbytes; i++)
      {
        guint v = d[start + i] >> shift;

        if (start + i + 1 < self->pixel.offset + self->pixel.length)
          v |= (guint) d[start + i + 1] << (8 - shift);
        out[i] = (guint8) v;
      }
    return g_bytes_new_take (out, nbytes);
  }
}

LbImage *
lb_dicom_file_decode_frame (LbDicomFile *self, guint index, const LbLimits *limits,
                            GError **error)
{
  g_autoptr(GBytes) frame = NULL;
  const char *ts;

  g_return_val_if_fail (LB_IS_DICOM_FILE (self), NULL);
  if (!self->has_pixels)
    {
      const char *sop = lb_dicom_dataset_get_string (self->dataset, LB_TAG_SOP_CLASS_UID, 0);

      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                   "%s: no image: the object (SOP class %s) has no PixelData", self->name,
                   sop ? sop : "not given");
      return NULL;
    }
  frame = lb_dicom_file_dup_frame (self, index, error);
  if (frame == NULL)
    return NULL;
  /* A compressed frame goes to lb_dicom_decode_frame() in its own transfer syntax: it is
   * decompressed there (lb_dicom_prepare_frame()), and the value model learns whether that
   * syntax was lossy. Native frames are little endian except in Explicit VR Big Endian
   * (deflate applies to the data set as a whole, not to the frame's bytes). */
  if ((self->ts_flags & LB_DICOM_TS_ENCAPSULATED)
      && !(self->ts_flags & LB_DICOM_TS_NATIVE_FRAGMENTS))
    ts = self->transfer_syntax;
  else if (self->ts_flags & LB_DICOM_TS_BIG_ENDIAN)
    ts = LB_DICOM_TS_EXPLICIT_BE;
  else
    ts = LB_DICOM_TS_EXPLICIT_LE;
  return lb_dicom_decode_frame_number (self->dataset, ts, frame, index + 1, self->name, limits,
                                       error);
}

