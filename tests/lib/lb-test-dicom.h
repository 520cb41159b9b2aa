/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* DICOM for the tests: the reference data in tests/data/dicomweb and the DICOM tools that
 * check what Lightbox writes (dcmdump from DCMTK, dciodvfy from dicom3tools). */

#include <gio/gio.h>

#include "lb-dicom-dataset.h"
#include "lb-image.h"

G_BEGIN_DECLS

/* $LB_TEST_DATA/dicomweb/@name */
char           *lb_test_dicom_path          (const char *name) G_GNUC_MALLOC;
GBytes         *lb_test_dicom_load          (const char *name);
/* The one dataset of the DICOM JSON array in $LB_TEST_DATA/dicomweb/@name (a study's
 * metadata as a server returns it). */
LbDicomDataset *lb_test_dicom_load_metadata (const char *name);
/* The value dcmdump prints for @tag ("(0020,000d)") in @dump, or NULL. */
char           *lb_test_dcmdump_value       (const char *dump,
                                             const char *tag) G_GNUC_MALLOC;
/* SHA-256 of @image's pixels as the DICOM source stored them: grey samples less the value
 * model's sample offset (two's complement for signed sources), little-endian 16-bit words (or
 * bytes for 8-bit), as pydicom's pixel_array.tobytes() gives them. */
char           *lb_test_stored_sha256       (LbImage    *image) G_GNUC_MALLOC;
/* tests/dicom/check-derived.py on the DICOM file at @derived: what pydicom reads there, as a
 * table of its key=value lines (photometric, signed, bits_stored, units, windows, …). With
 * @same_as, every pixel's real-world value and padding must be @same_as's ("same_as_source"
 * is then "1"); a difference fails the test, naming the pixel. */
GHashTable     *lb_test_check_derived       (const char *derived,
                                             const char *same_as);
/* dciodvfy checks the IOD of the file at @path: no errors allowed (warnings are advisory).
 * FALSE when dciodvfy is not installed (nothing checked). */
gboolean        lb_test_check_dciodvfy      (const char *path);

G_END_DECLS
