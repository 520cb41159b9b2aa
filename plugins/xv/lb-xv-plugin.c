/* SPDX-License-Identifier: GPL-3.0-or-later */

/*
 * The xv Algorithms menu as a Lightbox plugin: blur, sharpen, edge detect, emboss, oil
 * painting, blend and despeckle. This file is only the ABI wrapper (descriptors, parameter
 * tables, band dispatch); the maths lives in the lb-xv-*.c kernels, which are tested against
 * xv's golden files on their own.
 *
 * One callback set serves all seven filters: LbFilterInfo.user_data says which kernel runs.
 */

#include <string.h>

#include "lb-plugin-glue.h"

#include "lb-xv-kernels-a.h"

typedef enum {
  XV_BLUR = 1,
  XV_SHARPEN,
  XV_EDGE,
  XV_EMBOSS,
  XV_OIL,
  XV_BLEND,
  XV_DESPECKLE,
} XvKind;

/* One params struct for the whole family; each filter's spec table uses its own fields. */
typedef struct {
  gint size;       /* blur, despeckle, oil (symmetric window): odd mask side, pixels */
  gint strength;   /* sharpen: xv's enhancement factor, percent */
  gint ring;       /* edge: 0 = xv (ring keeps source colours), 1 = corrected */
  gint window;     /* oil: 0 = xv's 4×4 window, 1 = symmetric size×size */
  gboolean exact;  /* sharpen, blend: run the scalar reference path */
} XvParams;

typedef struct {
  XvKind kind;
  gboolean exact;
  gint edge_max;  /* edge: the largest MONO of the bands processed so far (atomic) */
  LbXvKernelState k;
} XvState;

static const LbParamEnumValue ring_values[] = {
  { "xv", N_("As xv (the frame keeps the original colours)") },
  { "corrected", N_("Corrected (the frame is filtered too)") },
  { NULL, NULL },
};

static const LbParamEnumValue window_values[] = {
  { "xv", N_("As xv (4×4, shifts the image)") },
  { "symmetric", N_("Symmetric (size × size)") },
  { NULL, NULL },
};

#define SIZE_SPEC(desc)                                                                       \
  {                                                                                           \
    .name = "size", .label = N_("Mask size"), .description = desc, .type = LB_PARAM_INT,      \
    .offset = G_STRUCT_OFFSET (XvParams, size), .min = 1, .max = 1001, .def = 3,              \
    .ui_min = 1, .ui_max = 31, .step = 2, .unit = LB_UNIT_PIXEL, .flags = LB_PARAM_FLAG_ODD,  \
  }

#define EXACT_SPEC                                                                            \
  {                                                                                           \
    .name = "exact", .label = N_("Exact (scalar path)"),                                      \
    .description = N_("Use the plain reference loops, byte-identical to xv (slower); the "    \
                      "default optimised path is too for sharpen, and may differ by 1 in "    \
                      "rare samples for blend"),                                              \
    .type = LB_PARAM_BOOL, .offset = G_STRUCT_OFFSET (XvParams, exact), .min = 0, .max = 1,   \
    .def = 0, .ui_min = 0, .ui_max = 1, .step = 1, .flags = LB_PARAM_FLAG_ADVANCED,           \
  }

static const LbParamSpec blur_params[] = {
  SIZE_SPEC (N_("Side of the square averaging window (odd)")),
};

static const LbParamSpec despeckle_params[] = {
  SIZE_SPEC (N_("Side of the square median window (odd)")),
};

static const LbParamSpec sharpen_params[] = {
  {
    .name = "strength", .label = N_("Strength"),
    .description = N_("xv's enhancement factor: how much of the local mean is subtracted"),
    .type = LB_PARAM_INT, .offset = G_STRUCT_OFFSET (XvParams, strength),
    .min = 0, .max = 99, .def = 75, .ui_min = 0, .ui_max = 99, .step = 1,
    .unit = LB_UNIT_PERCENT,
  },
  EXACT_SPEC,
};

static const LbParamSpec edge_params[] = {
  {
    .name = "ring", .label = N_("Frame"), .type = LB_PARAM_ENUM, .values = ring_values,
    .description = N_("What happens to the one-pixel frame of the region"),
    .offset = G_STRUCT_OFFSET (XvParams, ring), .min = 0, .max = 1, .def = 0,
    .ui_min = 0, .ui_max = 1, .step = 1, .flags = LB_PARAM_FLAG_ADVANCED,
  },
};

static const LbParamSpec oil_params[] = {
  {
    .name = "window", .label = N_("Window"), .type = LB_PARAM_ENUM, .values = window_values,
    .description = N_("xv's even 4×4 window or a symmetric odd one"),
    .offset = G_STRUCT_OFFSET (XvParams, window), .min = 0, .max = 1, .def = 0,
    .ui_min = 0, .ui_max = 1, .step = 1, .flags = LB_PARAM_FLAG_ADVANCED,
  },
  {
    .name = "size", .label = N_("Mask size"),
    .description = N_("Side of the symmetric window (used with window=symmetric)"),
    .type = LB_PARAM_INT, .offset = G_STRUCT_OFFSET (XvParams, size), .min = 1, .max = 63,
    .def = 3, .ui_min = 1, .ui_max = 15, .step = 2, .unit = LB_UNIT_PIXEL,
    .flags = LB_PARAM_FLAG_ODD | LB_PARAM_FLAG_ADVANCED,
  },
};

static const LbParamSpec blend_params[] = {
  EXACT_SPEC,
};

static gpointer
xv_prepare (const LbFilterInfo  *info,
            gconstpointer        params,
            const LbFilterImage *image,
            LbFilterRect        *write_rect,
            GError             **error)
{
  const XvParams *p = params;
  XvState *s = g_new0 (XvState, 1);
  LbKernelBuf src = lb_glue_src_buf (image);
  LbKernelRect sel = lb_glue_region (image);
  gboolean ok = FALSE;

  s->kind = GPOINTER_TO_INT (info->user_data);
  s->exact = p->exact;
  switch (s->kind)
    {
    case XV_BLUR:
      ok = lb_xv_blur_prepare (&s->k.blur, &src, &sel, p->size, error);
      break;
    case XV_SHARPEN:
      ok = lb_xv_sharpen_prepare (&s->k.sharpen, &src, &sel, p->strength, error);
      break;
    case XV_EDGE:
      ok = lb_xv_edge_prepare (&s->k.edge, &src, &sel, p->ring == 1, error);
      break;
    case XV_EMBOSS:
      ok = lb_xv_emboss_prepare (&s->k.emboss, &src, &sel, error);
      break;
    case XV_OIL:
      /* size 0 selects xv's 4×4 window in the kernel. */
      ok = lb_xv_oil_prepare (&s->k.oil, &src, &sel, p->window == 1 ? p->size : 0, error);
      break;
    case XV_BLEND:
      ok = lb_xv_blend_prepare (&s->k.blend, &src, &sel, error);
      break;
    case XV_DESPECKLE:
      ok = lb_xv_despeckle_prepare (&s->k.despeckle, &src, &sel, p->size, error);
      break;
    default:
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "unknown xv filter %d", s->kind);
      break;
    }
  if (!ok)
    {
      g_free (s);
      return NULL;
    }
  return s;
}

/* Sharpen, edge, emboss and oil (and blend, see copy_blend_ring) write every colour sample of
 * the region rows they are given, and declare LB_FILTER_FLAG_OVERWRITES so the host skips
 * copying the source into the band first: the one thing left to write is alpha, which passes
 * through (edge's kernel writes it itself). */
static void
copy_alpha (const LbFilterBand *band)
{
  LbKernelBuf src = lb_glue_src_buf (band->image);
  LbKernelBuf dst = lb_glue_dst_buf (band->image, band->dst, band->dst_stride);

  for (int y = band->y0; y < band->y1; y++)
    lb_kernel_restore_alpha (&src, &dst, y, band->x0, band->x1);
}

/* Blend writes every interior colour sample of the region's rows it is given (the centre
 * included) and declares LB_FILTER_FLAG_OVERWRITES too: what it leaves, the ring (the region's
 * first and last rows, its first and last columns) and alpha, is the source's, copied here
 * (alpha by copy_alpha). Inactive (a region under 3×3): the whole band. */
static void
copy_blend_ring (const LbFilterBand *band, const LbXvBlend *blend)
{
  const LbFilterImage *im = band->image;
  const gsize px = (gsize) im->channels * (gsize) (im->depth / 8);
  const LbXvRegion *R = &blend->region;

  for (int y = band->y0; y < band->y1; y++)
    {
      const guint8 *s = im->src + (gsize) y * im->src_stride;
      guint8 *d = band->dst + (gsize) y * band->dst_stride;

      if (!blend->active || y <= R->y0 || y >= R->y1 - 1)
        memcpy (d + (gsize) band->x0 * px, s + (gsize) band->x0 * px,
                (gsize) (band->x1 - band->x0) * px);
      else
        {
          const int l1 = MIN (band->x1, R->x0 + 1), r0 = MAX (band->x0, R->x1 - 1);

          if (l1 > band->x0)
            memcpy (d + (gsize) band->x0 * px, s + (gsize) band->x0 * px,
                    (gsize) (l1 - band->x0) * px);
          if (band->x1 > r0)
            memcpy (d + (gsize) r0 * px, s + (gsize) r0 * px, (gsize) (band->x1 - r0) * px);
        }
    }
}

static gboolean
xv_process (gconstpointer       state,
            const LbFilterBand *band,
            GError            **error)
{
  const XvState *s = state;
  LbKernelBuf src = lb_glue_src_buf (band->image);
  LbKernelBuf dst = lb_glue_dst_buf (band->image, band->dst, band->dst_stride);
  int y0 = band->y0, y1 = band->y1;
  LbGlueTicker ticker;

  if (g_atomic_int_get (band->cancelled))
    return TRUE;
  /* the slow kernels (median, despeckle, oil, Gaussian) report rows and stop when cancelled */
  lb_glue_ticker_attach (&ticker, band, &dst);
  switch (s->kind)
    {
    case XV_BLUR:
      lb_xv_blur_process (&s->k.blur, &src, &dst, y0, y1);
      break;
    case XV_SHARPEN:
      (s->exact ? lb_xv_sharpen_process_ref : lb_xv_sharpen_process) (&s->k.sharpen, &src,
                                                                       &dst, y0, y1);
      break;
    case XV_EDGE:
      {
        /* The band's maximum joins the pass's (atomic max; any order gives the same). The
         * state is otherwise read-only; this field is written only here, read in finish. */
        const gint m = (gint) lb_xv_edge_process_reduce (&s->k.edge, &src, &dst, y0, y1);
        gint *slot = (gint *) &s->edge_max;
        gint old = g_atomic_int_get (slot);

        while (m > old && !g_atomic_int_compare_and_exchange (slot, old, m))
          old = g_atomic_int_get (slot);
      }
      break;
    case XV_EMBOSS:
      lb_xv_emboss_process (&s->k.emboss, &src, &dst, y0, y1);
      break;
    case XV_OIL:
      lb_xv_oil_process (&s->k.oil, &src, &dst, y0, y1);
      break;
    case XV_BLEND:
      (s->exact ? lb_xv_blend_process_ref : lb_xv_blend_process) (&s->k.blend, &src, &dst, y0, y1);
      break;
    case XV_DESPECKLE:
      lb_xv_despeckle_process_scratch (&s->k.despeckle, &src, &dst, y0, y1, band->scratch,
                                       lb_xv_despeckle_scratch_size (&s->k.despeckle));
      break;
    default:
      g_assert_not_reached ();
    }
  if (s->kind == XV_BLEND)
    copy_blend_ring (band, &s->k.blend);
  /* edge's kernel writes the source's alpha itself (it computes alpha as a channel) */
  if (s->kind == XV_SHARPEN || s->kind == XV_EMBOSS || s->kind == XV_OIL || s->kind == XV_BLEND)
    copy_alpha (band);
  return TRUE;
}

/* Edge's post-pass over row bands of the destination, run through the host's threads. */
#define EDGE_FINISH_ROWS 32

typedef struct {
  const XvState *s;
  LbKernelBuf dst;
  guint maxv;
} EdgeFinish;

static void
edge_scale_rows (gpointer data,
                 int      y0,
                 int      y1)
{
  EdgeFinish *f = data;

  lb_xv_edge_finish (&f->s->k.edge, &f->dst, f->maxv, y0, y1);
}

/* Edge only: normalise the finished edge map by its largest luminance (spec §3). The maximum
 * was reduced by the bands themselves (xv_process), so this is one parallel pass. */
static gboolean
edge_finish (gconstpointer        state,
             const LbFilterImage *image,
             guint8              *dst,
             gsize                dst_stride,
             const LbFilterHost  *host,
             const gint          *cancelled,
             GError             **error)
{
  const XvState *s = state;
  EdgeFinish f = { s, lb_glue_dst_buf (image, dst, dst_stride), 0 };

  f.maxv = (guint) g_atomic_int_get (&s->edge_max);
  /* maxv = 0 leaves the map alone (spec), and so does maxv = the largest sample value
   * (⌊v · 255 / 255⌋ = v): common, since xv's ring keeps the source's bright border. */
  if (f.maxv > 0 && f.maxv != (image->depth == 8 ? 255u : 65535u))
    lb_glue_parallel_rows (host, image->height, EDGE_FINISH_ROWS, edge_scale_rows, &f);
  return TRUE;
}

/* Despeckle's 16-bit rank path keeps its tables and column store in the host's per-thread
 * scratch, reused between bands, instead of allocating them per band. */
static gsize
xv_scratch_size (gconstpointer state,
                 int           band_width,
                 int           band_height)
{
  const XvState *s = state;

  return s->kind == XV_DESPECKLE ? lb_xv_despeckle_scratch_size (&s->k.despeckle) : 0;
}

static void
xv_release (gpointer state)
{
  g_free (state);
}

#define XV_FILTER(var, kind_, id_, alias_, name_, category_, desc_, params_, finish_, flags_) \
  LB_GLUE_FILTER (var, "io.github.lightbox.xv." id_, alias_, name_, category_, desc_, XvParams, \
                  params_, xv_prepare, xv_scratch_size, xv_process, xv_release, finish_, flags_, \
                  kind_)

XV_FILTER (blur_info, XV_BLUR, "blur", "blur", N_("Blur"), N_("Blur"),
           N_("xv's box blur: the mean of a square window"), blur_params, NULL,
           LB_FILTER_FLAG_NONE);
XV_FILTER (sharpen_info, XV_SHARPEN, "sharpen", "sharpen", N_("Sharpen"), N_("Enhance"),
           N_("xv's sharpen: an unsharp mask on the HSV value"), sharpen_params, NULL,
           LB_FILTER_FLAG_OVERWRITES);
XV_FILTER (edge_info, XV_EDGE, "edge", "edge", N_("Edge detect"), N_("Edges"),
           N_("xv's edge detector: Prewitt magnitude, normalised"), edge_params, edge_finish,
           LB_FILTER_FLAG_OVERWRITES);
XV_FILTER (oil_info, XV_OIL, "oil", "oil", N_("Oil painting"), N_("Artistic"),
           N_("xv's oil painting: the most frequent colour of a window"), oil_params, NULL,
           LB_FILTER_FLAG_OVERWRITES);
XV_FILTER (blend_info, XV_BLEND, "blend", "blend", N_("Blend"), N_("Artistic"),
           N_("xv's blend: a radial fill from the border colours"), blend_params, NULL,
           LB_FILTER_FLAG_OVERWRITES);
XV_FILTER (despeckle_info, XV_DESPECKLE, "despeckle", "despeckle", N_("Despeckle"),
           N_("Noise"), N_("xv's despeckle: a per-channel median"), despeckle_params, NULL,
           LB_FILTER_FLAG_NONE);

/* Emboss has no parameters (params_size stays for uniformity; no specs). */
static const LbFilterInfo emboss_info = {
  .struct_size = sizeof (LbFilterInfo),
  .id = "io.github.lightbox.xv.emboss",
  .alias = "emboss",
  .name = N_("Emboss"),
  .category = N_("Artistic"),
  .description = N_("xv's emboss (tin foil): a gray relief"),
  .formats = LB_FILTER_FORMATS_ALL,
  .params_version = 1,
  .params_size = sizeof (XvParams),
  .prepare = xv_prepare,
  .process = xv_process,
  .release = xv_release,
  .flags = LB_FILTER_FLAG_OVERWRITES,
  .user_data = GINT_TO_POINTER (XV_EMBOSS),
};

static const LbFilterInfo *const xv_filters[] = {
  &blur_info, &sharpen_info, &edge_info, &emboss_info, &oil_info, &blend_info, &despeckle_info,
};

LB_GLUE_PLUGIN (xv_filters)
