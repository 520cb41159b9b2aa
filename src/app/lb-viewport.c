/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-viewport"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "lb-canvas-private.h"
#include "lb-overlay-info.h"
#include "lb-scale-bar.h"
#include "lb-viewport.h"

/* The scale bar's drawing (logical pixels): the bar's thickness and its distance from the
 * viewport's bottom, above the orientation marker of the bottom edge (the caption sits above
 * the bar). */
#define BAR_THICK 4
#define BAR_BOTTOM 34
/* The active viewport's border (logical pixels), drawn over the canvas' edge. */
#define BORDER 2

struct _LbViewport {
  GtkWidget        parent_instance;

  GtkWidget       *overlay;
  LbCanvas        *canvas;
  GtkWidget       *corner[4];
  GtkWidget       *edge[4];
  GtkWidget       *empty_label;
  GtkWidget       *spinner;
  GtkWidget       *scale_bar;
  double           scale_bar_mm;  /* 0 when none is shown */
  double           scale_bar_px;  /* the same in logical pixels */
  gboolean         overlay_on;

  LbViewportState  state;
  gboolean         active;
  gboolean         marked;
  gboolean         has_line;
  double           line[4];

  GCancellable    *slice_cancellable;
  guint            slice_pending;  /* the slice being loaded, 0: none */
  guint            slice_serial;   /* a newer load makes older callbacks no-ops */
};

typedef struct {
  LbViewport *self;    /* a reference */
  guint       serial;
  guint       number;
} SliceLoad;

G_DEFINE_FINAL_TYPE (LbViewport, lb_viewport, GTK_TYPE_WIDGET)

enum { SIGNAL_REQUEST_ACTIVE, SIGNAL_OPEN_URI, SIGNAL_SLICE_SHOWN, N_SIGNALS };
static guint signals[N_SIGNALS];

static const char *const corner_names[4] = {
  "overlay_top_left", "overlay_top_right", "overlay_bottom_left", "overlay_bottom_right",
};
static const char *const edge_names[4] = {
  "marker_top", "marker_right", "marker_bottom", "marker_left",
};

/* ---- the overlay widgets --------------------------------------------------------------- */

static GtkWidget *
overlay_label (LbViewport *self, const char *name, GtkAlign h, GtkAlign v,
               GtkJustification justify, gboolean marker)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_widget_set_name (label, name);
  gtk_widget_set_halign (label, h);
  gtk_widget_set_valign (label, v);
  gtk_label_set_justify (GTK_LABEL (label), justify);
  gtk_widget_set_margin_start (label, 8);
  gtk_widget_set_margin_end (label, 8);
  gtk_widget_set_margin_top (label, 6);
  gtk_widget_set_margin_bottom (label, 6);
  gtk_widget_set_can_target (label, FALSE);
  gtk_widget_set_visible (label, FALSE);
  gtk_widget_add_css_class (label, "lb-overlay-text");
  if (marker)
    gtk_widget_add_css_class (label, "lb-overlay-marker");
  gtk_overlay_add_overlay (GTK_OVERLAY (self->overlay), label);
  return label;
}

/* ---- the scale bar ----------------------------------------------------------------------- */

static void
draw_scale_bar (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer user_data)
{
  LbViewport *self = user_data;
  g_autofree char *caption = NULL;
  g_autoptr(PangoLayout) layout = NULL;
  double y = height - BAR_BOTTOM - BAR_THICK;
  double x = round ((width - self->scale_bar_px) / 2);
  int tw, th;

  if (self->scale_bar_mm <= 0)
    return;
  /* a dark rim keeps the white bar readable on bright images */
  cairo_set_source_rgba (cr, 0, 0, 0, 0.6);
  cairo_rectangle (cr, x - 1, y - 1, self->scale_bar_px + 2, BAR_THICK + 2);
  cairo_fill (cr);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_rectangle (cr, x, y, self->scale_bar_px, BAR_THICK);
  cairo_fill (cr);

  caption = lb_scale_bar_format (self->scale_bar_mm);
  layout = gtk_widget_create_pango_layout (GTK_WIDGET (area), caption);
  pango_layout_get_pixel_size (layout, &tw, &th);
  cairo_move_to (cr, (width - tw) / 2.0 + 1, y - 2 - th + 1);
  cairo_set_source_rgba (cr, 0, 0, 0, 0.8);
  pango_cairo_show_layout (cr, layout);
  cairo_move_to (cr, (width - tw) / 2.0, y - 2 - th);
  cairo_set_source_rgb (cr, 1, 1, 1);
  pango_cairo_show_layout (cr, layout);
}

void
lb_viewport_update_scale_bar (LbViewport *self,
                              gboolean    on)
{
  LbImage *image;
  double sx, sy, mm = 0, px = 0;

  g_return_if_fail (LB_IS_VIEWPORT (self));
  self->overlay_on = on;
  image = lb_canvas_get_image (self->canvas);
  /* with the overlay, across at most a quarter of the viewport */
  if (image != NULL && on
      && lb_image_meta_get_pixel_spacing (lb_image_get_meta (image), &sx, &sy)
      && !lb_scale_bar_choose (lb_scale_bar_mm_per_pixel (sx, sy,
                                                          lb_canvas_get_rotation (self->canvas),
                                                          lb_canvas_get_zoom (self->canvas)),
                               gtk_widget_get_width (GTK_WIDGET (self->canvas)) / 4.0, &mm, &px))
    mm = px = 0;
  self->scale_bar_mm = mm;
  self->scale_bar_px = px;
  if (mm > 0)
    {
      g_autofree char *caption = lb_scale_bar_format (mm);

      gtk_accessible_update_property (GTK_ACCESSIBLE (self->scale_bar),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, caption, -1);
    }
  gtk_widget_queue_draw (self->scale_bar);
}

/* The drawing covers the viewport, so that a new size of the viewport (the window, the tree
 * pane, the layout, full screen) gives the bar its new room even when the zoom stays. */
static void
on_scale_bar_resize (GtkDrawingArea *area, int width, int height, LbViewport *self)
{
  lb_viewport_update_scale_bar (self, self->overlay_on);
}

GtkWidget *
lb_viewport_get_scale_bar (LbViewport *self,
                           double     *mm)
{
  g_return_val_if_fail (LB_IS_VIEWPORT (self), NULL);
  if (mm != NULL)
    *mm = self->scale_bar_mm;
  return self->scale_bar;
}

/* ---- the reference line and the border ------------------------------------------------- */

gboolean
lb_viewport_image_to_widget (LbViewport *self,
                             double      x,
                             double      y,
                             double     *wx,
                             double     *wy)
{
  LbCanvas *c = self->canvas;
  double w = gtk_widget_get_width (GTK_WIDGET (c)), h = gtk_widget_get_height (GTK_WIDGET (c));
  double x0, y0, x1, y1, x2, y2, a, b, cc, d, det;

  if (!c->have_src || w <= 0 || h <= 0)
    return FALSE;
  /* the view maps widget points to image points affinely (zoom, quarter turns, flip): invert
   * the map from three of its points */
  lb_view_to_image (&c->view, c->src.width, c->src.height, w, h, 0, 0, &x0, &y0);
  lb_view_to_image (&c->view, c->src.width, c->src.height, w, h, 1, 0, &x1, &y1);
  lb_view_to_image (&c->view, c->src.width, c->src.height, w, h, 0, 1, &x2, &y2);
  a = x1 - x0, b = x2 - x0, cc = y1 - y0, d = y2 - y0;
  det = a * d - b * cc;
  if (fabs (det) < 1e-12)
    return FALSE;
  *wx = (d * (x - x0) - b * (y - y0)) / det;
  *wy = (-cc * (x - x0) + a * (y - y0)) / det;
  return TRUE;
}

void
lb_viewport_set_reference_line (LbViewport   *self,
                                const double *ij)
{
  g_return_if_fail (LB_IS_VIEWPORT (self));
  if (ij == NULL && !self->has_line)
    return;
  if (ij != NULL && self->has_line && memcmp (ij, self->line, sizeof self->line) == 0)
    return;
  self->has_line = ij != NULL;
  if (ij != NULL)
    memcpy (self->line, ij, sizeof self->line);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gboolean
lb_viewport_get_reference_line (LbViewport *self,
                                double      ij[4])
{
  g_return_val_if_fail (LB_IS_VIEWPORT (self), FALSE);
  if (self->has_line)
    memcpy (ij, self->line, sizeof self->line);
  return self->has_line;
}

/* The canvas fills the viewport, so canvas coordinates are the viewport's. Drawn here, after
 * the children, since a viewport's snapshot runs again whenever its canvas redraws (a pan,
 * a zoom, a new slice), and the line must move with the image. */
static void
lb_viewport_snapshot (GtkWidget   *widget,
                      GtkSnapshot *snapshot)
{
  LbViewport *self = LB_VIEWPORT (widget);
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  double x0, y0, x1, y1;

  gtk_widget_snapshot_child (widget, self->overlay, snapshot);
  /* pixel position i is continuous image coordinate i + 0.5 (the pixel's centre) */
  if (self->has_line && lb_canvas_has_pixels (self->canvas)
      && lb_viewport_image_to_widget (self, self->line[0] + 0.5, self->line[1] + 0.5, &x0, &y0)
      && lb_viewport_image_to_widget (self, self->line[2] + 0.5, self->line[3] + 0.5, &x1, &y1))
    {
      cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, w, h));

      /* yellow-green, a colour no grey image has and the overlay's text does not use */
      cairo_set_source_rgb (cr, 0.4, 1.0, 0.2);
      cairo_set_line_width (cr, 1.0);
      cairo_move_to (cr, x0, y0);
      cairo_line_to (cr, x1, y1);
      cairo_stroke (cr);
      cairo_destroy (cr);
    }
  if (self->active && self->marked)
    {
      GdkRGBA accent = { 0.21f, 0.52f, 0.89f, 1 };  /* Adwaita's blue */

      gtk_snapshot_append_color (snapshot, &accent, &GRAPHENE_RECT_INIT (0, 0, w, BORDER));
      gtk_snapshot_append_color (snapshot, &accent, &GRAPHENE_RECT_INIT (0, h - BORDER, w, BORDER));
      gtk_snapshot_append_color (snapshot, &accent, &GRAPHENE_RECT_INIT (0, 0, BORDER, h));
      gtk_snapshot_append_color (snapshot, &accent, &GRAPHENE_RECT_INIT (w - BORDER, 0, BORDER, h));
    }
}

/* ---- public API ------------------------------------------------------------------------ */

GtkWidget *
lb_viewport_new (void)
{
  return g_object_new (LB_TYPE_VIEWPORT, NULL);
}

LbCanvas *
lb_viewport_get_canvas (LbViewport *self)
{
  g_return_val_if_fail (LB_IS_VIEWPORT (self), NULL);
  return self->canvas;
}

LbViewportState *
lb_viewport_get_state (LbViewport *self)
{
  g_return_val_if_fail (LB_IS_VIEWPORT (self), NULL);
  return &self->state;
}

void
lb_viewport_clear_state (LbViewport *self)
{
  g_return_if_fail (LB_IS_VIEWPORT (self));
  lb_viewport_cancel_slice (self, NULL);
  g_clear_object (&self->state.history);
  g_clear_pointer (&self->state.image_name, g_free);
  g_clear_object (&self->state.frames);
  self->state.frame = 0;
}

GtkWidget *
lb_viewport_get_corner (LbViewport *self, guint corner)
{
  g_return_val_if_fail (LB_IS_VIEWPORT (self) && corner < 4, NULL);
  return self->corner[corner];
}

GtkWidget *
lb_viewport_get_edge (LbViewport *self, guint edge)
{
  g_return_val_if_fail (LB_IS_VIEWPORT (self) && edge < 4, NULL);
  return self->edge[edge];
}

GtkWidget *
lb_viewport_get_empty_label (LbViewport *self)
{
  g_return_val_if_fail (LB_IS_VIEWPORT (self), NULL);
  return self->empty_label;
}

GtkWidget *
lb_viewport_get_spinner (LbViewport *self)
{
  g_return_val_if_fail (LB_IS_VIEWPORT (self), NULL);
  return self->spinner;
}

GtkWidget *
lb_viewport_find_child (LbViewport *self,
                        const char *name)
{
  g_return_val_if_fail (LB_IS_VIEWPORT (self), NULL);
  for (GtkWidget *c = gtk_widget_get_first_child (self->overlay); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    if (g_strcmp0 (gtk_widget_get_name (c), name) == 0)
      return c;
  return NULL;
}

void
lb_viewport_set_active (LbViewport *self,
                        gboolean    active,
                        gboolean    marked)
{
  g_return_if_fail (LB_IS_VIEWPORT (self));
  if (self->active == !!active && self->marked == !!marked)
    return;
  self->active = !!active;
  self->marked = !!marked;
  if (active)
    gtk_widget_add_css_class (GTK_WIDGET (self), "active");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self), "active");
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gboolean
lb_viewport_get_active (LbViewport *self)
{
  g_return_val_if_fail (LB_IS_VIEWPORT (self), FALSE);
  return self->active;
}

/* ---- slices of its own (while not active) ---------------------------------------------- */

static void
on_slice_loaded (GObject *source, GAsyncResult *result, gpointer user_data)
{
  LbFrameSource *frames = LB_FRAME_SOURCE (source);
  g_autofree SliceLoad *load = user_data;
  g_autoptr(LbViewport) self = load->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(LbImage) image = lb_frame_source_load_finish (frames, result, &error);
  g_autoptr(LbImageMeta) meta = NULL;
  g_autoptr(LbImage) tagged = NULL;
  guint number = load->number;

  /* cancelled, or done just before a newer load or another stack came */
  if (load->serial != self->slice_serial || frames != self->state.frames)
    return;
  self->slice_pending = 0;
  gtk_spinner_set_spinning (GTK_SPINNER (self->spinner), FALSE);
  if (image == NULL)
    {
      /* the slice shown stays; the reader pages on or opens the series again */
      g_message ("slice %u of %s: %s", number, lb_frame_source_get_uri (frames),
                 error->message);
      return;
    }
  /* as lb-window-frames.c does: a slice of a series from its own file */
  meta = lb_image_dup_meta (image);
  lb_image_meta_set_source_uri (meta, lb_frame_source_get_frame_uri (frames, number));
  tagged = lb_image_with_meta (image, meta);
  g_clear_object (&self->state.history);
  self->state.history = lb_history_new (tagged);
  /* the view stays as the reader set it, unless nothing was shown yet */
  lb_canvas_set_image (self->canvas, tagged, self->state.frame != 0);
  lb_canvas_set_before_image (self->canvas, tagged);
  self->state.frame = number;
  g_signal_emit (self, signals[SIGNAL_SLICE_SHOWN], 0);
}

void
lb_viewport_show_slice (LbViewport *self,
                        guint       number)
{
  SliceLoad *load;

  g_return_if_fail (LB_IS_VIEWPORT (self));
  if (self->state.frames == NULL)
    return;
  number = CLAMP (number, 1, lb_frame_source_get_n_frames (self->state.frames));
  lb_viewport_cancel_slice (self, NULL);
  load = g_new (SliceLoad, 1);
  load->self = g_object_ref (self);
  load->serial = self->slice_serial;
  load->number = number;
  self->slice_cancellable = g_cancellable_new ();
  self->slice_pending = number;
  gtk_spinner_set_spinning (GTK_SPINNER (self->spinner), TRUE);
  lb_frame_source_load_async (self->state.frames, number, self->slice_cancellable,
                              on_slice_loaded, load);
}

gboolean
lb_viewport_cancel_slice (LbViewport *self,
                          guint      *pending)
{
  guint was;

  g_return_val_if_fail (LB_IS_VIEWPORT (self), FALSE);
  was = self->slice_pending;
  self->slice_serial++;
  if (self->slice_cancellable != NULL)
    g_cancellable_cancel (self->slice_cancellable);
  g_clear_object (&self->slice_cancellable);
  self->slice_pending = 0;
  if (self->spinner != NULL && was != 0)
    gtk_spinner_set_spinning (GTK_SPINNER (self->spinner), FALSE);
  if (pending != NULL)
    *pending = was;
  return was != 0;
}

/* ---- input ------------------------------------------------------------------------------- */

/* Any press or scroll makes the viewport active before its canvas sees the event, so that
 * the window's actions (the wheel pages win.next-frame) act on it. */
static gboolean
on_legacy_event (GtkEventControllerLegacy *legacy, GdkEvent *event, LbViewport *self)
{
  GdkEventType type = gdk_event_get_event_type (event);

  if (!self->active && (type == GDK_BUTTON_PRESS || type == GDK_SCROLL || type == GDK_TOUCH_BEGIN))
    g_signal_emit (self, signals[SIGNAL_REQUEST_ACTIVE], 0);
  return GDK_EVENT_PROPAGATE;
}

static void
on_canvas_focus (GtkEventControllerFocus *focus, LbViewport *self)
{
  if (!self->active)
    g_signal_emit (self, signals[SIGNAL_REQUEST_ACTIVE], 0);
}

static gboolean
on_drop (GtkDropTarget *target, const GValue *value, double x, double y, LbViewport *self)
{
  const char *uri = g_value_get_string (value);

  if (uri == NULL || *uri == '\0')
    return FALSE;
  /* the first line, should a text/uri-list come */
  {
    g_autofree char *first = g_strndup (uri, strcspn (uri, "\r\n"));

    g_signal_emit (self, signals[SIGNAL_OPEN_URI], 0, first);
  }
  return TRUE;
}

static void
on_canvas_has_pixels (LbCanvas *canvas, GParamSpec *pspec, LbViewport *self)
{
  gtk_widget_set_visible (self->empty_label, !lb_canvas_has_pixels (canvas));
}

/* ---- GObject --------------------------------------------------------------------------- */

static void
lb_viewport_dispose (GObject *object)
{
  LbViewport *self = LB_VIEWPORT (object);

  lb_viewport_clear_state (self);
  g_clear_pointer (&self->overlay, gtk_widget_unparent);
  G_OBJECT_CLASS (lb_viewport_parent_class)->dispose (object);
}

static void
lb_viewport_class_init (LbViewportClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lb_viewport_dispose;
  widget_class->snapshot = lb_viewport_snapshot;
  signals[SIGNAL_REQUEST_ACTIVE] = g_signal_new ("request-active", G_TYPE_FROM_CLASS (klass),
                                                 G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                 G_TYPE_NONE, 0);
  signals[SIGNAL_OPEN_URI] = g_signal_new ("open-uri", G_TYPE_FROM_CLASS (klass),
                                           G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                           G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[SIGNAL_SLICE_SHOWN] = g_signal_new ("slice-shown", G_TYPE_FROM_CLASS (klass),
                                              G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                              G_TYPE_NONE, 0);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "lb-viewport");
}

static void
lb_viewport_init (LbViewport *self)
{
  GtkEventController *legacy = gtk_event_controller_legacy_new ();
  GtkEventController *focus = gtk_event_controller_focus_new ();
  GtkDropTarget *drop = gtk_drop_target_new (G_TYPE_STRING, GDK_ACTION_COPY);

  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);
  self->overlay = gtk_overlay_new ();
  gtk_widget_set_parent (self->overlay, GTK_WIDGET (self));
  self->canvas = LB_CANVAS (lb_canvas_new ());
  gtk_widget_set_name (GTK_WIDGET (self->canvas), "canvas");
  gtk_overlay_set_child (GTK_OVERLAY (self->overlay), GTK_WIDGET (self->canvas));

  self->empty_label = gtk_label_new (_("Open a store or an image (Ctrl+O)"));
  gtk_widget_set_name (self->empty_label, "empty_label");
  gtk_widget_set_halign (self->empty_label, GTK_ALIGN_CENTER);
  gtk_widget_set_valign (self->empty_label, GTK_ALIGN_CENTER);
  gtk_widget_set_can_target (self->empty_label, FALSE);
  gtk_widget_add_css_class (self->empty_label, "dim-label");
  gtk_overlay_add_overlay (GTK_OVERLAY (self->overlay), self->empty_label);

  self->corner[0] = overlay_label (self, corner_names[0], GTK_ALIGN_START, GTK_ALIGN_START,
                                   GTK_JUSTIFY_LEFT, FALSE);
  self->corner[1] = overlay_label (self, corner_names[1], GTK_ALIGN_END, GTK_ALIGN_START,
                                   GTK_JUSTIFY_RIGHT, FALSE);
  self->corner[2] = overlay_label (self, corner_names[2], GTK_ALIGN_START, GTK_ALIGN_END,
                                   GTK_JUSTIFY_LEFT, FALSE);
  self->corner[3] = overlay_label (self, corner_names[3], GTK_ALIGN_END, GTK_ALIGN_END,
                                   GTK_JUSTIFY_RIGHT, FALSE);
  self->edge[0] = overlay_label (self, edge_names[0], GTK_ALIGN_CENTER, GTK_ALIGN_START,
                                 GTK_JUSTIFY_CENTER, TRUE);
  self->edge[1] = overlay_label (self, edge_names[1], GTK_ALIGN_END, GTK_ALIGN_CENTER,
                                 GTK_JUSTIFY_CENTER, TRUE);
  self->edge[2] = overlay_label (self, edge_names[2], GTK_ALIGN_CENTER, GTK_ALIGN_END,
                                 GTK_JUSTIFY_CENTER, TRUE);
  self->edge[3] = overlay_label (self, edge_names[3], GTK_ALIGN_START, GTK_ALIGN_CENTER,
                                 GTK_JUSTIFY_CENTER, TRUE);

  self->spinner = gtk_spinner_new ();
  gtk_widget_set_name (self->spinner, "canvas_spinner");
  gtk_widget_set_halign (self->spinner, GTK_ALIGN_END);
  gtk_widget_set_valign (self->spinner, GTK_ALIGN_START);
  gtk_widget_set_margin_end (self->spinner, 12);
  gtk_widget_set_margin_top (self->spinner, 12);
  gtk_widget_set_can_target (self->spinner, FALSE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->spinner), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Loading"), -1);
  gtk_overlay_add_overlay (GTK_OVERLAY (self->overlay), self->spinner);

  self->scale_bar = gtk_drawing_area_new ();
  gtk_widget_set_name (self->scale_bar, "scale_bar");
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->scale_bar), draw_scale_bar, self,
                                  NULL);
  g_signal_connect (self->scale_bar, "resize", G_CALLBACK (on_scale_bar_resize), self);
  gtk_widget_set_can_target (self->scale_bar, FALSE);
  gtk_overlay_add_overlay (GTK_OVERLAY (self->overlay), self->scale_bar);

  g_signal_connect (self->canvas, "notify::has-pixels", G_CALLBACK (on_canvas_has_pixels), self);
  gtk_event_controller_set_propagation_phase (legacy, GTK_PHASE_CAPTURE);
  g_signal_connect (legacy, "event", G_CALLBACK (on_legacy_event), self);
  gtk_widget_add_controller (GTK_WIDGET (self), legacy);
  g_signal_connect (focus, "enter", G_CALLBACK (on_canvas_focus), self);
  gtk_widget_add_controller (GTK_WIDGET (self->canvas), focus);
  g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));
}
