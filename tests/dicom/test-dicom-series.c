/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Series ordering (LbDicomSeries): shuffled, duplicated, missing and irregular positions,
 * oblique and mixed orientations, multi-frame objects, against numpy's computation in
 * series-reference.py; and the digital phantom (make-phantom.py: Part 10 files in three
 * orientations, in a shuffled file order) ordered so that each slice's centre value, which
 * encodes its index along the normal, comes out in sequence. Skips without pydicom/numpy. */
#include <math.h>
#include <string.h>
#include <sys/wait.h>

#include <json-glib/json-glib.h>

#include "lb-dicom-file.h"
#include "lb-dicom-series.h"
#include "lb-dicom-tags.h"
#include "lb-test-files.h"

/* @script in tests/dicom run with @args; its stdout parsed as JSON, or NULL (test skipped) */
static JsonNode *
run_reference (const char *script, const char *const *args)
{
  g_autofree char *path = g_build_filename (g_getenv ("LB_SOURCE_ROOT"), "tests", "dicom",
                                            script, NULL);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  int status;

  g_ptr_array_add (argv, (char *) "/usr/bin/python3");
  g_ptr_array_add (argv, path);
  for (guint i = 0; args && args[i]; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_STDERR_TO_DEV_NULL,
                               NULL, NULL, &out, NULL, &status, &error));
  if (WIFEXITED (status) && WEXITSTATUS (status) == 77)
    {
      g_test_skip ("pydicom and numpy are needed for the reference");
      return NULL;
    }
  g_assert_true (g_spawn_check_wait_status (status, &error));
  {
    JsonNode *node = json_from_string (out, &error);

    g_assert_no_error (error);
    return node;
  }
}

static const char *
warning_word (LbDicomSeriesWarning w)
{
  switch (w)
    {
    case LB_DICOM_SERIES_WARN_DUPLICATE_POSITION: return "duplicate";
    case LB_DICOM_SERIES_WARN_MISSING_SLICES: return "missing";
    case LB_DICOM_SERIES_WARN_IRREGULAR_SPACING: return "irregular";
    case LB_DICOM_SERIES_WARN_MIXED_ORIENTATION: return "mixed";
    case LB_DICOM_SERIES_WARN_NO_POSITION: return "no-position";
    case LB_DICOM_SERIES_WARN_NONE:
    default: g_assert_not_reached ();
    }
}

static void
check_case (JsonObject *c)
{
  const char *name = json_object_get_string_member (c, "case");
  JsonArray *instances = json_object_get_array_member (c, "instances");
  JsonObject *exp = json_object_get_object_member (c, "expected");
  JsonArray *order = json_object_get_array_member (exp, "order");
  JsonArray *locations = json_object_get_array_member (exp, "locations");
  JsonArray *warnings = json_object_get_array_member (exp, "warnings");
  g_autoptr(LbDicomSeries) series = lb_dicom_series_new ();
  const char * const *messages;
  guint want_warnings = 0, n_messages = 0;
  double normal[3];

  g_test_message ("case %s", name);
  for (guint i = 0; i < json_array_get_length (instances); i++)
    {
      JsonObject *inst = json_array_get_object_element (instances, i);
      g_autoptr(GError) error = NULL;
      g_autoptr(LbDicomDataset) ds =
        lb_dicom_dataset_new_from_json_object (json_object_get_member (inst, "dataset"), &error);

      g_assert_no_error (error);
      lb_dicom_series_add (series, json_object_get_string_member (inst, "name"), ds);
    }
  lb_dicom_series_sort (series);

  g_assert_cmpuint (lb_dicom_series_get_n_slices (series), ==, json_array_get_length (order));
  for (guint i = 0; i < json_array_get_length (order); i++)
    {
      JsonArray *o = json_array_get_array_element (order, i);
      const LbDicomSlice *s = lb_dicom_series_get_slice (series, i);
      JsonNode *loc = json_array_get_element (locations, i);

      g_assert_cmpstr (s->name, ==, json_array_get_string_element (o, 0));
      g_assert_cmpint (s->frame, ==, json_array_get_int_element (o, 1));
      if (JSON_NODE_HOLDS_NULL (loc))
        g_assert_true (isnan (s->location));
      else
        g_assert_cmpfloat_with_epsilon (s->location, json_node_get_double (loc), 1e-9);
    }
  if (json_object_get_null_member (exp, "normal"))
    g_assert_false (lb_dicom_series_get_normal (series, normal));
  else
    {
      JsonArray *n = json_object_get_array_member (exp, "normal");

      g_assert_true (lb_dicom_series_get_normal (series, normal));
      for (guint k = 0; k < 3; k++)
        g_assert_cmpfloat_with_epsilon (normal[k], json_array_get_double_element (n, k), 1e-9);
    }
  g_assert_cmpfloat_with_epsilon (lb_dicom_series_get_spacing (series),
                                  json_object_get_double_member (exp, "spacing"), 1e-9);
  g_assert_cmpuint (lb_dicom_series_get_n_missing (series), ==,
                    json_object_get_int_member (exp, "missing"));
  for (guint i = 0; i < json_array_get_length (warnings); i++)
    {
      const char *w = json_array_get_string_element (warnings, i);

      for (guint bit = 1; bit <= LB_DICOM_SERIES_WARN_NO_POSITION; bit <<= 1)
        if (strcmp (warning_word (bit), w) == 0)
          want_warnings |= bit;
    }
  g_assert_cmphex (lb_dicom_series_get_warnings (series), ==, want_warnings);
  /* one sentence per warning, for the reader */
  messages = lb_dicom_series_get_messages (series);
  while (messages[n_messages])
    g_assert_cmpuint (strlen (messages[n_messages++]), >, 10);
  g_assert_cmpuint (n_messages, ==, json_array_get_length (warnings));
}

static void
test_reference_cases (void)
{
  g_autoptr(JsonNode) root = run_reference ("series-reference.py", NULL);
  JsonArray *cases;

  if (root == NULL)
    return;
  cases = json_node_get_array (root);
  g_assert_cmpuint (json_array_get_length (cases), >=, 14);
  for (guint i = 0; i < json_array_get_length (cases); i++)
    check_case (json_array_get_object_element (cases, i));
}

/* The stored value at the centre of frame @frame of @file (native little-endian 16-bit). */
static gint16
centre_value (LbDicomFile *file, guint frame, guint size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = lb_dicom_file_dup_frame (file, frame, &error);
  const guint8 *p;

  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, (gsize) size * size * 2);
  p = (const guint8 *) g_bytes_get_data (bytes, NULL) + ((size / 2) * size + size / 2) * 2;
  return (gint16) (p[0] | p[1] << 8);
}

static LbDicomFile *
open_file (const char *dir, const char *sub, const char *name)
{
  g_autofree char *path = g_build_filename (dir, sub ? sub : name, sub ? name : NULL, NULL);
  g_autoptr(GError) error = NULL;
  LbDicomFile *file = lb_dicom_file_new_for_path (path, 0, NULL, &error);

  g_assert_no_error (error);
  return file;
}

static void
test_phantom (void)
{
  g_autofree char *dir = lb_test_make_tmpdir ("phantom");
  const char *args[] = { dir, "--shuffle", "7", "--slices", "9", "--multiframe",
                         "--orientations", "axial,sagittal,coronal,oblique", NULL };
  g_autoptr(JsonNode) root = run_reference ("make-phantom.py", args);
  JsonObject *m;
  JsonArray *all;
  guint size;
  double spacing;

  if (root == NULL)
    return;
  m = json_node_get_object (root);
  all = json_object_get_array_member (m, "series");
  size = json_object_get_int_member (m, "size");
  spacing = json_object_get_double_member (m, "spacing");
  g_assert_cmpuint (json_array_get_length (all), ==, 4);
  for (guint si = 0; si < json_array_get_length (all); si++)
    {
      JsonObject *sm = json_array_get_object_element (all, si);
      const char *sub = json_object_get_string_member (sm, "dir");
      JsonArray *files = json_object_get_array_member (sm, "files");
      g_autoptr(LbDicomSeries) series = lb_dicom_series_new ();
      g_autoptr(GHashTable) by_name = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                             g_object_unref);
      g_autofree char *sub_dir = g_build_filename (dir, sub, NULL);
      g_autoptr(GDir) d = g_dir_open (sub_dir, 0, NULL);
      const char *fname;

      /* in directory order, which the shuffled names make unrelated to the slice order */
      while ((fname = g_dir_read_name (d)))
        {
          LbDicomFile *file = open_file (dir, sub, fname);

          lb_dicom_series_add (series, fname, lb_dicom_file_get_dataset (file));
          g_hash_table_insert (by_name, (char *) lb_dicom_file_get_name (file), file);
        }
      lb_dicom_series_sort (series);
      g_assert_cmpuint (lb_dicom_series_get_n_slices (series), ==, json_array_get_length (files));
      g_assert_cmphex (lb_dicom_series_get_warnings (series), ==, 0);
      g_assert_cmpfloat_with_epsilon (lb_dicom_series_get_spacing (series), spacing, 1e-6);
      for (guint k = 0; k < lb_dicom_series_get_n_slices (series); k++)
        {
          const LbDicomSlice *s = lb_dicom_series_get_slice (series, k);
          g_autofree char *path = g_build_filename (dir, sub, s->name, NULL);
          LbDicomFile *file = g_hash_table_lookup (by_name, path);

          g_assert_nonnull (file);
          g_assert_cmpint (centre_value (file, 0, size), ==, 2000 + (int) k);
          for (guint j = 0; j < json_array_get_length (files); j++)
            {
              JsonObject *fm = json_array_get_object_element (files, j);

              if (strcmp (json_object_get_string_member (fm, "name"), s->name) == 0)
                g_assert_cmpfloat_with_epsilon (s->location,
                                                json_object_get_double_member (fm, "location"),
                                                1e-6);
            }
        }
    }

  /* the multi-frame object: frames stored last slice first, ordered back by position */
  {
    g_autoptr(LbDicomFile) file = open_file (dir, NULL, "multiframe.dcm");
    g_autoptr(LbDicomSeries) series = lb_dicom_series_new ();
    g_autoptr(GError) error = NULL;

    g_assert_true (lb_dicom_file_check_pixels (file, &error));
    g_assert_cmpuint (lb_dicom_series_add (series, "multiframe.dcm",
                                           lb_dicom_file_get_dataset (file)), ==, 9);
    lb_dicom_series_sort (series);
    g_assert_cmphex (lb_dicom_series_get_warnings (series), ==, 0);
    for (guint k = 0; k < 9; k++)
      {
        const LbDicomSlice *s = lb_dicom_series_get_slice (series, k);

        g_assert_cmpuint (s->frame, ==, 8 - k);
        g_assert_cmpint (centre_value (file, s->frame, size), ==, 2000 + (int) k);
      }
  }
  lb_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/dicom/series/reference-cases", test_reference_cases);
  g_test_add_func ("/dicom/series/phantom", test_phantom);
  return g_test_run ();
}
