/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <sys/stat.h>
#include <libsoup/soup.h>

G_BEGIN_DECLS

/*
 * Conditional requests on files (RFC 9110 §13): strong ETags, If-Match, If-None-Match,
 * If-Modified-Since, If-Unmodified-Since and If-Range; and the byte range a GET asks for (§14).
 */

typedef enum {
  LB_HTTP_RANGE_NONE,          /* all of the representation: 200 */
  LB_HTTP_RANGE_PARTIAL,       /* one satisfiable range: 206 */
  LB_HTTP_RANGE_UNSATISFIABLE, /* 416 */
} LbHttpRange;

/*
 * The precondition fields of a request. lb_http_preconditions_read() fills one that borrows the
 * header values; lb_http_preconditions_dup() makes one that owns copies, for a worker thread
 * that must not touch the message (freed with lb_http_preconditions_free()).
 */
typedef struct {
  const char *if_match;
  const char *if_none_match;
  const char *if_unmodified_since;
  const char *if_modified_since;
} LbHttpPreconditions;

char                *lb_http_make_etag                (const struct stat         *st);
void                 lb_http_preconditions_read       (LbHttpPreconditions       *p,
                                                       SoupMessageHeaders        *h);
LbHttpPreconditions *lb_http_preconditions_dup        (const LbHttpPreconditions *p);
void                 lb_http_preconditions_free       (LbHttpPreconditions       *p);
guint                lb_http_preconditions_evaluate   (const LbHttpPreconditions *p,
                                                       const struct stat         *st,
                                                       gboolean                   safe_method);
gboolean             lb_http_preconditions_forbid_any (const LbHttpPreconditions *p);
guint                lb_http_evaluate_preconditions   (SoupMessageHeaders        *h,
                                                       const struct stat         *st,
                                                       gboolean                   safe_method);
LbHttpRange          lb_http_select_range             (SoupMessageHeaders        *h,
                                                       goffset                    size,
                                                       const char                *etag,
                                                       gint64                     mtime_s,
                                                       goffset                   *start,
                                                       goffset                   *end);

G_END_DECLS
