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
};

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
    }
  return g_steal_pointer (&st);
}

void
lb_spread_free (LbSpread *st)
{
  if (st == NULL)
    return;
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
 * multiplication; the swap is specialised for the pixel size. */
static G_ALWAYS_INLINE inline void
spread_rows (const LbSpread *st,
             LbKernelBuf    *dst,
             gsize           cb)
{
  LbXvRandomBatch *rng = g_new (LbXvRandomBatch, 1);
  int sx = st->r.x, sy = st->r.y, ex = st->r.x + st->r.width - 1, ey = st->r.y + st->r.height - 1;
  gsize pb = (gsize) dst->channels * (dst->depth / 8);
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
  lb_xv_random_batch_seed (rng, st->seed);
  for (int y = sy; y <= ey; y++)
    {
      guint8 *arow = lb_kbuf_row (dst, y) + (gsize) sx * pb;

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
          for (int x = x0; x <= x1end; x++, rp += 2, arow += pb)
            {
              int x1 = range_draw (&xr[x - sx], rp[0]);
              const Range *ry = rect ? &yr[0] : &yr[px - abs (x1 - x)];
              guint8 *a = arow;
              guint8 *b = lb_kbuf_row (dst, range_draw (ry, rp[1])) + (gsize) x1 * pb;

              /* constant sizes let the compiler turn these into register moves */
              switch (cb)
                {
                case 1: { guint8 t = a[0]; a[0] = b[0]; b[0] = t; } break;
                case 2: { guint8 t[2]; memcpy (t, a, 2); memcpy (a, b, 2); memcpy (b, t, 2); } break;
                case 3: { guint8 t[3]; memcpy (t, a, 3); memcpy (a, b, 3); memcpy (b, t, 3); } break;
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
  g_free (rng);
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
  switch (cb)
    {
    case 1: spread_rows (st, dst, 1); break;
    case 3: spread_rows (st, dst, 3); break;
    default: spread_rows (st, dst, cb); break;
    }
}
