/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-test-kernel"

#include "lb-test-kernel.h"

#include <string.h>

#include "lb-error.h"
#include "lb-image-loader.h"
#include "lb-image.h"
#include "lb-test-files.h"

const char *const kb_golden_sizes[3] = { "64x48", "61x37", "512x512" };

const KbFormat kb_formats[7] = {
  { 1, 8 }, { 1, 16 }, { 3, 8 }, { 4, 8 }, { 2, 8 }, { 3, 16 }, { 4, 16 },
};

static LbKernelBuf *
kb_alloc (int   width,
          int   height,
          int   channels,
          int   depth,
          gsize stride)
{
  LbKernelBuf *buf = g_new0 (LbKernelBuf, 1);

  buf->width = width;
  buf->height = height;
  buf->channels = channels;
  buf->depth = depth;
  buf->stride = stride;
  buf->data = g_malloc0 (buf->stride * MAX (height, 1));
  return buf;
}

static gsize
kb_row_size (int width,
             int channels,
             int depth)
{
  return (gsize) width * channels * (depth / 8);
}

LbKernelBuf *
kb_new (int width,
        int height,
        int channels,
        int depth)
{
  /* padded, and even so 16-bit rows stay aligned */
  return kb_alloc (width, height, channels, depth,
                   (kb_row_size (width, channels, depth) + 9) & ~(gsize) 1);
}

LbKernelBuf *
kb_new_padded (int width,
               int height,
               int channels,
               int depth,
               int pad)
{
  return kb_alloc (width, height, channels, depth,
                   kb_row_size (width, channels, depth) + 2 * (gsize) pad);
}

LbKernelBuf *
kb_copy_padded (const LbKernelBuf *buf,
                int                pad)
{
  LbKernelBuf *c = kb_new_padded (buf->width, buf->height, buf->channels, buf->depth, pad);

  for (int y = 0; y < buf->height; y++)
    memcpy (c->data + (gsize) y * c->stride, buf->data + (gsize) y * buf->stride,
            kb_row_size (buf->width, buf->channels, buf->depth));
  return c;
}

LbKernelBuf *
kb_copy (const LbKernelBuf *buf)
{
  LbKernelBuf *c = g_new0 (LbKernelBuf, 1);

  *c = *buf;
  c->data = g_memdup2 (buf->data, buf->stride * MAX (buf->height, 1));
  return c;
}

void
kb_free (LbKernelBuf *buf)
{
  if (buf == NULL)
    return;
  g_free (buf->data);
  g_free (buf);
}

int
kb_get (const LbKernelBuf *buf,
        int                x,
        int                y,
        int                c)
{
  const guint8 *row = buf->data + (gsize) y * buf->stride;
  gsize i = (gsize) x * buf->channels + c;

  return buf->depth == 16 ? ((const guint16 *) (const void *) row)[i] : row[i];
}

void
kb_set (LbKernelBuf *buf,
        int          x,
        int          y,
        int          c,
        int          v)
{
  guint8 *row = buf->data + (gsize) y * buf->stride;
  gsize i = (gsize) x * buf->channels + c;

  if (buf->depth == 16)
    ((guint16 *) (void *) row)[i] = (guint16) v;
  else
    row[i] = (guint8) v;
}

void
kb_fill_random (LbKernelBuf *buf,
                GRand       *rand,
                int          flat)
{
  int maxv = buf->depth == 16 ? 65535 : 255;

  for (int y = 0; y < buf->height; y++)
    for (int x = 0; x < buf->width; x++)
      for (int c = 0; c < buf->channels; c++)
        {
          int v;

          if (flat > 0 && x > 0 && g_rand_int_range (rand, 0, flat + 1) != 0)
            v = kb_get (buf, x - 1, y, c);
          else if (g_rand_boolean (rand))
            v = g_rand_int_range (rand, 0, maxv + 1);
          else   /* a smooth ramp with noise, so filters see structure too */
            v = CLAMP ((x * 7 + y * 3 + c * 50) * (maxv / 255) + g_rand_int_range (rand, -20, 21) * (maxv / 255), 0, maxv);
          kb_set (buf, x, y, c, v);
        }
}

LbKernelBuf *
kb_load_goldenf (const char *format,
                 ...)
{
  g_autofree char *name = NULL;
  va_list args;

  va_start (args, format);
  name = g_strdup_vprintf (format, args);
  va_end (args);
  return kb_load_golden (name);
}

LbKernelBuf *
kb_load_golden (const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = lb_test_build_path ("LB_TEST_DATA", "golden", name, NULL);
  g_autoptr (LbImage) img = lb_image_load_file (path, NULL, &error);
  LbKernelBuf *buf;

  g_assert_no_error (error);
  g_assert_cmpint (lb_image_get_format (img), ==, LB_FORMAT_RGB8);
  buf = kb_new ((int) lb_image_get_width (img), (int) lb_image_get_height (img), 3, 8);
  for (int y = 0; y < buf->height; y++)
    memcpy (buf->data + (gsize) y * buf->stride, lb_image_get_row (img, (guint) y),
            (gsize) buf->width * 3);
  return buf;
}

gsize
kb_compare (const LbKernelBuf *a,
            const LbKernelBuf *b,
            int               *max_diff)
{
  gsize n = 0;
  int m = 0;

  g_assert_cmpint (a->width, ==, b->width);
  g_assert_cmpint (a->height, ==, b->height);
  g_assert_cmpint (a->channels, ==, b->channels);
  for (int y = 0; y < a->height; y++)
    for (int x = 0; x < a->width; x++)
      for (int c = 0; c < a->channels; c++)
        {
          int d = ABS (kb_get (a, x, y, c) - kb_get (b, x, y, c));

          if (d)
            n++;
          m = MAX (m, d);
        }
  if (max_diff)
    *max_diff = m;
  return n;
}

gboolean
kb_channel_equal (const LbKernelBuf *a,
                  const LbKernelBuf *b,
                  int                c)
{
  for (int y = 0; y < a->height; y++)
    for (int x = 0; x < a->width; x++)
      if (kb_get (a, x, y, c) != kb_get (b, x, y, c))
        return FALSE;
  return TRUE;
}

LbKernelRect
kb_random_rect (GRand *rand,
                int    w,
                int    h,
                int    margin)
{
  LbKernelRect r;

  /* one draw per statement: the order of the draws is part of each test's seeded case */
  r.x = g_rand_int_range (rand, -margin, w);
  r.y = g_rand_int_range (rand, -margin, h);
  r.width = g_rand_int_range (rand, 1, w + margin);
  r.height = g_rand_int_range (rand, 1, h + margin);
  return r;
}

void
kb_assert_alpha_kept (const LbKernelBuf *src,
                      const LbKernelBuf *dst)
{
  if (src->channels == 2 || src->channels == 4)
    g_assert_true (kb_channel_equal (src, dst, src->channels - 1));
}

void
kb_assert_prepare_fails (gconstpointer  state,
                         GError       **error,
                         int            code)
{
  g_assert_null (state);
  g_assert_error (*error, LB_ERROR, code);
  g_clear_error (error);
}

LbKernelBuf *
kb_run_whole (KbProcessFunc      process,
              gconstpointer      state,
              const LbKernelBuf *src)
{
  LbKernelBuf *dst = kb_copy (src);

  process (state, src, dst, 0, src->height);
  return dst;
}

LbKernelBuf *
kb_run_bands (KbProcessFunc      process,
              gconstpointer      state,
              const LbKernelBuf *src,
              GRand             *rand)
{
  LbKernelBuf *dst = kb_copy (src);
  g_autoptr (GArray) cuts = g_array_new (FALSE, FALSE, sizeof (int));
  int y = 0;

  /* bands of 1 to 9 rows, processed in shuffled order */
  while (y < src->height)
    {
      g_array_append_val (cuts, y);
      y += g_rand_int_range (rand, 1, 10);
    }
  for (guint i = cuts->len; i > 1; i--)
    {
      guint j = (guint) g_rand_int_range (rand, 0, (gint32) i);
      int t = g_array_index (cuts, int, i - 1);

      g_array_index (cuts, int, i - 1) = g_array_index (cuts, int, j);
      g_array_index (cuts, int, j) = t;
    }
  for (guint i = 0; i < cuts->len; i++)
    {
      int y0 = g_array_index (cuts, int, i), y1 = src->height;

      /* the band ends at the next cut above y0 */
      for (guint k = 0; k < cuts->len; k++)
        {
          int c = g_array_index (cuts, int, k);

          if (c > y0 && c < y1)
            y1 = c;
        }
      process (state, src, dst, y0, y1);
    }
  return dst;
}
