/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-window"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "lb-dicom-file.h"
#include "lb-messages.h"
#include "lb-store-dataset.h"
#include "lb-tag-browser.h"
#include "lb-window-private.h"

/* Reading a stack: the bar under the canvas (the slice slider with N/M and the location, the
 * cine controls: play, frames per second, loop or bounce), the wheel and Up/Down paging on
 * the canvas, window and level typed as numbers (win.wl-edit, a popover of the header bar),
 * the vertical flip, full screen (win.fullscreen), the scale bar drawn with the overlay and
 * the DICOM tag browser of the slice shown (win.tag-browser).
 * Stepping itself is lb-window-frames.c's (win.go-to-frame and the others). */

/* Cine speed when the object gives none (frames per second). */
#define DEFAULT_CINE_FPS 10.0
#define MAX_CINE_FPS 60.0

static gboolean
action_state (LbWindow *self, const char *name)
{
  g_autoptr(GVariant) state = g_action_group_get_action_state (G_ACTION_GROUP (self), name);

  return state != NULL && g_variant_get_boolean (state);
}

/* ---- the tag browser ------------------------------------------------------------------- */

typedef struct {
  LbWindow *self;  /* a reference: the read is cancelled on dispose */
  char     *uri;
} TagRead;

/* The data set of a store's image arrived (or not): shown if the browser still waits for it. */
static void
on_tag_dataset (GObject *source, GAsyncResult *result, gpointer user_data)
{
  TagRead *tr = user_data;
  LbWindow *self = tr->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(LbDicomDataset) ds = lb_store_read_dataset_finish (LB_STORE (source), result,
                                                               &error);
  g_autofree char *name = _lb_window_image_title (self);

  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) && self->tag_browser != NULL
      && g_strcmp0 (tr->uri, self->tag_uri) == 0)
    {
      g_autofree char *why = NULL;

      if (ds == NULL)
        {
          const char *plain = lb_messages_explain (error);

          g_message ("the tags of %s: %s", tr->uri, error->message);
          why = g_strdup_printf (_("No DICOM tags: %s"), plain ? plain : error->message);
        }
      lb_tag_browser_set_dataset (LB_TAG_BROWSER (self->tag_browser), ds, name, why);
    }
  g_object_unref (tr->self);
  g_free (tr->uri);
  g_free (tr);
}

static void
cancel_tag_read (LbWindow *self)
{
  if (self->tag_cancellable != NULL)
    g_cancellable_cancel (self->tag_cancellable);
  g_clear_object (&self->tag_cancellable);
}

/* The data set of @uri, an image of the window's store (over HTTP, WebDAV or DICOMweb), read
 * in the background; the browser says so meanwhile. */
static void
read_store_tags (LbWindow *self, const char *uri)
{
  g_autofree char *name = _lb_window_image_title (self);
  TagRead *tr;

  if (self->store == NULL || !g_str_has_prefix (uri, lb_store_get_uri (self->store)))
    {
      lb_tag_browser_set_dataset (LB_TAG_BROWSER (self->tag_browser), NULL, name,
                                  _("The tags are shown for DICOM files and series of the "
                                    "open store."));
      return;
    }
  lb_tag_browser_set_dataset (LB_TAG_BROWSER (self->tag_browser), NULL, name,
                              _("Reading the tags…"));
  self->tag_cancellable = g_cancellable_new ();
  tr = g_new0 (TagRead, 1);
  tr->self = g_object_ref (self);
  tr->uri = g_strdup (uri);
  lb_store_read_dataset_async (self->store, uri, self->tag_cancellable, on_tag_dataset, tr);
}

/* The browser follows the slice shown: a series' slice from the headers already read, a local
 * file's image from its header (read again only for another file), a store's image from its
 * data set read over the network (again only for another image) while the browser is open. */
static void
update_tag_browser (LbWindow *self)
{
  LbTagBrowser *browser = LB_TAG_BROWSER (self->tag_browser);
  /* the image as read (the canvas gets it after the frames are set up) */
  LbImage *image = self->history != NULL ? lb_history_get_original (self->history) : NULL;
  const char *uri = image ? lb_image_meta_get_source_uri (lb_image_get_meta (image)) : NULL;
  g_autofree char *name = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(LbDicomFile) dicom = NULL;

  if (browser == NULL || !gtk_widget_get_visible (self->tag_browser))
    return;
  if (self->frames != NULL && lb_frame_source_is_series (self->frames) && self->frame > 0)
    {
      g_autofree char *title = g_strdup_printf (_("slice %u/%u"), self->frame,
                                                lb_frame_source_get_n_frames (self->frames));

      cancel_tag_read (self);
      g_clear_pointer (&self->tag_uri, g_free);
      lb_tag_browser_set_dataset (browser, lb_frame_source_get_dataset (self->frames,
                                                                        self->frame),
                                  title, NULL);
      return;
    }
  if (uri != NULL && g_strcmp0 (uri, self->tag_uri) == 0)
    return;
  cancel_tag_read (self);
  g_free (self->tag_uri);
  self->tag_uri = g_strdup (uri);
  if (uri == NULL)
    {
      lb_tag_browser_set_dataset (browser, NULL, NULL, _("No image is open."));
      return;
    }
  if (!g_str_has_prefix (uri, "file:"))
    {
      read_store_tags (self, uri);
      return;
    }
  name = _lb_window_image_title (self);
  file = g_file_new_for_uri (uri);
  dicom = lb_dicom_file_read_header (file, NULL, &error);
  if (dicom == NULL)
    {
      g_autofree char *why = g_strdup_printf (_("No DICOM tags: %s"), error->message);

      lb_tag_browser_set_dataset (browser, NULL, name, why);
      return;
    }
  lb_tag_browser_set_dataset (browser, lb_dicom_file_get_dataset (dicom), name, NULL);
}

/* Closing the browser drops a read of tags no one waits for; opening it again reads anew. */
static void
on_tag_browser_hidden (GtkWidget *browser, LbWindow *self)
{
  cancel_tag_read (self);
  g_clear_pointer (&self->tag_uri, g_free);
}

static void
tag_browser_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  LbWindow *self = user_data;

  if (self->tag_browser == NULL)
    {
      self->tag_browser = GTK_WIDGET (lb_tag_browser_new (GTK_WINDOW (self)));
      /* the toplevel list owns it; whoever destroys it first, the pointer follows */
      g_object_add_weak_pointer (G_OBJECT (self->tag_browser), (gpointer *) &self->tag_browser);
      g_signal_connect_object (self->tag_browser, "hide", G_CALLBACK (on_tag_browser_hidden),
                               self, 0);
    }
  g_clear_pointer (&self->tag_uri, g_free);
  gtk_window_present (GTK_WINDOW (self->tag_browser));
  update_tag_browser (self);
}

/* ---- the slice slider and the cine controls ---------------------------------------------- */

void
_lb_window_nav_update (LbWindow *self)
{
  guint n = self->frames != NULL ? lb_frame_source_get_n_frames (self->frames) : 0;
  gboolean stack = n > 1;
  g_autofree char *text = NULL;
  double mm;

  _lb_window_viewports_follow (self);
  if (self->nav_bar == NULL)
    return;
  update_tag_browser (self);
  if (self->frames != self->nav_frames)
    {
      /* a new stack: its own cine rate, forwards */
      double interval = self->frames != NULL ? lb_frame_source_get_interval (self->frames) : 0;

      g_set_object (&self->nav_frames, self->frames);
      self->cine_step = 1;
      self->nav_updating = TRUE;
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->cine_fps_spin),
                                 interval > 0 ? CLAMP (1.0 / interval, 1.0, MAX_CINE_FPS)
                                              : DEFAULT_CINE_FPS);
      self->nav_updating = FALSE;
    }
  lb_canvas_set_stack_navigation (self->canvas, stack);
  gtk_widget_set_visible (self->nav_bar, stack && !action_state (self, "fullscreen"));
  if (!stack)
    return;
  self->nav_updating = TRUE;
  gtk_range_set_range (GTK_RANGE (self->slice_scale), 1, n);
  if (self->frame > 0)
    gtk_range_set_value (GTK_RANGE (self->slice_scale), self->frame);
  self->nav_updating = FALSE;
  gtk_widget_set_sensitive (self->slice_scale, self->frame > 0);
  if (self->frame == 0)
    text = g_strdup ("");
  else if (lb_frame_source_is_series (self->frames)
           && lb_frame_source_get_location (self->frames, self->frame, &mm))
    /* TRANSLATORS: the slider's slice and its location along the slice normal,
     * "3/40 · −12.5 mm" */
    text = g_strdup_printf (_("%u/%u · %.1f mm"), self->frame, n, mm);
  else
    text = g_strdup_printf ("%u/%u", self->frame, n);
  gtk_label_set_text (GTK_LABEL (self->slice_scale_label), text);
}

static void
on_slice_scale_changed (GtkRange *range, LbWindow *self)
{
  guint number = (guint) lround (gtk_range_get_value (range));

  if (self->nav_updating || self->frames == NULL || number == self->frame)
    return;
  g_action_group_activate_action (G_ACTION_GROUP (self), "go-to-frame",
                                  g_variant_new_uint32 (number));
}

double
_lb_window_nav_cine_fps (LbWindow *self)
{
  if (self->cine_fps_spin == NULL)
    return DEFAULT_CINE_FPS;
  return CLAMP (gtk_spin_button_get_value (GTK_SPIN_BUTTON (self->cine_fps_spin)), 1.0,
                MAX_CINE_FPS);
}

guint
_lb_window_nav_cine_next (LbWindow *self)
{
  guint n = lb_frame_source_get_n_frames (self->frames);

  if (n < 2)
    return 1;
  if (!action_state (self, "cine-bounce"))
    return self->frame % n + 1;
  /* bounce: turn at either end */
  if ((self->cine_step > 0 && self->frame >= n) || (self->cine_step < 0 && self->frame <= 1))
    self->cine_step = -self->cine_step;
  return CLAMP ((int) self->frame + self->cine_step, 1, (int) n);
}

static void
restart_cine (LbWindow *self)
{
  /* the cine action's handler sets its timer from the rate anew */
  if (action_state (self, "cine"))
    g_action_group_change_action_state (G_ACTION_GROUP (self), "cine",
                                        g_variant_new_boolean (TRUE));
}

static void
on_fps_changed (GtkSpinButton *spin, LbWindow *self)
{
  if (!self->nav_updating)
    restart_cine (self);
}

static void
cine_speed_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  LbWindow *self = user_data;
  gboolean faster = g_str_equal (g_action_get_name (G_ACTION (action)), "cine-faster");

  gtk_spin_button_spin (GTK_SPIN_BUTTON (self->cine_fps_spin),
                        faster ? GTK_SPIN_STEP_FORWARD : GTK_SPIN_STEP_BACKWARD, 1);
}

static void
bounce_change_state (GSimpleAction *action, GVariant *state, gpointer user_data)
{
  LbWindow *self = user_data;

  g_simple_action_set_state (action, state);
  if (!g_variant_get_boolean (state))
    self->cine_step = 1;
}

static GtkWidget *
make_nav_bar (LbWindow *self)
{
  GtkWidget *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *play = gtk_toggle_button_new ();
  GtkWidget *bounce = gtk_toggle_button_new_with_mnemonic (_("_Bounce"));
  GtkWidget *fps_label = gtk_label_new (_("fps"));

  gtk_widget_set_name (bar, "nav_bar");
  gtk_widget_add_css_class (bar, "lb-status");
  gtk_widget_set_margin_start (bar, 8);
  gtk_widget_set_margin_end (bar, 8);
  gtk_widget_set_margin_top (bar, 2);
  gtk_widget_set_margin_bottom (bar, 2);

  gtk_button_set_icon_name (GTK_BUTTON (play), "media-playback-start-symbolic");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (play), "win.cine");
  gtk_widget_set_tooltip_text (play, _("Play or pause cine (Space)"));
  gtk_widget_set_focus_on_click (play, FALSE);
  gtk_widget_add_css_class (play, "flat");
  gtk_accessible_update_property (GTK_ACCESSIBLE (play), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Cine"), -1);
  gtk_box_append (GTK_BOX (bar), play);

  self->slice_scale = gtk_scale_new_with_range (GTK_ORIENTATION_HORIZONTAL, 1, 2, 1);
  gtk_widget_set_name (self->slice_scale, "slice_scale");
  gtk_scale_set_draw_value (GTK_SCALE (self->slice_scale), FALSE);
  gtk_range_set_increments (GTK_RANGE (self->slice_scale), 1, 10);
  gtk_range_set_round_digits (GTK_RANGE (self->slice_scale), 0);
  gtk_widget_set_hexpand (self->slice_scale, TRUE);
  /* a click on the slider leaves the keys with the viewport */
  gtk_widget_set_focus_on_click (self->slice_scale, FALSE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->slice_scale),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Slice"), -1);
  g_signal_connect (self->slice_scale, "value-changed", G_CALLBACK (on_slice_scale_changed),
                    self);
  gtk_box_append (GTK_BOX (bar), self->slice_scale);

  self->slice_scale_label = gtk_label_new ("");
  gtk_widget_set_name (self->slice_scale_label, "slice_scale_label");
  gtk_label_set_width_chars (GTK_LABEL (self->slice_scale_label), 18);
  gtk_label_set_xalign (GTK_LABEL (self->slice_scale_label), 0);
  gtk_box_append (GTK_BOX (bar), self->slice_scale_label);

  /* the series' background loading (lb-window-frames.c): shown while slices are on their way */
  self->load_progress = gtk_progress_bar_new ();
  gtk_widget_set_name (self->load_progress, "load_progress");
  gtk_progress_bar_set_show_text (GTK_PROGRESS_BAR (self->load_progress), TRUE);
  gtk_widget_set_valign (self->load_progress, GTK_ALIGN_CENTER);
  gtk_widget_set_size_request (self->load_progress, 140, -1);
  gtk_widget_set_visible (self->load_progress, FALSE);
  gtk_box_append (GTK_BOX (bar), self->load_progress);

  self->cine_fps_spin = gtk_spin_button_new_with_range (1, MAX_CINE_FPS, 1);
  gtk_widget_set_name (self->cine_fps_spin, "cine_fps");
  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (self->cine_fps_spin), 1);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->cine_fps_spin), DEFAULT_CINE_FPS);
  gtk_widget_set_tooltip_text (self->cine_fps_spin,
                               _("Cine speed in frames per second (Ctrl+] faster, Ctrl+[ slower)"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->cine_fps_spin),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Frames per Second"), -1);
  g_signal_connect (self->cine_fps_spin, "value-changed", G_CALLBACK (on_fps_changed), self);
  gtk_box_append (GTK_BOX (bar), self->cine_fps_spin);
  gtk_box_append (GTK_BOX (bar), fps_label);

  gtk_actionable_set_action_name (GTK_ACTIONABLE (bounce), "win.cine-bounce");
  gtk_widget_set_tooltip_text (bounce, _("Cine runs back and forth instead of looping "
                                         "(Ctrl+Shift+P)"));
  gtk_widget_set_focus_on_click (bounce, FALSE);
  gtk_box_append (GTK_BOX (bar), bounce);
  gtk_widget_set_visible (bar, FALSE);
  return bar;
}

/* ---- window and level as numbers ------------------------------------------------------- */

static void
wl_apply (LbWindow *self)
{
  double c, w;

  gtk_spin_button_update (GTK_SPIN_BUTTON (self->wl_center_spin));
  gtk_spin_button_update (GTK_SPIN_BUTTON (self->wl_width_spin));
  c = gtk_spin_button_get_value (GTK_SPIN_BUTTON (self->wl_center_spin));
  w = gtk_spin_button_get_value (GTK_SPIN_BUTTON (self->wl_width_spin));
  if (lb_canvas_get_image (self->canvas) != NULL && w > 0)
    lb_canvas_set_window (self->canvas, c, w);
  gtk_menu_button_popdown (GTK_MENU_BUTTON (self->wl_edit_button));
  gtk_widget_grab_focus (GTK_WIDGET (self->canvas));
}

/* The spins show the window in force when the popover opens, to the precision of its unit. */
static void
on_wl_popover_show (GtkWidget *popover, LbWindow *self)
{
  LbValueModel *model = lb_canvas_get_value_model (self->canvas);
  guint digits = model == NULL || g_strcmp0 (lb_value_model_get_units (model), "HU") == 0
                 ? 0 : 3;
  double c, w;

  lb_canvas_get_window (self->canvas, &c, &w);
  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (self->wl_center_spin), digits);
  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (self->wl_width_spin), digits);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->wl_center_spin), c);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->wl_width_spin), w);
  gtk_widget_grab_focus (self->wl_center_spin);
}

static GtkWidget *
wl_spin (LbWindow *self, GtkWidget *grid, int row, const char *mnemonic, const char *name,
         double min)
{
  GtkWidget *label = gtk_label_new_with_mnemonic (mnemonic);
  GtkWidget *spin = gtk_spin_button_new_with_range (min, 1e6, 1);

  gtk_widget_set_name (spin, name);
  gtk_label_set_xalign (GTK_LABEL (label), 1);
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), spin);
  gtk_editable_set_width_chars (GTK_EDITABLE (spin), 9);
  /* Enter applies: GtkSpinButton has no "activate" of its own before GTK 4.14; its text does
   * (the spin button's own handler, connected first, has read the number by then) */
  g_signal_connect_swapped (gtk_editable_get_delegate (GTK_EDITABLE (spin)), "activate",
                            G_CALLBACK (wl_apply), self);
  gtk_grid_attach (GTK_GRID (grid), label, 0, row, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), spin, 1, row, 1, 1);
  return spin;
}

static void
make_wl_popover (LbWindow *self)
{
  GtkWidget *popover = gtk_popover_new ();
  GtkWidget *grid = gtk_grid_new ();
  GtkWidget *apply = gtk_button_new_with_mnemonic (_("_Apply"));

  gtk_grid_set_row_spacing (GTK_GRID (grid), 6);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 8);
  /* in real-world units (HU for CT), as the presets and the status line */
  self->wl_center_spin = wl_spin (self, grid, 0, _("_Centre"), "wl_center", -1e6);
  self->wl_width_spin = wl_spin (self, grid, 1, _("_Width"), "wl_width", 1e-3);
  gtk_widget_add_css_class (apply, "suggested-action");
  g_signal_connect_swapped (apply, "clicked", G_CALLBACK (wl_apply), self);
  gtk_grid_attach (GTK_GRID (grid), apply, 1, 2, 1, 1);
  gtk_popover_set_child (GTK_POPOVER (popover), grid);
  g_signal_connect (popover, "show", G_CALLBACK (on_wl_popover_show), self);

  self->wl_edit_button = gtk_menu_button_new ();
  gtk_widget_set_name (self->wl_edit_button, "wl_edit_button");
  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (self->wl_edit_button),
                                 "document-edit-symbolic");
  gtk_widget_set_tooltip_text (self->wl_edit_button,
                               _("Type the window centre and width (Ctrl+Shift+W)"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->wl_edit_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Window Centre and Width"),
                                  -1);
  gtk_menu_button_set_popover (GTK_MENU_BUTTON (self->wl_edit_button), popover);
  gtk_header_bar_pack_start (GTK_HEADER_BAR (self->header_bar), self->wl_edit_button);
}

static void
wl_edit_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  LbWindow *self = user_data;

  if (lb_canvas_get_image (self->canvas) != NULL)
    gtk_menu_button_popup (GTK_MENU_BUTTON (self->wl_edit_button));
}

/* ---- flip and full screen ------------------------------------------------------------ */

/* A vertical flip is a horizontal one turned by half: the canvas keeps one flip. */
static void
flip_vertical_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  LbWindow *self = user_data;

  lb_canvas_set_flip (self->canvas, !lb_canvas_get_flip (self->canvas));
  lb_canvas_set_rotation (self->canvas, lb_canvas_get_rotation (self->canvas) + 2);
}

static void
set_chrome_visible (LbWindow *self, gboolean visible)
{
  gtk_widget_set_visible (self->header_bar, visible);
  gtk_widget_set_visible (gtk_paned_get_start_child (GTK_PANED (self->paned)), visible);
  /* the status bar holds the frame label */
  gtk_widget_set_visible (gtk_widget_get_parent (self->frame_label), visible);
  gtk_widget_set_visible (self->bench_revealer, visible);
  _lb_window_nav_update (self);
}

static void
fullscreen_change_state (GSimpleAction *action, GVariant *state, gpointer user_data)
{
  LbWindow *self = user_data;
  gboolean on = g_variant_get_boolean (state);

  g_simple_action_set_state (action, state);
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (
                                 G_ACTION_MAP (self), "leave-fullscreen")), on);
  if (on)
    gtk_window_fullscreen (GTK_WINDOW (self));
  else
    gtk_window_unfullscreen (GTK_WINDOW (self));
  set_chrome_visible (self, !on);
  gtk_widget_grab_focus (GTK_WIDGET (self->canvas));
}

static void
leave_fullscreen_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  g_action_group_change_action_state (G_ACTION_GROUP (user_data), "fullscreen",
                                      g_variant_new_boolean (FALSE));
}

/* The window manager left full screen (its own key, another window): the chrome comes back. */
static void
on_fullscreened (GtkWindow *window, GParamSpec *pspec, LbWindow *self)
{
  gboolean now = gtk_window_is_fullscreen (window);

  if (self->was_fullscreen && !now && action_state (self, "fullscreen"))
    g_action_group_change_action_state (G_ACTION_GROUP (self), "fullscreen",
                                        g_variant_new_boolean (FALSE));
  self->was_fullscreen = now;
}

/* ---- the scale bar ----------------------------------------------------------------------- */

/* Each viewport draws its own (lb-viewport.c); the active one's follows the window's zoom,
 * rotation, image and overlay. */
void
_lb_window_nav_update_scale_bar (LbWindow *self)
{
  LbViewport *active = _lb_window_viewports_get_active (self);

  if (active != NULL)
    lb_viewport_update_scale_bar (active, action_state (self, "overlay"));
}

void
_lb_window_nav_dispose (LbWindow *self)
{
  g_clear_object (&self->nav_frames);
  cancel_tag_read (self);
  g_clear_pointer (&self->tag_uri, g_free);
  if (self->tag_browser != NULL)
    {
      GtkWidget *browser = self->tag_browser;

      g_object_remove_weak_pointer (G_OBJECT (browser), (gpointer *) &self->tag_browser);
      self->tag_browser = NULL;
      gtk_window_destroy (GTK_WINDOW (browser));
    }
}

void
_lb_window_nav_init (LbWindow *self)
{
  static const GActionEntry entries[] = {
    { .name = "cine-faster", .activate = cine_speed_activated },
    { .name = "cine-slower", .activate = cine_speed_activated },
    /* stateful without a handler: activating toggles */
    { .name = "cine-bounce", .state = "false", .change_state = bounce_change_state },
    { .name = "wl-edit", .activate = wl_edit_activated },
    { .name = "flip-vertical", .activate = flip_vertical_activated },
    { .name = "fullscreen", .state = "false", .change_state = fullscreen_change_state },
    { .name = "leave-fullscreen", .activate = leave_fullscreen_activated },
    { .name = "tag-browser", .activate = tag_browser_activated },
  };
  /* the bar under the viewports */
  GtkWidget *overlay = self->viewport_grid;

  g_action_map_add_action_entries (G_ACTION_MAP (self), entries, G_N_ELEMENTS (entries), self);
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (
                                 G_ACTION_MAP (self), "leave-fullscreen")), FALSE);
  self->cine_step = 1;
  self->nav_bar = make_nav_bar (self);
  gtk_box_insert_child_after (GTK_BOX (gtk_widget_get_parent (overlay)), self->nav_bar, overlay);
  make_wl_popover (self);
  g_signal_connect (self, "notify::fullscreened", G_CALLBACK (on_fullscreened), self);
  _lb_window_nav_update (self);
}
