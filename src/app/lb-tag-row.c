/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-tag-browser"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "lb-dicom-dict.h"
#include "lb-tag-row.h"

struct _LbTagRow {
  GObject         parent_instance;

  guint32         tag;
  char           *tag_text;
  char           *keyword;
  char           *vr;
  char           *value;
  LbDicomDataset *dataset;  /* an item: its data set; a sequence: the data set holding it */
  gboolean        is_item;
  char           *query;    /* the filter the row was listed with, for its children */
};

G_DEFINE_FINAL_TYPE (LbTagRow, lb_tag_row, G_TYPE_OBJECT)

enum { PROP_0, PROP_TAG_TEXT, PROP_KEYWORD, PROP_VR, PROP_VALUE, N_PROPS };
static GParamSpec *properties[N_PROPS];

/* Binary values are not shown whole: their size says what they are. */
#define MAX_VALUE_CHARS 256

static char *
describe_value (const LbDicomDataset *ds, guint32 tag, const char *vr)
{
  GBytes *bytes;
  char *joined;

  if (g_strcmp0 (vr, "SQ") == 0)
    {
      guint n = lb_dicom_dataset_get_n_items (ds, tag);

      /* TRANSLATORS: the value column of a sequence, "3 items" */
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u item", "%u items", n), n);
    }
  bytes = lb_dicom_dataset_get_bytes (ds, tag);
  if (bytes != NULL)
    /* TRANSLATORS: the value column of binary data, "8192 bytes" */
    return g_strdup_printf (_("%zu bytes"), g_bytes_get_size (bytes));
  if (lb_dicom_dataset_get_bulk_data_uri (ds, tag) != NULL)
    return g_strdup (lb_dicom_dataset_get_bulk_data_uri (ds, tag));
  joined = lb_dicom_dataset_dup_joined (ds, tag);
  if (joined != NULL && g_utf8_strlen (joined, -1) > MAX_VALUE_CHARS)
    {
      char *cut = g_utf8_substring (joined, 0, MAX_VALUE_CHARS);

      g_free (joined);
      joined = g_strconcat (cut, "…", NULL);
      g_free (cut);
    }
  return joined != NULL ? joined : g_strdup ("");
}

static LbTagRow *
element_row (const LbDicomDataset *ds, guint32 tag, const char *query)
{
  LbTagRow *row = g_object_new (LB_TYPE_TAG_ROW, NULL);
  const char *keyword = lb_dicom_dict_get_keyword (tag);

  row->tag = tag;
  row->tag_text = g_strdup_printf ("(%04X,%04X)", tag >> 16, tag & 0xffff);
  row->keyword = g_strdup (keyword != NULL ? keyword : "");
  row->vr = g_strdup (lb_dicom_dataset_get_vr (ds, tag));
  row->value = describe_value (ds, tag, row->vr);
  if (g_strcmp0 (row->vr, "SQ") == 0)
    row->dataset = lb_dicom_dataset_ref ((LbDicomDataset *) ds);
  row->query = g_strdup (query);
  return row;
}

static LbTagRow *
item_row (LbDicomDataset *item, guint index, const char *query)
{
  LbTagRow *row = g_object_new (LB_TYPE_TAG_ROW, NULL);

  row->is_item = TRUE;
  row->tag_text = g_strdup ("");
  /* TRANSLATORS: an item of a sequence in the tag browser, counted from 1 */
  row->keyword = g_strdup_printf (_("Item %u"), index + 1);
  row->vr = g_strdup ("");
  row->value = g_strdup ("");
  row->dataset = lb_dicom_dataset_ref (item);
  row->query = g_strdup (query);
  return row;
}

static gboolean
contains (const char *haystack, const char *needle_folded)
{
  g_autofree char *folded = g_utf8_casefold (haystack, -1);

  return strstr (folded, needle_folded) != NULL;
}

/* @folded: the query, case-folded. The element itself: its keyword, tag or (not for a
 * sequence) value. */
static gboolean
element_matches (const LbDicomDataset *ds, guint32 tag, const char *folded)
{
  g_autofree char *bare = g_strdup_printf ("%08x", tag);
  g_autofree char *comma = g_strdup_printf ("(%04x,%04x)", tag >> 16, tag & 0xffff);
  g_autofree char *value = NULL;
  const char *keyword = lb_dicom_dict_get_keyword (tag);
  const char *vr = lb_dicom_dataset_get_vr (ds, tag);

  if ((keyword != NULL && contains (keyword, folded)) || strstr (bare, folded) != NULL
      || strstr (comma, folded) != NULL)
    return TRUE;
  if (g_strcmp0 (vr, "SQ") == 0)
    return FALSE;
  value = describe_value (ds, tag, vr);
  return contains (value, folded);
}

/* Whether any element of @ds, at any depth, matches. */
static gboolean
dataset_matches (const LbDicomDataset *ds, const char *folded)
{
  guint n;
  g_autofree guint32 *tags = lb_dicom_dataset_get_tags (ds, &n);

  for (guint i = 0; i < n; i++)
    {
      if (element_matches (ds, tags[i], folded))
        return TRUE;
      for (guint k = 0; k < lb_dicom_dataset_get_n_items (ds, tags[i]); k++)
        if (dataset_matches (lb_dicom_dataset_get_item (ds, tags[i], k), folded))
          return TRUE;
    }
  return FALSE;
}

GListModel *
lb_tag_row_list_dataset (const LbDicomDataset *ds,
                         const char           *query)
{
  GListStore *store = g_list_store_new (LB_TYPE_TAG_ROW);
  g_autofree char *folded = query != NULL && *query ? g_utf8_casefold (query, -1) : NULL;
  guint n;
  g_autofree guint32 *tags = lb_dicom_dataset_get_tags (ds, &n);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(LbTagRow) row = NULL;

      if (folded == NULL || element_matches (ds, tags[i], folded))
        /* a sequence found by its own name shows all it holds */
        row = element_row (ds, tags[i], NULL);
      else
        for (guint k = 0; row == NULL && k < lb_dicom_dataset_get_n_items (ds, tags[i]); k++)
          if (dataset_matches (lb_dicom_dataset_get_item (ds, tags[i], k), folded))
            row = element_row (ds, tags[i], query);
      if (row != NULL)
        g_list_store_append (store, row);
    }
  return G_LIST_MODEL (store);
}

GListModel *
lb_tag_row_list_children (LbTagRow *self)
{
  GListStore *store;
  g_autofree char *folded = NULL;

  g_return_val_if_fail (LB_IS_TAG_ROW (self), NULL);
  if (self->dataset == NULL)
    return NULL;
  if (self->is_item)
    return lb_tag_row_list_dataset (self->dataset, self->query);
  folded = self->query != NULL && *self->query ? g_utf8_casefold (self->query, -1) : NULL;
  store = g_list_store_new (LB_TYPE_TAG_ROW);
  for (guint i = 0; i < lb_dicom_dataset_get_n_items (self->dataset, self->tag); i++)
    {
      LbDicomDataset *item = lb_dicom_dataset_get_item (self->dataset, self->tag, i);

      if (folded == NULL || dataset_matches (item, folded))
        {
          g_autoptr(LbTagRow) row = item_row (item, i, self->query);

          g_list_store_append (store, row);
        }
    }
  return G_LIST_MODEL (store);
}

guint32
lb_tag_row_get_tag (LbTagRow *self)
{
  g_return_val_if_fail (LB_IS_TAG_ROW (self), 0);
  return self->tag;
}

const char *
lb_tag_row_get_tag_text (LbTagRow *self)
{
  g_return_val_if_fail (LB_IS_TAG_ROW (self), NULL);
  return self->tag_text;
}

const char *
lb_tag_row_get_keyword (LbTagRow *self)
{
  g_return_val_if_fail (LB_IS_TAG_ROW (self), NULL);
  return self->keyword;
}

const char *
lb_tag_row_get_vr (LbTagRow *self)
{
  g_return_val_if_fail (LB_IS_TAG_ROW (self), NULL);
  return self->vr;
}

const char *
lb_tag_row_get_value (LbTagRow *self)
{
  g_return_val_if_fail (LB_IS_TAG_ROW (self), NULL);
  return self->value;
}

static void
lb_tag_row_finalize (GObject *object)
{
  LbTagRow *self = LB_TAG_ROW (object);

  g_free (self->tag_text);
  g_free (self->keyword);
  g_free (self->vr);
  g_free (self->value);
  g_free (self->query);
  g_clear_pointer (&self->dataset, lb_dicom_dataset_unref);
  G_OBJECT_CLASS (lb_tag_row_parent_class)->finalize (object);
}

static void
lb_tag_row_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  LbTagRow *self = LB_TAG_ROW (object);

  switch (prop_id)
    {
    case PROP_TAG_TEXT: g_value_set_string (value, self->tag_text); break;
    case PROP_KEYWORD: g_value_set_string (value, self->keyword); break;
    case PROP_VR: g_value_set_string (value, self->vr); break;
    case PROP_VALUE: g_value_set_string (value, self->value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lb_tag_row_class_init (LbTagRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = lb_tag_row_finalize;
  object_class->get_property = lb_tag_row_get_property;
  /* read-only: a row is made once from its data set; the .ui binds the columns to these */
  properties[PROP_TAG_TEXT] = g_param_spec_string ("tag-text", NULL, NULL, NULL,
                                                   G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_KEYWORD] = g_param_spec_string ("keyword", NULL, NULL, NULL,
                                                  G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_VR] = g_param_spec_string ("vr", NULL, NULL, NULL,
                                             G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_VALUE] = g_param_spec_string ("value", NULL, NULL, NULL,
                                                G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
lb_tag_row_init (LbTagRow *self)
{
}
