/* SPDX-License-Identifier: GPL-3.0-or-later */

/*
 * Filters beyond xv as a Lightbox plugin: Gaussian blur, unsharp mask and median of any
 * radius. Only the ABI wrapper lives here; the kernels (lb-gaussian.c, lb-unsharp.c,
 * lb-median.c) are tested on their own.
 */

#include "lb-plugin-glue.h"

#include "lb-enhance.h"

typedef enum {
  ENH_GAUSSIAN = 1,
  ENH_UNSHARP,
  ENH_MEDIAN,
} EnhKind;

typedef struct {
  double sigma;      /* gaussian: standard deviation, pixels */
  double radius;     /* unsharp: σ of its blur, pixels */
  double amount;     /* unsharp: gain of the difference */
  double threshold;  /* unsharp: 8-bit levels (×257 at 16 bits) */
  gint median_radius;
} EnhParams;

typedef struct {
  EnhKind kind;
  gpointer kernel;
} EnhState;

static const LbParamSpec gaussian_params[] = {
  {
    .name = "sigma", .label = N_("Sigma"), .description = N_("Standard deviation"),
    .type = LB_PARAM_DOUBLE, .offset = G_STRUCT_OFFSET (EnhParams, sigma),
    .min = LB_GAUSSIAN_SIGMA_MIN, .max = LB_GAUSSIAN_SIGMA_MAX, .def = 1.0,
    .ui_min = 0.3, .ui_max = 20, .step = 0.1, .digits = 2, .unit = LB_UNIT_PIXEL,
  },
};

static const LbParamSpec unsharp_params[] = {
  {
    .name = "radius", .label = N_("Radius"), .description = N_("Sigma of the blur"),
    .type = LB_PARAM_DOUBLE, .offset = G_STRUCT_OFFSET (EnhParams, radius),
    .min = LB_GAUSSIAN_SIGMA_MIN, .max = LB_GAUSSIAN_SIGMA_MAX, .def = 2.0,
    .ui_min = 0.3, .ui_max = 20, .step = 0.1, .digits = 2, .unit = LB_UNIT_PIXEL,
  },
  {
    .name = "amount", .label = N_("Amount"), .description = N_("How much detail is added"),
    .type = LB_PARAM_DOUBLE, .offset = G_STRUCT_OFFSET (EnhParams, amount),
    .min = 0, .max = 10, .def = 0.5, .ui_min = 0, .ui_max = 3, .step = 0.05, .digits = 2,
  },
  {
    .name = "threshold", .label = N_("Threshold"),
    .description = N_("Differences smaller than this (8-bit levels) are left alone"),
    .type = LB_PARAM_DOUBLE, .offset = G_STRUCT_OFFSET (EnhParams, threshold),
    .min = 0, .max = 255, .def = 0, .ui_min = 0, .ui_max = 64, .step = 1, .digits = 0,
    .unit = LB_UNIT_SAMPLE,
  },
};

static const LbParamSpec median_params[] = {
  {
    .name = "radius", .label = N_("Radius"),
    .description = N_("The window is (2 × radius + 1) pixels square"),
    .type = LB_PARAM_INT, .offset = G_STRUCT_OFFSET (EnhParams, median_radius),
    .min = 0, .max = LB_MEDIAN_RADIUS_MAX, .def = 1, .ui_min = 0, .ui_max = 25, .step = 1,
    .unit = LB_UNIT_PIXEL,
  },
};

static gpointer
enh_prepare (const LbFilterInfo  *info,
             gconstpointer        params,
             const LbFilterImage *image,
             LbFilterRect        *write_rect,
             GError             **error)
{
  const EnhParams *p = params;
  EnhState *s = g_new0 (EnhState, 1);
  LbKernelBuf src = lb_glue_src_buf (image);
  LbKernelRect region = lb_glue_region (image);

  s->kind = GPOINTER_TO_INT (info->user_data);
  switch (s->kind)
    {
    case ENH_GAUSSIAN:
      {
        LbGaussianParams gp = { p->sigma };
        s->kernel = lb_gaussian_prepare (&src, &region, &gp, error);
      }
      break;
    case ENH_UNSHARP:
      {
        LbUnsharpParams up = { p->radius, p->amount, p->threshold };
        s->kernel = lb_unsharp_prepare (&src, &region, &up, error);
      }
      break;
    case ENH_MEDIAN:
      {
        LbMedianParams mp = { p->median_radius };
        s->kernel = lb_median_prepare (&src, &region, &mp, error);
      }
      break;
    default:
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "unknown filter %d", s->kind);
      break;
    }
  if (s->kernel == NULL)
    {
      g_free (s);
      return NULL;
    }
  return s;
}

static gboolean
enh_process (gconstpointer       state,
             const LbFilterBand *band,
             GError            **error)
{
  const EnhState *s = state;
  const LbFilterImage *im = band->image;
  LbKernelBuf src = lb_glue_src_buf (im);
  LbKernelBuf dst = lb_glue_dst_buf (im, band->dst, band->dst_stride);
  LbGlueTicker ticker;

  if (g_atomic_int_get (band->cancelled))
    return TRUE;
  /* the slow kernels (median, despeckle, oil, Gaussian) report rows and stop when cancelled */
  lb_glue_ticker_attach (&ticker, band, &dst);
  switch (s->kind)
    {
    case ENH_GAUSSIAN:
      lb_gaussian_process (s->kernel, &src, &dst, band->y0, band->y1);
      break;
    case ENH_UNSHARP:
      lb_unsharp_process (s->kernel, &src, &dst, band->y0, band->y1);
      break;
    case ENH_MEDIAN:
      lb_median_process_scratch (s->kernel, &src, &dst, band->y0, band->y1, band->scratch,
                                 lb_median_scratch_size (s->kernel));
      break;
    default:
      g_assert_not_reached ();
    }
  return TRUE;
}

/* The 16-bit median's rank path keeps its tables and column store in the host's per-thread
 * scratch, reused between bands, instead of allocating them per band. */
static gsize
enh_scratch_size (gconstpointer state,
                  int           band_width,
                  int           band_height)
{
  const EnhState *s = state;

  return s->kind == ENH_MEDIAN ? lb_median_scratch_size (s->kernel) : 0;
}

static void
enh_release (gpointer state)
{
  EnhState *s = state;

  switch (s->kind)
    {
    case ENH_GAUSSIAN:
      lb_gaussian_free (s->kernel);
      break;
    case ENH_UNSHARP:
      lb_unsharp_free (s->kernel);
      break;
    case ENH_MEDIAN:
      lb_median_free (s->kernel);
      break;
    default:
      break;
    }
  g_free (s);
}

#define ENH_FILTER(var, kind_, id_, name_, category_, desc_, params_)                         \
  LB_GLUE_FILTER (var, "io.github.lightbox.enhance." id_, id_, name_, category_, desc_,        \
                  EnhParams, params_, enh_prepare, enh_scratch_size, enh_process, enh_release, \
                  NULL,                                                                      \
                  LB_FILTER_FLAG_NONE, kind_)

ENH_FILTER (gaussian_info, ENH_GAUSSIAN, "gaussian", N_("Gaussian blur"), N_("Blur"),
            N_("A Gaussian blur of any sigma, renormalised at the region's edges"),
            gaussian_params);
ENH_FILTER (unsharp_info, ENH_UNSHARP, "unsharp", N_("Unsharp mask"), N_("Enhance"),
            N_("Adds the difference from a Gaussian blur, above a threshold"), unsharp_params);
ENH_FILTER (median_info, ENH_MEDIAN, "median", N_("Median"), N_("Noise"),
            N_("A per-channel median of any radius"), median_params);

static const LbFilterInfo *const enh_filters[] = { &gaussian_info, &unsharp_info, &median_info };

LB_GLUE_PLUGIN (enh_filters)
