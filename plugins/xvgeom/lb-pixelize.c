/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-pixelize"

#include "lb-xvgeom.h"

#include <string.h>

#include "lb-kernel-layout.h"

struct _LbPixelize {
  LbKernelRect r;
  int px, py;      /* block size */
  int stx, sty;    /* grid origin (top-left of block 0,0), may be left of / above r */
  int nw, nh;      /* blocks across, down */
  gboolean xv_bug;
};

LbPixelize *
lb_pixelize_prepare (const LbKernelBuf      *src,
                     const LbKernelRect     *region,
                     const LbPixelizeParams *params,
                     GError                **error)
{
  g_autofree LbPixelize *st = g_new0 (LbPixelize, 1);

  if (!lb_kernel_check_and_clip (src, region, &st->r, error))
    return NULL;
  if (params->width < 1 || params->height < 1)
    {
      g_set_error (error, LB_KERNEL_ERROR, LB_KERNEL_ERROR_INVALID_ARGUMENT,
                   "Pixel size must be at least 1×1 (got %d×%d)", params->width,
                   params->height);
      return NULL;
    }
  st->px = params->width;
  st->py = params->height;
  st->xv_bug = params->xv_bug;
  if (st->r.width == 0 || st->r.height == 0)
    return g_steal_pointer (&st);
  /* 64-bit: ceil(sw/px)·px can exceed the int range for absurd block sizes */
  st->nw = (int) (((gint64) st->r.width + st->px - 1) / st->px);
  st->nh = (int) (((gint64) st->r.height + st->py - 1) / st->py);
  st->stx = (int) (st->r.x - ((gint64) st->nw * st->px - st->r.width) / 2);
  st->sty = (int) (st->r.y - ((gint64) st->nh * st->py - st->r.height) / 2);
  return g_steal_pointer (&st);
}

void
lb_pixelize_free (LbPixelize *st)
{
  g_free (st);
}

/* xv's read for a first-column block whose left edge x0 lies left of the region: each block
 * row sums k = (in-region columns) pixels starting at x0 in row-major pixel order; a pixel
 * index before the image start reads as 0. */
static void
sum_block_xv_bug (const LbPixelize  *st,
                  const LbKernelBuf *src,
                  int                x0,
                  int                xb0,
                  int                xb1,
                  int                yb0,
                  int                yb1,
                  guint64           *sums)
{
  int nc = lb_kbuf_color_channels (src);
  int k = xb1 - xb0;

  for (int y = yb0; y < yb1; y++)
    for (int t = 0; t < k; t++)
      {
        gint64 idx = (gint64) y * src->width + x0 + t;
        const guint8 *row;
        gsize sx;

        if (idx < 0)
          continue;
        row = lb_kbuf_row (src, (int) (idx / src->width));
        sx = (gsize) (idx % src->width) * src->channels;
        for (int c = 0; c < nc; c++)
          sums[c] += lb_kbuf_get (src, row, sx + c);
      }
}

/* Block row i: its rows inside the region. FALSE if none is in the band [y0, y1). */
static gboolean
block_rows (const LbPixelize *st,
            int               i,
            int               y0,
            int               y1,
            int              *yb0,
            int              *yb1)
{
  gint64 top = (gint64) st->sty + (gint64) i * st->py;

  *yb0 = (int) MAX (top, st->r.y);
  *yb1 = (int) MIN (top + st->py, (gint64) st->r.y + st->r.height);
  return *yb0 < *yb1 && *yb0 < y1 && *yb1 > y0;
}

static void
block_cols (const LbPixelize *st,
            int               j,
            int              *x0,
            int              *xb0,
            int              *xb1)
{
  gint64 left = (gint64) st->stx + (gint64) j * st->px;

  *x0 = (int) left;
  *xb0 = (int) MAX (left, st->r.x);
  *xb1 = (int) MIN (left + st->px, (gint64) st->r.x + st->r.width);
}

/* Block columns *j0 .. *j1 − 1 lie wholly inside the region (never an xv_bug block: those
 * overhang its left edge), from region column *bx0 on. */
static void
full_block_cols (const LbPixelize *st,
                 int              *j0,
                 int              *j1,
                 gsize            *bx0)
{
  *j0 = st->stx < st->r.x ? 1 : 0;
  *j1 = MAX (*j0, (int) (((gint64) st->r.x + st->r.width - st->stx) / st->px));
  *bx0 = (gsize) ((gint64) st->stx + (gint64) *j0 * st->px - st->r.x);
}

/* first block row overlapping [y0, y1) */
static int
first_block_row (const LbPixelize *st,
                 int               y0)
{
  return (int) MAX (0, ((gint64) y0 - st->sty) / st->py - 1);
}

void
lb_pixelize_process_reference (const LbPixelize  *st,
                               const LbKernelBuf *src,
                               LbKernelBuf       *dst,
                               int                y0,
                               int                y1)
{
  int nc = lb_kbuf_color_channels (src);

  y0 = MAX (y0, st->r.y);
  y1 = MIN (y1, st->r.y + st->r.height);
  if (y0 >= y1)
    return;
  for (int i = first_block_row (st, y0); i < st->nh; i++)
    {
      int yb0, yb1;

      if (!block_rows (st, i, y0, y1, &yb0, &yb1))
        {
          if (yb0 >= y1)
            break;
          continue;
        }
      for (int j = 0; j < st->nw; j++)
        {
          guint64 sums[4] = { 0, 0, 0, 0 };
          guint64 n;
          int x0, xb0, xb1;

          block_cols (st, j, &x0, &xb0, &xb1);
          if (st->xv_bug && x0 < st->r.x)
            sum_block_xv_bug (st, src, x0, xb0, xb1, yb0, yb1, sums);
          else
            for (int y = yb0; y < yb1; y++)
              {
                const guint8 *row = lb_kbuf_row (src, y);

                for (int x = xb0; x < xb1; x++)
                  for (int c = 0; c < nc; c++)
                    sums[c] += lb_kbuf_get (src, row, (gsize) x * src->channels + c);
              }
          n = (guint64) (xb1 - xb0) * (guint64) (yb1 - yb0);
          for (int y = MAX (yb0, y0); y < MIN (yb1, y1); y++)
            {
              guint8 *row = lb_kbuf_row (dst, y);
              const guint8 *in = lb_kbuf_row (src, y);

              for (int x = xb0; x < xb1; x++)
                {
                  for (int c = 0; c < nc; c++)
                    lb_kbuf_set (dst, row, (gsize) x * dst->channels + c, (int) (sums[c] / n));
                  /* alpha: the source's (see lb_pixelize_process) */
                  if (nc < src->channels)
                    lb_kbuf_set (dst, row, (gsize) x * dst->channels + nc,
                                 lb_kbuf_get (src, in, (gsize) x * src->channels + nc));
                }
            }
        }
    }
}

#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 lb_u128;
#endif

/* Block j of the block row yb0 .. yb1−1 in the fast paths: its colour sums from the column
 * sums @cs16 or @cs32 (whichever is not %NULL; xv's read for a bug block), its columns
 * [*xb0, *xb1) in the region; returns its pixel count. */
static G_ALWAYS_INLINE inline guint64
block_sums (const LbPixelize *st, const LbKernelBuf *src, const guint16 *cs16,
            const guint32 *cs32, int j, int yb0, int yb1, int nc, int ch, guint64 sums[4],
            int *xb0, int *xb1)
{
  int x0;

  block_cols (st, j, &x0, xb0, xb1);
  memset (sums, 0, 4 * sizeof (guint64));
  if (st->xv_bug && x0 < st->r.x)
    sum_block_xv_bug (st, src, x0, *xb0, *xb1, yb0, yb1, sums);
  else
    for (gsize k = (gsize) (*xb0 - st->r.x) * ch; k < (gsize) (*xb1 - st->r.x) * ch; k += ch)
      for (int c = 0; c < nc; c++)
        sums[c] += cs16 != NULL ? cs16[k + c] : cs32[k + c];
  return (guint64) (*xb1 - *xb0) * (guint64) (yb1 - yb0);
}

/* 8 bits, blocks of at most PIX8_MAX_ROWS rows: column sums fit 16 bits (257 · 255 = 65535). */
#define PIX8_MAX_ROWS 257
/* floor (s / n) = (s · ⌈2^32 / n⌉) >> 32 for every s ≤ 255 · n when n ≤ PIX8_MAX_RECIP_N:
 * with e = ⌈2^32/n⌉·n − 2^32 < n the error s·e / (n·2^32) < 255·n / 2^32 ≤ 1/n. */
#define PIX8_MAX_RECIP_N 4104

/* @nb whole blocks of @px columns from the column sums @cs: the mean (times the reciprocal
 * @r of n) of each block's colour channels into its @px pixels of the pattern row @pat. */
static G_ALWAYS_INLINE inline void
pix8_full_blocks_body (const guint16 *restrict cs, guint8 *restrict pat, int nb, guint32 r, int px,
                  int nc, int ch)
{
  for (int j = 0; j < nb; j++)
    {
      guint32 s[3] = { 0, 0, 0 };
      guint8 q[3];

      for (int x = 0; x < px; x++, cs += ch)
        for (int c = 0; c < nc; c++)
          s[c] += cs[c];
      for (int c = 0; c < nc; c++)
        q[c] = (guint8) (((guint64) s[c] * r) >> 32);   /* one 32 × 32 → 64-bit multiply */
      for (int x = 0; x < px; x++, pat += ch)
        for (int c = 0; c < nc; c++)
          pat[c] = q[c];
    }
}

/* pix8_full_blocks_body for one layout, with the usual small widths as constants so that its
 * loops unroll. Not vectorised: GCC's vector form across blocks (strided gathers, 64-bit
 * products) took twice the time of the scalar loop (4×4 blocks, RGB8, measured). clang has no
 * per-function optimize attribute (and warns of it). */
#if defined(__GNUC__) && !defined(__clang__)
#define PIX8_NO_VECTORIZE __attribute__ ((optimize ("no-tree-vectorize")))
#else
#define PIX8_NO_VECTORIZE
#endif
#define PIX8_FULL(nc, ch)                                                                    \
  __attribute__ ((noinline)) PIX8_NO_VECTORIZE static void                                  \
  pix8_full_blocks_##ch (const guint16 *restrict cs, guint8 *restrict pat, int nb,          \
                         guint32 r, int px)                                                 \
  {                                                                                         \
    switch (px)                                                                             \
      {                                                                                     \
      case 2: pix8_full_blocks_body (cs, pat, nb, r, 2, nc, ch); break;                     \
      case 3: pix8_full_blocks_body (cs, pat, nb, r, 3, nc, ch); break;                     \
      case 4: pix8_full_blocks_body (cs, pat, nb, r, 4, nc, ch); break;                     \
      case 5: pix8_full_blocks_body (cs, pat, nb, r, 5, nc, ch); break;                     \
      case 8: pix8_full_blocks_body (cs, pat, nb, r, 8, nc, ch); break;                     \
      default: pix8_full_blocks_body (cs, pat, nb, r, px, nc, ch); break;                   \
      }                                                                                     \
  }
PIX8_FULL (1, 1)
PIX8_FULL (1, 2)
PIX8_FULL (3, 3)
PIX8_FULL (3, 4)
#undef PIX8_FULL

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define HAVE_PIX8_RGB4_SSSE3 1
#include <immintrin.h>

/* Whole 4-pixel RGB8 blocks of at most 16 pixels (n ≤ 16), one block per step in SSE
 * registers: the three channel sums of the 12 column sums by two shifted adds, the mean as
 * (s · ⌈2^16 / n⌉) >> 16 (exact for s ≤ 255 · n when n ≤ 16: the error s·e / (n·2^16) <
 * 255·n / 2^16 < 1/n), the three bytes spread over the block's 12 by one shuffle. Writes 4
 * bytes past the last block (the pattern row has room). */
__attribute__ ((target ("ssse3"))) static void
pix8_full_blocks_rgb4_ssse3 (const guint16 *restrict cs, guint8 *restrict pat, int nb, guint16 m)
{
  const __m128i vm = _mm_set1_epi16 ((short) m);
  const __m128i spread = _mm_setr_epi8 (0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0);

  for (int j = 0; j < nb; j++, cs += 12, pat += 12)
    {
      /* a: column sums 0..7, b: 4..11; t = a + a[+3]: lanes 0..2 the first two pixels; u the
       * last two, in lanes 2..4 */
      const __m128i a = _mm_loadu_si128 ((const __m128i *) (const void *) cs);
      const __m128i b = _mm_loadu_si128 ((const __m128i *) (const void *) (cs + 4));
      const __m128i t = _mm_add_epi16 (a, _mm_srli_si128 (a, 6));
      const __m128i u = _mm_add_epi16 (b, _mm_srli_si128 (b, 6));
      const __m128i sum = _mm_add_epi16 (t, _mm_srli_si128 (u, 4));
      const __m128i q = _mm_mulhi_epu16 (sum, vm);

      _mm_storeu_si128 ((__m128i *) (void *) pat, _mm_shuffle_epi8 (_mm_packus_epi16 (q, q), spread));
    }
}

/* The same for RGBA8: a block's 16 column sums are two registers, its four channel sums
 * (alpha too: the caller puts the source's back) one add and one shifted add; the four bytes
 * repeated over the block's 16. */
__attribute__ ((target ("ssse3"))) static void
pix8_full_blocks_rgba4_ssse3 (const guint16 *restrict cs, guint8 *restrict pat, int nb, guint16 m)
{
  const __m128i vm = _mm_set1_epi16 ((short) m);
  const __m128i spread = _mm_setr_epi8 (0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3);

  for (int j = 0; j < nb; j++, cs += 16, pat += 16)
    {
      const __m128i a = _mm_loadu_si128 ((const __m128i *) (const void *) cs);
      const __m128i b = _mm_loadu_si128 ((const __m128i *) (const void *) (cs + 8));
      const __m128i t = _mm_add_epi16 (a, b);
      const __m128i sum = _mm_add_epi16 (t, _mm_srli_si128 (t, 8));
      const __m128i q = _mm_mulhi_epu16 (sum, vm);

      _mm_storeu_si128 ((__m128i *) (void *) pat, _mm_shuffle_epi8 (_mm_packus_epi16 (q, q), spread));
    }
}
#endif

/* Copies @n bytes in 32-byte steps: a row-sized memcpy is rep movsb in glibc, slow on this
 * kind of CPU (AMD) for the misaligned rows an RGB8 image has (measured: 22 % of the pass). */
static G_ALWAYS_INLINE inline void
copy_row8 (guint8 *restrict out, const guint8 *restrict in, gsize n)
{
  gsize k = 0;

  for (; k + 32 <= n; k += 32)
    memcpy (out + k, in + k, 32);
  memcpy (out + k, in + k, n - k);
}

/* The 8-bit path: per block row, column sums over its rows with 32 sums held in registers
 * while the rows are added (one pass over the source rows, one store of the sums), then per
 * block the sum of its columns, the mean by a multiply, the pattern row; the band's rows
 * get the pattern (and the source's alpha). */
static G_ALWAYS_INLINE inline void
process_fast8 (const LbPixelize  *st,
               const LbKernelBuf *src,
               LbKernelBuf       *dst,
               int                y0,
               int                y1,
               int                nc,
               int                ch)
{
  const gsize ns = (gsize) st->r.width * ch;
  const gsize xoff = (gsize) st->r.x * ch;
  g_autofree guint16 *colsum = g_new (guint16, ns);
  /* 4 bytes of room after the row for pix8_full_blocks_rgb4_ssse3 () */
  g_autofree guint8 *pattern = g_malloc (ns + 4);
  guint64 recip_n = 0, recip = 0;   /* ⌈2^32 / recip_n⌉, 0 = use a division */
  int j_full0, j_full1;
  gsize bx_full0;

  full_block_cols (st, &j_full0, &j_full1, &bx_full0);

  for (int i = first_block_row (st, y0); i < st->nh; i++)
    {
      int yb0, yb1;
      guint64 n_full;
      const guint8 *top;
      gsize k = 0;

      if (!block_rows (st, i, y0, y1, &yb0, &yb1))
        {
          if (yb0 >= y1)
            break;
          continue;
        }
      top = lb_kbuf_row (src, yb0) + xoff;
      for (; k + 32 <= ns; k += 32)
        {
          guint16 acc[32] = { 0 };
          const guint8 *p = top + k;

          for (int y = yb0; y < yb1; y++, p += src->stride)
            for (int l = 0; l < 32; l++)
              acc[l] = (guint16) (acc[l] + p[l]);
          memcpy (colsum + k, acc, sizeof acc);
        }
      for (; k < ns; k++)
        {
          guint16 a = 0;
          const guint8 *p = top + k;

          for (int y = yb0; y < yb1; y++, p += src->stride)
            a = (guint16) (a + *p);
          colsum[k] = a;
        }

      /* Whole blocks (px columns inside the region): fixed counts, the reciprocal of
       * n = px · (block rows) once, no clipping. */
      n_full = (guint64) st->px * (guint64) (yb1 - yb0);
      if (j_full0 < j_full1 && n_full >= 2 && n_full <= PIX8_MAX_RECIP_N)
        {
          /* ≤ 2^31 for n ≥ 2: fits 32 bits */
          const guint32 r = (guint32) (((G_GUINT64_CONSTANT (1) << 32) + n_full - 1) / n_full);
          const guint16 *cs = colsum + (gsize) bx_full0 * ch;
          guint8 *pat = pattern + (gsize) bx_full0 * ch;
          const int nb = j_full1 - j_full0;

#ifdef HAVE_PIX8_RGB4_SSSE3
          if (ch == 3 && st->px == 4 && n_full <= 16 && __builtin_cpu_supports ("ssse3"))
            pix8_full_blocks_rgb4_ssse3 (cs, pat, nb, (guint16) ((65536 + n_full - 1) / n_full));
          else if (ch == 4 && st->px == 4 && n_full <= 16 && __builtin_cpu_supports ("ssse3"))
            pix8_full_blocks_rgba4_ssse3 (cs, pat, nb, (guint16) ((65536 + n_full - 1) / n_full));
          else
#endif
          if (ch == 1)
            pix8_full_blocks_1 (cs, pat, nb, r, st->px);
          else if (ch == 2)
            pix8_full_blocks_2 (cs, pat, nb, r, st->px);
          else if (ch == 3)
            pix8_full_blocks_3 (cs, pat, nb, r, st->px);
          else
            pix8_full_blocks_4 (cs, pat, nb, r, st->px);
        }
      for (int j = 0; j < st->nw; j++)
        {
          guint64 sums[4], n;
          int xb0, xb1;

          if (j == j_full0 && n_full >= 2 && n_full <= PIX8_MAX_RECIP_N)
            j = j_full1;
          if (j >= st->nw)
            break;
          n = block_sums (st, src, colsum, NULL, j, yb0, yb1, nc, ch, sums, &xb0, &xb1);
          if (n != recip_n)
            {
              /* only edge blocks change n: the reciprocal is recomputed rarely */
              recip_n = n;
              recip = n <= PIX8_MAX_RECIP_N ? ((G_GUINT64_CONSTANT (1) << 32) + n - 1) / n : 0;
            }
          for (int c = 0; c < nc; c++)
            sums[c] = recip != 0 ? (sums[c] * recip) >> 32 : sums[c] / n;
          for (int x = xb0; x < xb1; x++)
            for (int c = 0; c < nc; c++)
              pattern[(gsize) (x - st->r.x) * ch + c] = (guint8) sums[c];
        }
      for (int y = MAX (yb0, y0); y < MIN (yb1, y1); y++)
        {
          guint8 *row = lb_kbuf_row (dst, y) + xoff;

          copy_row8 (row, pattern, ns);
          if (nc < ch)
            lb_kernel_restore_alpha (src, dst, y, st->r.x, st->r.x + st->r.width);
        }
    }
}

/* 16-bit gray's whole blocks: floor (s / n) = (s · ⌈2^32 / n⌉) >> 32 for every s ≤ 65535 · n
 * when n ≤ PIX16_MAX_RECIP_N (the error s·e / (n·2^32) < 65535·n / 2^32 ≤ 1/n, as for 8 bits). */
#define PIX16_MAX_RECIP_N 255

/* @nb whole blocks of @px columns of 16-bit gray from the column sums @cs: each block's mean
 * (times the reciprocal @r of n) into its @px samples of the pattern row @pat. */
static G_ALWAYS_INLINE inline void
pix16_full_blocks_body (const guint32 *restrict cs, guint16 *restrict pat, int nb, guint32 r, int px)
{
  for (int j = 0; j < nb; j++, cs += px, pat += px)
    {
      guint32 s = 0;
      guint16 q;

      for (int x = 0; x < px; x++)
        s += cs[x];
      q = (guint16) (((guint64) s * r) >> 32);
      for (int x = 0; x < px; x++)
        pat[x] = q;
    }
}

/* the usual small widths as constants, so that the loops unroll */
__attribute__ ((noinline)) static void
pix16_full_blocks (const guint32 *restrict cs, guint16 *restrict pat, int nb, guint32 r, int px)
{
  switch (px)
    {
    case 2: pix16_full_blocks_body (cs, pat, nb, r, 2); break;
    case 3: pix16_full_blocks_body (cs, pat, nb, r, 3); break;
    case 4: pix16_full_blocks_body (cs, pat, nb, r, 4); break;
    case 5: pix16_full_blocks_body (cs, pat, nb, r, 5); break;
    case 8: pix16_full_blocks_body (cs, pat, nb, r, 8); break;
    default: pix16_full_blocks_body (cs, pat, nb, r, px); break;
    }
}

/* Fast path: per block row, one vectorisable pass adds every region row into per-sample
 * column sums; blocks then sum px columns; one pattern row is built and copied to the band's
 * rows. Column sums are 32-bit: exact for block heights up to 65537 rows at 16 bits (larger
 * blocks at 16 bits take the reference path). */
static G_ALWAYS_INLINE inline void
process_fast (const LbPixelize  *st,
              const LbKernelBuf *src,
              LbKernelBuf       *dst,
              int                y0,
              int                y1,
              int                nc,
              int                ch,
              int                depth)
{
  typedef guint16 u16a;
  gsize ns = (gsize) st->r.width * ch;
  gsize bps = depth / 8;
  g_autofree guint32 *colsum = g_new (guint32, ns);
  g_autofree guint8 *pattern = g_malloc (ns * bps);
  guint64 recip_n = 0, recip = 0;   /* ceil(2^64 / recip_n), 0 = use a division */
  /* 16-bit gray's whole blocks take pix16_full_blocks () */
  const gboolean gray16 = depth == 16 && ch == 1;
  int j_full0, j_full1;
  gsize bx_full0;

  full_block_cols (st, &j_full0, &j_full1, &bx_full0);

  for (int i = first_block_row (st, y0); i < st->nh; i++)
    {
      int yb0, yb1;
      guint64 n_full;
      gboolean full;

      if (!block_rows (st, i, y0, y1, &yb0, &yb1))
        {
          if (yb0 >= y1)
            break;
          continue;
        }
      memset (colsum, 0, ns * sizeof (guint32));
      for (int y = yb0; y < yb1; y++)
        {
          const guint8 *row = lb_kbuf_row (src, y) + (gsize) st->r.x * ch * bps;

          if (depth == 16)
            {
              const u16a *s = (const u16a *) (const void *) row;

              for (gsize k = 0; k < ns; k++)
                colsum[k] += s[k];
            }
          else
            for (gsize k = 0; k < ns; k++)
              colsum[k] += row[k];
        }
      n_full = (guint64) st->px * (guint64) (yb1 - yb0);
      full = gray16 && j_full0 < j_full1 && n_full >= 2 && n_full <= PIX16_MAX_RECIP_N;
      if (full)
        pix16_full_blocks (colsum + bx_full0, (guint16 *) (void *) pattern + bx_full0,
                           j_full1 - j_full0,
                           (guint32) (((G_GUINT64_CONSTANT (1) << 32) + n_full - 1) / n_full), st->px);
      for (int j = 0; j < st->nw; j++)
        {
          guint64 sums[4], n;
          int xb0, xb1;

          if (full && j == j_full0)
            j = j_full1;
          if (j >= st->nw)
            break;
          n = block_sums (st, src, NULL, colsum, j, yb0, yb1, nc, ch, sums, &xb0, &xb1);
          if (n != recip_n)
            {
              /* only edge blocks change n: the reciprocal is recomputed rarely */
              recip_n = n;
              recip = n > 1 && n <= G_MAXUINT32 ? G_MAXUINT64 / n + 1 : 0;
            }
          for (int c = 0; c < nc; c++)
            /* floor(s/n) = (s·ceil(2^64/n)) >> 64 exactly when s, n < 2^32: with
             * e = ceil(2^64/n)·n − 2^64 < n, the error s·e/(n·2^64) stays below 1/n
             * (Granlund & Montgomery); column sums of one block fit 32 bits here */
#ifdef __SIZEOF_INT128__
            if (recip != 0 && sums[c] <= G_MAXUINT32)
              sums[c] = (guint64) (((lb_u128) sums[c] * recip) >> 64);
            else
#endif
              sums[c] /= n;
          for (int x = xb0; x < xb1; x++)
            for (int c = 0; c < nc; c++)
              {
                gsize k = (gsize) (x - st->r.x) * ch + c;

                if (depth == 16)
                  ((u16a *) (void *) pattern)[k] = (guint16) sums[c];
                else
                  pattern[k] = (guint8) sums[c];
              }
        }
      for (int y = MAX (yb0, y0); y < MIN (yb1, y1); y++)
        {
          guint8 *row = lb_kbuf_row (dst, y) + (gsize) st->r.x * ch * bps;

          copy_row8 (row, pattern, ns * bps);
          if (nc < ch)
            lb_kernel_restore_alpha (src, dst, y, st->r.x, st->r.x + st->r.width);
        }
    }
}

/* The 8-bit path where its 16-bit column sums suffice, else the general one. */
static G_ALWAYS_INLINE inline void
process_layout (const LbPixelize *st, const LbKernelBuf *src, LbKernelBuf *dst, int y0, int y1,
                int nc, int ch, int depth)
{
  if (depth == 8 && st->py <= PIX8_MAX_ROWS)
    process_fast8 (st, src, dst, y0, y1, nc, ch);
  else
    process_fast (st, src, dst, y0, y1, nc, ch, depth);
}

/* one instance per pixel layout: the channel loops unroll (the block loop, not the memory
 * traffic, was the cost with a run-time channel count) */
LB_KERNEL_PER_LAYOUT (process_layout, LbPixelize, LB_KERNEL_CLONES, process_layout)

void
lb_pixelize_process (const LbPixelize  *st,
                     const LbKernelBuf *src,
                     LbKernelBuf       *dst,
                     int                y0,
                     int                y1)
{
  y0 = MAX (y0, st->r.y);
  y1 = MIN (y1, st->r.y + st->r.height);
  if (y0 >= y1)
    return;
  if ((src->depth == 16 && st->py > 65537) || st->py > 16843009)
    lb_pixelize_process_reference (st, src, dst, y0, y1);
  else
    LB_KERNEL_LAYOUT_CALL (process_layout, LbPixelize, st, src, dst, y0, y1);
}
