/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Multi-level undo/redo and revert, with the filter chain used for provenance. */
#include "config.h"

#include <string.h>

#include "lb-history.h"
#include "lb-measurement-list.h"

static LbImage *
image_of (guint8 v)
{
  gsize stride;
  guint8 *px = lb_image_alloc_pixels (2, 2, LB_FORMAT_GRAY8, NULL, &stride, NULL);

  memset (px, v, stride * 2);
  return lb_image_new_take (2, 2, LB_FORMAT_GRAY8, stride, px, NULL);
}

static void
test_undo_redo (void)
{
  g_autoptr (LbImage) a = image_of (1), b = image_of (2), c = image_of (3), d = image_of (4);
  g_autoptr (LbHistory) h = lb_history_new (a);
  g_autofree char *chain = NULL;

  g_assert_false (lb_history_can_undo (h));
  g_assert_null (lb_history_dup_chain (h));
  lb_history_push (h, b, "Blur", "blur:size=3 (xv 1.0)");
  lb_history_set_file_label (h, "blur");
  lb_history_push (h, c, "Sharpen", "sharpen:amount=50 (xv 1.0)");
  lb_history_set_file_label (h, "sharpen");
  g_assert_true (lb_history_get_current (h) == c);
  chain = lb_history_dup_chain (h);
  g_assert_cmpstr (chain, ==, "blur:size=3 (xv 1.0)\nsharpen:amount=50 (xv 1.0)");
  g_assert_cmpstr (lb_history_get_file_label (h), ==, "sharpen");

  g_assert_true (lb_history_undo (h));
  g_assert_true (lb_history_undo (h));
  g_assert_false (lb_history_undo (h));
  g_assert_true (lb_history_get_current (h) == a);
  g_assert_true (lb_history_redo (h));
  g_assert_true (lb_history_get_current (h) == b);
  g_assert_cmpstr (lb_history_get_file_label (h), ==, "blur");

  /* a new step drops the redo tail */
  lb_history_push (h, d, "Emboss", "emboss (xv 1.0)");
  g_assert_false (lb_history_can_redo (h));
  g_assert_cmpuint (lb_history_get_length (h), ==, 3);

  /* revert is itself undoable and restarts the chain */
  g_assert_true (lb_history_revert (h));
  g_assert_true (lb_history_get_current (h) == a);
  g_assert_null (lb_history_dup_chain (h));
  g_assert_null (lb_history_get_file_label (h));
  g_assert_false (lb_history_revert (h));
  g_assert_true (lb_history_undo (h));
  g_assert_true (lb_history_get_current (h) == d);
}

static LbMeasurement *
line (double x0, double y0, double x1, double y1)
{
  LbMeasurementPoint p[2] = { { x0, y0 }, { x1, y1 } };

  return lb_measurement_new_with_points (LB_MEASUREMENT_LENGTH, p, 2, NULL);
}

/* Measurements share the history with filters: adding, editing and deleting undo and redo in
 * the order they were made, among filter steps, and are no part of the filter chain. */
static void
test_measurement_steps (void)
{
  g_autoptr (LbImage) a = image_of (1), b = image_of (2);
  g_autoptr (LbHistory) h = lb_history_new (a);
  g_autoptr (LbMeasurementList) list = lb_measurement_list_new ();
  g_autoptr (LbMeasurement) m = line (1, 2, 3, 4), n = line (5, 6, 7, 8), before = NULL;
  g_autofree char *chain = NULL;

  lb_measurement_list_add_undoable (list, h, m, 1, "Add");
  g_assert_cmpuint (lb_history_get_n_image_steps (h), ==, 0);
  lb_history_push (h, b, "Blur", "blur:size=3 (xv 1.0)");
  g_assert_cmpuint (lb_history_get_n_image_steps (h), ==, 1);
  lb_measurement_list_add_undoable (list, h, n, 2, "Add");
  before = lb_measurement_copy (m);
  lb_measurement_set_point (m, 1, 30, 40);
  lb_measurement_list_record_edit (list, h, m, before, "Edit");
  g_assert_true (lb_measurement_list_remove_undoable (list, h, m, "Delete"));
  g_assert_cmpuint (lb_measurement_list_get_n (list), ==, 1);
  g_assert_cmpuint (lb_history_get_length (h), ==, 6);
  /* an edit that changed nothing is no step */
  lb_measurement_list_record_edit (list, h, n, n, "Edit");
  g_assert_cmpuint (lb_history_get_length (h), ==, 6);
  chain = lb_history_dup_chain (h);
  g_assert_cmpstr (chain, ==, "blur:size=3 (xv 1.0)");
  g_assert_true (lb_history_get_current (h) == b);

  /* undo the delete: m is back where it was, with the edited point */
  g_assert_true (lb_history_undo (h));
  g_assert_true (lb_measurement_list_get (list, 0) == m);
  g_assert_cmpuint (lb_measurement_list_get_frame (list, m), ==, 1);
  g_assert_cmpfloat (lb_measurement_get_point (m, 1).x, ==, 30);
  /* the edit */
  g_assert_true (lb_history_undo (h));
  g_assert_cmpfloat (lb_measurement_get_point (m, 1).x, ==, 3);
  g_assert_cmpfloat (lb_measurement_get_point (m, 1).y, ==, 4);
  /* the second addition, then the filter */
  g_assert_true (lb_history_undo (h));
  g_assert_false (lb_measurement_list_find (list, n, NULL));
  g_assert_true (lb_history_undo (h));
  g_assert_true (lb_history_get_current (h) == a);
  g_assert_true (lb_history_undo (h));
  g_assert_cmpuint (lb_measurement_list_get_n (list), ==, 0);
  g_assert_false (lb_history_undo (h));
  /* and all of it again */
  while (lb_history_redo (h))
    ;
  g_assert_cmpuint (lb_measurement_list_get_n (list), ==, 1);
  g_assert_true (lb_measurement_list_get (list, 0) == n);
  g_assert_cmpuint (lb_measurement_list_get_frame (list, n), ==, 2);
  g_assert_false (lb_measurement_list_find (list, m, NULL));
  g_assert_cmpfloat (lb_measurement_get_point (m, 1).x, ==, 30);
  g_assert_true (lb_history_get_current (h) == b);
  /* a new step after undo drops the edits of the redo tail with their data */
  g_assert_true (lb_history_undo (h));
  lb_history_push (h, a, "Revert-ish", "x");
  g_assert_false (lb_history_can_redo (h));
}

/* Every state, redo ones included, by index: what a filter's second image is chosen from. */
static void
test_states (void)
{
  g_autoptr (LbImage) a = image_of (1), b = image_of (2), c = image_of (3);
  g_autoptr (LbHistory) h = lb_history_new (a);

  lb_history_push (h, b, "Blur", "blur:size=3 (xv 1.0)");
  lb_history_push (h, c, "Sharpen", "sharpen:amount=50 (xv 1.0)");
  g_assert_true (lb_history_undo (h));
  g_assert_true (lb_history_get_image_at (h, 0) == a);
  g_assert_true (lb_history_get_image_at (h, 1) == b);
  g_assert_true (lb_history_get_image_at (h, 2) == c);
  g_assert_null (lb_history_get_label_at (h, 0));
  g_assert_cmpstr (lb_history_get_label_at (h, 1), ==, "Blur");
  g_assert_cmpstr (lb_history_get_label_at (h, 2), ==, "Sharpen");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/history/undo-redo", test_undo_redo);
  g_test_add_func ("/history/measurement-steps", test_measurement_steps);
  g_test_add_func ("/history/states", test_states);
  return g_test_run ();
}
