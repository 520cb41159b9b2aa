/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Huang's sliding-window median for 16-bit samples, included by lb-median-hist.h once per
 * count type: HCT is the type of the two finer levels' counts, guint16 when the window holds
 * at most 65535 samples ((2r+1)² ≤ 65535, r ≤ 127), else guint32; HUANG(name) makes the names
 * unique per instance; HUANG_SIMD_SELECT says HCT is guint16, so that a level's 16 bins can
 * be searched without a branch (lb_select16_u16).
 *
 * Three levels (256, 4096, 65536 bins), searched from the previous answer's high-byte bin;
 * 2(2r+1) updates per sample, or in the u16 instance far fewer with several rows at a time
 * (HUANG (group)). The u16 instance (r < 48, below the four tiers) halves the
 * finer levels' cache footprint and searches them branch-free: 1.4 Mpx GRAY16, 2 threads,
 * alternating builds, median 15 62.2–62.4 → 53.9–54.1 ms, median 3 29.4–29.5 → 23.2–23.6;
 * kernels-b test card, 1 thread, 124–125 → 115 ms. */

#if HUANG_SIMD_SELECT
/* Rows at a time (see HUANG (group)): at most 4; k − 1 delta rows of 2r + 1 samples fit the
 * deltas' u8 counts, and k ≤ 2r + 1 leaves the base a row. */
#define HUANG_GROUP_MAX 4
#ifndef HUANG_GROUP_ROWS
#define HUANG_GROUP_ROWS(r) ((r) <= 42 ? 4 : (r) <= 63 ? 3 : 2)
#endif
/* The samples of the row segments that one window of a group has and the others have not
 * (see HUANG (group)): at most (k − 1)(2r + 1) ≤ 255 of them, in u8 counts. */
typedef struct {
  guint8 l1[256];
  guint8 l2[4096];
  guint8 l3[65536];
} HUANG (Delta);
#endif

typedef struct {
  guint32 l1[256];
  HCT l2[4096];
  HCT l3[65536];
  guint pb;        /* high-byte bin where the last search ended */
  guint32 below;   /* window values < pb · 256 */
#if HUANG_SIMD_SELECT
  HUANG (Delta) delta[HUANG_GROUP_MAX]; /* zero between calls */
#endif
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

#if HUANG_SIMD_SELECT
/* ---- several rows at a time -------------------------------------------------------------------
 *
 * The windows of k neighbouring rows y … y + k − 1 share 2r + 2 − k of their rows: one
 * histogram (the "base") of the shared rows slides along the rows, and each window adds the
 * k − 1 row segments only it has (window i: k − 1 − i rows above the base, i below it), kept
 * in a small histogram of its own (a HUANG (Delta)) that slides by k − 1 samples in and out
 * per pixel. A window's search walks the sum of the two. Per output pixel
 * (2 (2r + 2 − k) + 2k (k − 1)) / k sample updates instead of 4r + 2: for k = 2, 2r + 2; for
 * k = 4, r + 5. Measured (lightbox-bench's full-range picture, 1400×1000, 1 thread, 8 bands,
 * ms, one row at a time / k = 2 / 3 / 4 / 5 / 6): r 3 46 / 42 / 39 / 39–41 / 40 / 44; r 15
 * 107 / 81 / 68–72 / 66 / 68 / 69; r 31 (up to k = 4) 207 / 149 / 120 / 109. A first
 * version written for two rows only took r 15 to 75. Four rows also bound the deltas' u8
 * counts to r ≤ 42: three rows from r 43, two from r 64. */

/* A window of the group: its delta, and where its last search ended (as h->pb and h->below
 * are for the single-row path, for base + delta). */
typedef struct {
  HUANG (Delta) *d;
  guint pb;
  guint32 below;
} HUANG (View);

/* adds the samples of column xa in rows [wy0, wy1] to the base and removes those of column xs
 * (either may be −1: none), in one pass over the rows, and keeps the k views' counts below
 * their bins */
static inline __attribute__ ((always_inline)) void
HUANG (base_columns) (HUANG (Hist) *h, const LbMedianJob *j, int xa, int xs, int wy0, int wy1,
                      HUANG (View) *v, const int k)
{
  const gsize sstride = j->sstride;
  const guint8 *pa = (const guint8 *) (lb_m16_row (j, wy0) + (gsize) MAX (xa, 0) * j->ch);
  const guint8 *ps = (const guint8 *) (lb_m16_row (j, wy0) + (gsize) MAX (xs, 0) * j->ch);
  guint q[HUANG_GROUP_MAX];
  guint32 b[HUANG_GROUP_MAX] = { 0 };

  for (int i = 0; i < k; i++)
    q[i] = v[i].pb;
  for (int y = wy0; y <= wy1; y++, pa += sstride, ps += sstride)
    {
      if (xa >= 0)
        {
          const guint a = *(const guint16 *) (const void *) pa;

          h->l1[a >> 8]++;
          h->l2[a >> 4]++;
          h->l3[a]++;
          for (int i = 0; i < k; i++)
            b[i] += (a >> 8) < q[i];
        }
      if (xs >= 0)
        {
          const guint s = *(const guint16 *) (const void *) ps;

          h->l1[s >> 8]--;
          h->l2[s >> 4]--;
          h->l3[s]--;
          for (int i = 0; i < k; i++)
            b[i] -= (s >> 8) < q[i];
        }
    }
  for (int i = 0; i < k; i++)
    v[i].below += b[i];
}

/* adds (d = 1) or removes (d = −1) sample v to/from a view's delta */
static inline __attribute__ ((always_inline)) void
HUANG (delta_add) (HUANG (View) *w, guint v, int d)
{
  w->d->l1[v >> 8] += (guint8) d;
  w->d->l2[v >> 4] += (guint8) d;
  w->d->l3[v] += (guint8) d;
  w->below += (v >> 8) < w->pb ? (guint32) d : 0;
}

/* the k-th smallest (0-based) of base + the view's delta */
static inline __attribute__ ((always_inline)) guint
HUANG (view_kth) (const HUANG (Hist) *h, HUANG (View) *w, guint32 k)
{
  const HUANG (Delta) *d = w->d;
  guint32 acc = w->below;
  guint i = w->pb;

  while (acc > k)
    {
      i--;
      acc -= h->l1[i] + d->l1[i];
    }
  while (acc + h->l1[i] + d->l1[i] <= k)
    {
      acc += h->l1[i] + d->l1[i];
      i++;
    }
  w->pb = i;
  w->below = acc;
  /* the 16 bins of each finer level: base (u16) plus delta (u8 widened) */
  for (int level = 0; level < 2; level++)
    {
      const HCT *hb = level == 0 ? h->l2 + i * 16 : h->l3 + i * 16;
      const guint8 *db = level == 0 ? d->l2 + i * 16 : d->l3 + i * 16;
      const __m128i dz = _mm_loadu_si128 ((const __m128i *) (const void *) db);
      const __m128i lo = _mm_add_epi16 (_mm_loadu_si128 ((const __m128i *) (const void *) hb),
                                        _mm_unpacklo_epi8 (dz, _mm_setzero_si128 ()));
      const __m128i hi = _mm_add_epi16 (_mm_loadu_si128 ((const __m128i *) (const void *) (hb
                                                                                        + 8)),
                                        _mm_unpackhi_epi8 (dz, _mm_setzero_si128 ()));

      i = i * 16 + (guint) lb_select16_u16 (lo, hi, k - acc, &acc);
    }
  return i;
}

/* the delta rows' samples of column x added to (d = 1) or removed from (d = −1) every view;
 * view i's rows are rows[i][0 … nr[i] − 1] */
static inline __attribute__ ((always_inline)) void
HUANG (delta_column) (HUANG (View) *v, const guint16 *const rows[][HUANG_GROUP_MAX],
                      const int *nr, gsize xi, int d, const int k)
{
  for (int i = 0; i < k; i++)
    for (int q = 0; q < nr[i]; q++)
      HUANG (delta_add) (&v[i], rows[i][q][xi], d);
}

/* rows y … y + k − 1 (all in the band), 2 ≤ k ≤ HUANG_GROUP_MAX, (k − 1)(2r + 1) ≤ 255 (the
 * deltas' u8 counts) and k ≤ 2r + 1 (the base has a row); inlined into HUANG (rows) with k a
 * constant, sharing its clones */
static inline __attribute__ ((always_inline)) void
HUANG (group) (const LbMedianJob *j, HUANG (Hist) *h, int y, const int k)
{
  const int r = j->r, cx0 = j->x0, cx1 = j->x1 - 1, ch = j->ch;
  /* the base holds the rows all k windows hold, [b0, b1]; window i also rows [w0, b0) and
   * (b1, w1] of its own, clipped to the region */
  const int b0 = MAX (j->y0, y + k - 1 - r), b1 = MIN (j->y1 - 1, y + r);
  const guint16 *rows[HUANG_GROUP_MAX][HUANG_GROUP_MAX];
  int nr[HUANG_GROUP_MAX];
  guint32 hw[HUANG_GROUP_MAX];
  guint16 *dst[HUANG_GROUP_MAX];
  HUANG (View) v[HUANG_GROUP_MAX];

  for (int i = 0; i < k; i++)
    {
      const int w0 = MAX (j->y0, y + i - r), w1 = MIN (j->y1 - 1, y + i + r);

      nr[i] = 0;
      for (int yy = w0; yy < b0; yy++)
        rows[i][nr[i]++] = lb_m16_row (j, yy);
      for (int yy = b1 + 1; yy <= w1; yy++)
        rows[i][nr[i]++] = lb_m16_row (j, yy);
      hw[i] = (guint32) (w1 - w0 + 1);
      dst[i] = (guint16 *) (void *) (j->dst + (gsize) (y + i) * j->dstride) + j->c;
      v[i].d = &h->delta[i];
      v[i].pb = h->pb;
      v[i].below = h->below;
    }
  for (int x = cx0; x <= MIN (cx1, cx0 + r - 1); x++)
    {
      HUANG (base_columns) (h, j, x, -1, b0, b1, v, k);
      HUANG (delta_column) (v, rows, nr, (gsize) x * ch, 1, k);
    }
  for (int x = cx0; x <= cx1; x++)
    {
      const guint32 nw = (guint32) (MIN (cx1, x + r) - MAX (cx0, x - r) + 1);
      const int xa = x + r <= cx1 ? x + r : -1, xs = x - r - 1 >= cx0 ? x - r - 1 : -1;

      if (xa >= 0 && xs >= 0)
        HUANG (base_columns) (h, j, xa, xs, b0, b1, v, k);
      else if (xa >= 0)
        HUANG (base_columns) (h, j, xa, -1, b0, b1, v, k);
      else if (xs >= 0)
        HUANG (base_columns) (h, j, -1, xs, b0, b1, v, k);
      if (xa >= 0)
        HUANG (delta_column) (v, rows, nr, (gsize) xa * ch, 1, k);
      if (xs >= 0)
        HUANG (delta_column) (v, rows, nr, (gsize) xs * ch, -1, k);
      for (int i = 0; i < k; i++)
        {
          const guint32 n = nw * hw[i];

          dst[i][(gsize) x * ch]
            = (guint16) (n & 1 ? HUANG (view_kth) (h, &v[i], n / 2)
                               : (HUANG (view_kth) (h, &v[i], n / 2 - 1)
                                  + HUANG (view_kth) (h, &v[i], n / 2)) / 2);
        }
    }
  /* empty the base and the deltas by removing what is left */
  for (int x = MAX (cx0, cx1 - r); x <= cx1; x++)
    {
      HUANG (base_columns) (h, j, -1, x, b0, b1, v, k);
      HUANG (delta_column) (v, rows, nr, (gsize) x * ch, -1, k);
    }
  /* the next rows' searches start where this group's last row ended */
  h->pb = v[k - 1].pb;
  h->below = v[k - 1].below;
}
#endif

LB_KERNEL_CLONES static void
HUANG (rows) (const LbMedianJob *j, HUANG (Hist) *h, int ya, int yb)
{
  const int r = j->r, cx0 = j->x0, cx1 = j->x1 - 1;

  for (int y = ya; y < yb; y++)
    {
#if HUANG_SIMD_SELECT
      /* groups of rows where the band has them (see HUANG (group)) */
      const int k = MIN (MIN (yb - y, 2 * r + 1), HUANG_GROUP_ROWS (r));

      if (k >= 2)
        {
          if (k == 4)
            HUANG (group) (j, h, y, 4);
          else if (k == 3)
            HUANG (group) (j, h, y, 3);
          else
            HUANG (group) (j, h, y, 2);
          y += k - 1;
          continue;
        }
#endif
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
