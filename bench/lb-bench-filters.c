/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-bench-filters"

/* lightbox-bench filters: issue 3 item 8 and its speed section.
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
#include "lb-bench-kernels.h"
#include "lb-bench-plot.h"
#include "lb-bench.h"
#include "lb-image.h"
#include "lb-pipeline.h"

#define PAPER_MPX 1.4          /* xv's table and the external comparisons */
#define REFERENCE_MAX_MPX 1.45 /* the scalar reference is timed up to the paper's largest size */

typedef struct {
  gboolean quick;
  char *out_dir;
  GPtrArray *ids;        /* selected filter ids, NULL = all */
  GArray *sizes;         /* double Mpx */
  guint threads_all;
  LbFilterRegistry *registry;
  GPtrArray *notes;
} Ctx;

/* ------------------------------------------------------------------------------------------ */
/* Test images */

static void
size_dims (double mpx, guint *w, guint *h)
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

LbImage *lb_bench_make_image (guint width, guint height, LbSampleFormat format, GError **error);

LbImage *
lb_bench_make_image (guint width, guint height, LbSampleFormat format, GError **error)
{
  return make_image (width, height, format, FALSE, error);
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
/* One measured pass */

/* engine: registry + pipeline; engine-exact: the same with the plugin's own "exact"
 * parameter (its scalar reference path, where the plugin offers one); kernel / reference:
 * the kernel library's optimised / scalar reference functions, called directly. */
typedef enum { PATH_ENGINE, PATH_ENGINE_EXACT, PATH_KERNEL, PATH_REFERENCE } PassPath;

static const char *
path_name (PassPath p)
{
  switch (p)
    {
    case PATH_ENGINE: return "engine";
    case PATH_ENGINE_EXACT: return "engine-exact";
    case PATH_KERNEL: return "kernel";
    case PATH_REFERENCE: return "reference";
    default: return "?";
    }
}

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

/* ------------------------------------------------------------------------------------------ */
/* The memory floor: a pass's bytes moved and nothing computed
 *
 * What the "long-term aim" (the memory-bandwidth floor) means on this machine, in
 * this run: the destination allocated as the pipeline allocates it, then every source row
 * copied into it by the same number of threads, in bands taken from a shared counter as the
 * engine takes them, the helpers from a pool started beforehand. A filter's time over this
 * is what its arithmetic and the engine cost beyond moving its bytes. */

typedef struct {
  const guint8 *src;
  guint8 *dst;
  gsize src_stride, dst_stride, row_size;
  int height, n_bands;
  gint next;     /* the next band to take (atomic) */
  int pending;   /* helpers not finished, under @lock */
  GMutex lock;
  GCond done;
} FloorPass;

static void
floor_bands (FloorPass *p)
{
  for (;;)
    {
      int b = g_atomic_int_add (&p->next, 1);
      int y0, y1;

      if (b >= p->n_bands)
        break;
      y0 = (int) ((gint64) p->height * b / p->n_bands);
      y1 = (int) ((gint64) p->height * (b + 1) / p->n_bands);
      for (int y = y0; y < y1; y++)
        memcpy (p->dst + (gsize) y * p->dst_stride, p->src + (gsize) y * p->src_stride, p->row_size);
    }
}

static void
floor_helper (gpointer data, gpointer user_data)
{
  FloorPass *p = data;

  floor_bands (p);
  g_mutex_lock (&p->lock);
  if (--p->pending == 0)
    g_cond_signal (&p->done);
  g_mutex_unlock (&p->lock);
}

typedef struct {
  LbImage *input;
  guint threads;
  GThreadPool *pool;   /* threads − 1 helpers */
  GError *error;
} FloorRun;

static double
floor_once (gpointer data)
{
  FloorRun *r = data;
  guint w = lb_image_get_width (r->input), h = lb_image_get_height (r->input);
  LbSampleFormat format = lb_image_get_format (r->input);
  FloorPass p = { 0 };
  g_autoptr (LbImage) out = NULL;
  double t0, ms;

  if (r->error != NULL)
    return 0;
  t0 = lb_measure_now_ms ();
  p.dst = lb_image_alloc_pixels (w, h, format, NULL, &p.dst_stride, &r->error);
  if (p.dst == NULL)
    return 0;
  p.src = lb_image_get_data (r->input);
  p.src_stride = lb_image_get_stride (r->input);
  p.row_size = lb_image_get_row_size (r->input);
  p.height = (int) h;
  /* about four bands per thread, as the pipeline cuts them */
  p.n_bands = (int) MIN ((guint) h, 4 * r->threads);
  p.pending = (int) r->threads - 1;
  g_mutex_init (&p.lock);
  g_cond_init (&p.done);
  for (guint t = 1; t < r->threads; t++)
    (void) g_thread_pool_push (r->pool, &p, NULL);
  floor_bands (&p);
  g_mutex_lock (&p.lock);
  while (p.pending > 0)
    g_cond_wait (&p.done, &p.lock);
  g_mutex_unlock (&p.lock);
  ms = lb_measure_now_ms () - t0;
  g_mutex_clear (&p.lock);
  g_cond_clear (&p.done);
  /* dropped as the pipeline's output is dropped after its pass (back to the pixel cache) */
  out = lb_image_new_take (w, h, format, p.dst_stride, p.dst, NULL);
  return ms;
}

static gboolean
measure_floor (Ctx *ctx, LbImage *image, guint threads, LbMeasureStats *st, GError **error)
{
  LbMeasureOptions opt = { 2, 5, 100, 2.0, 0.03 };
  FloorRun run = { image, MAX (threads, 1), NULL, NULL };

  if (ctx->quick)
    opt = (LbMeasureOptions) { 1, 3, 30, 0.5, 0.05 };
  if (run.threads > 1)
    {
      run.pool = g_thread_pool_new (floor_helper, NULL, (int) run.threads - 1, TRUE, error);
      if (run.pool == NULL)
        return FALSE;
    }
  *st = lb_measure_run (floor_once, &run, &opt);
  if (run.pool != NULL)
    g_thread_pool_free (run.pool, FALSE, TRUE);
  if (run.error != NULL)
    {
      g_propagate_prefixed_error (error, run.error, "memory floor: ");
      return FALSE;
    }
  return TRUE;
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
  size_dims (g_ascii_strtod (argv[2], NULL), &w, &h);
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

static void
memory_rows (Ctx *ctx, LbMeasureTable *table, const LbBenchFilterSpec *const *sel, guint n_sel,
             double mpx)
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

static double recall (GHashTable *results, const char *label, const char *fmt, double mpx, guint threads);

static void
external_rows (Ctx *ctx, LbMeasureTable *table, const LbBenchFilterSpec *const *sel, guint n_sel,
               LbImage *image, const char *fmt, double mpx, GHashTable *results)
{
  /* vips's own time per filter label (ms, start-up subtracted), for its radius ratios */
  g_autoptr (GHashTable) vips_net = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  static const char *const im_names[] = { "convert-im6.q16", "convert", NULL };
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
    g_ptr_array_add (ctx->notes, g_strdup ("ImageMagick (convert) not installed: no comparison"));
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
      double l1 = recall (results, external_radius_pairs[k].label_r1, fmt, mpx, ctx->threads_all);
      double l15 = recall (results, external_radius_pairs[k].label_r15, fmt, mpx, ctx->threads_all);

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

static double
recall (GHashTable *results, const char *label, const char *fmt, double mpx, guint threads)
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

static gboolean
measure_cell (Ctx *ctx, const LbBenchFilterSpec *spec, LbImage *image, guint threads,
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

/* The memory-floor table at @mpx: 8-bit RGB and 16-bit gray (the main table's all-thread
 * passes, measured again only where it has none), 8-bit RGBA (the long-term aim
 * names a 3×3 pass over RGBA), 8-bit gray, then the other four formats every filter takes
 * (gray+alpha at 8 and 16 bits, RGB and RGBA at 16), each filter against the floor of its own
 * format and thread count: a format far below the others' GB/s has a slow path. */
static void
floor_rows (Ctx *ctx, LbMeasureTable *table, const LbBenchFilterSpec *const *sel, guint n_sel,
            double mpx, GHashTable *results)
{
  static const LbSampleFormat formats[] = { LB_FORMAT_RGB8, LB_FORMAT_GRAY16, LB_FORMAT_RGBA8,
                                             LB_FORMAT_GRAY8, LB_FORMAT_GRAYA8, LB_FORMAT_GRAYA16,
                                             LB_FORMAT_RGB16, LB_FORMAT_RGBA16 };
  g_autoptr (GError) error = NULL;
  guint w, h;

  size_dims (mpx, &w, &h);
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    {
      const char *fmt = lb_sample_format_to_string (formats[f]);
      g_autoptr (LbImage) image = lb_bench_make_image (w, h, formats[f], &error);
      guint counts[2] = { 1, ctx->threads_all };
      double floor_all = NAN;
      double bytes;

      if (image == NULL)
        {
          g_ptr_array_add (ctx->notes, g_strdup_printf ("memory floor, %s: %s", fmt, error->message));
          g_clear_error (&error);
          continue;
        }
      /* read once, written once */
      bytes = 2.0 * (double) lb_image_get_row_size (image) * h;
      for (guint t = 0; t < (ctx->threads_all > 1 ? 2u : 1u); t++)
        {
          LbMeasureStats st;

          if (!measure_floor (ctx, image, counts[t], &st, &error))
            {
              g_ptr_array_add (ctx->notes, g_strdup (error->message));
              g_clear_error (&error);
              continue;
            }
          fprintf (stderr, "%-16s %-6s %5g Mpx %2uT floor  %10.3f ms\n", "copy (floor)", fmt, mpx,
                   counts[t], st.median);
          if (counts[t] == ctx->threads_all)
            floor_all = st.median;
          lb_measure_table_add_row_take (table, g_strdup ("copy (floor)"), g_strdup (fmt),
                                         lb_bench_fmt (mpx), g_strdup_printf ("%u", counts[t]),
                                         lb_bench_fmt (st.median),
                                         lb_bench_fmt (bytes / (st.median * 1e6)),
                                         lb_bench_fmt (st.median), lb_bench_fmt (1.0), NULL);
        }
      if (isnan (floor_all))
        continue;
      for (guint i = 0; i < n_sel; i++)
        {
          const LbBenchFilterSpec *spec = sel[i];
          double ms = recall (results, spec->label, fmt, mpx, ctx->threads_all);
          LbMeasureStats st;
          PassPath path;

          if (isnan (ms))
            {
              if (!measure_cell (ctx, spec, image, ctx->threads_all, FALSE, &st, &path, &error))
                {
                  g_ptr_array_add (ctx->notes, g_strdup (error->message));
                  g_clear_error (&error);
                  continue;
                }
              ms = st.median;
              fprintf (stderr, "%-16s %-6s %5g Mpx %2uT %-6s %10.3f ms\n", spec->label, fmt, mpx,
                       ctx->threads_all, path_name (path), ms);
            }
          lb_measure_table_add_row_take (table, g_strdup (spec->label), g_strdup (fmt),
                                         lb_bench_fmt (mpx), g_strdup_printf ("%u", ctx->threads_all),
                                         lb_bench_fmt (ms), lb_bench_fmt (bytes / (ms * 1e6)),
                                         lb_bench_fmt (floor_all), lb_bench_fmt (ms / floor_all), NULL);
        }
    }
}

int
lb_bench_filters_main (int argc, char **argv)
{
  Ctx ctx = { 0 };
  gboolean quick = FALSE, no_external = FALSE, no_memory = FALSE, no_reference = FALSE;
  gboolean memory_only = FALSE, no_floor = FALSE;
  g_autofree char *out_dir = NULL;
  g_autofree char *filters_arg = NULL;
  g_auto (GStrv) sizes_arg = NULL;
  int threads_arg = 0;
  GOptionEntry entries[] = {
    { "quick", 'q', 0, G_OPTION_ARG_NONE, &quick, "Sizes up to 4 Mpx, fewer runs", NULL },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out_dir, "Directory for CSV, JSON, SVG and PNG (default bench-results)", "DIR" },
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

        size_dims (mpx, &w, &h);
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
                if (measure_cell (&ctx, spec, image, 1, TRUE, &ref, &ref_path, &error))
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

                if (!measure_cell (&ctx, spec, image, thread_counts[t], FALSE, &st, &path, &error))
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
                    image12 = make_image (w, h, formats[f], TRUE, &error);
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
              if (!measure_cell (&ctx, &s1, rimage, ctx.threads_all, FALSE, &st1, &p1, &error)
                  || !measure_cell (&ctx, &s15, rimage, ctx.threads_all, FALSE, &st15, &p15, &error))
                {
                  g_ptr_array_add (notes, g_strdup (error->message));
                  g_clear_error (&error);
                  continue;
                }
              fprintf (stderr, "radius %-10s %-6s r1 %.3f ms, r15 %.3f ms\n", rp->id, rfmt,
                       st1.median, st15.median);
              /* for the external rows (a baseline's radius 15); radius 1 keeps the main
               * table's figure where it has one */
              if (v == 0 && isnan (recall (results, rp->label_r1, fmt, mpx, ctx.threads_all)))
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
            external_rows (&ctx, t_ext, (const LbBenchFilterSpec *const *) ext_sel->pdata,
                           ext_sel->len, image, fmt, mpx, results);
          }
      }

  /* Against xv's published times. */
  for (guint i = 0; i < sel->len; i++)
    {
      const LbBenchFilterSpec *spec = sel->pdata[i];
      double t1 = recall (results, spec->label, "rgb8", PAPER_MPX, 1);
      double ta = recall (results, spec->label, "rgb8", PAPER_MPX, ctx.threads_all);

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
    floor_rows (&ctx, t_floor, (const LbBenchFilterSpec *const *) sel->pdata, sel->len, radius_mpx,
                results);

  if (!no_memory)
    {
      double mem_mpx = quick ? max_mpx : MAX (max_mpx, 64);
      memory_rows (&ctx, t_mem, (const LbBenchFilterSpec *const *) sel->pdata, sel->len, mem_mpx);
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
    LbMeasureTable *tables[] = { t_main, t_xv, t_radius, t_ext, t_floor, t_mem };
    gboolean ok = lb_bench_write_results (out_dir, "filters", keys, tables, notes, &error);

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
  }
  return 0;
}
