/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * LbBandGuard:
 *
 * Engine-internal, for `lightbox-cli check-plugin`: a pass's destination in which only the
 * rows of the band that runs can be touched. Each row starts on a page of its own (the
 * stride is the row size rounded up to the page size) and the image is framed by a page
 * without access on either side, so mprotect() can take away every row outside the band:
 * a plugin that writes (or reads) there, or past either end of the image, faults at the
 * very instruction, and _lb_band_guard_describe_fault() says which row and which band.
 *
 * Guard pages rather than a comparison of schedules: a comparison finds a write outside the
 * band only when a later band happens to overwrite it with something else, cannot tell it
 * from nondeterminism, and never sees a write past the last row; a fault names the row.
 * Columns outside [x0, x1) share their rows' pages: the pipeline guards them with a canary
 * instead (lb-pipeline-bands.c), checked when process() returns.
 *
 * One guard is active per process at a time (the fault handler finds it without locks);
 * the pass runs its bands on one thread, in order.
 */
typedef struct _LbBandGuard LbBandGuard;

LbBandGuard *_lb_band_guard_new        (int            height,
                                        gsize          row_size,
                                        GError       **error);
void         _lb_band_guard_free       (LbBandGuard   *self);
guint8      *_lb_band_guard_get_data   (LbBandGuard   *self);
gsize        _lb_band_guard_get_stride (LbBandGuard   *self);
/* Rows [y0, y1) stay readable and writable, every other row loses all access. */
void         _lb_band_guard_enter      (LbBandGuard   *self,
                                        int            y0,
                                        int            y1);
/* The band was cancelled on row @row: rows from @row on lose all access too. */
void         _lb_band_guard_cancel_at  (LbBandGuard   *self,
                                        int            row);
/* Every row readable and writable again (between bands and for finish()). */
void         _lb_band_guard_leave      (LbBandGuard   *self);

/* Copies the rows out of the guarded mapping into @dst (@row_size bytes per row, rows
 * @dst_stride apart), an ordinary image's pixels. */
void         _lb_band_guard_copy_out   (LbBandGuard   *self,
                                        guint8        *dst,
                                        gsize          dst_stride,
                                        gsize          row_size);

/* Async-signal-safe: if @addr lies in the active guard's mapping, writes a sentence about
 * it ("row 16, outside the band of rows 8..15") into @buf (NUL-terminated) and returns
 * TRUE. */
gboolean     _lb_band_guard_describe_fault (gconstpointer addr,
                                            char         *buf,
                                            gsize         size);

G_END_DECLS
