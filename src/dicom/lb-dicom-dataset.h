/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * LbDicomDataset:
 *
 * A DICOM data set as the DICOM JSON model (PS3.18 §F.2) describes it: elements keyed by tag,
 * each with a VR and zero or more values. It is what QIDO-RS and WADO-RS metadata responses
 * parse into, and what the Part 10 writer (lb-dicom-writer.h) serialises.
 *
 * Values are kept as text, the way the DICOM file itself stores string VRs: numbers that the
 * JSON model carries as JSON numbers (IS, DS, US, SS, UL, SL, FL, FD) are formatted so that
 * parsing them back gives the same double. A person name (PN) is kept in its DICOM form:
 * the Alphabetic group, followed by "=Ideographic=Phonetic" only when those are present.
 * Sequence (SQ) values are nested data sets; binary VRs (OB, OW, …) hold bytes from
 * InlineBinary, or a BulkDataURI to fetch them from.
 *
 * Reference counted; not thread safe while being modified.
 */
typedef struct _LbDicomDataset LbDicomDataset;

#define LB_TYPE_DICOM_DATASET (lb_dicom_dataset_get_type ())
GType           lb_dicom_dataset_get_type (void) G_GNUC_CONST;

/* Tag as one 32-bit number: group << 16 | element. */
#define LB_DICOM_TAG(group, element) ((guint32) (((guint32) (group) << 16) | (guint32) (element)))

LbDicomDataset *lb_dicom_dataset_new   (void);
LbDicomDataset *lb_dicom_dataset_ref   (LbDicomDataset *ds);
void            lb_dicom_dataset_unref (LbDicomDataset *ds);

/**
 * lb_dicom_dataset_new_from_json_object:
 * @node: a JSON object node: {"GGGGEEEE": {"vr": "XX", "Value": […]}, …}
 *
 * Validates and converts one data set of the DICOM JSON model. Malformed input (a key that is
 * not 8 hex digits, a missing or invalid "vr", a Value that is not an array, a value whose type
 * does not fit the VR, bad base64) fails with %LB_ERROR_PARSE naming the tag.
 */
LbDicomDataset *lb_dicom_dataset_new_from_json_object (JsonNode *node,
                                                       GError  **error);

/**
 * lb_dicom_json_parse_array:
 * @data: the response body of a QIDO-RS search or a WADO-RS metadata request
 *
 * Parses a JSON array of data sets. Returns (transfer full) (element-type LbDicomDataset) a
 * new array, or %NULL with %LB_ERROR_PARSE when @data is not JSON, not an array, or an item is
 * not a valid data set (the message gives the item index and the tag).
 */
GPtrArray      *lb_dicom_json_parse_array (const char *data,
                                           gsize       len,
                                           GError    **error);

/* Number of elements, and the tags in ascending order (transfer container, free with g_free). */
guint           lb_dicom_dataset_get_n_elements (const LbDicomDataset *ds);
guint32        *lb_dicom_dataset_get_tags       (const LbDicomDataset *ds,
                                                 guint                *n_tags);

gboolean        lb_dicom_dataset_has       (const LbDicomDataset *ds,
                                            guint32               tag);
/* The VR ("CS", "PN", …) or NULL when the element is absent. */
const char     *lb_dicom_dataset_get_vr    (const LbDicomDataset *ds,
                                            guint32               tag);
/* Number of values (0 for an element that is present but empty). */
guint           lb_dicom_dataset_get_n_values (const LbDicomDataset *ds,
                                               guint32               tag);
/* Value @index as text, or NULL when absent, empty (after removing padding) or null. Text is
 * stored without padding: trailing spaces, and leading ones except for LT, ST, UT. */
const char     *lb_dicom_dataset_get_string (const LbDicomDataset *ds,
                                             guint32               tag,
                                             guint                 index);
/* All values joined with '\', as in a DICOM file (NULL when the element is absent). */
char           *lb_dicom_dataset_dup_joined (const LbDicomDataset *ds,
                                             guint32               tag);
/* Numeric value @index (IS, DS, US, … or a string that parses completely). FALSE when absent
 * or not a number. */
gboolean        lb_dicom_dataset_get_int    (const LbDicomDataset *ds,
                                             guint32               tag,
                                             guint                 index,
                                             gint64               *out);
gboolean        lb_dicom_dataset_get_double (const LbDicomDataset *ds,
                                             guint32               tag,
                                             guint                 index,
                                             double               *out);
/* (transfer none) binary value (InlineBinary or set with set_bytes), NULL otherwise. */
GBytes         *lb_dicom_dataset_get_bytes  (const LbDicomDataset *ds,
                                             guint32               tag);
const char     *lb_dicom_dataset_get_bulk_data_uri (const LbDicomDataset *ds,
                                                    guint32               tag);
/* Items of a sequence (transfer none), NULL when absent or not SQ. */
guint           lb_dicom_dataset_get_n_items (const LbDicomDataset *ds,
                                              guint32               tag);
LbDicomDataset *lb_dicom_dataset_get_item    (const LbDicomDataset *ds,
                                              guint32               tag,
                                              guint                 index);

/* Building (for the writer). Each replaces any existing element with @tag.
 * @value NULL or "" gives a present but empty element (DICOM type 2). Multiple values of a
 * string VR are separated by '\'. */
void            lb_dicom_dataset_set_string (LbDicomDataset *ds,
                                             guint32         tag,
                                             const char     *vr,
                                             const char     *value);
void            lb_dicom_dataset_set_uint   (LbDicomDataset *ds,
                                             guint32         tag,
                                             const char     *vr,
                                             guint32         value);
void            lb_dicom_dataset_set_double (LbDicomDataset *ds,
                                             guint32         tag,
                                             double          value);
void            lb_dicom_dataset_set_bytes  (LbDicomDataset *ds,
                                             guint32         tag,
                                             const char     *vr,
                                             GBytes         *bytes);
/* Replaces element @tag with the values in @values (transfer full: an array of char*, owned,
 * freed with g_free; NULL entries are null values), padding removed as for set_string. Unlike
 * set_string, nothing is split: a value may contain '\' (LT, ST, UT). */
void            lb_dicom_dataset_take_values (LbDicomDataset *ds,
                                              guint32         tag,
                                              const char     *vr,
                                              GPtrArray      *values);
/* Replaces element @tag with a sequence of the items in @items (transfer full: an array of
 * LbDicomDataset*, each owned); an empty array gives a present but empty sequence. */
void            lb_dicom_dataset_take_items (LbDicomDataset *ds,
                                             guint32         tag,
                                             GPtrArray      *items);
/* Appends @item (a reference is taken) to sequence @tag, creating it if needed. */
void            lb_dicom_dataset_add_item   (LbDicomDataset *ds,
                                             guint32         tag,
                                             LbDicomDataset *item);
/* Copies element @tag from @src (values, items, bytes) if present; returns whether it was. */
gboolean        lb_dicom_dataset_copy_element (LbDicomDataset       *ds,
                                               const LbDicomDataset *src,
                                               guint32               tag);
void            lb_dicom_dataset_remove     (LbDicomDataset *ds,
                                             guint32         tag);

/* Formats a decimal string (DS) of at most 16 characters that parses back to @value as closely
 * as 16 characters allow. */
char           *lb_dicom_format_ds (double value);

/* TRUE for VRs whose values are text in a DICOM file (AE AS CS DA DS DT IS LO LT PN SH ST TM
 * UC UI UR UT). */
gboolean        lb_dicom_vr_is_string (const char *vr);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LbDicomDataset, lb_dicom_dataset_unref)

G_END_DECLS
