/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-bench-filters"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lb-bench-filters-private.h"

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

/* The memory-floor table at @mpx: 8-bit RGB and 16-bit gray (the main table's all-thread
 * passes, measured again only where it has none), 8-bit RGBA (the long-term aim
 * names a 3×3 pass over RGBA), 8-bit gray, then the other four formats every filter takes
 * (gray+alpha at 8 and 16 bits, RGB and RGBA at 16), each filter against the floor of its own
 * format and thread count: a format far below the others' GB/s has a slow path. */
void
lb_bench_floor_rows (Ctx *ctx, LbMeasureTable *table, const LbBenchFilterSpec *const *sel,
                     guint n_sel, double mpx, GHashTable *results)
{
  static const LbSampleFormat formats[] = { LB_FORMAT_RGB8, LB_FORMAT_GRAY16, LB_FORMAT_RGBA8,
                                             LB_FORMAT_GRAY8, LB_FORMAT_GRAYA8, LB_FORMAT_GRAYA16,
                                             LB_FORMAT_RGB16, LB_FORMAT_RGBA16 };
  g_autoptr (GError) error = NULL;
  guint w, h;

  lb_bench_size_dims (mpx, &w, &h);
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
          double ms = lb_bench_recall (results, spec->label, fmt, mpx, ctx->threads_all);
          LbMeasureStats st;
          PassPath path;

          if (isnan (ms))
            {
              if (!lb_bench_measure_cell (ctx, spec, image, ctx->threads_all, FALSE, &st, &path, &error))
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
