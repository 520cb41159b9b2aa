/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-browser-node"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-browser-node.h"

struct _LbBrowserNode {
  GObject            parent_instance;
  LbBrowserNodeKind  kind;
  LbStoreEntry      *entry;      /* LB_BROWSER_NODE_ENTRY */
  char              *message;    /* LB_BROWSER_NODE_ERROR */
  char              *detail;     /* LB_BROWSER_NODE_ERROR, nullable */
  char              *sort_key;   /* natural, locale-aware, case-folded name */
  gboolean           container;
  gint64             size;       /* bytes, -1 unknown or container */
  gint64             mtime_us;   /* µs since the epoch, G_MININT64 unknown */
  const char        *icon_name;  /* static */
  /* formatted on the first bind: only rows that are shown pay for it (measured: formatting
   * all 100 000 in the worker made that pass 1.2–1.5 s instead of 0.3–0.45 s, delaying the
   * first rows by as much; local time and g_format_size are the cost) */
  gboolean           texts_done;
  char              *size_text;  /* nullable */
  char              *date_text;  /* nullable, local time */
  LbBrowserChildren *children;   /* containers: created on demand, listed lazily */
  LbBrowserChildren *owner;      /* weak: the list this row is in (for Retry) */
};

G_DEFINE_FINAL_TYPE (LbBrowserNode, lb_browser_node, G_TYPE_OBJECT)

/* What a row shows, for the bindings of its cells (ui/lb-browser-*-cell.ui). A node does not
 * change once made, so none of them is ever notified. */
enum {
  PROP_0,
  PROP_LABEL,
  PROP_ICON_NAME,
  PROP_LOADING,
  PROP_FAILED,
  PROP_SIZE_TEXT,
  PROP_DATE_TEXT,
  N_PROPS
};
static GParamSpec *properties[N_PROPS];

static void
lb_browser_node_finalize (GObject *object)
{
  LbBrowserNode *self = LB_BROWSER_NODE (object);

  g_clear_object (&self->entry);
  g_clear_object (&self->children);
  g_free (self->message);
  g_free (self->detail);
  g_free (self->sort_key);
  g_free (self->size_text);
  g_free (self->date_text);
  G_OBJECT_CLASS (lb_browser_node_parent_class)->finalize (object);
}

static void
lb_browser_node_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  LbBrowserNode *self = LB_BROWSER_NODE (object);

  switch (prop_id)
    {
    case PROP_LABEL:
      g_value_set_string (value, self->kind == LB_BROWSER_NODE_ENTRY
                                 ? lb_store_entry_get_display_name (self->entry)
                                 : self->kind == LB_BROWSER_NODE_LOADING ? _("Loading…")
                                                                         : self->message);
      break;
    case PROP_ICON_NAME: g_value_set_static_string (value, self->icon_name); break;
    case PROP_LOADING: g_value_set_boolean (value, self->kind == LB_BROWSER_NODE_LOADING); break;
    case PROP_FAILED: g_value_set_boolean (value, self->kind == LB_BROWSER_NODE_ERROR); break;
    case PROP_SIZE_TEXT: g_value_set_string (value, lb_browser_node_get_size_text (self)); break;
    case PROP_DATE_TEXT: g_value_set_string (value, lb_browser_node_get_date_text (self)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lb_browser_node_class_init (LbBrowserNodeClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = lb_browser_node_finalize;
  object_class->get_property = lb_browser_node_get_property;
  /* the entry's name, "Loading…" or the error */
  properties[PROP_LABEL] = g_param_spec_string ("label", NULL, NULL, NULL, flags);
  properties[PROP_ICON_NAME] = g_param_spec_string ("icon-name", NULL, NULL, NULL, flags);
  properties[PROP_LOADING] = g_param_spec_boolean ("loading", NULL, NULL, FALSE, flags);
  properties[PROP_FAILED] = g_param_spec_boolean ("failed", NULL, NULL, FALSE, flags);
  properties[PROP_SIZE_TEXT] = g_param_spec_string ("size-text", NULL, NULL, NULL, flags);
  properties[PROP_DATE_TEXT] = g_param_spec_string ("date-text", NULL, NULL, NULL, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
lb_browser_node_init (LbBrowserNode *self)
{
  self->size = -1;
  self->mtime_us = G_MININT64;
}

static const char *
icon_for_kind (LbStoreEntryKind kind)
{
  switch (kind)
    {
    case LB_STORE_ENTRY_DIRECTORY: return "folder-symbolic";
    case LB_STORE_ENTRY_IMAGE: return "image-x-generic-symbolic";
    case LB_STORE_ENTRY_DICOM_FILE: return "x-office-document-symbolic";
    case LB_STORE_ENTRY_DICOM_PATIENT: return "avatar-default-symbolic";
    case LB_STORE_ENTRY_DICOM_STUDY: return "folder-documents-symbolic";
    case LB_STORE_ENTRY_DICOM_SERIES: return "view-paged-symbolic";
    case LB_STORE_ENTRY_DICOM_INSTANCE: return "image-x-generic-symbolic";
    case LB_STORE_ENTRY_FILE:
    case LB_STORE_ENTRY_UNKNOWN:
    default: return "text-x-generic-symbolic";
    }
}

static LbBrowserNode *
node_new (LbBrowserNodeKind  kind,
          LbStoreEntry      *entry,
          const char        *message,
          LbBrowserChildren *owner)
{
  LbBrowserNode *node = g_object_new (LB_TYPE_BROWSER_NODE, NULL);

  node->kind = kind;
  node->entry = entry ? g_object_ref (entry) : NULL;
  node->message = g_strdup (message);
  node->owner = owner;
  if (kind == LB_BROWSER_NODE_ERROR)
    node->icon_name = "dialog-error-symbolic";
  if (entry != NULL)
    {
      g_autofree char *folded = g_utf8_casefold (lb_store_entry_get_display_name (entry), -1);
      GDateTime *mtime = lb_store_entry_get_mtime (entry);

      node->sort_key = g_utf8_collate_key_for_filename (folded, -1);
      node->container = lb_store_entry_is_container (entry);
      node->icon_name = icon_for_kind (lb_store_entry_get_kind (entry));
      if (!node->container && lb_store_entry_get_size (entry) >= 0)
        node->size = lb_store_entry_get_size (entry);
      if (mtime != NULL)
        node->mtime_us = g_date_time_to_unix (mtime) * G_USEC_PER_SEC
                         + g_date_time_get_microsecond (mtime);
    }
  return node;
}

LbBrowserNode *
lb_browser_node_new_entry (LbStoreEntry      *entry,
                           LbBrowserChildren *owner)
{
  g_return_val_if_fail (LB_IS_STORE_ENTRY (entry), NULL);
  return node_new (LB_BROWSER_NODE_ENTRY, entry, NULL, owner);
}

LbBrowserNode *
lb_browser_node_new_loading (LbBrowserChildren *owner)
{
  return node_new (LB_BROWSER_NODE_LOADING, NULL, NULL, owner);
}

LbBrowserNode *
lb_browser_node_new_error (const char        *message,
                           const char        *detail,
                           LbBrowserChildren *owner)
{
  LbBrowserNode *node = node_new (LB_BROWSER_NODE_ERROR, NULL, message, owner);

  node->detail = g_strdup (detail);
  return node;
}

LbBrowserNodeKind
lb_browser_node_get_kind (LbBrowserNode *self)
{
  g_return_val_if_fail (LB_IS_BROWSER_NODE (self), LB_BROWSER_NODE_ERROR);
  return self->kind;
}

LbStoreEntry *
lb_browser_node_get_entry (LbBrowserNode *self)
{
  g_return_val_if_fail (LB_IS_BROWSER_NODE (self), NULL);
  return self->entry;
}

static gboolean
is_container (LbBrowserNode *node)
{
  return node->kind == LB_BROWSER_NODE_ENTRY && node->container;
}

gboolean
lb_browser_node_is_container (LbBrowserNode *self)
{
  g_return_val_if_fail (LB_IS_BROWSER_NODE (self), FALSE);
  return is_container (self);
}

const char *
lb_browser_node_get_message (LbBrowserNode *self)
{
  g_return_val_if_fail (LB_IS_BROWSER_NODE (self), NULL);
  return self->message;
}

const char *
lb_browser_node_get_tooltip (LbBrowserNode *self)
{
  g_return_val_if_fail (LB_IS_BROWSER_NODE (self), NULL);
  if (self->entry != NULL)
    return lb_store_entry_get_uri (self->entry);
  return self->detail != NULL ? self->detail : self->message;
}

const char *
lb_browser_node_get_icon_name (LbBrowserNode *self)
{
  g_return_val_if_fail (LB_IS_BROWSER_NODE (self), NULL);
  return self->icon_name;
}

LbBrowserChildren *
lb_browser_node_get_owner (LbBrowserNode *self)
{
  g_return_val_if_fail (LB_IS_BROWSER_NODE (self), NULL);
  return self->owner;
}

LbBrowserChildren *
lb_browser_node_get_children (LbBrowserNode *self)
{
  g_return_val_if_fail (LB_IS_BROWSER_NODE (self), NULL);
  return self->children;
}

void
lb_browser_node_set_children (LbBrowserNode     *self,
                              LbBrowserChildren *children)
{
  g_return_if_fail (LB_IS_BROWSER_NODE (self));
  g_clear_object (&self->children);
  self->children = children;
}

static void
node_format (LbBrowserNode *node)
{
  GDateTime *mtime;

  if (node->texts_done)
    return;
  node->texts_done = TRUE;
  if (node->kind != LB_BROWSER_NODE_ENTRY)
    return;
  if (node->size >= 0)
    node->size_text = g_format_size (node->size);
  if ((mtime = lb_store_entry_get_mtime (node->entry)) != NULL)
    {
      g_autoptr (GDateTime) local = g_date_time_to_local (mtime);
      node->date_text = local ? g_date_time_format (local, "%Y-%m-%d %H:%M") : NULL;
    }
}

const char *
lb_browser_node_get_size_text (LbBrowserNode *self)
{
  g_return_val_if_fail (LB_IS_BROWSER_NODE (self), NULL);
  node_format (self);
  return self->size_text;
}

const char *
lb_browser_node_get_date_text (LbBrowserNode *self)
{
  g_return_val_if_fail (LB_IS_BROWSER_NODE (self), NULL);
  node_format (self);
  return self->date_text;
}

/* ---- sorting --------------------------------------------------------------------------- */

static int
cmp_int64 (gint64 a,
           gint64 b)
{
  return a < b ? -1 : a > b ? 1 : 0;
}

static int
cmp_name (LbBrowserNode *a,
          LbBrowserNode *b)
{
  int r = g_strcmp0 (a->sort_key, b->sort_key);

  /* equal keys (names differing only in case): a stable order all the same */
  return r != 0 ? r : g_strcmp0 (a->entry ? lb_store_entry_get_uri (a->entry) : NULL,
                                 b->entry ? lb_store_entry_get_uri (b->entry) : NULL);
}

int
lb_browser_node_compare_column (LbBrowserNode       *a,
                                LbBrowserNode       *b,
                                LbBrowserSortColumn  column)
{
  switch (column)
    {
    case LB_BROWSER_SORT_SIZE: return cmp_int64 (a->size, b->size);
    case LB_BROWSER_SORT_MODIFIED: return cmp_int64 (a->mtime_us, b->mtime_us);
    case LB_BROWSER_SORT_NAME:
    case LB_BROWSER_N_SORT_COLUMNS:
    default: return cmp_name (a, b);
    }
}

int
lb_browser_node_compare (LbBrowserNode       *a,
                         LbBrowserNode       *b,
                         const LbBrowserSort *sort)
{
  gboolean ca = is_container (a), cb = is_container (b);
  int r;

  if (ca != cb)
    return ca ? -1 : 1;
  r = lb_browser_node_compare_column (a, b, sort->column);
  if (sort->descending)
    r = -r;
  return r != 0 ? r : cmp_name (a, b);
}
