/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Histogram medians shared by the enhance median (lb-median.c) and xv despeckle
 * (lb-xv-despeckle.c): both take, per colour channel, the median of the (2r+1)² window clipped
 * to the region, and with an even count (clipped windows only) the truncated mean of the two
 * middle values. Header-only (static functions) so each kernel library keeps its own copy and
 * its own compile flags; GLib and SSE2 (the x86-64 baseline) only.
 *
 *  - lb_select16_u16: the k-th value's bin among 16 u16 counts, without a branch.
 *  - lb_median8_rows (lb-median8.h): 8-bit samples, from r = 3 (below that the networks of
 *    lb-median-net.h): Perreault & Hébert's constant-time median (IEEE TIP 2007) on prefix
 *    sums (lb-median8-body.h).
 *  - lb_median16_rows (lb-median16.h): 16-bit samples. For r ≤ 127, a band's channel whose
 *    samples hold at most 4096 distinct values takes the rank path (lb-median16-ranks.h):
 *    renumbered, and the 8-bit scheme on the ranks with three tiers. Otherwise: for
 *    48 ≤ r ≤ 127 the two-tier scheme of Perreault & Hébert's constant-time median carried to
 *    four tiers of 16 bins (lb-median16-tiers.h): constant cost per sample on smooth data,
 *    rebuilds linear in r on noisy data.
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

/* 16 bits (lb-median16.h) and 8 bits (lb-median8.h): included here, after what they share. */
#include "lb-median16.h"
#include "lb-median8.h"

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
