/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-dicom-dataset.h"
#include "lb-store.h"

G_BEGIN_DECLS

/**
 * lb_store_read_dataset_async:
 * @uri: an image entry of @store
 *
 * The DICOM data set of the object at @uri, without its pixel data, for a tag browser: a
 * DICOMweb instance's metadata (WADO-RS …/metadata), else the header of the Part 10 file that
 * @store reads at @uri, read from the start of its content only as far as
 * lb_dicom_file_read_header() reads a local file; the rest of the download is dropped. Fails
 * with %LB_ERROR_UNSUPPORTED when the content is not DICOM.
 */
void            lb_store_read_dataset_async  (LbStore             *store,
                                              const char          *uri,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);
/* (transfer full) */
LbDicomDataset *lb_store_read_dataset_finish (LbStore             *store,
                                              GAsyncResult        *result,
                                              GError             **error);

G_END_DECLS
