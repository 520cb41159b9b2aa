/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-rotate"

/* xv's Copy Rotate and Clear Rotate: prepare, Clear Rotate's rows, and the dispatcher (the
 * exact path in lb-rotate-ref.c, else the fast path in lb-rotate-fast.c). */

#include "lb-rotate-private.h"

LbRotate *
lb_rotate_prepare (const LbKernelBuf    *src,
                   const LbKernelRect   *region,
                   const LbRotateParams *params,
                   GError              **error)
{
  g_autofree LbRotate *st = g_new0 (LbRotate, 1);
  int maxv;

  if (!lb_kernel_check_and_clip (src, region, &st->r, error))
    return NULL;
  if (!isfinite (params->angle) || fabs (params->angle) > 1e6)
    {
      g_set_error (error, LB_KERNEL_ERROR, LB_KERNEL_ERROR_INVALID_ARGUMENT,
                   "Rotation angle must be a finite number of degrees (got %g)", params->angle);
      return NULL;
    }
  maxv = lb_kbuf_max_value (src);
  for (int c = 0; c < 3; c++)
    if (params->clear && params->clear_color[c] > maxv)
      {
        g_set_error (error, LB_KERNEL_ERROR, LB_KERNEL_ERROR_INVALID_ARGUMENT,
                     "Clear colour channel %d is %u, above %d for %d-bit samples", c,
                     params->clear_color[c], maxv, src->depth);
        return NULL;
      }
  st->clear = params->clear;
  for (int c = 0; c < 3; c++)
    st->clear_color[c] = params->clear_color[c];
  st->exact = params->exact;
  st->active = params->angle != 0.0 && st->r.width > 0 && st->r.height > 0;
  if (!st->active)
    return g_steal_pointer (&st);

  st->rad = params->angle * G_PI / 180.0;
  st->cfx = st->r.x + (st->r.width - 1) / 2.0;
  st->cfy = st->r.y + (st->r.height - 1) / 2.0;
  st->ca = cos (-st->rad);
  st->sa = sin (-st->rad);

  /* Destination box: the corners at +width/+height (not −1), rounded half away from zero,
   * grown by one pixel on the left and top, clipped to the image. */
  {
    const double cx[4] = { st->r.x, st->r.x, st->r.x + st->r.width, st->r.x + st->r.width };
    const double cy[4] = { st->r.y, st->r.y + st->r.height, st->r.y, st->r.y + st->r.height };
    double minx = G_MAXDOUBLE, maxx = -G_MAXDOUBLE, miny = G_MAXDOUBLE, maxy = -G_MAXDOUBLE;

    for (int i = 0; i < 4; i++)
      {
        double rx, ry;

        rot_xv (st, cx[i], cy[i], st->rad, &rx, &ry);
        rx = round (rx);
        ry = round (ry);
        minx = MIN (minx, rx);
        maxx = MAX (maxx, rx);
        miny = MIN (miny, ry);
        maxy = MAX (maxy, ry);
      }
    minx -= 1;
    miny -= 1;
    st->bx0 = (int) CLAMP (minx, 0, src->width);
    st->by0 = (int) CLAMP (miny, 0, src->height);
    st->bx1 = (int) CLAMP (maxx + 1, 0, src->width);
    st->by1 = (int) CLAMP (maxy + 1, 0, src->height);
  }
  return g_steal_pointer (&st);
}

void
lb_rotate_get_dest_rows (const LbRotate *st,
                         int            *y0,
                         int            *y1)
{
  if (!st->active)
    {
      *y0 = *y1 = 0;
      return;
    }
  *y0 = st->clear ? MIN (st->by0, st->r.y) : st->by0;
  *y1 = st->clear ? MAX (st->by1, st->r.y + st->r.height) : st->by1;
}

void
lb_rotate_set_simd (LbRotate *st,
                    gboolean  enable)
{
  st->no_simd = !enable;
}

void
lb_rotate_free (LbRotate *st)
{
  g_free (st);
}

static void
fill_clear_row (const LbRotate    *st,
                const LbKernelBuf *src,
                LbKernelBuf       *dst,
                int                y)
{
  guint8 *drow = lb_kbuf_row (dst, y) + (gsize) st->r.x * dst->channels * (dst->depth / 8);
  int nc = lb_kbuf_color_channels (dst), ch = dst->channels;
  gsize pb = (gsize) ch * (dst->depth / 8), cb = (gsize) nc * (dst->depth / 8);
  guint8 pix[8];

  if (st->r.width <= 0)
    return;
  /* one pixel's colour bytes (alpha whatever), copied along the row: the row doubles, log2
   * (width) memcpy calls; then alpha back from the source */
  memset (pix, 0, sizeof pix);
  for (int c = 0; c < nc; c++)
    lb_kbuf_set (dst, pix, (gsize) c, st->clear_color[c]);
  {
    gsize done = pb, total = (gsize) st->r.width * pb;

    memcpy (drow, pix, pb);
    while (done < total)
      {
        gsize n = MIN (done, total - done);

        memcpy (drow + done, drow, n);
        done += n;
      }
  }
  if (cb != pb)
    lb_kernel_restore_alpha (src, dst, y, st->r.x, st->r.x + st->r.width);
}

/* Clear Rotate fills the region rows first; returns whether row @y is in the box. */
gboolean
_lb_rotate_band_setup (const LbRotate    *st,
                       const LbKernelBuf *src,
                       LbKernelBuf       *dst,
                       int                y)
{
  if (st->clear && y >= st->r.y && y < st->r.y + st->r.height)
    fill_clear_row (st, src, dst, y);
  return y >= st->by0 && y < st->by1;
}

void
lb_rotate_process (const LbRotate    *st,
                   const LbKernelBuf *src,
                   LbKernelBuf       *dst,
                   int                y0,
                   int                y1)
{
  if (!st->active)
    return;
  if (st->exact)
    lb_rotate_process_reference (st, src, dst, y0, y1);
  else
    _lb_rotate_process_fast (st, src, dst, y0, y1);
}
