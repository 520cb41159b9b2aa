/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The 8-bit constant-time median of lb-median-hist.h, included there once per window-count
 * type: KTV holds the window's 16 prefix sums, a guint16 vector (GCC vector extension) when
 * (2r+1)² ≤ 65535, else two guint32 vectors of 8; KADD and KSUB add and subtract a column's
 * 16 guint16 lanes (an LbU16x16), KLANE reads lane i; MED8(name) makes the names unique per
 * instance; MED8_SIMD_RANK says KTV is guint16, so that the rank can be taken with SSE2
 * saturating compares.
 *
 * Perreault & Hébert, "Median Filtering in Constant Time" (IEEE TIP 2007): column histograms
 * (16 coarse bins, v >> 4, and 256 fine bins) cover the window's rows. Along a row the
 * window's coarse histogram slides by the entering and the leaving column's; its fine
 * histogram is kept per coarse bucket and brought up to date only when the search enters that
 * bucket (lazily): by the columns that moved since its last use, or rebuilt from the window's
 * columns when that is cheaper.
 *
 * Every histogram here is kept as its prefix sums: lane i counts the values ≤ i (the coarse
 * one) or, in fine bucket b, the values v with v >> 4 = b and v & 15 ≤ i. A sum of columns'
 * prefix sums is the window's, so sliding is unchanged, a sample in or out adds one vector
 * (1 in lanes ≥ its bin) instead of one count, and the search needs no prefix sums any more:
 * the bin of the k-th smallest value is the number of lanes ≤ k (lb_rank16_u16). The prefix
 * sums (six dependent shuffles and adds per search, two searches a sample) had been half the
 * time. 1.4 Mpx RGB8, radius 15, 2 threads, lightbox-bench's image: 44–45 ms with counts,
 * 32–35 with prefix sums, 25.6–26.0 with the rank's input taken from registers and the two
 * rows' column updates in one pass (below). */

typedef struct {
  KTV kc;         /* window coarse prefixes */
  KTV kf[16];     /* window fine prefixes, bucket b valid as of column last[b] */
  int last[16];
} MED8 (Hist);

/* The number of lanes of the window prefixes p that are ≤ k: the bin of the k-th smallest. */
static inline __attribute__ ((always_inline)) int
MED8 (rank) (const KTV *p, guint32 k)
{
#if MED8_SIMD_RANK
  return lb_rank16_u16 (lb_u16x16_lo (*p), lb_u16x16_hi (*p), k);
#else
  int b = 0;

  while (KLANE (*p, b) <= k)
    b++;
  return b;
#endif
}

/* brings bucket b of the window's fine prefixes to the window of column x; fp: the column
 * fine prefixes offset so that image column x indexes them */
static inline __attribute__ ((always_inline)) void
MED8 (update_bucket) (MED8 (Hist) *h, const guint16 *fp, int b, int x, int rad, int cx0,
                      int cx1)
{
  const int last = h->last[b];
  const int wx0 = MAX (cx0, x - rad), wx1 = MIN (cx1, x + rad);

  if (last == x)
    return;
  /* stale (a new row), or moving it column by column (two loads a step) costs more than
   * summing the window's columns again */
  if (last < 0 || 2 * (x - last) > wx1 - wx0 + 1)
    {
      KTV acc = { 0 };

      for (int col = wx0; col <= wx1; col++)
        KADD (acc, lb_load_u16x16 (fp + (gsize) col * 256 + b * 16));
      h->kf[b] = acc;
    }
  else
    {
      KTV acc = h->kf[b];

      for (int xx = last + 1; xx <= x; xx++)
        {
          const int add = xx + rad, sub = xx - rad - 1;

          if (add <= cx1)
            KADD (acc, lb_load_u16x16 (fp + (gsize) add * 256 + b * 16));
          if (sub >= cx0)
            KSUB (acc, lb_load_u16x16 (fp + (gsize) sub * 256 + b * 16));
        }
      h->kf[b] = acc;
    }
  h->last[b] = x;
}

/* the k-th smallest (0-based) value of the window of column x */
static inline __attribute__ ((always_inline)) guint
MED8 (kth) (MED8 (Hist) *h, const guint16 *fp, guint32 k, int x, int rad, int cx0, int cx1)
{
  const int b = MED8 (rank) (&h->kc, k);
  const guint32 below = b > 0 ? (guint32) KLANE (h->kc, b - 1) : 0;

  MED8 (update_bucket) (h, fp, b, x, rad, cx0, cx1);
  return (guint) (b * 16 + MED8 (rank) (&h->kf[b], k - below));
}

/* Adds (add) or removes one row's samples s[x · ch] to the prefixes of columns
 * [colmin, colmax] (fp, cp offset to image columns) */
static inline __attribute__ ((always_inline)) void
MED8 (col_row) (guint16 *restrict fp, guint16 *restrict cp, const guint8 *restrict s, int ch,
                int colmin, int colmax, gboolean add)
{
  for (int x = colmin; x <= colmax; x++)
    {
      const guint v = s[(gsize) x * ch];
      LbU16x16u *f = (LbU16x16u *) (void *) (fp + (gsize) x * 256 + (v & 0xf0));
      LbU16x16u *c = (LbU16x16u *) (void *) (cp + (gsize) x * 16);

      if (add)
        *f += lb_median8_ge[v & 15], *c += lb_median8_ge[v >> 4];
      else
        *f -= lb_median8_ge[v & 15], *c -= lb_median8_ge[v >> 4];
    }
}

/* MED8 (col_row) of row sa added and row ss removed in one pass over the columns */
static inline __attribute__ ((always_inline)) void
MED8 (col_rows) (guint16 *restrict fp, guint16 *restrict cp, const guint8 *restrict sa,
                 const guint8 *restrict ss, int ch, int colmin, int colmax)
{
  for (int x = colmin; x <= colmax; x++)
    {
      const guint va = sa[(gsize) x * ch], vs = ss[(gsize) x * ch];
      LbU16x16u *fa = (LbU16x16u *) (void *) (fp + (gsize) x * 256 + (va & 0xf0));
      LbU16x16u *fs = (LbU16x16u *) (void *) (fp + (gsize) x * 256 + (vs & 0xf0));
      LbU16x16u *c = (LbU16x16u *) (void *) (cp + (gsize) x * 16);

      *fa += lb_median8_ge[va & 15];
      *fs -= lb_median8_ge[vs & 15];
      *c += lb_median8_ge[va >> 4] - lb_median8_ge[vs >> 4];
    }
}

/* Output columns [xs0, xs1) of rows [ya, yb), channel j->c: a vertical strip, so that the
 * column prefixes of the strip (its width + 2r columns, 544 bytes each) stay in L2 cache.
 * fine and coarse have room for those columns. */
LB_KERNEL_CLONES static void
MED8 (strip) (const LbMedianJob *j, MED8 (Hist) *h, guint16 *fine, guint16 *coarse, int ya,
              int yb, int xs0, int xs1)
{
  const int rad = j->r, ch = j->ch, c = j->c;
  const int cx0 = j->x0, cx1 = j->x1 - 1, ry0 = j->y0, ry1 = j->y1 - 1;
  /* the columns whose prefixes this strip needs */
  const int colmin = MAX (cx0, xs0 - rad), colmax = MIN (cx1, xs1 - 1 + rad);
  /* offset so that image column x indexes them */
  guint16 *const fp = fine - (gsize) colmin * 256, *const cp = coarse - (gsize) colmin * 16;

  memset (fine, 0, (gsize) (colmax - colmin + 1) * 256 * sizeof (guint16));
  memset (coarse, 0, (gsize) (colmax - colmin + 1) * 16 * sizeof (guint16));
  /* rows ya−r−1 … ya+r−1: the first output row then adds ya+r and drops ya−r−1 */
  for (int y = MAX (ry0, ya - rad - 1); y <= MIN (ry1, ya + rad - 1); y++)
    MED8 (col_row) (fp, cp, lb_m8_row (j, y), ch, colmin, colmax, TRUE);
  for (int y = ya; y < yb; y++)
    {
      guint8 *d = j->dst + (gsize) y * j->dstride + c;
      const int wy0 = MAX (ry0, y - rad), wy1 = MIN (ry1, y + rad);

      /* slide the column prefixes down: row y + r enters, y − r − 1 leaves */
      if (y + rad <= ry1 && y - rad - 1 >= ry0)
        MED8 (col_rows) (fp, cp, lb_m8_row (j, y + rad), lb_m8_row (j, y - rad - 1), ch, colmin,
                         colmax);
      else if (y + rad <= ry1)
        MED8 (col_row) (fp, cp, lb_m8_row (j, y + rad), ch, colmin, colmax, TRUE);
      else if (y - rad - 1 >= ry0)
        MED8 (col_row) (fp, cp, lb_m8_row (j, y - rad - 1), ch, colmin, colmax, FALSE);

      h->kc = (KTV) { 0 };
      for (int b = 0; b < 16; b++)
        h->last[b] = -1;   /* stale: rebuilt on first use */
      for (int col = colmin; col <= MIN (colmax, xs0 + rad - 1); col++)
        KADD (h->kc, lb_load_u16x16 (cp + (gsize) col * 16));
      for (int x = xs0; x < xs1; x++)
        {
          const int wx0 = MAX (cx0, x - rad), wx1 = MIN (cx1, x + rad);
          const guint32 n = (guint32) (wx1 - wx0 + 1) * (guint32) (wy1 - wy0 + 1);
          guint v;

          if (x + rad <= colmax)
            KADD (h->kc, lb_load_u16x16 (cp + (gsize) (x + rad) * 16));
          if (x - rad - 1 >= colmin)
            KSUB (h->kc, lb_load_u16x16 (cp + (gsize) (x - rad - 1) * 16));
          if (n & 1)
            v = MED8 (kth) (h, fp, n / 2, x, rad, cx0, cx1);
          else
            v = (MED8 (kth) (h, fp, n / 2 - 1, x, rad, cx0, cx1)
                 + MED8 (kth) (h, fp, n / 2, x, rad, cx0, cx1)) / 2;
          d[(gsize) x * ch] = (guint8) v;
        }
    }
}

#undef KTV
#undef KADD
#undef KSUB
#undef KLANE
#undef MED8
#undef MED8_SIMD_RANK
