/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-window"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-dicom-tags.h"
#include "lb-plane-geometry.h"
#include "lb-window-private.h"

/* The viewports (LbViewportGrid): layouts (win.layout "1x1", "1x2", "2x1", "2x2": rows ×
 * columns), the active viewport, a series dropped on a viewport, synchronised scrolling
 * (win.sync-scroll), linked window/level (win.link-wl) and reference lines
 * (win.reference-lines).
 *
 * The window's fields that describe what is shown (history, image name, frames, frame) and
 * its widget pointers (canvas, overlay labels, spinner, scale bar) are the active viewport's:
 * activating another viewport puts the first into its LbViewportState and takes the other's
 * out, so that every command of the window acts on the active viewport as it did on the one
 * canvas. A viewport that is not active shows the slices synchronised scrolling asks for by
 * itself (lb_viewport_show_slice()). */

/* Planes whose normals are further apart than this are not parallel: synchronised scrolling
 * leaves such series alone (an axial and a sagittal series have no "same slice"). */
#define SYNC_PARALLEL_DEGREES 1.0

static LbViewport *
active_viewport (LbWindow *self)
{
  return lb_viewport_grid_get_active (LB_VIEWPORT_GRID (self->viewport_grid));
}

static gboolean
toggle_on (LbWindow *self, const char *name)
{
  g_autoptr(GVariant) state = g_action_group_get_action_state (G_ACTION_GROUP (self), name);

  return state != NULL && g_variant_get_boolean (state);
}

/* The stack and slice @vp shows: the window's for the active viewport. */
static void
viewport_shows (LbWindow *self, LbViewport *vp, LbFrameSource **frames, guint *frame)
{
  LbViewportState *st = lb_viewport_get_state (vp);

  *frames = vp == active_viewport (self) ? self->frames : st->frames;
  *frame = vp == active_viewport (self) ? self->frame : st->frame;
}

/* The data set of the slice @vp shows, NULL unless it shows a slice of a series. */
static const LbDicomDataset *
viewport_dataset (LbWindow *self, LbViewport *vp)
{
  LbFrameSource *frames;
  guint frame;

  viewport_shows (self, vp, &frames, &frame);
  if (frames == NULL || frame == 0 || !lb_frame_source_is_series (frames))
    return NULL;
  return lb_frame_source_get_dataset (frames, frame);
}

static gboolean
same_frame_of_reference (const LbDicomDataset *a, const LbDicomDataset *b)
{
  const char *ua = lb_dicom_dataset_get_string (a, LB_TAG_FRAME_OF_REFERENCE_UID, 0);
  const char *ub = lb_dicom_dataset_get_string (b, LB_TAG_FRAME_OF_REFERENCE_UID, 0);

  return ua != NULL && g_strcmp0 (ua, ub) == 0;
}

/* ---- reference lines and synchronised scrolling ------------------------------------------ */

static void
update_reference_lines (LbWindow *self)
{
  LbViewportGrid *grid = LB_VIEWPORT_GRID (self->viewport_grid);
  LbViewport *active = active_viewport (self);
  const LbDicomDataset *ads = viewport_dataset (self, active);
  LbPlane a, b;
  gboolean have = toggle_on (self, "reference-lines") && ads != NULL
                  && lb_plane_from_dataset (&a, ads);

  for (guint i = 0; i < LB_VIEWPORT_GRID_MAX; i++)
    {
      LbViewport *vp = lb_viewport_grid_get_viewport (grid, i);
      const LbDicomDataset *ds = vp != active && have && i < lb_viewport_grid_get_n_shown (grid)
                                 ? viewport_dataset (self, vp) : NULL;
      double ij[4];

      if (ds != NULL && same_frame_of_reference (ads, ds) && lb_plane_from_dataset (&b, ds)
          && lb_plane_reference_line (&a, &b, ij))
        lb_viewport_set_reference_line (vp, ij);
      else
        lb_viewport_set_reference_line (vp, NULL);
    }
}

/* The other viewports that show a series of the active slice's frame of reference in parallel
 * planes go to their slice nearest to it: the active slice's position (ImagePositionPatient)
 * projected on each slice's normal, the smallest distance wins (PS3.3 C.7.6.2.1.1). */
static void
sync_others (LbWindow *self)
{
  LbViewportGrid *grid = LB_VIEWPORT_GRID (self->viewport_grid);
  LbViewport *active = active_viewport (self);
  const LbDicomDataset *ads = viewport_dataset (self, active);
  LbPlane a;

  if (ads == NULL || !lb_plane_from_dataset (&a, ads))
    return;
  for (guint i = 0; i < lb_viewport_grid_get_n_shown (grid); i++)
    {
      LbViewport *vp = lb_viewport_grid_get_viewport (grid, i);
      LbViewportState *st = lb_viewport_get_state (vp);
      g_autofree LbPlane *planes = NULL;
      guint n;
      int k;

      if (vp == active || st->frames == NULL || !lb_frame_source_is_series (st->frames))
        continue;
      n = lb_frame_source_get_n_frames (st->frames);
      planes = g_new (LbPlane, n);
      for (guint s = 0; s < n; s++)
        {
          const LbDicomDataset *ds = lb_frame_source_get_dataset (st->frames, s + 1);

          /* one slice without its geometry or of another frame of reference: no sync */
          if (ds == NULL || !same_frame_of_reference (ads, ds)
              || !lb_plane_from_dataset (&planes[s], ds)
              || !lb_plane_is_parallel (&a, &planes[s], SYNC_PARALLEL_DEGREES))
            {
              n = 0;
              break;
            }
        }
      k = lb_plane_nearest (planes, n, a.origin);
      if (k >= 0 && (guint) k + 1 != st->frame)
        lb_viewport_show_slice (vp, (guint) k + 1);
    }
}

void
_lb_window_viewports_follow (LbWindow *self)
{
  if (self->viewport_grid == NULL)
    return;
  if (self->frames != self->follow_frames || self->frame != self->follow_frame)
    {
      g_set_object (&self->follow_frames, self->frames);
      self->follow_frame = self->frame;
      if (toggle_on (self, "sync-scroll") && self->frame > 0)
        sync_others (self);
    }
  update_reference_lines (self);
}

/* ---- linked window/level ---------------------------------------------------------------- */

static void
link_windows (LbWindow *self)
{
  LbViewportGrid *grid = LB_VIEWPORT_GRID (self->viewport_grid);
  double c, w;

  if (self->linking || !lb_canvas_has_pixels (self->canvas) || lb_canvas_get_voi_lut (self->canvas) >= 0)
    return;
  lb_canvas_get_window (self->canvas, &c, &w);
  self->linking = TRUE;
  for (guint i = 0; i < lb_viewport_grid_get_n_shown (grid); i++)
    {
      LbCanvas *other = lb_viewport_get_canvas (lb_viewport_grid_get_viewport (grid, i));

      if (other != self->canvas && lb_canvas_has_pixels (other))
        lb_canvas_set_window (other, c, w);
    }
  self->linking = FALSE;
}

static void
on_canvas_window (LbCanvas *canvas, GParamSpec *pspec, LbWindow *self)
{
  if (canvas == self->canvas && toggle_on (self, "link-wl"))
    link_windows (self);
}

/* ---- the active viewport ------------------------------------------------------------------ */

static void
point_at (LbWindow *self, LbViewport *vp)
{
  self->canvas = lb_viewport_get_canvas (vp);
  for (guint c = 0; c < 4; c++)
    {
      self->overlay_corner[c] = lb_viewport_get_corner (vp, c);
      self->overlay_edge[c] = lb_viewport_get_edge (vp, c);
    }
  self->empty_label = lb_viewport_get_empty_label (vp);
  self->canvas_spinner = lb_viewport_get_spinner (vp);
  self->scale_bar = lb_viewport_get_scale_bar (vp, NULL);
}

/* Makes @vp the active viewport; FALSE (and says why) while a task of the active one runs. */
gboolean
_lb_window_viewports_activate (LbWindow *self, LbViewport *vp)
{
  LbViewportGrid *grid = LB_VIEWPORT_GRID (self->viewport_grid);
  LbViewport *old = active_viewport (self);
  LbViewportState *os = lb_viewport_get_state (old), *ns = lb_viewport_get_state (vp);
  g_autoptr(LbHistory) history = NULL;
  guint old_frame = 0, pending = 0;

  if (vp == old)
    return TRUE;
  if ((guint) lb_viewport_grid_index_of (grid, vp) >= lb_viewport_grid_get_n_shown (grid))
    return FALSE;
  /* a filter, upload or image download delivers to the window's current image, and a filter
   * dialog previews on the window's canvas */
  if (self->busy || self->load_cancellable != NULL || self->param_dialog != NULL
      || self->upload_dialog != NULL)
    {
      _lb_window_set_status (self, _("Another viewport becomes active when the running task "
                                     "ends or is cancelled (Escape)."));
      return FALSE;
    }
  /* cine plays the active viewport */
  if (toggle_on (self, "cine"))
    g_action_group_change_action_state (G_ACTION_GROUP (self), "cine",
                                        g_variant_new_boolean (FALSE));
  /* a slice on its way to the old viewport: it fetches the one it shows by itself */
  if (self->frame_loading)
    {
      if (self->frame_cancellable != NULL)
        g_cancellable_cancel (self->frame_cancellable);
      self->frame_serial++;
      self->frame_loading = FALSE;
      gtk_spinner_set_spinning (GTK_SPINNER (self->canvas_spinner), FALSE);
      /* the viewport shows its slice by itself: no "loading" veil left on its canvas */
      lb_canvas_set_loading (self->canvas, NULL);
      old_frame = self->frame > 0 ? self->frame : 1;
    }

  lb_viewport_clear_state (old);
  os->history = self->history != NULL ? g_object_ref (self->history) : NULL;
  os->image_name = g_strdup (self->image_name);
  os->frames = g_steal_pointer (&self->frames);
  os->frame = self->frame;
  /* each viewport's series goes on loading in the background */
  os->loader = g_steal_pointer (&self->series_loader);

  lb_viewport_cancel_slice (vp, &pending);
  history = g_steal_pointer (&ns->history);
  g_free (self->image_name);
  self->image_name = g_steal_pointer (&ns->image_name);
  self->frames = g_steal_pointer (&ns->frames);
  self->frame = ns->frame;
  ns->frame = 0;
  self->series_loader = g_steal_pointer (&ns->loader);
  self->frame_first = self->frame == 0;

  point_at (self, vp);
  lb_viewport_grid_set_active (grid, vp);
  _lb_window_set_history (self, history);
  if (old_frame > 0)
    lb_viewport_show_slice (old, old_frame);
  /* activating is not scrolling: the others stay where they are */
  g_set_object (&self->follow_frames, self->frames);
  self->follow_frame = self->frame;
  _lb_window_frames_refresh (self);
  _lb_window_canvas_changed (self);
  _lb_window_overlay_update (self);
  if (self->image_name != NULL)
    {
      g_autofree char *title = g_strdup_printf ("%s — Lightbox", self->image_name);

      gtk_window_set_title (GTK_WINDOW (self), title);
    }
  _lb_window_update_actions (self);
  if (pending > 0)
    g_action_group_activate_action (G_ACTION_GROUP (self), "go-to-frame",
                                    g_variant_new_uint32 (pending));
  return TRUE;
}

static void
on_request_active (LbViewport *vp, LbWindow *self)
{
  _lb_window_viewports_activate (self, vp);
}

static void
on_slice_shown (LbViewport *vp, LbWindow *self)
{
  _lb_window_overlay_update_viewport (self, vp);
  update_reference_lines (self);
}

/* ---- a URI dropped on a viewport ---------------------------------------------------------- */

static void
on_dropped_stat (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(LbWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStoreEntry) entry = lb_store_stat_finish (LB_STORE (source), result, &error);

  if (entry == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _lb_window_show_error (self, _("Could not open the dropped item"), error);
      return;
    }
  _lb_window_open_entry (self, entry);
}

void
_lb_window_viewports_open_uri (LbWindow *self, const char *uri)
{
  g_autofree char *scheme = g_uri_parse_scheme (uri);

  /* a row of the store tree (or the study panel) of the store that is open */
  if (self->store != NULL && g_str_has_prefix (uri, lb_store_get_uri (self->store)))
    {
      GListModel *rows = lb_store_browser_get_rows (self->browser);

      for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
        {
          LbStoreEntry *entry = lb_store_browser_get_entry (self->browser, i);

          if (entry != NULL && g_strcmp0 (lb_store_entry_get_uri (entry), uri) == 0)
            {
              _lb_window_open_entry (self, entry);
              return;
            }
        }
      lb_store_stat_async (self->store, uri, NULL, on_dropped_stat, g_object_ref (self));
      return;
    }
  if (scheme != NULL && g_ascii_strcasecmp (scheme, "file") == 0)
    {
      g_autoptr(GFile) file = g_file_new_for_uri (uri);

      if (g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, NULL) == G_FILE_TYPE_DIRECTORY)
        _lb_window_frames_open_folder (self, file);
      else
        lb_window_open_image_file (self, file);
      return;
    }
  lb_window_open_uri (self, uri);
}

static void
on_open_uri (LbViewport *vp, const char *uri, LbWindow *self)
{
  if (_lb_window_viewports_activate (self, vp))
    _lb_window_viewports_open_uri (self, uri);
}

/* ---- actions ------------------------------------------------------------------------------ */

static void
layout_change_state (GSimpleAction *action, GVariant *state, gpointer user_data)
{
  LbWindow *self = user_data;
  const char *name = g_variant_get_string (state, NULL);
  LbViewportGrid *grid = LB_VIEWPORT_GRID (self->viewport_grid);
  LbViewport *keep;
  guint rows, columns;

  if (strlen (name) != 3 || name[1] != 'x' || (name[0] != '1' && name[0] != '2')
      || (name[2] != '1' && name[2] != '2'))
    return;
  rows = (guint) (name[0] - '0');
  columns = (guint) (name[2] - '0');
  /* the active viewport hidden by the new layout: the first takes over (as the window's) */
  if ((guint) lb_viewport_grid_index_of (grid, active_viewport (self)) >= rows * columns
      && !_lb_window_viewports_activate (self, lb_viewport_grid_get_viewport (grid, 0)))
    return;
  g_simple_action_set_state (action, state);
  keep = active_viewport (self);
  lb_viewport_grid_set_layout (grid, rows, columns);
  g_warn_if_fail (keep == active_viewport (self));
  update_reference_lines (self);
  gtk_widget_grab_focus (GTK_WIDGET (self->canvas));
}

static void
sync_change_state (GSimpleAction *action, GVariant *state, gpointer user_data)
{
  LbWindow *self = user_data;

  g_simple_action_set_state (action, state);
  if (g_variant_get_boolean (state) && self->frame > 0)
    sync_others (self);
}

static void
link_change_state (GSimpleAction *action, GVariant *state, gpointer user_data)
{
  LbWindow *self = user_data;

  g_simple_action_set_state (action, state);
  if (g_variant_get_boolean (state))
    link_windows (self);
}

static void
lines_change_state (GSimpleAction *action, GVariant *state, gpointer user_data)
{
  g_simple_action_set_state (action, state);
  update_reference_lines (user_data);
}

static void
next_viewport_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  LbWindow *self = user_data;
  LbViewportGrid *grid = LB_VIEWPORT_GRID (self->viewport_grid);
  guint n = lb_viewport_grid_get_n_shown (grid);
  guint i = (guint) lb_viewport_grid_index_of (grid, active_viewport (self));

  if (_lb_window_viewports_activate (self, lb_viewport_grid_get_viewport (grid, (i + 1) % n)))
    gtk_widget_grab_focus (GTK_WIDGET (self->canvas));
}

static GtkWidget *
make_layout_button (LbWindow *self)
{
  g_autoptr(GMenu) menu = g_menu_new ();
  g_autoptr(GMenu) layouts = g_menu_new ();
  g_autoptr(GMenu) links = g_menu_new ();
  GtkWidget *button = gtk_menu_button_new ();

  g_menu_append (layouts, _("_1 × 1"), "win.layout::1x1");
  g_menu_append (layouts, _("1 × _2 Side by Side"), "win.layout::1x2");
  g_menu_append (layouts, _("2 × 1 _Stacked"), "win.layout::2x1");
  g_menu_append (layouts, _("2 × 2 _Grid"), "win.layout::2x2");
  g_menu_append (links, _("S_ynchronised Scrolling"), "win.sync-scroll");
  g_menu_append (links, _("_Linked Window/Level"), "win.link-wl");
  g_menu_append (links, _("_Reference Lines"), "win.reference-lines");
  g_menu_append (links, _("_Next Viewport"), "win.next-viewport");
  g_menu_append_section (menu, NULL, G_MENU_MODEL (layouts));
  g_menu_append_section (menu, NULL, G_MENU_MODEL (links));
  gtk_widget_set_name (button, "layout_button");
  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (button), "view-grid-symbolic");
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (button), G_MENU_MODEL (menu));
  gtk_widget_set_tooltip_text (button, _("Viewport layout"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Viewport Layout"), -1);
  return button;
}

void
_lb_window_viewports_init (LbWindow *self)
{
  static const GActionEntry entries[] = {
    { .name = "layout", .parameter_type = "s", .state = "'1x1'",
      .change_state = layout_change_state },
    { .name = "sync-scroll", .state = "false", .change_state = sync_change_state },
    { .name = "link-wl", .state = "false", .change_state = link_change_state },
    { .name = "reference-lines", .state = "true", .change_state = lines_change_state },
    { .name = "next-viewport", .activate = next_viewport_activated },
  };
  LbViewportGrid *grid = LB_VIEWPORT_GRID (self->viewport_grid);

  g_action_map_add_action_entries (G_ACTION_MAP (self), entries, G_N_ELEMENTS (entries), self);
  point_at (self, active_viewport (self));
  for (guint i = 0; i < LB_VIEWPORT_GRID_MAX; i++)
    {
      LbViewport *vp = lb_viewport_grid_get_viewport (grid, i);
      LbCanvas *canvas = lb_viewport_get_canvas (vp);

      g_signal_connect (vp, "request-active", G_CALLBACK (on_request_active), self);
      g_signal_connect (vp, "open-uri", G_CALLBACK (on_open_uri), self);
      g_signal_connect (vp, "slice-shown", G_CALLBACK (on_slice_shown), self);
      g_signal_connect (canvas, "notify::window-center", G_CALLBACK (on_canvas_window), self);
      g_signal_connect (canvas, "notify::window-width", G_CALLBACK (on_canvas_window), self);
    }
  gtk_header_bar_pack_end (GTK_HEADER_BAR (self->header_bar), make_layout_button (self));
}

void
_lb_window_viewports_dispose (LbWindow *self)
{
  if (self->viewport_grid != NULL)
    for (guint i = 0; i < LB_VIEWPORT_GRID_MAX; i++)
      {
        LbViewport *vp = lb_viewport_grid_get_viewport (LB_VIEWPORT_GRID (self->viewport_grid), i);

        g_signal_handlers_disconnect_by_data (vp, self);
        g_signal_handlers_disconnect_by_data (lb_viewport_get_canvas (vp), self);
        lb_viewport_clear_state (vp);
      }
  g_clear_object (&self->follow_frames);
}

LbViewport *
_lb_window_viewports_get_active (LbWindow *self)
{
  return self->viewport_grid != NULL ? active_viewport (self) : NULL;
}
