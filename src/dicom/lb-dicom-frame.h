/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-dicom-dataset.h"
#include "lb-dicom-tags.h"   /* the attributes lb_dicom_decode_frame() reads */
#include "lb-image.h"

G_BEGIN_DECLS

/* Transfer syntaxes whose frames are raw pixels (PS3.5 §8.1.1, §A.1–A.3). */
#define LB_DICOM_TS_IMPLICIT_LE "1.2.840.10008.1.2"
#define LB_DICOM_TS_EXPLICIT_LE "1.2.840.10008.1.2.1"
#define LB_DICOM_TS_EXPLICIT_BE "1.2.840.10008.1.2.2"

/* Text metadata keys that place an image in its source: the frame's number (1-based, as
 * ReferencedFrameNumber counts) and the source's NumberOfFrames. Set for frames of
 * multi-frame objects; a derived image then references the frame it came from. */
#define LB_DICOM_META_FRAME_NUMBER "dicom:FrameNumber"
#define LB_DICOM_META_NUMBER_OF_FRAMES "dicom:NumberOfFrames"

/**
 * lb_dicom_decode_frame:
 * @metadata: the instance's data set (WADO-RS metadata): the Image Pixel module is read from it
 * @transfer_syntax: (nullable): the UID the frame is encoded in; NULL means Explicit VR Little
 *   Endian (what Lightbox asks for)
 * @frame: the raw frame bytes
 * @name: the URL or file name, for error messages and the image's source URI
 *
 * Builds an #LbImage from one uncompressed frame at full fidelity: 8-bit unsigned grey →
 * GRAY8, other grey → GRAY16 (stored values masked to BitsStored; for PixelRepresentation 1
 * sign-extended and held as offset binary, sample = stored + 32768), RGB (either
 * PlanarConfiguration) → RGB8 or RGB16. What grey samples mean (Modality LUT, units, padding,
 * every VOI preset and LUT, MONOCHROME1, lossy history: lb_dicom_value_model_new()) becomes the
 * image's #LbValueModel; pixel spacing and the descriptive attributes (patient, study, series,
 * modality) go into the metadata.
 *
 * Compressed transfer syntaxes, colour models other than MONOCHROME1/2 and RGB, and bit depths
 * other than 8 and 16 allocated bits fail with %LB_ERROR_UNSUPPORTED; inconsistent attributes
 * with %LB_ERROR_CORRUPT; a short frame with %LB_ERROR_TRUNCATED.
 */
LbImage *lb_dicom_decode_frame (const LbDicomDataset *metadata,
                                const char           *transfer_syntax,
                                GBytes               *frame,
                                const char           *name,
                                const LbLimits       *limits,
                                GError              **error);

/* "Doe^John" → "Doe, John"; components beyond the given names (middle, prefix, suffix) are
 * appended with spaces; an ideographic/phonetic part after '=' is dropped. NULL → NULL. */
char    *lb_dicom_format_person_name (const char *pn);

/* "20040119" → "2004-01-19"; anything that is not 8 digits is returned unchanged. */
char    *lb_dicom_format_date (const char *da);

G_END_DECLS
