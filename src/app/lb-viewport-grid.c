/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-viewport"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-viewport-grid.h"

struct _LbViewportGrid {
  GtkWidget   parent_instance;

  GtkWidget  *grid;
  LbViewport *viewports[LB_VIEWPORT_GRID_MAX];
  LbViewport *active;
  guint       rows, columns;
};

G_DEFINE_FINAL_TYPE (LbViewportGrid, lb_viewport_grid, GTK_TYPE_WIDGET)

enum { PROP_0, PROP_ACTIVE, N_PROPS };
static GParamSpec *properties[N_PROPS];

GtkWidget *
lb_viewport_grid_new (void)
{
  return g_object_new (LB_TYPE_VIEWPORT_GRID, NULL);
}

LbViewport *
lb_viewport_grid_get_viewport (LbViewportGrid *self,
                               guint           index)
{
  g_return_val_if_fail (LB_IS_VIEWPORT_GRID (self), NULL);
  g_return_val_if_fail (index < LB_VIEWPORT_GRID_MAX, NULL);
  return self->viewports[index];
}

int
lb_viewport_grid_index_of (LbViewportGrid *self,
                           LbViewport     *viewport)
{
  g_return_val_if_fail (LB_IS_VIEWPORT_GRID (self), -1);
  for (guint i = 0; i < LB_VIEWPORT_GRID_MAX; i++)
    if (self->viewports[i] == viewport)
      return (int) i;
  return -1;
}

LbViewport *
lb_viewport_grid_get_active (LbViewportGrid *self)
{
  g_return_val_if_fail (LB_IS_VIEWPORT_GRID (self), NULL);
  return self->active;
}

guint
lb_viewport_grid_get_n_shown (LbViewportGrid *self)
{
  g_return_val_if_fail (LB_IS_VIEWPORT_GRID (self), 1);
  return self->rows * self->columns;
}

static void
mark (LbViewportGrid *self)
{
  gboolean several = lb_viewport_grid_get_n_shown (self) > 1;

  for (guint i = 0; i < LB_VIEWPORT_GRID_MAX; i++)
    lb_viewport_set_active (self->viewports[i], self->viewports[i] == self->active, several);
}

void
lb_viewport_grid_set_active (LbViewportGrid *self,
                             LbViewport     *viewport)
{
  int index;

  g_return_if_fail (LB_IS_VIEWPORT_GRID (self));
  index = lb_viewport_grid_index_of (self, viewport);
  g_return_if_fail (index >= 0 && (guint) index < lb_viewport_grid_get_n_shown (self));
  if (viewport == self->active)
    return;
  self->active = viewport;
  mark (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ACTIVE]);
}

void
lb_viewport_grid_set_layout (LbViewportGrid *self,
                             guint           rows,
                             guint           columns)
{
  guint n;

  g_return_if_fail (LB_IS_VIEWPORT_GRID (self));
  rows = CLAMP (rows, 1, 2);
  columns = CLAMP (columns, 1, 2);
  if (rows == self->rows && columns == self->columns)
    return;
  self->rows = rows;
  self->columns = columns;
  n = rows * columns;
  for (guint i = 0; i < LB_VIEWPORT_GRID_MAX; i++)
    {
      GtkWidget *vp = GTK_WIDGET (self->viewports[i]);

      if (gtk_widget_get_parent (vp) == self->grid)
        gtk_grid_remove (GTK_GRID (self->grid), vp);
      if (i < n)
        gtk_grid_attach (GTK_GRID (self->grid), vp, (int) (i % columns), (int) (i / columns), 1, 1);
    }
  if (lb_viewport_grid_index_of (self, self->active) >= (int) n)
    {
      self->active = self->viewports[0];
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ACTIVE]);
    }
  mark (self);
}

void
lb_viewport_grid_get_layout (LbViewportGrid *self,
                             guint          *rows,
                             guint          *columns)
{
  g_return_if_fail (LB_IS_VIEWPORT_GRID (self));
  *rows = self->rows;
  *columns = self->columns;
}

static void
lb_viewport_grid_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  LbViewportGrid *self = LB_VIEWPORT_GRID (object);

  switch (prop_id)
    {
    case PROP_ACTIVE: g_value_set_object (value, self->active); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lb_viewport_grid_dispose (GObject *object)
{
  LbViewportGrid *self = LB_VIEWPORT_GRID (object);

  /* the hidden viewports are held here, not by the grid widget */
  for (guint i = 0; i < LB_VIEWPORT_GRID_MAX; i++)
    if (self->viewports[i] != NULL)
      {
        if (gtk_widget_get_parent (GTK_WIDGET (self->viewports[i])) == self->grid)
          gtk_grid_remove (GTK_GRID (self->grid), GTK_WIDGET (self->viewports[i]));
        g_clear_object (&self->viewports[i]);
      }
  self->active = NULL;
  g_clear_pointer (&self->grid, gtk_widget_unparent);
  G_OBJECT_CLASS (lb_viewport_grid_parent_class)->dispose (object);
}

static void
lb_viewport_grid_class_init (LbViewportGridClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = lb_viewport_grid_get_property;
  object_class->dispose = lb_viewport_grid_dispose;
  properties[PROP_ACTIVE] = g_param_spec_object ("active", NULL, NULL, LB_TYPE_VIEWPORT,
                                                 G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY
                                                 | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "lb-viewport-grid");
}

static void
lb_viewport_grid_init (LbViewportGrid *self)
{
  self->grid = gtk_grid_new ();
  gtk_grid_set_row_homogeneous (GTK_GRID (self->grid), TRUE);
  gtk_grid_set_column_homogeneous (GTK_GRID (self->grid), TRUE);
  /* a thin dark gap between viewports */
  gtk_grid_set_row_spacing (GTK_GRID (self->grid), 2);
  gtk_grid_set_column_spacing (GTK_GRID (self->grid), 2);
  gtk_widget_set_parent (self->grid, GTK_WIDGET (self));
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);
  for (guint i = 0; i < LB_VIEWPORT_GRID_MAX; i++)
    {
      g_autofree char *name = g_strdup_printf ("viewport_%u", i);

      self->viewports[i] = g_object_ref_sink (LB_VIEWPORT (lb_viewport_new ()));
      gtk_widget_set_name (GTK_WIDGET (self->viewports[i]), name);
      /* the first says how to open anything; the others how to fill them */
      if (i > 0)
        gtk_label_set_text (GTK_LABEL (lb_viewport_get_empty_label (self->viewports[i])),
                            _("Drag a series or an image here from the store tree"));
    }
  self->active = self->viewports[0];
  lb_viewport_grid_set_layout (self, 1, 1);
}
