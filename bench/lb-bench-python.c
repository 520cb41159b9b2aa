/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-bench-python"

/* lightbox-bench python-bridge: the fixed cost of a Python filter's pass (lb-python-filter.c,
 * lightbox-python-host.py) against an empty C plugin, in the same run.
 *
 * Every filter does the same work, one copy of the source into the destination: the C
 * plugin bench/noop/lb-bench-noop.c (in process, and isolated in lightbox-filter-host) and a
 * Python module whose process() is np.copyto(dst, src). Passes are interleaved (C, C
 * isolated, Python, C, …) so that the machine's load hits every row alike; the Python row's
 * median minus the C row's is the bridge's cost per pass beyond the work itself. */

#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "config.h"
#include "lb-bench.h"
#include "lb-filter-registry.h"
#include "lb-pipeline.h"
#include "lb-plugin-loader.h"

static const char python_noop[] =
  "import numpy as np\n"
  "LIGHTBOX_FILTER = {'id': 'io.github.lightbox.bench.python-noop', 'name': 'No-op copy',\n"
  "    'category': 'Bench', 'formats': ['gray8', 'gray16', 'rgb8', 'rgb16'],\n"
  "    'overwrites': True}\n"
  "def process(src, dst, params, meta):\n"
  "    np.copyto(dst, src)\n";

typedef struct {
  const char *label;
  LbFilter *filter;
  LbIsolation isolation;
  GArray *ms;
} Row;

static double
p95 (GArray *ms)
{
  g_autofree double *v = g_memdup2 (ms->data, ms->len * sizeof (double));
  LbMeasureStats s = lb_measure_stats_of (v, ms->len);
  guint i = (guint) (0.95 * (ms->len - 1) + 0.5);

  (void) s;  /* sorted v in place */
  return v[MIN (i, ms->len - 1)];
}

static double
median (GArray *ms)
{
  g_autofree double *v = g_memdup2 (ms->data, ms->len * sizeof (double));

  return lb_measure_stats_of (v, ms->len).median;
}

static gboolean
one_pass (Row     *row,
          LbImage *input,
          GError **error)
{
  g_autoptr(LbPipeline) pipe = lb_pipeline_new (NULL);
  g_autoptr(LbImage) out = NULL;
  double t0;

  if (!lb_pipeline_append (pipe, row->filter, NULL, error))
    return FALSE;
  lb_pipeline_set_isolation (pipe, row->isolation);
  lb_pipeline_set_n_threads (pipe, 1);
  t0 = lb_measure_now_ms ();
  out = lb_pipeline_run (pipe, input, NULL, NULL, error);
  if (out == NULL)
    return FALSE;
  g_array_append_val (row->ms, (double) { lb_measure_now_ms () - t0 });
  /* the output really is the copy: a bridge that lost pixels would time nothing */
  if (memcmp (lb_image_get_row (out, 617), lb_image_get_row (input, 617),
              lb_image_get_row_size (input)) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: the output is not the source",
                   row->label);
      return FALSE;
    }
  return TRUE;
}

static LbFilter *
load_one (const char *path,
          const char *copy_dir,
          GError    **error)
{
  g_autoptr(GPtrArray) filters = lb_plugin_load_file (path, copy_dir, error);

  return filters != NULL ? g_object_ref (g_ptr_array_index (filters, 0)) : NULL;
}

int
lb_bench_python_main (int    argc,
                      char **argv)
{
  int n_passes = 200, width = 1400, height = 1000;
  g_autofree char *out_md = NULL;
  GOptionEntry entries[] = {
    { "passes", 'n', 0, G_OPTION_ARG_INT, &n_passes, "Passes per row (default 200)", "N" },
    { "width", 0, 0, G_OPTION_ARG_INT, &width, "Image width (default 1400)", "PX" },
    { "height", 0, 0, G_OPTION_ARG_INT, &height, "Image height (default 1000)", "PX" },
    { "markdown", 0, 0, G_OPTION_ARG_FILENAME, &out_md, "Also write the table here", "FILE" },
    { NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new ("— a Python filter's fixed cost per pass");
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL, *copy_dir = NULL, *py_path = NULL;
  g_autofree char *so_path = g_build_filename (LB_BENCH_BUILD_DIR, "noop",
                                               "lb-bench-noop.so", NULL);
  g_autoptr(LbImage) input = NULL;
  g_autoptr(LbMeasureTable) table = NULL;
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  Row rows[3] = {
    { "C no-op, in process", NULL, LB_ISOLATION_NONE, NULL },
    { "C no-op, isolated (lightbox-filter-host)", NULL, LB_ISOLATION_ALL, NULL },
    { "Python no-op (np.copyto)", NULL, LB_ISOLATION_ALL, NULL },
  };
  const char *columns[] = { "filter", "passes", "median ms", "p95 ms", "median − C in process",
                            NULL };
  LbMeasureTable *tables[2] = { NULL, NULL };

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || n_passes < 5 || width < 2
      || height < 618)
    {
      g_printerr ("lightbox-bench python-bridge: %s\n",
                  error ? error->message : "need ≥ 5 passes and ≥ 618 rows");
      return 2;
    }

  /* 16-bit grey, 1.4 Mpx by default: a CT-sized slice and a half */
  {
    gsize stride = (gsize) width * 2;
    guint16 *px = g_malloc (stride * height);

    for (gsize i = 0; i < (gsize) width * height; i++)
      px[i] = (guint16) (i * 2654435761u >> 16);
    input = lb_image_new_take (width, height, LB_FORMAT_GRAY16, stride, (guint8 *) px, NULL);
  }
  dir = g_dir_make_tmp ("lightbox-bench-python-XXXXXX", &error);
  copy_dir = dir ? g_dir_make_tmp ("lightbox-bench-copy-XXXXXX", &error) : NULL;
  if (copy_dir == NULL)
    goto fail;
  g_chmod (dir, 0755);
  py_path = g_build_filename (dir, "python_noop.py", NULL);
  if (!g_file_set_contents (py_path, python_noop, -1, &error) || g_chmod (py_path, 0644) != 0)
    goto fail;
  rows[0].filter = load_one (so_path, copy_dir, &error);
  rows[1].filter = rows[0].filter ? g_object_ref (rows[0].filter) : NULL;
  rows[2].filter = rows[0].filter ? load_one (py_path, copy_dir, &error) : NULL;
  if (rows[2].filter == NULL)
    goto fail;
  for (guint r = 0; r < 3; r++)
    rows[r].ms = g_array_new (FALSE, FALSE, sizeof (double));

  /* warm-up: helpers started, numpy imported, pages touched; then interleaved passes */
  for (int i = 0; i < 5; i++)
    for (guint r = 0; r < 3; r++)
      if (!one_pass (&rows[r], input, &error))
        goto fail;
  for (guint r = 0; r < 3; r++)
    g_array_set_size (rows[r].ms, 0);
  for (int i = 0; i < n_passes; i++)
    for (guint r = 0; r < 3; r++)
      if (!one_pass (&rows[r], input, &error))
        goto fail;

  {
    g_autofree char *title = g_strdup_printf ("Python bridge: one pass of a no-op copy, %d×%d "
                                              "gray16 (%.2f Mpx), 1 thread", width, height,
                                              width * (double) height / 1e6);
    double base = median (rows[0].ms);

    table = lb_measure_table_new (title, columns);
    for (guint r = 0; r < 3; r++)
      lb_measure_table_add_row_take (table, g_strdup (rows[r].label),
                                     g_strdup_printf ("%u", rows[r].ms->len),
                                     lb_bench_fmt (median (rows[r].ms)),
                                     lb_bench_fmt (p95 (rows[r].ms)),
                                     r == 0 ? g_strdup ("—")
                                            : lb_bench_fmt (median (rows[r].ms) - base),
                                     NULL);
    g_ptr_array_add (notes, g_strdup_printf (
      "The bridge's fixed cost per pass (Python median − C in-process median): %.2f ms; "
      "against the isolated C plugin: %.2f ms. Target: ≤ 5 ms beyond the work.",
      median (rows[2].ms) - base, median (rows[2].ms) - median (rows[1].ms)));
    g_ptr_array_add (notes, g_strdup_printf ("Interpreter: %s. Command: lightbox-bench "
                                             "python-bridge --passes %d.",
                                             g_getenv ("LIGHTBOX_PYTHON") ? g_getenv ("LIGHTBOX_PYTHON")
                                                                          : "/usr/bin/python3",
                                             n_passes));
  }
  lb_measure_table_print (table, stdout);
  for (guint i = 0; i < notes->len; i++)
    printf ("%s\n", (char *) notes->pdata[i]);
  tables[0] = table;
  if (out_md != NULL && !lb_bench_write_markdown (out_md, "python-bridge", tables, notes, &error))
    goto fail;
  for (guint r = 0; r < 3; r++)
    {
      g_clear_object (&rows[r].filter);
      g_clear_pointer (&rows[r].ms, g_array_unref);
    }
  g_unlink (py_path);
  g_rmdir (dir);
  g_rmdir (copy_dir);
  return 0;

fail:
  g_printerr ("lightbox-bench python-bridge: %s\n", error ? error->message : "failed");
  for (guint r = 0; r < 3; r++)
    {
      g_clear_object (&rows[r].filter);
      g_clear_pointer (&rows[r].ms, g_array_unref);
    }
  if (py_path != NULL)
    g_unlink (py_path);
  if (dir != NULL)
    g_rmdir (dir);
  if (copy_dir != NULL)
    g_rmdir (copy_dir);
  return 1;
}
