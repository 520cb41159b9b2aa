/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicomweb-store"

#include "lb-dicomweb-store-private.h"

#include <string.h>

#include "lb-error.h"
#include "lb-http.h"

static void lb_dicomweb_store_iface_init (LbStoreInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (LbDicomwebStore, lb_dicomweb_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (LB_TYPE_STORE, lb_dicomweb_store_iface_init))

static void
lb_dicomweb_store_finalize (GObject *object)
{
  LbDicomwebStore *self = LB_DICOMWEB_STORE (object);

  g_free (self->root_uri);
  g_free (self->tree_uri);
  g_free (self->base_url);
  g_clear_pointer (&self->options, lb_store_options_unref);
  g_clear_object (&self->session);
  G_OBJECT_CLASS (lb_dicomweb_store_parent_class)->finalize (object);
}

static void
lb_dicomweb_store_class_init (LbDicomwebStoreClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = lb_dicomweb_store_finalize;
}

static void
lb_dicomweb_store_init (LbDicomwebStore *self)
{
  self->page_size = LB_DICOMWEB_DEFAULT_PAGE_SIZE;
  self->tree_max_studies = LB_DICOMWEB_DEFAULT_TREE_MAX_STUDIES;
}

void
lb_dicomweb_store_set_page_size (LbDicomwebStore *self, guint page_size)
{
  g_return_if_fail (LB_IS_DICOMWEB_STORE (self));
  g_return_if_fail (page_size > 0);
  self->page_size = page_size;
}

LbStore *
lb_dicomweb_store_new (const char *uri, LbStoreOptions *options, GError **error)
{
  g_autoptr(LbDicomwebStore) self = NULL;
  g_autoptr(GUri) parsed = NULL;
  g_autoptr(GError) local = NULL;
  const char *scheme, *http_scheme;
  g_autofree char *base = NULL, *root = NULL, *root_path = NULL, *below = NULL;
  gsize len;

  g_return_val_if_fail (uri != NULL, NULL);
  parsed = g_uri_parse (uri, G_URI_FLAGS_ENCODED | G_URI_FLAGS_SCHEME_NORMALIZE, &local);
  if (parsed == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT, "%s: not a valid URL: %s", uri,
                   local->message);
      return NULL;
    }
  scheme = g_uri_get_scheme (parsed);
  if (g_ascii_strcasecmp (scheme, "dicomweb+http") == 0 || g_ascii_strcasecmp (scheme, "http") == 0)
    http_scheme = "http";
  else if (g_ascii_strcasecmp (scheme, "dicomweb+https") == 0
           || g_ascii_strcasecmp (scheme, "https") == 0)
    http_scheme = "https";
  else
    {
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                   "%s: a DICOMweb store needs a dicomweb+http(s):// or http(s):// URL", uri);
      return NULL;
    }
  if (g_uri_get_host (parsed) == NULL || *g_uri_get_host (parsed) == '\0')
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT, "%s: no host in the URL", uri);
      return NULL;
    }
  if (g_uri_get_query (parsed) != NULL || g_uri_get_fragment (parsed) != NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "%s: a DICOMweb root URL takes no query or fragment", uri);
      return NULL;
    }

  self = g_object_new (LB_TYPE_DICOMWEB_STORE, NULL);
  self->options = options ? lb_store_options_ref (options) : lb_store_options_new ();
  self->session = lb_http_session_new (self->options, error);
  if (self->session == NULL)
    return NULL;

  /* A URI below the DICOMweb root (…/studies/x/series/y/, as when a caller opens the parent
   * of an instance) opens the whole server: the root is the path before the first "studies" or
   * "patients" segment. (A DICOMweb root whose own path has such a segment cannot be used.) */
  {
    g_auto(GStrv) segs = g_strsplit (g_uri_get_path (parsed), "/", -1);
    GString *path = g_string_new (NULL);
    guint i;

    for (i = 0; segs[i]; i++)
      {
        if (strcmp (segs[i], "studies") == 0 || strcmp (segs[i], "patients") == 0)
          break;
        if (*segs[i] == '\0')
          continue;
        g_string_append_c (path, '/');
        g_string_append (path, segs[i]);
      }
    root_path = g_string_free (path, FALSE);
    /* the part below the DICOMweb root: "studies/x/series/y" (no trailing slash) */
    below = segs[i] ? g_strjoinv ("/", segs + i) : g_strdup ("");
    g_strchomp (below);
    while (*below && below[strlen (below) - 1] == '/')
      below[strlen (below) - 1] = '\0';
  }
  base = g_uri_join (G_URI_FLAGS_ENCODED, http_scheme, g_uri_get_userinfo (parsed),
                     g_uri_get_host (parsed), g_uri_get_port (parsed), root_path, NULL, NULL);
  len = strlen (base);
  while (len > 0 && base[len - 1] == '/')
    base[--len] = '\0';
  self->base_url = g_steal_pointer (&base);
  root = g_uri_join (G_URI_FLAGS_ENCODED, scheme, g_uri_get_userinfo (parsed),
                     g_uri_get_host (parsed), g_uri_get_port (parsed), root_path, NULL, NULL);
  self->tree_uri = g_strconcat (root, "/", NULL);
  self->root_uri = *below ? g_strconcat (self->tree_uri, below, "/", NULL)
                          : g_strdup (self->tree_uri);
  return LB_STORE (g_steal_pointer (&self));
}

void
lb_dicomweb_register (void)
{
  lb_store_register_backend ("dicomweb", lb_dicomweb_store_new);
  lb_store_register_backend ("dicomweb+http", lb_dicomweb_store_new);
  lb_store_register_backend ("dicomweb+https", lb_dicomweb_store_new);
}

const char *
lb_dicomweb_store_get_base_url (LbDicomwebStore *self)
{
  g_return_val_if_fail (LB_IS_DICOMWEB_STORE (self), NULL);
  return self->base_url;
}

/* ---- HTTP --------------------------------------------------------------------------------- */

/* Sends one request with the store's options and reads the whole response body (capped at
 * @max_bytes, 0 = no cap) with lb_http_request_async(); finish with lb_http_request_finish().
 * The status is not checked: the caller decides (STOW failures carry a body to read). */
void
lb_dicomweb_request_async (LbDicomwebStore       *self,
                           const char            *method,
                           const char            *url,
                           const char            *accept,
                           GBytes                *body,
                           const char            *body_type,
                           guint64                max_bytes,
                           GCancellable          *cancellable,
                           GFileProgressCallback  progress,
                           gpointer               progress_data,
                           GAsyncReadyCallback    callback,
                           gpointer               user_data)
{
  GError *error = NULL;
  g_autoptr(SoupMessage) msg = lb_http_message_new (method, url, self->options, &error);

  if (msg == NULL)
    {
      g_task_report_error (self, callback, user_data, lb_dicomweb_request_async, error);
      return;
    }
  if (accept)
    soup_message_headers_replace (soup_message_get_request_headers (msg), "Accept", accept);
  if (body)
    lb_http_message_set_body (msg, body_type, body);
  lb_http_request_async (self->session, msg, self->options->max_retries, max_bytes, cancellable,
                         progress, progress_data, callback, user_data);
}

guint64
lb_dicomweb_max_json_bytes (LbDicomwebStore *self)
{
  return self->options->max_listing_bytes ? self->options->max_listing_bytes
                                          : LB_STORE_DEFAULT_MAX_LISTING_BYTES;
}

/* ---- mkdir and the rest ------------------------------------------------------------------- */

static void
dw_mkdir_async (LbStore *store, const char *uri, GCancellable *cancellable,
                GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = g_task_new (store, cancellable, callback, user_data);

  g_task_set_source_tag (task, dw_mkdir_async);
  g_task_return_new_error (task, LB_ERROR, LB_ERROR_UNSUPPORTED,
                           "%s: a DICOMweb store has no folders; studies and series are created "
                           "by storing instances", uri ? uri : "");
  g_object_unref (task);
}

static const char *
dw_get_uri (LbStore *store)
{
  return LB_DICOMWEB_STORE (store)->root_uri;
}

static const char *
dw_get_backend_name (LbStore *store)
{
  return "dicomweb";
}

/* Writes never replace anything: a derived image always gets fresh UIDs (a new instance in a
 * new series), and a ready DICOM file whose instance exists is refused. */
static LbStoreCapabilities
dw_get_capabilities (LbStore *store)
{
  return LB_STORE_CAN_WRITE | LB_STORE_CONDITIONAL_WRITES;
}

static void
lb_dicomweb_store_iface_init (LbStoreInterface *iface)
{
  iface->get_uri = dw_get_uri;
  iface->get_backend_name = dw_get_backend_name;
  iface->get_capabilities = dw_get_capabilities;
  iface->mkdir_async = dw_mkdir_async;
  lb_dicomweb_qido_iface_init (iface);
  lb_dicomweb_wado_iface_init (iface);
  lb_dicomweb_stow_iface_init (iface);
}
