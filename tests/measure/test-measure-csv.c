/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The measurement list as CSV, read back by Python's csv module (csv-read.py, strict
 * RFC 4180): the header, one row per measurement with every tool, numbers that parse back to
 * the computed values, empty cells where a column does not apply, labels with commas, quotes
 * and line breaks intact, and a label that looks like a formula kept as text. */
#include <math.h>
#include <string.h>
#include <sys/wait.h>

#include <json-glib/json-glib.h>

#include "lb-measurement-csv.h"
#include "lb-test-image.h"

static JsonArray *
read_back (const char *csv, JsonNode **root)
{
  g_autofree char *script = g_build_filename (g_getenv ("LB_SOURCE_ROOT"), "tests", "measure",
                                              "csv-read.py", NULL);
  const char *argv[] = { "/usr/bin/python3", script, NULL };
  g_autoptr(GSubprocess) p = NULL;
  g_autoptr(GBytes) in = g_bytes_new (csv, strlen (csv));
  g_autoptr(GBytes) out = NULL;
  g_autoptr(GError) error = NULL;

  p = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE,
                         &error);
  g_assert_no_error (error);
  g_subprocess_communicate (p, in, NULL, &out, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_successful (p));
  *root = json_from_string (g_bytes_get_data (out, NULL), &error);
  g_assert_no_error (error);
  return json_node_get_array (*root);
}

static const char *
cell (JsonArray *rows, guint row, JsonArray *header, const char *column)
{
  JsonArray *r = json_array_get_array_element (rows, row);

  for (guint i = 0; i < json_array_get_length (header); i++)
    if (strcmp (json_array_get_string_element (header, i), column) == 0)
      return json_array_get_string_element (r, i);
  g_error ("no column %s", column);
}

static void
check_number (const char *text, double expected)
{
  char *end;
  double got = g_ascii_strtod (text, &end);

  g_assert_true (*text != '\0' && *end == '\0');
  g_assert_cmpfloat (fabs (got - expected), <=, 1e-9 * MAX (1, fabs (expected)));
}

static void
test_csv (void)
{
  static const LbMeasurementPoint pts[] = {
    { 3.5, 4.25 }, { 30.75, 20.5 }, { 10.5, 27.5 }, { 2.5, 20.5 },
  };
  static const char *const texts[] = {
    "plain", "a, \"quoted\"\nsecond line", "=HYPERLINK(\"x\")", NULL, "-3 mm", "@x", NULL, "ü",
  };
  g_autoptr(LbImage) grey = lb_test_image_new (40, 30, LB_FORMAT_GRAY16, 9);
  g_autoptr(LbImageMeta) meta = lb_image_meta_new ();
  g_autoptr(LbValueModel) model = NULL;
  g_autoptr(LbImage) image = NULL;
  g_autoptr(JsonNode) root = NULL;
  LbMeasurementSpacing spacing = { LB_MEASUREMENT_SPACING_CALIBRATED, 0.7, 0.9, 1 };
  LbMeasurement *ms[LB_MEASUREMENT_N_TOOLS];
  LbMeasurementValues vs[LB_MEASUREMENT_N_TOOLS];
  LbMeasurementCsvRow rows[LB_MEASUREMENT_N_TOOLS];
  g_autofree char *csv = NULL;
  JsonArray *lines, *header;
  LbValueModelBuilder *b = lb_value_model_builder_new (NULL, 16);

  lb_value_model_builder_set_rescale (b, 0.5, -100);
  lb_value_model_builder_set_units (b, "HU");
  model = lb_value_model_builder_end (b);
  lb_image_meta_set_value_model (meta, model);
  image = lb_image_with_meta (grey, meta);

  for (guint t = 0; t < LB_MEASUREMENT_N_TOOLS; t++)
    {
      guint lo, hi;

      lb_measurement_tool_get_n_points (t, &lo, &hi);
      ms[t] = lb_measurement_new_with_points (t, pts, MIN (hi, G_N_ELEMENTS (pts)), NULL);
      lb_measurement_set_text (ms[t], texts[t]);
      g_assert_true (lb_measurement_compute (ms[t], &spacing, image, &vs[t], NULL));
      rows[t] = (LbMeasurementCsvRow) { t % 2 ? "CT, series 2" : "CT.dcm", t, ms[t], &vs[t],
                                        t % 2 ? "CT #2, \"axial\"" : NULL };
    }
  csv = lb_measurement_csv (rows, LB_MEASUREMENT_N_TOOLS);
  lines = read_back (csv, &root);
  g_assert_cmpuint (json_array_get_length (lines), ==, LB_MEASUREMENT_N_TOOLS + 1);
  header = json_array_get_array_element (lines, 0);
  g_assert_cmpuint (json_array_get_length (header), ==, 20);

  for (guint t = 0; t < LB_MEASUREMENT_N_TOOLS; t++)
    {
      guint r = t + 1;
      const char *text = cell (lines, r, header, "text");

      g_assert_cmpstr (cell (lines, r, header, "tool"), ==, lb_measurement_tool_to_string (t));
      g_assert_cmpstr (cell (lines, r, header, "image"), ==, t % 2 ? "CT, series 2" : "CT.dcm");
      g_assert_cmpstr (cell (lines, r, header, "series"), ==, t % 2 ? "CT #2, \"axial\"" : "");
      {
        g_autofree char *slice = t ? g_strdup_printf ("%u", t) : g_strdup ("");

        g_assert_cmpstr (cell (lines, r, header, "slice"), ==, slice);
      }
      g_assert_cmpstr (cell (lines, r, header, "spacing"), ==, "calibrated");
      if (texts[t] == NULL)
        g_assert_cmpstr (text, ==, "");
      else if (strchr ("=+-@", texts[t][0]))
        {
          /* kept as text: the apostrophe, then the label */
          g_assert_cmpint (text[0], ==, '\'');
          g_assert_cmpstr (text + 1, ==, texts[t]);
        }
      else
        g_assert_cmpstr (text, ==, texts[t]);

      switch (vs[t].tool)
        {
        case LB_MEASUREMENT_LENGTH:
        case LB_MEASUREMENT_POLYLINE:
        case LB_MEASUREMENT_ARROW:
          check_number (cell (lines, r, header, "length"), vs[t].length);
          g_assert_cmpstr (cell (lines, r, header, "length_unit"), ==, "mm");
          g_assert_cmpstr (cell (lines, r, header, "area"), ==, "");
          g_assert_cmpstr (cell (lines, r, header, "mean"), ==, "");
          break;
        case LB_MEASUREMENT_ANGLE:
          check_number (cell (lines, r, header, "angle_deg"), vs[t].angle);
          g_assert_cmpstr (cell (lines, r, header, "length"), ==, "");
          break;
        case LB_MEASUREMENT_RECTANGLE:
        case LB_MEASUREMENT_ELLIPSE:
        case LB_MEASUREMENT_FREEHAND:
          check_number (cell (lines, r, header, "area"), vs[t].area);
          g_assert_cmpstr (cell (lines, r, header, "area_unit"), ==, "mm²");
          check_number (cell (lines, r, header, "pixels"), vs[t].stats.n_pixels);
          check_number (cell (lines, r, header, "mean"), vs[t].stats.mean);
          check_number (cell (lines, r, header, "sd"), vs[t].stats.sd);
          check_number (cell (lines, r, header, "min"), vs[t].stats.min);
          check_number (cell (lines, r, header, "max"), vs[t].stats.max);
          g_assert_cmpstr (cell (lines, r, header, "value_unit"), ==, "HU");
          g_assert_cmpstr (cell (lines, r, header, "angle_deg"), ==, "");
          break;
        case LB_MEASUREMENT_PROBE:
          check_number (cell (lines, r, header, "value"), vs[t].value);
          g_assert_cmpstr (cell (lines, r, header, "value_unit"), ==, "HU");
          g_assert_cmpstr (cell (lines, r, header, "length"), ==, "");
          break;
        default:
          g_assert_not_reached ();
        }
      /* the points, "x y" pairs separated by ';' */
      {
        g_auto(GStrv) pairs = g_strsplit (cell (lines, r, header, "points"), ";", -1);

        g_assert_cmpuint (g_strv_length (pairs), ==, lb_measurement_get_n_points (ms[t]));
        for (guint k = 0; pairs[k]; k++)
          {
            g_auto(GStrv) xy = g_strsplit (pairs[k], " ", -1);

            g_assert_cmpuint (g_strv_length (xy), ==, 2);
            check_number (xy[0], lb_measurement_get_point (ms[t], k).x);
            check_number (xy[1], lb_measurement_get_point (ms[t], k).y);
          }
      }
      g_object_unref (ms[t]);
    }

  /* no rows: the header alone */
  g_free (csv);
  csv = lb_measurement_csv (NULL, 0);
  g_assert_true (g_str_has_suffix (csv, "points,series\r\n"));
  g_assert_true (strchr (csv, '\n') == csv + strlen (csv) - 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/measure/csv", test_csv);
  return g_test_run ();
}
