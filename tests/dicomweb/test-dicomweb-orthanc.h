/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* test-dicomweb-orthanc: the DICOMweb store against a real Orthanc (orthanc-dicomweb) on
 * 127.0.0.1, started and seeded by orthanc-run.sh. Every expected value comes from pydicom's
 * reading of the seeded files (expected-values.py), nothing is hard-coded. The helpers and
 * main() are in test-dicomweb-orthanc.c, the subtests in -read.c and -write.c. */

#include "lb-dicom-dataset.h"
#include "lb-dicomweb-store.h"
#include "lb-image.h"
#include "lb-store.h"

extern GKeyFile *expected;   /* expected-values.py's key file */
extern char *store_url;      /* dicomweb+http://127.0.0.1:PORT/dicom-web */
extern char *http_url;       /* http://127.0.0.1:PORT/dicom-web */
extern char *run_dir;        /* orthanc-run.sh's scratch directory */
extern gboolean gdcm;        /* the server can transcode compressed frames */
extern char *auth_user;      /* set when the server requires HTTP Basic authentication */
extern char *auth_pass;

/* lb_store_write_bytes_async() (no ETag) run to its end. */
LbStoreEntry *write_bytes             (LbStore          *store,
                                       const char       *uri,
                                       GBytes           *bytes,
                                       const char       *content_type,
                                       LbStoreWriteMode  mode,
                                       GError          **error);
/* The store at store_url, with the credentials if the server wants them. */
LbStore      *open_store              (void);
/* The expected values of @group (an instance, a series, …). */
char         *exp_str                 (const char       *group,
                                       const char       *key);
gboolean      exp_bool                (const char       *group,
                                       const char       *key);
double        exp_double              (const char       *group,
                                       const char       *key);
/* The groups "instance …" of the expected values. */
char        **instance_groups         (void);
/* The instance group of the seeded file @basename, or NULL. */
char         *group_for_file          (const char       *basename);
/* The store URI of the instance of @group. */
char         *instance_uri_for        (const char       *group);
/* lb_dicomweb_store_fetch_image_async() run to its end. */
LbImage      *fetch_image             (LbStore          *store,
                                       const char       *uri,
                                       LbDicomDataset  **md,
                                       GError          **error);
/* @img against @group's expected pixels (SHA-256), size, signedness, rescale, window and
 * spacing. @spacing_tol: mm; PNG's pHYs chunk holds whole pixels per metre, so after a PNG
 * round trip the spacing is only good to about spacing² / 1000 mm. */
void          check_image_against_tol (LbImage          *img,
                                       const char       *group,
                                       double            spacing_tol);
/* check_image_against_tol() with an exact spacing. */
void          check_image_against     (LbImage          *img,
                                       const char       *group);

/* GET …/instances/{uid} as application/dicom (WADO-RS retrieve instance) into @name in
 * run_dir; returns the path. */
char         *retrieve_instance_file  (LbStore          *store,
                                       const char       *st,
                                       const char       *se,
                                       const char       *in,
                                       const char       *name);

/* test-dicomweb-orthanc-frames.c (last: it adds instances) */
void test_frames (void);

/* test-dicomweb-orthanc-reports.c */
void test_save_report (void);

/* test-dicomweb-orthanc-values.c */
void test_values_round_trip (void);

/* test-dicomweb-orthanc-voi.c */
void test_voi_lut_bulk (void);

/* test-dicomweb-orthanc-read.c */
void test_open (void);
void test_tree (void);
void test_tree_errors (void);
void test_fetch_images (void);
void test_read_stream (void);
void test_missing_instance (void);
void test_auth (void);
void test_cancelled (void);
void test_paging (void);
/* test-dicomweb-orthanc-write.c */
void test_stow_derived (void);
void test_write_back (void);
void test_write_refusals (void);
void test_write_raw_dicom (void);
void test_empty_patient (void);
