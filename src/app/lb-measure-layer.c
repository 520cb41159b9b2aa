/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-measure"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "lb-dialogs.h"
#include "lb-measure-layer.h"
#include "lb-measure-text.h"

/* Widget pixels: how near the pointer must be to grab a handle or a line, the least drag that
 * draws a two-point measurement, the step between freehand points, a double click's reach. */
#define HANDLE_RADIUS  7.0
#define LINE_REACH     5.0
#define MIN_DRAG       3.0
#define FREEHAND_STEP  3.0
#define DOUBLE_REACH   6.0
#define DOUBLE_MS      400
/* An ellipse is drawn and hit-tested as a polygon of this many sides. */
#define ELLIPSE_SIDES  72

typedef enum {
  STATE_NONE,
  STATE_HANDLE,    /* a handle of the selected measurement is dragged */
  STATE_MOVE,      /* the whole selected measurement is dragged */
  STATE_DRAG_DRAW, /* two-point tools: the second point follows the drag */
  STATE_FREEHAND,  /* the outline follows the drag */
  STATE_CLICKS,    /* angle, polyline: each press fixes a point, the last follows the pointer */
} State;

typedef struct {
  LbImage            *image;   /* the values are of this image */
  LbMeasurementValues values;
  gboolean            ok;
} Cached;

struct _LbMeasureLayer
{
  GObject             parent_instance;

  LbCanvas           *canvas;  /* weak: the canvas goes with the window */
  LbMeasurementList  *list;
  LbHistory          *history;
  GtkEventController *drag;
  GtkEventController *motion;
  guint               frame;
  gboolean            tool_active;
  LbMeasurementTool   tool;
  LbMeasurement      *drawing;  /* being drawn, not yet in the list */
  LbMeasurement      *selected;
  State               state;
  guint               handle;
  LbMeasurement      *before;   /* the selected measurement before the drag */
  double              start_x, start_y;   /* widget point where the drag began */
  double              start_ix, start_iy; /* the same in image coordinates */
  gint64              last_press_us;
  double              last_press_x, last_press_y;
  GHashTable         *cache;    /* LbMeasurement → Cached */
};

G_DEFINE_FINAL_TYPE (LbMeasureLayer, lb_measure_layer, G_TYPE_OBJECT)

enum { SIGNAL_SELECTION_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
cached_free (gpointer data)
{
  Cached *c = data;

  g_clear_object (&c->image);
  g_free (c);
}

static void
redraw (LbMeasureLayer *self)
{
  if (self->canvas != NULL)
    gtk_widget_queue_draw (GTK_WIDGET (self->canvas));
}

static void
on_items_changed (GListModel     *model,
                  guint           position,
                  guint           removed,
                  guint           added,
                  LbMeasureLayer *self)
{
  for (guint i = position; i < position + added; i++)
    g_hash_table_remove (self->cache, lb_measurement_list_get (self->list, i));
  /* a removed selection goes */
  if (self->selected != NULL && !lb_measurement_list_find (self->list, self->selected, NULL))
    lb_measure_layer_select (self, NULL);
  if (removed > 0)
    {
      GHashTableIter iter;
      gpointer key;

      g_hash_table_iter_init (&iter, self->cache);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        if (!lb_measurement_list_find (self->list, key, NULL))
          g_hash_table_iter_remove (&iter);
    }
  redraw (self);
}

gboolean
lb_measure_layer_compute (LbMeasureLayer      *self,
                          LbMeasurement       *m,
                          LbMeasurementValues *values)
{
  LbImage *image;
  Cached *c;
  LbMeasurementSpacing spacing;

  g_return_val_if_fail (LB_IS_MEASURE_LAYER (self), FALSE);
  image = self->canvas != NULL ? lb_canvas_get_image (self->canvas) : NULL;
  if (image == NULL)
    return FALSE;
  c = m != self->drawing ? g_hash_table_lookup (self->cache, m) : NULL;
  if (c != NULL && c->image == image)
    {
      *values = c->values;
      return c->ok;
    }
  lb_measurement_spacing_from_meta (lb_image_get_meta (image), &spacing);
  c = g_new0 (Cached, 1);
  c->image = g_object_ref (image);
  c->ok = lb_measurement_compute (m, &spacing, image, &c->values, NULL);
  /* a colour image has no statistics: its area and lengths still count */
  if (!c->ok)
    c->ok = lb_measurement_compute (m, &spacing, NULL, &c->values, NULL);
  *values = c->values;
  if (m != self->drawing)
    g_hash_table_replace (self->cache, g_object_ref (m), c);
  else
    {
      gboolean ok = c->ok;

      cached_free (c);
      return ok;
    }
  return c->ok;
}

/* ---- geometry on the screen -------------------------------------------------------------- */

static void
to_widget (LbMeasureLayer *self, LbMeasurementPoint p, double *x, double *y)
{
  if (!lb_canvas_image_to_widget (self->canvas, p.x, p.y, x, y))
    *x = *y = 0;
}

/* The outline of @m in widget coordinates: its points, or the rectangle's and the ellipse's
 * corners and sides. *closed for ROIs. */
static GArray *
outline (LbMeasureLayer *self, LbMeasurement *m, gboolean *closed)
{
  GArray *pts = g_array_new (FALSE, FALSE, sizeof (graphene_point_t));
  guint n = lb_measurement_get_n_points (m);
  LbMeasurementTool tool = lb_measurement_get_tool (m);

  *closed = lb_measurement_tool_is_roi (tool);
  if ((tool == LB_MEASUREMENT_RECTANGLE || tool == LB_MEASUREMENT_ELLIPSE) && n == 2)
    {
      LbMeasurementPoint a = lb_measurement_get_point (m, 0), b = lb_measurement_get_point (m, 1);
      double cx = (a.x + b.x) / 2, cy = (a.y + b.y) / 2, rx = fabs (b.x - a.x) / 2;
      double ry = fabs (b.y - a.y) / 2;
      guint sides = tool == LB_MEASUREMENT_RECTANGLE ? 4 : ELLIPSE_SIDES;

      for (guint i = 0; i < sides; i++)
        {
          LbMeasurementPoint p;
          graphene_point_t w;
          double x, y;

          if (tool == LB_MEASUREMENT_RECTANGLE)
            p = (LbMeasurementPoint) { (i == 1 || i == 2) ? b.x : a.x, i >= 2 ? b.y : a.y };
          else
            p = (LbMeasurementPoint) { cx + rx * cos (2 * G_PI * i / sides),
                                       cy + ry * sin (2 * G_PI * i / sides) };
          to_widget (self, p, &x, &y);
          w = GRAPHENE_POINT_INIT (x, y);
          g_array_append_val (pts, w);
        }
      return pts;
    }
  for (guint i = 0; i < n; i++)
    {
      graphene_point_t w;
      double x, y;

      to_widget (self, lb_measurement_get_point (m, i), &x, &y);
      w = GRAPHENE_POINT_INIT (x, y);
      g_array_append_val (pts, w);
    }
  return pts;
}

static double
segment_distance (double px, double py, graphene_point_t a, graphene_point_t b)
{
  double dx = b.x - a.x, dy = b.y - a.y, len2 = dx * dx + dy * dy, t = 0;

  if (len2 > 0)
    t = CLAMP (((px - a.x) * dx + (py - a.y) * dy) / len2, 0, 1);
  return hypot (px - (a.x + t * dx), py - (a.y + t * dy));
}

/* Whether widget point (@x, @y) is on @m: near a line of it, inside a region, on a probe. */
static gboolean
hits (LbMeasureLayer *self, LbMeasurement *m, double x, double y)
{
  g_autoptr(GArray) pts = NULL;
  gboolean closed, inside = FALSE;
  guint n;

  pts = outline (self, m, &closed);
  n = pts->len;
  if (n == 1)
    {
      graphene_point_t p = g_array_index (pts, graphene_point_t, 0);
      return hypot (x - p.x, y - p.y) <= HANDLE_RADIUS;
    }
  for (guint i = 0; i + 1 < n + (closed ? 1 : 0); i++)
    {
      graphene_point_t a = g_array_index (pts, graphene_point_t, i);
      graphene_point_t b = g_array_index (pts, graphene_point_t, (i + 1) % n);

      if (segment_distance (x, y, a, b) <= LINE_REACH)
        return TRUE;
      /* even-odd, as the inside rule counts */
      if (closed && ((a.y > y) != (b.y > y)) && x < a.x + (y - a.y) * (b.x - a.x) / (b.y - a.y))
        inside = !inside;
    }
  return inside;
}

/* The handle of @m under widget point (@x, @y): its points. */
static gboolean
hit_handle (LbMeasureLayer *self, LbMeasurement *m, double x, double y, guint *index)
{
  for (guint i = 0; i < lb_measurement_get_n_points (m); i++)
    {
      double hx, hy;

      to_widget (self, lb_measurement_get_point (m, i), &hx, &hy);
      if (hypot (x - hx, y - hy) <= HANDLE_RADIUS)
        {
          *index = i;
          return TRUE;
        }
    }
  return FALSE;
}

/* ---- drawing ----------------------------------------------------------------------------- */

static void
stroke_twice (cairo_t *cr, gboolean selected)
{
  /* a dark edge keeps the line visible on bright and dark tissue alike */
  cairo_set_source_rgba (cr, 0, 0, 0, 0.8);
  cairo_set_line_width (cr, 3.5);
  cairo_stroke_preserve (cr);
  if (selected)
    cairo_set_source_rgb (cr, 0.3, 0.85, 1.0);
  else
    cairo_set_source_rgb (cr, 1.0, 0.85, 0.2);
  cairo_set_line_width (cr, 1.5);
  cairo_stroke (cr);
}

/* The label at (@x, @y), on a dark box so it reads on any tissue. */
static void
draw_label (cairo_t *cr, PangoLayout *layout, double x, double y)
{
  int w, h;

  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_set_source_rgba (cr, 0, 0, 0, 0.65);
  cairo_rectangle (cr, x - 3, y - 2, w + 6, h + 4);
  cairo_fill (cr);
  cairo_set_source_rgb (cr, 1.0, 0.95, 0.6);
  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, layout);
}

/* Where a measurement's label goes: a line's by its last point (an angle's by its vertex, an
 * arrow's by its tail), a region's right of its top. */
static graphene_point_t
label_anchor (LbMeasurementTool tool, GArray *pts, gboolean closed)
{
  graphene_point_t at = GRAPHENE_POINT_INIT (-G_MAXFLOAT, G_MAXFLOAT);

  if (!closed)
    {
      guint k = tool == LB_MEASUREMENT_ARROW ? 0
                : tool == LB_MEASUREMENT_ANGLE && pts->len > 1 ? 1 : pts->len - 1;

      return g_array_index (pts, graphene_point_t, k);
    }
  for (guint i = 0; i < pts->len; i++)
    {
      at.x = MAX (at.x, g_array_index (pts, graphene_point_t, i).x);
      at.y = MIN (at.y, g_array_index (pts, graphene_point_t, i).y);
    }
  return at;
}

/* Each measurement is a cairo node of its own, only as large as it is: a node the size of
 * the canvas costs a full-size surface on every frame of a drag. */
static void
draw_measurement (LbMeasureLayer *self, GtkSnapshot *snapshot, LbMeasurement *m, int width,
                  int height)
{
  g_autoptr(GArray) pts = NULL;
  g_autoptr(PangoLayout) layout = NULL;
  g_autofree char *label = NULL;
  LbMeasurementValues values;
  gboolean closed, selected = m == self->selected;
  LbMeasurementTool tool = lb_measurement_get_tool (m);
  graphene_rect_t bounds, canvas = GRAPHENE_RECT_INIT (0, 0, width, height);
  graphene_point_t at;
  double x0 = G_MAXDOUBLE, y0 = G_MAXDOUBLE, x1 = -G_MAXDOUBLE, y1 = -G_MAXDOUBLE;
  cairo_t *cr;

  pts = outline (self, m, &closed);
  if (pts->len == 0)
    return;
  for (guint i = 0; i < pts->len; i++)
    {
      graphene_point_t p = g_array_index (pts, graphene_point_t, i);

      x0 = MIN (x0, p.x);
      y0 = MIN (y0, p.y);
      x1 = MAX (x1, p.x);
      y1 = MAX (y1, p.y);
    }
  /* line widths, the probe's cross, the arrow's head and the handles reach this far */
  bounds = GRAPHENE_RECT_INIT (x0 - 14, y0 - 14, x1 - x0 + 28, y1 - y0 + 28);
  at = label_anchor (tool, pts, closed);
  at.x += 8;
  if (lb_measurement_is_complete (m) && lb_measure_layer_compute (self, m, &values))
    label = lb_measure_text_label (m, &values);
  if (label != NULL && *label != '\0')
    {
      int w, h;

      layout = gtk_widget_create_pango_layout (GTK_WIDGET (self->canvas), label);
      pango_layout_get_pixel_size (layout, &w, &h);
      graphene_rect_union (&bounds, &GRAPHENE_RECT_INIT (at.x - 4, at.y - 3, w + 8, h + 6),
                           &bounds);
    }
  if (!graphene_rect_intersection (&bounds, &canvas, &bounds))
    return;
  cr = gtk_snapshot_append_cairo (snapshot, &bounds);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  for (guint i = 0; i < pts->len; i++)
    {
      graphene_point_t p = g_array_index (pts, graphene_point_t, i);

      if (i == 0)
        cairo_move_to (cr, p.x, p.y);
      else
        cairo_line_to (cr, p.x, p.y);
    }
  if (pts->len == 1)
    {
      graphene_point_t p = g_array_index (pts, graphene_point_t, 0);

      cairo_new_path (cr);
      cairo_move_to (cr, p.x - 6, p.y);
      cairo_line_to (cr, p.x + 6, p.y);
      cairo_move_to (cr, p.x, p.y - 6);
      cairo_line_to (cr, p.x, p.y + 6);
    }
  if (closed && pts->len > 2)
    cairo_close_path (cr);
  if (tool == LB_MEASUREMENT_ARROW && pts->len == 2)
    {
      graphene_point_t a = g_array_index (pts, graphene_point_t, 0);
      graphene_point_t b = g_array_index (pts, graphene_point_t, 1);
      double angle = atan2 (b.y - a.y, b.x - a.x);

      for (int sign = -1; sign <= 1; sign += 2)
        {
          cairo_move_to (cr, b.x, b.y);
          cairo_line_to (cr, b.x - 12 * cos (angle + sign * 0.45),
                         b.y - 12 * sin (angle + sign * 0.45));
        }
    }
  stroke_twice (cr, selected);
  if (selected)
    for (guint i = 0; i < lb_measurement_get_n_points (m); i++)
      {
        double hx, hy;

        to_widget (self, lb_measurement_get_point (m, i), &hx, &hy);
        cairo_rectangle (cr, hx - 3.5, hy - 3.5, 7, 7);
        cairo_set_source_rgb (cr, 0.3, 0.85, 1.0);
        cairo_fill_preserve (cr);
        cairo_set_source_rgb (cr, 0, 0, 0);
        cairo_set_line_width (cr, 1);
        cairo_stroke (cr);
      }
  if (layout != NULL)
    draw_label (cr, layout, at.x, at.y);
  cairo_destroy (cr);
}

static void
draw (LbCanvas    *canvas,
      GtkSnapshot *snapshot,
      int          width,
      int          height,
      gpointer     user_data)
{
  LbMeasureLayer *self = user_data;
  g_autoptr(GPtrArray) shown = NULL;

  if (lb_canvas_get_image (canvas) == NULL)
    return;
  shown = lb_measurement_list_dup_frame (self->list, self->frame);
  for (guint i = 0; i < shown->len; i++)
    draw_measurement (self, snapshot, g_ptr_array_index (shown, i), width, height);
  if (self->drawing != NULL)
    draw_measurement (self, snapshot, self->drawing, width, height);
}

/* ---- editing ----------------------------------------------------------------------------- */

void
lb_measure_layer_select (LbMeasureLayer *self,
                         LbMeasurement  *measurement)
{
  g_return_if_fail (LB_IS_MEASURE_LAYER (self));
  if (self->selected == measurement)
    return;
  g_set_object (&self->selected, measurement);
  redraw (self);
  g_signal_emit (self, signals[SIGNAL_SELECTION_CHANGED], 0);
}

LbMeasurement *
lb_measure_layer_get_selected (LbMeasureLayer *self)
{
  g_return_val_if_fail (LB_IS_MEASURE_LAYER (self), NULL);
  return self->selected;
}

gboolean
lb_measure_layer_delete_selected (LbMeasureLayer *self)
{
  g_autoptr(LbMeasurement) m = NULL;

  g_return_val_if_fail (LB_IS_MEASURE_LAYER (self), FALSE);
  if (self->selected == NULL)
    return FALSE;
  m = g_object_ref (self->selected);
  lb_measure_layer_select (self, NULL);
  /* TRANSLATORS: an undo step */
  return lb_measurement_list_remove_undoable (self->list, self->history, m,
                                              _("Delete measurement"));
}

static void
on_label_answer (GtkWindow *form,
                 gboolean   accepted,
                 gpointer   user_data)
{
  LbMeasureLayer *self = g_object_get_data (G_OBJECT (form), "lb-layer");
  LbMeasurement *m = user_data;
  GtkWidget *entry = g_object_get_data (G_OBJECT (form), "lb-entry");
  g_autoptr(LbMeasurement) before = lb_measurement_copy (m);

  if (!accepted || self == NULL)
    return;
  lb_measurement_set_text (m, gtk_editable_get_text (GTK_EDITABLE (entry)));
  lb_measurement_list_changed (self->list, m);
  /* TRANSLATORS: an undo step */
  lb_measurement_list_record_edit (self->list, self->history, m, before, _("Edit measurement"));
}

/* The arrow's text: asked in a small form once it is drawn. */
static void
ask_label (LbMeasureLayer *self, LbMeasurement *m)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self->canvas));
  GtkWidget *form, *entry;

  if (!GTK_IS_WINDOW (root))
    return;
  form = gtk_window_new ();
  /* TRANSLATORS: the title of the form that asks for an arrow's text */
  gtk_window_set_title (GTK_WINDOW (form), _("Arrow Label"));
  entry = gtk_entry_new ();
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  gtk_widget_set_margin_top (entry, 12);
  gtk_widget_set_margin_bottom (entry, 12);
  gtk_widget_set_margin_start (entry, 12);
  gtk_widget_set_margin_end (entry, 12);
  gtk_window_set_child (GTK_WINDOW (form), entry);
  g_object_set_data (G_OBJECT (form), "lb-entry", entry);
  g_object_set_data_full (G_OBJECT (form), "lb-layer", g_object_ref (self), g_object_unref);
  lb_dialogs_form (GTK_WINDOW (form), GTK_WINDOW (root), _("_Set"), on_label_answer,
                   g_object_ref (m), g_object_unref);
}

static void
finish_drawing (LbMeasureLayer *self)
{
  g_autoptr(LbMeasurement) m = g_steal_pointer (&self->drawing);

  self->state = STATE_NONE;
  if (m == NULL || !lb_measurement_validate (m, NULL))
    {
      redraw (self);
      return;
    }
  /* TRANSLATORS: an undo step */
  lb_measurement_list_add_undoable (self->list, self->history, m, self->frame,
                                    _("Add measurement"));
  lb_measure_layer_select (self, m);
  if (lb_measurement_get_tool (m) == LB_MEASUREMENT_ARROW)
    ask_label (self, m);
}

/* Ends the angle or polyline being clicked: the point following the pointer goes. */
static void
finish_clicks (LbMeasureLayer *self)
{
  if (self->drawing != NULL && lb_measurement_get_n_points (self->drawing) > 0)
    lb_measurement_remove_last_point (self->drawing);
  finish_drawing (self);
}

static void
drag_begin (GtkGestureDrag *gesture,
            double          x,
            double          y,
            LbMeasureLayer *self)
{
  GtkGesture *g = GTK_GESTURE (gesture);
  double ix, iy;
  gint64 now = g_get_monotonic_time ();
  gboolean twice;
  g_autoptr(GPtrArray) shown = NULL;

  if (!lb_canvas_widget_to_image_point (self->canvas, x, y, &ix, &iy)
      || lb_canvas_get_image (self->canvas) == NULL)
    {
      gtk_gesture_set_state (g, GTK_EVENT_SEQUENCE_DENIED);
      return;
    }
  gtk_widget_grab_focus (GTK_WIDGET (self->canvas));
  twice = now - self->last_press_us < DOUBLE_MS * 1000
          && hypot (x - self->last_press_x, y - self->last_press_y) <= DOUBLE_REACH;
  self->last_press_us = now;
  self->last_press_x = x;
  self->last_press_y = y;
  self->start_x = x;
  self->start_y = y;
  self->start_ix = ix;
  self->start_iy = iy;

  /* clicking the next point of an angle or polyline */
  if (self->state == STATE_CLICKS && self->drawing != NULL)
    {
      guint n = lb_measurement_get_n_points (self->drawing);

      gtk_gesture_set_state (g, GTK_EVENT_SEQUENCE_CLAIMED);
      if (twice)
        {
          /* a double click ends a polyline at the point its first click put */
          finish_clicks (self);
          return;
        }
      lb_measurement_set_point (self->drawing, n - 1, ix, iy);
      if (lb_measurement_get_tool (self->drawing) == LB_MEASUREMENT_ANGLE && n == 3)
        finish_drawing (self);
      else
        lb_measurement_add_point (self->drawing, ix, iy);
      redraw (self);
      return;
    }

  /* a handle of the selected measurement; with a tool, a press always starts a new one (a
   * measurement often starts where the last one ended) */
  if (!self->tool_active && self->selected != NULL
      && hit_handle (self, self->selected, x, y, &self->handle))
    {
      self->state = STATE_HANDLE;
      g_set_object (&self->before, NULL);
      self->before = lb_measurement_copy (self->selected);
      gtk_gesture_set_state (g, GTK_EVENT_SEQUENCE_CLAIMED);
      return;
    }

  if (self->tool_active)
    {
      gtk_gesture_set_state (g, GTK_EVENT_SEQUENCE_CLAIMED);
      g_clear_object (&self->drawing);
      self->drawing = lb_measurement_new (self->tool);
      lb_measurement_add_point (self->drawing, ix, iy);
      switch (self->tool)
        {
        case LB_MEASUREMENT_PROBE:
          finish_drawing (self);
          break;
        case LB_MEASUREMENT_FREEHAND:
          self->state = STATE_FREEHAND;
          break;
        case LB_MEASUREMENT_ANGLE:
        case LB_MEASUREMENT_POLYLINE:
          lb_measurement_add_point (self->drawing, ix, iy);
          self->state = STATE_CLICKS;
          break;
        case LB_MEASUREMENT_LENGTH:
        case LB_MEASUREMENT_RECTANGLE:
        case LB_MEASUREMENT_ELLIPSE:
        case LB_MEASUREMENT_ARROW:
        default:
          lb_measurement_add_point (self->drawing, ix, iy);
          self->state = STATE_DRAG_DRAW;
          break;
        }
      redraw (self);
      return;
    }

  /* a measurement of the frame shown: select it, and a drag moves it */
  shown = lb_measurement_list_dup_frame (self->list, self->frame);
  for (guint i = shown->len; i-- > 0;)
    if (hits (self, g_ptr_array_index (shown, i), x, y))
      {
        lb_measure_layer_select (self, g_ptr_array_index (shown, i));
        self->state = STATE_MOVE;
        g_set_object (&self->before, NULL);
        self->before = lb_measurement_copy (self->selected);
        gtk_gesture_set_state (g, GTK_EVENT_SEQUENCE_CLAIMED);
        return;
      }
  /* elsewhere: the canvas pans */
  lb_measure_layer_select (self, NULL);
  gtk_gesture_set_state (g, GTK_EVENT_SEQUENCE_DENIED);
}

static void
drag_update (GtkGestureDrag *gesture,
             double          dx,
             double          dy,
             LbMeasureLayer *self)
{
  double x = self->start_x + dx, y = self->start_y + dy, ix, iy;

  if (!lb_canvas_widget_to_image_point (self->canvas, x, y, &ix, &iy))
    return;
  switch (self->state)
    {
    case STATE_HANDLE:
      lb_measurement_set_point (self->selected, self->handle, ix, iy);
      lb_measurement_list_changed (self->list, self->selected);
      break;
    case STATE_MOVE:
      for (guint i = 0; i < lb_measurement_get_n_points (self->before); i++)
        {
          LbMeasurementPoint p = lb_measurement_get_point (self->before, i);

          lb_measurement_set_point (self->selected, i, p.x + ix - self->start_ix,
                                    p.y + iy - self->start_iy);
        }
      lb_measurement_list_changed (self->list, self->selected);
      break;
    case STATE_DRAG_DRAW:
      lb_measurement_set_point (self->drawing, 1, ix, iy);
      redraw (self);
      break;
    case STATE_FREEHAND:
      {
        guint n = lb_measurement_get_n_points (self->drawing);
        double lx, ly;

        to_widget (self, lb_measurement_get_point (self->drawing, n - 1), &lx, &ly);
        if (hypot (x - lx, y - ly) >= FREEHAND_STEP)
          {
            lb_measurement_add_point (self->drawing, ix, iy);
            redraw (self);
          }
      }
      break;
    case STATE_NONE:
    case STATE_CLICKS:
    default:
      break;
    }
}

static void
drag_end (GtkGestureDrag *gesture,
          double          dx,
          double          dy,
          LbMeasureLayer *self)
{
  switch (self->state)
    {
    case STATE_HANDLE:
    case STATE_MOVE:
      if (self->selected != NULL && self->before != NULL)
        /* TRANSLATORS: an undo step */
        lb_measurement_list_record_edit (self->list, self->history, self->selected,
                                         self->before, _("Edit measurement"));
      g_clear_object (&self->before);
      self->state = STATE_NONE;
      break;
    case STATE_DRAG_DRAW:
      if (hypot (dx, dy) < MIN_DRAG)
        {
          g_clear_object (&self->drawing);
          self->state = STATE_NONE;
          redraw (self);
        }
      else
        finish_drawing (self);
      break;
    case STATE_FREEHAND:
      finish_drawing (self);
      break;
    case STATE_NONE:
    case STATE_CLICKS:
    default:
      break;
    }
}

static void
on_motion (GtkEventControllerMotion *ctrl,
           double                    x,
           double                    y,
           LbMeasureLayer           *self)
{
  double ix, iy;
  guint n;

  if (self->state != STATE_CLICKS || self->drawing == NULL
      || !lb_canvas_widget_to_image_point (self->canvas, x, y, &ix, &iy))
    return;
  n = lb_measurement_get_n_points (self->drawing);
  lb_measurement_set_point (self->drawing, n - 1, ix, iy);
  redraw (self);
}

/* ---- tool -------------------------------------------------------------------------------- */

void
lb_measure_layer_set_tool (LbMeasureLayer    *self,
                           gboolean           active,
                           LbMeasurementTool  tool)
{
  g_return_if_fail (LB_IS_MEASURE_LAYER (self));
  if (self->state == STATE_CLICKS)
    finish_clicks (self);
  else if (self->drawing != NULL)
    finish_drawing (self);
  self->tool_active = active;
  self->tool = tool;
  if (self->canvas != NULL)
    gtk_widget_set_cursor_from_name (GTK_WIDGET (self->canvas), active ? "crosshair" : NULL);
}

gboolean
lb_measure_layer_get_tool (LbMeasureLayer    *self,
                           LbMeasurementTool *tool)
{
  g_return_val_if_fail (LB_IS_MEASURE_LAYER (self), FALSE);
  if (tool)
    *tool = self->tool;
  return self->tool_active;
}

void
lb_measure_layer_set_frame (LbMeasureLayer *self,
                            guint           frame)
{
  g_return_if_fail (LB_IS_MEASURE_LAYER (self));
  if (frame == self->frame)
    return;
  /* what was being drawn belongs to the frame it was started on; the values cached hold the
   * last frame's image, which need not stay in memory */
  g_clear_object (&self->drawing);
  g_hash_table_remove_all (self->cache);
  self->state = STATE_NONE;
  if (self->selected != NULL && lb_measurement_list_get_frame (self->list, self->selected) != frame)
    lb_measure_layer_select (self, NULL);
  self->frame = frame;
  redraw (self);
}

void
lb_measure_layer_set_history (LbMeasureLayer *self,
                              LbHistory      *history)
{
  g_return_if_fail (LB_IS_MEASURE_LAYER (self));
  g_set_object (&self->history, history);
}

/* ---- life -------------------------------------------------------------------------------- */

void
lb_measure_layer_detach (LbMeasureLayer *self)
{
  g_return_if_fail (LB_IS_MEASURE_LAYER (self));
  if (self->canvas == NULL)
    return;
  lb_canvas_set_overlay_func (self->canvas, NULL, NULL);
  gtk_widget_remove_controller (GTK_WIDGET (self->canvas), self->drag);
  gtk_widget_remove_controller (GTK_WIDGET (self->canvas), self->motion);
  g_object_remove_weak_pointer (G_OBJECT (self->canvas), (gpointer *) &self->canvas);
  self->canvas = NULL;
}

static void
lb_measure_layer_dispose (GObject *object)
{
  LbMeasureLayer *self = LB_MEASURE_LAYER (object);

  lb_measure_layer_detach (self);
  if (self->list != NULL)
    g_signal_handlers_disconnect_by_data (self->list, self);
  g_clear_object (&self->list);
  g_clear_object (&self->history);
  g_clear_object (&self->drawing);
  g_clear_object (&self->selected);
  g_clear_object (&self->before);
  g_hash_table_remove_all (self->cache);
  G_OBJECT_CLASS (lb_measure_layer_parent_class)->dispose (object);
}

static void
lb_measure_layer_finalize (GObject *object)
{
  g_hash_table_unref (LB_MEASURE_LAYER (object)->cache);
  G_OBJECT_CLASS (lb_measure_layer_parent_class)->finalize (object);
}

static void
lb_measure_layer_class_init (LbMeasureLayerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = lb_measure_layer_dispose;
  object_class->finalize = lb_measure_layer_finalize;
  signals[SIGNAL_SELECTION_CHANGED] = g_signal_new ("selection-changed",
                                                    G_TYPE_FROM_CLASS (klass),
                                                    G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                    G_TYPE_NONE, 0);
}

static void
lb_measure_layer_init (LbMeasureLayer *self)
{
  self->frame = 1;
  self->cache = g_hash_table_new_full (g_direct_hash, g_direct_equal, g_object_unref,
                                       cached_free);
}

LbMeasureLayer *
lb_measure_layer_new (LbCanvas          *canvas,
                      LbMeasurementList *list)
{
  LbMeasureLayer *self;
  GtkGesture *drag;

  g_return_val_if_fail (LB_IS_CANVAS (canvas), NULL);
  g_return_val_if_fail (LB_IS_MEASUREMENT_LIST (list), NULL);
  self = g_object_new (LB_TYPE_MEASURE_LAYER, NULL);
  self->canvas = canvas;
  g_object_add_weak_pointer (G_OBJECT (canvas), (gpointer *) &self->canvas);
  self->list = g_object_ref (list);
  g_signal_connect (list, "items-changed", G_CALLBACK (on_items_changed), self);

  /* before the canvas' own drag (pan): a press on a measurement or with a tool is ours */
  drag = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), GDK_BUTTON_PRIMARY);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (drag), GTK_PHASE_CAPTURE);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (drag_update), self);
  g_signal_connect (drag, "drag-end", G_CALLBACK (drag_end), self);
  self->drag = GTK_EVENT_CONTROLLER (drag);
  gtk_widget_add_controller (GTK_WIDGET (canvas), self->drag);

  self->motion = gtk_event_controller_motion_new ();
  g_signal_connect (self->motion, "motion", G_CALLBACK (on_motion), self);
  gtk_widget_add_controller (GTK_WIDGET (canvas), self->motion);

  lb_canvas_set_overlay_func (canvas, draw, self);
  return self;
}
