/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "lb-store-entry.h"

G_BEGIN_DECLS

/* ------------------------------------------------------------------------------------------ */
/* Credentials                                                                                 */

/**
 * LbCredentialsRequest:
 *
 * A pending request for credentials, handed to an #LbCredentialsFunc. The callee answers
 * exactly once, now or later (after a dialog), from the thread that owns the store's main
 * context: lb_credentials_request_set_password(), _set_token() or _cancel(). Dropping the
 * last reference without answering counts as cancel.
 */
typedef struct _LbCredentialsRequest LbCredentialsRequest;

#define LB_TYPE_CREDENTIALS_REQUEST (lb_credentials_request_get_type ())
GType                 lb_credentials_request_get_type (void) G_GNUC_CONST;
LbCredentialsRequest *lb_credentials_request_ref      (LbCredentialsRequest *request);
void                  lb_credentials_request_unref    (LbCredentialsRequest *request);
/* The realm the server named (may be empty), the URI that needs it, whether an earlier
 * answer was refused, and the scheme ("Basic", "Digest", "Bearer"). */
const char           *lb_credentials_request_get_realm    (LbCredentialsRequest *request);
const char           *lb_credentials_request_get_uri      (LbCredentialsRequest *request);
const char           *lb_credentials_request_get_scheme   (LbCredentialsRequest *request);
gboolean              lb_credentials_request_is_retrying  (LbCredentialsRequest *request);
void                  lb_credentials_request_set_password (LbCredentialsRequest *request,
                                                           const char           *username,
                                                           const char           *password);
void                  lb_credentials_request_set_token    (LbCredentialsRequest *request,
                                                           const char           *token);
void                  lb_credentials_request_cancel       (LbCredentialsRequest *request);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LbCredentialsRequest, lb_credentials_request_unref)

/**
 * LbCredentialsFunc:
 * @request: (transfer none): take a reference to answer asynchronously
 *
 * Asked when a server requires authentication (401). Called on the store's main context.
 */
typedef void (*LbCredentialsFunc) (LbCredentialsRequest *request,
                                   gpointer              user_data);

/* ------------------------------------------------------------------------------------------ */
/* Options                                                                                     */

/**
 * LbStoreOptions:
 * @type: (nullable): force a backend: "webdav", "listing", "local", "dicomweb" (or any
 *   registered name); NULL detects it from the URI (and for http(s), from the server)
 * @username, @password: (nullable): static Basic/Digest credentials, tried first
 * @token: (nullable): bearer token, sent with every request
 * @credentials_func: (nullable): asked on 401 when static credentials are missing or refused
 * @ca_file: (nullable): PEM file of extra CA certificates to trust (besides the system's)
 * @pinned_cert_file: (nullable): PEM certificate accepted for the server even if no CA
 *   vouches for it (exact match only)
 * @timeout_s: I/O timeout in seconds (connect, each read/write); 0 = 30 s
 * @max_retries: retries of idempotent requests (GET, HEAD, PROPFIND, OPTIONS) after
 *   transport errors, 502/503/504, with exponential backoff from 250 ms; default 3
 * @max_listing_entries: cap on entries in one listing (default 200 000)
 * @max_listing_bytes: cap on the bytes of one listing document (default 64 MiB)
 * @max_download_bytes: cap on one download to a file (lb_store_download_sync()); 0 (the
 *   default): only the free space of the target's file system bounds it
 *
 * Reference counted; fields are public and may be set after lb_store_options_new() until
 * the options are handed to a store (which keeps a reference and treats them as read-only).
 */
typedef struct {
  /*< private >*/
  gatomicrefcount ref_count;
  /*< public >*/
  char              *type;
  char              *username;
  char              *password;
  char              *token;
  LbCredentialsFunc  credentials_func;
  gpointer           credentials_data;
  GDestroyNotify     credentials_destroy;
  char              *ca_file;
  char              *pinned_cert_file;
  guint              timeout_s;
  guint              max_retries;
  guint              max_listing_entries;
  guint64            max_listing_bytes;
  char              *user_agent;
  guint64            max_download_bytes;
} LbStoreOptions;

#define LB_STORE_DEFAULT_TIMEOUT_S 30
#define LB_STORE_DEFAULT_MAX_RETRIES 3
#define LB_STORE_DEFAULT_MAX_LISTING_ENTRIES 200000
#define LB_STORE_DEFAULT_MAX_LISTING_BYTES (G_GUINT64_CONSTANT (64) << 20)

#define LB_TYPE_STORE_OPTIONS (lb_store_options_get_type ())
GType           lb_store_options_get_type (void) G_GNUC_CONST;
LbStoreOptions *lb_store_options_new      (void);
LbStoreOptions *lb_store_options_ref      (LbStoreOptions *options);
void            lb_store_options_unref    (LbStoreOptions *options);
void            lb_store_options_set_credentials_func (LbStoreOptions    *options,
                                                       LbCredentialsFunc  func,
                                                       gpointer           user_data,
                                                       GDestroyNotify     destroy);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LbStoreOptions, lb_store_options_unref)

/* ------------------------------------------------------------------------------------------ */
/* The interface                                                                               */

/**
 * LbStoreWriteMode:
 * @LB_STORE_WRITE_CREATE: only create; never replace an existing entry (If-None-Match: *)
 * @LB_STORE_WRITE_IF_MATCH: replace only if the current ETag equals the given one (If-Match)
 * @LB_STORE_WRITE_REPLACE: unconditional; only with the user's explicit consent
 *
 * Failure of the condition is %LB_ERROR_CONFLICT.
 */
typedef enum {
  LB_STORE_WRITE_CREATE,
  LB_STORE_WRITE_IF_MATCH,
  LB_STORE_WRITE_REPLACE,
} LbStoreWriteMode;

/**
 * LbStoreCapabilities:
 * @LB_STORE_CAN_WRITE: write and mkdir are possible (at least in principle)
 * @LB_STORE_CONDITIONAL_WRITES: the server is known to enforce If-Match / If-None-Match on
 *   writes; without it the client can only narrow the race with a check before writing
 * @LB_STORE_HAS_ETAGS: entries carry ETags
 * @LB_STORE_HAS_SIZES: listings carry sizes
 *
 * HTTP stores learn their capabilities on the first request; before that they report what
 * the URI implies.
 */
typedef enum {
  LB_STORE_CAN_WRITE          = 1 << 0,
  LB_STORE_CONDITIONAL_WRITES = 1 << 1,
  LB_STORE_HAS_ETAGS          = 1 << 2,
  LB_STORE_HAS_SIZES          = 1 << 3,
} LbStoreCapabilities;

#define LB_TYPE_STORE (lb_store_get_type ())
G_DECLARE_INTERFACE (LbStore, lb_store, LB, STORE, GObject)

/**
 * LbStoreInterface:
 *
 * Every call takes absolute URIs inside the store (from lb_store_get_uri() or an entry's
 * "uri"); %NULL means the store's root. Progress callbacks (GFileProgressCallback: current
 * and total bytes, total -1 when unknown) run on the caller's thread-default main context,
 * except for read, where they run in whichever thread reads the returned stream.
 * Async results complete on the thread-default main context of the caller.
 *
 * list_finish, stat_finish, write_finish and mkdir_finish may be left NULL by a backend whose
 * #GTask returns the result as its pointer: lb_store_*_finish() then propagates that.
 */
struct _LbStoreInterface {
  GTypeInterface parent_iface;

  const char          *(*get_uri)          (LbStore *self);
  const char          *(*get_backend_name) (LbStore *self);
  LbStoreCapabilities  (*get_capabilities) (LbStore *self);

  void        (*list_async)  (LbStore               *self,
                              const char            *uri,
                              GCancellable          *cancellable,
                              GFileProgressCallback  progress,
                              gpointer               progress_data,
                              GAsyncReadyCallback    callback,
                              gpointer               user_data);
  GPtrArray  *(*list_finish) (LbStore               *self,
                              GAsyncResult          *result,
                              GError               **error);

  void          (*stat_async)  (LbStore             *self,
                                const char          *uri,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data);
  LbStoreEntry *(*stat_finish) (LbStore             *self,
                                GAsyncResult        *result,
                                GError             **error);

  void          (*read_async)  (LbStore               *self,
                                const char            *uri,
                                GCancellable          *cancellable,
                                GFileProgressCallback  progress,
                                gpointer               progress_data,
                                GAsyncReadyCallback    callback,
                                gpointer               user_data);
  GInputStream *(*read_finish) (LbStore               *self,
                                GAsyncResult          *result,
                                LbStoreEntry         **out_entry,
                                GError               **error);

  void          (*write_async)  (LbStore               *self,
                                 const char            *uri,
                                 GInputStream          *source,
                                 gint64                 size,
                                 const char            *content_type,
                                 LbStoreWriteMode       mode,
                                 const char            *etag,
                                 GCancellable          *cancellable,
                                 GFileProgressCallback  progress,
                                 gpointer               progress_data,
                                 GAsyncReadyCallback    callback,
                                 gpointer               user_data);
  LbStoreEntry *(*write_finish) (LbStore               *self,
                                 GAsyncResult          *result,
                                 GError               **error);
  /* optional: write_async of content already in memory (a backend that may have to send it
   * again keeps it whole); NULL hands it to write_async as a memory stream. Finished by
   * write_finish. */
  void          (*write_bytes_async) (LbStore               *self,
                                      const char            *uri,
                                      GBytes                *bytes,
                                      const char            *content_type,
                                      LbStoreWriteMode       mode,
                                      const char            *etag,
                                      GCancellable          *cancellable,
                                      GFileProgressCallback  progress,
                                      gpointer               progress_data,
                                      GAsyncReadyCallback    callback,
                                      gpointer               user_data);

  void          (*mkdir_async)  (LbStore             *self,
                                 const char          *uri,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data);
  LbStoreEntry *(*mkdir_finish) (LbStore             *self,
                                 GAsyncResult        *result,
                                 GError             **error);

  gpointer padding[8];
};

/* The root URI the store was opened with (normalised: containers end in '/'). */
const char          *lb_store_get_uri          (LbStore *self);
/* "webdav", "listing", "local", "dicomweb", … (HTTP stores: "http" until detected) */
const char          *lb_store_get_backend_name (LbStore *self);
LbStoreCapabilities  lb_store_get_capabilities (LbStore *self);

/**
 * lb_store_list_async:
 * @uri: (nullable): a container entry's URI, NULL for the root
 *
 * Lists the children of a container. Finish returns a #GPtrArray of #LbStoreEntry (transfer
 * full, element free function set), in the server's order, without the container itself,
 * parent links or anything outside the store. A listing over the caps fails with
 * %LB_ERROR_TOO_LARGE ("listing too large"); a partial listing is never returned.
 * @progress reports bytes of the listing document received (total -1 if unknown).
 */
void          lb_store_list_async   (LbStore               *self,
                                     const char            *uri,
                                     GCancellable          *cancellable,
                                     GFileProgressCallback  progress,
                                     gpointer               progress_data,
                                     GAsyncReadyCallback    callback,
                                     gpointer               user_data);
GPtrArray    *lb_store_list_finish  (LbStore               *self,
                                     GAsyncResult          *result,
                                     GError               **error);

/* Metadata of one entry (HEAD / PROPFIND depth 0 / g_file_query_info). */
void          lb_store_stat_async   (LbStore             *self,
                                     const char          *uri,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data);
LbStoreEntry *lb_store_stat_finish  (LbStore             *self,
                                     GAsyncResult        *result,
                                     GError             **error);

/**
 * lb_store_read_async:
 *
 * Opens an entry for streaming. Finish returns as soon as the response headers are in: the
 * stream yields the body as it arrives (nothing is buffered whole), and @out_entry gets what
 * the server said (size, ETag, content type, mtime). If the body ends before the announced
 * size, or the connection drops, reading the stream fails with %LB_ERROR_TRUNCATED naming
 * the URL: a short read never looks like a normal end of file. Retries (idempotent) happen
 * before the stream is returned, not in the middle of it.
 */
void          lb_store_read_async   (LbStore               *self,
                                     const char            *uri,
                                     GCancellable          *cancellable,
                                     GFileProgressCallback  progress,
                                     gpointer               progress_data,
                                     GAsyncReadyCallback    callback,
                                     gpointer               user_data);
GInputStream *lb_store_read_finish  (LbStore               *self,
                                     GAsyncResult          *result,
                                     LbStoreEntry         **out_entry,
                                     GError               **error);

/**
 * lb_store_write_async:
 * @source: the content, read to its end (streamed, not buffered whole)
 * @size: bytes @source will yield, or -1 if unknown (then sent chunked where possible)
 * @content_type: (nullable): MIME type to send
 * @etag: (nullable): required for %LB_STORE_WRITE_IF_MATCH
 *
 * Writes an entry under the given condition. Finish returns the new entry with the ETag
 * the server returned (if any) and the bytes written as size. Condition failures are
 * %LB_ERROR_CONFLICT. Whether the server itself enforces the condition is in
 * lb_store_get_capabilities(); lb-write-back.h adds the client-side checks.
 */
void          lb_store_write_async  (LbStore               *self,
                                     const char            *uri,
                                     GInputStream          *source,
                                     gint64                 size,
                                     const char            *content_type,
                                     LbStoreWriteMode       mode,
                                     const char            *etag,
                                     GCancellable          *cancellable,
                                     GFileProgressCallback  progress,
                                     gpointer               progress_data,
                                     GAsyncReadyCallback    callback,
                                     gpointer               user_data);
LbStoreEntry *lb_store_write_finish (LbStore               *self,
                                     GAsyncResult          *result,
                                     GError               **error);
/* Convenience: write_async from a GBytes (size known). */
void          lb_store_write_bytes_async (LbStore               *self,
                                          const char            *uri,
                                          GBytes                *bytes,
                                          const char            *content_type,
                                          LbStoreWriteMode       mode,
                                          const char            *etag,
                                          GCancellable          *cancellable,
                                          GFileProgressCallback  progress,
                                          gpointer               progress_data,
                                          GAsyncReadyCallback    callback,
                                          gpointer               user_data);

/* Creates a container (MKCOL / g_file_make_directory). Existing → %LB_ERROR_CONFLICT. */
void          lb_store_mkdir_async  (LbStore             *self,
                                     const char          *uri,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data);
LbStoreEntry *lb_store_mkdir_finish (LbStore             *self,
                                     GAsyncResult        *result,
                                     GError             **error);

/* ------------------------------------------------------------------------------------------ */
/* Factory                                                                                     */

/**
 * LbStoreConstructor:
 *
 * Creates a store for @uri without network traffic (detection, if any, happens on the first
 * call). @options is never NULL.
 */
typedef LbStore *(*LbStoreConstructor) (const char      *uri,
                                        LbStoreOptions  *options,
                                        GError         **error);

/**
 * lb_store_register_backend:
 * @name: a URI scheme ("dicomweb+http") or a type name for #LbStoreOptions.type ("dicomweb")
 *
 * Adds a backend to the factory. Built-in backends ("http", "https", "file", "webdav",
 * "listing", "local") are registered automatically. A backend in its own directory (e.g.
 * src/stores/dicomweb) registers from a `void f (void)` function whose name it appends to
 * the meson list `stores_backend_inits`; the generated lb-store-backends.c calls every such
 * function once, before the first lookup. Thread-safe; a later registration of a name
 * replaces the earlier one. Names are matched case-insensitively.
 */
void      lb_store_register_backend (const char         *name,
                                     LbStoreConstructor  constructor);

/**
 * lb_store_new_for_uri:
 * @uri: http(s)://…, file://…, a plain local path, dicomweb+http(s)://…, or any scheme a
 *   backend registered
 * @options: (nullable): NULL for the defaults
 *
 * Opens a store. No network traffic happens here: HTTP stores decide between WebDAV and a
 * plain listing (OPTIONS DAV header, PROPFIND 207) on their first call, unless
 * @options->type says which. Errors: %LB_ERROR_INVALID_ARGUMENT for a malformed URI,
 * %LB_ERROR_UNSUPPORTED for an unknown scheme or type.
 */
LbStore  *lb_store_new_for_uri      (const char      *uri,
                                     LbStoreOptions  *options,
                                     GError         **error);

/* ------------------------------------------------------------------------------------------ */
/* URI helpers shared by the backends                                                          */

/* The last path segment of @uri, percent-decoded for display (UTF-8; invalid UTF-8 or an
 * embedded NUL keeps the segment escaped). A trailing '/' is ignored. */
char     *lb_store_uri_display_name (const char *uri);
/* @parent_uri with @name (raw, UTF-8) appended as one percent-encoded segment; @parent_uri
 * is treated as a container (a '/' is added if missing). @as_container adds a trailing '/'. */
char     *lb_store_uri_child        (const char *parent_uri,
                                     const char *name,
                                     gboolean    as_container);
/* The container of @uri (ending in '/'), or NULL at the root of the authority. */
char     *lb_store_uri_parent       (const char *uri);

G_END_DECLS
