/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-spread"

#include "lb-xvgeom.h"

#include <stdlib.h>
#include <string.h>

#include "lb-error.h"
#include "lb-xvgeom-private.h"
#include "lb-xv-random.h"

struct _LbSpread {
  LbKernelRect r;
  gboolean rectangle;
  int px, py;        /* rectangle half-widths, or px = d (diamond) */
  guint32 seed;
  gboolean active;
  int mmax;          /* largest modulus a draw can use */
  guint64 *fastmod;  /* [m] = 2⁶⁴/m rounded up, for m = 1..mmax (Lemire's exact a % m) */
  /* banded path (lb_spread_process_band + lb_spread_gather) */
  int reach;         /* rows a swap reaches up or down */
  int band_rows;     /* region rows per band */
  int n_bands;
  guint64 wdiv;      /* 2⁶⁴/width rounded up: exact q / width for 32-bit q (width ≥ 2) */
  guint32 **bufs;    /* [band]: the band's cells over the rows it reaches (see below) */
};

static void set_bands (LbSpread *st, int band_rows);

LbSpread *
lb_spread_prepare (const LbKernelBuf    *src,
                   const LbKernelRect   *region,
                   const LbSpreadParams *params,
                   GError              **error)
{
  g_autofree LbSpread *st = g_new0 (LbSpread, 1);

  if (!lb_xvgeom_check_and_clip (src, region, &st->r, error))
    return NULL;
  if (params->width < 0 || (params->rectangle && params->height < 0))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "Spread distances must not be negative (got %d×%d)", params->width,
                   params->height);
      return NULL;
    }
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
  /* xv: "0" or "0x0" does nothing (and draws no random numbers) */
  st->active = (params->width != 0 || (params->rectangle && params->height != 0))
                && st->r.width > 0 && st->r.height > 0;
  if (st->active)
    {
      /* a window clipped to the region spans at most its size */
      gint64 span = MAX (st->r.width, st->r.height);

      span = MIN (span, 2 * (gint64) MAX (st->px, st->py) + 1);
      st->mmax = (int) span;
      st->fastmod = g_new (guint64, st->mmax + 1);
      st->fastmod[0] = 0;
      for (int m = 1; m <= st->mmax; m++)
        st->fastmod[m] = G_MAXUINT64 / (guint64) m + 1;
      st->reach = st->rectangle ? st->py : st->px;
      st->wdiv = G_MAXUINT64 / (guint64) st->r.width + 1;
      /* 16 bands at least 4 reaches high: bands run in parallel, and a pixel near a band
       * edge costs one more lookup in the gather */
      set_bands (st, MAX ((st->r.height + 15) / 16, MAX (4 * st->reach, 8)));
    }
  return g_steal_pointer (&st);
}

static void
free_bufs (LbSpread *st)
{
  for (int b = 0; b < st->n_bands; b++)
    g_free (st->bufs[b]);
  g_clear_pointer (&st->bufs, g_free);
}

static void
set_bands (LbSpread *st,
           int       band_rows)
{
  free_bufs (st);
  st->band_rows = MAX (1, MIN (band_rows, st->r.height));
  st->n_bands = (st->r.height + st->band_rows - 1) / st->band_rows;
  /* positions are 31-bit (the top bit marks tokens): larger regions have one band */
  if ((guint64) st->r.width * (guint64) st->r.height > G_MAXINT32)
    {
      st->band_rows = st->r.height;
      st->n_bands = 1;
    }
  st->bufs = g_new0 (guint32 *, st->n_bands);
}

void
lb_spread_set_band_rows (LbSpread *st,
                         int       band_rows)
{
  if (st->active)
    set_bands (st, band_rows);
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
  free_bufs (st);
  g_free (st->fastmod);
  g_free (st);
}

static inline void
swap_pixels (LbKernelBuf *buf,
             int          x,
             int          y,
             int          x1,
             int          y1,
             gsize        color_bytes)
{
  gsize pb = (gsize) buf->channels * (buf->depth / 8);
  guint8 *a = lb_kbuf_row (buf, y) + (gsize) x * pb;
  guint8 *b = lb_kbuf_row (buf, y1) + (gsize) x1 * pb;

  for (gsize i = 0; i < color_bytes; i++)
    {
      guint8 t = a[i];

      a[i] = b[i];
      b[i] = t;
    }
}

void
lb_spread_process_reference (const LbSpread    *st,
                             const LbKernelBuf *src,
                             LbKernelBuf       *dst,
                             int                y0,
                             int                y1)
{
  LbXvRandom rng;
  int sx = st->r.x, sy = st->r.y, ex = st->r.x + st->r.width - 1, ey = st->r.y + st->r.height - 1;
  gsize cb = (gsize) lb_kbuf_color_channels (dst) * (dst->depth / 8);

  g_return_if_fail (y0 <= 0 && y1 >= dst->height);
  if (!st->active)
    return;
  lb_xv_random_seed (&rng, st->seed);
  for (int y = sy; y <= ey; y++)
    for (int x = sx; x <= ex; x++)
      {
        int lo, hi, x1, y1p;

        if (st->rectangle)
          {
            lo = MAX (sx, x - st->px);
            hi = MIN (ex, x + st->px);
            x1 = lo + (int) (lb_xv_random_next (&rng) % (guint32) (hi - lo + 1));
            lo = MAX (sy, y - st->py);
            hi = MIN (ey, y + st->py);
            y1p = lo + (int) (lb_xv_random_next (&rng) % (guint32) (hi - lo + 1));
          }
        else
          {
            int d = st->px, rd;

            lo = MAX (sx, x - d);
            hi = MIN (ex, x + d);
            x1 = lo + (int) (lb_xv_random_next (&rng) % (guint32) (hi - lo + 1));
            rd = d - abs (x1 - x);
            lo = MAX (MAX (sy, y - d), y - rd);
            hi = MIN (MIN (ey, y + d), y + rd);
            y1p = lo + (int) (lb_xv_random_next (&rng) % (guint32) (hi - lo + 1));
          }
        swap_pixels (dst, x, y, x1, y1p, cb);
      }
}

/* a % m for any 32-bit a, by multiplication (Lemire, Kaser, Kurz 2019) */
static inline guint32
fast_mod (guint32 a,
          guint32 m,
          guint64 mconst)
{
  guint64 low = mconst * a;

  return (guint32) (((unsigned __int128) low * m) >> 64);
}

/* A draw range [lo, lo + m) with Lemire's constant for "% m". */
typedef struct {
  int lo;
  guint32 m;
  guint64 mconst;
} Range;

static inline void
range_set (Range         *rg,
           const LbSpread *st,
           int             lo,
           int             hi)
{
  rg->lo = lo;
  rg->m = (guint32) (hi - lo + 1);
  rg->mconst = st->fastmod[rg->m];
}

static inline int
range_draw (const Range *rg,
            guint32      rnd)
{
  return rg->lo + (int) fast_mod (rnd, rg->m, rg->mconst);
}

/* Fast path: the x ranges are tabulated once per image (they depend on x only) and the y
 * ranges once per row (they depend on y and, in diamond mode, on the remaining radius);
 * random numbers come 128 pixels at a time from the batched generator; "% m" is a
 * multiplication; the swap is specialised for the element size.
 *
 * It runs xv's swaps for region rows [r0, r1) on elements of @esize bytes (swapping the
 * first @cb): pixels of the destination, or the 32-bit indices of a band's permutation.
 * @base is the element of region column sx in region row @e0; rows are @rstride bytes apart.
 * @rng must stand at the first draw of row r0. */
static G_ALWAYS_INLINE inline void
spread_rows (const LbSpread  *st,
             LbXvRandomBatch *rng,
             int              r0,
             int              r1,
             guint8          *base,
             int              e0,
             gsize            rstride,
             gsize            esize,
             gsize            cb)
{
  int sx = st->r.x, sy = st->r.y, ex = st->r.x + st->r.width - 1, ey = st->r.y + st->r.height - 1;
  /* random numbers for 128 pixels at a time: small enough to stay in L1 beside the rows */
  guint32 rnd[256];
  gboolean rect = st->rectangle;
  int px = st->px, py = st->py;
  /* diamond: the y range for each remaining radius rd = 0 … px; rectangle: [0] only */
  int nyr = rect ? 1 : px + 1;
  Range *xr = g_new (Range, st->r.width);
  Range *yr = g_new (Range, nyr);

  for (int x = sx; x <= ex; x++)
    range_set (&xr[x - sx], st, MAX (sx, x - px), MIN (ex, x + px));
  for (int y = r0; y < r1; y++)
    {
      guint8 *arow = base + (gsize) (y - e0) * rstride;

      if (rect)
        range_set (&yr[0], st, MAX (sy, y - py), MIN (ey, y + py));
      else
        for (int rd = 0; rd <= px; rd++)
          range_set (&yr[rd], st, MAX (sy, y - rd), MIN (ey, y + rd));
      for (int x0 = sx; x0 <= ex; x0 += 128)
        {
          int x1end = MIN (ex, x0 + 127);
          const guint32 *rp = rnd;

          lb_xv_random_batch_fill (rng, rnd, 2 * (gsize) (x1end - x0 + 1));
          for (int x = x0; x <= x1end; x++, rp += 2, arow += esize)
            {
              int x1 = range_draw (&xr[x - sx], rp[0]);
              const Range *ry = rect ? &yr[0] : &yr[px - abs (x1 - x)];
              guint8 *a = arow;
              /* the drawn row is ≥ e0: the band's reach holds every row its swaps touch */
              guint8 *b = base + (gsize) (range_draw (ry, rp[1]) - e0) * rstride
                          + (gsize) (x1 - sx) * esize;

              /* constant sizes let the compiler turn these into register moves */
              switch (cb)
                {
                case 1: { guint8 t = a[0]; a[0] = b[0]; b[0] = t; } break;
                case 2: { guint8 t[2]; memcpy (t, a, 2); memcpy (a, b, 2); memcpy (b, t, 2); } break;
                case 3:
                  {
                    /* in registers: a stack temporary costs a store-forwarding round trip */
                    guint16 a01, b01;
                    guint8 a2 = a[2], b2 = b[2];

                    memcpy (&a01, a, 2);
                    memcpy (&b01, b, 2);
                    memcpy (a, &b01, 2);
                    a[2] = b2;
                    memcpy (b, &a01, 2);
                    b[2] = a2;
                  }
                  break;
                case 4: { guint8 t[4]; memcpy (t, a, 4); memcpy (a, b, 4); memcpy (b, t, 4); } break;
                case 6: { guint8 t[6]; memcpy (t, a, 6); memcpy (a, b, 6); memcpy (b, t, 6); } break;
                default:
                  for (gsize i = 0; i < cb; i++)
                    {
                      guint8 t = a[i];

                      a[i] = b[i];
                      b[i] = t;
                    }
                  break;
                }
            }
        }
    }
  g_free (xr);
  g_free (yr);
}

static void
spread_in_place (const LbSpread *st,
                 LbKernelBuf    *dst,
                 gsize           cb)
{
  LbXvRandomBatch *rng = g_new (LbXvRandomBatch, 1);
  gsize pb = (gsize) dst->channels * (dst->depth / 8);
  guint8 *base = lb_kbuf_row (dst, st->r.y) + (gsize) st->r.x * pb;
  int r0 = st->r.y, r1 = st->r.y + st->r.height;

  lb_xv_random_batch_seed (rng, st->seed);
  switch (cb)
    {
    case 1: spread_rows (st, rng, r0, r1, base, r0, dst->stride, pb, 1); break;
    case 3: spread_rows (st, rng, r0, r1, base, r0, dst->stride, pb, 3); break;
    default: spread_rows (st, rng, r0, r1, base, r0, dst->stride, pb, cb); break;
    }
  g_free (rng);
}

/* Band b's rows [*r0, *r1) and the rows its swaps reach, [*e0, *e1) (image rows). */
static void
band_extent (const LbSpread *st,
             int             b,
             int            *r0,
             int            *r1,
             int            *e0,
             int            *e1)
{
  *r0 = st->r.y + b * st->band_rows;
  *r1 = MIN (*r0 + st->band_rows, st->r.y + st->r.height);
  *e0 = MAX (st->r.y, *r0 - st->reach);
  *e1 = MIN (st->r.y + st->r.height, *r1 + st->reach);
}

/* Banded path. The swaps depend on the random stream only, never on pixel values, so band b's
 * swaps alone define a permutation P_b of the positions its rows reach: run on an array of
 * region positions starting from the identity, P_b[p] names the position whose content those
 * swaps bring to p. Running the bands one after the other (xv's order) moves content as the
 * composition does, so the final pixel at p is the source pixel at P_0(P_1(…P_last(p)…)):
 * exact for any band split, each band's random numbers found by jumping the generator ahead
 * to the band's first draw (2 per pixel). P_b is the identity outside band b's reach.
 *
 * Cells: rows of band b that no earlier band reaches (from r0 + reach on) start with their
 * source pixel itself (colour bytes ≤ 3: a "value" cell, top bit clear) rather than a
 * position, so most of the gather is a sequential copy; the other cells hold a position
 * with the top bit set (a "token"), resolved through band b − 1's cells or, outside every
 * earlier band's reach, in the source. */
#define TOKEN 0x80000000u

/* A pixel's colour bytes (cb ≤ 3) as a value cell, in registers: going through a memory
 * temporary would cost a failed store-to-load forwarding per pixel. */
static inline guint32
load_value (const guint8 *s,
            gsize         cb)
{
  guint32 v = s[0];

  if (cb >= 2)
    v |= (guint32) s[1] << 8;
  if (cb >= 3)
    v |= (guint32) s[2] << 16;
  return v;
}

/* value cells exist only for cb ≤ 3 */
static inline void
store_value (guint8  *d,
             guint32  c,
             gsize    cb)
{
  d[0] = (guint8) c;
  if (cb >= 2)
    d[1] = (guint8) (c >> 8);
  if (cb >= 3)
    d[2] = (guint8) (c >> 16);
}

static G_ALWAYS_INLINE inline void
band_init (const LbSpread    *st,
           const LbKernelBuf *src,
           guint32           *buf,
           int                e0,
           int                e1,
           int                vfrom,
           gsize              cb)
{
  int w = st->r.width, sy = st->r.y;
  gsize pb = (gsize) src->channels * (src->depth / 8);

  for (int y = e0; y < e1; y++)
    {
      guint32 *row = buf + (gsize) (y - e0) * w;

      if (y < vfrom)
        {
          guint32 q = (guint32) ((gsize) (y - sy) * w) | TOKEN;

          for (int x = 0; x < w; x++)
            row[x] = q + (guint32) x;
        }
      else
        {
          const guint8 *s = lb_kbuf_row (src, y) + (gsize) st->r.x * pb;

          for (int x = 0; x < w; x++, s += pb)
            row[x] = load_value (s, cb);
        }
    }
}

void
lb_spread_process_band (const LbSpread    *st,
                        const LbKernelBuf *src,
                        int                b)
{
  LbXvRandomBatch *rng;
  int r0, r1, e0, e1, w = st->r.width, vfrom;
  gsize cb = (gsize) lb_kbuf_color_channels (src) * (src->depth / 8);
  guint32 *buf;
  gsize n;

  g_return_if_fail (b >= 0 && b < lb_spread_get_n_bands (st));
  band_extent (st, b, &r0, &r1, &e0, &e1);
  n = (gsize) (e1 - e0) * w;
  /* each band owns its slot: bands may run concurrently */
  if (st->bufs[b] == NULL)
    st->bufs[b] = g_new (guint32, n);
  buf = st->bufs[b];
  /* value cells where no earlier band reaches (band 0: everywhere), if a pixel fits 31 bits */
  vfrom = b == 0 ? e0 : r0 + st->reach;
  if (cb > 3)
    vfrom = e1;
  switch (cb)
    {
    case 1: band_init (st, src, buf, e0, e1, vfrom, 1); break;
    case 3: band_init (st, src, buf, e0, e1, vfrom, 3); break;
    default: band_init (st, src, buf, e0, e1, vfrom, cb); break;
    }
  rng = g_new (LbXvRandomBatch, 1);
  lb_xv_random_batch_seed_at (rng, st->seed, 2 * (guint64) (r0 - st->r.y) * (guint64) w);
  spread_rows (st, rng, r0, r1, (guint8 *) buf, e0, (gsize) w * sizeof (guint32),
               sizeof (guint32), sizeof (guint32));
  g_free (rng);
}

static G_ALWAYS_INLINE inline void
gather_rows (const LbSpread    *st,
             const LbKernelBuf *src,
             LbKernelBuf       *dst,
             int                y0,
             int                y1,
             gsize              cb)
{
  int w = st->r.width, sy = st->r.y;
  gsize pb = (gsize) src->channels * (src->depth / 8);
  /* band b's reach as region positions [lo[b], hi[b]) */
  guint32 lo[64], hi[64];
  g_autofree guint32 *lo_big = NULL;
  g_autofree guint32 *hi_big = NULL;
  guint32 *plo = lo, *phi = hi;
  const guint8 *sbase = lb_kbuf_row (src, sy) + (gsize) st->r.x * pb;

  if (st->n_bands > 64)
    {
      plo = lo_big = g_new (guint32, st->n_bands);
      phi = hi_big = g_new (guint32, st->n_bands);
    }
  for (int b = 0; b < st->n_bands; b++)
    {
      int r0, r1, e0, e1;

      band_extent (st, b, &r0, &r1, &e0, &e1);
      plo[b] = (guint32) ((gsize) (e0 - sy) * w);
      phi[b] = (guint32) ((gsize) (e1 - sy) * w);
    }
  y0 = MAX (y0, sy);
  y1 = MIN (y1, sy + st->r.height);
  for (int y = y0; y < y1; y++)
    {
      guint8 *d = lb_kbuf_row (dst, y) + (gsize) st->r.x * pb;
      /* the last band whose reach holds row y: its cells hold the row's final content */
      int top = MIN (st->n_bands - 1, (MIN (y + st->reach, sy + st->r.height - 1) - sy) / st->band_rows);
      const guint32 *cells = st->bufs[top] + ((gsize) (y - sy) * w - plo[top]);

      for (int x = 0; x < w; x++, d += pb)
        {
          guint32 c = cells[x];

          if (G_LIKELY (!(c & TOKEN)))
            {
              store_value (d, c, cb);
              continue;
            }
          /* a token: the content band b's swaps found at position q, i.e. what the earlier
           * bands left there, or the source pixel where none of them reaches */
          for (int b = top;;)
            {
              guint32 q = c & ~TOKEN;

              if (b > 0 && q < phi[b - 1])
                {
                  b--;
                  c = st->bufs[b][q - plo[b]];
                  if (c & TOKEN)
                    continue;
                  store_value (d, c, cb);
                }
              else
                {
                  /* 2⁶⁴/1 does not fit: width 1 divides by itself */
                  guint32 qy = w == 1 ? q : (guint32) (((unsigned __int128) st->wdiv * q) >> 64);
                  guint32 qx = q - qy * (guint32) w;

                  memcpy (d, sbase + (gsize) qy * src->stride + (gsize) qx * pb, cb);
                }
              break;
            }
        }
    }
}

void
lb_spread_gather (const LbSpread    *st,
                  const LbKernelBuf *src,
                  LbKernelBuf       *dst,
                  int                y0,
                  int                y1)
{
  gsize cb = (gsize) lb_kbuf_color_channels (dst) * (dst->depth / 8);

  if (!st->active)
    return;
  for (int b = 0; b < st->n_bands; b++)
    g_return_if_fail (st->bufs[b] != NULL);
  switch (cb)
    {
    case 1: gather_rows (st, src, dst, y0, y1, 1); break;
    case 2: gather_rows (st, src, dst, y0, y1, 2); break;
    case 3: gather_rows (st, src, dst, y0, y1, 3); break;
    case 6: gather_rows (st, src, dst, y0, y1, 6); break;
    default: gather_rows (st, src, dst, y0, y1, cb); break;
    }
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
    return;
  spread_in_place (st, dst, cb);
}
