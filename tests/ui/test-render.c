/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The canvas' display path without a display: the lookup table's structure (through the value
 * model, inverted for Invert and MONOCHROME1), the histogram window (padding left out), and
 * the view mapping (zoom, rotation, flip, split) checked pixel by pixel against direct
 * computation. The VOI values themselves are checked against PS3.3 in tests/view/test-voi. */
#include "config.h"

#include <math.h>

#include "lb-render.h"

static LbImage *
make_gray16 (guint w,
             guint h,
             guint16 (*f) (guint x, guint y))
{
  gsize stride;
  guint8 *px = lb_image_alloc_pixels (w, h, LB_FORMAT_GRAY16, NULL, &stride, NULL);

  for (guint y = 0; y < h; y++)
    for (guint x = 0; x < w; x++)
      ((guint16 *) (px + y * stride))[x] = f (x, y);
  return lb_image_new_take (w, h, LB_FORMAT_GRAY16, stride, px, NULL);
}

static guint16
ramp (guint x, guint y)
{
  return (guint16) (y * 1000 + x);
}

static LbValueModel *
signed_ct_model (void)
{
  g_autoptr (LbValueModelBuilder) b = lb_value_model_builder_new (NULL, 16);

  lb_value_model_builder_set_source (b, TRUE, 16);
  lb_value_model_builder_set_rescale (b, 1.0, -1024.0);
  lb_value_model_builder_set_units (b, "HU");
  return lb_value_model_builder_end (g_steal_pointer (&b));
}

/* The LUT's structure: it goes through the model (offset binary, rescale), ends at black and
 * white outside the window, and the presentation inverts it for Invert and MONOCHROME1 (the
 * values themselves are checked against an independent PS3.3 reference in tests/view). */
static void
test_lut_window (void)
{
  LbLut lut = { 0 }, inv = { 0 }, m1 = { 0 }, m1inv = { 0 };
  g_autoptr (LbValueModel) model = signed_ct_model ();
  g_autoptr (LbValueModel) mono1 = NULL;
  LbVoi voi = { LB_VOI_LINEAR, 40, 80, NULL };
  /* the sample of stored value s: s + 32768; HU = s − 1024 */
#define SAMPLE_OF_HU(hu) ((hu) + 1024 + 32768)

  lb_lut_build (&lut, 16, model, &voi, FALSE);
  g_assert_cmpuint (lut.n_entries, ==, 65536);
  g_assert_cmpuint (lut.table[SAMPLE_OF_HU (-1)], ==, 0);
  g_assert_cmpuint (lut.table[SAMPLE_OF_HU (-1000)], ==, 0);
  g_assert_cmpuint (lut.table[SAMPLE_OF_HU (80)], ==, 255);
  g_assert_cmpuint (lut.table[SAMPLE_OF_HU (2000)], ==, 255);
  g_assert_cmpuint (lut.table[0], ==, 0);      /* stored −32768 */
  g_assert_cmpuint (lut.table[65535], ==, 255); /* stored 32767 */
  for (guint i = 1; i < 65536; i++)
    g_assert_cmpuint (lut.table[i], >=, lut.table[i - 1]);

  {
    g_autoptr (LbValueModelBuilder) b = lb_value_model_builder_new (model, 16);

    lb_value_model_builder_set_monochrome1 (b, TRUE);
    mono1 = lb_value_model_builder_end (g_steal_pointer (&b));
  }
  lb_lut_build (&inv, 16, model, &voi, TRUE);
  lb_lut_build (&m1, 16, mono1, &voi, FALSE);
  lb_lut_build (&m1inv, 16, mono1, &voi, TRUE);
  for (guint i = 0; i < 65536; i++)
    {
      g_assert_cmpuint (inv.table[i], ==, 255 - lut.table[i]);
      g_assert_cmpuint (m1.table[i], ==, 255 - lut.table[i]);  /* minimum is white */
      g_assert_cmpuint (m1inv.table[i], ==, lut.table[i]);     /* Invert undoes it */
    }

  /* 8-bit without a model: the sample is the value */
  voi = (LbVoi) { LB_VOI_LINEAR, 128, 256, NULL };
  lb_lut_build (&lut, 8, NULL, &voi, FALSE);
  g_assert_cmpuint (lut.n_entries, ==, 256);
  for (guint i = 0; i < 256; i++)
    g_assert_cmpuint (lut.table[i], ==, i);
  lb_lut_clear (&lut);
  lb_lut_clear (&inv);
  lb_lut_clear (&m1);
  lb_lut_clear (&m1inv);
#undef SAMPLE_OF_HU
}

static void
test_histogram_window (void)
{
  g_autoptr (LbImage) img = make_gray16 (100, 10, ramp);
  LbRenderSource src;
  guint64 *hist = g_new0 (guint64, 65536);
  double c, w;

  lb_render_source_from_image (&src, img);
  lb_histogram_add_rows (hist, &src, 0, 10);
  g_assert_true (lb_histogram_window (hist, 65536, NULL, 0.0, 1.0, &c, &w));
  /* values 0..9099: full range */
  g_assert_cmpfloat (c - w / 2, ==, 0);
  g_assert_cmpfloat (c + w / 2, ==, 9099);
  /* 1st–99th percentile trims the tails: 10 samples each side of 1000 */
  g_assert_true (lb_histogram_window (hist, 65536, NULL, 0.01, 0.99, &c, &w));
  g_assert_cmpfloat (c - w / 2, ==, 10);
  g_assert_cmpfloat (c + w / 2, ==, 9089);

  /* padding is not anatomy: samples 0…4999 as padding leave 5000…9099 (values through the
   * rescale; a negative slope reverses the order) */
  {
    g_autoptr (LbValueModelBuilder) b = lb_value_model_builder_new (NULL, 16);
    g_autoptr (LbValueModel) model = NULL;

    lb_value_model_builder_set_rescale (b, -2.0, 100.0);
    lb_value_model_builder_set_padding (b, 0, 4999);
    model = lb_value_model_builder_end (g_steal_pointer (&b));
    g_assert_true (lb_histogram_window (hist, 65536, model, 0.0, 1.0, &c, &w));
    g_assert_cmpfloat (c - w / 2, ==, 9099 * -2.0 + 100);
    g_assert_cmpfloat (c + w / 2, ==, 5000 * -2.0 + 100);
  }
  /* nothing but padding: no window */
  {
    g_autoptr (LbValueModelBuilder) b = lb_value_model_builder_new (NULL, 16);
    g_autoptr (LbValueModel) model = NULL;

    lb_value_model_builder_set_padding (b, 0, 9099);
    model = lb_value_model_builder_end (g_steal_pointer (&b));
    g_assert_false (lb_histogram_window (hist, 65536, model, 0.01, 0.99, &c, &w));
  }
  g_free (hist);
}

/* Renders at 1:1 and checks every output pixel against the sample the transform names. */
static void
check_view (LbImage *img,
            guint    rotation,
            gboolean flip,
            double   zoom)
{
  LbRenderSource src;
  LbLut lut = { 0 };
  LbViewTransform view = { zoom, 0, 0, rotation, flip };
  guint ow = 64, oh = 48;
  g_autofree guint32 *out = g_new (guint32, ow * oh);
  double rw, rh;

  lb_render_source_from_image (&src, img);
  /* a window over the whole range, so every sample of the ramp shows */
  lb_lut_build (&lut, 16, NULL, &(LbVoi) { LB_VOI_LINEAR, 65536 / 2.0, 65536, NULL }, FALSE);
  lb_view_rotated_size (&view, src.width, src.height, &rw, &rh);
  view.center_x = rw / 2 + 3.25;
  view.center_y = rh / 2 - 2.5;
  lb_render_view ((guint8 *) out, ow * 4, ow, oh, &view, &src, &lut, NULL, NULL, 0);
  for (guint oy = 0; oy < oh; oy++)
    for (guint ox = 0; ox < ow; ox++)
      {
        double fx, fy, bx, by;
        int ix, iy;
        guint32 want;


        lb_view_to_image (&view, src.width, src.height, ow, oh, ox + 0.5, oy + 0.5, &fx, &fy);
        /* the inverse (measurements are drawn through it) gives the output point back */
        lb_view_from_image (&view, src.width, src.height, ow, oh, fx, fy, &bx, &by);
        g_assert_cmpfloat_with_epsilon (bx, ox + 0.5, 1e-9);
        g_assert_cmpfloat_with_epsilon (by, oy + 0.5, 1e-9);
        ix = (int) floor (fx);
        iy = (int) floor (fy);
        if (ix < 0 || iy < 0 || ix >= (int) src.width || iy >= (int) src.height)
          want = 0xff000000u;
        else
          {
            guint8 v = lut.table[((const guint16 *) lb_image_get_row (img, iy))[ix]];
            want = 0xff000000u | v * 0x010101u;
          }
        g_assert_cmphex (out[oy * ow + ox], ==, want);
      }
  lb_lut_clear (&lut);
}

static void
test_view_transforms (void)
{
  g_autoptr (LbImage) img = make_gray16 (37, 23, ramp);

  for (guint r = 0; r < 4; r++)
    for (int f = 0; f < 2; f++)
      {
        check_view (img, r, f, 1.0);
        check_view (img, r, f, 3.0);   /* zoomed in: nearest neighbour, no blur */
        check_view (img, r, f, 0.5);
      }
}

static void
test_rotation_corners (void)
{
  /* a quarter turn clockwise puts the image's top-left corner at the view's top-right */
  LbViewTransform view = { 1.0, 1.0, 2.0, 1, FALSE };
  double ix, iy;

  /* rotated size is 2 × 4; view (1.9, 0.1) is top-right */
  lb_view_to_image (&view, 4, 2, 2, 4, 1.9, 0.1, &ix, &iy);
  g_assert_cmpint ((int) floor (ix), ==, 0);
  g_assert_cmpint ((int) floor (iy), ==, 0);
  /* and the top-right corner of the image at the bottom-right */
  lb_view_to_image (&view, 4, 2, 2, 4, 1.9, 3.9, &ix, &iy);
  g_assert_cmpint ((int) floor (ix), ==, 3);
  g_assert_cmpint ((int) floor (iy), ==, 0);
  /* the image's top-left corner is the view's top-right corner */
  lb_view_from_image (&view, 4, 2, 2, 4, 0, 0, &ix, &iy);
  g_assert_cmpfloat_with_epsilon (ix, 2.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (iy, 0.0, 1e-12);
}

static void
test_split (void)
{
  g_autoptr (LbImage) a = make_gray16 (16, 16, ramp);
  LbRenderSource sa;
  LbLut la = { 0 }, lb = { 0 };
  LbViewTransform view = { 1.0, 8, 8, 0, FALSE };
  LbVoi step = { LB_VOI_LINEAR, 1, 1, NULL };          /* w = 1: a step at 0.5 */
  guint32 out[16 * 16];

  lb_render_source_from_image (&sa, a);
  lb_lut_build (&la, 16, NULL, &step, FALSE);          /* everything ≥ 1 → 255 */
  lb_lut_build (&lb, 16, NULL, &step, TRUE);           /* inverted for the "before" side */
  lb_render_view ((guint8 *) out, 16 * 4, 16, 16, &view, &sa, &la, &sa, &lb, 6);
  /* columns < 6 from the before LUT, the rest from the after LUT */
  g_assert_cmphex (out[5 * 16 + 3], ==, 0xff000000u);
  g_assert_cmphex (out[5 * 16 + 10], ==, 0xffffffffu);
  lb_lut_clear (&la);
  lb_lut_clear (&lb);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/lut-window", test_lut_window);
  g_test_add_func ("/render/histogram-window", test_histogram_window);
  g_test_add_func ("/render/view-transforms", test_view_transforms);
  g_test_add_func ("/render/rotation-corners", test_rotation_corners);
  g_test_add_func ("/render/split", test_split);
  return g_test_run ();
}
