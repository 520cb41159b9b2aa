/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-view"

#include "lb-measurement-roi.h"

#include <math.h>
#include <stdlib.h>

#include "lb-error.h"

struct _LbMeasurementRoi
{
  LbMeasurementTool   tool;       /* RECTANGLE, ELLIPSE or FREEHAND */
  /* rectangle: x0 ≤ x1, y0 ≤ y1; ellipse: the centre and semi-axes; both: the bounds */
  double              x0, y0, x1, y1;
  double              cx, cy, rx, ry;
  LbMeasurementPoint *poly;     /* freehand */
  guint               n_poly;
  double             *crossings; /* freehand: scratch for one row, n_poly entries */
};

void
lb_measurement_roi_free (LbMeasurementRoi *roi)
{
  if (roi == NULL)
    return;
  g_free (roi->poly);
  g_free (roi->crossings);
  g_free (roi);
}

LbMeasurementRoi *
lb_measurement_roi_new (LbMeasurement *measurement, GError **error)
{
  g_autoptr(LbMeasurementRoi) roi = NULL;
  const LbMeasurementPoint *p;
  guint n;

  g_return_val_if_fail (LB_IS_MEASUREMENT (measurement), NULL);
  if (!lb_measurement_tool_is_roi (lb_measurement_get_tool (measurement)))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT, "a %s has no region",
                   lb_measurement_tool_to_string (lb_measurement_get_tool (measurement)));
      return NULL;
    }
  if (!lb_measurement_validate (measurement, error))
    return NULL;

  roi = g_new0 (LbMeasurementRoi, 1);
  roi->tool = lb_measurement_get_tool (measurement);
  p = lb_measurement_get_points (measurement);
  n = lb_measurement_get_n_points (measurement);
  roi->x0 = roi->x1 = p[0].x;
  roi->y0 = roi->y1 = p[0].y;
  for (guint i = 1; i < n; i++)
    {
      roi->x0 = MIN (roi->x0, p[i].x);
      roi->x1 = MAX (roi->x1, p[i].x);
      roi->y0 = MIN (roi->y0, p[i].y);
      roi->y1 = MAX (roi->y1, p[i].y);
    }
  roi->cx = (roi->x0 + roi->x1) / 2;
  roi->cy = (roi->y0 + roi->y1) / 2;
  roi->rx = (roi->x1 - roi->x0) / 2;
  roi->ry = (roi->y1 - roi->y0) / 2;
  if (roi->tool == LB_MEASUREMENT_FREEHAND)
    {
      roi->poly = g_memdup2 (p, n * sizeof *p);
      roi->n_poly = n;
      roi->crossings = g_new (double, n);
    }
  return g_steal_pointer (&roi);
}

static inline gboolean
in_ellipse (const LbMeasurementRoi *roi, double x, double y)
{
  double dx, dy;

  if (roi->rx <= 0 || roi->ry <= 0)
    return FALSE;
  dx = (x - roi->cx) / roi->rx;
  dy = (y - roi->cy) / roi->ry;
  return dx * dx + dy * dy <= 1;
}

/* Whether edge a → b crosses the line at @y (half-open, see the header), and where. Both the
 * point test and the row runs call this, so they see the same crossings to the last bit. */
static inline gboolean
edge_crossing (LbMeasurementPoint a, LbMeasurementPoint b, double y, double *x)
{
  if ((a.y > y) == (b.y > y))
    return FALSE;
  *x = a.x + (y - a.y) * (b.x - a.x) / (b.y - a.y);
  return TRUE;
}

gboolean
lb_measurement_roi_contains (const LbMeasurementRoi *roi, double x, double y)
{
  gboolean inside = FALSE;

  g_return_val_if_fail (roi != NULL, FALSE);
  if (roi->tool == LB_MEASUREMENT_RECTANGLE)
    return roi->x0 <= x && x <= roi->x1 && roi->y0 <= y && y <= roi->y1;
  if (roi->tool == LB_MEASUREMENT_ELLIPSE)
    return in_ellipse (roi, x, y);
  for (guint i = 0, j = roi->n_poly - 1; i < roi->n_poly; j = i++)
    {
      double xc;

      if (edge_crossing (roi->poly[j], roi->poly[i], y, &xc) && x < xc)
        inside = !inside;
    }
  return inside;
}

double
lb_measurement_roi_get_area (const LbMeasurementRoi *roi)
{
  double twice = 0;

  g_return_val_if_fail (roi != NULL, 0);
  if (roi->tool == LB_MEASUREMENT_RECTANGLE)
    return (roi->x1 - roi->x0) * (roi->y1 - roi->y0);
  if (roi->tool == LB_MEASUREMENT_ELLIPSE)
    return G_PI * roi->rx * roi->ry;
  /* shoelace, relative to the first point to keep the products small */
  for (guint i = 1; i + 1 < roi->n_poly; i++)
    twice += (roi->poly[i].x - roi->poly[0].x) * (roi->poly[i + 1].y - roi->poly[0].y)
             - (roi->poly[i + 1].x - roi->poly[0].x) * (roi->poly[i].y - roi->poly[0].y);
  return fabs (twice) / 2;
}

gboolean
lb_measurement_roi_get_rows (const LbMeasurementRoi *roi,
                             guint                   height,
                             guint                  *first,
                             guint                  *end)
{
  double lo, hi;

  g_return_val_if_fail (roi != NULL, FALSE);
  /* row r's centre r + 0.5 within [y0, y1]; one row of margin either side, since the exact
   * decision is the row runs' */
  lo = MAX (floor (roi->y0 - 0.5), 0);
  hi = MIN (ceil (roi->y1 - 0.5) + 1, (double) height);
  if (hi <= lo)
    return FALSE;
  *first = (guint) lo;
  *end = (guint) hi;
  return TRUE;
}

/* Appends columns [lo, hi] (inclusive, any integers) clipped to [0, width). */
static void
add_span (GArray *spans, gint64 lo, gint64 hi, guint width)
{
  LbMeasurementSpan s;

  lo = MAX (lo, 0);
  hi = MIN (hi, (gint64) width - 1);
  if (lo > hi)
    return;
  s.start = (guint) lo;
  s.end = (guint) hi + 1;
  g_array_append_val (spans, s);
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static void
ellipse_span (const LbMeasurementRoi *roi, double y, guint width, GArray *spans)
{
  double dy, t, hw;
  gint64 lo, hi;

  if (roi->rx <= 0 || roi->ry <= 0)
    return;
  dy = (y - roi->cy) / roi->ry;
  t = 1 - dy * dy;
  /* dy² > 1 makes dx² + dy² > 1 for every x, also in floating point */
  if (t < 0)
    return;
  hw = roi->rx * sqrt (t);
  lo = (gint64) ceil (roi->cx - hw - 0.5);
  hi = (gint64) floor (roi->cx + hw - 0.5);
  /* the square root may be off by an ulp: settle both ends with the rule itself */
  while (lo <= hi && !in_ellipse (roi, lo + 0.5, y))
    lo++;
  while (hi >= lo && !in_ellipse (roi, hi + 0.5, y))
    hi--;
  if (lo > hi)
    {
      gint64 c = (gint64) floor (roi->cx);

      if (!in_ellipse (roi, c + 0.5, y))
        return;
      lo = hi = c;
    }
  while (in_ellipse (roi, lo - 0.5, y))
    lo--;
  while (in_ellipse (roi, hi + 1.5, y))
    hi++;
  add_span (spans, lo, hi, width);
}

/* The smallest column whose centre is at or right of @x. */
static gint64
first_centre_at_or_after (double x)
{
  gint64 c = (gint64) ceil (x - 0.5);

  while (c + 0.5 < x)
    c++;
  while (c - 0.5 >= x)
    c--;
  return c;
}

static void
polygon_spans (const LbMeasurementRoi *roi, double y, guint width, GArray *spans)
{
  guint n = 0;

  for (guint i = 0, j = roi->n_poly - 1; i < roi->n_poly; j = i++)
    if (edge_crossing (roi->poly[j], roi->poly[i], y, &roi->crossings[n]))
      n++;
  qsort (roi->crossings, n, sizeof (double), compare_doubles);
  /* n is even: a centre is inside when an odd number of crossings lie beyond it, that is
   * between crossings 2k (included) and 2k + 1 (excluded) */
  for (guint k = 0; k + 1 < n; k += 2)
    add_span (spans, first_centre_at_or_after (roi->crossings[k]),
              first_centre_at_or_after (roi->crossings[k + 1]) - 1, width);
}

guint
lb_measurement_roi_row_spans (const LbMeasurementRoi *roi,
                              guint                   row,
                              guint                   width,
                              GArray                 *spans)
{
  double y = row + 0.5;

  g_return_val_if_fail (roi != NULL && spans != NULL, 0);
  g_array_set_size (spans, 0);
  if (roi->tool == LB_MEASUREMENT_RECTANGLE)
    {
      /* the columns whose centres lie in [x0, x1] */
      if (roi->y0 <= y && y <= roi->y1)
        add_span (spans, first_centre_at_or_after (roi->x0),
                  first_centre_at_or_after (nextafter (roi->x1, G_MAXDOUBLE)) - 1, width);
    }
  else if (roi->tool == LB_MEASUREMENT_ELLIPSE)
    ellipse_span (roi, y, width, spans);
  else
    polygon_spans (roi, y, width, spans);
  return spans->len;
}

/* ---- values ------------------------------------------------------------------------------ */

static gboolean
check_grey (LbImage *image, GError **error)
{
  LbSampleFormat format = lb_image_get_format (image);

  if (!lb_sample_format_is_gray (format))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                   "region statistics need grey samples, not %s",
                   lb_sample_format_to_string (format));
      return FALSE;
    }
  return TRUE;
}

static LbValueModel *
image_model (LbImage *image)
{
  guint bits = lb_sample_format_get_sample_size (lb_image_get_format (image)) == 2 ? 16 : 8;

  return lb_image_meta_get_value_model_for (lb_image_get_meta (image), bits);
}

static inline guint
sample_at (const guint8 *row, guint x, guint channels, gboolean wide)
{
  return wide ? ((const guint16 *) row)[(gsize) x * channels] : row[(gsize) x * channels];
}

/* The padding range in samples; left as it is (empty: lo > hi) when the model has none. */
static void
get_padding (LbValueModel *model, guint *lo, guint *hi)
{
  guint a, b;

  if (lb_value_model_get_padding (model, &a, &b))
    *lo = a, *hi = b;
}

static void
finish_empty (LbMeasurementStats *stats)
{
  stats->mean = stats->sd = stats->min = stats->max = 0;
}

/* The histogram of the samples inside @roi: counts[s] pixels hold sample s. One pass over the
 * region's runs, nothing but a count per pixel; the values come after, once per sample value
 * that occurs. */
static guint64 *
histogram (const LbMeasurementRoi *roi, LbImage *image, guint n_bins)
{
  LbSampleFormat format = lb_image_get_format (image);
  guint channels = lb_sample_format_get_channels (format);
  gboolean wide = lb_sample_format_get_sample_size (format) == 2;
  guint width = lb_image_get_width (image), first, end;
  guint64 *counts = g_new0 (guint64, n_bins);
  g_autoptr(GArray) spans = g_array_new (FALSE, FALSE, sizeof (LbMeasurementSpan));

  if (lb_measurement_roi_get_rows (roi, lb_image_get_height (image), &first, &end))
    for (guint r = first; r < end; r++)
      {
        const guint8 *row = lb_image_get_row (image, r);

        lb_measurement_roi_row_spans (roi, r, width, spans);
        for (guint k = 0; k < spans->len; k++)
          {
            LbMeasurementSpan sp = g_array_index (spans, LbMeasurementSpan, k);

            for (guint c = sp.start; c < sp.end; c++)
              counts[sample_at (row, c, channels, wide)]++;
          }
      }
  return counts;
}

/* The statistics from the histogram: padding counted apart, each sample value that occurs
 * mapped once through the Modality LUT (rescale or table: the same call), the mean summed
 * over the bins, then the deviation from it in a second pass over the bins. For an integer
 * rescale every product count × value is an integer below 2^53, so the sum is exact. */
static void
stats_from_histogram (const guint64 *counts, guint n_bins, LbValueModel *model,
                      LbMeasurementStats *stats)
{
  guint lo = 1, hi = 0;
  double sum = 0, sq = 0;

  if (model != NULL)
    get_padding (model, &lo, &hi);
  stats->min = G_MAXDOUBLE;
  stats->max = -G_MAXDOUBLE;
  for (guint s = 0; s < n_bins; s++)
    {
      double v;

      if (counts[s] == 0)
        continue;
      if (s >= lo && s <= hi)
        {
          stats->n_padding += counts[s];
          continue;
        }
      v = model != NULL ? lb_value_model_to_value (model, s) : s;
      stats->n_pixels += counts[s];
      sum += counts[s] * v;
      stats->min = MIN (stats->min, v);
      stats->max = MAX (stats->max, v);
    }
  if (stats->n_pixels == 0)
    {
      finish_empty (stats);
      return;
    }
  stats->mean = sum / stats->n_pixels;
  for (guint s = 0; s < n_bins; s++)
    if (counts[s] != 0 && !(s >= lo && s <= hi))
      {
        double d = (model != NULL ? lb_value_model_to_value (model, s) : s) - stats->mean;

        sq += counts[s] * d * d;
      }
  stats->sd = sqrt (sq / stats->n_pixels);
}

gboolean
lb_measurement_roi_stats (const LbMeasurementRoi *roi,
                          LbImage                *image,
                          LbMeasurementStats     *stats,
                          GError                **error)
{
  g_autofree guint64 *counts = NULL;
  guint n_bins;

  g_return_val_if_fail (roi != NULL && LB_IS_IMAGE (image) && stats != NULL, FALSE);
  *stats = (LbMeasurementStats) { 0 };
  if (!check_grey (image, error))
    return FALSE;
  n_bins = lb_sample_format_get_sample_size (lb_image_get_format (image)) == 2 ? 65536 : 256;
  counts = histogram (roi, image, n_bins);
  stats_from_histogram (counts, n_bins, image_model (image), stats);
  return TRUE;
}

gboolean
lb_measurement_roi_stats_reference (const LbMeasurementRoi *roi,
                                    LbImage                *image,
                                    LbMeasurementStats     *stats,
                                    GError                **error)
{
  guint width, height;
  double sum = 0, sq = 0;

  g_return_val_if_fail (roi != NULL && LB_IS_IMAGE (image) && stats != NULL, FALSE);
  *stats = (LbMeasurementStats) { 0 };
  if (!check_grey (image, error))
    return FALSE;
  width = lb_image_get_width (image);
  height = lb_image_get_height (image);
  stats->min = G_MAXDOUBLE;
  stats->max = -G_MAXDOUBLE;
  for (int pass = 0; pass < 2; pass++)
    {
      for (guint r = 0; r < height; r++)
        for (guint c = 0; c < width; c++)
          {
            double v;
            gboolean padding;

            if (!lb_measurement_roi_contains (roi, c + 0.5, r + 0.5))
              continue;
            if (!lb_measurement_sample_value (image, c, r, &v, &padding))
              {
                if (pass == 0)
                  stats->n_padding++;
                continue;
              }
            if (pass == 0)
              {
                sum += v;
                stats->n_pixels++;
                stats->min = MIN (stats->min, v);
                stats->max = MAX (stats->max, v);
              }
            else
              sq += (v - stats->mean) * (v - stats->mean);
          }
      if (pass == 0 && stats->n_pixels > 0)
        stats->mean = sum / stats->n_pixels;
    }
  if (stats->n_pixels == 0)
    finish_empty (stats);
  else
    stats->sd = sqrt (sq / stats->n_pixels);
  return TRUE;
}

gboolean
lb_measurement_sample_value (LbImage  *image,
                             guint     x,
                             guint     y,
                             double   *value,
                             gboolean *padding)
{
  LbSampleFormat format;
  LbValueModel *model;
  guint s;

  g_return_val_if_fail (LB_IS_IMAGE (image) && value != NULL, FALSE);
  if (padding)
    *padding = FALSE;
  format = lb_image_get_format (image);
  if (!lb_sample_format_is_gray (format) || x >= lb_image_get_width (image)
      || y >= lb_image_get_height (image))
    return FALSE;
  s = sample_at (lb_image_get_row (image, y), x, lb_sample_format_get_channels (format),
                 lb_sample_format_get_sample_size (format) == 2);
  model = image_model (image);
  *value = model != NULL ? lb_value_model_to_value (model, s) : s;
  if (model != NULL && lb_value_model_is_padding (model, s))
    {
      if (padding)
        *padding = TRUE;
      return FALSE;
    }
  return TRUE;
}

const char *
lb_measurement_value_unit (LbImage *image)
{
  LbValueModel *model;
  const char *units;

  g_return_val_if_fail (LB_IS_IMAGE (image), NULL);
  model = image_model (image);
  if (model == NULL)
    return "stored value";
  units = lb_value_model_get_units (model);
  if (units != NULL)
    return units;
  return lb_value_model_get_modality_kind (model) == LB_MODALITY_NONE ? "stored value" : "";
}
