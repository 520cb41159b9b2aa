/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-xv-radius"

/* The 16-bit medians (median and despeckle) on the paths that sweeps over the radius do not
 * reach: the rank path (at most 4096 distinct values in a band) at its limits, and Huang's
 * histogram in groups of rows, against the reference. */

#include <string.h>

#include "test-xv-radius.h"

/* The 16-bit rank path (lb-median-hist.h) takes a band's channel when the samples it reads
 * (its rows and the window's halo) hold at most 4096 distinct values. Values spread over the
 * whole 16-bit range, so that a rank is not its value:
 *  - exactly 4096 distinct values (the most the path takes) and 4097 (one band: the other
 *    paths; smaller bands: the rank path), shuffled;
 *  - RGB16 whose channels differ: 8 values; 4096; the top half from 300 values and the bottom
 *    half uniform noise (bands on both sides of the limit);
 *  - a 300-row image at r = 127, whose column prefixes (u8) reach 255;
 *  - images wider than one strip, so that strips start and end inside them;
 * median and despeckle (radii 3 and 15; 127: median), with and without a selection, one band,
 * one row per band and random bands, against the reference; each also through the plugins'
 * scratch memory (garbage on entry, reused by the bands) and with a scratch one byte too
 * small. */
static LbKernelBuf *
fill_ranks_image (GRand *rand, const guint16 *sparse, int w, int h, int channels, int kind)
{
  const int npx = w * h;
  g_autofree int *perm = g_new (int, npx);
  LbKernelBuf *buf = kb_new_padded (w, h, channels, 16, g_rand_int_range (rand, 0, 4));

  for (int i = 0; i < npx; i++)
    perm[i] = i;
  for (int i = npx - 1; i > 0; i--)
    {
      const int k = g_rand_int_range (rand, 0, i + 1), t = perm[i];

      perm[i] = perm[k], perm[k] = t;
    }
  for (int i = 0; i < npx; i++)
    {
      const int x = perm[i] % w, y = perm[i] / w;

      for (int c = 0; c < channels; c++)
        {
          guint v;

          if (kind == 0 || kind == 1)
            v = sparse[(i + 1000 * c) % (4096 + kind)];
          else if (c == 0)
            v = sparse[g_rand_int_range (rand, 0, 8) * 500];
          else if (c == 1)
            v = sparse[i % 4096];
          else if (y < h / 2)
            v = sparse[g_rand_int_range (rand, 0, 300) * 13];
          else
            v = (guint) g_rand_int_range (rand, 0, 65536);
          kb_set (buf, x, y, c, (int) v);
        }
    }
  return buf;
}

void
test_median16_ranks (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (4096);
  static const struct { FilterId id; int param, w, h, kind; } cases[] = {
    { F_MEDIAN, 3, 80, 60, 0 },      { F_MEDIAN, 3, 80, 60, 1 },
    { F_MEDIAN, 15, 80, 60, 0 },     { F_MEDIAN, 15, 80, 60, 1 },
    { F_DESPECKLE, 7, 80, 60, 0 },   { F_DESPECKLE, 31, 80, 60, 1 },
    { F_MEDIAN, 3, 150, 48, 2 },     { F_DESPECKLE, 31, 150, 48, 2 },
    { F_MEDIAN, 127, 16, 300, 0 },
    /* wider than a strip (256 output columns, 6r from r = 43) plus the halo */
    { F_MEDIAN, 15, 300, 40, 0 },    { F_MEDIAN, 60, 400, 12, 2 },
  };
  guint16 sparse[4097];
  int cuts[MAX_CUTS];

  /* 4097 increasing values over 0 … 65535, one in each run of 15 */
  for (int i = 0; i < 4097; i++)
    sparse[i] = (guint16) (i * 15 + g_rand_int_range (rand, 0, 15));
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    for (int sel = 0; sel <= 1; sel++)
      {
        Job job = { cases[i].id, cases[i].param, { { { 0 } } }, NULL };
        LbKernelBuf *src = NULL;
        int ncuts;

        src = fill_ranks_image (rand, sparse, cases[i].w, cases[i].h, cases[i].kind == 2 ? 3 : 1,
                                cases[i].kind);
        ncuts = prepare_inset (rand, &job, src, sel, cuts);
        compare_one_band_and_rows (&job, src, cuts, ncuts);
        /* with the selection, again through the plugins' scratch, filled with garbage, and
         * one byte too small (ignored: the path allocates its own) */
        for (int k = 0; sel && k < 2; k++)
          {
            const gsize size = job.id == F_MEDIAN
                                 ? lb_median_scratch_size (job.median)
                                 : lb_xv_despeckle_scratch_size (&job.st.despeckle);

            g_assert_cmpuint (size, >, 0);
            job.scratch = g_aligned_alloc (1, size, 64);
            job.scratch_size = size - (gsize) k;
            memset (job.scratch, 0xa5, size);
            compare_one_band_and_rows (&job, src, cuts, ncuts);
            g_aligned_free (job.scratch);
            job.scratch = NULL, job.scratch_size = 0;
          }
        if (job.median != NULL)
          lb_median_free (job.median);
        g_clear_pointer (&src, kb_free);
      }
}

/* Huang's 16-bit histogram runs up to four rows at a time (lb-median-huang16-body.h: one
 * histogram of the rows all their windows hold, and per window the rows only it has) wherever
 * a band has two rows left; three at a time from r = 43. Images with more than 4096 values
 * (so that the rank path never takes them): uniform noise over 0 … 65535, where the medians
 * of neighbouring rows fall in different high-byte bins, and a steep vertical ramp with
 * noise, where they move by a few bins from one row to the next; median and despeckle at
 * radii 3 to 45 (the four tiers from 48), heights that leave groups of 1 to 4 rows, and
 * blocks of equal rows at the deltas' limit, with and without a selection; one band, one row
 * per band (no groups) and random bands of 1 to 8 rows, against the reference. */
static guint
huang_groups_sample (GRand *rand, int kind, int y)
{
  if (kind == 0)
    return (guint) g_rand_int_range (rand, 0, 65536);
  if (kind == 1)
    return (guint) (y * 600 + g_rand_int_range (rand, 0, 3000)) % 65536;
  if (g_rand_int_range (rand, 0, 50) == 0)
    return (guint) g_rand_int_range (rand, 0, 65536);
  return y % 8 < 4 ? 1000 : 60000;
}

void
test_median16_huang_groups (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (2);
  static const struct { FilterId id; int param, w, h, kind; } cases[] = {
    { F_MEDIAN, 3, 90, 70, 0 },    { F_MEDIAN, 3, 90, 71, 1 },  { F_DESPECKLE, 11, 80, 64, 0 },
    { F_MEDIAN, 15, 70, 67, 1 },   { F_DESPECKLE, 31, 75, 60, 0 },
    { F_MEDIAN, 40, 60, 97, 1 },   { F_MEDIAN, 45, 50, 98, 0 },
    /* blocks of four rows of one value and four of another, a few pixels of noise, without
     * the rank path: at r 42 (four rows at a time) a window's three delta rows hold up to
     * 3 · 85 = 255 equal samples, the most their u8 counts take; at r 43 (three rows) 2 · 87,
     * where four rows would wrap 261 to 5 and move the median to the other value */
    { F_MEDIAN, 42, 100, 60, 2 },  { F_MEDIAN, 43, 100, 60, 2 },
  };
  int cuts[MAX_CUTS];

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    for (int sel = 0; sel <= 1; sel++)
      {
        Job job = { cases[i].id, cases[i].param, { { { 0 } } }, NULL };
        LbKernelBuf *src = NULL;
        int ncuts;

        src = kb_new_padded (cases[i].w, cases[i].h, 1, 16, g_rand_int_range (rand, 0, 4));
        for (int y = 0; y < cases[i].h; y++)
          for (int x = 0; x < cases[i].w; x++)
            kb_set (src, x, y, 0, huang_groups_sample (rand, cases[i].kind, y));
        ncuts = prepare_inset (rand, &job, src, sel, cuts);
        if (cases[i].kind == 2)
          _lb_median_set_no_ranks (job.median, TRUE);
        compare_one_band_and_rows (&job, src, cuts, ncuts);
        if (job.median != NULL)
          lb_median_free (job.median);
        g_clear_pointer (&src, kb_free);
      }
}
