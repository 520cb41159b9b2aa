/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ui-timing (see ui-timing.c): sections 4 and 6, the store tree listing a folder of 100 000
 * entries and a 100 000-entry JSON listing over HTTP. */
#include "config.h"

#include <gtk/gtk.h>
#include <glib/gstdio.h>
#include <string.h>

#include "lb-window-test.h"
#include "ui-timing.h"

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
      if (ready_first != 0 && w->t_first == 0 && ui_timing_painted_us > ready_first)
        w->t_first = ui_timing_painted_us - t0;
      if (ready_first != 0 && ready_all == 0 && ui_timing_store_ready (win))
        ready_all = g_get_monotonic_time ();
      if (ready_all != 0 && w->t_first != 0 && ui_timing_painted_us > ready_all)
        w->t_all = ui_timing_painted_us - t0;
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

void
ui_timing_bench_large_folder (LbWindow *win)
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
      ui_timing_wait_painted_after (s0, 5000);
      ms = ui_timing_last_frame_cost_us / 1000.0;
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

void
ui_timing_bench_json_listing (LbWindow *win)
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
