/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Helpers shared by the DICOMweb tests: reference data from tests/data/dicomweb and the
 * pixel checksum the expected values (make-fixtures.py, expected-values.py) are given in. */

#include <gio/gio.h>
#include <string.h>

#include "lb-dicom-dataset.h"
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

/* The one dataset of the DICOM JSON array in $LB_TEST_DATA/dicomweb/@name (a study's
 * metadata as a server returns it). */
static inline LbDicomDataset *
load_metadata (const char *name)
{
  g_autoptr(GBytes) bytes = load_data (name);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) arr = lb_dicom_json_parse_array (g_bytes_get_data (bytes, NULL),
                                                        g_bytes_get_size (bytes), &error);

  g_assert_no_error (error);
  g_assert_cmpuint (arr->len, ==, 1);
  return lb_dicom_dataset_ref (arr->pdata[0]);
}

static inline gboolean
have_program (const char *name)
{
  g_autofree char *path = g_find_program_in_path (name);

  return path != NULL;
}

/* Runs @argv (searched in PATH); returns stdout, stores stderr and the exit status (0: a
 * clean exit). */
static inline char *
run_tool (const char *const *argv, char **err, int *status)
{
  g_autoptr(GError) error = NULL;
  char *out = NULL;
  int wait_status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, err,
                &wait_status, &error);
  g_assert_no_error (error);
  *status = g_spawn_check_wait_status (wait_status, NULL) ? 0 : 1;
  return out;
}

/* The value dcmdump prints for a tag: "(0020,000d) UI [1.2.3]  #  6, 1 StudyInstanceUID". */
static inline char *
dump_value (const char *dump, const char *tag)
{
  g_auto(GStrv) lines = g_strsplit (dump, "\n", -1);

  for (guint i = 0; lines[i]; i++)
    {
      const char *l = lines[i], *open, *close;

      if (!g_str_has_prefix (l, tag))
        continue;
      open = strchr (l, '[');
      close = open ? strrchr (l, ']') : NULL;
      if (open && close)
        return g_strndup (open + 1, close - open - 1);
      open = l + strlen (tag) + 4; /* "(gggg,eeee) VR " → numbers are printed bare */
      return g_strndup (open, strcspn (open, " "));
    }
  return NULL;
}

/* dicom3tools checks the IOD of the file at @path: no errors allowed (warnings are advisory).
 * FALSE when dciodvfy is not installed (nothing checked). */
static inline gboolean
check_dciodvfy (const char *path)
{
  const char *argv[] = { "dciodvfy", path, NULL };
  g_autofree char *out = NULL, *verr = NULL;
  int status = 0;

  if (!have_program ("dciodvfy"))
    return FALSE;
  out = run_tool (argv, &verr, &status);
  g_test_message ("dciodvfy:\n%s%s", out, verr);
  g_assert_null (strstr (verr, "Error"));
  g_assert_null (strstr (out, "Error"));
  return TRUE;
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
