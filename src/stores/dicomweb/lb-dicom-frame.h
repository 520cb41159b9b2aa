/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-dicom-dataset.h"
#include "lb-image.h"

G_BEGIN_DECLS

/* Transfer syntaxes whose frames are raw pixels (PS3.5 §8.1.1, §A.1–A.3). */
#define LB_DICOM_TS_IMPLICIT_LE "1.2.840.10008.1.2"
#define LB_DICOM_TS_EXPLICIT_LE "1.2.840.10008.1.2.1"
#define LB_DICOM_TS_EXPLICIT_BE "1.2.840.10008.1.2.2"

/* Common tags */
#define LB_TAG_SPECIFIC_CHARACTER_SET  LB_DICOM_TAG (0x0008, 0x0005)
#define LB_TAG_IMAGE_TYPE              LB_DICOM_TAG (0x0008, 0x0008)
#define LB_TAG_SOP_CLASS_UID           LB_DICOM_TAG (0x0008, 0x0016)
#define LB_TAG_SOP_INSTANCE_UID        LB_DICOM_TAG (0x0008, 0x0018)
#define LB_TAG_STUDY_DATE              LB_DICOM_TAG (0x0008, 0x0020)
#define LB_TAG_STUDY_TIME              LB_DICOM_TAG (0x0008, 0x0030)
#define LB_TAG_ACCESSION_NUMBER        LB_DICOM_TAG (0x0008, 0x0050)
#define LB_TAG_MODALITY                LB_DICOM_TAG (0x0008, 0x0060)
#define LB_TAG_MODALITIES_IN_STUDY     LB_DICOM_TAG (0x0008, 0x0061)
#define LB_TAG_REFERRING_PHYSICIAN     LB_DICOM_TAG (0x0008, 0x0090)
#define LB_TAG_STUDY_DESCRIPTION       LB_DICOM_TAG (0x0008, 0x1030)
#define LB_TAG_SERIES_DESCRIPTION      LB_DICOM_TAG (0x0008, 0x103E)
#define LB_TAG_PATIENT_NAME            LB_DICOM_TAG (0x0010, 0x0010)
#define LB_TAG_PATIENT_ID              LB_DICOM_TAG (0x0010, 0x0020)
#define LB_TAG_PATIENT_BIRTH_DATE      LB_DICOM_TAG (0x0010, 0x0030)
#define LB_TAG_PATIENT_SEX             LB_DICOM_TAG (0x0010, 0x0040)
#define LB_TAG_IMAGER_PIXEL_SPACING    LB_DICOM_TAG (0x0018, 0x1164)
#define LB_TAG_STUDY_INSTANCE_UID      LB_DICOM_TAG (0x0020, 0x000D)
#define LB_TAG_SERIES_INSTANCE_UID     LB_DICOM_TAG (0x0020, 0x000E)
#define LB_TAG_STUDY_ID                LB_DICOM_TAG (0x0020, 0x0010)
#define LB_TAG_SERIES_NUMBER           LB_DICOM_TAG (0x0020, 0x0011)
#define LB_TAG_INSTANCE_NUMBER         LB_DICOM_TAG (0x0020, 0x0013)
#define LB_TAG_NUMBER_OF_STUDY_INSTANCES  LB_DICOM_TAG (0x0020, 0x1208)
#define LB_TAG_NUMBER_OF_SERIES_INSTANCES LB_DICOM_TAG (0x0020, 0x1209)
#define LB_TAG_SAMPLES_PER_PIXEL       LB_DICOM_TAG (0x0028, 0x0002)
#define LB_TAG_PHOTOMETRIC             LB_DICOM_TAG (0x0028, 0x0004)
#define LB_TAG_PLANAR_CONFIGURATION    LB_DICOM_TAG (0x0028, 0x0006)
#define LB_TAG_NUMBER_OF_FRAMES        LB_DICOM_TAG (0x0028, 0x0008)
#define LB_TAG_ROWS                    LB_DICOM_TAG (0x0028, 0x0010)
#define LB_TAG_COLUMNS                 LB_DICOM_TAG (0x0028, 0x0011)
#define LB_TAG_PIXEL_SPACING           LB_DICOM_TAG (0x0028, 0x0030)
#define LB_TAG_BITS_ALLOCATED          LB_DICOM_TAG (0x0028, 0x0100)
#define LB_TAG_BITS_STORED             LB_DICOM_TAG (0x0028, 0x0101)
#define LB_TAG_HIGH_BIT                LB_DICOM_TAG (0x0028, 0x0102)
#define LB_TAG_PIXEL_REPRESENTATION    LB_DICOM_TAG (0x0028, 0x0103)
#define LB_TAG_WINDOW_CENTER           LB_DICOM_TAG (0x0028, 0x1050)
#define LB_TAG_WINDOW_WIDTH            LB_DICOM_TAG (0x0028, 0x1051)
#define LB_TAG_RESCALE_INTERCEPT       LB_DICOM_TAG (0x0028, 0x1052)
#define LB_TAG_RESCALE_SLOPE           LB_DICOM_TAG (0x0028, 0x1053)
#define LB_TAG_RESCALE_TYPE            LB_DICOM_TAG (0x0028, 0x1054)
#define LB_TAG_PIXEL_DATA              LB_DICOM_TAG (0x7FE0, 0x0010)

/* Text metadata key set on MONOCHROME1 images: minimum sample value is white, so a viewer
 * should invert the grey scale for display. The value is "true". */
#define LB_DICOM_META_INVERT "lightbox:invert"

/**
 * lb_dicom_decode_frame:
 * @metadata: the instance's data set (WADO-RS metadata): the Image Pixel module is read from it
 * @transfer_syntax: (nullable): the UID the frame is encoded in; NULL means Explicit VR Little
 *   Endian (what Lightbox asks for)
 * @frame: the raw frame bytes
 * @name: the URL or file name, for error messages and the image's source URI
 *
 * Builds an #LbImage from one uncompressed frame at full fidelity: 8-bit grey → GRAY8,
 * 9–16-bit grey → GRAY16 (stored values masked to BitsStored and, for PixelRepresentation 1,
 * sign-extended to int16 bits with meta signed set), RGB (either PlanarConfiguration) → RGB8 or
 * RGB16. Rescale slope/intercept, the first window centre/width, pixel spacing, MONOCHROME1
 * (as %LB_DICOM_META_INVERT) and the descriptive attributes (patient, study, series, modality)
 * go into the metadata.
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
