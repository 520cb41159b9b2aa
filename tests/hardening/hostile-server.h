/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* A hostile HTTP/1.1 server on 127.0.0.1 (a free port) for the client cases: it parses request
 * heads and Content-Length bodies, and a handler written by the test answers with any bytes at
 * all (a lying Content-Length, half a chunked body, a gzip bomb, an endless stream) and decides
 * whether the connection goes on. It runs on threads of its own, so the client may run on the
 * test's main context or in a subprocess that the test waits for. */

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct {
  char       *method;
  char       *path;     /* as sent: percent-encoded, with the query */
  GHashTable *headers;  /* lower-case name → value (the last one of a name) */
  GBytes     *body;     /* the Content-Length body (empty without one) */
  guint       connection; /* 0, 1, …: the accepted connection it came on */
  guint       on_connection; /* 0, 1, …: its place among the requests on that connection */
  guint       index;    /* 0, 1, …: its place among all requests, in arrival order */
} HostileRequest;

typedef struct _HostileServer HostileServer;

/* Answers @req on @out (blocking writes; errors may be ignored: the client may be gone).
 * Returns TRUE to read another request on the connection, FALSE to close it. */
typedef gboolean (*HostileHandler) (HostileServer        *server,
                                    const HostileRequest *req,
                                    GOutputStream        *out,
                                    gpointer              data);

HostileServer *hostile_server_new      (HostileHandler handler,
                                        gpointer       data);
void           hostile_server_free     (HostileServer *server);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HostileServer, hostile_server_free)

/* "http://127.0.0.1:PORT/" */
const char    *hostile_server_url      (HostileServer *server);
/* The requests handled so far (a copy: HostileRequest*, free with the array). */
GPtrArray     *hostile_server_requests (HostileServer *server);
guint          hostile_server_count    (HostileServer *server);

/* Writes all of @data; FALSE once the client is gone. */
gboolean       hostile_write           (GOutputStream *out,
                                        const void    *data,
                                        gsize          len);
gboolean       hostile_printf          (GOutputStream *out,
                                        const char    *format,
                                        ...) G_GNUC_PRINTF (2, 3);
/* A complete response: status line, @extra_headers ("Name: value\r\n" lines, may be NULL),
 * Content-Length and @body. */
gboolean       hostile_respond         (GOutputStream *out,
                                        guint          status,
                                        const char    *extra_headers,
                                        const void    *body,
                                        gsize          len);
/* What a client uploads to a STOW-RS server: a Part 10 file (preamble, "DICM") whose meta
 * names @sop_uid (MediaStorageSOPInstanceUID), then @padding bytes of data set. */
GBytes        *hostile_part10          (const char    *sop_uid,
                                        gsize          padding);
/* gzip of @len zero bytes, compressed as well as zlib can (about 1:1000). */
GBytes        *hostile_gzip_zeros      (gsize len);

G_END_DECLS
