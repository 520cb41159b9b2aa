/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-dicom-dataset.h"
#include "lb-image.h"

G_BEGIN_DECLS

#define LB_DICOM_SOP_CLASS_SECONDARY_CAPTURE "1.2.840.10008.5.1.4.1.1.7"

/* Lightbox's implementation class UID (0002,0012): a fixed UUID-derived UID (PS3.5 §B.2). */
#define LB_DICOM_IMPLEMENTATION_CLASS_UID "2.25.259003056913731674354574428428216539020"

/**
 * lb_dicom_uid_from_uuid:
 * @uuid: a UUID in its 36-character text form
 *
 * The UID "2.25." followed by the UUID read as one unsigned 128-bit integer in decimal
 * (PS3.5 §B.2, ITU-T X.667). Returns NULL if @uuid is not a valid UUID.
 */
char   *lb_dicom_uid_from_uuid (const char *uuid);

/* A fresh UID from a random (version 4) UUID. */
char   *lb_dicom_generate_uid  (void);

/**
 * lb_dicom_write_part10:
 * @dataset: the data set; must hold SOPClassUID (0008,0016) and SOPInstanceUID (0008,0018).
 *   Group 0002 elements in it are ignored: the file meta information is generated.
 *
 * Serialises @dataset as a DICOM Part 10 file (PS3.10 §7.1): 128-byte zero preamble, "DICM",
 * the group 0002 meta information (Explicit VR Little Endian, with its group length), then the
 * data set in Explicit VR Little Endian, elements in ascending tag order, every value padded to
 * an even length (UI with NUL, other text with a space, binary with a zero byte). Sequences are
 * written with explicit lengths.
 *
 * Fails with %LB_ERROR_INVALID_ARGUMENT for a value that cannot be encoded (a number that does
 * not parse for a binary numeric VR, text too long for a 16-bit length, bulk data that was
 * never fetched) naming the tag.
 */
GBytes *lb_dicom_write_part10  (const LbDicomDataset *dataset,
                                GError              **error);

/**
 * lb_dicom_new_instance_in_study:
 * @source: an instance of the study the new one joins
 * @now: the creation time
 *
 * The start of a new instance of @sop_class in @source's study: SOP Common (SpecificCharacterSet
 * ISO_IR 192, SOPClassUID, a fresh SOPInstanceUID, InstanceCreationDate and Time) and the
 * Patient and General Study modules copied from @source (PatientName, PatientID,
 * PatientBirthDate, PatientSex, StudyInstanceUID, StudyDate, StudyTime, StudyID,
 * AccessionNumber, ReferringPhysicianName, StudyDescription; the type 2 ones written empty
 * when @source lacks them).
 */
LbDicomDataset *lb_dicom_new_instance_in_study (const char           *sop_class,
                                                const LbDicomDataset *source,
                                                GDateTime            *now);

/**
 * lb_dicom_build_secondary_capture:
 * @image: the derived pixels (alpha is dropped; grey and RGB, 8 or 16 bits)
 * @source: the metadata of the instance @image was derived from; it must carry the
 *   StudyInstanceUID
 * @derivation: (nullable): what was done, e.g. the filter chain "sharpen(amount=50)"
 * @series_number: SeriesNumber of the new series
 *
 * Builds the data set of a Secondary Capture Image instance (PS3.3 §A.8.1) in a new series of
 * the source's study: fresh SOP Instance and Series Instance UIDs, patient and study attributes
 * copied from @source, Modality OT, ConversionType WSD, ImageType DERIVED\SECONDARY,
 * SeriesDescription "Lightbox: @derivation", DerivationDescription, a SourceImageSequence
 * pointing at the source instance (with ReferencedFrameNumber when the image meta has
 * %LB_DICOM_META_FRAME_NUMBER), the Image Pixel module for @image's format, pixel spacing,
 * and SpecificCharacterSet ISO_IR 192 (UTF-8).
 *
 * When @image's metadata has a value model for its sample size (lb-value-model.h), the derived
 * image keeps the source's meaning (lb-dicom-values.h): the same photometric interpretation
 * (MONOCHROME1 stays MONOCHROME1), BitsStored and PixelRepresentation (signed sources are
 * written signed again), the Modality LUT with its units, the VOI presets, pixel padding and
 * the lossy-compression history. A colour source's model (lb_dicom_colour_value_model_new())
 * gives its derived image the lossy-compression history. A sample outside the source's stored
 * range fails with
 * %LB_ERROR_INVALID_ARGUMENT naming the value and the range: it is never clipped.
 */
LbDicomDataset *lb_dicom_build_secondary_capture (LbImage              *image,
                                                  const LbDicomDataset *source,
                                                  const char           *derivation,
                                                  guint                 series_number,
                                                  GError              **error);

G_END_DECLS
