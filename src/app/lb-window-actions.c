/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-window"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "lb-dialogs.h"
#include "lb-window-private.h"

/* The window's actions (win.*) and the window/level preset menu. */

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

/* The window presets and VOI LUTs the image's file carries (PS3.3 C.11.2), with their
 * explanations: "file-N" and "lut-N" actions. */
static void
append_file_presets (LbWindow *self)
{
  LbValueModel *model = lb_canvas_get_value_model (self->canvas);
  g_autoptr (GMenu) file = g_menu_new ();
  guint n;

  if (model == NULL)
    return;
  n = lb_value_model_get_n_windows (model);
  for (guint k = 0; k < n; k++)
    {
      g_autofree char *action = g_strdup_printf ("win.wl-preset::file-%u", k);
      g_autofree char *cs = NULL, *ws = NULL, *label = NULL;
      const char *expl;
      double c, w;

      lb_value_model_get_window (model, k, &c, &w, &expl);
      cs = lb_value_model_format_value (model, c);
      ws = lb_value_model_format_value (model, w);
      if (expl != NULL)
        label = g_strdup_printf ("%s (%s/%s)", expl, cs, ws);
      else
        /* TRANSLATORS: a window preset of the file without an explanation: centre/width */
        label = g_strdup_printf (_("Window %u (%s/%s)"), k + 1, cs, ws);
      g_menu_append (file, label, action);
    }
  for (guint k = 0; k < lb_value_model_get_n_voi_luts (model); k++)
    {
      const LbValueLut *lut = lb_value_model_get_voi_lut (model, k);
      g_autofree char *action = g_strdup_printf ("win.wl-preset::lut-%u", k);
      g_autofree char *label = NULL;

      if (lut->explanation != NULL)
        /* TRANSLATORS: a VOI lookup table of the file, with its explanation */
        label = g_strdup_printf (_("%s (VOI LUT)"), lut->explanation);
      else
        label = g_strdup_printf (_("VOI LUT %u"), k + 1);
      g_menu_append (file, label, action);
    }
  if (g_menu_model_get_n_items (G_MENU_MODEL (file)) > 0)
    g_menu_append_section (self->wl_menu, _("From the File"), G_MENU_MODEL (file));
}

void
_lb_window_rebuild_wl_menu (LbWindow *self)
{
  g_autoptr (GVariant) user = g_settings_get_value (self->settings, "wl-presets");
  g_autoptr (GMenu) builtin = g_menu_new ();
  g_autoptr (GMenu) mine = g_menu_new ();
  g_autoptr (GMenu) tools = g_menu_new ();
  LbValueModel *model = lb_canvas_get_value_model (self->canvas);
  GVariantIter iter;
  const char *name;
  double c, w;
  guint i = 0;

  g_menu_remove_all (self->wl_menu);
  append_file_presets (self);
  /* the CT presets are in Hounsfield units: only for images whose values are HU */
  if (model != NULL && g_strcmp0 (lb_value_model_get_units (model), "HU") == 0)
    {
      for (guint k = 0; k < G_N_ELEMENTS (wl_presets); k++)
        {
          g_autofree char *action = g_strdup_printf ("win.wl-preset::%s", wl_presets[k].id);
          g_menu_append (builtin, _(wl_presets[k].label), action);
        }
      g_menu_append_section (self->wl_menu, NULL, G_MENU_MODEL (builtin));
    }
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
  g_menu_append (tools, _("_Type Centre and Width…"), "win.wl-edit");
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
  if (g_str_has_prefix (id, "file-") || g_str_has_prefix (id, "lut-"))
    {
      LbValueModel *model = lb_canvas_get_value_model (self->canvas);
      guint64 idx = g_ascii_strtoull (strchr (id, '-') + 1, NULL, 10);
      double c, w;

      if (model == NULL)
        return;
      if (id[0] == 'l')
        lb_canvas_set_voi_lut (self->canvas, (guint) idx);
      else if (idx < G_MAXUINT && lb_value_model_get_window (model, (guint) idx, &c, &w, NULL))
        lb_canvas_set_window (self->canvas, c, w);
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
on_save_preset_answer (GtkWindow *form,
                       gboolean   accepted,
                       gpointer   user_data)
{
  LbWindow *self = user_data;
  GtkWidget *entry = gtk_window_get_child (form);

  if (accepted)
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
}

static void
wl_save_preset_activated (GSimpleAction *action,
                          GVariant      *param,
                          gpointer       user_data)
{
  LbWindow *self = user_data;
  GtkWidget *form, *entry;

  form = gtk_window_new ();
  gtk_window_set_title (GTK_WINDOW (form), _("Save Window/Level Preset"));
  entry = gtk_entry_new ();
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  gtk_entry_set_placeholder_text (GTK_ENTRY (entry), _("Preset name"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Preset name"), -1);
  gtk_widget_set_margin_start (entry, 18);
  gtk_widget_set_margin_end (entry, 18);
  gtk_widget_set_margin_top (entry, 18);
  gtk_widget_set_margin_bottom (entry, 18);
  gtk_window_set_child (GTK_WINDOW (form), entry);
  lb_dialogs_form (GTK_WINDOW (form), GTK_WINDOW (self), _("_Save"), on_save_preset_answer,
                   self, NULL);
}

static void
on_open_file_chosen (GFile    *file,
                     gpointer  user_data)
{
  if (file != NULL)
    lb_window_open_image_file (LB_WINDOW (user_data), file);
}

static void
open_file_activated (GSimpleAction *action,
                     GVariant      *param,
                     gpointer       user_data)
{
  LbWindow *self = user_data;
  g_autoptr (GtkFileFilter) filter = gtk_file_filter_new ();
  LbFileDialogOptions options = { .title = _("Open Image"), .accept_label = _("_Open"),
                                  .filter = filter };

  gtk_file_filter_set_name (filter, _("Images"));
  gtk_file_filter_add_pixbuf_formats (filter);
  gtk_file_filter_add_mime_type (filter, "image/png");
  lb_dialogs_open_file (GTK_WINDOW (self), &options, on_open_file_chosen, self);
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
  _lb_window_frames_stop_loading (self);
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

void
_lb_window_actions_init (LbWindow *self)
{
  g_action_map_add_action_entries (G_ACTION_MAP (self), win_entries, G_N_ELEMENTS (win_entries),
                                   self);
  self->wl_menu = g_menu_new ();
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (self->window_button),
                                  G_MENU_MODEL (self->wl_menu));
  _lb_window_rebuild_wl_menu (self);
  g_signal_connect_swapped (self->settings, "changed::wl-presets",
                            G_CALLBACK (_lb_window_rebuild_wl_menu), self);
}
