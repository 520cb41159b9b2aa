/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-param-dialog"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-param-dialog.h"

struct _LbParamDialog {
  GtkWindow       parent_instance;

  /* Template widgets */
  GtkWidget      *apply;
  GtkWidget      *description;
  GtkWidget      *grid;
  GtkWidget      *advanced;      /* GtkExpander around advanced_grid */
  GtkWidget      *advanced_grid;
  GtkWidget      *error_label;
  GtkWidget      *notice;
  GtkWidget      *preview_error;
  GtkWidget      *preview;
  GtkWidget      *aux_box;       /* the second image, for a filter that reads two */
  GtkWidget      *aux_choice;
  GtkWidget      *aux_file;
  GtkWidget      *scope_box;     /* this slice or the whole series */
  GtkWidget      *scope;

  /* Owned */
  GtkStringList  *aux_labels;
  LbFilter       *filter;
  LbFilterParams *params;
  GHashTable     *widgets;     /* name → editing widget (borrowed) */
  gboolean        done;
  gboolean        syncing;     /* scale ↔ spin updates in progress */
};

G_DEFINE_FINAL_TYPE (LbParamDialog, lb_param_dialog, GTK_TYPE_WINDOW)

/* The second-image list starts with "None chosen": a drop-down always has a selection once
 * its list has items (GTK 4.18 selects the first that arrives), and until the reader picks
 * an image none is chosen. Choice i of the API is item i + AUX_FIRST. */
#define AUX_FIRST 1

enum { SIGNAL_CHANGED, SIGNAL_DONE, SIGNAL_CHOOSE_AUX_FILE, N_SIGNALS };
static guint signals[N_SIGNALS];

static const char *
unit_suffix (LbParamUnit unit)
{
  switch (unit)
    {
    case LB_UNIT_PIXEL: return _("px");
    case LB_UNIT_DEGREE: return "°";
    case LB_UNIT_PERCENT: return "%";
    case LB_UNIT_MM: return _("mm");
    case LB_UNIT_SAMPLE:
    case LB_UNIT_NONE:
    default: return NULL;
    }
}

static void
set_param (LbParamDialog *self,
           const char    *name,
           double         value)
{
  g_autoptr (GError) error = NULL;

  if (!lb_filter_params_set_number (self->params, name, value, &error))
    {
      gtk_label_set_text (GTK_LABEL (self->error_label), error->message);
      gtk_widget_set_visible (self->error_label, TRUE);
      gtk_widget_set_sensitive (self->apply, FALSE);
      return;
    }
  gtk_widget_set_visible (self->error_label, FALSE);
  gtk_widget_set_sensitive (self->apply, TRUE);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

static void
on_spin_changed (GtkSpinButton *spin,
                 LbParamDialog *self)
{
  GtkAdjustment *scale_adj = g_object_get_data (G_OBJECT (spin), "scale-adj");
  const char *name = g_object_get_data (G_OBJECT (spin), "param");
  double v = gtk_spin_button_get_value (spin);

  if (self->syncing)
    return;
  self->syncing = TRUE;
  if (scale_adj)
    gtk_adjustment_set_value (scale_adj, v);
  self->syncing = FALSE;
  set_param (self, name, v);
}

static void
on_scale_changed (GtkAdjustment *adj,
                  GtkSpinButton *spin)
{
  LbParamDialog *self = LB_PARAM_DIALOG (gtk_widget_get_root (GTK_WIDGET (spin)));

  if (self == NULL || self->syncing)
    return;
  /* the spin button rounds to its digits and emits value-changed → on_spin_changed */
  gtk_spin_button_set_value (spin, gtk_adjustment_get_value (adj));
}

static void
on_switch_changed (GtkSwitch     *sw,
                   GParamSpec    *pspec,
                   LbParamDialog *self)
{
  set_param (self, g_object_get_data (G_OBJECT (sw), "param"), gtk_switch_get_active (sw));
}

static void
on_dropdown_changed (GtkDropDown   *dd,
                     GParamSpec    *pspec,
                     LbParamDialog *self)
{
  set_param (self, g_object_get_data (G_OBJECT (dd), "param"), gtk_drop_down_get_selected (dd));
}

static GtkWidget *
build_row (LbParamDialog     *self,
           const LbParamSpec *spec,
           GtkWidget        **out_label)
{
  const char *label_text = lb_filter_translate (self->filter, spec->label);
  const char *tip = spec->description ? lb_filter_translate (self->filter, spec->description)
                                      : NULL;
  const char *unit = unit_suffix (spec->unit);
  double value = lb_filter_params_get_number (self->params, spec->name);
  g_autofree char *text = unit ? g_strdup_printf ("%s (%s)", label_text, unit)
                               : g_strdup (label_text);
  GtkWidget *label = gtk_label_new (text), *box, *editor;

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_set_tooltip_text (label, tip);
  *out_label = label;
  box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  switch (spec->type)
    {
    case LB_PARAM_BOOL:
      editor = gtk_switch_new ();
      gtk_switch_set_active (GTK_SWITCH (editor), value != 0);
      gtk_widget_set_halign (editor, GTK_ALIGN_START);
      g_signal_connect (editor, "notify::active", G_CALLBACK (on_switch_changed), self);
      gtk_box_append (GTK_BOX (box), editor);
      break;
    case LB_PARAM_ENUM:
      {
        g_autoptr (GtkStringList) list = gtk_string_list_new (NULL);
        for (guint i = 0; spec->values && spec->values[i].nick; i++)
          gtk_string_list_append (list, lb_filter_translate (self->filter, spec->values[i].label
                                                             ? spec->values[i].label
                                                             : spec->values[i].nick));
        editor = gtk_drop_down_new (G_LIST_MODEL (g_object_ref (list)), NULL);
        gtk_drop_down_set_selected (GTK_DROP_DOWN (editor), (guint) value);
        g_signal_connect (editor, "notify::selected", G_CALLBACK (on_dropdown_changed), self);
        gtk_box_append (GTK_BOX (box), editor);
      }
      break;
    case LB_PARAM_INT:
    case LB_PARAM_DOUBLE:
    default:
      {
        double step = spec->step > 0 ? spec->step : 1;
        GtkAdjustment *spin_adj = gtk_adjustment_new (value, spec->min, spec->max, step,
                                                      step * 10, 0);
        GtkAdjustment *scale_adj = gtk_adjustment_new (value, spec->ui_min, spec->ui_max, step,
                                                       step * 10, 0);
        GtkWidget *scale = gtk_scale_new (GTK_ORIENTATION_HORIZONTAL, scale_adj);

        editor = gtk_spin_button_new (spin_adj, step, spec->type == LB_PARAM_INT ? 0 : spec->digits);
        gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (editor), TRUE);
        gtk_scale_set_draw_value (GTK_SCALE (scale), FALSE);
        gtk_scale_set_digits (GTK_SCALE (scale), spec->type == LB_PARAM_INT ? 0 : spec->digits);
        gtk_range_set_round_digits (GTK_RANGE (scale), spec->type == LB_PARAM_INT ? 0 : spec->digits);
        gtk_widget_set_hexpand (scale, TRUE);
        gtk_widget_set_size_request (scale, 200, -1);
        gtk_accessible_update_property (GTK_ACCESSIBLE (scale), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                        label_text, -1);
        g_object_set_data (G_OBJECT (editor), "scale-adj", scale_adj);
        g_signal_connect (editor, "value-changed", G_CALLBACK (on_spin_changed), self);
        g_signal_connect (scale_adj, "value-changed", G_CALLBACK (on_scale_changed), editor);
        gtk_box_append (GTK_BOX (box), scale);
        gtk_box_append (GTK_BOX (box), editor);
      }
      break;
    }
  g_object_set_data_full (G_OBJECT (editor), "param", g_strdup (spec->name), g_free);
  gtk_widget_set_tooltip_text (editor, tip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (editor), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  label_text, -1);
  g_hash_table_insert (self->widgets, g_strdup (spec->name), editor);
  return box;
}

static void
finish (LbParamDialog *self,
        gboolean       apply)
{
  if (self->done)
    return;
  self->done = TRUE;
  g_signal_emit (self, signals[SIGNAL_DONE], 0, apply);
  gtk_window_destroy (GTK_WINDOW (self));
}

static gboolean
lb_param_dialog_close_request (GtkWindow *window)
{
  finish (LB_PARAM_DIALOG (window), FALSE);
  return TRUE;
}

static void
on_apply_clicked (LbParamDialog *self)
{
  finish (self, TRUE);
}

static void
on_cancel_clicked (LbParamDialog *self)
{
  finish (self, FALSE);
}

static void
on_preview_toggled (LbParamDialog *self)
{
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

static void
on_aux_selected (LbParamDialog *self)
{
  if (lb_param_dialog_get_aux_choice (self) != GTK_INVALID_LIST_POSITION)
    g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

static void
on_aux_file_clicked (LbParamDialog *self)
{
  g_signal_emit (self, signals[SIGNAL_CHOOSE_AUX_FILE], 0);
}

static void
lb_param_dialog_dispose (GObject *object)
{
  LbParamDialog *self = LB_PARAM_DIALOG (object);

  g_clear_pointer (&self->widgets, g_hash_table_unref);
  g_clear_pointer (&self->params, lb_filter_params_unref);
  g_clear_object (&self->filter);
  g_clear_object (&self->aux_labels);
  gtk_widget_dispose_template (GTK_WIDGET (object), LB_TYPE_PARAM_DIALOG);
  G_OBJECT_CLASS (lb_param_dialog_parent_class)->dispose (object);
}

static void
lb_param_dialog_class_init (LbParamDialogClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = lb_param_dialog_dispose;
  GTK_WINDOW_CLASS (klass)->close_request = lb_param_dialog_close_request;
  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                          0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_DONE] = g_signal_new ("done", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                       0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_BOOLEAN);
  signals[SIGNAL_CHOOSE_AUX_FILE] = g_signal_new ("choose-aux-file", G_TYPE_FROM_CLASS (klass),
                                                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                  G_TYPE_NONE, 0);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/lightbox/Lightbox/ui/lb-param-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, LbParamDialog, apply);
  gtk_widget_class_bind_template_child (widget_class, LbParamDialog, description);
  gtk_widget_class_bind_template_child (widget_class, LbParamDialog, grid);
  gtk_widget_class_bind_template_child (widget_class, LbParamDialog, advanced);
  gtk_widget_class_bind_template_child (widget_class, LbParamDialog, advanced_grid);
  gtk_widget_class_bind_template_child (widget_class, LbParamDialog, error_label);
  gtk_widget_class_bind_template_child (widget_class, LbParamDialog, notice);
  gtk_widget_class_bind_template_child (widget_class, LbParamDialog, preview_error);
  gtk_widget_class_bind_template_child (widget_class, LbParamDialog, preview);
  gtk_widget_class_bind_template_child (widget_class, LbParamDialog, aux_box);
  gtk_widget_class_bind_template_child (widget_class, LbParamDialog, aux_choice);
  gtk_widget_class_bind_template_child (widget_class, LbParamDialog, aux_file);
  gtk_widget_class_bind_template_child (widget_class, LbParamDialog, scope_box);
  gtk_widget_class_bind_template_child (widget_class, LbParamDialog, scope);
  gtk_widget_class_bind_template_callback (widget_class, on_aux_selected);
  gtk_widget_class_bind_template_callback (widget_class, on_aux_file_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_apply_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_cancel_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_preview_toggled);
}

static void
lb_param_dialog_init (LbParamDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->aux_labels = gtk_string_list_new (NULL);
  gtk_string_list_append (self->aux_labels, _("None chosen"));
  gtk_drop_down_set_model (GTK_DROP_DOWN (self->aux_choice), G_LIST_MODEL (self->aux_labels));
  self->widgets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

static void
clear_grid (GtkWidget *grid)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (grid)) != NULL)
    gtk_grid_remove (GTK_GRID (grid), child);
}

/* The rows of @self->filter's parameters, with the values of @self->params. */
static void
build_rows (LbParamDialog *self)
{
  LbFilter *filter = self->filter;
  int row = 0, advanced_row = 0;

  g_hash_table_remove_all (self->widgets);
  clear_grid (self->grid);
  clear_grid (self->advanced_grid);
  gtk_window_set_title (GTK_WINDOW (self), lb_filter_get_name (filter));
  gtk_label_set_text (GTK_LABEL (self->description),
                      lb_filter_get_description (filter) ? lb_filter_get_description (filter) : "");
  gtk_widget_set_visible (self->description, lb_filter_get_description (filter) != NULL);
  /* one row per parameter, from its spec; advanced ones in the expander */
  for (guint i = 0; i < lb_filter_get_n_params (filter); i++)
    {
      const LbParamSpec *spec = lb_filter_get_param (filter, i);
      GtkWidget *label, *editor = build_row (self, spec, &label);
      gboolean advanced = (spec->flags & LB_PARAM_FLAG_ADVANCED) != 0;
      GtkGrid *grid = GTK_GRID (advanced ? self->advanced_grid : self->grid);
      int *r = advanced ? &advanced_row : &row;

      gtk_grid_attach (grid, label, 0, *r, 1, 1);
      gtk_grid_attach (grid, editor, 1, (*r)++, 1, 1);
    }
  gtk_widget_set_visible (self->advanced, advanced_row > 0);
  gtk_widget_set_visible (self->aux_box, lb_filter_get_n_inputs (filter) > 1);
}

LbParamDialog *
lb_param_dialog_new (LbFilter       *filter,
                     LbFilterParams *initial,
                     GtkWindow      *parent)
{
  LbParamDialog *self;

  g_return_val_if_fail (LB_IS_FILTER (filter), NULL);
  self = g_object_new (LB_TYPE_PARAM_DIALOG, "title", lb_filter_get_name (filter),
                       "transient-for", parent, NULL);
  self->filter = g_object_ref (filter);
  self->params = initial ? lb_filter_params_copy (initial) : lb_filter_params_new (filter);
  build_rows (self);
  return self;
}

guint
lb_param_dialog_rebind (LbParamDialog *self,
                        LbFilter      *filter)
{
  g_autoptr (GVariant) old = NULL;
  g_autoptr (LbFilterParams) params = NULL;
  g_autoptr (GString) reset = g_string_new (NULL);
  g_autofree char *notice = NULL;
  GVariantIter iter;
  const char *name;
  GVariant *value;
  guint n_reset = 0;

  g_return_val_if_fail (LB_IS_PARAM_DIALOG (self), 0);
  g_return_val_if_fail (LB_IS_FILTER (filter), 0);
  old = g_variant_ref_sink (lb_filter_params_to_variant (self->params));
  params = lb_filter_params_new (filter);
  /* a value carries over by name when the new specs accept it (enums by nick, so a
   * reordered list keeps the choice); a value that no longer fits gets the new default */
  g_variant_iter_init (&iter, old);
  while (g_variant_iter_next (&iter, "{&sv}", &name, &value))
    {
      g_autoptr (GVariant) owned = value;
      GVariantDict one;

      if (lb_filter_find_param (filter, name, NULL) == NULL)
        continue;
      g_variant_dict_init (&one, NULL);
      g_variant_dict_insert_value (&one, name, value);
      if (!lb_filter_params_set_variant (params, g_variant_dict_end (&one), NULL))
        {
          const LbParamSpec *spec = lb_filter_find_param (filter, name, NULL);

          if (reset->len)
            g_string_append (reset, ", ");
          g_string_append (reset, lb_filter_translate (filter, spec->label));
          n_reset++;
        }
    }
  g_set_object (&self->filter, filter);
  g_clear_pointer (&self->params, lb_filter_params_unref);
  self->params = g_steal_pointer (&params);
  build_rows (self);
  gtk_widget_set_visible (self->error_label, FALSE);
  gtk_widget_set_sensitive (self->apply, TRUE);
  if (lb_filter_get_kind (filter) != LB_FILTER_KIND_PLUGIN)
    /* TRANSLATORS: a declarative filter's file (.lbfilter) was replaced while its dialog was
     * open; a declarative filter has no parameters */
    notice = g_strdup (_("The filter file was replaced; Apply runs the new one."));
  else if (n_reset == 0)
    /* TRANSLATORS: the filter's plugin file was replaced while its dialog was open */
    notice = g_strdup_printf (_("The plugin was replaced by version %s; the values were kept."),
                              lb_filter_get_version (filter) ? lb_filter_get_version (filter) : "—");
  else
    /* TRANSLATORS: %s: version; %s: the labels of parameters set back to their defaults */
    notice = g_strdup_printf (_("The plugin was replaced by version %s; reset to the default: %s."),
                              lb_filter_get_version (filter) ? lb_filter_get_version (filter) : "—",
                              reset->str);
  gtk_label_set_text (GTK_LABEL (self->notice), notice);
  gtk_widget_set_visible (self->notice, TRUE);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
  return n_reset;
}

void
lb_param_dialog_set_preview_error (LbParamDialog *self,
                                   const GError  *error)
{
  g_return_if_fail (LB_IS_PARAM_DIALOG (self));
  gtk_label_set_text (GTK_LABEL (self->preview_error), error ? error->message : "");
  gtk_widget_set_visible (self->preview_error, error != NULL);
}

const char *
lb_param_dialog_get_preview_error (LbParamDialog *self)
{
  g_return_val_if_fail (LB_IS_PARAM_DIALOG (self), NULL);
  return gtk_widget_get_visible (self->preview_error)
         ? gtk_label_get_text (GTK_LABEL (self->preview_error)) : NULL;
}

const char *
lb_param_dialog_get_notice (LbParamDialog *self)
{
  g_return_val_if_fail (LB_IS_PARAM_DIALOG (self), NULL);
  return gtk_widget_get_visible (self->notice) ? gtk_label_get_text (GTK_LABEL (self->notice))
                                               : NULL;
}

LbFilter *
lb_param_dialog_get_filter (LbParamDialog *self)
{
  g_return_val_if_fail (LB_IS_PARAM_DIALOG (self), NULL);
  return self->filter;
}

LbFilterParams *
lb_param_dialog_get_params (LbParamDialog *self)
{
  g_return_val_if_fail (LB_IS_PARAM_DIALOG (self), NULL);
  return self->params;
}

gboolean
lb_param_dialog_get_preview (LbParamDialog *self)
{
  g_return_val_if_fail (LB_IS_PARAM_DIALOG (self), FALSE);
  return gtk_check_button_get_active (GTK_CHECK_BUTTON (self->preview));
}

gboolean
lb_param_dialog_set_value (LbParamDialog *self,
                           const char    *name,
                           double         value)
{
  GtkWidget *w;

  g_return_val_if_fail (LB_IS_PARAM_DIALOG (self), FALSE);
  w = g_hash_table_lookup (self->widgets, name);
  if (w == NULL)
    return FALSE;
  if (GTK_IS_SPIN_BUTTON (w))
    gtk_spin_button_set_value (GTK_SPIN_BUTTON (w), value);
  else if (GTK_IS_SWITCH (w))
    gtk_switch_set_active (GTK_SWITCH (w), value != 0);
  else if (GTK_IS_DROP_DOWN (w))
    gtk_drop_down_set_selected (GTK_DROP_DOWN (w), (guint) value);
  return TRUE;
}

void
lb_param_dialog_respond (LbParamDialog *self,
                         gboolean       apply)
{
  g_return_if_fail (LB_IS_PARAM_DIALOG (self));
  if (apply && gtk_widget_get_sensitive (self->apply))
    g_signal_emit_by_name (self->apply, "clicked");
  else if (!apply)
    finish (self, FALSE);
}

GtkWidget *
lb_param_dialog_get_widget (LbParamDialog *self,
                            const char    *name)
{
  g_return_val_if_fail (LB_IS_PARAM_DIALOG (self), NULL);
  return g_hash_table_lookup (self->widgets, name);
}

GtkWidget *
lb_param_dialog_get_apply_button (LbParamDialog *self)
{
  g_return_val_if_fail (LB_IS_PARAM_DIALOG (self), NULL);
  return self->apply;
}

guint
lb_param_dialog_add_aux_choice (LbParamDialog *self,
                                const char    *label)
{
  g_return_val_if_fail (LB_IS_PARAM_DIALOG (self), 0);
  gtk_string_list_append (self->aux_labels, label);
  return g_list_model_get_n_items (G_LIST_MODEL (self->aux_labels)) - 1 - AUX_FIRST;
}

guint
lb_param_dialog_find_aux_choice (LbParamDialog *self,
                                 const char    *label)
{
  GListModel *model;

  g_return_val_if_fail (LB_IS_PARAM_DIALOG (self), GTK_INVALID_LIST_POSITION);
  model = G_LIST_MODEL (self->aux_labels);
  for (guint i = AUX_FIRST; i < g_list_model_get_n_items (model); i++)
    if (g_strcmp0 (gtk_string_list_get_string (self->aux_labels, i), label) == 0)
      return i - AUX_FIRST;
  return GTK_INVALID_LIST_POSITION;
}

void
lb_param_dialog_set_aux_choice (LbParamDialog *self,
                                guint          index)
{
  g_return_if_fail (LB_IS_PARAM_DIALOG (self));
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->aux_choice),
                              index == GTK_INVALID_LIST_POSITION ? 0 : index + AUX_FIRST);
}

guint
lb_param_dialog_get_aux_choice (LbParamDialog *self)
{
  guint item;

  g_return_val_if_fail (LB_IS_PARAM_DIALOG (self), GTK_INVALID_LIST_POSITION);
  item = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->aux_choice));
  return item == GTK_INVALID_LIST_POSITION || item < AUX_FIRST ? GTK_INVALID_LIST_POSITION
                                                                : item - AUX_FIRST;
}

void
lb_param_dialog_set_series (LbParamDialog *self,
                            guint          n_slices)
{
  g_return_if_fail (LB_IS_PARAM_DIALOG (self));
  gtk_widget_set_visible (self->scope_box, n_slices > 1);
  if (n_slices > 1)
    {
      g_autofree char *all = NULL;
      GtkStringList *list = GTK_STRING_LIST (gtk_drop_down_get_model (GTK_DROP_DOWN (self->scope)));
      const char *whole[] = { NULL, NULL };

      /* TRANSLATORS: the scope of a filter in its dialog: every slice of the open series */
      all = g_strdup_printf (ngettext ("The whole series (%u slice)",
                                       "The whole series (%u slices)", n_slices), n_slices);
      whole[0] = all;
      gtk_string_list_splice (list, 1, 1, whole);
    }
}

gboolean
lb_param_dialog_get_whole_series (LbParamDialog *self)
{
  g_return_val_if_fail (LB_IS_PARAM_DIALOG (self), FALSE);
  return gtk_widget_get_visible (self->scope_box)
         && gtk_drop_down_get_selected (GTK_DROP_DOWN (self->scope)) == 1;
}

void
lb_param_dialog_set_whole_series (LbParamDialog *self,
                                  gboolean       whole)
{
  g_return_if_fail (LB_IS_PARAM_DIALOG (self));
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->scope), whole ? 1 : 0);
}
