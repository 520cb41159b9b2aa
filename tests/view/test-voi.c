/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The display lookup table against DICOM PS3.3, entry by entry: for many value models and VOI
 * settings (LINEAR at odd, even, unit and sub-unit widths, LINEAR_EXACT, SIGMOID, VOI LUT
 * Sequences, Modality LUT Sequences, signed offset-binary samples, MONOCHROME1 and Invert),
 * lb_lut_build() must give exactly the bytes that tests/view/ps33-display.py computes with
 * pydicom and numpy from the standard's formulas. */
#include "config.h"

#include <math.h>

#include "lb-render.h"
#include "lb-test-ps33.h"

typedef struct {
  guint         bits;
  gboolean      is_signed;
  int           kind;        /* 0 none, 1 rescale, 2 modality LUT */
  double        slope, intercept;
  LbVoiFunction function;
  double        center, width;
  gboolean      voi_lut;
  gboolean      mono1, invert;
} Case;

/* A Modality LUT of 500 entries from stored value 100 (12-bit output) and a VOI LUT of 4096
 * entries from −1024 (10-bit output): smooth, non-linear, like real ones. */
#define MLUT_FIRST 100
#define MLUT_N 500
#define VLUT_FIRST (-1024)
#define VLUT_N 4096
static guint16 mlut[MLUT_N], vlut[VLUT_N];

static void
fill_luts (void)
{
  for (guint i = 0; i < MLUT_N; i++)
    mlut[i] = (guint16) (4095 * pow (i / (double) (MLUT_N - 1), 0.7));
  for (guint i = 0; i < VLUT_N; i++)
    vlut[i] = (guint16) (1023 / (1 + exp (-(i - 1100.0) / 60.0)));
}

static void
append_lut (GString *line, const char *key, gint32 first, guint bits, const guint16 *data,
            guint n)
{
  g_string_append_printf (line, " %s=%d,%u", key, first, bits);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (line, ",%u", data[i]);
}

static LbValueModel *
case_model (const Case *c, GString *line)
{
  g_autoptr (LbValueModelBuilder) b = lb_value_model_builder_new (NULL, c->bits);

  g_string_append_printf (line, "bits=%u offset=%u", c->bits, c->is_signed ? 32768 : 0);
  lb_value_model_builder_set_source (b, c->is_signed, c->bits);
  if (c->kind == 1)
    {
      char s[G_ASCII_DTOSTR_BUF_SIZE], i[G_ASCII_DTOSTR_BUF_SIZE];

      lb_value_model_builder_set_rescale (b, c->slope, c->intercept);
      g_string_append_printf (line, " slope=%s intercept=%s",
                              g_ascii_dtostr (s, sizeof s, c->slope),
                              g_ascii_dtostr (i, sizeof i, c->intercept));
    }
  else if (c->kind == 2)
    {
      lb_value_model_builder_set_modality_lut (b, &(LbValueLut) { MLUT_FIRST, MLUT_N, 12, mlut,
                                                                  NULL });
      append_lut (line, "mlut", MLUT_FIRST, 12, mlut, MLUT_N);
    }
  if (c->voi_lut)
    {
      lb_value_model_builder_add_voi_lut (b, &(LbValueLut) { VLUT_FIRST, VLUT_N, 10, vlut,
                                                             NULL });
      append_lut (line, "vlut", VLUT_FIRST, 10, vlut, VLUT_N);
    }
  else
    {
      char cs[G_ASCII_DTOSTR_BUF_SIZE], ws[G_ASCII_DTOSTR_BUF_SIZE];

      g_string_append_printf (line, " function=%s center=%s width=%s",
                              lb_voi_function_to_string (c->function),
                              g_ascii_dtostr (cs, sizeof cs, c->center),
                              g_ascii_dtostr (ws, sizeof ws, c->width));
    }
  lb_value_model_builder_set_monochrome1 (b, c->mono1);
  if (c->mono1)
    g_string_append (line, " mono1=1");
  if (c->invert)
    g_string_append (line, " invert=1");
  g_string_append_c (line, '\n');
  return lb_value_model_builder_end (g_steal_pointer (&b));
}

static void
test_lut_against_ps33 (void)
{
  const Case cases[] = {
    /* a signed CT: HU = stored − 1024, samples stored + 32768 */
    { 16, TRUE, 1, 1, -1024, LB_VOI_LINEAR, 40, 80 },       /* 4 levels off before */
    { 16, TRUE, 1, 1, -1024, LB_VOI_LINEAR, 35, 10 },       /* 25 levels off before */
    { 16, TRUE, 1, 1, -1024, LB_VOI_LINEAR, 35, 1 },        /* 127 off before: a step */
    { 16, TRUE, 1, 1, -1024, LB_VOI_LINEAR, 35, 0.5 },      /* below 1: taken as 1 */
    { 16, TRUE, 1, 1, -1024, LB_VOI_LINEAR, 35.5, 2 },
    { 16, TRUE, 1, 1, -1024, LB_VOI_LINEAR, 40, 401 },      /* odd width */
    { 16, TRUE, 1, 1, -1024, LB_VOI_LINEAR, -600, 1500 },
    { 16, TRUE, 1, 1, -1024, LB_VOI_LINEAR, 400.25, 1800.5 },
    { 16, TRUE, 1, 1, -1024, LB_VOI_LINEAR_EXACT, 40, 80 },
    { 16, TRUE, 1, 1, -1024, LB_VOI_LINEAR_EXACT, 35, 0.25 },
    { 16, TRUE, 1, 1, -1024, LB_VOI_LINEAR_EXACT, 35, 1 },
    { 16, TRUE, 1, 1, -1024, LB_VOI_SIGMOID, 40, 80 },
    { 16, TRUE, 1, 1, -1024, LB_VOI_SIGMOID, -600, 1500 },
    { 16, TRUE, 1, 1, -1024, LB_VOI_SIGMOID, 35, 0.5 },
    /* presentation: MONOCHROME1, Invert, both */
    { 16, TRUE, 1, 1, -1024, LB_VOI_LINEAR, 40, 80, FALSE, TRUE, FALSE },
    { 16, TRUE, 1, 1, -1024, LB_VOI_LINEAR, 40, 80, FALSE, FALSE, TRUE },
    { 16, TRUE, 1, 1, -1024, LB_VOI_SIGMOID, 40, 80, FALSE, TRUE, TRUE },
    /* slopes: 0.5, PET-like, negative */
    { 16, FALSE, 1, 0.5, -1024.25, LB_VOI_LINEAR, 40, 80 },
    { 16, FALSE, 1, 0.000123456789, 0, LB_VOI_LINEAR_EXACT, 3.5, 2.25 },
    { 16, FALSE, 1, 0.000123456789, 0, LB_VOI_LINEAR, 3.5, 2.25 },
    { 16, TRUE, 1, -2, 100, LB_VOI_LINEAR, 0, 5000 },
    /* no Modality LUT: values are stored values */
    { 16, FALSE, 0, 1, 0, LB_VOI_LINEAR, 2048, 4096 },
    { 16, TRUE, 0, 1, 0, LB_VOI_LINEAR, 0, 1 },
    { 8, FALSE, 0, 1, 0, LB_VOI_LINEAR, 128, 256 },
    { 8, FALSE, 0, 1, 0, LB_VOI_LINEAR, 127.5, 255 },
    { 8, FALSE, 0, 1, 0, LB_VOI_LINEAR, 35, 10 },
    { 8, FALSE, 0, 1, 0, LB_VOI_LINEAR, 35, 1 },
    { 8, FALSE, 0, 1, 0, LB_VOI_LINEAR, 35, 0.01 },
    { 8, FALSE, 0, 1, 0, LB_VOI_LINEAR_EXACT, 35, 0.01 },
    { 8, FALSE, 0, 1, 0, LB_VOI_SIGMOID, 100, 33, FALSE, TRUE },
    { 8, FALSE, 1, 0.5, 3, LB_VOI_LINEAR, 40, 7 },
    /* a Modality LUT Sequence, then a window */
    { 16, FALSE, 2, 0, 0, LB_VOI_LINEAR, 2000, 1000 },
    { 16, FALSE, 2, 0, 0, LB_VOI_SIGMOID, 2000, 1000, FALSE, TRUE },
    { 8, FALSE, 2, 0, 0, LB_VOI_LINEAR_EXACT, 1000, 3000 },
    /* a VOI LUT Sequence, after a rescale and after a Modality LUT */
    { 16, TRUE, 1, 1, -1024, 0, 0, 0, TRUE },
    { 16, TRUE, 1, 1, -1024, 0, 0, 0, TRUE, TRUE },
    { 16, FALSE, 2, 0, 0, 0, 0, 0, TRUE },
    { 8, FALSE, 1, 8, -1100, 0, 0, 0, TRUE, FALSE, TRUE },
  };
  g_autoptr (GString) lines = g_string_new (NULL);
  g_autoptr (GPtrArray) models = g_ptr_array_new_with_free_func (
    (GDestroyNotify) lb_value_model_unref);
  g_autoptr (GBytes) ref = NULL;
  const guint8 *want;
  gsize len, at = 0;

  fill_luts ();
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    g_ptr_array_add (models, case_model (&cases[i], lines));
  ref = lb_test_ps33_tables (lines->str);
  if (ref == NULL)
    return;
  want = g_bytes_get_data (ref, &len);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const Case *c = &cases[i];
      LbValueModel *model = models->pdata[i];
      LbVoi voi = { c->function, c->center, c->width, NULL };
      LbLut lut = { 0 };
      guint n = 1u << c->bits, bad = 0;

      if (c->voi_lut)
        voi.lut = lb_value_model_get_voi_lut (model, 0);
      lb_lut_build (&lut, c->bits, model, &voi, c->invert);
      g_assert_cmpuint (lut.n_entries, ==, n);
      g_assert_cmpuint (at + n, <=, len);
      for (guint s = 0; s < n; s++)
        if (lut.table[s] != want[at + s])
          {
            if (bad++ < 5)
              g_test_message ("case %u (%s %g/%g): sample %u (value %.17g) shows %u, PS3.3 %u",
                              i, lb_voi_function_to_string (c->function), c->center, c->width, s,
                              lb_sample_value (model, s), lut.table[s], want[at + s]);
          }
      if (bad > 0)
        g_error ("case %u: %u of %u entries differ from PS3.3", i, bad, n);
      at += n;
      lb_lut_clear (&lut);
    }
  g_assert_cmpuint (at, ==, len);
}

/* The differences the issue measured against the old (x − (c − w/2)) / w ramp: the standard's
 * LINEAR puts the ends of the window elsewhere. Checked here as plain arithmetic of PS3.3
 * C.11.2.1.2.1 at the points where they show. */
static void
test_linear_ends (void)
{
  LbVoi voi = { LB_VOI_LINEAR, 35, 1, NULL };

  /* w = 1: a step between 34 and 35 (c − 0.5 = 34.5); the old ramp gave 128 at 35 */
  g_assert_cmpfloat (lb_voi_apply (&voi, 34), ==, 0);
  g_assert_cmpfloat (lb_voi_apply (&voi, 34.5), ==, 0);
  g_assert_cmpfloat (lb_voi_apply (&voi, 35), ==, 255);
  /* 40/80: x = 0 is the bottom (≤ 40 − 0.5 − 39.5), x = 79 the top; the old ramp reached 255
   * only at 80 */
  voi = (LbVoi) { LB_VOI_LINEAR, 40, 80, NULL };
  g_assert_cmpfloat (lb_voi_apply (&voi, 0), ==, 0);
  g_assert_cmpfloat (lb_voi_apply (&voi, 79), ==, 255);
  g_assert_cmpfloat (lb_voi_apply (&voi, 79.5), ==, 255);
  g_assert_cmpfloat (lb_voi_apply (&voi, 39.5), ==, 127.5);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/voi/lut-against-ps33", test_lut_against_ps33);
  g_test_add_func ("/voi/linear-ends", test_linear_ends);
  return g_test_run ();
}
