/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-filter-host-proto"

/* What both ends of the helper protocol do alike (see lb-filter-host-proto.h). */

#include <errno.h>
#include <sys/mman.h>

#include <gio/gio.h>

#include "lb-filter-host-proto.h"

typedef struct {
  gpointer addr;
  gsize size;
} Mapping;

static void
mapping_free (gpointer data)
{
  Mapping *m = data;

  munmap (m->addr, m->size);
  g_free (m);
}

GBytes *
_lb_fh_map_bytes (int          fd,
                  gsize        size,
                  const char  *what,
                  GError     **error)
{
  gpointer addr = mmap (NULL, size, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
  Mapping *m;

  if (addr == MAP_FAILED)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "cannot map %s: %s", what,
                   g_strerror (saved));
      return NULL;
    }
  m = g_new (Mapping, 1);
  m->addr = addr;
  m->size = size;
  return g_bytes_new_with_free_func (addr, size, mapping_free, m);
}

GVariant *
_lb_fh_meta_to_variant (const LbImageMeta *meta)
{
  g_auto(GVariantBuilder) b = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  LbValueModel *model = meta != NULL ? lb_image_meta_get_value_model (meta) : NULL;
  const char *modality = meta != NULL ? lb_image_meta_get_text (meta, "Modality") : NULL;
  double x, y;

  if (model != NULL)
    {
      g_autofree char *text = lb_value_model_serialize (model);

      g_variant_builder_add (&b, "{sv}", "values", g_variant_new_string (text));
    }
  if (meta != NULL && lb_image_meta_get_pixel_spacing (meta, &x, &y))
    g_variant_builder_add (&b, "{sv}", "spacing", g_variant_new ("(dd)", x, y));
  if (modality != NULL)
    g_variant_builder_add (&b, "{sv}", "modality", g_variant_new_string (modality));
  return g_variant_builder_end (&b);
}

LbImageMeta *
_lb_fh_meta_from_variant (GVariant *dict)
{
  g_autoptr(LbImageMeta) meta = NULL;
  const char *text;
  double x, y;

  if (dict == NULL || g_variant_n_children (dict) == 0)
    return NULL;
  meta = lb_image_meta_new ();
  if (g_variant_lookup (dict, "values", "&s", &text))
    {
      g_autoptr(GError) error = NULL;
      LbValueModel *model = lb_value_model_deserialize (text, &error);

      /* Lightbox serialised it itself; a failure would be a bug on this side */
      if (model == NULL)
        g_warning ("cannot read the value model Lightbox sent: %s", error->message);
      else
        {
          lb_image_meta_set_value_model (meta, model);
          lb_value_model_unref (model);
        }
    }
  if (g_variant_lookup (dict, "spacing", "(dd)", &x, &y))
    lb_image_meta_set_pixel_spacing (meta, x, y);
  if (g_variant_lookup (dict, "modality", "&s", &text))
    lb_image_meta_set_text (meta, "Modality", text);
  return g_steal_pointer (&meta);
}
