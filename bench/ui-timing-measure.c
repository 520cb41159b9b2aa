/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ui-timing section 7: an ellipse ROI's handle dragged over a 512 × 512 CT in the window.
 *
 * Each update is what the layer does for one pointer motion of a handle drag: the point
 * moves a third of a pixel and the list announces the change, upon which the statistics are
 * computed and the panel's rows rebuilt (the synchronous part), then the frame is painted
 * with the label. Printed, median and p95: the statistics alone (lb_measurement_compute(), as
 * the layer calls it), the synchronous part, the update to the painted frame and the frame's
 * paint cost. Baselines in the same run: the canvas repainted with no measurement, a length
 * dragged the same way (no statistics), and the reference statistics path (every pixel
 * tested, each value mapped on its own). */
#include "config.h"

#include "lb-bench-util.h"
#include "lb-measure.h"
#include "lb-measure-layer.h"
#include "lb-measurement-roi.h"
#include "lb-window-test.h"
#include "measure-ct.h"
#include "ui-timing.h"

#define ROI_MM  200.0
#define UPDATES 200

typedef struct {
  GArray *stats;   /* ms: statistics of the update */
  GArray *sync;    /* ms: the point moved and the change announced */
  GArray *frame;   /* ms: the change to the painted frame */
  GArray *cost;    /* ms: the frame's paint */
} Drag;

static void
drag_free (Drag *d)
{
  g_array_unref (d->stats);
  g_array_unref (d->sync);
  g_array_unref (d->frame);
  g_array_unref (d->cost);
}

/* Drags point 1 of @m (on the window's list) back and forth, UPDATES times after a warm-up;
 * without @m, repaints the canvas as often. */
static Drag
drag (LbWindow *win, LbMeasurement *m)
{
  LbMeasurementList *list = lb_window_get_measurements (win);
  LbMeasureLayer *layer = lb_window_test_get_measure_layer (win);
  LbMeasurementPoint start = m != NULL ? lb_measurement_get_point (m, 1)
                                       : (LbMeasurementPoint) { 0, 0 };
  LbMeasurementSpacing spacing;
  LbImage *image = lb_canvas_get_image (lb_window_test_get_canvas (win));
  Drag d = {
    g_array_new (FALSE, FALSE, sizeof (double)),
    g_array_new (FALSE, FALSE, sizeof (double)),
    g_array_new (FALSE, FALSE, sizeof (double)),
    g_array_new (FALSE, FALSE, sizeof (double)),
  };

  lb_measurement_spacing_from_meta (lb_image_get_meta (image), &spacing);
  for (guint i = 0; i < UPDATES + 5; i++)
    {
      gint64 t0 = g_get_monotonic_time ();
      double step = (i % 60) / 3.0, s0, stats_ms, sync_ms, ms;
      LbMeasurementValues v;

      if (m != NULL)
        {
          lb_measurement_set_point (m, 1, start.x + step, start.y + step / 2);
          lb_measurement_list_changed (list, m);
          sync_ms = (g_get_monotonic_time () - t0) / 1000.0;
          if (!lb_measure_layer_compute (layer, m, &v))
            g_error ("no values: no image on the canvas");
          s0 = lb_measure_now_ms ();
          lb_measurement_compute (m, &spacing, image, &v, NULL);
          stats_ms = lb_measure_now_ms () - s0;
        }
      else
        {
          gtk_widget_queue_draw (GTK_WIDGET (lb_window_test_get_canvas (win)));
          sync_ms = stats_ms = 0;
        }
      if (!ui_timing_wait_painted_after (t0, 5000))
        g_error ("no frame painted");
      if (i < 5)
        continue;
      g_array_append_val (d.stats, stats_ms);
      g_array_append_val (d.sync, sync_ms);
      ms = (ui_timing_painted_us - t0) / 1000.0;
      g_array_append_val (d.frame, ms);
      ms = ui_timing_last_frame_cost_us / 1000.0;
      g_array_append_val (d.cost, ms);
    }
  return d;
}

void
ui_timing_bench_measure (LbWindow *win)
{
  g_autoptr(LbImage) ct = measure_ct_new ();
  LbCanvas *canvas = lb_window_test_get_canvas (win);
  LbMeasurementList *list = lb_window_get_measurements (win);
  double c = MEASURE_CT_SIZE / 2.0, r = ROI_MM / MEASURE_CT_SPACING / 2;
  LbMeasurementPoint box[2] = { { c - r, c - r + 0.25 }, { c + r, c + r + 0.25 } };
  LbMeasurementPoint ends[2] = { { c - r, c }, { c + r, c } };
  g_autoptr(LbMeasurement) ellipse = lb_measurement_new_with_points (LB_MEASUREMENT_ELLIPSE,
                                                                     box, 2, NULL);
  g_autoptr(LbMeasurement) length = lb_measurement_new_with_points (LB_MEASUREMENT_LENGTH,
                                                                    ends, 2, NULL);
  g_autoptr(GArray) reference = g_array_new (FALSE, FALSE, sizeof (double));
  LbMeasurementValues v;
  Drag roi, line, none;

  lb_canvas_set_image (canvas, ct, FALSE);
  ui_timing_wait_painted_after (g_get_monotonic_time (), 5000);
  lb_measurement_list_clear (list);
  none = drag (win, NULL);
  lb_measurement_list_append (list, ellipse, 1);
  lb_measure_layer_select (lb_window_test_get_measure_layer (win), ellipse);
  roi = drag (win, ellipse);
  lb_measure_layer_compute (lb_window_test_get_measure_layer (win), ellipse, &v);
  lb_measurement_list_clear (list);
  lb_measurement_list_append (list, length, 1);
  line = drag (win, length);
  lb_measurement_list_clear (list);
  for (guint i = 0; i < 25; i++)
    {
      g_autoptr(LbMeasurementRoi) region = lb_measurement_roi_new (ellipse, NULL);
      LbMeasurementStats stats;
      double t0 = lb_measure_now_ms (), ms;

      lb_measurement_roi_stats_reference (region, ct, &stats, NULL);
      ms = lb_measure_now_ms () - t0;
      g_array_append_val (reference, ms);
    }
  g_print ("\n7. Ellipse ROI handle drag, %u × %u CT, %.0f mm across (%" G_GUINT64_FORMAT
           " pixels), %u updates\n", MEASURE_CT_SIZE, MEASURE_CT_SIZE, ROI_MM, v.stats.n_pixels,
           UPDATES);
  g_print ("   statistics per update:                 median %7.3f ms   p95 %7.3f ms\n",
           median (roi.stats), pct (roi.stats, 0.95));
  g_print ("   update (point, change, stats, panel):  median %7.3f ms   p95 %7.3f ms\n",
           median (roi.sync), pct (roi.sync, 0.95));
  g_print ("   update → painted frame:                median %7.2f ms   p95 %7.2f ms\n",
           median (roi.frame), pct (roi.frame, 0.95));
  g_print ("   frame paint (before → after paint):    median %7.2f ms   p95 %7.2f ms\n",
           median (roi.cost), pct (roi.cost, 0.95));
  g_print ("   baseline, a length dragged the same way: update → painted frame median %7.2f ms"
           "   p95 %7.2f ms, paint median %7.2f ms\n",
           median (line.frame), pct (line.frame, 0.95), median (line.cost));
  g_print ("   baseline, the canvas repainted without measurements: paint median %7.2f ms"
           "   p95 %7.2f ms\n", median (none.cost), pct (none.cost, 0.95));
  g_print ("   baseline, the reference statistics path: median %7.2f ms\n", median (reference));
  drag_free (&roi);
  drag_free (&line);
  drag_free (&none);
}
