/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-dicom-dataset.h"
#include "lb-image.h"

G_BEGIN_DECLS

/* Multi-frame objects as stacks of frames: what one frame of them means (the Multi-frame
 * Functional Groups module, PS3.3 C.7.6.16), how a frame becomes an image that knows its place
 * in the stack, and how fast a stack plays (PS3.3 C.7.6.5, Cine module). Frames are numbered
 * from 1, as NumberOfFrames and ReferencedFrameNumber count. */

/* NumberOfFrames (0028,0008); 1 when absent, empty or not a positive number. */
guint           lb_dicom_get_n_frames      (const LbDicomDataset *md);

/**
 * lb_dicom_frame_dataset_new:
 * @md: the object's data set
 * @number: 1 … NumberOfFrames
 * @name: for error messages
 *
 * The data set that describes frame @number alone: @md without the functional group sequences,
 * with the attributes of the functional groups that decide what a pixel means merged in (Pixel
 * Measures: PixelSpacing, SliceThickness; Pixel Value Transformation: RescaleSlope,
 * RescaleIntercept, RescaleType; Frame VOI LUT: WindowCenter, WindowWidth, their explanation,
 * VOILUTFunction). A group in the frame's item of the Per-frame Functional Groups Sequence wins
 * over the same group in the Shared Functional Groups Sequence, and both over the top level
 * (PS3.3 C.7.6.16.1).
 *
 * A group is shared or given for every frame (C.7.6.16.1): a per-frame sequence with fewer
 * items than frames, or a group that other frames carry but frame @number has neither in its
 * item nor shared, fails with %LB_ERROR_CORRUPT naming the attribute and the frame; so does a
 * group sequence without an item. An object without functional groups gives a copy of @md.
 */
LbDicomDataset *lb_dicom_frame_dataset_new (const LbDicomDataset *md,
                                            guint                 number,
                                            const char           *name,
                                            GError              **error);

/**
 * lb_dicom_decode_frame_number:
 * @md: the object's data set
 * @number: 1 … NumberOfFrames: which frame @frame is
 *
 * lb_dicom_decode_frame() on the data set of frame @number (lb_dicom_frame_dataset_new()), so
 * each frame of an enhanced object gets its own value model and pixel spacing. The image of a
 * frame of a multi-frame object carries %LB_DICOM_META_FRAME_NUMBER and
 * %LB_DICOM_META_NUMBER_OF_FRAMES, which the workstation shows and the writer references
 * (ReferencedFrameNumber), and %LB_DICOM_META_FRAME_INTERVAL when the object gives a frame
 * rate. A @number outside the object fails with %LB_ERROR_INVALID_ARGUMENT
 * naming it and the frame count.
 */
LbImage        *lb_dicom_decode_frame_number (const LbDicomDataset *md,
                                              const char           *transfer_syntax,
                                              GBytes               *frame,
                                              guint                 number,
                                              const char           *name,
                                              const LbLimits       *limits,
                                              GError              **error);

/* FALSE with an error naming @number and the frame count unless 1 ≤ @number ≤ @n_frames. */
gboolean        lb_dicom_check_frame_number (guint                number,
                                             guint                n_frames,
                                             const char          *name,
                                             GError             **error);

/**
 * lb_dicom_get_frame_interval:
 *
 * Seconds between frames when a multi-frame object plays as cine: FrameTime (0018,1063, in
 * ms), else RecommendedDisplayFrameRate (0008,2144) or CineRate (0018,0040), in frames per
 * second (PS3.3 C.7.6.5). 0 when the object says nothing usable.
 */
double          lb_dicom_get_frame_interval (const LbDicomDataset *md);

G_END_DECLS
