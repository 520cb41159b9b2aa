/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-view"

#include "lb-measurement-sidecar.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "lb-error.h"
#include "lb-json-depth.h"
#include "lb-measurement-geometry.h"

/* root → measurements → one measurement → points → one point, and values → one value */
#define SIDECAR_MAX_DEPTH 8

void
lb_measurement_image_ref_clear (LbMeasurementImageRef *ref)
{
  g_return_if_fail (ref != NULL);
  g_clear_pointer (&ref->name, g_free);
  g_clear_pointer (&ref->uri, g_free);
  g_clear_pointer (&ref->etag, g_free);
  g_clear_pointer (&ref->sop_instance_uid, g_free);
  ref->frame = -1;
  ref->width = ref->height = 0;
}

void
lb_measurement_image_ref_init_from_image (LbMeasurementImageRef *ref, LbImage *image)
{
  const LbImageMeta *meta;
  const char *uri, *slash;

  g_return_if_fail (ref != NULL && LB_IS_IMAGE (image));
  *ref = (LbMeasurementImageRef) { .frame = -1 };
  meta = lb_image_get_meta (image);
  ref->width = lb_image_get_width (image);
  ref->height = lb_image_get_height (image);
  uri = lb_image_meta_get_source_uri (meta);
  if (uri != NULL)
    {
      ref->uri = g_strdup (uri);
      slash = strrchr (uri, '/');
      if (slash == NULL || slash[1] != '\0')
        ref->name = g_uri_unescape_string (slash ? slash + 1 : uri, NULL);
    }
  ref->etag = g_strdup (lb_image_meta_get_source_etag (meta));
  ref->sop_instance_uid = g_strdup (lb_image_meta_get_text (meta, "dicom:SOPInstanceUID"));
}

/* ---- writing ----------------------------------------------------------------------------- */

static void
add_value (JsonBuilder *b, const char *name, double value, const char *unit)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "value");
  json_builder_add_double_value (b, value);
  json_builder_set_member_name (b, "unit");
  json_builder_add_string_value (b, unit ? unit : "");
  json_builder_end_object (b);
}

/* A count of pixels: a whole number in the file. */
static void
add_count (JsonBuilder *b, const char *name, guint64 count)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "value");
  json_builder_add_int_value (b, (gint64) count);
  json_builder_set_member_name (b, "unit");
  json_builder_add_string_value (b, "pixels");
  json_builder_end_object (b);
}

static void
add_string_member (JsonBuilder *b, const char *name, const char *value)
{
  if (value == NULL)
    return;
  json_builder_set_member_name (b, name);
  json_builder_add_string_value (b, value);
}

static void
add_values (JsonBuilder *b, const LbMeasurementValues *v)
{
  const char *length_unit = lb_measurement_spacing_length_unit (&v->spacing);

  json_builder_set_member_name (b, "values");
  json_builder_begin_object (b);
  switch (v->tool)
    {
    case LB_MEASUREMENT_LENGTH:
    case LB_MEASUREMENT_POLYLINE:
    case LB_MEASUREMENT_ARROW:
      add_value (b, "length", v->length, length_unit);
      break;
    case LB_MEASUREMENT_ANGLE:
      add_value (b, "angle", v->angle, "deg");
      break;
    case LB_MEASUREMENT_PROBE:
      if (v->has_value)
        add_value (b, "value", v->value, v->value_unit);
      break;
    case LB_MEASUREMENT_RECTANGLE:
    case LB_MEASUREMENT_ELLIPSE:
    case LB_MEASUREMENT_FREEHAND:
      add_value (b, "area", v->area, lb_measurement_spacing_area_unit (&v->spacing));
      if (v->has_stats)
        {
          add_count (b, "pixels", v->stats.n_pixels);
          add_count (b, "padding", v->stats.n_padding);
          if (v->stats.n_pixels > 0)
            {
              add_value (b, "mean", v->stats.mean, v->value_unit);
              add_value (b, "sd", v->stats.sd, v->value_unit);
              add_value (b, "min", v->stats.min, v->value_unit);
              add_value (b, "max", v->stats.max, v->value_unit);
            }
        }
      break;
    default:
      break;
    }
  json_builder_end_object (b);
}

static gboolean
add_measurement (JsonBuilder *b, LbMeasurement *m, guint index,
                 const LbMeasurementSpacing *spacing, LbImage *image, GError **error)
{
  LbMeasurementValues v;
  const LbMeasurementPoint *p = lb_measurement_get_points (m);
  g_autoptr(GError) local = NULL;

  if (!lb_measurement_compute (m, spacing, image, &v, &local))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT, "measurement %u: %s",
                   index + 1, local->message);
      return FALSE;
    }
  json_builder_begin_object (b);
  add_string_member (b, "tool", lb_measurement_tool_to_string (lb_measurement_get_tool (m)));
  json_builder_set_member_name (b, "points");
  json_builder_begin_array (b);
  for (guint i = 0; i < lb_measurement_get_n_points (m); i++)
    {
      json_builder_begin_array (b);
      json_builder_add_double_value (b, p[i].x);
      json_builder_add_double_value (b, p[i].y);
      json_builder_end_array (b);
    }
  json_builder_end_array (b);
  add_string_member (b, "text", lb_measurement_get_text (m));
  add_values (b, &v);
  json_builder_end_object (b);
  return TRUE;
}

GBytes *
lb_measurement_sidecar_write (const LbMeasurementImageRef *ref,
                              const LbMeasurementSpacing  *spacing,
                              LbImage                     *image,
                              GPtrArray                   *measurements,
                              GError                     **error)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  gsize len;
  char *text;

  g_return_val_if_fail (ref != NULL && spacing != NULL && measurements != NULL, NULL);
  json_builder_begin_object (b);
  add_string_member (b, "format", LB_MEASUREMENT_SIDECAR_FORMAT);
  json_builder_set_member_name (b, "version");
  json_builder_add_int_value (b, LB_MEASUREMENT_SIDECAR_VERSION);

  json_builder_set_member_name (b, "image");
  json_builder_begin_object (b);
  add_string_member (b, "name", ref->name);
  add_string_member (b, "uri", ref->uri);
  add_string_member (b, "etag", ref->etag);
  add_string_member (b, "sop_instance_uid", ref->sop_instance_uid);
  if (ref->frame >= 0)
    {
      json_builder_set_member_name (b, "frame");
      json_builder_add_int_value (b, ref->frame);
    }
  if (ref->width > 0 && ref->height > 0)
    {
      json_builder_set_member_name (b, "width");
      json_builder_add_int_value (b, ref->width);
      json_builder_set_member_name (b, "height");
      json_builder_add_int_value (b, ref->height);
    }
  json_builder_end_object (b);

  json_builder_set_member_name (b, "spacing");
  json_builder_begin_object (b);
  add_string_member (b, "kind", lb_measurement_spacing_kind_to_string (spacing->kind));
  if (spacing->kind != LB_MEASUREMENT_SPACING_UNKNOWN)
    {
      json_builder_set_member_name (b, "column_mm");
      json_builder_add_double_value (b, spacing->column_mm);
      json_builder_set_member_name (b, "row_mm");
      json_builder_add_double_value (b, spacing->row_mm);
      if (spacing->kind == LB_MEASUREMENT_SPACING_ESTIMATED)
        {
          json_builder_set_member_name (b, "magnification");
          json_builder_add_double_value (b, spacing->magnification);
        }
    }
  json_builder_end_object (b);

  json_builder_set_member_name (b, "measurements");
  json_builder_begin_array (b);
  for (guint i = 0; i < measurements->len; i++)
    if (!add_measurement (b, g_ptr_array_index (measurements, i), i, spacing, image, error))
      return NULL;
  json_builder_end_array (b);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  json_generator_set_indent (gen, 2);
  text = json_generator_to_data (gen, &len);
  return g_bytes_new_take (text, len);
}

/* ---- reading ----------------------------------------------------------------------------- */

typedef struct {
  const char *name;
  GError    **error;
} Reader;

G_GNUC_PRINTF (3, 4) static gboolean
fail (Reader *r, gint code, const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (r->error, LB_ERROR, code, "%s: %s", r->name, message);
  return FALSE;
}

static gboolean
node_is_number (JsonNode *node)
{
  GType t;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  t = json_node_get_value_type (node);
  return t == G_TYPE_INT64 || t == G_TYPE_DOUBLE;
}

/* An optional string member: absent is fine, anything but a string is not. */
static gboolean
get_string (Reader *r, JsonObject *o, const char *where, const char *member, char **out)
{
  JsonNode *node = json_object_get_member (o, member);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return fail (r, LB_ERROR_PARSE, "%s: “%s” is not a string", where, member);
  if (out)
    *out = g_strdup (json_node_get_string (node));
  return TRUE;
}

/* An optional whole number member within [min, max]. */
static gboolean
get_int (Reader *r, JsonObject *o, const char *where, const char *member, gint64 min,
         gint64 max, gint64 *out)
{
  JsonNode *node = json_object_get_member (o, member);

  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64
      || json_node_get_int (node) < min || json_node_get_int (node) > max)
    return fail (r, LB_ERROR_PARSE, "%s: “%s” is not a whole number from %" G_GINT64_FORMAT
                 " to %" G_GINT64_FORMAT, where, member, min, max);
  *out = json_node_get_int (node);
  return TRUE;
}

static gboolean
get_object (Reader *r, JsonObject *o, const char *where, const char *member, gboolean required,
            JsonObject **out)
{
  JsonNode *node = json_object_get_member (o, member);

  *out = NULL;
  if (node == NULL && !required)
    return TRUE;
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return fail (r, LB_ERROR_PARSE, "%s: “%s” is %s, not an object", where, member,
                 node ? json_node_type_name (node) : "missing");
  *out = json_node_get_object (node);
  return TRUE;
}

static gboolean
read_image_ref (Reader *r, JsonObject *root, LbMeasurementImageRef *ref)
{
  JsonObject *o;
  gint64 frame = -1, width = 0, height = 0;

  if (!get_object (r, root, "document", "image", TRUE, &o))
    return FALSE;
  if (!get_string (r, o, "image", "name", &ref->name)
      || !get_string (r, o, "image", "uri", &ref->uri)
      || !get_string (r, o, "image", "etag", &ref->etag)
      || !get_string (r, o, "image", "sop_instance_uid", &ref->sop_instance_uid)
      || !get_int (r, o, "image", "frame", 0, G_MAXINT, &frame)
      || !get_int (r, o, "image", "width", 1, G_MAXUINT32, &width)
      || !get_int (r, o, "image", "height", 1, G_MAXUINT32, &height))
    return FALSE;
  ref->frame = (gint) frame;
  ref->width = (guint) width;
  ref->height = (guint) height;
  return TRUE;
}

static gboolean
read_spacing (Reader *r, JsonObject *root, LbMeasurementSpacing *spacing)
{
  JsonObject *o;
  g_autofree char *kind = NULL;
  const char *names[] = { "column_mm", "row_mm", "magnification" };
  double v[3] = { 1, 1, 1 };

  lb_measurement_spacing_init_unknown (spacing);
  if (!get_object (r, root, "document", "spacing", FALSE, &o))
    return FALSE;
  if (o == NULL)
    return TRUE;
  if (!get_string (r, o, "spacing", "kind", &kind))
    return FALSE;
  if (kind != NULL && !lb_measurement_spacing_kind_from_string (kind, &spacing->kind))
    return fail (r, LB_ERROR_PARSE, "spacing: unknown kind “%s”", kind);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      JsonNode *node = json_object_get_member (o, names[i]);

      if (node == NULL)
        continue;
      if (!node_is_number (node) || !isfinite (json_node_get_double (node))
          || json_node_get_double (node) <= 0)
        return fail (r, LB_ERROR_PARSE, "spacing: “%s” is not a positive number", names[i]);
      v[i] = json_node_get_double (node);
    }
  if (spacing->kind != LB_MEASUREMENT_SPACING_UNKNOWN)
    spacing->column_mm = v[0], spacing->row_mm = v[1], spacing->magnification = v[2];
  return TRUE;
}

static gboolean
read_values (Reader *r, JsonObject *o, const char *where)
{
  JsonObject *values;
  g_autoptr(GList) members = NULL;

  if (!get_object (r, o, where, "values", FALSE, &values))
    return FALSE;
  if (values == NULL)
    return TRUE;
  members = json_object_get_members (values);
  for (GList *l = members; l != NULL; l = l->next)
    {
      JsonNode *node = json_object_get_member (values, l->data);
      JsonObject *value;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        return fail (r, LB_ERROR_PARSE, "%s: value “%s” is not an object", where,
                     (const char *) l->data);
      value = json_node_get_object (node);
      if (!node_is_number (json_object_get_member (value, "value")))
        return fail (r, LB_ERROR_PARSE, "%s: value “%s” has no number", where,
                     (const char *) l->data);
      if (!get_string (r, value, where, "unit", NULL))
        return FALSE;
    }
  return TRUE;
}

static LbMeasurement *
read_measurement (Reader *r, JsonNode *node, guint index)
{
  JsonObject *o;
  JsonNode *points_node;
  JsonArray *points;
  g_autofree char *tool_name = NULL, *text = NULL;
  LbMeasurementTool tool;
  g_autoptr(LbMeasurement) m = NULL;
  g_autoptr(GError) local = NULL;
  g_autofree char *where = g_strdup_printf ("measurement %u", index + 1);

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      fail (r, LB_ERROR_PARSE, "measurement %u is %s, not an object", index + 1,
            json_node_type_name (node));
      return NULL;
    }
  o = json_node_get_object (node);
  if (!get_string (r, o, where, "tool", &tool_name) || !get_string (r, o, where, "text", &text))
    return NULL;
  if (tool_name == NULL || !lb_measurement_tool_from_string (tool_name, &tool))
    {
      fail (r, LB_ERROR_PARSE, "measurement %u: unknown tool “%s”", index + 1,
            tool_name ? tool_name : "(none)");
      return NULL;
    }
  points_node = json_object_get_member (o, "points");
  if (points_node == NULL || !JSON_NODE_HOLDS_ARRAY (points_node))
    {
      fail (r, LB_ERROR_PARSE, "measurement %u (%s): “points” is not an array", index + 1,
            tool_name);
      return NULL;
    }
  points = json_node_get_array (points_node);
  m = lb_measurement_new (tool);
  for (guint i = 0; i < json_array_get_length (points); i++)
    {
      JsonNode *pn = json_array_get_element (points, i);
      JsonArray *xy = JSON_NODE_HOLDS_ARRAY (pn) ? json_node_get_array (pn) : NULL;

      if (xy == NULL || json_array_get_length (xy) != 2
          || !node_is_number (json_array_get_element (xy, 0))
          || !node_is_number (json_array_get_element (xy, 1)))
        {
          fail (r, LB_ERROR_PARSE, "measurement %u (%s): point %u is not a pair of numbers",
                index + 1, tool_name, i + 1);
          return NULL;
        }
      lb_measurement_add_point (m, json_array_get_double_element (xy, 0),
                                json_array_get_double_element (xy, 1));
    }
  if (!lb_measurement_validate (m, &local))
    {
      fail (r, LB_ERROR_PARSE, "measurement %u: %s", index + 1, local->message);
      return NULL;
    }
  if (!read_values (r, o, where))
    return NULL;
  lb_measurement_set_text (m, text);
  return g_steal_pointer (&m);
}

GPtrArray *
lb_measurement_sidecar_read (GBytes                *bytes,
                             const char            *name,
                             LbMeasurementImageRef *ref,
                             LbMeasurementSpacing  *spacing,
                             GError               **error)
{
  Reader r = { name ? name : "measurement file", error };
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GError) local = NULL;
  LbMeasurementImageRef got_ref = { .frame = -1 };
  LbMeasurementSpacing got_spacing;
  const char *data;
  gsize len;
  JsonNode *root, *version, *array_node;
  JsonObject *o;
  JsonArray *array;
  g_autofree char *format = NULL;

  g_return_val_if_fail (bytes != NULL, NULL);
  data = g_bytes_get_data (bytes, &len);
  if (len == 0)
    {
      fail (&r, LB_ERROR_PARSE, "not a measurement file: it is empty");
      return NULL;
    }
  if (len > LB_MEASUREMENT_SIDECAR_MAX_BYTES)
    {
      fail (&r, LB_ERROR_TOO_LARGE, "%" G_GSIZE_FORMAT " bytes, more than the %d a measurement "
            "file may have", len, LB_MEASUREMENT_SIDECAR_MAX_BYTES);
      return NULL;
    }
  if (!lb_json_check_depth (data, len, SIDECAR_MAX_DEPTH, r.name, error))
    return NULL;
  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, data, (gssize) len, &local))
    {
      fail (&r, LB_ERROR_PARSE, "not JSON: %s", local->message);
      return NULL;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      fail (&r, LB_ERROR_PARSE, "not a measurement file: the document is not an object");
      return NULL;
    }
  o = json_node_get_object (root);
  if (!get_string (&r, o, "document", "format", &format))
    return NULL;
  if (format == NULL || strcmp (format, LB_MEASUREMENT_SIDECAR_FORMAT) != 0)
    {
      fail (&r, LB_ERROR_PARSE, "not a measurement file: “format” is not “%s”",
            LB_MEASUREMENT_SIDECAR_FORMAT);
      return NULL;
    }
  version = json_object_get_member (o, "version");
  if (version == NULL || !JSON_NODE_HOLDS_VALUE (version)
      || json_node_get_value_type (version) != G_TYPE_INT64)
    {
      fail (&r, LB_ERROR_PARSE, "“version” is not a whole number");
      return NULL;
    }
  if (json_node_get_int (version) != LB_MEASUREMENT_SIDECAR_VERSION)
    {
      fail (&r, LB_ERROR_UNSUPPORTED, "schema version %" G_GINT64_FORMAT "; this Lightbox "
            "reads version %d", json_node_get_int (version), LB_MEASUREMENT_SIDECAR_VERSION);
      return NULL;
    }
  if (!read_image_ref (&r, o, &got_ref) || !read_spacing (&r, o, &got_spacing))
    {
      lb_measurement_image_ref_clear (&got_ref);
      return NULL;
    }
  array_node = json_object_get_member (o, "measurements");
  if (array_node == NULL || !JSON_NODE_HOLDS_ARRAY (array_node))
    {
      lb_measurement_image_ref_clear (&got_ref);
      fail (&r, LB_ERROR_PARSE, "“measurements” is not an array");
      return NULL;
    }
  array = json_node_get_array (array_node);
  list = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      LbMeasurement *m = read_measurement (&r, json_array_get_element (array, i), i);

      if (m == NULL)
        {
          lb_measurement_image_ref_clear (&got_ref);
          return NULL;
        }
      g_ptr_array_add (list, m);
    }
  if (ref)
    *ref = got_ref;
  else
    lb_measurement_image_ref_clear (&got_ref);
  if (spacing)
    *spacing = got_spacing;
  return g_steal_pointer (&list);
}

char *
lb_measurement_sidecar_uri (const char *image_uri)
{
  g_autoptr(GUri) uri = NULL;
  g_autofree char *path = NULL;
  const char *p;

  g_return_val_if_fail (image_uri != NULL, NULL);
  uri = g_uri_parse (image_uri, G_URI_FLAGS_ENCODED, NULL);
  if (uri == NULL)
    {
      /* a plain local path */
      if (*image_uri == '\0' || g_str_has_suffix (image_uri, "/"))
        return NULL;
      return g_strconcat (image_uri, LB_MEASUREMENT_SIDECAR_SUFFIX, NULL);
    }
  p = g_uri_get_path (uri);
  if (g_uri_get_query (uri) != NULL || g_uri_get_fragment (uri) != NULL || p == NULL
      || *p == '\0' || g_str_has_suffix (p, "/"))
    return NULL;
  path = g_strconcat (p, LB_MEASUREMENT_SIDECAR_SUFFIX, NULL);
  return g_uri_join (G_URI_FLAGS_ENCODED, g_uri_get_scheme (uri), g_uri_get_userinfo (uri),
                     g_uri_get_host (uri), g_uri_get_port (uri), path, NULL, NULL);
}
