/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-store"

#include "lb-store.h"

#include <string.h>

#include "lb-error.h"
#include "lb-http-store.h"
#include "lb-local-store.h"
#include "lb-store-private.h"

G_DEFINE_INTERFACE (LbStore, lb_store, G_TYPE_OBJECT)

static void
lb_store_default_init (LbStoreInterface *iface)
{
}

/* ---- credentials request ------------------------------------------------------------------ */

struct _LbCredentialsRequest {
  gatomicrefcount          ref_count;
  char                    *scheme;
  char                    *realm;
  char                    *uri;
  gboolean                 retrying;
  gboolean                 answered;
  LbCredentialsAnswerFunc  answer;
  gpointer                 answer_data;
  GDestroyNotify           answer_destroy;
};

G_DEFINE_BOXED_TYPE (LbCredentialsRequest, lb_credentials_request,
                     lb_credentials_request_ref, lb_credentials_request_unref)

LbCredentialsRequest *
lb_credentials_request_new (const char *scheme, const char *realm, const char *uri,
                            gboolean retrying, LbCredentialsAnswerFunc answer,
                            gpointer answer_data, GDestroyNotify answer_destroy)
{
  LbCredentialsRequest *request = g_new0 (LbCredentialsRequest, 1);

  g_atomic_ref_count_init (&request->ref_count);
  request->scheme = g_strdup (scheme != NULL ? scheme : "");
  request->realm = g_strdup (realm != NULL ? realm : "");
  request->uri = g_strdup (uri != NULL ? uri : "");
  request->retrying = retrying;
  request->answer = answer;
  request->answer_data = answer_data;
  request->answer_destroy = answer_destroy;
  return request;
}

LbCredentialsRequest *
lb_credentials_request_ref (LbCredentialsRequest *request)
{
  g_return_val_if_fail (request != NULL, NULL);
  g_atomic_ref_count_inc (&request->ref_count);
  return request;
}

static void
answer_once (LbCredentialsRequest *request, const char *username, const char *password,
             const char *token)
{
  if (request->answered)
    {
      g_warning ("credentials request for %s answered twice", request->uri);
      return;
    }
  request->answered = TRUE;
  if (request->answer != NULL)
    request->answer (username, password, token, request->answer_data);
}

void
lb_credentials_request_unref (LbCredentialsRequest *request)
{
  g_return_if_fail (request != NULL);
  if (!g_atomic_ref_count_dec (&request->ref_count))
    return;
  if (!request->answered)
    answer_once (request, NULL, NULL, NULL);
  if (request->answer_destroy != NULL)
    request->answer_destroy (request->answer_data);
  g_free (request->scheme);
  g_free (request->realm);
  g_free (request->uri);
  g_free (request);
}

const char *lb_credentials_request_get_realm (LbCredentialsRequest *request) { return request->realm; }
const char *lb_credentials_request_get_uri (LbCredentialsRequest *request) { return request->uri; }
const char *lb_credentials_request_get_scheme (LbCredentialsRequest *request) { return request->scheme; }
gboolean lb_credentials_request_is_retrying (LbCredentialsRequest *request) { return request->retrying; }

void
lb_credentials_request_set_password (LbCredentialsRequest *request, const char *username,
                                     const char *password)
{
  g_return_if_fail (request != NULL && username != NULL);
  answer_once (request, username, password != NULL ? password : "", NULL);
}

void
lb_credentials_request_set_token (LbCredentialsRequest *request, const char *token)
{
  g_return_if_fail (request != NULL && token != NULL);
  answer_once (request, NULL, NULL, token);
}

void
lb_credentials_request_cancel (LbCredentialsRequest *request)
{
  g_return_if_fail (request != NULL);
  answer_once (request, NULL, NULL, NULL);
}

/* ---- options ------------------------------------------------------------------------------ */

G_DEFINE_BOXED_TYPE (LbStoreOptions, lb_store_options, lb_store_options_ref, lb_store_options_unref)

LbStoreOptions *
lb_store_options_new (void)
{
  LbStoreOptions *options = g_new0 (LbStoreOptions, 1);

  g_atomic_ref_count_init (&options->ref_count);
  options->timeout_s = LB_STORE_DEFAULT_TIMEOUT_S;
  options->max_retries = LB_STORE_DEFAULT_MAX_RETRIES;
  options->max_listing_entries = LB_STORE_DEFAULT_MAX_LISTING_ENTRIES;
  options->max_listing_bytes = LB_STORE_DEFAULT_MAX_LISTING_BYTES;
  return options;
}

LbStoreOptions *
lb_store_options_ref (LbStoreOptions *options)
{
  g_return_val_if_fail (options != NULL, NULL);
  g_atomic_ref_count_inc (&options->ref_count);
  return options;
}

void
lb_store_options_unref (LbStoreOptions *options)
{
  g_return_if_fail (options != NULL);
  if (!g_atomic_ref_count_dec (&options->ref_count))
    return;
  if (options->credentials_destroy != NULL)
    options->credentials_destroy (options->credentials_data);
  g_free (options->type);
  g_free (options->username);
  if (options->password != NULL)
    memset (options->password, 0, strlen (options->password));
  g_free (options->password);
  if (options->token != NULL)
    memset (options->token, 0, strlen (options->token));
  g_free (options->token);
  g_free (options->ca_file);
  g_free (options->pinned_cert_file);
  g_free (options->user_agent);
  g_free (options);
}

void
lb_store_options_set_credentials_func (LbStoreOptions *options, LbCredentialsFunc func,
                                       gpointer user_data, GDestroyNotify destroy)
{
  g_return_if_fail (options != NULL);
  if (options->credentials_destroy != NULL)
    options->credentials_destroy (options->credentials_data);
  options->credentials_func = func;
  options->credentials_data = user_data;
  options->credentials_destroy = destroy;
}

/* ---- interface wrappers ------------------------------------------------------------------- */

const char *
lb_store_get_uri (LbStore *self)
{
  g_return_val_if_fail (LB_IS_STORE (self), NULL);
  return LB_STORE_GET_IFACE (self)->get_uri (self);
}

const char *
lb_store_get_backend_name (LbStore *self)
{
  g_return_val_if_fail (LB_IS_STORE (self), NULL);
  return LB_STORE_GET_IFACE (self)->get_backend_name (self);
}

LbStoreCapabilities
lb_store_get_capabilities (LbStore *self)
{
  g_return_val_if_fail (LB_IS_STORE (self), 0);
  return LB_STORE_GET_IFACE (self)->get_capabilities (self);
}

void
lb_store_task_fail (GTask *task, GError *error)
{
  g_task_return_error (task, error);
  g_object_unref (task);
}

/* A backend without an operation answers it with a clear error instead of crashing. */
static void
report_unsupported (LbStore *self, const char *what, const char *uri, GAsyncReadyCallback callback,
                    gpointer user_data, gpointer tag)
{
  g_task_report_new_error (self, callback, user_data, tag, LB_ERROR, LB_ERROR_UNSUPPORTED,
                           "%s: the %s store does not support %s",
                           uri != NULL ? uri : lb_store_get_uri (self),
                           lb_store_get_backend_name (self), what);
}

/* TRUE when @result is a plain #GTask whose pointer is the answer: an error lb_store reported
 * itself (tagged with @tag), or the result of a backend without a finish function. */
static gboolean
is_plain_task (GAsyncResult *result, gpointer tag, gpointer finish)
{
  return finish == NULL || g_async_result_is_tagged (result, tag);
}

void
lb_store_list_async (LbStore *self, const char *uri, GCancellable *cancellable,
                     GFileProgressCallback progress, gpointer progress_data,
                     GAsyncReadyCallback callback, gpointer user_data)
{
  LbStoreInterface *iface;

  g_return_if_fail (LB_IS_STORE (self));
  iface = LB_STORE_GET_IFACE (self);
  if (iface->list_async == NULL)
    return report_unsupported (self, "listing", uri, callback, user_data, lb_store_list_async);
  iface->list_async (self, uri, cancellable, progress, progress_data, callback, user_data);
}

GPtrArray *
lb_store_list_finish (LbStore *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (LB_IS_STORE (self), NULL);
  if (is_plain_task (result, lb_store_list_async, LB_STORE_GET_IFACE (self)->list_finish))
    return g_task_propagate_pointer (G_TASK (result), error);
  return LB_STORE_GET_IFACE (self)->list_finish (self, result, error);
}

void
lb_store_stat_async (LbStore *self, const char *uri, GCancellable *cancellable,
                     GAsyncReadyCallback callback, gpointer user_data)
{
  LbStoreInterface *iface;

  g_return_if_fail (LB_IS_STORE (self));
  iface = LB_STORE_GET_IFACE (self);
  if (iface->stat_async == NULL)
    return report_unsupported (self, "stat", uri, callback, user_data, lb_store_stat_async);
  iface->stat_async (self, uri, cancellable, callback, user_data);
}

LbStoreEntry *
lb_store_stat_finish (LbStore *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (LB_IS_STORE (self), NULL);
  if (is_plain_task (result, lb_store_stat_async, LB_STORE_GET_IFACE (self)->stat_finish))
    return g_task_propagate_pointer (G_TASK (result), error);
  return LB_STORE_GET_IFACE (self)->stat_finish (self, result, error);
}

void
lb_store_read_async (LbStore *self, const char *uri, GCancellable *cancellable,
                     GFileProgressCallback progress, gpointer progress_data,
                     GAsyncReadyCallback callback, gpointer user_data)
{
  LbStoreInterface *iface;

  g_return_if_fail (LB_IS_STORE (self));
  iface = LB_STORE_GET_IFACE (self);
  if (iface->read_async == NULL)
    return report_unsupported (self, "reading", uri, callback, user_data, lb_store_read_async);
  iface->read_async (self, uri, cancellable, progress, progress_data, callback, user_data);
}

GInputStream *
lb_store_read_finish (LbStore *self, GAsyncResult *result, LbStoreEntry **out_entry,
                      GError **error)
{
  g_return_val_if_fail (LB_IS_STORE (self), NULL);
  if (out_entry != NULL)
    *out_entry = NULL;
  if (g_async_result_is_tagged (result, lb_store_read_async))
    return g_task_propagate_pointer (G_TASK (result), error);
  return LB_STORE_GET_IFACE (self)->read_finish (self, result, out_entry, error);
}

void
lb_store_write_async (LbStore *self, const char *uri, GInputStream *source, gint64 size,
                      const char *content_type, LbStoreWriteMode mode, const char *etag,
                      GCancellable *cancellable, GFileProgressCallback progress,
                      gpointer progress_data, GAsyncReadyCallback callback, gpointer user_data)
{
  LbStoreInterface *iface;

  g_return_if_fail (LB_IS_STORE (self));
  g_return_if_fail (uri != NULL);
  g_return_if_fail (G_IS_INPUT_STREAM (source));
  iface = LB_STORE_GET_IFACE (self);
  if (iface->write_async == NULL)
    return report_unsupported (self, "writing", uri, callback, user_data, lb_store_write_async);
  if (mode == LB_STORE_WRITE_IF_MATCH && (etag == NULL || *etag == '\0'))
    {
      g_task_report_new_error (self, callback, user_data, lb_store_write_async, LB_ERROR,
                               LB_ERROR_CONFLICT,
                               "%s: refusing to overwrite without the ETag of the version that was read",
                               uri);
      return;
    }
  iface->write_async (self, uri, source, size, content_type, mode, etag, cancellable, progress,
                      progress_data, callback, user_data);
}

LbStoreEntry *
lb_store_write_finish (LbStore *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (LB_IS_STORE (self), NULL);
  if (is_plain_task (result, lb_store_write_async, LB_STORE_GET_IFACE (self)->write_finish))
    return g_task_propagate_pointer (G_TASK (result), error);
  return LB_STORE_GET_IFACE (self)->write_finish (self, result, error);
}

void
lb_store_write_bytes_async (LbStore *self, const char *uri, GBytes *bytes,
                            const char *content_type, LbStoreWriteMode mode, const char *etag,
                            GCancellable *cancellable, GFileProgressCallback progress,
                            gpointer progress_data, GAsyncReadyCallback callback,
                            gpointer user_data)
{
  LbStoreInterface *iface;
  g_autoptr(GInputStream) source = NULL;

  g_return_if_fail (LB_IS_STORE (self));
  g_return_if_fail (uri != NULL);
  g_return_if_fail (bytes != NULL);
  iface = LB_STORE_GET_IFACE (self);
  if (iface->write_bytes_async != NULL && iface->write_async != NULL
      && (mode != LB_STORE_WRITE_IF_MATCH || (etag != NULL && *etag != '\0')))
    {
      iface->write_bytes_async (self, uri, bytes, content_type, mode, etag, cancellable, progress,
                                progress_data, callback, user_data);
      return;
    }
  /* the checks of lb_store_write_async() apply either way */
  source = g_memory_input_stream_new_from_bytes (bytes);
  lb_store_write_async (self, uri, source, g_bytes_get_size (bytes), content_type, mode, etag,
                        cancellable, progress, progress_data, callback, user_data);
}

void
lb_store_mkdir_async (LbStore *self, const char *uri, GCancellable *cancellable,
                      GAsyncReadyCallback callback, gpointer user_data)
{
  LbStoreInterface *iface;

  g_return_if_fail (LB_IS_STORE (self));
  iface = LB_STORE_GET_IFACE (self);
  if (iface->mkdir_async == NULL)
    return report_unsupported (self, "creating folders", uri, callback, user_data,
                               lb_store_mkdir_async);
  iface->mkdir_async (self, uri, cancellable, callback, user_data);
}

LbStoreEntry *
lb_store_mkdir_finish (LbStore *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (LB_IS_STORE (self), NULL);
  if (is_plain_task (result, lb_store_mkdir_async, LB_STORE_GET_IFACE (self)->mkdir_finish))
    return g_task_propagate_pointer (G_TASK (result), error);
  return LB_STORE_GET_IFACE (self)->mkdir_finish (self, result, error);
}

/* ---- factory ------------------------------------------------------------------------------ */

static GMutex backends_lock;
static GHashTable *backends; /* lower-case name → LbStoreConstructor */

static void
register_locked (const char *name, LbStoreConstructor constructor)
{
  g_hash_table_insert (backends, g_ascii_strdown (name, -1), (gpointer) constructor);
}

void
lb_store_register_backend (const char *name, LbStoreConstructor constructor)
{
  g_return_if_fail (name != NULL && constructor != NULL);
  g_mutex_lock (&backends_lock);
  if (backends == NULL)
    backends = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  register_locked (name, constructor);
  g_mutex_unlock (&backends_lock);
}

static LbStoreConstructor
lookup_backend (const char *name)
{
  static gsize initialised = 0;
  LbStoreConstructor constructor;
  g_autofree char *key = g_ascii_strdown (name, -1);

  if (g_once_init_enter (&initialised))
    {
      lb_store_register_backend ("http", lb_http_store_new);
      lb_store_register_backend ("https", lb_http_store_new);
      lb_store_register_backend ("webdav", lb_http_store_new);
      lb_store_register_backend ("listing", lb_http_store_new);
      lb_store_register_backend ("file", lb_local_store_new);
      lb_store_register_backend ("local", lb_local_store_new);
      lb_store_backends_init_extra ();
      g_once_init_leave (&initialised, 1);
    }
  g_mutex_lock (&backends_lock);
  constructor = (LbStoreConstructor) g_hash_table_lookup (backends, key);
  g_mutex_unlock (&backends_lock);
  return constructor;
}

LbStore *
lb_store_new_for_uri (const char *uri, LbStoreOptions *options, GError **error)
{
  g_autoptr(LbStoreOptions) defaults = NULL;
  g_autofree char *scheme = NULL;
  LbStoreConstructor constructor;

  g_return_val_if_fail (uri != NULL, NULL);

  if (options == NULL)
    options = defaults = lb_store_options_new ();
  if (*uri == '\0')
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT, "empty store address");
      return NULL;
    }

  if (options->type != NULL && *options->type != '\0')
    {
      constructor = lookup_backend (options->type);
      if (constructor == NULL)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED, "%s: unknown store type “%s”",
                       uri, options->type);
          return NULL;
        }
      return constructor (uri, options, error);
    }

  scheme = g_uri_parse_scheme (uri);
  if (scheme == NULL)
    return lb_local_store_new (uri, options, error); /* a plain path */
  constructor = lookup_backend (scheme);
  if (constructor == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED, "%s: no store backend for “%s:”",
                   uri, scheme);
      return NULL;
    }
  return constructor (uri, options, error);
}

/* ---- URI helpers -------------------------------------------------------------------------- */

/* The path part of @uri without query and fragment; works on both absolute URIs and paths. */
static char *
uri_path (const char *uri, char **out_prefix)
{
  g_autoptr(GUri) parsed = g_uri_parse (uri, G_URI_FLAGS_ENCODED | G_URI_FLAGS_PARSE_RELAXED, NULL);

  if (parsed == NULL)
    {
      if (out_prefix != NULL)
        *out_prefix = g_strdup ("");
      return g_strdup (uri);
    }
  if (out_prefix != NULL)
    {
      g_autoptr(GUri) root = g_uri_build (G_URI_FLAGS_ENCODED, g_uri_get_scheme (parsed),
                                          g_uri_get_userinfo (parsed), g_uri_get_host (parsed),
                                          g_uri_get_port (parsed), "", NULL, NULL);
      *out_prefix = g_uri_to_string (root);
    }
  return g_strdup (g_uri_get_path (parsed));
}

char *
lb_store_uri_display_name (const char *uri)
{
  g_autofree char *path = NULL;
  g_autofree char *segment = NULL;
  char *decoded;
  const char *slash;
  gsize len;

  g_return_val_if_fail (uri != NULL, NULL);
  path = uri_path (uri, NULL);
  len = strlen (path);
  while (len > 1 && path[len - 1] == '/')
    path[--len] = '\0';
  slash = strrchr (path, '/');
  segment = g_strdup (slash != NULL ? slash + 1 : path);
  /* %2F would turn into a path separator and %00 into a terminator: keep such names escaped */
  decoded = g_uri_unescape_string (segment, "/");
  if (decoded == NULL || !g_utf8_validate (decoded, -1, NULL))
    {
      g_free (decoded);
      return g_steal_pointer (&segment);
    }
  return decoded;
}

char *
lb_store_uri_child (const char *parent_uri, const char *name, gboolean as_container)
{
  g_autofree char *escaped = NULL;
  gsize len;

  g_return_val_if_fail (parent_uri != NULL && name != NULL, NULL);
  escaped = g_uri_escape_string (name, NULL, FALSE);
  len = strlen (parent_uri);
  return g_strconcat (parent_uri, (len > 0 && parent_uri[len - 1] == '/') ? "" : "/", escaped,
                      as_container ? "/" : "", NULL);
}

char *
lb_store_uri_parent (const char *uri)
{
  g_autofree char *prefix = NULL;
  g_autofree char *path = NULL;
  gsize len;
  char *slash;

  g_return_val_if_fail (uri != NULL, NULL);
  path = uri_path (uri, &prefix);
  len = strlen (path);
  while (len > 0 && path[len - 1] == '/')
    path[--len] = '\0';
  if (len == 0)
    return NULL;
  slash = strrchr (path, '/');
  if (slash == NULL)
    return NULL;
  slash[1] = '\0';
  return g_strconcat (prefix, path, NULL);
}
