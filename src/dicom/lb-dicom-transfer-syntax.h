/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Transfer syntaxes besides the uncompressed ones of lb-dicom-frame.h (PS3.5 §A.5, §A.4.2). */
#define LB_DICOM_TS_DEFLATED_LE "1.2.840.10008.1.2.1.99"

/* The compressed transfer syntaxes the codecs decode (lb-dicom-codec.h; PS3.5 §8.2, §A.4,
 * PS3.6 Annex A). */
#define LB_DICOM_TS_JPEG_BASELINE    "1.2.840.10008.1.2.4.50" /* process 1, 8-bit */
#define LB_DICOM_TS_JPEG_EXTENDED    "1.2.840.10008.1.2.4.51" /* processes 2 and 4, 12-bit */
#define LB_DICOM_TS_JPEG_LOSSLESS    "1.2.840.10008.1.2.4.57" /* process 14 */
#define LB_DICOM_TS_JPEG_LOSSLESS_SV1 "1.2.840.10008.1.2.4.70" /* process 14, selection value 1 */
#define LB_DICOM_TS_JPEG_LS_LOSSLESS "1.2.840.10008.1.2.4.80"
#define LB_DICOM_TS_JPEG_LS_NEAR     "1.2.840.10008.1.2.4.81" /* near-lossless */
#define LB_DICOM_TS_J2K_LOSSLESS     "1.2.840.10008.1.2.4.90"
#define LB_DICOM_TS_J2K              "1.2.840.10008.1.2.4.91" /* lossless or lossy */
#define LB_DICOM_TS_RLE              "1.2.840.10008.1.2.5"

/**
 * LbDicomTransferSyntaxFlags:
 * @LB_DICOM_TS_EXPLICIT_VR: elements carry their VR (all but Implicit VR Little Endian)
 * @LB_DICOM_TS_BIG_ENDIAN: Explicit VR Big Endian (retired, still found)
 * @LB_DICOM_TS_DEFLATED: the data set after the meta group is raw deflate (RFC 1951)
 * @LB_DICOM_TS_ENCAPSULATED: the pixel data is a sequence of fragments (PS3.5 §A.4)
 * @LB_DICOM_TS_NATIVE_FRAGMENTS: encapsulated, but the fragments hold uncompressed frames
 *   (Encapsulated Uncompressed Explicit VR Little Endian)
 */
typedef enum {
  LB_DICOM_TS_EXPLICIT_VR       = 1 << 0,
  LB_DICOM_TS_BIG_ENDIAN        = 1 << 1,
  LB_DICOM_TS_DEFLATED          = 1 << 2,
  LB_DICOM_TS_ENCAPSULATED      = 1 << 3,
  LB_DICOM_TS_NATIVE_FRAGMENTS  = 1 << 4,
} LbDicomTransferSyntaxFlags;

/* What @uid means for reading; FALSE for a UID that is not a transfer syntax of PS3.6 Annex A
 * (private ones included). Every JPEG-family UID (1.2.840.10008.1.2.4.*) is encapsulated
 * Explicit VR Little Endian, known by name or not. */
gboolean    lb_dicom_transfer_syntax_lookup   (const char                 *uid,
                                               LbDicomTransferSyntaxFlags *flags);
/* Its name ("JPEG 2000 Image Compression"), or @uid itself when it has none here. */
const char *lb_dicom_transfer_syntax_get_name (const char *uid);

G_END_DECLS
