/* SPDX-License-Identifier: GPL-3.0-or-later */
/* DICOMDIR: the record tree against pydicom's FileSet (dicomdir-reference.py) for pydicom's
 * DICOMDIR and its variants (big endian, implicit VR, records reordered, offsets removed, a
 * second media set), and the same tree when the file-set's names changed case or gained ISO 9660
 * ";1" versions on the way from a CD. */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

#include "lb-test-files.h"
#include "lb-dicom-tags.h"
#include "lb-dicomdir.h"
#include "lb-error.h"

static char *tests_dir;  /* tests/data/dicom/dicomdirtests */

static void
print_tree (GString *out, const LbDicomdirRecord *r, guint depth, const char *folder)
{
  const char *path = lb_dicomdir_record_get_path (r);
  g_autofree char *rel = NULL;

  if (path != NULL)
    {
      g_assert_true (g_str_has_prefix (path, folder));
      rel = g_strdup (path + strlen (folder) + 1);
    }
  else
    /* a record that references a file must find it */
    g_assert_null (lb_dicomdir_record_get_file_id (r));
  for (guint i = 0; i < depth; i++)
    g_string_append (out, "  ");
  g_string_append_printf (out, "%s %s\n", lb_dicomdir_record_get_type_name (r), rel ? rel : "-");
  for (guint i = 0; i < lb_dicomdir_record_get_n_children (r); i++)
    print_tree (out, lb_dicomdir_record_get_child (r, i), depth + 1, folder);
}

static char *
our_tree (const char *path, LbDicomdir **out_dir)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LbDicomdir) dir = lb_dicomdir_new_for_path (path, NULL, &error);
  GString *out = g_string_new (NULL);

  g_assert_no_error (error);
  for (guint i = 0; i < lb_dicomdir_get_n_roots (dir); i++)
    print_tree (out, lb_dicomdir_get_root (dir, i), 0, lb_dicomdir_get_folder (dir));
  if (out_dir)
    *out_dir = g_steal_pointer (&dir);
  return g_string_free (out, FALSE);
}

/* pydicom's tree of @path, or NULL (and the test skipped) without pydicom */
static char *
reference_tree (const char *path)
{
  g_autofree char *script = g_build_filename (g_getenv ("LB_SOURCE_ROOT"), "tests", "dicom",
                                              "dicomdir-reference.py", NULL);
  const char *argv[] = { "/usr/bin/python3", script, path, NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  int status;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
                               &err, &status, &error));
  if (WIFEXITED (status) && WEXITSTATUS (status) == 77)
    {
      g_test_skip ("pydicom is needed for the reference tree");
      return NULL;
    }
  g_assert_true (g_spawn_check_wait_status (status, &error));
  return g_steal_pointer (&out);
}

static void
test_against_pydicom (gconstpointer data)
{
  g_autofree char *path = g_build_filename (tests_dir, (const char *) data, NULL);
  g_autofree char *want = reference_tree (path);
  g_autofree char *got = NULL;
  g_autoptr(LbDicomdir) dir = NULL;

  if (want == NULL)
    return;
  got = our_tree (path, &dir);
  g_assert_cmpstr (got, ==, want);
  {
    guint records = 0;

    for (const char *c = got; *c; c++)
      records += *c == '\n';
    g_test_message ("%u records", records);
  }
}

/* Offsets that reach one record of 52 (the patient records made invalid too; pydicom refuses
 * the file): nothing is lost, every record that references a file is in the tree. */
static void
test_no_patient (void)
{
  g_autofree char *path = g_build_filename (tests_dir, "DICOMDIR-nopatient", NULL);
  g_autofree char *good = g_build_filename (tests_dir, "DICOMDIR", NULL);
  g_autofree char *got = our_tree (path, NULL);
  g_autofree char *want = our_tree (good, NULL);
  g_auto(GStrv) lines = g_strsplit (want, "\n", -1);
  guint images = 0;

  for (guint i = 0; lines[i]; i++)
    {
      const char *sp = strrchr (lines[i], ' ');

      if (sp != NULL && strcmp (sp, " -") != 0)
        {
          g_autofree char *needle = g_strconcat (sp, "\n", NULL);

          g_assert_nonnull (strstr (got, needle));
          images++;
        }
    }
  g_assert_cmpuint (images, ==, 31);
}

static void
copy_tree (const char *from, const char *to, gboolean lower, gboolean version)
{
  g_autoptr(GDir) dir = g_dir_open (from, 0, NULL);
  const char *entry;

  g_assert_nonnull (dir);
  g_assert_cmpint (g_mkdir_with_parents (to, 0755), ==, 0);
  while ((entry = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *src = g_build_filename (from, entry, NULL);
      g_autofree char *name = lower ? g_ascii_strdown (entry, -1) : g_strdup (entry);
      g_autofree char *dst = NULL;

      if (g_file_test (src, G_FILE_TEST_IS_DIR))
        {
          dst = g_build_filename (to, name, NULL);
          copy_tree (src, dst, lower, version);
        }
      else if (strcmp (entry, "DICOMDIR") == 0 || !g_str_has_prefix (entry, "DICOMDIR"))
        {
          g_autofree char *contents = NULL;
          gsize len;

          if (version && strcmp (entry, "DICOMDIR") != 0)
            {
              char *v = g_strconcat (name, ";1", NULL);

              g_free (name);
              name = v;
            }
          dst = g_build_filename (to, name, NULL);
          g_assert_true (g_file_get_contents (src, &contents, &len, NULL));
          g_assert_true (g_file_set_contents (dst, contents, len, NULL));
        }
    }
}

/* A CD's upper-case names seen in lower case, and with ";1" versions: the same tree, each
 * record pointing at the file as it is named now. */
static void
test_renamed (gconstpointer data)
{
  gboolean version = GPOINTER_TO_INT (data);
  g_autofree char *orig = g_build_filename (tests_dir, "DICOMDIR", NULL);
  g_autofree char *want = reference_tree (orig);
  g_autoptr(GError) error = NULL;
  g_autofree char *tmp = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *got = NULL;
  g_autoptr(LbDicomdir) dir = NULL;
  GString *expected;

  if (want == NULL)
    return;
  tmp = g_dir_make_tmp ("lb-dicomdir-XXXXXX", &error);
  g_assert_no_error (error);
  copy_tree (tests_dir, tmp, !version, version);
  copy = g_build_filename (tmp, version ? "DICOMDIR" : "dicomdir", NULL);
  got = our_tree (copy, &dir);

  expected = g_string_new (NULL);
  {
    g_auto(GStrv) lines = g_strsplit (want, "\n", -1);

    for (guint i = 0; lines[i] && *lines[i]; i++)
      {
        const char *sp = strrchr (lines[i], ' ');
        g_autofree char *head = g_strndup (lines[i], sp - lines[i]);
        g_autofree char *p = version || strcmp (sp + 1, "-") == 0 ? g_strdup (sp + 1)
                                                                  : g_ascii_strdown (sp + 1, -1);

        g_string_append_printf (expected, "%s %s%s\n", head, p,
                                version && strcmp (p, "-") != 0 ? ";1" : "");
      }
  }
  g_assert_cmpstr (got, ==, expected->str);
  g_string_free (expected, TRUE);

  /* a path found from the record is found back */
  {
    g_autofree char *img = g_build_filename (tmp, version ? "77654033" : "77654033",
                                             version ? "CR1" : "cr1",
                                             version ? "6154;1" : "6154", NULL);
    const LbDicomdirRecord *r = lb_dicomdir_find_path (dir, img);

    g_assert_nonnull (r);
    g_assert_cmpstr (lb_dicomdir_record_get_type_name (r), ==, "IMAGE");
    g_assert_cmpstr (lb_dicomdir_record_get_file_id (r), ==, "77654033/CR1/6154");
  }
  lb_test_remove_tree (tmp);
}

static void
test_not_a_dicomdir (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("LB_TEST_DATA"), "dicom", "CT_small.dcm",
                                            NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbDicomdir) dir = lb_dicomdir_new_for_path (path, NULL, &error);

  g_assert_null (dir);
  g_assert_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "not a DICOMDIR"));
  g_assert_true (lb_dicomdir_is_name ("DICOMDIR"));
  g_assert_true (lb_dicomdir_is_name ("dicomdir;1"));
  g_assert_false (lb_dicomdir_is_name ("DICOMDIR-bigEnd"));
}

int
main (int argc, char **argv)
{
  static const char *const variants[] = {
    "DICOMDIR", "DICOMDIR-bigEnd", "DICOMDIR-implicit", "DICOMDIR-nooffset",
    "DICOMDIR-reordered", "DICOMDIR-empty.dcm", "TINY_ALPHA/DICOMDIR",
  };

  g_test_init (&argc, &argv, NULL);
  tests_dir = g_build_filename (g_getenv ("LB_TEST_DATA"), "dicom", "dicomdirtests", NULL);
  for (guint i = 0; i < G_N_ELEMENTS (variants); i++)
    {
      g_autofree char *name = g_strconcat ("/dicomdir/pydicom/", variants[i], NULL);

      g_test_add_data_func (name, variants[i], test_against_pydicom);
    }
  g_test_add_func ("/dicomdir/no-patient", test_no_patient);
  g_test_add_data_func ("/dicomdir/lower-case-names", GINT_TO_POINTER (FALSE), test_renamed);
  g_test_add_data_func ("/dicomdir/iso9660-versions", GINT_TO_POINTER (TRUE), test_renamed);
  g_test_add_func ("/dicomdir/not-a-dicomdir", test_not_a_dicomdir);
  return g_test_run ();
}
