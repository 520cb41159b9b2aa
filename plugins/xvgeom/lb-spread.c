/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-spread"

/* xv's Spread: prepare, the bands, and the dispatcher (the banded path where its scratch is
 * small, else the swaps in place). The paths: lb-spread-ref.c (the reference),
 * lb-spread-inplace.c (xv's swaps in place), lb-spread-band.c and lb-spread-draws.c (the
 * banded path); lb-spread-private.h holds the state they share. */

#include "lb-spread-private.h"

static void set_bands (LbSpread *st, int band_rows);

/* Scratch of all bands together may take this much, or 90 % of the image if that is more;
 * beyond it (distances of hundreds of rows on wide images) xv's swaps run in place. */
#define SPREAD_SCRATCH_BYTES ((guint64) 32 << 20)

/* Scratch bytes of a pass with bands of @band_rows rows: every band's window, chunk of
 * partners, seam and top rows (an upper bound: at most a band per thread holds a window at a
 * time). */
static guint64
scratch_bytes (const LbSpread *st,
               int             band_rows)
{
  guint64 n_bands = ((guint64) st->r.height + band_rows - 1) / band_rows;
  guint64 cells_rows = MIN ((guint64) st->r.height, (guint64) band_rows + 2 * (guint64) st->reach);
  guint64 rows = (guint64) ring_rows (st, (int) cells_rows) + (guint64) LANES * st->lane_rows
                 + MIN ((guint64) st->r.height, 5 * (guint64) st->reach);

  return n_bands * rows * (guint64) st->r.width * sizeof (guint32);
}

/* Whether the banded form may run: positions must fit in 31 bits (the top bit marks tokens),
 * and the scratch must stay small (SPREAD_SCRATCH_BYTES, or 90 % of the image), so that a pass
 * peaks below 3× the image. */
static gboolean
banded_fits (const LbSpread    *st,
             const LbKernelBuf *src,
             int                band_rows)
{
  const guint64 px = (guint64) st->r.width * (guint64) st->r.height;
  const guint64 image = (guint64) src->stride * (guint64) src->height;
  const guint64 scratch = scratch_bytes (st, band_rows);

  return px <= G_MAXINT32 && (scratch <= SPREAD_SCRATCH_BYTES || scratch * 10 <= image * 9);
}

/* g_get_num_processors () reads sysfs (about 20 µs a call here, on the pass's critical path):
 * asked once per process */
static int
n_processors (void)
{
  static gsize n;

  if (g_once_init_enter (&n))
    g_once_init_leave (&n, (gsize) CLAMP (g_get_num_processors (), 1, 64));
  return (int) n;
}

LbSpread *
lb_spread_prepare (const LbKernelBuf    *src,
                   const LbKernelRect   *region,
                   const LbSpreadParams *params,
                   GError              **error)
{
  g_autofree LbSpread *st = g_new0 (LbSpread, 1);

  if (!lb_kernel_check_and_clip (src, region, &st->r, error))
    return NULL;
  if (params->width < 0 || (params->rectangle && params->height < 0))
    {
      g_set_error (error, LB_KERNEL_ERROR, LB_KERNEL_ERROR_INVALID_ARGUMENT,
                   "Spread distances must not be negative (got %d×%d)", params->width,
                   params->height);
      return NULL;
    }
  g_mutex_init (&st->lock);
  st->rectangle = params->rectangle;
  /* Distances beyond the region are clipped away anyway; limiting them keeps x ± d inside
   * int. Rectangle: ±sw, ±sh cover the region. Diamond: with d ≥ sw + sh the x draw spans
   * the region and the remaining y radius d − |x1 − x| ≥ sh spans it too, as with any larger
   * d. The random draws are unchanged. */
  if (params->rectangle)
    {
      st->px = MIN (params->width, st->r.width);
      st->py = MIN (params->height, st->r.height);
    }
  else
    {
      st->px = (int) MIN ((gint64) params->width, (gint64) st->r.width + st->r.height);
      st->py = 0;
    }
  st->seed = params->seed;
  st->simd = TRUE;
  /* xv: "0" or "0x0" does nothing (and draws no random numbers) */
  st->active = (params->width != 0 || (params->rectangle && params->height != 0))
                && st->r.width > 0 && st->r.height > 0;
  if (st->active)
    {
      /* a window clipped to the region spans at most its size */
      gint64 span = MAX (st->r.width, st->r.height);
      int n_proc = n_processors ();
      int h = st->r.height, min_rows, band_rows;

      span = MIN (span, 2 * (gint64) MAX (st->px, st->py) + 1);
      st->mmax = (int) span;
      st->magic = g_new (guint32, st->mmax + 1);
      st->shift = g_new (guint32, st->mmax + 1);
      st->magic[0] = st->shift[0] = 0;
      for (int m = 1; m <= st->mmax; m++)
        lb_xv_random_mod_magic ((guint32) m, &st->magic[m], &st->shift[m]);
      st->xlo = g_new (gint32, st->r.width);
      st->xm = g_new (guint32, st->r.width);
      for (int x = 0; x < st->r.width; x++)
        {
          int lo = MAX (0, x - st->px), hi = MIN (st->r.width - 1, x + st->px);

          st->xlo[x] = lo;
          st->xm[x] = (guint32) (hi - lo + 1);
        }
      st->reach = st->rectangle ? st->py : st->px;
      st->wdiv = G_MAXUINT64 / (guint64) st->r.width + 1;
      /* A lane of a chunk is a row, or several on narrow regions: each chunk ends with a jump
       * of the generator's lanes (31 × 31 multiply-adds per lane), which a row of 256 pixels
       * or more makes small beside the chunk's draws. */
      st->lane_rows = (int) CLAMP (256 / st->r.width, 1, 256);
      /* a band per processor (bands run in parallel), 2 at least, unless a band would be
       * shorter than 4 reaches (its seams would be most of it) */
      min_rows = MIN (MAX (4 * st->reach, 16), (h + 1) / 2);
      band_rows = MAX ((h + n_proc - 1) / n_proc, MAX (min_rows, 1));
      st->banded = banded_fits (st, src, band_rows);
      set_bands (st, band_rows);
    }
  return g_steal_pointer (&st);
}

static void
free_bands (LbSpread *st)
{
  for (int b = 0; st->bands != NULL && b < st->n_bands; b++)
    {
      g_clear_pointer (&st->bands[b].seam, g_free);
      g_clear_pointer (&st->bands[b].top, g_free);
      g_clear_pointer (&st->bands[b].deferred, g_array_unref);
    }
  g_clear_pointer (&st->bands, g_free);
}

/* Bands of @band_rows rows (the last may be shorter). */
static void
set_bands (LbSpread *st,
           int       band_rows)
{
  free_bands (st);
  st->band_rows = MAX (1, MIN (band_rows, st->r.height));
  st->n_bands = (st->r.height + st->band_rows - 1) / st->band_rows;
  /* the swaps in place (banded_fits) run as one band */
  if (!st->banded)
    {
      st->band_rows = st->r.height;
      st->n_bands = 1;
    }
  st->bands = g_new0 (BandOut, st->n_bands);
  st->n_done = st->n_claimed = 0;
}

void
lb_spread_set_band_rows (LbSpread *st,
                         int       band_rows)
{
  if (st->active)
    set_bands (st, band_rows);
}

void
lb_spread_set_simd (LbSpread *st,
                    gboolean  enable)
{
  st->simd = enable;
}

int
lb_spread_get_n_bands (const LbSpread *st)
{
  return st->active ? st->n_bands : 0;
}

void
lb_spread_free (LbSpread *st)
{
  if (st == NULL)
    return;
  free_bands (st);
  g_free (st->magic);
  g_free (st->shift);
  g_free (st->xlo);
  g_free (st->xm);
  g_mutex_clear (&st->lock);
  g_free (st);
}

/* The region's rows [y0, y1) of @src into @dst, every sample: what a spread that moves nothing
 * writes, and where the swaps in place start from. */
static void
copy_region_rows (const LbSpread    *st,
                  const LbKernelBuf *src,
                  LbKernelBuf       *dst,
                  int                y0,
                  int                y1)
{
  gsize pb = (gsize) src->channels * (src->depth / 8);

  if (src->data == dst->data)
    return;
  y0 = MAX (y0, st->r.y);
  y1 = MIN (y1, st->r.y + st->r.height);
  for (int y = y0; y < y1; y++)
    memcpy (lb_kbuf_row (dst, y) + (gsize) st->r.x * pb,
            lb_kbuf_row (src, y) + (gsize) st->r.x * pb, (gsize) st->r.width * pb);
}

void
lb_spread_process (const LbSpread    *st,
                   const LbKernelBuf *src,
                   LbKernelBuf       *dst,
                   int                y0,
                   int                y1)
{
  gsize cb = (gsize) lb_kbuf_color_channels (dst) * (dst->depth / 8);

  g_return_if_fail (y0 <= 0 && y1 >= dst->height);
  if (!st->active)
    {
      copy_region_rows (st, src, dst, y0, y1);
      return;
    }
  /* the banded form on one thread costs less than the swaps in place (its draws vectorise
   * across lanes, its swaps stay in cache), where it fits (banded_fits) */
  if (st->banded)
    {
      for (int b = 0; b < st->n_bands; b++)
        lb_spread_process_band (st, src, dst, b);
    }
  else
    {
      copy_region_rows (st, src, dst, y0, y1);
      _lb_spread_in_place (st, dst, cb);
    }
}
