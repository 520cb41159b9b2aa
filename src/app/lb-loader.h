/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "lb-image.h"
#include "lb-png.h"

G_BEGIN_DECLS

/*
 * Progressive image loading from any stream (a store download or a local file), without GTK.
 * The stream is read on the caller's main context; decoding runs on a thread of the load's
 * own. PNG data is decoded chunk by chunk as it arrives, so the canvas can show rows while
 * the rest is still on the wire. Other formats are collected and decoded at the end through
 * lb_image_load_bytes(), on that thread too. The callbacks below run on the caller's main
 * context, at most once per main-loop iteration for rows.
 */

/* The header is known: @decoder's pixel buffer (lb_png_decoder_peek_pixels) exists and is
 * filled as rows arrive, by the decoder thread: rows outside those passed to the
 * #LbLoaderRowsFunc may change at any time. Only the size, format and buffer of @decoder may
 * be used. */
typedef void (*LbLoaderHeaderFunc) (LbPngDecoder *decoder,
                                    gpointer      user_data);
/* Rows [y0, y1) of the buffer changed. */
typedef void (*LbLoaderRowsFunc)   (guint         y0,
                                    guint         y1,
                                    gpointer      user_data);

void     lb_loader_load_async  (GInputStream        *stream,
                                const char          *name,
                                GCancellable        *cancellable,
                                LbLoaderHeaderFunc   header_func,
                                LbLoaderRowsFunc     rows_func,
                                gpointer             func_data,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data);
LbImage *lb_loader_load_finish (GAsyncResult        *result,
                                GError             **error);

G_END_DECLS
