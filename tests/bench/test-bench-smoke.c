/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Smoke test of lightbox-bench: the subcommands run on tiny sizes and produce CSV, JSON,
 * SVG and PNG files that parse. No timing is asserted (speed is for the bench to print). */
#include <cairo.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "lb-test-files.h"

static const char *bench_exe;

static void
run_bench (const char *const *argv, const char *cwd)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr (GError) error = NULL;
  int status = 0;

  g_assert_true (g_spawn_sync (cwd, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                               &status, &error));
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, &error))
    g_printerr ("stdout:\n%s\nstderr:\n%s\n", out, err);
  g_assert_no_error (error);
  g_test_message ("%s", out);
}

/* A CSV file with the expected header and at least @min_rows data rows of as many cells. */
static void
check_csv (const char *path, const char *header_start, guint min_rows)
{
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) lines = NULL;
  g_auto (GStrv) header = NULL;
  guint n_cols, rows = 0;

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  lines = g_strsplit (text, "\n", -1);
  g_assert_true (g_str_has_prefix (lines[0], header_start));
  header = g_strsplit (lines[0], ",", -1);
  n_cols = g_strv_length (header);
  for (guint i = 1; lines[i] != NULL; i++)
    {
      g_auto (GStrv) cells = NULL;
      if (lines[i][0] == '\0')
        continue;
      /* No cell of ours contains a comma except quoted ones; count those fields simply. */
      if (strchr (lines[i], '"') == NULL)
        {
          cells = g_strsplit (lines[i], ",", -1);
          g_assert_cmpuint (g_strv_length (cells), ==, n_cols);
        }
      rows++;
    }
  g_assert_cmpuint (rows, >=, min_rows);
}

/* The JSON results: the command's name and its tables. */
static JsonObject *
load_json (JsonParser *parser, const char *path, const char *command)
{
  g_autoptr (GError) error = NULL;
  JsonObject *root;

  g_assert_true (json_parser_load_from_file (parser, path, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "command"), ==, command);
  g_assert_true (json_object_has_member (root, "tables"));
  return json_object_get_object_member (root, "tables");
}

static JsonArray *
table_rows (JsonObject *tables, const char *key)
{
  JsonObject *t = json_object_get_object_member (tables, key);

  g_assert_nonnull (t);
  return json_object_get_array_member (t, "rows");
}

static void
check_plot (const char *dir, const char *base)
{
  g_autofree char *png = g_strdup_printf ("%s/%s.png", dir, base);
  g_autofree char *svg = g_strdup_printf ("%s/%s.svg", dir, base);
  g_autofree char *svg_text = NULL;
  cairo_surface_t *s = cairo_image_surface_create_from_png (png);

  g_assert_cmpint (cairo_surface_status (s), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (s), >, 100);
  g_assert_cmpint (cairo_image_surface_get_height (s), >, 100);
  cairo_surface_destroy (s);
  g_assert_true (g_file_get_contents (svg, &svg_text, NULL, NULL));
  g_assert_nonnull (strstr (svg_text, "<svg"));
}

static void
test_filters (void)
{
  g_autofree char *cwd = lb_test_make_tmpdir ("bench-smoke");
  g_autofree char *out = NULL;
  g_autofree char *csv = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  const char *argv[] = { bench_exe, "filters", "--quick", "--sizes", "0.1", "--filters", "blur,edge",
                         "--out", "tmp", "--markdown", "md/filters.md", NULL };
  g_autofree char *md_path = g_build_filename (cwd, "md", "filters.md", NULL);
  g_autofree char *md = NULL;
  JsonObject *tables;
  JsonArray *rows;
  guint n_threads = g_get_num_processors ();

  run_bench (argv, cwd);
  out = g_build_filename (cwd, "tmp", NULL);

  csv = g_build_filename (out, "filters-passes.csv", NULL);
  /* blur 3, blur 7 and edge × rgb8 and gray16 × 1 and all threads */
  check_csv (csv, "filter,format,size,mpx,threads,path,ms", 3 * 2 * (n_threads > 1 ? 2 : 1));
  tables = load_json (parser, (g_free (csv), csv = g_build_filename (out, "filters.json", NULL)),
                      "filters");
  rows = table_rows (tables, "passes");
  g_assert_cmpuint (json_array_get_length (rows), ==, 3 * 2 * (n_threads > 1 ? 2 : 1));
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *r = json_array_get_object_element (rows, i);
      const char *filter = json_object_get_string_member (r, "filter");

      g_assert_true (g_str_equal (filter, "blur 3") || g_str_equal (filter, "blur 7")
                     || g_str_equal (filter, "edge"));
      g_assert_cmpfloat (json_object_get_double_member (r, "mpx"), ==, 0.1);
      /* a real measurement happened: a positive median and a reference-path baseline */
      g_assert_cmpfloat (json_object_get_double_member (r, "ms"), >, 0);
      g_assert_cmpfloat (json_object_get_double_member (r, "ref_ms"), >, 0);
    }
  /* radius rows only for the selected ids with a radius (blur), both formats */
  g_assert_cmpuint (json_array_get_length (table_rows (tables, "radius")), ==, 2);
  table_rows (tables, "xv");       /* present; empty without a 1.4 Mpx size */
  table_rows (tables, "external"); /* rows only where ImageMagick/vips are installed */
  g_assert_cmpuint (json_array_get_length (table_rows (tables, "memory")), ==, 3);
  for (guint k = 0; k < 4; k++)
    {
      static const char *const keys[] = { "xv", "radius", "external", "memory" };
      g_autofree char *name = g_strdup_printf ("%s/filters-%s.csv", out, keys[k]);
      g_assert_true (g_file_test (name, G_FILE_TEST_IS_REGULAR));
    }
  check_plot (out, "filters-rgb8");
  check_plot (out, "filters-gray16");
  /* the markdown: the command first, then the tables with rows, each under its title */
  g_assert_true (g_file_get_contents (md_path, &md, NULL, NULL));
  g_assert_true (g_str_has_prefix (md, "Generated by `lightbox-bench filters --quick --sizes 0.1 "
                                       "--filters blur,edge --out tmp --markdown md/filters.md` at commit "));
  g_assert_nonnull (strstr (md, "\n## Filters: median ms per pass"));
  g_assert_nonnull (strstr (md, "\n| blur 3 "));
  g_assert_null (strstr (md, "\n## Against xv's")); /* no rows without a 1.4 Mpx size */
  lb_test_remove_tree (cwd);
}

/* The median pairs of the radius table run on 16-bit gray twice: the full-range picture and
 * the 12-bit one (the 16-bit median's rank path); the other formats once. */
static void
test_filters_radius_12bit (void)
{
  g_autofree char *cwd = lb_test_make_tmpdir ("bench-smoke");
  g_autofree char *out = NULL;
  g_autofree char *json = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  const char *argv[] = { bench_exe, "filters", "--quick", "--sizes", "0.1", "--filters", "despeckle",
                         "--no-reference", "--no-external", "--no-memory", "--no-floor",
                         "--out", "tmp", NULL };
  const char *formats[] = { "rgb8", "gray16", "gray16 (12-bit)" };
  JsonArray *rows;

  run_bench (argv, cwd);
  out = g_build_filename (cwd, "tmp", NULL);
  json = g_build_filename (out, "filters.json", NULL);
  rows = table_rows (load_json (parser, json, "filters"), "radius");
  g_assert_cmpuint (json_array_get_length (rows), ==, G_N_ELEMENTS (formats));
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *r = json_array_get_object_element (rows, i);

      g_assert_cmpstr (json_object_get_string_member (r, "filter"), ==,
                       "despeckle 3 / despeckle 31");
      g_assert_cmpstr (json_object_get_string_member (r, "format"), ==, formats[i]);
      g_assert_cmpfloat (json_object_get_double_member (r, "ms_r15"), >, 0);
    }
  lb_test_remove_tree (cwd);
}

static void
test_net (void)
{
  g_autofree char *cwd = lb_test_make_tmpdir ("bench-smoke");
  g_autofree char *out = NULL;
  g_autofree char *path = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  const char *argv[] = { bench_exe, "net", "--quick", "--ttcp-mb", "1", "--out", "tmp", NULL };
  JsonObject *tables;
  JsonArray *rows;

  run_bench (argv, cwd);
  out = g_build_filename (cwd, "tmp", NULL);

  path = g_build_filename (out, "net-ttcp.csv", NULL);
  check_csv (path, "buffer_kb,direction,lightbox_ms,raw_ms", 16);  /* 8 buffers × 2 directions */
  g_free (path);
  path = g_build_filename (out, "net-transactions.csv", NULL);
  check_csv (path, "transaction,payload_bytes,lightbox_ms,lightbox_p90_ms", 12);
  g_free (path);
  path = g_build_filename (out, "net-files.csv", NULL);
  check_csv (path, "file,buffer,direction,lightbox_ms", 18);
  g_free (path);
  path = g_build_filename (out, "net-targets.csv", NULL);
  check_csv (path, "target,measured,met", 4);
  g_free (path);

  path = g_build_filename (out, "net.json", NULL);
  tables = load_json (parser, path, "net");
  rows = table_rows (tables, "ttcp");
  g_assert_cmpuint (json_array_get_length (rows), ==, 16);
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *r = json_array_get_object_element (rows, i);
      g_assert_cmpfloat (json_object_get_double_member (r, "lightbox_mb_per_s"), >, 0);
      g_assert_cmpfloat (json_object_get_double_member (r, "raw_mb_per_s"), >, 0);
    }
  rows = table_rows (tables, "transactions");
  g_assert_cmpuint (json_array_get_length (rows), ==, 12);
  g_assert_cmpuint (json_array_get_length (table_rows (tables, "targets")), ==, 4);
  check_plot (out, "net-ttcp");
  check_plot (out, "net-transactions");
  lb_test_remove_tree (cwd);
}

/* dicom: two files per syntax; every syntax the codecs take gets a row in both tables. */
static void
test_dicom (void)
{
  g_autofree char *cwd = lb_test_make_tmpdir ("bench-smoke");
  g_autofree char *path = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  const char *argv[] = { bench_exe, "dicom", "--quick", "--files", "2", "--out", "tmp", NULL };
  JsonObject *tables;
  JsonArray *rows;

  if (!g_file_test ("/usr/lib/python3/dist-packages/pydicom", G_FILE_TEST_IS_DIR)
      || !g_file_test ("/usr/bin/dcmcjpeg", G_FILE_TEST_EXISTS))
    {
      g_test_skip ("python3-pydicom or DCMTK is not installed");
      return;
    }
  run_bench (argv, cwd);
  path = g_build_filename (cwd, "tmp", "dicom.json", NULL);
  tables = load_json (parser, path, "dicom");
  rows = table_rows (tables, "frame");
  /* nine compressed syntaxes and Explicit VR Little Endian; JPEG 2000 only with gdcmconv */
  g_assert_cmpuint (json_array_get_length (rows), >=, 8);
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *r = json_array_get_object_element (rows, i);

      g_assert_cmpfloat (json_object_get_double_member (r, "lightbox_mb_per_s"), >, 0);
    }
  g_assert_cmpuint (json_array_get_length (table_rows (tables, "series")), ==,
                    json_array_get_length (rows));
  g_free (path);
  path = g_build_filename (cwd, "tmp", "dicom-series.csv", NULL);
  check_csv (path, "syntax,files,lightbox_s", json_array_get_length (rows));
  lb_test_remove_tree (cwd);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (argc < 2)
    {
      g_printerr ("usage: %s LIGHTBOX-BENCH\n", argv[0]);
      return 2;
    }
  bench_exe = argv[1];
  g_test_add_func ("/bench/smoke/filters", test_filters);
  g_test_add_func ("/bench/smoke/filters-radius-12bit", test_filters_radius_12bit);
  g_test_add_func ("/bench/smoke/net", test_net);
  g_test_add_func ("/bench/smoke/dicom", test_dicom);
  return g_test_run ();
}
