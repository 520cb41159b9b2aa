/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-test-dicom"

#include "lb-test-dicom.h"

#include <math.h>
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

/* Whether /usr/bin/python3 has what the generators of test data need. */
static gboolean
have_pydicom (void)
{
  const char *probe[] = { "/usr/bin/python3", "-c", "import numpy, pydicom", NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status;

  out = lb_test_run_tool (probe, &err, &status);
  return status == 0;
}

char *
lb_test_make_dicom_variants (const char *tag)
{
  g_autofree char *script = NULL, *src = NULL, *dir = NULL, *out = NULL, *err = NULL;
  int status;

  if (!have_pydicom ())
    return NULL;
  script = lb_test_build_path ("LB_SOURCE_ROOT", "tests", "dicom", "make-variants.py", NULL);
  src = lb_test_build_path ("LB_TEST_DATA", "dicom", NULL);
  dir = lb_test_make_tmpdir (tag);
  {
    const char *make[] = { "/usr/bin/python3", script, src, dir, NULL };

    out = lb_test_run_tool (make, &err, &status);
    if (status != 0)
      g_error ("make-variants.py: %s", err);
  }
  return g_steal_pointer (&dir);
}

char *
lb_test_make_phantom (const char         *tag,
                      const char * const *options,
                      JsonNode          **manifest)
{
  g_autofree char *script = NULL, *dir = NULL, *out = NULL, *err = NULL;
  g_autoptr(GStrvBuilder) b = g_strv_builder_new ();
  g_auto(GStrv) make = NULL;
  g_autoptr(GError) error = NULL;
  int status;

  if (!have_pydicom ())
    return NULL;
  script = lb_test_build_path ("LB_SOURCE_ROOT", "tests", "dicom", "make-phantom.py", NULL);
  dir = lb_test_make_tmpdir (tag);
  g_strv_builder_add_many (b, "/usr/bin/python3", script, dir, NULL);
  g_strv_builder_addv (b, (const char **) options);
  make = g_strv_builder_end (b);
  out = lb_test_run_tool ((const char * const *) make, &err, &status);
  if (status != 0)
    g_error ("make-phantom.py: %s", err);
  *manifest = json_from_string (out, &error);
  g_assert_no_error (error);
  return g_steal_pointer (&dir);
}

JsonObject *
lb_test_phantom_series (JsonNode *manifest, const char *dir)
{
  JsonArray *all = json_object_get_array_member (json_node_get_object (manifest), "series");

  for (guint i = 0; i < json_array_get_length (all); i++)
    {
      JsonObject *sm = json_array_get_object_element (all, i);

      if (g_str_equal (json_object_get_string_member (sm, "dir"), dir))
        return sm;
    }
  g_error ("make-phantom.py made no %s series", dir);
}

JsonObject *
lb_test_phantom_file (JsonObject *series, guint k)
{
  JsonArray *files = json_object_get_array_member (series, "files");

  for (guint i = 0; i < json_array_get_length (files); i++)
    {
      JsonObject *fm = json_array_get_object_element (files, i);

      if (json_object_get_int_member (fm, "index") == k)
        return fm;
    }
  g_error ("make-phantom.py made no slice %u", k);
}

char
lb_test_axis_letter (double x, double y, double z)
{
  if (fabs (x) >= fabs (y) && fabs (x) >= fabs (z))
    return x > 0 ? 'L' : 'R';
  if (fabs (y) >= fabs (z))
    return y > 0 ? 'P' : 'A';
  return z > 0 ? 'H' : 'F';
}

void
lb_test_phantom_view_letters (JsonObject *series, char out[4])
{
  JsonArray *o = json_object_get_array_member (series, "orientation");
  double v[6];

  for (guint i = 0; i < 6; i++)
    v[i] = json_array_get_double_element (o, i);
  out[1] = lb_test_axis_letter (v[0], v[1], v[2]);
  out[3] = lb_test_axis_letter (-v[0], -v[1], -v[2]);
  out[2] = lb_test_axis_letter (v[3], v[4], v[5]);
  out[0] = lb_test_axis_letter (-v[3], -v[4], -v[5]);
}

char *
lb_test_variant_path (const char *dir, const char *name, const char *suffix)
{
  g_autofree char *file = g_strconcat (name, suffix, NULL);

  return g_build_filename (dir, file, NULL);
}

GBytes *
lb_test_variant_bytes (const char *dir, const char *name, const char *suffix)
{
  g_autofree char *path = lb_test_variant_path (dir, name, suffix);

  return lb_test_read_file (path);
}

LbDicomDataset *
lb_test_variant_metadata (const char *dir, const char *name)
{
  g_autoptr (GBytes) json = lb_test_variant_bytes (dir, name, ".json");
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) arr = lb_dicom_json_parse_array (g_bytes_get_data (json, NULL),
                                                         g_bytes_get_size (json), &error);

  g_assert_no_error (error);
  g_assert_cmpuint (arr->len, ==, 1);
  return lb_dicom_dataset_ref (arr->pdata[0]);
}

void
lb_test_check_real_values (LbImage *image, const char *values_path, const char *what)
{
  g_autoptr (GBytes) values = lb_test_read_file (values_path);
  LbValueModel *model = lb_image_meta_get_value_model_for (lb_image_get_meta (image), 16);
  guint w = lb_image_get_width (image), h = lb_image_get_height (image);
  const guint8 *val = g_bytes_get_data (values, NULL);

  g_assert_nonnull (model);
  g_assert_cmpint (lb_image_get_format (image), ==, LB_FORMAT_GRAY16);
  g_assert_cmpuint (g_bytes_get_size (values), ==, (gsize) w * h * 8);
  for (guint y = 0; y < h; y++)
    for (guint x = 0; x < w; x++)
      {
        guint sample = ((const guint16 *) lb_image_get_row (image, y))[x];
        gsize i = (gsize) y * w + x;
        guint64 bits = 0;
        double want;

        for (int k = 7; k >= 0; k--)
          bits = bits << 8 | val[i * 8 + k];
        memcpy (&want, &bits, sizeof want);
        if (lb_value_model_to_value (model, sample) != want)
          g_error ("%s: pixel x %u y %u has value %.17g, pydicom says %.17g", what, x, y,
                   lb_value_model_to_value (model, sample), want);
      }
}
