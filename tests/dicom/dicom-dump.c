/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dicom-dump FILE: what lb_dicom_file_new_for_path() reads from FILE, one JSON object per line
 * and element, depth first: {"path": "0010,1002[0]/0010,0020", "vr": "LO", "values": [...]}
 * (text and numbers as the data set holds them), {"…", "bytes": "hex"} for binary VRs,
 * {"…", "items": N} for sequences. Then one line with the transfer syntax, the frame count
 * and, per frame, its byte length. check-attributes.py compares it with dcmdump.
 * Exit status 1 with the error on stderr when the file is refused. */
#include <json-glib/json-glib.h>
#include <stdio.h>

#include "lb-dicom-file.h"

static void
emit (JsonBuilder *b)
{
  g_autoptr(JsonNode) root = json_builder_get_root (b);
  g_autofree char *text = json_to_string (root, FALSE);

  printf ("%s\n", text);
}

static void
dump (const LbDicomDataset *ds, const char *prefix)
{
  guint n = 0;
  g_autofree guint32 *tags = lb_dicom_dataset_get_tags (ds, &n);

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *path = g_strdup_printf ("%s%04X,%04X", prefix, tags[i] >> 16,
                                               tags[i] & 0xffff);
      const char *vr = lb_dicom_dataset_get_vr (ds, tags[i]);
      g_autoptr(JsonBuilder) b = json_builder_new ();
      GBytes *bytes = lb_dicom_dataset_get_bytes (ds, tags[i]);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "path");
      json_builder_add_string_value (b, path);
      json_builder_set_member_name (b, "vr");
      json_builder_add_string_value (b, vr);
      if (g_strcmp0 (vr, "SQ") == 0)
        {
          guint items = lb_dicom_dataset_get_n_items (ds, tags[i]);

          json_builder_set_member_name (b, "items");
          json_builder_add_int_value (b, items);
          json_builder_end_object (b);
          emit (b);
          for (guint k = 0; k < items; k++)
            {
              g_autofree char *sub = g_strdup_printf ("%s[%u]/", path, k);

              dump (lb_dicom_dataset_get_item (ds, tags[i], k), sub);
            }
          continue;
        }
      if (bytes != NULL)
        {
          gsize len;
          const guint8 *d = g_bytes_get_data (bytes, &len);
          GString *hex = g_string_sized_new (len * 2);

          for (gsize k = 0; k < len; k++)
            g_string_append_printf (hex, "%02x", d[k]);
          json_builder_set_member_name (b, "bytes");
          json_builder_add_string_value (b, hex->str);
          g_string_free (hex, TRUE);
        }
      else
        {
          guint nv = lb_dicom_dataset_get_n_values (ds, tags[i]);

          json_builder_set_member_name (b, "values");
          json_builder_begin_array (b);
          for (guint k = 0; k < nv; k++)
            {
              const char *v = lb_dicom_dataset_get_string (ds, tags[i], k);

              json_builder_add_string_value (b, v ? v : "");
            }
          json_builder_end_array (b);
        }
      json_builder_end_object (b);
      emit (b);
    }
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LbDicomFile) file = NULL;
  g_autoptr(JsonBuilder) b = json_builder_new ();

  if (argc != 2)
    {
      fprintf (stderr, "usage: dicom-dump FILE\n");
      return 2;
    }
  file = lb_dicom_file_new_for_path (argv[1], LB_DICOM_READ_DEFAULT, NULL, &error);
  if (file == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  dump (lb_dicom_file_get_file_meta (file), "");
  dump (lb_dicom_file_get_dataset (file), "");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "transfer_syntax");
  json_builder_add_string_value (b, lb_dicom_file_get_transfer_syntax (file));
  json_builder_set_member_name (b, "frames");
  json_builder_begin_array (b);
  for (guint f = 0; f < lb_dicom_file_get_n_frames (file); f++)
    {
      g_autoptr(GBytes) frame = lb_dicom_file_dup_frame (file, f, &error);

      if (frame == NULL)
        {
          fprintf (stderr, "%s\n", error->message);
          return 1;
        }
      json_builder_add_int_value (b, (gint64) g_bytes_get_size (frame));
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  emit (b);
  return 0;
}
