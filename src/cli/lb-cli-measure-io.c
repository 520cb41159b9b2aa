/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-cli"

#include "lb-cli-measure-io.h"

#include <string.h>

#include "lb-cli-store-io.h"
#include "lb-cli-store-options.h"
#include "lb-dicom-file.h"
#include "lb-dicom-multiframe.h"
#include "lb-dicom-tags.h"
#include "lb-dicomweb-store.h"
#include "lb-error.h"
#include "lb-image-loader.h"
#include "lb-measurement-csv.h"
#include "lb-measurement-geometry.h"
#include "lb-store-sync.h"

void
lb_cli_measure_target_clear (LbCliMeasureTarget *t)
{
  g_clear_pointer (&t->url, g_free);
  g_clear_object (&t->store);
  g_clear_object (&t->image);
  g_clear_pointer (&t->dataset, lb_dicom_dataset_unref);
  lb_measurement_image_ref_clear (&t->ref);
}

void
lb_cli_store_result (GObject *source, GAsyncResult *result, gpointer user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

GAsyncResult *
lb_cli_wait (GAsyncResult **slot)
{
  GMainContext *context = g_main_context_ref_thread_default ();

  while (*slot == NULL)
    g_main_context_iteration (context, TRUE);
  g_main_context_unref (context);
  return *slot;
}

/* The data set of frame @number of @md (a multi-frame object's functional groups merged in),
 * or @md itself. */
static LbDicomDataset *
frame_dataset (LbDicomDataset *md, guint number, const char *name, GError **error)
{
  if (lb_dicom_get_n_frames (md) > 1)
    return lb_dicom_frame_dataset_new (md, number, name, error);
  return lb_dicom_dataset_ref (md);
}

static gboolean
load_dicomweb (LbCliMeasureTarget *t, guint frame_number, GError **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(LbDicomDataset) md = NULL;
  g_autofree char *uri = frame_number > 0
    ? g_strdup_printf ("%s/frames/%u", t->url, frame_number) : g_strdup (t->url);
  guint n_frames;

  lb_dicomweb_store_fetch_image_async (LB_DICOMWEB_STORE (t->store), uri, NULL, NULL,
                                       lb_cli_store_result, &result);
  t->image = lb_dicomweb_store_fetch_image_finish (LB_DICOMWEB_STORE (t->store),
                                                   lb_cli_wait (&result), &md, error);
  if (t->image == NULL)
    return FALSE;
  n_frames = lb_dicom_get_n_frames (md);
  if (frame_number == 0)
    frame_number = 1;
  t->frame = n_frames > 1 ? (gint) frame_number - 1 : -1;
  t->dataset = frame_dataset (md, frame_number, t->url, error);
  return t->dataset != NULL;
}

static gboolean
load_local (LbCliMeasureTarget *t, const char *path, guint frame_number, GError **error)
{
  g_autoptr(LbDicomFile) file = NULL;
  g_autoptr(GError) dicom_error = NULL;
  guint n_frames;

  file = lb_dicom_file_new_for_path (path, LB_DICOM_READ_DEFAULT, NULL, &dicom_error);
  if (file == NULL)
    {
      if (frame_number > 1)
        {
          g_propagate_error (error, g_steal_pointer (&dicom_error));
          return FALSE;
        }
      /* not DICOM: any image Lightbox reads */
      t->image = lb_image_load_file (path, NULL, error);
      return t->image != NULL;
    }
  if (!lb_dicom_file_check_pixels (file, error))
    return FALSE;
  n_frames = lb_dicom_file_get_n_frames (file);
  if (frame_number == 0)
    frame_number = 1;
  if (!lb_dicom_check_frame_number (frame_number, n_frames, path, error))
    return FALSE;
  t->image = lb_dicom_file_decode_frame (file, frame_number - 1, NULL, error);
  if (t->image == NULL)
    return FALSE;
  t->frame = n_frames > 1 ? (gint) frame_number - 1 : -1;
  t->dataset = frame_dataset (lb_dicom_file_get_dataset (file), frame_number, path, error);
  return t->dataset != NULL;
}

gboolean
lb_cli_measure_target_load (const char *arg, guint frame_number, LbCliMeasureTarget *t,
                            GError **error)
{
  *t = (LbCliMeasureTarget) { .frame = -1 };
  if (lb_cli_is_store_url (arg))
    {
      g_autoptr(LbStoreOptions) options = lb_cli_store_options (error);

      if (options == NULL)
        return FALSE;
      t->url = lb_cli_url_from_arg (arg);
      t->store = lb_store_new_for_uri (t->url, options, error);
      if (t->store == NULL)
        return FALSE;
      t->dicomweb = LB_IS_DICOMWEB_STORE (t->store);
      if (t->dicomweb)
        {
          if (!load_dicomweb (t, frame_number, error))
            return FALSE;
        }
      else if (frame_number > 1)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                       "--frame: %s is no DICOMweb instance; measure a local copy", arg);
          return FALSE;
        }
      else
        {
          t->image = lb_store_fetch_image_sync (t->url, options, NULL, NULL, NULL, error);
          if (t->image == NULL)
            return FALSE;
        }
    }
  else if (!load_local (t, arg, frame_number, error))
    return FALSE;

  /* the data set knows more than the image's metadata (PS3.3 10.7.1) */
  if (t->dataset == NULL || !lb_measurement_spacing_from_dataset (t->dataset, &t->spacing))
    lb_measurement_spacing_from_meta (lb_image_get_meta (t->image), &t->spacing);
  lb_measurement_image_ref_init_from_image (&t->ref, t->image);
  t->ref.frame = t->frame;
  if (t->ref.name == NULL && t->url == NULL)
    t->ref.name = g_path_get_basename (arg);
  if (t->dataset != NULL && t->ref.sop_instance_uid == NULL)
    t->ref.sop_instance_uid = g_strdup (lb_dicom_dataset_get_string (t->dataset,
                                                                     LB_TAG_SOP_INSTANCE_UID, 0));
  return TRUE;
}

char *
lb_cli_measure_csv (LbCliMeasureTarget *t, const char *label, GPtrArray *measurements,
                    gboolean header, GError **error)
{
  g_autofree LbMeasurementValues *values = g_new0 (LbMeasurementValues, measurements->len + 1);
  g_autofree LbMeasurementCsvRow *rows = g_new0 (LbMeasurementCsvRow, measurements->len + 1);
  g_autofree char *csv = NULL;
  const char *body;

  for (guint i = 0; i < measurements->len; i++)
    {
      if (!lb_measurement_compute (measurements->pdata[i], &t->spacing, t->image, &values[i],
                                   error))
        {
          g_prefix_error (error, "measurement %u: ", i + 1);
          return NULL;
        }
      rows[i] = (LbMeasurementCsvRow) {
        .image = label, .slice = t->frame >= 0 ? (guint) t->frame + 1 : 0,
        .measurement = measurements->pdata[i], .values = &values[i],
      };
    }
  csv = lb_measurement_csv (rows, measurements->len);
  if (header)
    return g_steal_pointer (&csv);
  body = strstr (csv, "\r\n");
  return g_strdup (body ? body + 2 : "");
}

JsonNode *
lb_cli_measure_json (LbCliMeasureTarget *t, GPtrArray *measurements, GError **error)
{
  g_autoptr(GBytes) doc = lb_measurement_sidecar_write (&t->ref, &t->spacing, t->image,
                                                        measurements, error);
  g_autoptr(JsonParser) parser = NULL;

  if (doc == NULL)
    return NULL;
  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, g_bytes_get_data (doc, NULL),
                                   (gssize) g_bytes_get_size (doc), error))
    return NULL;
  return json_node_copy (json_parser_get_root (parser));
}

void
lb_cli_print_json (JsonNode *node)
{
  g_autofree char *text = json_to_string (node, TRUE);

  g_print ("%s\n", text);
}
