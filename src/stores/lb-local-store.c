/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-local-store"

#include "lb-local-store-private.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "lb-dicomdir.h"
#include "lb-error.h"

static void lb_local_store_iface_init (LbStoreInterface *iface);

G_DEFINE_TYPE_WITH_CODE (LbLocalStore, lb_local_store, G_TYPE_OBJECT,
                         G_IMPLEMENT_INTERFACE (LB_TYPE_STORE, lb_local_store_iface_init))

typedef struct {
  GFile                 *file;          /* owned */
  GInputStream          *source;        /* owned, write only */
  gint64                 size;
  LbStoreWriteMode       mode;
  char                  *etag;          /* owned, nullable */
  GFileProgressCallback  progress;
  gpointer               progress_data;
  GMainContext          *context;       /* owned: where progress is reported */
  LbStoreEntry          *entry;         /* owned, read: info of the opened file */
  char                  *query;         /* owned, nullable: a DICOM level in the folder @file
                                         * (lb-local-store-dicom.c) */
} Op;

static void
op_free (gpointer data)
{
  Op *op = data;

  g_clear_object (&op->file);
  g_clear_object (&op->source);
  g_free (op->etag);
  g_clear_pointer (&op->context, g_main_context_unref);
  g_clear_object (&op->entry);
  g_free (op->query);
  g_free (op);
}

/* GIO errors → LB_ERROR with the URI in front; cancellation stays G_IO_ERROR_CANCELLED. */
GError *
_lb_local_store_map_error (GFile *file, GError *error)
{
  g_autofree char *uri = g_file_get_uri (file);
  LbError code;
  GError *mapped;

  if (error->domain == LB_ERROR)
    {
      g_prefix_error (&error, "%s: ", uri);
      return error;
    }
  if (error->domain != G_IO_ERROR || error->code == G_IO_ERROR_CANCELLED)
    return error;
  switch (error->code)
    {
    case G_IO_ERROR_NOT_FOUND: code = LB_ERROR_NOT_FOUND; break;
    case G_IO_ERROR_PERMISSION_DENIED: code = LB_ERROR_PERMISSION; break;
    case G_IO_ERROR_EXISTS:
    case G_IO_ERROR_WRONG_ETAG:
    case G_IO_ERROR_IS_DIRECTORY:
    case G_IO_ERROR_NOT_DIRECTORY: code = LB_ERROR_CONFLICT; break;
    case G_IO_ERROR_NO_SPACE:
    case G_IO_ERROR_FILENAME_TOO_LONG: code = LB_ERROR_TOO_LARGE; break;
    case G_IO_ERROR_NOT_SUPPORTED: code = LB_ERROR_UNSUPPORTED; break;
    default: code = LB_ERROR_FAILED; break;
    }
  mapped = g_error_new (LB_ERROR, code, "%s: %s", uri, error->message);
  g_error_free (error);
  return mapped;
}

LbStoreEntry *
_lb_local_store_entry_from_info (GFile *file, GFileInfo *info)
{
  g_autofree char *uri = g_file_get_uri (file);
  g_autofree char *name = g_file_get_basename (file);
  g_autofree char *display = NULL;
  const char *content_type = NULL;
  LbStoreEntryKind kind;
  LbStoreEntry *entry;

  if (g_file_info_has_attribute (info, G_FILE_ATTRIBUTE_STANDARD_CONTENT_TYPE))
    content_type = g_file_info_get_content_type (info);
  if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
    kind = LB_STORE_ENTRY_DIRECTORY;
  else
    {
      g_autofree char *mime = content_type != NULL ? g_content_type_get_mime_type (content_type) : NULL;
      kind = lb_store_entry_guess_file_kind (name, mime);
    }
  if (g_file_info_has_attribute (info, G_FILE_ATTRIBUTE_STANDARD_DISPLAY_NAME))
    display = g_strdup (g_file_info_get_display_name (info));
  else
    display = g_filename_display_name (name);
  entry = lb_store_entry_new (uri, display, kind);
  /* which folder it is, whatever the path (links are followed): a walk finds loops by it */
  if (kind == LB_STORE_ENTRY_DIRECTORY
      && g_file_info_has_attribute (info, G_FILE_ATTRIBUTE_UNIX_INODE))
    {
      g_autofree char *identity =
        g_strdup_printf ("%u:%" G_GUINT64_FORMAT,
                         g_file_info_get_attribute_uint32 (info, G_FILE_ATTRIBUTE_UNIX_DEVICE),
                         g_file_info_get_attribute_uint64 (info, G_FILE_ATTRIBUTE_UNIX_INODE));
      lb_store_entry_set_attribute (entry, "lb:identity", identity);
    }
  if (kind != LB_STORE_ENTRY_DIRECTORY)
    {
      if (g_file_info_has_attribute (info, G_FILE_ATTRIBUTE_STANDARD_SIZE))
        lb_store_entry_set_size (entry, g_file_info_get_size (info));
      if (content_type != NULL)
        {
          g_autofree char *mime = g_content_type_get_mime_type (content_type);
          lb_store_entry_set_content_type (entry, mime);
        }
    }
  if (g_file_info_has_attribute (info, G_FILE_ATTRIBUTE_TIME_MODIFIED))
    {
      g_autoptr(GDateTime) mtime = g_file_info_get_modification_date_time (info);
      g_autoptr(GDateTime) utc = mtime != NULL ? g_date_time_to_utc (mtime) : NULL;
      lb_store_entry_set_mtime (entry, utc);
    }
  lb_store_entry_set_etag (entry, g_file_info_get_etag (info));
  return entry;
}

/* @uri NULL → root; otherwise a file:// URI or path at or below the root. A query names a
 * DICOM patient, study or series of the folder before it (lb-local-store-dicom.c): it goes to
 * @query. */
static GFile *
resolve (LbLocalStore *self, const char *uri, char **query, GError **error)
{
  g_autoptr(GFile) file = NULL;
  g_autofree char *scheme = NULL;
  g_autofree char *path_part = NULL;

  if (uri == NULL)
    {
      *query = g_strdup (self->root_query);
      return g_object_ref (self->root);
    }
  scheme = g_uri_parse_scheme (uri);
  if (scheme != NULL && strchr (uri, '?') != NULL)
    {
      /* a '?' in a file URI is never part of a name: names are percent-encoded */
      const char *q = strchr (uri, '?');

      path_part = g_strndup (uri, q - uri);
      *query = g_strdup (q + 1);
      /* `ls` prints containers with a '/' after them: not part of a UID */
      while (**query && (*query)[strlen (*query) - 1] == '/')
        (*query)[strlen (*query) - 1] = '\0';
      uri = path_part;
    }
  file = scheme != NULL ? g_file_new_for_uri (uri) : g_file_new_for_path (uri);
  if (!g_file_equal (file, self->root) && !g_file_has_prefix (file, self->root))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT, "%s is not inside the store %s",
                   uri, self->root_uri);
      return NULL;
    }
  return g_steal_pointer (&file);
}

static GTask *
new_task (LbLocalStore *self, const char *uri, GCancellable *cancellable,
          GAsyncReadyCallback callback, gpointer user_data, gpointer tag)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  GError *error = NULL;
  Op *op = g_new0 (Op, 1);

  g_task_set_source_tag (task, tag);
  g_task_set_task_data (task, op, op_free);
  op->context = g_main_context_ref_thread_default ();
  op->file = resolve (self, uri, &op->query, &error);
  if (op->file == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return NULL;
    }
  return task;
}

/* Runs @func for @task (NULL: new_task() already failed it) in a worker thread. */
static void
run_task (GTask *task, GTaskThreadFunc func)
{
  if (task == NULL)
    return;
  g_task_run_in_thread (task, func);
  g_object_unref (task);
}

/* In a worker: returns the entry of @op's file as it is now on @task, or the error. */
static void
return_entry (GTask *task, Op *op, GCancellable *cancellable)
{
  GError *error = NULL;
  g_autoptr(GFileInfo) info = g_file_query_info (op->file, LB_LOCAL_STORE_QUERY_ATTRS,
                                                 G_FILE_QUERY_INFO_NONE, cancellable, &error);

  if (info == NULL)
    g_task_return_error (task, _lb_local_store_map_error (op->file, error));
  else
    g_task_return_pointer (task, _lb_local_store_entry_from_info (op->file, info), g_object_unref);
}

/* ---- progress marshalling ----------------------------------------------------------------- */

typedef struct {
  GFileProgressCallback progress;
  gpointer              data;
  goffset               current;
  goffset               total;
} ProgressCall;

static gboolean
deliver_progress (gpointer user_data)
{
  ProgressCall *call = user_data;

  call->progress (call->current, call->total, call->data);
  return G_SOURCE_REMOVE;
}

static void
report_progress (Op *op, goffset current, goffset total)
{
  ProgressCall *call;

  if (op->progress == NULL)
    return;
  call = g_new (ProgressCall, 1);
  call->progress = op->progress;
  call->data = op->progress_data;
  call->current = current;
  call->total = total;
  g_main_context_invoke_full (op->context, G_PRIORITY_DEFAULT, deliver_progress, call, g_free);
}

/* ---- list --------------------------------------------------------------------------------- */

GPtrArray *
_lb_local_store_enumerate (LbLocalStore *self, GFile *folder, GCancellable *cancellable,
                           GError **error)
{
  GError *local = NULL;
  g_autoptr(GFileEnumerator) enumerator = NULL;
  g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func (g_object_unref);

  enumerator = g_file_enumerate_children (folder, LB_LOCAL_STORE_QUERY_ATTRS,
                                          G_FILE_QUERY_INFO_NONE, cancellable, &local);
  if (enumerator == NULL)
    {
      g_propagate_error (error, _lb_local_store_map_error (folder, local));
      return NULL;
    }
  for (;;)
    {
      GFileInfo *info = NULL;
      GFile *child = NULL;

      if (!g_file_enumerator_iterate (enumerator, &info, &child, cancellable, &local))
        {
          g_propagate_error (error, _lb_local_store_map_error (folder, local));
          return NULL;
        }
      if (info == NULL)
        break;
      g_ptr_array_add (entries, _lb_local_store_entry_from_info (child, info));
      if (self->options->max_listing_entries > 0
          && entries->len > self->options->max_listing_entries)
        {
          g_autofree char *uri = g_file_get_uri (folder);

          g_set_error (error, LB_ERROR, LB_ERROR_TOO_LARGE,
                       "%s: listing too large (more than %u entries)", uri,
                       self->options->max_listing_entries);
          return NULL;
        }
    }
  return g_steal_pointer (&entries);
}

static void
list_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  LbLocalStore *self = source;
  Op *op = task_data;
  GError *error = NULL;
  GPtrArray *entries;

  if (op->query != NULL)
    entries = _lb_local_store_list_dicom (self, op->file, op->query, cancellable, &error);
  else
    {
      g_autoptr(GPtrArray) files = _lb_local_store_enumerate (self, op->file, cancellable, &error);

      /* the DICOM objects of the folder, by patient, study and series */
      entries = files ? _lb_local_store_group_dicom (self, op->file, files, cancellable, &error)
                      : NULL;
    }
  if (entries == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, entries, (GDestroyNotify) g_ptr_array_unref);
}

static void
lb_local_store_list_async (LbStore *store, const char *uri, GCancellable *cancellable,
                           GFileProgressCallback progress, gpointer progress_data,
                           GAsyncReadyCallback callback, gpointer user_data)
{
  run_task (new_task (LB_LOCAL_STORE (store), uri, cancellable, callback, user_data,
                      lb_local_store_list_async), list_thread);
}

/* ---- stat --------------------------------------------------------------------------------- */

static void
stat_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  Op *op = task_data;
  GError *error = NULL;
  LbStoreEntry *entry;

  if (op->query == NULL)
    {
      return_entry (task, op, cancellable);
      return;
    }
  entry = _lb_local_store_stat_dicom (source, op->file, op->query, cancellable, &error);
  if (entry == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, entry, g_object_unref);
}

/* Reading, writing and making folders take files: a DICOM patient, study or series is a
 * listing. FALSE (and @task failed) for one. */
static gboolean
check_is_file (GTask *task, Op *op)
{
  g_autofree char *uri = NULL;

  if (op->query == NULL)
    return TRUE;
  uri = g_file_get_uri (op->file);
  g_task_return_new_error (task, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                           "%s?%s is a DICOM patient, study or series, not a file", uri,
                           op->query);
  return FALSE;
}

static void
lb_local_store_stat_async (LbStore *store, const char *uri, GCancellable *cancellable,
                           GAsyncReadyCallback callback, gpointer user_data)
{
  run_task (new_task (LB_LOCAL_STORE (store), uri, cancellable, callback, user_data,
                      lb_local_store_stat_async), stat_thread);
}

/* ---- read --------------------------------------------------------------------------------- */

/* Counts what the caller reads and reports it (from the reading thread, as documented for
 * lb_store_read_async()). */
#define LB_TYPE_PROGRESS_STREAM (lb_progress_stream_get_type ())
G_DECLARE_FINAL_TYPE (LbProgressStream, lb_progress_stream, LB, PROGRESS_STREAM, GFilterInputStream)

struct _LbProgressStream {
  GFilterInputStream     parent_instance;
  gint64                 total;    /* bytes, -1 unknown */
  gint64                 done;     /* bytes */
  GFileProgressCallback  progress;
  gpointer               progress_data;
};

G_DEFINE_TYPE (LbProgressStream, lb_progress_stream, G_TYPE_FILTER_INPUT_STREAM)

static gssize
lb_progress_stream_read (GInputStream *stream, void *buffer, gsize count,
                         GCancellable *cancellable, GError **error)
{
  LbProgressStream *self = LB_PROGRESS_STREAM (stream);
  GInputStream *base = g_filter_input_stream_get_base_stream (G_FILTER_INPUT_STREAM (stream));
  gssize n = g_input_stream_read (base, buffer, count, cancellable, error);

  if (n > 0)
    {
      self->done += n;
      self->progress (self->done, self->total, self->progress_data);
    }
  return n;
}

static void
lb_progress_stream_class_init (LbProgressStreamClass *klass)
{
  G_INPUT_STREAM_CLASS (klass)->read_fn = lb_progress_stream_read;
}

static void
lb_progress_stream_init (LbProgressStream *self)
{
}

static void
read_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  Op *op = task_data;
  GError *error = NULL;
  g_autoptr(GFileInputStream) stream = NULL;
  g_autoptr(GFileInfo) info = NULL;

  if (!check_is_file (task, op))
    return;
  stream = g_file_read (op->file, cancellable, &error);

  if (stream == NULL)
    {
      g_task_return_error (task, _lb_local_store_map_error (op->file, error));
      return;
    }
  info = g_file_query_info (op->file, LB_LOCAL_STORE_QUERY_ATTRS, G_FILE_QUERY_INFO_NONE,
                            cancellable, &error);
  if (info == NULL)
    {
      g_task_return_error (task, _lb_local_store_map_error (op->file, error));
      return;
    }
  op->entry = _lb_local_store_entry_from_info (op->file, info);
  if (op->progress != NULL)
    {
      LbProgressStream *counted = g_object_new (LB_TYPE_PROGRESS_STREAM, "base-stream", stream, NULL);

      counted->total = lb_store_entry_get_size (op->entry);
      counted->progress = op->progress;
      counted->progress_data = op->progress_data;
      g_task_return_pointer (task, counted, g_object_unref);
      return;
    }
  g_task_return_pointer (task, g_steal_pointer (&stream), g_object_unref);
}

static void
lb_local_store_read_async (LbStore *store, const char *uri, GCancellable *cancellable,
                           GFileProgressCallback progress, gpointer progress_data,
                           GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = new_task (LB_LOCAL_STORE (store), uri, cancellable, callback, user_data,
                          lb_local_store_read_async);
  Op *op;

  if (task == NULL)
    return;
  op = g_task_get_task_data (task);
  op->progress = progress;
  op->progress_data = progress_data;
  run_task (task, read_thread);
}

static GInputStream *
lb_local_store_read_finish (LbStore *store, GAsyncResult *result, LbStoreEntry **out_entry,
                            GError **error)
{
  GInputStream *stream = g_task_propagate_pointer (G_TASK (result), error);
  Op *op = g_task_get_task_data (G_TASK (result));

  if (stream != NULL && out_entry != NULL)
    *out_entry = g_object_ref (op->entry);
  return stream;
}

/* ---- write -------------------------------------------------------------------------------- */

/* Copies op->source into @out, reporting progress; closes @out (which commits a replace). */
static gboolean
copy_into (Op *op, GOutputStream *out, GCancellable *cancellable, gint64 *out_written,
           GError **error)
{
  guint8 buffer[64 * 1024];
  gint64 written = 0;

  for (;;)
    {
      gssize n = g_input_stream_read (op->source, buffer, sizeof buffer, cancellable, error);
      gsize done = 0;

      if (n < 0)
        return FALSE;
      if (n == 0)
        break;
      if (!g_output_stream_write_all (out, buffer, n, &done, cancellable, error))
        return FALSE;
      written += n;
      report_progress (op, written, op->size);
    }
  if (op->size >= 0 && written != op->size)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_TRUNCATED,
                   "the source gave %" G_GINT64_FORMAT " bytes, %" G_GINT64_FORMAT " announced",
                   written, op->size);
      return FALSE;
    }
  *out_written = written;
  return g_output_stream_close (out, cancellable, error);
}

static void
write_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  Op *op = task_data;
  GError *error = NULL;
  g_autoptr(GFileOutputStream) out = NULL;
  gint64 written = 0;

  if (!check_is_file (task, op))
    return;
  if (op->mode == LB_STORE_WRITE_CREATE && g_file_peek_path (op->file) != NULL)
    {
      /* Write everything to a private temporary name, then link() it to the target: link
       * fails with EEXIST instead of replacing, so the create is atomic and never partial. */
      g_autoptr(GFile) parent = g_file_get_parent (op->file);
      g_autofree char *base = g_file_get_basename (op->file);
      g_autofree char *tmp_name = g_strdup_printf (".%s.lightbox-%08x.tmp", base, g_random_int ());
      g_autoptr(GFile) tmp = g_file_get_child (parent, tmp_name);

      out = g_file_create (tmp, G_FILE_CREATE_NONE, cancellable, &error);
      if (out == NULL)
        {
          g_task_return_error (task, _lb_local_store_map_error (op->file, error));
          return;
        }
      if (!copy_into (op, G_OUTPUT_STREAM (out), cancellable, &written, &error))
        {
          g_output_stream_close (G_OUTPUT_STREAM (out), NULL, NULL);
          g_file_delete (tmp, NULL, NULL);
          g_task_return_error (task, _lb_local_store_map_error (op->file, error));
          return;
        }
      if (link (g_file_peek_path (tmp), g_file_peek_path (op->file)) != 0)
        {
          int saved = errno;
          g_autofree char *uri = g_file_get_uri (op->file);

          g_file_delete (tmp, NULL, NULL);
          g_task_return_new_error (task, LB_ERROR,
                                   saved == EEXIST ? LB_ERROR_CONFLICT : LB_ERROR_FAILED,
                                   saved == EEXIST ? "%s: already exists%s" : "%s: %s", uri,
                                   saved == EEXIST ? "" : g_strerror (saved));
          return;
        }
      g_file_delete (tmp, NULL, NULL);
    }
  else
    {
      if (op->mode == LB_STORE_WRITE_CREATE)
        out = g_file_create (op->file, G_FILE_CREATE_NONE, cancellable, &error);
      else
        /* GIO's replace writes a temporary file and renames it on close; with an etag it
         * refuses (WRONG_ETAG) when the file changed */
        out = g_file_replace (op->file, op->mode == LB_STORE_WRITE_IF_MATCH ? op->etag : NULL,
                              FALSE, G_FILE_CREATE_NONE, cancellable, &error);
      if (out == NULL)
        {
          g_task_return_error (task, _lb_local_store_map_error (op->file, error));
          return;
        }
      if (!copy_into (op, G_OUTPUT_STREAM (out), cancellable, &written, &error))
        {
          GError *ignored = NULL;
          g_autoptr(GCancellable) abort = g_cancellable_new ();

          /* closing with a cancelled cancellable makes replace discard the temporary file */
          g_cancellable_cancel (abort);
          g_output_stream_close (G_OUTPUT_STREAM (out), abort, &ignored);
          g_clear_error (&ignored);
          if (op->mode == LB_STORE_WRITE_CREATE)
            g_file_delete (op->file, NULL, NULL);
          g_task_return_error (task, _lb_local_store_map_error (op->file, error));
          return;
        }
    }

  return_entry (task, op, cancellable);
}

static void
lb_local_store_write_async (LbStore *store, const char *uri, GInputStream *source, gint64 size,
                            const char *content_type, LbStoreWriteMode mode, const char *etag,
                            GCancellable *cancellable, GFileProgressCallback progress,
                            gpointer progress_data, GAsyncReadyCallback callback,
                            gpointer user_data)
{
  GTask *task = new_task (LB_LOCAL_STORE (store), uri, cancellable, callback, user_data,
                          lb_local_store_write_async);
  Op *op;

  if (task == NULL)
    return;
  op = g_task_get_task_data (task);
  op->source = g_object_ref (source);
  op->size = size;
  op->mode = mode;
  op->etag = g_strdup (etag);
  op->progress = progress;
  op->progress_data = progress_data;
  run_task (task, write_thread);
}

/* ---- mkdir -------------------------------------------------------------------------------- */

static void
mkdir_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  Op *op = task_data;
  GError *error = NULL;

  if (!check_is_file (task, op))
    return;
  if (!g_file_make_directory (op->file, cancellable, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        {
          g_autofree char *uri = g_file_get_uri (op->file);
          g_clear_error (&error);
          g_task_return_new_error (task, LB_ERROR, LB_ERROR_CONFLICT,
                                   "%s: the parent folder is missing", uri);
          return;
        }
      g_task_return_error (task, _lb_local_store_map_error (op->file, error));
      return;
    }
  return_entry (task, op, cancellable);
}

static void
lb_local_store_mkdir_async (LbStore *store, const char *uri, GCancellable *cancellable,
                            GAsyncReadyCallback callback, gpointer user_data)
{
  run_task (new_task (LB_LOCAL_STORE (store), uri, cancellable, callback, user_data,
                      lb_local_store_mkdir_async), mkdir_thread);
}

/* ---- object ------------------------------------------------------------------------------- */

static const char *
lb_local_store_get_uri (LbStore *store)
{
  return LB_LOCAL_STORE (store)->root_uri;
}

static const char *
lb_local_store_get_backend_name (LbStore *store)
{
  return "local";
}

static LbStoreCapabilities
lb_local_store_get_capabilities (LbStore *store)
{
  return LB_STORE_CAN_WRITE | LB_STORE_CONDITIONAL_WRITES | LB_STORE_HAS_ETAGS | LB_STORE_HAS_SIZES;
}

static void
lb_local_store_finalize (GObject *object)
{
  LbLocalStore *self = LB_LOCAL_STORE (object);

  g_clear_object (&self->root);
  g_free (self->root_uri);
  g_free (self->root_query);
  g_clear_pointer (&self->options, lb_store_options_unref);
  g_clear_pointer (&self->dicom_headers, g_hash_table_unref);
  g_mutex_clear (&self->dicom_lock);
  G_OBJECT_CLASS (lb_local_store_parent_class)->finalize (object);
}

static void
lb_local_store_class_init (LbLocalStoreClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = lb_local_store_finalize;
}

static void
lb_local_store_init (LbLocalStore *self)
{
  g_mutex_init (&self->dicom_lock);
}

static void
lb_local_store_iface_init (LbStoreInterface *iface)
{
  iface->get_uri = lb_local_store_get_uri;
  iface->get_backend_name = lb_local_store_get_backend_name;
  iface->get_capabilities = lb_local_store_get_capabilities;
  iface->list_async = lb_local_store_list_async;
  iface->stat_async = lb_local_store_stat_async;
  iface->read_async = lb_local_store_read_async;
  iface->read_finish = lb_local_store_read_finish;
  iface->write_async = lb_local_store_write_async;
  iface->mkdir_async = lb_local_store_mkdir_async;
}

LbStore *
lb_local_store_new (const char *uri, LbStoreOptions *options, GError **error)
{
  g_autofree char *scheme = g_uri_parse_scheme (uri);
  LbLocalStore *self;

  if (scheme != NULL && g_ascii_strcasecmp (scheme, "file") != 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT, "%s: not a local folder", uri);
      return NULL;
    }
  self = g_object_new (LB_TYPE_LOCAL_STORE, NULL);
  if (scheme != NULL && strchr (uri, '?') != NULL)
    {
      /* opened at a DICOM level of a folder: that level is what the root lists */
      g_autofree char *folder = g_strndup (uri, strchr (uri, '?') - uri);
      gsize n;

      self->root_query = g_strdup (strchr (uri, '?') + 1);
      n = strlen (self->root_query);
      while (n > 0 && self->root_query[n - 1] == '/')
        self->root_query[--n] = '\0';
      self->root = g_file_new_for_uri (folder);
    }
  else
    self->root = scheme != NULL ? g_file_new_for_uri (uri) : g_file_new_for_commandline_arg (uri);
  {
    /* a DICOMDIR opens the file-set it describes: its folder */
    g_autofree char *base = g_file_get_basename (self->root);

    if (base != NULL && lb_dicomdir_is_name (base)
        && g_file_query_file_type (self->root, G_FILE_QUERY_INFO_NONE, NULL) == G_FILE_TYPE_REGULAR)
      {
        GFile *parent = g_file_get_parent (self->root);

        g_object_unref (self->root);
        self->root = parent;
      }
  }
  self->root_uri = g_file_get_uri (self->root);
  if (self->root_query != NULL)
    {
      char *with = g_strdup_printf ("%s%s?%s", self->root_uri,
                                    g_str_has_suffix (self->root_uri, "/") ? "" : "/",
                                    self->root_query);

      g_free (self->root_uri);
      self->root_uri = with;
    }
  self->options = options != NULL ? lb_store_options_ref (options) : lb_store_options_new ();
  return LB_STORE (self);
}
