/* SPDX-License-Identifier: GPL-3.0-or-later */
/* measure-timing: what one update of a region's statistics costs while the user drags it
 * (issue: measurements; the target is ≤ 4 ms for a 200 mm ellipse on a 512 × 512 CT).
 *
 * A synthetic 512 × 512 signed 16-bit CT (0.7 mm pixels, rescale to HU, pixel padding in the
 * corners outside the scanned circle) and ROIs of 200 mm across: an ellipse, a rectangle and
 * a 256-point freehand outline. Each update moves the ROI by a fraction of a pixel, as a drag
 * does, and computes everything the workstation shows (lb_measurement_compute(): the area, the
 * inside pixels, mean, SD, min, max). Prints the median and the 95th percentile over the
 * updates, and beside them the plain reference path (every pixel tested, each value mapped on
 * its own) as the baseline. Never a test: no time is asserted. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lb-measure.h"
#include "lb-measurement-geometry.h"
#include "measure-ct.h"

#define SIZE    MEASURE_CT_SIZE
#define SPACING MEASURE_CT_SPACING
#define ROI_MM  200.0

static LbMeasurement *
make_roi (LbMeasurementTool tool, double cx, double cy)
{
  double r = ROI_MM / SPACING / 2;
  LbMeasurement *m = lb_measurement_new (tool);

  if (tool == LB_MEASUREMENT_FREEHAND)
    for (guint i = 0; i < 256; i++)
      {
        double a = 2 * G_PI * i / 256, wobble = 1 + 0.05 * sin (7 * a);

        lb_measurement_add_point (m, cx + r * wobble * cos (a), cy + r * wobble * sin (a));
      }
  else
    {
      lb_measurement_add_point (m, cx - r, cy - r);
      lb_measurement_add_point (m, cx + r, cy + r);
    }
  return m;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

typedef struct {
  double   median;
  double   p95;
  guint64  n_pixels;
} Timing;

static Timing
time_updates (LbImage *image, LbMeasurementTool tool, gboolean reference, guint n)
{
  g_autofree double *ms = g_new (double, n);
  LbMeasurementSpacing spacing;
  Timing t = { 0 };

  lb_measurement_spacing_from_meta (lb_image_get_meta (image), &spacing);
  for (guint i = 0; i < n + 3; i++)
    {
      /* a drag: a third of a pixel further each time, back and forth */
      double step = (i % 60) / 3.0;
      g_autoptr(LbMeasurement) m = make_roi (tool, SIZE / 2.0 - 10 + step, SIZE / 2.0 + 0.25);
      double t0 = lb_measure_now_ms (), t1;
      LbMeasurementValues v;

      if (reference)
        {
          g_autoptr(LbMeasurementRoi) roi = lb_measurement_roi_new (m, NULL);

          lb_measurement_roi_stats_reference (roi, image, &v.stats, NULL);
        }
      else if (!lb_measurement_compute (m, &spacing, image, &v, NULL))
        g_error ("the ROI does not compute");
      t1 = lb_measure_now_ms ();
      if (i >= 3)  /* warm-up: page faults, the first allocations */
        ms[i - 3] = t1 - t0;
      t.n_pixels = v.stats.n_pixels;
    }
  qsort (ms, n, sizeof (double), compare_doubles);
  t.median = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  t.p95 = ms[MIN (n - 1, (guint) ceil (0.95 * n) - 1)];
  return t;
}

int
main (int argc, char **argv)
{
  g_autoptr(LbImage) image = measure_ct_new ();
  static const LbMeasurementTool tools[] = {
    LB_MEASUREMENT_ELLIPSE, LB_MEASUREMENT_RECTANGLE, LB_MEASUREMENT_FREEHAND,
  };
  guint n = argc > 1 ? (guint) atoi (argv[1]) : 1000;

  if (n < 20)
    n = 20;
  printf ("ROI statistics per drag update, 512 × 512 CT, %.1f mm pixels, ROI %.0f mm across, "
          "%u updates\n", SPACING, ROI_MM, n);
  printf ("%-10s %10s %10s %10s %14s %14s\n", "roi", "pixels", "median_ms", "p95_ms",
          "ref_median_ms", "ref_p95_ms");
  for (guint i = 0; i < G_N_ELEMENTS (tools); i++)
    {
      Timing fast = time_updates (image, tools[i], FALSE, n);
      Timing ref = time_updates (image, tools[i], TRUE, MAX (n / 10, 20));

      printf ("%-10s %10" G_GUINT64_FORMAT " %10.3f %10.3f %14.3f %14.3f\n",
              lb_measurement_tool_to_string (tools[i]), fast.n_pixels, fast.median, fast.p95,
              ref.median, ref.p95);
    }
  return 0;
}
