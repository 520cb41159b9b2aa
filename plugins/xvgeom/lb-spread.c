/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-spread"

#include "lb-xvgeom.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lb-error.h"
#include "lb-xvgeom-private.h"
#include "lb-xv-random.h"

/* A slice: region rows [r0, r1) whose swaps run on their own cells, covering the rows they
 * reach, [e0, e1) (image rows). */
typedef struct {
  int r0, r1, e0, e1;
  guint32 plo, phi;  /* [e0, e1) as region positions */
} Slice;

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
  gboolean simd;     /* the AVX2 draws where the processor has them (tests turn them off) */
  /* the x draw's range for region column x: [xlo[x], xlo[x] + xm[x]) */
  gint32 *xlo;
  guint32 *xm;
  /* banded path (lb_spread_process_band + lb_spread_gather) */
  int reach;         /* rows a swap reaches up or down */
  int band_rows;     /* region rows per band */
  int n_bands;
  int n_slices;
  Slice *slices;     /* in row order; band b's are band_first[b] … band_first[b + 1] − 1 */
  int *band_first;
  int *slice_of_row; /* [region row] */
  guint64 wdiv;      /* 2⁶⁴/width rounded up: exact q / width for 32-bit q (width ≥ 2) */
  guint32 **bufs;    /* [slice]: the slice's cells over the rows it reaches (see below) */
  guint32 **parts;   /* [band]: partner cells of a chunk of rows */
  guint32 *block;    /* the memory of both for one piece (block_take) */
  gsize block_size;
  /* Pieces: runs of consecutive bands whose cells take at most piece_bytes together, run one
   * after another, each on the same block (see lb_spread_begin_piece). piece_band[p] …
   * piece_band[p + 1] − 1 are piece p's bands. */
  guint64 piece_bytes;
  int n_proc;        /* processors: bands per piece are a multiple of it */
  int n_pieces;
  int *piece_band;
  int piece;         /* the piece begun last */
  int pfirst, plast; /* its first and last slice */
  /* the image as the earlier pieces left it in the rows they reach and this piece's slices
   * read: image rows [seam_y0, seam_y1), the region's columns */
  guint8 *seam;
  gsize seam_stride;
  int seam_y0, seam_y1;
  /* the banded form is used (else xv's swaps in place, on one thread): see banded_fits() */
  gboolean banded;
};

static void set_bands (LbSpread *st, int band_rows);
static void block_cache_drop (void);

/* Alignment of the working block: 2 MiB pages where the kernel has them (see alloc_block) */
#define BLOCK_ALIGN ((gsize) 2 << 20)

/* Cells of one piece (bytes, 4 per pixel of the rows its slices reach): larger regions run
 * in pieces of bands one after another, so that a pass (the source, the output and these)
 * peaks at about twice the image plus this (64 Mpx 16-bit: 2.27×). Pieces of 4, 8, 16 and
 * 32 MiB: 32 and 16 cost the same, 8 and 4 up to 1.5× more at 16 Mpx (more pieces, shorter
 * slices); a 1.4 Mpx image is one piece with any of them. */
#define SPREAD_PIECE_BYTES ((guint64) 32 << 20)

/* Cells of a band of @band_rows rows (bytes): LB_XV_RANDOM_LANES slices, each with the rows
 * its swaps reach above and below. */
static guint64
band_bytes (const LbSpread *st,
            int             band_rows)
{
  guint64 srows = ((guint64) band_rows + LB_XV_RANDOM_LANES - 1) / LB_XV_RANDOM_LANES;

  return LB_XV_RANDOM_LANES * (srows + 2 * (guint64) st->reach) * (guint64) st->r.width
         * sizeof (guint32);
}

/* Whether the banded form may run: positions must fit in 31 bits (the top bit marks tokens),
 * and a band's cells must fit a piece, or at least stay below 90 % of the image, so that a pass
 * peaks below 3× the image. Else (distances of hundreds of rows on wide images, regions over
 * 2³¹ − 1 pixels) xv's swaps run in place, whose only memory is the output. */
static gboolean
banded_fits (const LbSpread    *st,
             const LbKernelBuf *src,
             int                band_rows)
{
  const guint64 px = (guint64) st->r.width * (guint64) st->r.height;
  const guint64 image = (guint64) src->stride * (guint64) src->height;
  const guint64 cells = band_bytes (st, band_rows);

  return px <= G_MAXINT32 && (cells <= st->piece_bytes || cells * 10 <= image * 9);
}

LbSpread *
lb_spread_prepare (const LbKernelBuf    *src,
                   const LbKernelRect   *region,
                   const LbSpreadParams *params,
                   GError              **error)
{
  g_autofree LbSpread *st = g_new0 (LbSpread, 1);

  if (!lb_xvgeom_check_and_clip (src, region, &st->r, error))
    return NULL;
  if (params->width < 0 || (params->rectangle && params->height < 0))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "Spread distances must not be negative (got %d×%d)", params->width,
                   params->height);
      return NULL;
    }
  st->rectangle = params->rectangle;
  /* Distances beyond the region are clipped away anyway; limiting them keeps x ± d inside
   * int. Rectangle: ±sw, ±sh cover the region. Diamond: with d ≥ sw + sh the x draw spans
   * the region and the remaining y radius d − |x1 − x| ≥ sh spans it too, as with any larger
   * d. The random draws are unchanged. */
  if (params->rectangle)
    {
      st->px = MIN (params->width, st->r.width);
      st->py = MIN (params->height, st->r.height);
    }
  else
    {
      st->px = (int) MIN ((gint64) params->width, (gint64) st->r.width + st->r.height);
      st->py = 0;
    }
  st->seed = params->seed;
  st->simd = TRUE;
  /* xv: "0" or "0x0" does nothing (and draws no random numbers) */
  st->active = (params->width != 0 || (params->rectangle && params->height != 0))
                && st->r.width > 0 && st->r.height > 0;
  if (st->active)
    {
      /* a window clipped to the region spans at most its size */
      gint64 span = MAX (st->r.width, st->r.height);
      int n_proc = (int) CLAMP (g_get_num_processors (), 1, 64);
      int h = st->r.height, min_rows, band_rows;

      span = MIN (span, 2 * (gint64) MAX (st->px, st->py) + 1);
      st->mmax = (int) span;
      st->magic = g_new (guint32, st->mmax + 1);
      st->shift = g_new (guint32, st->mmax + 1);
      st->magic[0] = st->shift[0] = 0;
      for (int m = 1; m <= st->mmax; m++)
        lb_xv_random_mod_magic ((guint32) m, &st->magic[m], &st->shift[m]);
      st->xlo = g_new (gint32, st->r.width);
      st->xm = g_new (guint32, st->r.width);
      for (int x = 0; x < st->r.width; x++)
        {
          int lo = MAX (0, x - st->px), hi = MIN (st->r.width - 1, x + st->px);

          st->xlo[x] = lo;
          st->xm[x] = (guint32) (hi - lo + 1);
        }
      st->reach = st->rectangle ? st->py : st->px;
      st->piece_bytes = SPREAD_PIECE_BYTES;
      st->n_proc = n_proc;
      st->wdiv = G_MAXUINT64 / (guint64) st->r.width + 1;
      /* a band per processor (bands run in parallel), each of LB_XV_RANDOM_LANES slices at
       * least 4 reaches high (a pixel near a slice edge costs one more lookup in the gather),
       * but 2 bands at least */
      min_rows = MIN (LB_XV_RANDOM_LANES * MAX (4 * st->reach, 8), (h + 1) / 2);
      band_rows = MAX ((h + n_proc - 1) / n_proc, min_rows);
      /* Where those bands' cells exceed a piece, more bands, n_proc per piece (a multiple of
       * n_proc in all, so that no piece leaves a processor idle) */
      if (band_bytes (st, band_rows) * n_proc > st->piece_bytes)
        {
          int cap = band_rows, n;

          while (cap > min_rows && band_bytes (st, cap) * n_proc > st->piece_bytes)
            cap = MAX (min_rows, cap - MAX (1, cap / 16));
          n = (h + cap - 1) / cap;
          n = (n + n_proc - 1) / n_proc * n_proc;
          band_rows = MAX ((h + n - 1) / n, min_rows);
        }
      st->banded = banded_fits (st, src, band_rows);
      /* the swaps in place take no block: the cached one would only add to the pass's peak */
      if (!st->banded)
        block_cache_drop ();
      set_bands (st, band_rows);
    }
  return g_steal_pointer (&st);
}

/* The working block of the last pass, kept for the next one: a new block costs the kernel a
 * zeroed page per 2 MiB (or 4 KiB) on first touch, 12 MB at 1.4 Mpx RGB8, which was ~1 ms of a
 * 6.5 ms pass; a reused one is warm and needs no zeroing (every cell is written before it is
 * read). Only blocks up to SPREAD_CACHE_BYTES stay, and a pass whose cells do not fit that
 * (a large image) drops the cached one first, so the block kept adds at most 48 MiB to a pass
 * and a 64 Mpx 16-bit pass still peaks below 3× its image. One block for the process, taken by
 * one pass at a time (concurrent passes allocate their own). */
#define SPREAD_CACHE_BYTES ((gsize) 48 << 20)

static GMutex block_cache_lock;
static guint32 *block_cache;
static gsize block_cache_size;

/* the cached block if it holds @n bytes (else a new one, the cached one freed): *size is the
 * block's size */
static guint32 *
block_take (gsize  n,
            gsize *size)
{
  guint32 *block = NULL, *drop = NULL;

  g_mutex_lock (&block_cache_lock);
  if (block_cache != NULL && block_cache_size >= n)
    {
      block = g_steal_pointer (&block_cache);
      *size = block_cache_size;
    }
  else
    drop = g_steal_pointer (&block_cache);
  g_mutex_unlock (&block_cache_lock);
  g_aligned_free (drop);
  if (block == NULL && n > 0)
    {
      block = g_aligned_alloc (n, 1, BLOCK_ALIGN);
      *size = n;
#ifdef MADV_HUGEPAGE
      /* only advice: without it the block is ordinary memory */
      (void) madvise (block, n, MADV_HUGEPAGE);
#endif
    }
  return block;
}

static void
block_release (guint32 *block,
               gsize    size)
{
  g_mutex_lock (&block_cache_lock);
  if (block_cache == NULL && size <= SPREAD_CACHE_BYTES)
    {
      block_cache = g_steal_pointer (&block);
      block_cache_size = size;
    }
  g_mutex_unlock (&block_cache_lock);
  g_aligned_free (block);
}

/* a large pass frees the cached block before it allocates its own memory */
static void
block_cache_drop (void)
{
  guint32 *drop;

  g_mutex_lock (&block_cache_lock);
  drop = g_steal_pointer (&block_cache);
  g_mutex_unlock (&block_cache_lock);
  g_aligned_free (drop);
}

#ifdef __GNUC__
/* when the plugin module is unloaded */
__attribute__ ((destructor)) static void
block_cache_unload (void)
{
  block_cache_drop ();
}
#endif

static void
free_bufs (LbSpread *st)
{
  if (st->block != NULL)
    block_release (g_steal_pointer (&st->block), st->block_size);
  g_clear_pointer (&st->bufs, g_free);
  g_clear_pointer (&st->parts, g_free);
  g_clear_pointer (&st->slices, g_free);
  g_clear_pointer (&st->band_first, g_free);
  g_clear_pointer (&st->slice_of_row, g_free);
  g_clear_pointer (&st->piece_band, g_free);
  g_clear_pointer (&st->seam, g_free);
}

/* Rows per chunk of a band (see lb_spread_process_band): its lanes' partner cells, 4 bytes
 * per pixel, written by the draws and read by the swaps a little later, should stay in L2
 * next to the cells: about 128 KiB, i.e. 2 rows at 1400 pixels. At 1.4 Mpx RGB8, 2 rows
 * cost 6.5 % less per pass than the 16 used before (717 KB of partners), 1 row 2.6 % more
 * than 2 (per-round overhead); medians of 101 interleaved pairs, both orders. */
#define CHUNK_BYTES ((gsize) 128 << 10)

static int
chunk_rows (const LbSpread *st)
{
  gsize row = (gsize) LB_XV_RANDOM_LANES * sizeof (guint32) * (gsize) st->r.width;

  return (int) CLAMP (CHUNK_BYTES / row, 2, 16);
}

static gsize
parts_size (const LbSpread *st,
            int             b)
{
  const Slice *sl = &st->slices[st->band_first[b]];

  return (gsize) MIN (chunk_rows (st), sl->r1 - sl->r0) * st->r.width
         * (gsize) (st->band_first[b + 1] - st->band_first[b]);
}

/* Cells and partner buffers of piece @p's bands [b0, b1) (elements); with @place, their
 * places in the block, the other pieces' set to NULL. */
static gsize
piece_layout (LbSpread *st,
              int       p,
              gboolean  place)
{
  int b0 = st->piece_band[p], b1 = st->piece_band[p + 1];
  gsize at = 0;

  if (place)
    {
      memset (st->bufs, 0, (gsize) st->n_slices * sizeof *st->bufs);
      memset (st->parts, 0, (gsize) st->n_bands * sizeof *st->parts);
    }
  for (int i = st->band_first[b0]; i < st->band_first[b1]; i++)
    {
      if (place)
        st->bufs[i] = st->block + at;
      at += (gsize) (st->slices[i].e1 - st->slices[i].e0) * st->r.width;
    }
  for (int b = b0; b < b1; b++)
    {
      if (place)
        st->parts[b] = st->block + at;
      at += parts_size (st, b);
    }
  return at;
}

/* One block for the cells and partner buffers of any piece (each piece uses it in turn), in
 * 2 MiB pages where the kernel has them: 1.4 Mpx take 12 MB, which in 4 KiB pages cost ~3000
 * page faults whenever the block is new (block_take reuses the last pass's). */
static void
alloc_block (LbSpread *st)
{
  gsize n = 0;

  for (int p = 0; p < st->n_pieces; p++)
    n = MAX (n, piece_layout (st, p, FALSE));
  n = (n * sizeof (guint32) + BLOCK_ALIGN - 1) / BLOCK_ALIGN * BLOCK_ALIGN;
  if (n > SPREAD_CACHE_BYTES)
    block_cache_drop ();
  st->block = block_take (n, &st->block_size);
}

/* Consecutive bands, as many per piece as fit st->piece_bytes (1 at least). */
static void
set_pieces (LbSpread *st)
{
  guint64 most = 1;
  int per;

  for (int b = 0; b < st->n_bands; b++)
    {
      guint64 cells = 0;

      for (int i = st->band_first[b]; i < st->band_first[b + 1]; i++)
        cells += (guint64) (st->slices[i].e1 - st->slices[i].e0) * st->r.width * sizeof (guint32);
      most = MAX (most, cells);
    }
  per = (int) CLAMP (st->piece_bytes / most, 1, (guint64) st->n_bands);
  /* pieces run one after another: in each, a band per processor or a multiple of that */
  if (per < st->n_bands && per > st->n_proc)
    per -= per % st->n_proc;
  st->n_pieces = (st->n_bands + per - 1) / per;
  st->piece_band = g_new (int, st->n_pieces + 1);
  for (int p = 0; p <= st->n_pieces; p++)
    st->piece_band[p] = MIN (p * per, st->n_bands);
}

/* Bands of @band_rows rows, each cut into at most LB_XV_RANDOM_LANES slices of equal height
 * (the last may be shorter): a band's slices draw their random numbers as the lanes of one
 * generator. */
static void
set_bands (LbSpread *st,
           int       band_rows)
{
  int sy = st->r.y, ey = st->r.y + st->r.height;

  free_bufs (st);
  st->band_rows = MAX (1, MIN (band_rows, st->r.height));
  st->n_bands = (st->r.height + st->band_rows - 1) / st->band_rows;
  /* the swaps in place (banded_fits) run as one band */
  if (!st->banded)
    {
      st->band_rows = st->r.height;
      st->n_bands = 1;
    }
  st->slices = g_new (Slice, (gsize) st->n_bands * LB_XV_RANDOM_LANES);
  st->band_first = g_new (int, st->n_bands + 1);
  st->slice_of_row = g_new (int, st->r.height);
  st->n_slices = 0;
  for (int b = 0; b < st->n_bands; b++)
    {
      int b0 = sy + b * st->band_rows, b1 = MIN (b0 + st->band_rows, ey);
      int srows = (b1 - b0 + LB_XV_RANDOM_LANES - 1) / LB_XV_RANDOM_LANES;

      st->band_first[b] = st->n_slices;
      for (int r0 = b0; r0 < b1; r0 += srows)
        {
          Slice *sl = &st->slices[st->n_slices];

          sl->r0 = r0;
          sl->r1 = MIN (r0 + srows, b1);
          sl->e0 = MAX (sy, sl->r0 - st->reach);
          sl->e1 = MIN (ey, sl->r1 + st->reach);
          sl->plo = (guint32) ((gsize) (sl->e0 - sy) * st->r.width);
          sl->phi = (guint32) ((gsize) (sl->e1 - sy) * st->r.width);
          for (int y = sl->r0; y < sl->r1; y++)
            st->slice_of_row[y - sy] = st->n_slices;
          st->n_slices++;
        }
    }
  st->band_first[st->n_bands] = st->n_slices;
  st->bufs = g_new0 (guint32 *, st->n_slices);
  st->parts = g_new0 (guint32 *, st->n_bands);
  set_pieces (st);
  st->piece = 0;
  st->pfirst = 0;
  st->plast = st->band_first[st->piece_band[1]] - 1;
  /* no seam (free_bufs freed any): piece 0 reads the source */
  st->seam_y0 = st->seam_y1 = 0;
  if (st->banded)
    {
      alloc_block (st);
      /* piece 0 needs no seam: callers of a region in one piece may skip
       * lb_spread_begin_piece () */
      piece_layout (st, 0, TRUE);
    }
}

void
lb_spread_set_band_rows (LbSpread *st,
                         int       band_rows)
{
  if (st->active)
    set_bands (st, band_rows);
}

void
lb_spread_set_simd (LbSpread *st,
                    gboolean  enable)
{
  st->simd = enable;
}

int
lb_spread_get_n_bands (const LbSpread *st)
{
  return st->active ? st->n_bands : 0;
}

void
lb_spread_set_piece_bytes (LbSpread *st,
                           gsize     bytes)
{
  if (!st->active)
    return;
  st->piece_bytes = MAX (bytes, 1);
  set_bands (st, st->band_rows);
}

int
lb_spread_get_n_pieces (const LbSpread *st)
{
  /* a spread that moves nothing: one piece of no bands whose gather copies the region */
  return st->active ? st->n_pieces : 1;
}

void
lb_spread_begin_piece (LbSpread          *st,
                       int                piece,
                       const LbKernelBuf *dst,
                       int               *band0,
                       int               *band1,
                       int               *y0,
                       int               *y1)
{
  int sy = st->r.y, ey = st->r.y + st->r.height;

  g_return_if_fail (piece >= 0 && piece < lb_spread_get_n_pieces (st));
  if (!st->active)
    {
      *band0 = *band1 = 0;
      *y0 = sy;
      *y1 = ey;
      return;
    }
  st->piece = piece;
  st->pfirst = st->band_first[st->piece_band[piece]];
  st->plast = st->band_first[st->piece_band[piece + 1]] - 1;
  if (st->banded)
    piece_layout (st, piece, TRUE);
  /* The rows the earlier pieces' swaps reach and this piece's do too: as the earlier pieces'
   * gathers left them in @dst, copied because this piece's gather writes them again while
   * its tokens may still read them. */
  g_clear_pointer (&st->seam, g_free);
  st->seam_y0 = st->seam_y1 = sy;
  if (piece > 0)
    {
      gsize pb = (gsize) dst->channels * (dst->depth / 8);
      int top = st->slices[st->pfirst].r0;

      st->seam_y0 = MAX (sy, top - st->reach);
      st->seam_y1 = MIN (ey, top + st->reach);
      st->seam_stride = (gsize) st->r.width * pb;
      st->seam = g_malloc (st->seam_stride * (gsize) (st->seam_y1 - st->seam_y0));
      for (int y = st->seam_y0; y < st->seam_y1; y++)
        memcpy (st->seam + (gsize) (y - st->seam_y0) * st->seam_stride,
                lb_kbuf_row (dst, y) + (gsize) st->r.x * pb, st->seam_stride);
    }
  *band0 = st->piece_band[piece];
  *band1 = st->piece_band[piece + 1];
  *y0 = piece == 0 ? sy : st->slices[st->pfirst].e0;
  *y1 = piece == st->n_pieces - 1 ? ey : st->slices[st->plast].e1;
}

void
lb_spread_free (LbSpread *st)
{
  if (st == NULL)
    return;
  free_bufs (st);
  g_free (st->magic);
  g_free (st->shift);
  g_free (st->xlo);
  g_free (st->xm);
  g_free (st);
}

static inline void
swap_pixels (LbKernelBuf *buf,
             int          x,
             int          y,
             int          x1,
             int          y1,
             gsize        color_bytes)
{
  gsize pb = (gsize) buf->channels * (buf->depth / 8);
  guint8 *a = lb_kbuf_row (buf, y) + (gsize) x * pb;
  guint8 *b = lb_kbuf_row (buf, y1) + (gsize) x1 * pb;

  for (gsize i = 0; i < color_bytes; i++)
    {
      guint8 t = a[i];

      a[i] = b[i];
      b[i] = t;
    }
}

void
lb_spread_process_reference (const LbSpread    *st,
                             const LbKernelBuf *src,
                             LbKernelBuf       *dst,
                             int                y0,
                             int                y1)
{
  LbXvRandom rng;
  int sx = st->r.x, sy = st->r.y, ex = st->r.x + st->r.width - 1, ey = st->r.y + st->r.height - 1;
  gsize cb = (gsize) lb_kbuf_color_channels (dst) * (dst->depth / 8);

  g_return_if_fail (y0 <= 0 && y1 >= dst->height);
  if (!st->active)
    return;
  lb_xv_random_seed (&rng, st->seed);
  for (int y = sy; y <= ey; y++)
    for (int x = sx; x <= ex; x++)
      {
        int lo, hi, x1, y1p;

        if (st->rectangle)
          {
            lo = MAX (sx, x - st->px);
            hi = MIN (ex, x + st->px);
            x1 = lo + (int) (lb_xv_random_next (&rng) % (guint32) (hi - lo + 1));
            lo = MAX (sy, y - st->py);
            hi = MIN (ey, y + st->py);
            y1p = lo + (int) (lb_xv_random_next (&rng) % (guint32) (hi - lo + 1));
          }
        else
          {
            int d = st->px, rd;

            lo = MAX (sx, x - d);
            hi = MIN (ex, x + d);
            x1 = lo + (int) (lb_xv_random_next (&rng) % (guint32) (hi - lo + 1));
            rd = d - abs (x1 - x);
            lo = MAX (MAX (sy, y - d), y - rd);
            hi = MIN (MIN (ey, y + d), y + rd);
            y1p = lo + (int) (lb_xv_random_next (&rng) % (guint32) (hi - lo + 1));
          }
        swap_pixels (dst, x, y, x1, y1p, cb);
      }
}

/* A draw range [lo, lo + m) with the constants for "% m". */
typedef struct {
  int lo;
  guint32 m;
  guint32 magic;
  guint32 shift;
} Range;

static inline void
range_set (Range         *rg,
           const LbSpread *st,
           int             lo,
           int             hi)
{
  rg->lo = lo;
  rg->m = (guint32) (hi - lo + 1);
  rg->magic = st->magic[rg->m];
  rg->shift = st->shift[rg->m];
}

static inline int
range_draw (const Range *rg,
            guint32      rnd)
{
  return rg->lo + (int) lb_xv_random_mod (rnd, rg->m, rg->magic, rg->shift);
}

/* Fast path: the x ranges are tabulated once per image (they depend on x only) and the y
 * ranges once per row (they depend on y and, in diamond mode, on the remaining radius);
 * random numbers come 128 pixels at a time from the batched generator; "% m" is a
 * multiplication; the swap is specialised for the element size.
 *
 * It runs xv's swaps for region rows [r0, r1) on elements of @esize bytes (swapping the
 * first @cb): pixels of the destination, or the 32-bit indices of a band's permutation.
 * @base is the element of region column sx in region row @e0; rows are @rstride bytes apart.
 * @rng must stand at the first draw of row r0. */
static G_ALWAYS_INLINE inline void
spread_rows (const LbSpread  *st,
             LbXvRandomBatch *rng,
             int              r0,
             int              r1,
             guint8          *base,
             int              e0,
             gsize            rstride,
             gsize            esize,
             gsize            cb)
{
  int sx = st->r.x, sy = st->r.y, ex = st->r.x + st->r.width - 1, ey = st->r.y + st->r.height - 1;
  /* random numbers for 128 pixels at a time: small enough to stay in L1 beside the rows */
  guint32 rnd[256];
  gboolean rect = st->rectangle;
  int px = st->px, py = st->py;
  /* diamond: the y range for each remaining radius rd = 0 … px; rectangle: [0] only */
  int nyr = rect ? 1 : px + 1;
  Range *xr = g_new (Range, st->r.width);
  Range *yr = g_new (Range, nyr);

  for (int x = sx; x <= ex; x++)
    range_set (&xr[x - sx], st, MAX (sx, x - px), MIN (ex, x + px));
  for (int y = r0; y < r1; y++)
    {
      guint8 *arow = base + (gsize) (y - e0) * rstride;

      if (rect)
        range_set (&yr[0], st, MAX (sy, y - py), MIN (ey, y + py));
      else
        for (int rd = 0; rd <= px; rd++)
          range_set (&yr[rd], st, MAX (sy, y - rd), MIN (ey, y + rd));
      for (int x0 = sx; x0 <= ex; x0 += 128)
        {
          int x1end = MIN (ex, x0 + 127);
          const guint32 *rp = rnd;

          lb_xv_random_batch_fill (rng, rnd, 2 * (gsize) (x1end - x0 + 1));
          for (int x = x0; x <= x1end; x++, rp += 2, arow += esize)
            {
              int x1 = range_draw (&xr[x - sx], rp[0]);
              const Range *ry = rect ? &yr[0] : &yr[px - abs (x1 - x)];
              guint8 *a = arow;
              /* the drawn row is ≥ e0: the band's reach holds every row its swaps touch */
              guint8 *b = base + (gsize) (range_draw (ry, rp[1]) - e0) * rstride
                          + (gsize) (x1 - sx) * esize;

              /* constant sizes let the compiler turn these into register moves */
              switch (cb)
                {
                case 1: { guint8 t = a[0]; a[0] = b[0]; b[0] = t; } break;
                case 2: { guint8 t[2]; memcpy (t, a, 2); memcpy (a, b, 2); memcpy (b, t, 2); } break;
                case 3:
                  {
                    /* in registers: a stack temporary costs a store-forwarding round trip */
                    guint16 a01, b01;
                    guint8 a2 = a[2], b2 = b[2];

                    memcpy (&a01, a, 2);
                    memcpy (&b01, b, 2);
                    memcpy (a, &b01, 2);
                    a[2] = b2;
                    memcpy (b, &a01, 2);
                    b[2] = a2;
                  }
                  break;
                case 4: { guint8 t[4]; memcpy (t, a, 4); memcpy (a, b, 4); memcpy (b, t, 4); } break;
                case 6: { guint8 t[6]; memcpy (t, a, 6); memcpy (a, b, 6); memcpy (b, t, 6); } break;
                default:
                  for (gsize i = 0; i < cb; i++)
                    {
                      guint8 t = a[i];

                      a[i] = b[i];
                      b[i] = t;
                    }
                  break;
                }
            }
        }
    }
  g_free (xr);
  g_free (yr);
}

static void
spread_in_place (const LbSpread *st,
                 LbKernelBuf    *dst,
                 gsize           cb)
{
  LbXvRandomBatch *rng = g_new (LbXvRandomBatch, 1);
  gsize pb = (gsize) dst->channels * (dst->depth / 8);
  guint8 *base = lb_kbuf_row (dst, st->r.y) + (gsize) st->r.x * pb;
  int r0 = st->r.y, r1 = st->r.y + st->r.height;

  lb_xv_random_batch_seed (rng, st->seed);
  switch (cb)
    {
    case 1: spread_rows (st, rng, r0, r1, base, r0, dst->stride, pb, 1); break;
    case 3: spread_rows (st, rng, r0, r1, base, r0, dst->stride, pb, 3); break;
    default: spread_rows (st, rng, r0, r1, base, r0, dst->stride, pb, cb); break;
    }
  g_free (rng);
}

/* Banded path. The swaps depend on the random stream only, never on pixel values, so slice s's
 * swaps alone define a permutation P_s of the positions its rows reach: run on an array of
 * region positions starting from the identity, P_s[p] names the position whose content those
 * swaps bring to p. Running the slices one after the other (xv's order) moves content as the
 * composition does, so the final pixel at p is the source pixel at P_0(P_1(…P_last(p)…)):
 * exact for any slicing, each slice's random numbers found by jumping the generator ahead
 * to the slice's first draw (2 per pixel). P_s is the identity outside slice s's reach.
 *
 * Cells: rows of slice s that no earlier slice reaches (from r0 + reach on) start with their
 * source pixel itself (colour bytes ≤ 3: a "value" cell, top bit clear) rather than a
 * position, so most of the gather is a sequential copy; the other cells hold a position
 * with the top bit set (a "token"), resolved through slice s − 1's cells or, outside every
 * earlier slice's reach, in the source.
 *
 * Pieces: a region whose cells would not fit SPREAD_PIECE_BYTES runs its bands in pieces, one
 * after another, each gathered into the output before the next begins. The image as the
 * earlier pieces left it is then the source of a piece: the output in the rows they reach (a
 * copy of it, the seam), the source below. A piece's first slice starts from that image, so
 * no token leads back to an earlier piece. */
#define TOKEN 0x80000000u

/* Image row @y from the region's first column, as the earlier pieces left it (see above). */
static inline const guint8 *
state_row (const LbSpread    *st,
           const LbKernelBuf *src,
           int                y)
{
  if (y >= st->seam_y0 && y < st->seam_y1)
    return st->seam + (gsize) (y - st->seam_y0) * st->seam_stride;
  return lb_kbuf_row (src, y) + (gsize) st->r.x * (gsize) src->channels * (src->depth / 8);
}

/* A pixel's colour bytes (cb ≤ 3) as a value cell, in registers: going through a memory
 * temporary would cost a failed store-to-load forwarding per pixel. */
static inline guint32
load_value (const guint8 *s,
            gsize         cb)
{
  guint32 v = s[0];

  if (cb >= 2)
    v |= (guint32) s[1] << 8;
  if (cb >= 3)
    v |= (guint32) s[2] << 16;
  return v;
}

/* value cells exist only for cb ≤ 3 */
static inline void
store_value (guint8  *d,
             guint32  c,
             gsize    cb)
{
  d[0] = (guint8) c;
  if (cb >= 2)
    d[1] = (guint8) (c >> 8);
  if (cb >= 3)
    d[2] = (guint8) (c >> 16);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define HAVE_AVX2_PATHS 1
#include <immintrin.h>

/* Rows of 8-bit gray, 16-bit gray, 8-bit RGB or 8-bit RGBA (colour bytes @cb, pixel bytes @pb)
 * to value cells, 8 pixels per step (RGB8: a 32-byte load for 24 bytes, run while 8 more bytes
 * of the row follow). Returns the pixels done. */
__attribute__ ((target ("avx2"))) static G_ALWAYS_INLINE inline int
init_run_avx2 (guint32      *row,
               const guint8 *s,
               int           w,
               gsize         cb,
               gsize         pb)
{
  const __m256i idx = _mm256_setr_epi32 (0, 1, 2, 3, 3, 4, 5, 6);
  const __m256i shuf = _mm256_setr_epi8 (0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1,
                                         0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
  const __m256i rgb = _mm256_set1_epi32 (0x00ffffff);
  int x = 0;

  for (; x + (pb == 3 ? 11 : 8) <= w; x += 8)
    {
      const void *p = s + pb * (gsize) x;
      __m256i v;

      if (pb == 1)
        v = _mm256_cvtepu8_epi32 (_mm_loadl_epi64 ((const __m128i *) p));
      else if (pb == 2)
        v = _mm256_cvtepu16_epi32 (_mm_loadu_si128 ((const __m128i *) p));
      else if (pb == 3)
        v = _mm256_shuffle_epi8 (_mm256_permutevar8x32_epi32 (_mm256_loadu_si256 ((const __m256i *) p),
                                                              idx), shuf);
      else
        v = _mm256_and_si256 (_mm256_loadu_si256 ((const __m256i *) p), rgb);
      _mm256_storeu_si256 ((__m256i *) (void *) (row + x), v);
    }
  (void) cb;
  return x;
}

/* 8 value cells to 8 pixels of @d (the layouts of init_run_avx2); RGBA8 takes its alpha from
 * the same pixels of the source row @s */
__attribute__ ((target ("avx2"))) static G_ALWAYS_INLINE inline void
store_run_avx2 (guint8       *d,
                const guint8 *s,
                __m256i       c,
                gsize         pb)
{
  if (pb == 1 || pb == 2)
    {
      __m128i p16 = _mm_packus_epi32 (_mm256_castsi256_si128 (c), _mm256_extracti128_si256 (c, 1));

      if (pb == 1)
        _mm_storel_epi64 ((__m128i *) (void *) d, _mm_packus_epi16 (p16, p16));
      else
        _mm_storeu_si128 ((__m128i *) (void *) d, p16);
    }
  else if (pb == 3)
    {
      const __m256i shuf = _mm256_setr_epi8 (0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1,
                                             0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
      const __m256i idx = _mm256_setr_epi32 (0, 1, 2, 4, 5, 6, 7, 7);

      c = _mm256_permutevar8x32_epi32 (_mm256_shuffle_epi8 (c, shuf), idx);
      _mm_storeu_si128 ((__m128i *) (void *) d, _mm256_castsi256_si128 (c));
      _mm_storel_epi64 ((__m128i *) (void *) (d + 16), _mm256_extracti128_si256 (c, 1));
    }
  else
    {
      __m256i a = _mm256_and_si256 (_mm256_loadu_si256 ((const __m256i *) (const void *) s),
                                    _mm256_set1_epi32 ((int) 0xff000000u));

      _mm256_storeu_si256 ((__m256i *) (void *) d, _mm256_or_si256 (a, c));
    }
}

/* Value cells back to pixels (the layouts of init_run_avx2), 8 pixels per step; tokens are
 * looked up in the previous slice's cells @prev (region positions [plo, phi), NULL for none)
 * where those hold values. Stops at the first step with a token that needs more (a longer
 * chain, or the source). @s: the source row's pixels under @d (RGBA8's alpha). Returns the
 * pixels done. */
__attribute__ ((target ("avx2"))) static G_ALWAYS_INLINE inline int
gather_run_avx2 (guint8        *d,
                 const guint8  *s,
                 const guint32 *cells,
                 int            n,
                 const guint32 *prev,
                 guint32        plo,
                 guint32        phi,
                 gsize          pb)
{
  const __m256i low31 = _mm256_set1_epi32 (0x7fffffff);
  const __m256i vplo = _mm256_set1_epi32 ((int) plo);
  /* q < phi as a signed comparison of q − 2³¹ < phi − 2³¹ (positions are below 2³¹) */
  const __m256i bias = _mm256_set1_epi32 ((int) 0x80000000u);
  const __m256i vphi = _mm256_set1_epi32 ((int) (phi ^ 0x80000000u));
  int x = 0;

  /* RGB8 stores 24 bytes in 16 + 8 */
  for (; x + 8 <= n; x += 8)
    {
      __m256i c = _mm256_loadu_si256 ((const __m256i *) (const void *) (cells + x));

      if (_mm256_movemask_ps (_mm256_castsi256_ps (c)) != 0)
        {
          __m256i tok = _mm256_srai_epi32 (c, 31);
          __m256i q = _mm256_and_si256 (c, low31);
          __m256i inside = _mm256_cmpgt_epi32 (vphi, _mm256_xor_si256 (q, bias));

          /* every token within the previous slice's reach, and a value there */
          if (prev == NULL || _mm256_movemask_ps (_mm256_castsi256_ps (_mm256_andnot_si256 (inside, tok))) != 0)
            break;
          c = _mm256_mask_i32gather_epi32 (c, (const int *) prev, _mm256_sub_epi32 (q, vplo), tok, 4);
          if (_mm256_movemask_ps (_mm256_castsi256_ps (c)) != 0)
            break;
        }
      store_run_avx2 (d + pb * (gsize) x, s + pb * (gsize) x, c, pb);
    }
  return x;
}

/* the layouts with AVX2 runs, as separate functions (one instance each) */
#define SPREAD_AVX2_LAYOUT(pb_)                                                                    \
  __attribute__ ((target ("avx2"))) static int                                                     \
  init_run_avx2_##pb_ (guint32 *row, const guint8 *s, int w)                                       \
  {                                                                                                \
    return init_run_avx2 (row, s, w, pb_ == 4 ? 3 : pb_, pb_);                                     \
  }                                                                                                \
  __attribute__ ((target ("avx2"))) static int                                                     \
  gather_run_avx2_##pb_ (guint8 *d, const guint8 *s, const guint32 *cells, int n,                  \
                         const guint32 *prev, guint32 plo, guint32 phi)                            \
  {                                                                                                \
    return gather_run_avx2 (d, s, cells, n, prev, plo, phi, pb_);                                  \
  }
SPREAD_AVX2_LAYOUT (1)
SPREAD_AVX2_LAYOUT (2)
SPREAD_AVX2_LAYOUT (3)
SPREAD_AVX2_LAYOUT (4)

typedef int (*InitRunFunc) (guint32 *row, const guint8 *s, int w);
typedef int (*GatherRunFunc) (guint8 *d, const guint8 *s, const guint32 *cells, int n,
                              const guint32 *prev, guint32 plo, guint32 phi);

/* the AVX2 runs for 8-bit gray (cb = pb = 1), 16-bit gray (2, 2), 8-bit RGB (3, 3) and 8-bit
 * RGBA (3, 4): index pb − 1 where cb ≥ pb − 1 and cb = pb or cb = 3 */
static gboolean
avx2_layout (gsize cb,
             gsize pb)
{
  return (cb == pb && cb <= 3) || (cb == 3 && pb == 4);
}

static const InitRunFunc init_runs[4] = { init_run_avx2_1, init_run_avx2_2, init_run_avx2_3,
                                          init_run_avx2_4 };
static const GatherRunFunc gather_runs[4] = { gather_run_avx2_1, gather_run_avx2_2,
                                              gather_run_avx2_3, gather_run_avx2_4 };
#endif

/* whether the AVX2 paths run (libgcc's constructor has filled in the processor's features
 * before any code of ours runs, so this needs no __builtin_cpu_init ()) */
static gboolean
use_avx2 (const LbSpread *st)
{
#ifdef HAVE_AVX2_PATHS
  return st->simd && __builtin_cpu_supports ("avx2");
#else
  return FALSE;
#endif
}

/* cells of image rows [ya, yb) in @buf, whose first row is image row @e0 */
static G_ALWAYS_INLINE inline void
band_init (const LbSpread    *st,
           const LbKernelBuf *src,
           guint32           *buf,
           int                e0,
           int                ya,
           int                yb,
           int                vfrom,
           gsize              cb)
{
  int w = st->r.width, sy = st->r.y;
  gsize pb = (gsize) src->channels * (src->depth / 8);
  gboolean avx2 = use_avx2 (st);

  for (int y = ya; y < yb; y++)
    {
      guint32 *row = buf + (gsize) (y - e0) * w;

      if (y < vfrom)
        {
          guint32 q = (guint32) ((gsize) (y - sy) * w) | TOKEN;

          for (int x = 0; x < w; x++)
            row[x] = q + (guint32) x;
        }
      else
        {
          const guint8 *s = state_row (st, src, y);
          int x = 0;

#ifdef HAVE_AVX2_PATHS
          if (avx2 && avx2_layout (cb, pb))
            x = init_runs[pb - 1] (row, s, w);
#endif
          for (s += (gsize) x * pb; x < w; x++, s += pb)
            row[x] = load_value (s, cb);
        }
    }
}

/* A slice's swaps on its cells: own cell (row r, column x) with parts[r · w + x], for slice rows
 * r = 0 … rows − 1 (cell row top + r). Not in raster order but in skewed strips: two swaps
 * touch a common cell only if their columns are at most 2 · px apart, so ordering the pixels
 * by x + skew · r with skew = 2 · px + 1, in strips of STRIP_W, keeps every such pair in
 * raster order (a later row has a key at least skew − 2 · px = 1 higher), and the strip's
 * 2 · reach + 1 rows of STRIP_W + 2 · px cells stay in L1; in raster order the rows a swap
 * reaches (5.6 KB each at 1400 RGB pixels) do not. */
#define STRIP_W 64

/* not inlined: inside lb_spread_process_band's loops the swap loop's pointers and the
 * swapped cell spill to the stack (three stack accesses per swap) */
G_GNUC_NO_INLINE static void
swap_cells (guint32       *cells,
            const guint32 *parts,
            int            top,
            int            rows,
            int            w,
            int            skew)
{
  guint32 *own = cells + (gsize) top * w;
  gint64 keys;

  /* a swap reaching across the whole row: raster order (one strip per row) */
  if (skew >= w)
    skew = w;
  keys = (gint64) w + (gint64) skew * (rows - 1);
  for (gint64 x0 = 0; x0 < keys; x0 += STRIP_W)
    /* the rows with keys in [x0, x0 + STRIP_W): x0 − w < skew · r < x0 + STRIP_W */
    for (int r = (int) MAX (0, (x0 - w) / skew); r < rows && (gint64) skew * r < x0 + STRIP_W; r++)
      {
        gint64 xa = MAX (0, x0 - (gint64) skew * r), xb = MIN (w, x0 + STRIP_W - (gint64) skew * r);
        gsize i = (gsize) r * w;

        for (gint64 x = xa; x < xb; x++)
          {
            guint32 q = parts[i + x], c = own[i + x];

            own[i + x] = cells[q];
            cells[q] = c;
          }
      }
}

/* One band's draws: its slices' partner cells (parts[k · n + i] for pixel i of slice k, n the
 * pixels of a full slice), with the slices as the lanes of one generator stepped together: the
 * loops over lanes have no branches and vectorise (the x range is the same for every lane,
 * "% m" is a multiplication by magic[m]); lanes without a slice, or past the end of a shorter
 * last slice, draw and are ignored. */
#define LANES LB_XV_RANDOM_LANES
#define BLOCK 128

/* What the draws of one band need, and where they stand. */
typedef struct {
  const LbSpread *st;
  gint32 e0[LANES];  /* lane k's first cell row (region rows) */
  gint32 y[LANES];   /* lane k's current region row (clamped to the region) */
  gint32 r0[LANES];
  int x, row;        /* current column and slice row, the same for every lane */
} Draws;

static inline void
draws_advance (Draws *dr)
{
  if (++dr->x == dr->st->r.width)
    {
      dr->x = 0;
      dr->row++;
      for (int k = 0; k < LANES; k++)
        dr->y[k] = MIN (dr->r0[k] + dr->row, dr->st->r.height - 1);
    }
}

/* part[t][k]: the partner cell of the next @tn pixels of every lane, from their 2 draws
 * (raw generator words: the outputs are rnd >> 1) */
LB_XVGEOM_TARGET_CLONES static void
draws_block (Draws               *dr,
             const guint32      (*rnd)[LANES],
             guint32            (*part)[LANES],
             int                  tn)
{
  const LbSpread *st = dr->st;
  int w = st->r.width, h = st->r.height;
  gboolean rect = st->rectangle;
  int d = rect ? st->py : st->px;
  const guint32 *magic = st->magic, *shift = st->shift;

  for (int t = 0; t < tn; t++)
    {
      int x = dr->x;
      gint32 xlo = st->xlo[x];
      guint32 xm = st->xm[x], xmagic = magic[xm], xshift = shift[xm];

      for (int k = 0; k < LANES; k++)
        {
          gint32 x1 = xlo + (gint32) lb_xv_random_mod (rnd[2 * t][k] >> 1, xm, xmagic, xshift);
          gint32 rd = rect ? d : d - abs (x1 - x);
          gint32 lo = MAX (0, dr->y[k] - rd), hi = MIN (h - 1, dr->y[k] + rd);
          guint32 m = (guint32) (hi - lo + 1);
          gint32 y1 = lo + (gint32) lb_xv_random_mod (rnd[2 * t + 1][k] >> 1, m, magic[m], shift[m]);

          part[t][k] = (guint32) ((y1 - dr->e0[k]) * w + x1);
        }
      draws_advance (dr);
    }
}

#ifdef HAVE_AVX2_PATHS
/* high 32 bits of the unsigned products, lane by lane */
__attribute__ ((target ("avx2"))) static inline __m256i
mulhi_epu32 (__m256i a,
             __m256i b)
{
  __m256i even = _mm256_srli_epi64 (_mm256_mul_epu32 (a, b), 32);
  __m256i odd = _mm256_mul_epu32 (_mm256_srli_epi64 (a, 32), _mm256_srli_epi64 (b, 32));

  return _mm256_blend_epi32 (even, odd, 0xaa);
}

/* table[idx] lane by lane, idx ≤ n − 1: in registers for up to 16 entries */
typedef struct {
  __m256i lo, hi;
  const guint32 *table;
  int n;
} Lookup;

__attribute__ ((target ("avx2"))) static inline __m256i
lookup (const Lookup *lu,
        __m256i       idx)
{
  if (lu->n <= 8)
    return _mm256_permutevar8x32_epi32 (lu->lo, idx);
  if (lu->n <= 16)
    return _mm256_blendv_epi8 (_mm256_permutevar8x32_epi32 (lu->lo, idx),
                               _mm256_permutevar8x32_epi32 (lu->hi, idx),
                               _mm256_cmpgt_epi32 (idx, _mm256_set1_epi32 (7)));
  return _mm256_i32gather_epi32 ((const int *) lu->table, idx, 4);
}

__attribute__ ((target ("avx2"))) static void
lookup_init (Lookup        *lu,
             const guint32 *table,
             int            n)
{
  guint32 t[16] = { 0 };

  memcpy (t, table, MIN (n, 16) * sizeof (guint32));
  lu->lo = _mm256_loadu_si256 ((const __m256i *) t);
  lu->hi = _mm256_loadu_si256 ((const __m256i *) (t + 8));
  lu->table = table;
  lu->n = n;
}

/* 8 steps of 8 lanes (p[t][k]) to parts[k · n_max + i + t], lanes below @n_lanes */
__attribute__ ((target ("avx2"))) static inline void
transpose_store (const guint32 (*p)[LANES],
                 guint32        *parts,
                 gsize           n_max,
                 gsize           i,
                 int             n_lanes)
{
  static const int lane[4] = { 0, 2, 1, 3 };
  __m256i r[8], u[8];

  for (int j = 0; j < 8; j++)
    r[j] = _mm256_loadu_si256 ((const __m256i *) p[j]);
  for (int j = 0; j < 8; j += 2)
    {
      u[j] = _mm256_unpacklo_epi32 (r[j], r[j + 1]);
      u[j + 1] = _mm256_unpackhi_epi32 (r[j], r[j + 1]);
    }
  for (int j = 0; j < 8; j += 4)
    for (int h = 0; h < 2; h++)
      {
        r[j + h] = _mm256_unpacklo_epi64 (u[j + h], u[j + 2 + h]);
        r[j + 2 + h] = _mm256_unpackhi_epi64 (u[j + h], u[j + 2 + h]);
      }
  /* r[0..3]: lanes 0, 2, 1, 3 of steps 0–3 in the low half, lanes 4, 6, 5, 7 in the high
   * half; r[4..7] the same for steps 4–7 */
  for (int h = 0; h < 4; h++)
    {
      __m256i a = _mm256_permute2x128_si256 (r[h], r[4 + h], 0x20);
      __m256i b = _mm256_permute2x128_si256 (r[h], r[4 + h], 0x31);

      if (lane[h] < n_lanes)
        _mm256_storeu_si256 ((__m256i *) (void *) (parts + (gsize) lane[h] * n_max + i), a);
      if (lane[h] + 4 < n_lanes)
        _mm256_storeu_si256 ((__m256i *) (void *) (parts + (gsize) (lane[h] + 4) * n_max + i), b);
    }
}

/* draws_block() in AVX2, the same integer operations on the 8 lanes at once; also moves each
 * group of 8 steps to the lanes' arrays (parts[k · n_max + i0 + t]). Returns the steps moved.
 * @rect is a constant in each caller (see draws_block_avx2). */
__attribute__ ((target ("avx2"))) static G_ALWAYS_INLINE inline int
draws_block_avx2_body (Draws               *dr,
                       const guint32      (*rnd)[LANES],
                       guint32            (*part)[LANES],
                       int                  tn,
                       guint32             *parts,
                       gsize                n_max,
                       gsize                i0,
                       int                  n_lanes,
                       const gboolean       rect)
{
  const LbSpread *st = dr->st;
  int w = st->r.width, h = st->r.height;
  const __m256i vd = _mm256_set1_epi32 (rect ? st->py : st->px);
  const __m256i zero = _mm256_setzero_si256 (), one = _mm256_set1_epi32 (1);
  const __m256i hmax = _mm256_set1_epi32 (h - 1), vw = _mm256_set1_epi32 (w);
  const __m256i e0 = _mm256_loadu_si256 ((const __m256i *) dr->e0);
  __m256i vy = _mm256_loadu_si256 ((const __m256i *) dr->y);
  Lookup lmagic, lshift;
  /* The interior: rows where every lane's y range is unclipped (inner_rows) and columns
   * [px, w − px) (never a row's last column, where the lanes change rows). There the x draw's
   * range is x ± px and the y draw's y ± rd, rd = d − |x1 − x| (rectangle: py); the partner
   * is this pixel's cell (base, one more per step) plus dy · w + dx; and "% m" takes its
   * constants from 8-entry tables indexed by rd (diamond, d ≤ 7) instead of per-column loads
   * and 12-entry lookups. Same integer operations, so the same partners: about 40 % off
   * the draws, which were ~30 % of a pass. */
  const int px = st->px, d = rect ? st->py : st->px;
  const gboolean inner_ok = 2 * px + 1 <= w && (rect || d <= 7);
  gboolean inner_rows = FALSE;
  __m256i base = _mm256_setzero_si256 ();
  __m256i rmagic = _mm256_setzero_si256 (), rshift = _mm256_setzero_si256 ();

  lookup_init (&lmagic, st->magic, st->mmax + 1);
  lookup_init (&lshift, st->shift, st->mmax + 1);
  if (inner_ok && !rect)
    {
      guint32 tm[8] = { 0 }, ts[8] = { 0 };

      for (int rd = 0; rd <= d; rd++)
        {
          tm[rd] = st->magic[2 * rd + 1];
          ts[rd] = st->shift[2 * rd + 1];
        }
      rmagic = _mm256_loadu_si256 ((const __m256i *) tm);
      rshift = _mm256_loadu_si256 ((const __m256i *) ts);
    }
  for (int t = 0; t < tn; t++)
    {
      int x = dr->x;

      if (x == 0 || t == 0)
        {
          /* every lane's row, and so its y range, changes only here */
          gint32 ylo = G_MAXINT32, yhi = G_MININT32;

          for (int k = 0; k < LANES; k++)
            {
              ylo = MIN (ylo, dr->y[k]);
              yhi = MAX (yhi, dr->y[k]);
            }
          inner_rows = inner_ok && ylo >= d && yhi + d <= h - 1;
          base = _mm256_sub_epi32 (vy, e0);
          base = _mm256_add_epi32 (_mm256_mullo_epi32 (base, vw), _mm256_set1_epi32 (x));
        }
      if (inner_rows && x >= px && x < w - MAX (px, 1))
        {
          /* a run of interior columns, up to the block's end or the next group of 8 */
          int run = MIN (MIN (tn - t, w - MAX (px, 1) - x), 8 - (t & 7));
          const __m256i vxm = _mm256_set1_epi32 (2 * px + 1);
          const __m256i xmagic = _mm256_set1_epi32 ((int) st->magic[2 * px + 1]);
          const __m128i xshift = _mm_cvtsi32_si128 ((int) st->shift[2 * px + 1]);
          const __m256i vpx = _mm256_set1_epi32 (px);

          for (int e = t + run; t < e; t++)
            {
              __m256i rx = _mm256_loadu_si256 ((const __m256i *) rnd[2 * t]);
              __m256i ry = _mm256_loadu_si256 ((const __m256i *) rnd[2 * t + 1]);
              __m256i q = _mm256_srl_epi32 (mulhi_epu32 (_mm256_andnot_si256 (one, rx), xmagic), xshift);
              /* x1 − x = rx mod (2px + 1) − px */
              __m256i dx = _mm256_sub_epi32 (_mm256_sub_epi32 (_mm256_srli_epi32 (rx, 1),
                                                               _mm256_mullo_epi32 (q, vxm)), vpx);
              __m256i rd, m, dy;

              if (rect)
                {
                  rd = vd;
                  q = _mm256_srl_epi32 (mulhi_epu32 (_mm256_andnot_si256 (one, ry),
                                                     _mm256_set1_epi32 ((int) st->magic[2 * d + 1])),
                                        _mm_cvtsi32_si128 ((int) st->shift[2 * d + 1]));
                  m = _mm256_set1_epi32 (2 * d + 1);
                }
              else
                {
                  rd = _mm256_sub_epi32 (vd, _mm256_abs_epi32 (dx));
                  q = _mm256_srlv_epi32 (mulhi_epu32 (_mm256_andnot_si256 (one, ry),
                                                      _mm256_permutevar8x32_epi32 (rmagic, rd)),
                                         _mm256_permutevar8x32_epi32 (rshift, rd));
                  m = _mm256_add_epi32 (_mm256_add_epi32 (rd, rd), one);
                }
              /* y1 − y = ry mod m − rd */
              dy = _mm256_sub_epi32 (_mm256_sub_epi32 (_mm256_srli_epi32 (ry, 1), _mm256_mullo_epi32 (q, m)), rd);
              _mm256_storeu_si256 ((__m256i *) part[t],
                                   _mm256_add_epi32 (_mm256_add_epi32 (base, dx), _mm256_mullo_epi32 (dy, vw)));
              base = _mm256_add_epi32 (base, one);
              if ((t & 7) == 7)
                transpose_store ((const guint32 (*)[LANES]) part + t - 7, parts, n_max, i0 + (gsize) t - 7,
                                 n_lanes);
            }
          /* no run reaches the row's end (x < w − px) */
          dr->x += run;
          t--;
          continue;
        }
      guint32 xm = st->xm[x];
      __m256i rx = _mm256_loadu_si256 ((const __m256i *) rnd[2 * t]);
      __m256i ry = _mm256_loadu_si256 ((const __m256i *) rnd[2 * t + 1]);
      __m256i ax = _mm256_srli_epi32 (rx, 1), ay = _mm256_srli_epi32 (ry, 1);
      __m256i vxm = _mm256_set1_epi32 ((int) xm);
      __m256i q = _mm256_srl_epi32 (mulhi_epu32 (_mm256_andnot_si256 (one, rx),
                                                 _mm256_set1_epi32 ((int) st->magic[xm])),
                                    _mm_cvtsi32_si128 ((int) st->shift[xm]));
      __m256i x1 = _mm256_add_epi32 (_mm256_set1_epi32 (st->xlo[x]),
                                     _mm256_sub_epi32 (ax, _mm256_mullo_epi32 (q, vxm)));
      __m256i rd = rect ? vd : _mm256_sub_epi32 (vd, _mm256_abs_epi32 (_mm256_sub_epi32 (x1, _mm256_set1_epi32 (x))));
      __m256i lo = _mm256_max_epi32 (zero, _mm256_sub_epi32 (vy, rd));
      __m256i hi = _mm256_min_epi32 (hmax, _mm256_add_epi32 (vy, rd));
      __m256i m = _mm256_add_epi32 (_mm256_sub_epi32 (hi, lo), one);
      __m256i y1;

      /* lb_xv_random_mod() as ((2a · magic) >> 32) >> shift: the same floor, and 2a fits 32
       * bits (the raw word with its low bit cleared) */
      q = _mm256_srlv_epi32 (mulhi_epu32 (_mm256_andnot_si256 (one, ry), lookup (&lmagic, m)),
                             lookup (&lshift, m));
      y1 = _mm256_add_epi32 (lo, _mm256_sub_epi32 (ay, _mm256_mullo_epi32 (q, m)));
      _mm256_storeu_si256 ((__m256i *) part[t],
                          _mm256_add_epi32 (_mm256_mullo_epi32 (_mm256_sub_epi32 (y1, e0), vw), x1));
      /* every 8 steps: the 8 × 8 block transposed into the lanes' arrays */
      if ((t & 7) == 7)
        transpose_store ((const guint32 (*)[LANES]) part + t - 7, parts, n_max, i0 + (gsize) t - 7,
                         n_lanes);
      base = _mm256_add_epi32 (base, one);
      if (x + 1 == w)
        {
          draws_advance (dr);
          vy = _mm256_loadu_si256 ((const __m256i *) dr->y);
        }
      else
        dr->x++;
    }
  return tn & ~7;
}

/* One instance per mode: the interior loop then has no test of the mode, and the registers
 * that the other mode's constants took hold this one's (fewer stack reloads). Same
 * operations: 0.95–0.97 of the time per pass, 1 and 2 threads (1.4 Mpx RGB8, medians of 61–81
 * interleaved pairs, both link orders). */
__attribute__ ((target ("avx2"))) static int
draws_block_avx2 (Draws               *dr,
                  const guint32      (*rnd)[LANES],
                  guint32            (*part)[LANES],
                  int                  tn,
                  guint32             *parts,
                  gsize                n_max,
                  gsize                i0,
                  int                  n_lanes)
{
  if (dr->st->rectangle)
    return draws_block_avx2_body (dr, rnd, part, tn, parts, n_max, i0, n_lanes, TRUE);
  return draws_block_avx2_body (dr, rnd, part, tn, parts, n_max, i0, n_lanes, FALSE);
}
#endif

/* The next @npix pixels of every lane: partner cells to parts[k · stride + i], i < npix. */
static void
band_draws (Draws           *dr,
            LbXvRandomLanes *rng,
            gboolean         avx2,
            int              n_lanes,
            guint32         *parts,
            gsize            stride,
            gsize            npix)
{
  guint32 part[BLOCK][LANES];

  for (gsize i0 = 0; i0 < npix; i0 += BLOCK)
    {
      int tn = (int) MIN ((gsize) BLOCK, npix - i0), moved = 0;
      const guint32 (*rnd)[LANES] = lb_xv_random_lanes_next (rng, 2 * (gsize) tn);

#ifdef HAVE_AVX2_PATHS
      if (avx2)
        moved = draws_block_avx2 (dr, rnd, part, tn, parts, stride, i0, n_lanes);
      else
#endif
        draws_block (dr, rnd, part, tn);
      for (int k = 0; k < n_lanes; k++)
        {
          guint32 *pk = parts + (gsize) k * stride + i0;

          for (int t = moved; t < tn; t++)
            pk[t] = part[t][k];
        }
    }
}

/* cells of slice @i up to image row @yb (from *done on) */
static void
slice_init (const LbSpread    *st,
            const LbKernelBuf *src,
            int                i,
            int               *done,
            int                yb)
{
  const Slice *sl = &st->slices[i];
  gsize cb = (gsize) lb_kbuf_color_channels (src) * (src->depth / 8);
  /* value cells where no earlier slice of the piece reaches (its first: everywhere), if a
   * pixel fits 31 bits */
  int vfrom = i == st->pfirst ? sl->e0 : sl->r0 + st->reach;

  if (cb > 3)
    vfrom = sl->e1;
  yb = MIN (yb, sl->e1);
  if (yb <= *done)
    return;
  switch (cb)
    {
    case 1: band_init (st, src, st->bufs[i], sl->e0, *done, yb, vfrom, 1); break;
    case 3: band_init (st, src, st->bufs[i], sl->e0, *done, yb, vfrom, 3); break;
    default: band_init (st, src, st->bufs[i], sl->e0, *done, yb, vfrom, cb); break;
    }
  *done = yb;
}

/* Rounds of chunk_rows() rows: every lane's partner cells for those rows, then each lane's swaps
 * for them (chunks in order keep raster order between chunks; the strips order the swaps
 * within one). */
void
lb_spread_process_band (const LbSpread    *st,
                        const LbKernelBuf *src,
                        int                b)
{
  int w = st->r.width, sy = st->r.y;
  int first, last, n_lanes, srows, chunk;
  gsize stride;
  guint32 *parts;
  LbXvRandomLanes *rng;
  Draws dr = { st, { 0 }, { 0 }, { 0 }, 0, 0 };
  int done[LANES];
  const Slice *sl;

  g_return_if_fail (b >= 0 && b < lb_spread_get_n_bands (st));
  g_return_if_fail (st->block != NULL);
  first = st->band_first[b];
  last = st->band_first[b + 1];
  n_lanes = last - first;
  sl = st->slices + first;
  srows = sl[0].r1 - sl[0].r0;
  for (int k = 0; k < LANES; k++)
    {
      /* an unused lane draws as if at the top row */
      dr.r0[k] = k < n_lanes ? sl[k].r0 - sy : 0;
      dr.e0[k] = k < n_lanes ? sl[k].e0 - sy : 0;
      dr.y[k] = dr.r0[k];
      done[k] = k < n_lanes ? sl[k].e0 : 0;
    }
  rng = g_new (LbXvRandomLanes, 1);
  lb_xv_random_lanes_seed (rng, st->seed, 2 * (guint64) dr.r0[0] * (guint64) w,
                           2 * (guint64) srows * (guint64) w);
  chunk = chunk_rows (st);
  stride = (gsize) MIN (chunk, srows) * w;
  /* each band owns its slices' cells and its partner buffer: bands may run concurrently */
  parts = st->parts[b];
  for (int row0 = 0; row0 < srows; row0 += chunk)
    {
      int rows = MIN (chunk, srows - row0);

      band_draws (&dr, rng, use_avx2 (st), n_lanes, parts, stride, (gsize) rows * w);
      for (int k = 0; k < n_lanes; k++)
        {
          int lrows = MIN (rows, sl[k].r1 - sl[k].r0 - row0);

          if (lrows <= 0)
            continue;
          /* the rows these swaps reach, just before they run (they stay in L2) */
          slice_init (st, src, first + k, &done[k], sl[k].r0 + row0 + lrows + st->reach);
          swap_cells (st->bufs[first + k], parts + (gsize) k * stride,
                      sl[k].r0 - sl[k].e0 + row0, lrows, w, (int) MIN (2 * (gint64) st->px + 1, w));
        }
    }
  for (int k = 0; k < n_lanes; k++)
    slice_init (st, src, first + k, &done[k], sl[k].e1);
  g_free (rng);
}

/* One pixel of the gather: cell @c of slice @top */
static G_ALWAYS_INLINE inline void
gather_pixel (const LbSpread    *st,
              const LbKernelBuf *src,
              guint8            *d,
              guint32            c,
              int                top,
              gsize              cb)
{
  const Slice *sl = st->slices;
  int w = st->r.width;

  if (G_LIKELY (!(c & TOKEN)))
    {
      store_value (d, c, cb);
      return;
    }
  /* a token: the content slice b's swaps found at position q, i.e. what the earlier slices
   * of the piece left there, or the pixel before the piece where none of them reaches */
  for (int b = top;;)
    {
      guint32 q = c & ~TOKEN;

      if (b > st->pfirst && q < sl[b - 1].phi)
        {
          b--;
          c = st->bufs[b][q - sl[b].plo];
          if (c & TOKEN)
            continue;
          store_value (d, c, cb);
        }
      else
        {
          gsize pb = (gsize) src->channels * (src->depth / 8);
          /* 2⁶⁴/1 does not fit: width 1 divides by itself */
          guint32 qy = w == 1 ? q : (guint32) (((unsigned __int128) st->wdiv * q) >> 64);
          guint32 qx = q - qy * (guint32) w;

          memcpy (d, state_row (st, src, st->r.y + (int) qy) + (gsize) qx * pb, cb);
        }
      return;
    }
}

static G_ALWAYS_INLINE inline void
gather_rows (const LbSpread    *st,
             const LbKernelBuf *src,
             LbKernelBuf       *dst,
             int                y0,
             int                y1,
             gsize              cb,
             gsize              pb)
{
  int w = st->r.width, sy = st->r.y;
  const Slice *sl = st->slices;
  gboolean avx2 = use_avx2 (st);

  y0 = MAX (y0, sy);
  y1 = MIN (y1, sy + st->r.height);
  for (int y = y0; y < y1; y++)
    {
      guint8 *d = lb_kbuf_row (dst, y) + (gsize) st->r.x * pb;
      /* the piece's last slice whose reach holds row y: its cells hold the row's content */
      int top = MIN (st->slice_of_row[MIN (y + st->reach, sy + st->r.height - 1) - sy], st->plast);
      const guint32 *cells = st->bufs[top] + ((gsize) (y - sy) * w - sl[top].plo);

      /* the source pixels under d: alpha stays where it is (the region of @dst holds nothing
       * yet, see LB_FILTER_FLAG_OVERWRITES) */
      const guint8 *s = lb_kbuf_row (src, y) + (gsize) st->r.x * pb;

      for (int x = 0; x < w;)
        {
          int xe;

#ifdef HAVE_AVX2_PATHS
          if (avx2 && avx2_layout (cb, pb))
            {
              gboolean prev = top > st->pfirst;
              int n = gather_runs[pb - 1] (d, s, cells + x, w - x, prev ? st->bufs[top - 1] : NULL,
                                           prev ? sl[top - 1].plo : 0, prev ? sl[top - 1].phi : 0);

              x += n;
              d += (gsize) n * pb;
              s += (gsize) n * pb;
            }
#endif
          /* pixel by pixel up to the next step of 8 */
          for (xe = MIN (w, x + 8); x < xe; x++, d += pb, s += pb)
            {
              gather_pixel (st, src, d, cells[x], top, cb);
              if (pb > cb)
                memcpy (d + cb, s + cb, pb - cb);
            }
        }
    }
}

/* The region's rows [y0, y1) of @src into @dst, every sample: what a spread that moves nothing
 * writes, and where the swaps in place start from. */
static void
copy_region_rows (const LbSpread    *st,
                  const LbKernelBuf *src,
                  LbKernelBuf       *dst,
                  int                y0,
                  int                y1)
{
  gsize pb = (gsize) src->channels * (src->depth / 8);

  if (src->data == dst->data)
    return;
  y0 = MAX (y0, st->r.y);
  y1 = MIN (y1, st->r.y + st->r.height);
  for (int y = y0; y < y1; y++)
    memcpy (lb_kbuf_row (dst, y) + (gsize) st->r.x * pb,
            lb_kbuf_row (src, y) + (gsize) st->r.x * pb, (gsize) st->r.width * pb);
}

void
lb_spread_gather (const LbSpread    *st,
                  const LbKernelBuf *src,
                  LbKernelBuf       *dst,
                  int                y0,
                  int                y1)
{
  gsize cb = (gsize) lb_kbuf_color_channels (dst) * (dst->depth / 8);
  gsize pb = (gsize) dst->channels * (dst->depth / 8);

  if (!st->active)
    {
      copy_region_rows (st, src, dst, y0, y1);
      return;
    }
  /* none for regions of more than 2³¹ − 1 pixels */
  g_return_if_fail (st->block != NULL);
  /* the rows the current piece writes */
  if (st->piece > 0)
    y0 = MAX (y0, st->slices[st->pfirst].e0);
  if (st->piece < st->n_pieces - 1)
    y1 = MIN (y1, st->slices[st->plast].e1);
  /* the layouts the filter must support, RGB16 and the rest */
  if (cb == 1 && pb == 1)
    gather_rows (st, src, dst, y0, y1, 1, 1);
  else if (cb == 2 && pb == 2)
    gather_rows (st, src, dst, y0, y1, 2, 2);
  else if (cb == 3 && pb == 3)
    gather_rows (st, src, dst, y0, y1, 3, 3);
  else if (cb == 3 && pb == 4)
    gather_rows (st, src, dst, y0, y1, 3, 4);
  else if (cb == 6 && pb == 6)
    gather_rows (st, src, dst, y0, y1, 6, 6);
  else
    gather_rows (st, src, dst, y0, y1, cb, pb);
}

void
lb_spread_process (const LbSpread    *st,
                   const LbKernelBuf *src,
                   LbKernelBuf       *dst,
                   int                y0,
                   int                y1)
{
  gsize cb = (gsize) lb_kbuf_color_channels (dst) * (dst->depth / 8);

  g_return_if_fail (y0 <= 0 && y1 >= dst->height);
  if (!st->active)
    {
      copy_region_rows (st, src, dst, y0, y1);
      return;
    }
  /* the banded form on one thread costs less than the swaps in place (its draws vectorise
   * across slices), where it fits (banded_fits) */
  if (st->n_slices > 1 && st->banded)
    for (int p = 0; p < st->n_pieces; p++)
      {
        int b0, b1, ya, yb;

        /* the state is the pass's working memory (lb-xvgeom.h), the current piece included */
        lb_spread_begin_piece ((LbSpread *) st, p, dst, &b0, &b1, &ya, &yb);
        for (int b = b0; b < b1; b++)
          lb_spread_process_band (st, src, b);
        lb_spread_gather (st, src, dst, ya, yb);
      }
  else
    {
      copy_region_rows (st, src, dst, y0, y1);
      spread_in_place (st, dst, cb);
    }
}
