/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The scale bar's length (lb-scale-bar): against a list of the round lengths written out as
 * decimal strings, searched the slow way, over a grid of spacings, zooms and widths; the
 * rotation picks the spacing across the screen; captions. */
#include <math.h>

#include "lb-scale-bar.h"

/* 1, 2 and 5 × 10ⁿ mm from 1 µm to 5 m, as a reader would write them */
static const char *const round_mm[] = {
  "0.001", "0.002", "0.005", "0.01", "0.02", "0.05", "0.1", "0.2", "0.5", "1", "2", "5",
  "10", "20", "50", "100", "200", "500", "1000", "2000", "5000", "10000", "20000", "50000",
  "100000", "200000", "500000", "1000000", "2000000", "5000000",
};

static void
test_choose_grid (void)
{
  static const double spacings[] = { 0.001, 0.05, 0.1, 0.3125, 0.7, 0.8, 1.0, 2.5, 7.3, 400 };
  static const double zooms[] = { 1.0 / 64, 0.1, 0.5, 1, 1.25, 2.5, 8, 64 };
  static const double widths[] = { 1, 17, 40, 100, 160.5, 320, 1000 };
  guint checked = 0, none = 0;

  for (guint s = 0; s < G_N_ELEMENTS (spacings); s++)
    for (guint z = 0; z < G_N_ELEMENTS (zooms); z++)
      for (guint w = 0; w < G_N_ELEMENTS (widths); w++)
        {
          double mmpp = lb_scale_bar_mm_per_pixel (spacings[s], 1.0, 0, zooms[z]);
          double want = 0, mm = -1, px = -1;
          gboolean got;

          g_assert_cmpfloat_with_epsilon (mmpp, spacings[s] / zooms[z], 1e-12 * mmpp);
          for (guint i = 0; i < G_N_ELEMENTS (round_mm); i++)
            {
              double v = g_ascii_strtod (round_mm[i], NULL);

              if (v / mmpp <= widths[w])
                want = v;
            }
          got = lb_scale_bar_choose (mmpp, widths[w], &mm, &px);
          if (want == 0)
            {
              g_assert_false (got);
              none++;
              continue;
            }
          g_assert_true (got);
          g_assert_cmpfloat_with_epsilon (mm, want, want * 1e-9);
          g_assert_cmpfloat_with_epsilon (px, want / mmpp, 1e-9 * px);
          g_assert_cmpfloat (px, <=, widths[w]);
          checked++;
        }
  g_test_message ("%u lengths checked, %u views with no room", checked, none);
  g_assert_cmpuint (checked, >, 400);
}

/* The phantom's spacing: 0.8 mm between rows, 0.7 mm between columns. */
static void
test_rotation (void)
{
  double mm, px;

  g_assert_cmpfloat (lb_scale_bar_mm_per_pixel (0.7, 0.8, 0, 2), ==, 0.35);
  g_assert_cmpfloat (lb_scale_bar_mm_per_pixel (0.7, 0.8, 2, 2), ==, 0.35);
  g_assert_cmpfloat (lb_scale_bar_mm_per_pixel (0.7, 0.8, 1, 2), ==, 0.4);
  g_assert_cmpfloat (lb_scale_bar_mm_per_pixel (0.7, 0.8, 3, 2), ==, 0.4);
  /* 160 px at 0.35 mm/px is 56 mm: 50 mm, 142.86 px */
  g_assert_true (lb_scale_bar_choose (0.35, 160, &mm, &px));
  g_assert_cmpfloat (mm, ==, 50);
  g_assert_cmpfloat_with_epsilon (px, 50 / 0.35, 1e-9);
  g_assert_cmpfloat (lb_scale_bar_mm_per_pixel (0, 0.8, 0, 1), ==, 0);
  g_assert_cmpfloat (lb_scale_bar_mm_per_pixel (0.7, 0.8, 0, 0), ==, 0);
  g_assert_false (lb_scale_bar_choose (0, 100, &mm, &px));
  g_assert_false (lb_scale_bar_choose (NAN, 100, &mm, &px));
}

static void
test_format (void)
{
  static const struct { double mm; const char *text; } cases[] = {
    { 0.5, "0.5 mm" }, { 1, "1 mm" }, { 20, "20 mm" }, { 500, "500 mm" }, { 1000, "1 m" },
    { 5000, "5 m" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = lb_scale_bar_format (cases[i].mm);

      g_assert_cmpstr (text, ==, cases[i].text);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/scale-bar/choose", test_choose_grid);
  g_test_add_func ("/scale-bar/rotation", test_rotation);
  g_test_add_func ("/scale-bar/format", test_format);
  return g_test_run ();
}
