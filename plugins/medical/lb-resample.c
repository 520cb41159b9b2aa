/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Resample: the region (the selection, or the whole image) scaled by a factor, with
 * nearest-neighbour, linear or Lanczos-3 interpolation, optionally to another sample depth.
 * The first filter of ABI 1.3's output geometry (LB_FILTER_FLAG_GEOMETRY: prepare() declares
 * the output's size and format, the host allocates it).
 *
 * The weights are ImageMagick's (resize.c), so that its -resize is an independent reference:
 * output pixel x samples the source around bisect = (x + ½) / f (pixel centres aligned, f
 * the exact ratio of the sizes); taps j run from ⌊bisect − support + ½⌋ to
 * ⌊bisect + support + ½⌋ − 1, clipped to the source (no padding: the weights left are
 * renormalised), with weight K((j − bisect + ½) / s), where s = max(1/f, 1) widens the kernel
 * when shrinking (no aliasing) and support = s × K's support. K is a box of support ½
 * (nearest: one tap), the triangle 1 − |t| (linear) or sinc(t)·sinc(t/3) for |t| < 3
 * (Lanczos-3). Rows and columns are separable: the value is the double sum over the tap
 * rectangle, rounded once (halves up) and clamped to the sample range.
 */

#include <math.h>
#include <string.h>

#include "lb-medical.h"

typedef enum {
  METHOD_NEAREST,
  METHOD_LINEAR,
  METHOD_LANCZOS,
} Method;

typedef enum {
  DEPTH_KEEP,
  DEPTH_8,
  DEPTH_16,
} Depth;

typedef struct {
  double factor;
  gint method;   /* Method */
  gint depth;    /* Depth */
} ResampleParams;

static const LbParamEnumValue method_values[] = {
  { "nearest", N_("Nearest neighbour") },
  { "linear", N_("Linear") },
  { "lanczos", N_("Lanczos (3 lobes)") },
  { NULL, NULL },
};

static const LbParamEnumValue depth_values[] = {
  { "keep", N_("Keep") },
  { "bits8", N_("8 bits") },
  { "bits16", N_("16 bits") },
  { NULL, NULL },
};

static const LbParamSpec resample_params[] = {
  {
    .name = "factor", .label = N_("Factor"),
    .description = N_("Output pixels per source pixel, along both axes"),
    .type = LB_PARAM_DOUBLE, .offset = G_STRUCT_OFFSET (ResampleParams, factor),
    .min = 0.01, .max = 16, .def = 0.5, .ui_min = 0.1, .ui_max = 4, .step = 0.05, .digits = 2,
  },
  {
    .name = "method", .label = N_("Interpolation"), .type = LB_PARAM_ENUM,
    .offset = G_STRUCT_OFFSET (ResampleParams, method),
    .min = 0, .max = 2, .def = METHOD_LANCZOS, .ui_min = 0, .ui_max = 2, .step = 1,
    .values = method_values,
  },
  {
    .name = "depth", .label = N_("Sample depth"), .type = LB_PARAM_ENUM,
    .offset = G_STRUCT_OFFSET (ResampleParams, depth),
    .min = 0, .max = 2, .def = DEPTH_KEEP, .ui_min = 0, .ui_max = 2, .step = 1,
    .values = depth_values, .flags = LB_PARAM_FLAG_ADVANCED,
  },
};

/* The taps of one output coordinate along one axis. */
typedef struct {
  int start;      /* first source index */
  int n;          /* how many */
  gsize weight;   /* index of the first weight */
} Taps;

typedef struct {
  int out_width, out_height, channels, in_depth, out_depth;
  LbFilterRect region;
  Taps *cols, *rows;
  double *col_weights, *row_weights;
} ResampleState;

static double
sinc (double t)
{
  if (t == 0)
    return 1.0;
  t *= G_PI;
  return sin (t) / t;
}

static double
kernel (Method method,
        double t)
{
  t = fabs (t);
  switch (method)
    {
    case METHOD_LINEAR:
      return t < 1 ? 1 - t : 0;
    case METHOD_LANCZOS:
      return t < 3 ? sinc (t) * sinc (t / 3) : 0;
    case METHOD_NEAREST:
    default:
      return 1.0;
    }
}

/* The taps of @out coordinates resampling @in source ones (from @first); see the top. */
static Taps *
axis_taps (Method   method,
           int      in,
           int      first,
           int      out,
           double **weights)
{
  Taps *taps = g_new (Taps, out);
  double f = (double) out / in;
  double scale = MAX (1.0 / f, 1.0);
  double support = scale * (method == METHOD_LANCZOS ? 3.0 : method == METHOD_LINEAR ? 1.0 : 0.0);
  GArray *w = g_array_new (FALSE, FALSE, sizeof (double));

  if (support < 0.5)
    {
      support = 0.5;
      scale = 1.0;
    }
  for (int x = 0; x < out; x++)
    {
      /* ImageMagick adds its epsilon (1e-12) so that a centre exactly between two source
       * pixels takes the later one */
      double bisect = (x + 0.5) / f + 1e-12;
      int start = (int) MAX (bisect - support + 0.5, 0.0);
      int stop = (int) MIN (bisect + support + 0.5, (double) in);
      double density = 0;

      taps[x].start = first + start;
      taps[x].n = MAX (stop - start, 0);
      taps[x].weight = w->len;
      for (int j = start; j < stop; j++)
        {
          double v = kernel (method, (j - bisect + 0.5) / scale);

          g_array_append_val (w, v);
          density += v;
        }
      if (density != 0 && density != 1)
        for (int j = 0; j < taps[x].n; j++)
          g_array_index (w, double, taps[x].weight + j) /= density;
    }
  *weights = (double *) g_array_free (w, FALSE);
  return taps;
}

static gpointer
resample_prepare (const LbFilterInfo  *info,
                  gconstpointer        params,
                  const LbFilterImage *image,
                  LbFilterRect        *write_rect,
                  GError             **error)
{
  const ResampleParams *p = params;
  LbFilterOutput *out = lb_filter_image_get_output (image);
  ResampleState *s;
  double w = round (image->region.width * p->factor), h = round (image->region.height * p->factor);

  if (out == NULL)
    {
      g_set_error_literal (error, g_quark_from_static_string ("lb-resample"), 1,
                           "resampling needs a Lightbox with plugin ABI 1.3");
      return NULL;
    }
  if (w < 1 || h < 1 || w > 65535 || h > 65535)
    {
      g_set_error (error, g_quark_from_static_string ("lb-resample"), 2,
                   "%d×%d pixels scaled by %g would be %.0f×%.0f: the result must be 1 to "
                   "65535 pixels each way", image->region.width, image->region.height,
                   p->factor, w, h);
      return NULL;
    }
  s = g_new0 (ResampleState, 1);
  s->out_width = (int) w;
  s->out_height = (int) h;
  s->channels = image->channels;
  s->in_depth = image->depth;
  s->out_depth = p->depth == DEPTH_8 ? 8 : p->depth == DEPTH_16 ? 16 : image->depth;
  s->region = image->region;
  s->cols = axis_taps (p->method, image->region.width, image->region.x, s->out_width,
                       &s->col_weights);
  s->rows = axis_taps (p->method, image->region.height, image->region.y, s->out_height,
                       &s->row_weights);

  out->width = s->out_width;
  out->height = s->out_height;
  /* the formats are numbered so that the 16-bit one of each layout follows the 8-bit one
   * for gray and gray+alpha, and RGB16/RGBA16 follow RGB8/RGBA8 two apart */
  if (s->out_depth != image->depth)
    switch (image->format)
      {
      case LB_FILTER_FORMAT_GRAY8: out->format = LB_FILTER_FORMAT_GRAY16; break;
      case LB_FILTER_FORMAT_GRAY16: out->format = LB_FILTER_FORMAT_GRAY8; break;
      case LB_FILTER_FORMAT_GRAYA8: out->format = LB_FILTER_FORMAT_GRAYA16; break;
      case LB_FILTER_FORMAT_GRAYA16: out->format = LB_FILTER_FORMAT_GRAYA8; break;
      case LB_FILTER_FORMAT_RGB8: out->format = LB_FILTER_FORMAT_RGB16; break;
      case LB_FILTER_FORMAT_RGB16: out->format = LB_FILTER_FORMAT_RGB8; break;
      case LB_FILTER_FORMAT_RGBA8: out->format = LB_FILTER_FORMAT_RGBA16; break;
      case LB_FILTER_FORMAT_RGBA16: out->format = LB_FILTER_FORMAT_RGBA8; break;
      default: break;
      }
  out->scale_x = (double) s->out_width / image->region.width;
  out->scale_y = (double) s->out_height / image->region.height;
  return s;
}

static gsize
resample_scratch_size (gconstpointer state,
                       int           band_width,
                       int           band_height)
{
  const ResampleState *s = state;

  /* one output row of sums, and one source row resampled along x */
  return 2 * (gsize) s->out_width * s->channels * sizeof (double);
}

static gboolean
resample_process (gconstpointer       state,
                  const LbFilterBand *band,
                  GError            **error)
{
  const ResampleState *s = state;
  const LbFilterImage *im = band->image;
  int ch = s->channels;
  double *acc = band->scratch;
  double *row = acc + (gsize) s->out_width * ch;
  double in_max = s->in_depth == 16 ? 65535.0 : 255.0;
  double out_max = s->out_depth == 16 ? 65535.0 : 255.0;
  /* a change of depth maps the range onto the range (×257 or ÷257) */
  double gain = out_max / in_max;

  for (int y = band->y0; y < band->y1; y++)
    {
      const Taps *ty = &s->rows[y];
      guint8 *out = band->dst + (gsize) y * band->dst_stride;

      if (!lb_filter_band_rows_done (band, y > band->y0))
        return TRUE;
      memset (acc, 0, (gsize) s->out_width * ch * sizeof (double));
      for (int k = 0; k < ty->n; k++)
        {
          const guint8 *in = im->src + (gsize) (ty->start + k) * im->src_stride;
          double wy = s->row_weights[ty->weight + k];

          for (int x = 0; x < s->out_width; x++)
            {
              const Taps *tx = &s->cols[x];
              const double *wx = s->col_weights + tx->weight;

              for (int c = 0; c < ch; c++)
                {
                  double sum = 0;

                  for (int j = 0; j < tx->n; j++)
                    {
                      gsize i = (gsize) (tx->start + j) * ch + c;

                      sum += wx[j] * (s->in_depth == 16 ? ((const guint16 *) in)[i] : in[i]);
                    }
                  row[x * ch + c] = sum;
                }
            }
          for (gsize i = 0; i < (gsize) s->out_width * ch; i++)
            acc[i] += wy * row[i];
        }
      for (gsize i = 0; i < (gsize) s->out_width * ch; i++)
        {
          double v = floor (acc[i] * gain + 0.5);

          v = CLAMP (v, 0, out_max);
          if (s->out_depth == 16)
            ((guint16 *) out)[i] = (guint16) v;
          else
            out[i] = (guint8) v;
        }
    }
  return TRUE;
}

static void
resample_release (gpointer state)
{
  ResampleState *s = state;

  g_free (s->cols);
  g_free (s->rows);
  g_free (s->col_weights);
  g_free (s->row_weights);
  g_free (s);
}

const LbFilterInfo lb_resample_info = {
  .struct_size = sizeof (LbFilterInfo),
  .id = "io.github.lightbox.medical.resample",
  .alias = "resample",
  .name = N_("Resample"),
  .category = N_("Geometry"),
  .description = N_("Scale the image or the selection by a factor (nearest, linear or "
                    "Lanczos)"),
  .formats = LB_FILTER_FORMATS_ALL,
  .flags = LB_FILTER_FLAG_GEOMETRY,
  .params_version = 1,
  .params_size = sizeof (ResampleParams),
  .params = resample_params,
  .n_params = G_N_ELEMENTS (resample_params),
  .prepare = resample_prepare,
  .scratch_size = resample_scratch_size,
  .process = resample_process,
  .release = resample_release,
};
