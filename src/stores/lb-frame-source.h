/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "lb-dicom-dataset.h"
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
 *
 * A series source is the slices of one DICOM series as one stack, in the order of
 * #LbDicomSeries (along the slice normal): frame N is slice N, read from its own file when it
 * is shown. Only the headers are read up front, on a worker thread.
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

/**
 * lb_frame_source_new_for_folder_async:
 * @folder: a local folder holding the Part 10 files of one series (other files are skipped)
 *
 * Reads the header of every file of @folder on a worker thread and orders the slices. Fails
 * with %LB_ERROR_UNSUPPORTED when the folder has no DICOM image, and when its images belong
 * to more than one series (the message names how many).
 */
void           lb_frame_source_new_for_folder_async  (GFile               *folder,
                                                      GCancellable        *cancellable,
                                                      GAsyncReadyCallback  callback,
                                                      gpointer             user_data);
/* The same from local files (file:// URIs, NULL-ended), e.g. the instances of a series of a
 * local store. */
void           lb_frame_source_new_for_files_async   (const char * const  *uris,
                                                      GCancellable        *cancellable,
                                                      GAsyncReadyCallback  callback,
                                                      gpointer             user_data);
/* The same for a series entry of @store (…/studies/x/series/y/ of a DICOMweb store): the
 * geometry of every instance from the series' metadata in one request; each slice is then
 * its instance's frame, fetched alone (WADO-RS …/frames/N). Other stores fail with
 * %LB_ERROR_UNSUPPORTED. */
void           lb_frame_source_new_for_store_series_async (LbStore             *store,
                                                           const char          *uri,
                                                           GCancellable        *cancellable,
                                                           GAsyncReadyCallback  callback,
                                                           gpointer             user_data);
/**
 * lb_frame_source_new_for_store_files_async:
 * @store: a store of folders: HTTP listing, WebDAV, lightbox-store, local
 * @what: the folder, named in errors
 * @uris: the images of the folder (entries of @store, NULL-ended)
 *
 * The images of a store folder as one stack: each is read whole through @store (a few at
 * once) for its size and samples (a DICOM file's from its header, another image decoded),
 * then read again when its slice is shown. DICOM objects without an image (SR) are skipped.
 * DICOM images are ordered as a series (along the normal, then InstanceNumber, then name),
 * other images by natural name order (slice2 before slice10). Fails with
 * %LB_ERROR_INVALID_ARGUMENT naming two images when they differ in size, sample format or kind
 * (DICOM, PNG, other): such a folder is not a stack.
 */
void           lb_frame_source_new_for_store_files_async (LbStore             *store,
                                                          const char          *what,
                                                          const char * const  *uris,
                                                          GCancellable        *cancellable,
                                                          GAsyncReadyCallback  callback,
                                                          gpointer             user_data);
LbFrameSource *lb_frame_source_new_for_series_finish (GAsyncResult        *result,
                                                      GError             **error);
/* Whether the frames are the slices of a series (else the frames of one object). */
gboolean       lb_frame_source_is_series     (LbFrameSource *self);
/* The URI frame @number is read from: its slice's file for a series, else the object's. */
const char    *lb_frame_source_get_frame_uri (LbFrameSource *self,
                                              guint          number);
/* (transfer none) (nullable) the data set of slice @number of a series (without pixel data);
 * NULL for the frames of one object. */
const LbDicomDataset *lb_frame_source_get_dataset (LbFrameSource *self,
                                                   guint          number);
/* The location of slice @number along the series' normal (mm, PS3.3 C.7.6.2.1.1); FALSE when
 * the slice has no position or the source is not a series. */
gboolean       lb_frame_source_get_location  (LbFrameSource *self,
                                              guint          number,
                                              double        *mm);
/* (transfer none) what the reader should be warned of about the series order (missing or
 * duplicate slices …), NULL-ended; empty for the frames of one object. */
const char * const *lb_frame_source_get_messages (LbFrameSource *self);

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
