/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The workstation against a real lightbox-store on 127.0.0.1 serving a copy of data/samples:
 * expand the tree, open a 16-bit CT image, change window/level and check the displayed
 * pixels, apply a filter through its action and generated dialog, undo/redo/reapply, upload
 * (name prompt, conflict dialog: keep both, overwrite) and check the files on the server
 * with their provenance; render the window to a PNG and check it has real content; a filter
 * plugin replaced while its dialog is open. One window, one scenario: each test starts from
 * the state the one before left. test-window-panels.c and test-window-stores.c test the
 * panels on their own and stores that are hard to open.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <math.h>

#include "lb-param-dialog.h"
#include "lb-png.h"
#include "lb-render.h"
#include "lb-test-dialogs.h"
#include "lb-test-files.h"
#include "lb-test-loop.h"
#include "lb-test-process.h"
#include "lb-test-ps33.h"
#include "lb-test-ui.h"

#define CT_NAME "ct-head-128-16bit.png"
#define THRESHOLD_ID "io.github.lightbox.example.threshold"

static LbApplication *app;
static LbTestServer store;
static LbWindow *win;

/* The parts of the window under test that the tests read (lb-window-test.h). */
static LbHistory *
win_history (void)
{
  return lb_window_test_get_history (win);
}

static LbCanvas *
win_canvas (void)
{
  return lb_window_test_get_canvas (win);
}

static LbStoreBrowser *
win_browser (void)
{
  return lb_window_test_get_browser (win);
}

/* The name field of the upload dialog. */
static GtkEditable *
win_upload_entry (void)
{
  return GTK_EDITABLE (lb_window_test_get_upload_entry (win));
}

/* The text of a label of the window's template, by its id in ui/lb-window.ui. */
static const char *
win_label (const char *id)
{
  return gtk_label_get_text (GTK_LABEL (lb_window_test_get_child (win, id)));
}

static gboolean
has_param_dialog (gpointer data)
{
  return lb_window_test_get_param_dialog (LB_WINDOW (data)) != NULL;
}

static gboolean
canvas_shows_other (gpointer data)
{
  LbWindow *w = data;
  return lb_canvas_get_image (lb_window_test_get_canvas (w))
         != lb_history_get_current (lb_window_test_get_history (w));
}

static gboolean
store_filter_loaded (gpointer data)
{
  return g_list_model_get_n_items (lb_window_test_get_store_filters (LB_WINDOW (data))) > 0;
}

/* Waits until GTK has drawn the window with the current state. */
static void
redraw (void)
{
  gtk_widget_queue_draw (GTK_WIDGET (win));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (win));
  lb_test_ui_drain (20);
}

static guint16
raw_at (LbImage *image,
        int      x,
        int      y)
{
  return ((const guint16 *) lb_image_get_row (image, y))[x];
}

/* What the display must show for sample @v under window (@c, @w) with Invert @invert: the
 * grey pipeline of PS3.3 (rescale, LINEAR VOI, MONOCHROME1) computed by the independent
 * reference (tests/view/ps33-display.py, pydicom) from the image's value model, never by
 * Lightbox's own formula. */
static guint8
expected_display (LbImage  *image,
                  guint16   v,
                  double    c,
                  double    w,
                  gboolean  invert)
{
  LbValueModel *model = lb_image_meta_get_value_model (lb_image_get_meta (image));
  g_autoptr (GString) line = g_string_new ("bits=16");
  g_autoptr (GBytes) table = NULL;
  double slope, intercept;
  char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE];

  g_assert_nonnull (model);
  g_string_append_printf (line, " offset=%u", lb_value_model_get_sample_offset (model));
  if (lb_value_model_get_stored_rescale (model, &slope, &intercept))
    g_string_append_printf (line, " slope=%s intercept=%s", g_ascii_dtostr (a, sizeof a, slope),
                            g_ascii_dtostr (b, sizeof b, intercept));
  g_string_append_printf (line, " function=%s center=%s width=%s",
                          lb_voi_function_to_string (lb_value_model_get_voi_function (model)),
                          g_ascii_dtostr (a, sizeof a, c), g_ascii_dtostr (b, sizeof b, w));
  if (lb_value_model_get_monochrome1 (model))
    g_string_append (line, " mono1=1");
  if (invert)
    g_string_append (line, " invert=1");
  g_string_append_c (line, '\n');
  table = lb_test_ps33_tables (line->str);
  g_assert_nonnull (table);
  g_assert_cmpuint (g_bytes_get_size (table), ==, 65536);
  return ((const guint8 *) g_bytes_get_data (table, NULL))[v];
}

static void
test_open_store (void)
{
  guint pos;

  win = lb_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (win), 1100, 700);
  gtk_window_present (GTK_WINDOW (win));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (win));

  lb_window_open_store (win, store.url);
  g_assert_true (lb_test_wait (lb_test_ui_tree_listed, win, 10000));
  /* root: CT, MR, RGB folders (dotfiles hidden), containers first */
  pos = lb_store_browser_find_row (win_browser (), "CT");
  g_assert_cmpuint (pos, !=, G_MAXUINT);
  g_assert_nonnull (lb_store_browser_get_entry (win_browser (), pos));
  g_assert_true (lb_store_entry_is_container (lb_store_browser_get_entry (win_browser (), pos)));

  /* expanding lists the folder lazily: a spinner row first, then the entries */
  g_assert_true (lb_store_browser_expand_row (win_browser (), pos, TRUE));
  g_assert_true (lb_test_wait (lb_test_ui_tree_listed, win, 10000));
  g_assert_cmpuint (lb_store_browser_find_row (win_browser (), CT_NAME), !=, G_MAXUINT);

  /* type-to-search finds and selects it */
  g_assert_true (lb_store_browser_search (win_browser (), "ct-head-128-16", FALSE));

  /* the store's declarative filter appears under "From store" */
  g_assert_true (lb_test_wait (store_filter_loaded, win, 10000));
}

static void
test_open_image (void)
{
  guint pos = lb_store_browser_find_row (win_browser (), CT_NAME);
  LbImage *image;
  const char *size;

  g_assert_cmpuint (pos, !=, G_MAXUINT);
  lb_store_browser_activate_row (win_browser (), pos);
  g_assert_true (lb_test_wait (lb_test_ui_not_busy, win, 10000));
  g_assert_nonnull (win_history ());
  image = lb_history_get_current (win_history ());
  g_assert_cmpint (lb_image_get_format (image), ==, LB_FORMAT_GRAY16);
  g_assert_cmpuint (lb_image_get_width (image), ==, 128);
  g_assert_true (g_str_has_suffix (lb_image_meta_get_source_uri (lb_image_get_meta (image)),
                                   "/CT/" CT_NAME));
  g_assert_nonnull (lb_image_meta_get_source_etag (lb_image_get_meta (image)));
  g_assert_true (lb_window_test_get_first_pixels_us (win) > 0);
  size = win_label ("size_label");
  g_assert_nonnull (strstr (size, "128 × 128"));
  g_assert_nonnull (strstr (size, "gray16"));
  g_assert_true (lb_canvas_has_rescale (win_canvas ()));
}

/* The canvas' centre pixel shows @image's sample there as PS3.3 says for window (@c, @w). */
static void
check_center_pixel_of (LbImage *image,
                       double   c,
                       double   w,
                       gboolean invert)
{
  int cx = gtk_widget_get_width (GTK_WIDGET (win_canvas ())) / 2;
  int cy = gtk_widget_get_height (GTK_WIDGET (win_canvas ())) / 2;
  int ix, iy;
  guint32 argb;
  guint8 want;

  g_assert_true (lb_canvas_widget_to_image (win_canvas (), cx + 0.5, cy + 0.5, &ix, &iy));
  g_assert_true (lb_canvas_peek_display_pixel (win_canvas (), cx, cy, &argb));
  want = expected_display (image, raw_at (image, ix, iy), c, w, invert);
  g_test_message ("centre: sample %u shows %u, PS3.3 %u", raw_at (image, ix, iy), argb & 0xff,
                  want);
  g_assert_cmpuint (argb & 0xff, ==, want);
  g_assert_cmpuint ((argb >> 8) & 0xff, ==, want);
  g_assert_cmpuint (argb >> 24, ==, 0xff);
}

static void
check_center_pixel (double   c,
                    double   w,
                    gboolean invert)
{
  check_center_pixel_of (lb_history_get_current (win_history ()), c, w, invert);
}

static void
test_window_level (void)
{
  g_autofree char *wl = NULL;
  guint32 before, after;
  int cx = gtk_widget_get_width (GTK_WIDGET (win_canvas ())) / 2;
  int cy = gtk_widget_get_height (GTK_WIDGET (win_canvas ())) / 2;
  double c, w;

  redraw ();
  lb_canvas_get_window (win_canvas (), &c, &w);
  check_center_pixel (c, w, FALSE);
  g_assert_true (lb_canvas_peek_display_pixel (win_canvas (), cx, cy, &before));

  /* the CT brain preset (40/80 HU) through its action */
  gtk_widget_activate_action (GTK_WIDGET (win), "win.wl-preset", "s", "brain");
  redraw ();
  lb_canvas_get_window (win_canvas (), &c, &w);
  g_assert_cmpfloat (c, ==, 40);
  g_assert_cmpfloat (w, ==, 80);
  check_center_pixel (40, 80, FALSE);
  wl = g_strdup (win_label ("wl_label"));
  g_assert_cmpstr (wl, ==, "W 80  L 40 HU");

  /* a bone window shows the same pixel differently, exactly as computed */
  lb_canvas_set_window (win_canvas (), 400, 1800);
  redraw ();
  check_center_pixel (400, 1800, FALSE);
  g_assert_true (lb_canvas_peek_display_pixel (win_canvas (), cx, cy, &after));

  /* invert flips the display value */
  gtk_widget_activate_action (GTK_WIDGET (win), "win.invert", NULL);
  redraw ();
  {
    guint32 inv;
    g_assert_true (lb_canvas_peek_display_pixel (win_canvas (), cx, cy, &inv));
    g_assert_cmpuint (inv & 0xff, ==, 255 - (after & 0xff));
  }
  check_center_pixel (400, 1800, TRUE);
  gtk_widget_activate_action (GTK_WIDGET (win), "win.invert", NULL);

  /* auto window from the histogram is back to a useful range */
  gtk_widget_activate_action (GTK_WIDGET (win), "win.wl-auto", NULL);
  redraw ();
  lb_canvas_get_window (win_canvas (), &c, &w);
  check_center_pixel (c, w, FALSE);
  (void) before;
}

/* The labels of @model's items, sections included, in order. */
static void
collect_labels (GMenuModel *model,
                GPtrArray  *out)
{
  for (int i = 0; i < g_menu_model_get_n_items (model); i++)
    {
      g_autofree char *label = NULL;
      g_autoptr (GMenuModel) section = g_menu_model_get_item_link (model, i, G_MENU_LINK_SECTION);

      if (g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_LABEL, "s", &label))
        g_ptr_array_add (out, g_steal_pointer (&label));
      if (section != NULL)
        collect_labels (section, out);
    }
}

static gboolean
menu_has (const char *label)
{
  GtkWidget *button = lb_window_test_get_child (win, "window_button");
  g_autoptr (GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);

  collect_labels (gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (button)), labels);
  for (guint i = 0; i < labels->len; i++)
    if (g_str_equal (labels->pdata[i], label))
      return TRUE;
  return FALSE;
}

/* A 64 × 64 ramp of stored values −100 … 3999 (signed, offset binary) with @model. */
static LbImage *
model_image (LbValueModel *model)
{
  gsize stride;
  guint8 *px = lb_image_alloc_pixels (64, 64, LB_FORMAT_GRAY16, NULL, &stride, NULL);
  g_autoptr (LbImageMeta) meta = lb_image_meta_new ();

  for (guint y = 0; y < 64; y++)
    for (guint x = 0; x < 64; x++)
      ((guint16 *) (px + y * stride))[x] = (guint16) (32768 - 100 + y * 64 + x);
  lb_image_meta_set_value_model (meta, model);
  return lb_image_new_take (64, 64, LB_FORMAT_GRAY16, stride, px, meta);
}

/* What a DICOM image's value model changes on screen: MONOCHROME1 shown inverted (against the
 * PS3.3 reference), the file's window presets in the W/L menu, the CT presets only for HU,
 * the probe's padding and its precision for a slope of 0.5, the unit in the status line. */
static void
test_value_model_display (void)
{
  g_autoptr (LbValueModelBuilder) b = lb_value_model_builder_new (NULL, 16);
  g_autoptr (LbValueModel) cr = NULL, ct = NULL;
  g_autoptr (LbImage) cr_img = NULL, ct_img = NULL;
  g_autofree char *probe = NULL;
  double c, w;

  /* a CR: MONOCHROME1, no rescale, no unit, one window */
  lb_value_model_builder_set_source (b, TRUE, 16);
  lb_value_model_builder_set_monochrome1 (b, TRUE);
  lb_value_model_builder_add_window (b, 1000, 2000, NULL);
  cr = lb_value_model_builder_end (g_steal_pointer (&b));
  cr_img = model_image (cr);
  lb_canvas_set_image (win_canvas (), cr_img, FALSE);
  redraw ();
  lb_canvas_get_window (win_canvas (), &c, &w);
  g_assert_cmpfloat (c, ==, 1000);
  g_assert_cmpfloat (w, ==, 2000);
  g_assert_cmpstr (win_label ("wl_label"), ==, "W 2000  L 1000");
  check_center_pixel_of (cr_img, 1000, 2000, FALSE);
  /* the minimum is white: a low value shows brighter than a high one */
  g_assert_cmpuint (expected_display (cr_img, 32768, 1000, 2000, FALSE), >,
                    expected_display (cr_img, 32768 + 1500, 1000, 2000, FALSE));
  /* Invert works relative to it */
  gtk_widget_activate_action (GTK_WIDGET (win), "win.invert", NULL);
  redraw ();
  check_center_pixel_of (cr_img, 1000, 2000, TRUE);
  gtk_widget_activate_action (GTK_WIDGET (win), "win.invert", NULL);
  /* the file's window is in the menu; CT presets are not (the values are not HU) */
  g_assert_true (menu_has ("Window 1 (1000/2000)"));
  g_assert_false (menu_has ("CT Brain (40/80)"));
  /* no rescale: the probe shows the stored value alone */
  probe = lb_canvas_describe_pixel (win_canvas (), 3, 0);
  g_assert_cmpstr (probe, ==, "x 3  y 0  -97");
  g_clear_pointer (&probe, g_free);

  /* a CT: slope 0.5, padding, three windows with explanations */
  b = lb_value_model_builder_new (NULL, 16);
  lb_value_model_builder_set_source (b, TRUE, 16);
  lb_value_model_builder_set_rescale (b, 0.5, -1024);
  lb_value_model_builder_set_units (b, "HU");
  lb_value_model_builder_set_padding (b, 32768 - 100, 32768 + 1000);
  lb_value_model_builder_add_window (b, 40, 400, "SOFT TISSUE");
  lb_value_model_builder_add_window (b, -600, 1500, "LUNG");
  lb_value_model_builder_add_window (b, 400.5, 1800, "BONE");
  ct = lb_value_model_builder_end (g_steal_pointer (&b));
  ct_img = model_image (ct);
  lb_canvas_set_image (win_canvas (), ct_img, FALSE);
  redraw ();
  g_assert_true (menu_has ("SOFT TISSUE (40.0/400.0)"));
  g_assert_true (menu_has ("LUNG (-600.0/1500.0)"));
  g_assert_true (menu_has ("BONE (400.5/1800.0)"));
  g_assert_true (menu_has ("CT Brain (40/80)"));
  /* the file's first window is the one shown */
  g_assert_cmpstr (win_label ("wl_label"), ==, "W 400.0  L 40.0 HU");
  gtk_widget_activate_action (GTK_WIDGET (win), "win.wl-preset", "s", "file-1");
  lb_canvas_get_window (win_canvas (), &c, &w);
  g_assert_cmpfloat (c, ==, -600);
  g_assert_cmpfloat (w, ==, 1500);
  g_assert_cmpstr (win_label ("wl_label"), ==, "W 1500.0  L -600.0 HU");
  /* padding (stored −100 … 1000, the first 1101 pixels) is named, not valued; real values keep
   * their half units */
  probe = lb_canvas_describe_pixel (win_canvas (), 5, 0);
  g_assert_cmpstr (probe, ==, "x 5  y 0  padding");
  g_clear_pointer (&probe, g_free);
  probe = lb_canvas_describe_pixel (win_canvas (), 13, 17);
  g_assert_cmpstr (probe, ==, "x 13  y 17  1001  (-523.5 HU)");
  g_clear_pointer (&probe, g_free);
  /* the automatic window leaves the padding out: its bottom is at least the lowest real value
   * (with the padding counted, the 1st percentile would be stored −60, −1054 HU) */
  g_assert_true (lb_canvas_auto_window (win_canvas ()));
  lb_canvas_get_window (win_canvas (), &c, &w);
  g_assert_cmpfloat (c - w / 2, >=, 1001 * 0.5 - 1024);

  /* back to the CT of the history, as the following tests expect */
  lb_canvas_set_image (win_canvas (), lb_history_get_current (win_history ()), FALSE);
  gtk_widget_activate_action (GTK_WIDGET (win), "win.wl-preset", "s", "brain");
  redraw ();
}

static void
check_threshold (LbImage *in,
                 LbImage *out,
                 double   level)
{
  guint limit = (guint) (level / 100.0 * 65535 + 0.5);

  g_assert_cmpuint (lb_image_get_width (out), ==, lb_image_get_width (in));
  for (guint y = 0; y < lb_image_get_height (in); y++)
    for (guint x = 0; x < lb_image_get_width (in); x++)
      g_assert_cmpuint (raw_at (out, x, y), ==, raw_at (in, x, y) >= limit ? 65535 : 0);
}

static void
apply_threshold (double level)
{
  const guint position = lb_history_get_position (win_history ());
  const guint length = lb_history_get_length (win_history ());
  LbImage *current = lb_history_get_current (win_history ());
  LbParamDialog *dialog;

  gtk_widget_activate_action (GTK_WIDGET (win), "win.apply-filter", "s", THRESHOLD_ID);
  g_assert_true (lb_test_wait (has_param_dialog, win, 2000));
  dialog = LB_PARAM_DIALOG (lb_window_test_get_param_dialog (win));
  g_assert_nonnull (lb_param_dialog_get_widget (dialog, "level"));
  g_assert_true (GTK_IS_SPIN_BUTTON (lb_param_dialog_get_widget (dialog, "level")));
  g_assert_true (GTK_IS_SWITCH (lb_param_dialog_get_widget (dialog, "invert")));
  g_assert_true (lb_param_dialog_set_value (dialog, "level", level));
  /* the live preview replaces what the canvas shows, without touching the history */
  g_assert_true (lb_test_wait (canvas_shows_other, win, 5000));
  g_assert_cmpuint (lb_history_get_position (win_history ()), ==, position);
  g_assert_cmpuint (lb_history_get_length (win_history ()), ==, length);
  g_assert_true (lb_history_get_current (win_history ()) == current);
  lb_param_dialog_respond (dialog, TRUE);
  g_assert_null (lb_window_test_get_param_dialog (win));
  g_assert_true (lb_test_wait (lb_test_ui_not_busy, win, 10000));
}

static void
test_filter_undo_redo (void)
{
  LbImage *original = lb_history_get_current (win_history ());
  LbImage *first;
  guint n_records;

  g_settings_set_boolean (lb_window_test_get_settings (win), "benchmark-mode", TRUE);
  n_records = lb_bench_panel_get_n_records (lb_window_test_get_bench_panel (win));

  apply_threshold (30);
  g_assert_cmpuint (lb_history_get_position (win_history ()), ==, 1);
  first = lb_history_get_current (win_history ());
  check_threshold (original, first, 30);
  g_assert_true (lb_canvas_get_image (win_canvas ()) == first);
  g_assert_nonnull (strstr (win_label ("filter_time_label"), "ms"));
  /* benchmark mode logged the pass */
  g_assert_cmpuint (lb_bench_panel_get_n_records (lb_window_test_get_bench_panel (win)), ==,
                    n_records + 1);

  gtk_widget_activate_action (GTK_WIDGET (win), "win.undo", NULL);
  g_assert_true (lb_history_get_current (win_history ()) == original);
  g_assert_true (lb_canvas_get_image (win_canvas ()) == original);
  gtk_widget_activate_action (GTK_WIDGET (win), "win.redo", NULL);
  g_assert_true (lb_history_get_current (win_history ()) == first);

  /* undo, then apply again with other values: the redo tail is replaced */
  gtk_widget_activate_action (GTK_WIDGET (win), "win.undo", NULL);
  apply_threshold (40);
  g_assert_cmpuint (lb_history_get_position (win_history ()), ==, 1);
  g_assert_cmpuint (lb_history_get_length (win_history ()), ==, 2);
  check_threshold (original, lb_history_get_current (win_history ()), 40);
  g_assert_false (lb_history_can_redo (win_history ()));
}

static LbImage *
load_from_root (const char *rel)
{
  g_autofree char *path = g_build_filename (store.root, rel, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = NULL;
  g_autofree char *data = NULL;
  gsize len;
  LbImage *image;

  g_assert_true (g_file_get_contents (path, &data, &len, &error));
  bytes = g_bytes_new_take (g_steal_pointer (&data), len);
  image = lb_png_load_bytes (bytes, path, NULL, &error);
  g_assert_no_error (error);
  return image;
}

static void
test_upload (void)
{
  LbImage *current = lb_history_get_current (win_history ());
  g_autoptr (LbImage) uploaded = NULL;
  g_autoptr (LbImage) second = NULL;
  g_autoptr (LbImage) replaced = NULL;
  const LbImageMeta *meta;
  const char *src = lb_image_meta_get_source_uri (lb_image_get_meta (current));
  g_autofree char *default_name = NULL;

  /* the derived default name: source name + filter alias */
  gtk_widget_activate_action (GTK_WIDGET (win), "win.upload", NULL);
  g_assert_true (lb_test_wait (lb_test_ui_has_upload_dialog, win, 2000));
  default_name = g_strdup (gtk_editable_get_text (win_upload_entry ()));
  g_assert_cmpstr (default_name, ==, "ct-head-128-16bit.threshold.png");
  /* closing it (Escape) cancels */
  gtk_window_close (GTK_WINDOW (lb_window_test_get_upload_dialog (win)));
  g_assert_null (lb_window_test_get_upload_dialog (win));

  lb_test_ui_upload_as (win, "result.png", NULL);
  g_assert_nonnull (lb_window_test_get_last_upload_uri (win));
  g_assert_true (g_str_has_suffix (lb_window_test_get_last_upload_uri (win), "/CT/result.png"));
  uploaded = load_from_root ("CT/result.png");
  g_assert_true (lb_image_equal_pixels (uploaded, current));
  g_assert_cmpint (lb_image_get_format (uploaded), ==, LB_FORMAT_GRAY16);
  meta = lb_image_get_meta (uploaded);
  g_assert_cmpstr (lb_image_meta_get_text (meta, "Source"), ==, src);
  g_assert_nonnull (lb_image_meta_get_text (meta, "lightbox:filter-chain"));
  g_assert_nonnull (strstr (lb_image_meta_get_text (meta, "lightbox:filter-chain"), THRESHOLD_ID));
  g_assert_nonnull (strstr (lb_image_meta_get_text (meta, "lightbox:filter-chain"), "level=40"));
  g_assert_nonnull (lb_window_test_get_last_status (win));

  /* the same name again: conflict → keep both → result-2.png, the first one untouched */
  lb_test_ui_upload_as (win, "result.png", "_Keep Both");
  second = load_from_root ("CT/result-2.png");
  g_assert_true (lb_image_equal_pixels (second, current));

  /* a new state, then overwrite result.png with explicit consent */
  gtk_widget_activate_action (GTK_WIDGET (win), "win.undo", NULL);
  lb_test_ui_upload_as (win, "result.png", "_Overwrite");
  replaced = load_from_root ("CT/result.png");
  g_assert_true (lb_image_equal_pixels (replaced, lb_history_get_current (win_history ())));
  g_assert_false (lb_image_equal_pixels (replaced, uploaded));
  gtk_widget_activate_action (GTK_WIDGET (win), "win.redo", NULL);
}

/* Renders the whole window through GTK's renderer (gtk-toolchain.md §6a). */
static GdkTexture *
render_window (void)
{
  return lb_test_ui_render (GTK_WIDGET (win));
}

/* Distinct colours in a rectangle of a downloaded BGRA texture. */
static guint
count_colours (const guint8 *px,
               gsize         stride,
               int           x0,
               int           y0,
               int           x1,
               int           y1)
{
  g_autoptr (GHashTable) set = g_hash_table_new (g_direct_hash, g_direct_equal);

  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++)
      {
        guint32 v = *(const guint32 *) (px + y * stride + x * 4);
        g_hash_table_add (set, GUINT_TO_POINTER (v & 0xffffff));
      }
  return g_hash_table_size (set);
}

static void
widget_rect (GtkWidget       *widget,
             graphene_rect_t *out)
{
  g_assert_true (gtk_widget_compute_bounds (widget, GTK_WIDGET (win), out));
}

static void
test_screenshot (void)
{
  g_autoptr (GdkTexture) tex = NULL;
  g_autofree guint8 *px = NULL;
  g_autofree char *path = NULL;
  graphene_rect_t tree, canvas, status;
  int w, h;
  gsize stride;
  const char *dir = g_getenv ("LB_BUILD_ROOT");

  /* a readable state: the original CT with a brain window, the pixel probe in the middle */
  gtk_widget_activate_action (GTK_WIDGET (win), "win.revert", NULL);
  g_assert_true (lb_history_get_current (win_history ())
                 == lb_history_get_original (win_history ()));
  gtk_widget_activate_action (GTK_WIDGET (win), "win.wl-preset", "s", "brain");
  lb_canvas_probe_at (win_canvas (), gtk_widget_get_width (GTK_WIDGET (win_canvas ())) / 2.0,
                      gtk_widget_get_height (GTK_WIDGET (win_canvas ())) / 2.0);
  g_assert_nonnull (strstr (win_label ("probe_label"), " HU)"));
  redraw ();
  tex = render_window ();
  path = g_build_filename (dir, "ui-window-screenshot.png", NULL);
  g_assert_true (gdk_texture_save_to_png (tex, path));
  g_test_message ("screenshot: %s", path);
  w = gdk_texture_get_width (tex);
  h = gdk_texture_get_height (tex);
  stride = (gsize) w * 4;
  px = g_malloc (stride * h);
  gdk_texture_download (tex, px, stride);
  g_assert_cmpuint (count_colours (px, stride, 0, 0, w, h), >, 50);

  /* the tree has text (more than a flat background) */
  widget_rect (GTK_WIDGET (win_browser ()), &tree);
  g_assert_cmpuint (count_colours (px, stride, tree.origin.x, tree.origin.y,
                                   MIN (w, tree.origin.x + tree.size.width),
                                   MIN (h, tree.origin.y + tree.size.height)), >, 8);
  /* the canvas shows the CT: many gray levels */
  widget_rect (GTK_WIDGET (win_canvas ()), &canvas);
  g_assert_cmpuint (count_colours (px, stride, canvas.origin.x, canvas.origin.y,
                                   MIN (w, canvas.origin.x + canvas.size.width),
                                   MIN (h, canvas.origin.y + canvas.size.height)), >, 30);
  /* the status bar: probe/zoom/W-L/size text */
  widget_rect (gtk_widget_get_parent (lb_window_test_get_child (win, "zoom_label")), &status);
  g_assert_cmpuint (count_colours (px, stride, status.origin.x, status.origin.y,
                                   MIN (w, status.origin.x + status.size.width),
                                   MIN (h, status.origin.y + status.size.height)), >, 4);
  g_assert_cmpstr (win_label ("wl_label"), ==, "W 80  L 40 HU");
  g_assert_nonnull (strstr (win_label ("zoom_label"), "%"));
}

static void
test_store_filter_direct (void)
{
  guint n = g_list_model_get_n_items (lb_window_test_get_store_filters (win));
  g_autoptr (LbFilter) f = NULL;
  g_autofree char *target = NULL;
  guint pos = lb_history_get_position (win_history ());

  g_assert_cmpuint (n, >, 0);
  f = g_list_model_get_item (lb_window_test_get_store_filters (win), 0);
  /* a declarative kernel has no parameters: it applies at once, no dialog */
  target = g_strconcat ("store:", lb_filter_get_id (f), NULL);
  gtk_widget_activate_action (GTK_WIDGET (win), "win.apply-filter", "s", target);
  g_assert_null (lb_window_test_get_param_dialog (win));
  g_assert_true (lb_test_wait (lb_test_ui_not_busy, win, 10000));
  g_assert_cmpuint (lb_history_get_position (win_history ()), ==, pos + 1);
  gtk_widget_activate_action (GTK_WIDGET (win), "win.revert", NULL);
  g_assert_true (lb_history_get_current (win_history ())
                 == lb_history_get_original (win_history ()));
}

#define MARK_ID "io.github.lightbox.test.mark"

typedef struct {
  const char *version;
} WantVersion;

static gboolean
dialog_has_version (gpointer data)
{
  GtkWidget *d = lb_window_test_get_param_dialog (win);
  const char *v;

  if (d == NULL)
    return FALSE;
  v = lb_filter_get_version (lb_param_dialog_get_filter (LB_PARAM_DIALOG (d)));
  return v != NULL && g_str_equal (v, ((WantVersion *) data)->version);
}

static gboolean
no_param_dialog (gpointer data)
{
  return lb_window_test_get_param_dialog (LB_WINDOW (data)) == NULL;
}

static gboolean
preview_error_shown (gpointer data)
{
  GtkWidget *d = lb_window_test_get_param_dialog (win);
  const char *text = d ? lb_param_dialog_get_preview_error (LB_PARAM_DIALOG (d)) : NULL;

  return text != NULL && strstr (text, data) != NULL;
}

static gboolean
preview_error_hidden (gpointer data)
{
  GtkWidget *d = lb_window_test_get_param_dialog (win);

  return d != NULL && lb_param_dialog_get_preview_error (LB_PARAM_DIALOG (d)) == NULL
         && canvas_shows_other (win);
}

static LbParamDialog *
open_mark_dialog (void)
{
  gtk_widget_activate_action (GTK_WIDGET (win), "win.apply-filter", "s", MARK_ID);
  g_assert_true (lb_test_wait (has_param_dialog, win, 2000));
  return LB_PARAM_DIALOG (lb_window_test_get_param_dialog (win));
}

/* A plugin replaced while its dialog is open: the dialog rebinds to the new code (keeping
 * the values that fit), Apply runs the new code; a removed plugin closes its dialog with a
 * message. Preview failures (prepare refuses, process fails) show in the dialog. */
static void
test_dialog_follows_plugin (void)
{
  LbFilterRegistry *registry = lb_application_get_registry (app);
  g_autofree char *dir = lb_test_make_tmpdir ("ui-plugins");
  g_autofree char *v1 = lb_test_build_path ("LB_TEST_PLUGIN_DIR", "test-mark-10.so", NULL);
  g_autofree char *v2 = lb_test_build_path ("LB_TEST_PLUGIN_DIR", "test-mark-v2.so", NULL);
  g_autofree char *file = g_build_filename (dir, "mark.so", NULL);
  WantVersion want = { "mark-60" };
  g_autofree char *fail_msg = NULL;
  GdkRectangle visible;
  LbParamDialog *dialog;
  LbImage *out;

  g_assert_nonnull (win_history ());
  lb_test_install_file (v1, dir, "mark.so");
  lb_filter_registry_add_plugin_dir (registry, dir);
  lb_filter_registry_rescan (registry);

  dialog = open_mark_dialog ();
  /* prepare refuses: the message shows in the dialog */
  g_assert_true (lb_param_dialog_set_value (dialog, "fail-row", -2));
  g_assert_true (lb_test_wait (preview_error_shown, (gpointer) "refusing in prepare, as asked", 10000));
  /* process fails on a row of the visible area (the preview's selection) */
  g_assert_true (lb_canvas_get_visible_rect (win_canvas (), &visible));
  fail_msg = g_strdup_printf ("failing at row %d, as asked", visible.y + 1);
  g_assert_true (lb_param_dialog_set_value (dialog, "fail-row", visible.y + 1));
  g_assert_true (lb_test_wait (preview_error_shown, fail_msg, 10000));
  /* a good preview hides it */
  g_assert_true (lb_param_dialog_set_value (dialog, "fail-row", -1));
  g_assert_true (lb_test_wait (preview_error_hidden, NULL, 10000));

  g_assert_true (lb_param_dialog_set_value (dialog, "value", 150));
  g_assert_true (lb_param_dialog_set_value (dialog, "size", 7));
  g_assert_true (lb_param_dialog_set_value (dialog, "gain", 2));
  g_assert_null (lb_param_dialog_get_notice (dialog));

  /* version 2 replaces the file: "value" 150 no longer fits (0..100), "gain" is gone */
  lb_test_install_file (v2, dir, "mark.so");
  lb_filter_registry_rescan (registry);
  g_assert_true (lb_test_wait (dialog_has_version, &want, 5000));
  g_assert_true ((gpointer) dialog == (gpointer) lb_window_test_get_param_dialog (win));
  g_assert_cmpfloat (lb_filter_params_get_number (lb_param_dialog_get_params (dialog), "size"),
                     ==, 7);
  g_assert_cmpfloat (lb_filter_params_get_number (lb_param_dialog_get_params (dialog), "value"),
                     ==, 0);
  g_assert_null (lb_param_dialog_get_widget (dialog, "gain"));
  g_assert_nonnull (lb_param_dialog_get_widget (dialog, "size"));
  g_assert_nonnull (strstr (lb_param_dialog_get_notice (dialog), "mark-60"));
  g_assert_nonnull (strstr (lb_param_dialog_get_notice (dialog), "Value"));

  /* Apply runs version 2 (value 0 = its mark, 60) */
  lb_param_dialog_respond (dialog, TRUE);
  g_assert_true (lb_test_wait (lb_test_ui_not_busy, win, 10000));
  out = lb_history_get_current (win_history ());
  if (lb_sample_format_get_bit_depth (lb_image_get_format (out)) == 16)
    g_assert_cmpuint (raw_at (out, 0, 0), ==, 60);
  else
    g_assert_cmpuint (lb_image_get_row (out, 0)[0], ==, 60);
  g_assert_nonnull (strstr (lb_window_test_get_last_status (win), "Mark"));

  /* removed while its dialog is open: the dialog closes and says why */
  dialog = open_mark_dialog ();
  g_assert_cmpint (g_unlink (file), ==, 0);
  lb_filter_registry_rescan (registry);
  g_assert_true (lb_test_wait (no_param_dialog, win, 5000));
  g_assert_nonnull (strstr (lb_window_test_get_last_status (win), "was removed"));
  gtk_widget_activate_action (GTK_WIDGET (win), "win.undo", NULL);
  lb_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_autofree char *filter_file = NULL;
  int ret;

  if (!lb_test_ui_init (&argc, &argv))
    return 0;
  filter_file = g_build_filename (g_getenv ("LB_SOURCE_ROOT"), "plugins", "filters",
                                  "soft-sharpen.lbfilter", NULL);
  lb_test_server_start_samples (&store, filter_file);
  app = lb_test_ui_app_new ();

  g_test_add_func ("/ui/window/open-store", test_open_store);
  g_test_add_func ("/ui/window/open-image", test_open_image);
  g_test_add_func ("/ui/window/window-level", test_window_level);
  g_test_add_func ("/ui/window/value-model", test_value_model_display);
  g_test_add_func ("/ui/window/filter-undo-redo", test_filter_undo_redo);
  g_test_add_func ("/ui/window/upload", test_upload);
  g_test_add_func ("/ui/window/store-filter", test_store_filter_direct);
  g_test_add_func ("/ui/window/screenshot", test_screenshot);
  g_test_add_func ("/ui/window/dialog-follows-plugin", test_dialog_follows_plugin);
  ret = g_test_run ();

  if (win)
    gtk_window_destroy (GTK_WINDOW (win));
  lb_test_ui_drain (50);
  g_clear_object (&app);
  lb_test_server_stop (&store);
  return ret;
}
