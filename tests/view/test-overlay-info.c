/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The overlay (lb-overlay-info): orientation letters of the four edges for axial, sagittal,
 * coronal and oblique phantoms under every rotation and flip, and the corner texts, against
 * overlay-reference.py (pydicom reads the files; numpy turns and flips an array of patient
 * coordinates like the screen does). Skips without pydicom/numpy. */
#include <string.h>
#include <sys/wait.h>

#include <json-glib/json-glib.h>

#include "lb-dicom-file.h"
#include "lb-overlay-info.h"
#include "lb-test-files.h"
#include "lb-test-process.h"

static void
check_series (JsonObject *c)
{
  const char *series = json_object_get_string_member (c, "series");
  JsonArray *markers = json_object_get_array_member (c, "markers");
  JsonObject *corners = json_object_get_object_member (c, "corners");
  g_autoptr(GError) error = NULL;
  g_autoptr(LbDicomFile) file = lb_dicom_file_new_for_path (
    json_object_get_string_member (c, "file"), 0, NULL, &error);
  LbDicomDataset *ds;
  g_autoptr(LbImage) image = NULL;
  LbOverlayView view = { 0 };
  static const struct { const char *key; LbOverlayCorner corner; } corner_keys[] = {
    { "top_left", LB_OVERLAY_TOP_LEFT },
    { "top_right", LB_OVERLAY_TOP_RIGHT },
    { "bottom_left", LB_OVERLAY_BOTTOM_LEFT },
    { "bottom_right", LB_OVERLAY_BOTTOM_RIGHT },
  };

  g_assert_no_error (error);
  ds = lb_dicom_file_get_dataset (file);
  g_assert_cmpuint (json_array_get_length (markers), ==, 16);
  for (guint i = 0; i < json_array_get_length (markers); i++)
    {
      JsonObject *m = json_array_get_object_element (markers, i);
      JsonArray *edges = json_object_get_array_member (m, "edges");
      char got[4][3];

      view.rotation = json_object_get_int_member (m, "rotation");
      view.flip_h = json_object_get_boolean_member (m, "flip_h");
      view.flip_v = json_object_get_boolean_member (m, "flip_v");
      g_assert_true (lb_overlay_dataset_markers (ds, &view, got));
      for (guint e = 0; e < 4; e++)
        {
          if (strcmp (got[e], json_array_get_string_element (edges, e)) != 0)
            g_error ("%s rotation %u flip h %d v %d edge %u: %s, expected %s", series,
                     view.rotation, view.flip_h, view.flip_v, e, got[e],
                     json_array_get_string_element (edges, e));
        }
      g_assert_cmpint (lb_overlay_view_is_transformed (&view), ==,
                       !((view.rotation == 0 && !view.flip_h && !view.flip_v)
                         || (view.rotation == 2 && view.flip_h && view.flip_v)));
    }

  /* the window's unit is the one the file's value model gives its values */
  image = lb_dicom_file_decode_frame (file, 0, NULL, &error);
  g_assert_no_error (error);
  view = (LbOverlayView) { .zoom = 1.5, .has_window = TRUE, .window_center = 40,
                           .window_width = 400, .slice_index = 2, .n_slices = 5,
                           .window_units = lb_value_model_get_units (
                             lb_image_meta_get_value_model (lb_image_get_meta (image))) };
  for (guint i = 0; i < G_N_ELEMENTS (corner_keys); i++)
    {
      g_autofree char *text = lb_overlay_corner_text (ds, &view, corner_keys[i].corner);

      g_assert_cmpstr (text, ==, json_object_get_string_member (corners, corner_keys[i].key));
    }
}

static void
test_phantom (void)
{
  g_autofree char *dir = lb_test_make_tmpdir ("overlay");
  g_autofree char *out = lb_test_run_reference ("view", "overlay-reference.py", dir);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonArray *cases;

  if (out == NULL)
    {
      lb_test_remove_tree (dir);
      g_test_skip ("pydicom and numpy are needed for the reference");
      return;
    }
  root = json_from_string (out, &error);
  g_assert_no_error (error);
  cases = json_node_get_array (root);
  g_assert_cmpuint (json_array_get_length (cases), ==, 4);
  for (guint i = 0; i < json_array_get_length (cases); i++)
    check_series (json_array_get_object_element (cases, i));
  lb_test_remove_tree (dir);
}

/* What radiologists expect on the unturned axial, sagittal and coronal views (patient's right
 * on the screen's left), written out by hand as a second, human reference. */
static void
test_conventional_views (void)
{
  static const struct { double iop[6]; const char *edges[4]; } views[] = {
    { { 1, 0, 0, 0, 1, 0 }, { "A", "L", "P", "R" } },    /* axial */
    { { 0, 1, 0, 0, 0, -1 }, { "H", "P", "F", "A" } },   /* sagittal */
    { { 1, 0, 0, 0, 0, -1 }, { "H", "L", "F", "R" } },   /* coronal */
  };
  LbOverlayView view = { 0 };

  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    {
      char got[4][3];

      g_assert_true (lb_overlay_edge_markers (views[i].iop, &view, got));
      for (guint e = 0; e < 4; e++)
        g_assert_cmpstr (got[e], ==, views[i].edges[e]);
    }
  {
    const double degenerate[6] = { 1, 0, 0, 1, 0, 0 };
    char got[4][3];

    g_assert_false (lb_overlay_edge_markers (degenerate, &view, got));
    g_assert_cmpstr (got[0], ==, "");
  }
}

/* The W/L line with and without a unit, written out by hand. */
static void
test_window_units (void)
{
  LbOverlayView view = { .has_window = TRUE, .window_center = 40, .window_width = 400 };
  g_autofree char *plain = lb_overlay_corner_text (NULL, &view, LB_OVERLAY_BOTTOM_RIGHT);
  g_autofree char *hu = NULL;

  g_assert_cmpstr (plain, ==, "W 400 L 40");
  view.window_units = "HU";
  hu = lb_overlay_corner_text (NULL, &view, LB_OVERLAY_BOTTOM_RIGHT);
  g_assert_cmpstr (hu, ==, "W 400 L 40 HU");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/view/overlay/phantom", test_phantom);
  g_test_add_func ("/view/overlay/conventional-views", test_conventional_views);
  g_test_add_func ("/view/overlay/window-units", test_window_units);
  return g_test_run ();
}
