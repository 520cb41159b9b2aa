/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-filter"

#include "lb-filter.h"

struct _LbFilter {
  GObject parent_instance;

  /* Borrowed from @owner: the descriptor lives in the plugin module or in the
   * declarative data that @owner keeps alive. */
  const LbFilterInfo *info;

  /* Owned */
  gpointer owner;
  GDestroyNotify owner_release;
  char *gettext_domain;
  char *origin;
  char *version;
  GStrv chain;
  LbFilterKind kind;
};

G_DEFINE_FINAL_TYPE (LbFilter, lb_filter, G_TYPE_OBJECT)

/* Read-only properties, so GTK list items can bind them with GtkExpression. */
enum {
  PROP_0,
  PROP_ID,
  PROP_ALIAS,
  PROP_NAME,
  PROP_CATEGORY,
  PROP_DESCRIPTION,
  PROP_ORIGIN,
  PROP_VERSION,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
lb_filter_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  LbFilter *self = LB_FILTER (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, lb_filter_get_id (self));
      break;
    case PROP_ALIAS:
      g_value_set_string (value, lb_filter_get_alias (self));
      break;
    case PROP_NAME:
      g_value_set_string (value, lb_filter_get_name (self));
      break;
    case PROP_CATEGORY:
      g_value_set_string (value, lb_filter_get_category (self));
      break;
    case PROP_DESCRIPTION:
      g_value_set_string (value, lb_filter_get_description (self));
      break;
    case PROP_ORIGIN:
      g_value_set_string (value, lb_filter_get_origin (self));
      break;
    case PROP_VERSION:
      g_value_set_string (value, lb_filter_get_version (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lb_filter_finalize (GObject *object)
{
  LbFilter *self = LB_FILTER (object);

  self->info = NULL;
  /* Dropping the owner may unload the module: nothing of the descriptor is used after. */
  if (self->owner_release != NULL)
    g_clear_pointer (&self->owner, self->owner_release);
  g_clear_pointer (&self->gettext_domain, g_free);
  g_clear_pointer (&self->origin, g_free);
  g_clear_pointer (&self->version, g_free);
  g_clear_pointer (&self->chain, g_strfreev);
  G_OBJECT_CLASS (lb_filter_parent_class)->finalize (object);
}

static void
lb_filter_class_init (LbFilterClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = lb_filter_finalize;
  object_class->get_property = lb_filter_get_property;
  properties[PROP_ID] = g_param_spec_string ("id", NULL, NULL, NULL, flags);
  properties[PROP_ALIAS] = g_param_spec_string ("alias", NULL, NULL, NULL, flags);
  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, flags);
  properties[PROP_CATEGORY] = g_param_spec_string ("category", NULL, NULL, NULL, flags);
  properties[PROP_DESCRIPTION] = g_param_spec_string ("description", NULL, NULL, NULL, flags);
  properties[PROP_ORIGIN] = g_param_spec_string ("origin", NULL, NULL, NULL, flags);
  properties[PROP_VERSION] = g_param_spec_string ("version", NULL, NULL, NULL, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
lb_filter_init (LbFilter *self)
{
}

LbFilter *
_lb_filter_new (LbFilterKind        kind,
                const LbFilterInfo *info,
                const char         *gettext_domain,
                const char         *origin,
                const char         *version,
                const char *const  *chain,
                gpointer            owner,
                GDestroyNotify      owner_release)
{
  LbFilter *self = g_object_new (LB_TYPE_FILTER, NULL);

  self->kind = kind;
  self->info = info;
  self->gettext_domain = g_strdup (gettext_domain);
  self->origin = g_strdup (origin);
  self->version = g_strdup (version);
  self->chain = g_strdupv ((char **) chain);
  self->owner = owner;
  self->owner_release = owner_release;
  return self;
}

gpointer
_lb_filter_get_owner (LbFilter *self)
{
  g_return_val_if_fail (LB_IS_FILTER (self), NULL);
  return self->owner;
}

const LbFilterInfo *
_lb_filter_get_info (LbFilter *self)
{
  return self->info;
}

const char *
lb_filter_translate (LbFilter   *self,
                     const char *msgid)
{
  g_return_val_if_fail (LB_IS_FILTER (self), NULL);
  if (msgid == NULL || *msgid == '\0' || self->gettext_domain == NULL)
    return msgid;
  return g_dgettext (self->gettext_domain, msgid);
}

const char *
lb_filter_get_id (LbFilter *self)
{
  g_return_val_if_fail (LB_IS_FILTER (self), NULL);
  return self->info->id;
}

const char *
lb_filter_get_alias (LbFilter *self)
{
  g_return_val_if_fail (LB_IS_FILTER (self), NULL);
  return self->info->alias;
}

const char *
lb_filter_get_name (LbFilter *self)
{
  g_return_val_if_fail (LB_IS_FILTER (self), NULL);
  return lb_filter_translate (self, self->info->name);
}

const char *
lb_filter_get_category (LbFilter *self)
{
  g_return_val_if_fail (LB_IS_FILTER (self), NULL);
  return lb_filter_translate (self, self->info->category);
}

const char *
lb_filter_get_description (LbFilter *self)
{
  g_return_val_if_fail (LB_IS_FILTER (self), NULL);
  return lb_filter_translate (self, self->info->description);
}

const char *
lb_filter_get_origin (LbFilter *self)
{
  g_return_val_if_fail (LB_IS_FILTER (self), NULL);
  return self->origin;
}

const char *
lb_filter_get_version (LbFilter *self)
{
  g_return_val_if_fail (LB_IS_FILTER (self), NULL);
  return self->version;
}

LbFilterKind
lb_filter_get_kind (LbFilter *self)
{
  g_return_val_if_fail (LB_IS_FILTER (self), LB_FILTER_KIND_PLUGIN);
  return self->kind;
}

guint32
lb_filter_get_formats (LbFilter *self)
{
  g_return_val_if_fail (LB_IS_FILTER (self), 0);
  return self->info->formats;
}

gboolean
lb_filter_supports_format (LbFilter      *self,
                           LbSampleFormat format)
{
  g_return_val_if_fail (LB_IS_FILTER (self), FALSE);
  return (self->info->formats & LB_FILTER_FORMAT_BIT (format)) != 0;
}

char *
lb_filter_dup_formats_string (LbFilter *self)
{
  GString *s = g_string_new (NULL);

  g_return_val_if_fail (LB_IS_FILTER (self), NULL);
  for (guint f = 0; f < LB_N_FORMATS; f++)
    if (self->info->formats & LB_FILTER_FORMAT_BIT (f))
      g_string_append_printf (s, "%s%s", s->len ? ", " : "",
                              lb_sample_format_to_string ((LbSampleFormat) f));
  return g_string_free (s, FALSE);
}

guint32
lb_filter_get_flags (LbFilter *self)
{
  g_return_val_if_fail (LB_IS_FILTER (self), 0);
  return self->info->flags;
}

guint
lb_filter_get_n_inputs (LbFilter *self)
{
  const LbFilterInfo *info;

  g_return_val_if_fail (LB_IS_FILTER (self), 1);
  info = self->info;
  /* n_inputs was appended in ABI 1.3: an older descriptor ends before it */
  if (info == NULL
      || info->struct_size < G_STRUCT_OFFSET (LbFilterInfo, n_inputs) + sizeof info->n_inputs)
    return 1;
  return MAX (info->n_inputs, 1);
}

guint
lb_filter_get_n_params (LbFilter *self)
{
  g_return_val_if_fail (LB_IS_FILTER (self), 0);
  return self->info->n_params;
}

const LbParamSpec *
lb_filter_get_param (LbFilter *self,
                     guint     index)
{
  g_return_val_if_fail (LB_IS_FILTER (self), NULL);
  g_return_val_if_fail (index < self->info->n_params, NULL);
  return &self->info->params[index];
}

const LbParamSpec *
lb_filter_find_param (LbFilter   *self,
                      const char *name,
                      guint      *out_index)
{
  g_return_val_if_fail (LB_IS_FILTER (self), NULL);
  for (guint i = 0; i < self->info->n_params; i++)
    if (g_str_equal (self->info->params[i].name, name))
      {
        if (out_index != NULL)
          *out_index = i;
        return &self->info->params[i];
      }
  return NULL;
}

const char *const *
lb_filter_get_chain (LbFilter *self)
{
  g_return_val_if_fail (LB_IS_FILTER (self), NULL);
  return (const char *const *) self->chain;
}
