/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-spread"

/* Spread's banded path: the random draws of a chunk's lanes (portable and AVX2), see
 * "Banded path" in lb-spread-band.c. */

#include "lb-spread-private.h"

/* One chunk's draws: its lanes' partner cells (parts[k · n + i] for pixel i of lane k, n the
 * pixels of a lane), with the lanes (runs of rows) stepped together as the lanes of one
 * generator: the loops over lanes have no branches and vectorise (the x range is the same for
 * every lane, "% m" is a multiplication by magic[m]); lanes past the end of a band draw and
 * are ignored. */
#define BLOCK 128

static inline void
draws_advance (Draws *dr)
{
  if (++dr->x == dr->st->r.width)
    {
      dr->x = 0;
      dr->row++;
      for (int k = 0; k < LANES; k++)
        dr->y[k] = MIN (dr->r0[k] + dr->row, dr->st->r.height - 1);
    }
}

/* part[t][k]: the partner cell of the next @tn pixels of every lane, from their 2 draws
 * (raw generator words: the outputs are rnd >> 1) */
LB_KERNEL_CLONES static void
draws_block (Draws               *dr,
             const guint32      (*rnd)[LANES],
             guint32            (*part)[LANES],
             int                  tn)
{
  const LbSpread *st = dr->st;
  int w = st->r.width, h = st->r.height;
  gboolean rect = st->rectangle;
  int d = rect ? st->py : st->px;
  const guint32 *magic = st->magic, *shift = st->shift;

  for (int t = 0; t < tn; t++)
    {
      int x = dr->x;
      gint32 xlo = st->xlo[x];
      guint32 xm = st->xm[x], xmagic = magic[xm], xshift = shift[xm];

      for (int k = 0; k < LANES; k++)
        {
          gint32 x1 = xlo + (gint32) lb_xv_random_mod (rnd[2 * t][k] >> 1, xm, xmagic, xshift);
          gint32 rd = rect ? d : d - abs (x1 - x);
          gint32 lo = MAX (0, dr->y[k] - rd), hi = MIN (h - 1, dr->y[k] + rd);
          guint32 m = (guint32) (hi - lo + 1);
          gint32 y1 = lo + (gint32) lb_xv_random_mod (rnd[2 * t + 1][k] >> 1, m, magic[m], shift[m]);

          part[t][k] = (guint32) ((y1 - dr->e0[k]) * w + x1);
        }
      draws_advance (dr);
    }
}

#ifdef HAVE_AVX2_PATHS
/* high 32 bits of the unsigned products, lane by lane */
__attribute__ ((target ("avx2"))) static inline __m256i
mulhi_epu32 (__m256i a,
             __m256i b)
{
  __m256i even = _mm256_srli_epi64 (_mm256_mul_epu32 (a, b), 32);
  __m256i odd = _mm256_mul_epu32 (_mm256_srli_epi64 (a, 32), _mm256_srli_epi64 (b, 32));

  return _mm256_blend_epi32 (even, odd, 0xaa);
}

/* table[idx] lane by lane, idx ≤ n − 1: in registers for up to 16 entries */
typedef struct {
  __m256i lo, hi;
  const guint32 *table;
  int n;
} Lookup;

__attribute__ ((target ("avx2"))) static inline __m256i
lookup (const Lookup *lu,
        __m256i       idx)
{
  if (lu->n <= 8)
    return _mm256_permutevar8x32_epi32 (lu->lo, idx);
  if (lu->n <= 16)
    return _mm256_blendv_epi8 (_mm256_permutevar8x32_epi32 (lu->lo, idx),
                               _mm256_permutevar8x32_epi32 (lu->hi, idx),
                               _mm256_cmpgt_epi32 (idx, _mm256_set1_epi32 (7)));
  return _mm256_i32gather_epi32 ((const int *) lu->table, idx, 4);
}

__attribute__ ((target ("avx2"))) static void
lookup_init (Lookup        *lu,
             const guint32 *table,
             int            n)
{
  guint32 t[16] = { 0 };

  memcpy (t, table, MIN (n, 16) * sizeof (guint32));
  lu->lo = _mm256_loadu_si256 ((const __m256i *) t);
  lu->hi = _mm256_loadu_si256 ((const __m256i *) (t + 8));
  lu->table = table;
  lu->n = n;
}

/* draws_block() in AVX2, the same integer operations on the 8 lanes at once. @rect is a
 * constant in each caller (see draws_block_avx2). */
__attribute__ ((target ("avx2"))) static G_ALWAYS_INLINE inline void
draws_block_avx2_body (Draws               *dr,
                       const guint32      (*rnd)[LANES],
                       guint32            (*part)[LANES],
                       int                  tn,
                       const gboolean       rect)
{
  const LbSpread *st = dr->st;
  int w = st->r.width, h = st->r.height;
  const __m256i vd = _mm256_set1_epi32 (rect ? st->py : st->px);
  const __m256i zero = _mm256_setzero_si256 (), one = _mm256_set1_epi32 (1);
  const __m256i hmax = _mm256_set1_epi32 (h - 1), vw = _mm256_set1_epi32 (w);
  const __m256i e0 = _mm256_loadu_si256 ((const __m256i *) dr->e0);
  __m256i vy = _mm256_loadu_si256 ((const __m256i *) dr->y);
  Lookup lmagic, lshift;
  /* The interior: rows where every lane's y range is unclipped (inner_rows) and columns
   * [px, w − px) (never a row's last column, where the lanes change rows). There the x draw's
   * range is x ± px and the y draw's y ± rd, rd = d − |x1 − x| (rectangle: py); the partner
   * is this pixel's cell (base, one more per step) plus dy · w + dx; and "% m" takes its
   * constants from 8-entry tables indexed by rd (diamond, d ≤ 7) instead of per-column loads
   * and 12-entry lookups. Same integer operations, so the same partners: about 40 % off
   * the draws, which were ~30 % of a pass. */
  const int px = st->px, d = rect ? st->py : st->px;
  const gboolean inner_ok = 2 * px + 1 <= w && (rect || d <= 7);
  gboolean inner_rows = FALSE;
  __m256i base = _mm256_setzero_si256 ();
  __m256i rmagic = _mm256_setzero_si256 (), rshift = _mm256_setzero_si256 ();

  lookup_init (&lmagic, st->magic, st->mmax + 1);
  lookup_init (&lshift, st->shift, st->mmax + 1);
  if (inner_ok && !rect)
    {
      guint32 tm[8] = { 0 }, ts[8] = { 0 };

      for (int rd = 0; rd <= d; rd++)
        {
          tm[rd] = st->magic[2 * rd + 1];
          ts[rd] = st->shift[2 * rd + 1];
        }
      rmagic = _mm256_loadu_si256 ((const __m256i *) tm);
      rshift = _mm256_loadu_si256 ((const __m256i *) ts);
    }
  for (int t = 0; t < tn; t++)
    {
      int x = dr->x;

      if (x == 0 || t == 0)
        {
          /* every lane's row, and so its y range, changes only here */
          gint32 ylo = G_MAXINT32, yhi = G_MININT32;

          for (int k = 0; k < LANES; k++)
            {
              ylo = MIN (ylo, dr->y[k]);
              yhi = MAX (yhi, dr->y[k]);
            }
          inner_rows = inner_ok && ylo >= d && yhi + d <= h - 1;
          base = _mm256_sub_epi32 (vy, e0);
          base = _mm256_add_epi32 (_mm256_mullo_epi32 (base, vw), _mm256_set1_epi32 (x));
        }
      if (inner_rows && x >= px && x < w - MAX (px, 1))
        {
          /* a run of interior columns, up to the block's end */
          int run = MIN (tn - t, w - MAX (px, 1) - x);
          const __m256i vxm = _mm256_set1_epi32 (2 * px + 1);
          const __m256i xmagic = _mm256_set1_epi32 ((int) st->magic[2 * px + 1]);
          const __m128i xshift = _mm_cvtsi32_si128 ((int) st->shift[2 * px + 1]);
          const __m256i vpx = _mm256_set1_epi32 (px);

          for (int e = t + run; t < e; t++)
            {
              __m256i rx = _mm256_loadu_si256 ((const __m256i *) rnd[2 * t]);
              __m256i ry = _mm256_loadu_si256 ((const __m256i *) rnd[2 * t + 1]);
              __m256i q = _mm256_srl_epi32 (mulhi_epu32 (_mm256_andnot_si256 (one, rx), xmagic), xshift);
              /* x1 − x = rx mod (2px + 1) − px */
              __m256i dx = _mm256_sub_epi32 (_mm256_sub_epi32 (_mm256_srli_epi32 (rx, 1),
                                                               _mm256_mullo_epi32 (q, vxm)), vpx);
              __m256i rd, m, dy;

              if (rect)
                {
                  rd = vd;
                  q = _mm256_srl_epi32 (mulhi_epu32 (_mm256_andnot_si256 (one, ry),
                                                     _mm256_set1_epi32 ((int) st->magic[2 * d + 1])),
                                        _mm_cvtsi32_si128 ((int) st->shift[2 * d + 1]));
                  m = _mm256_set1_epi32 (2 * d + 1);
                }
              else
                {
                  rd = _mm256_sub_epi32 (vd, _mm256_abs_epi32 (dx));
                  q = _mm256_srlv_epi32 (mulhi_epu32 (_mm256_andnot_si256 (one, ry),
                                                      _mm256_permutevar8x32_epi32 (rmagic, rd)),
                                         _mm256_permutevar8x32_epi32 (rshift, rd));
                  m = _mm256_add_epi32 (_mm256_add_epi32 (rd, rd), one);
                }
              /* y1 − y = ry mod m − rd */
              dy = _mm256_sub_epi32 (_mm256_sub_epi32 (_mm256_srli_epi32 (ry, 1), _mm256_mullo_epi32 (q, m)), rd);
              _mm256_storeu_si256 ((__m256i *) part[t],
                                   _mm256_add_epi32 (_mm256_add_epi32 (base, dx), _mm256_mullo_epi32 (dy, vw)));
              base = _mm256_add_epi32 (base, one);
            }
          /* no run reaches the row's end (x < w − px) */
          dr->x += run;
          t--;
          continue;
        }
      guint32 xm = st->xm[x];
      __m256i rx = _mm256_loadu_si256 ((const __m256i *) rnd[2 * t]);
      __m256i ry = _mm256_loadu_si256 ((const __m256i *) rnd[2 * t + 1]);
      __m256i ax = _mm256_srli_epi32 (rx, 1), ay = _mm256_srli_epi32 (ry, 1);
      __m256i vxm = _mm256_set1_epi32 ((int) xm);
      __m256i q = _mm256_srl_epi32 (mulhi_epu32 (_mm256_andnot_si256 (one, rx),
                                                 _mm256_set1_epi32 ((int) st->magic[xm])),
                                    _mm_cvtsi32_si128 ((int) st->shift[xm]));
      __m256i x1 = _mm256_add_epi32 (_mm256_set1_epi32 (st->xlo[x]),
                                     _mm256_sub_epi32 (ax, _mm256_mullo_epi32 (q, vxm)));
      __m256i rd = rect ? vd : _mm256_sub_epi32 (vd, _mm256_abs_epi32 (_mm256_sub_epi32 (x1, _mm256_set1_epi32 (x))));
      __m256i lo = _mm256_max_epi32 (zero, _mm256_sub_epi32 (vy, rd));
      __m256i hi = _mm256_min_epi32 (hmax, _mm256_add_epi32 (vy, rd));
      __m256i m = _mm256_add_epi32 (_mm256_sub_epi32 (hi, lo), one);
      __m256i y1;

      /* lb_xv_random_mod() as ((2a · magic) >> 32) >> shift: the same floor, and 2a fits 32
       * bits (the raw word with its low bit cleared) */
      q = _mm256_srlv_epi32 (mulhi_epu32 (_mm256_andnot_si256 (one, ry), lookup (&lmagic, m)),
                             lookup (&lshift, m));
      y1 = _mm256_add_epi32 (lo, _mm256_sub_epi32 (ay, _mm256_mullo_epi32 (q, m)));
      _mm256_storeu_si256 ((__m256i *) part[t],
                          _mm256_add_epi32 (_mm256_mullo_epi32 (_mm256_sub_epi32 (y1, e0), vw), x1));
      base = _mm256_add_epi32 (base, one);
      if (x + 1 == w)
        {
          draws_advance (dr);
          vy = _mm256_loadu_si256 ((const __m256i *) dr->y);
        }
      else
        dr->x++;
    }
}

/* One instance per mode: the interior loop then has no test of the mode, and the registers
 * that the other mode's constants took hold this one's (fewer stack reloads). Same
 * operations: 0.95–0.97 of the time per pass, 1 and 2 threads (1.4 Mpx RGB8, medians of 61–81
 * interleaved pairs, both link orders). */
__attribute__ ((target ("avx2"))) static void
draws_block_avx2 (Draws               *dr,
                  const guint32      (*rnd)[LANES],
                  guint32            (*part)[LANES],
                  int                  tn)
{
  if (dr->st->rectangle)
    draws_block_avx2_body (dr, rnd, part, tn, TRUE);
  else
    draws_block_avx2_body (dr, rnd, part, tn, FALSE);
}
#endif

/* The next @npix pixels of every lane: partner cells to parts[i][k] (step-major: the swaps
 * read a lane's partners 8 words apart, and a strip's rows share their cache lines; no
 * transposes). */
void
_lb_spread_band_draws (Draws           *dr,
                       LbXvRandomLanes *rng,
                       gboolean         avx2,
                       guint32        (*parts)[LANES],
                       gsize            npix)
{
  for (gsize i0 = 0; i0 < npix; i0 += BLOCK)
    {
      int tn = (int) MIN ((gsize) BLOCK, npix - i0);
      const guint32 (*rnd)[LANES] = lb_xv_random_lanes_next (rng, 2 * (gsize) tn);

#ifdef HAVE_AVX2_PATHS
      if (avx2)
        draws_block_avx2 (dr, rnd, parts + i0, tn);
      else
#endif
        draws_block (dr, rnd, parts + i0, tn);
    }
}
