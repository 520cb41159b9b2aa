/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-window"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-dialogs.h"
#include "lb-dicomweb-store.h"
#include "lb-window-private.h"

/* Unsaved results are never lost silently. A filter result that was neither uploaded nor
 * exported marks the title, and opening another image, closing the window or quitting asks
 * first: Save (the upload dialog when the image came from the open store, else the export
 * file dialog), Discard, or Cancel. After Save, what was asked for goes on only once the
 * result is written; a failed or cancelled save keeps the result and drops the request. */

enum { ANSWER_CANCEL, ANSWER_DISCARD, ANSWER_SAVE };

gboolean
_lb_window_is_modified (LbWindow *self)
{
  LbImage *current;

  if (self->history == NULL)
    return FALSE;
  current = lb_history_get_current (self->history);
  return current != lb_history_get_original (self->history) && current != self->saved_image
         && !_lb_window_series_filter_is_saved (self);
}

/* A DICOMweb instance's name is its SOP Instance UID, which says nothing to a reader: it is
 * called by its patient, series description and instance number instead ("Alpha, Bert — T1
 * sag #3"), as far as its data set has them (the image's text from lb-dicom-frame.c); a
 * DICOMweb series shown as a stack by its patient and series. */
char *
_lb_window_image_title (LbWindow *self)
{
  const LbImageMeta *meta = self->history != NULL
    ? lb_image_get_meta (lb_history_get_original (self->history)) : NULL;
  const char *uri = meta != NULL ? lb_image_meta_get_source_uri (meta) : NULL;
  const char *patient, *series, *number;
  g_autofree char *second = NULL;

  if (self->image_name == NULL || uri == NULL || !LB_IS_DICOMWEB_STORE (self->store)
      || !g_str_has_prefix (uri, lb_store_get_uri (self->store)))
    return g_strdup (self->image_name);
  patient = lb_image_meta_get_text (meta, "Patient");
  series = lb_image_meta_get_text (meta, "Series");
  /* a stack's title stays as its slices change: the series, not one instance of it */
  number = self->frames != NULL && lb_frame_source_is_series (self->frames)
           ? NULL : lb_image_meta_get_text (meta, "Instance number");
  if (series != NULL || number != NULL)
    second = g_strdup_printf ("%s%s%s%s", series ? series : "", series && number ? " " : "",
                              number ? "#" : "", number ? number : "");
  if (patient != NULL && second != NULL)
    return g_strdup_printf ("%s — %s", patient, second);
  if (patient != NULL)
    return g_strdup (patient);
  return second != NULL ? g_steal_pointer (&second) : g_strdup (self->image_name);
}

void
_lb_window_update_title (LbWindow *self)
{
  g_autofree char *title = NULL;
  g_autofree char *name = _lb_window_image_title (self);

  if (name != NULL)
    /* TRANSLATORS: the window title; the first %s marks unsaved results ("• "), the second is
     * the image's name */
    title = g_strdup_printf (_("%s%s — Lightbox"), _lb_window_is_modified (self) ? "• " : "",
                             name);
  else if (self->store != NULL)
    title = g_strdup (lb_store_get_uri (self->store));
  else
    title = g_strdup ("Lightbox");
  gtk_window_set_title (GTK_WINDOW (self), title);
}

static void
pending_clear (LbWindow *self)
{
  GDestroyNotify free_func = self->pending_free;
  gpointer data = self->pending_data;

  self->pending_func = NULL;
  self->pending_data = NULL;
  self->pending_free = NULL;
  if (free_func != NULL)
    free_func (data);
}

/* Runs what waited for the answer (or the save), then forgets it. */
static void
pending_run (LbWindow *self)
{
  LbWindowThen func = self->pending_func;

  if (func != NULL)
    func (self, self->pending_data);
  pending_clear (self);
}

void
_lb_window_saved (LbWindow *self,
                  LbImage  *image)
{
  g_set_object (&self->saved_image, image);
  _lb_window_update_title (self);
  if (!_lb_window_is_modified (self))
    pending_run (self);
}

void
_lb_window_save_failed (LbWindow *self)
{
  pending_clear (self);
}

static void
on_unsaved_answer (int      choice,
                   gpointer user_data)
{
  LbWindow *self = user_data;

  self->asking_unsaved = FALSE;
  switch (choice)
    {
    case ANSWER_DISCARD:
      /* the result stays in the history (Undo still reaches it) but is no longer asked about */
      if (self->history != NULL)
        g_set_object (&self->saved_image, lb_history_get_current (self->history));
      _lb_window_update_title (self);
      pending_run (self);
      break;
    case ANSWER_SAVE:
      {
        GAction *upload = g_action_map_lookup_action (G_ACTION_MAP (self), "upload");

        if (g_action_get_enabled (upload))
          _lb_window_upload (self);
        else
          _lb_window_export (self);
      }
      break;
    default:
      pending_clear (self);
      break;
    }
}

void
_lb_window_after_unsaved (LbWindow      *self,
                          LbWindowThen   func,
                          gpointer       data,
                          GDestroyNotify free_func)
{
  const char *choices[] = { _("_Cancel"), _("_Discard"), _("_Save…"), NULL };
  g_autofree char *message = NULL;
  g_autofree char *name = NULL;
  LbDialogsAsk ask = {
    .detail = _("The filter result is neither uploaded nor exported. If you discard it, it is "
                "lost."),
    .choices = choices,
    .cancel_choice = ANSWER_CANCEL,
    .default_choice = ANSWER_SAVE,
    .destructive_choice = ANSWER_DISCARD,
  };

  if (!_lb_window_is_modified (self))
    {
      func (self, data);
      if (free_func != NULL)
        free_func (data);
      return;
    }
  /* a newer request replaces the one waiting; one question at a time */
  pending_clear (self);
  self->pending_func = func;
  self->pending_data = data;
  self->pending_free = free_func;
  if (self->asking_unsaved)
    return;
  self->asking_unsaved = TRUE;
  name = _lb_window_image_title (self);
  message = g_strdup_printf (_("Save the changes to “%s”?"), name ? name : _("the image"));
  ask.message = message;
  lb_dialogs_ask (GTK_WINDOW (self), &ask, NULL, on_unsaved_answer, self);
}

static gboolean
close_idle (gpointer data)
{
  gtk_window_close (GTK_WINDOW (data));
  return G_SOURCE_REMOVE;
}

/* From an idle: the question that answered is still being taken down, and holds the window
 * as its parent until then. */
static void
close_now (LbWindow *self,
           gpointer  data)
{
  self->close_confirmed = TRUE;
  g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, close_idle, g_object_ref (self), g_object_unref);
}

gboolean
_lb_window_close_needs_answer (LbWindow *self)
{
  if (self->close_confirmed || !_lb_window_is_modified (self))
    return FALSE;
  _lb_window_after_unsaved (self, close_now, NULL, NULL);
  return TRUE;
}

void
_lb_window_unsaved_dispose (LbWindow *self)
{
  pending_clear (self);
  g_clear_object (&self->saved_image);
}
