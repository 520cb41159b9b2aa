/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Buffers for the kernel tests (LbKernelBuf, the plugins' band buffer): owned pixel buffers
 * with padded rows, golden-file loading, random images, band-split runs. */

#include <glib.h>

#include "lb-kernel.h"

/* A buffer with padded rows (stride > row size), so kernels are tested on non-tight strides. */
LbKernelBuf *kb_new          (int                width,
                              int                height,
                              int                channels,
                              int                depth);
/* A buffer whose rows are 2 × @pad bytes longer than the pixels, so that tests can vary the
 * stride (and give source and destination different ones). */
LbKernelBuf *kb_new_padded   (int                width,
                              int                height,
                              int                channels,
                              int                depth,
                              int                pad);
/* the same memory layout */
LbKernelBuf *kb_copy         (const LbKernelBuf *buf);
/* the same pixels in a kb_new_padded() buffer */
LbKernelBuf *kb_copy_padded  (const LbKernelBuf *buf,
                              int                pad);
void         kb_free         (LbKernelBuf       *buf);
/* random samples; @flat > 0 makes runs of equal values (flat areas, ties) more likely */
void         kb_fill_random  (LbKernelBuf       *buf,
                              GRand             *rand,
                              int                flat);
/* 8-bit RGB from tests/data/golden/@name (LB_TEST_DATA) */
LbKernelBuf *kb_load_golden  (const char        *name);
/* kb_load_golden() of the name printed from @format */
LbKernelBuf *kb_load_goldenf (const char        *format,
                              ...) G_GNUC_PRINTF (1, 2);
/* the sizes of xv's golden inputs, in_<size>.png */
extern const char *const kb_golden_sizes[3];
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
void         kb_set          (LbKernelBuf       *buf,
                              int                x,
                              int                y,
                              int                c,
                              int                v);
/* a random selection of a @w×@h image that may start up to @margin pixels before the image
 * and end up to @margin pixels past it (prepare() clips it) */
LbKernelRect kb_random_rect  (GRand             *rand,
                              int                w,
                              int                h,
                              int                margin);
/* asserts that the alpha channel (the last of GRAYA and RGBA) of @dst equals @src's */
void         kb_assert_alpha_kept (const LbKernelBuf *src,
                                   const LbKernelBuf *dst);
/* asserts that prepare() returned no @state and set @code in LB_ERROR, then clears @error */
void         kb_assert_prepare_fails (gconstpointer  state,
                                      GError       **error,
                                      int            code);

/* Each element of the array @bad makes @prepare (@src, NULL, &bad[i], &error) fail with
 * LB_ERROR_INVALID_ARGUMENT. */
#define KB_ASSERT_ALL_INVALID(prepare, src, bad)                                             \
  G_STMT_START                                                                               \
  {                                                                                          \
    for (gsize kb_i = 0; kb_i < G_N_ELEMENTS (bad); kb_i++)                                  \
      {                                                                                      \
        GError *kb_error = NULL;                                                             \
                                                                                             \
        kb_assert_prepare_fails (prepare ((src), NULL, &(bad)[kb_i], &kb_error), &kb_error,  \
                                 LB_ERROR_INVALID_ARGUMENT);                                 \
      }                                                                                      \
  }                                                                                          \
  G_STMT_END

/* The sample formats the format loops cover: those the filters must support (GRAY8, GRAY16,
 * RGB8, RGBA8), plus GRAYA8, RGB16, RGBA16. */
typedef struct {
  int channels;
  int depth;
} KbFormat;

extern const KbFormat kb_formats[7];

/* NAME_fast and NAME_ref: lb_NAME_process() and lb_NAME_process_reference() as KbProcessFunc
 * for a kernel whose state type is T. */
#define KB_WRAP(name, T)                                                                     \
  static void name##_fast (gconstpointer s, const LbKernelBuf *a, LbKernelBuf *b, int y0,     \
                           int y1)                                                           \
  { lb_##name##_process ((const T *) s, a, b, y0, y1); }                                      \
  static void name##_ref (gconstpointer s, const LbKernelBuf *a, LbKernelBuf *b, int y0,      \
                          int y1)                                                            \
  { lb_##name##_process_reference ((const T *) s, a, b, y0, y1); }

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
