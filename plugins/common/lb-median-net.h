/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Exact 3×3 and 5×5 medians of whole rows by fixed min/max networks, shared by the enhance
 * median (lb-median.c, radius 1 and 2) and xv despeckle (lb-xv-despeckle.c, sizes 3 and 5):
 * the median of the 9 or 25 samples is picked by a network generated and checked by
 * gen-median-networks.py (lb-median-networks.h). The loop runs over contiguous samples of a
 * row with no branches, so the compiler turns each min/max into one SIMD instruction over 16
 * or 32 samples (pminub / pminuw; AVX2 through target_clones). Every channel is its own
 * median, so interleaved channels need nothing special: the window of sample i is at
 * i + dx·channels. Windows clipped by a region's border (with their even-count rule) are the
 * callers' business. Header-only (static functions): each kernel library keeps its own copy
 * and compile flags. */

#include <glib.h>

#include "lb-kernel.h" /* LB_KERNEL_CLONES */
#include "lb-median-networks.h"

#define LB_MED_CS(a, b)                       \
  do                                          \
    {                                         \
      __typeof__ (a) lb_med_t_ = MIN (a, b);  \
      b = MAX (a, b);                         \
      a = lb_med_t_;                          \
    }                                         \
  while (0)
#define LB_MED_MIN(a, b) ((a) = MIN (a, b))
#define LB_MED_MAX(a, b) ((b) = MAX (a, b))

/* @rK points at sample 0 of the window's first column (x − r) in row y − r + K; @out gets
 * @n samples; @ch is the sample distance between columns */
#define LB_MED_NET_FUNCS(T, sfx)                                                              \
  LB_KERNEL_CLONES static G_GNUC_UNUSED void                                                 \
  lb_median_net9_##sfx (const T *restrict r0, const T *restrict r1, const T *restrict r2,     \
                        T *restrict out, gsize n, gsize ch)                                   \
  {                                                                                          \
    for (gsize i = 0; i < n; i++)                                                            \
      {                                                                                      \
        T v0 = r0[i], v1 = r0[i + ch], v2 = r0[i + 2 * ch];                                  \
        T v3 = r1[i], v4 = r1[i + ch], v5 = r1[i + 2 * ch];                                  \
        T v6 = r2[i], v7 = r2[i + ch], v8 = r2[i + 2 * ch];                                  \
        LB_MEDIAN_NET9;                                                                      \
        out[i] = v4;                                                                         \
      }                                                                                      \
  }                                                                                          \
  LB_KERNEL_CLONES static G_GNUC_UNUSED void                                                 \
  lb_median_net25_##sfx (const T *restrict r0, const T *restrict r1, const T *restrict r2,    \
                         const T *restrict r3, const T *restrict r4, T *restrict out, gsize n, \
                         gsize ch)                                                           \
  {                                                                                          \
    for (gsize i = 0; i < n; i++)                                                            \
      {                                                                                      \
        T v0 = r0[i], v1 = r0[i + ch], v2 = r0[i + 2 * ch], v3 = r0[i + 3 * ch];             \
        T v4 = r0[i + 4 * ch], v5 = r1[i], v6 = r1[i + ch], v7 = r1[i + 2 * ch];             \
        T v8 = r1[i + 3 * ch], v9 = r1[i + 4 * ch], v10 = r2[i], v11 = r2[i + ch];           \
        T v12 = r2[i + 2 * ch], v13 = r2[i + 3 * ch], v14 = r2[i + 4 * ch], v15 = r3[i];     \
        T v16 = r3[i + ch], v17 = r3[i + 2 * ch], v18 = r3[i + 3 * ch];                      \
        T v19 = r3[i + 4 * ch], v20 = r4[i], v21 = r4[i + ch], v22 = r4[i + 2 * ch];         \
        T v23 = r4[i + 3 * ch], v24 = r4[i + 4 * ch];                                        \
        LB_MEDIAN_NET25;                                                                     \
        out[i] = v12;                                                                        \
      }                                                                                      \
  }

LB_MED_NET_FUNCS (guint8, u8)
LB_MED_NET_FUNCS (guint16, u16)
