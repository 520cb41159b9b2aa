/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-oil"

#include "lb-xv-oil.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

gboolean
lb_xv_oil_prepare (LbXvOil            *self,
                   const LbKernelBuf  *src,
                   const LbKernelRect *selection,
                   int                 size,
                   GError            **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (size != 0 && (size < 1 || size % 2 == 0 || size > 255))
    {
      g_set_error (error, LB_KERNEL_ERROR, LB_KERNEL_ERROR_INVALID_ARGUMENT,
                   "oil: the window size must be 0 (xv's 4×4 window) or odd between 1 and "
                   "255, not %d", size);
      return FALSE;
    }
  if (!_lb_xv_region_init (&self->region, src, selection, "oil", error))
    return FALSE;
  self->size = size;
  self->up = size == 0 ? 2 : size / 2;
  self->down = size == 0 ? 1 : size / 2;
  return TRUE;
}

/* The colour of the pixel at sample offset i as one number: channels packed 16 bits apart. */
LB_XV_INLINE guint64
colour_key (const guint8 *row, gsize i, int nc, const int depth)
{
  guint64 k = 0;

  for (int c = 0; c < nc; c++)
    k |= (guint64) lb_xv_get (row, i + c, depth) << (16 * c);
  return k;
}

LB_XV_INLINE void
copy_colour (const LbKernelBuf *src, int sx, int sy, guint8 *out, int x, const int depth)
{
  const int ch = src->channels, nc = lb_xv_colour_channels (ch);
  const guint8 *row = lb_xv_row (src, sy);

  for (int c = 0; c < nc; c++)
    lb_xv_put (out, (gsize) x * ch + c, lb_xv_get (row, (gsize) sx * ch + c, depth), depth);
}

LB_XV_INLINE void
oil_ref_rows (const LbXvOil     *self,
              const LbKernelBuf *src,
              LbKernelBuf       *dst,
              int                ya,
              int                yb,
              const int          depth)
{
  const LbXvRegion *R = &self->region;
  const int ch = src->channels;
  const int nc = lb_xv_colour_channels (ch);
  const int side = self->up + self->down + 1;
  g_autofree guint64 *keys = g_new (guint64, (gsize) side * side);
  g_autofree int *xs = g_new (int, (gsize) side * side);
  g_autofree int *ys = g_new (int, (gsize) side * side);

  for (int y = ya; y < yb; y++)
    {
      guint8 *out = lb_xv_row_mut (dst, y);

      for (int x = R->x0; x < R->x1; x++)
        {
          int n = 0, best = 0, best_count = 0;

          /* The window in raster order, clipped to the region. */
          for (int yy = MAX (R->y0, y - self->up); yy <= MIN (R->y1 - 1, y + self->down); yy++)
            for (int xx = MAX (R->x0, x - self->up); xx <= MIN (R->x1 - 1, x + self->down); xx++)
              {
                keys[n] = colour_key (lb_xv_row (src, yy), (gsize) xx * ch, nc, depth);
                xs[n] = xx;
                ys[n] = yy;
                n++;
              }
          /* Only a strictly larger count replaces the best: ties keep the earliest. */
          for (int i = 0; i < n; i++)
            {
              int count = 0;

              for (int j = 0; j < n; j++)
                count += keys[j] == keys[i];
              if (count > best_count)
                best_count = count, best = i;
            }
          copy_colour (src, xs[best], ys[best], out, x, depth);
        }
    }
}

LB_XV_DEFINE_PROCESS (lb_xv_oil_process_ref, LbXvOil, oil_ref_rows)

/* ---- optimised path ------------------------------------------------------------------- */

/* Four SSE-sized vectors make the 16 lanes: GCC lowers a 64-byte generic vector to scalar
 * code on plain x86-64, but maps 16-byte ones straight onto SSE2. */
typedef guint32 OilVec __attribute__ ((vector_size (16)));

/* A 32-bit key no colour can have: 24-bit RGB8 and 16-bit gray keys stay below 2^24. */
#define OIL_PAD(lane) (0xff000000u | (guint32) (lane))

/* Ring of packed key rows: key row yy lives at slot yy % nrows. */
typedef struct {
  guint32 *keys;
  int nrows;
  int rw;
} KeyRing;

static inline const guint32 *
ring_row (const KeyRing *ring, int yy)
{
  return ring->keys + (gsize) (yy % ring->nrows) * ring->rw;
}

/* Keys of the pixels j0..j1-1 of a row (from the region's first column) into k[j0..j1-1]. */
LB_XV_INLINE void
fill_keys (guint32 *k, const guint8 *row, int j0, int j1, const int ch, const int depth)
{
  if (lb_xv_colour_channels (ch) == 3)
    for (int j = j0; j < j1; j++)
      k[j] = lb_xv_get (row, (gsize) j * ch, depth) | lb_xv_get (row, (gsize) j * ch + 1, depth) << 8
             | lb_xv_get (row, (gsize) j * ch + 2, depth) << 16;
  else
    for (int j = j0; j < j1; j++)
      k[j] = lb_xv_get (row, (gsize) j * ch, depth);
}

/* RGB colours renumbered 0, 1, 2 … in order of first appearance in a band's rows, so that the
 * window's counts are a direct table (see oil_fast_rows): one hash probe per pixel read
 * instead of one per count update (2 · side per output pixel). Open addressing, linear
 * probing; a slot holds key + 1 (0: empty) and the colour's number side by side.
 *
 * 16-bit RGB (RGB16, RGBA16: "wide"): the 48-bit colours do not fit the 32-bit keys every
 * path compares, so every window size counts numbers, and the palette keeps the colour
 * (colour_key + 1) in a second array: wide[i], with the number in slots[i]. */
typedef struct {
  guint32 *slots;    /* [2 · size]: key + 1, number; wide: [size] numbers */
  guint64 *wide;     /* wide palettes: [size] colour_key + 1 (0: empty); else NULL */
  guint64 *colour;   /* wide palettes: [max_colours] the colour_key of each number */
  guint32 mask;
  int shift;         /* 32 − log2 (size) */
  guint32 n;         /* numbers given so far */
} Palette;

/* slots for @max_colours numbers, at most half full */
static gsize
palette_size (gsize max_colours)
{
  gsize size = 1;

  while (size < 2 * max_colours)
    size <<= 1;
  return size;
}

/* bytes of a palette for @max_colours numbers */
static gsize
palette_bytes (gsize max_colours, gboolean wide)
{
  return wide ? palette_size (max_colours) * (sizeof (guint64) + sizeof (guint32))
                + max_colours * sizeof (guint64)
              : palette_size (max_colours) * 2 * sizeof (guint32);
}

static void
palette_init (Palette *p, gsize max_colours, gboolean wide)
{
  gsize size = palette_size (max_colours);

  p->slots = g_new0 (guint32, wide ? size : 2 * size);
  p->wide = wide ? g_new0 (guint64, size) : NULL;
  p->colour = wide ? g_new (guint64, max_colours) : NULL;
  p->mask = (guint32) (size - 1);
  p->shift = 32 - g_bit_storage (size - 1);
  p->n = 0;
}

/* forget every number (the count table must be empty) */
static void
palette_reset (Palette *p)
{
  const gsize size = (gsize) p->mask + 1;

  if (p->wide != NULL)
    memset (p->wide, 0, size * sizeof (guint64));
  else
    memset (p->slots, 0, 2 * size * sizeof (guint32));
  p->n = 0;
}

static void
palette_clear (Palette *p)
{
  g_clear_pointer (&p->slots, g_free);
  g_clear_pointer (&p->wide, g_free);
  g_clear_pointer (&p->colour, g_free);
}

/* The number of 48-bit colour @key (colour_key) in a wide palette. */
static inline guint32
palette_number_wide (Palette *p, guint64 key)
{
  /* Fibonacci hashing on 64 bits: the product's top bits, as for the 32-bit keys. */
  guint32 i = (guint32) ((key * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)) >> (32 + p->shift));

  for (;;)
    {
      if (p->wide[i] == key + 1)
        return p->slots[i];
      if (p->wide[i] == 0)
        {
          p->wide[i] = key + 1;
          p->slots[i] = p->n;
          p->colour[p->n] = key;
          return p->n++;
        }
      i = (i + 1) & p->mask;
    }
}

static inline guint32
palette_number (Palette *p, guint32 key)
{
  guint32 i = (key * 2654435761u) >> p->shift;

  for (;;)
    {
      guint32 *slot = p->slots + 2 * (gsize) i;

      if (slot[0] == key + 1)
        return slot[1];
      if (slot[0] == 0)
        {
          slot[0] = key + 1;
          slot[1] = p->n;
          return p->n++;
        }
      i = (i + 1) & p->mask;
    }
}

LB_XV_INLINE void
ring_fill (KeyRing *ring, const LbKernelBuf *src, const LbXvRegion *R, int yy, Palette *pal,
           const int depth, const gboolean wide)
{
  const int ch = src->channels;
  guint32 *k = ring->keys + (gsize) (yy % ring->nrows) * ring->rw;
  const guint8 *row = lb_xv_row (src, yy) + (gsize) R->x0 * ch * (depth / 8);

  /* @wide: 16-bit RGB, numbered through @pal (never NULL then) */
  if (wide)
    {
      for (int j = 0; j < ring->rw; j++)
        k[j] = palette_number_wide (pal, colour_key (row, (gsize) j * ch, 3, 16));
      return;
    }
  fill_keys (k, row, 0, ring->rw, ch, depth);
  if (pal != NULL)
    for (int j = 0; j < ring->rw; j++)
      k[j] = palette_number (pal, k[j]);
}

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

/* Mode of the window columns [jx0, jx1] of the key rows kr[0..nrows-1] (region-relative
 * columns, at most 16 pixels) by counting all pairs at once; returns the winning pixel's
 * index in raster order of the window. */
static inline int
mode_small (const guint32 *const *kr, int nrows, int jx0, int jx1)
{
  guint32 lanes[16] __attribute__ ((aligned (16)));
  gint32 counts[16] __attribute__ ((aligned (16)));
  OilVec v[4], cnt[4] = { { 0 } };
  gint32 best_key = G_MININT32;
  int n = 0;

  for (int k = 0; k < nrows; k++)
    for (int j = jx0; j <= jx1; j++)
      lanes[n++] = kr[k][j];
  for (int i = n; i < 16; i++)
    lanes[i] = OIL_PAD (i);
  memcpy (v, lanes, sizeof v);
  for (int i = 0; i < n; i++)
    {
      const OilVec b = { lanes[i], lanes[i], lanes[i], lanes[i] };

      for (int q = 0; q < 4; q++)
        cnt[q] += (OilVec) (v[q] == b);
    }
  memcpy (counts, cnt, sizeof counts);
  /* counts[i] is minus the count of lane i (a true comparison is all ones). The key
   * count·16 + (15 − i) is largest for the highest count and, among equal counts, the
   * earliest lane; padding lanes are excluded. */
  for (int i = 0; i < n; i++)
    {
      const gint32 key = -counts[i] * 16 + (15 - i);
      best_key = key > best_key ? key : best_key;
    }
  return 15 - (best_key & 15);
}

/* The symmetric 3×3 window on rows whose three window rows are all in the region, output
 * columns j0 .. j1 − 1 (region-relative, each with a whole window: j0 ≥ 1, j1 ≤ rw − 1),
 * eight output pixels as vector lanes: the nine window keys K_i (i = 3a + b, raster order)
 * are vector loads at column offsets −1..1 of the three key rows, each of the 36 pairs is
 * compared once and its mask (−1 if equal) added to both counts, and the score
 * (count − 1) · 16 + (15 − i) is largest for the highest count and, among equal counts, the
 * earliest pixel, as in mode_small. The winning pixel's key, the OR of the keys masked by
 * score = max, is the colour itself (fill_keys: 24-bit RGB or the one channel). Writes the
 * winners' keys to win[j] and returns the first column it left (the caller finishes the
 * last, fewer than eight, with mode_small). kernels-a-timing test card, 1 thread, three
 * alternating runs, where mode_small ran every pixel: RGB8 40.7–41.0 → 6.8–7.0 ms, GRAY16
 * 40.1–40.3 → 6.2–6.6. */
typedef guint32 OilVec8 __attribute__ ((vector_size (32)));
typedef gint32 OilIVec8 __attribute__ ((vector_size (32)));

LB_KERNEL_CLONES static int
oil_sym3_keys (const guint32 *const kr[3], guint32 *restrict win, int j0, int j1)
{
  int j = j0;

  for (; j + 8 <= j1; j += 8)
    {
      OilVec8 k[9], res = { 0 };
      OilIVec8 c[9], score[9], m;

      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
          memcpy (&k[3 * a + b], kr[a] + j - 1 + b, sizeof k[0]);
      for (int i = 0; i < 9; i++)
        c[i] = (OilIVec8) { 0 };
      /* all 36 pairs unrolled: as loops, GCC kept them rolled and the counts in memory
       * (RGB8 9.2 → 7.0 ms on the test card) */
#pragma GCC unroll 9
      for (int i = 0; i < 9; i++)
#pragma GCC unroll 9
        for (int i2 = i + 1; i2 < 9; i2++)
          {
            const OilIVec8 e = (OilIVec8) (k[i] == k[i2]);

            c[i] += e;
            c[i2] += e;
          }
      for (int i = 0; i < 9; i++)
        score[i] = (15 - i) - c[i] * 16;
      m = score[0];
      for (int i = 1; i < 9; i++)
        {
          const OilIVec8 gt = (OilIVec8) (score[i] > m);

          m = (score[i] & gt) | (m & ~gt);
        }
      for (int i = 0; i < 9; i++)
        res |= k[i] & (OilVec8) (score[i] == m);
      memcpy (win + j, &res, sizeof res);
    }
  return j;
}

/* The colour of key @key (see fill_keys) into pixel @x of @out. */
LB_XV_INLINE void
put_key (guint8 *out, int x, guint32 key, const int ch, const int depth)
{
  if (lb_xv_colour_channels (ch) == 3)
    for (int c = 0; c < 3; c++)
      lb_xv_put (out, (gsize) x * ch + c, (key >> (8 * c)) & 0xff, depth);
  else
    lb_xv_put (out, (gsize) x * ch, key, depth);
}

/* The 16-bit colour @key (colour_key) into pixel @x of @out. */
static inline void
put_colour_key (guint8 *out, int x, guint64 key, const int ch)
{
  for (int c = 0; c < 3; c++)
    lb_xv_put (out, (gsize) x * ch + c, (guint) (key >> (16 * c)) & 0xffff, 16);
}

/* Output row @out on windows of at most 16 pixels, on the key rows @wy0 .. @wy1 of @ring.
 * @win: region width keys of scratch (the symmetric 3×3 window); @colours: the colour of
 * each number when the keys are a wide palette's numbers, else unused. */
LB_XV_INLINE void
oil_small_row (const LbXvOil *self, const LbKernelBuf *src, const KeyRing *ring, guint32 *win,
               const guint64 *colours, guint8 *out, int wy0, int wy1, const int depth)
{
  const LbXvRegion *R = &self->region;
  const int rw = R->x1 - R->x0;
  const int side = self->up + self->down + 1;
  const int nrows = wy1 - wy0 + 1;
  const gboolean wide = depth == 16 && lb_xv_colour_channels (src->channels) == 3;
  const guint32 *kr[16];
  int jv0 = 0, jv1 = 0; /* columns the vector path did */

  for (int k = 0; k < nrows; k++)
    kr[k] = ring_row (ring, wy0 + k);
  if (side == 3 && nrows == 3 && rw >= 10)
    {
      const gsize px = (gsize) R->x0 * src->channels * (depth / 8);

      jv0 = 1;
      jv1 = oil_sym3_keys (kr, win, 1, rw - 1);
      if (wide)
        {
          /* the winners are numbers: their colours from the palette */
          for (int j = jv0; j < jv1; j++)
            put_colour_key (out + px, j, colours[win[j]], src->channels);
        }
      else
        switch (src->channels)
        {
        case 1:
          for (int j = jv0; j < jv1; j++)
            put_key (out + px, j, win[j], 1, depth);
          break;
        case 2:
          for (int j = jv0; j < jv1; j++)
            put_key (out + px, j, win[j], 2, depth);
          break;
        case 3:
          for (int j = jv0; j < jv1; j++)
            put_key (out + px, j, win[j], 3, depth);
          break;
        default:
          for (int j = jv0; j < jv1; j++)
            put_key (out + px, j, win[j], 4, depth);
          break;
        }
    }
  for (int j = 0; j < rw; j = j + 1 == jv0 ? MAX (jv1, j + 1) : j + 1)
    {
      const int jx0 = MAX (0, j - self->up), jx1 = MIN (rw - 1, j + self->down);
      const int best = mode_small (kr, nrows, jx0, jx1);
      const int wcols = jx1 - jx0 + 1;

      copy_colour (src, R->x0 + jx0 + best % wcols, wy0 + best / wcols, out, R->x0 + j, depth);
    }
}

static void
_lb_xv_oil_small_row (const LbXvOil *self, const LbKernelBuf *src, const KeyRing *ring,
                      guint32 *win, const guint64 *colours, guint8 *out, int wy0, int wy1)
{
  if (src->depth == 8)
    oil_small_row (self, src, ring, win, colours, out, wy0, wy1, 8);
  else
    oil_small_row (self, src, ring, win, colours, out, wy0, wy1, 16);
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
static OilXv *
_lb_xv_oil_xv_new (int rw, int nplanes)
{
  OilXv *xv = g_new0 (OilXv, 1);

  oil_xv_init (xv, rw, nplanes);
  return xv;
}

static void
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

static void
_lb_xv_oil_xv_put_row (OilXv *xv, const LbXvOil *self, const LbKernelBuf *src, guint8 *out,
                       int wy0)
{
  if (src->depth == 8)
    oil_xv_put_row (xv, self, src, out, wy0, 8);
  else
    oil_xv_put_row (xv, self, src, out, wy0, 16);
}

/* Incremental colour count for windows above 16 pixels, slid along a row one window column
 * in and one out per pixel. Two kinds of table:
 *  - direct (one colour channel, so keys < 2^depth): count[key], no hashing;
 *  - hashed (RGB keys of 24 bits): open addressing (linear probing, backward-shift deletion)
 *    from key to count.
 * Both keep per count the number of colours having it, so the top count is known at once, and
 * the set of colours having the top count (up to TOP_MAX of them) as a list of keys, kept up
 * to date by the updates and rebuilt only when the top count drops. The answer, the first
 * window pixel in raster order whose colour has the top count, is then a scan of the window
 * rows comparing keys with that short list (a few vector compares per 8 pixels) instead of a
 * table look-up per pixel, which cost O(n²) per output pixel. */
#define TOP_MAX 8
/* A band's palette holds at most this many window's worth of numbers (side × region width):
 * when the next rows would pass that, it starts again from the rows still in the window
 * (renumbered from the source), so its memory does not grow with the band's height (a 1000-row
 * band of a 64 Mpx image would otherwise number 8 million colours: 128 MiB of slots). */
#define OIL_PALETTE_WINDOWS 4
/* and takes at most this many bytes (else the hashed count table: windows of hundreds of
 * rows on wide images) */
#define OIL_PALETTE_MAX_BYTES ((gsize) 64 << 20)

/* RGB windows from this side up count numbered colours (Palette) directly, every window the
 * count table serves (the 3×3 one has its own path). The threshold was 9 while the updates
 * went through the table in memory: the probe per pixel read into the band's large palette
 * then cost more than the small hash table's probes per update (kernels-a-timing, 1.4 Mpx
 * RGB8 test card, 1 thread, ms, hashed → numbered, two runs: side 5 128/131 → 138/140, 9
 * 216/215 → 202/202, 15 395/494 → 332/332, 31 859/1045 → 660/658). With TableRegs, numbering
 * wins at 5 and 7 too (1400×1000 RGB8, 1 thread, a driver outside the tree, two alternating
 * runs, hashed → numbered: noise, side 5 90–99 → 27 ms, 7 126 → 30; a gradient with little
 * noise, side 5 148–189 → 96, 7 259–261 → 176–181). The hash table remains for windows
 * whose palette would pass OIL_PALETTE_MAX_BYTES, and for the tests
 * (_lb_xv_oil_process_table). */
#ifndef OIL_NUMBERED_MIN_SIDE
#define OIL_NUMBERED_MIN_SIDE 5
#endif

typedef struct {
  guint32 key;
  guint32 count;
} OilSlot;

typedef struct _CountTable {
  gboolean direct;
  /* direct */
  guint16 *dcount;   /* [2^depth]; a window holds at most 255² < 2^16 pixels */
  /* hashed: key and count side by side, so a probe touches one cache line */
  OilSlot *slot;     /* count 0 = empty slot */
  guint32 mask;
  int shift;         /* 32 − log2 (slots): the product's top bits pick the slot */
  /* both */
  guint32 *ncolours; /* ncolours[c] = colours with count c (c ≥ 2 only) */
  guint32 top;
  guint32 tk[TOP_MAX]; /* the colours with count top, when tvalid */
  int tn;
  gboolean tvalid;
  /* changes whenever the top count (from 2 up) or the set of colours having it changes
   * (table_winner's cache; with a top of 0 or 1 the answer needs no table) */
  guint32 tver;
  /* the window's key rows, for one output row */
  const guint32 **wr;
} CountTable;

static inline guint32
slot_hash (guint32 key, int shift)
{
  /* Fibonacci hashing takes the product's top bits: its low bits depend only on the key's
   * low bits, so colours differing only in blue would share a slot. */
  return (key * 2654435761u) >> shift;
}

static inline guint32
slot_of (const CountTable *t, guint32 key)
{
  return slot_hash (key, t->shift);
}

/* The table as the updates use it, in a local: its pointers and its top-count state as plain
 * scalars. The project builds with -fno-strict-aliasing, so through a CountTable in memory
 * every count store made GCC store the top and list length and reload them and the table's
 * pointers at each update; a local whose address only reaches inlined functions stays in
 * registers (kernels-a-timing, 1400×1000, 1 thread, corrected oil 15 and 31, two runs each:
 * RGB8 188–189 and 386–408 ms → 171–174 and 353–366, GRAY16 108–109 and 224–228 → 88–94 and
 * 182–209). */
typedef struct {
  gboolean direct;
  guint16 *dcount;
  OilSlot *slot;
  guint32 mask;
  int shift;
  guint32 *ncolours;
  guint32 *tk;
  guint32 top;
  int tn;
  gboolean tvalid;
  guint32 tver;
} TableRegs;

static inline TableRegs
table_regs (CountTable *t)
{
  const TableRegs r = { t->direct, t->dcount, t->slot, t->mask, t->shift, t->ncolours, t->tk,
                        t->top, t->tn, t->tvalid, t->tver };

  return r;
}

static inline void
table_regs_store (CountTable *t, const TableRegs *r)
{
  t->top = r->top;
  t->tn = r->tn;
  t->tvalid = r->tvalid;
  t->tver = r->tver;
}

static inline guint32
slot_of_regs (const TableRegs *r, guint32 key)
{
  return slot_hash (key, r->shift);
}

/* A colour's count went up to c. Counts 0 and 1 need not be counted per count: with top = 1
 * the winner is the window's first pixel whatever the colours, and the top never falls below
 * 1 within a row (a column leaves only with another one still in the window); ncolours[0]
 * and [1] are never read. Two ways, the same counts from 2 up (the slide picks one per step
 * by the top so far, see table_slide):
 *  - !@dense (nearly every colour once: noise, or fine 16-bit data): transitions 0 ↔ 1
 *    touch no shared counter (a read-modify-write of the same ncolours entry at every update
 *    made one long dependency chain), at the price of a branch on c < 2;
 *  - @dense (top ≥ OIL_DENSE_TOP, colours repeated: gradients, photographs, few levels):
 *    every update moves its colour from count c − 1 to c without asking, so the only branch,
 *    c < top, is mostly not taken, where the branch on c < 2 went either way at random.
 * 1400×1000, 1 thread, a driver outside the tree, alternating builds, always !dense → dense
 * from top 3: RGB8 gradient with 2 bits of noise, side 7 179–180 → 132–134 ms, 9 245–249 →
 * 137–145, 15 381–386 → 167–172; the same as GRAY16 (8-bit levels), side 5 170 → 106, 9 240 →
 * 124, 15 267–270 → 133–135; noise unchanged (top ≤ 1). From top 2 instead, the GRAY16 test
 * card (mostly single values, a few repeats) lost: side 15 84 → 103 ms; and the dense form
 * alone made RGB8 noise side 9 36 → 47 ms, 15 49–51 → 70–73. */
static inline __attribute__ ((always_inline)) void
top_after_add (TableRegs *t, guint32 key, guint32 c, const gboolean dense)
{
  if (dense)
    {
      t->ncolours[c - 1]--;
      t->ncolours[c]++;
      if (G_LIKELY (c < t->top))
        return;
      if (c < 2)
        {
          t->top = 1;
          return;
        }
    }
  else
    {
      if (c < 2)
        {
          if (t->top == 0)
            t->top = 1;
          return;
        }
      if (c >= 3)
        t->ncolours[c - 1]--;
      t->ncolours[c]++;
    }
  if (c >= t->top)
    t->tver++;
  if (c > t->top)
    {
      t->top = c;
      t->tk[0] = key;
      t->tn = 1;
      t->tvalid = TRUE;
    }
  else if (c == t->top && t->tvalid)
    {
      if (t->tn < TOP_MAX)
        t->tk[t->tn++] = key;
      else
        t->tvalid = FALSE;
    }
}

/* A colour's count is about to go down from c (@dense: as top_after_add). */
static inline __attribute__ ((always_inline)) void
top_before_remove (TableRegs *t, guint32 key, guint32 c, const gboolean dense)
{
  if (dense)
    {
      t->ncolours[c]--;
      t->ncolours[c - 1]++;
      if (G_LIKELY (c != t->top) || c < 2)
        return;
    }
  else
    {
      if (c < 2)
        return;
      t->ncolours[c]--;
      if (c >= 3)
        t->ncolours[c - 1]++;
      if (c != t->top)
        return;
    }
  t->tver++;
  if (t->ncolours[c] == 0)
    {
      /* The new top's colours are unknown here: rebuilt when needed. */
      t->top--;
      t->tvalid = FALSE;
    }
  else if (t->tvalid)
    for (int i = 0; i < t->tn; i++)
      if (t->tk[i] == key)
        {
          t->tk[i] = t->tk[--t->tn];
          break;
        }
}

static inline __attribute__ ((always_inline)) void
regs_add (TableRegs *t, guint32 key, const gboolean direct, const gboolean dense)
{
  guint32 i;

  if (direct)
    {
      top_after_add (t, key, ++t->dcount[key], dense);
      return;
    }
  i = slot_of_regs (t, key);
  while (t->slot[i].count != 0 && t->slot[i].key != key)
    i = (i + 1) & t->mask;
  t->slot[i].key = key;
  top_after_add (t, key, ++t->slot[i].count, dense);
}

static inline __attribute__ ((always_inline)) void
regs_remove (TableRegs *t, guint32 key, const gboolean direct, const gboolean dense)
{
  guint32 i;

  if (direct)
    {
      top_before_remove (t, key, t->dcount[key]--, dense);
      return;
    }
  i = slot_of_regs (t, key);
  while (t->slot[i].key != key || t->slot[i].count == 0)
    i = (i + 1) & t->mask;
  top_before_remove (t, key, t->slot[i].count, dense);
  t->slot[i].count--;
  if (t->slot[i].count > 0)
    return;
  /* Backward-shift deletion keeps every probe chain unbroken. */
  for (guint32 j = (i + 1) & t->mask; t->slot[j].count != 0; j = (j + 1) & t->mask)
    {
      const guint32 home = slot_of_regs (t, t->slot[j].key);
      /* Move j into the hole i unless its home lies cyclically in (i, j]. */
      const gboolean stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);

      if (!stays)
        {
          t->slot[i].key = t->slot[j].key;
          t->slot[i].count = t->slot[j].count;
          t->slot[j].count = 0;
          i = j;
        }
    }
}

/* The pixels of window columns [@j0, @j1] of the key rows wr[0 .. nwr − 1] enter (@add) or
 * leave the table. */
static inline void
table_columns (CountTable *t, const guint32 *const *wr, int nwr, int j0, int j1, gboolean add)
{
  TableRegs r = table_regs (t);

  for (int j = j0; j <= j1; j++)
    for (int k = 0; k < nwr; k++)
      {
        if (add)
          regs_add (&r, wr[k][j], r.direct, FALSE);
        else
          regs_remove (&r, wr[k][j], r.direct, FALSE);
      }
  table_regs_store (t, &r);
}

/* One slide step: the pixels of window column @jout (if ≥ 0) of the key rows wr[0 .. nwr − 1]
 * leave, then those of column @jin (if ≥ 0) enter; @direct is t->direct, a constant at each
 * call site. The updates take top_after_add's dense form while the top is OIL_DENSE_TOP or
 * more; both forms keep the same counts from 2 up, so the choice changes no output. */
#ifndef OIL_DENSE_TOP
#define OIL_DENSE_TOP 3
#endif

static inline __attribute__ ((always_inline)) void
table_slide_body (TableRegs *r, const guint32 *const *wr, int nwr, int jout, int jin,
                  const gboolean direct, const gboolean dense)
{
  if (jout >= 0)
    for (int k = 0; k < nwr; k++)
      regs_remove (r, wr[k][jout], direct, dense);
  if (jin >= 0)
    for (int k = 0; k < nwr; k++)
      regs_add (r, wr[k][jin], direct, dense);
}

static inline __attribute__ ((always_inline)) void
table_slide (CountTable *t, const guint32 *const *wr, int nwr, int jout, int jin,
             const gboolean direct)
{
  TableRegs r = table_regs (t);

  if (r.top >= OIL_DENSE_TOP)
    table_slide_body (&r, wr, nwr, jout, jin, direct, TRUE);
  else
    table_slide_body (&r, wr, nwr, jout, jin, direct, FALSE);
  table_regs_store (t, &r);
}

static inline guint32
table_count (const CountTable *t, guint32 key)
{
  guint32 i;

  if (t->direct)
    return t->dcount[key];
  i = slot_of (t, key);
  while (t->slot[i].count != 0 && t->slot[i].key != key)
    i = (i + 1) & t->mask;
  return t->slot[i].count;
}

/* Index of the first of k[0..n-1] that is one of set[0..ns-1], or −1. */
static int
find_first_of (const guint32 *k, int n, const guint32 *set, int ns)
{
  int j = 0;

  for (; j + 8 <= n; j += 8)
    {
      OilVec a, b, ma = { 0, 0, 0, 0 }, mb = { 0, 0, 0, 0 }, m;

      memcpy (&a, k + j, sizeof a);
      memcpy (&b, k + j + 4, sizeof b);
      for (int s = 0; s < ns; s++)
        {
          const OilVec v = { set[s], set[s], set[s], set[s] };

          ma |= (OilVec) (a == v);
          mb |= (OilVec) (b == v);
        }
      m = ma | mb;
      if ((m[0] | m[1] | m[2] | m[3]) != 0)
        {
          for (int l = 0; l < 4; l++)
            if (ma[l])
              return j + l;
          for (int l = 0; l < 4; l++)
            if (mb[l])
              return j + 4 + l;
        }
    }
  for (; j < n; j++)
    for (int s = 0; s < ns; s++)
      if (k[j] == set[s])
        return j;
  return -1;
}

/* The list of colours with the top count, when there are at most TOP_MAX of them and the
 * list is stale (the top dropped, or it overflowed earlier). */
static void
table_rebuild_top (CountTable *t, const KeyRing *ring, int wy0, int wy1, int jx0, int jx1)
{
  t->tn = 0;
  if (t->direct)
    {
      /* The colours are among the window's pixels; stop once all are found. */
      for (int yy = wy0; yy <= wy1 && (guint32) t->tn < t->ncolours[t->top]; yy++)
        {
          const guint32 *k = ring_row (ring, yy);

          for (int jj = jx0; jj <= jx1; jj++)
            if (t->dcount[k[jj]] == t->top)
              {
                gboolean seen = FALSE;

                for (int i = 0; i < t->tn; i++)
                  seen |= t->tk[i] == k[jj];
                if (!seen)
                  {
                    t->tk[t->tn++] = k[jj];
                    if ((guint32) t->tn == t->ncolours[t->top])
                      break;
                  }
              }
        }
    }
  else
    {
      /* Four slots (key, count pairs) per two vector compares, stopping once all are found:
       * the table has 4 slots per window pixel (4096 at radius 15), and a slot-by-slot scan
       * at every drop of the top count was half of table_winner's time at radius 15. Slots
       * are a power of two, at least 4 (a window has at least 1 pixel). */
      const guint32 *w = (const guint32 *) (const void *) t->slot;
      const OilVec top = { t->top, t->top, t->top, t->top }, odd = { 0, ~0u, 0, ~0u };

      for (guint32 i = 0; i <= t->mask && (guint32) t->tn < t->ncolours[t->top]; i += 4)
        {
          OilVec a, b;

          memcpy (&a, w + 2 * i, sizeof a);
          memcpy (&b, w + 2 * i + 4, sizeof b);
          a = (OilVec) ((a == top) | (b == top)) & odd;
          if ((a[1] | a[3]) != 0)
            for (guint32 j = i; j < i + 4; j++)
              if (t->slot[j].count == t->top)
                t->tk[t->tn++] = t->slot[j].key;
        }
    }
  t->tvalid = TRUE;
}

static void table_winner_scan (CountTable *t, const KeyRing *ring, int wy0, int wy1, int jx0,
                               int jx1, int *bj, int *by);

/* The last answer of table_winner along a row. While the top count and the set of colours
 * having it stay the same (tver), the answer stays the same: a pixel that entered the window
 * since with a top colour would have changed that set (its colour's count reached the top),
 * and so would the answer's pixel leaving (its colour's count fell from the top). The scan
 * for the first top pixel had been about a third of the time at 31×31 on the test card
 * (kernels-a-timing, 1 thread, with TableRegs, two runs: RGB8 oil 15 171–174 → 131–139 ms,
 * 31 353–366 → 251–263; GRAY16 15 88–94 → 84–89, 31 182–209 → 174–177). */
typedef struct {
  gboolean valid;
  guint32 ver;
  int bj, by;
} WinnerCache;

/* The first window pixel in raster order whose colour has the top count. */
static void
table_winner (CountTable *t, const KeyRing *ring, int wy0, int wy1, int jx0, int jx1, int *bj,
              int *by, WinnerCache *cache)
{
  *bj = jx0, *by = wy0;
  if (t->top <= 1)
    {
      cache->valid = FALSE;
      return;
    }
  /* (bj ≥ jx0 follows from tver; checked all the same, so that no stale answer can ever lie
   * outside the window) */
  if (cache->valid && cache->ver == t->tver && cache->bj >= jx0)
    {
      *bj = cache->bj, *by = cache->by;
      return;
    }
  table_winner_scan (t, ring, wy0, wy1, jx0, jx1, bj, by);
  *cache = (WinnerCache) { TRUE, t->tver, *bj, *by };
}

/* table_winner without its cache: a scan of the window in raster order. */
static void
table_winner_scan (CountTable *t, const KeyRing *ring, int wy0, int wy1, int jx0, int jx1,
                   int *bj, int *by)
{
  if (t->ncolours[t->top] <= TOP_MAX)
    {
      if (!t->tvalid)
        table_rebuild_top (t, ring, wy0, wy1, jx0, jx1);
      for (int yy = wy0; yy <= wy1; yy++)
        {
          const int found = find_first_of (ring_row (ring, yy) + jx0, jx1 - jx0 + 1, t->tk,
                                           t->tn);

          if (found >= 0)
            {
              *bj = jx0 + found, *by = yy;
              return;
            }
        }
      g_assert_not_reached ();
    }
  /* Many colours share the top count: a look-up per pixel finds one soon. */
  for (int yy = wy0; yy <= wy1; yy++)
    {
      const guint32 *k = ring_row (ring, yy);

      for (int jj = jx0; jj <= jx1; jj++)
        if (table_count (t, k[jj]) == t->top)
          {
            *bj = jj, *by = yy;
            return;
          }
    }
  g_assert_not_reached ();
}

/* A band's count table for windows of @side rows: a direct one over keys 0 .. @direct_size − 1,
 * or with @direct_size 0 a hashed one (RGB keys). */
static CountTable *
_lb_xv_oil_table_new (int side, gsize direct_size)
{
  CountTable *t = g_new0 (CountTable, 1);

  t->ncolours = g_new0 (guint32, (gsize) side * side + 1);
  t->wr = g_new0 (const guint32 *, side);
  if (direct_size > 0)
    {
      t->direct = TRUE;
      t->dcount = g_new0 (guint16, direct_size);
    }
  else
    {
      guint32 size = 1;

      /* At most a quarter full: short probe chains. */
      while (size < 4u * (guint32) side * (guint32) side)
        size <<= 1;
      t->slot = g_new0 (OilSlot, size);
      t->mask = size - 1;
      t->shift = 32 - g_bit_storage (size - 1);
    }
  return t;
}

static void
_lb_xv_oil_table_free (CountTable *t)
{
  g_free (t->ncolours);
  g_free (t->wr);
  g_free (t->dcount);
  g_free (t->slot);
  g_free (t);
}

/* Output row @out on the key rows @wy0 .. @wy1 of @ring: the count table slid along the row;
 * it is empty before and after. */
LB_XV_INLINE void
oil_table_row (CountTable *t, const LbXvOil *self, const LbKernelBuf *src, const KeyRing *ring,
               guint8 *out, int wy0, int wy1, const int depth)
{
  const LbXvRegion *R = &self->region;
  const int rw = R->x1 - R->x0;
  const guint32 **wr = t->wr;
  /* (the table's build-up changes tver anyway once the top reaches 2) */
  WinnerCache cache = { FALSE, 0, 0, 0 };
  /* wr: the window's key rows (the ring's modulo once per row, not per sample). */
  const int nwr = wy1 - wy0 + 1;

  for (int k = 0; k < nwr; k++)
    wr[k] = ring_row (ring, wy0 + k);
  t->top = 0;
  t->tn = 0;
  t->tvalid = TRUE;
  table_columns (t, wr, nwr, 0, MIN (rw - 1, self->down), TRUE);

  for (int j = 0; j < rw; j++)
    {
      const int jx0 = MAX (0, j - self->up), jx1 = MIN (rw - 1, j + self->down);
      int bj, by;

      table_winner (t, ring, wy0, wy1, jx0, jx1, &bj, &by, &cache);
      copy_colour (src, R->x0 + bj, by, out, R->x0 + j, depth);

      if (j + 1 < rw)
        {
          const int jout = j - self->up >= 0 ? j - self->up : -1;
          const int jin = j + 1 + self->down < rw ? j + 1 + self->down : -1;

          if (t->direct)
            table_slide (t, wr, nwr, jout, jin, TRUE);
          else
            table_slide (t, wr, nwr, jout, jin, FALSE);
        }
    }
  /* Empty the table for the next row: remove the last window (cheaper than clearing a
   * direct table of 2^16 counts). */
  table_columns (t, wr, nwr, MAX (0, rw - 1 - self->up), rw - 1, FALSE);
}

static void
_lb_xv_oil_table_row (CountTable *t, const LbXvOil *self, const LbKernelBuf *src,
                      const KeyRing *ring, guint8 *out, int wy0, int wy1)
{
  if (src->depth == 8)
    oil_table_row (t, self, src, ring, out, wy0, wy1, 8);
  else
    oil_table_row (t, self, src, ring, out, wy0, wy1, 16);
}

/* ---- constant-time path: one 8-bit colour channel ------------------------------------- */

/* With 256 possible colours, the window's colour counts are a dense histogram (Perreault and
 * Hébert's median filter, applied to the mode): one histogram per region column over the
 * window's rows, updated by one pixel in and one out per row, and the window's histogram,
 * updated by one column histogram in and one out per pixel. 2 · 256 byte-to-16-bit adds per
 * pixel whatever the radius, plus the maximum of 256 counts. The winner is then the first
 * window pixel in raster order whose colour has the top count: the first pixel when all
 * counts are 1, else a scan of the window rows that stops at the first hit: its cost depends
 * on where that pixel is, which grows with the window on gradients (31×31 costs 2–4× 3×3
 * on the test card, most of it this scan), but the counting itself does not. */
#define PH_BINS 256
/* From the 3×3 window up: 1.4 Mpx GRAY8 test card, 1 thread, same runs: 3×3 38–52 ms here
 * against 58–60 ms on the all-pairs network; 5×5 47–55 ms against 144–154 ms on the direct
 * count table; 31×31 115–200 ms against 507–708 ms. */
#define PH_MIN_SIDE 3

/* h += add − sub over the 256 bins (add/sub: column counts, at most 255 each); returns the
 * largest count, in the same pass. */
LB_KERNEL_CLONES static guint
ph_slide (guint16 *restrict h, const guint8 *restrict add, const guint8 *restrict sub)
{
  guint16 m = 0;

  for (int b = 0; b < PH_BINS; b++)
    {
      const guint16 v = (guint16) (h[b] + add[b] - sub[b]);

      h[b] = v;
      m = v > m ? v : m;
    }
  return m;
}

/* The colour numbers the histograms count: for row yy, base + (yy − y0) · stride, pixel j at
 * [j · step]. One 8-bit channel: the samples themselves; other formats with at most 256
 * colours in the rows a band reads: numbers given by _lb_xv_oil_hist_number (any one-to-one map gives the
 * same counts, hence the same winner). */
typedef struct {
  const guint8 *base;
  gsize stride;
  int step;
  int y0;
} PhIds;

static inline const guint8 *
ph_row (const PhIds *ids, int yy)
{
  return ids->base + (gsize) (yy - ids->y0) * ids->stride;
}

/* Numbers the colours of region rows ry0..ry1-1 in order of appearance, into a new rw-byte-
 * per-row image; NULL when there are more than 256 (it stops at the 257th, so trying costs
 * little on continuous-tone images). Keys as fill_keys (24-bit RGB or one channel), 16-bit
 * RGB as colour_key. */
static guint8 *
_lb_xv_oil_hist_number (const LbKernelBuf *src, const LbXvRegion *R, int ry0, int ry1, int depth)
{
  const int rw = R->x1 - R->x0, ch = src->channels;
  const gboolean wide = depth == 16 && lb_xv_colour_channels (ch) == 3;
  /* 1024 slots for at most 256 colours: probe chains stay short. */
  guint64 key[1024];
  gint16 num[1024];
  g_autofree guint32 *k = wide ? NULL : g_new (guint32, (gsize) rw);
  g_autofree guint64 *wk = wide ? g_new (guint64, (gsize) rw) : NULL;
  g_autofree guint8 *ids = g_new (guint8, (gsize) rw * (ry1 - ry0));
  int n = 0;

  memset (num, -1, sizeof num);
  for (int yy = ry0; yy < ry1; yy++)
    {
      const guint8 *row = lb_xv_row (src, yy) + (gsize) R->x0 * ch * (depth / 8);
      guint8 *id = ids + (gsize) (yy - ry0) * rw;

      if (wide)
        for (int j = 0; j < rw; j++)
          wk[j] = colour_key (row, (gsize) j * ch, 3, 16);
      else if (depth == 8)
        fill_keys (k, row, 0, rw, ch, 8);
      else
        fill_keys (k, row, 0, rw, ch, 16);
      for (int j = 0; j < rw; j++)
        {
          const guint64 kj = wide ? wk[j] : k[j];
          guint32 i = (guint32) ((kj * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)) >> 54);

          while (num[i] >= 0 && key[i] != kj)
            i = (i + 1) & 1023;
          if (num[i] < 0)
            {
              if (n == PH_BINS)
                return NULL;
              key[i] = kj, num[i] = (gint16) n++;
            }
          id[j] = (guint8) num[i];
        }
    }
  return g_steal_pointer (&ids);
}

/* Column histograms: colh[j · 256 + v], plus one zero column at index rw (for the slide's
 * columns outside the region). */
static inline void
ph_row_update (guint8 *colh, const guint8 *row, int rw, int step, int delta)
{
  for (int j = 0; j < rw; j++)
    colh[(gsize) j * PH_BINS + row[(gsize) j * step]] += (guint8) delta;
}

/* Rows between progress ticks (lb-kernel.h): 1400 pixels of 31×31 oil take ~0.2 ms. */
#define OIL_TICK_ROWS 8

static void
_lb_xv_oil_hist_rows (const LbXvOil *self, const PhIds *ids, const LbKernelBuf *src,
                      LbKernelBuf *dst, int ya, int yb)
{
  const LbXvRegion *R = &self->region;
  const int rw = R->x1 - R->x0, step = ids->step;
  g_autofree guint8 *colh = g_new0 (guint8, (gsize) (rw + 1) * PH_BINS);
  const guint8 *zero = colh + (gsize) rw * PH_BINS;
  guint16 h[PH_BINS] __attribute__ ((aligned (32)));
  guint top = 0;
  int cw0 = 0, cw1 = -1; /* rows the column histograms hold */

  /* No progress ticks (lb-kernel.h) here: the cost per pixel does not grow with the window
   * (GRAY8 oil 15: about 31 ms per 1.4 Mpx, 1 thread), so a band ends soon enough for
   * Cancel, and ticks between chunks of rows, as oil_fast_rows has, cost this loop 5–10 %. */
  for (int y = ya; y < yb; y++)
    {
      const int wy0 = MAX (R->y0, y - self->up), wy1 = MIN (R->y1 - 1, y + self->down);
      guint8 *out = lb_xv_row_mut (dst, y);

      if (cw1 < wy0 || cw0 > wy0)
        {
          memset (colh, 0, (gsize) rw * PH_BINS);
          cw0 = wy0, cw1 = wy0 - 1;
        }
      for (; cw0 < wy0; cw0++)
        ph_row_update (colh, ph_row (ids, cw0), rw, step, -1);
      while (cw1 < wy1)
        ph_row_update (colh, ph_row (ids, ++cw1), rw, step, 1);

      memset (h, 0, sizeof h);
      for (int j = 0; j <= MIN (rw - 1, self->down); j++)
        top = ph_slide (h, colh + (gsize) j * PH_BINS, zero);

      for (int j = 0; j < rw; j++)
        {
          const int jx0 = MAX (0, j - self->up), jx1 = MIN (rw - 1, j + self->down);
          int bj = jx0, by = wy0;

          /* All counts 1: the first pixel. Else the first pixel whose colour has the top
           * count, one table look-up per pixel scanned. */
          for (int yy = wy0; yy <= wy1 && top > 1; yy++)
            {
              const guint8 *row = ph_row (ids, yy);
              int jj = jx0;

              while (jj <= jx1 && h[row[(gsize) jj * step]] != top)
                jj++;
              if (jj <= jx1)
                {
                  bj = jj, by = yy;
                  break;
                }
            }
          if (src->depth == 8)
            copy_colour (src, R->x0 + bj, by, out, R->x0 + j, 8);
          else
            copy_colour (src, R->x0 + bj, by, out, R->x0 + j, 16);

          if (j + 1 < rw)
            top = ph_slide (h, j + 1 + self->down < rw
                                 ? colh + (gsize) (j + 1 + self->down) * PH_BINS : zero,
                            j - self->up >= 0 ? colh + (gsize) (j - self->up) * PH_BINS : zero);
        }
    }
}

LB_XV_INLINE void
oil_fast_rows (const LbXvOil     *self,
               const LbKernelBuf *src,
               LbKernelBuf       *dst,
               int                ya,
               int                yb,
               const int          depth,
               const gboolean     table_only)
{
  const LbXvRegion *R = &self->region;
  const int rw = R->x1 - R->x0;
  const int side = self->up + self->down + 1;
  const gboolean small = side * side <= 16;
  KeyRing ring = { NULL, side, rw };
  CountTable *t = NULL;
  g_autofree guint32 *ring_keys = NULL;
  Palette pal = { NULL, NULL, NULL, 0, 0, 0 };
  /* 16-bit RGB: every window counts colour numbers (see Palette) */
  const gboolean wide = depth == 16 && lb_xv_colour_channels (src->channels) == 3;
  gboolean numbered = FALSE;
  gsize pal_limit = 0;       /* numbers the palette gives before it starts again */
  int filled = -1; /* last key row filled into the ring */
  /* the symmetric 3×3 vector path's winners (keys) of a row */
  g_autofree guint32 *win = side == 3 ? g_new (guint32, rw) : NULL;
  /* xv's window (2 up/left, 1 down/right) has its own vector path, on the samples' bytes. */
  const gboolean xv_columns = self->up == 2 && self->down == 1;
  OilXv *xv = NULL;

  if (depth == 8 && lb_xv_colour_channels (src->channels) == 1 && !xv_columns
      && side >= PH_MIN_SIDE && !table_only)
    {
      const PhIds ids = { src->data + (gsize) R->x0 * src->channels, src->stride,
                          src->channels, 0 };

      _lb_xv_oil_hist_rows (self, &ids, src, dst, ya, yb);
      return;
    }
  if (!small && !table_only)
    {
      /* Other formats: the histogram path when the rows this band reads hold at most 256
       * colours (palette images, posterised or segmented ones). */
      const int ry0 = MAX (R->y0, ya - self->up), ry1 = MIN (R->y1, yb + self->down);
      g_autofree guint8 *num = _lb_xv_oil_hist_number (src, R, ry0, ry1, depth);

      if (num != NULL)
        {
          const PhIds ids = { num, (gsize) rw, 1, ry0 };

          _lb_xv_oil_hist_rows (self, &ids, src, dst, ya, yb);
          return;
        }
    }
  ring_keys = g_new (guint32, (gsize) side * rw);
  if (xv_columns && rw >= 4)
    xv = _lb_xv_oil_xv_new (rw, (depth / 8) * lb_xv_colour_channels (src->channels));
  ring.keys = ring_keys;
  if (wide)
    {
      /* As below, from windows of one pixel up; a palette that would pass
       * OIL_PALETTE_MAX_BYTES holds fewer windows' worth of rows and starts again more often,
       * down to one window, which it always takes (below 56 bytes a number: a 63-row window
       * of 8000 columns takes 17 MB) */
      const int ry0 = MAX (R->y0, ya - self->up), ry1 = MIN (R->y1, yb + self->down);
      gsize windows = OIL_PALETTE_WINDOWS;

      while (windows > 1
             && palette_bytes (MIN ((gsize) (ry1 - ry0), windows * side) * (gsize) rw, TRUE)
                  > OIL_PALETTE_MAX_BYTES)
        windows--;
      pal_limit = MIN ((gsize) (ry1 - ry0), windows * side) * (gsize) rw;
      palette_init (&pal, pal_limit, TRUE);
      numbered = TRUE;
    }
  if (!small)
    {
      /* RGB numbering: the numbers a palette gives before it starts again (the rows this
       * band reads, at most OIL_PALETTE_WINDOWS windows of them) */
      const int ry0 = MAX (R->y0, ya - self->up), ry1 = MIN (R->y1, yb + self->down);
      const gsize limit = MIN ((gsize) (ry1 - ry0), (gsize) OIL_PALETTE_WINDOWS * side) * (gsize) rw;

      if (lb_xv_colour_channels (src->channels) == 1)
        t = _lb_xv_oil_table_new (side, (gsize) 1 << depth);
      else if (wide)
        /* the numbers, counted directly (a hashed table needs the colours as keys) */
        t = _lb_xv_oil_table_new (side, pal_limit);
      else if (side >= OIL_NUMBERED_MIN_SIDE && !table_only
               && palette_bytes (limit, FALSE) <= OIL_PALETTE_MAX_BYTES)
        {
          /* RGB: the colours of the rows this band reads, numbered, counted directly */
          pal_limit = limit;
          palette_init (&pal, pal_limit, FALSE);
          numbered = TRUE;
          t = _lb_xv_oil_table_new (side, pal_limit);
        }
      else
        t = _lb_xv_oil_table_new (side, 0);
    }

  /* Rows in chunks with a progress tick between (a tick inside this loop cost xv's 4×4
   * window 5 %, 1 thread, RGB8, even with no ticker: the loop's code changed). */
  for (int yc = ya; yc < yb && lb_kernel_tick (dst->ticker, (guint64) (yc - ya),
                                                 (guint64) (yb - ya));
       yc += OIL_TICK_ROWS)
  for (int y = yc; y < MIN (yb, yc + OIL_TICK_ROWS); y++)
    {
      const int wy0 = MAX (R->y0, y - self->up), wy1 = MIN (R->y1 - 1, y + self->down);
      guint8 *out = lb_xv_row_mut (dst, y);

      if (xv != NULL && wy1 - wy0 + 1 == 4)
        {
          _lb_xv_oil_xv_put_row (xv, self, src, out, wy0);
          continue;
        }

      /* The palette is full: number again from the rows the window still holds (the count
       * table is empty between rows). */
      if (numbered && pal.n + (gsize) MAX (0, wy1 - MAX (wy0 - 1, filled)) * (gsize) rw > pal_limit)
        {
          palette_reset (&pal);
          for (int yy = wy0; yy <= filled; yy++)
            ring_fill (&ring, src, R, yy, &pal, depth, wide);
        }
      /* The key ring may have skipped rows on the path above. */
      for (int yy = MAX (wy0, filled + 1); yy <= wy1; yy++)
        ring_fill (&ring, src, R, yy, numbered ? &pal : NULL, depth, wide);
      filled = wy1;

      if (small)
        _lb_xv_oil_small_row (self, src, &ring, win, pal.colour, out, wy0, wy1);
      else
        _lb_xv_oil_table_row (t, self, src, &ring, out, wy0, wy1);
    }
  if (xv != NULL)
    _lb_xv_oil_xv_free (xv);
  if (t != NULL)
    _lb_xv_oil_table_free (t);
  palette_clear (&pal);
}

/* One function per depth, each with its own inlining budget: with both bodies inlined into
 * oil_process, the 16-bit colour paths made GCC 12 call out of line what it had inlined for
 * 8 bits (RGB8 oil 15, callgrind: +10 % instructions). */
static __attribute__ ((noinline)) void
oil_fast_rows8 (const LbXvOil *self, const LbKernelBuf *src, LbKernelBuf *dst, int ya, int yb,
                gboolean table_only)
{
  oil_fast_rows (self, src, dst, ya, yb, 8, table_only);
}

static __attribute__ ((noinline)) void
oil_fast_rows16 (const LbXvOil *self, const LbKernelBuf *src, LbKernelBuf *dst, int ya, int yb,
                 gboolean table_only)
{
  oil_fast_rows (self, src, dst, ya, yb, 16, table_only);
}

/* lb_xv_oil_process, or with @table_only _lb_xv_oil_process_table */
static void
oil_process (const LbXvOil     *self,
             const LbKernelBuf *src,
             LbKernelBuf       *dst,
             int                y0,
             int                y1,
             gboolean           table_only)
{
  g_return_if_fail (self != NULL && _lb_xv_same_geometry (src, dst));

  if (!_lb_xv_clip_rows (&self->region, &y0, &y1))
    return;
  if (src->depth == 8)
    oil_fast_rows8 (self, src, dst, y0, y1, table_only);
  else
    oil_fast_rows16 (self, src, dst, y0, y1, table_only);
}

void
lb_xv_oil_process (const LbXvOil     *self,
                   const LbKernelBuf *src,
                   LbKernelBuf       *dst,
                   int                y0,
                   int                y1)
{
  oil_process (self, src, dst, y0, y1, FALSE);
}

void
_lb_xv_oil_process_table (const LbXvOil     *self,
                          const LbKernelBuf *src,
                          LbKernelBuf       *dst,
                          int                y0,
                          int                y1)
{
  oil_process (self, src, dst, y0, y1, TRUE);
}
