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

double
lb_sample_value (const LbValueModel *model,
                 guint               sample)
{
  return model != NULL ? lb_value_model_to_value (model, sample) : (double) sample;
}

double
lb_voi_apply (const LbVoi *voi,
              double       x)
{
  const double ymin = 0, ymax = 255;
  double c = voi->center, w = voi->width;

  if (voi->lut != NULL)
    return lb_value_lut_lookup (voi->lut, x) * (ymax - ymin) / ((1u << voi->lut->bits) - 1)
           + ymin;
  switch (voi->function)
    {
    case LB_VOI_SIGMOID:
      /* PS3.3 C.11.2.1.3.1 */
      return (ymax - ymin) / (1 + exp (-4 * (x - c) / w)) + ymin;
    case LB_VOI_LINEAR_EXACT:
      /* PS3.3 C.11.2.1.3.2 */
      if (x <= c - w / 2)
        return ymin;
      if (x > c + w / 2)
        return ymax;
      return ((x - c) / w + 0.5) * (ymax - ymin) + ymin;
    case LB_VOI_LINEAR:
    default:
      /* PS3.3 C.11.2.1.2.1; the standard's window is at least 1 wide */
      if (w < 1)
        w = 1;
      if (x <= c - 0.5 - (w - 1) / 2)
        return ymin;
      if (x > c - 0.5 + (w - 1) / 2)
        return ymax;
      return ((x - (c - 0.5)) / (w - 1) + 0.5) * (ymax - ymin) + ymin;
    }
}

void
lb_lut_build (LbLut              *lut,
              guint               bit_depth,
              const LbValueModel *model,
              const LbVoi        *voi,
              gboolean            invert)
{
  guint n = bit_depth > 8 ? 65536 : 256;

  if (lut->n_entries != n)
    {
      g_free (lut->table);
      lut->table = g_malloc (n);
      lut->n_entries = n;
    }
  /* The Presentation LUT (PS3.3 C.11.6.1.2): INVERSE, P-Value = maximum − VOI output, when
   * the Presentation LUT Shape says so or, without one, for MONOCHROME1 (the minimum is
   * white, C.7.6.3.1.2); applied once, never for both. The user's Invert works relative to
   * that. */
  if (model != NULL && lb_value_model_get_presentation_inverse (model))
    invert = !invert;
  for (guint i = 0; i < n; i++)
    {
      double y = lb_voi_apply (voi, lb_sample_value (model, i));
      int v = y <= 0.0 ? 0 : y >= 255.0 ? 255 : (int) floor (y + 0.5);

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

typedef struct {
  double  value;
  guint64 count;
} Bin;

static int
bin_compare (gconstpointer a, gconstpointer b)
{
  double x = ((const Bin *) a)->value, y = ((const Bin *) b)->value;

  return x < y ? -1 : x > y;
}

gboolean
lb_histogram_window (const guint64      *hist,
                     guint               n_bins,
                     const LbValueModel *model,
                     double              lo,
                     double              hi,
                     double             *center,
                     double             *width)
{
  g_autofree Bin *bins = NULL;
  guint n = 0;
  guint64 total = 0, acc = 0, lo_count, hi_count;
  double vmin = 0, vmax = 0, slope;
  gboolean have_lo = FALSE, sorted;

  /* The bins in order of value, padding left out. A rescale with a positive slope keeps the
   * sample order; a negative slope or a Modality LUT needs sorting. */
  bins = g_new (Bin, n_bins);
  for (guint i = 0; i < n_bins; i++)
    if (hist[i] != 0 && (model == NULL || !lb_value_model_is_padding (model, i)))
      {
        bins[n].value = lb_sample_value (model, i);
        bins[n].count = hist[i];
        total += hist[i];
        n++;
      }
  if (total == 0)
    return FALSE;
  sorted = model == NULL || (lb_value_model_get_rescale (model, &slope, NULL) && slope > 0);
  if (!sorted)
    qsort (bins, n, sizeof (Bin), bin_compare);
  lo_count = (guint64) (lo * total);
  hi_count = (guint64) (hi * total);
  for (guint k = 0; k < n; k++)
    {
      acc += bins[k].count;
      if (!have_lo && acc > lo_count)
        {
          vmin = bins[k].value;
          have_lo = TRUE;
        }
      if (acc >= hi_count)
        {
          vmax = bins[k].value;
          break;
        }
    }
  if (!have_lo)
    return FALSE;
  if (vmax < vmin)
    vmax = vmin;
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

void
lb_view_from_image (const LbViewTransform *view,
                    guint                  width,
                    guint                  height,
                    double                 out_w,
                    double                 out_h,
                    double                 ix,
                    double                 iy,
                    double                *ox,
                    double                *oy)
{
  double rw, rh, vx, vy;

  lb_view_rotated_size (view, width, height, &rw, &rh);
  /* rotate forward: the inverse of unrotate() */
  switch (view->rotation & 3)
    {
    case 1: vx = height - iy; vy = ix; break;
    case 2: vx = width - ix; vy = height - iy; break;
    case 3: vx = iy; vy = width - ix; break;
    default: vx = ix; vy = iy; break;
    }
  if (view->flip)
    vx = rw - vx;
  *ox = (vx - view->center_x) * view->zoom + out_w / 2.0;
  *oy = (vy - view->center_y) * view->zoom + out_h / 2.0;
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
