/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reading a stack in the workstation, on the digital phantom (make-phantom.py: a shuffled
 * axial series of 25 slices whose centre holds 2000 + k, and the same as one multi-frame
 * object): the wheel, Up/Down and Page Up/Down (a tenth of the stack) land on the slice whose
 * value says so, Ctrl+wheel zooms instead; the slice slider shows N/M and the manifest's
 * location and moves the stack; W/L typed as numbers applies and stays across slices, and the
 * CT presets are offered for CT only; cine bounces at the ends at the rate set; the vertical
 * flip swaps the orientation letters of the manifest's direction cosines, and a flipped or
 * inverted view says so; F11 hides all but the viewport and Escape brings it back; the scale
 * bar's drawn length is its round number of millimetres at the manifest's pixel spacing and
 * the zoom; the tag browser shows the slice's attributes, searchable, with the multi-frame
 * object's functional group sequences expandable. (That the reading actions' accelerators are
 * in the shortcuts window is tests/ui/test-shortcuts.c's check, for every action.)
 *
 * The wheel and the keys are real X events (xdotool through XTest on the Xvfb display), so
 * they go through GTK's event controllers, bindings and accelerators; without xdotool those
 * checks are skipped and the same steps are taken through the window's actions. */
#include <gtk/gtk.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "lb-canvas.h"
#include "lb-tag-browser.h"
#include "lb-tag-row.h"
#include "lb-test-app.h"
#include "lb-test-dicom.h"
#include "lb-test-files.h"
#include "lb-test-loop.h"
#include "lb-test-process.h"
#include "lb-test-xinput.h"
#include "lb-window-test.h"
#include "lb-window.h"

#define SLICES 25

static LbApplication *app;
static char *phantom;        /* make-phantom.py's output directory, NULL without pydicom */
static JsonNode *manifest;
static gboolean have_xdotool;

static LbWindow *
the_window (void)
{
  return lb_test_app_window (app);
}

static LbCanvas *
the_canvas (void)
{
  return lb_window_test_get_canvas (the_window ());
}

/* A widget of the window by its name (the reading controls are made in code). */
static GtkWidget *
window_named (const char *name)
{
  GtkWidget *w = lb_test_find_widget (GTK_WIDGET (the_window ()), 0, name);

  g_assert_nonnull (w);
  return w;
}

static const char *
frame_label (void)
{
  return gtk_label_get_text (GTK_LABEL (lb_window_test_get_child (the_window (),
                                                                  "frame_label")));
}

static gboolean
label_starts (gpointer data)
{
  return the_window () != NULL && g_str_has_prefix (frame_label (), data);
}

static gboolean
idle_window (gpointer data)
{
  return the_window () != NULL && !lb_window_is_busy (the_window ());
}

/* ---- the phantom --------------------------------------------------------------------------- */

static void
make_phantom (void)
{
  const char *options[] = { "--shuffle", "7", "--slices", G_STRINGIFY (SLICES), "--orientations",
                            "axial", "--multiframe", NULL };

  phantom = lb_test_make_phantom ("dicom-reading-phantom", options, &manifest);
}

static JsonObject *
axial (void)
{
  return lb_test_phantom_series (manifest, "axial");
}

/* The manifest's file of slice @k (its index along the normal). */
static JsonObject *
slice_file (guint k)
{
  return lb_test_phantom_file (axial (), k);
}

/* The canvas shows slice @k: its centre value is 2000 + k, the label names it with the
 * manifest's location. */
static void
check_slice (guint k)
{
  JsonObject *fm = slice_file (k);
  LbImage *shown = lb_canvas_get_image (the_canvas ());
  const LbValueModel *model = lb_image_meta_get_value_model (lb_image_get_meta (shown));
  guint size = lb_image_get_width (shown);
  const guint16 *row = (const guint16 *) lb_image_get_row (shown, size / 2);
  g_autofree char *label = g_strdup_printf ("slice %u/%u · %.1f mm", k + 1, SLICES,
                                            json_object_get_double_member (fm, "location"));

  g_assert_cmpint (lb_value_model_sample_to_stored (model, row[size / 2]), ==, 2000 + (int) k);
  g_assert_cmpstr (frame_label (), ==, label);
}

/* Waits for slice @k (0-based) and checks it. */
static void
wait_slice (guint k)
{
  g_autofree char *prefix = g_strdup_printf ("slice %u/", k + 1);

  g_assert_true (lb_test_wait (label_starts, prefix, 20000));
  g_assert_true (lb_test_wait (idle_window, NULL, 20000));
  /* the label changes with the image: both are set by the same callback */
  check_slice (k);
}

/* Lets the window handle what is queued (X events, notifications). */
static void
drain (void)
{
  g_assert_true (lb_test_wait (idle_window, NULL, 20000));
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static gboolean
file_shown (gpointer data)
{
  LbImage *image = the_window () != NULL ? lb_canvas_get_image (the_canvas ()) : NULL;

  return image != NULL && !lb_window_is_busy (the_window ())
         && g_str_has_suffix (lb_image_meta_get_source_uri (lb_image_get_meta (image)), data);
}

/* Opens the file at @path as `lightbox FILE` does and waits until it is shown. */
static void
open_file (const char *path)
{
  g_autofree char *name = g_path_get_basename (path);

  lb_test_app_open_path (app, path);
  g_assert_true (lb_test_wait (file_shown, name, 20000));
}

static gboolean
new_stack_shown (gpointer data)
{
  LbWindow *w = the_window ();

  return w != NULL && lb_canvas_get_image (the_canvas ()) != NULL
         && lb_canvas_get_image (the_canvas ()) != data
         && g_str_has_prefix (frame_label (), "slice 1/");
}

static void
open_axial (void)
{
  g_autofree char *path = g_build_filename (phantom, "axial", NULL);
  g_autoptr(LbImage) old = NULL;

  if (the_window () != NULL && lb_canvas_get_image (the_canvas ()) != NULL)
    old = g_object_ref (lb_canvas_get_image (the_canvas ()));
  lb_test_app_open_path (app, path);
  g_assert_true (lb_test_wait (new_stack_shown, old, 20000));
  check_slice (0);
}

static gboolean
skip_without_phantom (void)
{
  if (phantom == NULL)
    g_test_skip ("make-phantom.py needs pydicom and numpy");
  return phantom == NULL;
}

/* ---- real input through XTest ----------------------------------------------------------- */

static void
xdotool (const char *args)
{
  lb_test_xdotool (args);
}

/* Puts the pointer over the middle of the canvas and the keyboard focus on it. */
static void
point_at_canvas (void)
{
  GtkWidget *canvas = GTK_WIDGET (the_canvas ());

  lb_test_point_at (canvas);
  gtk_widget_grab_focus (canvas);
  g_assert_true (gtk_widget_has_focus (canvas));
}

/* Presses @keys (xdotool's words) on the canvas, or without xdotool activates win.@action,
 * which they are bound to. */
static void
press (const char *keys, const char *action)
{
  g_autofree char *words = g_strconcat ("key ", keys, NULL);

  if (have_xdotool)
    {
      point_at_canvas ();
      lb_test_xdotool (words);
    }
  else
    g_action_group_activate_action (G_ACTION_GROUP (the_window ()), action, NULL);
}

/* ---- 1. paging ----------------------------------------------------------------------------- */

static guint
page_size (void)
{
  /* a tenth of the stack, to the nearest slice */
  return MAX (1, (guint) floor (SLICES * 0.1 + 0.5));
}

static void
test_paging (void)
{
  GtkWidget *scale, *scale_label;
  g_autofree char *want = NULL;
  double zoom;

  if (skip_without_phantom ())
    return;
  open_axial ();
  scale = window_named ("slice_scale");
  scale_label = window_named ("slice_scale_label");
  g_assert_true (gtk_widget_get_visible (window_named ("nav_bar")));
  g_assert_cmpfloat (gtk_range_get_value (GTK_RANGE (scale)), ==, 1);
  g_assert_cmpfloat (gtk_adjustment_get_upper (gtk_range_get_adjustment (GTK_RANGE (scale))), ==,
                     SLICES);
  want = g_strdup_printf ("1/%u · %.1f mm", SLICES,
                          json_object_get_double_member (slice_file (0), "location"));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (scale_label)), ==, want);

  if (have_xdotool)
    {
      point_at_canvas ();
      zoom = lb_canvas_get_zoom (the_canvas ());
      /* the plain wheel pages (button 5: down, towards the next slice) */
      lb_test_xdotool ("click 5");
      wait_slice (1);
      lb_test_xdotool ("click 5");
      wait_slice (2);
      lb_test_xdotool ("click 4");
      wait_slice (1);
      g_assert_cmpfloat (lb_canvas_get_zoom (the_canvas ()), ==, zoom);
      /* Ctrl+wheel zooms and stays on the slice */
      lb_test_xdotool ("keydown ctrl click 4 keyup ctrl");
      drain ();
      g_assert_cmpfloat (lb_canvas_get_zoom (the_canvas ()), >, zoom * 1.05);
      check_slice (1);
      /* Up and Down step one slice */
      lb_test_xdotool ("key Down");
      wait_slice (2);
      lb_test_xdotool ("key Up");
      wait_slice (1);
      /* Page Down/Up move by a tenth of the stack, and stop at the ends */
      lb_test_xdotool ("key Next");
      wait_slice (1 + page_size ());
      lb_test_xdotool ("key Prior");
      wait_slice (1);
      lb_test_xdotool ("key Prior");
      wait_slice (0);
      lb_test_xdotool ("key End");
      wait_slice (SLICES - 1);
      lb_test_xdotool ("key Prior");
      wait_slice (SLICES - 1 - page_size ());
    }
  else
    {
      g_test_message ("no xdotool: the paging actions without real input");
      g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "next-page", NULL);
      wait_slice (page_size ());
      g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "previous-page", NULL);
      wait_slice (0);
    }

  /* the slider follows the slice, and moving it shows another */
  g_assert_cmpfloat (gtk_range_get_value (GTK_RANGE (scale)), ==,
                     g_ascii_strtod (frame_label () + strlen ("slice "), NULL));
  gtk_range_set_value (GTK_RANGE (scale), 10);
  wait_slice (9);
  g_clear_pointer (&want, g_free);
  want = g_strdup_printf ("10/%u · %.1f mm", SLICES,
                          json_object_get_double_member (slice_file (9), "location"));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (scale_label)), ==, want);
}

/* A single image: no slider, and the wheel zooms (no stack to page). */
static void
test_single_image_no_slider (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("LB_TEST_DATA"), "dicom", "CT_small.dcm",
                                            NULL);

  open_file (path);
  g_assert_false (gtk_widget_get_visible (window_named ("nav_bar")));
  if (have_xdotool)
    {
      double zoom = lb_canvas_get_zoom (the_canvas ());

      point_at_canvas ();
      lb_test_xdotool ("click 4");
      drain ();
      g_assert_cmpfloat (lb_canvas_get_zoom (the_canvas ()), >, zoom * 1.05);
    }
}

/* ---- 2. window and level ------------------------------------------------------------------ */

static gboolean
menu_has_action (GMenuModel *menu, const char *action)
{
  for (int i = 0; i < g_menu_model_get_n_items (menu); i++)
    {
      g_autofree char *a = NULL;
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (menu, i, G_MENU_LINK_SECTION);

      if (section != NULL && menu_has_action (section, action))
        return TRUE;
      if (g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_ACTION, "s", &a))
        {
          g_autoptr(GVariant) target = g_menu_model_get_item_attribute_value (
            menu, i, G_MENU_ATTRIBUTE_TARGET, NULL);
          g_autofree char *full = target != NULL
            ? g_strdup_printf ("%s::%s", a, g_variant_get_string (target, NULL))
            : g_strdup (a);

          if (g_str_equal (full, action))
            return TRUE;
        }
    }
  return FALSE;
}

static gboolean
popover_shown (gpointer data)
{
  GtkPopover *popover = gtk_menu_button_get_popover (GTK_MENU_BUTTON (data));

  return gtk_widget_get_visible (GTK_WIDGET (popover));
}

static void
type_number (const char *name, const char *text)
{
  GtkWidget *spin = window_named ("wl_edit_button");

  spin = lb_test_find_widget (GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (spin))),
                              0, name);
  g_assert_nonnull (spin);
  gtk_editable_set_text (GTK_EDITABLE (spin), text);
  if (g_str_equal (name, "wl_width"))
    g_signal_emit_by_name (gtk_editable_get_delegate (GTK_EDITABLE (spin)), "activate");
}

static void
test_window_level (void)
{
  GtkWidget *button;
  GMenuModel *menu;
  double c, w;

  if (skip_without_phantom ())
    return;
  open_axial ();
  /* the CT presets and the file's window (40/400) are offered for the CT phantom */
  menu = gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (lb_window_test_get_child (
                                                             the_window (), "window_button")));
  g_assert_true (menu_has_action (menu, "win.wl-preset::brain"));
  g_assert_true (menu_has_action (menu, "win.wl-preset::file-0"));
  g_assert_true (menu_has_action (menu, "win.wl-edit"));

  /* typed: Ctrl+Shift+W, or the action, opens the popover with the window in force */
  button = window_named ("wl_edit_button");
  press ("ctrl+shift+w", "wl-edit");
  g_assert_true (lb_test_wait (popover_shown, button, 20000));
  type_number ("wl_center", "-55");
  type_number ("wl_width", "321");
  lb_canvas_get_window (the_canvas (), &c, &w);
  g_assert_cmpfloat (c, ==, -55);
  g_assert_cmpfloat (w, ==, 321);
  g_assert_false (popover_shown (button));
  /* and it stays on the next slice */
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "next-frame", NULL);
  wait_slice (1);
  lb_canvas_get_window (the_canvas (), &c, &w);
  g_assert_cmpfloat (c, ==, -55);
  g_assert_cmpfloat (w, ==, 321);

  /* an MR image gets no CT presets */
  {
    g_autofree char *path = g_build_filename (g_getenv ("LB_TEST_DATA"), "dicom",
                                              "MR_small.dcm", NULL);

    open_file (path);
    g_assert_false (menu_has_action (menu, "win.wl-preset::brain"));
    g_assert_true (menu_has_action (menu, "win.wl-edit"));
  }
}

/* ---- 3. cine ---------------------------------------------------------------------------- */

static GPtrArray *seen;  /* the frame label's texts while cine plays */

static void
on_label (GObject *label, GParamSpec *pspec, gpointer data)
{
  const char *text = gtk_label_get_text (GTK_LABEL (label));

  if (seen->len == 0 || !g_str_equal (g_ptr_array_index (seen, seen->len - 1), text))
    g_ptr_array_add (seen, g_strdup (text));
}

/* The label after the first "slice @from/…" seen, NULL if none yet. */
static const char *
seen_after (const char *from)
{
  for (guint i = 0; i + 1 < seen->len; i++)
    if (g_str_has_prefix (g_ptr_array_index (seen, i), from))
      return g_ptr_array_index (seen, i + 1);
  return NULL;
}

static gboolean
seen_after_set (gpointer data)
{
  return seen_after (data) != NULL;
}

static void
set_cine (gboolean play)
{
  g_action_group_change_action_state (G_ACTION_GROUP (the_window ()), "cine",
                                      g_variant_new_boolean (play));
}

static void
test_cine (void)
{
  GtkWidget *fps;
  GtkWidget *label;
  g_autofree char *last = g_strdup_printf ("slice %u/", SLICES);
  g_autofree char *before_last = g_strdup_printf ("slice %u/", SLICES - 1);
  gulong id;

  if (skip_without_phantom ())
    return;
  open_axial ();
  fps = window_named ("cine_fps");
  /* the phantom gives no rate: the default */
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (fps)), ==, 10);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (fps), 30);
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "cine-faster", NULL);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (fps)), ==, 31);
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "cine-slower", NULL);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (fps)), ==, 30);

  label = lb_window_test_get_child (the_window (), "frame_label");
  seen = g_ptr_array_new_with_free_func (g_free);
  id = g_signal_connect (label, "notify::label", G_CALLBACK (on_label), NULL);

  /* loop: after the last slice comes the first */
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "go-to-frame",
                                  g_variant_new_uint32 (SLICES - 2));
  wait_slice (SLICES - 3);
  set_cine (TRUE);
  g_assert_true (lb_test_wait (seen_after_set, last, 30000));
  g_assert_true (g_str_has_prefix (seen_after (last), "slice 1/"));
  set_cine (FALSE);
  g_assert_true (lb_test_wait (idle_window, NULL, 20000));

  /* bounce: after the last comes the one before it, and after the first the second */
  g_ptr_array_set_size (seen, 0);
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "cine-bounce", NULL);
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "go-to-frame",
                                  g_variant_new_uint32 (SLICES - 2));
  wait_slice (SLICES - 3);
  set_cine (TRUE);
  g_assert_true (lb_test_wait (seen_after_set, last, 30000));
  g_assert_true (g_str_has_prefix (seen_after (last), before_last));
  g_assert_true (lb_test_wait (seen_after_set, (gpointer) "slice 1/", 60000));
  g_assert_true (g_str_has_prefix (seen_after ("slice 1/"), "slice 2/"));
  set_cine (FALSE);
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "cine-bounce", NULL);
  g_signal_handler_disconnect (label, id);
  g_clear_pointer (&seen, g_ptr_array_unref);
  g_assert_true (lb_test_wait (idle_window, NULL, 20000));
}

/* ---- 4. flips and the marks ------------------------------------------------------------ */

static const char *
corner (const char *id)
{
  return gtk_label_get_text (GTK_LABEL (lb_window_test_get_child (the_window (), id)));
}

/* The markers at the top, right, bottom and left: the manifest's row direction points right,
 * its column direction down; @flip_v: seen flipped top to bottom. */
static void
check_markers (gboolean flip_v)
{
  static const char *const ids[] = { "marker_top", "marker_right", "marker_bottom",
                                     "marker_left" };
  JsonArray *o = json_object_get_array_member (axial (), "orientation");
  double v[6];
  char want[4];

  for (guint i = 0; i < 6; i++)
    v[i] = json_array_get_double_element (o, i);
  want[1] = lb_test_axis_letter (v[0], v[1], v[2]);
  want[3] = lb_test_axis_letter (-v[0], -v[1], -v[2]);
  want[flip_v ? 0 : 2] = lb_test_axis_letter (v[3], v[4], v[5]);
  want[flip_v ? 2 : 0] = lb_test_axis_letter (-v[3], -v[4], -v[5]);
  for (guint e = 0; e < 4; e++)
    {
      char s[2] = { want[e], 0 };

      g_assert_cmpstr (corner (ids[e]), ==, s);
    }
}

static void
test_flip_marks (void)
{
  if (skip_without_phantom ())
    return;
  open_axial ();
  check_markers (FALSE);
  g_assert_null (strstr (corner ("overlay_bottom_right"), "Flipped"));
  press ("v", "flip-vertical");
  drain ();
  check_markers (TRUE);
  g_assert_true (g_str_has_prefix (corner ("overlay_bottom_right"), "Flipped vertically\n"));
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "invert", NULL);
  g_assert_true (g_str_has_prefix (corner ("overlay_bottom_right"),
                                   "Flipped vertically, inverted\n"));
  /* flipped back: only the inversion is marked */
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "flip-vertical", NULL);
  check_markers (FALSE);
  g_assert_true (g_str_has_prefix (corner ("overlay_bottom_right"), "Inverted\n"));
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "invert", NULL);
  g_assert_null (strstr (corner ("overlay_bottom_right"), "Inverted"));
}

/* ---- 5. full screen ------------------------------------------------------------------- */

static gboolean
action_state (const char *name)
{
  g_autoptr(GVariant) state = g_action_group_get_action_state (G_ACTION_GROUP (the_window ()),
                                                               name);

  return g_variant_get_boolean (state);
}

static gboolean
fullscreen_is (gpointer data)
{
  return action_state ("fullscreen") == GPOINTER_TO_INT (data);
}

static void
check_chrome (gboolean visible)
{
  LbWindow *w = the_window ();
  GtkWidget *paned = lb_window_test_get_child (w, "paned");

  g_assert_cmpint (gtk_widget_get_visible (lb_window_test_get_child (w, "header_bar")), ==,
                   visible);
  g_assert_cmpint (gtk_widget_get_visible (gtk_paned_get_start_child (GTK_PANED (paned))), ==,
                   visible);
  g_assert_cmpint (gtk_widget_get_visible (gtk_widget_get_parent (
                     lb_window_test_get_child (w, "frame_label"))), ==, visible);
  g_assert_cmpint (gtk_widget_get_visible (window_named ("nav_bar")), ==, visible);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (the_canvas ())));
}

/* GTK 4.18 (not 4.8) warns "Trying to measure GtkBox … for width of 0" once while the
 * window enters full screen and its chrome is hidden under Xvfb; the layout that follows is
 * right (check_chrome). Warnings are not fatal in this test only; criticals stay fatal. */
static void
test_fullscreen (void)
{
  GLogLevelFlags fatal;

  if (skip_without_phantom ())
    return;
  fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  open_axial ();
  check_chrome (TRUE);
  press ("F11", "fullscreen");
  g_assert_true (lb_test_wait (fullscreen_is, GINT_TO_POINTER (TRUE), 20000));
  check_chrome (FALSE);
  /* the stack still pages */
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "next-frame", NULL);
  wait_slice (1);
  press ("Escape", "leave-fullscreen");
  g_assert_true (lb_test_wait (fullscreen_is, GINT_TO_POINTER (FALSE), 20000));
  check_chrome (TRUE);
  /* F11 again leaves it too */
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "fullscreen", NULL);
  g_assert_true (fullscreen_is (GINT_TO_POINTER (TRUE)));
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "fullscreen", NULL);
  g_assert_true (fullscreen_is (GINT_TO_POINTER (FALSE)));
  check_chrome (TRUE);
  g_log_set_always_fatal (fatal);
}

/* ---- 6. the scale bar --------------------------------------------------------------------- */

/* The bar's drawing covers the viewport. */
static gboolean
bar_laid_out (gpointer data)
{
  GtkWidget *bar = data;

  return gtk_widget_get_mapped (bar)
         && gtk_widget_get_width (bar) == gtk_widget_get_width (GTK_WIDGET (the_canvas ()));
}

static void
set_flag (gboolean *flag)
{
  *flag = TRUE;
}

/* The longest run of white pixels in any row of the bar's drawing as drawn (logical pixels:
 * the test display has a scale of 1). */
static guint
drawn_bar_length (GtkWidget *bar)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (bar);
  g_autoptr(GdkPaintable) paintable = NULL;
  GtkSnapshot *snapshot = NULL;
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree guint8 *px = NULL;
  gboolean painted = FALSE;
  guint best = 0;
  gulong id;
  int w, h;

  g_assert_true (lb_test_wait (bar_laid_out, bar, 20000));
  /* the paintable shows what the widget last drew: let it draw in a frame first */
  id = g_signal_connect_swapped (clock, "after-paint", G_CALLBACK (set_flag), &painted);
  gtk_widget_queue_draw (bar);
  lb_test_wait_flag (&painted);
  g_signal_handler_disconnect (clock, id);
  w = gtk_widget_get_width (bar);
  h = gtk_widget_get_height (bar);
  px = g_malloc ((gsize) w * h * 4);
  /* made now, it holds what the widget drew in that frame */
  paintable = gtk_widget_paintable_new (bar);
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, w, h);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node == NULL)
    return 0;  /* nothing drawn */
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (bar)),
                                         node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  gdk_texture_download (texture, px, (gsize) w * 4);
  for (int y = 0; y < h; y++)
    {
      guint run = 0;

      for (int x = 0; x < w; x++)
        {
          const guint8 *p = px + ((gsize) y * w + x) * 4;

          run = p[0] >= 250 && p[1] >= 250 && p[2] >= 250 && p[3] >= 250 ? run + 1 : 0;
          best = MAX (best, run);
        }
    }
  return best;
}

static gboolean
is_round (double mm)
{
  double e = floor (log10 (mm) + 1e-9);
  double m = mm / pow (10, e);

  return fabs (m - 1) < 1e-9 || fabs (m - 2) < 1e-9 || fabs (m - 5) < 1e-9;
}

/* The bar is a round length, drawn over its length at @spacing mm per image pixel. */
static void
check_bar (double spacing)
{
  double mm, want;
  GtkWidget *bar;
  guint drawn;

  drain ();
  bar = lb_window_test_get_scale_bar (the_window (), &mm);
  drawn = drawn_bar_length (bar);
  /* read after the drawing, which follows the last layout */
  lb_window_test_get_scale_bar (the_window (), &mm);
  g_assert_cmpfloat (mm, >, 0);
  g_assert_true (is_round (mm));
  want = mm / spacing * lb_canvas_get_zoom (the_canvas ());
  g_test_message ("%g mm at %g mm/px, zoom %g: %u px drawn, %g expected", mm, spacing,
                  lb_canvas_get_zoom (the_canvas ()), drawn, want);
  g_assert_cmpfloat (fabs (drawn - want), <=, 1.0);
  /* the longest that fits: twice the next round length would not be shorter than the room */
  g_assert_cmpfloat (want, <=, gtk_widget_get_width (GTK_WIDGET (the_canvas ())) / 4.0);
}

static void
test_scale_bar (void)
{
  JsonArray *ps;
  double row_spacing, column_spacing, mm;

  if (skip_without_phantom ())
    return;
  ps = json_object_get_array_member (json_node_get_object (manifest), "pixel_spacing");
  row_spacing = json_array_get_double_element (ps, 0);
  column_spacing = json_array_get_double_element (ps, 1);
  open_axial ();
  lb_canvas_set_zoom (the_canvas (), 2.0);
  check_bar (column_spacing);
  lb_canvas_set_zoom (the_canvas (), 7.3);
  check_bar (column_spacing);
  /* a quarter turn puts the rows across: the row spacing */
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "rotate-cw", NULL);
  check_bar (row_spacing);
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "rotate-ccw", NULL);
  /* it goes with the overlay */
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "overlay", NULL);
  g_assert_cmpuint (drawn_bar_length (lb_window_test_get_scale_bar (the_window (), &mm)), ==, 0);
  g_assert_cmpfloat (mm, ==, 0);
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "overlay", NULL);
  check_bar (column_spacing);
}

/* ---- 7. the tag browser -------------------------------------------------------------------- */

static LbTagBrowser *
tag_browser (void)
{
  GtkWidget *b = lb_window_test_get_tag_browser (the_window ());

  g_assert_nonnull (b);
  return LB_TAG_BROWSER (b);
}

/* Row @i of the browser's tree (a GtkTreeListRow's LbTagRow). */
static LbTagRow *
row_at (guint i)
{
  g_autoptr(GtkTreeListRow) row = g_list_model_get_item (lb_tag_browser_get_model (
                                                           tag_browser ()), i);
  LbTagRow *item = LB_TAG_ROW (gtk_tree_list_row_get_item (row));

  g_object_unref (item);  /* the model keeps it */
  return item;
}

static gboolean
browser_open (gpointer data)
{
  GtkWidget *b = lb_window_test_get_tag_browser (the_window ());

  return b != NULL && gtk_widget_get_visible (b);
}

static guint
n_rows (void)
{
  return g_list_model_get_n_items (lb_tag_browser_get_model (tag_browser ()));
}

/* The index of the first row with @keyword, or G_MAXUINT. */
static guint
find_keyword (const char *keyword)
{
  for (guint i = 0; i < n_rows (); i++)
    if (g_str_equal (lb_tag_row_get_keyword (row_at (i)), keyword))
      return i;
  return G_MAXUINT;
}

/* ImagePositionPatient's text is the manifest's position of slice @k. */
static void
check_position (const char *text, guint k)
{
  g_auto(GStrv) parts = g_strsplit (text, "\\", -1);
  JsonArray *ipp = json_object_get_array_member (slice_file (k), "position");

  g_assert_cmpuint (g_strv_length (parts), ==, 3);
  for (guint i = 0; i < 3; i++)
    g_assert_cmpfloat_with_epsilon (g_ascii_strtod (parts[i], NULL),
                                    json_array_get_double_element (ipp, i), 1e-6);
}

static void
test_tags (void)
{
  guint i, n_ipp;
  g_autofree char *path = NULL;

  if (skip_without_phantom ())
    return;
  open_axial ();
  press ("ctrl+shift+t", "tag-browser");
  g_assert_true (lb_test_wait (browser_open, NULL, 20000));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (tag_browser ())));
  i = find_keyword ("PatientID");
  g_assert_cmpuint (i, !=, G_MAXUINT);
  g_assert_cmpstr (lb_tag_row_get_value (row_at (i)), ==, "PH-26");
  g_assert_cmpstr (lb_tag_row_get_tag_text (row_at (i)), ==, "(0010,0020)");
  g_assert_cmpstr (lb_tag_row_get_vr (row_at (i)), ==, "LO");

  /* by keyword, and by tag, one row: the slice's own position */
  lb_tag_browser_set_search (tag_browser (), "imagepositionpatient");
  g_assert_cmpuint (n_rows (), ==, 1);
  check_position (lb_tag_row_get_value (row_at (0)), 0);
  lb_tag_browser_set_search (tag_browser (), "0020,0032");
  g_assert_cmpuint (n_rows (), ==, 1);
  g_assert_cmpstr (lb_tag_row_get_keyword (row_at (0)), ==, "ImagePositionPatient");
  /* it follows the slice */
  g_action_group_activate_action (G_ACTION_GROUP (the_window ()), "next-frame", NULL);
  wait_slice (1);
  g_assert_cmpuint (n_rows (), ==, 1);
  check_position (lb_tag_row_get_value (row_at (0)), 1);
  /* by value */
  lb_tag_browser_set_search (tag_browser (), "Phantom abdomen");
  g_assert_cmpuint (n_rows (), ==, 1);
  g_assert_cmpstr (lb_tag_row_get_keyword (row_at (0)), ==, "StudyDescription");
  lb_tag_browser_set_search (tag_browser (), "no such thing anywhere");
  g_assert_cmpuint (n_rows (), ==, 0);

  /* the multi-frame object: its functional groups are sequences that expand */
  path = g_build_filename (phantom, "multiframe.dcm", NULL);
  open_file (path);
  g_assert_true (g_str_has_prefix (frame_label (), "frame 1/"));
  lb_tag_browser_set_search (tag_browser (), "");
  i = find_keyword ("PerFrameFunctionalGroupsSequence");
  g_assert_cmpuint (i, !=, G_MAXUINT);
  g_assert_cmpstr (lb_tag_row_get_value (row_at (i)), ==, G_STRINGIFY (SLICES) " items");
  {
    g_autoptr(GtkTreeListRow) row = g_list_model_get_item (lb_tag_browser_get_model (
                                                             tag_browser ()), i);
    guint before = n_rows ();

    gtk_tree_list_row_set_expanded (row, TRUE);
    g_assert_cmpuint (n_rows (), ==, before + SLICES);
    g_assert_cmpstr (lb_tag_row_get_keyword (row_at (i + 1)), ==, "Item 1");
  }
  /* a search opens every branch that leads to a match: each frame's position */
  lb_tag_browser_set_search (tag_browser (), "ImagePositionPatient");
  n_ipp = 0;
  for (i = 0; i < n_rows (); i++)
    if (g_str_equal (lb_tag_row_get_keyword (row_at (i)), "ImagePositionPatient"))
      n_ipp++;
  g_assert_cmpuint (n_ipp, ==, SLICES);
  /* the sequence, then per frame: its item, PlanePositionSequence, its item, the position */
  g_assert_cmpuint (n_rows (), ==, 1 + 4 * SLICES);
  g_assert_cmpstr (lb_tag_row_get_keyword (row_at (0)), ==, "PerFrameFunctionalGroupsSequence");
  /* Escape in the search closes it */
  g_signal_emit_by_name (lb_test_find_widget (GTK_WIDGET (tag_browser ()), GTK_TYPE_SEARCH_ENTRY,
                                              NULL), "stop-search");
  g_assert_false (browser_open (NULL));
}

int
main (int argc, char **argv)
{
  int ret;

  gtk_test_init (&argc, &argv, NULL);
  app = lb_test_app_new ();
  if (app == NULL)
    return 0;
  /* real input needs X11 and xdotool */
  have_xdotool = lb_test_have_xdotool ();
  make_phantom ();

  g_test_add_func ("/dicom/reading/paging", test_paging);
  g_test_add_func ("/dicom/reading/single-image", test_single_image_no_slider);
  g_test_add_func ("/dicom/reading/window-level", test_window_level);
  g_test_add_func ("/dicom/reading/cine", test_cine);
  g_test_add_func ("/dicom/reading/flip-marks", test_flip_marks);
  g_test_add_func ("/dicom/reading/fullscreen", test_fullscreen);
  g_test_add_func ("/dicom/reading/scale-bar", test_scale_bar);
  g_test_add_func ("/dicom/reading/tags", test_tags);
  ret = g_test_run ();
  if (phantom != NULL)
    lb_test_remove_tree (phantom);
  g_free (phantom);
  g_clear_pointer (&manifest, json_node_unref);
  lb_test_app_free (app);
  return ret;
}
