/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Request bodies sent in full on every attempt. libsoup forgets a request body when it restarts
 * a message (a 401 challenge, a redirect, a keep-alive connection closed before the answer) and
 * would send the next attempt with "Content-Length: 0"; a retry after a 503 would send what is
 * left of a consumed stream. Cases:
 *  - PUT with Basic credentials against the real lightbox-store with a yescrypt password file,
 *    through lb_store_put_bytes_sync(), `lightbox-cli put` and a file stream: the file on disk
 *    is the file sent; a stream that cannot seek fails with an error that says why, and
 *    nothing is stored;
 *  - against a hostile server on 127.0.0.1: PUT after a 401 challenge and after a dropped
 *    keep-alive connection, PROPFIND after a 503, a 401 and a 307, STOW-RS POST after a 401:
 *    the server gets the same whole body on every attempt; a 303 to a PUT is an error, never a
 *    GET that passes for the upload. */
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "hostile-server.h"
#include "lb-error.h"
#include "lb-test-files.h"
#include "lb-test-image.h"
#include "lb-test-loop.h"
#include "lb-test-process.h"
#include "lb-test-stores.h"

#define USER "alice"
#define PASSWORD "correct horse battery"

/* ---------------------------------------------------------------------------------------- */
/* helpers                                                                                   */

/* lb_store_write_async() of @stream run to its end. */
static LbStoreEntry *
write_stream (LbStore *store, const char *uri, GInputStream *stream, gint64 size,
              LbStoreWriteMode mode, GError **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  lb_store_write_async (store, uri, stream, size, "application/octet-stream", mode, NULL, NULL,
                        NULL, NULL, lb_test_keep_result, &result);
  return lb_store_write_finish (store, lb_test_wait_result (&result), error);
}

static LbStoreEntry *
write_bytes (LbStore *store, const char *uri, GBytes *bytes, LbStoreWriteMode mode,
             GError **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  lb_store_write_bytes_async (store, uri, bytes, "application/octet-stream", mode, NULL, NULL,
                              NULL, NULL, lb_test_keep_result, &result);
  return lb_store_write_finish (store, lb_test_wait_result (&result), error);
}

static LbStoreOptions *
basic_options (void)
{
  LbStoreOptions *options = lb_store_options_new ();

  options->username = g_strdup (USER);
  options->password = g_strdup (PASSWORD);
  return options;
}

static gboolean
bytes_equal (GBytes *a, GBytes *b)
{
  return g_bytes_get_size (a) == g_bytes_get_size (b) && g_bytes_compare (a, b) == 0;
}

/* The requests the server got with @method, in order. */
static GPtrArray *
requests_with (HostileServer *server, const char *method)
{
  GPtrArray *all = hostile_server_requests (server);

  for (guint i = all->len; i > 0; i--)
    if (!g_str_equal (((HostileRequest *) all->pdata[i - 1])->method, method))
      g_ptr_array_remove_index (all, i - 1);
  return all;
}

static GBytes *
request_body (GPtrArray *requests, guint i)
{
  g_assert_cmpuint (i, <, requests->len);
  return ((HostileRequest *) requests->pdata[i])->body;
}

/* ---------------------------------------------------------------------------------------- */
/* the real lightbox-store with Basic authentication                                         */

static void
assert_file_is (const char *path, GBytes *expected)
{
  g_autoptr(GBytes) disk = lb_test_read_file (path);

  g_assert_cmpuint (g_bytes_get_size (disk), ==, g_bytes_get_size (expected));
  g_assert_true (bytes_equal (disk, expected));
}

static void
test_basic_put_store (void)
{
  g_autofree char *base = lb_test_make_tmpdir ("bodies-store");
  g_autofree char *root = g_build_filename (base, "root", NULL);
  g_autofree char *passwd = g_build_filename (base, "passwd", NULL);
  g_autofree char *line = lb_test_server_hash_password (USER, PASSWORD);
  g_autofree char *exe = lb_test_server_exe ();
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_autoptr(GSubprocess) server = NULL;
  g_autofree char *url = NULL;
  g_autoptr(LbStoreOptions) options = basic_options ();
  g_autoptr(GBytes) data = lb_test_bytes (300 * 1024 + 17, 11);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir (root, 0755), ==, 0);
  g_assert_true (g_file_set_contents (passwd, line, -1, NULL));
  {
    const char *const argv[] = { exe, "--port", "0", "--passwd-file", passwd, root, NULL };
    lb_test_server_spawn (launcher, argv, &server, &url);
  }

  /* 1. lb_store_put_bytes_sync(): what `put` and the workstation's Upload run. The PUT is
   *    answered 401 (reads are anonymous, so this is the first challenge) and sent again. */
  {
    g_autofree char *uri = g_strconcat (url, "a.bin", NULL);
    g_autofree char *path = g_build_filename (root, "a.bin", NULL);
    g_autoptr(LbWriteBackResult) res = lb_store_put_bytes_sync (uri, data, "application/octet-stream",
                                                                FALSE, options, NULL, &error);

    g_assert_no_error (error);
    g_test_message ("put: %s", res->message);
    g_assert_true (res->verified);
    g_assert_cmpint (res->verified_size, ==, (gint64) g_bytes_get_size (data));
    assert_file_is (path, data);
  }

  /* 2. lightbox-cli put --user with LIGHTBOX_PASSWORD. */
  {
    g_autofree char *cli = lb_test_build_path ("LB_BUILD_ROOT", "src", "cli", "lightbox-cli", NULL);
    g_autofree char *src = g_build_filename (base, "b.bin", NULL);
    g_autofree char *path = g_build_filename (root, "b.bin", NULL);
    g_autoptr(GSubprocessLauncher) l = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                                                  | G_SUBPROCESS_FLAGS_STDERR_PIPE);
    g_autoptr(GSubprocess) p = NULL;
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    g_assert_true (g_file_set_contents (src, g_bytes_get_data (data, NULL), g_bytes_get_size (data), NULL));
    g_subprocess_launcher_setenv (l, "LIGHTBOX_PASSWORD", PASSWORD, TRUE);
    p = g_subprocess_launcher_spawn (l, &error, cli, "put", "--user", USER, src, url, NULL);
    g_assert_no_error (error);
    g_subprocess_communicate_utf8 (p, NULL, NULL, &out, &err, &error);
    g_assert_no_error (error);
    g_test_message ("lightbox-cli put: %s%s", out, err);
    g_assert_true (g_subprocess_get_if_exited (p));
    g_assert_cmpint (g_subprocess_get_exit_status (p), ==, 0);
    assert_file_is (path, data);
  }

  /* 3. A body from a file (a stream that seeks): read again from its start. */
  {
    g_autoptr(LbStore) store = lb_test_store_open (url, options);
    g_autofree char *src = g_build_filename (base, "d.bin", NULL);
    g_autoptr(GFile) file = g_file_new_for_path (src);
    g_autoptr(GFileInputStream) stream = NULL;
    g_autofree char *uri = g_strconcat (url, "d.bin", NULL);
    g_autofree char *path = g_build_filename (root, "d.bin", NULL);
    g_autoptr(LbStoreEntry) entry = NULL;

    g_assert_true (g_file_set_contents (src, g_bytes_get_data (data, NULL), g_bytes_get_size (data), NULL));
    stream = g_file_read (file, NULL, &error);
    g_assert_no_error (error);
    entry = write_stream (store, uri, G_INPUT_STREAM (stream), (gint64) g_bytes_get_size (data),
                          LB_STORE_WRITE_CREATE, &error);
    g_assert_no_error (error);
    assert_file_is (path, data);
  }

  /* 4. A body from a stream that cannot seek (a decompressor) is sent once: the 401 that asks
   *    for it again ends the upload with an error that says so, and nothing is stored. */
  {
    g_autoptr(LbStore) store = lb_test_store_open (url, options);
    g_autoptr(GBytes) packed = hostile_gzip_zeros (200000);
    g_autoptr(GInputStream) mem = g_memory_input_stream_new_from_bytes (packed);
    g_autoptr(GZlibDecompressor) gunzip = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
    g_autoptr(GInputStream) stream = g_converter_input_stream_new (mem, G_CONVERTER (gunzip));
    g_autofree char *uri = g_strconcat (url, "c.bin", NULL);
    g_autofree char *path = g_build_filename (root, "c.bin", NULL);
    g_autoptr(LbStoreEntry) entry = NULL;

    g_assert_false (G_IS_SEEKABLE (stream));
    entry = write_stream (store, uri, stream, 200000, LB_STORE_WRITE_CREATE, &error);
    g_assert_null (entry);
    g_assert_error (error, LB_ERROR, LB_ERROR_FAILED);
    g_test_message ("%s", error->message);
    g_assert_nonnull (strstr (error->message, "cannot be read twice"));
    g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
    g_clear_error (&error);
  }

  g_subprocess_send_signal (server, SIGTERM);
  g_subprocess_wait (server, NULL, NULL);
  lb_test_remove_tree (base);
}

/* ---------------------------------------------------------------------------------------- */
/* hostile servers                                                                           */

static const char multistatus_head[] =
  "<?xml version=\"1.0\" encoding=\"utf-8\"?><D:multistatus xmlns:D=\"DAV:\">";

/* A 207 listing of the folder @path with one file, "f.png". */
static gboolean
respond_multistatus (GOutputStream *out, const char *path)
{
  g_autofree char *xml = g_strdup_printf (
    "%s<D:response><D:href>%s</D:href><D:propstat><D:prop><D:resourcetype><D:collection/>"
    "</D:resourcetype></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>"
    "<D:response><D:href>%sf.png</D:href><D:propstat><D:prop><D:resourcetype/>"
    "<D:getcontentlength>4</D:getcontentlength></D:prop><D:status>HTTP/1.1 200 OK</D:status>"
    "</D:propstat></D:response></D:multistatus>", multistatus_head, path, path);

  return hostile_respond (out, 207, "Content-Type: application/xml; charset=utf-8\r\n", xml,
                          strlen (xml));
}

static gboolean
respond_options (GOutputStream *out)
{
  return hostile_respond (out, 200, "DAV: 1\r\nAllow: OPTIONS, GET, HEAD, PUT, PROPFIND\r\n",
                          NULL, 0);
}

static const char challenge[] = "WWW-Authenticate: Basic realm=\"hostile\"\r\n";

static gboolean
authorised (const HostileRequest *req)
{
  return g_hash_table_lookup (req->headers, "authorization") != NULL;
}

/* PUT: answered 401 until credentials come, then 201. PROPFIND on /retry/: 503 when it is
 * request number @data;
 * on /auth/: 401 without credentials; on /moved/: 307 to /here/. */
static gboolean
challenge_handler (HostileServer *server, const HostileRequest *req, GOutputStream *out,
                   gpointer data)
{
  if (g_str_equal (req->method, "OPTIONS"))
    return respond_options (out);
  if (g_str_equal (req->method, "PUT"))
    {
      if (!authorised (req))
        return hostile_respond (out, 401, challenge, "no", 2);
      return hostile_respond (out, 201, "ETag: \"1\"\r\n", NULL, 0);
    }
  if (g_str_equal (req->method, "PROPFIND"))
    {
      if (g_str_equal (req->path, "/retry/") && req->index == GPOINTER_TO_UINT (data))
        return hostile_respond (out, 503, "Retry-After: 0\r\n", NULL, 0);
      if (g_str_equal (req->path, "/auth/") && !authorised (req))
        return hostile_respond (out, 401, challenge, NULL, 0);
      if (g_str_equal (req->path, "/moved/"))
        return hostile_respond (out, 307, "Location: /here/\r\n", NULL, 0);
      return respond_multistatus (out, req->path);
    }
  return hostile_respond (out, 405, NULL, NULL, 0);
}

static void
test_challenge_put (void)
{
  g_autoptr(HostileServer) server = hostile_server_new (challenge_handler, NULL);
  g_autoptr(LbStoreOptions) options = basic_options ();
  g_autoptr(LbStore) store = lb_test_store_open (hostile_server_url (server), options);
  g_autoptr(GBytes) data = lb_test_bytes (100000, 3);
  g_autofree char *uri = g_strconcat (hostile_server_url (server), "x.bin", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStoreEntry) entry = write_bytes (store, uri, data, LB_STORE_WRITE_REPLACE, &error);
  g_autoptr(GPtrArray) puts = requests_with (server, "PUT");

  g_assert_no_error (error);
  g_assert_nonnull (entry);
  g_assert_cmpuint (puts->len, ==, 2);
  g_assert_false (authorised (puts->pdata[0]));
  g_assert_true (authorised (puts->pdata[1]));
  g_assert_true (bytes_equal (request_body (puts, 1), data));
  g_assert_cmpint (lb_store_entry_get_size (entry), ==, 100000);
}

static void
test_retried_propfind (void)
{
  const char *const folders[] = { "retry/", "auth/", "moved/" };

  for (guint i = 0; i < G_N_ELEMENTS (folders); i++)
    {
      /* the store is WebDAV by option (no detection): the first PROPFIND is request 0 */
      g_autoptr(HostileServer) server = hostile_server_new (challenge_handler, GUINT_TO_POINTER (0));
      g_autoptr(LbStoreOptions) options = basic_options ();
      g_autoptr(LbStore) store = NULL;
      g_autofree char *uri = g_strconcat (hostile_server_url (server), folders[i], NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) entries = NULL;
      g_autoptr(GPtrArray) finds = NULL;

      options->type = g_strdup ("webdav");
      options->max_retries = 2;
      store = lb_test_store_open (hostile_server_url (server), options);
      entries = lb_test_store_list (store, uri, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (entries->len, ==, 1);
      g_assert_nonnull (lb_test_store_find (entries, "f.png"));
      finds = requests_with (server, "PROPFIND");
      g_test_message ("%s: %u PROPFIND, bodies of %zu and %zu bytes", folders[i], finds->len,
                      g_bytes_get_size (request_body (finds, 0)),
                      g_bytes_get_size (request_body (finds, 1)));
      g_assert_cmpuint (finds->len, ==, 2);
      g_assert_cmpuint (g_bytes_get_size (request_body (finds, 0)), >, 0);
      g_assert_true (bytes_equal (request_body (finds, 0), request_body (finds, 1)));
    }
}

/* A PUT of drop.bin on a connection that served a request before is read whole and the
 * connection closed without an answer (a server's keep-alive timeout that struck just then).
 * libsoup sends the PUT again on a new connection. */
static gboolean
drop_handler (HostileServer *server, const HostileRequest *req, GOutputStream *out, gpointer data)
{
  if (g_str_equal (req->method, "OPTIONS"))
    return respond_options (out);
  if (g_str_equal (req->method, "PUT") && g_str_equal (req->path, "/drop.bin")
      && req->on_connection > 0)
    return FALSE;
  if (g_str_equal (req->method, "PUT"))
    return hostile_respond (out, 201, "ETag: \"2\"\r\n", NULL, 0);
  return hostile_respond (out, 405, NULL, NULL, 0);
}

static void
test_dropped_keepalive_put (void)
{
  g_autoptr(HostileServer) server = hostile_server_new (drop_handler, NULL);
  g_autoptr(LbStore) store = lb_test_store_open (hostile_server_url (server), NULL);
  g_autoptr(GBytes) data = lb_test_bytes (50000, 4);
  g_autofree char *first = g_strconcat (hostile_server_url (server), "first.bin", NULL);
  g_autofree char *uri = g_strconcat (hostile_server_url (server), "drop.bin", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStoreEntry) warmup = write_bytes (store, first, data, LB_STORE_WRITE_REPLACE, &error);
  g_autoptr(LbStoreEntry) entry = NULL;
  g_autoptr(GPtrArray) puts = NULL;

  g_assert_no_error (error);
  entry = write_bytes (store, uri, data, LB_STORE_WRITE_REPLACE, &error);
  puts = requests_with (server, "PUT");
  for (guint i = 0; i < puts->len; i++)
    g_test_message ("PUT %u on connection %u: %zu bytes", i,
                    ((HostileRequest *) puts->pdata[i])->connection,
                    g_bytes_get_size (request_body (puts, i)));
  g_assert_no_error (error);
  g_assert_nonnull (entry);
  g_assert_cmpuint (puts->len, ==, 3);
  g_assert_cmpuint (((HostileRequest *) puts->pdata[1])->on_connection, >, 0);
  g_assert_true (bytes_equal (request_body (puts, 1), data));
  g_assert_true (bytes_equal (request_body (puts, 2), data));
}

static gboolean
see_other_handler (HostileServer *server, const HostileRequest *req, GOutputStream *out,
                   gpointer data)
{
  if (g_str_equal (req->method, "OPTIONS"))
    return respond_options (out);
  if (g_str_equal (req->method, "PUT"))
    return hostile_respond (out, 303, "Location: /elsewhere\r\n", NULL, 0);
  return hostile_respond (out, 200, "Content-Type: text/plain\r\n", "a page", 6);
}

static void
test_see_other_put (void)
{
  g_autoptr(HostileServer) server = hostile_server_new (see_other_handler, NULL);
  g_autoptr(LbStore) store = lb_test_store_open (hostile_server_url (server), NULL);
  g_autoptr(GBytes) data = lb_test_bytes (1000, 5);
  g_autofree char *uri = g_strconcat (hostile_server_url (server), "z.bin", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStoreEntry) entry = write_bytes (store, uri, data, LB_STORE_WRITE_REPLACE, &error);
  g_autoptr(GPtrArray) gets = requests_with (server, "GET");

  g_assert_null (entry);
  g_assert_error (error, LB_ERROR, LB_ERROR_HTTP);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "303"));
  g_assert_cmpuint (gets->len, ==, 0);
}

/* ---------------------------------------------------------------------------------------- */
/* STOW-RS                                                                                   */

#define STUDY "1.2.826.0.1.3680043.2.1125.1"
#define SOP "1.2.826.0.1.3680043.2.1125.1.1.1"

static gboolean
stow_handler (HostileServer *server, const HostileRequest *req, GOutputStream *out, gpointer data)
{
  static const char stored[] =
    "{\"00081199\":{\"vr\":\"SQ\",\"Value\":[{\"00081155\":{\"vr\":\"UI\",\"Value\":[\"" SOP "\"]},"
    "\"00081190\":{\"vr\":\"UR\",\"Value\":[\"http://127.0.0.1/studies/" STUDY
    "/series/1.2.3/instances/" SOP "\"]}}]}}";

  if (g_str_equal (req->method, "GET"))
    return hostile_respond (out, 200, "Content-Type: application/dicom+json\r\n", "[]", 2);
  if (g_str_equal (req->method, "POST"))
    {
      if (!authorised (req))
        return hostile_respond (out, 401, challenge, NULL, 0);
      return hostile_respond (out, 200, "Content-Type: application/dicom+json\r\n", stored,
                              strlen (stored));
    }
  return hostile_respond (out, 405, NULL, NULL, 0);
}

static void
test_challenge_stow (void)
{
  g_autoptr(HostileServer) server = hostile_server_new (stow_handler, NULL);
  g_autoptr(LbStoreOptions) options = basic_options ();
  g_autofree char *base = g_strconcat ("dicomweb+", hostile_server_url (server), "dicom-web", NULL);
  g_autoptr(LbStore) store = lb_test_store_open (base, options);
  g_autofree char *study = g_strconcat (base, "/studies/" STUDY "/", NULL);
  g_autoptr(GBytes) file = hostile_part10 (SOP, 20000);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStoreEntry) entry = NULL;
  g_autoptr(GPtrArray) posts = NULL;

  lb_store_write_bytes_async (store, study, file, "application/dicom", LB_STORE_WRITE_CREATE,
                              NULL, NULL, NULL, NULL, lb_test_keep_result, &result);
  entry = lb_store_write_finish (store, lb_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_nonnull (entry);
  posts = requests_with (server, "POST");
  g_assert_cmpuint (posts->len, ==, 2);
  g_assert_cmpuint (g_bytes_get_size (request_body (posts, 0)), >, g_bytes_get_size (file));
  g_assert_true (bytes_equal (request_body (posts, 0), request_body (posts, 1)));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/client-bodies/basic-put-store", test_basic_put_store);
  g_test_add_func ("/client-bodies/challenge-put", test_challenge_put);
  g_test_add_func ("/client-bodies/dropped-keepalive-put", test_dropped_keepalive_put);
  g_test_add_func ("/client-bodies/retried-propfind", test_retried_propfind);
  g_test_add_func ("/client-bodies/see-other-put", test_see_other_put);
  g_test_add_func ("/client-bodies/challenge-stow", test_challenge_stow);
  return g_test_run ();
}
