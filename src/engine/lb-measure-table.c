/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-measure-table"

#include <stdarg.h>
#include <string.h>

#include "lb-measure-table.h"

struct _LbMeasureTable {
  char *title;
  GStrv columns;
  guint n_columns;
  GPtrArray *rows; /* GStrv each */
};

LbMeasureTable *
lb_measure_table_new (const char *title, const char *const *columns)
{
  LbMeasureTable *t = g_new0 (LbMeasureTable, 1);

  t->title = g_strdup (title);
  t->columns = g_strdupv ((char **) columns);
  t->n_columns = g_strv_length (t->columns);
  t->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  return t;
}

void
lb_measure_table_free (LbMeasureTable *t)
{
  if (t == NULL)
    return;
  g_free (t->title);
  g_strfreev (t->columns);
  g_ptr_array_unref (t->rows);
  g_free (t);
}

void
lb_measure_table_add_row (LbMeasureTable *t, const char *const *cells)
{
  char **row = g_new0 (char *, t->n_columns + 1);

  for (guint i = 0; i < t->n_columns; i++)
    row[i] = g_strdup (cells[i] ? cells[i] : "");
  g_ptr_array_add (t->rows, row);
}

void
lb_measure_table_add_rowf (LbMeasureTable *t, const char *first, ...)
{
  va_list args;
  g_autoptr (GPtrArray) cells = g_ptr_array_new ();
  const char *c = first;

  va_start (args, first);
  while (c != NULL && cells->len < t->n_columns)
    {
      g_ptr_array_add (cells, (gpointer) c);
      c = va_arg (args, const char *);
    }
  va_end (args);
  g_return_if_fail (cells->len == t->n_columns);
  lb_measure_table_add_row (t, (const char *const *) cells->pdata);
}

void
lb_measure_table_add_row_take (LbMeasureTable *table, char *first, ...)
{
  g_autoptr (GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
  va_list args;

  va_start (args, first);
  for (char *c = first; c != NULL; c = va_arg (args, char *))
    g_ptr_array_add (cells, c);
  va_end (args);
  g_ptr_array_add (cells, NULL);
  lb_measure_table_add_row (table, (const char *const *) cells->pdata);
}

guint
lb_measure_table_get_n_rows (LbMeasureTable *t)
{
  return t->rows->len;
}

const char *
lb_measure_table_get_cell (LbMeasureTable *t, guint row, const char *column)
{
  g_return_val_if_fail (row < t->rows->len, NULL);
  for (guint i = 0; i < t->n_columns; i++)
    if (g_str_equal (t->columns[i], column))
      return ((char **) t->rows->pdata[row])[i];
  return NULL;
}

const char *
lb_measure_table_get_title (LbMeasureTable *t)
{
  return t->title;
}

/* Numbers, and figures such as "1.5×" or "12%", are right-aligned; text is left-aligned. */
static gboolean
cell_is_numeric (const char *v)
{
  return v[0] != '\0' && strspn (v, "0123456789.-+e×x%") == strlen (v);
}

void
lb_measure_table_print (LbMeasureTable *t, FILE *out)
{
  g_autofree guint *width = g_new0 (guint, t->n_columns);

  for (guint c = 0; c < t->n_columns; c++)
    {
      width[c] = g_utf8_strlen (t->columns[c], -1);
      for (guint r = 0; r < t->rows->len; r++)
        width[c] = MAX (width[c], (guint) g_utf8_strlen (((char **) t->rows->pdata[r])[c], -1));
    }
  fprintf (out, "\n%s\n", t->title);
  for (guint c = 0; c < t->n_columns; c++)
    fprintf (out, "%s%-*s", c ? "  " : "", (int) width[c], t->columns[c]);
  fputc ('\n', out);
  for (guint c = 0; c < t->n_columns; c++)
    {
      fprintf (out, "%s", c ? "  " : "");
      for (guint i = 0; i < width[c]; i++)
        fputc ('-', out);
    }
  fputc ('\n', out);
  for (guint r = 0; r < t->rows->len; r++)
    {
      char **row = t->rows->pdata[r];
      for (guint c = 0; c < t->n_columns; c++)
        {
          /* Right-align numbers, left-align text. */
          gboolean numeric = cell_is_numeric (row[c]);
          int pad = (int) width[c] - (int) g_utf8_strlen (row[c], -1);
          fprintf (out, "%s", c ? "  " : "");
          if (numeric)
            fprintf (out, "%*s%s", pad, "", row[c]);
          else
            fprintf (out, "%s%*s", row[c], pad, "");
        }
      fputc ('\n', out);
    }
  fflush (out);
}

static void
csv_cell (GString *s, const char *v)
{
  if (strpbrk (v, ",\"\n") == NULL)
    {
      g_string_append (s, v);
      return;
    }
  g_string_append_c (s, '"');
  for (const char *p = v; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (s, '"');
      g_string_append_c (s, *p);
    }
  g_string_append_c (s, '"');
}

gboolean
lb_measure_table_write_csv (LbMeasureTable *t, const char *path, GError **error)
{
  g_autoptr (GString) s = g_string_new (NULL);

  for (guint c = 0; c < t->n_columns; c++)
    {
      if (c)
        g_string_append_c (s, ',');
      csv_cell (s, t->columns[c]);
    }
  g_string_append_c (s, '\n');
  for (guint r = 0; r < t->rows->len; r++)
    {
      for (guint c = 0; c < t->n_columns; c++)
        {
          if (c)
            g_string_append_c (s, ',');
          csv_cell (s, ((char **) t->rows->pdata[r])[c]);
        }
      g_string_append_c (s, '\n');
    }
  return g_file_set_contents (path, s->str, s->len, error);
}

/* A cell as text of a GitHub-flavoured markdown table: on one line, with the pipe and the
 * characters that could open inline markup escaped (an underscore only at the edge of a word,
 * where it could start or end emphasis: "p10_ms" stays as it is). */
static void
markdown_cell (GString *s, const char *v)
{
  for (const char *p = v; *p != '\0'; p++)
    {
      if (*p == '\n' || *p == '\r')
        {
          g_string_append_c (s, ' ');
          continue;
        }
      if (strchr ("\\|*`<[]", *p) != NULL
          || (*p == '_' && (p == v || !g_ascii_isalnum (p[-1]) || !g_ascii_isalnum (p[1]))))
        g_string_append_c (s, '\\');
      g_string_append_c (s, *p);
    }
}

static void
append_padded (GString *s, const char *v, guint width, gboolean right)
{
  guint pad = width - (guint) g_utf8_strlen (v, -1);

  if (!right)
    g_string_append (s, v);
  for (guint i = 0; i < pad; i++)
    g_string_append_c (s, ' ');
  if (right)
    g_string_append (s, v);
}

char *
lb_measure_table_to_markdown (LbMeasureTable *t)
{
  /* the escaped header and rows, row-major: (1 + rows) × columns */
  g_autoptr (GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
  g_autofree guint *width = g_new0 (guint, t->n_columns);
  g_autofree gboolean *right = g_new0 (gboolean, t->n_columns);
  GString *s = g_string_new (NULL);

  for (guint r = 0; r <= t->rows->len; r++)
    for (guint c = 0; c < t->n_columns; c++)
      {
        const char *v = r == 0 ? t->columns[c] : ((char **) t->rows->pdata[r - 1])[c];
        GString *e = g_string_new (NULL);

        markdown_cell (e, v);
        width[c] = MAX (width[c], (guint) g_utf8_strlen (e->str, -1));
        g_ptr_array_add (cells, g_string_free (e, FALSE));
      }
  for (guint c = 0; c < t->n_columns; c++)
    {
      gboolean any = FALSE, all = TRUE;

      for (guint r = 0; r < t->rows->len; r++)
        {
          const char *v = ((char **) t->rows->pdata[r])[c];

          if (v[0] != '\0')
            {
              any = TRUE;
              all = all && cell_is_numeric (v);
            }
        }
      right[c] = any && all;
      width[c] = MAX (width[c], 3); /* a delimiter cell has at least three dashes */
    }
  for (guint r = 0; r <= t->rows->len; r++)
    {
      for (guint c = 0; c < t->n_columns; c++)
        {
          g_string_append (s, "| ");
          append_padded (s, cells->pdata[r * t->n_columns + c], width[c], right[c]);
          g_string_append_c (s, ' ');
        }
      g_string_append (s, "|\n");
      for (guint c = 0; r == 0 && c < t->n_columns; c++)
        {
          g_string_append (s, "| ");
          for (guint i = 0; i < width[c] - (right[c] ? 1 : 0); i++)
            g_string_append_c (s, '-');
          g_string_append (s, right[c] ? ": " : " ");
        }
      if (r == 0)
        g_string_append (s, "|\n");
    }
  return g_string_free (s, FALSE);
}

JsonNode *
lb_measure_table_to_json (LbMeasureTable *t)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "title");
  json_builder_add_string_value (b, t->title);
  json_builder_set_member_name (b, "rows");
  json_builder_begin_array (b);
  for (guint r = 0; r < t->rows->len; r++)
    {
      char **row = t->rows->pdata[r];
      json_builder_begin_object (b);
      for (guint c = 0; c < t->n_columns; c++)
        {
          char *end = NULL;
          double v = g_ascii_strtod (row[c], &end);
          json_builder_set_member_name (b, t->columns[c]);
          if (row[c][0] != '\0' && end != NULL && *end == '\0')
            json_builder_add_double_value (b, v);
          else
            json_builder_add_string_value (b, row[c]);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}
