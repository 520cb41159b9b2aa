/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Helpers for the kernel tests: owned pixel buffers, golden-file loading, random images,
 * band-split runs. */

#include <glib.h>

#include "lb-kernel.h"

/* A buffer with padded rows (stride > row size), so kernels are tested on non-tight strides. */
LbKernelBuf *kb_new          (int                width,
                              int                height,
                              int                channels,
                              int                depth);
LbKernelBuf *kb_copy         (const LbKernelBuf *buf);
void         kb_free         (LbKernelBuf       *buf);
/* random samples; @flat > 0 makes runs of equal values (flat areas, ties) more likely */
void         kb_fill_random  (LbKernelBuf       *buf,
                              GRand             *rand,
                              int                flat);
/* 8-bit RGB from tests/data/golden/@name (LB_TEST_DATA) */
LbKernelBuf *kb_load_golden  (const char        *name);
/* number of differing samples, and the largest difference */
gsize        kb_compare      (const LbKernelBuf *a,
                              const LbKernelBuf *b,
                              int               *max_diff);
/* FALSE if any sample of channel @c differs */
gboolean     kb_channel_equal (const LbKernelBuf *a,
                               const LbKernelBuf *b,
                               int                c);
int          kb_get          (const LbKernelBuf *buf,
                              int                x,
                              int                y,
                              int                c);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LbKernelBuf, kb_free)

typedef void (*KbProcessFunc) (gconstpointer      state,
                               const LbKernelBuf *src,
                               LbKernelBuf       *dst,
                               int                y0,
                               int                y1);

/* dst = copy of src, then @process over the rows in random bands, in random order */
LbKernelBuf *kb_run_bands    (KbProcessFunc      process,
                              gconstpointer      state,
                              const LbKernelBuf *src,
                              GRand             *rand);
/* dst = copy of src, then one call over all rows */
LbKernelBuf *kb_run_whole    (KbProcessFunc      process,
                              gconstpointer      state,
                              const LbKernelBuf *src);
