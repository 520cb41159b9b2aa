/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <sys/types.h>
#include <libsoup/soup.h>

#include "lb-store-listener.h"
#include "lb-store-lock.h"
#include "lb-store-server.h"

G_BEGIN_DECLS

/* The server's instance, shared by the files of src/server that serve its requests. */
struct _LbStoreServer
{
  GObject parent_instance;

  char            *root;       /* as configured, absolute */
  char            *root_real;  /* realpath (root): the containment boundary */
  gboolean         read_only;
  guint64          max_upload; /* bytes, 0 = unlimited */
  LbStoreAuth     *auth;       /* (nullable) */
  LbAccessLog     *log;        /* (nullable) */
  struct _LbStoreVerifier *verifier; /* password checks in worker threads */
  SoupServer      *soup;
  LbStoreListener *listener;   /* (nullable) until lb_store_server_listen() */
  GTlsCertificate *tls_cert;   /* (nullable) */
  guint            max_connections; /* 0: derived from the descriptor limit */
  int              anchor_peer; /* the silent end of libsoup's keep-alive anchor, -1 for none */
  GHashTable      *temps;      /* in-flight upload temporaries (owned paths) */
  LbStoreLocks    *locks;      /* paths whose check-and-commit is under way (lb-store-lock.h) */
  char            *url;
  mode_t           umask;
  guint            timeout_s;  /* header deadline and longest I/O wait, 0 = none */
  gboolean         stopped;
};

G_END_DECLS
