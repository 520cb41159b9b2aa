/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-spread"

/* Spread, xv's swaps in place: the draws' ranges tabulated once per image, the swaps in xv's
 * order on one thread, for passes whose banded scratch would be too large. */

#include "lb-spread-private.h"

/* A draw range [lo, lo + m) with the constants for "% m". */
typedef struct {
  int lo;
  guint32 m;
  guint32 magic;
  guint32 shift;
} Range;

static inline void
range_set (Range         *rg,
           const LbSpread *st,
           int             lo,
           int             hi)
{
  rg->lo = lo;
  rg->m = (guint32) (hi - lo + 1);
  rg->magic = st->magic[rg->m];
  rg->shift = st->shift[rg->m];
}

static inline int
range_draw (const Range *rg,
            guint32      rnd)
{
  return rg->lo + (int) lb_xv_random_mod (rnd, rg->m, rg->magic, rg->shift);
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

void
_lb_spread_in_place (const LbSpread *st,
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
