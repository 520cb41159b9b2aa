/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "lb-image.h"

G_BEGIN_DECLS

#define LB_TYPE_CANVAS (lb_canvas_get_type ())
G_DECLARE_FINAL_TYPE (LbCanvas, lb_canvas, LB, CANVAS, GtkWidget)

GtkWidget *lb_canvas_new                (void);

/* Shows @image. With @keep_view the zoom, pan, rotation and window stay (a filter result);
 * otherwise the view fits the image and the window comes from the metadata or the
 * histogram. */
void       lb_canvas_set_image          (LbCanvas          *self,
                                         LbImage           *image,
                                         gboolean           keep_view);
LbImage   *lb_canvas_get_image          (LbCanvas          *self);
/* A stack's frame that is not loaded yet: with @text, the canvas shows @text on black instead
 * of the pixels (which stay, with the view, for the frame that comes); NULL shows them again.
 * lb_canvas_set_image() does not change it. */
void        lb_canvas_set_loading       (LbCanvas          *self,
                                         const char        *text);
const char *lb_canvas_get_loading       (LbCanvas          *self);
/* The image shown left of the split line when split view is on (the original). */
void       lb_canvas_set_before_image   (LbCanvas          *self,
                                         LbImage           *image);

/* Progressive display: shows @data (owned by a decoder that keeps filling it) until
 * lb_canvas_set_image() or lb_canvas_clear(). Rows not yet decoded must be zero. */
void       lb_canvas_begin_progressive  (LbCanvas          *self,
                                         guint              width,
                                         guint              height,
                                         LbSampleFormat     format,
                                         const guint8      *data,
                                         gsize              stride,
                                         const LbImageMeta *meta);
void       lb_canvas_progress_rows      (LbCanvas          *self,
                                         guint              y0,
                                         guint              y1);
void       lb_canvas_clear              (LbCanvas          *self);
gboolean   lb_canvas_has_pixels         (LbCanvas          *self);

/* Zoom in display pixels per image pixel. */
double     lb_canvas_get_zoom           (LbCanvas          *self);
void       lb_canvas_set_zoom           (LbCanvas          *self,
                                         double             zoom);
/* Zooms by @factor keeping the image point under widget point (@x, @y) in place. */
void       lb_canvas_zoom_at            (LbCanvas          *self,
                                         double             factor,
                                         double             x,
                                         double             y);
void       lb_canvas_zoom_fit           (LbCanvas          *self);
/* Pans by @dx, @dy widget pixels (positive moves the image right/down). */
void       lb_canvas_pan                (LbCanvas          *self,
                                         double             dx,
                                         double             dy);

/* Window in real-world units (Hounsfield for CT); the VOI LUT Function is the image's. Setting
 * one leaves a VOI LUT (lb_canvas_set_voi_lut()). */
void       lb_canvas_set_window         (LbCanvas          *self,
                                         double             center,
                                         double             width);
void       lb_canvas_get_window         (LbCanvas          *self,
                                         double            *center,
                                         double            *width);
/* Window from the 1st–99th percentile of the histogram. */
gboolean   lb_canvas_auto_window        (LbCanvas          *self);
/* TRUE when the image has a Modality LUT (rescale or table), so values are not stored values. */
gboolean   lb_canvas_has_rescale        (LbCanvas          *self);
/* (transfer none) (nullable): what the shown samples mean (property "value-model"): units,
 * the file's window presets and VOI LUTs, padding. */
LbValueModel *lb_canvas_get_value_model (LbCanvas          *self);
/* (nullable): the unit of the real-world values, to show after a value ("HU" translated). */
const char *lb_canvas_get_units_label   (LbCanvas          *self);
/* Shows the image through VOI LUT @index of its model instead of a window (PS3.3 C.11.2.1.1).
 * FALSE if there is no such LUT. get: the index, or -1 while a window applies. */
gboolean   lb_canvas_set_voi_lut        (LbCanvas          *self,
                                         guint              index);
int        lb_canvas_get_voi_lut        (LbCanvas          *self);

void       lb_canvas_set_invert         (LbCanvas          *self,
                                         gboolean           invert);
gboolean   lb_canvas_get_invert         (LbCanvas          *self);
/* Quarter turns clockwise, 0..3; view only. */
void       lb_canvas_set_rotation       (LbCanvas          *self,
                                         guint              rotation);
guint      lb_canvas_get_rotation       (LbCanvas          *self);
void       lb_canvas_set_flip           (LbCanvas          *self,
                                         gboolean           flip);
gboolean   lb_canvas_get_flip           (LbCanvas          *self);
/* On a stack the plain wheel and Up/Down page (win.next-frame, win.previous-frame) and
 * Ctrl+wheel zooms; otherwise the wheel zooms and Up/Down pan. */
void       lb_canvas_set_stack_navigation (LbCanvas        *self,
                                           gboolean         stack);
void       lb_canvas_set_split          (LbCanvas          *self,
                                         gboolean           split);
gboolean   lb_canvas_get_split          (LbCanvas          *self);

/* Image coordinates of widget point (@x, @y); FALSE if outside the image. */
gboolean   lb_canvas_widget_to_image    (LbCanvas          *self,
                                         double             x,
                                         double             y,
                                         int               *ix,
                                         int               *iy);
/* Continuous image coordinates (lb-measurement.h's convention) of widget point (@x, @y), and
 * back, through the view (zoom, pan, rotation, flip); FALSE without pixels. Unlike
 * lb_canvas_widget_to_image(), points outside the image are given too. */
gboolean   lb_canvas_widget_to_image_point (LbCanvas       *self,
                                            double          x,
                                            double          y,
                                            double         *ix,
                                            double         *iy);
gboolean   lb_canvas_image_to_widget    (LbCanvas          *self,
                                         double             ix,
                                         double             iy,
                                         double            *x,
                                         double            *y);
/* Draws over the image after every snapshot (the measurements), in widget coordinates; one
 * function at a time, NULL removes it. */
typedef void (*LbCanvasOverlayFunc) (LbCanvas    *canvas,
                                     GtkSnapshot *snapshot,
                                     int          width,
                                     int          height,
                                     gpointer     user_data);
void       lb_canvas_set_overlay_func   (LbCanvas           *self,
                                         LbCanvasOverlayFunc func,
                                         gpointer            user_data);
/* The part of the image currently visible, clipped to the image. FALSE if none. */
gboolean   lb_canvas_get_visible_rect   (LbCanvas          *self,
                                         GdkRectangle      *rect);
/* Describes the pixel at image (@x, @y): "x 12  y 40  1043  (19 HU)": the stored value and
 * the real-world value with its unit and the precision it has; "x 12  y 40  padding" on pixel
 * padding; NULL if outside. */
char      *lb_canvas_describe_pixel     (LbCanvas          *self,
                                         int                x,
                                         int                y);

/* Probes the pixel under widget point (@x, @y) as if the pointer were there (keyboard users
 * and tests); the status bar follows "probe-text". */
void       lb_canvas_probe_at           (LbCanvas          *self,
                                         double             x,
                                         double             y);

/* The ARGB32 display pixel last drawn at device pixel (@x, @y), for tests. FALSE if the
 * canvas has not drawn yet or the point is outside. */
gboolean   lb_canvas_peek_display_pixel (LbCanvas          *self,
                                         guint              x,
                                         guint              y,
                                         guint32           *argb);

G_END_DECLS
