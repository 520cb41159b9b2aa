/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "kernels-a-timing"

/* Times the xv kernels of set A (blur, sharpen, edge, emboss, oil, blend, despeckle) on a
 * synthetic 1400×1000 image (RGB8, and GRAY16 for the 16-bit paths): reference and optimised
 * path on one thread, the optimised path on two threads (two row bands), and the radius
 * ratios. Each figure is the median of repeated runs after a warm-up; xv's own times from the
 * issue (same machine class, gcc -O2, single thread) are printed beside them for scale.
 *
 *   kernels-a-timing [--quick] [NAME]   --quick: one run each, for a smoke run;
 *                                       NAME: only the cases whose name contains it */

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lb-xv-kernels-a.h"

typedef enum { F_BLUR, F_SHARPEN, F_EDGE, F_EMBOSS, F_OIL, F_BLEND, F_DESPECKLE } FilterId;

typedef struct {
  const char *name;
  FilterId id;
  int param;
  double xv_ms; /* xv 3.10a, gcc -O2, 1400×1000 RGB, from the issue; 0 = not measured */
  gboolean ref; /* time the reference path too (too slow for the large windows) */
} Case;

static const Case cases[] = {
  { "blur 3", F_BLUR, 3, 18.3, TRUE },
  { "blur 7", F_BLUR, 7, 57.6, TRUE },
  { "blur 31 (r 15)", F_BLUR, 31, 0, FALSE },
  { "sharpen 75", F_SHARPEN, 75, 51.6, TRUE },
  { "edge", F_EDGE, 0, 19.6, TRUE },
  { "emboss", F_EMBOSS, 0, 13.1, TRUE },
  { "oil (xv 4x4)", F_OIL, 0, 177.6, TRUE },
  { "oil 3 (corr.)", F_OIL, 3, 0, TRUE },
  { "oil 5 (corr.)", F_OIL, 5, 0, FALSE },
  { "oil 9 (corr.)", F_OIL, 9, 0, FALSE },
  { "oil 15 (corr.)", F_OIL, 15, 0, FALSE },
  { "oil 31 (corr.)", F_OIL, 31, 0, FALSE },
  { "blend", F_BLEND, 0, 16.7, TRUE },
  { "despeckle 3", F_DESPECKLE, 3, 99.2, TRUE },
  { "despeckle 5", F_DESPECKLE, 5, 485.2, TRUE },
  { "despeckle 7", F_DESPECKLE, 7, 0, FALSE },
  { "despeckle 19", F_DESPECKLE, 19, 0, FALSE },
  { "despeckle 31", F_DESPECKLE, 31, 0, FALSE },
  { "despeckle 51", F_DESPECKLE, 51, 0, FALSE },
};

typedef struct {
  const Case *c;
  LbKernelBuf *src;
  LbKernelBuf *dst;
  gboolean fast;
  LbXvKernelState st;
} Job;

static void
prepare (Job *job)
{
  g_autoptr (GError) error = NULL;
  gboolean ok = FALSE;

  switch (job->c->id)
    {
    case F_BLUR: ok = lb_xv_blur_prepare (&job->st.blur, job->src, NULL, job->c->param, &error); break;
    case F_SHARPEN:
      ok = lb_xv_sharpen_prepare (&job->st.sharpen, job->src, NULL, job->c->param, &error);
      break;
    case F_EDGE: ok = lb_xv_edge_prepare (&job->st.edge, job->src, NULL, FALSE, &error); break;
    case F_EMBOSS: ok = lb_xv_emboss_prepare (&job->st.emboss, job->src, NULL, &error); break;
    case F_OIL: ok = lb_xv_oil_prepare (&job->st.oil, job->src, NULL, job->c->param, &error); break;
    case F_BLEND: ok = lb_xv_blend_prepare (&job->st.blend, job->src, NULL, &error); break;
    case F_DESPECKLE:
      ok = lb_xv_despeckle_prepare (&job->st.despeckle, job->src, NULL, job->c->param, &error);
      break;
    default: g_assert_not_reached ();
    }
  if (!ok)
    g_error ("%s: %s", job->c->name, error->message);
}

static void
process (Job *job, int y0, int y1)
{
  const gboolean f = job->fast;

  switch (job->c->id)
    {
    case F_BLUR:
      (f ? lb_xv_blur_process : lb_xv_blur_process_ref) (&job->st.blur, job->src, job->dst, y0, y1);
      break;
    case F_SHARPEN:
      (f ? lb_xv_sharpen_process : lb_xv_sharpen_process_ref) (&job->st.sharpen, job->src,
                                                               job->dst, y0, y1);
      break;
    case F_EDGE:
      (f ? lb_xv_edge_process : lb_xv_edge_process_ref) (&job->st.edge, job->src, job->dst, y0, y1);
      break;
    case F_EMBOSS:
      (f ? lb_xv_emboss_process : lb_xv_emboss_process_ref) (&job->st.emboss, job->src,
                                                             job->dst, y0, y1);
      break;
    case F_OIL:
      (f ? lb_xv_oil_process : lb_xv_oil_process_ref) (&job->st.oil, job->src, job->dst, y0, y1);
      break;
    case F_BLEND:
      (f ? lb_xv_blend_process : lb_xv_blend_process_ref) (&job->st.blend, job->src, job->dst,
                                                           y0, y1);
      break;
    case F_DESPECKLE:
      (f ? lb_xv_despeckle_process : lb_xv_despeckle_process_ref) (&job->st.despeckle, job->src,
                                                                   job->dst, y0, y1);
      break;
    default: g_assert_not_reached ();
    }
}

typedef struct {
  Job *job;
  int y0, y1;
  guint maxv;
  int phase; /* 0 process + reduce, 1 finish */
} Band;

static gpointer
band_thread (gpointer data)
{
  Band *b = data;

  if (b->phase == 0)
    {
      process (b->job, b->y0, b->y1);
      if (b->job->c->id == F_EDGE)
        b->maxv = lb_xv_edge_reduce (&b->job->st.edge, b->job->dst, b->y0, b->y1);
    }
  else
    {
      (b->job->fast ? lb_xv_edge_finish : lb_xv_edge_finish_ref) (&b->job->st.edge, b->job->dst,
                                                                  b->maxv, b->y0, b->y1);
    }
  return NULL;
}

/* One complete pass (prepare included, as a pipeline would run it) on @threads row bands. */
static void
run_pass (Job *job, int threads)
{
  Band bands[8];
  GThread *th[8];
  guint maxv = 0;
  const int h = job->src->height;

  prepare (job);
  for (int phase = 0; phase < (job->c->id == F_EDGE ? 2 : 1); phase++)
    {
      for (int t = 0; t < threads; t++)
        {
          bands[t] = (Band) { job, h * t / threads, h * (t + 1) / threads, maxv, phase };
          th[t] = threads > 1 ? g_thread_new ("band", band_thread, &bands[t]) : NULL;
          if (threads == 1)
            band_thread (&bands[t]);
        }
      for (int t = 0; t < threads; t++)
        {
          if (th[t])
            g_thread_join (th[t]);
          maxv = MAX (maxv, bands[t].maxv);
        }
    }
}

static int
cmp_double (const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* Milliseconds of CPU time of the calling thread: on a machine shared with other jobs the
 * one-thread figures then do not count time spent waiting for a core. */
static double
thread_cpu_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

/* Median ms of a pass: one warm-up, then at least 5 runs and until 0.4 s are spent (at most
 * 41 runs), so cheap kernels get enough samples for a stable median. One thread: CPU time of
 * the thread; two threads: wall time (monotonic clock). */
static double
time_pass (Job *job, int threads, gboolean quick, double *min)
{
  double t[41];
  int n = 0;
  double spent = 0;

  run_pass (job, threads);
  while (n < (quick ? 1 : 5) || (!quick && spent < 0.4 && n < 41))
    {
      const gint64 a = g_get_monotonic_time ();
      const double c = thread_cpu_ms ();

      run_pass (job, threads);
      t[n] = threads == 1 ? thread_cpu_ms () - c : (g_get_monotonic_time () - a) / 1000.0;
      spent += t[n] / 1000.0;
      n++;
    }
  qsort (t, n, sizeof *t, cmp_double);
  if (min != NULL)
    *min = t[0];
  return t[n / 2];
}

/* The synthetic test card (as the golden inputs): RGB gradients, a flat box and a flat disc,
 * a 3-px checkerboard strip, a noise band and salt-and-pepper specks; xorshift32. */
static void
make_image (LbKernelBuf *buf, int w, int h, int channels, int depth)
{
  guint32 s = 12345;

  *buf = (LbKernelBuf) { 0 };
  buf->width = w, buf->height = h, buf->channels = channels, buf->depth = depth;
  buf->stride = (gsize) w * channels * (depth / 8);
  buf->data = g_malloc (buf->stride * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        int rgb[3] = { x * 255 / w, y * 255 / h, (x + y) * 255 / (w + h) };

        if (x > w / 8 && x < w / 3 && y > h / 6 && y < h / 2)
          rgb[0] = 220, rgb[1] = 30, rgb[2] = 30;
        if ((x - w / 2) * (x - w / 2) + (y - h / 2) * (y - h / 2) < (h / 5) * (h / 5))
          rgb[0] = 20, rgb[1] = 40, rgb[2] = 200;
        if (x > 3 * w / 4)
          rgb[0] = rgb[1] = rgb[2] = ((x / 3 + y / 3) % 2) * 255;
        for (int c = 0; c < 3; c++)
          {
            s ^= s << 13, s ^= s >> 17, s ^= s << 5;
            if (x < w / 2 && y > 2 * h / 3)
              rgb[c] = CLAMP (rgb[c] + (int) (s % 61) - 30, 0, 255);
            if (s % 200 == 0)
              rgb[c] = (s >> 8) % 2 ? 255 : 0;
          }
        for (int c = 0; c < channels; c++)
          {
            const int v = channels == 1 ? (11 * rgb[0] + 16 * rgb[1] + 5 * rgb[2]) >> 5 : rgb[c];
            const gsize i = (gsize) y * buf->stride / (depth / 8) + (gsize) x * channels + c;

            if (depth == 8)
              buf->data[i] = (guint8) v;
            else
              ((guint16 *) (void *) buf->data)[i] = (guint16) (v * 257 + (x * 7 + y) % 257);
          }
      }
}

int
main (int argc, char **argv)
{
  const gboolean quick = argc > 1 && g_str_equal (argv[1], "--quick");
  const char *only = argc > (quick ? 2 : 1) ? argv[quick ? 2 : 1] : NULL;
  LbKernelBuf rgb, rgb_dst, g16, g16_dst;
  double r1[3] = { 0 }, r15[3] = { 0 }; /* blur, oil, despeckle at radius 1 and 15 */
  double oil_r2 = 0, despeckle_r3 = 0;     /* the general paths at a small radius */
  /* despeckle: GRAY16 at radius 1 (network), 9, 15, 25 (Huang); RGB8 at radius 25 */
  double g16_r1 = 0, g16_r9 = 0, g16_r15 = 0, g16_r25 = 0, r25 = 0;

  make_image (&rgb, 1400, 1000, 3, 8);
  rgb_dst = rgb, rgb_dst.data = g_memdup2 (rgb.data, rgb.stride * rgb.height);
  make_image (&g16, 1400, 1000, 1, 16);
  g16_dst = g16, g16_dst.data = g_memdup2 (g16.data, g16.stride * g16.height);

  g_print ("xv kernels A, 1400x1000 (1.4 Mpx); ms = median of a complete pass (prepare + all "
           "rows);\n1t = CPU time of one thread, 2t = wall time with two row bands\n");
  g_print ("%-16s %9s %9s %7s %7s %9s %8s %8s | %9s %9s\n", "filter", "ref 1t", "opt 1t",
           "(min)", "ref/opt", "opt 2t", "xv -O2", "xv/opt2t", "g16 ref", "g16 opt");
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const Case *c = &cases[i];
      Job job = { c, &rgb, &rgb_dst, FALSE };
      Job job16 = { c, &g16, &g16_dst, FALSE };
      double ref = 0, opt, opt_min, opt2, ref16 = 0, opt16;

      if (only != NULL && strstr (c->name, only) == NULL)
        continue;
      if (c->ref)
        ref = time_pass (&job, 1, quick, NULL);
      job.fast = TRUE;
      opt = time_pass (&job, 1, quick, &opt_min);
      opt2 = time_pass (&job, 2, quick, NULL);
      if (c->ref && c->id != F_OIL)
        ref16 = time_pass (&job16, 1, quick, NULL);
      job16.fast = TRUE;
      opt16 = time_pass (&job16, 1, quick, NULL);

      g_print ("%-16s ", c->name);
      if (c->ref)
        g_print ("%9.2f %9.2f %7.2f %7.1f ", ref, opt, opt_min, ref / opt);
      else
        g_print ("%9s %9.2f %7.2f %7s ", "-", opt, opt_min, "-");
      g_print ("%9.2f ", opt2);
      if (c->xv_ms > 0)
        g_print ("%8.1f %8.1f | ", c->xv_ms, c->xv_ms / opt2);
      else
        g_print ("%8s %8s | ", "-", "-");
      if (ref16 > 0)
        g_print ("%9.2f %9.2f\n", ref16, opt16);
      else
        g_print ("%9s %9.2f\n", "-", opt16);

      if (c->id == F_BLUR && c->param == 3)
        r1[0] = opt;
      if (c->id == F_BLUR && c->param == 31)
        r15[0] = opt;
      if (c->id == F_OIL && c->param == 3)
        r1[1] = opt;
      if (c->id == F_OIL && c->param == 31)
        r15[1] = opt;
      if (c->id == F_DESPECKLE && c->param == 3)
        r1[2] = opt;
      if (c->id == F_DESPECKLE && c->param == 31)
        r15[2] = opt;
      if (c->id == F_OIL && c->param == 5)
        oil_r2 = opt;
      if (c->id == F_DESPECKLE && c->param == 7)
        despeckle_r3 = opt;
      if (c->id == F_DESPECKLE && c->param == 3)
        g16_r1 = opt16;
      if (c->id == F_DESPECKLE && c->param == 19)
        g16_r9 = opt16;
      if (c->id == F_DESPECKLE && c->param == 31)
        g16_r15 = opt16;
      if (c->id == F_DESPECKLE && c->param == 51)
        g16_r25 = opt16, r25 = opt;
    }
  g_print ("radius 15 / radius 1 (optimised, 1 thread, RGB8): blur %.2f, oil (corrected) %.2f, "
           "despeckle %.2f\n", r15[0] / r1[0], r15[1] / r1[1], r15[2] / r1[2]);
  g_print ("general paths (radius 1 uses a network): oil radius 15 / radius 2 (hash) %.2f, "
           "despeckle radius 15 / radius 3 (histogram) %.2f\n", r15[1] / oil_r2,
           r15[2] / despeckle_r3);
  g_print ("despeckle GRAY16 (1 thread): radius 15 / radius 1 (network) %.2f, radius 15 / radius "
           "9 %.2f, radius 25 / radius 15 %.2f; RGB8 radius 25 / radius 15 %.2f\n",
           g16_r15 / g16_r1, g16_r15 / g16_r9, g16_r25 / g16_r15, r25 / r15[2]);

  /* Oil on GRAY8, where windows above 4×4 take the constant-time histogram path (radius 1
   * stays on the all-pairs network): optimised, 1 thread, and radius 15 over radius 1 and 2. */
  if (only == NULL || strstr ("oil gray8", only) != NULL)
    {
      static const Case g8[] = { { "oil 3 gray8", F_OIL, 3, 0, FALSE },
                                 { "oil 5 gray8", F_OIL, 5, 0, FALSE },
                                 { "oil 9 gray8", F_OIL, 9, 0, FALSE },
                                 { "oil 15 gray8", F_OIL, 15, 0, FALSE },
                                 { "oil 21 gray8", F_OIL, 21, 0, FALSE },
                                 { "oil 31 gray8", F_OIL, 31, 0, FALSE } };
      LbKernelBuf gray8, gray8_dst;
      double ms[G_N_ELEMENTS (g8)];

      make_image (&gray8, 1400, 1000, 1, 8);
      gray8_dst = gray8, gray8_dst.data = g_memdup2 (gray8.data, gray8.stride * gray8.height);
      for (gsize i = 0; i < G_N_ELEMENTS (g8); i++)
        {
          Job job = { &g8[i], &gray8, &gray8_dst, TRUE };

          ms[i] = time_pass (&job, 1, quick, NULL);
          g_print ("%-16s %9s %9.2f (optimised, 1 thread)\n", g8[i].name, "-", ms[i]);
        }
      g_print ("oil GRAY8 radius 15 / radius 1: %.2f, radius 15 / radius 2: %.2f\n", ms[5] / ms[0],
               ms[5] / ms[1]);
      g_free (gray8.data), g_free (gray8_dst.data);
    }

  g_free (rgb.data), g_free (rgb_dst.data), g_free (g16.data), g_free (g16_dst.data);
  return 0;
}
