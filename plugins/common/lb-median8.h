/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Included by lb-median-hist.h. */

/* ---- 8 bits: lb-median8-body.h ------------------------------------------------------------ */


static inline const guint8 *
lb_m8_row (const LbMedianJob *j, int y)
{
  return j->src + (gsize) y * j->sstride + j->c;
}

/* window counts when (2r+1)² > 65535: two native vectors of 8 (a single 64-byte generic
 * vector was kept on the stack and moved piecewise through general registers by GCC 12,
 * which made the k32 path 1.4× slower than with scalar counts) */
typedef guint32 LbU32x8 __attribute__ ((vector_size (32)));
typedef struct {
  LbU32x8 lo, hi;
} LbU32x16p;

#define lb_u16x16_lo32(v) \
  __builtin_convertvector (__builtin_shufflevector ((v), (v), 0, 1, 2, 3, 4, 5, 6, 7), LbU32x8)
#define lb_u16x16_hi32(v) \
  __builtin_convertvector (__builtin_shufflevector ((v), (v), 8, 9, 10, 11, 12, 13, 14, 15), \
                           LbU32x8)

/* a += or −= a column's 16 u16 lanes, widened, on the two halves of an LbU32x16p */
#define LB_M8_K32_OP(a, v, op)            \
  do                                      \
    {                                     \
      const LbU16x16 v_ = (v);            \
      (a).lo op lb_u16x16_lo32 (v_);      \
      (a).hi op lb_u16x16_hi32 (v_);      \
    }                                     \
  while (0)

/* (the body undefines its parameters at its end) */
#define KTV LbU16x16
#define KADD(a, v) ((a) += (v))
#define KSUB(a, v) ((a) -= (v))
#define KLANE(a, i) ((a)[i])
#define MED8(name) lb_m8k16_##name
#define MED8_SIMD_RANK 1
#include "lb-median8-body.h"
#define KTV LbU32x16p
#define KADD(a, v) LB_M8_K32_OP (a, v, +=)
#define KSUB(a, v) LB_M8_K32_OP (a, v, -=)
#define KLANE(a, i) ((i) < 8 ? (a).lo[(i)] : (a).hi[(i) - 8])
#define MED8(name) lb_m8k32_##name
#define MED8_SIMD_RANK 0
#include "lb-median8-body.h"

/* Output columns per strip: the strip's column prefixes plus the 2r halo columns (544 bytes
 * each) stay in L2 cache. */
#define LB_M8_STRIP 256

/* Rows [ya, yb) of the region, channels 0 … nc − 1 of @job (its c is ignored); 1 ≤ r. */
static G_GNUC_UNUSED void
lb_median8_rows (const LbMedianJob *job, int nc, int ya, int yb)
{
  LbMedianJob j = *job;
  const int rw = j.x1 - j.x0, strip = MIN (rw, LB_M8_STRIP);
  const gsize ncols = (gsize) MIN (rw, strip + 2 * j.r);
  const gboolean k16 = (2 * (gint64) j.r + 1) * (2 * (gint64) j.r + 1) <= G_MAXUINT16;
  /* 32-byte aligned: each column's 256 + 16 prefixes are whole vectors */
  guint16 *fine = g_aligned_alloc (ncols * 256, sizeof (guint16), 32);
  guint16 *coarse = g_aligned_alloc (ncols * 16, sizeof (guint16), 32);
  /* the Hist structs hold 32- and 64-byte vectors */
  gpointer h = g_aligned_alloc0 (1, MAX (sizeof (lb_m8k16_Hist), sizeof (lb_m8k32_Hist)), 64);

  gboolean stop = FALSE;

  for (j.c = 0; j.c < nc && !stop; j.c++)
    for (int xs0 = j.x0; xs0 < j.x1 && !stop; xs0 += strip)
      {
        if (k16)
          lb_m8k16_strip (&j, h, fine, coarse, ya, yb, xs0, MIN (j.x1, xs0 + strip));
        else
          lb_m8k32_strip (&j, h, fine, coarse, ya, yb, xs0, MIN (j.x1, xs0 + strip));
        stop = !lb_median_tick (&j, nc, xs0 + strip - j.x0, rw);
      }
  g_aligned_free (h);
  g_aligned_free (fine);
  g_aligned_free (coarse);
}
