/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* What the files of xv's blur share (lb-xv-blur.c, the dispatcher, and one file per path):
 * the row prefix scans and the division by the window's pixel count, static inline here so
 * each path's loops inline them as before, and the paths' entry points. Internal to
 * plugins/xv. */

#include <emmintrin.h>
#include <string.h>

#include "lb-xv-blur.h"

G_BEGIN_DECLS

/* pre[(j + 1)·ch + c] = Σ_{j' ≤ j} col[j'·ch + c], with the running sums in registers (a
 * loop through memory would wait on store forwarding at every sample). @ch is a constant at
 * each call site. One definition per column type: guint32 column sums (the general path,
 * 16-bit samples) and guint16 ones (8 bits, n ≤ 257). */
#define BLUR_DEFINE_PREFIX_SUMS(name, ColType)                                               \
  LB_XV_INLINE void                                                                          \
  name (guint32 *restrict pre, const ColType *restrict col, int rw, const int ch)            \
  {                                                                                          \
    guint32 acc[4] = { 0, 0, 0, 0 };                                                         \
                                                                                             \
    for (int j = 0; j < rw; j++)                                                             \
      for (int c = 0; c < ch; c++)                                                           \
        {                                                                                    \
          acc[c] += col[j * ch + c];                                                         \
          pre[(j + 1) * ch + c] = acc[c];                                                    \
        }                                                                                    \
  }

BLUR_DEFINE_PREFIX_SUMS (prefix_sums, guint32)
BLUR_DEFINE_PREFIX_SUMS (prefix_sums16, guint16)

/* One channel: pre[j + 1] = Σ_{j' ≤ j} col[j'] four samples per step, as an in-register scan
 * (two shifted adds) plus the running total broadcast from the previous step: the serial
 * chain is one add and one shuffle per four samples instead of one add per sample. The row is
 * scanned as two halves at once, two independent chains that hide each other's latency, and
 * the first half's total is then added to the second (sums modulo 2^32, so exact). @col holds
 * guint32 (@wide) or guint16 sums; SSE2, so both clones run it. */
static inline __m128i
prefix_c1_load4 (const void *restrict col, int j, const gboolean wide)
{
  const guint32 *c32 = col;
  const guint16 *c16 = col;

  return wide ? _mm_loadu_si128 ((const __m128i *) (const void *) (c32 + j))
              : _mm_unpacklo_epi16 (_mm_loadl_epi64 ((const __m128i *) (const void *) (c16 + j)),
                                    _mm_setzero_si128 ());
}

static inline __m128i
prefix_c1_step (__m128i x, __m128i acc)
{
  x = _mm_add_epi32 (x, _mm_slli_si128 (x, 4));
  x = _mm_add_epi32 (x, _mm_slli_si128 (x, 8));
  return _mm_add_epi32 (x, acc);
}

LB_XV_INLINE void
prefix_c1 (guint32 *restrict pre, const void *restrict col, int rw, const gboolean wide)
{
  const guint32 *c32 = col;
  const guint16 *c16 = col;
  const int half = rw / 8 * 4;   /* the second half starts here (a multiple of 4) */
  __m128i acc = _mm_setzero_si128 (), acc2 = _mm_setzero_si128 ();
  guint32 total;
  int j = 0;

  for (; j + 4 <= half; j += 4)
    {
      const __m128i x = prefix_c1_step (prefix_c1_load4 (col, j, wide), acc);
      const __m128i x2 = prefix_c1_step (prefix_c1_load4 (col, half + j, wide), acc2);

      _mm_storeu_si128 ((__m128i *) (void *) (pre + j + 1), x);
      _mm_storeu_si128 ((__m128i *) (void *) (pre + half + j + 1), x2);
      acc = _mm_shuffle_epi32 (x, 0xff);
      acc2 = _mm_shuffle_epi32 (x2, 0xff);
    }
  if (half > 0)
    {
      /* the second half's sums so far, moved up by the first half's total */
      const __m128i first = acc;

      for (int k = half + 1; k + 4 <= 2 * half + 1; k += 4)
        _mm_storeu_si128 ((__m128i *) (void *) (pre + k),
                          _mm_add_epi32 (_mm_loadu_si128 ((const __m128i *) (const void *) (pre + k)), first));
      acc = _mm_add_epi32 (acc2, first);
    }
  for (j = 2 * half; j + 4 <= rw; j += 4)
    {
      const __m128i x = prefix_c1_step (prefix_c1_load4 (col, j, wide), acc);

      _mm_storeu_si128 ((__m128i *) (void *) (pre + j + 1), x);
      acc = _mm_shuffle_epi32 (x, 0xff);
    }
  total = (guint32) _mm_cvtsi128_si32 (acc);
  for (; j < rw; j++)
    {
      total += wide ? c32[j] : c16[j];
      pre[j + 1] = total;
    }
}

/* Three channels of guint32 column sums: one pixel per step as a 4-lane vector (lane 3 carries
 * the next pixel's first sample, never used: the next store overwrites it, and @col and @pre
 * have a spare sample at the end), four pixels per iteration with two adds on the chain. */
static inline void
prefix_c3_u32 (guint32 *restrict pre, const guint32 *restrict col, int rw)
{
  __m128i acc = _mm_setzero_si128 ();
  int j = 0;

  for (; j + 4 <= rw; j += 4)
    {
      const __m128i v0 = _mm_loadu_si128 ((const __m128i *) (const void *) (col + j * 3));
      const __m128i v1 = _mm_loadu_si128 ((const __m128i *) (const void *) (col + j * 3 + 3));
      const __m128i v2 = _mm_loadu_si128 ((const __m128i *) (const void *) (col + j * 3 + 6));
      const __m128i v3 = _mm_loadu_si128 ((const __m128i *) (const void *) (col + j * 3 + 9));
      const __m128i p0 = _mm_add_epi32 (acc, v0);
      const __m128i p1 = _mm_add_epi32 (acc, _mm_add_epi32 (v0, v1));
      const __m128i p2 = _mm_add_epi32 (p1, v2);

      acc = _mm_add_epi32 (p1, _mm_add_epi32 (v2, v3));
      _mm_storeu_si128 ((__m128i *) (void *) (pre + (j + 1) * 3), p0);
      _mm_storeu_si128 ((__m128i *) (void *) (pre + (j + 2) * 3), p1);
      _mm_storeu_si128 ((__m128i *) (void *) (pre + (j + 3) * 3), p2);
      _mm_storeu_si128 ((__m128i *) (void *) (pre + (j + 4) * 3), acc);
    }
  for (; j < rw; j++)
    {
      acc = _mm_add_epi32 (acc, _mm_loadu_si128 ((const __m128i *) (const void *) (col + j * 3)));
      _mm_storeu_si128 ((__m128i *) (void *) (pre + (j + 1) * 3), acc);
    }
}

/* The row's totals pre[n + c] repeated r times after it (the zero columns right of the region
 * leave the prefix flat), from registers: a copy through memory would wait on store
 * forwarding at every sample. */
static inline void
pad_totals (guint32 *pre, int n, int r, int ch)
{
  for (int c = 0; c < ch; c++)
    {
      const guint32 total = pre[n + c];

      for (int m = 1; m <= r; m++)
        pre[n + m * ch + c] = total;
    }
}

/* floor(s / N) as (int) ((float) s · inv) with inv = 1/N in float rounded up (so that
 * inv · N ≥ 1): exact for 0 ≤ s < 2^22. Why: s · inv ≥ s/N, and the integer part q of s/N is a
 * float, so the rounded product never falls below q; from above, inv exceeds 1/N by less than
 * 2^-23 of itself and the product's rounding adds 2^-24, so the product exceeds s/N by less than
 * s/N · 2^-22.4 < 1/N for s < 2^22.4, while s/N ≤ q + 1 - 1/N. No +0.5 term (one operation
 * less per sample than (s + 0.5) · (1/N)). Checked for every s ≤ 255 N, N ≤ 2500, in the
 * tests (_lb_xv_blur_div_float). */
#define BLUR_FLOAT_EXACT_LIMIT 4194304.0

/* 1/@count in float, rounded up (lb-xv-blur-div.c). */
float _lb_xv_blur_recip_up       (guint32 count);

/* floor(s / N) for s < 2^31 whose quotient is at most 65535 (16-bit window means): t =
 * (int) ((float) s · inv), inv = 1/N in float (rounded to nearest), then one correction by
 * the remainder s − t·N. Why one step suffices: the three roundings (s to float, 1/N, the
 * product) each err by at most 2^-24 relatively, so the product is within 65536 · 3 · 2^-24
 * < 0.012 of s/N, and t is q − 1, q or q + 1 (q = floor(s/N)); the remainder of t is then
 * below 0 (t = q + 1), at least N (t = q − 1), or in [0, N). It lies within ±2N, so its
 * wrapped 32-bit difference read as signed is exact. Eight samples per AVX2 instruction where
 * the double form ((s + 0.5) · (1/N)) took four: 1400×1000 GRAY16 blur 31, 1 thread,
 * kernels-a-timing, alternating builds: 0.75, 0.75 → 0.72, 0.72 ms.
 * Checked against s / N around every multiple of N for N ≤ 4100, and at random, in the tests
 * (_lb_xv_blur_div_corrected). */
static inline __attribute__ ((always_inline)) guint32
blur_div_corrected (guint32 s, float inv, guint32 count)
{
  const guint32 t = (guint32) (gint32) ((float) (gint32) s * inv);
  const gint32 rem = (gint32) (s - t * count);

  return t + (guint32) (rem >= (gint32) count) - (guint32) (rem < 0);
}

/* The clipped columns' reciprocals (lb-xv-blur-div.c). */
void  _lb_xv_blur_clipped_recips (int      rw,
                                  int      r,
                                  int      ch,
                                  int      jlo,
                                  int      jhi,
                                  guint32  ny,
                                  float   *finv,
                                  double  *dinv);

/* The end of a row's prefix sums and what its division needs: the totals padded on (see
 * pad_totals), the interior samples [i0, i1) (windows not clipped horizontally), the window
 * sum of sample i as pre[i + a] - pre[i - b], the interior's pixel count, and the clipped
 * columns' reciprocals refreshed when the window height ny changed (*inv_ny: the ny they are
 * for). */
typedef struct {
  int a, b, i0, i1;
  guint32 count;
} BlurRowTail;

static inline BlurRowTail
blur_row_tail (guint32 *pre, int rw, int r, int ch, int size, guint32 ny, guint32 *inv_ny,
               float *finv, double *dinv)
{
  const int jlo = MIN (r, rw), jhi = MAX (jlo, rw - r);
  BlurRowTail t = { (r + 1) * ch, r * ch, jlo * ch, jhi * ch, (guint32) size * ny };

  pad_totals (pre, rw * ch, r, ch);
  if (ny != *inv_ny)
    {
      _lb_xv_blur_clipped_recips (rw, r, ch, jlo, jhi, ny, finv, dinv);
      *inv_ny = ny;
    }
  return t;
}

/* The paths, on rows [@ya, @yb) of the region: the general running sums (lb-xv-blur-sums.c),
 * the specialised rows at 8 bits (lb-xv-blur-rows8.c) and 16 bits (lb-xv-blur-rows16.c),
 * with the hand-written AVX2 rows when @avx2, and the 3×3 window (lb-xv-blur3.c). */
typedef void LbXvBlurRowsFunc     (const LbXvBlur    *self,
                                   const LbKernelBuf *src,
                                   LbKernelBuf       *dst,
                                   int                ya,
                                   int                yb);
typedef void LbXvBlurRowsAvx2Func (const LbXvBlur    *self,
                                   const LbKernelBuf *src,
                                   LbKernelBuf       *dst,
                                   int                ya,
                                   int                yb,
                                   gboolean           avx2);
LbXvBlurRowsFunc _lb_xv_blur_sums_rows, _lb_xv_blur3_rows;
LbXvBlurRowsAvx2Func _lb_xv_blur_rows8, _lb_xv_blur_rows16;

G_END_DECLS
