/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-xv-radius"

/* The radius-independent paths of blur, despeckle, oil (xv) and median (enhance) against
 * their scalar reference paths, at every window size from the smallest to 31 and beyond:
 *  - GRAY8, GRAY16, RGB8 and RGBA8 (plus the other formats at a few sizes), images with
 *    noise, flat patches and a small palette (ties for modes, equal values for medians);
 *  - with and without a selection (so windows are clipped at the region's edges, including
 *    regions narrower or shorter than the window);
 *  - the same output for any split into row bands (one row per band, tiny random bands, bands
 *    run in reverse order and from several threads at once), since band starts are where
 *    sliding-window algorithms go wrong;
 *  - alpha samples and everything outside the region come back untouched. */

#include <string.h>

#include "lb-enhance.h"
#include "lb-error.h"
#include "lb-xv-blur.h"
#include "lb-xv-despeckle.h"
#include "lb-xv-oil.h"
#include "lb-test-kernel.h"

typedef enum { F_BLUR, F_DESPECKLE, F_OIL, F_MEDIAN } FilterId;

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

typedef struct {
  FilterId id;
  int param; /* blur/despeckle/oil size (oil 0 = xv's 4×4), median radius */
  union {
    LbXvBlur blur;
    LbXvDespeckle despeckle;
    LbXvOil oil;
  } st;
  LbMedian *median;
  /* median and despeckle's optimised path: the per-thread scratch of the plugin ABI */
  gpointer scratch;
  gsize scratch_size;
} Job;

static gboolean
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

#define MAX_CUTS 256

/* Bands of @band rows (0: random heights 1..8). */
static int
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

/* Reference on one band; the optimised path on one band, one row per band, random bands in
 * reverse order and random bands from three threads: all must agree. Blur and oil: the
 * second optimised path (PATH_PORTABLE) too, on one band, random bands and three threads. */
static void
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

/* Channels and depth: GRAY8, GRAY16, RGB8, RGBA8, then GRAYA8, GRAYA16, RGB16, RGBA16. */
static const int formats[][2] = { { 1, 8 }, { 1, 16 }, { 3, 8 }, { 4, 8 },
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

/* The optimised path on one band and on the bands cuts[0..ncuts] against the reference. */
static void
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

/* Prepares @job on @src, with @sel a selection inset from the edges (3 columns left, 2 rows
 * top, 2 columns right, 1 row bottom), and cuts its rows into random bands (with @sel) or
 * one row per band; returns the number of bands. */
static int
prepare_inset (GRand *rand, Job *job, const LbKernelBuf *src, gboolean sel, int *cuts)
{
  const LbKernelRect rect = { 3, 2, src->width - 5, src->height - 3 };

  g_assert_true (job_prepare (job, src, sel ? &rect : NULL, NULL));
  return make_cuts (rand, src->height, sel ? 0 : 1, cuts);
}

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

static void
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

static void
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

/* Blur's 8-bit path keeps column sums in 16 bits up to n = 257 (257 · 255 = 65535): bright
 * images tall enough for full columns at n = 255, 257 (the limit) and 259 (the 32-bit path),
 * against the reference, one band and one row per band. */
static void
test_blur_u16_limit (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (99);

  for (int channels = 1; channels <= 3; channels += 2)
    for (int size = 255; size <= 259; size += 2)
      {
        Job job = { F_BLUR, size, { { { 0 } } }, NULL };
        LbKernelBuf *src = NULL;
        int cuts[MAX_CUTS];
        const int ncuts = make_cuts (rand, 300, 1, cuts);

        src = kb_new_padded (23, 300, channels, 8, 1);
        for (int y = 0; y < 300; y++)
          for (int x = 0; x < 23; x++)
            for (int c = 0; c < channels; c++)
              kb_set (src, x, y, c, (guint) g_rand_int_range (rand, 240, 256));
        g_assert_true (job_prepare (&job, src, NULL, NULL));
        compare_one_band_and_rows (&job, src, cuts, ncuts);
        g_clear_pointer (&src, kb_free);
      }
}

/* Blur's fast paths divide a window sum s by its pixel count N as (int) ((float) s · inv)
 * with inv = 1/N rounded up (lb-xv-blur.c): exact for s < 2^22. Every s an 8-bit window can
 * reach (s ≤ 255 N) for N ≤ 1100, and every s < 2^22 for the counts the 16-bit float path
 * takes (65535 N < 2^22, N ≤ 64) and a few larger ones. */
static void
test_blur_div_float (void)
{
  static const guint32 more[] = { 961, 1023, 1024, 1025, 4095, 16383, 16384, 16447 };

  for (guint32 count = 1; count <= 1100; count++)
    for (guint32 s = 0; s <= 255 * count; s++)
      if (_lb_xv_blur_div_float (s, count) != s / count)
        g_error ("floor(%u / %u): %u, not %u", s, count, _lb_xv_blur_div_float (s, count),
                 s / count);
  for (guint32 count = 1; count <= 64; count++)
    for (guint32 s = 0; s < 4194304; s += (count <= 16 ? 1 : 7))
      if (_lb_xv_blur_div_float (s, count) != s / count)
        g_error ("floor(%u / %u): %u, not %u", s, count, _lb_xv_blur_div_float (s, count),
                 s / count);
  for (gsize k = 0; k < G_N_ELEMENTS (more); k++)
    for (guint32 s = 0; s < 4194304; s++)
      if (_lb_xv_blur_div_float (s, more[k]) != s / more[k])
        g_error ("floor(%u / %u): %u, not %u", s, more[k], _lb_xv_blur_div_float (s, more[k]),
                 s / more[k]);
}

/* The 16-bit path's interior division (float, one correction by the remainder) for every
 * window count it serves (65535 N < 2^31: N ≤ 32768): quotients around every multiple of N at
 * the ends of the range and at random, where the float product errs most (quotients near
 * 65535) and where it is exact; and every s for a few counts (3×3 … 31×31, the largest). */
static void
test_blur_div_corrected (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (65535);
  static const guint32 every[] = { 9, 961, 32767, 32768 };

  for (guint32 count = 1; count <= 32768; count++)
    for (int k = 0; k < 96; k++)
      {
        const guint32 q = k < 32 ? (guint32) k : k < 64 ? 65535u - (guint32) (k - 32)
                                                         : (guint32) g_rand_int_range (rand, 0, 65536);
        const guint32 base = q * count;
        const guint32 offs[] = { 0, 1, count / 2, count - 1 };

        for (gsize o = 0; o < G_N_ELEMENTS (offs); o++)
          {
            const guint32 s = base + offs[o];

            if (offs[o] >= count || s >= 2147483648u)
              continue;
            if (_lb_xv_blur_div_corrected (s, count) != s / count)
              g_error ("floor(%u / %u): %u, not %u", s, count,
                       _lb_xv_blur_div_corrected (s, count), s / count);
          }
      }
  for (gsize k = 0; k < G_N_ELEMENTS (every); k++)
    for (guint32 s = 0; s < 65536 * every[k] && s < 2147483648u; s += (every[k] > 1000 ? 61 : 1))
      if (_lb_xv_blur_div_corrected (s, every[k]) != s / every[k])
        g_error ("floor(%u / %u): %u, not %u", s, every[k], _lb_xv_blur_div_corrected (s, every[k]),
                 s / every[k]);
}

/* Blur's vector loops (32 samples per step in the AVX2 rows, 4-sample prefix scans) and their
 * tails: every width from 1 to 70 and a few wide ones, n = 5 and 31, GRAY8, RGB8, RGBA8, GRAY16
 * and RGB16, with and without a selection; compare_one runs the optimised and the portable
 * paths over one band, one row per band, random bands and three threads. */
static void
test_blur_widths (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (0xb1a5);
  static const int wide[] = { 95, 96, 97, 128, 129, 130, 257 };
  static const int fmts[][2] = { { 1, 8 }, { 3, 8 }, { 4, 8 }, { 1, 16 }, { 3, 16 } };

  for (int k = 0; k < 70 + (int) G_N_ELEMENTS (wide); k++)
    {
      const int w = k < 70 ? k + 1 : wide[k - 70];

      for (gsize f = 0; f < G_N_ELEMENTS (fmts); f++)
        {
          compare_one (rand, F_BLUR, 5, w, 13, fmts[f][0], fmts[f][1], k % 2 == 1);
          if (k % 3 == 0 || k >= 70)
            compare_one (rand, F_BLUR, 31, w, 9 + k % 30, fmts[f][0], fmts[f][1], k % 2 == 0);
        }
    }
}

/* Blur at 8 bits where window sums reach 2^22 (255 · 129² ≥ 2^22): the double division of the
 * fast path, against the reference, one band and one row per band, GRAY8 and RGB8 (with a
 * selection); and n = 127, the last size on the float path there. */
static void
test_blur_double_path (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (129);
  static const int sizes[] = { 127, 129 };

  for (gsize k = 0; k < G_N_ELEMENTS (sizes); k++)
    for (int channels = 1; channels <= 3; channels += 2)
      {
        Job job = { F_BLUR, sizes[k], { { { 0 } } }, NULL };
        const LbKernelRect rect = { 2, 1, 130, 129 };
        LbKernelBuf *src = NULL;
        int cuts[MAX_CUTS];
        const int h = 131, ncuts = make_cuts (rand, h, 1, cuts);

        src = kb_new_padded (133, h, channels, 8, 3);
        for (int y = 0; y < h; y++)
          for (int x = 0; x < 133; x++)
            for (int c = 0; c < channels; c++)
              kb_set (src, x, y, c, (guint) g_rand_int_range (rand, 200, 256));
        g_assert_true (job_prepare (&job, src, channels == 3 ? &rect : NULL, NULL));
        compare_one_band_and_rows (&job, src, cuts, ncuts);
        g_clear_pointer (&src, kb_free);
      }
}

/* Blur's RGB8 AVX2 rows (blur_row_c3_avx2 in lb-xv-blur.c) read the differences d of column
 * sums in 16 bits and add them three pixels at a time: in 16 bits for n ≤ 41 rows (|d| ≤
 * 255 · 41, three of them at most 765 · 41 = 31365), in 32 bits up to n = 127 (|d| ≤ 255 · 127
 * fits 16 bits; 255 · 129 does not). Pixel columns entirely 0 or 255 (at random per column
 * and channel) reach both extremes; n = 39, 41, 43 (the 16-bit form's last and the 32-bit
 * form's first) and 125, 127, 129 (the 32-bit form's last, then the prefix path), widths
 * around the rows' 48-sample steps and two lanes, with and without a selection, against the
 * reference: one band, random bands, and the portable path on random bands. */
static void
test_blur_rgb8_scan_range (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (31365);
  static const int widths[] = { 14, 31, 47, 64, 97, 130, 200 };
  /* sizes on both sides of the 16-bit form's bound (41 rows) in 47 rows, and of the 32-bit
   * form's (127 rows: d = 255 · 128 still fits 16 bits, 255 · 129 does not) in 131 rows */
  static const struct { int size, h; } cases[] = {
    { 39, 47 }, { 41, 47 }, { 43, 47 }, { 125, 131 }, { 127, 131 }, { 129, 131 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    for (gsize k = 0; k < G_N_ELEMENTS (widths); k++)
      {
        const int size = cases[i].size, h = cases[i].h;
        Job job = { F_BLUR, size, { { { 0 } } }, NULL };
        const LbKernelRect rect = { 3, 2, widths[k] - 5, h - 2 };
        LbKernelBuf *src = NULL;
        int cuts[MAX_CUTS];
        const int ncuts = make_cuts (rand, h, 0, cuts);

        src = kb_new_padded (widths[k], h, 3, 8, 2);
        for (int x = 0; x < widths[k]; x++)
          for (int c = 0; c < 3; c++)
            {
              const guint v = g_rand_boolean (rand) ? 255 : 0;

              for (int y = 0; y < h; y++)
                kb_set (src, x, y, c, v);
            }
        g_assert_true (job_prepare (&job, src, k % 2 == 1 ? &rect : NULL, NULL));
        compare_one_band_and_rows (&job, src, cuts, ncuts);
        g_clear_pointer (&src, kb_free);
      }
}

/* Blur's GRAY16 AVX2 rows (blur_row_c1_avx2 in lb-xv-blur.c: a running window sum per
 * 128-bit lane, straight into the division, where the windows are whole horizontally).
 * - One-row regions, where windows up to 63 pixels stay on the float division without a
 *   correction (65535 · 63 < 2^22): there the reciprocal must be rounded up. Rows of one
 *   value v make every window sum N·v, and for N = 41, 47, 55, 61 the nearest float to 1/N
 *   gives v − 1 for some v (v = 1 already for each of them; found by trying every s).
 * - Pixel columns all 0, all 65535 or random (at random per column), so window sums reach
 *   both extremes on the corrected division (n ≥ 9) and the correction itself is needed, in a
 *   selection or not, at widths from the first that takes the AVX2 rows (32 whole windows)
 *   past two of their 16-sample steps.
 * Against the reference: one band, random bands, and the portable path on random bands. */
static void
test_blur_gray16_scan (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (0x16c1);
  static const int one_row_sizes[] = { 41, 47, 55, 61 };
  static const guint values[] = { 1, 2, 3, 7, 255, 4097, 65534, 65535 };
  static const int sizes[] = { 5, 9, 31, 61 };

  for (gsize i = 0; i < G_N_ELEMENTS (one_row_sizes); i++)
    for (gsize k = 0; k < G_N_ELEMENTS (values); k++)
      {
        Job job = { F_BLUR, one_row_sizes[i], { { { 0 } } }, NULL };
        const int w = one_row_sizes[i] + 40 + (int) k;
        LbKernelBuf *src = NULL;
        int cuts[MAX_CUTS];
        const int ncuts = make_cuts (rand, 1, 1, cuts);

        src = kb_new_padded (w, 1, 1, 16, 1);
        for (int x = 0; x < w; x++)
          kb_set (src, x, 0, 0, values[k]);
        g_assert_true (job_prepare (&job, src, NULL, NULL));
        compare_one_band_and_rows (&job, src, cuts, ncuts);
        g_clear_pointer (&src, kb_free);
      }

  for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
    for (int extra = 0; extra < 34; extra += 3)
      {
        const int size = sizes[i], w = size - 1 + 32 + extra, h = size + 6;
        Job job = { F_BLUR, size, { { { 0 } } }, NULL };
        const LbKernelRect rect = { 1, 2, w - 1, h - 3 };
        LbKernelBuf *src = NULL;
        int cuts[MAX_CUTS];
        const int ncuts = make_cuts (rand, h, 0, cuts);

        src = kb_new_padded (w, h, 1, 16, 2);
        for (int x = 0; x < w; x++)
          {
            const int kind = g_rand_int_range (rand, 0, 3);
            const guint v = kind == 0 ? 0 : 65535;

            for (int y = 0; y < h; y++)
              kb_set (src, x, y, 0, kind < 2 ? v : (guint) g_rand_int_range (rand, 0, 65536));
          }
        g_assert_true (job_prepare (&job, src, extra % 2 == 1 ? &rect : NULL, NULL));
        compare_one_band_and_rows (&job, src, cuts, ncuts);
        g_clear_pointer (&src, kb_free);
      }
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

/* Issue 3: the constant-time medians (8 bits: Perreault; 16 bits: four tiers) on images
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

/* Oil's xv window (4×4) on its vector path: widths around its 16- and 32-column steps and
 * the smallest regions it takes (4 columns, 4 rows), every format, with and without a
 * selection, against the reference (compare_one: one band, one row per band, random bands,
 * three threads). */
static void
test_oil_xv_shapes (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (2024);
  static const int shapes[][2] = { { 4, 4 }, { 5, 6 }, { 6, 5 }, { 7, 9 }, { 15, 8 },
                                   { 16, 7 }, { 17, 6 }, { 31, 8 }, { 32, 7 }, { 33, 6 },
                                   { 34, 5 }, { 65, 9 }, { 97, 7 } };

  for (gsize i = 0; i < G_N_ELEMENTS (shapes); i++)
    for (gsize f = 0; f < G_N_ELEMENTS (formats); f++)
      for (int sel = 0; sel <= 1; sel++)
        compare_one (rand, F_OIL, 0, shapes[i][0], shapes[i][1], formats[f][0], formats[f][1],
                     sel);
}

/* Oil on one 8-bit colour channel (GRAY8, GRAYA8) takes the histogram path from the 3×3
 * window up: at 3×3 (the crossover from the all-pairs network), radius 15 and radius 31,
 * against the reference with every band split (compare_one). */
static void
test_oil_histogram (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (808);
  static const int sizes[] = { 3, 31, 63 };

  for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
    for (int channels = 1; channels <= 2; channels++)
      for (int sel = 0; sel <= 1; sel++)
        compare_one (rand, F_OIL, sizes[i], sizes[i] == 63 ? 41 : 47, sizes[i] == 63 ? 38 : 43,
                     channels, 8, sel);
}

/* The histogram path keeps column counts in bytes: a flat column of 255 rows (window 255)
 * reaches 255, the most a byte holds. Flat and two-colour images, one band and one row per
 * band, against the reference. */
static void
test_oil_histogram_full_column (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (31);

  for (int kind = 0; kind < 2; kind++)
    {
      Job job = { F_OIL, 255, { { { 0 } } }, NULL };
      LbKernelBuf *src = NULL;
      int cuts[MAX_CUTS];
      const int w = 2, h = 270, ncuts = make_cuts (rand, h, 1, cuts);

      src = kb_new_padded (w, h, 1, 8, 1);
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          kb_set (src, x, y, 0, kind == 0 ? 77 : (y > 200 && x == 1 ? 9 : 200));
      g_assert_true (job_prepare (&job, src, NULL, NULL));
      compare_one_band_and_rows (&job, src, cuts, ncuts);
      g_clear_pointer (&src, kb_free);
    }
}

/* Oil's symmetric 3×3 window runs eight output pixels per vector step (oil_sym3_keys in
 * lb-xv-oil.c) from the second column to the last whole step, and mode_small on the rest:
 * every width from 1 to 40 (no step below 10, then every remainder), RGB8, RGBA8, GRAY16,
 * GRAYA16, RGB16 and RGBA16 (whose keys are palette numbers, mapped back to colours; GRAY8
 * takes the histogram path), with and without a selection; compare_one's images tie often
 * (five colours plus noise). */
static void
test_oil_sym3_widths (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (0x5e3);
  static const int fmts[][2] = { { 3, 8 }, { 4, 8 }, { 1, 16 }, { 2, 16 }, { 3, 16 }, { 4, 16 } };

  for (int w = 1; w <= 40; w++)
    for (gsize f = 0; f < G_N_ELEMENTS (fmts); f++)
      compare_one (rand, F_OIL, 3, w, 7 + w % 4, fmts[f][0], fmts[f][1], (w + (int) f) % 2 == 1);
}

/* Oil's count-table path remembers its last answer along a row (WinnerCache in
 * lb-xv-oil.c) while the top count and the colours having it stay the same. Images where the
 * top colour set changes often but not at every step: vertical stripes of @bw columns, each
 * drawing from @v colours of its own, and a new set of colours every 5 rows (so the rows a
 * band reads hold far more than 256 colours and the histogram path stays out), with the
 * same colour planted now and then in the next column; RGB8 (hashed below 9×9, numbered
 * from it) and GRAY16 (direct), windows 5 to 21, with and without a selection, against the
 * reference on one band, one row per band and random bands. */
static void
test_oil_winner_cache (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (0x0111);
  static const int shapes[][2] = { { 2, 13 }, { 3, 4 }, { 6, 3 }, { 1, 40 } };
  static const int sizes[] = { 5, 9, 15, 21 };
  const int w = 70, h = 44;

  for (gsize sh = 0; sh < G_N_ELEMENTS (shapes); sh++)
    for (gsize z = 0; z < G_N_ELEMENTS (sizes); z++)
      for (int depth = 8; depth <= 16; depth += 8)
        {
          const int bw = shapes[sh][0], v = shapes[sh][1], channels = depth == 8 ? 3 : 1;
          Job job = { F_OIL, sizes[z], { { { 0 } } }, NULL };
          const LbKernelRect rect = { 4, 3, w - 9, h - 5 };
          int cuts[MAX_CUTS];
          const int ncuts = make_cuts (rand, h, 0, cuts);
          LbKernelBuf *src = NULL;

          src = kb_new_padded (w, h, channels, depth, 1);
          for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
              {
                int idx = (y / 5) * 2000 + (x / bw) * v + g_rand_int_range (rand, 0, v);

                if (x > 0 && g_rand_int_range (rand, 0, 6) == 0)
                  idx = (y / 5) * 2000 + ((x - 1) / bw) * v + g_rand_int_range (rand, 0, v);
                if (depth == 8)
                  for (int c = 0; c < 3; c++)
                    kb_set (src, x, y, c, (guint) ((idx >> (8 * c)) & 0xff));
                else
                  kb_set (src, x, y, 0, (guint) (idx * 3 % 65536));
              }
          g_assert_true (job_prepare (&job, src, (sh + z) % 2 == 1 ? &rect : NULL, NULL));
          compare_one_band_and_rows (&job, src, cuts, ncuts);
          g_clear_pointer (&src, kb_free);
        }
}

/* RGB oil from 5×5 up numbers a band's colours (16-bit RGB at every window); a palette holds
 * 4 windows' worth of rows and then starts again from the rows still in the window. Bands of
 * 120 rows at windows 9 and 11 start again several times (rows of 20 or 23 pixels, noise:
 * nearly every colour new), against the reference with every band split, RGB8, RGBA8, RGB16
 * and RGBA16; at 16 bits also the windows of xv (4×4), 1 and 3, which count numbers too. */
static void
test_oil_palette_restart (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (4096);
  static const int sizes[] = { 9, 11, 0, 1, 3 };

  for (gsize z = 0; z < G_N_ELEMENTS (sizes); z++)
    for (int depth = 8; depth <= 16; depth += 8)
      for (int channels = 3; channels <= 4; channels++)
        for (int sel = 0; sel <= 1; sel++)
          if (sizes[z] >= 9 || depth == 16)
            compare_one (rand, F_OIL, sizes[z], sizes[z] == 11 ? 23 : 20, 120, channels, depth,
                         sel);
}

/* 16-bit RGB colours are 48 bits: every path compares 32-bit keys, so they count palette
 * numbers. Colours that any packing into 32 bits would merge: equal but for blue's high
 * byte, or for red's, and pairs such as (256, 0, 0) and (0, 1, 0), which 8-bit-apart
 * packing (a | b << 8 | c << 16) makes one; counts tie. xv's window and 1, 3, 5, 9 and 31,
 * RGB16 and RGBA16, with and without a selection, one band and one row per band, against
 * the reference and the table path. */
static void
test_oil_rgb16_keys (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (0x48);
  static const guint colours[][3] = {
    { 256, 0, 0 }, { 0, 1, 0 }, { 1, 256, 0 }, { 257, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0x8000 },
    { 0, 0, 0x0080 }, { 0x8000, 0, 0 }, { 0x0080, 0, 0 }, { 0, 0x100, 1 }, { 0, 0, 0x101 },
    { 0xffff, 0xffff, 0xffff }, { 0xffff, 0xffff, 0x7fff },
  };
  static const int sizes[] = { 0, 1, 3, 5, 9, 31 };
  const int w = 41, h = 35;
  const LbKernelRect rect = { 3, 2, 35, 30 };

  for (gsize z = 0; z < G_N_ELEMENTS (sizes); z++)
    for (int channels = 3; channels <= 4; channels++)
      for (int sel = 0; sel <= 1; sel++)
        {
          Job job = { F_OIL, sizes[z], { { { 0 } } }, NULL };
          int cuts[MAX_CUTS];
          const int ncuts = make_cuts (rand, h, 1, cuts);
          LbKernelBuf *src = NULL;

          src = kb_new_padded (w, h, channels, 16, 1);
          for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
              {
                /* runs of a colour and noise among few colours, so windows tie */
                const int i = (x / 2 + y / 3) % 2 == 0
                                ? g_rand_int_range (rand, 0, G_N_ELEMENTS (colours))
                                : (x / 3 + y) % (int) G_N_ELEMENTS (colours);

                for (int c = 0; c < 3; c++)
                  kb_set (src, x, y, c, colours[i][c]);
                if (channels == 4)
                  kb_set (src, x, y, 3, (guint) g_rand_int_range (rand, 0, 65536));
              }
          g_assert_true (job_prepare (&job, src, sel ? &rect : NULL, NULL));
          compare_one_band_and_rows (&job, src, cuts, ncuts);
          g_clear_pointer (&src, kb_free);
        }
}

/* Oil on images of few colours in the other formats (RGB8, RGBA8, GRAY16, GRAYA16): the
 * histogram path numbers the colours when a band's rows hold at most 256, and falls back to
 * the count table past that. Palettes of 2, 7, 256 and 300 colours (blocks and noise, so
 * counts tie), windows 5 and 31, with and without a selection, one band and one row per
 * band, against the reference. */
static void
test_oil_palette (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (256);
  static const int palette_formats[][2] = { { 3, 8 }, { 4, 8 }, { 1, 16 }, { 2, 16 },
                                            { 3, 16 }, { 4, 16 } };
  static const int colours[] = { 2, 7, 256, 300 };
  static const int sizes[] = { 5, 31 };

  for (gsize f = 0; f < G_N_ELEMENTS (palette_formats); f++)
    for (gsize p = 0; p < G_N_ELEMENTS (colours); p++)
      for (gsize z = 0; z < G_N_ELEMENTS (sizes); z++)
        {
          const int channels = palette_formats[f][0], depth = palette_formats[f][1], w = 33;
          const int h = 27;
          const int ncol = colours[p];
          Job job = { F_OIL, sizes[z], { { { 0 } } }, NULL };
          const LbKernelRect rect = { 3, 2, 27, 23 };
          g_autofree guint *pal = g_new (guint, (gsize) ncol * 3);
          int cuts[MAX_CUTS];
          const int ncuts = make_cuts (rand, h, 1, cuts);
          LbKernelBuf *src = NULL;

          /* Distinct palette colours: RGB (i mod 256, i / 256, 0), or gray i · 211 at 16 bits
           * (below 65536 for i < 310). */
          for (int i = 0; i < ncol; i++)
            {
              pal[i * 3] = channels >= 3 ? (guint) i % 256 : (guint) i * 211;
              pal[i * 3 + 1] = (guint) i / 256;
              pal[i * 3 + 2] = 0;
            }
          src = kb_new_padded (w, h, channels, depth, 2);
          for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
              {
                /* Every colour appears (a ramp over the pixels), blocks give runs. */
                const int i = (x / 3 + y / 2) % 3 == 0 ? g_rand_int_range (rand, 0, ncol)
                                                       : (x / 4 + (y / 3) * 10) % ncol;

                for (int c = 0; c < channels; c++)
                  kb_set (src, x, y, c,
                           (c == channels - 1 && (channels == 2 || channels == 4))
                             ? (guint) g_rand_int_range (rand, 0, 256)
                             : pal[i * 3 + c]);
              }
          for (int sel = 0; sel <= 1; sel++)
            {
              g_assert_true (job_prepare (&job, src, sel ? &rect : NULL, NULL));
              compare_one_band_and_rows (&job, src, cuts, ncuts);
            }
          g_clear_pointer (&src, kb_free);
        }
}

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
