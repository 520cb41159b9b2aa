/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-dicomweb-store.h"

G_BEGIN_DECLS

/**
 * LbDicomwebStudyQuery:
 *
 * A study search on a DICOMweb server (QIDO-RS /studies, PS3.18 §10.6): one page of the
 * matches, never the whole archive. Every field may be NULL (not a criterion).
 */
typedef struct {
  char  *patient_name;  /* PatientName; '*' and '?' are wildcards (PS3.4 C.2.2.2.4) */
  char  *patient_id;    /* PatientID */
  char  *date_from;     /* StudyDate range YYYYMMDD, inclusive; either end may be NULL */
  char  *date_to;
  char  *modality;      /* ModalitiesInStudy */
  char  *accession;     /* AccessionNumber */
  guint  limit;         /* results per page; 0: LB_DICOMWEB_SEARCH_DEFAULT_LIMIT */
  guint  offset;        /* matches to skip */
} LbDicomwebStudyQuery;

#define LB_DICOMWEB_SEARCH_DEFAULT_LIMIT 100
/* A page larger than this is refused: a search is for reading, not for copying the archive. */
#define LB_DICOMWEB_SEARCH_MAX_LIMIT 1000

/* The path and query ("/studies?…&limit=N&offset=M") of @query, percent-encoded, asking for
 * the attributes a result list shows; NULL with %LB_ERROR_INVALID_ARGUMENT naming the field
 * when a date is not YYYYMMDD, the range is reversed, or the limit is above the maximum. */
char      *lb_dicomweb_study_query_to_path (const LbDicomwebStudyQuery *query,
                                            GError                    **error);

/* Runs @query (one request); finish returns the matching studies' data sets (LbDicomDataset*,
 * in the server's order; empty when nothing matches). */
void       lb_dicomweb_store_search_studies_async  (LbDicomwebStore            *self,
                                                    const LbDicomwebStudyQuery *query,
                                                    GCancellable               *cancellable,
                                                    GAsyncReadyCallback         callback,
                                                    gpointer                    user_data);
GPtrArray *lb_dicomweb_store_search_studies_finish (LbDicomwebStore            *self,
                                                    GAsyncResult               *result,
                                                    GError                    **error);
/* The same, waiting on a private main context (command-line tools only). */
GPtrArray *lb_dicomweb_store_search_studies_sync   (LbDicomwebStore            *self,
                                                    const LbDicomwebStudyQuery *query,
                                                    GCancellable               *cancellable,
                                                    GError                    **error);

/* The study entry (LB_STORE_ENTRY_DICOM_STUDY, its URI in the store's tree) of a data set that
 * a search returned, with the attributes of lb_dicom_study_entry() and ModalitiesInStudy,
 * NumberOfStudyRelatedSeries and AccessionNumber; NULL without a StudyInstanceUID. */
LbStoreEntry *lb_dicomweb_store_study_entry (LbDicomwebStore      *self,
                                             const LbDicomDataset *study);

G_END_DECLS
