/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The JSON sidecar: a round trip of every tool (points to the last bit, text, image reference,
 * spacing) whose written values are what lb_measurement_compute() gives; malformed files
 * (another schema version, not a measurement file, points that are not numbers, wrong point
 * counts, unknown tools, bad values, deep nesting, a huge file, not JSON) each fail with a
 * clear GError and give nothing; the sidecar's address; and the write-back through a local
 * store: a new sidecar is created, an existing one (well-formed or not) is never replaced
 * without the ETag of a successful read, and a replacement with it works. */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "lb-error.h"
#include "lb-measurement-geometry.h"
#include "lb-measurement-sidecar.h"
#include "lb-store-sync.h"
#include "lb-test-files.h"
#include "lb-test-image.h"
#include "lb-test-loop.h"

static LbImage *
test_image (void)
{
  g_autoptr(LbImage) ct = lb_test_ct_image_new (40, 30, 5);
  g_autoptr(LbImageMeta) meta = lb_image_meta_copy (lb_image_get_meta (ct));

  lb_image_meta_set_source_uri (meta, "file:///data/CT%201.dcm");
  lb_image_meta_set_source_etag (meta, "\"abc\"");
  lb_image_meta_set_text (meta, "dicom:SOPInstanceUID", "1.2.3.4");
  return lb_image_with_meta (ct, meta);
}

static GPtrArray *
every_tool (void)
{
  static const LbMeasurementPoint pts[] = {
    { 1.5, 2.5 }, { 30.25, 20.125 }, { 0.1, 28.9 }, { 1.0 / 3, 17.0 / 7 }, { 39.999, 0.001 },
  };
  GPtrArray *list = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint t = 0; t < LB_MEASUREMENT_N_TOOLS; t++)
    {
      guint lo, hi;
      LbMeasurement *m;

      lb_measurement_tool_get_n_points (t, &lo, &hi);
      m = lb_measurement_new_with_points (t, pts, MIN (hi, G_N_ELEMENTS (pts)), NULL);
      g_assert_nonnull (m);
      if (t == LB_MEASUREMENT_ARROW)
        lb_measurement_set_text (m, "nodule “A”, 3 mm");
      g_ptr_array_add (list, m);
    }
  return list;
}

static GBytes *
write_sidecar (LbImage *image, GPtrArray *list, LbMeasurementSpacing *spacing)
{
  LbMeasurementImageRef ref;
  g_autoptr(GError) error = NULL;
  GBytes *bytes;

  lb_measurement_image_ref_init_from_image (&ref, image);
  ref.frame = 2;
  bytes = lb_measurement_sidecar_write (&ref, spacing, image, list, &error);
  g_assert_no_error (error);
  lb_measurement_image_ref_clear (&ref);
  return bytes;
}

static void
test_round_trip (void)
{
  g_autoptr(LbImage) image = test_image ();
  g_autoptr(GPtrArray) list = every_tool ();
  g_autoptr(GPtrArray) back = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;
  LbMeasurementSpacing spacing = { LB_MEASUREMENT_SPACING_ESTIMATED, 0.16, 0.2, 1.25 };
  LbMeasurementSpacing got_spacing;
  LbMeasurementImageRef ref;
  JsonArray *written;

  bytes = write_sidecar (image, list, &spacing);
  back = lb_measurement_sidecar_read (bytes, "CT 1.dcm.measurements.json", &ref, &got_spacing,
                                      &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->len, ==, list->len);
  for (guint i = 0; i < list->len; i++)
    {
      LbMeasurement *a = g_ptr_array_index (list, i), *b = g_ptr_array_index (back, i);

      g_assert_cmpint (lb_measurement_get_tool (a), ==, lb_measurement_get_tool (b));
      g_assert_cmpuint (lb_measurement_get_n_points (a), ==, lb_measurement_get_n_points (b));
      for (guint k = 0; k < lb_measurement_get_n_points (a); k++)
        {
          g_assert_cmpfloat (lb_measurement_get_point (a, k).x, ==,
                             lb_measurement_get_point (b, k).x);
          g_assert_cmpfloat (lb_measurement_get_point (a, k).y, ==,
                             lb_measurement_get_point (b, k).y);
        }
      g_assert_cmpstr (lb_measurement_get_text (a), ==, lb_measurement_get_text (b));
    }
  g_assert_cmpstr (ref.name, ==, "CT 1.dcm");
  g_assert_cmpstr (ref.uri, ==, "file:///data/CT%201.dcm");
  g_assert_cmpstr (ref.etag, ==, "\"abc\"");
  g_assert_cmpstr (ref.sop_instance_uid, ==, "1.2.3.4");
  g_assert_cmpint (ref.frame, ==, 2);
  g_assert_cmpuint (ref.width, ==, 40);
  g_assert_cmpuint (ref.height, ==, 30);
  lb_measurement_image_ref_clear (&ref);
  g_assert_cmpint (got_spacing.kind, ==, spacing.kind);
  g_assert_cmpfloat (got_spacing.column_mm, ==, spacing.column_mm);
  g_assert_cmpfloat (got_spacing.row_mm, ==, spacing.row_mm);
  g_assert_cmpfloat (got_spacing.magnification, ==, spacing.magnification);

  /* the values written are the ones computed, with their units */
  root = json_from_string (g_bytes_get_data (bytes, NULL), &error);
  g_assert_no_error (error);
  written = json_object_get_array_member (json_node_get_object (root), "measurements");
  for (guint i = 0; i < list->len; i++)
    {
      JsonObject *values = json_object_get_object_member (
        json_array_get_object_element (written, i), "values");
      LbMeasurementValues v;

      g_assert_true (lb_measurement_compute (g_ptr_array_index (list, i), &spacing, image, &v,
                                             NULL));
      switch (v.tool)
        {
        case LB_MEASUREMENT_LENGTH:
        case LB_MEASUREMENT_POLYLINE:
        case LB_MEASUREMENT_ARROW:
          g_assert_cmpfloat (json_object_get_double_member (
                               json_object_get_object_member (values, "length"), "value"),
                             ==, v.length);
          g_assert_cmpstr (json_object_get_string_member (
                             json_object_get_object_member (values, "length"), "unit"),
                           ==, "mm");
          break;
        case LB_MEASUREMENT_ANGLE:
          g_assert_cmpfloat (json_object_get_double_member (
                               json_object_get_object_member (values, "angle"), "value"),
                             ==, v.angle);
          break;
        case LB_MEASUREMENT_RECTANGLE:
        case LB_MEASUREMENT_ELLIPSE:
        case LB_MEASUREMENT_FREEHAND:
          g_assert_cmpfloat (json_object_get_double_member (
                               json_object_get_object_member (values, "area"), "value"),
                             ==, v.area);
          g_assert_cmpint (json_object_get_int_member (
                             json_object_get_object_member (values, "pixels"), "value"),
                           ==, (gint64) v.stats.n_pixels);
          g_assert_cmpfloat (json_object_get_double_member (
                               json_object_get_object_member (values, "mean"), "value"),
                             ==, v.stats.mean);
          g_assert_cmpstr (json_object_get_string_member (
                             json_object_get_object_member (values, "mean"), "unit"),
                           ==, "HU");
          break;
        case LB_MEASUREMENT_PROBE:
          g_assert_true (v.has_value);
          g_assert_cmpfloat (json_object_get_double_member (
                               json_object_get_object_member (values, "value"), "value"),
                             ==, v.value);
          break;
        default:
          g_assert_not_reached ();
        }
    }

  /* an incomplete measurement is not written */
  {
    g_autoptr(GBytes) none = NULL;
    LbMeasurementImageRef empty = { .frame = -1 };

    g_ptr_array_add (list, lb_measurement_new (LB_MEASUREMENT_ANGLE));
    none = lb_measurement_sidecar_write (&empty, &spacing, image, list, &error);
    g_assert_null (none);
    g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
    g_test_message ("%s", error->message);
    g_assert_nonnull (strstr (error->message, "measurement 9"));
  }
}

static void
expect_failure (const char *json, gint code, const char *words)
{
  g_autoptr(GBytes) bytes = g_bytes_new (json, strlen (json));
  g_autoptr(GError) error = NULL;
  LbMeasurementImageRef ref = { .name = NULL };
  g_autoptr(GPtrArray) list = lb_measurement_sidecar_read (bytes, "bad.json", &ref, NULL,
                                                           &error);

  g_assert_null (list);
  g_assert_null (ref.name);
  g_assert_error (error, LB_ERROR, code);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "bad.json"));
  if (strstr (error->message, words) == NULL)
    g_error ("“%s” does not say “%s”", error->message, words);
}

#define HEAD "{\"format\": \"lightbox-measurements\", \"version\": 1, \"image\": {}, "

static void
test_malformed (void)
{
  expect_failure ("{\"format\": \"lightbox-measurements\", \"version\": 2, \"image\": {}, "
                  "\"measurements\": []}", LB_ERROR_UNSUPPORTED, "version 2");
  expect_failure ("{\"format\": \"lightbox-measurements\", \"version\": \"1\"}",
                  LB_ERROR_PARSE, "version");
  expect_failure ("{\"format\": \"lightbox-measurements\", \"version\": 1.5}",
                  LB_ERROR_PARSE, "version");
  expect_failure ("{\"format\": \"something-else\", \"version\": 1}", LB_ERROR_PARSE,
                  "not a measurement file");
  expect_failure ("[1, 2]", LB_ERROR_PARSE, "not a measurement file");
  expect_failure ("{\"format\": \"lightbox-meas", LB_ERROR_PARSE, "not JSON");
  expect_failure ("", LB_ERROR_PARSE, "");
  expect_failure (HEAD "\"measurements\": [{\"tool\": \"length\", \"points\": "
                  "[[1, 2], [\"3\", 4]]}]}", LB_ERROR_PARSE, "point 2");
  expect_failure (HEAD "\"measurements\": [{\"tool\": \"length\", \"points\": "
                  "[[1, 2], [null, 4]]}]}", LB_ERROR_PARSE, "point 2");
  expect_failure (HEAD "\"measurements\": [{\"tool\": \"length\", \"points\": "
                  "[[1, 2], [3, 4, 5]]}]}", LB_ERROR_PARSE, "point 2");
  expect_failure (HEAD "\"measurements\": [{\"tool\": \"probe\", \"points\": "
                  "[{\"x\": 1, \"y\": 2}]}]}", LB_ERROR_PARSE, "point 1");
  expect_failure (HEAD "\"measurements\": [{\"tool\": \"probe\", \"points\": "
                  "[[1e400, 2]]}]}", LB_ERROR_PARSE, "");
  expect_failure (HEAD "\"measurements\": [{\"tool\": \"probe\", \"points\": \"1,2\"}]}",
                  LB_ERROR_PARSE, "points");
  expect_failure (HEAD "\"measurements\": [{\"tool\": \"angle\", \"points\": "
                  "[[1, 2], [3, 4]]}]}", LB_ERROR_PARSE, "3 points");
  expect_failure (HEAD "\"measurements\": [{\"tool\": \"lasso\", \"points\": [[1, 2]]}]}",
                  LB_ERROR_PARSE, "unknown tool");
  expect_failure (HEAD "\"measurements\": [{\"points\": [[1, 2]]}]}", LB_ERROR_PARSE,
                  "unknown tool");
  expect_failure (HEAD "\"measurements\": [{\"tool\": 3, \"points\": [[1, 2]]}]}",
                  LB_ERROR_PARSE, "tool");
  expect_failure (HEAD "\"measurements\": [{\"tool\": \"probe\", \"points\": [[1, 2]], "
                  "\"values\": {\"value\": {\"value\": \"12\", \"unit\": \"HU\"}}}]}",
                  LB_ERROR_PARSE, "no number");
  expect_failure (HEAD "\"measurements\": [{\"tool\": \"probe\", \"points\": [[1, 2]], "
                  "\"text\": 5}]}", LB_ERROR_PARSE, "text");
  expect_failure (HEAD "\"measurements\": {}}", LB_ERROR_PARSE, "measurements");
  expect_failure ("{\"format\": \"lightbox-measurements\", \"version\": 1, "
                  "\"image\": {\"width\": -3}, \"measurements\": []}", LB_ERROR_PARSE, "width");
  expect_failure ("{\"format\": \"lightbox-measurements\", \"version\": 1, "
                  "\"measurements\": []}", LB_ERROR_PARSE, "image");
  expect_failure (HEAD "\"spacing\": {\"kind\": \"calibrated\", \"row_mm\": 0}, "
                  "\"measurements\": []}", LB_ERROR_PARSE, "row_mm");
  expect_failure (HEAD "\"spacing\": {\"kind\": \"guessed\"}, \"measurements\": []}",
                  LB_ERROR_PARSE, "guessed");

  /* nesting is bounded before the parser recurses */
  {
    GString *deep = g_string_new (HEAD "\"measurements\": ");

    for (int i = 0; i < 100000; i++)
      g_string_append_c (deep, '[');
    expect_failure (deep->str, LB_ERROR_TOO_LARGE, "");
    g_string_free (deep, TRUE);
  }
  /* a huge file is refused by its size, before it is parsed */
  {
    GString *huge = g_string_new (HEAD "\"measurements\": [");

    while (huge->len <= LB_MEASUREMENT_SIDECAR_MAX_BYTES)
      g_string_append (huge, "{\"tool\": \"probe\", \"points\": [[1, 2]]},\n");
    g_string_append (huge, "{\"tool\": \"probe\", \"points\": [[1, 2]]}]}");
    expect_failure (huge->str, LB_ERROR_TOO_LARGE, "bytes");
    g_string_free (huge, TRUE);
  }
  /* and a minimal file is fine */
  {
    const char *ok = HEAD "\"measurements\": [{\"tool\": \"probe\", \"points\": [[1, 2]]}]}";
    g_autoptr(GBytes) bytes = g_bytes_new_static (ok, strlen (ok));
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) list = lb_measurement_sidecar_read (bytes, NULL, NULL, NULL, &error);
    LbMeasurementPoint p;

    g_assert_no_error (error);
    g_assert_cmpuint (list->len, ==, 1);
    p = lb_measurement_get_point (g_ptr_array_index (list, 0), 0);
    g_assert_cmpfloat (p.x, ==, 1);
    g_assert_cmpfloat (p.y, ==, 2);
  }
}

static void
test_uri (void)
{
  static const struct { const char *image, *sidecar; } cases[] = {
    { "file:///data/CT.dcm", "file:///data/CT.dcm.measurements.json" },
    { "http://127.0.0.1:8080/dav/a%20b/CT.png",
      "http://127.0.0.1:8080/dav/a%20b/CT.png.measurements.json" },
    { "/plain/path.png", "/plain/path.png.measurements.json" },
    { "http://127.0.0.1/img?id=3", NULL },
    { "http://127.0.0.1/img#frag", NULL },
    { "http://127.0.0.1/dir/", NULL },
    { "", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = lb_measurement_sidecar_uri (cases[i].image);

      g_assert_cmpstr (got, ==, cases[i].sidecar);
    }
}

/* The sidecar goes through the stores' conditional write-back: CREATE never replaces a file,
 * IF_MATCH replaces only the version that was read. */
static void
test_write_back (void)
{
  g_autofree char *dir = lb_test_make_tmpdir ("sidecar");
  g_autofree char *image_path = g_build_filename (dir, "CT.dcm", NULL);
  g_autofree char *image_uri = g_filename_to_uri (image_path, NULL, NULL);
  g_autofree char *uri = lb_measurement_sidecar_uri (image_uri);
  g_autofree char *path = g_filename_from_uri (uri, NULL, NULL);
  g_autoptr(LbImage) image = test_image ();
  g_autoptr(GPtrArray) list = every_tool ();
  LbMeasurementSpacing spacing = { LB_MEASUREMENT_SPACING_CALIBRATED, 0.7, 0.7, 1 };
  g_autoptr(GBytes) first = write_sidecar (image, list, &spacing);
  g_autoptr(GBytes) second = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStoreEntry) entry = NULL;
  g_autoptr(LbStore) store = NULL;
  g_autofree char *sum = NULL;

  /* a new sidecar */
  {
    g_autoptr(LbWriteBackResult) res = lb_store_put_bytes_sync (uri, first, "application/json",
                                                                FALSE, NULL, NULL, &error);

    g_assert_no_error (error);
    g_test_message ("%s", res->message);
  }
  /* a second save without the ETag of a read is refused: the first stays */
  lb_measurement_set_point (g_ptr_array_index (list, 0), 0, 3, 3);
  second = write_sidecar (image, list, &spacing);
  sum = lb_test_sha256_file (path);
  {
    g_autoptr(LbWriteBackResult) res = lb_store_put_bytes_sync (uri, second, "application/json",
                                                                FALSE, NULL, NULL, &error);

    g_assert_null (res);
    g_assert_error (error, LB_ERROR, LB_ERROR_CONFLICT);
    g_clear_error (&error);
  }
  {
    g_autofree char *now = lb_test_sha256_file (path);

    g_assert_cmpstr (now, ==, sum);
  }

  /* with the ETag of the version read it is replaced */
  store = lb_store_open_parent_sync (uri, NULL, &error);
  g_assert_no_error (error);
  entry = lb_store_stat_sync (store, uri, NULL, &error);
  g_assert_no_error (error);
  {
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(LbWriteBackResult) res = NULL;

    g_assert_nonnull (lb_store_entry_get_etag (entry));
    lb_store_put_bytes_safely_async (store, uri, second, "application/json",
                                     LB_STORE_WRITE_IF_MATCH, lb_store_entry_get_etag (entry),
                                     NULL, NULL, NULL, lb_test_keep_result, &result);
    res = lb_store_put_bytes_safely_finish (store, lb_test_wait_result (&result), &error);
    g_assert_no_error (error);
    g_test_message ("%s", res->message);
  }
  {
    g_autoptr(GBytes) now = lb_test_read_file (path);

    g_assert_true (g_bytes_equal (now, second));
  }

  /* a malformed sidecar gives an error and no measurements, so no ETag to replace it with:
   * a save (CREATE) is refused and the file is left as it was */
  g_assert_true (g_file_set_contents (path, "{\"format\": \"lightbox-measurements\", "
                                      "\"version\": 7}", -1, NULL));
  g_free (sum);
  sum = lb_test_sha256_file (path);
  {
    g_autoptr(GBytes) bad = lb_test_read_file (path);
    g_autoptr(GPtrArray) none = lb_measurement_sidecar_read (bad, path, NULL, NULL, &error);
    g_autoptr(LbWriteBackResult) res = NULL;
    g_autofree char *now = NULL;

    g_assert_null (none);
    g_assert_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED);
    g_clear_error (&error);
    res = lb_store_put_bytes_sync (uri, first, "application/json", FALSE, NULL, NULL, &error);
    g_assert_null (res);
    g_assert_error (error, LB_ERROR, LB_ERROR_CONFLICT);
    g_clear_error (&error);
    now = lb_test_sha256_file (path);
    g_assert_cmpstr (now, ==, sum);
  }
  lb_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/measure/sidecar/round-trip", test_round_trip);
  g_test_add_func ("/measure/sidecar/malformed", test_malformed);
  g_test_add_func ("/measure/sidecar/uri", test_uri);
  g_test_add_func ("/measure/sidecar/write-back", test_write_back);
  return g_test_run ();
}
