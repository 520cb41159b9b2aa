/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "lb-dicom-dataset.h"

G_BEGIN_DECLS

/**
 * LbDicomdirRecord:
 *
 * One directory record of a DICOMDIR (PS3.3 F.3.2.2): its type ("PATIENT", "STUDY", "SERIES",
 * "IMAGE", "RT DOSE", "SR DOCUMENT", …), its attributes (the record's data set: PatientName,
 * StudyDate, SeriesNumber, InstanceNumber, …), the file it references, and the records of the
 * level below. Owned by its #LbDicomdir; valid while it is.
 */
typedef struct _LbDicomdirRecord LbDicomdirRecord;

const char           *lb_dicomdir_record_get_type_name (const LbDicomdirRecord *record);
LbDicomDataset       *lb_dicomdir_record_get_dataset   (const LbDicomdirRecord *record);
/* ReferencedFileID (0004,1500) with '/' between its components, as written ("PT0/ST0/IM1"),
 * or NULL when the record references no file. */
const char           *lb_dicomdir_record_get_file_id   (const LbDicomdirRecord *record);
/* The referenced file found on disk (names matched without regard to case, and with an
 * ISO 9660 ";1" version), or NULL when it references none or it is missing. */
const char           *lb_dicomdir_record_get_path      (const LbDicomdirRecord *record);
guint                 lb_dicomdir_record_get_n_children (const LbDicomdirRecord *record);
const LbDicomdirRecord *lb_dicomdir_record_get_child   (const LbDicomdirRecord *record,
                                                        guint                   index);

/**
 * LbDicomdir:
 *
 * A DICOMDIR, the directory of a DICOM file-set on a CD, DVD or USB stick (PS3.10 §8,
 * PS3.3 F.3): its records as the tree their offsets make (patient → study → series →
 * instances), each ReferencedFileID resolved against the DICOMDIR's folder. Records whose
 * offsets are missing or broken are placed by their order and type instead; records not in use
 * (RecordInUseFlag 0) are left out.
 */
#define LB_TYPE_DICOMDIR (lb_dicomdir_get_type ())
G_DECLARE_FINAL_TYPE (LbDicomdir, lb_dicomdir, LB, DICOMDIR, GObject)

/* Reads @path (a DICOMDIR file). Errors in %LB_ERROR: not DICOM, not a DICOMDIR (no Directory
 * Record Sequence), or whatever the Part 10 reader refuses. */
LbDicomdir             *lb_dicomdir_new_for_path (const char   *path,
                                                  GCancellable *cancellable,
                                                  GError      **error);
/* The same from the file's bytes, with the file IDs resolved against @folder. */
LbDicomdir             *lb_dicomdir_new_from_bytes (GBytes       *bytes,
                                                    const char   *name,
                                                    const char   *folder,
                                                    GCancellable *cancellable,
                                                    GError      **error);
/* The folder the file IDs are relative to. */
const char             *lb_dicomdir_get_folder   (LbDicomdir   *self);
/* The records of the root directory entity: usually PATIENT records. */
guint                   lb_dicomdir_get_n_roots  (LbDicomdir   *self);
const LbDicomdirRecord *lb_dicomdir_get_root     (LbDicomdir   *self,
                                                  guint         index);
/* The record that references the file at @path (as lb_dicomdir_record_get_path() gives it),
 * or NULL. */
const LbDicomdirRecord *lb_dicomdir_find_path    (LbDicomdir   *self,
                                                  const char   *path);

/* TRUE for the file name of a DICOMDIR ("DICOMDIR" in any case, with or without ";1"). */
gboolean                lb_dicomdir_is_name      (const char   *basename);

G_END_DECLS
