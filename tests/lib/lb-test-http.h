/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Helpers shared by the lightbox-store tests. */

typedef struct {
  guint       status;
  GHashTable *headers; /* lower-case name → value */
  GBytes     *body;
} StoreRawReply;

void           store_raw_reply_free (StoreRawReply *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (StoreRawReply, store_raw_reply_free)

StoreRawReply *store_raw_request    (guint16     port,
                                     const char *request_head,
                                     GBytes     *body,
                                     GError    **error);
GBytes        *store_test_bytes     (gsize       n,
                                     guint32     seed);
char          *store_make_tmpdir    (const char *tag);
void           store_rm_rf          (const char *path);
guint          store_count_temps    (const char *dir);
guint16        store_url_port       (const char *url);
/* The contents of the file at @path (asserts that it can be read). */
GBytes        *store_read_file      (const char *path);

G_END_DECLS
