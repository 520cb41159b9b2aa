/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* What the files of Spread share (lb-spread.c: prepare and the dispatcher; lb-spread-ref.c,
 * lb-spread-inplace.c, and the banded path in lb-spread-band.c with its random draws in
 * lb-spread-draws.c): the state and the banded path's sizes. Internal to plugins/xvgeom. */

#include <stdlib.h>
#include <string.h>

#include "lb-kernel-layout.h"
#include "lb-xv-random.h"
#include "lb-xvgeom.h"

G_BEGIN_DECLS

/* Hand-written AVX2 rows (the banded path's runs and draws), chosen per pass by use_avx2(). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define HAVE_AVX2_PATHS 1
#include <immintrin.h>
#endif

/* What band b's pass leaves for settling (see "Banded path" in lb-spread-band.c). */
typedef struct {
  guint32 *seam;      /* its final cells in image rows [seam_y0, seam_y1): the rows band b + 1
                       * reaches back into */
  int seam_y0, seam_y1;
  guint32 *top;       /* its final cells in its first output rows [top_y0, top_y1): the rows
                       * band b − 1 reaches (tokens at the start) and a reach more (where
                       * those tokens mostly end up); settle_kept () writes them */
  int top_y0, top_y1;
  GArray *deferred;   /* of Deferred: other output pixels that band b − 1's seam decides */
  /* the pass's progress, under LbSpread.lock */
  gboolean done;             /* the band's pass has finished */
  gboolean top_ready;        /* @top is final */
  gboolean top_claimed;      /* a thread settles @top (or has) */
  gboolean deferred_claimed; /* a thread settles @deferred (or has) */
} BandOut;

/* an output pixel (region position) and the token it holds */
typedef struct {
  guint32 pos;
  guint32 token;
} Deferred;

struct _LbSpread {
  LbKernelRect r;
  gboolean rectangle;
  int px, py;        /* rectangle half-widths, or px = d (diamond) */
  guint32 seed;
  gboolean active;
  int mmax;          /* largest modulus a draw can use */
  /* "a % m" for m = 1..mmax (lb_xv_random_mod) */
  guint32 *magic;
  guint32 *shift;
  gboolean simd;     /* the AVX2 paths where the processor has them (tests turn them off) */
  /* the x draw's range for region column x: [xlo[x], xlo[x] + xm[x]) */
  gint32 *xlo;
  guint32 *xm;
  /* banded path (lb_spread_process_band) */
  int reach;         /* rows a swap reaches up or down */
  int lane_rows;     /* rows per generator lane in a chunk (a chunk is LANES of them) */
  int band_rows;     /* region rows per band */
  int n_bands;
  BandOut *bands;    /* [band], written by that band's pass only (the flags under @lock) */
  GMutex lock;       /* the bands' flags and the two counts below */
  int n_done;        /* bands whose pass has finished, this pass */
  int n_claimed;     /* settling jobs taken, this pass (2 per band after the first) */
  guint64 wdiv;      /* 2⁶⁴/width rounded up: exact q / width for 32-bit q (width ≥ 2) */
  /* the banded form is used (else xv's swaps in place, on one thread): see banded_fits() */
  gboolean banded;
};

#define LANES LB_XV_RANDOM_LANES

/* A band's working cells are a window of rows that slides down the band (see band_run), of
 * about this many bytes and at least two chunks and both reaches high. Sliding moves the rows
 * still needed to the window's start, so a small window moves rows often: against 2 MiB, 512
 * KiB took 0.984 of the time per pass on 1 thread and 0.969 on 2, 192 KiB 0.994 and 0.954
 * (1.4 Mpx RGB8; medians of 101–151 interleaved pairs in one process). The band's whole rows
 * in one buffer (no sliding) were no faster than 2 MiB. */
#define RING_BYTES ((gsize) 512 << 10)

/* rows of a band's window, for a band whose cells span @rows rows */
static inline int
ring_rows (const LbSpread *st,
           int             rows)
{
  gint64 chunk = (gint64) LANES * st->lane_rows;
  gint64 want = MAX (2 * chunk + 2 * (gint64) st->reach,
                     (gint64) (RING_BYTES / (sizeof (guint32) * (gsize) st->r.width)));

  return (int) MIN ((gint64) rows, want);
}

/* What the draws of one band need, and where they stand. */
typedef struct {
  const LbSpread *st;
  gint32 e0[LANES];  /* lane k's first cell row (region rows) */
  gint32 y[LANES];   /* lane k's current region row (clamped to the region) */
  gint32 r0[LANES];
  int x, row;        /* current column and row of the lane, the same for every lane */
} Draws;

/* xv's swaps in place, one pass over the region on one thread (lb-spread-inplace.c). */
void _lb_spread_in_place    (const LbSpread  *st,
                             LbKernelBuf     *dst,
                             gsize            cb);
/* The partner cells of the next @npix pixels of every lane of a chunk (lb-spread-draws.c). */
void _lb_spread_band_draws  (Draws           *dr,
                             LbXvRandomLanes *rng,
                             gboolean         avx2,
                             guint32        (*parts)[LANES],
                             gsize            npix);

G_END_DECLS
