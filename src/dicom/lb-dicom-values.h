/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-dicom-dataset.h"
#include "lb-image.h"
#include "lb-value-model.h"

G_BEGIN_DECLS

/**
 * lb_dicom_value_model_new:
 * @md: the data set holding the Image Pixel, Modality LUT and VOI LUT modules (for a frame of
 *   an enhanced multi-frame object: the data set with that frame's functional groups merged in)
 * @sample_bits: 8 or 16: the samples the decoder produces
 * @is_signed: PixelRepresentation 1 (the samples then hold stored + 32768)
 * @bits_stored: BitsStored
 * @transfer_syntax: (nullable): the syntax the frame was stored in; a lossy one marks the
 *   image lossy (see lb_dicom_lossy_method())
 * @name: for error messages
 *
 * Reads what the samples mean from @md (PS3.3):
 * - the Modality LUT (C.11.1): RescaleSlope/RescaleIntercept, or the first item of the
 *   Modality LUT Sequence;
 * - the units: RescaleType or ModalityLUTType, "US" (unspecified) meaning none; HU for a CT
 *   without either (C.8.2.1.1); none otherwise;
 * - pixel padding (C.7.5.1.1.2): PixelPaddingValue and PixelPaddingRangeLimit, as samples;
 * - the VOI (C.11.2): every WindowCenter/WindowWidth pair with its
 *   WindowCenterWidthExplanation, VOILUTFunction, every VOI LUT Sequence item;
 * - MONOCHROME1, the Presentation LUT Shape (C.7.6.1, C.11.6.1.2: IDENTITY or INVERSE;
 *   anything else fails), and the Lossy Image Compression attributes (C.7.6.1.1.5). A frame
 *   stored in a lossy transfer syntax whose data set does not say "01" has been through lossy
 *   compression all the same: it becomes "01" with the syntax's method (ratio unknown); one
 *   that says "01" without a method gets the syntax's method too.
 *
 * LUT data must be in the data set (InlineBinary or numbers); an inconsistent LUT descriptor,
 * LUT data that is absent or of the wrong size, or a rescale slope of 0 fail with
 * %LB_ERROR_CORRUPT naming the attribute and the value.
 */
LbValueModel *lb_dicom_value_model_new   (const LbDicomDataset *md,
                                          guint                 sample_bits,
                                          gboolean              is_signed,
                                          guint                 bits_stored,
                                          const char           *transfer_syntax,
                                          const char           *name,
                                          GError              **error);

/**
 * lb_dicom_colour_value_model_new:
 * @md: the data set of a colour image (RGB, YBR, PALETTE COLOR)
 * @sample_bits: 8 or 16: the RGB samples the decoder produces
 * @bits_stored: BitsStored
 * @transfer_syntax: (nullable): the syntax the frame was stored in
 *
 * The colour model (lb_value_model_get_colour()) of a colour image: its lossy-compression
 * history, read as lb_dicom_value_model_new() reads it, so that an image derived from a lossy
 * colour source says so (PS3.3 C.7.6.1.1.5).
 */
LbValueModel *lb_dicom_colour_value_model_new (const LbDicomDataset *md,
                                               guint                 sample_bits,
                                               guint                 bits_stored,
                                               const char           *transfer_syntax);

/* The Lossy Image Compression Method (PS3.3 C.7.6.1.1.5.1) of a transfer syntax that may be
 * lossy: "ISO_10918_1" (JPEG baseline, extended), "ISO_14495_1" (JPEG-LS near-lossless),
 * "ISO_15444_1" (JPEG 2000, counted lossy unless "Lossless Only"), "ISO_15444_15" (HTJ2K),
 * "ISO_13818_2" (MPEG-2), "ISO_14496_10" (H.264), "ISO_23008_2" (H.265); NULL otherwise. */
const char   *lb_dicom_lossy_method      (const char           *transfer_syntax);

/**
 * lb_dicom_value_model_write:
 * @model: what the samples of the image to be written mean
 * @ds: the data set being built (a derived image)
 *
 * Writes what @model says as DICOM attributes: the Modality LUT module (rescale with its
 * RescaleType, or the Modality LUT Sequence), the VOI LUT module (every window with its
 * explanation, the VOI LUT Function, the VOI LUT Sequence), PixelPaddingValue and
 * PixelPaddingRangeLimit (in the order PS3.3 C.7.5.1.1.2 asks for the photometric
 * interpretation), the PresentationLUTShape the source had, and LossyImageCompression "01"
 * with its ratio and method history. Of a colour model only the lossy history is written.
 * PhotometricInterpretation, BitsStored and PixelRepresentation are the writer's: see
 * lb_dicom_value_model_stored_pixels().
 */
void          lb_dicom_value_model_write (const LbValueModel   *model,
                                          LbDicomDataset       *ds);

/**
 * lb_dicom_value_model_photometric:
 *
 * The PhotometricInterpretation of a derived grey image whose samples @model describes:
 * MONOCHROME1 when its presentation is inverse (lb_value_model_get_presentation_inverse()),
 * else MONOCHROME2. It is the source's, except for a source whose Presentation LUT Shape
 * contradicts its photometric interpretation (MONOCHROME2 with INVERSE, MONOCHROME1 with
 * IDENTITY, which PS3.3 C.7.6.1 does not allow): the derived image then pairs them as the
 * standard does and is presented the same.
 */
const char   *lb_dicom_value_model_photometric (const LbValueModel *model);

/**
 * lb_dicom_value_model_stored_pixels:
 * @image: grey samples of @model's sample size
 *
 * The Pixel Data of @image as the source stored it: stored = sample − the sample offset, as
 * little-endian 8- or 16-bit words (two's complement for a signed source). Every value must
 * fit the source's BitsStored and signedness; the first that does not fails with
 * %LB_ERROR_INVALID_ARGUMENT naming the value (stored and real-world), where it is, and the range.
 */
GBytes       *lb_dicom_value_model_stored_pixels (const LbValueModel *model,
                                                  LbImage            *image,
                                                  GError            **error);

G_END_DECLS
