/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* What the pieces of LbHttpStore share (src/stores only). */

#include <libsoup/soup.h>

#include "lb-http-store.h"
#include "lb-listing-parser.h"

G_BEGIN_DECLS

typedef enum {
  DIALECT_UNKNOWN,
  DIALECT_WEBDAV,
  DIALECT_LISTING,
} Dialect;

struct _LbHttpStore {
  GObject         parent_instance;
  char           *root;        /* owned: normalised, ends in '/' */
  LbStoreOptions *options;     /* owned (ref) */
  SoupSession    *session;     /* owned */
  Dialect         dialect;
  gboolean        forced;      /* dialect set by options->type */
  gboolean        dav_locking; /* DAV compliance class 2 advertised */
  gboolean        lightbox_server;
  gboolean        conditionals_ignored;  /* learned: a create-only PUT replaced a file */
  gboolean        conditionals_enforced; /* learned: the server answered 412 */
  gboolean        json_listing;          /* learned: GET listings come as JSON */
  gboolean        detecting;
  GPtrArray      *waiters;     /* owned: Waiter*, tasks waiting for detection */
};

typedef void (*Continuation) (GTask *task);

typedef struct {
  char                  *uri;          /* owned: target, normalised */
  GFileProgressCallback  progress;
  gpointer               progress_data;
  SoupMessage           *msg;          /* owned, nullable: the message that answered */
  GInputStream          *body;         /* owned, nullable */
  /* write */
  GInputStream          *source;       /* owned, nullable */
  gint64                 size;
  char                  *content_type; /* owned, nullable */
  LbStoreWriteMode       mode;
  char                  *etag;         /* owned, nullable */
  gint64                 written;      /* bytes */
  LbStoreEntry          *entry;        /* owned, nullable */
  LbListingParser       *parser;       /* owned, nullable: list */
} Op;

Op          *task_op                  (GTask *task);
LbHttpStore *task_store               (GTask *task);
GTask       *new_op_task              (LbHttpStore *self, const char *uri, gboolean container,
                                       GCancellable *cancellable, GAsyncReadyCallback callback,
                                       gpointer user_data, gpointer tag);
void         with_dialect             (GTask *task, Continuation next);
SoupMessage *propfind_new             (LbHttpStore *self, const char *uri, const char *depth,
                                       GError **error);
void         op_send                  (GTask *task, SoupMessage *msg, GError *error,
                                       guint max_retries, GAsyncReadyCallback callback);
GInputStream *op_sent                 (GTask *task, GAsyncResult *result, gboolean need_2xx);
LbStoreEntry *op_entry                (Op *op);
void         return_entry_after_drain (GTask *task, GInputStream *body, LbStoreEntry *entry);

void          lb_http_store_list_async  (LbStore *store, const char *uri, GCancellable *cancellable,
                                         GFileProgressCallback progress, gpointer progress_data,
                                         GAsyncReadyCallback callback, gpointer user_data);
void          lb_http_store_stat_async  (LbStore *store, const char *uri, GCancellable *cancellable,
                                         GAsyncReadyCallback callback, gpointer user_data);
void          lb_http_store_read_async  (LbStore *store, const char *uri, GCancellable *cancellable,
                                         GFileProgressCallback progress, gpointer progress_data,
                                         GAsyncReadyCallback callback, gpointer user_data);
GInputStream *lb_http_store_read_finish (LbStore *store, GAsyncResult *result,
                                         LbStoreEntry **out_entry, GError **error);
void          lb_http_store_write_async (LbStore *store, const char *uri, GInputStream *source,
                                         gint64 size, const char *content_type,
                                         LbStoreWriteMode mode, const char *etag,
                                         GCancellable *cancellable, GFileProgressCallback progress,
                                         gpointer progress_data, GAsyncReadyCallback callback,
                                         gpointer user_data);
void          lb_http_store_mkdir_async (LbStore *store, const char *uri, GCancellable *cancellable,
                                         GAsyncReadyCallback callback, gpointer user_data);

G_END_DECLS
