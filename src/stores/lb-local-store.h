/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-store.h"

G_BEGIN_DECLS

/**
 * LbLocalStore:
 *
 * A folder through GIO: enumerate, read, atomic writes (temporary file + rename; CREATE is
 * link()-based so it never replaces; IF_MATCH compares GIO's etag::value), mkdir. ETags are
 * GIO's "etag::value" (mtime-based). Blocking file I/O runs in GTask worker threads, so the
 * @source of a write is read from a worker thread: pass a thread-agnostic stream (memory,
 * file), not a libsoup body. Progress callbacks are marshalled to the caller's context.
 *
 * DICOM: a folder lists the DICOM objects it holds by patient, as the DICOMweb store does
 * (lb-dicomweb-store.h): patient → study → series → the instances, which are the files
 * themselves; non-DICOM files and subfolders are listed as they are. A folder with a DICOMDIR
 * (a CD, a USB stick) lists the DICOMDIR's records instead of the folders they point into.
 * Only the start of each file is read (lb_dicom_file_read_header()), in the listing's worker
 * thread, and kept while the file's size and time do not change. The levels are URIs of the
 * folder with a query (a '?' in a file URI is never part of a name):
 *   FOLDER/?patient=ID, FOLDER/?study=UID, FOLDER/?study=UID&series=UID
 * A DICOMDIR file given as @uri opens its folder.
 */
#define LB_TYPE_LOCAL_STORE (lb_local_store_get_type ())
G_DECLARE_FINAL_TYPE (LbLocalStore, lb_local_store, LB, LOCAL_STORE, GObject)

/* @uri: file:// URI or a local path */
LbStore *lb_local_store_new (const char      *uri,
                             LbStoreOptions  *options,
                             GError         **error);

G_END_DECLS
