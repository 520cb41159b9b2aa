/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "lb-dicom-dataset.h"
#include "lb-image.h"

G_BEGIN_DECLS

/* MediaStorageSOPClassUID of a DICOMDIR (PS3.4 Media Storage Directory Storage). */
#define LB_DICOM_SOP_CLASS_MEDIA_DIRECTORY "1.2.840.10008.1.3.10"

/**
 * LbDicomReadFlags:
 * @LB_DICOM_READ_DEFAULT: the whole object; the Image Pixel module is checked and the frames
 *   located
 * @LB_DICOM_READ_HEADER_ONLY: the data set up to the pixel data only, from a prefix of the file
 *   that may end anywhere (what a folder listing needs); no frames
 */
typedef enum {
  LB_DICOM_READ_DEFAULT     = 0,
  LB_DICOM_READ_HEADER_ONLY = 1 << 0,
} LbDicomReadFlags;

/**
 * LbDicomFile:
 *
 * A DICOM object read from a Part 10 file (PS3.10 §7: 128-byte preamble, "DICM", the group 0002
 * file meta information in Explicit VR Little Endian, then the data set) in Implicit VR Little
 * Endian, Explicit VR Little or Big Endian, Deflated Explicit VR Little Endian, or any
 * encapsulated transfer syntax. A data set without preamble and meta information (old
 * ACR-NEMA-style files) is read when its first element says how it is encoded.
 *
 * The data set is the JSON model's (#LbDicomDataset: text values, binary VRs as bytes, sequences
 * as items), so files and DICOMweb metadata go through the same decoding. The pixel data is not
 * part of it: the object keeps the file's bytes (mapped, not copied) and hands out frames.
 *
 * Every length is checked against the bytes that are left, nesting depth and element counts are
 * capped, and the Image Pixel module is checked against the pixel data and the image limits
 * before anything is allocated; errors are %LB_ERROR with the file name, the attribute and the
 * value ("BitsStored 17 is greater than BitsAllocated 16"). A structural error fails the read;
 * an error in the Image Pixel module only the frames (lb_dicom_file_check_pixels()).
 *
 * Immutable once read: safe to use from several threads.
 */
#define LB_TYPE_DICOM_FILE (lb_dicom_file_get_type ())
G_DECLARE_FINAL_TYPE (LbDicomFile, lb_dicom_file, LB, DICOM_FILE, GObject)

/**
 * lb_dicom_sniff:
 * @name: (nullable): the file name, to claim "*.dcm" files whose content says nothing
 *
 * TRUE when @data (the start of a file, 132 bytes or more to see the preamble) looks like DICOM:
 * "DICM" after the preamble, the file meta group at the start, or a data set beginning with a
 * group 0008 element in one of the uncompressed encodings.
 */
gboolean       lb_dicom_sniff                   (const guint8    *data,
                                                 gsize            len,
                                                 const char      *name);

/**
 * lb_dicom_file_new_from_bytes:
 * @bytes: the file, or with %LB_DICOM_READ_HEADER_ONLY any prefix of it
 * @name: file name or URI for messages
 * @limits: (nullable): checked against the frame size and the inflated size of deflated files
 */
LbDicomFile   *lb_dicom_file_new_from_bytes     (GBytes          *bytes,
                                                 const char      *name,
                                                 LbDicomReadFlags flags,
                                                 const LbLimits  *limits,
                                                 GError         **error);
/* Maps the file (no copy) and reads it. */
LbDicomFile   *lb_dicom_file_new_for_path       (const char      *path,
                                                 LbDicomReadFlags flags,
                                                 const LbLimits  *limits,
                                                 GError         **error);

/**
 * lb_dicom_file_read_header:
 *
 * Reads the data set of @file up to its pixel data from a bounded prefix (64 KiB, more only when
 * the attributes up to the Image Pixel module do not fit), for listings: a 300-file series is
 * read in milliseconds. Fails with %LB_ERROR_UNSUPPORTED when the file is not DICOM.
 */
LbDicomFile   *lb_dicom_file_read_header        (GFile           *file,
                                                 GCancellable    *cancellable,
                                                 GError         **error);

/**
 * lb_dicom_file_new_from_prefix:
 * @prefix: the first bytes of a file
 * @at_end: whether @prefix is the whole file
 * @out_want: (out): 0 when the header is read as far as lb_dicom_file_read_header() reads it;
 *   else how many bytes of the file to offer next time, for a header that goes on past @prefix
 *
 * One step of lb_dicom_file_read_header() for a file that arrives in pieces (a store's
 * download): the header read from @prefix, NULL (and @error) when it is not DICOM or broken.
 */
LbDicomFile   *lb_dicom_file_new_from_prefix    (GBytes          *prefix,
                                                 const char      *name,
                                                 gboolean         at_end,
                                                 gsize           *out_want,
                                                 GError         **error);

const char     *lb_dicom_file_get_name           (LbDicomFile *self);
/* (transfer none) the data set (without the pixel data) and the file meta group (empty when
 * the file has none) */
LbDicomDataset *lb_dicom_file_get_dataset        (LbDicomFile *self);
LbDicomDataset *lb_dicom_file_get_file_meta      (LbDicomFile *self);
/* The transfer syntax UID of the data set (detected for files without meta information). */
const char     *lb_dicom_file_get_transfer_syntax (LbDicomFile *self);
/* FALSE for objects without pixel data (SR, RT plans, DICOMDIR) and header-only reads. */
gboolean        lb_dicom_file_has_pixel_data     (LbDicomFile *self);
/* Whether the frames can be read: FALSE with the error (no pixel data; an Image Pixel module
 * that contradicts itself, the limits or the pixel data; fragments that cannot be assigned to
 * frames). The rest of the object is read regardless. */
gboolean        lb_dicom_file_check_pixels       (LbDicomFile *self,
                                                  GError     **error);
/* TRUE when the pixel data is encapsulated (a compressed transfer syntax, PS3.5 §A.4). */
gboolean        lb_dicom_file_is_encapsulated    (LbDicomFile *self);
/* 0 when lb_dicom_file_check_pixels() fails. */
guint           lb_dicom_file_get_n_frames       (LbDicomFile *self);

/**
 * lb_dicom_file_dup_frame:
 * @index: 0 … n_frames − 1
 *
 * The bytes of one frame as stored: native, a slice of the file (in the transfer syntax's byte
 * order; 1-bit frames that do not start on a byte are shifted into a copy); encapsulated, the
 * frame's fragments concatenated (a slice when it is one fragment), in the transfer syntax
 * lb_dicom_file_get_transfer_syntax() names. Fragments are assigned to frames by the Basic or
 * Extended Offset Table, one per frame when the counts agree, or by the codec's start-of-image
 * marker (PS3.5 §A.4).
 */
GBytes         *lb_dicom_file_dup_frame          (LbDicomFile *self,
                                                  guint        index,
                                                  GError     **error);

/**
 * lb_dicom_file_decode_frame:
 *
 * Frame @index as an #LbImage through lb_dicom_decode_frame(), which decompresses encapsulated
 * frames (lb-dicom-codec.h) and converts YBR and PALETTE COLOR to RGB. The image's source is
 * @self's name.
 */
LbImage        *lb_dicom_file_decode_frame       (LbDicomFile    *self,
                                                  guint           index,
                                                  const LbLimits *limits,
                                                  GError        **error);

/**
 * lb_dicom_register_image_loader:
 *
 * Lets lb_image_load_bytes() (and so every image path: files, store downloads, the CLI) decode
 * DICOM Part 10 files: the first frame, with its data set in the metadata. Call once at start-up
 * from the layers above core (the app, the CLI); later calls do nothing.
 */
void            lb_dicom_register_image_loader   (void);

G_END_DECLS
