/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-xv-engine"

/* The xv plugin through the engine's registry and pipeline against its kernels' reference
 * paths called directly. Sharpen, edge, emboss, oil and blend declare LB_FILTER_FLAG_OVERWRITES,
 * so the pipeline does not copy the source into their bands first: these tests prove the bands
 * come out complete anyway — every format (alpha passes through), with and without a selection
 * (the columns outside it are the source's; for blend also its ring), for several thread counts
 * and band heights, all byte-identical to the reference. Blend's default (optimised) path is
 * compared with its kernel's optimised path, blend:exact=true with its reference path. */

#include <string.h>

#include "lb-filter-registry.h"
#include "lb-image.h"
#include "lb-pipeline.h"
#include "lb-xv-blend.h"
#include "lb-xv-edge.h"
#include "lb-xv-emboss.h"
#include "lb-xv-oil.h"
#include "lb-xv-sharpen.h"

typedef enum { K_SHARPEN, K_EDGE, K_EMBOSS, K_OIL, K_BLEND, K_BLEND_EXACT } Kind;

typedef struct {
  Kind kind;
  const char *step;
} Case;

static const Case cases[] = {
  { K_SHARPEN, "sharpen:strength=75" },
  { K_SHARPEN, "sharpen:strength=30,exact=true" },
  { K_EDGE, "edge" },
  { K_EDGE, "edge:ring=corrected" },
  { K_EMBOSS, "emboss" },
  { K_OIL, "oil" },
  { K_OIL, "oil:window=symmetric,size=5" },
  { K_BLEND, "blend" },
  { K_BLEND_EXACT, "blend:exact=true" },
};

static LbImage *
random_image (GRand *rand, guint w, guint h, LbSampleFormat format)
{
  gsize stride;
  g_autoptr (GError) error = NULL;
  guint8 *px = lb_image_alloc_pixels (w, h, format, NULL, &stride, &error);
  const guint ch = lb_sample_format_get_channels (format);
  const gboolean wide = lb_sample_format_get_bit_depth (format) == 16;

  g_assert_no_error (error);
  for (guint y = 0; y < h; y++)
    for (guint i = 0; i < w * ch; i++)
      {
        /* Smooth ramps plus noise, so sharpen clamps and edge has a real maximum; alpha
         * random. */
        const guint v = (ch == 2 || ch == 4) && i % ch == ch - 1
                          ? (guint) g_rand_int_range (rand, 0, 256)
                          : (guint) MIN (255, (int) ((i / ch) * 3 + y * 2) % 256
                                                + g_rand_int_range (rand, 0, 24));

        if (wide)
          ((guint16 *) (void *) (px + y * stride))[i] = (guint16) (v * 257 + (y & 7));
        else
          px[y * stride + i] = (guint8) v;
      }
  return lb_image_new_take (w, h, format, stride, px, NULL);
}

/* The reference: a copy of the source, the kernel's reference path on the selection (for
 * blend its optimised path, the plugin's default). */
static guint8 *
reference (const Case *c, LbImage *image, const LbKernelRect *sel, gsize *out_stride)
{
  const LbSampleFormat f = lb_image_get_format (image);
  const gsize stride = lb_image_get_stride (image);
  const int h = (int) lb_image_get_height (image);
  guint8 *out = g_memdup2 (lb_image_get_data (image), stride * h);
  LbKernelBuf src = { (guint8 *) lb_image_get_data (image), stride,
                      (int) lb_image_get_width (image), h,
                      (int) lb_sample_format_get_channels (f),
                      (int) lb_sample_format_get_bit_depth (f) };
  LbKernelBuf dst = src;
  g_autoptr (GError) error = NULL;

  dst.data = out;
  switch (c->kind)
    {
    case K_SHARPEN:
      {
        LbXvSharpen st;
        const int strength = strstr (c->step, "=30") ? 30 : 75;

        g_assert_true (lb_xv_sharpen_prepare (&st, &src, sel, strength, &error));
        lb_xv_sharpen_process_ref (&st, &src, &dst, 0, h);
      }
      break;
    case K_EDGE:
      {
        LbXvEdge st;

        g_assert_true (lb_xv_edge_prepare (&st, &src, sel, strstr (c->step, "corrected") != NULL,
                                           &error));
        lb_xv_edge_process_ref (&st, &src, &dst, 0, h);
        lb_xv_edge_finish_ref (&st, &dst, lb_xv_edge_reduce (&st, &dst, 0, h), 0, h);
      }
      break;
    case K_EMBOSS:
      {
        LbXvEmboss st;

        g_assert_true (lb_xv_emboss_prepare (&st, &src, sel, &error));
        lb_xv_emboss_process_ref (&st, &src, &dst, 0, h);
      }
      break;
    case K_OIL:
      {
        LbXvOil st;
        const int size = strstr (c->step, "size=5") ? 5 : 0;

        g_assert_true (lb_xv_oil_prepare (&st, &src, sel, size, &error));
        lb_xv_oil_process_ref (&st, &src, &dst, 0, h);
      }
      break;
    case K_BLEND:
    case K_BLEND_EXACT:
    default:
      {
        LbXvBlend st;

        /* Blend's default path may differ from its reference by 1: the engine must
         * give exactly what the kernel's optimised path gives. */
        g_assert_true (lb_xv_blend_prepare (&st, &src, sel, &error));
        (c->kind == K_BLEND_EXACT ? lb_xv_blend_process_ref : lb_xv_blend_process) (&st, &src,
                                                                                  &dst, 0, h);
      }
      break;
    }
  g_assert_no_error (error);
  *out_stride = stride;
  return out;
}

static void
test_engine (void)
{
  static const LbSampleFormat formats[] = {
    LB_FORMAT_GRAY8, LB_FORMAT_GRAYA8, LB_FORMAT_RGB8, LB_FORMAT_RGBA8, LB_FORMAT_GRAY16,
    LB_FORMAT_GRAYA16, LB_FORMAT_RGB16, LB_FORMAT_RGBA16,
  };
  g_autoptr (LbFilterRegistry) registry = lb_filter_registry_new_default ();
  g_autoptr (GRand) rand = g_rand_new_with_seed (5);
  guint n_checked = 0;

  for (gsize f = 0; f < G_N_ELEMENTS (formats); f++)
    for (int with_sel = 0; with_sel <= 1; with_sel++)
      {
        const guint w = 97, h = 61;
        const LbKernelRect ksel = { 13, 7, 55, 40 };
        const LbFilterRect fsel = { 13, 7, 55, 40 };

        for (gsize k = 0; k < G_N_ELEMENTS (cases); k++)
          {
            g_autoptr (LbFilter) filter = NULL;
            g_autoptr (LbFilterParams) params = NULL;
            g_autoptr (GError) error = NULL;

            g_assert_true (lb_pipeline_parse_step (registry, cases[k].step, &filter, &params,
                                                   &error));
            g_assert_no_error (error);
            if (!lb_filter_supports_format (filter, formats[f]))
              continue;
            for (guint threads = 1; threads <= 3; threads++)
              for (guint band = 0; band <= 7; band += 7)
                {
                  /* A new image every run: a destination that reuses the memory of an earlier
                   * output must not pass by holding the same alpha. */
                  g_autoptr (LbImage) image = random_image (rand, w, h, formats[f]);
                  g_autoptr (LbPipeline) pipeline = lb_pipeline_new (registry);
                  g_autoptr (LbImage) out = NULL;
                  gsize ref_stride;
                  g_autofree guint8 *want = reference (&cases[k], image, with_sel ? &ksel : NULL,
                                                       &ref_stride);

                  lb_pipeline_set_n_threads (pipeline, threads);
                  lb_pipeline_set_band_height (pipeline, band);
                  if (with_sel)
                    lb_pipeline_set_selection (pipeline, &fsel);
                  g_assert_true (lb_pipeline_append (pipeline, filter, params, &error));
                  out = lb_pipeline_run (pipeline, image, NULL, NULL, &error);
                  g_assert_no_error (error);
                  for (guint y = 0; y < h; y++)
                    if (memcmp (lb_image_get_row (out, y), want + y * ref_stride,
                                lb_image_get_row_size (out)) != 0)
                      g_error ("%s on %s, selection %d, %u threads, band %u: row %u differs "
                               "from the reference", cases[k].step,
                               lb_sample_format_to_string (formats[f]), with_sel, threads,
                               band, y);
                  n_checked++;
                }
          }
      }
  g_test_message ("%u pipeline runs identical to the reference", n_checked);
  /* The plugin offers every format (LB_FILTER_FORMATS_ALL): nothing was skipped. */
  g_assert_cmpuint (n_checked, ==, G_N_ELEMENTS (formats) * 2 * G_N_ELEMENTS (cases) * 3 * 2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/xv-engine/overwrites-identical", test_engine);
  return g_test_run ();
}
