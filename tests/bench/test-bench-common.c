/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The bench helpers: quantiles, the stable-median loop, tables and plots. */
#include <glib/gstdio.h>
#include <string.h>

#include "lb-bench-plot.h"
#include "lb-image-loader.h"
#include "lb-measure-table.h"
#include "lb-measure.h"
#include "lb-test-files.h"

static void
test_stats (void)
{
  double s[] = { 5, 1, 4, 2, 3 };
  LbMeasureStats st = lb_measure_stats_of (s, 5);

  g_assert_cmpfloat (st.median, ==, 3);
  g_assert_cmpfloat (st.min, ==, 1);
  g_assert_cmpfloat (st.max, ==, 5);
  g_assert_cmpfloat_with_epsilon (st.p10, 1.4, 1e-9);
  g_assert_cmpfloat_with_epsilon (st.p90, 4.6, 1e-9);
}

static double
constant_run (gpointer data)
{
  (*(guint *) data)++;
  return 7.0;
}

static double
noisy_run (gpointer data)
{
  guint *n = data;
  (*n)++;
  return (*n % 2) ? 1.0 : 100.0; /* alternates: the median swings and never settles */
}

static void
test_measure (void)
{
  LbMeasureOptions opt = { 3, 5, 50, 5.0, 0.02 };
  guint calls = 0;
  LbMeasureStats st = lb_measure_run (constant_run, &calls, &opt);

  /* warm-up 3, then two rounds of 5 until the median repeats */
  g_assert_true (st.stable);
  g_assert_cmpfloat (st.median, ==, 7.0);
  g_assert_cmpuint (st.n, ==, 10);
  g_assert_cmpuint (calls, ==, 13);

  calls = 0;
  opt.min_runs = 1;
  opt.warmup = 0;
  st = lb_measure_run (noisy_run, &calls, &opt);
  g_assert_false (st.stable);
  g_assert_cmpuint (st.n, ==, 50);
}

static void
test_table (void)
{
  const char *cols[] = { "filter", "ms", NULL };
  g_autoptr (LbMeasureTable) t = lb_measure_table_new ("T", cols);
  g_autofree char *dir = lb_test_make_tmpdir ("bench");
  g_autofree char *csv = g_build_filename (dir, "t.csv", NULL);
  g_autofree char *text = NULL;
  g_autoptr (JsonNode) json = NULL;
  g_autofree char *json_text = NULL;
  g_autoptr (GError) error = NULL;

  lb_measure_table_add_rowf (t, "blur, 3", "1.25", NULL);
  lb_measure_table_add_rowf (t, "edge", "0.5", NULL);
  g_assert_true (lb_measure_table_write_csv (t, csv, &error));
  g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "filter,ms\n\"blur, 3\",1.25\nedge,0.5\n");
  json = lb_measure_table_to_json (t);
  json_text = json_to_string (json, FALSE);
  g_assert_nonnull (strstr (json_text, "\"ms\":1.25"));
  g_assert_nonnull (strstr (json_text, "\"filter\":\"edge\""));
  g_assert_cmpstr (lb_measure_table_get_cell (t, 1, "ms"), ==, "0.5");
  g_unlink (csv);
  g_rmdir (dir);
}

/* The markdown table: pipes and markup escaped (an underscore only at a word's edge), numeric
 * columns right-aligned, the columns padded to one width. */
static void
test_table_markdown (void)
{
  const char *cols[] = { "filter", "ms", "note", NULL };
  g_autoptr (LbMeasureTable) t = lb_measure_table_new ("T", cols);
  g_autofree char *md = NULL;

  lb_measure_table_add_rowf (t, "a|b", "1.5", "", NULL);
  lb_measure_table_add_rowf (t, "edge_", "12", "x*y", NULL);
  lb_measure_table_add_rowf (t, "x", "", "p10_ms", NULL);
  md = lb_measure_table_to_markdown (t);
  g_assert_cmpstr (md, ==,
                   "| filter |  ms | note   |\n"
                   "| ------ | --: | ------ |\n"
                   "| a\\|b   | 1.5 |        |\n"
                   "| edge\\_ |  12 | x\\*y   |\n"
                   "| x      |     | p10_ms |\n");
  g_assert_cmpstr (lb_measure_table_get_title (t), ==, "T");
}

static void
test_plot (void)
{
  g_autoptr (LbBenchPlot) plot = lb_bench_plot_new ("Filter time", "Mpx", "ms");
  g_autofree char *dir = lb_test_make_tmpdir ("plot");
  g_autofree char *base = g_build_filename (dir, "fig", NULL);
  g_autofree char *png = g_strconcat (base, ".png", NULL);
  g_autofree char *svg = g_strconcat (base, ".svg", NULL);
  g_autofree char *svg_text = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (LbImage) image = NULL;
  g_autoptr (GHashTable) colours = g_hash_table_new (NULL, NULL);
  guint a, b;

  lb_bench_plot_set_log (plot, TRUE, TRUE);
  a = lb_bench_plot_add_series (plot, "blur 3");
  b = lb_bench_plot_add_series (plot, "despeckle 5");
  for (double x = 0.1; x < 70; x *= 2)
    {
      lb_bench_plot_add_point (plot, a, x, 2 * x);
      lb_bench_plot_add_point (plot, b, x, 30 * x);
    }
  g_assert_true (lb_bench_plot_save (plot, base, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (svg, &svg_text, NULL, NULL));
  g_assert_nonnull (strstr (svg_text, "<svg"));
  image = lb_image_load_file (png, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (lb_image_get_width (image), ==, 800);
  /* Lines in several colours, text and grid: far more than a blank or single-colour image. */
  for (guint y = 0; y < lb_image_get_height (image); y++)
    {
      const guint8 *row = lb_image_get_row (image, y);
      for (guint x = 0; x < lb_image_get_width (image); x++)
        g_hash_table_add (colours, GUINT_TO_POINTER ((row[3 * x] << 16) | (row[3 * x + 1] << 8) | row[3 * x + 2]));
    }
  g_assert_cmpuint (g_hash_table_size (colours), >, 20);
  g_unlink (png);
  g_unlink (svg);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bench/stats", test_stats);
  g_test_add_func ("/bench/measure", test_measure);
  g_test_add_func ("/bench/table", test_table);
  g_test_add_func ("/bench/table-markdown", test_table_markdown);
  g_test_add_func ("/bench/plot", test_plot);
  return g_test_run ();
}
