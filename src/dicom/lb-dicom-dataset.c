/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicom-dataset"

#include "lb-dicom-dataset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "lb-error.h"
#include "lb-json-depth.h"

typedef struct {
  guint32 tag;
  char vr[3];
  GPtrArray *values;   /* owned char* (NULL entries for JSON null), string and numeric VRs */
  GPtrArray *items;    /* owned LbDicomDataset*, SQ only */
  GBytes *bytes;       /* binary VRs with inline data */
  char *bulk_uri;      /* binary VRs served separately */
} Element;

struct _LbDicomDataset {
  gatomicrefcount ref;
  GHashTable *elements; /* GUINT_TO_POINTER (tag) → owned Element* */
};

G_DEFINE_BOXED_TYPE (LbDicomDataset, lb_dicom_dataset, lb_dicom_dataset_ref, lb_dicom_dataset_unref)

/* The VRs of PS3.5 §6.2 (2023), including the 64-bit ones. */
static const char *const known_vrs[] = {
  "AE", "AS", "AT", "CS", "DA", "DS", "DT", "FD", "FL", "IS", "LO", "LT", "OB", "OD", "OF",
  "OL", "OV", "OW", "PN", "SH", "SL", "SQ", "SS", "ST", "SV", "TM", "UC", "UI", "UL", "UN",
  "UR", "US", "UT", "UV",
};

static gboolean
vr_is_known (const char *vr)
{
  for (guint i = 0; i < G_N_ELEMENTS (known_vrs); i++)
    if (strcmp (vr, known_vrs[i]) == 0)
      return TRUE;
  return FALSE;
}

gboolean
lb_dicom_vr_is_string (const char *vr)
{
  static const char *const string_vrs[] = {
    "AE", "AS", "CS", "DA", "DS", "DT", "IS", "LO", "LT", "PN", "SH", "ST", "TM", "UC", "UI",
    "UR", "UT",
  };

  for (guint i = 0; i < G_N_ELEMENTS (string_vrs); i++)
    if (strcmp (vr, string_vrs[i]) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
vr_is_number (const char *vr)
{
  static const char *const number_vrs[] = {
    "DS", "IS", "FD", "FL", "SL", "SS", "SV", "UL", "US", "UV",
  };

  for (guint i = 0; i < G_N_ELEMENTS (number_vrs); i++)
    if (strcmp (vr, number_vrs[i]) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
vr_is_binary (const char *vr)
{
  return vr[0] == 'O' || strcmp (vr, "UN") == 0;
}

/* Text values lose their padding (PS3.5 §6.2: trailing spaces are insignificant, leading ones
 * too except in the free-text VRs LT, ST, UT). Only spaces: a line break that ends a free-text
 * value is part of it. */
static char *
normalize_value (const char *vr, char *value)
{
  gsize len;

  if (value == NULL)
    return NULL;
  len = strlen (value);
  while (len > 0 && value[len - 1] == ' ')
    value[--len] = '\0';
  if (strcmp (vr, "LT") != 0 && strcmp (vr, "ST") != 0 && strcmp (vr, "UT") != 0)
    {
      gsize lead = strspn (value, " ");

      memmove (value, value + lead, len - lead + 1);
    }
  return value;
}

static void
element_free (gpointer data)
{
  Element *el = data;

  g_clear_pointer (&el->values, g_ptr_array_unref);
  g_clear_pointer (&el->items, g_ptr_array_unref);
  g_clear_pointer (&el->bytes, g_bytes_unref);
  g_free (el->bulk_uri);
  g_free (el);
}

static Element *
element_new (guint32 tag, const char *vr)
{
  Element *el = g_new0 (Element, 1);

  el->tag = tag;
  g_strlcpy (el->vr, vr, sizeof el->vr);
  return el;
}

LbDicomDataset *
lb_dicom_dataset_new (void)
{
  LbDicomDataset *ds = g_new0 (LbDicomDataset, 1);

  g_atomic_ref_count_init (&ds->ref);
  ds->elements = g_hash_table_new_full (NULL, NULL, NULL, element_free);
  return ds;
}

LbDicomDataset *
lb_dicom_dataset_ref (LbDicomDataset *ds)
{
  g_return_val_if_fail (ds != NULL, NULL);
  g_atomic_ref_count_inc (&ds->ref);
  return ds;
}

void
lb_dicom_dataset_unref (LbDicomDataset *ds)
{
  g_return_if_fail (ds != NULL);
  if (!g_atomic_ref_count_dec (&ds->ref))
    return;
  g_hash_table_unref (ds->elements);
  g_free (ds);
}

static void
put_element (LbDicomDataset *ds, Element *el)
{
  g_hash_table_replace (ds->elements, GUINT_TO_POINTER (el->tag), el);
}

static Element *
lookup (const LbDicomDataset *ds, guint32 tag)
{
  return g_hash_table_lookup (ds->elements, GUINT_TO_POINTER (tag));
}

/* --- JSON → data set ----------------------------------------------------------------------- */

/* Shortest "%.*g" that parses back to exactly @value: the JSON model gives DS/FD as doubles, and
 * a value copied into a file must not drift. */
static char *
format_double_exact (double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  /* whole numbers as integers: 400, not "4e+02" (exact, but not what anyone writes) */
  if (value == floor (value) && fabs (value) < 1e15)
    return g_strdup_printf ("%.0f", value == 0 ? 0.0 : value);
  /* g_ascii_formatd takes a format with exactly one conversion, so build the precision in. */
  for (int prec = 1; prec <= 17; prec++)
    {
      char fmt[8];

      g_snprintf (fmt, sizeof fmt, "%%.%dg", prec);
      g_ascii_formatd (buf, sizeof buf, fmt, value);
      if (g_ascii_strtod (buf, NULL) == value)
        break;
    }
  return g_strdup (buf);
}

char *
lb_dicom_format_ds (double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  /* DS is at most 16 bytes (PS3.5 table 6.2-1): take the most precise form that fits. */
  for (int prec = 17; prec >= 1; prec--)
    {
      char fmt[8];

      g_snprintf (fmt, sizeof fmt, "%%.%dg", prec);
      g_ascii_formatd (buf, sizeof buf, fmt, value);
      if (strlen (buf) <= 16)
        {
          /* Prefer the shortest exact form when one exists (0.5 rather than 0.50000000000000000). */
          g_autofree char *exact = format_double_exact (value);

          if (strlen (exact) <= 16)
            return g_steal_pointer (&exact);
          return g_strdup (buf);
        }
    }
  return g_strdup ("0");
}

static gboolean
parse_tag_key (const char *key, guint32 *out)
{
  guint32 v = 0;

  if (strlen (key) != 8)
    return FALSE;
  for (int i = 0; i < 8; i++)
    {
      int d = g_ascii_xdigit_value (key[i]);

      if (d < 0)
        return FALSE;
      v = (v << 4) | (guint32) d;
    }
  *out = v;
  return TRUE;
}

static char *
person_name_from_json (JsonNode *node, const char *key, GError **error)
{
  static const char *const groups[] = { "Alphabetic", "Ideographic", "Phonetic" };
  const char *parts[3] = { NULL, NULL, NULL };
  JsonObject *obj;
  int last = -1;
  GString *s;

  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (node)); /* lenient: some servers send plain strings */
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE,
                   "element %s: a PN value must be an object with Alphabetic/Ideographic/Phonetic",
                   key);
      return NULL;
    }
  obj = json_node_get_object (node);
  for (int i = 0; i < 3; i++)
    {
      JsonNode *m = json_object_get_member (obj, groups[i]);

      if (m == NULL || JSON_NODE_HOLDS_NULL (m))
        continue;
      if (!JSON_NODE_HOLDS_VALUE (m) || json_node_get_value_type (m) != G_TYPE_STRING)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_PARSE,
                       "element %s: PN component %s is not a string", key, groups[i]);
          return NULL;
        }
      parts[i] = json_node_get_string (m);
      last = i;
    }
  s = g_string_new (parts[0] ? parts[0] : "");
  for (int i = 1; i <= last; i++)
    {
      g_string_append_c (s, '=');
      g_string_append (s, parts[i] ? parts[i] : "");
    }
  return g_string_free (s, FALSE);
}

static char *
scalar_from_json (JsonNode *node, const char *vr, const char *key, GError **error)
{
  GType t;

  if (!JSON_NODE_HOLDS_VALUE (node))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE,
                   "element %s (%s): a value must be a string or a number", key, vr);
      return NULL;
    }
  t = json_node_get_value_type (node);
  if (t == G_TYPE_STRING)
    {
      const char *str = json_node_get_string (node);

      /* Numbers must be numbers; IS and DS may come as strings from some servers (the
       * standard allows it for values JSON cannot represent), so check they parse. */
      if (vr_is_number (vr))
        {
          char *end = NULL;
          g_autofree char *trimmed = g_strstrip (g_strdup (str));

          g_ascii_strtod (trimmed, &end);
          if (*trimmed == '\0' || end == NULL || *end != '\0')
            {
              g_set_error (error, LB_ERROR, LB_ERROR_PARSE,
                           "element %s (%s): \"%s\" is not a number", key, vr, str);
              return NULL;
            }
          return g_steal_pointer (&trimmed);
        }
      return g_strdup (str);
    }
  if (t == G_TYPE_INT64 || t == G_TYPE_BOOLEAN)
    {
      if (!vr_is_number (vr))
        {
          g_set_error (error, LB_ERROR, LB_ERROR_PARSE,
                       "element %s (%s): a number where text was expected", key, vr);
          return NULL;
        }
      return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
    }
  if (t == G_TYPE_DOUBLE)
    {
      if (!vr_is_number (vr))
        {
          g_set_error (error, LB_ERROR, LB_ERROR_PARSE,
                       "element %s (%s): a number where text was expected", key, vr);
          return NULL;
        }
      return format_double_exact (json_node_get_double (node));
    }
  g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "element %s (%s): unexpected value type", key, vr);
  return NULL;
}

static gboolean
element_from_json (LbDicomDataset *ds, const char *key, JsonNode *node, GError **error)
{
  guint32 tag;
  JsonObject *obj;
  JsonNode *vr_node, *value, *inline_bin, *bulk;
  const char *vr;
  Element *el;

  if (!parse_tag_key (key, &tag))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE,
                   "\"%s\" is not a DICOM tag (expected 8 hexadecimal digits)", key);
      return FALSE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "element %s is not a JSON object", key);
      return FALSE;
    }
  obj = json_node_get_object (node);
  vr_node = json_object_get_member (obj, "vr");
  if (vr_node == NULL || !JSON_NODE_HOLDS_VALUE (vr_node)
      || json_node_get_value_type (vr_node) != G_TYPE_STRING)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "element %s has no \"vr\" string", key);
      return FALSE;
    }
  vr = json_node_get_string (vr_node);
  if (!vr_is_known (vr))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "element %s has an unknown VR \"%s\"", key, vr);
      return FALSE;
    }

  el = element_new (tag, vr);
  value = json_object_get_member (obj, "Value");
  inline_bin = json_object_get_member (obj, "InlineBinary");
  bulk = json_object_get_member (obj, "BulkDataURI");

  if ((value != NULL) + (inline_bin != NULL) + (bulk != NULL) > 1)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE,
                   "element %s has more than one of Value, InlineBinary, BulkDataURI", key);
      goto fail;
    }

  if (value != NULL)
    {
      JsonArray *arr;
      guint n;

      if (!JSON_NODE_HOLDS_ARRAY (value))
        {
          g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "element %s: \"Value\" is not an array", key);
          goto fail;
        }
      arr = json_node_get_array (value);
      n = json_array_get_length (arr);
      if (strcmp (vr, "SQ") == 0)
        {
          el->items = g_ptr_array_new_with_free_func ((GDestroyNotify) lb_dicom_dataset_unref);
          for (guint i = 0; i < n; i++)
            {
              LbDicomDataset *item = lb_dicom_dataset_new_from_json_object (
                json_array_get_element (arr, i), error);

              if (item == NULL)
                {
                  g_prefix_error (error, "element %s item %u: ", key, i);
                  goto fail;
                }
              g_ptr_array_add (el->items, item);
            }
        }
      else if (vr_is_binary (vr))
        {
          g_set_error (error, LB_ERROR, LB_ERROR_PARSE,
                       "element %s (%s): binary data must be InlineBinary or BulkDataURI", key, vr);
          goto fail;
        }
      else
        {
          el->values = g_ptr_array_new_with_free_func (g_free);
          for (guint i = 0; i < n; i++)
            {
              JsonNode *v = json_array_get_element (arr, i);
              char *s;

              if (JSON_NODE_HOLDS_NULL (v))
                {
                  g_ptr_array_add (el->values, NULL);
                  continue;
                }
              if (strcmp (vr, "PN") == 0)
                s = person_name_from_json (v, key, error);
              else
                s = scalar_from_json (v, vr, key, error);
              if (s == NULL)
                goto fail;
              normalize_value (vr, s);
              if (strcmp (vr, "AT") == 0)
                {
                  guint32 dummy;

                  if (!parse_tag_key (s, &dummy))
                    {
                      g_set_error (error, LB_ERROR, LB_ERROR_PARSE,
                                   "element %s (AT): \"%s\" is not a tag", key, s);
                      g_free (s);
                      goto fail;
                    }
                }
              g_ptr_array_add (el->values, s);
            }
        }
    }
  else if (inline_bin != NULL)
    {
      const char *b64;
      gsize len = 0;
      guchar *raw;

      if (!JSON_NODE_HOLDS_VALUE (inline_bin)
          || json_node_get_value_type (inline_bin) != G_TYPE_STRING)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_PARSE,
                       "element %s: \"InlineBinary\" is not a string", key);
          goto fail;
        }
      b64 = json_node_get_string (inline_bin);
      /* g_base64_decode does not validate: check the alphabet and length first. */
      for (const char *p = b64; *p; p++)
        if (!g_ascii_isalnum (*p) && *p != '+' && *p != '/' && *p != '=')
          {
            g_set_error (error, LB_ERROR, LB_ERROR_PARSE,
                         "element %s: \"InlineBinary\" is not base64", key);
            goto fail;
          }
      if (strlen (b64) % 4 != 0)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_PARSE,
                       "element %s: \"InlineBinary\" has a length that is not a multiple of 4", key);
          goto fail;
        }
      raw = g_base64_decode (b64, &len);
      el->bytes = g_bytes_new_take (raw, len);
    }
  else if (bulk != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (bulk) || json_node_get_value_type (bulk) != G_TYPE_STRING)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_PARSE,
                       "element %s: \"BulkDataURI\" is not a string", key);
          goto fail;
        }
      el->bulk_uri = g_strdup (json_node_get_string (bulk));
    }

  put_element (ds, el);
  return TRUE;

fail:
  element_free (el);
  return FALSE;
}

LbDicomDataset *
lb_dicom_dataset_new_from_json_object (JsonNode *node, GError **error)
{
  g_autoptr(LbDicomDataset) ds = NULL;
  JsonObjectIter iter;
  const char *key;
  JsonNode *member;

  g_return_val_if_fail (node != NULL, NULL);
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "a DICOM data set must be a JSON object");
      return NULL;
    }
  ds = lb_dicom_dataset_new ();
  json_object_iter_init (&iter, json_node_get_object (node));
  while (json_object_iter_next (&iter, &key, &member))
    if (!element_from_json (ds, key, member, error))
      return NULL;
  return g_steal_pointer (&ds);
}

GPtrArray *
lb_dicom_json_parse_array (const char *data, gsize len, GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GPtrArray) out = NULL;
  g_autoptr(GError) local = NULL;
  JsonNode *root;
  JsonArray *arr;

  g_return_val_if_fail (data != NULL || len == 0, NULL);
  if (len == 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "empty response where DICOM JSON was expected");
      return NULL;
    }
  if (!lb_json_check_depth (data, len, LB_JSON_MAX_DEPTH, "DICOM JSON", error))
    return NULL;
  if (!json_parser_load_from_data (parser, data, (gssize) len, &local))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "invalid DICOM JSON: %s", local->message);
      return NULL;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_ARRAY (root))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE,
                   "invalid DICOM JSON: expected an array of data sets");
      return NULL;
    }
  arr = json_node_get_array (root);
  out = g_ptr_array_new_with_free_func ((GDestroyNotify) lb_dicom_dataset_unref);
  for (guint i = 0; i < json_array_get_length (arr); i++)
    {
      LbDicomDataset *ds = lb_dicom_dataset_new_from_json_object (json_array_get_element (arr, i),
                                                                  error);

      if (ds == NULL)
        {
          g_prefix_error (error, "invalid DICOM JSON, data set %u: ", i);
          return NULL;
        }
      g_ptr_array_add (out, ds);
    }
  return g_steal_pointer (&out);
}

/* --- access -------------------------------------------------------------------------------- */

guint
lb_dicom_dataset_get_n_elements (const LbDicomDataset *ds)
{
  g_return_val_if_fail (ds != NULL, 0);
  return g_hash_table_size (ds->elements);
}

static int
compare_tags (gconstpointer a, gconstpointer b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;

  return x < y ? -1 : x > y;
}

guint32 *
lb_dicom_dataset_get_tags (const LbDicomDataset *ds, guint *n_tags)
{
  GHashTableIter iter;
  gpointer key;
  guint32 *tags;
  guint n = 0;

  g_return_val_if_fail (ds != NULL, NULL);
  tags = g_new (guint32, g_hash_table_size (ds->elements) + 1);
  g_hash_table_iter_init (&iter, ds->elements);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    tags[n++] = GPOINTER_TO_UINT (key);
  qsort (tags, n, sizeof *tags, compare_tags);
  if (n_tags)
    *n_tags = n;
  return tags;
}

gboolean
lb_dicom_dataset_has (const LbDicomDataset *ds, guint32 tag)
{
  g_return_val_if_fail (ds != NULL, FALSE);
  return lookup (ds, tag) != NULL;
}

const char *
lb_dicom_dataset_get_vr (const LbDicomDataset *ds, guint32 tag)
{
  Element *el;

  g_return_val_if_fail (ds != NULL, NULL);
  el = lookup (ds, tag);
  return el ? el->vr : NULL;
}

guint
lb_dicom_dataset_get_n_values (const LbDicomDataset *ds, guint32 tag)
{
  Element *el;

  g_return_val_if_fail (ds != NULL, 0);
  el = lookup (ds, tag);
  if (el == NULL)
    return 0;
  if (el->values)
    return el->values->len;
  if (el->items)
    return el->items->len;
  return (el->bytes || el->bulk_uri) ? 1 : 0;
}

const char *
lb_dicom_dataset_get_string (const LbDicomDataset *ds, guint32 tag, guint index)
{
  Element *el;
  const char *s;

  g_return_val_if_fail (ds != NULL, NULL);
  el = lookup (ds, tag);
  if (el == NULL || el->values == NULL || index >= el->values->len)
    return NULL;
  s = el->values->pdata[index];
  if (s == NULL || *s == '\0')
    return NULL;
  return s;
}

char *
lb_dicom_dataset_dup_joined (const LbDicomDataset *ds, guint32 tag)
{
  Element *el;
  GString *s;

  g_return_val_if_fail (ds != NULL, NULL);
  el = lookup (ds, tag);
  if (el == NULL)
    return NULL;
  s = g_string_new (NULL);
  for (guint i = 0; el->values && i < el->values->len; i++)
    {
      const char *v = el->values->pdata[i];

      if (i > 0)
        g_string_append_c (s, '\\');
      if (v)
        g_string_append (s, v);
    }
  return g_string_free (s, FALSE);
}

gboolean
lb_dicom_dataset_get_double (const LbDicomDataset *ds, guint32 tag, guint index, double *out)
{
  const char *s = lb_dicom_dataset_get_string (ds, tag, index);
  g_autofree char *trimmed = NULL;
  char *end = NULL;
  double v;

  if (s == NULL)
    return FALSE;
  trimmed = g_strstrip (g_strdup (s));
  v = g_ascii_strtod (trimmed, &end);
  if (*trimmed == '\0' || end == NULL || *end != '\0')
    return FALSE;
  if (out)
    *out = v;
  return TRUE;
}

gboolean
lb_dicom_dataset_get_int (const LbDicomDataset *ds, guint32 tag, guint index, gint64 *out)
{
  const char *s = lb_dicom_dataset_get_string (ds, tag, index);
  g_autofree char *trimmed = NULL;
  char *end = NULL;
  gint64 v;

  if (s == NULL)
    return FALSE;
  trimmed = g_strstrip (g_strdup (s));
  errno = 0;
  v = g_ascii_strtoll (trimmed, &end, 10);
  if (*trimmed == '\0' || end == NULL || *end != '\0' || errno != 0)
    return FALSE;
  if (out)
    *out = v;
  return TRUE;
}

GBytes *
lb_dicom_dataset_get_bytes (const LbDicomDataset *ds, guint32 tag)
{
  Element *el;

  g_return_val_if_fail (ds != NULL, NULL);
  el = lookup (ds, tag);
  return el ? el->bytes : NULL;
}

const char *
lb_dicom_dataset_get_bulk_data_uri (const LbDicomDataset *ds, guint32 tag)
{
  Element *el;

  g_return_val_if_fail (ds != NULL, NULL);
  el = lookup (ds, tag);
  return el ? el->bulk_uri : NULL;
}

guint
lb_dicom_dataset_get_n_items (const LbDicomDataset *ds, guint32 tag)
{
  Element *el;

  g_return_val_if_fail (ds != NULL, 0);
  el = lookup (ds, tag);
  return (el && el->items) ? el->items->len : 0;
}

LbDicomDataset *
lb_dicom_dataset_get_item (const LbDicomDataset *ds, guint32 tag, guint index)
{
  Element *el;

  g_return_val_if_fail (ds != NULL, NULL);
  el = lookup (ds, tag);
  if (el == NULL || el->items == NULL || index >= el->items->len)
    return NULL;
  return el->items->pdata[index];
}

/* --- building ------------------------------------------------------------------------------ */

void
lb_dicom_dataset_set_string (LbDicomDataset *ds, guint32 tag, const char *vr, const char *value)
{
  Element *el;

  g_return_if_fail (ds != NULL);
  g_return_if_fail (vr != NULL && vr_is_known (vr));
  el = element_new (tag, vr);
  el->values = g_ptr_array_new_with_free_func (g_free);
  if (value != NULL && *value != '\0')
    {
      g_auto(GStrv) parts = g_strsplit (value, "\\", -1);

      for (guint i = 0; parts[i]; i++)
        g_ptr_array_add (el->values, normalize_value (vr, g_strdup (parts[i])));
    }
  put_element (ds, el);
}

void
lb_dicom_dataset_set_uint (LbDicomDataset *ds, guint32 tag, const char *vr, guint32 value)
{
  g_autofree char *s = g_strdup_printf ("%u", value);

  lb_dicom_dataset_set_string (ds, tag, vr, s);
}

void
lb_dicom_dataset_set_double (LbDicomDataset *ds, guint32 tag, double value)
{
  g_autofree char *s = lb_dicom_format_ds (value);

  lb_dicom_dataset_set_string (ds, tag, "DS", s);
}

void
lb_dicom_dataset_set_bytes (LbDicomDataset *ds, guint32 tag, const char *vr, GBytes *bytes)
{
  Element *el;

  g_return_if_fail (ds != NULL);
  g_return_if_fail (vr != NULL && vr_is_binary (vr));
  g_return_if_fail (bytes != NULL);
  el = element_new (tag, vr);
  el->bytes = g_bytes_ref (bytes);
  put_element (ds, el);
}

void
lb_dicom_dataset_take_values (LbDicomDataset *ds, guint32 tag, const char *vr, GPtrArray *values)
{
  Element *el;

  g_return_if_fail (ds != NULL);
  g_return_if_fail (vr != NULL && vr_is_known (vr));
  g_return_if_fail (values != NULL);
  el = element_new (tag, vr);
  g_ptr_array_set_free_func (values, g_free);
  for (guint i = 0; i < values->len; i++)
    normalize_value (vr, values->pdata[i]);
  el->values = values;
  put_element (ds, el);
}

void
lb_dicom_dataset_take_items (LbDicomDataset *ds, guint32 tag, GPtrArray *items)
{
  Element *el;

  g_return_if_fail (ds != NULL);
  g_return_if_fail (items != NULL);
  el = element_new (tag, "SQ");
  g_ptr_array_set_free_func (items, (GDestroyNotify) lb_dicom_dataset_unref);
  el->items = items;
  put_element (ds, el);
}

void
lb_dicom_dataset_add_item (LbDicomDataset *ds, guint32 tag, LbDicomDataset *item)
{
  Element *el;

  g_return_if_fail (ds != NULL);
  g_return_if_fail (item != NULL);
  el = lookup (ds, tag);
  if (el == NULL || el->items == NULL)
    {
      el = element_new (tag, "SQ");
      el->items = g_ptr_array_new_with_free_func ((GDestroyNotify) lb_dicom_dataset_unref);
      put_element (ds, el);
    }
  g_ptr_array_add (el->items, lb_dicom_dataset_ref (item));
}

gboolean
lb_dicom_dataset_copy_element (LbDicomDataset *ds, const LbDicomDataset *src, guint32 tag)
{
  Element *from, *el;

  g_return_val_if_fail (ds != NULL, FALSE);
  g_return_val_if_fail (src != NULL, FALSE);
  from = lookup (src, tag);
  if (from == NULL)
    return FALSE;
  el = element_new (tag, from->vr);
  if (from->values)
    {
      el->values = g_ptr_array_new_with_free_func (g_free);
      for (guint i = 0; i < from->values->len; i++)
        g_ptr_array_add (el->values, g_strdup (from->values->pdata[i]));
    }
  if (from->items)
    {
      el->items = g_ptr_array_new_with_free_func ((GDestroyNotify) lb_dicom_dataset_unref);
      for (guint i = 0; i < from->items->len; i++)
        g_ptr_array_add (el->items, lb_dicom_dataset_ref (from->items->pdata[i]));
    }
  if (from->bytes)
    el->bytes = g_bytes_ref (from->bytes);
  el->bulk_uri = g_strdup (from->bulk_uri);
  put_element (ds, el);
  return TRUE;
}

void
lb_dicom_dataset_remove (LbDicomDataset *ds, guint32 tag)
{
  g_return_if_fail (ds != NULL);
  g_hash_table_remove (ds->elements, GUINT_TO_POINTER (tag));
}
