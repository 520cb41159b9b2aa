/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A DICOMweb series as one stack, loaded in the background, against a real Orthanc
 * (orthanc-run.sh --verbose: its log has a line per HTTP request, which this test counts).
 *
 * The series is make-phantom.py's axial phantom (pydicom), stored with its files in a random
 * order and its InstanceNumbers shuffled so that only the positions give the order: slice k
 * (its index along the normal, from the manifest) has its centre at stored 2000 + k, and the
 * manifest has the SHA-256 of the samples pydicom reads back from each file.
 *   - order: LbFrameSource puts the file of index k at slice k + 1, from one series metadata
 *     request and no per-instance metadata request;
 *   - pixels: every slice the loader fetches has pydicom's samples;
 *   - paging while loading: the slice asked for is either not there yet or the right one, and
 *     arrives next;
 *   - cancel: no frame request reaches Orthanc after the ones under way when it was called;
 *   - memory: with a budget of a few slices, no more than that is ever kept, and what is kept
 *     is nearest the current slice. */
#include <string.h>

#include "lb-dicom-tags.h"
#include "lb-dicomweb-store.h"
#include "lb-frame-source.h"
#include "lb-series-loader.h"
#include "lb-test-dicom.h"
#include "lb-test-files.h"
#include "lb-test-loop.h"
#include "lb-test-process.h"

#define N_SLICES 24
#define SIZE 64

static char *store_url;       /* dicomweb+http://127.0.0.1:PORT/dicom-web */
static char *series_uri;      /* the phantom series' store URI */
static JsonNode *manifest;
static JsonObject *axial;     /* the manifest's series */

static LbStore *
open_store (void)
{
  g_autoptr(GError) error = NULL;
  LbStore *store = lb_store_new_for_uri (store_url, NULL, &error);

  g_assert_no_error (error);
  return store;
}

static guint
count_frame_requests (void)
{
  const char *needles[] = { "/frames/", NULL };

  return lb_test_orthanc_count_gets (needles);
}

static LbFrameSource *
open_series (void)
{
  g_autoptr(LbStore) store = open_store ();
  g_autoptr(GError) error = NULL;
  GAsyncResult *res = NULL;
  LbFrameSource *src;

  lb_frame_source_new_for_store_series_async (store, series_uri, NULL, lb_test_keep_result,
                                              &res);
  src = lb_frame_source_new_for_series_finish (lb_test_wait_result (&res), &error);
  g_object_unref (res);
  g_assert_no_error (error);
  return src;
}

/* The manifest's file of slice @number (1-based: index number − 1 along the normal). */
static JsonObject *
file_of (guint number)
{
  return lb_test_phantom_file (axial, number - 1);
}

static void
check_slice_pixels (LbImage *image, guint number)
{
  g_autofree char *sha = lb_test_stored_sha256 (image);

  g_assert_cmpuint (lb_image_get_width (image), ==, SIZE);
  g_assert_cmpstr (sha, ==, json_object_get_string_member (file_of (number), "pixels_sha256"));
}

static void
test_order (void)
{
  const char *series_md[] = { "/metadata", "/series/", NULL };
  guint md_before = lb_test_orthanc_count_gets (series_md);
  const char *any_md[] = { "/metadata", NULL };
  guint all_md_before = lb_test_orthanc_count_gets (any_md);
  g_autoptr(LbFrameSource) src = open_series ();

  g_assert_true (lb_frame_source_is_series (src));
  g_assert_cmpuint (lb_frame_source_get_n_frames (src), ==, N_SLICES);
  for (guint number = 1; number <= N_SLICES; number++)
    {
      JsonObject *file = file_of (number);
      const LbDicomDataset *ds = lb_frame_source_get_dataset (src, number);
      double mm;

      g_assert_nonnull (ds);
      g_assert_cmpstr (lb_dicom_dataset_get_string (ds, LB_TAG_SOP_INSTANCE_UID, 0), ==,
                       json_object_get_string_member (file, "sop_instance_uid"));
      g_assert_true (lb_frame_source_get_location (src, number, &mm));
      g_assert_cmpfloat_with_epsilon (mm, json_object_get_double_member (file, "location"), 1e-6);
    }
  /* one series metadata request, and no metadata request of an instance */
  g_assert_cmpuint (lb_test_orthanc_count_gets (series_md) - md_before, ==, 1);
  g_assert_cmpuint (lb_test_orthanc_count_gets (any_md) - all_md_before, ==, 1);
}

typedef struct {
  guint loaded[N_SLICES + 1];  /* frame-loaded signals per slice */
  guint64 budget;
  guint over_budget;           /* progress signals that saw more than the budget kept */
  guint max_kept;
} Watch;

static void
on_frame_loaded (LbSeriesLoader *loader, guint number, Watch *w)
{
  w->loaded[number]++;
}

static void
on_progress (LbSeriesLoader *loader, Watch *w)
{
  w->max_kept = MAX (w->max_kept, lb_series_loader_get_n_loaded (loader));
  if (w->budget && lb_series_loader_get_bytes (loader) > w->budget)
    w->over_budget++;
}

static LbSeriesLoader *
watched_loader (LbFrameSource *src, guint parallel, guint64 budget, Watch *w)
{
  LbSeriesLoader *loader = lb_series_loader_new (src, parallel, budget);

  memset (w, 0, sizeof *w);
  w->budget = budget;
  g_signal_connect (loader, "frame-loaded", G_CALLBACK (on_frame_loaded), w);
  g_signal_connect (loader, "progress", G_CALLBACK (on_progress), w);
  return loader;
}

static gboolean
all_loaded (gpointer data)
{
  LbSeriesLoader *loader = data;

  return lb_series_loader_get_n_loaded (loader) == N_SLICES;
}

static gboolean
idle (gpointer data)
{
  return lb_series_loader_is_idle (data);
}

static gboolean
any_loaded (gpointer data)
{
  return lb_series_loader_get_n_loaded (data) > 0;
}

static void
test_load_all (void)
{
  g_autoptr(LbFrameSource) src = open_series ();
  Watch w;
  g_autoptr(LbSeriesLoader) loader = watched_loader (src, 4, 0, &w);
  guint before = count_frame_requests ();

  lb_series_loader_set_current (loader, 1);
  g_assert_true (lb_test_wait (all_loaded, loader, 60000));
  for (guint number = 1; number <= N_SLICES; number++)
    {
      g_autoptr(LbImage) image = lb_series_loader_get_image (loader, number);

      g_assert_nonnull (image);
      check_slice_pixels (image, number);
      g_assert_cmpuint (w.loaded[number], ==, 1);
    }
  /* every slice once: one frame request each */
  g_assert_cmpuint (lb_series_loader_get_n_requests (loader), ==, N_SLICES);
  g_assert_cmpuint (count_frame_requests () - before, ==, N_SLICES);
}

typedef struct {
  LbSeriesLoader *loader;
  guint           target;
  gboolean        wrong;   /* a slice other than the target seen under its number */
} Paging;

static gboolean
target_loaded (gpointer data)
{
  Paging *p = data;
  g_autoptr(LbImage) image = lb_series_loader_get_image (p->loader, p->target);

  return image != NULL;
}

static void
test_paging (void)
{
  g_autoptr(LbFrameSource) src = open_series ();
  Watch w;
  g_autoptr(LbSeriesLoader) loader = watched_loader (src, 2, 0, &w);
  Paging p = { loader, 0, FALSE };

  lb_series_loader_set_current (loader, 1);
  g_assert_true (lb_test_wait (any_loaded, loader, 30000));
  /* jump far ahead while the slices near 1 still load: the slice asked for is absent (the
   * reader sees "loading") or, once there, exactly its own pixels */
  for (guint target = N_SLICES - 2; target >= 10; target -= 6)
    {
      g_autoptr(LbImage) now = NULL;
      g_autoptr(LbImage) later = NULL;

      p.target = target;
      lb_series_loader_set_current (loader, target);
      now = lb_series_loader_get_image (loader, target);
      if (now != NULL)
        check_slice_pixels (now, target);
      /* the target is among the requests under way at once */
      g_assert_cmpuint (lb_series_loader_get_n_active (loader), >=, 1);
      g_assert_true (lb_test_wait (target_loaded, &p, 30000));
      later = lb_series_loader_get_image (loader, target);
      check_slice_pixels (later, target);
    }
  g_assert_true (lb_test_wait (all_loaded, loader, 60000));
  for (guint number = 1; number <= N_SLICES; number++)
    {
      g_autoptr(LbImage) image = lb_series_loader_get_image (loader, number);

      check_slice_pixels (image, number);
    }
}

static gboolean
settle (gpointer data)
{
  return FALSE;
}

static void
test_cancel (void)
{
  g_autoptr(LbFrameSource) src = open_series ();
  Watch w;
  g_autoptr(LbSeriesLoader) loader = watched_loader (src, 2, 0, &w);
  guint before = count_frame_requests (), at_cancel, after;

  lb_series_loader_set_current (loader, 1);
  g_assert_true (lb_test_wait (any_loaded, loader, 30000));
  lb_series_loader_cancel (loader);
  g_assert_true (lb_series_loader_is_cancelled (loader));
  /* slice 1 is loaded: nothing the reader waits for, so no request goes on */
  g_assert_cmpuint (lb_series_loader_get_n_active (loader), ==, 0);
  at_cancel = lb_series_loader_get_n_requests (loader);
  g_assert_cmpuint (at_cancel, <, N_SLICES);
  /* a second for anything still queued to reach the server */
  lb_test_wait (settle, NULL, 1000);
  after = count_frame_requests () - before;
  /* Orthanc saw no more than the requests started before the cancel, and none since */
  g_assert_cmpuint (after, <=, at_cancel);
  g_assert_cmpuint (lb_series_loader_get_n_requests (loader), ==, at_cancel);
  lb_test_wait (settle, NULL, 500);
  g_assert_cmpuint (count_frame_requests () - before, ==, after);
  g_assert_cmpuint (lb_series_loader_get_n_loaded (loader), <, N_SLICES);
  /* after a cancel, only the slice asked for still loads */
  lb_series_loader_set_current (loader, N_SLICES);
  g_assert_true (lb_test_wait (idle, loader, 30000));
  {
    g_autoptr(LbImage) last = lb_series_loader_get_image (loader, N_SLICES);

    g_assert_nonnull (last);
    check_slice_pixels (last, N_SLICES);
    g_assert_cmpuint (lb_series_loader_get_n_requests (loader), ==, at_cancel + 1);
  }
}

static void
test_budget (void)
{
  g_autoptr(LbFrameSource) src = open_series ();
  Watch w;
  /* five slices' samples (64 × 64 × 2 bytes each) */
  guint64 slice_bytes = SIZE * SIZE * 2;
  g_autoptr(LbSeriesLoader) loader = watched_loader (src, 3, 5 * slice_bytes, &w);
  guint current = 12;

  lb_series_loader_set_current (loader, current);
  g_assert_true (lb_test_wait (any_loaded, loader, 30000));
  g_assert_true (lb_test_wait (idle, loader, 30000));
  g_assert_cmpuint (w.over_budget, ==, 0);
  g_assert_cmpuint (w.max_kept, <=, 5);
  g_assert_cmpuint (lb_series_loader_get_n_loaded (loader), ==, 5);
  /* the five kept are the current slice and its nearest neighbours */
  for (guint number = current - 2; number <= current + 2; number++)
    {
      g_autoptr(LbImage) image = lb_series_loader_get_image (loader, number);

      g_assert_nonnull (image);
      check_slice_pixels (image, number);
    }
  /* paging to the end moves the window with the reader */
  lb_series_loader_set_current (loader, N_SLICES);
  g_assert_true (lb_test_wait (idle, loader, 30000));
  g_assert_cmpuint (w.over_budget, ==, 0);
  for (guint number = N_SLICES - 4; number <= N_SLICES; number++)
    {
      g_autoptr(LbImage) image = lb_series_loader_get_image (loader, number);

      g_assert_nonnull (image);
      check_slice_pixels (image, number);
    }
  g_assert_cmpuint (lb_series_loader_get_n_loaded (loader), ==, 5);
}

int
main (int argc, char **argv)
{
  const char *url = g_getenv ("LB_DICOMWEB_URL");
  const char *options[] = { "--slices", G_STRINGIFY (N_SLICES), "--size", G_STRINGIFY (SIZE),
                            "--orientations", "axial", "--shuffle", "2611",
                            "--shuffle-numbers", NULL };
  g_autofree char *dir = NULL;
  int rc;

  g_test_init (&argc, &argv, NULL);
  if (url == NULL || g_getenv ("LB_ORTHANC_LOG") == NULL)
    {
      g_test_message ("run through orthanc-run.sh --verbose");
      return 77;
    }
  dir = lb_test_make_phantom ("dicomweb-series", options, &manifest);
  if (dir == NULL)
    {
      g_test_message ("make-phantom.py needs pydicom and numpy");
      return 77;
    }
  axial = lb_test_phantom_series (manifest, "axial");
  store_url = g_strconcat ("dicomweb+", url, NULL);
  lb_test_orthanc_upload (url, dir, axial);
  /* the series' store URI, as the tree gives it */
  series_uri = lb_test_phantom_series_uri (store_url, manifest, axial);
  g_test_add_func ("/dicomweb-series/order", test_order);
  g_test_add_func ("/dicomweb-series/load-all", test_load_all);
  g_test_add_func ("/dicomweb-series/paging", test_paging);
  g_test_add_func ("/dicomweb-series/cancel", test_cancel);
  g_test_add_func ("/dicomweb-series/budget", test_budget);
  rc = g_test_run ();
  lb_test_remove_tree (dir);
  return rc;
}
