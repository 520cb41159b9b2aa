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

G_END_DECLS
