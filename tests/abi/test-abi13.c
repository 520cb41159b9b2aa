/* SPDX-License-Identifier: GPL-3.0-or-later */

/*
 * Plugin ABI 1.3: what a filter sees of an image's metadata (LbFilterMeta), in process and
 * in lightbox-filter-host alike; a filter that thresholds in real-world values against the
 * DICOM definition computed here; and a plugin built against the ABI 1.2 header, which
 * must load and give the same output as the same source built against 1.3.
 */

#include <string.h>

#include "lb-error.h"
#include "lb-image-meta.h"
#include "lb-isolation.h"
#include "lb-pipeline.h"
#include "lb-plugin-loader.h"
#include "lb-test-files.h"
#include "lb-test-image.h"

static char *copy_dir;

/* The filters of the fixture plugin @file (in $LB_ABI_PLUGIN_DIR). */
static GPtrArray *
load_fixture (const char *file)
{
  g_autofree char *path = lb_test_build_path ("LB_ABI_PLUGIN_DIR", file, NULL);
  g_autoptr(GError) error = NULL;
  GPtrArray *filters = lb_plugin_load_file (path, copy_dir, &error);

  g_assert_no_error (error);
  return filters;
}

static LbFilter *
find (GPtrArray  *filters,
      const char *alias)
{
  for (guint i = 0; i < filters->len; i++)
    if (g_strcmp0 (lb_filter_get_alias (filters->pdata[i]), alias) == 0)
      return filters->pdata[i];
  g_error ("no filter %s", alias);
}

static LbImage *
run (LbFilter       *filter,
     const char     *param,
     double          value,
     LbImage        *input,
     LbIsolation     isolation,
     GError        **error)
{
  g_autoptr(LbPipeline) pipe = lb_pipeline_new (NULL);
  g_autoptr(LbFilterParams) params = lb_filter_params_new (filter);

  if (param != NULL)
    g_assert_true (lb_filter_params_set_number (params, param, value, NULL));
  lb_pipeline_set_isolation (pipe, isolation);
  lb_pipeline_set_n_threads (pipe, 2);
  if (!lb_pipeline_append (pipe, filter, params, error))
    return NULL;
  return lb_pipeline_run (pipe, input, NULL, NULL, error);
}

/* A CT-like slice: signed 12-bit values held as offset binary, HU = stored × 1 − 1024, the
 * samples 0 … 3999 are padding, a soft-tissue window, 0.5 × 0.7 mm pixels. */
static LbImage *
ct_image (guint width,
          guint height)
{
  g_autoptr(LbImage) noise = lb_test_image_new (width, height, LB_FORMAT_GRAY16, 3);
  g_autoptr(LbImageMeta) meta = lb_image_meta_new ();
  g_autoptr(LbValueModel) model = NULL;
  LbValueModelBuilder *b = lb_value_model_builder_new (NULL, 16);
  g_autoptr(GError) error = NULL;
  LbImage *image;

  lb_value_model_builder_set_source (b, TRUE, 12);
  lb_value_model_builder_set_rescale (b, 1.0, -1024.0);
  lb_value_model_builder_set_units (b, "HU");
  lb_value_model_builder_set_padding (b, 0, 3999);
  lb_value_model_builder_add_window (b, 40, 400, "SOFT TISSUE");
  model = lb_value_model_builder_end (b);
  lb_image_meta_set_value_model (meta, model);
  lb_image_meta_set_pixel_spacing (meta, 0.5, 0.7);
  lb_image_meta_set_text (meta, "Modality", "CT");
  image = lb_image_new (width, height, LB_FORMAT_GRAY16, lb_image_get_stride (noise),
                        lb_image_get_bytes (noise), meta, &error);
  g_assert_no_error (error);
  return image;
}

static void
assert_describes (LbFilter   *describe,
                  LbImage    *image,
                  const char *expect)
{
  static const LbIsolation where[] = { LB_ISOLATION_NONE, LB_ISOLATION_ALL };

  for (guint i = 0; i < G_N_ELEMENTS (where); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(LbImage) out = run (describe, NULL, 0, image, where[i], &error);
      g_autofree char *message = g_strdup_printf ("io.github.lightbox.test.meta-describe: %s",
                                                  expect);

      g_assert_null (out);
      g_assert_nonnull (error);
      g_assert_cmpstr (g_quark_to_string (error->domain), ==, "lb-abi13-test");
      g_assert_cmpstr (error->message, ==, message);
    }
}

static void
test_meta (void)
{
  g_autoptr(GPtrArray) filters = load_fixture ("abi13-meta." G_MODULE_SUFFIX);
  LbFilter *describe = find (filters, "meta-describe");
  g_autoptr(LbImage) ct = ct_image (33, 21);
  g_autoptr(LbImage) plain = lb_test_image_new (9, 7, LB_FORMAT_RGB8, 1);
  g_autoptr(LbImageMeta) spaced_meta = lb_image_meta_new ();
  g_autoptr(LbImage) spaced = NULL;

  /* flags: RESCALE | SIGNED | PADDING | SPACING | WINDOW; the intercept is the sample
   * domain's: −1024 − 32768 × 1 */
  assert_describes (describe, ct,
                    "flags=0x1f slope=1 intercept=-33792 units=HU offset=32768 bits=12 "
                    "padding=0..3999 spacing=0.5x0.7 window=40/400 modality=CT aux=no");
  /* a photograph: nothing known */
  assert_describes (describe, plain,
                    "flags=0x0 slope=1 intercept=0 units=- offset=0 bits=0 padding=0..0 "
                    "spacing=0x0 window=0/0 modality=- aux=no");
  /* colour with a spacing: the spacing alone (no value model for colour) */
  lb_image_meta_set_pixel_spacing (spaced_meta, 0.25, 0.25);
  spaced = lb_image_new (9, 7, LB_FORMAT_RGB8, lb_image_get_stride (plain),
                         lb_image_get_bytes (plain), spaced_meta, NULL);
  assert_describes (describe, spaced,
                    "flags=0x8 slope=1 intercept=0 units=- offset=0 bits=0 padding=0..0 "
                    "spacing=0.25x0.25 window=0/0 modality=- aux=no");
}

/* Thresholding in HU, against the DICOM definition (PS3.3 C.11.1.1.2): HU = stored ×
 * slope + intercept, stored = sample − 32768 for a signed source; padding untouched. */
static void
test_value_threshold (void)
{
  g_autoptr(GPtrArray) filters = load_fixture ("abi13-meta." G_MODULE_SUFFIX);
  LbFilter *level = find (filters, "value-threshold");
  g_autoptr(LbImage) ct = ct_image (61, 47);
  static const LbIsolation where[] = { LB_ISOLATION_NONE, LB_ISOLATION_ALL };
  static const double levels[] = { -30000, -1000, 0, 40.5, 20000 };

  for (guint w = 0; w < G_N_ELEMENTS (where); w++)
    for (guint l = 0; l < G_N_ELEMENTS (levels); l++)
      {
        g_autoptr(GError) error = NULL;
        g_autoptr(LbImage) out = run (level, "level", levels[l], ct, where[w], &error);
        guint n_white = 0, n_padding = 0;

        g_assert_no_error (error);
        for (guint y = 0; y < 47; y++)
          for (guint x = 0; x < 61; x++)
            {
              guint sample = lb_test_image_sample (ct, x, y, 0);
              gint32 stored = (gint32) sample - 32768;
              double hu = stored * 1.0 + -1024.0;
              guint expect = sample <= 3999 ? sample : hu >= levels[l] ? 65535 : 0;

              g_assert_cmpuint (lb_test_image_sample (out, x, y, 0), ==, expect);
              n_white += expect == 65535;
              n_padding += sample <= 3999;
            }
        /* the levels cut the image somewhere (the test image spans the whole range) */
        if (levels[l] == 0)
          g_assert_cmpuint (n_white, >, 0);
        g_assert_cmpuint (n_padding, >, 0);
        g_assert_cmpuint (n_padding, <, 61 * 47);
      }
}

/* One plugin source (check-plugin's fixture without a bug: it inverts colour) built against
 * the ABI 1.2 header (tests/abi/abi-1.2) and against this one: both load, and give the same
 * bytes, in process and isolated. */
static void
test_old_plugin (void)
{
  g_autoptr(GPtrArray) old = load_fixture ("abi12-invert." G_MODULE_SUFFIX);
  g_autoptr(GPtrArray) now = load_fixture ("abi13-invert." G_MODULE_SUFFIX);
  g_autoptr(LbImage) ct = ct_image (61, 47);
  g_autoptr(LbImage) rgba = lb_test_image_new (61, 47, LB_FORMAT_RGBA8, 9);
  LbImage *inputs[] = { ct, rgba };

  g_assert_cmpuint (old->len, ==, 1);
  g_assert_cmpuint (now->len, ==, 1);
  for (guint i = 0; i < G_N_ELEMENTS (inputs); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(LbImage) a = run (old->pdata[0], NULL, 0, inputs[i], LB_ISOLATION_NONE, &error);
      g_autoptr(LbImage) b = NULL;
      g_autoptr(LbImage) c = NULL;

      g_assert_no_error (error);
      b = run (old->pdata[0], NULL, 0, inputs[i], LB_ISOLATION_ALL, &error);
      g_assert_no_error (error);
      c = run (now->pdata[0], NULL, 0, inputs[i], LB_ISOLATION_NONE, &error);
      g_assert_no_error (error);
      g_assert_true (lb_image_equal_pixels (a, b));
      g_assert_true (lb_image_equal_pixels (a, c));
      g_assert_false (lb_image_equal_pixels (a, inputs[i]));
    }
}

/* The example plugin keeps the pixel padding of a CT, and thresholds the rest by its level
 * (percent of the sample range, as before ABI 1.3). */
static void
test_example_padding (void)
{
  g_autofree char *path = lb_test_build_path ("LB_BUILD_ROOT", "plugins",
                                              "lb-example-threshold." G_MODULE_SUFFIX, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) filters = lb_plugin_load_file (path, copy_dir, &error);
  g_autoptr(LbImage) ct = ct_image (61, 47);
  g_autoptr(LbImage) out = NULL;
  guint limit = (guint) (50 / 100.0 * 65535 + 0.5), n_padding = 0;

  g_assert_no_error (error);
  out = run (filters->pdata[0], "level", 50, ct, LB_ISOLATION_NONE, &error);
  g_assert_no_error (error);
  for (guint y = 0; y < 47; y++)
    for (guint x = 0; x < 61; x++)
      {
        guint v = lb_test_image_sample (ct, x, y, 0);

        n_padding += v <= 3999;
        g_assert_cmpuint (lb_test_image_sample (out, x, y, 0), ==,
                          v <= 3999 ? v : v >= limit ? 65535 : 0);
      }
  /* the test image has padding to keep (samples below 4000 are common in it) */
  g_assert_cmpuint (n_padding, >, 0);
}

/* A filter with its own output geometry (LB_FILTER_FLAG_GEOMETRY): the crop of the
 * selection, in process and isolated, equals the selected samples (× 257 when it makes
 * 8-bit samples 16-bit) and keeps the CT's metadata; an output of 0 pixels is refused with
 * a message. */
static void
test_geometry (void)
{
  g_autoptr(GPtrArray) filters = load_fixture ("abi13-meta." G_MODULE_SUFFIX);
  LbFilter *crop = find (filters, "crop");
  g_autoptr(LbImage) ct = ct_image (61, 47);
  g_autoptr(LbImage) rgb = lb_test_image_new (61, 47, LB_FORMAT_RGB8, 5);
  const LbFilterRect sel = { 7, 5, 30, 21 };
  static const LbIsolation where[] = { LB_ISOLATION_NONE, LB_ISOLATION_ALL };

  for (guint w = 0; w < G_N_ELEMENTS (where); w++)
    for (guint deep = 0; deep < 2; deep++)
      {
        LbImage *inputs[] = { ct, rgb };

        for (guint i = 0; i < G_N_ELEMENTS (inputs); i++)
          {
            g_autoptr(LbPipeline) pipe = lb_pipeline_new (NULL);
            g_autoptr(LbFilterParams) params = lb_filter_params_new (crop);
            g_autoptr(LbImage) out = NULL;
            g_autoptr(GError) error = NULL;
            guint ch = lb_sample_format_get_channels (lb_image_get_format (inputs[i]));
            gboolean eight = lb_sample_format_get_bit_depth (lb_image_get_format (inputs[i])) == 8;
            double x, y;

            g_assert_true (lb_filter_params_set_number (params, "deep", deep, NULL));
            lb_pipeline_set_isolation (pipe, where[w]);
            lb_pipeline_set_selection (pipe, &sel);
            g_assert_true (lb_pipeline_append (pipe, crop, params, NULL));
            out = lb_pipeline_run (pipe, inputs[i], NULL, NULL, &error);
            g_assert_no_error (error);
            g_assert_cmpuint (lb_image_get_width (out), ==, 30);
            g_assert_cmpuint (lb_image_get_height (out), ==, 21);
            g_assert_cmpuint (lb_sample_format_get_bit_depth (lb_image_get_format (out)), ==,
                              deep || !eight ? 16 : 8);
            for (guint yy = 0; yy < 21; yy++)
              for (guint xx = 0; xx < 30; xx++)
                for (guint c = 0; c < ch; c++)
                  {
                    guint v = lb_test_image_sample (inputs[i], xx + 7, yy + 5, c);

                    g_assert_cmpuint (lb_test_image_sample (out, xx, yy, c), ==,
                                      deep && eight ? v * 257 : v);
                  }
            /* the CT keeps its model and its spacing (a crop does not scale) */
            if (inputs[i] == ct)
              {
                g_assert_nonnull (lb_image_meta_get_value_model (lb_image_get_meta (out)));
                g_assert_true (lb_image_meta_get_pixel_spacing (lb_image_get_meta (out), &x, &y));
                g_assert_cmpfloat (x, ==, 0.5);
                g_assert_cmpfloat (y, ==, 0.7);
              }
          }
      }

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(LbImage) out = NULL;
    g_autoptr(LbPipeline) pipe = lb_pipeline_new (NULL);
    g_autoptr(LbFilterParams) params = lb_filter_params_new (crop);

    g_assert_true (lb_filter_params_set_number (params, "bad", 1, NULL));
    g_assert_true (lb_pipeline_append (pipe, crop, params, NULL));
    lb_pipeline_set_isolation (pipe, LB_ISOLATION_NONE);
    out = lb_pipeline_run (pipe, rgb, NULL, NULL, &error);
    g_assert_null (out);
    g_assert_error (error, LB_ERROR, LB_ERROR_PLUGIN);
    g_assert_cmpstr (error->message, ==, "io.github.lightbox.test.crop: prepare() declared an "
                                         "output of 0×47 pixels (1 to 65535 each way)");
  }
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  g_unsetenv ("LIGHTBOX_PLUGIN_ISOLATION");
  copy_dir = lb_test_make_tmpdir ("test-abi13");
  g_test_add_func ("/abi13/meta", test_meta);
  g_test_add_func ("/abi13/value-threshold", test_value_threshold);
  g_test_add_func ("/abi13/old-plugin", test_old_plugin);
  g_test_add_func ("/abi13/example-padding", test_example_padding);
  g_test_add_func ("/abi13/geometry", test_geometry);
  ret = g_test_run ();
  lb_test_remove_tree (copy_dir);
  g_free (copy_dir);
  return ret;
}
