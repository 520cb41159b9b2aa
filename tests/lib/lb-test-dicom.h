/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* DICOM for the tests: the reference data in tests/data/dicomweb and the DICOM tools that
 * check what Lightbox writes (dcmdump from DCMTK, dciodvfy from dicom3tools). */

#include <gio/gio.h>
#include <json-glib/json-glib.h>

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
/* tests/dicom/make-variants.py (pydicom, numpy) run into a new temporary directory named after
 * @tag: its path (remove it with lb_test_remove_tree()), or NULL when /usr/bin/python3 lacks
 * pydicom or numpy (the caller skips). Any other failure of the script fails the test. */
char           *lb_test_make_dicom_variants (const char *tag) G_GNUC_MALLOC;
/* tests/dicom/make-phantom.py with @options (NULL-ended: "--slices", "6", …) run into a new
 * temporary directory named after @tag: its path, with the manifest it prints in *@manifest;
 * NULL when /usr/bin/python3 lacks pydicom or numpy (the caller skips). Any other failure of
 * the script fails the test. */
char           *lb_test_make_phantom        (const char         *tag,
                                             const char * const *options,
                                             JsonNode          **manifest) G_GNUC_MALLOC;
/* The manifest's series in @dir ("axial", "sagittal"), and its file of slice @k (the index
 * along the normal). (transfer none) */
JsonObject     *lb_test_phantom_series      (JsonNode   *manifest,
                                             const char *dir);
JsonObject     *lb_test_phantom_file        (JsonObject *series,
                                             guint       k);
/* The letter of a patient direction's dominant component (PS3.3 C.7.6.2.1.1: +x is the
 * patient's left, +y posterior, +z head), for directions that are not oblique. */
char            lb_test_axis_letter         (double      x,
                                             double      y,
                                             double      z);
/* The letters at the top, right, bottom and left edges (@out[0…3]) of an unrotated view of the
 * manifest's @series: its row direction points right, its column direction down. */
void            lb_test_phantom_view_letters (JsonObject *series,
                                              char        out[4]);
/* The file make-variants.py wrote for @name with @suffix (".dcm", ".json", "-f2.values", …) in
 * @dir: its path, its bytes, or (".json") its one data set. */
char           *lb_test_variant_path        (const char *dir,
                                             const char *name,
                                             const char *suffix) G_GNUC_MALLOC;
GBytes         *lb_test_variant_bytes       (const char *dir,
                                             const char *name,
                                             const char *suffix);
LbDicomDataset *lb_test_variant_metadata    (const char *dir,
                                             const char *name);
/* Every pixel of grey @image has, through its value model, the real-world value stored for it
 * in @values_path (float64, little endian, row by row: what make-variants.py writes from
 * pydicom); the first that differs fails the test, named with @what. */
void            lb_test_check_real_values   (LbImage    *image,
                                             const char *values_path,
                                             const char *what);
/* dciodvfy checks the IOD of the file at @path: no errors allowed (warnings are advisory).
 * FALSE when dciodvfy is not installed (nothing checked). */
gboolean        lb_test_check_dciodvfy      (const char *path);

G_END_DECLS
