/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* test-store-server: lightbox-store in-process, a real LbStoreServer on 127.0.0.1 (port 0) in
 * its own thread and main context (the fixture, in test-store-server.c), driven by libsoup
 * client requests and raw sockets where a client library would normalise the request away.
 * The subtests, one file per subject: test-store-server-files.c, -connections.c, -dav.c,
 * -access.c and -mime.c. */

#include <libsoup/soup.h>

#include "lb-store-server.h"

/* A declarative filter in the engine's format (plugins/README.md §4). */
extern const char valid_filter[];

typedef struct {
  char          *base;    /* temp dir holding root/ and outside/ */
  char          *root;
  char          *outside; /* a secret next to the root that must stay unreachable */
  char          *log_path;
  LbStoreServer *server;
  GThread       *thread;
  GMainContext  *ctx;
  GMainLoop     *loop;
  GMutex         lock;
  GCond          cond;
  gboolean       ready;
  GError        *listen_error;
  char          *url;
  guint16        port;
  SoupSession   *session;
} Store;

typedef struct {
  guint               status;
  SoupMessageHeaders *headers;
  GBytes             *body;
} Reply;

void               reply_free        (Reply             *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Reply, reply_free)

/* A raw connection to the server on 127.0.0.1:@port (never through a proxy); @in (optional)
 * reads lines ending in CR LF from it. */
GSocketConnection *raw_connect       (guint16            port,
                                      GDataInputStream **in);
void               write_file        (const char        *path,
                                      const char        *text);
/* A store on a new temporary root (with root/, outside/ and the filter repository), not yet
 * listening: store_run() starts it. */
Store             *store_new         (void);
/* The server for s->root and what the test thread talks to it with. */
void               store_init_server (Store             *s);
void               store_run         (Store             *s);
/* Stops the server thread (idempotent); files stay until store_free(). */
void               store_stop        (Store             *s);
void               store_free        (Store             *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Store, store_free)
char              *root_path         (Store             *s,
                                      const char        *rel);
/* One request; @path is the already percent-encoded absolute path. Extra headers come as
 * NULL-terminated name/value pairs. */
Reply             *request           (Store             *s,
                                      const char        *method,
                                      const char        *path,
                                      GBytes            *body,
                                      ...);
guint              status_of         (Store             *s,
                                      const char        *method,
                                      const char        *path,
                                      GBytes            *body,
                                      ...);
/* NUL-terminated copy of a body; an empty GBytes may hold a NULL pointer. */
char              *body_text         (GBytes            *b);
void               put_file          (Store             *s,
                                      const char        *rel,
                                      GBytes            *content);

/* test-store-server-files.c */
void test_get_head (void);
void test_range (void);
void test_conditional (void);
void test_put (void);
void test_put_limit (void);
void test_put_aborted (void);
void test_disk_full (void);
/* test-store-server-connections.c */
void test_keepalive_close (void);
void test_keepalive_204 (void);
void test_keepalive_idle_timeout (void);
void test_client_keepalive (void);
void test_atomic_concurrent (void);
void test_max_connections (void);
/* test-store-server-dav.c */
void test_dav_methods (void);
void test_propfind (void);
void test_listing (void);
void test_traversal (void);
void test_filters (void);
/* test-store-server-access.c */
void test_auth (void);
void test_read_only (void);
void test_access_log_lines (void);
void test_tls (void);
/* test-store-server-mime.c */
void test_content_type (void);
