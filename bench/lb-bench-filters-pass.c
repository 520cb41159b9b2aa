/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-bench-filters"

/* lightbox-bench filters: the test pictures, one measured pass (through the engine or the
 * kernel libraries) and the peak memory of a pass, measured in a child process. */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "lb-bench-filters-private.h"
#include "lb-pipeline.h"

/* ------------------------------------------------------------------------------------------ */
/* Test images */

void
lb_bench_size_dims (double mpx, guint *w, guint *h)
{
  /* The paper's sizes exactly (xv-filters.md Appendix A), squares beyond. */
  static const struct { double mpx; guint w, h; } known[] = {
    { 0.1, 400, 250 }, { 0.25, 500, 500 }, { 0.5, 800, 625 }, { 1.0, 1000, 1000 },
    { 1.4, 1400, 1000 }, { 4, 2000, 2000 }, { 16, 4000, 4000 }, { 64, 8000, 8000 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (known); i++)
    if (fabs (known[i].mpx - mpx) < 1e-9)
      {
        *w = known[i].w;
        *h = known[i].h;
        return;
      }
  *w = MAX (1, (guint) lround (sqrt (mpx * 1e6)));
  *h = MAX (1, (guint) lround (mpx * 1e6 / *w));
}

/* A continuous-tone picture: smooth waves per channel plus a little noise, so statistics
 * filters (median, oil) see realistic data rather than flat or random images. 16-bit gray
 * spans the full 0..65535 range, as 16-bit medical images may; with @ct (16-bit formats) it
 * holds 12-bit values instead, 0..4095 with noise of ±64, as CT slices are stored. */
static LbImage *
make_image (guint width, guint height, LbSampleFormat format, gboolean ct, GError **error)
{
  guint channels = lb_sample_format_get_channels (format);
  gboolean wide = lb_sample_format_get_bit_depth (format) == 16;
  gsize stride;
  guint8 *pixels = lb_image_alloc_pixels (width, height, format, NULL, &stride, error);
  g_autofree float *sx = NULL;
  g_autofree float *sy = NULL;
  guint32 rng = 0x9e3779b9u;

  if (pixels == NULL)
    return NULL;
  sx = g_new (float, (gsize) width * channels);
  sy = g_new (float, (gsize) height * channels);
  for (guint c = 0; c < channels; c++)
    {
      for (guint x = 0; x < width; x++)
        sx[x * channels + c] = (float) sin (x / (37.0 + 11 * c) + c);
      for (guint y = 0; y < height; y++)
        sy[y * channels + c] = (float) cos (y / (23.0 + 7 * c) + 2 * c);
    }
  for (guint y = 0; y < height; y++)
    {
      guint8 *row = pixels + (gsize) y * stride;
      for (guint x = 0; x < width; x++)
        for (guint c = 0; c < channels; c++)
          {
            float w = sx[x * channels + c] * sy[y * channels + c];
            rng ^= rng << 13, rng ^= rng >> 17, rng ^= rng << 5;
            if (wide && ct)
              {
                int v = (int) (2048 + 1900 * w) + (int) (rng & 127) - 64;
                ((guint16 *) (void *) row)[x * channels + c] = (guint16) CLAMP (v, 0, 4095);
              }
            else if (wide)
              {
                int v = (int) (32768 + 31000 * w) + (int) (rng & 2047) - 1024;
                ((guint16 *) (void *) row)[x * channels + c] = (guint16) CLAMP (v, 0, 65535);
              }
            else
              {
                int v = (int) (128 + 110 * w) + (int) (rng & 15) - 8;
                row[x * channels + c] = (guint8) CLAMP (v, 0, 255);
              }
          }
    }
  return lb_image_new_take (width, height, format, stride, pixels, NULL);
}

LbImage *
lb_bench_make_image (guint width, guint height, LbSampleFormat format, GError **error)
{
  return make_image (width, height, format, FALSE, error);
}

LbImage *
lb_bench_make_ct_image (guint width, guint height, LbSampleFormat format, GError **error)
{
  return make_image (width, height, format, TRUE, error);
}

static LbKernelBuf
kernel_buf_of (LbImage *image)
{
  LbSampleFormat f = lb_image_get_format (image);
  LbKernelBuf b = {
    (guint8 *) lb_image_get_data (image), lb_image_get_stride (image),
    (int) lb_image_get_width (image), (int) lb_image_get_height (image),
    (int) lb_sample_format_get_channels (f), (int) lb_sample_format_get_bit_depth (f),
  };
  return b;
}

/* ------------------------------------------------------------------------------------------ */
/* One measured pass */

typedef struct {
  PassPath path;
  LbPipeline *pipeline;          /* engine */
  LbImage *input;
  const LbBenchFilterSpec *spec; /* kernel, reference */
  guint threads;
  GError *error;
} Run;

static double
run_once (gpointer data)
{
  Run *r = data;

  if (r->error != NULL)
    return 0;
  if (r->path == PATH_ENGINE || r->path == PATH_ENGINE_EXACT)
    {
      g_autoptr (GPtrArray) timings = NULL;
      g_autoptr (LbImage) out = lb_pipeline_run (r->pipeline, r->input, &timings, NULL, &r->error);
      const LbPassTiming *t;

      if (out == NULL)
        return 0;
      t = timings->pdata[0];
      return t->usec / 1000.0;
    }
  else
    {
      LbKernelBuf src = kernel_buf_of (r->input);
      LbKernelBuf dst = src;
      double t0, ms;

      /* Like the pipeline's pass: allocating the destination (first-touch page faults
       * included) is part of the time, freeing it is not. */
      t0 = lb_measure_now_ms ();
      dst.data = g_try_malloc (src.stride * (gsize) src.height);
      if (dst.data == NULL)
        {
          g_set_error (&r->error, G_FILE_ERROR, G_FILE_ERROR_NOMEM, "out of memory");
          return 0;
        }
      if (!lb_bench_kernel_run (r->spec, &src, &dst, r->path == PATH_REFERENCE, r->threads,
                                &r->error))
        {
          g_free (dst.data);
          return 0;
        }
      ms = lb_measure_now_ms () - t0;
      g_free (dst.data);
      return ms;
    }
}

/* Sets up @run for @spec on @image: the engine when its registry has the filter for this
 * format and accepts the step, else the kernel directly. For the reference path: the
 * plugin's "exact" parameter where it has one, else the kernel's reference functions. */
static void
run_setup (Ctx *ctx, Run *run, const LbBenchFilterSpec *spec, LbImage *image, guint threads,
           gboolean reference)
{
  memset (run, 0, sizeof *run);
  run->spec = spec;
  run->input = image;
  run->threads = threads;
  run->path = reference ? PATH_REFERENCE : PATH_KERNEL;
  if (ctx->registry != NULL)
    {
      g_autoptr (LbFilter) filter = NULL;
      g_autoptr (LbFilterParams) params = NULL;
      g_autofree char *step = NULL;

      if (!lb_pipeline_parse_step (ctx->registry, spec->step, &filter, &params, NULL)
          || !lb_filter_supports_format (filter, lb_image_get_format (image)))
        return;
      if (reference)
        {
          if (lb_filter_find_param (filter, "exact", NULL) == NULL)
            return;
          step = g_strconcat (spec->step, strchr (spec->step, ':') ? ",exact=true" : ":exact=true", NULL);
          g_clear_object (&filter);
          g_clear_pointer (&params, lb_filter_params_unref);
          if (!lb_pipeline_parse_step (ctx->registry, step, &filter, &params, NULL))
            return;
        }
      run->pipeline = lb_pipeline_new (ctx->registry);
      lb_pipeline_set_n_threads (run->pipeline, threads);
      if (lb_pipeline_append (run->pipeline, filter, params, NULL))
        run->path = reference ? PATH_ENGINE_EXACT : PATH_ENGINE;
      else
        g_clear_object (&run->pipeline);
    }
}

static void
run_clear (Run *run)
{
  g_clear_object (&run->pipeline);
  g_clear_error (&run->error);
}

/* Warm-up, then rounds until the median is stable. Slow passes keep the whole table within
 * tens of minutes: from 0.3 s a warm-up and three runs; from 1 s (64 Mpx, the reference
 * paths at 1.4 Mpx) the first run counts, plus one more, since page-cache and lazy-init
 * effects are small against a second; from 5 s the first run alone. The runs column says
 * how many samples a median has. */
static gboolean
measure (Ctx *ctx, Run *run, LbMeasureStats *st, GError **error)
{
  LbMeasureOptions fast = { 2, 5, 100, 2.0, 0.03 };
  LbMeasureOptions quick = { 1, 3, 30, 0.5, 0.05 };
  LbMeasureOptions slow = { 0, 3, 3, 2.0, 0.05 };
  LbMeasureOptions ref = { 0, 2, 4, 1.0, 0.05 };
  const LbMeasureOptions *opt = ctx->quick ? &quick : &fast;
  double first = run_once (run);  /* also the first warm-up run */

  if (run->error == NULL)
    {
      if (first >= 5000)
        {
          /* one sample: a second run would cost more time than its information is worth */
          *st = lb_measure_stats_of (&first, 1);
        }
      else if (first >= 1000)
        {
          double samples[2] = { first, run_once (run) };
          *st = lb_measure_stats_of (samples, 2);
          st->stable = FALSE;
        }
      else
        {
          if (run->path == PATH_REFERENCE || run->path == PATH_ENGINE_EXACT)
            opt = &ref;
          else if (first >= 300)
            opt = &slow;
          *st = lb_measure_run (run_once, run, opt);
        }
    }
  if (run->error != NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&run->error), "%s (%s): ",
                                  run->spec->label, path_name (run->path));
      return FALSE;
    }
  return TRUE;
}

gboolean
lb_bench_measure_cell (Ctx *ctx, const LbBenchFilterSpec *spec, LbImage *image, guint threads,
                       gboolean reference, LbMeasureStats *st, PassPath *path, GError **error)
{
  Run run;
  gboolean ok;

  run_setup (ctx, &run, spec, image, threads, reference);
  ok = measure (ctx, &run, st, error);
  *path = run.path;
  run_clear (&run);
  return ok;
}


/* ------------------------------------------------------------------------------------------ */
/* Memory: one pass in a child process, which reads its own peak RSS */

static gboolean
read_status_kb (const char *field, guint64 *kb)
{
  g_autofree char *text = NULL;
  const char *p;

  if (!g_file_get_contents ("/proc/self/status", &text, NULL, NULL))
    return FALSE;
  p = strstr (text, field);
  if (p == NULL)
    return FALSE;
  *kb = g_ascii_strtoull (p + strlen (field) + 1, NULL, 10);
  return TRUE;
}

/* lightbox-bench mem-pass LABEL MPX FORMAT THREADS: prints "base_kb peak_kb image_bytes
 * path ms". base = RSS before the image exists; peak = VmHWM after the pass, with the
 * high-water mark reset (clear_refs 5) once the input is built, so it is the pass's peak
 * with the input resident. */
int
lb_bench_mem_pass_main (int argc, char **argv)
{
  Ctx ctx = { 0 };
  const LbBenchFilterSpec *specs, *spec = NULL;
  guint n_specs, w, h;
  LbSampleFormat format;
  guint64 base_kb = 0, peak_kb = 0;
  g_autoptr (GError) error = NULL;
  g_autoptr (LbImage) image = NULL;
  g_autoptr (LbFilterRegistry) registry = NULL;
  Run run;
  double ms;

  if (argc != 5 || !lb_sample_format_from_string (argv[3], &format))
    {
      fprintf (stderr, "usage: lightbox-bench mem-pass LABEL MPX FORMAT THREADS\n");
      return 2;
    }
  specs = lb_bench_filter_specs (&n_specs);
  for (guint i = 0; i < n_specs; i++)
    if (g_str_equal (specs[i].label, argv[1]))
      spec = &specs[i];
  if (spec == NULL)
    {
      fprintf (stderr, "mem-pass: unknown filter %s\n", argv[1]);
      return 2;
    }
  registry = lb_filter_registry_new_default ();
  ctx.registry = registry;
  read_status_kb ("VmRSS:", &base_kb);
  lb_bench_size_dims (g_ascii_strtod (argv[2], NULL), &w, &h);
  image = lb_bench_make_image (w, h, format, &error);
  if (image == NULL)
    {
      fprintf (stderr, "mem-pass: %s\n", error->message);
      return 1;
    }
  run_setup (&ctx, &run, spec, image, (guint) atoi (argv[4]), FALSE);
  /* Reset the high-water mark to the current RSS (Linux ≥ 4.0); if that is impossible the
   * mark still covers the image build, which is below the pass's own peak. */
  g_file_set_contents ("/proc/self/clear_refs", "5", 1, NULL);
  ms = run_once (&run);
  if (run.error != NULL)
    {
      fprintf (stderr, "mem-pass: %s\n", run.error->message);
      run_clear (&run);
      return 1;
    }
  read_status_kb ("VmHWM:", &peak_kb);
  printf ("%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GSIZE_FORMAT " %s %.3f\n", base_kb,
          peak_kb, lb_image_get_stride (image) * h, path_name (run.path), ms);
  run_clear (&run);
  return 0;
}

void
lb_bench_memory_rows (Ctx *ctx, LbMeasureTable *table, const LbBenchFilterSpec *const *sel,
                      guint n_sel, double mpx)
{
  /* The child runs this very program through /proc/self/exe (inherited across fork), so a
   * rebuild of the file during a long run cannot swap it for another version. */
  const char *self = "/proc/self/exe";
  g_autofree char *threads = g_strdup_printf ("%u", ctx->threads_all);
  char mpx_s[32];

  g_ascii_formatd (mpx_s, sizeof mpx_s, "%g", mpx);
  for (guint i = 0; i < n_sel; i++)
    {
      const char *argv[] = { self, "mem-pass", sel[i]->label, mpx_s, "gray16", threads, NULL };
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;
      g_autoptr (GError) error = NULL;
      guint64 base_kb, peak_kb;
      gsize image_bytes;
      char path[16];
      double ms, delta_mb, image_mb;
      int status;

      fprintf (stderr, "memory: %s at %g Mpx gray16 …\n", sel[i]->label, mpx);
      if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                         &status, &error)
          || !g_spawn_check_wait_status (status, &error)
          || sscanf (out, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GSIZE_FORMAT " %15s %lf",
                     &base_kb, &peak_kb, &image_bytes, path, &ms) != 5)
        {
          g_ptr_array_add (ctx->notes, g_strdup_printf ("memory %s: %s %s", sel[i]->label,
                                                        error ? error->message : "bad output",
                                                        err ? err : ""));
          continue;
        }
      image_mb = image_bytes / 1048576.0;
      delta_mb = ((double) peak_kb - (double) base_kb) / 1024.0;
      lb_measure_table_add_row_take (table, g_strdup (sel[i]->label), g_strdup ("gray16"),
                                     g_strdup (mpx_s), g_strdup (path), lb_bench_fmt (image_mb),
                                     lb_bench_fmt (peak_kb / 1024.0), lb_bench_fmt (delta_mb),
                                     lb_bench_fmt (delta_mb / image_mb),
                                     g_strdup (delta_mb < 3 * image_mb ? "yes" : "NO"), NULL);
    }
}
