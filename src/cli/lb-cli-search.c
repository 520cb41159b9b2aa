/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-cli"

#include "lb-cli-store-io.h"
#include "lb-cli-store-options.h"
#include "lb-cli.h"
#include "lb-dicom-tags.h"
#include "lb-dicomweb-search.h"

static char *opt_patient, *opt_patient_id, *opt_from, *opt_to, *opt_modality, *opt_accession;
static int opt_limit = LB_DICOMWEB_SEARCH_DEFAULT_LIMIT, opt_offset;

static const GOptionEntry entries[] = {
  { "patient", 0, 0, G_OPTION_ARG_STRING, &opt_patient,
    "Patient name, DICOM form (Family^Given); * and ? are wildcards", "NAME" },
  { "patient-id", 0, 0, G_OPTION_ARG_STRING, &opt_patient_id, "Patient ID", "ID" },
  { "from", 0, 0, G_OPTION_ARG_STRING, &opt_from, "Studies on or after this date", "YYYYMMDD" },
  { "to", 0, 0, G_OPTION_ARG_STRING, &opt_to, "Studies on or before this date", "YYYYMMDD" },
  { "modality", 0, 0, G_OPTION_ARG_STRING, &opt_modality, "A modality in the study (CT, MR, …)",
    "MODALITY" },
  { "accession", 0, 0, G_OPTION_ARG_STRING, &opt_accession, "Accession number", "NUMBER" },
  { "limit", 0, 0, G_OPTION_ARG_INT, &opt_limit, "Studies per page (default 100, at most 1000)",
    "N" },
  { "offset", 0, 0, G_OPTION_ARG_INT, &opt_offset, "Matches to skip (the next page)", "N" },
  { NULL }
};

static const char *
or_empty (const LbDicomDataset *ds, guint32 tag)
{
  const char *s = lb_dicom_dataset_get_string (ds, tag, 0);

  return s ? s : "";
}

int
lb_cli_search (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new ("URL");
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStoreOptions) options = NULL;
  g_autoptr(LbStore) store = NULL;
  g_autoptr(GPtrArray) found = NULL;
  g_autofree char *url = NULL;
  LbDicomwebStudyQuery query = { 0 };

  g_option_context_set_summary (context,
                                "Search the studies of a DICOMweb store (QIDO-RS), one page at a time.\n"
                                "Prints one line per study, tab-separated: StudyInstanceUID, StudyDate,\n"
                                "PatientID, PatientName, AccessionNumber, ModalitiesInStudy (joined\n"
                                "with \\), StudyDescription.");
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_add_group (context, lb_cli_store_option_group ());
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return lb_cli_fail ("search", error);
  if (argc != 2)
    {
      g_printerr ("Usage: lightbox-cli search [OPTION…] URL\n");
      return 2;
    }
  if (opt_limit <= 0 || opt_offset < 0)
    {
      g_printerr ("lightbox-cli search: --limit must be positive and --offset not negative\n");
      return 2;
    }
  options = lb_cli_store_options (&error);
  if (options == NULL)
    return lb_cli_fail ("search", error);
  if (options->type == NULL)
    options->type = g_strdup ("dicomweb");
  url = lb_cli_url_from_arg (argv[1]);
  store = lb_store_new_for_uri (url, options, &error);
  if (store == NULL)
    return lb_cli_fail ("search", error);
  if (!LB_IS_DICOMWEB_STORE (store))
    {
      g_printerr ("lightbox-cli search: %s is not a DICOMweb store\n", url);
      return 1;
    }
  query = (LbDicomwebStudyQuery) {
    .patient_name = opt_patient, .patient_id = opt_patient_id, .date_from = opt_from,
    .date_to = opt_to, .modality = opt_modality, .accession = opt_accession,
    .limit = (guint) opt_limit, .offset = (guint) opt_offset,
  };
  found = lb_dicomweb_store_search_studies_sync (LB_DICOMWEB_STORE (store), &query, NULL, &error);
  if (found == NULL)
    return lb_cli_fail ("search", error);
  for (guint i = 0; i < found->len; i++)
    {
      const LbDicomDataset *ds = found->pdata[i];
      g_autofree char *modalities = lb_dicom_dataset_dup_joined (ds, LB_TAG_MODALITIES_IN_STUDY);

      g_print ("%s\t%s\t%s\t%s\t%s\t%s\t%s\n", or_empty (ds, LB_TAG_STUDY_INSTANCE_UID),
               or_empty (ds, LB_TAG_STUDY_DATE), or_empty (ds, LB_TAG_PATIENT_ID),
               or_empty (ds, LB_TAG_PATIENT_NAME), or_empty (ds, LB_TAG_ACCESSION_NUMBER),
               modalities ? modalities : "", or_empty (ds, LB_TAG_STUDY_DESCRIPTION));
    }
  return 0;
}
