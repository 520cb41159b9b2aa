/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* lightbox-bench filters, shared by its files: lb-bench-filters.c (the command and its main
 * tables), -pass.c (test images, one measured pass, its peak memory), -floor.c (the memory
 * floor) and -external.c (ImageMagick and libvips). */

#include "lb-bench-kernels.h"
#include "lb-bench.h"
#include "lb-filter-registry.h"
#include "lb-image.h"

G_BEGIN_DECLS

#define PAPER_MPX 1.4          /* xv's table and the external comparisons */

typedef struct {
  gboolean quick;
  char *out_dir;
  GPtrArray *ids;        /* selected filter ids, NULL = all */
  GArray *sizes;         /* double Mpx */
  guint threads_all;
  LbFilterRegistry *registry;
  GPtrArray *notes;
} Ctx;

/* engine: registry + pipeline; engine-exact: the same with the plugin's own "exact"
 * parameter (its scalar reference path, where the plugin offers one); kernel / reference:
 * the kernel library's optimised / scalar reference functions, called directly. */
typedef enum { PATH_ENGINE, PATH_ENGINE_EXACT, PATH_KERNEL, PATH_REFERENCE } PassPath;

static inline const char *
path_name (PassPath p)
{
  switch (p)
    {
    case PATH_ENGINE: return "engine";
    case PATH_ENGINE_EXACT: return "engine-exact";
    case PATH_KERNEL: return "kernel";
    case PATH_REFERENCE: return "reference";
    default: return "?";
    }
}

/* lb-bench-filters-pass.c */
/* The pixel size of @mpx: the paper's sizes exactly, squares beyond. */
void      lb_bench_size_dims      (double                          mpx,
                                   guint                          *w,
                                   guint                          *h);
/* The test picture; lb_bench_make_ct_image() holds 12-bit values (16-bit formats). */
LbImage  *lb_bench_make_image     (guint                           width,
                                   guint                           height,
                                   LbSampleFormat                  format,
                                   GError                        **error);
LbImage  *lb_bench_make_ct_image  (guint                           width,
                                   guint                           height,
                                   LbSampleFormat                  format,
                                   GError                        **error);
/* The median ms of one filter, format, size and thread count; @path says which ran. */
gboolean  lb_bench_measure_cell   (Ctx                            *ctx,
                                   const LbBenchFilterSpec        *spec,
                                   LbImage                        *image,
                                   guint                           threads,
                                   gboolean                        reference,
                                   LbMeasureStats                 *st,
                                   PassPath                       *path,
                                   GError                        **error);
void      lb_bench_memory_rows    (Ctx                            *ctx,
                                   LbMeasureTable                 *table,
                                   const LbBenchFilterSpec *const *sel,
                                   guint                           n_sel,
                                   double                          mpx);

/* lb-bench-filters-floor.c */
void      lb_bench_floor_rows     (Ctx                            *ctx,
                                   LbMeasureTable                 *table,
                                   const LbBenchFilterSpec *const *sel,
                                   guint                           n_sel,
                                   double                          mpx,
                                   GHashTable                     *results);

/* lb-bench-filters-external.c */
void      lb_bench_external_rows  (Ctx                            *ctx,
                                   LbMeasureTable                 *table,
                                   const LbBenchFilterSpec *const *sel,
                                   guint                           n_sel,
                                   LbImage                        *image,
                                   const char                     *fmt,
                                   double                          mpx,
                                   GHashTable                     *results);

/* lb-bench-filters.c */
/* The median ms measured for a cell of the main table, NAN if none. */
double    lb_bench_recall         (GHashTable                     *results,
                                   const char                     *label,
                                   const char                     *fmt,
                                   double                          mpx,
                                   guint                           threads);

G_END_DECLS
