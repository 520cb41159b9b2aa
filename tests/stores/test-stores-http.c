/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Integration tests against real servers on 127.0.0.1 started by tests/stores/servers.sh:
 * nginx (HTML, JSON autoindex, WebDAV, TLS), Apache mod_dav (+ Basic auth), python http.server. */
#define G_LOG_DOMAIN "test-stores-http"

#include <signal.h>
#include <string.h>
#include <sys/types.h>
#include <glib/gstdio.h>

#include "lb-error.h"
#include "lb-png.h"
#include "lb-test-files.h"
#include "lb-test-loop.h"
#include "lb-test-stores.h"

typedef struct {
  const char *name;
  const char *url_env;
  const char *www;          /* document root under LB_STORES_RUNDIR */
  const char *backend;      /* expected after detection */
  gboolean    writable;
  gboolean    exact_sizes;  /* listing gives byte sizes */
  gboolean    enforces;     /* honours If-None-Match / If-Match */
} Server;

static const Server servers[] = {
  { "nginx-html", "LB_NGINX_HTML_URL", "www-nginx", "listing", FALSE, TRUE, FALSE },
  { "nginx-json", "LB_NGINX_JSON_URL", "www-nginx", "listing", FALSE, TRUE, FALSE },
  { "nginx-dav", "LB_NGINX_DAV_URL", "www-nginx", "webdav", TRUE, TRUE, FALSE },
  { "apache", "LB_APACHE_URL", "www-apache", "webdav", TRUE, TRUE, TRUE },
  { "python", "LB_PYTHON_URL", "www-py", "listing", FALSE, FALSE, FALSE },
  { "lightbox-store", "LB_LIGHTBOX_STORE_URL", "www-lbs", "webdav", TRUE, TRUE, TRUE },
};

static char *
disk_path (const Server *s, const char *relative)
{
  return g_build_filename (lb_test_getenv ("LB_STORES_RUNDIR"), s->www, relative, NULL);
}

static LbStoreEntry *
entry_at (LbStore *store, const char *dir_uri, const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) entries = lb_test_store_list (store, dir_uri, &error);
  LbStoreEntry *e;

  g_assert_no_error (error);
  e = lb_test_store_find (entries, name);
  return e != NULL ? g_object_ref (e) : NULL;
}

static void
test_round_trip (gconstpointer data)
{
  const Server *s = data;
  g_autoptr(LbStore) store = lb_test_store_open (lb_test_getenv (s->url_env), NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) root = lb_test_store_list (store, NULL, &error);
  LbStoreEntry *ct, *space, *unicode;
  g_autoptr(GPtrArray) ct_entries = NULL;
  LbStoreEntry *png16;
  const char *files[] = { "With Space/mr small #1.png", "Ünïcödé/bild&50%.png", "CT/CT_small.dcm" };

  g_assert_no_error (error);
  g_assert_cmpstr (lb_store_get_backend_name (store), ==, s->backend);
  ct = lb_test_store_find (root, "CT");
  space = lb_test_store_find (root, "With Space");
  unicode = lb_test_store_find (root, "Ünïcödé");
  g_assert_nonnull (ct);
  g_assert_nonnull (space);
  g_assert_nonnull (unicode);
  g_assert_true (lb_store_entry_is_container (ct));
  g_assert_null (lb_test_store_find (root, ".."));
  for (guint i = 0; i < root->len; i++)
    g_assert_true (g_str_has_prefix (lb_store_entry_get_uri (root->pdata[i]), lb_store_get_uri (store)));

  /* browse one level down, sizes where the listing has them */
  ct_entries = lb_test_store_list (store, lb_store_entry_get_uri (ct), &error);
  g_assert_no_error (error);
  png16 = lb_test_store_find (ct_entries, "CT_small_16.png");
  g_assert_nonnull (png16);
  g_assert_cmpint (lb_store_entry_get_kind (png16), ==, LB_STORE_ENTRY_IMAGE);
  g_assert_cmpint (lb_store_entry_get_kind (lb_test_store_find (ct_entries, "CT_small.dcm")), ==,
                   LB_STORE_ENTRY_DICOM_FILE);
  if (s->exact_sizes)
    {
      g_autofree char *path = disk_path (s, "CT/CT_small_16.png");
      GStatBuf st;
      g_assert_cmpint (g_stat (path, &st), ==, 0);
      g_assert_cmpint (lb_store_entry_get_size (png16), ==, st.st_size);
    }

  /* download and compare checksums with the files on the server's disk */
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_auto(GStrv) parts = g_strsplit (files[i], "/", 2);
      g_autoptr(LbStoreEntry) dir = entry_at (store, NULL, parts[0]);
      g_autoptr(LbStoreEntry) file = NULL;
      g_autoptr(LbStoreEntry) info = NULL;
      g_autoptr(GBytes) body = NULL;
      g_autofree char *path = disk_path (s, files[i]);
      g_autofree char *want = lb_test_sha256_file (path);
      g_autofree char *got = NULL;

      g_assert_nonnull (dir);
      file = entry_at (store, lb_store_entry_get_uri (dir), parts[1]);
      g_assert_nonnull (file);
      body = lb_test_store_read_all (store, lb_store_entry_get_uri (file), &info, &error);
      g_assert_no_error (error);
      got = g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, body);
      g_assert_cmpstr (got, ==, want);
      g_assert_cmpint (lb_store_entry_get_size (info), ==, g_bytes_get_size (body));
    }

  /* decode an image straight from the store */
  {
    g_autoptr(LbStoreEntry) info = NULL;
    g_autoptr(LbImage) image = lb_store_fetch_image_sync (lb_store_entry_get_uri (png16), NULL,
                                                          NULL, &info, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (lb_image_get_width (image), ==, 128);
    g_assert_cmpuint (lb_image_get_height (image), ==, 128);
    g_assert_cmpint (lb_image_get_format (image), ==, LB_FORMAT_GRAY16);
    g_assert_cmpstr (lb_image_meta_get_source_uri (lb_image_get_meta (image)), ==,
                     lb_store_entry_get_uri (png16));
  }

  if (!s->writable)
    {
      /* a read-only listing refuses uploads with an error and creates nothing */
      g_autoptr(GAsyncResult) result = NULL;
      g_autoptr(GBytes) bytes = g_bytes_new_static ("nope", 4);
      g_autofree char *uri = lb_store_uri_child (lb_store_get_uri (store), "refused.txt", FALSE);
      g_autofree char *path = disk_path (s, "refused.txt");
      g_autoptr(LbStoreEntry) written = NULL;

      lb_store_write_bytes_async (store, uri, bytes, "text/plain", LB_STORE_WRITE_CREATE, NULL, NULL,
                                  NULL, NULL, lb_test_keep_result, &result);
      written = lb_store_write_finish (store, lb_test_wait_result (&result), &error);
      g_assert_null (written);
      g_assert_nonnull (error);
      g_assert_true (error->domain == LB_ERROR);
      g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
      return;
    }

  /* write-back: derived names, numbered when taken, provenance, verification */
  {
    g_autoptr(LbImage) image = lb_store_fetch_image_sync (lb_store_entry_get_uri (png16), NULL,
                                                          NULL, NULL, NULL, &error);
    LbWriteBackOptions wb = { "test", "invert()\nlb-invert 1.0", FALSE, NULL, 0 };
    g_autoptr(LbWriteBackResult) first = NULL;
    g_autoptr(LbWriteBackResult) second = NULL;
    g_autoptr(GPtrArray) after = NULL;
    g_autoptr(LbImage) back = NULL;
    const LbImageMeta *meta;

    g_assert_no_error (error);
    {
      g_autoptr(GAsyncResult) result = NULL;
      lb_write_back_async (store, lb_store_entry_get_uri (png16), image, &wb, NULL, NULL, NULL,
                           lb_test_keep_result, &result);
      first = lb_write_back_finish (store, lb_test_wait_result (&result), &error);
      g_assert_no_error (error);
    }
    {
      g_autoptr(GAsyncResult) result = NULL;
      lb_write_back_async (store, lb_store_entry_get_uri (png16), image, &wb, NULL, NULL, NULL,
                           lb_test_keep_result, &result);
      second = lb_write_back_finish (store, lb_test_wait_result (&result), &error);
      g_assert_no_error (error);
    }
    g_test_message ("%s: %s", s->name, first->message);
    g_assert_true (g_str_has_suffix (first->uri, "/CT/CT_small_16.test.png"));
    g_assert_true (g_str_has_suffix (second->uri, "/CT/CT_small_16.test-2.png"));
    g_assert_true (first->verified);
    g_assert_cmpint (first->verified_size, ==, first->size);
    g_assert_false (first->overwrote);
    g_assert_cmpint (first->guarantee, ==, s->enforces ? LB_WRITE_BACK_SERVER_ENFORCED
                                                       : LB_WRITE_BACK_CLIENT_CHECKED);
    g_assert_nonnull (strstr (first->message, s->enforces ? "enforced" : "cannot guarantee"));

    /* re-list: both there, with the sizes sent */
    after = lb_test_store_list (store, lb_store_entry_get_uri (ct), &error);
    g_assert_no_error (error);
    g_assert_cmpint (lb_store_entry_get_size (lb_test_store_find (after, "CT_small_16.test.png")), ==, first->size);
    g_assert_nonnull (lb_test_store_find (after, "CT_small_16.test-2.png"));
    /* the source is untouched */
    {
      g_autofree char *path = disk_path (s, "CT/CT_small_16.png");
      g_autofree char *seed = g_build_filename (lb_test_getenv ("LB_SEED_DIR"), "CT/CT_small_16.png", NULL);
      g_autofree char *a = lb_test_sha256_file (path);
      g_autofree char *b = lb_test_sha256_file (seed);
      g_assert_cmpstr (a, ==, b);
    }

    /* what landed on disk decodes to the same pixels and carries provenance */
    {
      g_autofree char *path = disk_path (s, "CT/CT_small_16.test.png");
      g_autoptr(GBytes) stored = NULL;
      g_autofree char *contents = NULL;
      gsize len;

      g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
      g_assert_cmpint (len, ==, first->size);
      stored = g_bytes_new_take (g_steal_pointer (&contents), len);
      back = lb_png_load_bytes (stored, path, NULL, &error);
      g_assert_no_error (error);
    }
    g_assert_true (lb_image_equal_pixels (back, image));
    meta = lb_image_get_meta (back);
    g_assert_cmpstr (lb_image_meta_get_text (meta, "Source"), ==, lb_store_entry_get_uri (png16));
    g_assert_cmpstr (lb_image_meta_get_text (meta, "lightbox:filter-chain"), ==, "invert()\nlb-invert 1.0");
    g_assert_true (g_str_has_prefix (lb_image_meta_get_text (meta, "Software"), "Lightbox "));
    g_assert_nonnull (lb_image_meta_get_text (meta, "Creation Time"));
    if (lb_image_meta_get_source_etag (lb_image_get_meta (image)) != NULL)
      g_assert_cmpstr (lb_image_meta_get_text (meta, "lightbox:source-etag"), ==,
                       lb_image_meta_get_source_etag (lb_image_get_meta (image)));
  }

  /* mkdir, twice */
  {
    g_autofree char *uri = lb_store_uri_child (lb_store_get_uri (store), "made by test", TRUE);
    g_autoptr(GAsyncResult) r1 = NULL;
    g_autoptr(GAsyncResult) r2 = NULL;
    g_autoptr(LbStoreEntry) made = NULL;
    g_autoptr(LbStoreEntry) again = NULL;
    g_autofree char *path = disk_path (s, "made by test");

    lb_store_mkdir_async (store, uri, NULL, lb_test_keep_result, &r1);
    made = lb_store_mkdir_finish (store, lb_test_wait_result (&r1), &error);
    g_assert_no_error (error);
    g_assert_true (g_file_test (path, G_FILE_TEST_IS_DIR));
    lb_store_mkdir_async (store, uri, NULL, lb_test_keep_result, &r2);
    again = lb_store_mkdir_finish (store, lb_test_wait_result (&r2), &error);
    g_assert_null (again);
    g_assert_error (error, LB_ERROR, LB_ERROR_CONFLICT);
  }
}

/* Apache honours conditional PUTs: 412 becomes a conflict and nothing changes. */
static void
test_apache_412 (void)
{
  const Server *s = &servers[3];
  g_autoptr(LbStore) store = lb_test_store_open (lb_test_getenv ("LB_APACHE_URL"), NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *uri = g_strconcat (lb_store_get_uri (store), "CT/CT_small_8.png", NULL);
  g_autofree char *path = disk_path (s, "CT/CT_small_8.png");
  g_autofree char *before = lb_test_sha256_file (path);
  g_autoptr(GBytes) bytes = g_bytes_new_static ("replacement", 11);
  g_autoptr(LbStoreEntry) current = lb_store_stat_sync (store, uri, NULL, &error);
  const LbStoreWriteMode modes[] = { LB_STORE_WRITE_CREATE, LB_STORE_WRITE_IF_MATCH };

  g_assert_no_error (error);
  g_assert_nonnull (lb_store_entry_get_etag (current));
  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      g_autoptr(GAsyncResult) result = NULL;
      g_autoptr(LbStoreEntry) written = NULL;
      g_autofree char *after = NULL;

      lb_store_write_bytes_async (store, uri, bytes, "image/png", modes[i], "\"not-the-etag\"", NULL,
                                  NULL, NULL, lb_test_keep_result, &result);
      written = lb_store_write_finish (store, lb_test_wait_result (&result), &error);
      g_assert_null (written);
      g_assert_error (error, LB_ERROR, LB_ERROR_CONFLICT);
      g_assert_nonnull (strstr (error->message, "412"));
      g_assert_nonnull (strstr (error->message, uri));
      g_clear_error (&error);
      after = lb_test_sha256_file (path);
      g_assert_cmpstr (after, ==, before);
    }
  g_assert_true (lb_store_get_capabilities (store) & LB_STORE_CONDITIONAL_WRITES);

  /* with the right ETag the overwrite goes through; the old ETag is then stale */
  {
    g_autoptr(GAsyncResult) r1 = NULL;
    g_autoptr(GAsyncResult) r2 = NULL;
    g_autoptr(LbWriteBackResult) ok = NULL;
    g_autoptr(LbWriteBackResult) stale = NULL;

    lb_store_put_bytes_safely_async (store, uri, bytes, "image/png", LB_STORE_WRITE_IF_MATCH,
                                     lb_store_entry_get_etag (current), NULL, NULL, NULL,
                                     lb_test_keep_result, &r1);
    ok = lb_store_put_bytes_safely_finish (store, lb_test_wait_result (&r1), &error);
    g_assert_no_error (error);
    g_assert_true (ok->verified);
    g_assert_true (ok->overwrote);
    g_assert_cmpstr (ok->etag, !=, lb_store_entry_get_etag (current));

    lb_store_put_bytes_safely_async (store, uri, bytes, "image/png", LB_STORE_WRITE_IF_MATCH,
                                     lb_store_entry_get_etag (current), NULL, NULL, NULL,
                                     lb_test_keep_result, &r2);
    stale = lb_store_put_bytes_safely_finish (store, lb_test_wait_result (&r2), &error);
    g_assert_null (stale);
    g_assert_error (error, LB_ERROR, LB_ERROR_CONFLICT);
    g_assert_nonnull (strstr (error->message, "changed since it was read"));
  }
}

/* nginx ignores If-None-Match on PUT: the HEAD check must keep files safe, and a raw
 * conditional write shows the server replaced the file (so the store stops claiming
 * enforcement). */
static void
test_nginx_no_overwrite (void)
{
  const Server *s = &servers[2];
  g_autoptr(LbStore) store = lb_test_store_open (lb_test_getenv ("LB_NGINX_DAV_URL"), NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *uri = g_strconcat (lb_store_get_uri (store), "upload/victim.txt", NULL);
  g_autofree char *path = disk_path (s, "upload/victim.txt");
  g_autoptr(GBytes) original = g_bytes_new_static ("original\n", 9);
  g_autoptr(GBytes) other = g_bytes_new_static ("other content\n", 14);
  g_autofree char *contents = NULL;

  {
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(LbWriteBackResult) res = NULL;
    lb_store_put_bytes_safely_async (store, uri, original, "text/plain", LB_STORE_WRITE_CREATE,
                                     NULL, NULL, NULL, NULL, lb_test_keep_result, &result);
    res = lb_store_put_bytes_safely_finish (store, lb_test_wait_result (&result), &error);
    g_assert_no_error (error);
    g_assert_true (res->verified);
    g_assert_cmpint (res->guarantee, ==, LB_WRITE_BACK_CLIENT_CHECKED);
  }
  {
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(LbWriteBackResult) res = NULL;
    lb_store_put_bytes_safely_async (store, uri, other, "text/plain", LB_STORE_WRITE_CREATE,
                                     NULL, NULL, NULL, NULL, lb_test_keep_result, &result);
    res = lb_store_put_bytes_safely_finish (store, lb_test_wait_result (&result), &error);
    g_assert_null (res);
    g_assert_error (error, LB_ERROR, LB_ERROR_CONFLICT);
    g_clear_error (&error);
  }
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "original\n");

  /* overwrite with a stale ETag is refused before anything is sent */
  {
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(LbWriteBackResult) res = NULL;
    g_autofree char *now = NULL;
    lb_store_put_bytes_safely_async (store, uri, other, "text/plain", LB_STORE_WRITE_IF_MATCH,
                                     "\"0-stale\"", NULL, NULL, NULL, lb_test_keep_result, &result);
    res = lb_store_put_bytes_safely_finish (store, lb_test_wait_result (&result), &error);
    g_assert_null (res);
    g_assert_error (error, LB_ERROR, LB_ERROR_CONFLICT);
    g_clear_error (&error);
    g_assert_true (g_file_get_contents (path, &now, NULL, NULL));
    g_assert_cmpstr (now, ==, "original\n");
  }

  /* what nginx does with a bare conditional PUT: it replaces (204), and we notice */
  {
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(LbStoreEntry) written = NULL;
    lb_store_write_bytes_async (store, uri, other, "text/plain", LB_STORE_WRITE_CREATE, NULL, NULL,
                                NULL, NULL, lb_test_keep_result, &result);
    written = lb_store_write_finish (store, lb_test_wait_result (&result), &error);
    g_assert_no_error (error);
    g_assert_cmpstr (lb_store_entry_get_attribute (written, "lb:replaced-existing"), ==, "true");
    g_assert_false (lb_store_get_capabilities (store) & LB_STORE_CONDITIONAL_WRITES);
  }
}

typedef struct {
  guint  calls;
  guint  retrying_calls;
  char  *realm;
  const char *answers[4]; /* password per call; NULL → cancel */
} AuthState;

typedef struct {
  LbCredentialsRequest *request;
  const char           *password;
} Pending;

static gboolean
deliver_answer (gpointer data)
{
  Pending *pending = data;

  if (pending->password != NULL)
    lb_credentials_request_set_password (pending->request, lb_test_getenv ("LB_AUTH_USER"),
                                         pending->password);
  else
    lb_credentials_request_cancel (pending->request);
  lb_credentials_request_unref (pending->request);
  g_free (pending);
  return G_SOURCE_REMOVE;
}

/* Answers from an idle callback, as a dialog would: asynchronously. */
static void
ask_credentials (LbCredentialsRequest *request, gpointer user_data)
{
  AuthState *state = user_data;
  Pending *pending = g_new0 (Pending, 1);

  if (lb_credentials_request_is_retrying (request))
    state->retrying_calls++;
  g_free (state->realm);
  state->realm = g_strdup (lb_credentials_request_get_realm (request));
  pending->request = lb_credentials_request_ref (request);
  pending->password = state->calls < G_N_ELEMENTS (state->answers) ? state->answers[state->calls] : NULL;
  state->calls++;
  g_idle_add (deliver_answer, pending);
}

static void
test_apache_auth (void)
{
  g_autofree char *url = g_strconcat (lb_test_getenv ("LB_APACHE_URL"), "private/", NULL);
  g_autoptr(GError) error = NULL;

  /* no credentials: 401 → permission error naming the URL */
  {
    g_autoptr(LbStore) store = lb_test_store_open (url, NULL);
    g_autoptr(GPtrArray) entries = lb_test_store_list (store, NULL, &error);
    g_assert_null (entries);
    g_assert_error (error, LB_ERROR, LB_ERROR_PERMISSION);
    g_assert_nonnull (strstr (error->message, "401"));
    g_assert_nonnull (strstr (error->message, url));
    g_clear_error (&error);
  }
  /* the callback answers wrong, then right: success, and it was told it is a retry */
  {
    g_autoptr(LbStoreOptions) options = lb_store_options_new ();
    AuthState state = { 0, 0, NULL, { "wrong", lb_test_getenv ("LB_AUTH_PASSWORD"), NULL, NULL } };
    g_autoptr(LbStore) store = NULL;
    g_autoptr(GPtrArray) entries = NULL;
    g_autoptr(GBytes) body = NULL;

    lb_store_options_set_credentials_func (options, ask_credentials, &state, NULL);
    store = lb_test_store_open (url, options);
    entries = lb_test_store_list (store, NULL, &error);
    g_assert_no_error (error);
    g_assert_nonnull (lb_test_store_find (entries, "secret.png"));
    g_assert_cmpuint (state.calls, ==, 2);
    g_assert_cmpuint (state.retrying_calls, ==, 1);
    g_assert_cmpstr (state.realm, ==, "Lightbox test store");
    /* the session keeps the credentials for the rest of the store */
    body = lb_test_store_read_all (store, lb_store_entry_get_uri (lb_test_store_find (entries, "secret.png")), NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (g_bytes_get_size (body), >, 0);
    g_free (state.realm);
  }
  /* the user cancels the dialog */
  {
    g_autoptr(LbStoreOptions) options = lb_store_options_new ();
    AuthState state = { 0, 0, NULL, { NULL } };
    g_autoptr(LbStore) store = NULL;
    g_autoptr(GPtrArray) entries = NULL;

    lb_store_options_set_credentials_func (options, ask_credentials, &state, NULL);
    store = lb_test_store_open (url, options);
    entries = lb_test_store_list (store, NULL, &error);
    g_assert_null (entries);
    g_assert_error (error, LB_ERROR, LB_ERROR_PERMISSION);
    g_assert_cmpuint (state.calls, ==, 1);
    g_clear_error (&error);
    g_free (state.realm);
  }
  /* static credentials in the options */
  {
    g_autoptr(LbStoreOptions) options = lb_store_options_new ();
    g_autoptr(LbStore) store = NULL;
    g_autoptr(GPtrArray) entries = NULL;

    options->username = g_strdup (lb_test_getenv ("LB_AUTH_USER"));
    options->password = g_strdup (lb_test_getenv ("LB_AUTH_PASSWORD"));
    store = lb_test_store_open (url, options);
    entries = lb_test_store_list (store, NULL, &error);
    g_assert_no_error (error);
    g_assert_nonnull (lb_test_store_find (entries, "secret.png"));
  }
}

/* Lists @url through a store that trusts @ca_file or pins @pinned_cert_file (either NULL). */
static GPtrArray *
tls_list (const char *url, const char *ca_file, const char *pinned_cert_file, GError **error)
{
  g_autoptr(LbStoreOptions) options = lb_store_options_new ();
  g_autoptr(LbStore) store = NULL;

  options->ca_file = g_strdup (ca_file);
  options->pinned_cert_file = g_strdup (pinned_cert_file);
  store = lb_test_store_open (url, options);
  return lb_test_store_list (store, NULL, error);
}

static void
test_tls (void)
{
  const char *url = lb_test_getenv ("LB_NGINX_TLS_URL");
  g_autoptr(GError) error = NULL;

  {
    g_autoptr(LbStore) store = lb_test_store_open (url, NULL);
    g_autoptr(GPtrArray) entries = lb_test_store_list (store, NULL, &error);
    g_assert_null (entries);
    g_assert_error (error, LB_ERROR, LB_ERROR_NETWORK);
    g_assert_nonnull (strstr (error->message, "TLS"));
    g_clear_error (&error);
  }
  {
    g_autoptr(GPtrArray) entries = tls_list (url, lb_test_getenv ("LB_TLS_CERT"), NULL, &error);
    g_assert_no_error (error);
    g_assert_nonnull (lb_test_store_find (entries, "CT"));
  }
  {
    g_autoptr(GPtrArray) entries = tls_list (url, NULL, lb_test_getenv ("LB_TLS_CERT"), &error);
    g_assert_no_error (error);
    g_assert_nonnull (lb_test_store_find (entries, "CT"));
  }
  {
    g_autoptr(GPtrArray) entries = tls_list (url, NULL, lb_test_getenv ("LB_TLS_OTHER_CERT"), &error);
    g_assert_null (entries);
    g_assert_error (error, LB_ERROR, LB_ERROR_NETWORK);
  }
}

static void
test_kill_mid_download (void)
{
  const char *url = lb_test_getenv ("LB_VICTIM_GET_URL");
  pid_t pid = (pid_t) g_ascii_strtoll (lb_test_getenv ("LB_VICTIM_GET_PID"), NULL, 10);
  g_autoptr(LbStore) store = lb_test_store_open (url, NULL);
  g_autofree char *uri = g_strconcat (url, "big.bin", NULL);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(LbStoreEntry) info = NULL;
  g_autoptr(GError) error = NULL;
  gint64 total = 0;
  gboolean killed = FALSE;

  lb_store_read_async (store, uri, NULL, NULL, NULL, lb_test_keep_result, &result);
  stream = lb_store_read_finish (store, lb_test_wait_result (&result), &info, &error);
  g_assert_no_error (error);
  g_assert_cmpint (lb_store_entry_get_size (info), ==, 48 * 1024 * 1024);
  for (;;)
    {
      g_autoptr(GAsyncResult) r = NULL;
      g_autoptr(GBytes) chunk = NULL;

      g_input_stream_read_bytes_async (stream, 65536, G_PRIORITY_DEFAULT, NULL, lb_test_keep_result, &r);
      chunk = g_input_stream_read_bytes_finish (stream, lb_test_wait_result (&r), &error);
      if (chunk == NULL)
        break;
      g_assert_cmpuint (g_bytes_get_size (chunk), >, 0); /* a clean EOF would be a failure */
      total += g_bytes_get_size (chunk);
      if (!killed)
        {
          g_assert_cmpint (kill (pid, SIGKILL), ==, 0);
          killed = TRUE;
        }
    }
  g_test_message ("read %" G_GINT64_FORMAT " of %d bytes before: %s", total, 48 << 20, error->message);
  g_assert_true (killed);
  g_assert_cmpint (total, <, 48 * 1024 * 1024);
  g_assert_error (error, LB_ERROR, LB_ERROR_TRUNCATED);
  g_assert_nonnull (strstr (error->message, uri));
  g_clear_error (&error);

  /* and a download to a file now fails without leaving anything behind */
  {
    g_autofree char *dir = lb_test_make_tmpdir ("get");
    g_autofree char *path = g_build_filename (dir, "big.bin", NULL);
    g_autoptr(LbStoreOptions) options = lb_store_options_new ();
    g_autoptr(LbStoreEntry) got = NULL;

    options->max_retries = 1;
    got = lb_store_download_sync (uri, path, options, NULL, &error);
    g_assert_null (got);
    g_assert_error (error, LB_ERROR, LB_ERROR_NETWORK);
    /* no partial file, no temporary file */
    g_assert_cmpuint (lb_test_count_entries (dir), ==, 0);
    g_rmdir (dir);
  }
}

typedef struct {
  pid_t    pid;
  gboolean killed;
  goffset  at;
} KillState;

static void
kill_on_progress (goffset current, goffset total, gpointer user_data)
{
  KillState *state = user_data;

  if (!state->killed && current >= 1024 * 1024)
    {
      g_assert_cmpint (kill (state->pid, SIGKILL), ==, 0);
      state->killed = TRUE;
      state->at = current;
    }
}

static void
test_kill_mid_upload (void)
{
  const char *url = lb_test_getenv ("LB_VICTIM_PUT_URL");
  KillState state = { (pid_t) g_ascii_strtoll (lb_test_getenv ("LB_VICTIM_PUT_PID"), NULL, 10), FALSE, 0 };
  g_autoptr(LbStore) store = lb_test_store_open (url, NULL);
  g_autofree char *uri = g_strconcat (url, "upload/new.bin", NULL);
  g_autofree char *path = g_build_filename (lb_test_getenv ("LB_STORES_RUNDIR"), "victim/upload/new.bin", NULL);
  gsize size = 48 * 1024 * 1024;
  g_autoptr(GBytes) bytes = g_bytes_new_take (g_malloc0 (size), size);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(LbWriteBackResult) res = NULL;
  g_autoptr(GError) error = NULL;

  lb_store_put_bytes_safely_async (store, uri, bytes, "application/octet-stream",
                                   LB_STORE_WRITE_CREATE, NULL, NULL, kill_on_progress, &state,
                                   lb_test_keep_result, &result);
  res = lb_store_put_bytes_safely_finish (store, lb_test_wait_result (&result), &error);
  g_test_message ("killed after %" G_GOFFSET_FORMAT " bytes: %s", state.at,
                  error != NULL ? error->message : "no error");
  g_assert_true (state.killed);
  g_assert_null (res);
  g_assert_error (error, LB_ERROR, LB_ERROR_NETWORK);
  g_assert_nonnull (strstr (error->message, uri));
  /* nginx spools the body and never created the target */
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (servers); i++)
    {
      g_autofree char *path = g_strdup_printf ("/stores/round-trip/%s", servers[i].name);
      g_test_add_data_func (path, &servers[i], test_round_trip);
    }
  g_test_add_func ("/stores/conflict/apache-412", test_apache_412);
  g_test_add_func ("/stores/conflict/nginx-no-overwrite", test_nginx_no_overwrite);
  g_test_add_func ("/stores/auth/apache-basic", test_apache_auth);
  g_test_add_func ("/stores/tls/self-signed", test_tls);
  g_test_add_func ("/stores/kill/mid-download", test_kill_mid_download);
  g_test_add_func ("/stores/kill/mid-upload", test_kill_mid_upload);
  return g_test_run ();
}
