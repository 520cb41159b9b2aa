/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* glibc's random() (the default TYPE_3 additive feedback generator), re-implemented from its
 * published description so that xv's Spread can be reproduced on any C library:
 *
 *   seeding:  r[0] = seed (0 becomes 1); r[i] = 16807 · r[i−1] mod (2³¹ − 1) for i = 1..30,
 *             computed with Schrage's method in signed 32-bit as glibc does;
 *             r[i] = r[i−31] for i = 31..33;
 *   running:  r[i] = r[i−3] + r[i−31] mod 2³², output o_k = r[k + 344] >> 1 (0..2³¹−1),
 *             i.e. the first 310 values after seeding are discarded.
 *
 * Two implementations: a plain ring buffer stepped once per call (the reference) and a
 * batched generator that fills arrays with the same sequence (the fast path). */

#include <glib.h>

G_BEGIN_DECLS

/* Reference: glibc's own state layout (31 words, front/rear indices 3 apart). */
typedef struct {
  guint32 state[31];
  int front;
  int rear;
} LbXvRandom;

void     lb_xv_random_seed (LbXvRandom *rng,
                            guint32     seed);
guint32  lb_xv_random_next (LbXvRandom *rng);

/* Batched: the last 31 values of the sequence r[] followed by room for a batch. */
#define LB_XV_RANDOM_BATCH 4096

typedef struct {
  guint32 hist[31 + LB_XV_RANDOM_BATCH];
  int pos;   /* next unread index into hist */
} LbXvRandomBatch;

void     lb_xv_random_batch_seed (LbXvRandomBatch *rng,
                                  guint32          seed);
/* Seeds and skips the first @skip outputs in O(31² · log skip) operations (not O(skip)):
 * the next output is number @skip of the sequence, counting from 0. The recurrence is linear,
 * r[n + m] = Σ c_j · r[j + m] (mod 2³²) where x^n ≡ Σ c_j x^j modulo x³¹ − x²⁸ − 1, so the
 * 31 words of history at any offset come from the first 61 words. */
void     lb_xv_random_batch_seed_at (LbXvRandomBatch *rng,
                                     guint32          seed,
                                     guint64          skip);
/* Writes the next @n outputs (0..2³¹−1) to @out. */
void     lb_xv_random_batch_fill (LbXvRandomBatch *rng,
                                  guint32         *out,
                                  gsize            n);

/* "a % m" by a multiplication, for outputs a < 2³¹ and 1 ≤ m ≤ 2³¹: with ℓ = ⌈log₂ m⌉
 * (@shift) and M = ⌈2^(31+ℓ) / m⌉ (@magic, < 2³²), a % m = a − m · ⌊a · M / 2^(31+ℓ)⌋ exactly
 * (Granlund–Montgomery): e = M·m − 2^(31+ℓ) ≤ m − 1 < 2^ℓ, so a·M / 2^(31+ℓ) = a/m + ε with
 * 0 ≤ ε = a·e / (m · 2^(31+ℓ)) < 2³¹·2^ℓ / (m · 2^(31+ℓ)) = 1/m, and a/m is at least 1/m
 * below the next integer. The same floor is ((2a · M) >> 32) >> ℓ, the form SIMD multiplies
 * give (2a fits 32 bits). */
void     lb_xv_random_mod_magic (guint32  m,
                                 guint32 *magic,
                                 guint32 *shift);

static inline guint32
lb_xv_random_mod (guint32 a,
                  guint32 m,
                  guint32 magic,
                  guint32 shift)
{
  return a - m * (guint32) (((guint64) a * magic) >> (31 + shift));
}

/* Lanes: LB_XV_RANDOM_LANES copies of the sequence side by side, lane k starting at output
 * @first + k · @step, stepped together: hist[i][k] = hist[i − 31][k] + hist[i − 3][k] is one
 * vector addition per step for all lanes, and every load meets a whole earlier store (a single
 * sequence vectorised along itself has a dependence distance of 3). For xv's spread a lane is
 * a row of a chunk of 8 rows, and the lanes jump to the next chunk's rows at its end
 * (lb_xv_random_lanes_jump). */
#define LB_XV_RANDOM_LANES 8
#define LB_XV_RANDOM_LANE_STEPS 512

typedef struct {
  guint32 hist[31 + LB_XV_RANDOM_LANE_STEPS][LB_XV_RANDOM_LANES];
  int pos;   /* next unread step of hist */
  guint32 jump[31];  /* x^((LANES − 1) · step) mod the generator's polynomial (see _jump) */
  guint64 step;
  guint64 taken;     /* steps read since the seed or the last jump */
} LbXvRandomLanes;

void     lb_xv_random_lanes_seed (LbXvRandomLanes *rng,
                                  guint32          seed,
                                  guint64          first,
                                  guint64          step);
/* The next @n ≤ LB_XV_RANDOM_LANE_STEPS steps as raw words r (the outputs are r >> 1), valid
 * until the next call. */
const guint32 (*lb_xv_random_lanes_next (LbXvRandomLanes *rng,
                                         gsize            n))[LB_XV_RANDOM_LANES];
/* Chunks: after exactly @step steps since the seed (or the last jump), moves every lane on by
 * (LB_XV_RANDOM_LANES − 1) · @step outputs, so that lane k continues at output
 * first + (c · LB_XV_RANDOM_LANES + k) · step in chunk c: the lanes together then cover the
 * sequence from @first on without a gap, LB_XV_RANDOM_LANES · @step outputs per chunk. One
 * jump is 31 × 31 multiply-adds per lane (the new history as a fixed linear map of the old
 * one and the 30 words after it), not a walk through the skipped outputs. */
void     lb_xv_random_lanes_jump (LbXvRandomLanes *rng);
/* Writes the next @n steps: out[t][k] is output number first + k · step + (steps so far + t)
 * of the sequence (0..2³¹−1). */
void     lb_xv_random_lanes_fill (LbXvRandomLanes *rng,
                                  guint32        (*out)[LB_XV_RANDOM_LANES],
                                  gsize            n);

G_END_DECLS
