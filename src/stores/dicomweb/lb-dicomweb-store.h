/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-dicom-dataset.h"
#include "lb-image.h"
#include "lb-store.h"

G_BEGIN_DECLS

/**
 * LbDicomwebStore:
 *
 * An #LbStore over a DICOMweb server (PS3.18): QIDO-RS to browse, WADO-RS to fetch frames and
 * metadata, STOW-RS to store derived images. Opened from "dicomweb+http://host/base" or
 * "dicomweb+https://…", or from an http(s) URL with #LbStoreOptions.type "dicomweb". The
 * base is the DICOMweb root (Orthanc: http://host:8042/dicom-web). Entry URIs keep the scheme
 * the store was opened with: prefer dicomweb+http(s):// so that an entry URI handed to
 * lb_store_new_for_uri() later (lightbox-cli get) finds this backend again without a type.
 *
 * A URI below the DICOMweb root (…/dicom-web/studies/x/) opens the same server, with that
 * level as the store's own root (what a NULL URI lists): the DICOMweb root is the path before
 * the first "studies" or "patients" segment.
 *
 * The tree (URIs relative to the DICOMweb root, which ends in '/'):
 *   (root)                                   patients, grouped by PatientID from /studies
 *   patients/{PatientID}/                    that patient's studies (an empty ID is an empty
 *                                            segment)
 *   studies/{StudyUID}/                      series
 *   studies/{StudyUID}/series/{SeriesUID}/   instances
 *   studies/{…}/series/{…}/instances/{SOPInstanceUID}   an image
 *   studies/{…}/series/{…}/instances/{SOPInstanceUID}/frames/{N}   frame N of it (1-based)
 * so the path below the root is also the DICOMweb path of the resource. Display names are
 * readable labels ("Doe, John (12345)", "2004-01-19 Head CT", "CT #2 Axial 5mm", "#17") with
 * fallbacks for empty tags; the UIDs are in the entries' attributes ("StudyInstanceUID", …).
 *
 * Reading an instance yields a 16-bit (or 8-bit, RGB) PNG of the first frame at full fidelity
 * (the value model and spacing in its lightbox:* text chunks), so generic code that decodes
 * store content gets the real values; lb_dicomweb_store_fetch_image_async()
 * returns the #LbImage directly.
 *
 * Writing stores a derived image as a new Secondary Capture instance in a new series of the
 * source's study (STOW-RS): the content is a PNG (or anything Lightbox decodes) whose metadata
 * names the source instance (the dicom:*UID keys set when it was read, or "Source" from the
 * write-back provenance), or a ready DICOM Part 10 file (application/dicom). Only
 * %LB_STORE_WRITE_CREATE is possible: instances are never replaced.
 */
#define LB_TYPE_DICOMWEB_STORE (lb_dicomweb_store_get_type ())
G_DECLARE_FINAL_TYPE (LbDicomwebStore, lb_dicomweb_store, LB, DICOMWEB_STORE, GObject)

/* The #LbStoreConstructor: @uri is dicomweb+http(s)://… or http(s)://… */
LbStore *lb_dicomweb_store_new (const char      *uri,
                                LbStoreOptions  *options,
                                GError         **error);

/* Registers the backend ("dicomweb", "dicomweb+http", "dicomweb+https") with the factory;
 * called once by the generated lb-store-backends.c. */
void     lb_dicomweb_register (void);

/* QIDO-RS searches are paged with limit/offset, this many results per request, so that servers
 * that cap their answers still give whole listings. */
#define LB_DICOMWEB_DEFAULT_PAGE_SIZE 1000
void        lb_dicomweb_store_set_page_size (LbDicomwebStore *self,
                                             guint            page_size);

/* The root of a DICOMweb store (and its patient without an ID) lists the patients of at most
 * this many studies, then a row "lb:more-studies" that says the archive holds more: a PACS of
 * 100 000 studies is searched, not listed. 0: no cap. */
#define LB_DICOMWEB_DEFAULT_TREE_MAX_STUDIES 500
void  lb_dicomweb_store_set_tree_max_studies (LbDicomwebStore *self,
                                              guint            max_studies);
guint lb_dicomweb_store_get_tree_max_studies (LbDicomwebStore *self);

/* The attribute of that row: the number of studies listed, as a decimal string. */
#define LB_DICOMWEB_MORE_STUDIES_ATTRIBUTE "lb:more-studies"

/* The http(s) URL of the DICOMweb root, without a trailing slash. */
const char *lb_dicomweb_store_get_base_url (LbDicomwebStore *self);

/**
 * lb_dicomweb_store_fetch_image_async:
 * @uri: an instance entry's URI
 *
 * Fetches the instance's metadata (WADO-RS …/metadata) and its first frame (…/frames/1;
 * with @uri ending in …/frames/N, frame N), requested as Explicit VR Little Endian, so the
 * server transcodes compressed images if it can, and decodes them with
 * lb_dicom_decode_frame_number(). A frame the server cannot deliver uncompressed is
 * %LB_ERROR_UNSUPPORTED; a frame number past NumberOfFrames %LB_ERROR_INVALID_ARGUMENT.
 */
void      lb_dicomweb_store_fetch_image_async  (LbDicomwebStore     *self,
                                                const char          *uri,
                                                const LbLimits      *limits,
                                                GCancellable        *cancellable,
                                                GAsyncReadyCallback  callback,
                                                gpointer             user_data);
/* @out_metadata: (out) (optional) (transfer full): the instance's data set */
LbImage  *lb_dicomweb_store_fetch_image_finish (LbDicomwebStore     *self,
                                                GAsyncResult        *result,
                                                LbDicomDataset     **out_metadata,
                                                GError             **error);

/**
 * lb_dicomweb_store_series_metadata_async:
 * @uri: a series entry's URI (…/studies/x/series/y/)
 *
 * The data sets of every instance of the series in one request (WADO-RS …/metadata of the
 * series, PS3.18 §10.4.1.1.2), parsed on a worker thread; what a stack needs to order its
 * slices and to ask for their frames without one metadata request per instance.
 */
void       lb_dicomweb_store_series_metadata_async  (LbDicomwebStore     *self,
                                                     const char          *uri,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
/* Returns the data sets (LbDicomDataset*); @out_uris: (out) (optional) each one's instance
 * entry URI (char*), in the same order. Instances without a SOPInstanceUID are left out. */
GPtrArray *lb_dicomweb_store_series_metadata_finish (LbDicomwebStore     *self,
                                                     GAsyncResult        *result,
                                                     GPtrArray          **out_uris,
                                                     GError             **error);

/**
 * lb_dicomweb_store_fetch_frame_async:
 * @uri: an instance entry's URI, or …/frames/N of it
 * @metadata: the instance's data set (from lb_dicomweb_store_series_metadata_async())
 *
 * lb_dicomweb_store_fetch_image_async() without the metadata request: only the frame (and LUT
 * data the metadata gives as bulk data) is fetched. Finish with
 * lb_dicomweb_store_fetch_image_finish().
 */
void      lb_dicomweb_store_fetch_frame_async  (LbDicomwebStore      *self,
                                                const char           *uri,
                                                const LbDicomDataset *metadata,
                                                const LbLimits       *limits,
                                                GCancellable         *cancellable,
                                                GAsyncReadyCallback   callback,
                                                gpointer              user_data);

/**
 * lb_dicomweb_store_fetch_metadata_async:
 * @uri: an instance entry's URI (or one of its frames')
 *
 * The instance's data set as the server describes it (WADO-RS …/metadata, the DICOM JSON
 * model of PS3.18 F.2), bulk data such as the pixels as BulkDataURIs.
 */
void            lb_dicomweb_store_fetch_metadata_async  (LbDicomwebStore     *self,
                                                         const char          *uri,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
/* (transfer full) */
LbDicomDataset *lb_dicomweb_store_fetch_metadata_finish (LbDicomwebStore     *self,
                                                         GAsyncResult        *result,
                                                         GError             **error);

/**
 * lb_dicomweb_store_store_derived_async:
 * @source_uri: the instance @image was derived from
 * @derivation: (nullable): the filter chain, for SeriesDescription/DerivationDescription
 *
 * Builds a Secondary Capture instance from @image and the source's metadata
 * (lb_dicom_build_secondary_capture(), SeriesNumber one above the study's highest), writes
 * it as Part 10 and POSTs it to …/studies/{StudyUID} (STOW-RS). The result is the new
 * instance's entry (attributes StudyInstanceUID, SeriesInstanceUID, SOPInstanceUID).
 * A FailedSOPSequence in the response, or a response that does not list the instance, is an
 * error naming the server's failure reason.
 */
void          lb_dicomweb_store_store_derived_async  (LbDicomwebStore     *self,
                                                      LbImage             *image,
                                                      const char          *source_uri,
                                                      const char          *derivation,
                                                      GCancellable        *cancellable,
                                                      GAsyncReadyCallback  callback,
                                                      gpointer             user_data);
LbStoreEntry *lb_dicomweb_store_store_derived_finish (LbDicomwebStore     *self,
                                                      GAsyncResult        *result,
                                                      GError             **error);

/* The entries of a DICOM tree (patient, study, series, instance) at @uri, with the labels below
 * and the UIDs and counts as attributes: the DICOMweb tree, and the local store's tree of a
 * folder's DICOM objects (lb-local-store.h). NULL (study, series, instance) without the
 * level's UID in @ds. */
LbStoreEntry *lb_dicom_patient_entry  (const char           *uri,
                                       const char           *patient_id,
                                       const LbDicomDataset *first,
                                       guint                 n_studies);
LbStoreEntry *lb_dicom_study_entry    (const char           *uri,
                                       const LbDicomDataset *study);
LbStoreEntry *lb_dicom_series_entry   (const char           *uri,
                                       const char           *study_uid,
                                       const LbDicomDataset *series);
LbStoreEntry *lb_dicom_instance_entry (const char           *uri,
                                       const char           *study_uid,
                                       const char           *series_uid,
                                       const LbDicomDataset *instance);
/* A GCompareDataFunc for GPtrArray of entries: by the number in attribute @key (a char*),
 * numerically, missing last, then by name. */
int           lb_dicom_compare_numbered (gconstpointer a,
                                         gconstpointer b,
                                         gpointer      key);

/* Labels used for the tree, exposed for tests. Each returns a newly allocated string. */
char *lb_dicomweb_label_patient  (const char *patient_name,
                                  const char *patient_id);
char *lb_dicomweb_label_study    (const LbDicomDataset *study);
char *lb_dicomweb_label_series   (const LbDicomDataset *series);
char *lb_dicomweb_label_instance (const LbDicomDataset *instance);

G_END_DECLS
