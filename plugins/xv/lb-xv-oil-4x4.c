/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-oil"

/* xv's oil on xv's own 4×4 window (size 0): output pixels as byte lanes (below). */

#include "lb-xv-oil-private.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* 16-bit RGB on xv's window: the keys of the four edge columns on each side of four rows
 * (ek[k][0..3]: columns 0..3 of row k, ek[k][4..7]: columns rw − 4 .. rw − 1) as numbers,
 * the index of the first of the 32 with the same colour, since fill_keys's 32 bits cannot
 * hold a 48-bit colour. */
static void
edge_keys_wide (guint32 ek[4][8], const guint8 *const srow[4], int rw, int ch)
{
  guint64 c[32];

  for (int k = 0; k < 4; k++)
    for (int i = 0; i < 8; i++)
      c[k * 8 + i] = colour_key (srow[k], (gsize) (i < 4 ? i : rw - 8 + i) * ch, 3, 16);
  for (int i = 0; i < 32; i++)
    {
      int j = 0;

      while (c[j] != c[i])
        j++;
      ek[i / 8][i % 8] = (guint32) j;
    }
}

/* xv's 4×4 window on rows whose four window rows are all in the region, with the output
 * pixels as vector lanes (16 bytes: 16 pixels per vector op).
 *
 * Equal-key masks are computed once per pair of image rows at most 3 apart and per column
 * offset dx (−3..3), as bytes (16 if equal, else 0), and kept in a ring of 4 rows: each image
 * row, when it becomes the bottom row of a window, is compared with itself (dx 1..3) and the
 * three rows above (dx −3..3), 24 masks, reused by the next three output rows. For window row
 * a and absolute column X, V_a(dx)(X) sums the masks of pixel (a, X) against the four pixels
 * (c, X + dx), c = 0..3, leaving out the pixel itself; the pixel's count, less one, times 16,
 * in the window whose column b it is (the window at x = X + 2 − b) is then the sum of V_a(dx)
 * over dx = −b..3 − b. Those 16 sums per X (T[a][b]) cost about 16 vector ops per 16 pixels;
 * the window at x loads T[a][b] at x − 2 + b. The winner key (count − 1)·16 + (15 − i), i = 4a +
 * b the raster index, fits a byte (≤ 255), so the unsigned byte max picks the highest count and
 * among equal counts the earliest pixel in raster order. */
typedef guint8 OilBytes __attribute__ ((vector_size (16)));

/* Columns of padding on both sides of every mask and sum row: vector loads at X + dx and at
 * x − 2 + b, and the last partial vector of a row, stay inside the allocation. */
#define XV_PAD 32
#define XV_MASKS 24 /* per image row: dx 1..3 against itself, dx −3..3 against each of 3 rows up */

typedef struct _OilXv {
  int rw;
  gsize stride;     /* bytes per mask/sum row, padding included */
  guint8 *mem;
  int row[4];       /* image row whose masks are in slot row % 4, or −1 */
  int kmax[4];      /* masks against rows up to kmax above it are valid */
  guint8 *mask[4];  /* slot s: XV_MASKS rows of stride bytes */
  int nplanes;      /* bytes of a colour: 1 (gray 8), 2 (gray 16) or 3 (RGB 8) */
  int prow[4];      /* image row whose colour planes are in slot row % 4, or −1 */
  guint8 *plane[4]; /* slot s: nplanes rows of stride bytes, byte p of each colour */
  guint8 *sum;      /* T[a][b]: 16 rows */
  guint8 *best;     /* winning raster index per region column */
  const guint8 *zero; /* a row of zeros */
} OilXv;

static void
oil_xv_init (OilXv *xv, int rw, int nplanes)
{
  const gsize stride = (gsize) rw + 2 * XV_PAD + 16;

  xv->rw = rw;
  xv->stride = stride;
  xv->nplanes = nplanes;
  /* Zeroed: the padding is read (never used for a result) and must be defined. */
  xv->mem = g_malloc0 (stride * (4 * XV_MASKS + 16 + 1 + 4 * nplanes + 1));
  for (int s = 0; s < 4; s++)
    {
      xv->row[s] = -1;
      xv->kmax[s] = -1;
      xv->mask[s] = xv->mem + stride * s * XV_MASKS;
      xv->prow[s] = -1;
      xv->plane[s] = xv->mem + stride * (4 * XV_MASKS + 17 + s * nplanes) + XV_PAD;
    }
  xv->sum = xv->mem + stride * 4 * XV_MASKS;
  xv->best = xv->sum + stride * 16;
  xv->zero = xv->mem + stride * (4 * XV_MASKS + 17 + 4 * nplanes) + XV_PAD;
}

/* Splits the colours of a source row (from the region's first column) into byte planes: one
 * byte compare per plane and 32 pixels per AVX2 op, where a 32-bit key compare handles 8. */
LB_XV_INLINE void
oil_xv_split (guint8 *restrict pl, gsize stride, const guint8 *restrict row, int rw, const int ch,
              const int depth)
{
  if (depth == 16)
    for (int c = 0; c < lb_xv_colour_channels (ch); c++)
      for (int x = 0; x < rw; x++)
        {
          guint16 v;

          /* two planes per channel: low bytes, high bytes */
          memcpy (&v, row + ((gsize) x * ch + c) * 2, sizeof v);
          pl[2 * c * stride + x] = (guint8) v;
          pl[(2 * c + 1) * stride + x] = (guint8) (v >> 8);
        }
  else
    for (int c = 0; c < lb_xv_colour_channels (ch); c++)
      for (int x = 0; x < rw; x++)
        pl[c * stride + x] = row[(gsize) x * ch + c];
}

LB_KERNEL_CLONES static void
oil_xv_fill (OilXv *xv, const guint8 *row, int s, int ch, int depth)
{
  guint8 *pl = xv->plane[s];

  if (depth == 16 && ch <= 2)
    oil_xv_split (pl, xv->stride, row, xv->rw, ch == 1 ? 1 : 2, 16);
  else if (depth == 16)
    oil_xv_split (pl, xv->stride, row, xv->rw, ch == 3 ? 3 : 4, 16);
  else if (ch == 1)
    oil_xv_split (pl, xv->stride, row, xv->rw, 1, 8);
  else if (ch == 2)
    oil_xv_split (pl, xv->stride, row, xv->rw, 2, 8);
  else if (ch == 3)
    oil_xv_split (pl, xv->stride, row, xv->rw, 3, 8);
  else
    oil_xv_split (pl, xv->stride, row, xv->rw, 4, 8);
}

/* Mask row index within a slot: k = 0 (the row itself, dx 1..3) or k rows up (dx −3..3). */
static inline int
xv_mask_index (int k, int dx)
{
  return k == 0 ? dx - 1 : 3 + (k - 1) * 7 + dx + 3;
}

/* m[X] = 16 if the colour at top[X] equals the one at bot[X + dx] (all @np planes), for the X
 * where both exist. */
LB_XV_INLINE void
oil_xv_eq_planes (guint8 *restrict m, const guint8 *restrict top, const guint8 *restrict bot,
                  gsize st, int rw, int dx, const int np)
{
  const int xa = MAX (0, -dx), xb = MIN (rw, rw - dx);

  for (int x = xa; x < xb; x++)
    {
      int e = top[x] == bot[x + dx];

      for (int p = 1; p < np; p++)
        e &= top[p * st + x] == bot[p * st + x + dx];
      m[x] = (guint8) (e << 4);
    }
}

LB_KERNEL_CLONES static void
oil_xv_eq (guint8 *restrict m, const guint8 *restrict top, const guint8 *restrict bot, gsize st,
           int rw, int dx, int np)
{
  if (np == 1)
    oil_xv_eq_planes (m, top, bot, st, rw, dx, 1);
  else if (np == 2)
    oil_xv_eq_planes (m, top, bot, st, rw, dx, 2);
  else if (np == 3)
    oil_xv_eq_planes (m, top, bot, st, rw, dx, 3);
  else
    oil_xv_eq_planes (m, top, bot, st, rw, dx, 6);
}

/* The masks of image row @r against rows up to @k above (their planes are in the ring). */
static void
oil_xv_masks (OilXv *xv, int r, int k)
{
  const int s = r & 3;

  for (int kk = 0; kk <= k; kk++)
    for (int dx = kk == 0 ? 1 : -3; dx <= 3; dx++)
      oil_xv_eq (xv->mask[s] + (gsize) xv_mask_index (kk, dx) * xv->stride + XV_PAD,
                 xv->plane[(r - kk) & 3], xv->plane[s], xv->stride, xv->rw, dx, xv->nplanes);
  xv->row[s] = r;
  xv->kmax[s] = k;
}

/* Unsigned byte maximum: one SSE2 instruction, a compare and a select elsewhere. */
static inline OilBytes
umax (OilBytes a, OilBytes b)
{
#ifdef __SSE2__
  __m128i x, y;

  memcpy (&x, &a, sizeof x), memcpy (&y, &b, sizeof y);
  x = _mm_max_epu8 (x, y);
  memcpy (&a, &x, sizeof a);
  return a;
#else
  const OilBytes gt = (OilBytes) (a > b);

  return (a & gt) | (b & ~gt);
#endif
}

static inline OilBytes
ld (const guint8 *p)
{
  OilBytes v;

  memcpy (&v, p, sizeof v);
  return v;
}

/* T[a][b] for every column, then the winners of the windows at columns 2 .. rw − 2. */
LB_KERNEL_CLONES static void
oil_xv_row_sums (OilXv *xv, int r0)
{
  const gsize st = xv->stride;
  /* p[a][dx + 3][c]: mask row of pixel (a, X) against (c, X + dx), at X = 0: stored at the
   * lower row of the pair, at the column of the upper one; the pixel itself (c = a, dx = 0)
   * is left out (a zero row). sum[i]: T[a][b] at X = 0, i = 4a + b. Pointers from tables
   * indexed by constants in the unrolled loops: one scalar load per vector load, where
   * computing slot + index · stride at each load spilled registers. */
  const guint8 *p[4][7][4];
  guint8 *sum[16];
  const guint8 *zero = xv->zero;

  for (int a = 0; a < 4; a++)
    for (int dx = -3; dx <= 3; dx++)
      for (int c = 0; c < 4; c++)
        {
          const guint8 *sa = xv->mask[(r0 + a) & 3] + XV_PAD, *sc = xv->mask[(r0 + c) & 3] + XV_PAD;

          if (c > a)
            p[a][dx + 3][c] = sc + (gsize) xv_mask_index (c - a, dx) * st;
          else if (c < a)
            p[a][dx + 3][c] = sa + (gsize) xv_mask_index (a - c, -dx) * st + dx;
          else if (dx != 0)
            p[a][dx + 3][c] = sa + (gsize) xv_mask_index (0, ABS (dx)) * st + MIN (dx, 0);
          else
            p[a][dx + 3][c] = zero;
        }
  for (int i = 0; i < 16; i++)
    sum[i] = xv->sum + (gsize) i * st + XV_PAD;

  for (int X = 0; X < xv->rw; X += 32)
#pragma GCC unroll 4
    for (int a = 0; a < 4; a++)
      {
        /* t[b][h]: T[a][b] at columns X + 16h; V(dx) goes to the b with −b ≤ dx ≤ 3 − b. */
        OilBytes t[4][2] = { { { 0 } } };

#pragma GCC unroll 7
        for (int dx = -3; dx <= 3; dx++)
          {
            OilBytes v0 = ld (p[a][dx + 3][0] + X), v1 = ld (p[a][dx + 3][0] + X + 16);

#pragma GCC unroll 3
            for (int c = 1; c < 4; c++)
              {
                v0 += ld (p[a][dx + 3][c] + X);
                v1 += ld (p[a][dx + 3][c] + X + 16);
              }
#pragma GCC unroll 4
            for (int b = 0; b < 4; b++)
              if (b >= -dx && b <= 3 - dx)
                t[b][0] += v0, t[b][1] += v1;
          }
#pragma GCC unroll 4
        for (int b = 0; b < 4; b++)
          {
            memcpy (sum[4 * a + b] + X, &t[b][0], sizeof t[b][0]);
            memcpy (sum[4 * a + b] + X + 16, &t[b][1], sizeof t[b][1]);
          }
      }

  for (int x = 2; x <= xv->rw - 2; x += 16)
    {
      OilBytes m = { 0 };

#pragma GCC unroll 16
      for (int i = 0; i < 16; i++)
        m = umax (m, ld (sum[i] + x - 2 + i % 4) + (guint8) (15 - i));
      m = (guint8) 15 - (m & (guint8) 15);
      memcpy (xv->best + XV_PAD + x, &m, sizeof m);
    }
}

/* Output columns j0..j1 (region-relative) from the winners: colour of window pixel best[j]
 * of the window whose top-left pixel is (j − 2, row srow[0]). @ch is a constant at each call
 * site, so the colour copy is a fixed number of loads and stores. */
LB_XV_INLINE void
oil_xv_copy (const guint8 *const srow[4], guint8 *out, const guint8 *best, int j0, int j1,
             const int ch, const int depth)
{
  const int nc = lb_xv_colour_channels (ch);

  for (int j = j0; j <= j1; j++)
    {
      const int b = best[j];
      const guint8 *row = srow[b >> 2];
      const gsize si = (gsize) (j - 2 + (b & 3)) * ch, di = (gsize) j * ch;

      for (int c = 0; c < nc; c++)
        lb_xv_put (out, di + c, lb_xv_get (row, si + c, depth), depth);
    }
}

/* Winners of the unclipped windows (columns 2 .. rw − 2) of the output row whose window rows
 * are image rows r0 .. r0 + 3 (source rows srow, from the region's first column), as raster
 * indices in xv->best[XV_PAD + x]. */
static void
oil_xv_row (OilXv *xv, const guint8 *const srow[4], int r0, int ch, int depth)
{
  for (int c = 0; c < 4; c++)
    if (xv->prow[(r0 + c) & 3] != r0 + c)
      {
        oil_xv_fill (xv, srow[c], (r0 + c) & 3, ch, depth);
        xv->prow[(r0 + c) & 3] = r0 + c;
      }
  /* Row r0 + c needs masks against the c rows above it in this window. A row seen first as
   * the bottom row (c = 3) gets all three, so later windows find them; at a band's first row
   * the upper rows get what this window needs. */
  for (int c = 0; c < 4; c++)
    {
      const int r = r0 + c, s = r & 3;

      if (xv->row[s] != r || xv->kmax[s] < c)
        oil_xv_masks (xv, r, c);
    }
  oil_xv_row_sums (xv, r0);
}

/* A band's state for xv's window over @rw region columns and @nplanes bytes per colour. */
OilXv *
_lb_xv_oil_xv_new (int rw, int nplanes)
{
  OilXv *xv = g_new0 (OilXv, 1);

  oil_xv_init (xv, rw, nplanes);
  return xv;
}

void
_lb_xv_oil_xv_free (OilXv *xv)
{
  g_free (xv->mem);
  g_free (xv);
}

/* Output row @out on xv's window whose four rows (all in the region) start at image row
 * @wy0. Unclipped windows (columns 2 .. rw − 2): output pixels as vector lanes; the three
 * clipped ones by mode_small on keys of the four edge columns each side (the key ring is
 * left alone: filling it cost as much as the colour copy). */
LB_XV_INLINE void
oil_xv_put_row (OilXv *xv, const LbXvOil *self, const LbKernelBuf *src, guint8 *out, int wy0,
                const int depth)
{
  const LbXvRegion *R = &self->region;
  const int rw = R->x1 - R->x0;
  const gboolean wide = depth == 16 && lb_xv_colour_channels (src->channels) == 3;
  const gsize px = (gsize) R->x0 * src->channels * (depth / 8);
  const guint8 *srow[4];
  guint32 ek[4][8];
  const guint32 *kr[4] = { ek[0], ek[1], ek[2], ek[3] };

  for (int k = 0; k < 4; k++)
    {
      srow[k] = lb_xv_row (src, wy0 + k) + px;
      if (!wide)
        {
          fill_keys (ek[k], srow[k], 0, 4, src->channels, depth);
          fill_keys (ek[k] + 4, srow[k] + (gsize) (rw - 4) * src->channels * (depth / 8),
                     0, 4, src->channels, depth);
        }
    }
  if (wide)
    edge_keys_wide (ek, srow, rw, src->channels);
  oil_xv_row (xv, srow, wy0, src->channels, depth);
  switch (src->channels)
    {
    case 1: oil_xv_copy (srow, out + px, xv->best + XV_PAD, 2, rw - 2, 1, depth); break;
    case 2: oil_xv_copy (srow, out + px, xv->best + XV_PAD, 2, rw - 2, 2, depth); break;
    case 3: oil_xv_copy (srow, out + px, xv->best + XV_PAD, 2, rw - 2, 3, depth); break;
    default: oil_xv_copy (srow, out + px, xv->best + XV_PAD, 2, rw - 2, 4, depth); break;
    }
  for (int j = 0; j < rw; j = j == 1 ? rw - 1 : j + 1)
    {
      /* ek holds columns 0..3 at 0..3 and rw − 4 .. rw − 1 at 4..7. */
      const int jx0 = MAX (0, j - 2), jx1 = MIN (rw - 1, j + 1);
      const int off = j < 2 ? 0 : 8 - rw;
      const int best = mode_small (kr, 4, jx0 + off, jx1 + off);
      const int wcols = jx1 - jx0 + 1;

      copy_colour (src, R->x0 + jx0 + best % wcols, wy0 + best / wcols, out, R->x0 + j, depth);
    }
}

/* One function per depth, each with its own inlining budget, as oil_fast_rows8 and
 * oil_fast_rows16 (lb-xv-oil.c) have: with both depths' loops in the entry, GCC may
 * call out of line what it inlines for one depth alone. */
static __attribute__ ((noinline)) void
oil_xv_put_row8 (OilXv *xv, const LbXvOil *self, const LbKernelBuf *src, guint8 *out, int wy0)
{
  oil_xv_put_row (xv, self, src, out, wy0, 8);
}

static __attribute__ ((noinline)) void
oil_xv_put_row16 (OilXv *xv, const LbXvOil *self, const LbKernelBuf *src, guint8 *out, int wy0)
{
  oil_xv_put_row (xv, self, src, out, wy0, 16);
}

void
_lb_xv_oil_xv_put_row (OilXv *xv, const LbXvOil *self, const LbKernelBuf *src, guint8 *out,
                       int wy0)
{
  if (src->depth == 8)
    oil_xv_put_row8 (xv, self, src, out, wy0);
  else
    oil_xv_put_row16 (xv, self, src, out, wy0);
}
