/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The sidecar on a store (lb-measurement-store.h), on a local folder and on a real
 * lightbox-store (WebDAV) on 127.0.0.1: no sidecar loads as none; a save creates it; a second
 * save without the ETag of a load is refused and changes nothing; with it, it replaces the
 * version read, and a stale ETag is refused; a malformed sidecar and a huge one fail to load
 * with a clear error, and a save then (having no ETag) leaves the file as it was. */
#include <glib/gstdio.h>
#include <string.h>

#include "lb-error.h"
#include "lb-measurement-store.h"
#include "lb-test-files.h"
#include "lb-test-loop.h"
#include "lb-test-process.h"

static GPtrArray *
load (LbStore *store, const char *image_uri, char **etag, GError **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  lb_measurement_store_load_async (store, image_uri, NULL, lb_test_keep_result, &result);
  return lb_measurement_store_load_finish (store, lb_test_wait_result (&result), etag, NULL,
                                           error);
}

static LbWriteBackResult *
save (LbStore *store, const char *image_uri, GBytes *bytes, const char *etag, GError **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  lb_measurement_store_save_async (store, image_uri, bytes, etag, NULL, lb_test_keep_result,
                                   &result);
  return lb_measurement_store_save_finish (store, lb_test_wait_result (&result), error);
}

static GBytes *
document (guint n_probes)
{
  g_autoptr(GPtrArray) list = g_ptr_array_new_with_free_func (g_object_unref);
  LbMeasurementImageRef ref = { .name = (char *) "CT.dcm", .frame = -1 };
  LbMeasurementSpacing spacing;
  g_autoptr(GError) error = NULL;
  GBytes *bytes;

  lb_measurement_spacing_init_unknown (&spacing);
  for (guint i = 0; i < n_probes; i++)
    {
      LbMeasurement *m = lb_measurement_new (LB_MEASUREMENT_PROBE);

      lb_measurement_add_point (m, i + 0.5, 2.5);
      g_ptr_array_add (list, m);
    }
  bytes = lb_measurement_sidecar_write (&ref, &spacing, NULL, list, &error);
  g_assert_no_error (error);
  return bytes;
}

static void
check_file (const char *path, GBytes *expected)
{
  g_autoptr(GBytes) now = lb_test_read_file (path);

  g_assert_true (g_bytes_equal (now, expected));
}

static void
run (const char *store_uri, const char *root)
{
  g_autofree char *image_uri = g_strconcat (store_uri, "CT.dcm", NULL);
  g_autofree char *path = g_build_filename (root, "CT.dcm.measurements.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStore) store = lb_store_new_for_uri (store_uri, NULL, &error);
  g_autoptr(GBytes) one = document (1), two = document (2), three = document (3);
  g_autofree char *etag = NULL;
  GPtrArray *list;
  LbWriteBackResult *res;

  g_assert_no_error (error);
  g_test_message ("store %s", store_uri);

  /* no sidecar yet */
  list = load (store, image_uri, &etag, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (list->len, ==, 0);
  g_assert_null (etag);
  g_ptr_array_unref (list);

  /* created */
  res = save (store, image_uri, one, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("%s", res->message);
  lb_write_back_result_free (res);
  check_file (path, one);

  /* a save as if there were none is refused */
  res = save (store, image_uri, two, NULL, &error);
  g_assert_null (res);
  g_assert_error (error, LB_ERROR, LB_ERROR_CONFLICT);
  g_clear_error (&error);
  check_file (path, one);

  /* loaded with its ETag, replaced with it; the old ETag is stale afterwards */
  list = load (store, image_uri, &etag, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (list->len, ==, 1);
  g_assert_nonnull (etag);
  g_ptr_array_unref (list);
  res = save (store, image_uri, two, etag, &error);
  g_assert_no_error (error);
  lb_write_back_result_free (res);
  check_file (path, two);
  res = save (store, image_uri, three, etag, &error);
  g_assert_null (res);
  g_assert_error (error, LB_ERROR, LB_ERROR_CONFLICT);
  g_clear_error (&error);
  check_file (path, two);
  g_clear_pointer (&etag, g_free);

  /* malformed: an error, no ETag, and a save leaves the file alone */
  {
    static const char bad[] = "{\"format\": \"lightbox-measurements\", \"version\": 1, "
                              "\"image\": {}, \"measurements\": [{\"tool\": \"length\", "
                              "\"points\": [[1, 2], [\"x\", 4]]}]}";
    g_autoptr(GBytes) bad_bytes = g_bytes_new_static (bad, strlen (bad));

    g_assert_true (g_file_set_contents (path, bad, -1, NULL));
    list = load (store, image_uri, &etag, &error);
    g_assert_null (list);
    g_assert_null (etag);
    g_assert_error (error, LB_ERROR, LB_ERROR_PARSE);
    g_test_message ("%s", error->message);
    g_clear_error (&error);
    res = save (store, image_uri, one, NULL, &error);
    g_assert_null (res);
    g_assert_error (error, LB_ERROR, LB_ERROR_CONFLICT);
    g_clear_error (&error);
    check_file (path, bad_bytes);
  }

  /* huge: refused by its size */
  {
    gsize n = LB_MEASUREMENT_SIDECAR_MAX_BYTES + 4096;
    g_autofree char *huge = g_malloc (n);

    memset (huge, ' ', n);
    huge[0] = '[';
    huge[n - 1] = ']';
    g_assert_true (g_file_set_contents (path, huge, (gssize) n, NULL));
    list = load (store, image_uri, &etag, &error);
    g_assert_null (list);
    g_assert_error (error, LB_ERROR, LB_ERROR_TOO_LARGE);
    g_test_message ("%s", error->message);
    g_clear_error (&error);
  }
}

static void
test_local (void)
{
  g_autofree char *dir = lb_test_make_tmpdir ("sidecar-local");
  g_autofree char *uri = g_filename_to_uri (dir, NULL, NULL);
  g_autofree char *store_uri = g_strconcat (uri, "/", NULL);

  run (store_uri, dir);
  lb_test_remove_tree (dir);
}

static void
test_webdav (void)
{
  g_autofree char *dir = lb_test_make_tmpdir ("sidecar-dav");
  LbTestServer server = { NULL };

  lb_test_server_start (&server, dir);
  run (server.url, dir);
  lb_test_server_stop (&server);
  lb_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/measure/store/local", test_local);
  g_test_add_func ("/measure/store/webdav", test_webdav);
  return g_test_run ();
}
