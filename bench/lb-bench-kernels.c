/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-bench-kernels"

#include <string.h>

#include "lb-bench-kernels.h"
#include "lb-enhance.h"
#include "lb-xv-kernels-a.h"
#include "lb-xvgeom.h"

/* xv times: ../shared/reference/xv-filters.md Appendix A, 1.4 Mpx
 * (1400×1000) 8-bit RGB, gcc -O2, one thread, ms. */
static const LbBenchFilterSpec specs[] = {
  { "blur 3", "blur", "blur:size=3", LB_BENCH_K_BLUR, { 3 }, 18.3 },
  { "blur 7", "blur", "blur:size=7", LB_BENCH_K_BLUR, { 7 }, 57.6 },
  { "sharpen 75", "sharpen", "sharpen:strength=75", LB_BENCH_K_SHARPEN, { 75 }, 51.6 },
  { "edge", "edge", "edge", LB_BENCH_K_EDGE, { 0 }, 19.6 },
  { "emboss", "emboss", "emboss", LB_BENCH_K_EMBOSS, { 0 }, 13.1 },
  { "oil", "oil", "oil", LB_BENCH_K_OIL, { 0 }, 177.6 },
  { "blend", "blend", "blend", LB_BENCH_K_BLEND, { 0 }, 16.7 },
  { "rotate 30", "rotate", "rotate:angle=30", LB_BENCH_K_ROTATE, { 30 }, 89.2 },
  { "rotate-clear 30", "rotate-clear", "rotate-clear:angle=30", LB_BENCH_K_ROTATE_CLEAR, { 30 }, 88.7 },
  { "pixelize 4", "pixelize", "pixelize:width=4,height=4", LB_BENCH_K_PIXELIZE, { 4, 4 }, 6.8 },
  { "spread 5", "spread", "spread:distance=5", LB_BENCH_K_SPREAD, { 5 }, 25.2 },
  { "despeckle 3", "despeckle", "despeckle:size=3", LB_BENCH_K_DESPECKLE, { 3 }, 99.2 },
  { "despeckle 5", "despeckle", "despeckle:size=5", LB_BENCH_K_DESPECKLE, { 5 }, 485.2 },
  { "unsharp 2,1,0", "unsharp", "unsharp:radius=2,amount=1,threshold=0", LB_BENCH_K_UNSHARP, { 2, 1, 0 }, 0 },
  { "gaussian 2", "gaussian", "gaussian:sigma=2", LB_BENCH_K_GAUSSIAN, { 2 }, 0 },
  { "median 1", "median", "median:radius=1", LB_BENCH_K_MEDIAN, { 1 }, 0 },
};

const LbBenchFilterSpec *
lb_bench_filter_specs (guint *n_specs)
{
  *n_specs = G_N_ELEMENTS (specs);
  return specs;
}

LbBenchFilterSpec
lb_bench_filter_spec_with (const LbBenchFilterSpec *base, const char *label, const char *step,
                           double p0)
{
  LbBenchFilterSpec s = *base;

  s.label = label;
  s.step = step;
  s.p[0] = p0;
  s.xv_ms = 0;
  return s;
}

/* One prepared pass: the kernel state plus what the band loop needs to know. */
typedef struct {
  const LbBenchFilterSpec *spec;
  gboolean reference;
  const LbKernelBuf *src;
  LbKernelBuf *dst;
  int y0;                 /* rows the kernel may write */
  int y1;
  gboolean sequential;    /* one call over all rows (spread) */
  LbXvKernelState xv;
  gpointer geom;          /* LbRotate, LbPixelize, LbSpread, LbGaussian, LbUnsharp, LbMedian */
  guint edge_max;
  /* band scheduling */
  int band_rows;
  gint next_band;         /* atomic */
  int phase;              /* 0 process, 1 edge reduce, 2 edge finish */
} Pass;

static gboolean
pass_prepare (Pass *p, GError **error)
{
  const LbBenchFilterSpec *s = p->spec;

  p->y0 = 0;
  p->y1 = p->src->height;
  switch (s->kind)
    {
    case LB_BENCH_K_BLUR:
      return lb_xv_blur_prepare (&p->xv.blur, p->src, NULL, (int) s->p[0], error);
    case LB_BENCH_K_SHARPEN:
      return lb_xv_sharpen_prepare (&p->xv.sharpen, p->src, NULL, (int) s->p[0], error);
    case LB_BENCH_K_EDGE:
      return lb_xv_edge_prepare (&p->xv.edge, p->src, NULL, FALSE, error);
    case LB_BENCH_K_EMBOSS:
      return lb_xv_emboss_prepare (&p->xv.emboss, p->src, NULL, error);
    case LB_BENCH_K_OIL:
      return lb_xv_oil_prepare (&p->xv.oil, p->src, NULL, (int) s->p[0], error);
    case LB_BENCH_K_BLEND:
      return lb_xv_blend_prepare (&p->xv.blend, p->src, NULL, error);
    case LB_BENCH_K_DESPECKLE:
      return lb_xv_despeckle_prepare (&p->xv.despeckle, p->src, NULL, (int) s->p[0], error);
    case LB_BENCH_K_ROTATE:
    case LB_BENCH_K_ROTATE_CLEAR:
      {
        LbRotateParams rp = { s->p[0], s->kind == LB_BENCH_K_ROTATE_CLEAR, { 0, 0, 0 },
                              p->reference };
        p->geom = lb_rotate_prepare (p->src, NULL, &rp, error);
        if (p->geom != NULL)
          lb_rotate_get_dest_rows (p->geom, &p->y0, &p->y1);
        return p->geom != NULL;
      }
    case LB_BENCH_K_PIXELIZE:
      {
        LbPixelizeParams pp = { (int) s->p[0], (int) s->p[1], FALSE };
        p->geom = lb_pixelize_prepare (p->src, NULL, &pp, error);
        return p->geom != NULL;
      }
    case LB_BENCH_K_SPREAD:
      {
        LbSpreadParams sp = { FALSE, (int) s->p[0], 0, 1 };
        p->sequential = TRUE;
        p->geom = lb_spread_prepare (p->src, NULL, &sp, error);
        return p->geom != NULL;
      }
    case LB_BENCH_K_GAUSSIAN:
      {
        LbGaussianParams gp = { s->p[0] };
        p->geom = lb_gaussian_prepare (p->src, NULL, &gp, error);
        return p->geom != NULL;
      }
    case LB_BENCH_K_UNSHARP:
      {
        LbUnsharpParams up = { s->p[0], s->p[1], s->p[2] };
        p->geom = lb_unsharp_prepare (p->src, NULL, &up, error);
        return p->geom != NULL;
      }
    case LB_BENCH_K_MEDIAN:
      {
        LbMedianParams mp = { (int) s->p[0] };
        p->geom = lb_median_prepare (p->src, NULL, &mp, error);
        return p->geom != NULL;
      }
    default:
      g_assert_not_reached ();
    }
  return FALSE;
}

static void
pass_release (Pass *p)
{
  switch (p->spec->kind)
    {
    case LB_BENCH_K_ROTATE:
    case LB_BENCH_K_ROTATE_CLEAR:
      g_clear_pointer ((LbRotate **) &p->geom, lb_rotate_free);
      break;
    case LB_BENCH_K_PIXELIZE:
      g_clear_pointer ((LbPixelize **) &p->geom, lb_pixelize_free);
      break;
    case LB_BENCH_K_SPREAD:
      g_clear_pointer ((LbSpread **) &p->geom, lb_spread_free);
      break;
    case LB_BENCH_K_GAUSSIAN:
      g_clear_pointer ((LbGaussian **) &p->geom, lb_gaussian_free);
      break;
    case LB_BENCH_K_UNSHARP:
      g_clear_pointer ((LbUnsharp **) &p->geom, lb_unsharp_free);
      break;
    case LB_BENCH_K_MEDIAN:
      g_clear_pointer ((LbMedian **) &p->geom, lb_median_free);
      break;
    case LB_BENCH_K_BLUR:
    case LB_BENCH_K_SHARPEN:
    case LB_BENCH_K_EDGE:
    case LB_BENCH_K_EMBOSS:
    case LB_BENCH_K_OIL:
    case LB_BENCH_K_BLEND:
    case LB_BENCH_K_DESPECKLE:
    default:
      break;
    }
}

/* Writes destination rows [y0, y1) with the selected path. */
static void
pass_process (Pass *p, int y0, int y1)
{
  const LbKernelBuf *src = p->src;
  LbKernelBuf *dst = p->dst;
  gboolean ref = p->reference;

#define XV(name, field) \
  (ref ? lb_xv_##name##_process_ref : lb_xv_##name##_process) (&p->xv.field, src, dst, y0, y1)
#define GEOM(name, type) \
  (ref ? lb_##name##_process_reference : lb_##name##_process) ((const type *) p->geom, src, dst, y0, y1)
  switch (p->spec->kind)
    {
    case LB_BENCH_K_BLUR: XV (blur, blur); break;
    case LB_BENCH_K_SHARPEN: XV (sharpen, sharpen); break;
    case LB_BENCH_K_EDGE: XV (edge, edge); break;
    case LB_BENCH_K_EMBOSS: XV (emboss, emboss); break;
    case LB_BENCH_K_OIL: XV (oil, oil); break;
    case LB_BENCH_K_BLEND: XV (blend, blend); break;
    case LB_BENCH_K_DESPECKLE: XV (despeckle, despeckle); break;
    case LB_BENCH_K_ROTATE:
    case LB_BENCH_K_ROTATE_CLEAR: GEOM (rotate, LbRotate); break;
    case LB_BENCH_K_PIXELIZE: GEOM (pixelize, LbPixelize); break;
    case LB_BENCH_K_SPREAD: GEOM (spread, LbSpread); break;
    case LB_BENCH_K_GAUSSIAN: GEOM (gaussian, LbGaussian); break;
    case LB_BENCH_K_UNSHARP: GEOM (unsharp, LbUnsharp); break;
    case LB_BENCH_K_MEDIAN: GEOM (median, LbMedian); break;
    default: g_assert_not_reached ();
    }
#undef XV
#undef GEOM
}

/* Runs the current phase over the bands, taking them from a shared counter so threads
 * that finish early take more. */
static gpointer
band_worker (gpointer data)
{
  Pass *p = data;
  int n_rows = p->y1 - p->y0;
  int n_bands = (n_rows + p->band_rows - 1) / p->band_rows;
  guint local_max = 0;

  for (;;)
    {
      int b = g_atomic_int_add (&p->next_band, 1);
      int y0, y1;

      if (b >= n_bands)
        break;
      y0 = p->y0 + b * p->band_rows;
      y1 = MIN (y0 + p->band_rows, p->y1);
      switch (p->phase)
        {
        case 0:
          pass_process (p, y0, y1);
          break;
        case 1:
          local_max = MAX (local_max, lb_xv_edge_reduce (&p->xv.edge, p->dst, y0, y1));
          break;
        default:
          (p->reference ? lb_xv_edge_finish_ref : lb_xv_edge_finish) (&p->xv.edge, p->dst,
                                                                      p->edge_max, y0, y1);
          break;
        }
    }
  return GUINT_TO_POINTER (local_max);
}

static guint
run_phase (Pass *p, guint n_threads)
{
  GThread *threads[256];
  guint n_extra = MIN (n_threads, G_N_ELEMENTS (threads)) - 1;
  guint max = 0;

  p->next_band = 0;
  for (guint i = 0; i < n_extra; i++)
    threads[i] = g_thread_new ("lb-bench-band", band_worker, p);
  max = GPOINTER_TO_UINT (band_worker (p));
  for (guint i = 0; i < n_extra; i++)
    max = MAX (max, GPOINTER_TO_UINT (g_thread_join (threads[i])));
  return max;
}

gboolean
lb_bench_kernel_run (const LbBenchFilterSpec *spec, const LbKernelBuf *src, LbKernelBuf *dst,
                     gboolean reference, guint n_threads, GError **error)
{
  Pass p = { 0 };
  gsize row_bytes = (gsize) src->width * src->channels * (src->depth / 8);

  g_return_val_if_fail (dst->width == src->width && dst->height == src->height
                        && dst->channels == src->channels && dst->depth == src->depth, FALSE);
  /* The destination starts as a copy of the source (the kernel contract, and xv's). */
  if (dst->stride == src->stride)
    memcpy (dst->data, src->data, src->stride * (gsize) src->height);
  else
    for (int y = 0; y < src->height; y++)
      memcpy (dst->data + y * dst->stride, src->data + y * src->stride, row_bytes);

  p.spec = spec;
  p.reference = reference;
  p.src = src;
  p.dst = dst;
  if (!pass_prepare (&p, error))
    {
      pass_release (&p);
      return FALSE;
    }
  n_threads = MAX (n_threads, 1);
  if (p.sequential || p.y1 <= p.y0)
    {
      if (p.y1 > p.y0)
        pass_process (&p, p.y0, p.y1);
      pass_release (&p);
      return TRUE;
    }
  /* About four bands per thread, as the engine's pipeline cuts them; one band when single
   * threaded, so the reference path runs its plain loops once over the image. */
  p.band_rows = n_threads == 1 ? p.y1 - p.y0
                               : MAX (1, (p.y1 - p.y0 + 4 * (int) n_threads - 1) / (4 * (int) n_threads));
  p.phase = 0;
  run_phase (&p, n_threads);
  if (spec->kind == LB_BENCH_K_EDGE)
    {
      p.phase = 1;
      p.edge_max = run_phase (&p, n_threads);
      p.phase = 2;
      run_phase (&p, n_threads);
    }
  pass_release (&p);
  return TRUE;
}
