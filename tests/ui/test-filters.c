/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Filters in the workstation that go beyond one image in, one image out of the same size:
 * a second image chosen in the parameter dialog (a file, a step of the history, another
 * slice of the series) for the subtraction; a resampling that changes the size (the canvas,
 * undo and upload follow); a declarative filter replaced on disk while its dialog is open; a
 * filter run over a whole series, undone as one step and written back as a new series. The
 * inputs are written by pydicom and PIL, and every result is checked by
 * tests/ui/filters-reference.py against numpy, ImageMagick and lightbox-cli run on each file.
 * One window per input, the cases in order.
 */
#include "config.h"

#include <glib/gstdio.h>

#include "lb-param-dialog.h"
#include "lb-png.h"
#include "lb-test-app.h"
#include "lb-test-dialogs.h"
#include "lb-test-files.h"
#include "lb-test-loop.h"
#include "lb-test-process.h"
#include "lb-test-ui.h"

#define SUBTRACT_ID "io.github.lightbox.medical.subtract"
#define RESAMPLE_ID "io.github.lightbox.medical.resample"
#define DOUBLE_ID "io.github.lightbox.test.double"
#define BLUR_ID "io.github.lightbox.xv.blur"
#define N_SLICES 10

static LbApplication *app;
static LbWindow *win;
static char *root;          /* the inputs, and results/ */
static GString *cases;      /* results/cases.txt: what the reference checks */

static gboolean
skip_without_inputs (void)
{
  if (root == NULL)
    g_test_skip ("filters-reference.py needs pydicom, numpy and PIL");
  return root == NULL;
}

static LbHistory *
history (void)
{
  return lb_window_test_get_history (win);
}

static LbParamDialog *
dialog (void)
{
  return LB_PARAM_DIALOG (lb_window_test_get_param_dialog (win));
}

static gboolean
has_param_dialog (gpointer data)
{
  return lb_window_test_get_param_dialog (win) != NULL;
}

static gboolean
no_param_dialog (gpointer data)
{
  return lb_window_test_get_param_dialog (win) == NULL;
}

static gboolean
shown_named (gpointer data)
{
  LbImage *image;

  if (win == NULL || lb_window_is_busy (win) || history () == NULL)
    return FALSE;
  image = lb_history_get_current (history ());
  return g_str_has_suffix (lb_image_meta_get_source_uri (lb_image_get_meta (image)), data);
}

/* The preview error shows (@data: a part of it), or is hidden (@data NULL). */
static gboolean
preview_error_is (gpointer data)
{
  const char *shown = dialog () ? lb_param_dialog_get_preview_error (dialog ()) : NULL;

  return data == NULL ? shown == NULL : shown != NULL && strstr (shown, data) != NULL;
}

static gboolean
has_aux_choice (gpointer data)
{
  return dialog () != NULL
         && lb_param_dialog_find_aux_choice (dialog (), data) != GTK_INVALID_LIST_POSITION;
}

/* A preview is on the canvas, and no error in the dialog. */
static gboolean
previewed (gpointer data)
{
  return preview_error_is (NULL) && history () != NULL
         && lb_canvas_get_image (lb_window_test_get_canvas (win))
            != lb_history_get_current (history ());
}

static const char *
frame_label (void)
{
  return gtk_label_get_text (GTK_LABEL (lb_window_test_get_child (win, "frame_label")));
}

/* Saves @image as results/@name, for the reference. */
static void
save_result (LbImage    *image,
             const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) png = lb_png_save_to_bytes (image, &error);
  g_autofree char *path = g_build_filename (root, "results", name, NULL);

  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (path, g_bytes_get_data (png, NULL), g_bytes_get_size (png),
                                      &error));
}

static void
add_case (const char *first,
          ...)
{
  va_list ap;

  va_start (ap, first);
  g_string_append (cases, first);
  for (const char *s = va_arg (ap, const char *); s != NULL; s = va_arg (ap, const char *))
    g_string_append_printf (cases, "\t%s", s);
  g_string_append_c (cases, '\n');
  va_end (ap);
}

static char *
input_path (const char *dir,
            const char *name)
{
  return g_build_filename (root, dir, name, NULL);
}

/* Opens @target's dialog and waits for it. */
static void
open_dialog (const char *target)
{
  gtk_widget_activate_action (GTK_WIDGET (win), "win.apply-filter", "s", target);
  g_assert_true (lb_test_wait (has_param_dialog, NULL, 5000));
}

static void
apply_and_wait (void)
{
  lb_param_dialog_respond (dialog (), TRUE);
  g_assert_null (lb_window_test_get_param_dialog (win));
  g_assert_true (lb_test_wait (lb_test_ui_not_busy, win, 20000));
}

static void
open_store_image (const char *name)
{
  g_autofree char *folder = g_build_filename (root, "store", NULL);
  guint pos;

  if (win == NULL)
    {
      win = lb_window_new (app);
      gtk_window_set_default_size (GTK_WINDOW (win), 1000, 700);
      gtk_window_present (GTK_WINDOW (win));
      lb_window_open_uri (win, folder);
      g_assert_true (lb_test_wait (lb_test_ui_tree_listed, win, 10000));
    }

  pos = lb_store_browser_find_row (lb_window_test_get_browser (win), name);
  g_assert_cmpuint (pos, !=, G_MAXUINT);
  lb_store_browser_activate_row (lb_window_test_get_browser (win), pos);
  /* the results on the image shown are not saved: asked first, they are discarded */
  if (history () != NULL && lb_history_get_position (history ()) > 0)
    {
      g_assert_true (lb_test_wait (lb_test_has_dialog, win, 10000));
      lb_test_answer_dialog (GTK_WINDOW (win), "_Discard");
    }
  g_assert_true (lb_test_wait (shown_named, (gpointer) name, 10000));
}

/* ---- a second image ------------------------------------------------------------------------ */

/* post.png − pre.png, pre.png chosen among the store folder's images; a file of another size
 * is refused in the dialog, with the filter's reason. */
static void
test_subtract_file (void)
{
  g_autofree char *post = NULL, *pre = NULL, *small = NULL;

  if (skip_without_inputs ())
    return;
  post = input_path ("store", "post.png");
  pre = input_path ("store", "pre.png");
  small = input_path ("store", "small.png");
  open_store_image ("post.png");
  open_dialog (SUBTRACT_ID);
  /* nothing chosen yet: the dialog says what is missing, and lists the folder's images */
  if (!lb_test_wait (preview_error_is, (gpointer) "Choose the second image", 5000))
    g_error ("the dialog's preview error is \"%s\", choice %u",
             dialog () ? lb_param_dialog_get_preview_error (dialog ()) : "(no dialog)",
             dialog () ? lb_param_dialog_get_aux_choice (dialog ()) : 0);
  g_assert_true (lb_test_wait (has_aux_choice, (gpointer) "pre.png", 10000));
  g_assert_cmpuint (lb_param_dialog_find_aux_choice (dialog (), "post.png"), ==,
                    GTK_INVALID_LIST_POSITION);
  g_assert_cmpuint (lb_param_dialog_get_aux_choice (dialog ()), ==, GTK_INVALID_LIST_POSITION);
  /* a file of another size: the filter's reason shows in the dialog */
  lb_window_test_choose_aux_file (win, small);
  g_assert_true (lb_test_wait (preview_error_is,
                               (gpointer) "must have the size and the format of the image", 10000));
  /* the mask from the store, downloaded when chosen */
  lb_param_dialog_set_aux_choice (dialog (), lb_param_dialog_find_aux_choice (dialog (),
                                                                              "pre.png"));
  g_assert_true (lb_test_wait (previewed, NULL, 10000));
  g_assert_true (lb_param_dialog_set_value (dialog (), "offset", 37.5));
  apply_and_wait ();
  g_assert_cmpuint (lb_history_get_position (history ()), ==, 1);
  save_result (lb_history_get_current (history ()), "sub-file.png");
  add_case ("subtract-png", "sub-file.png", post, pre, "37.5", NULL);
}

/* The result minus the original (a state of the history, the first choice offered). */
static void
test_subtract_history (void)
{
  g_autofree char *post = NULL;

  if (skip_without_inputs ())
    return;
  post = input_path ("store", "post.png");
  open_dialog (SUBTRACT_ID);
  g_assert_cmpuint (lb_param_dialog_get_aux_choice (dialog ()), ==, 0);
  g_assert_true (lb_param_dialog_set_value (dialog (), "offset", 100));
  g_assert_true (lb_test_wait (previewed, NULL, 10000));
  apply_and_wait ();
  g_assert_cmpuint (lb_history_get_position (history ()), ==, 2);
  save_result (lb_history_get_current (history ()), "sub-hist.png");
  add_case ("subtract-png", "sub-hist.png", "sub-file.png", post, "100", NULL);
}

/* ---- a new size ---------------------------------------------------------------------------- */

static void
test_resample (void)
{
  g_autofree char *src = NULL, *uploaded = NULL;
  LbImage *before, *after;
  const char *size;
  guint n_records;

  if (skip_without_inputs ())
    return;
  src = input_path ("store", "smooth.png");
  uploaded = input_path ("store", "smooth.resampled.png");
  open_store_image ("smooth.png");
  before = lb_history_get_current (history ());
  open_dialog (RESAMPLE_ID);
  g_assert_true (lb_param_dialog_set_value (dialog (), "factor", 1.7));
  g_assert_true (lb_param_dialog_set_value (dialog (), "method", 1)); /* linear */
  g_assert_true (lb_test_wait (previewed, NULL, 10000));
  apply_and_wait ();
  after = lb_history_get_current (history ());
  /* 57×41 × 1.7, rounded */
  g_assert_cmpuint (lb_image_get_width (after), ==, 97);
  g_assert_cmpuint (lb_image_get_height (after), ==, 70);
  g_assert_true (lb_canvas_get_image (lb_window_test_get_canvas (win)) == after);
  size = gtk_label_get_text (GTK_LABEL (lb_window_test_get_child (win, "size_label")));
  g_assert_nonnull (strstr (size, "97 × 70"));
  /* undo brings back the old size, redo the new one */
  gtk_widget_activate_action (GTK_WIDGET (win), "win.undo", NULL);
  g_assert_true (lb_canvas_get_image (lb_window_test_get_canvas (win)) == before);
  size = gtk_label_get_text (GTK_LABEL (lb_window_test_get_child (win, "size_label")));
  g_assert_nonnull (strstr (size, "57 × 41"));
  gtk_widget_activate_action (GTK_WIDGET (win), "win.redo", NULL);
  g_assert_true (lb_canvas_get_image (lb_window_test_get_canvas (win)) == after);
  /* the upload writes the new size */
  lb_test_ui_upload_as (win, "smooth.resampled.png", NULL);
  g_assert_true (g_file_test (uploaded, G_FILE_TEST_EXISTS));
  save_result (after, "resample.png");
  add_case ("resample", "resample.png", src, "1.7", uploaded, NULL);

  /* Run Benchmark times the last filter, resample, at five sizes of the image */
  n_records = lb_bench_panel_get_n_records (lb_window_test_get_bench_panel (win));
  gtk_widget_activate_action (GTK_WIDGET (win), "win.run-benchmark", NULL);
  g_assert_true (lb_test_wait (lb_test_ui_not_busy, win, 60000));
  g_assert_cmpuint (lb_bench_panel_get_n_records (lb_window_test_get_bench_panel (win)), ==,
                    n_records + 5);
}

/* ---- a series ------------------------------------------------------------------------------ */

static gboolean
slice_shown (gpointer data)
{
  return win != NULL && !lb_window_is_busy (win) && history () != NULL
         && g_str_has_prefix (frame_label (), data)
         && lb_canvas_get_image (lb_window_test_get_canvas (win))
            == lb_history_get_current (history ());
}

static void
go_to_slice (guint n)
{
  g_autofree char *want = g_strdup_printf ("slice %u/", n);

  gtk_widget_activate_action (GTK_WIDGET (win), "win.go-to-frame", "u", n);
  if (!lb_test_wait (slice_shown, want, 10000))
    g_error ("slice %u not shown: \"%s\", busy %d, history %u/%u, status %s", n, frame_label (),
             lb_window_is_busy (win), lb_history_get_position (history ()),
             lb_history_get_length (history ()), lb_window_test_get_last_status (win));
}

static const char *
current_source (void)
{
  return lb_image_meta_get_source_uri (lb_image_get_meta (lb_history_get_original (history ())));
}

static void
open_series (void)
{
  g_autofree char *folder = g_build_filename (root, "series", NULL);

  if (win != NULL)
    gtk_window_destroy (GTK_WINDOW (win));
  win = lb_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (win), 1000, 700);
  gtk_window_present (GTK_WINDOW (win));
  lb_window_open_uri (win, folder);
  g_assert_true (lb_test_wait (slice_shown, (gpointer) "slice 1/10", 20000));
}

/* Slice 5 − slice 1, slice 1 chosen from the series (read when chosen). */
static void
test_subtract_slice (void)
{
  g_autofree char *first = NULL, *fifth = NULL;
  g_autofree char *a = NULL, *b = NULL;

  if (skip_without_inputs ())
    return;
  open_series ();
  first = g_strdup (current_source ());
  go_to_slice (5);
  fifth = g_strdup (current_source ());
  open_dialog (SUBTRACT_ID);
  lb_param_dialog_set_aux_choice (dialog (), lb_param_dialog_find_aux_choice (dialog (),
                                                                              "Slice 1"));
  g_assert_true (lb_param_dialog_set_value (dialog (), "offset", 10));
  /* slice 1 is read when chosen: the dialog says so until the preview comes */
  g_assert_true (lb_test_wait (previewed, NULL, 10000));
  /* the dialog's second-image and scope rows, for a person to look at */
  if (g_getenv ("LB_TEST_SCREENSHOT") != NULL)
    {
      const char *argv[] = { "import", "-window", "root", g_getenv ("LB_TEST_SCREENSHOT"), NULL };

      gtk_test_widget_wait_for_draw (GTK_WIDGET (dialog ()));
      lb_test_ui_drain (300);
      g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                                   NULL, NULL, NULL, NULL));
    }
  apply_and_wait ();
  save_result (lb_history_get_current (history ()), "sub-slice.png");
  a = g_filename_from_uri (fifth, NULL, NULL);
  b = g_filename_from_uri (first, NULL, NULL);
  add_case ("subtract-dicom", "sub-slice.png", a, b, "10", NULL);
  gtk_widget_activate_action (GTK_WIDGET (win), "win.undo", NULL);
}

/* Blur over the whole series: one pass per slice in the benchmark panel, every slice shows
 * its result (the same as lightbox-cli filter on its file), and undo on one slice takes it
 * back on every slice; redo brings it back. */
static void
test_series_blur (void)
{
  LbBenchPanel *bench;
  guint n_records;

  if (skip_without_inputs ())
    return;
  bench = lb_window_test_get_bench_panel (win);
  g_settings_set_boolean (lb_window_test_get_settings (win), "benchmark-mode", TRUE);
  n_records = lb_bench_panel_get_n_records (bench);
  g_assert_cmpuint (lb_history_get_position (history ()), ==, 0);
  open_dialog (BLUR_ID);
  g_assert_true (lb_param_dialog_set_value (dialog (), "size", 5));
  lb_param_dialog_set_whole_series (dialog (), TRUE);
  g_assert_true (lb_param_dialog_get_whole_series (dialog ()));
  apply_and_wait ();
  g_assert_cmpuint (lb_bench_panel_get_n_records (bench), ==, n_records + N_SLICES);
  g_assert_cmpuint (lb_history_get_position (history ()), ==, 1);
  for (guint n = 1; n <= N_SLICES; n++)
    {
      g_autofree char *name = g_strdup_printf ("series-%02u.png", n);
      g_autofree char *file = NULL;

      go_to_slice (n);
      /* no question about losing results: the whole-series step goes with every slice */
      g_assert_cmpuint (lb_history_get_position (history ()), ==, 1);
      g_assert_cmpuint (lb_history_get_length (history ()), ==, 2);
      save_result (lb_history_get_current (history ()), name);
      file = g_filename_from_uri (current_source (), NULL, NULL);
      add_case ("series", name, file, "blur:size=5", NULL);
    }
  /* undo on slice 10: every slice is back to its original, redo is offered on each */
  gtk_widget_activate_action (GTK_WIDGET (win), "win.undo", NULL);
  for (guint n = 1; n <= N_SLICES; n += 3)
    {
      go_to_slice (n);
      g_assert_cmpuint (lb_history_get_position (history ()), ==, 0);
      g_assert_true (lb_canvas_get_image (lb_window_test_get_canvas (win))
                     == lb_history_get_original (history ()));
      g_assert_true (lb_history_can_redo (history ()));
    }
  gtk_widget_activate_action (GTK_WIDGET (win), "win.redo", NULL);
  go_to_slice (4);
  g_assert_cmpuint (lb_history_get_position (history ()), ==, 1);

  /* Escape while it runs: nothing changes */
  open_dialog (BLUR_ID);
  lb_param_dialog_set_whole_series (dialog (), TRUE);
  lb_param_dialog_respond (dialog (), TRUE);
  g_assert_true (lb_window_is_busy (win));
  gtk_widget_activate_action (GTK_WIDGET (win), "win.cancel", NULL);
  g_assert_true (lb_test_wait (lb_test_ui_not_busy, win, 10000));
  g_assert_nonnull (strstr (lb_window_test_get_last_status (win), "the series is unchanged"));
  g_assert_cmpuint (lb_history_get_position (history ()), ==, 1);
  g_assert_cmpuint (lb_history_get_length (history ()), ==, 2);
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The SHA-256 of the files directly in @dir, one "NAME HASH" line each. */
static char *
hash_files (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GString *out = g_string_new (NULL);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *path = g_build_filename (dir, names->pdata[i], NULL);
      g_autofree char *hash = NULL;

      if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
        continue;
      hash = lb_test_sha256_file (path);
      g_string_append_printf (out, "%s %s\n", (char *) names->pdata[i], hash);
    }
  return g_string_free (out, FALSE);
}

/* Upload writes the whole-series result as a new series in a new folder, twice: the second
 * goes to a folder of its own; the source files stay as they were. */
static void
test_series_upload (void)
{
  g_autofree char *series = NULL, *before = NULL, *hashes = NULL, *first = NULL, *second = NULL;

  if (skip_without_inputs ())
    return;
  series = g_build_filename (root, "series", NULL);
  before = hash_files (series);
  hashes = g_build_filename (root, "results", "series-before.txt", NULL);
  g_assert_true (g_file_set_contents (hashes, before, -1, NULL));
  g_assert_cmpuint (lb_history_get_position (history ()), ==, 1);
  /* an unsaved result marks the title */
  g_assert_true (g_str_has_prefix (gtk_window_get_title (GTK_WINDOW (win)), "• "));
  /* the dialog asks for a folder, proposing the series' and the filter's names */
  gtk_widget_activate_action (GTK_WIDGET (win), "win.upload", NULL);
  g_assert_true (lb_test_wait (lb_test_ui_has_upload_dialog, win, 2000));
  g_assert_nonnull (lb_test_find_text (lb_window_test_get_upload_dialog (win),
                                       "Name of the new folder, beside the series"));
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (lb_window_test_get_upload_entry (win))),
                   ==, "series.blur");
  gtk_window_close (GTK_WINDOW (lb_window_test_get_upload_dialog (win)));
  g_assert_null (lb_window_test_get_upload_dialog (win));
  lb_test_ui_upload_as (win, "series.blur", NULL);
  first = g_build_filename (series, "series.blur", NULL);
  g_assert_true (g_file_test (first, G_FILE_TEST_IS_DIR));
  g_assert_cmpuint (lb_test_count_entries (first), ==, N_SLICES);
  g_assert_nonnull (strstr (lb_window_test_get_last_status (win), "Wrote 10 slices"));
  /* saved: every slice of it, the one shown and the others */
  g_assert_false (g_str_has_prefix (gtk_window_get_title (GTK_WINDOW (win)), "• "));
  go_to_slice (7);
  g_assert_cmpuint (lb_history_get_position (history ()), ==, 1);
  g_assert_false (g_str_has_prefix (gtk_window_get_title (GTK_WINDOW (win)), "• "));
  lb_test_ui_upload_as (win, "series.blur", NULL);
  second = g_build_filename (series, "series.blur-2", NULL);
  g_assert_cmpuint (lb_test_count_entries (second), ==, N_SLICES);
  for (guint n = 1; n <= N_SLICES; n++)
    {
      g_autofree char *png = g_strdup_printf ("series-%02u.png", n);
      g_autofree char *dcm = g_strdup_printf ("IM%04u.dcm", n);
      g_autofree char *path = g_build_filename (first, dcm, NULL);

      add_case ("derived-slice", png, path, NULL);
    }
  add_case ("derived-series", first, series, "10", NULL);
  add_case ("untouched", series, "series-before.txt", NULL);
}

/* ---- a declarative filter replaced under its dialog ------------------------------------------ */

static void
write_kernel (const char *dir,
              int         tap)
{
  g_autofree char *text = g_strdup_printf ("[Filter]\nId=" DOUBLE_ID "\nName=Scale test\n"
                                           "Category=Test\nType=kernel\n\n[Kernel]\n"
                                           "Width=1\nHeight=1\nRow1=%d\nDivisor=1\nBias=0\n",
                                           tap);
  g_autofree char *tmp = g_build_filename (dir, ".scale.tmp", NULL);
  g_autofree char *path = g_build_filename (dir, "scale.lbfilter", NULL);

  /* as an installer should: a new file renamed over the old one */
  g_assert_true (g_file_set_contents (tmp, text, -1, NULL));
  g_assert_cmpint (g_rename (tmp, path), ==, 0);
}

static gboolean
dialog_filter_is_not (gpointer data)
{
  return dialog () != NULL && (gpointer) lb_param_dialog_get_filter (dialog ()) != data;
}

/* A .lbfilter has no parameters, but its dialog opens on a slice of a series (to choose the
 * scope): replaced on disk, the dialog runs the new kernel; removed, it closes. */
static void
test_lbfilter_rebind (void)
{
  LbFilterRegistry *registry = lb_application_get_registry (app);
  g_autofree char *dir = lb_test_make_tmpdir ("ui-lbfilters");
  g_autofree char *path = g_build_filename (dir, "scale.lbfilter", NULL);
  LbFilter *old;
  LbImage *input, *out;

  if (skip_without_inputs ())
    return;
  write_kernel (dir, 1);
  lb_filter_registry_add_filter_dir (registry, dir);
  lb_filter_registry_rescan (registry);
  input = lb_history_get_current (history ());
  open_dialog (DOUBLE_ID);
  old = lb_param_dialog_get_filter (dialog ());
  g_assert_true (lb_filter_get_kind (old) == LB_FILTER_KIND_KERNEL);

  write_kernel (dir, 2);
  lb_filter_registry_rescan (registry);
  g_assert_true (lb_test_wait (dialog_filter_is_not, old, 5000));
  g_assert_nonnull (strstr (lb_param_dialog_get_notice (dialog ()), "filter file was replaced"));
  apply_and_wait ();
  out = lb_history_get_current (history ());
  g_assert_true (out != input);
  /* the new kernel: twice every sample (none reaches the 16-bit limit) */
  for (guint y = 0; y < lb_image_get_height (out); y++)
    for (guint x = 0; x < lb_image_get_width (out); x++)
      g_assert_cmpuint (((const guint16 *) lb_image_get_row (out, y))[x], ==,
                        2u * ((const guint16 *) lb_image_get_row (input, y))[x]);

  /* removed while its dialog is open: the dialog closes and says why */
  open_dialog (DOUBLE_ID);
  g_assert_cmpint (g_unlink (path), ==, 0);
  lb_filter_registry_rescan (registry);
  g_assert_true (lb_test_wait (no_param_dialog, NULL, 5000));
  g_assert_nonnull (strstr (lb_window_test_get_last_status (win), "was removed"));
  gtk_widget_activate_action (GTK_WIDGET (win), "win.undo", NULL);
  lb_test_remove_tree (dir);
}

static void check_cases (guint min_ok);

/* ---- the same series on a PACS ---------------------------------------------------------------- */

/* The rows of the store tree expanded until the series whose URI holds @uid shows; its row. */
static guint
find_series_row (const char *uid)
{
  LbStoreBrowser *browser = lb_window_test_get_browser (win);

  for (guint round = 0; round < 4; round++)
    {
      guint n = g_list_model_get_n_items (lb_store_browser_get_rows (browser));

      /* from the end: expanding a row inserts its children after it */
      for (guint i = n; i-- > 0;)
        {
          LbStoreEntry *e = lb_store_browser_get_entry (browser, i);

          if (e == NULL)
            continue;
          if (lb_store_entry_get_kind (e) == LB_STORE_ENTRY_DICOM_SERIES
              && strstr (lb_store_entry_get_uri (e), uid) != NULL)
            return i;
          if (lb_store_entry_is_container (e)
              && lb_store_entry_get_kind (e) != LB_STORE_ENTRY_DICOM_SERIES)
            lb_store_browser_expand_row (browser, i, TRUE);
        }
      g_assert_true (lb_test_wait (lb_test_ui_tree_listed, win, 10000));
    }
  return G_MAXUINT;
}

/* The series stored in a real Orthanc (orthanc-run.sh), opened as a stack over DICOMweb,
 * blurred as a whole and stored back as a new series (STOW-RS); filters-reference.py reads
 * both series back from Orthanc's REST API. Skips without Orthanc: the window-filters-orthanc
 * test runs it. */
static void
test_orthanc_series (void)
{
  const char *url = g_getenv ("LB_DICOMWEB_URL");
  g_autofree char *series = NULL, *uid = NULL, *store_url = NULL, *rest = NULL;
  g_autofree char *uid_file = NULL;
  g_autoptr (GDir) dir = NULL;
  const char *name;
  guint row;

  if (skip_without_inputs ())
    return;
  if (url == NULL)
    {
      g_test_skip ("no Orthanc (run under tests/dicomweb/orthanc-run.sh)");
      return;
    }
  series = g_build_filename (root, "series", NULL);
  uid_file = g_build_filename (root, "series-uid.txt", NULL);
  g_assert_true (g_file_get_contents (uid_file, &uid, NULL, NULL));
  g_strstrip (uid);
  /* the pydicom files into Orthanc, through its own REST API */
  rest = g_strndup (url, strlen (url) - strlen ("/dicom-web"));
  dir = g_dir_open (series, 0, NULL);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *file = g_build_filename (series, name, NULL);
      g_autofree char *data = g_strconcat ("@", file, NULL);
      g_autofree char *target = g_strconcat (rest, "/instances", NULL);
      const char *argv[] = { "curl", "-sf", "-X", "POST", "--data-binary", data, target, NULL };
      g_autofree char *out = NULL, *err = NULL;
      int status;

      if (!g_str_has_suffix (name, ".dcm"))
        continue;
      out = lb_test_run_tool (argv, &err, &status);
      g_assert_cmpint (status, ==, 0);
    }

  if (win != NULL)
    gtk_window_destroy (GTK_WINDOW (win));
  win = lb_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (win), 1000, 700);
  gtk_window_present (GTK_WINDOW (win));
  store_url = g_strconcat ("dicomweb+", url, NULL);
  lb_window_open_store (win, store_url);
  g_assert_true (lb_test_wait (lb_test_ui_tree_listed, win, 10000));
  row = find_series_row (uid);
  g_assert_cmpuint (row, !=, G_MAXUINT);
  lb_store_browser_activate_row (lb_window_test_get_browser (win), row);
  g_assert_true (lb_test_wait (slice_shown, (gpointer) "slice 1/10", 30000));
  open_dialog (BLUR_ID);
  g_assert_true (lb_param_dialog_set_value (dialog (), "size", 5));
  lb_param_dialog_set_whole_series (dialog (), TRUE);
  apply_and_wait ();
  g_assert_cmpuint (lb_history_get_position (history ()), ==, 1);
  lb_test_ui_upload_as (win, "Phantom blurred by Lightbox", NULL);
  g_assert_nonnull (strstr (lb_window_test_get_last_status (win), "Stored 10 slices"));
  /* checked here: -p runs this case alone, with a single TAP plan */
  g_string_truncate (cases, 0);
  add_case ("orthanc-series", "-", "Phantom blurred by Lightbox", series, "blur:size=5", NULL);
  check_cases (N_SLICES + 3);
}

/* ---- the reference ------------------------------------------------------------------------- */

/* filters-reference.py on the cases so far: every check must pass, at least @min_ok. */
static void
check_cases (guint min_ok)
{
  g_autofree char *path = g_build_filename (root, "results", "cases.txt", NULL);
  g_autofree char *out = NULL;
  g_auto (GStrv) lines = NULL;
  guint n_ok = 0, n_bad = 0;

  g_assert_true (g_file_set_contents (path, cases->str, -1, NULL));
  out = lb_test_run_reference ("ui", "filters-reference.py", root);
  g_assert_nonnull (out);
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (g_str_has_prefix (lines[i], "ok: "))
        n_ok++;
      else if (g_str_has_prefix (lines[i], "not ok: "))
        n_bad++;
      if (*lines[i])
        g_test_message ("%s", lines[i]);
    }
  g_assert_cmpuint (n_bad, ==, 0);
  g_assert_cmpuint (n_ok, >=, min_ok);
  g_string_truncate (cases, 0);
}

static void
test_reference (void)
{
  if (skip_without_inputs ())
    return;
  if (cases->len == 0)
    {
      g_test_skip ("no results to check");
      return;
    }
  check_cases (4);
}

int
main (int argc, char **argv)
{
  g_autofree char *out = NULL;
  int ret;

  if (!lb_test_ui_init (&argc, &argv))
    return 0;
  app = lb_test_ui_app_new ();
  root = lb_test_make_tmpdir ("ui-filters");
  out = lb_test_run_reference ("ui", "filters-reference.py", root);
  if (out == NULL)
    g_clear_pointer (&root, g_free);
  else
    {
      g_autofree char *results = g_build_filename (root, "results", NULL);
      g_assert_cmpint (g_mkdir (results, 0755), ==, 0);
    }
  cases = g_string_new (NULL);

  g_test_add_func ("/ui/filters/subtract-file", test_subtract_file);
  g_test_add_func ("/ui/filters/subtract-history", test_subtract_history);
  g_test_add_func ("/ui/filters/resample", test_resample);
  g_test_add_func ("/ui/filters/subtract-slice", test_subtract_slice);
  g_test_add_func ("/ui/filters/series-blur", test_series_blur);
  g_test_add_func ("/ui/filters/series-upload", test_series_upload);
  g_test_add_func ("/ui/filters/lbfilter-rebind", test_lbfilter_rebind);
  g_test_add_func ("/ui/filters/orthanc-series", test_orthanc_series);
  g_test_add_func ("/ui/filters/reference", test_reference);
  ret = g_test_run ();

  if (win)
    gtk_window_destroy (GTK_WINDOW (win));
  lb_test_ui_drain (50);
  g_clear_object (&app);
  if (root != NULL && g_getenv ("LB_TEST_KEEP") == NULL)
    lb_test_remove_tree (root);
  g_string_free (cases, TRUE);
  return ret;
}
