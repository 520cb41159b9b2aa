/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicomweb-store"

#include "lb-dicomweb-store-private.h"

#include <string.h>

#include "lb-dicom-frame.h"
#include "lb-dicom-tags.h"
#include "lb-error.h"
#include "lb-http.h"

/* Attributes asked for on each QIDO level beyond the defaults (PS3.18 §10.6.1.2.1). */
#define STUDY_FIELDS \
  "includefield=00100010&includefield=00100020&includefield=00081030&includefield=00080020" \
  "&includefield=00080030&includefield=00080061"
#define SERIES_FIELDS \
  "includefield=0008103E&includefield=00200011&includefield=00080060&includefield=00201209"
#define INSTANCE_FIELDS "includefield=00200013&includefield=00080016"

/* ---- labels ------------------------------------------------------------------------------- */

char *
lb_dicomweb_label_patient (const char *patient_name, const char *patient_id)
{
  g_autofree char *name = lb_dicom_format_person_name (patient_name);

  if (name == NULL || *name == '\0')
    {
      g_free (name);
      name = g_strdup ("(no name)");
    }
  return g_strdup_printf ("%s (%s)", name,
                          patient_id && *patient_id ? patient_id : "no ID");
}

char *
lb_dicomweb_label_study (const LbDicomDataset *study)
{
  g_autofree char *date = lb_dicom_format_date (lb_dicom_dataset_get_string (study,
                                                                            LB_TAG_STUDY_DATE, 0));
  const char *desc = lb_dicom_dataset_get_string (study, LB_TAG_STUDY_DESCRIPTION, 0);
  const char *uid = lb_dicom_dataset_get_string (study, LB_TAG_STUDY_INSTANCE_UID, 0);

  if (date == NULL && desc == NULL)
    return g_strdup (uid ? uid : "(unidentified study)");
  return g_strdup_printf ("%s %s", date ? date : "(no date)", desc ? desc : "(no description)");
}

char *
lb_dicomweb_label_series (const LbDicomDataset *series)
{
  const char *modality = lb_dicom_dataset_get_string (series, LB_TAG_MODALITY, 0);
  const char *number = lb_dicom_dataset_get_string (series, LB_TAG_SERIES_NUMBER, 0);
  const char *desc = lb_dicom_dataset_get_string (series, LB_TAG_SERIES_DESCRIPTION, 0);
  const char *uid = lb_dicom_dataset_get_string (series, LB_TAG_SERIES_INSTANCE_UID, 0);
  GString *s;

  if (modality == NULL && number == NULL && desc == NULL)
    return g_strdup (uid ? uid : "(unidentified series)");
  s = g_string_new (modality ? modality : "(no modality)");
  if (number)
    g_string_append_printf (s, " #%s", number);
  g_string_append_printf (s, " %s", desc ? desc : "(no description)");
  return g_string_free (s, FALSE);
}

char *
lb_dicomweb_label_instance (const LbDicomDataset *instance)
{
  const char *number = lb_dicom_dataset_get_string (instance, LB_TAG_INSTANCE_NUMBER, 0);
  const char *uid = lb_dicom_dataset_get_string (instance, LB_TAG_SOP_INSTANCE_UID, 0);

  if (number)
    return g_strdup_printf ("#%s", number);
  return g_strdup (uid ? uid : "(unidentified instance)");
}

/* ---- QIDO-RS search ---------------------------------------------------------------------- */

/* QIDO-RS search, paged: @path_query is appended to the base URL with limit/offset
 * (PS3.18 §8.3.4.4), so a server that caps its answers (most PACS do) still gives the whole
 * listing; the listing caps (entries, bytes per page) apply to the total. */
typedef struct {
  char      *path_query;
  char      *url;         /* of the current page, for messages */
  guint      offset;
  guint      limit;       /* asked for on the current page */
  guint      max;         /* stop once more than this many are in; 0: no cap */
  GPtrArray *all;         /* LbDicomDataset* */
  GHashTable *seen;       /* identity keys of the data sets so far */
  GFileProgressCallback progress;
  gpointer   progress_data;
} QidoData;

static void
qido_data_free (QidoData *q)
{
  g_free (q->path_query);
  g_free (q->url);
  g_ptr_array_unref (q->all);
  g_hash_table_unref (q->seen);
  g_free (q);
}

static char *
identity_key (const LbDicomDataset *ds)
{
  const char *st = lb_dicom_dataset_get_string (ds, LB_TAG_STUDY_INSTANCE_UID, 0);
  const char *se = lb_dicom_dataset_get_string (ds, LB_TAG_SERIES_INSTANCE_UID, 0);
  const char *in = lb_dicom_dataset_get_string (ds, LB_TAG_SOP_INSTANCE_UID, 0);

  return g_strdup_printf ("%s|%s|%s", st ? st : "", se ? se : "", in ? in : "");
}

static void qido_next_page (GTask *task);

static void
on_qido_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  LbDicomwebStore *self = g_task_get_source_object (task);
  QidoData *q = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GBytes) body = lb_http_request_finish (NULL, result, &msg, &error);
  g_autoptr(GPtrArray) arr = NULL;
  guint max_entries, added = 0;

  if (body == NULL)
    {
      lb_store_task_fail (task, error);
      return;
    }
  /* 204 No Content: no (more) matches (PS3.18 §10.6.3.3) */
  if (soup_message_get_status (msg) == 204 || (soup_message_get_status (msg) == 200
                                                  && g_bytes_get_size (body) == 0))
    {
      g_task_return_pointer (task, g_ptr_array_ref (q->all), (GDestroyNotify) g_ptr_array_unref);
      g_object_unref (task);
      return;
    }
  if (!lb_http_check_status (msg, &error))
    {
      lb_store_task_fail (task, error);
      return;
    }
  arr = lb_dicom_json_parse_array (g_bytes_get_data (body, NULL), g_bytes_get_size (body),
                                   &error);
  if (arr == NULL)
    {
      g_prefix_error (&error, "%s: ", q->url);
      lb_store_task_fail (task, error);
      return;
    }
  for (guint i = 0; i < arr->len; i++)
    {
      char *key = identity_key (arr->pdata[i]);

      /* a server that ignores offset sends the same page again: keep each data set once */
      if (!g_hash_table_add (q->seen, key))
        continue;
      g_ptr_array_add (q->all, lb_dicom_dataset_ref (arr->pdata[i]));
      added++;
    }
  max_entries = self->options->max_listing_entries ? self->options->max_listing_entries
                                                   : LB_STORE_DEFAULT_MAX_LISTING_ENTRIES;
  if (q->all->len > max_entries)
    {
      lb_store_task_fail (task, g_error_new (LB_ERROR, LB_ERROR_TOO_LARGE,
                                             "%s%s: listing too large (more than %u entries)",
                                             self->base_url, q->path_query, max_entries));
      return;
    }
  /* a short page (or one that ignored the limit, or brought nothing new) is the last; with a
   * cap, one data set past it is enough to know that there are more */
  if (arr->len != q->limit || added == 0 || (q->max > 0 && q->all->len > q->max))
    {
      g_task_return_pointer (task, g_ptr_array_ref (q->all), (GDestroyNotify) g_ptr_array_unref);
      g_object_unref (task);
      return;
    }
  q->offset += arr->len;
  qido_next_page (task);
}

static void
qido_next_page (GTask *task)
{
  LbDicomwebStore *self = g_task_get_source_object (task);
  QidoData *q = g_task_get_task_data (task);

  g_free (q->url);
  q->limit = self->page_size;
  if (q->max > 0)
    q->limit = MIN (q->limit, q->max + 1 - q->all->len);
  q->url = g_strdup_printf ("%s%s%climit=%u&offset=%u", self->base_url, q->path_query,
                            strchr (q->path_query, '?') ? '&' : '?', q->limit, q->offset);
  lb_dicomweb_request_async (self, "GET", q->url, LB_MEDIA_DICOM_JSON, NULL, NULL,
                             lb_dicomweb_max_json_bytes (self), g_task_get_cancellable (task),
                             q->progress, q->progress_data, on_qido_done, task);
}

void
lb_dicomweb_qido_async (LbDicomwebStore *self, const char *path_query, GCancellable *cancellable,
                        GFileProgressCallback progress, gpointer progress_data,
                        GAsyncReadyCallback callback, gpointer user_data)
{
  lb_dicomweb_qido_capped_async (self, path_query, 0, cancellable, progress, progress_data,
                                 callback, user_data);
}

void
lb_dicomweb_qido_capped_async (LbDicomwebStore *self, const char *path_query, guint max,
                               GCancellable *cancellable, GFileProgressCallback progress,
                               gpointer progress_data, GAsyncReadyCallback callback,
                               gpointer user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  QidoData *q = g_new0 (QidoData, 1);

  g_task_set_source_tag (task, lb_dicomweb_qido_async);
  q->max = max;
  q->path_query = g_strdup (path_query);
  q->all = g_ptr_array_new_with_free_func ((GDestroyNotify) lb_dicom_dataset_unref);
  q->seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  q->progress = progress;
  q->progress_data = progress_data;
  g_task_set_task_data (task, q, (GDestroyNotify) qido_data_free);
  qido_next_page (task);
}

GPtrArray *
lb_dicomweb_qido_finish (GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

LbDicomDataset *
lb_dicomweb_find (GPtrArray *found, guint32 tag, const char *value)
{
  for (guint i = 0; i < found->len; i++)
    if (g_strcmp0 (lb_dicom_dataset_get_string (found->pdata[i], tag, 0), value) == 0)
      return found->pdata[i];
  return NULL;
}

/* ---- entries ------------------------------------------------------------------------------ */

static void
set_attr (LbStoreEntry *e, const char *key, const LbDicomDataset *ds, guint32 tag)
{
  const char *v = lb_dicom_dataset_get_string (ds, tag, 0);

  if (v)
    lb_store_entry_set_attribute (e, key, v);
}

static const char *
patient_id_of (const LbDicomDataset *ds)
{
  const char *id = lb_dicom_dataset_get_string (ds, LB_TAG_PATIENT_ID, 0);

  return id ? id : "";
}

LbStoreEntry *
lb_dicom_patient_entry (const char *uri, const char *patient_id, const LbDicomDataset *first,
                        guint n_studies)
{
  g_autofree char *label = lb_dicomweb_label_patient (
    lb_dicom_dataset_get_string (first, LB_TAG_PATIENT_NAME, 0), patient_id);
  g_autofree char *count = g_strdup_printf ("%u", n_studies);
  LbStoreEntry *entry = lb_store_entry_new (uri, patient_id, LB_STORE_ENTRY_DICOM_PATIENT);

  lb_store_entry_set_display_name (entry, label);
  lb_store_entry_set_attribute (entry, "PatientID", patient_id);
  set_attr (entry, "PatientName", first, LB_TAG_PATIENT_NAME);
  lb_store_entry_set_attribute (entry, "NumberOfStudies", count);
  return entry;
}

static LbStoreEntry *
patient_entry (LbDicomwebStore *self, const char *id, const LbDicomDataset *first, guint n_studies)
{
  g_autofree char *e = lb_dicomweb_escape (id);
  g_autofree char *uri = g_strconcat (self->tree_uri, "patients/", e, "/", NULL);

  return lb_dicom_patient_entry (uri, id, first, n_studies);
}

LbStoreEntry *
lb_dicom_study_entry (const char *uri, const LbDicomDataset *ds)
{
  const char *uid = lb_dicom_dataset_get_string (ds, LB_TAG_STUDY_INSTANCE_UID, 0);
  g_autofree char *label = NULL;
  LbStoreEntry *entry;

  if (uid == NULL)
    return NULL;
  label = lb_dicomweb_label_study (ds);
  entry = lb_store_entry_new (uri, uid, LB_STORE_ENTRY_DICOM_STUDY);
  lb_store_entry_set_display_name (entry, label);
  lb_store_entry_set_attribute (entry, "StudyInstanceUID", uid);
  /* always present: "" is the (real) group of studies without a patient ID */
  lb_store_entry_set_attribute (entry, "PatientID", patient_id_of (ds));
  set_attr (entry, "PatientName", ds, LB_TAG_PATIENT_NAME);
  set_attr (entry, "StudyDate", ds, LB_TAG_STUDY_DATE);
  set_attr (entry, "StudyDescription", ds, LB_TAG_STUDY_DESCRIPTION);
  set_attr (entry, "NumberOfStudyRelatedInstances", ds, LB_TAG_NUMBER_OF_STUDY_INSTANCES);
  return entry;
}

static LbStoreEntry *
study_entry (LbDicomwebStore *self, const LbDicomDataset *ds)
{
  const char *uid = lb_dicom_dataset_get_string (ds, LB_TAG_STUDY_INSTANCE_UID, 0);
  g_autofree char *uri = uid ? lb_dicomweb_study_uri (self, uid) : NULL;

  return uid ? lb_dicom_study_entry (uri, ds) : NULL;
}

LbStoreEntry *
lb_dicom_series_entry (const char *uri, const char *study, const LbDicomDataset *ds)
{
  const char *uid = lb_dicom_dataset_get_string (ds, LB_TAG_SERIES_INSTANCE_UID, 0);
  g_autofree char *label = NULL;
  LbStoreEntry *entry;

  if (uid == NULL)
    return NULL;
  label = lb_dicomweb_label_series (ds);
  entry = lb_store_entry_new (uri, uid, LB_STORE_ENTRY_DICOM_SERIES);
  lb_store_entry_set_display_name (entry, label);
  lb_store_entry_set_attribute (entry, "StudyInstanceUID", study);
  lb_store_entry_set_attribute (entry, "SeriesInstanceUID", uid);
  set_attr (entry, "Modality", ds, LB_TAG_MODALITY);
  set_attr (entry, "SeriesNumber", ds, LB_TAG_SERIES_NUMBER);
  set_attr (entry, "SeriesDescription", ds, LB_TAG_SERIES_DESCRIPTION);
  set_attr (entry, "NumberOfSeriesRelatedInstances", ds, LB_TAG_NUMBER_OF_SERIES_INSTANCES);
  return entry;
}

static LbStoreEntry *
series_entry (LbDicomwebStore *self, const char *study, const LbDicomDataset *ds)
{
  const char *uid = lb_dicom_dataset_get_string (ds, LB_TAG_SERIES_INSTANCE_UID, 0);
  g_autofree char *uri = uid ? lb_dicomweb_series_uri (self, study, uid) : NULL;

  return uid ? lb_dicom_series_entry (uri, study, ds) : NULL;
}

LbStoreEntry *
lb_dicom_instance_entry (const char *uri, const char *study, const char *series,
                         const LbDicomDataset *ds)
{
  const char *uid = lb_dicom_dataset_get_string (ds, LB_TAG_SOP_INSTANCE_UID, 0);
  g_autofree char *label = NULL;
  LbStoreEntry *entry;

  if (uid == NULL)
    return NULL;
  label = lb_dicomweb_label_instance (ds);
  entry = lb_store_entry_new (uri, uid, LB_STORE_ENTRY_DICOM_INSTANCE);
  lb_store_entry_set_display_name (entry, label);
  lb_store_entry_set_attribute (entry, "StudyInstanceUID", study);
  lb_store_entry_set_attribute (entry, "SeriesInstanceUID", series);
  lb_store_entry_set_attribute (entry, "SOPInstanceUID", uid);
  set_attr (entry, "SOPClassUID", ds, LB_TAG_SOP_CLASS_UID);
  set_attr (entry, "InstanceNumber", ds, LB_TAG_INSTANCE_NUMBER);
  return entry;
}

LbStoreEntry *
lb_dicomweb_instance_entry (LbDicomwebStore *self, const char *study, const char *series,
                            const LbDicomDataset *ds)
{
  const char *uid = lb_dicom_dataset_get_string (ds, LB_TAG_SOP_INSTANCE_UID, 0);
  g_autofree char *uri = NULL;
  LbStoreEntry *entry;

  if (uid == NULL)
    return NULL;
  uri = lb_dicomweb_instance_uri (self, study, series, uid);
  entry = lb_dicom_instance_entry (uri, study, series, ds);
  /* what read() delivers */
  lb_store_entry_set_content_type (entry, "image/png");
  return entry;
}

/* Orders by the number in the attribute named @key (numerically, missing last), then by name. */
int
lb_dicom_compare_numbered (gconstpointer a, gconstpointer b, gpointer key)
{
  LbStoreEntry *x = *(LbStoreEntry *const *) a, *y = *(LbStoreEntry *const *) b;
  const char *na = lb_store_entry_get_attribute (x, key);
  const char *nb = lb_store_entry_get_attribute (y, key);
  gboolean ha = na != NULL, hb = nb != NULL;

  if (ha != hb)
    return ha ? -1 : 1;
  if (ha)
    {
      double da = g_ascii_strtod (na, NULL), db = g_ascii_strtod (nb, NULL);

      if (da != db)
        return da < db ? -1 : 1;
    }
  return g_strcmp0 (lb_store_entry_get_name (x), lb_store_entry_get_name (y));
}

static int
compare_patients (gconstpointer a, gconstpointer b)
{
  LbStoreEntry *x = *(LbStoreEntry *const *) a, *y = *(LbStoreEntry *const *) b;

  return g_utf8_collate (lb_store_entry_get_display_name (x), lb_store_entry_get_display_name (y));
}

static int
compare_studies (gconstpointer a, gconstpointer b)
{
  LbStoreEntry *x = *(LbStoreEntry *const *) a, *y = *(LbStoreEntry *const *) b;
  int c = g_strcmp0 (lb_store_entry_get_attribute (x, "StudyDate"),
                     lb_store_entry_get_attribute (y, "StudyDate"));

  return c ? c : g_strcmp0 (lb_store_entry_get_name (x), lb_store_entry_get_name (y));
}

/* Groups studies by PatientID (QIDO-RS has no patient level). */
static GPtrArray *
group_patients (LbDicomwebStore *self, GPtrArray *studies)
{
  g_autoptr(GHashTable) first = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) count = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) order = g_ptr_array_new ();
  GPtrArray *entries = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < studies->len; i++)
    {
      const char *id = patient_id_of (studies->pdata[i]);

      if (!g_hash_table_contains (first, id))
        {
          g_hash_table_insert (first, (gpointer) id, studies->pdata[i]);
          g_ptr_array_add (order, (gpointer) id);
        }
      g_hash_table_insert (count, (gpointer) id,
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (count, id)) + 1));
    }
  for (guint i = 0; i < order->len; i++)
    g_ptr_array_add (entries,
                     patient_entry (self, order->pdata[i],
                                    g_hash_table_lookup (first, order->pdata[i]),
                                    GPOINTER_TO_UINT (g_hash_table_lookup (count,
                                                                           order->pdata[i]))));
  g_ptr_array_sort (entries, compare_patients);
  return entries;
}

static void
add_entry (GPtrArray *entries, LbStoreEntry *e)
{
  if (e)
    g_ptr_array_add (entries, e);
}

/* Entries of one level from a QIDO result (patients: grouped; others: one per data set). */
static GPtrArray *
entries_for (LbDicomwebStore *self, const LbDicomwebLoc *loc, GPtrArray *found)
{
  GPtrArray *entries;

  if (loc->level == LB_DICOMWEB_ROOT)
    return group_patients (self, found);
  entries = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < found->len; i++)
    {
      LbDicomDataset *ds = found->pdata[i];

      switch (loc->level)
        {
        case LB_DICOMWEB_PATIENT:
          /* exact match: QIDO matching may be case-insensitive or treat * and ? as wildcards */
          if (strcmp (patient_id_of (ds), loc->patient_id) == 0)
            add_entry (entries, study_entry (self, ds));
          break;
        case LB_DICOMWEB_STUDY:
          add_entry (entries, series_entry (self, loc->study, ds));
          break;
        case LB_DICOMWEB_SERIES:
          add_entry (entries, lb_dicomweb_instance_entry (self, loc->study, loc->series, ds));
          break;
        case LB_DICOMWEB_ROOT:
        case LB_DICOMWEB_INSTANCE:
        default:
          g_assert_not_reached ();
        }
    }
  if (loc->level == LB_DICOMWEB_PATIENT)
    g_ptr_array_sort (entries, compare_studies);
  else
    g_ptr_array_sort_with_data (entries, lb_dicom_compare_numbered,
                                (gpointer) (loc->level == LB_DICOMWEB_STUDY ? "SeriesNumber"
                                                                            : "InstanceNumber"));
  return entries;
}

/* The QIDO query listing the children of @loc. */
static char *
children_query (const LbDicomwebLoc *loc)
{
  g_autofree char *a = NULL, *b = NULL;

  switch (loc->level)
    {
    case LB_DICOMWEB_ROOT:
      return g_strdup ("/studies?" STUDY_FIELDS);
    case LB_DICOMWEB_PATIENT:
      if (*loc->patient_id == '\0')
        return g_strdup ("/studies?" STUDY_FIELDS);
      a = lb_dicomweb_escape (loc->patient_id);
      return g_strdup_printf ("/studies?PatientID=%s&" STUDY_FIELDS, a);
    case LB_DICOMWEB_STUDY:
      a = lb_dicomweb_escape (loc->study);
      return g_strdup_printf ("/studies/%s/series?" SERIES_FIELDS, a);
    case LB_DICOMWEB_SERIES:
      a = lb_dicomweb_escape (loc->study);
      b = lb_dicomweb_escape (loc->series);
      return g_strdup_printf ("/studies/%s/series/%s/instances?" INSTANCE_FIELDS, a, b);
    case LB_DICOMWEB_INSTANCE:
    default:
      return NULL;
    }
}

/* ---- list --------------------------------------------------------------------------------- */

/* The levels that list every study of the archive (the root, and the patient without an ID,
 * which QIDO-RS cannot ask for) stop at the store's tree cap: a PACS of 100 000 studies is
 * searched (lb-dicomweb-search.h), never listed whole. 0: no cap. */
static guint
tree_cap (LbDicomwebStore *self, const LbDicomwebLoc *loc)
{
  if (loc->level == LB_DICOMWEB_ROOT
      || (loc->level == LB_DICOMWEB_PATIENT && *loc->patient_id == '\0'))
    return self->tree_max_studies;
  return 0;
}

static void
on_list_found (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  LbDicomwebStore *self = g_task_get_source_object (task);
  GError *error = NULL;
  g_autoptr(GPtrArray) found = lb_dicomweb_qido_finish (result, &error);

  LbDicomwebLoc *loc = g_task_get_task_data (task);
  GPtrArray *entries;
  guint max = tree_cap (self, loc);
  gboolean more;

  if (found == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  /* more studies than the tree lists: the first ones, and a row that says so */
  more = max > 0 && found->len > max;
  if (more)
    g_ptr_array_set_size (found, max);
  entries = entries_for (self, loc, found);
  if (more)
    g_ptr_array_add (entries, lb_dicomweb_more_studies_entry (self, loc->uri, max));
  g_task_return_pointer (task, entries, (GDestroyNotify) g_ptr_array_unref);
  g_object_unref (task);
}

static void
lb_dicomweb_list_async (LbStore *store, const char *uri, GCancellable *cancellable,
                        GFileProgressCallback progress, gpointer progress_data,
                        GAsyncReadyCallback callback, gpointer user_data)
{
  LbDicomwebStore *self = LB_DICOMWEB_STORE (store);
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  LbDicomwebLoc *loc = g_new0 (LbDicomwebLoc, 1);
  g_autofree char *query = NULL;

  g_task_set_source_tag (task, lb_dicomweb_list_async);
  g_task_set_task_data (task, loc, (GDestroyNotify) lb_dicomweb_loc_free);
  if (!lb_dicomweb_task_loc (task, uri, FALSE, loc))
    return;
  if (loc->level == LB_DICOMWEB_INSTANCE)
    {
      lb_store_task_fail (task, g_error_new (LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                                             "%s is an instance, not a container", uri));
      return;
    }
  query = children_query (loc);
  /* one more than the cap: enough to know that the archive holds more */
  lb_dicomweb_qido_capped_async (self, query, tree_cap (self, loc), cancellable, progress,
                                 progress_data, on_list_found, task);
}

/* ---- stat --------------------------------------------------------------------------------- */

static void
on_stat_found (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  LbDicomwebStore *self = g_task_get_source_object (task);
  LbDicomwebLoc *loc = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(GPtrArray) found = lb_dicomweb_qido_finish (result, &error);
  LbStoreEntry *entry = NULL;
  LbDicomDataset *ds;
  static const char *const what[] = { "store", "patient", "study", "series", "instance" };

  if (found == NULL)
    {
      lb_store_task_fail (task, error);
      return;
    }
  switch (loc->level)
    {
    case LB_DICOMWEB_PATIENT:
      {
        g_autoptr(GPtrArray) mine = g_ptr_array_new ();

        for (guint i = 0; i < found->len; i++)
          if (strcmp (patient_id_of (found->pdata[i]), loc->patient_id) == 0)
            g_ptr_array_add (mine, found->pdata[i]);
        if (mine->len > 0)
          entry = patient_entry (self, loc->patient_id, mine->pdata[0], mine->len);
      }
      break;
    case LB_DICOMWEB_STUDY:
      if ((ds = lb_dicomweb_find (found, LB_TAG_STUDY_INSTANCE_UID, loc->study)))
        entry = study_entry (self, ds);
      break;
    case LB_DICOMWEB_SERIES:
      if ((ds = lb_dicomweb_find (found, LB_TAG_SERIES_INSTANCE_UID, loc->series)))
        entry = series_entry (self, loc->study, ds);
      break;
    case LB_DICOMWEB_INSTANCE:
      if ((ds = lb_dicomweb_find (found, LB_TAG_SOP_INSTANCE_UID, loc->instance)))
        entry = lb_dicomweb_instance_entry (self, loc->study, loc->series, ds);
      break;
    case LB_DICOMWEB_ROOT:
    default:
      g_assert_not_reached ();
    }
  if (entry == NULL)
    g_task_return_new_error (task, LB_ERROR, LB_ERROR_NOT_FOUND, "%s: no such %s on the server",
                             loc->uri, what[loc->level]);
  else
    g_task_return_pointer (task, entry, g_object_unref);
  g_object_unref (task);
}

static void
lb_dicomweb_stat_async (LbStore *store, const char *uri, GCancellable *cancellable,
                        GAsyncReadyCallback callback, gpointer user_data)
{
  LbDicomwebStore *self = LB_DICOMWEB_STORE (store);
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  LbDicomwebLoc *loc = g_new0 (LbDicomwebLoc, 1);
  g_autofree char *query = NULL, *a = NULL, *b = NULL, *c = NULL;

  g_task_set_source_tag (task, lb_dicomweb_stat_async);
  g_task_set_task_data (task, loc, (GDestroyNotify) lb_dicomweb_loc_free);
  if (!lb_dicomweb_task_loc (task, uri, FALSE, loc))
    return;
  switch (loc->level)
    {
    case LB_DICOMWEB_ROOT:
      {
        LbStoreEntry *e = lb_store_entry_new (self->tree_uri, self->base_url,
                                              LB_STORE_ENTRY_DIRECTORY);

        g_task_return_pointer (task, e, g_object_unref);
        g_object_unref (task);
        return;
      }
    case LB_DICOMWEB_PATIENT:
      query = children_query (loc);
      break;
    case LB_DICOMWEB_STUDY:
      a = lb_dicomweb_escape (loc->study);
      query = g_strdup_printf ("/studies?StudyInstanceUID=%s&" STUDY_FIELDS, a);
      break;
    case LB_DICOMWEB_SERIES:
      a = lb_dicomweb_escape (loc->study);
      b = lb_dicomweb_escape (loc->series);
      query = g_strdup_printf ("/studies/%s/series?SeriesInstanceUID=%s&" SERIES_FIELDS, a, b);
      break;
    case LB_DICOMWEB_INSTANCE:
      a = lb_dicomweb_escape (loc->study);
      b = lb_dicomweb_escape (loc->series);
      c = lb_dicomweb_escape (loc->instance);
      query = g_strdup_printf ("/studies/%s/series/%s/instances?SOPInstanceUID=%s&"
                               INSTANCE_FIELDS, a, b, c);
      break;
    default:
      g_assert_not_reached ();
    }
  lb_dicomweb_qido_async (self, query, cancellable, NULL, NULL, on_stat_found, task);
}

void
lb_dicomweb_qido_iface_init (LbStoreInterface *iface)
{
  iface->list_async = lb_dicomweb_list_async;
  iface->stat_async = lb_dicomweb_stat_async;
}
