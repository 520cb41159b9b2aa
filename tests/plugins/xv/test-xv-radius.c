/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-xv-radius"

/* The machinery of test-xv-radius (see test-xv-radius.h), the sweeps over the window size and
 * main(): the subtests in the order they always ran. */

#include <string.h>

#include "test-xv-radius.h"

static const char *const filter_names[] = { "blur", "despeckle", "oil", "median" };

/* Number of samples that differ; logs the first. */
static gsize
count_diff (const LbKernelBuf *a, const LbKernelBuf *b, const char *what)
{
  gsize n = 0;

  for (int y = 0; y < a->height; y++)
    for (int x = 0; x < a->width; x++)
      for (int c = 0; c < a->channels; c++)
        {
          const guint va = (guint) kb_get (a, x, y, c), vb = (guint) kb_get (b, x, y, c);

          if (va != vb && n++ == 0)
            g_test_message ("%s: first difference at (%d,%d) channel %d: %u vs %u", what, x, y,
                            c, va, vb);
        }
  return n;
}

/* Noise, flat patches, a small palette, smooth ramps and patches of close values (a narrow
 * ramp with a little noise: at 16 bits ~1100 values around mid-grey, as medical images hold,
 * so that a median's high-byte bin holds many distinct values and its finer levels are
 * searched past their first bins), so that modes and medians see ties, runs of equal values
 * and many distinct values. */
static LbKernelBuf *
test_image (GRand *rand, int w, int h, int channels, int depth)
{
  const guint top = depth == 8 ? 255 : 65535;
  LbKernelBuf *buf = kb_new_padded (w, h, channels, depth, g_rand_int_range (rand, 0, 4));
  guint palette[5];

  for (int i = 0; i < 5; i++)
    palette[i] = (guint) g_rand_int_range (rand, 0, (gint32) top + 1);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        const int kind = ((x / 7) + 2 * (y / 6)) % 5;
        const int pick = g_rand_int_range (rand, 0, 3);

        for (int c = 0; c < channels; c++)
          {
            guint v;

            if (kind == 0)
              v = (guint) g_rand_int_range (rand, 0, (gint32) top + 1);
            else if (kind == 1)
              v = palette[(pick + c) % 5];
            else if (kind == 2)
              v = palette[(x / 4 + y / 5) % 5];
            else if (kind == 3)
              v = (guint) ((x * 9 + y * 5 + c * 40) % 256) * (top / 255);
            else
              {
                const guint span = depth == 8 ? 40 : 1024;

                v = top / 2 + (guint) (x * 3 + y * 2 + c * 11) % span
                    + (guint) g_rand_int_range (rand, 0, (gint32) span / 16 + 1);
              }
            kb_set (buf, x, y, c, (int) v);
          }
      }
  return buf;
}

gboolean
job_prepare (Job *job, const LbKernelBuf *src, const LbKernelRect *sel, GError **error)
{
  switch (job->id)
    {
    case F_BLUR: return lb_xv_blur_prepare (&job->st.blur, src, sel, job->param, error);
    case F_DESPECKLE:
      return lb_xv_despeckle_prepare (&job->st.despeckle, src, sel, job->param, error);
    case F_OIL: return lb_xv_oil_prepare (&job->st.oil, src, sel, job->param, error);
    case F_MEDIAN:
      {
        const LbMedianParams p = { job->param };

        job->median = lb_median_prepare (src, sel, &p, error);
        return job->median != NULL;
      }
    default: g_assert_not_reached ();
    }
}

/* Paths: the reference, the optimised one (hand-written AVX2 rows where the CPU has them),
 * and a second optimised one: for blur without its hand-written AVX2 rows, for oil with
 * every window above 16 pixels on the count table (RGB hashed, no histogram path; others:
 * the optimised path again). */
enum { PATH_REF = 0, PATH_FAST = 1, PATH_PORTABLE = 2 };

static void
job_run (const Job *job, const LbKernelBuf *src, LbKernelBuf *dst, int path, int y0, int y1)
{
  const gboolean fast = path != PATH_REF;

  switch (job->id)
    {
    case F_BLUR:
      (path == PATH_PORTABLE ? _lb_xv_blur_process_portable
       : fast               ? lb_xv_blur_process
                            : lb_xv_blur_process_ref) (&job->st.blur, src, dst, y0, y1);
      break;
    case F_DESPECKLE:
      if (fast)
        lb_xv_despeckle_process_scratch (&job->st.despeckle, src, dst, y0, y1,
                                         job->scratch, job->scratch_size);
      else
        lb_xv_despeckle_process_ref (&job->st.despeckle, src, dst, y0, y1);
      break;
    case F_OIL:
      (path == PATH_PORTABLE ? _lb_xv_oil_process_table
       : fast               ? lb_xv_oil_process
                            : lb_xv_oil_process_ref) (&job->st.oil, src, dst, y0, y1);
      break;
    case F_MEDIAN:
      if (fast)
        lb_median_process_scratch (job->median, src, dst, y0, y1, job->scratch,
                                   job->scratch_size);
      else
        lb_median_process_reference (job->median, src, dst, y0, y1);
      break;
    default: g_assert_not_reached ();
    }
}

/* Bands from several threads at once: thread t runs bands t, t + n, t + 2n, … */
typedef struct {
  const Job *job;
  const LbKernelBuf *src;
  LbKernelBuf *dst;
  const int *cuts;
  int ncuts;
  int first;
  int step;
  int path;
} ThreadArgs;

static gpointer
thread_main (gpointer data)
{
  const ThreadArgs *a = data;

  for (int k = a->first; k < a->ncuts; k += a->step)
    job_run (a->job, a->src, a->dst, a->path, a->cuts[k], a->cuts[k + 1]);
  return NULL;
}

int
make_cuts (GRand *rand, int height, int band, int *cuts)
{
  int n = 0;

  cuts[0] = 0;
  while (cuts[n] < height && n < MAX_CUTS - 1)
    {
      cuts[n + 1] = MIN (height, cuts[n] + (band > 0 ? band : g_rand_int_range (rand, 1, 9)));
      n++;
    }
  cuts[n] = height;
  return n;
}

void
compare_one (GRand *rand, FilterId id, int param, int w, int h, int channels, int depth,
             gboolean use_sel)
{
  Job job = { id, param, { { { 0 } } }, NULL, NULL, 0 };
  const gboolean ranks_too = depth == 16 && (id == F_MEDIAN || id == F_DESPECKLE);
  LbKernelRect rect = { 0, 0, 0, 0 };
  g_autoptr (GError) error = NULL;
  LbKernelBuf *src = NULL, *ref = NULL, *out = NULL;
  int cuts[MAX_CUTS];
  gsize n = 0;

  src = test_image (rand, w, h, channels, depth);
  if (use_sel)
    {
      /* A selection that may reach past the image (clipped), narrower than the window. */
      rect.x = g_rand_int_range (rand, -2, w / 2);
      rect.y = g_rand_int_range (rand, -2, h / 2);
      rect.width = g_rand_int_range (rand, 1, w + 3);
      rect.height = g_rand_int_range (rand, 1, h + 3);
      if (rect.x + rect.width <= 0)
        rect.width = 1 - rect.x;
      if (rect.y + rect.height <= 0)
        rect.height = 1 - rect.y;
    }
  g_assert_true (job_prepare (&job, src, use_sel ? &rect : NULL, &error));
  g_assert_no_error (error);

  ref = kb_copy_padded (src, 3);
  job_run (&job, src, ref, PATH_REF, 0, h);

  /* 16-bit medians: every variant with and without the rank path (which takes every band of
   * these small images: they hold at most 4096 distinct values per channel), and once with
   * the scratch memory the plugins pass (filled with garbage first, then reused by every
   * band, as the host's per-thread scratch is) */
  for (int variant = 0; variant < (id == F_BLUR || id == F_OIL ? 7 : ranks_too ? 9 : 4); variant++)
    {
      const char *what[] = { "one band", "one row per band", "random bands, reverse order",
                             "random bands, three threads", "second path, one band",
                             "second path, random bands, reverse order",
                             "second path, random bands, three threads" };
      const int path = variant >= 4 && (id == F_BLUR || id == F_OIL) ? PATH_PORTABLE : PATH_FAST;
      const gboolean no_ranks = ranks_too && variant >= 4 && variant < 8;
      const gboolean scratch = ranks_too && variant == 8;
      int ncuts;
      gsize d;

      if (id == F_MEDIAN)
        _lb_median_set_no_ranks (job.median, no_ranks);
      else if (id == F_DESPECKLE)
        job.st.despeckle.no_ranks = no_ranks;
      if (scratch)
        {
          job.scratch_size = id == F_MEDIAN ? lb_median_scratch_size (job.median)
                                            : lb_xv_despeckle_scratch_size (&job.st.despeckle);
          job.scratch = job.scratch_size > 0 ? g_aligned_alloc (1, job.scratch_size, 64) : NULL;
          if (job.scratch != NULL)
            memset (job.scratch, 0xa5, job.scratch_size);
        }
      out = kb_copy_padded (src, 3);
      switch (ranks_too ? (variant == 8 ? 2 : variant % 4) : variant)
        {
        case 0:
        case 4: job_run (&job, src, out, path, 0, h); break;
        case 1:
          ncuts = make_cuts (rand, h, 1, cuts);
          for (int k = ncuts - 1; k >= 0; k--)
            job_run (&job, src, out, path, cuts[k], cuts[k + 1]);
          break;
        case 2:
        case 5:
          ncuts = make_cuts (rand, h, 0, cuts);
          for (int k = ncuts - 1; k >= 0; k--)
            job_run (&job, src, out, path, cuts[k], cuts[k + 1]);
          break;
        default:
          {
            ThreadArgs args[3];
            GThread *threads[3];

            ncuts = make_cuts (rand, h, 0, cuts);
            for (int t = 0; t < 3; t++)
              {
                args[t] = (ThreadArgs) { &job, src, out, cuts, ncuts, t, 3, path };
                threads[t] = g_thread_new ("band", thread_main, &args[t]);
              }
            for (int t = 0; t < 3; t++)
              g_thread_join (threads[t]);
          }
          break;
        }
      d = count_diff (out, ref, what[ranks_too ? (variant == 8 ? 2 : variant % 4) : variant]);
      if (d != 0)
        g_error ("%s %d, %dx%d, %d channels, %d bits, selection %s (%d,%d %dx%d), %s%s: "
                 "%" G_GSIZE_FORMAT " samples differ from the reference",
                 filter_names[id], param, w, h, channels, depth, use_sel ? "on" : "off", rect.x,
                 rect.y, rect.width, rect.height,
                 what[ranks_too ? (variant == 8 ? 2 : variant % 4) : variant],
                 no_ranks ? ", no rank path" : scratch ? ", reused scratch" : "", d);
      if (scratch)
        {
          g_aligned_free (job.scratch);
          job.scratch = NULL;
          job.scratch_size = 0;
        }
      g_clear_pointer (&out, kb_free);
      n += d;
    }

  /* The reference itself keeps alpha and the outside of the region. */
  if (channels == 2 || channels == 4)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        g_assert_cmpuint (kb_get (ref, x, y, channels - 1), ==,
                          kb_get (src, x, y, channels - 1));
  if (use_sel)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        if (x < rect.x || y < rect.y || x >= rect.x + rect.width || y >= rect.y + rect.height)
          for (int c = 0; c < channels; c++)
            g_assert_cmpuint (kb_get (ref, x, y, c), ==, kb_get (src, x, y, c));

  g_assert_cmpuint (n, ==, 0);
  if (job.median != NULL)
    lb_median_free (job.median);
  g_clear_pointer (&src, kb_free);
  g_clear_pointer (&ref, kb_free);
}

typedef struct {
  FilterId id;
  int lo, hi, step; /* parameters lo, lo + step, …, hi */
  int w, h;         /* image size; odd sizes */
} Sweep;

const int formats[8][2] = { { 1, 8 }, { 1, 16 }, { 3, 8 }, { 4, 8 },
                                  { 2, 8 }, { 2, 16 }, { 3, 16 }, { 4, 16 } };

/* The first four formats at every parameter; the other four at every third. */
static void
test_sweep (gconstpointer data)
{
  const Sweep *s = data;
  g_autoptr (GRand) rand = g_rand_new_with_seed (4321 + 100 * s->id + s->lo);

  for (int p = s->lo, k = 0; p <= s->hi; p += s->step, k++)
    for (gsize f = 0; f < G_N_ELEMENTS (formats); f++)
      {
        if (f >= 4 && k % 3 != 0)
          continue;
        for (int sel = 0; sel <= 1; sel++)
          compare_one (rand, s->id, p, s->w, s->h, formats[f][0], formats[f][1], sel);
      }
}

/* Large windows against the reference at a few sizes: the reference sorts (median) or counts
 * all pairs (oil) per window, so the images stay small and the formats few (the first four,
 * every other one with a selection). */
static void
test_large (gconstpointer data)
{
  const Sweep *s = data;
  g_autoptr (GRand) rand = g_rand_new_with_seed (777 + 100 * s->id + s->lo);

  for (int p = s->lo; p <= s->hi; p += s->step)
    for (gsize f = 0; f < 4; f++)
      compare_one (rand, s->id, p, s->w, s->h, formats[f][0], formats[f][1], f % 2 == 1);
}

void
compare_one_band_and_rows (const Job *job, const LbKernelBuf *src, const int *cuts, int ncuts)
{
  const int h = src->height;
  LbKernelBuf *ref = NULL, *out = NULL;

  ref = kb_copy_padded (src, 3);
  job_run (job, src, ref, PATH_REF, 0, h);
  out = kb_copy_padded (src, 3);
  job_run (job, src, out, PATH_FAST, 0, h);
  g_assert_cmpuint (count_diff (out, ref, "one band"), ==, 0);
  g_clear_pointer (&out, kb_free);
  out = kb_copy_padded (src, 3);
  for (int k = 0; k < ncuts; k++)
    job_run (job, src, out, PATH_FAST, cuts[k], cuts[k + 1]);
  g_assert_cmpuint (count_diff (out, ref, "one row per band"), ==, 0);
  if (job->id == F_BLUR || job->id == F_OIL)
    {
      g_clear_pointer (&out, kb_free);
      out = kb_copy_padded (src, 3);
      for (int k = 0; k < ncuts; k++)
        job_run (job, src, out, PATH_PORTABLE, cuts[k], cuts[k + 1]);
      g_assert_cmpuint (count_diff (out, ref, "second path, one row per band"), ==, 0);
    }
  g_clear_pointer (&out, kb_free);
  g_clear_pointer (&ref, kb_free);
}

int
prepare_inset (GRand *rand, Job *job, const LbKernelBuf *src, gboolean sel, int *cuts)
{
  const LbKernelRect rect = { 3, 2, src->width - 5, src->height - 3 };

  g_assert_true (job_prepare (job, src, sel ? &rect : NULL, NULL));
  return make_cuts (rand, src->height, sel ? 0 : 1, cuts);
}

static const Sweep sweeps[] = {
  { F_BLUR, 1, 33, 2, 45, 39 },
  { F_DESPECKLE, 1, 33, 2, 43, 37 },
  { F_MEDIAN, 0, 17, 1, 41, 39 },
  { F_OIL, 0, 0, 1, 33, 29 },
  { F_OIL, 1, 15, 2, 35, 31 },
};

static const Sweep large[] = {
  { F_BLUR, 61, 101, 40, 120, 70 },
  { F_DESPECKLE, 45, 63, 18, 70, 66 },
  { F_MEDIAN, 24, 31, 7, 70, 66 },
  { F_OIL, 21, 31, 10, 37, 34 },
};

/* The constant-time medians (8 bits: Perreault; 16 bits: four tiers) on images
 * wider than one strip (8 bits: 256 output columns; 16 bits: max (64, 2r); plus 2r halo),
 * so strips start and end inside the image: 8 bits at the smallest radius they serve (3),
 * 15 and 25; 16 bits on both sides of the four-tier range (Huang at r 47 and 128, four
 * tiers at 48 and 60); all formats or the three cheapest, with and without a selection;
 * compare_one checks one-row bands, random bands in reverse order and three threads
 * against the reference. */
typedef struct {
  FilterId id;
  int param;
  int w, h;
  gboolean all_formats; /* else GRAY8, GRAY16, RGB8 only (slow references) */
} Wide;

static void
test_wide (gconstpointer data)
{
  const Wide *s = data;
  g_autoptr (GRand) rand = g_rand_new_with_seed (2468 + 10 * s->id + s->param);
  const gsize nf = s->all_formats ? G_N_ELEMENTS (formats) : 3;

  for (gsize f = 0; f < 2 * nf; f++)
    compare_one (rand, s->id, s->param, s->w, s->h, formats[f / 2][0], formats[f / 2][1],
                 f % 2 == 1);
}

static const Wide wides[] = {
  { F_MEDIAN, 3, 300, 24, TRUE },
  { F_DESPECKLE, 7, 300, 24, TRUE },
  { F_MEDIAN, 15, 170, 40, TRUE },
  { F_DESPECKLE, 31, 170, 40, TRUE },
  { F_MEDIAN, 25, 150, 56, FALSE },
  { F_DESPECKLE, 51, 150, 56, FALSE },
  { F_MEDIAN, 47, 250, 22, FALSE },
  { F_MEDIAN, 48, 260, 22, TRUE },
  { F_DESPECKLE, 121, 300, 20, FALSE },
  { F_MEDIAN, 128, 21, 150, FALSE },
  { F_DESPECKLE, 257, 150, 21, FALSE },
};

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  for (gsize i = 0; i < G_N_ELEMENTS (sweeps); i++)
    {
      g_autofree char *path = g_strdup_printf ("/xv-radius/sweep/%s-%d-%d",
                                               filter_names[sweeps[i].id], sweeps[i].lo,
                                               sweeps[i].hi);
      g_test_add_data_func (path, &sweeps[i], test_sweep);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (large); i++)
    {
      g_autofree char *path = g_strdup_printf ("/xv-radius/large/%s-%d-%d",
                                               filter_names[large[i].id], large[i].lo,
                                               large[i].hi);
      g_test_add_data_func (path, &large[i], test_large);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (wides); i++)
    {
      g_autofree char *path = g_strdup_printf ("/xv-radius/wide/%s-%d",
                                               filter_names[wides[i].id], wides[i].param);
      g_test_add_data_func (path, &wides[i], test_wide);
    }
  g_test_add_func ("/xv-radius/median16-ranks", test_median16_ranks);
  g_test_add_func ("/xv-radius/median16-huang-groups", test_median16_huang_groups);
  g_test_add_func ("/xv-radius/blur-u16-limit", test_blur_u16_limit);
  g_test_add_func ("/xv-radius/blur-div-float", test_blur_div_float);
  g_test_add_func ("/xv-radius/blur-div-corrected", test_blur_div_corrected);
  g_test_add_func ("/xv-radius/blur-widths", test_blur_widths);
  g_test_add_func ("/xv-radius/blur-double-path", test_blur_double_path);
  g_test_add_func ("/xv-radius/blur-rgb8-scan-range", test_blur_rgb8_scan_range);
  g_test_add_func ("/xv-radius/blur-gray16-scan", test_blur_gray16_scan);
  g_test_add_func ("/xv-radius/oil-xv-shapes", test_oil_xv_shapes);
  g_test_add_func ("/xv-radius/oil-histogram", test_oil_histogram);
  g_test_add_func ("/xv-radius/oil-histogram-full-column", test_oil_histogram_full_column);
  g_test_add_func ("/xv-radius/oil-palette", test_oil_palette);
  g_test_add_func ("/xv-radius/oil-palette-restart", test_oil_palette_restart);
  g_test_add_func ("/xv-radius/oil-rgb16-keys", test_oil_rgb16_keys);
  g_test_add_func ("/xv-radius/oil-winner-cache", test_oil_winner_cache);
  g_test_add_func ("/xv-radius/oil-sym3-widths", test_oil_sym3_widths);
  return g_test_run ();
}
