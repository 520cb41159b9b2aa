/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-test-dicom"

#include "lb-test-dicom.h"

#include <string.h>

#include "lb-test-files.h"
#include "lb-test-process.h"

char *
lb_test_dicom_path (const char *name)
{
  return lb_test_build_path ("LB_TEST_DATA", "dicomweb", name, NULL);
}

GBytes *
lb_test_dicom_load (const char *name)
{
  g_autofree char *path = lb_test_dicom_path (name);

  return lb_test_read_file (path);
}

LbDicomDataset *
lb_test_dicom_load_metadata (const char *name)
{
  g_autoptr (GBytes) bytes = lb_test_dicom_load (name);
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) arr = lb_dicom_json_parse_array (g_bytes_get_data (bytes, NULL),
                                                         g_bytes_get_size (bytes), &error);

  g_assert_no_error (error);
  g_assert_cmpuint (arr->len, ==, 1);
  return lb_dicom_dataset_ref (arr->pdata[0]);
}

/* dcmdump prints "(0020,000d) UI [1.2.3]  #  6, 1 StudyInstanceUID": the value between the
 * brackets, or for numbers the bare word after the VR. */
char *
lb_test_dcmdump_value (const char *dump,
                       const char *tag)
{
  g_auto (GStrv) lines = g_strsplit (dump, "\n", -1);

  for (guint i = 0; lines[i]; i++)
    {
      const char *l = lines[i], *open, *close;

      if (!g_str_has_prefix (l, tag))
        continue;
      open = strchr (l, '[');
      close = open ? strrchr (l, ']') : NULL;
      if (open && close)
        return g_strndup (open + 1, close - open - 1);
      open = l + strlen (tag) + 4; /* "(gggg,eeee) VR " */
      return g_strndup (open, strcspn (open, " "));
    }
  return NULL;
}

gboolean
lb_test_check_dciodvfy (const char *path)
{
  const char *argv[] = { "dciodvfy", path, NULL };
  g_autofree char *out = NULL, *verr = NULL;
  int status = 0;

  if (!lb_test_have_program ("dciodvfy"))
    return FALSE;
  out = lb_test_run_tool (argv, &verr, &status);
  g_test_message ("dciodvfy:\n%s%s", out, verr);
  g_assert_null (strstr (verr, "Error"));
  g_assert_null (strstr (out, "Error"));
  return TRUE;
}

char *
lb_test_stored_sha256 (LbImage *image)
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  LbSampleFormat format = lb_image_get_format (image);
  gboolean wide = lb_sample_format_get_sample_size (format) == 2;
  LbValueModel *model = lb_sample_format_is_gray (format)
    ? lb_image_meta_get_value_model_for (lb_image_get_meta (image), wide ? 16 : 8) : NULL;
  guint offset = model ? lb_value_model_get_sample_offset (model) : 0;

  for (guint y = 0; y < lb_image_get_height (image); y++)
    {
      const guint8 *row = lb_image_get_row (image, y);
      gsize n = lb_image_get_row_size (image);

      if (wide)
        for (gsize i = 0; i < n / 2; i++)
          {
            guint16 v = GUINT16_TO_LE ((guint16) (((const guint16 *) (const void *) row)[i]
                                                  - offset));

            g_checksum_update (sum, (const guint8 *) &v, 2);
          }
      else
        g_checksum_update (sum, row, n);
    }
  return g_strdup (g_checksum_get_string (sum));
}

GHashTable *
lb_test_check_derived (const char *derived, const char *same_as)
{
  g_autofree char *script = g_build_filename (g_getenv ("LB_SOURCE_ROOT"), "tests", "dicom",
                                              "check-derived.py", NULL);
  const char *argv[] = { "/usr/bin/python3", script, derived, same_as, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_auto (GStrv) lines = NULL;
  GHashTable *kv = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  int status;

  out = lb_test_run_tool (argv, &err, &status);
  g_test_message ("check-derived.py %s:\n%s%s", derived, out, err);
  if (status != 0)
    g_error ("%s against %s: %s", derived, same_as ? same_as : "-", err);
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      char *eq = strchr (lines[i], '=');

      if (eq != NULL)
        g_hash_table_insert (kv, g_strndup (lines[i], eq - lines[i]), g_strdup (eq + 1));
    }
  return kv;
}
