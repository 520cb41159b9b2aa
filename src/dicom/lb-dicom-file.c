/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicom-file"

#include "lb-dicom-file-private.h"

#include <string.h>

#include "lb-dicom-frame.h"
#include "lb-dicom-tags.h"
#include "lb-error.h"
#include "lb-image-loader.h"

#define PREAMBLE_LENGTH 128

/* lb_dicom_file_read_header(): the first read, and the most it reads before giving up on
 * finding the end of the Image Pixel module (an Enhanced multi-frame header can be megabytes). */
#define HEADER_PREFIX (16 * 1024)
#define HEADER_PREFIX_MAX (16 * 1024 * 1024)

G_DEFINE_FINAL_TYPE (LbDicomFile, lb_dicom_file, G_TYPE_OBJECT)

static void
lb_dicom_file_finalize (GObject *object)
{
  LbDicomFile *self = LB_DICOM_FILE (object);

  g_free (self->name);
  g_clear_pointer (&self->data, g_bytes_unref);
  g_clear_pointer (&self->meta, lb_dicom_dataset_unref);
  g_clear_pointer (&self->dataset, lb_dicom_dataset_unref);
  g_free (self->transfer_syntax);
  g_clear_pointer (&self->fragments, g_array_unref);
  g_clear_pointer (&self->frame_first, g_array_unref);
  g_clear_error (&self->pixel_error);
  g_clear_pointer (&self->item_offsets, g_array_unref);
  G_OBJECT_CLASS (lb_dicom_file_parent_class)->finalize (object);
}

static void
lb_dicom_file_class_init (LbDicomFileClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = lb_dicom_file_finalize;
}

static void
lb_dicom_file_init (LbDicomFile *self)
{
}

/* ---- recognising the layout (PS3.10 §7.1) --------------------------------------------------- */

static gboolean
is_known_vr (const guint8 *d)
{
  static const char vrs[] =
    "AEASATCSDADSDTFDFLISLOLTOBODOFOLOVOWPNSHSLSQSSSTSVTMUCUIULUNURUSUTUV";

  for (const char *v = vrs; *v; v += 2)
    if (d[0] == (guint8) v[0] && d[1] == (guint8) v[1])
      return TRUE;
  return FALSE;
}

/* The encoding of a data set from its first element: a VR after the tag, or a 4-byte length.
 * With @strict (no file meta information says this is DICOM at all) the tag must be of group
 * 0008, which every Composite IOD starts with (PS3.3 C.12.1), read little or big endian.
 * NULL when it is neither. */
static const char *
guess_transfer_syntax (const guint8 *d, gsize len, gboolean strict)
{
  guint16 group_le, group_be;

  if (len < 8)
    return NULL;
  group_le = d[0] | d[1] << 8;
  group_be = d[0] << 8 | d[1];
  if (group_le == 0x0008 || (!strict && group_le <= group_be))
    return is_known_vr (d + 4) ? LB_DICOM_TS_EXPLICIT_LE : LB_DICOM_TS_IMPLICIT_LE;
  /* Implicit VR Big Endian never existed; Explicit VR Big Endian did */
  if ((group_be == 0x0008 || !strict) && is_known_vr (d + 4))
    return LB_DICOM_TS_EXPLICIT_BE;
  return NULL;
}

static gboolean
starts_with_meta (const guint8 *d, gsize len)
{
  return len >= 8 && d[0] == 0x02 && d[1] == 0x00 && d[2] <= 0x20 && d[3] == 0x00
         && (is_known_vr (d + 4) || (d[4] | d[5] << 8) <= 0x100);
}

/* Formats GdkPixbuf reads: a file with one of their signatures is not claimed by name. */
static gboolean
has_image_signature (const guint8 *d, gsize len)
{
  static const struct { const char *magic; gsize n; } sigs[] = {
    { "\xff\xd8\xff", 3 }, { "GIF8", 4 }, { "BM", 2 }, { "II*\0", 4 }, { "MM\0*", 4 },
    { "\x89PNG", 4 }, { "RIFF", 4 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (sigs); i++)
    if (len >= sigs[i].n && memcmp (d, sigs[i].magic, sigs[i].n) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
name_says_dicom (const char *name)
{
  g_autofree char *lower = NULL;
  g_autofree char *base = NULL;

  if (name == NULL)
    return FALSE;
  base = g_path_get_basename (name);
  lower = g_ascii_strdown (base, -1);
  return g_str_has_suffix (lower, ".dcm") || g_str_has_suffix (lower, ".dicom")
         || strcmp (lower, "dicomdir") == 0;
}

gboolean
lb_dicom_sniff (const guint8 *data, gsize len, const char *name)
{
  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  if (len >= PREAMBLE_LENGTH + 4 && memcmp (data + PREAMBLE_LENGTH, "DICM", 4) == 0)
    return TRUE;
  if (len >= 4 && memcmp (data, "DICM", 4) == 0)
    return TRUE;
  if (starts_with_meta (data, len) || guess_transfer_syntax (data, len, TRUE) != NULL)
    return TRUE;
  /* a .dcm file that is none of these gets the DICOM reader's error, not "unknown format" */
  return name_says_dicom (name) && !has_image_signature (data, len);
}

/* ---- deflate (PS3.5 §A.5) ------------------------------------------------------------------- */

/* Raw deflate → bytes, at most @max_out of them: beyond, a whole file is refused
 * (%LB_ERROR_TOO_LARGE) and a prefix (@prefix) just stops. */
static GBytes *
inflate_raw (const guint8 *in, gsize in_len, guint64 max_out, gboolean prefix, const char *name,
             GError **error)
{
  g_autoptr(GZlibDecompressor) z = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_RAW);
  g_autoptr(GByteArray) out = g_byte_array_new ();
  guint8 buf[64 * 1024];
  gsize in_pos = 0;

  for (;;)
    {
      gsize read = 0, written = 0;
      GConverterResult r;
      g_autoptr(GError) local = NULL;

      r = g_converter_convert (G_CONVERTER (z), in + in_pos, in_len - in_pos, buf, sizeof buf,
                               G_CONVERTER_INPUT_AT_END, &read, &written, &local);
      if (r == G_CONVERTER_ERROR)
        {
          if (prefix && out->len > 0)
            break;
          if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT))
            g_set_error (error, LB_ERROR, LB_ERROR_TRUNCATED,
                         "%s: the deflated data set ends early", name);
          else
            g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                         "%s: the deflated data set is corrupt: %s", name, local->message);
          return NULL;
        }
      in_pos += read;
      if ((guint64) out->len + written > max_out)
        {
          if (prefix)
            {
              g_byte_array_append (out, buf, (guint) (max_out - out->len));
              break;
            }
          g_set_error (error, LB_ERROR, LB_ERROR_TOO_LARGE,
                       "%s: the deflated data set inflates to more than the limit of %"
                       G_GUINT64_FORMAT " bytes", name, max_out);
          return NULL;
        }
      g_byte_array_append (out, buf, (guint) written);
      if (r == G_CONVERTER_FINISHED)
        break;
      if (read == 0 && written == 0)
        break;
    }
  return g_byte_array_free_to_bytes (g_steal_pointer (&out));
}

/* ---- reading ---------------------------------------------------------------------------------- */

/* Where the data set starts and in which transfer syntax, from the preamble and meta group. */
static gboolean
read_file_meta (LbDicomFile *self, GBytes *bytes, gsize *ds_start, GError **error)
{
  gsize len;
  const guint8 *d = g_bytes_get_data (bytes, &len);
  const char *ts;
  gsize meta_start;

  if (len >= PREAMBLE_LENGTH + 4 && memcmp (d + PREAMBLE_LENGTH, "DICM", 4) == 0)
    meta_start = PREAMBLE_LENGTH + 4;
  else if (len >= 4 && memcmp (d, "DICM", 4) == 0)
    meta_start = 4; /* no preamble, but the prefix */
  else if (starts_with_meta (d, len))
    meta_start = 0;
  else
    {
      /* no meta information: the data set alone, as old files and some tools write it */
      ts = guess_transfer_syntax (d, len, TRUE);
      if (ts == NULL)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                       "%s: not a DICOM file: no \"DICM\" after a 128-byte preamble, no file "
                       "meta information, and the data does not begin with a group 0008 "
                       "element", self->name);
          return FALSE;
        }
      self->transfer_syntax = g_strdup (ts);
      *ds_start = 0;
      return TRUE;
    }
  if (!lb_dicom_parse_file_meta (bytes, self->name, meta_start, self->meta, ds_start, error))
    return FALSE;
  ts = lb_dicom_dataset_get_string (self->meta, LB_TAG_TRANSFER_SYNTAX_UID, 0);
  if (ts == NULL)
    {
      /* meta information without a TransferSyntaxUID: the data set tells */
      ts = guess_transfer_syntax (d + *ds_start, len - *ds_start, FALSE);
      if (ts == NULL && *ds_start == len)
        ts = LB_DICOM_TS_EXPLICIT_LE; /* nothing after the meta group */
      if (ts == NULL)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                       "%s: the file meta information has no TransferSyntaxUID (0002,0010), "
                       "and the data set's first element does not show its encoding", self->name);
          return FALSE;
        }
    }
  self->transfer_syntax = g_strdup (ts);
  return TRUE;
}

/* Some writers declare Explicit VR Little Endian (or an encapsulated syntax) and write the data
 * set in Implicit VR, or the other way round. The first element shows it: a VR where the length
 * would be (two capital letters make a length of at least 16 705 bytes for what is nearly always
 * a short first element), or none. Returns whether the data set uses explicit VRs. */
static gboolean
explicit_vr_in_fact (const guint8 *d, gsize len, gboolean declared)
{
  if (len < 8 || (d[0] == 0xFE && d[1] == 0xFF))
    return declared;
  return is_known_vr (d + 4);
}

LbDicomFile *
_lb_dicom_file_read (GBytes *bytes, const char *name, LbDicomReadFlags flags,
                     const LbLimits *limits, guint32 offsets_of, GError **error)
{
  g_autoptr(LbDicomFile) self = g_object_new (LB_TYPE_DICOM_FILE, NULL);
  gboolean header_only = (flags & LB_DICOM_READ_HEADER_ONLY) != 0;
  LbDicomParser p;
  gsize ds_start = 0, len, end = 0;
  g_autoptr(GBytes) data = NULL;
  gboolean ok;

  self->name = g_strdup (name ? name : "DICOM file");
  self->meta = lb_dicom_dataset_new ();
  self->dataset = lb_dicom_dataset_new ();
  len = g_bytes_get_size (bytes);
  if (len == 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_TRUNCATED, "%s: empty file", self->name);
      return NULL;
    }
  if (!read_file_meta (self, bytes, &ds_start, error))
    return NULL;
  if (!lb_dicom_transfer_syntax_lookup (self->transfer_syntax, &self->ts_flags))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED, "%s: unknown transfer syntax %s",
                   self->name, self->transfer_syntax);
      return NULL;
    }
  if (self->ts_flags & LB_DICOM_TS_DEFLATED)
    {
      guint64 max = (limits ? limits : lb_limits_get_default ())->max_bytes;
      const guint8 *d = g_bytes_get_data (bytes, NULL);

      data = inflate_raw (d + ds_start, len - ds_start, header_only ? HEADER_PREFIX_MAX : max,
                          header_only, self->name, error);
      if (data == NULL)
        return NULL;
      ds_start = 0;
    }
  else
    data = g_bytes_ref (bytes);

  {
    gboolean declared = (self->ts_flags & LB_DICOM_TS_EXPLICIT_VR) != 0;
    gsize dlen = g_bytes_get_size (data);
    gboolean explicit_vr = (self->ts_flags & LB_DICOM_TS_BIG_ENDIAN)
      ? declared
      : explicit_vr_in_fact ((const guint8 *) g_bytes_get_data (data, NULL) + ds_start,
                             dlen - ds_start, declared);

    if (explicit_vr != declared)
      g_debug ("%s: transfer syntax %s, but the data set is in %s VR", self->name,
               self->transfer_syntax, explicit_vr ? "Explicit" : "Implicit");
    lb_dicom_parser_init (&p, data, self->name, (self->ts_flags & LB_DICOM_TS_BIG_ENDIAN) != 0,
                          explicit_vr);
  }
  p.offsets_of = offsets_of;
  if (header_only)
    {
      p.stop_tag = LB_TAG_PIXEL_DATA;
      p.allow_truncation = TRUE;
    }
  ok = lb_dicom_parser_run (&p, ds_start, g_bytes_get_size (data), self->dataset, &end, error);
  if (ok)
    {
      self->data = g_bytes_ref (data);
      self->last_tag = p.last_tag;
      self->header_complete = !p.truncated;
      self->item_offsets = p.item_offsets ? g_array_ref (p.item_offsets) : NULL;
      if (!header_only && p.has_pixel_data)
        {
          self->has_pixels = TRUE;
          self->pixel = p.pixel;
          g_strlcpy (self->pixel_vr, p.pixel_vr, sizeof self->pixel_vr);
          self->fragments = p.fragments ? g_array_ref (p.fragments) : NULL;
        }
    }
  lb_dicom_parser_clear (&p);
  if (!ok)
    return NULL;
  /* a bad Image Pixel module spoils the pixels, not the rest: a listing or a DICOMDIR still
   * reads the object, and the frame accessors give the error */
  if (self->has_pixels && !_lb_dicom_file_check_image_pixel (self, limits, &self->pixel_error))
    self->n_frames = 0;
  return g_steal_pointer (&self);
}

LbDicomFile *
lb_dicom_file_new_from_bytes (GBytes *bytes, const char *name, LbDicomReadFlags flags,
                              const LbLimits *limits, GError **error)
{
  g_return_val_if_fail (bytes != NULL, NULL);
  return _lb_dicom_file_read (bytes, name, flags, limits, 0, error);
}

LbDicomFile *
lb_dicom_file_new_for_path (const char *path, LbDicomReadFlags flags, const LbLimits *limits,
                            GError **error)
{
  g_autoptr(GMappedFile) mapped = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) local = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  mapped = g_mapped_file_new (path, FALSE, &local);
  if (mapped == NULL)
    {
      g_set_error (error, LB_ERROR,
                   g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT) ? LB_ERROR_NOT_FOUND
                   : g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_ACCES) ? LB_ERROR_PERMISSION
                   : LB_ERROR_FAILED, "%s", local->message);
      return NULL;
    }
  bytes = g_mapped_file_get_bytes (mapped);
  return _lb_dicom_file_read (bytes, path, flags, limits, 0, error);
}

LbDicomFile *
lb_dicom_file_new_from_prefix (GBytes *prefix, const char *name, gboolean at_end,
                               gsize *out_want, GError **error)
{
  g_autoptr(LbDicomFile) self = NULL;
  gsize len;
  const guint8 *data;

  g_return_val_if_fail (prefix != NULL, NULL);
  g_return_val_if_fail (out_want != NULL, NULL);
  data = g_bytes_get_data (prefix, &len);
  *out_want = 0;
  if (!lb_dicom_sniff (data, len, NULL))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED, "%s: not a DICOM file", name);
      return NULL;
    }
  self = _lb_dicom_file_read (prefix, name, LB_DICOM_READ_HEADER_ONLY, NULL, 0, error);
  if (self == NULL)
    return NULL;
  /* done at the pixel data or the end of the file, or once everything a listing shows
   * (the attributes before the Image Pixel module, group 0028) is in */
  if (!at_end && !self->header_complete && self->last_tag < LB_DICOM_TAG (0x0028, 0x0000)
      && len < HEADER_PREFIX_MAX)
    *out_want = MIN (MAX (len, HEADER_PREFIX / 4) * 4, HEADER_PREFIX_MAX);
  return g_steal_pointer (&self);
}

LbDicomFile *
lb_dicom_file_read_header (GFile *file, GCancellable *cancellable, GError **error)
{
  g_autoptr(GFileInputStream) in = NULL;
  g_autoptr(GByteArray) buf = g_byte_array_new ();
  g_autofree char *name = NULL;
  gsize want = HEADER_PREFIX;

  g_return_val_if_fail (G_IS_FILE (file), NULL);
  name = g_file_get_parse_name (file);
  in = g_file_read (file, cancellable, error);
  if (in == NULL)
    return NULL;
  for (;;)
    {
      g_autoptr(GBytes) prefix = NULL;
      g_autoptr(LbDicomFile) self = NULL;
      gsize have = buf->len, n = 0;

      g_byte_array_set_size (buf, (guint) want);
      if (!g_input_stream_read_all (G_INPUT_STREAM (in), buf->data + have, want - have, &n,
                                    cancellable, error))
        return NULL;
      g_byte_array_set_size (buf, (guint) (have + n));
      /* a copy: the data set's binary values are slices of it, and @buf grows */
      prefix = g_bytes_new (buf->data, buf->len);
      self = lb_dicom_file_new_from_prefix (prefix, name, have + n < want, &want, error);
      if (self == NULL || want == 0)
        return g_steal_pointer (&self);
    }
}

/* ---- accessors -------------------------------------------------------------------------------- */

const char *
lb_dicom_file_get_name (LbDicomFile *self)
{
  g_return_val_if_fail (LB_IS_DICOM_FILE (self), NULL);
  return self->name;
}

LbDicomDataset *
lb_dicom_file_get_dataset (LbDicomFile *self)
{
  g_return_val_if_fail (LB_IS_DICOM_FILE (self), NULL);
  return self->dataset;
}

LbDicomDataset *
lb_dicom_file_get_file_meta (LbDicomFile *self)
{
  g_return_val_if_fail (LB_IS_DICOM_FILE (self), NULL);
  return self->meta;
}

const char *
lb_dicom_file_get_transfer_syntax (LbDicomFile *self)
{
  g_return_val_if_fail (LB_IS_DICOM_FILE (self), NULL);
  return self->transfer_syntax;
}

gboolean
lb_dicom_file_has_pixel_data (LbDicomFile *self)
{
  g_return_val_if_fail (LB_IS_DICOM_FILE (self), FALSE);
  return self->has_pixels;
}

/* ---- the image loader hook -------------------------------------------------------------------- */

static LbImage *
decode_first_frame (GBytes *bytes, const char *name, const LbLimits *limits, GError **error)
{
  g_autoptr(LbDicomFile) file = lb_dicom_file_new_from_bytes (bytes, name, LB_DICOM_READ_DEFAULT,
                                                              limits, error);

  if (file == NULL)
    return NULL;
  return lb_dicom_file_decode_frame (file, 0, limits, error);
}

void
lb_dicom_register_image_loader (void)
{
  static gsize once;

  if (g_once_init_enter (&once))
    {
      lb_image_loader_register ("dicom", lb_dicom_sniff, decode_first_frame);
      g_once_init_leave (&once, 1);
    }
}
