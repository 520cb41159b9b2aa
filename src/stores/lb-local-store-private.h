/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* What the two halves of LbLocalStore share (src/stores only): lb-local-store.c (the folder
 * through GIO) and lb-local-store-dicom.c (its DICOM objects by patient, study and series). */

#include "lb-local-store.h"

G_BEGIN_DECLS

#define LB_LOCAL_STORE_QUERY_ATTRS \
  G_FILE_ATTRIBUTE_STANDARD_NAME "," G_FILE_ATTRIBUTE_STANDARD_DISPLAY_NAME "," \
  G_FILE_ATTRIBUTE_STANDARD_TYPE "," G_FILE_ATTRIBUTE_STANDARD_SIZE "," \
  G_FILE_ATTRIBUTE_STANDARD_CONTENT_TYPE "," G_FILE_ATTRIBUTE_STANDARD_FAST_CONTENT_TYPE "," \
  G_FILE_ATTRIBUTE_TIME_MODIFIED "," G_FILE_ATTRIBUTE_TIME_MODIFIED_USEC "," \
  G_FILE_ATTRIBUTE_ETAG_VALUE "," \
  G_FILE_ATTRIBUTE_UNIX_DEVICE "," G_FILE_ATTRIBUTE_UNIX_INODE

struct _LbLocalStore {
  GObject         parent_instance;

  /* Owned */
  GFile          *root;
  char           *root_uri;
  char           *root_query;     /* opened at a DICOM level ("study=UID"), or NULL */
  LbStoreOptions *options;        /* (ref) */
  GHashTable     *dicom_headers;  /* path → header of a DICOM file (lb-local-store-dicom.c) */
  GMutex          dicom_lock;     /* for dicom_headers: listings run in worker threads */
};

/* GIO errors → LB_ERROR with the URI in front; cancellation stays G_IO_ERROR_CANCELLED. */
GError       *_lb_local_store_map_error       (GFile        *file,
                                               GError       *error);
LbStoreEntry *_lb_local_store_entry_from_info (GFile        *file,
                                               GFileInfo    *info);
/* The entries of @folder, blocking (worker threads), within the listing cap. */
GPtrArray    *_lb_local_store_enumerate       (LbLocalStore *self,
                                               GFile        *folder,
                                               GCancellable *cancellable,
                                               GError      **error);

/* ---- lb-local-store-dicom.c (blocking, worker threads) ---------------------------------- */

/* @entries (the folder's, transfer none) with its DICOM files replaced by patient entries. */
GPtrArray    *_lb_local_store_group_dicom     (LbLocalStore *self,
                                               GFile        *folder,
                                               GPtrArray    *entries,
                                               GCancellable *cancellable,
                                               GError      **error);
/* The children of the DICOM level @query ("patient=ID", "study=UID", "study=…&series=…") of
 * @folder, and its own entry. */
GPtrArray    *_lb_local_store_list_dicom      (LbLocalStore *self,
                                               GFile        *folder,
                                               const char   *query,
                                               GCancellable *cancellable,
                                               GError      **error);
LbStoreEntry *_lb_local_store_stat_dicom      (LbLocalStore *self,
                                               GFile        *folder,
                                               const char   *query,
                                               GCancellable *cancellable,
                                               GError      **error);

G_END_DECLS
