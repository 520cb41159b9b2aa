/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-spread"

#include "lb-xvgeom.h"

#include <stdlib.h>
#include <string.h>

#include "lb-kernel-layout.h"
#include "lb-xv-random.h"

/* Hand-written AVX2 rows (the banded path's runs and draws), chosen per pass by use_avx2(). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define HAVE_AVX2_PATHS 1
#include <immintrin.h>
#endif

/* What band b's pass leaves for settling (see "Banded path" below). */
typedef struct {
  guint32 *seam;      /* its final cells in image rows [seam_y0, seam_y1): the rows band b + 1
                       * reaches back into */
  int seam_y0, seam_y1;
  guint32 *top;       /* its final cells in its first output rows [top_y0, top_y1): the rows
                       * band b − 1 reaches (tokens at the start) and a reach more (where
                       * those tokens mostly end up); settle_kept () writes them */
  int top_y0, top_y1;
  GArray *deferred;   /* of Deferred: other output pixels that band b − 1's seam decides */
  /* the pass's progress, under LbSpread.lock */
  gboolean done;             /* the band's pass has finished */
  gboolean top_ready;        /* @top is final */
  gboolean top_claimed;      /* a thread settles @top (or has) */
  gboolean deferred_claimed; /* a thread settles @deferred (or has) */
} BandOut;

/* an output pixel (region position) and the token it holds */
typedef struct {
  guint32 pos;
  guint32 token;
} Deferred;

struct _LbSpread {
  LbKernelRect r;
  gboolean rectangle;
  int px, py;        /* rectangle half-widths, or px = d (diamond) */
  guint32 seed;
  gboolean active;
  int mmax;          /* largest modulus a draw can use */
  /* "a % m" for m = 1..mmax (lb_xv_random_mod) */
  guint32 *magic;
  guint32 *shift;
  gboolean simd;     /* the AVX2 paths where the processor has them (tests turn them off) */
  /* the x draw's range for region column x: [xlo[x], xlo[x] + xm[x]) */
  gint32 *xlo;
  guint32 *xm;
  /* banded path (lb_spread_process_band) */
  int reach;         /* rows a swap reaches up or down */
  int lane_rows;     /* rows per generator lane in a chunk (a chunk is LANES of them) */
  int band_rows;     /* region rows per band */
  int n_bands;
  BandOut *bands;    /* [band], written by that band's pass only (the flags under @lock) */
  GMutex lock;       /* the bands' flags and the two counts below */
  int n_done;        /* bands whose pass has finished, this pass */
  int n_claimed;     /* settling jobs taken, this pass (2 per band after the first) */
  guint64 wdiv;      /* 2⁶⁴/width rounded up: exact q / width for 32-bit q (width ≥ 2) */
  /* the banded form is used (else xv's swaps in place, on one thread): see banded_fits() */
  gboolean banded;
};

static void set_bands (LbSpread *st, int band_rows);

#define LANES LB_XV_RANDOM_LANES

/* A band's working cells are a window of rows that slides down the band (see band_run), of
 * about this many bytes and at least two chunks and both reaches high. Sliding moves the rows
 * still needed to the window's start, so a small window moves rows often: against 2 MiB, 512
 * KiB took 0.984 of the time per pass on 1 thread and 0.969 on 2, 192 KiB 0.994 and 0.954
 * (1.4 Mpx RGB8; medians of 101–151 interleaved pairs in one process). The band's whole rows
 * in one buffer (no sliding) were no faster than 2 MiB. */
#define RING_BYTES ((gsize) 512 << 10)

/* Scratch of all bands together may take this much, or 90 % of the image if that is more;
 * beyond it (distances of hundreds of rows on wide images) xv's swaps run in place. */
#define SPREAD_SCRATCH_BYTES ((guint64) 32 << 20)

/* rows of a band's window, for a band whose cells span @rows rows */
static int
ring_rows (const LbSpread *st,
           int             rows)
{
  gint64 chunk = (gint64) LANES * st->lane_rows;
  gint64 want = MAX (2 * chunk + 2 * (gint64) st->reach,
                     (gint64) (RING_BYTES / (sizeof (guint32) * (gsize) st->r.width)));

  return (int) MIN ((gint64) rows, want);
}

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

static void
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

/* Banded path. The swaps depend on the random stream only, never on pixel values, so band b's
 * swaps alone define a permutation P_b of the positions its rows reach: run on an array of
 * region positions starting from the identity, P_b[p] names the position whose content those
 * swaps bring to p. Running the bands one after the other (xv's order) moves content as the
 * composition does, so the final pixel at p is the source pixel at P_0(P_1(…P_last(p)…)):
 * exact for any banding, each band's random numbers found by jumping the generator ahead to
 * the band's first draw (2 per pixel). P_b is the identity outside band b's reach, so bands
 * run concurrently.
 *
 * Cells: rows of band b that no earlier band reaches (from r0 + reach on; all of band 0) start
 * with their source pixel itself (colour bytes ≤ 3: a "value" cell, top bit clear); the other
 * cells hold a position with the top bit set (a "token"): in the rows band b − 1 reaches,
 * whatever band b − 1 left there, else (more than 3 colour bytes) the source pixel.
 *
 * A band's pass (band_run): chunks of LANES · lane_rows rows, top to bottom. The chunk's
 * random numbers come from one generator whose 8 lanes are the chunk's 8 lanes of rows, stepped
 * together (one vector addition per step) and jumped to the next chunk's rows at its end; the
 * draws then make every lane's partner cells at once (AVX2: 8 lanes in a register), and the
 * swaps run over the chunk. The band's cells live in a window of rows that slides down with
 * the chunks: rows no later swap of the band touches are written to the output at once while
 * they are in cache (values; tokens into the source: looked up there; tokens band b − 1
 * decides: kept in a list), except its first rows, those band b − 1 reaches and a reach
 * more, which are kept whole (mostly tokens: settled 8 at a time, not one by one from the
 * list, and by the thread that finishes first); the rows band b + 1 reaches back into are kept
 * as the band's seam.
 * The kept rows and lists are then settled through the earlier bands' seams (band_finished:
 * by the threads whose bands are done, as soon as the bands they depend on are).
 * A pass takes the source, the output, and per band a window (~512 KiB), a seam (2 · reach
 * rows), its kept top rows (3 · reach) and the list. */
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

#ifdef HAVE_AVX2_PATHS
/* Rows of 8-bit gray, 16-bit gray, 8-bit RGB or 8-bit RGBA (colour bytes @cb, pixel bytes @pb)
 * to value cells, 8 pixels per step (RGB8: a 32-byte load for 24 bytes, run while 8 more bytes
 * of the row follow). Returns the pixels done. */
__attribute__ ((target ("avx2"))) static G_ALWAYS_INLINE inline int
init_run_avx2 (guint32      *row,
               const guint8 *s,
               int           w,
               gsize         cb,
               gsize         pb)
{
  const __m256i idx = _mm256_setr_epi32 (0, 1, 2, 3, 3, 4, 5, 6);
  const __m256i shuf = _mm256_setr_epi8 (0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1,
                                         0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
  const __m256i rgb = _mm256_set1_epi32 (0x00ffffff);
  int x = 0;

  for (; x + (pb == 3 ? 11 : 8) <= w; x += 8)
    {
      const void *p = s + pb * (gsize) x;
      __m256i v;

      if (pb == 1)
        v = _mm256_cvtepu8_epi32 (_mm_loadl_epi64 ((const __m128i *) p));
      else if (pb == 2)
        v = _mm256_cvtepu16_epi32 (_mm_loadu_si128 ((const __m128i *) p));
      else if (pb == 3)
        v = _mm256_shuffle_epi8 (_mm256_permutevar8x32_epi32 (_mm256_loadu_si256 ((const __m256i *) p),
                                                              idx), shuf);
      else
        v = _mm256_and_si256 (_mm256_loadu_si256 ((const __m256i *) p), rgb);
      _mm256_storeu_si256 ((__m256i *) (void *) (row + x), v);
    }
  (void) cb;
  return x;
}

/* 8 value cells to 8 pixels of @d (the layouts of init_run_avx2); RGBA8 takes its alpha from
 * the same pixels of the source row @s */
__attribute__ ((target ("avx2"))) static G_ALWAYS_INLINE inline void
store_run_avx2 (guint8       *d,
                const guint8 *s,
                __m256i       c,
                gsize         pb)
{
  if (pb == 1 || pb == 2)
    {
      __m128i p16 = _mm_packus_epi32 (_mm256_castsi256_si128 (c), _mm256_extracti128_si256 (c, 1));

      if (pb == 1)
        _mm_storel_epi64 ((__m128i *) (void *) d, _mm_packus_epi16 (p16, p16));
      else
        _mm_storeu_si128 ((__m128i *) (void *) d, p16);
    }
  else if (pb == 3)
    {
      const __m256i shuf = _mm256_setr_epi8 (0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1,
                                             0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
      const __m256i idx = _mm256_setr_epi32 (0, 1, 2, 4, 5, 6, 7, 7);

      c = _mm256_permutevar8x32_epi32 (_mm256_shuffle_epi8 (c, shuf), idx);
      _mm_storeu_si128 ((__m128i *) (void *) d, _mm256_castsi256_si128 (c));
      _mm_storel_epi64 ((__m128i *) (void *) (d + 16), _mm256_extracti128_si256 (c, 1));
    }
  else
    {
      __m256i a = _mm256_and_si256 (_mm256_loadu_si256 ((const __m256i *) (const void *) s),
                                    _mm256_set1_epi32 ((int) 0xff000000u));

      _mm256_storeu_si256 ((__m256i *) (void *) d, _mm256_or_si256 (a, c));
    }
}


/* the layouts with AVX2 runs, as separate functions (one instance each) */
#define SPREAD_AVX2_LAYOUT(pb_)                                                                    \
  __attribute__ ((target ("avx2"))) static int                                                     \
  init_run_avx2_##pb_ (guint32 *row, const guint8 *s, int w)                                       \
  {                                                                                                \
    return init_run_avx2 (row, s, w, pb_ == 4 ? 3 : pb_, pb_);                                     \
  }
SPREAD_AVX2_LAYOUT (1)
SPREAD_AVX2_LAYOUT (2)
SPREAD_AVX2_LAYOUT (3)
SPREAD_AVX2_LAYOUT (4)

typedef int (*InitRunFunc) (guint32 *row, const guint8 *s, int w);

/* the AVX2 runs for 8-bit gray (cb = pb = 1), 16-bit gray (2, 2), 8-bit RGB (3, 3) and 8-bit
 * RGBA (3, 4): index pb − 1 where cb ≥ pb − 1 and cb = pb or cb = 3 */
static gboolean
avx2_layout (gsize cb,
             gsize pb)
{
  return (cb == pb && cb <= 3) || (cb == 3 && pb == 4);
}

static const InitRunFunc init_runs[4] = { init_run_avx2_1, init_run_avx2_2, init_run_avx2_3,
                                          init_run_avx2_4 };
#endif

/* whether the AVX2 paths run (libgcc's constructor has filled in the processor's features
 * before any code of ours runs, so this needs no __builtin_cpu_init ()) */
static gboolean
use_avx2 (const LbSpread *st)
{
#ifdef HAVE_AVX2_PATHS
  return st->simd && __builtin_cpu_supports ("avx2");
#else
  return FALSE;
#endif
}

/* Cells of image rows [ya, yb) in @ring, whose first row is image row @base: tokens above
 * image row @vfrom, values from the source from it on. */
static G_ALWAYS_INLINE inline void
ring_init (const LbSpread    *st,
           const LbKernelBuf *src,
           guint32           *ring,
           int                base,
           int                ya,
           int                yb,
           int                vfrom,
           gsize              cb)
{
  int w = st->r.width, sy = st->r.y;
  gsize pb = (gsize) src->channels * (src->depth / 8);
  G_GNUC_UNUSED gboolean avx2 = use_avx2 (st);

  for (int y = ya; y < yb; y++)
    {
      guint32 *row = ring + (gsize) (y - base) * w;

      if (y < vfrom)
        {
          guint32 q = (guint32) ((gsize) (y - sy) * w) | TOKEN;

          for (int x = 0; x < w; x++)
            row[x] = q + (guint32) x;
        }
      else
        {
          const guint8 *s = lb_kbuf_row (src, y) + (gsize) st->r.x * pb;
          int x = 0;

#ifdef HAVE_AVX2_PATHS
          if (avx2 && avx2_layout (cb, pb))
            x = init_runs[pb - 1] (row, s, w);
#endif
          for (s += (gsize) x * pb; x < w; x++, s += pb)
            row[x] = load_value (s, cb);
        }
    }
}

/* A chunk's swaps on its band's cells: own cell (row r, column x) with its partner, for chunk
 * rows r = 0 … rows − 1 (cell row top + r); the partners are step-major
 * (_lb_spread_band_draws): row r is step (r mod lane_rows) · w + x of lane r / lane_rows. Not
 * in raster order but in skewed strips: two swaps touch a common cell only if their columns
 * are at most 2 · px apart, so ordering the pixels by x + skew · r with skew = 2 · px + 1, in
 * strips of STRIP_W, keeps every such pair in raster order (a later row has a key at least
 * skew − 2 · px = 1 higher), and the strip's 2 · reach + 1 rows of STRIP_W + 2 · px cells stay
 * in L1; in raster order the rows a swap reaches (5.6 KB each at 1400 RGB pixels) do not. */
#define STRIP_W 64

/* not inlined: inside lb_spread_process_band's loops the swap loop's pointers and the
 * swapped cell spill to the stack (three stack accesses per swap) */
G_GNUC_NO_INLINE static void
swap_cells (guint32       *cells,
            const guint32 *parts,
            int            top,
            int            rows,
            int            w,
            int            skew,
            int            lane_rows)
{
  guint32 *own = cells + (gsize) top * w;
  gint64 keys;

  /* a swap reaching across the whole row: raster order (one strip per row) */
  if (skew >= w)
    skew = w;
  keys = (gint64) w + (gint64) skew * (rows - 1);
  for (gint64 x0 = 0; x0 < keys; x0 += STRIP_W)
    /* the rows with keys in [x0, x0 + STRIP_W): x0 − w < skew · r < x0 + STRIP_W */
    for (int r = (int) MAX (0, (x0 - w) / skew); r < rows && (gint64) skew * r < x0 + STRIP_W; r++)
      {
        gint64 xa = MAX (0, x0 - (gint64) skew * r), xb = MIN (w, x0 + STRIP_W - (gint64) skew * r);
        gsize i = (gsize) r * w;
        const guint32 *pr = parts + (((gsize) (r % lane_rows) * w) * LANES + (gsize) (r / lane_rows));

        for (gint64 x = xa; x < xb; x++)
          {
            guint32 q = pr[x * LANES], c = own[i + x];

            own[i + x] = cells[q];
            cells[q] = c;
          }
      }
}

/* One chunk's draws: its lanes' partner cells (parts[k · n + i] for pixel i of lane k, n the
 * pixels of a lane), with the lanes (runs of rows) stepped together as the lanes of one
 * generator: the loops over lanes have no branches and vectorise (the x range is the same for
 * every lane, "% m" is a multiplication by magic[m]); lanes past the end of a band draw and
 * are ignored. */
#define BLOCK 128

/* What the draws of one band need, and where they stand. */
typedef struct {
  const LbSpread *st;
  gint32 e0[LANES];  /* lane k's first cell row (region rows) */
  gint32 y[LANES];   /* lane k's current region row (clamped to the region) */
  gint32 r0[LANES];
  int x, row;        /* current column and row of the lane, the same for every lane */
} Draws;

static inline void
draws_advance (Draws *dr)
{
  if (++dr->x == dr->st->r.width)
    {
      dr->x = 0;
      dr->row++;
      for (int k = 0; k < LANES; k++)
        dr->y[k] = MIN (dr->r0[k] + dr->row, dr->st->r.height - 1);
    }
}

/* part[t][k]: the partner cell of the next @tn pixels of every lane, from their 2 draws
 * (raw generator words: the outputs are rnd >> 1) */
LB_KERNEL_CLONES static void
draws_block (Draws               *dr,
             const guint32      (*rnd)[LANES],
             guint32            (*part)[LANES],
             int                  tn)
{
  const LbSpread *st = dr->st;
  int w = st->r.width, h = st->r.height;
  gboolean rect = st->rectangle;
  int d = rect ? st->py : st->px;
  const guint32 *magic = st->magic, *shift = st->shift;

  for (int t = 0; t < tn; t++)
    {
      int x = dr->x;
      gint32 xlo = st->xlo[x];
      guint32 xm = st->xm[x], xmagic = magic[xm], xshift = shift[xm];

      for (int k = 0; k < LANES; k++)
        {
          gint32 x1 = xlo + (gint32) lb_xv_random_mod (rnd[2 * t][k] >> 1, xm, xmagic, xshift);
          gint32 rd = rect ? d : d - abs (x1 - x);
          gint32 lo = MAX (0, dr->y[k] - rd), hi = MIN (h - 1, dr->y[k] + rd);
          guint32 m = (guint32) (hi - lo + 1);
          gint32 y1 = lo + (gint32) lb_xv_random_mod (rnd[2 * t + 1][k] >> 1, m, magic[m], shift[m]);

          part[t][k] = (guint32) ((y1 - dr->e0[k]) * w + x1);
        }
      draws_advance (dr);
    }
}

#ifdef HAVE_AVX2_PATHS
/* high 32 bits of the unsigned products, lane by lane */
__attribute__ ((target ("avx2"))) static inline __m256i
mulhi_epu32 (__m256i a,
             __m256i b)
{
  __m256i even = _mm256_srli_epi64 (_mm256_mul_epu32 (a, b), 32);
  __m256i odd = _mm256_mul_epu32 (_mm256_srli_epi64 (a, 32), _mm256_srli_epi64 (b, 32));

  return _mm256_blend_epi32 (even, odd, 0xaa);
}

/* table[idx] lane by lane, idx ≤ n − 1: in registers for up to 16 entries */
typedef struct {
  __m256i lo, hi;
  const guint32 *table;
  int n;
} Lookup;

__attribute__ ((target ("avx2"))) static inline __m256i
lookup (const Lookup *lu,
        __m256i       idx)
{
  if (lu->n <= 8)
    return _mm256_permutevar8x32_epi32 (lu->lo, idx);
  if (lu->n <= 16)
    return _mm256_blendv_epi8 (_mm256_permutevar8x32_epi32 (lu->lo, idx),
                               _mm256_permutevar8x32_epi32 (lu->hi, idx),
                               _mm256_cmpgt_epi32 (idx, _mm256_set1_epi32 (7)));
  return _mm256_i32gather_epi32 ((const int *) lu->table, idx, 4);
}

__attribute__ ((target ("avx2"))) static void
lookup_init (Lookup        *lu,
             const guint32 *table,
             int            n)
{
  guint32 t[16] = { 0 };

  memcpy (t, table, MIN (n, 16) * sizeof (guint32));
  lu->lo = _mm256_loadu_si256 ((const __m256i *) t);
  lu->hi = _mm256_loadu_si256 ((const __m256i *) (t + 8));
  lu->table = table;
  lu->n = n;
}

/* draws_block() in AVX2, the same integer operations on the 8 lanes at once. @rect is a
 * constant in each caller (see draws_block_avx2). */
__attribute__ ((target ("avx2"))) static G_ALWAYS_INLINE inline void
draws_block_avx2_body (Draws               *dr,
                       const guint32      (*rnd)[LANES],
                       guint32            (*part)[LANES],
                       int                  tn,
                       const gboolean       rect)
{
  const LbSpread *st = dr->st;
  int w = st->r.width, h = st->r.height;
  const __m256i vd = _mm256_set1_epi32 (rect ? st->py : st->px);
  const __m256i zero = _mm256_setzero_si256 (), one = _mm256_set1_epi32 (1);
  const __m256i hmax = _mm256_set1_epi32 (h - 1), vw = _mm256_set1_epi32 (w);
  const __m256i e0 = _mm256_loadu_si256 ((const __m256i *) dr->e0);
  __m256i vy = _mm256_loadu_si256 ((const __m256i *) dr->y);
  Lookup lmagic, lshift;
  /* The interior: rows where every lane's y range is unclipped (inner_rows) and columns
   * [px, w − px) (never a row's last column, where the lanes change rows). There the x draw's
   * range is x ± px and the y draw's y ± rd, rd = d − |x1 − x| (rectangle: py); the partner
   * is this pixel's cell (base, one more per step) plus dy · w + dx; and "% m" takes its
   * constants from 8-entry tables indexed by rd (diamond, d ≤ 7) instead of per-column loads
   * and 12-entry lookups. Same integer operations, so the same partners: about 40 % off
   * the draws, which were ~30 % of a pass. */
  const int px = st->px, d = rect ? st->py : st->px;
  const gboolean inner_ok = 2 * px + 1 <= w && (rect || d <= 7);
  gboolean inner_rows = FALSE;
  __m256i base = _mm256_setzero_si256 ();
  __m256i rmagic = _mm256_setzero_si256 (), rshift = _mm256_setzero_si256 ();

  lookup_init (&lmagic, st->magic, st->mmax + 1);
  lookup_init (&lshift, st->shift, st->mmax + 1);
  if (inner_ok && !rect)
    {
      guint32 tm[8] = { 0 }, ts[8] = { 0 };

      for (int rd = 0; rd <= d; rd++)
        {
          tm[rd] = st->magic[2 * rd + 1];
          ts[rd] = st->shift[2 * rd + 1];
        }
      rmagic = _mm256_loadu_si256 ((const __m256i *) tm);
      rshift = _mm256_loadu_si256 ((const __m256i *) ts);
    }
  for (int t = 0; t < tn; t++)
    {
      int x = dr->x;

      if (x == 0 || t == 0)
        {
          /* every lane's row, and so its y range, changes only here */
          gint32 ylo = G_MAXINT32, yhi = G_MININT32;

          for (int k = 0; k < LANES; k++)
            {
              ylo = MIN (ylo, dr->y[k]);
              yhi = MAX (yhi, dr->y[k]);
            }
          inner_rows = inner_ok && ylo >= d && yhi + d <= h - 1;
          base = _mm256_sub_epi32 (vy, e0);
          base = _mm256_add_epi32 (_mm256_mullo_epi32 (base, vw), _mm256_set1_epi32 (x));
        }
      if (inner_rows && x >= px && x < w - MAX (px, 1))
        {
          /* a run of interior columns, up to the block's end */
          int run = MIN (tn - t, w - MAX (px, 1) - x);
          const __m256i vxm = _mm256_set1_epi32 (2 * px + 1);
          const __m256i xmagic = _mm256_set1_epi32 ((int) st->magic[2 * px + 1]);
          const __m128i xshift = _mm_cvtsi32_si128 ((int) st->shift[2 * px + 1]);
          const __m256i vpx = _mm256_set1_epi32 (px);

          for (int e = t + run; t < e; t++)
            {
              __m256i rx = _mm256_loadu_si256 ((const __m256i *) rnd[2 * t]);
              __m256i ry = _mm256_loadu_si256 ((const __m256i *) rnd[2 * t + 1]);
              __m256i q = _mm256_srl_epi32 (mulhi_epu32 (_mm256_andnot_si256 (one, rx), xmagic), xshift);
              /* x1 − x = rx mod (2px + 1) − px */
              __m256i dx = _mm256_sub_epi32 (_mm256_sub_epi32 (_mm256_srli_epi32 (rx, 1),
                                                               _mm256_mullo_epi32 (q, vxm)), vpx);
              __m256i rd, m, dy;

              if (rect)
                {
                  rd = vd;
                  q = _mm256_srl_epi32 (mulhi_epu32 (_mm256_andnot_si256 (one, ry),
                                                     _mm256_set1_epi32 ((int) st->magic[2 * d + 1])),
                                        _mm_cvtsi32_si128 ((int) st->shift[2 * d + 1]));
                  m = _mm256_set1_epi32 (2 * d + 1);
                }
              else
                {
                  rd = _mm256_sub_epi32 (vd, _mm256_abs_epi32 (dx));
                  q = _mm256_srlv_epi32 (mulhi_epu32 (_mm256_andnot_si256 (one, ry),
                                                      _mm256_permutevar8x32_epi32 (rmagic, rd)),
                                         _mm256_permutevar8x32_epi32 (rshift, rd));
                  m = _mm256_add_epi32 (_mm256_add_epi32 (rd, rd), one);
                }
              /* y1 − y = ry mod m − rd */
              dy = _mm256_sub_epi32 (_mm256_sub_epi32 (_mm256_srli_epi32 (ry, 1), _mm256_mullo_epi32 (q, m)), rd);
              _mm256_storeu_si256 ((__m256i *) part[t],
                                   _mm256_add_epi32 (_mm256_add_epi32 (base, dx), _mm256_mullo_epi32 (dy, vw)));
              base = _mm256_add_epi32 (base, one);
            }
          /* no run reaches the row's end (x < w − px) */
          dr->x += run;
          t--;
          continue;
        }
      guint32 xm = st->xm[x];
      __m256i rx = _mm256_loadu_si256 ((const __m256i *) rnd[2 * t]);
      __m256i ry = _mm256_loadu_si256 ((const __m256i *) rnd[2 * t + 1]);
      __m256i ax = _mm256_srli_epi32 (rx, 1), ay = _mm256_srli_epi32 (ry, 1);
      __m256i vxm = _mm256_set1_epi32 ((int) xm);
      __m256i q = _mm256_srl_epi32 (mulhi_epu32 (_mm256_andnot_si256 (one, rx),
                                                 _mm256_set1_epi32 ((int) st->magic[xm])),
                                    _mm_cvtsi32_si128 ((int) st->shift[xm]));
      __m256i x1 = _mm256_add_epi32 (_mm256_set1_epi32 (st->xlo[x]),
                                     _mm256_sub_epi32 (ax, _mm256_mullo_epi32 (q, vxm)));
      __m256i rd = rect ? vd : _mm256_sub_epi32 (vd, _mm256_abs_epi32 (_mm256_sub_epi32 (x1, _mm256_set1_epi32 (x))));
      __m256i lo = _mm256_max_epi32 (zero, _mm256_sub_epi32 (vy, rd));
      __m256i hi = _mm256_min_epi32 (hmax, _mm256_add_epi32 (vy, rd));
      __m256i m = _mm256_add_epi32 (_mm256_sub_epi32 (hi, lo), one);
      __m256i y1;

      /* lb_xv_random_mod() as ((2a · magic) >> 32) >> shift: the same floor, and 2a fits 32
       * bits (the raw word with its low bit cleared) */
      q = _mm256_srlv_epi32 (mulhi_epu32 (_mm256_andnot_si256 (one, ry), lookup (&lmagic, m)),
                             lookup (&lshift, m));
      y1 = _mm256_add_epi32 (lo, _mm256_sub_epi32 (ay, _mm256_mullo_epi32 (q, m)));
      _mm256_storeu_si256 ((__m256i *) part[t],
                          _mm256_add_epi32 (_mm256_mullo_epi32 (_mm256_sub_epi32 (y1, e0), vw), x1));
      base = _mm256_add_epi32 (base, one);
      if (x + 1 == w)
        {
          draws_advance (dr);
          vy = _mm256_loadu_si256 ((const __m256i *) dr->y);
        }
      else
        dr->x++;
    }
}

/* One instance per mode: the interior loop then has no test of the mode, and the registers
 * that the other mode's constants took hold this one's (fewer stack reloads). Same
 * operations: 0.95–0.97 of the time per pass, 1 and 2 threads (1.4 Mpx RGB8, medians of 61–81
 * interleaved pairs, both link orders). */
__attribute__ ((target ("avx2"))) static void
draws_block_avx2 (Draws               *dr,
                  const guint32      (*rnd)[LANES],
                  guint32            (*part)[LANES],
                  int                  tn)
{
  if (dr->st->rectangle)
    draws_block_avx2_body (dr, rnd, part, tn, TRUE);
  else
    draws_block_avx2_body (dr, rnd, part, tn, FALSE);
}
#endif

/* The next @npix pixels of every lane: partner cells to parts[i][k] (step-major: the swaps
 * read a lane's partners 8 words apart, and a strip's rows share their cache lines; no
 * transposes). */
static void
_lb_spread_band_draws (Draws           *dr,
                       LbXvRandomLanes *rng,
                       gboolean         avx2,
                       guint32        (*parts)[LANES],
                       gsize            npix)
{
  for (gsize i0 = 0; i0 < npix; i0 += BLOCK)
    {
      int tn = (int) MIN ((gsize) BLOCK, npix - i0);
      const guint32 (*rnd)[LANES] = lb_xv_random_lanes_next (rng, 2 * (gsize) tn);

#ifdef HAVE_AVX2_PATHS
      if (avx2)
        draws_block_avx2 (dr, rnd, parts + i0, tn);
      else
#endif
        draws_block (dr, rnd, parts + i0, tn);
    }
}

/* the source pixel at region position @q (colour bytes) */
static G_ALWAYS_INLINE inline const guint8 *
source_pixel (const LbSpread    *st,
              const LbKernelBuf *src,
              guint32            q)
{
  int w = st->r.width;
  gsize pb = (gsize) src->channels * (src->depth / 8);
  /* 2⁶⁴/1 does not fit: width 1 divides by itself */
  guint32 qy = w == 1 ? q : (guint32) (((unsigned __int128) st->wdiv * q) >> 64);
  guint32 qx = q - qy * (guint32) w;

  return lb_kbuf_row (src, st->r.y + (int) qy) + (gsize) (st->r.x + (int) qx) * pb;
}

#ifdef HAVE_AVX2_PATHS
/* Cells to pixels (the layouts of init_run_avx2), 8 pixels per step, while the step holds
 * values only, or (with @prev) tokens that find values in band b − 1's seam (@prev, region
 * positions [plo, phi)): a top row of band b in settle_kept (). @s: the source row's
 * pixels under @d (RGBA8's alpha). Returns the pixels done (see settle_cell for the rest). */
__attribute__ ((target ("avx2"))) static G_ALWAYS_INLINE inline int
out_run_avx2 (guint8        *d,
              const guint8  *s,
              const guint32 *cells,
              int            n,
              const guint32 *prev,
              guint32        plo,
              guint32        phi,
              gsize          pb)
{
  const __m256i low31 = _mm256_set1_epi32 (0x7fffffff);
  const __m256i vplo = _mm256_set1_epi32 ((int) plo);
  /* plo ≤ q < phi as signed comparisons of q − 2³¹ (positions are below 2³¹) */
  const __m256i bias = _mm256_set1_epi32 ((int) 0x80000000u);
  const __m256i vplo1 = _mm256_set1_epi32 ((int) ((plo - 1) ^ 0x80000000u));
  const __m256i vphi = _mm256_set1_epi32 ((int) (phi ^ 0x80000000u));
  int x = 0;

  for (; x + 8 <= n; x += 8)
    {
      __m256i c = _mm256_loadu_si256 ((const __m256i *) (const void *) (cells + x));

      if (_mm256_movemask_ps (_mm256_castsi256_ps (c)) != 0)
        {
          __m256i tok = _mm256_srai_epi32 (c, 31);
          __m256i qb = _mm256_xor_si256 (_mm256_and_si256 (c, low31), bias);
          __m256i inside = _mm256_and_si256 (_mm256_cmpgt_epi32 (vphi, qb),
                                             plo == 0 ? tok : _mm256_cmpgt_epi32 (qb, vplo1));

          if (prev == NULL || _mm256_movemask_ps (_mm256_castsi256_ps (_mm256_andnot_si256 (inside, tok))) != 0)
            break;
          c = _mm256_mask_i32gather_epi32 (c, (const int *) prev,
                                           _mm256_sub_epi32 (_mm256_and_si256 (c, low31), vplo), tok, 4);
          if (_mm256_movemask_ps (_mm256_castsi256_ps (c)) != 0)
            break;
        }
      store_run_avx2 (d + pb * (gsize) x, s + pb * (gsize) x, c, pb);
    }
  return x;
}

#define SPREAD_OUT_LAYOUT(pb_)                                                                     \
  __attribute__ ((target ("avx2"))) static int                                                     \
  out_run_avx2_##pb_ (guint8 *d, const guint8 *s, const guint32 *cells, int n,                     \
                      const guint32 *prev, guint32 plo, guint32 phi)                               \
  {                                                                                                \
    return out_run_avx2 (d, s, cells, n, prev, plo, phi, pb_);                                     \
  }
SPREAD_OUT_LAYOUT (1)
SPREAD_OUT_LAYOUT (2)
SPREAD_OUT_LAYOUT (3)
SPREAD_OUT_LAYOUT (4)

typedef int (*OutRunFunc) (guint8 *d, const guint8 *s, const guint32 *cells, int n,
                           const guint32 *prev, guint32 plo, guint32 phi);
static const OutRunFunc out_runs[4] = { out_run_avx2_1, out_run_avx2_2, out_run_avx2_3,
                                        out_run_avx2_4 };
#endif

/* Band b's cells of image rows [ya, yb) (window @ring from image row @base) to the output:
 * values at once, tokens below region position @tok_lim (band b − 1 decides them) to
 * @deferred, other tokens from the source. Alpha comes from the same pixel of the source. */
static G_ALWAYS_INLINE inline void
out_rows (const LbSpread    *st,
          const LbKernelBuf *src,
          LbKernelBuf       *dst,
          const guint32     *ring,
          int                base,
          int                ya,
          int                yb,
          guint32            tok_lim,
          GArray            *deferred,
          gsize              cb,
          gsize              pb)
{
  int w = st->r.width, sy = st->r.y;
  G_GNUC_UNUSED gboolean avx2 = use_avx2 (st);

  for (int y = ya; y < yb; y++)
    {
      const guint32 *cells = ring + (gsize) (y - base) * w;
      guint8 *d = lb_kbuf_row (dst, y) + (gsize) st->r.x * pb;
      const guint8 *s = lb_kbuf_row (src, y) + (gsize) st->r.x * pb;
      guint32 p0 = (guint32) ((gsize) (y - sy) * w);

      for (int x = 0; x < w;)
        {
          int xe;

#ifdef HAVE_AVX2_PATHS
          if (avx2 && avx2_layout (cb, pb))
            {
              int n = out_runs[pb - 1] (d + (gsize) x * pb, s + (gsize) x * pb, cells + x, w - x,
                                        NULL, 0, 0);

              x += n;
            }
#endif
          /* pixel by pixel up to the next step of 8 */
          for (xe = MIN (w, x + 8); x < xe; x++)
            {
              guint8 *dp = d + (gsize) x * pb;
              guint32 c = cells[x];

              if (G_LIKELY (!(c & TOKEN)))
                store_value (dp, c, cb);
              else if ((c & ~TOKEN) < tok_lim)
                {
                  Deferred e = { p0 + (guint32) x, c & ~TOKEN };

                  g_array_append_val (deferred, e);
                }
              else
                memcpy (dp, source_pixel (st, src, c & ~TOKEN), cb);
              if (pb > cb)
                memcpy (dp + cb, s + (gsize) x * pb + cb, pb - cb);
            }
        }
    }
}

/* Band @b of rows [r0, r1): see "Banded path" above. */
static G_ALWAYS_INLINE inline void
band_run (const LbSpread    *st,
          const LbKernelBuf *src,
          LbKernelBuf       *dst,
          int                b,
          gsize              cb,
          gsize              pb)
{
  int w = st->r.width, sy = st->r.y, ey = st->r.y + st->r.height, reach = st->reach;
  int r0 = sy + b * st->band_rows, r1 = MIN (r0 + st->band_rows, ey);
  /* the rows its swaps reach, and the rows it writes to the output ([e0, out1): later bands
   * reach no higher than r1 − reach) */
  int e0 = MAX (sy, r0 - reach), e1 = MIN (ey, r1 + reach);
  gboolean last = b == st->n_bands - 1;
  int out1 = last ? ey : MAX (sy, r1 - reach);
  int lane_rows = st->lane_rows, chunk = LANES * lane_rows;
  int n_ring = ring_rows (st, e1 - e0);
  /* values where no earlier band reaches, if a pixel fits 31 bits; band b − 1 decides the
   * tokens of the rows above r0 + reach */
  int vfrom = cb > 3 ? e1 : (b == 0 ? e0 : MIN (e1, r0 + reach));
  guint32 tok_lim = b == 0 ? 0 : (guint32) ((gsize) (MIN (ey, r0 + reach) - sy) * w);
  int skew = (int) MIN (2 * (gint64) st->px + 1, w);
  gboolean avx2 = use_avx2 (st);
  BandOut *out = &((LbSpread *) st)->bands[b];
  guint32 *ring = g_new (guint32, (gsize) n_ring * w);
  guint32 (*parts)[LANES] = g_malloc ((gsize) lane_rows * w * sizeof *parts);
  LbXvRandomLanes *rng = g_new (LbXvRandomLanes, 1);
  int base = e0, inited = e0, outed = e0;
  gboolean top_published = FALSE;

  g_clear_pointer (&out->seam, g_free);
  g_clear_pointer (&out->top, g_free);
  g_clear_pointer (&out->deferred, g_array_unref);
  out->deferred = g_array_new (FALSE, FALSE, sizeof (Deferred));
  /* its first output rows, where band b − 1 decides most pixels, are kept whole: the 2 · reach
   * rows band b − 1 reaches, and a reach more, where tokens that moved down from them are
   * still dense (against 1 · reach: the list shrinks from 1281 pixels to 134 at 1.4 Mpx;
   * 0.90–1.07 of the time per pass on 2 threads, 0.98 as the geometric mean of both link
   * orders) */
  out->top_y0 = out->top_y1 = e0;
  if (b > 0)
    {
      out->top_y1 = MIN (out1, MIN (ey, r0 + 2 * reach));
      out->top = g_new (guint32, (gsize) (out->top_y1 - out->top_y0) * w);
    }
  /* lane k of chunk c draws for rows r0 + (c · LANES + k) · lane_rows … (2 draws a pixel) */
  lb_xv_random_lanes_seed (rng, st->seed, 2 * (guint64) (r0 - sy) * (guint64) w,
                           2 * (guint64) lane_rows * (guint64) w);
  for (int y = r0; y < r1; y += chunk)
    {
      int rows = MIN (chunk, r1 - y), hi = MIN (e1, y + rows + reach), fin;
      Draws dr = { st, { 0 }, { 0 }, { 0 }, 0, 0 };

      if (y > r0)
        lb_xv_random_lanes_jump (rng);
      /* the window must hold rows [y − reach, hi): slide it down (a few rows of cells move) */
      if (hi > base + n_ring)
        {
          int keep = MIN (outed, MAX (e0, y - reach));

          memmove (ring, ring + (gsize) (keep - base) * w,
                   (gsize) (inited - keep) * w * sizeof (guint32));
          base = keep;
        }
      for (int k = 0; k < LANES; k++)
        {
          /* lanes past the region draw as if in its last row, and are ignored */
          dr.r0[k] = y - sy + k * lane_rows;
          dr.y[k] = MIN (dr.r0[k], st->r.height - 1);
          dr.e0[k] = base - sy;
        }
      _lb_spread_band_draws (&dr, rng, avx2, parts, (gsize) lane_rows * w);
      ring_init (st, src, ring, base, inited, hi, vfrom, cb);
      inited = hi;
      swap_cells (ring, parts[0], y - base, rows, w, skew, lane_rows);
      /* no later swap of the band reaches above y + rows − reach */
      fin = y + rows >= r1 ? out1 : MIN (out1, MAX (outed, y + rows - reach));
      for (; outed < MIN (fin, out->top_y1); outed++)
        memcpy (out->top + (gsize) (outed - out->top_y0) * w, ring + (gsize) (outed - base) * w,
                (gsize) w * sizeof (guint32));
      if (!top_published && outed >= out->top_y1)
        {
          /* another thread may settle them now (band_finished) */
          g_mutex_lock (&((LbSpread *) st)->lock);
          out->top_ready = TRUE;
          g_mutex_unlock (&((LbSpread *) st)->lock);
          top_published = TRUE;
        }
      out_rows (st, src, dst, ring, base, outed, fin, tok_lim, out->deferred, cb, pb);
      outed = MAX (outed, fin);
    }
  if (!last)
    {
      out->seam_y0 = out1;
      out->seam_y1 = e1;
      out->seam = g_memdup2 (ring + (gsize) (out1 - base) * w,
                             (gsize) (e1 - out1) * w * sizeof (guint32));
    }
  g_free (rng);
  g_free (parts);
  g_free (ring);
}

/* the colour of cell @c of band @b's final cells to @d: a value, or a token settled through
 * the earlier bands' seams (band b − 1 decides positions above row r0_b + reach) or in the
 * source */
static G_ALWAYS_INLINE inline void
settle_cell (const LbSpread    *st,
             const LbKernelBuf *src,
             int                b,
             guint32            c,
             guint8            *d,
             gsize              cb)
{
  int w = st->r.width, sy = st->r.y, ey = st->r.y + st->r.height;

  while (c & TOKEN)
    {
      guint32 q = c & ~TOKEN;
      int r0 = sy + b * st->band_rows;
      const BandOut *prev;

      if (b == 0 || q >= (guint32) ((gsize) (MIN (ey, r0 + st->reach) - sy) * w))
        {
          memcpy (d, source_pixel (st, src, q), cb);
          return;
        }
      prev = &st->bands[--b];
      c = prev->seam[q - (guint32) ((gsize) (prev->seam_y0 - sy) * w)];
    }
  store_value (d, c, cb);
}

/* band @b's top rows [ya, yb) to the output */
static void
top_rows (const LbSpread    *st,
          const LbKernelBuf *src,
          LbKernelBuf       *dst,
          int                b,
          int                ya,
          int                yb,
          gsize              cb,
          gsize              pb)
{
  const BandOut *out = &st->bands[b], *prev = &st->bands[b - 1];
  int w = st->r.width, sy = st->r.y;
  G_GNUC_UNUSED guint32 plo = (guint32) ((gsize) (prev->seam_y0 - sy) * w);
  G_GNUC_UNUSED guint32 phi = (guint32) ((gsize) (prev->seam_y1 - sy) * w);
  G_GNUC_UNUSED gboolean avx2 = use_avx2 (st);

  for (int y = ya; y < yb; y++)
    {
      const guint32 *cells = out->top + (gsize) (y - out->top_y0) * w;
      guint8 *d = lb_kbuf_row (dst, y) + (gsize) st->r.x * pb;
      const guint8 *s = lb_kbuf_row (src, y) + (gsize) st->r.x * pb;

      for (int x = 0; x < w;)
        {
          int xe;

#ifdef HAVE_AVX2_PATHS
          if (avx2 && avx2_layout (cb, pb))
            x += out_runs[pb - 1] (d + (gsize) x * pb, s + (gsize) x * pb, cells + x, w - x,
                                   prev->seam, plo, phi);
#endif
          for (xe = MIN (w, x + 8); x < xe; x++)
            {
              settle_cell (st, src, b, cells[x], d + (gsize) x * pb, cb);
              if (pb > cb)
                memcpy (d + (gsize) x * pb + cb, s + (gsize) x * pb + cb, pb - cb);
            }
        }
    }
}

/* band @b's kept pixels: its top rows, or its list */
static void
settle_kept (const LbSpread    *st,
             const LbKernelBuf *src,
             LbKernelBuf       *dst,
             int                b,
             gboolean           top)
{
  gsize cb = (gsize) lb_kbuf_color_channels (dst) * (dst->depth / 8);
  gsize pb = (gsize) dst->channels * (dst->depth / 8);
  const BandOut *out = &st->bands[b];

  if (top)
    {
      top_rows (st, src, dst, b, out->top_y0, out->top_y1, cb, pb);
      return;
    }
  for (guint i = 0; i < out->deferred->len; i++)
    {
      const Deferred *e = &g_array_index (out->deferred, Deferred, i);

      settle_cell (st, src, b, e->token | TOKEN, (guint8 *) source_pixel (st, dst, e->pos), cb);
    }
}

/* Under @lock: the pass is over once every band is done and every settling job taken; the
 * flags then start again for the next pass. */
static void
pass_check_over (LbSpread *st)
{
  if (st->n_done < st->n_bands || st->n_claimed < 2 * (st->n_bands - 1))
    return;
  for (int b = 0; b < st->n_bands; b++)
    {
      BandOut *o = &st->bands[b];

      o->done = o->top_ready = o->top_claimed = o->deferred_claimed = FALSE;
    }
  st->n_done = st->n_claimed = 0;
}

/* Band @b is done: this thread then settles what has become ready, band k's top rows once
 * bands 0 … k − 1 are done (their seams decide it; it is final early in band k's own pass)
 * and band k's list once bands 0 … k are. So a band that finishes first settles its
 * neighbour's top rows while the neighbour still runs, and when every band has returned, all
 * is settled, without a second parallel loop. */
static void
band_finished (LbSpread          *st,
               const LbKernelBuf *src,
               LbKernelBuf       *dst,
               int                b)
{
  int n = st->n_bands;

  g_mutex_lock (&st->lock);
  st->bands[b].done = st->bands[b].top_ready = TRUE;
  st->n_done++;
  pass_check_over (st);
  for (;;)
    {
      int prefix = 0, job = -1;
      gboolean top = FALSE;

      while (prefix < n && st->bands[prefix].done)
        prefix++;
      for (int k = 1; k < n && job < 0; k++)
        {
          BandOut *o = &st->bands[k];

          if (k <= prefix && o->top_ready && !o->top_claimed)
            {
              o->top_claimed = TRUE;
              top = TRUE;
              job = k;
            }
          else if (k < prefix && !o->deferred_claimed)
            {
              o->deferred_claimed = TRUE;
              job = k;
            }
        }
      if (job < 0)
        break;
      st->n_claimed++;
      pass_check_over (st);
      g_mutex_unlock (&st->lock);
      settle_kept (st, src, dst, job, top);
      g_mutex_lock (&st->lock);
    }
  g_mutex_unlock (&st->lock);
}

void
lb_spread_process_band (const LbSpread    *st,
                        const LbKernelBuf *src,
                        LbKernelBuf       *dst,
                        int                b)
{
  gsize cb = (gsize) lb_kbuf_color_channels (dst) * (dst->depth / 8);
  gsize pb = (gsize) dst->channels * (dst->depth / 8);

  g_return_if_fail (b >= 0 && b < lb_spread_get_n_bands (st));
  g_return_if_fail (st->banded);
  /* the layouts the filter must support, RGB16 and the rest */
  if (cb == 1 && pb == 1)
    band_run (st, src, dst, b, 1, 1);
  else if (cb == 2 && pb == 2)
    band_run (st, src, dst, b, 2, 2);
  else if (cb == 3 && pb == 3)
    band_run (st, src, dst, b, 3, 3);
  else if (cb == 3 && pb == 4)
    band_run (st, src, dst, b, 3, 4);
  /* gray+alpha and 16-bit colour with constant sizes too: through the generic call GRAYA8
   * spread 5 took 4.0 ms against GRAY8's 1.6 (1.4 Mpx, 2 threads) */
  else if (cb == 1 && pb == 2)
    band_run (st, src, dst, b, 1, 2);
  else if (cb == 2 && pb == 4)
    band_run (st, src, dst, b, 2, 4);
  else if (cb == 6 && pb == 6)
    band_run (st, src, dst, b, 6, 6);
  else if (cb == 6 && pb == 8)
    band_run (st, src, dst, b, 6, 8);
  else
    band_run (st, src, dst, b, cb, pb);
  band_finished ((LbSpread *) st, src, dst, b);
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
