/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-spread"

/* Spread's banded path: bands that run concurrently and settle through each other's seams
 * (below); their draws are in lb-spread-draws.c. */

#include "lb-spread-private.h"

/* Banded path. The swaps depend on the random stream only, never on pixel values, so band b's
 * swaps alone define a permutation P_b of the positions its rows reach: run on an array of
 * region positions starting from the identity, P_b[p] names the position whose content those
 * swaps bring to p. Running the bands one after the other (xv's order) moves content as the
 * composition does, so the final pixel at p is the source pixel at P_0(P_1(…P_last(p)…)):
 * exact for any banding, each band's random numbers found by jumping the generator ahead to
 * the band's first draw (2 per pixel). P_b is the identity outside band b's reach, so bands
 * run concurrently.
 *
 * Cells: rows of band b that no earlier band reaches (from r0 + reach on; all of band 0) start
 * with their source pixel itself (colour bytes ≤ 3: a "value" cell, top bit clear); the other
 * cells hold a position with the top bit set (a "token"): in the rows band b − 1 reaches,
 * whatever band b − 1 left there, else (more than 3 colour bytes) the source pixel.
 *
 * A band's pass (band_run): chunks of LANES · lane_rows rows, top to bottom. The chunk's
 * random numbers come from one generator whose 8 lanes are the chunk's 8 lanes of rows, stepped
 * together (one vector addition per step) and jumped to the next chunk's rows at its end; the
 * draws then make every lane's partner cells at once (AVX2: 8 lanes in a register), and the
 * swaps run over the chunk. The band's cells live in a window of rows that slides down with
 * the chunks: rows no later swap of the band touches are written to the output at once while
 * they are in cache (values; tokens into the source: looked up there; tokens band b − 1
 * decides: kept in a list), except its first rows, those band b − 1 reaches and a reach
 * more, which are kept whole (mostly tokens: settled 8 at a time, not one by one from the
 * list, and by the thread that finishes first); the rows band b + 1 reaches back into are kept
 * as the band's seam.
 * The kept rows and lists are then settled through the earlier bands' seams (band_finished:
 * by the threads whose bands are done, as soon as the bands they depend on are).
 * A pass takes the source, the output, and per band a window (~512 KiB), a seam (2 · reach
 * rows), its kept top rows (3 · reach) and the list. */
#define TOKEN 0x80000000u

/* A pixel's colour bytes (cb ≤ 3) as a value cell, in registers: going through a memory
 * temporary would cost a failed store-to-load forwarding per pixel. */
static inline guint32
load_value (const guint8 *s,
            gsize         cb)
{
  guint32 v = s[0];

  if (cb >= 2)
    v |= (guint32) s[1] << 8;
  if (cb >= 3)
    v |= (guint32) s[2] << 16;
  return v;
}

/* value cells exist only for cb ≤ 3 */
static inline void
store_value (guint8  *d,
             guint32  c,
             gsize    cb)
{
  d[0] = (guint8) c;
  if (cb >= 2)
    d[1] = (guint8) (c >> 8);
  if (cb >= 3)
    d[2] = (guint8) (c >> 16);
}

#ifdef HAVE_AVX2_PATHS
/* Rows of 8-bit gray, 16-bit gray, 8-bit RGB or 8-bit RGBA (colour bytes @cb, pixel bytes @pb)
 * to value cells, 8 pixels per step (RGB8: a 32-byte load for 24 bytes, run while 8 more bytes
 * of the row follow). Returns the pixels done. */
__attribute__ ((target ("avx2"))) static G_ALWAYS_INLINE inline int
init_run_avx2 (guint32      *row,
               const guint8 *s,
               int           w,
               gsize         cb,
               gsize         pb)
{
  const __m256i idx = _mm256_setr_epi32 (0, 1, 2, 3, 3, 4, 5, 6);
  const __m256i shuf = _mm256_setr_epi8 (0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1,
                                         0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
  const __m256i rgb = _mm256_set1_epi32 (0x00ffffff);
  int x = 0;

  for (; x + (pb == 3 ? 11 : 8) <= w; x += 8)
    {
      const void *p = s + pb * (gsize) x;
      __m256i v;

      if (pb == 1)
        v = _mm256_cvtepu8_epi32 (_mm_loadl_epi64 ((const __m128i *) p));
      else if (pb == 2)
        v = _mm256_cvtepu16_epi32 (_mm_loadu_si128 ((const __m128i *) p));
      else if (pb == 3)
        v = _mm256_shuffle_epi8 (_mm256_permutevar8x32_epi32 (_mm256_loadu_si256 ((const __m256i *) p),
                                                              idx), shuf);
      else
        v = _mm256_and_si256 (_mm256_loadu_si256 ((const __m256i *) p), rgb);
      _mm256_storeu_si256 ((__m256i *) (void *) (row + x), v);
    }
  (void) cb;
  return x;
}

/* 8 value cells to 8 pixels of @d (the layouts of init_run_avx2); RGBA8 takes its alpha from
 * the same pixels of the source row @s */
__attribute__ ((target ("avx2"))) static G_ALWAYS_INLINE inline void
store_run_avx2 (guint8       *d,
                const guint8 *s,
                __m256i       c,
                gsize         pb)
{
  if (pb == 1 || pb == 2)
    {
      __m128i p16 = _mm_packus_epi32 (_mm256_castsi256_si128 (c), _mm256_extracti128_si256 (c, 1));

      if (pb == 1)
        _mm_storel_epi64 ((__m128i *) (void *) d, _mm_packus_epi16 (p16, p16));
      else
        _mm_storeu_si128 ((__m128i *) (void *) d, p16);
    }
  else if (pb == 3)
    {
      const __m256i shuf = _mm256_setr_epi8 (0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1,
                                             0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
      const __m256i idx = _mm256_setr_epi32 (0, 1, 2, 4, 5, 6, 7, 7);

      c = _mm256_permutevar8x32_epi32 (_mm256_shuffle_epi8 (c, shuf), idx);
      _mm_storeu_si128 ((__m128i *) (void *) d, _mm256_castsi256_si128 (c));
      _mm_storel_epi64 ((__m128i *) (void *) (d + 16), _mm256_extracti128_si256 (c, 1));
    }
  else
    {
      __m256i a = _mm256_and_si256 (_mm256_loadu_si256 ((const __m256i *) (const void *) s),
                                    _mm256_set1_epi32 ((int) 0xff000000u));

      _mm256_storeu_si256 ((__m256i *) (void *) d, _mm256_or_si256 (a, c));
    }
}


/* the layouts with AVX2 runs, as separate functions (one instance each) */
#define SPREAD_AVX2_LAYOUT(pb_)                                                                    \
  __attribute__ ((target ("avx2"))) static int                                                     \
  init_run_avx2_##pb_ (guint32 *row, const guint8 *s, int w)                                       \
  {                                                                                                \
    return init_run_avx2 (row, s, w, pb_ == 4 ? 3 : pb_, pb_);                                     \
  }
SPREAD_AVX2_LAYOUT (1)
SPREAD_AVX2_LAYOUT (2)
SPREAD_AVX2_LAYOUT (3)
SPREAD_AVX2_LAYOUT (4)

typedef int (*InitRunFunc) (guint32 *row, const guint8 *s, int w);

/* the AVX2 runs for 8-bit gray (cb = pb = 1), 16-bit gray (2, 2), 8-bit RGB (3, 3) and 8-bit
 * RGBA (3, 4): index pb − 1 where cb ≥ pb − 1 and cb = pb or cb = 3 */
static gboolean
avx2_layout (gsize cb,
             gsize pb)
{
  return (cb == pb && cb <= 3) || (cb == 3 && pb == 4);
}

static const InitRunFunc init_runs[4] = { init_run_avx2_1, init_run_avx2_2, init_run_avx2_3,
                                          init_run_avx2_4 };
#endif

/* whether the AVX2 paths run (libgcc's constructor has filled in the processor's features
 * before any code of ours runs, so this needs no __builtin_cpu_init ()) */
static gboolean
use_avx2 (const LbSpread *st)
{
#ifdef HAVE_AVX2_PATHS
  return st->simd && __builtin_cpu_supports ("avx2");
#else
  return FALSE;
#endif
}

/* Cells of image rows [ya, yb) in @ring, whose first row is image row @base: tokens above
 * image row @vfrom, values from the source from it on. */
static G_ALWAYS_INLINE inline void
ring_init (const LbSpread    *st,
           const LbKernelBuf *src,
           guint32           *ring,
           int                base,
           int                ya,
           int                yb,
           int                vfrom,
           gsize              cb)
{
  int w = st->r.width, sy = st->r.y;
  gsize pb = (gsize) src->channels * (src->depth / 8);
  G_GNUC_UNUSED gboolean avx2 = use_avx2 (st);

  for (int y = ya; y < yb; y++)
    {
      guint32 *row = ring + (gsize) (y - base) * w;

      if (y < vfrom)
        {
          guint32 q = (guint32) ((gsize) (y - sy) * w) | TOKEN;

          for (int x = 0; x < w; x++)
            row[x] = q + (guint32) x;
        }
      else
        {
          const guint8 *s = lb_kbuf_row (src, y) + (gsize) st->r.x * pb;
          int x = 0;

#ifdef HAVE_AVX2_PATHS
          if (avx2 && avx2_layout (cb, pb))
            x = init_runs[pb - 1] (row, s, w);
#endif
          for (s += (gsize) x * pb; x < w; x++, s += pb)
            row[x] = load_value (s, cb);
        }
    }
}

/* A chunk's swaps on its band's cells: own cell (row r, column x) with its partner, for chunk
 * rows r = 0 … rows − 1 (cell row top + r); the partners are step-major
 * (_lb_spread_band_draws): row r is step (r mod lane_rows) · w + x of lane r / lane_rows. Not
 * in raster order but in skewed strips: two swaps touch a common cell only if their columns
 * are at most 2 · px apart, so ordering the pixels by x + skew · r with skew = 2 · px + 1, in
 * strips of STRIP_W, keeps every such pair in raster order (a later row has a key at least
 * skew − 2 · px = 1 higher), and the strip's 2 · reach + 1 rows of STRIP_W + 2 · px cells stay
 * in L1; in raster order the rows a swap reaches (5.6 KB each at 1400 RGB pixels) do not. */
#define STRIP_W 64

/* not inlined: inside lb_spread_process_band's loops the swap loop's pointers and the
 * swapped cell spill to the stack (three stack accesses per swap) */
G_GNUC_NO_INLINE static void
swap_cells (guint32       *cells,
            const guint32 *parts,
            int            top,
            int            rows,
            int            w,
            int            skew,
            int            lane_rows)
{
  guint32 *own = cells + (gsize) top * w;
  gint64 keys;

  /* a swap reaching across the whole row: raster order (one strip per row) */
  if (skew >= w)
    skew = w;
  keys = (gint64) w + (gint64) skew * (rows - 1);
  for (gint64 x0 = 0; x0 < keys; x0 += STRIP_W)
    /* the rows with keys in [x0, x0 + STRIP_W): x0 − w < skew · r < x0 + STRIP_W */
    for (int r = (int) MAX (0, (x0 - w) / skew); r < rows && (gint64) skew * r < x0 + STRIP_W; r++)
      {
        gint64 xa = MAX (0, x0 - (gint64) skew * r), xb = MIN (w, x0 + STRIP_W - (gint64) skew * r);
        gsize i = (gsize) r * w;
        const guint32 *pr = parts + (((gsize) (r % lane_rows) * w) * LANES + (gsize) (r / lane_rows));

        for (gint64 x = xa; x < xb; x++)
          {
            guint32 q = pr[x * LANES], c = own[i + x];

            own[i + x] = cells[q];
            cells[q] = c;
          }
      }
}

/* the source pixel at region position @q (colour bytes) */
static G_ALWAYS_INLINE inline const guint8 *
source_pixel (const LbSpread    *st,
              const LbKernelBuf *src,
              guint32            q)
{
  int w = st->r.width;
  gsize pb = (gsize) src->channels * (src->depth / 8);
  /* 2⁶⁴/1 does not fit: width 1 divides by itself */
  guint32 qy = w == 1 ? q : (guint32) (((unsigned __int128) st->wdiv * q) >> 64);
  guint32 qx = q - qy * (guint32) w;

  return lb_kbuf_row (src, st->r.y + (int) qy) + (gsize) (st->r.x + (int) qx) * pb;
}

#ifdef HAVE_AVX2_PATHS
/* Cells to pixels (the layouts of init_run_avx2), 8 pixels per step, while the step holds
 * values only, or (with @prev) tokens that find values in band b − 1's seam (@prev, region
 * positions [plo, phi)): a top row of band b in settle_kept (). @s: the source row's
 * pixels under @d (RGBA8's alpha). Returns the pixels done (see settle_cell for the rest). */
__attribute__ ((target ("avx2"))) static G_ALWAYS_INLINE inline int
out_run_avx2 (guint8        *d,
              const guint8  *s,
              const guint32 *cells,
              int            n,
              const guint32 *prev,
              guint32        plo,
              guint32        phi,
              gsize          pb)
{
  const __m256i low31 = _mm256_set1_epi32 (0x7fffffff);
  const __m256i vplo = _mm256_set1_epi32 ((int) plo);
  /* plo ≤ q < phi as signed comparisons of q − 2³¹ (positions are below 2³¹) */
  const __m256i bias = _mm256_set1_epi32 ((int) 0x80000000u);
  const __m256i vplo1 = _mm256_set1_epi32 ((int) ((plo - 1) ^ 0x80000000u));
  const __m256i vphi = _mm256_set1_epi32 ((int) (phi ^ 0x80000000u));
  int x = 0;

  for (; x + 8 <= n; x += 8)
    {
      __m256i c = _mm256_loadu_si256 ((const __m256i *) (const void *) (cells + x));

      if (_mm256_movemask_ps (_mm256_castsi256_ps (c)) != 0)
        {
          __m256i tok = _mm256_srai_epi32 (c, 31);
          __m256i qb = _mm256_xor_si256 (_mm256_and_si256 (c, low31), bias);
          __m256i inside = _mm256_and_si256 (_mm256_cmpgt_epi32 (vphi, qb),
                                             plo == 0 ? tok : _mm256_cmpgt_epi32 (qb, vplo1));

          if (prev == NULL || _mm256_movemask_ps (_mm256_castsi256_ps (_mm256_andnot_si256 (inside, tok))) != 0)
            break;
          c = _mm256_mask_i32gather_epi32 (c, (const int *) prev,
                                           _mm256_sub_epi32 (_mm256_and_si256 (c, low31), vplo), tok, 4);
          if (_mm256_movemask_ps (_mm256_castsi256_ps (c)) != 0)
            break;
        }
      store_run_avx2 (d + pb * (gsize) x, s + pb * (gsize) x, c, pb);
    }
  return x;
}

#define SPREAD_OUT_LAYOUT(pb_)                                                                     \
  __attribute__ ((target ("avx2"))) static int                                                     \
  out_run_avx2_##pb_ (guint8 *d, const guint8 *s, const guint32 *cells, int n,                     \
                      const guint32 *prev, guint32 plo, guint32 phi)                               \
  {                                                                                                \
    return out_run_avx2 (d, s, cells, n, prev, plo, phi, pb_);                                     \
  }
SPREAD_OUT_LAYOUT (1)
SPREAD_OUT_LAYOUT (2)
SPREAD_OUT_LAYOUT (3)
SPREAD_OUT_LAYOUT (4)

typedef int (*OutRunFunc) (guint8 *d, const guint8 *s, const guint32 *cells, int n,
                           const guint32 *prev, guint32 plo, guint32 phi);
static const OutRunFunc out_runs[4] = { out_run_avx2_1, out_run_avx2_2, out_run_avx2_3,
                                        out_run_avx2_4 };
#endif

/* Band b's cells of image rows [ya, yb) (window @ring from image row @base) to the output:
 * values at once, tokens below region position @tok_lim (band b − 1 decides them) to
 * @deferred, other tokens from the source. Alpha comes from the same pixel of the source. */
static G_ALWAYS_INLINE inline void
out_rows (const LbSpread    *st,
          const LbKernelBuf *src,
          LbKernelBuf       *dst,
          const guint32     *ring,
          int                base,
          int                ya,
          int                yb,
          guint32            tok_lim,
          GArray            *deferred,
          gsize              cb,
          gsize              pb)
{
  int w = st->r.width, sy = st->r.y;
  G_GNUC_UNUSED gboolean avx2 = use_avx2 (st);

  for (int y = ya; y < yb; y++)
    {
      const guint32 *cells = ring + (gsize) (y - base) * w;
      guint8 *d = lb_kbuf_row (dst, y) + (gsize) st->r.x * pb;
      const guint8 *s = lb_kbuf_row (src, y) + (gsize) st->r.x * pb;
      guint32 p0 = (guint32) ((gsize) (y - sy) * w);

      for (int x = 0; x < w;)
        {
          int xe;

#ifdef HAVE_AVX2_PATHS
          if (avx2 && avx2_layout (cb, pb))
            {
              int n = out_runs[pb - 1] (d + (gsize) x * pb, s + (gsize) x * pb, cells + x, w - x,
                                        NULL, 0, 0);

              x += n;
            }
#endif
          /* pixel by pixel up to the next step of 8 */
          for (xe = MIN (w, x + 8); x < xe; x++)
            {
              guint8 *dp = d + (gsize) x * pb;
              guint32 c = cells[x];

              if (G_LIKELY (!(c & TOKEN)))
                store_value (dp, c, cb);
              else if ((c & ~TOKEN) < tok_lim)
                {
                  Deferred e = { p0 + (guint32) x, c & ~TOKEN };

                  g_array_append_val (deferred, e);
                }
              else
                memcpy (dp, source_pixel (st, src, c & ~TOKEN), cb);
              if (pb > cb)
                memcpy (dp + cb, s + (gsize) x * pb + cb, pb - cb);
            }
        }
    }
}

/* Band @b of rows [r0, r1): see "Banded path" above. */
static G_ALWAYS_INLINE inline void
band_run (const LbSpread    *st,
          const LbKernelBuf *src,
          LbKernelBuf       *dst,
          int                b,
          gsize              cb,
          gsize              pb)
{
  int w = st->r.width, sy = st->r.y, ey = st->r.y + st->r.height, reach = st->reach;
  int r0 = sy + b * st->band_rows, r1 = MIN (r0 + st->band_rows, ey);
  /* the rows its swaps reach, and the rows it writes to the output ([e0, out1): later bands
   * reach no higher than r1 − reach) */
  int e0 = MAX (sy, r0 - reach), e1 = MIN (ey, r1 + reach);
  gboolean last = b == st->n_bands - 1;
  int out1 = last ? ey : MAX (sy, r1 - reach);
  int lane_rows = st->lane_rows, chunk = LANES * lane_rows;
  int n_ring = ring_rows (st, e1 - e0);
  /* values where no earlier band reaches, if a pixel fits 31 bits; band b − 1 decides the
   * tokens of the rows above r0 + reach */
  int vfrom = cb > 3 ? e1 : (b == 0 ? e0 : MIN (e1, r0 + reach));
  guint32 tok_lim = b == 0 ? 0 : (guint32) ((gsize) (MIN (ey, r0 + reach) - sy) * w);
  int skew = (int) MIN (2 * (gint64) st->px + 1, w);
  gboolean avx2 = use_avx2 (st);
  BandOut *out = &((LbSpread *) st)->bands[b];
  guint32 *ring = g_new (guint32, (gsize) n_ring * w);
  guint32 (*parts)[LANES] = g_malloc ((gsize) lane_rows * w * sizeof *parts);
  LbXvRandomLanes *rng = g_new (LbXvRandomLanes, 1);
  int base = e0, inited = e0, outed = e0;
  gboolean top_published = FALSE;

  g_clear_pointer (&out->seam, g_free);
  g_clear_pointer (&out->top, g_free);
  g_clear_pointer (&out->deferred, g_array_unref);
  out->deferred = g_array_new (FALSE, FALSE, sizeof (Deferred));
  /* its first output rows, where band b − 1 decides most pixels, are kept whole: the 2 · reach
   * rows band b − 1 reaches, and a reach more, where tokens that moved down from them are
   * still dense (against 1 · reach: the list shrinks from 1281 pixels to 134 at 1.4 Mpx;
   * 0.90–1.07 of the time per pass on 2 threads, 0.98 as the geometric mean of both link
   * orders) */
  out->top_y0 = out->top_y1 = e0;
  if (b > 0)
    {
      out->top_y1 = MIN (out1, MIN (ey, r0 + 2 * reach));
      out->top = g_new (guint32, (gsize) (out->top_y1 - out->top_y0) * w);
    }
  /* lane k of chunk c draws for rows r0 + (c · LANES + k) · lane_rows … (2 draws a pixel) */
  lb_xv_random_lanes_seed (rng, st->seed, 2 * (guint64) (r0 - sy) * (guint64) w,
                           2 * (guint64) lane_rows * (guint64) w);
  for (int y = r0; y < r1; y += chunk)
    {
      int rows = MIN (chunk, r1 - y), hi = MIN (e1, y + rows + reach), fin;
      Draws dr = { st, { 0 }, { 0 }, { 0 }, 0, 0 };

      if (y > r0)
        lb_xv_random_lanes_jump (rng);
      /* the window must hold rows [y − reach, hi): slide it down (a few rows of cells move) */
      if (hi > base + n_ring)
        {
          int keep = MIN (outed, MAX (e0, y - reach));

          memmove (ring, ring + (gsize) (keep - base) * w,
                   (gsize) (inited - keep) * w * sizeof (guint32));
          base = keep;
        }
      for (int k = 0; k < LANES; k++)
        {
          /* lanes past the region draw as if in its last row, and are ignored */
          dr.r0[k] = y - sy + k * lane_rows;
          dr.y[k] = MIN (dr.r0[k], st->r.height - 1);
          dr.e0[k] = base - sy;
        }
      _lb_spread_band_draws (&dr, rng, avx2, parts, (gsize) lane_rows * w);
      ring_init (st, src, ring, base, inited, hi, vfrom, cb);
      inited = hi;
      swap_cells (ring, parts[0], y - base, rows, w, skew, lane_rows);
      /* no later swap of the band reaches above y + rows − reach */
      fin = y + rows >= r1 ? out1 : MIN (out1, MAX (outed, y + rows - reach));
      for (; outed < MIN (fin, out->top_y1); outed++)
        memcpy (out->top + (gsize) (outed - out->top_y0) * w, ring + (gsize) (outed - base) * w,
                (gsize) w * sizeof (guint32));
      if (!top_published && outed >= out->top_y1)
        {
          /* another thread may settle them now (band_finished) */
          g_mutex_lock (&((LbSpread *) st)->lock);
          out->top_ready = TRUE;
          g_mutex_unlock (&((LbSpread *) st)->lock);
          top_published = TRUE;
        }
      out_rows (st, src, dst, ring, base, outed, fin, tok_lim, out->deferred, cb, pb);
      outed = MAX (outed, fin);
    }
  if (!last)
    {
      out->seam_y0 = out1;
      out->seam_y1 = e1;
      out->seam = g_memdup2 (ring + (gsize) (out1 - base) * w,
                             (gsize) (e1 - out1) * w * sizeof (guint32));
    }
  g_free (rng);
  g_free (parts);
  g_free (ring);
}

/* the colour of cell @c of band @b's final cells to @d: a value, or a token settled through
 * the earlier bands' seams (band b − 1 decides positions above row r0_b + reach) or in the
 * source */
static G_ALWAYS_INLINE inline void
settle_cell (const LbSpread    *st,
             const LbKernelBuf *src,
             int                b,
             guint32            c,
             guint8            *d,
             gsize              cb)
{
  int w = st->r.width, sy = st->r.y, ey = st->r.y + st->r.height;

  while (c & TOKEN)
    {
      guint32 q = c & ~TOKEN;
      int r0 = sy + b * st->band_rows;
      const BandOut *prev;

      if (b == 0 || q >= (guint32) ((gsize) (MIN (ey, r0 + st->reach) - sy) * w))
        {
          memcpy (d, source_pixel (st, src, q), cb);
          return;
        }
      prev = &st->bands[--b];
      c = prev->seam[q - (guint32) ((gsize) (prev->seam_y0 - sy) * w)];
    }
  store_value (d, c, cb);
}

/* band @b's top rows [ya, yb) to the output */
static void
top_rows (const LbSpread    *st,
          const LbKernelBuf *src,
          LbKernelBuf       *dst,
          int                b,
          int                ya,
          int                yb,
          gsize              cb,
          gsize              pb)
{
  const BandOut *out = &st->bands[b], *prev = &st->bands[b - 1];
  int w = st->r.width, sy = st->r.y;
  G_GNUC_UNUSED guint32 plo = (guint32) ((gsize) (prev->seam_y0 - sy) * w);
  G_GNUC_UNUSED guint32 phi = (guint32) ((gsize) (prev->seam_y1 - sy) * w);
  G_GNUC_UNUSED gboolean avx2 = use_avx2 (st);

  for (int y = ya; y < yb; y++)
    {
      const guint32 *cells = out->top + (gsize) (y - out->top_y0) * w;
      guint8 *d = lb_kbuf_row (dst, y) + (gsize) st->r.x * pb;
      const guint8 *s = lb_kbuf_row (src, y) + (gsize) st->r.x * pb;

      for (int x = 0; x < w;)
        {
          int xe;

#ifdef HAVE_AVX2_PATHS
          if (avx2 && avx2_layout (cb, pb))
            x += out_runs[pb - 1] (d + (gsize) x * pb, s + (gsize) x * pb, cells + x, w - x,
                                   prev->seam, plo, phi);
#endif
          for (xe = MIN (w, x + 8); x < xe; x++)
            {
              settle_cell (st, src, b, cells[x], d + (gsize) x * pb, cb);
              if (pb > cb)
                memcpy (d + (gsize) x * pb + cb, s + (gsize) x * pb + cb, pb - cb);
            }
        }
    }
}

/* band @b's kept pixels: its top rows, or its list */
static void
settle_kept (const LbSpread    *st,
             const LbKernelBuf *src,
             LbKernelBuf       *dst,
             int                b,
             gboolean           top)
{
  gsize cb = (gsize) lb_kbuf_color_channels (dst) * (dst->depth / 8);
  gsize pb = (gsize) dst->channels * (dst->depth / 8);
  const BandOut *out = &st->bands[b];

  if (top)
    {
      top_rows (st, src, dst, b, out->top_y0, out->top_y1, cb, pb);
      return;
    }
  for (guint i = 0; i < out->deferred->len; i++)
    {
      const Deferred *e = &g_array_index (out->deferred, Deferred, i);

      settle_cell (st, src, b, e->token | TOKEN, (guint8 *) source_pixel (st, dst, e->pos), cb);
    }
}

/* Under @lock: the pass is over once every band is done and every settling job taken; the
 * flags then start again for the next pass. */
static void
pass_check_over (LbSpread *st)
{
  if (st->n_done < st->n_bands || st->n_claimed < 2 * (st->n_bands - 1))
    return;
  for (int b = 0; b < st->n_bands; b++)
    {
      BandOut *o = &st->bands[b];

      o->done = o->top_ready = o->top_claimed = o->deferred_claimed = FALSE;
    }
  st->n_done = st->n_claimed = 0;
}

/* Band @b is done: this thread then settles what has become ready, band k's top rows once
 * bands 0 … k − 1 are done (their seams decide it; it is final early in band k's own pass)
 * and band k's list once bands 0 … k are. So a band that finishes first settles its
 * neighbour's top rows while the neighbour still runs, and when every band has returned, all
 * is settled, without a second parallel loop. */
static void
band_finished (LbSpread          *st,
               const LbKernelBuf *src,
               LbKernelBuf       *dst,
               int                b)
{
  int n = st->n_bands;

  g_mutex_lock (&st->lock);
  st->bands[b].done = st->bands[b].top_ready = TRUE;
  st->n_done++;
  pass_check_over (st);
  for (;;)
    {
      int prefix = 0, job = -1;
      gboolean top = FALSE;

      while (prefix < n && st->bands[prefix].done)
        prefix++;
      for (int k = 1; k < n && job < 0; k++)
        {
          BandOut *o = &st->bands[k];

          if (k <= prefix && o->top_ready && !o->top_claimed)
            {
              o->top_claimed = TRUE;
              top = TRUE;
              job = k;
            }
          else if (k < prefix && !o->deferred_claimed)
            {
              o->deferred_claimed = TRUE;
              job = k;
            }
        }
      if (job < 0)
        break;
      st->n_claimed++;
      pass_check_over (st);
      g_mutex_unlock (&st->lock);
      settle_kept (st, src, dst, job, top);
      g_mutex_lock (&st->lock);
    }
  g_mutex_unlock (&st->lock);
}

void
lb_spread_process_band (const LbSpread    *st,
                        const LbKernelBuf *src,
                        LbKernelBuf       *dst,
                        int                b)
{
  gsize cb = (gsize) lb_kbuf_color_channels (dst) * (dst->depth / 8);
  gsize pb = (gsize) dst->channels * (dst->depth / 8);

  g_return_if_fail (b >= 0 && b < lb_spread_get_n_bands (st));
  g_return_if_fail (st->banded);
  /* the layouts the filter must support, RGB16 and the rest */
  if (cb == 1 && pb == 1)
    band_run (st, src, dst, b, 1, 1);
  else if (cb == 2 && pb == 2)
    band_run (st, src, dst, b, 2, 2);
  else if (cb == 3 && pb == 3)
    band_run (st, src, dst, b, 3, 3);
  else if (cb == 3 && pb == 4)
    band_run (st, src, dst, b, 3, 4);
  /* gray+alpha and 16-bit colour with constant sizes too: through the generic call GRAYA8
   * spread 5 took 4.0 ms against GRAY8's 1.6 (1.4 Mpx, 2 threads) */
  else if (cb == 1 && pb == 2)
    band_run (st, src, dst, b, 1, 2);
  else if (cb == 2 && pb == 4)
    band_run (st, src, dst, b, 2, 4);
  else if (cb == 6 && pb == 6)
    band_run (st, src, dst, b, 6, 6);
  else if (cb == 6 && pb == 8)
    band_run (st, src, dst, b, 6, 8);
  else
    band_run (st, src, dst, b, cb, pb);
  band_finished ((LbSpread *) st, src, dst, b);
}
