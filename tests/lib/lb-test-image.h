/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Small helpers shared by the engine tests (static inline: each test is one program). */

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "lb-image.h"

/* A deterministic image (xorshift32 noise over gradients) of any format. */
static inline LbImage *
test_image_new (guint width, guint height, LbSampleFormat format, guint32 seed)
{
  gsize stride;
  guint8 *px = lb_image_alloc_pixels (width, height, format, NULL, &stride, NULL);
  guint ch = lb_sample_format_get_channels (format);
  gboolean deep = lb_sample_format_get_sample_size (format) == 2;
  guint32 s = seed ? seed : 1;

  g_assert_nonnull (px);
  for (guint y = 0; y < height; y++)
    for (guint x = 0; x < width * ch; x++)
      {
        guint v;
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        /* Half gradient, half noise, so both flat-ish and busy areas exist. */
        v = ((x * 7 + y * 5) & 0xff) / 2 + (s & 0x7f);
        if (deep)
          ((guint16 *) (px + y * stride))[x] = (guint16) (v * 257 + (s >> 24));
        else
          px[y * stride + x] = (guint8) v;
      }
  return lb_image_new_take (width, height, format, stride, px, NULL);
}

/* Spins the default main context until @done is TRUE or @timeout_ms passes. */
static inline gboolean
test_wait_until (gboolean *done, guint timeout_ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (!*done && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE), g_usleep (1000);
  return *done;
}

/* Copies @src to @dir/@name the way installers should: a temporary name, then rename(). */
static inline void
test_install_file (const char *src, const char *dir, const char *name)
{
  g_autofree char *tmp = g_build_filename (dir, ".installing", NULL);
  g_autofree char *dest = g_build_filename (dir, name, NULL);
  g_autoptr(GFile) from = g_file_new_for_path (src);
  g_autoptr(GFile) to = g_file_new_for_path (tmp);
  g_autoptr(GError) error = NULL;

  g_file_copy (from, to, G_FILE_COPY_OVERWRITE, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_rename (tmp, dest), ==, 0);
}

static inline void
test_remove_tree (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (dir, name, NULL);
      g_unlink (p);
    }
  g_rmdir (dir);
}

static inline char *
test_plugin_path (const char *name)
{
  return g_build_filename (g_getenv ("LB_TEST_PLUGIN_DIR"), name, NULL);
}
