/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-blur"

/* xv's blur at 16 bits without alpha: 32-bit column sums, the division fused with the
 * window sums, a hand-written AVX2 row for GRAY16. */

#include "lb-xv-blur-private.h"

#if LB_XV_HAVE_AVX2_PATH
#include <immintrin.h>
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

/* 16 bits without alpha (GRAY16, RGB16), window sums below 2^31: the column sums in 32 bits
 * updated by the row in and the row out in one pass, the row prefix by the vector scans of
 * lb-xv-blur-private.h, the window sum and the division fused in one loop (float with the
 * rounded-up reciprocal while the sums stay below 2^22, n ≤ 7 in the interior; else float
 * with one correction in the interior and double with signed conversions in the clipped
 * columns), so the cost per row does not depend on n. GRAY16 with AVX2 (@avx2) and at least
 * 32 whole windows per row: no prefix row, the whole windows by blur_row_c1_avx2 and the
 * clipped ones by running sums from each end (1400×1000 GRAY16, 1 thread, a driver timing
 * lb_xv_blur_process, three alternating runs: blur 31 0.676–0.682 → 0.522–0.536 ms, blur 7
 * 0.496–0.500 → 0.394–0.399). Same results as blur_fast_rows. */
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

void
_lb_xv_blur_rows16 (const LbXvBlur *self, const LbKernelBuf *src, LbKernelBuf *dst, int ya,
                    int yb, gboolean avx2)
{
  blur_rows_16 (self, src, dst, ya, yb, avx2);
}
