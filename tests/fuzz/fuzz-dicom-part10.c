/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer harness: the DICOM Part 10 reader. The input is a file: it is read whole and as a
 * header-only prefix, every element of the data set is visited, and up to four frames are taken
 * and decoded, under small limits (a bomb must fail cleanly, not allocate). A read either gives
 * an object or an LB_ERROR naming the input, never both or neither. */
#include "lb-dicom-file.h"
#include "lb-error.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static const LbLimits limits = { 1 << 22, 1 << 24 }; /* 4 Mpx, 16 MiB */

static void
walk (const LbDicomDataset *ds, guint depth)
{
  guint n = 0;
  g_autofree guint32 *tags = lb_dicom_dataset_get_tags (ds, &n);

  g_assert (depth <= 64 + 1);
  for (guint i = 0; i < n; i++)
    {
      const char *vr = lb_dicom_dataset_get_vr (ds, tags[i]);
      GBytes *bytes = lb_dicom_dataset_get_bytes (ds, tags[i]);

      g_assert (vr != NULL);
      if (bytes != NULL)
        (void) g_bytes_get_size (bytes);
      for (guint k = 0; k < lb_dicom_dataset_get_n_values (ds, tags[i]); k++)
        {
          const char *v = lb_dicom_dataset_get_string (ds, tags[i], k);

          /* text is UTF-8 whatever the character set said */
          g_assert (v == NULL || g_utf8_validate (v, -1, NULL));
        }
      for (guint k = 0; k < lb_dicom_dataset_get_n_items (ds, tags[i]); k++)
        walk (lb_dicom_dataset_get_item (ds, tags[i], k), depth + 1);
    }
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autoptr(GBytes) bytes = g_bytes_new (data, size);
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) header_error = NULL;
  g_autoptr(LbDicomFile) file = NULL;
  g_autoptr(LbDicomFile) header = NULL;

  (void) lb_dicom_sniff (data, size, "fuzz.dcm");
  header = lb_dicom_file_new_from_bytes (bytes, "fuzz.dcm", LB_DICOM_READ_HEADER_ONLY, &limits,
                                         &header_error);
  g_assert ((header == NULL) != (header_error == NULL));
  if (header != NULL)
    walk (lb_dicom_file_get_dataset (header), 0);

  file = lb_dicom_file_new_from_bytes (bytes, "fuzz.dcm", LB_DICOM_READ_DEFAULT, &limits, &error);
  g_assert ((file == NULL) != (error == NULL));
  if (file == NULL)
    {
      g_assert (error->domain == LB_ERROR);
      g_assert (strstr (error->message, "fuzz.dcm") != NULL);
      return 0;
    }
  walk (lb_dicom_file_get_file_meta (file), 0);
  walk (lb_dicom_file_get_dataset (file), 0);
  if (!lb_dicom_file_check_pixels (file, &error))
    {
      g_assert (lb_dicom_file_get_n_frames (file) == 0);
      return 0;
    }
  for (guint f = 0; f < MIN (lb_dicom_file_get_n_frames (file), 4); f++)
    {
      g_autoptr(GError) e = NULL;
      g_autoptr(GBytes) frame = lb_dicom_file_dup_frame (file, f, &e);
      g_autoptr(LbImage) image = NULL;

      g_assert ((frame == NULL) != (e == NULL));
      if (frame != NULL)
        g_assert (g_bytes_get_size (frame) <= size || !lb_dicom_file_is_encapsulated (file));
      g_clear_error (&e);
      image = lb_dicom_file_decode_frame (file, f, &limits, &e);
      g_assert ((image == NULL) != (e == NULL));
    }
  return 0;
}
