/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "lb-frame-source.h"

G_BEGIN_DECLS

/**
 * LbSeriesLoader:
 *
 * Loads every frame of an #LbFrameSource (the slices of a series, the frames of a multi-frame
 * object) in the background, a few at a time, nearest first around the frame being read, and
 * keeps the decoded images in memory up to a byte budget. GTK-free: one per stack shown
 * (a viewport), its signals on the thread-default main context it was made in.
 *
 * Order: the frame not yet loaded nearest to the current one (lb_series_loader_set_current()),
 * the next one on a tie, so paging re-prioritises at once; when the current frame is not loaded
 * and every connection is busy, the request farthest from it is cancelled to make room.
 *
 * Memory: decoded images are kept while their bytes stay within the budget (by default the
 * pixel limit of lb_limits_get_default(), the most one image may have); past it the frame
 * farthest from the current one is dropped, and frames farther than every kept one are not
 * fetched, so a series larger than the budget keeps a window around the reader.
 *
 * lb_series_loader_cancel() stops the background loading at once: every request is
 * cancelled but the current frame's, which the reader waits for; afterwards only the current
 * frame is still loaded when asked for.
 *
 * Signals: "frame-loaded" (guint number) when a frame is in memory, "frame-failed" (guint
 * number) when it could not be loaded (lb_series_loader_get_error()), "progress" after
 * either, and after a cancel.
 */
#define LB_TYPE_SERIES_LOADER (lb_series_loader_get_type ())
G_DECLARE_FINAL_TYPE (LbSeriesLoader, lb_series_loader, LB, SERIES_LOADER, GObject)

/* Requests at once by default, and the most allowed (the HTTP session keeps 6 connections per
 * host) */
#define LB_SERIES_LOADER_DEFAULT_PARALLEL 4
#define LB_SERIES_LOADER_MAX_PARALLEL 6

/* @parallel: requests at once (1 … LB_SERIES_LOADER_MAX_PARALLEL; 0 for the default);
 * @budget_bytes: the most decoded pixel bytes kept (0 for the default). Nothing is loaded
 * before lb_series_loader_set_current(). */
LbSeriesLoader *lb_series_loader_new            (LbFrameSource  *source,
                                                 guint           parallel,
                                                 guint64         budget_bytes);
LbFrameSource  *lb_series_loader_get_source     (LbSeriesLoader *self);
/* The frame being read (1 … n): loading goes on nearest it. */
void            lb_series_loader_set_current    (LbSeriesLoader *self,
                                                 guint           number);
/* (transfer full) (nullable) frame @number when it is in memory */
LbImage        *lb_series_loader_get_image      (LbSeriesLoader *self,
                                                 guint           number);
/* (transfer none) (nullable) why frame @number failed, when it did */
const GError   *lb_series_loader_get_error      (LbSeriesLoader *self,
                                                 guint           number);
/* Frames in memory now, out of lb_frame_source_get_n_frames(). */
guint           lb_series_loader_get_n_loaded   (LbSeriesLoader *self);
/* Frame requests started so far (cancelled ones included). */
guint           lb_series_loader_get_n_requests (LbSeriesLoader *self);
/* Requests under way now. */
guint           lb_series_loader_get_n_active   (LbSeriesLoader *self);
/* Decoded bytes kept now. */
guint64         lb_series_loader_get_bytes      (LbSeriesLoader *self);
/* Whether nothing more will be fetched: every frame loaded or failed, or the budget full
 * around the current frame, or cancelled. */
gboolean        lb_series_loader_is_idle        (LbSeriesLoader *self);
/* Stops the background loading (see above). */
void            lb_series_loader_cancel         (LbSeriesLoader *self);
gboolean        lb_series_loader_is_cancelled   (LbSeriesLoader *self);

G_END_DECLS
