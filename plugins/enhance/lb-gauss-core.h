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
