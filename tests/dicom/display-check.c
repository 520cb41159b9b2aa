/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "display-check.h"

#include "lb-test-files.h"
#include "lb-test-process.h"

/* display-reference.py's bytes for @dcm_path under @voi_spec. */
static GBytes *
reference (const char *dcm_path, const char *voi_spec)
{
  g_autofree char *script = lb_test_build_path ("LB_SOURCE_ROOT", "tests", "dicom",
                                                "display-reference.py", NULL);
  g_autofree char *dir = lb_test_make_tmpdir ("display");
  g_autofree char *out = g_build_filename (dir, "display.bin", NULL);
  const char *argv[] = { "/usr/bin/python3", script, dcm_path, voi_spec, out, NULL };
  g_autofree char *text = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  char *data = NULL;
  gsize len = 0;
  int status;

  text = lb_test_run_tool (argv, &err, &status);
  if (status != 0)
    g_error ("display-reference.py %s %s: %s", dcm_path, voi_spec, err);
  g_file_get_contents (out, &data, &len, &error);
  g_assert_no_error (error);
  lb_test_remove_tree (dir);
  return g_bytes_new_take (data, len);
}

guint
lb_test_check_display (LbImage *img, const LbVoi *voi, const char *dcm_path,
                       const char *voi_spec, const char *what)
{
  g_autoptr(GBytes) want = reference (dcm_path, voi_spec);
  const guint8 *ref = g_bytes_get_data (want, NULL);
  guint w = lb_image_get_width (img), h = lb_image_get_height (img);
  guint bits = lb_sample_format_get_sample_size (lb_image_get_format (img)) == 2 ? 16 : 8;
  LbValueModel *model = lb_image_meta_get_value_model_for (lb_image_get_meta (img), bits);
  LbViewTransform view = { 1.0, w / 2.0, h / 2.0, 0, FALSE };
  g_autofree guint32 *out = g_new0 (guint32, (gsize) w * h);
  LbRenderSource src;
  LbLut lut = { 0 };

  g_assert_nonnull (model);
  g_assert_cmpuint (g_bytes_get_size (want), ==, (gsize) w * h);
  lb_render_source_from_image (&src, img);
  lb_lut_build (&lut, bits, model, voi, FALSE);
  lb_render_view ((guint8 *) out, (gsize) w * 4, w, h, &view, &src, &lut, NULL, NULL, 0);
  lb_lut_clear (&lut);
  for (guint y = 0; y < h; y++)
    for (guint x = 0; x < w; x++)
      {
        guint32 px = out[(gsize) y * w + x];
        guint shown = px & 0xff;

        /* grey: the three channels agree */
        g_assert_cmpuint ((px >> 8) & 0xff, ==, shown);
        if (shown != ref[(gsize) y * w + x])
          g_error ("%s (%s): pixel x %u y %u is displayed as %u, PS3.3 gives %u", what,
                   voi_spec, x, y, shown, ref[(gsize) y * w + x]);
      }
  return w * h;
}
