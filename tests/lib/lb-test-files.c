/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-test-files"

#include "lb-test-files.h"

#include <glib/gstdio.h>

const char *
lb_test_getenv (const char *name)
{
  const char *value = g_getenv (name);

  if (value == NULL)
    g_error ("%s is not set: run this test through meson test (or the script its "
             "meson.build runs it with)", name);
  return value;
}

char *
lb_test_build_path (const char *env_var,
                    const char *first_element,
                    ...)
{
  g_autoptr (GPtrArray) parts = g_ptr_array_new ();
  const char *part;
  va_list args;

  g_ptr_array_add (parts, (gpointer) lb_test_getenv (env_var));
  va_start (args, first_element);
  for (part = first_element; part != NULL; part = va_arg (args, const char *))
    g_ptr_array_add (parts, (gpointer) part);
  va_end (args);
  g_ptr_array_add (parts, NULL);
  return g_build_filenamev ((char **) parts->pdata);
}

char *
lb_test_make_tmpdir (const char *tag)
{
  g_autofree char *tmpl = g_strdup_printf ("lb-%s-XXXXXX", tag);
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp (tmpl, &error);

  g_assert_no_error (error);
  return dir;
}

void
lb_test_remove_tree (const char *path)
{
  g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        lb_test_remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

guint
lb_test_count_entries (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  while (d != NULL && g_dir_read_name (d) != NULL)
    n++;
  return n;
}

void
lb_test_copy_tree (const char *src,
                   const char *dst)
{
  g_autoptr (GDir) dir = g_dir_open (src, 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  g_assert_cmpint (g_mkdir_with_parents (dst, 0755), ==, 0);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *s = g_build_filename (src, name, NULL);
      g_autofree char *d = g_build_filename (dst, name, NULL);

      if (g_file_test (s, G_FILE_TEST_IS_DIR))
        lb_test_copy_tree (s, d);
      else
        {
          g_autoptr (GBytes) contents = lb_test_read_file (s);

          g_assert_true (g_file_set_contents (d, g_bytes_get_data (contents, NULL),
                                              (gssize) g_bytes_get_size (contents), NULL));
        }
    }
}

GBytes *
lb_test_read_file (const char *path)
{
  g_autoptr (GError) error = NULL;
  char *data = NULL;
  gsize len = 0;

  g_file_get_contents (path, &data, &len, &error);
  g_assert_no_error (error);
  return g_bytes_new_take (data, len);
}

char *
lb_test_sha256_file (const char *path)
{
  g_autoptr (GBytes) contents = lb_test_read_file (path);

  return g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, contents);
}

void
lb_test_install_file (const char *src,
                      const char *dir,
                      const char *name)
{
  g_autofree char *tmp = g_build_filename (dir, ".installing", NULL);
  g_autofree char *dest = g_build_filename (dir, name, NULL);
  g_autoptr (GFile) from = g_file_new_for_path (src);
  g_autoptr (GFile) to = g_file_new_for_path (tmp);
  g_autoptr (GError) error = NULL;

  g_file_copy (from, to, G_FILE_COPY_OVERWRITE, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_rename (tmp, dest), ==, 0);
}
