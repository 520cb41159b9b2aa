/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "lb-image.h"
#include "lb-store.h"

G_BEGIN_DECLS

/**
 * LbFrameSource:
 *
 * The frames of one multi-frame DICOM object, decoded one at a time when asked for (a
 * 300-frame cine is never decoded up front): a local Part 10 file (a file:// URI, from a local
 * store or opened directly) is mapped once and each frame decoded from it on a worker thread;
 * an instance of a DICOMweb store is asked for …/frames/N (WADO-RS) each time. Frames count
 * from 1, as DICOM numbers them. No GTK: the callbacks run on the caller's main context.
 */
#define LB_TYPE_FRAME_SOURCE (lb_frame_source_get_type ())
G_DECLARE_FINAL_TYPE (LbFrameSource, lb_frame_source, LB, FRAME_SOURCE, GObject)

/* @store: (nullable): the store @uri belongs to; NULL for a local file's URI.
 * @n_frames: NumberOfFrames of the object (its first frame's %LB_DICOM_META_NUMBER_OF_FRAMES). */
LbFrameSource *lb_frame_source_new          (LbStore        *store,
                                             const char     *uri,
                                             guint           n_frames);
/* The image's source when it is a frame of a multi-frame object (its metadata has
 * %LB_DICOM_META_NUMBER_OF_FRAMES > 1), else NULL. */
LbFrameSource *lb_frame_source_new_for_image (LbStore       *store,
                                              const char    *uri,
                                              LbImage       *image);
guint          lb_frame_source_get_n_frames (LbFrameSource  *self);
const char    *lb_frame_source_get_uri      (LbFrameSource  *self);
/* Seconds between frames for cine (FrameTime, RecommendedDisplayFrameRate or CineRate, from
 * the image's metadata); 0 when the object does not say. */
double         lb_frame_source_get_interval (LbFrameSource  *self);

/* Frame @number (1 … n_frames); a number outside is %LB_ERROR_INVALID_ARGUMENT naming it
 * and the frame count. */
void           lb_frame_source_load_async   (LbFrameSource       *self,
                                             guint                number,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data);
LbImage       *lb_frame_source_load_finish  (LbFrameSource       *self,
                                             GAsyncResult        *result,
                                             GError             **error);

G_END_DECLS
