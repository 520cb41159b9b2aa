/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-declarative"

#include <math.h>
#include <string.h>

#include "lb-declarative-private.h"

/* The convolution that declarative kernel filters run, apart from their parser so that a
 * program that only checks filter files (lightbox-store) links no kernel code. Hence
 * lb_declarative_parse() is here, at the end: it is the parse that attaches this kernel. */

/* Tests and the bench: every pass prepared while this is set runs the scalar reference. */
static gint conv_reference = 0;

void
_lb_declarative_set_reference (gboolean reference)
{
  g_atomic_int_set (&conv_reference, reference ? 1 : 0);
}

/* The kernel (immutable, shared) and the path this pass takes. */
typedef struct {
  const LbDeclarativeKernel *d;
  gboolean reference;
  gint64 bias;     /* samples, for this pass's depth */
} ConvState;

static gpointer
conv_prepare (const LbFilterInfo  *info,
              gconstpointer        params,
              const LbFilterImage *image,
              LbFilterRect        *write_rect,
              GError             **error)
{
  ConvState *st = g_new (ConvState, 1);

  st->d = info->user_data;
  st->reference = g_atomic_int_get (&conv_reference) != 0;
  st->bias = st->d->bias_range != 0
             ? (gint64) round (st->d->bias_range * (image->depth == 16 ? 65535 : 255))
             : st->d->bias;
  return st;
}

static void
conv_release (gpointer state)
{
  g_free (state);
}

static inline int
clampi (int v, int lo, int hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

/* The scalar reference. Neighbours outside the region are replaced by the nearest region
 * pixel (clamp). The sum is exact in gint64, divided with C truncation toward zero, then the
 * bias is added and the result clamped to the sample range. */
static gboolean
conv_process_reference (const LbDeclarativeKernel *d,
                        gint64                     bias,
                        const LbFilterBand        *band)
{
  const LbFilterImage *im = band->image;
  const LbFilterRect *r = &im->region;
  int nc = im->has_alpha ? im->channels - 1 : im->channels;
  int ch = im->channels;
  int rw = d->kw / 2, rh = d->kh / 2;
  gint64 maxv = im->depth == 16 ? 65535 : 255;

  for (int y = band->y0; y < band->y1; y++)
    {
      if (g_atomic_int_get (band->cancelled))
        return TRUE;
      for (int x = band->x0; x < band->x1; x++)
        for (int c = 0; c < nc; c++)
          {
            gint64 sum = 0, v;

            for (int j = 0; j < d->kh; j++)
              {
                int sy = clampi (y + j - rh, r->y, r->y + r->height - 1);
                const guint8 *row = im->src + (gsize) sy * im->src_stride;

                for (int i = 0; i < d->kw; i++)
                  {
                    int sx = clampi (x + i - rw, r->x, r->x + r->width - 1);
                    gint64 s = im->depth == 16 ? ((const guint16 *) row)[(gsize) sx * ch + c]
                                               : row[(gsize) sx * ch + c];
                    sum += d->taps[j * d->kw + i] * s;
                  }
              }
            v = sum / d->divisor + bias;
            v = v < 0 ? 0 : v > maxv ? maxv : v;
            if (im->depth == 16)
              ((guint16 *) (band->dst + (gsize) y * band->dst_stride))[(gsize) x * ch + c] =
                (guint16) v;
            else
              band->dst[(gsize) y * band->dst_stride + (gsize) x * ch + c] = (guint8) v;
          }
    }
  return TRUE;
}

/* The fast path, the same integers. Per band, each source row the kernel reads is copied
 * once into a ring of rows padded by the kernel's half width with the region's edge pixels
 * (the reference's clamp), so the loops below index without clamping; per output row, every
 * non-zero tap adds tap × the shifted row to a row of sums (one contiguous loop over the
 * samples, alpha included, which the compiler vectorises), and the sums are divided in
 * doubles: with |sum| < 2^53 (here < 2^45, see MAX_TAP in lb-declarative.c) and an integer divisor, the
 * correctly rounded quotient cannot cross an integer the exact one does not reach (the gap
 * is at least 1/|divisor|, the rounding error at most |sum/divisor| · 2^-53), so truncating
 * it gives C's quotient. Sums in 32 bits when Σ|tap| · max sample < 2^31, else 64. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
/* The engine builds with -O2, whose vectoriser (GCC 12) skips loops that need an epilogue:
 * these take -O3's. no-trapping-math lets GCC if-convert the clamp of the store loop (it may
 * then evaluate both arms of a select); it changes no value, unlike -ffast-math. */
#define CONV_CLONES                                                                         \
  __attribute__ ((target_clones ("avx2", "default"), optimize ("O3", "no-trapping-math")))
#else
#define CONV_CLONES
#endif

/* One tap over the row of sums. (Four taps per sweep, loading and storing the sums a quarter
 * as often, was no faster: 1400×1000 RGB8, 5×5 binomial, 1 thread, 14.2–15.7 → 15.2–16.4 ms;
 * the multiplies bound it.) */
#define CONV_MAC(name, S, A)                                                                 \
  CONV_CLONES static void                                                                   \
  name (A *restrict acc, const S *restrict row, gsize n, gint32 tap)                        \
  {                                                                                         \
    for (gsize i = 0; i < n; i++)                                                           \
      acc[i] += (A) tap * (A) row[i];                                                       \
  }
CONV_MAC (conv_mac_8_32, guint8, gint32)
CONV_MAC (conv_mac_16_32, guint16, gint32)
CONV_MAC (conv_mac_8_64, guint8, gint64)
CONV_MAC (conv_mac_16_64, guint16, gint64)

#define CONV_STORE(name, S, A)                                                               \
  CONV_CLONES static void                                                                   \
  name (S *restrict out, const A *restrict acc, gsize n, double divisor, double bias,       \
        double maxv)                                                                        \
  {                                                                                         \
    for (gsize i = 0; i < n; i++)                                                           \
      {                                                                                     \
        /* all in doubles, exact integers below 2^53, so that it vectorises (AVX2 has no    \
         * double to 64-bit integer conversion) */                                          \
        const double v = __builtin_trunc ((double) acc[i] / divisor) + bias;                \
                                                                                            \
        out[i] = (S) (gint32) (v < 0.0 ? 0.0 : v > maxv ? maxv : v);                        \
      }                                                                                     \
  }
CONV_STORE (conv_store_8_32, guint8, gint32)
CONV_STORE (conv_store_16_32, guint16, gint32)
CONV_STORE (conv_store_8_64, guint8, gint64)
CONV_STORE (conv_store_16_64, guint16, gint64)

static gboolean
conv_process_fast (const LbDeclarativeKernel *d,
                   gint64                     bias_samples,
                   const LbFilterBand        *band)
{
  const LbFilterImage *im = band->image;
  const LbFilterRect *r = &im->region;
  const int ch = im->channels, bps = im->depth / 8;
  const int rw = d->kw / 2, rh = d->kh / 2;
  const gint64 maxv = im->depth == 16 ? 65535 : 255;
  const double div = (double) d->divisor, bias = (double) bias_samples, top = (double) maxv;
  /* padded rows: region columns [r->x − rw, r->x + r->width + rw) */
  const int pw = r->width + 2 * rw;
  const gsize prow = (gsize) pw * ch * bps;
  /* the band's output samples, from column x0 */
  const gsize n = (gsize) (band->x1 - band->x0) * ch;
  const gsize xoff = (gsize) (band->x0 - r->x) * ch;
  gint64 sum_abs = 0;
  gboolean wide;
  g_autofree guint8 *ring = g_malloc ((gsize) d->kh * prow);
  g_autofree int *held = g_new (int, d->kh);   /* source row in each ring slot, or −1 */
  g_autofree gint64 *acc = NULL;
  /* the non-zero taps: value, kernel row j, column i */
  const int ntaps = d->kw * d->kh;
  g_autofree gint32 *tv = g_new (gint32, ntaps);
  g_autofree int *tj = g_new (int, ntaps), *ti = g_new (int, ntaps);
  int nz = 0;

  for (int k = 0; k < ntaps; k++)
    {
      sum_abs += ABS ((gint64) d->taps[k]);
      if (d->taps[k] != 0)
        tv[nz] = d->taps[k], tj[nz] = k / d->kw, ti[nz] = k % d->kw, nz++;
    }
  wide = sum_abs * maxv >= G_MAXINT32;
  acc = g_malloc (n * (wide ? sizeof (gint64) : sizeof (gint32)));
  for (int k = 0; k < d->kh; k++)
    held[k] = -1;

  for (int y = band->y0; y < band->y1; y++)
    {
      guint8 *out = band->dst + (gsize) y * band->dst_stride + (gsize) band->x0 * ch * bps;
      const guint8 *srow = im->src + (gsize) y * im->src_stride + (gsize) band->x0 * ch * bps;

      if (g_atomic_int_get (band->cancelled))
        return TRUE;
      memset (acc, 0, n * (wide ? sizeof (gint64) : sizeof (gint32)));
      for (int j = 0; j < d->kh; j++)
        {
          const int sy = CLAMP (y + j - rh, r->y, r->y + r->height - 1);
          /* distinct rows of one window are fewer than kh apart: no two share a slot */
          const int slot = sy % d->kh;
          guint8 *p = ring + (gsize) slot * prow;

          if (held[slot] != sy)
            {
              const guint8 *src = im->src + (gsize) sy * im->src_stride + (gsize) r->x * ch * bps;
              const gsize px = (gsize) ch * bps;

              memcpy (p + (gsize) rw * px, src, (gsize) r->width * px);
              for (int i = 0; i < rw; i++)
                {
                  memcpy (p + (gsize) i * px, src, px);
                  memcpy (p + (gsize) (rw + r->width + i) * px, src + (gsize) (r->width - 1) * px,
                          px);
                }
              held[slot] = sy;
            }
        }
      /* output column x reads padded column (x − r->x) + i of kernel row j's source row */
      for (int k = 0; k < nz; k++)
        {
          const int sy = CLAMP (y + tj[k] - rh, r->y, r->y + r->height - 1);
          const guint8 *q = ring + (gsize) (sy % d->kh) * prow + (xoff + (gsize) ti[k] * ch) * bps;

          if (im->depth == 16 && wide)
            conv_mac_16_64 (acc, (const guint16 *) (const void *) q, n, tv[k]);
          else if (im->depth == 16)
            conv_mac_16_32 ((gint32 *) acc, (const guint16 *) (const void *) q, n, tv[k]);
          else if (wide)
            conv_mac_8_64 (acc, q, n, tv[k]);
          else
            conv_mac_8_32 ((gint32 *) acc, q, n, tv[k]);
        }
      if (im->depth == 16 && wide)
        conv_store_16_64 ((guint16 *) (void *) out, acc, n, div, bias, top);
      else if (im->depth == 16)
        conv_store_16_32 ((guint16 *) (void *) out, (const gint32 *) acc, n, div, bias, top);
      else if (wide)
        conv_store_8_64 (out, acc, n, div, bias, top);
      else
        conv_store_8_32 (out, (const gint32 *) acc, n, div, bias, top);
      if (im->has_alpha)
        for (gsize i = (gsize) ch - 1; i < n; i += ch)
          memcpy (out + i * bps, srow + i * bps, bps);
    }
  return TRUE;
}

static gboolean
conv_process (gconstpointer       state,
              const LbFilterBand *band,
              GError            **error)
{
  const ConvState *st = state;

  return st->reference ? conv_process_reference (st->d, st->bias, band)
                       : conv_process_fast (st->d, st->bias, band);
}

static const LbFilterInfo conv_hooks = {
  .prepare = conv_prepare,
  .process = conv_process,
  .release = conv_release,
};

LbFilter *
lb_declarative_parse (GBytes                 *bytes,
                      const char             *origin,
                      LbDeclarativeStepCheck  check,
                      gpointer                user_data,
                      GError                **error)
{
  LbFilter *filter = NULL;

  if (!_lb_declarative_parse (bytes, origin, check, user_data, &conv_hooks, &filter, error))
    return NULL;
  return filter;
}
