/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-blur"

/* xv's blur at 8 bits, windows up to 257 rows: 16-bit column sums, the division fused
 * with the window sums, hand-written AVX2 rows beside the portable ones. */

#include "lb-xv-blur-private.h"

#if LB_XV_HAVE_AVX2_PATH
#include <immintrin.h>
#endif

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

void
_lb_xv_blur_rows8 (const LbXvBlur *self, const LbKernelBuf *src, LbKernelBuf *dst, int ya, int yb,
                   gboolean avx2)
{
  blur_rows_8_u16 (self, src, dst, ya, yb, avx2);
}
