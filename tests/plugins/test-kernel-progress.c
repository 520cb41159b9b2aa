/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-kernel-progress"

/* The slow kernels of the shipped plugins (median on each of its paths, despeckle, oil,
 * Gaussian, unsharp; not oil's 8-bit histogram path, whose cost does not grow with the
 * window) report progress inside a band and stop there when the pass is cancelled
 * (plugin ABI 1.2, lb_filter_band_rows_done(), reached through lb-plugin-glue.h's ticker).
 * Each case runs as ONE band on one thread, so that without the ticker the host would hear
 * only of the band's end:
 *   - a full pass reports fractions strictly between 0 and 1, and its output equals that of
 *     the default schedule (all threads, default bands): ticking changes no pixel;
 *   - a pass cancelled from its first report stops at once: no later report (a kernel that
 *     ignored the answer would go on ticking), and the pass ends G_IO_ERROR_CANCELLED.
 * No timing is involved. */

#include <string.h>

#include "lb-filter-registry.h"
#include "lb-image.h"
#include "lb-pipeline.h"

typedef struct {
  const char *step;
  LbSampleFormat format;
  guint levels;   /* distinct values per sample, 0: the full range */
  const char *why;
} Case;

static const Case cases[] = {
  { "median:radius=3", LB_FORMAT_GRAY8, 0, "8 bits, strips of 256 columns" },
  { "median:radius=3", LB_FORMAT_RGBA8, 0, "8 bits, three channels" },
  { "median:radius=20", LB_FORMAT_GRAY16, 0, "16 bits, Huang in chunks of rows" },
  { "median:radius=20", LB_FORMAT_GRAY16, 900, "16 bits, the rank path's strips" },
  { "median:radius=60", LB_FORMAT_GRAY16, 0, "16 bits, the four tiers' strips" },
  { "median:radius=130", LB_FORMAT_GRAY16, 0, "16 bits, Huang with u32 counts" },
  { "despeckle:size=9", LB_FORMAT_RGB8, 0, "xv's median" },
  { "oil", LB_FORMAT_RGB8, 0, "xv's 4×4 window" },
  { "oil:window=symmetric,size=9", LB_FORMAT_RGB8, 0, "the count table" },
  { "gaussian:sigma=4", LB_FORMAT_GRAY16, 0, "rows of the separable Gaussian" },
  { "unsharp:radius=3", LB_FORMAT_RGB8, 0, "the Gaussian under unsharp" },
};

static LbFilterRegistry *registry;

static LbImage *
random_image (GRand *rand, guint w, guint h, LbSampleFormat format, guint levels)
{
  gsize stride;
  g_autoptr (GError) error = NULL;
  guint8 *px = lb_image_alloc_pixels (w, h, format, NULL, &stride, &error);
  const guint n = w * lb_sample_format_get_channels (format);
  const gboolean wide = lb_sample_format_get_bit_depth (format) == 16;
  const guint range = levels > 0 ? levels : wide ? 65536 : 256;
  LbImage *image;

  g_assert_no_error (error);
  for (guint y = 0; y < h; y++)
    for (guint i = 0; i < n; i++)
      {
        guint v = (guint) g_rand_int_range (rand, 0, (gint32) range);

        if (wide)
          {
            /* spread the levels over the range */
            guint16 s = (guint16) (levels > 0 ? v * (65535 / levels) : v);
            memcpy (px + (gsize) y * stride + 2 * i, &s, 2);
          }
        else
          px[(gsize) y * stride + i] = (guint8) v;
      }
  image = lb_image_new_take (w, h, format, stride, px, NULL);
  g_assert_nonnull (image);
  return image;
}

typedef struct {
  GArray *values;
  GCancellable *cancel;   /* nullable: cancelled at the first fraction above 0 */
} Log;

static void
log_progress (double   fraction,
              gpointer data)
{
  Log *log = data;

  g_array_append_val (log->values, fraction);
  if (log->cancel != NULL && fraction > 0)
    g_cancellable_cancel (log->cancel);
}

static LbImage *
run (const char   *step,
     LbImage      *input,
     guint         threads,
     guint         band_height,
     Log          *log,
     GCancellable *cancellable,
     GError      **error)
{
  g_autoptr (LbPipeline) pipe = lb_pipeline_new (registry);

  g_assert_true (lb_pipeline_append_step (pipe, step, error));
  if (threads > 0)
    lb_pipeline_set_n_threads (pipe, threads);
  if (band_height > 0)
    lb_pipeline_set_band_height (pipe, band_height);
  if (log != NULL)
    lb_pipeline_set_progress_func (pipe, log_progress, log, NULL);
  return lb_pipeline_run (pipe, input, NULL, cancellable, error);
}

static void
test_progress_and_cancel (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (20261201);
  const guint w = 600, h = 100;

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autoptr (LbImage) input = random_image (rand, w, h, cases[k].format, cases[k].levels);
      g_autoptr (GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
      g_autoptr (GCancellable) cancel = g_cancellable_new ();
      g_autoptr (GError) error = NULL;
      g_autoptr (LbImage) one_band = NULL;
      g_autoptr (LbImage) reference = NULL;
      g_autoptr (LbImage) cancelled = NULL;
      Log log = { values, NULL };
      guint inside = 0;
      double first;

      g_test_message ("%s on %s (%s)", cases[k].step,
                      lb_sample_format_to_string (cases[k].format), cases[k].why);
      one_band = run (cases[k].step, input, 1, h, &log, NULL, &error);
      g_assert_no_error (error);
      for (guint i = 0; i < values->len; i++)
        {
          const double f = g_array_index (values, double, i);

          if (i > 0)
            g_assert_cmpfloat (f, >=, g_array_index (values, double, i - 1));
          if (f > 0 && f < 1)
            inside++;
        }
      if (inside < 2)
        g_error ("%s on %s: %u reports inside the band", cases[k].step,
                 lb_sample_format_to_string (cases[k].format), inside);
      g_assert_cmpfloat (g_array_index (values, double, values->len - 1), ==, 1.0);
      reference = run (cases[k].step, input, 0, 0, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_true (lb_image_equal_pixels (one_band, reference));

      g_array_set_size (values, 0);
      log.cancel = cancel;
      cancelled = run (cases[k].step, input, 1, h, &log, cancel, &error);
      g_assert_null (cancelled);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
      g_assert_cmpuint (values->len, >=, 1);
      first = g_array_index (values, double, 0);
      g_assert_cmpfloat (first, >, 0);
      g_assert_cmpfloat (first, <, 1);
      /* nothing after the report that cancelled */
      g_assert_cmpuint (values->len, ==, 1);
    }
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  registry = lb_filter_registry_new_default ();
  g_test_add_func ("/kernel-progress/progress-and-cancel", test_progress_and_cancel);
  status = g_test_run ();
  g_clear_object (&registry);
  return status;
}
