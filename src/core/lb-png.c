/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-png"

#include "config.h"

#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "lb-error.h"
#include "lb-png.h"

/* The value model (lb-value-model.h) in its text form: what the samples mean survives a PNG
 * round trip. */
#define KEY_VALUES "lightbox:values"
/* Older files carry the value mapping in these keys instead: "1" for two's-complement 16-bit
 * samples, "slope intercept", "center width". They are read (the samples of a signed one are
 * moved to offset binary) and never written. */
#define KEY_SIGNED "lightbox:signed"
#define KEY_RESCALE "lightbox:rescale"
#define KEY_WINDOW "lightbox:window"
/* pHYs holds whole pixels per metre (0.661468 mm comes back as 0.661376 mm); this keeps the
 * spacing exact in millimetres, x then y. */
#define KEY_SPACING "lightbox:spacing"

#define STREAM_CHUNK (64 * 1024)

struct _LbPngDecoder {
  /* Owned */
  char *name;
  png_structp png;
  png_infop info;
  guint8 *pixels;
  LbImageMeta *meta;
  GError *error;          /* sticky */

  /* Borrowed */
  LbPngRowsFunc rows_func;
  gpointer rows_data;

  LbLimits limits;
  guint width, height;
  gsize stride;
  LbSampleFormat format;
  guint rows_done;        /* rows delivered in the last pass */
  guint passes;
  int dirty_y0, dirty_y1; /* rows changed during the current feed */
  gboolean have_header;
  gboolean finished;      /* IEND seen */
  gboolean legacy_signed; /* two's-complement samples (KEY_SIGNED): flipped on finish */
};

static void
decoder_set_error (LbPngDecoder *self, int code, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

static void
decoder_set_error (LbPngDecoder *self, int code, const char *fmt, ...)
{
  va_list args;
  g_autofree char *msg = NULL;

  if (self->error != NULL)
    return;
  va_start (args, fmt);
  msg = g_strdup_vprintf (fmt, args);
  va_end (args);
  self->error = g_error_new (LB_ERROR, code, "%s: %s", self->name, msg);
}

G_NORETURN static void
on_png_error (png_structp png, png_const_charp message)
{
  LbPngDecoder *self = png_get_error_ptr (png);
  int code = LB_ERROR_CORRUPT;

  if (strstr (message, "CRC") != NULL)
    code = LB_ERROR_CORRUPT;
  else if (strstr (message, "memory") != NULL)
    code = LB_ERROR_NO_MEMORY;
  else if (strstr (message, "too large") != NULL || strstr (message, "exceeds") != NULL)
    code = LB_ERROR_TOO_LARGE;
  decoder_set_error (self, code, "corrupt PNG data (%s)", message);
  png_longjmp (png, 1);
}

static void
on_png_warning (png_structp png, png_const_charp message)
{
  LbPngDecoder *self = png_get_error_ptr (png);

  /* Ancillary-chunk problems are warnings in libpng; they do not affect the pixels. */
  g_debug ("%s: %s", self->name, message);
}

static void
on_info (png_structp png, png_infop info)
{
  LbPngDecoder *self = png_get_progressive_ptr (png);
  png_uint_32 width, height;
  int bit_depth, color_type, interlace;
  gboolean gray, alpha;
  GError *error = NULL;

  png_get_IHDR (png, info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);

  /* Checked before any transform or allocation: a bomb claiming 100000×100000 stops here. */
  gray = (color_type & PNG_COLOR_MASK_COLOR) == 0;
  alpha = (color_type & PNG_COLOR_MASK_ALPHA) != 0 || png_get_valid (png, info, PNG_INFO_tRNS);
  self->format = lb_sample_format_compose (gray, alpha, bit_depth == 16 ? 16 : 8);
  if (!lb_limits_check (&self->limits, width, height, self->format, &self->stride, NULL, &error))
    {
      decoder_set_error (self, error->code, "%s", error->message);
      g_error_free (error);
      png_longjmp (png, 1);
    }

  if (color_type == PNG_COLOR_TYPE_PALETTE)
    png_set_palette_to_rgb (png);
  if (gray && bit_depth < 8)
    png_set_expand_gray_1_2_4_to_8 (png);
  if (png_get_valid (png, info, PNG_INFO_tRNS))
    png_set_tRNS_to_alpha (png);
  if (bit_depth == 16 && G_BYTE_ORDER == G_LITTLE_ENDIAN)
    png_set_swap (png);
  self->passes = png_set_interlace_handling (png);
  png_read_update_info (png, info);

  if (png_get_rowbytes (png, info) != self->stride
      || png_get_channels (png, info) != lb_sample_format_get_channels (self->format))
    {
      decoder_set_error (self, LB_ERROR_UNSUPPORTED, "unexpected PNG layout after expansion");
      png_longjmp (png, 1);
    }

  /* Zeroed: rows not yet decoded show as black during progressive display, and an
   * interlaced image is combined into existing rows. */
  self->pixels = g_try_malloc0 (self->stride * height);
  if (self->pixels == NULL)
    {
      decoder_set_error (self, LB_ERROR_NO_MEMORY, "out of memory for a %u×%u image", (guint) width,
                         (guint) height);
      png_longjmp (png, 1);
    }
  self->width = width;
  self->height = height;
  self->have_header = TRUE;
}

static void
on_row (png_structp png, png_bytep new_row, png_uint_32 row_num, int pass)
{
  LbPngDecoder *self = png_get_progressive_ptr (png);

  if (new_row == NULL || row_num >= self->height)
    return;
  png_progressive_combine_row (png, self->pixels + (gsize) row_num * self->stride, new_row);
  if (self->dirty_y0 < 0 || (int) row_num < self->dirty_y0)
    self->dirty_y0 = row_num;
  if ((int) row_num + 1 > self->dirty_y1)
    self->dirty_y1 = row_num + 1;
  if ((guint) pass + 1 == self->passes || self->passes <= 1)
    self->rows_done = row_num + 1;
}

static gboolean
parse_doubles (const char *text, double *a, double *b)
{
  char *end;

  *a = g_ascii_strtod (text, &end);
  if (end == text)
    return FALSE;
  text = end;
  *b = g_ascii_strtod (text, &end);
  return end != text;
}

/* A model from the older keys: the rescale is of the samples as they are in the file, or of
 * int16 values when @is_signed; a CT ("Modality" text, as dicom-to-sample.py writes it) with a
 * rescale is in Hounsfield units (PS3.3 C.8.2.1: CT values without a RescaleType are HU). */
static LbValueModel *
legacy_model (LbPngDecoder *self, gboolean is_signed, gboolean has_rescale, double slope,
              double intercept, gboolean has_window, double center, double width)
{
  guint bits = lb_sample_format_get_sample_size (self->format) == 2 ? 16 : 8;
  g_autoptr(LbValueModelBuilder) b = NULL;

  if (!lb_sample_format_is_gray (self->format))
    return NULL;
  b = lb_value_model_builder_new (NULL, bits);
  if (is_signed && bits == 16)
    {
      lb_value_model_builder_set_source (b, TRUE, 16);
      self->legacy_signed = TRUE;
    }
  if (has_rescale && slope != 0 && isfinite (slope) && isfinite (intercept))
    {
      lb_value_model_builder_set_rescale (b, slope, intercept);
      if (g_strcmp0 (lb_image_meta_get_text (self->meta, "Modality"), "CT") == 0)
        lb_value_model_builder_set_units (b, "HU");
    }
  if (has_window)
    lb_value_model_builder_add_window (b, center, width, NULL);
  return lb_value_model_builder_end (g_steal_pointer (&b));
}

static void
read_metadata (LbPngDecoder *self, png_infop info)
{
  png_textp text = NULL;
  int n_text = 0;
  png_uint_32 res_x, res_y;
  int unit;
  gboolean exact_spacing = FALSE;
  gboolean is_signed = FALSE, has_rescale = FALSE, has_window = FALSE;
  double slope = 1, intercept = 0, center = 0, width = 0;
  g_autofree char *values = NULL;

  if (png_get_text (self->png, info, &text, &n_text) > 0)
    for (int i = 0; i < n_text; i++)
      {
        const char *key = text[i].key;
        g_autofree char *value = NULL;
        double a, b;

        if (text[i].compression == PNG_ITXT_COMPRESSION_NONE
            || text[i].compression == PNG_ITXT_COMPRESSION_zTXt)
          value = g_strndup (text[i].text, text[i].itxt_length);
        else /* tEXt/zTXt are Latin-1 */
          value = g_convert (text[i].text, text[i].text_length, "UTF-8", "ISO-8859-1", NULL, NULL, NULL);
        if (value == NULL || !g_utf8_validate (value, -1, NULL) || !g_utf8_validate (key, -1, NULL))
          continue;

        if (g_str_equal (key, KEY_VALUES))
          g_free (values), values = g_strdup (value);
        else if (g_str_equal (key, KEY_SIGNED))
          is_signed = g_str_equal (value, "1");
        else if (g_str_equal (key, KEY_RESCALE) && parse_doubles (value, &a, &b))
          has_rescale = TRUE, slope = a, intercept = b;
        else if (g_str_equal (key, KEY_WINDOW) && parse_doubles (value, &a, &b) && b > 0)
          has_window = TRUE, center = a, width = b;
        else if (g_str_equal (key, KEY_SPACING) && parse_doubles (value, &a, &b) && a > 0 && b > 0)
          exact_spacing = TRUE, lb_image_meta_set_pixel_spacing (self->meta, a, b);
        else if (*key != '\0')
          lb_image_meta_set_text (self->meta, key, value);
      }

  if (values != NULL)
    {
      GError *error = NULL;
      g_autoptr(LbValueModel) model = lb_value_model_deserialize (values, &error);
      guint bits = lb_sample_format_get_sample_size (self->format) == 2 ? 16 : 8;

      if (model == NULL)
        {
          decoder_set_error (self, LB_ERROR_CORRUPT, "%s chunk: %s", KEY_VALUES, error->message);
          g_error_free (error);
        }
      else if (lb_sample_format_is_gray (self->format) == lb_value_model_get_colour (model)
               || lb_value_model_get_sample_bits (model) != bits)
        decoder_set_error (self, LB_ERROR_CORRUPT, "%s chunk describes %u-bit %s samples",
                           KEY_VALUES, lb_value_model_get_sample_bits (model),
                           lb_value_model_get_colour (model) ? "colour" : "grey");
      else
        lb_image_meta_set_value_model (self->meta, model);
    }
  else if (is_signed || has_rescale || has_window)
    {
      g_autoptr(LbValueModel) model = legacy_model (self, is_signed, has_rescale, slope,
                                                    intercept, has_window, center, width);

      lb_image_meta_set_value_model (self->meta, model);
    }

  if (!exact_spacing && png_get_pHYs (self->png, info, &res_x, &res_y, &unit)
      && unit == PNG_RESOLUTION_METER && res_x > 0 && res_y > 0)
    lb_image_meta_set_pixel_spacing (self->meta, 1000.0 / res_x, 1000.0 / res_y);
}

static void
on_end (png_structp png, png_infop info)
{
  LbPngDecoder *self = png_get_progressive_ptr (png);

  read_metadata (self, info);
  self->finished = TRUE;
}

LbPngDecoder *
lb_png_decoder_new (const char *name, const LbLimits *limits)
{
  LbPngDecoder *self = g_new0 (LbPngDecoder, 1);

  self->name = g_strdup (name ? name : "PNG data");
  self->limits = *(limits ? limits : lb_limits_get_default ());
  self->meta = lb_image_meta_new ();
  self->dirty_y0 = -1;
  self->png = png_create_read_struct (PNG_LIBPNG_VER_STRING, self, on_png_error, on_png_warning);
  if (self->png != NULL)
    self->info = png_create_info_struct (self->png);
  if (self->png == NULL || self->info == NULL)
    {
      decoder_set_error (self, LB_ERROR_NO_MEMORY, "cannot create a PNG decoder");
      return self;
    }
  /* libpng's own dimension caps (default 1M) must not undercut ours; ours are checked in
   * on_info before any allocation. */
  png_set_user_limits (self->png, 0x7fffffff, 0x7fffffff);
  png_set_progressive_read_fn (self->png, self, on_info, on_row, on_end);
  return self;
}

void
lb_png_decoder_free (LbPngDecoder *self)
{
  if (self == NULL)
    return;
  if (self->png != NULL)
    png_destroy_read_struct (&self->png, self->info ? &self->info : NULL, NULL);
  g_free (self->pixels);
  g_clear_pointer (&self->meta, lb_image_meta_unref);
  g_clear_error (&self->error);
  g_free (self->name);
  g_free (self);
}

void
lb_png_decoder_set_rows_func (LbPngDecoder *self, LbPngRowsFunc func, gpointer user_data)
{
  g_return_if_fail (self != NULL);
  self->rows_func = func;
  self->rows_data = user_data;
}

/* setjmp must live in a frame that stays valid for the libpng calls it guards; volatile
 * is not needed because nothing local is modified between setjmp and longjmp. */
static gboolean
process (LbPngDecoder *self, const guint8 *data, gsize len)
{
  if (setjmp (png_jmpbuf (self->png)))
    return FALSE;
  png_process_data (self->png, self->info, (png_bytep) data, len);
  return TRUE;
}

gboolean
lb_png_decoder_is_complete (LbPngDecoder *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->error == NULL && self->finished;
}

gboolean
lb_png_decoder_feed (LbPngDecoder *self, const guint8 *data, gsize len, GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);

  if (self->error == NULL && self->finished && len > 0)
    {
      /* Trailing bytes after IEND are harmless; ignore them like other decoders do. */
      return TRUE;
    }
  if (self->error == NULL && len > 0)
    {
      self->dirty_y0 = -1;
      self->dirty_y1 = 0;
      if (!process (self, data, len) && self->error == NULL)
        decoder_set_error (self, LB_ERROR_CORRUPT, "corrupt PNG data");
      if (self->dirty_y0 >= 0 && self->rows_func != NULL)
        self->rows_func (self, self->dirty_y0, self->dirty_y1, self->rows_data);
    }
  if (self->error != NULL)
    {
      if (error)
        *error = g_error_copy (self->error);
      return FALSE;
    }
  return TRUE;
}

gboolean
lb_png_decoder_has_header (LbPngDecoder *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->have_header;
}

guint
lb_png_decoder_get_width (LbPngDecoder *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->width;
}

guint
lb_png_decoder_get_height (LbPngDecoder *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->height;
}

LbSampleFormat
lb_png_decoder_get_format (LbPngDecoder *self)
{
  g_return_val_if_fail (self != NULL, LB_FORMAT_GRAY8);
  return self->format;
}

const guint8 *
lb_png_decoder_peek_pixels (LbPngDecoder *self, gsize *stride)
{
  g_return_val_if_fail (self != NULL, NULL);
  if (stride)
    *stride = self->stride;
  return self->pixels;
}

LbImage *
lb_png_decoder_finish (LbPngDecoder *self, GError **error)
{
  LbImage *image;

  g_return_val_if_fail (self != NULL, NULL);

  if (self->error != NULL)
    {
      g_propagate_error (error, g_error_copy (self->error));
      return NULL;
    }
  if (!self->have_header)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_TRUNCATED, "%s: truncated PNG data (no image header)",
                   self->name);
      return NULL;
    }
  if (!self->finished)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_TRUNCATED,
                   "%s: truncated PNG data (image ends after row %u of %u)", self->name,
                   self->rows_done, self->height);
      return NULL;
    }
  if (self->legacy_signed)
    {
      /* int16 → offset binary (stored + 32768): flip the sign bit of the grey channel */
      guint channels = lb_sample_format_get_channels (self->format);

      for (guint y = 0; y < self->height; y++)
        {
          guint16 *row = (guint16 *) (self->pixels + (gsize) y * self->stride);

          for (guint x = 0; x < self->width; x++)
            row[(gsize) x * channels] ^= 0x8000;
        }
      self->legacy_signed = FALSE;
    }
  image = lb_image_new_take (self->width, self->height, self->format, self->stride,
                             g_steal_pointer (&self->pixels), self->meta);
  self->have_header = FALSE;
  return image;
}

gboolean
lb_png_sniff (const guint8 *data, gsize len)
{
  return data != NULL && len >= 8 && png_sig_cmp ((png_const_bytep) data, 0, 8) == 0;
}

static gboolean
check_signature (const guint8 *data, gsize len, const char *name, GError **error)
{
  if (len < 8 || !lb_png_sniff (data, len))
    {
      g_set_error (error, LB_ERROR, len < 8 ? LB_ERROR_TRUNCATED : LB_ERROR_CORRUPT,
                   "%s: not a PNG file (bad signature)", name ? name : "PNG data");
      return FALSE;
    }
  return TRUE;
}

LbImage *
lb_png_load_bytes (GBytes *bytes, const char *name, const LbLimits *limits, GError **error)
{
  g_autoptr (LbPngDecoder) decoder = NULL;
  gsize len;
  const guint8 *data;

  g_return_val_if_fail (bytes != NULL, NULL);
  data = g_bytes_get_data (bytes, &len);
  if (!check_signature (data, len, name, error))
    return NULL;
  decoder = lb_png_decoder_new (name, limits);
  if (!lb_png_decoder_feed (decoder, data, len, error))
    return NULL;
  return lb_png_decoder_finish (decoder, error);
}

LbImage *
lb_png_load_stream (GInputStream *stream, const char *name, const LbLimits *limits,
                    GCancellable *cancellable, GError **error)
{
  g_autoptr (LbPngDecoder) decoder = NULL;
  g_autofree guint8 *buf = g_malloc (STREAM_CHUNK);
  gboolean first = TRUE;

  g_return_val_if_fail (G_IS_INPUT_STREAM (stream), NULL);

  decoder = lb_png_decoder_new (name, limits);
  for (;;)
    {
      gsize n = 0;

      /* read_all: the signature check wants the first 8 bytes together. */
      if (!g_input_stream_read_all (stream, buf, STREAM_CHUNK, &n, cancellable, error))
        {
          g_prefix_error (error, "%s: ", name ? name : "PNG data");
          return NULL;
        }
      if (first && !check_signature (buf, n, name, error))
        return NULL;
      first = FALSE;
      if (n == 0)
        break;
      if (!lb_png_decoder_feed (decoder, buf, n, error))
        return NULL;
      if (n < STREAM_CHUNK)
        break;
    }
  return lb_png_decoder_finish (decoder, error);
}

/* ---- writing ------------------------------------------------------------------------ */

typedef struct {
  GOutputStream *stream;
  GCancellable *cancellable;
  GError *error;
  const char *what;
} WriteCtx;

G_NORETURN static void
on_write_error (png_structp png, png_const_charp message)
{
  WriteCtx *ctx = png_get_error_ptr (png);

  if (ctx->error == NULL)
    ctx->error = g_error_new (LB_ERROR, LB_ERROR_FAILED, "Writing PNG: %s", message);
  png_longjmp (png, 1);
}

static void
on_write_warning (png_structp png, png_const_charp message)
{
  g_debug ("Writing PNG: %s", message);
}

static void
on_write_data (png_structp png, png_bytep data, png_size_t len)
{
  WriteCtx *ctx = png_get_io_ptr (png);

  if (!g_output_stream_write_all (ctx->stream, data, len, NULL, ctx->cancellable, &ctx->error))
    png_longjmp (png, 1);
}

static void
on_flush (png_structp png)
{
}

static gboolean
is_latin1_printable (const char *s)
{
  for (const guchar *p = (const guchar *) s; *p; p++)
    if (*p >= 0x80 || (*p < 0x20 && *p != '\n'))
      return FALSE;
  return TRUE;
}

static gboolean
valid_keyword (const char *key)
{
  gsize len = strlen (key);

  /* PNG keywords: 1–79 Latin-1 printable characters, no leading/trailing/double spaces. */
  if (len == 0 || len > 79 || key[0] == ' ' || key[len - 1] == ' ' || strstr (key, "  "))
    return FALSE;
  for (const guchar *p = (const guchar *) key; *p; p++)
    if (*p < 0x20 || *p > 0x7e)
      return FALSE;
  return TRUE;
}

static void
add_text (GArray *texts, GPtrArray *strings, const char *key, const char *value)
{
  png_text t = { 0 };

  t.key = (png_charp) key;
  t.text = (png_charp) value;
  if (is_latin1_printable (value) && strlen (value) < 1024)
    {
      t.compression = PNG_TEXT_COMPRESSION_NONE;
    }
  else
    {
      /* iTXt carries UTF-8; compress long values. */
      t.compression = strlen (value) >= 1024 ? PNG_ITXT_COMPRESSION_zTXt : PNG_ITXT_COMPRESSION_NONE;
      t.lang = (png_charp) "";
      t.lang_key = (png_charp) "";
    }
  g_array_append_val (texts, t);
}

static gboolean
write_png (png_structp png, png_infop info, LbImage *image, GArray *texts)
{
  LbSampleFormat format = lb_image_get_format (image);
  guint width = lb_image_get_width (image), height = lb_image_get_height (image);
  int color_type;
  const LbImageMeta *meta = lb_image_get_meta (image);
  double sx, sy;

  switch (format)
    {
    case LB_FORMAT_GRAY8:
    case LB_FORMAT_GRAY16:
      color_type = PNG_COLOR_TYPE_GRAY;
      break;
    case LB_FORMAT_GRAYA8:
    case LB_FORMAT_GRAYA16:
      color_type = PNG_COLOR_TYPE_GRAY_ALPHA;
      break;
    case LB_FORMAT_RGB8:
    case LB_FORMAT_RGB16:
      color_type = PNG_COLOR_TYPE_RGB;
      break;
    case LB_FORMAT_RGBA8:
    case LB_FORMAT_RGBA16:
    default:
      color_type = PNG_COLOR_TYPE_RGB_ALPHA;
      break;
    }

  if (setjmp (png_jmpbuf (png)))
    return FALSE;

  png_set_IHDR (png, info, width, height, lb_sample_format_get_bit_depth (format), color_type,
                PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (texts->len > 0)
    png_set_text (png, info, &g_array_index (texts, png_text, 0), texts->len);
  if (lb_image_meta_get_pixel_spacing (meta, &sx, &sy))
    png_set_pHYs (png, info, (png_uint_32) (1000.0 / sx + 0.5), (png_uint_32) (1000.0 / sy + 0.5),
                  PNG_RESOLUTION_METER);
  png_write_info (png, info);
  if (lb_sample_format_get_sample_size (format) == 2 && G_BYTE_ORDER == G_LITTLE_ENDIAN)
    png_set_swap (png);
  for (guint y = 0; y < height; y++)
    png_write_row (png, (png_const_bytep) lb_image_get_row (image, y));
  png_write_end (png, info);
  return TRUE;
}

gboolean
lb_png_save_to_stream (LbImage *image, GOutputStream *stream, GCancellable *cancellable,
                       GError **error)
{
  WriteCtx ctx = { stream, cancellable, NULL, NULL };
  png_structp png;
  png_infop info = NULL;
  g_autoptr (GArray) texts = g_array_new (FALSE, TRUE, sizeof (png_text));
  g_autoptr (GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);
  const LbImageMeta *meta;
  g_autofree const char **keys = NULL;
  double a, b;
  gboolean ok;

  g_return_val_if_fail (LB_IS_IMAGE (image), FALSE);
  g_return_val_if_fail (G_IS_OUTPUT_STREAM (stream), FALSE);

  meta = lb_image_get_meta (image);
  keys = lb_image_meta_get_text_keys (meta, NULL);
  for (guint i = 0; keys[i]; i++)
    {
      if (!valid_keyword (keys[i]))
        {
          g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                       "Writing PNG: “%s” cannot be a PNG text keyword (1–79 printable ASCII characters)",
                       keys[i]);
          return FALSE;
        }
      add_text (texts, strings, keys[i], lb_image_meta_get_text (meta, keys[i]));
    }
  /* the model, when it still describes the samples (not after a filter changed their size, or
   * made grey samples colour or colour ones grey) */
  if (lb_image_meta_get_value_model_for (meta, lb_sample_format_get_bit_depth (
                                                 lb_image_get_format (image))) != NULL
      && lb_sample_format_is_gray (lb_image_get_format (image))
         != lb_value_model_get_colour (lb_image_meta_get_value_model (meta)))
    {
      char *v = lb_value_model_serialize (lb_image_meta_get_value_model (meta));

      g_ptr_array_add (strings, v);
      add_text (texts, strings, KEY_VALUES, v);
    }
  if (lb_image_meta_get_pixel_spacing (meta, &a, &b))
    {
      char buf[2][G_ASCII_DTOSTR_BUF_SIZE];
      char *s = g_strdup_printf ("%s %s", g_ascii_dtostr (buf[0], sizeof buf[0], a),
                                 g_ascii_dtostr (buf[1], sizeof buf[1], b));
      g_ptr_array_add (strings, s);
      add_text (texts, strings, KEY_SPACING, s);
    }

  png = png_create_write_struct (PNG_LIBPNG_VER_STRING, &ctx, on_write_error, on_write_warning);
  if (png != NULL)
    info = png_create_info_struct (png);
  if (png == NULL || info == NULL)
    {
      png_destroy_write_struct (&png, NULL);
      g_set_error (error, LB_ERROR, LB_ERROR_NO_MEMORY, "Writing PNG: cannot create an encoder");
      return FALSE;
    }
  png_set_write_fn (png, &ctx, on_write_data, on_flush);
  ok = write_png (png, info, image, texts);
  png_destroy_write_struct (&png, &info);
  if (!ok)
    {
      if (ctx.error == NULL)
        ctx.error = g_error_new (LB_ERROR, LB_ERROR_FAILED, "Writing PNG failed");
      g_propagate_error (error, ctx.error);
      return FALSE;
    }
  return TRUE;
}

GBytes *
lb_png_save_to_bytes (LbImage *image, GError **error)
{
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();

  if (!lb_png_save_to_stream (image, out, NULL, error) || !g_output_stream_close (out, NULL, error))
    return NULL;
  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
}

gboolean
lb_png_save_to_file (LbImage *image, const char *path, GError **error)
{
  g_autoptr (GFile) file = NULL;
  g_autoptr (GFileOutputStream) out = NULL;
  g_autoptr (GCancellable) abort = NULL;

  g_return_val_if_fail (LB_IS_IMAGE (image), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  /* g_file_replace writes a temporary file and renames it over @path on a successful close;
   * closing with a cancelled cancellable deletes the temporary and leaves @path untouched. */
  file = g_file_new_for_path (path);
  out = g_file_replace (file, NULL, FALSE, G_FILE_CREATE_NONE, NULL, error);
  if (out == NULL)
    {
      g_prefix_error (error, "Saving %s: ", path);
      return FALSE;
    }
  if (!lb_png_save_to_stream (image, G_OUTPUT_STREAM (out), NULL, error))
    {
      abort = g_cancellable_new ();
      g_cancellable_cancel (abort);
      g_output_stream_close (G_OUTPUT_STREAM (out), abort, NULL);
      g_prefix_error (error, "Saving %s: ", path);
      return FALSE;
    }
  if (!g_output_stream_close (G_OUTPUT_STREAM (out), NULL, error))
    {
      g_prefix_error (error, "Saving %s: ", path);
      return FALSE;
    }
  return TRUE;
}
