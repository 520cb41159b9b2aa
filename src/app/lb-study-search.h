/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "lb-dicomweb-search.h"

G_BEGIN_DECLS

/**
 * LbStudySearch:
 *
 * The study search of a DICOMweb store (win.search-studies): patient name (with the wildcards
 * '*' and '?' of PS3.4 C.2.2.2.4), patient ID, a study date range, modality and accession
 * number, sent as QIDO-RS query parameters (lb_dicomweb_study_query_to_path()). The matches
 * come a page at a time (limit/offset, PS3.18 §8.3.4.4): More, or scrolling to the end of the
 * list, asks for the next page, so an
 * archive of 100 000 studies is never listed whole. Stop (or Escape while searching) cancels;
 * no results and errors say so in the status line.
 *
 * Choosing a study (double click, Enter, Open Study) emits ::study-chosen with its entry
 * (LB_STORE_ENTRY_DICOM_STUDY, with PatientName, PatientID, StudyDate, StudyDescription,
 * ModalitiesInStudy, NumberOfStudyRelatedSeries attributes) and hides the window, which keeps
 * its criteria and results for the next time.
 *
 * The window is ui/lb-study-search.ui.
 */
#define LB_TYPE_STUDY_SEARCH (lb_study_search_get_type ())
G_DECLARE_FINAL_TYPE (LbStudySearch, lb_study_search, LB, STUDY_SEARCH, GtkWindow)

/* Studies asked for per page. */
#define LB_STUDY_SEARCH_PAGE_SIZE 50

LbStudySearch *lb_study_search_new           (GtkWindow                  *parent);
/* The store searched (NULL: none; the results are cleared when it changes). */
void           lb_study_search_set_store     (LbStudySearch              *self,
                                              LbDicomwebStore            *store);
void           lb_study_search_set_page_size (LbStudySearch              *self,
                                              guint                       page_size);
/* Fills the fields from @query (its limit and offset are not used). */
void           lb_study_search_set_criteria  (LbStudySearch              *self,
                                              const LbDicomwebStudyQuery *query);
/* A new search with the fields' criteria, from the first page. */
void           lb_study_search_run           (LbStudySearch              *self);
/* The next page of the last search. */
void           lb_study_search_more          (LbStudySearch              *self);
void           lb_study_search_cancel        (LbStudySearch              *self);
gboolean       lb_study_search_is_busy       (LbStudySearch              *self);
/* TRUE when the last page was full: the server may hold more. */
gboolean       lb_study_search_has_more      (LbStudySearch              *self);
/* The studies found so far (LbStoreEntry), in the server's order. */
GListModel    *lb_study_search_get_results   (LbStudySearch              *self);
const char    *lb_study_search_get_status    (LbStudySearch              *self);
/* The technical text behind the status' Details after a failure (request, URL, status);
 * NULL when there is none. */
const char    *lb_study_search_get_details   (LbStudySearch              *self);
/* What choosing does: emits ::study-chosen for result @position and hides the window. */
void           lb_study_search_choose        (LbStudySearch              *self,
                                              guint                       position);

G_END_DECLS
