/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Huang's sliding-window median for 16-bit samples, included by lb-median-hist.h once per
 * count type: HCT is the type of the two finer levels' counts, guint16 when the window holds
 * at most 65535 samples ((2r+1)² ≤ 65535, r ≤ 127), else guint32; HUANG(name) makes the names
 * unique per instance; HUANG_SIMD_SELECT says HCT is guint16, so that a level's 16 bins can
 * be searched without a branch (lb_select16_u16).
 *
 * Three levels (256, 4096, 65536 bins), searched from the previous answer's high-byte bin;
 * 2(2r+1) updates per sample. The u16 instance (r < 48, below the four tiers) halves the
 * finer levels' cache footprint and searches them branch-free: 1.4 Mpx GRAY16, 2 threads,
 * alternating builds, median 15 62.2–62.4 → 53.9–54.1 ms, median 3 29.4–29.5 → 23.2–23.6;
 * kernels-b test card, 1 thread, 124–125 → 115 ms. */

typedef struct {
  guint32 l1[256];
  HCT l2[4096];
  HCT l3[65536];
  guint pb;        /* high-byte bin where the last search ended */
  guint32 below;   /* window values < pb · 256 */
} HUANG (Hist);

/* adds d (1 or −1 as guint32) for the samples of column x in rows [wy0, wy1]; returns the
 * change of the count below pb · 256, which the caller keeps: kept in h, it was stored at
 * every sample (the counters may alias it), which halved the speed on smooth images */
static inline __attribute__ ((always_inline)) guint32
HUANG (column) (HUANG (Hist) *h, const LbMedianJob *j, int x, int wy0, int wy1, guint32 d)
{
  /* locals, not reads through j and h: the counter stores may alias them */
  const gsize sstride = j->sstride;
  const guint8 *p = (const guint8 *) (lb_m16_row (j, wy0) + (gsize) x * j->ch);
  const guint pb = h->pb;
  guint32 below = 0;

  for (int y = wy0; y <= wy1; y++, p += sstride)
    {
      const guint v = *(const guint16 *) (const void *) p;

      h->l1[v >> 8] += d;
      h->l2[v >> 4] += d;
      h->l3[v] += d;
      below += (v >> 8) < pb ? d : 0;
    }
  return below;
}

/* HUANG (column) of column xa (added) and column xs (removed) in one pass over the rows:
 * two independent streams of updates per iteration */
static inline __attribute__ ((always_inline)) guint32
HUANG (columns) (HUANG (Hist) *h, const LbMedianJob *j, int xa, int xs, int wy0, int wy1)
{
  const gsize sstride = j->sstride;
  const guint8 *pa = (const guint8 *) (lb_m16_row (j, wy0) + (gsize) xa * j->ch);
  const guint8 *ps = (const guint8 *) (lb_m16_row (j, wy0) + (gsize) xs * j->ch);
  const guint pb = h->pb;
  guint32 below = 0;

  for (int y = wy0; y <= wy1; y++, pa += sstride, ps += sstride)
    {
      const guint va = *(const guint16 *) (const void *) pa;
      const guint vs = *(const guint16 *) (const void *) ps;

      h->l1[va >> 8]++;
      h->l2[va >> 4]++;
      h->l3[va]++;
      h->l1[vs >> 8]--;
      h->l2[vs >> 4]--;
      h->l3[vs]--;
      below += ((va >> 8) < pb) - ((vs >> 8) < pb);
    }
  return below;
}

/* the k-th smallest (0-based): along a row the median moves a few high-byte bins at most */
static inline guint
HUANG (kth) (HUANG (Hist) *h, guint32 k)
{
  guint32 acc = h->below;
  guint i = h->pb;

  while (acc > k)
    acc -= h->l1[--i];
  while (acc + h->l1[i] <= k)
    acc += h->l1[i++];
  h->pb = i;
  h->below = acc;
#if HUANG_SIMD_SELECT
  /* u16 counts: the 16 bins of each finer level by a branch-free select (each walk's exit
   * mispredicted); the select adds the bins before its answer to acc */
  i = i * 16 + (guint) lb_select16_u16_at (h->l2 + i * 16, k - acc, &acc);
  return i * 16 + (guint) lb_select16_u16_at (h->l3 + i * 16, k - acc, &acc);
#else
  i <<= 4;
  while (acc + h->l2[i] <= k)
    acc += h->l2[i++];
  i <<= 4;
  while (acc + h->l3[i] <= k)
    acc += h->l3[i++];
  return i;
#endif
}

LB_MEDIAN_HIST_CLONES static void
HUANG (rows) (const LbMedianJob *j, HUANG (Hist) *h, int ya, int yb)
{
  const int r = j->r, cx0 = j->x0, cx1 = j->x1 - 1;

  for (int y = ya; y < yb; y++)
    {
      guint16 *d = (guint16 *) (void *) (j->dst + (gsize) y * j->dstride) + j->c;
      const int wy0 = MAX (j->y0, y - r), wy1 = MIN (j->y1 - 1, y + r);

      for (int x = cx0; x <= MIN (cx1, cx0 + r - 1); x++)
        h->below += HUANG (column) (h, j, x, wy0, wy1, 1);
      for (int x = cx0; x <= cx1; x++)
        {
          const guint32 n = (guint32) (MIN (cx1, x + r) - MAX (cx0, x - r) + 1)
                            * (guint32) (wy1 - wy0 + 1);

          if (x + r <= cx1 && x - r - 1 >= cx0)
            h->below += HUANG (columns) (h, j, x + r, x - r - 1, wy0, wy1);
          else if (x + r <= cx1)
            h->below += HUANG (column) (h, j, x + r, wy0, wy1, 1);
          else if (x - r - 1 >= cx0)
            h->below += HUANG (column) (h, j, x - r - 1, wy0, wy1, (guint32) -1);
          if (n & 1)
            d[(gsize) x * j->ch] = (guint16) HUANG (kth) (h, n / 2);
          else
            d[(gsize) x * j->ch] = (guint16) ((HUANG (kth) (h, n / 2 - 1)
                                               + HUANG (kth) (h, n / 2)) / 2);
        }
      /* empty the histogram by removing what is left, cheaper than clearing 280 KiB */
      for (int x = MAX (cx0, cx1 - r); x <= cx1; x++)
        h->below += HUANG (column) (h, j, x, wy0, wy1, (guint32) -1);
    }
}

#undef HCT
#undef HUANG
#undef HUANG_SIMD_SELECT
