/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "lb-image.h"

G_BEGIN_DECLS

/**
 * lb_image_load_bytes:
 * @name: file name or URL, for error messages and metadata
 *
 * Decodes any supported image: PNG through libpng (full bit depth), everything else
 * GdkPixbuf can read (JPEG, GIF, BMP, TIFF, …) as RGB8 or RGBA8. The size a file claims is
 * checked against @limits before decoding. Errors are in %LB_ERROR and name @name.
 */
LbImage *lb_image_load_bytes  (GBytes         *bytes,
                               const char     *name,
                               const LbLimits *limits,
                               GError        **error);
LbImage *lb_image_load_file   (const char     *path,
                               const LbLimits *limits,
                               GError        **error);
LbImage *lb_image_load_stream (GInputStream   *stream,
                               const char     *name,
                               const LbLimits *limits,
                               GCancellable   *cancellable,
                               GError        **error);

/**
 * LbImageSniffFunc:
 * @data: the first bytes of the file (all of it, or at least the first 64 KiB)
 * @name: (nullable): the file name or URL
 *
 * TRUE when the decoder registered with it should decode this file.
 */
typedef gboolean (*LbImageSniffFunc)  (const guint8   *data,
                                       gsize           len,
                                       const char     *name);
typedef LbImage *(*LbImageDecodeFunc) (GBytes         *bytes,
                                       const char     *name,
                                       const LbLimits *limits,
                                       GError        **error);

/**
 * lb_image_loader_register:
 * @format: a name for the decoder ("dicom"); registering a name again replaces it
 *
 * Adds a decoder for a format core does not know, from a layer above it (core includes no other
 * layer): lb_image_load_bytes() and so every loader here tries it after PNG and before
 * GdkPixbuf. Thread-safe.
 */
void     lb_image_loader_register (const char       *format,
                                   LbImageSniffFunc  sniff,
                                   LbImageDecodeFunc decode);

G_END_DECLS
