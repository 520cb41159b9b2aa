/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-despeckle"

#include "lb-xv-despeckle.h"

#include <stdlib.h>
#include <string.h>

#include "lb-error.h"
#include "lb-median-hist.h"
#include "lb-median-net.h"

gboolean
lb_xv_despeckle_prepare (LbXvDespeckle      *self,
                         const LbKernelBuf  *src,
                         const LbKernelRect *selection,
                         int                 size,
                         GError            **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (size < 1 || size % 2 == 0 || size > 65535)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "despeckle: the mask size must be odd and between 1 and 65535, not %d", size);
      return FALSE;
    }
  if (!_lb_xv_region_init (&self->region, src, selection, "despeckle", error))
    return FALSE;
  self->size = size;
  return TRUE;
}

static int
cmp_guint (const void *a, const void *b)
{
  const guint x = *(const guint *) a, y = *(const guint *) b;

  return (x > y) - (x < y);
}

LB_XV_INLINE void
despeckle_ref_rows (const LbXvDespeckle *self,
                    const LbKernelBuf   *src,
                    LbKernelBuf         *dst,
                    int                  ya,
                    int                  yb,
                    const int            depth)
{
  const LbXvRegion *R = &self->region;
  const int r = self->size / 2;
  const int ch = src->channels;
  const int nc = lb_xv_colour_channels (ch);
  const gsize cap = (gsize) MIN (self->size, R->x1 - R->x0) * MIN (self->size, R->y1 - R->y0);
  g_autofree guint *vals = g_new (guint, cap);

  for (int y = ya; y < yb; y++)
    {
      guint8 *out = lb_xv_row_mut (dst, y);

      for (int x = R->x0; x < R->x1; x++)
        for (int c = 0; c < nc; c++)
          {
            gsize n = 0;
            guint v;

            for (int yy = MAX (R->y0, y - r); yy <= MIN (R->y1 - 1, y + r); yy++)
              for (int xx = MAX (R->x0, x - r); xx <= MIN (R->x1 - 1, x + r); xx++)
                vals[n++] = lb_xv_get (lb_xv_row (src, yy), (gsize) xx * ch + c, depth);
            qsort (vals, n, sizeof *vals, cmp_guint);
            v = n % 2 ? vals[n / 2] : (vals[n / 2 - 1] + vals[n / 2]) / 2;
            lb_xv_put (out, (gsize) x * ch + c, v, depth);
          }
    }
}

void
lb_xv_despeckle_process_ref (const LbXvDespeckle *self,
                             const LbKernelBuf   *src,
                             LbKernelBuf         *dst,
                             int                  y0,
                             int                  y1)
{
  g_return_if_fail (self != NULL && _lb_xv_same_geometry (src, dst));

  y0 = MAX (y0, self->region.y0);
  y1 = MIN (y1, self->region.y1);
  if (y0 >= y1 || self->size == 1)
    return;
  if (src->depth == 8)
    despeckle_ref_rows (self, src, dst, y0, y1, 8);
  else
    despeckle_ref_rows (self, src, dst, y0, y1, 16);
}

/* ---- 8 bits: Perreault ------------------------------------------------------------------ */

typedef struct {
  /* Borrowed */
  const guint16 *colf; /* [rw][256] fine column histograms */
  const guint16 *colc; /* [rw][16] coarse column histograms */
  /* Window */
  guint32 wc[16];
  guint32 wf[16][16];
  int blo[16], bhi[16]; /* columns [blo, bhi] are in wf[b]; empty when blo > bhi */
  int lo, hi;           /* current window columns */
  int off;              /* region column of colf/colc's first column */
} Perreault;

static inline void
fine_add (guint32 *restrict w, const guint16 *restrict h)
{
  for (int i = 0; i < 16; i++)
    w[i] += h[i];
}

static inline void
fine_sub (guint32 *restrict w, const guint16 *restrict h)
{
  for (int i = 0; i < 16; i++)
    w[i] -= h[i];
}

/* The k-th smallest (0-based) value of the window. */
static guint
perreault_select (Perreault *p, guint32 k)
{
  guint32 acc = 0;
  int b = 0, i = 0;
  guint32 *w;

  while (acc + p->wc[b] <= k)
    acc += p->wc[b++];
  w = p->wf[b];

  if (p->blo[b] > p->bhi[b] || p->bhi[b] < p->lo
      || (p->hi - p->lo + 1) < (p->hi - p->bhi[b]) + (p->lo - p->blo[b]))
    {
      /* Rebuilding is cheaper (or the only way). */
      memset (w, 0, sizeof p->wf[b]);
      for (int j = p->lo; j <= p->hi; j++)
        fine_add (w, p->colf + (gsize) (j - p->off) * 256 + b * 16);
    }
  else
    {
      /* Windows only move right: add the new columns, drop the old ones. */
      for (int j = p->bhi[b] + 1; j <= p->hi; j++)
        fine_add (w, p->colf + (gsize) (j - p->off) * 256 + b * 16);
      for (int j = p->blo[b]; j < p->lo; j++)
        fine_sub (w, p->colf + (gsize) (j - p->off) * 256 + b * 16);
    }
  p->blo[b] = p->lo;
  p->bhi[b] = p->hi;

  while (acc + w[i] <= k)
    acc += w[i++];
  return (guint) (b * 16 + i);
}

/* Output columns per strip: the column histograms of a strip plus its halo (2·r columns)
 * then stay within the L2 cache (128 columns × 544 bytes ≈ 70 KB), as in Perreault's paper. */
#define STRIP_COLUMNS 128

/* Adds (d = +1) or removes (d = −1) region row yy of channel c to the column histograms of
 * columns [hlo, hhi). */
static inline void
column_rows (guint16 *restrict colf, guint16 *restrict colc, const LbKernelBuf *src,
             const LbXvRegion *R, int yy, int c, int hlo, int hhi, int d)
{
  const int ch = src->channels;
  const guint8 *row = lb_xv_row (src, yy) + (gsize) R->x0 * ch + c;

  for (int j = hlo; j < hhi; j++)
    {
      const guint v = row[(gsize) j * ch];
      colf[(j - hlo) * 256 + v] += (guint16) d;
      colc[(j - hlo) * 16 + (v >> 4)] += (guint16) d;
    }
}

/* Column histograms [hlo, hhi) of channel c for the window rows of row ya (from zero). */
static inline void
columns_start (guint16 *restrict colf, guint16 *restrict colc, const LbKernelBuf *src,
               const LbXvRegion *R, int ya, int r, int c, int hlo, int hhi)
{
  memset (colf, 0, sizeof (guint16) * (hhi - hlo) * 256);
  memset (colc, 0, sizeof (guint16) * (hhi - hlo) * 16);
  for (int yy = MAX (R->y0, ya - r); yy <= MIN (R->y1 - 1, ya + r); yy++)
    column_rows (colf, colc, src, R, yy, c, hlo, hhi, 1);
}

/* From the window rows of row y − 1 to those of row y: y + r enters, y − r − 1 leaves. */
static inline void
columns_next_row (guint16 *restrict colf, guint16 *restrict colc, const LbKernelBuf *src,
                  const LbXvRegion *R, int y, int r, int c, int hlo, int hhi)
{
  if (y + r <= R->y1 - 1)
    column_rows (colf, colc, src, R, y + r, c, hlo, hhi, 1);
  if (y - r - 1 >= R->y0)
    column_rows (colf, colc, src, R, y - r - 1, c, hlo, hhi, -1);
}

/* The head of output row y of a strip of channel c whose column histograms columns_start()
 * set up for row ya: brings them to row y's window and returns the window's height in rows;
 * *out is channel c of the region's first column in dst's row y. */
static inline guint32
strip_row_begin (guint16 *restrict colf, guint16 *restrict colc, const LbKernelBuf *src,
                 LbKernelBuf *dst, const LbXvRegion *R, int ya, int y, int r, int c, int hlo,
                 int hhi, guint8 **out)
{
  if (y > ya)
    columns_next_row (colf, colc, src, R, y, r, c, hlo, hhi);
  *out = lb_xv_row_mut (dst, y) + (gsize) R->x0 * src->channels + c;
  return (guint32) (MIN (R->y1 - 1, y + r) - MAX (R->y0, y - r) + 1);
}

static void
despeckle_fast_rows_8 (const LbXvDespeckle *self,
                       const LbKernelBuf   *src,
                       LbKernelBuf         *dst,
                       int                  ya,
                       int                  yb)
{
  const LbXvRegion *R = &self->region;
  const int r = self->size / 2;
  const int ch = src->channels;
  const int nc = lb_xv_colour_channels (ch);
  const int rw = R->x1 - R->x0;
  const int maxcols = MIN (rw, STRIP_COLUMNS + 2 * r);
  g_autofree guint16 *colf = g_new (guint16, (gsize) maxcols * 256);
  g_autofree guint16 *colc = g_new (guint16, (gsize) maxcols * 16);
  g_autofree Perreault *p = g_new0 (Perreault, 1);

  p->colf = colf;
  p->colc = colc;

  for (int c = 0; c < nc; c++)
    for (int ja = 0; ja < rw; ja += STRIP_COLUMNS)
      {
        const int jb = MIN (rw, ja + STRIP_COLUMNS);
        /* Histogram columns [hlo, hhi): the strip and its halo. */
        const int hlo = MAX (0, ja - r), hhi = MIN (rw, jb + r);

        p->off = hlo;
        columns_start (colf, colc, src, R, ya, r, c, hlo, hhi);

        for (int y = ya; y < yb; y++)
          {
            guint8 *out;
            const guint32 ny = strip_row_begin (colf, colc, src, dst, R, ya, y, r, c, hlo, hhi,
                                                &out);

            /* A new row: column histograms changed, so every fine window bin is stale. */
            memset (p->wc, 0, sizeof p->wc);
            for (int b = 0; b < 16; b++)
              p->blo[b] = 1, p->bhi[b] = 0;
            for (int j = MAX (0, ja - r); j <= MIN (rw - 1, ja + r); j++)
              for (int b = 0; b < 16; b++)
                p->wc[b] += colc[(j - hlo) * 16 + b];

            for (int j = ja; j < jb; j++)
              {
                guint32 n;

                if (j > ja)
                  {
                    /* restrict: the project builds with -fno-strict-aliasing, so without it
                     * the u16 column and the u32 window could alias and stay scalar. */
                    guint32 *restrict wc = p->wc;

                    if (j + r < rw)
                      {
                        const guint16 *restrict in = colc + (gsize) (j + r - hlo) * 16;
                        for (int b = 0; b < 16; b++)
                          wc[b] += in[b];
                      }
                    if (j - r - 1 >= 0)
                      {
                        const guint16 *restrict gone = colc + (gsize) (j - r - 1 - hlo) * 16;
                        for (int b = 0; b < 16; b++)
                          wc[b] -= gone[b];
                      }
                  }
                p->lo = MAX (0, j - r);
                p->hi = MIN (rw - 1, j + r);
                n = (guint32) (p->hi - p->lo + 1) * ny;
                if (n % 2)
                  out[(gsize) j * ch] = (guint8) perreault_select (p, n / 2);
                else
                  out[(gsize) j * ch] = (guint8) ((perreault_select (p, n / 2 - 1)
                                                   + perreault_select (p, n / 2)) / 2);
              }
          }
      }
}

/* ---- 8 bits, n ≤ 255: Perreault with 16-bit counts and a branch-free search --------------
 *
 * The same algorithm as above, but every window count fits 16 bits (n² ≤ 65025), so the
 * window's coarse histogram and each bucket of its fine histogram are one 16-lane vector (a
 * column in or out is one vector add), and the k-th value is found by comparing the prefix
 * sums of 16 counts with k at once (lb_select16_u16): a scan with an early exit mispredicts a
 * branch at almost every sample, which cost more than everything else. Strips of 256 output
 * columns keep their column histograms (+ 2r halo columns, 544 bytes each) in L2. */

#define STRIP16_COLUMNS 256

typedef struct {
  const guint16 *colf; /* [col − hlo][256] */
  LbU16x16 kc;         /* window coarse histogram */
  LbU16x16 kf[16];     /* window fine histogram, bucket b valid for column last[b] */
  int last[16];
  int hlo;
  int r;
  int rw;
} Win16;

/* Brings bucket b of the window's fine histogram to the window of column j. */
static inline void
win16_bucket (Win16 *w, int b, int j)
{
  const int last = w->last[b], r = w->r;

  if (last == j)
    return;
  if (last < 0 || j - last > 2 * r + 1)
    {
      LbU16x16 acc = { 0 };

      for (int col = MAX (0, j - r); col <= MIN (w->rw - 1, j + r); col++)
        acc += lb_load_u16x16 (w->colf + (gsize) (col - w->hlo) * 256 + b * 16);
      w->kf[b] = acc;
    }
  else
    for (int xx = last + 1; xx <= j; xx++)
      {
        if (xx + r < w->rw)
          w->kf[b] += lb_load_u16x16 (w->colf + (gsize) (xx + r - w->hlo) * 256 + b * 16);
        if (xx - r - 1 >= 0)
          w->kf[b] -= lb_load_u16x16 (w->colf + (gsize) (xx - r - 1 - w->hlo) * 256 + b * 16);
      }
  w->last[b] = j;
}

/* The k-th smallest (0-based) value of the window of column j. */
static inline guint
win16_kth (Win16 *w, guint32 k, int j)
{
  guint32 cum = 0;
  const int b = lb_select16_u16 ((const guint16 *) (const void *) &w->kc, k, &cum);

  win16_bucket (w, b, j);
  return (guint) (b * 16 + lb_select16_u16 ((const guint16 *) (const void *) &w->kf[b], k - cum,
                                        &cum));
}

/* Output columns [ja, jb) (region-relative) of rows [ya, yb), channel c. */
LB_XV_CLONES static void
despeckle_strip16_8 (const LbXvDespeckle *self, const LbKernelBuf *src, LbKernelBuf *dst,
                     int ya, int yb, int c, int ja, int jb, guint16 *colf, guint16 *colc,
                     Win16 *w)
{
  const LbXvRegion *R = &self->region;
  const int r = self->size / 2;
  const int ch = src->channels;
  const int rw = R->x1 - R->x0;
  /* Histogram columns [hlo, hhi): the strip and its halo. */
  const int hlo = MAX (0, ja - r), hhi = MIN (rw, jb + r);

  w->colf = colf;
  w->hlo = hlo;
  w->r = r;
  w->rw = rw;
  columns_start (colf, colc, src, R, ya, r, c, hlo, hhi);

  for (int y = ya; y < yb; y++)
    {
      guint8 *out;
      const guint32 ny = strip_row_begin (colf, colc, src, dst, R, ya, y, r, c, hlo, hhi, &out);

      /* A new row: the column histograms changed, so every fine window bucket is stale. */
      w->kc = (LbU16x16) { 0 };
      for (int b = 0; b < 16; b++)
        w->last[b] = -1;
      for (int j = hlo; j <= MIN (hhi - 1, ja + r - 1); j++)
        w->kc += lb_load_u16x16 (colc + (gsize) (j - hlo) * 16);

      for (int j = ja; j < jb; j++)
        {
          guint32 n;

          if (j + r < hhi)
            w->kc += lb_load_u16x16 (colc + (gsize) (j + r - hlo) * 16);
          if (j - r - 1 >= hlo)
            w->kc -= lb_load_u16x16 (colc + (gsize) (j - r - 1 - hlo) * 16);
          n = (guint32) (MIN (rw - 1, j + r) - MAX (0, j - r) + 1) * ny;
          if (n % 2)
            out[(gsize) j * ch] = (guint8) win16_kth (w, n / 2, j);
          else
            out[(gsize) j * ch] = (guint8) ((win16_kth (w, n / 2 - 1, j)
                                             + win16_kth (w, n / 2, j)) / 2);
        }
    }
}

static void
despeckle_fast16_rows_8 (const LbXvDespeckle *self,
                         const LbKernelBuf   *src,
                         LbKernelBuf         *dst,
                         int                  ya,
                         int                  yb)
{
  const LbXvRegion *R = &self->region;
  const int r = self->size / 2;
  const int nc = lb_xv_colour_channels (src->channels);
  const int rw = R->x1 - R->x0;
  const int maxcols = MIN (rw, STRIP16_COLUMNS + 2 * r);
  g_autofree guint16 *colf = g_new (guint16, (gsize) maxcols * 256);
  g_autofree guint16 *colc = g_new (guint16, (gsize) maxcols * 16);
  Win16 w; /* on the stack: the compiler aligns its 32-byte vectors */

  for (int c = 0; c < nc; c++)
    for (int ja = 0; ja < rw; ja += STRIP16_COLUMNS)
      despeckle_strip16_8 (self, src, dst, ya, yb, c, ja, MIN (rw, ja + STRIP16_COLUMNS), colf,
                           colc, &w);
}

/* ---- n = 3 and 5: median networks on whole rows (lb-median-net.h, shared with the enhance
 * median), for the interior rows; the columns next to the region's edges by median_direct. */

/* The clipped-window median of one sample (r ≤ 2), for the columns next to the region's edges. */
LB_XV_INLINE guint
median_direct (const LbKernelBuf *src, const LbXvRegion *R, int x, int y, int c, int r,
               const int depth)
{
  guint v[25] = { 0 };
  int n = 0;

  for (int yy = MAX (R->y0, y - r); yy <= MIN (R->y1 - 1, y + r); yy++)
    for (int xx = MAX (R->x0, x - r); xx <= MIN (R->x1 - 1, x + r); xx++)
      {
        const guint s = lb_xv_get (lb_xv_row (src, yy), (gsize) xx * src->channels + c, depth);
        int k = n++;

        /* Insertion sort: at most 9 values. */
        while (k > 0 && v[k - 1] > s)
          {
            v[k] = v[k - 1];
            k--;
          }
        v[k] = s;
      }
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

LB_XV_INLINE void
despeckle3_rows (const LbXvDespeckle *self,
                 const LbKernelBuf   *src,
                 LbKernelBuf         *dst,
                 int                  ya,
                 int                  yb,
                 const int            depth)
{
  const LbXvRegion *R = &self->region;
  const int ch = src->channels;
  const int nc = lb_xv_colour_channels (ch);
  const int rw = R->x1 - R->x0;
  const gsize bytes = (gsize) (depth / 8);
  /* the first interior column's window starts at the region's first column */
  const gsize off = (gsize) R->x0 * ch * bytes;
  const gsize n = (gsize) (rw - 2) * ch;

  for (int y = ya; y < yb; y++)
    {
      guint8 *out = lb_xv_row_mut (dst, y) + off;

      /* every sample, alpha too (contiguous loops), alpha put back below */
      if (depth == 8)
        lb_median_net9_u8 (lb_xv_row (src, y - 1) + off, lb_xv_row (src, y) + off,
                           lb_xv_row (src, y + 1) + off, out + ch, n, ch);
      else
        lb_median_net9_u16 ((const guint16 *) (const void *) (lb_xv_row (src, y - 1) + off),
                            (const guint16 *) (const void *) (lb_xv_row (src, y) + off),
                            (const guint16 *) (const void *) (lb_xv_row (src, y + 1) + off),
                            (guint16 *) (void *) out + ch, n, ch);
      for (int c = 0; c < nc; c++)
        {
          lb_xv_put (out, c, median_direct (src, R, R->x0, y, c, 1, depth), depth);
          lb_xv_put (out, (gsize) (rw - 1) * ch + c,
                     median_direct (src, R, R->x1 - 1, y, c, 1, depth), depth);
        }
      if (nc != ch)
        lb_kernel_restore_alpha (src, dst, y, R->x0 + 1, R->x1 - 1);
    }
}

LB_XV_INLINE void
despeckle5_rows (const LbXvDespeckle *self,
                 const LbKernelBuf   *src,
                 LbKernelBuf         *dst,
                 int                  ya,
                 int                  yb,
                 const int            depth)
{
  const LbXvRegion *R = &self->region;
  const int ch = src->channels;
  const int nc = lb_xv_colour_channels (ch);
  const int rw = R->x1 - R->x0;
  const gsize bytes = (gsize) (depth / 8);
  const gsize off = (gsize) R->x0 * ch * bytes;
  const gsize n = (gsize) (rw - 4) * ch;

  for (int y = ya; y < yb; y++)
    {
      guint8 *out = lb_xv_row_mut (dst, y) + off;

      /* every sample, alpha too, put back below */
      if (depth == 8)
        lb_median_net25_u8 (lb_xv_row (src, y - 2) + off, lb_xv_row (src, y - 1) + off,
                            lb_xv_row (src, y) + off, lb_xv_row (src, y + 1) + off,
                            lb_xv_row (src, y + 2) + off, out + 2 * ch, n, ch);
      else
        {
#define ROW16(dy) ((const guint16 *) (const void *) (lb_xv_row (src, y + (dy)) + off))
          lb_median_net25_u16 (ROW16 (-2), ROW16 (-1), ROW16 (0), ROW16 (1), ROW16 (2),
                               (guint16 *) (void *) out + 2 * ch, n, ch);
#undef ROW16
        }
      for (int c = 0; c < nc; c++)
        for (int j = 0; j < rw; j++)
          {
            if (j == 2 && rw - 2 > 2)
              j = rw - 2;
            lb_xv_put (out, (gsize) j * ch + c,
                       median_direct (src, R, R->x0 + j, y, c, 2, depth), depth);
          }
      if (nc != ch)
        lb_kernel_restore_alpha (src, dst, y, R->x0 + 2, R->x1 - 2);
    }
}

static void
despeckle_hist_rows (const LbXvDespeckle *self,
                     const LbKernelBuf   *src,
                     LbKernelBuf         *dst,
                     int                  y0,
                     int                  y1)
{
  if (src->depth == 8 && self->size <= 255)
    despeckle_fast16_rows_8 (self, src, dst, y0, y1);
  else if (src->depth == 8)
    despeckle_fast_rows_8 (self, src, dst, y0, y1);
  else
    {
      const LbXvRegion *R = &self->region;
      const LbMedian16Job job = {
        src->data, dst->data, src->stride, dst->stride, src->channels, 0,
        R->x0, R->x1, R->y0, R->y1, self->size / 2,
      };

      lb_median16_rows (&job, lb_xv_colour_channels (src->channels), y0, y1);
    }
}

void
lb_xv_despeckle_process (const LbXvDespeckle *self,
                         const LbKernelBuf   *src,
                         LbKernelBuf         *dst,
                         int                  y0,
                         int                  y1)
{
  const LbXvRegion *R;

  g_return_if_fail (self != NULL && _lb_xv_same_geometry (src, dst));

  R = &self->region;
  y0 = MAX (y0, R->y0);
  y1 = MIN (y1, R->y1);
  if (y0 >= y1 || self->size == 1)
    return;
  if ((self->size == 3 || self->size == 5) && R->x1 - R->x0 >= self->size
      && R->y1 - R->y0 >= self->size)
    {
      /* The network for rows whose window is not clipped; the e rows at each end of the
       * region (clipped windows) go through the histogram path. */
      const int e = self->size / 2;
      const int ia = MAX (y0, R->y0 + e), ib = MIN (y1, R->y1 - e);

      /* the networks inlined here with a constant depth: through a helper function the
       * n = 5 pass ran ~15 % slower (2 threads, 1.4 Mpx RGB8, same run) */
      if (ia < ib && self->size == 3 && src->depth == 8)
        despeckle3_rows (self, src, dst, ia, ib, 8);
      else if (ia < ib && self->size == 3)
        despeckle3_rows (self, src, dst, ia, ib, 16);
      else if (ia < ib && src->depth == 8)
        despeckle5_rows (self, src, dst, ia, ib, 8);
      else if (ia < ib)
        despeckle5_rows (self, src, dst, ia, ib, 16);
      if (y0 < R->y0 + e)
        despeckle_hist_rows (self, src, dst, y0, MIN (y1, R->y0 + e));
      if (y1 > R->y1 - e)
        despeckle_hist_rows (self, src, dst, MAX (y0, R->y1 - e), y1);
      return;
    }
  despeckle_hist_rows (self, src, dst, y0, y1);
}
