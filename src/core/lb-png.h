/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "lb-image.h"

G_BEGIN_DECLS

/**
 * LbPngDecoder:
 *
 * A progressive PNG decoder on libpng's push interface: feed it bytes as they arrive (from
 * a download, say) and it decodes as far as the data allows. Every colour type and bit depth
 * of the PNG specification is read; 1/2/4-bit gray and palette images widen to 8 bits,
 * 16-bit images stay 16-bit, palette images with tRNS gain alpha, and Adam7 is de-interlaced.
 * tEXt, zTXt and iTXt chunks become text metadata, pHYs in metres becomes pixel spacing.
 *
 * Dimensions are checked against the #LbLimits before anything is allocated. An error
 * (corrupt data, bad CRC, over the limits) is sticky: later feeds fail with the same error.
 */
typedef struct _LbPngDecoder LbPngDecoder;

/* Called from lb_png_decoder_feed() after rows [y0, y1) of the image buffer changed.
 * For interlaced files the buffer is updated once per Adam7 pass. */
typedef void (*LbPngRowsFunc) (LbPngDecoder *decoder,
                               guint         y0,
                               guint         y1,
                               gpointer      user_data);

/* @name: the file name or URL used in error messages */
LbPngDecoder   *lb_png_decoder_new        (const char     *name,
                                           const LbLimits *limits);
void            lb_png_decoder_free       (LbPngDecoder   *decoder);
void            lb_png_decoder_set_rows_func (LbPngDecoder  *decoder,
                                           LbPngRowsFunc   func,
                                           gpointer        user_data);
gboolean        lb_png_decoder_feed       (LbPngDecoder   *decoder,
                                           const guint8   *data,
                                           gsize           len,
                                           GError        **error);
/* TRUE once the header has been read: the size and format below are then valid. */
gboolean        lb_png_decoder_has_header (LbPngDecoder   *decoder);
guint           lb_png_decoder_get_width  (LbPngDecoder   *decoder);
guint           lb_png_decoder_get_height (LbPngDecoder   *decoder);
LbSampleFormat  lb_png_decoder_get_format (LbPngDecoder   *decoder);
/* TRUE once the IEND chunk has been read: the image is complete, anything fed after it is
 * ignored (a reader of a stream can stop there). */
gboolean        lb_png_decoder_is_complete (LbPngDecoder  *decoder);
/* The pixel buffer being filled (rows not yet decoded are zero), or NULL before the header. */
const guint8   *lb_png_decoder_peek_pixels (LbPngDecoder  *decoder,
                                           gsize          *stride);
/* The complete image, or %LB_ERROR_TRUNCATED if the IEND chunk was never reached. */
LbImage        *lb_png_decoder_finish     (LbPngDecoder   *decoder,
                                           GError        **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LbPngDecoder, lb_png_decoder_free)

/* TRUE if @data starts with the 8-byte PNG signature. */
gboolean  lb_png_sniff            (const guint8   *data,
                                   gsize           len);
LbImage  *lb_png_load_bytes       (GBytes         *bytes,
                                   const char     *name,
                                   const LbLimits *limits,
                                   GError        **error);
/* Reads @stream in chunks (64 KiB) and decodes as it goes. */
LbImage  *lb_png_load_stream      (GInputStream   *stream,
                                   const char     *name,
                                   const LbLimits *limits,
                                   GCancellable   *cancellable,
                                   GError        **error);

/**
 * lb_png_save_to_stream:
 *
 * Writes @image as an 8- or 16-bit PNG of the matching colour type (gray, gray+alpha, RGB,
 * RGBA), non-interlaced. Text metadata becomes tEXt when key and value are Latin-1 printable,
 * iTXt (UTF-8) otherwise; pixel spacing becomes pHYs; the value model (lb-value-model.h) and
 * the exact spacing are kept in "lightbox:*" text chunks so a round trip preserves them.
 */
gboolean  lb_png_save_to_stream   (LbImage        *image,
                                   GOutputStream  *stream,
                                   GCancellable   *cancellable,
                                   GError        **error);
GBytes   *lb_png_save_to_bytes    (LbImage        *image,
                                   GError        **error);
/* Atomic: writes a temporary file next to @path and renames it over @path only when
 * complete, so a failure never leaves a partial file. */
gboolean  lb_png_save_to_file     (LbImage        *image,
                                   const char     *path,
                                   GError        **error);

G_END_DECLS
