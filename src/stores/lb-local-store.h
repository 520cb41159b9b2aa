/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-store.h"

G_BEGIN_DECLS

/**
 * LbLocalStore:
 *
 * A folder through GIO: enumerate, read, atomic writes (temporary file + rename; CREATE is
 * link()-based so it never replaces; IF_MATCH compares GIO's etag::value), mkdir. ETags are
 * GIO's "etag::value" (mtime-based). Blocking file I/O runs in GTask worker threads, so the
 * @source of a write is read from a worker thread: pass a thread-agnostic stream (memory,
 * file), not a libsoup body. Progress callbacks are marshalled to the caller's context.
 */
#define LB_TYPE_LOCAL_STORE (lb_local_store_get_type ())
G_DECLARE_FINAL_TYPE (LbLocalStore, lb_local_store, LB, LOCAL_STORE, GObject)

/* @uri: file:// URI or a local path */
LbStore *lb_local_store_new (const char      *uri,
                             LbStoreOptions  *options,
                             GError         **error);

G_END_DECLS
