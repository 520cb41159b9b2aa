/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-window-series-upload"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-dialogs.h"
#include "lb-dicom-tags.h"
#include "lb-dicom-writer.h"
#include "lb-error.h"
#include "lb-png.h"
#include "lb-upload-dialog.h"
#include "lb-window-private.h"
#include "lb-write-back.h"

/* Upload of a whole-series result (lb-window-series-filter.c): a new folder beside the
 * series' folder (inside it when that is the store's root), named after the series and the
 * filter ("series.blur", numbered when taken: never into an existing folder), holding one
 * new instance per slice, each written with the store's safe write (create only, verified).
 * A DICOM slice becomes a derived instance of one new series (PS3.3 C.7.3.1: a new
 * SeriesInstanceUID shared by all, new SOP Instance UIDs, DerivationDescription, the source
 * in SourceImageSequence; lb_dicom_build_secondary_capture()) that keeps each slice's
 * position, orientation and thickness (C.7.6.2) so that it reads back as a stack in the same
 * order; another image becomes a PNG with provenance. The instances are encoded on a worker
 * thread, one at a time. */

#define MAX_FOLDER_ATTEMPTS 99

typedef struct {
  LbWindow       *self;
  LbStore        *store;
  LbFrameSource  *frames;
  GPtrArray      *slices;        /* LbImage */
  char           *provenance;
  char           *parent;        /* where the new folder goes, with a trailing '/' */
  char           *name;          /* its name as asked */
  char           *folder;        /* the folder made, with a trailing '/' */
  char           *series_uid;
  char           *description;   /* DICOMweb: the new series' SeriesDescription */
  guint           series_number;
  guint           attempt;
  guint           index;         /* the slice being written, from 0 */
} SeriesUpload;

static void
series_upload_free (SeriesUpload *up)
{
  g_object_unref (up->self);
  g_object_unref (up->store);
  g_object_unref (up->frames);
  g_ptr_array_unref (up->slices);
  g_free (up->provenance);
  g_free (up->parent);
  g_free (up->name);
  g_free (up->folder);
  g_free (up->series_uid);
  g_free (up->description);
  g_free (up);
}

static void
fail (SeriesUpload *up,
      const GError *error)
{
  _lb_window_end_op (up->self);
  _lb_window_save_failed (up->self);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    _lb_window_set_status (up->self, _("Upload cancelled"));
  else
    _lb_window_show_error (up->self, _("Upload failed"), error);
  series_upload_free (up);
}

/* ---- one instance ------------------------------------------------------------------------- */

typedef struct {
  LbImage        *image;
  LbDicomDataset *source;   /* NULL: not DICOM */
  char           *source_uri;
  char           *provenance;
  char           *series_uid;
  char           *description;    /* nullable: the builder's */
  guint           series_number;
  guint           number;
} Encode;

static void
encode_free (Encode *e)
{
  g_object_unref (e->image);
  g_clear_pointer (&e->source, lb_dicom_dataset_unref);
  g_free (e->source_uri);
  g_free (e->provenance);
  g_free (e->series_uid);
  g_free (e->description);
  g_free (e);
}

static GBytes *
encode_dicom (Encode  *e,
              GError **error)
{
  static const guint32 geometry[] = {
    LB_TAG_IMAGE_POSITION_PATIENT, LB_TAG_IMAGE_ORIENTATION_PATIENT, LB_TAG_SLICE_THICKNESS,
  };
  g_autoptr (LbDicomDataset) ds = lb_dicom_build_secondary_capture (e->image, e->source,
                                                                    e->provenance,
                                                                    e->series_number, error);

  if (ds == NULL)
    return NULL;
  /* one series for all slices, in the source's order */
  lb_dicom_dataset_set_string (ds, LB_TAG_SERIES_INSTANCE_UID, "UI", e->series_uid);
  lb_dicom_dataset_set_uint (ds, LB_TAG_INSTANCE_NUMBER, "IS", e->number);
  if (e->description != NULL)
    lb_dicom_dataset_set_string (ds, LB_TAG_SERIES_DESCRIPTION, "LO", e->description);
  for (guint i = 0; i < G_N_ELEMENTS (geometry); i++)
    lb_dicom_dataset_copy_element (ds, e->source, geometry[i]);
  return lb_dicom_write_part10 (ds, error);
}

static void
encode_thread (GTask        *task,
               gpointer      source,
               gpointer      task_data,
               GCancellable *cancellable)
{
  Encode *e = task_data;
  GError *error = NULL;
  GBytes *bytes;

  if (e->source != NULL)
    bytes = encode_dicom (e, &error);
  else
    {
      LbWriteBackOptions opts = { .filter_chain = e->provenance };
      g_autoptr (LbImageMeta) meta = lb_write_back_add_provenance (e->image, e->source_uri, NULL,
                                                                   &opts);
      g_autoptr (LbImage) tagged = lb_image_with_meta (e->image, meta);

      bytes = lb_png_save_to_bytes (tagged, &error);
    }
  if (bytes == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, bytes, (GDestroyNotify) g_bytes_unref);
}

static void write_next (SeriesUpload *up);

static void
on_written (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  SeriesUpload *up = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (LbWriteBackResult) written = lb_store_put_bytes_safely_finish (LB_STORE (source),
                                                                            result, &error);

  if (written == NULL)
    {
      g_prefix_error (&error, _("Slice %u of %u: "), up->index + 1, up->slices->len);
      fail (up, error);
      return;
    }
  up->index++;
  _lb_window_set_progress (up->self, (double) up->index / up->slices->len);
  write_next (up);
}

static void
on_encoded (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  SeriesUpload *up = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = g_task_propagate_pointer (G_TASK (result), &error);
  Encode *e = g_task_get_task_data (G_TASK (result));
  g_autofree char *uri = NULL;

  if (bytes == NULL)
    {
      g_prefix_error (&error, _("Slice %u of %u: "), up->index + 1, up->slices->len);
      fail (up, error);
      return;
    }
  uri = g_strdup_printf ("%sIM%04u.%s", up->folder, up->index + 1, e->source ? "dcm" : "png");
  lb_store_put_bytes_safely_async (up->store, uri, bytes,
                                   e->source ? "application/dicom" : "image/png",
                                   LB_STORE_WRITE_CREATE, NULL, up->self->op_cancellable, NULL,
                                   NULL, on_written, up);
}

static void
write_next (SeriesUpload *up)
{
  LbWindow *self = up->self;
  const LbDicomDataset *source;
  Encode *e;
  GTask *task;

  if (up->index == up->slices->len)
    {
      g_autofree char *status = NULL;

      _lb_window_end_op (self);
      g_free (self->last_upload_uri);
      self->last_upload_uri = g_strdup (up->folder);
      /* TRANSLATORS: status bar after a whole series was written back: count and folder */
      status = up->description != NULL
               /* TRANSLATORS: status bar after a whole series was stored on a PACS */
               ? g_strdup_printf (_("Stored %u slices as the new series “%s”"), up->slices->len,
                                  up->description)
               : g_strdup_printf (_("Wrote %u slices to %s"), up->slices->len, up->folder);
      _lb_window_set_status (self, status);
      lb_store_browser_refresh_parent (self->browser, up->folder);
      /* every slice of the step is saved, the one shown included */
      _lb_window_series_filter_mark_saved (self, up->slices);
      if (self->history != NULL)
        _lb_window_saved (self, lb_history_get_current (self->history));
      series_upload_free (up);
      return;
    }
  source = lb_frame_source_get_dataset (up->frames, up->index + 1);
  e = g_new0 (Encode, 1);
  e->image = g_object_ref (g_ptr_array_index (up->slices, up->index));
  e->source = source ? lb_dicom_dataset_ref ((LbDicomDataset *) source) : NULL;
  e->source_uri = g_strdup (lb_frame_source_get_frame_uri (up->frames, up->index + 1));
  e->provenance = g_strdup (up->provenance);
  e->series_uid = g_strdup (up->series_uid);
  e->description = g_strdup (up->description);
  e->series_number = up->series_number;
  e->number = up->index + 1;
  task = g_task_new (NULL, self->op_cancellable, on_encoded, up);
  g_task_set_task_data (task, e, (GDestroyNotify) encode_free);
  g_task_run_in_thread (task, encode_thread);
  g_object_unref (task);
}

/* ---- the folder --------------------------------------------------------------------------- */

static void make_folder (SeriesUpload *up);

typedef struct {
  SeriesUpload *up;
  GError       *error;   /* the refusal of the mkdir */
} Taken;

/* A refused mkdir: a folder of that name exists (then the next name), or the refusal had
 * another reason (the parent went), which is the error shown. */
static void
on_taken_stat (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  Taken *t = user_data;
  g_autoptr (LbStoreEntry) entry = lb_store_stat_finish (LB_STORE (source), result, NULL);

  if (entry != NULL && t->up->attempt < MAX_FOLDER_ATTEMPTS)
    {
      t->up->attempt++;
      make_folder (t->up);
    }
  else
    fail (t->up, t->error);
  g_error_free (t->error);
  g_free (t);
}

static void
on_folder_made (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  SeriesUpload *up = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (LbStoreEntry) entry = lb_store_mkdir_finish (LB_STORE (source), result, &error);

  if (entry == NULL && g_error_matches (error, LB_ERROR, LB_ERROR_CONFLICT))
    {
      Taken *t = g_new0 (Taken, 1);

      /* never write into someone's folder: if it is there, take the next name */
      t->up = up;
      t->error = g_steal_pointer (&error);
      lb_store_stat_async (up->store, up->folder, up->self->op_cancellable, on_taken_stat, t);
      return;
    }
  if (entry == NULL)
    {
      fail (up, error);
      return;
    }
  write_next (up);
}

static void
make_folder (SeriesUpload *up)
{
  g_autofree char *name = up->attempt > 1 ? g_strdup_printf ("%s-%u", up->name, up->attempt)
                                          : g_strdup (up->name);
  g_autofree char *escaped = g_uri_escape_string (name, NULL, FALSE);

  g_free (up->folder);
  up->folder = g_strconcat (up->parent, escaped, "/", NULL);
  lb_store_mkdir_async (up->store, up->folder, up->self->op_cancellable, on_folder_made, up);
}

/* The folder that holds the first slice, and where the new folder goes: beside it when the
 * store reaches its parent, else inside it (for DICOMweb: the first slice's series, where
 * the instances are stored). NULL when the slices are not in the store. */
static char *
target_parent (LbWindow *self,
               gboolean  dicomweb,
               char    **series_name)
{
  const char *root = lb_store_get_uri (self->store);
  const char *first = lb_frame_source_get_frame_uri (self->frames, 1);
  g_autofree char *folder = first ? lb_store_uri_parent (first) : NULL;
  g_autofree char *parent = folder ? lb_store_uri_parent (folder) : NULL;

  if (folder == NULL || !g_str_has_prefix (first, root))
    return NULL;
  *series_name = lb_store_uri_display_name (folder);
  if (!dicomweb && parent != NULL && g_str_has_prefix (parent, root))
    return g_steal_pointer (&parent);
  return g_steal_pointer (&folder);
}

typedef struct {
  LbWindow *self;
  char     *parent;
  gboolean  dicomweb;  /* the name is the new series' description, not a folder's */
} Ask;

static void
on_name (GtkWindow *dialog,
         gboolean   accepted,
         gpointer   user_data)
{
  Ask *ask = user_data;
  LbWindow *self = ask->self;
  g_autofree char *name = g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->upload_entry)));
  const char *label = NULL, *provenance = NULL;
  GPtrArray *slices = _lb_window_series_filter_current (self, &label, &provenance);
  const LbDicomDataset *first;
  SeriesUpload *up;
  gint64 number = 0;

  self->upload_dialog = NULL;
  self->upload_entry = NULL;
  g_strstrip (name);
  if (!accepted || *name == '\0' || slices == NULL || self->busy)
    {
      _lb_window_save_failed (self);
      return;
    }
  if (!ask->dicomweb && strchr (name, '/') != NULL)
    {
      g_autoptr (GError) error = g_error_new (LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                                              _("“%s” is not a folder name: it must not contain “/”"),
                                              name);
      _lb_window_show_error (self, _("Upload failed"), error);
      _lb_window_save_failed (self);
      return;
    }
  up = g_new0 (SeriesUpload, 1);
  up->self = g_object_ref (self);
  up->store = g_object_ref (self->store);
  up->frames = g_object_ref (self->frames);
  up->slices = g_ptr_array_ref (slices);
  up->provenance = g_strdup (provenance);
  up->parent = g_strdup (ask->parent);
  up->name = g_steal_pointer (&name);
  up->attempt = 1;
  up->series_uid = lb_dicom_generate_uid ();
  first = lb_frame_source_get_dataset (self->frames, 1);
  /* a series number of its own beside the source's (PS3.3 C.7.3.1: no uniqueness rule) */
  if (first != NULL)
    lb_dicom_dataset_get_int (first, LB_TAG_SERIES_NUMBER, 0, &number);
  up->series_number = (guint) CLAMP (number, 0, 99000) + 1000;
  _lb_window_begin_op (self, _("Uploading"));
  if (ask->dicomweb)
    {
      /* no folders on a PACS: each instance is stored (STOW-RS) into the source's study, a
       * new name beside its source instance, which the server files under its new series */
      up->description = g_steal_pointer (&up->name);
      up->folder = g_strdup (ask->parent);
      write_next (up);
    }
  else
    make_folder (up);
}

static void
ask_free (gpointer data)
{
  Ask *ask = data;

  g_free (ask->parent);
  g_free (ask);
}

gboolean
_lb_window_series_upload (LbWindow *self)
{
  const char *label = NULL;
  g_autofree char *series_name = NULL, *parent = NULL, *proposed = NULL;
  GtkWidget *dialog;
  gboolean dicomweb;
  Ask *ask;

  if (_lb_window_series_filter_current (self, &label, NULL) == NULL)
    return FALSE;
  dicomweb = g_strcmp0 (lb_store_get_backend_name (self->store), "dicomweb") == 0;
  parent = target_parent (self, dicomweb, &series_name);
  if (parent == NULL)
    {
      g_autoptr (GError) error = g_error_new_literal (
        LB_ERROR, LB_ERROR_UNSUPPORTED,
        _("The series is not in the open store: open the folder that holds it to write the "
          "result back"));

      _lb_window_show_error (self, _("Upload failed"), error);
      _lb_window_save_failed (self);
      return TRUE;
    }
  if (dicomweb)
    {
      const LbDicomDataset *first = lb_frame_source_get_dataset (self->frames, 1);
      const char *description = first ? lb_dicom_dataset_get_string (first,
                                                                     LB_TAG_SERIES_DESCRIPTION,
                                                                     0)
                                      : NULL;

      /* the series is named in its description, e.g. "Thorax (blur)" */
      proposed = g_strdup_printf ("%s (%s)", description ? description : series_name,
                                  label ? label : "Lightbox");
    }
  else
    proposed = g_strdup_printf ("%s.%s", series_name, label ? label : "lightbox");
  dialog = GTK_WIDGET (lb_upload_dialog_new (proposed));
  self->upload_dialog = dialog;
  self->upload_entry = lb_upload_dialog_get_entry (LB_UPLOAD_DIALOG (dialog));
  lb_upload_dialog_set_prompt (LB_UPLOAD_DIALOG (dialog), dicomweb
                               ? _("Description of the new series, in the same study (one "
                                   "instance per slice):")
                               : _("Name of the new folder, beside the series (one file per "
                                   "slice):"));
  gtk_window_set_title (GTK_WINDOW (dialog), dicomweb
                        /* TRANSLATORS: the upload dialog's title for a whole series on a PACS:
                         * the name asked for is the new series' description */
                        ? _("Store the Series as a New Series")
                        /* TRANSLATORS: the upload dialog's title for a whole series: a new
                         * folder is made */
                        : _("Upload the Series to a New Folder"));
  ask = g_new0 (Ask, 1);
  ask->self = self;
  ask->dicomweb = dicomweb;
  ask->parent = g_steal_pointer (&parent);
  lb_dialogs_form (GTK_WINDOW (dialog), GTK_WINDOW (self), _("_Upload"), on_name, ask, ask_free);
  return TRUE;
}
