/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-application"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-application.h"
#include "lb-dicom-file.h"
#include "lb-pixel-cache.h"
#include "lb-plugin-manager.h"
#include "lb-window.h"

struct _LbApplication {
  GtkApplication    parent_instance;

  LbFilterRegistry *registry;   /* created on first use: start-up stays fast */
  guint trim_source;            /* trim_pixel_cache () */
};

G_DEFINE_FINAL_TYPE (LbApplication, lb_application, GTK_TYPE_APPLICATION)

static gint64 created_us;  /* monotonic time lb_application_new() ran: start-up measurement */

/* LIGHTBOX_BENCH_STARTUP=1 (bench/ui-timing): report when the first frame of the window is
 * painted, counted from lb_application_new(), then quit. */
static void
on_first_paint (GdkFrameClock *clock,
                GApplication  *app)
{
  g_signal_handlers_disconnect_by_func (clock, on_first_paint, app);
  g_print ("lightbox: first frame %.1f ms after start\n",
           (g_get_monotonic_time () - created_us) / 1000.0);
  g_application_quit (app);
}

static void
on_window_mapped (GtkWidget    *window,
                  GApplication *app)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (window);

  g_signal_handlers_disconnect_by_func (window, on_window_mapped, app);
  if (clock)
    g_signal_connect (clock, "after-paint", G_CALLBACK (on_first_paint), app);
}

static LbWindow *
get_window (GApplication *app)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL)
    window = GTK_WINDOW (lb_window_new (LB_APPLICATION (app)));
  return LB_WINDOW (window);
}

static void
lb_application_activate (GApplication *app)
{
  GtkWindow *window = GTK_WINDOW (get_window (app));

  if (g_getenv ("LIGHTBOX_BENCH_STARTUP") != NULL)
    g_signal_connect (window, "map", G_CALLBACK (on_window_mapped), app);
  gtk_window_present (window);
}

/* `lightbox URL|FILE`: GApplication turns arguments into GFiles; their URIs tell stores
 * (http, https, dicomweb+http, folders) from images. */
static void
lb_application_open (GApplication *app,
                     GFile       **files,
                     int           n_files,
                     const char   *hint)
{
  LbWindow *window = get_window (app);

  for (int i = 0; i < n_files; i++)
    {
      g_autofree char *uri = g_file_get_uri (files[i]);
      lb_window_open_uri (window, uri);
    }
  gtk_window_present (GTK_WINDOW (window));
}

static void
quit_activated (GSimpleAction *action,
                GVariant      *param,
                gpointer       user_data)
{
  g_autoptr (GList) windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (user_data)));

  /* close windows properly so they save their state; a window with unsaved results asks
   * first and stays until answered (the application ends with its last window) */
  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (GTK_WINDOW (l->data));
  if (gtk_application_get_windows (GTK_APPLICATION (user_data)) == NULL)
    g_application_quit (G_APPLICATION (user_data));
}

static void
about_activated (GSimpleAction *action,
                 GVariant      *param,
                 gpointer       user_data)
{
  static const char *authors[] = { "The Lightbox developers", NULL };
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (user_data));

  gtk_show_about_dialog (parent,
                         "program-name", "Lightbox",
                         "logo-icon-name", APP_ID,
                         "version", PACKAGE_VERSION,
                         "comments", _("Medical image workstation: browse image stores, "
                                       "window/level, filters, write-back"),
                         "license-type", GTK_LICENSE_GPL_3_0,
                         "authors", authors,
                         "translator-credits", _("translator-credits"),
                         NULL);
}

/* Pixel buffers the cache kept for images that never came go back to the system
 * (lb-pixel-cache.h). */
static gboolean
trim_pixel_cache (gpointer data)
{
  lb_pixel_cache_trim ((gint64) LB_PIXEL_CACHE_IDLE_SECONDS * G_USEC_PER_SEC);
  return G_SOURCE_CONTINUE;
}

static void plugins_activated (GSimpleAction *action,
                               GVariant      *param,
                               gpointer       user_data);

static void
lb_application_startup (GApplication *app)
{
  static const GActionEntry entries[] = {
    { .name = "quit", .activate = quit_activated },
    { .name = "about", .activate = about_activated },
    { .name = "plugins", .activate = plugins_activated },
  };
  static const struct {
    const char *action;
    const char *accels[3];
  } accels[] = {
    { "app.quit", { "<Control>q", NULL } },
    { "win.open-file", { "<Control>o", NULL } },
    { "win.open-store", { "<Control>l", NULL } },
    { "win.open-folder-stack", { "<Control><Alt>f", NULL } },
    { "win.upload", { "<Control>u", NULL } },
    { "win.export", { "<Control><Shift>e", NULL } },
    { "win.export-view", { "<Control><Alt>e", NULL } },
    { "win.undo", { "<Control>z", NULL } },
    { "win.redo", { "<Control><Shift>z", "<Control>y", NULL } },
    { "win.revert", { "<Control><Shift>r", NULL } },
    { "win.cancel", { "Escape", NULL } },
    { "win.zoom-in", { "<Control>plus", "<Control>equal", NULL } },
    { "win.zoom-out", { "<Control>minus", NULL } },
    { "win.zoom-fit", { "<Control>0", NULL } },
    { "win.zoom-1", { "<Control>1", NULL } },
    { "win.rotate-cw", { "<Control>r", NULL } },
    { "win.rotate-ccw", { "<Control><Alt>r", NULL } },
    { "win.invert", { "<Control>i", NULL } },
    { "win.flip", { "<Control>h", NULL } },
    { "win.split", { "<Control>b", NULL } },
    { "win.overlay", { "<Control><Shift>o", NULL } },
    { "win.wl-auto", { "<Control><Shift>a", NULL } },
    /* frames, anywhere in the window (on the canvas also Page Down/Up, Home, End, Space);
     * not Ctrl+Home/End, which text entries use */
    { "win.next-frame", { "<Control>Page_Down", NULL } },
    { "win.previous-frame", { "<Control>Page_Up", NULL } },
    { "win.cine", { "<Control>p", NULL } },
    { "win.next-page", { "<Control><Shift>Page_Down", NULL } },
    { "win.previous-page", { "<Control><Shift>Page_Up", NULL } },
    { "win.cine-faster", { "<Control>bracketright", NULL } },
    { "win.cine-slower", { "<Control>bracketleft", NULL } },
    { "win.cine-bounce", { "<Control><Shift>p", NULL } },
    { "win.wl-edit", { "<Control><Shift>w", NULL } },
    { "win.flip-vertical", { "<Control><Shift>h", NULL } },
    { "win.fullscreen", { "F11", NULL } },
    /* viewports: rows × columns */
    { "win.layout::1x1", { "<Control><Alt>1", NULL } },
    { "win.layout::1x2", { "<Control><Alt>2", NULL } },
    { "win.layout::2x1", { "<Control><Alt>3", NULL } },
    { "win.layout::2x2", { "<Control><Alt>4", NULL } },
    { "win.next-viewport", { "<Control>F6", NULL } },
    { "win.sync-scroll", { "<Control><Shift>y", NULL } },
    { "win.link-wl", { "<Control><Shift>k", NULL } },
    { "win.reference-lines", { "<Control><Shift>l", NULL } },
    /* Escape leaves full screen when there is nothing to cancel (win.cancel is disabled) */
    { "win.leave-fullscreen", { "Escape", NULL } },
    { "win.tag-browser", { "<Control><Shift>t", NULL } },
    /* measurement tools: on the canvas also the single keys l g y b e d p t and Delete */
    { "win.measure-tool::length", { "<Control><Alt>l", NULL } },
    { "win.measure-tool::angle", { "<Control><Alt>g", NULL } },
    { "win.measure-tool::polyline", { "<Control><Alt>y", NULL } },
    { "win.measure-tool::rectangle", { "<Control><Alt>b", NULL } },
    { "win.measure-tool::ellipse", { "<Control><Alt>o", NULL } },
    { "win.measure-tool::freehand", { "<Control><Alt>d", NULL } },
    { "win.measure-tool::probe", { "<Control><Alt>p", NULL } },
    { "win.measure-tool::arrow", { "<Control><Alt>t", NULL } },
    /* Escape leaves the tool when nothing is to be cancelled; after win.cancel */
    { "win.measure-leave", { "Escape", NULL } },
    { "win.measure-delete", { "<Control>Delete", NULL } },
    { "win.measurements", { "<Control><Shift>m", NULL } },
    { "win.measurements-save", { "<Control><Alt>s", NULL } },
    { "win.measurements-export", { "<Control><Alt>c", NULL } },
    { "win.benchmark-mode", { "<Control><Shift>b", NULL } },
    { "win.focus-tree", { "<Control>t", NULL } },
    { "win.search-studies", { "<Control><Shift>f", NULL } },
    { "win.focus-canvas", { "<Control>period", NULL } },
    { "win.show-help-overlay", { "<Control>question", NULL } },
  };
  g_autoptr (GtkCssProvider) css = gtk_css_provider_new ();

  G_APPLICATION_CLASS (lb_application_parent_class)->startup (app);

  /* Radiologists read in dark rooms: dark unless the user says otherwise. */
  g_object_set (gtk_settings_get_default (), "gtk-application-prefer-dark-theme", TRUE, NULL);

  g_action_map_add_action_entries (G_ACTION_MAP (app), entries, G_N_ELEMENTS (entries), app);
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (app), accels[i].action,
                                           accels[i].accels);

  gtk_css_provider_load_from_resource (css, "/io/github/lightbox/Lightbox/ui/style.css");
  gtk_style_context_add_provider_for_display (gdk_display_get_default (),
                                              GTK_STYLE_PROVIDER (css),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  gtk_window_set_default_icon_name (APP_ID);

  /* every image path (files, store downloads) reads DICOM Part 10 files too */
  lb_dicom_register_image_loader ();
  lb_pixel_cache_watch_memory ();
  /* a buffer stays at most LB_PIXEL_CACHE_IDLE_SECONDS and a half unused; seconds timers
   * share their wake-ups with the rest of the system */
  LB_APPLICATION (app)->trim_source = g_timeout_add_seconds (LB_PIXEL_CACHE_IDLE_SECONDS / 2,
                                                             trim_pixel_cache, NULL);
}

LbFilterRegistry *
lb_application_get_registry (LbApplication *self)
{
  g_return_val_if_fail (LB_IS_APPLICATION (self), NULL);
  if (self->registry == NULL)
    {
      /* Python filters load on worker threads: the Filter menu gains each one when its
       * descriptor arrives, the main loop never waits for python3 */
      self->registry = lb_filter_registry_new_default_async ();
      /* plugins added, replaced or removed while Lightbox runs update the Filter menu */
      lb_filter_registry_set_watching (self->registry, TRUE);
    }
  return self->registry;
}

static void
plugins_activated (GSimpleAction *action,
                   GVariant      *param,
                   gpointer       user_data)
{
  LbApplication *self = user_data;
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (self));

  gtk_window_present (GTK_WINDOW (lb_plugin_manager_new (lb_application_get_registry (self),
                                                         parent)));
}

static void
lb_application_dispose (GObject *object)
{
  LbApplication *self = LB_APPLICATION (object);

  g_clear_handle_id (&self->trim_source, g_source_remove);
  if (self->registry)
    lb_filter_registry_set_watching (self->registry, FALSE);
  g_clear_object (&self->registry);
  G_OBJECT_CLASS (lb_application_parent_class)->dispose (object);
}

static void
lb_application_class_init (LbApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = lb_application_dispose;
  app_class->activate = lb_application_activate;
  app_class->open = lb_application_open;
  app_class->startup = lb_application_startup;
}

static void
lb_application_init (LbApplication *self)
{
}

/* TRUE when OpenGL here can only be Mesa's software rasteriser (llvmpipe/softpipe): no DRM
 * render node (every Mesa hardware driver needs one) and no NVIDIA device, or the user forced
 * software GL. Checked from device nodes, not by creating a GL context, which would cost tens of
 * milliseconds of start-up. Xvfb on a machine that has a GPU is missed (it is software anyway);
 * GSK_RENDERER covers that case. */
static gboolean
gl_is_software (void)
{
  const char *forced = g_getenv ("LIBGL_ALWAYS_SOFTWARE");
  g_autoptr (GDir) dri = NULL;
  const char *name;

  if (forced != NULL && *forced != '\0' && g_strcmp0 (forced, "0") != 0
      && g_ascii_strcasecmp (forced, "false") != 0)
    return TRUE;
  if (g_file_test ("/dev/nvidiactl", G_FILE_TEST_EXISTS))
    return FALSE;
  dri = g_dir_open ("/dev/dri", 0, NULL);
  while (dri != NULL && (name = g_dir_read_name (dri)) != NULL)
    if (g_str_has_prefix (name, "renderD"))
      return FALSE;
  return TRUE;
}

/* GTK 4.8 uses its GL renderer whenever GL works at all, Mesa's software rasteriser included
 * (Xvfb, VMs and servers without a GPU). There a frame of the main window costs ~47 ms with GL
 * against ~14 ms with the cairo renderer (bench/ui-timing, 4096² 16-bit W/L drag, 2 cores), and
 * cold start ~460 ms against ~245 ms, so a W/L drag could not keep up with a 60 Hz display.
 * GSK reads GSK_RENDERER once, when the first surface gets a renderer, so this runs before any
 * window exists; an explicit GSK_RENDERER always wins. */
void
lb_application_pick_renderer (void)
{
  if (g_getenv ("GSK_RENDERER") != NULL)
    return;
  if (gl_is_software ())
    {
      g_debug ("no GPU for OpenGL: using the cairo renderer (set GSK_RENDERER to override)");
      g_setenv ("GSK_RENDERER", "cairo", TRUE);
    }
}

LbApplication *
lb_application_new (void)
{
  if (created_us == 0)
    created_us = g_get_monotonic_time ();
  lb_application_pick_renderer ();
  return g_object_new (LB_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN | G_APPLICATION_CAN_OVERRIDE_APP_ID,
                       "resource-base-path", "/io/github/lightbox/Lightbox",
                       NULL);
}
