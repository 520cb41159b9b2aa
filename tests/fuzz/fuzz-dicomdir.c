/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer harness: DICOMDIR. The input is the DICOMDIR file; its file IDs resolve against an
 * empty folder, so only the records and their offsets are exercised: the tree must be a tree
 * (each record reached once, however the offsets loop), and a refusal an LB_ERROR. */
#include "lb-dicomdir.h"
#include "lb-error.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static guint
count (const LbDicomdirRecord *r, guint depth)
{
  guint n = 1;

  g_assert (depth < 64);
  g_assert (lb_dicomdir_record_get_type_name (r) != NULL);
  g_assert (lb_dicomdir_record_get_dataset (r) != NULL);
  g_assert (lb_dicomdir_record_get_path (r) == NULL); /* nothing exists in the folder */
  for (guint i = 0; i < lb_dicomdir_record_get_n_children (r); i++)
    n += count (lb_dicomdir_record_get_child (r, i), depth + 1);
  return n;
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  static char *folder;
  g_autoptr(GBytes) bytes = g_bytes_new (data, size);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbDicomdir) dir = NULL;
  guint records = 0;

  if (folder == NULL)
    folder = g_dir_make_tmp ("fuzz-dicomdir-XXXXXX", NULL);
  dir = lb_dicomdir_new_from_bytes (bytes, "DICOMDIR", folder, NULL, &error);
  g_assert ((dir == NULL) != (error == NULL));
  if (dir == NULL)
    {
      g_assert (error->domain == LB_ERROR);
      return 0;
    }
  for (guint i = 0; i < lb_dicomdir_get_n_roots (dir); i++)
    records += count (lb_dicomdir_get_root (dir, i), 0);
  /* a record has one place in the tree: no more records than the file has items */
  g_assert (records <= size / 8 + 1);
  return 0;
}
