/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-bench-filters"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "lb-bench-filters-private.h"

/* Binary PPM/PGM (16-bit samples big-endian, as netpbm wants) for ImageMagick and vips. */
static gboolean
write_pnm (LbImage *image, const char *path, GError **error)
{
  LbSampleFormat f = lb_image_get_format (image);
  guint w = lb_image_get_width (image), h = lb_image_get_height (image);
  guint channels = lb_sample_format_get_channels (f);
  gboolean wide = lb_sample_format_get_bit_depth (f) == 16;
  gsize row_size = lb_image_get_row_size (image);
  g_autoptr (GString) out = g_string_sized_new (row_size * h + 32);

  g_string_append_printf (out, "P%c\n%u %u\n%u\n", channels == 1 ? '5' : '6', w, h,
                          wide ? 65535u : 255u);
  for (guint y = 0; y < h; y++)
    {
      const guint8 *row = lb_image_get_row (image, y);
      if (!wide)
        g_string_append_len (out, (const char *) row, row_size);
      else
        for (gsize i = 0; i < row_size / 2; i++)
          {
            guint16 v = ((const guint16 *) (const void *) row)[i];
            g_string_append_c (out, (char) (v >> 8));
            g_string_append_c (out, (char) (v & 0xff));
          }
    }
  return g_file_set_contents (path, out->str, out->len, error);
}

/* ------------------------------------------------------------------------------------------ */
/* ImageMagick and libvips */

typedef struct {
  const char *label;       /* LbBenchFilterSpec label */
  const char *im[7];       /* ImageMagick arguments, NULL-terminated; im[0] NULL = none */
  const char *vips[5];     /* vips operation + arguments after in/out; "@BOX3" = box matrix */
} ExternalOp;

static const ExternalOp external_ops[] = {
  /* a normalised box kernel: the n×n mean (-statistic Mean is O(n²) and takes seconds) */
  { "blur 3", { "-define", "convolve:scale=!", "-morphology", "Convolve", "Square:1", NULL },
    { "conv", "@BOX3", NULL } },
  { "blur 7", { "-define", "convolve:scale=!", "-morphology", "Convolve", "Square:3", NULL },
    { "conv", "@BOX7", NULL } },
  { "sharpen 75", { "-sharpen", "0x1", NULL }, { "sharpen", NULL } },
  { "edge", { "-edge", "1", NULL }, { "sobel", NULL } },
  { "emboss", { "-emboss", "1", NULL }, { NULL } },
  { "oil", { "-paint", "2", NULL }, { NULL } },
  { "rotate 30", { "-rotate", "30", NULL }, { "rotate", "30", NULL } },
  { "spread 5", { "-spread", "5", NULL }, { NULL } },
  { "despeckle 3", { "-statistic", "Median", "3x3", NULL }, { "rank", "3", "3", "4", NULL } },
  { "despeckle 5", { "-statistic", "Median", "5x5", NULL }, { "rank", "5", "5", "12", NULL } },
  { "unsharp 2,1,0", { "-unsharp", "0x2+1+0", NULL }, { NULL } },
  { "gaussian 2", { "-gaussian-blur", "0x2", NULL }, { "gaussblur", "2", NULL } },
  { "median 1", { "-statistic", "Median", "3x3", NULL }, { "rank", "3", "3", "4", NULL } },
  /* The radius-independence pairs' large end (radius 15: 31×31), so that a baseline's own
   * r15 ÷ r1 is measured in the same run. ImageMagick's -statistic Median costs O(n²) per
   * pixel (minutes at 31×31), so only vips, whose rank filter keeps a histogram. */
  { "median 15", { NULL }, { "rank", "31", "31", "480", NULL } },
  { "despeckle 31", { NULL }, { "rank", "31", "31", "480", NULL } },
};

/* Pairs of external rows whose ratio is the baseline's own radius dependence. */
static const struct {
  const char *id, *label_r1, *label_r15;
} external_radius_pairs[] = {
  { "median", "median 1", "median 15" },
  { "despeckle", "despeckle 3", "despeckle 31" },
};


typedef struct {
  const char *const *argv;
  GError *error;
} Command;

static double
command_once (gpointer data)
{
  Command *c = data;
  double ms = 0;

  if (c->error == NULL)
    lb_bench_time_command (c->argv, &ms, &c->error);
  return ms;
}

/* Median wall time of a whole process run, start-up included, after one warm-up run (page
 * cache, dynamic linking). Commands over 1.5 s (ImageMagick's median) count the warm-up run
 * and take one more; --quick takes one run after the warm-up. */
static gboolean
time_command (gboolean quick, const char *const *argv, LbMeasureStats *st, GError **error)
{
  LbMeasureOptions normal = { 0, 3, 12, 3.0, 0.05 };
  LbMeasureOptions fast_quick = { 0, 1, 1, 0.1, 0.5 };
  Command c = { argv, NULL };
  double first = command_once (&c);

  if (c.error == NULL)
    {
      if (first > 1500 && !quick)
        {
          double samples[2] = { first, command_once (&c) };
          *st = lb_measure_stats_of (samples, 2);
        }
      else
        *st = lb_measure_run (command_once, &c, quick ? &fast_quick : &normal);
    }
  if (c.error != NULL)
    {
      g_propagate_error (error, c.error);
      return FALSE;
    }
  return TRUE;
}

/* A box matrix for vips conv: "W H SCALE OFFSET" then the rows. */
static char *
write_box_matrix (const char *dir, int n, GError **error)
{
  g_autoptr (GString) s = g_string_new (NULL);
  char *path = g_strdup_printf ("%s/box%d.mat", dir, n);

  g_string_append_printf (s, "%d %d %d 0\n", n, n, n * n);
  for (int y = 0; y < n; y++)
    {
      for (int x = 0; x < n; x++)
        g_string_append (s, x ? " 1" : "1");
      g_string_append_c (s, '\n');
    }
  if (!g_file_set_contents (path, s->str, -1, error))
    g_clear_pointer (&path, g_free);
  return path;
}

void
lb_bench_external_rows (Ctx *ctx, LbMeasureTable *table, const LbBenchFilterSpec *const *sel,
                        guint n_sel, LbImage *image, const char *fmt, double mpx,
                        GHashTable *results)
{
  /* vips's own time per filter label (ms, start-up subtracted), for its radius ratios */
  g_autoptr (GHashTable) vips_net = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  static const char *const im_names[] = { "magick", "convert-im6.q16", "convert", NULL };
  static const char *const vips_names[] = { "vips", NULL };
  g_autofree char *im = lb_bench_find_program (im_names);
  g_autofree char *vips = lb_bench_find_program (vips_names);
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("lb-bench-ext-XXXXXX", &error);
  g_autofree char *in = NULL, *out_pnm = NULL, *out_v = NULL, *box3 = NULL, *box7 = NULL;
  LbMeasureStats im_noop = { 0 }, vips_noop = { 0 };
  gboolean have_im = im != NULL, have_vips = vips != NULL;
  /* The same operator for two filters (median 1 and despeckle 3) is timed once. */
  g_autoptr (GHashTable) cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  if (!have_im)
    g_ptr_array_add (ctx->notes, g_strdup ("ImageMagick (magick or convert) not installed: no comparison"));
  if (!have_vips)
    g_ptr_array_add (ctx->notes, g_strdup ("libvips (vips, package libvips-tools) not installed: no comparison"));
  if ((!have_im && !have_vips) || dir == NULL)
    return;
  in = g_strdup_printf ("%s/in.%s", dir, g_str_equal (fmt, "rgb8") ? "ppm" : "pgm");
  out_pnm = g_strdup_printf ("%s/out.%s", dir, g_str_equal (fmt, "rgb8") ? "ppm" : "pgm");
  out_v = g_strdup_printf ("%s/out.v", dir);
  if (!write_pnm (image, in, &error)
      || (box3 = write_box_matrix (dir, 3, &error)) == NULL
      || (box7 = write_box_matrix (dir, 7, &error)) == NULL)
    {
      g_ptr_array_add (ctx->notes, g_strdup_printf ("external tools: %s", error->message));
      goto out;
    }
  /* The no-op baselines: start-up, decode and encode of the same image, nothing else. */
  if (have_im)
    {
      const char *argv[] = { im, in, out_pnm, NULL };
      fprintf (stderr, "external: ImageMagick no-op on %s …\n", fmt);
      if (!time_command (ctx->quick, argv, &im_noop, &error))
        {
          g_ptr_array_add (ctx->notes, g_strdup_printf ("ImageMagick: %s", error->message));
          g_clear_error (&error);
          have_im = FALSE;
        }
    }
  if (have_vips)
    {
      const char *argv[] = { vips, "copy", in, out_v, NULL };
      fprintf (stderr, "external: vips no-op on %s …\n", fmt);
      if (!time_command (ctx->quick, argv, &vips_noop, &error))
        {
          g_ptr_array_add (ctx->notes, g_strdup_printf ("vips: %s", error->message));
          g_clear_error (&error);
          have_vips = FALSE;
        }
    }
  for (guint i = 0; i < n_sel; i++)
    {
      const ExternalOp *op = NULL;
      g_autofree char *key = g_strdup_printf ("%s|%s|%g|%u", sel[i]->label, fmt, mpx,
                                              ctx->threads_all);
      double *lb_ms = g_hash_table_lookup (results, key);

      for (guint k = 0; k < G_N_ELEMENTS (external_ops); k++)
        if (g_str_equal (external_ops[k].label, sel[i]->label))
          op = &external_ops[k];
      if (op == NULL || lb_ms == NULL)
        continue;
      for (int tool = 0; tool < 2; tool++)
        {
          g_autoptr (GPtrArray) argv = g_ptr_array_new ();
          const LbMeasureStats *noop = tool == 0 ? &im_noop : &vips_noop;
          g_autofree char *shown = NULL;
          g_autofree char *cache_key = NULL;
          const LbMeasureStats *cached;
          LbMeasureStats st;

          if (tool == 0 ? (!have_im || op->im[0] == NULL) : (!have_vips || op->vips[0] == NULL))
            continue;
          if (tool == 0)
            {
              g_ptr_array_add (argv, im);
              g_ptr_array_add (argv, in);
              for (guint a = 0; op->im[a] != NULL; a++)
                g_ptr_array_add (argv, (gpointer) op->im[a]);
              g_ptr_array_add (argv, out_pnm);
            }
          else
            {
              g_ptr_array_add (argv, vips);
              g_ptr_array_add (argv, (gpointer) op->vips[0]);
              g_ptr_array_add (argv, in);
              g_ptr_array_add (argv, out_v);
              for (guint a = 1; op->vips[a] != NULL; a++)
                {
                  const char *v = op->vips[a];
                  if (g_str_equal (v, "@BOX3") || g_str_equal (v, "@BOX7"))
                    {
                      g_ptr_array_add (argv, g_str_equal (v, "@BOX3") ? box3 : box7);
                      g_ptr_array_add (argv, (gpointer) "--precision");
                      g_ptr_array_add (argv, (gpointer) "integer");
                    }
                  else
                    g_ptr_array_add (argv, (gpointer) v);
                }
            }
          g_ptr_array_add (argv, NULL);
          /* The shown command: the operator's own arguments, without paths. */
          if (tool == 0)
            shown = g_strjoinv (" ", (char **) op->im);
          else
            shown = g_strjoinv (" ", (char **) op->vips);
          cache_key = g_strdup_printf ("%d %s", tool, shown);
          cached = g_hash_table_lookup (cache, cache_key);
          if (cached != NULL)
            st = *cached;
          else
            fprintf (stderr, "external: %s %s on %s …\n", tool == 0 ? "ImageMagick" : "vips", shown, fmt);
          if (cached == NULL
              && !time_command (ctx->quick, (const char *const *) argv->pdata, &st, &error))
            {
              g_ptr_array_add (ctx->notes, g_strdup_printf ("%s %s: %s", tool == 0 ? "ImageMagick" : "vips",
                                                            shown, error->message));
              g_clear_error (&error);
              continue;
            }
          if (cached == NULL)
            g_hash_table_insert (cache, g_steal_pointer (&cache_key), g_memdup2 (&st, sizeof st));
          {
            /* The operator's own time; at or below zero it drowned in the start-up noise
             * and no ratio is given. */
            double net = st.median - noop->median;
            gboolean signal = net > 0;

            if (!signal)
              g_ptr_array_add (ctx->notes, g_strdup_printf ("%s %s on %s: no longer than its no-op run "
                                                            "(within start-up noise), no ratio",
                                                            tool == 0 ? "ImageMagick" : "vips", shown, fmt));
            lb_measure_table_add_row_take (table, g_strdup (tool == 0 ? "imagemagick" : "vips"),
                                           g_strdup (shown), g_strdup (sel[i]->label), g_strdup (fmt),
                                           lb_bench_fmt (mpx), lb_bench_fmt (st.median),
                                           lb_bench_fmt (noop->median),
                                           signal ? lb_bench_fmt (net) : g_strdup (""),
                                           lb_bench_fmt (*lb_ms),
                                           signal ? lb_bench_fmt (net / *lb_ms) : g_strdup (""), NULL);
            if (tool == 1 && signal)
              g_hash_table_insert (vips_net, (gpointer) sel[i]->label, g_memdup2 (&net, sizeof net));
          }
        }
    }
  /* A baseline's own radius dependence, beside ours, both from this run. */
  for (guint k = 0; k < G_N_ELEMENTS (external_radius_pairs); k++)
    {
      const double *v1 = g_hash_table_lookup (vips_net, external_radius_pairs[k].label_r1);
      const double *v15 = g_hash_table_lookup (vips_net, external_radius_pairs[k].label_r15);
      double l1 = lb_bench_recall (results, external_radius_pairs[k].label_r1, fmt, mpx, ctx->threads_all);
      double l15 = lb_bench_recall (results, external_radius_pairs[k].label_r15, fmt, mpx, ctx->threads_all);

      if (v1 == NULL || v15 == NULL || isnan (l1) || isnan (l15))
        continue;
      g_ptr_array_add (ctx->notes,
                       g_strdup_printf ("radius independence of a baseline, %s on %s: vips rank 31×31 "
                                        "%.1f ms ÷ 3×3 %.1f ms = %.1f× (Lightbox %s ÷ %s: %.1f×; "
                                        "target ≤ 2×)", external_radius_pairs[k].id, fmt, *v15, *v1,
                                        *v15 / *v1, external_radius_pairs[k].label_r15,
                                        external_radius_pairs[k].label_r1, l15 / l1));
    }
out:
  {
    const char *files[] = { in, out_pnm, out_v, box3, box7 };
    for (guint i = 0; i < G_N_ELEMENTS (files); i++)
      if (files[i] != NULL)
        g_unlink (files[i]);
    g_rmdir (dir);
  }
}
