/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-oil"

#include "lb-xv-oil.h"

#include <string.h>

#include "lb-error.h"

gboolean
lb_xv_oil_prepare (LbXvOil            *self,
                   const LbKernelBuf  *src,
                   const LbKernelRect *selection,
                   int                 size,
                   GError            **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (size != 0 && (size < 1 || size % 2 == 0 || size > 255))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "oil: the window size must be 0 (xv's 4×4 window) or odd between 1 and "
                   "255, not %d", size);
      return FALSE;
    }
  if (!_lb_xv_region_init (&self->region, src, selection, "oil", error))
    return FALSE;
  self->size = size;
  self->up = size == 0 ? 2 : size / 2;
  self->down = size == 0 ? 1 : size / 2;
  return TRUE;
}

/* The colour of the pixel at sample offset i as one number: channels packed 16 bits apart. */
LB_XV_INLINE guint64
colour_key (const guint8 *row, gsize i, int nc, const int depth)
{
  guint64 k = 0;

  for (int c = 0; c < nc; c++)
    k |= (guint64) lb_xv_get (row, i + c, depth) << (16 * c);
  return k;
}

LB_XV_INLINE void
copy_colour (const LbKernelBuf *src, int sx, int sy, guint8 *out, int x, const int depth)
{
  const int ch = src->channels, nc = lb_xv_colour_channels (ch);
  const guint8 *row = lb_xv_row (src, sy);

  for (int c = 0; c < nc; c++)
    lb_xv_put (out, (gsize) x * ch + c, lb_xv_get (row, (gsize) sx * ch + c, depth), depth);
}

LB_XV_INLINE void
oil_ref_rows (const LbXvOil     *self,
              const LbKernelBuf *src,
              LbKernelBuf       *dst,
              int                ya,
              int                yb,
              const int          depth)
{
  const LbXvRegion *R = &self->region;
  const int ch = src->channels;
  const int nc = lb_xv_colour_channels (ch);
  const int side = self->up + self->down + 1;
  g_autofree guint64 *keys = g_new (guint64, (gsize) side * side);
  g_autofree int *xs = g_new (int, (gsize) side * side);
  g_autofree int *ys = g_new (int, (gsize) side * side);

  for (int y = ya; y < yb; y++)
    {
      guint8 *out = lb_xv_row_mut (dst, y);

      for (int x = R->x0; x < R->x1; x++)
        {
          int n = 0, best = 0, best_count = 0;

          /* The window in raster order, clipped to the region. */
          for (int yy = MAX (R->y0, y - self->up); yy <= MIN (R->y1 - 1, y + self->down); yy++)
            for (int xx = MAX (R->x0, x - self->up); xx <= MIN (R->x1 - 1, x + self->down); xx++)
              {
                keys[n] = colour_key (lb_xv_row (src, yy), (gsize) xx * ch, nc, depth);
                xs[n] = xx;
                ys[n] = yy;
                n++;
              }
          /* Only a strictly larger count replaces the best: ties keep the earliest. */
          for (int i = 0; i < n; i++)
            {
              int count = 0;

              for (int j = 0; j < n; j++)
                count += keys[j] == keys[i];
              if (count > best_count)
                best_count = count, best = i;
            }
          copy_colour (src, xs[best], ys[best], out, x, depth);
        }
    }
}

void
lb_xv_oil_process_ref (const LbXvOil     *self,
                       const LbKernelBuf *src,
                       LbKernelBuf       *dst,
                       int                y0,
                       int                y1)
{
  g_return_if_fail (self != NULL && _lb_xv_same_geometry (src, dst));

  y0 = MAX (y0, self->region.y0);
  y1 = MIN (y1, self->region.y1);
  if (y0 >= y1)
    return;
  if (src->depth == 8)
    oil_ref_rows (self, src, dst, y0, y1, 8);
  else
    oil_ref_rows (self, src, dst, y0, y1, 16);
}

/* ---- optimised path ------------------------------------------------------------------- */

/* Four SSE-sized vectors make the 16 lanes: GCC lowers a 64-byte generic vector to scalar
 * code on plain x86-64, but maps 16-byte ones straight onto SSE2. */
typedef guint32 OilVec __attribute__ ((vector_size (16)));

/* A 32-bit key no colour can have: 24-bit RGB8 and 16-bit gray keys stay below 2^24. */
#define OIL_PAD(lane) (0xff000000u | (guint32) (lane))

/* Ring of packed key rows: key row yy lives at slot yy % nrows. */
typedef struct {
  guint32 *keys;
  int nrows;
  int rw;
} KeyRing;

static inline const guint32 *
ring_row (const KeyRing *ring, int yy)
{
  return ring->keys + (gsize) (yy % ring->nrows) * ring->rw;
}

LB_XV_INLINE void
ring_fill (KeyRing *ring, const LbKernelBuf *src, const LbXvRegion *R, int yy, const int depth)
{
  const int ch = src->channels, nc = lb_xv_colour_channels (ch);
  const guint8 *row = lb_xv_row (src, yy) + (gsize) R->x0 * ch * (depth / 8);
  guint32 *k = ring->keys + (gsize) (yy % ring->nrows) * ring->rw;

  if (nc == 3)
    for (int j = 0; j < ring->rw; j++)
      k[j] = lb_xv_get (row, (gsize) j * ch, depth) | lb_xv_get (row, (gsize) j * ch + 1, depth) << 8
             | lb_xv_get (row, (gsize) j * ch + 2, depth) << 16;
  else
    for (int j = 0; j < ring->rw; j++)
      k[j] = lb_xv_get (row, (gsize) j * ch, depth);
}

/* Mode of the window columns [jx0, jx1] × rows [wy0, wy1] (region-relative columns) by the
 * all-pairs count; returns the winning column and row. */
/* Mode of the window columns [jx0, jx1] of the key rows kr[0..nrows-1] (region-relative
 * columns, at most 16 pixels) by counting all pairs at once; returns the winning pixel's
 * index in raster order of the window. */
static inline int
mode_small (const guint32 *const *kr, int nrows, int jx0, int jx1)
{
  guint32 lanes[16] __attribute__ ((aligned (16)));
  gint32 counts[16] __attribute__ ((aligned (16)));
  OilVec v[4], cnt[4] = { { 0 } };
  gint32 best_key = G_MININT32;
  int n = 0;

  for (int k = 0; k < nrows; k++)
    for (int j = jx0; j <= jx1; j++)
      lanes[n++] = kr[k][j];
  for (int i = n; i < 16; i++)
    lanes[i] = OIL_PAD (i);
  memcpy (v, lanes, sizeof v);
  for (int i = 0; i < n; i++)
    {
      const OilVec b = { lanes[i], lanes[i], lanes[i], lanes[i] };

      for (int q = 0; q < 4; q++)
        cnt[q] += (OilVec) (v[q] == b);
    }
  memcpy (counts, cnt, sizeof counts);
  /* counts[i] is minus the count of lane i (a true comparison is all ones). The key
   * count·16 + (15 − i) is largest for the highest count and, among equal counts, the
   * earliest lane; padding lanes are excluded. */
  for (int i = 0; i < n; i++)
    {
      const gint32 key = -counts[i] * 16 + (15 - i);
      best_key = key > best_key ? key : best_key;
    }
  return 15 - (best_key & 15);
}

/* xv's 4×4 window on rows whose four window rows are all in the region: column vectors.
 *
 * A window column is one 4-lane vector (its four rows). For two columns P and Q the four
 * compares (Q == rotate_r(P)), r = 0..3, cover all 16 pairs; their sum counts, for each lane
 * of Q, the equal keys in P, and the same masks rotated back count, for each lane of P, the
 * equal keys in Q. Each column entering the window is paired with itself and its three left
 * neighbours once; the count of any window lane is then four vector adds. The winner is the
 * lane with the highest count, ties to the earliest in raster order (row-major). */
typedef struct {
  OilVec self;   /* counts within the column itself (each lane counts itself) */
  OilVec left[4];  /* left[d]: counts of this column's lanes in column x − d (d = 1..3) */
  OilVec right[4]; /* right[d]: counts of this column's lanes in column x + d */
} OilColumn;

static inline OilVec
rot (OilVec v, int r)
{
  switch (r)
    {
    case 1: return __builtin_shuffle (v, (OilVec) { 1, 2, 3, 0 });
    case 2: return __builtin_shuffle (v, (OilVec) { 2, 3, 0, 1 });
    case 3: return __builtin_shuffle (v, (OilVec) { 3, 0, 1, 2 });
    default: return v;
    }
}

typedef gint32 OilKeyVec __attribute__ ((vector_size (16)));

static inline OilKeyVec
vmax (OilKeyVec a, OilKeyVec b)
{
  /* SSE2 has no 32-bit max; a compare and a select. */
  const OilKeyVec m = (OilKeyVec) (a > b);

  return (a & m) | (b & ~m);
}

/* One column x of oil_xv_row_columns, in ring slot @s = x % 4 (a constant at each call site,
 * so the ring's slots are fixed offsets). */
LB_XV_INLINE void
oil_xv_column (const guint32 *const kr[4], int x, OilColumn *cols, OilVec *colv,
               guint16 *best_lane, const int s)
{
  const OilVec cx = { kr[0][x], kr[1][x], kr[2][x], kr[3][x] };
  OilVec self = { 0, 0, 0, 0 };

  colv[s] = cx;
  for (int r = 0; r < 4; r++)
    self += (OilVec) (cx == rot (cx, r));
  cols[s].self = self;
  for (int d = 1; d <= 3 && x - d >= 0; d++)
    {
      const OilVec cp = colv[(s - d) & 3];
      OilVec mine = { 0, 0, 0, 0 }, theirs = { 0, 0, 0, 0 };

      for (int r = 0; r < 4; r++)
        {
          /* m[k] = (cx[k] == cp[k + r]) */
          const OilVec m = (OilVec) (cx == rot (cp, r));
          mine += m;
          /* lane k of cp meets lane k − r of cx */
          theirs += rot (m, (4 - r) & 3);
        }
      cols[s].left[d] = mine;
      cols[(s - d) & 3].right[d] = theirs;
    }

  /* The window whose last column is x: columns x − 3 .. x, output column x − 1. */
  if (x >= 3)
    {
      const OilColumn *a = &cols[(s + 1) & 3], *b = &cols[(s + 2) & 3], *c = &cols[(s + 3) & 3],
                      *e = &cols[s];
      /* Counts are negative (a true compare is all ones). The key −count·16 + (15 − i),
       * i = 4·row + column the raster index, is largest for the highest count and, among
       * equal counts, the earliest pixel. */
      const OilKeyVec k0 = -((OilKeyVec) (a->self + a->right[1] + a->right[2] + a->right[3]) << 4)
                           + (OilKeyVec) { 15, 11, 7, 3 };
      const OilKeyVec k1 = -((OilKeyVec) (b->self + b->left[1] + b->right[1] + b->right[2]) << 4)
                           + (OilKeyVec) { 14, 10, 6, 2 };
      const OilKeyVec k2 = -((OilKeyVec) (c->self + c->left[2] + c->left[1] + c->right[1]) << 4)
                           + (OilKeyVec) { 13, 9, 5, 1 };
      const OilKeyVec k3 = -((OilKeyVec) (e->self + e->left[3] + e->left[2] + e->left[1]) << 4)
                           + (OilKeyVec) { 12, 8, 4, 0 };
      OilKeyVec m = vmax (vmax (k0, k1), vmax (k2, k3));

      m = vmax (m, __builtin_shuffle (m, (OilKeyVec) { 2, 3, 0, 1 }));
      m = vmax (m, __builtin_shuffle (m, (OilKeyVec) { 1, 0, 3, 2 }));
      best_lane[x - 1] = (guint16) (15 - (m[0] & 15));
    }
}

static void
oil_xv_row_columns (const guint32 *const kr[4], int rw, guint16 *best_lane)
{
  /* Column x lives in ring slot x % 4: a window needs only its four columns. The ring (576
   * bytes) stays in L1, where arrays of 144 bytes per image column (200 KB a row at 1400 px)
   * were streamed through L2 by every row. Unrolled by 4 so each slot is a fixed offset. */
  OilColumn cols[4];
  OilVec colv[4];
  int x = 0;

  for (; x + 4 <= rw; x += 4)
    {
      oil_xv_column (kr, x, cols, colv, best_lane, 0);
      oil_xv_column (kr, x + 1, cols, colv, best_lane, 1);
      oil_xv_column (kr, x + 2, cols, colv, best_lane, 2);
      oil_xv_column (kr, x + 3, cols, colv, best_lane, 3);
    }
  if (x < rw)
    oil_xv_column (kr, x, cols, colv, best_lane, 0);
  if (x + 1 < rw)
    oil_xv_column (kr, x + 1, cols, colv, best_lane, 1);
  if (x + 2 < rw)
    oil_xv_column (kr, x + 2, cols, colv, best_lane, 2);
}

/* Incremental colour count for windows above 16 pixels, slid along a row one window column
 * in and one out per pixel. Two kinds of table:
 *  - direct (one colour channel, so keys < 2^depth): count[key], no hashing;
 *  - hashed (RGB keys of 24 bits): open addressing (linear probing, backward-shift deletion)
 *    from key to count.
 * Both keep per count the number of colours having it, so the top count is known at once, and
 * the set of colours having the top count (up to TOP_MAX of them) as a list of keys, kept up
 * to date by the updates and rebuilt only when the top count drops. The answer, the first
 * window pixel in raster order whose colour has the top count, is then a scan of the window
 * rows comparing keys with that short list (a few vector compares per 8 pixels) instead of a
 * table look-up per pixel, which cost O(n²) per output pixel. */
#define TOP_MAX 8

typedef struct {
  guint32 key;
  guint32 count;
} OilSlot;

typedef struct {
  gboolean direct;
  /* direct */
  guint16 *dcount;   /* [2^depth]; a window holds at most 255² < 2^16 pixels */
  /* hashed: key and count side by side, so a probe touches one cache line */
  OilSlot *slot;     /* count 0 = empty slot */
  guint32 mask;
  int shift;         /* 32 − log2 (slots): the product's top bits pick the slot */
  /* both */
  guint32 *ncolours; /* ncolours[c] = colours with count c (c ≥ 2 only) */
  guint32 top;
  guint32 tk[TOP_MAX]; /* the colours with count top, when tvalid */
  int tn;
  gboolean tvalid;
} CountTable;

static inline guint32
slot_of (const CountTable *t, guint32 key)
{
  /* Fibonacci hashing takes the product's top bits: its low bits depend only on the key's
   * low bits, so colours differing only in blue would share a slot. */
  return (key * 2654435761u) >> t->shift;
}

/* A colour's count went up to c. Counts 0 and 1 are not counted per count: with top = 1 the
 * winner is the window's first pixel whatever the colours, and the top never falls below 1
 * within a row (a column leaves only with another one still in the window), so transitions
 * 0 ↔ 1, the most frequent on continuous-tone images, touch no shared counter (a read-
 * modify-write of the same ncolours entry at every update made one long dependency chain). */
static inline void
top_after_add (CountTable *t, guint32 key, guint32 c)
{
  if (c < 2)
    {
      if (t->top == 0)
        t->top = 1;
      return;
    }
  if (c >= 3)
    t->ncolours[c - 1]--;
  t->ncolours[c]++;
  if (c > t->top)
    {
      t->top = c;
      t->tk[0] = key;
      t->tn = 1;
      t->tvalid = TRUE;
    }
  else if (c == t->top && t->tvalid)
    {
      if (t->tn < TOP_MAX)
        t->tk[t->tn++] = key;
      else
        t->tvalid = FALSE;
    }
}

/* A colour's count is about to go down from c. */
static inline void
top_before_remove (CountTable *t, guint32 key, guint32 c)
{
  if (c < 2)
    return;
  t->ncolours[c]--;
  if (c >= 3)
    t->ncolours[c - 1]++;
  if (c != t->top)
    return;
  if (t->ncolours[c] == 0)
    {
      /* The new top's colours are unknown here: rebuilt when needed. */
      t->top--;
      t->tvalid = FALSE;
    }
  else if (t->tvalid)
    for (int i = 0; i < t->tn; i++)
      if (t->tk[i] == key)
        {
          t->tk[i] = t->tk[--t->tn];
          break;
        }
}

static inline void
table_add (CountTable *t, guint32 key)
{
  guint32 i;

  if (t->direct)
    {
      top_after_add (t, key, ++t->dcount[key]);
      return;
    }
  i = slot_of (t, key);
  while (t->slot[i].count != 0 && t->slot[i].key != key)
    i = (i + 1) & t->mask;
  t->slot[i].key = key;
  top_after_add (t, key, ++t->slot[i].count);
}

static inline void
table_remove (CountTable *t, guint32 key)
{
  guint32 i;

  if (t->direct)
    {
      top_before_remove (t, key, t->dcount[key]--);
      return;
    }
  i = slot_of (t, key);
  while (t->slot[i].key != key || t->slot[i].count == 0)
    i = (i + 1) & t->mask;
  top_before_remove (t, key, t->slot[i].count);
  t->slot[i].count--;
  if (t->slot[i].count > 0)
    return;
  /* Backward-shift deletion keeps every probe chain unbroken. */
  for (guint32 j = (i + 1) & t->mask; t->slot[j].count != 0; j = (j + 1) & t->mask)
    {
      const guint32 home = slot_of (t, t->slot[j].key);
      /* Move j into the hole i unless its home lies cyclically in (i, j]. */
      const gboolean stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);

      if (!stays)
        {
          t->slot[i].key = t->slot[j].key;
          t->slot[i].count = t->slot[j].count;
          t->slot[j].count = 0;
          i = j;
        }
    }
}

static inline guint32
table_count (const CountTable *t, guint32 key)
{
  guint32 i;

  if (t->direct)
    return t->dcount[key];
  i = slot_of (t, key);
  while (t->slot[i].count != 0 && t->slot[i].key != key)
    i = (i + 1) & t->mask;
  return t->slot[i].count;
}

/* Index of the first of k[0..n-1] that is one of set[0..ns-1], or −1. */
static int
find_first_of (const guint32 *k, int n, const guint32 *set, int ns)
{
  int j = 0;

  for (; j + 8 <= n; j += 8)
    {
      OilVec a, b, ma = { 0, 0, 0, 0 }, mb = { 0, 0, 0, 0 }, m;

      memcpy (&a, k + j, sizeof a);
      memcpy (&b, k + j + 4, sizeof b);
      for (int s = 0; s < ns; s++)
        {
          const OilVec v = { set[s], set[s], set[s], set[s] };

          ma |= (OilVec) (a == v);
          mb |= (OilVec) (b == v);
        }
      m = ma | mb;
      if ((m[0] | m[1] | m[2] | m[3]) != 0)
        {
          for (int l = 0; l < 4; l++)
            if (ma[l])
              return j + l;
          for (int l = 0; l < 4; l++)
            if (mb[l])
              return j + 4 + l;
        }
    }
  for (; j < n; j++)
    for (int s = 0; s < ns; s++)
      if (k[j] == set[s])
        return j;
  return -1;
}

/* The list of colours with the top count, when there are at most TOP_MAX of them and the
 * list is stale (the top dropped, or it overflowed earlier). */
static void
table_rebuild_top (CountTable *t, const KeyRing *ring, int wy0, int wy1, int jx0, int jx1)
{
  t->tn = 0;
  if (t->direct)
    {
      /* The colours are among the window's pixels; stop once all are found. */
      for (int yy = wy0; yy <= wy1 && (guint32) t->tn < t->ncolours[t->top]; yy++)
        {
          const guint32 *k = ring_row (ring, yy);

          for (int jj = jx0; jj <= jx1; jj++)
            if (t->dcount[k[jj]] == t->top)
              {
                gboolean seen = FALSE;

                for (int i = 0; i < t->tn; i++)
                  seen |= t->tk[i] == k[jj];
                if (!seen)
                  {
                    t->tk[t->tn++] = k[jj];
                    if ((guint32) t->tn == t->ncolours[t->top])
                      break;
                  }
              }
        }
    }
  else
    for (guint32 i = 0; i <= t->mask; i++)
      if (t->slot[i].count == t->top)
        t->tk[t->tn++] = t->slot[i].key;
  t->tvalid = TRUE;
}

/* The first window pixel in raster order whose colour has the top count. */
static void
table_winner (CountTable *t, const KeyRing *ring, int wy0, int wy1, int jx0, int jx1, int *bj,
              int *by)
{
  *bj = jx0, *by = wy0;
  if (t->top <= 1)
    return;
  if (t->ncolours[t->top] <= TOP_MAX)
    {
      if (!t->tvalid)
        table_rebuild_top (t, ring, wy0, wy1, jx0, jx1);
      for (int yy = wy0; yy <= wy1; yy++)
        {
          const int found = find_first_of (ring_row (ring, yy) + jx0, jx1 - jx0 + 1, t->tk,
                                           t->tn);

          if (found >= 0)
            {
              *bj = jx0 + found, *by = yy;
              return;
            }
        }
      g_assert_not_reached ();
    }
  /* Many colours share the top count: a look-up per pixel finds one soon. */
  for (int yy = wy0; yy <= wy1; yy++)
    {
      const guint32 *k = ring_row (ring, yy);

      for (int jj = jx0; jj <= jx1; jj++)
        if (table_count (t, k[jj]) == t->top)
          {
            *bj = jj, *by = yy;
            return;
          }
    }
  g_assert_not_reached ();
}

LB_XV_INLINE void
oil_fast_rows (const LbXvOil     *self,
               const LbKernelBuf *src,
               LbKernelBuf       *dst,
               int                ya,
               int                yb,
               const int          depth)
{
  const LbXvRegion *R = &self->region;
  const int rw = R->x1 - R->x0;
  const int side = self->up + self->down + 1;
  const gboolean small = side * side <= 16;
  KeyRing ring = { NULL, side, rw };
  CountTable t = { 0 };
  g_autofree guint32 *ring_keys = NULL;
  g_autofree OilSlot *tslots = NULL;
  g_autofree guint32 *tncol = NULL;
  g_autofree guint16 *tdirect = NULL;
  g_autofree const guint32 **wr = g_new0 (const guint32 *, side);
  int nwr = 0;
  int filled = -1; /* last key row filled into the ring */
  /* xv's window (2 up/left, 1 down/right) has the column-vector path. */
  const gboolean xv_columns = self->up == 2 && self->down == 1;
  g_autofree guint16 *best_lane = NULL;

  ring_keys = g_new (guint32, (gsize) side * rw);
  if (xv_columns)
    best_lane = g_new (guint16, rw);
  ring.keys = ring_keys;
  if (!small)
    {
      tncol = g_new0 (guint32, (gsize) side * side + 1);
      t.ncolours = tncol;
      if (lb_xv_colour_channels (src->channels) == 1)
        {
          t.direct = TRUE;
          tdirect = g_new0 (guint16, (gsize) 1 << depth);
          t.dcount = tdirect;
        }
      else
        {
          guint32 size = 1;

          /* At most a quarter full: short probe chains. */
          while (size < 4u * (guint32) side * (guint32) side)
            size <<= 1;
          tslots = g_new0 (OilSlot, size);
          t.slot = tslots, t.mask = size - 1;
          t.shift = 32 - g_bit_storage (size - 1);
        }
    }

  for (int y = ya; y < yb; y++)
    {
      const int wy0 = MAX (R->y0, y - self->up), wy1 = MIN (R->y1 - 1, y + self->down);
      guint8 *out = lb_xv_row_mut (dst, y);

      for (int yy = MAX (wy0, filled + 1); yy <= wy1; yy++)
        ring_fill (&ring, src, R, yy, depth);
      filled = wy1;

      if (small)
        {
          const guint32 *kr[16];
          const int nrows = wy1 - wy0 + 1;

          for (int k = 0; k < nrows; k++)
            kr[k] = ring_row (&ring, wy0 + k);
          if (xv_columns && nrows == 4 && rw >= 4)
            {
              /* Unclipped windows (columns 2 .. rw − 2) by column vectors. */
              oil_xv_row_columns (kr, rw, best_lane);
              for (int j = 2; j <= rw - 2; j++)
                {
                  const int best = best_lane[j];
                  copy_colour (src, R->x0 + j - 2 + best % 4, wy0 + best / 4, out, R->x0 + j,
                               depth);
                }
            }
          for (int j = 0; j < rw; j++)
            {
              if (xv_columns && nrows == 4 && rw >= 4 && j == 2)
                j = rw - 1;
              const int jx0 = MAX (0, j - self->up), jx1 = MIN (rw - 1, j + self->down);
              const int best = mode_small (kr, nrows, jx0, jx1);
              const int wcols = jx1 - jx0 + 1;

              copy_colour (src, R->x0 + jx0 + best % wcols, wy0 + best / wcols, out, R->x0 + j,
                           depth);
            }
          continue;
        }

      /* Slide the count table along the row; it is empty here. wr: the window's key rows
       * (the ring's modulo once per row, not per sample). */
      nwr = wy1 - wy0 + 1;
      for (int k = 0; k < nwr; k++)
        wr[k] = ring_row (&ring, wy0 + k);
      t.top = 0;
      t.tn = 0;
      t.tvalid = TRUE;
      for (int j = 0; j <= MIN (rw - 1, self->down); j++)
        for (int k = 0; k < nwr; k++)
          table_add (&t, wr[k][j]);

      for (int j = 0; j < rw; j++)
        {
          const int jx0 = MAX (0, j - self->up), jx1 = MIN (rw - 1, j + self->down);
          int bj, by;

          table_winner (&t, &ring, wy0, wy1, jx0, jx1, &bj, &by);
          copy_colour (src, R->x0 + bj, by, out, R->x0 + j, depth);

          if (j + 1 < rw)
            {
              if (j - self->up >= 0)
                for (int k = 0; k < nwr; k++)
                  table_remove (&t, wr[k][j - self->up]);
              if (j + 1 + self->down < rw)
                for (int k = 0; k < nwr; k++)
                  table_add (&t, wr[k][j + 1 + self->down]);
            }
        }
      /* Empty the table for the next row: remove the last window (cheaper than clearing a
       * direct table of 2^16 counts). */
      for (int j = MAX (0, rw - 1 - self->up); j < rw; j++)
        for (int k = 0; k < nwr; k++)
          table_remove (&t, wr[k][j]);
    }
}

void
lb_xv_oil_process (const LbXvOil     *self,
                   const LbKernelBuf *src,
                   LbKernelBuf       *dst,
                   int                y0,
                   int                y1)
{
  g_return_if_fail (self != NULL && _lb_xv_same_geometry (src, dst));

  y0 = MAX (y0, self->region.y0);
  y1 = MIN (y1, self->region.y1);
  if (y0 >= y1)
    return;
  if (src->depth == 8)
    oil_fast_rows (self, src, dst, y0, y1, 8);
  else if (lb_xv_colour_channels (src->channels) == 1)
    oil_fast_rows (self, src, dst, y0, y1, 16);
  else
    lb_xv_oil_process_ref (self, src, dst, y0, y1);
}
