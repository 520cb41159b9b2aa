/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * A few large pixel buffers kept after their image is freed, for the next image of about the
 * same size.
 *
 * glibc serves allocations of 32 MiB and more with a fresh mmap and unmaps them when they are
 * freed, so every such buffer costs the kernel a page fault per 4 KiB on first touch: 38 ms for
 * a 48 MB image (16 Mpx RGB8) on the 2-core test VM, where the filter pass itself takes 10–15
 * ms. A filter pass makes a new image and its caller usually frees an older one, so keeping
 * that older buffer makes the next pass's output free of faults.
 *
 * What is kept: buffers of LB_PIXEL_CACHE_MIN_BYTES or more, at most LB_PIXEL_CACHE_SLOTS of
 * them and LB_PIXEL_CACHE_MAX_BYTES in all (the oldest goes first). A request takes the
 * smallest kept buffer that holds it and is no more than a quarter larger (a 64 Mpx buffer is
 * not spent on a 16 Mpx image). The contents are whatever the last image left: like malloc,
 * uninitialised. Thread-safe. In AddressSanitizer builds nothing is kept, so that a use after
 * free of an image's pixels is still reported.
 *
 * Kept memory is given back when nobody wants it: the application trims buffers unused for
 * LB_PIXEL_CACHE_IDLE_SECONDS (lb_pixel_cache_trim() from a timer), and the whole cache goes
 * when the system warns of low memory (lb_pixel_cache_watch_memory()).
 */

#define LB_PIXEL_CACHE_MIN_BYTES ((gsize) 8 << 20)
#define LB_PIXEL_CACHE_MAX_BYTES ((gsize) 256 << 20)
#define LB_PIXEL_CACHE_SLOTS 2
/* how long an unused buffer stays, at most, where the application trims (s) */
#define LB_PIXEL_CACHE_IDLE_SECONDS 60

/* A kept buffer of at least @size bytes (transfer full: g_free() it or give it back), or NULL. */
guint8   *lb_pixel_cache_take      (gsize   size);
/* Takes @pixels (from g_malloc(), holding @size bytes): kept, or freed at once. */
void      lb_pixel_cache_give      (guint8 *pixels,
                                    gsize   size);
/* Frees every kept buffer. */
void      lb_pixel_cache_clear     (void);
/* Frees the buffers kept for longer than @max_idle_usec (monotonic µs); returns the bytes
 * freed. */
gsize     lb_pixel_cache_trim      (gint64  max_idle_usec);
/* From now on, a low-memory warning of GMemoryMonitor (any level) clears the cache. The
 * signal arrives in the thread-default main context of the first call; later calls do
 * nothing. */
void      lb_pixel_cache_watch_memory (void);
/* The bytes kept now. */
gsize     lb_pixel_cache_get_bytes (void);
/* FALSE where nothing is ever kept (AddressSanitizer builds). */
gboolean  lb_pixel_cache_enabled   (void);

G_END_DECLS
