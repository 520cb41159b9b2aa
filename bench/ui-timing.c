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
#include <signal.h>

#include "lb-bench-stats.h"
#include "lb-png.h"
#include "lb-render.h"
#include "lb-window-private.h"

#define SIZE 4096

static int
cmp_double (gconstpointer a,
            gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y ? 1 : 0;
}

static double
median (GArray *a)
{
  g_array_sort (a, cmp_double);
  return a->len ? g_array_index (a, double, a->len / 2) : NAN;
}

static double
pct (GArray *a,
     double  p)
{
  g_array_sort (a, cmp_double);
  return a->len ? g_array_index (a, double, (guint) MIN (a->len - 1, p * a->len)) : NAN;
}

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
  lb_image_meta_set_rescale (meta, 1.0, -32768);
  return lb_image_new_take (SIZE, SIZE, LB_FORMAT_GRAY16, stride, px, meta);
}

/* ---- frame waiting --------------------------------------------------------------------- */

static gint64 painted_us;
static gint64 before_paint_us;
static gint64 last_frame_cost_us;  /* before-paint → after-paint of the last frame */

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
  painted_us = g_get_monotonic_time ();
  last_frame_cost_us = painted_us - before_paint_us;
}

static gboolean
wait_painted_after (gint64 since,
                    guint  timeout_ms)
{
  gint64 end = g_get_monotonic_time () + timeout_ms * 1000;

  while (painted_us <= since)
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
  LbValueMap map;
  int cw = gtk_widget_get_width (GTK_WIDGET (win->canvas));
  int ch = gtk_widget_get_height (GTK_WIDGET (win->canvas));
  g_autofree guint8 *out = g_malloc ((gsize) cw * ch * 4);
  g_autofree guint8 *fullbuf = g_malloc ((gsize) SIZE * SIZE);
  LbViewTransform view = { MIN ((double) cw / SIZE, (double) ch / SIZE), SIZE / 2.0, SIZE / 2.0, 0, FALSE };

  lb_canvas_set_image (win->canvas, img, FALSE);
  wait_painted_after (g_get_monotonic_time (), 5000);
  cw = gtk_widget_get_width (GTK_WIDGET (win->canvas));
  ch = gtk_widget_get_height (GTK_WIDGET (win->canvas));
  out = g_realloc (out, (gsize) cw * ch * 4);
  view.zoom = MIN ((double) cw / SIZE, (double) ch / SIZE);
  /* a right-drag: every step changes centre and width, and waits for the painted frame */
  for (int i = 0; i < 60; i++)
    {
      gint64 t0 = g_get_monotonic_time ();
      double ms;

      lb_canvas_set_window (win->canvas, 40 + (i % 30) * 7, 400 + (i % 20) * 25);
      if (!wait_painted_after (t0, 5000))
        g_error ("no frame painted");
      ms = (painted_us - t0) / 1000.0;
      if (i >= 5)
        {
          g_array_append_val (frame, ms);
          ms = last_frame_cost_us / 1000.0;
          g_array_append_val (cost, ms);
        }
    }

  /* the parts: LUT + visible-area render (what a frame costs Lightbox) and the baseline */
  lb_render_source_from_image (&src, img);
  lb_value_map_from_meta (&map, lb_image_get_meta (img));
  for (int i = 0; i < 25; i++)
    {
      double t0 = lb_bench_now_ms (), ms;

      lb_lut_build (&lut, 16, &map, 40 + i, 400 + i, FALSE);
      lb_render_view (out, (gsize) cw * 4, cw, ch, &view, &src, &lut, NULL, NULL, 0);
      ms = lb_bench_now_ms () - t0;
      g_array_append_val (render, ms);

      t0 = lb_bench_now_ms ();
      lb_lut_build (&lut, 16, &map, 40 + i, 400 + i, FALSE);
      for (guint y = 0; y < SIZE; y++)
        {
          const guint16 *row = (const guint16 *) lb_image_get_row (img, y);
          guint8 *o = fullbuf + (gsize) y * SIZE;
          for (guint x = 0; x < SIZE; x++)
            o[x] = lut.table[row[x]];
        }
      ms = lb_bench_now_ms () - t0;
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
  return LB_WINDOW (data)->load_done_us != 0 && !lb_window_is_busy (LB_WINDOW (data));
}

static gboolean
store_ready (gpointer data)
{
  LbWindow *w = data;
  return lb_store_browser_get_pending (w->browser) == 0;
}

static gboolean
wait_for (gboolean (*cond) (gpointer),
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

static void
bench_first_pixels (LbWindow *win,
                    LbImage  *img)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *root = g_dir_make_tmp ("lightbox-bench-XXXXXX", &error);
  g_autofree char *path = g_build_filename (root, "ct-4096.png", NULL);
  g_autofree char *server = g_build_filename (g_getenv ("LB_BUILD_ROOT"), "src", "server",
                                              "lightbox-store", NULL);
  g_autoptr (GSubprocess) proc = NULL;
  g_autoptr (GDataInputStream) out = NULL;
  g_autofree char *line = NULL, *url = NULL, *img_url = NULL;
  g_autoptr (GArray) first = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) shown = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) done = g_array_new (FALSE, FALSE, sizeof (double));
  GStatBuf st;

  if (!lb_png_save_to_file (img, path, &error))
    g_error ("%s", error->message);
  g_stat (path, &st);
  proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, server, "--port", "0", root, NULL);
  if (proc == NULL)
    g_error ("%s", error->message);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (proc));
  line = g_data_input_stream_read_line_utf8 (out, NULL, NULL, &error);
  if (line == NULL || strstr (line, " at ") == NULL)
    g_error ("lightbox-store did not start");
  url = g_strdup (strstr (line, " at ") + 4);
  img_url = g_strconcat (url, "ct-4096.png", NULL);
  lb_window_open_store (win, url);
  wait_for (store_ready, win, 10000);

  for (int i = 0; i < 7; i++)
    {
      gint64 painted_first;
      double ms;

      painted_us = 0;
      lb_window_open_store_image (win, img_url);
      /* wait for the first decoded rows, then the frame that shows them */
      while (win->first_pixels_us == 0 && win->load_cancellable != NULL)
        g_main_context_iteration (NULL, TRUE);
      wait_painted_after (win->first_pixels_us, 5000);
      painted_first = painted_us;
      if (!wait_for (load_done, win, 60000))
        g_error ("the image did not load: %s", win->last_status ? win->last_status : "no status");
      if (i == 0)
        continue; /* warm-up: page cache, connection */
      ms = (win->first_pixels_us - win->load_started_us) / 1000.0;
      g_array_append_val (first, ms);
      ms = (painted_first - win->load_started_us) / 1000.0;
      g_array_append_val (shown, ms);
      ms = (win->load_done_us - win->load_started_us) / 1000.0;
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
  g_unlink (path);
  g_rmdir (root);
}

/* ---- 4: a folder of 100 000 entries ------------------------------------------------- */

/* While the listing arrives: the longest single main-loop iteration (how long the main
 * thread was busy without returning to the loop) and the longest interval between two frame
 * clock ticks (a tick callback keeps the clock running at the display rate). The stall is
 * an iteration's time minus its wait in poll(). */
static gint64 last_tick_us, max_tick_gap_us;

static gboolean
on_listing_tick (GtkWidget     *widget,
                 GdkFrameClock *clock,
                 gpointer       data)
{
  gint64 now = g_get_monotonic_time ();

  if (last_tick_us != 0)
    max_tick_gap_us = MAX (max_tick_gap_us, now - last_tick_us);
  last_tick_us = now;
  return G_SOURCE_CONTINUE;
}

/* Time spent waiting in poll(): an iteration minus that is main-thread work. */
static GPollFunc real_poll;
static gint64 poll_us;

static gint
timed_poll (GPollFD *fds,
            guint    n_fds,
            gint     timeout)
{
  gint64 s = g_get_monotonic_time ();
  gint r = real_poll (fds, n_fds, timeout);

  poll_us += g_get_monotonic_time () - s;
  return r;
}

static gboolean
has_first_rows (gpointer data)
{
  LbWindow *w = data;
  return lb_store_browser_get_rows (w->browser) != NULL
         && lb_store_browser_get_entry (w->browser, 0) != NULL;
}

static void
bench_large_folder (LbWindow *win)
{
  g_autofree char *dir = g_dir_make_tmp ("lightbox-100k-XXXXXX", NULL);
  g_autofree char *uri = g_filename_to_uri (dir, NULL, NULL);
  g_autoptr (GArray) frames = g_array_new (FALSE, FALSE, sizeof (double));
  GtkAdjustment *adj;
  GtkWidget *scroller;
  gint64 t0, t_first = 0, t_all = 0, ready_first = 0, ready_all = 0, max_iter_us = 0;
  gint64 max_iter_at = 0;
  guint max_iter_rows = 0;
  guint tick;
  char name[64];

  for (int i = 0; i < 100000; i++)
    {
      g_autofree char *p = NULL;
      g_snprintf (name, sizeof name, "img-%06d.png", i);
      p = g_build_filename (dir, name, NULL);
      g_file_set_contents (p, "", 0, NULL);
    }
  last_tick_us = max_tick_gap_us = 0;
  tick = gtk_widget_add_tick_callback (GTK_WIDGET (win), on_listing_tick, NULL, NULL);
  t0 = g_get_monotonic_time ();
  lb_window_open_store (win, uri);
  /* one loop watches both moments: rows there (first / all), then the next painted frame;
   * each iteration's length is how long the main thread did not come back to the loop */
  real_poll = g_main_context_get_poll_func (NULL);
  g_main_context_set_poll_func (NULL, timed_poll);
  while (t_all == 0 && g_get_monotonic_time () - t0 < G_GINT64_CONSTANT (120000000))
    {
      gint64 s = g_get_monotonic_time (), p = poll_us;

      g_main_context_iteration (NULL, TRUE);
      if (g_get_monotonic_time () - s - (poll_us - p) > max_iter_us)
        {
          GListModel *rows = lb_store_browser_get_rows (win->browser);

          max_iter_us = g_get_monotonic_time () - s - (poll_us - p);
          max_iter_at = s - t0;
          max_iter_rows = rows ? g_list_model_get_n_items (rows) : 0;
        }
      if (ready_first == 0 && has_first_rows (win))
        ready_first = g_get_monotonic_time ();
      if (ready_first != 0 && t_first == 0 && painted_us > ready_first)
        t_first = painted_us;
      if (ready_first != 0 && ready_all == 0 && store_ready (win))
        ready_all = g_get_monotonic_time ();
      if (ready_all != 0 && t_first != 0 && painted_us > ready_all)
        t_all = painted_us;
    }
  g_main_context_set_poll_func (NULL, real_poll);
  gtk_widget_remove_tick_callback (GTK_WIDGET (win), tick);
  /* scroll through the list: time per painted frame */
  scroller = gtk_widget_get_parent (lb_store_browser_get_view (win->browser));
  adj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
  for (int i = 0; i < 40; i++)
    {
      gint64 s0 = g_get_monotonic_time ();
      double ms;

      gtk_adjustment_set_value (adj, gtk_adjustment_get_upper (adj) * i / 40.0);
      /* a frame even when the value did not change (the first step, at the top) */
      gtk_widget_queue_draw (lb_store_browser_get_view (win->browser));
      wait_painted_after (s0, 5000);
      ms = last_frame_cost_us / 1000.0;
      g_array_append_val (frames, ms);
    }
  g_print ("\n4. A folder of 100 000 entries in the store tree (local folder store)\n");
  g_print ("   first rows painted:                    %7.1f ms\n", (t_first - t0) / 1000.0);
  g_print ("   all rows listed, sorted and painted:   %7.1f ms (%u rows)\n", (t_all - t0) / 1000.0,
           g_list_model_get_n_items (lb_store_browser_get_rows (win->browser)));
  g_print ("   longest main-thread stall meanwhile:   %7.1f ms   longest frame interval %7.1f ms\n",
           max_iter_us / 1000.0, max_tick_gap_us / 1000.0);
  g_print ("   (that stall began at %.1f ms, with %u rows)\n", max_iter_at / 1000.0, max_iter_rows);
  g_print ("   scrolling, frame repaint:              median %7.2f ms   p90 %7.2f ms\n",
           median (frames), pct (frames, 0.9));
  for (int i = 0; i < 100000; i++)
    {
      g_autofree char *p = NULL;
      g_snprintf (name, sizeof name, "img-%06d.png", i);
      p = g_build_filename (dir, name, NULL);
      g_unlink (p);
    }
  g_rmdir (dir);
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
  bench_wl (win, img);
  bench_first_pixels (win, img);
  bench_large_folder (win);
  gtk_window_destroy (GTK_WINDOW (win));
  {
    /* spawn this very binary for the baseline, wherever it was started from */
    g_autofree char *self_exe = g_file_read_link ("/proc/self/exe", NULL);
    bench_startup (self_exe ? self_exe : argv[0]);
  }
  return 0;
}
