/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-despeckle"

#include "lb-xv-despeckle.h"

#include <stdlib.h>
#include <string.h>

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
      g_set_error (error, LB_KERNEL_ERROR, LB_KERNEL_ERROR_INVALID_ARGUMENT,
                   "despeckle: the mask size must be odd and between 1 and 65535, not %d", size);
      return FALSE;
    }
  if (!_lb_xv_region_init (&self->region, src, selection, "despeckle", error))
    return FALSE;
  self->size = size;
  self->depth = src->depth;
  self->no_ranks = FALSE;
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

  /* a 1×1 window is the identity: the destination already holds the source */
  if (self->size == 1)
    return;

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

LB_XV_DEFINE_PROCESS (lb_xv_despeckle_process_ref, LbXvDespeckle, despeckle_ref_rows)

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

/* The rows whose (2 @r + 1)-row window is not clipped, @r = 1 or 2 (a constant at each call):
 * the median network on the interior columns, median_direct on the @r columns at each edge. */
LB_XV_INLINE void
despeckle_net_rows (const LbXvDespeckle *self,
                    const LbKernelBuf   *src,
                    LbKernelBuf         *dst,
                    int                  ya,
                    int                  yb,
                    const int            depth,
                    const int            r)
{
  const LbXvRegion *R = &self->region;
  const int ch = src->channels;
  const int nc = lb_xv_colour_channels (ch);
  const int rw = R->x1 - R->x0;
  const gsize bytes = (gsize) (depth / 8);
  /* the first interior column's window starts at the region's first column */
  const gsize off = (gsize) R->x0 * ch * bytes;
  const gsize n = (gsize) (rw - 2 * r) * ch;

  for (int y = ya; y < yb; y++)
    {
      guint8 *out = lb_xv_row_mut (dst, y) + off;

#define ROW16(dy) ((const guint16 *) (const void *) (lb_xv_row (src, y + (dy)) + off))
      /* every sample, alpha too (contiguous loops), alpha put back below */
      if (r == 1 && depth == 8)
        lb_median_net9_u8 (lb_xv_row (src, y - 1) + off, lb_xv_row (src, y) + off,
                           lb_xv_row (src, y + 1) + off, out + ch, n, ch);
      else if (r == 1)
        lb_median_net9_u16 (ROW16 (-1), ROW16 (0), ROW16 (1), (guint16 *) (void *) out + ch, n,
                            ch);
      else if (depth == 8)
        lb_median_net25_u8 (lb_xv_row (src, y - 2) + off, lb_xv_row (src, y - 1) + off,
                            lb_xv_row (src, y) + off, lb_xv_row (src, y + 1) + off,
                            lb_xv_row (src, y + 2) + off, out + 2 * ch, n, ch);
      else
        lb_median_net25_u16 (ROW16 (-2), ROW16 (-1), ROW16 (0), ROW16 (1), ROW16 (2),
                             (guint16 *) (void *) out + 2 * ch, n, ch);
#undef ROW16
      /* columns 0 … r − 1 and rw − r … rw − 1 */
      for (int c = 0; c < nc; c++)
        for (int j = 0; j < rw; j++)
          {
            if (j == r && rw - r > r)
              j = rw - r;
            lb_xv_put (out, (gsize) j * ch + c,
                       median_direct (src, R, R->x0 + j, y, c, r, depth), depth);
          }
      if (nc != ch)
        lb_kernel_restore_alpha (src, dst, y, R->x0 + r, R->x1 - r);
    }
}

/* The histogram medians shared with the enhance median (lb-median-hist.h): 8 bits,
 * Perreault's constant-time median; 16 bits, the same on ranks (at most 4096 distinct
 * values), else Huang's sliding histogram or four tiers. */
static void
despeckle_hist_rows (const LbXvDespeckle *self,
                     const LbKernelBuf   *src,
                     LbKernelBuf         *dst,
                     int                  y0,
                     int                  y1,
                     gpointer             scratch,
                     gsize                scratch_size)
{
  const LbXvRegion *R = &self->region;
  const LbMedianJob job = {
    src->data, dst->data, src->stride, dst->stride, src->channels, 0,
    R->x0, R->x1, R->y0, R->y1, self->size / 2, self->no_ranks, scratch, scratch_size,
    dst->ticker,
  };

  lb_median_rows (&job, src->depth, lb_xv_colour_channels (src->channels), y0, y1);
}

gsize
lb_xv_despeckle_scratch_size (const LbXvDespeckle *self)
{
  /* n = 3 and 5 run networks, and their clipped rows are too few for the rank path */
  return self->depth == 16 && self->size > 5
           ? lb_median16_scratch_size (self->region.x1 - self->region.x0, self->size / 2)
           : 0;
}

void
lb_xv_despeckle_process (const LbXvDespeckle *self,
                         const LbKernelBuf   *src,
                         LbKernelBuf         *dst,
                         int                  y0,
                         int                  y1)
{
  lb_xv_despeckle_process_scratch (self, src, dst, y0, y1, NULL, 0);
}

void
lb_xv_despeckle_process_scratch (const LbXvDespeckle *self,
                                 const LbKernelBuf   *src,
                                 LbKernelBuf         *dst,
                                 int                  y0,
                                 int                  y1,
                                 gpointer             scratch,
                                 gsize                scratch_size)
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
        despeckle_net_rows (self, src, dst, ia, ib, 8, 1);
      else if (ia < ib && self->size == 3)
        despeckle_net_rows (self, src, dst, ia, ib, 16, 1);
      else if (ia < ib && src->depth == 8)
        despeckle_net_rows (self, src, dst, ia, ib, 8, 2);
      else if (ia < ib)
        despeckle_net_rows (self, src, dst, ia, ib, 16, 2);
      if (y0 < R->y0 + e)
        despeckle_hist_rows (self, src, dst, y0, MIN (y1, R->y0 + e), scratch,
                             scratch_size);
      if (y1 > R->y1 - e)
        despeckle_hist_rows (self, src, dst, MAX (y0, R->y1 - e), y1, scratch,
                             scratch_size);
      return;
    }
  despeckle_hist_rows (self, src, dst, y0, y1, scratch, scratch_size);
}
