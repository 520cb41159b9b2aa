/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-dicom-dataset.h"
#include "lb-limits.h"

G_BEGIN_DECLS

/**
 * lb_dicom_decompress_frame:
 * @ds: the instance's data set: the Image Pixel module (Rows, Columns, SamplesPerPixel,
 *   BitsAllocated, BitsStored, PixelRepresentation, PhotometricInterpretation,
 *   PlanarConfiguration) describes the frame
 * @transfer_syntax: the UID of the encapsulated transfer syntax the frame is in (PS3.5 §A.4,
 *   §8.2: JPEG, JPEG-LS, JPEG 2000, RLE, …)
 * @fragments: one frame's encapsulated bytes: the values of its fragment items concatenated,
 *   without item headers (lb_dicom_file_dup_frame() or a WADO-RS frame as stored)
 * @limits: (nullable): checked against the frame's size before anything is allocated
 *
 * The one entry point of the codecs: turns one compressed frame into native pixel bytes laid
 * out as an uncompressed frame of the same Rows, Columns, SamplesPerPixel and BitsAllocated,
 * little endian, samples interleaved (PlanarConfiguration 0), which the caller then hands to
 * lb_dicom_decode_frame() with Explicit VR Little Endian. Colour conversion (YBR_*, PALETTE
 * COLOR) belongs to the codecs.
 *
 * Returns: (transfer full): the frame, or %NULL with %LB_ERROR_UNSUPPORTED for a transfer
 * syntax no codec handles (the message names it), %LB_ERROR_CORRUPT for a bad stream,
 * %LB_ERROR_TOO_LARGE over @limits.
 */
GBytes *lb_dicom_decompress_frame (const LbDicomDataset *ds,
                                   const char           *transfer_syntax,
                                   GBytes               *fragments,
                                   const LbLimits       *limits,
                                   GError              **error);

G_END_DECLS
