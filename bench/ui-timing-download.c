/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ui-timing (see ui-timing.c): section 5, the window's responsiveness while a 1 GB image
 * downloads from lightbox-store. */
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
#include "lb-window-test.h"
#include "ui-timing.h"

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

void
ui_timing_bench_download (LbWindow *win,
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
  url = ui_timing_start_store (root, &proc);
  img_url = g_strconcat (url, "big-gray16.png", NULL);
  lb_window_open_store (win, url);
  ui_timing_wait_for (ui_timing_store_ready, win, 10000);

  /* baseline: the same measurements for 8 s with an image shown and nothing loading */
  lb_canvas_set_image (lb_window_test_get_canvas (win), shown, FALSE);
  resp_start (&base, win);
  t0 = g_get_monotonic_time ();
  while (g_get_monotonic_time () - t0 < 8 * G_USEC_PER_SEC)
    g_main_context_iteration (NULL, TRUE);
  resp_stop ();

  resp_start (&dl, win);
  lb_window_open_store_image (win, img_url);
  finished = ui_timing_wait_for (load_finished, win, 600000);
  total_s = (g_get_monotonic_time () - lb_window_test_get_load_started_us (win)) / 1e6;
  resp_stop ();
  if (!finished)
    {
      GtkWidget *progress_bar = lb_window_test_get_child (win, "progress_bar");
      double fraction = gtk_progress_bar_get_fraction (GTK_PROGRESS_BAR (progress_bar));

      g_action_group_activate_action (G_ACTION_GROUP (win), "cancel", NULL);
      ui_timing_wait_for (load_finished, win, 60000);
      g_print ("   NOT FINISHED after %.0f s (%.0f %% downloaded, %.1f MB/s), cancelled\n", total_s,
               fraction * 100, fraction * st.st_size / 1e6 / total_s);
    }
  else if (lb_window_test_get_load_done_us (win) == 0)
    g_print ("   the download FAILED after %.1f s: %s\n", total_s,
             ui_timing_last_status (win));
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
