/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-test-image"

#include "lb-test-image.h"

/* xorshift32 (Marsaglia 2003); the state is never 0. */
static inline guint32
next (guint32 *state)
{
  guint32 x = *state;

  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *state = x;
}

/* Neighbouring seeds give unrelated streams. */
static guint32
first_state (guint32 seed)
{
  guint32 x = seed * 2654435761u + 1;

  return x != 0 ? x : 1;
}

GBytes *
lb_test_bytes (gsize   n,
               guint32 seed)
{
  guint8 *data = g_malloc (MAX (n, 1));
  guint32 state = first_state (seed);

  for (gsize i = 0; i < n; i++)
    data[i] = (guint8) next (&state);
  return g_bytes_new_take (data, n);
}

LbImage *
lb_test_image_new (guint          width,
                   guint          height,
                   LbSampleFormat format,
                   guint32        seed)
{
  gsize stride;
  guint8 *px = lb_image_alloc_pixels (width, height, format, NULL, &stride, NULL);
  guint ch = lb_sample_format_get_channels (format);
  gboolean deep = lb_sample_format_get_sample_size (format) == 2;
  guint32 state = seed ? seed : 1; /* the images the engine tests were written against */

  g_assert_nonnull (px);
  for (guint y = 0; y < height; y++)
    for (guint x = 0; x < width * ch; x++)
      {
        guint32 s = next (&state);
        guint v = ((x * 7 + y * 5) & 0xff) / 2 + (s & 0x7f);

        if (deep)
          ((guint16 *) (px + y * stride))[x] = (guint16) (v * 257 + (s >> 24));
        else
          px[y * stride + x] = (guint8) v;
      }
  return lb_image_new_take (width, height, format, stride, px, NULL);
}

LbImage *
lb_test_ct_image_new (guint width, guint height, guint32 seed)
{
  g_autoptr(LbImage) grey = lb_test_image_new (width, height, LB_FORMAT_GRAY16, seed);
  g_autoptr(LbImageMeta) meta = lb_image_meta_new ();
  g_autoptr(LbValueModel) model = NULL;
  LbValueModelBuilder *b = lb_value_model_builder_new (NULL, 16);

  lb_value_model_builder_set_source (b, TRUE, 16);
  lb_value_model_builder_set_rescale (b, 1, -1024);
  lb_value_model_builder_set_units (b, "HU");
  model = lb_value_model_builder_end (b);
  lb_image_meta_set_value_model (meta, model);
  return lb_image_with_meta (grey, meta);
}

guint
lb_test_image_sample (LbImage *image,
                      guint    x,
                      guint    y,
                      guint    c)
{
  const LbSampleFormat format = lb_image_get_format (image);
  const guint ch = lb_sample_format_get_channels (format);
  const guint8 *row = lb_image_get_row (image, y);

  if (lb_sample_format_get_sample_size (format) == 2)
    return ((const guint16 *) (const void *) row)[x * ch + c];
  return row[x * ch + c];
}

char *
lb_test_pixel_sha256 (LbImage *image)
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);

  for (guint y = 0; y < lb_image_get_height (image); y++)
    {
      const guint8 *row = lb_image_get_row (image, y);
      gsize n = lb_image_get_row_size (image);

      if (lb_sample_format_get_sample_size (lb_image_get_format (image)) == 2)
        for (gsize i = 0; i < n / 2; i++)
          {
            guint16 v = GUINT16_TO_LE (((const guint16 *) (const void *) row)[i]);

            g_checksum_update (sum, (const guint8 *) &v, 2);
          }
      else
        g_checksum_update (sum, row, n);
    }
  return g_strdup (g_checksum_get_string (sum));
}
