/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-render"

#include "config.h"

#include <math.h>
#include <string.h>

#include "lb-render.h"

void
lb_render_source_from_image (LbRenderSource *src,
                             LbImage        *image)
{
  src->data = lb_image_get_data (image);
  src->stride = lb_image_get_stride (image);
  src->width = lb_image_get_width (image);
  src->height = lb_image_get_height (image);
  src->format = lb_image_get_format (image);
}

void
lb_value_map_from_meta (LbValueMap        *map,
                        const LbImageMeta *meta)
{
  map->is_signed = FALSE;
  map->slope = 1.0;
  map->intercept = 0.0;
  if (meta == NULL)
    return;
  map->is_signed = lb_image_meta_get_signed (meta);
  if (!lb_image_meta_get_rescale (meta, &map->slope, &map->intercept) || map->slope == 0.0)
    {
      map->slope = 1.0;
      map->intercept = 0.0;
    }
}

double
lb_value_map_apply (const LbValueMap *map,
                    guint             stored)
{
  double v = map->is_signed ? (double) (gint16) (guint16) stored : (double) stored;

  return v * map->slope + map->intercept;
}

void
lb_lut_build (LbLut            *lut,
              guint             bit_depth,
              const LbValueMap *map,
              double            center,
              double            width,
              gboolean          invert)
{
  guint n = bit_depth > 8 ? 65536 : 256;
  double lo, scale;
  LbValueMap plain = { FALSE, 1.0, 0.0 };

  if (lut->n_entries != n)
    {
      g_free (lut->table);
      lut->table = g_malloc (n);
      lut->n_entries = n;
    }
  /* 8-bit samples are never signed; the map still applies rescale. */
  if (map == NULL)
    map = &plain;
  if (width < 1e-9)
    width = 1e-9;
  lo = center - width / 2.0;
  scale = 255.0 / width;
  for (guint i = 0; i < n; i++)
    {
      double m = (n == 256) ? i * map->slope + map->intercept : lb_value_map_apply (map, i);
      double d = (m - lo) * scale;
      int v = d <= 0.0 ? 0 : d >= 255.0 ? 255 : (int) (d + 0.5);

      lut->table[i] = invert ? 255 - v : v;
    }
}

void
lb_lut_clear (LbLut *lut)
{
  g_clear_pointer (&lut->table, g_free);
  lut->n_entries = 0;
}

void
lb_histogram_add_rows (guint64              *hist,
                       const LbRenderSource *src,
                       guint                 y0,
                       guint                 y1)
{
  guint channels = lb_sample_format_get_channels (src->format);
  gboolean wide = lb_sample_format_get_sample_size (src->format) == 2;

  y1 = MIN (y1, src->height);
  for (guint y = y0; y < y1; y++)
    {
      const guint8 *row = src->data + (gsize) y * src->stride;

      if (wide)
        {
          const guint16 *p = (const guint16 *) row;
          for (guint x = 0; x < src->width; x++)
            hist[p[(gsize) x * channels]]++;
        }
      else
        {
          for (guint x = 0; x < src->width; x++)
            hist[row[(gsize) x * channels]]++;
        }
    }
}

gboolean
lb_histogram_window (const guint64    *hist,
                     guint             n_bins,
                     const LbValueMap *map,
                     double            lo,
                     double            hi,
                     double           *center,
                     double           *width)
{
  guint64 total = 0, acc = 0;
  double vmin = G_MAXDOUBLE, vmax = -G_MAXDOUBLE;
  guint64 lo_count, hi_count;
  gboolean have_lo = FALSE;

  for (guint i = 0; i < n_bins; i++)
    total += hist[i];
  if (total == 0)
    return FALSE;
  lo_count = (guint64) (lo * total);
  hi_count = (guint64) (hi * total);
  /* Bins are in stored order; with signed samples the modality order differs, so walk
   * values in modality order: negative two's-complement bins first. */
  for (guint k = 0; k < n_bins; k++)
    {
      guint i = k;
      double v;

      if (map->is_signed && n_bins == 65536)
        i = (k + 32768) & 0xffff;
      if (hist[i] == 0)
        continue;
      v = n_bins == 65536 ? lb_value_map_apply (map, i) : i * map->slope + map->intercept;
      acc += hist[i];
      if (!have_lo && acc > lo_count)
        {
          vmin = v;
          have_lo = TRUE;
        }
      if (acc >= hi_count)
        {
          vmax = v;
          break;
        }
    }
  if (!have_lo)
    return FALSE;
  if (vmax < vmin)
    vmax = vmin;
  /* A negative slope reverses the order; the window is symmetric so just sort. */
  if (vmax < vmin)
    {
      double t = vmin;
      vmin = vmax;
      vmax = t;
    }
  *center = (vmin + vmax) / 2.0;
  *width = MAX (vmax - vmin, 1.0);
  return TRUE;
}

void
lb_view_rotated_size (const LbViewTransform *view,
                      guint                  width,
                      guint                  height,
                      double                *out_w,
                      double                *out_h)
{
  gboolean odd = view->rotation & 1;

  *out_w = odd ? height : width;
  *out_h = odd ? width : height;
}

/* Rotated view coordinates → image coordinates, continuous. */
static inline void
unrotate (guint   rotation,
          guint   width,
          guint   height,
          double  vx,
          double  vy,
          double *ix,
          double *iy)
{
  switch (rotation & 3)
    {
    case 1: *ix = vy; *iy = height - vx; break;
    case 2: *ix = width - vx; *iy = height - vy; break;
    case 3: *ix = width - vy; *iy = vx; break;
    default: *ix = vx; *iy = vy; break;
    }
}

void
lb_view_to_image (const LbViewTransform *view,
                  guint                  width,
                  guint                  height,
                  double                 out_w,
                  double                 out_h,
                  double                 ox,
                  double                 oy,
                  double                *ix,
                  double                *iy)
{
  double rw, rh, vx, vy;

  lb_view_rotated_size (view, width, height, &rw, &rh);
  vx = (ox - out_w / 2.0) / view->zoom + view->center_x;
  vy = (oy - out_h / 2.0) / view->zoom + view->center_y;
  if (view->flip)
    vx = rw - vx;
  unrotate (view->rotation, width, height, vx, vy, ix, iy);
}

/* The offset of output pixel (ox, oy) in the source is col_off[ox] + row_off[oy]: one axis of
 * the output always maps to one axis of the image, whatever the quarter turn and flip. Entries
 * are -1 where the output falls outside the image. */
static void
build_offsets (const LbViewTransform *view,
               const LbRenderSource  *src,
               guint                  out_w,
               guint                  out_h,
               gssize                *col_off,
               gssize                *row_off)
{
  double rw, rh;
  gsize ps = lb_sample_format_get_pixel_size (src->format);
  guint rot = view->rotation & 3;

  lb_view_rotated_size (view, src->width, src->height, &rw, &rh);
  for (guint ox = 0; ox < out_w; ox++)
    {
      double vx = (ox + 0.5 - out_w / 2.0) / view->zoom + view->center_x;
      double c;
      gssize off = -1;

      if (view->flip)
        vx = rw - vx;
      c = floor (rot == 0 ? vx : rot == 1 ? src->height - vx : rot == 2 ? src->width - vx : vx);
      /* rotations 0/2: columns of the output are image columns; 1/3: image rows */
      if (rot == 0 || rot == 2)
        {
          if (c >= 0 && c < src->width)
            off = (gssize) c * ps;
        }
      else if (c >= 0 && c < src->height)
        off = (gssize) c * src->stride;
      col_off[ox] = off;
    }
  for (guint oy = 0; oy < out_h; oy++)
    {
      double vy = (oy + 0.5 - out_h / 2.0) / view->zoom + view->center_y;
      double c;
      gssize off = -1;

      c = floor (rot == 0 ? vy : rot == 1 ? vy : rot == 2 ? src->height - vy : src->width - vy);
      if (rot == 0 || rot == 2)
        {
          if (c >= 0 && c < src->height)
            off = (gssize) c * src->stride;
        }
      else if (c >= 0 && c < src->width)
        off = (gssize) c * ps;
      row_off[oy] = off;
    }
}

#define OPAQUE(v) (0xff000000u | ((guint32) (v) * 0x010101u))
#define OPAQUE_RGB(r, g, b) (0xff000000u | ((guint32) (r) << 16) | ((guint32) (g) << 8) | (b))

static void
render_span (guint32              *out,
             guint                 x0,
             guint                 x1,
             const gssize         *col_off,
             gssize                row_off,
             const LbRenderSource *src,
             const LbLut          *lut)
{
  const guint8 *base;
  const guint8 *t = lut->table;
  guint channels = lb_sample_format_get_channels (src->format);
  gboolean wide = lb_sample_format_get_sample_size (src->format) == 2;

  if (row_off < 0)
    {
      for (guint x = x0; x < x1; x++)
        out[x] = OPAQUE (0);
      return;
    }
  base = src->data + row_off;
  /* One loop per layout so the inner loop is a lookup and a store. */
  if (channels <= 2 && wide)
    {
      for (guint x = x0; x < x1; x++)
        {
          gssize o = col_off[x];
          out[x] = o < 0 ? OPAQUE (0) : OPAQUE (t[*(const guint16 *) (base + o)]);
        }
    }
  else if (channels <= 2)
    {
      for (guint x = x0; x < x1; x++)
        {
          gssize o = col_off[x];
          out[x] = o < 0 ? OPAQUE (0) : OPAQUE (t[base[o]]);
        }
    }
  else if (wide)
    {
      for (guint x = x0; x < x1; x++)
        {
          gssize o = col_off[x];
          const guint16 *p = (const guint16 *) (base + o);
          out[x] = o < 0 ? OPAQUE (0) : OPAQUE_RGB (t[p[0]], t[p[1]], t[p[2]]);
        }
    }
  else
    {
      for (guint x = x0; x < x1; x++)
        {
          gssize o = col_off[x];
          const guint8 *p = base + o;
          out[x] = o < 0 ? OPAQUE (0) : OPAQUE_RGB (t[p[0]], t[p[1]], t[p[2]]);
        }
    }
}

void
lb_render_view (guint8                *out,
                gsize                  out_stride,
                guint                  out_w,
                guint                  out_h,
                const LbViewTransform *view,
                const LbRenderSource  *src,
                const LbLut           *lut,
                const LbRenderSource  *before,
                const LbLut           *before_lut,
                guint                  split_x)
{
  g_autofree gssize *col_off = g_new (gssize, out_w);
  g_autofree gssize *row_off = g_new (gssize, out_h);
  g_autofree gssize *bcol_off = NULL;
  g_autofree gssize *brow_off = NULL;

  if (before == NULL || before_lut == NULL || before_lut->table == NULL)
    split_x = 0;
  split_x = MIN (split_x, out_w);
  build_offsets (view, src, out_w, out_h, col_off, row_off);
  if (split_x > 0)
    {
      bcol_off = g_new (gssize, out_w);
      brow_off = g_new (gssize, out_h);
      build_offsets (view, before, out_w, out_h, bcol_off, brow_off);
    }
  for (guint oy = 0; oy < out_h; oy++)
    {
      guint32 *row = (guint32 *) (out + (gsize) oy * out_stride);

      if (split_x > 0)
        render_span (row, 0, split_x, bcol_off, brow_off[oy], before, before_lut);
      render_span (row, split_x, out_w, col_off, row_off[oy], src, lut);
    }
}
