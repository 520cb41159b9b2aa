/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* What lb-dicom-file.c (reading) and lb-dicom-pixels.c (the Image Pixel module, frames) share;
 * src/dicom only. */

#include "lb-dicom-file.h"
#include "lb-dicom-parser-private.h"
#include "lb-dicom-transfer-syntax.h"

G_BEGIN_DECLS

struct _LbDicomFile {
  GObject parent_instance;

  /* Owned */
  char           *name;
  GBytes         *data;      /* what the data set was parsed from: the file, or its inflated
                              * data set (deflate); pixel spans point into it */
  LbDicomDataset *meta;
  LbDicomDataset *dataset;
  char           *transfer_syntax;
  GArray         *fragments; /* LbDicomSpan; [0] is the Basic Offset Table */
  GArray         *frame_first; /* guint: index in fragments of each frame's first fragment, and
                                * one past the last frame's end */
  GError         *pixel_error; /* why the pixel data cannot be read (the rest of the object can) */
  GArray         *item_offsets; /* gsize: file offsets of the items of the sequence asked for */

  LbDicomTransferSyntaxFlags ts_flags;
  gboolean    has_pixels;
  gboolean    header_complete; /* header-only: the prefix reached the pixel data or the end */
  guint32     last_tag;
  LbDicomSpan pixel;          /* native pixel data */
  guint       n_frames;
  guint64     frame_bits;     /* native: Rows × Columns × SamplesPerPixel × BitsAllocated */
  guint       bits_allocated;
  char        pixel_vr[3];
};

/* lb_dicom_file_new_from_bytes(), recording the file offset of each item of the top-level
 * sequence @offsets_of in item_offsets (what DICOMDIR records point at each other with). */
LbDicomFile *_lb_dicom_file_read (GBytes           *bytes,
                                  const char       *name,
                                  LbDicomReadFlags  flags,
                                  const LbLimits   *limits,
                                  guint32           offsets_of,
                                  GError          **error);

/* Checks the Image Pixel module against itself, the limits and the pixel data, and locates
 * the frames (n_frames, frame_bits, frame_first). */
gboolean _lb_dicom_file_check_image_pixel (LbDicomFile    *self,
                                           const LbLimits *limits,
                                           GError        **error);

G_END_DECLS
