/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Declarative filters: strict parsing with line numbers, the convolution, chains. */

#include <string.h>

#include "lb-declarative.h"
#include "lb-error.h"
#include "lb-filter-registry.h"
#include "lb-pipeline.h"
#include "lb-test-image.h"

static LbFilterRegistry *registry;

#define HEAD "[Filter]\nId=org.example.k\nName=K\nCategory=Test\nType=kernel\n"

static LbFilter *
parse (const char *text,
       GError    **error)
{
  g_autoptr(GBytes) bytes = g_bytes_new (text, strlen (text));

  return lb_declarative_parse (bytes, "test.lbfilter", NULL, NULL, error);
}

static void
test_errors (void)
{
  static const struct {
    const char *text;
    const char *message;  /* the whole message: origin, line number and reason */
  } cases[] = {
    { HEAD "[Kernel]\nWidth=3\nHeight=3\nRow1=1 1 1\nRow2=1 1\nRow3=1 1 1\n",
      "test.lbfilter:10: Row2 has 2 taps, Width=3 needs 3" },
    { HEAD "[Kernel]\nWidth=3\nHeight=3\nRow1=1 1 1\nRow2=1 1 1 1\nRow3=1 1 1\n",
      "test.lbfilter:10: Row2 has more than Width=3 taps" },
    { HEAD "[Kernel]\nWidth=4\nHeight=3\n",
      "test.lbfilter:7: Width=4 must be odd (the kernel needs a centre)" },
    { HEAD "[Kernel]\nWidth=17\nHeight=3\n",
      "test.lbfilter:7: Width=17 is out of range 1..15" },
    { HEAD "[Kernel]\nWidth=1\nHeight=1\nRow1=1\nDivisor=0\n",
      "test.lbfilter:10: Divisor=0: division by zero" },
    { HEAD "[Kernel]\nWidth=1\nHeight=1\nRow1=x\n",
      "test.lbfilter:9: Row1: tap “x” is not an integer in -1048576..1048576" },
    { HEAD "[Kernel]\nWidth=1\nHeight=1\nRow1=1\nBias=1.5\n",
      "test.lbfilter:10: Bias=1.5 is not an integer" },
    { HEAD "[Kernel]\nWidth=1\nHeight=1\nRow1=1\nBias=0.5 percent\n",
      "test.lbfilter:10: Bias=0.5 percent: the only unit is “range” (Bias=0.5 range)" },
    { HEAD "[Kernel]\nWidth=1\nHeight=1\nRow1=1\nBias=1.5 range\n",
      "test.lbfilter:10: Bias=1.5 range: the fraction of the range must be a number in -1..1" },
    { HEAD "[Kernel]\nWidth=1\nHeight=1\nRow1=1\nBias=half range\n",
      "test.lbfilter:10: Bias=half range: the fraction of the range must be a number in -1..1" },
    { HEAD "[Kernel]\nWidth=1\nHeight=1\nRow1=1\nColour=red\n",
      "test.lbfilter:10: unknown key “Colour” in [Kernel]" },
    { HEAD "[Kernel]\nWidth=1\nHeight=1\nRow1=1\nRow2=1\n",
      "test.lbfilter:10: Row2, but Height=1 (line 8)" },
    { HEAD "[Kernel]\nWidth=1\nHeight=3\nRow1=1\nRow3=1\n",
      "test.lbfilter:6: [Kernel] lacks the key Row2" },
    { HEAD "[Kernel]\nWidth=1\nWidth=1\n",
      "test.lbfilter:8: key “Width” appears twice in [Kernel]" },
    { HEAD "[Kernel]\nWidth 3\n", "test.lbfilter:7: “Width 3” is not KEY=VALUE, a [group] or a comment" },
    { "# comment\n[Filter]\nId=Bad Id\nName=K\nCategory=Test\nType=kernel\n[Kernel]\nWidth=1\nHeight=1\nRow1=1\n",
      "test.lbfilter:3: Id=Bad Id: use lowercase letters, digits, '.', '-' and '_' (reverse DNS)" },
    { "[Filter]\nId=a.b\nName=K\nCategory=Test\nType=shader\n",
      "test.lbfilter:5: Type=shader: must be kernel or chain" },
    { "[Filter]\nId=a.b\nCategory=Test\nType=kernel\n[Kernel]\nWidth=1\nHeight=1\nRow1=1\n",
      "test.lbfilter:1: [Filter] lacks the key Name" },
    { "[Filter]\nId=a.b\nName=K\nCategory=Test\nType=chain\n[Kernel]\nWidth=1\n",
      "test.lbfilter:6: unexpected group [Kernel] for Type=chain" },
    { "[Filter]\nId=a.b\nName=K\nCategory=Test\nType=chain\n[Chain]\nStep1=blur\nStep3=blur\n",
      "test.lbfilter:6: the steps must be numbered Step1..Step2 without gaps; Step2 is missing" },
    { "Id=a.b\n", "test.lbfilter:1: key before the first [group]" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(LbFilter) f = parse (cases[i].text, &error);

      g_assert_null (f);
      g_assert_error (error, LB_ERROR, LB_ERROR_PARSE);
      g_assert_cmpstr (error->message, ==, cases[i].message);
    }
}

static void
test_chain_unknown_step (void)
{
  const char *text = "[Filter]\nId=a.chain\nName=C\nCategory=Test\nType=chain\n\n[Chain]\n"
                     "Step1=threshold:level=20\nStep2=no-such-filter:size=3\n";
  const char *bad_param = "[Filter]\nId=a.chain\nName=C\nCategory=Test\nType=chain\n[Chain]\n"
                          "Step1=threshold:level=200\n";
  g_autoptr(GBytes) bytes = g_bytes_new_static (text, strlen (text));
  g_autoptr(GBytes) bytes2 = g_bytes_new_static (bad_param, strlen (bad_param));
  g_autoptr(GError) error = NULL;

  g_assert_null (lb_filter_registry_add_declarative (registry, bytes, "mem:chain", &error));
  g_assert_error (error, LB_ERROR, LB_ERROR_PARSE);
  g_assert_cmpstr (error->message, ==, "mem:chain:9: Step2: no filter “no-such-filter” "
                   "(lightbox-cli filters lists them)");
  g_clear_error (&error);
  g_assert_null (lb_filter_registry_add_declarative (registry, bytes2, "mem:chain", &error));
  g_assert_cmpstr (error->message, ==, "mem:chain:7: Step1: io.github.lightbox.example.threshold: "
                   "parameter “level” = 200 is out of range 0..100");
  g_clear_error (&error);

  /* A step naming a parameter twice is refused at load, on its own line. */
  {
    const char *twice = "[Filter]\nId=a.chain\nName=C\nCategory=Test\nType=chain\n[Chain]\n"
                        "Step1=threshold:level=20\nStep2=threshold:level=20,invert=true,level=30\n";
    g_autoptr(GBytes) bytes3 = g_bytes_new_static (twice, strlen (twice));

    g_assert_null (lb_filter_registry_add_declarative (registry, bytes3, "mem:chain", &error));
    g_assert_error (error, LB_ERROR, LB_ERROR_PARSE);
    g_assert_cmpstr (error->message, ==, "mem:chain:8: Step2: "
                     "io.github.lightbox.example.threshold: parameter “level” is given more "
                     "than once");
  }
}

/* A hand-checked convolution: a horizontal [1 2 1]/4 + bias on a 4×1 gray image, edges
 * clamped to the region. */
static void
test_convolution_values (void)
{
  const char *text = HEAD "[Kernel]\nWidth=3\nHeight=1\nRow1=1 2 1\nDivisor=4\nBias=1\n";
  static const guint8 px[4] = { 0, 100, 200, 255 };
  g_autoptr(LbFilter) f = parse (text, NULL);
  g_autoptr(GBytes) pxb = g_bytes_new_static (px, 4);
  g_autoptr(LbImage) in = lb_image_new (4, 1, LB_FORMAT_GRAY8, 4, pxb, NULL, NULL);
  g_autoptr(LbPipeline) pipe = lb_pipeline_new (NULL);
  g_autoptr(LbImage) out = NULL;
  g_autoptr(GError) error = NULL;
  const guint8 *o;

  g_assert_nonnull (f);
  g_assert_cmpint (lb_filter_get_kind (f), ==, LB_FILTER_KIND_KERNEL);
  g_assert_true (lb_pipeline_append (pipe, f, NULL, &error));
  out = lb_pipeline_run (pipe, in, NULL, NULL, &error);
  g_assert_no_error (error);
  o = lb_image_get_data (out);
  g_assert_cmpuint (o[0], ==, (0 + 0 + 100) / 4 + 1);          /* left edge clamps: 26 */
  g_assert_cmpuint (o[1], ==, (0 + 200 + 200) / 4 + 1);        /* 101 */
  g_assert_cmpuint (o[2], ==, (100 + 400 + 255) / 4 + 1);      /* 189 */
  g_assert_cmpuint (o[3], ==, (200 + 510 + 255) / 4 + 1);      /* right edge clamps: 242 */
}

/* Negative sums truncate toward zero and clamp at 0; alpha passes through; 16 bits. */
static void
test_convolution_formats (void)
{
  const char *text = HEAD "[Kernel]\nWidth=3\nHeight=3\nRow1=0 0 0\nRow2=-1 0 1\n"
                     "Row3=0 0 0\nDivisor=2\nBias=0\n";
  g_autoptr(LbFilter) f = parse (text, NULL);
  static const guint16 gray16[3] = { 1000, 0, 65535 };
  static const guint8 rgba[3 * 4] = { 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120 };
  g_autoptr(GBytes) ab = g_bytes_new_static (gray16, 6);
  g_autoptr(GBytes) bb = g_bytes_new_static (rgba, 12);
  g_autoptr(LbImage) a = lb_image_new (3, 1, LB_FORMAT_GRAY16, 6, ab, NULL, NULL);
  g_autoptr(LbImage) b = lb_image_new (3, 1, LB_FORMAT_RGBA8, 12, bb, NULL, NULL);
  g_autoptr(LbPipeline) pipe = lb_pipeline_new (NULL);
  g_autoptr(LbImage) oa = NULL, ob = NULL;
  g_autoptr(GError) error = NULL;
  const guint16 *o16;
  const guint8 *o8;

  g_assert_true (lb_pipeline_append (pipe, f, NULL, &error));
  oa = lb_pipeline_run (pipe, a, NULL, NULL, &error);
  g_assert_no_error (error);
  o16 = (const guint16 *) lb_image_get_data (oa);
  g_assert_cmpuint (o16[0], ==, 0);                 /* (0 − 1000) / 2 → −500 → 0 */
  g_assert_cmpuint (o16[1], ==, (65535 - 1000) / 2);
  g_assert_cmpuint (o16[2], ==, (65535 - 0) / 2);   /* right edge clamps to itself */
  ob = lb_pipeline_run (pipe, b, NULL, NULL, &error);
  g_assert_no_error (error);
  o8 = lb_image_get_data (ob);
  g_assert_cmpuint (o8[0], ==, (50 - 10) / 2);
  g_assert_cmpuint (o8[3], ==, 40);                 /* alpha unchanged */
  g_assert_cmpuint (o8[4], ==, (90 - 10) / 2);
  g_assert_cmpuint (o8[7], ==, 80);
  g_assert_cmpuint (o8[11], ==, 120);
}

/* "Bias=F range" scales with the depth: F × 255 or F × 65535, rounded to the nearest
 * integer (halves away from zero), added after the division as an integer bias is. */
static void
test_bias_range (void)
{
  static const struct {
    const char *bias;
    guint8 want8[3];     /* for the samples 0, 100, 255 */
    guint16 want16[3];   /* for 0, 30000, 65535 */
  } cases[] = {
    /* 0.5 × 255 = 127.5 → 128; 0.5 × 65535 = 32767.5 → 32768 */
    { "0.5 range", { 128, 228, 255 }, { 32768, 62768, 65535 } },
    /* −0.25 × 255 = −63.75 → −64; −0.25 × 65535 = −16383.75 → −16384 */
    { "-0.25 range", { 0, 36, 191 }, { 0, 13616, 49151 } },
    { "1 range", { 255, 255, 255 }, { 65535, 65535, 65535 } },
    /* an integer bias stays in samples at both depths */
    { "128", { 128, 228, 255 }, { 128, 30128, 65535 } },
  };
  static const guint8 px8[3] = { 0, 100, 255 };
  static const guint16 px16[3] = { 0, 30000, 65535 };
  g_autoptr(GBytes) b8 = g_bytes_new_static (px8, sizeof px8);
  g_autoptr(GBytes) b16 = g_bytes_new_static (px16, sizeof px16);
  g_autoptr(LbImage) in8 = lb_image_new (3, 1, LB_FORMAT_GRAY8, 3, b8, NULL, NULL);
  g_autoptr(LbImage) in16 = lb_image_new (3, 1, LB_FORMAT_GRAY16, 6, b16, NULL, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    for (guint reference = 0; reference < 2; reference++)
      {
        g_autofree char *text = g_strdup_printf (HEAD "[Kernel]\nWidth=1\nHeight=1\nRow1=1\n"
                                                 "Bias=%s\n", cases[i].bias);
        g_autoptr(GError) error = NULL;
        g_autoptr(LbFilter) f = parse (text, &error);
        g_autoptr(LbPipeline) pipe = lb_pipeline_new (NULL);
        g_autoptr(LbImage) o8 = NULL, o16 = NULL;

        g_assert_no_error (error);
        _lb_declarative_set_reference (reference);
        g_assert_true (lb_pipeline_append (pipe, f, NULL, &error));
        o8 = lb_pipeline_run (pipe, in8, NULL, NULL, &error);
        g_assert_no_error (error);
        o16 = lb_pipeline_run (pipe, in16, NULL, NULL, &error);
        g_assert_no_error (error);
        for (guint k = 0; k < 3; k++)
          {
            g_assert_cmpuint (lb_image_get_data (o8)[k], ==, cases[i].want8[k]);
            g_assert_cmpuint (((const guint16 *) lb_image_get_data (o16))[k], ==,
                              cases[i].want16[k]);
          }
      }
  _lb_declarative_set_reference (FALSE);
}

/* A random kernel: sides 1–15 (odd, independent), taps of one magnitude class (small,
 * medium, or up to the ±2^20 limit, which makes the sums need 64 bits) with zeros among
 * them, a divisor (the default tap sum, or any sign and size) and a bias. */
static char *
random_kernel (GRand *rand, gint64 *out_sum_abs)
{
  const int kw = 2 * g_rand_int_range (rand, 0, 8) + 1, kh = 2 * g_rand_int_range (rand, 0, 8) + 1;
  const int mag = g_rand_int_range (rand, 0, 3);
  const gint32 lim = mag == 0 ? 9 : mag == 1 ? 3000 : 1048576;
  GString *t = g_string_new (HEAD "[Kernel]\n");
  gint64 sum_abs = 0;

  g_string_append_printf (t, "Width=%d\nHeight=%d\n", kw, kh);
  for (int j = 0; j < kh; j++)
    {
      g_string_append_printf (t, "Row%d=", j + 1);
      for (int i = 0; i < kw; i++)
        {
          const gint32 v = g_rand_int_range (rand, 0, 4) == 0 ? 0
                                                             : g_rand_int_range (rand, -lim, lim + 1);

          sum_abs += ABS (v);
          g_string_append_printf (t, "%s%d", i ? " " : "", v);
        }
      g_string_append_c (t, '\n');
    }
  if (g_rand_boolean (rand))
    g_string_append_printf (t, "Divisor=%d\n",
                            (g_rand_boolean (rand) ? 1 : -1)
                              * g_rand_int_range (rand, 1, g_rand_boolean (rand) ? 20 : 200000000));
  if (g_rand_boolean (rand))
    g_string_append_printf (t, "Bias=%d\n", g_rand_int_range (rand, -65535, 65536));
  *out_sum_abs = sum_abs;
  return g_string_free (t, FALSE);
}

/* The fast convolution path gives the reference's bytes: 120 random kernels on all eight
 * formats (noise over the full sample range), with and without a selection (some smaller
 * than the kernel), on 1–3 threads and several band heights. */
static void
test_convolution_fast (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (0xc0de);
  guint n_wide = 0, n_runs = 0;

  for (int k = 0; k < 120; k++)
    {
      gint64 sum_abs;
      g_autofree char *text = random_kernel (rand, &sum_abs);
      g_autoptr (GError) error = NULL;
      g_autoptr (LbFilter) f = parse (text, &error);
      const LbSampleFormat fmt = (LbSampleFormat) (k % LB_N_FORMATS);
      /* the fast path's sums need 64 bits past Σ|tap| · max sample ≥ 2^31 − 1 */
      const gboolean wide = sum_abs * (lb_sample_format_get_sample_size (fmt) == 2 ? 65535 : 255)
                            >= G_MAXINT32;
      const guint w = (guint) g_rand_int_range (rand, 1, 70), h = (guint) g_rand_int_range (rand, 1, 40);
      g_autoptr (LbImage) in = lb_test_image_new (w, h, fmt, (guint32) k + 1);
      LbImage *out[2] = { NULL, NULL };
      const LbFilterRect sel = { g_rand_int_range (rand, -3, (gint32) w), g_rand_int_range (rand, -3, (gint32) h),
                                 g_rand_int_range (rand, 1, (gint32) w + 4),
                                 g_rand_int_range (rand, 1, (gint32) h + 4) };
      const gboolean use_sel = k % 3 == 1 && sel.x + sel.width > 0 && sel.y + sel.height > 0;

      g_assert_no_error (error);
      n_wide += wide;
      for (int ref = 0; ref <= 1; ref++)
        {
          g_autoptr (LbPipeline) pipe = lb_pipeline_new (NULL);

          _lb_declarative_set_reference (ref);
          lb_pipeline_set_n_threads (pipe, ref ? 1 : 1 + (guint) (k % 3));
          lb_pipeline_set_band_height (pipe, ref ? 0 : (guint) (k % 5));
          if (use_sel)
            lb_pipeline_set_selection (pipe, &sel);
          g_assert_true (lb_pipeline_append (pipe, f, NULL, &error));
          out[ref] = lb_pipeline_run (pipe, in, NULL, NULL, &error);
          g_assert_no_error (error);
        }
      _lb_declarative_set_reference (FALSE);
      if (!lb_image_equal_pixels (out[0], out[1]))
        g_error ("kernel %d (%s, %u×%u%s) differs from the reference:\n%s", k,
                 lb_sample_format_to_string (fmt), w, h, use_sel ? ", selection" : "", text);
      g_object_unref (out[0]), g_object_unref (out[1]);
      n_runs++;
    }
  g_test_message ("%u kernels identical to the reference, %u with 64-bit sums", n_runs, n_wide);
  g_assert_cmpuint (n_wide, >, 10);
  g_assert_cmpuint (n_wide, <, n_runs - 10);
}

static void
test_shipped_files (void)
{
  g_autoptr(LbFilter) k = lb_filter_registry_lookup (registry, "soft-sharpen");
  g_autoptr(LbFilter) c = lb_filter_registry_lookup (registry, "poster");

  g_assert_nonnull (k);
  g_assert_nonnull (c);
  g_assert_true (g_str_has_suffix (lb_filter_get_origin (k), "soft-sharpen.lbfilter"));
  g_assert_cmpstr (lb_filter_get_name (k), ==, "Soft sharpen");
  g_assert_cmpint (lb_filter_get_kind (c), ==, LB_FILTER_KIND_CHAIN);
  g_assert_cmpstr (lb_filter_get_chain (c)[1], ==, "threshold:level=40");
  /* The shipped files all load (an installed Lightbox elsewhere on the machine may add
   * problems of its own, so only ours are checked). */
  {
    GPtrArray *problems = lb_filter_registry_get_problems (registry);
    for (guint i = 0; i < problems->len; i++)
      g_assert_false (g_str_has_prefix (g_ptr_array_index (problems, i),
                                        g_getenv ("LIGHTBOX_FILTER_PATH")));
  }
}

static void
test_localised_name (void)
{
  const char *text = "[Filter]\nId=a.l\nName=Sharpen\nName[de]=Schärfen\nName[fr]=Netteté\n"
                     "Category=Test\nType=kernel\n[Kernel]\nWidth=1\nHeight=1\nRow1=1\n";
  g_autoptr(LbFilter) de = NULL, plain = NULL;
  const char *old = g_getenv ("LANGUAGE");
  g_autofree char *saved = g_strdup (old);

  g_setenv ("LANGUAGE", "de", TRUE);
  de = parse (text, NULL);
  g_unsetenv ("LANGUAGE");
  plain = parse (text, NULL);
  if (saved != NULL)
    g_setenv ("LANGUAGE", saved, TRUE);
  g_assert_cmpstr (lb_filter_get_name (de), ==, "Schärfen");
  g_assert_cmpstr (lb_filter_get_name (plain), ==, "Sharpen");
}

/* Random corruptions of valid files: every result is a filter or an LB_ERROR_PARSE naming
 * the origin, never a crash (run under valgrind/ASan by the test setups); the check alone
 * (lightbox-store's) accepts and rejects the same files with the same messages. */
static void
test_mutations (void)
{
  static const char *const seeds[] = {
    HEAD "[Kernel]\nWidth=3\nHeight=3\nRow1=1 2 1\nRow2=2 4 2\nRow3=1 2 1\nDivisor=16\nBias=0\n",
    "[Filter]\nId=a.chain\nName=C\nName[de]=K\nCategory=Test\nType=chain\n[Chain]\n"
    "Step1=threshold:level=20\nStep2=soft-sharpen\n",
  };
  const char alphabet[] = "[]=#\n 0123456789-xRowStepKernelChain;\\\xc3\xa9";
  GRand *rand = g_rand_new_with_seed (1234);
  guint n_ok = 0, n_err = 0;

  for (guint round = 0; round < 4000; round++)
    {
      const char *seed = seeds[round % G_N_ELEMENTS (seeds)];
      GString *text = g_string_new (seed);
      guint edits = g_rand_int_range (rand, 1, 4);
      g_autoptr(GBytes) bytes = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(GError) check_error = NULL;
      g_autoptr(LbFilter) f = NULL;

      for (guint e = 0; e < edits; e++)
        {
          gsize pos = g_rand_int_range (rand, 0, (gint32) text->len);
          char c = alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)];

          switch (g_rand_int_range (rand, 0, 3))
            {
            case 0:
              text->str[pos] = c;
              break;
            case 1:
              g_string_insert_c (text, pos, c);
              break;
            default:
              g_string_erase (text, pos, 1);
              break;
            }
        }
      bytes = g_string_free_to_bytes (text);
      f = lb_declarative_parse (bytes, "fuzz.lbfilter", NULL, NULL, &error);
      g_assert_cmpint (lb_declarative_check (bytes, "fuzz.lbfilter", &check_error), ==, f != NULL);
      if (f == NULL)
        g_assert_cmpstr (check_error->message, ==, error->message);
      if (f != NULL)
        n_ok++;
      else
        {
          g_assert_error (error, LB_ERROR, LB_ERROR_PARSE);
          g_assert_true (g_str_has_prefix (error->message, "fuzz.lbfilter"));
          n_err++;
        }
    }
  g_test_message ("%u mutations parsed, %u rejected", n_ok, n_err);
  g_assert_cmpuint (n_err, >, 0);
  g_assert_cmpuint (n_ok, >, 0);
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  registry = lb_filter_registry_new_default ();
  g_test_add_func ("/declarative/errors", test_errors);
  g_test_add_func ("/declarative/chain-unknown-step", test_chain_unknown_step);
  g_test_add_func ("/declarative/convolution-values", test_convolution_values);
  g_test_add_func ("/declarative/convolution-formats", test_convolution_formats);
  g_test_add_func ("/declarative/bias-range", test_bias_range);
  g_test_add_func ("/declarative/convolution-fast", test_convolution_fast);
  g_test_add_func ("/declarative/shipped-files", test_shipped_files);
  g_test_add_func ("/declarative/localised-name", test_localised_name);
  g_test_add_func ("/declarative/mutations", test_mutations);
  ret = g_test_run ();
  g_object_unref (registry);
  return ret;
}
