/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-frame-source"

#include "lb-frame-source.h"

#include <math.h>
#include <string.h>

#include "lb-dicom-file.h"
#include "lb-dicom-frame.h"
#include "lb-dicom-multiframe.h"
#include "lb-dicom-series.h"
#include "lb-dicom-tags.h"
#include "lb-dicomweb-store.h"
#include "lb-error.h"
#include "lb-format.h"
#include "lb-image-loader.h"

struct _LbFrameSource {
  GObject      parent_instance;
  LbStore     *store;     /* NULL for a local file */
  char        *uri;
  char        *path;      /* the local file, when @uri names one */
  guint        n_frames;
  double       interval;
  GMutex       lock;      /* guards @file, opened by the first frame's thread */
  LbDicomFile *file;
  /* a series: one Slice per frame, in reading order; NULL for the frames of one object */
  GArray      *slices;
  GStrv        messages;  /* the series' warnings; NULL-ended, never NULL */
};

typedef struct {
  char           *uri;
  char           *path;
  guint           frame;         /* 0-based frame of the file */
  LbDicomDataset *ds;
  gboolean        has_location;
  double          location;      /* mm */
} Slice;

static void
slice_clear (gpointer data)
{
  Slice *slice = data;

  g_free (slice->uri);
  g_free (slice->path);
  g_clear_pointer (&slice->ds, lb_dicom_dataset_unref);
}

G_DEFINE_FINAL_TYPE (LbFrameSource, lb_frame_source, G_TYPE_OBJECT)

static void
lb_frame_source_finalize (GObject *object)
{
  LbFrameSource *self = LB_FRAME_SOURCE (object);

  g_clear_object (&self->store);
  g_clear_object (&self->file);
  g_free (self->uri);
  g_free (self->path);
  g_clear_pointer (&self->slices, g_array_unref);
  g_strfreev (self->messages);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (lb_frame_source_parent_class)->finalize (object);
}

static void
lb_frame_source_class_init (LbFrameSourceClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = lb_frame_source_finalize;
}

static void
lb_frame_source_init (LbFrameSource *self)
{
  g_mutex_init (&self->lock);
  self->messages = g_new0 (char *, 1);
}

LbFrameSource *
lb_frame_source_new (LbStore *store, const char *uri, guint n_frames)
{
  LbFrameSource *self;
  g_autofree char *path = NULL;

  g_return_val_if_fail (store == NULL || LB_IS_STORE (store), NULL);
  g_return_val_if_fail (uri != NULL, NULL);
  self = g_object_new (LB_TYPE_FRAME_SOURCE, NULL);
  self->store = store ? g_object_ref (store) : NULL;
  self->uri = g_strdup (uri);
  self->n_frames = MAX (n_frames, 1);
  /* a file of a local store is a local file: read it directly, not through the store */
  path = g_filename_from_uri (uri, NULL, NULL);
  if (path != NULL && g_file_test (path, G_FILE_TEST_IS_REGULAR))
    self->path = g_steal_pointer (&path);
  return self;
}

LbFrameSource *
lb_frame_source_new_for_image (LbStore *store, const char *uri, LbImage *image)
{
  const LbImageMeta *meta = lb_image_get_meta (image);
  const char *total = lb_image_meta_get_text (meta, LB_DICOM_META_NUMBER_OF_FRAMES);
  const char *interval = lb_image_meta_get_text (meta, LB_DICOM_META_FRAME_INTERVAL);
  guint64 n = 0;
  LbFrameSource *self;

  if (total == NULL || !g_ascii_string_to_unsigned (total, 10, 2, G_MAXINT32, &n, NULL))
    return NULL;
  self = lb_frame_source_new (store, uri, (guint) n);
  if (interval != NULL)
    self->interval = g_ascii_strtod (interval, NULL);
  if (!(self->interval > 0 && self->interval < 3600))
    self->interval = 0;
  return self;
}

guint
lb_frame_source_get_n_frames (LbFrameSource *self)
{
  g_return_val_if_fail (LB_IS_FRAME_SOURCE (self), 0);
  return self->n_frames;
}

const char *
lb_frame_source_get_uri (LbFrameSource *self)
{
  g_return_val_if_fail (LB_IS_FRAME_SOURCE (self), NULL);
  return self->uri;
}

double
lb_frame_source_get_interval (LbFrameSource *self)
{
  g_return_val_if_fail (LB_IS_FRAME_SOURCE (self), 0);
  return self->interval;
}

gboolean
lb_frame_source_is_series (LbFrameSource *self)
{
  g_return_val_if_fail (LB_IS_FRAME_SOURCE (self), FALSE);
  return self->slices != NULL;
}

static const Slice *
get_slice (LbFrameSource *self, guint number)
{
  if (self->slices == NULL || number < 1 || number > self->slices->len)
    return NULL;
  return &g_array_index (self->slices, Slice, number - 1);
}

const char *
lb_frame_source_get_frame_uri (LbFrameSource *self, guint number)
{
  const Slice *slice;

  g_return_val_if_fail (LB_IS_FRAME_SOURCE (self), NULL);
  slice = get_slice (self, number);
  return slice ? slice->uri : self->uri;
}

const LbDicomDataset *
lb_frame_source_get_dataset (LbFrameSource *self, guint number)
{
  const Slice *slice;

  g_return_val_if_fail (LB_IS_FRAME_SOURCE (self), NULL);
  slice = get_slice (self, number);
  return slice ? slice->ds : NULL;
}

gboolean
lb_frame_source_get_location (LbFrameSource *self, guint number, double *mm)
{
  const Slice *slice;

  g_return_val_if_fail (LB_IS_FRAME_SOURCE (self), FALSE);
  slice = get_slice (self, number);
  if (slice == NULL || !slice->has_location)
    return FALSE;
  *mm = slice->location;
  return TRUE;
}

const char * const *
lb_frame_source_get_messages (LbFrameSource *self)
{
  g_return_val_if_fail (LB_IS_FRAME_SOURCE (self), NULL);
  return (const char * const *) self->messages;
}

/* ---- a series: headers read on a worker thread, ordered by LbDicomSeries ---------------- */

/* Orders the slices of @datasets (URI → data set without pixel data); @what names the series
 * in errors. */
static LbFrameSource *
series_from_datasets (GHashTable *datasets, const char *what, GError **error)
{
  g_autoptr(LbDicomSeries) series = lb_dicom_series_new ();
  g_autoptr(GHashTable) uids = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTableIter iter;
  gpointer key, value;
  LbFrameSource *self;
  guint n;

  g_hash_table_iter_init (&iter, datasets);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const char *uid = lb_dicom_dataset_get_string (value, LB_TAG_SERIES_INSTANCE_UID, 0);

      if (uid != NULL)
        g_hash_table_add (uids, (gpointer) uid);
    }
  if (g_hash_table_size (datasets) == 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED, "%s holds no DICOM image", what);
      return NULL;
    }
  if (g_hash_table_size (uids) > 1)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                   "%s holds images of %u series, not one", what, g_hash_table_size (uids));
      return NULL;
    }
  g_hash_table_iter_init (&iter, datasets);
  while (g_hash_table_iter_next (&iter, &key, &value))
    lb_dicom_series_add (series, key, value);
  lb_dicom_series_sort (series);
  n = lb_dicom_series_get_n_slices (series);
  self = lb_frame_source_new (NULL, what, n);
  self->slices = g_array_sized_new (FALSE, TRUE, sizeof (Slice), n);
  g_array_set_clear_func (self->slices, slice_clear);
  for (guint i = 0; i < n; i++)
    {
      const LbDicomSlice *ds = lb_dicom_series_get_slice (series, i);
      Slice slice = {
        .uri = g_strdup (ds->name),
        .path = g_filename_from_uri (ds->name, NULL, NULL),
        .frame = ds->frame,
        .ds = lb_dicom_dataset_ref (g_hash_table_lookup (datasets, ds->name)),
        .has_location = !isnan (ds->location),
        .location = ds->location,
      };

      g_array_append_val (self->slices, slice);
    }
  g_strfreev (self->messages);
  self->messages = g_strdupv ((char **) lb_dicom_series_get_messages (series));
  return self;
}

static GHashTable *
new_dataset_table (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                (GDestroyNotify) lb_dicom_dataset_unref);
}

/* Reads the headers of @files (GFile) and orders their slices; files that are not DICOM
 * images are skipped. Runs on a worker thread. */
static LbFrameSource *
series_from_files (GPtrArray *files, const char *what, GCancellable *cancellable,
                   GError **error)
{
  g_autoptr(GHashTable) datasets = new_dataset_table ();

  for (guint i = 0; i < files->len; i++)
    {
      GFile *file = g_ptr_array_index (files, i);
      g_autoptr(GError) local = NULL;
      g_autoptr(LbDicomFile) dcm = lb_dicom_file_read_header (file, cancellable, &local);
      LbDicomDataset *ds;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      if (dcm == NULL)
        continue;  /* not DICOM, or unreadable: not a slice of the series */
      ds = lb_dicom_file_get_dataset (dcm);
      if (!lb_dicom_dataset_has (ds, LB_TAG_ROWS))
        continue;  /* an object without an image (SR, presentation state) */
      g_hash_table_insert (datasets, g_file_get_uri (file), lb_dicom_dataset_ref (ds));
    }
  return series_from_datasets (datasets, what, error);
}

static void
scan_folder (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  GFile *folder = data;
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GFileEnumerator) en = NULL;
  g_autofree char *uri = g_file_get_uri (folder);
  GError *error = NULL;
  LbFrameSource *self;

  en = g_file_enumerate_children (folder, G_FILE_ATTRIBUTE_STANDARD_NAME ","
                                  G_FILE_ATTRIBUTE_STANDARD_TYPE, G_FILE_QUERY_INFO_NONE,
                                  cancellable, &error);
  if (en == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  for (;;)
    {
      GFileInfo *info;
      GFile *child;

      if (!g_file_enumerator_iterate (en, &info, &child, cancellable, &error))
        {
          g_task_return_error (task, error);
          return;
        }
      if (info == NULL)
        break;
      if (g_file_info_get_file_type (info) == G_FILE_TYPE_REGULAR)
        g_ptr_array_add (files, g_object_ref (child));
    }
  self = series_from_files (files, uri, cancellable, &error);
  if (self == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, self, g_object_unref);
}

void
lb_frame_source_new_for_folder_async (GFile *folder, GCancellable *cancellable,
                                      GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);

  g_return_if_fail (G_IS_FILE (folder));
  g_task_set_source_tag (task, lb_frame_source_new_for_series_finish);
  g_task_set_task_data (task, g_object_ref (folder), g_object_unref);
  g_task_run_in_thread (task, scan_folder);
}

static void
scan_files (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  char **uris = data;
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);
  GError *error = NULL;
  LbFrameSource *self;

  for (guint i = 0; uris[i] != NULL; i++)
    g_ptr_array_add (files, g_file_new_for_uri (uris[i]));
  self = series_from_files (files, uris[0] ? uris[0] : "the series", cancellable, &error);
  if (self == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, self, g_object_unref);
}

void
lb_frame_source_new_for_files_async (const char * const *uris, GCancellable *cancellable,
                                     GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);

  g_return_if_fail (uris != NULL);
  g_task_set_source_tag (task, lb_frame_source_new_for_series_finish);
  g_task_set_task_data (task, g_strdupv ((char **) uris), (GDestroyNotify) g_strfreev);
  g_task_run_in_thread (task, scan_files);
}

/* ---- a store entry read whole, then decoded on a worker thread ------------------------- */

typedef struct {
  GTask           *task;
  GTaskThreadFunc  decode;
} ReadWhole;

static void
read_whole_fail (ReadWhole *rw, GError *error)
{
  g_task_return_error (rw->task, error);
  g_object_unref (rw->task);
  g_free (rw);
}

static void
on_whole_spliced (GObject *source, GAsyncResult *result, gpointer user_data)
{
  ReadWhole *rw = user_data;
  GError *error = NULL;

  if (g_output_stream_splice_finish (G_OUTPUT_STREAM (source), result, &error) < 0)
    {
      read_whole_fail (rw, error);
      return;
    }
  g_task_set_task_data (rw->task, g_memory_output_stream_steal_as_bytes (
                                    G_MEMORY_OUTPUT_STREAM (source)),
                        (GDestroyNotify) g_bytes_unref);
  g_task_run_in_thread (rw->task, rw->decode);
  g_object_unref (rw->task);
  g_free (rw);
}

static void
on_whole_opened (GObject *source, GAsyncResult *result, gpointer user_data)
{
  ReadWhole *rw = user_data;
  GError *error = NULL;
  g_autoptr(GInputStream) in = lb_store_read_finish (LB_STORE (source), result, NULL, &error);
  g_autoptr(GOutputStream) out = NULL;

  if (in == NULL)
    {
      read_whole_fail (rw, error);
      return;
    }
  out = g_memory_output_stream_new_resizable ();
  g_output_stream_splice_async (out, in, G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE
                                | G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, G_PRIORITY_DEFAULT,
                                g_task_get_cancellable (rw->task), on_whole_spliced, rw);
}

/* Reads @uri of @store whole (a frame, a slice, an image of a folder), then runs @decode on a
 * worker thread with the GBytes as @task's data; a failed read returns its error on @task.
 * Consumes @task. */
static void
read_then_decode (LbStore *store, const char *uri, GTask *task, GTaskThreadFunc decode)
{
  ReadWhole *rw = g_new0 (ReadWhole, 1);

  rw->task = task;
  rw->decode = decode;
  lb_store_read_async (store, uri, g_task_get_cancellable (task), NULL, NULL, on_whole_opened,
                       rw);
}

/* ---- the images of a store folder: read whole, checked alike, ordered ------------------- */

/* What one image of a folder is, for the checks that make the folder one stack. */
typedef struct {
  char           *uri;
  char           *kind;    /* "DICOM", "PNG" or "image": a stack is of one kind; NULL: skip */
  guint           width;
  guint           height;
  char           *format;  /* the samples: "gray16", or a DICOM header's "16-bit × 1" */
  char           *sort_key; /* natural, case-folded name, as the store tree sorts */
  LbDicomDataset *ds;      /* DICOM only */
} FolderImage;

static void
folder_image_free (gpointer data)
{
  FolderImage *image = data;

  g_free (image->uri);
  g_free (image->kind);
  g_free (image->format);
  g_free (image->sort_key);
  g_clear_pointer (&image->ds, lb_dicom_dataset_unref);
  g_free (image);
}

static int
compare_natural (gconstpointer a, gconstpointer b)
{
  const FolderImage *ia = *(FolderImage * const *) a;
  const FolderImage *ib = *(FolderImage * const *) b;
  int cmp = strcmp (ia->sort_key, ib->sort_key);

  return cmp != 0 ? cmp : strcmp (ia->uri, ib->uri);
}

/* One stack of @images (FolderImage) of @store, or an error naming the first image that is
 * not like the others (%LB_ERROR_INVALID_ARGUMENT: the message is its own reason, see
 * lb-messages.c): a folder of mixed sizes or formats is not a stack and stays a folder.
 * DICOM slices are ordered as a series (along the normal, InstanceNumber, name); other images
 * by natural name order, "slice2" before "slice10", as the store tree sorts them. */
static LbFrameSource *
series_from_images (LbStore *store, GPtrArray *images, const char *what, GError **error)
{
  const FolderImage *first;
  LbFrameSource *self;

  if (images->len == 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT, "%s holds no image", what);
      return NULL;
    }
  /* in natural order whatever order they arrived in: the same two images are named each time */
  for (guint i = 0; i < images->len; i++)
    {
      FolderImage *image = g_ptr_array_index (images, i);
      g_autofree char *name = lb_store_uri_display_name (image->uri);
      g_autofree char *folded = g_utf8_casefold (name, -1);

      image->sort_key = g_utf8_collate_key_for_filename (folded, -1);
    }
  g_ptr_array_sort (images, compare_natural);
  first = g_ptr_array_index (images, 0);
  for (guint i = 1; i < images->len; i++)
    {
      const FolderImage *image = g_ptr_array_index (images, i);

      g_autofree char *first_name = NULL, *name = NULL;

      if (strcmp (image->kind, first->kind) == 0 && image->width == first->width
          && image->height == first->height && strcmp (image->format, first->format) == 0)
        continue;
      /* the images by their names in the folder: the folder is named before them */
      first_name = lb_store_uri_display_name (first->uri);
      name = lb_store_uri_display_name (image->uri);
      if (strcmp (image->kind, first->kind) != 0)
        g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                     "%s is not one stack: %s is %s, %s is %s", what, first_name,
                     first->kind, name, image->kind);
      else
        g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                     "%s is not one stack: %s is %u×%u %s, %s is %u×%u %s", what, first_name,
                     first->width, first->height, first->format, name, image->width,
                     image->height, image->format);
      return NULL;
    }
  if (first->ds != NULL)
    {
      g_autoptr(GHashTable) datasets = new_dataset_table ();

      for (guint i = 0; i < images->len; i++)
        {
          const FolderImage *image = g_ptr_array_index (images, i);

          g_hash_table_insert (datasets, g_strdup (image->uri),
                               lb_dicom_dataset_ref (image->ds));
        }
      self = series_from_datasets (datasets, what, error);
    }
  else
    {
      self = lb_frame_source_new (NULL, what, images->len);
      self->slices = g_array_sized_new (FALSE, TRUE, sizeof (Slice), images->len);
      g_array_set_clear_func (self->slices, slice_clear);
      for (guint i = 0; i < images->len; i++)
        {
          const FolderImage *image = g_ptr_array_index (images, i);
          Slice slice = { .uri = g_strdup (image->uri) };

          g_array_append_val (self->slices, slice);
        }
    }
  if (self != NULL)
    self->store = g_object_ref (store);
  return self;
}

typedef struct {
  LbStore   *store;
  GStrv      uris;
  guint      next;       /* the index in @uris to read next */
  guint      in_flight;  /* images being read or decoded */
  GPtrArray *images;     /* FolderImage, in the order they arrived */
  GError    *error;      /* the first failure: no more reads start */
  char      *what;
} StoreScan;

/* Images of a folder read at once: a few, as the series loader's default (the
 * series-parallel-loads setting), so that a 300-image folder is not 300 round trips in a
 * row, nor 300 requests at once. */
#define STORE_SCAN_PARALLEL 4

static void
store_scan_free (gpointer data)
{
  StoreScan *scan = data;

  g_object_unref (scan->store);
  g_strfreev (scan->uris);
  g_ptr_array_unref (scan->images);
  g_clear_error (&scan->error);
  g_free (scan->what);
  g_free (scan);
}

static void store_scan_next (GTask *task);

/* Decodes one image of the folder on a worker thread, for its size and format. */
static void
probe_image (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  GBytes *bytes = data;
  const char *uri = g_object_get_data (G_OBJECT (task), "lb-uri");
  gsize len = 0;
  const guint8 *head = g_bytes_get_data (bytes, &len);
  static const guint8 png[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
  FolderImage *info = g_new0 (FolderImage, 1);
  GError *error = NULL;
  g_autoptr(LbImage) image = NULL;

  info->uri = g_strdup (uri);
  if (lb_dicom_sniff (head, len, uri))
    {
      /* the header says size and samples: no frame decoded twice (it may be JPEG 2000) */
      g_autoptr(LbDicomFile) dcm = lb_dicom_file_new_from_bytes (bytes, uri,
                                                                LB_DICOM_READ_HEADER_ONLY,
                                                                NULL, &error);
      LbDicomDataset *ds = dcm ? lb_dicom_file_get_dataset (dcm) : NULL;
      gint64 rows = 0, columns = 0, bits = 0, samples = 1;

      if (dcm == NULL)
        {
          folder_image_free (info);
          g_task_return_error (task, error);
          return;
        }
      if (lb_dicom_dataset_get_int (ds, LB_TAG_ROWS, 0, &rows)
          && lb_dicom_dataset_get_int (ds, LB_TAG_COLUMNS, 0, &columns))
        {
          /* an object without an image (SR, presentation state) is not a slice: kind NULL */
          info->kind = g_strdup ("DICOM");
          info->ds = lb_dicom_dataset_ref (ds);
          lb_dicom_dataset_get_int (ds, LB_TAG_BITS_ALLOCATED, 0, &bits);
          lb_dicom_dataset_get_int (ds, LB_TAG_SAMPLES_PER_PIXEL, 0, &samples);
          info->width = (guint) CLAMP (columns, 0, G_MAXUINT);
          info->height = (guint) CLAMP (rows, 0, G_MAXUINT);
          info->format = g_strdup_printf ("%" G_GINT64_FORMAT "-bit × %" G_GINT64_FORMAT,
                                          bits, samples);
        }
    }
  else
    {
      image = lb_image_load_bytes (bytes, uri, NULL, &error);
      if (image == NULL)
        {
          folder_image_free (info);
          g_task_return_error (task, error);
          return;
        }
      info->kind = g_strdup (len >= 8 && memcmp (head, png, 8) == 0 ? "PNG" : "image");
      info->width = lb_image_get_width (image);
      info->height = lb_image_get_height (image);
      info->format = g_strdup (lb_sample_format_to_string (lb_image_get_format (image)));
    }
  g_task_return_pointer (task, info, folder_image_free);
}

static void
on_image_probed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  StoreScan *scan = g_task_get_task_data (task);
  GError *error = NULL;
  FolderImage *info = g_task_propagate_pointer (G_TASK (result), &error);

  scan->in_flight--;
  if (info != NULL && info->kind == NULL)
    folder_image_free (info);  /* not an image */
  else if (info != NULL)
    g_ptr_array_add (scan->images, info);
  else if (scan->error == NULL)
    scan->error = error;
  else
    g_error_free (error);
  store_scan_next (task);
}

/* Starts reading images, up to STORE_SCAN_PARALLEL at once; when all are in (or one failed
 * and the others are over), returns the stack on @task and drops its reference. */
static void
store_scan_next (GTask *task)
{
  StoreScan *scan = g_task_get_task_data (task);
  GError *error = NULL;
  LbFrameSource *self;

  while (scan->error == NULL && scan->uris[scan->next] != NULL
         && scan->in_flight < STORE_SCAN_PARALLEL)
    {
      const char *uri = scan->uris[scan->next++];
      GTask *probe = g_task_new (NULL, g_task_get_cancellable (task), on_image_probed, task);

      /* set before the thread runs, only read there */
      g_object_set_data_full (G_OBJECT (probe), "lb-uri", g_strdup (uri), g_free);
      scan->in_flight++;
      read_then_decode (scan->store, uri, probe, probe_image);
    }
  if (scan->in_flight > 0)
    return;
  if (scan->error != NULL)
    {
      g_task_return_error (task, g_steal_pointer (&scan->error));
      g_object_unref (task);
      return;
    }
  self = series_from_images (scan->store, scan->images, scan->what, &error);
  if (self == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, self, g_object_unref);
  g_object_unref (task);
}

void
lb_frame_source_new_for_store_files_async (LbStore *store, const char *what,
                                           const char * const *uris, GCancellable *cancellable,
                                           GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  StoreScan *scan = g_new0 (StoreScan, 1);

  g_return_if_fail (LB_IS_STORE (store) && what != NULL && uris != NULL);
  g_task_set_source_tag (task, lb_frame_source_new_for_series_finish);
  scan->store = g_object_ref (store);
  scan->uris = g_strdupv ((char **) uris);
  scan->images = g_ptr_array_new_with_free_func (folder_image_free);
  scan->what = g_strdup (what);
  g_task_set_task_data (task, scan, store_scan_free);
  store_scan_next (task);
}

/* ---- a DICOMweb series: its metadata in one request ------------------------------------ */

static void
on_series_metadata (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  LbDicomwebStore *store = LB_DICOMWEB_STORE (source);
  const char *uri = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(GPtrArray) uris = NULL;
  g_autoptr(GPtrArray) found = lb_dicomweb_store_series_metadata_finish (store, result, &uris,
                                                                         &error);
  g_autoptr(GHashTable) datasets = new_dataset_table ();
  LbFrameSource *self;

  if (found == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  for (guint i = 0; i < found->len; i++)
    if (lb_dicom_dataset_has (found->pdata[i], LB_TAG_ROWS))  /* images only, not SR */
      g_hash_table_insert (datasets, g_strdup (uris->pdata[i]),
                           lb_dicom_dataset_ref (found->pdata[i]));
  self = series_from_datasets (datasets, uri, &error);
  if (self == NULL)
    g_task_return_error (task, error);
  else
    {
      self->store = g_object_ref (LB_STORE (store));
      g_task_return_pointer (task, self, g_object_unref);
    }
  g_object_unref (task);
}

void
lb_frame_source_new_for_store_series_async (LbStore *store, const char *uri,
                                             GCancellable *cancellable,
                                             GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);

  g_return_if_fail (LB_IS_STORE (store) && uri != NULL);
  g_task_set_source_tag (task, lb_frame_source_new_for_series_finish);
  g_task_set_task_data (task, g_strdup (uri), g_free);
  if (!LB_IS_DICOMWEB_STORE (store))
    {
      g_task_return_new_error (task, LB_ERROR, LB_ERROR_UNSUPPORTED,
                               "%s: only DICOMweb series open from their metadata", uri);
      g_object_unref (task);
      return;
    }
  lb_dicomweb_store_series_metadata_async (LB_DICOMWEB_STORE (store), uri, cancellable,
                                           on_series_metadata, task);
}

LbFrameSource *
lb_frame_source_new_for_series_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- local files: map once, decode each frame on a worker thread ------------------------ */

static void
decode_file_frame (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  LbFrameSource *self = source;
  guint number = GPOINTER_TO_UINT (data);
  g_autoptr(LbDicomFile) file = NULL;
  GError *error = NULL;
  LbImage *image;
  const Slice *slice = get_slice (self, number);

  if (slice != NULL)
    {
      /* a slice of a series: its own file, mapped for this frame only, so that memory stays
       * bounded by the slices shown, not the series */
      if (slice->path == NULL)
        {
          g_task_return_new_error (task, LB_ERROR, LB_ERROR_UNSUPPORTED,
                                   "%s: not a local file", slice->uri);
          return;
        }
      file = lb_dicom_file_new_for_path (slice->path, LB_DICOM_READ_DEFAULT, NULL, &error);
      image = file ? lb_dicom_file_decode_frame (file, slice->frame, NULL, &error) : NULL;
      if (image == NULL)
        g_task_return_error (task, error);
      else
        g_task_return_pointer (task, image, g_object_unref);
      return;
    }
  g_mutex_lock (&self->lock);
  if (self->file == NULL)
    self->file = lb_dicom_file_new_for_path (self->path, LB_DICOM_READ_DEFAULT, NULL, &error);
  file = self->file ? g_object_ref (self->file) : NULL;
  g_mutex_unlock (&self->lock);
  if (file == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (!lb_dicom_check_frame_number (number, lb_dicom_file_get_n_frames (file), self->uri,
                                    &error))
    {
      g_task_return_error (task, error);
      return;
    }
  image = lb_dicom_file_decode_frame (file, number - 1, NULL, &error);
  if (image == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, image, g_object_unref);
}

/* ---- stores: WADO-RS …/frames/N, collected, then decoded on a worker thread ------------- */

static void
decode_bytes (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  LbFrameSource *self = source;
  GError *error = NULL;
  LbImage *image = lb_image_load_bytes (data, self->uri, NULL, &error);

  if (image == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, image, g_object_unref);
}

/* A slice of a store folder, read whole: a DICOM slice is frame slice->frame of its object
 * (a multi-frame object in the folder gives one slice per frame), any other image its one
 * picture. */
static void
decode_slice_bytes (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  LbFrameSource *self = source;
  guint number = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (task), "lb-number"));
  const Slice *slice = get_slice (self, number);
  g_autoptr(LbDicomFile) file = NULL;
  GError *error = NULL;
  LbImage *image;

  if (slice->ds == NULL)
    image = lb_image_load_bytes (data, slice->uri, NULL, &error);
  else
    {
      file = lb_dicom_file_new_from_bytes (data, slice->uri, LB_DICOM_READ_DEFAULT, NULL,
                                           &error);
      image = file ? lb_dicom_file_decode_frame (file, slice->frame, NULL, &error) : NULL;
    }
  if (image == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, image, g_object_unref);
}

static void
on_dicomweb_frame (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  GError *error = NULL;
  LbImage *image = lb_dicomweb_store_fetch_image_finish (LB_DICOMWEB_STORE (source), result,
                                                         NULL, &error);

  if (image == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, image, g_object_unref);
  g_object_unref (task);
}

void
lb_frame_source_load_async (LbFrameSource *self, guint number, GCancellable *cancellable,
                            GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task;
  GError *error = NULL;

  g_return_if_fail (LB_IS_FRAME_SOURCE (self));
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, lb_frame_source_load_async);
  if (!lb_dicom_check_frame_number (number, self->n_frames, self->uri, &error))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  if (self->slices != NULL && get_slice (self, number)->path == NULL && self->store != NULL
      && LB_IS_DICOMWEB_STORE (self->store))
    {
      const Slice *slice = get_slice (self, number);
      /* WADO-RS frames of the instance, with the metadata the series gave (no request of its
       * own) */
      g_autofree char *frame_uri = g_strdup_printf ("%s/frames/%u", slice->uri, slice->frame + 1);

      lb_dicomweb_store_fetch_frame_async (LB_DICOMWEB_STORE (self->store), frame_uri,
                                           slice->ds, NULL, cancellable, on_dicomweb_frame, task);
      return;
    }
  if (self->slices != NULL && get_slice (self, number)->path == NULL && self->store != NULL)
    {
      /* a slice of a store folder: its whole file through the store, decoded on a thread */
      const Slice *slice = get_slice (self, number);

      g_object_set_data (G_OBJECT (task), "lb-number", GUINT_TO_POINTER (number));
      read_then_decode (self->store, slice->uri, task, decode_slice_bytes);
      return;
    }
  if (self->path != NULL || self->slices != NULL)
    {
      g_task_set_task_data (task, GUINT_TO_POINTER (number), NULL);
      g_task_run_in_thread (task, decode_file_frame);
      g_object_unref (task);
      return;
    }
  if (self->store == NULL)
    {
      g_task_return_new_error (task, LB_ERROR, LB_ERROR_UNSUPPORTED,
                               "%s: frame %u cannot be read: not a local file or a store entry",
                               self->uri, number);
      g_object_unref (task);
      return;
    }
  {
    /* WADO-RS frame resource (PS3.18 §10.4.1.1.1); the DICOMweb store takes it as a location */
    g_autofree char *frame_uri = g_strdup_printf ("%s%sframes/%u", self->uri,
                                                  g_str_has_suffix (self->uri, "/") ? "" : "/",
                                                  number);

    read_then_decode (self->store, frame_uri, task, decode_bytes);
  }
}

LbImage *
lb_frame_source_load_finish (LbFrameSource *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
