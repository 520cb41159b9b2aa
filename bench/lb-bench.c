/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-bench"

/* lightbox-bench: the MedJava paper's measurements, reproduced against baselines measured in
 * the same run (see bench/README in the issue: filters, net). */

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "lb-bench.h"

typedef struct {
  const char *name;
  int (*main) (int argc, char **argv);
  const char *summary;  /* NULL = hidden */
} Command;

static const Command commands[] = {
  { "filters", lb_bench_filters_main,
    "every filter at 0.1 … 64 Mpx, 8-bit RGB and 16-bit gray, 1 and all threads" },
  { "net", lb_bench_net_main,
    "TTCP, transactions and file transfer on loopback against raw sockets and curl" },
  { "dicom", lb_bench_dicom_main,
    "decoding per transfer syntax: a 512×512 CT frame and a CT series, against DCMTK/GDCM" },
  { "mem-pass", lb_bench_mem_pass_main, NULL },
};

static void
usage (FILE *out)
{
  fprintf (out, "Usage: lightbox-bench COMMAND [OPTIONS]\n\nCommands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (commands[i].summary != NULL)
      fprintf (out, "  %-9s %s\n", commands[i].name, commands[i].summary);
  fprintf (out, "\n`lightbox-bench COMMAND --help` lists a command's options.\n");
}

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  /* Numbers in CSV/JSON must not depend on the user's locale. */
  setlocale (LC_NUMERIC, "C");

  if (argc < 2 || g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h"))
    {
      usage (argc < 2 ? stderr : stdout);
      return argc < 2 ? 2 : 0;
    }
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (argv[1], commands[i].name))
      return commands[i].main (argc - 1, argv + 1);
  fprintf (stderr, "lightbox-bench: unknown command “%s”\n", argv[1]);
  usage (stderr);
  return 2;
}

gboolean
lb_bench_write_results (const char *dir, const char *name, const char *const *keys,
                        LbBenchTable **tables, GPtrArray *notes, GError **error)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *date = g_date_time_format_iso8601 (now);
  g_autofree char *json_path = NULL;
  g_autoptr (JsonNode) root = NULL;

  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      int e = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "Creating %s: %s", dir,
                   g_strerror (e));
      return FALSE;
    }
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "command");
  json_builder_add_string_value (b, name);
  json_builder_set_member_name (b, "date");
  json_builder_add_string_value (b, date);
  json_builder_set_member_name (b, "threads");
  json_builder_add_int_value (b, lb_bench_n_threads ());
  json_builder_set_member_name (b, "notes");
  json_builder_begin_array (b);
  for (guint i = 0; notes != NULL && i < notes->len; i++)
    json_builder_add_string_value (b, notes->pdata[i]);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "tables");
  json_builder_begin_object (b);
  for (guint i = 0; keys[i] != NULL; i++)
    {
      g_autofree char *csv = g_strdup_printf ("%s/%s-%s.csv", dir, name, keys[i]);

      if (!lb_bench_table_write_csv (tables[i], csv, error))
        return FALSE;
      json_builder_set_member_name (b, keys[i]);
      json_builder_add_value (b, lb_bench_table_to_json (tables[i]));
    }
  json_builder_end_object (b);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  json_path = g_strdup_printf ("%s/%s.json", dir, name);
  return json_generator_to_file (gen, json_path, error);
}

void
lb_bench_table_add_row_take (LbBenchTable *table, char *first, ...)
{
  g_autoptr (GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
  va_list args;

  va_start (args, first);
  for (char *c = first; c != NULL; c = va_arg (args, char *))
    g_ptr_array_add (cells, c);
  va_end (args);
  g_ptr_array_add (cells, NULL);
  lb_bench_table_add_row (table, (const char *const *) cells->pdata);
}

char *
lb_bench_fmt (double v)
{
  double a = fabs (v);

  if (isnan (v))
    return g_strdup ("");
  if (a >= 100 || a == 0)
    return g_strdup_printf ("%.0f", v);
  if (a >= 10)
    return g_strdup_printf ("%.1f", v);
  if (a >= 1)
    return g_strdup_printf ("%.2f", v);
  if (a >= 0.1)
    return g_strdup_printf ("%.3f", v);
  return g_strdup_printf ("%.4f", v);
}

gboolean
lb_bench_time_command (const char *const *argv, double *out_ms, GError **error)
{
  int status = 0;
  double t0 = lb_bench_now_ms ();

  if (!g_spawn_sync (NULL, (char **) argv, NULL,
                     G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                     NULL, NULL, NULL, NULL, &status, error))
    return FALSE;
  *out_ms = lb_bench_now_ms () - t0;
  if (!g_spawn_check_wait_status (status, error))
    {
      g_autofree char *cmd = g_strjoinv (" ", (char **) argv);
      g_prefix_error (error, "%s: ", cmd);
      return FALSE;
    }
  return TRUE;
}

char *
lb_bench_find_program (const char *const *names)
{
  for (guint i = 0; names[i] != NULL; i++)
    {
      char *path = g_find_program_in_path (names[i]);
      if (path != NULL)
        return path;
    }
  return NULL;
}

guint
lb_bench_n_threads (void)
{
  return MAX (1, g_get_num_processors ());
}
