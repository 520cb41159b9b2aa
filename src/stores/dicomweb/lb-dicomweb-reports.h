/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-dicomweb-store.h"

G_BEGIN_DECLS

/*
 * Structured Reports on a DICOMweb server: saving a report (a measurement report built with
 * lb_measurement_sr_build(), or any SR data set) as a new instance in a new series of its
 * study, and finding the reports of a study. The layers keep measurements (view) apart from
 * stores, so a caller with measurements does both steps (docs/measurements.md):
 *
 *   report = lb_measurement_sr_build (images, n, 1, &error);
 *   lb_dicomweb_store_save_report_async (store, report, cancellable, on_saved, data);
 *   …
 *   lb_dicomweb_store_find_reports_async (store, image_uri, cancellable, on_found, data);
 *   reports = lb_dicomweb_store_find_reports_finish (store, result, &error);
 *   entries = lb_measurement_sr_read (reports->pdata[i], &error);
 *   list = lb_measurement_sr_for_image (entries, sop_instance_uid, frame);
 */

/**
 * lb_dicomweb_store_save_report_async:
 * @report: an SR data set with StudyInstanceUID, a SeriesInstanceUID of its own,
 *   SOPClassUID (an SR storage class) and SOPInstanceUID
 *
 * Stores @report with STOW-RS in its study, never replacing anything: the study's series are
 * searched first (QIDO-RS), and a report whose SeriesInstanceUID or SOPInstanceUID the study
 * already has is refused with %LB_ERROR_CONFLICT, so another reader's report series is never
 * joined or overwritten. The report's SeriesNumber is set to one above the study's highest
 * before it is written (this changes @report). A report without the UIDs, or that is no SR,
 * fails with %LB_ERROR_INVALID_ARGUMENT before any request.
 *
 * The result is the new instance's entry (attributes StudyInstanceUID, SeriesInstanceUID,
 * SOPInstanceUID, SOPClassUID).
 */
void          lb_dicomweb_store_save_report_async  (LbDicomwebStore     *self,
                                                    LbDicomDataset      *report,
                                                    GCancellable        *cancellable,
                                                    GAsyncReadyCallback  callback,
                                                    gpointer             user_data);
LbStoreEntry *lb_dicomweb_store_save_report_finish (LbDicomwebStore     *self,
                                                    GAsyncResult        *result,
                                                    GError             **error);

/**
 * lb_dicomweb_store_find_reports_async:
 * @uri: a URI of the store in the study: the study's, or a series', instance's or frame's
 *   below it
 *
 * Finds the study's Structured Reports: the series with Modality SR (QIDO-RS
 * …/studies/{study}/series?Modality=SR), their instances of an SR storage class, and the
 * whole data set of each (WADO-RS …/metadata), content tree included. Finish returns them
 * (transfer full, element-type LbDicomDataset) by SeriesNumber, then InstanceNumber; an empty
 * array when the study has none.
 */
void       lb_dicomweb_store_find_reports_async  (LbDicomwebStore     *self,
                                                  const char          *uri,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);
GPtrArray *lb_dicomweb_store_find_reports_finish (LbDicomwebStore     *self,
                                                  GAsyncResult        *result,
                                                  GError             **error);

G_END_DECLS
