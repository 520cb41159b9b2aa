/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/**
 * LbStoreEntryKind:
 * @LB_STORE_ENTRY_UNKNOWN: not known (yet)
 * @LB_STORE_ENTRY_DIRECTORY: a container: folder, WebDAV collection, listing directory
 * @LB_STORE_ENTRY_FILE: a file that is not known to be an image
 * @LB_STORE_ENTRY_IMAGE: a file whose name or content type says it is an image Lightbox reads
 * @LB_STORE_ENTRY_DICOM_FILE: a DICOM Part 10 file in a plain store (.dcm, application/dicom)
 * @LB_STORE_ENTRY_DICOM_PATIENT: DICOMweb patient (container)
 * @LB_STORE_ENTRY_DICOM_STUDY: DICOMweb study (container)
 * @LB_STORE_ENTRY_DICOM_SERIES: DICOMweb series (container)
 * @LB_STORE_ENTRY_DICOM_INSTANCE: DICOMweb instance (readable as an image)
 */
typedef enum {
  LB_STORE_ENTRY_UNKNOWN,
  LB_STORE_ENTRY_DIRECTORY,
  LB_STORE_ENTRY_FILE,
  LB_STORE_ENTRY_IMAGE,
  LB_STORE_ENTRY_DICOM_FILE,
  LB_STORE_ENTRY_DICOM_PATIENT,
  LB_STORE_ENTRY_DICOM_STUDY,
  LB_STORE_ENTRY_DICOM_SERIES,
  LB_STORE_ENTRY_DICOM_INSTANCE,
} LbStoreEntryKind;

GType lb_store_entry_kind_get_type (void) G_GNUC_CONST;
#define LB_TYPE_STORE_ENTRY_KIND (lb_store_entry_kind_get_type ())

/* TRUE for the kinds that have children (directory, patient, study, series). */
gboolean lb_store_entry_kind_is_container (LbStoreEntryKind kind);

#define LB_TYPE_STORE_ENTRY (lb_store_entry_get_type ())
G_DECLARE_FINAL_TYPE (LbStoreEntry, lb_store_entry, LB, STORE_ENTRY, GObject)

/**
 * LbStoreEntry:
 *
 * One item of a store listing (or the result of a stat/read/write): where it is, what it is
 * called, what it is and what the server said about it. Every field is also a GObject
 * property ("uri", "name", "display-name", "kind", "size", "mtime", "content-type", "etag")
 * so that list widgets can bind to it.
 *
 * - uri: absolute, percent-encoded URI (the one to pass back to the store). Containers end
 *   in '/' for HTTP stores.
 * - name: the last path segment, percent-decoded (UTF-8; invalid UTF-8 is kept escaped).
 * - display-name: what to show; defaults to the name. DICOMweb sets readable labels here.
 * - size: bytes, -1 when unknown (directories, listings without sizes).
 * - mtime: nullable GDateTime (UTC).
 * - content-type, etag: nullable; the ETag is kept verbatim including quotes and W/.
 *
 * Extra string attributes (e.g. DICOM UIDs) can be attached with lb_store_entry_set_attribute().
 * "lb:identity" names a folder whatever the path to it (a local folder: "DEVICE:INODE"), for
 * stores that know one: a recursive walk stops at a folder it is already inside.
 */

LbStoreEntry     *lb_store_entry_new              (const char       *uri,
                                                   const char       *name,
                                                   LbStoreEntryKind  kind);

const char       *lb_store_entry_get_uri          (LbStoreEntry *self);
const char       *lb_store_entry_get_name         (LbStoreEntry *self);
/* never NULL: falls back to the name */
const char       *lb_store_entry_get_display_name (LbStoreEntry *self);
LbStoreEntryKind  lb_store_entry_get_kind         (LbStoreEntry *self);
gboolean          lb_store_entry_is_container     (LbStoreEntry *self);
gint64            lb_store_entry_get_size         (LbStoreEntry *self);
/* (transfer none) (nullable) */
GDateTime        *lb_store_entry_get_mtime        (LbStoreEntry *self);
const char       *lb_store_entry_get_content_type (LbStoreEntry *self);
const char       *lb_store_entry_get_etag         (LbStoreEntry *self);
const char       *lb_store_entry_get_attribute    (LbStoreEntry *self,
                                                   const char   *key);

void lb_store_entry_set_uri          (LbStoreEntry     *self,
                                      const char       *uri);
void lb_store_entry_set_name         (LbStoreEntry     *self,
                                      const char       *name);
void lb_store_entry_set_display_name (LbStoreEntry     *self,
                                      const char       *display_name);
void lb_store_entry_set_kind         (LbStoreEntry     *self,
                                      LbStoreEntryKind  kind);
void lb_store_entry_set_size         (LbStoreEntry     *self,
                                      gint64            size);
/* @mtime: (nullable): referenced */
void lb_store_entry_set_mtime        (LbStoreEntry     *self,
                                      GDateTime        *mtime);
void lb_store_entry_set_content_type (LbStoreEntry     *self,
                                      const char       *content_type);
void lb_store_entry_set_etag         (LbStoreEntry     *self,
                                      const char       *etag);
/* @value: (nullable): NULL removes the attribute */
void lb_store_entry_set_attribute    (LbStoreEntry     *self,
                                      const char       *key,
                                      const char       *value);

/* Guesses IMAGE / DICOM_FILE / FILE from a file name and an optional content type. */
LbStoreEntryKind lb_store_entry_guess_file_kind (const char *name,
                                                 const char *content_type);

G_END_DECLS
