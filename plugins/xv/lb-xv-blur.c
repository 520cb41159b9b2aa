/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-blur"

#include "lb-xv-blur.h"

#include <emmintrin.h>
#if LB_XV_HAVE_AVX2_PATH
#include <immintrin.h>
#endif

#include <math.h>
#include <string.h>

gboolean
lb_xv_blur_prepare (LbXvBlur           *self,
                    const LbKernelBuf  *src,
                    const LbKernelRect *selection,
                    int                 size,
                    GError            **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (size < 1 || size % 2 == 0 || size > 65535)
    {
      g_set_error (error, LB_KERNEL_ERROR, LB_KERNEL_ERROR_INVALID_ARGUMENT,
                   "blur: the mask size must be odd and between 1 and 65535, not %d", size);
      return FALSE;
    }
  if (!_lb_xv_region_init (&self->region, src, selection, "blur", error))
    return FALSE;
  self->size = size;
  return TRUE;
}

LB_XV_INLINE void
blur_ref_rows (const LbXvBlur    *self,
               const LbKernelBuf *src,
               LbKernelBuf       *dst,
               int                ya,
               int                yb,
               const int          depth)
{
  const LbXvRegion *R = &self->region;
  const int r = self->size / 2;
  const int ch = src->channels;
  const int nc = lb_xv_colour_channels (ch);

  for (int y = ya; y < yb; y++)
    {
      const int wy0 = MAX (R->y0, y - r), wy1 = MIN (R->y1 - 1, y + r);
      guint8 *out = lb_xv_row_mut (dst, y);

      for (int x = R->x0; x < R->x1; x++)
        {
          const int wx0 = MAX (R->x0, x - r), wx1 = MIN (R->x1 - 1, x + r);
          const guint64 count = (guint64) (wx1 - wx0 + 1) * (guint64) (wy1 - wy0 + 1);

          for (int c = 0; c < nc; c++)
            {
              guint64 sum = 0;

              for (int yy = wy0; yy <= wy1; yy++)
                {
                  const guint8 *row = lb_xv_row (src, yy);

                  for (int xx = wx0; xx <= wx1; xx++)
                    sum += lb_xv_get (row, (gsize) xx * ch + c, depth);
                }
              lb_xv_put (out, (gsize) x * ch + c, (guint) (sum / count), depth);
            }
        }
    }
}

void
lb_xv_blur_process_ref (const LbXvBlur    *self,
                        const LbKernelBuf *src,
                        LbKernelBuf       *dst,
                        int                y0,
                        int                y1)
{
  g_return_if_fail (self != NULL && _lb_xv_same_geometry (src, dst));

  y0 = MAX (y0, self->region.y0);
  y1 = MIN (y1, self->region.y1);
  if (y0 >= y1 || self->size == 1)
    return;
  if (src->depth == 8)
    blur_ref_rows (self, src, dst, y0, y1, 8);
  else
    blur_ref_rows (self, src, dst, y0, y1, 16);
}

/* col[i] += (or -=) sample i of the region part of a source row; alpha is summed too (the
 * loop stays contiguous and vectorises) and simply never used. */
LB_XV_INLINE void
col_update (guint32 *restrict col, const guint8 *restrict row, int n, gboolean add,
            const int depth)
{
  if (add)
    for (int i = 0; i < n; i++)
      col[i] += lb_xv_get (row, i, depth);
  else
    for (int i = 0; i < n; i++)
      col[i] -= lb_xv_get (row, i, depth);
}

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

LB_XV_INLINE void
blur_fast_rows (const LbXvBlur    *self,
                const LbKernelBuf *src,
                LbKernelBuf       *dst,
                int                ya,
                int                yb,
                const int          depth)
{
  const LbXvRegion *R = &self->region;
  const int r = self->size / 2;
  const int ch = src->channels;
  const int nc = lb_xv_colour_channels (ch);
  const int rw = R->x1 - R->x0;
  const int rh = R->y1 - R->y0;
  const int n = rw * ch;
  const gsize xoff = (gsize) R->x0 * ch * (depth / 8);
  const double nmax = (double) MIN (self->size, rw) * (double) MIN (self->size, rh);
  /* float has a 24-bit mantissa: (s + 0.5) · (1/N) stays within 0.5/N of the exact quotient
   * (so truncation gives floor(s/N)) while s + 0.5 < 2^21; double covers 16 bits. */
  const gboolean use_float = depth == 8 && 255.0 * nmax < 2097152.0;
  g_autofree guint32 *col = NULL;
  g_autofree guint32 *pre = NULL;
  g_autofree guint32 *winbuf = NULL;

  col = g_new0 (guint32, n);
  winbuf = g_new (guint32, n);
  /* pre[i + ch] = pre[i] + col[i]: a window sum is a difference of two prefix sums. The
   * prefix may wrap modulo 2^32; the difference (a real window sum < 2^32) is still exact. */
  pre = g_new0 (guint32, n + ch);

  for (int yy = MAX (R->y0, ya - r); yy <= MIN (R->y1 - 1, ya + r); yy++)
    col_update (col, lb_xv_row (src, yy) + xoff, n, TRUE, depth);

  for (int y = ya; y < yb; y++)
    {
      const int wy0 = MAX (R->y0, y - r), wy1 = MIN (R->y1 - 1, y + r);
      const guint32 ny = (guint32) (wy1 - wy0 + 1);
      guint8 *out = lb_xv_row_mut (dst, y) + xoff;
      int jlo, jhi;

      if (y > ya)
        {
          if (y + r <= R->y1 - 1)
            col_update (col, lb_xv_row (src, y + r) + xoff, n, TRUE, depth);
          if (y - r - 1 >= R->y0)
            col_update (col, lb_xv_row (src, y - r - 1) + xoff, n, FALSE, depth);
        }

      switch (ch)
        {
        case 1: prefix_sums (pre, col, rw, 1); break;
        case 2: prefix_sums (pre, col, rw, 2); break;
        case 3: prefix_sums (pre, col, rw, 3); break;
        case 4:
        default: prefix_sums (pre, col, rw, 4); break;
        }

      /* Columns whose window is not clipped horizontally: [jlo, jhi). */
      jlo = MIN (r, rw);
      jhi = MAX (jlo, rw - r);
      if (jhi > jlo)
        {
          const guint32 count = (guint32) self->size * ny;
          const int a = (r + 1) * ch, b = r * ch;
          const int i0 = jlo * ch, i1 = jhi * ch;
          guint32 *restrict win = winbuf;

          /* Window sums of the unclipped columns: three loads for n = 3, else the prefix. */
          if (r == 1)
            for (int i = i0; i < i1; i++)
              win[i] = col[i - ch] + col[i] + col[i + ch];
          else
            for (int i = i0; i < i1; i++)
              win[i] = pre[i + a] - pre[i - b];

          if (nc == ch && use_float)
            {
              const float inv = 1.0f / (float) count;

              for (int i = i0; i < i1; i++)
                {
                  const guint32 s = win[i];
                  lb_xv_put (out, i, (guint) (((float) s + 0.5f) * inv), depth);
                }
            }
          else if (nc == ch)
            {
              const double inv = 1.0 / (double) count;

              for (int i = i0; i < i1; i++)
                {
                  const guint32 s = win[i];
                  lb_xv_put (out, i, (guint) (((double) s + 0.5) * inv), depth);
                }
            }
          else
            {
              const double inv = 1.0 / (double) count;

              for (int j = jlo; j < jhi; j++)
                for (int c = 0; c < nc; c++)
                  {
                    const int i = j * ch + c;
                    const guint32 s = win[i];
                    lb_xv_put (out, i, (guint) (((double) s + 0.5) * inv), depth);
                  }
            }
        }

      /* Clipped columns at the left and right: exact integer division. */
      for (int j = 0; j < rw; j++)
        {
          int lo, hi;

          if (j == jlo && jhi > jlo)
            j = jhi;
          if (j >= rw)
            break;
          lo = MAX (0, j - r);
          hi = MIN (rw - 1, j + r);
          for (int c = 0; c < nc; c++)
            {
              const guint32 s = pre[(hi + 1) * ch + c] - pre[lo * ch + c];
              lb_xv_put (out, (gsize) j * ch + c, s / ((guint32) (hi - lo + 1) * ny), depth);
            }
        }
    }
}

LB_KERNEL_CLONES static void
blur_fast_rows_8 (const LbXvBlur *self, const LbKernelBuf *src, LbKernelBuf *dst, int ya, int yb)
{
  blur_fast_rows (self, src, dst, ya, yb, 8);
}

/* The general path on rows [@ya, @yb) of the region (the 16-bit instance without clones, as
 * it ran inlined in the dispatcher). */
static void
_lb_xv_blur_sums_rows (const LbXvBlur *self, const LbKernelBuf *src, LbKernelBuf *dst, int ya,
                       int yb)
{
  if (src->depth == 8)
    blur_fast_rows_8 (self, src, dst, ya, yb);
  else
    blur_fast_rows (self, src, dst, ya, yb, 16);
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

static float
_lb_xv_blur_recip_up (guint32 count)
{
  float inv = 1.0f / (float) count;

  /* float × guint32 < 2^24 · 2^32 is exact in double. */
  while ((double) inv * (double) count < 1.0)
    inv = nextafterf (inv, 2.0f);
  return inv;
}

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

guint
_lb_xv_blur_div_corrected (guint32 s, guint32 count)
{
  return blur_div_corrected (s, 1.0f / (float) count, count);
}

/* Per sample of the clipped columns (j < jlo or j ≥ jhi; the window is ny rows high), the
 * reciprocal of its window's pixel count: in @finv (float, rounded up as _lb_xv_blur_recip_up) when
 * it is not NULL, else in @dinv (double). Recomputed only when ny changes. */
static void
_lb_xv_blur_clipped_recips (int rw, int r, int ch, int jlo, int jhi, guint32 ny, float *finv,
                            double *dinv)
{
  for (int j = 0; j < rw; j++)
    {
      guint32 nj;

      if (j == jlo && jhi > jlo)
        j = jhi;
      if (j >= rw)
        break;
      nj = (guint32) (MIN (rw - 1, j + r) - MAX (0, j - r) + 1) * ny;
      for (int c = 0; c < ch; c++)
        if (finv != NULL)
          finv[j * ch + c] = _lb_xv_blur_recip_up (nj);
        else
          dinv[j * ch + c] = 1.0 / (double) nj;
    }
}

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

guint
_lb_xv_blur_div_float (guint32 s, guint32 count)
{
  return (guint) (gint32) ((float) (gint32) s * _lb_xv_blur_recip_up (count));
}

/* out[k] = floor ((hi[k] - lo[k]) / N) for k < len, the window sums below 2^22 (see
 * _lb_xv_blur_recip_up): the portable loop (the compiler vectorises it in the AVX2 clone). */
LB_XV_INLINE void
win_div_8 (const guint32 *restrict hi, const guint32 *restrict lo, guint8 *restrict out,
           int len, float inv)
{
  /* Signed conversions (window sums < 2^22 here): cvtdq2ps/cvttps2dq, one instruction per
   * vector, where guint32 ↔ float takes a long sequence. */
  for (int k = 0; k < len; k++)
    out[k] = (guint8) (gint32) ((float) (gint32) (hi[k] - lo[k]) * inv);
}

#if LB_XV_HAVE_AVX2_PATH
/* win_div_8 by hand: 32 samples per step, the four quotient vectors narrowed with signed
 * saturating packs (the quotients are 0..255, so no masking is needed, where the compiler
 * masks every vector before an unsigned pack) and put back in order with one permute. */
__attribute__ ((target ("avx2"))) static void
win_div_8_avx2 (const guint32 *restrict hi, const guint32 *restrict lo, guint8 *restrict out,
                int len, float inv)
{
  const __m256 vinv = _mm256_set1_ps (inv);
  /* After the packs, dword d of the vector holds quotients 4·(d / 2) … of vector d mod 2…:
   * d0 = q0[0..3], d1 = q1[0..3], d2 = q2[0..3], d3 = q3[0..3], d4 = q0[4..7], … */
  const __m256i order = _mm256_setr_epi32 (0, 4, 1, 5, 2, 6, 3, 7);
  int k = 0;

  for (; k + 32 <= len; k += 32)
    {
      __m256i q[4];

      for (int v = 0; v < 4; v++)
        {
          const __m256i h = _mm256_loadu_si256 ((const __m256i *) (const void *) (hi + k + 8 * v));
          const __m256i l = _mm256_loadu_si256 ((const __m256i *) (const void *) (lo + k + 8 * v));

          q[v] = _mm256_cvttps_epi32 (_mm256_mul_ps (_mm256_cvtepi32_ps (_mm256_sub_epi32 (h, l)),
                                                     vinv));
        }
      {
        const __m256i w01 = _mm256_packs_epi32 (q[0], q[1]);
        const __m256i w23 = _mm256_packs_epi32 (q[2], q[3]);
        const __m256i b = _mm256_packus_epi16 (w01, w23);

        _mm256_storeu_si256 ((__m256i *) (void *) (out + k),
                             _mm256_permutevar8x32_epi32 (b, order));
      }
    }
  for (; k < len; k++)
    out[k] = (guint8) (gint32) ((float) (gint32) (hi[k] - lo[k]) * inv);
}
#endif

#if LB_XV_HAVE_AVX2_PATH
/* RGB8 rows without a prefix array (blur_rows_8_u16 with @avx2, window sums below 2^22 and
 * 255 · column height ≤ 32767, i.e. n ≤ 127 on a tall region): the window sum of pixel j is
 * W(j) = W(j - 1) + d(j), d(j) = col(j + r) - col(j - r - 1) with the columns outside the
 * region zero, so W is a running sum with stride 3 (one per channel) over d, computed 8
 * samples at a time (d in 16 bits: |d| ≤ 255 · column height). The running sum stays in
 * registers and goes straight into the division: no 32-bit row is written and read back.
 *
 * Lane-crossing shuffles run one per cycle here (a prefix scan over a 256-bit vector needs
 * several per 8 samples), so each 128-bit lane runs its own part of the row: lane 0 the
 * samples from @s0, lane 1 those from s0 + len, both 8 samples per block, every shuffle within
 * a lane. Per block: y = d + d(3 samples earlier) + d(6 earlier), added in 16 bits when
 * 765 · column height ≤ 32767 (n ≤ 41) and widened to two vectors of 4 by unpacking with the
 * sign, else d widened first and the terms added in 32 bits (the @wide form); then each
 * sample adds the running sum of the last sample of its channel before the block, one of the
 * previous block's samples 5, 6, 7 (see C3_BLOCK). The loop-carried dependency is one
 * in-lane shuffle and one add per block.
 *
 * @col: the column sums of the region row, zero from col[s0 - 3r - 3] to col[n + 3r + 127];
 * @s0: the first sample of lane 0, a multiple of 24 at or before -3r (W starts from zero
 * there: every window before pixel -r is empty); lane 1 starts from the exact window sums
 * before its first sample. @finv: for samples s0 .. n + 95, the reciprocal (rounded up, see
 * _lb_xv_blur_recip_up) of each sample's window count, zero outside the row; @inv: the interior's,
 * for steps whose samples all lie in [@i0, @i1). Writes out[0 .. n - 1]. */

/* Block @k (samples 8k .. 8k + 7 of lane 0's part at @p0 and lane 1's at @p1) into q[k]: @w
 * holds the previous block's running sums of its samples 4 .. 7 (dwords 0 .. 3 per lane);
 * the block's sample i takes the last one of its channel before the block, sample 5, 6 or 7
 * of the previous block (dword 1, 2, 3 of @w), whatever the phase: (1, 2, 3, 1) for samples
 * 0 .. 3, (2, 3, 1, 2) for 4 .. 7. */
#define C3_BLOCK(k)                                                                              \
  do                                                                                             \
    {                                                                                            \
      const __m128i dl = _mm_sub_epi16 (                                                         \
        _mm_loadu_si128 ((const __m128i *) (const void *) (col + p0 + 8 * (k) + a)),             \
        _mm_loadu_si128 ((const __m128i *) (const void *) (col + p0 + 8 * (k) - b)));            \
      const __m128i dh = _mm_sub_epi16 (                                                         \
        _mm_loadu_si128 ((const __m128i *) (const void *) (col + p1 + 8 * (k) + a)),             \
        _mm_loadu_si128 ((const __m128i *) (const void *) (col + p1 + 8 * (k) - b)));            \
      const __m256i d = _mm256_inserti128_si256 (_mm256_castsi128_si256 (dl), dh, 1);            \
      __m256i ylo, yhi, wlo;                                                                     \
      __m256 ilo = vinv, ihi = vinv;                                                             \
                                                                                                 \
      if (!wide)                                                                                 \
        {                                                                                        \
          const __m256i y = _mm256_add_epi16 (_mm256_add_epi16 (d, _mm256_bslli_epi128 (d, 6)),  \
                                              _mm256_bslli_epi128 (d, 12));                      \
          const __m256i sg = _mm256_srai_epi16 (y, 15);                                          \
                                                                                                 \
          ylo = _mm256_unpacklo_epi16 (y, sg);                                                   \
          yhi = _mm256_unpackhi_epi16 (y, sg);                                                   \
        }                                                                                        \
      else                                                                                       \
        {                                                                                        \
          /* the same three terms added in 32 bits: samples 0 .. 3 take d(i - 3) from dlo     \
           * shifted by 3 samples, samples 4 .. 7 d(i - 3) and d(i - 6) across both halves */    \
          const __m256i sg = _mm256_srai_epi16 (d, 15);                                          \
          const __m256i dlo = _mm256_unpacklo_epi16 (d, sg), dhi = _mm256_unpackhi_epi16 (d, sg); \
                                                                                                 \
          ylo = _mm256_add_epi32 (dlo, _mm256_bslli_epi128 (dlo, 12));                           \
          yhi = _mm256_add_epi32 (_mm256_add_epi32 (dhi, _mm256_alignr_epi8 (dhi, dlo, 4)),      \
                                  _mm256_bslli_epi128 (dlo, 8));                                 \
        }                                                                                        \
      wlo = _mm256_add_epi32 (ylo, _mm256_shuffle_epi32 (w, 0x79 /* 1, 2, 3, 1 */));             \
      w = _mm256_add_epi32 (yhi, _mm256_shuffle_epi32 (w, 0x9e /* 2, 3, 1, 2 */));               \
      if (!inside)                                                                               \
        {                                                                                        \
          ilo = _mm256_loadu2_m128 (finv + p1 + 8 * (k), finv + p0 + 8 * (k));                   \
          ihi = _mm256_loadu2_m128 (finv + p1 + 8 * (k) + 4, finv + p0 + 8 * (k) + 4);           \
        }                                                                                        \
      q[k] = _mm256_packs_epi32 (_mm256_cvttps_epi32 (_mm256_mul_ps (_mm256_cvtepi32_ps (wlo), ilo)), \
                                 _mm256_cvttps_epi32 (_mm256_mul_ps (_mm256_cvtepi32_ps (w), ihi))); \
    }                                                                                            \
  while (0)

__attribute__ ((target ("avx2"))) static G_ALWAYS_INLINE inline void
blur_row_c3_avx2_body (const guint16 *restrict col, guint8 *restrict out, int n, int r, int s0,
                       float inv, const float *restrict finv, int i0, int i1, const gboolean wide)
{
  const __m256 vinv = _mm256_set1_ps (inv);
  const int a = 3 * r, b = 3 * r + 3;
  /* samples per lane, a multiple of 48 (6 blocks per step): the two lanes cover s0 .. n - 1 */
  const int len = (n - s0 + 95) / 96 * 48;
  const int m = s0 + len;
  guint32 tm[3] = { 0, 0, 0 };
  __m256i w;

  /* Lane 1 starts at pixel m / 3: the window sums of the pixel before, channel by channel. */
  for (int k = -r; k <= r; k++)
    for (int c = 0; c < 3; c++)
      tm[c] += col[m - 3 + 3 * k + c];
  /* as if a block before: its samples 5, 6, 7 (channels 0, 1, 2) hold the sums so far */
  w = _mm256_setr_epi32 (0, 0, 0, 0, 0, (int) tm[0], (int) tm[1], (int) tm[2]);

  for (int k = 0; k < len; k += 48)
    {
      const int p0 = s0 + k, p1 = m + k;
      const gboolean inside = p0 >= i0 && p1 + 48 <= i1;
      __m256i q[6];

      C3_BLOCK (0);
      C3_BLOCK (1);
      C3_BLOCK (2);
      C3_BLOCK (3);
      C3_BLOCK (4);
      C3_BLOCK (5);
      {
        /* per lane: the step's 48 quotients in order */
        const __m256i o[3] = { _mm256_packus_epi16 (q[0], q[1]), _mm256_packus_epi16 (q[2], q[3]),
                               _mm256_packus_epi16 (q[4], q[5]) };
        const int at[2] = { p0, p1 };

        for (int l = 0; l < 2; l++)
          {
            guint8 tmp[48];
            const gboolean whole = at[l] >= 0 && at[l] + 48 <= n;
            guint8 *to = whole ? out + at[l] : tmp;

            for (int v = 0; v < 3; v++)
              _mm_storeu_si128 ((__m128i *) (void *) (to + 16 * v),
                                l == 0 ? _mm256_castsi256_si128 (o[v]) : _mm256_extracti128_si256 (o[v], 1));
            if (!whole && MIN (at[l] + 48, n) > MAX (at[l], 0))
              memcpy (out + MAX (at[l], 0), tmp + (MAX (at[l], 0) - at[l]),
                      (gsize) (MIN (at[l] + 48, n) - MAX (at[l], 0)));
          }
      }
    }
}
#undef C3_BLOCK

/* The block's three terms in 16 bits (!@wide: 765 · column height ≤ 32767, windows up to 41
 * rows) or in 32 bits (@wide: only d itself must fit 16 bits, 255 · column height ≤ 32767,
 * windows up to 127 rows; four more instructions per block). */
__attribute__ ((target ("avx2"))) static void
blur_row_c3_avx2 (const guint16 *restrict col, guint8 *restrict out, int n, int r, int s0,
                  float inv, const float *restrict finv, int i0, int i1, gboolean wide)
{
  if (wide)
    blur_row_c3_avx2_body (col, out, n, r, s0, inv, finv, i0, i1, TRUE);
  else
    blur_row_c3_avx2_body (col, out, n, r, s0, inv, finv, i0, i1, FALSE);
}
#endif

#if LB_XV_HAVE_AVX2_PATH
/* One block of four samples per lane (blur_row_c1_avx2): d = col(j + r) − col(j − r − 1) for
 * the lanes' samples j at @p0 + 4k and @p1 + 4k, scanned within each 128-bit lane (two shifted
 * adds) and added to the last window sum before the block (@w, dword 3 of each lane, broadcast
 * in the lane), then divided by the window's pixel count: float times @vinv, exact as it
 * stands when @exact (sums below 2^22, the reciprocal rounded up: _lb_xv_blur_recip_up),
 * else with one correction by the remainder (blur_div_corrected). Returns the quotients; @w
 * becomes the block's window sums. */
__attribute__ ((target ("avx2"))) static G_ALWAYS_INLINE inline __m256i
c1_block (const guint32 *restrict col, int p0, int p1, int r, __m256i *w, __m256 vinv,
          __m256i vcount, __m256i vcount1, const gboolean exact)
{
  const __m256i hi = _mm256_loadu2_m128i ((const __m128i *) (const void *) (col + p1 + r),
                                          (const __m128i *) (const void *) (col + p0 + r));
  const __m256i lo = _mm256_loadu2_m128i ((const __m128i *) (const void *) (col + p1 - r - 1),
                                          (const __m128i *) (const void *) (col + p0 - r - 1));
  __m256i y = _mm256_sub_epi32 (hi, lo), t;

  y = _mm256_add_epi32 (y, _mm256_bslli_epi128 (y, 4));
  y = _mm256_add_epi32 (y, _mm256_bslli_epi128 (y, 8));
  y = _mm256_add_epi32 (y, _mm256_shuffle_epi32 (*w, 0xff));
  *w = y;
  t = _mm256_cvttps_epi32 (_mm256_mul_ps (_mm256_cvtepi32_ps (y), vinv));
  if (!exact)
    {
      /* the remainder y − t·N lies within ±2N: t + 1 where it reaches N, t − 1 below 0 */
      const __m256i rem = _mm256_sub_epi32 (y, _mm256_mullo_epi32 (t, vcount));

      t = _mm256_add_epi32 (_mm256_sub_epi32 (t, _mm256_cmpgt_epi32 (rem, vcount1)),
                            _mm256_cmpgt_epi32 (_mm256_setzero_si256 (), rem));
    }
  return t;
}

/* 16-bit one-channel rows (blur_rows_16 with AVX2), the unclipped samples [@i0, @i1) only
 * (windows whole horizontally; at least 32 of them): the window sum W(j) = W(j − 1) +
 * col(j + r) − col(j − r − 1), a running sum that stays in registers and goes straight into
 * the division, where the general path writes a prefix row and reads it back at two offsets.
 * As in blur_row_c3_avx2, each 128-bit lane runs its own half of the samples (lane 0 from @i0,
 * lane 1 from the middle, both starting from exact window sums), so the loop-carried chain is
 * one in-lane shuffle and one add per four samples and no lane-crossing shuffle is needed.
 * Sums modulo 2^32: every W is a real window sum below 2^31. @col must be readable from
 * col[i0 − r − 1] to col[i1 + r + 15] (the second lane's last step runs past i1; what it
 * computes there is dropped). @count: the interior windows' pixel count; @exact as c1_block. */
__attribute__ ((target ("avx2"))) static G_ALWAYS_INLINE inline void
blur_row_c1_avx2_body (const guint32 *restrict col, guint16 *restrict out, int i0, int i1, int r,
                       guint32 count, const gboolean exact)
{
  /* samples per lane, a multiple of 8 (two blocks per step, one 16-byte store per lane) */
  const int len = ((i1 - i0 + 1) / 2 + 7) / 8 * 8;
  const int m = i0 + len;
  const __m256 vinv = _mm256_set1_ps (exact ? _lb_xv_blur_recip_up (count) : 1.0f / (float) count);
  const __m256i vcount = _mm256_set1_epi32 ((int) count);
  const __m256i vcount1 = _mm256_set1_epi32 ((int) count - 1);
  guint32 w0 = 0, w1 = 0;
  __m256i w;

  /* the window sums before each lane's first sample */
  for (int k = -r - 1; k < r; k++)
    {
      w0 += col[i0 + k];
      w1 += col[m + k];
    }
  w = _mm256_setr_epi32 (0, 0, 0, (int) w0, 0, 0, 0, (int) w1);

  for (int k = 0; k < len; k += 8)
    {
      const int p0 = i0 + k, p1 = m + k;
      const __m256i qa = c1_block (col, p0, p1, r, &w, vinv, vcount, vcount1, exact);
      const __m256i qb = c1_block (col, p0 + 4, p1 + 4, r, &w, vinv, vcount, vcount1, exact);
      /* per lane the 8 quotients in order (all ≤ 65535: unsigned saturation keeps them) */
      const __m256i q = _mm256_packus_epi32 (qa, qb);

      _mm_storeu_si128 ((__m128i *) (void *) (out + p0), _mm256_castsi256_si128 (q));
      if (p1 + 8 <= i1)
        _mm_storeu_si128 ((__m128i *) (void *) (out + p1), _mm256_extracti128_si256 (q, 1));
      else if (p1 < i1)
        {
          guint16 tmp[8];

          _mm_storeu_si128 ((__m128i *) (void *) tmp, _mm256_extracti128_si256 (q, 1));
          memcpy (out + p1, tmp, (gsize) (i1 - p1) * sizeof *tmp);
        }
    }
}

__attribute__ ((target ("avx2"))) static void
blur_row_c1_avx2 (const guint32 *restrict col, guint16 *restrict out, int i0, int i1, int r,
                  guint32 count, gboolean exact)
{
  if (exact)
    blur_row_c1_avx2_body (col, out, i0, i1, r, count, TRUE);
  else
    blur_row_c1_avx2_body (col, out, i0, i1, r, count, FALSE);
}
#endif

#if LB_XV_HAVE_AVX2_PATH
/* col[i] += in[i] - gone[i] modulo 2^16 for i < n, 32 samples per step: the two rows'
 * bytes interleaved (in, gone) and multiplied-added with (1, -1) (pmaddubsw: in - gone in 16
 * bits, |·| ≤ 255, no saturation). Zero-extending each row to 16 bits instead takes four
 * lane-crossing instructions per 32 samples, which run one per cycle; here two (the vpermq
 * that puts bytes 0-7 and 8-15 at the bottom of the two lanes, 16-23 and 24-31 at the top). */
__attribute__ ((target ("avx2"))) static void
col_in_out_8_avx2 (guint16 *restrict col, const guint8 *restrict in, const guint8 *restrict gone,
                   int n)
{
  const __m256i pm = _mm256_set1_epi16 ((short) 0xff01); /* bytes 1, -1 */
  int i = 0;

  for (; i + 32 <= n; i += 32)
    {
      const __m256i a = _mm256_permute4x64_epi64 (
        _mm256_loadu_si256 ((const __m256i *) (const void *) (in + i)), 0xd8);
      const __m256i g = _mm256_permute4x64_epi64 (
        _mm256_loadu_si256 ((const __m256i *) (const void *) (gone + i)), 0xd8);
      const __m256i d0 = _mm256_maddubs_epi16 (_mm256_unpacklo_epi8 (a, g), pm);
      const __m256i d1 = _mm256_maddubs_epi16 (_mm256_unpackhi_epi8 (a, g), pm);
      __m256i *c = (__m256i *) (void *) (col + i);

      _mm256_storeu_si256 (c, _mm256_add_epi16 (_mm256_loadu_si256 (c), d0));
      _mm256_storeu_si256 (c + 1, _mm256_add_epi16 (_mm256_loadu_si256 (c + 1), d1));
    }
  for (; i < n; i++)
    col[i] = (guint16) (col[i] + in[i] - gone[i]);
}
#endif

#if LB_XV_HAVE_AVX2_PATH
/* col[i] = Σ rows y0 .. y1 of sample xoff + i, for i < n, at most 257 rows (sums ≤ 65535): 64
 * samples at a time, all rows summed in registers before one store (where a row at a time
 * loads and stores the sums for each row), two rows per pmaddubsw (bytes interleaved by
 * unpacking within lanes, so the sums come out in the order 0-7, 16-23 | 8-15, 24-31 of each
 * 32, put back with two lane permutes at the store). */
__attribute__ ((target ("avx2"))) static void
col_init_8_avx2 (guint16 *restrict col, const LbKernelBuf *src, gsize xoff, int y0, int y1, int n)
{
  const __m256i ones = _mm256_set1_epi8 (1);
  int i = 0;

  for (; i + 64 <= n; i += 64)
    {
      __m256i acc[4] = { _mm256_setzero_si256 (), _mm256_setzero_si256 (),
                         _mm256_setzero_si256 (), _mm256_setzero_si256 () };

      for (int yy = y0; yy <= y1; yy += 2)
        {
          const guint8 *p = lb_xv_row (src, yy) + xoff + i;
          const guint8 *q = yy + 1 <= y1 ? lb_xv_row (src, yy + 1) + xoff + i : NULL;

          for (int h = 0; h < 2; h++)
            {
              const __m256i a = _mm256_loadu_si256 ((const __m256i *) (const void *) (p + 32 * h));
              const __m256i b = q != NULL ? _mm256_loadu_si256 ((const __m256i *) (const void *) (q + 32 * h))
                                          : _mm256_setzero_si256 ();

              acc[2 * h] = _mm256_add_epi16 (acc[2 * h], _mm256_maddubs_epi16 (_mm256_unpacklo_epi8 (a, b), ones));
              acc[2 * h + 1] = _mm256_add_epi16 (acc[2 * h + 1], _mm256_maddubs_epi16 (_mm256_unpackhi_epi8 (a, b), ones));
            }
        }
      for (int h = 0; h < 2; h++)
        {
          __m256i *c = (__m256i *) (void *) (col + i + 32 * h);

          _mm256_storeu_si256 (c, _mm256_permute2x128_si256 (acc[2 * h], acc[2 * h + 1], 0x20));
          _mm256_storeu_si256 (c + 1, _mm256_permute2x128_si256 (acc[2 * h], acc[2 * h + 1], 0x31));
        }
    }
  for (; i < n; i++)
    {
      guint32 sum = 0;

      for (int yy = y0; yy <= y1; yy++)
        sum += lb_xv_row (src, yy)[xoff + i];
      col[i] = (guint16) sum;
    }
}
#endif

/* 8 bits, n ≤ 257 (a column of n samples sums to at most 65535), alpha (if any) summed as a
 * channel and put back after each row: the column
 * sums in 16 bits, updated by one row in and one out in a single pass; the window sum as a
 * difference of prefix sums and the division fused in one loop (no intermediate row), so a
 * row costs a few passes over its samples whatever n. Same arithmetic as blur_fast_rows. */
LB_KERNEL_CLONES static void
blur_rows_8_u16 (const LbXvBlur *self, const LbKernelBuf *src, LbKernelBuf *dst, int ya, int yb,
                 gboolean avx2)
{
  const LbXvRegion *R = &self->region;
  const int r = self->size / 2;
  const int ch = src->channels;
  const int rw = R->x1 - R->x0;
  const int rh = R->y1 - R->y0;
  const int n = rw * ch;
  const gsize xoff = (gsize) R->x0 * ch;
  const double nmax = (double) MIN (self->size, rw) * (double) MIN (self->size, rh);
  const gboolean use_float = 255.0 * nmax < BLUR_FLOAT_EXACT_LIMIT;
  /* RGB with AVX2 and windows ≤ 127 rows: the rows take blur_row_c3_avx2 (its bounds; its
   * 16-bit form up to 41 rows, the 32-bit one above), with the column sums zero-padded on
   * both sides and s0 its first sample. */
  const gboolean scan3 = LB_XV_HAVE_AVX2_PATH && avx2 && ch == 3 && use_float
                         && 255 * MIN (self->size, rh) <= 32767;
  const gboolean scan3_wide = 765 * MIN (self->size, rh) > 32767;
  const int s0 = scan3 ? -((3 * r + 23) / 24 * 24) : 0;
  const int pad_left = scan3 ? (-s0 + 3 * r + 3 + 15) / 16 * 16 : 0;
  g_autofree guint16 *col_buf = g_new0 (guint16, (gsize) pad_left + (gsize) n
                                                   + (gsize) (scan3 ? 3 * r + 128 : 4));
  guint16 *col = col_buf + pad_left;
  /* blur_row_c3_avx2's reciprocals, for samples s0 .. n + 95 (zero outside the row), and the
   * interior's, kept while ny stays the same */
  g_autofree float *finv3 = scan3 ? g_new0 (float, (gsize) (n - s0 + 96)) : NULL;
  float inv3 = 0;
  /* Per sample of the clipped columns (the r nearest each end): the reciprocal of its window's
   * pixel count, float or double as for the interior, kept while the window height ny stays
   * the same. */
  g_autofree float *finv = use_float ? g_new (float, n) : NULL;
  g_autofree double *dinv = use_float ? NULL : g_new (double, n);
  guint32 inv_ny = 0;
  /* The prefix sums with r·ch zeros before them (zero columns left of the region) and room for
   * r more columns after (zero columns right of it: the totals repeated), so that every
   * column's window sum is pre[i + (r + 1)·ch] - pre[i - r·ch], clipped or not. */
  g_autofree guint32 *pre_buf = g_new0 (guint32, (gsize) n + (gsize) (2 * r + 1) * ch + 4);
  guint32 *pre = pre_buf + r * ch;

#if LB_XV_HAVE_AVX2_PATH
  if (avx2)
    col_init_8_avx2 (col, src, xoff, MAX (R->y0, ya - r), MIN (R->y1 - 1, ya + r), n);
  else
#endif
    for (int yy = MAX (R->y0, ya - r); yy <= MIN (R->y1 - 1, ya + r); yy++)
      {
        const guint8 *restrict in = lb_xv_row (src, yy) + xoff;

        for (int i = 0; i < n; i++)
          col[i] += in[i];
      }

  for (int y = ya; y < yb; y++)
    {
      const int wy0 = MAX (R->y0, y - r), wy1 = MIN (R->y1 - 1, y + r);
      const guint32 ny = (guint32) (wy1 - wy0 + 1);
      guint8 *restrict out = lb_xv_row_mut (dst, y) + xoff;
      const gboolean add = y > ya && y + r <= R->y1 - 1, sub = y > ya && y - r - 1 >= R->y0;

      if (add && sub)
        {
          const guint8 *restrict in = lb_xv_row (src, y + r) + xoff;
          const guint8 *restrict gone = lb_xv_row (src, y - r - 1) + xoff;

          /* Modulo 2^16 the difference is exact: the result is a real column sum. */
#if LB_XV_HAVE_AVX2_PATH
          if (avx2)
            col_in_out_8_avx2 (col, in, gone, n);
          else
#endif
            for (int i = 0; i < n; i++)
              col[i] = (guint16) (col[i] + in[i] - gone[i]);
          /* The next row in is read for the first time (from memory, not cache) and lies a
           * stride away, where the hardware prefetchers stop at the page boundary: ask for it
           * now, one line per 64 bytes, while this row's prefix and division run. */
          if (y + 1 < yb && y + r + 1 <= R->y1 - 1)
            {
              const guint8 *next = lb_xv_row (src, y + r + 1) + xoff;

              for (int i = 0; i < n; i += 64)
                __builtin_prefetch (next + i);
              __builtin_prefetch (next + n - 1);
            }
        }
      else if (add)
        {
          const guint8 *restrict in = lb_xv_row (src, y + r) + xoff;

          for (int i = 0; i < n; i++)
            col[i] = (guint16) (col[i] + in[i]);
        }
      else if (sub)
        {
          const guint8 *restrict gone = lb_xv_row (src, y - r - 1) + xoff;

          for (int i = 0; i < n; i++)
            col[i] = (guint16) (col[i] - gone[i]);
        }

#if LB_XV_HAVE_AVX2_PATH
      if (scan3)
        {
          const int jlo = MIN (r, rw), jhi = MAX (jlo, rw - r);

          if (ny != inv_ny)
            {
              inv3 = _lb_xv_blur_recip_up ((guint32) self->size * ny);
              for (int i = jlo * 3; i < jhi * 3; i++)
                finv3[i - s0] = inv3;
              for (int j = 0; j < rw; j++)
                {
                  float v;

                  if (j == jlo && jhi > jlo)
                    j = jhi;
                  if (j >= rw)
                    break;
                  v = _lb_xv_blur_recip_up ((guint32) (MIN (rw - 1, j + r) - MAX (0, j - r) + 1)
                                            * ny);
                  for (int c = 0; c < 3; c++)
                    finv3[j * 3 + c - s0] = v;
                }
              inv_ny = ny;
            }
          blur_row_c3_avx2 (col, out, n, r, s0, inv3, finv3 - s0, jlo * 3, jhi * 3, scan3_wide);
          continue;
        }
#endif
      switch (ch)
        {
        case 1: prefix_c1 (pre, col, rw, FALSE); break;
        case 3:
          {
            /* One pixel per step as a 4-lane vector (lane 3 carries the next pixel's first
             * sample, never used: the next store overwrites it); one add on the serial
             * chain per pixel instead of three. col and pre have a spare sample at the end. */
            __m128i acc = _mm_setzero_si128 ();
            const __m128i zero = _mm_setzero_si128 ();

            int j = 0;

            /* Four pixels per step: fewer loop-carried instructions per pixel. */
            for (; j + 4 <= rw; j += 4)
              {
                const __m128i v0 = _mm_loadl_epi64 ((const __m128i *) (const void *) (col + j * 3));
                const __m128i v1 = _mm_loadl_epi64 ((const __m128i *) (const void *) (col + j * 3 + 3));
                const __m128i v2 = _mm_loadl_epi64 ((const __m128i *) (const void *) (col + j * 3 + 6));
                const __m128i v3 = _mm_loadl_epi64 ((const __m128i *) (const void *) (col + j * 3 + 9));
                const __m128i s1 = _mm_add_epi32 (_mm_unpacklo_epi16 (v0, zero),
                                                  _mm_unpacklo_epi16 (v1, zero));
                const __m128i s3 = _mm_add_epi32 (_mm_unpacklo_epi16 (v2, zero),
                                                  _mm_unpacklo_epi16 (v3, zero));
                const __m128i p0 = _mm_add_epi32 (acc, _mm_unpacklo_epi16 (v0, zero));
                const __m128i p1 = _mm_add_epi32 (acc, s1);
                const __m128i p2 = _mm_add_epi32 (p1, _mm_unpacklo_epi16 (v2, zero));

                acc = _mm_add_epi32 (p1, s3);
                _mm_storeu_si128 ((__m128i *) (void *) (pre + (j + 1) * 3), p0);
                _mm_storeu_si128 ((__m128i *) (void *) (pre + (j + 2) * 3), p1);
                _mm_storeu_si128 ((__m128i *) (void *) (pre + (j + 3) * 3), p2);
                _mm_storeu_si128 ((__m128i *) (void *) (pre + (j + 4) * 3), acc);
              }
            for (; j < rw; j++)
              {
                const __m128i v = _mm_loadl_epi64 ((const __m128i *) (const void *) (col + j * 3));

                acc = _mm_add_epi32 (acc, _mm_unpacklo_epi16 (v, zero));
                _mm_storeu_si128 ((__m128i *) (void *) (pre + (j + 1) * 3), acc);
              }
          }
          break;
        case 4:
          {
            /* RGBA: one pixel is exactly one 4-lane vector */
            __m128i acc = _mm_setzero_si128 ();
            const __m128i zero = _mm_setzero_si128 ();

            for (int j = 0; j < rw; j++)
              {
                const __m128i v = _mm_loadl_epi64 ((const __m128i *) (const void *) (col + j * 4));

                acc = _mm_add_epi32 (acc, _mm_unpacklo_epi16 (v, zero));
                _mm_storeu_si128 ((__m128i *) (void *) (pre + (j + 1) * 4), acc);
              }
          }
          break;
        default: prefix_sums16 (pre, col, rw, ch); break;
        }

      {
        const BlurRowTail t = blur_row_tail (pre, rw, r, ch, self->size, ny, &inv_ny, finv, dinv);
        const int a = t.a, b = t.b, i0 = t.i0, i1 = t.i1;
        const guint32 count = t.count;

        if (use_float)
          {
            const float inv = _lb_xv_blur_recip_up (count);

            if (i1 > i0)
              {
#if LB_XV_HAVE_AVX2_PATH
                if (avx2)
                  win_div_8_avx2 (pre + i0 + a, pre + i0 - b, out + i0, i1 - i0, inv);
                else
#endif
                  win_div_8 (pre + i0 + a, pre + i0 - b, out + i0, i1 - i0, inv);
              }
            /* The clipped columns: the same sums, a reciprocal per sample (exact as in the
             * interior, their sums being smaller). */
            for (int i = 0; i < i0; i++)
              out[i] = (guint8) (gint32) ((float) (gint32) (pre[i + a] - pre[i - b]) * finv[i]);
            for (int i = MAX (i0, i1); i < n; i++)
              out[i] = (guint8) (gint32) ((float) (gint32) (pre[i + a] - pre[i - b]) * finv[i]);
          }
        else
          {
            /* (s + 0.5) · (1/N) in double is within 0.5/N of s/N for s < 2^51. */
            const double inv = 1.0 / (double) count;

            for (int i = i0; i < i1; i++)
              out[i] = (guint8) (guint) (((double) (pre[i + a] - pre[i - b]) + 0.5) * inv);
            for (int i = 0; i < i0; i++)
              out[i] = (guint8) (guint) (((double) (pre[i + a] - pre[i - b]) + 0.5) * dinv[i]);
            for (int i = MAX (i0, i1); i < n; i++)
              out[i] = (guint8) (guint) (((double) (pre[i + a] - pre[i - b]) + 0.5) * dinv[i]);
          }
      }
      if (ch != lb_xv_colour_channels (ch))
        lb_kernel_restore_alpha (src, dst, y, R->x0, R->x1);
    }
}

static void
_lb_xv_blur_rows8 (const LbXvBlur *self, const LbKernelBuf *src, LbKernelBuf *dst, int ya, int yb,
                   gboolean avx2)
{
  blur_rows_8_u16 (self, src, dst, ya, yb, avx2);
}

/* 16 bits without alpha (GRAY16, RGB16), window sums below 2^31: the column sums in 32 bits
 * updated by the row in and the row out in one pass, the row prefix by the vector scans above,
 * the window sum and the division fused in one loop (float with the rounded-up reciprocal
 * while the sums stay below 2^22, n ≤ 7 in the interior; else float with one correction in
 * the interior and double with signed conversions in the clipped columns), so the cost per
 * row does not depend on n. GRAY16 with AVX2 (@avx2) and at least 32 whole windows per row:
 * no prefix row, the whole windows by blur_row_c1_avx2 and the clipped ones by running sums
 * from each end (1400×1000 GRAY16, 1 thread, a driver timing lb_xv_blur_process, three
 * alternating runs: blur 31 0.676–0.682 → 0.522–0.536 ms, blur 7 0.496–0.500 → 0.394–0.399).
 * Same results as blur_fast_rows. */
LB_KERNEL_CLONES static void
blur_rows_16 (const LbXvBlur *self, const LbKernelBuf *src, LbKernelBuf *dst, int ya, int yb,
              gboolean avx2)
{
  const LbXvRegion *R = &self->region;
  const int r = self->size / 2;
  const int ch = src->channels;
  const int rw = R->x1 - R->x0;
  const int rh = R->y1 - R->y0;
  const int n = rw * ch;
  const gsize xoff = (gsize) R->x0 * ch * 2;
  const double nmax = (double) MIN (self->size, rw) * (double) MIN (self->size, rh);
  const gboolean use_float = 65535.0 * nmax < BLUR_FLOAT_EXACT_LIMIT;
  /* GRAY16 with AVX2 and at least 32 unclipped columns: those take blur_row_c1_avx2 (no
   * prefix row), which reads the column sums from one before the region to 15 past its end
   * (zeros, never written) */
  const gboolean scan1 = LB_XV_HAVE_AVX2_PATH && avx2 && ch == 1 && rw - 2 * r >= 32;
  g_autofree guint32 *col_buf = g_new0 (guint32, (gsize) n + 20);
  guint32 *col = col_buf + 1;
  /* As in blur_rows_8_u16: the prefix padded with zero columns on both sides, so that every
   * column's window sum is pre[i + (r + 1)·ch] - pre[i - r·ch], and per sample of the clipped
   * columns the reciprocal of its count, kept while the window height stays the same. */
  g_autofree guint32 *pre_buf = g_new0 (guint32, (gsize) n + (gsize) (2 * r + 1) * ch + 4);
  guint32 *pre = pre_buf + r * ch;
  g_autofree float *finv = use_float ? g_new (float, n) : NULL;
  g_autofree double *dinv = use_float ? NULL : g_new (double, n);
  guint32 inv_ny = 0;

  for (int yy = MAX (R->y0, ya - r); yy <= MIN (R->y1 - 1, ya + r); yy++)
    {
      const guint16 *restrict in = (const guint16 *) (const void *) (lb_xv_row (src, yy) + xoff);

      for (int i = 0; i < n; i++)
        col[i] += in[i];
    }

  for (int y = ya; y < yb; y++)
    {
      const int wy0 = MAX (R->y0, y - r), wy1 = MIN (R->y1 - 1, y + r);
      const guint32 ny = (guint32) (wy1 - wy0 + 1);
      guint16 *restrict out = (guint16 *) (void *) (lb_xv_row_mut (dst, y) + xoff);
      const gboolean add = y > ya && y + r <= R->y1 - 1, sub = y > ya && y - r - 1 >= R->y0;
      const guint16 *restrict in = add ? (const guint16 *) (const void *) (lb_xv_row (src, y + r) + xoff) : NULL;
      const guint16 *restrict gone = sub ? (const guint16 *) (const void *) (lb_xv_row (src, y - r - 1) + xoff) : NULL;

      /* Modulo 2^32 the difference is exact: the result is a real column sum. */
      if (add && sub)
        for (int i = 0; i < n; i++)
          col[i] += (guint32) in[i] - (guint32) gone[i];
      else if (add)
        for (int i = 0; i < n; i++)
          col[i] += in[i];
      else if (sub)
        for (int i = 0; i < n; i++)
          col[i] -= gone[i];

#if LB_XV_HAVE_AVX2_PATH
      if (scan1)
        {
          const int i0 = r, i1 = rw - r;
          const guint32 count = (guint32) self->size * ny;
          guint32 s = 0;

          blur_row_c1_avx2 (col, out, i0, i1, r, count, use_float);
          if (ny != inv_ny)
            {
              _lb_xv_blur_clipped_recips (rw, r, 1, i0, i1, ny, finv, dinv);
              inv_ny = ny;
            }
          /* the clipped columns' window sums as running sums from each end's first column,
           * divided as in the prefix path below */
          for (int i = 0; i < r; i++)
            s += col[i];
          for (int i = 0; i < i0; i++)
            {
              s += col[i + r];
              out[i] = use_float ? (guint16) (gint32) ((float) (gint32) s * finv[i])
                                 : (guint16) (gint32) (((double) (gint32) s + 0.5) * dinv[i]);
            }
          s = 0;
          for (int i = i1 - r; i < rw; i++)
            s += col[i];
          for (int i = i1; i < rw; i++)
            {
              out[i] = use_float ? (guint16) (gint32) ((float) (gint32) s * finv[i])
                                 : (guint16) (gint32) (((double) (gint32) s + 0.5) * dinv[i]);
              s -= col[i - r];
            }
          continue;
        }
#endif
      switch (ch)
        {
        case 1: prefix_c1 (pre, col, rw, TRUE); break;
        case 3: prefix_c3_u32 (pre, col, rw); break;
        default: prefix_sums (pre, col, rw, ch); break;
        }

      {
        const BlurRowTail t = blur_row_tail (pre, rw, r, ch, self->size, ny, &inv_ny, finv, dinv);
        const int a = t.a, b = t.b, i0 = t.i0, i1 = t.i1;
        const guint32 count = t.count;

        if (use_float)
          {
            const float inv = _lb_xv_blur_recip_up (count);

            for (int i = i0; i < i1; i++)
              out[i] = (guint16) (gint32) ((float) (gint32) (pre[i + a] - pre[i - b]) * inv);
            for (int i = 0; i < i0; i++)
              out[i] = (guint16) (gint32) ((float) (gint32) (pre[i + a] - pre[i - b]) * finv[i]);
            for (int i = i1; i < n; i++)
              out[i] = (guint16) (gint32) ((float) (gint32) (pre[i + a] - pre[i - b]) * finv[i]);
          }
        else
          {
            /* the interior in float with a correction (blur_div_corrected); the clipped
             * columns, whose counts vary, in double: (s + 0.5) · (1/N) is within 0.5/N of s/N
             * for s < 2^51 */
            const float inv = 1.0f / (float) count;

            for (int i = i0; i < i1; i++)
              out[i] = (guint16) blur_div_corrected (pre[i + a] - pre[i - b], inv, count);
            for (int i = 0; i < i0; i++)
              out[i] = (guint16) (gint32) (((double) (gint32) (pre[i + a] - pre[i - b]) + 0.5)
                                           * dinv[i]);
            for (int i = i1; i < n; i++)
              out[i] = (guint16) (gint32) (((double) (gint32) (pre[i + a] - pre[i - b]) + 0.5)
                                           * dinv[i]);
          }
      }
    }
}

static void
_lb_xv_blur_rows16 (const LbXvBlur *self, const LbKernelBuf *src, LbKernelBuf *dst, int ya,
                    int yb, gboolean avx2)
{
  blur_rows_16 (self, src, dst, ya, yb, avx2);
}

/* Blur 3 at 8 bits (alpha, if any, blurred as a channel and put back after), interior rows:
 * the three-row column sums in 16 bits (≤ 765), the 3×3 window sums (≤ 2295) and the exact
 * division by 9 as a multiply-high, over the row as a flat array of samples (neighbours at
 * ±ch). Columns 1 .. rw-2 of @out; @col receives all n column sums (the clipped end columns
 * use them). */
LB_KERNEL_CLONES static void
blur3_row_8 (const guint8 *restrict up, const guint8 *restrict in, const guint8 *restrict down,
             guint8 *restrict out, guint16 *restrict col, int n, int ch)
{
  for (int i = 0; i < n; i++)
    col[i] = (guint16) (up[i] + in[i] + down[i]);
  for (int i = ch; i < n - ch; i++)
    out[i] = (guint8) lb_xv_div9_u16 ((guint16) (col[i - ch] + col[i] + col[i + ch]));
}

/* Blur 3 at 16 bits without alpha (GRAY16, the medical images', and RGB16): the same, column
 * sums in 32 bits (≤ 196605) and the window's (≤ 589815) divided by 9 by the compiler's
 * multiply-high. */
LB_KERNEL_CLONES static void
blur3_row_16 (const guint16 *restrict up, const guint16 *restrict in,
              const guint16 *restrict down, guint16 *restrict out, guint32 *restrict col, int n,
              int ch)
{
  for (int i = 0; i < n; i++)
    col[i] = (guint32) up[i] + in[i] + down[i];
  for (int i = ch; i < n - ch; i++)
    out[i] = (guint16) ((col[i - ch] + col[i] + col[i + ch]) / 9u);
}

/* Blur 3, region at least 3×3, 8 bits (alpha runs through the sums and is put back) or 16
 * bits without alpha: rows with the full three-row window take blur3_row_8 or blur3_row_16
 * (and the two clipped end columns, 6-pixel windows, here); the region's first and last rows
 * take the general path of their depth, one row at a time (it starts afresh for any band). */
static G_ALWAYS_INLINE inline void
blur3_fast (const LbXvBlur *self, const LbKernelBuf *src, LbKernelBuf *dst, int ya, int yb,
            const int depth)
{
  const LbXvRegion *R = &self->region;
  const int ch = src->channels;
  const int rw = R->x1 - R->x0;
  const int n = rw * ch;
  const gsize xoff = (gsize) R->x0 * ch * (depth / 8);
  /* the column sums: guint16 at 8 bits (the first half of the buffer), guint32 at 16 */
  g_autofree guint32 *col = g_new (guint32, n);
  const guint16 *col16 = (const guint16 *) (const void *) col;

  for (int y = ya; y < yb; y++)
    {
      guint8 *out = lb_xv_row_mut (dst, y) + xoff;

      if (y == R->y0 || y == R->y1 - 1)
        {
          if (depth == 8)
            _lb_xv_blur_sums_rows (self, src, dst, y, y + 1);
          else
            _lb_xv_blur_rows16 (self, src, dst, y, y + 1, FALSE);
          continue;
        }
      if (depth == 8)
        blur3_row_8 (lb_xv_row (src, y - 1) + xoff, lb_xv_row (src, y) + xoff,
                     lb_xv_row (src, y + 1) + xoff, out, (guint16 *) (void *) col, n, ch);
      else
        blur3_row_16 ((const guint16 *) (const void *) (lb_xv_row (src, y - 1) + xoff),
                      (const guint16 *) (const void *) (lb_xv_row (src, y) + xoff),
                      (const guint16 *) (const void *) (lb_xv_row (src, y + 1) + xoff),
                      (guint16 *) (void *) out, col, n, ch);
      for (int c = 0; c < ch; c++)
        {
          const guint32 first = depth == 8 ? (guint32) col16[c] + col16[ch + c] : col[c] + col[ch + c];
          const guint32 last = depth == 8 ? (guint32) col16[n - 2 * ch + c] + col16[n - ch + c]
                                          : col[n - 2 * ch + c] + col[n - ch + c];

          lb_xv_put (out, (gsize) c, first / 6u, depth);
          lb_xv_put (out, (gsize) (n - ch + c), last / 6u, depth);
        }
      if (ch != lb_xv_colour_channels (ch))
        lb_kernel_restore_alpha (src, dst, y, R->x0, R->x1);
    }
}

static void
blur3_fast_8 (const LbXvBlur *self, const LbKernelBuf *src, LbKernelBuf *dst, int ya, int yb)
{
  blur3_fast (self, src, dst, ya, yb, 8);
}

static void
blur3_fast_16 (const LbXvBlur *self, const LbKernelBuf *src, LbKernelBuf *dst, int ya, int yb)
{
  blur3_fast (self, src, dst, ya, yb, 16);
}

static void
_lb_xv_blur3_rows (const LbXvBlur *self, const LbKernelBuf *src, LbKernelBuf *dst, int ya, int yb)
{
  if (src->depth == 8)
    blur3_fast_8 (self, src, dst, ya, yb);
  else
    blur3_fast_16 (self, src, dst, ya, yb);
}

/* lb_xv_blur_process with or without the hand-written AVX2 rows (@avx2: the CPU has AVX2 and
 * the caller wants them). */
static void
blur_process (const LbXvBlur    *self,
              const LbKernelBuf *src,
              LbKernelBuf       *dst,
              int                y0,
              int                y1,
              gboolean           avx2)
{
  const LbXvRegion *R;
  double nmax;

  g_return_if_fail (self != NULL && _lb_xv_same_geometry (src, dst));

  R = &self->region;
  y0 = MAX (y0, R->y0);
  y1 = MIN (y1, R->y1);
  if (y0 >= y1 || self->size == 1)
    return;

  /* Window sums must fit the 32-bit running sums; windows above 65537 pixels at 16 bits
   * (n > 256 on a region that large) take the reference path. */
  nmax = (double) MIN (self->size, R->x1 - R->x0) * (double) MIN (self->size, R->y1 - R->y0);
  if ((double) lb_xv_max_value (src->depth) * nmax >= 4294967295.0)
    {
      lb_xv_blur_process_ref (self, src, dst, y0, y1);
      return;
    }
  if (src->depth == 8 && self->size == 3 && R->x1 - R->x0 >= 3 && R->y1 - R->y0 >= 3)
    _lb_xv_blur3_rows (self, src, dst, y0, y1);
  else if (src->depth == 8 && self->size <= 257)
    _lb_xv_blur_rows8 (self, src, dst, y0, y1, avx2);
  else if (src->depth == 8)
    _lb_xv_blur_sums_rows (self, src, dst, y0, y1);
  else if (self->size == 3 && lb_xv_colour_channels (src->channels) == src->channels
           && R->x1 - R->x0 >= 3 && R->y1 - R->y0 >= 3)
    _lb_xv_blur3_rows (self, src, dst, y0, y1);
  else if (lb_xv_colour_channels (src->channels) == src->channels && 65535.0 * nmax < 2147483648.0)
    _lb_xv_blur_rows16 (self, src, dst, y0, y1, avx2);
  else
    _lb_xv_blur_sums_rows (self, src, dst, y0, y1);
}

void
lb_xv_blur_process (const LbXvBlur    *self,
                    const LbKernelBuf *src,
                    LbKernelBuf       *dst,
                    int                y0,
                    int                y1)
{
#if LB_XV_HAVE_AVX2_PATH
  blur_process (self, src, dst, y0, y1, lb_kernel_have_avx2 ());
#else
  blur_process (self, src, dst, y0, y1, FALSE);
#endif
}

void
_lb_xv_blur_process_portable (const LbXvBlur    *self,
                              const LbKernelBuf *src,
                              LbKernelBuf       *dst,
                              int                y0,
                              int                y1)
{
  blur_process (self, src, dst, y0, y1, FALSE);
}
