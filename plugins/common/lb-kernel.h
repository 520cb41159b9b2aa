/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Shared vocabulary of the filter kernels in plugins/: GLib only, no engine dependency, so
 * kernels can be tested directly against golden vectors and wrapped by any plugin. */

#include <string.h>

#include <glib.h>

G_BEGIN_DECLS

/* Kernels report bad input in the host's own error domain, LB_ERROR (src/core/lb-error.h),
 * without linking src/core: a GQuark is the process's number for a string, and LB_ERROR is
 * the quark of "lb-error-quark", so the same string gives the same domain in Lightbox and in
 * tests that include lb-error.h; through the isolation helper the domain travels by that name
 * (lb-filter-plugin.h). The codes are LbError's (tests/abi/test-kernel-error.c checks both). */
#define LB_KERNEL_ERROR (lb_kernel_error_quark ())

typedef enum {
  LB_KERNEL_ERROR_INVALID_ARGUMENT = 1, /* LB_ERROR_INVALID_ARGUMENT: a bad parameter or buffer */
  LB_KERNEL_ERROR_UNSUPPORTED = 4,      /* LB_ERROR_UNSUPPORTED: a format no kernel takes */
} LbKernelError;

GQuark lb_kernel_error_quark (void);

/**
 * LbKernelBuf:
 * @data: pixel (0, 0)
 * @stride: bytes from one row to the next
 * @width: pixels
 * @height: pixels
 * @channels: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA; alpha is always the last channel and
 *   passes through every filter unchanged
 * @depth: bits per sample, 8 (guint8) or 16 (guint16, host order)
 *
 * @ticker: (nullable): on a destination view, whom a slow kernel tells how far it has got,
 *   and asks whether to go on (see LbKernelTicker); %NULL: no one
 *
 * A view of native samples. Kernels read a source view and write a destination view of the
 * same geometry.
 */
typedef struct _LbKernelTicker LbKernelTicker;
typedef struct {
  guint8 *data;
  gsize stride;
  int width;
  int height;
  int channels;
  int depth;
  const LbKernelTicker *ticker;
} LbKernelBuf;

/**
 * LbKernelTicker:
 * @func: told that @done of @total units of the call's work are finished (cumulative, in
 *   units the kernel picks: rows, or column strips × channels); returns %FALSE when the
 *   caller wants the kernel to stop, whose output is then incomplete (the caller discards it)
 * @data: for @func
 *
 * Progress and cancellation for the kernels whose calls can take seconds: medians,
 * despeckle and oil of large windows, Gaussians of large sigma, on large images. Plugins
 * connect it to lb_filter_band_rows_done() (lb-plugin-glue.h); kernels stay free of the plugin
 * ABI. Ticking a row costs a pointer test when no one listens.
 */
struct _LbKernelTicker {
  gboolean (*func) (gpointer data,
                    guint64  done,
                    guint64  total);
  gpointer data;
};

/* @done of @total units finished; FALSE: stop now. */
static inline G_GNUC_UNUSED gboolean
lb_kernel_tick (const LbKernelTicker *ticker, guint64 done, guint64 total)
{
  return ticker == NULL || ticker->func (ticker->data, done, total);
}

/* The call out of lb_kernel_row_tick(), kept out of line and cold: as an inline call inside
 * oil's row loop it cost that loop 5–6 % (RGB8 oil 9 and 15, 1 thread) even with no ticker,
 * through the registers the call clobbers. */
static G_GNUC_UNUSED __attribute__ ((noinline, cold)) gboolean
lb_kernel_row_tick_call (const LbKernelBuf *dst, int y, int ya, int yb)
{
  return y == ya || dst->ticker->func (dst->ticker->data, (guint64) (y - ya), (guint64) (yb - ya));
}

/* For a kernel's loop over rows [@ya, @yb), at the top of row @y's iteration: the rows before
 * it are done; FALSE: stop now. */
static inline G_GNUC_UNUSED gboolean
lb_kernel_row_tick (const LbKernelBuf *dst, int y, int ya, int yb)
{
  return G_LIKELY (dst->ticker == NULL) || lb_kernel_row_tick_call (dst, y, ya, yb);
}

/* A rectangle in pixels; x, y of the top-left corner. */
typedef struct {
  int x;
  int y;
  int width;
  int height;
} LbKernelRect;

/* Hot loops are compiled twice on x86-64, for the baseline (SSE2) and for AVX2, and the loader
 * picks one at start-up (GCC function multi-versioning, an ifunc). Integer loops, or doubles
 * and floats without contraction (-ffp-contract=off holds for the clone too, no FMA), so both
 * clones give identical results. Not with clang: clang 14 compiles target_clones on static
 * functions but calls the wrong function through the resolver (xv blur's blur3_fast_8 landed
 * in blur_rows_16's clone), so there the baseline loops run (hand-written AVX2 rows still do). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define LB_KERNEL_CLONES __attribute__ ((target_clones ("avx2", "default")))
#else
#define LB_KERNEL_CLONES
#endif

#if defined(__x86_64__) && defined(__GNUC__)
/* Whether the CPU runs AVX2, for kernels with hand-written AVX2 rows beside their portable
 * loops (asked once per file that calls it). */
static inline G_GNUC_UNUSED gboolean
lb_kernel_have_avx2 (void)
{
  static gsize once = 0;
  static gboolean avx2 = FALSE;

  if (g_once_init_enter (&once))
    {
      __builtin_cpu_init ();
      avx2 = __builtin_cpu_supports ("avx2");
      g_once_init_leave (&once, 1);
    }
  return avx2;
}
#endif

/* The alpha samples (the last of src->channels) of pixels [x0, x1) of row @y copied from
 * @src back into @dst; nothing without alpha. For kernels that run alpha through their
 * colour maths, since contiguous loops over every sample vectorise where skipping one sample
 * in four does not, and put it back after, while the row is still in cache. 8-bit RGBA as
 * 32-bit words (a mask built from bytes, so either byte order), which the compiler
 * vectorises. */
static inline G_GNUC_UNUSED void
lb_kernel_restore_alpha (const LbKernelBuf *src, LbKernelBuf *dst, int y, int x0, int x1)
{
  const int ch = src->channels;
  const guint8 *restrict s = src->data + (gsize) y * src->stride;
  guint8 *restrict d = dst->data + (gsize) y * dst->stride;

  if (ch != 2 && ch != 4)
    return;
  if (src->depth == 8 && ch == 4)
    {
      static const guint8 mask_bytes[4] = { 0, 0, 0, 0xff };
      guint32 amask;

      memcpy (&amask, mask_bytes, sizeof amask);
      for (gsize i = (gsize) x0 * 4; i < (gsize) x1 * 4; i += 4)
        {
          guint32 a, b;

          memcpy (&a, d + i, sizeof a);
          memcpy (&b, s + i, sizeof b);
          a = (a & ~amask) | (b & amask);
          memcpy (d + i, &a, sizeof a);
        }
    }
  else if (src->depth == 8)
    for (gsize i = (gsize) x0 * ch + ch - 1; i < (gsize) x1 * ch; i += ch)
      d[i] = s[i];
  else
    for (gsize i = (gsize) x0 * ch + ch - 1; i < (gsize) x1 * ch; i += ch)
      memcpy (d + 2 * i, s + 2 * i, 2);
}

G_END_DECLS
