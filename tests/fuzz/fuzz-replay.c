/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Replays saved inputs through a fuzz harness in the normal test suite (no clang, no libFuzzer):
 * every file tests/data/regressions/<harness>-*.bin is one input that once crashed, leaked or
 * hit undefined behaviour; the harness's own checks must now pass on it. Built once per harness
 * (tests/hardening/meson.build) with -DLB_HARNESS="fuzz-…". Under `meson test --setup asan` in
 * an ASan build the replay also catches the memory errors themselves. */
#include <glib.h>

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static void
replay (gconstpointer path)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  g_autoptr (GError) error = NULL;

  g_file_get_contents (path, &data, &len, &error);
  g_assert_no_error (error);
  /* An exact-size heap copy, so that ASan sees any read past the end. */
  {
    g_autofree guint8 *copy = g_memdup2 (data, len);
    g_assert_cmpint (LLVMFuzzerTestOneInput (copy, len), ==, 0);
  }
}

int
main (int argc, char **argv)
{
  g_autofree char *dir = g_build_filename (g_getenv ("LB_TEST_DATA"), "regressions", NULL);
  g_autoptr (GDir) d = NULL;
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_test_init (&argc, &argv, NULL);
  d = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, LB_HARNESS "-") && g_str_has_suffix (name, ".bin"))
      g_ptr_array_add (paths, g_build_filename (dir, name, NULL));
  for (guint i = 0; i < paths->len; i++)
    {
      const char *p = g_ptr_array_index (paths, i);
      g_autofree char *base = g_path_get_basename (p);
      g_autofree char *test = g_strconcat ("/regressions/", base, NULL);
      g_test_add_data_func (test, p, replay);
    }
  if (paths->len == 0)
    g_test_add_data_func ("/regressions/none", NULL, (GTestDataFunc) g_test_skip);
  return g_test_run ();
}
