/* SPDX-License-Identifier: GPL-3.0-or-later */

/*
 * xv's geometric and statistical algorithms as a Lightbox plugin: copy rotate, clear rotate,
 * pixelize and spread. Only the ABI wrapper lives here; the kernels are lb-rotate.c,
 * lb-pixelize.c and lb-spread.c (tested against xv's golden files on their own).
 */

#include "lb-plugin-glue.h"

#include "lb-xvgeom.h"

typedef enum {
  GEOM_ROTATE = 1,
  GEOM_ROTATE_CLEAR,
  GEOM_PIXELIZE,
  GEOM_SPREAD,
} GeomKind;

typedef struct {
  double angle;     /* rotate: degrees, counter-clockwise */
  gboolean exact;   /* rotate: xv's per-pixel polar maths (scalar reference path) */
  gint clear[3];    /* rotate-clear: clear colour, native sample units */
  gint width;       /* pixelize: block width; spread: x distance of the AxB form (−1 unset) */
  gint height;      /* pixelize: block height; spread: y distance of the AxB form (−1 unset) */
  gboolean xv_bug;  /* pixelize: reproduce xv's left-column read bug */
  gint distance;    /* spread: xv's single-number form */
} GeomParams;

typedef struct {
  GeomKind kind;
  gboolean exact;
  gpointer kernel;  /* LbRotate / LbPixelize / LbSpread */
} GeomState;

#define ANGLE_SPEC                                                                            \
  {                                                                                           \
    .name = "angle", .label = N_("Angle"), .description = N_("Counter-clockwise, degrees"),   \
    .type = LB_PARAM_DOUBLE, .offset = G_STRUCT_OFFSET (GeomParams, angle),                   \
    .min = -360, .max = 360, .def = 0, .ui_min = -180, .ui_max = 180, .step = 0.5,            \
    .digits = 1, .unit = LB_UNIT_DEGREE,                                                      \
  }

#define EXACT_SPEC                                                                            \
  {                                                                                           \
    .name = "exact", .label = N_("Exact (scalar path)"),                                      \
    .description = N_("xv's per-pixel polar maths, byte-identical to xv; the default affine " \
                      "path may differ by 1 in rare samples"),                                \
    .type = LB_PARAM_BOOL, .offset = G_STRUCT_OFFSET (GeomParams, exact), .min = 0, .max = 1, \
    .def = 0, .ui_min = 0, .ui_max = 1, .step = 1, .flags = LB_PARAM_FLAG_ADVANCED,           \
  }

#define CLEAR_SPEC(i, nm, lbl)                                                                \
  {                                                                                           \
    .name = nm, .label = lbl,                                                                 \
    .description = N_("Clear colour, sample value (gray images use clear-red)"),             \
    .type = LB_PARAM_INT, .offset = G_STRUCT_OFFSET (GeomParams, clear) + i * sizeof (gint),  \
    .min = 0, .max = 65535, .def = 0, .ui_min = 0, .ui_max = 255, .step = 1,                  \
    .unit = LB_UNIT_SAMPLE, .flags = LB_PARAM_FLAG_ADVANCED,                                  \
  }

static const LbParamSpec rotate_params[] = { ANGLE_SPEC, EXACT_SPEC };

static const LbParamSpec rotate_clear_params[] = {
  ANGLE_SPEC,
  EXACT_SPEC,
  CLEAR_SPEC (0, "clear-red", N_("Clear red")),
  CLEAR_SPEC (1, "clear-green", N_("Clear green")),
  CLEAR_SPEC (2, "clear-blue", N_("Clear blue")),
};

static const LbParamSpec pixelize_params[] = {
  {
    .name = "width", .label = N_("Block width"), .type = LB_PARAM_INT,
    .offset = G_STRUCT_OFFSET (GeomParams, width), .min = 1, .max = 65535, .def = 4,
    .ui_min = 1, .ui_max = 64, .step = 1, .unit = LB_UNIT_PIXEL,
  },
  {
    .name = "height", .label = N_("Block height"), .type = LB_PARAM_INT,
    .offset = G_STRUCT_OFFSET (GeomParams, height), .min = 1, .max = 65535, .def = 4,
    .ui_min = 1, .ui_max = 64, .step = 1, .unit = LB_UNIT_PIXEL,
  },
  {
    .name = "xv-bug", .label = N_("Reproduce xv's bug"),
    .description = N_("Average the wrong pixels in the first block column, as xv does"),
    .type = LB_PARAM_BOOL, .offset = G_STRUCT_OFFSET (GeomParams, xv_bug), .min = 0, .max = 1,
    .def = 0, .ui_min = 0, .ui_max = 1, .step = 1, .flags = LB_PARAM_FLAG_ADVANCED,
  },
};

static const LbParamSpec spread_params[] = {
  {
    .name = "distance", .label = N_("Distance"),
    .description = N_("xv's single number: pixels move within this city-block distance"),
    .type = LB_PARAM_INT, .offset = G_STRUCT_OFFSET (GeomParams, distance), .min = 0,
    .max = 10000, .def = 5, .ui_min = 0, .ui_max = 50, .step = 1, .unit = LB_UNIT_PIXEL,
  },
  {
    .name = "width", .label = N_("Horizontal distance"),
    .description = N_("xv's AxB form: pixels move up to this far sideways (−1: use distance)"),
    .type = LB_PARAM_INT, .offset = G_STRUCT_OFFSET (GeomParams, width), .min = -1,
    .max = 10000, .def = -1, .ui_min = -1, .ui_max = 50, .step = 1, .unit = LB_UNIT_PIXEL,
    .flags = LB_PARAM_FLAG_ADVANCED,
  },
  {
    .name = "height", .label = N_("Vertical distance"),
    .description = N_("xv's AxB form: pixels move up to this far up or down (−1: use distance)"),
    .type = LB_PARAM_INT, .offset = G_STRUCT_OFFSET (GeomParams, height), .min = -1,
    .max = 10000, .def = -1, .ui_min = -1, .ui_max = 50, .step = 1, .unit = LB_UNIT_PIXEL,
    .flags = LB_PARAM_FLAG_ADVANCED,
  },
};

static gpointer
geom_prepare (const LbFilterInfo  *info,
              gconstpointer        params,
              const LbFilterImage *image,
              LbFilterRect        *write_rect,
              GError             **error)
{
  const GeomParams *p = params;
  GeomState *s = g_new0 (GeomState, 1);
  LbKernelBuf src = lb_glue_src_buf (image);
  LbKernelRect region = lb_glue_region (image);

  s->kind = GPOINTER_TO_INT (info->user_data);
  s->exact = p->exact;
  switch (s->kind)
    {
    case GEOM_ROTATE:
    case GEOM_ROTATE_CLEAR:
      {
        LbRotateParams rp = { p->angle, s->kind == GEOM_ROTATE_CLEAR,
                              { (guint16) p->clear[0], (guint16) p->clear[1],
                                (guint16) p->clear[2] }, p->exact };
        int y0 = 0, y1 = 0;

        s->kernel = lb_rotate_prepare (&src, &region, &rp, error);
        if (s->kernel != NULL)
          {
            /* The rotated copy may land outside the region, anywhere in these rows. */
            lb_rotate_get_dest_rows (s->kernel, &y0, &y1);
            *write_rect = (LbFilterRect) { 0, y0, image->width, MAX (y1 - y0, 0) };
          }
      }
      break;
    case GEOM_PIXELIZE:
      {
        LbPixelizeParams pp = { p->width, p->height, p->xv_bug };
        s->kernel = lb_pixelize_prepare (&src, &region, &pp, error);
      }
      break;
    case GEOM_SPREAD:
      {
        /* Either form of xv's prompt: "N" (diamond) unless width or height is given. */
        gboolean rect = p->width >= 0 || p->height >= 0;
        LbSpreadParams sp = { rect, rect ? MAX (p->width, 0) : p->distance,
                              rect ? MAX (p->height, 0) : 0, (guint32) image->seed };
        s->kernel = lb_spread_prepare (&src, &region, &sp, error);
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
geom_process (gconstpointer       state,
              const LbFilterBand *band,
              GError            **error)
{
  const GeomState *s = state;
  const LbFilterImage *im = band->image;
  LbKernelBuf src = lb_glue_src_buf (im);
  LbKernelBuf dst = lb_glue_dst_buf (im, band->dst, band->dst_stride);

  if (g_atomic_int_get (band->cancelled))
    return TRUE;
  switch (s->kind)
    {
    case GEOM_ROTATE:
    case GEOM_ROTATE_CLEAR:
      (s->exact ? lb_rotate_process_reference : lb_rotate_process) (s->kernel, &src, &dst,
                                                                    band->y0, band->y1);
      break;
    case GEOM_PIXELIZE:
      lb_pixelize_process (s->kernel, &src, &dst, band->y0, band->y1);
      break;
    case GEOM_SPREAD:   /* no process(): all in spread_finish () */
    default:
      g_assert_not_reached ();
    }
  return TRUE;
}

/* Spread's global pass. One thread, or a region without bands (its banded form does not fit):
 * lb_spread_process(), which runs the banded form on this thread or xv's swaps in place. More
 * threads: the banded form (lb-xvgeom.h), its bands as one parallel loop through the host's
 * threads (each band also settles the pixels it kept for earlier bands, once those are
 * done). All give the same bytes. */
typedef struct {
  const LbSpread *kernel;
  LbKernelBuf src;
  LbKernelBuf dst;
} SpreadFinish;

static void
spread_band_item (gpointer data,
                  int      item,
                  int      thread_index)
{
  SpreadFinish *f = data;

  lb_spread_process_band (f->kernel, &f->src, &f->dst, item);
}

static gboolean
spread_finish (gconstpointer        state,
               const LbFilterImage *image,
               guint8              *dst,
               gsize                dst_stride,
               const LbFilterHost  *host,
               const gint          *cancelled,
               GError             **error)
{
  const GeomState *s = state;
  SpreadFinish f = { s->kernel, lb_glue_src_buf (image), lb_glue_dst_buf (image, dst, dst_stride) };
  int n_bands = lb_spread_get_n_bands (s->kernel);

  if (host->n_threads <= 1 || n_bands <= 1)
    {
      lb_spread_process (s->kernel, &f.src, &f.dst, 0, image->height);
      return TRUE;
    }
  return host->parallel_for (host, n_bands, spread_band_item, &f);
}

static void
geom_release (gpointer state)
{
  GeomState *s = state;

  switch (s->kind)
    {
    case GEOM_ROTATE:
    case GEOM_ROTATE_CLEAR:
      lb_rotate_free (s->kernel);
      break;
    case GEOM_PIXELIZE:
      lb_pixelize_free (s->kernel);
      break;
    case GEOM_SPREAD:
      lb_spread_free (s->kernel);
      break;
    default:
      break;
    }
  g_free (s);
}

#define GEOM_FILTER(var, kind_, id_, name_, category_, desc_, params_, flags_, process_,     \
                    finish_)                                                                 \
  LB_GLUE_FILTER (var, "io.github.lightbox.xv." id_, id_, name_, category_, desc_, GeomParams,  \
                  params_, geom_prepare, NULL, process_, geom_release, finish_, flags_, kind_)

GEOM_FILTER (rotate_info, GEOM_ROTATE, "rotate", N_("Copy rotate"), N_("Geometry"),
             N_("xv's copy rotate: a rotated copy pasted over the image"), rotate_params, 0,
             geom_process, NULL);
GEOM_FILTER (rotate_clear_info, GEOM_ROTATE_CLEAR, "rotate-clear", N_("Clear rotate"),
             N_("Geometry"), N_("xv's clear rotate: the region is cleared, then rotated"),
             rotate_clear_params, 0, geom_process, NULL);
GEOM_FILTER (pixelize_info, GEOM_PIXELIZE, "pixelize", N_("Pixelize"), N_("Artistic"),
             N_("Blocks of the mean colour, on a grid centred on the region"), pixelize_params,
             LB_FILTER_FLAG_OVERWRITES, geom_process, NULL);
GEOM_FILTER (spread_info, GEOM_SPREAD, "spread", N_("Spread"), N_("Noise"),
             N_("xv's spread: pixels swap with random neighbours (seeded)"), spread_params,
             LB_FILTER_FLAG_OVERWRITES, NULL, spread_finish);

static const LbFilterInfo *const geom_filters[] = {
  &rotate_info, &rotate_clear_info, &pixelize_info, &spread_info,
};

LB_GLUE_PLUGIN (geom_filters)
