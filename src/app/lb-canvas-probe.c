/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-canvas"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "lb-canvas-private.h"

/* Between widget and image: coordinates, the visible part, the pixel under the pointer. */

gboolean
lb_canvas_widget_to_image (LbCanvas *self,
                           double    x,
                           double    y,
                           int      *ix,
                           int      *iy)
{
  double fx, fy;

  g_return_val_if_fail (LB_IS_CANVAS (self), FALSE);
  if (!self->have_src)
    return FALSE;
  lb_view_to_image (&self->view, self->src.width, self->src.height,
                    gtk_widget_get_width (GTK_WIDGET (self)),
                    gtk_widget_get_height (GTK_WIDGET (self)), x, y, &fx, &fy);
  fx = floor (fx);
  fy = floor (fy);
  if (fx < 0 || fy < 0 || fx >= self->src.width || fy >= self->src.height)
    return FALSE;
  *ix = (int) fx;
  *iy = (int) fy;
  return TRUE;
}

gboolean
lb_canvas_widget_to_image_point (LbCanvas *self,
                                 double    x,
                                 double    y,
                                 double   *ix,
                                 double   *iy)
{
  g_return_val_if_fail (LB_IS_CANVAS (self), FALSE);
  if (!self->have_src)
    return FALSE;
  lb_view_to_image (&self->view, self->src.width, self->src.height,
                    gtk_widget_get_width (GTK_WIDGET (self)),
                    gtk_widget_get_height (GTK_WIDGET (self)), x, y, ix, iy);
  return TRUE;
}

gboolean
lb_canvas_image_to_widget (LbCanvas *self,
                           double    ix,
                           double    iy,
                           double   *x,
                           double   *y)
{
  g_return_val_if_fail (LB_IS_CANVAS (self), FALSE);
  if (!self->have_src)
    return FALSE;
  lb_view_from_image (&self->view, self->src.width, self->src.height,
                      gtk_widget_get_width (GTK_WIDGET (self)),
                      gtk_widget_get_height (GTK_WIDGET (self)), ix, iy, x, y);
  return TRUE;
}

gboolean
lb_canvas_get_visible_rect (LbCanvas     *self,
                            GdkRectangle *rect)
{
  double ww, wh, x0 = G_MAXDOUBLE, y0 = G_MAXDOUBLE, x1 = -G_MAXDOUBLE, y1 = -G_MAXDOUBLE;
  const double cx[4] = { 0, 1, 0, 1 }, cy[4] = { 0, 0, 1, 1 };

  g_return_val_if_fail (LB_IS_CANVAS (self), FALSE);
  if (!self->have_src)
    return FALSE;
  ww = gtk_widget_get_width (GTK_WIDGET (self));
  wh = gtk_widget_get_height (GTK_WIDGET (self));
  for (int i = 0; i < 4; i++)
    {
      double fx, fy;

      lb_view_to_image (&self->view, self->src.width, self->src.height, ww, wh,
                        cx[i] * ww, cy[i] * wh, &fx, &fy);
      x0 = MIN (x0, fx);
      y0 = MIN (y0, fy);
      x1 = MAX (x1, fx);
      y1 = MAX (y1, fy);
    }
  x0 = CLAMP (floor (x0), 0, self->src.width);
  y0 = CLAMP (floor (y0), 0, self->src.height);
  x1 = CLAMP (ceil (x1), 0, self->src.width);
  y1 = CLAMP (ceil (y1), 0, self->src.height);
  if (x1 <= x0 || y1 <= y0)
    return FALSE;
  rect->x = (int) x0;
  rect->y = (int) y0;
  rect->width = (int) (x1 - x0);
  rect->height = (int) (y1 - y0);
  return TRUE;
}

char *
lb_canvas_describe_pixel (LbCanvas *self,
                          int       x,
                          int       y)
{
  const guint8 *p;
  guint channels, v[4];
  gboolean wide;
  GString *s;

  g_return_val_if_fail (LB_IS_CANVAS (self), NULL);
  if (!self->have_src || x < 0 || y < 0 || x >= (int) self->src.width
      || y >= (int) self->src.height)
    return NULL;
  channels = lb_sample_format_get_channels (self->src.format);
  wide = lb_sample_format_get_sample_size (self->src.format) == 2;
  p = self->src.data + (gsize) y * self->src.stride
      + (gsize) x * lb_sample_format_get_pixel_size (self->src.format);
  for (guint c = 0; c < channels; c++)
    v[c] = wide ? ((const guint16 *) p)[c] : p[c];

  s = g_string_new (NULL);
  /* TRANSLATORS: pixel probe: image column and row */
  g_string_append_printf (s, _("x %d  y %d"), x, y);
  g_string_append (s, "  ");
  if (channels >= 3)
    g_string_append_printf (s, "R %u G %u B %u", v[0], v[1], v[2]);
  else if (self->model == NULL)
    g_string_append_printf (s, "%u", v[0]);
  else if (lb_value_model_is_padding (self->model, v[0]))
    /* TRANSLATORS: pixel probe on pixel padding (outside the scanned area): no value */
    g_string_append (s, _("padding"));
  else
    {
      const char *units = lb_canvas_get_units_label (self);

      /* the value as stored in the source (signed when it was), then the real-world value
       * with the precision it has */
      g_string_append_printf (s, "%d", lb_value_model_sample_to_stored (self->model, v[0]));
      if (lb_value_model_get_modality_kind (self->model) != LB_MODALITY_NONE || units != NULL)
        {
          g_autofree char *value = lb_value_model_format_value (
            self->model, lb_value_model_to_value (self->model, v[0]));

          if (units != NULL)
            /* TRANSLATORS: pixel probe: real-world value and its unit, e.g. "(19 HU)" */
            g_string_append_printf (s, _("  (%s %s)"), value, units);
          else
            g_string_append_printf (s, "  (%s)", value);
        }
    }
  return g_string_free (s, FALSE);
}

void
lb_canvas_probe_at (LbCanvas *self,
                    double    x,
                    double    y)
{
  g_return_if_fail (LB_IS_CANVAS (self));
  self->pointer_x = x;
  self->pointer_y = y;
  self->pointer_inside = TRUE;
  _lb_canvas_update_probe (self);
}

gboolean
lb_canvas_peek_display_pixel (LbCanvas *self,
                              guint     x,
                              guint     y,
                              guint32  *argb)
{
  gsize len;
  const guint32 *px;

  g_return_val_if_fail (LB_IS_CANVAS (self), FALSE);
  if (self->display == NULL || x >= self->display_w || y >= self->display_h)
    return FALSE;
  px = g_bytes_get_data (self->display, &len);
  *argb = px[(gsize) y * self->display_w + x];
  return TRUE;
}
