/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Included by lb-median16.h. */

/* ---- 48 ≤ r ≤ 127: four-tier constant-time median -------------------------------------------
 *
 * A 16-bit value v is found in four tiers of 16-way choices: tier t has 16^(t+1) bins, bin
 * v >> (12 − 4t). Every column of the strip keeps its histogram at every tier (u8 counts: a
 * column holds ≤ 2r+1 ≤ 255 samples; 69 904 bytes per column), updated by one sample in and
 * one out per row. The window's tier-0 histogram (16 bins) slides along the row by one column
 * histogram in and one out per pixel. The window's tier-t histogram (t ≥ 1) is kept in groups
 * of 16 bins, one per tier-(t−1) bin, each brought up to date only when the search enters it
 * (Perreault's lazy update): by the columns that entered and left since its last use, or
 * rebuilt from the window's columns when that is cheaper. The search is four branch-free
 * 16-bin selects. Window counts are u16, so (2r+1)² ≤ 65535: r ≤ 127. Per sample: 8 column
 * updates (×(strip + 2r)/strip for the halo), 2 vector ops for tier 0 and for each deeper
 * tier 2 per column moved since the group's last use — a constant on images where the median
 * stays in the same groups, at most 2r+1 vector loads per tier where it jumps (noise). */

#define LB_M16_MAX_RADIUS 127
/* Below this radius Huang's O(r) updates cost less than the four tiers, whose constant
 * depends on the data: where the window's values spread thinly (noise), the median changes
 * its tier-2 and tier-3 groups at almost every pixel and each change rebuilds a group from
 * 2r+1 columns. Measured (1400×1000 GRAY16, 1 thread, ms, four tiers / Huang, same run, a
 * loaded 2-core EPYC): lightbox-bench's image (smooth waves over the full range + uniform
 * noise of ±1024): r 15 505 / 304, r 25 648 / 459, r 40 737 / 590, r 50 759 / 879, r 100
 * 658 / 1944; kernels-a-timing's test card (ramps, flat areas, a fine 257-periodic pattern):
 * r 3 199 / 107, r 8 220 / 210, r 10 237 / 253, r 15 262 / 326, r 25 242 / 500, r 40 344 /
 * 780. The crossover follows the noisy image, so that no image gets slower than with Huang.
 * With both paths at their fastest (Huang with row groups of three, lb-median-huang16-body.h),
 * at r 26–34 on the noisy image (lightbox-cli, alternating runs) Huang wins; at r 48 (1
 * thread, 8 bands, ms, four tiers / Huang with groups of three rows) it would win on noise
 * (bench image 289 / 183, a 14-bit radiograph-like image 174 / 160) and lose by more where
 * half the image is flat (135 / 225); at r 64 the four tiers win on all three (313 / 321,
 * 218 / 297, 161 / 313). Still 48. (-D LB_M16_MIN_RADIUS=1 or 1000 forces one path.) */
#ifndef LB_M16_MIN_RADIUS
#define LB_M16_MIN_RADIUS 48
#endif
#define LB_M16_COL_BYTES (16 + 256 + 4096 + 65536)

typedef struct {
  LbU16x16 k0;          /* window tier 0 */
  LbU16x16 k1[16];      /* window tier 1, group g valid as of position last1[g] */
  LbU16x16 k2[256];
  LbU16x16 k3[4096];
  gint64 last1[16], last2[256], last3[4096];
  guint8 *col;          /* tiers 0 … 3, each [group][column − colmin][16] */
  gsize ncols;          /* columns per group */
  int colmin;
  int wx0, wx1;         /* the window's columns at the current position */
  int r;
  gint64 pos;           /* current position; jumps by > 2r+1 at each new row and strip */
} LbM16;

static const gsize lb_m16_tier_off[4] = { 0, 16, 16 + 256, 16 + 256 + 4096 };

/* the 16 tier-t counts of group g (bins 16g … 16g + 15) of image column x: tier t is stored
 * group by group, each group's columns side by side, so that a group's window (a rebuild)
 * is one sequential read and neighbouring columns with close values share cache lines */
static inline guint8 *
lb_m16_at (const LbM16 *m, int t, int x, guint g)
{
  return m->col + m->ncols * lb_m16_tier_off[t]
         + ((gsize) g * m->ncols + (gsize) (x - m->colmin)) * 16;
}

#define LB_M16_COL(m, t, x, g) lb_load_u8x16_wide (lb_m16_at ((m), (t), (x), (guint) (g)))

/* Adds row sa (if not NULL) and removes row ss (if not NULL) to/from the histograms of
 * columns [x0, x1], every tier. The tier bases are locals: through m, every u8 store could
 * alias m's fields (char aliasing) and force them to be reloaded. */
static inline void
lb_m16_col_rows (const LbM16 *m, const guint16 *sa, const guint16 *ss, int ch, int x0, int x1)
{
  const gsize gs = m->ncols * 16; /* bytes per group */
  guint8 *restrict t0 = lb_m16_at (m, 0, x0, 0), *restrict t1 = lb_m16_at (m, 1, x0, 0);
  guint8 *restrict t2 = lb_m16_at (m, 2, x0, 0), *restrict t3 = lb_m16_at (m, 3, x0, 0);

#define LB_M16_ADD(v, d)                                   \
  do                                                       \
    {                                                      \
      t0[(v) >> 12] += (d);                                \
      t1[((v) >> 12) * gs + (((v) >> 8) & 15)] += (d);     \
      t2[((v) >> 8) * gs + (((v) >> 4) & 15)] += (d);      \
      t3[((v) >> 4) * gs + ((v) & 15)] += (d);             \
    }                                                      \
  while (0)
  for (int x = x0; x <= x1; x++, t0 += 16, t1 += 16, t2 += 16, t3 += 16)
    {
      if (sa != NULL)
        {
          const gsize v = sa[(gsize) x * ch];

          LB_M16_ADD (v, 1);
        }
      if (ss != NULL)
        {
          const gsize v = ss[(gsize) x * ch];

          LB_M16_ADD (v, 255); /* −1 in u8 */
        }
    }
#undef LB_M16_ADD
}

/* brings group g of the window's tier-t histogram (k, last) to the current position x */
static inline __attribute__ ((always_inline)) void
lb_m16_group (LbM16 *m, int t, LbU16x16 *k, gint64 *last, int g, int x)
{
  const gint64 steps = m->pos - last[g];

  if (steps == 0)
    return;
  if (2 * steps > m->wx1 - m->wx0 + 1)
    {
      /* stale (another row or strip: pos jumped) or cheaper to rebuild */
      LbU16x16 acc;

      lb_sum_u8x16_cols (lb_m16_at (m, t, m->wx0, (guint) g), m->wx1 - m->wx0 + 1, &acc);
      k[g] = acc;
    }
  else
    {
      /* same row and strip, fewer than 2r+1 positions ago: the columns that moved */
      LbU16x16 acc = k[g];

      for (int xx = x - (int) steps + 1; xx <= x; xx++)
        {
          if (xx + m->r <= m->wx1)
            acc += LB_M16_COL (m, t, xx + m->r, g);
          if (xx - m->r - 1 >= m->colmin)
            acc -= LB_M16_COL (m, t, xx - m->r - 1, g);
        }
      k[g] = acc;
    }
  last[g] = m->pos;
}

/* the k-th smallest (0-based) value of the window at position x */
static inline __attribute__ ((always_inline)) guint
lb_m16_kth (LbM16 *m, guint32 k, int x)
{
  guint32 cum = 0;
  int g;

  g = lb_select16_u16 (lb_u16x16_lo (m->k0), lb_u16x16_hi (m->k0), k, &cum);
  lb_m16_group (m, 1, m->k1, m->last1, g, x);
  g = g * 16 + lb_select16_u16 (lb_u16x16_lo (m->k1[g]), lb_u16x16_hi (m->k1[g]), k - cum,
                                &cum);
  lb_m16_group (m, 2, m->k2, m->last2, g, x);
  g = g * 16 + lb_select16_u16 (lb_u16x16_lo (m->k2[g]), lb_u16x16_hi (m->k2[g]), k - cum,
                                &cum);
  lb_m16_group (m, 3, m->k3, m->last3, g, x);
  return (guint) (g * 16 + lb_select16_u16 (lb_u16x16_lo (m->k3[g]), lb_u16x16_hi (m->k3[g]),
                                            k - cum, &cum));
}

/* rows [ya, yb) (inside the region), output columns [xs0, xs1): a vertical strip */
LB_KERNEL_CLONES static void
lb_m16_strip (const LbMedianJob *j, LbM16 *m, int ya, int yb, int xs0, int xs1)
{
  const int r = j->r, ch = j->ch, cx0 = j->x0, cx1 = j->x1 - 1, ry0 = j->y0, ry1 = j->y1 - 1;
  const int colmin = MAX (cx0, xs0 - r), colmax = MIN (cx1, xs1 - 1 + r);
  /* rows [rlo, rhi] are in the column histograms (all zero on entry) */
  int rlo = MAX (ry0, ya - r - 1), rhi = MIN (ry1, ya + r - 1);

  m->colmin = colmin;
  m->r = r;
  /* rows ya−r−1 … ya+r−1: the first output row then adds ya+r and drops ya−r−1 */
  for (int y = rlo; y <= rhi; y++)
    lb_m16_col_rows (m, lb_m16_row (j, y), NULL, ch, colmin, colmax);
  for (int y = ya; y < yb; y++)
    {
      guint16 *d = (guint16 *) (void *) (j->dst + (gsize) y * j->dstride) + j->c;
      const int wy0 = MAX (ry0, y - r), wy1 = MIN (ry1, y + r);
      const guint16 *sa = y + r <= ry1 ? lb_m16_row (j, y + r) : NULL;
      const guint16 *ss = y - r - 1 >= ry0 ? lb_m16_row (j, y - r - 1) : NULL;

      lb_m16_col_rows (m, sa, ss, ch, colmin, colmax);
      rhi = sa != NULL ? y + r : rhi;
      rlo = ss != NULL ? y - r : rlo;

      /* a new row: every deeper group is stale, which the jump of pos says */
      m->pos += 2 * r + 2 + (xs1 - xs0);
      m->k0 = (LbU16x16) { 0 };
      for (int col = colmin; col <= MIN (colmax, xs0 + r - 1); col++)
        m->k0 += LB_M16_COL (m, 0, col, 0);
      for (int x = xs0; x < xs1; x++)
        {
          guint32 n;

          m->pos++;
          if (x + r <= colmax)
            m->k0 += LB_M16_COL (m, 0, x + r, 0);
          if (x - r - 1 >= colmin)
            m->k0 -= LB_M16_COL (m, 0, x - r - 1, 0);
          m->wx0 = MAX (cx0, x - r);
          m->wx1 = MIN (cx1, x + r);
          n = (guint32) (m->wx1 - m->wx0 + 1) * (guint32) (wy1 - wy0 + 1);
          if (n & 1)
            d[(gsize) x * ch] = (guint16) lb_m16_kth (m, n / 2, x);
          else
            d[(gsize) x * ch] = (guint16) ((lb_m16_kth (m, n / 2 - 1, x)
                                            + lb_m16_kth (m, n / 2, x)) / 2);
        }
    }
  /* leave the column histograms empty for the next strip: removing the 2r+1 rows costs less
   * than clearing 68 KiB per column */
  for (int y = rlo; y <= rhi; y++)
    lb_m16_col_rows (m, NULL, lb_m16_row (j, y), ch, colmin, colmax);
}
