/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-view"

#include "lb-measurement-csv.h"

#include <string.h>

static const char *const columns[] = {
  "image", "slice", "tool", "text", "length", "length_unit", "angle_deg", "area", "area_unit",
  "pixels", "padding", "mean", "sd", "min", "max", "value", "value_unit", "spacing", "points",
  "series",
};

/* One line being written: the fields so far. */
typedef struct {
  GString *out;
  guint    n_fields;
} Line;

/* One field, quoted when it must be (RFC 4180 §2.6, §2.7). */
static void
add_field (Line *line, const char *text, gboolean is_text)
{
  GString *out = line->out;
  gboolean formula, quote;

  if (line->n_fields++ > 0)
    g_string_append_c (out, ',');
  if (text == NULL || *text == '\0')
    return;
  /* a label such as "=HYPERLINK(…)" must stay a label in a spreadsheet */
  formula = is_text && strchr ("=+-@", text[0]) != NULL;
  quote = formula || strpbrk (text, ",\"\r\n") != NULL;
  if (!quote)
    {
      g_string_append (out, text);
      return;
    }
  g_string_append_c (out, '"');
  if (formula)
    g_string_append_c (out, '\'');
  for (const char *p = text; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

static void
add_number (Line *out, gboolean present, double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  add_field (out, present ? g_ascii_formatd (buf, sizeof buf, "%.10g", value) : NULL, FALSE);
}

static void
add_count (Line *out, gboolean present, guint64 value)
{
  char buf[24];

  g_snprintf (buf, sizeof buf, "%" G_GUINT64_FORMAT, value);
  add_field (out, present ? buf : NULL, FALSE);
}

static void
add_points (Line *out, LbMeasurement *m)
{
  g_autoptr(GString) s = g_string_new (NULL);
  const LbMeasurementPoint *p = lb_measurement_get_points (m);

  for (guint i = 0; i < lb_measurement_get_n_points (m); i++)
    {
      char x[G_ASCII_DTOSTR_BUF_SIZE], y[G_ASCII_DTOSTR_BUF_SIZE];

      g_string_append_printf (s, "%s%s %s", i ? ";" : "",
                              g_ascii_formatd (x, sizeof x, "%.10g", p[i].x),
                              g_ascii_formatd (y, sizeof y, "%.10g", p[i].y));
    }
  add_field (out, s->str, FALSE);
}

static void
add_row (GString *text, const LbMeasurementCsvRow *row)
{
  Line line = { text, 0 }, *out = &line;
  const LbMeasurementValues *v = row->values;
  LbMeasurementTool tool = v->tool;
  gboolean has_length = tool == LB_MEASUREMENT_LENGTH || tool == LB_MEASUREMENT_POLYLINE
                        || tool == LB_MEASUREMENT_ARROW;
  gboolean is_roi = lb_measurement_tool_is_roi (tool);
  gboolean stats = is_roi && v->has_stats, some = stats && v->stats.n_pixels > 0;
  char slice[16];

  g_snprintf (slice, sizeof slice, "%u", row->slice);
  add_field (out, row->image, TRUE);
  add_field (out, row->slice > 0 ? slice : NULL, FALSE);
  add_field (out, lb_measurement_tool_to_string (tool), FALSE);
  add_field (out, lb_measurement_get_text (row->measurement), TRUE);
  add_number (out, has_length, v->length);
  add_field (out, has_length ? lb_measurement_spacing_length_unit (&v->spacing) : NULL, FALSE);
  add_number (out, tool == LB_MEASUREMENT_ANGLE, v->angle);
  add_number (out, is_roi, v->area);
  add_field (out, is_roi ? lb_measurement_spacing_area_unit (&v->spacing) : NULL, FALSE);
  add_count (out, stats, v->stats.n_pixels);
  add_count (out, stats, v->stats.n_padding);
  add_number (out, some, v->stats.mean);
  add_number (out, some, v->stats.sd);
  add_number (out, some, v->stats.min);
  add_number (out, some, v->stats.max);
  add_number (out, v->has_value, v->value);
  add_field (out, some || v->has_value ? v->value_unit : NULL, TRUE);
  add_field (out, lb_measurement_spacing_kind_to_string (v->spacing.kind), FALSE);
  add_points (out, row->measurement);
  add_field (out, row->series, TRUE);
  g_string_append (text, "\r\n");
}

char *
lb_measurement_csv (const LbMeasurementCsvRow *rows, guint n_rows)
{
  GString *out = g_string_new (NULL);

  g_return_val_if_fail (rows != NULL || n_rows == 0, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (columns); i++)
    g_string_append_printf (out, "%s%s", i ? "," : "", columns[i]);
  g_string_append (out, "\r\n");
  for (guint i = 0; i < n_rows; i++)
    add_row (out, &rows[i]);
  return g_string_free (out, FALSE);
}
