/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-image-meta"

#include "lb-image-meta.h"

struct _LbImageMeta {
  gatomicrefcount ref;
  GPtrArray *keys;    /* owned char*, insertion order */
  GPtrArray *values;  /* owned char*, parallel to keys */
  char *source_uri;
  char *source_etag;
  double spacing_x, spacing_y;  /* mm */
  LbValueModel *model;
  guint has_spacing : 1;
};

G_DEFINE_BOXED_TYPE (LbImageMeta, lb_image_meta, lb_image_meta_ref, lb_image_meta_unref)

LbImageMeta *
lb_image_meta_new (void)
{
  LbImageMeta *meta = g_new0 (LbImageMeta, 1);

  g_atomic_ref_count_init (&meta->ref);
  meta->keys = g_ptr_array_new_with_free_func (g_free);
  meta->values = g_ptr_array_new_with_free_func (g_free);
  return meta;
}

LbImageMeta *
lb_image_meta_ref (LbImageMeta *meta)
{
  g_return_val_if_fail (meta != NULL, NULL);
  g_atomic_ref_count_inc (&meta->ref);
  return meta;
}

void
lb_image_meta_unref (LbImageMeta *meta)
{
  g_return_if_fail (meta != NULL);
  if (!g_atomic_ref_count_dec (&meta->ref))
    return;
  g_ptr_array_unref (meta->keys);
  g_ptr_array_unref (meta->values);
  g_free (meta->source_uri);
  g_free (meta->source_etag);
  g_clear_pointer (&meta->model, lb_value_model_unref);
  g_free (meta);
}

LbImageMeta *
lb_image_meta_copy (const LbImageMeta *meta)
{
  LbImageMeta *copy;

  g_return_val_if_fail (meta != NULL, NULL);
  copy = lb_image_meta_new ();
  for (guint i = 0; i < meta->keys->len; i++)
    {
      g_ptr_array_add (copy->keys, g_strdup (meta->keys->pdata[i]));
      g_ptr_array_add (copy->values, g_strdup (meta->values->pdata[i]));
    }
  copy->source_uri = g_strdup (meta->source_uri);
  copy->source_etag = g_strdup (meta->source_etag);
  copy->spacing_x = meta->spacing_x;
  copy->spacing_y = meta->spacing_y;
  copy->model = meta->model ? lb_value_model_ref (meta->model) : NULL;
  copy->has_spacing = meta->has_spacing;
  return copy;
}

static gint
find_key (const LbImageMeta *meta, const char *key)
{
  for (guint i = 0; i < meta->keys->len; i++)
    if (g_strcmp0 (meta->keys->pdata[i], key) == 0)
      return (gint) i;
  return -1;
}

void
lb_image_meta_set_text (LbImageMeta *meta, const char *key, const char *value)
{
  gint i;

  g_return_if_fail (meta != NULL);
  g_return_if_fail (key != NULL && *key != '\0');

  i = find_key (meta, key);
  if (value == NULL)
    {
      if (i >= 0)
        {
          g_ptr_array_remove_index (meta->keys, (guint) i);
          g_ptr_array_remove_index (meta->values, (guint) i);
        }
      return;
    }
  if (i >= 0)
    {
      g_free (meta->values->pdata[i]);
      meta->values->pdata[i] = g_strdup (value);
      return;
    }
  g_ptr_array_add (meta->keys, g_strdup (key));
  g_ptr_array_add (meta->values, g_strdup (value));
}

const char *
lb_image_meta_get_text (const LbImageMeta *meta, const char *key)
{
  gint i;

  g_return_val_if_fail (meta != NULL, NULL);
  g_return_val_if_fail (key != NULL, NULL);
  i = find_key (meta, key);
  return i >= 0 ? meta->values->pdata[i] : NULL;
}

const char **
lb_image_meta_get_text_keys (const LbImageMeta *meta, guint *n_keys)
{
  const char **keys;

  g_return_val_if_fail (meta != NULL, NULL);
  keys = g_new0 (const char *, meta->keys->len + 1);
  for (guint i = 0; i < meta->keys->len; i++)
    keys[i] = meta->keys->pdata[i];
  if (n_keys)
    *n_keys = meta->keys->len;
  return keys;
}

void
lb_image_meta_set_pixel_spacing (LbImageMeta *meta, double x_mm, double y_mm)
{
  g_return_if_fail (meta != NULL);
  g_return_if_fail (x_mm > 0 && y_mm > 0);
  meta->spacing_x = x_mm;
  meta->spacing_y = y_mm;
  meta->has_spacing = TRUE;
}

gboolean
lb_image_meta_get_pixel_spacing (const LbImageMeta *meta, double *x_mm, double *y_mm)
{
  g_return_val_if_fail (meta != NULL, FALSE);
  if (x_mm)
    *x_mm = meta->has_spacing ? meta->spacing_x : 0;
  if (y_mm)
    *y_mm = meta->has_spacing ? meta->spacing_y : 0;
  return meta->has_spacing;
}

void
lb_image_meta_set_source_uri (LbImageMeta *meta, const char *uri)
{
  g_return_if_fail (meta != NULL);
  g_free (meta->source_uri);
  meta->source_uri = g_strdup (uri);
}

const char *
lb_image_meta_get_source_uri (const LbImageMeta *meta)
{
  g_return_val_if_fail (meta != NULL, NULL);
  return meta->source_uri;
}

void
lb_image_meta_set_source_etag (LbImageMeta *meta, const char *etag)
{
  g_return_if_fail (meta != NULL);
  g_free (meta->source_etag);
  meta->source_etag = g_strdup (etag);
}

const char *
lb_image_meta_get_source_etag (const LbImageMeta *meta)
{
  g_return_val_if_fail (meta != NULL, NULL);
  return meta->source_etag;
}

void
lb_image_meta_set_value_model (LbImageMeta *meta, LbValueModel *model)
{
  g_return_if_fail (meta != NULL);
  if (model != NULL)
    lb_value_model_ref (model);
  g_clear_pointer (&meta->model, lb_value_model_unref);
  meta->model = model;
}

LbValueModel *
lb_image_meta_get_value_model (const LbImageMeta *meta)
{
  g_return_val_if_fail (meta != NULL, NULL);
  return meta->model;
}

LbValueModel *
lb_image_meta_get_value_model_for (const LbImageMeta *meta, guint sample_bits)
{
  g_return_val_if_fail (meta != NULL, NULL);
  if (meta->model == NULL || lb_value_model_get_sample_bits (meta->model) != sample_bits)
    return NULL;
  return meta->model;
}
