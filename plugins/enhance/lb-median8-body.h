/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The 8-bit constant-time median, included by lb-median.c once per window-count type:
 * KTV is a 16-lane vector (GCC vector extension) of the window histogram's counts: guint16
 * when (2r+1)² ≤ 65535 (8 bins per SSE instruction), else guint32; WIDEN converts a column's
 * guint16 lanes to it; MED8(name) makes the names unique per instance. Column histograms are
 * guint16 (a column holds ≤ 2r+1 samples). */

typedef struct {
  guint16 *fine;      /* [col][256] */
  guint16 *coarse;    /* [col][16] */
  KTV kc;             /* window coarse histogram */
  KTV kf[16];         /* window fine histogram, bucket b valid as of column last[b] */
  int last[16];
} MED8 (Hist);

static inline void
MED8 (col_add) (MED8 (Hist) *h,
                int          col,
                int          v,
                int          d)
{
  h->fine[(gsize) col * 256 + v] += d;
  h->coarse[(gsize) col * 16 + (v >> 4)] += d;
}

/* brings bucket b of the window fine histogram to the window of column position x */
static inline void
MED8 (update_bucket) (MED8 (Hist) *h,
                      int          b,
                      int          x,
                      int          rad,
                      int          cx0,
                      int          cx1)
{
  int last = h->last[b];

  if (last == x)
    return;
  if (last < 0 || x - last > 2 * rad + 1)
    {
      int wx0 = MAX (cx0, x - rad), wx1 = MIN (cx1, x + rad);
      KTV acc = { 0 };

      for (int col = wx0; col <= wx1; col++)
        acc += WIDEN (lb_load_u16x16 (h->fine + (gsize) col * 256 + b * 16));
      h->kf[b] = acc;
    }
  else
    for (int xx = last + 1; xx <= x; xx++)
      {
        int add = xx + rad, sub = xx - rad - 1;

        if (add <= cx1)
          h->kf[b] += WIDEN (lb_load_u16x16 (h->fine + (gsize) add * 256 + b * 16));
        if (sub >= cx0)
          h->kf[b] -= WIDEN (lb_load_u16x16 (h->fine + (gsize) sub * 256 + b * 16));
      }
  h->last[b] = x;
}

/* the k-th smallest (0-based) in the window */
static inline int
MED8 (kth) (MED8 (Hist) *h,
            guint32      k,
            int          x,
            int          rad,
            int          cx0,
            int          cx1)
{
  guint32 cum = 0;
  int b = 0;

#if MED8_SIMD_SELECT
  b = lb_select16_u16 ((const guint16 *) (const void *) &h->kc, k, &cum);
  MED8 (update_bucket) (h, b, x, rad, cx0, cx1);
  return b * 16 + lb_select16_u16 ((const guint16 *) (const void *) &h->kf[b], k - cum, &cum);
#else
  while (cum + h->kc[b] <= k)
    cum += h->kc[b++];
  MED8 (update_bucket) (h, b, x, rad, cx0, cx1);
  for (int i = 0;; i++)
    {
      cum += h->kf[b][i];
      if (cum > k)
        return b * 16 + i;
    }
#endif
}

/* Output columns [xs0, xs1) of rows [y0, y1): a vertical strip, so that the column
 * histograms of the strip (its width + 2r columns, 544 bytes each) stay in L2 cache. */
LB_XVGEOM_TARGET_CLONES static void
MED8 (median8_strip) (const LbMedian    *st,
                      const LbKernelBuf *src,
                      LbKernelBuf       *dst,
                      int                y0,
                      int                y1,
                      int                xs0,
                      int                xs1,
                      int                c,
                      MED8 (Hist)       *h)
{
  const LbKernelRect *r = &st->r;
  int rad = st->radius, ch = src->channels;
  int cx0 = r->x, cx1 = r->x + r->width - 1, ry0 = r->y, ry1 = r->y + r->height - 1;
  /* the columns whose histograms this strip needs */
  int colmin = MAX (cx0, xs0 - rad), colmax = MIN (cx1, xs1 - 1 + rad);
  guint16 *fine = h->fine, *coarse = h->coarse;

  memset (fine, 0, (gsize) (colmax - colmin + 1) * 256 * sizeof (guint16));
  memset (coarse, 0, (gsize) (colmax - colmin + 1) * 16 * sizeof (guint16));
  h->fine = fine - (gsize) colmin * 256;    /* so that col_add takes image x */
  h->coarse = coarse - (gsize) colmin * 16;
  /* rows y0−r−1 … y0+r−1: the first output row then adds y0+r and drops y0−r−1 */
  for (int y = MAX (ry0, y0 - rad - 1); y <= MIN (ry1, y0 + rad - 1); y++)
    {
      const guint8 *s = lb_kbuf_row (src, y);

      for (int x = colmin; x <= colmax; x++)
        MED8 (col_add) (h, x, s[(gsize) x * ch + c], 1);
    }
  for (int y = y0; y < y1; y++)
    {
      guint8 *d = lb_kbuf_row (dst, y);
      int wy0 = MAX (ry0, y - rad), wy1 = MIN (ry1, y + rad);

      /* slide the column histograms down: row y + rad enters, y − rad − 1 leaves (one pass
       * when both happen, so each column's histogram is touched once) */
      if (y + rad <= ry1 && y - rad - 1 >= ry0)
        {
          const guint8 *sa = lb_kbuf_row (src, y + rad), *ss = lb_kbuf_row (src, y - rad - 1);

          for (int x = colmin; x <= colmax; x++)
            {
              MED8 (col_add) (h, x, sa[(gsize) x * ch + c], 1);
              MED8 (col_add) (h, x, ss[(gsize) x * ch + c], -1);
            }
        }
      else if (y + rad <= ry1)
        {
          const guint8 *s = lb_kbuf_row (src, y + rad);

          for (int x = colmin; x <= colmax; x++)
            MED8 (col_add) (h, x, s[(gsize) x * ch + c], 1);
        }
      else if (y - rad - 1 >= ry0)
        {
          const guint8 *s = lb_kbuf_row (src, y - rad - 1);

          for (int x = colmin; x <= colmax; x++)
            MED8 (col_add) (h, x, s[(gsize) x * ch + c], -1);
        }

      h->kc = (KTV) { 0 };
      for (int b = 0; b < 16; b++)
        h->last[b] = -1;   /* stale: rebuilt on first use */
      for (int col = colmin; col <= MIN (colmax, xs0 + rad - 1); col++)
        h->kc += WIDEN (lb_load_u16x16 (h->coarse + (gsize) col * 16));
      for (int x = xs0; x < xs1; x++)
        {
          int wx0 = MAX (cx0, x - rad), wx1 = MIN (cx1, x + rad);
          guint32 n = (guint32) (wx1 - wx0 + 1) * (guint32) (wy1 - wy0 + 1);
          int v;

          if (x + rad <= colmax)
            h->kc += WIDEN (lb_load_u16x16 (h->coarse + (gsize) (x + rad) * 16));
          if (x - rad - 1 >= colmin)
            h->kc -= WIDEN (lb_load_u16x16 (h->coarse + (gsize) (x - rad - 1) * 16));
          if (n & 1)
            v = MED8 (kth) (h, n / 2, x, rad, cx0, cx1);
          else
            v = (MED8 (kth) (h, n / 2 - 1, x, rad, cx0, cx1)
                 + MED8 (kth) (h, n / 2, x, rad, cx0, cx1)) / 2;
          d[(gsize) x * ch + c] = (guint8) v;
        }
    }
  h->fine = fine;
  h->coarse = coarse;
}
