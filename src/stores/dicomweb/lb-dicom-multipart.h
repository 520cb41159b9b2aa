/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * LbDicomPart:
 * @content_type: the part's media type without parameters, lower case ("application/octet-stream")
 * @transfer_syntax: (nullable): the part's transfer-syntax parameter, if any
 * @location: (nullable): Content-Location of the part
 * @body: the part's bytes
 *
 * One body part of a multipart/related response (WADO-RS frames or instances, PS3.18 §8.7.3).
 */
typedef struct {
  char   *content_type;
  char   *transfer_syntax;
  char   *location;
  GBytes *body;
} LbDicomPart;

void lb_dicom_part_free (LbDicomPart *part);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LbDicomPart, lb_dicom_part_free)

/**
 * lb_dicom_multipart_parse:
 * @content_type: the response's Content-Type header (must be multipart/… with a boundary)
 * @body: the whole response body
 *
 * Splits a multipart body (RFC 2046, parsed by libsoup's SoupMultipart). The transfer syntax
 * of a part falls back to the one in the top-level type parameter
 * (type="application/octet-stream; transfer-syntax=…"). Returns (element-type LbDicomPart)
 * at least one part, or %NULL with %LB_ERROR_PARSE for a body that is not multipart, lacks a
 * boundary, is malformed or truncated, or has no parts.
 */
GPtrArray *lb_dicom_multipart_parse (const char *content_type,
                                     GBytes     *body,
                                     GError    **error);

/**
 * lb_dicom_multipart_build:
 * @type: the media type of the parts ("application/dicom"), given in the type parameter
 * @parts: (element-type GBytes): the part bodies, each sent with Content-Type @type
 * @out_content_type: (out): the Content-Type header for the request, with boundary and type
 *
 * Builds a multipart/related body (for STOW-RS, PS3.18 §10.5).
 */
GBytes    *lb_dicom_multipart_build (const char *type,
                                     GPtrArray  *parts,
                                     char      **out_content_type);

G_END_DECLS
