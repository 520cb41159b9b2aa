/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-image"

#include <string.h>

#include "lb-error.h"
#include "lb-image.h"
#include "lb-pixel-cache.h"

struct _LbImage {
  GObject parent_instance;

  /* Owned, all immutable after construction */
  GBytes *bytes;
  LbImageMeta *meta;
  guint width;
  guint height;
  gsize stride;
  LbSampleFormat format;
};

G_DEFINE_FINAL_TYPE (LbImage, lb_image, G_TYPE_OBJECT)

static void
lb_image_finalize (GObject *object)
{
  LbImage *self = LB_IMAGE (object);

  g_clear_pointer (&self->bytes, g_bytes_unref);
  g_clear_pointer (&self->meta, lb_image_meta_unref);
  G_OBJECT_CLASS (lb_image_parent_class)->finalize (object);
}

static void
lb_image_class_init (LbImageClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = lb_image_finalize;
}

static void
lb_image_init (LbImage *self)
{
}

guint8 *
lb_image_alloc_pixels (guint           width,
                       guint           height,
                       LbSampleFormat  format,
                       const LbLimits *limits,
                       gsize          *out_stride,
                       GError        **error)
{
  gsize stride, size;
  guint8 *pixels;

  g_return_val_if_fail (out_stride != NULL, NULL);
  if (!lb_limits_check (limits, width, height, format, &stride, &size, error))
    return NULL;
  /* a large buffer an earlier image left (lb-pixel-cache.h), else a new one */
  pixels = lb_pixel_cache_take (size);
  if (pixels == NULL)
    pixels = g_try_malloc (size);
  if (pixels == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_NO_MEMORY,
                   "Out of memory allocating %" G_GSIZE_FORMAT " bytes for a %u×%u image",
                   size, width, height);
      return NULL;
    }
  *out_stride = stride;
  return pixels;
}

/* The pixels of an image made by lb_image_new_take(), freed with its last reference. */
typedef struct {
  guint8 *pixels;
  gsize size;
} TakenPixels;

static void
taken_pixels_free (gpointer data)
{
  TakenPixels *t = data;

  lb_pixel_cache_give (t->pixels, t->size);
  g_free (t);
}

static LbImage *
image_new_internal (guint width, guint height, LbSampleFormat format, gsize stride,
                    GBytes *bytes, const LbImageMeta *meta)
{
  LbImage *self = g_object_new (LB_TYPE_IMAGE, NULL);

  self->width = width;
  self->height = height;
  self->format = format;
  self->stride = stride;
  self->bytes = bytes;
  self->meta = meta ? lb_image_meta_copy (meta) : lb_image_meta_new ();
  return self;
}

static gboolean
geometry_ok (guint width, guint height, LbSampleFormat format, gsize stride, gsize len,
             GError **error)
{
  guint64 row, need;

  if (width == 0 || height == 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT, "Image %u×%u is empty", width, height);
      return FALSE;
    }
  if (!g_uint64_checked_mul (&row, width, lb_sample_format_get_pixel_size (format)) || stride < row)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "Row stride %" G_GSIZE_FORMAT " is too small for %u %s pixels",
                   stride, width, lb_sample_format_to_string (format));
      return FALSE;
    }
  if (!g_uint64_checked_mul (&need, stride, height - 1) || !g_uint64_checked_add (&need, need, row)
      || need > len)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "Pixel buffer of %" G_GSIZE_FORMAT " bytes is too small for a %u×%u %s image",
                   len, width, height, lb_sample_format_to_string (format));
      return FALSE;
    }
  return TRUE;
}

LbImage *
lb_image_new_take (guint width, guint height, LbSampleFormat format, gsize stride,
                   guint8 *pixels, const LbImageMeta *meta)
{
  TakenPixels *t;

  g_return_val_if_fail (pixels != NULL, NULL);
  g_return_val_if_fail (width > 0 && height > 0, NULL);
  g_return_val_if_fail (stride >= (gsize) width * lb_sample_format_get_pixel_size (format), NULL);
  g_return_val_if_fail (stride <= G_MAXSIZE / height, NULL);

  t = g_new (TakenPixels, 1);
  t->pixels = pixels;
  t->size = stride * height;
  return image_new_internal (width, height, format, stride,
                            g_bytes_new_with_free_func (pixels, t->size, taken_pixels_free, t),
                            meta);
}

LbImage *
lb_image_new (guint width, guint height, LbSampleFormat format, gsize stride, GBytes *pixels,
              const LbImageMeta *meta, GError **error)
{
  g_return_val_if_fail (pixels != NULL, NULL);
  g_return_val_if_fail ((guint) format < LB_N_FORMATS, NULL);

  if (!geometry_ok (width, height, format, stride, g_bytes_get_size (pixels), error))
    return NULL;
  return image_new_internal (width, height, format, stride, g_bytes_ref (pixels), meta);
}

LbImage *
lb_image_with_meta (LbImage *self, const LbImageMeta *meta)
{
  g_return_val_if_fail (LB_IS_IMAGE (self), NULL);
  return image_new_internal (self->width, self->height, self->format, self->stride,
                            g_bytes_ref (self->bytes), meta);
}

guint
lb_image_get_width (LbImage *self)
{
  g_return_val_if_fail (LB_IS_IMAGE (self), 0);
  return self->width;
}

guint
lb_image_get_height (LbImage *self)
{
  g_return_val_if_fail (LB_IS_IMAGE (self), 0);
  return self->height;
}

LbSampleFormat
lb_image_get_format (LbImage *self)
{
  g_return_val_if_fail (LB_IS_IMAGE (self), LB_FORMAT_GRAY8);
  return self->format;
}

gsize
lb_image_get_stride (LbImage *self)
{
  g_return_val_if_fail (LB_IS_IMAGE (self), 0);
  return self->stride;
}

gsize
lb_image_get_row_size (LbImage *self)
{
  g_return_val_if_fail (LB_IS_IMAGE (self), 0);
  return (gsize) self->width * lb_sample_format_get_pixel_size (self->format);
}

const guint8 *
lb_image_get_data (LbImage *self)
{
  g_return_val_if_fail (LB_IS_IMAGE (self), NULL);
  return g_bytes_get_data (self->bytes, NULL);
}

const guint8 *
lb_image_get_row (LbImage *self, guint y)
{
  g_return_val_if_fail (LB_IS_IMAGE (self), NULL);
  g_return_val_if_fail (y < self->height, NULL);
  return (const guint8 *) g_bytes_get_data (self->bytes, NULL) + (gsize) y * self->stride;
}

GBytes *
lb_image_get_bytes (LbImage *self)
{
  g_return_val_if_fail (LB_IS_IMAGE (self), NULL);
  return self->bytes;
}

const LbImageMeta *
lb_image_get_meta (LbImage *self)
{
  g_return_val_if_fail (LB_IS_IMAGE (self), NULL);
  return self->meta;
}

LbImageMeta *
lb_image_dup_meta (LbImage *self)
{
  g_return_val_if_fail (LB_IS_IMAGE (self), NULL);
  return lb_image_meta_copy (self->meta);
}

gboolean
lb_image_equal_pixels (LbImage *a, LbImage *b)
{
  gsize row;

  g_return_val_if_fail (LB_IS_IMAGE (a) && LB_IS_IMAGE (b), FALSE);
  if (a->width != b->width || a->height != b->height || a->format != b->format)
    return FALSE;
  row = lb_image_get_row_size (a);
  for (guint y = 0; y < a->height; y++)
    if (memcmp (lb_image_get_row (a, y), lb_image_get_row (b, y), row) != 0)
      return FALSE;
  return TRUE;
}

/* Reads channel c of pixel x as a 16-bit value (8-bit values are widened ×257). */
static inline guint
get16 (const guint8 *row, guint x, guint c, guint channels, gboolean wide)
{
  if (wide)
    return ((const guint16 *) row)[(gsize) x * channels + c];
  return row[(gsize) x * channels + c] * 257u;
}

LbImage *
lb_image_convert (LbImage *self, LbSampleFormat format, GError **error)
{
  guint src_ch, dst_ch;
  gboolean src_wide, dst_wide, src_gray, dst_gray, src_alpha, dst_alpha;
  gsize stride;
  guint8 *pixels;

  g_return_val_if_fail (LB_IS_IMAGE (self), NULL);
  g_return_val_if_fail ((guint) format < LB_N_FORMATS, NULL);

  if (format == self->format)
    return g_object_ref (self);

  pixels = lb_image_alloc_pixels (self->width, self->height, format, NULL, &stride, error);
  if (pixels == NULL)
    return NULL;

  src_ch = lb_sample_format_get_channels (self->format);
  dst_ch = lb_sample_format_get_channels (format);
  src_wide = lb_sample_format_get_sample_size (self->format) == 2;
  dst_wide = lb_sample_format_get_sample_size (format) == 2;
  src_gray = lb_sample_format_is_gray (self->format);
  dst_gray = lb_sample_format_is_gray (format);
  src_alpha = lb_sample_format_has_alpha (self->format);
  dst_alpha = lb_sample_format_has_alpha (format);

  for (guint y = 0; y < self->height; y++)
    {
      const guint8 *in = lb_image_get_row (self, y);
      guint8 *out = pixels + (gsize) y * stride;

      for (guint x = 0; x < self->width; x++)
        {
          guint v[4];
          guint a = src_alpha ? get16 (in, x, src_ch - 1, src_ch, src_wide) : 65535u;
          guint n = 0;

          if (src_gray)
            {
              guint g = get16 (in, x, 0, src_ch, src_wide);
              if (dst_gray)
                v[n++] = g;
              else
                v[0] = v[1] = v[2] = g, n = 3;
            }
          else
            {
              guint r = get16 (in, x, 0, src_ch, src_wide);
              guint g = get16 (in, x, 1, src_ch, src_wide);
              guint b = get16 (in, x, 2, src_ch, src_wide);
              if (dst_gray)
                v[n++] = (guint) (((guint64) 299 * r + (guint64) 587 * g + (guint64) 114 * b + 500) / 1000);
              else
                v[0] = r, v[1] = g, v[2] = b, n = 3;
            }
          if (dst_alpha)
            v[n++] = a;
          g_assert (n == dst_ch);

          for (guint c = 0; c < dst_ch; c++)
            {
              if (dst_wide)
                ((guint16 *) out)[(gsize) x * dst_ch + c] = (guint16) v[c];
              else
                out[(gsize) x * dst_ch + c] = (guint8) MIN (255u, (v[c] + 128u) / 257u);
            }
        }
    }
  return lb_image_new_take (self->width, self->height, format, stride, pixels, self->meta);
}
