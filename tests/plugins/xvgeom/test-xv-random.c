/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-xv-random"

#include <stdlib.h>

#include "lb-xv-random.h"

/* glibc's own srandom()/random() are the ground truth; these tests only mean something on
 * glibc (Debian), which is what xv's golden files were made with. */
static const guint32 seeds[] = { 1, 0, 2, 42, 12345, 2147483647u, 2147483648u, 4294967295u,
                                 0x9e3779b9u };

static void
test_reference_matches_libc (void)
{
  for (gsize s = 0; s < G_N_ELEMENTS (seeds); s++)
    {
      LbXvRandom rng;

      srandom (seeds[s]);
      lb_xv_random_seed (&rng, seeds[s]);
      for (int i = 0; i < 10000; i++)
        {
          guint32 want = (guint32) random ();
          guint32 got = lb_xv_random_next (&rng);

          if (want != got)
            g_error ("seed %u, output %d: libc %u, ours %u", seeds[s], i, want, got);
        }
    }
}

static void
test_batch_matches_libc (void)
{
  /* odd fill sizes cross the internal batch boundary at varied offsets */
  static const gsize sizes[] = { 1, 7, 31, 4095, 4096, 4097, 3 };

  for (gsize s = 0; s < G_N_ELEMENTS (seeds); s++)
    {
      LbXvRandomBatch *rng = g_new (LbXvRandomBatch, 1);
      guint32 *got = g_new (guint32, 20000);
      gsize n = 0;

      srandom (seeds[s]);
      lb_xv_random_batch_seed (rng, seeds[s]);
      for (gsize k = 0; n < 20000; k++)
        {
          gsize m = MIN (sizes[k % G_N_ELEMENTS (sizes)], 20000 - n);

          lb_xv_random_batch_fill (rng, got + n, m);
          n += m;
        }
      for (gsize i = 0; i < n; i++)
        {
          guint32 want = (guint32) random ();

          if (want != got[i])
            g_error ("seed %u, output %" G_GSIZE_FORMAT ": libc %u, batch %u", seeds[s], i,
                     want, got[i]);
        }
      g_free (got);
      g_free (rng);
    }
}

/* Jumping ahead gives the same outputs as drawing and discarding, for offsets around the
 * history length and the batch size and far beyond. */
static void
test_batch_seed_at (void)
{
  static const guint64 skips[] = { 0, 1, 2, 30, 31, 32, 340, 4095, 4096, 4127, 100003, 2800001 };

  for (gsize s = 0; s < G_N_ELEMENTS (seeds); s += 2)
    {
      LbXvRandomBatch *rng = g_new (LbXvRandomBatch, 1);
      guint64 drawn = 0;

      srandom (seeds[s]);
      for (gsize k = 0; k < G_N_ELEMENTS (skips); k++)
        {
          guint32 got[5000];

          for (; drawn < skips[k]; drawn++)
            random ();
          lb_xv_random_batch_seed_at (rng, seeds[s], skips[k]);
          lb_xv_random_batch_fill (rng, got, G_N_ELEMENTS (got));
          for (gsize i = 0; i < G_N_ELEMENTS (got); i++)
            {
              guint32 want = (guint32) random ();

              if (want != got[i])
                g_error ("seed %u, skip %" G_GUINT64_FORMAT ", output %" G_GSIZE_FORMAT
                         ": libc %u, jump %u", seeds[s], skips[k], i, want, got[i]);
            }
          drawn += G_N_ELEMENTS (got);
          /* the next skip may be below where libc's stream now is: restart it */
          if (k + 1 < G_N_ELEMENTS (skips) && skips[k + 1] < drawn)
            {
              srandom (seeds[s]);
              drawn = 0;
            }
        }
      g_free (rng);
    }
}

/* Lanes: lane k is the stream from output first + k · step on, for starts and spacings around
 * the history length and the refill size, fills in odd sizes across refills. */
static void
test_lanes_match_libc (void)
{
  static const struct { guint64 first, step; } cases[] = {
    { 0, 0 }, { 0, 1 }, { 3, 31 }, { 340, 513 }, { 1, 4096 }, { 2800, 2800 }, { 100003, 777 },
  };
  static const gsize sizes[] = { 1, 7, 31, 511, 512, 513, 3 };
  const gsize n = 1500;

  for (gsize s = 0; s < G_N_ELEMENTS (seeds); s += 3)
    for (gsize c = 0; c < G_N_ELEMENTS (cases); c++)
      {
        LbXvRandomLanes *rng = g_new (LbXvRandomLanes, 1);
        guint64 total = cases[c].first + 7 * cases[c].step + n;
        g_autofree guint32 *want = g_new (guint32, total);
        g_autofree guint32 (*got)[LB_XV_RANDOM_LANES] = g_malloc (n * sizeof (*got));
        gsize done = 0;

        srandom (seeds[s]);
        for (guint64 i = 0; i < total; i++)
          want[i] = (guint32) random ();
        lb_xv_random_lanes_seed (rng, seeds[s], cases[c].first, cases[c].step);
        for (gsize k = 0; done < n; k++)
          {
            gsize m = MIN (sizes[k % G_N_ELEMENTS (sizes)], n - done);

            lb_xv_random_lanes_fill (rng, got + done, m);
            done += m;
          }
        for (gsize t = 0; t < n; t++)
          for (int k = 0; k < LB_XV_RANDOM_LANES; k++)
            {
              guint64 i = cases[c].first + (guint64) k * cases[c].step + t;

              if (got[t][k] != want[i])
                g_error ("seed %u, first %" G_GUINT64_FORMAT ", step %" G_GUINT64_FORMAT
                         ", lane %d, output %" G_GSIZE_FORMAT ": libc %u, lanes %u", seeds[s],
                         cases[c].first, cases[c].step, k, t, want[i], got[t][k]);
            }
        g_free (rng);
      }
}

/* Chunks: after each @step steps every lane jumps on by 7 · step outputs, so that chunk c of
 * lane k is the stream from first + (8c + k) · step on: spacings around the history length
 * (the jump reads 30 words past it) and the refill size, reads in odd sizes across refills. */
static void
test_lanes_jump (void)
{
  static const struct { guint64 first, step; } cases[] = {
    { 0, 1 }, { 5, 2 }, { 0, 30 }, { 7, 31 }, { 340, 61 }, { 1, 511 }, { 2, 512 }, { 0, 513 },
    { 100003, 2800 },
  };
  static const gsize sizes[] = { 1, 7, 31, 511, 512, 3 };
  const int n_chunks = 4;

  for (gsize s = 0; s < G_N_ELEMENTS (seeds); s += 2)
    for (gsize c = 0; c < G_N_ELEMENTS (cases); c++)
      {
        LbXvRandomLanes *rng = g_new (LbXvRandomLanes, 1);
        guint64 step = cases[c].step;
        guint64 total = cases[c].first + (guint64) n_chunks * LB_XV_RANDOM_LANES * step;
        g_autofree guint32 *want = g_new (guint32, total);
        g_autofree guint32 (*got)[LB_XV_RANDOM_LANES] = g_malloc (step * sizeof (*got));
        gsize r = s;

        srandom (seeds[s]);
        for (guint64 i = 0; i < total; i++)
          want[i] = (guint32) random ();
        lb_xv_random_lanes_seed (rng, seeds[s], cases[c].first, step);
        for (int chunk = 0; chunk < n_chunks; chunk++)
          {
            gsize done = 0;

            if (chunk > 0)
              lb_xv_random_lanes_jump (rng);
            while (done < step)
              {
                gsize m = MIN (sizes[r % G_N_ELEMENTS (sizes)], step - done);

                r++;

                lb_xv_random_lanes_fill (rng, got + done, m);
                done += m;
              }
            for (guint64 t = 0; t < step; t++)
              for (int k = 0; k < LB_XV_RANDOM_LANES; k++)
                {
                  guint64 i = cases[c].first + ((guint64) chunk * LB_XV_RANDOM_LANES + k) * step + t;

                  if (got[t][k] != want[i])
                    g_error ("seed %u, first %" G_GUINT64_FORMAT ", step %" G_GUINT64_FORMAT
                             ", chunk %d, lane %d, output %" G_GUINT64_FORMAT ": libc %u, lanes %u",
                             seeds[s], cases[c].first, step, chunk, k, t, want[i], got[t][k]);
                }
          }
        g_free (rng);
      }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/xv-random/reference-matches-libc", test_reference_matches_libc);
  g_test_add_func ("/xv-random/batch-matches-libc", test_batch_matches_libc);
  g_test_add_func ("/xv-random/batch-seed-at", test_batch_seed_at);
  g_test_add_func ("/xv-random/lanes-match-libc", test_lanes_match_libc);
  g_test_add_func ("/xv-random/lanes-jump", test_lanes_jump);
  return g_test_run ();
}
