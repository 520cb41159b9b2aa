/* SPDX-License-Identifier: GPL-3.0-or-later */
/* LbValueModel on its own: real-world values of offset-binary samples, LUT clamping, the
 * precision values are shown with, the stored range write-back checks, and the text form. */
#include <string.h>

#include "lb-error.h"
#include "lb-value-model.h"

static LbValueModel *
rescale_model (gboolean is_signed, guint bits_stored, double slope, double intercept)
{
  g_autoptr (LbValueModelBuilder) b = lb_value_model_builder_new (NULL, 16);

  lb_value_model_builder_set_source (b, is_signed, bits_stored);
  lb_value_model_builder_set_rescale (b, slope, intercept);
  return lb_value_model_builder_end (g_steal_pointer (&b));
}

static void
test_values (void)
{
  g_autoptr (LbValueModel) ct = rescale_model (TRUE, 12, 1, -1024);
  g_autoptr (LbValueModel) tenth = rescale_model (TRUE, 16, 0.1, 0.3);
  g_autoptr (LbValueModelBuilder) b = lb_value_model_builder_new (NULL, 16);
  g_autoptr (LbValueModel) lut = NULL;
  const guint16 data[] = { 7, 8, 9 };
  double s, i;
  gint32 lo, hi;

  /* stored −2048 is sample 30720; the offset never reaches the value */
  g_assert_cmpint (lb_value_model_sample_to_stored (ct, 30720), ==, -2048);
  g_assert_cmpfloat (lb_value_model_to_value (ct, 30720), ==, -2048 - 1024);
  /* exactly stored × slope + intercept, as PS3.3 computes it (not via a moved intercept) */
  g_assert_cmpfloat (lb_value_model_to_value (tenth, 32768 - 7), ==, -7 * 0.1 + 0.3);
  g_assert_true (lb_value_model_get_rescale (ct, &s, &i));
  g_assert_cmpfloat (s, ==, 1);
  g_assert_cmpfloat (i, ==, -1024 - 32768);
  g_assert_true (lb_value_model_get_stored_range (ct, &lo, &hi));
  g_assert_cmpint (lo, ==, -2048);
  g_assert_cmpint (hi, ==, 2047);

  /* a Modality LUT clamps below the first mapped value and past the last entry */
  lb_value_model_builder_set_source (b, TRUE, 16);
  lb_value_model_builder_set_modality_lut (b, &(LbValueLut) { -1, 3, 16, data, "OD" });
  lut = lb_value_model_builder_end (g_steal_pointer (&b));
  g_assert_cmpfloat (lb_value_model_to_value (lut, 32768 - 5), ==, 7);
  g_assert_cmpfloat (lb_value_model_to_value (lut, 32768 - 1), ==, 7);
  g_assert_cmpfloat (lb_value_model_to_value (lut, 32768), ==, 8);
  g_assert_cmpfloat (lb_value_model_to_value (lut, 32768 + 1), ==, 9);
  g_assert_cmpfloat (lb_value_model_to_value (lut, 65535), ==, 9);
  g_assert_false (lb_value_model_get_rescale (lut, NULL, NULL));
}

static void
test_precision (void)
{
  static const struct {
    double slope, intercept, value;
    int decimals;
    const char *text;
  } cases[] = {
    { 1, -1024, 19, 0, "19" },
    { 1, -1024, -0.0, 0, "0" },
    { 0.5, -1024, -1023.5, 1, "-1023.5" },
    { 0.25, 0, 3.75, 2, "3.75" },
    { 2.5, -1000.5, 12, 1, "12.0" },
    /* PET-like: no short decimal; digits down to one step of the slope and one more */
    { 0.0123456789012, 0, 5.123456789, -1, "5.123" },
    { 0.0123456789012, 0, 1234.5678, -1, "1234.568" },
    { 0.0123456789012, 0, 0.0370370367, -1, "0.037" },
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autoptr (LbValueModel) m = rescale_model (FALSE, 16, cases[k].slope, cases[k].intercept);
      g_autofree char *text = lb_value_model_format_value (m, cases[k].value);

      g_assert_cmpint (lb_value_model_get_decimals (m), ==, cases[k].decimals);
      g_assert_cmpstr (text, ==, cases[k].text);
    }
}

static void
test_text_form (void)
{
  g_autoptr (LbValueModel) m = rescale_model (TRUE, 12, 0.5, -1024.25);
  g_autofree char *text = lb_value_model_serialize (m);
  g_autoptr (LbValueModel) back = lb_value_model_deserialize (text, NULL);
  static const char *const bad[] = {
    "not a variant",
    "{'version': <uint32 2>, 'sample-bits': <uint32 16>}",
    "{'version': <uint32 1>, 'sample-bits': <uint32 12>}",
    "{'version': <uint32 1>, 'sample-bits': <uint32 8>, 'source': <(true, uint32 8)>}",
    "{'version': <uint32 1>, 'sample-bits': <uint32 16>, 'rescale': <(0.0, 1.0)>}",
    "{'version': <uint32 1>, 'sample-bits': <uint32 16>, 'voi-function': <'CUBIC'>}",
    "{'version': <uint32 1>, 'sample-bits': <uint32 16>, 'windows': <[(40.0, 0.0, '')]>}",
    "{'version': <uint32 1>, 'sample-bits': <uint32 16>, "
    "'modality-lut': <(0, uint32 3, uint32 8, [uint16 1, 2], '')>}",
    "{'version': <uint32 1>, 'sample-bits': <uint32 16>, "
    "'voi-luts': <[(0, uint32 2, uint32 8, [uint16 1, 256], '')]>}",
    "{'version': <uint32 1>, 'sample-bits': <uint32 16>, 'presentation-lut-shape': <'LIN OD'>}",
  };

  g_assert_nonnull (back);
  g_assert_true (lb_value_model_equal (m, back));
  for (guint k = 0; k < G_N_ELEMENTS (bad); k++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (LbValueModel) none = lb_value_model_deserialize (bad[k], &error);

      g_test_message ("%s: %s", bad[k], error ? error->message : "(accepted)");
      g_assert_null (none);
      g_assert_error (error, LB_ERROR, LB_ERROR_PARSE);
    }
}

/* The Presentation LUT Shape decides the inversion when given (PS3.3 C.11.6.1.2), once: with
 * MONOCHROME1 INVERSE is the one inversion MONOCHROME1 asks for. Without it, MONOCHROME1. A
 * colour model keeps only its lossy history. Both survive the text form. */
static void
test_presentation_and_colour (void)
{
  static const struct {
    gboolean            mono1;
    LbPresentationShape shape;
    gboolean            inverse;
  } cases[] = {
    { FALSE, LB_PRESENTATION_UNSPECIFIED, FALSE },
    { TRUE, LB_PRESENTATION_UNSPECIFIED, TRUE },
    { TRUE, LB_PRESENTATION_INVERSE, TRUE },
    { FALSE, LB_PRESENTATION_IDENTITY, FALSE },
    { FALSE, LB_PRESENTATION_INVERSE, TRUE },
    { TRUE, LB_PRESENTATION_IDENTITY, FALSE },
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autoptr (LbValueModelBuilder) b = lb_value_model_builder_new (NULL, 16);
      g_autoptr (LbValueModel) m = NULL, back = NULL;
      g_autofree char *text = NULL;

      lb_value_model_builder_set_monochrome1 (b, cases[k].mono1);
      lb_value_model_builder_set_presentation_shape (b, cases[k].shape);
      m = lb_value_model_builder_end (g_steal_pointer (&b));
      g_assert_cmpint (lb_value_model_get_presentation_inverse (m), ==, cases[k].inverse);
      text = lb_value_model_serialize (m);
      back = lb_value_model_deserialize (text, NULL);
      g_assert_true (lb_value_model_equal (m, back));
      g_assert_cmpint (lb_value_model_get_presentation_shape (back), ==, cases[k].shape);
    }
  {
    g_autoptr (LbValueModelBuilder) b = lb_value_model_builder_new (NULL, 8);
    g_autoptr (LbValueModel) m = NULL, back = NULL;
    g_autofree char *text = NULL;
    const char *ratios, *methods;

    lb_value_model_builder_set_rescale (b, 2, -10);
    lb_value_model_builder_add_window (b, 40, 400, "SOFT");
    lb_value_model_builder_set_monochrome1 (b, TRUE);
    lb_value_model_builder_set_lossy (b, TRUE, "12.5", "ISO_10918_1");
    lb_value_model_builder_set_colour (b, TRUE);
    m = lb_value_model_builder_end (g_steal_pointer (&b));
    g_assert_true (lb_value_model_get_colour (m));
    g_assert_cmpint (lb_value_model_get_modality_kind (m), ==, LB_MODALITY_NONE);
    g_assert_cmpuint (lb_value_model_get_n_windows (m), ==, 0);
    g_assert_false (lb_value_model_get_presentation_inverse (m));
    g_assert_true (lb_value_model_get_lossy (m, &ratios, &methods));
    g_assert_cmpstr (ratios, ==, "12.5");
    g_assert_cmpstr (methods, ==, "ISO_10918_1");
    text = lb_value_model_serialize (m);
    back = lb_value_model_deserialize (text, NULL);
    g_assert_true (lb_value_model_equal (m, back));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/value-model/values", test_values);
  g_test_add_func ("/value-model/precision", test_precision);
  g_test_add_func ("/value-model/text-form", test_text_form);
  g_test_add_func ("/value-model/presentation-and-colour", test_presentation_and_colour);
  return g_test_run ();
}
