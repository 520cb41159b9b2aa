/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-local-store"

/* The DICOM objects of a local folder by patient, study and series (lb-local-store.h): the
 * headers of its DICOM files, or the records of its DICOMDIR, grouped as the DICOMweb store
 * groups a server's. Blocking: called from the store's worker threads. */

#include "lb-local-store-private.h"

#include <string.h>

#include "dicomweb/lb-dicomweb-store.h" /* the tree's labels, shared with DICOMweb */
#include "lb-dicom-file.h"
#include "lb-dicom-tags.h"
#include "lb-dicomdir.h"
#include "lb-error.h"

/* Headers kept per store; beyond this many the cache starts again (a header is ~1 KB). */
#define MAX_CACHED_HEADERS 100000

/* What a listing needs of an object; everything else of its header is dropped. */
static const guint32 kept_tags[] = {
  LB_TAG_SOP_CLASS_UID, LB_TAG_SOP_INSTANCE_UID, LB_TAG_STUDY_DATE, LB_TAG_STUDY_TIME,
  LB_TAG_ACCESSION_NUMBER, LB_TAG_MODALITY, LB_TAG_STUDY_DESCRIPTION, LB_TAG_SERIES_DESCRIPTION,
  LB_TAG_PATIENT_NAME, LB_TAG_PATIENT_ID, LB_TAG_STUDY_INSTANCE_UID, LB_TAG_SERIES_INSTANCE_UID,
  LB_TAG_SERIES_NUMBER, LB_TAG_INSTANCE_NUMBER, LB_TAG_NUMBER_OF_FRAMES,
};

typedef struct {
  gint64          size;
  gint64          mtime_us;
  LbDicomDataset *ds;       /* NULL: not DICOM, or not an object of a series */
} Header;

static void
header_free (gpointer data)
{
  Header *h = data;

  g_clear_pointer (&h->ds, lb_dicom_dataset_unref);
  g_free (h);
}

typedef struct {
  LbStoreEntry   *file;     /* the file's own entry */
  LbDicomDataset *ds;       /* the attributes of kept_tags */
} Instance;

static void
instance_free (gpointer data)
{
  Instance *in = data;

  g_object_unref (in->file);
  lb_dicom_dataset_unref (in->ds);
  g_free (in);
}

typedef struct {
  GPtrArray *instances;  /* Instance* */
  GPtrArray *others;     /* LbStoreEntry*: what is listed as it is */
} Index;

static void
index_clear (Index *ix)
{
  g_clear_pointer (&ix->instances, g_ptr_array_unref);
  g_clear_pointer (&ix->others, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Index, index_clear)

static LbDicomDataset *
kept_attributes (const LbDicomDataset *from, LbDicomDataset *into)
{
  for (guint i = 0; i < G_N_ELEMENTS (kept_tags); i++)
    lb_dicom_dataset_copy_element (into, from, kept_tags[i]);
  return into;
}

/* An object belongs in the tree when it names its study and series. */
static gboolean
has_series (const LbDicomDataset *ds)
{
  return lb_dicom_dataset_get_string (ds, LB_TAG_STUDY_INSTANCE_UID, 0) != NULL
         && lb_dicom_dataset_get_string (ds, LB_TAG_SERIES_INSTANCE_UID, 0) != NULL;
}

static gint64
mtime_us (LbStoreEntry *entry)
{
  GDateTime *t = lb_store_entry_get_mtime (entry);

  return t ? g_date_time_to_unix (t) * G_USEC_PER_SEC + g_date_time_get_microsecond (t) : 0;
}

/* The listing attributes of the DICOM file @entry, from the cache while its size and time stay
 * the same, else from the first kilobytes of the file. NULL: not a DICOM object of a series. */
static LbDicomDataset *
file_header (LbLocalStore *self, LbStoreEntry *entry, GCancellable *cancellable)
{
  g_autoptr(GFile) file = g_file_new_for_uri (lb_store_entry_get_uri (entry));
  const char *path = g_file_peek_path (file);
  gint64 size = lb_store_entry_get_size (entry), mtime = mtime_us (entry);
  g_autoptr(LbDicomFile) dcm = NULL;
  g_autoptr(GError) error = NULL;
  Header *h;

  if (path == NULL)
    return NULL;
  g_mutex_lock (&self->dicom_lock);
  if (self->dicom_headers == NULL)
    self->dicom_headers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, header_free);
  h = g_hash_table_lookup (self->dicom_headers, path);
  if (h != NULL && h->size == size && h->mtime_us == mtime)
    {
      LbDicomDataset *ds = h->ds ? lb_dicom_dataset_ref (h->ds) : NULL;

      g_mutex_unlock (&self->dicom_lock);
      return ds;
    }
  g_mutex_unlock (&self->dicom_lock);

  h = g_new0 (Header, 1);
  h->size = size;
  h->mtime_us = mtime;
  dcm = lb_dicom_file_read_header (file, cancellable, &error);
  if (dcm != NULL && has_series (lb_dicom_file_get_dataset (dcm)))
    h->ds = kept_attributes (lb_dicom_file_get_dataset (dcm), lb_dicom_dataset_new ());
  else if (error != NULL && !g_error_matches (error, LB_ERROR, LB_ERROR_UNSUPPORTED))
    g_debug ("%s: %s", path, error->message); /* listed as a plain file */
  if (g_cancellable_is_cancelled (cancellable))
    {
      header_free (h); /* not known: read again next time */
      return NULL;
    }
  g_mutex_lock (&self->dicom_lock);
  if (g_hash_table_size (self->dicom_headers) >= MAX_CACHED_HEADERS)
    g_hash_table_remove_all (self->dicom_headers);
  g_hash_table_replace (self->dicom_headers, g_strdup (path), h);
  g_mutex_unlock (&self->dicom_lock);
  return h->ds ? lb_dicom_dataset_ref (h->ds) : NULL;
}

/* Files that may be DICOM: what GIO recognises as such (DICM after the preamble, .dcm), and
 * files it cannot type (no extension: CT series are often IM0001 … or named by UID). */
static gboolean
maybe_dicom (LbStoreEntry *entry)
{
  LbStoreEntryKind kind = lb_store_entry_get_kind (entry);
  const char *type = lb_store_entry_get_content_type (entry);

  if (kind == LB_STORE_ENTRY_DICOM_FILE)
    return TRUE;
  return kind == LB_STORE_ENTRY_FILE
         && (type == NULL || strcmp (type, "application/octet-stream") == 0);
}

/* ---- DICOMDIR ------------------------------------------------------------------------------ */

/* The leaf records of @r, each with the attributes of its patient, study and series records
 * (a DICOMDIR keeps each level's attributes in its own record). */
static void
add_records (Index *ix, const LbDicomdirRecord *r, LbDicomDataset *above, GHashTable *seen)
{
  g_autoptr(LbDicomDataset) ds = lb_dicom_dataset_new ();
  LbDicomDataset *rec = lb_dicomdir_record_get_dataset (r);
  const char *path = lb_dicomdir_record_get_path (r);
  guint n = lb_dicomdir_record_get_n_children (r);

  if (above != NULL)
    kept_attributes (above, ds);
  kept_attributes (rec, ds);
  /* the leaf's own UIDs are ReferencedSOP…InFile (PS3.3 F.5) */
  if (lb_dicom_dataset_has (rec, LB_TAG_REFERENCED_SOP_INSTANCE_UID_IN_FILE))
    lb_dicom_dataset_set_string (ds, LB_TAG_SOP_INSTANCE_UID, "UI",
                                 lb_dicom_dataset_get_string (
                                   rec, LB_TAG_REFERENCED_SOP_INSTANCE_UID_IN_FILE, 0));
  if (lb_dicom_dataset_has (rec, LB_TAG_REFERENCED_SOP_CLASS_UID_IN_FILE))
    lb_dicom_dataset_set_string (ds, LB_TAG_SOP_CLASS_UID, "UI",
                                 lb_dicom_dataset_get_string (
                                   rec, LB_TAG_REFERENCED_SOP_CLASS_UID_IN_FILE, 0));
  if (path != NULL && n == 0 && has_series (ds) && !g_hash_table_contains (seen, path))
    {
      g_autoptr(GFile) file = g_file_new_for_path (path);
      g_autoptr(GFileInfo) info = g_file_query_info (file, LB_LOCAL_STORE_QUERY_ATTRS,
                                                     G_FILE_QUERY_INFO_NONE, NULL, NULL);

      if (info != NULL)
        {
          Instance *in = g_new0 (Instance, 1);

          in->file = _lb_local_store_entry_from_info (file, info);
          in->ds = g_steal_pointer (&ds);
          g_ptr_array_add (ix->instances, in);
          g_hash_table_add (seen, g_strdup (path));
          return;
        }
    }
  for (guint i = 0; i < n; i++)
    add_records (ix, lb_dicomdir_record_get_child (r, i), ds, seen);
}

/* The first component of each referenced file below @folder: folders a DICOMDIR speaks for. */
static void
referenced_folders (GHashTable *seen, const char *folder, GHashTable *out)
{
  GHashTableIter iter;
  gpointer key;
  gsize n = strlen (folder);

  g_hash_table_iter_init (&iter, seen);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      const char *p = key;

      if (strncmp (p, folder, n) == 0 && p[n] == G_DIR_SEPARATOR && strchr (p + n + 1, '/'))
        g_hash_table_add (out, g_strndup (p + n + 1, strchr (p + n + 1, '/') - (p + n + 1)));
    }
}

/* ---- the index of a folder ------------------------------------------------------------------- */

static gboolean
build_index (LbLocalStore *self, GFile *folder, GPtrArray *entries, Index *ix,
             GCancellable *cancellable, GError **error)
{
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) covered = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  const char *dir_path = g_file_peek_path (folder);
  gboolean have_dicomdir = FALSE;

  ix->instances = g_ptr_array_new_with_free_func (instance_free);
  ix->others = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < entries->len && dir_path != NULL; i++)
    {
      LbStoreEntry *e = entries->pdata[i];
      g_autofree char *path = NULL;
      g_autoptr(LbDicomdir) dicomdir = NULL;
      g_autoptr(GError) local = NULL;

      if (lb_store_entry_is_container (e) || !lb_dicomdir_is_name (lb_store_entry_get_name (e)))
        continue;
      path = g_build_filename (dir_path, lb_store_entry_get_name (e), NULL);
      dicomdir = lb_dicomdir_new_for_path (path, cancellable, &local);
      if (dicomdir == NULL)
        {
          g_debug ("%s: %s", path, local->message); /* listed as a file */
          continue;
        }
      for (guint r = 0; r < lb_dicomdir_get_n_roots (dicomdir); r++)
        add_records (ix, lb_dicomdir_get_root (dicomdir, r), NULL, seen);
      have_dicomdir = TRUE;
      g_hash_table_add (covered, g_strdup (lb_store_entry_get_name (e)));
    }
  if (have_dicomdir)
    referenced_folders (seen, dir_path, covered);

  for (guint i = 0; i < entries->len; i++)
    {
      LbStoreEntry *e = entries->pdata[i];
      LbDicomDataset *ds = NULL;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      if (g_hash_table_contains (covered, lb_store_entry_get_name (e)))
        continue; /* the DICOMDIR and the folders it lists */
      if (maybe_dicom (e))
        {
          g_autoptr(GFile) f = g_file_new_for_uri (lb_store_entry_get_uri (e));

          if (g_file_peek_path (f) == NULL || !g_hash_table_contains (seen, g_file_peek_path (f)))
            ds = file_header (self, e, cancellable);
        }
      if (ds != NULL)
        {
          Instance *in = g_new0 (Instance, 1);

          in->file = g_object_ref (e);
          in->ds = ds;
          g_ptr_array_add (ix->instances, in);
        }
      else
        g_ptr_array_add (ix->others, g_object_ref (e));
    }
  return !g_cancellable_set_error_if_cancelled (cancellable, error);
}

/* ---- entries --------------------------------------------------------------------------------- */

static const char *
patient_id_of (const LbDicomDataset *ds)
{
  const char *id = lb_dicom_dataset_get_string (ds, LB_TAG_PATIENT_ID, 0);

  return id ? id : "";
}

/* FOLDER/?KEY=VALUE[&KEY2=VALUE2] */
static char *
level_uri (GFile *folder, const char *k1, const char *v1, const char *k2, const char *v2)
{
  g_autofree char *uri = g_file_get_uri (folder);
  g_autofree char *e1 = g_uri_escape_string (v1, NULL, FALSE);
  g_autofree char *e2 = v2 ? g_uri_escape_string (v2, NULL, FALSE) : NULL;
  gsize n = strlen (uri);

  if (n > 0 && uri[n - 1] == '/')
    uri[n - 1] = '\0';
  return v2 ? g_strdup_printf ("%s/?%s=%s&%s=%s", uri, k1, e1, k2, e2)
            : g_strdup_printf ("%s/?%s=%s", uri, k1, e1);
}

/* A study or series entry of the folder, with the number of instances as QIDO-RS would give it
 * (NumberOf{Study,Series}RelatedInstances). */
static LbStoreEntry *
level_entry (GFile *folder, const LbDicomDataset *first, gboolean study, guint n_instances)
{
  const char *st = lb_dicom_dataset_get_string (first, LB_TAG_STUDY_INSTANCE_UID, 0);
  const char *se = lb_dicom_dataset_get_string (first, LB_TAG_SERIES_INSTANCE_UID, 0);
  g_autoptr(LbDicomDataset) ds = lb_dicom_dataset_new ();
  g_autofree char *uri = study ? level_uri (folder, "study", st, NULL, NULL)
                               : level_uri (folder, "study", st, "series", se);

  kept_attributes (first, ds);
  lb_dicom_dataset_set_uint (ds, study ? LB_TAG_NUMBER_OF_STUDY_INSTANCES
                                       : LB_TAG_NUMBER_OF_SERIES_INSTANCES, "IS", n_instances);
  return study ? lb_dicom_study_entry (uri, ds) : lb_dicom_series_entry (uri, st, ds);
}

/* The file itself, labelled and typed as an instance: reading it reads the file. */
static LbStoreEntry *
instance_entry (const Instance *in)
{
  LbStoreEntry *e = lb_dicom_instance_entry (
    lb_store_entry_get_uri (in->file),
    lb_dicom_dataset_get_string (in->ds, LB_TAG_STUDY_INSTANCE_UID, 0),
    lb_dicom_dataset_get_string (in->ds, LB_TAG_SERIES_INSTANCE_UID, 0), in->ds);
  const char *frames = lb_dicom_dataset_get_string (in->ds, LB_TAG_NUMBER_OF_FRAMES, 0);

  if (e == NULL) /* no SOPInstanceUID: the file's name stands for it */
    e = lb_store_entry_new (lb_store_entry_get_uri (in->file), lb_store_entry_get_name (in->file),
                            LB_STORE_ENTRY_DICOM_INSTANCE);
  lb_store_entry_set_name (e, lb_store_entry_get_name (in->file));
  lb_store_entry_set_size (e, lb_store_entry_get_size (in->file));
  lb_store_entry_set_mtime (e, lb_store_entry_get_mtime (in->file));
  lb_store_entry_set_etag (e, lb_store_entry_get_etag (in->file));
  lb_store_entry_set_content_type (e, "application/dicom");
  if (frames != NULL)
    lb_store_entry_set_attribute (e, "NumberOfFrames", frames);
  return e;
}

/* The entries of one level: patients of the folder, studies of a patient, series of a study,
 * instances of a series; groups keyed by their UID (patients by ID), counted. */
typedef enum { PATIENTS, STUDIES, SERIES, INSTANCES } Level;

static GPtrArray *
level_entries (GFile *folder, Index *ix, Level level, const char *patient, const char *study,
               const char *series)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GHashTable) first = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) count = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) studies = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) order = g_ptr_array_new ();

  for (guint i = 0; i < ix->instances->len; i++)
    {
      Instance *in = ix->instances->pdata[i];
      const char *st = lb_dicom_dataset_get_string (in->ds, LB_TAG_STUDY_INSTANCE_UID, 0);
      const char *se = lb_dicom_dataset_get_string (in->ds, LB_TAG_SERIES_INSTANCE_UID, 0);
      const char *key;

      if ((patient && strcmp (patient_id_of (in->ds), patient) != 0)
          || (study && strcmp (st, study) != 0) || (series && strcmp (se, series) != 0))
        continue;
      if (level == INSTANCES)
        {
          g_ptr_array_add (out, instance_entry (in));
          continue;
        }
      key = level == PATIENTS ? patient_id_of (in->ds) : level == STUDIES ? st : se;
      if (!g_hash_table_contains (first, key))
        {
          g_hash_table_insert (first, (gpointer) key, in->ds);
          g_ptr_array_add (order, (gpointer) key);
        }
      if (level == PATIENTS)
        {
          g_autofree char *k = g_strconcat (key, "\n", st, NULL);

          /* a patient counts studies, the others instances */
          if (g_hash_table_add (studies, g_steal_pointer (&k)))
            g_hash_table_insert (count, (gpointer) key,
                                 GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (count, key)) + 1));
        }
      else
        g_hash_table_insert (count, (gpointer) key,
                             GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (count, key)) + 1));
    }
  for (guint i = 0; i < order->len; i++)
    {
      const char *key = order->pdata[i];
      const LbDicomDataset *ds = g_hash_table_lookup (first, key);
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (count, key));

      if (level == PATIENTS)
        {
          g_autofree char *uri = level_uri (folder, "patient", key, NULL, NULL);

          g_ptr_array_add (out, lb_dicom_patient_entry (uri, key, ds, n));
        }
      else
        g_ptr_array_add (out, level_entry (folder, ds, level == STUDIES, n));
    }
  g_ptr_array_sort_with_data (out, lb_dicom_compare_numbered,
                              (gpointer) (level == STUDIES ? "StudyDate"
                                          : level == SERIES ? "SeriesNumber"
                                          : level == INSTANCES ? "InstanceNumber" : "-"));
  return out;
}

/* ---- the store's operations -------------------------------------------------------------- */

GPtrArray *
_lb_local_store_group_dicom (LbLocalStore *self, GFile *folder, GPtrArray *entries,
                             GCancellable *cancellable, GError **error)
{
  g_auto(Index) ix = { NULL, NULL };
  GPtrArray *out;
  g_autoptr(GPtrArray) patients = NULL;

  if (!build_index (self, folder, entries, &ix, cancellable, error))
    return NULL;
  out = g_ptr_array_ref (ix.others);
  patients = level_entries (folder, &ix, PATIENTS, NULL, NULL, NULL);
  for (guint i = 0; i < patients->len; i++)
    g_ptr_array_add (out, g_object_ref (patients->pdata[i]));
  return out;
}

/* "patient=ID" / "study=UID" / "study=UID&series=UID" → the level and its keys. */
static gboolean
parse_query (GFile *folder, const char *query, Level *level, char **patient, char **study,
             char **series, GError **error)
{
  g_autoptr(GHashTable) params = g_uri_parse_params (query, -1, "&", G_URI_PARAMS_NONE, NULL);
  g_autofree char *uri = g_file_get_uri (folder);

  *patient = params ? g_strdup (g_hash_table_lookup (params, "patient")) : NULL;
  *study = params ? g_strdup (g_hash_table_lookup (params, "study")) : NULL;
  *series = params ? g_strdup (g_hash_table_lookup (params, "series")) : NULL;
  if (*patient != NULL && *study == NULL && *series == NULL)
    *level = STUDIES;
  else if (*patient == NULL && *study != NULL && *series == NULL)
    *level = SERIES;
  else if (*patient == NULL && *study != NULL && *series != NULL)
    *level = INSTANCES;
  else
    {
      g_set_error (error, LB_ERROR, LB_ERROR_NOT_FOUND,
                   "%s?%s: not a DICOM patient, study or series of the folder", uri, query);
      return FALSE;
    }
  return TRUE;
}

/* The index of @folder and the parsed level of @query. */
static gboolean
open_level (LbLocalStore *self, GFile *folder, const char *query, Index *ix, Level *level,
            char **patient, char **study, char **series, GCancellable *cancellable,
            GError **error)
{
  g_autoptr(GPtrArray) entries = NULL;

  if (!parse_query (folder, query, level, patient, study, series, error))
    return FALSE;
  entries = _lb_local_store_enumerate (self, folder, cancellable, error);
  return entries != NULL && build_index (self, folder, entries, ix, cancellable, error);
}

GPtrArray *
_lb_local_store_list_dicom (LbLocalStore *self, GFile *folder, const char *query,
                            GCancellable *cancellable, GError **error)
{
  g_auto(Index) ix = { NULL, NULL };
  g_autofree char *patient = NULL, *study = NULL, *series = NULL;
  Level level;
  GPtrArray *out;

  if (!open_level (self, folder, query, &ix, &level, &patient, &study, &series, cancellable,
                   error))
    return NULL;
  out = level_entries (folder, &ix, level, patient, study, series);
  if (out->len == 0)
    {
      g_autofree char *uri = g_file_get_uri (folder);

      g_ptr_array_unref (out);
      g_set_error (error, LB_ERROR, LB_ERROR_NOT_FOUND, "%s?%s: no such DICOM %s in the folder",
                   uri, query, level == STUDIES ? "patient" : level == SERIES ? "study"
                                                                              : "series");
      return NULL;
    }
  return out;
}

LbStoreEntry *
_lb_local_store_stat_dicom (LbLocalStore *self, GFile *folder, const char *query,
                            GCancellable *cancellable, GError **error)
{
  g_auto(Index) ix = { NULL, NULL };
  g_autofree char *patient = NULL, *study = NULL, *series = NULL;
  g_autoptr(GPtrArray) entries = NULL;
  Level level;

  if (!open_level (self, folder, query, &ix, &level, &patient, &study, &series, cancellable,
                   error))
    return NULL;
  /* the entry of a level is one of its parent level's */
  entries = level_entries (folder, &ix, level - 1, NULL, level == INSTANCES ? study : NULL, NULL);
  for (guint i = 0; i < entries->len; i++)
    {
      const char *name = lb_store_entry_get_name (entries->pdata[i]);

      if (strcmp (name, level == STUDIES ? patient : level == SERIES ? study : series) == 0)
        return g_object_ref (entries->pdata[i]);
    }
  {
    g_autofree char *uri = g_file_get_uri (folder);

    g_set_error (error, LB_ERROR, LB_ERROR_NOT_FOUND, "%s?%s: no such DICOM %s in the folder",
                 uri, query, level == STUDIES ? "patient" : level == SERIES ? "study" : "series");
  }
  return NULL;
}
