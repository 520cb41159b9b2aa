/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-bench"

/* lightbox-bench: the MedJava paper's measurements, reproduced against baselines measured in
 * the same run (see bench/README in the issue: filters, net). */

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "lb-bench-version.h"
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
  { "python-bridge", lb_bench_python_main,
    "a Python filter's fixed cost per pass against an empty C plugin, 1.4 Mpx gray16" },
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
                        LbMeasureTable **tables, GPtrArray *notes, GError **error)
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

      if (!lb_measure_table_write_csv (tables[i], csv, error))
        return FALSE;
      json_builder_set_member_name (b, keys[i]);
      json_builder_add_value (b, lb_measure_table_to_json (tables[i]));
    }
  json_builder_end_object (b);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  json_path = g_strdup_printf ("%s/%s.json", dir, name);
  return json_generator_to_file (gen, json_path, error);
}

/* The processor's model name, its thread count, the system and the kernel: "AMD EPYC 7B13,
 * 2 threads, Debian GNU/Linux 12 (bookworm), Linux 6.1.0-18-amd64 x86_64". */
static char *
describe_machine (void)
{
  g_autofree char *cpuinfo = NULL;
  g_autofree char *cpu = NULL;
  g_autofree char *os = g_get_os_info (G_OS_INFO_KEY_PRETTY_NAME);
  struct utsname u;
  GString *s = g_string_new (NULL);

  if (g_file_get_contents ("/proc/cpuinfo", &cpuinfo, NULL, NULL))
    {
      const char *p = strstr (cpuinfo, "model name");

      if (p != NULL && (p = strchr (p, ':')) != NULL)
        cpu = g_strstrip (g_strndup (p + 1, strcspn (p + 1, "\n")));
    }
  g_string_append (s, cpu != NULL && *cpu != '\0' ? cpu : "unknown processor");
  g_string_append_printf (s, ", %u threads", lb_bench_n_threads ());
  if (os != NULL)
    g_string_append_printf (s, ", %s", os);
  if (uname (&u) == 0)
    g_string_append_printf (s, ", %s %s %s", u.sysname, u.release, u.machine);
  return g_string_free (s, FALSE);
}

gboolean
lb_bench_write_markdown (const char *path, const char *command, LbMeasureTable **tables,
                         GPtrArray *notes, GError **error)
{
  g_autoptr (GString) s = g_string_new (NULL);
  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *date = g_date_time_format (now, "%Y-%m-%d %H:%M UTC");
  g_autofree char *machine = describe_machine ();

  g_string_append_printf (s, "Generated by `%s` at commit %s on %s, %s.\n", command,
                          LB_BENCH_COMMIT, machine, date);
  for (guint i = 0; tables[i] != NULL; i++)
    {
      g_autofree char *table = NULL;

      if (lb_measure_table_get_n_rows (tables[i]) == 0)
        continue;
      table = lb_measure_table_to_markdown (tables[i]);
      g_string_append_printf (s, "\n## %s\n\n%s", lb_measure_table_get_title (tables[i]), table);
    }
  if (notes != NULL && notes->len > 0)
    {
      g_string_append (s, "\n## Notes\n\n");
      for (guint i = 0; i < notes->len; i++)
        g_string_append_printf (s, "- %s\n", (const char *) notes->pdata[i]);
    }
  return g_file_set_contents (path, s->str, s->len, error);
}

char *
lb_bench_command_line (int argc, char **argv)
{
  static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                              "_./,:=+-@%";
  GString *s = g_string_new ("lightbox-bench");

  for (int i = 0; i < argc; i++)
    {
      g_string_append_c (s, ' ');
      if (argv[i][0] != '\0' && strspn (argv[i], plain) == strlen (argv[i]))
        g_string_append (s, argv[i]);
      else
        {
          g_autofree char *quoted = g_shell_quote (argv[i]);
          g_string_append (s, quoted);
        }
    }
  return g_string_free (s, FALSE);
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
  double t0 = lb_measure_now_ms ();

  if (!g_spawn_sync (NULL, (char **) argv, NULL,
                     G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                     NULL, NULL, NULL, NULL, &status, error))
    return FALSE;
  *out_ms = lb_measure_now_ms () - t0;
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
