/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicomweb-store"

#include "lb-dicomweb-search.h"

#include <string.h>

#include "lb-dicomweb-store-private.h"
#include "lb-dicom-tags.h"
#include "lb-error.h"
#include "lb-http.h"

/* What a result list shows beyond the default study attributes (PS3.18 §10.6.1.2.1):
 * PatientName, PatientID, PatientBirthDate, PatientSex, StudyDescription, StudyDate,
 * StudyTime, ModalitiesInStudy, AccessionNumber, NumberOfStudyRelatedSeries/Instances. */
#define SEARCH_FIELDS \
  "includefield=00100010&includefield=00100020&includefield=00100030&includefield=00100040" \
  "&includefield=00081030&includefield=00080020&includefield=00080030&includefield=00080061" \
  "&includefield=00080050&includefield=00201206&includefield=00201208"

/* NumberOfStudyRelatedSeries (PS3.6): QIDO-RS computes it (PS3.18 §10.6.3.3.1) */
#define NUMBER_OF_STUDY_RELATED_SERIES LB_DICOM_TAG (0x0020, 0x1206)

static gboolean
valid_date (const char *field, const char *d, GError **error)
{
  gboolean ok = d != NULL && strlen (d) == 8;

  for (guint i = 0; ok && i < 8; i++)
    ok = g_ascii_isdigit (d[i]);
  if (!ok)
    g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                 "%s “%s” is not a date of the form YYYYMMDD", field, d ? d : "");
  return ok;
}

static void
add_param (GString *s, const char *key, const char *value)
{
  g_autofree char *e = NULL;

  if (value == NULL || *value == '\0')
    return;
  /* keep the wildcards '*' and '?' readable: QIDO matches on them, not on %2A */
  e = g_uri_escape_string (value, "*", FALSE);
  g_string_append_printf (s, "&%s=%s", key, e);
}

char *
lb_dicomweb_study_query_to_path (const LbDicomwebStudyQuery *q, GError **error)
{
  g_autoptr(GString) s = g_string_new ("/studies?" SEARCH_FIELDS);
  guint limit = q->limit ? q->limit : LB_DICOMWEB_SEARCH_DEFAULT_LIMIT;

  if (q->date_from && !valid_date ("The first date", q->date_from, error))
    return NULL;
  if (q->date_to && !valid_date ("The last date", q->date_to, error))
    return NULL;
  if (q->date_from && q->date_to && strcmp (q->date_from, q->date_to) > 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "The date range %s–%s ends before it starts", q->date_from, q->date_to);
      return NULL;
    }
  if (limit > LB_DICOMWEB_SEARCH_MAX_LIMIT)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "A page of %u studies is more than the %u a search may ask for", limit,
                   LB_DICOMWEB_SEARCH_MAX_LIMIT);
      return NULL;
    }
  add_param (s, "PatientName", q->patient_name);
  add_param (s, "PatientID", q->patient_id);
  if (q->date_from || q->date_to)
    {
      /* range matching, PS3.4 C.2.2.2.5: "from-", "-to" or "from-to" */
      g_autofree char *range = g_strdup_printf ("%s-%s", q->date_from ? q->date_from : "",
                                                q->date_to ? q->date_to : "");

      add_param (s, "StudyDate", range);
    }
  add_param (s, "ModalitiesInStudy", q->modality);
  add_param (s, "AccessionNumber", q->accession);
  /* PS3.18 §8.3.4.4: the server returns at most limit results after skipping offset */
  g_string_append_printf (s, "&limit=%u&offset=%u", limit, q->offset);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static void
on_search_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  GError *error = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GBytes) body = lb_http_request_finish (NULL, result, &msg, &error);
  GPtrArray *found;

  if (body == NULL)
    {
      lb_store_task_fail (task, error);
      return;
    }
  /* 204 No Content: nothing matches (PS3.18 §10.6.3.3) */
  if (soup_message_get_status (msg) == 204
      || (soup_message_get_status (msg) == 200 && g_bytes_get_size (body) == 0))
    found = g_ptr_array_new_with_free_func ((GDestroyNotify) lb_dicom_dataset_unref);
  else if (!lb_http_check_status (msg, &error))
    {
      lb_store_task_fail (task, error);
      return;
    }
  else
    {
      found = lb_dicom_json_parse_array (g_bytes_get_data (body, NULL), g_bytes_get_size (body),
                                         &error);
      if (found == NULL)
        {
          g_prefix_error (&error, "%s: ", (const char *) g_task_get_task_data (task));
          lb_store_task_fail (task, error);
          return;
        }
    }
  g_task_return_pointer (task, found, (GDestroyNotify) g_ptr_array_unref);
  g_object_unref (task);
}

void
lb_dicomweb_store_search_studies_async (LbDicomwebStore *self, const LbDicomwebStudyQuery *query,
                                        GCancellable *cancellable, GAsyncReadyCallback callback,
                                        gpointer user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  GError *error = NULL;
  g_autofree char *path = lb_dicomweb_study_query_to_path (query, &error);
  char *url;

  g_task_set_source_tag (task, lb_dicomweb_store_search_studies_async);
  if (path == NULL)
    {
      lb_store_task_fail (task, error);
      return;
    }
  url = g_strconcat (self->base_url, path, NULL);
  g_task_set_task_data (task, url, g_free);
  lb_dicomweb_request_async (self, "GET", url, LB_MEDIA_DICOM_JSON, NULL, NULL,
                             lb_dicomweb_max_json_bytes (self), cancellable, NULL, NULL,
                             on_search_done, task);
}

GPtrArray *
lb_dicomweb_store_search_studies_finish (LbDicomwebStore *self, GAsyncResult *result,
                                         GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
store_result (GObject *source, GAsyncResult *result, gpointer user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

GPtrArray *
lb_dicomweb_store_search_studies_sync (LbDicomwebStore *self, const LbDicomwebStudyQuery *query,
                                       GCancellable *cancellable, GError **error)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(GAsyncResult) result = NULL;
  GPtrArray *found;

  g_main_context_push_thread_default (context);
  lb_dicomweb_store_search_studies_async (self, query, cancellable, store_result, &result);
  while (result == NULL)
    g_main_context_iteration (context, TRUE);
  found = lb_dicomweb_store_search_studies_finish (self, result, error);
  g_main_context_pop_thread_default (context);
  return found;
}

/* ---- the tree's cap ----------------------------------------------------------------------- */

void
lb_dicomweb_store_set_tree_max_studies (LbDicomwebStore *self, guint max_studies)
{
  g_return_if_fail (LB_IS_DICOMWEB_STORE (self));
  self->tree_max_studies = max_studies;
}

guint
lb_dicomweb_store_get_tree_max_studies (LbDicomwebStore *self)
{
  g_return_val_if_fail (LB_IS_DICOMWEB_STORE (self), 0);
  return self->tree_max_studies;
}

LbStoreEntry *
lb_dicomweb_more_studies_entry (LbDicomwebStore *self, const char *parent_uri, guint shown)
{
  /* not a resource of the server: a name no UID can take (UIDs are digits and dots) */
  g_autofree char *uri = g_strconcat (parent_uri ? parent_uri : self->root_uri,
                                      "more-studies", NULL);
  g_autofree char *label = g_strdup_printf ("Only the first %u studies are listed: search the "
                                            "archive for the others", shown);
  g_autofree char *count = g_strdup_printf ("%u", shown);
  LbStoreEntry *entry = lb_store_entry_new (uri, "more-studies", LB_STORE_ENTRY_FILE);

  lb_store_entry_set_display_name (entry, label);
  lb_store_entry_set_attribute (entry, LB_DICOMWEB_MORE_STUDIES_ATTRIBUTE, count);
  return entry;
}

LbStoreEntry *
lb_dicomweb_store_study_entry (LbDicomwebStore *self, const LbDicomDataset *study)
{
  const char *uid = lb_dicom_dataset_get_string (study, LB_TAG_STUDY_INSTANCE_UID, 0);
  g_autofree char *uri = NULL;
  g_autoptr(GString) modalities = g_string_new (NULL);
  LbStoreEntry *entry;
  const char *v;

  g_return_val_if_fail (LB_IS_DICOMWEB_STORE (self), NULL);
  if (uid == NULL)
    return NULL;
  uri = lb_dicomweb_study_uri (self, uid);
  entry = lb_dicom_study_entry (uri, study);
  /* ModalitiesInStudy is multi-valued (CS, VM 1-n) */
  for (guint i = 0; (v = lb_dicom_dataset_get_string (study, LB_TAG_MODALITIES_IN_STUDY, i)); i++)
    g_string_append_printf (modalities, "%s%s", i ? ", " : "", v);
  if (modalities->len > 0)
    lb_store_entry_set_attribute (entry, "ModalitiesInStudy", modalities->str);
  if ((v = lb_dicom_dataset_get_string (study, NUMBER_OF_STUDY_RELATED_SERIES, 0)))
    lb_store_entry_set_attribute (entry, "NumberOfStudyRelatedSeries", v);
  if ((v = lb_dicom_dataset_get_string (study, LB_TAG_ACCESSION_NUMBER, 0)))
    lb_store_entry_set_attribute (entry, "AccessionNumber", v);
  return entry;
}
