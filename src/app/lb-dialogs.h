/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* The workstation's dialogs, on every supported GTK: GtkFileDialog and GtkAlertDialog (and,
 * through them, the desktop's portals) where GTK has them (4.10 and later), GtkFileChooserNative
 * and GtkMessageDialog on GTK 4.8. Everything else in the application goes through here, so no
 * API that GTK deprecates is used outside lb-dialogs.c.
 *
 * Every dialog is modal to @parent. The callbacks run on the main thread, once per dialog.
 * Questions and forms are destroyed with their parent, and then do not call back; a file
 * dialog outlives it (GTK's choice), so its @user_data must stay valid until it answers. */

/* @file: (nullable) (transfer none): what the user chose, NULL when dismissed. */
typedef void (*LbDialogsFileFunc)   (GFile      *file,
                                     gpointer    user_data);
/* @files: (nullable) (transfer none): GFile items, NULL when dismissed. */
typedef void (*LbDialogsFilesFunc)  (GListModel *files,
                                     gpointer    user_data);
/* @choice: the index of the button pressed, or the cancel choice. */
typedef void (*LbDialogsChoiceFunc) (int         choice,
                                     gpointer    user_data);
/* @form: the form's window, still alive; @accepted: the accept button (or Enter) rather than
 * Cancel, Escape or closing. */
typedef void (*LbDialogsFormFunc)   (GtkWindow  *form,
                                     gboolean    accepted,
                                     gpointer    user_data);

typedef struct {
  const char    *title;
  const char    *accept_label;    /* with a mnemonic; NULL: GTK's for the kind of dialog */
  GtkFileFilter *filter;          /* offered and selected; NULL: every file */
  GFile         *initial_folder;  /* NULL: GTK's choice */
  const char    *initial_name;    /* save: the name proposed */
} LbFileDialogOptions;

void lb_dialogs_open_file     (GtkWindow                 *parent,
                               const LbFileDialogOptions *options,
                               LbDialogsFileFunc          func,
                               gpointer                   user_data);
void lb_dialogs_open_files    (GtkWindow                 *parent,
                               const LbFileDialogOptions *options,
                               LbDialogsFilesFunc         func,
                               gpointer                   user_data);
void lb_dialogs_save_file     (GtkWindow                 *parent,
                               const LbFileDialogOptions *options,
                               LbDialogsFileFunc          func,
                               gpointer                   user_data);
void lb_dialogs_select_folder (GtkWindow                 *parent,
                               const LbFileDialogOptions *options,
                               LbDialogsFileFunc          func,
                               gpointer                   user_data);

/* A question and its answers. The three indices are into @choices; -1 means none (only the
 * default and the destructive choice may be none); without @choices they are not read. */
typedef struct {
  const char        *message;
  const char        *detail;             /* NULL: none */
  const char *const *choices;            /* button labels with mnemonics, in order, NULL-
                                          * terminated; NULL: one Close button, choice 0 */
  int                cancel_choice;      /* Escape, closing, and @cancellable firing answer it */
  int                default_choice;     /* Enter answers it */
  int                destructive_choice; /* styled as destructive (“destructive-action”) */
} LbDialogsAsk;

/* Asks @ask->message over @parent. @func may be NULL (an alert that needs no answer). */
void lb_dialogs_ask           (GtkWindow                 *parent,
                               const LbDialogsAsk        *ask,
                               GCancellable              *cancellable,
                               LbDialogsChoiceFunc        func,
                               gpointer                   user_data);

/* An error over @parent in plain words: @message says what failed ("Could not save"),
 * @explanation why, as a reader would say it ("The file already exists."; NULL: none), and
 * @details the technical text (method, URL, status, ETag …) folded under a "Details"
 * expander, selectable for a bug report (NULL: no expander). Close, Escape or @cancellable
 * firing take it down. The same window on every GTK. */
void lb_dialogs_error         (GtkWindow                 *parent,
                               const char                *message,
                               const char                *explanation,
                               const char                *details,
                               GCancellable              *cancellable);

/* Makes @form (a GtkWindow with its title and content set, not yet shown) a modal form over
 * @parent, as GtkDialog with a header bar was: Cancel at the start of the header bar,
 * @accept_label at its end, suggested and the default widget (so an entry that activates the
 * default accepts with Enter); Escape and closing count as Cancel. Presents it. @func is called
 * once with the answer, then the form is destroyed. @destroy frees @user_data when the form
 * goes, answered or not (destroyed with @parent). */
void lb_dialogs_form          (GtkWindow                 *form,
                               GtkWindow                 *parent,
                               const char                *accept_label,
                               LbDialogsFormFunc          func,
                               gpointer                   user_data,
                               GDestroyNotify             destroy);

G_END_DECLS
