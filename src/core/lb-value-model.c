/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-value-model"

#include "config.h"

#include <math.h>
#include <string.h>

#include "lb-error.h"
#include "lb-value-model.h"

/* A LUT with its own storage; the public LbValueLut points into it. */
typedef struct {
  LbValueLut lut;
  guint16   *data;
  char      *explanation;
} OwnedLut;

typedef struct {
  double center, width;
  char  *explanation;
} Window;

struct _LbValueModel {
  gatomicrefcount ref;
  guint          sample_bits;
  guint          offset;       /* sample − stored */
  gboolean       source_signed;
  guint          bits_stored;
  LbModalityKind kind;
  double         slope, intercept; /* stored domain, as in the source */
  OwnedLut      *modality_lut;
  char          *units;
  gboolean       has_padding;
  guint          pad_lo, pad_hi;
  GArray        *windows;      /* Window */
  LbVoiFunction  function;
  GPtrArray     *voi_luts;     /* OwnedLut* */
  gboolean       monochrome1;
  LbPresentationShape presentation;
  gboolean       colour;
  gboolean       lossy;
  char          *lossy_ratios, *lossy_methods;
};

struct _LbValueModelBuilder {
  LbValueModel *model; /* not shared until end */
};

G_DEFINE_BOXED_TYPE (LbValueModel, lb_value_model, lb_value_model_ref, lb_value_model_unref)

static const char *const voi_names[] = { "LINEAR", "LINEAR_EXACT", "SIGMOID" };
static const char *const presentation_names[] = { NULL, "IDENTITY", "INVERSE" };

const char *
lb_presentation_shape_to_string (LbPresentationShape shape)
{
  g_return_val_if_fail ((guint) shape < G_N_ELEMENTS (presentation_names), NULL);
  return presentation_names[shape];
}

/* The index of @text among @names (a NULL entry matches nothing), or -1: DICOM CS values are
 * compared exactly. */
static int
name_index (const char *const *names, guint n_names, const char *text)
{
  for (guint i = 0; text != NULL && i < n_names; i++)
    if (names[i] != NULL && strcmp (text, names[i]) == 0)
      return (int) i;
  return -1;
}

gboolean
lb_presentation_shape_from_string (const char *text, LbPresentationShape *shape)
{
  int i = name_index (presentation_names, G_N_ELEMENTS (presentation_names), text);

  if (i < 0)
    return FALSE;
  *shape = (LbPresentationShape) i;
  return TRUE;
}

const char *
lb_voi_function_to_string (LbVoiFunction function)
{
  g_return_val_if_fail ((guint) function < G_N_ELEMENTS (voi_names), "LINEAR");
  return voi_names[function];
}

gboolean
lb_voi_function_from_string (const char *text, LbVoiFunction *function)
{
  int i = name_index (voi_names, G_N_ELEMENTS (voi_names), text);

  if (i < 0)
    return FALSE;
  *function = (LbVoiFunction) i;
  return TRUE;
}

guint
lb_value_lut_lookup (const LbValueLut *lut, double x)
{
  double i = floor (x) - lut->first;

  /* PS3.3 C.11.1.1 / C.11.2.1.1: below the first mapped value → first entry, past the last →
   * last entry. */
  if (i <= 0)
    return lut->data[0];
  if (i >= lut->n_entries - 1)
    return lut->data[lut->n_entries - 1];
  return lut->data[(guint) i];
}

static OwnedLut *
owned_lut_new (const LbValueLut *src)
{
  OwnedLut *o = g_new0 (OwnedLut, 1);

  o->lut = *src;
  o->data = g_memdup2 (src->data, (gsize) src->n_entries * sizeof (guint16));
  o->explanation = g_strdup (src->explanation);
  o->lut.data = o->data;
  o->lut.explanation = o->explanation;
  return o;
}

static void
owned_lut_free (OwnedLut *o)
{
  if (o == NULL)
    return;
  g_free (o->data);
  g_free (o->explanation);
  g_free (o);
}

static void
window_clear (gpointer p)
{
  g_free (((Window *) p)->explanation);
}

static LbValueModel *
model_new (guint sample_bits)
{
  LbValueModel *m = g_new0 (LbValueModel, 1);

  g_atomic_ref_count_init (&m->ref);
  m->sample_bits = sample_bits;
  m->slope = 1.0;
  m->windows = g_array_new (FALSE, TRUE, sizeof (Window));
  g_array_set_clear_func (m->windows, window_clear);
  m->voi_luts = g_ptr_array_new_with_free_func ((GDestroyNotify) owned_lut_free);
  return m;
}

static LbValueModel *
model_copy (const LbValueModel *src)
{
  LbValueModel *m = model_new (src->sample_bits);

  m->offset = src->offset;
  m->source_signed = src->source_signed;
  m->bits_stored = src->bits_stored;
  m->kind = src->kind;
  m->slope = src->slope;
  m->intercept = src->intercept;
  m->modality_lut = src->modality_lut ? owned_lut_new (&src->modality_lut->lut) : NULL;
  m->units = g_strdup (src->units);
  m->has_padding = src->has_padding;
  m->pad_lo = src->pad_lo;
  m->pad_hi = src->pad_hi;
  for (guint i = 0; i < src->windows->len; i++)
    {
      Window w = g_array_index (src->windows, Window, i);

      w.explanation = g_strdup (w.explanation);
      g_array_append_val (m->windows, w);
    }
  m->function = src->function;
  for (guint i = 0; i < src->voi_luts->len; i++)
    g_ptr_array_add (m->voi_luts, owned_lut_new (&((OwnedLut *) src->voi_luts->pdata[i])->lut));
  m->monochrome1 = src->monochrome1;
  m->presentation = src->presentation;
  m->colour = src->colour;
  m->lossy = src->lossy;
  m->lossy_ratios = g_strdup (src->lossy_ratios);
  m->lossy_methods = g_strdup (src->lossy_methods);
  return m;
}

LbValueModel *
lb_value_model_ref (LbValueModel *model)
{
  g_return_val_if_fail (model != NULL, NULL);
  g_atomic_ref_count_inc (&model->ref);
  return model;
}

void
lb_value_model_unref (LbValueModel *model)
{
  g_return_if_fail (model != NULL);
  if (!g_atomic_ref_count_dec (&model->ref))
    return;
  owned_lut_free (model->modality_lut);
  g_free (model->units);
  g_array_unref (model->windows);
  g_ptr_array_unref (model->voi_luts);
  g_free (model->lossy_ratios);
  g_free (model->lossy_methods);
  g_free (model);
}

static gboolean
lut_equal (const LbValueLut *a, const LbValueLut *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return a->first == b->first && a->n_entries == b->n_entries && a->bits == b->bits
         && memcmp (a->data, b->data, a->n_entries * sizeof (guint16)) == 0
         && g_strcmp0 (a->explanation, b->explanation) == 0;
}

gboolean
lb_value_model_equal (const LbValueModel *a, const LbValueModel *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  if (a->sample_bits != b->sample_bits || a->offset != b->offset
      || a->source_signed != b->source_signed || a->bits_stored != b->bits_stored
      || a->kind != b->kind || a->slope != b->slope || a->intercept != b->intercept
      || !lut_equal (a->modality_lut ? &a->modality_lut->lut : NULL,
                     b->modality_lut ? &b->modality_lut->lut : NULL)
      || g_strcmp0 (a->units, b->units) != 0 || a->has_padding != b->has_padding
      || (a->has_padding && (a->pad_lo != b->pad_lo || a->pad_hi != b->pad_hi))
      || a->windows->len != b->windows->len || a->function != b->function
      || a->voi_luts->len != b->voi_luts->len || a->monochrome1 != b->monochrome1
      || a->presentation != b->presentation || a->colour != b->colour
      || a->lossy != b->lossy || g_strcmp0 (a->lossy_ratios, b->lossy_ratios) != 0
      || g_strcmp0 (a->lossy_methods, b->lossy_methods) != 0)
    return FALSE;
  for (guint i = 0; i < a->windows->len; i++)
    {
      const Window *wa = &g_array_index (a->windows, Window, i);
      const Window *wb = &g_array_index (b->windows, Window, i);

      if (wa->center != wb->center || wa->width != wb->width
          || g_strcmp0 (wa->explanation, wb->explanation) != 0)
        return FALSE;
    }
  for (guint i = 0; i < a->voi_luts->len; i++)
    if (!lut_equal (&((OwnedLut *) a->voi_luts->pdata[i])->lut,
                    &((OwnedLut *) b->voi_luts->pdata[i])->lut))
      return FALSE;
  return TRUE;
}

/* ---- getters ---------------------------------------------------------------------------- */

guint
lb_value_model_get_sample_bits (const LbValueModel *model)
{
  g_return_val_if_fail (model != NULL, 16);
  return model->sample_bits;
}

guint
lb_value_model_get_sample_offset (const LbValueModel *model)
{
  g_return_val_if_fail (model != NULL, 0);
  return model->offset;
}

gint32
lb_value_model_sample_to_stored (const LbValueModel *model, guint sample)
{
  g_return_val_if_fail (model != NULL, (gint32) sample);
  return (gint32) sample - (gint32) model->offset;
}

LbModalityKind
lb_value_model_get_modality_kind (const LbValueModel *model)
{
  g_return_val_if_fail (model != NULL, LB_MODALITY_NONE);
  return model->kind;
}

double
lb_value_model_to_value (const LbValueModel *model, guint sample)
{
  gint32 stored = (gint32) sample - (gint32) model->offset;

  switch (model->kind)
    {
    case LB_MODALITY_LUT:
      return lb_value_lut_lookup (&model->modality_lut->lut, stored);
    case LB_MODALITY_RESCALE:
      return stored * model->slope + model->intercept;
    case LB_MODALITY_NONE:
    default:
      return stored;
    }
}

gboolean
lb_value_model_get_rescale (const LbValueModel *model, double *slope, double *intercept)
{
  g_return_val_if_fail (model != NULL, FALSE);
  if (model->kind == LB_MODALITY_LUT)
    {
      if (slope)
        *slope = 1.0;
      if (intercept)
        *intercept = 0.0;
      return FALSE;
    }
  if (slope)
    *slope = model->slope;
  if (intercept)
    *intercept = model->intercept - (double) model->offset * model->slope;
  return TRUE;
}

gboolean
lb_value_model_get_stored_rescale (const LbValueModel *model, double *slope, double *intercept)
{
  g_return_val_if_fail (model != NULL, FALSE);
  if (slope)
    *slope = model->slope;
  if (intercept)
    *intercept = model->intercept;
  return model->kind == LB_MODALITY_RESCALE;
}

const LbValueLut *
lb_value_model_get_modality_lut (const LbValueModel *model)
{
  g_return_val_if_fail (model != NULL, NULL);
  return model->modality_lut ? &model->modality_lut->lut : NULL;
}

const char *
lb_value_model_get_units (const LbValueModel *model)
{
  g_return_val_if_fail (model != NULL, NULL);
  return model->units;
}

static gboolean
is_decimal (double v, int d)
{
  double s = v * pow (10, d);

  return fabs (s - round (s)) <= 1e-7 * MAX (1.0, fabs (s));
}

int
lb_value_model_get_decimals (const LbValueModel *model)
{
  g_return_val_if_fail (model != NULL, 0);
  if (model->kind != LB_MODALITY_RESCALE)
    return 0;
  /* Values are integers × slope + intercept: as many decimals as both need, if few. */
  for (int d = 0; d <= 6; d++)
    if (is_decimal (model->slope, d) && is_decimal (model->intercept, d))
      return d;
  return -1;
}

char *
lb_value_model_format_value (const LbValueModel *model, double value)
{
  int d = lb_value_model_get_decimals (model);

  if (value == 0)
    value = 0; /* no "-0" */
  if (d >= 0)
    return g_strdup_printf ("%.*f", d, value);
  else
    {
      /* Significant digits down to one step of the slope (and one beyond it, as the slope is
       * no short decimal): 5.1234 for SUV with a slope of 0.000123456. */
      double step = fabs (model->slope);
      int sig = (value == 0 ? 0 : (int) floor (log10 (fabs (value)))) - (int) floor (log10 (step))
                + 2;

      return g_strdup_printf ("%.*g", CLAMP (sig, 1, 15), value);
    }
}

gboolean
lb_value_model_get_padding (const LbValueModel *model, guint *lo, guint *hi)
{
  g_return_val_if_fail (model != NULL, FALSE);
  if (lo)
    *lo = model->pad_lo;
  if (hi)
    *hi = model->pad_hi;
  return model->has_padding;
}

gboolean
lb_value_model_is_padding (const LbValueModel *model, guint sample)
{
  return model->has_padding && sample >= model->pad_lo && sample <= model->pad_hi;
}

guint
lb_value_model_get_n_windows (const LbValueModel *model)
{
  g_return_val_if_fail (model != NULL, 0);
  return model->windows->len;
}

gboolean
lb_value_model_get_window (const LbValueModel *model, guint index, double *center, double *width,
                           const char **explanation)
{
  const Window *w;

  g_return_val_if_fail (model != NULL, FALSE);
  if (index >= model->windows->len)
    return FALSE;
  w = &g_array_index (model->windows, Window, index);
  if (center)
    *center = w->center;
  if (width)
    *width = w->width;
  if (explanation)
    *explanation = w->explanation;
  return TRUE;
}

LbVoiFunction
lb_value_model_get_voi_function (const LbValueModel *model)
{
  g_return_val_if_fail (model != NULL, LB_VOI_LINEAR);
  return model->function;
}

guint
lb_value_model_get_n_voi_luts (const LbValueModel *model)
{
  g_return_val_if_fail (model != NULL, 0);
  return model->voi_luts->len;
}

const LbValueLut *
lb_value_model_get_voi_lut (const LbValueModel *model, guint index)
{
  g_return_val_if_fail (model != NULL, NULL);
  if (index >= model->voi_luts->len)
    return NULL;
  return &((OwnedLut *) model->voi_luts->pdata[index])->lut;
}

gboolean
lb_value_model_get_monochrome1 (const LbValueModel *model)
{
  g_return_val_if_fail (model != NULL, FALSE);
  return model->monochrome1;
}

LbPresentationShape
lb_value_model_get_presentation_shape (const LbValueModel *model)
{
  g_return_val_if_fail (model != NULL, LB_PRESENTATION_UNSPECIFIED);
  return model->presentation;
}

gboolean
lb_value_model_get_presentation_inverse (const LbValueModel *model)
{
  g_return_val_if_fail (model != NULL, FALSE);
  switch (model->presentation)
    {
    case LB_PRESENTATION_INVERSE:
      return TRUE;
    case LB_PRESENTATION_IDENTITY:
      return FALSE;
    case LB_PRESENTATION_UNSPECIFIED:
    default:
      return model->monochrome1;
    }
}

gboolean
lb_value_model_get_colour (const LbValueModel *model)
{
  g_return_val_if_fail (model != NULL, FALSE);
  return model->colour;
}

gboolean
lb_value_model_get_source_signed (const LbValueModel *model)
{
  g_return_val_if_fail (model != NULL, FALSE);
  return model->source_signed;
}

guint
lb_value_model_get_bits_stored (const LbValueModel *model)
{
  g_return_val_if_fail (model != NULL, 0);
  return model->bits_stored;
}

gboolean
lb_value_model_get_stored_range (const LbValueModel *model, gint32 *min, gint32 *max)
{
  guint b;

  g_return_val_if_fail (model != NULL, FALSE);
  b = model->bits_stored;
  if (b == 0)
    return FALSE;
  if (model->source_signed)
    {
      *min = -(gint32) (1u << (b - 1));
      *max = (gint32) (1u << (b - 1)) - 1;
    }
  else
    {
      *min = 0;
      *max = (gint32) ((1u << b) - 1);
    }
  return TRUE;
}

gboolean
lb_value_model_get_lossy (const LbValueModel *model, const char **ratios, const char **methods)
{
  g_return_val_if_fail (model != NULL, FALSE);
  if (ratios)
    *ratios = model->lossy_ratios;
  if (methods)
    *methods = model->lossy_methods;
  return model->lossy;
}

/* ---- builder ---------------------------------------------------------------------------- */

LbValueModelBuilder *
lb_value_model_builder_new (const LbValueModel *base, guint sample_bits)
{
  LbValueModelBuilder *b = g_new0 (LbValueModelBuilder, 1);

  g_return_val_if_fail (base != NULL || sample_bits == 8 || sample_bits == 16, NULL);
  b->model = base ? model_copy (base) : model_new (sample_bits);
  return b;
}

void
lb_value_model_builder_free (LbValueModelBuilder *builder)
{
  if (builder == NULL)
    return;
  g_clear_pointer (&builder->model, lb_value_model_unref);
  g_free (builder);
}

LbValueModel *
lb_value_model_builder_end (LbValueModelBuilder *builder)
{
  LbValueModel *m;

  g_return_val_if_fail (builder != NULL, NULL);
  m = g_steal_pointer (&builder->model);
  g_free (builder);
  return m;
}

void
lb_value_model_builder_set_source (LbValueModelBuilder *builder, gboolean is_signed,
                                   guint bits_stored)
{
  g_return_if_fail (builder != NULL);
  g_return_if_fail (bits_stored <= 16);
  g_return_if_fail (!is_signed || builder->model->sample_bits == 16);
  builder->model->source_signed = !!is_signed;
  builder->model->bits_stored = bits_stored;
  builder->model->offset = is_signed ? LB_VALUE_MODEL_SIGNED_OFFSET : 0;
}

void
lb_value_model_builder_set_rescale (LbValueModelBuilder *builder, double slope, double intercept)
{
  g_return_if_fail (builder != NULL);
  g_return_if_fail (isfinite (slope) && isfinite (intercept) && slope != 0);
  builder->model->kind = LB_MODALITY_RESCALE;
  builder->model->slope = slope;
  builder->model->intercept = intercept;
  g_clear_pointer (&builder->model->modality_lut, owned_lut_free);
}

static gboolean
lut_valid (const LbValueLut *lut)
{
  return lut != NULL && lut->n_entries >= 1 && lut->n_entries <= 65536 && lut->bits >= 1
         && lut->bits <= 16 && lut->data != NULL;
}

void
lb_value_model_builder_set_modality_lut (LbValueModelBuilder *builder, const LbValueLut *lut)
{
  g_return_if_fail (builder != NULL);
  g_return_if_fail (lut_valid (lut));
  g_clear_pointer (&builder->model->modality_lut, owned_lut_free);
  builder->model->modality_lut = owned_lut_new (lut);
  builder->model->kind = LB_MODALITY_LUT;
  builder->model->slope = 1.0;
  builder->model->intercept = 0.0;
}

void
lb_value_model_builder_set_units (LbValueModelBuilder *builder, const char *units)
{
  g_return_if_fail (builder != NULL);
  g_free (builder->model->units);
  builder->model->units = units && *units ? g_strdup (units) : NULL;
}

void
lb_value_model_builder_set_padding (LbValueModelBuilder *builder, guint lo, guint hi)
{
  guint max;

  g_return_if_fail (builder != NULL);
  max = builder->model->sample_bits == 8 ? 255 : 65535;
  builder->model->has_padding = TRUE;
  builder->model->pad_lo = MIN (MIN (lo, hi), max);
  builder->model->pad_hi = MIN (MAX (lo, hi), max);
}

void
lb_value_model_builder_clear_padding (LbValueModelBuilder *builder)
{
  g_return_if_fail (builder != NULL);
  builder->model->has_padding = FALSE;
  builder->model->pad_lo = builder->model->pad_hi = 0;
}

void
lb_value_model_builder_add_window (LbValueModelBuilder *builder, double center, double width,
                                   const char *explanation)
{
  Window w = { center, width, NULL };

  g_return_if_fail (builder != NULL);
  g_return_if_fail (isfinite (center) && isfinite (width) && width > 0);
  w.explanation = explanation && *explanation ? g_strdup (explanation) : NULL;
  g_array_append_val (builder->model->windows, w);
}

void
lb_value_model_builder_clear_windows (LbValueModelBuilder *builder)
{
  g_return_if_fail (builder != NULL);
  g_array_set_size (builder->model->windows, 0);
}

void
lb_value_model_builder_set_voi_function (LbValueModelBuilder *builder, LbVoiFunction function)
{
  g_return_if_fail (builder != NULL);
  g_return_if_fail ((guint) function < G_N_ELEMENTS (voi_names));
  builder->model->function = function;
}

void
lb_value_model_builder_add_voi_lut (LbValueModelBuilder *builder, const LbValueLut *lut)
{
  g_return_if_fail (builder != NULL);
  g_return_if_fail (lut_valid (lut));
  g_ptr_array_add (builder->model->voi_luts, owned_lut_new (lut));
}

void
lb_value_model_builder_clear_voi_luts (LbValueModelBuilder *builder)
{
  g_return_if_fail (builder != NULL);
  g_ptr_array_set_size (builder->model->voi_luts, 0);
}

void
lb_value_model_builder_set_monochrome1 (LbValueModelBuilder *builder, gboolean monochrome1)
{
  g_return_if_fail (builder != NULL);
  builder->model->monochrome1 = !!monochrome1;
}

void
lb_value_model_builder_set_presentation_shape (LbValueModelBuilder *builder,
                                               LbPresentationShape  shape)
{
  g_return_if_fail (builder != NULL);
  g_return_if_fail ((guint) shape < G_N_ELEMENTS (presentation_names));
  builder->model->presentation = shape;
}

void
lb_value_model_builder_set_colour (LbValueModelBuilder *builder, gboolean colour)
{
  LbValueModel *m;

  g_return_if_fail (builder != NULL);
  m = builder->model;
  m->colour = !!colour;
  if (!colour)
    return;
  /* colour samples are their own values: no Modality LUT, VOI, padding or presentation */
  m->offset = 0;
  m->source_signed = FALSE;
  m->kind = LB_MODALITY_NONE;
  m->slope = 1.0;
  m->intercept = 0.0;
  g_clear_pointer (&m->modality_lut, owned_lut_free);
  g_clear_pointer (&m->units, g_free);
  m->has_padding = FALSE;
  m->pad_lo = m->pad_hi = 0;
  g_array_set_size (m->windows, 0);
  m->function = LB_VOI_LINEAR;
  g_ptr_array_set_size (m->voi_luts, 0);
  m->monochrome1 = FALSE;
  m->presentation = LB_PRESENTATION_UNSPECIFIED;
}

void
lb_value_model_builder_set_lossy (LbValueModelBuilder *builder, gboolean lossy,
                                  const char *ratios, const char *methods)
{
  g_return_if_fail (builder != NULL);
  builder->model->lossy = !!lossy;
  g_free (builder->model->lossy_ratios);
  g_free (builder->model->lossy_methods);
  builder->model->lossy_ratios = lossy && ratios && *ratios ? g_strdup (ratios) : NULL;
  builder->model->lossy_methods = lossy && methods && *methods ? g_strdup (methods) : NULL;
}

/* ---- text form -------------------------------------------------------------------------- */

#define LUT_TYPE "(iuuaqs)"

static GVariant *
lut_to_variant (const LbValueLut *lut)
{
  GVariant *data = g_variant_new_fixed_array (G_VARIANT_TYPE_UINT16, lut->data, lut->n_entries,
                                              sizeof (guint16));

  return g_variant_new ("(iuu@aqs)", lut->first, lut->n_entries, lut->bits, data,
                        lut->explanation ? lut->explanation : "");
}

char *
lb_value_model_serialize (const LbValueModel *model)
{
  GVariantDict dict;
  g_autoptr(GVariant) v = NULL;

  g_return_val_if_fail (model != NULL, NULL);
  g_variant_dict_init (&dict, NULL);
  g_variant_dict_insert (&dict, "version", "u", 1);
  g_variant_dict_insert (&dict, "sample-bits", "u", model->sample_bits);
  g_variant_dict_insert (&dict, "source", "(bu)", model->source_signed, model->bits_stored);
  if (model->kind == LB_MODALITY_RESCALE)
    g_variant_dict_insert (&dict, "rescale", "(dd)", model->slope, model->intercept);
  else if (model->kind == LB_MODALITY_LUT)
    g_variant_dict_insert_value (&dict, "modality-lut", lut_to_variant (&model->modality_lut->lut));
  if (model->units)
    g_variant_dict_insert (&dict, "units", "s", model->units);
  if (model->has_padding)
    g_variant_dict_insert (&dict, "padding", "(uu)", model->pad_lo, model->pad_hi);
  if (model->windows->len > 0)
    {
      GVariantBuilder b;

      g_variant_builder_init (&b, G_VARIANT_TYPE ("a(dds)"));
      for (guint i = 0; i < model->windows->len; i++)
        {
          const Window *w = &g_array_index (model->windows, Window, i);

          g_variant_builder_add (&b, "(dds)", w->center, w->width,
                                 w->explanation ? w->explanation : "");
        }
      g_variant_dict_insert_value (&dict, "windows", g_variant_builder_end (&b));
    }
  g_variant_dict_insert (&dict, "voi-function", "s", voi_names[model->function]);
  if (model->voi_luts->len > 0)
    {
      GVariantBuilder b;

      g_variant_builder_init (&b, G_VARIANT_TYPE ("a" LUT_TYPE));
      for (guint i = 0; i < model->voi_luts->len; i++)
        g_variant_builder_add_value (&b, lut_to_variant (&((OwnedLut *) model->voi_luts->pdata[i])->lut));
      g_variant_dict_insert_value (&dict, "voi-luts", g_variant_builder_end (&b));
    }
  if (model->monochrome1)
    g_variant_dict_insert (&dict, "monochrome1", "b", TRUE);
  if (model->presentation != LB_PRESENTATION_UNSPECIFIED)
    g_variant_dict_insert (&dict, "presentation-lut-shape", "s",
                           presentation_names[model->presentation]);
  if (model->colour)
    g_variant_dict_insert (&dict, "colour", "b", TRUE);
  if (model->lossy)
    g_variant_dict_insert (&dict, "lossy", "(ss)", model->lossy_ratios ? model->lossy_ratios : "",
                           model->lossy_methods ? model->lossy_methods : "");
  v = g_variant_ref_sink (g_variant_dict_end (&dict));
  return g_variant_print (v, TRUE);
}

static gboolean
lut_from_variant (GVariant *v, LbValueLut *lut, GVariant **data_out)
{
  gsize n = 0;
  const char *expl;
  GVariant *data;

  g_variant_get (v, "(iuu@aq&s)", &lut->first, &lut->n_entries, &lut->bits, &data, &expl);
  *data_out = data;
  lut->data = g_variant_get_fixed_array (data, &n, sizeof (guint16));
  lut->explanation = *expl ? expl : NULL;
  if (n != lut->n_entries || !lut_valid (lut))
    return FALSE;
  /* every entry fits the declared bits */
  for (gsize i = 0; i < n; i++)
    if (lut->bits < 16 && lut->data[i] >> lut->bits)
      return FALSE;
  return TRUE;
}

static LbValueModel *
parse_failed (LbValueModelBuilder *b, GError **error, const char *what)
{
  lb_value_model_builder_free (b);
  g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "value model: %s", what);
  return NULL;
}

LbValueModel *
lb_value_model_deserialize (const char *text, GError **error)
{
  g_autoptr(GVariant) v = NULL;
  g_autoptr(GError) parse_error = NULL;
  GVariantDict dict;
  LbValueModelBuilder *b;
  guint32 version = 0, bits = 0, stored_bits = 0, lo, hi;
  gboolean is_signed = FALSE, flag;
  double a, c;
  const char *s1, *s2;
  GVariant *child;

  g_return_val_if_fail (text != NULL, NULL);
  v = g_variant_parse (G_VARIANT_TYPE_VARDICT, text, NULL, NULL, &parse_error);
  if (v == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "value model: %s", parse_error->message);
      return NULL;
    }
  g_variant_dict_init (&dict, v);
  if (!g_variant_dict_lookup (&dict, "version", "u", &version) || version != 1
      || !g_variant_dict_lookup (&dict, "sample-bits", "u", &bits) || (bits != 8 && bits != 16))
    {
      g_variant_dict_clear (&dict);
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE,
                   "value model: version %u with %u-bit samples is not one Lightbox reads",
                   version, bits);
      return NULL;
    }
  b = lb_value_model_builder_new (NULL, bits);
  g_variant_dict_lookup (&dict, "source", "(bu)", &is_signed, &stored_bits);
  if (stored_bits > 16 || (is_signed && bits != 16))
    {
      g_variant_dict_clear (&dict);
      return parse_failed (b, error, "impossible source pixel representation");
    }
  lb_value_model_builder_set_source (b, is_signed, stored_bits);
  if (g_variant_dict_lookup (&dict, "rescale", "(dd)", &a, &c))
    {
      if (!isfinite (a) || !isfinite (c) || a == 0)
        {
          g_variant_dict_clear (&dict);
          return parse_failed (b, error, "invalid rescale");
        }
      lb_value_model_builder_set_rescale (b, a, c);
    }
  if ((child = g_variant_dict_lookup_value (&dict, "modality-lut", G_VARIANT_TYPE (LUT_TYPE))))
    {
      LbValueLut lut;
      g_autoptr(GVariant) data = NULL;
      gboolean ok = lut_from_variant (child, &lut, &data);

      if (ok)
        lb_value_model_builder_set_modality_lut (b, &lut);
      g_variant_unref (child);
      if (!ok)
        {
          g_variant_dict_clear (&dict);
          return parse_failed (b, error, "inconsistent Modality LUT");
        }
    }
  if (g_variant_dict_lookup (&dict, "units", "&s", &s1))
    lb_value_model_builder_set_units (b, s1);
  if (g_variant_dict_lookup (&dict, "padding", "(uu)", &lo, &hi))
    {
      if (lo > hi || hi >= (1u << bits))
        {
          g_variant_dict_clear (&dict);
          return parse_failed (b, error, "padding outside the samples");
        }
      lb_value_model_builder_set_padding (b, lo, hi);
    }
  if ((child = g_variant_dict_lookup_value (&dict, "windows", G_VARIANT_TYPE ("a(dds)"))))
    {
      GVariantIter iter;
      gboolean ok = TRUE;

      g_variant_iter_init (&iter, child);
      while (g_variant_iter_next (&iter, "(dd&s)", &a, &c, &s1))
        if (isfinite (a) && isfinite (c) && c > 0)
          lb_value_model_builder_add_window (b, a, c, s1);
        else
          ok = FALSE;
      g_variant_unref (child);
      if (!ok)
        {
          g_variant_dict_clear (&dict);
          return parse_failed (b, error, "invalid window");
        }
    }
  if (g_variant_dict_lookup (&dict, "voi-function", "&s", &s1))
    {
      LbVoiFunction f;

      if (!lb_voi_function_from_string (s1, &f))
        {
          g_variant_dict_clear (&dict);
          return parse_failed (b, error, "unknown VOI LUT Function");
        }
      lb_value_model_builder_set_voi_function (b, f);
    }
  if ((child = g_variant_dict_lookup_value (&dict, "voi-luts", G_VARIANT_TYPE ("a" LUT_TYPE))))
    {
      gboolean ok = TRUE;

      for (gsize i = 0; ok && i < g_variant_n_children (child); i++)
        {
          g_autoptr(GVariant) item = g_variant_get_child_value (child, i);
          g_autoptr(GVariant) data = NULL;
          LbValueLut lut;

          ok = lut_from_variant (item, &lut, &data);
          if (ok)
            lb_value_model_builder_add_voi_lut (b, &lut);
        }
      g_variant_unref (child);
      if (!ok)
        {
          g_variant_dict_clear (&dict);
          return parse_failed (b, error, "inconsistent VOI LUT");
        }
    }
  if (g_variant_dict_lookup (&dict, "monochrome1", "b", &flag))
    lb_value_model_builder_set_monochrome1 (b, flag);
  if (g_variant_dict_lookup (&dict, "presentation-lut-shape", "&s", &s1))
    {
      LbPresentationShape shape;

      if (!lb_presentation_shape_from_string (s1, &shape))
        {
          g_variant_dict_clear (&dict);
          return parse_failed (b, error, "unknown Presentation LUT Shape");
        }
      lb_value_model_builder_set_presentation_shape (b, shape);
    }
  if (g_variant_dict_lookup (&dict, "lossy", "(&s&s)", &s1, &s2))
    lb_value_model_builder_set_lossy (b, TRUE, s1, s2);
  /* a colour model means nothing but its lossy history, whatever else the text says */
  if (g_variant_dict_lookup (&dict, "colour", "b", &flag) && flag)
    lb_value_model_builder_set_colour (b, TRUE);
  g_variant_dict_clear (&dict);
  return lb_value_model_builder_end (b);
}
