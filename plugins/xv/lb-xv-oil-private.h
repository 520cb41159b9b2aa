/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* What the files of xv's oil share (lb-xv-oil.c, the dispatcher, and one file per path):
 * colour keys, the key ring, the all-pairs mode of small windows (also the 4×4 path's
 * clipped windows), and each path's entry points. Internal to plugins/xv. Hot helpers are
 * static inline here, so each path's loops still inline them. */

#include <string.h>

#include "lb-xv-oil.h"

G_BEGIN_DECLS

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

/* From the 3×3 window up: 1.4 Mpx GRAY8 test card, 1 thread, same runs: 3×3 38–52 ms here
 * against 58–60 ms on the all-pairs network; 5×5 47–55 ms against 144–154 ms on the direct
 * count table; 31×31 115–200 ms against 507–708 ms. */
#define PH_MIN_SIDE 3

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

/* xv's 4×4 window (lb-xv-oil-4x4.c): a band's state, and one output row. */
typedef struct _OilXv OilXv;
OilXv *_lb_xv_oil_xv_new     (int                rw,
                              int                nplanes);
void   _lb_xv_oil_xv_free    (OilXv             *xv);
void   _lb_xv_oil_xv_put_row (OilXv             *xv,
                              const LbXvOil     *self,
                              const LbKernelBuf *src,
                              guint8            *out,
                              int                wy0);

/* Windows of at most 16 pixels (lb-xv-oil-small.c): one output row. */
void _lb_xv_oil_small_row (const LbXvOil     *self,
                           const LbKernelBuf *src,
                           const KeyRing     *ring,
                           guint32           *win,
                           const guint64     *colours,
                           guint8            *out,
                           int                wy0,
                           int                wy1);

/* Larger windows (lb-xv-oil-table.c): a band's count table, and one output row. */
typedef struct _CountTable CountTable;
CountTable *_lb_xv_oil_table_new  (int                side,
                                   gsize              direct_size);
void        _lb_xv_oil_table_free (CountTable        *t);
void        _lb_xv_oil_table_row  (CountTable        *t,
                                   const LbXvOil     *self,
                                   const LbKernelBuf *src,
                                   const KeyRing     *ring,
                                   guint8            *out,
                                   int                wy0,
                                   int                wy1);

/* At most 256 colours (lb-xv-oil-hist.c): their numbers, and a band's rows. */
guint8 *_lb_xv_oil_hist_number (const LbKernelBuf  *src,
                                const LbXvRegion   *R,
                                int                 ry0,
                                int                 ry1,
                                int                 depth);
void    _lb_xv_oil_hist_rows   (const LbXvOil      *self,
                                const PhIds        *ids,
                                const LbKernelBuf  *src,
                                LbKernelBuf        *dst,
                                int                 ya,
                                int                 yb);

G_END_DECLS
