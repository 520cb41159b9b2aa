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

char        *lb_http_make_etag              (const struct stat  *st);
guint        lb_http_evaluate_preconditions (SoupMessageHeaders *h,
                                             const struct stat  *st,
                                             gboolean            safe_method);
LbHttpRange  lb_http_select_range           (SoupMessageHeaders *h,
                                             goffset             size,
                                             const char         *etag,
                                             gint64              mtime_s,
                                             goffset            *start,
                                             goffset            *end);

G_END_DECLS
