/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Histogram medians shared by the enhance median (lb-median.c) and xv despeckle
 * (lb-xv-despeckle.c): both take, per colour channel, the median of the (2r+1)² window clipped
 * to the region, and with an even count (clipped windows only) the truncated mean of the two
 * middle values. Header-only (static functions) so each kernel library keeps its own copy and
 * its own compile flags; GLib and SSE2 (the x86-64 baseline) only.
 *
 *  - lb_select16_u16: the k-th value's bin among 16 u16 counts, without a branch.
 *  - lb_median8_rows: 8-bit samples, from r = 3 (below that the networks of
 *    lb-median-net.h): Perreault & Hébert's constant-time median (IEEE TIP 2007) on prefix
 *    sums (lb-median8-body.h).
 *  - lb_median16_rows: 16-bit samples. For r ≤ 127, a band's channel whose samples hold at
 *    most 4096 distinct values takes the rank path (see below): renumbered, and the 8-bit
 *    scheme on the ranks with three tiers. Otherwise: for 48 ≤ r ≤ 127 the two-tier scheme
 *    of Perreault & Hébert's constant-time median carried to four tiers of 16 bins (see
 *    below): constant cost per sample on smooth data, rebuilds linear in r on noisy data.
 *    For r < 48 (where it is cheaper on noisy images) and r > 127 (u16 window counts)
 *    Huang's sliding histogram, O(r) per sample: below r 128 up to four rows at a time
 *    (lb-median-huang16-body.h), about r + 5 updates per sample instead of 4r + 2. */

#include <string.h>

#include <emmintrin.h>
#include <glib.h>

#include "lb-kernel.h"

/* 16 histogram bins as one value; GCC lowers the arithmetic to SSE2 or AVX2. */
typedef guint16 LbU16x16 __attribute__ ((vector_size (32)));
typedef guint8 LbU8x16 __attribute__ ((vector_size (16)));
typedef guint16 LbU16x8 __attribute__ ((vector_size (16)));
/* Unaligned loads of 16 counts (macros: a function returning a 32-byte vector would have an
 * ABI that depends on AVX being enabled). */
typedef guint16 LbU16x16u __attribute__ ((vector_size (32), aligned (2), may_alias));
typedef guint8 LbU8x16u __attribute__ ((vector_size (16), aligned (1), may_alias));
#define lb_load_u16x16(p) ((LbU16x16) *(const LbU16x16u *) (const void *) (p))
#define lb_load_u8x16_wide(p) \
  __builtin_convertvector (*(const LbU8x16u *) (const void *) (p), LbU16x16)

/* The halves of a LbU16x16 value as SSE2 registers, taken from the value (a register in the
 * AVX2 clone), not reloaded from memory: the vector was stored just before, and two 16-byte
 * loads from one 32-byte store wait for it to retire instead of being forwarded. */
#define lb_u16x16_lo(v) \
  ((__m128i) __builtin_shufflevector ((v), (v), 0, 1, 2, 3, 4, 5, 6, 7))
#define lb_u16x16_hi(v) \
  ((__m128i) __builtin_shufflevector ((v), (v), 8, 9, 10, 11, 12, 13, 14, 15))

/* The bin of h[0..15] (u16 counts, total ≤ 65535; h[0..7] in lo, h[8..15] in hi) holding
 * the k-th smallest value, and in *cum the count of the bins before it added, without a
 * data-dependent branch: prefix sums of the 16 counts in two SSE2 registers, compared with k
 * (p ≤ k as a saturating p − k == 0); the number of prefixes ≤ k is the bin. A scan with an
 * early exit mispredicts once per search (the bin changes from sample to sample), which cost
 * more than the search itself. */
static inline __attribute__ ((always_inline)) int
lb_select16_u16 (__m128i lo, __m128i hi, guint32 k, guint32 *cum)
{
  const __m128i kv = _mm_set1_epi16 ((short) k), zero = _mm_setzero_si128 ();
  guint16 pre[16];
  unsigned bits;
  int b;

  lo = _mm_add_epi16 (lo, _mm_slli_si128 (lo, 2));
  hi = _mm_add_epi16 (hi, _mm_slli_si128 (hi, 2));
  lo = _mm_add_epi16 (lo, _mm_slli_si128 (lo, 4));
  hi = _mm_add_epi16 (hi, _mm_slli_si128 (hi, 4));
  lo = _mm_add_epi16 (lo, _mm_slli_si128 (lo, 8));
  hi = _mm_add_epi16 (hi, _mm_slli_si128 (hi, 8));
  hi = _mm_add_epi16 (hi, _mm_set1_epi16 ((short) _mm_extract_epi16 (lo, 7)));
  bits = (unsigned) _mm_movemask_epi8 (_mm_cmpeq_epi16 (_mm_subs_epu16 (lo, kv), zero))
         | (unsigned) _mm_movemask_epi8 (_mm_cmpeq_epi16 (_mm_subs_epu16 (hi, kv), zero)) << 16;
  b = __builtin_popcount (bits) / 2;
  _mm_storeu_si128 ((__m128i *) (void *) pre, lo);
  _mm_storeu_si128 ((__m128i *) (void *) (pre + 8), hi);
  *cum += b > 0 ? pre[b - 1] : 0;
  return b;
}

/* lb_select16_u16 of the 16 counts at h in memory (not just stored as one vector) */
static inline __attribute__ ((always_inline)) int
lb_select16_u16_at (const guint16 *h, guint32 k, guint32 *cum)
{
  return lb_select16_u16 (_mm_loadu_si128 ((const __m128i *) (const void *) h),
                          _mm_loadu_si128 ((const __m128i *) (const void *) (h + 8)), k, cum);
}

/* *sum = the sum of the n ≥ 1 u8 vectors of 16 at p, p + 16, … (columns of one bucket side by
 * side), widened to u16 (the sum must fit). Two neighbouring columns (32 bytes) at a time, as
 * 16 u16 lanes: the low bytes are the even bins, the high bytes the odd ones, summed apart (a
 * mask and a shift) and interleaved at the end. Widening each column took GCC 12 five
 * instructions (two zero-extensions, a byte shift, an insert, the add): rebuilding a rank
 * path bucket went from a third of the time to a fifth on steep ramps, where the median
 * leaves its fine bucket at every pixel (r 15, 1 thread: 71 → 63–65 ms). Not a return
 * value: a 32-byte vector return has an ABI that depends on AVX. */
static inline __attribute__ ((always_inline)) void
lb_sum_u8x16_cols (const guint8 *p, int n, LbU16x16 *sum)
{
  LbU16x16 even = { 0 }, odd = { 0 };
  LbU16x8 e, o;
  int i;

  for (i = 0; i + 1 < n; i += 2, p += 32)
    {
      const LbU16x16 v = lb_load_u16x16 (p);

      even += v & 0xff;
      odd += v >> 8;
    }
  e = __builtin_shufflevector (even, even, 0, 1, 2, 3, 4, 5, 6, 7)
      + __builtin_shufflevector (even, even, 8, 9, 10, 11, 12, 13, 14, 15);
  o = __builtin_shufflevector (odd, odd, 0, 1, 2, 3, 4, 5, 6, 7)
      + __builtin_shufflevector (odd, odd, 8, 9, 10, 11, 12, 13, 14, 15);
  *sum = __builtin_shufflevector (e, o, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
  if (i < n)
    *sum += lb_load_u8x16_wide (p);
}

/* The number of the 16 non-decreasing u16 values p[0..15] that are ≤ k (k ≤ 65535): with
 * prefix sums of a histogram in p, the bin of the k-th smallest value (0-based). lo and hi
 * hold p[0..7] and p[8..15]. */
static inline __attribute__ ((always_inline)) int
lb_rank16_u16 (__m128i lo, __m128i hi, guint32 k)
{
  const __m128i kv = _mm_set1_epi16 ((short) k);
  /* p ≤ k as a saturating p − k == 0; packed to bytes with signed saturation, which maps 0 to
   * 0 and every other u16 (1 … 32767, and as negatives 32768 … 65535) to a non-zero byte */
  const __m128i gt = _mm_packs_epi16 (_mm_subs_epu16 (lo, kv), _mm_subs_epu16 (hi, kv));

  return __builtin_popcount ((unsigned) _mm_movemask_epi8 (
    _mm_cmpeq_epi8 (gt, _mm_setzero_si128 ())));
}

/* One channel of a median: samples src + y·sstride (bytes) + x·ch + c (in samples), region
 * [x0, x1) × [y0, y1) in image coordinates, window radius r; writes dst likewise. */
typedef struct {
  const guint8 *src;
  guint8 *dst;
  gsize sstride, dstride;
  int ch, c;
  int x0, x1, y0, y1;
  int r;
  /* 16 bits: never take the rank path (tests, to reach the others on small images) */
  gboolean no_ranks;
  /* 16 bits: memory for the rank path, at least lb_median16_scratch_size () bytes, 64-byte
   * aligned, content undefined on entry (the plugin ABI's per-thread scratch, reused between
   * the bands a thread runs); NULL or smaller: allocated per call */
  gpointer scratch;
  gsize scratch_size;
  /* nullable: told of progress after each strip (or Huang's chunk of rows) of each channel,
   * in units of those; a FALSE answer stops the job with its output incomplete */
  const LbKernelTicker *ticker;
} LbMedianJob;

/* Progress of a job over @nc channels: channel j->c is @i/@n done. FALSE: stop now. */
#define LB_MEDIAN_TICKS 4096
static inline gboolean
lb_median_tick (const LbMedianJob *j, int nc, int i, int n)
{
  if (j->ticker == NULL)
    return TRUE;
  return lb_kernel_tick (j->ticker,
                         (guint64) j->c * LB_MEDIAN_TICKS
                           + (guint64) MIN (i, n) * LB_MEDIAN_TICKS / (guint64) MAX (n, 1),
                         (guint64) nc * LB_MEDIAN_TICKS);
}

static inline const guint16 *
lb_m16_row (const LbMedianJob *j, int y)
{
  return (const guint16 *) (const void *) (j->src + (gsize) y * j->sstride) + j->c;
}

/* ---- 48 ≤ r ≤ 127: four-tier constant-time median -------------------------------------------
 *
 * A 16-bit value v is found in four tiers of 16-way choices: tier t has 16^(t+1) bins, bin
 * v >> (12 − 4t). Every column of the strip keeps its histogram at every tier (u8 counts: a
 * column holds ≤ 2r+1 ≤ 255 samples; 69 904 bytes per column), updated by one sample in and
 * one out per row. The window's tier-0 histogram (16 bins) slides along the row by one column
 * histogram in and one out per pixel. The window's tier-t histogram (t ≥ 1) is kept in groups
 * of 16 bins, one per tier-(t−1) bin, each brought up to date only when the search enters it
 * (Perreault's lazy update): by the columns that entered and left since its last use, or
 * rebuilt from the window's columns when that is cheaper. The search is four branch-free
 * 16-bin selects. Window counts are u16, so (2r+1)² ≤ 65535: r ≤ 127. Per sample: 8 column
 * updates (×(strip + 2r)/strip for the halo), 2 vector ops for tier 0 and for each deeper
 * tier 2 per column moved since the group's last use — a constant on images where the median
 * stays in the same groups, at most 2r+1 vector loads per tier where it jumps (noise). */

#define LB_M16_MAX_RADIUS 127
/* Below this radius Huang's O(r) updates cost less than the four tiers, whose constant
 * depends on the data: where the window's values spread thinly (noise), the median changes
 * its tier-2 and tier-3 groups at almost every pixel and each change rebuilds a group from
 * 2r+1 columns. Measured (1400×1000 GRAY16, 1 thread, ms, four tiers / Huang, same run, a
 * loaded 2-core EPYC): lightbox-bench's image (smooth waves over the full range + uniform
 * noise of ±1024): r 15 505 / 304, r 25 648 / 459, r 40 737 / 590, r 50 759 / 879, r 100
 * 658 / 1944; kernels-a-timing's test card (ramps, flat areas, a fine 257-periodic pattern):
 * r 3 199 / 107, r 8 220 / 210, r 10 237 / 253, r 15 262 / 326, r 25 242 / 500, r 40 344 /
 * 780. The crossover follows the noisy image, so that no image gets slower than with Huang.
 * Session 11 made both faster (Huang 1.1–2×, the four tiers' selects 1.15–1.25×); at r 26–34
 * on the noisy image (lightbox-cli, alternating runs) Huang still won, so it stays at 48.
 * Session 13's row groups (lb-median-huang16-body.h) made Huang faster again; at r 48 (1
 * thread, 8 bands, ms, four tiers / Huang with groups of three rows) it would win on noise
 * (bench image 289 / 183, a 14-bit radiograph-like image 174 / 160) and lose by more where
 * half the image is flat (135 / 225); at r 64 the four tiers win on all three (313 / 321,
 * 218 / 297, 161 / 313). Still 48. (-D LB_M16_MIN_RADIUS=1 or 1000 forces one path.) */
#ifndef LB_M16_MIN_RADIUS
#define LB_M16_MIN_RADIUS 48
#endif
#define LB_M16_COL_BYTES (16 + 256 + 4096 + 65536)

typedef struct {
  LbU16x16 k0;          /* window tier 0 */
  LbU16x16 k1[16];      /* window tier 1, group g valid as of position last1[g] */
  LbU16x16 k2[256];
  LbU16x16 k3[4096];
  gint64 last1[16], last2[256], last3[4096];
  guint8 *col;          /* tiers 0 … 3, each [group][column − colmin][16] */
  gsize ncols;          /* columns per group */
  int colmin;
  int wx0, wx1;         /* the window's columns at the current position */
  int r;
  gint64 pos;           /* current position; jumps by > 2r+1 at each new row and strip */
} LbM16;

static const gsize lb_m16_tier_off[4] = { 0, 16, 16 + 256, 16 + 256 + 4096 };

/* the 16 tier-t counts of group g (bins 16g … 16g + 15) of image column x: tier t is stored
 * group by group, each group's columns side by side, so that a group's window (a rebuild)
 * is one sequential read and neighbouring columns with close values share cache lines */
static inline guint8 *
lb_m16_at (const LbM16 *m, int t, int x, guint g)
{
  return m->col + m->ncols * lb_m16_tier_off[t]
         + ((gsize) g * m->ncols + (gsize) (x - m->colmin)) * 16;
}

#define LB_M16_COL(m, t, x, g) lb_load_u8x16_wide (lb_m16_at ((m), (t), (x), (guint) (g)))

/* Adds row sa (if not NULL) and removes row ss (if not NULL) to/from the histograms of
 * columns [x0, x1], every tier. The tier bases are locals: through m, every u8 store could
 * alias m's fields (char aliasing) and force them to be reloaded. */
static inline void
lb_m16_col_rows (const LbM16 *m, const guint16 *sa, const guint16 *ss, int ch, int x0, int x1)
{
  const gsize gs = m->ncols * 16; /* bytes per group */
  guint8 *restrict t0 = lb_m16_at (m, 0, x0, 0), *restrict t1 = lb_m16_at (m, 1, x0, 0);
  guint8 *restrict t2 = lb_m16_at (m, 2, x0, 0), *restrict t3 = lb_m16_at (m, 3, x0, 0);

#define LB_M16_ADD(v, d)                                   \
  do                                                       \
    {                                                      \
      t0[(v) >> 12] += (d);                                \
      t1[((v) >> 12) * gs + (((v) >> 8) & 15)] += (d);     \
      t2[((v) >> 8) * gs + (((v) >> 4) & 15)] += (d);      \
      t3[((v) >> 4) * gs + ((v) & 15)] += (d);             \
    }                                                      \
  while (0)
  for (int x = x0; x <= x1; x++, t0 += 16, t1 += 16, t2 += 16, t3 += 16)
    {
      if (sa != NULL)
        {
          const gsize v = sa[(gsize) x * ch];

          LB_M16_ADD (v, 1);
        }
      if (ss != NULL)
        {
          const gsize v = ss[(gsize) x * ch];

          LB_M16_ADD (v, 255); /* −1 in u8 */
        }
    }
#undef LB_M16_ADD
}

/* brings group g of the window's tier-t histogram (k, last) to the current position x */
static inline __attribute__ ((always_inline)) void
lb_m16_group (LbM16 *m, int t, LbU16x16 *k, gint64 *last, int g, int x)
{
  const gint64 steps = m->pos - last[g];

  if (steps == 0)
    return;
  if (2 * steps > m->wx1 - m->wx0 + 1)
    {
      /* stale (another row or strip: pos jumped) or cheaper to rebuild */
      LbU16x16 acc;

      lb_sum_u8x16_cols (lb_m16_at (m, t, m->wx0, (guint) g), m->wx1 - m->wx0 + 1, &acc);
      k[g] = acc;
    }
  else
    {
      /* same row and strip, fewer than 2r+1 positions ago: the columns that moved */
      LbU16x16 acc = k[g];

      for (int xx = x - (int) steps + 1; xx <= x; xx++)
        {
          if (xx + m->r <= m->wx1)
            acc += LB_M16_COL (m, t, xx + m->r, g);
          if (xx - m->r - 1 >= m->colmin)
            acc -= LB_M16_COL (m, t, xx - m->r - 1, g);
        }
      k[g] = acc;
    }
  last[g] = m->pos;
}

/* the k-th smallest (0-based) value of the window at position x */
static inline __attribute__ ((always_inline)) guint
lb_m16_kth (LbM16 *m, guint32 k, int x)
{
  guint32 cum = 0;
  int g;

  g = lb_select16_u16 (lb_u16x16_lo (m->k0), lb_u16x16_hi (m->k0), k, &cum);
  lb_m16_group (m, 1, m->k1, m->last1, g, x);
  g = g * 16 + lb_select16_u16 (lb_u16x16_lo (m->k1[g]), lb_u16x16_hi (m->k1[g]), k - cum,
                                &cum);
  lb_m16_group (m, 2, m->k2, m->last2, g, x);
  g = g * 16 + lb_select16_u16 (lb_u16x16_lo (m->k2[g]), lb_u16x16_hi (m->k2[g]), k - cum,
                                &cum);
  lb_m16_group (m, 3, m->k3, m->last3, g, x);
  return (guint) (g * 16 + lb_select16_u16 (lb_u16x16_lo (m->k3[g]), lb_u16x16_hi (m->k3[g]),
                                            k - cum, &cum));
}

/* rows [ya, yb) (inside the region), output columns [xs0, xs1): a vertical strip */
LB_KERNEL_CLONES static void
lb_m16_strip (const LbMedianJob *j, LbM16 *m, int ya, int yb, int xs0, int xs1)
{
  const int r = j->r, ch = j->ch, cx0 = j->x0, cx1 = j->x1 - 1, ry0 = j->y0, ry1 = j->y1 - 1;
  const int colmin = MAX (cx0, xs0 - r), colmax = MIN (cx1, xs1 - 1 + r);
  /* rows [rlo, rhi] are in the column histograms (all zero on entry) */
  int rlo = MAX (ry0, ya - r - 1), rhi = MIN (ry1, ya + r - 1);

  m->colmin = colmin;
  m->r = r;
  /* rows ya−r−1 … ya+r−1: the first output row then adds ya+r and drops ya−r−1 */
  for (int y = rlo; y <= rhi; y++)
    lb_m16_col_rows (m, lb_m16_row (j, y), NULL, ch, colmin, colmax);
  for (int y = ya; y < yb; y++)
    {
      guint16 *d = (guint16 *) (void *) (j->dst + (gsize) y * j->dstride) + j->c;
      const int wy0 = MAX (ry0, y - r), wy1 = MIN (ry1, y + r);
      const guint16 *sa = y + r <= ry1 ? lb_m16_row (j, y + r) : NULL;
      const guint16 *ss = y - r - 1 >= ry0 ? lb_m16_row (j, y - r - 1) : NULL;

      lb_m16_col_rows (m, sa, ss, ch, colmin, colmax);
      rhi = sa != NULL ? y + r : rhi;
      rlo = ss != NULL ? y - r : rlo;

      /* a new row: every deeper group is stale, which the jump of pos says */
      m->pos += 2 * r + 2 + (xs1 - xs0);
      m->k0 = (LbU16x16) { 0 };
      for (int col = colmin; col <= MIN (colmax, xs0 + r - 1); col++)
        m->k0 += LB_M16_COL (m, 0, col, 0);
      for (int x = xs0; x < xs1; x++)
        {
          guint32 n;

          m->pos++;
          if (x + r <= colmax)
            m->k0 += LB_M16_COL (m, 0, x + r, 0);
          if (x - r - 1 >= colmin)
            m->k0 -= LB_M16_COL (m, 0, x - r - 1, 0);
          m->wx0 = MAX (cx0, x - r);
          m->wx1 = MIN (cx1, x + r);
          n = (guint32) (m->wx1 - m->wx0 + 1) * (guint32) (wy1 - wy0 + 1);
          if (n & 1)
            d[(gsize) x * ch] = (guint16) lb_m16_kth (m, n / 2, x);
          else
            d[(gsize) x * ch] = (guint16) ((lb_m16_kth (m, n / 2 - 1, x)
                                            + lb_m16_kth (m, n / 2, x)) / 2);
        }
    }
  /* leave the column histograms empty for the next strip: removing the 2r+1 rows costs less
   * than clearing 68 KiB per column */
  for (int y = rlo; y <= rhi; y++)
    lb_m16_col_rows (m, NULL, lb_m16_row (j, y), ch, colmin, colmax);
}

/* ---- r < 48 or r > 127: Huang's sliding window (lb-median-huang16-body.h) ---------------- */

#define HCT guint16
#define HUANG(name) lb_h16k16_##name
#define HUANG_SIMD_SELECT 1
#include "lb-median-huang16-body.h"
#define HCT guint32
#define HUANG(name) lb_h16k32_##name
#define HUANG_SIMD_SELECT 0
#include "lb-median-huang16-body.h"

/* ---- at most 4096 distinct values (r ≤ 127): three tiers on ranks ---------------------------
 *
 * 16-bit medical images seldom use the whole range: CT is stored in 12 bits, and MR and most
 * radiographs hold a few thousand distinct values, as do 8-bit images widened to 16. Where
 * the samples a band reads (its rows and the window's halo, one channel) take at most 4096
 * distinct values, they are renumbered 0 … D − 1 in increasing order (their ranks). The k-th
 * smallest rank is the rank of the k-th smallest value, since the numbering is increasing, so
 * the median is found among the ranks and mapped back; with an even count both middle values
 * are mapped back before their truncated mean, as everywhere else.
 *
 * The ranks (12 bits) go through lb-median8-body.h's scheme carried to three tiers: per
 * column the prefix sums of 16 coarse bins (v >> 8), of the 16 bins of each of 16 middle
 * buckets ((v >> 4) & 15 within v >> 8) and of the 16 bins of each of 256 fine buckets
 * (v & 15 within v >> 4); the fine tier in u8 (a column holds ≤ 2r + 1 ≤ 255 samples), the
 * other two in u16, so that their per-pixel slides need no widening (GCC 12 widens 16 bytes
 * in five instructions): 4640 bytes per column. The window's coarse prefixes slide by one
 * column in and one out per pixel; a middle or fine bucket is brought up to date only when
 * the search enters it, by the columns that moved since its last use or rebuilt from the
 * window's columns when that is cheaper. Three branch-free ranks (lb_rank16_u16) find the
 * value. The cost per sample does not grow with
 * r, unlike Huang's, as long as the median stays in few buckets along a row (smooth images,
 * large windows); where it leaves its fine bucket at every pixel (noise, or steep ramps: 16
 * ranks are a narrow bucket) that bucket is rebuilt from 2r + 1 columns, linear in r again
 * but with one vector load per column where Huang makes six scalar updates.
 *
 * Measured, 1400×1000, 8 bands, ms, Huang or four tiers / this path: a CT-like 12-bit image
 * (body, bone and lung discs over air, gentle waves, noise σ ≈ 18), 1 thread: r 3 58 / 34,
 * r 15 136 / 36 (31–33 after the later changes), r 31 251 / 39, r 63 114 / 42;
 * lightbox-bench's image at 12 bits (waves over 0 … 4095, so up to 51 values a pixel, noise
 * ±64), 2 threads, three alternating runs each: r 3 26.3–26.5 / 23.2–23.5, r 15 53.4–54.4 /
 * 30.6–31.6. Counting the distinct values costs one pass over the band's samples, which
 * stops at the 4097th value. */

/* The 16 lanes of bin t's vector: 1 in lanes ≥ t, what one sample in bin t adds to a
 * prefix-sum histogram. lb_median8_ge: u16 lanes (the 8-bit path, the rank path's coarse and
 * middle tiers); lb_m12_ge: u8 lanes (the rank path's fine tier). */
#define LB_GE_LANES(t) { 0 >= t, 1 >= t, 2 >= t, 3 >= t, 4 >= t, 5 >= t, 6 >= t, 7 >= t, \
                         8 >= t, 9 >= t, 10 >= t, 11 >= t, 12 >= t, 13 >= t, 14 >= t, 15 >= t }
#define LB_GE_TABLE                                                                        \
  LB_GE_LANES (0), LB_GE_LANES (1), LB_GE_LANES (2), LB_GE_LANES (3), LB_GE_LANES (4),      \
  LB_GE_LANES (5), LB_GE_LANES (6), LB_GE_LANES (7), LB_GE_LANES (8), LB_GE_LANES (9),      \
  LB_GE_LANES (10), LB_GE_LANES (11), LB_GE_LANES (12), LB_GE_LANES (13), LB_GE_LANES (14), \
  LB_GE_LANES (15)
static const LbU16x16 lb_median8_ge[16] __attribute__ ((aligned (32), unused)) = { LB_GE_TABLE };
static const LbU8x16 lb_m12_ge[16] __attribute__ ((aligned (16), unused)) = { LB_GE_TABLE };
#undef LB_GE_TABLE
#undef LB_GE_LANES

#define LB_M12_MAX_VALUES 4096
#define LB_M12_COL_BYTES (32 + 512 + 4096)
/* Output columns per strip, at least: the 2r halo columns' updates are the price of a
 * narrow strip, and (strip + 2r) · 4640 bytes outgrowing L2 that of a wide one. Measured
 * (1400×1000 CT-like 12-bit image, 1 thread, ms, strips of 64 / 128 / 256 / 512 / the
 * image's width, same run): r 3 33 / 33 / 33 / 33 / 35–49; r 15 38 / 35 / 34 / 33 / 35;
 * r 63 57–61 / 48 / 43 / 41–45 / 39. Hence 256, and 6r for large r. */
#define LB_M12_STRIP 256
/* rows a band needs for the rank path (see lb_median16_rows) */
#define LB_M12_MIN_ROWS 4

typedef struct {
  LbU16x16 km[16];      /* window middle prefixes, bucket b valid as of column lastm[b] */
  LbU16x16 kf[256];     /* window fine prefixes, bucket g valid as of column lastf[g] */
  int lastm[16], lastf[256];
  guint8 *col;          /* tiers 0 … 2, each [bucket][column − colmin][16] */
  gsize ncols;          /* columns per bucket */
  int colmin;
  gboolean dirty;       /* col may hold non-zero bytes (else all zero: fresh g_malloc0) */
} LbM12;

static const gsize lb_m12_tier_off[3] = { 0, 32, 32 + 512 };

/* the 16 tier-t prefixes of bucket b of image column x: a bucket's columns side by side, so
 * that rebuilding or sliding a bucket reads them in sequence; u16 in tiers 0 and 1, u8 in
 * tier 2 */
static inline guint8 *
lb_m12_at (const LbM12 *m, int t, int x, guint b)
{
  return m->col + m->ncols * lb_m12_tier_off[t]
         + ((gsize) b * m->ncols + (gsize) (x - m->colmin)) * (t < 2 ? 32 : 16);
}

/* Adds row sa (add) and removes row ss (sub) — ranks lut[sample] — to/from the prefixes of
 * columns [x0, x1]. The tier bases are locals: u8 stores through m could alias its fields. */
static inline __attribute__ ((always_inline)) void
lb_m12_col_rows (const LbM12 *m, const guint16 *restrict lut, const guint16 *sa,
                 const guint16 *ss, int ch, int x0, int x1, gboolean add, gboolean sub)
{
  const gsize bs1 = m->ncols * 32, bs2 = m->ncols * 16; /* bytes per bucket */
  guint8 *restrict t0 = lb_m12_at (m, 0, x0, 0), *restrict t1 = lb_m12_at (m, 1, x0, 0);
  guint8 *restrict t2 = lb_m12_at (m, 2, x0, 0);

#define LB_M12_P16(p) (*(LbU16x16u *) (void *) (p))
#define LB_M12_P8(p) (*(LbU8x16u *) (void *) (p))
  for (int x = x0; x <= x1; x++, t0 += 32, t1 += 32, t2 += 16)
    {
      const guint va = add ? lut[sa[(gsize) x * ch]] : 0;
      const guint vs = sub ? lut[ss[(gsize) x * ch]] : 0;

      if (add && sub)
        LB_M12_P16 (t0) += lb_median8_ge[va >> 8] - lb_median8_ge[vs >> 8];
      else if (add)
        LB_M12_P16 (t0) += lb_median8_ge[va >> 8];
      else
        LB_M12_P16 (t0) -= lb_median8_ge[vs >> 8];
      if (add)
        {
          LB_M12_P16 (t1 + (va >> 8) * bs1) += lb_median8_ge[(va >> 4) & 15];
          LB_M12_P8 (t2 + (va >> 4) * bs2) += lb_m12_ge[va & 15];
        }
      if (sub)
        {
          LB_M12_P16 (t1 + (vs >> 8) * bs1) -= lb_median8_ge[(vs >> 4) & 15];
          LB_M12_P8 (t2 + (vs >> 4) * bs2) -= lb_m12_ge[vs & 15];
        }
    }
#undef LB_M12_P16
#undef LB_M12_P8
}

/* brings bucket b of the window's tier-t prefixes (kv[b], valid as of column last[b]; −1:
 * stale) to the window of column x, [wx0, wx1], and copies it to *out (a local of the caller, in
 * registers once inlined): the caller searches the value, not a reload of the 32-byte store
 * just made (two 16-byte loads of it are not forwarded; that reload took a tenth of the time).
 * Not a return value: a 32-byte vector return has an ABI that depends on AVX. */
static inline __attribute__ ((always_inline)) void
lb_m12_bucket (const guint8 *tb, gsize bs, LbU16x16 *kv, int *last, guint b, int x, int r,
               int wx0, int wx1, int cx0, int cx1, const gboolean u16, LbU16x16 *out)
{
  /* bytes per column; column x of the bucket */
  const gsize es = u16 ? 32 : 16;
#define LB_M12_COL(x) \
  (u16 ? lb_load_u16x16 (tb + b * bs + (gsize) (x) * es) \
       : lb_load_u8x16_wide (tb + b * bs + (gsize) (x) * es))
  const int l = last[b];
  LbU16x16 acc;

  if (l == x)
    {
      *out = kv[b];
      return;
    }
  if (l < 0 || 2 * (x - l) > wx1 - wx0 + 1)
    {
      if (u16)
        {
          acc = (LbU16x16) { 0 };
          for (int col = wx0; col <= wx1; col++)
            acc += LB_M12_COL (col);
        }
      else
        lb_sum_u8x16_cols (tb + b * bs + (gsize) wx0 * 16, wx1 - wx0 + 1, &acc);
    }
  else
    {
      acc = kv[b];
      for (int xx = l + 1; xx <= x; xx++)
        {
          if (xx + r <= cx1)
            acc += LB_M12_COL (xx + r);
          if (xx - r - 1 >= cx0)
            acc -= LB_M12_COL (xx - r - 1);
        }
    }
#undef LB_M12_COL
  kv[b] = acc;
  last[b] = x;
  *out = acc;
}

/* the k-th smallest (0-based) rank in the window of column x, [wx0, wx1], whose coarse
 * prefixes are *kcp (a pointer: a 32-byte vector argument has an ABI that depends on AVX);
 * tb1, tb2: the middle and fine tiers' bases, offset so that bucket b of image column x is
 * at tb1 + b · bs1 + x · 32 and tb2 + b · bs2 + x · 16 (locals of the caller: read through
 * m, they were reloaded after every store of a window vector, which may alias them) */
static inline __attribute__ ((always_inline)) guint
lb_m12_kth (LbM12 *m, const LbU16x16 *kcp, const guint8 *tb1, const guint8 *tb2, gsize bs1,
            gsize bs2, guint32 k, int x, int r, int wx0, int wx1, int cx0, int cx1)
{
  const LbU16x16 kc = *kcp;
  const guint b = (guint) lb_rank16_u16 (lb_u16x16_lo (kc), lb_u16x16_hi (kc), k);
  guint32 below = b > 0 ? kc[b - 1] : 0;
  LbU16x16 v;
  guint g;

  lb_m12_bucket (tb1, bs1, m->km, m->lastm, b, x, r, wx0, wx1, cx0, cx1, TRUE, &v);
  g = (guint) lb_rank16_u16 (lb_u16x16_lo (v), lb_u16x16_hi (v), k - below);
  below += g > 0 ? v[g - 1] : 0;
  g += b * 16;
  lb_m12_bucket (tb2, bs2, m->kf, m->lastf, g, x, r, wx0, wx1, cx0, cx1, FALSE, &v);
  return g * 16 + (guint) lb_rank16_u16 (lb_u16x16_lo (v), lb_u16x16_hi (v), k - below);
}

/* Output columns [xs0, xs1) of rows [ya, yb), channel j->c, whose samples have the ranks lut
 * (val: rank → value): a vertical strip. m->col has room for its columns. */
LB_KERNEL_CLONES static void
lb_m12_strip (const LbMedianJob *j, LbM12 *m, const guint16 *lut, const guint16 *val, int ya,
              int yb, int xs0, int xs1)
{
  const int r = j->r, ch = j->ch, cx0 = j->x0, cx1 = j->x1 - 1, ry0 = j->y0, ry1 = j->y1 - 1;
  const int colmin = MAX (cx0, xs0 - r), colmax = MIN (cx1, xs1 - 1 + r);

  /* bytes per bucket; the tiers' bases, offset so that bucket b of image column x is at
   * tb + b · bs + x · (32 or 16) */
  const gsize bs1 = m->ncols * 32, bs2 = m->ncols * 16;
  const guint8 *const tb0 = m->col - (gsize) colmin * 32;
  const guint8 *const tb1 = m->col + m->ncols * lb_m12_tier_off[1] - (gsize) colmin * 32;
  const guint8 *const tb2 = m->col + m->ncols * lb_m12_tier_off[2] - (gsize) colmin * 16;

  m->colmin = colmin;
  /* the first strip finds the zeros of g_malloc0, later ones clear */
  if (m->dirty)
    memset (m->col, 0, m->ncols * LB_M12_COL_BYTES);
  m->dirty = TRUE;
  /* rows ya−r−1 … ya+r−1: the first output row then adds ya+r and drops ya−r−1 */
  for (int y = MAX (ry0, ya - r - 1); y <= MIN (ry1, ya + r - 1); y++)
    lb_m12_col_rows (m, lut, lb_m16_row (j, y), NULL, ch, colmin, colmax, TRUE, FALSE);
  for (int y = ya; y < yb; y++)
    {
      guint16 *d = (guint16 *) (void *) (j->dst + (gsize) y * j->dstride) + j->c;
      const int wy0 = MAX (ry0, y - r), wy1 = MIN (ry1, y + r);
      LbU16x16 kc = { 0 }; /* the window's coarse prefixes */

      if (y + r <= ry1 && y - r - 1 >= ry0)
        lb_m12_col_rows (m, lut, lb_m16_row (j, y + r), lb_m16_row (j, y - r - 1), ch, colmin,
                         colmax, TRUE, TRUE);
      else if (y + r <= ry1)
        lb_m12_col_rows (m, lut, lb_m16_row (j, y + r), NULL, ch, colmin, colmax, TRUE, FALSE);
      else if (y - r - 1 >= ry0)
        lb_m12_col_rows (m, lut, NULL, lb_m16_row (j, y - r - 1), ch, colmin, colmax, FALSE,
                         TRUE);
      for (int b = 0; b < 16; b++)
        m->lastm[b] = -1;   /* stale: rebuilt on first use */
      for (int g = 0; g < 256; g++)
        m->lastf[g] = -1;
      for (int col = colmin; col <= MIN (colmax, xs0 + r - 1); col++)
        kc += lb_load_u16x16 (tb0 + (gsize) col * 32);
      for (int x = xs0; x < xs1; x++)
        {
          const int wx0 = MAX (cx0, x - r), wx1 = MIN (cx1, x + r);
          const guint32 n = (guint32) (wx1 - wx0 + 1) * (guint32) (wy1 - wy0 + 1);

          if (x + r <= colmax)
            kc += lb_load_u16x16 (tb0 + (gsize) (x + r) * 32);
          if (x - r - 1 >= colmin)
            kc -= lb_load_u16x16 (tb0 + (gsize) (x - r - 1) * 32);
#define LB_M12_KTH(k) val[lb_m12_kth (m, &kc, tb1, tb2, bs1, bs2, (k), x, r, wx0, wx1, cx0, cx1)]
          if (n & 1)
            d[(gsize) x * ch] = LB_M12_KTH (n / 2);
          else
            d[(gsize) x * ch] =
              (guint16) (((guint) LB_M12_KTH (n / 2 - 1) + LB_M12_KTH (n / 2)) / 2);
#undef LB_M12_KTH
        }
    }
}

/* The distinct values of channel j->c in rows [ya, yb] and the region's columns, if there are
 * at most LB_M12_MAX_VALUES of them: lut[v] = rank of v (for the values present only), val[i]
 * = the value of rank i. Returns their number, or 0 if there are more. bits: 65536 bits. */
static guint
lb_m12_ranks (const LbMedianJob *j, int ya, int yb, guint64 *bits, guint16 *lut, guint16 *val)
{
  guint n = 0;

  memset (bits, 0, 65536 / 8);
  /* counted as they first appear, so that a band with more values stops early: the whole
   * pass cost full-range images 3 % of a median 15 */
  for (int y = ya; y <= yb; y++)
    {
      const guint16 *s = lb_m16_row (j, y);

      for (int x = j->x0; x < j->x1; x++)
        {
          const guint v = s[(gsize) x * j->ch];
          const guint64 bit = G_GUINT64_CONSTANT (1) << (v & 63);

          if (G_UNLIKELY (!(bits[v >> 6] & bit)))
            {
              bits[v >> 6] |= bit;
              if (++n > LB_M12_MAX_VALUES)
                return 0;
            }
        }
    }
  n = 0;
  for (int w = 0; w < 1024; w++)
    for (guint64 b = bits[w]; b != 0; b &= b - 1)
      {
        const guint v = (guint) w * 64 + (guint) __builtin_ctzll (b);

        lut[v] = (guint16) n;
        val[n++] = (guint16) v;
      }
  return n;
}

/* The rank path's strips: output columns per strip and the columns (with the halo) a strip's
 * store holds, for a region rw columns wide. */
static inline int
lb_m12_strip_width (int rw, int r)
{
  return MIN (rw, MAX (LB_M12_STRIP, 6 * r));
}

static inline int
lb_m12_ncols (int rw, int r)
{
  return MIN (rw, lb_m12_strip_width (rw, r) + 2 * r);
}

/* scratch layout: LbM12, the value bits, the rank table, the values, the column store */
#define LB_M12_HEAD_M ((sizeof (LbM12) + 63) / 64 * 64)
#define LB_M12_HEAD_BYTES \
  (LB_M12_HEAD_M + 1024 * sizeof (guint64) + (65536 + LB_M12_MAX_VALUES) * sizeof (guint16))

/* Bytes of scratch the rank path can use (LbMedianJob.scratch) for a region rw columns wide
 * at radius r: 0 where it never runs. */
static G_GNUC_UNUSED gsize
lb_median16_scratch_size (int rw, int r)
{
  if (rw <= 0 || r < 1 || r > LB_M16_MAX_RADIUS)
    return 0;
  return LB_M12_HEAD_BYTES + (gsize) lb_m12_ncols (rw, r) * LB_M12_COL_BYTES;
}

/* Output columns per strip of the four-tier median: the strip's column histograms plus the
 * 2r halo columns, ~68 KiB each (about 6 MiB at r = 15); wider strips for large r keep the
 * halo's share of the column updates below ½. */
#define LB_M16_STRIP 64

/* Huang's rows are independent of one another (each starts from an empty histogram), so
 * they run in chunks with a progress tick between: 12 rows, whole groups of 4, 3 or 2 rows
 * (lb-median-huang16-body.h). By the measurements above (r 40, 590 ms for 1000 rows of
 * 1400 samples) a chunk of 8000-sample rows near r 47 takes about 40 ms. */
#define LB_HUANG_CHUNK 12

/* Rows [ya, yb) of the region, channels 0 … nc − 1 of @job (its c is ignored). */
static G_GNUC_UNUSED void
lb_median16_rows (const LbMedianJob *job, int nc, int ya, int yb)
{
  LbMedianJob j = *job;
  const int rw = j.x1 - j.x0;
  guint done = 0; /* channels the rank path did */
  gboolean stop = FALSE;

  /* bands of a row or two (despeckle 3 and 5's clipped rows) stay with Huang: the rank
   * path's set-up (counting, clearing (strip + 2r) · 4640 bytes) cost more than they do
   * (despeckle 3 on gray16, 2 threads: 0.31 → 0.47 ms) */
  if (j.r <= LB_M16_MAX_RADIUS && !j.no_ranks && yb - ya >= LB_M12_MIN_ROWS)
    {
      /* the rows the strips read: ya − r − 1 enters the first window's set-up and leaves */
      const int ra = MAX (j.y0, ya - j.r - 1), rb = MIN (j.y1 - 1, yb - 1 + j.r);
      const int strip = lb_m12_strip_width (rw, j.r);
      const gboolean scratch = j.scratch != NULL
                               && j.scratch_size >= lb_median16_scratch_size (rw, j.r);
      LbM12 *m = NULL;
      guint64 *bits;
      guint16 *lut, *val;

      if (scratch)
        {
          /* the column store cleared by the first strip (the scratch's content is
           * undefined); per call, fresh zero pages of g_malloc0, of which a band touches
           * only those of the values it holds, but every band maps them again: a 360×360 MR
           * image, median 3, one lightbox-cli pass, 2 threads: 1 037 more page faults than
           * Huang, 4.4–5.9 ms against 2.8–4.7 */
          m = j.scratch;
          bits = (guint64 *) (void *) ((guint8 *) j.scratch + LB_M12_HEAD_M);
          lut = (guint16 *) (void *) (bits + 1024);
          val = lut + 65536;
          m->col = (guint8 *) (val + LB_M12_MAX_VALUES);
          m->ncols = (gsize) lb_m12_ncols (rw, j.r);
          m->dirty = TRUE;
        }
      else
        {
          bits = g_new (guint64, 1024);
          lut = g_new (guint16, 65536);
          val = g_new (guint16, LB_M12_MAX_VALUES);
        }
      for (j.c = 0; j.c < nc && !stop; j.c++)
        {
          if (lb_m12_ranks (&j, ra, rb, bits, lut, val) == 0)
            continue;
          if (m == NULL)
            {
              m = g_aligned_alloc0 (1, sizeof (LbM12), 64);
              m->ncols = (gsize) lb_m12_ncols (rw, j.r);
              m->col = g_malloc0 (m->ncols * LB_M12_COL_BYTES);
            }
          for (int xs0 = j.x0; xs0 < j.x1 && !stop; xs0 += strip)
            {
              lb_m12_strip (&j, m, lut, val, ya, yb, xs0, MIN (j.x1, xs0 + strip));
              stop = !lb_median_tick (&j, nc, xs0 + strip - j.x0, rw);
            }
          done |= 1u << j.c;
        }
      if (!scratch)
        {
          if (m != NULL)
            {
              g_free (m->col);
              g_aligned_free (m);
            }
          g_free (bits);
          g_free (lut);
          g_free (val);
        }
      if (done == (1u << nc) - 1 || stop)
        return;
    }
  if (j.r < LB_M16_MIN_RADIUS || j.r > LB_M16_MAX_RADIUS)
    {
      /* all counts zero, pb = 0 with nothing below it */
      if (j.r <= LB_M16_MAX_RADIUS)
        {
          lb_h16k16_Hist *h = g_new0 (lb_h16k16_Hist, 1);

          for (j.c = 0; j.c < nc && !stop; j.c++)
            if (!(done & (1u << j.c)))
              for (int y = ya; y < yb && !stop; y += LB_HUANG_CHUNK)
                {
                  lb_h16k16_rows (&j, h, y, MIN (yb, y + LB_HUANG_CHUNK));
                  stop = !lb_median_tick (&j, nc, y + LB_HUANG_CHUNK - ya, yb - ya);
                }
          g_free (h);
        }
      else
        {
          lb_h16k32_Hist *h = g_new0 (lb_h16k32_Hist, 1);

          for (j.c = 0; j.c < nc && !stop; j.c++)
            for (int y = ya; y < yb && !stop; y += LB_HUANG_CHUNK)
              {
                lb_h16k32_rows (&j, h, y, MIN (yb, y + LB_HUANG_CHUNK));
                stop = !lb_median_tick (&j, nc, y + LB_HUANG_CHUNK - ya, yb - ya);
              }
          g_free (h);
        }
    }
  else
    {
      const int strip = MIN (rw, MAX (LB_M16_STRIP, 2 * j.r));
      const gsize ncols = (gsize) MIN (rw, strip + 2 * j.r);
      LbM16 *m = g_aligned_alloc0 (1, sizeof (LbM16), 64);

      /* zeroed once (fresh pages for a large block); each strip leaves it empty again */
      m->col = g_malloc0 (ncols * LB_M16_COL_BYTES);
      m->ncols = ncols;
      m->pos = 0;
      for (j.c = 0; j.c < nc && !stop; j.c++)
        if (!(done & (1u << j.c)))
          for (int xs0 = j.x0; xs0 < j.x1 && !stop; xs0 += strip)
            {
              lb_m16_strip (&j, m, ya, yb, xs0, MIN (j.x1, xs0 + strip));
              stop = !lb_median_tick (&j, nc, xs0 + strip - j.x0, rw);
            }
      g_free (m->col);
      g_aligned_free (m);
    }
}

/* ---- 8 bits: lb-median8-body.h ------------------------------------------------------------ */


static inline const guint8 *
lb_m8_row (const LbMedianJob *j, int y)
{
  return j->src + (gsize) y * j->sstride + j->c;
}

/* window counts when (2r+1)² > 65535: two native vectors of 8 (a single 64-byte generic
 * vector was kept on the stack and moved piecewise through general registers by GCC 12,
 * which made the k32 path 1.4× slower than with scalar counts) */
typedef guint32 LbU32x8 __attribute__ ((vector_size (32)));
typedef struct {
  LbU32x8 lo, hi;
} LbU32x16p;

#define lb_u16x16_lo32(v) \
  __builtin_convertvector (__builtin_shufflevector ((v), (v), 0, 1, 2, 3, 4, 5, 6, 7), LbU32x8)
#define lb_u16x16_hi32(v) \
  __builtin_convertvector (__builtin_shufflevector ((v), (v), 8, 9, 10, 11, 12, 13, 14, 15), \
                           LbU32x8)

/* a += or −= a column's 16 u16 lanes, widened, on the two halves of an LbU32x16p */
#define LB_M8_K32_OP(a, v, op)            \
  do                                      \
    {                                     \
      const LbU16x16 v_ = (v);            \
      (a).lo op lb_u16x16_lo32 (v_);      \
      (a).hi op lb_u16x16_hi32 (v_);      \
    }                                     \
  while (0)

/* (the body undefines its parameters at its end) */
#define KTV LbU16x16
#define KADD(a, v) ((a) += (v))
#define KSUB(a, v) ((a) -= (v))
#define KLANE(a, i) ((a)[i])
#define MED8(name) lb_m8k16_##name
#define MED8_SIMD_RANK 1
#include "lb-median8-body.h"
#define KTV LbU32x16p
#define KADD(a, v) LB_M8_K32_OP (a, v, +=)
#define KSUB(a, v) LB_M8_K32_OP (a, v, -=)
#define KLANE(a, i) ((i) < 8 ? (a).lo[(i)] : (a).hi[(i) - 8])
#define MED8(name) lb_m8k32_##name
#define MED8_SIMD_RANK 0
#include "lb-median8-body.h"

/* Output columns per strip: the strip's column prefixes plus the 2r halo columns (544 bytes
 * each) stay in L2 cache. */
#define LB_M8_STRIP 256

/* Rows [ya, yb) of the region, channels 0 … nc − 1 of @job (its c is ignored); 1 ≤ r. */
static G_GNUC_UNUSED void
lb_median8_rows (const LbMedianJob *job, int nc, int ya, int yb)
{
  LbMedianJob j = *job;
  const int rw = j.x1 - j.x0, strip = MIN (rw, LB_M8_STRIP);
  const gsize ncols = (gsize) MIN (rw, strip + 2 * j.r);
  const gboolean k16 = (2 * (gint64) j.r + 1) * (2 * (gint64) j.r + 1) <= G_MAXUINT16;
  /* 32-byte aligned: each column's 256 + 16 prefixes are whole vectors */
  guint16 *fine = g_aligned_alloc (ncols * 256, sizeof (guint16), 32);
  guint16 *coarse = g_aligned_alloc (ncols * 16, sizeof (guint16), 32);
  /* the Hist structs hold 32- and 64-byte vectors */
  gpointer h = g_aligned_alloc0 (1, MAX (sizeof (lb_m8k16_Hist), sizeof (lb_m8k32_Hist)), 64);

  gboolean stop = FALSE;

  for (j.c = 0; j.c < nc && !stop; j.c++)
    for (int xs0 = j.x0; xs0 < j.x1 && !stop; xs0 += strip)
      {
        if (k16)
          lb_m8k16_strip (&j, h, fine, coarse, ya, yb, xs0, MIN (j.x1, xs0 + strip));
        else
          lb_m8k32_strip (&j, h, fine, coarse, ya, yb, xs0, MIN (j.x1, xs0 + strip));
        stop = !lb_median_tick (&j, nc, xs0 + strip - j.x0, rw);
      }
  g_aligned_free (h);
  g_aligned_free (fine);
  g_aligned_free (coarse);
}

/* Rows [ya, yb) of the region, channels 0 … nc − 1 of @job, samples of @depth bits: the
 * enhance median's and xv despeckle's histogram paths, from r = 1. */
static G_GNUC_UNUSED void
lb_median_rows (const LbMedianJob *job, int depth, int nc, int ya, int yb)
{
  if (depth == 16)
    lb_median16_rows (job, nc, ya, yb);
  else
    lb_median8_rows (job, nc, ya, yb);
}
