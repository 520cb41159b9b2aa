/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* The separable Gaussian shared by lb-gaussian.c and lb-unsharp.c (private). */

#include "lb-kernel.h"

typedef struct {
  LbKernelRect r;   /* region */
  int radius;       /* taps each side */
  double *w;        /* 2·radius+1 unnormalised weights exp(−k²/2σ²), index k + radius */
  float *full;      /* normalised taps of an unclipped window */
} LbGaussCore;

gboolean lb_gauss_core_init   (LbGaussCore        *core,
                               const LbKernelBuf  *src,
                               const LbKernelRect *region,
                               double              sigma,
                               const char         *what,
                               GError            **error);
void     lb_gauss_core_clear  (LbGaussCore        *core);
/* Float scratch: 2 rows of region width × channels, plus taps. */
gsize    lb_gauss_core_scratch_floats (const LbGaussCore *core,
                                       const LbKernelBuf *src);
/* Blurs image row @y (inside the region) into @out[0 .. region width × channels): every
 * channel, alpha included (callers ignore it). @scratch has scratch_floats() floats. */
void     lb_gauss_core_row        (const LbGaussCore *core,
                                   const LbKernelBuf *src,
                                   int                y,
                                   float             *out,
                                   float             *scratch);
void     lb_gauss_core_row_reference (const LbGaussCore *core,
                                      const LbKernelBuf *src,
                                      int                y,
                                      float             *out,
                                      float             *scratch);

/* lb_gauss_core_row or lb_gauss_core_row_reference. */
typedef void (*LbGaussRowFunc) (const LbGaussCore *, const LbKernelBuf *, int, float *, float *);
/* What a filter makes of region row @y of @src, given that row blurred (region width ×
 * channels floats); writes it to @dst. @data: the filter's state. */
typedef void (*LbGaussEmitFunc) (gconstpointer      data,
                                 const LbKernelBuf *src,
                                 LbKernelBuf       *dst,
                                 int                y,
                                 const float       *blurred);
/* The rows [y0, y1) that lie in the region, each blurred by @row_func, then handed to @emit;
 * scratch is allocated once per call. */
void     lb_gauss_core_run        (const LbGaussCore *core,
                                   const LbKernelBuf *src,
                                   LbKernelBuf       *dst,
                                   int                y0,
                                   int                y1,
                                   LbGaussRowFunc     row_func,
                                   LbGaussEmitFunc    emit,
                                   gconstpointer      data);
