/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-window"

#include "config.h"

#include <glib/gi18n.h>
#include <libsoup/soup.h>

#include "lb-dialogs.h"
#include "lb-error.h"
#include "lb-loader.h"
#include "lb-messages.h"
#include "lb-store.h"
#include "lb-study-panel.h"
#include "lb-window-private.h"

G_DEFINE_FINAL_TYPE (LbWindow, lb_window, GTK_TYPE_APPLICATION_WINDOW)

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
      LbValueModel *model = lb_canvas_get_value_model (self->canvas);
      const char *units = lb_canvas_get_units_label (self->canvas);
      int lut = lb_canvas_get_voi_lut (self->canvas);

      lb_canvas_get_window (self->canvas, &c, &w);
      if (lut >= 0)
        {
          const LbValueLut *l = lb_value_model_get_voi_lut (model, (guint) lut);

          /* TRANSLATORS: the image is shown through the file's VOI lookup table */
          text = g_strdup_printf (_("VOI LUT %s"), l->explanation ? l->explanation : "");
        }
      else
        {
          g_autofree char *ws = model ? lb_value_model_format_value (model, w)
                                      : g_strdup_printf ("%.0f", w);
          g_autofree char *cs = model ? lb_value_model_format_value (model, c)
                                      : g_strdup_printf ("%.0f", c);

          if (units != NULL)
            /* TRANSLATORS: window width and level (centre) with their unit, e.g. HU */
            text = g_strdup_printf (_("W %s  L %s %s"), ws, cs, units);
          else
            text = g_strdup_printf (_("W %s  L %s"), ws, cs);
        }
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

void
_lb_window_update_actions (LbWindow *self)
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
  _lb_window_frames_update_actions (self);
  _lb_window_study_update_actions (self);
}

void
_lb_window_begin_op (LbWindow   *self,
                     const char *what)
{
  g_clear_object (&self->op_cancellable);
  self->op_cancellable = g_cancellable_new ();
  self->busy = TRUE;
  /* the last operation's message is stale once the next one starts */
  _lb_window_set_status (self, NULL);
  gtk_progress_bar_set_text (GTK_PROGRESS_BAR (self->progress_bar), what);
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress_bar), 0);
  gtk_widget_set_visible (self->progress_bar, TRUE);
  gtk_widget_set_visible (self->cancel_button, TRUE);
  _lb_window_update_actions (self);
}

void
_lb_window_end_op (LbWindow *self)
{
  self->busy = FALSE;
  g_clear_object (&self->op_cancellable);
  gtk_widget_set_visible (self->progress_bar, self->load_cancellable != NULL);
  gtk_widget_set_visible (self->cancel_button, self->load_cancellable != NULL);
  _lb_window_update_actions (self);
  _lb_window_focus_viewport (self);
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

gboolean
lb_window_is_busy (LbWindow *self)
{
  g_return_val_if_fail (LB_IS_WINDOW (self), FALSE);
  return self->busy || self->load_cancellable != NULL
         || lb_store_browser_get_pending (self->browser) > 0;
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

/* @explanation in plain words, @details the technical text behind "Details" (NULL: none). */
static void
present_error (LbWindow   *self,
               const char *title,
               const char *explanation,
               const char *details)
{
  /* the newest error replaces the one shown */
  if (self->error_cancellable != NULL)
    g_cancellable_cancel (self->error_cancellable);
  g_clear_object (&self->error_cancellable);
  self->error_cancellable = g_cancellable_new ();
  lb_dialogs_error (GTK_WINDOW (self), title, explanation, details, self->error_cancellable);
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

  g_clear_object (&stream);
  present_error (probe->self, _("Certificate problem"), why, probe->message);
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
  const char *plain = lb_messages_explain (error);
  g_autofree char *status = NULL;

  g_message ("%s: %s", title, error->message);
  /* the status line keeps the plain words; the method, URL and status are in the dialog's
   * Details */
  status = g_strdup_printf ("%s: %s", title, plain ? plain : error->message);
  _lb_window_set_status (self, status);
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
  if (plain != NULL)
    present_error (self, title, plain, error->message);
  else
    present_error (self, title, error->message, NULL);
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
  _lb_window_update_title (self);
  _lb_window_update_actions (self);
}

static void
on_history_changed (LbHistory  *history,
                    GParamSpec *pspec,
                    LbWindow   *self)
{
  _lb_window_show_current (self);
}

void
_lb_window_set_history (LbWindow  *self,
             LbHistory *history)
{
  if (self->history)
    g_signal_handlers_disconnect_by_func (self->history, on_history_changed, self);
  g_set_object (&self->history, history);
  if (history)
    g_signal_connect (history, "notify::position", G_CALLBACK (on_history_changed), self);
  /* a new history starts saved */
  g_clear_object (&self->saved_image);
  _lb_window_update_actions (self);
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
      _lb_window_set_history (self, ctx->previous);
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
  _lb_window_set_history (self, NULL);
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
  _lb_window_update_actions (self);
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
  /* the first rows already started this image's view afresh (lb_canvas_begin_progressive);
   * what the reader did to it since then stays */
  gboolean progressive = self->progressive_serial == ctx->serial;

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
  _lb_window_set_history (self, history);
  /* a multi-frame image opens on the frame it came as (1) and steps from there */
  _lb_window_frames_open (self, tagged, ctx->uri);
  /* another image: the previous one's rotation, flips and inversion do not carry over */
  lb_canvas_set_image (self->canvas, tagged, progressive);
  lb_canvas_set_before_image (self->canvas, tagged);
  _lb_window_overlay_update (self);
  update_size_label (self, lb_image_get_width (tagged), lb_image_get_height (tagged),
                     lb_image_get_format (tagged));
  _lb_window_update_title (self);
  gtk_widget_grab_focus (GTK_WIDGET (self->canvas));
  _lb_window_update_actions (self);
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
  _lb_window_set_status (self, NULL);
  self->load_started_us = g_get_monotonic_time ();
  self->first_pixels_us = 0;
  self->load_done_us = 0;
  gtk_spinner_set_spinning (GTK_SPINNER (self->canvas_spinner), TRUE);
  gtk_progress_bar_set_text (GTK_PROGRESS_BAR (self->progress_bar), name);
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress_bar), 0);
  gtk_widget_set_visible (self->progress_bar, TRUE);
  gtk_widget_set_visible (self->cancel_button, TRUE);
  _lb_window_update_actions (self);
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

static void
open_image_file_now (LbWindow *self,
                     gpointer  data)
{
  GFile *file = data;
  g_autofree char *uri = NULL;
  g_autofree char *name = NULL;
  LoadCtx *ctx;

  uri = g_file_get_uri (file);
  name = g_file_get_basename (file);
  ctx = begin_load (self, uri, name);
  g_file_read_async (file, G_PRIORITY_DEFAULT, self->load_cancellable, on_file_read, ctx);
}

void
lb_window_open_image_file (LbWindow *self,
                           GFile    *file)
{
  g_return_if_fail (LB_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));
  _lb_window_after_unsaved (self, open_image_file_now, g_object_ref (file), g_object_unref);
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

static void
open_store_image_now (LbWindow *self,
                      gpointer  data)
{
  const char *uri = data;
  g_autofree char *name = NULL;
  LoadCtx *ctx;

  if (self->store == NULL)
    return;
  name = lb_store_uri_display_name (uri);
  ctx = begin_load (self, uri, name);
  /* the progress callback may run after the load was superseded: it checks the serial, and
   * ctx lives until the read finishes */
  lb_store_read_async (self->store, uri, self->load_cancellable, on_download_progress, ctx,
                       on_store_read, ctx);
}

void
lb_window_open_store_image (LbWindow   *self,
                            const char *uri)
{
  g_return_if_fail (LB_IS_WINDOW (self));
  g_return_if_fail (self->store != NULL);
  _lb_window_after_unsaved (self, open_store_image_now, g_strdup (uri), g_free);
}

/* ---- toggles in step with the canvas and the settings ---------------------------------- */

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

  /* the status bar and the toggles show the active viewport's */
  if (canvas != self->canvas)
    return;
  if (g_str_equal (name, "zoom"))
    update_zoom_label (self);
  else if (g_str_equal (name, "window-center") || g_str_equal (name, "window-width"))
    update_wl_label (self);
  else if (g_str_equal (name, "probe-text"))
    update_probe_label (self);
  else if (g_str_equal (name, "value-model"))
    {
      _lb_window_rebuild_wl_menu (self);
      update_wl_label (self);
    }
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

void
_lb_window_canvas_changed (LbWindow *self)
{
  LbImage *image = lb_canvas_get_image (self->canvas);

  update_zoom_label (self);
  update_wl_label (self);
  update_probe_label (self);
  _lb_window_rebuild_wl_menu (self);
  sync_toggle (self, "invert", lb_canvas_get_invert (self->canvas));
  sync_toggle (self, "flip", lb_canvas_get_flip (self->canvas));
  sync_toggle (self, "split", lb_canvas_get_split (self->canvas));
  if (image != NULL)
    update_size_label (self, lb_image_get_width (image), lb_image_get_height (image),
                       lb_image_get_format (image));
  else
    gtk_label_set_text (GTK_LABEL (self->size_label), "");
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

/* ---- GObject --------------------------------------------------------------------------- */

static gboolean
lb_window_close_request (GtkWindow *window)
{
  LbWindow *self = LB_WINDOW (window);
  int w, h;

  /* unsaved results: the window stays until the reader answers */
  if (_lb_window_close_needs_answer (self))
    return TRUE;
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
  _lb_window_viewports_dispose (self);
  /* a decoder buffer must not outlive the load that owns it */
  if (self->canvas && !lb_canvas_get_image (self->canvas))
    lb_canvas_clear (self->canvas);
  _lb_window_filters_dispose (self);
  if (self->series_cancellable)
    g_cancellable_cancel (self->series_cancellable);
  g_clear_object (&self->series_cancellable);
  _lb_window_frames_close (self);
  if (self->error_cancellable)
    g_cancellable_cancel (self->error_cancellable);
  g_clear_object (&self->error_cancellable);
  _lb_window_nav_dispose (self);
  _lb_window_unsaved_dispose (self);
  _lb_window_focus_dispose (self);
  _lb_window_study_dispose (self);
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

  g_type_ensure (LB_TYPE_STUDY_PANEL);
  g_type_ensure (LB_TYPE_VIEWPORT_GRID);
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
  BIND (tree_search_status);
  BIND (tree_stack);
  BIND (tree_box);
  BIND (welcome_list);
  BIND (study_panel);
  BIND (viewport_grid);
  BIND (bench_revealer);
  BIND (probe_label);
  BIND (zoom_label);
  BIND (wl_label);
  BIND (size_label);
  BIND (frame_label);
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
  /* first: the window's canvas is the active viewport's from here on */
  _lb_window_viewports_init (self);
  _lb_window_actions_init (self);
  _lb_window_frames_init (self);
  _lb_window_overlay_init (self);
  _lb_window_nav_init (self);
  _lb_window_export_view_init (self);

  gtk_window_set_default_size (GTK_WINDOW (self), g_settings_get_int (self->settings, "window-width"),
                               g_settings_get_int (self->settings, "window-height"));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));
  gtk_paned_set_position (GTK_PANED (self->paned),
                          g_settings_get_int (self->settings, "sidebar-width"));

  _lb_window_stores_init (self);
  _lb_window_study_init (self);

  /* menus */
  builder = gtk_builder_new_from_resource ("/io/github/lightbox/Lightbox/ui/lb-menus.ui");
  primary = G_MENU_MODEL (gtk_builder_get_object (builder, "primary_menu"));
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (self->main_menu_button), primary);
  g_object_unref (builder);
  self->filter_menu = g_menu_new ();
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (self->filter_button),
                                  G_MENU_MODEL (self->filter_menu));

  g_signal_connect (self->settings, "changed::benchmark-mode",
                    G_CALLBACK (on_benchmark_setting), self);
  for (guint i = 0; i < LB_VIEWPORT_GRID_MAX; i++)
    g_signal_connect (lb_viewport_get_canvas (lb_viewport_grid_get_viewport (
                        LB_VIEWPORT_GRID (self->viewport_grid), i)),
                      "notify", G_CALLBACK (on_canvas_notify), self);
  on_benchmark_setting (self->settings, "benchmark-mode", self);
  _lb_window_focus_init (self);
  _lb_window_update_actions (self);
}

LbWindow *
lb_window_new (LbApplication *app)
{
  LbWindow *self = g_object_new (LB_TYPE_WINDOW, "application", app, NULL);

  /* needs the application's filter registry, known only once "application" is set */
  _lb_window_filters_init (self);
  return self;
}
