/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-bench-filters"

/* lightbox-bench filters: the filters' speed against xv, libvips and ImageMagick.
 *
 * Every filter at the paper's image sizes and beyond, 8-bit RGB and 16-bit gray, one thread
 * and all threads, through the engine's registry and pipeline (the figures are the
 * pipeline's own LbPassTiming, so the bench measures what users run). The engine offers no
 * switch to its scalar reference path, so the "speedup" baseline calls the kernels'
 * reference functions directly (lb-bench-kernels.c), one thread. A filter the registry does
 * not offer runs its optimised kernel directly in the same pass structure; the "path"
 * column says which. Also: xv's published times at 1.4 Mpx, radius independence, ImageMagick
 * and libvips on the same image, and the peak memory of a 64 Mpx 16-bit pass in a child. */

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "config.h"
#include "lb-bench-filters-private.h"
#include "lb-bench-plot.h"

#define REFERENCE_MAX_MPX 1.45 /* the scalar reference is timed up to the paper's largest size */

/* ------------------------------------------------------------------------------------------ */
/* The command */

static gboolean
selected (Ctx *ctx, const char *id)
{
  if (ctx->ids == NULL)
    return TRUE;
  for (guint i = 0; i < ctx->ids->len; i++)
    if (g_str_equal (ctx->ids->pdata[i], id))
      return TRUE;
  return FALSE;
}

static gboolean
parse_sizes (Ctx *ctx, char **args, GError **error)
{
  for (guint i = 0; args != NULL && args[i] != NULL; i++)
    {
      g_auto (GStrv) parts = g_strsplit_set (args[i], ", ", -1);
      for (guint k = 0; parts[k] != NULL; k++)
        {
          char *end = NULL;
          double v;

          if (parts[k][0] == '\0')
            continue;
          v = g_ascii_strtod (parts[k], &end);
          if (end == parts[k] || *end != '\0' || !(v > 0) || v > 1024)
            {
              g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           "--sizes: “%s” is not a size in Mpx (0 < size ≤ 1024)", parts[k]);
              return FALSE;
            }
          g_array_append_val (ctx->sizes, v);
        }
    }
  return TRUE;
}

/* The measured cell: median ms of one filter, format, size and thread count. */
static void
remember (GHashTable *results, const char *label, const char *fmt, double mpx, guint threads,
          double ms)
{
  double *v = g_new (double, 1);

  *v = ms;
  g_hash_table_insert (results, g_strdup_printf ("%s|%s|%g|%u", label, fmt, mpx, threads), v);
}

double
lb_bench_recall (GHashTable *results, const char *label, const char *fmt, double mpx, guint threads)
{
  g_autofree char *key = g_strdup_printf ("%s|%s|%g|%u", label, fmt, mpx, threads);
  double *v = g_hash_table_lookup (results, key);

  return v ? *v : NAN;
}

/* Radius independence: the same filter at neighbourhood radius 1 and 15. */
typedef struct {
  const char *id;
  const char *label_r1, *step_r1;
  double p_r1;
  const char *label_r15, *step_r15;
  double p_r15;
} RadiusPair;

static const RadiusPair radius_pairs[] = {
  { "blur", "blur 3", "blur:size=3", 3, "blur 31", "blur:size=31", 31 },
  { "despeckle", "despeckle 3", "despeckle:size=3", 3, "despeckle 31", "despeckle:size=31", 31 },
  { "median", "median 1", "median:radius=1", 1, "median 15", "median:radius=15", 15 },
  /* radius 1 and 2 run selection networks and radius 3 up the histogram medians (shared with
   * despeckle): this pair shows whether the histograms themselves cost the same at any
   * radius (8 bits: Perreault's constant-time median; 16 bits below radius 48: Huang's,
   * linear in the radius) */
  { "median", "median 3", "median:radius=3", 3, "median 15", "median:radius=15", 15 },
  /* the corrected symmetric window (odd size), since xv's own window is fixed at 4×4 */
  { "oil", "oil 3", "oil:window=symmetric,size=3", 3, "oil 31", "oil:window=symmetric,size=31", 31 },
  /* r = ⌈3σ⌉: σ 0.33 → r 1, σ 5 → r 15 */
  { "gaussian", "gaussian 0.33", "gaussian:sigma=0.33", 0.33, "gaussian 5", "gaussian:sigma=5", 5 },
};

static const LbBenchFilterSpec *
spec_by_id (const char *id)
{
  guint n;
  const LbBenchFilterSpec *specs = lb_bench_filter_specs (&n);

  for (guint i = 0; i < n; i++)
    if (g_str_equal (specs[i].id, id))
      return &specs[i];
  return NULL;
}

int
lb_bench_filters_main (int argc, char **argv)
{
  Ctx ctx = { 0 };
  gboolean quick = FALSE, no_external = FALSE, no_memory = FALSE, no_reference = FALSE;
  gboolean memory_only = FALSE, no_floor = FALSE;
  g_autofree char *out_dir = NULL;
  g_autofree char *markdown = NULL;
  g_autofree char *command = lb_bench_command_line (argc, argv);
  g_autofree char *filters_arg = NULL;
  g_auto (GStrv) sizes_arg = NULL;
  int threads_arg = 0;
  GOptionEntry entries[] = {
    { "quick", 'q', 0, G_OPTION_ARG_NONE, &quick, "Sizes up to 4 Mpx, fewer runs", NULL },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out_dir, "Directory for CSV, JSON, SVG and PNG (default bench-results)", "DIR" },
    { "markdown", 0, 0, G_OPTION_ARG_FILENAME, &markdown, "Also write the tables as markdown, headed by the command, commit and machine", "FILE" },
    { "filters", 'f', 0, G_OPTION_ARG_STRING, &filters_arg, "Only these filter ids (comma-separated)", "a,b" },
    { "sizes", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sizes_arg, "Image sizes in Mpx (comma-separated)", "MPX,…" },
    { "threads", 't', 0, G_OPTION_ARG_INT, &threads_arg, "\"All threads\" means this many (default: all cores)", "N" },
    { "no-external", 0, 0, G_OPTION_ARG_NONE, &no_external, "Skip ImageMagick and vips", NULL },
    { "no-memory", 0, 0, G_OPTION_ARG_NONE, &no_memory, "Skip the peak-memory passes", NULL },
    { "no-reference", 0, 0, G_OPTION_ARG_NONE, &no_reference, "Skip the scalar reference path", NULL },
    { "memory-only", 0, 0, G_OPTION_ARG_NONE, &memory_only, "Only the peak-memory passes", NULL },
    { "no-floor", 0, 0, G_OPTION_ARG_NONE, &no_floor, "Skip the memory-floor table (all eight formats at 1.4 Mpx)", NULL },
    { NULL },
  };
  g_autoptr (GOptionContext) octx = g_option_context_new ("- time every filter");
  g_autoptr (GError) error = NULL;
  g_autoptr (GHashTable) results = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (GPtrArray) sel = g_ptr_array_new ();
  g_autoptr (GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) sizes = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (LbFilterRegistry) registry = NULL;
  static const char *const main_cols[] = { "filter", "format", "size", "mpx", "threads", "path",
                                           "ms", "p10_ms", "p90_ms", "runs", "stable", "mpx_per_s",
                                           "ref_path", "ref_ms", "speedup_vs_ref", NULL };
  static const char *const xv_cols[] = { "filter", "xv_ms", "ms_1t", "ms_all", "xv_over_1t",
                                         "xv_over_all", "target_10x", NULL };
  static const char *const radius_cols[] = { "filter", "format", "mpx", "path", "ms_r1", "ms_r15",
                                             "r15_over_r1", "target_le_2x", NULL };
  static const char *const ext_cols[] = { "tool", "operator", "filter", "format", "mpx", "tool_ms",
                                          "noop_ms", "tool_minus_noop_ms", "lightbox_ms",
                                          "tool_over_lightbox", NULL };
  static const char *const floor_cols[] = { "filter", "format", "mpx", "threads", "ms", "gb_per_s",
                                            "floor_ms", "over_floor", NULL };
  static const char *const mem_cols[] = { "filter", "format", "mpx", "path", "image_mb",
                                          "peak_rss_mb", "pass_peak_mb", "peak_over_image",
                                          "below_3x", NULL };
  g_autoptr (LbMeasureTable) t_main = lb_measure_table_new ("Filters: median ms per pass (all threads = "
                                                            "g_get_num_processors())", main_cols);
  g_autoptr (LbMeasureTable) t_xv = lb_measure_table_new ("Against xv's published single-thread times, "
                                                          "1.4 Mpx 8-bit RGB (target ≥ 10× with all threads)", xv_cols);
  g_autoptr (LbMeasureTable) t_radius = lb_measure_table_new ("Radius independence: radius 15 against radius 1 "
                                                              "(median also against radius 3, its first "
                                                              "histogram radius), all threads "
                                                              "(target ≤ 2×)", radius_cols);
  g_autoptr (LbMeasureTable) t_ext = lb_measure_table_new ("ImageMagick and libvips on the same image "
                                                           "(process time minus a no-op run)", ext_cols);
  g_autoptr (LbMeasureTable) t_floor = lb_measure_table_new ("Against the memory floor: the same bytes "
                                                             "copied, nothing computed, same threads, same run",
                                                             floor_cols);
  g_autoptr (LbMeasureTable) t_mem = lb_measure_table_new ("Peak memory of one pass, in a child process "
                                                           "(target: below 3× the image)", mem_cols);
  const LbBenchFilterSpec *specs;
  guint n_specs;
  static const LbSampleFormat formats[] = { LB_FORMAT_RGB8, LB_FORMAT_GRAY16 };
  LbBenchPlot *plots[2] = { NULL, NULL };
  double radius_mpx = 0, ext_mpx = 0, max_mpx = 0;
  guint n_engine = 0, n_kernel = 0;

  g_option_context_add_main_entries (octx, entries, NULL);
  if (!g_option_context_parse (octx, &argc, &argv, &error))
    {
      fprintf (stderr, "lightbox-bench filters: %s\n", error->message);
      return 2;
    }
  ctx.quick = quick;
  ctx.sizes = sizes;
  ctx.notes = notes;
  ctx.threads_all = threads_arg > 0 ? (guint) threads_arg : lb_bench_n_threads ();
  if (!parse_sizes (&ctx, sizes_arg, &error))
    {
      fprintf (stderr, "lightbox-bench filters: %s\n", error->message);
      return 2;
    }
  if (sizes->len == 0)
    {
      static const double paper[] = { 0.1, 0.25, 0.5, 1.0, 1.4, 4, 16, 64 };
      for (guint i = 0; i < G_N_ELEMENTS (paper); i++)
        if (!quick || paper[i] <= 4)
          g_array_append_val (sizes, paper[i]);
    }
  if (filters_arg != NULL)
    {
      g_auto (GStrv) ids = g_strsplit (filters_arg, ",", -1);
      ctx.ids = g_ptr_array_new_with_free_func (g_free);
      for (guint i = 0; ids[i] != NULL; i++)
        if (ids[i][0] != '\0')
          g_ptr_array_add (ctx.ids, g_strstrip (g_strdup (ids[i])));
    }
  specs = lb_bench_filter_specs (&n_specs);
  for (guint i = 0; i < n_specs; i++)
    if (selected (&ctx, specs[i].id))
      g_ptr_array_add (sel, (gpointer) &specs[i]);
  for (guint i = 0; ctx.ids != NULL && i < ctx.ids->len; i++)
    if (spec_by_id (ctx.ids->pdata[i]) == NULL)
      {
        fprintf (stderr, "lightbox-bench filters: unknown filter “%s”\n", (char *) ctx.ids->pdata[i]);
        return 2;
      }
  if (out_dir == NULL)
    out_dir = g_strdup ("bench-results");
  if (g_mkdir_with_parents (out_dir, 0755) != 0)
    {
      fprintf (stderr, "lightbox-bench filters: cannot create %s: %s\n", out_dir, g_strerror (errno));
      return 1;
    }
  if (markdown != NULL)
    {
      /* now, not after minutes of measuring */
      g_autofree char *dir = g_path_get_dirname (markdown);

      if (g_mkdir_with_parents (dir, 0755) != 0)
        {
          fprintf (stderr, "lightbox-bench filters: cannot create %s: %s\n", dir, g_strerror (errno));
          return 1;
        }
    }

  /* The bench measures what users run: the filters of the default registry. Run from the
   * build tree without LIGHTBOX_PLUGIN_PATH, it takes the plugins built next to it. */
  if (g_getenv ("LIGHTBOX_PLUGIN_PATH") == NULL && g_file_test (LB_BENCH_BUILD_PLUGINDIR, G_FILE_TEST_IS_DIR))
    g_setenv ("LIGHTBOX_PLUGIN_PATH", LB_BENCH_BUILD_PLUGINDIR, TRUE);
  registry = lb_filter_registry_new_default ();
  ctx.registry = registry;

  for (guint s = 0; s < sizes->len; s++)
    {
      double mpx = g_array_index (sizes, double, s);
      max_mpx = MAX (max_mpx, mpx);
      if (mpx <= PAPER_MPX + 1e-9 && mpx > radius_mpx)
        radius_mpx = ext_mpx = mpx;
    }
  if (radius_mpx == 0)
    radius_mpx = ext_mpx = g_array_index (sizes, double, 0);

  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    {
      const char *fmt = lb_sample_format_to_string (formats[f]);
      g_autofree char *title = g_strdup_printf ("Filter time against image size, %s, %u threads", fmt,
                                                ctx.threads_all);
      plots[f] = lb_bench_plot_new (title, "image size (Mpx)", "time per pass (ms)");
      lb_bench_plot_set_log (plots[f], TRUE, TRUE);
      for (guint i = 0; i < sel->len; i++)
        lb_bench_plot_add_series (plots[f], ((const LbBenchFilterSpec *) sel->pdata[i])->label);
    }

  for (guint s = 0; s < (memory_only ? 0 : sizes->len); s++)
    for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
      {
        double mpx = g_array_index (sizes, double, s);
        const char *fmt = lb_sample_format_to_string (formats[f]);
        guint w, h;
        g_autoptr (LbImage) image = NULL;
        g_autoptr (LbImage) image12 = NULL;
        g_autofree char *dims = NULL;

        lb_bench_size_dims (mpx, &w, &h);
        dims = g_strdup_printf ("%u×%u", w, h);
        image = lb_bench_make_image (w, h, formats[f], &error);
        if (image == NULL)
          {
            fprintf (stderr, "lightbox-bench filters: %s %s: %s\n", dims, fmt, error->message);
            return 1;
          }
        for (guint i = 0; i < sel->len; i++)
          {
            const LbBenchFilterSpec *spec = sel->pdata[i];
            LbMeasureStats ref = { 0 };
            gboolean have_ref = FALSE;
            PassPath ref_path = PATH_REFERENCE;
            guint thread_counts[2] = { 1, ctx.threads_all };
            guint n_counts = ctx.threads_all > 1 ? 2 : 1;
            PassPath path;

            if (!no_reference && mpx <= REFERENCE_MAX_MPX)
              {
                if (lb_bench_measure_cell (&ctx, spec, image, 1, TRUE, &ref, &ref_path, &error))
                  have_ref = TRUE;
                else
                  {
                    g_ptr_array_add (notes, g_strdup (error->message));
                    g_clear_error (&error);
                  }
              }
            for (guint t = 0; t < n_counts; t++)
              {
                LbMeasureStats st;

                if (!lb_bench_measure_cell (&ctx, spec, image, thread_counts[t], FALSE, &st, &path, &error))
                  {
                    fprintf (stderr, "%s\n", error->message);
                    g_ptr_array_add (notes, g_strdup (error->message));
                    g_clear_error (&error);
                    continue;
                  }
                if (path == PATH_ENGINE)
                  n_engine++;
                else
                  n_kernel++;
                fprintf (stderr, "%-16s %-6s %5g Mpx %2uT %-6s %10.3f ms%s\n", spec->label, fmt, mpx,
                         thread_counts[t], path_name (path), st.median,
                         have_ref ? "" : "");
                remember (results, spec->label, fmt, mpx, thread_counts[t], st.median);
                if (thread_counts[t] == ctx.threads_all)
                  lb_bench_plot_add_point (plots[f], i, mpx, st.median);
                lb_measure_table_add_row_take (t_main, g_strdup (spec->label), g_strdup (fmt),
                                               g_strdup (dims), lb_bench_fmt (mpx),
                                               g_strdup_printf ("%u", thread_counts[t]),
                                               g_strdup (path_name (path)), lb_bench_fmt (st.median),
                                               lb_bench_fmt (st.p10), lb_bench_fmt (st.p90),
                                               g_strdup_printf ("%u", st.n),
                                               g_strdup (st.stable ? "yes" : "no"),
                                               lb_bench_fmt (mpx / (st.median / 1000.0)),
                                               g_strdup (have_ref ? path_name (ref_path) : ""),
                                               have_ref ? lb_bench_fmt (ref.median) : g_strdup (""),
                                               have_ref ? lb_bench_fmt (ref.median / st.median) : g_strdup (""),
                                               NULL);
              }
          }

        /* Radius independence at the paper's size; on 16-bit gray the median pairs also on
         * 12-bit values (CT-like), which take the 16-bit median's rank path */
        if (fabs (mpx - radius_mpx) < 1e-9)
          for (guint v = 0; v < (formats[f] == LB_FORMAT_GRAY16 ? 2u : 1u); v++)
          for (guint r = 0; r < G_N_ELEMENTS (radius_pairs); r++)
            {
              const RadiusPair *rp = &radius_pairs[r];
              const LbBenchFilterSpec *base = spec_by_id (rp->id);
              LbBenchFilterSpec s1, s15;
              LbMeasureStats st1, st15;
              PassPath p1, p15;

              const char *rfmt = v == 0 ? fmt : "gray16 (12-bit)";
              LbImage *rimage = image;

              if (!selected (&ctx, rp->id)
                  || (v == 1 && !g_str_equal (rp->id, "median")
                      && !g_str_equal (rp->id, "despeckle")))
                continue;
              if (v == 1)
                {
                  if (image12 == NULL)
                    image12 = lb_bench_make_ct_image (w, h, formats[f], &error);
                  if (image12 == NULL)
                    {
                      g_ptr_array_add (notes, g_strdup (error->message));
                      g_clear_error (&error);
                      continue;
                    }
                  rimage = image12;
                }
              s1 = lb_bench_filter_spec_with (base, rp->label_r1, rp->step_r1, rp->p_r1);
              s15 = lb_bench_filter_spec_with (base, rp->label_r15, rp->step_r15, rp->p_r15);
              if (!lb_bench_measure_cell (&ctx, &s1, rimage, ctx.threads_all, FALSE, &st1, &p1, &error)
                  || !lb_bench_measure_cell (&ctx, &s15, rimage, ctx.threads_all, FALSE, &st15, &p15, &error))
                {
                  g_ptr_array_add (notes, g_strdup (error->message));
                  g_clear_error (&error);
                  continue;
                }
              fprintf (stderr, "radius %-10s %-6s r1 %.3f ms, r15 %.3f ms\n", rp->id, rfmt,
                       st1.median, st15.median);
              /* for the external rows (a baseline's radius 15); radius 1 keeps the main
               * table's figure where it has one */
              if (v == 0 && isnan (lb_bench_recall (results, rp->label_r1, fmt, mpx, ctx.threads_all)))
                remember (results, rp->label_r1, fmt, mpx, ctx.threads_all, st1.median);
              if (v == 0)
                remember (results, rp->label_r15, fmt, mpx, ctx.threads_all, st15.median);
              lb_measure_table_add_row_take (t_radius, g_strdup_printf ("%s / %s", rp->label_r1, rp->label_r15),
                                             g_strdup (rfmt), lb_bench_fmt (mpx),
                                             p1 == p15 ? g_strdup (path_name (p1))
                                                       : g_strdup_printf ("%s/%s", path_name (p1), path_name (p15)),
                                             lb_bench_fmt (st1.median), lb_bench_fmt (st15.median),
                                             lb_bench_fmt (st15.median / st1.median),
                                             g_strdup (st15.median <= 2 * st1.median ? "yes" : "NO"), NULL);
            }

        if (!no_external && fabs (mpx - ext_mpx) < 1e-9)
          {
            /* the selected filters, plus the radius pairs' large ends that have a baseline */
            static const LbBenchFilterSpec radius_ext[] = {
              { .label = "median 15", .id = "median" },
              { .label = "despeckle 31", .id = "despeckle" },
            };
            g_autoptr (GPtrArray) ext_sel = g_ptr_array_new ();

            for (guint k = 0; k < sel->len; k++)
              g_ptr_array_add (ext_sel, sel->pdata[k]);
            for (guint k = 0; k < G_N_ELEMENTS (radius_ext); k++)
              if (selected (&ctx, radius_ext[k].id))
                g_ptr_array_add (ext_sel, (gpointer) &radius_ext[k]);
            lb_bench_external_rows (&ctx, t_ext, (const LbBenchFilterSpec *const *) ext_sel->pdata,
                                    ext_sel->len, image, fmt, mpx, results);
          }
      }

  /* Against xv's published times. */
  for (guint i = 0; i < sel->len; i++)
    {
      const LbBenchFilterSpec *spec = sel->pdata[i];
      double t1 = lb_bench_recall (results, spec->label, "rgb8", PAPER_MPX, 1);
      double ta = lb_bench_recall (results, spec->label, "rgb8", PAPER_MPX, ctx.threads_all);

      if (spec->xv_ms <= 0 || isnan (t1))
        continue;
      lb_measure_table_add_row_take (t_xv, g_strdup (spec->label), lb_bench_fmt (spec->xv_ms),
                                     lb_bench_fmt (t1), lb_bench_fmt (ta),
                                     lb_bench_fmt (spec->xv_ms / t1), lb_bench_fmt (spec->xv_ms / ta),
                                     g_strdup (spec->xv_ms / ta >= 10 ? "yes" : "NO"), NULL);
    }
  if (lb_measure_table_get_n_rows (t_xv) == 0 && !memory_only)
    g_ptr_array_add (notes, g_strdup ("no 1.4 Mpx size measured: no comparison with xv"));

  if (!no_floor && !memory_only)
    lb_bench_floor_rows (&ctx, t_floor, (const LbBenchFilterSpec *const *) sel->pdata, sel->len,
                         radius_mpx, results);

  if (!no_memory)
    {
      double mem_mpx = quick ? max_mpx : MAX (max_mpx, 64);
      lb_bench_memory_rows (&ctx, t_mem, (const LbBenchFilterSpec *const *) sel->pdata, sel->len,
                            mem_mpx);
      if (mem_mpx < 16)
        g_ptr_array_add (notes, g_strdup_printf ("memory at %g Mpx only (--quick): the 3× target is "
                                                 "about 64 Mpx; at small sizes the fixed cost of threads "
                                                 "and allocator arenas dominates the pass's peak", mem_mpx));
    }

  if (!memory_only)
    g_ptr_array_add (notes, g_strdup_printf ("%u cells ran through the engine's registry and pipeline "
                                           "(LbPassTiming), %u through the kernel libraries directly "
                                           "(filter not offered by the registry)", n_engine, n_kernel));
  g_ptr_array_add (notes, g_strdup ("ref_ms: the scalar reference path, 1 thread, timed up to 1.4 Mpx: "
                                    "through the engine with the plugin's exact=true where it has that "
                                    "parameter (ref_path engine-exact), else the kernel library's reference "
                                    "functions called directly (ref_path reference)"));
  g_ptr_array_add (notes, g_strdup ("medians: warm-up, then rounds until the median moves < 3% (--quick: 5%); "
                                    "passes of 0.3–1 s: warm-up + 3 runs; passes of 1–5 s: 2 runs, the first "
                                    "included; over 5 s: that one run (stable = no)"));
  g_ptr_array_add (notes, g_strdup ("xv_ms: xv's own C code, gcc -O2, 1 thread (xv-filters.md Appendix A)"));
  if (selected (&ctx, "median"))
    g_ptr_array_add (notes, g_strdup ("radius: in the row median 3 / median 15, ms_r1 holds radius 3 "
                                      "(the first radius the histogram medians serve; radius 1 and 2 "
                                      "run selection networks)"));
  g_ptr_array_add (notes, g_strdup ("memory-bandwidth floor (xv-filters.md Appendix A): ≈0.65 ms for one "
                                    "3×3 pass over 1.4 Mpx RGBA from DRAM; the floor table measures it in "
                                    "this run instead: the output allocated as the pipeline does, the "
                                    "source copied into it by the same threads in bands, nothing computed "
                                    "(images repeated pass after pass stay in the processor's caches where "
                                    "they fit, for the filters and the floor alike)"));

  lb_measure_table_print (t_main, stdout);
  lb_measure_table_print (t_xv, stdout);
  lb_measure_table_print (t_radius, stdout);
  lb_measure_table_print (t_ext, stdout);
  lb_measure_table_print (t_floor, stdout);
  lb_measure_table_print (t_mem, stdout);
  printf ("\nNotes:\n");
  for (guint i = 0; i < notes->len; i++)
    printf ("  - %s\n", (char *) notes->pdata[i]);

  {
    const char *keys[] = { "passes", "xv", "radius", "external", "floor", "memory", NULL };
    LbMeasureTable *tables[] = { t_main, t_xv, t_radius, t_ext, t_floor, t_mem, NULL };
    gboolean ok = lb_bench_write_results (out_dir, "filters", keys, tables, notes, &error);

    if (ok && markdown != NULL)
      ok = lb_bench_write_markdown (markdown, command, tables, notes, &error);

    for (guint f = 0; ok && f < G_N_ELEMENTS (formats); f++)
      {
        g_autofree char *base = g_strdup_printf ("%s/filters-%s", out_dir,
                                                 lb_sample_format_to_string (formats[f]));
        ok = lb_bench_plot_save (plots[f], base, &error);
      }
    for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
      lb_bench_plot_free (plots[f]);
    if (ctx.ids != NULL)
      g_ptr_array_unref (ctx.ids);
    if (!ok)
      {
        fprintf (stderr, "lightbox-bench filters: %s\n", error->message);
        return 1;
      }
    printf ("\nWrote %s/filters.json, filters-*.csv, filters-rgb8.{svg,png}, filters-gray16.{svg,png}\n",
            out_dir);
    if (markdown != NULL)
      printf ("Wrote %s\n", markdown);
  }
  return 0;
}
