/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-oil"

/* xv's oil: prepare, and the band loop that picks a path per band and row. The paths:
 * lb-xv-oil-ref.c (the reference), lb-xv-oil-4x4.c (xv's window), lb-xv-oil-small.c (windows
 * of at most 16 pixels), lb-xv-oil-table.c (larger ones), lb-xv-oil-hist.c (at most 256
 * colours); what they share is in lb-xv-oil-private.h. */

#include "lb-xv-oil-private.h"

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

/* Rows between progress ticks (lb-kernel.h): 1400 pixels of 31×31 oil take ~0.2 ms. */
#define OIL_TICK_ROWS 8

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
