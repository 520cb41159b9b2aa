/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A large image download in the workstation window: a 67 MB 16-bit PNG served
 * by a real lightbox-store on 127.0.0.1. While it downloads and decodes, the main loop keeps
 * dispatching (a timeout source ticks between the progress updates, frames are painted) and
 * no partial image is offered as the open image (no history, upload disabled). Cancelling
 * through Escape (the window's cancel action) mid-download brings back the image shown before, and
 * the partial image is never presented as complete.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <png.h>
#include <zlib.h>

#include "lb-test-files.h"
#include "lb-test-loop.h"
#include "lb-test-process.h"
#include "lb-test-ui.h"
#include "lb-test-xinput.h"

#define CT_PATH "CT/ct-head-128-16bit.png"
#define BIG_SIZE 5800 /* 5800² gray16: 67 MB of pixels, noise so zlib keeps most of it */

static LbApplication *app;
static LbTestServer store;

/* Writes the image row by row with libpng (zlib level 1, Huffman only: the test stays fast). */
static void
write_big_png (const char *path)
{
  FILE *f = g_fopen (path, "wb");
  png_structp png = png_create_write_struct (PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png_create_info_struct (png);
  g_autofree guint16 *row = g_new (guint16, BIG_SIZE);
  guint32 s = 2463534242u;

  g_assert_nonnull (f);
  if (setjmp (png_jmpbuf (png)))
    g_error ("libpng could not write %s", path);
  png_init_io (png, f);
  png_set_compression_level (png, 1);
  png_set_compression_strategy (png, Z_HUFFMAN_ONLY);
  png_set_filter (png, 0, PNG_FILTER_NONE);
  png_set_IHDR (png, info, BIG_SIZE, BIG_SIZE, 16, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
                PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info (png, info);
  png_set_swap (png);
  for (guint y = 0; y < BIG_SIZE; y++)
    {
      for (guint x = 0; x < BIG_SIZE; x++)
        {
          s ^= s << 13, s ^= s >> 17, s ^= s << 5;
          row[x] = (guint16) (30000 + (s & 0x3fff));
        }
      png_write_row (png, (png_const_bytep) row);
    }
  png_write_end (png, info);
  png_destroy_write_struct (&png, &info);
  g_assert_cmpint (fclose (f), ==, 0);
}

/* What happens during the download, counted by sources and signals on the main context. */
typedef struct {
  LbWindow *win;
  guint ticks;             /* 2 ms timeout dispatches */
  guint ticks_since;       /* since the last progress update */
  guint progress;          /* progress bar updates */
  guint gaps_with_ticks;   /* progress updates preceded by at least one tick */
  guint frames;            /* frames painted */
  gboolean stop;
} Activity;

static gboolean
on_tick (gpointer data)
{
  Activity *a = data;

  if (a->stop)
    return G_SOURCE_REMOVE;
  a->ticks++;
  a->ticks_since++;
  return G_SOURCE_CONTINUE;
}

static void
on_progress (GObject    *bar,
             GParamSpec *pspec,
             Activity   *a)
{
  a->progress++;
  if (a->ticks_since > 0)
    a->gaps_with_ticks++;
  a->ticks_since = 0;
}

static void
on_painted (GdkFrameClock *clock,
            Activity      *a)
{
  a->frames++;
}

static gboolean
enough_progress (gpointer data)
{
  Activity *a = data;
  return a->gaps_with_ticks >= 3 && a->frames >= 2
         && lb_window_test_get_first_pixels_us (a->win) > 0;
}

static void
test_cancel_large_download (void)
{
  LbWindow *win = lb_window_new (app);
  LbCanvas *canvas = lb_window_test_get_canvas (win);
  GtkWidget *progress_bar = lb_window_test_get_child (win, "progress_bar");
  GtkWidget *size_label = lb_window_test_get_child (win, "size_label");
  g_autofree char *dir = g_build_filename (store.root, "big", NULL);
  g_autofree char *path = g_build_filename (dir, "gray16-5800.png", NULL);
  g_autofree char *ct_url = g_strconcat (store.url, CT_PATH, NULL);
  g_autofree char *big_url = g_strconcat (store.url, "big/gray16-5800.png", NULL);
  GdkFrameClock *clock;
  Activity a = { 0 };
  LbImage *before, *after;
  guint progress_handler, paint_handler;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  write_big_png (path);

  gtk_window_set_default_size (GTK_WINDOW (win), 900, 600);
  gtk_window_present (GTK_WINDOW (win));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (win));
  lb_window_open_store (win, store.url);
  g_assert_true (lb_test_wait (lb_test_ui_tree_listed, win, 10000));

  /* the image the user looks at before starting the large download */
  lb_window_open_store_image (win, ct_url);
  g_assert_true (lb_test_wait (lb_test_ui_not_busy, win, 10000));
  g_assert_nonnull (lb_window_test_get_history (win));
  before = lb_history_get_current (lb_window_test_get_history (win));
  g_assert_true (lb_canvas_get_image (canvas) == before);

  clock = gtk_widget_get_frame_clock (GTK_WIDGET (win));
  paint_handler = g_signal_connect (clock, "after-paint", G_CALLBACK (on_painted), &a);
  progress_handler = g_signal_connect (progress_bar, "notify::fraction",
                                       G_CALLBACK (on_progress), &a);
  a.win = win;
  g_timeout_add (2, on_tick, &a);
  lb_window_open_store_image (win, big_url);

  /* the download runs while the loop dispatches the timer and paints */
  g_assert_true (lb_test_wait (enough_progress, &a, 60000));
  g_test_message ("after %u progress updates: %u ticks, %u gaps with ticks, %u frames",
                  a.progress, a.ticks, a.gaps_with_ticks, a.frames);
  g_assert_true (lb_window_is_busy (win));
  g_assert_cmpint (lb_window_test_get_load_done_us (win), ==, 0);
  /* the rows so far are on screen, but nothing offers them as an image */
  g_assert_true (lb_window_test_get_first_pixels_us (win) > 0);
  g_assert_null (lb_canvas_get_image (canvas));
  g_assert_null (lb_window_test_get_history (win));
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (win), "upload"));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (size_label)), "5800 × 5800"));

  /* cancel as the user does, mid-download: Escape (without xdotool, the action it is bound
   * to) */
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (win), "cancel"));
  if (lb_test_have_xdotool ())
    lb_test_press_keys (GTK_WIDGET (win), "Escape");
  else
    g_action_group_activate_action (G_ACTION_GROUP (win), "cancel", NULL);
  g_assert_true (lb_test_wait (lb_test_ui_not_busy, win, 10000));
  a.stop = TRUE;
  g_signal_handler_disconnect (clock, paint_handler);
  g_signal_handler_disconnect (progress_bar, progress_handler);

  /* the image from before is back, complete; the partial one was never finished */
  g_assert_cmpint (lb_window_test_get_load_done_us (win), ==, 0);
  g_assert_nonnull (lb_window_test_get_history (win));
  g_assert_true (lb_history_get_current (lb_window_test_get_history (win)) == before);
  g_assert_true (lb_canvas_get_image (canvas) == before);
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (size_label)), "128 × 128"));
  g_assert_cmpstr (lb_window_test_get_last_status (win), ==, "Loading cancelled");
  g_assert_false (gtk_widget_get_visible (progress_bar));
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (win), "upload"));

  /* and the window keeps working: the large image opens completely when let through */
  lb_window_open_store_image (win, big_url);
  g_assert_true (lb_test_wait (lb_test_ui_not_busy, win, 60000));
  g_assert_true (lb_window_test_get_load_done_us (win) > 0);
  g_assert_nonnull (lb_window_test_get_history (win));
  after = lb_history_get_current (lb_window_test_get_history (win));
  g_assert_cmpuint (lb_image_get_width (after), ==, BIG_SIZE);
  g_assert_true (lb_canvas_get_image (canvas) == after);

  gtk_window_destroy (GTK_WINDOW (win));
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  int ret;

  if (!lb_test_ui_init (&argc, &argv))
    return 0;
  /* messages compared below are the untranslated ones */
  g_setenv ("LANGUAGE", "C", TRUE);
  lb_test_server_start_samples (&store, NULL);
  app = lb_test_ui_app_new ();

  g_test_add_func ("/ui/download/cancel-large", test_cancel_large_download);
  ret = g_test_run ();

  g_clear_object (&app);
  lb_test_server_stop (&store);
  return ret;
}
