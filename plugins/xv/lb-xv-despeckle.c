/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-despeckle"

#include "lb-xv-despeckle.h"

#include <stdlib.h>
#include <string.h>

#include "lb-error.h"

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
        fine_add (w, p->colf + (gsize) j * 256 + b * 16);
    }
  else
    {
      /* Windows only move right: add the new columns, drop the old ones. */
      for (int j = p->bhi[b] + 1; j <= p->hi; j++)
        fine_add (w, p->colf + (gsize) j * 256 + b * 16);
      for (int j = p->blo[b]; j < p->lo; j++)
        fine_sub (w, p->colf + (gsize) j * 256 + b * 16);
    }
  p->blo[b] = p->lo;
  p->bhi[b] = p->hi;

  while (acc + w[i] <= k)
    acc += w[i++];
  return (guint) (b * 16 + i);
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
  g_autofree guint16 *colf = g_new (guint16, (gsize) rw * 256);
  g_autofree guint16 *colc = g_new (guint16, (gsize) rw * 16);
  g_autofree Perreault *p = g_new0 (Perreault, 1);

  p->colf = colf;
  p->colc = colc;

  for (int c = 0; c < nc; c++)
    {
      memset (colf, 0, sizeof (guint16) * rw * 256);
      memset (colc, 0, sizeof (guint16) * rw * 16);
      for (int yy = MAX (R->y0, ya - r); yy <= MIN (R->y1 - 1, ya + r); yy++)
        {
          const guint8 *row = lb_xv_row (src, yy) + (gsize) R->x0 * ch + c;

          for (int j = 0; j < rw; j++)
            {
              const guint v = row[(gsize) j * ch];
              colf[j * 256 + v]++;
              colc[j * 16 + (v >> 4)]++;
            }
        }

      for (int y = ya; y < yb; y++)
        {
          const guint32 ny = (guint32) (MIN (R->y1 - 1, y + r) - MAX (R->y0, y - r) + 1);
          guint8 *out = lb_xv_row_mut (dst, y) + (gsize) R->x0 * ch + c;

          if (y > ya)
            {
              if (y + r <= R->y1 - 1)
                {
                  const guint8 *row = lb_xv_row (src, y + r) + (gsize) R->x0 * ch + c;

                  for (int j = 0; j < rw; j++)
                    {
                      const guint v = row[(gsize) j * ch];
                      colf[j * 256 + v]++;
                      colc[j * 16 + (v >> 4)]++;
                    }
                }
              if (y - r - 1 >= R->y0)
                {
                  const guint8 *row = lb_xv_row (src, y - r - 1) + (gsize) R->x0 * ch + c;

                  for (int j = 0; j < rw; j++)
                    {
                      const guint v = row[(gsize) j * ch];
                      colf[j * 256 + v]--;
                      colc[j * 16 + (v >> 4)]--;
                    }
                }
            }

          /* A new row: column histograms changed, so every fine window bin is stale. */
          memset (p->wc, 0, sizeof p->wc);
          for (int b = 0; b < 16; b++)
            p->blo[b] = 1, p->bhi[b] = 0;
          for (int j = 0; j <= MIN (rw - 1, r); j++)
            for (int b = 0; b < 16; b++)
              p->wc[b] += colc[j * 16 + b];

          for (int j = 0; j < rw; j++)
            {
              guint32 n;

              if (j > 0)
                {
                  if (j + r < rw)
                    for (int b = 0; b < 16; b++)
                      p->wc[b] += colc[(j + r) * 16 + b];
                  if (j - r - 1 >= 0)
                    for (int b = 0; b < 16; b++)
                      p->wc[b] -= colc[(j - r - 1) * 16 + b];
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

/* ---- 16 bits: Huang on a four-level histogram ------------------------------------------ */

typedef struct {
  guint32 l0[16];
  guint32 l1[256];
  guint32 l2[4096];
  guint32 l3[65536];
} Hist16;

static inline void
hist16_add (Hist16 *h, guint v, guint32 d)
{
  h->l0[v >> 12] += d;
  h->l1[v >> 8] += d;
  h->l2[v >> 4] += d;
  h->l3[v] += d;
}

static guint
hist16_select (const Hist16 *h, guint32 k)
{
  guint32 acc = 0;
  guint i = 0;

  while (acc + h->l0[i] <= k)
    acc += h->l0[i++];
  i <<= 4;
  while (acc + h->l1[i] <= k)
    acc += h->l1[i++];
  i <<= 4;
  while (acc + h->l2[i] <= k)
    acc += h->l2[i++];
  i <<= 4;
  while (acc + h->l3[i] <= k)
    acc += h->l3[i++];
  return i;
}

static void
despeckle_fast_rows_16 (const LbXvDespeckle *self,
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
  g_autofree Hist16 *h = g_new0 (Hist16, 1);

  for (int c = 0; c < nc; c++)
    for (int y = ya; y < yb; y++)
      {
        const int wy0 = MAX (R->y0, y - r), wy1 = MIN (R->y1 - 1, y + r);
        const guint32 ny = (guint32) (wy1 - wy0 + 1);
        guint16 *out = (guint16 *) (void *) lb_xv_row_mut (dst, y) + (gsize) R->x0 * ch + c;
        const guint16 *rows0 = (const guint16 *) (const void *) lb_xv_row (src, wy0)
                               + (gsize) R->x0 * ch + c;
        const gsize rstride = src->stride / 2;

        /* Column j of the window rows: samples rows0[k * rstride + j * ch], k < ny. */
#define COLUMN(j, d)                                                                 \
        for (guint32 k = 0; k < ny; k++)                                             \
          hist16_add (h, rows0[(gsize) k * rstride + (gsize) (j) * ch], (guint32) (d))

        for (int j = 0; j <= MIN (rw - 1, r); j++)
          COLUMN (j, 1);
        for (int j = 0; j < rw; j++)
          {
            guint32 n;
            const int lo = MAX (0, j - r), hi = MIN (rw - 1, j + r);

            if (j > 0)
              {
                if (j + r < rw)
                  COLUMN (j + r, 1);
                if (j - r - 1 >= 0)
                  COLUMN (j - r - 1, -1);
              }
            n = (guint32) (hi - lo + 1) * ny;
            if (n % 2)
              out[(gsize) j * ch] = (guint16) hist16_select (h, n / 2);
            else
              out[(gsize) j * ch] = (guint16) ((hist16_select (h, n / 2 - 1)
                                                + hist16_select (h, n / 2)) / 2);
          }
        /* Leave the histogram empty for the next row. */
        for (int j = MAX (0, rw - 1 - r); j < rw; j++)
          COLUMN (j, -1);
#undef COLUMN
      }
}

void
lb_xv_despeckle_process (const LbXvDespeckle *self,
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
    despeckle_fast_rows_8 (self, src, dst, y0, y1);
  else
    despeckle_fast_rows_16 (self, src, dst, y0, y1);
}
