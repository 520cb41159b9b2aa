/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-cli"

#include <stdio.h>

#include "lb-cli-measure-io.h"
#include "lb-cli-store-options.h"
#include "lb-cli.h"
#include "lb-dicom-tags.h"
#include "lb-dicomweb-reports.h"
#include "lb-error.h"
#include "lb-http.h"
#include "lb-measurement-sr.h"
#include "lb-store-sync.h"

static int opt_frame;
static gboolean opt_json;
/* a report could not be read: listed on stderr, the rest listed, exit status 1 */
static gboolean partial;

static const GOptionEntry entries[] = {
  { "frame", 0, 0, G_OPTION_ARG_INT, &opt_frame, "The DICOM frame, from 1 (default 1)", "N" },
  { "json", 0, 0, G_OPTION_ARG_NONE, &opt_json, "Print JSON instead of CSV", NULL },
  { NULL }
};

/* Prints one source's measurements; @json_reports collects them with --json. */
static gboolean
emit (LbCliMeasureTarget *t, const char *label, GPtrArray *list, JsonBuilder *json_reports,
      gboolean *header_done, GError **error)
{
  if (json_reports != NULL)
    {
      JsonNode *node = lb_cli_measure_json (t, list, error);

      if (node == NULL)
        return FALSE;
      json_builder_set_member_name (json_reports, "measurements");
      json_builder_add_value (json_reports, node);
    }
  else
    {
      g_autofree char *csv = lb_cli_measure_csv (t, label, list, !*header_done, error);

      if (csv == NULL)
        return FALSE;
      fputs (csv, stdout);
      *header_done = TRUE;
    }
  return TRUE;
}

static void
json_string (JsonBuilder *b, const char *name, const char *value)
{
  json_builder_set_member_name (b, name);
  if (value != NULL)
    json_builder_add_string_value (b, value);
  else
    json_builder_add_null_value (b);
}

/* The measurements of every SR of the image's study that were drawn on this image (and frame).
 * A report that cannot be read is named on stderr, and the others are still listed. */
static int
list_reports (LbCliMeasureTarget *t, JsonBuilder *b)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) reports = NULL;
  const char *sop = t->ref.sop_instance_uid;
  gboolean header_done = FALSE;

  lb_dicomweb_store_find_reports_async (LB_DICOMWEB_STORE (t->store), t->url, NULL,
                                        lb_cli_store_result, &result);
  reports = lb_dicomweb_store_find_reports_finish (LB_DICOMWEB_STORE (t->store),
                                                   lb_cli_wait (&result), &error);
  if (reports == NULL)
    return lb_cli_fail ("measurements", error);
  for (guint i = 0; i < reports->len; i++)
    {
      const LbDicomDataset *sr = reports->pdata[i];
      const char *sr_uid = lb_dicom_dataset_get_string (sr, LB_TAG_SOP_INSTANCE_UID, 0);
      const char *number = lb_dicom_dataset_get_string (sr, LB_TAG_SERIES_NUMBER, 0);
      g_autoptr(GPtrArray) found = lb_measurement_sr_read (sr, &error);
      g_autoptr(GPtrArray) list = NULL;
      g_autofree char *label = NULL;

      if (found == NULL)
        {
          g_printerr ("lightbox-cli measurements: report %s: %s\n", sr_uid, error->message);
          g_clear_error (&error);
          partial = TRUE;
          continue;
        }
      list = lb_measurement_sr_for_image (found, sop, t->frame);
      if (list->len == 0)
        continue;
      label = g_strdup_printf ("%s (report, series %s)", t->ref.name ? t->ref.name : sop,
                               number ? number : "?");
      if (b != NULL)
        {
          json_builder_begin_object (b);
          json_string (b, "source", "dicom-sr");
          json_string (b, "sop_instance_uid", sr_uid);
          json_string (b, "series_instance_uid",
                       lb_dicom_dataset_get_string (sr, LB_TAG_SERIES_INSTANCE_UID, 0));
          json_string (b, "series_number", number);
          json_string (b, "content_date", lb_dicom_dataset_get_string (sr, LB_TAG_CONTENT_DATE, 0));
          json_string (b, "content_time", lb_dicom_dataset_get_string (sr, LB_TAG_CONTENT_TIME, 0));
        }
      if (!emit (t, label, list, b, &header_done, &error))
        return lb_cli_fail ("measurements", error);
      if (b != NULL)
        json_builder_end_object (b);
    }
  return 0;
}

/* The JSON sidecar beside the image, through the image's store (or the local folder). */
static int
list_sidecar (LbCliMeasureTarget *t, const char *arg, JsonBuilder *b)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStoreOptions) options = NULL;
  g_autoptr(LbStore) store = NULL;
  g_autoptr(GAsyncResult) opened = NULL, read = NULL;
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GPtrArray) list = NULL;
  g_autofree char *image_uri = NULL, *uri = NULL;
  gboolean header_done = FALSE;

  if (t->url != NULL)
    image_uri = g_strdup (t->url);
  else
    {
      g_autoptr(GFile) file = g_file_new_for_commandline_arg (arg);

      image_uri = g_file_get_uri (file);
    }
  uri = lb_measurement_sidecar_uri (image_uri);
  if (uri == NULL)
    {
      g_printerr ("lightbox-cli measurements: %s: no sidecar can sit beside this address\n",
                  image_uri);
      return 1;
    }
  options = lb_cli_store_options (&error);
  if (options == NULL)
    return lb_cli_fail ("measurements", error);
  store = lb_store_open_parent_sync (uri, options, &error);
  if (store == NULL)
    return lb_cli_fail ("measurements", error);
  lb_store_read_async (store, uri, NULL, NULL, NULL, lb_cli_store_result, &opened);
  stream = lb_store_read_finish (store, lb_cli_wait (&opened), NULL, &error);
  if (stream == NULL)
    {
      if (g_error_matches (error, LB_ERROR, LB_ERROR_NOT_FOUND)
          || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        {
          g_printerr ("lightbox-cli measurements: no measurements: %s does not exist\n", uri);
          return 0;
        }
      return lb_cli_fail ("measurements", error);
    }
  /* one byte more than a sidecar may have, so that the reader refuses the file by its size */
  lb_http_read_all_async (stream, uri, -1, LB_MEASUREMENT_SIDECAR_MAX_BYTES + 1, NULL, NULL, NULL,
                          lb_cli_store_result, &read);
  bytes = lb_http_read_all_finish (stream, lb_cli_wait (&read), &error);
  if (bytes == NULL)
    return lb_cli_fail ("measurements", error);
  list = lb_measurement_sidecar_read (bytes, uri, NULL, NULL, &error);
  if (list == NULL)
    return lb_cli_fail ("measurements", error);
  if (b != NULL)
    {
      json_builder_begin_object (b);
      json_string (b, "source", "sidecar");
      json_string (b, "uri", uri);
    }
  if (!emit (t, t->ref.name, list, b, &header_done, &error))
    return lb_cli_fail ("measurements", error);
  if (b != NULL)
    json_builder_end_object (b);
  return 0;
}

int
lb_cli_measurements (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new ("URL|FILE");
  g_autoptr(GError) error = NULL;
  g_auto(LbCliMeasureTarget) t = { .frame = -1 };
  g_autoptr(JsonBuilder) b = NULL;
  int status;

  g_option_context_set_summary (context,
    "List the measurements saved for an image, their values computed again on it: from the\n"
    "DICOM SRs (TID 1500) of its study on a DICOMweb server, or from the JSON sidecar beside\n"
    "it (FILE.measurements.json) elsewhere. CSV, one line per measurement, or --json:\n"
    "{\"reports\": [{\"source\": \"dicom-sr\"|\"sidecar\", …, \"measurements\": SIDECAR}]}.");
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_add_group (context, lb_cli_store_option_group ());
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return lb_cli_fail ("measurements", error);
  if (argc != 2)
    {
      g_printerr ("Usage: lightbox-cli measurements [--frame N] [--json] URL|FILE\n");
      return 2;
    }
  if (opt_frame < 0)
    {
      g_printerr ("lightbox-cli measurements: --frame counts from 1\n");
      return 2;
    }
  if (!lb_cli_measure_target_load (argv[1], (guint) opt_frame, &t, &error))
    return lb_cli_fail ("measurements", error);
  if (opt_json)
    {
      b = json_builder_new ();
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "reports");
      json_builder_begin_array (b);
    }
  status = t.dicomweb ? list_reports (&t, b) : list_sidecar (&t, argv[1], b);
  if (b != NULL && status == 0)
    {
      g_autoptr(JsonNode) root = NULL;

      json_builder_end_array (b);
      json_builder_end_object (b);
      root = json_builder_get_root (b);
      lb_cli_print_json (root);
    }
  return status != 0 ? status : partial ? 1 : 0;
}
