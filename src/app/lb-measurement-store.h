/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-measurement-sidecar.h"
#include "lb-store.h"
#include "lb-write-back.h"

G_BEGIN_DECLS

/*
 * An image's JSON sidecar (lb-measurement-sidecar.h) on its store: loading it when the image
 * opens and saving it with the stores' conditional write-back. GTK-free; the workstation
 * calls it from the main context.
 */

/**
 * lb_measurement_store_load_async:
 * @image_uri: the image's address; the sidecar is lb_measurement_sidecar_uri() of it
 *
 * Reads at most %LB_MEASUREMENT_SIDECAR_MAX_BYTES of the sidecar (one byte more is enough to
 * refuse it) and parses it.
 */
void       lb_measurement_store_load_async  (LbStore               *store,
                                             const char            *image_uri,
                                             GCancellable          *cancellable,
                                             GAsyncReadyCallback    callback,
                                             gpointer               user_data);
/**
 * lb_measurement_store_load_finish:
 * @etag: (out) (optional) (nullable): the sidecar's ETag: pass it to
 *   lb_measurement_store_save_async() to replace this version; NULL when there is no sidecar
 * @ref: (out) (optional): the image reference in the file
 *
 * Returns: (transfer full) (element-type LbMeasurement): the measurements, an empty array when
 * the image has no sidecar (or its address can have none). A sidecar that cannot be read or
 * trusted is an error (lb_measurement_sidecar_read()); the caller opens the image without
 * measurements, and, having no ETag, can never save over that file.
 */
GPtrArray *lb_measurement_store_load_finish (LbStore               *store,
                                             GAsyncResult          *result,
                                             char                 **etag,
                                             LbMeasurementImageRef *ref,
                                             GError               **error);

/**
 * lb_measurement_store_save_async:
 * @bytes: the document (lb_measurement_sidecar_write())
 * @etag: (nullable): the ETag lb_measurement_store_load_finish() gave; NULL when there was no
 *   sidecar
 *
 * Saves with lb_store_put_bytes_safely_async(): a new sidecar with %LB_STORE_WRITE_CREATE,
 * which never replaces a file (someone else's sidecar written meanwhile is a
 * %LB_ERROR_CONFLICT), an existing one with %LB_STORE_WRITE_IF_MATCH and @etag, so only the
 * version that was read is replaced.
 */
void       lb_measurement_store_save_async  (LbStore               *store,
                                             const char            *image_uri,
                                             GBytes                *bytes,
                                             const char            *etag,
                                             GCancellable          *cancellable,
                                             GAsyncReadyCallback    callback,
                                             gpointer               user_data);
LbWriteBackResult *lb_measurement_store_save_finish (LbStore      *store,
                                                     GAsyncResult *result,
                                                     GError      **error);

G_END_DECLS
