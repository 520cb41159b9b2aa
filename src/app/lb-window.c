/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-window"

#include "config.h"

#include <glib/gi18n.h>
#include <libsoup/soup.h>

#include "lb-dicomdir.h"
#include "lb-error.h"
#include "lb-loader.h"
#include "lb-store.h"
#include "lb-window-private.h"

G_DEFINE_FINAL_TYPE (LbWindow, lb_window, GTK_TYPE_APPLICATION_WINDOW)

#define MAX_RECENT_STORES 10

/* CT presets in Hounsfield units: centre (level) and width. */
static const struct {
  const char *id;
  const char *label;
  double      center;
  double      width;
} wl_presets[] = {
  { "brain", N_("CT Brain (40/80)"), 40, 80 },
  { "lung", N_("CT Lung (−600/1500)"), -600, 1500 },
  { "bone", N_("CT Bone (400/1800)"), 400, 1800 },
  { "abdomen", N_("CT Abdomen (40/400)"), 40, 400 },
  { "mediastinum", N_("CT Mediastinum (50/350)"), 50, 350 },
};

/* ---- status ---------------------------------------------------------------------------- */

static void
update_zoom_label (LbWindow *self)
{
  g_autofree char *text = NULL;

  if (lb_canvas_has_pixels (self->canvas))
    /* TRANSLATORS: zoom in percent in the status bar */
    text = g_strdup_printf (_("Zoom %.0f%%"), lb_canvas_get_zoom (self->canvas) * 100);
  gtk_label_set_text (GTK_LABEL (self->zoom_label), text ? text : "");
}

static void
update_wl_label (LbWindow *self)
{
  g_autofree char *text = NULL;
  double c, w;

  if (lb_canvas_has_pixels (self->canvas))
    {
      lb_canvas_get_window (self->canvas, &c, &w);
      if (lb_canvas_has_rescale (self->canvas))
        /* TRANSLATORS: window width and level (centre) in Hounsfield units */
        text = g_strdup_printf (_("W %.0f  L %.0f HU"), w, c);
      else
        text = g_strdup_printf (_("W %.0f  L %.0f"), w, c);
    }
  gtk_label_set_text (GTK_LABEL (self->wl_label), text ? text : "");
}

static void
update_probe_label (LbWindow *self)
{
  g_autofree char *text = NULL;

  g_object_get (self->canvas, "probe-text", &text, NULL);
  gtk_label_set_text (GTK_LABEL (self->probe_label), text ? text : "");
}

static void
update_size_label (LbWindow *self,
                   guint     width,
                   guint     height,
                   LbSampleFormat format)
{
  g_autofree char *text = g_strdup_printf ("%u × %u  %s", width, height,
                                           lb_sample_format_to_string (format));
  gtk_label_set_text (GTK_LABEL (self->size_label), text);
}

void
_lb_window_set_status (LbWindow   *self,
                       const char *text)
{
  g_free (self->last_status);
  self->last_status = g_strdup (text);
  gtk_label_set_text (GTK_LABEL (self->filter_time_label), text ? text : "");
  gtk_widget_set_tooltip_text (self->filter_time_label, text);
}

static void
update_actions (LbWindow *self)
{
  gboolean have_image = self->history != NULL;
  LbImage *current = have_image ? lb_history_get_current (self->history) : NULL;
  const char *src = current ? lb_image_meta_get_source_uri (lb_image_get_meta (current)) : NULL;
  GActionMap *map = G_ACTION_MAP (self);

  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (map, "undo")),
                               have_image && !self->busy && lb_history_can_undo (self->history));
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (map, "redo")),
                               have_image && !self->busy && lb_history_can_redo (self->history));
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (map, "revert")),
                               have_image && !self->busy
                               && current != lb_history_get_original (self->history));
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (map, "upload")),
                               have_image && !self->busy && self->store != NULL && src != NULL
                               && g_str_has_prefix (src, lb_store_get_uri (self->store)));
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (map, "export")),
                               have_image && !self->busy);
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (map, "cancel")),
                               self->busy || self->load_cancellable != NULL);
}

void
_lb_window_begin_op (LbWindow   *self,
                     const char *what)
{
  g_clear_object (&self->op_cancellable);
  self->op_cancellable = g_cancellable_new ();
  self->busy = TRUE;
  gtk_progress_bar_set_text (GTK_PROGRESS_BAR (self->progress_bar), what);
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress_bar), 0);
  gtk_widget_set_visible (self->progress_bar, TRUE);
  gtk_widget_set_visible (self->cancel_button, TRUE);
  update_actions (self);
}

void
_lb_window_end_op (LbWindow *self)
{
  self->busy = FALSE;
  g_clear_object (&self->op_cancellable);
  gtk_widget_set_visible (self->progress_bar, self->load_cancellable != NULL);
  gtk_widget_set_visible (self->cancel_button, self->load_cancellable != NULL);
  update_actions (self);
}

void
_lb_window_set_progress (LbWindow *self,
                         double    fraction)
{
  if (fraction < 0)
    gtk_progress_bar_pulse (GTK_PROGRESS_BAR (self->progress_bar));
  else
    gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress_bar), CLAMP (fraction, 0, 1));
}

/* The TLS dialog names the certificate problem: the store client reports only that TLS
 * failed, so a HEAD request to the same server with an accept-certificate handler collects
 * the GTlsCertificateFlags, which are then spelled out. */
static char *
describe_certificate_flags (GTlsCertificateFlags flags)
{
  GString *s = g_string_new (_("The server’s certificate"));
  gboolean first = TRUE;
  static const struct {
    GTlsCertificateFlags flag;
    const char *text;
  } reasons[] = {
    { G_TLS_CERTIFICATE_UNKNOWN_CA,
      N_("is not signed by an authority this computer trusts (self-signed or unknown issuer)") },
    { G_TLS_CERTIFICATE_BAD_IDENTITY, N_("was issued for a different host name") },
    { G_TLS_CERTIFICATE_NOT_ACTIVATED, N_("is not valid yet") },
    { G_TLS_CERTIFICATE_EXPIRED, N_("has expired") },
    { G_TLS_CERTIFICATE_REVOKED, N_("has been revoked") },
    { G_TLS_CERTIFICATE_INSECURE, N_("uses an insecure algorithm") },
    { G_TLS_CERTIFICATE_GENERIC_ERROR, N_("could not be checked") },
  };

  for (guint i = 0; i < G_N_ELEMENTS (reasons); i++)
    if (flags & reasons[i].flag)
      {
        g_string_append (s, first ? " " : _(", and "));
        g_string_append (s, _(reasons[i].text));
        first = FALSE;
      }
  if (first)
    g_string_append (s, _(" was refused during the secure handshake"));
  g_string_append (s, ". ");
  g_string_append (s, _("Lightbox does not send anything to a server it cannot verify."));
  return g_string_free (s, FALSE);
}

typedef struct {
  LbWindow            *self;
  GTlsCertificateFlags flags;
  gboolean             seen;
  char                *title;
  char                *message;
} TlsProbe;

static gboolean
on_probe_accept_certificate (SoupMessage          *msg,
                             GTlsCertificate      *cert,
                             GTlsCertificateFlags  errors,
                             TlsProbe             *probe)
{
  probe->flags = errors;
  probe->seen = TRUE;
  return FALSE; /* never accept: this request only asks what is wrong */
}

static void
on_error_response (GtkDialog *dialog,
                   int        response,
                   LbWindow  *self)
{
  if (self->error_dialog == GTK_WIDGET (dialog))
    self->error_dialog = NULL;
  gtk_window_destroy (GTK_WINDOW (dialog));
}

static void
present_error (LbWindow   *self,
               gboolean    tls,
               const char *title,
               const char *detail)
{
  GtkWidget *dialog;

  if (self->error_dialog != NULL)
    gtk_window_destroy (GTK_WINDOW (self->error_dialog));
  dialog = gtk_message_dialog_new (GTK_WINDOW (self), GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                   tls ? GTK_MESSAGE_WARNING : GTK_MESSAGE_ERROR,
                                   GTK_BUTTONS_CLOSE, "%s", title);
  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog), "%s", detail);
  g_signal_connect (dialog, "response", G_CALLBACK (on_error_response), self);
  self->error_dialog = dialog;
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
on_probe_done (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  TlsProbe *probe = user_data;
  /* only the TLS outcome (probe->flags) matters: the body, if any, is dropped */
  GInputStream *stream = soup_session_send_finish (SOUP_SESSION (source), result, NULL);
  g_autofree char *why = describe_certificate_flags (probe->seen ? probe->flags : 0);
  g_autofree char *detail = g_strdup_printf ("%s\n\n%s", why, probe->message);

  g_clear_object (&stream);
  present_error (probe->self, TRUE, _("Certificate problem"), detail);
  g_object_unref (probe->self);
  g_free (probe->title);
  g_free (probe->message);
  g_free (probe);
}

void
_lb_window_show_error (LbWindow     *self,
                       const char   *title,
                       const GError *error)
{
  gboolean tls = error->domain == G_TLS_ERROR || strstr (error->message, "TLS") != NULL;
  const char *uri = self->store ? lb_store_get_uri (self->store) : NULL;

  g_message ("%s: %s", title, error->message);
  _lb_window_set_status (self, error->message);
  if (tls && uri != NULL && g_str_has_prefix (uri, "https"))
    {
      g_autoptr (SoupSession) session = soup_session_new_with_options ("timeout", 10, NULL);
      g_autoptr (SoupMessage) msg = soup_message_new ("HEAD", uri);
      TlsProbe *probe = g_new0 (TlsProbe, 1);

      probe->self = g_object_ref (self);
      probe->title = g_strdup (title);
      probe->message = g_strdup (error->message);
      g_signal_connect (msg, "accept-certificate", G_CALLBACK (on_probe_accept_certificate), probe);
      soup_session_send_async (session, msg, G_PRIORITY_DEFAULT, NULL, on_probe_done, probe);
      return;
    }
  present_error (self, FALSE, title, error->message);
}

/* ---- image display --------------------------------------------------------------------- */

void
_lb_window_show_current (LbWindow *self)
{
  LbImage *current;

  if (self->history == NULL)
    return;
  current = lb_history_get_current (self->history);
  lb_canvas_set_image (self->canvas, current, TRUE);
  lb_canvas_set_before_image (self->canvas, lb_history_get_original (self->history));
  update_size_label (self, lb_image_get_width (current), lb_image_get_height (current),
                     lb_image_get_format (current));
  update_actions (self);
}

static void
on_history_changed (LbHistory  *history,
                    GParamSpec *pspec,
                    LbWindow   *self)
{
  _lb_window_show_current (self);
}

static void
set_history (LbWindow  *self,
             LbHistory *history)
{
  if (self->history)
    g_signal_handlers_disconnect_by_func (self->history, on_history_changed, self);
  g_set_object (&self->history, history);
  if (history)
    g_signal_connect (history, "notify::position", G_CALLBACK (on_history_changed), self);
  update_actions (self);
}

typedef struct {
  LbWindow *self;   /* weak via serial check; the window outlives its loads (cancelled) */
  guint     serial;
  char     *uri;
  char     *etag;
  char     *name;
  LbHistory *previous; /* what was shown before the first rows replaced it */
} LoadCtx;

static void
load_ctx_free (LoadCtx *ctx)
{
  g_object_unref (ctx->self);
  g_free (ctx->uri);
  g_free (ctx->etag);
  g_free (ctx->name);
  g_clear_object (&ctx->previous);
  g_free (ctx);
}

/* The load @ctx ends without an image while the canvas may still show its decoder's buffer,
 * which goes away with the load: bring back what was shown before, or clear. */
static void
drop_progressive (LoadCtx *ctx)
{
  LbWindow *self = ctx->self;

  if (self->progressive_serial != ctx->serial)
    return;
  self->progressive_serial = 0;
  if (ctx->previous != NULL)
    {
      set_history (self, ctx->previous);
      _lb_window_show_current (self);
    }
  else
    lb_canvas_clear (self->canvas);
}

static void
on_load_header (LbPngDecoder *decoder,
                gpointer      user_data)
{
  LoadCtx *ctx = user_data;
  LbWindow *self = ctx->self;
  const guint8 *pixels;
  gsize stride;

  if (ctx->serial != self->load_serial)
    return;
  pixels = lb_png_decoder_peek_pixels (decoder, &stride);
  g_set_object (&ctx->previous, self->history);
  self->progressive_serial = ctx->serial;
  set_history (self, NULL);
  lb_canvas_begin_progressive (self->canvas, lb_png_decoder_get_width (decoder),
                               lb_png_decoder_get_height (decoder),
                               lb_png_decoder_get_format (decoder), pixels, stride, NULL);
  update_size_label (self, lb_png_decoder_get_width (decoder), lb_png_decoder_get_height (decoder),
                     lb_png_decoder_get_format (decoder));
}

static void
on_load_rows (guint    y0,
              guint    y1,
              gpointer user_data)
{
  LoadCtx *ctx = user_data;
  LbWindow *self = ctx->self;

  if (ctx->serial != self->load_serial)
    return;
  if (self->first_pixels_us == 0)
    self->first_pixels_us = g_get_monotonic_time ();
  lb_canvas_progress_rows (self->canvas, y0, y1);
}

static void
finish_loading_ui (LbWindow *self)
{
  g_clear_object (&self->load_cancellable);
  gtk_spinner_set_spinning (GTK_SPINNER (self->canvas_spinner), FALSE);
  gtk_widget_set_visible (self->progress_bar, self->busy);
  gtk_widget_set_visible (self->cancel_button, self->busy);
  update_actions (self);
}

static void
on_image_loaded (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  LoadCtx *ctx = user_data;
  LbWindow *self = ctx->self;
  g_autoptr (GError) error = NULL;
  g_autoptr (LbImage) image = lb_loader_load_finish (result, &error);
  g_autoptr (LbImageMeta) meta = NULL;
  g_autoptr (LbImage) tagged = NULL;
  g_autoptr (LbHistory) history = NULL;
  g_autofree char *title = NULL;

  if (ctx->serial != self->load_serial)
    {
      /* superseded before the newer load's first rows: its buffer must not stay on screen */
      drop_progressive (ctx);
      load_ctx_free (ctx);
      return;
    }
  finish_loading_ui (self);
  if (image == NULL)
    {
      drop_progressive (ctx);
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _lb_window_show_error (self, _("Could not open the image"), error);
      else
        _lb_window_set_status (self, _("Loading cancelled"));
      load_ctx_free (ctx);
      return;
    }
  self->load_done_us = g_get_monotonic_time ();
  self->progressive_serial = 0;
  /* remember where it came from, for write-back and provenance */
  meta = lb_image_dup_meta (image);
  lb_image_meta_set_source_uri (meta, ctx->uri);
  if (ctx->etag)
    lb_image_meta_set_source_etag (meta, ctx->etag);
  tagged = lb_image_with_meta (image, meta);
  history = lb_history_new (tagged);
  g_free (self->image_name);
  self->image_name = g_strdup (ctx->name);
  set_history (self, history);
  lb_canvas_set_image (self->canvas, tagged, TRUE);
  lb_canvas_set_before_image (self->canvas, tagged);
  update_size_label (self, lb_image_get_width (tagged), lb_image_get_height (tagged),
                     lb_image_get_format (tagged));
  title = g_strdup_printf ("%s — Lightbox", ctx->name);
  gtk_window_set_title (GTK_WINDOW (self), title);
  gtk_widget_grab_focus (GTK_WIDGET (self->canvas));
  update_actions (self);
  load_ctx_free (ctx);
}

static LoadCtx *
begin_load (LbWindow   *self,
            const char *uri,
            const char *name)
{
  LoadCtx *ctx = g_new0 (LoadCtx, 1);

  if (self->load_cancellable)
    g_cancellable_cancel (self->load_cancellable);
  g_clear_object (&self->load_cancellable);
  self->load_cancellable = g_cancellable_new ();
  ctx->self = g_object_ref (self);
  ctx->serial = ++self->load_serial;
  ctx->uri = g_strdup (uri);
  ctx->name = g_strdup (name);
  self->load_started_us = g_get_monotonic_time ();
  self->first_pixels_us = 0;
  self->load_done_us = 0;
  gtk_spinner_set_spinning (GTK_SPINNER (self->canvas_spinner), TRUE);
  gtk_progress_bar_set_text (GTK_PROGRESS_BAR (self->progress_bar), name);
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress_bar), 0);
  gtk_widget_set_visible (self->progress_bar, TRUE);
  gtk_widget_set_visible (self->cancel_button, TRUE);
  update_actions (self);
  return ctx;
}

static void
on_file_read (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  LoadCtx *ctx = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GFileInputStream) stream = g_file_read_finish (G_FILE (source), result, &error);

  if (ctx->serial != ctx->self->load_serial)
    {
      load_ctx_free (ctx);
      return;
    }
  if (stream == NULL)
    {
      finish_loading_ui (ctx->self);
      _lb_window_show_error (ctx->self, _("Could not open the image"), error);
      load_ctx_free (ctx);
      return;
    }
  lb_loader_load_async (G_INPUT_STREAM (stream), ctx->uri, ctx->self->load_cancellable,
                        on_load_header, on_load_rows, ctx, on_image_loaded, ctx);
}

void
lb_window_open_image_file (LbWindow *self,
                           GFile    *file)
{
  g_autofree char *uri = NULL;
  g_autofree char *name = NULL;
  LoadCtx *ctx;

  g_return_if_fail (LB_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));
  uri = g_file_get_uri (file);
  name = g_file_get_basename (file);
  ctx = begin_load (self, uri, name);
  g_file_read_async (file, G_PRIORITY_DEFAULT, self->load_cancellable, on_file_read, ctx);
}

static void
on_download_progress (goffset  current,
                      goffset  total,
                      gpointer user_data)
{
  LoadCtx *ctx = user_data;

  if (ctx->serial == ctx->self->load_serial && total > 0)
    gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (ctx->self->progress_bar),
                                   (double) current / total);
}

static void
on_store_read (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  LoadCtx *ctx = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (LbStoreEntry) entry = NULL;
  g_autoptr (GInputStream) stream = NULL;

  stream = lb_store_read_finish (LB_STORE (source), result, &entry, &error);
  if (ctx->serial != ctx->self->load_serial)
    {
      load_ctx_free (ctx);
      return;
    }
  if (stream == NULL)
    {
      finish_loading_ui (ctx->self);
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _lb_window_show_error (ctx->self, _("Could not open the image"), error);
      load_ctx_free (ctx);
      return;
    }
  if (entry != NULL)
    ctx->etag = g_strdup (lb_store_entry_get_etag (entry));
  lb_loader_load_async (stream, ctx->uri, ctx->self->load_cancellable,
                        on_load_header, on_load_rows, ctx, on_image_loaded, ctx);
}

void
lb_window_open_store_image (LbWindow   *self,
                            const char *uri)
{
  g_autofree char *name = NULL;
  LoadCtx *ctx;

  g_return_if_fail (LB_IS_WINDOW (self));
  g_return_if_fail (self->store != NULL);
  name = lb_store_uri_display_name (uri);
  ctx = begin_load (self, uri, name);
  /* the progress callback may run after the load was superseded: it checks the serial, and
   * ctx lives until the read finishes */
  lb_store_read_async (self->store, uri, self->load_cancellable, on_download_progress, ctx,
                       on_store_read, ctx);
}

static void
on_entry_activated (LbStoreBrowser *browser,
                    LbStoreEntry   *entry,
                    LbWindow       *self)
{
  LbStoreEntryKind kind = lb_store_entry_get_kind (entry);

  if (kind == LB_STORE_ENTRY_IMAGE || kind == LB_STORE_ENTRY_DICOM_INSTANCE
      || kind == LB_STORE_ENTRY_DICOM_FILE || kind == LB_STORE_ENTRY_FILE
      || kind == LB_STORE_ENTRY_UNKNOWN)
    lb_window_open_store_image (self, lb_store_entry_get_uri (entry));
}

/* ---- stores ---------------------------------------------------------------------------- */

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
on_credentials_response (GtkDialog *dialog,
                         int        response,
                         CredCtx   *ctx)
{
  if (response == GTK_RESPONSE_OK)
    lb_credentials_request_set_password (ctx->request,
                                         gtk_editable_get_text (GTK_EDITABLE (ctx->user)),
                                         gtk_editable_get_text (GTK_EDITABLE (ctx->password)));
  else
    lb_credentials_request_cancel (ctx->request);
  gtk_window_destroy (GTK_WINDOW (dialog));
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
  dialog = gtk_dialog_new_with_buttons (_("Authentication Required"), GTK_WINDOW (self),
                                        GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT
                                        | GTK_DIALOG_USE_HEADER_BAR,
                                        _("_Cancel"), GTK_RESPONSE_CANCEL,
                                        _("_Log In"), GTK_RESPONSE_OK, NULL);
  gtk_dialog_set_default_response (GTK_DIALOG (dialog), GTK_RESPONSE_OK);
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
  gtk_box_append (GTK_BOX (gtk_dialog_get_content_area (GTK_DIALOG (dialog))), grid);
  g_object_set_data_full (G_OBJECT (dialog), "lb-cred", ctx, cred_ctx_free);
  g_signal_connect (dialog, "response", G_CALLBACK (on_credentials_response), ctx);
  gtk_window_present (GTK_WINDOW (dialog));
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
  add_recent_store (self, lb_store_get_uri (store));
  _lb_window_filters_load_store (self);
  gtk_window_set_title (GTK_WINDOW (self), lb_store_get_uri (store));
  update_actions (self);
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
    }
  else
    lb_window_open_image_file (self, file);
}

gboolean
lb_window_is_busy (LbWindow *self)
{
  g_return_val_if_fail (LB_IS_WINDOW (self), FALSE);
  return self->busy || self->load_cancellable != NULL
         || lb_store_browser_get_pending (self->browser) > 0;
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

/* ---- window/level presets ------------------------------------------------------------- */

static void
rebuild_wl_menu (LbWindow *self)
{
  g_autoptr (GVariant) user = g_settings_get_value (self->settings, "wl-presets");
  g_autoptr (GMenu) builtin = g_menu_new ();
  g_autoptr (GMenu) mine = g_menu_new ();
  g_autoptr (GMenu) tools = g_menu_new ();
  GVariantIter iter;
  const char *name;
  double c, w;
  guint i = 0;

  g_menu_remove_all (self->wl_menu);
  for (guint k = 0; k < G_N_ELEMENTS (wl_presets); k++)
    {
      g_autofree char *action = g_strdup_printf ("win.wl-preset::%s", wl_presets[k].id);
      g_menu_append (builtin, _(wl_presets[k].label), action);
    }
  g_menu_append_section (self->wl_menu, NULL, G_MENU_MODEL (builtin));
  g_variant_iter_init (&iter, user);
  while (g_variant_iter_next (&iter, "(&sdd)", &name, &c, &w))
    {
      g_autofree char *action = g_strdup_printf ("win.wl-preset::user-%u", i++);
      g_autofree char *label = g_strdup_printf ("%s (%.0f/%.0f)", name, c, w);
      g_menu_append (mine, label, action);
    }
  if (i > 0)
    g_menu_append_section (self->wl_menu, _("My Presets"), G_MENU_MODEL (mine));
  g_menu_append (tools, _("_Auto (Histogram)"), "win.wl-auto");
  g_menu_append (tools, _("_Save Current as Preset…"), "win.wl-save-preset");
  g_menu_append (tools, _("_Invert"), "win.invert");
  g_menu_append_section (self->wl_menu, NULL, G_MENU_MODEL (tools));
}

static void
wl_preset_activated (GSimpleAction *action,
                     GVariant      *param,
                     gpointer       user_data)
{
  LbWindow *self = user_data;
  const char *id = g_variant_get_string (param, NULL);

  for (guint k = 0; k < G_N_ELEMENTS (wl_presets); k++)
    if (g_str_equal (id, wl_presets[k].id))
      {
        lb_canvas_set_window (self->canvas, wl_presets[k].center, wl_presets[k].width);
        return;
      }
  if (g_str_has_prefix (id, "user-"))
    {
      g_autoptr (GVariant) user = g_settings_get_value (self->settings, "wl-presets");
      guint64 idx = g_ascii_strtoull (id + 5, NULL, 10);
      double c, w;

      if (idx < g_variant_n_children (user))
        {
          g_variant_get_child (user, idx, "(&sdd)", NULL, &c, &w);
          lb_canvas_set_window (self->canvas, c, w);
        }
    }
}

static void
on_save_preset_response (GtkDialog *dialog,
                         int        response,
                         LbWindow  *self)
{
  GtkWidget *entry = g_object_get_data (G_OBJECT (dialog), "entry");

  if (response == GTK_RESPONSE_OK)
    {
      const char *name = gtk_editable_get_text (GTK_EDITABLE (entry));
      g_autoptr (GVariant) old = g_settings_get_value (self->settings, "wl-presets");
      GVariantBuilder b;
      GVariantIter iter;
      GVariant *child;
      double c, w;

      lb_canvas_get_window (self->canvas, &c, &w);
      g_variant_builder_init (&b, G_VARIANT_TYPE ("a(sdd)"));
      g_variant_iter_init (&iter, old);
      while ((child = g_variant_iter_next_value (&iter)) != NULL)
        {
          g_variant_builder_add_value (&b, child);
          g_variant_unref (child);
        }
      g_variant_builder_add (&b, "(sdd)", *name ? name : _("Preset"), c, w);
      g_settings_set_value (self->settings, "wl-presets", g_variant_builder_end (&b));
    }
  gtk_window_destroy (GTK_WINDOW (dialog));
}

static void
wl_save_preset_activated (GSimpleAction *action,
                          GVariant      *param,
                          gpointer       user_data)
{
  LbWindow *self = user_data;
  GtkWidget *dialog, *entry, *box;

  dialog = gtk_dialog_new_with_buttons (_("Save Window/Level Preset"), GTK_WINDOW (self),
                                        GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT
                                        | GTK_DIALOG_USE_HEADER_BAR,
                                        _("_Cancel"), GTK_RESPONSE_CANCEL,
                                        _("_Save"), GTK_RESPONSE_OK, NULL);
  gtk_dialog_set_default_response (GTK_DIALOG (dialog), GTK_RESPONSE_OK);
  box = gtk_dialog_get_content_area (GTK_DIALOG (dialog));
  entry = gtk_entry_new ();
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  gtk_entry_set_placeholder_text (GTK_ENTRY (entry), _("Preset name"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Preset name"), -1);
  gtk_widget_set_margin_start (entry, 18);
  gtk_widget_set_margin_end (entry, 18);
  gtk_widget_set_margin_top (entry, 18);
  gtk_widget_set_margin_bottom (entry, 18);
  gtk_box_append (GTK_BOX (box), entry);
  g_object_set_data (G_OBJECT (dialog), "entry", entry);
  g_signal_connect (dialog, "response", G_CALLBACK (on_save_preset_response), self);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ---- actions --------------------------------------------------------------------------- */

static void
on_open_file_response (GtkNativeDialog *native,
                       int              response,
                       LbWindow        *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      if (file != NULL)
        lb_window_open_image_file (self, file);
    }
  g_object_unref (native);
}

static void
open_file_activated (GSimpleAction *action,
                     GVariant      *param,
                     gpointer       user_data)
{
  LbWindow *self = user_data;
  GtkFileChooserNative *native;
  g_autoptr (GtkFileFilter) filter = gtk_file_filter_new ();

  native = gtk_file_chooser_native_new (_("Open Image"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
  gtk_file_filter_set_name (filter, _("Images"));
  gtk_file_filter_add_pixbuf_formats (filter);
  gtk_file_filter_add_mime_type (filter, "image/png");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), filter);
  g_signal_connect (native, "response", G_CALLBACK (on_open_file_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static void
open_store_activated (GSimpleAction *action,
                      GVariant      *param,
                      gpointer       user_data)
{
  LbWindow *self = user_data;

  gtk_menu_button_popup (GTK_MENU_BUTTON (self->open_store_button));
  gtk_widget_grab_focus (self->url_entry);
}

static void
open_store_uri_activated (GSimpleAction *action,
                          GVariant      *param,
                          gpointer       user_data)
{
  LbWindow *self = user_data;

  gtk_popover_popdown (GTK_POPOVER (self->store_popover));
  lb_window_open_uri (self, g_variant_get_string (param, NULL));
}

static void
undo_activated (GSimpleAction *action,
                GVariant      *param,
                gpointer       user_data)
{
  LbWindow *self = user_data;

  if (self->history && !self->busy)
    lb_history_undo (self->history);
}

static void
redo_activated (GSimpleAction *action,
                GVariant      *param,
                gpointer       user_data)
{
  LbWindow *self = user_data;

  if (self->history && !self->busy)
    lb_history_redo (self->history);
}

static void
revert_activated (GSimpleAction *action,
                  GVariant      *param,
                  gpointer       user_data)
{
  LbWindow *self = user_data;

  if (self->history && !self->busy)
    lb_history_revert (self->history);
}

static void
cancel_activated (GSimpleAction *action,
                  GVariant      *param,
                  gpointer       user_data)
{
  LbWindow *self = user_data;

  if (self->op_cancellable)
    g_cancellable_cancel (self->op_cancellable);
  if (self->load_cancellable)
    g_cancellable_cancel (self->load_cancellable);
}

static void
upload_activated (GSimpleAction *action,
                  GVariant      *param,
                  gpointer       user_data)
{
  _lb_window_upload (LB_WINDOW (user_data));
}

static void
export_activated (GSimpleAction *action,
                  GVariant      *param,
                  gpointer       user_data)
{
  _lb_window_export (LB_WINDOW (user_data));
}

static void
view_activated (GSimpleAction *action,
                GVariant      *param,
                gpointer       user_data)
{
  LbWindow *self = user_data;
  const char *name = g_action_get_name (G_ACTION (action));
  double w = gtk_widget_get_width (GTK_WIDGET (self->canvas));
  double h = gtk_widget_get_height (GTK_WIDGET (self->canvas));

  if (g_str_equal (name, "zoom-in"))
    lb_canvas_zoom_at (self->canvas, 1.25, w / 2, h / 2);
  else if (g_str_equal (name, "zoom-out"))
    lb_canvas_zoom_at (self->canvas, 1 / 1.25, w / 2, h / 2);
  else if (g_str_equal (name, "zoom-fit"))
    lb_canvas_zoom_fit (self->canvas);
  else if (g_str_equal (name, "zoom-1"))
    lb_canvas_set_zoom (self->canvas, 1.0);
  else if (g_str_equal (name, "rotate-cw"))
    lb_canvas_set_rotation (self->canvas, lb_canvas_get_rotation (self->canvas) + 1);
  else if (g_str_equal (name, "rotate-ccw"))
    lb_canvas_set_rotation (self->canvas, lb_canvas_get_rotation (self->canvas) + 3);
  else if (g_str_equal (name, "wl-auto"))
    lb_canvas_auto_window (self->canvas);
  else if (g_str_equal (name, "focus-tree"))
    gtk_widget_grab_focus (lb_store_browser_get_view (self->browser));
  else if (g_str_equal (name, "focus-canvas"))
    gtk_widget_grab_focus (GTK_WIDGET (self->canvas));
}

static void
toggle_activated (GSimpleAction *action,
                  GVariant      *param,
                  gpointer       user_data)
{
  GVariant *state = g_action_get_state (G_ACTION (action));

  g_action_change_state (G_ACTION (action), g_variant_new_boolean (!g_variant_get_boolean (state)));
  g_variant_unref (state);
}

static void
toggle_change_state (GSimpleAction *action,
                     GVariant      *value,
                     gpointer       user_data)
{
  LbWindow *self = user_data;
  const char *name = g_action_get_name (G_ACTION (action));
  gboolean on = g_variant_get_boolean (value);

  g_simple_action_set_state (action, value);
  if (g_str_equal (name, "invert"))
    lb_canvas_set_invert (self->canvas, on);
  else if (g_str_equal (name, "flip"))
    lb_canvas_set_flip (self->canvas, on);
  else if (g_str_equal (name, "split"))
    lb_canvas_set_split (self->canvas, on);
  else if (g_str_equal (name, "benchmark-mode"))
    {
      if (g_settings_get_boolean (self->settings, "benchmark-mode") != on)
        g_settings_set_boolean (self->settings, "benchmark-mode", on);
      gtk_revealer_set_reveal_child (GTK_REVEALER (self->bench_revealer), on);
    }
}

static void
sync_toggle (LbWindow   *self,
             const char *name,
             gboolean    value)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), name);
  g_autoptr (GVariant) state = g_action_get_state (action);

  if (g_variant_get_boolean (state) != value)
    g_simple_action_set_state (G_SIMPLE_ACTION (action), g_variant_new_boolean (value));
}

static void
on_canvas_notify (LbCanvas   *canvas,
                  GParamSpec *pspec,
                  LbWindow   *self)
{
  const char *name = g_param_spec_get_name (pspec);

  if (g_str_equal (name, "zoom"))
    update_zoom_label (self);
  else if (g_str_equal (name, "window-center") || g_str_equal (name, "window-width"))
    update_wl_label (self);
  else if (g_str_equal (name, "probe-text"))
    update_probe_label (self);
  else if (g_str_equal (name, "has-pixels"))
    {
      gtk_widget_set_visible (self->empty_label, !lb_canvas_has_pixels (canvas));
      update_zoom_label (self);
      update_wl_label (self);
    }
  else if (g_str_equal (name, "invert"))
    sync_toggle (self, "invert", lb_canvas_get_invert (canvas));
  else if (g_str_equal (name, "flip"))
    sync_toggle (self, "flip", lb_canvas_get_flip (canvas));
  else if (g_str_equal (name, "split"))
    sync_toggle (self, "split", lb_canvas_get_split (canvas));
}

static void
on_benchmark_setting (GSettings  *settings,
                      const char *key,
                      LbWindow   *self)
{
  sync_toggle (self, "benchmark-mode", g_settings_get_boolean (settings, key));
  gtk_revealer_set_reveal_child (GTK_REVEALER (self->bench_revealer),
                                 g_settings_get_boolean (settings, key));
}

static void
on_search_changed (GtkSearchEntry *entry,
                   LbWindow       *self)
{
  lb_store_browser_search (self->browser, gtk_editable_get_text (GTK_EDITABLE (entry)), FALSE);
}

static void
on_search_next (GtkSearchEntry *entry,
                LbWindow       *self)
{
  lb_store_browser_search (self->browser, gtk_editable_get_text (GTK_EDITABLE (entry)), TRUE);
}

static void
on_search_activate (GtkSearchEntry *entry,
                    LbWindow       *self)
{
  GtkSelectionModel *sel = gtk_column_view_get_model (
    GTK_COLUMN_VIEW (lb_store_browser_get_view (self->browser)));
  guint pos = gtk_single_selection_get_selected (GTK_SINGLE_SELECTION (sel));

  if (pos != GTK_INVALID_LIST_POSITION)
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

/* The shortcuts window is built on first use: parsing it for every window would cost
 * start-up time (GtkApplication's automatic gtk/help-overlay.ui does exactly that). */
static void
show_help_overlay_activated (GSimpleAction *action,
                             GVariant      *param,
                             gpointer       user_data)
{
  LbWindow *self = user_data;
  g_autoptr (GtkBuilder) builder =
    gtk_builder_new_from_resource ("/io/github/lightbox/Lightbox/ui/lb-shortcuts.ui");
  GtkWindow *overlay = GTK_WINDOW (gtk_builder_get_object (builder, "help_overlay"));

  gtk_window_set_transient_for (overlay, GTK_WINDOW (self));
  gtk_window_present (overlay);
}

static const GActionEntry win_entries[] = {
  { .name = "show-help-overlay", .activate = show_help_overlay_activated },
  { .name = "open-file", .activate = open_file_activated },
  { .name = "open-store", .activate = open_store_activated },
  { .name = "open-store-uri", .activate = open_store_uri_activated, .parameter_type = "s" },
  { .name = "undo", .activate = undo_activated },
  { .name = "redo", .activate = redo_activated },
  { .name = "revert", .activate = revert_activated },
  { .name = "cancel", .activate = cancel_activated },
  { .name = "upload", .activate = upload_activated },
  { .name = "export", .activate = export_activated },
  { .name = "zoom-in", .activate = view_activated },
  { .name = "zoom-out", .activate = view_activated },
  { .name = "zoom-fit", .activate = view_activated },
  { .name = "zoom-1", .activate = view_activated },
  { .name = "rotate-cw", .activate = view_activated },
  { .name = "rotate-ccw", .activate = view_activated },
  { .name = "wl-auto", .activate = view_activated },
  { .name = "focus-tree", .activate = view_activated },
  { .name = "focus-canvas", .activate = view_activated },
  { .name = "wl-preset", .activate = wl_preset_activated, .parameter_type = "s" },
  { .name = "wl-save-preset", .activate = wl_save_preset_activated },
  { .name = "invert", .activate = toggle_activated, .state = "false", .change_state = toggle_change_state },
  { .name = "flip", .activate = toggle_activated, .state = "false", .change_state = toggle_change_state },
  { .name = "split", .activate = toggle_activated, .state = "false", .change_state = toggle_change_state },
  { .name = "benchmark-mode", .activate = toggle_activated, .state = "false", .change_state = toggle_change_state },
};

/* ---- GObject --------------------------------------------------------------------------- */

static gboolean
lb_window_close_request (GtkWindow *window)
{
  LbWindow *self = LB_WINDOW (window);
  int w, h;

  gtk_window_get_default_size (window, &w, &h);
  g_settings_delay (self->settings);
  if (!gtk_window_is_maximized (window) && w > 0 && h > 0)
    {
      g_settings_set_int (self->settings, "window-width", MAX (w, 320));
      g_settings_set_int (self->settings, "window-height", MAX (h, 240));
    }
  g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (window));
  g_settings_set_int (self->settings, "sidebar-width",
                      gtk_paned_get_position (GTK_PANED (self->paned)));
  g_settings_apply (self->settings);
  return GTK_WINDOW_CLASS (lb_window_parent_class)->close_request (window);
}

static void
lb_window_dispose (GObject *object)
{
  LbWindow *self = LB_WINDOW (object);

  if (self->load_cancellable)
    g_cancellable_cancel (self->load_cancellable);
  if (self->op_cancellable)
    g_cancellable_cancel (self->op_cancellable);
  if (self->settings)
    g_signal_handlers_disconnect_by_data (self->settings, self);
  if (self->history)
    g_signal_handlers_disconnect_by_func (self->history, on_history_changed, self);
  if (self->canvas)
    g_signal_handlers_disconnect_by_data (self->canvas, self);
  /* a decoder buffer must not outlive the load that owns it */
  if (self->canvas && !lb_canvas_get_image (self->canvas))
    lb_canvas_clear (self->canvas);
  _lb_window_filters_dispose (self);
  g_clear_object (&self->load_cancellable);
  g_clear_object (&self->op_cancellable);
  g_clear_object (&self->history);
  g_clear_object (&self->store);
  g_clear_object (&self->filter_menu);
  g_clear_object (&self->wl_menu);
  G_OBJECT_CLASS (lb_window_parent_class)->dispose (object);
}

static void
lb_window_finalize (GObject *object)
{
  LbWindow *self = LB_WINDOW (object);

  g_clear_object (&self->settings);
  g_free (self->image_name);
  g_free (self->last_status);
  g_free (self->last_upload_uri);
  G_OBJECT_CLASS (lb_window_parent_class)->finalize (object);
}

static void
lb_window_class_init (LbWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = lb_window_dispose;
  object_class->finalize = lb_window_finalize;
  window_class->close_request = lb_window_close_request;

  g_type_ensure (LB_TYPE_CANVAS);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/lightbox/Lightbox/ui/lb-window.ui");
#define BIND(name) gtk_widget_class_bind_template_child (widget_class, LbWindow, name)
  BIND (header_bar);
  BIND (open_store_button);
  BIND (filter_button);
  BIND (window_button);
  BIND (main_menu_button);
  BIND (benchmark_button);
  BIND (save_button);
  BIND (upload_button);
  BIND (undo_button);
  BIND (redo_button);
  BIND (paned);
  BIND (tree_search);
  BIND (tree_stack);
  BIND (tree_box);
  BIND (welcome_list);
  BIND (canvas);
  BIND (empty_label);
  BIND (canvas_spinner);
  BIND (bench_revealer);
  BIND (probe_label);
  BIND (zoom_label);
  BIND (wl_label);
  BIND (size_label);
  BIND (filter_time_label);
  BIND (progress_bar);
  BIND (cancel_button);
  BIND (url_entry);
  BIND (url_open_button);
  BIND (recent_list);
  BIND (store_popover);
#undef BIND
}

static void
lb_window_init (LbWindow *self)
{
  GtkBuilder *builder;
  GMenuModel *primary;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->settings = g_settings_new (APP_ID);
  g_action_map_add_action_entries (G_ACTION_MAP (self), win_entries, G_N_ELEMENTS (win_entries),
                                   self);

  gtk_window_set_default_size (GTK_WINDOW (self), g_settings_get_int (self->settings, "window-width"),
                               g_settings_get_int (self->settings, "window-height"));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));
  gtk_paned_set_position (GTK_PANED (self->paned),
                          g_settings_get_int (self->settings, "sidebar-width"));

  /* the store tree */
  self->browser = LB_STORE_BROWSER (lb_store_browser_new ());
  gtk_box_append (GTK_BOX (self->tree_box), GTK_WIDGET (self->browser));
  g_signal_connect (self->browser, "entry-activated", G_CALLBACK (on_entry_activated), self);
  g_signal_connect (self->browser, "listing-failed", G_CALLBACK (on_listing_failed), self);
  gtk_search_entry_set_key_capture_widget (GTK_SEARCH_ENTRY (self->tree_search),
                                           lb_store_browser_get_view (self->browser));
  g_signal_connect (self->tree_search, "search-changed", G_CALLBACK (on_search_changed), self);
  g_signal_connect (self->tree_search, "next-match", G_CALLBACK (on_search_next), self);
  g_signal_connect (self->tree_search, "activate", G_CALLBACK (on_search_activate), self);
  g_signal_connect (self->tree_search, "stop-search", G_CALLBACK (on_search_stop), self);

  /* menus */
  builder = gtk_builder_new_from_resource ("/io/github/lightbox/Lightbox/ui/lb-menus.ui");
  primary = G_MENU_MODEL (gtk_builder_get_object (builder, "primary_menu"));
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (self->main_menu_button), primary);
  g_object_unref (builder);
  self->wl_menu = g_menu_new ();
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (self->window_button),
                                  G_MENU_MODEL (self->wl_menu));
  rebuild_wl_menu (self);
  self->filter_menu = g_menu_new ();
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (self->filter_button),
                                  G_MENU_MODEL (self->filter_menu));

  /* stores */
  g_signal_connect_swapped (self->url_entry, "activate", G_CALLBACK (on_url_activate), self);
  g_signal_connect_swapped (self->url_open_button, "clicked", G_CALLBACK (on_url_activate), self);
  g_signal_connect_swapped (self->settings, "changed::recent-stores",
                            G_CALLBACK (rebuild_store_lists), self);
  g_signal_connect_swapped (self->settings, "changed::sample-store",
                            G_CALLBACK (rebuild_store_lists), self);
  g_signal_connect_swapped (self->settings, "changed::wl-presets",
                            G_CALLBACK (rebuild_wl_menu), self);
  g_signal_connect (self->settings, "changed::benchmark-mode",
                    G_CALLBACK (on_benchmark_setting), self);
  rebuild_store_lists (self);
  gtk_stack_set_visible_child_name (GTK_STACK (self->tree_stack), "empty");

  g_signal_connect (self->canvas, "notify", G_CALLBACK (on_canvas_notify), self);
  on_benchmark_setting (self->settings, "benchmark-mode", self);
  update_actions (self);
}

LbWindow *
lb_window_new (LbApplication *app)
{
  LbWindow *self = g_object_new (LB_TYPE_WINDOW, "application", app, NULL);

  /* needs the application's filter registry, known only once "application" is set */
  _lb_window_filters_init (self);
  return self;
}
