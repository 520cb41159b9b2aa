/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-bench-plot"

#include <cairo-svg.h>
#include <cairo.h>
#include <math.h>
#include <stdlib.h>

#include "lb-bench-plot.h"

#define WIDTH 800.0
#define HEIGHT 500.0
#define MARGIN_L 80.0
#define MARGIN_R 200.0  /* room for the legend */
#define MARGIN_T 40.0
#define MARGIN_B 60.0

typedef struct {
  char *name;
  GArray *points; /* double pairs x, y */
} Series;

struct _LbBenchPlot {
  char *title, *x_label, *y_label;
  GPtrArray *series;
  gboolean log_x, log_y;
};

static void
series_free (gpointer p)
{
  Series *s = p;
  g_free (s->name);
  g_array_unref (s->points);
  g_free (s);
}

LbBenchPlot *
lb_bench_plot_new (const char *title, const char *x_label, const char *y_label)
{
  LbBenchPlot *plot = g_new0 (LbBenchPlot, 1);

  plot->title = g_strdup (title);
  plot->x_label = g_strdup (x_label);
  plot->y_label = g_strdup (y_label);
  plot->series = g_ptr_array_new_with_free_func (series_free);
  return plot;
}

void
lb_bench_plot_free (LbBenchPlot *plot)
{
  if (plot == NULL)
    return;
  g_free (plot->title);
  g_free (plot->x_label);
  g_free (plot->y_label);
  g_ptr_array_unref (plot->series);
  g_free (plot);
}

void
lb_bench_plot_set_log (LbBenchPlot *plot, gboolean log_x, gboolean log_y)
{
  plot->log_x = log_x;
  plot->log_y = log_y;
}

guint
lb_bench_plot_add_series (LbBenchPlot *plot, const char *name)
{
  Series *s = g_new0 (Series, 1);

  s->name = g_strdup (name);
  s->points = g_array_new (FALSE, FALSE, sizeof (double) * 2);
  g_ptr_array_add (plot->series, s);
  return plot->series->len - 1;
}

void
lb_bench_plot_add_point (LbBenchPlot *plot, guint series, double x, double y)
{
  double p[2] = { x, y };

  g_return_if_fail (series < plot->series->len);
  g_array_append_vals (((Series *) plot->series->pdata[series])->points, p, 1);
}

static int
cmp_x (const void *a, const void *b)
{
  double x = ((const double *) a)[0], y = ((const double *) b)[0];
  return (x > y) - (x < y);
}

typedef struct {
  double lo, hi;
  gboolean log;
} Axis;

static double
axis_map (const Axis *a, double v, double from, double to)
{
  double t;

  if (a->log)
    t = (log10 (MAX (v, 1e-12)) - log10 (a->lo)) / (log10 (a->hi) - log10 (a->lo));
  else
    t = (v - a->lo) / (a->hi - a->lo);
  return from + t * (to - from);
}

/* Round axis ends outwards to decades (log) or to a "nice" step (linear). */
static void
axis_finish (Axis *a)
{
  if (a->log)
    {
      a->lo = pow (10, floor (log10 (MAX (a->lo, 1e-12))));
      a->hi = pow (10, ceil (log10 (MAX (a->hi, a->lo * 10))));
      if (a->hi <= a->lo)
        a->hi = a->lo * 10;
    }
  else
    {
      double span = a->hi - a->lo, step;
      if (span <= 0)
        span = fabs (a->hi) > 0 ? fabs (a->hi) : 1;
      step = pow (10, floor (log10 (span / 5)));
      if (span / step > 10)
        step *= 2;
      a->lo = floor (MIN (a->lo, 0) / step) * step;
      a->hi = ceil (a->hi / step) * step;
      if (a->hi <= a->lo)
        a->hi = a->lo + step;
    }
}

static void
format_tick (char *buf, gsize len, double v)
{
  if (v != 0 && (fabs (v) >= 1e5 || fabs (v) < 1e-2))
    g_snprintf (buf, len, "%.0e", v);
  else
    g_snprintf (buf, len, "%g", v);
}

static void
draw (LbBenchPlot *plot, cairo_t *cr)
{
  static const double colours[][3] = {
    { 0.12, 0.47, 0.71 }, { 1.00, 0.50, 0.05 }, { 0.17, 0.63, 0.17 }, { 0.84, 0.15, 0.16 },
    { 0.58, 0.40, 0.74 }, { 0.55, 0.34, 0.29 }, { 0.89, 0.47, 0.76 }, { 0.50, 0.50, 0.50 },
    { 0.74, 0.74, 0.13 }, { 0.09, 0.75, 0.81 },
  };
  Axis ax = { G_MAXDOUBLE, -G_MAXDOUBLE, plot->log_x }, ay = { G_MAXDOUBLE, -G_MAXDOUBLE, plot->log_y };
  double x0 = MARGIN_L, x1 = WIDTH - MARGIN_R, y0 = HEIGHT - MARGIN_B, y1 = MARGIN_T;
  gboolean any = FALSE;

  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);

  for (guint i = 0; i < plot->series->len; i++)
    {
      Series *s = plot->series->pdata[i];
      qsort (s->points->data, s->points->len, sizeof (double) * 2, cmp_x);
      for (guint j = 0; j < s->points->len; j++)
        {
          double *p = &g_array_index (s->points, double, 2 * j);
          if ((ax.log && p[0] <= 0) || (ay.log && p[1] <= 0))
            continue;
          ax.lo = MIN (ax.lo, p[0]), ax.hi = MAX (ax.hi, p[0]);
          ay.lo = MIN (ay.lo, p[1]), ay.hi = MAX (ay.hi, p[1]);
          any = TRUE;
        }
    }
  if (!any)
    ax.lo = ay.lo = 1, ax.hi = ay.hi = 10;
  axis_finish (&ax);
  axis_finish (&ay);

  cairo_select_font_face (cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, 11);
  cairo_set_line_width (cr, 1);

  /* Grid and tick labels: decades on log axes, 5–10 steps on linear ones. */
  for (int pass = 0; pass < 2; pass++)
    {
      Axis *a = pass == 0 ? &ax : &ay;
      double step = a->log ? 10 : pow (10, floor (log10 ((a->hi - a->lo) / 5)));
      if (!a->log && (a->hi - a->lo) / step > 10)
        step *= 2;
      for (double v = a->lo; v <= a->hi * (1 + 1e-9); v = a->log ? v * step : v + step)
        {
          char buf[32];
          cairo_text_extents_t te;
          format_tick (buf, sizeof buf, v);
          cairo_text_extents (cr, buf, &te);
          cairo_set_source_rgb (cr, 0.88, 0.88, 0.88);
          if (pass == 0)
            {
              double x = axis_map (a, v, x0, x1);
              cairo_move_to (cr, x, y0), cairo_line_to (cr, x, y1), cairo_stroke (cr);
              cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
              cairo_move_to (cr, x - te.width / 2, y0 + 16), cairo_show_text (cr, buf);
            }
          else
            {
              double y = axis_map (a, v, y0, y1);
              cairo_move_to (cr, x0, y), cairo_line_to (cr, x1, y), cairo_stroke (cr);
              cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
              cairo_move_to (cr, x0 - te.width - 6, y + te.height / 2), cairo_show_text (cr, buf);
            }
        }
    }
  cairo_set_source_rgb (cr, 0, 0, 0);
  cairo_rectangle (cr, x0, y1, x1 - x0, y0 - y1);
  cairo_stroke (cr);

  /* Titles */
  {
    cairo_text_extents_t te;
    cairo_set_font_size (cr, 15);
    cairo_text_extents (cr, plot->title, &te);
    cairo_move_to (cr, (x0 + x1) / 2 - te.width / 2, 24), cairo_show_text (cr, plot->title);
    cairo_set_font_size (cr, 12);
    cairo_text_extents (cr, plot->x_label, &te);
    cairo_move_to (cr, (x0 + x1) / 2 - te.width / 2, HEIGHT - 18), cairo_show_text (cr, plot->x_label);
    cairo_text_extents (cr, plot->y_label, &te);
    cairo_save (cr);
    cairo_move_to (cr, 18, (y0 + y1) / 2 + te.width / 2);
    cairo_rotate (cr, -G_PI / 2);
    cairo_show_text (cr, plot->y_label);
    cairo_restore (cr);
  }

  /* Lines, markers and legend */
  cairo_set_font_size (cr, 11);
  for (guint i = 0; i < plot->series->len; i++)
    {
      Series *s = plot->series->pdata[i];
      const double *c = colours[i % G_N_ELEMENTS (colours)];
      gboolean started = FALSE;
      double ly = MARGIN_T + 10 + i * 18;

      cairo_set_source_rgb (cr, c[0], c[1], c[2]);
      cairo_set_line_width (cr, 2);
      /* Dashes tell apart series beyond the colour cycle. */
      if (i >= G_N_ELEMENTS (colours))
        cairo_set_dash (cr, (double[]) { 6, 3 }, 2, 0);
      for (guint j = 0; j < s->points->len; j++)
        {
          double *p = &g_array_index (s->points, double, 2 * j);
          double x, y;
          if ((ax.log && p[0] <= 0) || (ay.log && p[1] <= 0))
            continue;
          x = axis_map (&ax, p[0], x0, x1), y = axis_map (&ay, p[1], y0, y1);
          if (started)
            cairo_line_to (cr, x, y);
          else
            cairo_move_to (cr, x, y), started = TRUE;
        }
      cairo_stroke (cr);
      for (guint j = 0; j < s->points->len; j++)
        {
          double *p = &g_array_index (s->points, double, 2 * j);
          if ((ax.log && p[0] <= 0) || (ay.log && p[1] <= 0))
            continue;
          cairo_arc (cr, axis_map (&ax, p[0], x0, x1), axis_map (&ay, p[1], y0, y1), 3, 0, 2 * G_PI);
          cairo_fill (cr);
        }
      cairo_move_to (cr, x1 + 12, ly), cairo_line_to (cr, x1 + 36, ly), cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
      cairo_move_to (cr, x1 + 42, ly + 4), cairo_show_text (cr, s->name);
    }
}

gboolean
lb_bench_plot_save (LbBenchPlot *plot, const char *basename, GError **error)
{
  g_autofree char *svg = g_strconcat (basename, ".svg", NULL);
  g_autofree char *png = g_strconcat (basename, ".png", NULL);
  cairo_surface_t *surface;
  cairo_t *cr;
  cairo_status_t status;

  surface = cairo_svg_surface_create (svg, WIDTH, HEIGHT);
  cr = cairo_create (surface);
  draw (plot, cr);
  cairo_destroy (cr);
  cairo_surface_finish (surface);
  status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "Writing %s: %s", svg,
                   cairo_status_to_string (status));
      return FALSE;
    }

  surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) WIDTH, (int) HEIGHT);
  cr = cairo_create (surface);
  draw (plot, cr);
  cairo_destroy (cr);
  status = cairo_surface_write_to_png (surface, png);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "Writing %s: %s", png,
                   cairo_status_to_string (status));
      return FALSE;
    }
  return TRUE;
}
