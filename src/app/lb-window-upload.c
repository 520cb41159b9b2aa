/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-window-upload"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-dialogs.h"
#include "lb-error.h"
#include "lb-png.h"
#include "lb-upload-dialog.h"
#include "lb-window-private.h"
#include "lb-write-back.h"

/* Upload to the store: name prompt (LbUploadDialog) → encode (worker thread) → conditional
 * PUT → on conflict ask keep both / overwrite / cancel → verification result in the status
 * bar. Export writes the same PNG (with provenance) to a local file the user chooses. */

typedef struct {
  LbWindow *self;
  LbImage  *image;        /* the image with provenance metadata */
  LbImage  *shown;        /* the history's image it was made from */
  char     *source_uri;
  char     *name;         /* what the user asked for */
  char     *uri;          /* where it goes now */
  GBytes   *png;
  guint     attempt;      /* keep both: name-2.png, name-3.png … */
  LbStoreWriteMode mode;
  char     *etag;
} UploadCtx;

static void
upload_ctx_free (UploadCtx *ctx)
{
  g_object_unref (ctx->self);
  g_clear_object (&ctx->image);
  g_clear_object (&ctx->shown);
  g_free (ctx->source_uri);
  g_free (ctx->name);
  g_free (ctx->uri);
  g_clear_pointer (&ctx->png, g_bytes_unref);
  g_free (ctx->etag);
  g_free (ctx);
}

/* The current image with provenance: source, ETag, filter chain, software, time. */
static LbImage *
image_with_provenance (LbWindow *self)
{
  LbImage *current = lb_history_get_current (self->history);
  const LbImageMeta *meta = lb_image_get_meta (current);
  g_autofree char *chain = lb_history_dup_chain (self->history);
  g_autoptr (LbImageMeta) prov = NULL;
  LbWriteBackOptions opts = { 0 };

  opts.filter_label = lb_history_get_file_label (self->history);
  opts.filter_chain = chain;
  prov = lb_write_back_add_provenance (current, lb_image_meta_get_source_uri (meta),
                                       lb_image_meta_get_source_etag (meta), &opts);
  return lb_image_with_meta (current, prov);
}

static void
encode_thread (GTask        *task,
               gpointer      source,
               gpointer      task_data,
               GCancellable *cancellable)
{
  GError *error = NULL;
  GBytes *bytes = lb_png_save_to_bytes (LB_IMAGE (task_data), &error);

  if (bytes == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, bytes, (GDestroyNotify) g_bytes_unref);
}

static void
on_put_progress (goffset  current,
                 goffset  total,
                 gpointer user_data)
{
  UploadCtx *ctx = user_data;

  if (total > 0)
    _lb_window_set_progress (ctx->self, (double) current / total);
}

/* "name.png", 2 → "name-2.png" */
static char *
numbered_name (const char *name,
               guint       n)
{
  const char *dot = strrchr (name, '.');

  if (n <= 1)
    return g_strdup (name);
  if (dot == NULL || dot == name)
    return g_strdup_printf ("%s-%u", name, n);
  return g_strdup_printf ("%.*s-%u%s", (int) (dot - name), name, n, dot);
}

static void put_now (UploadCtx *ctx);

static void
finish_upload (UploadCtx         *ctx,
               LbWriteBackResult *result)
{
  LbWindow *self = ctx->self;

  _lb_window_end_op (self);
  g_free (self->last_upload_uri);
  self->last_upload_uri = g_strdup (result->uri);
  _lb_window_set_status (self, result->message);
  lb_store_browser_refresh_parent (self->browser, result->uri);
  _lb_window_saved (self, ctx->shown);
  upload_ctx_free (ctx);
}

static void
on_conflict_response (int      response,
                      gpointer user_data);

/* Asked when an upload's name is taken in the store: keep both (2: the next free numbered
 * name), overwrite (1: only the version just checked) or cancel (0). */
static void
ask_conflict (UploadCtx *ctx)
{
  const char *choices[] = { _("_Cancel"), _("_Overwrite"), _("_Keep Both"), NULL };
  g_autofree char *shown = lb_store_uri_display_name (ctx->uri);
  g_autofree char *text = g_strdup_printf (_("“%s” already exists in the store"), shown);
  LbDialogsAsk ask = {
    .message = text,
    .detail = _("Keep both uploads the image under a new numbered name. Overwrite replaces "
                "the existing image, only if nobody changed it since it was checked."),
    .choices = choices,
    .cancel_choice = 0,
    .default_choice = 2,
    .destructive_choice = 1,
  };

  lb_dialogs_ask (GTK_WINDOW (ctx->self), &ask, NULL, on_conflict_response, ctx);
}

static void
on_put_done (GObject      *source,
             GAsyncResult *res,
             gpointer      user_data)
{
  UploadCtx *ctx = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (LbWriteBackResult) result = NULL;

  result = lb_store_put_bytes_safely_finish (LB_STORE (source), res, &error);
  if (result != NULL)
    {
      finish_upload (ctx, result);
      return;
    }
  if (g_error_matches (error, LB_ERROR, LB_ERROR_CONFLICT) && ctx->mode == LB_STORE_WRITE_CREATE)
    {
      if (ctx->attempt > 1 && ctx->attempt < 99)
        {
          /* the user chose keep both: move on to the next free number */
          ctx->attempt++;
          put_now (ctx);
          return;
        }
      if (ctx->attempt <= 1)
        {
          ask_conflict (ctx);
          return;
        }
    }
  _lb_window_end_op (ctx->self);
  _lb_window_save_failed (ctx->self);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    _lb_window_set_status (ctx->self, _("Upload cancelled"));
  else
    _lb_window_show_error (ctx->self, _("Upload failed"), error);
  upload_ctx_free (ctx);
}

static void
put_now (UploadCtx *ctx)
{
  LbWindow *self = ctx->self;
  g_autofree char *parent = lb_store_uri_parent (ctx->source_uri);
  g_autofree char *name = numbered_name (ctx->name, ctx->attempt);

  g_free (ctx->uri);
  ctx->uri = lb_store_uri_child (parent, name, FALSE);
  lb_store_put_bytes_safely_async (self->store, ctx->uri, ctx->png, "image/png", ctx->mode,
                                   ctx->etag, self->op_cancellable, on_put_progress, ctx,
                                   on_put_done, ctx);
}

static void
on_stat_for_overwrite (GObject      *source,
                       GAsyncResult *res,
                       gpointer      user_data)
{
  UploadCtx *ctx = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (LbStoreEntry) entry = lb_store_stat_finish (LB_STORE (source), res, &error);

  if (entry == NULL)
    {
      _lb_window_end_op (ctx->self);
      _lb_window_save_failed (ctx->self);
      _lb_window_show_error (ctx->self, _("Upload failed"), error);
      upload_ctx_free (ctx);
      return;
    }
  /* overwrite only the version we just looked at; without an ETag the user's explicit
   * consent is all we have */
  g_free (ctx->etag);
  ctx->etag = g_strdup (lb_store_entry_get_etag (entry));
  ctx->mode = ctx->etag ? LB_STORE_WRITE_IF_MATCH : LB_STORE_WRITE_REPLACE;
  put_now (ctx);
}

static void
on_conflict_response (int      response,
                      gpointer user_data)
{
  UploadCtx *ctx = user_data;
  LbWindow *self = ctx->self;

  if (response == 2)
    {
      ctx->attempt = 2;
      put_now (ctx);
    }
  else if (response == 1)
    lb_store_stat_async (self->store, ctx->uri, self->op_cancellable, on_stat_for_overwrite, ctx);
  else
    {
      _lb_window_end_op (self);
      _lb_window_save_failed (self);
      _lb_window_set_status (self, _("Upload cancelled"));
      upload_ctx_free (ctx);
    }
}

static void
on_encoded (GObject      *source,
            GAsyncResult *res,
            gpointer      user_data)
{
  UploadCtx *ctx = user_data;
  g_autoptr (GError) error = NULL;

  ctx->png = g_task_propagate_pointer (G_TASK (res), &error);
  if (ctx->png == NULL)
    {
      _lb_window_end_op (ctx->self);
      _lb_window_save_failed (ctx->self);
      _lb_window_show_error (ctx->self, _("Could not encode the image"), error);
      upload_ctx_free (ctx);
      return;
    }
  put_now (ctx);
}

static void
start_upload (LbWindow   *self,
              const char *name)
{
  UploadCtx *ctx = g_new0 (UploadCtx, 1);
  GTask *task;

  ctx->self = g_object_ref (self);
  ctx->image = image_with_provenance (self);
  ctx->shown = g_object_ref (lb_history_get_current (self->history));
  ctx->source_uri = g_strdup (lb_image_meta_get_source_uri (lb_image_get_meta (ctx->image)));
  ctx->name = g_strdup (name);
  ctx->attempt = 1;
  ctx->mode = LB_STORE_WRITE_CREATE;
  _lb_window_begin_op (self, _("Uploading"));
  task = g_task_new (NULL, self->op_cancellable, on_encoded, ctx);
  g_task_set_task_data (task, g_object_ref (ctx->image), g_object_unref);
  g_task_run_in_thread (task, encode_thread);
  g_object_unref (task);
}

static void
on_upload_response (GtkWindow *dialog,
                    gboolean   accepted,
                    gpointer   user_data)
{
  LbWindow *self = user_data;
  g_autofree char *name = g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->upload_entry)));

  self->upload_dialog = NULL;
  self->upload_entry = NULL;
  g_strstrip (name);
  if (!accepted || *name == '\0' || self->history == NULL)
    {
      _lb_window_save_failed (self);
      return;
    }
  if (strchr (name, '/') != NULL)
    {
      _lb_window_save_failed (self);
      g_autoptr (GError) error = g_error_new (LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                                              _("“%s” is not a file name: it must not contain “/”"),
                                              name);
      _lb_window_show_error (self, _("Upload failed"), error);
      return;
    }
  start_upload (self, name);
}

void
_lb_window_upload (LbWindow *self)
{
  LbImage *current;
  const char *src;
  g_autofree char *src_name = NULL;
  g_autofree char *def = NULL;
  GtkWidget *dialog;
  const char *flabel;

  if (self->history == NULL || self->store == NULL || self->busy || self->upload_dialog)
    return;
  if (_lb_window_series_upload (self))
    return;
  current = lb_history_get_current (self->history);
  src = lb_image_meta_get_source_uri (lb_image_get_meta (current));
  if (src == NULL)
    return;
  src_name = lb_store_uri_display_name (src);
  flabel = lb_history_get_file_label (self->history);
  def = lb_write_back_derived_name (src_name, flabel ? flabel : "lightbox", 1);

  dialog = GTK_WIDGET (lb_upload_dialog_new (def));
  self->upload_dialog = dialog;
  self->upload_entry = lb_upload_dialog_get_entry (LB_UPLOAD_DIALOG (dialog));
  lb_dialogs_form (GTK_WINDOW (dialog), GTK_WINDOW (self), _("_Upload"), on_upload_response,
                   self, NULL);
}

/* ---- export ---------------------------------------------------------------------------- */

typedef struct {
  LbImage *image;
  LbImage *saved;      /* the history's image it was made from, NULL: not a result */
  char    *path;
  char    *done;
  char    *failed;
} WriteData;

static void
write_data_free (WriteData *d)
{
  g_clear_object (&d->image);
  g_clear_object (&d->saved);
  g_free (d->path);
  g_free (d->done);
  g_free (d->failed);
  g_free (d);
}

static void
write_thread (GTask        *task,
              gpointer      source,
              gpointer      task_data,
              GCancellable *cancellable)
{
  WriteData *d = task_data;
  GError *error = NULL;

  /* atomic: a temporary file renamed over the target only when complete */
  if (!lb_png_save_to_file (d->image, d->path, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
on_written (GObject      *source,
            GAsyncResult *res,
            gpointer      user_data)
{
  LbWindow *self = user_data;
  WriteData *d = g_task_get_task_data (G_TASK (res));
  g_autoptr (GError) error = NULL;

  _lb_window_end_op (self);
  if (!g_task_propagate_boolean (G_TASK (res), &error))
    {
      if (d->saved != NULL)
        _lb_window_save_failed (self);
      _lb_window_show_error (self, d->failed, error);
    }
  else
    {
      _lb_window_set_status (self, d->done);
      if (d->saved != NULL)
        _lb_window_saved (self, d->saved);
    }
  g_object_unref (self);
}

void
_lb_window_write_png (LbWindow   *self,
                      LbImage    *image,
                      LbImage    *saved,
                      const char *path,
                      const char *what,
                      const char *done,
                      const char *failed)
{
  WriteData *d = g_new0 (WriteData, 1);
  GTask *task;

  d->image = g_object_ref (image);
  d->saved = saved ? g_object_ref (saved) : NULL;
  d->path = g_strdup (path);
  d->done = g_strdup (done);
  d->failed = g_strdup (failed);
  _lb_window_begin_op (self, what);
  task = g_task_new (NULL, self->op_cancellable, on_written, g_object_ref (self));
  g_task_set_task_data (task, d, (GDestroyNotify) write_data_free);
  g_task_run_in_thread (task, write_thread);
  g_object_unref (task);
}

void
_lb_window_export_to_path (LbWindow   *self,
                           const char *path)
{
  g_autoptr (LbImage) image = image_with_provenance (self);
  g_autofree char *done = g_strdup_printf (_("Exported %s"), path);

  _lb_window_write_png (self, image, lb_history_get_current (self->history), path,
                        _("Exporting"), done, _("Export failed"));
}

static void
on_export_chosen (GFile    *file,
                  gpointer  user_data)
{
  LbWindow *self = user_data;
  g_autofree char *path = file ? g_file_get_path (file) : NULL;

  if (path != NULL && self->history != NULL)
    _lb_window_export_to_path (self, path);
  else
    _lb_window_save_failed (self);
}

void
_lb_window_export (LbWindow *self)
{
  const char *src;
  g_autofree char *src_name = NULL;
  g_autofree char *def = NULL;
  const char *flabel;
  LbFileDialogOptions options = { .title = _("Export PNG"), .accept_label = _("_Export") };

  if (self->history == NULL || self->busy)
    return;
  src = lb_image_meta_get_source_uri (lb_image_get_meta (lb_history_get_current (self->history)));
  src_name = src ? lb_store_uri_display_name (src) : g_strdup ("image.png");
  flabel = lb_history_get_file_label (self->history);
  def = lb_write_back_derived_name (src_name, flabel ? flabel : "lightbox", 1);
  options.initial_name = def;
  lb_dialogs_save_file (GTK_WINDOW (self), &options, on_export_chosen, self);
}
