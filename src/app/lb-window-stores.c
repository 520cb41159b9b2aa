/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-window"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-dialogs.h"
#include "lb-dicomdir.h"
#include "lb-dicomweb-store.h"
#include "lb-store.h"
#include "lb-window-private.h"

/* The window's stores: opening one (with the credentials dialog), the recent and sample
 * stores, the store tree and its search. */

#define MAX_RECENT_STORES 10

static void
open_series_now (LbWindow *self,
                 gpointer  entry)
{
  _lb_window_frames_open_store_series (self, entry);
}

static void
on_entry_activated (LbStoreBrowser *browser,
                    LbStoreEntry   *entry,
                    LbWindow       *self)
{
  LbStoreEntryKind kind = lb_store_entry_get_kind (entry);

  /* the row that ends a PACS's capped study list: the search finds the others */
  if (lb_store_entry_get_attribute (entry, LB_DICOMWEB_MORE_STUDIES_ATTRIBUTE) != NULL)
    {
      gtk_widget_activate_action (GTK_WIDGET (self), "win.search-studies", NULL);
      return;
    }
  if (kind == LB_STORE_ENTRY_IMAGE || kind == LB_STORE_ENTRY_DICOM_INSTANCE
      || kind == LB_STORE_ENTRY_DICOM_FILE || kind == LB_STORE_ENTRY_FILE
      || kind == LB_STORE_ENTRY_UNKNOWN)
    lb_window_open_store_image (self, lb_store_entry_get_uri (entry));
  else if (kind == LB_STORE_ENTRY_DICOM_SERIES)
    /* a series of a local folder or a DICOMweb store opens as a stack */
    _lb_window_after_unsaved (self, open_series_now, g_object_ref (entry), g_object_unref);
}

void
_lb_window_open_entry (LbWindow     *self,
                       LbStoreEntry *entry)
{
  on_entry_activated (self->browser, entry, self);
}

static void
on_listing_failed (LbStoreBrowser *browser,
                   const GError   *error,
                   LbWindow       *self)
{
  /* the error row says what failed; a certificate problem deserves the dialog that names it */
  if (error->domain == G_TLS_ERROR || strstr (error->message, "TLS") != NULL)
    _lb_window_show_error (self, _("Could not open the store"), error);
}

static void
add_recent_store (LbWindow   *self,
                  const char *uri)
{
  if (uri == NULL)
    return;
  g_auto (GStrv) old = g_settings_get_strv (self->settings, "recent-stores");
  g_autoptr (GStrvBuilder) b = g_strv_builder_new ();
  g_auto (GStrv) list = NULL;
  guint n = 1;

  g_strv_builder_add (b, uri);
  for (guint i = 0; old[i] != NULL && n < MAX_RECENT_STORES; i++)
    if (g_strcmp0 (old[i], uri) != 0)
      {
        g_strv_builder_add (b, old[i]);
        n++;
      }
  list = g_strv_builder_end (b);
  g_settings_set_strv (self->settings, "recent-stores", (const char *const *) list);
}

typedef struct {
  LbWindow             *self;  /* weak: the dialog is destroyed with the window */
  LbCredentialsRequest *request;
  GtkWidget            *user;
  GtkWidget            *password;
} CredCtx;

static void
cred_ctx_free (gpointer data)
{
  CredCtx *ctx = data;

  /* dropping the request unanswered counts as cancel */
  lb_credentials_request_unref (ctx->request);
  g_free (ctx);
}

static void
on_credentials_answer (GtkWindow *form,
                       gboolean   accepted,
                       gpointer   user_data)
{
  CredCtx *ctx = user_data;

  if (accepted)
    lb_credentials_request_set_password (ctx->request,
                                         gtk_editable_get_text (GTK_EDITABLE (ctx->user)),
                                         gtk_editable_get_text (GTK_EDITABLE (ctx->password)));
  else
    lb_credentials_request_cancel (ctx->request);
}

/* Asked by the store on 401: a small dialog with user name and password. */
static void
ask_credentials (LbCredentialsRequest *request,
                 gpointer              user_data)
{
  LbWindow *self = user_data;
  GtkWidget *dialog, *grid, *label;
  CredCtx *ctx = g_new0 (CredCtx, 1);
  g_autofree char *text = NULL;
  const char *realm = lb_credentials_request_get_realm (request);

  ctx->self = self;
  ctx->request = lb_credentials_request_ref (request);
  dialog = gtk_window_new ();
  gtk_window_set_title (GTK_WINDOW (dialog), _("Authentication Required"));
  grid = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (grid), 6);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 12);
  gtk_widget_set_margin_start (grid, 18);
  gtk_widget_set_margin_end (grid, 18);
  gtk_widget_set_margin_top (grid, 18);
  gtk_widget_set_margin_bottom (grid, 18);
  if (lb_credentials_request_is_retrying (request))
    text = g_strdup_printf (_("The user name or password for %s was refused. Try again."),
                            lb_credentials_request_get_uri (request));
  else if (realm != NULL && *realm != '\0')
    text = g_strdup_printf (_("%s asks for a user name and password (realm “%s”)."),
                            lb_credentials_request_get_uri (request), realm);
  else
    text = g_strdup_printf (_("%s asks for a user name and password."),
                            lb_credentials_request_get_uri (request));
  label = gtk_label_new (text);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 50);
  gtk_grid_attach (GTK_GRID (grid), label, 0, 0, 2, 1);
  gtk_grid_attach (GTK_GRID (grid), gtk_label_new_with_mnemonic (_("_User name")), 0, 1, 1, 1);
  ctx->user = gtk_entry_new ();
  gtk_accessible_update_property (GTK_ACCESSIBLE (ctx->user), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("User name"), -1);
  gtk_grid_attach (GTK_GRID (grid), ctx->user, 1, 1, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), gtk_label_new_with_mnemonic (_("_Password")), 0, 2, 1, 1);
  ctx->password = gtk_password_entry_new ();
  gtk_password_entry_set_show_peek_icon (GTK_PASSWORD_ENTRY (ctx->password), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (ctx->password), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Password"), -1);
  g_object_set (ctx->password, "activates-default", TRUE, NULL);
  gtk_grid_attach (GTK_GRID (grid), ctx->password, 1, 2, 1, 1);
  gtk_window_set_child (GTK_WINDOW (dialog), grid);
  lb_dialogs_form (GTK_WINDOW (dialog), GTK_WINDOW (self), _("_Log In"), on_credentials_answer,
                   ctx, cred_ctx_free);
}

void
lb_window_open_store (LbWindow   *self,
                      const char *uri)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (LbStoreOptions) options = lb_store_options_new ();
  g_autoptr (LbStore) store = NULL;

  g_return_if_fail (LB_IS_WINDOW (self));
  lb_store_options_set_credentials_func (options, ask_credentials, self, NULL);
  store = lb_store_new_for_uri (uri, options, &error);
  if (store == NULL)
    {
      _lb_window_show_error (self, _("Could not open the store"), error);
      return;
    }
  g_set_object (&self->store, store);
  lb_store_browser_set_store (self->browser, store);
  gtk_stack_set_visible_child_name (GTK_STACK (self->tree_stack), "tree");
  /* a recent store is one that answered: added once its root is listed (on_root_listed) */
  _lb_window_filters_load_store (self);
  _lb_window_update_title (self);
  _lb_window_update_actions (self);
}

static void
on_root_listed (LbStoreBrowser *browser,
                LbWindow       *self)
{
  add_recent_store (self, self->store ? lb_store_get_uri (self->store) : NULL);
}

/* An http(s) address of an image, not of a folder: its last segment has an image file's
 * extension. Listings name folders with a trailing slash, so "…/series/" is a folder. */
static gboolean
is_image_address (const char *uri)
{
  static const char *const extensions[] = { ".png", ".jpg", ".jpeg", ".gif", ".tif", ".tiff",
                                            ".bmp", ".dcm", ".dicom", NULL };
  g_autoptr (GUri) parsed = g_uri_parse (uri, G_URI_FLAGS_NONE, NULL);
  const char *path = parsed ? g_uri_get_path (parsed) : NULL;
  const char *slash;
  g_autofree char *last = NULL;

  if (path == NULL || g_str_has_suffix (path, "/")
      || (g_ascii_strcasecmp (g_uri_get_scheme (parsed), "http") != 0
          && g_ascii_strcasecmp (g_uri_get_scheme (parsed), "https") != 0))
    return FALSE;
  slash = strrchr (path, '/');
  last = g_ascii_strdown (slash ? slash + 1 : path, -1);
  for (guint i = 0; extensions[i] != NULL; i++)
    if (g_str_has_suffix (last, extensions[i]))
      return TRUE;
  return FALSE;
}

void
lb_window_open_uri (LbWindow   *self,
                    const char *uri_or_path)
{
  g_autoptr (GFile) file = NULL;
  g_autofree char *scheme = g_uri_parse_scheme (uri_or_path);
  g_autofree char *base = NULL;

  g_return_if_fail (LB_IS_WINDOW (self));
  if (scheme != NULL && g_ascii_strcasecmp (scheme, "file") != 0)
    {
      if (is_image_address (uri_or_path))
        {
          /* an image: its folder becomes the store (siblings in the tree, write-back next to
           * it), and the image opens */
          g_autofree char *parent = lb_store_uri_parent (uri_or_path);

          lb_window_open_store (self, parent);
          if (self->store != NULL && g_str_has_prefix (uri_or_path, lb_store_get_uri (self->store)))
            lb_window_open_store_image (self, uri_or_path);
          return;
        }
      lb_window_open_store (self, uri_or_path);
      return;
    }
  file = scheme ? g_file_new_for_uri (uri_or_path) : g_file_new_for_commandline_arg (uri_or_path);
  base = g_file_get_basename (file);
  /* a folder, or a DICOMDIR: the local store lists its DICOM objects by patient */
  if (g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, NULL) == G_FILE_TYPE_DIRECTORY
      || (base != NULL && lb_dicomdir_is_name (base)))
    {
      g_autofree char *uri = g_file_get_uri (file);
      lb_window_open_store (self, uri);
      /* a folder of one series opens as its stack besides its tree */
      if (!lb_dicomdir_is_name (base))
        _lb_window_frames_open_folder (self, file);
    }
  else
    lb_window_open_image_file (self, file);
}

static void
on_url_activate (LbWindow *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->url_entry));

  if (text == NULL || *text == '\0')
    return;
  gtk_popover_popdown (GTK_POPOVER (self->store_popover));
  lb_window_open_uri (self, text);
}

static GtkWidget *
store_row (const char *uri,
           const char *label)
{
  GtkWidget *button = gtk_button_new_with_label (label ? label : uri);

  gtk_widget_add_css_class (button, "flat");
  gtk_label_set_xalign (GTK_LABEL (gtk_button_get_child (GTK_BUTTON (button))), 0);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "win.open-store-uri");
  gtk_actionable_set_action_target (GTK_ACTIONABLE (button), "s", uri);
  gtk_widget_set_tooltip_text (button, uri);
  return button;
}

/* gtk_list_box_remove_all() is 4.12 */
static void
list_box_clear (GtkWidget *box)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (box)) != NULL)
    gtk_list_box_remove (GTK_LIST_BOX (box), child);
}

static void
rebuild_store_lists (LbWindow *self)
{
  g_auto (GStrv) recent = g_settings_get_strv (self->settings, "recent-stores");
  g_autofree char *sample = g_settings_get_string (self->settings, "sample-store");
  const char *env = g_getenv ("LIGHTBOX_SAMPLE_STORE");

  if (env != NULL && *env != '\0')
    {
      g_free (sample);
      sample = g_strdup (env);
    }
  if (sample == NULL || *sample == '\0')
    {
      /* where build-aux/quickstart.sh puts its writable copy of data/samples */
      g_autofree char *dir = g_build_filename (g_get_user_data_dir (), "lightbox", "sample-store",
                                               NULL);
      if (g_file_test (dir, G_FILE_TEST_IS_DIR))
        {
          g_free (sample);
          sample = g_filename_to_uri (dir, NULL, NULL);
        }
    }
  list_box_clear (self->recent_list);
  list_box_clear (self->welcome_list);
  if (sample != NULL && *sample != '\0')
    {
      g_autofree char *label = g_strdup_printf (_("Sample images (%s)"), sample);
      gtk_list_box_append (GTK_LIST_BOX (self->welcome_list), store_row (sample, label));
    }
  for (guint i = 0; recent[i] != NULL; i++)
    {
      gtk_list_box_append (GTK_LIST_BOX (self->recent_list), store_row (recent[i], NULL));
      gtk_list_box_append (GTK_LIST_BOX (self->welcome_list), store_row (recent[i], NULL));
    }
  gtk_widget_set_visible (self->recent_list, recent[0] != NULL);
}

/* Says under the search field when no listed entry matches @text. */
static void
show_search_result (LbWindow   *self,
                    const char *text,
                    gboolean    found)
{
  gboolean none = !found && text != NULL && *text != '\0';

  if (none)
    {
      g_autofree char *msg = g_strdup_printf (_("No listed entry matches “%s”"), text);

      gtk_label_set_text (GTK_LABEL (self->tree_search_status), msg);
      gtk_widget_add_css_class (self->tree_search, "error");
    }
  else
    gtk_widget_remove_css_class (self->tree_search, "error");
  gtk_widget_set_visible (self->tree_search_status, none);
}

static void
on_search_changed (GtkSearchEntry *entry,
                   LbWindow       *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (entry));

  /* the tree shows the matches (and the folders they are in), the first one selected */
  lb_store_browser_set_filter (self->browser, text);
  show_search_result (self, text, lb_store_browser_search (self->browser, text, FALSE));
}

static void
on_search_next (GtkSearchEntry *entry,
                LbWindow       *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (entry));

  show_search_result (self, text, lb_store_browser_search (self->browser, text, TRUE));
}

static void
on_search_activate (GtkSearchEntry *entry,
                    LbWindow       *self)
{
  guint pos = lb_store_browser_get_selected (self->browser);

  if (pos != G_MAXUINT)
    lb_store_browser_activate_row (self->browser, pos);
  gtk_widget_grab_focus (lb_store_browser_get_view (self->browser));
}

static void
on_search_stop (GtkSearchEntry *entry,
                LbWindow       *self)
{
  gtk_editable_set_text (GTK_EDITABLE (entry), "");
  gtk_widget_grab_focus (lb_store_browser_get_view (self->browser));
}

static void
open_folder_now (LbWindow *self,
                 gpointer  entry)
{
  _lb_window_frames_open_store_folder (self, entry);
}

/* win.open-folder-stack: the selected folder's images as one stack; a series row opens as
 * its series (as activating it does); any other row is not a folder: the status says so */
static void
open_folder_stack_activated (GSimpleAction *action,
                             GVariant      *param,
                             gpointer       user_data)
{
  LbWindow *self = user_data;
  guint pos = lb_store_browser_get_selected (self->browser);
  LbStoreEntry *entry = pos == G_MAXUINT ? NULL : lb_store_browser_get_entry (self->browser, pos);

  if (self->store == NULL || entry == NULL)
    return;
  if (lb_store_entry_get_kind (entry) == LB_STORE_ENTRY_DICOM_SERIES)
    _lb_window_after_unsaved (self, open_series_now, g_object_ref (entry), g_object_unref);
  else if (lb_store_entry_get_kind (entry) == LB_STORE_ENTRY_DIRECTORY)
    _lb_window_after_unsaved (self, open_folder_now, g_object_ref (entry), g_object_unref);
  else
    _lb_window_set_status (self, _("Select a folder of images to open it as a stack"));
}

void
_lb_window_stores_init (LbWindow *self)
{
  static const GActionEntry entries[] = {
    { .name = "open-folder-stack", .activate = open_folder_stack_activated },
  };

  g_action_map_add_action_entries (G_ACTION_MAP (self), entries, G_N_ELEMENTS (entries), self);
  self->browser = LB_STORE_BROWSER (lb_store_browser_new ());
  gtk_box_append (GTK_BOX (self->tree_box), GTK_WIDGET (self->browser));
  g_signal_connect (self->browser, "entry-activated", G_CALLBACK (on_entry_activated), self);
  g_signal_connect (self->browser, "listing-failed", G_CALLBACK (on_listing_failed), self);
  g_signal_connect (self->browser, "root-listed", G_CALLBACK (on_root_listed), self);
  gtk_search_entry_set_key_capture_widget (GTK_SEARCH_ENTRY (self->tree_search),
                                           lb_store_browser_get_view (self->browser));
  g_signal_connect (self->tree_search, "search-changed", G_CALLBACK (on_search_changed), self);
  g_signal_connect (self->tree_search, "next-match", G_CALLBACK (on_search_next), self);
  g_signal_connect (self->tree_search, "activate", G_CALLBACK (on_search_activate), self);
  g_signal_connect (self->tree_search, "stop-search", G_CALLBACK (on_search_stop), self);
  g_signal_connect_swapped (self->url_entry, "activate", G_CALLBACK (on_url_activate), self);
  g_signal_connect_swapped (self->url_open_button, "clicked", G_CALLBACK (on_url_activate), self);
  g_signal_connect_swapped (self->settings, "changed::recent-stores",
                            G_CALLBACK (rebuild_store_lists), self);
  g_signal_connect_swapped (self->settings, "changed::sample-store",
                            G_CALLBACK (rebuild_store_lists), self);
  rebuild_store_lists (self);
  gtk_stack_set_visible_child_name (GTK_STACK (self->tree_stack), "empty");
}
