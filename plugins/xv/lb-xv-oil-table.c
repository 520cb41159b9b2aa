/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-xv-oil"

/* xv's oil on windows above 16 pixels: a count table slid along the row (below). */

#include "lb-xv-oil-private.h"

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

typedef struct _CountTable {
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
  /* changes whenever the top count (from 2 up) or the set of colours having it changes
   * (table_winner's cache; with a top of 0 or 1 the answer needs no table) */
  guint32 tver;
  /* the window's key rows, for one output row */
  const guint32 **wr;
} CountTable;

static inline guint32
slot_hash (guint32 key, int shift)
{
  /* Fibonacci hashing takes the product's top bits: its low bits depend only on the key's
   * low bits, so colours differing only in blue would share a slot. */
  return (key * 2654435761u) >> shift;
}

static inline guint32
slot_of (const CountTable *t, guint32 key)
{
  return slot_hash (key, t->shift);
}

/* The table as the updates use it, in a local: its pointers and its top-count state as plain
 * scalars. The project builds with -fno-strict-aliasing, so through a CountTable in memory
 * every count store made GCC store the top and list length and reload them and the table's
 * pointers at each update; a local whose address only reaches inlined functions stays in
 * registers (kernels-a-timing, 1400×1000, 1 thread, corrected oil 15 and 31, two runs each:
 * RGB8 188–189 and 386–408 ms → 171–174 and 353–366, GRAY16 108–109 and 224–228 → 88–94 and
 * 182–209). */
typedef struct {
  gboolean direct;
  guint16 *dcount;
  OilSlot *slot;
  guint32 mask;
  int shift;
  guint32 *ncolours;
  guint32 *tk;
  guint32 top;
  int tn;
  gboolean tvalid;
  guint32 tver;
} TableRegs;

static inline TableRegs
table_regs (CountTable *t)
{
  const TableRegs r = { t->direct, t->dcount, t->slot, t->mask, t->shift, t->ncolours, t->tk,
                        t->top, t->tn, t->tvalid, t->tver };

  return r;
}

static inline void
table_regs_store (CountTable *t, const TableRegs *r)
{
  t->top = r->top;
  t->tn = r->tn;
  t->tvalid = r->tvalid;
  t->tver = r->tver;
}

static inline guint32
slot_of_regs (const TableRegs *r, guint32 key)
{
  return slot_hash (key, r->shift);
}

/* A colour's count went up to c. Counts 0 and 1 need not be counted per count: with top = 1
 * the winner is the window's first pixel whatever the colours, and the top never falls below
 * 1 within a row (a column leaves only with another one still in the window); ncolours[0]
 * and [1] are never read. Two ways, the same counts from 2 up (the slide picks one per step
 * by the top so far, see table_slide):
 *  - !@dense (nearly every colour once: noise, or fine 16-bit data): transitions 0 ↔ 1
 *    touch no shared counter (a read-modify-write of the same ncolours entry at every update
 *    made one long dependency chain), at the price of a branch on c < 2;
 *  - @dense (top ≥ OIL_DENSE_TOP, colours repeated: gradients, photographs, few levels):
 *    every update moves its colour from count c − 1 to c without asking, so the only branch,
 *    c < top, is mostly not taken, where the branch on c < 2 went either way at random.
 * 1400×1000, 1 thread, a driver outside the tree, alternating builds, always !dense → dense
 * from top 3: RGB8 gradient with 2 bits of noise, side 7 179–180 → 132–134 ms, 9 245–249 →
 * 137–145, 15 381–386 → 167–172; the same as GRAY16 (8-bit levels), side 5 170 → 106, 9 240 →
 * 124, 15 267–270 → 133–135; noise unchanged (top ≤ 1). From top 2 instead, the GRAY16 test
 * card (mostly single values, a few repeats) lost: side 15 84 → 103 ms; and the dense form
 * alone made RGB8 noise side 9 36 → 47 ms, 15 49–51 → 70–73. */
static inline __attribute__ ((always_inline)) void
top_after_add (TableRegs *t, guint32 key, guint32 c, const gboolean dense)
{
  if (dense)
    {
      t->ncolours[c - 1]--;
      t->ncolours[c]++;
      if (G_LIKELY (c < t->top))
        return;
      if (c < 2)
        {
          t->top = 1;
          return;
        }
    }
  else
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
    }
  if (c >= t->top)
    t->tver++;
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

/* A colour's count is about to go down from c (@dense: as top_after_add). */
static inline __attribute__ ((always_inline)) void
top_before_remove (TableRegs *t, guint32 key, guint32 c, const gboolean dense)
{
  if (dense)
    {
      t->ncolours[c]--;
      t->ncolours[c - 1]++;
      if (G_LIKELY (c != t->top) || c < 2)
        return;
    }
  else
    {
      if (c < 2)
        return;
      t->ncolours[c]--;
      if (c >= 3)
        t->ncolours[c - 1]++;
      if (c != t->top)
        return;
    }
  t->tver++;
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

static inline __attribute__ ((always_inline)) void
regs_add (TableRegs *t, guint32 key, const gboolean direct, const gboolean dense)
{
  guint32 i;

  if (direct)
    {
      top_after_add (t, key, ++t->dcount[key], dense);
      return;
    }
  i = slot_of_regs (t, key);
  while (t->slot[i].count != 0 && t->slot[i].key != key)
    i = (i + 1) & t->mask;
  t->slot[i].key = key;
  top_after_add (t, key, ++t->slot[i].count, dense);
}

static inline __attribute__ ((always_inline)) void
regs_remove (TableRegs *t, guint32 key, const gboolean direct, const gboolean dense)
{
  guint32 i;

  if (direct)
    {
      top_before_remove (t, key, t->dcount[key]--, dense);
      return;
    }
  i = slot_of_regs (t, key);
  while (t->slot[i].key != key || t->slot[i].count == 0)
    i = (i + 1) & t->mask;
  top_before_remove (t, key, t->slot[i].count, dense);
  t->slot[i].count--;
  if (t->slot[i].count > 0)
    return;
  /* Backward-shift deletion keeps every probe chain unbroken. */
  for (guint32 j = (i + 1) & t->mask; t->slot[j].count != 0; j = (j + 1) & t->mask)
    {
      const guint32 home = slot_of_regs (t, t->slot[j].key);
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

/* The pixels of window columns [@j0, @j1] of the key rows wr[0 .. nwr − 1] enter (@add) or
 * leave the table. */
static inline void
table_columns (CountTable *t, const guint32 *const *wr, int nwr, int j0, int j1, gboolean add)
{
  TableRegs r = table_regs (t);

  for (int j = j0; j <= j1; j++)
    for (int k = 0; k < nwr; k++)
      {
        if (add)
          regs_add (&r, wr[k][j], r.direct, FALSE);
        else
          regs_remove (&r, wr[k][j], r.direct, FALSE);
      }
  table_regs_store (t, &r);
}

/* One slide step: the pixels of window column @jout (if ≥ 0) of the key rows wr[0 .. nwr − 1]
 * leave, then those of column @jin (if ≥ 0) enter; @direct is t->direct, a constant at each
 * call site. The updates take top_after_add's dense form while the top is OIL_DENSE_TOP or
 * more; both forms keep the same counts from 2 up, so the choice changes no output. */
#ifndef OIL_DENSE_TOP
#define OIL_DENSE_TOP 3
#endif

static inline __attribute__ ((always_inline)) void
table_slide_body (TableRegs *r, const guint32 *const *wr, int nwr, int jout, int jin,
                  const gboolean direct, const gboolean dense)
{
  if (jout >= 0)
    for (int k = 0; k < nwr; k++)
      regs_remove (r, wr[k][jout], direct, dense);
  if (jin >= 0)
    for (int k = 0; k < nwr; k++)
      regs_add (r, wr[k][jin], direct, dense);
}

static inline __attribute__ ((always_inline)) void
table_slide (CountTable *t, const guint32 *const *wr, int nwr, int jout, int jin,
             const gboolean direct)
{
  TableRegs r = table_regs (t);

  if (r.top >= OIL_DENSE_TOP)
    table_slide_body (&r, wr, nwr, jout, jin, direct, TRUE);
  else
    table_slide_body (&r, wr, nwr, jout, jin, direct, FALSE);
  table_regs_store (t, &r);
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
    {
      /* Four slots (key, count pairs) per two vector compares, stopping once all are found:
       * the table has 4 slots per window pixel (4096 at radius 15), and a slot-by-slot scan
       * at every drop of the top count was half of table_winner's time at radius 15. Slots
       * are a power of two, at least 4 (a window has at least 1 pixel). */
      const guint32 *w = (const guint32 *) (const void *) t->slot;
      const OilVec top = { t->top, t->top, t->top, t->top }, odd = { 0, ~0u, 0, ~0u };

      for (guint32 i = 0; i <= t->mask && (guint32) t->tn < t->ncolours[t->top]; i += 4)
        {
          OilVec a, b;

          memcpy (&a, w + 2 * i, sizeof a);
          memcpy (&b, w + 2 * i + 4, sizeof b);
          a = (OilVec) ((a == top) | (b == top)) & odd;
          if ((a[1] | a[3]) != 0)
            for (guint32 j = i; j < i + 4; j++)
              if (t->slot[j].count == t->top)
                t->tk[t->tn++] = t->slot[j].key;
        }
    }
  t->tvalid = TRUE;
}

static void table_winner_scan (CountTable *t, const KeyRing *ring, int wy0, int wy1, int jx0,
                               int jx1, int *bj, int *by);

/* The last answer of table_winner along a row. While the top count and the set of colours
 * having it stay the same (tver), the answer stays the same: a pixel that entered the window
 * since with a top colour would have changed that set (its colour's count reached the top),
 * and so would the answer's pixel leaving (its colour's count fell from the top). The scan
 * for the first top pixel had been about a third of the time at 31×31 on the test card
 * (kernels-a-timing, 1 thread, with TableRegs, two runs: RGB8 oil 15 171–174 → 131–139 ms,
 * 31 353–366 → 251–263; GRAY16 15 88–94 → 84–89, 31 182–209 → 174–177). */
typedef struct {
  gboolean valid;
  guint32 ver;
  int bj, by;
} WinnerCache;

/* The first window pixel in raster order whose colour has the top count. */
static void
table_winner (CountTable *t, const KeyRing *ring, int wy0, int wy1, int jx0, int jx1, int *bj,
              int *by, WinnerCache *cache)
{
  *bj = jx0, *by = wy0;
  if (t->top <= 1)
    {
      cache->valid = FALSE;
      return;
    }
  /* (bj ≥ jx0 follows from tver; checked all the same, so that no stale answer can ever lie
   * outside the window) */
  if (cache->valid && cache->ver == t->tver && cache->bj >= jx0)
    {
      *bj = cache->bj, *by = cache->by;
      return;
    }
  table_winner_scan (t, ring, wy0, wy1, jx0, jx1, bj, by);
  *cache = (WinnerCache) { TRUE, t->tver, *bj, *by };
}

/* table_winner without its cache: a scan of the window in raster order. */
static void
table_winner_scan (CountTable *t, const KeyRing *ring, int wy0, int wy1, int jx0, int jx1,
                   int *bj, int *by)
{
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

/* A band's count table for windows of @side rows: a direct one over keys 0 .. @direct_size − 1,
 * or with @direct_size 0 a hashed one (RGB keys). */
CountTable *
_lb_xv_oil_table_new (int side, gsize direct_size)
{
  CountTable *t = g_new0 (CountTable, 1);

  t->ncolours = g_new0 (guint32, (gsize) side * side + 1);
  t->wr = g_new0 (const guint32 *, side);
  if (direct_size > 0)
    {
      t->direct = TRUE;
      t->dcount = g_new0 (guint16, direct_size);
    }
  else
    {
      guint32 size = 1;

      /* At most a quarter full: short probe chains. */
      while (size < 4u * (guint32) side * (guint32) side)
        size <<= 1;
      t->slot = g_new0 (OilSlot, size);
      t->mask = size - 1;
      t->shift = 32 - g_bit_storage (size - 1);
    }
  return t;
}

void
_lb_xv_oil_table_free (CountTable *t)
{
  g_free (t->ncolours);
  g_free (t->wr);
  g_free (t->dcount);
  g_free (t->slot);
  g_free (t);
}

/* Output row @out on the key rows @wy0 .. @wy1 of @ring: the count table slid along the row;
 * it is empty before and after. */
LB_XV_INLINE void
oil_table_row (CountTable *t, const LbXvOil *self, const LbKernelBuf *src, const KeyRing *ring,
               guint8 *out, int wy0, int wy1, const int depth)
{
  const LbXvRegion *R = &self->region;
  const int rw = R->x1 - R->x0;
  const guint32 **wr = t->wr;
  /* (the table's build-up changes tver anyway once the top reaches 2) */
  WinnerCache cache = { FALSE, 0, 0, 0 };
  /* wr: the window's key rows (the ring's modulo once per row, not per sample). */
  const int nwr = wy1 - wy0 + 1;

  for (int k = 0; k < nwr; k++)
    wr[k] = ring_row (ring, wy0 + k);
  t->top = 0;
  t->tn = 0;
  t->tvalid = TRUE;
  table_columns (t, wr, nwr, 0, MIN (rw - 1, self->down), TRUE);

  for (int j = 0; j < rw; j++)
    {
      const int jx0 = MAX (0, j - self->up), jx1 = MIN (rw - 1, j + self->down);
      int bj, by;

      table_winner (t, ring, wy0, wy1, jx0, jx1, &bj, &by, &cache);
      copy_colour (src, R->x0 + bj, by, out, R->x0 + j, depth);

      if (j + 1 < rw)
        {
          const int jout = j - self->up >= 0 ? j - self->up : -1;
          const int jin = j + 1 + self->down < rw ? j + 1 + self->down : -1;

          if (t->direct)
            table_slide (t, wr, nwr, jout, jin, TRUE);
          else
            table_slide (t, wr, nwr, jout, jin, FALSE);
        }
    }
  /* Empty the table for the next row: remove the last window (cheaper than clearing a
   * direct table of 2^16 counts). */
  table_columns (t, wr, nwr, MAX (0, rw - 1 - self->up), rw - 1, FALSE);
}

/* One function per depth, each with its own inlining budget, as oil_fast_rows8 and
 * oil_fast_rows16 (lb-xv-oil.c) have: with both depths' loops in the entry, the
 * table path ran 6 % more instructions (callgrind, kernels-a-timing --quick "oil 9": oil
 * 4.96 G before the split, 5.26 G with one entry). */
static __attribute__ ((noinline)) void
oil_table_row8 (CountTable *t, const LbXvOil *self, const LbKernelBuf *src, const KeyRing *ring,
                guint8 *out, int wy0, int wy1)
{
  oil_table_row (t, self, src, ring, out, wy0, wy1, 8);
}

static __attribute__ ((noinline)) void
oil_table_row16 (CountTable *t, const LbXvOil *self, const LbKernelBuf *src, const KeyRing *ring,
                 guint8 *out, int wy0, int wy1)
{
  oil_table_row (t, self, src, ring, out, wy0, wy1, 16);
}

void
_lb_xv_oil_table_row (CountTable *t, const LbXvOil *self, const LbKernelBuf *src,
                      const KeyRing *ring, guint8 *out, int wy0, int wy1)
{
  if (src->depth == 8)
    oil_table_row8 (t, self, src, ring, out, wy0, wy1);
  else
    oil_table_row16 (t, self, src, ring, out, wy0, wy1);
}
