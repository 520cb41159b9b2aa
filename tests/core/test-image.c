/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The image model: geometry checks, overflow, immutability, metadata, format conversion. */
#include <string.h>

#include <gio/gio.h>

#include "lb-error.h"
#include "lb-image.h"
#include "lb-pixel-cache.h"

static void
test_limits (void)
{
  g_autoptr (GError) error = NULL;
  gsize stride, size;
  LbLimits limits = { 1000, 3000 };

  g_assert_true (lb_limits_check (NULL, 3, 2, LB_FORMAT_RGBA16, &stride, &size, &error));
  g_assert_cmpuint (stride, ==, 24);
  g_assert_cmpuint (size, ==, 48);

  /* Products that overflow 64 bits are refused, never wrapped. */
  g_assert_false (lb_limits_check (&(LbLimits) { G_MAXUINT64, G_MAXUINT64 }, G_MAXUINT, G_MAXUINT,
                                   LB_FORMAT_RGBA16, NULL, NULL, &error));
  g_assert_error (error, LB_ERROR, LB_ERROR_TOO_LARGE);
  g_clear_error (&error);

  g_assert_false (lb_limits_check (&limits, 40, 30, LB_FORMAT_GRAY8, NULL, NULL, &error));
  g_assert_error (error, LB_ERROR, LB_ERROR_TOO_LARGE);
  g_clear_error (&error);
  g_assert_false (lb_limits_check (&limits, 30, 30, LB_FORMAT_RGBA8, NULL, NULL, &error));
  g_assert_error (error, LB_ERROR, LB_ERROR_TOO_LARGE);
  g_clear_error (&error);
  g_assert_false (lb_limits_check (&limits, 0, 30, LB_FORMAT_GRAY8, NULL, NULL, &error));
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
}

static void
test_new_checks_buffer (void)
{
  g_autoptr (GBytes) bytes = g_bytes_new_static ("0123456789", 10);
  g_autoptr (GError) error = NULL;
  g_autoptr (LbImage) ok = NULL;
  g_autoptr (LbImage) bad = NULL;

  /* 3×2 gray8 with stride 4 needs 4 + 3 = 7 bytes: the last row needs no padding. */
  ok = lb_image_new (3, 2, LB_FORMAT_GRAY8, 4, bytes, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (lb_image_get_row (ok, 1)[0], ==, '4');

  bad = lb_image_new (3, 3, LB_FORMAT_GRAY16, 6, bytes, NULL, &error);
  g_assert_null (bad);
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  bad = lb_image_new (3, 2, LB_FORMAT_RGB8, 4, bytes, NULL, &error);
  g_assert_null (bad);
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
}

static void
test_meta (void)
{
  g_autoptr (LbImageMeta) meta = lb_image_meta_new ();
  g_autoptr (LbImageMeta) copy = NULL;
  g_autofree const char **keys = NULL;
  guint n;
  gsize stride;
  guint8 *px = lb_image_alloc_pixels (2, 2, LB_FORMAT_GRAY8, NULL, &stride, NULL);
  g_autoptr (LbImage) image = NULL;

  lb_image_meta_set_text (meta, "b", "1");
  lb_image_meta_set_text (meta, "a", "2");
  lb_image_meta_set_text (meta, "b", "3");
  keys = lb_image_meta_get_text_keys (meta, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpstr (keys[0], ==, "b");
  g_assert_cmpstr (keys[1], ==, "a");
  g_assert_cmpstr (lb_image_meta_get_text (meta, "b"), ==, "3");
  lb_image_meta_set_text (meta, "b", NULL);
  g_assert_null (lb_image_meta_get_text (meta, "b"));
  g_assert_null (lb_image_meta_get_value_model (meta));

  memset (px, 7, stride * 2);
  image = lb_image_new_take (2, 2, LB_FORMAT_GRAY8, stride, px, meta);
  /* The image took a copy: changing ours does not change it. */
  lb_image_meta_set_text (meta, "a", "changed");
  g_assert_cmpstr (lb_image_meta_get_text (lb_image_get_meta (image), "a"), ==, "2");
  copy = lb_image_dup_meta (image);
  g_assert_cmpstr (lb_image_meta_get_text (copy, "a"), ==, "2");
}

static void
test_convert (void)
{
  static const guint16 rgb16[] = { 65535, 0, 0, 0, 65535, 0, 0, 0, 65535, 1000, 1000, 1000 };
  g_autoptr (GBytes) bytes = g_bytes_new_static (rgb16, sizeof rgb16);
  g_autoptr (LbImage) image = lb_image_new (2, 2, LB_FORMAT_RGB16, 12, bytes, NULL, NULL);
  g_autoptr (LbImage) gray8 = NULL;
  g_autoptr (LbImage) rgba8 = NULL;
  g_autoptr (LbImage) back16 = NULL;
  g_autoptr (GError) error = NULL;
  const guint8 *p;

  gray8 = lb_image_convert (image, LB_FORMAT_GRAY8, &error);
  g_assert_no_error (error);
  p = lb_image_get_data (gray8);
  /* BT.601 luma of pure red, green, blue at full scale, then 16→8 rounding. */
  g_assert_cmpuint (p[0], ==, 76);
  g_assert_cmpuint (p[1], ==, 150);
  g_assert_cmpuint (lb_image_get_row (gray8, 1)[0], ==, 29);
  g_assert_cmpuint (lb_image_get_row (gray8, 1)[1], ==, 4); /* 1000/257 = 3.9 → 4 */

  rgba8 = lb_image_convert (image, LB_FORMAT_RGBA8, &error);
  g_assert_no_error (error);
  p = lb_image_get_data (rgba8);
  g_assert_cmpmem (p, 8, ((guint8[]) { 255, 0, 0, 255, 0, 255, 0, 255 }), 8);

  /* 8 → 16 → 8 is lossless. */
  back16 = lb_image_convert (rgba8, LB_FORMAT_RGBA16, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (((const guint16 *) lb_image_get_data (back16))[0], ==, 65535);
  {
    g_autoptr (LbImage) again = lb_image_convert (back16, LB_FORMAT_RGBA8, &error);
    g_assert_true (lb_image_equal_pixels (again, rgba8));
  }
}

/* A freed image's large buffer serves the next image of about its size, and only that. */
static void
test_pixel_cache_reuse (void)
{
  gsize stride, stride2;
  guint8 *px, *again, *small;
  LbImage *img;

  if (!lb_pixel_cache_enabled ())
    {
      g_test_skip ("the pixel cache is off in AddressSanitizer builds");
      return;
    }
  lb_pixel_cache_clear ();
  /* 2000 × 2000 RGBA8: 16 MB */
  px = lb_image_alloc_pixels (2000, 2000, LB_FORMAT_RGBA8, NULL, &stride, NULL);
  g_assert_nonnull (px);
  memset (px, 0x5a, stride * 2000);
  img = lb_image_new_take (2000, 2000, LB_FORMAT_RGBA8, stride, px, NULL);
  g_assert_cmpuint (lb_pixel_cache_get_bytes (), ==, 0);
  g_object_unref (img);
  g_assert_cmpuint (lb_pixel_cache_get_bytes (), ==, stride * 2000);
  /* 9 MB (1500 × 1500 RGBA8): the 16 MB buffer is too large for it */
  small = lb_image_alloc_pixels (1500, 1500, LB_FORMAT_RGBA8, NULL, &stride2, NULL);
  g_assert_true (small != px);
  g_assert_cmpuint (lb_pixel_cache_get_bytes (), ==, stride * 2000);
  g_free (small);
  /* the same size again: the same buffer, with what the last image left */
  again = lb_image_alloc_pixels (2000, 2000, LB_FORMAT_RGBA8, NULL, &stride2, NULL);
  g_assert_true (again == px);
  g_assert_cmpuint (again[stride * 2000 - 1], ==, 0x5a);
  g_assert_cmpuint (lb_pixel_cache_get_bytes (), ==, 0);
  /* a small image's buffer is not kept */
  g_object_unref (lb_image_new_take (1, 1, LB_FORMAT_GRAY8, 1, g_malloc (1), NULL));
  g_assert_cmpuint (lb_pixel_cache_get_bytes (), ==, 0);
  g_free (again);
}

/* Buffers unused for longer than the given time go, younger ones stay. */
static void
test_pixel_cache_trim (void)
{
  const gsize mb = 1 << 20;
  gsize freed;

  if (!lb_pixel_cache_enabled ())
    {
      g_test_skip ("the pixel cache is off in AddressSanitizer builds");
      return;
    }
  lb_pixel_cache_clear ();
  lb_pixel_cache_give (g_malloc (10 * mb), 10 * mb);
  g_usleep (50000);
  lb_pixel_cache_give (g_malloc (12 * mb), 12 * mb);
  /* nothing is an hour old */
  g_assert_cmpuint (lb_pixel_cache_trim ((gint64) 3600 * G_USEC_PER_SEC), ==, 0);
  g_assert_cmpuint (lb_pixel_cache_get_bytes (), ==, 22 * mb);
  /* the first is over 25 ms old, the second (most likely, on a loaded machine not) younger */
  freed = lb_pixel_cache_trim (25000);
  g_assert_true (freed == 10 * mb || freed == 22 * mb);
  g_assert_cmpuint (lb_pixel_cache_get_bytes (), ==, 22 * mb - freed);
  g_usleep (30000);
  lb_pixel_cache_trim (25000);
  g_assert_cmpuint (lb_pixel_cache_get_bytes (), ==, 0);
}

/* A low-memory warning (as GMemoryMonitor emits it) empties the cache. */
static void
test_pixel_cache_low_memory (void)
{
  g_autoptr (GMemoryMonitor) monitor = g_memory_monitor_dup_default ();

  if (!lb_pixel_cache_enabled () || monitor == NULL)
    {
      g_test_skip (monitor == NULL ? "no memory monitor" : "the pixel cache is off in AddressSanitizer builds");
      return;
    }
  lb_pixel_cache_clear ();
  lb_pixel_cache_give (g_malloc (10 << 20), 10 << 20);
  /* not watching yet: the warning changes nothing */
  g_signal_emit_by_name (monitor, "low-memory-warning", G_MEMORY_MONITOR_WARNING_LEVEL_LOW);
  g_assert_cmpuint (lb_pixel_cache_get_bytes (), ==, 10 << 20);
  lb_pixel_cache_watch_memory ();
  lb_pixel_cache_watch_memory ();   /* idempotent: one handler */
  g_signal_emit_by_name (monitor, "low-memory-warning", G_MEMORY_MONITOR_WARNING_LEVEL_LOW);
  g_assert_cmpuint (lb_pixel_cache_get_bytes (), ==, 0);
}

/* At most LB_PIXEL_CACHE_SLOTS buffers and LB_PIXEL_CACHE_MAX_BYTES in all; the oldest goes. */
static void
test_pixel_cache_limits (void)
{
  const gsize mb = 1 << 20;
  guint8 *a, *b, *c, *got;

  if (!lb_pixel_cache_enabled ())
    {
      g_test_skip ("the pixel cache is off in AddressSanitizer builds");
      return;
    }
  lb_pixel_cache_clear ();
  /* untouched heap pages: no memory is used */
  a = g_malloc (100 * mb);
  b = g_malloc (101 * mb);
  c = g_malloc (102 * mb);
  lb_pixel_cache_give (a, 100 * mb);
  lb_pixel_cache_give (b, 101 * mb);
  g_assert_cmpuint (lb_pixel_cache_get_bytes (), ==, 201 * mb);
  /* a third buffer: the oldest (a) is freed */
  lb_pixel_cache_give (c, 102 * mb);
  g_assert_cmpuint (lb_pixel_cache_get_bytes (), ==, 203 * mb);
  /* more than the cache holds in all: freed at once, the others stay */
  lb_pixel_cache_give (g_malloc (LB_PIXEL_CACHE_MAX_BYTES + mb), LB_PIXEL_CACHE_MAX_BYTES + mb);
  g_assert_cmpuint (lb_pixel_cache_get_bytes (), ==, 203 * mb);
  /* 160 MB: b and c would not fit with it, so both go */
  lb_pixel_cache_give (g_malloc (160 * mb), 160 * mb);
  g_assert_cmpuint (lb_pixel_cache_get_bytes (), ==, 160 * mb);
  /* the smallest buffer that holds a request and is at most a quarter larger */
  got = lb_pixel_cache_take (129 * mb);
  g_assert_cmpuint (lb_pixel_cache_get_bytes (), ==, 0);
  g_free (got);
  lb_pixel_cache_give (g_malloc (60 * mb), 60 * mb);
  lb_pixel_cache_give (g_malloc (50 * mb), 50 * mb);
  got = lb_pixel_cache_take (45 * mb);
  g_assert_cmpuint (lb_pixel_cache_get_bytes (), ==, 60 * mb);
  g_free (got);
  g_assert_null (lb_pixel_cache_take (40 * mb));
  g_assert_null (lb_pixel_cache_take (61 * mb));
  lb_pixel_cache_clear ();
  g_assert_cmpuint (lb_pixel_cache_get_bytes (), ==, 0);
}

/* Threads making and freeing large images at once: no buffer is handed to two images (each
 * thread's pattern survives until it frees its image). */
static gpointer
pixel_cache_worker (gpointer data)
{
  guint8 mark = (guint8) GPOINTER_TO_UINT (data);

  for (int i = 0; i < 40; i++)
    {
      gsize stride;
      guint w = 1600 + (guint) (i % 3) * 8;
      guint8 *px = lb_image_alloc_pixels (w, 1500, LB_FORMAT_RGBA8, NULL, &stride, NULL);
      LbImage *img;

      g_assert_nonnull (px);
      memset (px, mark, 4096);
      memset (px + stride * 1500 - 4096, mark, 4096);
      img = lb_image_new_take (w, 1500, LB_FORMAT_RGBA8, stride, px, NULL);
      g_thread_yield ();
      for (gsize k = 0; k < 4096; k++)
        g_assert_cmpuint (px[k], ==, mark);
      g_assert_cmpuint (px[stride * 1500 - 1], ==, mark);
      g_object_unref (img);
    }
  return NULL;
}

static void
test_pixel_cache_threads (void)
{
  GThread *threads[4];

  lb_pixel_cache_clear ();
  for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
    threads[t] = g_thread_new ("pixel-cache", pixel_cache_worker, GUINT_TO_POINTER (t + 1));
  for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
    g_thread_join (threads[t]);
  g_assert_cmpuint (lb_pixel_cache_get_bytes (), <=, LB_PIXEL_CACHE_MAX_BYTES);
  lb_pixel_cache_clear ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/image/limits", test_limits);
  g_test_add_func ("/image/new-checks-buffer", test_new_checks_buffer);
  g_test_add_func ("/image/meta", test_meta);
  g_test_add_func ("/image/convert", test_convert);
  g_test_add_func ("/image/pixel-cache/reuse", test_pixel_cache_reuse);
  g_test_add_func ("/image/pixel-cache/limits", test_pixel_cache_limits);
  g_test_add_func ("/image/pixel-cache/threads", test_pixel_cache_threads);
  g_test_add_func ("/image/pixel-cache/trim", test_pixel_cache_trim);
  g_test_add_func ("/image/pixel-cache/low-memory", test_pixel_cache_low_memory);
  return g_test_run ();
}
