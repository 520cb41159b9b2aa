/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-rotate"

/* Rotate's fast path: the inner intervals of rows in AVX2, for 8-bit RGB and RGBA and for
 * gray. */

#include "lb-rotate-private.h"

/* pixels ahead of the AVX2 loop's software prefetch (measured at 1.4 Mpx, 30°: 8 to 64 all
 * take the pass from ~22 to ~12 ms of CPU on the 2-vCPU EPYC; 32 stays inside a tile), and
 * the prefetch points per eight-pixel step (2: ~10 % less CPU than 1; 4 no better) */
#ifndef PREFETCH_POINTS
#define PREFETCH_POINTS 2
#endif
#ifndef PREFETCH_AHEAD
#define PREFETCH_AHEAD 32
#endif

#ifdef HAVE_AVX2_PATH
/* Scalar instances of the inner loop, for the vector path's odd pixels. */
static void
row_inner_3_8 (const LbRotate *st, const LbKernelBuf *src, guint8 *drow, int y,
               const RowLine *l, int xs, int xe)
{
  row_inner (st, src, drow, y, l, xs, xe, 3, 3, 8);
}

static void
row_inner_4_8 (const LbRotate *st, const LbKernelBuf *src, guint8 *drow, int y,
               const RowLine *l, int xs, int xe)
{
  row_inner (st, src, drow, y, l, xs, xe, 3, 4, 8);
}


/* The inner loop for 8-bit RGB and RGBA in AVX2, eight pixels per step. Coordinates, the
 * floor() steps, the epsilon test and xv's weights are the scalar loop's double operations
 * (no FMA, same order), four lanes at a time; the blend then runs on eight lanes in float:
 * the weights (≤ 1) rounded to float, products and sums of samples ≤ 255, so the float
 * value t̃ = v + 1/2 lies within 2e-4 of the double one (4 · 255 · 2^-24 for the weights,
 * 7 roundings of values ≤ 256 at 2^-24 relative). Where t̃ is at least 2^-10 (9.8e-4) from
 * an integer, its floor is the double path's, bit for bit. A pixel with a sample nearer
 * than that (about 0.6 % of them), a coordinate within the epsilon of a floor() step, or a
 * neighbour whose 8-byte read would pass the end of the buffer takes the scalar loop. So the
 * result is byte-identical to row_inner(); each pair of horizontal neighbours comes from
 * one 8-byte load.
 * The caller checks that byte offsets fit 31 bits. */
#define ROTATE_FLOAT_NEAR (1.0f / 1024.0f)

/* Four lanes of the scalar loop's double maths: the floor()ed coordinates, the epsilon
 * test (returned as a 4-bit mask), the offsets px, py and xv's weights. */
__attribute__ ((target ("avx2"), always_inline)) static inline int
coords4_pd (__m256d xd, const RowLine *l, __m128i *ox, __m128i *oy, __m256d *opx, __m256d *opy,
            __m256d w[4])
{
  const __m256d vax0 = _mm256_set1_pd (l->ax0), vay0 = _mm256_set1_pd (l->ay0);
  const __m256d vca = _mm256_set1_pd (l->ca), vsa = _mm256_set1_pd (l->sa);
  const __m256d eps = _mm256_set1_pd (BOUNDARY_EPS), eps1 = _mm256_set1_pd (1.0 - BOUNDARY_EPS);
  const __m256d half = _mm256_set1_pd (0.5), one = _mm256_set1_pd (1.0), k07 = _mm256_set1_pd (0.7);
  const __m256d signbit = _mm256_set1_pd (-0.0);
  __m256d xf = _mm256_add_pd (vax0, _mm256_mul_pd (xd, vca));
  __m256d yf = _mm256_sub_pd (vay0, _mm256_mul_pd (xd, vsa));
  __m128i oxi = _mm256_cvttpd_epi32 (xf), oyi = _mm256_cvttpd_epi32 (yf);
  __m256d fx = _mm256_sub_pd (xf, _mm256_cvtepi32_pd (oxi));
  __m256d fy = _mm256_sub_pd (yf, _mm256_cvtepi32_pd (oyi));
  __m256d bad = _mm256_or_pd (_mm256_or_pd (_mm256_cmp_pd (fx, eps, _CMP_LT_OQ),
                                            _mm256_cmp_pd (fx, eps1, _CMP_GT_OQ)),
                              _mm256_or_pd (_mm256_cmp_pd (fy, eps, _CMP_LT_OQ),
                                            _mm256_cmp_pd (fy, eps1, _CMP_GT_OQ)));
  __m256d px = _mm256_sub_pd (fx, half), py = _mm256_sub_pd (fy, half);
  __m256d ax = _mm256_andnot_pd (signbit, px), ay = _mm256_andnot_pd (signbit, py);
  __m256d w1 = _mm256_mul_pd (ax, _mm256_sub_pd (one, ay));
  __m256d w2 = _mm256_mul_pd (ay, _mm256_sub_pd (one, ax));
  __m256d w3 = _mm256_mul_pd (ax, ay);

  w1 = _mm256_mul_pd (w1, k07);
  w2 = _mm256_mul_pd (w2, k07);
  w3 = _mm256_mul_pd (w3, k07);
  w[0] = _mm256_sub_pd (one, _mm256_add_pd (_mm256_add_pd (w1, w2), w3));
  w[1] = w1;
  w[2] = w2;
  w[3] = w3;
  *opx = px;
  *opy = py;
  *ox = oxi;
  *oy = oyi;
  return _mm256_movemask_pd (bad);
}

/* coords4_pd () with the weights rounded to float */
__attribute__ ((target ("avx2"), always_inline)) static inline int
coords4_avx2 (__m256d xd, const RowLine *l, __m128i *ox, __m128i *oy, __m128 *pxs, __m128 *pys,
              __m128 w[4])
{
  __m256d px, py, wd[4];
  int bad = coords4_pd (xd, l, ox, oy, &px, &py, wd);

  for (int i = 0; i < 4; i++)
    w[i] = _mm256_cvtpd_ps (wd[i]);
  /* only the signs of px, py matter here: a nonzero double of magnitude ≥ 2^-53 keeps its
   * sign in float */
  *pxs = _mm256_cvtpd_ps (px);
  *pys = _mm256_cvtpd_ps (py);
  return bad;
}

__attribute__ ((target ("avx2"), always_inline)) static inline void
row_inner_avx2_8 (const LbRotate    *st,
                  const LbKernelBuf *src,
                  guint8            *drow,
                  int                y,
                  const RowLine     *l,
                  int                xs,
                  int                xe,
                  int                ch)
{
  const __m256 halff = _mm256_set1_ps (0.5f), zerof = _mm256_setzero_ps ();
  const __m256 lim = _mm256_set1_ps (0.5f - ROTATE_FLOAT_NEAR);
  const __m256 absmask = _mm256_castsi256_ps (_mm256_set1_epi32 (0x7fffffff));
  const __m256i vch = _mm256_set1_epi32 (ch), vstride = _mm256_set1_epi32 ((int) src->stride);
  const __m256i vmax = _mm256_set1_epi32 (255), lowbyte = _mm256_set1_epi32 (0xff);
  /* the last byte offset an 8-byte read in the upper of two rows may start at */
  const __m256i limit = _mm256_set1_epi32 ((int) (src->stride * (gsize) (src->height - 2)
                                                  + (gsize) src->width * src->channels - 8));
  /* one 8-byte load (the left and the right pixel) into dwords [left a, left b, right a,
   * right b] of each 128-bit half */
  const __m256i split = ch == 3
    ? _mm256_setr_epi8 (0, 1, 2, -1, 8, 9, 10, -1, 3, 4, 5, -1, 11, 12, 13, -1,
                        0, 1, 2, -1, 8, 9, 10, -1, 3, 4, 5, -1, 11, 12, 13, -1)
    : _mm256_setr_epi8 (0, 1, 2, -1, 8, 9, 10, -1, 4, 5, 6, -1, 12, 13, 14, -1,
                        0, 1, 2, -1, 8, 9, 10, -1, 4, 5, 6, -1, 12, 13, 14, -1);
  /* RGB: the three low bytes of each 32-bit lane, packed per 128-bit half, then the halves
   * joined: 24 bytes */
  const __m256i pack3 = _mm256_setr_epi8 (0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1,
                                          0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
  const __m256i join3 = _mm256_setr_epi32 (0, 1, 2, 4, 5, 6, 3, 7);
  const __m256d four = _mm256_set1_pd (4.0), eight = _mm256_set1_pd (8.0);
  int x = xs;
  /* the lanes' x as doubles, stepped by 8 (exact: small integers) */
  __m256d xd = _mm256_set_pd (x + 3, x + 2, x + 1, x);

  for (; x + 8 <= xe; x += 8, xd = _mm256_add_pd (xd, eight))
    {
      __m128i oxl, oyl, oxh, oyh;
      __m128 pxl, pyl, pxh, pyh, wl[4], wh[4];
      int bad = coords4_avx2 (xd, l, &oxl, &oyl, &pxl, &pyl, wl);
      __m256i ox, oy, offt, mx, my, g0, g1, g2, g3, out, over;
      __m256 w0, w1, w2, w3;
      int near = 0;

      bad |= coords4_avx2 (_mm256_add_pd (xd, four), l, &oxh, &oyh, &pxh, &pyh, wh) << 4;
      ox = _mm256_set_m128i (oxh, oxl);
      oy = _mm256_set_m128i (oyh, oyl);
      w0 = _mm256_set_m128 (wh[0], wl[0]);
      w1 = _mm256_set_m128 (wh[1], wl[1]);
      w2 = _mm256_set_m128 (wh[2], wl[2]);
      w3 = _mm256_set_m128 (wh[3], wl[3]);
      /* The two neighbours in a row are adjacent pixels: one 8-byte load at the left one
       * (ox − 1 where px < 0) holds both, in the top row (oy − 1 where py < 0) and the row
       * below it. The weights follow: w0 belongs to (ox, oy), w1 to (ox1, oy), w2 to
       * (ox, oy1), w3 to (ox1, oy1). */
      mx = _mm256_castps_si256 (_mm256_cmp_ps (_mm256_set_m128 (pxh, pxl), zerof, _CMP_LT_OQ));
      my = _mm256_castps_si256 (_mm256_cmp_ps (_mm256_set_m128 (pyh, pyl), zerof, _CMP_LT_OQ));
      offt = _mm256_add_epi32 (_mm256_mullo_epi32 (_mm256_add_epi32 (oy, my), vstride),
                               _mm256_mullo_epi32 (_mm256_add_epi32 (ox, mx), vch));
      over = _mm256_cmpgt_epi32 (offt, limit);
      if (G_UNLIKELY (!_mm256_testz_si256 (over, over)))
        {
          /* those lanes read pixel 0 instead, and take the scalar loop */
          bad |= _mm256_movemask_ps (_mm256_castsi256_ps (over));
          offt = _mm256_andnot_si256 (over, offt);
        }
      {
        const __m256 fx = _mm256_castsi256_ps (mx), fy = _mm256_castsi256_ps (my);
        const __m256 a0 = _mm256_blendv_ps (w0, w1, fx), a1 = _mm256_blendv_ps (w1, w0, fx);
        const __m256 a2 = _mm256_blendv_ps (w2, w3, fx), a3 = _mm256_blendv_ps (w3, w2, fx);

        w0 = _mm256_blendv_ps (a0, a2, fy);  /* top left */
        w1 = _mm256_blendv_ps (a1, a3, fy);  /* top right */
        w2 = _mm256_blendv_ps (a2, a0, fy);  /* bottom left */
        w3 = _mm256_blendv_ps (a3, a1, fy);  /* bottom right */
      }
#if PREFETCH_AHEAD > 0
      /* software prefetch PREFETCH_AHEAD pixels ahead, at PREFETCH_POINTS points of the
       * step's eight pixels (the slanted source line can cross a cache line every two
       * pixels): the loop is long enough that the out-of-order window holds few steps, so
       * misses on the slanted source line would otherwise not overlap */
      for (int k = 0; k < 8; k += 8 / PREFETCH_POINTS)
        {
          double pxf = l->ax0 + (x + k + PREFETCH_AHEAD) * l->ca, pyf = l->ay0 - (x + k + PREFETCH_AHEAD) * l->sa;

          if (pxf >= 0 && pyf >= 0 && pxf < src->width && pyf < src->height - 1)
            {
              const guint8 *pp = src->data + (gsize) (int) pyf * src->stride + (gsize) (int) pxf * ch;

              __builtin_prefetch (pp);
              __builtin_prefetch (pp + src->stride);
            }
        }
#endif
      {
        int o[8];
        const guint8 *sb = src->data, *sb1 = src->data + src->stride;
        __m256i t0, t1, b0, b1;

        _mm256_storeu_si256 ((__m256i *) (void *) o, offt);
#define Q2(p, i, j) _mm_castpd_si128 (_mm_loadh_pd (_mm_castsi128_pd (_mm_loadl_epi64 ((const __m128i *) (const void *) ((p) + o[i]))), \
                                                    (const double *) (const void *) ((p) + o[j])))
        /* 128-bit halves: pixels 0, 1 | 4, 5 and 2, 3 | 6, 7, so that the 64-bit unpacks
         * below give the pixels in order */
        t0 = _mm256_set_m128i (Q2 (sb, 4, 5), Q2 (sb, 0, 1));
        t1 = _mm256_set_m128i (Q2 (sb, 6, 7), Q2 (sb, 2, 3));
        b0 = _mm256_set_m128i (Q2 (sb1, 4, 5), Q2 (sb1, 0, 1));
        b1 = _mm256_set_m128i (Q2 (sb1, 6, 7), Q2 (sb1, 2, 3));
#undef Q2
        t0 = _mm256_shuffle_epi8 (t0, split);
        t1 = _mm256_shuffle_epi8 (t1, split);
        b0 = _mm256_shuffle_epi8 (b0, split);
        b1 = _mm256_shuffle_epi8 (b1, split);
        g0 = _mm256_unpacklo_epi64 (t0, t1);
        g1 = _mm256_unpackhi_epi64 (t0, t1);
        g2 = _mm256_unpacklo_epi64 (b0, b1);
        g3 = _mm256_unpackhi_epi64 (b0, b1);
      }
      out = _mm256_setzero_si256 ();
      for (int c = 0; c < 3; c++)
        {
          __m256 p0 = _mm256_cvtepi32_ps (_mm256_and_si256 (_mm256_srli_epi32 (g0, 8 * c), lowbyte));
          __m256 p1 = _mm256_cvtepi32_ps (_mm256_and_si256 (_mm256_srli_epi32 (g1, 8 * c), lowbyte));
          __m256 p2 = _mm256_cvtepi32_ps (_mm256_and_si256 (_mm256_srli_epi32 (g2, 8 * c), lowbyte));
          __m256 p3 = _mm256_cvtepi32_ps (_mm256_and_si256 (_mm256_srli_epi32 (g3, 8 * c), lowbyte));
          __m256 t = _mm256_add_ps (_mm256_add_ps (_mm256_add_ps (_mm256_add_ps (_mm256_mul_ps (p0, w0),
                                                                                 _mm256_mul_ps (p1, w1)),
                                                                  _mm256_mul_ps (p2, w2)),
                                                   _mm256_mul_ps (p3, w3)),
                                    halff);
          __m256i q = _mm256_cvttps_epi32 (t); /* t > 0: truncation is floor */
          __m256 d = _mm256_sub_ps (_mm256_sub_ps (t, _mm256_cvtepi32_ps (q)), halff);

          near |= _mm256_movemask_ps (_mm256_cmp_ps (_mm256_and_ps (d, absmask), lim, _CMP_GT_OQ));
          out = _mm256_or_si256 (out, _mm256_slli_epi32 (_mm256_min_epi32 (q, vmax), 8 * c));
        }
      if (ch == 3)
        {
          __m256i packed = _mm256_permutevar8x32_epi32 (_mm256_shuffle_epi8 (out, pack3), join3);

          _mm_storeu_si128 ((__m128i *) (void *) (drow + (gsize) x * 3), _mm256_castsi256_si128 (packed));
          _mm_storel_epi64 ((__m128i *) (void *) (drow + (gsize) x * 3 + 16),
                            _mm256_extracti128_si256 (packed, 1));
        }
      else
        {
          /* alpha (byte 3 of each pixel) passes through */
          __m256i *d = (__m256i *) (void *) (drow + (gsize) x * 4);
          __m256i keep = _mm256_and_si256 (_mm256_loadu_si256 (d), _mm256_set1_epi32 ((int) 0xff000000u));

          _mm256_storeu_si256 (d, _mm256_or_si256 (keep, out));
        }
      for (bad |= near; bad != 0; bad &= bad - 1)
        {
          const int i = x + __builtin_ctz ((unsigned) bad);

          if (ch == 3)
            row_inner_3_8 (st, src, drow, y, l, i, i + 1);
          else
            row_inner_4_8 (st, src, drow, y, l, i, i + 1);
        }
    }
  if (ch == 3)
    row_inner_3_8 (st, src, drow, y, l, x, xe);
  else
    row_inner_4_8 (st, src, drow, y, l, x, xe);
}

static void
row_inner_1_16 (const LbRotate *st, const LbKernelBuf *src, guint8 *drow, int y,
                const RowLine *l, int xs, int xe)
{
  row_inner (st, src, drow, y, l, xs, xe, 1, 1, 16);
}

static void
row_inner_1_8 (const LbRotate *st, const LbKernelBuf *src, guint8 *drow, int y,
               const RowLine *l, int xs, int xe)
{
  row_inner (st, src, drow, y, l, xs, xe, 1, 1, 8);
}

/* The inner loop for gray, 16 bits (the medical images') or 8, in AVX2, four pixels per
 * step: the scalar loop's double operations in its order (no FMA), coordinates, weights and
 * the blend alike, so the result is the same bytes with no closeness test (samples up to
 * 65535 leave float no margin). Each pair of horizontal neighbours comes from one 4-byte
 * gather in the upper and the lower row (at 8 bits its two low bytes; a lane whose read
 * would pass the end of the buffer reads pixel 0 and is redone). A coordinate within the
 * epsilon of a floor() step takes the scalar loop. The caller checks that byte offsets fit
 * 31 bits. */
__attribute__ ((target ("avx2"), always_inline)) static inline void
row_inner_avx2_gray (const LbRotate    *st,
                     const LbKernelBuf *src,
                     guint8            *drow,
                     int                y,
                     const RowLine     *l,
                     int                xs,
                     int                xe,
                     const int          depth)
{
  const __m256d zero = _mm256_setzero_pd (), half = _mm256_set1_pd (0.5), four = _mm256_set1_pd (4.0);
  const __m128i vstride = _mm_set1_epi32 ((int) src->stride);
  const __m128i lowmask = _mm_set1_epi32 (depth == 16 ? 0xffff : 0xff);
  const __m128i vmax = _mm_set1_epi32 (depth == 16 ? 65535 : 255), lanebit = _mm_setr_epi32 (1, 2, 4, 8);
  /* 8 bits: the last byte offset a 4-byte read in the upper of two rows may start at */
  const __m128i limit = _mm_set1_epi32 ((int) (src->stride * (gsize) (src->height - 2)
                                               + (gsize) src->width - 4));
  const __m256d minus1 = _mm256_set1_pd (-1.0);
  const int *sb = (const int *) (const void *) src->data;
  int x = xs;
  __m256d xd = _mm256_set_pd (x + 3, x + 2, x + 1, x);

  for (; x + 4 <= xe; x += 4, xd = _mm256_add_pd (xd, four))
    {
      __m128i ox, oy, off, top, bottom;
      __m256d px, py, w[4], mx, my, left0, right0, left1, right1, p0, p1, p2, p3, v;
      int bad = coords4_pd (xd, l, &ox, &oy, &px, &py, w);

      /* the left pixel of the pair (ox − 1 where px < 0) in the upper row (oy − 1 where
       * py < 0): byte offsets; lanes to be redone read pixel 0 */
      mx = _mm256_cmp_pd (px, zero, _CMP_LT_OQ);
      my = _mm256_cmp_pd (py, zero, _CMP_LT_OQ);
      /* the masks as −1.0 / 0.0, converted: −1 or 0 per 32-bit lane */
      off = _mm_add_epi32 (_mm_mullo_epi32 (_mm_add_epi32 (oy, _mm256_cvtpd_epi32 (_mm256_and_pd (my, minus1))),
                                            vstride),
                           _mm_slli_epi32 (_mm_add_epi32 (ox, _mm256_cvtpd_epi32 (_mm256_and_pd (mx, minus1))),
                                           depth == 16 ? 1 : 0));
      if (depth == 8)
        bad |= _mm_movemask_ps (_mm_castsi128_ps (_mm_cmpgt_epi32 (off, limit)));
      if (bad)
        off = _mm_andnot_si128 (_mm_cmpeq_epi32 (_mm_and_si128 (_mm_set1_epi32 (bad), lanebit), lanebit), off);
      top = _mm_i32gather_epi32 (sb, off, 1);
      bottom = _mm_i32gather_epi32 ((const int *) (const void *) (src->data + src->stride), off, 1);
      left0 = _mm256_cvtepi32_pd (_mm_and_si128 (top, lowmask));
      right0 = _mm256_cvtepi32_pd (_mm_and_si128 (_mm_srli_epi32 (top, depth), lowmask));
      left1 = _mm256_cvtepi32_pd (_mm_and_si128 (bottom, lowmask));
      right1 = _mm256_cvtepi32_pd (_mm_and_si128 (_mm_srli_epi32 (bottom, depth), lowmask));
      /* p0: (ox, oy), p1: its horizontal neighbour, p2: its vertical one, p3: the diagonal */
      p0 = _mm256_blendv_pd (_mm256_blendv_pd (left0, right0, mx), _mm256_blendv_pd (left1, right1, mx), my);
      p1 = _mm256_blendv_pd (_mm256_blendv_pd (right0, left0, mx), _mm256_blendv_pd (right1, left1, mx), my);
      p2 = _mm256_blendv_pd (_mm256_blendv_pd (left1, right1, mx), _mm256_blendv_pd (left0, right0, mx), my);
      p3 = _mm256_blendv_pd (_mm256_blendv_pd (right1, left1, mx), _mm256_blendv_pd (right0, left0, mx), my);
      v = _mm256_add_pd (_mm256_add_pd (_mm256_add_pd (_mm256_mul_pd (p0, w[0]), _mm256_mul_pd (p1, w[1])),
                                        _mm256_mul_pd (p2, w[2])),
                         _mm256_mul_pd (p3, w[3]));
      /* (int) (v + 0.5): v ≥ 0, truncation; then at most the largest sample */
      {
        __m128i iv = _mm_min_epi32 (_mm256_cvttpd_epi32 (_mm256_add_pd (v, half)), vmax);

        iv = _mm_packus_epi32 (iv, iv);
        if (depth == 16)
          _mm_storel_epi64 ((__m128i *) (void *) (drow + (gsize) x * 2), iv);
        else
          {
            const gint32 four_px = _mm_cvtsi128_si32 (_mm_packus_epi16 (iv, iv));

            memcpy (drow + x, &four_px, sizeof four_px);
          }
      }
      for (; bad != 0; bad &= bad - 1)
        {
          const int i = x + __builtin_ctz ((unsigned) bad);

          (depth == 16 ? row_inner_1_16 : row_inner_1_8) (st, src, drow, y, l, i, i + 1);
        }
    }
  (depth == 16 ? row_inner_1_16 : row_inner_1_8) (st, src, drow, y, l, x, xe);
}

/* The inner interval [@xs, @xe) of row @y in AVX2: 16-bit gray, 8-bit gray, 8-bit RGB and
 * 8-bit RGBA. */
__attribute__ ((target ("avx2"))) void
_lb_rotate_row_avx2_16 (const LbRotate *st, const LbKernelBuf *src, guint8 *drow, int y,
                        const RowLine *l, int xs, int xe)
{
  row_inner_avx2_gray (st, src, drow, y, l, xs, xe, 16);
}

__attribute__ ((target ("avx2"))) void
_lb_rotate_row_avx2_g8 (const LbRotate *st, const LbKernelBuf *src, guint8 *drow, int y,
                        const RowLine *l, int xs, int xe)
{
  row_inner_avx2_gray (st, src, drow, y, l, xs, xe, 8);
}

__attribute__ ((target ("avx2"))) void
_lb_rotate_row_avx2_rgb8 (const LbRotate *st, const LbKernelBuf *src, guint8 *drow, int y,
                          const RowLine *l, int xs, int xe)
{
  row_inner_avx2_8 (st, src, drow, y, l, xs, xe, 3);
}

__attribute__ ((target ("avx2"))) void
_lb_rotate_row_avx2_rgba8 (const LbRotate *st, const LbKernelBuf *src, guint8 *drow, int y,
                           const RowLine *l, int xs, int xe)
{
  row_inner_avx2_8 (st, src, drow, y, l, xs, xe, 4);
}

#endif
