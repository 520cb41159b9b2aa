/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Multi-level undo/redo and revert, with the filter chain used for provenance. */
#include "config.h"

#include <string.h>

#include "lb-history.h"

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
  g_test_add_func ("/history/states", test_states);
  return g_test_run ();
}
