/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * lb-dialogs.c on the GTK it is built with (GtkAlertDialog and GtkFileDialog from GTK 4.10,
 * GtkMessageDialog and GtkFileChooserNative on 4.8): a question answers the button pressed, the
 * cancel choice when closed or cancelled, and nothing when its parent goes first; a form
 * answers accept on Enter and cancel on closing, and frees its data once; an error folds its
 * technical text under Details; the save and folder
 * dialogs offer the title, folder and name they were given and answer the file chosen. The dialogs are found
 * and answered by what they show (tests/lib/lb-test-dialogs.h), under Xvfb.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "lb-dialogs.h"
#include "lb-test-dialogs.h"
#include "lb-test-files.h"
#include "lb-test-loop.h"

typedef struct {
  gboolean answered;
  int      choice;
  guint    calls;
} Answer;

static void
on_choice (int      choice,
           gpointer user_data)
{
  Answer *a = user_data;

  a->answered = TRUE;
  a->choice = choice;
  a->calls++;
}

static GtkWindow *
new_parent (void)
{
  GtkWindow *parent = GTK_WINDOW (gtk_window_new ());

  gtk_window_set_default_size (parent, 400, 300);
  gtk_window_present (parent);
  return parent;
}

static gboolean
no_dialog (gpointer parent)
{
  return lb_test_dialog_over (GTK_WINDOW (parent)) == NULL;
}

/* Lets pending idles (a GTask's answer, a window's destruction) run. */
static void
drain (void)
{
  for (int i = 0; i < 20; i++)
    while (g_main_context_iteration (NULL, FALSE))
      ;
}

/* The question over @parent answered @choice, once, and went. */
static void
assert_answered (GtkWindow *parent,
                 Answer    *a,
                 int        choice)
{
  g_assert_true (lb_test_wait (lb_test_flag_is_set, &a->answered, 10000));
  g_assert_cmpint (a->choice, ==, choice);
  g_assert_true (lb_test_wait (no_dialog, parent, 5000));
  drain ();
  g_assert_cmpuint (a->calls, ==, 1);
}

static const char *const conflict_choices[] = { "_Cancel", "_Overwrite", "_Keep Both", NULL };

static const LbDialogsAsk conflict = {
  .message = "“result.png” already exists",
  .detail = "Keep both or overwrite.",
  .choices = conflict_choices,
  .cancel_choice = 0,
  .default_choice = 2,
  .destructive_choice = 1,
};

/* The question shows its texts and buttons as asked; the button pressed is the answer. */
static void
test_ask_choice (void)
{
  GtkWindow *parent = new_parent ();
  GtkWindow *dialog;
  GtkWidget *keep, *overwrite, *cancel;
  Answer a = { 0 };

  lb_dialogs_ask (parent, &conflict, NULL, on_choice, &a);
  g_assert_true (lb_test_wait (lb_test_has_dialog, parent, 5000));
  dialog = lb_test_dialog_over (parent);
  g_assert_true (gtk_window_get_modal (dialog));
  g_assert_nonnull (lb_test_find_text (GTK_WIDGET (dialog), "“result.png” already exists"));
  g_assert_nonnull (lb_test_find_text (GTK_WIDGET (dialog), "Keep both or overwrite."));
  cancel = lb_test_find_button (GTK_WIDGET (dialog), "_Cancel");
  overwrite = lb_test_find_button (GTK_WIDGET (dialog), "_Overwrite");
  keep = lb_test_find_button (GTK_WIDGET (dialog), "_Keep Both");
  g_assert_nonnull (cancel);
  g_assert_nonnull (overwrite);
  g_assert_nonnull (keep);
  /* Enter presses the default; only Overwrite looks destructive */
  g_assert_true (gtk_window_get_default_widget (dialog) == keep);
  g_assert_true (gtk_widget_has_css_class (overwrite, "destructive-action"));
  g_assert_false (gtk_widget_has_css_class (keep, "destructive-action"));
  g_assert_false (gtk_widget_has_css_class (cancel, "destructive-action"));

  g_signal_emit_by_name (overwrite, "clicked");
  assert_answered (parent, &a, 1);

  /* and again, each choice by its index */
  for (int i = 0; i < 3; i++)
    {
      Answer b = { 0 };

      lb_dialogs_ask (parent, &conflict, NULL, on_choice, &b);
      g_assert_true (lb_test_wait (lb_test_has_dialog, parent, 5000));
      lb_test_answer_dialog (parent, conflict_choices[i]);
      assert_answered (parent, &b, i);
    }
  gtk_window_destroy (parent);
}

/* Closing the question (Escape, the window manager) answers the cancel choice, whichever
 * index it has. */
static void
test_ask_close (void)
{
  static const char *const choices[] = { "_Overwrite", "_Cancel", NULL };
  LbDialogsAsk q = { .message = "Overwrite?", .choices = choices, .cancel_choice = 1,
                     .default_choice = -1, .destructive_choice = 0 };
  GtkWindow *parent = new_parent ();
  Answer a = { 0 };

  lb_dialogs_ask (parent, &q, NULL, on_choice, &a);
  g_assert_true (lb_test_wait (lb_test_has_dialog, parent, 5000));
  gtk_window_close (lb_test_dialog_over (parent));
  assert_answered (parent, &a, 1);
  gtk_window_destroy (parent);
}

/* The caller's cancellable takes the question down, answering the cancel choice. */
static void
test_ask_cancellable (void)
{
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  GtkWindow *parent = new_parent ();
  Answer a = { 0 };

  lb_dialogs_ask (parent, &conflict, cancellable, on_choice, &a);
  g_assert_true (lb_test_wait (lb_test_has_dialog, parent, 5000));
  g_cancellable_cancel (cancellable);
  assert_answered (parent, &a, 0);
  gtk_window_destroy (parent);
}

/* Without choices: an alert with one Close button, answering 0; no callback needed. */
static void
test_ask_alert (void)
{
  LbDialogsAsk q = { .message = "Upload failed", .detail = "The store refused it." };
  GtkWindow *parent = new_parent ();
  GtkWindow *dialog;
  Answer a = { 0 };

  lb_dialogs_ask (parent, &q, NULL, on_choice, &a);
  g_assert_true (lb_test_wait (lb_test_has_dialog, parent, 5000));
  dialog = lb_test_dialog_over (parent);
  g_assert_nonnull (lb_test_find_text (GTK_WIDGET (dialog), "The store refused it."));
  lb_test_answer_dialog (parent, "_Close");
  assert_answered (parent, &a, 0);

  lb_dialogs_ask (parent, &q, NULL, NULL, NULL);
  g_assert_true (lb_test_wait (lb_test_has_dialog, parent, 5000));
  lb_test_answer_dialog (parent, "_Close");
  g_assert_true (lb_test_wait (no_dialog, parent, 5000));
  gtk_window_destroy (parent);
}

/* An error: the message and the plain reason shown, the technical text folded under Details
 * (out of sight until expanded), Close, Escape and the cancellable each take it down, and it
 * goes with its parent. The same window on every GTK. */
static void
test_error (void)
{
  static const char *const technical = "PUT http://127.0.0.1:1/a.png: 412 Precondition Failed";
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  GtkWindow *parent = new_parent ();
  GtkWindow *dialog;
  GtkExpander *details;

  lb_dialogs_error (parent, "Could not save", "The file already exists.", technical, NULL);
  g_assert_true (lb_test_wait (lb_test_has_dialog, parent, 5000));
  dialog = lb_test_dialog_over (parent);
  g_assert_true (gtk_window_get_modal (dialog));
  g_assert_nonnull (lb_test_find_text (GTK_WIDGET (dialog), "Could not save"));
  g_assert_nonnull (lb_test_find_text (GTK_WIDGET (dialog), "The file already exists."));
  details = lb_test_find_expander (GTK_WIDGET (dialog));
  g_assert_nonnull (details);
  g_assert_false (gtk_expander_get_expanded (details));
  g_assert_null (lb_test_find_text (GTK_WIDGET (dialog), "412"));
  gtk_expander_set_expanded (details, TRUE);
  g_assert_cmpstr (lb_test_find_text (GTK_WIDGET (dialog), "412"), ==, technical);
  lb_test_answer_dialog (parent, "_Close");
  g_assert_true (lb_test_wait (no_dialog, parent, 5000));

  /* without details: no expander */
  lb_dialogs_error (parent, "Upload failed", "“a/b” is not a file name", NULL, NULL);
  g_assert_true (lb_test_wait (lb_test_has_dialog, parent, 5000));
  g_assert_null (lb_test_find_expander (GTK_WIDGET (lb_test_dialog_over (parent))));
  gtk_window_close (lb_test_dialog_over (parent));
  g_assert_true (lb_test_wait (no_dialog, parent, 5000));

  lb_dialogs_error (parent, "Could not save", NULL, technical, cancellable);
  g_assert_true (lb_test_wait (lb_test_has_dialog, parent, 5000));
  g_cancellable_cancel (cancellable);
  g_assert_true (lb_test_wait (no_dialog, parent, 5000));

  lb_dialogs_error (parent, "Could not save", NULL, technical, NULL);
  g_assert_true (lb_test_wait (lb_test_has_dialog, parent, 5000));
  gtk_window_destroy (parent);
  drain ();
}

/* A question whose parent goes first goes with it and calls nobody back; cancelling
 * afterwards is harmless. (Under ASan this also checks that nothing leaks.) */
static void
test_ask_parent_destroyed (void)
{
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  GListModel *tops = gtk_window_get_toplevels ();
  guint before = g_list_model_get_n_items (tops);
  GtkWindow *parent = new_parent ();
  Answer a = { 0 };

  lb_dialogs_ask (parent, &conflict, cancellable, on_choice, &a);
  g_assert_true (lb_test_wait (lb_test_has_dialog, parent, 5000));
  g_assert_cmpuint (g_list_model_get_n_items (tops), ==, before + 2);
  gtk_window_destroy (parent);
  drain ();
  /* the question went with its parent */
  g_assert_cmpuint (g_list_model_get_n_items (tops), ==, before);
  g_cancellable_cancel (cancellable);
  drain ();
  g_assert_false (a.answered);
}

typedef struct {
  guint    answers;
  gboolean accepted;
  char    *text;      /* the entry's, when answered */
  guint    freed;
} Form;

static void
on_form_answer (GtkWindow *form,
                gboolean   accepted,
                gpointer   user_data)
{
  Form *f = user_data;

  f->answers++;
  f->accepted = accepted;
  g_free (f->text);
  f->text = g_strdup (gtk_editable_get_text (GTK_EDITABLE (gtk_window_get_child (form))));
}

static void
on_form_freed (gpointer user_data)
{
  ((Form *) user_data)->freed++;
}

static GtkWindow *
new_form (GtkWindow *parent,
          Form      *f)
{
  GtkWindow *form = GTK_WINDOW (gtk_window_new ());
  GtkWidget *entry = gtk_entry_new ();

  gtk_window_set_title (form, "Save Preset");
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  gtk_window_set_child (form, entry);
  lb_dialogs_form (form, parent, "_Save", on_form_answer, f, on_form_freed);
  return form;
}

static gboolean
form_freed (gpointer data)
{
  return ((Form *) data)->freed > 0;
}

/* A form: modal over its parent, Cancel and the accept button (the default), Enter in an
 * entry accepts, closing cancels; answered once, its data freed once. */
static void
test_form (void)
{
  GtkWindow *parent = new_parent ();
  Form f = { 0 }, g = { 0 }, h = { 0 };
  GtkWindow *form = new_form (parent, &f);
  GtkWidget *entry = gtk_window_get_child (form);
  GtkWidget *save;

  g_assert_true (lb_test_dialog_over (parent) == form);
  g_assert_true (gtk_window_get_modal (form));
  g_assert_true (gtk_window_get_destroy_with_parent (form));
  save = lb_test_find_button (GTK_WIDGET (form), "_Save");
  g_assert_nonnull (save);
  g_assert_nonnull (lb_test_find_button (GTK_WIDGET (form), "_Cancel"));
  g_assert_true (gtk_window_get_default_widget (form) == save);
  gtk_editable_set_text (GTK_EDITABLE (entry), "soft tissue");
  /* Enter in the entry, as a user would (the button answers after its press animation) */
  g_signal_emit_by_name (gtk_editable_get_delegate (GTK_EDITABLE (entry)), "activate");
  g_assert_true (lb_test_wait (form_freed, &f, 5000));
  g_assert_cmpuint (f.answers, ==, 1);
  g_assert_true (f.accepted);
  g_assert_cmpstr (f.text, ==, "soft tissue");
  g_assert_true (lb_test_wait (no_dialog, parent, 5000));

  form = new_form (parent, &g);
  gtk_window_close (form);
  g_assert_true (lb_test_wait (form_freed, &g, 5000));
  g_assert_cmpuint (g.answers, ==, 1);
  g_assert_false (g.accepted);

  /* the parent goes first: no answer, the data freed */
  new_form (parent, &h);
  gtk_window_destroy (parent);
  g_assert_true (lb_test_wait (form_freed, &h, 5000));
  g_assert_cmpuint (h.answers, ==, 0);
  drain ();
  g_assert_cmpuint (f.freed + g.freed + h.freed, ==, 3);
  g_free (f.text);
  g_free (g.text);
}

typedef struct {
  gboolean answered;
  GFile   *file;
} Chosen;

static void
on_file (GFile    *file,
         gpointer  user_data)
{
  Chosen *c = user_data;

  c->answered = TRUE;
  g_set_object (&c->file, file);
}

typedef struct {
  GtkWindow  *parent;
  const char *title;
  const char *accept;
  char       *folder;   /* the initial folder's name */
} Shown;

/* A condition for lb_test_wait(): the file dialog over the parent has the title and the
 * accept button asked for, and shows the initial folder (GTK's chooser sets it once it has
 * read it: accepting earlier does nothing, as it would for a user). */
static gboolean
shows_file_dialog (gpointer data)
{
  Shown *want = data;
  GtkWindow *dialog = lb_test_dialog_over (want->parent);

  return dialog != NULL && g_strcmp0 (gtk_window_get_title (dialog), want->title) == 0
         && lb_test_find_button (GTK_WIDGET (dialog), want->accept) != NULL
         && lb_test_find_text (GTK_WIDGET (dialog), want->folder) != NULL;
}

/* Save: the dialog has the title and accept label given, modal over the parent, and accepting
 * it answers the initial name in the initial folder; closing it answers NULL. (No portal runs
 * in the test session, so GTK shows its own chooser, whichever API asked for it.) */
static void
test_save_file (void)
{
  g_autofree char *dir = g_dir_make_tmp ("lightbox-dialogs-XXXXXX", NULL);
  g_autoptr (GFile) folder = g_file_new_for_path (dir);
  g_autoptr (GFile) want = g_file_get_child (folder, "table.csv");
  LbFileDialogOptions options = { .title = "Export Table", .accept_label = "_Export",
                                  .initial_folder = folder, .initial_name = "table.csv" };
  GtkWindow *parent = new_parent ();
  Shown shown = { parent, "Export Table", "_Export", g_path_get_basename (dir) };
  Chosen c = { 0 }, d = { 0 };

  lb_dialogs_save_file (parent, &options, on_file, &c);
  g_assert_true (lb_test_wait (shows_file_dialog, &shown, 10000));
  g_assert_true (gtk_window_get_modal (lb_test_dialog_over (parent)));
  lb_test_answer_dialog (parent, "_Export");
  g_assert_true (lb_test_wait (lb_test_flag_is_set, &c.answered, 10000));
  g_assert_nonnull (c.file);
  g_assert_true (g_file_equal (c.file, want));
  g_assert_true (lb_test_wait (no_dialog, parent, 5000));

  lb_dialogs_save_file (parent, &options, on_file, &d);
  g_assert_true (lb_test_wait (shows_file_dialog, &shown, 10000));
  gtk_window_close (lb_test_dialog_over (parent));
  g_assert_true (lb_test_wait (lb_test_flag_is_set, &d.answered, 10000));
  g_assert_null (d.file);
  g_assert_true (lb_test_wait (no_dialog, parent, 5000));

  g_clear_object (&c.file);
  g_free (shown.folder);
  gtk_window_destroy (parent);
  drain ();
  lb_test_remove_tree (dir);
}

/* Select folder: accepting with nothing selected answers the folder shown, the initial one. */
static void
test_select_folder (void)
{
  g_autofree char *dir = g_dir_make_tmp ("lightbox-dialogs-XXXXXX", NULL);
  g_autoptr (GFile) folder = g_file_new_for_path (dir);
  LbFileDialogOptions options = { .title = "Store Folder", .accept_label = "_Choose",
                                  .initial_folder = folder };
  GtkWindow *parent = new_parent ();
  Shown shown = { parent, "Store Folder", "_Choose", g_path_get_basename (dir) };
  Chosen c = { 0 };

  lb_dialogs_select_folder (parent, &options, on_file, &c);
  g_assert_true (lb_test_wait (shows_file_dialog, &shown, 10000));
  lb_test_answer_dialog (parent, "_Choose");
  g_assert_true (lb_test_wait (lb_test_flag_is_set, &c.answered, 10000));
  g_assert_nonnull (c.file);
  g_assert_true (g_file_equal (c.file, folder));
  g_assert_true (lb_test_wait (no_dialog, parent, 5000));

  g_clear_object (&c.file);
  g_free (shown.folder);
  gtk_window_destroy (parent);
  drain ();
  lb_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  if (gdk_display_get_default () == NULL)
    {
      g_print ("1..0 # SKIP no display\n");
      return 0;
    }
  g_test_message ("GTK %u.%u.%u, dialogs from %s", gtk_get_major_version (),
                  gtk_get_minor_version (), gtk_get_micro_version (),
                  GTK_CHECK_VERSION (4, 10, 0) ? "GtkAlertDialog/GtkFileDialog"
                                               : "GtkMessageDialog/GtkFileChooserNative");
  g_test_add_func ("/ui/dialogs/ask-choice", test_ask_choice);
  g_test_add_func ("/ui/dialogs/ask-close", test_ask_close);
  g_test_add_func ("/ui/dialogs/ask-cancellable", test_ask_cancellable);
  g_test_add_func ("/ui/dialogs/ask-alert", test_ask_alert);
  g_test_add_func ("/ui/dialogs/ask-parent-destroyed", test_ask_parent_destroyed);
  g_test_add_func ("/ui/dialogs/error", test_error);
  g_test_add_func ("/ui/dialogs/form", test_form);
  g_test_add_func ("/ui/dialogs/save-file", test_save_file);
  g_test_add_func ("/ui/dialogs/select-folder", test_select_folder);
  return g_test_run ();
}
