/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicomdir"

#include "lb-dicomdir.h"

#include <string.h>

#include "lb-dicom-file-private.h"
#include "lb-dicom-tags.h"
#include "lb-error.h"

/* A DICOMDIR holds records, not pixels: a deflated one may inflate to 64 MiB at most. */
static const LbLimits dicomdir_limits = { 1, 64 << 20 };

struct _LbDicomdirRecord {
  char           *type;
  LbDicomDataset *dataset;   /* the record item (owned ref) */
  char           *file_id;
  char           *path;
  GPtrArray      *children;  /* LbDicomdirRecord*, borrowed from the dir's records */
  gboolean        placed;    /* in the tree already (a record has one parent) */
};

struct _LbDicomdir {
  GObject parent_instance;

  /* Owned */
  char       *folder;
  GPtrArray  *records;   /* every record in file order (owns them) */
  GPtrArray  *roots;     /* borrowed from records */
  GHashTable *by_path;   /* path → borrowed record */
  GHashTable *listings;  /* folder → GHashTable (lower-case name → real name), while resolving */
};

G_DEFINE_FINAL_TYPE (LbDicomdir, lb_dicomdir, G_TYPE_OBJECT)

/* ---- records ---------------------------------------------------------------------------------- */

static void
record_free (gpointer data)
{
  LbDicomdirRecord *r = data;

  g_free (r->type);
  g_clear_pointer (&r->dataset, lb_dicom_dataset_unref);
  g_free (r->file_id);
  g_free (r->path);
  g_ptr_array_unref (r->children);
  g_free (r);
}

const char *
lb_dicomdir_record_get_type_name (const LbDicomdirRecord *record)
{
  g_return_val_if_fail (record != NULL, NULL);
  return record->type;
}

LbDicomDataset *
lb_dicomdir_record_get_dataset (const LbDicomdirRecord *record)
{
  g_return_val_if_fail (record != NULL, NULL);
  return record->dataset;
}

const char *
lb_dicomdir_record_get_file_id (const LbDicomdirRecord *record)
{
  g_return_val_if_fail (record != NULL, NULL);
  return record->file_id;
}

const char *
lb_dicomdir_record_get_path (const LbDicomdirRecord *record)
{
  g_return_val_if_fail (record != NULL, NULL);
  return record->path;
}

guint
lb_dicomdir_record_get_n_children (const LbDicomdirRecord *record)
{
  g_return_val_if_fail (record != NULL, 0);
  return record->children->len;
}

const LbDicomdirRecord *
lb_dicomdir_record_get_child (const LbDicomdirRecord *record, guint index)
{
  g_return_val_if_fail (record != NULL, NULL);
  g_return_val_if_fail (index < record->children->len, NULL);
  return record->children->pdata[index];
}

/* ---- the object ------------------------------------------------------------------------------- */

static void
lb_dicomdir_finalize (GObject *object)
{
  LbDicomdir *self = LB_DICOMDIR (object);

  g_free (self->folder);
  g_clear_pointer (&self->roots, g_ptr_array_unref);
  g_clear_pointer (&self->records, g_ptr_array_unref);
  g_clear_pointer (&self->by_path, g_hash_table_unref);
  g_clear_pointer (&self->listings, g_hash_table_unref);
  G_OBJECT_CLASS (lb_dicomdir_parent_class)->finalize (object);
}

static void
lb_dicomdir_class_init (LbDicomdirClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = lb_dicomdir_finalize;
}

static void
lb_dicomdir_init (LbDicomdir *self)
{
  self->records = g_ptr_array_new_with_free_func (record_free);
  self->roots = g_ptr_array_new ();
  self->by_path = g_hash_table_new (g_str_hash, g_str_equal);
}

gboolean
lb_dicomdir_is_name (const char *basename)
{
  g_return_val_if_fail (basename != NULL, FALSE);
  return g_ascii_strcasecmp (basename, "DICOMDIR") == 0
         || g_ascii_strcasecmp (basename, "DICOMDIR;1") == 0
         || g_ascii_strcasecmp (basename, "DICOMDIR.") == 0;
}

/* ---- file IDs → paths ------------------------------------------------------------------------- */

/* The entries of @folder by lower-case name, read once. CDs carry ISO 9660 names (upper case,
 * maybe with a ";1" version) that a mount may show in lower case, and a copy on a stick may
 * have changed case again. */
static GHashTable *
listing (LbDicomdir *self, const char *folder)
{
  GHashTable *names = g_hash_table_lookup (self->listings, folder);
  g_autoptr(GDir) dir = NULL;
  const char *entry;

  if (names != NULL)
    return names;
  names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  dir = g_dir_open (folder, 0, NULL);
  while (dir != NULL && (entry = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *lower = g_ascii_strdown (entry, -1);
      gsize n = strlen (lower);

      if (n > 2 && strcmp (lower + n - 2, ";1") == 0)
        lower[n - 2] = '\0';
      /* an exact name wins over a version-suffixed one */
      if (!g_hash_table_contains (names, lower) || strchr (entry, ';') == NULL)
        g_hash_table_replace (names, g_steal_pointer (&lower), g_strdup (entry));
    }
  g_hash_table_insert (self->listings, g_strdup (folder), names);
  return names;
}

/* ReferencedFileID (PS3.10 §8.5: up to 8 components of up to 8 characters, a path relative to
 * the DICOMDIR's folder) → the file on disk, or NULL. */
static char *
resolve (LbDicomdir *self, GPtrArray *components)
{
  g_autofree char *dir = g_strdup (self->folder);

  for (guint i = 0; i < components->len; i++)
    {
      const char *c = components->pdata[i];
      g_autofree char *lower = NULL;
      const char *real;
      char *next;

      if (c == NULL || *c == '\0' || strcmp (c, ".") == 0 || strcmp (c, "..") == 0
          || strchr (c, '/') != NULL)
        return NULL; /* never outside the file-set */
      lower = g_ascii_strdown (c, -1);
      real = g_hash_table_lookup (listing (self, dir), lower);
      if (real == NULL)
        return NULL;
      next = g_build_filename (dir, real, NULL);
      g_free (dir);
      dir = next;
    }
  return g_file_test (dir, G_FILE_TEST_IS_REGULAR) ? g_steal_pointer (&dir) : NULL;
}

/* ---- the tree (PS3.3 F.3.2.2) ----------------------------------------------------------------- */

static gint64
offset_of (LbDicomDataset *ds, guint32 tag)
{
  gint64 v;

  return lb_dicom_dataset_get_int (ds, tag, 0, &v) ? v : 0;
}

static int
record_at (GArray *offsets, gint64 offset)
{
  /* item offsets increase: a binary search */
  guint lo = 0, hi = offsets->len;

  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;
      gint64 o = (gint64) g_array_index (offsets, gsize, mid);

      if (o == offset)
        return (int) mid;
      if (o < offset)
        lo = mid + 1;
      else
        hi = mid;
    }
  return -1;
}

/* The sibling chain that starts at @offset, each with its lower level, into @parent_children.
 * FALSE when an offset points at no record or at one already placed (a loop). */
static gboolean
link_chain (LbDicomdir *self, GArray *offsets, gint64 offset, GPtrArray *into, guint depth)
{
  while (offset != 0)
    {
      int i = record_at (offsets, offset);
      LbDicomdirRecord *r;

      if (i < 0 || depth > 16)
        return FALSE;
      r = self->records->pdata[i];
      if (r->placed)
        return FALSE;
      r->placed = TRUE;
      g_ptr_array_add (into, r);
      if (!link_chain (self, offsets, offset_of (r->dataset, LB_TAG_LOWER_LEVEL_OFFSET),
                       r->children, depth + 1))
        return FALSE;
      offset = offset_of (r->dataset, LB_TAG_NEXT_RECORD_OFFSET);
    }
  return TRUE;
}

/* Level of a record type: PATIENT 0, STUDY 1, SERIES 2, everything below a series 3
 * (PS3.3 Table F.4-1; HL7 structured documents, hanging protocols and the like sit at the root,
 * where the offsets put them anyway). */
static guint
type_level (const char *type)
{
  if (g_strcmp0 (type, "PATIENT") == 0)
    return 0;
  if (g_strcmp0 (type, "STUDY") == 0)
    return 1;
  if (g_strcmp0 (type, "SERIES") == 0)
    return 2;
  return 3;
}

/* Without usable offsets: records in file order, each under the last record of a higher level. */
static void
link_by_order (LbDicomdir *self)
{
  LbDicomdirRecord *open[4] = { NULL, NULL, NULL, NULL };

  g_ptr_array_set_size (self->roots, 0);
  for (guint i = 0; i < self->records->len; i++)
    g_ptr_array_set_size (((LbDicomdirRecord *) self->records->pdata[i])->children, 0);
  for (guint i = 0; i < self->records->len; i++)
    {
      LbDicomdirRecord *r = self->records->pdata[i];
      guint level = type_level (r->type);
      LbDicomdirRecord *parent = NULL;

      for (int l = (int) level - 1; l >= 0 && parent == NULL; l--)
        parent = open[l];
      g_ptr_array_add (parent ? parent->children : self->roots, r);
      open[level] = r;
      for (guint l = level + 1; l < 4; l++)
        open[l] = NULL;
    }
}

static gboolean
record_in_use (const LbDicomdirRecord *r)
{
  return !lb_dicom_dataset_has (r->dataset, LB_TAG_RECORD_IN_USE_FLAG)
         || offset_of (r->dataset, LB_TAG_RECORD_IN_USE_FLAG) != 0;
}

/* TRUE when the offsets reached every record in use. */
static gboolean
all_placed (LbDicomdir *self)
{
  for (guint i = 0; i < self->records->len; i++)
    {
      LbDicomdirRecord *r = self->records->pdata[i];

      if (!r->placed && record_in_use (r))
        return FALSE;
    }
  return TRUE;
}

static void
prune_unused (GPtrArray *records)
{
  for (guint k = records->len; k > 0; k--)
    {
      if (!record_in_use (records->pdata[k - 1]))
        g_ptr_array_remove_index (records, k - 1);
    }
}

LbDicomdir *
lb_dicomdir_new_from_bytes (GBytes *bytes, const char *path, const char *folder,
                            GCancellable *cancellable, GError **error)
{
  g_autoptr(LbDicomdir) self = NULL;
  g_autoptr(LbDicomFile) file = NULL;
  LbDicomDataset *ds;
  guint n;
  gint64 root;

  g_return_val_if_fail (bytes != NULL, NULL);
  g_return_val_if_fail (path != NULL && folder != NULL, NULL);
  file = _lb_dicom_file_read (bytes, path, LB_DICOM_READ_DEFAULT, &dicomdir_limits,
                              LB_TAG_DIRECTORY_RECORD_SEQUENCE, error);
  if (file == NULL)
    return NULL;
  ds = lb_dicom_file_get_dataset (file);
  if (!lb_dicom_dataset_has (ds, LB_TAG_DIRECTORY_RECORD_SEQUENCE))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                   "%s: not a DICOMDIR: no Directory Record Sequence (0004,1220)", path);
      return NULL;
    }

  self = g_object_new (LB_TYPE_DICOMDIR, NULL);
  self->folder = g_strdup (folder);
  self->listings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                          (GDestroyNotify) g_hash_table_unref);
  n = lb_dicom_dataset_get_n_items (ds, LB_TAG_DIRECTORY_RECORD_SEQUENCE);
  for (guint i = 0; i < n; i++)
    {
      LbDicomDataset *item = lb_dicom_dataset_get_item (ds, LB_TAG_DIRECTORY_RECORD_SEQUENCE, i);
      LbDicomdirRecord *r = g_new0 (LbDicomdirRecord, 1);
      guint nid = lb_dicom_dataset_get_n_values (item, LB_TAG_REFERENCED_FILE_ID);

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          record_free (r);
          return NULL;
        }
      r->dataset = lb_dicom_dataset_ref (item);
      r->type = g_strdup (lb_dicom_dataset_get_string (item, LB_TAG_DIRECTORY_RECORD_TYPE, 0));
      if (r->type == NULL)
        r->type = g_strdup ("(no type)");
      r->children = g_ptr_array_new ();
      if (nid > 0)
        {
          g_autoptr(GPtrArray) comps = g_ptr_array_new ();

          for (guint k = 0; k < nid; k++)
            g_ptr_array_add (comps, (gpointer) lb_dicom_dataset_get_string (
                                      item, LB_TAG_REFERENCED_FILE_ID, k));
          g_ptr_array_add (comps, NULL);
          r->file_id = g_strjoinv ("/", (char **) comps->pdata);
          g_ptr_array_set_size (comps, comps->len - 1);
          r->path = resolve (self, comps);
          if (r->path != NULL)
            g_hash_table_replace (self->by_path, r->path, r);
        }
      g_ptr_array_add (self->records, r);
    }
  g_clear_pointer (&self->listings, g_hash_table_unref);

  /* the tree the offsets make; the file order when they make none */
  root = offset_of (ds, LB_TAG_ROOT_FIRST_RECORD_OFFSET);
  if (n == 0)
    ;
  else if (file->item_offsets == NULL || file->item_offsets->len != n || root == 0
      || !link_chain (self, file->item_offsets, root, self->roots, 0)
      || !all_placed (self))
    {
      /* nothing is lost to broken offsets: every record in use appears somewhere */
      g_debug ("%s: directory record offsets unusable, records placed by order", path);
      link_by_order (self);
    }

  /* records not in use (RecordInUseFlag 0, retired) and their subtrees are gone */
  prune_unused (self->roots);
  for (guint i = 0; i < self->records->len; i++)
    prune_unused (((LbDicomdirRecord *) self->records->pdata[i])->children);
  return g_steal_pointer (&self);
}

LbDicomdir *
lb_dicomdir_new_for_path (const char *path, GCancellable *cancellable, GError **error)
{
  g_autoptr(GMappedFile) mapped = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) local = NULL;
  g_autofree char *folder = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  mapped = g_mapped_file_new (path, FALSE, &local);
  if (mapped == NULL)
    {
      g_set_error (error, LB_ERROR,
                   g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT) ? LB_ERROR_NOT_FOUND
                   : LB_ERROR_FAILED, "%s", local->message);
      return NULL;
    }
  bytes = g_mapped_file_get_bytes (mapped);
  folder = g_path_get_dirname (path);
  return lb_dicomdir_new_from_bytes (bytes, path, folder, cancellable, error);
}

const char *
lb_dicomdir_get_folder (LbDicomdir *self)
{
  g_return_val_if_fail (LB_IS_DICOMDIR (self), NULL);
  return self->folder;
}

guint
lb_dicomdir_get_n_roots (LbDicomdir *self)
{
  g_return_val_if_fail (LB_IS_DICOMDIR (self), 0);
  return self->roots->len;
}

const LbDicomdirRecord *
lb_dicomdir_get_root (LbDicomdir *self, guint index)
{
  g_return_val_if_fail (LB_IS_DICOMDIR (self), NULL);
  g_return_val_if_fail (index < self->roots->len, NULL);
  return self->roots->pdata[index];
}

const LbDicomdirRecord *
lb_dicomdir_find_path (LbDicomdir *self, const char *path)
{
  g_return_val_if_fail (LB_IS_DICOMDIR (self), NULL);
  g_return_val_if_fail (path != NULL, NULL);
  return g_hash_table_lookup (self->by_path, path);
}
