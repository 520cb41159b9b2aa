/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-dicom-dataset.h"
#include "lb-dicom-transfer-syntax.h"
#include "lb-limits.h"

G_BEGIN_DECLS

/* TRUE for the compressed transfer syntaxes lb_dicom_decompress_frame() decodes: JPEG
 * baseline, extended, lossless and SV1, JPEG-LS lossless and near-lossless, JPEG 2000 lossless
 * and lossy, RLE Lossless (lb-dicom-transfer-syntax.h names their UIDs). */
gboolean    lb_dicom_codec_supports        (const char *transfer_syntax);

/**
 * lb_dicom_decompress_frame:
 * @ds: the instance's data set: Rows, Columns, SamplesPerPixel, BitsAllocated, BitsStored and
 *   PixelRepresentation describe the frame
 * @transfer_syntax: the UID of the encapsulated transfer syntax
 * @fragments: one frame's encapsulated bytes, its fragments concatenated (PS3.5 §A.4)
 * @limits: (nullable): the pixel and byte limits; %NULL for the defaults
 *
 * Decodes one frame of JPEG (baseline, extended 12-bit, lossless process 14 and its SV1
 * form), JPEG-LS (lossless, near-lossless), JPEG 2000 (lossless, lossy) or RLE Lossless.
 *
 * Returns the frame as an uncompressed frame of the same Rows, Columns, SamplesPerPixel and
 * BitsAllocated would hold it: samples little endian, interleaved by pixel
 * (PlanarConfiguration 0), stored values in the low BitsStored bits as the stream holds them.
 * The colour samples are those of the stream: no colour transform is applied, so a
 * YBR_FULL or YBR_FULL_422 JPEG comes out as YBR_FULL (at full resolution) and an RGB one as
 * RGB; the one exception is JPEG 2000's YBR_RCT/YBR_ICT, whose inverse transform is part of
 * decoding the codestream and gives RGB (PS3.5 §A.4.4). lb_dicom_prepare_frame() and
 * lb_dicom_decode_frame() take care of both steps.
 *
 * Errors name the transfer syntax and what went wrong: %LB_ERROR_UNSUPPORTED for another
 * transfer syntax or a frame layout the syntax cannot hold, %LB_ERROR_CORRUPT for a stream
 * that is damaged or describes another image than the data set, %LB_ERROR_TRUNCATED for one
 * that ends early, %LB_ERROR_TOO_LARGE for a frame over @limits (checked before anything is
 * allocated).
 */
GBytes     *lb_dicom_decompress_frame (const LbDicomDataset *ds,
                                       const char           *transfer_syntax,
                                       GBytes               *fragments /* one frame's encapsulated bytes, fragments concatenated */,
                                       const LbLimits       *limits,
                                       GError              **error);

/**
 * lb_dicom_prepare_frame:
 * @ds: the instance's data set
 * @transfer_syntax: (nullable): the frame's transfer syntax (%NULL: Explicit VR Little Endian)
 * @frame: the frame's bytes: native pixels, or one frame's fragments concatenated
 * @limits: (nullable): the pixel and byte limits
 * @out_ds: (out) (transfer full): the data set that describes *@out_frame
 * @out_frame: (out) (transfer full): the frame to decode
 * @out_transfer_syntax: (out): the transfer syntax of *@out_frame (@transfer_syntax, or
 *   Explicit VR Little Endian when it changed)
 *
 * Brings a frame to what lb_dicom_decode_frame() reads directly: uncompressed, and grey
 * (MONOCHROME1/2) or RGB. A compressed frame is decompressed (lb_dicom_decompress_frame());
 * YBR_FULL, YBR_FULL_422, YBR_PARTIAL_422/420, YBR_RCT/ICT and PALETTE COLOR become RGB
 * (lb-dicom-colour.h). *@out_ds is then a copy of @ds with the Image Pixel attributes of the
 * new frame (PhotometricInterpretation RGB, PlanarConfiguration 0, …); every other attribute
 * is unchanged. A frame that needs neither comes back as it is, with @ds.
 */
gboolean    lb_dicom_prepare_frame    (const LbDicomDataset *ds,
                                       const char           *transfer_syntax,
                                       GBytes               *frame,
                                       const LbLimits       *limits,
                                       LbDicomDataset      **out_ds,
                                       GBytes              **out_frame,
                                       const char          **out_transfer_syntax,
                                       GError              **error);

G_END_DECLS
