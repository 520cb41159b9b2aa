/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-store-entry.h"

G_BEGIN_DECLS

/**
 * LbListingContext:
 * @base_uri: the container the document describes (after redirects); ends in '/'
 * @root_uri: the store's root; nothing outside it is ever returned; ends in '/'
 * @max_entries: more entries than this fail with %LB_ERROR_TOO_LARGE (0 = no cap)
 * @cancellable: (nullable): checked while a whole document is turned into entries (a JSON
 *   listing of 200 000 entries takes seconds); cancelled, parsing stops with
 *   %G_IO_ERROR_CANCELLED. The parser keeps a reference.
 *
 * Pure parsers for the listing formats (no I/O), so they can be unit-tested and fuzzed.
 * Every returned entry is a direct child of @base_uri on the same origin: parent links,
 * other origins, query links (Apache's sort links ?C=N;O=D), fragments, the self link,
 * dot segments (also percent-encoded ones) and duplicates are dropped. Entry URIs keep the
 * server's percent-encoding; names are decoded (UTF-8).
 */
typedef struct {
  const char *base_uri;
  const char *root_uri;
  guint         max_entries;
  GCancellable *cancellable;
} LbListingContext;

typedef enum {
  LB_LISTING_HREF_REJECT,
  LB_LISTING_HREF_SELF,
  LB_LISTING_HREF_CHILD,
} LbListingHrefKind;

/* Same scheme, host and port (scheme and host case-insensitive); both must have a host. */
gboolean lb_listing_same_origin  (GUri       *a,
                                  GUri       *b);
/* The percent-decoded @path, or NULL if it hides a NUL or a dot segment ("/a/%2e%2e/b"), so
 * that it can be compared with a store's root path. */
char    *lb_listing_decoded_path (const char *path);

/**
 * lb_listing_classify_href:
 * @out_uri: (out) (optional): the absolute URI, without query and fragment
 * @out_name: (out) (optional): the decoded last segment (children only)
 * @out_is_dir: (out) (optional): the resolved path ends in '/'
 *
 * Resolves @href against ctx->base_uri and decides whether it names the base itself, one of
 * its direct children, or something to drop.
 */
LbListingHrefKind lb_listing_classify_href (const LbListingContext *ctx,
                                            const char             *href,
                                            char                  **out_uri,
                                            char                  **out_name,
                                            gboolean               *out_is_dir);

/**
 * LbListingParser:
 *
 * Streaming form of the parsers below: feed the document as it arrives; HTML and WebDAV
 * documents are parsed incrementally with libxml2's SAX push parsers (no tree is built), so
 * the entry cap stops a hostile listing as soon as it is exceeded. JSON (json-glib has no
 * incremental parser) is collected and parsed at finish; the byte cap of the caller bounds it.
 * Feed and finish may run on different threads (not at the same time): the HTTP store
 * finishes on a worker thread, so that a large JSON listing never stalls its main loop.
 */
typedef enum {
  LB_LISTING_HTML,
  LB_LISTING_JSON,
  LB_LISTING_MULTISTATUS,
} LbListingFormat;

typedef struct _LbListingParser LbListingParser;

LbListingParser *lb_listing_parser_new    (LbListingFormat         format,
                                           const LbListingContext *ctx);
void             lb_listing_parser_free   (LbListingParser        *parser);
/* FALSE (sticky) once the document is known to be bad or over the cap */
gboolean         lb_listing_parser_feed   (LbListingParser        *parser,
                                           const char             *data,
                                           gsize                   len,
                                           GError                **error);
/* (transfer full): the entries; @out_self as for lb_listing_parse_multistatus() */
GPtrArray       *lb_listing_parser_finish (LbListingParser        *parser,
                                           LbStoreEntry          **out_self,
                                           GError                **error);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LbListingParser, lb_listing_parser_free)

/* Apache / nginx HTML autoindex and python http.server (libxml2 HTML parser, recovering,
 * no network). Sizes are taken only where the index shows exact byte counts (nginx with
 * autoindex_exact_size on); mtimes where shown. */
GPtrArray *lb_listing_parse_html        (const char              *data,
                                         gsize                    len,
                                         const LbListingContext  *ctx,
                                         GError                 **error);
/* nginx autoindex_format json: [{name, type, mtime, size}] with raw (unencoded) names. */
GPtrArray *lb_listing_parse_json        (const char              *data,
                                         gsize                    len,
                                         const LbListingContext  *ctx,
                                         GError                 **error);
/**
 * lb_listing_parse_multistatus:
 * @out_self: (out) (optional): the response describing ctx->base_uri itself, if present
 *
 * WebDAV PROPFIND 207 Multi-Status, namespace-aware (any prefix for "DAV:"). Only
 * propstat blocks with a 2xx status are read. getlastmodified in RFC 1123 or ISO 8601.
 */
GPtrArray *lb_listing_parse_multistatus (const char              *data,
                                         gsize                    len,
                                         const LbListingContext  *ctx,
                                         LbStoreEntry           **out_self,
                                         GError                 **error);

G_END_DECLS
