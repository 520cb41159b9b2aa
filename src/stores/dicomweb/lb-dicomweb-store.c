/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicomweb-store"

#include "config.h"

#include "lb-dicomweb-store.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lb-dicom-frame.h"
#include "lb-dicom-multipart.h"
#include "lb-dicom-writer.h"
#include "lb-error.h"
#include "lb-http.h"
#include "lb-image-loader.h"
#include "lb-png.h"

#define MEDIA_DICOM_JSON "application/dicom+json"
/* Frames are first asked for as stored ("*"): uncompressed ones then need no transcoding (which
 * costs the server time, and Orthanc's GDCM plugin has been seen to crash doing it for implicit
 * VR files). Compressed ones are asked for again as Explicit VR Little Endian, which servers
 * that can transcode (Orthanc with GDCM: JPEG 2000, JPEG-LS, …) deliver. */
#define ACCEPT_FRAME_AS_STORED \
  "multipart/related; type=\"application/octet-stream\"; transfer-syntax=*"
#define ACCEPT_FRAME \
  "multipart/related; type=\"application/octet-stream\"; transfer-syntax=" LB_DICOM_TS_EXPLICIT_LE

/* Attributes asked for on each QIDO level beyond the defaults (PS3.18 §10.6.1.2.1). */
#define STUDY_FIELDS \
  "includefield=00100010&includefield=00100020&includefield=00081030&includefield=00080020" \
  "&includefield=00080030&includefield=00080061"
#define SERIES_FIELDS \
  "includefield=0008103E&includefield=00200011&includefield=00080060&includefield=00201209"
#define INSTANCE_FIELDS "includefield=00200013&includefield=00080016"

struct _LbDicomwebStore {
  GObject parent_instance;

  /* Owned */
  char           *root_uri;  /* the store URI as opened, ending in '/' (what NULL lists) */
  char           *tree_uri;  /* the DICOMweb root in the store's scheme, ending in '/': every
                              * entry URI is tree_uri + the DICOMweb path of the resource */
  char           *base_url;  /* http(s) DICOMweb root without the trailing '/' */
  LbStoreOptions *options;
  SoupSession    *session;
  guint           page_size;  /* QIDO results asked for per request */
};

static void lb_dicomweb_store_iface_init (LbStoreInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (LbDicomwebStore, lb_dicomweb_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (LB_TYPE_STORE, lb_dicomweb_store_iface_init))

static void
lb_dicomweb_store_finalize (GObject *object)
{
  LbDicomwebStore *self = LB_DICOMWEB_STORE (object);

  g_free (self->root_uri);
  g_free (self->tree_uri);
  g_free (self->base_url);
  g_clear_pointer (&self->options, lb_store_options_unref);
  g_clear_object (&self->session);
  G_OBJECT_CLASS (lb_dicomweb_store_parent_class)->finalize (object);
}

static void
lb_dicomweb_store_class_init (LbDicomwebStoreClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = lb_dicomweb_store_finalize;
}

static void
lb_dicomweb_store_init (LbDicomwebStore *self)
{
  self->page_size = LB_DICOMWEB_DEFAULT_PAGE_SIZE;
}

void
lb_dicomweb_store_set_page_size (LbDicomwebStore *self, guint page_size)
{
  g_return_if_fail (LB_IS_DICOMWEB_STORE (self));
  g_return_if_fail (page_size > 0);
  self->page_size = page_size;
}

LbStore *
lb_dicomweb_store_new (const char *uri, LbStoreOptions *options, GError **error)
{
  g_autoptr(LbDicomwebStore) self = NULL;
  g_autoptr(GUri) parsed = NULL;
  g_autoptr(GError) local = NULL;
  const char *scheme, *http_scheme;
  g_autofree char *base = NULL, *root = NULL, *root_path = NULL, *below = NULL;
  gsize len;

  g_return_val_if_fail (uri != NULL, NULL);
  parsed = g_uri_parse (uri, G_URI_FLAGS_ENCODED | G_URI_FLAGS_SCHEME_NORMALIZE, &local);
  if (parsed == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT, "%s: not a valid URL: %s", uri,
                   local->message);
      return NULL;
    }
  scheme = g_uri_get_scheme (parsed);
  if (g_ascii_strcasecmp (scheme, "dicomweb+http") == 0 || g_ascii_strcasecmp (scheme, "http") == 0)
    http_scheme = "http";
  else if (g_ascii_strcasecmp (scheme, "dicomweb+https") == 0
           || g_ascii_strcasecmp (scheme, "https") == 0)
    http_scheme = "https";
  else
    {
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                   "%s: a DICOMweb store needs a dicomweb+http(s):// or http(s):// URL", uri);
      return NULL;
    }
  if (g_uri_get_host (parsed) == NULL || *g_uri_get_host (parsed) == '\0')
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT, "%s: no host in the URL", uri);
      return NULL;
    }
  if (g_uri_get_query (parsed) != NULL || g_uri_get_fragment (parsed) != NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "%s: a DICOMweb root URL takes no query or fragment", uri);
      return NULL;
    }

  self = g_object_new (LB_TYPE_DICOMWEB_STORE, NULL);
  self->options = options ? lb_store_options_ref (options) : lb_store_options_new ();
  self->session = lb_http_session_new (self->options, error);
  if (self->session == NULL)
    return NULL;

  /* A URI below the DICOMweb root (…/studies/x/series/y/, as when a caller opens the parent
   * of an instance) opens the whole server: the root is the path before the first "studies" or
   * "patients" segment. (A DICOMweb root whose own path has such a segment cannot be used.) */
  {
    g_auto(GStrv) segs = g_strsplit (g_uri_get_path (parsed), "/", -1);
    GString *path = g_string_new (NULL);
    guint i;

    for (i = 0; segs[i]; i++)
      {
        if (strcmp (segs[i], "studies") == 0 || strcmp (segs[i], "patients") == 0)
          break;
        if (*segs[i] == '\0')
          continue;
        g_string_append_c (path, '/');
        g_string_append (path, segs[i]);
      }
    root_path = g_string_free (path, FALSE);
    /* the part below the DICOMweb root: "studies/x/series/y" (no trailing slash) */
    below = segs[i] ? g_strjoinv ("/", segs + i) : g_strdup ("");
    g_strchomp (below);
    while (*below && below[strlen (below) - 1] == '/')
      below[strlen (below) - 1] = '\0';
  }
  base = g_uri_join (G_URI_FLAGS_ENCODED, http_scheme, g_uri_get_userinfo (parsed),
                     g_uri_get_host (parsed), g_uri_get_port (parsed), root_path, NULL, NULL);
  len = strlen (base);
  while (len > 0 && base[len - 1] == '/')
    base[--len] = '\0';
  self->base_url = g_steal_pointer (&base);
  root = g_uri_join (G_URI_FLAGS_ENCODED, scheme, g_uri_get_userinfo (parsed),
                     g_uri_get_host (parsed), g_uri_get_port (parsed), root_path, NULL, NULL);
  self->tree_uri = g_strconcat (root, "/", NULL);
  self->root_uri = *below ? g_strconcat (self->tree_uri, below, "/", NULL)
                          : g_strdup (self->tree_uri);
  return LB_STORE (g_steal_pointer (&self));
}

void
lb_dicomweb_register (void)
{
  lb_store_register_backend ("dicomweb", lb_dicomweb_store_new);
  lb_store_register_backend ("dicomweb+http", lb_dicomweb_store_new);
  lb_store_register_backend ("dicomweb+https", lb_dicomweb_store_new);
}

const char *
lb_dicomweb_store_get_base_url (LbDicomwebStore *self)
{
  g_return_val_if_fail (LB_IS_DICOMWEB_STORE (self), NULL);
  return self->base_url;
}

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

/* ---- locations ---------------------------------------------------------------------------- */

typedef enum {
  LEVEL_ROOT,
  LEVEL_PATIENT,
  LEVEL_STUDY,
  LEVEL_SERIES,
  LEVEL_INSTANCE,
} Level;

typedef struct {
  Level level;
  char *patient_id;  /* LEVEL_PATIENT */
  char *study;
  char *series;
  char *instance;
  char *extra;       /* a name below a study or series (write targets) */
  char *uri;         /* as given */
} Loc;

static void
loc_clear (Loc *loc)
{
  g_clear_pointer (&loc->patient_id, g_free);
  g_clear_pointer (&loc->study, g_free);
  g_clear_pointer (&loc->series, g_free);
  g_clear_pointer (&loc->instance, g_free);
  g_clear_pointer (&loc->extra, g_free);
  g_clear_pointer (&loc->uri, g_free);
}

static void
loc_free (Loc *loc)
{
  loc_clear (loc);
  g_free (loc);
}

/* A path of @depth segments names @level itself; with @allow_extra, one more segment (a
 * sub-resource such as "metadata") is kept in loc->extra at that level. FALSE: the path goes
 * on, or is too long for this level. */
static gboolean
loc_ends_at (Loc *loc, char **segs, guint n, guint depth, Level level, gboolean allow_extra)
{
  if (n == depth)
    {
      loc->level = level;
      return TRUE;
    }
  if (n == depth + 1 && allow_extra)
    {
      loc->level = level;
      loc->extra = g_strdup (segs[depth]);
      return TRUE;
    }
  return FALSE;
}

/* Splits @uri (inside the store) into its DICOMweb level and identifiers. */
static gboolean
parse_location (LbDicomwebStore *self, const char *uri, gboolean allow_extra, Loc *loc,
                GError **error)
{
  g_auto(GStrv) segs = NULL;
  const char *rel;
  guint n;

  memset (loc, 0, sizeof *loc);
  if (uri == NULL)
    uri = self->root_uri;
  loc->uri = g_strdup (uri);
  if (uri == NULL || strcmp (uri, self->tree_uri) == 0
      || (strlen (uri) + 1 == strlen (self->tree_uri)
          && strncmp (uri, self->tree_uri, strlen (uri)) == 0))
    {
      loc->level = LEVEL_ROOT;
      return TRUE;
    }
  if (!g_str_has_prefix (uri, self->tree_uri))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT, "%s is not inside the store %s",
                   uri, self->tree_uri);
      return FALSE;
    }
  rel = uri + strlen (self->tree_uri);
  if (strpbrk (rel, "?#") != NULL)
    goto bad;
  segs = g_strsplit (rel, "/", -1);
  n = g_strv_length (segs);
  if (n > 0 && *segs[n - 1] == '\0')
    {
      g_free (segs[n - 1]);
      segs[--n] = NULL;
    }
  for (guint i = 0; i < n; i++)
    {
      char *dec = g_uri_unescape_string (segs[i], NULL);

      if (dec == NULL)
        goto bad;
      g_free (segs[i]);
      segs[i] = dec;
      /* only a patient ID may be empty */
      if (*dec == '\0' && !(i == 1 && strcmp (segs[0], "patients") == 0))
        goto bad;
    }

  if (n == 2 && strcmp (segs[0], "patients") == 0)
    {
      loc->level = LEVEL_PATIENT;
      loc->patient_id = g_strdup (segs[1]);
      return TRUE;
    }
  if (n >= 2 && strcmp (segs[0], "studies") == 0)
    {
      loc->study = g_strdup (segs[1]);
      if (loc_ends_at (loc, segs, n, 2, LEVEL_STUDY, allow_extra))
        return TRUE;
      if (n >= 4 && strcmp (segs[2], "series") == 0)
        {
          loc->series = g_strdup (segs[3]);
          if (loc_ends_at (loc, segs, n, 4, LEVEL_SERIES, allow_extra))
            return TRUE;
          if (n == 6 && strcmp (segs[4], "instances") == 0)
            {
              loc->level = LEVEL_INSTANCE;
              loc->instance = g_strdup (segs[5]);
              return TRUE;
            }
        }
    }

bad:
  loc_clear (loc);
  g_set_error (error, LB_ERROR, LB_ERROR_NOT_FOUND,
               "%s: not a DICOMweb patient, study, series or instance of this store", uri);
  return FALSE;
}

static char *
esc (const char *s)
{
  return g_uri_escape_string (s, NULL, FALSE);
}

static char *
study_uri (LbDicomwebStore *self, const char *study)
{
  g_autofree char *e = esc (study);

  return g_strconcat (self->tree_uri, "studies/", e, "/", NULL);
}

static char *
series_uri (LbDicomwebStore *self, const char *study, const char *series)
{
  g_autofree char *s = study_uri (self, study);
  g_autofree char *e = esc (series);

  return g_strconcat (s, "series/", e, "/", NULL);
}

static char *
instance_uri (LbDicomwebStore *self, const char *study, const char *series, const char *instance)
{
  g_autofree char *s = series_uri (self, study, series);
  g_autofree char *e = esc (instance);

  return g_strconcat (s, "instances/", e, NULL);
}

/* The DICOMweb URL of an instance resource (…/studies/x/series/y/instances/z). */
static char *
instance_url (LbDicomwebStore *self, const Loc *loc)
{
  g_autofree char *st = esc (loc->study), *se = esc (loc->series), *in = esc (loc->instance);

  return g_strdup_printf ("%s/studies/%s/series/%s/instances/%s", self->base_url, st, se, in);
}

/* ---- HTTP --------------------------------------------------------------------------------- */

/* Sends one request with the store's options and reads the whole response body (capped at
 * @max_bytes, 0 = no cap) with lb_http_request_async(); finish with lb_http_request_finish().
 * The status is not checked: the caller decides (STOW failures carry a body to read). */
static void
request_async (LbDicomwebStore       *self,
               const char            *method,
               const char            *url,
               const char            *accept,
               GBytes                *body,
               const char            *body_type,
               guint64                max_bytes,
               GCancellable          *cancellable,
               GFileProgressCallback  progress,
               gpointer               progress_data,
               GAsyncReadyCallback    callback,
               gpointer               user_data)
{
  GError *error = NULL;
  g_autoptr(SoupMessage) msg = lb_http_message_new (method, url, self->options, &error);

  if (msg == NULL)
    {
      g_task_report_error (self, callback, user_data, request_async, error);
      return;
    }
  if (accept)
    soup_message_headers_replace (soup_message_get_request_headers (msg), "Accept", accept);
  if (body)
    soup_message_set_request_body_from_bytes (msg, body_type, body);
  lb_http_request_async (self->session, msg, self->options->max_retries, max_bytes, cancellable,
                         progress, progress_data, callback, user_data);
}

/* QIDO-RS search, paged: @path_query is appended to the base URL with limit/offset
 * (PS3.18 §8.3.4.4), so a server that caps its answers (most PACS do) still gives the whole
 * listing; the listing caps (entries, bytes per page) apply to the total. */
typedef struct {
  char      *path_query;
  char      *url;         /* of the current page, for messages */
  guint      offset;
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
      g_task_return_error (task, error);
      g_object_unref (task);
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
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  arr = lb_dicom_json_parse_array (g_bytes_get_data (body, NULL), g_bytes_get_size (body),
                                   &error);
  if (arr == NULL)
    {
      g_prefix_error (&error, "%s: ", q->url);
      g_task_return_error (task, error);
      g_object_unref (task);
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
      g_task_return_new_error (task, LB_ERROR, LB_ERROR_TOO_LARGE,
                               "%s%s: listing too large (more than %u entries)",
                               self->base_url, q->path_query, max_entries);
      g_object_unref (task);
      return;
    }
  /* a short page (or one that ignored the limit, or brought nothing new) is the last */
  if (arr->len != self->page_size || added == 0)
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
  guint64 cap = self->options->max_listing_bytes ? self->options->max_listing_bytes
                                                 : LB_STORE_DEFAULT_MAX_LISTING_BYTES;

  g_free (q->url);
  q->url = g_strdup_printf ("%s%s%climit=%u&offset=%u", self->base_url, q->path_query,
                            strchr (q->path_query, '?') ? '&' : '?', self->page_size, q->offset);
  request_async (self, "GET", q->url, MEDIA_DICOM_JSON, NULL, NULL, cap,
                 g_task_get_cancellable (task), q->progress, q->progress_data, on_qido_done,
                 task);
}

static void
qido_async (LbDicomwebStore       *self,
            const char            *path_query,
            GCancellable          *cancellable,
            GFileProgressCallback  progress,
            gpointer               progress_data,
            GAsyncReadyCallback    callback,
            gpointer               user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  QidoData *q = g_new0 (QidoData, 1);

  g_task_set_source_tag (task, qido_async);
  q->path_query = g_strdup (path_query);
  q->all = g_ptr_array_new_with_free_func ((GDestroyNotify) lb_dicom_dataset_unref);
  q->seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  q->progress = progress;
  q->progress_data = progress_data;
  g_task_set_task_data (task, q, (GDestroyNotify) qido_data_free);
  qido_next_page (task);
}

static GPtrArray *
qido_finish (GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
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

static LbStoreEntry *
patient_entry (LbDicomwebStore *self, const char *id, const LbDicomDataset *first, guint n_studies)
{
  g_autofree char *e = esc (id);
  g_autofree char *uri = g_strconcat (self->tree_uri, "patients/", e, "/", NULL);
  g_autofree char *label = lb_dicomweb_label_patient (
    lb_dicom_dataset_get_string (first, LB_TAG_PATIENT_NAME, 0), id);
  g_autofree char *count = g_strdup_printf ("%u", n_studies);
  LbStoreEntry *entry = lb_store_entry_new (uri, id, LB_STORE_ENTRY_DICOM_PATIENT);

  lb_store_entry_set_display_name (entry, label);
  lb_store_entry_set_attribute (entry, "PatientID", id);
  set_attr (entry, "PatientName", first, LB_TAG_PATIENT_NAME);
  lb_store_entry_set_attribute (entry, "NumberOfStudies", count);
  return entry;
}

static LbStoreEntry *
study_entry (LbDicomwebStore *self, const LbDicomDataset *ds)
{
  const char *uid = lb_dicom_dataset_get_string (ds, LB_TAG_STUDY_INSTANCE_UID, 0);
  g_autofree char *uri = NULL, *label = NULL;
  LbStoreEntry *entry;

  if (uid == NULL)
    return NULL;
  uri = study_uri (self, uid);
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
series_entry (LbDicomwebStore *self, const char *study, const LbDicomDataset *ds)
{
  const char *uid = lb_dicom_dataset_get_string (ds, LB_TAG_SERIES_INSTANCE_UID, 0);
  g_autofree char *uri = NULL, *label = NULL;
  LbStoreEntry *entry;

  if (uid == NULL)
    return NULL;
  uri = series_uri (self, study, uid);
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
instance_entry (LbDicomwebStore *self, const char *study, const char *series,
                const LbDicomDataset *ds)
{
  const char *uid = lb_dicom_dataset_get_string (ds, LB_TAG_SOP_INSTANCE_UID, 0);
  g_autofree char *uri = NULL, *label = NULL;
  LbStoreEntry *entry;

  if (uid == NULL)
    return NULL;
  uri = instance_uri (self, study, series, uid);
  label = lb_dicomweb_label_instance (ds);
  entry = lb_store_entry_new (uri, uid, LB_STORE_ENTRY_DICOM_INSTANCE);
  lb_store_entry_set_display_name (entry, label);
  /* what read() delivers */
  lb_store_entry_set_content_type (entry, "image/png");
  lb_store_entry_set_attribute (entry, "StudyInstanceUID", study);
  lb_store_entry_set_attribute (entry, "SeriesInstanceUID", series);
  lb_store_entry_set_attribute (entry, "SOPInstanceUID", uid);
  set_attr (entry, "SOPClassUID", ds, LB_TAG_SOP_CLASS_UID);
  set_attr (entry, "InstanceNumber", ds, LB_TAG_INSTANCE_NUMBER);
  return entry;
}

/* Orders: numbers numerically (missing last), then the text. */
static int
compare_numbers_then (const char *na, const char *nb, const char *ta, const char *tb)
{
  gboolean ha = na != NULL, hb = nb != NULL;

  if (ha != hb)
    return ha ? -1 : 1;
  if (ha)
    {
      double a = g_ascii_strtod (na, NULL), b = g_ascii_strtod (nb, NULL);

      if (a != b)
        return a < b ? -1 : 1;
    }
  return g_strcmp0 (ta, tb);
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

static int
compare_series (gconstpointer a, gconstpointer b)
{
  LbStoreEntry *x = *(LbStoreEntry *const *) a, *y = *(LbStoreEntry *const *) b;

  return compare_numbers_then (lb_store_entry_get_attribute (x, "SeriesNumber"),
                               lb_store_entry_get_attribute (y, "SeriesNumber"),
                               lb_store_entry_get_name (x), lb_store_entry_get_name (y));
}

static int
compare_instances (gconstpointer a, gconstpointer b)
{
  LbStoreEntry *x = *(LbStoreEntry *const *) a, *y = *(LbStoreEntry *const *) b;

  return compare_numbers_then (lb_store_entry_get_attribute (x, "InstanceNumber"),
                               lb_store_entry_get_attribute (y, "InstanceNumber"),
                               lb_store_entry_get_name (x), lb_store_entry_get_name (y));
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
entries_for (LbDicomwebStore *self, const Loc *loc, GPtrArray *found)
{
  GPtrArray *entries;

  if (loc->level == LEVEL_ROOT)
    return group_patients (self, found);
  entries = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < found->len; i++)
    {
      LbDicomDataset *ds = found->pdata[i];

      switch (loc->level)
        {
        case LEVEL_PATIENT:
          /* exact match: QIDO matching may be case-insensitive or treat * and ? as wildcards */
          if (strcmp (patient_id_of (ds), loc->patient_id) == 0)
            add_entry (entries, study_entry (self, ds));
          break;
        case LEVEL_STUDY:
          add_entry (entries, series_entry (self, loc->study, ds));
          break;
        case LEVEL_SERIES:
          add_entry (entries, instance_entry (self, loc->study, loc->series, ds));
          break;
        case LEVEL_ROOT:
        case LEVEL_INSTANCE:
        default:
          g_assert_not_reached ();
        }
    }
  g_ptr_array_sort (entries, loc->level == LEVEL_PATIENT ? compare_studies
                             : loc->level == LEVEL_STUDY ? compare_series : compare_instances);
  return entries;
}

/* The QIDO query listing the children of @loc. */
static char *
children_query (const Loc *loc)
{
  g_autofree char *a = NULL, *b = NULL;

  switch (loc->level)
    {
    case LEVEL_ROOT:
      return g_strdup ("/studies?" STUDY_FIELDS);
    case LEVEL_PATIENT:
      if (*loc->patient_id == '\0')
        return g_strdup ("/studies?" STUDY_FIELDS);
      a = esc (loc->patient_id);
      return g_strdup_printf ("/studies?PatientID=%s&" STUDY_FIELDS, a);
    case LEVEL_STUDY:
      a = esc (loc->study);
      return g_strdup_printf ("/studies/%s/series?" SERIES_FIELDS, a);
    case LEVEL_SERIES:
      a = esc (loc->study);
      b = esc (loc->series);
      return g_strdup_printf ("/studies/%s/series/%s/instances?" INSTANCE_FIELDS, a, b);
    case LEVEL_INSTANCE:
    default:
      return NULL;
    }
}

/* ---- list --------------------------------------------------------------------------------- */

static void
on_list_found (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  LbDicomwebStore *self = g_task_get_source_object (task);
  GError *error = NULL;
  g_autoptr(GPtrArray) found = qido_finish (result, &error);

  if (found == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, entries_for (self, g_task_get_task_data (task), found),
                           (GDestroyNotify) g_ptr_array_unref);
  g_object_unref (task);
}

static void
dw_list_async (LbStore *store, const char *uri, GCancellable *cancellable,
               GFileProgressCallback progress, gpointer progress_data,
               GAsyncReadyCallback callback, gpointer user_data)
{
  LbDicomwebStore *self = LB_DICOMWEB_STORE (store);
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Loc *loc = g_new0 (Loc, 1);
  GError *error = NULL;
  g_autofree char *query = NULL;

  g_task_set_source_tag (task, dw_list_async);
  g_task_set_task_data (task, loc, (GDestroyNotify) loc_free);
  if (!parse_location (self, uri, FALSE, loc, &error))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  if (loc->level == LEVEL_INSTANCE)
    {
      g_task_return_new_error (task, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                               "%s is an instance, not a container", uri);
      g_object_unref (task);
      return;
    }
  query = children_query (loc);
  qido_async (self, query, cancellable, progress, progress_data, on_list_found, task);
}

static GPtrArray *
dw_list_finish (LbStore *store, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- stat --------------------------------------------------------------------------------- */

static void
on_stat_found (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  LbDicomwebStore *self = g_task_get_source_object (task);
  Loc *loc = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(GPtrArray) found = qido_finish (result, &error);
  LbStoreEntry *entry = NULL;
  static const char *const what[] = { "store", "patient", "study", "series", "instance" };

  if (found == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  switch (loc->level)
    {
    case LEVEL_PATIENT:
      {
        g_autoptr(GPtrArray) mine = g_ptr_array_new ();

        for (guint i = 0; i < found->len; i++)
          if (strcmp (patient_id_of (found->pdata[i]), loc->patient_id) == 0)
            g_ptr_array_add (mine, found->pdata[i]);
        if (mine->len > 0)
          entry = patient_entry (self, loc->patient_id, mine->pdata[0], mine->len);
      }
      break;
    case LEVEL_STUDY:
      for (guint i = 0; i < found->len && entry == NULL; i++)
        if (g_strcmp0 (lb_dicom_dataset_get_string (found->pdata[i], LB_TAG_STUDY_INSTANCE_UID, 0),
                       loc->study) == 0)
          entry = study_entry (self, found->pdata[i]);
      break;
    case LEVEL_SERIES:
      for (guint i = 0; i < found->len && entry == NULL; i++)
        if (g_strcmp0 (lb_dicom_dataset_get_string (found->pdata[i], LB_TAG_SERIES_INSTANCE_UID, 0),
                       loc->series) == 0)
          entry = series_entry (self, loc->study, found->pdata[i]);
      break;
    case LEVEL_INSTANCE:
      for (guint i = 0; i < found->len && entry == NULL; i++)
        if (g_strcmp0 (lb_dicom_dataset_get_string (found->pdata[i], LB_TAG_SOP_INSTANCE_UID, 0),
                       loc->instance) == 0)
          entry = instance_entry (self, loc->study, loc->series, found->pdata[i]);
      break;
    case LEVEL_ROOT:
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
dw_stat_async (LbStore *store, const char *uri, GCancellable *cancellable,
               GAsyncReadyCallback callback, gpointer user_data)
{
  LbDicomwebStore *self = LB_DICOMWEB_STORE (store);
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Loc *loc = g_new0 (Loc, 1);
  GError *error = NULL;
  g_autofree char *query = NULL, *a = NULL, *b = NULL, *c = NULL;

  g_task_set_source_tag (task, dw_stat_async);
  g_task_set_task_data (task, loc, (GDestroyNotify) loc_free);
  if (!parse_location (self, uri, FALSE, loc, &error))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  switch (loc->level)
    {
    case LEVEL_ROOT:
      {
        LbStoreEntry *e = lb_store_entry_new (self->tree_uri, self->base_url,
                                              LB_STORE_ENTRY_DIRECTORY);

        g_task_return_pointer (task, e, g_object_unref);
        g_object_unref (task);
        return;
      }
    case LEVEL_PATIENT:
      query = children_query (loc);
      break;
    case LEVEL_STUDY:
      a = esc (loc->study);
      query = g_strdup_printf ("/studies?StudyInstanceUID=%s&" STUDY_FIELDS, a);
      break;
    case LEVEL_SERIES:
      a = esc (loc->study);
      b = esc (loc->series);
      query = g_strdup_printf ("/studies/%s/series?SeriesInstanceUID=%s&" SERIES_FIELDS, a, b);
      break;
    case LEVEL_INSTANCE:
      a = esc (loc->study);
      b = esc (loc->series);
      c = esc (loc->instance);
      query = g_strdup_printf ("/studies/%s/series/%s/instances?SOPInstanceUID=%s&"
                               INSTANCE_FIELDS, a, b, c);
      break;
    default:
      g_assert_not_reached ();
    }
  qido_async (self, query, cancellable, NULL, NULL, on_stat_found, task);
}

static LbStoreEntry *
dw_stat_finish (LbStore *store, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- fetch image (WADO-RS) ---------------------------------------------------------------- */

typedef struct {
  Loc             loc;
  char           *uri;
  LbLimits        limits;
  LbDicomDataset *metadata;
  LbImage        *image;
  GFileProgressCallback progress;
  gpointer        progress_data;
  gboolean        asked_uncompressed;  /* the second request, with an explicit syntax */
} FetchData;

static void
fetch_data_free (FetchData *d)
{
  loc_clear (&d->loc);
  g_free (d->uri);
  g_clear_pointer (&d->metadata, lb_dicom_dataset_unref);
  g_clear_object (&d->image);
  g_free (d);
}

static void
fetch_fail (GTask *task, GError *error)
{
  FetchData *d = g_task_get_task_data (task);

  if (error->domain == LB_ERROR && strstr (error->message, d->uri) == NULL
      && strstr (error->message, "http") == NULL)
    g_prefix_error (&error, "%s: ", d->uri);
  g_task_return_error (task, error);
  g_object_unref (task);
}

static void request_frame (GTask *task, const char *accept);

static gboolean
is_uncompressed (const char *ts)
{
  return ts == NULL || strcmp (ts, LB_DICOM_TS_EXPLICIT_LE) == 0
         || strcmp (ts, LB_DICOM_TS_IMPLICIT_LE) == 0 || strcmp (ts, LB_DICOM_TS_EXPLICIT_BE) == 0;
}

static void
on_frame (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  FetchData *d = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GBytes) body = lb_http_request_finish (NULL, result, &msg, &error);
  g_autoptr(GPtrArray) parts = NULL;
  const char *ct;
  LbDicomPart *part;
  guint status;

  if (body == NULL)
    {
      fetch_fail (task, error);
      return;
    }
  status = soup_message_get_status (msg);
  if (status < 200 || status >= 300)
    {
      /* 401/403/404 keep their meaning; anything else on a frame request we could not have
       * got wrong means the server cannot give us the pixels in the syntax asked for (Orthanc
       * without a transcoder for the stored syntax answers 4xx/5xx here). */
      if (status == 401 || status == 403 || status == 404 || status == 410 || status >= 502)
        {
          lb_http_check_status (msg, &error);
          fetch_fail (task, error);
        }
      else if (!d->asked_uncompressed)
        request_frame (task, ACCEPT_FRAME);
      else
        {
          g_autofree char *url = g_uri_to_string_partial (soup_message_get_uri (msg),
                                                          G_URI_HIDE_USERINFO);

          fetch_fail (task, g_error_new (LB_ERROR, LB_ERROR_UNSUPPORTED,
                                         "%s: the server cannot deliver this frame uncompressed "
                                         "(GET %s: %u %s); its transfer syntax is not one "
                                         "Lightbox decodes", d->uri, url, status,
                                         soup_status_get_phrase (status)));
        }
      return;
    }
  ct = soup_message_headers_get_one (soup_message_get_response_headers (msg), "Content-Type");
  parts = lb_dicom_multipart_parse (ct, body, &error);
  if (parts == NULL)
    {
      g_prefix_error (&error, "%s/frames/1: ", d->uri);
      fetch_fail (task, error);
      return;
    }
  part = parts->pdata[0];
  if (strcmp (part->content_type, "application/octet-stream") != 0
      || !is_uncompressed (part->transfer_syntax))
    {
      if (!d->asked_uncompressed)
        {
          request_frame (task, ACCEPT_FRAME);
          return;
        }
      fetch_fail (task, g_error_new (LB_ERROR, LB_ERROR_UNSUPPORTED,
                                     "%s: the server sent the frame as %s, transfer syntax %s "
                                     "(compressed); Lightbox decodes only uncompressed frames",
                                     d->uri, part->content_type,
                                     part->transfer_syntax ? part->transfer_syntax : "unknown"));
      return;
    }
  d->image = lb_dicom_decode_frame (d->metadata, part->transfer_syntax, part->body, d->uri,
                                    &d->limits, &error);
  if (d->image == NULL)
    {
      fetch_fail (task, error);
      return;
    }
  g_task_return_boolean (task, TRUE);
  g_object_unref (task);
}

static void
request_frame (GTask *task, const char *accept)
{
  LbDicomwebStore *self = g_task_get_source_object (task);
  FetchData *d = g_task_get_task_data (task);
  g_autofree char *url = instance_url (self, &d->loc);
  g_autofree char *frame_url = g_strconcat (url, "/frames/1", NULL);
  /* a frame can be as large as the pixel limit allows, plus the multipart framing */
  guint64 cap = d->limits.max_bytes + (1 << 20);

  d->asked_uncompressed = strcmp (accept, ACCEPT_FRAME) == 0;
  request_async (self, "GET", frame_url, accept, NULL, NULL, cap, g_task_get_cancellable (task),
                 d->progress, d->progress_data, on_frame, task);
}

static void
on_metadata (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  FetchData *d = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GBytes) body = lb_http_request_finish (NULL, result, &msg, &error);
  g_autoptr(GPtrArray) arr = NULL;

  if (body == NULL || !lb_http_check_status (msg, &error))
    {
      fetch_fail (task, error);
      return;
    }
  arr = lb_dicom_json_parse_array (g_bytes_get_data (body, NULL), g_bytes_get_size (body),
                                   &error);
  if (arr == NULL)
    {
      g_prefix_error (&error, "%s/metadata: ", d->uri);
      fetch_fail (task, error);
      return;
    }
  if (arr->len != 1)
    {
      fetch_fail (task, g_error_new (LB_ERROR, LB_ERROR_PARSE,
                                     "%s/metadata: expected one data set, got %u", d->uri,
                                     arr->len));
      return;
    }
  d->metadata = lb_dicom_dataset_ref (arr->pdata[0]);
  request_frame (task, ACCEPT_FRAME_AS_STORED);
}

static void
fetch_start (LbDicomwebStore *self, const char *uri, const LbLimits *limits,
             GFileProgressCallback progress, gpointer progress_data, GCancellable *cancellable,
             GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  FetchData *d = g_new0 (FetchData, 1);
  GError *error = NULL;
  g_autofree char *url = NULL, *md_url = NULL;
  guint64 cap = self->options->max_listing_bytes ? self->options->max_listing_bytes
                                                 : LB_STORE_DEFAULT_MAX_LISTING_BYTES;

  g_task_set_source_tag (task, fetch_start);
  d->uri = g_strdup (uri);
  d->limits = *(limits ? limits : lb_limits_get_default ());
  d->progress = progress;
  d->progress_data = progress_data;
  g_task_set_task_data (task, d, (GDestroyNotify) fetch_data_free);
  if (!parse_location (self, uri, FALSE, &d->loc, &error))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  if (d->loc.level != LEVEL_INSTANCE)
    {
      g_task_return_new_error (task, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                               "%s is a container, not an image", uri);
      g_object_unref (task);
      return;
    }
  url = instance_url (self, &d->loc);
  md_url = g_strconcat (url, "/metadata", NULL);
  request_async (self, "GET", md_url, MEDIA_DICOM_JSON, NULL, NULL, cap, cancellable, NULL, NULL,
                 on_metadata, task);
}

void
lb_dicomweb_store_fetch_image_async (LbDicomwebStore *self, const char *uri,
                                     const LbLimits *limits, GCancellable *cancellable,
                                     GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (LB_IS_DICOMWEB_STORE (self));
  g_return_if_fail (uri != NULL);
  fetch_start (self, uri, limits, NULL, NULL, cancellable, callback, user_data);
}

LbImage *
lb_dicomweb_store_fetch_image_finish (LbDicomwebStore *self, GAsyncResult *result,
                                      LbDicomDataset **out_metadata, GError **error)
{
  FetchData *d;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  if (!g_task_propagate_boolean (G_TASK (result), error))
    return NULL;
  d = g_task_get_task_data (G_TASK (result));
  if (out_metadata)
    *out_metadata = lb_dicom_dataset_ref (d->metadata);
  return g_object_ref (d->image);
}

/* ---- read --------------------------------------------------------------------------------- */

typedef struct {
  GInputStream *stream;
  LbStoreEntry *entry;
} ReadResult;

static void
read_result_free (ReadResult *r)
{
  g_clear_object (&r->stream);
  g_clear_object (&r->entry);
  g_free (r);
}

static void
on_read_fetched (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  LbDicomwebStore *self = LB_DICOMWEB_STORE (source);
  GError *error = NULL;
  g_autoptr(LbDicomDataset) md = NULL;
  g_autoptr(LbImage) img = lb_dicomweb_store_fetch_image_finish (self, result, &md, &error);
  g_autoptr(GBytes) png = NULL;
  const char *uri = g_task_get_task_data (task);
  FetchData *d = g_task_get_task_data (G_TASK (result));
  ReadResult *r;
  g_autofree char *label = NULL;

  if (img == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  /* PNG keeps 16-bit samples and the lightbox:* value mapping: nothing is lost on the way. */
  png = lb_png_save_to_bytes (img, &error);
  if (png == NULL)
    {
      g_prefix_error (&error, "%s: ", uri);
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  r = g_new0 (ReadResult, 1);
  r->stream = g_memory_input_stream_new_from_bytes (png);
  r->entry = instance_entry (self, d->loc.study, d->loc.series, md);
  if (r->entry == NULL)
    r->entry = lb_store_entry_new (uri, d->loc.instance, LB_STORE_ENTRY_DICOM_INSTANCE);
  label = lb_dicomweb_label_instance (md);
  lb_store_entry_set_display_name (r->entry, label);
  lb_store_entry_set_size (r->entry, (gint64) g_bytes_get_size (png));
  lb_store_entry_set_content_type (r->entry, "image/png");
  g_task_return_pointer (task, r, (GDestroyNotify) read_result_free);
  g_object_unref (task);
}

static void
dw_read_async (LbStore *store, const char *uri, GCancellable *cancellable,
               GFileProgressCallback progress, gpointer progress_data,
               GAsyncReadyCallback callback, gpointer user_data)
{
  LbDicomwebStore *self = LB_DICOMWEB_STORE (store);
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, dw_read_async);
  g_task_set_task_data (task, g_strdup (uri ? uri : self->root_uri), g_free);
  fetch_start (self, uri ? uri : self->root_uri, NULL, progress, progress_data, cancellable,
               on_read_fetched, task);
}

static GInputStream *
dw_read_finish (LbStore *store, GAsyncResult *result, LbStoreEntry **out_entry, GError **error)
{
  ReadResult *r = g_task_propagate_pointer (G_TASK (result), error);
  GInputStream *stream;

  if (r == NULL)
    return NULL;
  stream = g_steal_pointer (&r->stream);
  if (out_entry)
    *out_entry = g_steal_pointer (&r->entry);
  read_result_free (r);
  return stream;
}

/* ---- store derived (STOW-RS) -------------------------------------------------------------- */

typedef struct {
  Loc             source;      /* the instance the image came from */
  char           *source_uri;
  LbImage        *image;       /* NULL when @dicom is given */
  char           *derivation;
  GBytes         *dicom;       /* the Part 10 file to send */
  LbDicomDataset *metadata;    /* source metadata */
  char           *sop_uid, *series_uid, *study_uid;
  char           *stow_url;
} StowData;

static void
stow_data_free (StowData *d)
{
  loc_clear (&d->source);
  g_free (d->source_uri);
  g_clear_object (&d->image);
  g_free (d->derivation);
  g_clear_pointer (&d->dicom, g_bytes_unref);
  g_clear_pointer (&d->metadata, lb_dicom_dataset_unref);
  g_free (d->sop_uid);
  g_free (d->series_uid);
  g_free (d->study_uid);
  g_free (d->stow_url);
  g_free (d);
}

static void
stow_fail (GTask *task, GError *error)
{
  g_task_return_error (task, error);
  g_object_unref (task);
}

/* Failure Reason values of PS3.18 §I.2.2 (Table I.2-1) and the Storage Service (PS3.4 §B.2.3). */
static const char *
stow_failure_text (guint reason)
{
  switch (reason)
    {
    case 0x0110: return "processing failure";
    case 0x0119: return "class-instance conflict";
    case 0x0122: return "SOP class not supported";
    case 0x0124: return "not authorized";
    case 0xA700: return "out of resources";
    case 0xA770: return "out of resources: data set too large";
    case 0xA900: return "data set does not match SOP class";
    case 0xC000: return "cannot understand";
    case 0xC122: return "transfer syntax not supported";
    default: return reason >= 0xA700 && reason <= 0xA7FF ? "out of resources" : "refused";
    }
}

/* PS3.18 §10.5.3: the response lists stored instances in ReferencedSOPSequence (0008,1199) and
 * failures in FailedSOPSequence (0008,1198) with a FailureReason (0008,1197). */
static void
on_stowed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  LbDicomwebStore *self = g_task_get_source_object (task);
  StowData *d = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GBytes) body = lb_http_request_finish (NULL, result, &msg, &error);
  g_autoptr(LbDicomDataset) resp = NULL;
  g_autoptr(JsonParser) parser = NULL;
  guint status;
  gboolean stored = FALSE;
  LbStoreEntry *entry;
  g_autofree char *uri = NULL;

  if (body == NULL)
    {
      stow_fail (task, error);
      return;
    }
  status = soup_message_get_status (msg);
  if (g_bytes_get_size (body) > 0)
    {
      JsonNode *root;

      parser = json_parser_new_immutable ();
      if (json_parser_load_from_data (parser, g_bytes_get_data (body, NULL),
                                      (gssize) g_bytes_get_size (body), NULL))
        {
          root = json_parser_get_root (parser);
          /* Some servers wrap the response data set in an array. */
          if (root && JSON_NODE_HOLDS_ARRAY (root)
              && json_array_get_length (json_node_get_array (root)) == 1)
            root = json_array_get_element (json_node_get_array (root), 0);
          if (root && JSON_NODE_HOLDS_OBJECT (root))
            resp = lb_dicom_dataset_new_from_json_object (root, &error);
          if (resp == NULL && error != NULL && status >= 200 && status < 300)
            {
              g_prefix_error (&error, "STOW-RS %s: response: ", d->stow_url);
              stow_fail (task, error);
              return;
            }
          g_clear_error (&error);
        }
    }
  if (resp != NULL)
    {
      guint nf = lb_dicom_dataset_get_n_items (resp, LB_DICOM_TAG (0x0008, 0x1198));
      guint nr = lb_dicom_dataset_get_n_items (resp, LB_DICOM_TAG (0x0008, 0x1199));

      for (guint i = 0; i < nf; i++)
        {
          LbDicomDataset *item = lb_dicom_dataset_get_item (resp, LB_DICOM_TAG (0x0008, 0x1198), i);
          gint64 reason = -1;

          const char *sop = lb_dicom_dataset_get_string (item, LB_DICOM_TAG (0x0008, 0x1155), 0);
          g_autofree char *why = NULL;

          if (lb_dicom_dataset_get_int (item, LB_DICOM_TAG (0x0008, 0x1197), 0, &reason))
            why = g_strdup_printf ("failure reason 0x%04X, %s", (guint) reason,
                                   stow_failure_text ((guint) reason));
          else
            why = g_strdup ("no failure reason given");
          stow_fail (task, g_error_new (LB_ERROR, status == 409 ? LB_ERROR_CONFLICT : LB_ERROR_FAILED,
                                        "STOW-RS %s: the server refused instance %s (HTTP %u, %s)",
                                        d->stow_url, sop ? sop : d->sop_uid, status, why));
          return;
        }
      for (guint i = 0; i < nr; i++)
        {
          LbDicomDataset *item = lb_dicom_dataset_get_item (resp, LB_DICOM_TAG (0x0008, 0x1199), i);

          if (g_strcmp0 (lb_dicom_dataset_get_string (item, LB_DICOM_TAG (0x0008, 0x1155), 0),
                         d->sop_uid) == 0)
            {
              /* RetrieveURL …/studies/{st}/series/{se}/instances/{in} names the series of a
               * ready DICOM file that was sent as it was */
              const char *url = lb_dicom_dataset_get_string (item, LB_DICOM_TAG (0x0008, 0x1190), 0);
              const char *p = url ? strstr (url, "/series/") : NULL;

              stored = TRUE;
              if ((d->series_uid == NULL || *d->series_uid == '\0') && p != NULL)
                {
                  g_free (d->series_uid);
                  p += strlen ("/series/");
                  d->series_uid = g_uri_unescape_segment (p, strchr (p, '/'), NULL);
                }
            }
        }
    }
  if (!lb_http_check_status (msg, &error))
    {
      g_prefix_error (&error, "STOW-RS: ");
      stow_fail (task, error);
      return;
    }
  if (!stored)
    {
      stow_fail (task, g_error_new (LB_ERROR, LB_ERROR_FAILED,
                                    "STOW-RS %s: HTTP %u but the response does not list instance "
                                    "%s as stored", d->stow_url, status, d->sop_uid));
      return;
    }

  if (d->series_uid == NULL || *d->series_uid == '\0')
    {
      stow_fail (task, g_error_new (LB_ERROR, LB_ERROR_FAILED,
                                    "STOW-RS %s: stored instance %s, but the response does not "
                                    "say in which series", d->stow_url, d->sop_uid));
      return;
    }
  uri = instance_uri (self, d->study_uid, d->series_uid, d->sop_uid);
  entry = lb_store_entry_new (uri, d->sop_uid, LB_STORE_ENTRY_DICOM_INSTANCE);
  lb_store_entry_set_display_name (entry, "#1");
  lb_store_entry_set_size (entry, (gint64) g_bytes_get_size (d->dicom));
  lb_store_entry_set_content_type (entry, "application/dicom");
  lb_store_entry_set_attribute (entry, "StudyInstanceUID", d->study_uid);
  lb_store_entry_set_attribute (entry, "SeriesInstanceUID", d->series_uid);
  lb_store_entry_set_attribute (entry, "SOPInstanceUID", d->sop_uid);
  lb_store_entry_set_attribute (entry, "SOPClassUID", LB_DICOM_SOP_CLASS_SECONDARY_CAPTURE);
  g_task_return_pointer (task, entry, g_object_unref);
  g_object_unref (task);
}

static void
stow_send (GTask *task)
{
  LbDicomwebStore *self = g_task_get_source_object (task);
  StowData *d = g_task_get_task_data (task);
  g_autoptr(GPtrArray) parts = g_ptr_array_new ();
  g_autoptr(GBytes) body = NULL;
  g_autofree char *content_type = NULL, *st = esc (d->study_uid);

  g_ptr_array_add (parts, d->dicom);
  body = lb_dicom_multipart_build ("application/dicom", parts, &content_type);
  d->stow_url = g_strdup_printf ("%s/studies/%s", self->base_url, st);
  request_async (self, "POST", d->stow_url, MEDIA_DICOM_JSON, body, content_type,
                 LB_STORE_DEFAULT_MAX_LISTING_BYTES, g_task_get_cancellable (task), NULL, NULL,
                 on_stowed, task);
}

/* An image that travelled as PNG has its spacing from pHYs, in whole pixels per metre: 0.661468
 * mm comes back as 0.661376. When the image's spacing is the source's within that rounding
 * (half a pixel per metre: s² / 2000 mm), the source's exact value is the true one. A filter
 * that resampled the image changes the spacing by far more and is left alone. */
static void
restore_exact_spacing (StowData *d)
{
  const LbImageMeta *meta = lb_image_get_meta (d->image);
  double x, y, sx, sy;

  if (!lb_image_meta_get_pixel_spacing (meta, &x, &y)
      || !lb_dicom_dataset_get_double (d->metadata, LB_TAG_PIXEL_SPACING, 0, &sy)
      || !lb_dicom_dataset_get_double (d->metadata, LB_TAG_PIXEL_SPACING, 1, &sx))
    return;
  if ((x != sx || y != sy) && fabs (x - sx) <= sx * sx / 2000 + 1e-12
      && fabs (y - sy) <= sy * sy / 2000 + 1e-12)
    {
      g_autoptr(LbImageMeta) fixed = lb_image_meta_copy (meta);
      LbImage *img;

      lb_image_meta_set_pixel_spacing (fixed, sx, sy);
      img = lb_image_with_meta (d->image, fixed);
      g_object_unref (d->image);
      d->image = img;
    }
}

static void
on_study_series (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  StowData *d = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(GPtrArray) series = qido_finish (result, &error);
  g_autoptr(LbDicomDataset) sc = NULL;
  gint64 max_number = 0;

  if (series == NULL)
    {
      stow_fail (task, error);
      return;
    }
  /* the new series is numbered after every series already in the study */
  for (guint i = 0; i < series->len; i++)
    {
      gint64 n;

      if (lb_dicom_dataset_get_int (series->pdata[i], LB_TAG_SERIES_NUMBER, 0, &n))
        max_number = MAX (max_number, n);
    }
  restore_exact_spacing (d);
  sc = lb_dicom_build_secondary_capture (d->image, d->metadata, d->derivation,
                                         (guint) MIN (max_number + 1, G_MAXINT32), &error);
  if (sc == NULL)
    {
      g_prefix_error (&error, "%s: ", d->source_uri);
      stow_fail (task, error);
      return;
    }
  d->sop_uid = g_strdup (lb_dicom_dataset_get_string (sc, LB_TAG_SOP_INSTANCE_UID, 0));
  d->series_uid = g_strdup (lb_dicom_dataset_get_string (sc, LB_TAG_SERIES_INSTANCE_UID, 0));
  d->dicom = lb_dicom_write_part10 (sc, &error);
  if (d->dicom == NULL)
    {
      stow_fail (task, error);
      return;
    }
  stow_send (task);
}

static void
on_source_metadata (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  LbDicomwebStore *self = g_task_get_source_object (task);
  StowData *d = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GBytes) body = lb_http_request_finish (NULL, result, &msg, &error);
  g_autoptr(GPtrArray) arr = NULL;
  g_autofree char *query = NULL, *st = NULL;

  if (body == NULL || !lb_http_check_status (msg, &error))
    {
      g_prefix_error (&error, "source instance: ");
      stow_fail (task, error);
      return;
    }
  arr = lb_dicom_json_parse_array (g_bytes_get_data (body, NULL), g_bytes_get_size (body),
                                   &error);
  if (arr == NULL || arr->len != 1)
    {
      if (error == NULL)
        error = g_error_new (LB_ERROR, LB_ERROR_PARSE, "expected one data set");
      g_prefix_error (&error, "%s/metadata: ", d->source_uri);
      stow_fail (task, error);
      return;
    }
  d->metadata = lb_dicom_dataset_ref (arr->pdata[0]);
  st = esc (d->source.study);
  query = g_strdup_printf ("/studies/%s/series?includefield=00200011", st);
  qido_async (self, query, g_task_get_cancellable (task), NULL, NULL, on_study_series, task);
}

static void
store_derived_start (LbDicomwebStore *self, LbImage *image, const char *source_uri,
                     const char *derivation, GTask *task)
{
  StowData *d = g_new0 (StowData, 1);
  GError *error = NULL;
  g_autofree char *url = NULL, *md_url = NULL;

  g_task_set_task_data (task, d, (GDestroyNotify) stow_data_free);
  d->image = g_object_ref (image);
  d->derivation = g_strdup (derivation);
  d->source_uri = g_strdup (source_uri);
  if (!parse_location (self, source_uri, FALSE, &d->source, &error))
    {
      stow_fail (task, error);
      return;
    }
  if (d->source.level != LEVEL_INSTANCE)
    {
      stow_fail (task, g_error_new (LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                                    "%s: the source of a derived image must be an instance",
                                    source_uri));
      return;
    }
  d->study_uid = g_strdup (d->source.study);
  url = instance_url (self, &d->source);
  md_url = g_strconcat (url, "/metadata", NULL);
  request_async (self, "GET", md_url, MEDIA_DICOM_JSON, NULL, NULL,
                 LB_STORE_DEFAULT_MAX_LISTING_BYTES, g_task_get_cancellable (task), NULL, NULL,
                 on_source_metadata, task);
}

void
lb_dicomweb_store_store_derived_async (LbDicomwebStore *self, LbImage *image,
                                       const char *source_uri, const char *derivation,
                                       GCancellable *cancellable, GAsyncReadyCallback callback,
                                       gpointer user_data)
{
  GTask *task;

  g_return_if_fail (LB_IS_DICOMWEB_STORE (self));
  g_return_if_fail (LB_IS_IMAGE (image));
  g_return_if_fail (source_uri != NULL);
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, lb_dicomweb_store_store_derived_async);
  store_derived_start (self, image, source_uri, derivation, task);
}

LbStoreEntry *
lb_dicomweb_store_store_derived_finish (LbDicomwebStore *self, GAsyncResult *result,
                                        GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- write -------------------------------------------------------------------------------- */

typedef struct {
  Loc    target;
  char  *uri;
  char  *content_type;
} WriteData;

static void
write_data_free (WriteData *d)
{
  loc_clear (&d->target);
  g_free (d->uri);
  g_free (d->content_type);
  g_free (d);
}

static gboolean
is_part10 (GBytes *bytes)
{
  gsize len;
  const guint8 *p = g_bytes_get_data (bytes, &len);

  return len >= 132 && memcmp (p + 128, "DICM", 4) == 0;
}

/* A ready DICOM file names its own SOP Instance UID: refuse (CREATE semantics) when the server
 * already has it, since STOW-RS servers may replace or silently keep the old one. A narrow race
 * remains between this check and the POST. */
static void
on_raw_precheck (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  StowData *d = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(GPtrArray) found = qido_finish (result, &error);

  if (found == NULL)
    {
      stow_fail (task, error);
      return;
    }
  for (guint i = 0; i < found->len; i++)
    if (g_strcmp0 (lb_dicom_dataset_get_string (found->pdata[i], LB_TAG_SOP_INSTANCE_UID, 0),
                   d->sop_uid) == 0)
      {
        stow_fail (task, g_error_new (LB_ERROR, LB_ERROR_CONFLICT,
                                      "instance %s is already stored on the server; DICOM "
                                      "instances are never replaced", d->sop_uid));
        return;
      }
  stow_send (task);
}

/* Reads (0002,0003) MediaStorageSOPInstanceUID from the file meta (always explicit VR little
 * endian, PS3.10 §7.1). The data set itself is not parsed: @series stays NULL, and the series
 * is learnt from the server's STOW-RS response. */
static gboolean
part10_uids (GBytes *bytes, char **sop, char **series)
{
  gsize len;
  const guint8 *p = g_bytes_get_data (bytes, &len);
  gsize off = 132;

  *sop = NULL;
  *series = NULL;
  if (!is_part10 (bytes))
    return FALSE;
  while (off + 8 <= len)
    {
      guint group = p[off] | (p[off + 1] << 8);
      guint elem = p[off + 2] | (p[off + 3] << 8);
      char vr[3] = { (char) p[off + 4], (char) p[off + 5], 0 };
      gsize vlen, hdr;

      if (group != 0x0002)
        break;
      if (strcmp (vr, "OB") == 0 || strcmp (vr, "OW") == 0 || strcmp (vr, "UN") == 0
          || strcmp (vr, "SQ") == 0 || strcmp (vr, "UT") == 0 || strcmp (vr, "UC") == 0
          || strcmp (vr, "UR") == 0)
        {
          if (off + 12 > len)
            break;
          vlen = (gsize) p[off + 8] | ((gsize) p[off + 9] << 8) | ((gsize) p[off + 10] << 16)
                 | ((gsize) p[off + 11] << 24);
          hdr = 12;
        }
      else
        {
          vlen = p[off + 6] | (p[off + 7] << 8);
          hdr = 8;
        }
      if (vlen > len - off - hdr)
        break;
      if (elem == 0x0003 && vlen > 0)
        {
          *sop = g_strndup ((const char *) p + off + hdr, vlen);
          g_strchomp (*sop);
          /* UI values are padded with NUL */
          while (**sop && (*sop)[strlen (*sop) - 1] == '\0')
            (*sop)[strlen (*sop) - 1] = '\0';
        }
      off += hdr + vlen;
    }
  return *sop != NULL && **sop != '\0';
}

/* Which instance an uploaded image came from: the UIDs Lightbox put into its metadata when it
 * read it, or the provenance "Source" URL, or the write target itself. */
static char *
source_of (LbDicomwebStore *self, LbImage *image, const Loc *target)
{
  const LbImageMeta *meta = lb_image_get_meta (image);
  const char *st = lb_image_meta_get_text (meta, "dicom:StudyInstanceUID");
  const char *se = lb_image_meta_get_text (meta, "dicom:SeriesInstanceUID");
  const char *in = lb_image_meta_get_text (meta, "dicom:SOPInstanceUID");
  const char *src = lb_image_meta_get_text (meta, "Source");
  Loc loc;

  if (st && se && in)
    return instance_uri (self, st, se, in);
  if (src && parse_location (self, src, FALSE, &loc, NULL))
    {
      gboolean ok = loc.level == LEVEL_INSTANCE;

      loc_clear (&loc);
      if (ok)
        return g_strdup (src);
    }
  if (lb_image_meta_get_source_uri (meta)
      && parse_location (self, lb_image_meta_get_source_uri (meta), FALSE, &loc, NULL))
    {
      gboolean ok = loc.level == LEVEL_INSTANCE;

      loc_clear (&loc);
      if (ok)
        return g_strdup (lb_image_meta_get_source_uri (meta));
    }
  if (target->level == LEVEL_INSTANCE)
    return instance_uri (self, target->study, target->series, target->instance);
  return NULL;
}

static void
on_write_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  LbDicomwebStore *self = g_task_get_source_object (task);
  WriteData *wd = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(GBytes) bytes = lb_http_read_all_finish (G_INPUT_STREAM (source), result, &error);
  g_autoptr(LbImage) image = NULL;
  g_autofree char *src = NULL;
  Loc src_loc;
  const char *chain;

  if (bytes == NULL)
    {
      stow_fail (task, error);
      return;
    }
  if (g_strcmp0 (wd->content_type, "application/dicom") == 0 || is_part10 (bytes))
    {
      /* A ready DICOM file: sent as it is, to the target's study (the server checks that it
       * belongs there); its SOP Instance UID, from the file meta, is looked for in the reply. */
      StowData *d;
      g_autofree char *sop = NULL, *series = NULL;

      if (!part10_uids (bytes, &sop, &series))
        {
          stow_fail (task, g_error_new (LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                                        "%s: content is not a DICOM Part 10 file with a "
                                        "MediaStorageSOPInstanceUID", wd->uri));
          return;
        }
      d = g_new0 (StowData, 1);
      d->dicom = g_bytes_ref (bytes);
      d->study_uid = g_strdup (wd->target.study);
      d->sop_uid = g_steal_pointer (&sop);
      /* the series comes from the STOW response's RetrieveURL */
      d->series_uid = g_steal_pointer (&series);
      g_task_set_task_data (task, d, (GDestroyNotify) stow_data_free);
      {
        g_autofree char *e = esc (d->sop_uid);
        g_autofree char *query = g_strdup_printf ("/instances?SOPInstanceUID=%s", e);

        qido_async (self, query, g_task_get_cancellable (task), NULL, NULL, on_raw_precheck,
                    task);
      }
      return;
    }

  image = lb_image_load_bytes (bytes, wd->uri, NULL, &error);
  if (image == NULL)
    {
      stow_fail (task, error);
      return;
    }
  src = source_of (self, image, &wd->target);
  if (src == NULL)
    {
      stow_fail (task, g_error_new (LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                                    "%s: the image does not say which DICOM instance it was "
                                    "derived from, so it cannot join that instance's study",
                                    wd->uri));
      return;
    }
  if (parse_location (self, src, FALSE, &src_loc, NULL))
    {
      gboolean same = g_strcmp0 (src_loc.study, wd->target.study) == 0;

      loc_clear (&src_loc);
      if (!same)
        {
          stow_fail (task, g_error_new (LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                                        "%s: the image was derived from %s, which is in another "
                                        "study; derived images go into their source's study",
                                        wd->uri, src));
          return;
        }
    }
  chain = lb_image_meta_get_text (lb_image_get_meta (image), "lightbox:filter-chain");
  store_derived_start (self, image, src, chain, task);
}

static void
dw_write_async (LbStore *store, const char *uri, GInputStream *source, gint64 size,
                const char *content_type, LbStoreWriteMode mode, const char *etag,
                GCancellable *cancellable, GFileProgressCallback progress,
                gpointer progress_data, GAsyncReadyCallback callback, gpointer user_data)
{
  LbDicomwebStore *self = LB_DICOMWEB_STORE (store);
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  WriteData *wd = g_new0 (WriteData, 1);
  GError *error = NULL;

  g_task_set_source_tag (task, dw_write_async);
  g_task_set_task_data (task, wd, (GDestroyNotify) write_data_free);
  wd->uri = g_strdup (uri ? uri : self->root_uri);
  wd->content_type = g_strdup (content_type);
  if (mode != LB_STORE_WRITE_CREATE)
    {
      stow_fail (task, g_error_new (LB_ERROR, LB_ERROR_UNSUPPORTED,
                                    "%s: DICOM instances are never replaced; a derived image is "
                                    "stored as a new instance in a new series", wd->uri));
      return;
    }
  if (!parse_location (self, wd->uri, TRUE, &wd->target, &error))
    {
      stow_fail (task, error);
      return;
    }
  if (wd->target.level < LEVEL_STUDY)
    {
      stow_fail (task, g_error_new (LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                                    "%s: write into a study, series or instance; a derived image "
                                    "joins its source's study", wd->uri));
      return;
    }
  lb_http_read_all_async (source, wd->uri, size, lb_limits_get_default ()->max_bytes,
                          cancellable, NULL, NULL, on_write_read, task);
}

static LbStoreEntry *
dw_write_finish (LbStore *store, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- mkdir and the rest ------------------------------------------------------------------- */

static void
dw_mkdir_async (LbStore *store, const char *uri, GCancellable *cancellable,
                GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = g_task_new (store, cancellable, callback, user_data);

  g_task_set_source_tag (task, dw_mkdir_async);
  g_task_return_new_error (task, LB_ERROR, LB_ERROR_UNSUPPORTED,
                           "%s: a DICOMweb store has no folders; studies and series are created "
                           "by storing instances", uri ? uri : "");
  g_object_unref (task);
}

static LbStoreEntry *
dw_mkdir_finish (LbStore *store, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static const char *
dw_get_uri (LbStore *store)
{
  return LB_DICOMWEB_STORE (store)->root_uri;
}

static const char *
dw_get_backend_name (LbStore *store)
{
  return "dicomweb";
}

/* Writes never replace anything: a derived image always gets fresh UIDs (a new instance in a
 * new series), and a ready DICOM file whose instance exists is refused. */
static LbStoreCapabilities
dw_get_capabilities (LbStore *store)
{
  return LB_STORE_CAN_WRITE | LB_STORE_CONDITIONAL_WRITES;
}

static void
lb_dicomweb_store_iface_init (LbStoreInterface *iface)
{
  iface->get_uri = dw_get_uri;
  iface->get_backend_name = dw_get_backend_name;
  iface->get_capabilities = dw_get_capabilities;
  iface->list_async = dw_list_async;
  iface->list_finish = dw_list_finish;
  iface->stat_async = dw_stat_async;
  iface->stat_finish = dw_stat_finish;
  iface->read_async = dw_read_async;
  iface->read_finish = dw_read_finish;
  iface->write_async = dw_write_async;
  iface->write_finish = dw_write_finish;
  iface->mkdir_async = dw_mkdir_async;
  iface->mkdir_finish = dw_mkdir_finish;
}
