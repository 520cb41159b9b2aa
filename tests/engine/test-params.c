/* SPDX-License-Identifier: GPL-3.0-or-later */
/* LbFilterParams: defaults, string and GVariant parsing, validation messages. */

#include <string.h>

#include "lb-error.h"
#include "lb-filter-params.h"
#include "lb-filter-registry.h"
#include "lb-pipeline.h"
#include "lb-test-files.h"
#include "lb-test-image.h"

static LbFilterRegistry *registry;
static char *plugin_dir;

static LbFilter *
mark (void)
{
  LbFilter *f = lb_filter_registry_lookup (registry, "io.github.lightbox.test.mark");
  g_assert_nonnull (f);
  return f;
}

static void
expect_error (LbFilterParams *p,
              const char     *text,
              int             code,
              const char     *fragment)
{
  g_autoptr(GError) error = NULL;

  g_assert_false (lb_filter_params_set_from_string (p, text, &error));
  g_assert_error (error, LB_ERROR, code);
  if (strstr (error->message, fragment) == NULL)
    g_error ("“%s”: message “%s” lacks “%s”", text, error->message, fragment);
}

static void
test_defaults_and_string (void)
{
  g_autoptr(LbFilter) f = mark ();
  g_autoptr(LbFilterParams) p = lb_filter_params_new (f);
  g_autoptr(GError) error = NULL;
  g_autofree char *s = NULL;

  s = lb_filter_params_to_string (p);
  g_assert_cmpstr (s, ==, "delay-us=0,value=0,size=3,mode=fast,gain=0.5,fail-row=-1");
  g_clear_pointer (&s, g_free);

  g_assert_true (lb_filter_params_set_from_string (p, "value=200,size=7,mode=exact,gain=-1.25",
                                                   &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (lb_filter_params_get_number (p, "value"), ==, 200);
  g_assert_cmpfloat (lb_filter_params_get_number (p, "size"), ==, 7);
  g_assert_cmpfloat (lb_filter_params_get_number (p, "mode"), ==, 1);
  g_assert_cmpfloat (lb_filter_params_get_number (p, "gain"), ==, -1.25);
  s = lb_filter_params_to_string (p);
  g_assert_cmpstr (s, ==, "delay-us=0,value=200,size=7,mode=exact,gain=-1.25,fail-row=-1");

  /* The struct the plugin sees holds the values at the spec offsets. */
  {
    const gint *ints = lb_filter_params_get_data (p);
    g_assert_cmpint (ints[1], ==, 200);
    g_assert_cmpint (ints[2], ==, 7);
  }
}

static void
test_errors (void)
{
  g_autoptr(LbFilter) f = mark ();
  g_autoptr(LbFilterParams) p = lb_filter_params_new (f);

  expect_error (p, "value=256", LB_ERROR_INVALID_ARGUMENT,
                "parameter “value” = 256 is out of range 0..255");
  expect_error (p, "size=4", LB_ERROR_INVALID_ARGUMENT, "“size” = 4 must be odd");
  expect_error (p, "size=2.5", LB_ERROR_INVALID_ARGUMENT, "must be a whole number");
  expect_error (p, "gain=abc", LB_ERROR_INVALID_ARGUMENT,
                "“gain” = “abc” is not a number (range -2.5..2.5)");
  expect_error (p, "gain=nan", LB_ERROR_INVALID_ARGUMENT, "not a finite number");
  expect_error (p, "mode=slow", LB_ERROR_INVALID_ARGUMENT, "is not one of fast, exact");
  expect_error (p, "colour=3", LB_ERROR_INVALID_ARGUMENT,
                "has no parameter “colour” (parameters: delay-us, value, size, mode, gain, fail-row)");
  expect_error (p, "value", LB_ERROR_INVALID_ARGUMENT, "is not NAME=VALUE");
  expect_error (p, "value=", LB_ERROR_INVALID_ARGUMENT, "is not a number");
  /* A failed setter leaves the earlier value alone. */
  g_assert_cmpfloat (lb_filter_params_get_number (p, "value"), ==, 0);

  /* Naming a parameter twice is refused, whichever value would have won, and a string that
   * fails part-way changes nothing, not even the items before the bad one. */
  expect_error (p, "size=5,size=7", LB_ERROR_INVALID_ARGUMENT,
                "parameter “size” is given more than once");
  expect_error (p, "value=9,gain=1,value=9", LB_ERROR_INVALID_ARGUMENT,
                "parameter “value” is given more than once");
  expect_error (p, "value=9,size=5,gain=7", LB_ERROR_INVALID_ARGUMENT, "out of range");
  expect_error (p, "value=9,mode=exact,bogus", LB_ERROR_INVALID_ARGUMENT, "is not NAME=VALUE");
  g_assert_cmpfloat (lb_filter_params_get_number (p, "value"), ==, 0);
  g_assert_cmpfloat (lb_filter_params_get_number (p, "size"), ==, 3);
  g_assert_cmpfloat (lb_filter_params_get_number (p, "mode"), ==, 0);
  g_assert_cmpfloat (lb_filter_params_get_number (p, "gain"), ==, 0.5);
}

static void
test_variant (void)
{
  g_autoptr(LbFilter) f = mark ();
  g_autoptr(LbFilterParams) p = lb_filter_params_new (f);
  g_autoptr(LbFilterParams) q = lb_filter_params_new (f);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) v = NULL;
  g_autofree char *a = NULL, *b = NULL;
  GVariantBuilder bld;

  g_variant_builder_init (&bld, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&bld, "{sv}", "value", g_variant_new_int32 (9));
  g_variant_builder_add (&bld, "{sv}", "mode", g_variant_new_string ("exact"));
  g_variant_builder_add (&bld, "{sv}", "gain", g_variant_new_double (2));
  g_assert_true (lb_filter_params_set_variant (p, g_variant_builder_end (&bld), &error));
  g_assert_no_error (error);
  v = g_variant_ref_sink (lb_filter_params_to_variant (p));
  g_assert_true (lb_filter_params_set_variant (q, v, &error));
  g_assert_no_error (error);
  a = lb_filter_params_to_string (p);
  b = lb_filter_params_to_string (q);
  g_assert_cmpstr (a, ==, b);
  g_assert_cmpstr (a, ==, "delay-us=0,value=9,size=3,mode=exact,gain=2,fail-row=-1");

  g_variant_builder_init (&bld, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&bld, "{sv}", "gain", g_variant_new_double (3));
  g_assert_false (lb_filter_params_set_variant (p, g_variant_builder_end (&bld), &error));
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "out of range -2.5..2.5"));
  g_clear_error (&error);

  /* a{sv} may carry a key twice; that is refused, and a dictionary that fails part-way
   * changes nothing (value=9 and mode=exact stay from above). */
  g_variant_builder_init (&bld, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&bld, "{sv}", "value", g_variant_new_int32 (1));
  g_variant_builder_add (&bld, "{sv}", "value", g_variant_new_int32 (2));
  g_assert_false (lb_filter_params_set_variant (p, g_variant_builder_end (&bld), &error));
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "parameter “value” is given more than once"));
  g_clear_error (&error);
  g_variant_builder_init (&bld, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&bld, "{sv}", "value", g_variant_new_int32 (4));
  g_variant_builder_add (&bld, "{sv}", "mode", g_variant_new_string ("fast"));
  g_variant_builder_add (&bld, "{sv}", "size", g_variant_new_string ("5"));
  g_assert_false (lb_filter_params_set_variant (p, g_variant_builder_end (&bld), &error));
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "has unsupported type s"));
  g_clear_pointer (&a, g_free);
  a = lb_filter_params_to_string (p);
  g_assert_cmpstr (a, ==, "delay-us=0,value=9,size=3,mode=exact,gain=2,fail-row=-1");
}

static void
test_parse_step (void)
{
  g_autoptr(LbFilter) f = NULL;
  g_autoptr(LbFilterParams) p = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (lb_pipeline_parse_step (registry, "io.github.lightbox.test.mark:value=3", &f,
                                         &p, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (lb_filter_params_get_number (p, "value"), ==, 3);
  g_clear_object (&f);
  g_clear_pointer (&p, lb_filter_params_unref);
  g_assert_false (lb_pipeline_parse_step (registry, "nosuch:size=3", &f, &p, &error));
  g_assert_error (error, LB_ERROR, LB_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "no filter “nosuch”"));
}

int
main (int argc, char **argv)
{
  g_autofree char *src = lb_test_build_path ("LB_TEST_PLUGIN_DIR", "test-mark-10.so", NULL);
  int ret;

  g_test_init (&argc, &argv, NULL);
  plugin_dir = lb_test_make_tmpdir ("test-params");
  lb_test_install_file (src, plugin_dir, "mark.so");
  registry = lb_filter_registry_new ();
  lb_filter_registry_add_plugin_dir (registry, plugin_dir);
  lb_filter_registry_rescan (registry);

  g_test_add_func ("/params/defaults-and-string", test_defaults_and_string);
  g_test_add_func ("/params/errors", test_errors);
  g_test_add_func ("/params/variant", test_variant);
  g_test_add_func ("/params/parse-step", test_parse_step);
  ret = g_test_run ();
  g_object_unref (registry);
  lb_test_remove_tree (plugin_dir);
  g_free (plugin_dir);
  return ret;
}
