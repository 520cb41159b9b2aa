/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-band-guard"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lb-band-guard.h"
#include "lb-error.h"

struct _LbBandGuard {
  guint8 *map;        /* the whole mapping: a guard page, the rows, a guard page */
  gsize map_size;
  gsize page;
  guint8 *data;       /* row 0 */
  gsize stride;       /* a multiple of the page size */
  int height;
  /* the band now running, and the row a cancellation took effect from (-1: none) */
  volatile int y0, y1, cancel_row;
};

/* The guard the fault handler looks at; set while a guard exists. */
static LbBandGuard *volatile active;

static void
protect (LbBandGuard *self,
         int          y0,
         int          y1,
         int          prot)
{
  if (y1 > y0)
    (void) mprotect (self->data + (gsize) y0 * self->stride, (gsize) (y1 - y0) * self->stride,
                     prot);
}

LbBandGuard *
_lb_band_guard_new (int     height,
                    gsize   row_size,
                    GError **error)
{
  LbBandGuard *self;
  gsize page = (gsize) sysconf (_SC_PAGESIZE);
  gsize stride = (row_size + page - 1) / page * page;
  void *map;

  g_return_val_if_fail (height > 0 && row_size > 0, NULL);
  if (stride > (G_MAXSIZE - 2 * page) / (gsize) height)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_TOO_LARGE, "a guarded %d-row image is too large",
                   height);
      return NULL;
    }
  map = mmap (NULL, stride * height + 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED)
    {
      int saved = errno;

      g_set_error (error, LB_ERROR, LB_ERROR_NO_MEMORY, "cannot map a guarded image: %s",
                   g_strerror (saved));
      return NULL;
    }
  self = g_new0 (LbBandGuard, 1);
  self->map = map;
  self->map_size = stride * height + 2 * page;
  self->page = page;
  self->data = self->map + page;
  self->stride = stride;
  self->height = height;
  self->y0 = 0;
  self->y1 = height;
  self->cancel_row = -1;
  protect (self, 0, height, PROT_READ | PROT_WRITE);
  active = self;
  return self;
}

void
_lb_band_guard_free (LbBandGuard *self)
{
  if (self == NULL)
    return;
  if (active == self)
    active = NULL;
  munmap (self->map, self->map_size);
  g_free (self);
}

guint8 *
_lb_band_guard_get_data (LbBandGuard *self)
{
  return self->data;
}

gsize
_lb_band_guard_get_stride (LbBandGuard *self)
{
  return self->stride;
}

void
_lb_band_guard_enter (LbBandGuard *self,
                      int          y0,
                      int          y1)
{
  self->y0 = y0;
  self->y1 = y1;
  self->cancel_row = -1;
  protect (self, 0, y0, PROT_NONE);
  protect (self, y1, self->height, PROT_NONE);
}

void
_lb_band_guard_cancel_at (LbBandGuard *self,
                          int          row)
{
  row = CLAMP (row, self->y0, self->y1);
  self->cancel_row = row;
  protect (self, row, self->y1, PROT_NONE);
}

void
_lb_band_guard_leave (LbBandGuard *self)
{
  protect (self, 0, self->height, PROT_READ | PROT_WRITE);
  self->y0 = 0;
  self->y1 = self->height;
  self->cancel_row = -1;
}

void
_lb_band_guard_copy_out (LbBandGuard *self,
                         guint8      *dst,
                         gsize        dst_stride,
                         gsize        row_size)
{
  for (int y = 0; y < self->height; y++)
    memcpy (dst + (gsize) y * dst_stride, self->data + (gsize) y * self->stride, row_size);
}

/* ---- the fault's description, from a signal handler: no malloc, no stdio ------------------ */

typedef struct {
  char *buf;
  gsize size;
  gsize len;
} Out;

static void
put (Out        *o,
     const char *s)
{
  while (*s != '\0' && o->len + 1 < o->size)
    o->buf[o->len++] = *s++;
  o->buf[o->len] = '\0';
}

static void
put_int (Out *o,
         long v)
{
  char digits[24];
  int n = 0;

  if (v < 0)
    {
      put (o, "-");
      v = -v;
    }
  do
    digits[n++] = (char) ('0' + v % 10);
  while ((v /= 10) > 0 && n < (int) sizeof digits);
  while (n > 0 && o->len + 1 < o->size)
    o->buf[o->len++] = digits[--n];
  o->buf[o->len] = '\0';
}

gboolean
_lb_band_guard_describe_fault (gconstpointer addr,
                               char         *buf,
                               gsize         size)
{
  LbBandGuard *g = active;
  const guint8 *a = addr;
  Out o = { buf, size, 0 };
  long row;

  if (g == NULL || size == 0 || a < g->map || a >= g->map + g->map_size)
    return FALSE;
  buf[0] = '\0';
  if (a < g->data)
    {
      put (&o, "before the first row of the destination");
      row = -1;
    }
  else if (a >= g->data + (gsize) g->height * g->stride)
    {
      put (&o, "past the last row of the destination (row ");
      put_int (&o, g->height - 1);
      put (&o, ")");
      row = -1;
    }
  else
    {
      row = (long) ((gsize) (a - g->data) / g->stride);
      put (&o, "row ");
      put_int (&o, row);
      put (&o, " of the destination");
    }
  if (g->cancel_row >= 0 && row >= g->cancel_row && row < g->y1)
    {
      put (&o, ", after the pass was cancelled at row ");
      put_int (&o, g->cancel_row);
    }
  else
    {
      put (&o, ", outside the band of rows ");
      put_int (&o, g->y0);
      put (&o, "..");
      put_int (&o, g->y1 - 1);
    }
  return TRUE;
}
