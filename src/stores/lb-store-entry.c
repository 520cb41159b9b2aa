/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-store-entry"

#include "lb-store-entry.h"

#include <string.h>

struct _LbStoreEntry {
  GObject           parent_instance;
  char             *uri;           /* owned, percent-encoded */
  char             *name;          /* owned, decoded */
  char             *display_name;  /* owned, nullable */
  LbStoreEntryKind  kind;
  gint64            size;          /* bytes, -1 unknown */
  GDateTime        *mtime;         /* owned, nullable */
  char             *content_type;  /* owned, nullable */
  char             *etag;          /* owned, nullable */
  GHashTable       *attributes;    /* owned, nullable: char* → char* */
};

G_DEFINE_TYPE (LbStoreEntry, lb_store_entry, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_URI,
  PROP_NAME,
  PROP_DISPLAY_NAME,
  PROP_KIND,
  PROP_SIZE,
  PROP_MTIME,
  PROP_CONTENT_TYPE,
  PROP_ETAG,
  N_PROPS
};

static GParamSpec *props[N_PROPS];

GType
lb_store_entry_kind_get_type (void)
{
  static gsize type_id = 0;

  if (g_once_init_enter (&type_id))
    {
      static const GEnumValue values[] = {
        { LB_STORE_ENTRY_UNKNOWN, "LB_STORE_ENTRY_UNKNOWN", "unknown" },
        { LB_STORE_ENTRY_DIRECTORY, "LB_STORE_ENTRY_DIRECTORY", "directory" },
        { LB_STORE_ENTRY_FILE, "LB_STORE_ENTRY_FILE", "file" },
        { LB_STORE_ENTRY_IMAGE, "LB_STORE_ENTRY_IMAGE", "image" },
        { LB_STORE_ENTRY_DICOM_FILE, "LB_STORE_ENTRY_DICOM_FILE", "dicom-file" },
        { LB_STORE_ENTRY_DICOM_PATIENT, "LB_STORE_ENTRY_DICOM_PATIENT", "dicom-patient" },
        { LB_STORE_ENTRY_DICOM_STUDY, "LB_STORE_ENTRY_DICOM_STUDY", "dicom-study" },
        { LB_STORE_ENTRY_DICOM_SERIES, "LB_STORE_ENTRY_DICOM_SERIES", "dicom-series" },
        { LB_STORE_ENTRY_DICOM_INSTANCE, "LB_STORE_ENTRY_DICOM_INSTANCE", "dicom-instance" },
        { 0, NULL, NULL },
      };
      GType id = g_enum_register_static ("LbStoreEntryKind", values);
      g_once_init_leave (&type_id, id);
    }
  return type_id;
}

gboolean
lb_store_entry_kind_is_container (LbStoreEntryKind kind)
{
  switch (kind)
    {
    case LB_STORE_ENTRY_DIRECTORY:
    case LB_STORE_ENTRY_DICOM_PATIENT:
    case LB_STORE_ENTRY_DICOM_STUDY:
    case LB_STORE_ENTRY_DICOM_SERIES:
      return TRUE;
    case LB_STORE_ENTRY_UNKNOWN:
    case LB_STORE_ENTRY_FILE:
    case LB_STORE_ENTRY_IMAGE:
    case LB_STORE_ENTRY_DICOM_FILE:
    case LB_STORE_ENTRY_DICOM_INSTANCE:
    default:
      return FALSE;
    }
}

static void
lb_store_entry_finalize (GObject *object)
{
  LbStoreEntry *self = LB_STORE_ENTRY (object);

  g_free (self->uri);
  g_free (self->name);
  g_free (self->display_name);
  g_clear_pointer (&self->mtime, g_date_time_unref);
  g_free (self->content_type);
  g_free (self->etag);
  g_clear_pointer (&self->attributes, g_hash_table_unref);
  G_OBJECT_CLASS (lb_store_entry_parent_class)->finalize (object);
}

static void
lb_store_entry_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  LbStoreEntry *self = LB_STORE_ENTRY (object);

  switch (prop_id)
    {
    case PROP_URI: g_value_set_string (value, self->uri); break;
    case PROP_NAME: g_value_set_string (value, self->name); break;
    case PROP_DISPLAY_NAME: g_value_set_string (value, lb_store_entry_get_display_name (self)); break;
    case PROP_KIND: g_value_set_enum (value, self->kind); break;
    case PROP_SIZE: g_value_set_int64 (value, self->size); break;
    case PROP_MTIME: g_value_set_boxed (value, self->mtime); break;
    case PROP_CONTENT_TYPE: g_value_set_string (value, self->content_type); break;
    case PROP_ETAG: g_value_set_string (value, self->etag); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lb_store_entry_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  LbStoreEntry *self = LB_STORE_ENTRY (object);

  switch (prop_id)
    {
    case PROP_URI: lb_store_entry_set_uri (self, g_value_get_string (value)); break;
    case PROP_NAME: lb_store_entry_set_name (self, g_value_get_string (value)); break;
    case PROP_DISPLAY_NAME: lb_store_entry_set_display_name (self, g_value_get_string (value)); break;
    case PROP_KIND: lb_store_entry_set_kind (self, g_value_get_enum (value)); break;
    case PROP_SIZE: lb_store_entry_set_size (self, g_value_get_int64 (value)); break;
    case PROP_MTIME: lb_store_entry_set_mtime (self, g_value_get_boxed (value)); break;
    case PROP_CONTENT_TYPE: lb_store_entry_set_content_type (self, g_value_get_string (value)); break;
    case PROP_ETAG: lb_store_entry_set_etag (self, g_value_get_string (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lb_store_entry_class_init (LbStoreEntryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = lb_store_entry_finalize;
  object_class->get_property = lb_store_entry_get_property;
  object_class->set_property = lb_store_entry_set_property;

  props[PROP_URI] = g_param_spec_string ("uri", NULL, NULL, NULL, flags);
  props[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, flags);
  props[PROP_DISPLAY_NAME] = g_param_spec_string ("display-name", NULL, NULL, NULL, flags);
  props[PROP_KIND] = g_param_spec_enum ("kind", NULL, NULL, LB_TYPE_STORE_ENTRY_KIND,
                                        LB_STORE_ENTRY_UNKNOWN, flags);
  props[PROP_SIZE] = g_param_spec_int64 ("size", NULL, NULL, -1, G_MAXINT64, -1, flags);
  props[PROP_MTIME] = g_param_spec_boxed ("mtime", NULL, NULL, G_TYPE_DATE_TIME, flags);
  props[PROP_CONTENT_TYPE] = g_param_spec_string ("content-type", NULL, NULL, NULL, flags);
  props[PROP_ETAG] = g_param_spec_string ("etag", NULL, NULL, NULL, flags);
  g_object_class_install_properties (object_class, N_PROPS, props);
}

static void
lb_store_entry_init (LbStoreEntry *self)
{
  self->size = -1;
}

LbStoreEntry *
lb_store_entry_new (const char *uri, const char *name, LbStoreEntryKind kind)
{
  LbStoreEntry *self = g_object_new (LB_TYPE_STORE_ENTRY, NULL);

  self->uri = g_strdup (uri);
  self->name = g_strdup (name);
  self->kind = kind;
  return self;
}

const char *lb_store_entry_get_uri (LbStoreEntry *self) { g_return_val_if_fail (LB_IS_STORE_ENTRY (self), NULL); return self->uri; }
const char *lb_store_entry_get_name (LbStoreEntry *self) { g_return_val_if_fail (LB_IS_STORE_ENTRY (self), NULL); return self->name; }
LbStoreEntryKind lb_store_entry_get_kind (LbStoreEntry *self) { g_return_val_if_fail (LB_IS_STORE_ENTRY (self), 0); return self->kind; }
gint64 lb_store_entry_get_size (LbStoreEntry *self) { g_return_val_if_fail (LB_IS_STORE_ENTRY (self), -1); return self->size; }
GDateTime *lb_store_entry_get_mtime (LbStoreEntry *self) { g_return_val_if_fail (LB_IS_STORE_ENTRY (self), NULL); return self->mtime; }
const char *lb_store_entry_get_content_type (LbStoreEntry *self) { g_return_val_if_fail (LB_IS_STORE_ENTRY (self), NULL); return self->content_type; }
const char *lb_store_entry_get_etag (LbStoreEntry *self) { g_return_val_if_fail (LB_IS_STORE_ENTRY (self), NULL); return self->etag; }

const char *
lb_store_entry_get_display_name (LbStoreEntry *self)
{
  g_return_val_if_fail (LB_IS_STORE_ENTRY (self), NULL);
  if (self->display_name != NULL && *self->display_name != '\0')
    return self->display_name;
  return self->name != NULL ? self->name : "";
}

gboolean
lb_store_entry_is_container (LbStoreEntry *self)
{
  g_return_val_if_fail (LB_IS_STORE_ENTRY (self), FALSE);
  return lb_store_entry_kind_is_container (self->kind);
}

const char *
lb_store_entry_get_attribute (LbStoreEntry *self, const char *key)
{
  g_return_val_if_fail (LB_IS_STORE_ENTRY (self), NULL);
  if (self->attributes == NULL)
    return NULL;
  return g_hash_table_lookup (self->attributes, key);
}

static void
set_string (LbStoreEntry *self, char **field, const char *value, guint prop)
{
  if (g_strcmp0 (*field, value) == 0)
    return;
  g_free (*field);
  *field = g_strdup (value);
  g_object_notify_by_pspec (G_OBJECT (self), props[prop]);
}

void lb_store_entry_set_uri (LbStoreEntry *self, const char *uri) { g_return_if_fail (LB_IS_STORE_ENTRY (self)); set_string (self, &self->uri, uri, PROP_URI); }
void lb_store_entry_set_name (LbStoreEntry *self, const char *name) { g_return_if_fail (LB_IS_STORE_ENTRY (self)); set_string (self, &self->name, name, PROP_NAME); }
void lb_store_entry_set_display_name (LbStoreEntry *self, const char *name) { g_return_if_fail (LB_IS_STORE_ENTRY (self)); set_string (self, &self->display_name, name, PROP_DISPLAY_NAME); }
void lb_store_entry_set_content_type (LbStoreEntry *self, const char *ct) { g_return_if_fail (LB_IS_STORE_ENTRY (self)); set_string (self, &self->content_type, ct, PROP_CONTENT_TYPE); }
void lb_store_entry_set_etag (LbStoreEntry *self, const char *etag) { g_return_if_fail (LB_IS_STORE_ENTRY (self)); set_string (self, &self->etag, etag, PROP_ETAG); }

void
lb_store_entry_set_kind (LbStoreEntry *self, LbStoreEntryKind kind)
{
  g_return_if_fail (LB_IS_STORE_ENTRY (self));
  if (self->kind == kind)
    return;
  self->kind = kind;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_KIND]);
}

void
lb_store_entry_set_size (LbStoreEntry *self, gint64 size)
{
  g_return_if_fail (LB_IS_STORE_ENTRY (self));
  if (size < -1)
    size = -1;
  if (self->size == size)
    return;
  self->size = size;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_SIZE]);
}

void
lb_store_entry_set_mtime (LbStoreEntry *self, GDateTime *mtime)
{
  g_return_if_fail (LB_IS_STORE_ENTRY (self));
  if (self->mtime == mtime)
    return;
  g_clear_pointer (&self->mtime, g_date_time_unref);
  self->mtime = mtime != NULL ? g_date_time_ref (mtime) : NULL;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_MTIME]);
}

void
lb_store_entry_set_attribute (LbStoreEntry *self, const char *key, const char *value)
{
  g_return_if_fail (LB_IS_STORE_ENTRY (self));
  g_return_if_fail (key != NULL);
  if (value == NULL)
    {
      if (self->attributes != NULL)
        g_hash_table_remove (self->attributes, key);
      return;
    }
  if (self->attributes == NULL)
    self->attributes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_hash_table_insert (self->attributes, g_strdup (key), g_strdup (value));
}

LbStoreEntryKind
lb_store_entry_guess_file_kind (const char *name, const char *content_type)
{
  static const char *const image_ext[] = {
    ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".webp", ".pgm", ".ppm", ".pnm",
    ".pbm", ".pam", ".ico", ".tga", ".xpm",
  };
  g_autofree char *lower = g_utf8_strdown (name != NULL ? name : "", -1);

  if (content_type != NULL)
    {
      if (g_ascii_strncasecmp (content_type, "application/dicom", 17) == 0)
        return LB_STORE_ENTRY_DICOM_FILE;
      if (g_ascii_strncasecmp (content_type, "image/", 6) == 0)
        return LB_STORE_ENTRY_IMAGE;
    }
  if (g_str_has_suffix (lower, ".dcm") || g_str_has_suffix (lower, ".dicom"))
    return LB_STORE_ENTRY_DICOM_FILE;
  for (guint i = 0; i < G_N_ELEMENTS (image_ext); i++)
    if (g_str_has_suffix (lower, image_ext[i]))
      return LB_STORE_ENTRY_IMAGE;
  return LB_STORE_ENTRY_FILE;
}
