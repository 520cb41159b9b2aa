/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-dicom-dataset.h"
#include "lb-limits.h"

G_BEGIN_DECLS

/* TRUE for the colour models lb_dicom_colour_to_rgb() converts: YBR_FULL, YBR_FULL_422,
 * YBR_PARTIAL_422, YBR_PARTIAL_420, YBR_RCT, YBR_ICT and PALETTE COLOR. */
gboolean lb_dicom_colour_is_convertible (const char *photometric);

/**
 * lb_dicom_colour_to_rgb:
 * @ds: the data set: Rows, Columns, BitsAllocated, BitsStored, PixelRepresentation,
 *   PlanarConfiguration, and for PALETTE COLOR the Red/Green/Blue Palette Color Lookup Table
 *   Descriptors with their Data or Segmented Data (PS3.3 §C.7.6.3.1.5–6, §C.7.9.2; the data
 *   as little-endian bytes, as the DICOM JSON model's InlineBinary holds them)
 * @photometric: the colour model of @frame's samples
 * @frame: the pixels
 * @native: TRUE when @frame is laid out as an uncompressed frame of @ds stores it
 *   (YBR_FULL_422 and YBR_PARTIAL_422 with their chroma subsampled in pairs of pixels,
 *   PlanarConfiguration honoured, byte order per @big_endian); FALSE for a frame from
 *   lb_dicom_decompress_frame() (full resolution, interleaved, little endian, and for
 *   YBR_RCT/YBR_ICT already RGB)
 * @big_endian: byte order of @frame's 16-bit samples when @native
 * @limits: (nullable): the pixel and byte limits for the RGB frame
 * @out_bits_allocated: (out): 8 or 16, the size of each RGB sample
 * @out_bits_stored: (out): the bits that hold the value (the source's BitsStored for YBR,
 *   the palette's entry size for PALETTE COLOR)
 *
 * Converts one frame to RGB per PS3.3 §C.7.6.3.1.2: YBR_FULL with the standard's equations
 * (R = Y + 1.402 (Cr − h), G = Y − 0.344136 (Cb − h) − 0.714136 (Cr − h),
 * B = Y + 1.772 (Cb − h), h = 2^(BitsStored−1)), rounded to nearest and clamped; the
 * subsampled forms by repeating each chroma pair for both pixels; YBR_PARTIAL_* through the
 * inverse of the standard's partial-range equations; PALETTE COLOR through its lookup tables
 * (values below the first mapped value take the first entry, above the last the last).
 *
 * Returns (transfer full) RGB samples interleaved by pixel, little endian, or %NULL with
 * %LB_ERROR_CORRUPT (inconsistent attributes, a damaged palette), %LB_ERROR_TRUNCATED (a short
 * frame or table), %LB_ERROR_UNSUPPORTED or %LB_ERROR_TOO_LARGE.
 */
GBytes  *lb_dicom_colour_to_rgb (const LbDicomDataset *ds,
                                 const char           *photometric,
                                 GBytes               *frame,
                                 gboolean              native,
                                 gboolean              big_endian,
                                 const LbLimits       *limits,
                                 guint                *out_bits_allocated,
                                 guint                *out_bits_stored,
                                 GError              **error);

G_END_DECLS
