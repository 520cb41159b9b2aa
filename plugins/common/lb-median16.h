/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* The 16-bit histogram medians of lb-median-hist.h (included there, after the helpers and the
 * job they use): the four tiers (lb-median16-tiers.h), Huang's sliding window
 * (lb-median-huang16-body.h), the rank path (lb-median16-ranks.h), and lb_median16_rows,
 * which picks one per band and channel. */

static inline const guint16 *
lb_m16_row (const LbMedianJob *j, int y)
{
  return (const guint16 *) (const void *) (j->src + (gsize) y * j->sstride) + j->c;
}

#include "lb-median16-tiers.h"

/* ---- r < 48 or r > 127: Huang's sliding window (lb-median-huang16-body.h) ---------------- */

#define HCT guint16
#define HUANG(name) lb_h16k16_##name
#define HUANG_SIMD_SELECT 1
#include "lb-median-huang16-body.h"
#define HCT guint32
#define HUANG(name) lb_h16k32_##name
#define HUANG_SIMD_SELECT 0
#include "lb-median-huang16-body.h"

#include "lb-median16-ranks.h"

/* Output columns per strip of the four-tier median: the strip's column histograms plus the
 * 2r halo columns, ~68 KiB each (about 6 MiB at r = 15); wider strips for large r keep the
 * halo's share of the column updates below ½. */
#define LB_M16_STRIP 64

/* Huang's rows are independent of one another (each starts from an empty histogram), so
 * they run in chunks with a progress tick between: 12 rows, whole groups of 4, 3 or 2 rows
 * (lb-median-huang16-body.h). By the measurements at LB_M16_MIN_RADIUS (r 40, 590 ms for 1000
 * rows of 1400 samples) a chunk of 8000-sample rows near r 47 takes about 40 ms. */
#define LB_HUANG_CHUNK 12

/* Rows [ya, yb) of the region, channels 0 … nc − 1 of @job (its c is ignored). */
static G_GNUC_UNUSED void
lb_median16_rows (const LbMedianJob *job, int nc, int ya, int yb)
{
  LbMedianJob j = *job;
  const int rw = j.x1 - j.x0;
  guint done = 0; /* channels the rank path did */
  gboolean stop = FALSE;

  /* bands of a row or two (despeckle 3 and 5's clipped rows) stay with Huang: the rank
   * path's set-up (counting, clearing (strip + 2r) · 4640 bytes) cost more than they do
   * (despeckle 3 on gray16, 2 threads: 0.31 → 0.47 ms) */
  if (j.r <= LB_M16_MAX_RADIUS && !j.no_ranks && yb - ya >= LB_M12_MIN_ROWS)
    {
      /* the rows the strips read: ya − r − 1 enters the first window's set-up and leaves */
      const int ra = MAX (j.y0, ya - j.r - 1), rb = MIN (j.y1 - 1, yb - 1 + j.r);
      const int strip = lb_m12_strip_width (rw, j.r);
      const gboolean scratch = j.scratch != NULL
                               && j.scratch_size >= lb_median16_scratch_size (rw, j.r);
      LbM12 *m = NULL;
      guint64 *bits;
      guint16 *lut, *val;

      if (scratch)
        {
          /* the column store cleared by the first strip (the scratch's content is
           * undefined); per call, fresh zero pages of g_malloc0, of which a band touches
           * only those of the values it holds, but every band maps them again: a 360×360 MR
           * image, median 3, one lightbox-cli pass, 2 threads: 1 037 more page faults than
           * Huang, 4.4–5.9 ms against 2.8–4.7 */
          m = j.scratch;
          bits = (guint64 *) (void *) ((guint8 *) j.scratch + LB_M12_HEAD_M);
          lut = (guint16 *) (void *) (bits + 1024);
          val = lut + 65536;
          m->col = (guint8 *) (val + LB_M12_MAX_VALUES);
          m->ncols = (gsize) lb_m12_ncols (rw, j.r);
          m->dirty = TRUE;
        }
      else
        {
          bits = g_new (guint64, 1024);
          lut = g_new (guint16, 65536);
          val = g_new (guint16, LB_M12_MAX_VALUES);
        }
      for (j.c = 0; j.c < nc && !stop; j.c++)
        {
          if (lb_m12_ranks (&j, ra, rb, bits, lut, val) == 0)
            continue;
          if (m == NULL)
            {
              m = g_aligned_alloc0 (1, sizeof (LbM12), 64);
              m->ncols = (gsize) lb_m12_ncols (rw, j.r);
              m->col = g_malloc0 (m->ncols * LB_M12_COL_BYTES);
            }
          for (int xs0 = j.x0; xs0 < j.x1 && !stop; xs0 += strip)
            {
              lb_m12_strip (&j, m, lut, val, ya, yb, xs0, MIN (j.x1, xs0 + strip));
              stop = !lb_median_tick (&j, nc, xs0 + strip - j.x0, rw);
            }
          done |= 1u << j.c;
        }
      if (!scratch)
        {
          if (m != NULL)
            {
              g_free (m->col);
              g_aligned_free (m);
            }
          g_free (bits);
          g_free (lut);
          g_free (val);
        }
      if (done == (1u << nc) - 1 || stop)
        return;
    }
  if (j.r < LB_M16_MIN_RADIUS || j.r > LB_M16_MAX_RADIUS)
    {
      /* all counts zero, pb = 0 with nothing below it */
      if (j.r <= LB_M16_MAX_RADIUS)
        {
          lb_h16k16_Hist *h = g_new0 (lb_h16k16_Hist, 1);

          for (j.c = 0; j.c < nc && !stop; j.c++)
            if (!(done & (1u << j.c)))
              for (int y = ya; y < yb && !stop; y += LB_HUANG_CHUNK)
                {
                  lb_h16k16_rows (&j, h, y, MIN (yb, y + LB_HUANG_CHUNK));
                  stop = !lb_median_tick (&j, nc, y + LB_HUANG_CHUNK - ya, yb - ya);
                }
          g_free (h);
        }
      else
        {
          lb_h16k32_Hist *h = g_new0 (lb_h16k32_Hist, 1);

          for (j.c = 0; j.c < nc && !stop; j.c++)
            for (int y = ya; y < yb && !stop; y += LB_HUANG_CHUNK)
              {
                lb_h16k32_rows (&j, h, y, MIN (yb, y + LB_HUANG_CHUNK));
                stop = !lb_median_tick (&j, nc, y + LB_HUANG_CHUNK - ya, yb - ya);
              }
          g_free (h);
        }
    }
  else
    {
      const int strip = MIN (rw, MAX (LB_M16_STRIP, 2 * j.r));
      const gsize ncols = (gsize) MIN (rw, strip + 2 * j.r);
      LbM16 *m = g_aligned_alloc0 (1, sizeof (LbM16), 64);

      /* zeroed once (fresh pages for a large block); each strip leaves it empty again */
      m->col = g_malloc0 (ncols * LB_M16_COL_BYTES);
      m->ncols = ncols;
      m->pos = 0;
      for (j.c = 0; j.c < nc && !stop; j.c++)
        if (!(done & (1u << j.c)))
          for (int xs0 = j.x0; xs0 < j.x1 && !stop; xs0 += strip)
            {
              lb_m16_strip (&j, m, ya, yb, xs0, MIN (j.x1, xs0 + strip));
              stop = !lb_median_tick (&j, nc, xs0 + strip - j.x0, rw);
            }
      g_free (m->col);
      g_aligned_free (m);
    }
}
