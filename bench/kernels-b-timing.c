/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "kernels-b-timing"

/* Times the xvgeom (rotate, pixelize, spread) and enhance (gaussian, unsharp, median) kernels
 * on a 1400×1000 8-bit RGB image (1.4 Mpx, the reference size): the scalar reference
 * path and the optimised path on one thread, and the optimised path on all cores (bands of
 * 64 rows pulled by the threads; Spread: in place on one thread, its exact banded form on
 * all threads). Medians until stable (lb-measure).
 * xv's own single-thread times (../shared/reference/xv-filters.md) are printed beside them for
 * the ratio; the speedup over the scalar path is measured in this run.
 *
 * --gray16 runs the same filters on a 16-bit gray image of the same size (the RGB8 picture's
 * green channel × 257 plus noise), for the 16-bit paths.
 *
 * Usage: kernels-b-timing [--quick] [--gray16] [--only SUBSTRING] [WIDTH HEIGHT]  */

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lb-enhance.h"
#include "lb-measure-table.h"
#include "lb-measure.h"
#include "lb-xvgeom.h"

typedef gpointer (*PrepareFunc) (const LbKernelBuf *, gconstpointer params);
typedef void (*ProcessFunc) (gconstpointer, const LbKernelBuf *, LbKernelBuf *, int, int);

typedef struct {
  const char *name;
  double xv_ms;             /* xv single thread at 1.4 Mpx, ms; 0 = no xv equivalent */
  gboolean whole_image;
  gboolean skip_reference;  /* the sorting median reference takes minutes at large radii */
  gpointer (*prepare) (const LbKernelBuf *src, gconstpointer params);
  ProcessFunc fast, ref;
  GDestroyNotify free;
  gconstpointer params;
} Filter;

#define WRAP(name, T, P)                                                                     \
  static gpointer name##_prep (const LbKernelBuf *s, gconstpointer p)                        \
  {                                                                                          \
    g_autoptr (GError) error = NULL;                                                         \
    gpointer st = lb_##name##_prepare (s, NULL, (const P *) p, &error);                      \
    if (st == NULL)                                                                          \
      g_error ("%s", error->message);                                                        \
    return st;                                                                               \
  }                                                                                          \
  static void name##_fast (gconstpointer s, const LbKernelBuf *a, LbKernelBuf *b, int y0,     \
                           int y1)                                                           \
  { lb_##name##_process ((const T *) s, a, b, y0, y1); }                                      \
  static void name##_ref (gconstpointer s, const LbKernelBuf *a, LbKernelBuf *b, int y0,      \
                          int y1)                                                            \
  { lb_##name##_process_reference ((const T *) s, a, b, y0, y1); }                            \
  static void name##_free (gpointer s) { lb_##name##_free (s); }

WRAP (rotate, LbRotate, LbRotateParams)
WRAP (pixelize, LbPixelize, LbPixelizeParams)
WRAP (spread, LbSpread, LbSpreadParams)
WRAP (gaussian, LbGaussian, LbGaussianParams)
WRAP (unsharp, LbUnsharp, LbUnsharpParams)
WRAP (median, LbMedian, LbMedianParams)

static const LbRotateParams rot_copy = { .angle = 30.0 };
static const LbRotateParams rot_clear = { .angle = 30.0, .clear = TRUE };
static const LbPixelizeParams pix4 = { 4, 4, FALSE };
static const LbSpreadParams spread5 = { FALSE, 5, 0, 1 };
static const LbGaussianParams gauss_r1 = { 1.0 / 3.0 }, gauss_r3 = { 1.0 }, gauss_r15 = { 5.0 };
static const LbUnsharpParams unsharp2 = { 2.0, 0.5, 0.0 };
static const LbMedianParams med1 = { 1 }, med2 = { 2 }, med15 = { 15 };

static const Filter filters[] = {
  { "rotate 30", 89, FALSE, FALSE, rotate_prep, rotate_fast, rotate_ref, rotate_free, &rot_copy },
  { "rotate-clear 30", 88.7, FALSE, FALSE, rotate_prep, rotate_fast, rotate_ref, rotate_free, &rot_clear },
  { "pixelize 4", 7, FALSE, FALSE, pixelize_prep, pixelize_fast, pixelize_ref, pixelize_free, &pix4 },
  { "spread 5 (banded on all-T)", 25, TRUE, FALSE, spread_prep, spread_fast, spread_ref, spread_free, &spread5 },
  { "gaussian r=1 (sigma 1/3)", 0, FALSE, FALSE, gaussian_prep, gaussian_fast, gaussian_ref, gaussian_free, &gauss_r1 },
  { "gaussian r=3 (sigma 1)", 0, FALSE, FALSE, gaussian_prep, gaussian_fast, gaussian_ref, gaussian_free, &gauss_r3 },
  { "gaussian r=15 (sigma 5)", 0, FALSE, FALSE, gaussian_prep, gaussian_fast, gaussian_ref, gaussian_free, &gauss_r15 },
  { "unsharp 2,0.5,0", 0, FALSE, FALSE, unsharp_prep, unsharp_fast, unsharp_ref, unsharp_free, &unsharp2 },
  { "median r=1 (despeckle 3)", 99, FALSE, FALSE, median_prep, median_fast, median_ref, median_free, &med1 },
  { "median r=2 (despeckle 5)", 485, FALSE, FALSE, median_prep, median_fast, median_ref, median_free, &med2 },
  { "median r=15", 0, FALSE, TRUE, median_prep, median_fast, median_ref, median_free, &med15 },
};

typedef struct {
  const Filter *f;
  const LbKernelBuf *src;
  LbKernelBuf *dst;
  gboolean reference;
  int threads;
  /* per run */
  gpointer state;
  gint next_band;
  double cpu_ms;   /* CPU time of the calling thread in the last run */
} Run;

/* The machine is shared: the calling thread's CPU time is reported beside the wall time for
 * single-thread runs, as a figure less disturbed by other processes. */
static double
thread_cpu_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* rows per band for the all-thread runs: 16 bands over 1000 rows, enough for load balance;
 * the median rebuilds its column histograms from 2r+1 rows per band, so tiny bands cost it */
#define BAND_ROWS 64

static gpointer
worker (gpointer data)
{
  Run *run = data;
  int nb = (run->src->height + BAND_ROWS - 1) / BAND_ROWS;

  for (;;)
    {
      int b = g_atomic_int_add (&run->next_band, 1);

      if (b >= nb)
        break;
      run->f->fast (run->state, run->src, run->dst, b * BAND_ROWS,
                    MIN (run->src->height, (b + 1) * BAND_ROWS));
    }
  return NULL;
}

/* Spread on all threads: its exact banded form (lb-xvgeom.h), the bands as one parallel loop
 * (each band settles the pixels it left to earlier bands once those are done), as the
 * plugin's finish() does through the host. */
static gpointer
spread_band_worker (gpointer data)
{
  Run *run = data;
  int nb = lb_spread_get_n_bands (run->state);

  for (;;)
    {
      int b = g_atomic_int_add (&run->next_band, 1);

      if (b >= nb)
        break;
      lb_spread_process_band (run->state, run->src, run->dst, b);
    }
  return NULL;
}

static void
spread_all_threads (Run *run)
{
  GThread *th[64];
  int n = MIN (run->threads, 64);

  run->next_band = 0;
  for (int i = 1; i < n; i++)
    th[i] = g_thread_new ("band", spread_band_worker, run);
  spread_band_worker (run);
  for (int i = 1; i < n; i++)
    g_thread_join (th[i]);
}

static double
run_once (gpointer data)
{
  Run *run = data;
  double t0, c0;

  memcpy (run->dst->data, run->src->data, run->src->stride * run->src->height);
  c0 = thread_cpu_ms ();
  t0 = lb_measure_now_ms ();
  run->state = run->f->prepare (run->src, run->f->params);
  if (run->reference)
    run->f->ref (run->state, run->src, run->dst, 0, run->src->height);
  else if (run->threads > 1 && run->f->prepare == spread_prep)
    spread_all_threads (run);
  else if (run->threads <= 1 || run->f->whole_image)
    run->f->fast (run->state, run->src, run->dst, 0, run->src->height);
  else
    {
      GThread *th[64];
      int n = MIN (run->threads, 64);

      run->next_band = 0;
      for (int i = 1; i < n; i++)
        th[i] = g_thread_new ("band", worker, run);
      worker (run);
      for (int i = 1; i < n; i++)
        g_thread_join (th[i]);
    }
  run->f->free (run->state);
  t0 = lb_measure_now_ms () - t0;
  run->cpu_ms = thread_cpu_ms () - c0;
  return t0;
}

static double
run_once_cpu (gpointer data)
{
  Run *run = data;

  run_once (run);
  return run->cpu_ms;
}

/* the golden-input recipe in spirit: gradients, flat shapes, a checkerboard and noise */
static void
make_image (LbKernelBuf *img)
{
  guint32 s = 12345;

  for (int y = 0; y < img->height; y++)
    for (int x = 0; x < img->width; x++)
      {
        guint8 *p = img->data + (gsize) y * img->stride + (gsize) x * 3;
        int noise;

        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        noise = (int) (s % 61) - 30;
        p[0] = (guint8) CLAMP (x * 255 / img->width + noise, 0, 255);
        p[1] = (guint8) CLAMP (y * 255 / img->height + noise, 0, 255);
        p[2] = (guint8) CLAMP (((x + y) * 255) / (img->width + img->height) - noise, 0, 255);
        if ((x - img->width / 3) * (x - img->width / 3) + (y - img->height / 2) * (y - img->height / 2)
            < img->height * img->height / 16)
          p[0] = 20, p[1] = 40, p[2] = 220;
        if (x > 3 * img->width / 4 && ((x / 3 + y / 3) & 1))
          p[0] = p[1] = p[2] = 255;
      }
}

int
main (int    argc,
      char **argv)
{
  gboolean quick = FALSE;
  const char *only = NULL;
  gboolean gray16 = FALSE;
  int argi = 1;
  int w = 1400, h = 1000;
  int ncpu = (int) g_get_num_processors ();
  LbKernelBuf src, dst;
  LbMeasureOptions fast_opts = LB_MEASURE_OPTIONS_DEFAULT;
  LbMeasureOptions ref_opts = { 0, 3, 5, 20.0, 0.05 };
  static const char *cols[] = { "filter", "scalar 1T cpu ms", "fast 1T ms", "fast 1T cpu ms",
                                "fast all-T ms",
                                "speedup 1T cpu", "xv ms (ref.)", "xv / all-T", NULL };
  g_autoptr (LbMeasureTable) table = lb_measure_table_new ("kernels-b timing", cols);

  for (; argi < argc && g_str_has_prefix (argv[argi], "--"); argi++)
    if (g_str_equal (argv[argi], "--quick"))
      quick = TRUE;
    else if (g_str_equal (argv[argi], "--gray16"))
      gray16 = TRUE;
    else if (g_str_equal (argv[argi], "--only") && argi + 1 < argc)
      only = argv[++argi];
    else
      g_error ("usage: %s [--quick] [--gray16] [--only SUBSTRING] [WIDTH HEIGHT]", argv[0]);
  if (argc > argi + 1)
    {
      w = atoi (argv[argi]);
      h = atoi (argv[argi + 1]);
    }
  if (w < 1 || h < 1)
    g_error ("bad size %d×%d", w, h);
  if (quick)
    {
      ref_opts = (LbMeasureOptions) { 0, 1, 1, 1.0, 1.0 };
      fast_opts = (LbMeasureOptions) { 1, 3, 3, 1.0, 1.0 };
    }
  /* the size from the command line (the buffers were once laid out before it was read) */
  src = (LbKernelBuf) { NULL, (gsize) w * 3, w, h, 3, 8 };
  dst = src;
  src.data = g_malloc ((gsize) w * 3 * h);
  dst.data = g_malloc ((gsize) w * 3 * h);
  make_image (&src);
  if (gray16)
    {
      /* in place: a 16-bit sample fits where the 3-byte pixel was */
      guint32 s = 777;

      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          {
            guint8 g = src.data[(gsize) y * src.stride + (gsize) x * 3 + 1];

            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            ((guint16 *) (void *) src.data)[(gsize) y * w + x] = (guint16) MIN (65535, g * 257 + s % 257);
          }
      src.stride = dst.stride = (gsize) w * 2;
      src.channels = dst.channels = 1;
      src.depth = dst.depth = 16;
    }
  {
    double la[3];

    g_print ("# %d×%d %s, %d threads for all-T", w, h, gray16 ? "GRAY16" : "RGB8", ncpu);
    if (getloadavg (la, 3) == 3)
      g_print (", load average %.2f (other processes share these cores)", la[0]);
    g_print ("\n");
  }
  for (gsize i = 0; i < G_N_ELEMENTS (filters); i++)
    {
      Run run = { &filters[i], &src, &dst, FALSE, 1, NULL, 0 };
      LbMeasureStats ref = { 0 }, one, onecpu, all;
      char cref[32] = "-", cone[32], ccpu[32], call[32], cspeed[32] = "-", cxv[32] = "-", cratio[32] = "-";

      if (only != NULL && strstr (filters[i].name, only) == NULL)
        continue;

      if (!filters[i].skip_reference)
        {
          run.reference = TRUE;
          ref = lb_measure_run (run_once_cpu, &run, &ref_opts);
          run.reference = FALSE;
          g_snprintf (cref, sizeof cref, "%.2f", ref.median);
        }
      one = lb_measure_run (run_once, &run, &fast_opts);
      onecpu = lb_measure_run (run_once_cpu, &run, &fast_opts);
      g_snprintf (ccpu, sizeof ccpu, "%.2f", onecpu.median);
      run.threads = ncpu;
      all = lb_measure_run (run_once, &run, &fast_opts);
      g_snprintf (cone, sizeof cone, "%.2f", one.median);
      g_snprintf (call, sizeof call, "%.2f", all.median);
      if (!filters[i].skip_reference)
        g_snprintf (cspeed, sizeof cspeed, "%.1f", ref.median / onecpu.median);
      if (filters[i].xv_ms > 0 && !gray16 && w == 1400 && h == 1000)
        {
          g_snprintf (cxv, sizeof cxv, "%.1f", filters[i].xv_ms);
          g_snprintf (cratio, sizeof cratio, "%.1f", filters[i].xv_ms / all.median);
        }
      lb_measure_table_add_rowf (table, filters[i].name, cref, cone, ccpu, call, cspeed, cxv, cratio,
                                 NULL);
    }
  lb_measure_table_print (table, stdout);
  g_free (src.data);
  g_free (dst.data);
  return 0;
}
