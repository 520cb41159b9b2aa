/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-window"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-dialogs.h"
#include "lb-error.h"
#include "lb-window-private.h"

/* win.export-view (Ctrl+Alt+E): the viewport as the reader sees it, for a report or a
 * teaching file. GTK renders the canvas' overlay (the GtkOverlay that holds the canvas, the
 * corner texts, the orientation markers and the scale bar) to a texture with the window's own
 * renderer (gsk_renderer_render_texture), at the display's device pixels, and the PNG writer
 * (lb-png.h, through _lb_window_write_png()) saves it as 8-bit RGB on a worker thread.
 *
 * Whatever else is drawn over the canvas is burnt in the same way: measurements, once drawn
 * by a widget added as an overlay child of the canvas' GtkOverlay (its parent), appear in the
 * export without any change here. That is the hook for them. */

LbImage *
_lb_window_render_view (LbWindow *self,
                        GError  **error)
{
  GtkWidget *view = gtk_widget_get_parent (GTK_WIDGET (self->canvas));
  GtkNative *native = gtk_widget_get_native (view);
  int scale = gtk_widget_get_scale_factor (view);
  int w = gtk_widget_get_width (view), h = gtk_widget_get_height (view);
  g_autoptr (GdkPaintable) paintable = NULL;
  g_autoptr (GtkSnapshot) snapshot = NULL;
  g_autoptr (GskRenderNode) node = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  g_autoptr (LbImageMeta) meta = NULL;
  g_autofree guint8 *argb = NULL;
  guint8 *rgb;
  gsize stride;
  guint tw, th;
  LbImage *current;

  if (!lb_canvas_has_pixels (self->canvas) || native == NULL || w <= 0 || h <= 0
      || gtk_native_get_renderer (native) == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT, _("No image is shown"));
      return NULL;
    }
  /* the widget as last drawn, overlays included, in device pixels */
  paintable = gtk_widget_paintable_new (view);
  snapshot = gtk_snapshot_new ();
  gtk_snapshot_scale (snapshot, scale, scale);
  gdk_paintable_snapshot (paintable, GDK_SNAPSHOT (snapshot), w, h);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  if (node == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_FAILED, _("The view could not be drawn"));
      return NULL;
    }
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (native), node,
                                         &GRAPHENE_RECT_INIT (0, 0, w * scale, h * scale));
  tw = (guint) gdk_texture_get_width (texture);
  th = (guint) gdk_texture_get_height (texture);
  /* GDK's download format is cairo's ARGB32: premultiplied, native-endian 32-bit words */
  argb = g_malloc ((gsize) tw * th * 4);
  gdk_texture_download (texture, argb, (gsize) tw * 4);
  rgb = lb_image_alloc_pixels (tw, th, LB_FORMAT_RGB8, NULL, &stride, error);
  if (rgb == NULL)
    return NULL;
  for (guint y = 0; y < th; y++)
    {
      const guint32 *src = (const guint32 *) (argb + (gsize) y * tw * 4);
      guint8 *dst = rgb + (gsize) y * stride;

      for (guint x = 0; x < tw; x++)
        {
          guint32 p = src[x];

          /* premultiplied: the colour over black, which is what the canvas shows behind */
          dst[3 * x + 0] = (guint8) (p >> 16);
          dst[3 * x + 1] = (guint8) (p >> 8);
          dst[3 * x + 2] = (guint8) p;
        }
    }
  meta = lb_image_meta_new ();
  current = lb_canvas_get_image (self->canvas);
  if (current != NULL && lb_image_meta_get_source_uri (lb_image_get_meta (current)) != NULL)
    lb_image_meta_set_text (meta, "Source",
                            lb_image_meta_get_source_uri (lb_image_get_meta (current)));
  lb_image_meta_set_text (meta, "Software", "Lightbox " PACKAGE_VERSION);
  lb_image_meta_set_text (meta, "Description", "the view as shown, with its overlays");
  return lb_image_new_take (tw, th, LB_FORMAT_RGB8, stride, rgb, meta);
}

void
lb_window_export_view_to_path (LbWindow   *self,
                               const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (LbImage) image = NULL;
  g_autofree char *done = NULL;

  g_return_if_fail (LB_IS_WINDOW (self));
  image = _lb_window_render_view (self, &error);
  if (image == NULL)
    {
      _lb_window_show_error (self, _("Could not export the view"), error);
      return;
    }
  /* not a result of the history: exporting the view saves nothing of it */
  done = g_strdup_printf (_("View exported to %s"), path);
  _lb_window_write_png (self, image, NULL, path, _("Exporting the view"), done,
                        _("Could not export the view"));
}

static void
on_path_chosen (GFile    *file,
                gpointer  user_data)
{
  LbWindow *self = user_data;
  g_autofree char *path = file ? g_file_get_path (file) : NULL;

  if (path != NULL)
    lb_window_export_view_to_path (self, path);
  g_object_unref (self);
}

static void
export_view_activated (GSimpleAction *action,
                       GVariant      *param,
                       gpointer       user_data)
{
  LbWindow *self = user_data;
  g_autofree char *base = NULL, *name = NULL;
  char *dot;
  LbFileDialogOptions options = { .title = _("Export View as PNG"),
                                  .accept_label = _("_Export") };

  if (!lb_canvas_has_pixels (self->canvas) || self->busy)
    return;
  base = g_strdup (self->image_name ? self->image_name : "image");
  if ((dot = strrchr (base, '.')) != NULL && dot != base)
    *dot = '\0';
  /* TRANSLATORS: the proposed file name of an exported view; %s is the image's name */
  name = g_strdup_printf (_("%s-view.png"), base);
  options.initial_name = name;
  /* the file dialog may outlive the window */
  lb_dialogs_save_file (GTK_WINDOW (self), &options, on_path_chosen, g_object_ref (self));
}

static void
on_has_pixels (LbCanvas   *canvas,
               GParamSpec *pspec,
               LbWindow   *self)
{
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self),
                                                                            "export-view")),
                               lb_canvas_has_pixels (canvas));
}

void
_lb_window_export_view_init (LbWindow *self)
{
  static const GActionEntry entries[] = {
    { .name = "export-view", .activate = export_view_activated },
  };

  g_action_map_add_action_entries (G_ACTION_MAP (self), entries, G_N_ELEMENTS (entries), self);
  g_signal_connect (self->canvas, "notify::has-pixels", G_CALLBACK (on_has_pixels), self);
  on_has_pixels (self->canvas, NULL, self);
}
