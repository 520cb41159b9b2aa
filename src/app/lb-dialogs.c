/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dialogs"

#include "config.h"

/* The version pins (meson option version_pins) may cap the GTK API at 4.8 while the headers are
 * newer. This file alone chooses between the old and the new dialogs, by the headers' version
 * (GTK_CHECK_VERSION below), so it lifts the cap to what the headers offer; the deprecations
 * still warn, since GDK_VERSION_MIN_REQUIRED stays as pinned. */
#undef GDK_VERSION_MAX_ALLOWED
#define GDK_VERSION_MAX_ALLOWED GDK_VERSION_CUR_STABLE

#include <glib/gi18n.h>

#include "lb-dialogs.h"

#define LB_DIALOGS_NEW_API GTK_CHECK_VERSION (4, 10, 0)

/* ---- files ------------------------------------------------------------------------------ */

typedef enum {
  KIND_OPEN,
  KIND_OPEN_MULTIPLE,
  KIND_SAVE,
  KIND_FOLDER,
} FileKind;

typedef struct {
  FileKind           kind;
  LbDialogsFileFunc  file_func;
  LbDialogsFilesFunc files_func;
  gpointer           user_data;
} FileCtx;

/* Calls back with @files (all kinds but KIND_OPEN_MULTIPLE take the first), NULL when
 * dismissed, and frees @ctx. */
static void
file_ctx_answer (FileCtx    *ctx,
                 GListModel *files)
{
  if (ctx->kind == KIND_OPEN_MULTIPLE)
    ctx->files_func (files, ctx->user_data);
  else
    {
      g_autoptr (GFile) file = files && g_list_model_get_n_items (files) > 0
                               ? g_list_model_get_item (files, 0) : NULL;

      ctx->file_func (file, ctx->user_data);
    }
  g_free (ctx);
}

#if LB_DIALOGS_NEW_API

static void
on_file_dialog_done (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  GtkFileDialog *dialog = GTK_FILE_DIALOG (source);
  FileCtx *ctx = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GListModel) files = NULL;
  g_autoptr (GFile) file = NULL;

  switch (ctx->kind)
    {
    case KIND_OPEN:
      file = gtk_file_dialog_open_finish (dialog, result, &error);
      break;
    case KIND_OPEN_MULTIPLE:
      files = gtk_file_dialog_open_multiple_finish (dialog, result, &error);
      break;
    case KIND_SAVE:
      file = gtk_file_dialog_save_finish (dialog, result, &error);
      break;
    case KIND_FOLDER:
      file = gtk_file_dialog_select_folder_finish (dialog, result, &error);
      break;
    default:
      g_assert_not_reached ();
    }
  /* dismissed by the user is no error; a failing portal or chooser is worth a line in the log,
   * and for the caller it is the same: nothing chosen */
  if (error != NULL && !g_error_matches (error, GTK_DIALOG_ERROR, GTK_DIALOG_ERROR_DISMISSED)
      && !g_error_matches (error, GTK_DIALOG_ERROR, GTK_DIALOG_ERROR_CANCELLED))
    g_message ("file dialog: %s", error->message);
  if (file != NULL)
    {
      GListStore *one = g_list_store_new (G_TYPE_FILE);

      g_list_store_append (one, file);
      files = G_LIST_MODEL (one);
    }
  file_ctx_answer (ctx, files);
}

static void
file_dialog (GtkWindow                 *parent,
             FileKind                   kind,
             const LbFileDialogOptions *options,
             FileCtx                   *ctx)
{
  g_autoptr (GtkFileDialog) dialog = gtk_file_dialog_new ();

  gtk_file_dialog_set_title (dialog, options->title);
  gtk_file_dialog_set_modal (dialog, TRUE);
  if (options->accept_label != NULL)
    gtk_file_dialog_set_accept_label (dialog, options->accept_label);
  if (options->filter != NULL)
    {
      g_autoptr (GListStore) filters = g_list_store_new (GTK_TYPE_FILE_FILTER);

      g_list_store_append (filters, options->filter);
      gtk_file_dialog_set_filters (dialog, G_LIST_MODEL (filters));
      gtk_file_dialog_set_default_filter (dialog, options->filter);
    }
  if (options->initial_folder != NULL)
    gtk_file_dialog_set_initial_folder (dialog, options->initial_folder);
  if (options->initial_name != NULL)
    gtk_file_dialog_set_initial_name (dialog, options->initial_name);
  /* the asynchronous call holds the dialog until it is answered */
  switch (kind)
    {
    case KIND_OPEN:
      gtk_file_dialog_open (dialog, parent, NULL, on_file_dialog_done, ctx);
      break;
    case KIND_OPEN_MULTIPLE:
      gtk_file_dialog_open_multiple (dialog, parent, NULL, on_file_dialog_done, ctx);
      break;
    case KIND_SAVE:
      gtk_file_dialog_save (dialog, parent, NULL, on_file_dialog_done, ctx);
      break;
    case KIND_FOLDER:
      gtk_file_dialog_select_folder (dialog, parent, NULL, on_file_dialog_done, ctx);
      break;
    default:
      g_assert_not_reached ();
    }
}

#else /* GTK 4.8 */

static void
on_native_response (GtkNativeDialog *native,
                    int              response,
                    FileCtx         *ctx)
{
  g_autoptr (GListModel) files = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    files = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (native));
  file_ctx_answer (ctx, files);
  gtk_native_dialog_destroy (native);
  g_object_unref (native);
}

static void
file_dialog (GtkWindow                 *parent,
             FileKind                   kind,
             const LbFileDialogOptions *options,
             FileCtx                   *ctx)
{
  static const GtkFileChooserAction actions[] = {
    [KIND_OPEN] = GTK_FILE_CHOOSER_ACTION_OPEN,
    [KIND_OPEN_MULTIPLE] = GTK_FILE_CHOOSER_ACTION_OPEN,
    [KIND_SAVE] = GTK_FILE_CHOOSER_ACTION_SAVE,
    [KIND_FOLDER] = GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
  };
  /* the cancel label (NULL) is GTK's own */
  GtkFileChooserNative *native = gtk_file_chooser_native_new (options->title, parent,
                                                              actions[kind],
                                                              options->accept_label, NULL);
  GtkFileChooser *chooser = GTK_FILE_CHOOSER (native);

  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  gtk_file_chooser_set_select_multiple (chooser, kind == KIND_OPEN_MULTIPLE);
  if (options->filter != NULL)
    gtk_file_chooser_add_filter (chooser, options->filter);   /* the first added is selected */
  if (options->initial_folder != NULL)
    {
      g_autoptr (GError) error = NULL;

      if (!gtk_file_chooser_set_current_folder (chooser, options->initial_folder, &error))
        g_message ("file dialog: %s", error->message);
    }
  if (options->initial_name != NULL)
    gtk_file_chooser_set_current_name (chooser, options->initial_name);
  g_signal_connect (native, "response", G_CALLBACK (on_native_response), ctx);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

#endif

static void
file_dialog_start (GtkWindow                 *parent,
                   FileKind                   kind,
                   const LbFileDialogOptions *options,
                   LbDialogsFileFunc          file_func,
                   LbDialogsFilesFunc         files_func,
                   gpointer                   user_data)
{
  FileCtx *ctx = g_new0 (FileCtx, 1);

  ctx->kind = kind;
  ctx->file_func = file_func;
  ctx->files_func = files_func;
  ctx->user_data = user_data;
  file_dialog (parent, kind, options, ctx);
}

void
lb_dialogs_open_file (GtkWindow                 *parent,
                      const LbFileDialogOptions *options,
                      LbDialogsFileFunc          func,
                      gpointer                   user_data)
{
  g_return_if_fail (options != NULL && func != NULL);
  file_dialog_start (parent, KIND_OPEN, options, func, NULL, user_data);
}

void
lb_dialogs_open_files (GtkWindow                 *parent,
                       const LbFileDialogOptions *options,
                       LbDialogsFilesFunc         func,
                       gpointer                   user_data)
{
  g_return_if_fail (options != NULL && func != NULL);
  file_dialog_start (parent, KIND_OPEN_MULTIPLE, options, NULL, func, user_data);
}

void
lb_dialogs_save_file (GtkWindow                 *parent,
                      const LbFileDialogOptions *options,
                      LbDialogsFileFunc          func,
                      gpointer                   user_data)
{
  g_return_if_fail (options != NULL && func != NULL);
  file_dialog_start (parent, KIND_SAVE, options, func, NULL, user_data);
}

void
lb_dialogs_select_folder (GtkWindow                 *parent,
                          const LbFileDialogOptions *options,
                          LbDialogsFileFunc          func,
                          gpointer                   user_data)
{
  g_return_if_fail (options != NULL && func != NULL);
  file_dialog_start (parent, KIND_FOLDER, options, func, NULL, user_data);
}

/* ---- questions -------------------------------------------------------------------------- */

typedef struct {
  LbDialogsChoiceFunc func;
  gpointer            user_data;
  int                 cancel_choice;
  GCancellable       *cancellable;     /* the caller's, or NULL */
  gulong              cancelled_id;
  GtkWindow          *window;          /* the question's window (a reference), or NULL */
  gulong              destroy_id;
  gboolean            orphaned;        /* the window went unanswered, with its parent */
  GCancellable       *alert_cancellable; /* GtkAlertDialog's: ends it */
  GWeakRef            parent;          /* GtkAlertDialog's: NULL once finalized */
  gboolean            has_parent;
} AskCtx;

static void
ask_ctx_free (AskCtx *ctx)
{
  if (ctx->cancelled_id != 0)
    g_signal_handler_disconnect (ctx->cancellable, ctx->cancelled_id);
  g_clear_object (&ctx->cancellable);
  if (ctx->destroy_id != 0)
    g_signal_handler_disconnect (ctx->window, ctx->destroy_id);
  g_clear_object (&ctx->window);
  g_clear_object (&ctx->alert_cancellable);
  g_weak_ref_clear (&ctx->parent);
  g_free (ctx);
}

#if LB_DIALOGS_NEW_API

/* GtkAlertDialog has no style for a button (GTK 4.18), so the destructive choice is marked in
 * its window. */
static GtkWidget *
find_button (GtkWidget  *widget,
             const char *label)
{
  GtkWidget *child;

  if (GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0)
    return widget;
  for (child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_button (child, label);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The window GtkAlertDialog has just presented: the toplevel over @parent that was not in
 * @before. NULL if GTK showed the alert elsewhere (none does in 4.18). */
static GtkWindow *
find_new_window (GtkWindow *parent,
                 GList     *before)
{
  g_autoptr (GList) after = gtk_window_list_toplevels ();

  for (GList *l = after; l != NULL; l = l->next)
    if (g_list_find (before, l->data) == NULL && gtk_window_get_transient_for (l->data) == parent)
      return l->data;
  return NULL;
}

static void
on_alert_cancelled (GCancellable *cancellable,
                    AskCtx       *ctx)
{
  g_cancellable_cancel (ctx->alert_cancellable);
}

/* Destroyed with its parent, unanswered: GtkAlertDialog would wait for an answer forever, so it
 * is cancelled, and no one is called back. The reference held on the window keeps it valid for
 * GtkAlertDialog, which destroys it once more when it finishes. */
static void
on_alert_window_destroy (GtkWindow *window,
                         AskCtx    *ctx)
{
  ctx->orphaned = TRUE;
  g_cancellable_cancel (ctx->alert_cancellable);
}

/* Whether the parent is gone or going: GTK 4.18 may answer the alert (dismissed) while the
 * parent's destruction takes the alert's window down, before its ::destroy. */
static gboolean
parent_gone (AskCtx *ctx)
{
  g_autoptr (GtkWindow) parent = g_weak_ref_get (&ctx->parent);
  GListModel *tops = gtk_window_get_toplevels ();

  if (ctx->orphaned || !ctx->has_parent)
    return ctx->orphaned;
  if (parent == NULL || gtk_widget_in_destruction (GTK_WIDGET (parent)))
    return TRUE;
  for (guint i = 0; i < g_list_model_get_n_items (tops); i++)
    {
      g_autoptr (GtkWindow) top = g_list_model_get_item (tops, i);

      if (top == parent)
        return FALSE;
    }
  return TRUE;   /* destroyed, still referenced */
}

static void
on_alert_done (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  AskCtx *ctx = user_data;
  g_autoptr (GError) error = NULL;
  int choice;

  /* finishing destroys the window: that is no orphaning */
  if (ctx->destroy_id != 0)
    g_signal_handler_disconnect (ctx->window, ctx->destroy_id);
  ctx->destroy_id = 0;
  choice = gtk_alert_dialog_choose_finish (GTK_ALERT_DIALOG (source), result, &error);
  /* cancelled or failed: the cancel choice, as when dismissed */
  if (!parent_gone (ctx) && ctx->func != NULL)
    ctx->func (error != NULL ? ctx->cancel_choice : choice, ctx->user_data);
  ask_ctx_free (ctx);
}

static void
ask (GtkWindow          *parent,
     const LbDialogsAsk *q,
     AskCtx             *ctx)
{
  g_autoptr (GtkAlertDialog) alert = gtk_alert_dialog_new ("%s", q->message);
  g_autoptr (GList) before = gtk_window_list_toplevels ();

  gtk_alert_dialog_set_modal (alert, TRUE);
  if (q->detail != NULL)
    gtk_alert_dialog_set_detail (alert, q->detail);
  if (q->choices != NULL)
    {
      gtk_alert_dialog_set_buttons (alert, q->choices);
      gtk_alert_dialog_set_cancel_button (alert, q->cancel_choice);
      gtk_alert_dialog_set_default_button (alert, q->default_choice);
    }
  ctx->alert_cancellable = g_cancellable_new ();
  g_weak_ref_init (&ctx->parent, parent);
  ctx->has_parent = parent != NULL;
  if (ctx->cancellable != NULL)
    ctx->cancelled_id = g_signal_connect (ctx->cancellable, "cancelled",
                                          G_CALLBACK (on_alert_cancelled), ctx);
  gtk_alert_dialog_choose (alert, parent, ctx->alert_cancellable, on_alert_done, ctx);
  ctx->window = find_new_window (parent, before);
  if (ctx->window == NULL)
    return;
  g_object_ref (ctx->window);
  ctx->destroy_id = g_signal_connect (ctx->window, "destroy",
                                      G_CALLBACK (on_alert_window_destroy), ctx);
  if (q->choices != NULL && q->destructive_choice >= 0)
    {
      GtkWidget *button = find_button (GTK_WIDGET (ctx->window),
                                       q->choices[q->destructive_choice]);

      if (button != NULL)
        gtk_widget_add_css_class (button, "destructive-action");
    }
}

#else /* GTK 4.8 */

static void
on_message_response (GtkDialog *dialog,
                     int        response,
                     gpointer   user_data)
{
  /* the window's data is freed with the window, unless answered here first */
  AskCtx *ctx = g_object_steal_data (G_OBJECT (dialog), "lb-dialogs-ask");

  if (ctx == NULL)
    return;
  gtk_window_destroy (GTK_WINDOW (dialog));
  /* Close, Escape and closing the window (GTK_RESPONSE_CLOSE, _DELETE_EVENT) are negative */
  if (ctx->func != NULL)
    ctx->func (response >= 0 ? response : ctx->cancel_choice, ctx->user_data);
  ask_ctx_free (ctx);
}

static void
on_message_cancelled (GCancellable *cancellable,
                      GtkDialog    *dialog)
{
  gtk_dialog_response (dialog, GTK_RESPONSE_DELETE_EVENT);
}

static void
ask (GtkWindow          *parent,
     const LbDialogsAsk *q,
     AskCtx             *ctx)
{
  /* GTK 4 draws no icon for a message type; INFO is GtkAlertDialog's */
  GtkWidget *dialog = gtk_message_dialog_new (parent,
                                              GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                              GTK_MESSAGE_INFO,
                                              q->choices ? GTK_BUTTONS_NONE : GTK_BUTTONS_CLOSE,
                                              "%s", q->message);

  if (q->detail != NULL)
    gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog), "%s", q->detail);
  for (int i = 0; q->choices != NULL && q->choices[i] != NULL; i++)
    {
      GtkWidget *button = gtk_dialog_add_button (GTK_DIALOG (dialog), q->choices[i], i);

      if (i == q->destructive_choice)
        gtk_widget_add_css_class (button, "destructive-action");
    }
  if (q->choices != NULL && q->default_choice >= 0)
    gtk_dialog_set_default_response (GTK_DIALOG (dialog), q->default_choice);
  if (ctx->cancellable != NULL)
    ctx->cancelled_id = g_signal_connect (ctx->cancellable, "cancelled",
                                          G_CALLBACK (on_message_cancelled), dialog);
  /* destroyed with the parent, unanswered: freed, no call back (as GtkAlertDialog) */
  g_object_set_data_full (G_OBJECT (dialog), "lb-dialogs-ask", ctx,
                          (GDestroyNotify) ask_ctx_free);
  g_signal_connect (dialog, "response", G_CALLBACK (on_message_response), NULL);
  gtk_window_present (GTK_WINDOW (dialog));
}

#endif

void
lb_dialogs_ask (GtkWindow           *parent,
                const LbDialogsAsk  *q,
                GCancellable        *cancellable,
                LbDialogsChoiceFunc  func,
                gpointer             user_data)
{
  int n = q && q->choices ? (int) g_strv_length ((char **) q->choices) : 0;
  AskCtx *ctx;

  g_return_if_fail (q != NULL && q->message != NULL);
  g_return_if_fail (q->choices == NULL || (n > 0 && q->cancel_choice >= 0 && q->cancel_choice < n
                                           && q->default_choice < n
                                           && q->destructive_choice < n));
  ctx = g_new0 (AskCtx, 1);
  ctx->func = func;
  ctx->user_data = user_data;
  ctx->cancel_choice = q->choices != NULL ? q->cancel_choice : 0;
  if (cancellable != NULL)
    ctx->cancellable = g_object_ref (cancellable);
  ask (parent, q, ctx);
}

/* ---- errors ----------------------------------------------------------------------------- */

/* GtkAlertDialog cannot hold an expander, so the error is a small window of its own, built
 * the same way on 4.8 and later; it looks like the alert: a bold message, the explanation
 * under it, then "Details" folded, and one Close button. */

static void
on_error_cancelled (GCancellable *cancellable,
                    GtkWindow    *window)
{
  gtk_window_destroy (window);
}

static void
on_error_destroy (GtkWindow    *window,
                  GCancellable *cancellable)
{
  g_signal_handlers_disconnect_by_func (cancellable, on_error_cancelled, window);
  g_object_unref (cancellable);
}

static GtkWidget *
error_label (const char *text,
             gboolean    heading)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 50);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  if (heading)
    gtk_widget_add_css_class (label, "title-4");
  return label;
}

void
lb_dialogs_error (GtkWindow    *parent,
                  const char   *message,
                  const char   *explanation,
                  const char   *details,
                  GCancellable *cancellable)
{
  GtkWidget *window, *box, *buttons, *close;
  GtkEventController *shortcuts;

  g_return_if_fail (message != NULL);
  window = gtk_window_new ();
  gtk_window_set_title (GTK_WINDOW (window), message);
  gtk_window_set_resizable (GTK_WINDOW (window), FALSE);
  gtk_widget_add_css_class (window, "lb-error-dialog");
  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_widget_set_margin_start (box, 24);
  gtk_widget_set_margin_end (box, 24);
  gtk_widget_set_margin_top (box, 24);
  gtk_widget_set_margin_bottom (box, 18);
  gtk_box_append (GTK_BOX (box), error_label (message, TRUE));
  if (explanation != NULL && *explanation != '\0')
    gtk_box_append (GTK_BOX (box), error_label (explanation, FALSE));
  if (details != NULL && *details != '\0')
    {
      GtkWidget *expander = gtk_expander_new_with_mnemonic (_("_Details"));
      GtkWidget *text = error_label (details, FALSE);

      gtk_label_set_selectable (GTK_LABEL (text), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (text), PANGO_WRAP_WORD_CHAR);
      gtk_widget_add_css_class (text, "monospace");
      gtk_widget_set_margin_top (text, 6);
      gtk_expander_set_child (GTK_EXPANDER (expander), text);
      gtk_box_append (GTK_BOX (box), expander);
    }
  buttons = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_set_halign (buttons, GTK_ALIGN_END);
  close = gtk_button_new_with_mnemonic (_("_Close"));
  g_signal_connect_swapped (close, "clicked", G_CALLBACK (gtk_window_destroy), window);
  gtk_box_append (GTK_BOX (buttons), close);
  gtk_box_append (GTK_BOX (box), buttons);
  gtk_window_set_child (GTK_WINDOW (window), box);
  gtk_window_set_default_widget (GTK_WINDOW (window), close);

  shortcuts = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (shortcuts),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Escape, 0),
                                                          gtk_named_action_new ("window.close")));
  gtk_widget_add_controller (window, shortcuts);
  if (cancellable != NULL)
    {
      g_signal_connect (cancellable, "cancelled", G_CALLBACK (on_error_cancelled), window);
      g_signal_connect (window, "destroy", G_CALLBACK (on_error_destroy),
                        g_object_ref (cancellable));
    }
  gtk_window_set_transient_for (GTK_WINDOW (window), parent);
  gtk_window_set_modal (GTK_WINDOW (window), TRUE);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (window), TRUE);
  gtk_window_present (GTK_WINDOW (window));
  gtk_widget_grab_focus (close);
}

/* ---- forms ------------------------------------------------------------------------------ */

typedef struct {
  LbDialogsFormFunc func;        /* NULL once answered */
  gpointer          user_data;
  GDestroyNotify    destroy;
} FormData;

static void
form_data_free (gpointer data)
{
  FormData *fd = data;

  if (fd->destroy != NULL)
    fd->destroy (fd->user_data);
  g_free (fd);
}

static void
form_answer (GtkWindow *form,
             gboolean   accepted)
{
  FormData *fd = g_object_get_data (G_OBJECT (form), "lb-dialogs-form");
  LbDialogsFormFunc func = g_steal_pointer (&fd->func);

  if (func == NULL)
    return;
  func (form, accepted, fd->user_data);
  gtk_window_destroy (form);
}

static void
on_form_cancel (GtkButton *button,
                GtkWindow *form)
{
  form_answer (form, FALSE);
}

static void
on_form_accept (GtkButton *button,
                GtkWindow *form)
{
  form_answer (form, TRUE);
}

static gboolean
on_form_close_request (GtkWindow *form)
{
  form_answer (form, FALSE);
  return TRUE;   /* destroyed by form_answer(), or already being destroyed */
}

void
lb_dialogs_form (GtkWindow         *form,
                 GtkWindow         *parent,
                 const char        *accept_label,
                 LbDialogsFormFunc  func,
                 gpointer           user_data,
                 GDestroyNotify     destroy)
{
  FormData *fd;
  GtkWidget *header, *cancel, *accept;
  GtkEventController *shortcuts;
  g_autoptr (GtkSizeGroup) sizes = NULL;

  g_return_if_fail (GTK_IS_WINDOW (form) && accept_label != NULL && func != NULL);
  fd = g_new0 (FormData, 1);
  fd->func = func;
  fd->user_data = user_data;
  fd->destroy = destroy;
  g_object_set_data_full (G_OBJECT (form), "lb-dialogs-form", fd, form_data_free);

  header = gtk_header_bar_new ();
  /* Cancel stands for the close button, as in a GtkDialog with a header bar */
  gtk_header_bar_set_show_title_buttons (GTK_HEADER_BAR (header), FALSE);
  cancel = gtk_button_new_with_mnemonic (_("_Cancel"));
  g_signal_connect (cancel, "clicked", G_CALLBACK (on_form_cancel), form);
  gtk_header_bar_pack_start (GTK_HEADER_BAR (header), cancel);
  accept = gtk_button_new_with_mnemonic (accept_label);
  gtk_widget_add_css_class (accept, "suggested-action");
  g_signal_connect (accept, "clicked", G_CALLBACK (on_form_accept), form);
  gtk_header_bar_pack_end (GTK_HEADER_BAR (header), accept);
  /* both buttons as wide as the wider, as GtkDialog made them */
  sizes = gtk_size_group_new (GTK_SIZE_GROUP_HORIZONTAL);
  gtk_size_group_add_widget (sizes, cancel);
  gtk_size_group_add_widget (sizes, accept);
  gtk_window_set_titlebar (form, header);
  gtk_window_set_default_widget (form, accept);

  shortcuts = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (shortcuts),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Escape, 0),
                                                          gtk_named_action_new ("window.close")));
  gtk_widget_add_controller (GTK_WIDGET (form), shortcuts);
  g_signal_connect (form, "close-request", G_CALLBACK (on_form_close_request), NULL);

  gtk_window_set_transient_for (form, parent);
  gtk_window_set_modal (form, TRUE);
  gtk_window_set_destroy_with_parent (form, TRUE);
  gtk_window_present (form);
}
