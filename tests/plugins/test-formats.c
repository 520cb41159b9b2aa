/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-formats"

/* Every shipped filter (the xv, xvgeom and enhance plugins, the example plugin and the
 * declarative filters in plugins/filters) on all eight sample formats, through the registry
 * and the pipeline, held to what the formats have in common rather than to a second
 * implementation:
 *
 *  - alpha: GRAYA and RGBA give exactly the colour samples of the same image without its
 *    alpha channel, and the alpha samples of the source (alpha is straight and passes
 *    through every filter unchanged);
 *  - per-channel filters (blur, despeckle, median, gaussian, unsharp, blend, the rotates,
 *    pixelize, spread, threshold, the convolutions): each channel of an RGB result is the
 *    GRAY result on that channel alone, at 8 and 16 bits;
 *  - filters that mix the channels (sharpen on the HSV value, edge's luminance maximum,
 *    emboss's luminance, oil's exact colours): an RGB image with R = G = B gives R = G = B,
 *    the GRAY result (xv-filters.md §0; also MONO (v, v, v) = v at 16 bits);
 *  - thread count and band height do not change a byte.
 *
 * Together with test-xv-engine (the same filters on colour RGB16 and RGBA16 against their
 * kernels' reference paths) this puts the 16-bit colour and gray+alpha formats on the same
 * footing as GRAY8, GRAY16, RGB8 and RGBA8. The 16-bit images use the whole 0..65535 range,
 * so a path that works on the high bytes only, or clamps at 255, fails. */

#include <string.h>

#include "lb-filter-registry.h"
#include "lb-image.h"
#include "lb-pipeline.h"
#include "lb-test-image.h"

typedef enum { PER_CHANNEL, MIXES_CHANNELS } Kind;

typedef struct {
  const char *step8;   /* the step on 8-bit images */
  const char *step16;  /* on 16-bit images; NULL: step8 */
  Kind kind;
} Case;

static const Case cases[] = {
  { "blur", NULL, PER_CHANNEL },
  { "blur:size=7", NULL, PER_CHANNEL },
  { "despeckle", NULL, PER_CHANNEL },
  { "despeckle:size=9", NULL, PER_CHANNEL },
  { "median:radius=1", NULL, PER_CHANNEL },
  { "median:radius=2", NULL, PER_CHANNEL },
  { "median:radius=6", NULL, PER_CHANNEL },
  { "median:radius=50", NULL, PER_CHANNEL },
  { "gaussian:sigma=0.6", NULL, PER_CHANNEL },
  { "gaussian:sigma=3", NULL, PER_CHANNEL },
  { "unsharp:radius=2,amount=1.5,threshold=4", NULL, PER_CHANNEL },
  { "blend", NULL, PER_CHANNEL },
  { "blend:exact=true", NULL, PER_CHANNEL },
  { "rotate:angle=30", NULL, PER_CHANNEL },
  { "rotate:angle=-117.5,exact=true", NULL, PER_CHANNEL },
  { "rotate-clear:angle=45,clear-red=200,clear-green=200,clear-blue=200",
    "rotate-clear:angle=45,clear-red=51234,clear-green=51234,clear-blue=51234", PER_CHANNEL },
  { "pixelize", NULL, PER_CHANNEL },
  { "pixelize:width=5,height=3,xv-bug=true", NULL, PER_CHANNEL },
  { "spread", NULL, PER_CHANNEL },
  { "spread:width=3,height=2", NULL, PER_CHANNEL },
  { "threshold:level=40", NULL, PER_CHANNEL },
  { "binomial-blur", NULL, PER_CHANNEL },
  { "soft-sharpen", NULL, PER_CHANNEL },
  { "poster", NULL, PER_CHANNEL },
  { "sharpen", NULL, MIXES_CHANNELS },
  { "sharpen:strength=40,exact=true", NULL, MIXES_CHANNELS },
  { "edge", NULL, MIXES_CHANNELS },
  { "edge:ring=corrected", NULL, MIXES_CHANNELS },
  { "emboss", NULL, MIXES_CHANNELS },
  { "oil", NULL, MIXES_CHANNELS },
  { "oil:window=symmetric,size=3", NULL, MIXES_CHANNELS },
  { "oil:window=symmetric,size=9", NULL, MIXES_CHANNELS },
};

/* Wide enough for the vector rows and the median's 256-column strips to have tails; one
 * band of it holds over 4096 distinct 16-bit values per channel, past the 16-bit median's
 * rank path (Huang's histograms then). */
#define W 283
#define H 96

/* One plane of samples (0..maxv): ramps over the whole range, noise, and flat patches of a
 * few levels (so oil and the medians meet repeated values), different for every @seed. */
static guint16 *
make_plane (guint32 seed, guint maxv)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  guint16 *p = g_new (guint16, W * H);

  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      {
        const int zone = (x / 21 + y / 19 + (int) seed) % 3;
        guint v;

        if (zone == 0)
          v = (guint) ((guint64) maxv * (guint) (x * 5 + y * 3) / (guint) (W * 5 + H * 3));
        else if (zone == 1)
          v = (guint) g_rand_int_range (rand, 0, (gint32) maxv + 1);
        else
          v = (guint) g_rand_int_range (rand, 0, 4) * (maxv / 3);
        p[y * W + x] = (guint16) MIN (v, maxv);
      }
  return p;
}

/* An image of @format from @planes (one per channel, alpha last). */
static LbImage *
image_from_planes (LbSampleFormat format, guint16 *const *planes)
{
  const guint ch = lb_sample_format_get_channels (format);
  const gboolean wide = lb_sample_format_get_bit_depth (format) == 16;
  gsize stride;
  g_autoptr (GError) error = NULL;
  guint8 *px = lb_image_alloc_pixels (W, H, format, NULL, &stride, &error);

  g_assert_no_error (error);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      for (guint c = 0; c < ch; c++)
        {
          const guint16 v = planes[c][y * W + x];

          if (wide)
            ((guint16 *) (void *) (px + y * stride))[x * ch + c] = v;
          else
            px[y * stride + x * ch + c] = (guint8) v;
        }
  return lb_image_new_take (W, H, format, stride, px, NULL);
}

typedef struct {
  LbFilterRegistry *registry;
  const LbFilterRect *sel;
  guint threads;
  guint band;
} Run;

static LbImage *
run (const Run *r, const char *step, LbImage *image)
{
  g_autoptr (LbPipeline) pipeline = lb_pipeline_new (r->registry);
  g_autoptr (GError) error = NULL;
  LbImage *out;

  lb_pipeline_set_n_threads (pipeline, r->threads);
  lb_pipeline_set_band_height (pipeline, r->band);
  lb_pipeline_set_seed (pipeline, 7);
  if (r->sel != NULL)
    lb_pipeline_set_selection (pipeline, r->sel);
  g_assert_true (lb_pipeline_append_step (pipeline, step, &error));
  g_assert_no_error (error);
  out = lb_pipeline_run (pipeline, image, NULL, NULL, &error);
  if (out == NULL)
    g_error ("%s on %s: %s", step, lb_sample_format_to_string (lb_image_get_format (image)),
             error->message);
  return out;
}

/* Channel @ca of @a equals channel @cb of @b at every pixel; returns the samples compared. */
static guint
expect_channel (LbImage *a, guint ca, LbImage *b, guint cb, const char *what)
{
  for (guint y = 0; y < H; y++)
    for (guint x = 0; x < W; x++)
      if (lb_test_image_sample (a, x, y, ca) != lb_test_image_sample (b, x, y, cb))
        g_error ("%s: channel %u of the %s result at (%u, %u) is %u, expected %u", what, ca,
                 lb_sample_format_to_string (lb_image_get_format (a)), x, y,
                 lb_test_image_sample (a, x, y, ca), lb_test_image_sample (b, x, y, cb));
  return W * H;
}

/* The alpha samples of @out are @alpha's. */
static void
expect_alpha (LbImage *out, const guint16 *alpha, const char *what)
{
  const guint a = lb_sample_format_get_channels (lb_image_get_format (out)) - 1;

  for (guint y = 0; y < H; y++)
    for (guint x = 0; x < W; x++)
      if (lb_test_image_sample (out, x, y, a) != alpha[y * W + x])
        g_error ("%s: alpha at (%u, %u) changed from %u to %u", what, x, y, alpha[y * W + x],
                 lb_test_image_sample (out, x, y, a));
}

/* One case at one depth, selection and schedule; returns the samples compared. */
static guint
check_case (const Case *k, int depth, const Run *r, guint32 seed)
{
  const guint maxv = depth == 16 ? 65535 : 255;
  const char *step = depth == 16 && k->step16 != NULL ? k->step16 : k->step8;
  const LbSampleFormat gray = depth == 16 ? LB_FORMAT_GRAY16 : LB_FORMAT_GRAY8;
  const LbSampleFormat graya = depth == 16 ? LB_FORMAT_GRAYA16 : LB_FORMAT_GRAYA8;
  const LbSampleFormat rgb = depth == 16 ? LB_FORMAT_RGB16 : LB_FORMAT_RGB8;
  const LbSampleFormat rgba = depth == 16 ? LB_FORMAT_RGBA16 : LB_FORMAT_RGBA8;
  g_autofree guint16 *p0 = make_plane (seed, maxv);
  g_autofree guint16 *p1 = make_plane (seed + 1, maxv);
  g_autofree guint16 *p2 = make_plane (seed + 2, maxv);
  g_autofree guint16 *alpha = make_plane (seed + 3, maxv);
  g_autofree char *what = g_strdup_printf ("%s, %d bits, %s, %u threads, band %u", step, depth,
                                           r->sel ? "selection" : "whole image", r->threads,
                                           r->band);
  guint16 *gray_planes[] = { p0, alpha };
  guint16 *rgb_planes[] = { p0, p1, p2, alpha };
  guint16 *grey_rgb_planes[] = { p0, p0, p0 };
  g_autoptr (LbImage) g_in = image_from_planes (gray, gray_planes);
  g_autoptr (LbImage) ga_in = image_from_planes (graya, gray_planes);
  g_autoptr (LbImage) rgb_in = image_from_planes (rgb, rgb_planes);
  g_autoptr (LbImage) rgba_in = image_from_planes (rgba, rgb_planes);
  g_autoptr (LbImage) g_out = run (r, step, g_in);
  g_autoptr (LbImage) ga_out = run (r, step, ga_in);
  g_autoptr (LbImage) rgb_out = run (r, step, rgb_in);
  g_autoptr (LbImage) rgba_out = run (r, step, rgba_in);
  guint n = 0;

  /* Alpha passes through; the colour is that of the image without alpha. */
  n += expect_channel (ga_out, 0, g_out, 0, what);
  expect_alpha (ga_out, alpha, what);
  for (guint c = 0; c < 3; c++)
    n += expect_channel (rgba_out, c, rgb_out, c, what);
  expect_alpha (rgba_out, alpha, what);

  if (k->kind == PER_CHANNEL)
    {
      /* Each RGB channel on its own, as a gray image. */
      guint16 *planes[] = { p0, p1, p2 };

      for (guint c = 0; c < 3; c++)
        {
          guint16 *one[] = { planes[c] };
          g_autoptr (LbImage) in = image_from_planes (gray, one);
          g_autoptr (LbImage) out = run (r, step, in);

          n += expect_channel (rgb_out, c, out, 0, what);
        }
    }
  else
    {
      /* Gray in RGB: every channel is the gray result. */
      g_autoptr (LbImage) in = image_from_planes (rgb, grey_rgb_planes);
      g_autoptr (LbImage) out = run (r, step, in);

      for (guint c = 0; c < 3; c++)
        n += expect_channel (out, c, g_out, 0, what);
    }
  return n;
}

/* Everything the shipped filters do on every format, for one case (a test per case, so a
 * failure names the filter). */
static void
test_case (gconstpointer data)
{
  const Case *k = data;
  g_autoptr (LbFilterRegistry) registry = lb_filter_registry_new_default ();
  const LbFilterRect sel = { 9, 6, 261, 74 };
  const Run runs[] = {
    { registry, NULL, 1, 0 },
    { registry, &sel, 1, 0 },
    { registry, NULL, 3, 5 },
    { registry, &sel, 2, 7 },
    { registry, NULL, 1, H },
  };
  guint n = 0;

  for (int depth = 8; depth <= 16; depth += 8)
    for (gsize i = 0; i < G_N_ELEMENTS (runs); i++)
      n += check_case (k, depth, &runs[i], 11 + (guint32) i);
  g_test_message ("%s: %u samples compared", k->step8, n);
}

/* Every filter the default registry holds declares all eight formats. */
static void
test_declared (void)
{
  g_autoptr (LbFilterRegistry) registry = lb_filter_registry_new_default ();
  GListModel *model = G_LIST_MODEL (registry);
  const guint n = g_list_model_get_n_items (model);
  guint checked = 0;

  g_assert_cmpuint (n, >=, G_N_ELEMENTS (cases) / 2);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (LbFilter) f = g_list_model_get_item (model, i);

      for (int fmt = 0; fmt < LB_N_FORMATS; fmt++)
        if (!lb_filter_supports_format (f, (LbSampleFormat) fmt))
          {
            g_autofree char *formats = lb_filter_dup_formats_string (f);

            /* A chain's formats are its steps', checked when it runs. */
            if (*formats == '\0')
              break;
            g_error ("%s does not declare %s (it declares %s)", lb_filter_get_id (f),
                     lb_sample_format_to_string ((LbSampleFormat) fmt), formats);
          }
      checked++;
    }
  g_test_message ("%u filters declare every format", checked);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/formats/declared", test_declared);
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/formats/%s", cases[i].step8);

      g_strdelimit (path + 9, ":=,", '-');
      g_test_add_data_func (path, &cases[i], test_case);
    }
  return g_test_run ();
}
