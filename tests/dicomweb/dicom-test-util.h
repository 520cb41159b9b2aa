/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Helpers shared by the DICOMweb tests: reference data from tests/data/dicomweb and the
 * pixel checksum the expected values (make-fixtures.py, expected-values.py) are given in. */

#include <gio/gio.h>

#include "lb-image.h"

/* $LB_TEST_DATA/dicomweb/@name */
static inline char *
data_path (const char *name)
{
  const char *dir = g_getenv ("LB_TEST_DATA");

  g_assert_nonnull (dir);
  return g_build_filename (dir, "dicomweb", name, NULL);
}

static inline GBytes *
load_data (const char *name)
{
  g_autofree char *path = data_path (name);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  GBytes *bytes = g_file_load_bytes (file, NULL, NULL, &error);

  g_assert_no_error (error);
  return bytes;
}

/* SHA-256 of the samples as little-endian values in packed rows: the layout numpy's tobytes()
 * gives for '<i2'/'<u2', so it compares with pydicom's pixel_array. */
static inline char *
pixel_sha256 (LbImage *img)
{
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);

  for (guint y = 0; y < lb_image_get_height (img); y++)
    {
      const guint8 *row = lb_image_get_row (img, y);
      gsize n = lb_image_get_row_size (img);

      if (lb_sample_format_get_sample_size (lb_image_get_format (img)) == 2)
        for (gsize i = 0; i < n / 2; i++)
          {
            guint16 v = GUINT16_TO_LE (((const guint16 *) row)[i]);

            g_checksum_update (sum, (const guint8 *) &v, 2);
          }
      else
        g_checksum_update (sum, row, n);
    }
  return g_strdup (g_checksum_get_string (sum));
}
