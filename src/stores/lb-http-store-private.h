/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* What the pieces of LbHttpStore share; for src/stores only.
 *   lb-http-store.c        the object, URIs, dialect detection, the per-operation plumbing
 *   lb-http-store-read.c   list (streamed listings: HTML, JSON, 207 Multi-Status), stat, read
 *   lb-http-store-write.c  write (PUT with If-Match / If-None-Match), mkdir (MKCOL) */

#include <libsoup/soup.h>

#include "lb-http-store.h"
#include "lb-listing-parser.h"

G_BEGIN_DECLS

/* What the server speaks: detected once per store (OPTIONS, then PROPFIND), or forced by
 * options->type. */
typedef enum {
  LB_HTTP_DIALECT_UNKNOWN,
  LB_HTTP_DIALECT_WEBDAV,
  LB_HTTP_DIALECT_LISTING,
} LbHttpDialect;

struct _LbHttpStore {
  GObject         parent_instance;
  char           *root;        /* owned: normalised, ends in '/' */
  LbStoreOptions *options;     /* owned (ref) */
  SoupSession    *session;     /* owned */
  LbHttpDialect   dialect;
  gboolean        forced;      /* dialect set by options->type */
  gboolean        dav_locking; /* DAV compliance class 2 advertised */
  gboolean        lightbox_server;
  gboolean        conditionals_ignored;  /* learned: a create-only PUT replaced a file */
  gboolean        conditionals_enforced; /* learned: the server answered 412 */
  gboolean        json_listing;          /* learned: GET listings come as JSON */
  gboolean        detecting;
  GPtrArray      *waiters;     /* owned: Waiter*, tasks waiting for detection */
};

/* The state of one operation: the task data of every LbStore call. */
typedef struct {
  char                  *uri;          /* owned: target, normalised */
  GFileProgressCallback  progress;
  gpointer               progress_data;
  SoupMessage           *msg;          /* owned, nullable: the message that answered */
  GInputStream          *body;         /* owned, nullable */
  /* write */
  GInputStream          *source;       /* owned, nullable */
  GBytes                *bytes;        /* owned, nullable: the content, when it is in memory */
  gint64                 size;
  char                  *content_type; /* owned, nullable */
  LbStoreWriteMode       mode;
  char                  *etag;         /* owned, nullable */
  gint64                 written;      /* bytes */
  LbStoreEntry          *entry;        /* owned, nullable */
  LbListingParser       *parser;       /* owned, nullable: list */
} LbHttpStoreOp;

static inline LbHttpStoreOp *
lb_http_store_op (GTask *task)
{
  return g_task_get_task_data (task);
}

static inline LbHttpStore *
lb_http_store_from_task (GTask *task)
{
  return LB_HTTP_STORE (g_task_get_source_object (task));
}

/* A task for an operation on @uri (NULL: the root; @container: a '/' is added), its
 * LbHttpStoreOp made; NULL, and the callback gets the error, when @uri is outside the store. */
GTask *lb_http_store_op_task_new (LbHttpStore *self, const char *uri, gboolean container,
                                  GCancellable *cancellable, GAsyncReadyCallback callback,
                                  gpointer user_data, gpointer tag);

/* Runs @next with @task once the dialect is known, or fails @task when detection failed. */
typedef void (*LbHttpStoreContinuation) (GTask *task);
void   lb_http_store_with_dialect (GTask *task, LbHttpStoreContinuation next);

/* A PROPFIND for @uri at @depth ("0": the resource itself, "1": with its members) asking for
 * the properties the listing parser reads. */
SoupMessage *lb_http_store_propfind_new (LbHttpStore *self, const char *uri, const char *depth,
                                         GError **error);

/* Sends @msg for @task with lb_http_send_async(), or fails @task with @error when @msg is NULL
 * (building it failed); finish with lb_http_store_op_sent(). */
void          lb_http_store_op_send  (GTask *task, SoupMessage *msg, GError *error,
                                      guint max_retries, GAsyncReadyCallback callback);
GInputStream *lb_http_store_op_sent  (GTask *task, GAsyncResult *result, gboolean need_2xx);
/* The entry the final response's headers describe, under the URI it came from. */
LbStoreEntry *lb_http_store_op_entry (LbHttpStoreOp *op);
/* Returns @entry (taking it) once the rest of @body is read, so the connection is kept. */
void          lb_http_store_op_return_entry (GTask *task, GInputStream *body,
                                             LbStoreEntry *entry);

/* Each piece sets the LbStore operations it implements: list, stat and read (read.c), write and
 * mkdir (write.c). Only read has a finish function (lb-store.h). */
void lb_http_store_read_iface_init  (LbStoreInterface *iface);
void lb_http_store_write_iface_init (LbStoreInterface *iface);

G_END_DECLS
