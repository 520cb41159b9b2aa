/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ui-timing section 7: reading a series (the stack, its background loading, its memory).
 * Series come from dicom-make-series.py (pydicom; Explicit VR Little Endian, 12 bits in 16,
 * axial, 1.25 mm apart), written to a temporary folder and removed after.
 *
 *  7a. stack scroll on a 512×512 16-bit CT series (all slices loaded, the overlay on): a wheel
 *      step (win.next-frame, what the canvas' scroll handler activates) every 16.7 ms (60 Hz);
 *      time from each step to the painted frame that shows the slice, and the frame's own cost
 *      (before → after paint); baseline: the same cadence repainting one slice (a window
 *      change: LUT and visible-area render, no slice change).
 *  7b. the same on a 2048×2048 series.
 *  7c. a 300-slice 512×512 series from Orthanc over DICOMweb (only with LB_DICOMWEB_URL: run
 *      under tests/dicomweb/orthanc-run.sh): open → first slice painted, and open → every slice
 *      in memory; baseline: curl fetching the same 300 frames (WADO-RS …/frames/1, as stored)
 *      with the same number of parallel connections (series-parallel-loads), in the same run.
 *  7d. memory: the resident size a loaded 1000-slice 512×512 series adds, against its pixel
 *      bytes.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "lb-bench-util.h"
#include "lb-dicom-dataset.h"
#include "lb-dicom-tags.h"
#include "lb-window-test.h"
#include "ui-timing.h"

#define WHEEL_US 16667  /* 60 Hz */

/* dicom-make-series.py N SIZE into a new folder: the uncompressed series' folder, holding
 * only its .dcm files (the .frame and ds.json files it also writes are removed, after ds.json
 * gave the series' data set in *@ds). */
static char *
make_series (guint n, guint size, char **root, LbDicomDataset **ds)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *script = g_build_filename (LB_BENCH_SOURCE_DIR, "dicom-make-series.py", NULL);
  g_autofree char *n_text = g_strdup_printf ("%u", n), *size_text = g_strdup_printf ("%u", size);
  g_autofree char *dir = NULL, *json = NULL;
  g_autoptr(GDir) d = NULL;
  g_autoptr(GPtrArray) arr = NULL;
  const char *name;
  int status = 0;
  gsize len;

  *root = g_dir_make_tmp ("lightbox-series-XXXXXX", &error);
  if (*root == NULL)
    g_error ("%s", error->message);
  {
    const char *argv[] = { "/usr/bin/python3", script, *root, n_text, size_text,
                           "1.2.840.10008.1.2.1", NULL };

    if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL,
                       &status, &error)
        || !g_spawn_check_wait_status (status, &error))
      g_error ("dicom-make-series.py: %s", error->message);
  }
  dir = g_build_filename (*root, "1.2.840.10008.1.2.1", NULL);
  json = g_build_filename (dir, "ds.json", NULL);
  {
    g_autofree char *text = NULL;

    if (!g_file_get_contents (json, &text, &len, &error))
      g_error ("%s", error->message);
    arr = lb_dicom_json_parse_array (text, len, &error);
    if (arr == NULL || arr->len != 1)
      g_error ("%s: no data set", json);
    *ds = lb_dicom_dataset_ref (arr->pdata[0]);
  }
  d = g_dir_open (dir, 0, NULL);
  while ((name = g_dir_read_name (d)) != NULL)
    if (!g_str_has_suffix (name, ".dcm"))
      {
        g_autofree char *path = g_build_filename (dir, name, NULL);

        g_unlink (path);
      }
  return g_steal_pointer (&dir);
}

static const char *
frame_label (LbWindow *win)
{
  return gtk_label_get_text (GTK_LABEL (lb_window_test_get_child (win, "frame_label")));
}

/* The loader of the series shown before the one being opened: the conditions below wait for
 * another one. */
static LbSeriesLoader *old_loader;

static gboolean
first_slice_shown (gpointer data)
{
  LbWindow *win = data;
  LbSeriesLoader *loader = lb_window_test_get_series_loader (win);

  return loader != NULL && loader != old_loader
         && g_str_has_prefix (frame_label (win), "slice 1/") && !lb_window_is_busy (win);
}

static gboolean
all_loaded (gpointer data)
{
  LbSeriesLoader *loader = lb_window_test_get_series_loader (data);

  return loader != NULL && loader != old_loader && lb_series_loader_is_idle (loader)
         && lb_series_loader_get_n_loaded (loader)
              == lb_frame_source_get_n_frames (lb_series_loader_get_source (loader));
}

/* Opens the local series in @dir; waits until every slice is in memory. */
static void
open_local (LbWindow *win, const char *dir)
{
  g_autofree char *uri = g_filename_to_uri (dir, NULL, NULL);

  old_loader = lb_window_test_get_series_loader (win);
  lb_window_open_uri (win, uri);
  if (!ui_timing_wait_for (first_slice_shown, win, 600000)
      || !ui_timing_wait_for (all_loaded, win, 600000))
    g_error ("the series did not load: %s", ui_timing_last_status (win));
}

/* Iterates the main loop until @until_us (monotonic). */
static void
run_until (gint64 until_us)
{
  while (g_get_monotonic_time () < until_us)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (200);
}

/* 7a/7b on the series in @dir: @n wheel steps at 60 Hz, then the baseline. */
static void
bench_scroll (LbWindow *win, const char *dir, guint size, guint n_slices)
{
  g_autoptr(GArray) step = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) cost = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) base = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) base_cost = g_array_new (FALSE, FALSE, sizeof (double));
  LbCanvas *canvas = lb_window_test_get_canvas (win);
  const char *action = "next-frame";
  guint n_steps = 150, late = 0;
  gint64 start;

  open_local (win, dir);
  for (int pass = 0; pass < 2; pass++)
    {
      GArray *ms_out = pass == 0 ? step : base, *cost_out = pass == 0 ? cost : base_cost;

      start = g_get_monotonic_time ();
      for (guint i = 0; i < n_steps; i++)
        {
          gint64 t0;
          double ms;

          run_until (start + (gint64) i * WHEEL_US);
          t0 = g_get_monotonic_time ();
          if (pass == 0)
            {
              /* back and forth through the stack, one slice a step */
              guint frame = g_ascii_strtoull (frame_label (win) + strlen ("slice "), NULL, 10);

              if (frame >= n_slices)
                action = "previous-frame";
              else if (frame <= 1)
                action = "next-frame";
              g_action_group_activate_action (G_ACTION_GROUP (win), action, NULL);
            }
          else
            lb_canvas_set_window (canvas, 40 + (i % 2), 400);
          if (!ui_timing_wait_painted_after (t0, 5000))
            g_error ("no frame painted");
          if (lb_window_is_busy (win))
            g_error ("slice not in memory while scrolling");
          ms = (ui_timing_painted_us - t0) / 1000.0;
          if (ms > WHEEL_US / 1000.0)
            late += pass == 0;
          g_array_append_val (ms_out, ms);
          ms = ui_timing_last_frame_cost_us / 1000.0;
          g_array_append_val (cost_out, ms);
        }
    }
  g_print ("\n7%c. Stack scroll, %u×%u 16-bit CT, %u slices in memory, overlay on, a wheel step "
           "every 16.7 ms (%u steps)\n", size > 512 ? 'b' : 'a', size, size, n_slices, n_steps);
  g_print ("   step → painted slice:                  median %7.2f ms   p95 %7.2f ms   "
           "(%u of %u over 16.7 ms)\n", median (step), pct (step, 0.95), late, n_steps);
  g_print ("   the frame's paint (before → after):    median %7.2f ms   p95 %7.2f ms\n",
           median (cost), pct (cost, 0.95));
  g_print ("   baseline, repaint one slice (W/L):     median %7.2f ms   p95 %7.2f ms   "
           "(paint median %.2f ms)\n", median (base), pct (base, 0.95), median (base_cost));
}

/* ---- 7c: a series from Orthanc ------------------------------------------------------------ */

/* Stores every .dcm file of @dir in the Orthanc of @dicomweb_url (its REST API), with one curl. */
static void
store_in_orthanc (const char *dicomweb_url, const char *dir)
{
  g_autofree char *base = g_strndup (dicomweb_url, strlen (dicomweb_url) - strlen ("/dicom-web"));
  g_autofree char *url = g_strconcat (base, "/instances", NULL);
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr(GError) error = NULL;
  const char *name;
  int status = 0;

  g_ptr_array_add (argv, g_strdup ("curl"));
  g_ptr_array_add (argv, g_strdup ("-sf"));
  while ((name = g_dir_read_name (d)) != NULL)
    {
      if (argv->len > 2)
        g_ptr_array_add (argv, g_strdup ("--next"));
      g_ptr_array_add (argv, g_strdup ("-o"));
      g_ptr_array_add (argv, g_strdup ("/dev/null"));
      g_ptr_array_add (argv, g_strdup ("--data-binary"));
      g_ptr_array_add (argv, g_strdup_printf ("@%s/%s", dir, name));
      g_ptr_array_add (argv, g_strdup (url));
    }
  g_ptr_array_add (argv, NULL);
  if (!g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL,
                     NULL, &status, &error)
      || !g_spawn_check_wait_status (status, &error))
    g_error ("storing the series in Orthanc: %s", error->message);
}

/* curl fetching the URLs listed in @config with @parallel connections: ms. */
static double
curl_config (const char *config, guint parallel)
{
  g_autofree char *max = g_strdup_printf ("%u", parallel);
  const char *argv[] = { "curl", "-sf", "--no-progress-meter", "--parallel", "--parallel-max",
                         max, "-K", config, NULL };
  g_autoptr(GError) error = NULL;
  gint64 t0 = g_get_monotonic_time ();
  int status = 0;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL,
                     &status, &error)
      || !g_spawn_check_wait_status (status, &error))
    g_error ("curl: %s", error->message);
  return (g_get_monotonic_time () - t0) / 1000.0;
}

static void
bench_dicomweb_load (LbWindow *win)
{
  const char *url = g_getenv ("LB_DICOMWEB_URL");
  g_autofree char *root = NULL, *dir = NULL, *store_url = NULL, *series_uri = NULL;
  g_autofree char *config = NULL;
  g_autoptr(LbDicomDataset) ds = NULL;
  g_autoptr(GString) cfg = g_string_new (NULL);
  g_autoptr(GArray) first = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) all = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) curl = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) curl_md = g_array_new (FALSE, FALSE, sizeof (double));
  g_autofree char *md_config = NULL;
  g_autoptr(GSettings) settings = g_settings_new ("io.github.lightbox.Lightbox");
  guint parallel = (guint) g_settings_get_int (settings, "series-parallel-loads");
  const guint n = 300;
  LbFrameSource *src;

  if (url == NULL)
    {
      g_print ("\n7c. skipped: run ui-timing under tests/dicomweb/orthanc-run.sh for the "
               "DICOMweb series load\n");
      return;
    }
  dir = make_series (n, 512, &root, &ds);
  store_in_orthanc (url, dir);
  store_url = g_strconcat ("dicomweb+", url, NULL);
  series_uri = g_strdup_printf ("%s/studies/%s/series/%s/", store_url,
                                lb_dicom_dataset_get_string (ds, LB_TAG_STUDY_INSTANCE_UID, 0),
                                lb_dicom_dataset_get_string (ds, LB_TAG_SERIES_INSTANCE_UID, 0));
  lb_window_open_store (win, store_url);
  ui_timing_wait_for (ui_timing_store_ready, win, 30000);
  {
    /* the series' metadata alone, what the first slice waits for (Orthanc reads every
     * instance's file for it) */
    g_autofree char *md = g_strdup_printf ("url = \"%smetadata\"\noutput = \"/dev/null\"\n",
                                           series_uri + strlen ("dicomweb+"));

    md_config = g_build_filename (root, "curl-metadata.cfg", NULL);
    if (!g_file_set_contents (md_config, md, -1, NULL))
      g_error ("%s: cannot write", md_config);
  }
  for (int rep = 0; rep < 6; rep++)
    {
      gint64 t0, shown;
      double ms;

      old_loader = lb_window_test_get_series_loader (win);
      t0 = g_get_monotonic_time ();
      lb_window_test_open_series (win, series_uri);
      if (!ui_timing_wait_for (first_slice_shown, win, 60000))
        g_error ("the series did not open: %s", ui_timing_last_status (win));
      shown = g_get_monotonic_time ();
      ui_timing_wait_painted_after (shown, 5000);
      ms = (ui_timing_painted_us - t0) / 1000.0;
      if (rep > 0)
        g_array_append_val (first, ms);
      if (!ui_timing_wait_for (all_loaded, win, 600000))
        g_error ("the series did not load: %s", ui_timing_last_status (win));
      ms = (g_get_monotonic_time () - t0) / 1000.0;
      if (rep > 0)
        g_array_append_val (all, ms);
      if (cfg->len == 0)
        {
          /* the same frames for curl: each slice's instance, …/frames/1, as stored */
          src = lb_series_loader_get_source (lb_window_test_get_series_loader (win));
          g_string_append (cfg, "header = \"Accept: multipart/related; "
                                "type=\\\"application/octet-stream\\\"; transfer-syntax=*\"\n");
          for (guint k = 1; k <= lb_frame_source_get_n_frames (src); k++)
            g_string_append_printf (cfg, "url = \"%s/frames/1\"\noutput = \"/dev/null\"\n",
                                    lb_frame_source_get_frame_uri (src, k)
                                      + strlen ("dicomweb+"));
          config = g_build_filename (root, "curl.cfg", NULL);
          if (!g_file_set_contents (config, cfg->str, -1, NULL))
            g_error ("%s: cannot write", config);
        }
      /* alternate: the machine's load hits both alike; the first of each warms up */
      ms = curl_config (config, parallel);
      if (rep > 0)
        g_array_append_val (curl, ms);
      ms = curl_config (md_config, 1);
      if (rep > 0)
        g_array_append_val (curl_md, ms);
    }
  g_print ("\n7c. Series of %u slices 512×512 16-bit (%.0f MB) from Orthanc over DICOMweb, %u "
           "parallel requests (%u runs)\n", n, n * 512.0 * 512 * 2 / 1e6, parallel, first->len);
  g_print ("   open → first slice painted:            median %7.1f ms   p95 %7.1f ms\n",
           median (first), pct (first, 0.95));
  g_print ("   baseline, curl, the series' metadata:  median %7.1f ms   p95 %7.1f ms\n",
           median (curl_md), pct (curl_md, 0.95));
  g_print ("   open → every slice in memory:          median %7.1f ms   p95 %7.1f ms\n",
           median (all), pct (all, 0.95));
  g_print ("   baseline, curl, the same %u frames:    median %7.1f ms   p95 %7.1f ms   "
           "(Lightbox = %.2f× curl)\n", n, median (curl), pct (curl, 0.95),
           median (all) / median (curl));
  lb_bench_remove_tree (root);
}

/* ---- 7d: memory -------------------------------------------------------------------------- */

static gint64
rss_bytes (void)
{
  g_autofree char *status = NULL;
  const char *at;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL)
      || (at = strstr (status, "VmRSS:")) == NULL)
    return -1;
  return g_ascii_strtoll (at + 6, NULL, 10) * 1024;
}

static void
bench_memory (LbWindow *win)
{
  g_autofree char *root = NULL, *dir = NULL;
  g_autoptr(LbDicomDataset) ds = NULL;
  const guint n = 1000;
  double pixel_bytes = n * 512.0 * 512 * 2;
  gint64 before, after;

  dir = make_series (n, 512, &root, &ds);
  /* run before the other series: nothing of theirs stays in memory */
  run_until (g_get_monotonic_time () + 500000);
  before = rss_bytes ();
  open_local (win, dir);
  run_until (g_get_monotonic_time () + 500000);
  after = rss_bytes ();
  g_print ("\n7d. Memory of a loaded %u-slice 512×512 16-bit series (pixels %.1f MB)\n", n,
           pixel_bytes / 1e6);
  g_print ("   resident size added:                   %7.1f MB   (%.3f× the pixel bytes)\n",
           (after - before) / 1e6, (after - before) / pixel_bytes);
  lb_bench_remove_tree (root);
}

static gboolean
part_wanted (char part)
{
  const char *only = g_getenv ("LB_UI_TIMING_SERIES");

  return only == NULL || strchr (only, part) != NULL;
}

/* LB_UI_TIMING_SERIES=ac (any of a, b, c, d) runs only the parts named. */
void
ui_timing_bench_series (LbWindow *win)
{
  /* first, while nothing else is in memory */
  if (part_wanted ('d'))
    bench_memory (win);
  for (guint size = 512; size <= 2048; size *= 4)
    if (part_wanted (size == 512 ? 'a' : 'b'))
      {
        g_autofree char *root = NULL, *dir = NULL;
        g_autoptr(LbDicomDataset) ds = NULL;
        guint n = size == 512 ? 100 : 24;

        dir = make_series (n, size, &root, &ds);
        bench_scroll (win, dir, size, n);
        lb_bench_remove_tree (root);
      }
  if (part_wanted ('c'))
    bench_dicomweb_load (win);
}
