/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-window"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-overlay-info.h"
#include "lb-window-private.h"

/* The overlay over the canvas (win.overlay): the four corner texts and the orientation
 * markers at the edges, from lb-overlay-info. They are labels, not pixels of the image, so
 * their font stays the same at any zoom; the markers follow the canvas' rotation and flip.
 * The data set is the slice's for a series; other images show the view lines only. A rotated,
 * flipped or inverted view is marked above W/L and zoom. The scale bar (lb-window-nav.c)
 * shows and hides with the rest. */

static gboolean
overlay_on (LbWindow *self)
{
  g_autoptr(GVariant) state = g_action_group_get_action_state (G_ACTION_GROUP (self),
                                                               "overlay");

  return state != NULL && g_variant_get_boolean (state);
}

/* NULL for the image as stored. The canvas holds a vertical flip as a horizontal one turned
 * by half (win.flip-vertical), so a half turn with a flip reads as the vertical flip. */
static char *
transform_mark (const LbOverlayView *view, gboolean inverted)
{
  guint degrees = (view->rotation % 4) * 90;
  char *geometry = NULL;

  if (!lb_overlay_view_is_transformed (view))
    geometry = NULL;
  else if (degrees == 180 && view->flip_h)
    geometry = g_strdup (_("Flipped vertically"));
  else if (degrees == 0)
    geometry = g_strdup (_("Flipped"));
  else if (view->flip_h)
    /* TRANSLATORS: a view turned clockwise and flipped, "Rotated 90°, flipped" */
    geometry = g_strdup_printf (_("Rotated %u°, flipped"), degrees);
  else
    /* TRANSLATORS: a view turned clockwise, "Rotated 90°" */
    geometry = g_strdup_printf (_("Rotated %u°"), degrees);
  if (!inverted)
    return geometry;
  if (geometry == NULL)
    return g_strdup (_("Inverted"));
  {
    /* TRANSLATORS: a turned or flipped view that also shows its greys inverted,
     * "Rotated 90°, inverted" */
    char *both = g_strdup_printf (_("%s, inverted"), geometry);

    g_free (geometry);
    return both;
  }
}

/* Each viewport has its overlay: the active one's stack is the window's, another's is in its
 * state. */
void
_lb_window_overlay_update_viewport (LbWindow *self, LbViewport *viewport)
{
  LbCanvas *canvas = lb_viewport_get_canvas (viewport);
  gboolean active = viewport == _lb_window_viewports_get_active (self);
  LbFrameSource *frames = active ? self->frames : lb_viewport_get_state (viewport)->frames;
  guint frame = active ? self->frame : lb_viewport_get_state (viewport)->frame;
  LbImage *image = lb_canvas_get_image (canvas);
  const LbDicomDataset *ds = NULL;
  g_autoptr(LbDicomDataset) empty = NULL;
  gboolean on = image != NULL && overlay_on (self);
  gboolean markers = FALSE;
  char letters[4][3];
  LbOverlayView view = { 0 };

  if (on)
    {
      if (frames != NULL && frame > 0)
        ds = lb_frame_source_get_dataset (frames, frame);
      if (ds == NULL)
        ds = empty = lb_dicom_dataset_new ();
      view.rotation = lb_canvas_get_rotation (canvas);
      view.flip_h = lb_canvas_get_flip (canvas);
      view.zoom = lb_canvas_get_zoom (canvas);
      view.has_window = lb_canvas_get_value_model (canvas) != NULL;
      lb_canvas_get_window (canvas, &view.window_center, &view.window_width);
      view.window_units = lb_canvas_get_units_label (canvas);
      if (frames != NULL && lb_frame_source_is_series (frames) && frame > 0)
        {
          view.slice_index = frame - 1;
          view.n_slices = lb_frame_source_get_n_frames (frames);
          view.has_location = lb_frame_source_get_location (frames, frame, &view.location);
        }
      for (guint c = 0; c < 4; c++)
        {
          g_autofree char *text = lb_overlay_corner_text (ds, &view, c);

          /* a view that is not the image as stored says so where W/L and zoom are */
          g_autofree char *mark = c == LB_OVERLAY_BOTTOM_RIGHT
                                  ? transform_mark (&view, lb_canvas_get_invert (canvas))
                                  : NULL;

          if (mark != NULL)
            {
              char *both = g_strconcat (mark, *text ? "\n" : "", text, NULL);

              g_free (text);
              text = both;
            }

          gtk_label_set_text (GTK_LABEL (lb_viewport_get_corner (viewport, c)), text);
          gtk_widget_set_visible (lb_viewport_get_corner (viewport, c), *text != '\0');
        }
      markers = lb_overlay_dataset_markers (ds, &view, letters);
    }
  else
    for (guint c = 0; c < 4; c++)
      gtk_widget_set_visible (lb_viewport_get_corner (viewport, c), FALSE);
  for (guint e = 0; e < 4; e++)
    {
      GtkWidget *edge = lb_viewport_get_edge (viewport, e);

      gtk_label_set_text (GTK_LABEL (edge), markers ? letters[e] : "");
      gtk_widget_set_visible (edge, markers && letters[e][0] != '\0');
    }
  lb_viewport_update_scale_bar (viewport, overlay_on (self));
}

void
_lb_window_overlay_update (LbWindow *self)
{
  LbViewport *active = _lb_window_viewports_get_active (self);

  if (active != NULL)
    _lb_window_overlay_update_viewport (self, active);
}

static void
overlay_change_state (GSimpleAction *action, GVariant *state, gpointer user_data)
{
  LbWindow *self = user_data;

  g_simple_action_set_state (action, state);
  for (guint i = 0; i < LB_VIEWPORT_GRID_MAX; i++)
    _lb_window_overlay_update_viewport (self, lb_viewport_grid_get_viewport (
                                          LB_VIEWPORT_GRID (self->viewport_grid), i));
}

static void
on_canvas_view (LbCanvas *canvas, GParamSpec *pspec, LbWindow *self)
{
  GtkWidget *viewport = gtk_widget_get_ancestor (GTK_WIDGET (canvas), LB_TYPE_VIEWPORT);

  if (viewport != NULL)
    _lb_window_overlay_update_viewport (self, LB_VIEWPORT (viewport));
}

void
_lb_window_overlay_init (LbWindow *self)
{
  static const GActionEntry entries[] = {
    { .name = "overlay", .state = "true", .change_state = overlay_change_state },
  };
  static const char *const view_props[] = {
    "notify::zoom", "notify::window-center", "notify::window-width", "notify::rotation",
    "notify::flip", "notify::invert", "notify::value-model", "notify::has-pixels",
  };

  g_action_map_add_action_entries (G_ACTION_MAP (self), entries, G_N_ELEMENTS (entries), self);
  for (guint v = 0; v < LB_VIEWPORT_GRID_MAX; v++)
    for (guint i = 0; i < G_N_ELEMENTS (view_props); i++)
      g_signal_connect (lb_viewport_get_canvas (lb_viewport_grid_get_viewport (
                          LB_VIEWPORT_GRID (self->viewport_grid), v)),
                        view_props[i], G_CALLBACK (on_canvas_view), self);
  _lb_window_overlay_update (self);
}
