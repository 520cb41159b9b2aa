/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-image.h"

G_BEGIN_DECLS

/* Image input and output for commands that accept either a local path or a store URL
 * (anything with a scheme: http(s), file, dicomweb+http(s), …). Store options come from
 * lb_cli_store_option_group() (add it to the command's context). */

gboolean  lb_cli_is_store_url (const char *arg);

/* @arg as a URL the stores take: what `ls` prints is percent-decoded for reading ("With
 * Space/mr #1.png"), so characters a URL cannot hold after its authority (space, '#', '?',
 * non-ASCII, controls) are percent-encoded; '%' and everything else stays, so an encoded URL
 * comes back unchanged. */
char     *lb_cli_url_from_arg (const char *arg);

/* A local file through the image loader, a URL through lb_store_fetch_image_sync() (streamed
 * decode, source URL and ETag kept in the metadata). */
LbImage  *lb_cli_load_image   (const char *arg,
                               GError    **error);

/* A local path: atomic PNG (the caller checks --force). A URL: PNG with provenance (source
 * URL and ETag from @image's metadata, @filter_chain, Lightbox version, time) uploaded without
 * replacing anything (If-None-Match: *), or with @overwrite over the version seen just
 * before (If-Match); the verification result is printed on stdout. */
gboolean  lb_cli_save_image   (LbImage    *image,
                               const char *arg,
                               gboolean    overwrite,
                               const char *filter_chain,
                               GError    **error);

G_END_DECLS
