/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-frame-source"

#include "lb-frame-source.h"

#include "lb-dicom-file.h"
#include "lb-dicom-frame.h"
#include "lb-dicom-multiframe.h"
#include "lb-error.h"
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
};

G_DEFINE_FINAL_TYPE (LbFrameSource, lb_frame_source, G_TYPE_OBJECT)

static void
lb_frame_source_finalize (GObject *object)
{
  LbFrameSource *self = LB_FRAME_SOURCE (object);

  g_clear_object (&self->store);
  g_clear_object (&self->file);
  g_free (self->uri);
  g_free (self->path);
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

/* ---- local files: map once, decode each frame on a worker thread ------------------------ */

static void
decode_file_frame (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  LbFrameSource *self = source;
  guint number = GPOINTER_TO_UINT (data);
  g_autoptr(LbDicomFile) file = NULL;
  GError *error = NULL;
  LbImage *image;

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

static void
on_spliced (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  GError *error = NULL;

  if (g_output_stream_splice_finish (G_OUTPUT_STREAM (source), result, &error) < 0)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  g_task_set_task_data (task, g_memory_output_stream_steal_as_bytes (
                                G_MEMORY_OUTPUT_STREAM (source)),
                        (GDestroyNotify) g_bytes_unref);
  g_task_run_in_thread (task, decode_bytes);
  g_object_unref (task);
}

static void
on_store_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  GError *error = NULL;
  g_autoptr(GInputStream) in = lb_store_read_finish (LB_STORE (source), result, NULL, &error);
  g_autoptr(GOutputStream) out = NULL;

  if (in == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  out = g_memory_output_stream_new_resizable ();
  g_output_stream_splice_async (out, in, G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE
                                | G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, G_PRIORITY_DEFAULT,
                                g_task_get_cancellable (task), on_spliced, task);
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
  if (self->path != NULL)
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

    lb_store_read_async (self->store, frame_uri, cancellable, NULL, NULL, on_store_read, task);
  }
}

LbImage *
lb_frame_source_load_finish (LbFrameSource *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
