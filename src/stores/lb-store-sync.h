/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-image.h"
#include "lb-store.h"
#include "lb-write-back.h"

G_BEGIN_DECLS

/*
 * Synchronous helpers for command-line tools (never call them from a GTK main loop thread):
 * each opens the store for the URI, runs the async call on a private main context and
 * waits. @options may be NULL.
 */

/* Splits a URI into (store, entry) when the URI names a file: the store is opened on its
 * parent container. */
LbStore      *lb_store_open_parent_sync (const char      *uri,
                                         LbStoreOptions  *options,
                                         GError         **error);

GPtrArray    *lb_store_list_sync        (LbStore         *store,
                                         const char      *uri,
                                         GCancellable    *cancellable,
                                         GError         **error);
LbStoreEntry *lb_store_stat_sync        (LbStore         *store,
                                         const char      *uri,
                                         GCancellable    *cancellable,
                                         GError         **error);

/* Downloads @uri to @path atomically: into an unnamed file (O_TMPFILE) that is named and
 * renamed over @path only when the whole body came; where the file system has no O_TMPFILE, a
 * temporary ".NAME.lbget-XXXXXX" (removed on failure; one a killed download left is removed by
 * the next download of @path once it is old). Bounded by options->max_download_bytes and the
 * free space of @path's file system (less a reserve): %LB_ERROR_TOO_LARGE, @path untouched. */
LbStoreEntry *lb_store_download_sync    (const char      *uri,
                                         const char      *path,
                                         LbStoreOptions  *options,
                                         GCancellable    *cancellable,
                                         GError         **error);

/* Fetches and decodes an image (streamed into the decoder), with source URI and ETag in its
 * metadata. Non-image content is %LB_ERROR_UNSUPPORTED. */
LbImage      *lb_store_fetch_image_sync (const char      *uri,
                                         LbStoreOptions  *options,
                                         const LbLimits  *limits,
                                         LbStoreEntry   **out_entry,
                                         GCancellable    *cancellable,
                                         GError         **error);

/* Uploads a local file or bytes to @uri: CREATE (never replaces) unless @overwrite, which
 * uses IF_MATCH with the ETag the server reports just before. */
LbWriteBackResult *lb_store_put_bytes_sync (const char      *uri,
                                            GBytes          *bytes,
                                            const char      *content_type,
                                            gboolean         overwrite,
                                            LbStoreOptions  *options,
                                            GCancellable    *cancellable,
                                            GError         **error);

/* Encodes @image as PNG with provenance (see lb_write_back_add_provenance(); the source is
 * taken from the image's metadata) and uploads it to @uri exactly like
 * lb_store_put_bytes_sync(). */
LbWriteBackResult *lb_store_put_image_sync (LbImage                  *image,
                                            const char               *uri,
                                            const LbWriteBackOptions *provenance,
                                            gboolean                  overwrite,
                                            LbStoreOptions           *options,
                                            GCancellable             *cancellable,
                                            GError                  **error);

G_END_DECLS
