/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The local-folder backend through GIO, and write-back into it. */
#define G_LOG_DOMAIN "test-local-store"

#include <glib/gstdio.h>
#include <string.h>

#include "lb-error.h"
#include "lb-image-loader.h"
#include "lb-png.h"
#include "lb-test-files.h"
#include "lb-test-loop.h"
#include "lb-test-stores.h"

static char *
make_tree (void)
{
  char *dir = lb_test_make_tmpdir ("local");
  g_autofree char *sub = g_build_filename (dir, "sub dir", NULL);
  g_autofree char *src = lb_test_build_path ("LB_TEST_DATA", "pngsuite", "basn0g16.png",
                                             NULL);

  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  lb_test_install_file (src, dir, "basn0g16.png");
  return dir;
}

static void
record_progress (goffset current, goffset total, gpointer data)
{
  goffset *last = data;

  g_assert_cmpint (current, >, last[0]);
  last[0] = current;
  last[1] = total;
}

static void
test_list_read (void)
{
  g_autofree char *dir = make_tree ();
  g_autoptr(LbStore) store = lb_test_store_open (dir, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) entries = lb_test_store_list (store, NULL, &error);
  LbStoreEntry *png, *sub;
  g_autoptr(GBytes) body = NULL;
  g_autofree char *path = g_build_filename (dir, "basn0g16.png", NULL);
  g_autofree char *want = lb_test_sha256_file (path);
  g_autofree char *got = NULL;

  g_assert_no_error (error);
  g_assert_cmpstr (lb_store_get_backend_name (store), ==, "local");
  g_assert_cmpuint (entries->len, ==, 2);
  png = lb_test_store_find (entries, "basn0g16.png");
  sub = lb_test_store_find (entries, "sub dir");
  g_assert_nonnull (png);
  g_assert_nonnull (sub);
  g_assert_true (lb_store_entry_is_container (sub));
  g_assert_cmpint (lb_store_entry_get_kind (png), ==, LB_STORE_ENTRY_IMAGE);
  g_assert_nonnull (lb_store_entry_get_etag (png));
  body = lb_test_store_read_all (store, lb_store_entry_get_uri (png), NULL, &error);
  g_assert_no_error (error);
  got = g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, body);
  g_assert_cmpstr (got, ==, want);
  g_assert_cmpint (lb_store_entry_get_size (png), ==, g_bytes_get_size (body));

  /* progress while reading: monotonic, ends at the size */
  {
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(GInputStream) stream = NULL;
    goffset last[2] = { 0, 0 };
    guint8 buffer[16];

    lb_store_read_async (store, lb_store_entry_get_uri (png), NULL, record_progress, last,
                         lb_test_keep_result, &result);
    stream = lb_store_read_finish (store, lb_test_wait_result (&result), NULL, &error);
    g_assert_no_error (error);
    while (g_input_stream_read (stream, buffer, sizeof buffer, NULL, &error) > 0)
      ;
    g_assert_no_error (error);
    g_assert_cmpint (last[0], ==, lb_store_entry_get_size (png));
    g_assert_cmpint (last[1], ==, lb_store_entry_get_size (png));
  }

  /* outside the root */
  {
    g_autoptr(GPtrArray) none = lb_test_store_list (store, "/etc", &error);
    g_assert_null (none);
    g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  }
  lb_test_remove_tree (dir);
}

static LbWriteBackResult *
put (LbStore *store, const char *uri, const char *text, LbStoreWriteMode mode, const char *etag,
     GError **error)
{
  g_autoptr(GBytes) bytes = g_bytes_new (text, strlen (text));
  g_autoptr(GAsyncResult) result = NULL;

  lb_store_put_bytes_safely_async (store, uri, bytes, "text/plain", mode, etag, NULL, NULL, NULL,
                                   lb_test_keep_result, &result);
  return lb_store_put_bytes_safely_finish (store, lb_test_wait_result (&result), error);
}

static void
test_write_modes (void)
{
  g_autofree char *dir = make_tree ();
  g_autoptr(LbStore) store = lb_test_store_open (dir, NULL);
  g_autofree char *path = g_build_filename (dir, "note.txt", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *uri = g_file_get_uri (file);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbWriteBackResult) first = put (store, uri, "one", LB_STORE_WRITE_CREATE, NULL, &error);
  g_autoptr(LbWriteBackResult) again = NULL;
  g_autoptr(LbWriteBackResult) replaced = NULL;
  g_autoptr(LbWriteBackResult) stale = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *old_etag = NULL;

  g_assert_no_error (error);
  g_assert_true (first->verified);
  g_assert_cmpint (first->guarantee, ==, LB_WRITE_BACK_SERVER_ENFORCED);
  old_etag = g_strdup (first->etag);

  again = put (store, uri, "two", LB_STORE_WRITE_CREATE, NULL, &error);
  g_assert_null (again);
  g_assert_error (error, LB_ERROR, LB_ERROR_CONFLICT);
  g_clear_error (&error);

  /* the raw create refuses too (link() semantics), without a check first */
  {
    g_autoptr(GBytes) bytes = g_bytes_new_static ("raw", 3);
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(LbStoreEntry) e = NULL;
    lb_store_write_bytes_async (store, uri, bytes, NULL, LB_STORE_WRITE_CREATE, NULL, NULL, NULL,
                                NULL, lb_test_keep_result, &result);
    e = lb_store_write_finish (store, lb_test_wait_result (&result), &error);
    g_assert_null (e);
    g_assert_error (error, LB_ERROR, LB_ERROR_CONFLICT);
    g_clear_error (&error);
  }
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "one");
  g_clear_pointer (&contents, g_free);

  /* GIO's etag has one-second resolution here: make the change visible to it */
  g_usleep (1100 * 1000);
  replaced = put (store, uri, "three", LB_STORE_WRITE_IF_MATCH, old_etag, &error);
  g_assert_no_error (error);
  g_assert_true (replaced->overwrote);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "three");
  g_clear_pointer (&contents, g_free);

  stale = put (store, uri, "four", LB_STORE_WRITE_IF_MATCH, old_etag, &error);
  g_assert_null (stale);
  g_assert_error (error, LB_ERROR, LB_ERROR_CONFLICT);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "three");
  lb_test_remove_tree (dir);
}

static void
test_write_back_local (void)
{
  g_autofree char *dir = make_tree ();
  g_autoptr(LbStore) store = lb_test_store_open (dir, NULL);
  g_autofree char *path = g_build_filename (dir, "basn0g16.png", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *uri = g_file_get_uri (file);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStoreEntry) info = NULL;
  g_autoptr(LbImage) image = lb_store_fetch_image_sync (uri, NULL, NULL, &info, NULL, &error);
  LbWriteBackOptions options = { "sharpen", "sharpen(amount=50)", FALSE, NULL, 0 };
  LbWriteBackResult *results[3] = { NULL, NULL, NULL };
  const char *names[] = { "basn0g16.sharpen.png", "basn0g16.sharpen-2.png", "basn0g16.sharpen-3.png" };

  g_assert_no_error (error);
  g_assert_cmpstr (lb_image_meta_get_source_etag (lb_image_get_meta (image)), ==,
                   lb_store_entry_get_etag (info));
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(GAsyncResult) result = NULL;
      g_autofree char *out = g_build_filename (dir, names[i], NULL);
      g_autoptr(LbImage) back = NULL;

      lb_write_back_async (store, uri, image, &options, NULL, NULL, NULL, lb_test_keep_result, &result);
      results[i] = lb_write_back_finish (store, lb_test_wait_result (&result), &error);
      g_assert_no_error (error);
      g_assert_true (g_str_has_suffix (results[i]->uri, names[i]));
      g_assert_true (results[i]->verified);
      back = lb_image_load_file (out, NULL, &error);
      g_assert_no_error (error);
      g_assert_true (lb_image_equal_pixels (back, image));
      g_assert_cmpstr (lb_image_meta_get_text (lb_image_get_meta (back), "Source"), ==, uri);
      g_assert_cmpstr (lb_image_meta_get_text (lb_image_get_meta (back), "lightbox:source-etag"), ==,
                       lb_store_entry_get_etag (info));
      g_assert_cmpstr (lb_image_meta_get_text (lb_image_get_meta (back), "lightbox:filter-chain"), ==,
                       "sharpen(amount=50)");
    }
  for (guint i = 0; i < 3; i++)
    lb_write_back_result_free (results[i]);

  /* overwrite without the ETag seen at download is refused */
  {
    LbWriteBackOptions ow = { "x", NULL, TRUE, "\"bogus\"", 0 };
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(LbWriteBackResult) res = NULL;
    g_autofree char *before = lb_test_sha256_file (path);
    g_autofree char *after = NULL;

    lb_write_back_async (store, uri, image, &ow, NULL, NULL, NULL, lb_test_keep_result, &result);
    res = lb_write_back_finish (store, lb_test_wait_result (&result), &error);
    g_assert_null (res);
    g_assert_error (error, LB_ERROR, LB_ERROR_CONFLICT);
    after = lb_test_sha256_file (path);
    g_assert_cmpstr (after, ==, before);
  }
  lb_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/local/list-read", test_list_read);
  g_test_add_func ("/local/write-modes", test_write_modes);
  g_test_add_func ("/local/write-back", test_write_back_local);
  return g_test_run ();
}
