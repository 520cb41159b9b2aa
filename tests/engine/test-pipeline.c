/* SPDX-License-Identifier: GPL-3.0-or-later */
/* LbPipeline: determinism over threads and bands for every registered filter, selection,
 * cancellation, timing, progress, chains, async, formats; each of the eight sample formats
 * where a filter takes it. */

#include <string.h>

#include "lb-error.h"
#include "lb-isolation.h"
#include "lb-pipeline.h"
#include "lb-test-files.h"
#include "lb-test-image.h"
#include "lb-test-loop.h"

#define MARK_ID "io.github.lightbox.test.mark"
#define MARK_FINISH_ID "io.github.lightbox.test.mark-finish"
#define MARK_OVER_ID "io.github.lightbox.test.mark-over"
#define THRESHOLD_ID "io.github.lightbox.example.threshold"
#define BINOMIAL_ID "io.github.lightbox.filters.binomial-blur"

/* Every sample format (lb-format.h); the test plugins take the first four only. */
static const LbSampleFormat all_formats[] = {
  LB_FORMAT_GRAY8, LB_FORMAT_GRAY16, LB_FORMAT_RGB8, LB_FORMAT_RGBA8,
  LB_FORMAT_GRAYA8, LB_FORMAT_GRAYA16, LB_FORMAT_RGB16, LB_FORMAT_RGBA16,
};
G_STATIC_ASSERT (G_N_ELEMENTS (all_formats) == LB_N_FORMATS);
#define N_COMMON_FORMATS 4

static LbFilterRegistry *registry;
static char *plugin_dir;

/* Parameters that make a filter do something visible (defaults elsewhere). */
static const struct {
  const char *alias;
  const char *params;
} interesting[] = {
  { "rotate", "angle=30" },
  { "rotate-clear", "angle=-12.5" },
  { "blur", "size=5" },
  { "despeckle", "size=5" },
  /* the histogram paths, and on gray16 the rank path in the host's scratch */
  { "median", "radius=4" },
  { "gaussian", "sigma=1.5" },
};

static const char *
interesting_params (LbFilter *f)
{
  const char *alias = lb_filter_get_alias (f);

  for (guint i = 0; alias && i < G_N_ELEMENTS (interesting); i++)
    if (g_str_equal (alias, interesting[i].alias))
      return interesting[i].params;
  return NULL;
}

static LbImage *
run (LbFilter           *f,
     const char         *params,
     LbImage            *input,
     guint               threads,
     guint               band,
     const LbFilterRect *sel,
     GError            **error)
{
  g_autoptr(LbPipeline) pipe = lb_pipeline_new (registry);
  g_autoptr(LbFilterParams) p = lb_filter_params_new (f);
  /* the second image of filters that read two (subtract), other noise of the same size */
  g_autoptr(LbImage) aux = lb_test_image_new (lb_image_get_width (input),
                                              lb_image_get_height (input),
                                              lb_image_get_format (input), 97);

  if (params != NULL && !lb_filter_params_set_from_string (p, params, error))
    return NULL;
  if (!lb_pipeline_append (pipe, f, p, error))
    return NULL;
  lb_pipeline_set_aux_input (pipe, aux);
  lb_pipeline_set_n_threads (pipe, threads);
  lb_pipeline_set_band_height (pipe, band);
  lb_pipeline_set_selection (pipe, sel);
  lb_pipeline_set_seed (pipe, 1);
  return lb_pipeline_run (pipe, input, NULL, NULL, error);
}

static GBytes *
pixels_copy (LbImage *image)
{
  return g_bytes_new (lb_image_get_data (image),
                      lb_image_get_stride (image) * lb_image_get_height (image));
}

/* Every filter, every format it supports, with and without a selection: the output of
 * {1,2,4} threads × bands {1,7,64,whole} equals the single-thread whole-image run, the input
 * is never modified and alpha passes through. */
static void
test_determinism (void)
{
  const LbSampleFormat *formats = all_formats;
  static const guint threads[] = { 1, 2, 4 };
  static const guint bands[] = { 1, 7, 64, 0 };
  const LbFilterRect sel = { 9, 6, 40, 27 };
  guint n = g_list_model_get_n_items (G_LIST_MODEL (registry));
  /* per format: runs of the example plugin, of a declarative kernel, of the test plugin */
  guint n_threshold[LB_N_FORMATS] = { 0 }, n_kernel[LB_N_FORMATS] = { 0 };
  guint n_mark[LB_N_FORMATS] = { 0 };

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(LbFilter) f = g_list_model_get_item (G_LIST_MODEL (registry), i);
      const char *params = interesting_params (f);

      if (lb_filter_get_kind (f) == LB_FILTER_KIND_CHAIN)
        continue;
      for (guint k = 0; k < LB_N_FORMATS; k++)
        for (guint s = 0; s < 2; s++)
          {
            g_autoptr(LbImage) input = lb_test_image_new (61, 37, formats[k], 11 + k);
            g_autoptr(GBytes) before = pixels_copy (input);
            g_autoptr(GBytes) after = NULL;
            g_autoptr(LbImage) ref = NULL;
            g_autoptr(GError) error = NULL;
            const LbFilterRect *r = s ? &sel : NULL;

            if (!lb_filter_supports_format (f, formats[k]))
              continue;
            ref = run (f, params, input, 1, 37, r, &error);
            g_assert_no_error (error);
            for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
              for (guint b = 0; b < G_N_ELEMENTS (bands); b++)
                {
                  g_autoptr(LbImage) out = run (f, params, input, threads[t], bands[b], r,
                                                &error);
                  g_assert_no_error (error);
                  if (!lb_image_equal_pixels (ref, out))
                    g_error ("%s (%s) on %s, selection %u: %u threads, band %u differs from "
                             "1 thread", lb_filter_get_id (f), params ? params : "defaults",
                             lb_sample_format_to_string (formats[k]), s, threads[t], bands[b]);
                }
            after = pixels_copy (input);
            g_assert_true (g_bytes_equal (before, after));
            /* The filter did something (every filter here changes a noisy image)… */
            if (lb_image_equal_pixels (ref, input))
              g_error ("%s (%s) on %s, selection %u: output equals input",
                       lb_filter_get_id (f), params ? params : "defaults",
                       lb_sample_format_to_string (formats[k]), s);
            /* …and alpha passed through unchanged everywhere (a filter with an output of
             * its own geometry moves it with the pixels). */
            if (lb_sample_format_has_alpha (formats[k])
                && !(lb_filter_get_flags (f) & LB_FILTER_FLAG_GEOMETRY))
              {
                const guint a = lb_sample_format_get_channels (formats[k]) - 1;

                for (guint y = 0; y < lb_image_get_height (input); y++)
                  for (guint x = 0; x < lb_image_get_width (input); x++)
                    if (lb_test_image_sample (input, x, y, a) != lb_test_image_sample (ref, x, y, a))
                      g_error ("%s changed alpha at %u,%u on %s", lb_filter_get_id (f), x, y,
                               lb_sample_format_to_string (formats[k]));
              }
            if (g_str_equal (lb_filter_get_id (f), THRESHOLD_ID))
              n_threshold[k]++;
            else if (g_str_equal (lb_filter_get_id (f), BINOMIAL_ID))
              n_kernel[k]++;
            else if (g_str_equal (lb_filter_get_id (f), MARK_ID))
              n_mark[k]++;
          }
      g_test_message ("%s: deterministic", lb_filter_get_id (f));
    }
  /* The example plugin and the declarative kernels take every format, with and without a
   * selection; the test plugin declares the common four only, and is not run on the others. */
  for (guint k = 0; k < LB_N_FORMATS; k++)
    {
      g_test_message ("%s: threshold %u, binomial-blur %u, mark %u runs",
                      lb_sample_format_to_string (formats[k]), n_threshold[k], n_kernel[k],
                      n_mark[k]);
      g_assert_cmpuint (n_threshold[k], ==, 2);
      g_assert_cmpuint (n_kernel[k], ==, 2);
      g_assert_cmpuint (n_mark[k], ==, k < N_COMMON_FORMATS ? 2 : 0);
    }
}

/* The example threshold at 50 % in a selection the image clips, on every format: inside,
 * a colour sample at or above half the range (2v ≥ maximum) becomes the maximum and any
 * other 0; alpha and everything outside come back as they were. A selection that misses the
 * image is refused. */
static void
test_selection (void)
{
  g_autoptr(LbFilter) f = lb_filter_registry_lookup (registry, "threshold");
  g_autoptr(GError) error = NULL;
  /* Partly outside the image: clipped to x 20..29, y 15..19. */
  LbFilterRect sel = { 20, 15, 50, 50 };
  LbFilterRect outside = { 40, 0, 5, 5 };

  for (guint k = 0; k < LB_N_FORMATS; k++)
    {
      const LbSampleFormat format = all_formats[k];
      const guint channels = lb_sample_format_get_channels (format);
      const gboolean alpha = lb_sample_format_has_alpha (format);
      const guint max = lb_sample_format_get_bit_depth (format) == 16 ? 65535 : 255;
      g_autoptr(LbImage) input = lb_test_image_new (30, 20, format, 3 + k);
      g_autoptr(LbImage) out = run (f, "level=50", input, 2, 1, &sel, &error);
      guint n_max = 0, n_zero = 0;

      g_assert_no_error (error);
      for (guint y = 0; y < 20; y++)
        for (guint x = 0; x < 30; x++)
          for (guint c = 0; c < channels; c++)
            {
              const guint a = lb_test_image_sample (input, x, y, c);
              const guint b = lb_test_image_sample (out, x, y, c);

              if (x < 20 || y < 15 || (alpha && c == channels - 1))
                g_assert_cmpuint (b, ==, a);  /* outside the region, and alpha: untouched */
              else if (2 * a >= max)
                {
                  g_assert_cmpuint (b, ==, max);
                  n_max++;
                }
              else
                {
                  g_assert_cmpuint (b, ==, 0);
                  n_zero++;
                }
            }
      /* samples on both sides of the level, in every colour channel of the region */
      g_assert_cmpuint (n_max + n_zero, ==, 10 * 5 * (alpha ? channels - 1 : channels));
      g_assert_cmpuint (n_max, >, 0);
      g_assert_cmpuint (n_zero, >, 0);
    }
  {
    g_autoptr(LbImage) input = lb_test_image_new (30, 20, LB_FORMAT_RGBA16, 3);
    g_autoptr(LbImage) out = run (f, NULL, input, 1, 0, &outside, &error);

    g_assert_null (out);
  }
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "does not overlap"));
}

static gpointer
cancel_thread (gpointer data)
{
  g_usleep (100000);
  g_cancellable_cancel (data);
  return NULL;
}

static void
test_cancel (void)
{
  g_autoptr(LbImage) input = lb_test_image_new (16, 400, LB_FORMAT_GRAY8, 1);
  g_autoptr(LbPipeline) pipe = lb_pipeline_new (registry);
  g_autoptr(GCancellable) c = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(LbImage) out = NULL;
  GThread *t;
  gint64 t0;

  /* 400 rows × 10 ms on 2 threads would take 2 s; it is cancelled after 0.1 s. */
  g_assert_true (lb_pipeline_append_step (pipe, MARK_ID ":delay-us=10000", &error));
  lb_pipeline_set_n_threads (pipe, 2);
  t = g_thread_new ("canceller", cancel_thread, c);
  t0 = g_get_monotonic_time ();
  out = lb_pipeline_run (pipe, input, NULL, c, &error);
  g_thread_join (t);
  g_assert_null (out);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  /* Not a timing threshold: it proves the bands stopped early rather than all 400 rows
   * running (which takes at least 2 s of sleeps). */
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 2000000);
  g_clear_error (&error);

  /* Already cancelled: nothing runs. */
  out = lb_pipeline_run (pipe, input, NULL, c, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

static void
progress_cb (double   fraction,
             gpointer data)
{
  GArray *values = data;

  g_array_append_val (values, fraction);
}

static void
test_timing_progress_chain (void)
{
  g_autoptr(LbImage) input = lb_test_image_new (40, 30, LB_FORMAT_RGB8, 9);
  g_autoptr(LbPipeline) pipe = lb_pipeline_new (registry);
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GPtrArray) timings = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(LbImage) out = NULL;
  LbPassTiming *t;

  /* "poster" is a declarative chain: binomial-blur then threshold. */
  g_assert_true (lb_pipeline_append_step (pipe, "poster", &error));
  g_assert_no_error (error);
  g_assert_true (lb_pipeline_append_step (pipe, MARK_ID ":value=77", &error));
  g_assert_cmpuint (lb_pipeline_get_n_passes (pipe), ==, 3);
  lb_pipeline_set_n_threads (pipe, 2);
  lb_pipeline_set_band_height (pipe, 4);
  lb_pipeline_set_progress_func (pipe, progress_cb, values, NULL);
  out = lb_pipeline_run (pipe, input, &timings, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (out != input);

  g_assert_cmpuint (timings->len, ==, 3);
  t = g_ptr_array_index (timings, 0);
  g_assert_cmpstr (t->filter_id, ==, "io.github.lightbox.filters.binomial-blur");
  g_assert_cmpstr (t->params, ==, "");
  t = g_ptr_array_index (timings, 1);
  g_assert_cmpstr (t->filter_id, ==, "io.github.lightbox.example.threshold");
  g_assert_cmpstr (t->params, ==, "level=40,invert=false");
  t = g_ptr_array_index (timings, 2);
  g_assert_cmpstr (t->params, ==, "delay-us=0,value=77,size=3,mode=fast,gain=0.5,fail-row=-1");
  g_assert_cmpuint (t->width, ==, 40);
  g_assert_cmpuint (t->height, ==, 30);
  g_assert_cmpint (t->format, ==, LB_FORMAT_RGB8);
  g_assert_cmpuint (t->threads, ==, 2);
  g_assert_cmpuint (t->bands, ==, 8);
  g_assert_cmpint (t->usec, >=, 0);

  g_assert_cmpuint (values->len, >=, 3);
  for (guint i = 1; i < values->len; i++)
    g_assert_cmpfloat (g_array_index (values, double, i), >=,
                       g_array_index (values, double, i - 1));
  g_assert_cmpfloat (g_array_index (values, double, values->len - 1), ==, 1.0);
  for (gsize i = 0; i < lb_image_get_row_size (out); i++)
    g_assert_cmpuint (lb_image_get_row (out, 0)[i], ==, 77);
}

/* Runs @step on one thread in bands of @band_height rows with isolation @mode; returns the
 * output, and every progress fraction reported in @values. */
static LbImage *
run_with_progress (const char  *step,
                   LbImage     *input,
                   LbIsolation  mode,
                   int          band_height,
                   GArray      *values)
{
  g_autoptr(LbPipeline) pipe = lb_pipeline_new (registry);
  g_autoptr(GError) error = NULL;
  LbImage *out;

  g_assert_true (lb_pipeline_append_step (pipe, step, &error));
  lb_pipeline_set_isolation (pipe, mode);
  lb_pipeline_set_n_threads (pipe, 1);
  lb_pipeline_set_band_height (pipe, band_height);
  lb_pipeline_set_progress_func (pipe, progress_cb, values, NULL);
  out = lb_pipeline_run (pipe, input, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (out);
  g_assert_cmpuint (values->len, >, 0);
  return out;
}

/* Progress within a band (ABI 1.2, lb_filter_band_rows_done()): one thread, one band of
 * 300 rows, and the mark filter reports each row; in process and through the helper process
 * (whose reports cross the socket). Without rows_done the host would hear of the band once,
 * at its end. */
static void
test_progress_rows (void)
{
  g_autoptr(LbImage) input = lb_test_image_new (16, 300, LB_FORMAT_GRAY8, 5);
  const LbIsolation modes[] = { LB_ISOLATION_NONE, LB_ISOLATION_ALL };

  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
      g_autoptr(LbImage) out = run_with_progress (MARK_ID ":value=5", input, modes[m], 300,
                                                  values);
      guint inside = 0;

      /* 300 rows is more than the host's 256 steps, so every step of one row is passed on:
       * rows 1 … 299 from the plugin (row 300 is counted when the band returns), then the
       * band's end and the pass's end. */
      for (guint i = 0; i < values->len; i++)
        {
          double f = g_array_index (values, double, i);

          if (i > 0)
            g_assert_cmpfloat (f, >=, g_array_index (values, double, i - 1));
          if (f > 0 && f < 1)
            inside++;
        }
      g_assert_cmpuint (inside, ==, 299);
      g_assert_cmpfloat (g_array_index (values, double, 0), ==, 1.0 / 300);
      g_assert_cmpfloat (g_array_index (values, double, values->len - 1), ==, 1.0);
    }
}

/* A plugin that over-reports rows (mark-over tells lb_filter_band_rows_done() its whole
 * band's height at every row) cannot push the pass past its bands: one thread, four bands
 * of 75 rows, so the host may pass on only 1/4, 2/4, 3/4 and 1, in that order; uncapped,
 * the first band alone would report 75/300, 150/300, … up to 75 × 75 / 300. In process and
 * through the helper process. */
static void
test_progress_over_report (void)
{
  g_autoptr(LbImage) input = lb_test_image_new (16, 300, LB_FORMAT_GRAY8, 6);
  const LbIsolation modes[] = { LB_ISOLATION_NONE, LB_ISOLATION_ALL };

  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
      g_autoptr(LbImage) out = run_with_progress (MARK_OVER_ID ":value=6", input, modes[m], 75,
                                                  values);
      double expect = 0;

      for (guint i = 0; i < values->len; i++)
        {
          double f = g_array_index (values, double, i);

          /* each value is the last one again or the next quarter */
          if (f != expect)
            expect += 0.25;
          g_assert_cmpfloat (f, ==, expect);
        }
      g_assert_cmpfloat (expect, ==, 1.0);
      for (int y = 0; y < 300; y++)
        for (int x = 0; x < 16; x++)
          g_assert_cmpuint (lb_image_get_row (out, y)[x], ==, 6);
    }
}

typedef struct {
  GCancellable *cancellable;
  double cancel_at;
  double last;
} CancelAt;

static void
cancel_at_cb (double   fraction,
              gpointer data)
{
  CancelAt *c = data;

  c->last = MAX (c->last, fraction);
  if (fraction >= c->cancel_at)
    g_cancellable_cancel (c->cancellable);
}

/* Cancelling in the middle of a band stops it there, with no timing involved (one thread,
 * one band of 400 rows, cancelled from the progress report of row 100):
 *   - in process, the plugin learns it from lb_filter_band_rows_done() on its next row, and
 *     the host neither reports the rest of the band nor jumps to 100 %;
 *   - in the helper process, Lightbox stops listening and kills the helper. */
static void
test_cancel_mid_band (void)
{
  g_autoptr(LbImage) input = lb_test_image_new (16, 400, LB_FORMAT_RGB8, 6);
  const LbIsolation modes[] = { LB_ISOLATION_NONE, LB_ISOLATION_ALL };

  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      g_autoptr(LbPipeline) pipe = lb_pipeline_new (registry);
      g_autoptr(GCancellable) c = g_cancellable_new ();
      g_autoptr(GError) error = NULL;
      g_autoptr(LbImage) out = NULL;
      CancelAt at = { c, 0.25, 0 };

      g_assert_true (lb_pipeline_append_step (pipe, MARK_ID ":value=9", &error));
      lb_pipeline_set_isolation (pipe, modes[m]);
      lb_pipeline_set_n_threads (pipe, 1);
      lb_pipeline_set_band_height (pipe, 400);
      lb_pipeline_set_progress_func (pipe, cancel_at_cb, &at, NULL);
      out = lb_pipeline_run (pipe, input, NULL, c, &error);
      g_assert_null (out);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
      g_assert_cmpfloat (at.last, ==, 0.25);
    }
}

static void
test_unsupported_format (void)
{
  static const char *const names[] = { "graya8", "graya16", "rgb16", "rgba16" };

  /* the formats after the test plugin's four, in all_formats' order */
  for (guint k = N_COMMON_FORMATS; k < LB_N_FORMATS; k++)
    {
      g_autoptr(LbImage) input = lb_test_image_new (8, 8, all_formats[k], 2);
      g_autoptr(LbPipeline) pipe = lb_pipeline_new (registry);
      g_autoptr(GError) error = NULL;
      g_autoptr(LbImage) out = NULL;
      g_autofree char *message = g_strdup_printf ("%s does not support %s images (it supports "
                                                  "gray8, gray16, rgb8, rgba8)", MARK_ID,
                                                  names[k - N_COMMON_FORMATS]);

      g_assert_true (lb_pipeline_append_step (pipe, MARK_ID, &error));
      out = lb_pipeline_run (pipe, input, NULL, NULL, &error);
      g_assert_null (out);
      g_assert_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED);
      g_assert_cmpstr (error->message, ==, message);
    }
}

/* A failing band or prepare becomes the pass's error, prefixed with the filter id; the
 * other threads stop early. */
static void
test_filter_errors (void)
{
  g_autoptr(LbImage) input = lb_test_image_new (16, 64, LB_FORMAT_GRAY8, 1);
  const char *steps[] = { MARK_ID ":fail-row=37", MARK_ID ":fail-row=-2" };
  const char *messages[] = { MARK_ID ": failing at row 37, as asked",
                             MARK_ID ": refusing in prepare, as asked" };

  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    for (guint threads = 1; threads <= 4; threads *= 2)
      {
        g_autoptr(LbPipeline) pipe = lb_pipeline_new (registry);
        g_autoptr(GError) error = NULL;
        g_autoptr(LbImage) out = NULL;

        g_assert_true (lb_pipeline_append_step (pipe, steps[i], &error));
        lb_pipeline_set_n_threads (pipe, threads);
        lb_pipeline_set_band_height (pipe, 3);
        out = lb_pipeline_run (pipe, input, NULL, NULL, &error);
        g_assert_null (out);
        g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL);
        g_assert_cmpstr (error->message, ==, messages[i]);
      }
}

static void
test_async (void)
{
  g_autoptr(LbImage) input = lb_test_image_new (50, 50, LB_FORMAT_GRAY16, 4);
  g_autoptr(LbPipeline) pipe = lb_pipeline_new (registry);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GPtrArray) timings = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(LbImage) a = NULL, b = NULL;

  g_assert_true (lb_pipeline_append_step (pipe, "soft-sharpen", &error));
  g_assert_true (lb_pipeline_append_step (pipe, "threshold:level=30", &error));
  a = lb_pipeline_run (pipe, input, NULL, NULL, &error);
  g_assert_no_error (error);
  lb_pipeline_run_async (pipe, input, NULL, lb_test_keep_result, &result);
  b = lb_pipeline_run_finish (pipe, lb_test_wait_result (&result), &timings, &error);
  g_assert_no_error (error);
  g_assert_true (lb_image_equal_pixels (a, b));
  g_assert_cmpuint (timings->len, ==, 2);
}

/* A filter with finish() and no process() (ABI 1.1) that overwrites its write rectangle, on
 * each format it takes: the host runs no bands, copies only what lies outside the selection,
 * and lends finish() every thread. Outside the selection the source, inside the mark and the
 * source's alpha. */
static void
test_finish_only (void)
{
  /* the four formats the test plugin takes */
  const LbSampleFormat *formats = all_formats;

  for (gsize f = 0; f < N_COMMON_FORMATS; f++)
    {
      g_autoptr(LbImage) input = lb_test_image_new (40, 30, formats[f], 5);
      g_autoptr(LbPipeline) pipe = lb_pipeline_new (registry);
      g_autoptr(GPtrArray) timings = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(LbImage) out = NULL;
      LbFilterRect sel = { 7, 4, 20, 11 };
      gsize pb = lb_image_get_row_size (input) / 40;
      int channels = lb_sample_format_get_channels (formats[f]);
      gboolean alpha = lb_sample_format_has_alpha (formats[f]);
      gsize samples_in = 0;
      const LbPassTiming *t;

      g_assert_true (lb_pipeline_append_step (pipe, MARK_FINISH_ID ":value=99", &error));
      g_assert_no_error (error);
      lb_pipeline_set_n_threads (pipe, 3);
      lb_pipeline_set_selection (pipe, &sel);
      out = lb_pipeline_run (pipe, input, &timings, NULL, &error);
      g_assert_no_error (error);
      for (int y = 0; y < 30; y++)
        for (int x = 0; x < 40; x++)
          {
            const guint8 *a = lb_image_get_row (input, y) + (gsize) x * pb;
            const guint8 *b = lb_image_get_row (out, y) + (gsize) x * pb;
            gboolean inside = x >= sel.x && x < sel.x + sel.width && y >= sel.y
                              && y < sel.y + sel.height;

            if (!inside)
              {
                g_assert_cmpmem (a, pb, b, pb);
                continue;
              }
            for (int c = 0; c < channels; c++)
              {
                gsize bytes = pb / (gsize) channels;

                if (alpha && c == channels - 1)
                  g_assert_cmpmem (a + c * bytes, bytes, b + c * bytes, bytes);
                else if (bytes == 2)
                  g_assert_cmpuint (((const guint16 *) b)[c], ==, 99);
                else
                  g_assert_cmpuint (b[c], ==, 99);
                samples_in++;
              }
          }
      g_assert_cmpuint (samples_in, ==, (gsize) 20 * 11 * channels);
      t = g_ptr_array_index (timings, 0);
      g_assert_cmpstr (t->filter_id, ==, MARK_FINISH_ID);
      g_assert_cmpuint (t->bands, ==, 0);
      g_assert_cmpuint (t->threads, ==, 3);
    }
}

int
main (int argc, char **argv)
{
  g_autofree char *src = lb_test_build_path ("LB_TEST_PLUGIN_DIR", "test-mark-10.so", NULL);
  g_autofree char *src_finish = lb_test_build_path ("LB_TEST_PLUGIN_DIR", "test-mark-finish.so", NULL);
  g_autofree char *src_over = lb_test_build_path ("LB_TEST_PLUGIN_DIR", "test-mark-over.so", NULL);
  int ret;

  g_test_init (&argc, &argv, NULL);
  plugin_dir = lb_test_make_tmpdir ("test-pipeline");
  lb_test_install_file (src, plugin_dir, "mark.so");
  lb_test_install_file (src_finish, plugin_dir, "mark-finish.so");
  lb_test_install_file (src_over, plugin_dir, "mark-over.so");
  /* The standard search path (the build's plugins and declarative filters) plus the test
   * plugin. */
  {
    g_autofree char *path = g_strconcat (g_getenv ("LIGHTBOX_PLUGIN_PATH"), ":", plugin_dir,
                                         NULL);
    g_setenv ("LIGHTBOX_PLUGIN_PATH", path, TRUE);
  }
  registry = lb_filter_registry_new_default ();

  g_test_add_func ("/pipeline/determinism", test_determinism);
  g_test_add_func ("/pipeline/selection", test_selection);
  g_test_add_func ("/pipeline/cancel", test_cancel);
  g_test_add_func ("/pipeline/timing-progress-chain", test_timing_progress_chain);
  g_test_add_func ("/pipeline/progress-rows", test_progress_rows);
  g_test_add_func ("/pipeline/cancel-mid-band", test_cancel_mid_band);
  g_test_add_func ("/pipeline/progress-over-report", test_progress_over_report);
  g_test_add_func ("/pipeline/unsupported-format", test_unsupported_format);
  g_test_add_func ("/pipeline/async", test_async);
  g_test_add_func ("/pipeline/filter-errors", test_filter_errors);
  g_test_add_func ("/pipeline/finish-only", test_finish_only);
  ret = g_test_run ();
  g_object_unref (registry);
  lb_test_remove_tree (plugin_dir);
  g_free (plugin_dir);
  return ret;
}
