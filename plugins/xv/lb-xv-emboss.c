/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-emboss"

#include "lb-xv-emboss.h"

#include <string.h>

gboolean
lb_xv_emboss_prepare (LbXvEmboss         *self,
                      const LbKernelBuf  *src,
                      const LbKernelRect *selection,
                      GError            **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return _lb_xv_region_init (&self->region, src, selection, "emboss", error);
}

/* The ring of the region in the 8-bit AVX2 rows: pixels x0 .. x1−1 of @out become 128, and
 * RGBA8 takes alpha from the source row @in (the other paths leave alpha to the caller). */
static G_GNUC_UNUSED void
emboss_put_ring (guint8 *out, const guint8 *in, int x0, int x1, int ch)
{
  for (int x = x0; x < x1; x++)
    {
      const gsize o = (gsize) x * ch;

      memset (out + o, 128, ch == 4 ? 3 : (gsize) ch);
      if (ch == 4)
        out[o + 3] = in[o + 3];
    }
}

/* Writes the gray value @m into all colour channels of pixel @x. */
LB_XV_INLINE void
put_gray (guint8 *out, int x, int ch, int nc, guint m, const int depth)
{
  for (int c = 0; c < nc; c++)
    lb_xv_put (out, (gsize) x * ch + c, m, depth);
}

LB_XV_INLINE void
emboss_ref_rows (const LbXvEmboss  *self,
                 const LbKernelBuf *src,
                 LbKernelBuf       *dst,
                 int                ya,
                 int                yb,
                 const int          depth)
{
  const LbXvRegion *R = &self->region;
  const int ch = src->channels;
  const int nc = lb_xv_colour_channels (ch);
  const int mid = depth == 8 ? 128 : 32768;

  for (int y = ya; y < yb; y++)
    {
      guint8 *out = lb_xv_row_mut (dst, y);

      for (int x = R->x0; x < R->x1; x++)
        {
          guint t[3] = { (guint) mid, (guint) mid, (guint) mid };

          if (x > R->x0 && x < R->x1 - 1 && y > R->y0 && y < R->y1 - 1)
            {
              const guint8 *up = lb_xv_row (src, y - 1);
              const guint8 *row = lb_xv_row (src, y);
              const guint8 *down = lb_xv_row (src, y + 1);

              for (int c = 0; c < nc; c++)
                {
                  const gsize l = (gsize) (x - 1) * ch + c, m = (gsize) x * ch + c,
                              rr = (gsize) (x + 1) * ch + c;
                  const int s = -2 * (int) lb_xv_get (up, l, depth) - (int) lb_xv_get (up, m, depth)
                                - (int) lb_xv_get (row, l, depth) + (int) lb_xv_get (row, rr, depth)
                                + (int) lb_xv_get (down, m, depth)
                                + 2 * (int) lb_xv_get (down, rr, depth);
                  /* C division truncates toward zero, as xv's does. */
                  const int q = s / 8 + mid;

                  t[c] = (guint) CLAMP (q, 0, (int) lb_xv_max_value (depth));
                }
            }
          put_gray (out, x, ch, nc, nc == 3 ? lb_xv_mono (t[0], t[1], t[2]) : t[0], depth);
        }
    }
}

LB_XV_DEFINE_PROCESS (lb_xv_emboss_process_ref, LbXvEmboss, emboss_ref_rows)

/* MONO of the embossed colours into R, G and B of columns 1..rw-2; @ch (3 or 4) is a
 * constant at each call site so that the strided loop vectorises. */
LB_XV_INLINE void
mono_span (const gint32 *restrict t, guint8 *restrict out, int rw, const int ch,
           const int depth)
{
  for (int j = 1; j < rw - 1; j++)
    {
      const guint m = lb_xv_mono ((guint) t[j * ch], (guint) t[j * ch + 1],
                                  (guint) t[j * ch + 2]);
      lb_xv_put (out, (gsize) j * ch, m, depth);
      lb_xv_put (out, (gsize) j * ch + 1, m, depth);
      lb_xv_put (out, (gsize) j * ch + 2, m, depth);
    }
}

/* 8 bits: the embossed samples ch .. n−ch−1 of one row as a flat array (neighbours at ±ch),
 * in 16-bit lanes (|s| ≤ 1530): C's truncation toward zero of s / 8 is the arithmetic shift
 * of s + 7 for negative s. */
LB_KERNEL_CLONES static void
emboss_row_8 (const guint8 *restrict up, const guint8 *restrict in, const guint8 *restrict down,
              gint16 *restrict t, int n, int ch)
{
  for (int i = ch; i < n - ch; i++)
    {
      const gint16 s = (gint16) (-2 * up[i - ch] - up[i] - in[i - ch] + in[i + ch] + down[i]
                                 + 2 * down[i + ch]);
      const gint16 q = (gint16) ((gint16) (s + ((s >> 15) & 7)) >> 3);
      t[i] = (gint16) (q + 128);
    }
}

/* 16-bit gray (the medical images'): pixels 1 .. n−2 of one row straight into @out, in 32-bit
 * lanes (|s| ≤ 4 · 65535; s / 8 + 32768 stays within 0..65535, as at 8 bits). */
LB_KERNEL_CLONES static void
emboss_row_16g (const guint16 *restrict up, const guint16 *restrict in,
                const guint16 *restrict down, guint16 *restrict out, int n)
{
  for (int i = 1; i < n - 1; i++)
    {
      const gint32 s = -2 * (gint32) up[i - 1] - up[i] - in[i - 1] + in[i + 1] + down[i]
                       + 2 * (gint32) down[i + 1];

      out[i] = (guint16) (s / 8 + 32768);
    }
}

/* RGB8: the emboss of every sample as one flat run (no deinterleaving: 16-bit lanes over
 * consecutive samples, as emboss_row_8), each weighted by its channel's MONO weight
 * (11, 16, 5: @wt repeats them); then every sample of pixel j gets
 * (u[3j] + u[3j+1] + u[3j+2]) >> 5, which for sample i is the three-sample sum centred on
 * i + 1, i or i − 1 for channel 0, 1 or 2 (@sel0, @sel1, @sel2: all-ones where i is that
 * channel). Writes samples 3 .. 3·rw − 4 (pixels 1 .. rw−2); u needs 3·rw entries. */
LB_KERNEL_CLONES static void
emboss_mono_rgb8 (const guint8 *restrict up, const guint8 *restrict in,
                  const guint8 *restrict down, guint8 *restrict out, int rw,
                  const gint16 *restrict wt, const guint16 *restrict sel0,
                  const guint16 *restrict sel1, const guint16 *restrict sel2,
                  gint16 *restrict u)
{
  const int n = 3 * rw;

  u[0] = u[1] = u[2] = u[n - 3] = u[n - 2] = u[n - 1] = 0;
  for (int i = 3; i < n - 3; i++)
    {
      const gint16 s = (gint16) (-2 * up[i - 3] - up[i] - in[i - 3] + in[i + 3] + down[i]
                                 + 2 * down[i + 3]);
      const gint16 q = (gint16) ((gint16) (s + ((s >> 15) & 7)) >> 3);
      u[i] = (gint16) (wt[i] * (q + 128));
    }
  for (int i = 3; i < n - 3; i++)
    {
      /* ≤ 32 · 255: fits 16 bits unsigned. */
      const guint16 c0 = (guint16) (u[i] + u[i + 1] + u[i + 2]);
      const guint16 c1 = (guint16) (u[i - 1] + u[i] + u[i + 1]);
      const guint16 c2 = (guint16) (u[i - 2] + u[i - 1] + u[i]);
      out[i] = (guint8) (((c0 & sel0[i]) | (c1 & sel1[i]) | (c2 & sel2[i])) >> 5);
    }
}

#if LB_XV_HAVE_AVX2_PATH
#include <immintrin.h>

/* AVX2, 8 bits: t[i] = (s / 8 truncated) + 128 for samples i0 .. i1−1 of one row, s the
 * emboss of sample i with its neighbours at ±@ch. The six taps are paired byte-wise
 * (unpack, in-lane) so that one pmaddubsw per pair forms 2·(BR − TL), BM − TM and MR − ML in
 * 16-bit lanes; packs undoes the in-lane unpacks, so samples keep their order. |q| ≤ 127:
 * q fits a signed byte and q + 128 = q ^ 0x80. */
__attribute__ ((target ("avx2"))) static void
emboss_flat8_avx2 (const guint8 *restrict up, const guint8 *restrict in,
                   const guint8 *restrict down, guint8 *restrict t, int i0, int i1, int ch)
{
  const __m256i w2 = _mm256_set1_epi16 ((short) 0x02fe); /* bytes −2, +2 */
  const __m256i w1 = _mm256_set1_epi16 ((short) 0x01ff); /* bytes −1, +1 */
  const __m256i seven = _mm256_set1_epi16 (7);
  const __m256i bias = _mm256_set1_epi8 ((char) 0x80);
  int i = i0;

  for (; i + 32 <= i1; i += 32)
    {
      const __m256i tl = _mm256_loadu_si256 ((const __m256i *) (const void *) (up + i - ch));
      const __m256i tm = _mm256_loadu_si256 ((const __m256i *) (const void *) (up + i));
      const __m256i ml = _mm256_loadu_si256 ((const __m256i *) (const void *) (in + i - ch));
      const __m256i mr = _mm256_loadu_si256 ((const __m256i *) (const void *) (in + i + ch));
      const __m256i bm = _mm256_loadu_si256 ((const __m256i *) (const void *) (down + i));
      const __m256i br = _mm256_loadu_si256 ((const __m256i *) (const void *) (down + i + ch));
      __m256i lo = _mm256_add_epi16 (
        _mm256_add_epi16 (_mm256_maddubs_epi16 (_mm256_unpacklo_epi8 (tl, br), w2),
                          _mm256_maddubs_epi16 (_mm256_unpacklo_epi8 (tm, bm), w1)),
        _mm256_maddubs_epi16 (_mm256_unpacklo_epi8 (ml, mr), w1));
      __m256i hi = _mm256_add_epi16 (
        _mm256_add_epi16 (_mm256_maddubs_epi16 (_mm256_unpackhi_epi8 (tl, br), w2),
                          _mm256_maddubs_epi16 (_mm256_unpackhi_epi8 (tm, bm), w1)),
        _mm256_maddubs_epi16 (_mm256_unpackhi_epi8 (ml, mr), w1));

      /* Truncation toward zero: add 7 to negative sums before the arithmetic shift. */
      lo = _mm256_srai_epi16 (_mm256_add_epi16 (lo, _mm256_and_si256 (_mm256_srai_epi16 (lo, 15), seven)), 3);
      hi = _mm256_srai_epi16 (_mm256_add_epi16 (hi, _mm256_and_si256 (_mm256_srai_epi16 (hi, 15), seven)), 3);
      _mm256_storeu_si256 ((__m256i *) (void *) (t + i),
                           _mm256_xor_si256 (_mm256_packs_epi16 (lo, hi), bias));
    }
  for (; i < i1; i++)
    {
      const int s = -2 * up[i - ch] - up[i] - in[i - ch] + in[i + ch] + down[i] + 2 * down[i + ch];
      t[i] = (guint8) (s / 8 + 128);
    }
}

/* AVX2, RGB8 or RGBA8 (@ch 3 or 4): MONO of the embossed samples @t of pixels 1 .. rw−2 into
 * R, G and B of @out; RGBA8 takes alpha from @alpha_src (the source row: the destination
 * keeps the source's alpha). Eight pixels per step: each 128-bit lane holds four pixels,
 * spread to R,G,B,0 (pshufb; RGBA: alpha weight 0), pmaddubsw by 11, 16, 5, 0 and pmaddwd by
 * 1 give 11 R + 16 G + 5 B per 32-bit lane. RGB8 stores 16 bytes per lane of which 12 are
 * the lane's pixels: the 4 more are rewritten by the next store, so the loop stops early
 * enough that they never reach past pixel rw−2 (the scalar tail and the ring follow). @t
 * holds at least 3·rw + 32 readable bytes. */
__attribute__ ((target ("avx2"))) static void
emboss_mono8_avx2 (const guint8 *restrict t, const guint8 *restrict alpha_src,
                   guint8 *restrict out, int rw, int ch)
{
  const __m256i spread = _mm256_setr_epi8 (0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1,
                                           0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
  const __m256i weights = _mm256_set1_epi32 (0x00051000 | 11);
  const __m256i ones = _mm256_set1_epi16 (1);
  int j = 1;

  if (ch == 3)
    {
      const __m256i gather = _mm256_setr_epi8 (0, 0, 0, 4, 4, 4, 8, 8, 8, 12, 12, 12, -1, -1, -1, -1,
                                               0, 0, 0, 4, 4, 4, 8, 8, 8, 12, 12, 12, -1, -1, -1, -1);

      for (; j + 10 <= rw; j += 8)
        {
          const guint8 *p = t + (gsize) j * 3;
          __m256i v = _mm256_inserti128_si256 (
            _mm256_castsi128_si256 (_mm_loadu_si128 ((const __m128i *) (const void *) p)),
            _mm_loadu_si128 ((const __m128i *) (const void *) (p + 12)), 1);

          v = _mm256_madd_epi16 (_mm256_maddubs_epi16 (_mm256_shuffle_epi8 (v, spread), weights),
                                 ones);
          v = _mm256_shuffle_epi8 (_mm256_srli_epi32 (v, 5), gather);
          _mm_storeu_si128 ((__m128i *) (void *) (out + (gsize) j * 3), _mm256_castsi256_si128 (v));
          _mm_storeu_si128 ((__m128i *) (void *) (out + (gsize) j * 3 + 12),
                            _mm256_extracti128_si256 (v, 1));
        }
    }
  else
    {
      const __m256i rep = _mm256_set1_epi32 (0x00010101);
      const __m256i amask = _mm256_set1_epi32 ((int) 0xff000000u);

      for (; j + 9 <= rw; j += 8)
        {
          const gsize o = (gsize) j * 4;
          __m256i v = _mm256_loadu_si256 ((const __m256i *) (const void *) (t + o));
          const __m256i a = _mm256_and_si256 (
            _mm256_loadu_si256 ((const __m256i *) (const void *) (alpha_src + o)), amask);

          /* Alpha's weight is 0, so the spread is not needed: R,G,B,A → 11 R + 16 G, 5 B. */
          v = _mm256_madd_epi16 (_mm256_maddubs_epi16 (v, weights), ones);
          v = _mm256_mullo_epi32 (_mm256_srli_epi32 (v, 5), rep);
          _mm256_storeu_si256 ((__m256i *) (void *) (out + o), _mm256_or_si256 (v, a));
        }
    }
  for (; j < rw - 1; j++)
    {
      const gsize o = (gsize) j * ch;
      const guint8 m = (guint8) lb_xv_mono (t[o], t[o + 1], t[o + 2]);

      out[o] = out[o + 1] = out[o + 2] = m;
      if (ch == 4)
        out[o + 3] = alpha_src[o + 3];
    }
}

/* The rows of emboss_fast_rows at 8 bits with 1, 3 or 4 channels, by AVX2 (the CPU has it). */
static void
emboss_avx2_rows (const LbXvRegion *R, const LbKernelBuf *src, LbKernelBuf *dst, int ya, int yb)
{
  const int ch = src->channels, rw = R->x1 - R->x0, n = rw * ch;
  const gsize xoff = (gsize) R->x0 * ch;
  g_autofree guint8 *t = NULL;

  /* 32 bytes of slack for the mono loads past the last pixel (their lanes are never kept). */
  t = g_malloc0 ((gsize) n + 32);
  for (int y = ya; y < yb; y++)
    {
      const guint8 *row = lb_xv_row (src, y) + xoff;
      guint8 *out = lb_xv_row_mut (dst, y) + xoff;

      if (y == R->y0 || y == R->y1 - 1 || rw < 3)
        {
          emboss_put_ring (out, row, 0, rw, ch);
          continue;
        }
      emboss_flat8_avx2 (lb_xv_row (src, y - 1) + xoff, row, lb_xv_row (src, y + 1) + xoff,
                         ch == 1 ? out : t, ch, n - ch, ch);
      if (ch != 1)
        emboss_mono8_avx2 (t, row, out, rw, ch);
      emboss_put_ring (out, row, 0, 1, ch);
      emboss_put_ring (out, row, rw - 1, rw, ch);
    }
}
#endif

LB_XV_INLINE void
emboss_fast_rows (const LbXvEmboss  *self,
                  const LbKernelBuf *src,
                  LbKernelBuf       *dst,
                  int                ya,
                  int                yb,
                  const int          depth)
{
  const LbXvRegion *R = &self->region;
  const int ch = src->channels;
  const int nc = lb_xv_colour_channels (ch);
  const int rw = R->x1 - R->x0;
  const int n = rw * ch;
  const gsize xoff = (gsize) R->x0 * ch * (depth / 8);
  const int mid = depth == 8 ? 128 : 32768;
  g_autofree gint32 *t = g_new (gint32, n);
  g_autofree gint16 *pattern = NULL;

  for (int y = ya; y < yb; y++)
    {
      guint8 *out = lb_xv_row_mut (dst, y) + xoff;

      if (y == R->y0 || y == R->y1 - 1 || rw < 3)
        {
          for (int j = 0; j < rw; j++)
            put_gray (out, j, ch, nc, (guint) mid, depth);
          continue;
        }

      if (depth == 8 && (ch == 1 || ch == 3))
        {
          gint16 *t16 = (gint16 *) (void *) t;

          put_gray (out, 0, ch, nc, (guint) mid, depth);
          put_gray (out, rw - 1, ch, nc, (guint) mid, depth);
          if (ch == 3)
            {
              if (pattern == NULL)
                {
                  /* The MONO weights and channel masks of emboss_mono_rgb8, and its u. */
                  static const gint16 w3[3] = { 11, 16, 5 };

                  pattern = g_new (gint16, 5 * (gsize) n);
                  for (int i = 0; i < n; i++)
                    {
                      pattern[i] = w3[i % 3];
                      for (int c = 0; c < 3; c++)
                        pattern[(gsize) (1 + c) * n + i] = (gint16) (i % 3 == c ? -1 : 0);
                    }
                }
              emboss_mono_rgb8 (lb_xv_row (src, y - 1) + xoff, lb_xv_row (src, y) + xoff,
                                lb_xv_row (src, y + 1) + xoff, out, rw, pattern,
                                (const guint16 *) (pattern + n),
                                (const guint16 *) (pattern + 2 * (gsize) n),
                                (const guint16 *) (pattern + 3 * (gsize) n),
                                pattern + 4 * (gsize) n);
              continue;
            }
          emboss_row_8 (lb_xv_row (src, y - 1) + xoff, lb_xv_row (src, y) + xoff,
                        lb_xv_row (src, y + 1) + xoff, t16, n, ch);
          for (int i = 1; i < n - 1; i++)
            out[i] = (guint8) t16[i];
          continue;
        }

      if (depth == 16 && ch == 1)
        {
          put_gray (out, 0, ch, nc, (guint) mid, depth);
          put_gray (out, rw - 1, ch, nc, (guint) mid, depth);
          emboss_row_16g ((const guint16 *) (const void *) (lb_xv_row (src, y - 1) + xoff),
                          (const guint16 *) (const void *) (lb_xv_row (src, y) + xoff),
                          (const guint16 *) (const void *) (lb_xv_row (src, y + 1) + xoff),
                          (guint16 *) (void *) out, rw);
          continue;
        }

      {
        const guint8 *restrict up = lb_xv_row (src, y - 1) + xoff;
        const guint8 *restrict row = lb_xv_row (src, y) + xoff;
        const guint8 *restrict down = lb_xv_row (src, y + 1) + xoff;

        /* Sample-wise over the interior columns, every channel at once (alpha included, never
         * used): the loop has no dependencies and vectorises. */
        for (int i = ch; i < n - ch; i++)
          {
            const int s = -2 * (int) lb_xv_get (up, i - ch, depth) - (int) lb_xv_get (up, i, depth)
                          - (int) lb_xv_get (row, i - ch, depth)
                          + (int) lb_xv_get (row, i + ch, depth) + (int) lb_xv_get (down, i, depth)
                          + 2 * (int) lb_xv_get (down, i + ch, depth);
            t[i] = s / 8 + mid;
          }
      }

      put_gray (out, 0, ch, nc, (guint) mid, depth);
      put_gray (out, rw - 1, ch, nc, (guint) mid, depth);
      if (ch == 3)
        mono_span (t, out, rw, 3, depth);
      else if (ch == 4)
        mono_span (t, out, rw, 4, depth);
      else
        for (int j = 1; j < rw - 1; j++)
          lb_xv_put (out, (gsize) j * ch, (guint) t[j * ch], depth);
    }
}

/* lb_xv_emboss_process's rows: the AVX2 ones where they apply, else the portable ones. */
LB_XV_INLINE void
emboss_rows (const LbXvEmboss *self, const LbKernelBuf *src, LbKernelBuf *dst, int ya, int yb,
             const int depth)
{
#if LB_XV_HAVE_AVX2_PATH
  if (depth == 8 && src->channels != 2 && lb_kernel_have_avx2 ())
    {
      emboss_avx2_rows (&self->region, src, dst, ya, yb);
      return;
    }
#endif
  emboss_fast_rows (self, src, dst, ya, yb, depth);
}

LB_XV_DEFINE_PROCESS (lb_xv_emboss_process, LbXvEmboss, emboss_rows)
LB_XV_DEFINE_PROCESS (_lb_xv_emboss_process_portable, LbXvEmboss, emboss_fast_rows)
