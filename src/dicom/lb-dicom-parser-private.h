/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* The data element parser behind lb-dicom-file.c and lb-dicomdir.c (src/dicom only): one
 * encoded data set (PS3.5 §7) in memory → an LbDicomDataset, with every length checked against
 * the bytes that are left, nesting and element counts capped, and the top-level Pixel Data
 * kept as a location (no copy). */

#include "lb-dicom-dataset.h"

G_BEGIN_DECLS

/* Caps on what one file may make the parser build. Deeper than any real object (SR content
 * trees and functional groups stay well under 20 levels); a file over a cap is refused with
 * LB_ERROR_TOO_LARGE naming it, before it can exhaust the stack or the memory. */
#define LB_DICOM_MAX_DEPTH 64           /* nested sequences */
#define LB_DICOM_MAX_ELEMENTS 500000    /* elements and items, all levels */
#define LB_DICOM_MAX_VALUES 4000000     /* text and numeric values, all levels */

#define LB_DICOM_ITEM_TAG              LB_DICOM_TAG (0xFFFE, 0xE000)
#define LB_DICOM_ITEM_DELIMITER_TAG    LB_DICOM_TAG (0xFFFE, 0xE00D)
#define LB_DICOM_SEQUENCE_DELIMITER_TAG LB_DICOM_TAG (0xFFFE, 0xE0DD)
#define LB_DICOM_UNDEFINED_LENGTH      0xFFFFFFFFu

/* A byte range of the buffer being parsed. */
typedef struct {
  gsize offset;
  gsize length;
} LbDicomSpan;

typedef struct {
  /*< in >*/
  GBytes     *bytes;            /* the buffer; binary values become slices of it */
  const char *name;             /* file name for messages */
  gboolean    big_endian;
  gboolean    explicit_vr;
  guint32     stop_tag;         /* top level: stop before the first tag >= this; 0 = never */
  gboolean    only_meta_group;  /* top level: stop before the first tag of a group other than
                                 * 0002 */
  gboolean    allow_truncation; /* @bytes is a prefix: running out of bytes ends the parse */
  guint32     offsets_of;       /* a top-level sequence whose item offsets are recorded; 0 none */

  /*< out >*/
  gboolean    truncated;        /* allow_truncation, and the prefix ended inside an element */
  guint32     last_tag;         /* the last top-level tag read completely */
  gboolean    has_pixel_data;   /* top-level (7FE0,0010) */
  gboolean    encapsulated;     /* … with undefined length: items of fragments (PS3.5 §A.4) */
  char        pixel_vr[3];
  LbDicomSpan pixel;            /* native: the value */
  GArray     *fragments;        /* encapsulated: LbDicomSpan of each item's value; item 0 is the
                                 * Basic Offset Table. Offsets of fragments are those of their
                                 * values; the item tag is 8 bytes before. */
  GArray     *item_offsets;     /* gsize: offset of each item tag of @offsets_of */

  /*< private >*/
  const guint8 *data;
  gsize       len;
  guint64     n_elements;
  guint64     n_values;
  int         pixel_representation; /* top level, for "US or SS" (PS3.5 §A.1 c); -1 unknown */
} LbDicomParser;

/* Sets up @p over @bytes (referenced). */
void     lb_dicom_parser_init  (LbDicomParser *p,
                                GBytes        *bytes,
                                const char    *name,
                                gboolean       big_endian,
                                gboolean       explicit_vr);
void     lb_dicom_parser_clear (LbDicomParser *p);

/* Parses the elements in [@start, @end) into @ds; FALSE with an %LB_ERROR naming the file and
 * the element on any inconsistency. @out_end gets where parsing stopped (the end, the stop tag,
 * or the truncation point). */
gboolean lb_dicom_parser_run   (LbDicomParser  *p,
                                gsize           start,
                                gsize           end,
                                LbDicomDataset *ds,
                                gsize          *out_end,
                                GError        **error);

/* Parses the group 0002 elements at @start: Explicit VR Little Endian (PS3.10 §7.1), or Implicit
 * VR when a broken writer used it; stops at the first element of another group. */
gboolean lb_dicom_parse_file_meta (GBytes          *bytes,
                                   const char      *name,
                                   gsize            start,
                                   LbDicomDataset  *meta,
                                   gsize           *out_end,
                                   GError         **error);

/* The attribute name used in messages: "(0028,0101)". */
#define LB_DICOM_TAG_FORMAT "(%04X,%04X)"
#define LB_DICOM_TAG_ARGS(tag) (guint) ((tag) >> 16), (guint) ((tag) & 0xffff)

G_END_DECLS
