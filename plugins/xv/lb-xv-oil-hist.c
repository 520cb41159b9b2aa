/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-oil"

/* ---- constant-time path: one 8-bit colour channel ------------------------------------- */

#include "lb-xv-oil-private.h"

/* With 256 possible colours, the window's colour counts are a dense histogram (Perreault and
 * Hébert's median filter, applied to the mode): one histogram per region column over the
 * window's rows, updated by one pixel in and one out per row, and the window's histogram,
 * updated by one column histogram in and one out per pixel. 2 · 256 byte-to-16-bit adds per
 * pixel whatever the radius, plus the maximum of 256 counts. The winner is then the first
 * window pixel in raster order whose colour has the top count: the first pixel when all
 * counts are 1, else a scan of the window rows that stops at the first hit: its cost depends
 * on where that pixel is, which grows with the window on gradients (31×31 costs 2–4× 3×3
 * on the test card, most of it this scan), but the counting itself does not. */
#define PH_BINS 256

/* h += add − sub over the 256 bins (add/sub: column counts, at most 255 each); returns the
 * largest count, in the same pass. */
LB_KERNEL_CLONES static guint
ph_slide (guint16 *restrict h, const guint8 *restrict add, const guint8 *restrict sub)
{
  guint16 m = 0;

  for (int b = 0; b < PH_BINS; b++)
    {
      const guint16 v = (guint16) (h[b] + add[b] - sub[b]);

      h[b] = v;
      m = v > m ? v : m;
    }
  return m;
}

/* Numbers the colours of region rows ry0..ry1-1 in order of appearance, into a new rw-byte-
 * per-row image; NULL when there are more than 256 (it stops at the 257th, so trying costs
 * little on continuous-tone images). Keys as fill_keys (24-bit RGB or one channel), 16-bit
 * RGB as colour_key. */
guint8 *
_lb_xv_oil_hist_number (const LbKernelBuf *src, const LbXvRegion *R, int ry0, int ry1, int depth)
{
  const int rw = R->x1 - R->x0, ch = src->channels;
  const gboolean wide = depth == 16 && lb_xv_colour_channels (ch) == 3;
  /* 1024 slots for at most 256 colours: probe chains stay short. */
  guint64 key[1024];
  gint16 num[1024];
  g_autofree guint32 *k = wide ? NULL : g_new (guint32, (gsize) rw);
  g_autofree guint64 *wk = wide ? g_new (guint64, (gsize) rw) : NULL;
  g_autofree guint8 *ids = g_new (guint8, (gsize) rw * (ry1 - ry0));
  int n = 0;

  memset (num, -1, sizeof num);
  for (int yy = ry0; yy < ry1; yy++)
    {
      const guint8 *row = lb_xv_row (src, yy) + (gsize) R->x0 * ch * (depth / 8);
      guint8 *id = ids + (gsize) (yy - ry0) * rw;

      if (wide)
        for (int j = 0; j < rw; j++)
          wk[j] = colour_key (row, (gsize) j * ch, 3, 16);
      else if (depth == 8)
        fill_keys (k, row, 0, rw, ch, 8);
      else
        fill_keys (k, row, 0, rw, ch, 16);
      for (int j = 0; j < rw; j++)
        {
          const guint64 kj = wide ? wk[j] : k[j];
          guint32 i = (guint32) ((kj * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)) >> 54);

          while (num[i] >= 0 && key[i] != kj)
            i = (i + 1) & 1023;
          if (num[i] < 0)
            {
              if (n == PH_BINS)
                return NULL;
              key[i] = kj, num[i] = (gint16) n++;
            }
          id[j] = (guint8) num[i];
        }
    }
  return g_steal_pointer (&ids);
}

/* Column histograms: colh[j · 256 + v], plus one zero column at index rw (for the slide's
 * columns outside the region). */
static inline void
ph_row_update (guint8 *colh, const guint8 *row, int rw, int step, int delta)
{
  for (int j = 0; j < rw; j++)
    colh[(gsize) j * PH_BINS + row[(gsize) j * step]] += (guint8) delta;
}

void
_lb_xv_oil_hist_rows (const LbXvOil *self, const PhIds *ids, const LbKernelBuf *src,
                      LbKernelBuf *dst, int ya, int yb)
{
  const LbXvRegion *R = &self->region;
  const int rw = R->x1 - R->x0, step = ids->step;
  g_autofree guint8 *colh = g_new0 (guint8, (gsize) (rw + 1) * PH_BINS);
  const guint8 *zero = colh + (gsize) rw * PH_BINS;
  guint16 h[PH_BINS] __attribute__ ((aligned (32)));
  guint top = 0;
  int cw0 = 0, cw1 = -1; /* rows the column histograms hold */

  /* No progress ticks (lb-kernel.h) here: the cost per pixel does not grow with the window
   * (GRAY8 oil 15: about 31 ms per 1.4 Mpx, 1 thread), so a band ends soon enough for
   * Cancel, and ticks between chunks of rows, as oil_fast_rows has, cost this loop 5–10 %. */
  for (int y = ya; y < yb; y++)
    {
      const int wy0 = MAX (R->y0, y - self->up), wy1 = MIN (R->y1 - 1, y + self->down);
      guint8 *out = lb_xv_row_mut (dst, y);

      if (cw1 < wy0 || cw0 > wy0)
        {
          memset (colh, 0, (gsize) rw * PH_BINS);
          cw0 = wy0, cw1 = wy0 - 1;
        }
      for (; cw0 < wy0; cw0++)
        ph_row_update (colh, ph_row (ids, cw0), rw, step, -1);
      while (cw1 < wy1)
        ph_row_update (colh, ph_row (ids, ++cw1), rw, step, 1);

      memset (h, 0, sizeof h);
      for (int j = 0; j <= MIN (rw - 1, self->down); j++)
        top = ph_slide (h, colh + (gsize) j * PH_BINS, zero);

      for (int j = 0; j < rw; j++)
        {
          const int jx0 = MAX (0, j - self->up), jx1 = MIN (rw - 1, j + self->down);
          int bj = jx0, by = wy0;

          /* All counts 1: the first pixel. Else the first pixel whose colour has the top
           * count, one table look-up per pixel scanned. */
          for (int yy = wy0; yy <= wy1 && top > 1; yy++)
            {
              const guint8 *row = ph_row (ids, yy);
              int jj = jx0;

              while (jj <= jx1 && h[row[(gsize) jj * step]] != top)
                jj++;
              if (jj <= jx1)
                {
                  bj = jj, by = yy;
                  break;
                }
            }
          if (src->depth == 8)
            copy_colour (src, R->x0 + bj, by, out, R->x0 + j, 8);
          else
            copy_colour (src, R->x0 + bj, by, out, R->x0 + j, 16);

          if (j + 1 < rw)
            top = ph_slide (h, j + 1 + self->down < rw
                                 ? colh + (gsize) (j + 1 + self->down) * PH_BINS : zero,
                            j - self->up >= 0 ? colh + (gsize) (j - self->up) * PH_BINS : zero);
        }
    }
}
