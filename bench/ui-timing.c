/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ui-timing: the workstation's three speed figures, each with a baseline measured in the
 * same run (medians; no thresholds, this only prints):
 *
 *  1. window/level drag on a 4096×4096 16-bit image: time from a W/L change to the painted
 *     frame, per frame; baseline: windowing the whole image through the same lookup table
 *     (what a canvas that converts the full image on every change would pay).
 *  2. the same image opened from lightbox-store on 127.0.0.1: time to the first rows on
 *     screen (first frame painted after the first decoded rows) and to the complete image;
 *     baseline: the complete download + decode.
 *  5. a ≈ 1 GB 16-bit PNG (generated at run time in /dev/shm or the temp dir, removed after)
 *     opened from lightbox-store: frame intervals while the window animates, zoom input →
 *     painted frame, a 5 ms timer's lateness, throughput; baseline: the same with nothing
 *     loading. LB_UI_TIMING_SECTIONS=5 (any list of digits) runs only the sections named.
 *  6. a 100 000-entry JSON listing (nginx's format) from a loopback server: the longest
 *     main-thread stall while the store tree lists it (the parse runs on a worker thread).
 *  7. a series: stack scroll at 60 Hz on 512² and 2048² slices, a 300-slice series loaded from
 *     Orthanc over DICOMweb (under tests/dicomweb/orthanc-run.sh) against curl with as many
 *     connections, and a loaded 1000-slice series' resident size against its pixel bytes
 *     (ui-timing-series.c).
 *  8. an ellipse ROI of 200 mm dragged over a 512×512 CT: its statistics per update and the
 *     update to the painted frame; baselines: a length dragged the same way, the reference
 *     statistics path (ui-timing-measure.c).
 *  3. cold start: process start to the first painted frame of the Lightbox window
 *     (LIGHTBOX_BENCH_STARTUP=1 makes the app print it and quit); baseline: a plain
 *     GtkWindow with one label, started the same way by this program.
 *
 * Run under a display: xvfb-run -a dbus-run-session -- build/bench/ui-timing
 */
#include "config.h"

#include <gtk/gtk.h>
#include <math.h>
#include <glib/gstdio.h>
#include <png.h>
#include <zlib.h>
#include <signal.h>
#include <string.h>

#include "lb-bench-util.h"
#include "lb-limits.h"
#include "lb-measure.h"
#include "lb-png.h"
#include "lb-render.h"
#include "lb-window-test.h"
#include "ui-timing.h"

#define SIZE 4096

/* A CT-like 4096² slice: a soft-tissue disc with a bone ring and noise, HU = v − 32768. */
static LbImage *
make_ct (void)
{
  gsize stride;
  guint8 *px = lb_image_alloc_pixels (SIZE, SIZE, LB_FORMAT_GRAY16, NULL, &stride, NULL);
  g_autoptr (LbImageMeta) meta = lb_image_meta_new ();
  GRand *rand = g_rand_new_with_seed (42);

  for (guint y = 0; y < SIZE; y++)
    {
      guint16 *row = (guint16 *) (px + y * stride);
      for (guint x = 0; x < SIZE; x++)
        {
          double dx = x - SIZE / 2.0, dy = y - SIZE / 2.0, r = sqrt (dx * dx + dy * dy) / (SIZE / 2.0);
          double hu = r > 0.9 ? -1000 : r > 0.82 ? 900 : 40 + 30 * sin (x / 90.0) * cos (y / 70.0);
          hu += g_rand_double_range (rand, -15, 15);
          row[x] = (guint16) CLAMP (hu + 32768, 0, 65535);
        }
    }
  g_rand_free (rand);
  {
    /* a signed CT as the decoder holds it: sample = HU + 32768 */
    g_autoptr(LbValueModelBuilder) b = lb_value_model_builder_new (NULL, 16);
    g_autoptr(LbValueModel) model = NULL;

    lb_value_model_builder_set_source (b, TRUE, 16);
    lb_value_model_builder_set_rescale (b, 1.0, 0.0);
    lb_value_model_builder_set_units (b, "HU");
    model = lb_value_model_builder_end (g_steal_pointer (&b));
    lb_image_meta_set_value_model (meta, model);
  }
  return lb_image_new_take (SIZE, SIZE, LB_FORMAT_GRAY16, stride, px, meta);
}

/* ---- frame waiting --------------------------------------------------------------------- */

gint64 ui_timing_painted_us;
static gint64 before_paint_us;
gint64 ui_timing_last_frame_cost_us;  /* before-paint → after-paint of the last frame */

static void
on_before_paint (GdkFrameClock *clock,
                 gpointer       data)
{
  before_paint_us = g_get_monotonic_time ();
}

static void
on_after_paint (GdkFrameClock *clock,
                gpointer       data)
{
  ui_timing_painted_us = g_get_monotonic_time ();
  ui_timing_last_frame_cost_us = ui_timing_painted_us - before_paint_us;
}

gboolean
ui_timing_wait_painted_after (gint64 since,
                              guint  timeout_ms)
{
  gint64 end = g_get_monotonic_time () + timeout_ms * 1000;

  while (ui_timing_painted_us <= since)
    {
      if (g_get_monotonic_time () > end)
        return FALSE;
      g_main_context_iteration (NULL, TRUE);
    }
  return TRUE;
}

/* ---- 1: W/L drag ----------------------------------------------------------------------- */

static void
bench_wl (LbWindow *win,
          LbImage  *img)
{
  g_autoptr (GArray) frame = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) cost = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) render = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) full = g_array_new (FALSE, FALSE, sizeof (double));
  LbRenderSource src;
  LbLut lut = { 0 };
  LbValueModel *model;
  LbCanvas *canvas = lb_window_test_get_canvas (win);
  int cw = gtk_widget_get_width (GTK_WIDGET (canvas));
  int ch = gtk_widget_get_height (GTK_WIDGET (canvas));
  g_autofree guint8 *out = g_malloc ((gsize) cw * ch * 4);
  g_autofree guint8 *fullbuf = g_malloc ((gsize) SIZE * SIZE);
  LbViewTransform view = { MIN ((double) cw / SIZE, (double) ch / SIZE), SIZE / 2.0, SIZE / 2.0, 0, FALSE };

  lb_canvas_set_image (canvas, img, FALSE);
  ui_timing_wait_painted_after (g_get_monotonic_time (), 5000);
  cw = gtk_widget_get_width (GTK_WIDGET (canvas));
  ch = gtk_widget_get_height (GTK_WIDGET (canvas));
  out = g_realloc (out, (gsize) cw * ch * 4);
  view.zoom = MIN ((double) cw / SIZE, (double) ch / SIZE);
  /* a right-drag: every step changes centre and width, and waits for the painted frame */
  for (int i = 0; i < 60; i++)
    {
      gint64 t0 = g_get_monotonic_time ();
      double ms;

      lb_canvas_set_window (canvas, 40 + (i % 30) * 7, 400 + (i % 20) * 25);
      if (!ui_timing_wait_painted_after (t0, 5000))
        g_error ("no frame painted");
      ms = (ui_timing_painted_us - t0) / 1000.0;
      if (i >= 5)
        {
          g_array_append_val (frame, ms);
          ms = ui_timing_last_frame_cost_us / 1000.0;
          g_array_append_val (cost, ms);
        }
    }

  /* the parts: LUT + visible-area render (what a frame costs Lightbox) and the baseline */
  lb_render_source_from_image (&src, img);
  model = lb_image_meta_get_value_model (lb_image_get_meta (img));
  for (int i = 0; i < 25; i++)
    {
      double t0 = lb_measure_now_ms (), ms;

      lb_lut_build (&lut, 16, model, &(LbVoi) { LB_VOI_LINEAR, 40 + i, 400 + i, NULL }, FALSE);
      lb_render_view (out, (gsize) cw * 4, cw, ch, &view, &src, &lut, NULL, NULL, 0);
      ms = lb_measure_now_ms () - t0;
      g_array_append_val (render, ms);

      t0 = lb_measure_now_ms ();
      lb_lut_build (&lut, 16, model, &(LbVoi) { LB_VOI_LINEAR, 40 + i, 400 + i, NULL }, FALSE);
      for (guint y = 0; y < SIZE; y++)
        {
          const guint16 *row = (const guint16 *) lb_image_get_row (img, y);
          guint8 *o = fullbuf + (gsize) y * SIZE;
          for (guint x = 0; x < SIZE; x++)
            o[x] = lut.table[row[x]];
        }
      ms = lb_measure_now_ms () - t0;
      g_array_append_val (full, ms);
    }
  lb_lut_clear (&lut);
  g_print ("\n1. Window/level drag, %d×%d 16-bit, canvas %d×%d px (%s renderer)\n", SIZE, SIZE,
           cw, ch, g_getenv ("GSK_RENDERER") ? g_getenv ("GSK_RENDERER") : "default");
  g_print ("   frame repaint (before → after paint):  median %7.2f ms   p90 %7.2f ms  (%u frames)\n",
           median (cost), pct (cost, 0.9), cost->len);
  g_print ("   W/L change → painted frame (incl. wait for the frame clock tick):\n"
           "                                          median %7.2f ms   p90 %7.2f ms\n",
           median (frame), pct (frame, 0.9));
  g_print ("   of which LUT + visible-area render:    median %7.2f ms\n", median (render));
  g_print ("   baseline, window the whole image:      median %7.2f ms   (%.1f× the visible-area render)\n",
           median (full), median (full) / median (render));
}

/* ---- 2: first pixels from lightbox-store ----------------------------------------------- */

static gboolean
load_done (gpointer data)
{
  return lb_window_test_get_load_done_us (LB_WINDOW (data)) != 0
         && !lb_window_is_busy (LB_WINDOW (data));
}

/* The window's last status line, for messages. */
const char *
ui_timing_last_status (LbWindow *win)
{
  const char *status = lb_window_test_get_last_status (win);
  return status ? status : "no status";
}

gboolean
ui_timing_store_ready (gpointer data)
{
  LbWindow *w = data;
  return lb_store_browser_get_pending (lb_window_test_get_browser (w)) == 0;
}

gboolean
ui_timing_wait_for (gboolean (*cond) (gpointer),
                    gpointer data,
                    guint    ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (!cond (data))
    {
      if (g_get_monotonic_time () > end)
        return FALSE;
      g_main_context_iteration (NULL, TRUE);
    }
  return TRUE;
}

/* Starts the built lightbox-store serving @root on a free port of 127.0.0.1; returns its URL.
 * Its stdout stays open (held by *proc) until the process is gone. */
char *
ui_timing_start_store (const char   *root,
                       GSubprocess **proc)
{
  g_autofree char *server = g_build_filename (g_getenv ("LB_BUILD_ROOT"), "src", "server",
                                              "lightbox-store", NULL);
  g_autoptr (GError) error = NULL;
  GDataInputStream *out;
  g_autofree char *line = NULL;

  *proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, server, "--port", "0", root,
                            NULL);
  if (*proc == NULL)
    g_error ("%s", error->message);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (*proc));
  g_object_set_data_full (G_OBJECT (*proc), "lb-stdout", out, g_object_unref);
  line = g_data_input_stream_read_line_utf8 (out, NULL, NULL, &error);
  if (line == NULL || strstr (line, " at ") == NULL)
    g_error ("lightbox-store did not start");
  return g_strdup (strstr (line, " at ") + 4);
}

static void
bench_first_pixels (LbWindow *win,
                    LbImage  *img)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *root = g_dir_make_tmp ("lightbox-bench-XXXXXX", &error);
  g_autofree char *path = g_build_filename (root, "ct-4096.png", NULL);
  g_autoptr (GSubprocess) proc = NULL;
  g_autofree char *url = NULL, *img_url = NULL;
  g_autoptr (GArray) first = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) shown = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) done = g_array_new (FALSE, FALSE, sizeof (double));
  GStatBuf st;

  if (!lb_png_save_to_file (img, path, &error))
    g_error ("%s", error->message);
  g_stat (path, &st);
  url = ui_timing_start_store (root, &proc);
  img_url = g_strconcat (url, "ct-4096.png", NULL);
  lb_window_open_store (win, url);
  ui_timing_wait_for (ui_timing_store_ready, win, 10000);

  for (int i = 0; i < 7; i++)
    {
      gint64 painted_first, started;
      double ms;

      ui_timing_painted_us = 0;
      lb_window_open_store_image (win, img_url);
      /* wait for the first decoded rows, then the frame that shows them */
      while (lb_window_test_get_first_pixels_us (win) == 0 && lb_window_test_is_loading (win))
        g_main_context_iteration (NULL, TRUE);
      ui_timing_wait_painted_after (lb_window_test_get_first_pixels_us (win), 5000);
      painted_first = ui_timing_painted_us;
      if (!ui_timing_wait_for (load_done, win, 60000))
        g_error ("the image did not load: %s", ui_timing_last_status (win));
      if (i == 0)
        continue; /* warm-up: page cache, connection */
      started = lb_window_test_get_load_started_us (win);
      ms = (lb_window_test_get_first_pixels_us (win) - started) / 1000.0;
      g_array_append_val (first, ms);
      ms = (painted_first - started) / 1000.0;
      g_array_append_val (shown, ms);
      ms = (lb_window_test_get_load_done_us (win) - started) / 1000.0;
      g_array_append_val (done, ms);
    }
  g_print ("\n2. Open %d×%d 16-bit PNG (%.1f MB) from lightbox-store on 127.0.0.1\n", SIZE, SIZE,
           st.st_size / 1e6);
  g_print ("   first decoded rows:                    median %7.1f ms\n", median (first));
  g_print ("   first rows painted on screen:          median %7.1f ms\n", median (shown));
  g_print ("   baseline, complete download + decode:  median %7.1f ms   (%.1f× the first paint)\n",
           median (done), median (done) / median (shown));
  g_subprocess_send_signal (proc, SIGTERM);
  g_subprocess_wait (proc, NULL, NULL);
  /* The whole tree: lightbox-store made its .lightbox/filters directory in root too. */
  lb_bench_remove_tree (root);
}

/* ---- 3: cold start --------------------------------------------------------------------- */

static double
spawn_and_read (const char *const *argv,
                const char        *env_name)
{
  g_autoptr (GSubprocessLauncher) l = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                                                 | G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_autoptr (GSubprocess) p = NULL;
  g_autofree char *stdout_buf = NULL;
  g_autoptr (GError) error = NULL;
  const char *at;

  g_subprocess_launcher_setenv (l, env_name, "1", TRUE);
  p = g_subprocess_launcher_spawnv (l, argv, &error);
  if (p == NULL || !g_subprocess_communicate_utf8 (p, NULL, NULL, &stdout_buf, NULL, &error))
    g_error ("%s", error->message);
  at = stdout_buf ? strstr (stdout_buf, "first frame ") : NULL;
  return at ? g_ascii_strtod (at + 12, NULL) : NAN;
}

/* --baseline-window: the reference start-up, a GtkWindow with one label. */
static gint64 baseline_start;

static void
baseline_painted (GdkFrameClock *clock,
                  GApplication  *app)
{
  g_signal_handlers_disconnect_by_func (clock, baseline_painted, app);
  g_print ("baseline: first frame %.1f ms after start\n",
           (g_get_monotonic_time () - baseline_start) / 1000.0);
  g_application_quit (app);
}

static void
baseline_mapped (GtkWidget    *w,
                 GApplication *app)
{
  g_signal_connect (gtk_widget_get_frame_clock (w), "after-paint", G_CALLBACK (baseline_painted), app);
}

static void
baseline_activate (GApplication *app)
{
  GtkWidget *w = gtk_application_window_new (GTK_APPLICATION (app));

  gtk_window_set_default_size (GTK_WINDOW (w), 1280, 800);
  gtk_window_set_child (GTK_WINDOW (w), gtk_label_new ("baseline"));
  g_signal_connect (w, "map", G_CALLBACK (baseline_mapped), app);
  gtk_window_present (GTK_WINDOW (w));
}

static int
run_baseline_window (void)
{
  g_autoptr (GtkApplication) app = NULL;

  baseline_start = g_get_monotonic_time ();
  app = gtk_application_new ("io.github.lightbox.BenchBaseline", G_APPLICATION_NON_UNIQUE);
  g_signal_connect (app, "activate", G_CALLBACK (baseline_activate), NULL);
  return g_application_run (G_APPLICATION (app), 0, NULL);
}

static void
bench_startup (const char *self_path)
{
  g_autofree char *lightbox = g_build_filename (g_getenv ("LB_BUILD_ROOT"), "src", "app",
                                                "lightbox", NULL);
  const char *app_argv[] = { lightbox, "--gapplication-app-id=io.github.lightbox.BenchStart", NULL };
  const char *base_argv[] = { self_path, "--baseline-window", NULL };
  g_autoptr (GArray) app = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) base = g_array_new (FALSE, FALSE, sizeof (double));

  /* alternate, so load on this shared machine hits both alike */
  for (int i = 0; i < 8; i++)
    {
      double a = spawn_and_read (app_argv, "LIGHTBOX_BENCH_STARTUP");
      double b = spawn_and_read (base_argv, "LIGHTBOX_BENCH_BASELINE");
      if (i == 0)
        continue;
      g_array_append_val (app, a);
      g_array_append_val (base, b);
    }
  g_print ("\n3. Cold start to the first painted frame of a 1280×800 window\n");
  g_print ("   lightbox:                              median %7.1f ms   p90 %7.1f ms\n",
           median (app), pct (app, 0.9));
  g_print ("   baseline, GtkWindow with a label:      median %7.1f ms   (lightbox = %.2f× baseline)\n",
           median (base), median (app) / median (base));
}

static gboolean
section_wanted (char n)
{
  const char *only = g_getenv ("LB_UI_TIMING_SECTIONS");
  return only == NULL || strchr (only, n) != NULL;
}

int
main (int argc, char **argv)
{
  g_autoptr (LbApplication) app = NULL;
  g_autoptr (LbImage) img = NULL;
  g_autoptr (GError) error = NULL;
  LbWindow *win;

  setvbuf (stdout, NULL, _IOLBF, 0);
  /* the renderer Lightbox itself would pick, for the baseline window too: a fair comparison */
  lb_application_pick_renderer ();
  if (argc > 1 && g_str_equal (argv[1], "--baseline-window"))
    return run_baseline_window ();
  if (g_getenv ("LB_BUILD_ROOT") == NULL)
    {
      g_printerr ("set LB_BUILD_ROOT (meson benchmark does)\n");
      return 1;
    }
  gtk_init ();
  if (gdk_display_get_default () == NULL)
    {
      g_printerr ("ui-timing needs a display (xvfb-run)\n");
      return 77;
    }
  g_print ("ui-timing: %u processors, load average in /proc/loadavg; GTK %u.%u.%u\n",
           g_get_num_processors (), gtk_get_major_version (), gtk_get_minor_version (),
           gtk_get_micro_version ());
  app = lb_application_new ();
  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_NON_UNIQUE);
  g_application_register (G_APPLICATION (app), NULL, &error);
  win = lb_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (win), 1280, 800);
  gtk_window_present (GTK_WINDOW (win));
  while (gtk_widget_get_frame_clock (GTK_WIDGET (win)) == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_signal_connect (gtk_widget_get_frame_clock (GTK_WIDGET (win)), "after-paint",
                    G_CALLBACK (on_after_paint), NULL);
  g_signal_connect (gtk_widget_get_frame_clock (GTK_WIDGET (win)), "before-paint",
                    G_CALLBACK (on_before_paint), NULL);
  img = make_ct ();
  if (section_wanted ('1'))
    bench_wl (win, img);
  if (section_wanted ('2'))
    bench_first_pixels (win, img);
  if (section_wanted ('4'))
    ui_timing_bench_large_folder (win);
  if (section_wanted ('5'))
    ui_timing_bench_download (win, img);
  if (section_wanted ('6'))
    ui_timing_bench_json_listing (win);
  if (section_wanted ('7'))
    ui_timing_bench_series (win);
  if (section_wanted ('8'))
    ui_timing_bench_measure (win);
  gtk_window_destroy (GTK_WINDOW (win));
  if (section_wanted ('3'))
  {
    /* spawn this very binary for the baseline, wherever it was started from */
    g_autofree char *self_exe = g_file_read_link ("/proc/self/exe", NULL);
    bench_startup (self_exe ? self_exe : argv[0]);
  }
  return 0;
}
