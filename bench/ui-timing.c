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
  LbCanvas *canvas = lb_window_test_get_canvas (win);
  int cw = gtk_widget_get_width (GTK_WIDGET (canvas));
  int ch = gtk_widget_get_height (GTK_WIDGET (canvas));
  g_autofree guint8 *out = g_malloc ((gsize) cw * ch * 4);
  g_autofree guint8 *fullbuf = g_malloc ((gsize) SIZE * SIZE);
  LbViewTransform view = { MIN ((double) cw / SIZE, (double) ch / SIZE), SIZE / 2.0, SIZE / 2.0, 0, FALSE };

  lb_canvas_set_image (canvas, img, FALSE);
  wait_painted_after (g_get_monotonic_time (), 5000);
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
      double t0 = lb_measure_now_ms (), ms;

      lb_lut_build (&lut, 16, &map, 40 + i, 400 + i, FALSE);
      lb_render_view (out, (gsize) cw * 4, cw, ch, &view, &src, &lut, NULL, NULL, 0);
      ms = lb_measure_now_ms () - t0;
      g_array_append_val (render, ms);

      t0 = lb_measure_now_ms ();
      lb_lut_build (&lut, 16, &map, 40 + i, 400 + i, FALSE);
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
static const char *
last_status (LbWindow *win)
{
  const char *status = lb_window_test_get_last_status (win);
  return status ? status : "no status";
}

static gboolean
store_ready (gpointer data)
{
  LbWindow *w = data;
  return lb_store_browser_get_pending (lb_window_test_get_browser (w)) == 0;
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

/* Starts the built lightbox-store serving @root on a free port of 127.0.0.1; returns its URL.
 * Its stdout stays open (held by *proc) until the process is gone. */
static char *
start_store (const char  *root,
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
  url = start_store (root, &proc);
  img_url = g_strconcat (url, "ct-4096.png", NULL);
  lb_window_open_store (win, url);
  wait_for (store_ready, win, 10000);

  for (int i = 0; i < 7; i++)
    {
      gint64 painted_first, started;
      double ms;

      painted_us = 0;
      lb_window_open_store_image (win, img_url);
      /* wait for the first decoded rows, then the frame that shows them */
      while (lb_window_test_get_first_pixels_us (win) == 0 && lb_window_test_is_loading (win))
        g_main_context_iteration (NULL, TRUE);
      wait_painted_after (lb_window_test_get_first_pixels_us (win), 5000);
      painted_first = painted_us;
      if (!wait_for (load_done, win, 60000))
        g_error ("the image did not load: %s", last_status (win));
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
  return lb_store_browser_get_rows (lb_window_test_get_browser (w)) != NULL
         && lb_store_browser_get_entry (lb_window_test_get_browser (w), 0) != NULL;
}

/* What the main loop did while the store tree listed a large folder. */
typedef struct {
  gint64 t_first, t_all;       /* µs from opening the store: first rows / all rows painted */
  gint64 max_iter_us;          /* the longest main-loop iteration minus its poll(): a stall */
  gint64 max_iter_at;          /* when that stall began (µs from opening) */
  guint  max_iter_rows;        /* rows listed when it began */
} ListingWatch;

static void
watch_listing (LbWindow *win, const char *uri, ListingWatch *w)
{
  gint64 t0, ready_first = 0, ready_all = 0;
  guint tick;

  memset (w, 0, sizeof *w);
  last_tick_us = max_tick_gap_us = 0;
  tick = gtk_widget_add_tick_callback (GTK_WIDGET (win), on_listing_tick, NULL, NULL);
  t0 = g_get_monotonic_time ();
  lb_window_open_store (win, uri);
  /* one loop watches both moments: rows there (first / all), then the next painted frame;
   * each iteration's length is how long the main thread did not come back to the loop */
  real_poll = g_main_context_get_poll_func (NULL);
  g_main_context_set_poll_func (NULL, timed_poll);
  while (w->t_all == 0 && g_get_monotonic_time () - t0 < G_GINT64_CONSTANT (120000000))
    {
      gint64 s = g_get_monotonic_time (), p = poll_us;

      g_main_context_iteration (NULL, TRUE);
      if (g_get_monotonic_time () - s - (poll_us - p) > w->max_iter_us)
        {
          GListModel *rows = lb_store_browser_get_rows (lb_window_test_get_browser (win));

          w->max_iter_us = g_get_monotonic_time () - s - (poll_us - p);
          w->max_iter_at = s - t0;
          w->max_iter_rows = rows ? g_list_model_get_n_items (rows) : 0;
        }
      if (ready_first == 0 && has_first_rows (win))
        ready_first = g_get_monotonic_time ();
      if (ready_first != 0 && w->t_first == 0 && painted_us > ready_first)
        w->t_first = painted_us - t0;
      if (ready_first != 0 && ready_all == 0 && store_ready (win))
        ready_all = g_get_monotonic_time ();
      if (ready_all != 0 && w->t_first != 0 && painted_us > ready_all)
        w->t_all = painted_us - t0;
    }
  g_main_context_set_poll_func (NULL, real_poll);
  gtk_widget_remove_tick_callback (GTK_WIDGET (win), tick);
}

static void
print_listing_watch (LbWindow *win, const ListingWatch *w)
{
  g_print ("   first rows painted:                    %7.1f ms\n", w->t_first / 1000.0);
  g_print ("   all rows listed, sorted and painted:   %7.1f ms (%u rows)\n", w->t_all / 1000.0,
           g_list_model_get_n_items (lb_store_browser_get_rows (lb_window_test_get_browser (win))));
  g_print ("   longest main-thread stall meanwhile:   %7.1f ms   longest frame interval %7.1f ms\n",
           w->max_iter_us / 1000.0, max_tick_gap_us / 1000.0);
  g_print ("   (that stall began at %.1f ms, with %u rows)\n", w->max_iter_at / 1000.0,
           w->max_iter_rows);
}

static void
bench_large_folder (LbWindow *win)
{
  g_autofree char *dir = g_dir_make_tmp ("lightbox-100k-XXXXXX", NULL);
  g_autofree char *uri = g_filename_to_uri (dir, NULL, NULL);
  g_autoptr (GArray) frames = g_array_new (FALSE, FALSE, sizeof (double));
  GtkAdjustment *adj;
  GtkWidget *scroller;
  ListingWatch w;
  char name[64];

  for (int i = 0; i < 100000; i++)
    {
      g_autofree char *p = NULL;
      g_snprintf (name, sizeof name, "img-%06d.png", i);
      p = g_build_filename (dir, name, NULL);
      g_file_set_contents (p, "", 0, NULL);
    }
  watch_listing (win, uri, &w);
  /* scroll through the list: time per painted frame */
  scroller = gtk_widget_get_parent (lb_store_browser_get_view (lb_window_test_get_browser (win)));
  adj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
  for (int i = 0; i < 40; i++)
    {
      gint64 s0 = g_get_monotonic_time ();
      double ms;

      gtk_adjustment_set_value (adj, gtk_adjustment_get_upper (adj) * i / 40.0);
      /* a frame even when the value did not change (the first step, at the top) */
      gtk_widget_queue_draw (lb_store_browser_get_view (lb_window_test_get_browser (win)));
      wait_painted_after (s0, 5000);
      ms = last_frame_cost_us / 1000.0;
      g_array_append_val (frames, ms);
    }
  g_print ("\n4. A folder of 100 000 entries in the store tree (local folder store)\n");
  print_listing_watch (win, &w);
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

/* ---- 6: a large JSON listing over HTTP -------------------------------------------------- */

/* A loopback web server with one page: nginx's autoindex JSON for @data (a GBytes) at "/";
 * OPTIONS says "no WebDAV", anything else 404. Runs on its own threads. */
static gboolean
on_json_request (GThreadedSocketService *svc, GSocketConnection *connection, GObject *source,
                 gpointer data)
{
  GBytes *doc = data;
  GInputStream *in = g_io_stream_get_input_stream (G_IO_STREAM (connection));
  GOutputStream *out = g_io_stream_get_output_stream (G_IO_STREAM (connection));
  g_autoptr (GDataInputStream) lines = g_data_input_stream_new (in);
  g_data_input_stream_set_newline_type (lines, G_DATA_STREAM_NEWLINE_TYPE_CR_LF);

  for (;;)
    {
      g_autofree char *request = g_data_input_stream_read_line (lines, NULL, NULL, NULL);
      g_autofree char *head = NULL;
      char *line;
      gboolean get_root;

      if (request == NULL)
        break;
      while ((line = g_data_input_stream_read_line (lines, NULL, NULL, NULL)) != NULL && *line != '\0')
        g_free (line);
      if (line == NULL)
        break;
      g_free (line);
      get_root = g_str_has_prefix (request, "GET / ") || g_str_has_prefix (request, "HEAD / ");
      if (g_str_has_prefix (request, "OPTIONS "))
        head = g_strdup ("HTTP/1.1 200 OK\r\nAllow: GET, HEAD, OPTIONS\r\nContent-Length: 0\r\n\r\n");
      else if (get_root)
        head = g_strdup_printf ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                "Content-Length: %" G_GSIZE_FORMAT "\r\n\r\n", g_bytes_get_size (doc));
      else
        head = g_strdup ("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
      if (!g_output_stream_write_all (out, head, strlen (head), NULL, NULL, NULL))
        break;
      if (get_root && g_str_has_prefix (request, "GET ")
          && !g_output_stream_write_all (out, g_bytes_get_data (doc, NULL), g_bytes_get_size (doc),
                                         NULL, NULL, NULL))
        break;
    }
  return TRUE;
}

static void
bench_json_listing (LbWindow *win)
{
  g_autoptr (GString) doc = g_string_new ("[\n");
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GSocketService) service = NULL;
  g_autoptr (GSocketAddress) any = g_inet_socket_address_new_from_string ("127.0.0.1", 0);
  g_autoptr (GSocketAddress) effective = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *uri = NULL;
  ListingWatch w;

  for (guint i = 0; i < 100000; i++)
    g_string_append_printf (doc, "%s{ \"name\":\"img-%06u.png\", \"type\":\"file\", "
                            "\"mtime\":\"Mon, 30 Nov 2026 05:00:00 GMT\", \"size\":%u }\n",
                            i ? "," : "", i, 1000 + i);
  g_string_append (doc, "]\n");
  bytes = g_bytes_new (doc->str, doc->len);
  service = g_threaded_socket_service_new (4);
  if (!g_socket_listener_add_address (G_SOCKET_LISTENER (service), any, G_SOCKET_TYPE_STREAM,
                                      G_SOCKET_PROTOCOL_TCP, NULL, &effective, &error))
    {
      g_printerr ("6. skipped: %s\n", error->message);
      return;
    }
  g_signal_connect (service, "run", G_CALLBACK (on_json_request), bytes);
  g_socket_service_start (service);
  uri = g_strdup_printf ("http://127.0.0.1:%u/",
                         g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (effective)));
  watch_listing (win, uri, &w);
  g_print ("\n6. A JSON listing of 100 000 entries over HTTP (nginx's autoindex format, %.1f MB, "
           "served on 127.0.0.1)\n", doc->len / 1e6);
  print_listing_watch (win, &w);
  g_socket_service_stop (service);
  g_socket_listener_close (G_SOCKET_LISTENER (service));
}

/* ---- 5: responsiveness while a 1 GB image downloads ------------------------------------ */

/* 23 170² 16-bit gray, ≈ 1.07 GB of pixels; noise in every bit so zlib keeps it that size. */
#define BIG_SIZE 23170

/* Writes the image row by row (no 1 GB buffer) with libpng: zlib level 1, Huffman coding
 * only — a match search on noise finds nothing and costs minutes on this machine, while the
 * reader still has to Huffman-decode every byte as it would for a real image. */
static gboolean
write_big_png (const char *path,
               guint       size)
{
  FILE *f = g_fopen (path, "wb");
  png_structp png;
  png_infop info;
  g_autofree guint16 *row = g_new (guint16, size);
  guint64 s = 0x9E3779B97F4A7C15u;

  if (f == NULL)
    return FALSE;
  png = png_create_write_struct (PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  info = png_create_info_struct (png);
  if (setjmp (png_jmpbuf (png)))
    {
      png_destroy_write_struct (&png, &info);
      fclose (f);
      return FALSE;
    }
  png_init_io (png, f);
  png_set_compression_level (png, 1);
  png_set_compression_strategy (png, Z_HUFFMAN_ONLY);
  png_set_filter (png, 0, PNG_FILTER_NONE);
  png_set_IHDR (png, info, size, size, 16, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
                PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info (png, info);
  png_set_swap (png); /* host-order samples; PNG is big-endian */
  for (guint y = 0; y < size; y++)
    {
      /* a slow gradient (so the histogram has a shape) plus 12 bits of noise (xorshift64) */
      for (guint x = 0; x < size; x++)
        {
          s ^= s << 13, s ^= s >> 7, s ^= s << 17;
          row[x] = (guint16) (((x + y) * 24000u / (2 * size)) + (s & 0xfff) + 20000);
        }
      png_write_row (png, (png_const_bytep) row);
    }
  png_write_end (png, info);
  png_destroy_write_struct (&png, &info);
  return fclose (f) == 0;
}

/* The measurements of one run: frame gaps, input latency, main-loop lateness. */
typedef struct {
  GArray  *frame_gap;    /* ms between successive painted frames */
  GArray  *input;        /* ms from the scheduled input to the frame that shows it */
  GArray  *loop_late;    /* ms a 5 ms timeout fired late */
  gint64   last_paint;
  gint64   last_tick;
  gint64   input_due;    /* µs: when the next input is scheduled */
  gint64   input_sent;   /* µs: scheduled time of the input waiting for its frame, 0 = none */
  guint    n_inputs;
  GdkFrameClock *clock;
  gulong   paint_handler;
} Resp;

static Resp *resp_now;

static void
resp_after_paint (GdkFrameClock *clock,
                  gpointer       data)
{
  Resp *r = resp_now;
  gint64 now = g_get_monotonic_time ();
  double ms;

  if (r == NULL)
    return;
  if (r->last_paint)
    {
      ms = (now - r->last_paint) / 1000.0;
      g_array_append_val (r->frame_gap, ms);
    }
  r->last_paint = now;
  if (r->input_sent)
    {
      ms = (now - r->input_sent) / 1000.0;
      g_array_append_val (r->input, ms);
      r->input_sent = 0;
    }
}

/* Keeps the window animating (a redraw every frame clock tick), like a spinner does. */
static gboolean
resp_tick (GtkWidget     *widget,
           GdkFrameClock *clock,
           gpointer       data)
{
  if (resp_now == NULL)
    return G_SOURCE_REMOVE;
  gtk_widget_queue_draw (widget);
  return G_SOURCE_CONTINUE;
}

/* Every 5 ms: how late this timeout runs (main-loop latency), and every 50 ms an input —
 * zoom in, then out — timed from when it was due, as a key press queued at that moment
 * would be. */
static gboolean
resp_timeout (gpointer data)
{
  LbWindow *win = data;
  Resp *r = resp_now;
  gint64 now = g_get_monotonic_time ();
  double ms;

  if (r == NULL)
    return G_SOURCE_REMOVE;
  if (r->last_tick)
    {
      ms = MAX (0, now - r->last_tick - 5000) / 1000.0;
      g_array_append_val (r->loop_late, ms);
    }
  r->last_tick = now;
  if (now >= r->input_due && r->input_sent == 0)
    {
      r->input_sent = r->input_due;
      g_action_group_activate_action (G_ACTION_GROUP (win), r->n_inputs++ % 2 ? "zoom-out" : "zoom-in",
                                      NULL);
      r->input_due += 50000;
      if (r->input_due < now)
        r->input_due = now + 50000;
    }
  return G_SOURCE_CONTINUE;
}

static void
resp_start (Resp     *r,
            LbWindow *win)
{
  memset (r, 0, sizeof *r);
  r->frame_gap = g_array_new (FALSE, FALSE, sizeof (double));
  r->input = g_array_new (FALSE, FALSE, sizeof (double));
  r->loop_late = g_array_new (FALSE, FALSE, sizeof (double));
  r->input_due = g_get_monotonic_time () + 50000;
  resp_now = r;
  r->clock = gtk_widget_get_frame_clock (GTK_WIDGET (win));
  r->paint_handler = g_signal_connect (r->clock, "after-paint", G_CALLBACK (resp_after_paint), NULL);
  gtk_widget_add_tick_callback (GTK_WIDGET (lb_window_test_get_canvas (win)), resp_tick, NULL,
                                NULL);
  g_timeout_add (5, resp_timeout, win);
}

static void
resp_stop (void)
{
  g_signal_handler_disconnect (resp_now->clock, resp_now->paint_handler);
  resp_now = NULL;
  /* let the tick callback and the timeout see it and remove themselves */
  for (int i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
}

static void
resp_clear (Resp *r)
{
  g_array_unref (r->frame_gap);
  g_array_unref (r->input);
  g_array_unref (r->loop_late);
}

static double
arr_max (GArray *a)
{
  double m = 0;
  for (guint i = 0; i < a->len; i++)
    m = MAX (m, g_array_index (a, double, i));
  return a->len ? m : NAN;
}

static void
resp_print (const char *what,
            Resp       *r)
{
  g_print ("   %s\n", what);
  g_print ("     frame interval:       median %6.1f  p99 %7.1f  max %7.1f ms  (%u frames)\n",
           median (r->frame_gap), pct (r->frame_gap, 0.99), arr_max (r->frame_gap), r->frame_gap->len);
  g_print ("     input → painted:      median %6.1f  p99 %7.1f  max %7.1f ms  (%u zoom steps)\n",
           median (r->input), pct (r->input, 0.99), arr_max (r->input), r->input->len);
  g_print ("     main loop, 5 ms timer late by: median %5.2f  p99 %7.1f  max %7.1f ms\n",
           median (r->loop_late), pct (r->loop_late, 0.99), arr_max (r->loop_late));
}

static gboolean
load_finished (gpointer data)
{
  LbWindow *win = data;
  return !lb_window_test_is_loading (win);
}

static void
bench_download (LbWindow *win,
                LbImage  *shown)
{
  const char *dirs[] = { "/dev/shm", g_get_tmp_dir () };
  guint64 need = (guint64) BIG_SIZE * BIG_SIZE * 2 + (256u << 20);
  g_autoptr (GError) error = NULL;
  g_autofree char *root = NULL, *path = NULL, *url = NULL;
  g_autofree char *img_url = NULL;
  g_autoptr (GSubprocess) proc = NULL;
  LbLimits saved = *lb_limits_get_default (), big = saved;
  Resp base, dl;
  GStatBuf st;
  gint64 t0;
  double total_s, gen_s;
  gboolean finished;

  g_print ("\n5. UI responsiveness while a %u×%u 16-bit PNG (≈ 1 GB) downloads from lightbox-store\n",
           BIG_SIZE, BIG_SIZE);
  for (guint i = 0; i < G_N_ELEMENTS (dirs) && root == NULL; i++)
    {
      g_autoptr (GFile) d = g_file_new_for_path (dirs[i]);
      g_autoptr (GFileInfo) fi = g_file_query_filesystem_info (d, G_FILE_ATTRIBUTE_FILESYSTEM_FREE,
                                                               NULL, NULL);
      if (fi && g_file_info_get_attribute_uint64 (fi, G_FILE_ATTRIBUTE_FILESYSTEM_FREE) > need)
        {
          g_autofree char *tmpl = g_build_filename (dirs[i], "lightbox-1g-XXXXXX", NULL);
          root = g_mkdtemp (g_steal_pointer (&tmpl));
        }
    }
  if (root == NULL)
    {
      g_print ("   SKIPPED: neither /dev/shm nor %s has %.1f GB free\n", g_get_tmp_dir (), need / 1e9);
      return;
    }
  /* The default limits refuse it (256 Mpx): say so, then measure as a user who raised
   * LIGHTBOX_MAX_PIXELS for such images would see it. */
  if (!lb_limits_check (NULL, BIG_SIZE, BIG_SIZE, LB_FORMAT_GRAY16, NULL, NULL, &error))
    {
      g_print ("   default limits refuse it: %s\n"
               "   measured with the pixel limit raised to %u² (as LIGHTBOX_MAX_PIXELS=%" G_GUINT64_FORMAT " does)\n",
               error->message, BIG_SIZE, (guint64) BIG_SIZE * BIG_SIZE);
      g_clear_error (&error);
      big.max_pixels = (guint64) BIG_SIZE * BIG_SIZE;
      lb_limits_set_default (&big);
    }
  path = g_build_filename (root, "big-gray16.png", NULL);
  t0 = g_get_monotonic_time ();
  if (!write_big_png (path, BIG_SIZE) || g_stat (path, &st) != 0)
    {
      g_print ("   SKIPPED: could not write %s\n", path);
      lb_bench_remove_tree (root);
      lb_limits_set_default (&saved);
      return;
    }
  gen_s = (g_get_monotonic_time () - t0) / 1e6;
  g_print ("   file: %.1f MB in %s (written in %.1f s)\n", st.st_size / 1e6, root, gen_s);

  /* the default timeout: lightbox-store once crashed here 60 s after the listing's keep-alive
   * connection went idle (fixed; test /store/keepalive-idle-timeout), so this run covers it */
  url = start_store (root, &proc);
  img_url = g_strconcat (url, "big-gray16.png", NULL);
  lb_window_open_store (win, url);
  wait_for (store_ready, win, 10000);

  /* baseline: the same measurements for 8 s with an image shown and nothing loading */
  lb_canvas_set_image (lb_window_test_get_canvas (win), shown, FALSE);
  resp_start (&base, win);
  t0 = g_get_monotonic_time ();
  while (g_get_monotonic_time () - t0 < 8 * G_USEC_PER_SEC)
    g_main_context_iteration (NULL, TRUE);
  resp_stop ();

  resp_start (&dl, win);
  lb_window_open_store_image (win, img_url);
  finished = wait_for (load_finished, win, 600000);
  total_s = (g_get_monotonic_time () - lb_window_test_get_load_started_us (win)) / 1e6;
  resp_stop ();
  if (!finished)
    {
      GtkWidget *progress_bar = lb_window_test_get_child (win, "progress_bar");
      double fraction = gtk_progress_bar_get_fraction (GTK_PROGRESS_BAR (progress_bar));

      g_action_group_activate_action (G_ACTION_GROUP (win), "cancel", NULL);
      wait_for (load_finished, win, 60000);
      g_print ("   NOT FINISHED after %.0f s (%.0f %% downloaded, %.1f MB/s), cancelled\n", total_s,
               fraction * 100, fraction * st.st_size / 1e6 / total_s);
    }
  else if (lb_window_test_get_load_done_us (win) == 0)
    g_print ("   the download FAILED after %.1f s: %s\n", total_s,
             last_status (win));
  else
    g_print ("   download + decode: %.1f s, %.0f MB/s; first rows after %.0f ms\n", total_s,
             st.st_size / 1e6 / total_s,
             (lb_window_test_get_first_pixels_us (win) - lb_window_test_get_load_started_us (win))
             / 1000.0);
  resp_print ("baseline, nothing loading (8 s):", &base);
  resp_print (lb_window_test_get_load_done_us (win) ? "while downloading:"
                                                     : "while downloading (until it failed):", &dl);
  resp_clear (&base);
  resp_clear (&dl);
  g_subprocess_send_signal (proc, SIGTERM);
  g_subprocess_wait (proc, NULL, NULL);
  lb_bench_remove_tree (root); /* the file and the .lightbox folder lightbox-store made */
  lb_limits_set_default (&saved);
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
    bench_large_folder (win);
  if (section_wanted ('5'))
    bench_download (win, img);
  if (section_wanted ('6'))
    bench_json_listing (win);
  gtk_window_destroy (GTK_WINDOW (win));
  if (section_wanted ('3'))
  {
    /* spawn this very binary for the baseline, wherever it was started from */
    g_autofree char *self_exe = g_file_read_link ("/proc/self/exe", NULL);
    bench_startup (self_exe ? self_exe : argv[0]);
  }
  return 0;
}
