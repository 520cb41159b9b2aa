/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The kernels' error domain (plugins/common/lb-kernel.h) is the host's LB_ERROR: the kernels
 * do not link src/core, so they name the domain by its string and copy two codes. Both must
 * stay what src/core/lb-error.h says, or Lightbox would show plugin errors under a foreign
 * domain. */
#include <glib.h>

#include "lb-error.h"
#include "lb-kernel.h"
#include "lb-xv-kernels-a.h"

static void
test_domain_and_codes (void)
{
  g_assert_cmpuint (LB_KERNEL_ERROR, ==, LB_ERROR);
  g_assert_cmpstr (g_quark_to_string (LB_KERNEL_ERROR), ==, g_quark_to_string (LB_ERROR));
  g_assert_cmpint (LB_KERNEL_ERROR_INVALID_ARGUMENT, ==, LB_ERROR_INVALID_ARGUMENT);
  g_assert_cmpint (LB_KERNEL_ERROR_UNSUPPORTED, ==, LB_ERROR_UNSUPPORTED);
}

/* A kernel's refusals arrive as LB_ERROR with LbError's codes. */
static void
test_kernel_errors (void)
{
  guint8 px[4 * 4 * 3] = { 0 };
  LbKernelBuf src = { px, 4 * 3, 4, 4, 3, 8, NULL };
  LbXvOil oil;
  g_autoptr (GError) error = NULL;

  g_assert_false (lb_xv_oil_prepare (&oil, &src, NULL, 2, &error));
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  src.depth = 12;
  g_assert_false (lb_xv_oil_prepare (&oil, &src, NULL, 3, &error));
  g_assert_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/abi/kernel-error/domain-and-codes", test_domain_and_codes);
  g_test_add_func ("/abi/kernel-error/kernel-errors", test_kernel_errors);
  return g_test_run ();
}
