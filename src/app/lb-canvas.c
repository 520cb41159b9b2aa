/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-canvas"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "lb-canvas-private.h"

G_DEFINE_FINAL_TYPE (LbCanvas, lb_canvas, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_ZOOM,
  PROP_WINDOW_CENTER,
  PROP_WINDOW_WIDTH,
  PROP_INVERT,
  PROP_ROTATION,
  PROP_FLIP,
  PROP_SPLIT,
  PROP_PROBE_TEXT,
  PROP_HAS_PIXELS,
  PROP_VALUE_MODEL,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
invalidate (LbCanvas *self)
{
  self->dirty = TRUE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static guint
src_bit_depth (const LbRenderSource *src)
{
  return lb_sample_format_get_sample_size (src->format) == 2 ? 16 : 8;
}

/* The model of @meta if it describes samples of @src's size. */
static LbValueModel *
model_for (const LbImageMeta *meta, const LbRenderSource *src)
{
  return meta != NULL ? lb_image_meta_get_value_model_for (meta, src_bit_depth (src)) : NULL;
}

static void
rebuild_luts (LbCanvas *self)
{
  LbVoi voi = { LB_VOI_LINEAR, self->wl_center, self->wl_width, NULL };

  if (self->model != NULL)
    {
      voi.function = lb_value_model_get_voi_function (self->model);
      if (self->voi_lut >= 0)
        voi.lut = lb_value_model_get_voi_lut (self->model, (guint) self->voi_lut);
    }
  if (self->have_src)
    lb_lut_build (&self->lut, src_bit_depth (&self->src), self->model, &voi, self->invert);
  if (self->before != NULL)
    {
      LbValueModel *bmodel = model_for (lb_image_get_meta (self->before), &self->before_src);
      LbVoi bvoi = voi;

      /* the before image shares the window; a VOI LUT is the shown image's own */
      if (bmodel != self->model && !lb_value_model_equal (bmodel, self->model))
        bvoi.lut = NULL;
      bvoi.function = bmodel ? lb_value_model_get_voi_function (bmodel) : LB_VOI_LINEAR;
      lb_lut_build (&self->before_lut, src_bit_depth (&self->before_src), bmodel, &bvoi,
                    self->invert);
    }
  invalidate (self);
}

/* The real-world values of the lowest and highest sample. */
static void
value_range (LbCanvas *self, double *lo, double *hi)
{
  double a = lb_sample_value (self->model, 0);
  double b = lb_sample_value (self->model, src_bit_depth (&self->src) == 16 ? 65535 : 255);

  *lo = MIN (a, b);
  *hi = MAX (a, b);
}

static void
ensure_histogram (LbCanvas *self)
{
  guint bins;

  if (self->hist_valid || !self->have_src)
    return;
  bins = src_bit_depth (&self->src) == 16 ? 65536 : 256;
  if (self->hist_bins != bins)
    {
      g_free (self->hist);
      self->hist = g_new0 (guint64, bins);
      self->hist_bins = bins;
    }
  else
    memset (self->hist, 0, bins * sizeof (guint64));
  lb_histogram_add_rows (self->hist, &self->src, 0, self->src.height);
  self->hist_valid = TRUE;
}

/* A sensible window for a new image: the file's first preset (PS3.3 C.11.2), else its first
 * VOI LUT, else the full range for 8-bit, else the histogram's 1st–99th percentile. */
static void
default_window (LbCanvas *self)
{
  double c = 0, w = 1, lo, hi;

  self->voi_lut = -1;
  if (self->model != NULL && lb_value_model_get_window (self->model, 0, &c, &w, NULL))
    ;
  else if (self->model != NULL && lb_value_model_get_n_voi_luts (self->model) > 0)
    self->voi_lut = 0;
  else if (src_bit_depth (&self->src) == 8 || self->image == NULL)
    {
      /* 8-bit, or progressive (lb_canvas_progress_rows() follows the histogram as rows
       * come): the whole range, lo → black and hi → white under PS3.3's LINEAR */
      value_range (self, &lo, &hi);
      c = (lo + hi) / 2.0 + 0.5;
      w = hi - lo + 1;
    }
  else
    {
      ensure_histogram (self);
      if (!lb_histogram_window (self->hist, self->hist_bins, self->model, 0.01, 0.99, &c, &w))
        {
          value_range (self, &lo, &hi);
          c = (lo + hi) / 2.0 + 0.5;
          w = hi - lo + 1;
        }
    }
  self->wl_center = c;
  self->wl_width = w;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_WINDOW_CENTER]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_WINDOW_WIDTH]);
}

static void
clamp_center (LbCanvas *self)
{
  double rw, rh;

  if (!self->have_src)
    return;
  /* Keep the view centre on the image so it can never be panned out of sight. */
  lb_view_rotated_size (&self->view, self->src.width, self->src.height, &rw, &rh);
  self->view.center_x = CLAMP (self->view.center_x, 0, rw);
  self->view.center_y = CLAMP (self->view.center_y, 0, rh);
}

static void
set_zoom_internal (LbCanvas *self,
                   double    zoom)
{
  zoom = CLAMP (zoom, MIN_ZOOM, MAX_ZOOM);
  if (zoom == self->view.zoom)
    return;
  self->view.zoom = zoom;
  invalidate (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
}

static void
fit (LbCanvas *self)
{
  double rw, rh, ww, wh;

  if (!self->have_src)
    return;
  ww = gtk_widget_get_width (GTK_WIDGET (self));
  wh = gtk_widget_get_height (GTK_WIDGET (self));
  lb_view_rotated_size (&self->view, self->src.width, self->src.height, &rw, &rh);
  self->view.center_x = rw / 2.0;
  self->view.center_y = rh / 2.0;
  if (ww > 0 && wh > 0)
    set_zoom_internal (self, MIN (ww / rw, wh / rh));
  invalidate (self);
}

void
_lb_canvas_update_probe (LbCanvas *self)
{
  g_autofree char *text = NULL;
  int ix, iy;

  if (self->pointer_inside
      && lb_canvas_widget_to_image (self, self->pointer_x, self->pointer_y, &ix, &iy))
    text = lb_canvas_describe_pixel (self, ix, iy);
  if (g_strcmp0 (text, self->probe_text) == 0)
    return;
  g_free (self->probe_text);
  self->probe_text = g_steal_pointer (&text);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROBE_TEXT]);
}

/* Sensitivity of a W/L drag in modality units per widget pixel: the whole data range over
 * about 500 pixels, so one sweep across the canvas covers everything. */
double
_lb_canvas_wl_sensitivity (LbCanvas *self)
{
  double lo = 0, hi = 255;

  if (src_bit_depth (&self->src) == 16)
    {
      double c, w;

      ensure_histogram (self);
      if (self->hist_valid
          && lb_histogram_window (self->hist, self->hist_bins, self->model, 0.0, 1.0, &c, &w))
        {
          lo = c - w / 2;
          hi = c + w / 2;
        }
      else
        value_range (self, &lo, &hi);
    }
  else
    value_range (self, &lo, &hi);
  return MAX ((hi - lo) / 500.0, 0.05);
}

/* ---- public API ------------------------------------------------------------------------ */

GtkWidget *
lb_canvas_new (void)
{
  return g_object_new (LB_TYPE_CANVAS, NULL);
}

static void
set_source (LbCanvas             *self,
            const LbRenderSource *src,
            const LbImageMeta    *meta,
            gboolean              keep_view)
{
  gboolean had = self->have_src;
  gboolean same_size = had && self->src.width == src->width && self->src.height == src->height;
  /* The decoder's buffer became the image (same pixels) and every row went into the
   * histogram exactly once: it is the image's histogram, no need for another full pass over
   * the pixels on the main thread (a second for a 1 GB image). */
  gboolean hist_done = had && self->progressive && self->progress_rows == src->height
                       && self->src.data == src->data && self->src.stride == src->stride
                       && same_size && self->src.format == src->format;

  self->src = *src;
  self->have_src = TRUE;
  self->hist_valid = hist_done;
  LbValueModel *model;
  gboolean model_changed;

  g_clear_pointer (&self->meta, lb_image_meta_unref);
  self->meta = meta != NULL ? lb_image_meta_copy (meta) : NULL;
  model = model_for (self->meta, src);
  model_changed = !lb_value_model_equal (model, self->model);
  if (model != NULL)
    lb_value_model_ref (model);
  g_clear_pointer (&self->model, lb_value_model_unref);
  self->model = model;
  /* a VOI LUT of another model means nothing here */
  if (model_changed)
    self->voi_lut = -1;
  /* a new image's view starts as the image is stored: rotation, flips and the inverted
   * greys belong to the view of the image they were set on (a series' slices keep them) */
  if (!keep_view && self->invert)
    {
      self->invert = FALSE;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INVERT]);
    }
  if (!keep_view || !same_size)
    {
      gboolean turned = !keep_view && self->view.rotation != 0;
      gboolean flipped = !keep_view && self->view.flip;

      self->view.rotation = keep_view ? self->view.rotation : 0;
      self->view.flip = keep_view ? self->view.flip : FALSE;
      /* the window's toggles and the overlay's markers follow */
      if (turned)
        g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ROTATION]);
      if (flipped)
        g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FLIP]);
      self->fit_mode = TRUE;
      fit (self);
    }
  if (!keep_view || !had || (self->progressive && !self->wl_user))
    {
      if (!keep_view || !had)
        self->wl_user = FALSE;
      default_window (self);
    }
  self->progressive = FALSE;
  if (!had)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HAS_PIXELS]);
  if (model_changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VALUE_MODEL]);
  rebuild_luts (self);
  _lb_canvas_update_probe (self);
}

void
lb_canvas_set_image (LbCanvas *self,
                     LbImage  *image,
                     gboolean  keep_view)
{
  LbRenderSource src;

  g_return_if_fail (LB_IS_CANVAS (self));
  g_return_if_fail (image == NULL || LB_IS_IMAGE (image));

  if (image == NULL)
    {
      lb_canvas_clear (self);
      return;
    }
  g_object_ref (image);
  g_clear_object (&self->image);
  self->image = image;
  lb_render_source_from_image (&src, image);
  set_source (self, &src, lb_image_get_meta (image), keep_view);
}

void
lb_canvas_set_loading (LbCanvas *self, const char *text)
{
  g_return_if_fail (LB_IS_CANVAS (self));
  if (g_strcmp0 (text, self->loading_text) == 0)
    return;
  g_free (self->loading_text);
  self->loading_text = g_strdup (text);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

const char *
lb_canvas_get_loading (LbCanvas *self)
{
  g_return_val_if_fail (LB_IS_CANVAS (self), NULL);
  return self->loading_text;
}

LbImage *
lb_canvas_get_image (LbCanvas *self)
{
  g_return_val_if_fail (LB_IS_CANVAS (self), NULL);
  return self->image;
}

void
lb_canvas_set_before_image (LbCanvas *self,
                            LbImage  *image)
{
  g_return_if_fail (LB_IS_CANVAS (self));

  g_set_object (&self->before, image);
  if (image != NULL)
    lb_render_source_from_image (&self->before_src, image);
  else
    lb_lut_clear (&self->before_lut);
  rebuild_luts (self);
}

void
lb_canvas_begin_progressive (LbCanvas          *self,
                             guint              width,
                             guint              height,
                             LbSampleFormat     format,
                             const guint8      *data,
                             gsize              stride,
                             const LbImageMeta *meta)
{
  LbRenderSource src = { data, stride, width, height, format };

  g_return_if_fail (LB_IS_CANVAS (self));
  g_return_if_fail (data != NULL);

  g_clear_object (&self->image);
  g_clear_object (&self->before);
  lb_lut_clear (&self->before_lut);
  /* A progressive image is new: start from an empty histogram and fill it as rows come. */
  self->have_src = FALSE;
  set_source (self, &src, meta, FALSE);
  self->progressive = TRUE;
  if (self->hist_bins != (src_bit_depth (&src) == 16 ? 65536u : 256u))
    {
      g_free (self->hist);
      self->hist_bins = src_bit_depth (&src) == 16 ? 65536 : 256;
      self->hist = g_new0 (guint64, self->hist_bins);
    }
  else
    memset (self->hist, 0, self->hist_bins * sizeof (guint64));
  self->progress_rows = 0;
}

void
lb_canvas_progress_rows (LbCanvas *self,
                         guint     y0,
                         guint     y1)
{
  double c, w;

  g_return_if_fail (LB_IS_CANVAS (self));
  if (!self->have_src || self->image != NULL)
    return;
  /* Until the user takes over, the window follows the histogram of the rows seen so far. */
  y1 = MIN (y1, self->src.height);
  if (y0 >= y1)
    return;
  lb_histogram_add_rows (self->hist, &self->src, y0, y1);
  self->progress_rows += y1 - y0;
  if (!self->wl_user && src_bit_depth (&self->src) == 16
      && (self->model == NULL || (lb_value_model_get_n_windows (self->model) == 0
                                  && lb_value_model_get_n_voi_luts (self->model) == 0))
      && lb_histogram_window (self->hist, self->hist_bins, self->model, 0.01, 0.99, &c, &w)
      && (c != self->wl_center || w != self->wl_width))
    {
      self->wl_center = c;
      self->wl_width = w;
      rebuild_luts (self);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_WINDOW_CENTER]);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_WINDOW_WIDTH]);
    }
  invalidate (self);
}

void
lb_canvas_clear (LbCanvas *self)
{
  g_return_if_fail (LB_IS_CANVAS (self));

  g_clear_object (&self->image);
  g_clear_object (&self->before);
  g_clear_pointer (&self->meta, lb_image_meta_unref);
  if (self->model != NULL)
    {
      g_clear_pointer (&self->model, lb_value_model_unref);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VALUE_MODEL]);
    }
  lb_lut_clear (&self->before_lut);
  if (self->have_src)
    {
      self->have_src = FALSE;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HAS_PIXELS]);
    }
  self->hist_valid = FALSE;
  invalidate (self);
  _lb_canvas_update_probe (self);
}

gboolean
lb_canvas_has_pixels (LbCanvas *self)
{
  g_return_val_if_fail (LB_IS_CANVAS (self), FALSE);
  return self->have_src;
}

double
lb_canvas_get_zoom (LbCanvas *self)
{
  g_return_val_if_fail (LB_IS_CANVAS (self), 1.0);
  return self->view.zoom;
}

void
lb_canvas_set_zoom (LbCanvas *self,
                    double    zoom)
{
  g_return_if_fail (LB_IS_CANVAS (self));
  self->fit_mode = FALSE;
  set_zoom_internal (self, zoom);
  _lb_canvas_update_probe (self);
}

void
lb_canvas_zoom_at (LbCanvas *self,
                   double    factor,
                   double    x,
                   double    y)
{
  double ww = gtk_widget_get_width (GTK_WIDGET (self));
  double wh = gtk_widget_get_height (GTK_WIDGET (self));
  double old = self->view.zoom, nz;
  double vx, vy;

  g_return_if_fail (LB_IS_CANVAS (self));
  nz = CLAMP (old * factor, MIN_ZOOM, MAX_ZOOM);
  /* Keep the view point under (x, y) fixed. */
  vx = (x - ww / 2.0) / old + self->view.center_x;
  vy = (y - wh / 2.0) / old + self->view.center_y;
  self->view.center_x = vx - (x - ww / 2.0) / nz;
  self->view.center_y = vy - (y - wh / 2.0) / nz;
  clamp_center (self);
  lb_canvas_set_zoom (self, nz);
  invalidate (self);
}

void
lb_canvas_zoom_fit (LbCanvas *self)
{
  g_return_if_fail (LB_IS_CANVAS (self));
  self->fit_mode = TRUE;
  fit (self);
  _lb_canvas_update_probe (self);
}

void
lb_canvas_pan (LbCanvas *self,
               double    dx,
               double    dy)
{
  g_return_if_fail (LB_IS_CANVAS (self));
  self->view.center_x -= dx / self->view.zoom;
  self->view.center_y -= dy / self->view.zoom;
  clamp_center (self);
  self->fit_mode = FALSE;
  invalidate (self);
  _lb_canvas_update_probe (self);
}

void
lb_canvas_set_window (LbCanvas *self,
                      double    center,
                      double    width)
{
  g_return_if_fail (LB_IS_CANVAS (self));
  width = MAX (width, 1.0);
  self->wl_user = TRUE;
  if (center == self->wl_center && width == self->wl_width && self->voi_lut < 0)
    return;
  self->voi_lut = -1;
  self->wl_center = center;
  self->wl_width = width;
  rebuild_luts (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_WINDOW_CENTER]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_WINDOW_WIDTH]);
}

void
lb_canvas_get_window (LbCanvas *self,
                      double   *center,
                      double   *width)
{
  g_return_if_fail (LB_IS_CANVAS (self));
  if (center)
    *center = self->wl_center;
  if (width)
    *width = self->wl_width;
}

gboolean
lb_canvas_auto_window (LbCanvas *self)
{
  double c, w;

  g_return_val_if_fail (LB_IS_CANVAS (self), FALSE);
  if (!self->have_src)
    return FALSE;
  if (self->image == NULL)
    {
      /* still loading: the running histogram is what we have */
      if (!lb_histogram_window (self->hist, self->hist_bins, self->model, 0.01, 0.99, &c, &w))
        return FALSE;
    }
  else
    {
      ensure_histogram (self);
      if (!lb_histogram_window (self->hist, self->hist_bins, self->model, 0.01, 0.99, &c, &w))
        return FALSE;
    }
  lb_canvas_set_window (self, c, w);
  return TRUE;
}

gboolean
lb_canvas_has_rescale (LbCanvas *self)
{
  g_return_val_if_fail (LB_IS_CANVAS (self), FALSE);
  return self->model != NULL && lb_value_model_get_modality_kind (self->model) != LB_MODALITY_NONE;
}

const char *
lb_canvas_get_units_label (LbCanvas *self)
{
  const char *units;

  g_return_val_if_fail (LB_IS_CANVAS (self), NULL);
  units = self->model ? lb_value_model_get_units (self->model) : NULL;
  if (g_strcmp0 (units, "HU") == 0)
    /* TRANSLATORS: the abbreviation of Hounsfield units, after a CT value */
    return _("HU");
  return units;
}

LbValueModel *
lb_canvas_get_value_model (LbCanvas *self)
{
  g_return_val_if_fail (LB_IS_CANVAS (self), NULL);
  return self->model;
}

gboolean
lb_canvas_set_voi_lut (LbCanvas *self,
                       guint     index)
{
  g_return_val_if_fail (LB_IS_CANVAS (self), FALSE);
  if (self->model == NULL || index >= lb_value_model_get_n_voi_luts (self->model))
    return FALSE;
  self->wl_user = TRUE;
  if (self->voi_lut == (int) index)
    return TRUE;
  self->voi_lut = (int) index;
  rebuild_luts (self);
  /* the status line shows the VOI in place of the window */
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_WINDOW_CENTER]);
  return TRUE;
}

int
lb_canvas_get_voi_lut (LbCanvas *self)
{
  g_return_val_if_fail (LB_IS_CANVAS (self), -1);
  return self->voi_lut;
}

void
lb_canvas_set_invert (LbCanvas *self,
                      gboolean  invert)
{
  g_return_if_fail (LB_IS_CANVAS (self));
  invert = !!invert;
  if (invert == self->invert)
    return;
  self->invert = invert;
  rebuild_luts (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INVERT]);
}

gboolean
lb_canvas_get_invert (LbCanvas *self)
{
  g_return_val_if_fail (LB_IS_CANVAS (self), FALSE);
  return self->invert;
}

void
lb_canvas_set_rotation (LbCanvas *self,
                        guint     rotation)
{
  double rw, rh, ix, iy, fx, fy;
  guint old;

  g_return_if_fail (LB_IS_CANVAS (self));
  rotation &= 3;
  if (rotation == self->view.rotation)
    return;
  old = self->view.rotation;
  /* Keep the image point at the centre of the view at the centre. */
  if (self->have_src)
    {
      lb_view_rotated_size (&self->view, self->src.width, self->src.height, &rw, &rh);
      fx = self->view.flip ? rw - self->view.center_x : self->view.center_x;
      fy = self->view.center_y;
      switch (old)
        {
        case 1: ix = fy; iy = self->src.height - fx; break;
        case 2: ix = self->src.width - fx; iy = self->src.height - fy; break;
        case 3: ix = self->src.width - fy; iy = fx; break;
        default: ix = fx; iy = fy; break;
        }
      /* forward map for the new rotation (inverse of lb-render.c's unrotate) */
      switch (rotation)
        {
        case 1: fx = self->src.height - iy; fy = ix; break;
        case 2: fx = self->src.width - ix; fy = self->src.height - iy; break;
        case 3: fx = iy; fy = self->src.width - ix; break;
        default: fx = ix; fy = iy; break;
        }
      self->view.rotation = rotation;
      lb_view_rotated_size (&self->view, self->src.width, self->src.height, &rw, &rh);
      self->view.center_x = self->view.flip ? rw - fx : fx;
      self->view.center_y = fy;
    }
  self->view.rotation = rotation;
  if (self->fit_mode)
    fit (self);
  invalidate (self);
  _lb_canvas_update_probe (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ROTATION]);
}

guint
lb_canvas_get_rotation (LbCanvas *self)
{
  g_return_val_if_fail (LB_IS_CANVAS (self), 0);
  return self->view.rotation;
}

void
lb_canvas_set_flip (LbCanvas *self,
                    gboolean  flip)
{
  double rw, rh;

  g_return_if_fail (LB_IS_CANVAS (self));
  flip = !!flip;
  if (flip == self->view.flip)
    return;
  if (self->have_src)
    {
      lb_view_rotated_size (&self->view, self->src.width, self->src.height, &rw, &rh);
      self->view.center_x = rw - self->view.center_x;
    }
  self->view.flip = flip;
  invalidate (self);
  _lb_canvas_update_probe (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FLIP]);
}

gboolean
lb_canvas_get_flip (LbCanvas *self)
{
  g_return_val_if_fail (LB_IS_CANVAS (self), FALSE);
  return self->view.flip;
}

void
lb_canvas_set_split (LbCanvas *self,
                     gboolean  split)
{
  g_return_if_fail (LB_IS_CANVAS (self));
  split = !!split;
  if (split == self->split)
    return;
  self->split = split;
  self->split_pos = 0.5;
  invalidate (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SPLIT]);
}

gboolean
lb_canvas_get_split (LbCanvas *self)
{
  g_return_val_if_fail (LB_IS_CANVAS (self), FALSE);
  return self->split;
}

/* ---- drawing --------------------------------------------------------------------------- */

static void
render (LbCanvas *self,
        guint     dw,
        guint     dh,
        int       scale)
{
  gsize stride = (gsize) dw * 4;
  guint8 *buf = g_malloc (stride * dh);
  LbViewTransform v = self->view;
  guint split_x = 0;

  /* The view state is in logical pixels; render at device resolution. */
  v.zoom *= scale;
  if (self->split && self->before != NULL)
    split_x = (guint) (self->split_pos * dw);
  lb_render_view (buf, stride, dw, dh, &v, &self->src, &self->lut,
                  self->before != NULL ? &self->before_src : NULL,
                  self->before != NULL ? &self->before_lut : NULL, split_x);
  g_clear_object (&self->texture);
  g_clear_pointer (&self->display, g_bytes_unref);
  self->display = g_bytes_new_take (buf, stride * dh);
  self->display_w = dw;
  self->display_h = dh;
  self->texture = gdk_memory_texture_new (dw, dh, GDK_MEMORY_DEFAULT, self->display, stride);
  self->dirty = FALSE;
}

static void
lb_canvas_snapshot (GtkWidget   *widget,
                    GtkSnapshot *snapshot)
{
  LbCanvas *self = LB_CANVAS (widget);
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  int scale = gtk_widget_get_scale_factor (widget);
  graphene_rect_t bounds = GRAPHENE_RECT_INIT (0, 0, w, h);

  if (w <= 0 || h <= 0)
    return;
  if (!self->have_src || self->loading_text != NULL)
    {
      gtk_snapshot_append_color (snapshot, &(GdkRGBA) { 0, 0, 0, 1 }, &bounds);
      if (self->loading_text != NULL)
        {
          g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (widget,
                                                                          self->loading_text);
          int lw, lh;

          pango_layout_get_pixel_size (layout, &lw, &lh);
          gtk_snapshot_save (snapshot);
          gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT ((w - lw) / 2.0f,
                                                                  (h - lh) / 2.0f));
          gtk_snapshot_append_layout (snapshot, layout, &(GdkRGBA) { 0.85f, 0.85f, 0.85f, 1 });
          gtk_snapshot_restore (snapshot);
        }
      return;
    }
  if (self->dirty || self->texture == NULL || self->display_w != (guint) (w * scale)
      || self->display_h != (guint) (h * scale))
    render (self, w * scale, h * scale, scale);
  /* One texture pixel per device pixel, so GTK's linear filter never blurs. */
  gtk_snapshot_append_texture (snapshot, self->texture, &bounds);
  if (self->split && self->before != NULL)
    {
      float sx = (float) ((guint) (self->split_pos * w * scale)) / scale;
      gtk_snapshot_append_color (snapshot, &(GdkRGBA) { 1, 0.8f, 0.2f, 1 },
                                 &GRAPHENE_RECT_INIT (sx - 0.5f, 0, 1, h));
    }
  if (self->overlay_func != NULL)
    self->overlay_func (self, snapshot, w, h, self->overlay_data);
}

void
lb_canvas_set_overlay_func (LbCanvas           *self,
                            LbCanvasOverlayFunc func,
                            gpointer            user_data)
{
  g_return_if_fail (LB_IS_CANVAS (self));
  self->overlay_func = func;
  self->overlay_data = user_data;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
lb_canvas_size_allocate (GtkWidget *widget,
                         int        width,
                         int        height,
                         int        baseline)
{
  LbCanvas *self = LB_CANVAS (widget);

  if (self->fit_mode)
    fit (self);
  invalidate (self);
}

static void
lb_canvas_measure (GtkWidget      *widget,
                   GtkOrientation  orientation,
                   int             for_size,
                   int            *minimum,
                   int            *natural,
                   int            *minimum_baseline,
                   int            *natural_baseline)
{
  *minimum = 64;
  *natural = 512;
}

/* ---- GObject --------------------------------------------------------------------------- */

static void
lb_canvas_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  LbCanvas *self = LB_CANVAS (object);

  switch (prop_id)
    {
    case PROP_ZOOM: g_value_set_double (value, self->view.zoom); break;
    case PROP_WINDOW_CENTER: g_value_set_double (value, self->wl_center); break;
    case PROP_WINDOW_WIDTH: g_value_set_double (value, self->wl_width); break;
    case PROP_INVERT: g_value_set_boolean (value, self->invert); break;
    case PROP_ROTATION: g_value_set_uint (value, self->view.rotation); break;
    case PROP_FLIP: g_value_set_boolean (value, self->view.flip); break;
    case PROP_SPLIT: g_value_set_boolean (value, self->split); break;
    case PROP_PROBE_TEXT: g_value_set_string (value, self->probe_text); break;
    case PROP_HAS_PIXELS: g_value_set_boolean (value, self->have_src); break;
    case PROP_VALUE_MODEL: g_value_set_boxed (value, self->model); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lb_canvas_set_property (GObject      *object,
                        guint         prop_id,
                        const GValue *value,
                        GParamSpec   *pspec)
{
  LbCanvas *self = LB_CANVAS (object);

  switch (prop_id)
    {
    case PROP_ZOOM: lb_canvas_set_zoom (self, g_value_get_double (value)); break;
    case PROP_INVERT: lb_canvas_set_invert (self, g_value_get_boolean (value)); break;
    case PROP_ROTATION: lb_canvas_set_rotation (self, g_value_get_uint (value)); break;
    case PROP_FLIP: lb_canvas_set_flip (self, g_value_get_boolean (value)); break;
    case PROP_SPLIT: lb_canvas_set_split (self, g_value_get_boolean (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lb_canvas_dispose (GObject *object)
{
  LbCanvas *self = LB_CANVAS (object);

  g_clear_object (&self->image);
  g_clear_object (&self->before);
  g_clear_object (&self->texture);
  g_clear_pointer (&self->display, g_bytes_unref);
  g_clear_pointer (&self->meta, lb_image_meta_unref);
  g_clear_pointer (&self->model, lb_value_model_unref);
  self->have_src = FALSE;
  G_OBJECT_CLASS (lb_canvas_parent_class)->dispose (object);
}

static void
lb_canvas_finalize (GObject *object)
{
  LbCanvas *self = LB_CANVAS (object);

  lb_lut_clear (&self->lut);
  lb_lut_clear (&self->before_lut);
  g_free (self->loading_text);
  g_free (self->hist);
  g_free (self->probe_text);
  G_OBJECT_CLASS (lb_canvas_parent_class)->finalize (object);
}

static void
lb_canvas_class_init (LbCanvasClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *wc = GTK_WIDGET_CLASS (klass);

  object_class->get_property = lb_canvas_get_property;
  object_class->set_property = lb_canvas_set_property;
  object_class->dispose = lb_canvas_dispose;
  object_class->finalize = lb_canvas_finalize;
  wc->snapshot = lb_canvas_snapshot;
  wc->size_allocate = lb_canvas_size_allocate;
  wc->measure = lb_canvas_measure;

  properties[PROP_ZOOM] = g_param_spec_double ("zoom", NULL, NULL, MIN_ZOOM, MAX_ZOOM, 1.0,
                                               G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY
                                               | G_PARAM_STATIC_STRINGS);
  properties[PROP_WINDOW_CENTER] = g_param_spec_double ("window-center", NULL, NULL,
                                                        -G_MAXDOUBLE, G_MAXDOUBLE, 0,
                                                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_WINDOW_WIDTH] = g_param_spec_double ("window-width", NULL, NULL,
                                                       0, G_MAXDOUBLE, 1,
                                                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_INVERT] = g_param_spec_boolean ("invert", NULL, NULL, FALSE,
                                                  G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY
                                                  | G_PARAM_STATIC_STRINGS);
  properties[PROP_ROTATION] = g_param_spec_uint ("rotation", NULL, NULL, 0, 3, 0,
                                                 G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY
                                                 | G_PARAM_STATIC_STRINGS);
  properties[PROP_FLIP] = g_param_spec_boolean ("flip", NULL, NULL, FALSE,
                                                G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY
                                                | G_PARAM_STATIC_STRINGS);
  properties[PROP_SPLIT] = g_param_spec_boolean ("split", NULL, NULL, FALSE,
                                                 G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY
                                                 | G_PARAM_STATIC_STRINGS);
  properties[PROP_PROBE_TEXT] = g_param_spec_string ("probe-text", NULL, NULL, NULL,
                                                     G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_HAS_PIXELS] = g_param_spec_boolean ("has-pixels", NULL, NULL, FALSE,
                                                      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /* What the shown samples mean: notified when another image brings another model. */
  properties[PROP_VALUE_MODEL] = g_param_spec_boxed ("value-model", NULL, NULL,
                                                     LB_TYPE_VALUE_MODEL,
                                                     G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  _lb_canvas_class_init_input (wc);

  gtk_widget_class_set_css_name (wc, "lb-canvas");
  gtk_widget_class_set_accessible_role (wc, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
lb_canvas_init (LbCanvas *self)
{
  self->view.zoom = 1.0;
  self->fit_mode = TRUE;
  self->wl_center = 127.5;
  self->wl_width = 256;
  self->voi_lut = -1;
  self->split_pos = 0.5;
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Image"), -1);

  _lb_canvas_init_input (self);
}
