/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * LB_ERROR:
 *
 * Lightbox's own error domain. Every failure that reaches a user is a GError in this domain
 * (or a GIO/libsoup error prefixed with context), with a message that names the file or URL
 * and the reason.
 */
#define LB_ERROR (lb_error_quark ())

typedef enum {
  LB_ERROR_FAILED,           /* anything not covered below */
  LB_ERROR_INVALID_ARGUMENT, /* a caller passed a bad value: parameter out of range, bad syntax */
  LB_ERROR_TRUNCATED,        /* the data ended before the format said it would */
  LB_ERROR_CORRUPT,          /* bad CRC, bad signature, inconsistent headers */
  LB_ERROR_UNSUPPORTED,      /* valid but not something Lightbox handles (format, bit depth) */
  LB_ERROR_TOO_LARGE,        /* over a configured pixel/byte limit, or a size overflows */
  LB_ERROR_NO_MEMORY,        /* an allocation within the limits still failed */
  LB_ERROR_CANCELLED,        /* prefer G_IO_ERROR_CANCELLED; this is for non-GIO layers */
  LB_ERROR_PLUGIN,           /* a plugin could not be loaded or failed validation */
  LB_ERROR_PARSE,            /* a text format (declarative filter, listing) is malformed */
  LB_ERROR_NOT_FOUND,        /* no such filter, entry or resource */
  LB_ERROR_CONFLICT,         /* write refused to protect existing data (412, name taken) */
  LB_ERROR_PERMISSION,       /* authentication or authorisation refused */
  LB_ERROR_NETWORK,          /* transport-level failure: connect, TLS, timeout, protocol */
  LB_ERROR_HTTP,             /* an HTTP status not mapped to a more specific code */
} LbError;

GQuark lb_error_quark (void);

G_END_DECLS
