/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-window-aux"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-dialogs.h"
#include "lb-error.h"
#include "lb-image-loader.h"
#include "lb-loader.h"
#include "lb-param-dialog.h"
#include "lb-window-private.h"

/* The second image of a filter that reads two (a subtraction's mask), chosen in its
 * parameter dialog from what is open: the other states of the image's history, the other
 * frames or slices of the stack shown, the other images of the image's folder in the store,
 * and files the user picks. A history state is at hand; a slice is decoded (LbFrameSource),
 * a store image downloaded and decoded (LbLoader) and a file read and decoded on a worker
 * thread when first chosen, and kept while the dialog is open. The filter itself says whether the
 * image fits (its prepare() names the size or format it needs); the dialog shows that
 * message as a preview error. */

typedef enum {
  AUX_IMAGE,  /* a history state or a file already read */
  AUX_FRAME,  /* a frame or slice of self->frames, read on demand */
  AUX_STORE,  /* an image of the store, read on demand */
} AuxKind;

typedef struct {
  AuxKind  kind;
  guint    number;   /* AUX_FRAME: from 1 */
  char    *uri;      /* AUX_STORE */
  LbImage *image;    /* NULL until read */
  gboolean reading;
  char    *error;    /* why it could not be read */
} AuxChoice;

static void
aux_choice_free (gpointer data)
{
  AuxChoice *c = data;

  g_clear_object (&c->image);
  g_free (c->uri);
  g_free (c->error);
  g_free (c);
}

static AuxChoice *
add_choice (LbWindow      *self,
            LbParamDialog *dialog,
            const char    *label,
            AuxKind        kind,
            LbImage       *image,
            guint          number)
{
  AuxChoice *c = g_new0 (AuxChoice, 1);

  c->kind = kind;
  c->number = number;
  c->image = image ? g_object_ref (image) : NULL;
  g_ptr_array_add (self->aux_choices, c);
  lb_param_dialog_add_aux_choice (dialog, label);
  return c;
}

/* The dialog may have closed, or another opened, while something was read. */
static gboolean
still_asked (LbWindow  *self,
             GPtrArray *choices)
{
  return self->param_dialog != NULL && self->aux_choices == choices;
}

typedef struct {
  LbWindow  *self;
  GPtrArray *choices;  /* a reference: which dialog asked */
  AuxChoice *choice;
} AuxRead;

static void
aux_read_free (AuxRead *r)
{
  g_object_unref (r->self);
  g_ptr_array_unref (r->choices);
  g_free (r);
}

/* A slice or a store image was read (@image) or not (@error): the preview runs again, now
 * with the image (or says why there is none). */
static void
aux_read_done (AuxRead      *r,
               LbImage      *image,
               const GError *error)
{
  r->choice->reading = FALSE;
  if (image != NULL)
    g_set_object (&r->choice->image, image);
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    r->choice->error = g_strdup (error->message);
  if (still_asked (r->self, r->choices) && !g_error_matches (error, G_IO_ERROR,
                                                             G_IO_ERROR_CANCELLED))
    g_signal_emit_by_name (r->self->param_dialog, "changed");
  aux_read_free (r);
}

static void
on_frame_read (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (LbImage) image = lb_frame_source_load_finish (LB_FRAME_SOURCE (source), result,
                                                           &error);

  aux_read_done (user_data, image, error);
}

static void
on_store_loaded (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (LbImage) image = lb_loader_load_finish (result, &error);

  aux_read_done (user_data, image, error);
}

static void
on_store_read (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  AuxRead *r = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GInputStream) stream = lb_store_read_finish (LB_STORE (source), result, NULL,
                                                          &error);
  g_autofree char *name = NULL;

  if (stream == NULL)
    {
      aux_read_done (r, NULL, error);
      return;
    }
  name = lb_store_uri_display_name (r->choice->uri);
  lb_loader_load_async (stream, name, r->self->aux_cancellable, NULL, NULL, NULL,
                        on_store_loaded, r);
}

/* The other images of the current image's folder in the store, listed once the dialog is
 * open (not chosen by default: the user picks the mask). */
static void
on_siblings_listed (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  AuxRead *r = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) entries = lb_store_list_finish (LB_STORE (source), result, &error);
  LbWindow *self = r->self;

  if (entries != NULL && still_asked (self, r->choices) && self->history != NULL)
    {
      const char *current = lb_image_meta_get_source_uri (
        lb_image_get_meta (lb_history_get_original (self->history)));
      guint selected = lb_param_dialog_get_aux_choice (LB_PARAM_DIALOG (self->param_dialog));

      for (guint i = 0; i < entries->len; i++)
        {
          LbStoreEntry *e = g_ptr_array_index (entries, i);
          LbStoreEntryKind kind = lb_store_entry_get_kind (e);
          AuxChoice *c;

          if ((kind != LB_STORE_ENTRY_IMAGE && kind != LB_STORE_ENTRY_DICOM_FILE
               && kind != LB_STORE_ENTRY_DICOM_INSTANCE)
              || g_strcmp0 (lb_store_entry_get_uri (e), current) == 0)
            continue;
          c = add_choice (self, LB_PARAM_DIALOG (self->param_dialog),
                          lb_store_entry_get_display_name (e), AUX_STORE, NULL, 0);
          c->uri = g_strdup (lb_store_entry_get_uri (e));
        }
      /* a list that grows keeps what was chosen, or nothing */
      lb_param_dialog_set_aux_choice (LB_PARAM_DIALOG (self->param_dialog), selected);
    }
  else if (entries == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_debug ("second image: the folder could not be listed: %s", error->message);
  aux_read_free (r);
}

static void
read_file_thread (GTask        *task,
                  gpointer      source,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  GError *error = NULL;
  g_autofree char *path = g_file_get_path (G_FILE (task_data));
  LbImage *image = path ? lb_image_load_file (path, NULL, &error) : NULL;

  if (image != NULL)
    g_task_return_pointer (task, image, g_object_unref);
  else if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                             _("Only local files can be the second image"));
}

static void
on_file_read (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  AuxRead *r = user_data;
  LbWindow *self = r->self;
  g_autoptr (GError) error = NULL;
  g_autoptr (LbImage) image = g_task_propagate_pointer (G_TASK (result), &error);

  if (still_asked (self, r->choices))
    {
      LbParamDialog *dialog = LB_PARAM_DIALOG (self->param_dialog);

      if (image == NULL)
        lb_param_dialog_set_preview_error (dialog, error);
      else
        {
          g_autofree char *label = g_task_get_task_data (G_TASK (result))
                                   ? g_file_get_basename (g_task_get_task_data (G_TASK (result)))
                                   : NULL;

          add_choice (self, dialog, label, AUX_IMAGE, image, 0);
          lb_param_dialog_set_aux_choice (dialog, self->aux_choices->len - 1);
        }
    }
  aux_read_free (r);
}

void
_lb_window_aux_add_file (LbWindow *self,
                         GFile    *file)
{
  AuxRead *r;
  GTask *task;

  if (self->aux_choices == NULL)
    return;
  r = g_new0 (AuxRead, 1);
  r->self = g_object_ref (self);
  r->choices = g_ptr_array_ref (self->aux_choices);
  task = g_task_new (NULL, self->aux_cancellable, on_file_read, r);
  g_task_set_task_data (task, g_object_ref (file), g_object_unref);
  g_task_run_in_thread (task, read_file_thread);
  g_object_unref (task);
}

static void
on_file_chosen (GFile    *file,
                gpointer  user_data)
{
  LbWindow *self = user_data;

  /* the file dialog outlives the window's dialogs: only if its parameter dialog is open */
  if (file != NULL && self->param_dialog != NULL)
    _lb_window_aux_add_file (self, file);
  g_object_unref (self);
}

static void
on_choose_file (LbParamDialog *dialog,
                LbWindow      *self)
{
  LbFileDialogOptions options = { .title = _("Choose the Second Image"),
                                  .accept_label = _("_Choose") };

  lb_dialogs_open_file (GTK_WINDOW (dialog), &options, on_file_chosen, g_object_ref (self));
}

void
_lb_window_aux_setup (LbWindow      *self,
                      LbParamDialog *dialog)
{
  guint position = lb_history_get_position (self->history);
  guint length = lb_history_get_length (self->history);

  _lb_window_aux_clear (self);
  self->aux_choices = g_ptr_array_new_with_free_func (aux_choice_free);
  self->aux_cancellable = g_cancellable_new ();
  if (lb_filter_get_n_inputs (lb_param_dialog_get_filter (dialog)) < 2)
    return;
  /* the image's other states: the original first (a mask is most often the unfiltered
   * image), then each filter step */
  for (guint i = 0; i < length; i++)
    {
      g_autofree char *label = NULL;

      if (i == position)
        continue;
      if (i == 0)
        label = g_strdup (_("This image, original"));
      else
        /* TRANSLATORS: a step of the image's undo history as the second image, "Step 2: Blur" */
        label = g_strdup_printf (_("This image, step %u: %s"), i,
                                 lb_history_get_label_at (self->history, i));
      add_choice (self, dialog, label, AUX_IMAGE, lb_history_get_image_at (self->history, i),
                  0);
    }
  /* the other frames of the object or slices of the series */
  if (self->frames != NULL)
    {
      gboolean series = lb_frame_source_is_series (self->frames);
      guint n = lb_frame_source_get_n_frames (self->frames);

      for (guint i = 1; i <= n; i++)
        {
          g_autofree char *label = NULL;

          if (i == self->frame)
            continue;
          label = series ? g_strdup_printf (_("Slice %u"), i)
                         : g_strdup_printf (_("Frame %u"), i);
          add_choice (self, dialog, label, AUX_FRAME, NULL, i);
        }
    }
  /* the other images beside it in the store (not for a slice: its series is listed above) */
  {
    const char *uri = lb_image_meta_get_source_uri (
      lb_image_get_meta (lb_history_get_original (self->history)));
    g_autofree char *parent = uri != NULL ? lb_store_uri_parent (uri) : NULL;

    if (self->store != NULL && parent != NULL && self->frames == NULL
        && g_str_has_prefix (parent, lb_store_get_uri (self->store)))
      {
        AuxRead *r = g_new0 (AuxRead, 1);

        r->self = g_object_ref (self);
        r->choices = g_ptr_array_ref (self->aux_choices);
        lb_store_list_async (self->store, parent, self->aux_cancellable, NULL, NULL,
                             on_siblings_listed, r);
      }
  }
  g_signal_connect (dialog, "choose-aux-file", G_CALLBACK (on_choose_file), self);
  lb_param_dialog_set_aux_choice (dialog, self->aux_choices->len > 0 ? 0
                                                                     : GTK_INVALID_LIST_POSITION);
}

LbImage *
_lb_window_aux_get (LbWindow      *self,
                    LbParamDialog *dialog,
                    GError       **error)
{
  guint index = lb_param_dialog_get_aux_choice (dialog);
  AuxChoice *c;
  AuxRead *r;

  if (self->aux_choices == NULL || index >= self->aux_choices->len)
    {
      g_set_error_literal (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                           _("Choose the second image: this filter reads two images"));
      return NULL;
    }
  c = g_ptr_array_index (self->aux_choices, index);
  if (c->image != NULL)
    return c->image;
  if (c->error != NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_FAILED, _("Could not read the second image: %s"),
                   c->error);
      return NULL;
    }
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PENDING, _("Reading the second image…"));
  if (c->reading || (c->kind == AUX_FRAME && self->frames == NULL)
      || (c->kind == AUX_STORE && self->store == NULL))
    return NULL;
  c->reading = TRUE;
  r = g_new0 (AuxRead, 1);
  r->self = g_object_ref (self);
  r->choices = g_ptr_array_ref (self->aux_choices);
  r->choice = c;
  if (c->kind == AUX_STORE)
    lb_store_read_async (self->store, c->uri, self->aux_cancellable, NULL, NULL, on_store_read,
                         r);
  else
    lb_frame_source_load_async (self->frames, c->number, self->aux_cancellable, on_frame_read,
                                r);
  return NULL;
}

void
_lb_window_aux_clear (LbWindow *self)
{
  if (self->aux_cancellable != NULL)
    g_cancellable_cancel (self->aux_cancellable);
  g_clear_object (&self->aux_cancellable);
  g_clear_pointer (&self->aux_choices, g_ptr_array_unref);
}
