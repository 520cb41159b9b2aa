/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-random"

#include "lb-xv-random.h"

#include <string.h>

#include "lb-kernel-layout.h"

/* glibc seeds r[1..30] with the Park–Miller LCG, computed without overflow by Schrage's
 * method; the intermediate is 64-bit ("long") and stored as int32, which matters only for
 * seeds ≥ 2³¹ (negative as int32). */
static void
seed_words (guint32 r[31],
            guint32 seed)
{
  gint32 word = (gint32) (seed == 0 ? 1 : seed);

  r[0] = (guint32) word;
  for (int i = 1; i < 31; i++)
    {
      gint64 hi = word / 127773;
      gint64 lo = word % 127773;
      gint64 w = 16807 * lo - 2836 * hi;

      word = (gint32) w;
      if (word < 0)
        word += 2147483647;
      r[i] = (guint32) word;
    }
}

/* The first 61 words of r[] in write order: words 0–30 are the seeded state (glibc's first
 * write goes to state[3] and adds state[0]: state[3..30], state[0..2]), outputs start at
 * word 341. */
static void
first_words (guint32 seed,
             guint32 w[61])
{
  guint32 r[31];

  seed_words (r, seed);
  for (int i = 0; i < 28; i++)
    w[i] = r[3 + i];
  for (int i = 0; i < 3; i++)
    w[28 + i] = r[i];
  for (int i = 31; i < 61; i++)
    w[i] = w[i - 31] + w[i - 3];
}

void
lb_xv_random_seed (LbXvRandom *rng,
                   guint32     seed)
{
  seed_words (rng->state, seed);
  rng->front = 3;
  rng->rear = 0;
  /* glibc discards 10 × 31 outputs */
  for (int i = 0; i < 310; i++)
    lb_xv_random_next (rng);
}

guint32
lb_xv_random_next (LbXvRandom *rng)
{
  guint32 v = rng->state[rng->front] + rng->state[rng->rear];

  rng->state[rng->front] = v;
  if (++rng->front >= 31)
    rng->front = 0;
  if (++rng->rear >= 31)
    rng->rear = 0;
  return v >> 1;
}

/* hist[] holds r[] in write order: hist[i] = hist[i−31] + hist[i−3]. */
static void
batch_refill (LbXvRandomBatch *rng)
{
  guint32 *h = rng->hist;
  int n = 31 + LB_XV_RANDOM_BATCH;

  guint32 a, b, c;
  int i;

  memmove (h, h + LB_XV_RANDOM_BATCH, 31 * sizeof (guint32));
  /* h[i−3], h[i−2], h[i−1] stay in registers: a plain loop gets vectorised two lanes wide
   * and every load then straddles the two previous stores, which defeats store forwarding
   * (measured 3× slower). */
  a = h[28];
  b = h[29];
  c = h[30];
  for (i = 31; i + 3 <= n; i += 3)
    {
      a += h[i - 31];
      h[i] = a;
      b += h[i - 30];
      h[i + 1] = b;
      c += h[i - 29];
      h[i + 2] = c;
    }
  for (; i < n; i++)
    h[i] = h[i - 31] + h[i - 3];
  rng->pos = 31;
}

void
lb_xv_random_batch_seed (LbXvRandomBatch *rng,
                         guint32          seed)
{
  guint32 w[61];
  guint32 skip[310];

  first_words (seed, w);
  /* the seeded state at the end of the buffer: the first refill moves it to the front */
  memcpy (rng->hist + LB_XV_RANDOM_BATCH, w, 31 * sizeof (guint32));
  rng->pos = 31 + LB_XV_RANDOM_BATCH;
  lb_xv_random_batch_fill (rng, skip, G_N_ELEMENTS (skip));
}

void
lb_xv_random_batch_fill (LbXvRandomBatch *rng,
                         guint32         *out,
                         gsize            n)
{
  while (n > 0)
    {
      gsize avail;

      if (rng->pos >= 31 + LB_XV_RANDOM_BATCH)
        batch_refill (rng);
      avail = MIN (n, (gsize) (31 + LB_XV_RANDOM_BATCH - rng->pos));
      for (gsize i = 0; i < avail; i++)
        out[i] = rng->hist[rng->pos + i] >> 1;
      rng->pos += avail;
      out += avail;
      n -= avail;
    }
}

void
lb_xv_random_mod_magic (guint32  m,
                        guint32 *magic,
                        guint32 *shift)
{
  guint32 l = 0;

  g_return_if_fail (m >= 1 && m <= 0x80000000u);
  while ((G_GUINT64_CONSTANT (1) << l) < m)
    l++;
  *shift = l;
  *magic = (guint32) (((G_GUINT64_CONSTANT (1) << (31 + l)) + m - 1) / m);
}

/* a · b modulo x³¹ − x²⁸ − 1 (coefficients mod 2³²): x^d = x^(d−3) + x^(d−31) for d ≥ 31 */
static void
poly_mulmod (const guint32 a[31],
             const guint32 b[31],
             guint32       out[31])
{
  guint32 prod[61] = { 0 };

  for (int i = 0; i < 31; i++)
    if (a[i] != 0)
      for (int j = 0; j < 31; j++)
        prod[i + j] += a[i] * b[j];
  for (int d = 60; d >= 31; d--)
    {
      guint32 t = prod[d];

      prod[d - 3] += t;
      prod[d - 31] += t;
    }
  memcpy (out, prod, 31 * sizeof (guint32));
}

/* c = x^n mod P by square-and-multiply */
static void
poly_pow (guint64 n,
          guint32 c[31])
{
  guint32 base[31] = { 0 };

  memset (c, 0, 31 * sizeof (guint32));
  c[0] = 1;
  base[1] = 1;
  while (n > 0)
    {
      if (n & 1)
        poly_mulmod (c, base, c);
      n >>= 1;
      if (n > 0)
        poly_mulmod (base, base, base);
    }
}

/* words n … n + 30 from c = x^n mod P, written @ostride words apart */
static void
history_at (const guint32 w[61],
            const guint32 c[31],
            guint32      *out,
            gsize         ostride)
{
  for (int m = 0; m < 31; m++)
    {
      guint32 v = 0;

      for (int j = 0; j < 31; j++)
        v += c[j] * w[j + m];
      out[(gsize) m * ostride] = v;
    }
}

void
lb_xv_random_batch_seed_at (LbXvRandomBatch *rng,
                            guint32          seed,
                            guint64          skip)
{
  guint32 w[61];
  guint32 c[31];

  first_words (seed, w);
  /* the history before output k is words k + 310 … k + 340 */
  poly_pow (skip + 310, c);
  history_at (w, c, rng->hist + LB_XV_RANDOM_BATCH, 1);
  rng->pos = 31 + LB_XV_RANDOM_BATCH;
}

void
lb_xv_random_lanes_seed (LbXvRandomLanes *rng,
                         guint32          seed,
                         guint64          first,
                         guint64          step)
{
  guint32 w[61];
  guint32 c[31], cstep[31];

  first_words (seed, w);
  poly_pow (first + 310, c);
  poly_pow (step, cstep);
  /* the jump (LANES − 1) · step: x^(7 · step) = x^(4 · step) · x^(2 · step) · x^step */
  memset (rng->jump, 0, sizeof rng->jump);
  rng->jump[0] = 1;
  for (int k = 0; k < LB_XV_RANDOM_LANES; k++)
    {
      history_at (w, c, &rng->hist[LB_XV_RANDOM_LANE_STEPS][k], LB_XV_RANDOM_LANES);
      /* x^(n + step) = x^n · x^step: one product per lane instead of a full power */
      if (k + 1 < LB_XV_RANDOM_LANES)
        {
          poly_mulmod (c, cstep, c);
          poly_mulmod (rng->jump, cstep, rng->jump);
        }
    }
  rng->pos = 31 + LB_XV_RANDOM_LANE_STEPS;
  rng->step = step;
  rng->taken = 0;
}

/* new[m] = Σ_j jump[j] · old[j + m] for every lane, the 8 lanes as one vector (one AVX2
 * register; two SSE registers in the default clone) */
typedef guint32 LaneVec __attribute__ ((vector_size (4 * LB_XV_RANDOM_LANES)));

LB_KERNEL_CLONES static void
lanes_jump_apply (const guint32 jump[31],
                  guint32       (*words)[LB_XV_RANDOM_LANES],
                  guint32       (*out)[LB_XV_RANDOM_LANES])
{
  LaneVec v[61];

  memcpy (v, words, 31 * sizeof v[0]);
  for (int i = 31; i < 61; i++)
    v[i] = v[i - 31] + v[i - 3];
  for (int m = 0; m < 31; m++)
    {
      LaneVec acc = v[m] * jump[0];

      for (int j = 1; j < 31; j++)
        acc += v[j + m] * jump[j];
      memcpy (out[m], &acc, sizeof acc);
    }
}

void
lb_xv_random_lanes_jump (LbXvRandomLanes *rng)
{
  g_return_if_fail (rng->taken == rng->step);
  /* the last 31 words read are each lane's history; the next refill starts after them */
  lanes_jump_apply (rng->jump, rng->hist + rng->pos - 31, &rng->hist[LB_XV_RANDOM_LANE_STEPS]);
  rng->pos = 31 + LB_XV_RANDOM_LANE_STEPS;
  rng->taken = 0;
}

#if defined(__GNUC__) && LB_XV_RANDOM_LANES == 8
/* half a step (4 lanes): 16 bytes, one SSE2/NEON register (a 32-byte vector without AVX goes
 * through the stack) */
typedef guint32 LaneHalf __attribute__ ((vector_size (16)));
#define LANES_IN_REGISTERS 1
#endif

/* Keeps the history and the unread steps, then fills the rest of the buffer. Step i needs step
 * i − 3: read back from memory, each step waits for a store 3 steps earlier to be forwarded,
 * so the last 3 steps stay in registers (3 independent chains). */
static void
lanes_refill (LbXvRandomLanes *rng)
{
  guint32 (*h)[LB_XV_RANDOM_LANES] = rng->hist;
  int keep = 31 + LB_XV_RANDOM_LANE_STEPS - (rng->pos - 31);
  int i = keep;

  memmove (h, h + (rng->pos - 31), sizeof (h[0]) * keep);
#ifdef LANES_IN_REGISTERS
  {
    LaneHalf a[3][2], t;

    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 2; k++)
        memcpy (&a[j][k], &h[i - 3 + j][4 * k], sizeof t);
    for (; i + 3 <= 31 + LB_XV_RANDOM_LANE_STEPS; i += 3)
      for (int j = 0; j < 3; j++)
        for (int k = 0; k < 2; k++)
          {
            memcpy (&t, &h[i + j - 31][4 * k], sizeof t);
            a[j][k] += t;
            memcpy (&h[i + j][4 * k], &a[j][k], sizeof t);
          }
  }
#endif
  for (; i < 31 + LB_XV_RANDOM_LANE_STEPS; i++)
    for (int k = 0; k < LB_XV_RANDOM_LANES; k++)
      h[i][k] = h[i - 31][k] + h[i - 3][k];
  rng->pos = 31;
}

const guint32 (*
lb_xv_random_lanes_next (LbXvRandomLanes *rng,
                         gsize            n))[LB_XV_RANDOM_LANES]
{
  const guint32 (*out)[LB_XV_RANDOM_LANES];

  g_return_val_if_fail (n <= LB_XV_RANDOM_LANE_STEPS, NULL);
  if (rng->pos + n > 31 + LB_XV_RANDOM_LANE_STEPS)
    lanes_refill (rng);
  out = (const guint32 (*)[LB_XV_RANDOM_LANES]) rng->hist[rng->pos];
  rng->pos += (int) n;
  rng->taken += n;
  return out;
}

void
lb_xv_random_lanes_fill (LbXvRandomLanes *rng,
                         guint32        (*out)[LB_XV_RANDOM_LANES],
                         gsize            n)
{
  while (n > 0)
    {
      gsize m = MIN (n, (gsize) LB_XV_RANDOM_LANE_STEPS);
      const guint32 *h = lb_xv_random_lanes_next (rng, m)[0];
      guint32 *o = out[0];

      for (gsize i = 0; i < m * LB_XV_RANDOM_LANES; i++)
        o[i] = h[i] >> 1;
      out += m;
      n -= m;
    }
}
