/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-xv-kernels-a"

/* The xv kernels blur, sharpen, edge, emboss, oil, blend and despeckle:
 *  - both paths against xv's own output (tests/data/golden, see MANIFEST.txt) on 8-bit RGB,
 *    with and without a selection, for several band splits;
 *  - GRAY8 and RGBA8 against the same golden data (a gray image is the one-channel case of a
 *    R = G = B image; alpha must come back untouched);
 *  - 16 bits: relations to the 8-bit golden data that the maths guarantees (oil, despeckle),
 *    hand-computed cases, and the two paths against each other;
 *  - reference against optimised on random images of odd sizes, all 8 formats, random
 *    selections and random band splits;
 *  - the corrected modes (oil window, edge ring) and parameter errors;
 *  - sharpen's exact integer and vector paths (test-xv-kernels-a-sharpen.c). */

#include <string.h>

#include "lb-image-loader.h"
#include "test-xv-kernels-a.h"

/* *@out: a copy of @src (another stride) run through the filter. Bands: cuts[0] = 0 <
 * cuts[1] < … < cuts[n] = height. NULL cuts = one band. */
static gboolean
run_filter (const Spec         *spec,
            const LbKernelBuf  *src,
            LbKernelBuf       **out,
            const LbKernelRect *sel,
            gboolean            fast,
            const int          *cuts,
            int                 ncuts,
            GError            **error)
{
  const int one[2] = { 0, src->height };
  LbKernelBuf *dst = *out = kb_copy_padded (src, 3);
  LbXvKernelState st;
  gboolean ok = FALSE;

  if (cuts == NULL)
    cuts = one, ncuts = 1;

  switch (spec->id)
    {
    case F_BLUR: ok = lb_xv_blur_prepare (&st.blur, src, sel, spec->param, error); break;
    case F_SHARPEN:
      ok = lb_xv_sharpen_prepare (&st.sharpen, src, sel, spec->param, error);
      /* alt: the optimised path's portable loops instead of its AVX2 row */
      st.sharpen.no_simd = spec->alt;
      break;
    case F_EDGE: ok = lb_xv_edge_prepare (&st.edge, src, sel, spec->alt, error); break;
    case F_EMBOSS: ok = lb_xv_emboss_prepare (&st.emboss, src, sel, error); break;
    case F_OIL: ok = lb_xv_oil_prepare (&st.oil, src, sel, spec->param, error); break;
    case F_BLEND: ok = lb_xv_blend_prepare (&st.blend, src, sel, error); break;
    case F_DESPECKLE:
      ok = lb_xv_despeckle_prepare (&st.despeckle, src, sel, spec->param, error);
      break;
    default: g_assert_not_reached ();
    }
  if (!ok)
    return FALSE;

  /* Bands in reverse order: no kernel may depend on the order in which bands run. */
  for (int k = ncuts - 1; k >= 0; k--)
    {
      const int y0 = cuts[k], y1 = cuts[k + 1];

      switch (spec->id)
        {
        case F_BLUR:
          (fast ? lb_xv_blur_process : lb_xv_blur_process_ref) (&st.blur, src, dst, y0, y1);
          break;
        case F_SHARPEN:
          (fast ? lb_xv_sharpen_process : lb_xv_sharpen_process_ref) (&st.sharpen, src, dst,
                                                                      y0, y1);
          break;
        case F_EDGE:
          (fast ? lb_xv_edge_process : lb_xv_edge_process_ref) (&st.edge, src, dst, y0, y1);
          break;
        case F_EMBOSS:
          (fast ? lb_xv_emboss_process : lb_xv_emboss_process_ref) (&st.emboss, src, dst,
                                                                    y0, y1);
          break;
        case F_OIL:
          (fast ? lb_xv_oil_process : lb_xv_oil_process_ref) (&st.oil, src, dst, y0, y1);
          break;
        case F_BLEND:
          (fast ? lb_xv_blend_process : lb_xv_blend_process_ref) (&st.blend, src, dst,
                                                                  y0, y1);
          break;
        case F_DESPECKLE:
          (fast ? lb_xv_despeckle_process : lb_xv_despeckle_process_ref) (&st.despeckle,
                                                                          src, dst, y0, y1);
          break;
        default: g_assert_not_reached ();
        }
    }

  if (spec->id == F_EDGE)
    {
      guint maxv = 0;

      for (int k = 0; k < ncuts; k++)
        maxv = MAX (maxv, lb_xv_edge_reduce (&st.edge, dst, cuts[k], cuts[k + 1]));
      for (int k = 0; k < ncuts; k++)
        (fast ? lb_xv_edge_finish : lb_xv_edge_finish_ref) (&st.edge, dst, maxv, cuts[k],
                                                            cuts[k + 1]);
    }
  return TRUE;
}

void
run_ok (const Spec *spec, const LbKernelBuf *src, LbKernelBuf **dst, const LbKernelRect *sel,
        gboolean fast, const int *cuts, int ncuts)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (run_filter (spec, src, dst, sel, fast, cuts, ncuts, &error));
  g_assert_no_error (error);
}

/* Number of samples of channels [c0, c1) that differ; reports the first and, in @max_diff
 * (if not NULL), the largest absolute difference. */
static gsize
count_diff_max (const LbKernelBuf *a, const LbKernelBuf *b, int c0, int c1, const char *what,
                guint *max_diff)
{
  gsize n = 0;
  guint worst = 0;

  g_assert_cmpint (a->width, ==, b->width);
  g_assert_cmpint (a->height, ==, b->height);
  for (int y = 0; y < a->height; y++)
    for (int x = 0; x < a->width; x++)
      for (int c = c0; c < c1; c++)
        {
          const guint va = (guint) kb_get (a, x, y, c), vb = (guint) kb_get (b, x, y, c);

          if (va != vb)
            {
              if (n == 0)
                g_test_message ("%s: first difference at (%d,%d) channel %d: %u vs %u", what, x,
                                y, c, va, vb);
              n++;
              worst = MAX (worst, va > vb ? va - vb : vb - va);
            }
        }
  if (max_diff != NULL)
    *max_diff = worst;
  return n;
}

gsize
count_diff (const LbKernelBuf *a, const LbKernelBuf *b, int c0, int c1, const char *what)
{
  return count_diff_max (a, b, c0, c1, what, NULL);
}

/* The samples of the optimised path that differ from @want, which must be none, except for
 * blend, whose optimised path may be off by 1 (its documented tolerance): those are counted and reported.
 * Sharpen's optimised path is exact (see lb-xv-sharpen.c). */
static gsize
count_fast_diff (FilterId id, const LbKernelBuf *fast, const LbKernelBuf *want, int c0, int c1,
                 const char *what)
{
  guint worst = 0;
  const gsize n = count_diff_max (fast, want, c0, c1, what, &worst);

  if (id != F_BLEND)
    return n;
  if (n > 0)
    g_test_message ("%s: %" G_GSIZE_FORMAT " samples differ by 1 (allowed for blend's "
                    "optimised path), largest difference %u", what, n, worst);
  g_assert_cmpuint (worst, <=, 1);
  return 0;
}

void
assert_same (const LbKernelBuf *a, const LbKernelBuf *b, const char *what)
{
  const gsize n = count_diff (a, b, 0, a->channels, what);

  if (n != 0)
    g_error ("%s: %" G_GSIZE_FORMAT " of %d samples differ", what, n,
             a->width * a->height * a->channels);
}

/* Random band cuts over @height, seeded. */
int
random_cuts (GRand *rand, int height, int *cuts, int max_cuts)
{
  int n = 0;

  cuts[0] = 0;
  while (cuts[n] < height && n < max_cuts - 1)
    {
      cuts[n + 1] = MIN (height, cuts[n] + g_rand_int_range (rand, 1, 9));
      n++;
    }
  cuts[n] = height;
  return n;
}

/* ---- golden -------------------------------------------------------------------------- */

typedef struct {
  const char *file;
  Spec spec;
  const char *size;
  gboolean sel;
} Golden;

static const Golden goldens[] = {
#define SIZES(name, id, param, sel)                             \
  { "64x48_" name ".png", { id, param, FALSE }, "64x48", sel },  \
  { "61x37_" name ".png", { id, param, FALSE }, "61x37", sel },  \
  { "512x512_" name ".png", { id, param, FALSE }, "512x512", sel }
  SIZES ("blur_3", F_BLUR, 3, FALSE),
  SIZES ("blur_7", F_BLUR, 7, FALSE),
  SIZES ("blur_5_sel", F_BLUR, 5, TRUE),
  SIZES ("sharpen_75", F_SHARPEN, 75, FALSE),
  SIZES ("sharpen_30", F_SHARPEN, 30, FALSE),
  SIZES ("edge", F_EDGE, 0, FALSE),
  SIZES ("emboss", F_EMBOSS, 0, FALSE),
  SIZES ("oil", F_OIL, 0, FALSE),
  SIZES ("blend_full", F_BLEND, 0, FALSE),
  SIZES ("blend_sel", F_BLEND, 0, TRUE),
  SIZES ("despeckle_3", F_DESPECKLE, 3, FALSE),
  SIZES ("despeckle_5", F_DESPECKLE, 5, FALSE),
#undef SIZES
};

/* The selection rectangles of MANIFEST.txt. */
static LbKernelRect
golden_selection (const char *size)
{
  if (g_str_equal (size, "64x48"))
    return (LbKernelRect) { 10, 7, 30, 25 };
  if (g_str_equal (size, "61x37"))
    return (LbKernelRect) { 9, 5, 33, 21 };
  return (LbKernelRect) { 100, 150, 257, 201 };
}

static void
test_golden (gconstpointer data)
{
  const Golden *g = data;
  g_autofree char *input = g_strdup_printf ("in_%s.png", g->size);
  const LbKernelRect rect = golden_selection (g->size);
  const LbKernelRect *sel = g->sel ? &rect : NULL;
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  LbKernelBuf *src = NULL, *want = NULL, *ref = NULL, *fast = NULL, *banded = NULL;
  int cuts[1024];
  int ncuts;
  gsize n_ref, n_fast, n_banded;

  src = kb_load_golden (input);
  want = kb_load_golden (g->file);

  run_ok (&g->spec, src, &ref, sel, FALSE, NULL, 0);
  run_ok (&g->spec, src, &fast, sel, TRUE, NULL, 0);
  ncuts = random_cuts (rand, src->height, cuts, G_N_ELEMENTS (cuts));
  run_ok (&g->spec, src, &banded, sel, TRUE, cuts, ncuts);

  n_ref = count_diff (ref, want, 0, 3, "reference vs xv");
  n_banded = count_diff (banded, fast, 0, 3, "banded vs one band");
  g_test_message ("%s: reference %" G_GSIZE_FORMAT ", optimised %" G_GSIZE_FORMAT
                  " samples differ from xv; %d bands: %" G_GSIZE_FORMAT " differ", g->file,
                  n_ref, count_diff (fast, want, 0, 3, "optimised vs xv"), ncuts, n_banded);
  /* Zero, or for blend the number of samples off by 1 after checking none is further off. */
  n_fast = count_fast_diff (g->spec.id, fast, want, 0, 3, "optimised vs xv");
  if (n_ref || n_fast || n_banded)
    g_error ("%s: %" G_GSIZE_FORMAT " (reference) / %" G_GSIZE_FORMAT
             " (optimised) of %d samples differ from xv, %" G_GSIZE_FORMAT
             " differ between band splits", g->file, n_ref, n_fast,
             src->width * src->height * 3, n_banded);

  g_clear_pointer (&src, kb_free);
  g_clear_pointer (&want, kb_free);
  g_clear_pointer (&ref, kb_free);
  g_clear_pointer (&fast, kb_free);
  g_clear_pointer (&banded, kb_free);
}

/* GRAY8 (one channel, and gray + alpha) and RGBA8 against xv. A gray image is made from the
 * red channel; run as R = G = B through the golden-verified RGB path it must give the same
 * as the one-channel kernels. The RGBA8 run must reproduce the golden RGB and keep alpha. */
static void
test_formats_8 (gconstpointer data)
{
  const Golden *g = data;
  g_autofree char *input = g_strdup_printf ("in_%s.png", g->size);
  const LbKernelRect rect = golden_selection (g->size);
  const LbKernelRect *sel = g->sel ? &rect : NULL;
  g_autoptr (GRand) rand = g_rand_new_with_seed (11);
  LbKernelBuf *src = NULL, *want = NULL, *rgba = NULL, *rgba_out = NULL, *grey3 = NULL;
  LbKernelBuf *grey3_out = NULL, *grey1 = NULL, *grey2 = NULL;

  src = kb_load_golden (input);
  want = kb_load_golden (g->file);
  rgba = kb_new_padded (src->width, src->height, 4, 8, 1);
  grey3 = kb_new_padded (src->width, src->height, 3, 8, 0);
  grey1 = kb_new_padded (src->width, src->height, 1, 8, 2);
  grey2 = kb_new_padded (src->width, src->height, 2, 8, 1);
  for (int y = 0; y < src->height; y++)
    for (int x = 0; x < src->width; x++)
      {
        const guint a = (guint) g_rand_int_range (rand, 0, 256), r = kb_get (src, x, y, 0);

        for (int c = 0; c < 3; c++)
          {
            kb_set (rgba, x, y, c, kb_get (src, x, y, c));
            kb_set (grey3, x, y, c, r);
          }
        kb_set (rgba, x, y, 3, a);
        kb_set (grey1, x, y, 0, r);
        kb_set (grey2, x, y, 0, r);
        kb_set (grey2, x, y, 1, a);
      }

  for (int fast = 0; fast <= 1; fast++)
    {
      LbKernelBuf *out1 = NULL, *out2 = NULL;
      gsize n;

      run_ok (&g->spec, rgba, &rgba_out, sel, fast, NULL, 0);
      n = fast ? count_fast_diff (g->spec.id, rgba_out, want, 0, 3, "rgba8 vs xv")
               : count_diff (rgba_out, want, 0, 3, "rgba8 vs xv");
      n += count_diff (rgba_out, rgba, 3, 4, "rgba8 alpha");
      if (n)
        g_error ("%s rgba8 (%s): %" G_GSIZE_FORMAT " samples differ", g->file,
                 fast ? "optimised" : "reference", n);
      g_clear_pointer (&rgba_out, kb_free);

      run_ok (&g->spec, grey3, &grey3_out, sel, fast, NULL, 0);
      /* The RGB path keeps R = G = B on a gray image (spec §0). */
      for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++)
          {
            g_assert_cmpuint (kb_get (grey3_out, x, y, 1), ==, kb_get (grey3_out, x, y, 0));
            g_assert_cmpuint (kb_get (grey3_out, x, y, 2), ==, kb_get (grey3_out, x, y, 0));
          }
      run_ok (&g->spec, grey1, &out1, sel, fast, NULL, 0);
      run_ok (&g->spec, grey2, &out2, sel, fast, NULL, 0);
      n = count_diff (out1, grey3_out, 0, 1, "gray8 vs rgb8 on gray");
      n += count_diff (out2, grey3_out, 0, 1, "graya8 vs rgb8 on gray");
      n += count_diff (out2, grey2, 1, 2, "graya8 alpha");
      if (n)
        g_error ("%s gray8 (%s): %" G_GSIZE_FORMAT " samples differ", g->file,
                 fast ? "optimised" : "reference", n);
      g_clear_pointer (&out1, kb_free);
      g_clear_pointer (&out2, kb_free);
      g_clear_pointer (&grey3_out, kb_free);
    }
  g_clear_pointer (&src, kb_free);
  g_clear_pointer (&want, kb_free);
  g_clear_pointer (&rgba, kb_free);
  g_clear_pointer (&grey3, kb_free);
  g_clear_pointer (&grey1, kb_free);
  g_clear_pointer (&grey2, kb_free);
}

/* 16 bits against the 8-bit golden data where the maths makes them comparable. With
 * samples v·257: oil picks the same pixel (the map is one-to-one), so the output is
 * 257 × xv's; a median of an odd count commutes with the map, so despeckle gives 257 × xv's
 * wherever the window is not clipped. For every filter, GRAY16 and RGB16 made from the golden
 * input give identical results on both paths and for any band split. */
static void
test_gray16 (gconstpointer data)
{
  const Golden *g = data;
  g_autofree char *input = g_strdup_printf ("in_%s.png", g->size);
  const LbKernelRect rect = golden_selection (g->size);
  const LbKernelRect *sel = g->sel ? &rect : NULL;
  LbKernelBuf *src = NULL, *want = NULL, *g16 = NULL, *rgb16 = NULL, *ref = NULL, *fast = NULL;
  const int r = g->spec.param / 2;

  src = kb_load_golden (input);
  want = kb_load_golden (g->file);
  g16 = kb_new_padded (src->width, src->height, 1, 16, 1);
  rgb16 = kb_new_padded (src->width, src->height, 3, 16, 0);
  for (int y = 0; y < src->height; y++)
    for (int x = 0; x < src->width; x++)
      {
        kb_set (g16, x, y, 0, kb_get (src, x, y, 0) * 257);
        for (int c = 0; c < 3; c++)
          kb_set (rgb16, x, y, c, kb_get (src, x, y, c) * 257);
      }

  if (g->spec.id == F_OIL)
    {
      for (int fast_path = 0; fast_path <= 1; fast_path++)
        {
          run_ok (&g->spec, rgb16, &fast, sel, fast_path, NULL, 0);
          for (int y = 0; y < src->height; y++)
            for (int x = 0; x < src->width; x++)
              for (int c = 0; c < 3; c++)
                g_assert_cmpuint (kb_get (fast, x, y, c), ==, kb_get (want, x, y, c) * 257);
          g_clear_pointer (&fast, kb_free);
        }
    }
  else if (g->spec.id == F_DESPECKLE)
    {
      for (int fast_path = 0; fast_path <= 1; fast_path++)
        {
          run_ok (&g->spec, rgb16, &fast, sel, fast_path, NULL, 0);
          for (int y = r; y < src->height - r; y++)
            for (int x = r; x < src->width - r; x++)
              for (int c = 0; c < 3; c++)
                g_assert_cmpuint (kb_get (fast, x, y, c), ==, kb_get (want, x, y, c) * 257);
          g_clear_pointer (&fast, kb_free);
        }
    }

  /* Gray16 and RGB16: the two paths agree exactly, for any band split. */
  for (int k = 0; k < 2; k++)
    {
      const LbKernelBuf *in = k == 0 ? g16 : rgb16;
      const int cuts[4] = { 0, 1, src->height / 2, src->height };
      LbKernelBuf *banded = NULL;

      run_ok (&g->spec, in, &ref, sel, FALSE, NULL, 0);
      run_ok (&g->spec, in, &fast, sel, TRUE, NULL, 0);
      run_ok (&g->spec, in, &banded, sel, TRUE, cuts, 3);
      g_assert_cmpuint (count_fast_diff (g->spec.id, fast, ref, 0, in->channels,
                                         "16-bit optimised vs reference"), ==, 0);
      assert_same (banded, fast, "16-bit banded vs one band");
      g_clear_pointer (&ref, kb_free);
      g_clear_pointer (&fast, kb_free);
      g_clear_pointer (&banded, kb_free);
    }

  g_clear_pointer (&src, kb_free);
  g_clear_pointer (&want, kb_free);
  g_clear_pointer (&g16, kb_free);
  g_clear_pointer (&rgb16, kb_free);
}

/* ---- hand-computed 16-bit cases ------------------------------------------------------- */

static LbKernelBuf *
make_gray16 (int w, int h, const guint *v)
{
  LbKernelBuf *buf = kb_new_padded (w, h, 1, 16, 0);

  for (int i = 0; i < w * h; i++)
    kb_set (buf, i % w, i / w, 0, (int) v[i]);
  return buf;
}

static void
test_hand16 (void)
{
  /* 3×3, centre processed, the ring fixed. */
  const guint px[9] = { 1000, 2000, 3000,
                        4000, 5000, 6000,
                        7000, 8000, 60000 };
  LbKernelBuf *src = NULL, *out = NULL;
  Spec spec;

  src = make_gray16 (3, 3, px);

  /* Emboss: s = −2·1000 − 2000 − 4000 + 6000 + 8000 + 2·60000 = 126000; q = 15750;
   * centre 32768 + 15750 = 48518, ring 32768. */
  spec = (Spec) { F_EMBOSS, 0, FALSE };
  for (int fast = 0; fast <= 1; fast++)
    {
      run_ok (&spec, src, &out, NULL, fast, NULL, 0);
      g_assert_cmpuint (kb_get (out, 1, 1, 0), ==, 48518);
      g_assert_cmpuint (kb_get (out, 0, 0, 0), ==, 32768);
      g_assert_cmpuint (kb_get (out, 2, 2, 0), ==, 32768);
      g_clear_pointer (&out, kb_free);
    }

  /* Edge: Hg = (3000+6000+60000) − (1000+4000+7000) = 57000, Vg = 75000 − 6000 = 69000;
   * e = 23000. Ring keeps the source; maxv = 60000 (the ring!); scaled by 65535/60000:
   * centre ⌊23000·65535/60000⌋ = 25121, 60000 → 65535, 1000 → 1092. */
  spec = (Spec) { F_EDGE, 0, FALSE };
  for (int fast = 0; fast <= 1; fast++)
    {
      run_ok (&spec, src, &out, NULL, fast, NULL, 0);
      g_assert_cmpuint (kb_get (out, 1, 1, 0), ==, 25121);
      g_assert_cmpuint (kb_get (out, 2, 2, 0), ==, 65535);
      g_assert_cmpuint (kb_get (out, 0, 0, 0), ==, 1092);
      g_clear_pointer (&out, kb_free);
    }

  /* Blur 3 at the corner: (1000 + 2000 + 4000 + 5000) / 4 = 3000; centre 96000 / 9 = 10666. */
  spec = (Spec) { F_BLUR, 3, FALSE };
  for (int fast = 0; fast <= 1; fast++)
    {
      run_ok (&spec, src, &out, NULL, fast, NULL, 0);
      g_assert_cmpuint (kb_get (out, 0, 0, 0), ==, 3000);
      g_assert_cmpuint (kb_get (out, 1, 1, 0), ==, 10666);
      /* Bottom-right: (5000 + 6000 + 8000 + 60000) / 4 = 19750. */
      g_assert_cmpuint (kb_get (out, 2, 2, 0), ==, 19750);
      g_clear_pointer (&out, kb_free);
    }

  /* Despeckle 3: centre median of the nine = 5000; corner (1000,2000,4000,5000) → (2000 +
   * 4000) / 2 = 3000; top edge (1000..6000 six values) → (3000 + 4000) / 2 = 3500. */
  spec = (Spec) { F_DESPECKLE, 3, FALSE };
  for (int fast = 0; fast <= 1; fast++)
    {
      run_ok (&spec, src, &out, NULL, fast, NULL, 0);
      g_assert_cmpuint (kb_get (out, 1, 1, 0), ==, 5000);
      g_assert_cmpuint (kb_get (out, 0, 0, 0), ==, 3000);
      g_assert_cmpuint (kb_get (out, 1, 0, 0), ==, 3500);
      g_clear_pointer (&out, kb_free);
    }

  /* Sharpen 50 (f = g = 0.5): V = 5000/65535, vsum = 96000/65535;
   * v' = (V − 0.5·vsum/9)/0.5 = 2V − vsum/9 = (10000 − 10666.67)/65535 < 0 → 0. */
  spec = (Spec) { F_SHARPEN, 50, FALSE };
  for (int fast = 0; fast <= 1; fast++)
    {
      run_ok (&spec, src, &out, NULL, fast, NULL, 0);
      g_assert_cmpuint (kb_get (out, 1, 1, 0), ==, 0);
      g_assert_cmpuint (kb_get (out, 2, 2, 0), ==, 60000);
      g_clear_pointer (&out, kb_free);
    }
  g_clear_pointer (&src, kb_free);

  /* Blend on 3×3: only the centre is interior and it gets C = ⌊Σ perimeter / 12⌋ where the
   * perimeter walk counts each corner twice: rows 0 and 2 (6000 + 75000) + columns 0 and 2
   * (12000 + 69000) = 162000 → 13500. */
  src = make_gray16 (3, 3, px);
  spec = (Spec) { F_BLEND, 0, FALSE };
  for (int fast = 0; fast <= 1; fast++)
    {
      run_ok (&spec, src, &out, NULL, fast, NULL, 0);
      g_assert_cmpuint (kb_get (out, 1, 1, 0), ==, 13500);
      g_assert_cmpuint (kb_get (out, 0, 1, 0), ==, 4000);
      g_clear_pointer (&out, kb_free);
    }
  g_clear_pointer (&src, kb_free);
}

/* ---- random images: reference vs optimised -------------------------------------------- */

/* Noise with flat patches and a small palette, so that modes and medians have ties. */
static LbKernelBuf *
random_image (GRand *rand, int w, int h, int channels, int depth)
{
  const guint top = depth == 8 ? 255 : 65535;
  LbKernelBuf *buf = kb_new_padded (w, h, channels, depth, g_rand_int_range (rand, 0, 4));
  guint palette[6];

  for (int i = 0; i < 6; i++)
    palette[i] = (guint) g_rand_int_range (rand, 0, (gint32) top + 1);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        const int kind = ((x / 5) + (y / 4)) % 3;

        for (int c = 0; c < channels; c++)
          {
            guint v;

            if (kind == 0)
              v = (guint) g_rand_int_range (rand, 0, (gint32) top + 1);
            else if (kind == 1)
              v = palette[(g_rand_int_range (rand, 0, 3) + c) % 6];
            else
              v = palette[(x / 3 + y / 3) % 6];
            kb_set (buf, x, y, c, (int) v);
          }
      }
  return buf;
}

static void
random_compare (const Spec *spec)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (1234 + spec->id * 10 + spec->param);
  int diffs_total = 0;

  for (int iter = 0; iter < 40; iter++)
    {
      const int channels = 1 + iter % 4;
      const int depth = (iter / 4) % 2 ? 16 : 8;
      const int w = g_rand_int_range (rand, 1, 40) | 1;
      const int h = g_rand_int_range (rand, 1, 30) | 1;
      LbKernelRect rect = { g_rand_int_range (rand, -3, w), g_rand_int_range (rand, -3, h),
                            g_rand_int_range (rand, 1, w + 4), g_rand_int_range (rand, 1, h + 4) };
      const gboolean use_sel = iter % 3 != 0;
      g_autoptr (GError) error = NULL;
      int cuts[64];
      int ncuts;
      LbKernelBuf *src = NULL, *ref = NULL, *fast = NULL, *banded = NULL;
      gsize n;

      src = random_image (rand, w, h, channels, depth);
      ncuts = random_cuts (rand, h, cuts, G_N_ELEMENTS (cuts));
      if (!run_filter (spec, src, &ref, use_sel ? &rect : NULL, FALSE, NULL, 0, &error))
        {
          /* Only a selection that misses the image may fail, with a clear error. */
          g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
          g_assert_true (use_sel);
          g_assert_true (rect.x + rect.width <= 0 || rect.y + rect.height <= 0 || rect.x >= w
                         || rect.y >= h);
          g_clear_pointer (&src, kb_free);
          g_clear_pointer (&ref, kb_free);
          continue;
        }
      run_ok (spec, src, &fast, use_sel ? &rect : NULL, TRUE, NULL, 0);
      run_ok (spec, src, &banded, use_sel ? &rect : NULL, TRUE, cuts, ncuts);

      n = count_fast_diff (spec->id, fast, ref, 0, channels, "optimised vs reference");
      n += count_diff (banded, fast, 0, channels, "banded vs one band");
      if (n)
        g_error ("filter %d param %d: %dx%d, %d channels, %d bits, selection %s %d,%d %dx%d: "
                 "%" G_GSIZE_FORMAT " samples differ", spec->id, spec->param, w, h, channels,
                 depth, use_sel ? "on" : "off", rect.x, rect.y, rect.width, rect.height, n);
      /* Nothing outside the region and no alpha sample may change. */
      if (channels == 2 || channels == 4)
        diffs_total += (int) count_diff (fast, src, channels - 1, channels, "alpha");
      g_clear_pointer (&src, kb_free);
      g_clear_pointer (&ref, kb_free);
      g_clear_pointer (&fast, kb_free);
      g_clear_pointer (&banded, kb_free);
    }
  g_assert_cmpint (diffs_total, ==, 0);
}

static void
test_random (gconstpointer data)
{
  random_compare (data);
}

/* ---- corrected modes and errors -------------------------------------------------------- */

static void
test_edge_ring (void)
{
  /* A flat image: xv keeps the ring (then scales it to 255), the corrected mode gives 0
   * everywhere (maxv = 0 leaves it at 0). */
  LbKernelBuf *src = NULL, *out = NULL;
  const Spec xv = { F_EDGE, 0, FALSE }, corrected = { F_EDGE, 0, TRUE };

  src = kb_new_padded (7, 5, 3, 8, 0);
  for (int y = 0; y < 5; y++)
    for (int x = 0; x < 7; x++)
      for (int c = 0; c < 3; c++)
        kb_set (src, x, y, c, 100);
  for (int fast = 0; fast <= 1; fast++)
    {
      run_ok (&xv, src, &out, NULL, fast, NULL, 0);
      g_assert_cmpuint (kb_get (out, 0, 0, 0), ==, 255);
      g_assert_cmpuint (kb_get (out, 3, 2, 0), ==, 0);
      g_clear_pointer (&out, kb_free);
      run_ok (&corrected, src, &out, NULL, fast, NULL, 0);
      for (int y = 0; y < 5; y++)
        for (int x = 0; x < 7; x++)
          g_assert_cmpuint (kb_get (out, x, y, 1), ==, 0);
      g_clear_pointer (&out, kb_free);
    }
  g_clear_pointer (&src, kb_free);
}

static void
test_oil_corrected (void)
{
  /* Continuous tone (all colours differ): xv's 4×4 window returns the top-left pixel of the
   * window, shifting the image by 2; the corrected 3×3 window returns the first pixel of a
   * window centred on the pixel, (x−1, y−1). */
  LbKernelBuf *src = NULL, *out = NULL;
  const Spec xv = { F_OIL, 0, FALSE }, corrected = { F_OIL, 3, FALSE };

  src = kb_new_padded (9, 8, 3, 8, 0);
  for (int y = 0; y < 8; y++)
    for (int x = 0; x < 9; x++)
      {
        kb_set (src, x, y, 0, (guint) (x * 20));
        kb_set (src, x, y, 1, (guint) (y * 20));
        kb_set (src, x, y, 2, 7);
      }
  for (int fast = 0; fast <= 1; fast++)
    {
      run_ok (&xv, src, &out, NULL, fast, NULL, 0);
      g_assert_cmpuint (kb_get (out, 5, 5, 0), ==, 3 * 20);
      g_assert_cmpuint (kb_get (out, 5, 5, 1), ==, 3 * 20);
      g_clear_pointer (&out, kb_free);
      run_ok (&corrected, src, &out, NULL, fast, NULL, 0);
      g_assert_cmpuint (kb_get (out, 5, 5, 0), ==, 4 * 20);
      g_assert_cmpuint (kb_get (out, 5, 5, 1), ==, 4 * 20);
      g_clear_pointer (&out, kb_free);
    }
  g_clear_pointer (&src, kb_free);
}

static void
test_errors (void)
{
  LbKernelBuf *src = NULL;
  const Spec bad[] = {
    { F_BLUR, 4, FALSE }, { F_BLUR, 0, FALSE }, { F_DESPECKLE, -3, FALSE },
    { F_SHARPEN, 100, FALSE }, { F_SHARPEN, -1, FALSE }, { F_OIL, 2, FALSE },
  };
  const LbKernelRect outside = { 50, 50, 10, 10 };
  const Spec ok = { F_EMBOSS, 0, FALSE };

  src = kb_new_padded (9, 8, 3, 8, 0);
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      LbKernelBuf *out = NULL;

      g_assert_false (run_filter (&bad[i], src, &out, NULL, TRUE, NULL, 0, &error));
      g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
      g_test_message ("%s", error->message);
      g_clear_pointer (&out, kb_free);
    }
  {
    g_autoptr (GError) error = NULL;
    LbKernelBuf *out = NULL;

    g_assert_false (run_filter (&ok, src, &out, &outside, TRUE, NULL, 0, &error));
    g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
    g_clear_pointer (&out, kb_free);
  }
  {
    g_autoptr (GError) error = NULL;
    LbKernelBuf *out = NULL;

    src->depth = 12;
    g_assert_false (run_filter (&ok, src, &out, NULL, TRUE, NULL, 0, &error));
    g_assert_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED);
    src->depth = 8;
    g_clear_pointer (&out, kb_free);
  }
  g_clear_pointer (&src, kb_free);
}

/* The multiply-high divisions of the optimised paths, for every input they can get. */
static void
test_magic_division (void)
{
  for (guint s = 0; s <= LB_XV_DIV9_MAX; s++)
    g_assert_cmpuint (lb_xv_div9_u16 ((guint16) s), ==, s / 9);
  for (guint s = 0; s <= LB_XV_DIV3_MAX; s++)
    g_assert_cmpuint (lb_xv_div3_u16 ((guint16) s), ==, s / 3);
}

static const Spec random_specs[] = {
  { F_BLUR, 1, FALSE }, { F_BLUR, 3, FALSE }, { F_BLUR, 5, FALSE }, { F_BLUR, 9, FALSE },
  { F_BLUR, 31, FALSE }, { F_SHARPEN, 0, FALSE }, { F_SHARPEN, 75, FALSE },
  { F_SHARPEN, 99, FALSE }, { F_SHARPEN, 75, TRUE }, { F_EDGE, 0, FALSE }, { F_EDGE, 0, TRUE }, { F_EMBOSS, 0, FALSE },
  { F_OIL, 0, FALSE }, { F_OIL, 1, FALSE }, { F_OIL, 3, FALSE }, { F_OIL, 5, FALSE },
  { F_OIL, 9, FALSE }, { F_BLEND, 0, FALSE }, { F_DESPECKLE, 1, FALSE },
  { F_DESPECKLE, 3, FALSE }, { F_DESPECKLE, 5, FALSE }, { F_DESPECKLE, 11, FALSE },
  { F_DESPECKLE, 31, FALSE },
};

static const char *const filter_names[] = {
  "blur", "sharpen", "edge", "emboss", "oil", "blend", "despeckle",
};

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  for (gsize i = 0; i < G_N_ELEMENTS (goldens); i++)
    {
      g_autofree char *stem = g_strndup (goldens[i].file, strlen (goldens[i].file) - 4);
      g_autofree char *p1 = g_strdup_printf ("/xv-a/golden/rgb8/%s", stem);
      g_autofree char *p2 = g_strdup_printf ("/xv-a/golden/gray8-rgba8/%s", stem);
      g_autofree char *p3 = g_strdup_printf ("/xv-a/golden/16bit/%s", stem);

      g_test_add_data_func (p1, &goldens[i], test_golden);
      g_test_add_data_func (p2, &goldens[i], test_formats_8);
      g_test_add_data_func (p3, &goldens[i], test_gray16);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (random_specs); i++)
    {
      g_autofree char *path = g_strdup_printf ("/xv-a/random/%s-%d%s",
                                               filter_names[random_specs[i].id],
                                               random_specs[i].param,
                                               !random_specs[i].alt ? ""
                                               : random_specs[i].id == F_SHARPEN ? "-portable"
                                               : "-corrected");
      g_test_add_data_func (path, &random_specs[i], test_random);
    }
  g_test_add_func ("/xv-a/hand16", test_hand16);
  g_test_add_func ("/xv-a/edge-ring", test_edge_ring);
  g_test_add_func ("/xv-a/oil-corrected", test_oil_corrected);
  g_test_add_func ("/xv-a/errors", test_errors);
  g_test_add_func ("/xv-a/magic-division", test_magic_division);
  test_xv_kernels_a_add_sharpen_exact ();
  return g_test_run ();
}
