/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-filter-params"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "lb-error.h"
#include "lb-filter-params.h"

struct _LbFilterParams {
  gatomicrefcount ref;
  LbFilter *filter;   /* owned */
  guint8 *data;       /* owned, params_size bytes (at least 1 so it is never NULL) */
  gsize size;
};

G_DEFINE_BOXED_TYPE (LbFilterParams, lb_filter_params, lb_filter_params_ref,
                     lb_filter_params_unref)

static void
store (LbFilterParams    *self,
       const LbParamSpec *spec,
       double             v)
{
  guint8 *p = self->data + spec->offset;

  switch (spec->type)
    {
    case LB_PARAM_DOUBLE:
      memcpy (p, &v, sizeof (double));
      break;
    case LB_PARAM_INT:
    case LB_PARAM_ENUM:
      {
        gint i = (gint) v;
        memcpy (p, &i, sizeof (gint));
      }
      break;
    case LB_PARAM_BOOL:
      {
        gboolean b = v != 0;
        memcpy (p, &b, sizeof (gboolean));
      }
      break;
    default:
      g_assert_not_reached ();
    }
}

static double
load (LbFilterParams    *self,
      const LbParamSpec *spec)
{
  const guint8 *p = self->data + spec->offset;

  switch (spec->type)
    {
    case LB_PARAM_DOUBLE:
      {
        double d;
        memcpy (&d, p, sizeof d);
        return d;
      }
    case LB_PARAM_INT:
    case LB_PARAM_ENUM:
    case LB_PARAM_BOOL:
      {
        gint i;
        memcpy (&i, p, sizeof i);
        return i;
      }
    default:
      g_assert_not_reached ();
    }
  return 0;
}

LbFilterParams *
lb_filter_params_new (LbFilter *filter)
{
  LbFilterParams *self;
  guint n;

  g_return_val_if_fail (LB_IS_FILTER (filter), NULL);
  self = g_new0 (LbFilterParams, 1);
  g_atomic_ref_count_init (&self->ref);
  self->filter = g_object_ref (filter);
  self->size = _lb_filter_get_info (filter)->params_size;
  self->data = g_malloc0 (MAX (self->size, 1));
  n = lb_filter_get_n_params (filter);
  for (guint i = 0; i < n; i++)
    {
      const LbParamSpec *spec = lb_filter_get_param (filter, i);
      store (self, spec, spec->def);
    }
  return self;
}

LbFilterParams *
lb_filter_params_ref (LbFilterParams *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_ref_count_inc (&self->ref);
  return self;
}

void
lb_filter_params_unref (LbFilterParams *self)
{
  g_return_if_fail (self != NULL);
  if (g_atomic_ref_count_dec (&self->ref))
    {
      g_clear_object (&self->filter);
      g_free (self->data);
      g_free (self);
    }
}

LbFilterParams *
lb_filter_params_copy (LbFilterParams *self)
{
  LbFilterParams *copy = lb_filter_params_new (self->filter);

  memcpy (copy->data, self->data, MAX (self->size, 1));
  return copy;
}

LbFilter *
lb_filter_params_get_filter (LbFilterParams *self)
{
  return self->filter;
}

gconstpointer
lb_filter_params_get_data (LbFilterParams *self)
{
  return self->data;
}

static const LbParamSpec *
find_spec (LbFilterParams *self,
           const char     *name,
           GError        **error)
{
  const LbParamSpec *spec = lb_filter_find_param (self->filter, name, NULL);

  if (spec == NULL)
    {
      GString *known = g_string_new (NULL);
      guint n = lb_filter_get_n_params (self->filter);

      for (guint i = 0; i < n; i++)
        g_string_append_printf (known, "%s%s", i ? ", " : "",
                                lb_filter_get_param (self->filter, i)->name);
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "%s has no parameter “%s” (%s%s)", lb_filter_get_id (self->filter), name,
                   n ? "parameters: " : "it takes no parameters", known->str);
      g_string_free (known, TRUE);
    }
  return spec;
}

static gboolean
check_and_store (LbFilterParams    *self,
                 const LbParamSpec *spec,
                 double             v,
                 const char        *text,
                 GError           **error)
{
  const char *id = lb_filter_get_id (self->filter);
  g_autofree char *shown = text ? g_strdup (text) : g_strdup_printf ("%g", v);

  if (!isfinite (v))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "%s: parameter “%s” = %s is not a finite number", id, spec->name, shown);
      return FALSE;
    }
  if (spec->type != LB_PARAM_DOUBLE && floor (v) != v)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "%s: parameter “%s” = %s must be a whole number", id, spec->name, shown);
      return FALSE;
    }
  if (v < spec->min || v > spec->max)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "%s: parameter “%s” = %s is out of range %g..%g", id, spec->name, shown,
                   spec->min, spec->max);
      return FALSE;
    }
  if ((spec->flags & LB_PARAM_FLAG_ODD) && ((gint64) v) % 2 == 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "%s: parameter “%s” = %s must be odd (range %g..%g)", id, spec->name, shown,
                   spec->min, spec->max);
      return FALSE;
    }
  store (self, spec, v);
  return TRUE;
}

gboolean
lb_filter_params_set_number (LbFilterParams *self,
                             const char     *name,
                             double          value,
                             GError        **error)
{
  const LbParamSpec *spec;

  g_return_val_if_fail (self != NULL, FALSE);
  spec = find_spec (self, name, error);
  return spec != NULL && check_and_store (self, spec, value, NULL, error);
}

double
lb_filter_params_get_number (LbFilterParams *self,
                             const char     *name)
{
  const LbParamSpec *spec;

  g_return_val_if_fail (self != NULL, 0);
  spec = lb_filter_find_param (self->filter, name, NULL);
  g_return_val_if_fail (spec != NULL, 0);
  return load (self, spec);
}

static gboolean
enum_from_nick (const LbParamSpec *spec,
                const char        *nick,
                double            *out)
{
  for (guint i = 0; spec->values[i].nick != NULL; i++)
    if (g_ascii_strcasecmp (spec->values[i].nick, nick) == 0)
      {
        *out = i;
        return TRUE;
      }
  return FALSE;
}

gboolean
lb_filter_params_set_value_string (LbFilterParams *self,
                                   const char     *name,
                                   const char     *value,
                                   GError        **error)
{
  const LbParamSpec *spec;
  const char *id;
  double v;
  char *end = NULL;

  g_return_val_if_fail (self != NULL, FALSE);
  spec = find_spec (self, name, error);
  if (spec == NULL)
    return FALSE;
  id = lb_filter_get_id (self->filter);
  if (spec->type == LB_PARAM_BOOL)
    {
      if (g_ascii_strcasecmp (value, "true") == 0 || g_ascii_strcasecmp (value, "yes") == 0
          || g_str_equal (value, "1"))
        return check_and_store (self, spec, 1, value, error);
      if (g_ascii_strcasecmp (value, "false") == 0 || g_ascii_strcasecmp (value, "no") == 0
          || g_str_equal (value, "0"))
        return check_and_store (self, spec, 0, value, error);
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "%s: parameter “%s” = “%s” is not a boolean (true or false)", id, name, value);
      return FALSE;
    }
  if (spec->type == LB_PARAM_ENUM && enum_from_nick (spec, value, &v))
    return check_and_store (self, spec, v, value, error);

  errno = 0;
  v = g_ascii_strtod (value, &end);
  if (*value == '\0' || g_ascii_isspace (*value) || end == NULL || *end != '\0' || errno != 0)
    {
      if (spec->type == LB_PARAM_ENUM)
        {
          GString *nicks = g_string_new (NULL);
          for (guint i = 0; spec->values[i].nick != NULL; i++)
            g_string_append_printf (nicks, "%s%s", i ? ", " : "", spec->values[i].nick);
          g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                       "%s: parameter “%s” = “%s” is not one of %s", id, name, value, nicks->str);
          g_string_free (nicks, TRUE);
        }
      else
        g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                     "%s: parameter “%s” = “%s” is not a number (range %g..%g)", id, name, value,
                     spec->min, spec->max);
      return FALSE;
    }
  return check_and_store (self, spec, v, value, error);
}

/* A parameter named twice in one string or dictionary is an error rather than "the last one
 * wins": in a hand-written step or a declarative chain the two values are most likely a typo,
 * and quietly running with either would give an image the author did not ask for. */
static gboolean
check_once (LbFilterParams     *self,
            GPtrArray          *seen,
            const char         *name,
            GError            **error)
{
  const LbParamSpec *spec = find_spec (self, name, error);

  if (spec == NULL)
    return FALSE;
  if (g_ptr_array_find (seen, spec, NULL))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "%s: parameter “%s” is given more than once", lb_filter_get_id (self->filter),
                   name);
      return FALSE;
    }
  g_ptr_array_add (seen, (gpointer) spec);
  return TRUE;
}

/* Puts back the values saved before a multi-value setter failed part-way, so that the setters
 * below change either every parameter they name or none. */
static void
restore (LbFilterParams *self,
         const guint8   *saved)
{
  memcpy (self->data, saved, MAX (self->size, 1));
}

gboolean
lb_filter_params_set_from_string (LbFilterParams *self,
                                  const char     *text,
                                  GError        **error)
{
  g_auto(GStrv) items = NULL;
  g_autoptr(GPtrArray) seen = NULL;
  g_autofree guint8 *saved = NULL;

  g_return_val_if_fail (self != NULL, FALSE);
  if (text == NULL || *text == '\0')
    return TRUE;
  items = g_strsplit (text, ",", -1);
  seen = g_ptr_array_new ();
  saved = g_memdup2 (self->data, MAX (self->size, 1));
  for (guint i = 0; items[i] != NULL; i++)
    {
      char *eq = strchr (items[i], '=');

      if (eq == NULL || eq == items[i])
        {
          g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                       "%s: “%s” is not NAME=VALUE", lb_filter_get_id (self->filter), items[i]);
          restore (self, saved);
          return FALSE;
        }
      *eq = '\0';
      if (!check_once (self, seen, items[i], error)
          || !lb_filter_params_set_value_string (self, items[i], eq + 1, error))
        {
          restore (self, saved);
          return FALSE;
        }
    }
  return TRUE;
}

/* One a{sv} entry; FALSE with @error set when its value does not fit the parameter. */
static gboolean
set_variant_value (LbFilterParams *self,
                   const char     *key,
                   GVariant       *value,
                   GError        **error)
{
  const LbParamSpec *spec = find_spec (self, key, error);
  double v;

  if (spec == NULL)
    return FALSE;
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_INT32))
    v = g_variant_get_int32 (value);
  else if (g_variant_is_of_type (value, G_VARIANT_TYPE_UINT32))
    v = g_variant_get_uint32 (value);
  else if (g_variant_is_of_type (value, G_VARIANT_TYPE_INT64))
    v = (double) g_variant_get_int64 (value);
  else if (g_variant_is_of_type (value, G_VARIANT_TYPE_DOUBLE))
    v = g_variant_get_double (value);
  else if (g_variant_is_of_type (value, G_VARIANT_TYPE_BOOLEAN))
    v = g_variant_get_boolean (value);
  else if (g_variant_is_of_type (value, G_VARIANT_TYPE_STRING) && spec->type == LB_PARAM_ENUM)
    return lb_filter_params_set_value_string (self, key, g_variant_get_string (value, NULL),
                                              error);
  else
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "%s: parameter “%s” has unsupported type %s",
                   lb_filter_get_id (self->filter), key, g_variant_get_type_string (value));
      return FALSE;
    }
  return check_and_store (self, spec, v, NULL, error);
}

gboolean
lb_filter_params_set_variant (LbFilterParams *self,
                              GVariant       *dict,
                              GError        **error)
{
  GVariantIter iter;
  const char *key;
  GVariant *value;
  g_autoptr(GVariant) owned = NULL;
  g_autoptr(GPtrArray) seen = NULL;
  g_autofree guint8 *saved = NULL;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (dict != NULL, FALSE);
  /* Consumes a floating reference, so callers can pass g_variant_builder_end() directly. */
  owned = g_variant_ref_sink (dict);
  if (!g_variant_is_of_type (dict, G_VARIANT_TYPE_VARDICT))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "%s: parameters must be an a{sv} dictionary, not %s",
                   lb_filter_get_id (self->filter), g_variant_get_type_string (dict));
      return FALSE;
    }
  seen = g_ptr_array_new ();
  saved = g_memdup2 (self->data, MAX (self->size, 1));
  g_variant_iter_init (&iter, dict);
  while (g_variant_iter_loop (&iter, "{&sv}", &key, &value))
    if (!check_once (self, seen, key, error) || !set_variant_value (self, key, value, error))
      {
        /* g_variant_iter_loop() frees @value only when it is called again. */
        g_variant_unref (value);
        restore (self, saved);
        return FALSE;
      }
  return TRUE;
}

GVariant *
lb_filter_params_to_variant (LbFilterParams *self)
{
  GVariantBuilder b;
  guint n = lb_filter_get_n_params (self->filter);

  g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
  for (guint i = 0; i < n; i++)
    {
      const LbParamSpec *spec = lb_filter_get_param (self->filter, i);
      double v = load (self, spec);

      switch (spec->type)
        {
        case LB_PARAM_DOUBLE:
          g_variant_builder_add (&b, "{sv}", spec->name, g_variant_new_double (v));
          break;
        case LB_PARAM_INT:
          g_variant_builder_add (&b, "{sv}", spec->name, g_variant_new_int32 ((gint32) v));
          break;
        case LB_PARAM_BOOL:
          g_variant_builder_add (&b, "{sv}", spec->name, g_variant_new_boolean (v != 0));
          break;
        case LB_PARAM_ENUM:
          g_variant_builder_add (&b, "{sv}", spec->name,
                                 g_variant_new_string (spec->values[(int) v].nick));
          break;
        default:
          g_assert_not_reached ();
        }
    }
  return g_variant_builder_end (&b);
}

char *
lb_filter_params_to_string (LbFilterParams *self)
{
  GString *s = g_string_new (NULL);
  guint n = lb_filter_get_n_params (self->filter);

  for (guint i = 0; i < n; i++)
    {
      const LbParamSpec *spec = lb_filter_get_param (self->filter, i);
      double v = load (self, spec);
      char buf[G_ASCII_DTOSTR_BUF_SIZE];

      if (s->len)
        g_string_append_c (s, ',');
      g_string_append_printf (s, "%s=", spec->name);
      switch (spec->type)
        {
        case LB_PARAM_DOUBLE:
          g_string_append (s, g_ascii_dtostr (buf, sizeof buf, v));
          break;
        case LB_PARAM_INT:
          g_string_append_printf (s, "%d", (int) v);
          break;
        case LB_PARAM_BOOL:
          g_string_append (s, v != 0 ? "true" : "false");
          break;
        case LB_PARAM_ENUM:
          g_string_append (s, spec->values[(int) v].nick);
          break;
        default:
          g_assert_not_reached ();
        }
    }
  return g_string_free (s, FALSE);
}
