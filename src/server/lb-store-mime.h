/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * The Content-Type the store answers for a regular file (GET, HEAD and PROPFIND's
 * getcontenttype alike): from the name, and where the name alone is ambiguous also from the
 * file's first LB_STORE_MIME_SNIFF_LEN bytes. shared-mime-info 2.4 (Debian 13) maps *.png to
 * both image/png and image/apng, so the name alone no longer settles a PNG; the data does.
 * A name that matches nothing and data that says nothing give application/octet-stream.
 * Both return a string that lives as long as *@owned (freed by the caller), and may run in
 * any thread (PROPFIND's Depth 1 answers are made in worker threads).
 */

#define LB_STORE_MIME_SNIFF_LEN 4096 /* bytes: what shared-mime-info's magic rules look at */

/* @head: the file's first @head_len bytes (more are ignored), or NULL when not at hand. */
const char *lb_store_mime_type         (const char   *name,
                                        const guint8 *head,
                                        gsize         head_len,
                                        char        **owned);
/* Reads the head of @abs only when the name is ambiguous, so a listing of files with
 * unambiguous names opens none of them. */
const char *lb_store_mime_type_of_file (const char   *name,
                                        const char   *abs,
                                        char        **owned);

G_END_DECLS
