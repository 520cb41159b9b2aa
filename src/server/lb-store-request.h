/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <libsoup/soup.h>

G_BEGIN_DECLS

/*
 * The server's state of one request, hung on its SoupServerMessage when the request starts and
 * freed with it. Freeing it removes an upload temporary that was never committed, so an
 * aborted upload leaves nothing behind.
 */
typedef struct
{
  GHashTable    *temps;    /* (owned) the server's in-flight temporaries; shared, as a
                            * message may outlive its server */
  guint64        max_upload;
  gint64         start_us; /* monotonic */
  GDateTime     *start;
  char          *user;     /* authenticated user, NULL when anonymous */
  char          *client;   /* remote address, taken while the connection is surely up */
  char          *rel;      /* decoded path relative to the root */
  char          *abs;      /* file-system path */
  gboolean       slash;    /* request path ended in '/' */
  guint64        bytes_in;
  /* PUT */
  int            fd;
  char          *temp_path;
  gboolean       existed;
  gboolean       too_large;
  int            write_errno;
  gboolean       committing; /* a worker thread is finishing this PUT */
  GByteArray    *wbuf;     /* body bytes not yet written: libsoup hands over ~8 KiB chunks,
                            * written in blocks of LB_PUT_BLOCK (lb-store-upload.c) to save
                            * system calls */
  /* other methods with a body */
  GByteArray    *body;
  GSource       *header_deadline; /* (nullable) closes a connection whose headers are late */
} LbStoreRequest;

LbStoreRequest *lb_store_request_attach    (SoupServerMessage *msg,
                                            GHashTable        *temps,
                                            guint64            max_upload);
LbStoreRequest *lb_store_request_get       (SoupServerMessage *msg);
void            lb_store_request_drop_temp (LbStoreRequest    *req);
gboolean        lb_store_request_has_body  (SoupServerMessage *msg);

G_END_DECLS
