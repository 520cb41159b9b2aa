/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Included by lb-median16.h. */

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
